//! A history's JSON as pydantic-ai 2.68.0 holds it once loaded, for what the UI adapters write of
//! it: legacy retry prompts as the parts they meant, made-up tool call ids, structured content
//! rendered, typed tool parts validated by their TypedDicts ([`as_loaded`], [`narrowed`]), and
//! tool-return content whose files are rebuilt on load, both ways ([`dumped_tool_content`],
//! [`loaded_tool_output`]).

use base64::Engine as _;
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use super::{field, part_kind};
use crate::unsupported::{Target, Unsupported};

/// The id msgflow gives a tool part without a `tool_call_id`, where pydantic-ai makes up a random
/// `pyd_ai_...` one on load (`_generate_tool_call_id`): the id the provider export and `repair`
/// give it, unique to the part and the same on every run. Read back, it is reported invented.
pub(crate) fn invented_tool_call_id(message: usize, part: usize) -> String {
    format!("msgflow_call_{message}_{part}")
}

/// The tool parts that carry a `tool_call_id` (pydantic-ai makes one up for any left without).
const TOOL_PARTS_WITH_IDS: [&str; 4] = ["tool-call", "builtin-tool-call", "tool-return", "builtin-tool-return"];

/// The history's JSON messages as pydantic-ai 2.68.0 holds them once loaded, for the parts whose
/// loading changes them: a legacy `retry-prompt` is the part it always meant
/// ([`translated_legacy_retry`]), a tool part without a `tool_call_id` gets the id
/// [`invented_tool_call_id`], and structured content stored without its text is rendered
/// ([`render_structured_content`]). Borrowed as it is when nothing changes.
pub(crate) fn as_loaded<T: Target>(history: &[Value]) -> Result<std::borrow::Cow<'_, [Value]>, Unsupported<T>> {
    // Every part of a long history is looked at, so the messages are looked at on rayon's pool;
    // the error is the first in message order, as a scan one by one finds.
    let needs_change: Vec<Result<bool, Unsupported<T>>> = history
        .par_iter()
        .enumerate()
        .map(|(message_index, message)| {
            let mut needs_change = false;
            for (part_index, part) in field(message, "parts").as_array().into_iter().flatten().enumerate() {
                let kind = part_kind(part);
                if kind == "retry-prompt" || (kind == "user-prompt" && holds_unrendered_structured_content(part)) {
                    needs_change = true;
                } else if TOOL_PARTS_WITH_IDS.contains(&kind) {
                    needs_change |= tool_part_needs_defaults(part, kind, (message_index, part_index))?;
                }
            }
            Ok(needs_change)
        })
        .collect();
    let mut any_change = false;
    for message_needs_change in needs_change {
        any_change |= message_needs_change?;
    }
    if !any_change {
        return Ok(std::borrow::Cow::Borrowed(history));
    }
    let mut loaded = history.to_vec();
    for (message_index, message) in loaded.iter_mut().enumerate() {
        let Some(Value::Array(parts)) = message.get_mut("parts") else {
            continue;
        };
        for (part_index, part) in parts.iter_mut().enumerate() {
            let id = invented_tool_call_id(message_index, part_index);
            let kind = part_kind(part);
            if kind == "retry-prompt" {
                let path = format!("$[{message_index}].parts[{part_index}]");
                *part = translated_legacy_retry(part, &path, id)?;
                continue;
            }
            if kind == "user-prompt" {
                let path = format!("$[{message_index}].parts[{part_index}].content");
                render_structured_content(part, &path)?;
                continue;
            }
            if !TOOL_PARTS_WITH_IDS.contains(&kind) {
                continue;
            }
            let route = typed_route(part, kind);
            // A typed part's class names its tool (`search_tools`, ...).
            let default_name = route
                .filter(|_| part.get("tool_name").is_none_or(Value::is_null))
                .map(|route| route.tool_name);
            let typed_args = route
                .filter(|route| route.field == "args")
                .and_then(|route| route.shape.fit_value(field(part, "args").clone()).ok());
            let Value::Object(object) = part else { continue };
            if let Some(args) = typed_args {
                object.insert("args".into(), Value::Object(args));
            }
            if object.get("tool_call_id").is_none_or(Value::is_null) {
                object.insert("tool_call_id".into(), id.into());
            }
            if let Some(name) = default_name {
                object.insert("tool_name".into(), name.into());
            }
        }
    }
    Ok(std::borrow::Cow::Owned(loaded))
}

