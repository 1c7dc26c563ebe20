//! A history to Vercel AI `UIMessage`s, as pydantic-ai 2.68.0's `VercelAIAdapter.dump_messages`
//! (`pydantic_ai.ui.vercel_ai._adapter`) writes them, on the history's JSON.

use std::collections::HashMap;

use base64::Engine as _;
use msgflow_media::UrlKind;
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use super::citations::text_metadata;
use super::part_defaults;
use super::{Unsupported, INTERNAL_KEY, PROVIDER_METADATA_KEY};
use crate::object::value_field as field;
use crate::ui_payloads::{
    as_loaded, bare_metadata, canonical_system, compaction_payload, delta_payload, dumped_tool_content,
    error_text_with_files, narrowed, part_kind, provider_metadata, retry_feedback, timestamp_parts, tool_retry_payload,
};
use ids::{fresh_id_recipe, id_recipe, Unnumbered};

mod ids;

/// `_USER_PROMPT_START_KEY`: marks where a request's second or later `UserPromptPart` begins.
pub(super) const USER_PROMPT_START_KEY: &str = "user_prompt_start";
/// `ToolDenied().message`, the reason of a denial that gives none.
pub(super) const DEFAULT_DENIAL: &str = "The tool call was denied.";
/// `COMPACTION_DATA_TYPE`: the data part a compaction part rides in.
pub(super) const COMPACTION_DATA_TYPE: &str = "data-compaction";
/// `MCP_APPS_DATA_TYPE`: the data part an MCP App's payload rides in.
const MCP_APPS_DATA_TYPE: &str = "data-mcp-apps";

/// `dump_messages(messages, sdk_version=...)`: one `UIMessage` per run of same-role request parts
/// and one per response. `history` is the history's JSON array.
/// Each UI message comes with the index of the history message it was written from.
pub(super) fn dump(history: &[Value], sdk_version: u8) -> Result<Vec<(Value, usize)>, Unsupported> {
    // Legacy retry prompts translated and missing tool call ids made up, as pydantic-ai loads them.
    let history = as_loaded(history)?;
    let history = &*history;
    // The returns are borrowed from the history (they hold the largest strings).
    // Found on rayon's pool, and kept in history order: a later return of one id wins.
    let returns: Vec<(&str, &Value)> = history
        .par_iter()
        .filter(|message| kind(message) == "request")
        .flat_map_iter(|message| {
            parts(message)
                .iter()
                .filter(|part| part_kind(part) == "tool-return")
                .filter_map(|part| Some((crate::object::field_of(part, "tool_call_id")?.as_str()?, part)))
        })
        .collect();
    let tool_results: HashMap<&str, &Value> = returns.into_iter().collect();
    // Each history message is written on its own, on rayon's pool; only a fresh id needs the
    // number of UI messages before it, so ids are made once every message's count is known.
    let written: Vec<Result<Vec<Unnumbered>, Unsupported>> = history
        .par_iter()
        .enumerate()
        .map(|(index, message)| ui_messages(message, index, &tool_results, sdk_version))
        .collect();
    // The first error in message order, as writing the messages one by one stops at.
    let written = written.into_iter().collect::<Result<Vec<_>, _>>()?;
    let mut first_numbers = Vec::with_capacity(written.len());
    let mut count = 0;
    for messages in &written {
        first_numbers.push(count);
        count += messages.len();
    }
    let numbered: Vec<Vec<(Value, usize)>> = written
        .into_par_iter()
        .zip(first_numbers)
        .enumerate()
        .map(|(index, (messages, first_number))| {
            (first_number..)
                .zip(messages)
                .map(|(number, message)| (message.numbered(number), index))
                .collect()
        })
        .collect();
    Ok(numbered.into_iter().flatten().collect())
}

