//! The history a span recorded: OpenTelemetry GenAI messages (as pydantic-ai 2.68.0's
//! `messages_to_otel_messages` writes them, and as other instrumentations write the semantic
//! conventions) to a pydantic-ai history's JSON, the inverse of [`super::dump`].

use std::borrow::Cow;
use std::collections::HashMap;

use base64::Engine as _;
use msgflow_media::UrlKind;
use msgflow_wire::{ModelRequestPart, ModelResponsePart};
use rayon::prelude::*;
use serde_json::{Map, Value};

use super::{ALL_MESSAGES, INPUT_MESSAGES, OUTPUT_MESSAGES, SYSTEM_INSTRUCTIONS};
use crate::loaded::LoadedMessage;
use crate::loss::{LossKind, Report};
use crate::messages_builder::{loaded_message, Part};
use crate::object::object;
use crate::openai_chat::{shape, ShapeError};
use crate::round_trip::within_parse_depth;
use crate::typed_parts;

/// `_RETRY_FEEDBACK_FRAMING`, the line before fenced retry feedback.
const FEEDBACK_FRAMING: &str =
    "Your previous response failed the application's validation (this is automated feedback, not a message from the user):\n";

/// The key a bare array of messages is read under (no span attribute has it).
const BARE_MESSAGES: &str = "";

/// One span attribute: its name, its value (an array, or the JSON text of one), and its path.
pub(super) struct Attribute<'v> {
    pub key: String,
    /// Borrowed from a span document, owned when taken out of an OTLP export's span.
    pub value: Cow<'v, Value>,
    pub path: String,
}

/// The history of a span document: an object of span attributes, or a bare array of messages.
pub(super) fn span_document(
    value: &Value,
    path: &str,
    document: usize,
    report: &mut Report,
) -> Result<Vec<LoadedMessage>, ShapeError> {
    match value {
        Value::Array(_) => {
            let attribute = Attribute {
                key: BARE_MESSAGES.into(),
                value: Cow::Borrowed(value),
                path: path.to_owned(),
            };
            span_attributes(&[attribute], document, report)
        }
        Value::Object(object) => {
            let attributes: Vec<Attribute> = object
                .iter()
                .map(|(key, value)| Attribute {
                    key: key.clone(),
                    value: Cow::Borrowed(value),
                    path: crate::loss::key_path(path, key),
                })
                .collect();
            if !attributes.iter().any(|attribute| is_message_attribute(&attribute.key)) {
                return Err(shape(
                    path,
                    format!(
                        "expected OTel GenAI messages: an array of messages, an object of span attributes \
                         (`{INPUT_MESSAGES}`, `{OUTPUT_MESSAGES}`, `{SYSTEM_INSTRUCTIONS}`, `{ALL_MESSAGES}`) or an \
                         OTLP JSON export (`resourceSpans`)"
                    ),
                ));
            }
            span_attributes(&attributes, document, report)
        }
        _ => Err(shape(
            path,
            "expected OTel GenAI messages: an array of messages or an object of span attributes",
        )),
    }
}

fn is_message_attribute(key: &str) -> bool {
    [INPUT_MESSAGES, OUTPUT_MESSAGES, ALL_MESSAGES].contains(&key)
}

