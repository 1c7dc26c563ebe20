//! `msgflow repair` end to end, and --strict on the writing commands.

mod common;

use std::fs;

use predicates::prelude::*;

use common::{fixture, msgflow, repo_file, BatchDir, TestResult, NOT_A_HISTORY};

#[test]
fn repair_fixes_dangling_calls_and_reports_every_change() -> TestResult {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("h.json");
    let original = fs::read(fixture("interrupted-end.json"))?;
    fs::write(&file, &original)?;
    let report = dir.path().join("changes.json");
    msgflow()?
        .args([
            "repair",
            "--in-place",
            "--backup",
            "--message",
            "cancelled by the user",
            "--report",
        ])
        .arg(&report)
        .arg(&file)
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains(
            "synthesized an interrupted result for dangling call `call_a`",
        ));
    assert_eq!(fs::read(dir.path().join("h.json.bak"))?, original);
    msgflow()?.arg("check").arg(&file).assert().success();
    let repaired = fs::read_to_string(&file)?;
    assert!(repaired.contains("cancelled by the user"));
    let changes: serde_json::Value = serde_json::from_slice(&fs::read(&report)?)?;
    let kinds: Vec<&str> = changes["changes"].as_array().map_or(Vec::new(), |changes| {
        changes.iter().filter_map(|change| change["change"].as_str()).collect()
    });
    assert_eq!(
        kinds,
        [
            "inserted-request",
            "inserted-synthetic-return",
            "inserted-synthetic-return"
        ]
    );
    Ok(())
}

#[test]
fn repair_can_leave_the_last_response_alone() -> TestResult {
    let original = fs::read(fixture("interrupted-end.json"))?;
    // The calls stay dangling on purpose: the output is written, and exit 1 says what is left.
    msgflow()?
        .args(["repair", "--keep-last-response"])
        .arg(fixture("interrupted-end.json"))
        .assert()
        .code(1)
        .stdout(original)
        .stderr(
            predicate::str::contains("left: dangling tool call at message").and(predicate::str::contains(
                "why: left on purpose: --keep-last-response leaves the last response's calls for the run to answer",
            )),
        );
    Ok(())
}

#[test]
fn repair_exits_1_naming_what_pydantic_ai_repair_leaves_and_resolves_it_on_request() -> TestResult {
    // An empty response pydantic-ai's repair keeps, and a builtin call no builtin return answers.
    let history = r#"[{"parts":[{"content":"search","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}],"kind":"request"},{"parts":[],"model_name":"m","timestamp":"2025-01-02T03:04:06Z","kind":"response"},{"parts":[{"tool_name":"web_search","args":{"q":"x"},"tool_call_id":"b1","part_kind":"builtin-tool-call"},{"content":"Searching.","part_kind":"text"}],"model_name":"m","timestamp":"2025-01-02T03:04:07Z","kind":"response"}]"#;
    let dir = tempfile::tempdir()?;
    let report = dir.path().join("report.json");
    let plain = msgflow()?.arg("repair").write_stdin(history).output()?;
    assert_eq!(plain.status.code(), Some(1));
    let stderr = String::from_utf8(plain.stderr)?;
    assert!(stderr.contains("left: empty message at message 1"), "{stderr}");
    assert!(
        stderr.contains("left: builtin tool call without its return at message 2, part 0"),
        "{stderr}"
    );
    assert!(stderr.contains("--resolve-remaining removes"), "{stderr}");

    let resolved = msgflow()?
        .args(["repair", "--resolve-remaining", "--report"])
        .arg(&report)
        .write_stdin(history)
        .output()?;
    assert_eq!(
        resolved.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resolved.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&report)?)?;
    let changes: Vec<&str> = report["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|change| change["change"].as_str())
        .collect();
    // In input order: the empty response (message 1), then the builtin call (message 2, part 0).
    assert_eq!(changes, ["removed-empty-message", "removed-builtin-call"]);
    assert_eq!(report["changes"][1]["part"]["tool_name"], "web_search");
    assert_eq!(report["remaining"], serde_json::json!([]));
    msgflow()?.arg("check").write_stdin(resolved.stdout).assert().success();
    Ok(())
}

#[test]
fn strict_refuses_to_write_what_pydantic_ai_would_not_load_and_leaves_the_input_untouched() -> TestResult {
    // `usage: null` on a response: msgflow reads it (lossless), pydantic-ai 2.68.0 refuses it.
    let compact = fs::read_to_string(fixture("coding-agent-session.json"))?;
    let mut history: serde_json::Value = serde_json::from_str(&compact)?;
    let response = history
        .as_array_mut()
        .and_then(|messages| messages.iter_mut().find(|message| message["kind"] == "response"))
        .ok_or("no response in the fixture")?;
    response["usage"] = serde_json::Value::Null;
    let unloadable = serde_json::to_string(&history)?;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("history.json");
    fs::write(&file, &unloadable)?;
    let media_dir = dir.path().join("media");
    let log = repo_file("examples/interrupted-stream.jsonl");
    let log = log.to_str().ok_or("a non-UTF-8 path")?;
    let media = media_dir.to_str().ok_or("a non-UTF-8 path")?;
    let commands: [&[&str]; 5] = [
        &["fmt"],
        &["repair"],
        &["trim", "--keep-turns", "1000"],
        &["media", "extract", "--dir", media],
        &["assemble", log, "--history"],
    ];
    for command in commands {
        msgflow()?
            .args(command)
            .arg(&file)
            .args(["--strict", "--in-place"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "refusing to write a history pydantic-ai 2.68.0 would not load: ",
            ))
            .stderr(predicate::str::contains(".usage"));
        assert_eq!(
            fs::read_to_string(&file)?,
            unloadable,
            "{command:?} --strict changed its input"
        );
        if command[0] == "media" {
            assert!(!media_dir.exists(), "media extract --strict wrote its directory");
        }
        if command[0] == "assemble" {
            continue; // It appends to the history, so its output is not the input.
        }
        // Without --strict: written, with one warning line.
        let written = msgflow()?.args(command).arg(&file).output()?;
        assert!(
            written.stdout == unloadable.as_bytes(),
            "{command:?} changed the history"
        );
        let stderr = String::from_utf8(written.stderr)?;
        assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
        assert!(
            stderr.contains("the output would not load in pydantic-ai 2.68.0"),
            "{stderr}"
        );
    }
    msgflow()?
        .args(["fmt", "--strict"])
        .arg(fixture("coding-agent-session.json"))
        .assert()
        .success()
        .stderr("");
    Ok(())
}

#[test]
fn repair_report_needs_a_single_input_and_invalid_input_changes_nothing() -> TestResult {
    let batch = BatchDir::new()?;
    msgflow()?
        .args(["repair", "--in-place", "--report", "r.json"])
        .arg(batch.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--report takes a single input"));
    msgflow()?
        .args(["repair", "--in-place"])
        .arg(batch.path("broken.json"))
        .assert()
        .code(2);
    assert_eq!(fs::read_to_string(batch.path("broken.json"))?, NOT_A_HISTORY);
    Ok(())
}
