//! What every provider's export shares: pydantic-ai's `Model.prepare_messages` on the parts msgflow
//! exports, reduced to a small intermediate form the three mappings read.
//!
//! Mirrors `pydantic_ai/models/__init__.py` (2.68.0): `prepare_messages` (`_tool_results_first`, the
//! instruction fallback `_instruction_parts_of`) and `pydantic_ai/messages.py`'s rendering of tool
//! calls and returns (`args_as_dict`, `args_as_json_str`, `content_items`, `model_response_str`).
//!
//! msgflow exports a subset of what pydantic-ai can send (see [`crate::Unsupported`]); everything
//! outside it is refused with its location instead of being guessed at.

use msgflow_wire::{
    Field, ModelMessage, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, SystemPromptScope,
    ToolReturnOutcome, UserContent, UserPromptContent,
};
use serde_json::{Map, Value};

use crate::{ExportError, PartLocation};

/// A request part as the mappings see it, after `prepare_messages`.
#[derive(Debug, Clone)]
pub(crate) enum RequestItem {
    /// A `system-prompt` part. Anthropic lifts the standing ones (the leading parts of the first
    /// request, `_standing_system_prompt_count`) into `system`; OpenAI sends each in place.
    SystemPrompt { content: String },
    /// A `user-prompt` part.
    User(UserText),
    /// A `tool-return` part.
    ToolReturn(ToolResult),
}

/// A user prompt's text: a plain string or a list of text items.
#[derive(Debug, Clone)]
pub(crate) enum UserText {
    Text(String),
    Items(Vec<String>),
}

/// A `tool-return` part with what its rendering needs.
#[derive(Debug, Clone)]
pub(crate) struct ToolResult {
    pub id: String,
    pub content: Value,
    pub outcome: Outcome,
}

/// The outcomes that change a tool result's rendering (`ERROR_OUTCOMES` = failed, retried).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Success,
    Failed,
    Retried,
    /// `denied` and `interrupted`: sent as plain results.
    Other,
}

impl Outcome {
    /// `part.outcome in ERROR_OUTCOMES` (messages.py: `ERROR_OUTCOMES = ('failed', 'retried')`).
    pub(crate) fn is_error(self) -> bool {
        matches!(self, Outcome::Failed | Outcome::Retried)
    }
}

/// A response part as the mappings see it.
#[derive(Debug, Clone)]
pub(crate) enum ResponseItem {
    Text(String),
    /// A signed thinking part the provider itself produced (only for a profile with
    /// `native_thinking`): sent back as the provider's own thinking block.
    Thinking {
        content: String,
        signature: String,
        redacted: bool,
    },
    ToolCall {
        id: String,
        name: String,
        args: Map<String, Value>,
    },
}

/// One message of the prepared history, each item with the history position it came from.
#[derive(Debug, Clone)]
pub(crate) enum Prepared {
    Request(Vec<(PartLocation, RequestItem)>),
    Response(Vec<(PartLocation, ResponseItem)>),
}

/// The prepared history and the instructions pydantic-ai sends with it.
#[derive(Debug, Clone)]
pub(crate) struct PreparedHistory {
    pub messages: Vec<Prepared>,
    /// `_instruction_parts_of`: the instructions of the last request, or of the one before it when
    /// the last holds only tool results. The message index is where they were read.
    pub instructions: Option<(usize, String)>,
}

/// What a provider's mapping needs to know to decide which parts msgflow can export for it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Profile {
    /// `supports_inline_system_prompts`: whether a system prompt after the standing ones is sent
    /// in place (OpenAI) or rewritten with pydantic-ai's `<system>` framing (Anthropic), which
    /// msgflow does not reproduce.
    pub inline_system_prompts: bool,
    /// The provider name pydantic-ai's models compare `provider_name` with (`self.system`).
    pub system: &'static str,
    /// Whether the mapping replays state of responses from this same provider on text and tool
    /// calls (OpenAI Responses sends their item ids); Anthropic and OpenAI Chat do not for the
    /// parts msgflow exports (thinking, citations and native tools, which they do replay, are
    /// refused anyway).
    pub replays_own_items: bool,
    /// Whether the model sends back its own signed thinking natively (Anthropic's `thinking` and
    /// `redacted_thinking` blocks, `_map_thinking_part`). Every other thinking part is refused:
    /// pydantic-ai renders it as tagged text, which msgflow does not reproduce.
    pub native_thinking: bool,
}

