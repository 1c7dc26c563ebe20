//! Loose JSON: wire messages and the seed document's legacy dict shapes.

use msgflow_canonical::{CanonicalMessage, CanonicalPart, MessageRole};
use serde_json::Value;

use crate::error::AdapterError;
use crate::to_canonical::to_canonical;

/// Converts a loose JSON value to a canonical message.
///
/// * An object with a `kind` key is parsed as a wire message (errors name the JSON path).
/// * Legacy `{"thought": "..."}` (no `kind`) becomes an assistant message with one thought
///   (a non-string thought is kept as its JSON text).
/// * Legacy `{"content": "..."}` (no `kind`, no `parts`, string content) becomes a user message
///   with one **user prompt** (tunacode made it a `text` part, which pydantic-ai rejects inside a
///   request). Other keys of a legacy dict, such as `role`, are ignored, as in the seed.
/// * Anything else is an [`AdapterError::NotAMessage`]: no guessing.
pub fn to_canonical_value(value: &Value) -> Result<CanonicalMessage, AdapterError> {
    let Value::Object(map) = value else {
        return Err(AdapterError::NotAMessage(format!(
            "expected a JSON object, found {}",
            json_type(value)
        )));
    };
    if map.contains_key("kind") {
        let message = msgflow_wire::message_from_str(&value.to_string())?;
        return Ok(to_canonical(&message));
    }
    if let Some(thought) = map.get("thought") {
        let content = match thought {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        return Ok(CanonicalMessage::new(
            MessageRole::Assistant,
            vec![CanonicalPart::thought(content)],
        ));
    }
    match map.get("content") {
        Some(Value::String(text)) if !map.contains_key("parts") => Ok(CanonicalMessage::new(
            MessageRole::User,
            vec![CanonicalPart::user_prompt(text.clone())],
        )),
        Some(other) if !map.contains_key("parts") => Err(AdapterError::NotAMessage(format!(
            "a legacy {{\"content\": ...}} message needs string content, found {}",
            json_type(other)
        ))),
        _ => {
            let keys: Vec<&str> = map.keys().map(String::as_str).take(8).collect();
            Err(AdapterError::NotAMessage(format!(
                "an object without `kind`, `thought` or string `content` (keys: {keys:?})"
            )))
        }
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
