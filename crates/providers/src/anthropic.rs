//! The Anthropic Messages API request pydantic-ai 2.68.0's `AnthropicModel` (`claude-sonnet-4-5`)
//! builds for a history: `{"system": ..., "messages": [...]}`.
//!
//! Mirrors `pydantic_ai/models/anthropic/__init__.py`: `_map_message` (requests by
//! `_map_model_request`, responses by `_map_model_response`), `_build_system_prompt`,
//! `_map_user_prompt` (empty text is left out), `_map_tool_return_part` (the text items of
//! `content_items(mode='str', wrap_if_error=False)`, `is_error` for failed and retried results) and
//! `_map_text_part` (empty text is left out), `_map_thinking_part` (Anthropic's own signed thinking
//! natively, other reasoning as `<assistant_thinking>` text) and `_append_model_response_turns`
//! (that reasoning in a user turn ahead of the assistant turn). A turn with no blocks is not sent.

use msgflow_wire::ModelMessage;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::framing;
use crate::prepare::{self, Prepared, Profile, RequestItem, ResponseItem, Thinking, ThinkingMode, UserText};
use crate::{ExportError, Exported, Origin, PartLocation, Provider};

/// `AnthropicModel`'s profile as far as the mapping is concerned.
const PROFILE: Profile = Profile {
    inline_system_prompts: false,
    system: "anthropic",
    replays_own_items: false,
    thinking: ThinkingMode::Anthropic,
    notes_precede_tool_results: false,
};

/// The `system` and `messages` of a Messages API request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The system prompt: a string, or text blocks when there are instructions.
    pub system: System,
    /// The conversation.
    pub messages: Vec<Message>,
}

/// The top-level `system` parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum System {
    /// The standing system prompts joined by a blank line (`""` when there are none).
    Text(String),
    /// The system prompt's block (when not empty), then one block per instruction part.
    Blocks(Vec<TextBlock>),
}

/// A turn of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `user` or `assistant`.
    pub role: Role,
    /// The turn's blocks (never empty in what pydantic-ai sends).
    pub content: Vec<Block>,
}

/// The role of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user, and tool results.
    User,
    /// The model.
    Assistant,
}

/// A `{"type": "text", "text": ...}` block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextBlock {
    /// Always `text`.
    #[serde(rename = "type")]
    pub kind: TextType,
    /// The text.
    pub text: String,
}

impl TextBlock {
    /// A text block.
    pub fn new(text: impl Into<String>) -> Self {
        TextBlock {
            kind: TextType::Text,
            text: text.into(),
        }
    }
}

/// The `type` of a [`TextBlock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextType {
    /// `text`.
    Text,
}

/// A content block of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// The model's own signed thinking, sent back in its assistant turn.
    Thinking {
        /// The thinking text.
        thinking: String,
        /// Anthropic's signature over it.
        signature: String,
    },
    /// Thinking Anthropic redacted: its encrypted data only.
    RedactedThinking {
        /// The encrypted data (the part's `signature`).
        data: String,
    },
    /// A tool call, in an assistant turn.
    ToolUse {
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments, always an object (`args_as_dict`).
        input: Map<String, Value>,
    },
    /// A tool call's result, in a user turn.
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// The result's text blocks, or `""` when there are none.
        content: ToolResultContent,
        /// Whether the tool failed (a `failed` or `retried` outcome).
        is_error: bool,
    },
}

/// A `tool_result`'s `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// `""`, for a result without items (an empty list).
    Text(String),
    /// The result's items as text blocks.
    Blocks(Vec<TextBlock>),
}

/// The request `AnthropicModel` would send for `history`.
pub fn export(history: &[ModelMessage]) -> Result<Exported<Request>, ExportError> {
    export_inner(history).map_err(|error| error.for_provider(Provider::Anthropic))
}

