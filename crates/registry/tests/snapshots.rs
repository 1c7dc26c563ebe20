//! Snapshot tests: the JSON export, warnings and guidance for realistic tool-call histories.
//!
//! Each scenario is a stream of `HistoryEvent`s as the adapter would produce them from a
//! pydantic-ai history (one event per `tool-call` / `tool-return` part, in history order).
//! Object keys inside args and content are written in sorted order so that the snapshots do not
//! depend on serde_json's `preserve_order` feature.

use msgflow_registry::{guidance, registry_schema, GuidanceConfig, HistoryEvent, ToolCallRegistry};
use serde_json::{json, Value};

/// Snapshots `value` with object keys sorted, so that key order does not depend on whether
/// serde_json's `preserve_order` feature is enabled somewhere in the workspace.
///
/// The JSON is printed by serde_json: with its `arbitrary_precision` feature (on in the workspace,
/// for integers of any size) a `Value`'s numbers do not go through insta's own serialiser.
fn assert_sorted_snapshot(name: &str, value: &Value) {
    let text = serde_json::to_string_pretty(&sorted(value)).expect("a Value serialises");
    insta::assert_snapshot!(name, text);
}

/// `value` with the keys of every object in sorted order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), sorted(&object[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

fn events(list: Value) -> Vec<HistoryEvent> {
    serde_json::from_value(list).expect("scenario events are valid")
}

