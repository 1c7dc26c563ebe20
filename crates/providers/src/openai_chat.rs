//! The OpenAI Chat Completions request pydantic-ai 2.68.0's `OpenAIChatModel` (`gpt-4o`) builds for
//! a history: `{"messages": [...]}`.
//!
//! Mirrors `pydantic_ai/models/openai/_chat_model.py`: `_map_messages` (instructions inserted after
//! the leading system messages), `_map_user_message` (a system message per system prompt, a user
//! message per user prompt, a tool message per tool return with `model_response_str()`), and
//! `_MapModelResponseContext.map_assistant_message` (texts joined by a blank line, `content: null`
//! beside tool calls, nothing for a response with neither; thinking by
//! `_map_response_thinking_part`: in a field or as `<think>` text) and `_map_messages`' `'auto'`
//! backfill of a thinking field.

use std::borrow::Cow;

use msgflow_wire::ModelMessage;
use serde::{Deserialize, Serialize};

use serde_json::{Map, Value};

use crate::prepare::{self, Prepared, Profile, RequestItem, ResponseItem, Thinking, ThinkingMode, UserText};
use crate::{ExportError, Exported, Origin, PartLocation, Provider};

/// `OpenAIChatModel`'s profile as far as the mapping is concerned: system prompts are sent inline.
const PROFILE: Profile = Profile {
    inline_system_prompts: true,
    system: "openai",
    replays_own_items: false,
    thinking: ThinkingMode::OpenAiChat,
    notes_precede_tool_results: false,
};

/// The `messages` of a Chat Completions request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The conversation.
    pub messages: Vec<Message>,
}

/// A Chat Completions message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// A system prompt or the instructions.
    System {
        /// The text.
        content: String,
    },
    /// A user prompt.
    User {
        /// A string, or text parts when the prompt was a list.
        content: UserContent,
    },
    /// A model response.
    Assistant {
        /// The thinking sent back in fields (`_auto_thinking_field`): each field named by the id of
        /// this provider's thinking parts, their contents joined by a blank line (an empty string
        /// where pydantic-ai backfills `reasoning` or `reasoning_content` on a tool-calling turn).
        #[serde(flatten)]
        thinking_fields: Map<String, Value>,
        /// The response's texts (and thinking in `<think>` tags) joined by a blank line; `null`
        /// beside tool calls without text.
        content: Option<String>,
        /// The response's tool calls, absent when it has none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCall>>,
    },
    /// A tool call's result.
    Tool {
        /// The id of the call it answers.
        tool_call_id: String,
        /// The result's text (`model_response_str()`: failures wrapped as `{"error": ...}`).
        content: String,
    },
}

/// A user message's `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    /// A plain string prompt.
    Text(String),
    /// A list prompt's items.
    Parts(Vec<TextContentPart>),
}

/// A `{"type": "text", "text": ...}` content part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextContentPart {
    /// Always `text`.
    #[serde(rename = "type")]
    pub kind: crate::anthropic::TextType,
    /// The text.
    pub text: String,
}

/// An assistant message's function tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: FunctionType,
    /// The function and its arguments.
    pub function: FunctionCall,
}

/// The `type` of a [`ToolCall`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionType {
    /// `function`.
    Function,
}

/// A tool call's function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments as compact JSON text of an object (`args_as_json_str`).
    pub arguments: String,
}

/// The thinking fields `_process_thinking` reads (no `openai_chat_thinking_field` is configured).
const READ_THINKING_FIELDS: [&str; 2] = ["reasoning", "reasoning_content"];

/// `_map_messages`' `'auto'` backfill: when the assistant messages send exactly one of the fields
/// `_process_thinking` reads, every tool-calling assistant message after the last user message
/// that lacks it gets it empty.
fn backfill_thinking_field(messages: &mut [Message]) {
    let sent: Vec<&str> = READ_THINKING_FIELDS
        .into_iter()
        .filter(|name| {
            messages.iter().any(|message| {
                matches!(message, Message::Assistant { thinking_fields, .. } if thinking_fields.contains_key(*name))
            })
        })
        .collect();
    let [field] = sent[..] else { return };
    let after_user = messages
        .iter()
        .rposition(|message| matches!(message, Message::User { .. }))
        .map_or(0, |index| index + 1);
    for message in &mut messages[after_user..] {
        if let Message::Assistant {
            thinking_fields,
            tool_calls: Some(_),
            ..
        } = message
        {
            if !thinking_fields.contains_key(field) {
                thinking_fields.insert(field.to_owned(), Value::String(String::new()));
            }
        }
    }
}

