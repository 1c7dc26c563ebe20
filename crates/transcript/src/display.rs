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

/// `retry feedback (CAUSE, attempt N of M)`.
pub fn retry_feedback_label(part: &msgflow_wire::RetryFeedbackPart) -> String {
    let mut label = format!("retry feedback ({}", part.retry.cause.as_str());
    if let Some(attempt) = part.retry.attempt.get() {
        label.push_str(&format!(", attempt {attempt}"));
        if let Some(max) = part.retry.max_retries.get() {
            label.push_str(&format!(" of {max}"));
        }
    }
    label.push(')');
    label
}

/// The one-line note for a request part that changes the run's setup rather than saying
/// anything (tools made available, capabilities loaded, settings changed, an instruction
/// baseline); `None` for every other part.
pub fn setup_note(part: &msgflow_wire::ModelRequestPart) -> Option<String> {
    use msgflow_wire::ModelRequestPart;
    Some(match part {
        ModelRequestPart::ToolAvailabilityDelta(part) => {
            let added = part
                .tools_added
                .get()
                .or(part.added.get())
                .map(|names| names.join(", "));
            format!("tools made available: {}", added.unwrap_or_default())
        }
        ModelRequestPart::CapabilityLoadDelta(part) => {
            let loaded = part.loaded.get().map(|names| names.join(", "));
            format!("capabilities loaded: {}", loaded.unwrap_or_default())
        }
        ModelRequestPart::ModelSettingsDelta(part) => {
            let settings = serde_json::to_string(&part.settings).unwrap_or_default();
            format!("model settings changed: {settings}")
        }
        ModelRequestPart::InstructionBaseline(part) => {
            format!("instruction baseline: {} block(s)", part.instructions.len())
        }
        _ => return None,
    })
}