/// The UI messages of history message `index`, `message`: one per run of same-role request parts,
/// or one for a response that shows anything.
fn ui_messages(
    message: &Value,
    index: usize,
    tool_results: &HashMap<&str, &Value>,
    sdk_version: u8,
) -> Result<Vec<Unnumbered>, Unsupported> {
    let path = format!("$[{index}]");
    if kind(message) == "request" {
        let segments = request_segments(message, &path)?;
        let metadata = message_metadata(message, &path)?;
        let last_user = segments.iter().rposition(|(role, _)| *role == "user");
        let metadata_position = last_user.unwrap_or(segments.len().saturating_sub(1));
        let count = segments.len();
        let mut written = Vec::with_capacity(count);
        for (position, (role, ui_parts)) in segments.into_iter().enumerate() {
            let id = if position + 1 < count {
                fresh_id_recipe(message, "request", role, &path)?
            } else {
                id_recipe(message, "request", role, &path)?
            };
            written.push(Unnumbered {
                id,
                role,
                metadata: (!metadata.is_empty() && position == metadata_position).then(|| metadata.clone()),
                parts: ui_parts,
            });
        }
        Ok(written)
    } else {
        let ui_parts = response_parts(message, tool_results, sdk_version, &path)?;
        if ui_parts.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![Unnumbered {
            id: id_recipe(message, kind(message), "assistant", &path)?,
            role: "assistant",
            metadata: Some(message_metadata(message, &path)?),
            parts: ui_parts,
        }])
    }
}

pub(crate) fn kind(message: &Value) -> &str {
    field(message, "kind").as_str().unwrap_or("request")
}

pub(crate) fn parts(message: &Value) -> &[Value] {
    field(message, "parts").as_array().map_or(&[], Vec::as_slice)
}

/// Whether a request holds only what shows as nothing of its own (tool returns and their retries,
/// instruction state): the request between two steps of one turn.
pub(super) fn is_tool_returns_only(message: &Value) -> bool {
    parts(message).iter().all(|part| match part_kind(part) {
        "tool-return" | "instruction-delta" | "instruction-baseline" => true,
        "retry-prompt" => !field(part, "tool_name").is_null(),
        _ => false,
    })
}

fn insert_metadata(object: &mut Map<String, Value>, key: &str, metadata: Option<Value>) {
    if let Some(metadata) = metadata {
        object.insert(key.to_owned(), metadata);
    }
}

/// `_dump_request_message`: the request's (role, UI parts) segments, one per run of same-role parts.
fn request_segments(message: &Value, path: &str) -> Result<Vec<(&'static str, Vec<Value>)>, Unsupported> {
    let mut segments: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut add = |role: &'static str, ui_parts: Vec<Value>| match segments.last_mut() {
        Some((last, existing)) if *last == role => existing.extend(ui_parts),
        _ if !ui_parts.is_empty() => segments.push((role, ui_parts)),
        _ => {}
    };
    let mut seen_user_prompt = false;
    for (index, part) in parts(message).iter().enumerate() {
        let part_path = format!("{path}.parts[{index}]");
        match part_kind(part) {
            "system-prompt" => {
                if field(part, "scope").as_str() != Some("request") {
                    add(
                        "system",
                        vec![json!({"type": "text", "text": part["content"], "state": "done"})],
                    );
                }
            }
            "user-prompt" => {
                add("user", user_prompt_parts(part, seen_user_prompt, &part_path)?);
                seen_user_prompt = true;
            }
            // Returns ride on their tool calls; instruction state and speech are not shown.
            "tool-return" | "instruction-delta" | "instruction-baseline" | "speech" => {}
            "retry-feedback" => {
                let (text, harness, payload) = retry_feedback(part, &part_path)?;
                add(
                    if harness { "system" } else { "user" },
                    vec![json!({"type": "text", "text": text, "state": "done",
                                "providerMetadata": {PROVIDER_METADATA_KEY: {"retry_feedback": payload}}})],
                );
            }
            "tool-availability-delta" | "capability-load-delta" | "model-settings-delta" => add(
                "user",
                vec![json!({"type": format!("data-{}", part_kind(part)), "data": delta_payload(part)})],
            ),
            "compaction" => add(
                "user",
                vec![json!({"type": COMPACTION_DATA_TYPE, "data": compaction_payload(part, Value::Null)})],
            ),
            other => return Err(Unsupported::part(part_path, other)),
        }
    }
    Ok(segments)
}

