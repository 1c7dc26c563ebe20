//! A history to AG-UI messages, as pydantic-ai 2.68.0's `AGUIAdapter.dump_messages` writes them
//! (`pydantic_ai.ui.ag_ui._adapter`) with the ag-ui-protocol release the oracle pins (1.0): typed
//! media parts, `reasoning` messages and the `encryptedValue` carrier.

use std::borrow::Cow;
use std::collections::HashMap;

use base64::Engine as _;
use msgflow_media::UrlKind;
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use super::{Unsupported, BUILTIN_TOOL_CALL_ID_PREFIX, ENCRYPTED_VALUE_NAMESPACE};

/// pydantic-ai's activity types for the parts it carries through the client (`pydantic_ai.ui.ag_ui._utils`).
pub(super) const COMPACTION_ACTIVITY_TYPE: &str = "pydantic_ai_compaction";
/// The activity an MCP App's payload rides in (`MCP_APPS_UI_TYPE`, the AG-UI MCP Apps middleware's).
const MCP_APPS_ACTIVITY_TYPE: &str = "mcp-apps";
pub(super) const TOOL_AVAILABILITY_DELTA_ACTIVITY_TYPE: &str = "pydantic_ai_tool_availability_delta";
pub(super) const CAPABILITY_LOAD_DELTA_ACTIVITY_TYPE: &str = "pydantic_ai_capability_load_delta";
pub(super) const MODEL_SETTINGS_DELTA_ACTIVITY_TYPE: &str = "pydantic_ai_model_settings_delta";
use crate::messages_builder::INTERNAL_KEY;
use crate::object::value_field as field;
use crate::ui_payloads::{
    as_loaded, canonical_system, compaction_payload, delta_payload, dumped_tool_content, narrowed, part_kind,
    retry_feedback, tool_retry_payload,
};
use crate::vercel_ui::dump::{args_as_dict, client_error_text, kind, parts};

/// The outcomes pydantic-ai writes an `error` for (`ERROR_OUTCOMES` and `'denied'`).
const ERROR_WRITING_OUTCOMES: [&str; 3] = ["failed", "retried", "denied"];

/// Makes the ids of the AG-UI messages: pydantic-ai makes a random UUID4 for each
/// (`_new_message_id`); msgflow makes a UUID5 of the message's place, so a history always converts
/// to the same bytes.
///
/// Each history message is written on its own, so it draws its ids from a count of its own: an id
/// is first written as that count ([`Ids::fresh`]), and made the UUID of its place in the whole
/// dump once the ids drawn before it are known ([`Ids::placed`]).
pub(super) struct Ids {
    next: usize,
}

impl Ids {
    fn new() -> Self {
        Ids { next: 0 }
    }

    /// The next id of this message, as its number among the message's ids.
    fn fresh(&mut self) -> String {
        let local = self.next.to_string();
        self.next += 1;
        local
    }

    /// The id [`Ids::fresh`] wrote as `local`, of a message whose first id is the dump's `first`th.
    fn placed(local: &str, first: usize) -> String {
        let local: usize = local.parse().expect("an id the message drew from its own count");
        let name = format!("msgflow-ag-ui-{}", first + local);
        uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, name.as_bytes()).to_string()
    }
}

