//! Whether an AG-UI message validates as ag-ui-protocol 1.0's `Message` models (`ag_ui.core`),
//! the way pydantic-ai validates the messages enqueued during a run (`_enqueued_messages`): where
//! one does not, none of them loads.
//!
//! The loader reads the outer messages more laxly (where a message does not validate, pydantic-ai
//! refuses the whole input, so there is nothing to be equal to), and checks the values it reads as
//! it reads them; this checks the declared types of every field the models have, read or not.
//! The models take both spellings of a field (camelCase and snake_case) and keep unknown keys.

use serde_json::{Map, Value};

/// A field by its wire name (camelCase) or its Python name.
fn field<'v>(object: &'v Map<String, Value>, camel: &str, snake: &str) -> Option<&'v Value> {
    object.get(camel).or_else(|| object.get(snake))
}

/// `str`.
fn is_text(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::String(_)))
}

/// `Optional[str]`.
fn is_optional_text(value: Option<&Value>) -> bool {
    matches!(value, None | Some(Value::Null | Value::String(_)))
}

/// `Optional[Metadata]` (`Dict[str, Any]`).
fn is_optional_object(value: Option<&Value>) -> bool {
    matches!(value, None | Some(Value::Null | Value::Object(_)))
}

/// Whether `message` validates as the `Message` model of its `role`.
pub(super) fn validates(message: &Value) -> bool {
    let Some(object) = message.as_object() else {
        return false;
    };
    let get = |camel: &str, snake: &str| field(object, camel, snake);
    let common = is_text(get("id", "id"))
        && is_optional_text(get("subagentRunId", "subagent_run_id"))
        && is_optional_object(get("metadata", "metadata"));
    // The developer, system, assistant and user messages (`BaseMessage`) also declare these.
    let named = || is_optional_text(get("name", "name")) && is_optional_text(get("encryptedValue", "encrypted_value"));
    common
        && match object.get("role").and_then(Value::as_str) {
            Some("developer" | "system") => named() && is_text(get("content", "content")),
            Some("assistant") => {
                named()
                    && is_optional_text(get("content", "content"))
                    && match get("toolCalls", "tool_calls") {
                        None | Some(Value::Null) => true,
                        Some(Value::Array(calls)) => calls.iter().all(is_tool_call),
                        Some(_) => false,
                    }
            }
            Some("user") => named() && is_content(get("content", "content")),
            Some("tool") => {
                is_content(get("content", "content"))
                    && is_text(get("toolCallId", "tool_call_id"))
                    && is_optional_text(get("error", "error"))
                    && is_optional_text(get("encryptedValue", "encrypted_value"))
            }
            Some("activity") => {
                is_text(get("activityType", "activity_type"))
                    && matches!(get("content", "content"), Some(Value::Object(_)))
            }
            Some("reasoning") => {
                is_text(get("content", "content")) && is_optional_text(get("encryptedValue", "encrypted_value"))
            }
            _ => false,
        }
}

/// `ToolCall`: an `id`, the literal `type` `function`, and a `FunctionCall` of text.
fn is_tool_call(call: &Value) -> bool {
    let Some(call) = call.as_object() else {
        return false;
    };
    let function = call.get("function").and_then(Value::as_object);
    is_text(call.get("id"))
        && matches!(call.get("type"), None | Some(Value::String(_)))
        && call.get("type").is_none_or(|kind| kind == "function")
        && function.is_some_and(|function| is_text(function.get("name")) && is_text(function.get("arguments")))
        && is_optional_text(field(call, "encryptedValue", "encrypted_value"))
        && is_optional_object(call.get("metadata"))
}

/// `Union[str, List[ContentPart]]`.
fn is_content(content: Option<&Value>) -> bool {
    match content {
        Some(Value::String(_)) => true,
        Some(Value::Array(parts)) => parts.iter().all(is_content_part),
        _ => false,
    }
}

/// `ContentPart`, discriminated by `type`: text, or a media part with its `PartSource`.
fn is_content_part(part: &Value) -> bool {
    let Some(part) = part.as_object() else {
        return false;
    };
    is_optional_text(part.get("id"))
        && match part.get("type").and_then(Value::as_str) {
            Some("text") => is_text(part.get("text")),
            Some("image" | "audio" | "video" | "document") => {
                part.get("source").and_then(Value::as_object).is_some_and(is_source)
            }
            _ => false,
        }
}

/// `PartSource`, discriminated by `type`: inline data (with its media type), a URL, or a
/// provider's file handle.
fn is_source(source: &Map<String, Value>) -> bool {
    let mime_type = field(source, "mimeType", "mime_type");
    is_text(source.get("value"))
        && match source.get("type").and_then(Value::as_str) {
            Some("data") => is_text(mime_type),
            Some("url") => is_optional_text(mime_type),
            Some("file") => is_optional_text(mime_type) && is_optional_text(source.get("provider")),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::validates;

    /// The verdicts are `TypeAdapter(ag_ui.core.Message).validate_python`'s (ag-ui-protocol 1.0.0).
    #[test]
    fn each_role_validates_with_its_fields_and_not_with_a_field_of_another_type() {
        let valid = [
            json!({"id": "u", "role": "user", "content": "hi", "name": null, "extra": [1]}),
            json!({"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"},
                {"type": "image", "source": {"type": "url", "value": "https://x.test/a.png"}}]}),
            json!({"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}),
            json!({"id": "t", "role": "tool", "tool_call_id": "c", "content": "42", "error": "boom"}),
            json!({"id": "x", "role": "activity", "activityType": "custom", "content": {}}),
            json!({"id": "r", "role": "reasoning", "content": "think"}),
            json!({"id": "a", "role": "assistant", "content": null, "name": null}),
        ];
        for message in valid {
            assert!(validates(&message), "{message}");
        }
        let invalid = [
            json!({"role": "user", "content": "hi"}),
            json!({"id": "u", "role": "user", "content": "hi", "encryptedValue": 0}),
            json!({"id": "u", "role": "user", "content": [{"type": "binary", "data": "aGk="}]}),
            json!({"id": "u", "role": "user", "content": [{"type": "image", "source": {"type": "data", "value": "aGk="}}]}),
            json!({"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "url", "function": {"name": "f", "arguments": "{}"}}]}),
            json!({"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": null, "function": {"name": "f", "arguments": "{}"}}]}),
            json!({"id": "t", "role": "tool", "toolCallId": "c", "content": "42", "error": 0}),
            json!({"id": "x", "role": "activity", "content": {}}),
            json!({"id": "r", "role": "reasoning", "content": "think", "metadata": []}),
            json!({"id": "u", "role": "user", "content": [{"type": "document", "source": {"type": "file", "value": "f", "provider": 5}}]}),
        ];
        for message in invalid {
            assert!(!validates(&message), "{message}");
        }
    }
}
