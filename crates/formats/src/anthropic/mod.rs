//! Anthropic Messages requests to and from pydantic-ai histories.
//!
//! * [`to_value`]: the request pydantic-ai's `AnthropicModel` (`claude-sonnet-4-5`) sends for the
//!   history (`msgflow_providers::anthropic::export`: `_map_message`), as `{"system": ..., "messages": [...]}`.
//! * [`from_value`]: the inverse. Each `user` turn makes one request and each `assistant` turn one
//!   response, its blocks read as `AnthropicModel._process_response` reads a message's content
//!   (`map_server_tool_use_block`, `map_web_search_tool_result_block`, ... for server-side tools,
//!   `map_citations` for web search citations). A user turn of only `<assistant_thinking>` frames
//!   is the reasoning `_append_model_response_turns` carried there ahead of its response's assistant
//!   turn, and goes back into that response (one of its own when no assistant turn follows). A
//!   `system` entry ends the request of the user turn before it (`deferred.rs`).

use std::collections::HashMap;

use msgflow_wire::{Base64Data, ModelMessage};
use serde_json::{json, Map, Value};

use crate::loss::{LossKind, Report};
use crate::openai_chat::{shape, ShapeError};
use crate::ConvertError;

mod assistant;
mod deferred;

/// `AnthropicModel.system`: the provider name of the parts its responses carry.
const SYSTEM: &str = "anthropic";
/// `RetryPromptPart.model_response`'s closing line.
const RETRY_SUFFIX: &str = "\n\nFix the errors and try again.";
/// `RetryPromptPart.model_response`'s opening for a retry that answers no tool call.
const RETRY_PREFIX: &str = "Validation feedback:\n";
/// `assistant_thinking_frame`: reasoning carried into a user turn.
const CARRIED_START: &str = "<assistant_thinking>\n";
const CARRIED_END: &str = "\n</assistant_thinking>";

/// The Messages request pydantic-ai would send for `history` (`{"system": ..., "messages": [...]}`),
/// reporting in `report` every value of the history the request cannot hold (found by reading it
/// back with [`from_value`]), at its path in the history.
pub fn to_value(history: &[ModelMessage], document: usize, report: &mut Report) -> Result<Value, ConvertError> {
    let exported = msgflow_providers::anthropic::export(history).map(|exported| exported.request);
    crate::exported_request(exported, history, document, report, from_value, "Anthropic request")
}

/// The history an Anthropic Messages request holds: `value` is a request body
/// `{"system": ..., "messages": [...], ...}`, a Message Batches line `{"params": {...}}` or a bare
/// array of messages. Everything the history cannot hold, and everything pydantic-ai will fill in
/// on load, is reported in `report` at its path in `value`.
pub fn from_value(value: &Value, document: usize, report: &mut Report) -> Result<Vec<ModelMessage>, ShapeError> {
    let (body, path) = locate_body(value, document, report)?;
    let mut reader = Reader {
        document,
        report,
        history: Vec::new(),
        call_names: HashMap::new(),
        carried: Vec::new(),
    };
    let (messages, messages_path) = match body {
        Body::Messages(messages) => (messages, path.clone()),
        Body::Request(object) => {
            let messages_path = format!("{path}.messages");
            let messages = match object.get("messages") {
                Some(Value::Array(messages)) => messages.as_slice(),
                _ => return Err(shape(&messages_path, "expected an array of messages")),
            };
            (messages, messages_path)
        }
    };
    for (index, message) in messages.iter().enumerate() {
        let next_role = messages
            .get(index + 1)
            .and_then(|next| next.get("role"))
            .and_then(Value::as_str);
        reader.message(message, &format!("{messages_path}[{index}]"), next_role)?;
    }
    if let Body::Request(object) = body {
        if let Some(system) = object.get("system").filter(|system| !system.is_null()) {
            reader.system(system, &format!("{path}.system"))?;
        }
    }
    let history = Value::Array(reader.history);
    msgflow_wire::from_str(&history.to_string()).map_err(|err| {
        shape(
            "$",
            format!("msgflow made a history it cannot read back (please report this): {err}"),
        )
    })
}