/// `_convert_user_prompt_part`.
fn user_prompt_parts(part: &Value, starts_new_prompt: bool, path: &str) -> Result<Vec<Value>, Unsupported> {
    let mut ui_parts = Vec::new();
    match field(part, "content") {
        Value::String(text) => ui_parts.push(json!({"type": "text", "text": text, "state": "done"})),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let item_path = format!("{path}.content[{index}]");
                if let Some(ui_part) = user_content_part(item, &item_path)? {
                    ui_parts.push(ui_part);
                }
            }
        }
        _ => {
            return Err(Unsupported::at(
                format!("{path}.content"),
                "a user prompt that is not text or a list",
            ))
        }
    }
    if starts_new_prompt {
        if let Some(Value::Object(first)) = ui_parts.first_mut() {
            let metadata = first
                .entry("providerMetadata")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(metadata) = metadata {
                let ours = metadata
                    .entry(PROVIDER_METADATA_KEY)
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(ours) = ours {
                    ours.insert(USER_PROMPT_START_KEY.into(), Value::Bool(true));
                }
            }
        }
    }
    Ok(ui_parts)
}

fn user_content_part(item: &Value, path: &str) -> Result<Option<Value>, Unsupported> {
    if let Value::String(text) = item {
        return Ok(Some(json!({"type": "text", "text": text, "state": "done"})));
    }
    let item_kind = field(item, "kind").as_str().unwrap_or("");
    let part = match item_kind {
        "text-content" => json!({"type": "text", "text": item["content"], "state": "done"}),
        // A text part the front end shows like any user text, the value in its metadata as JSON
        // text (`structured_content_payload`, `json.dumps`).
        "structured-content" => {
            let mut payload = Map::new();
            payload.insert("value".into(), field(item, "value").clone());
            for key in ["tag", "description"] {
                if !field(item, key).is_null() {
                    payload.insert(key.into(), item[key].clone());
                }
            }
            let payload = msgflow_media::python_json_dumps_ascii(&Value::Object(payload));
            json!({"type": "text", "text": item["content"], "state": "done",
                   "providerMetadata": {PROVIDER_METADATA_KEY: {"structured_content": payload}}})
        }
        "binary" => {
            let media_type = field(item, "media_type").as_str().unwrap_or("");
            let mut object = Map::new();
            object.insert("type".into(), "file".into());
            object.insert("mediaType".into(), media_type.into());
            object.insert("url".into(), data_uri(media_type, field(item, "data"), path)?.into());
            insert_metadata(
                &mut object,
                "providerMetadata",
                provider_metadata(&[("vendor_metadata", field(item, "vendor_metadata").clone())]),
            );
            Value::Object(object)
        }
        "image-url" | "audio-url" | "video-url" | "document-url" => {
            let url_kind = match item_kind {
                "image-url" => UrlKind::Image,
                "audio-url" => UrlKind::Audio,
                "video-url" => UrlKind::Video,
                _ => UrlKind::Document,
            };
            let url = field(item, "url").as_str().unwrap_or("");
            let media_type = msgflow_media::url_item_media_type(url_kind, field(item, "media_type").as_str(), url)
                .unwrap_or_default();
            let force_download = match field(item, "force_download") {
                Value::Bool(false) | Value::Null => Value::Null,
                other => other.clone(),
            };
            let kind_claim = if media_type.is_empty() {
                Value::from(item_kind)
            } else {
                Value::Null
            };
            let mut object = Map::new();
            object.insert("type".into(), "file".into());
            object.insert("mediaType".into(), media_type.into());
            object.insert("url".into(), url.into());
            insert_metadata(
                &mut object,
                "providerMetadata",
                provider_metadata(&[
                    ("force_download", force_download),
                    ("vendor_metadata", field(item, "vendor_metadata").clone()),
                    ("kind", kind_claim),
                ]),
            );
            Value::Object(object)
        }
        // The file id as the URL, the file's fields in the metadata (`_convert_user_prompt_part`).
        "uploaded-file" => {
            // `UploadedFile.media_type`: the one given, else guessed from the file id.
            let media_type = match field(item, "media_type") {
                Value::String(media_type) => media_type.clone(),
                Value::Null => {
                    let file_id = field(item, "file_id").as_str().unwrap_or_default();
                    msgflow_media::uploaded_file_item_media_type(None, file_id).map_err(|err| {
                        Unsupported::not_written(path.to_owned(), "an uploaded file", &err.to_string())
                    })?
                }
                _ => {
                    return Err(Unsupported::at(
                        path.to_owned(),
                        "an uploaded file whose `media_type` is not text",
                    ))
                }
            };
            let mut object = Map::new();
            object.insert("type".into(), "file".into());
            object.insert("mediaType".into(), media_type.into());
            object.insert("url".into(), field(item, "file_id").clone());
            insert_metadata(
                &mut object,
                "providerMetadata",
                provider_metadata(&[
                    ("file_id", field(item, "file_id").clone()),
                    ("provider_name", field(item, "provider_name").clone()),
                    ("vendor_metadata", field(item, "vendor_metadata").clone()),
                    ("identifier", field(item, "identifier").clone()),
                ]),
            );
            Value::Object(object)
        }
        "cache-point" => return Ok(None),
        // Every kind of `UserContent` is written above.
        other => {
            return Err(Unsupported::not_loaded(
                path.to_owned(),
                &format!("a `{other}` item of a user prompt"),
                "an unknown `kind`",
            ))
        }
    };
    Ok(Some(part))
}

