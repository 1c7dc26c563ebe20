//! `msgflow tools` end to end.

mod common;

use predicates::prelude::*;

use common::{fixture, msgflow, TestResult};

#[test]
fn tools_exports_the_registry_and_guidance() -> TestResult {
    let assert = msgflow()?
        .arg("tools")
        .arg(fixture("interrupted-end.json"))
        .assert()
        .success();
    let export: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
    let statuses: Vec<&str> = export["calls"].as_array().map_or(Vec::new(), |calls| {
        calls.iter().filter_map(|call| call["status"].as_str()).collect()
    });
    assert_eq!(statuses, ["pending", "pending"]);
    msgflow()?
        .args(["tools", "--guidance"])
        .arg(fixture("interrupted-end.json"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "2 tool calls still have no result: read_file (call_a), read_file (call_b)",
        ));
    msgflow()?
        .args(["tools", "--guidance"])
        .arg(fixture("minimal.json"))
        .assert()
        .success()
        .stdout("");
    Ok(())
}
