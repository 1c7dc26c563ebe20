//! The typed parts the UI and OTel loaders build for the shapes most parts have, so that a message of them
//! goes into the history as it is, not written as JSON and read back
//! ([`crate::messages_builder::Part`]).
//!
//! Each constructor gives exactly the typed value pydantic-ai's JSON of the part reads as: the
//! JSON each names, key for key (a key it leaves out is [`Field::Absent`], a `null` one
//! [`Field::Null`]), which the tests below read and compare. A loader builds a part here only
//! where its JSON would be that shape; any other part stays JSON.

use serde_json::Value;

use msgflow_wire::{
    Extra, Field, FileDigests, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson,
    SystemPromptPart, TextPart, ThinkingPart, ToolCallPart, ToolReturnOutcome, ToolReturnPart, UserPromptContent,
    UserPromptPart,
};

/// `{"parts": [...], "kind": "request"}`.
pub(crate) fn request(parts: Vec<ModelRequestPart>) -> ModelRequest {
    ModelRequest {
        parts,
        timestamp: Field::Absent,
        instructions: Field::Absent,
        run_id: Field::Absent,
        conversation_id: Field::Absent,
        metadata: Field::Absent,
        state: Field::Absent,
        extra: Extra::new(),
    }
}

/// `{"parts": [...], "kind": "response"}`.
pub(crate) fn response(parts: Vec<ModelResponsePart>) -> ModelResponse {
    ModelResponse {
        parts,
        usage: Field::Absent,
        model_name: Field::Absent,
        model_id: Field::Absent,
        timestamp: Field::Absent,
        provider_name: Field::Absent,
        provider_url: Field::Absent,
        canonical_system: Field::Absent,
        provider_details: Field::Absent,
        vendor_details: Field::Absent,
        provider_response_id: Field::Absent,
        vendor_id: Field::Absent,
        finish_reason: Field::Absent,
        run_id: Field::Absent,
        conversation_id: Field::Absent,
        metadata: Field::Absent,
        workspace_ref: Field::Absent,
        history_digest: Field::Absent,
        failed_attempts: Field::Absent,
        state: Field::Absent,
        extra: Extra::new(),
    }
}

/// `{"content": content, "part_kind": "system-prompt"}`.
pub(crate) fn system_prompt(content: String) -> ModelRequestPart {
    ModelRequestPart::SystemPrompt(SystemPromptPart {
        content,
        timestamp: Field::Absent,
        dynamic_ref: Field::Absent,
        context_id: Field::Absent,
        scope: Field::Absent,
        metadata: Field::Absent,
        extra: Extra::new(),
    })
}

/// `{"content": text, "part_kind": "user-prompt"}`, a text prompt.
pub(crate) fn user_prompt(text: String) -> ModelRequestPart {
    ModelRequestPart::UserPrompt(UserPromptPart {
        content: UserPromptContent::Text(text),
        timestamp: Field::Absent,
        extra: Extra::new(),
    })
}

/// `{"content": content, "part_kind": "text"}`.
pub(crate) fn text(content: String) -> ModelResponsePart {
    ModelResponsePart::Text(TextPart {
        content,
        id: Field::Absent,
        provider_name: Field::Absent,
        provider_details: Field::Absent,
        citations: Field::Absent,
        extra: Extra::new(),
    })
}

/// `{"content": content, "id": id, "signature": signature, "provider_name": provider_name,
/// "provider_details": null, "part_kind": "thinking"}`, each of `id`, `signature` and
/// `provider_name` a string or `null` ([`nullable_text`]).
pub(crate) fn thinking(
    content: String,
    id: Field<String>,
    signature: Field<String>,
    provider_name: Field<String>,
) -> ModelResponsePart {
    ModelResponsePart::Thinking(ThinkingPart {
        content,
        id,
        signature,
        provider_name,
        provider_details: Field::Null,
        extra: Extra::new(),
    })
}

/// `{"content": content, "part_kind": "thinking"}`, as an OTel span records thinking (no id, no
/// signature).
pub(crate) fn bare_thinking(content: String) -> ModelResponsePart {
    ModelResponsePart::Thinking(ThinkingPart {
        content,
        id: Field::Absent,
        signature: Field::Absent,
        provider_name: Field::Absent,
        provider_details: Field::Absent,
        extra: Extra::new(),
    })
}

/// The typed field a string or `null` reads as; `None` for any other value.
pub(crate) fn nullable_text(value: &Value) -> Option<Field<String>> {
    match value {
        Value::Null => Some(Field::Null),
        Value::String(text) => Some(Field::Present(text.clone())),
        _ => None,
    }
}

