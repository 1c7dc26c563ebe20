//! pydantic's error types for a row msgflow cannot read as a history: what
//! `ModelMessagesTypeAdapter.validate_json` (pydantic-ai 2.68.0) raises on it, for the corpus
//! summary's `pydantic_ai_error_types`.
//!
//! Bytes that are not JSON are `json_invalid`. For JSON that is not a history, the envelope
//! pydantic validates first is walked as pydantic-core walks it: the `list[ModelMessage]` (a
//! non-list is `list_type`), each message's tagged union on `kind` (`dict_type` for a
//! non-object, `union_tag_not_found` without a `kind`, `union_tag_invalid` for any other value
//! than `request` or `response`), its `parts` (`missing`, `list_type`) and each part's tagged
//! union on `part_kind` (`pydantic_ai.messages`' part discriminators: `union_tag_not_found` for a
//! part that is not an object or has no `part_kind`). A message whose envelope is whole is read
//! on its own: if msgflow reads it, the verdict's reasons for it are pydantic's; if not, the
//! field msgflow could not read gives the type (a missing required key is `missing`, a value
//! that is neither string nor list where pydantic takes `str | list` is `string_type` and
//! `list_type`, as pydantic-core reports both members of the union).

use msgflow_wire::{ParseError, ParseErrorCategory};
use serde_json::{Map, Value};

/// The error type of bytes pydantic-core cannot parse as JSON.
const JSON_INVALID: &str = "json_invalid";

/// pydantic's error types for `bytes`, which msgflow failed to read with `err`: each type once,
/// in the order pydantic reports them (empty when msgflow does not know pydantic's answer).
pub fn error_types(bytes: &[u8], err: &ParseError) -> Vec<String> {
    let mut types = Vec::new();
    match err.category() {
        ParseErrorCategory::Syntax | ParseErrorCategory::Eof => types.push(JSON_INVALID.to_owned()),
        ParseErrorCategory::Data => {
            // When serde_json refuses what msgflow's reader took for JSON (a limit), no guess.
            if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
                history_types(&value, &mut types);
            }
        }
        ParseErrorCategory::Io | ParseErrorCategory::Limit => {}
    }
    let mut unique: Vec<String> = Vec::with_capacity(types.len());
    for error_type in types {
        if !unique.contains(&error_type) {
            unique.push(error_type);
        }
    }
    unique
}

fn push(types: &mut Vec<String>, error_type: &str) {
    types.push(error_type.to_owned());
}

fn history_types(value: &Value, types: &mut Vec<String>) {
    let Some(messages) = value.as_array() else {
        return push(types, "list_type");
    };
    for message in messages {
        message_types(message, types);
    }
}

/// `kind` (of a message) or `part_kind` (of a part): the tag of a tagged union. Whether it
/// names a member is left to the caller.
fn tag<'v>(object: &'v Map<String, Value>, key: &str, types: &mut Vec<String>) -> Option<&'v str> {
    match object.get(key) {
        None => {
            push(types, "union_tag_not_found");
            None
        }
        Some(Value::String(tag)) => Some(tag),
        Some(_) => {
            push(types, "union_tag_invalid");
            None
        }
    }
}

fn message_types(message: &Value, types: &mut Vec<String>) {
    let Some(object) = message.as_object() else {
        return push(types, "dict_type");
    };
    match tag(object, "kind", types) {
        Some("request" | "response") => {}
        Some(_) => return push(types, "union_tag_invalid"),
        None => return,
    }
    let parts_whole = match object.get("parts") {
        None => {
            push(types, "missing");
            false
        }
        Some(Value::Array(parts)) => {
            let mut whole = true;
            for part in parts {
                match part.as_object() {
                    Some(part) => whole &= tag(part, "part_kind", types).is_some(),
                    None => {
                        push(types, "union_tag_not_found");
                        whole = false;
                    }
                }
            }
            whole
        }
        Some(_) => {
            push(types, "list_type");
            false
        }
    };
    if !parts_whole {
        return;
    }
    let alone = serde_json::to_vec(&[message]).unwrap_or_default();
    match msgflow_wire::from_slice(&alone) {
        Ok(history) => types.extend(
            msgflow_wire::verdict::verdict(&history)
                .into_reasons()
                .into_iter()
                .map(|reason| reason.error_type),
        ),
        Err(err) => types.extend(field_types(&err).iter().map(|t| (*t).to_owned())),
    }
}

