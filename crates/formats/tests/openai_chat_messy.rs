//! `from openai-chat` on the shapes real Chat data takes, one per test, and `to` on what a history
//! holds that Chat messages do not.

use msgflow_formats::{convert, openai_chat, Format, LossKind, Output, Report};
use serde_json::{json, Value};

/// The history `from` makes of `messages`, as JSON, and its report.
fn from(messages: Value) -> (Value, Report) {
    let mut report = Report::default();
    let history = openai_chat::from_value(&messages, 0, &mut report).expect("valid Chat messages");
    let text = msgflow_wire::to_string(&history).unwrap();
    assert!(msgflow_wire::verdict::verdict(&history).is_loadable(), "{text}");
    (serde_json::from_str(&text).unwrap(), report)
}

fn error(messages: Value) -> (String, String) {
    let err = openai_chat::from_value(&messages, 0, &mut Report::default()).expect_err("invalid Chat messages");
    (err.path, err.message)
}

#[test]
fn content_as_string_parts_or_null() {
    let (history, _) = from(json!([
        {"role": "system", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": null},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}
    ]));
    let parts = &history[0]["parts"];
    assert_eq!(
        (parts[0]["content"].as_str(), parts[1]["content"].as_str()),
        (Some("a"), Some("b"))
    );
    assert_eq!(parts[2]["content"], json!(["hi"]));
    assert_eq!(history[1]["parts"].as_array().unwrap().len(), 1);
    assert_eq!(history[2]["parts"][0]["content"], "");
    assert_eq!(history[3]["parts"][1]["content"], "y");
}

#[test]
fn arguments_are_kept_as_written_invalid_json_included() {
    let (history, _) = from(json!([
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": {"b": 2}}}]}
    ]));
    assert_eq!(history[0]["parts"][0]["args"], "{\"a\": 1");
    assert_eq!(history[0]["parts"][1]["args"], json!({"b": 2}));
}

#[test]
fn legacy_function_calls_get_invented_ids_their_results_share() {
    let (history, report) = from(json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": null, "function_call": {"name": "weather", "arguments": "{}"}},
        {"role": "function", "name": "weather", "content": "sunny"}
    ]));
    let id = history[1]["parts"][0]["tool_call_id"].as_str().unwrap();
    assert_eq!(history[2]["parts"][0]["tool_call_id"], id);
    assert_eq!(history[2]["parts"][0]["tool_name"], "weather");
    let invented: Vec<_> = report
        .losses
        .iter()
        .filter(|loss| loss.what.contains("legacy"))
        .collect();
    assert_eq!((invented.len(), invented[0].kind), (1, LossKind::Invented));
    assert_eq!(invented[0].path, "$[1].function_call");
}

#[test]
fn names_and_annotations_are_reported_dropped_and_a_refusal_kept_as_pydantic_ai_keeps_it() {
    let (history, report) = from(json!([
        {"role": "system", "name": "example_user", "content": "hi"},
        {"role": "assistant", "content": null, "refusal": "I can't.", "annotations": [{"type": "url_citation"}]}
    ]));
    assert_eq!(history[1]["provider_details"], json!({"refusal": "I can't."}));
    assert_eq!(history[1]["finish_reason"], "content_filter");
    let dropped = report.paths(LossKind::Dropped);
    assert_eq!(dropped, ["$[0].name", "$[1].annotations"]);
}

#[test]
fn images_audio_and_files_become_pydantic_ai_content() {
    let (history, _) = from(json!([{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "high"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}},
        {"type": "input_audio", "input_audio": {"data": "aGk=", "format": "mp3"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,aGk=", "filename": "filename.pdf"}},
        {"type": "file", "file": {"file_id": "file-abc"}}
    ]}]));
    let items = &history[0]["parts"][0]["content"];
    assert_eq!(items[0]["kind"], "image-url");
    assert_eq!(items[0]["vendor_metadata"], json!({"detail": "high"}));
    assert_eq!(
        (items[1]["kind"].as_str(), items[1]["media_type"].as_str()),
        (Some("binary"), Some("image/png"))
    );
    assert_eq!(items[2]["media_type"], "audio/mpeg");
    assert_eq!(items[3]["media_type"], "application/pdf");
    assert_eq!(
        (items[4]["kind"].as_str(), items[4]["file_id"].as_str()),
        (Some("uploaded-file"), Some("file-abc"))
    );
}

#[test]
fn thinking_comes_from_fields_and_tags_as_pydantic_ai_reads_a_response() {
    let (history, _) = from(json!([
        {"role": "assistant", "reasoning_content": "hmm", "content": "<think>\nplan\n</think>\n\nanswer"}
    ]));
    let parts = &history[0]["parts"];
    assert_eq!(
        (parts[0]["content"].as_str(), parts[0]["id"].as_str()),
        (Some("hmm"), Some("reasoning_content"))
    );
    assert_eq!(
        (parts[1]["content"].as_str(), parts[1]["id"].as_str()),
        (Some("plan"), Some("content"))
    );
    assert_eq!(parts[2]["content"], "answer");
}