/// The history of one span's attributes: `pydantic_ai.all_messages` where present (it holds the
/// whole run), else the input messages then the output messages; the system instructions go on
/// every request. Other attributes are reported as dropped. Its messages are typed where the
/// loader built their parts typed (text, prompts, tool calls and results: the shapes most parts
/// have), so that a tool result is written once, from the span, as its part's JSON text.
pub(super) fn span_attributes(
    attributes: &[Attribute],
    document: usize,
    report: &mut Report,
) -> Result<Vec<LoadedMessage>, ShapeError> {
    let has_all = attributes.iter().any(|attribute| attribute.key == ALL_MESSAGES);
    let mut loader = Loader {
        document,
        report,
        history: Vec::new(),
        request: Vec::new(),
        request_path: None,
        request_role: None,
        user_items: Vec::new(),
        call_names: HashMap::new(),
    };
    let mut instructions = None;
    // The input before the output, whatever order the attributes come in.
    let mut ordered: Vec<&Attribute> = attributes.iter().collect();
    ordered.sort_by_key(|attribute| attribute.key == OUTPUT_MESSAGES);
    let mut input_end = None;
    for attribute in ordered {
        if attribute.key == OUTPUT_MESSAGES && input_end.is_none() {
            loader.flush_request();
            input_end = Some(loader.history.len());
        }
        let parsed;
        let value = match attribute.value.as_ref() {
            Value::String(text) => {
                parsed = serde_json::from_str::<Value>(text)
                    .map_err(|err| shape(&attribute.path, format!("expected the attribute's JSON text: {err}")))?;
                &parsed
            }
            other => other,
        };
        let path = attribute.path.as_str();
        match attribute.key.as_str() {
            ALL_MESSAGES => loader.messages(value, path)?,
            INPUT_MESSAGES | OUTPUT_MESSAGES if has_all => loader.loss(
                LossKind::Dropped,
                path,
                format!(
                    "`{}` (the agent run's `{ALL_MESSAGES}` holds the whole history)",
                    attribute.key
                ),
            ),
            INPUT_MESSAGES | OUTPUT_MESSAGES | BARE_MESSAGES => loader.messages(value, path)?,
            SYSTEM_INSTRUCTIONS => instructions = Some((instruction_text(value, path)?, path.to_owned())),
            other => loader.loss(
                LossKind::Dropped,
                path,
                format!("span attribute `{other}` (a history holds messages only)"),
            ),
        }
    }
    loader.flush_request();
    let mut history = loader.history;
    let report = loader.report;
    if let (Some(end), false) = (input_end, has_all) {
        // A prompt marked `visible: false` was sent with a request answered before the current
        // one: where the input's current request would hold it, the current request showed as no
        // message (empty, or only parts with no OTel form), and comes back empty.
        let current = super::dump::current_request_start(&history[..end], |message| message.request);
        let marked = history[current..end].iter().any(|message| {
            message.request
                && message
                    .parts
                    .iter()
                    .any(|part| matches!(part, Part::Json(part) if part["scope"] == "request"))
        });
        if marked {
            report.push(
                LossKind::Invented,
                document,
                "$",
                "an empty last request (a prompt of the span's input is marked as sent with an earlier request)",
            );
            history.insert(end, Built::request(Vec::new()));
        }
    }
    let input = attributes.iter().find(|attribute| attribute.key == INPUT_MESSAGES);
    let has_output = attributes.iter().any(|attribute| attribute.key == OUTPUT_MESSAGES);
    if let (Some(input), false, false) = (input, has_output, has_all) {
        // A span is recorded for a request: one whose input ends in a response was for a request
        // that shows as no message (empty, or only parts with no OTel form).
        if history.last().is_some_and(|message| !message.request) {
            report.push(
                LossKind::Invented,
                document,
                input.path.clone(),
                "an empty last request (the span's input ends in a response and it has no output)",
            );
            history.push(Built::request(Vec::new()));
        }
    }
    if let Some((instructions, path)) = instructions.filter(|(text, _)| !text.is_empty()) {
        // A span records the instructions of its last request only; an agent run sends the same
        // ones with each of its requests, so every request gets them.
        let mut requests = history.iter_mut().filter(|message| message.request).peekable();
        if requests.peek().is_none() {
            let mut request = Built::request(Vec::new());
            request.fields.insert("instructions".into(), instructions.into());
            history.insert(0, request);
        } else {
            let mut count = 0;
            for request in requests {
                request
                    .fields
                    .insert("instructions".into(), instructions.as_str().into());
                count += 1;
            }
            if count > 1 {
                report.push(
                    LossKind::Invented,
                    document,
                    path,
                    "the instructions of every request but the last (a span records the last request's; all get them)",
                );
            }
        }
    }
    Ok(history.into_par_iter().map(Built::into_loaded).collect())
}

/// A message of the history being read: its parts, typed where the loader could build them so,
/// and its keys other than `parts` and `kind`.
struct Built {
    request: bool,
    parts: Vec<Part>,
    fields: Map<String, Value>,
}

impl Built {
    fn request(parts: Vec<Part>) -> Self {
        Built {
            request: true,
            parts,
            fields: Map::new(),
        }
    }

    fn into_loaded(self) -> LoadedMessage {
        loaded_message(self.request, self.parts, self.fields)
    }
}