/// `_COULD_FOLD_TO_A_TAG` (pydantic_ai/_framing.py): text without any of these characters can hold
/// no lookalike frame, so pydantic-ai adds no note to it. Text with one of them might get a note,
/// which msgflow does not reproduce, so it refuses to export it rather than send something else.
const COULD_FOLD_TO_A_TAG: &[char] = &['<', '&', '\u{ff1c}', '\u{fe64}', '\u{ff06}', '\u{fe60}'];

fn check_frame_free(text: &str, at: PartLocation, path: &str) -> Result<(), ExportError> {
    if text.contains(COULD_FOLD_TO_A_TAG) {
        return Err(ExportError::unsupported(
            at,
            path,
            "text holding `<` or `&` (pydantic-ai may add a lookalike-frame note to it, which msgflow does not reproduce)",
        ));
    }
    Ok(())
}

fn check_value_frame_free(value: &Value, at: PartLocation, path: &str) -> Result<(), ExportError> {
    match value {
        Value::String(text) => check_frame_free(text, at, path),
        Value::Array(items) => items.iter().try_for_each(|item| check_value_frame_free(item, at, path)),
        Value::Object(map) => map.iter().try_for_each(|(key, item)| {
            check_frame_free(key, at, path)?;
            check_value_frame_free(item, at, path)
        }),
        _ => Ok(()),
    }
}

/// Runs the shared part of `prepare_messages` and collects what the mappings read.
pub(crate) fn prepare(history: &[ModelMessage], profile: Profile) -> Result<PreparedHistory, ExportError> {
    let mut messages = Vec::with_capacity(history.len());
    let mut after_response = false;
    let mut seen_request = false;
    for (message_index, message) in history.iter().enumerate() {
        match message {
            ModelMessage::Request(request) => {
                let first_request = !seen_request;
                seen_request = true;
                let mut leading_system = first_request;
                let mut items = Vec::with_capacity(request.parts.len());
                for (part_index, part) in request.parts.iter().enumerate() {
                    let at = PartLocation {
                        message: message_index,
                        part: part_index,
                    };
                    let path = format!("$[{message_index}].parts[{part_index}]");
                    let standing = leading_system && matches!(part, ModelRequestPart::SystemPrompt(_));
                    leading_system = standing;
                    items.push((at, request_item(part, standing, at, &path, profile)?));
                }
                if after_response {
                    // `_tool_results_first`: in every request after a response, the tool results go
                    // ahead of the other parts, each group in its order (a stable sort).
                    items.sort_by_key(|(_, item)| !matches!(item, RequestItem::ToolReturn(_)));
                }
                if let Some(Prepared::Response(previous)) = messages.last() {
                    order_tool_results_by_call(previous, &mut items);
                }
                messages.push(Prepared::Request(items));
            }
            ModelMessage::Response(response) => {
                after_response = true;
                let mut items = Vec::with_capacity(response.parts.len());
                for (part_index, part) in response.parts.iter().enumerate() {
                    let at = PartLocation {
                        message: message_index,
                        part: part_index,
                    };
                    let path = format!("$[{message_index}].parts[{part_index}]");
                    if profile.replays_own_items
                        && response.provider_name.get().map(String::as_str) == Some(profile.system)
                    {
                        return Err(ExportError::unsupported(
                            at,
                            &format!("$[{message_index}].provider_name"),
                            "a response from this same provider (pydantic-ai replays its ids and provider state, which msgflow does not reproduce)",
                        ));
                    }
                    items.push((at, response_item(response, part, at, &path, profile)?));
                }
                messages.push(Prepared::Response(items));
            }
        }
    }
    Ok(PreparedHistory {
        messages,
        instructions: instructions(history),
    })
}