fn export_inner(history: &[ModelMessage]) -> Result<Exported<Request>, ExportError> {
    let prepared = prepare::prepare(history, PROFILE)?;
    // About one message (or item) per history message: sized up front, not grown and copied.
    let capacity = prepared.messages.len();
    let mut system_parts = Vec::new();
    let mut messages = Vec::with_capacity(capacity);
    let mut origins = Vec::with_capacity(capacity);
    // The prepared items are moved into the blocks: every text is copied once, from the history.
    for message in prepared.messages {
        let (role, items): (Role, Vec<(PartLocation, Block)>) = match message {
            Prepared::Request(parts) => {
                let mut blocks = Vec::new();
                for (at, item) in parts {
                    match item {
                        RequestItem::SystemPrompt { content } => system_parts.push(content),
                        // `_wrap_non_leading_system_prompts`: a note is a mid-conversation system
                        // prompt, sent as a `<system>` block in the user turn.
                        RequestItem::Note { content } => blocks.push((
                            at,
                            Block::Text {
                                text: framing::system_frame(&content),
                            },
                        )),
                        RequestItem::User(UserText::Text(text)) => {
                            if !text.is_empty() {
                                blocks.push((at, Block::Text { text }));
                            }
                        }
                        RequestItem::User(UserText::Items(texts)) => blocks.extend(
                            texts
                                .into_iter()
                                .filter(|text| !text.is_empty())
                                .map(|text| (at, Block::Text { text })),
                        ),
                        RequestItem::ToolReturn(result) => {
                            let is_error = result.outcome.is_error();
                            let texts = prepare::into_content_items_unwrapped(result.content, result.outcome);
                            let content = if texts.is_empty() {
                                ToolResultContent::Text(String::new())
                            } else {
                                ToolResultContent::Blocks(texts.into_iter().map(TextBlock::new).collect())
                            };
                            blocks.push((
                                at,
                                Block::ToolResult {
                                    tool_use_id: result.id,
                                    content,
                                    is_error,
                                },
                            ));
                        }
                    }
                }
                (Role::User, blocks)
            }
            Prepared::Response(parts) => {
                let mut carried = Vec::new();
                let mut blocks = Vec::new();
                for (at, item) in parts {
                    let block = match item {
                        ResponseItem::Text(text) if text.is_empty() => continue,
                        ResponseItem::Text(text) => Block::Text { text },
                        ResponseItem::Thinking(Thinking::Signed {
                            signature,
                            redacted: true,
                            ..
                        }) => Block::RedactedThinking { data: signature },
                        ResponseItem::Thinking(Thinking::Signed {
                            content,
                            signature,
                            redacted: false,
                        }) => Block::Thinking {
                            thinking: content,
                            signature,
                        },
                        // `_append_model_response_turns`: reasoning carried in a user turn of its
                        // own, ahead of the assistant turn.
                        ResponseItem::Thinking(Thinking::Carried(text)) => {
                            carried.push((at, Block::Text { text }));
                            continue;
                        }
                        // Never prepared for this profile (`replays_own_items: false`, its own
                        // `ThinkingMode`).
                        other @ (ResponseItem::ItemText { .. } | ResponseItem::Thinking(_)) => {
                            return Err(ExportError::unsupported(
                                at,
                                "",
                                &format!("a part prepared for another provider ({other:?})"),
                            ))
                        }
                        ResponseItem::ToolCall { id, name, args, .. } => Block::ToolUse { id, name, input: args },
                    };
                    blocks.push((at, block));
                }
                if let Some((start, _)) = carried.first() {
                    origins.push(Origin {
                        start: *start,
                        blocks: carried.iter().map(|(at, _)| *at).collect(),
                    });
                    messages.push(Message {
                        role: Role::User,
                        content: carried.into_iter().map(|(_, block)| block).collect(),
                    });
                }
                (Role::Assistant, blocks)
            }
        };
        if let Some((start, _)) = items.first() {
            origins.push(Origin {
                start: *start,
                blocks: items.iter().map(|(at, _)| *at).collect(),
            });
            messages.push(Message {
                role,
                content: items.into_iter().map(|(_, block)| block).collect(),
            });
        }
    }
    // `_build_system_prompt`: the hoisted system prompt, then one block per instruction part.
    let system_prompt = system_parts.join("\n\n");
    let system = match prepared.instructions {
        None => System::Text(system_prompt),
        Some((_, instructions)) => {
            let mut blocks = Vec::with_capacity(2);
            if !system_prompt.is_empty() {
                blocks.push(TextBlock::new(system_prompt));
            }
            blocks.push(TextBlock::new(instructions));
            System::Blocks(blocks)
        }
    };
    Ok(Exported {
        request: Request { system, messages },
        origins,
    })
}
