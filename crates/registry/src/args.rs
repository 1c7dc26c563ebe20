//! Comparing tool-call arguments as JSON values, whatever form they were written in.
//!
//! pydantic-ai stores `args` as a JSON object, a JSON *string* holding an object (what most
//! providers stream), or `null`. Two calls are "the same call" when their arguments mean the same
//! JSON value, so the string form is parsed before comparing, and the "no arguments" spellings
//! (`null`, `""`, `{}`) are treated alike.

use serde_json::{Map, Value};

/// The JSON value that `args` stands for.
///
/// A string that parses as JSON is replaced by the parsed value; a string that does not parse is
/// kept as a string (so invalid JSON still compares by its text). `null` and `""` become `{}`.
pub(crate) fn normalized_args(args: &Value) -> Value {
    match args {
        Value::Null => Value::Object(Map::new()),
        Value::String(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Value::String(text) => serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.clone())),
        other => other.clone(),
    }
}

/// Whether two `args` values mean the same arguments (see [`normalized_args`]).
///
/// Object equality ignores key order, also when serde_json's `preserve_order` feature is on.
pub(crate) fn args_equivalent(left: &Value, right: &Value) -> bool {
    normalized_args(left) == normalized_args(right)
}

/// A text key identifying the normalized arguments: canonical JSON with object keys sorted, so
/// equal arguments give equal keys whatever their key order or serde_json features.
pub(crate) fn args_key(args: &Value) -> String {
    let mut out = String::new();
    write_canonical(&normalized_args(args), &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (position, (key, item)) in entries.into_iter().enumerate() {
                if position > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The text of a tool result or error payload: a JSON string as-is, `null` as empty, anything else
/// as compact JSON.
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `text` cut to at most `max_chars` characters (on a char boundary), with `…` when cut.
pub(crate) fn truncate_chars(text: &str, max_chars: usize) -> String {
    let mut chars = text.char_indices();
    match chars.nth(max_chars) {
        None => text.to_owned(),
        Some((cut, _)) => {
            let mut short = text.get(..cut).unwrap_or(text).trim_end().to_owned();
            short.push('…');
            short
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_args_compare_as_parsed_json() {
        assert!(args_equivalent(
            &json!({"path": "a.rs", "limit": 10}),
            &json!("{\"limit\": 10, \"path\": \"a.rs\"}")
        ));
        assert!(!args_equivalent(&json!({"path": "a.rs"}), &json!({"path": "b.rs"})));
    }

    #[test]
    fn empty_spellings_are_equivalent() {
        assert!(args_equivalent(&Value::Null, &json!({})));
        assert!(args_equivalent(&json!(""), &json!({})));
        assert!(args_equivalent(&json!("  "), &Value::Null));
    }

    #[test]
    fn invalid_json_strings_compare_by_text() {
        assert!(args_equivalent(&json!("{not json"), &json!("{not json")));
        assert!(!args_equivalent(&json!("{not json"), &json!("{not json!")));
    }

    #[test]
    fn key_is_order_insensitive_and_distinguishes_values() {
        assert_eq!(
            args_key(&json!({"b": 1, "a": [1, {"y": 2, "x": 1}]})),
            r#"{"a":[1,{"x":1,"y":2}],"b":1}"#
        );
        assert_eq!(
            args_key(&json!("{\"b\":1,\"a\":2}")),
            args_key(&json!({"a": 2, "b": 1}))
        );
        assert_ne!(args_key(&json!({"a": "1"})), args_key(&json!({"a": 1})));
    }

    #[test]
    fn content_text_forms() {
        assert_eq!(content_text(&json!("boom")), "boom");
        assert_eq!(content_text(&Value::Null), "");
        assert_eq!(content_text(&json!({"code": 1})), r#"{"code":1}"#);
    }

    #[test]
    fn truncation_respects_char_boundaries() {
        assert_eq!(truncate_chars("short", 10), "short");
        assert_eq!(truncate_chars("ééééé", 3), "ééé…");
        assert_eq!(truncate_chars("abc def", 4), "abc…");
    }
}