/// `_order_tool_results_by_call`: in a request right after a response, the results answering
/// that response's calls are put in the order of the calls (the first call with an id decides),
/// in the positions results already held; every other part keeps its place, and results
/// answering the same call keep their order.
fn order_tool_results_by_call(previous: &[(PartLocation, ResponseItem)], items: &mut [(PartLocation, RequestItem)]) {
    let mut call_order: Vec<&str> = Vec::new();
    for (_, item) in previous {
        if let ResponseItem::ToolCall { id, .. } = item {
            if !call_order.contains(&id.as_str()) {
                call_order.push(id);
            }
        }
    }
    let rank = |item: &RequestItem| match item {
        RequestItem::ToolReturn(result) => call_order.iter().position(|id| *id == result.id),
        _ => None,
    };
    let slots: Vec<usize> = (0..items.len())
        .filter(|&index| rank(&items[index].1).is_some())
        .collect();
    let mut answers: Vec<(PartLocation, RequestItem)> = slots.iter().map(|&index| items[index].clone()).collect();
    answers.sort_by_key(|(_, item)| rank(item));
    for (slot, answer) in slots.into_iter().zip(answers) {
        items[slot] = answer;
    }
}

fn request_item(
    part: &ModelRequestPart,
    standing: bool,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<RequestItem, ExportError> {
    match part {
        ModelRequestPart::SystemPrompt(system) => {
            if system.context_id.get().is_some() {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.context_id"),
                    "a system prompt with a `context_id` (pydantic-ai renders it as a `<pyai:context>` element)",
                ));
            }
            if matches!(system.scope.get(), Some(scope) if *scope != SystemPromptScope::Conversation) {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.scope"),
                    "a request-scoped system prompt",
                ));
            }
            if !standing && !profile.inline_system_prompts {
                return Err(ExportError::unsupported(
                    at,
                    path,
                    "a system prompt after the conversation started (pydantic-ai wraps it in `<system>` framing for this provider)",
                ));
            }
            Ok(RequestItem::SystemPrompt {
                content: system.content.clone(),
            })
        }
        ModelRequestPart::UserPrompt(user) => match &user.content {
            UserPromptContent::Text(text) => {
                check_frame_free(text, at, &format!("{path}.content"))?;
                Ok(RequestItem::User(UserText::Text(text.clone())))
            }
            UserPromptContent::Items(items) => {
                let mut texts = Vec::with_capacity(items.len());
                for (item_index, item) in items.iter().enumerate() {
                    let item_path = format!("{path}.content[{item_index}]");
                    match item {
                        UserContent::Text(text) => {
                            check_frame_free(text, at, &item_path)?;
                            texts.push(text.clone());
                        }
                        _ => {
                            return Err(ExportError::unsupported(
                                at,
                                &item_path,
                                "user content other than plain strings (files, media, text-content, cache points)",
                            ))
                        }
                    }
                }
                Ok(RequestItem::User(UserText::Items(texts)))
            }
        },
        ModelRequestPart::ToolReturn(ret) => {
            if ret.tool_kind.get().is_some() {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.tool_kind"),
                    "a typed tool return (`tool_kind`)",
                ));
            }
            let id = tool_call_id(&ret.tool_call_id, at, path)?;
            let outcome = match ret.outcome.get() {
                None | Some(ToolReturnOutcome::Success) => Outcome::Success,
                Some(ToolReturnOutcome::Failed) => Outcome::Failed,
                Some(ToolReturnOutcome::Retried) => Outcome::Retried,
                Some(ToolReturnOutcome::Denied | ToolReturnOutcome::Interrupted) => Outcome::Other,
                Some(ToolReturnOutcome::Unknown(_)) => {
                    return Err(ExportError::unsupported(
                        at,
                        &format!("{path}.outcome"),
                        "an unknown outcome",
                    ))
                }
            };
            let content_path = format!("{path}.content");
            let content = ret
                .content
                .try_to_value()
                .map_err(|_| ExportError::unsupported(at, &content_path, "tool output that is not plain JSON"))?;
            if holds_file_like_object(&content) {
                return Err(ExportError::unsupported(
                    at,
                    &content_path,
                    "tool output holding objects with a `kind` key (pydantic-ai may read them as files)",
                ));
            }
            check_value_frame_free(&content, at, &content_path)?;
            Ok(RequestItem::ToolReturn(ToolResult { id, content, outcome }))
        }
        other => Err(ExportError::unsupported(
            at,
            path,
            &format!("a `{}` part", other.tag().unwrap_or_default()),
        )),
    }
}