/// `gen_ai.system_instructions`: text parts, joined as pydantic-ai joins instruction parts.
fn instruction_text(value: &Value, path: &str) -> Result<String, ShapeError> {
    let Value::Array(parts) = value else {
        return Err(shape(path, "expected the system instructions as an array of parts"));
    };
    let mut texts = Vec::with_capacity(parts.len());
    for (index, part) in parts.iter().enumerate() {
        match (part.get("type").and_then(Value::as_str), part.get("content")) {
            (Some("text"), Some(Value::String(text))) => texts.push(text.as_str()),
            _ => {
                return Err(shape(
                    &format!("{path}[{index}]"),
                    "expected a text part `{\"type\": \"text\", \"content\": ...}`",
                ))
            }
        }
    }
    Ok(texts.join("\n\n"))
}

struct Loader<'r> {
    document: usize,
    report: &'r mut Report,
    history: Vec<Built>,
    /// The parts of the request being gathered, and the path of its first message.
    request: Vec<Part>,
    request_path: Option<String>,
    /// The role of the request's last OTel message.
    request_role: Option<String>,
    /// The items of the user prompt being gathered.
    user_items: Vec<Value>,
    /// The tool name of each call id seen, for responses that give none.
    call_names: HashMap<String, String>,
}

fn get<'v>(object: &'v Map<String, Value>, key: &str) -> &'v Value {
    object.get(key).unwrap_or(&Value::Null)
}

