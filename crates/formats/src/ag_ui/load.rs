//! AG-UI messages to a history, as pydantic-ai 2.68.0's `AGUIAdapter.load_messages`
//! (`pydantic_ai.ui.ag_ui._adapter`) reads them, building the history with `messages_builder` (typed parts for the common shapes, JSON for the rest).

use std::collections::HashMap;

use msgflow_wire::{Field, ModelRequestPart, RawJson, ToolReturnOutcome, UploadedFileProviderName};
use serde_json::{json, Map, Value};

use super::content::{
    legacy_binary_item, media_item, rehydrate, rehydrated_tool_contents, returned_content, wire, MediaItem, Rehydrated,
};
use super::{dump, BUILTIN_TOOL_CALL_ID_PREFIX, ENCRYPTED_VALUE_NAMESPACE};
use crate::loaded::LoadedMessage;
use crate::loss::{LossKind, Report};
use crate::messages_builder::{sibling_path, Builder, Given, Givers, Part};
use crate::object::{field, object};
use crate::openai_chat::ShapeError;
use crate::typed_parts;
use crate::ui_payloads::{
    parse_tool_kind, parse_tool_retry, retry_feedback_from_payload, structured_content_from_payload,
};
use crate::vercel_ui::dump::client_error_text;

mod activities;
mod unread;

/// The activity pydantic-ai's event stream sends messages enqueued during a run in
/// (`ENQUEUED_MESSAGES_ACTIVITY_TYPE`); a client sends it back with the conversation.
const ENQUEUED_MESSAGES_ACTIVITY_TYPE: &str = "pydantic_ai_enqueued_messages";

fn shape(path: &str, message: impl Into<String>) -> ShapeError {
    ShapeError {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// The keys each role may carry that pydantic-ai reads, in both spellings.
fn read_keys(role: &str) -> &'static [&'static str] {
    match role {
        "user" | "system" | "developer" => &["id", "role", "content", "encryptedValue", "encrypted_value"],
        "assistant" => &["id", "role", "content", "toolCalls", "tool_calls"],
        "tool" => &[
            "id",
            "role",
            "content",
            "toolCallId",
            "tool_call_id",
            "error",
            "encryptedValue",
            "encrypted_value",
        ],
        "reasoning" => &["id", "role", "content", "encryptedValue", "encrypted_value"],
        _ => &["id", "role", "activityType", "activity_type", "content"],
    }
}

/// `_parse_encrypted_namespace`: pydantic-ai's own claims in an `encryptedValue`, if any.
fn claims(encrypted: Option<&Value>) -> Option<Map<String, Value>> {
    let text = encrypted?.as_str()?;
    let parsed: Value = serde_json::from_str(text).ok()?;
    match parsed.get(ENCRYPTED_VALUE_NAMESPACE) {
        Some(Value::Object(namespace)) => Some(namespace.clone()),
        _ => None,
    }
}

/// `parse_encrypted_retry_feedback`: the `RetryFeedbackPart` a message's `encryptedValue` claims
/// it was made from, if the claim validates.
fn retry_feedback_claim(object: &Map<String, Value>) -> Option<Value> {
    let claims = claims(wire(object, "encryptedValue", "encrypted_value"))?;
    retry_feedback_from_payload(claims.get("retry_feedback")?)
}

/// `parse_builtin_tool_call_id`: `(provider_name, original_id)` of a native tool's call id.
fn builtin_id(id: &str) -> Option<(&str, &str)> {
    if !id.starts_with(BUILTIN_TOOL_CALL_ID_PREFIX) {
        return None;
    }
    let mut pieces = id.splitn(3, '|');
    let (_, provider, original) = (pieces.next()?, pieces.next()?, pieces.next()?);
    Some((provider, original))
}

struct Loader<'r> {
    document: usize,
    report: &'r mut Report,
    builder: Builder,
    /// Tool call id to tool name.
    tool_names: HashMap<String, String>,
    /// Tool call id to the `tool_kind` its call claimed (`tool_kinds`).
    tool_kinds: HashMap<String, Value>,
    /// Whether the messages are those of an enqueued-messages activity, where another such
    /// activity loads as nothing (`_enqueued_messages`).
    enqueued: bool,
}

