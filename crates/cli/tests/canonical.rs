//! `msgflow canonical` and `msgflow wire` end to end: the round trip, refusals.

mod common;

use std::fs;

use predicates::prelude::*;

use common::{fixture, msgflow, TestResult};

// ---------------------------------------------------------------------------------------------
// canonical, wire, check, repair, tools

#[test]
fn canonical_and_wire_round_trip_byte_for_byte() -> TestResult {
    for name in [
        "coding-agent-session.json",
        "interrupted-end.json",
        "user-content-mixed.json",
    ] {
        let original = fs::read(fixture(name))?;
        let assert = msgflow()?.arg("canonical").arg(fixture(name)).assert().success();
        let canonical = assert.get_output().stdout.clone();
        let parsed: serde_json::Value = serde_json::from_slice(&canonical)?;
        assert!(parsed.is_array(), "{name}");
        msgflow()?
            .arg("wire")
            .write_stdin(canonical)
            .assert()
            .success()
            .stdout(original.clone());
        // --pretty is the same JSON value.
        let assert = msgflow()?
            .args(["canonical", "--pretty"])
            .arg(fixture(name))
            .assert()
            .success();
        let pretty: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
        assert_eq!(pretty, parsed);
    }
    Ok(())
}

#[test]
fn wire_rejects_what_is_not_canonical_json() -> TestResult {
    msgflow()?
        .arg("wire")
        .write_stdin(r#"[{"role": "nobody"}]"#)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("<stdin>: not msgflow canonical JSON").and(predicate::str::contains("help:")));
    Ok(())
}
