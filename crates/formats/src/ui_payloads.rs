//! The payloads pydantic-ai's UI adapters carry its own parts in through a client, both ways
//! (`pydantic_ai.ui._adapter`: `compaction_payload` / `compaction_part_from_payload`, the delta
//! payloads, `retry_feedback_payload` / `retry_feedback_from_payload`, `structured_content_*`,
//! `parse_tool_retry`), shared by the vercel-ui and ag-ui writers and readers. Reading, a payload
//! that does not validate gives what pydantic-ai gives: nothing, an empty change or the plain text.

use serde_json::{json, Map, Value};

use crate::object::value_field as field;
use crate::unsupported::{Target, Unsupported};

mod loaded;

pub(crate) use loaded::{
    as_loaded, dumped_tool_content, error_text_with_files, legacy_retry_as_loaded, loaded_tool_output, narrowed,
};

/// The key of pydantic-ai's own values in Vercel AI `providerMetadata` and `UIMessage.metadata`
/// (`PROVIDER_METADATA_KEY`).
pub(crate) const PROVIDER_METADATA_KEY: &str = "pydantic_ai";

pub(crate) fn part_kind(part: &Value) -> &str {
    crate::object::value_field(part, "part_kind").as_str().unwrap_or("")
}

/// `dump_provider_metadata`: the keyword values that are not `None`, under `pydantic_ai`, or
/// `None` when there is none.
pub(crate) fn provider_metadata(entries: &[(&str, Value)]) -> Option<Value> {
    let inner = bare_metadata(entries)?;
    Some(json!({ PROVIDER_METADATA_KEY: inner }))
}

/// `dump_provider_metadata(wrapper_key=None, ...)`.
pub(crate) fn bare_metadata(entries: &[(&str, Value)]) -> Option<Value> {
    let inner: Map<String, Value> = entries
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect();
    (!inner.is_empty()).then_some(Value::Object(inner))
}

/// The datetime pydantic-ai reads from a history's `timestamp` (at `path`): `None` when it is
/// absent or null; a datetime text, or a Unix time as a number or text ([`msgflow_wire::Timestamp::parts`]).
pub(crate) fn timestamp_parts<T: crate::unsupported::Target>(
    timestamp: &Value,
    path: &str,
) -> Result<Option<msgflow_wire::TimestampParts>, crate::unsupported::Unsupported<T>> {
    let text = match timestamp {
        Value::Null => return Ok(None),
        Value::String(text) => text.as_str(),
        Value::Number(number) => number.as_str(),
        _ => "",
    };
    msgflow_wire::Timestamp::parse(text)
        .ok()
        .and_then(|parsed| parsed.parts())
        .map(Some)
        .ok_or_else(|| {
            crate::unsupported::Unsupported::at(format!("{path}.timestamp"), "a timestamp that is not a datetime")
        })
}

/// `part_canonical_system`: the response's `canonical_system` beside a part from its own provider.
pub(crate) fn canonical_system(response: &Value, provider_name: &Value) -> Value {
    if !provider_name.is_null() && provider_name == field(response, "provider_name") {
        field(response, "canonical_system").clone()
    } else {
        Value::Null
    }
}

/// `compaction_payload` (`pydantic_ai.ui._adapter`): the part's fields that are not `None`, with
/// the response's `canonical_system` when it applies to the part.
pub(crate) fn compaction_payload(part: &Value, canonical_system: Value) -> Value {
    bare_metadata(&[
        ("content", field(part, "content").clone()),
        ("id", field(part, "id").clone()),
        ("provider_name", field(part, "provider_name").clone()),
        ("provider_details", field(part, "provider_details").clone()),
        ("canonical_system", canonical_system),
        ("metadata", field(part, "metadata").clone()),
    ])
    .unwrap_or_else(|| json!({}))
}

