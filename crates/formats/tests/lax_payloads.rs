//! What a client writes in place of what pydantic-ai's own dump writes, read as pydantic-ai 2.68.0's
//! `load_messages` reads it: its models validate UI payloads in lax mode (`"1_000"`, `4.0` and
//! `true` are integers, `0` and `"yes"` booleans, a Unix time a datetime), drop a citation that
//! does not validate, render the text of structured content whose text is empty, and give a part
//! without a `type` (a tool part without a `state`) those of the first model it validates as.
//!
//! Each expected value is what pydantic-ai loads from the same messages (`VercelAIAdapter` /
//! `AGUIAdapter.load_messages` over the SDK's request models, dumped with
//! `ModelMessagesTypeAdapter`). `cargo xtask conformance --only ui` checks the same on thousands of
//! mutated documents against pydantic-ai itself.

use msgflow_formats::{convert, Format, Output};
use serde_json::{json, Value};

/// The history msgflow reads from `messages` in `format`, as JSON.
fn history(format: Format, messages: &Value) -> Value {
    let converted = convert(&messages.to_string(), format, Format::PydanticAi).unwrap();
    let Output::Histories(mut histories) = converted.output else {
        panic!("`from` gives histories")
    };
    serde_json::from_str(&msgflow_wire::to_string(&histories.remove(0)).unwrap()).unwrap()
}

#[test]
fn a_retry_claim_s_integers_are_read_in_lax_mode() {
    let messages = json!([{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Please fix", "state": "done",
        "providerMetadata": {"pydantic_ai": {"retry_feedback": {
            "content": [{"type": "int_parsing", "loc": [true, "a", 2.0], "msg": "bad", "input": "x"}],
            "retry": {"cause": "validation_error", "attempt": " 1_000 ", "max_retries": 4.0},
            "timestamp": "2025-01-02T03:04:09.678901Z", "part_kind": "retry-feedback"}}}}]}]);
    let part = &history(Format::VercelUi, &messages)[0]["parts"][0];
    assert_eq!(part["part_kind"], "retry-feedback");
    assert_eq!(
        part["retry"],
        json!({"cause": "validation_error", "attempt": 1000, "max_retries": 4})
    );
    assert_eq!(part["content"][0]["loc"], json!([1, "a", 2]));
}

#[test]
fn a_unix_time_in_message_metadata_is_the_message_s_timestamp() {
    let timestamp = |written: Value| {
        let messages = json!([{"id": "a1", "role": "assistant", "metadata": {"pydantic_ai": {"timestamp": written}},
            "parts": [{"type": "text", "text": "answer", "state": "done"}]}]);
        let message = &history(Format::VercelUi, &messages)[0];
        assert_eq!(message["kind"], "response");
        message.get("timestamp").cloned().unwrap_or_default()
    };
    // A Unix time in whole seconds or milliseconds is written as pydantic-ai writes the datetime it
    // loaded from the metadata; one with a fraction is kept as written (it loads as the same
    // datetime, 1970-01-01T00:00:01.500000Z).
    assert_eq!(timestamp(json!("1700000000")), json!("2023-11-14T22:13:20Z"));
    assert_eq!(
        timestamp(json!(1_700_000_000_123_u64)),
        json!("2023-11-14T22:13:20.123000Z")
    );
    assert_eq!(timestamp(json!(1.5)), json!(1.5));
    // A datetime is written as pydantic-ai writes the one it read.
    assert_eq!(timestamp(json!("2025-01-02 03:04:05Z")), json!("2025-01-02T03:04:05Z"));
    // After 9999: no datetime. The timestamp is left out, for pydantic-ai to stamp the load time.
    assert_eq!(timestamp(json!(99_999_999_999_999_999_u64)), Value::Null);
}

#[test]
fn a_citation_is_read_only_when_it_validates_its_anchor_in_lax_mode() {
    let messages = json!([{"id": "a1", "role": "assistant", "parts": [{"type": "text",
    "text": "Rust 1.95 was released.", "state": "done", "providerMetadata": {"pydantic_ai": {"citations": [
        {"sources": [{"document_id": "", "title": null, "kind": "document"}], "anchor": null},
        {"sources": [{"document_id": "doc-7", "kind": "document"}], "anchor": {"start": "0", "end": 4.0, "kind": "content"}},
        {"sources": [{"url": "https://blog.rust-lang.org/", "kind": "web"}], "anchor": {"start": true, "end": "1_0", "kind": "marker"}}
    ]}}}]}]);
    let part = &history(Format::VercelUi, &messages)[0]["parts"][0];
    // The first names no document (`DocumentCitationSource.__post_init__` raises): dropped.
    assert_eq!(
        part["citations"],
        json!([
            {"sources": [{"document_id": "doc-7", "title": null, "excerpts": [], "kind": "document"}],
             "anchor": {"start": 0, "end": 4, "kind": "content"}},
            {"sources": [{"url": "https://blog.rust-lang.org/", "title": null, "excerpts": [], "kind": "web"}],
             "anchor": {"start": 1, "end": 10, "kind": "marker"}}
        ])
    );
}

