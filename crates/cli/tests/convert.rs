//! `msgflow convert --from FORMAT --to FORMAT` through the built binary.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod common;

fn msgflow() -> Command {
    Command::cargo_bin("msgflow").unwrap()
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/interrupted-session.json")
}

const CHAT: &str = r#"{"model": "gpt-4o", "messages": [
  {"role": "system", "content": "Be brief."},
  {"role": "user", "content": "Weather in Paris?", "name": "ann"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
  {"role": "assistant", "content": "Sunny."}
]}"#;

#[test]
fn openai_chat_becomes_a_history_that_checks_clean_and_every_loss_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.json");
    let output = msgflow()
        .args(["convert", "--from", "openai-chat", "-", "-o"])
        .arg(&history)
        .write_stdin(CHAT)
        .output()
        .unwrap();
    common::assert_succeeded(&output);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("dropped request field `model`"), "{stderr}");
    assert!(stderr.contains("dropped `name` of a `user` message"), "{stderr}");
    assert!(stderr.contains("(at $.messages[1].name)"), "{stderr}");
    assert!(stderr.contains("invented request timestamps"), "{stderr}");
    msgflow().arg("check").arg(&history).assert().code(0);
    let text = std::fs::read_to_string(&history).unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed.as_array().unwrap().len(), 4);
    assert_eq!(parsed[1]["parts"][0]["tool_call_id"], "call_1");
    assert_eq!(parsed[2]["parts"][0]["tool_name"], "weather");
}