/// An item whose stored `content` is empty (or left out), which pydantic-ai renders from its value on
/// load (`StructuredContent.__post_init__`).
fn is_unrendered(item: &Value) -> bool {
    field(item, "kind") == "structured-content" && item.get("content").is_none_or(|content| content == "")
}

fn holds_unrendered_structured_content(part: &Value) -> bool {
    field(part, "content")
        .as_array()
        .is_some_and(|items| items.iter().any(is_unrendered))
}

/// Renders each unrendered structured-content item of a user prompt as pydantic-ai does on load
/// (`StructuredContent.render`, its default JSON: the format an item was made with is not stored);
/// refused as pydantic-ai refuses a tag it cannot render under.
fn render_structured_content<T: Target>(part: &mut Value, path: &str) -> Result<(), Unsupported<T>> {
    let Some(Value::Array(items)) = part.get_mut("content") else {
        return Ok(());
    };
    for (index, item) in items.iter_mut().enumerate() {
        if !is_unrendered(item) {
            continue;
        }
        let rendered = msgflow_media::rendered_on_load(
            field(item, "value"),
            field(item, "tag").as_str(),
            field(item, "description").as_str(),
        )
        .map_err(|err| {
            Unsupported::not_loaded(
                format!("{path}[{index}].tag"),
                "this structured content without its rendered text",
                &format!("rendering it on load raises `ValueError: {err}`"),
            )
        })?;
        if let Value::Object(object) = item {
            object.insert("content".into(), rendered.into());
        }
    }
    Ok(())
}

/// Whether a tool part loads with values pydantic-ai fills in (a made-up `tool_call_id`, a typed
/// part's `tool_name`); refused as pydantic-ai refuses it when it does not load at all.
fn tool_part_needs_defaults<T: Target>(
    part: &Value,
    kind: &str,
    (message, index): (usize, usize),
) -> Result<bool, Unsupported<T>> {
    // The path is written only for a refusal: this runs on every tool part of every history.
    let path = || format!("$[{message}].parts[{index}]");
    let missing = |key: &str| field(part, key).is_null();
    if missing("tool_name") {
        let typed = field(part, "tool_kind")
            .as_str()
            .is_some_and(|tool_kind| msgflow_wire::TypedRoute::find(kind, tool_kind).is_some());
        if !typed {
            return Err(Unsupported::not_loaded(
                format!("{}.tool_name", path()),
                &format!("a `{kind}` part without a `tool_name`"),
                "the field is required",
            ));
        }
    }
    if let Some(route) = typed_route(part, kind) {
        // The typed class validates its field on load: arguments as an object (text is left to the
        // typed part's reader), a successful return's content always.
        let data = field(part, route.field);
        let checked = match route.field {
            "args" => data.is_object(),
            _ => !route.outcome_success_only || field(part, "outcome").as_str().unwrap_or("success") == "success",
        };
        if checked && route.shape.fit_value(data.clone()).is_err() {
            return Err(Unsupported::not_loaded(
                format!("{}.{}", path(), route.field),
                &format!(
                    "a `{}` whose `{}` does not fit `{}`",
                    route.class, route.field, route.shape.name
                ),
                "the typed part validates it",
            ));
        }
    }
    if kind.ends_with("call") && !matches!(field(part, "args"), Value::Null | Value::String(_) | Value::Object(_)) {
        return Err(Unsupported::not_loaded(
            format!("{}.args", path()),
            "tool call arguments that are neither text nor an object",
            "`args` is `str | dict[str, Any] | None`",
        ));
    }
    // A typed call's object arguments are held as its TypedDict validated them (declared keys first).
    let typed_args = kind.ends_with("call") && field(part, "args").is_object() && typed_route(part, kind).is_some();
    Ok(missing("tool_call_id") || missing("tool_name") || typed_args)
}