/// `dump_messages(messages)`: the AG-UI messages of each history message, in order.
pub(super) fn dump(history: &[Value]) -> Result<Vec<Vec<Value>>, Unsupported> {
    // Legacy retry prompts translated and missing tool call ids made up, as pydantic-ai loads them.
    let history = as_loaded(history)?;
    let mut contents: Vec<HashMap<usize, ToolContent>> = history.iter().map(|_| HashMap::new()).collect();
    for ((message_index, part_index), content) in tool_contents(&history) {
        contents[message_index].insert(part_index, content);
    }
    // Each history message is written on its own, on rayon's pool.
    let written: Vec<Result<(Vec<Value>, usize), Unsupported>> = history
        .par_iter()
        .zip(contents)
        .enumerate()
        .map(|(index, (message, mut contents))| {
            let path = format!("$[{index}]");
            let mut ids = Ids::new();
            let dumped = if kind(message) == "response" {
                response(message, &path, &mut ids)?
            } else {
                request(message, &path, &mut ids, |part_index| contents.remove(&part_index))?
            };
            Ok((dumped, ids.next))
        })
        .collect();
    // The first error in message order, as writing the messages one by one stops at.
    let mut placed = Vec::with_capacity(written.len());
    let mut drawn = 0;
    for (message, written) in history.iter().zip(written) {
        let (dumped, count) = written?;
        placed.push((message, dumped, drawn));
        drawn += count;
    }
    Ok(placed
        .into_par_iter()
        .map(|(message, mut dumped, first)| {
            for ag_ui_message in &mut dumped {
                if let Some(Value::String(id)) = ag_ui_message.get_mut("id") {
                    *id = Ids::placed(id, first);
                }
            }
            // `get_ui_message_id`: the id `load_messages` kept goes back on the last AG-UI message.
            let kept = field(field(message, "metadata"), INTERNAL_KEY)
                .get("ui_message_id")
                .and_then(Value::as_str);
            if let (Some(id), Some(last)) = (kept, dumped.last_mut()) {
                last["id"] = Value::String(id.to_owned());
            }
            dumped
        })
        .collect())
}

/// What the tool message of each tool return in the history's requests writes of its content, by
/// the indices of its message and its part, found on rayon's pool ahead of the messages: writing a
/// long result's JSON text is most of the dump of a history of large tool results, and each is
/// written on its own.
fn tool_contents(history: &[Value]) -> HashMap<(usize, usize), ToolContent> {
    history
        .par_iter()
        .enumerate()
        .filter(|(_, message)| kind(message) == "request")
        .flat_map_iter(|(message_index, message)| {
            parts(message)
                .iter()
                .enumerate()
                .filter(|(_, part)| part_kind(part) == "tool-return")
                .map(move |(part_index, part)| ((message_index, part_index), ToolContent::of(part)))
        })
        .collect()
}