/// How `OpenAIChatModel` sends thinking parts back: the profile's
/// `openai_chat_send_back_thinking_parts` (with `openai_chat_thinking_field` for [`Field`]).
/// `gpt-4o`'s profile uses [`Auto`]; a provider serving another model through the Chat
/// Completions API may set another mode, which changes the request.
///
/// ```
/// use msgflow_providers::openai_chat::ChatThinking;
/// assert_eq!("field:reasoning_content".parse(), Ok(ChatThinking::Field("reasoning_content".into())));
/// assert_eq!("off".parse(), Ok(ChatThinking::Off));
/// assert!("field:role".parse::<ChatThinking>().is_err());
/// ```
///
/// [`Field`]: ChatThinking::Field
/// [`Auto`]: ChatThinking::Auto
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ChatThinking {
    /// `'auto'`: a part from a field of this same provider (`reasoning`, `reasoning_content`:
    /// its id) goes back in that field, any other as `<think>` text; when the request sends
    /// exactly one of the fields `_process_thinking` reads, the tool-calling turns after the
    /// last user message get it empty.
    #[default]
    Auto,
    /// `'tags'`: every thinking part as `<think>` text of its assistant message.
    Tags,
    /// `'field'`: every thinking part in this field of its assistant message; from the first
    /// response holding a thinking part on, tool-calling turns without the field get it empty.
    Field(String),
    /// `False`: no thinking is sent.
    Off,
}

/// The keys of an assistant message a thinking field would overwrite.
const MESSAGE_KEYS: [&str; 3] = ["role", "content", "tool_calls"];

impl std::str::FromStr for ChatThinking {
    type Err = String;

    /// `auto`, `tags`, `off`, or `field:NAME`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "auto" => Ok(ChatThinking::Auto),
            "tags" => Ok(ChatThinking::Tags),
            "off" => Ok(ChatThinking::Off),
            _ => match text.strip_prefix("field:") {
                Some(name) if MESSAGE_KEYS.contains(&name) => Err(format!(
                    "the thinking field `{name}` is a key of the assistant message it would be sent in"
                )),
                Some(name) if !name.is_empty() => Ok(ChatThinking::Field(name.to_owned())),
                _ => Err(format!(
                    "unknown thinking mode `{text}`: expected auto, tags, off or field:NAME"
                )),
            },
        }
    }
}

/// The request `OpenAIChatModel` would send for `history`.
pub fn export(history: &[ModelMessage]) -> Result<Exported<Request>, ExportError> {
    export_with(history, &ChatThinking::Auto)
}

/// [`export`] for a profile that sends thinking back as `thinking` says.
pub fn export_with(history: &[ModelMessage], thinking: &ChatThinking) -> Result<Exported<Request>, ExportError> {
    export_inner(history, thinking).map_err(|error| error.for_provider(Provider::OpenAiChat))
}

