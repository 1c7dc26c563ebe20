//! A history to the OpenTelemetry GenAI messages pydantic-ai 2.68.0 records on a model request
//! span: `InstrumentationSettings.messages_to_otel_messages` (`pydantic_ai.models.instrumented`)
//! and the parts' `otel_message_parts` (`pydantic_ai.messages`), with the default settings
//! (`include_content=True`, `include_binary_content=True`), on the history's JSON.

use base64::Engine as _;
use msgflow_media::UrlKind;
use rayon::prelude::*;
use serde_json::{json, Map, Value};

use super::Unsupported;
use crate::object::{object, value_field as field};

/// `NativeToolCallPart.tool_name` of an MCP server, and what a trace's input shows instead
/// (`_response_otel_message` with the ids of `mcp_telemetry_history_ids`).
const MCP_PREFIX: &str = "mcp_server:";
const MCP_REDACTED: &str = "mcp_server:[REDACTED]";

/// The parts of the span one history makes: its `gen_ai.input.messages`, its
/// `gen_ai.output.messages` (the trailing response, if the history ends in one) and the
/// instructions in force (`gen_ai.system_instructions`).
pub(super) struct Span {
    pub input: Vec<Value>,
    pub output: Option<Value>,
    pub instructions: Option<String>,
}

/// `InstrumentationSettings.handle_messages(input_messages, response, span)` of a history: the
/// input is every message before a trailing response.
pub(super) fn span(history: &[Value], version: u8) -> Result<Span, Unsupported> {
    // Legacy retry prompts translated, missing tool call ids made up (msgflow's, reported invented)
    // and typed parts validated, as pydantic-ai holds the messages its instrumentation records.
    let history = crate::ui_payloads::as_loaded(history)?;
    let history = &*history;
    let (input, output) = match history.split_last() {
        Some((last, input)) if kind(last) == "response" => (input, Some(last)),
        _ => (history, None),
    };
    let output = match output {
        Some(response) => Some(response_message(
            response,
            &format!("$[{}]", input.len()),
            version,
            false,
        )?),
        None => None,
    };
    Ok(Span {
        input: input_messages(input, version)?,
        output,
        instructions: instructions(input),
    })
}

/// `_span_input_messages`: `messages_to_otel_messages` of the input, MCP server names withheld,
/// and the request-scoped system prompts of requests answered before the current one marked
/// `visible: false`.
///
/// Each message maps on its own, so they are mapped on rayon's thread pool; the first message
/// (in order) that cannot be mapped gives the error.
fn input_messages(input: &[Value], version: u8) -> Result<Vec<Value>, Unsupported> {
    let current = current_request_start(input, |message| kind(message) == "request");
    let mapped: Vec<Result<Vec<Value>, Unsupported>> = input
        .par_iter()
        .enumerate()
        .map(|(index, message)| {
            let path = format!("$[{index}]");
            if kind(message) == "response" {
                Ok(vec![response_message(message, &path, version, true)?])
            } else {
                request_messages(message, &path, version, index < current)
            }
        })
        .collect();
    let mut result = Vec::with_capacity(input.len());
    for messages in mapped {
        result.extend(messages?);
    }
    Ok(result)
}

/// `_current_request_start`: the first message of the trailing run of requests (and the
/// responses continuing it).
pub(super) fn current_request_start<M>(messages: &[M], is_request: impl Fn(&M) -> bool) -> usize {
    let mut index = messages.len();
    while index > 0 && !is_request(&messages[index - 1]) {
        index -= 1;
    }
    while index > 0 && is_request(&messages[index - 1]) {
        index -= 1;
    }
    index
}

/// `get_instructions(messages)` without request parameters (`get_instructions_source`): the last
/// request's instructions, or the one before it when the last holds only tool returns and retries.
fn instructions(messages: &[Value]) -> Option<String> {
    let mut requests = messages.iter().rev().filter(|message| kind(message) == "request");
    let last = requests.next()?;
    if let Some(text) = last.get("instructions").and_then(Value::as_str) {
        return non_empty(text);
    }
    let previous = requests.next()?;
    let only_returns = parts(last)
        .iter()
        .all(|part| matches!(part_kind(part), "tool-return" | "retry-feedback"));
    if only_returns {
        return previous.get("instructions").and_then(Value::as_str).and_then(non_empty);
    }
    None
}