/// The typed route pydantic-ai reads a tool part by, from its `tool_kind`.
fn typed_route(part: &Value, kind: &str) -> Option<&'static msgflow_wire::TypedRoute> {
    field(part, "tool_kind")
        .as_str()
        .and_then(|tool_kind| msgflow_wire::TypedRoute::find(kind, tool_kind))
}

/// A legacy `retry-prompt` as pydantic-ai loads it ([`translated_legacy_retry`]), for the loss
/// report to compare with what came back; without a `tool_call_id` where it has none (pydantic-ai
/// makes one up). `None` for content pydantic-ai does not load.
pub(crate) fn legacy_retry_as_loaded(part: &Value) -> Option<Value> {
    struct Compared;
    impl Target for Compared {
        const NAME: &'static str = "the loss report";
    }
    let mut translated = translated_legacy_retry::<Compared>(part, "$", String::new()).ok()?;
    if field(part, "tool_call_id").is_null() {
        if let Value::Object(object) = &mut translated {
            object.remove("tool_call_id");
        }
    }
    Some(translated)
}

/// `_translate_legacy_retry_part` (`pydantic_ai.messages`), which pydantic-ai runs on every stored
/// `retry-prompt` it loads: one naming a tool is that call's return again (`outcome='retried'`, its
/// validation errors as `_dump_error_details` writes them, `retry.cause` `validation_error`); any
/// other is retry feedback (`model_retry` for text, `validation_error` for errors). `invented_id` is
/// the id of a tool retry without one.
fn translated_legacy_retry<T: Target>(part: &Value, path: &str, invented_id: String) -> Result<Value, Unsupported<T>> {
    let not_loaded = || {
        Unsupported::not_loaded(
            format!("{path}.content"),
            "a legacy retry prompt",
            "its content is neither text nor a list of validation error details",
        )
    };
    let content = field(part, "content");
    let timestamp = field(part, "timestamp").clone();
    if !field(part, "tool_name").is_null() {
        let (content, retry) = match content {
            Value::String(_) => (content.clone(), Value::Null),
            details => (
                msgflow_providers::dumped_error_details(details).ok_or_else(not_loaded)?,
                json!({"cause": "validation_error", "attempt": null, "max_retries": null}),
            ),
        };
        let tool_call_id = match field(part, "tool_call_id") {
            Value::Null => Value::String(invented_id),
            id => id.clone(),
        };
        return Ok(json!({
            "tool_name": part["tool_name"], "content": content, "tool_call_id": tool_call_id,
            "timestamp": timestamp, "outcome": "retried", "retry": retry, "part_kind": "tool-return",
        }));
    }
    let (content, cause) = match content {
        Value::String(_) => (content.clone(), "model_retry"),
        Value::Array(details) => {
            // Each error as `ErrorDetails` validates it (a lax `loc`), in its key order.
            let validated = details
                .iter()
                .map(|detail| {
                    msgflow_providers::dumped_error_details(&Value::Array(vec![detail.clone()]))
                        .and_then(|mut one| one.get_mut(0).map(Value::take))
                })
                .collect::<Option<Vec<Value>>>()
                .ok_or_else(not_loaded)?;
            (Value::Array(validated), "validation_error")
        }
        _ => return Err(not_loaded()),
    };
    let mut feedback = Map::new();
    feedback.insert("content".into(), content);
    feedback.insert(
        "retry".into(),
        json!({"cause": cause, "attempt": null, "max_retries": null}),
    );
    if !timestamp.is_null() {
        feedback.insert("timestamp".into(), timestamp);
    }
    feedback.insert("part_kind".into(), "retry-feedback".into());
    Ok(Value::Object(feedback))
}