/// `BinaryContent.data_uri`: the history keeps the bytes URL-safe base64, the URI standard base64.
fn data_uri(media_type: &str, data: &Value, path: &str) -> Result<String, Unsupported> {
    let bytes = Unsupported::binary_data(data, path)?;
    Ok(format!(
        "data:{media_type};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}

/// `args_as_dict`: the arguments as an object, `{"INVALID_JSON": raw}` when they are not one.
pub(crate) fn args_as_dict(args: &Value) -> Value {
    match args {
        Value::Object(_) => args.clone(),
        Value::Null => json!({}),
        Value::String(text) if text.is_empty() => json!({}),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => json!({ "INVALID_JSON": text }),
        },
        _ => json!({}),
    }
}

/// `client_error_text`: `model_response_str(wrap_if_error=False)` of a return (`_unwrap_data`:
/// no data, `None` or an empty list, is "").
pub(crate) fn client_error_text(content: &Value) -> String {
    match content {
        Value::Null => String::new(),
        Value::Array(items) if items.is_empty() => String::new(),
        Value::String(text) => text.clone(),
        other => msgflow_providers::python_json(other),
    }
}

/// `_dump_response_message`.
fn response_parts(
    message: &Value,
    tool_results: &HashMap<&str, &Value>,
    sdk_version: u8,
    path: &str,
) -> Result<Vec<Value>, Unsupported> {
    let all = parts(message);
    let local_returns: HashMap<&str, &Value> = all
        .iter()
        .filter(|part| part_kind(part) == "builtin-tool-return")
        .filter_map(|part| Some((field(part, "tool_call_id").as_str()?, part)))
        .collect();
    let mut ui_parts: Vec<Value> = Vec::new();
    // The text parts merged into each UI text part, by its index.
    let mut text_runs: Vec<(usize, Vec<&Value>)> = Vec::new();
    for (index, part) in all.iter().enumerate() {
        let part_path = format!("{path}.parts[{index}]");
        match part_kind(part) {
            "builtin-tool-return" | "speech" => {}
            "text" => {
                let content = field(part, "content").as_str().unwrap_or("");
                let last_index = ui_parts.len().wrapping_sub(1);
                match (ui_parts.last_mut(), text_runs.last_mut()) {
                    (Some(last), Some((run_index, run))) if *run_index == last_index && last["type"] == "text" => {
                        let merged = format!("{}{content}", last["text"].as_str().unwrap_or(""));
                        last["text"] = Value::String(merged);
                        run.push(part);
                    }
                    _ => {
                        text_runs.push((ui_parts.len(), vec![part]));
                        ui_parts.push(json!({"type": "text", "text": content, "state": "done"}));
                    }
                }
            }
            "thinking" => {
                let provider_name = field(part, "provider_name");
                let mut object = Map::new();
                object.insert("type".into(), "reasoning".into());
                object.insert("text".into(), part["content"].clone());
                object.insert("state".into(), "done".into());
                insert_metadata(
                    &mut object,
                    "providerMetadata",
                    provider_metadata(&[
                        ("id", field(part, "id").clone()),
                        ("signature", field(part, "signature").clone()),
                        ("provider_name", provider_name.clone()),
                        ("provider_details", field(part, "provider_details").clone()),
                        ("canonical_system", canonical_system(message, provider_name)),
                    ]),
                );
                ui_parts.push(Value::Object(object));
            }
            "file" => {
                let content = field(part, "content");
                let media_type = field(content, "media_type").as_str().unwrap_or("");
                let provider_name = field(part, "provider_name");
                let mut object = Map::new();
                object.insert("type".into(), "file".into());
                object.insert("mediaType".into(), media_type.into());
                object.insert(
                    "url".into(),
                    data_uri(media_type, field(content, "data"), &format!("{part_path}.content"))?.into(),
                );
                insert_metadata(
                    &mut object,
                    "providerMetadata",
                    provider_metadata(&[
                        ("id", field(part, "id").clone()),
                        ("provider_name", provider_name.clone()),
                        ("provider_details", field(part, "provider_details").clone()),
                        ("canonical_system", canonical_system(message, provider_name)),
                        ("vendor_metadata", field(content, "vendor_metadata").clone()),
                    ]),
                );
                ui_parts.push(Value::Object(object));
            }
            "tool-call" => {
                ui_parts.push(tool_call(message, part, tool_results, sdk_version));
                // `_extract_metadata_ui_parts`: a history's metadata is JSON, never the chunk
                // objects a live run attaches, so only an MCP Apps record writes a part.
                let call_id = field(part, "tool_call_id").as_str().unwrap_or("");
                if let Some(payload) = tool_results
                    .get(call_id)
                    .and_then(|result| crate::ui_payloads::mcp_app_payload(field(result, "metadata")))
                {
                    ui_parts.push(json!({"type": MCP_APPS_DATA_TYPE, "id": call_id, "data": payload}));
                }
            }
            "builtin-tool-call" => {
                let id = field(part, "tool_call_id").as_str().unwrap_or("");
                ui_parts.push(builtin_call(message, part, local_returns.get(id).copied(), sdk_version));
            }
            "compaction" => ui_parts.push(json!({
                "type": COMPACTION_DATA_TYPE,
                "data": compaction_payload(part, canonical_system(message, field(part, "provider_name"))),
            })),
            other => return Err(Unsupported::part(part_path, other)),
        }
    }
    // `_with_text_citations`: each UI text part's metadata from the text parts merged into it,
    // and the web sources of its citations after it as `source-url` parts.
    let mut runs: HashMap<usize, Vec<&Value>> = text_runs.into_iter().collect();
    let mut result = Vec::with_capacity(ui_parts.len());
    let mut source_urls: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (index, mut ui_part) in ui_parts.into_iter().enumerate() {
        let Some(run) = runs.remove(&index) else {
            result.push(ui_part);
            continue;
        };
        let (metadata, citations) = text_metadata(message, &run);
        if let Some(metadata) = metadata {
            ui_part["providerMetadata"] = metadata;
        }
        result.push(ui_part);
        for source in citations
            .iter()
            .flat_map(|citation| field(citation, "sources").as_array().into_iter().flatten())
        {
            let Some(url) = field(source, "url").as_str() else {
                continue;
            };
            if source["kind"] == "web" && source_urls.insert(url.to_owned()) {
                let mut object = Map::new();
                object.insert("type".into(), "source-url".into());
                object.insert("sourceId".into(), url.into());
                object.insert("url".into(), url.into());
                if let Some(title) = field(source, "title").as_str() {
                    object.insert("title".into(), title.into());
                }
                result.push(Value::Object(object));
            }
        }
    }
    Ok(result)
}

fn tool_part(kind: String, call: &Value, state: &str, provider_executed: bool) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("type".into(), kind.into());
    object.insert("toolCallId".into(), call["tool_call_id"].clone());
    object.insert("state".into(), state.into());
    // The arguments and the output as pydantic-ai dumps the values it read (`1e5` as `100000.0`).
    object.insert(
        "input".into(),
        msgflow_providers::python_value(args_as_dict(field(call, "args"))),
    );
    object.insert("providerExecuted".into(), provider_executed.into());
    object
}

/// The id of the approval response a denied call's tool part carries. pydantic-ai makes a random
/// UUID4 (`ToolApprovalResponded(id=str(uuid.uuid4()))`) and reads it nowhere (`load_messages`
/// keys a decision by its call's id); msgflow makes a UUID5 of the call's id, so that a history
/// always converts to the same bytes.
fn denied_approval_id(call: &Value) -> String {
    let name = format!(
        "msgflow-vercel-ui-denied-{}",
        field(call, "tool_call_id").as_str().unwrap_or_default()
    );
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, name.as_bytes()).to_string()
}