/// `system_instructions_attributes`: empty instructions are none.
fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

pub(super) fn kind(message: &Value) -> &str {
    field(message, "kind").as_str().unwrap_or("request")
}

fn parts(message: &Value) -> &[Value] {
    field(message, "parts").as_array().map_or(&[], Vec::as_slice)
}

fn part_kind(part: &Value) -> &str {
    field(part, "part_kind").as_str().unwrap_or("")
}

fn text(content: &Value) -> Value {
    object! {"type": "text", "content": content.clone()}
}

/// `_request_otel_messages`: one message per run of parts of one role (`_request_part_groups`,
/// instruction baselines left out).
fn request_messages(message: &Value, path: &str, version: u8, answered: bool) -> Result<Vec<Value>, Unsupported> {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for (index, part) in parts(message).iter().enumerate() {
        let part_path = format!("{path}.parts[{index}]");
        if part_kind(part) == "instruction-baseline" {
            continue;
        }
        let (role, otel_parts) = request_part(part, &part_path, version, answered)?;
        match messages.last_mut() {
            Some((last_role, existing)) if *last_role == role => existing.extend(otel_parts),
            _ => messages.push((role, otel_parts)),
        }
    }
    Ok(messages
        .into_iter()
        .map(|(role, parts)| object! {"role": role, "parts": parts})
        .collect())
}

/// A request part's role (`_otel_message_role`) and its `otel_message_parts`.
fn request_part(
    part: &Value,
    path: &str,
    version: u8,
    answered: bool,
) -> Result<(&'static str, Vec<Value>), Unsupported> {
    let tool_role = if version >= 6 { "tool" } else { "user" };
    Ok(match part_kind(part) {
        "system-prompt" => {
            let mut otel = text(field(part, "content"));
            // `_span_input_messages`: a request-scoped prompt sent with an earlier request.
            if answered && field(part, "scope").as_str() == Some("request") {
                otel["visible"] = Value::Bool(false);
            }
            ("system", vec![otel])
        }
        "user-prompt" => (
            "user",
            user_prompt(field(part, "content"), &format!("{path}.content"), version)?,
        ),
        "tool-return" => (tool_role, vec![tool_call_response(part, path, false)?]),
        "retry-feedback" => {
            let cause = field(part, "retry").get("cause").and_then(Value::as_str).unwrap_or("");
            user_feedback(field(part, "content"), cause, path, version)?
        }
        "compaction" => {
            let content = field(part, "content").as_str().unwrap_or("");
            let otel = if content.is_empty() {
                vec![]
            } else {
                vec![text(&content.into())]
            };
            ("user", otel)
        }
        "speech" => ("user", speech(part, path, version)?),
        // `InstructionDeltaPart.otel_message_parts`: `render()` with its defaults, in the system
        // voice (`_otel_message_role`).
        "instruction-delta" => {
            let content = match field(part, "content") {
                Value::Null => None,
                Value::String(content) => Some(content.as_str()),
                _ => {
                    return Err(Unsupported::at(
                        format!("{path}.content"),
                        "an instruction delta whose content is not text",
                    ))
                }
            };
            let rendered =
                msgflow_providers::instruction_delta_rendered(field(part, "id"), content).ok_or_else(|| {
                    Unsupported::at(
                        format!("{path}.id"),
                        "an instruction id in its object form (pydantic-ai resolves its `source` by a smart union; \
                     write the id as its string)",
                    )
                })?;
            ("system", vec![text(&rendered.into())])
        }
        // The deltas' `otel_message_parts`: what changed, recorded whatever `include_content` says.
        "tool-availability-delta" => {
            let names = part.get("tools_added").or_else(|| part.get("added"));
            let changes = added_names(names, &format!("{path}.tools_added"))?;
            (
                "system",
                vec![text(&format!("Tool availability changed: {changes}").into())],
            )
        }
        "capability-load-delta" => {
            let changes = added_names(part.get("loaded"), &format!("{path}.loaded"))?;
            (
                "system",
                vec![text(&format!("Loaded capabilities changed: {changes}").into())],
            )
        }
        "model-settings-delta" => {
            let mut changes = Vec::new();
            for (key, value) in field(part, "settings").as_object().into_iter().flatten() {
                let Some(repr) = python_repr(value) else {
                    return Err(Unsupported::at(
                        format!("{path}.settings.{key}"),
                        "a model setting that is not text, a number, a boolean or null",
                    ));
                };
                changes.push(format!("{key}={repr}"));
            }
            (
                "system",
                vec![text(&format!("Model settings changed: {}", changes.join(", ")).into())],
            )
        }
        other => return Err(unknown_part(path.to_owned(), other)),
    })
}