#[test]
fn strict_refuses_a_lossy_conversion_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let output = msgflow()
        .args(["convert", "--strict", "--from", "openai-chat", "-", "-o"])
        .arg(&out)
        .write_stdin(CHAT)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("refusing a lossy conversion from openai-chat to pydantic-ai"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn input_that_is_not_the_format_is_located() {
    let bad = "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"robot\", \"content\": \"beep\"}\n]";
    let output = msgflow()
        .args(["convert", "--from", "openai-chat", "-"])
        .write_stdin(bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("at $[1].role (line 3, column 12): unknown role `robot`"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn a_history_becomes_the_messages_pydantic_ai_sends_and_its_losses_are_listed() {
    let output = msgflow()
        .args(["convert", "--to", "openai-chat"])
        .arg(example())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let request: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let exported: serde_json::Value = serde_json::from_slice(
        &msgflow()
            .args(["export", "--to", "openai-chat"])
            .arg(example())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(request, exported);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("dropped `timestamp` of a `user-prompt`"), "{stderr}");
    assert!(stderr.contains("dropped `model_name` of a `response`"), "{stderr}");
}

#[test]
fn json_lines_convert_line_by_line() {
    let lines = concat!(
        r#"{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}"#,
        "\n",
        r#"{"messages": [{"role": "user", "content": "c"}]}"#,
        "\n"
    );
    let output = msgflow()
        .args(["convert", "--from", "openai-chat", "-"])
        .write_stdin(lines)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let histories: Vec<serde_json::Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(histories.len(), 2);
    assert_eq!(histories[1][0]["parts"][0]["content"], "c");
    let output = msgflow()
        .args(["convert", "--from", "openai-chat", "-"])
        .write_stdin("{\"messages\": []}\n{\"messages\": 3}\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("document 1 (0-based)"), "{stderr}");
    assert!(stderr.contains("(line 2, column 14)"), "{stderr}");
}

fn trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/agent-runs.otlp.json")
}

#[test]
fn a_history_becomes_span_attributes_at_every_instrumentation_version() {
    for version in ["2", "3", "4", "5", "6"] {
        let output = msgflow()
            .args(["convert", "--to", "otel", "--otel-version", version])
            .arg(example())
            .output()
            .unwrap();
        common::assert_succeeded(&output);
        let span: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(span["gen_ai.input.messages"].is_array(), "{span}");
        // Timestamps are not in a span, and the report says so.
        assert!(String::from_utf8_lossy(&output.stderr).contains("dropped `timestamp`"));
    }
    let output = msgflow()
        .args(["convert", "--to", "otel", "--otel-version", "1"])
        .arg(example())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("versions 2 to 6"));
}

#[test]
fn an_otlp_trace_export_gives_one_history_per_agent_run_that_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let histories = dir.path().join("runs.jsonl");
    let output = msgflow()
        .args(["convert", "--from", "otel", "-o"])
        .arg(&histories)
        .arg(trace())
        .output()
        .unwrap();
    common::assert_succeeded(&output);
    let text = std::fs::read_to_string(&histories).unwrap();
    let runs: Vec<serde_json::Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    // The first run from its `pydantic_ai.all_messages`, the second (no end attributes) from its last model request.
    assert_eq!(
        runs.iter().map(|run| run.as_array().unwrap().len()).collect::<Vec<_>>(),
        [4, 2]
    );
    assert_eq!(runs[1][1]["parts"][0]["tool_name"], "book_table");
    let first = dir.path().join("first.json");
    std::fs::write(&first, text.lines().next().unwrap()).unwrap();
    msgflow().arg("check").arg(&first).assert().success();
    // Strict refuses: spans carry no timestamps.
    let output = msgflow()
        .args(["convert", "--from", "otel", "--strict"])
        .arg(trace())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}

#[test]
fn anthropic_requests_convert_both_ways_and_strict_refuses_loss() {
    let request = r#"{"model": "claude", "system": "be brief", "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "weather", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}]}]}"#;
    let output = msgflow()
        .args(["convert", "--from", "anthropic", "-"])
        .write_stdin(request)
        .output()
        .unwrap();
    common::assert_succeeded(&output);
    let history: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(history[2]["parts"][0]["tool_name"], "weather");
    assert!(String::from_utf8_lossy(&output.stderr).contains("request field `model`"));
    let back = msgflow()
        .args(["convert", "--to", "anthropic", "-"])
        .write_stdin(output.stdout)
        .output()
        .unwrap();
    assert_eq!(back.status.code(), Some(0), "{}", String::from_utf8_lossy(&back.stderr));
    let sent: serde_json::Value = serde_json::from_slice(&back.stdout).unwrap();
    assert_eq!(sent["system"], "be brief");
    assert_eq!(sent["messages"][1]["content"][0]["id"], "t1");
    let strict = msgflow()
        .args(["convert", "--strict", "--from", "anthropic", "-"])
        .write_stdin(request)
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(2));
    assert!(strict.stdout.is_empty());
}

/// `--to FORMAT --strict` refuses pydantic-ai's own (lossy) form, writing nothing; `--lossless`
/// writes a UI message list that `--from FORMAT --lossless` reads back as the very history.
fn lossless_round_trip_gives_the_history_back_and_strict_refuses_the_default(format: &str, lossless_args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let messages = dir.path().join("ui.json");
    let back = dir.path().join("back.json");
    let output = msgflow()
        .args(["convert", "--to", format, "--strict", "-o"])
        .arg(&messages)
        .arg(example())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains(&format!("refusing a lossy conversion from pydantic-ai to {format}")));
    assert!(!messages.exists());
    msgflow()
        .args(["convert", "--to", format, "--lossless", "--strict"])
        .args(lossless_args)
        .arg("-o")
        .arg(&messages)
        .arg(example())
        .assert()
        .success();
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&messages).unwrap()).unwrap();
    assert!(written
        .as_array()
        .is_some_and(|messages| !messages.is_empty() && messages.iter().all(|message| message["role"].is_string())));
    msgflow()
        .args(["convert", "--from", format, "--lossless", "--strict", "-o"])
        .arg(&back)
        .arg(&messages)
        .assert()
        .success();
    let formatted = msgflow().arg("fmt").arg(example()).output().unwrap().stdout;
    assert_eq!(std::fs::read(&back).unwrap(), formatted);
}

#[test]
fn vercel_ui_lossless_round_trip_gives_the_history_back_and_strict_refuses_the_default() {
    lossless_round_trip_gives_the_history_back_and_strict_refuses_the_default("vercel-ui", &["--vercel-sdk", "6"]);
}

#[test]
fn ag_ui_lossless_round_trip_gives_the_history_back_and_strict_refuses_the_default() {
    lossless_round_trip_gives_the_history_back_and_strict_refuses_the_default("ag-ui", &[]);
}

#[test]
fn vercel_sdk_versions_other_than_5_and_6_are_refused() {
    let output = msgflow()
        .args(["convert", "--to", "vercel-ui", "--vercel-sdk", "4"])
        .arg(example())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