/// `_dump_request_parts`. `content_of(index)` gives what the tool message of the tool return at
/// part `index` writes of its content, where that was found ahead ([`tool_contents`]).
fn request(
    message: &Value,
    path: &str,
    ids: &mut Ids,
    mut content_of: impl FnMut(usize) -> Option<ToolContent>,
) -> Result<Vec<Value>, Unsupported> {
    let mut result = Vec::new();
    let mut system: Vec<String> = Vec::new();
    let mut user: Vec<Value> = Vec::new();
    // `structured_payloads`: what the structured text items of `user` carry, by their position.
    let mut structured: Map<String, Value> = Map::new();
    for (index, part) in parts(message).iter().enumerate() {
        let part_path = format!("{path}.parts[{index}]");
        let part_kind = part_kind(part);
        if part_kind == "system-prompt" {
            // A request-scoped prompt is for that request only: pydantic-ai leaves it out.
            if field(part, "scope") != "request" {
                flush_user(&mut user, &mut structured, &mut result, ids);
                system.push(field(part, "content").as_str().unwrap_or_default().to_owned());
            }
            continue;
        }
        if !matches!(part_kind, "instruction-delta" | "instruction-baseline" | "speech") {
            flush_system(&mut system, &mut result, ids);
        }
        match part_kind {
            "user-prompt" => {
                flush_user(&mut user, &mut structured, &mut result, ids);
                match field(part, "content") {
                    Value::String(text) => user.push(json!({"type": "text", "text": text})),
                    Value::Array(items) => {
                        for (item_index, item) in items.iter().enumerate() {
                            if field(item, "kind") == "structured-content" {
                                // AG-UI has no structured input: the text, its value in `encryptedValue`.
                                let mut payload = Map::new();
                                payload.insert("value".into(), field(item, "value").clone());
                                for key in ["tag", "description"] {
                                    if !field(item, key).is_null() {
                                        payload.insert(key.into(), item[key].clone());
                                    }
                                }
                                structured.insert(user.len().to_string(), Value::Object(payload));
                                user.push(json!({"type": "text", "text": field(item, "content")}));
                                continue;
                            }
                            if let Some(converted) = user_item(item, &format!("{part_path}.content[{item_index}]"))? {
                                user.push(converted);
                            }
                        }
                    }
                    _ => {
                        return Err(Unsupported::at(
                            format!("{part_path}.content"),
                            "a user prompt that is not text or a list",
                        ))
                    }
                }
            }
            "tool-return" => {
                flush_user(&mut user, &mut structured, &mut result, ids);
                let content = content_of(index);
                result.push(tool_message(part, field(part, "tool_call_id").clone(), ids, content));
                // The MCP App the tool names, for the front end to render, after its result.
                if let Some(payload) = crate::ui_payloads::mcp_app_payload(field(part, "metadata")) {
                    result.push(activity(ids, MCP_APPS_ACTIVITY_TYPE, payload));
                }
            }
            // Operator instruction state stays in server-side history; speech is not rendered.
            "instruction-delta" | "instruction-baseline" | "speech" => {}
            "tool-availability-delta" | "capability-load-delta" | "model-settings-delta" => {
                flush_user(&mut user, &mut structured, &mut result, ids);
                let activity_type = match part_kind {
                    "tool-availability-delta" => TOOL_AVAILABILITY_DELTA_ACTIVITY_TYPE,
                    "capability-load-delta" => CAPABILITY_LOAD_DELTA_ACTIVITY_TYPE,
                    _ => MODEL_SETTINGS_DELTA_ACTIVITY_TYPE,
                };
                result.push(activity(ids, activity_type, delta_payload(part)));
            }
            "compaction" => {
                flush_user(&mut user, &mut structured, &mut result, ids);
                result.push(activity(
                    ids,
                    COMPACTION_ACTIVITY_TYPE,
                    compaction_payload(part, Value::Null),
                ));
            }
            // Harness feedback in the voice the model is shown it in, the part itself in
            // `encryptedValue` (`retry_feedback_encrypted_value_kwargs`).
            "retry-feedback" => {
                flush_user(&mut user, &mut structured, &mut result, ids);
                let (text, harness, payload) = retry_feedback(part, &part_path)?;
                let claim = json!({ENCRYPTED_VALUE_NAMESPACE: {"retry_feedback": payload}});
                result.push(json!({
                    "id": ids.fresh(),
                    "role": if harness { "system" } else { "user" },
                    "encryptedValue": msgflow_media::python_json_dumps_ascii(&claim),
                    "content": text,
                }));
            }
            other => return Err(Unsupported::part(part_path, other)),
        }
    }
    flush_system(&mut system, &mut result, ids);
    flush_user(&mut user, &mut structured, &mut result, ids);
    Ok(result)
}

/// An `ActivityMessage` of one of pydantic-ai's own activity types.
fn activity(ids: &mut Ids, activity_type: &str, content: Value) -> Value {
    json!({"id": ids.fresh(), "role": "activity", "activityType": activity_type, "content": content})
}

/// `flush_user_content`: a lone text item is written as a string; the payloads of structured
/// items ride in `encryptedValue` (`structured_content_encrypted_value_kwargs`).
fn flush_user(user: &mut Vec<Value>, structured: &mut Map<String, Value>, result: &mut Vec<Value>, ids: &mut Ids) {
    if user.is_empty() {
        return;
    }
    let items = std::mem::take(user);
    let content = match items.as_slice() {
        [only] if only["type"] == "text" => only["text"].clone(),
        _ => Value::Array(items),
    };
    let mut message = Map::new();
    message.insert("id".into(), ids.fresh().into());
    message.insert("role".into(), "user".into());
    if !structured.is_empty() {
        let claim = json!({ENCRYPTED_VALUE_NAMESPACE: {"structured_content": std::mem::take(structured)}});
        message.insert(
            "encryptedValue".into(),
            msgflow_media::python_json_dumps_ascii(&claim).into(),
        );
    }
    message.insert("content".into(), content);
    result.push(Value::Object(message));
}