/// A native (builtin) tool call, with its return from the same response when there is one.
fn builtin_call(message: &Value, call: &Value, returned: Option<&Value>, sdk_version: u8) -> Value {
    let tool_type = format!("tool-{}", field(call, "tool_name").as_str().unwrap_or(""));
    let provider_name = field(call, "provider_name");
    let call_entries = [
        ("id", field(call, "id").clone()),
        ("provider_name", provider_name.clone()),
        ("provider_details", field(call, "provider_details").clone()),
        ("canonical_system", canonical_system(message, provider_name)),
        ("tool_kind", narrowed(call, "args").0),
    ];
    let Some(returned) = returned else {
        let state = if sdk_version >= 6 {
            "approval-requested"
        } else {
            "input-available"
        };
        let mut object = tool_part(tool_type, call, state, true);
        insert_metadata(&mut object, "callProviderMetadata", provider_metadata(&call_entries));
        if sdk_version >= 6 {
            object.insert("approval".into(), json!({"id": call["tool_call_id"]}));
        }
        return Value::Object(object);
    };
    // A typed return holds its content as the TypedDict validated it (`_narrow_return`).
    let (return_kind, typed_content) = narrowed(returned, "content");
    let return_entries = [
        ("provider_name", field(returned, "provider_name").clone()),
        ("provider_details", field(returned, "provider_details").clone()),
        ("tool_kind", return_kind),
    ];
    let combined = provider_metadata(&[
        ("call_meta", bare_metadata(&call_entries).unwrap_or(Value::Null)),
        ("return_meta", bare_metadata(&return_entries).unwrap_or(Value::Null)),
    ]);
    let outcome = field(returned, "outcome").as_str().unwrap_or("success");
    let dumped = typed_content.unwrap_or_else(|| tool_return_output(returned));
    let content = &dumped;
    // `model_response_object(wrap_if_error=False)`: a dict as it is, anything else wrapped.
    let response_object = match content {
        Value::Object(_) => content.clone(),
        Value::Null => json!({}),
        other => json!({ "return_value": other }),
    };
    let mut object;
    if outcome == "denied" {
        object = tool_part(tool_type, call, "output-denied", true);
        insert_metadata(&mut object, "callProviderMetadata", combined);
        object.insert(
            "approval".into(),
            json!({"id": denied_approval_id(call), "approved": false, "reason": return_error_text(returned)}),
        );
    } else if matches!(outcome, "failed" | "retried") || response_object.get("is_error") == Some(&Value::Bool(true)) {
        let error_text = match response_object.get("error_text") {
            Some(text) => text.clone(),
            None => return_error_text(returned).into(),
        };
        object = tool_part(tool_type, call, "output-error", true);
        object.insert("errorText".into(), error_text);
        insert_metadata(&mut object, "callProviderMetadata", combined);
    } else {
        object = tool_part(tool_type, call, "output-available", true);
        object.insert("output".into(), msgflow_providers::python_value(content.clone()));
        insert_metadata(&mut object, "callProviderMetadata", combined);
    }
    Value::Object(reorder_tool_part(object))
}

