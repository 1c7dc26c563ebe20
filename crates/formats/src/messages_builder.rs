//! The history a UI adapter's `load_messages` builds, on JSON: pydantic-ai's `MessagesBuilder`
//! (`pydantic_ai.ui._messages_builder`) and the helpers both UI formats' loaders share.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::loss::{LossKind, Report};
use crate::openai_chat::ShapeError;

/// The reserved namespace of `ModelMessage.metadata` the adapters keep the UI message id in.
pub(crate) const INTERNAL_KEY: &str = "__pydantic_ai__";

/// The history being built: `MessagesBuilder`, on JSON.
pub(crate) struct Builder {
    pub(crate) messages: Vec<Map<String, Value>>,
}

impl Builder {
    /// `MessagesBuilder.add`: a part extends the last message of its side, or opens one.
    pub(crate) fn add(&mut self, part: Value, to_request: bool) {
        let kind = if to_request { "request" } else { "response" };
        match self.messages.last_mut() {
            Some(last) if last["kind"] == kind => {
                if let Some(Value::Array(parts)) = last.get_mut("parts") {
                    parts.push(part);
                }
            }
            _ => {
                let mut message = Map::new();
                message.insert("parts".into(), Value::Array(vec![part]));
                message.insert("kind".into(), kind.into());
                self.messages.push(message);
            }
        }
    }

    pub(crate) fn checkpoint(&self) -> (usize, usize) {
        let last_len = self
            .messages
            .last()
            .map_or(0, |last| last["parts"].as_array().map_or(0, Vec::len));
        (self.messages.len(), last_len)
    }

    /// `_metadata_target`: the first message of `kind` changed since the checkpoint.
    pub(crate) fn target(&mut self, (count, last_len): (usize, usize), kind: &str) -> Option<&mut Map<String, Value>> {
        let start = if count > 0 && self.messages[count - 1]["parts"].as_array().map_or(0, Vec::len) > last_len {
            count - 1
        } else {
            count
        };
        self.messages[start..]
            .iter_mut()
            .find(|message| message["kind"] == kind)
    }

    /// `restore_canonical_system`: the `canonical_system` a part carried, onto its response.
    pub(crate) fn restore_canonical_system(&mut self, provider_name: &Value, canonical_system: &Value) {
        let (Value::String(_), Value::String(_)) = (provider_name, canonical_system) else {
            return;
        };
        let Some(response) = self.messages.last_mut() else {
            return;
        };
        match response.get("provider_name") {
            None | Some(Value::Null) => {
                response.insert("provider_name".into(), provider_name.clone());
                response.insert("canonical_system".into(), canonical_system.clone());
            }
            Some(name) if name == provider_name && response.get("canonical_system") != Some(canonical_system) => {
                response.insert("canonical_system".into(), Value::Null);
            }
            Some(_) => {}
        }
    }
}

/// `BinaryContent.from_data_uri`: `data:<media type>;base64,<data>`, else `None`.
pub(crate) fn from_data_uri(url: &str) -> Option<(String, Vec<u8>)> {
    let body = url.strip_prefix("data:")?;
    let (media_type, data) = body.split_once(";base64,")?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim_end()).ok()?;
    Some((media_type.to_owned(), bytes))
}

pub(crate) fn binary_json(media_type: &str, bytes: &[u8], vendor_metadata: &Value) -> Value {
    let mut object = Map::new();
    object.insert(
        "data".into(),
        base64::engine::general_purpose::URL_SAFE.encode(bytes).into(),
    );
    object.insert("media_type".into(), media_type.into());
    if vendor_metadata.is_object() {
        object.insert("vendor_metadata".into(), vendor_metadata.clone());
    }
    object.insert("kind".into(), "binary".into());
    Value::Object(object)
}

