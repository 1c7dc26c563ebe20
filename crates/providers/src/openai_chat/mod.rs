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

pub(crate) mod rules;

use std::borrow::Cow;

use msgflow_media::UrlKind;
use msgflow_wire::ModelMessage;
use serde::{Deserialize, Serialize};

use serde_json::{Map, Value};

use crate::framing;
use crate::media::{self, File, FileKind};
use crate::prepare::{
    self, Prepared, Profile, RequestItem, ResponseItem, Thinking, ThinkingAsText, ThinkingMode, UserItem, UserText,
};
use crate::{ExportError, Exported, Origin, PartLocation, Provider, ReplayedThinking};

/// `OpenAIChatModel`'s profile as far as the mapping is concerned: system prompts are sent inline.
const PROFILE: Profile = Profile {
    inline_system_prompts: true,
    system: "openai",
    replays_own_items: false,
    thinking: ThinkingMode::OpenAiChat,
    notes_precede_tool_results: false,
    // `_relocates_tool_files`: a tool's files go in a user message of their own, framed.
    adds_tools: false,
    relocates_tool_files: true,
    args_as_text: true,
    carries_foreign_thinking: false,
    thinking_as_text: ThinkingAsText::WithoutField,
    supported_documents: prepare::SupportedDocuments::AllKnown,
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
        /// `None` when there are none (the map is boxed: most messages have none, and a request
        /// holds one message per turn).
        #[serde(flatten)]
        thinking_fields: Option<Box<Map<String, Value>>>,
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
    Parts(Vec<ContentPart>),
}

/// A content part of a user message (`ChatCompletionContentPartParam`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Text, or a text-like file inlined between `-----BEGIN FILE ...-----` lines.
    Text {
        /// The text.
        text: String,
    },
    /// An image by URL or `data:` URI.
    ImageUrl {
        /// The image and its detail.
        image_url: ImageUrl,
    },
    /// Audio as base64 (`wav` or `mp3`).
    InputAudio {
        /// The audio.
        input_audio: InputAudio,
    },
    /// A document as a `data:` URI, or an uploaded file by id.
    File {
        /// The file.
        file: FileFile,
    },
}

/// An `image_url` part's image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    /// The URL, or the image's `data:` URI.
    pub url: String,
    /// `vendor_metadata['detail']` (`auto` when the metadata has none), absent without metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

/// An `input_audio` part's audio.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputAudio {
    /// The bytes, standard base64.
    pub data: String,
    /// `wav` or `mp3`.
    pub format: String,
}

/// A `file` part's file: inline data with a file name, or an uploaded file's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFile {
    /// The document's `data:` URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<String>,
    /// `filename.<format>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// An OpenAI file id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
}

/// An assistant message's function tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: FunctionType,
    /// The function and its arguments.
    pub function: FunctionCall,
    /// The `extra_content` vendor extension the call was received with (Gemini's thought
    /// signatures through its OpenAI-compatible endpoint), sent back as it came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_content: Option<Box<Value>>,
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
                matches!(message, Message::Assistant { thinking_fields: Some(fields), .. } if fields.contains_key(*name))
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
            let fields = thinking_fields.get_or_insert_with(Box::default);
            if !fields.contains_key(field) {
                fields.insert(field.to_owned(), Value::String(String::new()));
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
    export_with(history, &ChatThinking::Auto, ReplayedThinking::AssistantTurn)
}

/// [`export`] for a profile that sends thinking back as `thinking` says, and puts the reasoning
/// it writes out as text where `replayed` says.
pub fn export_with(
    history: &[ModelMessage],
    thinking: &ChatThinking,
    replayed: ReplayedThinking,
) -> Result<Exported<Request>, ExportError> {
    let profile = Profile {
        carries_foreign_thinking: replayed == ReplayedThinking::UserTurn,
        thinking_as_text: match thinking {
            ChatThinking::Auto => ThinkingAsText::WithoutField,
            ChatThinking::Tags => ThinkingAsText::All,
            ChatThinking::Field(_) | ChatThinking::Off => ThinkingAsText::None,
        },
        ..PROFILE
    };
    export_inner(history, thinking, profile).map_err(|error| error.for_provider(Provider::OpenAiChat))
}

fn export_inner(
    history: &[ModelMessage],
    thinking: &ChatThinking,
    profile: Profile,
) -> Result<Exported<Request>, ExportError> {
    prepare::prepare(history, profile)?.map_in_order(|prepared| map(prepared, thinking, profile))
}