/// `tool_return_output`: the return's content as pydantic-ai loads and dumps it (files rebuilt and
/// dumped; anything else as written).
fn tool_return_output(returned: &Value) -> Value {
    let content = field(returned, "content");
    if super::holds_content_item(content) {
        dumped_tool_content(returned)
    } else {
        content.clone()
    }
}

/// `client_error_text` of a (native) tool return: its content's text without its files.
fn return_error_text(returned: &Value) -> String {
    let content = field(returned, "content");
    if super::holds_content_item(content) {
        error_text_with_files(returned)
    } else {
        client_error_text(content)
    }
}

/// `_dump_tool_call_part`: a function tool call with its return, if the history holds one.
fn tool_call(message: &Value, call: &Value, tool_results: &HashMap<&str, &Value>, sdk_version: u8) -> Value {
    let tool_type = format!("tool-{}", field(call, "tool_name").as_str().unwrap_or(""));
    let result = tool_results
        .get(field(call, "tool_call_id").as_str().unwrap_or(""))
        .copied();
    // The content as pydantic-ai loads it: a successful typed return's as its TypedDict validated it
    // (`_narrow_return`), files rebuilt (`tool_return_output`, `client_error_text` alike).
    let content = result.map(|result| {
        narrowed(result, "content")
            .1
            .unwrap_or_else(|| tool_return_output(result))
    });
    let outcome = result.map(|result| field(result, "outcome").as_str().unwrap_or("success"));
    // `client_error_text`: the content's text without its files (written only for a return that
    // is no success: it writes the whole content as JSON).
    let error_text = || result.map(return_error_text);
    let carried_outcome = match outcome {
        Some(outcome @ ("interrupted" | "retried")) => Value::from(outcome),
        _ => Value::Null,
    };
    let retry = match result.map(|result| field(result, "retry")) {
        Some(retry @ Value::Object(_)) => Value::Object(tool_retry_payload(retry)),
        _ => Value::Null,
    };
    // `_retried_structured_content`: a retry's list content rides the metadata as it is.
    let retried_content = match (outcome, &content) {
        (Some("retried"), Some(content @ Value::Array(_))) => content.clone(),
        _ => Value::Null,
    };
    let provider_name = field(call, "provider_name");
    let metadata = provider_metadata(&[
        ("id", field(call, "id").clone()),
        ("provider_name", provider_name.clone()),
        ("provider_details", field(call, "provider_details").clone()),
        ("canonical_system", canonical_system(message, provider_name)),
        ("tool_kind", narrowed(call, "args").0),
        ("outcome", carried_outcome),
        ("retry", retry),
        ("content", retried_content),
    ]);
    let mut object;
    match (content, outcome) {
        (Some(_), Some("denied")) => {
            object = tool_part(tool_type, call, "output-denied", false);
            insert_metadata(&mut object, "callProviderMetadata", metadata);
            object.insert(
                "approval".into(),
                json!({"id": denied_approval_id(call), "approved": false,
                       "reason": error_text()}),
            );
        }
        (Some(_), Some("failed" | "retried")) => {
            object = tool_part(tool_type, call, "output-error", false);
            object.insert("errorText".into(), error_text().into());
            insert_metadata(&mut object, "callProviderMetadata", metadata);
        }
        (Some(content), _) => {
            object = tool_part(tool_type, call, "output-available", false);
            object.insert("output".into(), msgflow_providers::python_value(content));
            insert_metadata(&mut object, "callProviderMetadata", metadata);
        }
        (None, _) => {
            let state = if sdk_version >= 6 {
                "approval-requested"
            } else {
                "input-available"
            };
            object = tool_part(tool_type, call, state, false);
            insert_metadata(&mut object, "callProviderMetadata", metadata);
            if sdk_version >= 6 {
                object.insert("approval".into(), json!({"id": call["tool_call_id"]}));
            }
        }
    }
    Value::Object(reorder_tool_part(object))
}