/// `set_ui_message_id`: the `UIMessage.id`, kept in the reserved `__pydantic_ai__` namespace.
pub(crate) fn set_ui_message_id(target: &mut Map<String, Value>, id: String) {
    let metadata = target.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let namespace = metadata
        .as_object_mut()
        .expect("made an object above")
        .entry(INTERNAL_KEY)
        .or_insert_with(|| Value::Object(Map::new()));
    if !namespace.is_object() {
        *namespace = Value::Object(Map::new());
    }
    namespace
        .as_object_mut()
        .expect("made an object above")
        .insert("ui_message_id".into(), Value::String(id));
}

/// The messages of a UI format's input and their path: an array of messages, or a request body
/// `{"messages": [...], ...}` whose other fields (`field_label` names them) are reported dropped.
pub(crate) fn ui_messages<'v>(
    value: &'v Value,
    document: usize,
    report: &mut Report,
    expected: &str,
    field_label: &str,
) -> Result<(&'v [Value], String), ShapeError> {
    match value {
        Value::Array(messages) => Ok((messages.as_slice(), "$".to_owned())),
        Value::Object(body) => match body.get("messages") {
            Some(Value::Array(messages)) => {
                for key in body.keys().filter(|key| key.as_str() != "messages") {
                    report.push(
                        LossKind::Dropped,
                        document,
                        format!("$.{key}"),
                        format!("{field_label} `{key}` (a history holds messages only)"),
                    );
                }
                Ok((messages.as_slice(), "$.messages".to_owned()))
            }
            _ => Err(ShapeError {
                path: "$".into(),
                message: expected.into(),
            }),
        },
        _ => Err(ShapeError {
            path: "$".into(),
            message: expected.into(),
        }),
    }
}

/// `compaction_part_from_payload` (`pydantic_ai.ui._adapter`): the `CompactionPart` a UI payload
/// validates as, or `None` for one that does not (pydantic-ai skips it). Unknown keys (the
/// `canonical_system` beside the part) are not the part's.
pub(crate) fn compaction_from_payload(payload: &Value) -> Option<Value> {
    let payload = payload.as_object()?;
    let mut part = Map::new();
    for key in ["content", "id", "provider_name"] {
        match payload.get(key) {
            None | Some(Value::Null) => {}
            Some(value @ Value::String(_)) => {
                part.insert(key.into(), value.clone());
            }
            Some(_) => return None,
        }
    }
    for key in ["provider_details", "metadata"] {
        match payload.get(key) {
            None | Some(Value::Null) => {}
            Some(value @ Value::Object(_)) => {
                part.insert(key.into(), value.clone());
            }
            Some(_) => return None,
        }
    }
    if payload.get("part_kind").is_some_and(|kind| kind != "compaction") {
        return None;
    }
    part.insert("part_kind".into(), "compaction".into());
    Some(Value::Object(part))
}

/// `is_request_compaction_part`: a summary no provider produced, which can sit in a request.
pub(crate) fn is_request_compaction(part: &Value) -> bool {
    ["provider_name", "id", "provider_details"]
        .iter()
        .all(|key| part.get(*key).is_none_or(Value::is_null))
}

/// `_TOOL_NAME_PATTERN`: the tool-name shape pydantic-ai keeps from a client's delta.
fn is_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// A `str | None` field of a payload as pydantic validates it: `Some(None)` for absent or null,
/// `None` when it is not a string.
fn optional_string(payload: &Map<String, Value>, key: &str) -> Option<Value> {
    match payload.get(key) {
        None | Some(Value::Null) => Some(Value::Null),
        Some(value @ Value::String(_)) => Some(value.clone()),
        Some(_) => None,
    }
}

