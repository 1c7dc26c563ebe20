//! `msgflow assemble`: the shipped event log of an interrupted run (written by pydantic-ai,
//! `oracle/gen_stream_example.py`), cut logs, malformed lines, `--json`, `--in-place`.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

fn msgflow() -> Result<Command, Box<dyn std::error::Error>> {
    let mut command = Command::cargo_bin("msgflow")?;
    command.env_remove("NO_COLOR").env_remove("COLUMNS");
    Ok(command)
}

const TIMESTAMP: &str = "2026-03-14T09:27:07.590067Z";

fn assemble_example(extra: &[&str]) -> Result<assert_cmd::assert::Assert, Box<dyn std::error::Error>> {
    let mut command = msgflow()?;
    command
        .arg("assemble")
        .arg(example("interrupted-stream.jsonl"))
        .args(["--timestamp", TIMESTAMP])
        .args(extra);
    Ok(command.assert())
}

#[test]
fn the_interrupted_example_becomes_its_history_with_the_partial_call_kept() -> TestResult {
    let history = example("interrupted-stream-history.json");
    let output = assemble_example(&["--history", history.to_str().unwrap()])?
        .success()
        .get_output()
        .clone();
    let messages: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let kinds: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["request", "response", "request", "response"]);
    let last = &messages[3];
    assert_eq!(last["state"], "interrupted");
    assert_eq!(last["timestamp"], TIMESTAMP);
    let call = &last["parts"][1];
    assert_eq!(
        (call["tool_name"].as_str(), call["tool_call_id"].as_str()),
        (Some("edit_file"), Some("toolu_01B"))
    );
    // The arguments as far as they had streamed: not valid JSON yet, kept as they are.
    let args = call["args"].as_str().unwrap();
    assert!(
        args.starts_with(r#"{"path": "src/client.py", "old": "#)
            && serde_json::from_str::<serde_json::Value>(args).is_err()
    );
    let stderr = String::from_utf8(output.stderr)?;
    insta::assert_snapshot!(stderr.replace(example("").to_str().unwrap(), "examples/"), @r"
    msgflow: examples/interrupted-stream.jsonl: 26 events, 2 response(s), 5 parts, 1 tool result(s); stream interrupted
    msgflow: examples/interrupted-stream.jsonl: kept tool call `edit_file` [toolu_01B] with partial arguments (message 3, part 1)
    ");
    Ok(())
}

#[test]
fn the_assembled_history_repairs_into_one_with_every_call_answered() -> TestResult {
    let dir = tempfile::tempdir()?;
    let session = dir.path().join("session.json");
    let history = example("interrupted-stream-history.json");
    assemble_example(&["--history", history.to_str().unwrap(), "-o", session.to_str().unwrap()])?.success();
    msgflow()?.arg("check").arg(&session).assert().code(1);
    let repaired = dir.path().join("repaired.json");
    msgflow()?
        .arg("repair")
        .arg(&session)
        .arg("-o")
        .arg(&repaired)
        .assert()
        .success()
        .stderr(predicate::str::contains("dangling call `toolu_01B` (tool `edit_file`"));
    msgflow()?.arg("check").arg(&repaired).assert().success();
    Ok(())
}

#[test]
fn json_reports_what_was_read_built_and_cut() -> TestResult {
    let output = assemble_example(&["--json"])?.success().get_output().clone();
    let report: serde_json::Value = serde_json::from_slice(&output.stderr)?;
    insta::assert_snapshot!(serde_json::to_string_pretty(&report)?, @r#"
    {
      "events": 26,
      "responses": 2,
      "parts": 5,
      "tool_results": 1,
      "completed": false,
      "unlogged_requests": [],
      "unfinished_parts": [
        {
          "message": 2,
          "part": 1,
          "part_kind": "tool-call",
          "tool_call": [
            "edit_file",
            "toolu_01B"
          ]
        }
      ]
    }
    "#);
    Ok(())
}

#[test]
fn a_last_line_cut_mid_event_is_an_interrupted_stream_not_an_error() -> TestResult {
    let log = fs::read_to_string(example("interrupted-stream.jsonl"))?;
    let lines: Vec<&str> = log.lines().collect();
    // The first response's events, then its final part_end cut in the middle.
    let end = lines
        .iter()
        .position(|line| line.contains("\"function_tool_call\""))
        .unwrap();
    let mut cut = lines[..end - 1].join("\n");
    cut.push('\n');
    cut.push_str(&lines[end - 1][..40]);
    let output = msgflow()?
        .args(["assemble", "-", "--timestamp", TIMESTAMP])
        .write_stdin(cut)
        .assert()
        .success()
        .get_output()
        .clone();
    let messages: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(messages[0]["state"], "interrupted");
    assert_eq!(messages[0]["parts"][2]["args"], r#"{"path": "src/client.py"}"#);
    assert!(String::from_utf8(output.stderr)?.contains(&format!("line {end} is cut off mid-event")));
    Ok(())
}

#[test]
fn a_malformed_line_is_a_located_error() -> TestResult {
    let log = "{\"index\":0,\"delta\":{\"content_delta\":\"x\",\"part_delta_kind\":\"text\"},\"event_kind\":\"part_delta\"}\n\
               {\"event_kind\":\"part_start\",\"index\":\"zero\"}\n";
    msgflow()?
        .args(["assemble", "-"])
        .write_stdin(&log[..log.find('\n').unwrap() + 1])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the events do not make a response: line 1: part_delta event for index 0",
        ));
    msgflow()?
        .args(["assemble", "-"])
        .write_stdin(&log[log.find('\n').unwrap() + 1..])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "<stdin>: not a pydantic-ai event log: line 1, column 42: invalid value \"zero\": expected an integer",
        ));
    msgflow()?
        .args(["assemble", "-"])
        .write_stdin("{\"event_kind\":\"part_end\",\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 1, column"));
    Ok(())
}

#[test]
fn in_place_appends_to_the_history_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let history = dir.path().join("history.json");
    fs::copy(example("interrupted-stream-history.json"), &history)?;
    assemble_example(&["--history", history.to_str().unwrap(), "--in-place", "--backup"])?.success();
    let messages: serde_json::Value = serde_json::from_slice(&fs::read(&history)?)?;
    assert_eq!(messages.as_array().map(Vec::len), Some(4));
    assert_eq!(
        fs::read(dir.path().join("history.json.bak"))?,
        fs::read(example("interrupted-stream-history.json"))?
    );
    msgflow()?.args(["assemble", "x.jsonl", "--in-place"]).assert().code(2);
    Ok(())
}