/// `UserPromptPart.otel_message_parts`.
fn user_prompt(content: &Value, path: &str, version: u8) -> Result<Vec<Value>, Unsupported> {
    let items = match content {
        Value::String(_) => return Ok(vec![text(content)]),
        Value::Array(items) => items,
        _ => {
            return Err(Unsupported::at(
                path,
                "user prompt content that is neither text nor a list",
            ))
        }
    };
    let mut otel = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{index}]");
        if item.is_string() {
            otel.push(text(item));
            continue;
        }
        match field(item, "kind").as_str().unwrap_or("") {
            "text-content" => otel.push(text(field(item, "content"))),
            // A `StructuredContent` is a `TextContent`: its `content` is the text recorded (rendered
            // by now where the history left it out, as pydantic-ai renders it on load).
            "structured-content" => otel.push(text(field(item, "content"))),
            kind @ ("image-url" | "audio-url" | "video-url" | "document-url") => {
                otel.push(media_url(item, kind, &item_path, version)?);
            }
            "binary" => otel.push(binary(item, &item_path, version)?),
            "uploaded-file" => otel.push(uploaded_file(item, &item_path)?),
            // `CachePoint` is a marker, not content.
            "cache-point" => {}
            // Every kind of `UserContent` is written above.
            other => {
                return Err(Unsupported::not_loaded(
                    item_path,
                    &format!("a `{other}` item of a user prompt"),
                    "an unknown `kind`",
                ))
            }
        }
    }
    Ok(otel)
}

/// `_convert_media_url_to_otel_part`.
fn media_url(item: &Value, kind: &str, path: &str, version: u8) -> Result<Value, Unsupported> {
    let url = field(item, "url").as_str().ok_or_else(|| {
        Unsupported::not_loaded(
            format!("{path}.url"),
            "a media URL that is not a string",
            "`url` is a `str`",
        )
    })?;
    if version < 4 {
        return Ok(json!({"type": kind, "url": url}));
    }
    let (url_kind, modality) = match kind {
        "image-url" => (UrlKind::Image, Some("image")),
        "audio-url" => (UrlKind::Audio, Some("audio")),
        "video-url" => (UrlKind::Video, Some("video")),
        _ => (UrlKind::Document, None),
    };
    let mut otel = Map::new();
    otel.insert("type".into(), "uri".into());
    if let Some(modality) = modality {
        otel.insert("modality".into(), modality.into());
    }
    // The media type is left out when it cannot be inferred, as pydantic-ai does.
    if let Some(media_type) = msgflow_media::url_item_media_type(url_kind, field(item, "media_type").as_str(), url) {
        otel.insert("mime_type".into(), media_type.into());
    }
    otel.insert("uri".into(), url.into());
    Ok(Value::Object(otel))
}

/// `_convert_binary_to_otel_part` of a `BinaryContent`'s JSON (`data` in base64 as pydantic-ai
/// reads it: either alphabet, padded or not): standard base64 `content` (`BinaryContent.base64`).
fn binary(item: &Value, path: &str, version: u8) -> Result<Value, Unsupported> {
    let media_type = field(item, "media_type").as_str().ok_or_else(|| {
        Unsupported::not_loaded(
            format!("{path}.media_type"),
            "binary content without a media type",
            "`media_type` is a required `str`",
        )
    })?;
    let bytes = Unsupported::binary_data(field(item, "data"), path)?;
    let content = base64::engine::general_purpose::STANDARD.encode(bytes);
    Ok(blob(media_type, content, version))
}

/// A binary part of a media type and its standard base64 content, by version.
fn blob(media_type: &str, content: String, version: u8) -> Value {
    if version < 4 {
        return object! {"type": "binary", "media_type": media_type, "content": content};
    }
    let mut otel = Map::new();
    otel.insert("type".into(), "blob".into());
    otel.insert("mime_type".into(), media_type.into());
    // `_infer_modality_from_media_type`.
    for modality in ["image", "audio", "video"] {
        if media_type.starts_with(&format!("{modality}/")) {
            otel.insert("modality".into(), modality.into());
        }
    }
    otel.insert("content".into(), content.into());
    Value::Object(otel)
}

