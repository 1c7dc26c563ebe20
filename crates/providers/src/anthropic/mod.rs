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

mod request;
pub(crate) mod rules;

pub use request::{
    Block, CacheControl, CacheControlType, CacheTtl, Message, Request, Role, Source, System, TextBlock, TextType,
    ToolResultContent, WebSearchCitation, WebSearchCitationType,
};

use msgflow_media::UrlKind;
use msgflow_wire::ModelMessage;
use serde_json::Value;

use crate::framing;
use crate::media::{self, File, FileKind};
use crate::prepare::{
    self, NativeBlock, NativeResultKind, Prepared, Profile, RequestItem, ResponseItem, Thinking, ThinkingMode,
    ToolItem, UserItem, UserText,
};
use crate::{ExportError, Exported, Origin, PartLocation, Provider};

/// `AnthropicModel`'s profile as far as the mapping is concerned.
const PROFILE: Profile = Profile {
    inline_system_prompts: false,
    system: "anthropic",
    replays_own_items: false,
    thinking: ThinkingMode::Anthropic,
    notes_precede_tool_results: false,
    adds_tools: false,
    relocates_tool_files: false,
    args_as_text: false,
    carries_foreign_thinking: true,
    // Read for OpenAI Chat only.
    thinking_as_text: prepare::ThinkingAsText::All,
    supported_documents: prepare::SupportedDocuments::Only(&["application/pdf", "text/plain"]),
};

/// Where reasoning Anthropic cannot take back as its own goes (`claude-sonnet-4-5`: a user turn).
pub use crate::ReplayedThinking;

/// The request `AnthropicModel` would send for `history`.
pub fn export(history: &[ModelMessage]) -> Result<Exported<Request>, ExportError> {
    export_with(history, ReplayedThinking::UserTurn)
}

/// [`export`] for a profile that puts reasoning it cannot send back as its own where `replayed`
/// says.
pub fn export_with(history: &[ModelMessage], replayed: ReplayedThinking) -> Result<Exported<Request>, ExportError> {
    let profile = Profile {
        carries_foreign_thinking: replayed == ReplayedThinking::UserTurn,
        ..PROFILE
    };
    export_inner(history, profile).map_err(|error| error.for_provider(Provider::Anthropic))
}

fn export_inner(history: &[ModelMessage], profile: Profile) -> Result<Exported<Request>, ExportError> {
    prepare::prepare(history, profile)?.map_in_order(map)
}