/// The `tool_kind` a tool part has once pydantic-ai loaded it (`_narrow_call`, `_narrow_return`),
/// and, when the kind routes it to a typed part, its `field` (`args` or `content`) as the TypedDict
/// validated it. pydantic-ai strips one of its own kinds that the data does not substantiate: call
/// arguments as an object (JSON text is left to the typed part's reader), or a successful return's
/// content (parsed from JSON text).
pub(crate) fn narrowed(part: &Value, typed_field: &str) -> (Value, Option<Value>) {
    let tool_kind = field(part, "tool_kind").clone();
    let Some(route) = tool_kind
        .as_str()
        .and_then(|kind| msgflow_wire::TypedRoute::find(part_kind(part), kind))
    else {
        return (tool_kind, None);
    };
    let value = field(part, typed_field);
    let data = match (typed_field, value) {
        ("args", Value::Object(_)) => value.clone(),
        ("args", _) => return (tool_kind, None),
        _ if field(part, "outcome").as_str().unwrap_or("success") != "success" => return (tool_kind, None),
        (_, Value::String(text)) => serde_json::from_str(text).unwrap_or_else(|_| value.clone()),
        _ => value.clone(),
    };
    match route.shape.fit_value(data) {
        // A call's arguments are kept exactly as the model sent them.
        Ok(fitted) if typed_field == "content" => (tool_kind, Some(Value::Object(fitted))),
        Ok(_) => (tool_kind, None),
        Err(_) => (Value::Null, None),
    }
}

/// `tool_return_output` (vercel-ui) / `dump_tool_return_content` (ag-ui): a tool return's content as
/// pydantic-ai loads it (its file items rebuilt as the part's `content_file_digests` admits them) and
/// dumps it: each file as its dump (media type and identifier computed), everything else as written.
pub(crate) fn dumped_tool_content(part: &Value) -> Value {
    use crate::otel::tool_content::{recorded, FileRecord};
    recorded(field(part, "content"), &FileRecord::of(part))
}

/// `client_error_text` of a return whose content holds files: `model_response_str(wrap_if_error=False)`,
/// which leaves the files out (`_unwrap_data`: the content's own files, or a list's file items, a
/// single item left unwrapped) and writes the rest as text (`_tool_return_text`), each item as
/// pydantic-ai loads and dumps it.
pub(crate) fn error_text_with_files(part: &Value) -> String {
    use crate::otel::tool_content::{loads_as_file, recorded, FileRecord};
    let record = FileRecord::of(part);
    let content = field(part, "content");
    let data = match content {
        _ if loads_as_file(content, &record) => Value::Null,
        Value::Array(items) => {
            let data: Vec<Value> = items
                .iter()
                .filter(|item| !loads_as_file(item, &record))
                .map(|item| recorded(item, &record))
                .collect();
            let had_files = data.len() < items.len();
            match data.len() {
                0 => Value::Null,
                1 if had_files => data.into_iter().next().unwrap_or(Value::Null),
                _ => Value::Array(data),
            }
        }
        other => recorded(other, &record),
    };
    match data {
        Value::Null => String::new(),
        Value::String(text) => text,
        other => msgflow_providers::python_json(&other),
    }
}

/// `_js_binary_to_bytes`: the bytes of a Node `Buffer` (`{"type": "Buffer", "data": [N, ...]}`) or
/// of a `Uint8Array` as `JSON.stringify` writes it (`{"0": N, "1": N, ...}`, every key from `"0"`
/// on), each `N` an integer from 0 to 255 (`true` and `false` are Python's 1 and 0); `None` for
/// anything else, which pydantic-ai passes on as it is.
fn js_binary_bytes(data: &Value) -> Option<Vec<u8>> {
    let byte = |value: &Value| match value {
        Value::Bool(flag) => Some(u8::from(*flag)),
        Value::Number(number) => number.as_u64().and_then(|number| u8::try_from(number).ok()),
        _ => None,
    };
    let mapping = data.as_object()?;
    if mapping.get("type").is_some_and(|kind| kind == "Buffer") {
        if let Some(Value::Array(values)) = mapping.get("data") {
            if let Some(bytes) = values.iter().map(byte).collect::<Option<Vec<u8>>>() {
                return Some(bytes);
            }
        }
    }
    if mapping.is_empty() {
        return None;
    }
    (0..mapping.len())
        .map(|index| mapping.get(&index.to_string()).and_then(byte))
        .collect()
}

