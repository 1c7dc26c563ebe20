//! OpenAI Chat Completions messages to and from pydantic-ai histories.
//!
//! * [`to_value`]: the request pydantic-ai's `OpenAIChatModel` (`gpt-4o`) sends for the history
//!   (`msgflow_providers::openai_chat::export`: `_map_messages`), as `{"messages": [...]}`.
//! * [`from_value`]: the inverse. Consecutive `system` / `developer` / `user` / `tool` / `function`
//!   messages make one request; each `assistant` message makes one response, read as
//!   `OpenAIChatModel._process_response` reads a completion's message (`_process_thinking` for the
//!   `reasoning` and `reasoning_content` fields, `map_chat_content` splitting `<think>` tags,
//!   `map_tool_call_provider_details` for `extra_content`, a refusal as `provider_details`).
//!   A tool message whose text ends the way `RetryPromptPart.model_response` ends becomes the
//!   retry prompt it was made from.

use std::collections::HashMap;

use msgflow_wire::{
    Base64Data, BinaryContent, Field, FinishReason, ImageUrl, ModelMessage, ModelRequest, ModelRequestPart,
    ModelResponse, ModelResponsePart, RawJson, RetryPromptPart, SystemPromptPart, TextPart, ThinkingPart, ToolCallPart,
    ToolReturnPart, UploadedFile, UploadedFileProviderName, UserContent, UserPromptContent, UserPromptPart,
};
use serde_json::{Map, Value};

use crate::loss::{LossKind, Report};
use crate::ConvertError;

/// `OpenAIChatModel.system`: the provider name its responses' thinking parts carry.
const SYSTEM: &str = "openai";
/// `RetryPromptPart.model_response`'s closing line.
const RETRY_SUFFIX: &str = "\n\nFix the errors and try again.";
/// `RetryPromptPart.model_response`'s opening for a retry that answers no tool call.
const RETRY_PREFIX: &str = "Validation feedback:\n";
/// The keys of an assistant message with a meaning of their own.
const ASSISTANT_KEYS: [&str; 10] = [
    "role",
    "content",
    "name",
    "tool_calls",
    "function_call",
    "refusal",
    "annotations",
    "audio",
    "reasoning",
    "reasoning_content",
];
/// The thinking fields `_process_thinking` reads, in its order.
const THINKING_FIELDS: [&str; 2] = ["reasoning", "reasoning_content"];

/// A value of the input that is not what the format allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// The JSON path of the value.
    pub path: String,
    /// What was expected.
    pub message: String,
}