/// `load_messages(messages)`: the history's JSON messages. `messages` begin at index `first` of
/// the array at `path`; `history` is what the messages before them hold (the lossless records),
/// which the builder goes on from.
pub(super) fn load(
    messages: &[Value],
    path: &str,
    first: usize,
    document: usize,
    report: &mut Report,
    history: Vec<Value>,
) -> Result<Vec<LoadedMessage>, ShapeError> {
    let mut tool_names = HashMap::new();
    let mut tool_kinds = HashMap::new();
    for message in &history {
        for part in message["parts"].as_array().into_iter().flatten() {
            if matches!(part["part_kind"].as_str(), Some("tool-call")) {
                if let (Some(id), Some(name)) = (part["tool_call_id"].as_str(), part["tool_name"].as_str()) {
                    tool_names.insert(id.to_owned(), name.to_owned());
                    let kind = parse_tool_kind(&part["tool_kind"]);
                    if !kind.is_null() {
                        tool_kinds.insert(id.to_owned(), kind);
                    }
                }
            }
        }
    }
    let loader = Loader {
        document,
        report,
        builder: Builder::new(history),
        tool_names,
        tool_kinds,
        enqueued: false,
    };
    loader.read(messages, path, first)
}

impl Loader<'_> {
    /// Reads `messages` (index `first` on of the array at `path`) into the history.
    fn read(mut self, messages: &[Value], path: &str, first: usize) -> Result<Vec<LoadedMessage>, ShapeError> {
        let mut rehydrated = rehydrated_tool_contents(messages);
        for (index, message) in messages.iter().enumerate() {
            let path = format!("{path}[{}]", first + index);
            self.message(message, &path, first + index, rehydrated[index].take())?;
        }
        Ok(self.builder.into_messages())
    }

    fn loss(&mut self, kind: LossKind, path: impl Into<String>, what: impl Into<String>) {
        self.report.push(kind, self.document, path, what);
    }

    /// Reads `message` (of index `index`, at `path`) into the history; `rehydrated` is [`rehydrate`] of its content when it is a
    /// tool message's string, read ahead ([`rehydrated_tool_contents`]).
    fn message(
        &mut self,
        message: &Value,
        path: &str,
        index: usize,
        rehydrated: Option<Rehydrated>,
    ) -> Result<(), ShapeError> {
        let Some(object) = message.as_object() else {
            return Err(shape(path, "expected an AG-UI message object with `id` and `role`"));
        };
        if self.enqueued && !super::validate::validates(message) {
            return Err(shape(
                path,
                "an enqueued message that does not validate as ag-ui-protocol's `Message` models",
            ));
        }
        const ROLES: [&str; 7] = [
            "user",
            "system",
            "developer",
            "assistant",
            "tool",
            "reasoning",
            "activity",
        ];
        let role = match field(object, "role") {
            Some(Value::String(role)) if ROLES.contains(&role.as_str()) => role.as_str(),
            Some(_) => {
                return Err(shape(
                    &format!("{path}.role"),
                    format!("expected one of the AG-UI roles {}", ROLES.join(", ")),
                ))
            }
            None => return Err(shape(path, "expected a `role` in the AG-UI message")),
        };
        // pydantic-ai requires an `id`; the .NET and Microsoft Agent Framework clients leave it
        // out of some messages, and such a message is read all the same.
        let id = match field(object, "id") {
            Some(Value::String(id)) => Some(id.clone()),
            None | Some(Value::Null) => None,
            Some(_) => return Err(shape(&format!("{path}.id"), "expected the message `id` as a string")),
        };
        for key in object.keys() {
            let only_record = key == "metadata" && super::is_only_record(&object[key]);
            if !read_keys(role).contains(&key.as_str()) && !only_record {
                self.loss(
                    LossKind::Dropped,
                    crate::loss::key_path(path, key),
                    format!("`{key}` of an AG-UI {role} message"),
                );
            }
        }
        match role {
            "user" => self.unread_claims(object, || path.to_owned(), &["retry_feedback", "structured_content"]),
            "system" | "developer" => self.unread_claims(object, || path.to_owned(), &["retry_feedback"]),
            _ => {}
        }
        let checkpoint = self.builder.checkpoint();
        let mut popped = false;
        // Enqueued messages keep their own ids, not the activity's.
        let mut whole_messages = false;
        match role {
            "user" => self.user(object, path)?,
            "system" | "developer" => {
                if role == "developer" {
                    self.loss(LossKind::Changed, path, "a developer message (read as a system prompt)");
                }
                let content = string_content(object, path)?;
                // Only a message carrying the marker pydantic-ai dumped it with is harness feedback.
                match retry_feedback_claim(object) {
                    Some(feedback) => self.builder.add(feedback, true),
                    None => self.builder.add(typed_parts::system_prompt(content.to_owned()), true),
                }
            }
            "assistant" => popped = self.assistant(object, path)?,
            "tool" => self.tool(object, path, rehydrated)?,
            "reasoning" => self.reasoning(object, path)?,
            _ => whole_messages = self.activity(object, path)?,
        }
        if whole_messages {
            return Ok(());
        }
        // `set_ui_message_id` on the message this one landed in. A response that replaced the
        // empty answer before it is not found by pydantic-ai's `last_modified` (the message it
        // checked is gone), so it keeps no id.
        let target = if popped {
            None
        } else {
            self.builder
                .target_index(checkpoint, "request")
                .or_else(|| self.builder.target_index(checkpoint, "response"))
        };
        match (target, id) {
            (Some(target), Some(id)) => {
                let given = Given {
                    id: true,
                    ..Given::default()
                };
                for (earlier, replaced) in self.builder.givers(target).land(index, given) {
                    let at = replaced.path(&sibling_path(path, earlier));
                    self.loss(LossKind::Dropped, at, replaced.what());
                }
                self.builder.set_ui_message_id(target, id);
                self.loss(
                    LossKind::Invented,
                    path,
                    "timestamps (pydantic-ai fills in the load time)",
                );
            }
            (Some(_), None) => self.loss(
                LossKind::Invented,
                path,
                "timestamps (pydantic-ai fills in the load time)",
            ),
            (None, Some(_)) if popped => {
                self.loss(
                    LossKind::Dropped,
                    format!("{path}.id"),
                    "the `id` of an AG-UI answer that replaces the empty one before it (pydantic-ai keeps none)",
                );
            }
            (None, Some(_)) if role != "activity" => {
                self.loss(
                    LossKind::Dropped,
                    format!("{path}.id"),
                    "the `id` of an AG-UI message that loads as no part",
                );
            }
            (None, _) => {}
        }
        Ok(())
    }

    fn user(&mut self, object: &Map<String, Value>, path: &str) -> Result<(), ShapeError> {
        if let Some(feedback) = retry_feedback_claim(object) {
            if !matches!(object.get("content"), Some(Value::String(_) | Value::Array(_))) {
                return Err(shape(
                    &format!("{path}.content"),
                    "expected a user message's `content` as a string or an array of parts",
                ));
            }
            self.builder.add(feedback, true);
            return Ok(());
        }
        // `parse_encrypted_structured_content`: the payloads of structured text items, by position.
        let structured = claims(wire(object, "encryptedValue", "encrypted_value"))
            .and_then(|mut claims| match claims.remove("structured_content") {
                Some(Value::Object(entries)) => Some(entries),
                _ => None,
            })
            .unwrap_or_default();
        let structured_item = |index: usize, text: &str| -> Value {
            // Most messages claim none: no key is formatted for them.
            let payload = (!structured.is_empty())
                .then(|| structured.get(&index.to_string()))
                .flatten();
            match payload {
                None => Value::String(text.to_owned()),
                Some(payload) => structured_content_from_payload(payload, text),
            }
        };
        match field(object, "content") {
            Some(Value::String(text)) => match structured_item(0, text) {
                Value::String(text) => self.builder.add(typed_parts::user_prompt(text), true),
                item => self.builder.add(
                    object! {"content": Value::Array(vec![item]), "part_kind": "user-prompt"},
                    true,
                ),
            },
            Some(Value::Array(items)) => {
                // A structured payload is claimed by its text's position in the message's content,
                // counting the items that load as nothing.
                let content: Vec<Value> = self
                    .content_items(items, &format!("{path}.content"))?
                    .into_iter()
                    .map(|(index, item)| match item {
                        Value::String(text) => structured_item(index, &text),
                        item => item,
                    })
                    .collect();
                match <[Value; 1]>::try_from(content) {
                    Ok([Value::String(text)]) => self.builder.add(typed_parts::user_prompt(text), true),
                    Ok([item]) => self.builder.add(
                        object! {"content": Value::Array(vec![item]), "part_kind": "user-prompt"},
                        true,
                    ),
                    Err(content) if content.is_empty() => {}
                    Err(content) => self
                        .builder
                        .add(object! {"content": content, "part_kind": "user-prompt"}, true),
                }
            }
            _ => {
                return Err(shape(
                    &format!("{path}.content"),
                    "expected a user message's `content` as a string or an array of parts",
                ))
            }
        }
        Ok(())
    }

    /// `_input_content_to_user_content`: the items that load as content, each with its position in
    /// `items`. A provider file reference pydantic-ai cannot send to a model loads as nothing and is
    /// reported dropped (pydantic-ai warns).
    fn content_items(&mut self, items: &[Value], path: &str) -> Result<Vec<(usize, Value)>, ShapeError> {
        let mut content = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let item_path = format!("{path}[{index}]");
            let Some(object) = item.as_object() else {
                return Err(shape(&item_path, "expected a content part object with a `type`"));
            };
            self.unread_item_keys(object, &item_path);
            match object.get("type").and_then(Value::as_str) {
                Some("text") => match object.get("text") {
                    Some(Value::String(text)) => content.push((index, Value::String(text.clone()))),
                    _ => {
                        return Err(shape(
                            &format!("{item_path}.text"),
                            "expected the text part's `text` as a string",
                        ))
                    }
                },
                Some(media @ ("image" | "audio" | "video" | "document")) => {
                    match media_item(object, media, &item_path)? {
                        MediaItem::Loaded(item) => content.push((index, item)),
                        MediaItem::UnknownProvider(reference) => self.loss(
                            LossKind::Dropped,
                            format!("{item_path}.source"),
                            format!(
                                "the provider file reference `{reference}` (pydantic-ai sends only the files of \
                                 the providers an `UploadedFile` names: {})",
                                UploadedFileProviderName::KNOWN.join(", ")
                            ),
                        ),
                    }
                }
                Some("binary") => content.push((index, legacy_binary_item(object, &item_path)?)),
                _ => {
                    return Err(shape(
                        &format!("{item_path}.type"),
                        "expected a content part `type`: text, image, audio, video, document or binary",
                    ))
                }
            }
        }
        Ok(content)
    }

    /// Returns whether the message replaced an empty answer before it.
    fn assistant(&mut self, object: &Map<String, Value>, path: &str) -> Result<bool, ShapeError> {
        let content = match field(object, "content") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.as_str()),
            Some(_) => {
                return Err(shape(
                    &format!("{path}.content"),
                    "expected an assistant message's `content` as a string",
                ))
            }
        };
        let calls = match wire(object, "toolCalls", "tool_calls") {
            None => &[][..],
            Some(Value::Array(calls)) => calls.as_slice(),
            Some(_) => {
                return Err(shape(
                    &format!("{path}.toolCalls"),
                    "expected the assistant message's `toolCalls` as an array",
                ))
            }
        };
        let has_content = content.is_some_and(|text| !text.is_empty());
        // An empty answer only marks a response boundary: what follows in the same response replaces it.
        let mut popped = false;
        if (has_content || !calls.is_empty()) && self.builder.ends_on_empty_text_response() {
            let replaced = self.builder.pop();
            if let Some(earlier) = replaced.as_ref().and_then(Givers::id) {
                self.loss(
                    LossKind::Dropped,
                    format!("{}.id", sibling_path(path, earlier)),
                    "the `id` of an empty AG-UI assistant answer that the next answer replaces",
                );
            }
            popped = true;
        }
        if has_content || (content == Some("") && calls.is_empty()) {
            self.builder
                .add(typed_parts::text(content.unwrap_or_default().to_owned()), false);
        }
        // Only an error needs a call's path.
        let call_path = |index: usize| format!("{path}.toolCalls[{index}]");
        for (index, call) in calls.iter().enumerate() {
            let Some(call) = call.as_object() else {
                return Err(shape(&call_path(index), "expected a tool call object"));
            };
            let Some(Value::String(call_id)) = field(call, "id") else {
                return Err(shape(
                    &format!("{}.id", call_path(index)),
                    "expected the tool call's `id` as a string",
                ));
            };
            let function = field(call, "function").and_then(Value::as_object);
            let (Some(Value::String(name)), Some(Value::String(arguments))) = (
                function.and_then(|function| field(function, "name")),
                function.and_then(|function| field(function, "arguments")),
            ) else {
                return Err(shape(
                    &format!("{}.function", call_path(index)),
                    "expected `function` with string `name` and `arguments`",
                ));
            };
            // `parse_encrypted_tool_kind`: a kind pydantic-ai defines, set on the base part. The
            // arguments arrive as JSON text, which narrowing leaves to the typed part's reader.
            let tool_kind = claims(wire(call, "encryptedValue", "encrypted_value")).map_or(Value::Null, |claims| {
                parse_tool_kind(claims.get("tool_kind").unwrap_or(&Value::Null))
            });
            self.unread_claims(call, || call_path(index), &["tool_kind"]);
            if let Some(function) = function {
                let read = ["id", "type", "function", "encryptedValue", "encrypted_value"];
                self.unread_keys(call, &read, || (call_path(index), "an AG-UI tool call".into()));
                self.unread_keys(function, &["name", "arguments"], || {
                    (
                        format!("{}.function", call_path(index)),
                        "an AG-UI tool call's `function`".into(),
                    )
                });
            }
            if !tool_kind.is_null() {
                self.tool_kinds.insert(call_id.clone(), tool_kind.clone());
            }
            self.tool_names.insert(call_id.clone(), name.clone());
            let part = match builtin_id(call_id) {
                Some((provider, original)) => object! {
                    "tool_name": name.as_str(), "args": arguments.as_str(), "tool_call_id": original,
                    "provider_name": provider, "tool_kind": tool_kind, "part_kind": "builtin-tool-call",
                },
                None if tool_kind.is_null() => {
                    let call = typed_parts::tool_call(name.clone(), RawJson::null(), call_id.clone());
                    self.builder
                        .add(Part::ToolCall(call, Value::String(arguments.clone())), false);
                    continue;
                }
                None => {
                    object! {"tool_name": name.as_str(), "args": arguments.as_str(), "tool_call_id": call_id.as_str(),
                    "tool_kind": tool_kind, "part_kind": "tool-call"}
                }
            };
            self.builder.add(part, false);
        }
        Ok(popped)
    }

    fn tool(
        &mut self,
        object: &Map<String, Value>,
        path: &str,
        rehydrated: Option<Rehydrated>,
    ) -> Result<(), ShapeError> {
        let Some(Value::String(call_id)) = wire(object, "toolCallId", "tool_call_id") else {
            return Err(shape(
                &format!("{path}.toolCallId"),
                "expected the tool message's `toolCallId` as a string",
            ));
        };
        let Some(name) = self.tool_names.get(call_id).cloned() else {
            return Err(shape(
                &format!("{path}.toolCallId"),
                format!("tool call `{call_id}` is not in the history before this tool message"),
            ));
        };
        let rehydrated = match field(object, "content") {
            Some(Value::String(text)) => rehydrated.unwrap_or_else(|| rehydrate(text)),
            Some(Value::Array(items)) => {
                // 1.0 tool content parts: a lone text is the string form; anything else is the
                // tool's content as it stands, its files recorded as pydantic-ai records them.
                let mut items: Vec<Value> = self
                    .content_items(items, &format!("{path}.content"))?
                    .into_iter()
                    .map(|(_, item)| item)
                    .collect();
                match items.as_slice() {
                    [] => Rehydrated::Value(Value::Null, Vec::new()),
                    [Value::String(text)] => rehydrate(text),
                    [_] => returned_content(items.pop().expect("one item")),
                    _ => returned_content(Value::Array(items)),
                }
            }
            _ => {
                return Err(shape(
                    &format!("{path}.content"),
                    "expected a tool message's `content` as a string or an array of parts",
                ))
            }
        };
        let claims = claims(wire(object, "encryptedValue", "encrypted_value")).unwrap_or_default();
        let retried = claims.get("outcome").is_some_and(|outcome| outcome == "retried");
        let read: &[&str] = if retried {
            &["tool_kind", "outcome", "retry"]
        } else {
            &["tool_kind", "outcome"]
        };
        self.unread_claims(object, || path.to_owned(), read);
        // The return's own claim, else its call's (`ToolCallResultEvent` has no metadata slot).
        let tool_kind = match parse_tool_kind(claims.get("tool_kind").unwrap_or(&Value::Null)) {
            Value::Null => self.tool_kinds.get(call_id).cloned().unwrap_or(Value::Null),
            claimed => claimed,
        };
        // `parse_encrypted_outcome`, else a failure when the message has an `error`.
        let outcome = match claims.get("outcome").and_then(Value::as_str) {
            Some(claimed @ ("failed" | "denied" | "interrupted" | "retried")) => claimed,
            _ if wire(object, "error", "error").is_some() => "failed",
            _ => "success",
        };
        let part_kind = if builtin_id(call_id).is_some() {
            "builtin-tool-return"
        } else {
            "tool-return"
        };
        // `parse_encrypted_tool_retry`, for a retried return only.
        let retry = match (outcome, claims.get("retry")) {
            ("retried", Some(claim)) => parse_tool_retry(claim),
            _ => Value::Null,
        };
        let typed = tool_kind.is_null() && retry.is_null() && builtin_id(call_id).is_none();
        let rehydrated = match rehydrated {
            // Plain content within the parser's depth limit where it stands (in the history's
            // array, the message, its parts and the part): its JSON goes into the typed part as it is.
            Rehydrated::Plain { json, nesting } if typed && nesting + 4 < msgflow_wire::MAX_DEPTH => {
                self.unread_error_text(object, path, || client_error_text(&json.to_value()));
                let mut returned =
                    typed_parts::tool_return(name, call_id.clone(), ToolReturnOutcome::from_wire(outcome));
                returned.retry = Field::Null;
                let returned = typed_parts::with_json_text(returned, json);
                self.builder
                    .add(Part::Request(ModelRequestPart::ToolReturn(returned)), true);
                return Ok(());
            }
            other => other,
        };
        let (content, file_digests) = rehydrated.into_value();
        self.unread_error_text(object, path, || {
            if file_digests.is_empty() && !crate::vercel_ui::holds_content_item(&content) {
                client_error_text(&content)
            } else {
                let probe = object! {"content": content.clone(), "content_file_digests": file_digests.clone()};
                crate::ui_payloads::error_text_with_files(&probe)
            }
        });
        // `_narrow_return`: one of pydantic-ai's own kinds the content does not substantiate is stripped
        // (a return with no kind has nothing to narrow). The content goes into the probe and back out
        // of it, not copied.
        let (tool_kind, content) = if tool_kind.is_null() {
            (tool_kind, content)
        } else {
            let mut probe =
                object! {"part_kind": part_kind, "tool_kind": tool_kind, "outcome": outcome, "content": content};
            let (tool_kind, _) = crate::ui_payloads::narrowed(&probe, "content");
            (tool_kind, probe.get_mut("content").map(Value::take).unwrap_or_default())
        };
        // The files of the content, recorded so that they load as files again; content that is no
        // scalar carries the record even when empty, as pydantic-ai dumps it.
        let with_digests = |mut returned: Value| {
            if msgflow_media::content_needs_file_digests(&returned["content"]) {
                returned["content_file_digests"] = file_digests.clone().into();
            }
            returned
        };
        match builtin_id(call_id) {
            Some((provider, original)) => self.builder.add(
                with_digests(
                    object! {"tool_name": name, "content": content, "tool_call_id": original,
                    "provider_name": provider, "tool_kind": tool_kind, "outcome": outcome,
                    "part_kind": "builtin-tool-return"},
                ),
                false,
            ),
            None => {
                if tool_kind.is_null() && retry.is_null() && file_digests.is_empty() {
                    let mut returned =
                        typed_parts::tool_return(name, call_id.clone(), ToolReturnOutcome::from_wire(outcome));
                    returned.retry = Field::Null;
                    self.builder.add(Part::ToolReturn(returned, content), true);
                    return Ok(());
                }
                self.builder.add(
                    with_digests(
                        object! {"tool_name": name.as_str(), "content": content, "tool_call_id": call_id.as_str(),
                        "tool_kind": tool_kind, "outcome": outcome, "retry": retry, "part_kind": "tool-return"},
                    ),
                    true,
                )
            }
        }
        Ok(())
    }

    fn reasoning(&mut self, object: &Map<String, Value>, path: &str) -> Result<(), ShapeError> {
        let content = string_content(object, path)?;
        // The part's provider fields, as JSON text; anything else reads as none.
        let encrypted = ["encryptedValue", "encrypted_value"]
            .into_iter()
            .find_map(|key| Some((key, field(object, key).filter(|value| !value.is_null())?)));
        let metadata = encrypted
            .and_then(|(_, value)| value.as_str())
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .filter(Value::is_object);
        const READ: [&str; 5] = [
            "id",
            "signature",
            "provider_name",
            "provider_details",
            "canonical_system",
        ];
        match (encrypted, &metadata) {
            (Some((key, _)), None) => self.loss(
                LossKind::Dropped,
                format!("{path}.{key}"),
                "a reasoning message's `encryptedValue` that is no JSON object (pydantic-ai reads none of it)",
            ),
            (Some((key, _)), Some(Value::Object(fields))) => {
                for unread in fields.keys().filter(|field| !READ.contains(&field.as_str())) {
                    self.loss(
                        LossKind::Dropped,
                        format!("{path}.{key}"),
                        format!(
                            "`{unread}` of a reasoning message's `encryptedValue`, which pydantic-ai does not read"
                        ),
                    );
                }
            }
            _ => {}
        }
        let metadata = metadata.unwrap_or_else(|| json!({}));
        let field = |key: &str| metadata.get(key).cloned().unwrap_or(Value::Null);
        let typed = (
            typed_parts::nullable_text(&field("id")),
            typed_parts::nullable_text(&field("signature")),
            typed_parts::nullable_text(&field("provider_name")),
        );
        match typed {
            (Some(id), Some(signature), Some(provider_name)) if field("provider_details").is_null() => {
                let part = typed_parts::thinking(content.to_owned(), id, signature, provider_name);
                self.builder.add(part, false);
            }
            _ => self.builder.add(
                object! {"content": content, "id": field("id"), "signature": field("signature"),
                "provider_name": field("provider_name"), "provider_details": field("provider_details"),
                "part_kind": "thinking"},
                false,
            ),
        }
        self.builder
            .restore_canonical_system(&field("provider_name"), &field("canonical_system"));
        Ok(())
    }
}

fn string_content<'v>(object: &'v Map<String, Value>, path: &str) -> Result<&'v str, ShapeError> {
    match object.get("content") {
        Some(Value::String(text)) => Ok(text),
        _ => Err(shape(
            &format!("{path}.content"),
            "expected the message's `content` as a string",
        )),
    }
}
