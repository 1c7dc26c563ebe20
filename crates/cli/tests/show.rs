//! `msgflow show` end to end: transcripts pinned as snapshots, truncation, colour, escaping.

mod common;

use predicates::prelude::*;

use common::{fixture, msgflow, TestResult};

// ---------------------------------------------------------------------------------------------
// show and stats output, pinned

#[test]
fn show_transcripts() -> TestResult {
    for name in [
        "coding-agent-session",
        "interrupted-end",
        "user-content-mixed",
        "tool-return-outcomes",
    ] {
        let assert = msgflow()?
            .args(["show", "--color", "never", "--width", "100"])
            .arg(fixture(&format!("{name}.json")))
            .assert()
            .success();
        let stdout = String::from_utf8(assert.get_output().stdout.clone())?;
        insta::assert_snapshot!(format!("show-{name}"), stdout);
    }
    Ok(())
}

#[test]
fn show_truncates_long_tool_output_unless_full() -> TestResult {
    let output: Vec<String> = (1..=30).map(|n| format!("line {n}")).collect();
    let history = serde_json::json!([
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "ls", "args": {}, "tool_call_id": "c1"}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "ls",
            "content": output.join("\n"), "tool_call_id": "c1", "outcome": "success"}]}
    ])
    .to_string();
    msgflow()?
        .args(["show", "--max-lines", "5"])
        .write_stdin(history.clone())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("line 5\n")
                .and(predicate::str::contains("line 6\n").not())
                .and(predicate::str::contains("... 25 more lines (--full shows everything)")),
        );
    msgflow()?
        .args(["show", "--full", "--max-lines", "5"])
        .write_stdin(history)
        .assert()
        .success()
        .stdout(predicate::str::contains("line 30\n").and(predicate::str::contains("more lines").not()));
    Ok(())
}

#[test]
fn show_colours_only_when_asked_or_on_a_terminal() -> TestResult {
    let file = fixture("coding-agent-session.json");
    msgflow()?
        .args(["show", "--color", "always"])
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("\u{1b}["));
    // Not a terminal: `auto` means no colours.
    msgflow()?
        .arg("show")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("\u{1b}[").not());
    Ok(())
}

#[test]
fn show_escapes_terminal_control_sequences_in_content() -> TestResult {
    let history = serde_json::json!([
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi \u{1b}]0;pwned\u{7}"}]}
    ])
    .to_string();
    msgflow()?.arg("show").write_stdin(history).assert().success().stdout(
        predicate::str::contains("hi \\u{001b}]0;pwned\\u{0007}").and(predicate::str::contains("\u{1b}").not()),
    );
    Ok(())
}
