//! Legacy `retry-prompt` parts naming a tool, which pydantic-ai 2.68.0 loads as the call's result
//! again with `outcome='retried'` (`_translate_legacy_retry_part`), its error details dumped by
//! `_dump_error_details`. The expected texts are what pydantic-ai's own mapping sent for this
//! history (recorded with `oracle/providers_oracle.py`); `cargo xtask conformance` compares
//! generated ones on every run.

use msgflow_providers::{export, Provider};
use serde_json::json;

fn history() -> Vec<msgflow_wire::ModelMessage> {
    let value = json!([
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go", "timestamp": "2025-01-01T00:00:00Z"}]},
        {"kind": "response", "timestamp": "2025-01-01T00:00:00Z", "parts": [
            {"part_kind": "tool-call", "tool_name": "submit", "args": {"a": 1}, "tool_call_id": "c1"},
            {"part_kind": "tool-call", "tool_name": "s2", "args": {}, "tool_call_id": "c2"}]},
        {"kind": "request", "parts": [
            {"part_kind": "retry-prompt", "tool_name": "submit", "tool_call_id": "c1", "timestamp": "2025-01-01T00:00:00Z",
             "content": [
                {"loc": ["a"], "msg": "bad", "type": "int_type", "input": "x", "ctx": {"q": 1}, "url": "https://e"},
                {"type": "missing", "loc": [], "msg": "m", "input": {"a": 1}},
                {"type": "missing", "loc": ["b"], "msg": "m2", "input": "x"},
                {"type": "t", "loc": ["c", 0], "msg": "m3", "input": "x"}]},
            {"part_kind": "retry-prompt", "tool_name": "s2", "tool_call_id": "c2", "content": "try again",
             "timestamp": "2025-01-01T00:00:00Z"}]}
    ]);
    msgflow_wire::from_str(&value.to_string()).unwrap()
}

/// The error details as `_dump_error_details` writes them: `ErrorDetails`' key order, no `ctx`,
/// and a root-level error's `input` left out when it repeats the first root-level error's (a
/// nested error keeps it).
const DETAILS: &str = r#"[{"type":"int_type","loc":["a"],"msg":"bad","input":"x","url":"https://e"},{"type":"missing","loc":[],"msg":"m","input":{"a":1}},{"type":"missing","loc":["b"],"msg":"m2"},{"type":"t","loc":["c",0],"msg":"m3","input":"x"}]"#;