/// The type of the field msgflow could not read (its reader's messages, `msgflow_wire::rt`).
fn field_types(err: &ParseError) -> &'static [&'static str] {
    let message = err.message();
    if message.contains("missing required key") {
        &["missing"]
    } else if message.contains("expected a string or an array") {
        &["string_type", "list_type"]
    } else if message.contains("expected a JSON array") {
        &["list_type"]
    } else if message.contains("expected a string") {
        &["string_type"]
    } else {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What msgflow's reader says and then [`error_types`] for `json`.
    fn types_of(json: &str) -> Vec<String> {
        let err = msgflow_wire::from_str(json).expect_err("msgflow must refuse the row");
        error_types(json.as_bytes(), &err)
    }

    #[test]
    fn not_json_is_json_invalid() {
        assert_eq!(types_of("not json"), ["json_invalid"]);
        assert_eq!(types_of(r#"[{"kind": "requ"#), ["json_invalid"]);
    }

    #[test]
    fn a_value_that_is_not_a_list_is_list_type() {
        for json in [r#"{"kind": "request"}"#, "null", "3", r#""""#, "true", "{}"] {
            assert_eq!(types_of(json), ["list_type"], "{json}");
        }
    }

    #[test]
    fn a_message_that_is_not_an_object_is_dict_type() {
        assert_eq!(types_of("[1, 2]"), ["dict_type"]);
        assert_eq!(types_of("[null]"), ["dict_type"]);
    }

    #[test]
    fn the_kind_tag() {
        assert_eq!(types_of("[{}]"), ["union_tag_not_found"]);
        assert_eq!(types_of(r#"[{"kind": "banana", "parts": []}]"#), ["union_tag_invalid"]);
        assert_eq!(types_of(r#"[{"kind": null, "parts": []}]"#), ["union_tag_invalid"]);
        assert_eq!(types_of(r#"[{"kind": 5, "parts": []}]"#), ["union_tag_invalid"]);
    }

    #[test]
    fn the_parts() {
        assert_eq!(types_of(r#"[{"kind": "request"}]"#), ["missing"]);
        assert_eq!(types_of(r#"[{"kind": "request", "parts": "none"}]"#), ["list_type"]);
        assert_eq!(types_of(r#"[{"kind": "request", "parts": null}]"#), ["list_type"]);
        assert_eq!(
            types_of(r#"[{"kind": "request", "parts": [1]}]"#),
            ["union_tag_not_found"]
        );
        assert_eq!(
            types_of(r#"[{"kind": "request", "parts": [{}]}]"#),
            ["union_tag_not_found"]
        );
    }

    #[test]
    fn a_field_msgflow_cannot_read() {
        assert_eq!(
            types_of(r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt"}]}]"#),
            ["missing"]
        );
        assert_eq!(
            types_of(r#"[{"kind": "response", "parts": [{"part_kind": "text"}]}]"#),
            ["missing"]
        );
        assert_eq!(
            types_of(r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": 5}]}]"#),
            ["string_type", "list_type"]
        );
    }

    #[test]
    fn a_readable_message_beside_an_unreadable_one_gives_the_verdicts_types() {
        // The second message is readable alone, and pydantic refuses its unknown part kind.
        let json = r#"[{"kind": "request"}, {"kind": "request", "parts": [{"part_kind": "zzz"}]}]"#;
        assert_eq!(types_of(json), ["missing", "union_tag_invalid"]);
    }

    #[test]
    fn each_type_once() {
        assert_eq!(types_of("[1, 2, {}, null]"), ["dict_type", "union_tag_not_found"]);
    }
}