/// A `RetryFeedbackPart`: the text the model is shown (`model_response()`), whether it speaks
/// for the harness (`_retry_feedback_speaks_for_the_harness`: the system voice), and
/// `retry_feedback_payload` of the part (`pydantic_ai.ui._adapter`): the part as pydantic dumps it,
/// each error's `ctx` left out.
pub(crate) fn retry_feedback<T: Target>(part: &Value, path: &str) -> Result<(String, bool, Value), Unsupported<T>> {
    let content = field(part, "content");
    let cause = field(field(part, "retry"), "cause").as_str().unwrap_or("");
    let (text, harness) = msgflow_providers::retry_feedback_model_response(content, cause).ok_or_else(|| {
        Unsupported::at(
            format!("{path}.content"),
            "retry feedback whose content or cause pydantic-ai does not load",
        )
    })?;
    // `ErrorDetails` in its key order, without `ctx`.
    let content = match content {
        Value::Array(details) => Value::Array(
            details
                .iter()
                .map(|detail| {
                    Value::Object(
                        ["type", "loc", "msg", "input", "url"]
                            .iter()
                            .filter_map(|key| Some(((*key).to_owned(), detail.get(*key)?.clone())))
                            .collect(),
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    };
    // Without one, pydantic-ai stamps the feedback with the time it loads the history; msgflow
    // with the time of the conversion (which the read-back reports as invented).
    let timestamp = match timestamp_parts(field(part, "timestamp"), path)? {
        Some(parts) => msgflow_wire::Timestamp::from_parts(parts),
        None => msgflow_wire::Timestamp::now(),
    };
    let retry = field(part, "retry");
    let payload = json!({
        "content": content,
        "retry": {"cause": cause, "attempt": field(retry, "attempt"), "max_retries": field(retry, "max_retries")},
        "timestamp": timestamp.as_written(),
        "part_kind": "retry-feedback",
    });
    Ok((text, harness, payload))
}

/// `get_mcp_app_tool_result` then `mcp_app_ui_payload` (`pydantic_ai._mcp_apps`,
/// `pydantic_ai.ui._utils`): the payload both UI adapters send a front end for the MCP Apps record
/// `MCPToolset` attaches to a tool return's `metadata` (`mcp_app`), or `None` when there is none
/// that validates as `MCPAppToolResult` (a `resource_uri`, `tool_input` and `result` objects, a
/// `toolset_id` text or null; other keys ignored).
pub(crate) fn mcp_app_payload(metadata: &Value) -> Option<Value> {
    let app = metadata.get("mcp_app")?.as_object()?;
    let resource_uri = app.get("resource_uri")?.as_str()?;
    let tool_input = app.get("tool_input").filter(|input| input.is_object())?;
    let result = app.get("result").filter(|result| result.is_object())?;
    let toolset_id = match app.get("toolset_id")? {
        Value::Null => None,
        Value::String(id) => Some(id),
        _ => return None,
    };
    let mut payload = Map::new();
    payload.insert("resourceUri".into(), resource_uri.into());
    payload.insert("toolInput".into(), msgflow_providers::python_value(tool_input.clone()));
    payload.insert("result".into(), msgflow_providers::python_value(result.clone()));
    // The MCP Apps middleware names the server by both; the toolset id fills both.
    if let Some(id) = toolset_id {
        payload.insert("serverId".into(), id.clone().into());
        payload.insert("serverHash".into(), id.clone().into());
    }
    Some(Value::Object(payload))
}

/// `tool_retry_payload` (`pydantic_ai.ui._adapter`): a retried return's `retry` as `RetryInfo`
/// dumps it, its declared fields in their order without the `None` ones (other keys a history
/// carries are not `RetryInfo`'s).
pub(crate) fn tool_retry_payload(retry: &Value) -> Map<String, Value> {
    ["cause", "attempt", "max_retries"]
        .iter()
        .filter_map(|key| {
            let value = field(retry, key);
            (!value.is_null()).then(|| ((*key).to_owned(), value.clone()))
        })
        .collect()
}

/// `tool_availability_delta_payload`, `capability_load_delta_payload`, `model_settings_delta_payload`
/// (`pydantic_ai.ui._adapter`): what a delta part carries through the client.
pub(crate) fn delta_payload(part: &Value) -> Value {
    let tool_call_id = field(part, "tool_call_id").clone();
    match part_kind(part) {
        "tool-availability-delta" => {
            // `tools_added` also answers to its alias `added` in a stored part.
            let added = part.get("tools_added").or_else(|| part.get("added"));
            json!({"added": added.cloned().unwrap_or_else(|| json!([])), "tool_call_id": tool_call_id})
        }
        "capability-load-delta" => {
            json!({"loaded": part.get("loaded").cloned().unwrap_or_else(|| json!([])), "tool_call_id": tool_call_id})
        }
        _ => {
            // `RecordedModelSettings` holds `thinking` only: validation leaves other keys out.
            let settings: Map<String, Value> = field(part, "settings")
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(key, _)| key.as_str() == "thinking")
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            json!({"settings": settings, "top_level": msgflow_wire::lax::boolean(field(part, "top_level")).unwrap_or(false)})
        }
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
/// validate is an empty change, and tool names of the wrong shape are left out. Beside it, what of
/// the payload it leaves out, by path within the payload (`""`: all of it; `.tools_added[2]`).
pub(crate) fn tool_availability_delta_from_payload(payload: &Map<String, Value>) -> (Value, Vec<String>) {
    // `tools_added` also answers to the alias `added`, which the payload uses.
    let key = if payload.contains_key("tools_added") {
        "tools_added"
    } else {
        "added"
    };
    let validated = (|| {
        if payload
            .get("part_kind")
            .is_some_and(|kind| kind != "tool-availability-delta")
        {
            return None;
        }
        let added = match payload.get(key) {
            None => Vec::new(),
            Some(value) => string_list(value)?,
        };
        Some((added, optional_string(payload, "tool_call_id")?))
    })();
    let Some((added, tool_call_id)) = validated else {
        let left_out = if payload.is_empty() {
            Vec::new()
        } else {
            vec![String::new()]
        };
        let delta =
            serde_json::json!({"tools_added": [], "tool_call_id": null, "part_kind": "tool-availability-delta"});
        return (delta, left_out);
    };
    // Keys the delta has no field for, and `added` beside `tools_added`, are not read.
    let mut left_out: Vec<String> = payload
        .keys()
        .filter(|other| !matches!(other.as_str(), "tool_call_id" | "part_kind") && *other != key)
        .map(|other| crate::loss::key_path("", other))
        .collect();
    let mut kept = Vec::with_capacity(added.len());
    for (index, name) in added.into_iter().enumerate() {
        if is_tool_name(&name) {
            kept.push(name);
        } else {
            left_out.push(format!(".{key}[{index}]"));
        }
    }
    let delta = serde_json::json!({"tools_added": kept, "tool_call_id": non_blank(tool_call_id),
                                   "part_kind": "tool-availability-delta"});
    (delta, left_out)
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

/// What of a compaction's, capability-load or model-settings delta's payload its `*_from_payload`
/// does not read, by path within the payload (`.key`): keys the part has no field for (beside a
/// compaction, its `canonical_system`), and settings other than `thinking` (a
/// `RecordedModelSettings` keeps that one only).
pub(crate) fn payload_left_out(payload: &Map<String, Value>, part_kind: &str) -> Vec<String> {
    let fields: &[&str] = match part_kind {
        "compaction" => &[
            "content",
            "id",
            "provider_name",
            "provider_details",
            "metadata",
            "part_kind",
            "canonical_system",
        ],
        "capability-load-delta" => &["loaded", "tool_call_id", "part_kind"],
        _ => &["settings", "top_level", "part_kind"],
    };
    let mut left_out: Vec<String> = payload
        .keys()
        .filter(|key| !fields.contains(&key.as_str()))
        .map(|key| crate::loss::key_path("", key))
        .collect();
    if let Some(Value::Object(settings)) = payload.get("settings").filter(|_| part_kind == "model-settings-delta") {
        left_out.extend(
            settings
                .keys()
                .filter(|key| *key != "thinking")
                .map(|key| crate::loss::key_path(".settings", key)),
        );
    }
    left_out
}

/// `model_settings_delta_from_payload`: the change a UI payload gives, or `None` when it does not
/// validate (a `RecordedModelSettings` keeps `thinking` only) or records nothing.
pub(crate) fn model_settings_delta_from_payload(payload: &Map<String, Value>) -> Option<Value> {
    let settings = payload.get("settings")?.as_object()?;
    let top_level = match payload.get("top_level") {
        None => false,
        Some(value) => msgflow_wire::lax::boolean(value)?,
    };
    let mut recorded = Map::new();
    if let Some(thinking) = settings.get("thinking") {
        match thinking {
            Value::Null => {}
            Value::String(effort) if msgflow_wire::ThinkingEffort::KNOWN.contains(&effort.as_str()) => {}
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

/// An `int | None` as pydantic validates it in lax mode (`"4"`, `4.0` and `true` are integers).
fn optional_int(object: &Map<String, Value>, key: &str) -> Option<Value> {
    match object.get(key) {
        None | Some(Value::Null) => Some(Value::Null),
        Some(value) => msgflow_wire::lax::int(value),
    }
}

/// An item as pydantic-core's `ErrorDetails` validates it (its `loc` items `int | str`), or `None`
/// when it does not.
fn error_details(item: &Value) -> Option<Value> {
    let detail = item.as_object()?;
    let loc = detail
        .get("loc")?
        .as_array()?
        .iter()
        .map(msgflow_wire::lax::int_or_str)
        .collect::<Option<Vec<Value>>>()?;
    let loads = detail.get("type").is_some_and(Value::is_string)
        && detail.get("msg").is_some_and(Value::is_string)
        && detail.contains_key("input")
        && detail.get("ctx").is_none_or(Value::is_object)
        && detail.get("url").is_none_or(Value::is_string);
    let mut detail = detail.clone();
    detail.insert("loc".into(), Value::Array(loc));
    loads.then_some(Value::Object(detail))
}

/// `retry_feedback_from_payload` (`pydantic_ai.ui._adapter`): the `RetryFeedbackPart` a dumped
/// message claims to have been made from, or `None` for a claim that does not validate (the
/// message is then read as the plain text a client wrote).
pub(crate) fn retry_feedback_from_payload(payload: &Value) -> Option<Value> {
    let payload = payload.as_object()?;
    let content = match payload.get("content")? {
        text @ Value::String(_) => text.clone(),
        Value::Array(items) => Value::Array(items.iter().map(error_details).collect::<Option<_>>()?),
        _ => return None,
    };
    let retry = payload.get("retry")?.as_object()?;
    let cause = retry.get("cause")?.as_str()?;
    if !msgflow_wire::RETRY_FEEDBACK_CAUSE_LITERALS.contains(&cause) {
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

/// What of a `retry_feedback` claim [`retry_feedback_from_payload`] does not read, by path within
/// the claim (`.key`): `""`, all of it, where it does not validate (the part is read as its text),
/// else the keys the part and its `retry` have no field for.
pub(crate) fn retry_feedback_left_out(payload: &Value) -> Vec<String> {
    if payload.is_null() {
        return Vec::new();
    }
    let Some(payload) = payload
        .as_object()
        .filter(|_| retry_feedback_from_payload(payload).is_some())
    else {
        return vec![String::new()];
    };
    let mut left_out: Vec<String> = payload
        .keys()
        .filter(|key| !matches!(key.as_str(), "content" | "retry" | "part_kind" | "timestamp"))
        .map(|key| crate::loss::key_path("", key))
        .collect();
    if let Some(Value::Object(retry)) = payload.get("retry") {
        left_out.extend(
            retry
                .keys()
                .filter(|key| !matches!(key.as_str(), "cause" | "attempt" | "max_retries"))
                .map(|key| crate::loss::key_path(".retry", key)),
        );
    }
    left_out
}

/// `parse_tool_kind`: a claimed `tool_kind` only when it names a kind pydantic-ai defines.
pub(crate) fn parse_tool_kind(claim: &Value) -> Value {
    match claim.as_str() {
        Some(kind) if msgflow_wire::TypedRoute::is_defined_kind(kind) => claim.clone(),
        _ => Value::Null,
    }
}

/// `parse_tool_retry`: a retry claim with a known cause, else none.
pub(crate) fn parse_tool_retry(value: &Value) -> Value {
    let Some(object) = value.as_object() else {
        return Value::Null;
    };
    match (
        value.get("cause").and_then(Value::as_str),
        optional_int(object, "attempt"),
        optional_int(object, "max_retries"),
    ) {
        (Some(cause), Some(attempt), Some(max_retries)) if msgflow_wire::TOOL_RETRY_CAUSE_LITERALS.contains(&cause) => {
            serde_json::json!({"cause": cause, "attempt": attempt, "max_retries": max_retries})
        }
        _ => Value::Null,
    }
}

/// `structured_content_from_payload`: the `StructuredContent` a text item and the payload beside
/// it make, or the plain text when the payload does not validate. Beside an empty text the item's
/// `content` is rendered from the value (`StructuredContent.__post_init__`), where a tag
/// pydantic-ai refuses fails the validation and leaves the plain text.
pub(crate) fn structured_content_from_payload(payload: &Value, text: &str) -> Value {
    let plain = Value::String(text.to_owned());
    let Some(payload) = payload.as_object() else {
        return plain;
    };
    let (Some(value), Some(tag), Some(description)) = (
        payload.get("value"),
        optional_string(payload, "tag"),
        optional_string(payload, "description"),
    ) else {
        return plain;
    };
    let content = if text.is_empty() {
        let mut builder = msgflow_media::structured_content(value.clone());
        if let Value::String(tag) = &tag {
            builder = builder.tag(tag.as_str());
        }
        if let Value::String(description) = &description {
            builder = builder.description(description.as_str());
        }
        match builder.build() {
            Ok(item) => item.content.get().cloned().unwrap_or_default(),
            Err(_) => return plain,
        }
    } else {
        text.to_owned()
    };
    serde_json::json!({"content": content, "value": value, "tag": tag, "description": description,
                       "kind": "structured-content"})
}