/// A `list[str]` as pydantic validates it.
fn string_list(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

/// A `tool_call_id` of only whitespace reads as none (the `*_from_payload` helpers).
fn non_blank(id: Value) -> Value {
    match id {
        Value::String(text) if text.trim().is_empty() => Value::Null,
        other => other,
    }
}

/// `tool_availability_delta_from_payload`: the delta a UI payload gives; one that does not
/// validate is an empty change, and tool names of the wrong shape are left out.
pub(crate) fn tool_availability_delta_from_payload(payload: &Map<String, Value>) -> Value {
    let validated = (|| {
        if payload
            .get("part_kind")
            .is_some_and(|kind| kind != "tool-availability-delta")
        {
            return None;
        }
        // `tools_added` also answers to the alias `added`, which the payload uses.
        let added = match payload.get("tools_added").or_else(|| payload.get("added")) {
            None => Vec::new(),
            Some(value) => string_list(value)?,
        };
        Some((added, optional_string(payload, "tool_call_id")?))
    })();
    let (added, tool_call_id) = validated.unwrap_or((Vec::new(), Value::Null));
    let added: Vec<String> = added.into_iter().filter(|name| is_tool_name(name)).collect();
    serde_json::json!({"tools_added": added, "tool_call_id": non_blank(tool_call_id),
                       "part_kind": "tool-availability-delta"})
}

/// `capability_load_delta_from_payload`: the delta a UI payload gives, or `None` when it does not
/// validate or loads nothing.
pub(crate) fn capability_load_delta_from_payload(payload: &Map<String, Value>) -> Option<Value> {
    let loaded = string_list(payload.get("loaded")?)?;
    let tool_call_id = optional_string(payload, "tool_call_id")?;
    let loaded: Vec<String> = loaded.into_iter().filter(|id| !id.is_empty()).collect();
    if loaded.is_empty() {
        return None;
    }
    Some(
        serde_json::json!({"loaded": loaded, "tool_call_id": non_blank(tool_call_id),
                            "part_kind": "capability-load-delta"}),
    )
}

/// `ThinkingEffort`.
const THINKING_EFFORTS: [&str; 6] = ["minimal", "low", "medium", "high", "xhigh", "max"];

/// pydantic's lax `bool`: booleans, `0` / `1` and the strings it reads as one.
fn lax_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::Number(number) => match number.as_f64() {
            Some(0.0) => Some(false),
            Some(1.0) => Some(true),
            _ => None,
        },
        Value::String(text) => match text.to_ascii_lowercase().as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Some(false),
            "1" | "on" | "t" | "true" | "y" | "yes" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// `model_settings_delta_from_payload`: the change a UI payload gives, or `None` when it does not
/// validate (a `RecordedModelSettings` keeps `thinking` only) or records nothing.
pub(crate) fn model_settings_delta_from_payload(payload: &Map<String, Value>) -> Option<Value> {
    let settings = payload.get("settings")?.as_object()?;
    let top_level = match payload.get("top_level") {
        None => false,
        Some(value) => lax_bool(value)?,
    };
    let mut recorded = Map::new();
    if let Some(thinking) = settings.get("thinking") {
        match thinking {
            Value::Null => {}
            Value::String(effort) if THINKING_EFFORTS.contains(&effort.as_str()) => {}
            _ => return None,
        }
        recorded.insert("thinking".into(), thinking.clone());
    }
    // A change records at least one setting, and only a window's opening part goes back to no level.
    if recorded.is_empty() || (recorded.get("thinking") == Some(&Value::Null) && !top_level) {
        return None;
    }
    Some(serde_json::json!({"settings": recorded, "top_level": top_level,
                            "part_kind": "model-settings-delta"}))
}

/// `RetryFeedbackCause`.
const RETRY_FEEDBACK_CAUSES: [&str; 3] = ["validation_error", "model_retry", "no_output"];

/// Whether a JSON number is one pydantic's lax `int` takes: an integer of any size, or a float
/// with no fractional part.
fn is_integer(number: &serde_json::Number) -> bool {
    let text = number.to_string();
    let digits = text.strip_prefix('-').unwrap_or(&text);
    (!digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()))
        || text
            .parse::<f64>()
            .is_ok_and(|float| float.is_finite() && float.fract() == 0.0)
}

/// An `int | None` as pydantic validates it from JSON (msgflow takes no numeric strings, which
/// pydantic-ai's own dump never writes).
fn optional_int(object: &Map<String, Value>, key: &str) -> Option<Value> {
    match object.get(key) {
        None | Some(Value::Null) => Some(Value::Null),
        Some(Value::Number(number)) if is_integer(number) => Some(Value::Number(number.clone())),
        Some(_) => None,
    }
}

