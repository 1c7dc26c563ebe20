//! Keys pydantic-ai 2.68.0 fills in on load are not added by msgflow: what it reads without them
//! it writes back without them, byte for byte.
//!
//! * A user content item without `kind` (pydantic's smart union validates it as a member that
//!   defaults its `kind`: `{}` is a `CachePoint`) is kept whole, as an unknown item, at any depth.
//! * A `BinaryContent` held by a field (`FilePart.content`, `SpeechPart.audio`) may omit its
//!   `kind`, which pydantic-ai defaults there.
//! * A tool part routed to a typed class by its `tool_kind` may omit its `tool_name`, which the
//!   class defaults to its literal.
//!
//! Whether pydantic-ai loads such histories is recorded in `verdict/cases.json` (the verdict's
//! test); here only the reading and writing.

use msgflow_wire::{
    from_str, to_string, ModelMessage, ModelRequestPart, ModelResponsePart, UserContent, UserPromptContent,
};

/// The user content items of the first part of the first message.
fn user_items(history: &[ModelMessage]) -> &[UserContent] {
    let ModelMessage::Request(request) = &history[0] else {
        panic!("not a request");
    };
    let ModelRequestPart::UserPrompt(part) = &request.parts[0] else {
        panic!("not a user prompt");
    };
    match &part.content {
        UserPromptContent::Items(items) => items,
        UserPromptContent::Text(_) => panic!("not a list"),
    }
}

fn user_prompt(items: &str) -> String {
    format!(r#"[{{"parts":[{{"content":[{items}],"part_kind":"user-prompt"}}],"kind":"request"}}]"#)
}

#[test]
fn a_content_item_without_kind_is_kept_whole() {
    let input = user_prompt(r#"{},{"content":"x","metadata":{"m":1}},{"value":[1,2],"KIND":"binary"},"text""#);
    let history = from_str(&input).unwrap();
    let items = user_items(&history);
    assert!(items[..3].iter().all(|item| matches!(item, UserContent::Unknown(_))));
    assert!(items[..3].iter().all(|item| item.tag().is_none()));
    assert_eq!(to_string(&history).unwrap(), input);
}

#[test]
fn a_content_item_with_kind_null_is_kept_whole() {
    let input = user_prompt(r#"{"content":"x","kind":null}"#);
    let history = from_str(&input).unwrap();
    assert!(matches!(user_items(&history)[0], UserContent::Unknown(_)));
    assert_eq!(to_string(&history).unwrap(), input);
}

#[test]
fn a_deep_content_item_without_kind_is_read_past_the_typed_depth_limit() {
    // Nested far deeper than msgflow's typed limit: the item is carried as raw JSON.
    let levels = msgflow_wire::MAX_DEPTH + 60;
    let deep = format!("{}1{}", r#"{"a":"#.repeat(levels), "}".repeat(levels));
    let input = user_prompt(&deep);
    let history = from_str(&input).unwrap();
    assert!(matches!(user_items(&history)[0], UserContent::Unknown(_)));
    assert_eq!(to_string(&history).unwrap(), input);
}

#[test]
fn a_binary_content_without_kind_is_written_without_it() {
    let without =
        r#"[{"parts":[{"content":{"data":"AAAA","media_type":"image/png"},"part_kind":"file"}],"kind":"response"}]"#;
    let history = from_str(without).unwrap();
    let ModelMessage::Response(response) = &history[0] else {
        panic!("not a response");
    };
    let ModelResponsePart::File(file) = &response.parts[0] else {
        panic!("not a file part");
    };
    assert!(file.content.kind_absent);
    assert_eq!(to_string(&history).unwrap(), without);

    // Written where it was written.
    let with = without.replace(
        r#""media_type":"image/png""#,
        r#""media_type":"image/png","kind":"binary""#,
    );
    assert_eq!(to_string(&from_str(&with).unwrap()).unwrap(), with);
}

#[test]
fn a_routed_tool_part_without_tool_name_takes_its_class_literal_and_is_written_without_it() {
    let input = r#"[{"parts":[{"tool_call_id":"c1","tool_kind":"capability-load","part_kind":"tool-call"},{"tool_call_id":"c2","part_kind":"tool-call"}],"kind":"response"}]"#;
    let history = from_str(input).unwrap();
    let ModelMessage::Response(response) = &history[0] else {
        panic!("not a response");
    };
    let names: Vec<(&str, bool)> = response
        .parts
        .iter()
        .map(|part| match part {
            ModelResponsePart::ToolCall(call) => (call.tool_name.as_str(), call.tool_name_absent),
            _ => panic!("not a tool call"),
        })
        .collect();
    // `LoadCapabilityCallPart.tool_name: Literal['load_capability'] = 'load_capability'`; a part
    // no typed class takes has no name (the verdict reports it missing).
    assert_eq!(names, [("load_capability", true), ("", true)]);
    assert_eq!(to_string(&history).unwrap(), input);
}