enum Body<'v> {
    Messages(&'v [Value]),
    Request(&'v Map<String, Value>),
}

/// The request body (or bare messages) of the accepted shapes, and its path; request fields other
/// than `system` and `messages` are reported.
fn locate_body<'v>(value: &'v Value, document: usize, report: &mut Report) -> Result<(Body<'v>, String), ShapeError> {
    const EXPECTED: &str = "expected an Anthropic Messages request: {\"system\": ..., \"messages\": [...]}, \
                            {\"params\": {...}} or an array of messages";
    match value {
        Value::Array(messages) => Ok((Body::Messages(messages), "$".to_owned())),
        Value::Object(object) => {
            let (object, path) = match object.get("params") {
                Some(Value::Object(params)) if !object.contains_key("messages") => {
                    for key in object.keys().filter(|key| key.as_str() != "params") {
                        report.push(
                            LossKind::Dropped,
                            document,
                            format!("$.{key}"),
                            format!("batch field `{key}` (a history holds messages only)"),
                        );
                    }
                    (params, "$.params".to_owned())
                }
                _ => (object, "$".to_owned()),
            };
            if !object.contains_key("messages") {
                // A response is what users most often pass by mistake.
                if object.get("type").and_then(Value::as_str) == Some("message") {
                    return Err(shape(
                        &path,
                        format!(
                            "{EXPECTED}; this is a Messages response (`\"type\": \"message\"`), not a \
                             request: its `role` and `content` make the assistant message that goes after the \
                             request's messages"
                        ),
                    ));
                }
                return Err(shape(&path, EXPECTED));
            }
            for key in object
                .keys()
                .filter(|key| !matches!(key.as_str(), "messages" | "system"))
            {
                report.push(
                    LossKind::Dropped,
                    document,
                    crate::loss::key_path(&path, key),
                    format!("request field `{key}` (a history holds messages only)"),
                );
            }
            Ok((Body::Request(object), path))
        }
        _ => Err(shape("$", EXPECTED)),
    }
}

struct Reader<'r> {
    document: usize,
    report: &'r mut Report,
    /// The history's messages, as pydantic-ai's JSON.
    history: Vec<Value>,
    /// The tool name of each call id seen, for the results answering them.
    call_names: HashMap<String, String>,
    /// Reasoning carried in a user turn, for the assistant turn after it.
    carried: Vec<Value>,
}