/// `{"tool_name": tool_name, "args": args, "tool_call_id": tool_call_id, "tool_kind": null,
/// "part_kind": "tool-call"}`; a loader that writes more keys sets them on the part.
pub(crate) fn tool_call(tool_name: String, args: RawJson, tool_call_id: String) -> ToolCallPart {
    ToolCallPart {
        tool_name,
        args: Field::Present(args),
        tool_call_id: Field::Present(tool_call_id),
        tool_kind: Field::Null,
        id: Field::Absent,
        provider_name: Field::Absent,
        provider_details: Field::Absent,
        tool_name_absent: false,
        extra: Extra::new(),
    }
}

/// `{"tool_name": tool_name, "args": args, "tool_call_id": tool_call_id, "part_kind": "tool-call"}`:
/// [`tool_call`] without its `tool_kind` key, as the OTel loader writes a call.
pub(crate) fn tool_call_without_kind(tool_name: String, args: RawJson, tool_call_id: String) -> ToolCallPart {
    ToolCallPart {
        tool_kind: Field::Absent,
        ..tool_call(tool_name, args, tool_call_id)
    }
}

/// `{"tool_name": tool_name, "content": null, "tool_call_id": tool_call_id, "tool_kind": null,
/// "outcome": outcome, "part_kind": "tool-return"}`, whose content [`with_content`] then sets; a
/// loader that writes more keys sets them on the part.
pub(crate) fn tool_return(tool_name: String, tool_call_id: String, outcome: ToolReturnOutcome) -> ToolReturnPart {
    ToolReturnPart {
        tool_name,
        content: RawJson::null(),
        tool_call_id: Field::Present(tool_call_id),
        tool_kind: Field::Null,
        metadata: Field::Absent,
        timestamp: Field::Absent,
        outcome: Field::Present(outcome),
        retry: Field::Absent,
        content_file_digests: Field::Absent,
        tool_name_absent: false,
        extra: Extra::new(),
    }
}

/// `{"tool_name": tool_name, "content": null, "tool_call_id": tool_call_id, "part_kind":
/// "tool-return"}`: [`tool_return`] without its `tool_kind` and `outcome` keys, as the OTel loader
/// writes a result, whose content [`with_content`] then sets.
pub(crate) fn tool_return_without_kind(tool_name: String, tool_call_id: String) -> ToolReturnPart {
    ToolReturnPart {
        tool_kind: Field::Absent,
        outcome: Field::Absent,
        ..tool_return(tool_name, tool_call_id, ToolReturnOutcome::Success)
    }
}

/// `part` with `content` (holding no file item), and `"content_file_digests": []` after it when
/// it is an array or an object, as the loaders write it (`msgflow_media::content_needs_file_digests`).
pub(crate) fn with_content(mut part: ToolReturnPart, content: &Value) -> ToolReturnPart {
    part.content = payload(content);
    part.content_file_digests = if msgflow_media::content_needs_file_digests(content) {
        Field::Present(FileDigests::List(Vec::new()))
    } else {
        Field::Absent
    };
    part
}

/// `part` with `content`, the JSON text of a value holding no file item, as [`with_content`]
/// gives that value's (`"content_file_digests": []` after an array or an object).
pub(crate) fn with_json_text(mut part: ToolReturnPart, content: RawJson) -> ToolReturnPart {
    part.content_file_digests = if content.is_array() || content.is_object() {
        Field::Present(FileDigests::List(Vec::new()))
    } else {
        Field::Absent
    };
    part.content = content;
    part
}

/// The JSON text of a tool call's arguments or a tool return's content, as reading its JSON gives it.
pub(crate) fn payload(value: &Value) -> RawJson {
    match value {
        Value::String(text) => RawJson::string(text),
        value => RawJson::from_value(value).expect("a JSON value always serialises"),
    }
}

#[cfg(test)]
mod tests {
    use msgflow_wire::ModelMessage;
    use serde_json::json;

    use super::*;

    /// The typed message `message`'s JSON reads as.
    fn read(message: Value) -> ModelMessage {
        let mut messages: Vec<ModelMessage> =
            msgflow_wire::from_str(&Value::Array(vec![message]).to_string()).expect("a history");
        messages.pop().expect("one message")
    }

    fn in_request(part: ModelRequestPart) -> ModelMessage {
        ModelMessage::Request(Box::new(request(vec![part])))
    }

    fn in_response(part: ModelResponsePart) -> ModelMessage {
        ModelMessage::Response(Box::new(response(vec![part])))
    }

