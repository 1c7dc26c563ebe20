//! `msgflow check` end to end: exit statuses, batch mode, --json turns and loadability.

mod common;

use std::fs;

use predicates::prelude::*;

use common::{fixture, msgflow, repo_file, TestResult, NOT_JSON};

#[test]
fn check_exits_1_on_violations_and_0_on_a_clean_history() -> TestResult {
    let assert = msgflow()?
        .arg("check")
        .arg(fixture("interrupted-end.json"))
        .assert()
        .code(1);
    let stdout = String::from_utf8(assert.get_output().stdout.clone())?;
    insta::assert_snapshot!("check-interrupted-end", stdout);
    msgflow()?
        .arg("check")
        .arg(fixture("coding-agent-session.json"))
        .assert()
        .success()
        .stdout("no problems found\n");

    let assert = msgflow()?
        .args(["check", "--json"])
        .arg(fixture("interrupted-end.json"))
        .assert()
        .code(1);
    let report: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
    assert_eq!(report["valid"], false);
    assert_eq!(report["violations"][0]["kind"], "dangling-call");
    assert_eq!(report["violations"][0]["tool_call_id"], "call_a");
    msgflow()?.arg("check").write_stdin(NOT_JSON).assert().code(2);
    Ok(())
}

#[test]
fn check_in_batch_mode_exits_with_the_worst_status() -> TestResult {
    let dir = tempfile::tempdir()?;
    fs::copy(fixture("coding-agent-session.json"), dir.path().join("clean.json"))?;
    fs::copy(fixture("interrupted-end.json"), dir.path().join("dangling.json"))?;
    msgflow()?
        .arg("check")
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("2 files: 1 ok, 1 with problems, 0 invalid"));
    fs::write(dir.path().join("invalid.json"), NOT_JSON)?;
    msgflow()?.arg("check").arg(dir.path()).assert().code(2);
    Ok(())
}

#[test]
fn check_json_names_the_turn_of_each_violation() -> TestResult {
    // The shipped session: the user's first request and the three tool rounds are turn 0; the
    // user's last prompt (message 6) opens turn 1. The dangling calls are in turn 0.
    let output = msgflow()?
        .args(["check", "--json"])
        .arg(repo_file("examples/interrupted-session.json"))
        .output()?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(report["turns"], 2);
    let violations = report["violations"].as_array().ok_or("no violations")?;
    assert_eq!(violations.len(), 2);
    for violation in violations {
        assert_eq!(
            (&violation["message_index"], &violation["turn"]),
            (&5.into(), &0.into())
        );
    }
    Ok(())
}

#[test]
fn check_says_whether_pydantic_ai_would_load_the_history() -> TestResult {
    let loadable = fs::read(fixture("coding-agent-session.json"))?;
    let output = msgflow()?.args(["check", "--json"]).write_stdin(loadable).output()?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(report["pydantic_ai_loadable"], true);

    // A leap second: msgflow reads it, pydantic-ai 2.68.0 refuses it.
    let leap = r#"[{"parts":[{"content":"hi","timestamp":"2016-12-31T23:59:60Z","part_kind":"user-prompt"}],"kind":"request"}]"#;
    let output = msgflow()?.args(["check", "--json"]).write_stdin(leap).output()?;
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(report["pydantic_ai_loadable"], false);
    let violation = &report["violations"][0];
    assert_eq!(
        (
            &violation["kind"],
            &violation["message_index"],
            &violation["part_index"]
        ),
        (&"not-loadable".into(), &0.into(), &0.into())
    );
    let detail = violation["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("$[0].parts[0].timestamp (line 1, column "), "{detail}");
    msgflow()?
        .arg("check")
        .write_stdin(leap)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "pydantic-ai 2.68.0 would not load the history at message 0, part 0",
        ));
    Ok(())
}