fn export_inner(history: &[ModelMessage], thinking: &ChatThinking) -> Result<Exported<Request>, ExportError> {
    let prepared = prepare::prepare(history, PROFILE)?;
    // About one message (or item) per history message: sized up front, not grown and copied.
    let capacity = prepared.messages.len();
    let mut messages = Vec::with_capacity(capacity);
    let mut origins = Vec::with_capacity(capacity);
    let single = |at: PartLocation| Origin {
        start: at,
        blocks: Vec::new(),
    };
    // The prepared items are moved into the request: every text is copied once, from the history.
    let mut field_backfill = false;
    for message in prepared.messages {
        match message {
            Prepared::Request(parts) => {
                for (at, item) in parts {
                    messages.push(match item {
                        RequestItem::SystemPrompt { content } | RequestItem::Note { content } => {
                            Message::System { content }
                        }
                        RequestItem::User(UserText::Text(text)) => Message::User {
                            content: UserContent::Text(text),
                        },
                        RequestItem::User(UserText::Items(texts)) => Message::User {
                            content: UserContent::Parts(
                                texts
                                    .into_iter()
                                    .map(|text| TextContentPart {
                                        kind: crate::anthropic::TextType::Text,
                                        text,
                                    })
                                    .collect(),
                            ),
                        },
                        RequestItem::ToolReturn(result) => Message::Tool {
                            content: prepare::model_response_str(result.content, result.outcome, true),
                            tool_call_id: result.id,
                        },
                    });
                    origins.push(single(at));
                }
            }
            Prepared::Response(parts) => {
                // `'field'` mode's backfill starts at the first response that thinks.
                field_backfill |= parts.iter().any(|(_, item)| matches!(item, ResponseItem::Thinking(_)));
                let mut texts = Vec::new();
                let mut fields: Vec<(&str, Vec<&str>)> = Vec::new();
                let mut calls = Vec::new();
                let mut call_origins = Vec::new();
                // Texts are joined (a copy each): borrowed from the prepared items.
                for (at, item) in &parts {
                    match item {
                        ResponseItem::Text(text) => texts.push(Cow::Borrowed(text.as_str())),
                        ResponseItem::Thinking(Thinking::Chat { content, auto_field }) => {
                            let field = match (thinking, auto_field) {
                                (ChatThinking::Off, _) => continue,
                                (ChatThinking::Auto, Some(field)) => field.as_str(),
                                (ChatThinking::Field(field), _) => field.as_str(),
                                (ChatThinking::Auto | ChatThinking::Tags, _) => {
                                    texts.push(Cow::Owned(prepare::tagged_thinking(content)));
                                    continue;
                                }
                            };
                            if MESSAGE_KEYS.contains(&field) {
                                return Err(ExportError::unsupported(
                                    *at,
                                    &format!("$[{}].parts[{}].id", at.message, at.part),
                                    "a thinking part sent back in a field named like a key of the assistant message \
                                     (`role`, `content`, `tool_calls`)",
                                ));
                            }
                            match fields.iter_mut().find(|(name, _)| *name == field) {
                                Some((_, contents)) => contents.push(content),
                                None => fields.push((field, vec![content])),
                            }
                        }
                        // Never prepared for this profile (`replays_own_items: false`, its own
                        // `ThinkingMode`).
                        other @ (ResponseItem::ItemText { .. } | ResponseItem::Thinking(_)) => {
                            return Err(ExportError::unsupported(
                                *at,
                                "",
                                &format!("a part prepared for another provider ({other:?})"),
                            ))
                        }
                        ResponseItem::ToolCall { id, name, args, .. } => {
                            calls.push(ToolCall {
                                id: id.clone(),
                                kind: FunctionType::Function,
                                function: FunctionCall {
                                    name: name.clone(),
                                    arguments: prepare::object_text(args),
                                },
                            });
                            call_origins.push(*at);
                        }
                    }
                }
                let Some((start, _)) = parts.first() else { continue };
                if texts.is_empty() && calls.is_empty() {
                    continue;
                }
                // `_into_message_param`: each field's contents joined by a blank line.
                let mut thinking_fields: Map<String, Value> = fields
                    .into_iter()
                    .map(|(name, contents)| (name.to_owned(), Value::String(contents.join("\n\n"))))
                    .collect();
                if let ChatThinking::Field(field) = thinking {
                    if field_backfill && !calls.is_empty() && !thinking_fields.contains_key(field) {
                        thinking_fields.insert(field.clone(), Value::String(String::new()));
                    }
                }
                messages.push(Message::Assistant {
                    thinking_fields,
                    content: (!texts.is_empty()).then(|| texts.join("\n\n")),
                    tool_calls: (!calls.is_empty()).then_some(calls),
                });
                origins.push(Origin {
                    start: *start,
                    blocks: call_origins,
                });
            }
        }
    }
    if *thinking == ChatThinking::Auto {
        backfill_thinking_field(&mut messages);
    }
    if let Some((at, instructions)) = prepared.instructions {
        // `_map_messages`: the instruction messages go after the leading system messages.
        let leading = messages
            .iter()
            .take_while(|message| matches!(message, Message::System { .. }))
            .count();
        messages.insert(leading, Message::System { content: instructions });
        origins.insert(leading, single(PartLocation { message: at, part: 0 }));
    }
    Ok(Exported {
        request: Request { messages },
        origins,
    })
}