#[test]
fn retry_prompts_come_back_from_their_text() {
    let (history, _) = from(json!([
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "bad input\n\nFix the errors and try again."}
    ]));
    let part = &history[1]["parts"][0];
    assert_eq!(part["part_kind"], "retry-prompt");
    assert_eq!(
        (part["content"].as_str(), part["tool_name"].as_str()),
        (Some("bad input"), Some("f"))
    );
}

#[test]
fn fine_tuning_and_batch_shapes_and_json_lines() {
    let text = concat!(
        r#"{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}"#,
        "\n",
        r#"{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": "c"}]}}"#,
        "\n",
    );
    let converted = convert(text, Format::OpenAiChat, Format::PydanticAi).unwrap();
    let Output::Histories(histories) = &converted.output else {
        panic!("histories")
    };
    assert_eq!(histories.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1]);
    let dropped: Vec<(usize, &str)> = converted
        .report
        .losses
        .iter()
        .filter(|loss| loss.kind == LossKind::Dropped)
        .map(|loss| (loss.document, loss.path.as_str()))
        .collect();
    assert_eq!(
        dropped,
        [(1, "$.custom_id"), (1, "$.method"), (1, "$.url"), (1, "$.body.model")]
    );
}

#[test]
fn errors_name_the_path_and_what_was_expected() {
    assert_eq!(error(json!({"msgs": []})).0, "$");
    assert_eq!(
        error(json!([{"content": "x"}])),
        ("$[0]".to_owned(), "expected a `role` in the message".to_owned())
    );
    assert_eq!(error(json!([{"role": "tool", "content": "x"}])).0, "$[0].tool_call_id");
    let (path, message) = error(json!([{"role": "user", "content": [{"type": "video", "video": {}}]}]));
    assert_eq!(path, "$[0].content[0].type");
    assert!(message.contains("unknown content part type `video`"), "{message}");
    let (path, message) = error(json!([{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png,raw"}}]}]));
    assert_eq!(path, "$[0].content[0].image_url.url");
    assert!(message.contains("base64"), "{message}");
    let err = convert("[\n {\"role\": 1}\n]", Format::OpenAiChat, Format::PydanticAi).unwrap_err();
    assert_eq!(
        err.to_string(),
        "at $[0].role (line 2, column 11): expected the role as a string"
    );
    let err = convert("[{\"role\": ", Format::OpenAiChat, Format::PydanticAi).unwrap_err();
    assert!(
        err.to_string().starts_with("at $ (line 1, column 10): not JSON"),
        "{err}"
    );
    // A response (or a Batch API output line) passed for messages is named as one.
    for response in [
        json!({"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "hi"}}]}),
        json!({"custom_id": "r1", "response": {"status_code": 200, "body": {"choices": []}}}),
    ] {
        let (path, message) = error(response);
        assert_eq!(path, "$");
        assert!(message.contains("this is a Chat Completions response"), "{message}");
    }
    assert!(!error(json!({"model": "gpt-4o"})).1.contains("response"));
    // A byte order mark (which Windows editors write) is named, in every format.
    for from in Format::ALL {
        let err = convert("\u{FEFF}[]", from, Format::PydanticAi).unwrap_err();
        assert_eq!(
            err.to_string(),
            "at $ (line 1, column 1): not JSON: the input starts with a UTF-8 byte order mark, which JSON does not allow; remove the first 3 bytes",
            "{from}"
        );
    }
}

#[test]
fn to_reports_what_chat_messages_cannot_hold() {
    let history = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}],"kind":"request"},{"parts":[{"tool_name":"f","args":{"a":1},"tool_call_id":"c1","part_kind":"tool-call"}],"model_name":"gpt-4o","kind":"response"}]"#;
    let converted = convert(history, Format::PydanticAi, Format::OpenAiChat).unwrap();
    let Output::Documents(documents) = &converted.output else {
        panic!("documents")
    };
    assert_eq!(
        documents[0]["messages"][1]["tool_calls"][0]["function"]["arguments"],
        "{\"a\":1}"
    );
    let found: Vec<(LossKind, &str)> = converted
        .report
        .losses
        .iter()
        .map(|loss| (loss.kind, loss.path.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (LossKind::Dropped, "$[0].parts[0].timestamp"),
            (LossKind::Changed, "$[1].parts[0].args"),
            (LossKind::Dropped, "$[1].model_name"),
        ]
    );
}

/// A history the export refuses is an error at the value refused, said once.
#[test]
fn an_export_refusal_names_the_value_once() {
    let history = r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt",
        "content": ["see", {"kind": "video-url", "url": "https://example.com/a.mp4"}]}]}]"#;
    let err = convert(history, Format::PydanticAi, Format::OpenAiChat).unwrap_err();
    assert_eq!(err.path, "$[0].parts[0].content[1]");
    assert!(
        err.message.starts_with("pydantic-ai refuses to send VideoUrl"),
        "{}",
        err.message
    );
    assert!(!err.to_string().contains("message 0, part 0"), "{err}");
}