/// `_convert_uploaded_file_to_otel_part`.
fn uploaded_file(item: &Value, path: &str) -> Result<Value, Unsupported> {
    let file_id = field(item, "file_id").as_str().unwrap_or("");
    let media_type = msgflow_media::uploaded_file_item_media_type(field(item, "media_type").as_str(), file_id)
        .map_err(|_| Unsupported::at(path, "an uploaded file whose media type pydantic-ai cannot infer"))?;
    let category = media_type.split('/').next().unwrap_or("");
    let modality = if matches!(category, "image" | "audio" | "video") {
        category
    } else {
        "document"
    };
    Ok(json!({"type": "file", "modality": modality, "mime_type": media_type, "file_id": file_id}))
}

/// `SpeechPart.otel_message_parts`: the transcript, then the audio.
fn speech(part: &Value, path: &str, version: u8) -> Result<Vec<Value>, Unsupported> {
    let mut otel = Vec::new();
    if let Some(transcript) = part.get("transcript").filter(|value| !value.is_null()) {
        otel.push(text(transcript));
    }
    if let Some(audio) = part.get("audio").filter(|value| !value.is_null()) {
        otel.push(binary(audio, &format!("{path}.audio"), version)?);
    }
    Ok(otel)
}

/// A `tool_call_response`'s `type`, `id` and `name` (and `builtin`).
fn tool_call_response_head(part: &Value, path: &str, builtin: bool) -> Result<Map<String, Value>, Unsupported> {
    let mut otel = Map::new();
    otel.insert("type".into(), "tool_call_response".into());
    otel.insert("id".into(), tool_call_id(part, path)?);
    otel.insert("name".into(), tool_name(part, path, false)?);
    if builtin {
        otel.insert("builtin".into(), true.into());
    }
    Ok(otel)
}

/// `BaseToolReturnPart.otel_message_parts` (and a native tool return's): the content as
/// `serialize_any` writes it.
fn tool_call_response(part: &Value, path: &str, builtin: bool) -> Result<Value, Unsupported> {
    let mut otel = tool_call_response_head(part, path, builtin)?;
    let content = field(part, "content");
    if !content.is_null() {
        otel.insert(
            "result".into(),
            super::tool_content::recorded(content, &super::tool_content::FileRecord::of(part)),
        );
    }
    Ok(Value::Object(otel))
}

/// A part's `tool_call_id` (one left out has msgflow's invented id by now: [`span`] reads the
/// history as loaded).
fn tool_call_id(part: &Value, path: &str) -> Result<Value, Unsupported> {
    match field(part, "tool_call_id") {
        Value::String(id) => Ok(Value::String(id.clone())),
        _ => Err(Unsupported::at(
            format!("{path}.tool_call_id"),
            "a tool part whose `tool_call_id` is not text",
        )),
    }
}

/// `RetryFeedbackPart.otel_message_parts` and its role (`_otel_message_role`): `model_response()`,
/// in the system voice from version 6 on where it speaks for the harness.
fn user_feedback(
    content: &Value,
    cause: &str,
    path: &str,
    version: u8,
) -> Result<(&'static str, Vec<Value>), Unsupported> {
    let (response, harness) = msgflow_providers::retry_feedback_model_response(content, cause).ok_or_else(|| {
        Unsupported::not_loaded(
            format!("{path}.content"),
            "this retry feedback",
            "a cause other than validation_error, model_retry or no_output, or content that is neither text nor \
                 a list of validation error details",
        )
    })?;
    let role = if version >= 6 && harness { "system" } else { "user" };
    Ok((role, vec![text(&Value::String(response))]))
}