    #[test]
    fn each_part_is_what_its_json_reads_as() {
        assert_eq!(
            in_request(system_prompt("be brief".into())),
            read(json!({"parts": [{"content": "be brief", "part_kind": "system-prompt"}], "kind": "request"}))
        );
        assert_eq!(
            in_request(user_prompt("hi \"there\"\n".into())),
            read(json!({"parts": [{"content": "hi \"there\"\n", "part_kind": "user-prompt"}], "kind": "request"}))
        );
        assert_eq!(
            in_response(text(String::new())),
            read(json!({"parts": [{"content": "", "part_kind": "text"}], "kind": "response"}))
        );
        for (id, signature) in [(json!(null), json!("c2ln")), (json!("rs_1"), json!(null))] {
            let typed = thinking(
                "a \u{1F600} thought".into(),
                nullable_text(&id).unwrap(),
                nullable_text(&signature).unwrap(),
                nullable_text(&json!("anthropic")).unwrap(),
            );
            assert_eq!(
                in_response(typed),
                read(
                    json!({"parts": [{"content": "a \u{1F600} thought", "id": id, "signature": signature,
                    "provider_name": "anthropic", "provider_details": null, "part_kind": "thinking"}],
                    "kind": "response"})
                )
            );
        }
        assert_eq!(
            in_response(bare_thinking("hmm".into())),
            read(json!({"parts": [{"content": "hmm", "part_kind": "thinking"}], "kind": "response"}))
        );
        assert_eq!(nullable_text(&json!({"a": 1})), None);
        let args = r#"{"path":"a.py","n":123456789012345678901234567890}"#;
        assert_eq!(
            in_response(ModelResponsePart::ToolCall(tool_call(
                "read".into(),
                payload(&json!(args)),
                "c1".into()
            ))),
            read(
                json!({"parts": [{"tool_name": "read", "args": args, "tool_call_id": "c1", "tool_kind": null,
                "part_kind": "tool-call"}], "kind": "response"})
            )
        );
        assert_eq!(
            in_response(ModelResponsePart::ToolCall(tool_call_without_kind(
                "read".into(),
                payload(&json!(args)),
                "c1".into()
            ))),
            read(
                json!({"parts": [{"tool_name": "read", "args": args, "tool_call_id": "c1", "part_kind": "tool-call"}],
                "kind": "response"})
            )
        );
        let mut call = tool_call(
            "read".into(),
            payload(&serde_json::from_str(args).unwrap()),
            "c1".into(),
        );
        call.id = Field::Null;
        call.provider_name = Field::Null;
        call.provider_details = Field::Null;
        assert_eq!(
            in_response(ModelResponsePart::ToolCall(call)),
            read(
                json!({"parts": [{"tool_name": "read", "args": serde_json::from_str::<Value>(args).unwrap(),
                "tool_call_id": "c1", "tool_kind": null, "id": null, "provider_name": null, "provider_details": null,
                "part_kind": "tool-call"}], "kind": "response"})
            )
        );
        for (content, digests) in [
            (json!("plain"), None),
            (json!(7), None),
            (json!(null), None),
            (json!([{"line": 1, "text": "x"}]), Some(json!([]))),
            (json!({"ok": true}), Some(json!([]))),
        ] {
            for (outcome, retry) in [("success", None), ("failed", Some(json!(null)))] {
                let mut part = with_content(
                    tool_return("read".into(), "c1".into(), ToolReturnOutcome::from_wire(outcome)),
                    &content,
                );
                let mut json = json!({"tool_name": "read", "content": content, "tool_call_id": "c1",
                    "tool_kind": null, "outcome": outcome, "part_kind": "tool-return"});
                if let Some(retry) = &retry {
                    part.retry = Field::Null;
                    json["retry"] = retry.clone();
                }
                if let Some(digests) = &digests {
                    json["content_file_digests"] = digests.clone();
                }
                assert_eq!(
                    in_request(ModelRequestPart::ToolReturn(part)),
                    read(json!({"parts": [json], "kind": "request"})),
                    "{content} {outcome}"
                );
            }
            let text = RawJson::normalized(&content.to_string()).unwrap().raw;
            assert_eq!(
                with_json_text(
                    tool_return("read".into(), "c1".into(), ToolReturnOutcome::Success),
                    text
                ),
                with_content(
                    tool_return("read".into(), "c1".into(), ToolReturnOutcome::Success),
                    &content
                ),
                "{content} as text"
            );
            let mut json = json!({"tool_name": "read", "content": content, "tool_call_id": "c1",
                "part_kind": "tool-return"});
            if let Some(digests) = &digests {
                json["content_file_digests"] = digests.clone();
            }
            assert_eq!(
                in_request(ModelRequestPart::ToolReturn(with_content(
                    tool_return_without_kind("read".into(), "c1".into()),
                    &content
                ))),
                read(json!({"parts": [json], "kind": "request"})),
                "{content} without kind"
            );
        }
    }
}