impl Reader<'_> {
    fn loss(&mut self, kind: LossKind, path: impl Into<String>, what: impl Into<String>) {
        self.report.push(kind, self.document, path, what);
    }

    /// `_build_system_prompt` undone: a string is the system prompts (joined, one part); text
    /// blocks are the system prompt's block, then the instructions' (of the last request).
    fn system(&mut self, system: &Value, path: &str) -> Result<(), ShapeError> {
        let mut prompts = Vec::new();
        let mut instructions = None;
        match system {
            Value::String(text) => prompts.push(text.clone()),
            Value::Array(blocks) => {
                let mut texts = Vec::with_capacity(blocks.len());
                for (index, block) in blocks.iter().enumerate() {
                    let block_path = format!("{path}[{index}]");
                    texts.push(self.text_block(block, &block_path)?);
                }
                instructions = texts.pop();
                prompts = texts;
            }
            _ => {
                return Err(shape(
                    path,
                    "expected the system prompt as a string or an array of text blocks",
                ))
            }
        }
        let parts: Vec<Value> = prompts
            .into_iter()
            .map(|content| json!({"part_kind": "system-prompt", "content": content}))
            .collect();
        if !parts.is_empty() {
            match self.history.first_mut() {
                Some(first) if first["kind"] == "request" => {
                    let existing = first["parts"].as_array_mut().expect("a request has parts");
                    existing.splice(0..0, parts);
                }
                _ => {
                    self.history.insert(0, json!({"kind": "request", "parts": parts}));
                    self.loss(
                        LossKind::Invented,
                        path,
                        "request timestamps (pydantic-ai fills in the load time)",
                    );
                }
            }
        }
        if let Some(instructions) = instructions {
            match self
                .history
                .iter_mut()
                .rev()
                .find(|message| message["kind"] == "request")
            {
                Some(request) => request["instructions"] = Value::String(instructions),
                None => {
                    self.history
                        .insert(0, json!({"kind": "request", "parts": [], "instructions": instructions}));
                    self.loss(
                        LossKind::Invented,
                        path,
                        "request timestamps (pydantic-ai fills in the load time)",
                    );
                }
            }
        }
        Ok(())
    }

    /// A `{"type": "text", "text": ...}` block's text (its `cache_control` reported).
    fn text_block(&mut self, block: &Value, path: &str) -> Result<String, ShapeError> {
        match (block.get("type").and_then(Value::as_str), block.get("text")) {
            (Some("text"), Some(Value::String(text))) => {
                self.extra_keys(block, path, &["type", "text"]);
                Ok(text.clone())
            }
            _ => Err(shape(path, "expected a text block {\"type\": \"text\", \"text\": ...}")),
        }
    }

    /// Reports the keys of a block beyond `known` (and a `cache_control`) as dropped.
    fn extra_keys(&mut self, block: &Value, path: &str, known: &[&str]) {
        let Some(object) = block.as_object() else { return };
        let kind = object.get("type").and_then(Value::as_str).unwrap_or("?").to_owned();
        for (key, value) in object {
            if known.contains(&key.as_str()) || value.is_null() {
                continue;
            }
            let what = if key == "cache_control" {
                "`cache_control` of a block (prompt caching is a request setting, not history)".to_owned()
            } else {
                format!("`{key}` of a `{kind}` block")
            };
            self.loss(LossKind::Dropped, crate::loss::key_path(path, key), what);
        }
    }

    fn message(&mut self, message: &Value, path: &str, next_role: Option<&str>) -> Result<(), ShapeError> {
        let Some(object) = message.as_object() else {
            return Err(shape(path, "expected a message object with a `role`"));
        };
        let role = match object.get("role") {
            Some(Value::String(role)) => role.as_str(),
            Some(_) => return Err(shape(&format!("{path}.role"), "expected the role as a string")),
            None => return Err(shape(path, "expected a `role` in the message")),
        };
        for key in object.keys().filter(|key| !matches!(key.as_str(), "role" | "content")) {
            self.loss(
                LossKind::Dropped,
                crate::loss::key_path(path, key),
                format!("`{key}` of a message"),
            );
        }
        let content = object.get("content").unwrap_or(&Value::Null);
        let content_path = format!("{path}.content");
        match role {
            "user" => {
                if self.carried_thinking(content) {
                    // A response of nothing but that reasoning has no assistant turn of its own.
                    if next_role != Some("assistant") {
                        let parts = std::mem::take(&mut self.carried);
                        self.loss(
                            LossKind::Invented,
                            path,
                            "response timestamps (pydantic-ai fills in the load time)",
                        );
                        self.history.push(json!({"kind": "response", "parts": parts}));
                    }
                    return Ok(());
                }
                let parts = self.user(content, &content_path)?;
                self.loss(
                    LossKind::Invented,
                    path,
                    "request timestamps (pydantic-ai fills in the load time)",
                );
                self.history.push(json!({"kind": "request", "parts": parts}));
            }
            "assistant" => {
                let mut parts = std::mem::take(&mut self.carried);
                parts.extend(self.assistant(content, &content_path)?);
                self.loss(
                    LossKind::Invented,
                    path,
                    "response timestamps (pydantic-ai fills in the load time)",
                );
                self.history.push(json!({"kind": "response", "parts": parts}));
            }
            "system" => self.system_entry(content, path)?,
            other => {
                return Err(shape(
                    &format!("{path}.role"),
                    format!("unknown role `{other}`: expected user, assistant or system"),
                ))
            }
        }
        Ok(())
    }

    /// Whether `content` is only reasoning carried by `_append_model_response_turns`, which it
    /// keeps for the next response (thinking parts of no provider).
    fn carried_thinking(&mut self, content: &Value) -> bool {
        let Some(blocks) = content.as_array().filter(|blocks| !blocks.is_empty()) else {
            return false;
        };
        let texts: Option<Vec<&str>> = blocks
            .iter()
            .map(|block| {
                let object = block
                    .as_object()
                    .filter(|object| object.len() == 2 && object.get("type").is_some_and(|kind| kind == "text"))?;
                object
                    .get("text")?
                    .as_str()?
                    .strip_prefix(CARRIED_START)?
                    .strip_suffix(CARRIED_END)
            })
            .collect();
        let Some(texts) = texts else { return false };
        self.carried = texts
            .into_iter()
            .map(|text| json!({"part_kind": "thinking", "content": text}))
            .collect();
        true
    }

    /// A user turn's parts: tool results as results (or the retries they were made from), runs of
    /// text, images and documents as user prompts.
    fn user(&mut self, content: &Value, path: &str) -> Result<Vec<Value>, ShapeError> {
        let blocks = match content {
            Value::String(text) => return Ok(vec![user_text(text)]),
            Value::Array(blocks) => blocks,
            _ => {
                return Err(shape(
                    path,
                    "expected the content as a string or an array of content blocks",
                ))
            }
        };
        let mut parts = Vec::new();
        let mut run: Vec<Value> = Vec::new();
        for (index, block) in blocks.iter().enumerate() {
            let block_path = format!("{path}[{index}]");
            match block.get("type").and_then(Value::as_str) {
                Some("text") => run.push(Value::String(self.text_block(block, &block_path)?)),
                Some("image" | "document") => run.push(self.file(block, &block_path)?),
                Some("tool_result") => {
                    flush_run(&mut run, &mut parts);
                    parts.push(self.tool_result(block, &block_path)?);
                }
                Some(other) => {
                    return Err(shape(
                        &format!("{block_path}.type"),
                        format!("unknown user block type `{other}`: expected text, image, document or tool_result"),
                    ))
                }
                None => return Err(shape(&block_path, "expected a content block with a `type`")),
            }
        }
        flush_run(&mut run, &mut parts);
        Ok(parts)
    }

    /// An image or document block as pydantic-ai's file item (`_map_binary_data`, `_map_image_url`,
    /// `_map_document_url` and `_map_uploaded_file` undone).
    fn file(&mut self, block: &Value, path: &str) -> Result<Value, ShapeError> {
        let image = block["type"] == "image";
        self.extra_keys(block, path, &["type", "source"]);
        let source_path = format!("{path}.source");
        let Some(source) = block.get("source").and_then(Value::as_object) else {
            return Err(shape(&source_path, "expected a `source` object"));
        };
        let string = |key: &str| match source.get(key) {
            Some(Value::String(text)) => Ok(text.as_str()),
            _ => Err(shape(
                &format!("{source_path}.{key}"),
                format!("expected `{key}` as a string"),
            )),
        };
        match source.get("type").and_then(Value::as_str) {
            Some("base64") => {
                let data = string("data")?;
                Base64Data::parse(data)
                    .map_err(|err| shape(&format!("{source_path}.data"), format!("not base64: {err}")))?;
                Ok(json!({"kind": "binary", "data": data, "media_type": string("media_type")?}))
            }
            Some("text") if !image => {
                let data = string("data")?;
                let media_type = source.get("media_type").and_then(Value::as_str).unwrap_or("text/plain");
                Ok(json!({"kind": "binary", "data": Base64Data::from_bytes(data.as_bytes()), "media_type": media_type}))
            }
            Some("url") => {
                let url = string("url")?;
                // `media_type` is written (`null`) as pydantic-ai writes it: a tool return's content
                // is read as a file only with every key of its dump.
                if image {
                    Ok(json!({"kind": "image-url", "url": url, "media_type": null}))
                } else {
                    let mut item = json!({"kind": "document-url", "url": url, "media_type": null});
                    // Anthropic takes PDFs by URL: a URL that does not say so gets the media type
                    // (pydantic-ai guesses it from the URL's end, a query string included).
                    if !url.to_ascii_lowercase().ends_with(".pdf") {
                        item["media_type"] = json!("application/pdf");
                        self.loss(
                            LossKind::Invented,
                            &source_path,
                            "the media type of a document URL (`application/pdf`)",
                        );
                    }
                    Ok(item)
                }
            }
            Some("file") => {
                let file_id = string("file_id")?;
                let mut item = json!({
                    "kind": "uploaded-file", "file_id": file_id, "provider_name": SYSTEM, "media_type": null,
                });
                let inferred = msgflow_media::uploaded_file_media_type(file_id);
                if image {
                    // `_map_uploaded_file` sends an image only for an `image/...` media type, which
                    // pydantic-ai infers from the id's extension: one that says otherwise (or none)
                    // gets a type that says so.
                    if inferred.is_ok_and(|inferred| inferred.starts_with("image/")) {
                        return Ok(item);
                    }
                    item["media_type"] = json!("image/*");
                    self.loss(
                        LossKind::Invented,
                        &source_path,
                        "the media type of an uploaded image (`image/*`)",
                    );
                } else if !inferred
                    .is_ok_and(|inferred| inferred.starts_with("text/") || inferred.starts_with("application/"))
                {
                    // A document only for a `text/...` or `application/...` type, which pydantic-ai
                    // infers from the id's extension: one that says otherwise (`v.mp4`, `a.png`)
                    // gets the type it infers for an id without one.
                    item["media_type"] = json!("application/octet-stream");
                    self.loss(
                        LossKind::Invented,
                        &source_path,
                        "the media type of an uploaded document (`application/octet-stream`)",
                    );
                }
                Ok(item)
            }
            Some(other) => Err(shape(
                &format!("{source_path}.type"),
                format!(
                    "source type `{other}` of {}: expected base64, {}url or file",
                    if image { "an image" } else { "a document" },
                    if image { "" } else { "text, " }
                ),
            )),
            None => Err(shape(&source_path, "expected a source with a `type`")),
        }
    }

    /// A `tool_result` block as the tool return (or retry prompt) `_map_tool_return_part` made it of.
    fn tool_result(&mut self, block: &Value, path: &str) -> Result<Value, ShapeError> {
        self.extra_keys(block, path, &["type", "tool_use_id", "content", "is_error"]);
        let id = match block.get("tool_use_id") {
            Some(Value::String(id)) => id.clone(),
            _ => {
                return Err(shape(
                    &format!("{path}.tool_use_id"),
                    "expected the id of the call as a string",
                ))
            }
        };
        let is_error = match block.get("is_error") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(flag)) => *flag,
            Some(_) => return Err(shape(&format!("{path}.is_error"), "expected `is_error` as a boolean")),
        };
        let content_path = format!("{path}.content");
        let mut items = Vec::new();
        let mut discovered = None;
        match block.get("content").unwrap_or(&Value::Null) {
            content if deferred::holds_tool_references(content) => {
                discovered = Some(self.discovered_tools(content, &content_path)?);
            }
            Value::Null => {}
            Value::String(text) if text.is_empty() => {}
            // A string result written by hand, not by pydantic-ai (which sends text blocks).
            Value::String(text) => items.push(Value::String(text.clone())),
            Value::Array(blocks) => {
                for (index, inner) in blocks.iter().enumerate() {
                    let inner_path = format!("{content_path}[{index}]");
                    match inner.get("type").and_then(Value::as_str) {
                        Some("text") => items.push(Value::String(self.text_block(inner, &inner_path)?)),
                        Some("image" | "document") => {
                            let file = self.file(inner, &inner_path)?;
                            items.push(recorded_file(file, &inner_path)?);
                        }
                        _ => {
                            return Err(shape(
                                &inner_path,
                                "expected a text, image or document block in a tool result",
                            ))
                        }
                    }
                }
            }
            _ => {
                return Err(shape(
                    &content_path,
                    "expected the content as a string or an array of blocks",
                ))
            }
        }
        let name = match self.call_names.get(&id) {
            Some(name) => name.clone(),
            None => {
                self.loss(
                    LossKind::Invented,
                    format!("{path}.tool_use_id"),
                    "an empty tool name for a result whose call is not in the messages",
                );
                String::new()
            }
        };
        if let Some(content) = discovered {
            // A local tool search's result (`ToolSearchReturnPart`), answering its call.
            self.mark_search_call(&id);
            let mut part = json!({"part_kind": "tool-return", "tool_name": name, "content": content,
                "tool_call_id": id, "tool_kind": deferred::TOOL_SEARCH_KIND, "content_file_digests": []});
            if is_error {
                part["outcome"] = json!("failed");
            }
            return Ok(part);
        }
        if let [Value::String(text)] = items.as_slice() {
            if let Some(feedback) = text.strip_suffix(RETRY_SUFFIX).filter(|_| is_error) {
                return Ok(json!({
                    "part_kind": "retry-prompt", "content": feedback, "tool_name": name, "tool_call_id": id,
                }));
            }
        }
        // `""` is a result without items (an empty list); one text block is a string result.
        let content = match items.as_slice() {
            [Value::String(_)] => items.pop().expect("one item"),
            _ => Value::Array(items),
        };
        let digests = msgflow_media::content_file_digests_field(&content);
        let mut part = json!({"part_kind": "tool-return", "tool_name": name, "content": content, "tool_call_id": id});
        if let Some(digests) = digests.get() {
            // `_RecordsContentFiles`: the uploaded files of the result are files, not JSON data.
            part["content_file_digests"] = serde_json::to_value(digests).expect("digests serialise");
        }
        if is_error {
            part["outcome"] = json!("failed");
        }
        Ok(part)
    }
}

