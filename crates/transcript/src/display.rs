//! JSON values as people read them, shared by the page and `msgflow show`'s terminal transcript.

use msgflow_wire::{Field, RawJson};

/// A JSON value for reading: strings as their text, everything else pretty-printed.
pub fn json_for_display(raw: &RawJson) -> String {
    match raw.as_string() {
        Some(text) => text.to_string(),
        None => pretty(&raw.to_value()),
    }
}

/// A tool call's arguments for reading: pretty JSON, also when pydantic-ai kept them as the text
/// the model streamed (a string), with a note when that text is not valid JSON.
pub fn arguments_for_display(args: &Field<RawJson>) -> String {
    match args.get() {
        None => String::new(),
        Some(raw) => match raw.as_string() {
            Some(text) => match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(value) => pretty(&value),
                Err(_) => format!("{text}\n(the arguments are not valid JSON)"),
            },
            None => json_for_display(raw),
        },
    }
}

/// `value` as indented JSON.
pub fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