/// A [`ShapeError`] at `path`.
pub(crate) fn shape(path: &str, message: impl Into<String>) -> ShapeError {
    ShapeError {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// The Chat Completions request pydantic-ai would send for `history` (`{"messages": [...]}`),
/// reporting in `report` every value of the history the messages cannot hold (found by reading
/// the messages back with [`from_value`]), at its path in the history.
pub fn to_value(history: &[ModelMessage], document: usize, report: &mut Report) -> Result<Value, ConvertError> {
    let exported = msgflow_providers::openai_chat::export(history).map(|exported| exported.request);
    crate::exported_request(exported, history, document, report, from_value, "OpenAI Chat messages")
}

/// The history Chat Completions messages hold: `value` is an array of messages, a request body
/// `{"messages": [...], ...}` (a fine-tuning line) or a Batch API line `{"body": {"messages": ...}}`.
/// Everything the history cannot hold, and everything pydantic-ai will fill in on load, is
/// reported in `report` at its path in `value`.
pub fn from_value(value: &Value, document: usize, report: &mut Report) -> Result<Vec<ModelMessage>, ShapeError> {
    let (messages, path) = locate_messages(value, document, report)?;
    let mut reader = Reader {
        document,
        report,
        history: Vec::new(),
        request: Vec::new(),
        request_path: None,
        call_names: HashMap::new(),
        legacy_calls: Vec::new(),
        invented_ids: 0,
    };
    for (index, message) in messages.iter().enumerate() {
        reader.message(message, &format!("{path}[{index}]"))?;
    }
    reader.flush_request();
    Ok(reader.history)
}

/// The messages array of the accepted shapes, and its path; other keys of a body are reported.
fn locate_messages<'v>(
    value: &'v Value,
    document: usize,
    report: &mut Report,
) -> Result<(&'v [Value], String), ShapeError> {
    const EXPECTED: &str =
        "expected OpenAI Chat messages: an array of messages, {\"messages\": [...]} or {\"body\": {\"messages\": [...]}}";
    let mut path = "$".to_owned();
    let mut current = value;
    loop {
        match current {
            Value::Array(messages) => return Ok((messages, path)),
            Value::Object(object) => {
                let inner = ["messages", "body"].into_iter().find(|key| object.contains_key(*key));
                let Some(inner) = inner else {
                    // A response (or a Batch API output line) is what users most often pass by mistake.
                    let message = if object.contains_key("choices") || object.contains_key("response") {
                        format!(
                            "{EXPECTED}; this is a Chat Completions response (`choices`), not the messages of a \
                             request: its assistant message is `choices[0].message`, which goes after the \
                             request's messages"
                        )
                    } else {
                        EXPECTED.to_owned()
                    };
                    return Err(shape(&path, message));
                };
                for key in object.keys().filter(|key| key.as_str() != inner) {
                    report.push(
                        LossKind::Dropped,
                        document,
                        crate::loss::key_path(&path, key),
                        format!("request field `{key}` (a history holds messages only)"),
                    );
                }
                path = format!("{path}.{inner}");
                current = &object[inner];
                if inner == "messages" && !current.is_array() {
                    return Err(shape(&path, "expected an array of messages"));
                }
            }
            _ => return Err(shape(&path, EXPECTED)),
        }
    }
}

struct Reader<'r> {
    document: usize,
    report: &'r mut Report,
    history: Vec<ModelMessage>,
    /// The parts of the request being gathered, and the path of its first message.
    request: Vec<ModelRequestPart>,
    request_path: Option<String>,
    /// The tool name of each call id seen, for the `tool` messages answering them.
    call_names: HashMap<String, String>,
    /// Legacy `function_call`s not answered yet: (name, invented id).
    legacy_calls: Vec<(String, String)>,
    invented_ids: usize,
}