/// A URL or uploaded file in a tool result, dumped as pydantic-ai dumps it (every key, the media
/// type guessed and the identifier filled in): pydantic-ai reads such a mapping in a result's
/// content as a file only in that form, with its digest recorded (`_RecordsContentFiles`).
fn recorded_file(mut file: Value, path: &str) -> Result<Value, ShapeError> {
    let kind = file["kind"].as_str().unwrap_or_default().to_owned();
    if kind == "uploaded-file" {
        let file_id = file["file_id"].as_str().unwrap_or_default().to_owned();
        if file["media_type"].is_null() {
            let media_type = msgflow_media::uploaded_file_media_type(&file_id)
                .map_err(|err| shape(&format!("{path}.source.file_id"), err.to_string()))?;
            file["media_type"] = Value::String(media_type);
        }
        file["identifier"] = Value::String(msgflow_media::identifier_for_file_id(&file_id));
    } else if let Some(url_kind) = msgflow_media::UrlKind::from_kind_tag(&kind) {
        let url = file["url"].as_str().unwrap_or_default().to_owned();
        let explicit = file["media_type"].as_str().map(str::to_owned);
        file["media_type"] =
            msgflow_media::url_item_media_type(url_kind, explicit.as_deref(), &url).map_or(Value::Null, Value::String);
        file["force_download"] = Value::Bool(false);
        file["identifier"] = Value::String(msgflow_media::identifier_for_url(&url));
    } else {
        return Ok(file);
    }
    file["vendor_metadata"] = Value::Null;
    Ok(file)
}

/// A user prompt, or the retry feedback `RetryPromptPart.model_response` framed as one.
fn user_text(text: &str) -> Value {
    match text
        .strip_prefix(RETRY_PREFIX)
        .and_then(|text| text.strip_suffix(RETRY_SUFFIX))
    {
        Some(feedback) => json!({"part_kind": "retry-prompt", "content": feedback}),
        None => json!({"part_kind": "user-prompt", "content": text}),
    }
}

/// Ends a run of user blocks: texts alone are one prompt each; a run with an image or a document
/// is one prompt of items (a prompt's items are sent as consecutive blocks).
fn flush_run(run: &mut Vec<Value>, parts: &mut Vec<Value>) {
    if run.iter().all(Value::is_string) {
        parts.extend(run.drain(..).map(|text| user_text(text.as_str().expect("a text"))));
    } else {
        parts.push(json!({"part_kind": "user-prompt", "content": std::mem::take(run)}));
    }
}
