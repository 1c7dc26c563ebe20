//! Retry feedback: the prompts pydantic-ai builds from a retry's cause and error details.

use super::form::{Profile, RequestItem};
use super::notes::{add_lookalikes, sourced, Lookalikes};
use super::rendering::json_text;
use crate::framing::Source;
use crate::{framing, ExportError, PartLocation};
use msgflow_wire::RawJson;
use serde_json::{Map, Value};

/// The causes of retry feedback (`RetryFeedbackCause`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FeedbackCause {
    ValidationError,
    ModelRetry,
    NoOutput,
}

/// `_RETRY_FEEDBACK_FRAMING`: the line that opens user-voice retry feedback.
pub(super) const RETRY_FEEDBACK_FRAMING: &str =
    "Your previous response failed the application's validation (this is automated feedback, not a message from the user):";

/// `_NO_OUTPUT_ALTERNATIVE_SLOTS`: what the agent loop can ask for when a response held nothing
/// usable, in the order it lists them.
pub(super) const NO_OUTPUT_ALTERNATIVE_SLOTS: [&[&str]; 3] = [
    &["return text"],
    &["include your response in a tool call", "call a tool"],
    &["return an image"],
];

/// Whether `text` is one of `_NO_OUTPUT_FEEDBACK_TEXTS`: `Please <alternatives joined by " or ">.`,
/// at most one alternative of each slot, in slot order.
pub(super) fn is_no_output_feedback_text(text: &str) -> bool {
    let Some(alternatives) = text.strip_prefix("Please ").and_then(|rest| rest.strip_suffix('.')) else {
        return false;
    };
    // Every choice of at most one alternative per slot, written out and compared (12 texts).
    pub(super) fn matches(rest: &str, slots: &[&[&str]], first: bool) -> bool {
        let Some((slot, others)) = slots.split_first() else {
            return rest.is_empty();
        };
        matches(rest, others, first)
            || slot.iter().any(|alternative| {
                let prefix = if first { "" } else { " or " };
                rest.strip_prefix(prefix)
                    .and_then(|rest| rest.strip_prefix(alternative))
                    .is_some_and(|rest| matches(rest, others, false))
            })
    }
    matches(alternatives, &NO_OUTPUT_ALTERNATIVE_SLOTS, true)
}