impl Reader<'_> {
    fn loss(&mut self, kind: LossKind, path: impl Into<String>, what: impl Into<String>) {
        self.report.push(kind, self.document, path, what);
    }

    fn flush_request(&mut self) {
        if let Some(path) = self.request_path.take() {
            self.loss(
                LossKind::Invented,
                path,
                "request timestamps (pydantic-ai fills in the load time)",
            );
            let parts = std::mem::take(&mut self.request);
            self.history
                .push(ModelMessage::Request(Box::new(ModelRequest::new(parts))));
        }
    }

    fn request_part(&mut self, part: ModelRequestPart, path: &str) {
        let is_result = is_tool_result(&part);
        // pydantic-ai sends a request's tool results ahead of its other parts: a result after a
        // prompt begins the next request.
        if is_result && self.request.iter().any(|part| !is_tool_result(part)) {
            self.flush_request();
        }
        if self.request_path.is_none() {
            self.request_path = Some(path.to_owned());
        }
        self.request.push(part);
    }

    fn message(&mut self, message: &Value, path: &str) -> Result<(), ShapeError> {
        let Some(object) = message.as_object() else {
            return Err(shape(path, "expected a message object with a `role`"));
        };
        let role = match object.get("role") {
            Some(Value::String(role)) => role.as_str(),
            Some(_) => return Err(shape(&format!("{path}.role"), "expected the role as a string")),
            None => return Err(shape(path, "expected a `role` in the message")),
        };
        let known: &[&str] = match role {
            "system" | "developer" => &["role", "content", "name"],
            "user" => &["role", "content", "name"],
            "assistant" => &ASSISTANT_KEYS,
            "tool" => &["role", "content", "tool_call_id"],
            "function" => &["role", "content", "name"],
            other => {
                return Err(shape(
                    &format!("{path}.role"),
                    format!("unknown role `{other}`: expected system, developer, user, assistant, tool or function"),
                ))
            }
        };
        for (key, value) in object {
            // Any other text field of an assistant message is a thinking field (`_process_thinking`
            // with `openai_chat_thinking_field` naming it; the export writes it by the part's id).
            let thinking_field = role == "assistant" && value.is_string();
            if !known.contains(&key.as_str()) && !value.is_null() && !thinking_field {
                self.loss(
                    LossKind::Dropped,
                    crate::loss::key_path(path, key),
                    format!(
                        "`{key}` of a{} `{role}` message",
                        if role == "assistant" { "n" } else { "" }
                    ),
                );
            }
        }
        if role != "function" && role != "assistant" && object.get("name").is_some_and(|name| !name.is_null()) {
            self.loss(
                LossKind::Dropped,
                format!("{path}.name"),
                format!("`name` of a `{role}` message (parts carry no author name)"),
            );
        }
        let content = object.get("content").unwrap_or(&Value::Null);
        let content_path = format!("{path}.content");
        match role {
            "system" | "developer" => {
                for text in texts(content, &content_path, false)? {
                    self.request_part(ModelRequestPart::SystemPrompt(SystemPromptPart::new(text)), path);
                }
            }
            "user" => self.user(content, &content_path, path)?,
            "assistant" => {
                self.flush_request();
                self.assistant(object, path)?;
            }
            "tool" => {
                let id = match object.get("tool_call_id") {
                    Some(Value::String(id)) => id.clone(),
                    _ => {
                        return Err(shape(
                            &format!("{path}.tool_call_id"),
                            "expected the id of the call as a string",
                        ))
                    }
                };
                let text = texts(content, &content_path, true)?.concat();
                let name = match self.call_names.get(&id) {
                    Some(name) => name.clone(),
                    None => {
                        self.loss(
                            LossKind::Invented,
                            format!("{path}.tool_call_id"),
                            "an empty tool name for a result whose call is not in the messages",
                        );
                        String::new()
                    }
                };
                let part = tool_result(name, text, id);
                self.request_part(part, path);
            }
            _ => {
                // Legacy `function` role: answers the oldest unanswered `function_call` of that name.
                let name = match object.get("name") {
                    Some(Value::String(name)) => name.clone(),
                    _ => {
                        return Err(shape(
                            &format!("{path}.name"),
                            "expected the function's name as a string",
                        ))
                    }
                };
                let text = texts(content, &content_path, true)?.concat();
                let id = match self.legacy_calls.iter().position(|(called, _)| *called == name) {
                    Some(at) => self.legacy_calls.remove(at).1,
                    None => self.invent_id(path),
                };
                self.request_part(tool_result(name, text, id), path);
            }
        }
        Ok(())
    }

    fn invent_id(&mut self, path: &str) -> String {
        self.invented_ids += 1;
        self.loss(
            LossKind::Invented,
            path,
            "a tool call id for a legacy `function_call` (Chat messages of that kind carry none)",
        );
        format!("pyd_ai_function_call_{}", self.invented_ids)
    }

    fn user(&mut self, content: &Value, content_path: &str, path: &str) -> Result<(), ShapeError> {
        let part = match content {
            Value::String(text) => match text
                .strip_prefix(RETRY_PREFIX)
                .and_then(|t| t.strip_suffix(RETRY_SUFFIX))
            {
                Some(feedback) => ModelRequestPart::RetryPrompt(RetryPromptPart::new(RawJson::string(feedback))),
                None => ModelRequestPart::UserPrompt(UserPromptPart::new(UserPromptContent::Text(text.clone()))),
            },
            Value::Array(items) => {
                let mut contents = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    contents.push(self.user_item(item, &format!("{content_path}[{index}]"))?);
                }
                ModelRequestPart::UserPrompt(UserPromptPart::new(UserPromptContent::Items(contents)))
            }
            _ => {
                return Err(shape(
                    content_path,
                    "expected the content as a string or an array of content parts",
                ))
            }
        };
        self.request_part(part, path);
        Ok(())
    }

    fn user_item(&mut self, item: &Value, path: &str) -> Result<UserContent, ShapeError> {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        let field = |key: &str| item.get(key).and_then(Value::as_object);
        match kind {
            "text" => match item.get("text") {
                Some(Value::String(text)) => Ok(UserContent::Text(text.clone())),
                _ => Err(shape(&format!("{path}.text"), "expected the text as a string")),
            },
            "image_url" => {
                let image = field("image_url").ok_or_else(|| shape(path, "expected an `image_url` object"))?;
                let image_path = format!("{path}.image_url");
                let url = match image.get("url") {
                    Some(Value::String(url)) => url,
                    _ => {
                        return Err(shape(
                            &format!("{image_path}.url"),
                            "expected the image URL as a string",
                        ))
                    }
                };
                let metadata = image
                    .get("detail")
                    .filter(|detail| !detail.is_null())
                    .map(|detail| RawJson::from_value(&serde_json::json!({ "detail": detail })).expect("JSON"));
                if url.starts_with("data:") {
                    let mut binary = binary_from_data_uri(url, &format!("{image_path}.url"))?;
                    binary.vendor_metadata = metadata.map_or(Field::Null, Field::Present);
                    Ok(UserContent::Binary(binary))
                } else {
                    let mut image = ImageUrl::new(url.clone());
                    image.vendor_metadata = metadata.map_or(Field::Null, Field::Present);
                    Ok(UserContent::ImageUrl(image))
                }
            }
            "input_audio" => {
                let audio = field("input_audio").ok_or_else(|| shape(path, "expected an `input_audio` object"))?;
                let audio_path = format!("{path}.input_audio");
                let media_type = match audio.get("format").and_then(Value::as_str) {
                    Some("wav") => "audio/wav",
                    Some("mp3") => "audio/mpeg",
                    _ => {
                        return Err(shape(
                            &format!("{audio_path}.format"),
                            "expected the format `wav` or `mp3`",
                        ))
                    }
                };
                let data = match audio.get("data") {
                    Some(Value::String(data)) => Base64Data::parse(data)
                        .map_err(|err| shape(&format!("{audio_path}.data"), format!("not base64: {err}")))?,
                    _ => {
                        return Err(shape(
                            &format!("{audio_path}.data"),
                            "expected the audio as a base64 string",
                        ))
                    }
                };
                Ok(UserContent::Binary(BinaryContent::new(data, media_type.to_owned())))
            }
            "file" => {
                let file = field("file").ok_or_else(|| shape(path, "expected a `file` object"))?;
                let file_path = format!("{path}.file");
                if let Some(Value::String(id)) = file.get("file_id") {
                    return Ok(UserContent::UploadedFile(UploadedFile::new(
                        id.clone(),
                        UploadedFileProviderName::Openai,
                    )));
                }
                let uri = match file.get("file_data") {
                    Some(Value::String(uri)) => uri,
                    _ => return Err(shape(&file_path, "expected `file_data` (a data: URI) or `file_id`")),
                };
                if let Some(Value::String(name)) = file.get("filename") {
                    // pydantic-ai names every inline document `filename.<format>`.
                    if !name.starts_with("filename.") {
                        self.loss(
                            LossKind::Dropped,
                            format!("{file_path}.filename"),
                            "a file's name (binary content has none)",
                        );
                    }
                }
                Ok(UserContent::Binary(binary_from_data_uri(
                    uri,
                    &format!("{file_path}.file_data"),
                )?))
            }
            "" => Err(shape(path, "expected a content part with a `type`")),
            other => Err(shape(
                &format!("{path}.type"),
                format!("unknown content part type `{other}`: expected text, image_url, input_audio or file"),
            )),
        }
    }

    fn assistant(&mut self, object: &Map<String, Value>, path: &str) -> Result<(), ShapeError> {
        let mut parts = Vec::new();
        let mut response_details = Map::new();
        let custom_fields = object
            .iter()
            .filter(|(key, value)| value.is_string() && !ASSISTANT_KEYS.contains(&key.as_str()))
            .map(|(key, _)| key.as_str());
        for field in THINKING_FIELDS.into_iter().chain(custom_fields) {
            match object.get(field) {
                // An empty `reasoning` or `reasoning_content` is the export's backfill, not a part.
                Some(Value::String(text)) if !text.is_empty() || !THINKING_FIELDS.contains(&field) => {
                    let mut thinking = ThinkingPart::new(text.clone());
                    thinking.id = Field::Present(field.to_owned());
                    thinking.provider_name = Field::Present(SYSTEM.to_owned());
                    parts.push(ModelResponsePart::Thinking(thinking));
                }
                None | Some(Value::Null) | Some(Value::String(_)) => {}
                Some(_) => return Err(shape(&format!("{path}.{field}"), "expected the reasoning as a string")),
            }
        }
        let content_path = format!("{path}.content");
        match object.get("content").unwrap_or(&Value::Null) {
            Value::Null => {}
            // An empty string is an empty text part (the export writes `null` when there is none).
            Value::String(text) if text.is_empty() => parts.push(ModelResponsePart::Text(TextPart::new(String::new()))),
            Value::String(text) => parts.extend(split_thinking(text)),
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let item_path = format!("{content_path}[{index}]");
                    match (item.get("type").and_then(Value::as_str), item) {
                        (Some("text"), _) => match item.get("text") {
                            Some(Value::String(text)) => parts.extend(split_thinking(text)),
                            _ => return Err(shape(&format!("{item_path}.text"), "expected the text as a string")),
                        },
                        (Some("refusal"), _) => match item.get("refusal") {
                            Some(Value::String(text)) => {
                                response_details.insert("refusal".to_owned(), Value::String(text.clone()));
                            }
                            _ => {
                                return Err(shape(
                                    &format!("{item_path}.refusal"),
                                    "expected the refusal as a string",
                                ))
                            }
                        },
                        _ => return Err(shape(&item_path, "expected a `text` or `refusal` content part")),
                    }
                }
            }
            _ => {
                return Err(shape(
                    &content_path,
                    "expected the content as a string, an array of parts or null",
                ))
            }
        }
        if let Some(calls) = object.get("tool_calls").filter(|calls| !calls.is_null()) {
            let calls_path = format!("{path}.tool_calls");
            let Some(calls) = calls.as_array() else {
                return Err(shape(&calls_path, "expected an array of tool calls"));
            };
            for (index, call) in calls.iter().enumerate() {
                let part = self.tool_call(call, &format!("{calls_path}[{index}]"))?;
                parts.push(ModelResponsePart::ToolCall(part));
            }
        }
        if let Some(call) = object.get("function_call").filter(|call| !call.is_null()) {
            let call_path = format!("{path}.function_call");
            let (name, args) = function(call, &call_path)?;
            let id = self.invent_id(&call_path);
            self.legacy_calls.push((name.clone(), id.clone()));
            let mut part = ToolCallPart::new(name);
            part.args = Field::Present(args);
            part.tool_call_id = Field::Present(id);
            parts.push(ModelResponsePart::ToolCall(part));
        }
        match object.get("refusal") {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => {
                response_details.insert("refusal".to_owned(), Value::String(text.clone()));
            }
            Some(_) => {
                return Err(shape(
                    &format!("{path}.refusal"),
                    "expected the refusal as a string or null",
                ))
            }
        }
        if let Some(annotations) = object.get("annotations").and_then(Value::as_array) {
            if !annotations.is_empty() {
                self.loss(
                    LossKind::Dropped,
                    format!("{path}.annotations"),
                    "an assistant message's annotations",
                );
            }
        }
        if object.get("name").is_some_and(|name| !name.is_null()) {
            self.loss(
                LossKind::Dropped,
                format!("{path}.name"),
                "`name` of an `assistant` message (responses carry no author name)",
            );
        }
        let mut response = ModelResponse::new(parts);
        if !response_details.is_empty() {
            // `_process_response`: a refusal is recorded in `provider_details`, as a content filter stop.
            response.provider_details =
                Field::Present(RawJson::from_value(&Value::Object(response_details)).expect("JSON"));
            response.finish_reason = Field::Present(FinishReason::from_wire("content_filter"));
        }
        self.loss(
            LossKind::Invented,
            path,
            "response timestamps (pydantic-ai fills in the load time)",
        );
        self.history.push(ModelMessage::Response(Box::new(response)));
        Ok(())
    }

    fn tool_call(&mut self, call: &Value, path: &str) -> Result<ToolCallPart, ShapeError> {
        let Some(object) = call.as_object() else {
            return Err(shape(path, "expected a tool call object"));
        };
        let id = match object.get("id") {
            Some(Value::String(id)) => id.clone(),
            _ => return Err(shape(&format!("{path}.id"), "expected the call's id as a string")),
        };
        match object.get("type").and_then(Value::as_str) {
            None | Some("function") => {}
            Some(other) => {
                return Err(shape(
                    &format!("{path}.type"),
                    format!("tool call type `{other}`: pydantic-ai takes function calls only"),
                ))
            }
        }
        let function_value = object
            .get("function")
            .ok_or_else(|| shape(path, "expected a `function` with the name and arguments"))?;
        let (name, args) = function(function_value, &format!("{path}.function"))?;
        self.call_names.insert(id.clone(), name.clone());
        let mut part = ToolCallPart::new(name);
        part.args = Field::Present(args);
        part.tool_call_id = Field::Present(id);
        if let Some(extra) = object.get("extra_content").filter(|extra| !extra.is_null()) {
            // `map_tool_call_provider_details`.
            let details = serde_json::json!({ "extra_content": extra });
            part.provider_details = Field::Present(RawJson::from_value(&details).expect("JSON"));
            part.provider_name = Field::Present(SYSTEM.to_owned());
        }
        Ok(part)
    }
}