/// pydantic-ai validates tool output as `ToolReturnContent`, in which an object with a `kind` key
/// at the top or in a top-level list may become a file item; msgflow leaves those to pydantic-ai.
fn holds_file_like_object(content: &Value) -> bool {
    let is_file_like = |value: &Value| value.as_object().is_some_and(|map| map.contains_key("kind"));
    match content {
        Value::Array(items) => items.iter().any(is_file_like),
        other => is_file_like(other),
    }
}

fn response_item(
    response: &ModelResponse,
    part: &ModelResponsePart,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<ResponseItem, ExportError> {
    match part {
        ModelResponsePart::Text(text) => {
            if text.provider_details.get().is_some_and(|details| !details.is_null()) {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.provider_details"),
                    "a text part with provider details (citations, phases)",
                ));
            }
            if profile.replays_own_items && text.provider_name.get().map(String::as_str) == Some(profile.system) {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.provider_name"),
                    "a text part from this same provider (its item id is replayed)",
                ));
            }
            Ok(ResponseItem::Text(text.content.clone()))
        }
        ModelResponsePart::ToolCall(call) => {
            if call.tool_kind.get().is_some() {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.tool_kind"),
                    "a typed tool call (`tool_kind`)",
                ));
            }
            if call.provider_details.get().is_some_and(|details| !details.is_null())
                || (profile.replays_own_items && call.provider_name.get().map(String::as_str) == Some(profile.system))
            {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.provider_details"),
                    "a tool call with provider details or from this same provider",
                ));
            }
            let id = tool_call_id(&call.tool_call_id, at, path)?;
            if id.contains('|') {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.tool_call_id"),
                    "a combined `call_id|id` tool call id",
                ));
            }
            Ok(ResponseItem::ToolCall {
                id,
                name: call.tool_name.clone(),
                args: args_as_dict(&call.args),
            })
        }
        ModelResponsePart::Thinking(thinking) => {
            // `_map_thinking_part`: a non-empty signature the model accepts (`accepts_stateless_artifacts`:
            // the part's `provider_name` is this model's system, and the response names no other
            // canonical system) goes back as the provider's own block.
            let signature = thinking.signature.get().filter(|signature| !signature.is_empty());
            let own = thinking.provider_name.get().map(String::as_str) == Some(profile.system)
                && response
                    .canonical_system
                    .get()
                    .is_none_or(|system| system == profile.system);
            match signature {
                Some(signature) if profile.native_thinking && own => Ok(ResponseItem::Thinking {
                    content: thinking.content.clone(),
                    signature: signature.clone(),
                    // `REDACTED_THINKING_PART_IDS` (_thinking_part.py).
                    redacted: matches!(
                        thinking.id.get().map(String::as_str),
                        Some("redacted_thinking" | "redacted_content")
                    ),
                }),
                _ => Err(ExportError::unsupported(
                    at,
                    path,
                    "a `thinking` part this provider does not take natively (pydantic-ai sends it as tagged text)",
                )),
            }
        }
        other => Err(ExportError::unsupported(
            at,
            path,
            &format!("a `{}` part", other.tag().unwrap_or_default()),
        )),
    }
}

/// pydantic-ai gives a call without an id a random one (`guard_tool_call_id`), so no export of it
/// can be reproduced.
fn tool_call_id(id: &Field<String>, at: PartLocation, path: &str) -> Result<String, ExportError> {
    match id.get() {
        Some(id) if !id.is_empty() => Ok(id.clone()),
        _ => Err(ExportError::unsupported(
            at,
            &format!("{path}.tool_call_id"),
            "a tool call or return without an id (pydantic-ai sends a random one)",
        )),
    }
}