#[test]
fn a_tool_output_file_s_force_download_is_a_lax_boolean() {
    let messages = json!([{"id": "a1", "role": "assistant", "parts": [{"type": "tool-fetch", "toolCallId": "f_0",
    "state": "output-available", "input": {"i": 0}, "output": [
        {"url": "https://example.com/x.png", "force_download": 0, "kind": "image-url", "media_type": "image/png"},
        {"url": "https://example.com/y.png", "force_download": "yes", "kind": "image-url", "media_type": "image/png"}
    ]}]}]);
    let returned = &history(Format::VercelUi, &messages)[1]["parts"][0];
    assert_eq!(returned["content"][0]["force_download"], false);
    assert_eq!(returned["content"][1]["force_download"], true);
    assert_eq!(returned["content"][0]["identifier"], "f27cce");
    assert_eq!(
        returned["content_file_digests"],
        json!([
            "458b1a5a065c7457767aa58d943375ab2d8fc6a10306b60c81a3044b9ed43542",
            "5afad4147d0110dc99cb988fcee2ecc20b271152a24f417013672bd4be5df55a"
        ])
    );
}

/// pydantic-ai's rendering of `{"a": [1.50, "<b>&"], "n": 1e5}` with the tag `sel` and a description.
const RENDERED: &str = "The selection\n<sel>{\"a\":[1.5,\"\\u003cb\\u003e\\u0026\"],\"n\":100000.0}</sel>";

#[test]
fn structured_content_with_an_empty_text_is_rendered_from_its_value() {
    // The claims hold `1.50` and `1e5` as written, which Python reads as the floats 1.5 and 100000.0.
    let claim = r#"{"value": {"a": [1.50, "<b>&"], "n": 1e5}, "tag": "sel", "description": "The selection"}"#;
    let framing_tag = r#"{"value": 1, "tag": "system"}"#;
    let vercel = json!([{"id": "u1", "role": "user", "parts": [
        {"type": "text", "text": "", "state": "done", "providerMetadata": {"pydantic_ai": {"structured_content": claim}}},
        {"type": "text", "text": "", "state": "done", "providerMetadata": {"pydantic_ai": {"structured_content": framing_tag}}}
    ]}]);
    let encrypted = format!(r#"{{"pydantic_ai": {{"structured_content": {{"0": {claim}, "1": {framing_tag}}}}}}}"#);
    let ag_ui = json!([{"id": "u1", "role": "user", "encryptedValue": encrypted,
        "content": [{"type": "text", "text": ""}, {"type": "text", "text": ""}]}]);
    for (format, messages) in [(Format::VercelUi, vercel), (Format::AgUi, ag_ui)] {
        let content = &history(format, &messages)[0]["parts"][0]["content"];
        assert_eq!(content[0]["kind"], "structured-content", "{format:?}");
        assert_eq!(content[0]["content"], RENDERED, "{format:?}");
        assert_eq!(content[0]["tag"], "sel", "{format:?}");
        // A framing tag fails `StructuredContent`'s validation: the plain (empty) text stays.
        assert_eq!(content[1], "", "{format:?}");
    }
}

#[test]
fn a_binary_item_without_data_stays_a_mapping_given_a_null_data_as_pydantic_ai_gives_it() {
    let messages = json!([{"id": "a1", "role": "assistant", "parts": [{"type": "tool-export", "toolCallId": "t1",
        "state": "output-available", "input": {"format": "json"}, "output": ["Exported.",
            {"media_type": "application/json", "vendor_metadata": null, "kind": "binary", "identifier": "899f90"}]}]}]);
    let returned = &history(Format::VercelUi, &messages)[1]["parts"][0];
    // `_normalize_client_file_shapes` writes `data` (`_js_binary_to_bytes(None)`), which no file validates with.
    assert_eq!(
        returned["content"],
        json!(["Exported.", {"media_type": "application/json", "vendor_metadata": null, "kind": "binary",
                             "identifier": "899f90", "data": null}])
    );
    // Content that is no scalar records its files, none here, as pydantic-ai dumps it.
    assert_eq!(returned["content_file_digests"], json!([]));
}

#[test]
fn a_part_without_its_type_or_state_takes_the_ones_pydantic_s_models_default() {
    let messages = json!([
        {"id": "u1", "role": "user", "parts": [{"text": "hi"}]},
        {"id": "a1", "role": "assistant", "metadata": {"pydantic_ai": {"timestamp": "2025-01-02T03:04:05Z"}},
         "parts": [{}, {"type": "tool-f", "toolCallId": "c1", "input": {"q": 1}, "output": "done"}]}
    ]);
    let converted = convert(&messages.to_string(), Format::VercelUi, Format::PydanticAi).unwrap();
    let Output::Histories(mut histories) = converted.output else {
        panic!("`from` gives histories")
    };
    let history: Value = serde_json::from_str(&msgflow_wire::to_string(&histories.remove(0)).unwrap()).unwrap();
    // A text part, a step start, and a tool part whose output makes it `output-available`.
    assert_eq!(history[0]["parts"][0]["content"], "hi");
    assert_eq!(history[1]["parts"].as_array().map(Vec::len), Some(1));
    assert_eq!(history[1]["parts"][0]["args"], json!({"q": 1}));
    assert_eq!(history[2]["parts"][0]["part_kind"], "tool-return");
    assert_eq!(history[2]["parts"][0]["content"], "done");
    let invented: Vec<(&str, &str)> = converted
        .report
        .losses
        .iter()
        .filter(|loss| loss.what.contains("validates as"))
        .map(|loss| (loss.path.as_str(), loss.what.as_str()))
        .collect();
    assert_eq!(invented.len(), 3, "{invented:?}");
    assert!(invented[0].1.contains("`TextUIPart`"), "{invented:?}");
    assert!(invented[1].1.contains("`StepStartUIPart`"), "{invented:?}");
    assert!(
        invented[2].1.starts_with("the `state` of a tool part") && invented[2].1.contains("`ToolOutputAvailablePart`")
    );
}