fn is_tool_result(part: &ModelRequestPart) -> bool {
    match part {
        ModelRequestPart::ToolReturn(_) => true,
        ModelRequestPart::RetryPrompt(retry) => retry.tool_name.get().is_some(),
        _ => false,
    }
}

/// A function's name and arguments: a string as it came (pydantic-ai keeps the text, invalid JSON
/// included), an object as it is.
fn function(value: &Value, path: &str) -> Result<(String, RawJson), ShapeError> {
    let name = match value.get("name") {
        Some(Value::String(name)) => name.clone(),
        _ => {
            return Err(shape(
                &format!("{path}.name"),
                "expected the function's name as a string",
            ))
        }
    };
    let args = match value.get("arguments") {
        Some(Value::String(text)) => RawJson::string(text),
        Some(arguments @ Value::Object(_)) => RawJson::from_value(arguments).expect("JSON"),
        None | Some(Value::Null) => RawJson::string(""),
        Some(_) => {
            return Err(shape(
                &format!("{path}.arguments"),
                "expected the arguments as a string (JSON text) or an object",
            ))
        }
    };
    Ok((name, args))
}

/// A tool message's text made back into what pydantic-ai mapped to it: a retry prompt when it ends
/// as `RetryPromptPart.model_response` ends, else a tool return.
fn tool_result(name: String, text: String, id: String) -> ModelRequestPart {
    match text.strip_suffix(RETRY_SUFFIX) {
        Some(feedback) => {
            let mut retry = RetryPromptPart::new(RawJson::string(feedback));
            retry.tool_name = Field::Present(name);
            retry.tool_call_id = Field::Present(id);
            ModelRequestPart::RetryPrompt(retry)
        }
        None => {
            let mut part = ToolReturnPart::new(name, RawJson::string(&text));
            part.tool_call_id = Field::Present(id);
            ModelRequestPart::ToolReturn(part)
        }
    }
}

