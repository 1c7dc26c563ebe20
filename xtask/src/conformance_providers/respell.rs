//! Histories written the ways a file pydantic-ai did not write may spell them: the tool output and
//! call arguments in them with `\/`, `\u` escapes, whitespace between tokens, floats written
//! longer than their shortest form (`1.50`, `15e-1`), integers written as floats (`7.0`, which
//! Python reads as a float), and keys written twice (the last value wins, at the first key's place).
//!
//! msgflow sends a value already in the form pydantic-ai dumps it in as it is written, and reads and
//! writes any other value again (`msgflow_providers`' `dumped.rs`). A history serde_json writes is
//! always in that form, so without these spellings the long path would reach pydantic-ai only
//! through the unit tests.

use std::fmt::Write as _;

use serde_json::Value;

use super::Rng;

/// The JSON text of `history`, each tool return's `content` and each tool call's `args` (an object,
/// or a string holding one) respelled; the rest written compactly.
pub(super) fn respelled(history: &Value, rng: &mut Rng) -> String {
    let mut out = String::new();
    write_history(&mut out, history, rng);
    out
}

fn write_history(out: &mut String, value: &Value, rng: &mut Rng) {
    let Value::Array(messages) = value else {
        out.push_str(&value.to_string());
        return;
    };
    write_items(out, messages, |out, message| {
        write_fields(out, message, |out, key, value| match (key, value) {
            ("parts", Value::Array(parts)) => write_items(out, parts, |out, part| write_part(out, part, rng)),
            _ => out.push_str(&value.to_string()),
        });
    });
}

/// A part, its tool output or call arguments respelled.
fn write_part(out: &mut String, part: &Value, rng: &mut Rng) {
    let kind = part.get("part_kind").and_then(Value::as_str).unwrap_or_default();
    write_fields(out, part, |out, key, value| match (kind, key, value) {
        ("tool-return" | "builtin-tool-return", "content", _) => write_value(out, value, rng),
        ("tool-call" | "builtin-tool-call", "args", Value::Object(_)) => write_value(out, value, rng),
        ("tool-call" | "builtin-tool-call", "args", Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(inner @ Value::Object(_)) => {
                let mut inner_text = String::new();
                write_value(&mut inner_text, &inner, rng);
                write_string(out, &inner_text, None);
            }
            _ => out.push_str(&value.to_string()),
        },
        _ => out.push_str(&value.to_string()),
    });
}

/// A JSON array, each item written by `write_item`.
fn write_items(out: &mut String, items: &[Value], mut write_item: impl FnMut(&mut String, &Value)) {
    out.push('[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write_item(out, item);
    }
    out.push(']');
}

/// A JSON object, each value written by `write_value` (anything else compactly).
fn write_fields(out: &mut String, object: &Value, mut write_value: impl FnMut(&mut String, &str, &Value)) {
    let Value::Object(fields) = object else {
        out.push_str(&object.to_string());
        return;
    };
    out.push('{');
    for (index, (key, value)) in fields.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write_string(out, key, None);
        out.push(':');
        write_value(out, key, value);
    }
    out.push('}');
}

/// `value`, spelled at random in any way JSON allows for the same value as Python reads it, or,
/// for an integer written as a float, a value Python reads as that float.
fn write_value(out: &mut String, value: &Value, rng: &mut Rng) {
    space(out, rng);
    match value {
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                if rng.chance(8) {
                    // The key written twice: Python keeps the first place and the last value.
                    write_string(out, key, Some(rng));
                    out.push(':');
                    out.push_str(if rng.chance(50) { "\"decoy\"" } else { "[1, 2.0]" });
                    out.push(',');
                }
                space(out, rng);
                write_string(out, key, Some(rng));
                space(out, rng);
                out.push(':');
                write_value(out, item, rng);
            }
            space(out, rng);
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(out, item, rng);
            }
            space(out, rng);
            out.push(']');
        }
        Value::String(text) => write_string(out, text, Some(rng)),
        Value::Number(number) => write_number(out, &number.to_string(), rng),
        other => out.push_str(&other.to_string()),
    }
    space(out, rng);
}

/// Whitespace JSON allows between tokens, now and then.
fn space(out: &mut String, rng: &mut Rng) {
    if rng.chance(10) {
        out.push_str(rng.pick::<&str>(&[" ", "\n", "\t", "\r\n  ", "  "]));
    }
}

/// A number as written (`text` is serde_json's text of it), or longer: a float with trailing zeros
/// or an exponent, an integer as a float.
fn write_number(out: &mut String, text: &str, rng: &mut Rng) {
    let is_float = text.contains(['.', 'e', 'E']);
    let has_exponent = text.contains(['e', 'E']);
    match rng.below(10) {
        0 if is_float && !has_exponent => {
            out.push_str(text);
            out.push('0');
        }
        1 if is_float && !has_exponent => {
            out.push_str(text);
            out.push_str(rng.pick::<&str>(&["e0", "E+0", "e-0"]));
        }
        2 if !is_float && !text.starts_with('-') && text.len() < 15 => {
            out.push_str(text);
            out.push_str(rng.pick::<&str>(&[".0", ".50", "e0", "E2"]));
        }
        _ => out.push_str(text),
    }
}

/// A JSON string, its characters escaped at random (with `rng`) where JSON allows: `\/`, `\u`
/// escapes (surrogate pairs beyond the basic plane), the short escapes. Without `rng`, compact.
fn write_string(out: &mut String, text: &str, mut rng: Option<&mut Rng>) {
    out.push('"');
    for ch in text.chars() {
        let respell = rng.as_deref_mut().is_some_and(|rng| rng.chance(15));
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if respell => out.push_str("\\/"),
            '\n' if !respell => out.push_str("\\n"),
            '\r' if !respell => out.push_str("\\r"),
            '\t' if !respell => out.push_str("\\t"),
            '\u{8}' if !respell => out.push_str("\\b"),
            '\u{c}' if !respell => out.push_str("\\f"),
            ch if ch < ' ' || respell => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            ch => out.push(ch),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_respelled_history_reads_as_the_same_values_but_for_the_numbers_written_as_floats() {
        let history = serde_json::json!([{"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": "t", "args": "{\"path\": \"a/b\", \"n\": 1}", "tool_call_id": "c"},
        ]}, {"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": "t", "tool_call_id": "c",
             "content": {"é/x": ["日本\n", 2.5, {"k": "🎉"}], "n": 12, "e": 1e+2, "f": 1.5e-3}},
        ]}]);
        let mut rng = Rng(7);
        for _ in 0..200 {
            let text = respelled(&history, &mut rng);
            let read: Value = serde_json::from_str(&text).unwrap();
            let content = &read[1]["parts"][0]["content"];
            assert_eq!(content["é/x"][0], "日本\n", "{text}");
            assert_eq!(content["é/x"][2]["k"], "🎉", "{text}");
            let args: Value = serde_json::from_str(read[0]["parts"][0]["args"].as_str().unwrap()).unwrap();
            assert_eq!(args["path"], "a/b", "{text}");
        }
    }
}