/// `flush_system_content`: a run of system prompts is one message.
fn flush_system(system: &mut Vec<String>, result: &mut Vec<Value>, ids: &mut Ids) {
    if system.is_empty() {
        return;
    }
    let content = std::mem::take(system).join("\n");
    result.push(json!({"id": ids.fresh(), "role": "system", "content": content}));
}

/// `_user_content_to_input` (typed media, `media_url_to_multimodal` / `binary_to_multimodal`).
fn user_item(item: &Value, path: &str) -> Result<Option<Value>, Unsupported> {
    if let Value::String(text) = item {
        return Ok(Some(json!({"type": "text", "text": text})));
    }
    let item_kind = field(item, "kind").as_str().unwrap_or("");
    let mut metadata = Map::new();
    if !field(item, "vendor_metadata").is_null() {
        metadata.insert("vendor_metadata".into(), item["vendor_metadata"].clone());
    }
    let mut converted = match item_kind {
        "text-content" => return Ok(Some(json!({"type": "text", "text": item["content"]}))),
        // Neither has a place in AG-UI input: pydantic-ai skips them.
        "uploaded-file" | "cache-point" => return Ok(None),
        "image-url" | "audio-url" | "video-url" | "document-url" => {
            let (url_kind, part_type) = match item_kind {
                "image-url" => (UrlKind::Image, "image"),
                "audio-url" => (UrlKind::Audio, "audio"),
                "video-url" => (UrlKind::Video, "video"),
                _ => (UrlKind::Document, "document"),
            };
            let url = field(item, "url").as_str().unwrap_or("");
            // A media type that cannot be inferred is written as "" (read back as none).
            let media_type = msgflow_media::url_item_media_type(url_kind, field(item, "media_type").as_str(), url)
                .unwrap_or_default();
            match field(item, "force_download") {
                Value::Null | Value::Bool(false) => {}
                other => {
                    metadata.insert("force_download".into(), other.clone());
                }
            }
            json!({"type": part_type, "source": {"type": "url", "value": url, "mimeType": media_type}})
        }
        "binary" => {
            let media_type = field(item, "media_type").as_str().unwrap_or("");
            let bytes = Unsupported::binary_data(field(item, "data"), path)?;
            let prefix = media_type.split('/').next().unwrap_or_default();
            let part_type = if matches!(prefix, "image" | "audio" | "video") {
                prefix
            } else {
                "document"
            };
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            json!({"type": part_type, "source": {"type": "data", "value": data, "mimeType": media_type}})
        }
        // Every kind of `UserContent` is written above.
        other => {
            return Err(Unsupported::not_loaded(
                path.to_owned(),
                &format!("a `{other}` item of a user prompt"),
                "an unknown `kind`",
            ))
        }
    };
    if !metadata.is_empty() {
        converted["metadata"] = Value::Object(metadata);
    }
    Ok(Some(converted))
}

/// `dump_tool_return_content`: a string as it is, nothing as "", anything else as compact JSON
/// (`content` as pydantic-ai loads and dumps it: files rebuilt, `dumped_tool_content`).
fn tool_return_content(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => msgflow_providers::python_json(other),
    }
}

/// What a tool message writes of its tool return's content: the `content` text, the `error`
/// (for the outcomes pydantic-ai writes one for) and the `tool_kind` that routes the return.
struct ToolContent {
    text: String,
    error: Option<String>,
    tool_kind: Value,
}