/// `BaseToolCallPart.args_as_dict` (messages.py): no args or empty args are `{}`, an object is
/// itself, a JSON string is parsed, and anything that is not a JSON object becomes
/// `{"INVALID_JSON": <raw args>}`.
pub(crate) fn args_as_dict(args: &Field<RawJson>) -> Map<String, Value> {
    let Some(raw) = args.get() else { return Map::new() };
    let invalid = |text: String| {
        let mut map = Map::new();
        map.insert("INVALID_JSON".to_owned(), Value::String(text));
        map
    };
    match raw.try_to_value() {
        Ok(Value::Object(map)) => map,
        Ok(Value::String(text)) => {
            if text.is_empty() {
                return Map::new();
            }
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => map,
                _ => invalid(text),
            }
        }
        // `not self.args`: `null`, `[]`, `0`, `false` are all empty.
        Ok(Value::Null) => Map::new(),
        Ok(Value::Array(items)) if items.is_empty() => Map::new(),
        Ok(other) => invalid(other.to_string()),
        Err(_) => invalid(raw.get().to_owned()),
    }
}

/// `_tool_return_text`: a non-string value's compact JSON text (pydantic-core's `to_json`, which
/// serde_json 1.0.154 matches).
pub(crate) fn json_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string(other).expect("a serde_json::Value always serialises"),
    }
}

/// `content_items(mode='str', wrap_if_error=False)`: the text items Anthropic sends as a
/// `tool_result`'s blocks.
pub(crate) fn content_items_unwrapped(result: &ToolResult) -> Vec<String> {
    match &result.content {
        // A retry's validation errors are one JSON array the model is shown whole.
        Value::Array(_) if result.outcome == Outcome::Retried => vec![model_response_str(result, false)],
        Value::Array(items) => items.iter().map(json_text).collect(),
        other => vec![json_text(other)],
    }
}

/// `model_response_str(wrap_if_error=...)`: the one text OpenAI sends for a tool result.
pub(crate) fn model_response_str(result: &ToolResult, wrap_if_error: bool) -> String {
    // `_unwrap_data`: an empty list is no data; a scalar stays itself.
    let value = match &result.content {
        Value::Array(items) if items.is_empty() => &Value::Null,
        other => other,
    };
    let response = match value {
        Value::Null => String::new(),
        other => json_text(other),
    };
    if wrap_if_error && result.outcome.is_error() {
        // `_error_value`: a retry's structured data goes in as it is, anything else as its text.
        let error = if result.outcome == Outcome::Retried && !value.is_null() && !value.is_string() {
            value.clone()
        } else {
            Value::String(response)
        };
        let mut wrapper = Map::new();
        wrapper.insert("error".to_owned(), error);
        return json_text(&Value::Object(wrapper));
    }
    response
}

/// `_instruction_parts_of`'s fallback for a history without request parameters: the last
/// request's instructions, or, when that request holds only tool results, the one before it.
fn instructions(history: &[ModelMessage]) -> Option<(usize, String)> {
    let mut requests = history
        .iter()
        .enumerate()
        .rev()
        .filter_map(|(index, message)| match message {
            ModelMessage::Request(request) => Some((index, request)),
            ModelMessage::Response(_) => None,
        });
    let (last_index, last) = requests.next()?;
    if let Some(text) = last.instructions.get() {
        return Some((last_index, text.clone()));
    }
    let (second_index, second) = requests.next()?;
    let only_results = last.parts.iter().all(|part| {
        matches!(
            part,
            ModelRequestPart::ToolReturn(_) | ModelRequestPart::RetryPrompt(_) | ModelRequestPart::RetryFeedback(_)
        )
    });
    match second.instructions.get() {
        Some(text) if only_results => Some((second_index, text.clone())),
        _ => None,
    }
}