/// Whether a value validates as pydantic-core's `ErrorDetails`.
fn is_error_details(item: &Value) -> bool {
    let Some(detail) = item.as_object() else { return false };
    detail.get("type").is_some_and(Value::is_string)
        && detail.get("msg").is_some_and(Value::is_string)
        && detail.contains_key("input")
        && detail.get("loc").and_then(Value::as_array).is_some_and(|loc| {
            loc.iter()
                .all(|item| item.is_string() || item.as_number().is_some_and(is_integer))
        })
        && detail.get("ctx").is_none_or(Value::is_object)
        && detail.get("url").is_none_or(Value::is_string)
}

/// `retry_feedback_from_payload` (`pydantic_ai.ui._adapter`): the `RetryFeedbackPart` a dumped
/// message claims to have been made from, or `None` for a claim that does not validate (the
/// message is then read as the plain text a client wrote).
pub(crate) fn retry_feedback_from_payload(payload: &Value) -> Option<Value> {
    let payload = payload.as_object()?;
    let content = match payload.get("content")? {
        text @ Value::String(_) => text.clone(),
        Value::Array(items) if items.iter().all(is_error_details) => Value::Array(items.clone()),
        _ => return None,
    };
    let retry = payload.get("retry")?.as_object()?;
    let cause = retry.get("cause")?.as_str()?;
    if !RETRY_FEEDBACK_CAUSES.contains(&cause) {
        return None;
    }
    let retry = serde_json::json!({"cause": cause, "attempt": optional_int(retry, "attempt")?,
                                   "max_retries": optional_int(retry, "max_retries")?});
    if payload.get("part_kind").is_some_and(|kind| kind != "retry-feedback") {
        return None;
    }
    let mut part = Map::new();
    part.insert("content".into(), content);
    part.insert("retry".into(), retry);
    match payload.get("timestamp") {
        // pydantic-ai stamps a part without one with the load time.
        None => {}
        Some(Value::String(text)) if msgflow_wire::Timestamp::parse(text).is_ok() => {
            part.insert("timestamp".into(), Value::String(text.clone()));
        }
        Some(number @ Value::Number(_)) => {
            part.insert("timestamp".into(), number.clone());
        }
        Some(_) => return None,
    }
    part.insert("part_kind".into(), "retry-feedback".into());
    Some(Value::Object(part))
}

/// `structured_content_from_payload`: the `StructuredContent` a text item and the payload beside
/// it make, or the plain text when the payload does not validate. `Err` for a valid payload beside
/// an empty text, which pydantic-ai renders from the value (msgflow does not render yet).
pub(crate) fn structured_content_from_payload(payload: &Value, text: &str) -> Result<Value, &'static str> {
    let plain = Value::String(text.to_owned());
    let Some(payload) = payload.as_object() else {
        return Ok(plain);
    };
    let (Some(value), Some(tag), Some(description)) = (
        payload.get("value"),
        optional_string(payload, "tag"),
        optional_string(payload, "description"),
    ) else {
        return Ok(plain);
    };
    if text.is_empty() {
        return Err("structured content with an empty text (pydantic-ai renders it from the value)");
    }
    Ok(
        serde_json::json!({"content": text, "value": value, "tag": tag, "description": description,
                          "kind": "structured-content"}),
    )
}

/// `parse_tool_retry`: a retry claim with a known cause, else none.
pub(crate) fn parse_tool_retry(value: &Value) -> Value {
    // `ToolRetryCause`.
    const CAUSES: [&str; 4] = ["validation_error", "model_retry", "unknown_tool", "unavailable_tool"];
    let Some(object) = value.as_object() else {
        return Value::Null;
    };
    match (
        value.get("cause").and_then(Value::as_str),
        optional_int(object, "attempt"),
        optional_int(object, "max_retries"),
    ) {
        (Some(cause), Some(attempt), Some(max_retries)) if CAUSES.contains(&cause) => {
            serde_json::json!({"cause": cause, "attempt": attempt, "max_retries": max_retries})
        }
        _ => Value::Null,
    }
}