/// `split_content_into_text_and_thinking` with the default tags, thinking marked as
/// `map_chat_content` marks it (`id='content'`, the provider's name), undoing what the export
/// adds around each part: the newline inside each tag and the blank line between parts (a
/// response's parts are joined by one).
fn split_thinking(content: &str) -> Vec<ModelResponsePart> {
    const START: &str = "<think>";
    const END: &str = "</think>";
    let mut parts = Vec::new();
    let mut rest = content;
    let mut after_thinking = false;
    while let Some(start) = rest.find(START) {
        if let Some(text) = text_between(&rest[..start], after_thinking, true) {
            parts.push(ModelResponsePart::Text(TextPart::new(text.to_owned())));
        }
        rest = &rest[start + START.len()..];
        match rest.find(END) {
            Some(end) => {
                let inner = &rest[..end];
                let inner = inner
                    .strip_prefix('\n')
                    .and_then(|inner| inner.strip_suffix('\n'))
                    .unwrap_or(inner);
                let mut thinking = ThinkingPart::new(inner.to_owned());
                thinking.id = Field::Present("content".to_owned());
                thinking.provider_name = Field::Present(SYSTEM.to_owned());
                parts.push(ModelResponsePart::Thinking(thinking));
                rest = &rest[end + END.len()..];
                after_thinking = true;
            }
            None => {
                parts.push(ModelResponsePart::Text(TextPart::new(rest.to_owned())));
                rest = "";
                after_thinking = false;
            }
        }
    }
    if let Some(text) = text_between(rest, after_thinking, false) {
        parts.push(ModelResponsePart::Text(TextPart::new(text.to_owned())));
    }
    parts
}