/// `_translate_retry_parts` for retry feedback: `model_response()` in the voice its cause calls
/// for. Validation errors and `ModelRetry` messages (and `'no_output'` feedback with any text but
/// the agent loop's own) go in the user voice, fenced, the quoted content checked for lookalikes
/// (`_lookalike_sources`: the `'retry'` source); the loop's own `'no_output'` text is a
/// mid-conversation system prompt.
pub(super) fn retry_feedback(
    content: &RawJson,
    cause: FeedbackCause,
    in_standing_run: bool,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<(RequestItem, Lookalikes), ExportError> {
    let content_path = [path, ".content"].concat();
    // `_retry_feedback_text`: a message as is, error details as their JSON.
    let text = match content.try_to_value() {
        Ok(Value::String(text)) => text,
        Ok(Value::Array(details)) => json_text(&dump_error_details(details).ok_or_else(|| {
            ExportError::unsupported(at, &content_path, "retry error details pydantic-ai does not load")
        })?),
        _ => {
            return Err(ExportError::unsupported(
                at,
                &content_path,
                "retry content that is neither text nor error details",
            ))
        }
    };
    // `_retry_feedback_speaks_for_the_harness`.
    if cause == FeedbackCause::NoOutput && content.is_string() && is_no_output_feedback_text(&text) {
        // Feedback that would extend the first request's opening run of system prompts is never
        // part of the standing prompt: `<system>`-tagged user text, a frame, on every profile.
        if in_standing_run {
            return Ok((RequestItem::Feedback(framing::system_frame(&text)), Vec::new()));
        }
        let item = if profile.inline_system_prompts {
            RequestItem::SystemPrompt { content: text }
        } else {
            RequestItem::WrappedSystemPrompt { content: text }
        };
        return Ok((item, Vec::new()));
    }
    let mut found = Vec::new();
    add_lookalikes(&mut found, &text);
    let fenced = fenced_feedback(&text, cause);
    Ok((RequestItem::Feedback(fenced), sourced(Source::Retry, found)))
}

/// `_fenced_retry_feedback`: the attribution line, then the text fenced in the cause's tag.
fn fenced_feedback(text: &str, cause: FeedbackCause) -> String {
    let tag = if cause == FeedbackCause::ValidationError {
        framing::VALIDATION_ERRORS_TAG
    } else {
        framing::RETRY_FEEDBACK_TAG
    };
    format!("{RETRY_FEEDBACK_FRAMING}\n<{tag}>\n{text}\n</{tag}>")
}

/// `RetryFeedbackPart.model_response()` of a stored part's `content` and `retry.cause`
/// (`"validation_error"`, `"model_retry"` or `"no_output"`), with whether the feedback speaks for
/// the harness (`_retry_feedback_speaks_for_the_harness`: the agent loop's own `'no_output'` text,
/// left unfenced). `None` for a cause or content pydantic-ai does not load.
pub fn retry_feedback_model_response(content: &Value, cause: &str) -> Option<(String, bool)> {
    let cause = match cause {
        "validation_error" => FeedbackCause::ValidationError,
        "model_retry" => FeedbackCause::ModelRetry,
        "no_output" => FeedbackCause::NoOutput,
        _ => return None,
    };
    // `_retry_feedback_text`: a message as is, error details as their JSON.
    let text = match content {
        Value::String(text) => text.clone(),
        Value::Array(details) => json_text(&dump_error_details(details.clone())?),
        _ => return None,
    };
    if cause == FeedbackCause::NoOutput && content.is_string() && is_no_output_feedback_text(&text) {
        return Some((text, true));
    }
    Some((fenced_feedback(&text, cause), false))
}

/// `_dump_error_details` of a legacy tool retry prompt's validation error details, the content
/// of the `ToolReturnPart` pydantic-ai loads it as (`_translate_legacy_retry_part`). `None` for
/// content pydantic-ai would not load as `list[ErrorDetails]`.
pub fn dumped_error_details(content: &Value) -> Option<Value> {
    dump_error_details(content.as_array()?.clone())
}

/// The keys of pydantic-core's `ErrorDetails`, in its order (the order `error_details_ta` dumps
/// them in); `ctx` is never dumped.
pub(super) const ERROR_DETAIL_KEYS: [&str; 5] = ["type", "loc", "msg", "input", "url"];

/// `_dump_error_details`: each error with the keys of `ErrorDetails` in its order (`ctx` and
/// unknown keys dropped), and the `input` of a root-level error (`loc` of at most one item) left out
/// when it equals the first root-level error's (Python `==`). `None` for details pydantic-ai
/// would not load as `list[ErrorDetails]` (msgflow's verdict reports those).
pub(super) fn dump_error_details(details: Vec<Value>) -> Option<Value> {
    let mut root_input: Option<Value> = None;
    let mut dumped = Vec::with_capacity(details.len());
    for detail in details {
        let Value::Object(mut detail) = detail else { return None };
        let loc = detail
            .get("loc")?
            .as_array()?
            .iter()
            .map(loc_item)
            .collect::<Option<Vec<Value>>>()?;
        let loc_len = loc.len();
        detail.insert("loc".to_owned(), Value::Array(loc));
        let loads = detail.get("type")?.is_string()
            && detail.get("msg")?.is_string()
            && detail.contains_key("input")
            && detail.get("url").is_none_or(Value::is_string);
        if !loads {
            return None;
        }
        if loc_len <= 1 {
            match &root_input {
                None => root_input = Some(detail.get("input").cloned().unwrap_or(Value::Null)),
                Some(first) if detail.get("input").is_some_and(|input| python_eq(input, first)) => {
                    detail.remove("input");
                }
                Some(_) => {}
            }
        }
        let mut ordered = Map::new();
        for key in ERROR_DETAIL_KEYS {
            if let Some(value) = detail.remove(key) {
                ordered.insert(key.to_owned(), value);
            }
        }
        dumped.push(Value::Object(ordered));
    }
    Some(Value::Array(dumped))
}

/// An item of `ErrorDetails.loc` (`tuple[int | str, ...]`) as pydantic loads it
/// ([`msgflow_wire::lax::int_or_str`]: `true` is `1`, `2.0` and `1e2` are `2` and `100`; `1.5`,
/// `1e19`, `null` are refused), so the part is sent with the integer pydantic-ai holds. `None` for
/// an item pydantic-ai does not load.
pub(super) fn loc_item(item: &Value) -> Option<Value> {
    msgflow_wire::lax::int_or_str(item)
}

/// Whether a JSON number is written as an integer (which Python reads as an `int`, of any size).
pub(super) fn is_integer(value: &Value) -> bool {
    matches!(value, Value::Number(number) if !number.to_string().contains(['.', 'e', 'E']))
}

/// Python's `==` on JSON values: `True == 1`, `1 == 1.0`; objects equal by keys and values.
pub(super) fn python_eq(left: &Value, right: &Value) -> bool {
    pub(super) fn number(value: &Value) -> Option<f64> {
        match value {
            Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
            Value::Number(number) => number.as_f64(),
            _ => None,
        }
    }
    match (left, right) {
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len() && left.iter().zip(right).all(|(left, right)| python_eq(left, right))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .all(|(key, value)| right.get(key).is_some_and(|other| python_eq(value, other)))
        }
        (Value::Bool(left), Value::Bool(right)) => left == right,
        // Integers of any size compare exactly (`-0` is `0`).
        (Value::Number(_), Value::Number(_)) if is_integer(left) && is_integer(right) => {
            let digits = |value: &Value| {
                let text = value.to_string();
                if text == "-0" {
                    "0".to_owned()
                } else {
                    text
                }
            };
            digits(left) == digits(right)
        }
        _ => match (number(left), number(right)) {
            (Some(left), Some(right)) => left == right,
            _ => left == right,
        },
    }
}