/// `_map_messages` on the prepared history.
fn map(
    prepared: prepare::PreparedHistory,
    thinking: &ChatThinking,
    profile: Profile,
) -> Result<Exported<Request>, ExportError> {
    // Sized up front, not grown and copied.
    let capacity = prepared.most_items();
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
                // `_map_user_message`: the files of the request's tool results, framed, for a user
                // message after its other messages (`model_response_str_and_user_content`).
                let mut file_content: Vec<UserItem> = Vec::new();
                let mut files_at = None;
                for (at, item) in parts {
                    messages.push(match item {
                        // Taken out by `prepare`.
                        RequestItem::ToolAvailability => continue,
                        RequestItem::SystemPrompt { content }
                        | RequestItem::WrappedSystemPrompt { content }
                        | RequestItem::Note { content } => Message::System { content },
                        RequestItem::User(UserText::Text(text)) | RequestItem::Feedback(text) => Message::User {
                            content: UserContent::Text(text),
                        },
                        RequestItem::User(UserText::Items(items)) => Message::User {
                            content: UserContent::Parts(user_parts(&items)?),
                        },
                        // The tool message refers to each file (`See file <identifier>.`); the files go
                        // in the user message, each in `<pyai:tool_result>` tags naming its call.
                        RequestItem::ToolReturn(result) if !result.files.is_empty() => {
                            files_at.get_or_insert(at);
                            for (_, file) in &result.files {
                                let (open, close) =
                                    framing::tool_result_frame_tags(&result.tool_name, &result.id, &file.identifier);
                                file_content.extend([
                                    UserItem::Text(open),
                                    UserItem::File(file.clone()),
                                    UserItem::Text(close),
                                ]);
                            }
                            Message::Tool {
                                tool_call_id: result.id.clone(),
                                content: prepare::tool_text_with_file_references(&result),
                            }
                        }
                        RequestItem::ToolReturn(result) => {
                            let tool_call_id = result.id.clone();
                            let content = match prepare::into_response_str(result) {
                                prepare::Taken::Moved(text) => text,
                                prepare::Taken::Kept(result) => prepare::model_response_str(&result, true),
                            };
                            Message::Tool { tool_call_id, content }
                        }
                    });
                    origins.push(single(at));
                }
                if let Some(at) = files_at {
                    messages.push(Message::User {
                        content: UserContent::Parts(user_parts(&file_content)?),
                    });
                    origins.push(single(at));
                }
            }
            Prepared::Response(parts) => {
                // `'field'` mode's backfill starts at the first response that thinks.
                field_backfill |= parts.iter().any(|(_, item)| matches!(item, ResponseItem::Thinking(_)));
                let mut texts = Vec::new();
                let mut fields: Vec<(&str, Vec<&str>)> = Vec::new();
                // Sized exactly: a vector grown to its first four calls can be a large block, which
                // in glibc consolidates every small block freed so far.
                let call_count = parts
                    .iter()
                    .filter(|(_, item)| matches!(item, ResponseItem::ToolCall { .. }))
                    .count();
                let mut calls = Vec::with_capacity(call_count);
                let mut call_origins = Vec::with_capacity(call_count);
                // `carried_thinkings` (`_map_carried_thinking`), with where the first of them is.
                let mut carried: Vec<String> = Vec::new();
                let mut carried_at = None;
                // Texts are joined (a copy each): borrowed from the prepared items.
                for (at, item) in &parts {
                    match item {
                        ResponseItem::Text(text) => texts.push(Cow::Borrowed(text.as_str())),
                        ResponseItem::Thinking(Thinking::Chat { content, auto_field }) => {
                            let field = match (thinking, auto_field) {
                                (ChatThinking::Off, _) => continue,
                                (ChatThinking::Auto, Some(field)) => field.as_str(),
                                (ChatThinking::Field(field), _) => field.as_str(),
                                // `_map_response_thinking_as_text`: an empty part carried would tell
                                // the model the assistant thought nothing, and is left out.
                                (ChatThinking::Auto | ChatThinking::Tags, _) if profile.carries_foreign_thinking => {
                                    if !content.is_empty() {
                                        carried_at.get_or_insert(*at);
                                        carried.push(framing::assistant_thinking_frame(content));
                                    }
                                    continue;
                                }
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
                        other @ (ResponseItem::ItemText { .. }
                        | ResponseItem::Thinking(_)
                        | ResponseItem::Native(_)
                        | ResponseItem::Builtin(_)
                        | ResponseItem::Compaction(_)
                        | ResponseItem::CitedText { .. }) => {
                            return Err(ExportError::unsupported(
                                *at,
                                "",
                                &format!("a part prepared for another provider ({other:?})"),
                            ))
                        }
                        ResponseItem::ToolCall {
                            id,
                            name,
                            args,
                            sent_detail,
                            ..
                        } => {
                            calls.push(ToolCall {
                                id: id.clone(),
                                kind: FunctionType::Function,
                                function: FunctionCall {
                                    name: name.clone(),
                                    arguments: args.to_text(),
                                },
                                extra_content: sent_detail.clone().map(Box::new),
                            });
                            call_origins.push(*at);
                        }
                    }
                }
                // The user message ahead of the assistant message (`_map_messages`), also when the
                // response sends no assistant message.
                if let Some(at) = carried_at {
                    messages.push(Message::User {
                        content: UserContent::Text(carried.join("\n\n")),
                    });
                    origins.push(single(at));
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
                    thinking_fields: (!thinking_fields.is_empty()).then(|| Box::new(thinking_fields)),
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

/// `_map_user_prompt` for a list prompt: each item by `_map_user_prompt_content_item` (a cache
/// point is left out: `gpt-4o` has no `openai_supports_prompt_cache_breakpoints`).
fn user_parts(items: &[UserItem]) -> Result<Vec<ContentPart>, ExportError> {
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        match item {
            UserItem::Text(text) => parts.push(ContentPart::Text { text: text.clone() }),
            UserItem::File(file) => parts.push(file_part(file)?),
            UserItem::CachePoint { .. } => {}
        }
    }
    Ok(parts)
}

/// `_map_content_item` for a file item: the part pydantic-ai builds, or its refusal (or a
/// download msgflow never makes).
fn file_part(file: &File) -> Result<ContentPart, ExportError> {
    match &file.kind {
        FileKind::Binary { data, media_type } => binary_part(file, data, media_type, &file.identifier),
        // `_map_image_url_item`: the URL itself, unless it is to be downloaded.
        FileKind::Url {
            kind: UrlKind::Image, ..
        } => Ok(ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: file.url_to_send()?,
                detail: file.detail(),
            },
        }),
        // `_map_audio_url_item`, `_map_document_url_item`: Chat Completions takes no audio or
        // document URL (`openai_chat_supports_file_urls` is off), so pydantic-ai downloads them.
        FileKind::Url {
            kind: UrlKind::Audio, ..
        } => Err(file.refuse_download("Chat Completions takes audio as base64 data only")),
        // `_is_text_like_media_type(item.media_type)` reads the media type before either download.
        FileKind::Url {
            kind: UrlKind::Document,
            ..
        } => Err(file
            .media_type()
            .err()
            .unwrap_or_else(|| file.refuse_download("Chat Completions takes a document's data, not its URL"))),
        FileKind::Url {
            kind: UrlKind::Video, ..
        } => Err(file.refuse_as("VideoUrl is not supported in OpenAI Chat Completions user prompts")),
        // An uploaded document by its file id; an uploaded image cannot be referenced by id here.
        FileKind::Uploaded { file_id, .. } => {
            file.check_uploaded_provider("openai", "OpenAIChatModel")?;
            if file.media_type()?.starts_with("image/") {
                return Err(
                    file.refuse_as("Referencing an uploaded image by `file_id` is not supported by OpenAIChatModel")
                );
            }
            Ok(ContentPart::File {
                file: FileFile {
                    file_data: None,
                    filename: None,
                    file_id: Some(file_id.clone()),
                },
            })
        }
    }
}

/// `_map_binary_content_item`: text-like files inlined as framed text, images as a `data:` URI,
/// `wav`/`mp3` audio as base64, documents as a `data:` URI with a file name; video refused.
fn binary_part(file: &File, data: &[u8], media_type: &str, identifier: &str) -> Result<ContentPart, ExportError> {
    if msgflow_media::is_text_like_media_type(media_type) {
        // `item.data.decode('utf-8')`, which raises on bytes that are not UTF-8.
        let text = std::str::from_utf8(data)
            .map_err(|_| file.refused_because("its data is not UTF-8, which it fails to decode".to_owned()))?;
        return Ok(ContentPart::Text {
            text: format_inlined_text_file(text, media_type, identifier),
        });
    }
    let format = || file.binary_format(media_type);
    if msgflow_media::is_image(media_type) {
        Ok(ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: media::data_uri(media_type, data),
                detail: file.detail(),
            },
        })
    } else if msgflow_media::is_audio(media_type) {
        // `assert item.format in ('wav', 'mp3')`.
        let format = format()?;
        if !matches!(format, "wav" | "mp3") {
            return Err(file.refused_because("it sends only `wav` and `mp3` audio to Chat Completions".to_owned()));
        }
        Ok(ContentPart::InputAudio {
            input_audio: InputAudio {
                data: media::base64(data),
                format: format.to_owned(),
            },
        })
    } else if msgflow_media::is_document(media_type) {
        let format = format()?;
        Ok(ContentPart::File {
            file: FileFile {
                file_data: Some(media::data_uri(media_type, data)),
                filename: Some(format!("filename.{format}")),
                file_id: None,
            },
        })
    } else {
        Err(file.refused_because("it maps no video (nor any type it does not know) in Chat Completions".to_owned()))
    }
}

/// `_utils.format_inlined_text_file`: a text file between `BEGIN FILE` and `END FILE` lines.
fn format_inlined_text_file(text: &str, media_type: &str, identifier: &str) -> String {
    format!("-----BEGIN FILE id=\"{identifier}\" type=\"{media_type}\"-----\n{text}\n-----END FILE id=\"{identifier}\"-----")
}