/// The text part a segment of an assistant `content` around thinking tags holds, if any: the
/// segment without the blank lines that join it to a thinking part before and after it (an empty
/// text part still leaves its separators).
fn text_between(segment: &str, after_thinking: bool, before_thinking: bool) -> Option<&str> {
    const JOIN: &str = "\n\n";
    match (after_thinking, before_thinking) {
        (true, true) if segment == JOIN => None,
        (_, _) if segment.is_empty() => None,
        _ => {
            let mut text = segment;
            if after_thinking {
                text = text.strip_prefix(JOIN).unwrap_or(text);
            }
            if before_thinking {
                text = text.strip_suffix(JOIN).unwrap_or(text);
            }
            Some(text)
        }
    }
}

/// The texts of a `content`: a string, or an array of `text` parts. `null` is allowed (as no
/// text) where `allow_null`.
fn texts(content: &Value, path: &str, allow_null: bool) -> Result<Vec<String>, ShapeError> {
    match content {
        Value::String(text) => Ok(vec![text.clone()]),
        Value::Null if allow_null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(
                |(index, item)| match (item.get("type").and_then(Value::as_str), item.get("text")) {
                    (Some("text"), Some(Value::String(text))) => Ok(text.clone()),
                    _ => Err(shape(
                        &format!("{path}[{index}]"),
                        "expected a text part {\"type\": \"text\", \"text\": ...}",
                    )),
                },
            )
            .collect(),
        _ => Err(shape(
            path,
            "expected the content as a string or an array of text parts",
        )),
    }
}

/// Binary content from a `data:` URI, as pydantic-ai's `BinaryContent.from_data_uri` reads it.
fn binary_from_data_uri(uri: &str, path: &str) -> Result<BinaryContent, ShapeError> {
    let (media_type, bytes) =
        msgflow_media::parse_data_uri(uri).map_err(|err| shape(path, format!("not a base64 data: URI: {err}")))?;
    Ok(BinaryContent::new(Base64Data::from_bytes(&bytes), media_type))
}