impl Loader<'_> {
    fn loss(&mut self, kind: LossKind, path: impl Into<String>, what: impl Into<String>) {
        self.report.push(kind, self.document, path, what);
    }

    fn messages(&mut self, value: &Value, path: &str) -> Result<(), ShapeError> {
        let Value::Array(messages) = value else {
            return Err(shape(path, "expected an array of OTel messages"));
        };
        for (index, message) in messages.iter().enumerate() {
            self.message(message, &format!("{path}[{index}]"))?;
        }
        Ok(())
    }

    fn flush_user_prompt(&mut self) {
        let mut items = std::mem::take(&mut self.user_items);
        let part = match items.as_mut_slice() {
            [] => return,
            [Value::String(text)] => Part::Request(typed_parts::user_prompt(std::mem::take(text))),
            _ => Part::Json(object! {"content": items, "part_kind": "user-prompt"}),
        };
        self.request.push(part);
    }

    fn flush_request(&mut self) {
        self.flush_user_prompt();
        self.request_role = None;
        if let Some(path) = self.request_path.take() {
            self.loss(
                LossKind::Invented,
                path,
                "request timestamps (pydantic-ai fills in the load time)",
            );
            let parts = std::mem::take(&mut self.request);
            self.history.push(Built::request(parts));
        }
    }

    fn message(&mut self, message: &Value, path: &str) -> Result<(), ShapeError> {
        let Some(object) = message.as_object() else {
            return Err(shape(path, "expected an OTel message object with a `role` and `parts`"));
        };
        let role = match object.get("role") {
            Some(Value::String(role)) => role.as_str(),
            _ => return Err(shape(&format!("{path}.role"), "expected the role as a string")),
        };
        let parts_path = format!("{path}.parts");
        let parts = match object.get("parts") {
            Some(Value::Array(parts)) => parts.as_slice(),
            _ => return Err(shape(&parts_path, "expected the message's parts as an array")),
        };
        for key in object.keys() {
            if !matches!(key.as_str(), "role" | "parts" | "finish_reason") {
                self.loss(
                    LossKind::Dropped,
                    crate::loss::key_path(path, key),
                    format!("`{key}` of an OTel message"),
                );
            }
        }
        match role {
            "assistant" => {
                self.flush_request();
                self.response(object, parts, &parts_path)
            }
            "system" | "user" | "tool" => {
                // A request's parts of one role make one message: a second message of the same
                // role is the next request.
                if self.request_role.as_deref() == Some(role) {
                    self.flush_request();
                }
                self.request_role = Some(role.to_owned());
                if self.request_path.is_none() {
                    self.request_path = Some(path.to_owned());
                }
                if parts.is_empty() && role == "user" {
                    // A user prompt of nothing but cache points, or of an empty list.
                    self.request.push(Part::Json(
                        object! {"content": Vec::<Value>::new(), "part_kind": "user-prompt"},
                    ));
                }
                for (index, part) in parts.iter().enumerate() {
                    self.request_part(role, part, &format!("{parts_path}[{index}]"))?;
                }
                self.flush_user_prompt();
                Ok(())
            }
            other => Err(shape(
                &format!("{path}.role"),
                format!("unknown role `{other}`: expected system, user, assistant or tool"),
            )),
        }
    }

    fn request_part(&mut self, role: &str, part: &Value, path: &str) -> Result<(), ShapeError> {
        let object = part_object(part, path)?;
        let kind = get(object, "type").as_str().unwrap_or("");
        self.unread_part_keys(object, kind, role, path);
        match kind {
            "text" if role == "system" => {
                self.flush_user_prompt();
                let content = self.text_content(object, path);
                // `_span_input_messages` marks a request-scoped prompt an earlier request was sent with.
                let prompt = if object.get("visible") == Some(&Value::Bool(false)) {
                    Part::Json(object! {"content": content, "scope": "request", "part_kind": "system-prompt"})
                } else {
                    Part::Request(typed_parts::system_prompt(content))
                };
                self.request.push(prompt);
            }
            "text" => {
                let content = self.text_content(object, path);
                if let Some(feedback) = retry_feedback(&content) {
                    self.flush_user_prompt();
                    self.request.push(Part::Json(feedback));
                } else {
                    self.user_items.push(Value::String(content));
                }
            }
            "tool_call_response" => {
                self.flush_user_prompt();
                let returned = self.tool_call_response(object, path, false);
                self.request.push(returned);
            }
            "uri" | "image-url" | "audio-url" | "video-url" | "document-url" => {
                if let Some(item) = self.media_url(object, kind, path) {
                    self.user_items.push(item);
                }
            }
            "blob" | "binary" => {
                if let Some(item) = self.binary(object, path) {
                    self.user_items.push(item);
                }
            }
            other => self.loss(
                LossKind::Dropped,
                path,
                format!("a `{other}` part of a `{role}` message (a request holds no such part)"),
            ),
        }
        Ok(())
    }

    /// Reports the keys of a part of `kind` (in a message of `role`, at `path`) that its reading
    /// leaves out: each kind's own, and of alternative spellings the first given.
    fn unread_part_keys(&mut self, object: &Map<String, Value>, kind: &str, role: &str, path: &str) {
        let first_of = |keys: &[&'static str]| keys.iter().copied().find(|key| object.contains_key(*key));
        let mut read: Vec<&str> = vec!["type"];
        match kind {
            "text" if role == "system" => read.extend(["content", "visible"]),
            "text" | "thinking" | "reasoning" => read.push("content"),
            "tool_call" | "server_tool_call" => {
                read.extend(["id", "name", "builtin"]);
                read.extend(first_of(&["arguments", "server_tool_call"]));
            }
            "tool_call_response" | "server_tool_call_response" => {
                read.extend(["id", "name", "builtin"]);
                read.extend(first_of(&["result", "response", "server_tool_call_response"]));
            }
            "uri" | "image-url" | "audio-url" | "video-url" | "document-url" => {
                read.extend(["mime_type", "modality"]);
                read.extend(first_of(&["uri", "url"]));
            }
            "blob" | "binary" => {
                read.extend(["content", "modality"]);
                read.extend(first_of(&["mime_type", "media_type"]));
            }
            // Dropped whole where it is read.
            _ => return,
        }
        for key in object.keys().filter(|key| !read.contains(&key.as_str())) {
            self.loss(
                LossKind::Dropped,
                crate::loss::key_path(path, key),
                format!("`{key}` of an OTel `{kind}` part"),
            );
        }
    }

    /// A text part's `content`; a span recorded without content holds none.
    fn text_content(&mut self, object: &Map<String, Value>, path: &str) -> String {
        match get(object, "content") {
            Value::String(text) => text.clone(),
            _ => {
                self.loss(
                    LossKind::Invented,
                    format!("{path}.content"),
                    "the text of a part recorded without content (empty text)",
                );
                String::new()
            }
        }
    }

    /// A `tool_call_response` as a tool return (or a native tool's return): typed, its result
    /// written as its JSON text straight from the span, where the JSON would read so.
    fn tool_call_response(&mut self, object: &Map<String, Value>, path: &str, native: bool) -> Part {
        let id = self.call_id(object, path);
        let name = match get(object, "name") {
            Value::String(name) => name.clone(),
            _ => match id.as_str().and_then(|id| self.call_names.get(id)) {
                Some(name) => name.clone(),
                None => {
                    self.loss(
                        LossKind::Invented,
                        format!("{path}.name"),
                        "the tool name of a tool response that names no tool nor answers a call seen (empty)",
                    );
                    String::new()
                }
            },
        };
        let result = object
            .get("result")
            .or_else(|| object.get("response"))
            .or_else(|| object.get("server_tool_call_response"))
            .unwrap_or(&Value::Null);
        // The file items of a result are pydantic-ai's dumps of the files the content held: recorded,
        // so that they load as files again (`_check_file_provenance`).
        let digests =
            msgflow_media::content_needs_file_digests(result).then(|| super::tool_content::dumped_file_digests(result));
        if let (false, Value::String(id)) = (native, &id) {
            // As the JSON below reads: a result within the parser's depth limit where it stands,
            // and no file in it (`with_content` records none).
            if digests.as_ref().is_none_or(Vec::is_empty) && within_parse_depth(result, 4) {
                let part = typed_parts::tool_return_without_kind(name, id.clone());
                return Part::Request(ModelRequestPart::ToolReturn(typed_parts::with_content(part, result)));
            }
        }
        let kind = if native { "builtin-tool-return" } else { "tool-return" };
        let mut part = object! {"tool_name": name, "content": result.clone(), "tool_call_id": id, "part_kind": kind};
        if let Some(digests) = digests {
            part["content_file_digests"] = digests.into();
        }
        Part::Json(part)
    }

    /// A call's `id`; when the span has none, pydantic-ai makes one up on load.
    fn call_id(&mut self, object: &Map<String, Value>, path: &str) -> Value {
        match get(object, "id") {
            Value::String(id) => Value::String(id.clone()),
            _ => {
                self.loss(
                    LossKind::Invented,
                    format!("{path}.id"),
                    "tool call ids (pydantic-ai makes one up on load)",
                );
                Value::Null
            }
        }
    }

    /// A `uri` part (version 4 on) or a `*-url` part (before) as a URL item; the media type is
    /// kept where it is not the one pydantic-ai infers from the URL.
    fn media_url(&mut self, object: &Map<String, Value>, kind: &str, path: &str) -> Option<Value> {
        let url = get(object, "uri").as_str().or_else(|| get(object, "url").as_str());
        let Some(url) = url else {
            self.loss(LossKind::Dropped, path, "a media part recorded without its URL");
            return None;
        };
        let mime_type = get(object, "mime_type").as_str();
        let item_kind = match kind {
            "uri" => match get(object, "modality").as_str() {
                Some("image") => "image-url",
                Some("audio") => "audio-url",
                Some("video") => "video-url",
                _ => "document-url",
            },
            other => other,
        };
        let url_kind = UrlKind::from_kind_tag(item_kind).unwrap_or(UrlKind::Document);
        let mut item = Map::new();
        item.insert("url".into(), url.into());
        if let Some(mime_type) = mime_type {
            if msgflow_media::infer_url_media_type(url_kind, url).as_deref() != Some(mime_type) {
                item.insert("media_type".into(), mime_type.into());
            }
        }
        item.insert("kind".into(), item_kind.into());
        Some(Value::Object(item))
    }

    /// A `blob` part (version 4 on) or a `binary` part (before) as binary content.
    fn binary(&mut self, object: &Map<String, Value>, path: &str) -> Option<Value> {
        let media_type = get(object, "mime_type")
            .as_str()
            .or_else(|| get(object, "media_type").as_str());
        let content = get(object, "content").as_str();
        let (Some(media_type), Some(content)) = (media_type, content) else {
            self.loss(
                LossKind::Dropped,
                path,
                "a binary part recorded without its media type or content",
            );
            return None;
        };
        // pydantic-ai writes standard base64; another producer's URL-safe or unpadded text reads too.
        let Ok(bytes) = msgflow_wire::Base64Data::decode_str(content) else {
            self.loss(LossKind::Dropped, path, "a binary part whose content is not base64");
            return None;
        };
        let data = base64::engine::general_purpose::URL_SAFE.encode(bytes);
        Some(object! {"data": data, "media_type": media_type, "kind": "binary"})
    }

    fn response(&mut self, object: &Map<String, Value>, parts: &[Value], path: &str) -> Result<(), ShapeError> {
        let mut history_parts = Vec::with_capacity(parts.len());
        for (index, part) in parts.iter().enumerate() {
            let part_path = format!("{path}[{index}]");
            let part_object = part_object(part, &part_path)?;
            let builtin = get(part_object, "builtin") == &Value::Bool(true);
            let kind = get(part_object, "type").as_str().unwrap_or("");
            self.unread_part_keys(part_object, kind, "assistant", &part_path);
            match kind {
                "text" => {
                    let content = self.text_content(part_object, &part_path);
                    history_parts.push(Part::Response(typed_parts::text(content)));
                }
                "thinking" | "reasoning" => {
                    let content = self.text_content(part_object, &part_path);
                    history_parts.push(Part::Response(typed_parts::bare_thinking(content)));
                }
                kind @ ("tool_call" | "server_tool_call") => {
                    let id = self.call_id(part_object, &part_path);
                    if let (Value::String(id), Value::String(name)) = (&id, get(part_object, "name")) {
                        self.call_names.insert(id.clone(), name.clone());
                    }
                    let native = builtin || kind == "server_tool_call";
                    // The semantic conventions' `server_tool_call` holds the call's own details.
                    let args = part_object
                        .get("arguments")
                        .or_else(|| part_object.get("server_tool_call"))
                        .unwrap_or(&Value::Null);
                    // As the JSON below reads: arguments within the parser's depth limit where
                    // they stand (`null` ones read as none, not as `null` text).
                    if let (false, Value::String(id), Value::String(name)) = (native, &id, get(part_object, "name")) {
                        if !args.is_null() && within_parse_depth(args, 4) {
                            let args = typed_parts::payload(args);
                            let part = typed_parts::tool_call_without_kind(name.clone(), args, id.clone());
                            history_parts.push(Part::Response(ModelResponsePart::ToolCall(part)));
                            continue;
                        }
                    }
                    let part_kind = if native { "builtin-tool-call" } else { "tool-call" };
                    history_parts.push(Part::Json(object! {"tool_name": get(part_object, "name").clone(),
                    "args": args.clone(), "tool_call_id": id, "part_kind": part_kind}));
                }
                kind @ ("tool_call_response" | "server_tool_call_response")
                    if builtin || kind != "tool_call_response" =>
                {
                    history_parts.push(self.tool_call_response(part_object, &part_path, true));
                }
                "blob" | "binary" => {
                    if let Some(content) = self.binary(part_object, &part_path) {
                        history_parts.push(Part::Json(object! {"content": content, "part_kind": "file"}));
                    }
                }
                other => self.loss(
                    LossKind::Dropped,
                    part_path,
                    format!("a `{other}` part of an `assistant` message (a response holds no such part)"),
                ),
            }
        }
        let mut response = Built {
            request: false,
            parts: history_parts,
            fields: Map::new(),
        };
        match get(object, "finish_reason") {
            Value::Null => {}
            Value::String(reason) if FINISH_REASONS.contains(&reason.as_str()) => {
                response.fields.insert("finish_reason".into(), reason.as_str().into());
            }
            _ => self.loss(
                LossKind::Dropped,
                format!("{path}.finish_reason"),
                "a finish reason pydantic-ai does not have",
            ),
        }
        self.loss(
            LossKind::Invented,
            path.strip_suffix(".parts").unwrap_or(path),
            "response timestamps (pydantic-ai fills in the load time)",
        );
        self.history.push(response);
        Ok(())
    }
}