/// `_validate_tool_output` (vercel-ui, `client_shapes`) / `rehydrate_tool_return_content` (ag-ui):
/// tool output from a client as `tool_return_content_ta` validates it, left to right: every mapping
/// that is a file item (`MultiModalContent`, a URL item only with a `media_type` that is a non-empty
/// string or null) becomes that file, as it dumps; any other mapping or list is searched further.
/// With `client_shapes`, a URL item's missing media type is inferred first and a binary item's
/// JavaScript byte array read as its bytes (`_normalize_client_file_shapes`). Returns the content
/// and its `content_file_digests` (the digests of its URL and uploaded-file items).
pub(crate) fn loaded_tool_output(output: &Value, client_shapes: bool) -> (Value, Vec<String>) {
    fn walk(value: &Value, client_shapes: bool, digests: &mut Vec<String>) -> Value {
        use crate::otel::tool_content::{binary, uploaded_file, url_item};
        match value {
            Value::Array(items) => Value::Array(items.iter().map(|item| walk(item, client_shapes, digests)).collect()),
            Value::Object(object) => {
                let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
                let mut object = std::borrow::Cow::Borrowed(object);
                let file = match kind {
                    "binary" => {
                        if client_shapes && object.contains_key("media_type") {
                            match object.get("data") {
                                // A JavaScript byte array is its bytes; any other object stays as it
                                // is (and no file then).
                                Some(data @ Value::Object(_)) => {
                                    if let Some(bytes) = js_binary_bytes(data) {
                                        let data = base64::engine::general_purpose::URL_SAFE.encode(bytes);
                                        object.to_mut().insert("data".into(), data.into());
                                    }
                                }
                                // `normalized['data'] = _js_binary_to_bytes(normalized.get('data'))`
                                // writes the key it did not find, as null.
                                None => {
                                    object.to_mut().insert("data".into(), Value::Null);
                                }
                                Some(_) => {}
                            }
                        }
                        binary(&object)
                    }
                    "image-url" | "audio-url" | "video-url" | "document-url" => {
                        // The inferred media type is written only into a mapping that is the file.
                        let mut object = object.as_ref().clone();
                        let open = matches!(object.get("media_type"), None | Some(Value::Null))
                            || object.get("media_type").and_then(Value::as_str) == Some("");
                        if client_shapes && open {
                            let url_kind = match kind {
                                "image-url" => msgflow_media::UrlKind::Image,
                                "audio-url" => msgflow_media::UrlKind::Audio,
                                "video-url" => msgflow_media::UrlKind::Video,
                                _ => msgflow_media::UrlKind::Document,
                            };
                            if let Some(url) = object.get("url").and_then(Value::as_str) {
                                if let Some(inferred) = msgflow_media::url_item_media_type(url_kind, None, url) {
                                    object.insert("media_type".into(), inferred.into());
                                }
                            }
                        }
                        // `_RequireUrlMediaType`: the key, as a non-empty string or null.
                        let carries = match object.get("media_type") {
                            Some(Value::Null) => true,
                            Some(Value::String(media_type)) => !media_type.is_empty(),
                            _ => false,
                        };
                        carries.then(|| url_item(&object, kind, false)).flatten()
                    }
                    "uploaded-file" => uploaded_file(&object),
                    _ => None,
                };
                match file {
                    Some(file) => {
                        if kind != "binary" {
                            digests.push(msgflow_media::file_item_digest(&file));
                        }
                        file
                    }
                    None => Value::Object(
                        object
                            .iter()
                            .map(|(key, item)| (key.clone(), walk(item, client_shapes, digests)))
                            .collect(),
                    ),
                }
            }
            other => other.clone(),
        }
    }
    let mut digests = Vec::new();
    let content = walk(output, client_shapes, &mut digests);
    digests.sort_unstable();
    digests.dedup();
    (content, digests)
}