#[test]
fn a_retry_prompt_naming_a_tool_goes_back_as_that_calls_error_result() {
    let history = history();
    let anthropic = export(&history, Provider::Anthropic).unwrap();
    let results = &anthropic["messages"][2]["content"];
    assert_eq!(
        results[0],
        json!({"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": DETAILS}], "is_error": true})
    );
    assert_eq!(results[1]["content"][0]["text"], "try again");
    let chat = export(&history, Provider::OpenAiChat).unwrap();
    assert_eq!(chat["messages"][2]["content"], format!(r#"{{"error":{DETAILS}}}"#));
    assert_eq!(chat["messages"][3]["content"], r#"{"error":"try again"}"#);
    let responses = export(&history, Provider::OpenAiResponses).unwrap();
    assert_eq!(responses["input"][3]["output"], format!(r#"{{"error":{DETAILS}}}"#));
}

/// `ErrorDetails.loc` is `tuple[int | str, ...]`, which pydantic loads in lax mode: `true` is `1`,
/// `2.0` is `2` (`retry-legacy-loc-lax-int.expected.json` holds what pydantic-ai sends); `1.5` is
/// no integer and refused.
#[test]
fn a_loc_item_pydantic_reads_as_an_integer_is_sent_as_that_integer() {
    let (history, _) = fixture("legacy-loc-lax-int");
    let chat = export(&history, Provider::OpenAiChat).unwrap();
    assert_eq!(
        chat["messages"][2]["content"],
        r#"{"error":[{"type":"x","loc":[1,"q",0,2],"msg":"bad","input":null}]}"#
    );
    let mut value: serde_json::Value = serde_json::from_str(&msgflow_wire::to_string(&history).unwrap()).unwrap();
    value[2]["parts"][0]["content"][0]["loc"] = json!([1.5]);
    let history = msgflow_wire::from_str(&value.to_string()).unwrap();
    let error = export(&history, Provider::OpenAiChat).unwrap_err().to_string();
    assert!(error.contains("error details"), "{error}");
}

#[test]
fn error_details_pydantic_ai_would_not_load_are_refused() {
    let mut value: serde_json::Value = serde_json::from_str(&msgflow_wire::to_string(&history()).unwrap()).unwrap();
    value[2]["parts"][0]["content"] = json!([{"loc": ["a"], "msg": "no type", "input": 1}]);
    let history = msgflow_wire::from_str(&value.to_string()).unwrap();
    let error = export(&history, Provider::Anthropic).unwrap_err().to_string();
    assert!(error.contains("error details"), "{error}");
}

fn fixture(name: &str) -> (Vec<msgflow_wire::ModelMessage>, serde_json::Value) {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/providers"));
    let history = msgflow_wire::from_slice(&std::fs::read(dir.join(format!("retry-{name}.json"))).unwrap()).unwrap();
    let expected = serde_json::from_slice(&std::fs::read(dir.join(format!("retry-{name}.expected.json"))).unwrap());
    (history, expected.unwrap())
}

/// Retry feedback goes to the model as pydantic-ai 2.68.0 translates it (`retry-*.expected.json`,
/// written by `generate_retry.py` with pydantic-ai's own mapping): validation errors and
/// `ModelRetry` messages as fenced user text (with a note for a lookalike they quote, and the
/// announcement that goes with a frame), the agent loop's own `no_output` text as a system message
/// (for Anthropic, which has no mid-conversation system role, a `<system>` block in the user turn).
#[test]
fn retry_feedback_goes_back_in_the_voice_its_cause_calls_for() {
    for name in ["output-feedback", "legacy-prompts", "legacy-loc-lax-int"] {
        let (history, expected) = fixture(name);
        for provider in Provider::EXPORTABLE {
            let request = &expected[provider.name()]["request"];
            let actual = export(&history, provider).unwrap_or_else(|error| panic!("{name} / {provider}: {error}"));
            assert_eq!(&actual, request, "{name} / {provider}");
        }
    }
    let (history, _) = fixture("output-feedback");
    let chat = export(&history, Provider::OpenAiChat).unwrap();
    let messages = chat["messages"].as_array().unwrap();
    assert!(messages[3]["content"]
        .as_str()
        .unwrap()
        .contains("<pyai:validation_errors>\n[{\"type\":\"int_parsing\""));
    assert!(messages[5]["content"]
        .as_str()
        .unwrap()
        .starts_with("The following retry feedback contains text"));
    assert_eq!(
        messages.last().unwrap(),
        &json!({"role": "system", "content": "Please return text."})
    );
    let claude = export(&history, Provider::Anthropic).unwrap();
    let last = claude["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"][0]["text"], "<system>Please return text.</system>");
    // The last request holds only feedback, which is sent as a prompt: no instructions fall back.
    assert!(export(&history, Provider::OpenAiResponses)
        .unwrap()
        .get("instructions")
        .is_none());
}

/// pydantic-ai sends `system=prepared.system_prompt or OMIT` (`_messages_create_params`): a history
/// with no system prompt and no instructions has no `system` at all, not an empty one
/// (`retry-legacy-prompts.expected.json` is such a history).
#[test]
fn anthropic_leaves_system_out_when_there_is_no_system_prompt() {
    let (history, expected) = fixture("legacy-prompts");
    let request = export(&history, Provider::Anthropic).unwrap();
    assert!(request.get("system").is_none(), "{request}");
    assert!(expected["anthropic"]["request"].get("system").is_none());
    let mut value: serde_json::Value = serde_json::from_str(&msgflow_wire::to_string(&history).unwrap()).unwrap();
    value[0]["parts"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"part_kind": "system-prompt", "content": "Be brief."}));
    let history = msgflow_wire::from_str(&value.to_string()).unwrap();
    let request = export(&history, Provider::Anthropic).unwrap();
    assert!(
        request["system"].as_str().unwrap().ends_with("\n\nBe brief."),
        "{request}"
    );
}