impl ToolContent {
    /// The content of a tool return as pydantic-ai loads it: a successful return that a
    /// `tool_kind` routes to a typed part holds its content as the TypedDict validated it
    /// (`_narrow_return`: declared keys first, in declaration order), and files are rebuilt, for
    /// the content and the `error` alike.
    fn of(part: &Value) -> Self {
        let outcome = field(part, "outcome").as_str().unwrap_or("success");
        let (tool_kind, typed_content) = narrowed(part, "content");
        let holds_files = crate::vercel_ui::holds_content_item(field(part, "content"));
        let dumped = match typed_content {
            Some(typed) => Cow::Owned(typed),
            None if holds_files => Cow::Owned(dumped_tool_content(part)),
            None => Cow::Borrowed(field(part, "content")),
        };
        let error = ERROR_WRITING_OUTCOMES.contains(&outcome).then(|| {
            if holds_files {
                crate::ui_payloads::error_text_with_files(part)
            } else {
                client_error_text(&dumped)
            }
        });
        ToolContent {
            text: tool_return_content(&dumped),
            error,
            tool_kind,
        }
    }
}

/// A `ToolMessage` for a (native) tool return answering `call_id`, with the `error` and the
/// `encryptedValue` claims pydantic-ai writes (`tool_kind_encrypted_value`). `written` is what it
/// writes of the return's content, where that was found ahead ([`tool_contents`]).
fn tool_message(part: &Value, call_id: Value, ids: &mut Ids, written: Option<ToolContent>) -> Value {
    let outcome = field(part, "outcome").as_str().unwrap_or("success");
    let ToolContent { text, error, tool_kind } = written.unwrap_or_else(|| ToolContent::of(part));
    let mut message = Map::new();
    message.insert("id".into(), ids.fresh().into());
    message.insert("role".into(), "tool".into());
    message.insert("content".into(), text.into());
    message.insert("toolCallId".into(), call_id);
    if let Some(error) = error {
        message.insert("error".into(), error.into());
    }
    let retry = tool_retry_payload(field(part, "retry"));
    if !tool_kind.is_null() || outcome != "success" || !retry.is_empty() {
        // `tool_kind_encrypted_value`: the kind, a non-success outcome and a retry, in that order.
        let mut claim = Map::new();
        if !tool_kind.is_null() {
            claim.insert("tool_kind".into(), tool_kind.clone());
        }
        if outcome != "success" {
            claim.insert("outcome".into(), outcome.into());
        }
        if !retry.is_empty() {
            claim.insert("retry".into(), Value::Object(retry));
        }
        let claim = json!({ ENCRYPTED_VALUE_NAMESPACE: claim });
        message.insert(
            "encryptedValue".into(),
            msgflow_media::python_json_dumps_ascii(&claim).into(),
        );
    }
    Value::Object(message)
}

/// The assistant message being gathered in `_dump_response_parts`.
#[derive(Default)]
struct Pending {
    text: Vec<String>,
    calls: Vec<Value>,
    tool_messages: Vec<Value>,
}

impl Pending {
    fn flush(&mut self, result: &mut Vec<Value>, ids: &mut Ids) {
        if self.text.is_empty() && self.calls.is_empty() {
            return;
        }
        let mut message = Map::new();
        message.insert("id".into(), ids.fresh().into());
        message.insert("role".into(), "assistant".into());
        if !self.text.is_empty() {
            message.insert("content".into(), std::mem::take(&mut self.text).join("\n").into());
        }
        if !self.calls.is_empty() {
            message.insert("toolCalls".into(), Value::Array(std::mem::take(&mut self.calls)));
        }
        result.push(Value::Object(message));
        result.append(&mut self.tool_messages);
    }
}