/// pydantic-ai's `FinishReason`s.
const FINISH_REASONS: [&str; 5] = ["stop", "length", "content_filter", "tool_call", "error"];

fn part_object<'v>(part: &'v Value, path: &str) -> Result<&'v Map<String, Value>, ShapeError> {
    part.as_object()
        .filter(|object| object.get("type").is_some_and(Value::is_string))
        .ok_or_else(|| shape(path, "expected a part object with a `type`"))
}

/// `RetryFeedbackPart.model_response()` in the user voice, read back: a `ModelRetry` message
/// (`model_retry`) or validation error details (`validation_error`), if `text` is one.
fn retry_feedback(text: &str) -> Option<Value> {
    let fenced = text.strip_prefix(FEEDBACK_FRAMING)?;
    for (tag, cause) in [
        ("pyai:validation_errors", "validation_error"),
        ("pyai:retry_feedback", "model_retry"),
    ] {
        let Some(inner) = fenced
            .strip_prefix(&format!("<{tag}>\n"))
            .and_then(|rest| rest.strip_suffix(&format!("\n</{tag}>")))
        else {
            continue;
        };
        let content = if cause == "validation_error" {
            serde_json::from_str::<Value>(inner).ok().filter(Value::is_array)?
        } else {
            Value::String(inner.to_owned())
        };
        // Only feedback pydantic-ai renders as this very text (error details it loads) is read as such.
        let rendered = msgflow_providers::retry_feedback_model_response(&content, cause);
        if rendered.is_none_or(|(rendered, _)| rendered != text) {
            return None;
        }
        return Some(object! {"content": content, "retry": object!{"cause": cause}, "part_kind": "retry-feedback"});
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The messages `span_document` reads from `span`.
    fn read(span: Value) -> Vec<LoadedMessage> {
        span_document(&span, "$", 0, &mut Report::default()).expect("a span document")
    }

    fn json_read_as(message: Value) -> msgflow_wire::ModelMessage {
        let mut history = msgflow_wire::from_str(&Value::Array(vec![message]).to_string()).expect("a history");
        history.pop().expect("one message")
    }

    #[test]
    fn the_common_parts_are_typed_as_their_json_reads() {
        let messages = read(json!({
            INPUT_MESSAGES: [
                {"role": "system", "parts": [{"type": "text", "content": "be brief"}]},
                {"role": "user", "parts": [{"type": "text", "content": "weather?"}]},
                {"role": "assistant", "parts": [
                    {"type": "thinking", "content": "hmm"},
                    {"type": "text", "content": "checking"},
                    {"type": "tool_call", "id": "c1", "name": "weather", "arguments": {"city": "Paris"}},
                    {"type": "tool_call", "id": "c2", "name": "weather", "arguments": "{\"city\": \"Rome\"}"}],
                 "finish_reason": "tool_call"},
                {"role": "tool", "parts": [
                    {"type": "tool_call_response", "id": "c1", "name": "weather", "result": {"sky": ["sun"]}},
                    {"type": "tool_call_response", "id": "c2", "result": "rain"}]}
            ],
            SYSTEM_INSTRUCTIONS: [{"type": "text", "content": "answer in French"}]
        }));
        let expected = [
            json!({"parts": [{"content": "be brief", "part_kind": "system-prompt"},
                             {"content": "weather?", "part_kind": "user-prompt"}],
                   "kind": "request", "instructions": "answer in French"}),
            json!({"parts": [{"content": "hmm", "part_kind": "thinking"}, {"content": "checking", "part_kind": "text"},
                             {"tool_name": "weather", "args": {"city": "Paris"}, "tool_call_id": "c1", "part_kind": "tool-call"},
                             {"tool_name": "weather", "args": "{\"city\": \"Rome\"}", "tool_call_id": "c2", "part_kind": "tool-call"}],
                   "kind": "response", "finish_reason": "tool_call"}),
            json!({"parts": [{"tool_name": "weather", "content": {"sky": ["sun"]}, "tool_call_id": "c1",
                              "part_kind": "tool-return", "content_file_digests": []},
                             {"tool_name": "weather", "content": "rain", "tool_call_id": "c2", "part_kind": "tool-return"}],
                   "kind": "request", "instructions": "answer in French"}),
        ];
        assert_eq!(messages.len(), expected.len());
        for (message, expected) in messages.into_iter().zip(expected) {
            let LoadedMessage::Typed(message) = message else {
                panic!("not typed: {message:?}");
            };
            assert_eq!(message, json_read_as(expected));
        }
    }

    #[test]
    fn other_parts_stay_json() {
        let messages = read(json!([
            {"role": "system", "parts": [{"type": "text", "content": "earlier", "visible": false}]},
            {"role": "user", "parts": [{"type": "text", "content": "look"}, {"type": "uri", "uri": "https://x.test/a.png", "modality": "image"}]},
            {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f"}]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "name": "f", "result": 1}]}
        ]));
        assert!(
            messages.iter().all(|message| matches!(message, LoadedMessage::Json(_))),
            "{messages:?}"
        );
    }
}