/// Replays the events and gathers everything a reviewer wants to see in one document.
fn replay(list: Value) -> Value {
    let (registry, warnings) = ToolCallRegistry::from_events(events(list));
    let hints = guidance(&registry, &GuidanceConfig::default());
    // The export must read back to the same registry.
    let reloaded: ToolCallRegistry = serde_json::from_value(registry.to_json()).expect("export deserializes");
    assert_eq!(reloaded, registry);
    json!({
        "registry": registry.to_json(),
        "warnings": warnings
            .iter()
            .map(|warning| json!({"text": warning.to_string(), "detail": warning}))
            .collect::<Vec<_>>(),
        "hints": hints,
        "hint_text": hints.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

#[test]
fn coding_agent_reading_files_in_a_loop() {
    let document = replay(json!([
        {"event": "call", "id": "toolu_01", "name": "list_dir", "args": {"path": "src"}, "at": "2025-06-01T10:00:00.100000Z"},
        {"event": "return", "id": "toolu_01", "name": "list_dir", "outcome": "success",
         "content": ["lib.rs", "main.rs", "parser.rs"], "at": "2025-06-01T10:00:00.900000Z"},
        {"event": "call", "id": "toolu_02", "name": "read_file", "args": {"path": "src/parser.rs"}, "at": "2025-06-01T10:00:02.000000Z"},
        {"event": "return", "id": "toolu_02", "name": "read_file", "outcome": "success",
         "content": "pub fn parse(input: &str) -> Ast { todo() }", "at": "2025-06-01T10:00:02.300000Z"},
        {"event": "call", "id": "toolu_03", "name": "grep", "args": {"path": "src", "pattern": "fn parse"}, "at": "2025-06-01T10:00:04.000000Z"},
        {"event": "return", "id": "toolu_03", "name": "grep", "outcome": "success",
         "content": "src/parser.rs:1: pub fn parse(input: &str) -> Ast", "at": "2025-06-01T10:00:04.200000Z"},
        // The model re-reads the same file, once with its args streamed as a JSON string.
        {"event": "call", "id": "toolu_04", "name": "read_file", "args": "{\"path\": \"src/parser.rs\"}", "at": "2025-06-01T10:00:06.000000Z"},
        {"event": "return", "id": "toolu_04", "name": "read_file", "outcome": "success",
         "content": "pub fn parse(input: &str) -> Ast { todo() }", "at": "2025-06-01T10:00:06.300000Z"},
        {"event": "call", "id": "toolu_05", "name": "read_file", "args": {"path": "src/parser.rs"}, "at": "2025-06-01T10:00:08.000000Z"},
        {"event": "return", "id": "toolu_05", "name": "read_file", "outcome": "success",
         "content": "pub fn parse(input: &str) -> Ast { todo() }", "at": "2025-06-01T10:00:08.300000Z"},
        {"event": "call", "id": "toolu_06", "name": "read_file", "args": {"path": "src/lib.rs"}, "at": "2025-06-01T10:00:10.000000Z"}
    ]));
    assert_sorted_snapshot("coding_agent_reading_files_in_a_loop", &document);
}

#[test]
fn flaky_shell_tool_failing_repeatedly() {
    let document = replay(json!([
        {"event": "call", "id": "call_a1", "name": "bash", "args": {"command": "cargo test"}, "at": "2025-06-02T08:00:00Z"},
        {"event": "return", "id": "call_a1", "name": "bash", "outcome": "failed",
         "content": "error: could not compile `app` (exit status 101)", "at": "2025-06-02T08:00:40Z"},
        // A validation error: pydantic-ai loads a legacy retry-prompt as outcome "retried".
        {"event": "call", "id": "call_a2", "name": "bash", "args": {"command": ""}, "at": "2025-06-02T08:00:41Z"},
        {"event": "return", "id": "call_a2", "name": "bash", "outcome": "retried",
         "content": "command must not be empty\n\nFix the errors and try again.", "at": "2025-06-02T08:00:41Z"},
        {"event": "call", "id": "call_a3", "name": "bash", "args": {"command": "cargo test"}, "at": "2025-06-02T08:00:45Z"},
        {"event": "return", "id": "call_a3", "name": "bash", "outcome": "failed",
         "content": "error: could not compile `app` (exit status 101)", "at": "2025-06-02T08:01:20Z"},
        {"event": "call", "id": "call_a4", "name": "read_file", "args": {"path": "Cargo.toml"}, "at": "2025-06-02T08:01:22Z"},
        {"event": "return", "id": "call_a4", "name": "read_file", "outcome": "success",
         "content": "[package]\nname = \"app\"", "at": "2025-06-02T08:01:22Z"},
        {"event": "call", "id": "call_a5", "name": "bash", "args": {"command": "cargo test --offline"}, "at": "2025-06-02T08:01:30Z"},
        {"event": "return", "id": "call_a5", "name": "bash", "outcome": "denied",
         "content": "The user denied this command.", "at": "2025-06-02T08:01:35Z"}
    ]));
    assert_sorted_snapshot("flaky_shell_tool_failing_repeatedly", &document);
}

#[test]
fn interrupted_session_with_synthesized_return() {
    let document = replay(json!([
        // Parallel calls in one response; the user pressed ESC while `bash` was running.
        {"event": "call", "id": "pyd_ai_1", "name": "web_fetch", "args": {"url": "https://docs.rs/serde"}, "at": "2025-06-03T12:00:00.000000Z"},
        {"event": "call", "id": "pyd_ai_2", "name": "bash", "args": {"command": "npm install"}, "at": "2025-06-03T12:00:00.000000Z"},
        {"event": "call", "id": "pyd_ai_3", "name": "read_file", "args": null, "at": "2025-06-03T12:00:00.000000Z"},
        {"event": "return", "id": "pyd_ai_1", "name": "web_fetch", "outcome": "success",
         "content": "serde is a framework for serializing...", "at": "2025-06-03T12:00:01.500000Z"},
        // pydantic-ai's repair_messages closed the dangling bash call.
        {"event": "return", "id": "pyd_ai_2", "name": "bash", "outcome": "interrupted",
         "content": "The tool call was interrupted before a result was produced.", "at": "2025-06-03T12:00:00.000000Z",
         "synthesized": true},
        // A result whose call was pruned from the history.
        {"event": "return", "id": "pyd_ai_0", "name": "web_fetch", "outcome": "success",
         "content": "stale page", "at": "2025-06-03T11:59:00.000000Z"}
    ]));
    assert_sorted_snapshot("interrupted_session_with_synthesized_return", &document);
}

#[test]
fn provider_reusing_tool_call_ids() {
    // Some OpenAI-compatible servers number calls per response, so `call_0` recurs every turn.
    let document = replay(json!([
        {"event": "call", "id": "call_0", "name": "search", "args": {"query": "rust json schema"}, "at": "2025-06-04T09:00:00Z"},
        {"event": "return", "id": "call_0", "name": "search", "outcome": "success", "content": {"hits": 12}, "at": "2025-06-04T09:00:01Z"},
        {"event": "call", "id": "call_0", "name": "search", "args": {"query": "schemars 1.0"}, "at": "2025-06-04T09:00:05Z"},
        {"event": "return", "id": "call_0", "name": "search", "outcome": "success", "content": {"hits": 4}, "at": "2025-06-04T09:00:06Z"},
        {"event": "return", "id": "call_0", "name": "search", "outcome": "success", "content": {"hits": 4}, "at": "2025-06-04T09:00:06Z"},
        {"event": "call", "id": "call_1", "name": "search", "args": {"query": "schemars 1.0"}, "at": "2025-06-04T09:00:09Z"}
    ]));
    assert_sorted_snapshot("provider_reusing_tool_call_ids", &document);
}

#[test]
fn registry_json_schema() {
    assert_sorted_snapshot("registry_json_schema", &registry_schema());
}