/// The tool part's keys in the order the model pydantic dumps it as declares them (the model of its
/// `type` and `state`, `part_models.rs`).
fn reorder_tool_part(mut object: Map<String, Value>) -> Map<String, Value> {
    let model_keys = match (object.get("type"), object.get("state")) {
        (Some(Value::String(part_type)), Some(Value::String(state))) => {
            part_defaults::model_of_state(part_type, state).map_or(&[][..], |model| model.keys)
        }
        _ => &[],
    };
    let mut ordered = Map::new();
    for key in model_keys {
        if let Some(value) = object.remove(*key) {
            ordered.insert((*key).to_owned(), value);
        }
    }
    ordered.extend(object);
    ordered
}

/// `dump_message_metadata`: the application's metadata and `pydantic_ai.timestamp`.
fn message_metadata(message: &Value, path: &str) -> Result<Map<String, Value>, Unsupported> {
    let mut metadata: Map<String, Value> = match field(message, "metadata") {
        Value::Object(object) => object
            .iter()
            .filter(|(key, _)| key.as_str() != INTERNAL_KEY)
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
        _ => Map::new(),
    };
    if let Some(parts) = timestamp_parts(field(message, "timestamp"), path)? {
        let written = msgflow_wire::Timestamp::from_parts(parts);
        metadata.insert(PROVIDER_METADATA_KEY.into(), json!({"timestamp": written.as_written()}));
    }
    Ok(metadata)
}