/// `_map_message` on the prepared history.
fn map(prepared: prepare::PreparedHistory) -> Result<Exported<Request>, ExportError> {
    let mut system_parts = Vec::new();
    // At most one message per prepared message (a message of the role before joins it): sized up
    // front, not grown and copied.
    let mut messages = Vec::with_capacity(prepared.messages.len());
    let mut origins = Vec::with_capacity(prepared.messages.len());
    // The prepared items are moved into the blocks: each text is copied once, from the history
    // (freeing the copies of a big history inside the export is what made it slow).
    for message in prepared.messages {
        let (role, items): (Role, Vec<(PartLocation, Block)>) = match message {
            Prepared::Request(parts) => {
                let mut blocks = Vec::with_capacity(parts.len());
                for (at, item) in parts {
                    match item {
                        RequestItem::SystemPrompt { content } => system_parts.push(content),
                        // Taken out by `prepare`.
                        RequestItem::ToolAvailability => {}
                        // `_wrap_non_leading_system_prompts`: `system_frame(content)`, a user block.
                        RequestItem::WrappedSystemPrompt { content } => {
                            blocks.push((at, Block::text(framing::system_frame(&content))))
                        }
                        // `_wrap_non_leading_system_prompts`: a note is a mid-conversation system
                        // prompt, sent as a `<system>` block in the user turn.
                        RequestItem::Note { content } => {
                            blocks.push((at, Block::text(framing::system_frame(&content))))
                        }
                        RequestItem::User(UserText::Text(text)) | RequestItem::Feedback(text) => {
                            if !text.is_empty() {
                                blocks.push((at, Block::text(text)));
                            }
                        }
                        RequestItem::User(UserText::Items(items)) => {
                            for item in items {
                                match item {
                                    UserItem::Text(text) if text.is_empty() => {}
                                    UserItem::Text(text) => blocks.push((at, Block::text(text))),
                                    UserItem::File(file) => blocks.push((at, file_block(&file, "user prompts")?)),
                                    // `_map_user_prompt_part`: `cache_control` on the block
                                    // before it in this request, or on the last block of the
                                    // message before (`last_message_content`).
                                    UserItem::CachePoint { at, path, one_hour } => {
                                        let last = match blocks.last_mut() {
                                            Some((_, block)) => Some(block),
                                            None => messages
                                                .last_mut()
                                                .and_then(|message: &mut Message| message.content.last_mut()),
                                        };
                                        let ttl = if one_hour {
                                            CacheTtl::OneHour
                                        } else {
                                            CacheTtl::FiveMinutes
                                        };
                                        mark_cache_point(last, ttl, at, &path)?;
                                    }
                                }
                            }
                        }
                        RequestItem::ToolReturn(result) => {
                            // `_map_tool_return_part`: texts as text blocks, files as their blocks.
                            let tool_use_id = result.id.clone();
                            let is_error = result.outcome.is_error();
                            let result_blocks: Vec<Block> = match prepare::into_plain_texts(result) {
                                prepare::Taken::Moved(texts) => texts.into_iter().map(Block::text).collect(),
                                prepare::Taken::Kept(result) => {
                                    let mut result_blocks = Vec::new();
                                    for item in prepare::content_items(&result, false) {
                                        result_blocks.push(match item {
                                            ToolItem::Text(text) => Block::text(text),
                                            ToolItem::File(file) => file_block(file, "tool returns")?,
                                        });
                                    }
                                    result_blocks
                                }
                            };
                            let content = if result_blocks.is_empty() {
                                ToolResultContent::Text(String::new())
                            } else {
                                ToolResultContent::Blocks(result_blocks)
                            };
                            blocks.push((
                                at,
                                Block::ToolResult {
                                    tool_use_id,
                                    content,
                                    is_error,
                                    cache_control: None,
                                },
                            ));
                        }
                    }
                }
                (Role::User, blocks)
            }
            Prepared::Response(parts) => {
                let mut carried = Vec::new();
                let mut blocks = Vec::with_capacity(parts.len());
                for (at, item) in parts {
                    let block = match item {
                        ResponseItem::Text(text) if text.is_empty() => continue,
                        ResponseItem::Text(text) => Block::text(text),
                        ResponseItem::CitedText { content, citations } => Block::Text {
                            text: content,
                            citations: citations.into_iter().map(WebSearchCitation::from).collect(),
                            cache_control: None,
                        },
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
                            carried.push((at, Block::text(text)));
                            continue;
                        }
                        // Without `mimics_assistant_message_formatting`: tagged text of this turn.
                        ResponseItem::Thinking(Thinking::Tagged(text)) => Block::text(text),
                        // Never prepared for this profile (`replays_own_items: false`, its own
                        // `ThinkingMode`).
                        other @ (ResponseItem::ItemText { .. }
                        | ResponseItem::Thinking(_)
                        | ResponseItem::Builtin(_)) => {
                            return Err(ExportError::unsupported(
                                at,
                                "",
                                &format!("a part prepared for another provider ({other:?})"),
                            ))
                        }
                        ResponseItem::ToolCall { id, name, args, .. } => Block::ToolUse {
                            id,
                            name,
                            input: args.into_object(),
                            cache_control: None,
                        },
                        ResponseItem::Native(native) => native_block(native),
                        ResponseItem::Compaction(compaction) => {
                            let sent = |value: Option<Value>| value.filter(|value| !value.is_null()).map(Box::new);
                            Block::Compaction {
                                content: compaction.content,
                                encrypted_content: sent(compaction.encrypted_content),
                                signature: sent(compaction.signature),
                            }
                        }
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
    drop_unpaired_native_tool_calls(&mut messages, &mut origins);
    settle_cache_points(&mut messages);
    // `_build_system_prompt`: the hoisted system prompt, then one block per instruction part.
    let system_prompt = system_parts.join("\n\n");
    let system = match prepared.instructions {
        None if system_prompt.is_empty() => None,
        None => Some(System::Text(system_prompt)),
        Some((_, instructions)) => {
            let mut blocks = Vec::with_capacity(2);
            if !system_prompt.is_empty() {
                blocks.push(TextBlock::new(system_prompt));
            }
            blocks.push(TextBlock::new(instructions));
            Some(System::Blocks(blocks))
        }
    };
    Ok(Exported {
        request: Request { system, messages },
        origins,
    })
}

/// A server-side tool's prepared call or result as its block (`_map_native_tool_call_part`,
/// `_map_native_tool_return_part`).
fn native_block(native: NativeBlock) -> Block {
    match native {
        NativeBlock::ServerToolUse {
            id,
            name,
            input,
            caller,
        } => Block::ServerToolUse {
            id,
            name: name.to_owned(),
            input,
            caller,
            cache_control: None,
        },
        NativeBlock::McpToolUse {
            id,
            server_name,
            name,
            input,
        } => Block::McpToolUse {
            id,
            server_name,
            name,
            input,
        },
        NativeBlock::ToolResult {
            kind: NativeResultKind::WebSearch,
            tool_use_id,
            content,
            caller,
        } => Block::WebSearchToolResult {
            tool_use_id,
            content,
            caller,
        },
        NativeBlock::ToolResult {
            kind: NativeResultKind::WebFetch,
            tool_use_id,
            content,
            caller,
        } => Block::WebFetchToolResult {
            tool_use_id,
            content,
            caller,
        },
        NativeBlock::ToolResult {
            kind: NativeResultKind::CodeExecution,
            tool_use_id,
            content,
            ..
        } => Block::CodeExecutionToolResult { tool_use_id, content },
        NativeBlock::ToolResult {
            kind: NativeResultKind::BashCodeExecution,
            tool_use_id,
            content,
            ..
        } => Block::BashCodeExecutionToolResult { tool_use_id, content },
        NativeBlock::ToolResult {
            kind: NativeResultKind::TextEditorCodeExecution,
            tool_use_id,
            content,
            ..
        } => Block::TextEditorCodeExecutionToolResult { tool_use_id, content },
        NativeBlock::ToolSearchResult { tool_use_id, content } => Block::ToolSearchToolResult { tool_use_id, content },
        NativeBlock::McpToolResult {
            tool_use_id,
            content,
            is_error,
        } => Block::McpToolResult {
            tool_use_id,
            content,
            is_error,
            cache_control: None,
        },
    }
}

/// `add_cache_control_param`: a cache point's `cache_control` on `block`, which pydantic-ai refuses
/// to place when there is none (a cache point opening the conversation) or it is of a type that
/// takes none (`ANTHROPIC_CACHEABLE_PARAM_TYPES`). A second cache point on the block replaces the
/// first's.
fn mark_cache_point(block: Option<&mut Block>, ttl: CacheTtl, at: PartLocation, path: &str) -> Result<(), ExportError> {
    let Some(block) = block else {
        return Err(ExportError::refused(
            at,
            path,
            "a cache point with no block before it".to_owned(),
            "`CachePoint cannot be the first content in a user message`".to_owned(),
        ));
    };
    match block.cache_control_mut() {
        Some(cache_control) => {
            *cache_control = Some(CacheControl::ephemeral(ttl));
            Ok(())
        }
        None => Err(ExportError::refused(
            at,
            path,
            format!(
                "a cache point after a `{}` block, which takes no `cache_control`",
                block_type(block)
            ),
            "`Cache control not supported for param type`".to_owned(),
        )),
    }
}

/// A block's `type`, as it is sent.
fn block_type(block: &Block) -> String {
    serde_json::to_value(block)
        .ok()
        .and_then(|value| value["type"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// `_limit_cache_points` (Anthropic takes 4 breakpoints a request: the newest message ones are
/// kept, the older ones lose their `cache_control`; no system prompt or tool definition has one
/// with default settings) and `raise_earlier_breakpoint_ttls` (each kept breakpoint's ttl raised
/// to the longest of those after it, as Anthropic requires).
fn settle_cache_points(messages: &mut [Message]) {
    const MAX_POINTS: usize = 4;
    let mut kept = 0;
    let mut longest = CacheTtl::FiveMinutes;
    let blocks = messages
        .iter_mut()
        .rev()
        .flat_map(|message| message.content.iter_mut().rev());
    for cache_control in blocks.filter_map(Block::cache_control_mut) {
        let Some(control) = cache_control else { continue };
        if kept == MAX_POINTS {
            *cache_control = None;
            continue;
        }
        kept += 1;
        longest = longest.max(control.ttl);
        control.ttl = longest;
    }
}

/// The id of the call a result block answers (`block.get('tool_use_id')`).
fn answered_call_id(block: &Block) -> Option<&String> {
    match block {
        Block::ToolResult { tool_use_id, .. }
        | Block::WebSearchToolResult { tool_use_id, .. }
        | Block::WebFetchToolResult { tool_use_id, .. }
        | Block::McpToolResult { tool_use_id, .. }
        | Block::ToolSearchToolResult { tool_use_id, .. }
        | Block::CodeExecutionToolResult { tool_use_id, .. }
        | Block::BashCodeExecutionToolResult { tool_use_id, .. }
        | Block::TextEditorCodeExecutionToolResult { tool_use_id, .. } => Some(tool_use_id),
        _ => None,
    }
}

/// `drop_unpaired_native_tool_calls` (`_message_passes.py`): a `server_tool_use` or `mcp_tool_use`
/// no result block of the request answers is dropped (Anthropic rejects it), unless every turn
/// after it is a user turn of only `tool_result` blocks; a turn left empty is dropped whole. The
/// origins follow their blocks.
fn drop_unpaired_native_tool_calls(messages: &mut Vec<Message>, origins: &mut Vec<Origin>) {
    // Nearly every history has no server-side call: no set of every result's id is built for it.
    let calls_server_tools = messages
        .iter()
        .flat_map(|message| &message.content)
        .any(|block| matches!(block, Block::ServerToolUse { .. } | Block::McpToolUse { .. }));
    if !calls_server_tools {
        return;
    }
    let answered: std::collections::HashSet<String> = messages
        .iter()
        .flat_map(|message| &message.content)
        .filter_map(answered_call_id)
        .cloned()
        .collect();
    let unpaired = |block: &Block| match block {
        Block::ServerToolUse { id, .. } | Block::McpToolUse { id, .. } => !answered.contains(id),
        _ => false,
    };
    let mut suffix_is_tool_result_only = true;
    for index in (0..messages.len()).rev() {
        if !suffix_is_tool_result_only && messages[index].content.iter().any(unpaired) {
            let keep: Vec<bool> = messages[index].content.iter().map(|block| !unpaired(block)).collect();
            let content = std::mem::take(&mut messages[index].content);
            let mut kept = Vec::with_capacity(content.len());
            for (mut block, keep) in content.into_iter().zip(&keep) {
                if *keep {
                    kept.push(block);
                } else if let Some(Some(cache_control)) = block.cache_control_mut().map(|control| *control) {
                    // `keep_cache_boundary_before`: a dropped call's cache boundary moves to the
                    // nearest block before it that takes one (its own message's kept blocks, then
                    // the messages before); with none, it goes with the call.
                    let before = messages[..index]
                        .iter_mut()
                        .rev()
                        .flat_map(|message| message.content.iter_mut().rev());
                    if let Some(carrier) = kept.iter_mut().rev().chain(before).find_map(Block::cache_control_mut) {
                        *carrier = Some(cache_control);
                    }
                }
            }
            messages[index].content = kept;
            let origin = &mut origins[index];
            if origin.blocks.len() == keep.len() {
                let mut kept = keep.iter();
                origin.blocks.retain(|_| *kept.next().unwrap_or(&true));
                if let Some(first) = origin.blocks.first() {
                    origin.start = *first;
                }
            }
            if messages[index].content.is_empty() {
                messages.remove(index);
                origins.remove(index);
                continue;
            }
        }
        let message = &messages[index];
        suffix_is_tool_result_only = suffix_is_tool_result_only
            && message.role == Role::User
            && !message.content.is_empty()
            && message
                .content
                .iter()
                .all(|block| matches!(block, Block::ToolResult { .. }));
    }
}

/// `_map_file_to_content_block`: a file item of a user prompt or tool return (`context`) as its
/// image or document block, or the refusal pydantic-ai raises (or a download msgflow never makes).
fn file_block(file: &File, context: &str) -> Result<Block, ExportError> {
    match &file.kind {
        FileKind::Binary { data, media_type, .. } => {
            if msgflow_media::is_image(media_type) || msgflow_media::is_document(media_type) {
                binary_block(file, data, media_type)
            } else {
                Err(file.refuse_as(&format!("Unsupported binary content type in Anthropic {context}")))
            }
        }
        // `_map_image_url`: the URL itself, unless it is to be downloaded.
        FileKind::Url {
            kind: UrlKind::Image, ..
        } => Ok(Block::Image {
            source: Source::Url {
                url: file.url_to_send()?,
            },
            cache_control: None,
        }),
        // `_map_document_url`: a PDF's URL; a text document's text, which pydantic-ai downloads.
        FileKind::Url {
            kind: UrlKind::Document,
            ..
        } => match file.media_type()? {
            "application/pdf" => Ok(Block::Document {
                source: Source::Url {
                    url: file.url_to_send()?,
                },
                cache_control: None,
            }),
            "text/plain" => Err(file.refuse_download("Anthropic takes a text document's text, not its URL")),
            other => Err(file.refuse_as(&format!("Unsupported document media type: {other}"))),
        },
        FileKind::Url { kind, .. } => Err(file.refuse_as(&format!(
            "{} is not supported in Anthropic {context}",
            media::url_class(*kind)
        ))),
        // `_map_uploaded_file`: an image or a document by its Files API id.
        FileKind::Uploaded { file_id, .. } => {
            file.check_uploaded_provider("anthropic", "AnthropicModel")?;
            let media_type = file.media_type()?;
            let file_id = file_id.clone();
            if media_type.starts_with("image/") {
                Ok(Block::Image {
                    source: Source::File { file_id },
                    cache_control: None,
                })
            } else if media_type.starts_with("text/") || media_type.starts_with("application/") {
                Ok(Block::Document {
                    source: Source::File { file_id },
                    cache_control: None,
                })
            } else {
                Err(file.refuse_as(&format!(
                    "Unsupported media type '{media_type}' for Anthropic file upload"
                )))
            }
        }
    }
}

/// `_map_binary_data`: an image's or a PDF's bytes as base64, a `text/plain` document's text.
fn binary_block(file: &File, data: &[u8], media_type: &str) -> Result<Block, ExportError> {
    if media_type.starts_with("image/") {
        return Ok(Block::Image {
            source: Source::Base64 {
                data: media::base64(data),
                media_type: media_type.to_owned(),
            },
            cache_control: None,
        });
    }
    match media_type {
        "application/pdf" => Ok(Block::Document {
            source: Source::Base64 {
                data: media::base64(data),
                media_type: media_type.to_owned(),
            },
            cache_control: None,
        }),
        // `data.decode('utf-8')`, which raises on bytes that are not UTF-8.
        "text/plain" => match std::str::from_utf8(data) {
            Ok(text) => Ok(Block::Document {
                source: Source::Text {
                    data: text.to_owned(),
                    media_type: media_type.to_owned(),
                },
                cache_control: None,
            }),
            Err(_) => Err(file.refused_because("its data is not UTF-8, which it fails to decode".to_owned())),
        },
        other => Err(file.refuse_as(&format!("Unsupported binary content media type for Anthropic: {other}"))),
    }
}