/// `_dump_response_parts`.
fn response(message: &Value, path: &str, ids: &mut Ids) -> Result<Vec<Value>, Unsupported> {
    let mut result = Vec::new();
    let mut pending = Pending::default();
    let all = parts(message);
    let builtin_returns: std::collections::HashMap<&str, &Value> = all
        .iter()
        .filter(|part| part_kind(part) == "builtin-tool-return")
        .map(|part| (field(part, "tool_call_id").as_str().unwrap_or(""), part))
        .collect();
    for (index, part) in all.iter().enumerate() {
        let part_path = format!("{path}.parts[{index}]");
        match part_kind(part) {
            "text" => {
                if !pending.calls.is_empty() {
                    pending.flush(&mut result, ids);
                }
                let content = field(part, "content").as_str().unwrap_or_default();
                // Adjacent in the history's parts, not in what was written: a dropped part between
                // two texts still separates them.
                let joins = index > 0 && part_kind(&all[index - 1]) == "text";
                match pending.text.last_mut() {
                    Some(last) if joins => last.push_str(content),
                    _ => pending.text.push(content.to_owned()),
                }
            }
            "thinking" => {
                pending.flush(&mut result, ids);
                let mut encrypted = Map::new();
                for key in ["id", "signature", "provider_name", "provider_details"] {
                    if !field(part, key).is_null() {
                        encrypted.insert(key.into(), part[key].clone());
                    }
                }
                let canonical = canonical_system(message, field(part, "provider_name"));
                if !canonical.is_null() {
                    encrypted.insert("canonical_system".into(), canonical);
                }
                let mut reasoning = Map::new();
                reasoning.insert("id".into(), ids.fresh().into());
                reasoning.insert("role".into(), "reasoning".into());
                reasoning.insert("content".into(), field(part, "content").clone());
                if !encrypted.is_empty() {
                    reasoning.insert(
                        "encryptedValue".into(),
                        msgflow_media::python_json_dumps_ascii(&Value::Object(encrypted)).into(),
                    );
                }
                result.push(Value::Object(reasoning));
            }
            "tool-call" => {
                pending.calls.push(tool_call(part, field(part, "tool_call_id").clone()));
            }
            "builtin-tool-call" => {
                let call_id = field(part, "tool_call_id").as_str().unwrap_or_default();
                let provider = field(part, "provider_name").as_str().unwrap_or_default();
                let prefixed = Value::String(format!("{BUILTIN_TOOL_CALL_ID_PREFIX}|{provider}|{call_id}"));
                pending.calls.push(tool_call(part, prefixed.clone()));
                if let Some(returned) = builtin_returns.get(call_id) {
                    pending.tool_messages.push(tool_message(returned, prefixed, ids, None));
                }
            }
            "compaction" => {
                pending.flush(&mut result, ids);
                let canonical = canonical_system(message, field(part, "provider_name"));
                result.push(activity(
                    ids,
                    COMPACTION_ACTIVITY_TYPE,
                    compaction_payload(part, canonical),
                ));
            }
            // Written right after its call, above; a file is dropped (`preserve_file_data=False`);
            // speech is not rendered.
            "builtin-tool-return" | "file" | "speech" => {}
            other => return Err(Unsupported::part(part_path, other)),
        }
    }
    pending.flush(&mut result, ids);
    Ok(result)
}

/// A `ToolCall`: the arguments as compact JSON of `args_as_dict` (`args_as_json_str`).
fn tool_call(part: &Value, id: Value) -> Value {
    let arguments = msgflow_providers::python_json(&args_as_dict(field(part, "args")));
    let mut call = json!({
        "id": id,
        "type": "function",
        "function": {"name": field(part, "tool_name"), "arguments": arguments},
    });
    // `tool_kind_encrypted_value_kwargs`: the kind rides in `encryptedValue`.
    let (tool_kind, _) = narrowed(part, "args");
    if !tool_kind.is_null() {
        let claim = json!({ENCRYPTED_VALUE_NAMESPACE: {"tool_kind": tool_kind}});
        call["encryptedValue"] = msgflow_media::python_json_dumps_ascii(&claim).into();
    }
    call
}