/// `_response_otel_message`: the response's parts (`ModelResponse.otel_message_parts`) and its
/// finish reason; `redact_mcp` withholds MCP server names, as in a span's input.
fn response_message(message: &Value, path: &str, version: u8, redact_mcp: bool) -> Result<Value, Unsupported> {
    let mut otel_parts = Vec::new();
    for (index, part) in parts(message).iter().enumerate() {
        let part_path = format!("{path}.parts[{index}]");
        match part_kind(part) {
            "text" => otel_parts.push(text(field(part, "content"))),
            "thinking" => otel_parts.push(object! {"type": "thinking", "content": field(part, "content").clone()}),
            "file" => {
                let content = field(part, "content");
                // `FilePart.content` is `BinaryContent`, whose `kind` defaults to `binary`.
                if content.get("kind").is_some_and(|kind| kind != "binary") {
                    return Err(Unsupported::at(
                        format!("{part_path}.content"),
                        "a file part that is not binary content",
                    ));
                }
                otel_parts.push(binary(content, &format!("{part_path}.content"), version)?);
            }
            kind @ ("tool-call" | "builtin-tool-call") => {
                let builtin = kind == "builtin-tool-call";
                let mut otel = Map::new();
                otel.insert("type".into(), "tool_call".into());
                otel.insert("id".into(), tool_call_id(part, &part_path)?);
                otel.insert("name".into(), tool_name(part, &part_path, builtin && redact_mcp)?);
                if builtin {
                    otel.insert("builtin".into(), true.into());
                }
                match field(part, "args") {
                    Value::Null => {}
                    args @ (Value::String(_) | Value::Object(_)) => {
                        otel.insert("arguments".into(), args.clone());
                    }
                    _ => {
                        return Err(Unsupported::at(
                            format!("{part_path}.args"),
                            "tool call arguments that are neither text nor an object",
                        ))
                    }
                }
                otel_parts.push(Value::Object(otel));
            }
            "builtin-tool-return" => {
                let mut otel = tool_call_response(part, &part_path, true)?;
                otel["name"] = tool_name(part, &part_path, redact_mcp)?;
                otel_parts.push(otel);
            }
            "speech" => otel_parts.extend(speech(part, &part_path, version)?),
            // Compaction parts have no OTel part type.
            "compaction" => {}
            other => return Err(unknown_part(part_path, other)),
        }
    }
    let mut otel = Map::new();
    otel.insert("role".into(), "assistant".into());
    otel.insert("parts".into(), Value::Array(otel_parts));
    if let Some(reason) = message.get("finish_reason").filter(|reason| !reason.is_null()) {
        otel.insert("finish_reason".into(), reason.clone());
    }
    Ok(Value::Object(otel))
}

/// Every request and response part kind pydantic-ai 2.68.0 has is written above: any other is one
/// it does not load.
fn unknown_part(path: String, kind: &str) -> Unsupported {
    Unsupported::not_loaded(path, &format!("a `{kind}` part"), "an unknown `part_kind`")
}

/// A tool part's name, an MCP server's withheld where `redact` says so (native parts of a
/// span's input). A typed tool part without one gets its kind's name from pydantic-ai.
fn tool_name(part: &Value, path: &str, redact: bool) -> Result<Value, Unsupported> {
    match field(part, "tool_name") {
        Value::String(name) if redact && name.starts_with(MCP_PREFIX) => Ok(MCP_REDACTED.into()),
        Value::String(name) => Ok(name.as_str().into()),
        _ => Err(Unsupported::at(
            format!("{path}.tool_name"),
            "a tool part without a `tool_name`",
        )),
    }
}

/// `', '.join(f'+{name}' for name in names)`.
fn added_names(names: Option<&Value>, path: &str) -> Result<String, Unsupported> {
    let names = match names {
        None | Some(Value::Null) => return Ok(String::new()),
        Some(Value::Array(names)) => names,
        Some(_) => return Err(Unsupported::at(path, "a delta whose names are not a list")),
    };
    let mut changes = Vec::with_capacity(names.len());
    for name in names {
        let Some(name) = name.as_str() else {
            return Err(Unsupported::at(path, "a delta whose names are not text"));
        };
        changes.push(format!("+{name}"));
    }
    Ok(changes.join(", "))
}

/// Python's `repr` of a setting's value: text of printable ASCII, an integer, a boolean or `None`
/// (`None` for what msgflow does not write as Python does).
fn python_repr(value: &Value) -> Option<String> {
    match value {
        Value::Null => Some("None".into()),
        Value::Bool(flag) => Some(if *flag { "True" } else { "False" }.into()),
        Value::Number(number) if !number.to_string().contains(['.', 'e', 'E']) => Some(number.to_string()),
        Value::String(text) if text.chars().all(|c| c == ' ' || c.is_ascii_graphic()) => {
            Some(if text.contains('\'') && !text.contains('"') {
                format!("\"{text}\"")
            } else {
                format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
            })
        }
        _ => None,
    }
}
