//! The OpenAI Responses request pydantic-ai 2.68.0's `OpenAIResponsesModel` (`gpt-5`) builds for a
//! history: `{"instructions": ..., "input": [...]}`.
//!
//! Mirrors `pydantic_ai/models/openai/_responses_model.py`: `_map_messages`, `_map_model_request`
//! (an input message per system and user prompt, a `function_call_output` per tool return with
//! `model_response_str()`), `_map_user_prompt` (`input_text` items for a list prompt),
//! `_map_response_text_part` (an assistant message per text part, empty ones included, or an
//! output message item with the part's id for OpenAI's own), `_map_function_call` (a
//! `function_call` item per tool call, with its item id for OpenAI's own) and
//! `_map_response_thinking_part` / `_map_thinking_to_reasoning_item` (reasoning items, or `<think>`
//! text). `instructions` is absent without instructions (`OMIT`).

pub(crate) mod rules;

use msgflow_media::UrlKind;
use msgflow_wire::ModelMessage;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::media::{self, File, FileKind};
use crate::prepare::{
    self, BuiltinItem, BuiltinTool, Prepared, Profile, RequestItem, ResponseItem, Thinking, ThinkingMode, ToolItem,
    ToolResult, UserItem, UserText,
};
use crate::{ExportError, Exported, Origin, Provider, ReplayedThinking};

/// `OpenAIResponsesModel`'s profile as far as the mapping is concerned.
const PROFILE: Profile = Profile {
    inline_system_prompts: true,
    system: "openai",
    replays_own_items: true,
    thinking: ThinkingMode::OpenAiResponses,
    // `OpenAIResponsesModel._lookalike_notes_precede_tool_results`.
    notes_precede_tool_results: true,
    // `tool_addition_mode = 'with_definitions'`: a tool-availability delta stays in the request.
    adds_tools: true,
    relocates_tool_files: false,
    args_as_text: true,
    carries_foreign_thinking: false,
    // Read for OpenAI Chat only.
    thinking_as_text: prepare::ThinkingAsText::All,
    supported_documents: prepare::SupportedDocuments::AllKnown,
};

/// The `instructions` and `input` of a Responses request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The instructions, absent when the history has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The input items.
    pub input: Vec<Item>,
}

/// An input item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Item {
    /// A `function_call` or `function_call_output` item (they carry a `type`).
    Typed(TypedItem),
    /// An easy input message (`{"role", "content"}`, no `type`).
    Message(InputMessage),
}

/// The input items that carry a `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TypedItem {
    /// A tool call the model made.
    FunctionCall {
        /// The tool's name.
        name: String,
        /// The arguments as compact JSON text of an object (`args_as_json_str`).
        arguments: String,
        /// The call's id.
        call_id: String,
        /// The call's item id (`fc_...`), sent back to this same provider only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The tool-search `namespace` of a call to a discovered tool, sent back to this same
        /// provider, which rejects the call without it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<Value>,
    },
    /// An output message the model wrote, sent back with its item id to this same provider
    /// (`ResponseOutputMessageParam`).
    Message {
        /// Always `assistant`.
        role: AssistantRole,
        /// The message's item id (`msg_...`).
        id: String,
        /// The message's texts, one per text part with this id.
        content: Vec<OutputText>,
        /// Always `completed`.
        status: Status,
    },
    /// A reasoning item: OpenAI's own reasoning sent back (`_map_thinking_to_reasoning_item`).
    Reasoning {
        /// The item's id (the thinking part's `id`).
        id: String,
        /// The reasoning's summary texts, one per thinking part of the item with content.
        summary: Vec<SummaryText>,
        /// The encrypted reasoning (the part's `signature`), `null` when there is none the model
        /// accepts.
        encrypted_content: Option<String>,
    },
    /// A web search OpenAI ran, sent back by its id (`ResponseFunctionWebSearchParam`,
    /// `map_web_search_call_for_replay`).
    WebSearchCall {
        /// The call's item id (the part's `id`, else its `tool_call_id`).
        id: String,
        /// The call's arguments that are not `null`.
        action: Map<String, Value>,
        /// `completed`, or the truthy `status` of the response's result after it.
        status: Value,
    },
    /// Code OpenAI ran in a container (`ResponseCodeInterpreterToolCallParam`).
    CodeInterpreterCall {
        /// The call's id.
        id: String,
        /// The `code` argument (`null` when there is none); boxed, as is the container, so that
        /// every item stays small.
        code: Box<Value>,
        /// The `container_id` argument.
        container_id: Box<Value>,
        /// Always `null`: the outputs are read server-side.
        outputs: Option<Vec<Value>>,
        /// `completed`, or the truthy `status` of the response's result after it.
        status: Value,
    },
    /// A file search OpenAI ran (`ResponseFileSearchToolCallParam`).
    FileSearchCall {
        /// The call's item id (the part's `id`, else its `tool_call_id`).
        id: String,
        /// The `queries` argument (`[]` when there is none).
        queries: Value,
        /// `completed`, or the truthy `status` of the response's result after it.
        status: Value,
    },
    /// An image OpenAI generated, resolved by its id alone (`ImageGenerationCall`).
    ImageGenerationCall {
        /// The call's id.
        id: String,
    },
    /// The tools an MCP server listed (`McpListTools`), read server-side.
    McpListTools {
        /// The call's id.
        id: String,
        /// The server's id (what follows `mcp_server:` in the part's tool name).
        server_label: String,
        /// Always empty.
        tools: Vec<Value>,
    },
    /// A call of an MCP server's tool (`McpCall`); its output is read server-side.
    McpCall {
        /// The call's id.
        id: String,
        /// The server's id (what follows `mcp_server:` in the part's tool name).
        server_label: String,
        /// The server's tool (the call's `tool_name` argument).
        name: String,
        /// The tool's arguments (`tool_args`) as compact JSON text.
        arguments: String,
        /// Always `null`.
        error: Option<String>,
        /// Always `null`.
        output: Option<String>,
    },
    /// A compaction OpenAI made, sent back with its encrypted content (`ResponseCompactionItemParamParam`,
    /// `_map_response_compaction_part`).
    Compaction {
        /// The part's `id` (`null` when it has none).
        id: Option<String>,
        /// `provider_details['encrypted_content']` as recorded; boxed so that every item stays small.
        encrypted_content: Box<Value>,
    },
    /// A tool call's result.
    FunctionCallOutput {
        /// The id of the call it answers.
        call_id: String,
        /// The result: its text, or its items when it holds files.
        output: ToolOutput,
    },
}

/// A `function_call_output`'s `output`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolOutput {
    /// The result's text (`model_response_str()`: failures wrapped as `{"error": ...}`).
    Text(String),
    /// A result holding files: its texts as `input_text`, its files as `input_image` and
    /// `input_file` (failures: the wrapped error, then the files).
    Items(Vec<InputContent>),
}

/// The role of an output message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AssistantRole {
    /// `assistant`.
    Assistant,
}

/// The status of an output message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// `completed`.
    Completed,
}

/// A `{"text": ..., "type": "output_text", "annotations": []}` item of an output message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputText {
    /// The text.
    pub text: String,
    /// Always `output_text`.
    #[serde(rename = "type")]
    pub kind: OutputTextType,
    /// The citations replayed with it (`map_responses_citations_for_replay`).
    pub annotations: Vec<Annotation>,
}

/// A citation OpenAI returned for an output text, sent back with it (`response_output_text_param`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Annotation {
    /// `AnnotationURLCitation`: a web page the text links, at the range (in code points) holding
    /// the link.
    UrlCitation {
        /// The page's URL (never empty).
        url: String,
        /// The page's title.
        title: String,
        /// Where the link starts in the text.
        start_index: u64,
        /// Where the link ends in the text.
        end_index: u64,
    },
    /// `AnnotationFileCitation`: a file the text cites.
    FileCitation {
        /// The file's id (never empty).
        file_id: String,
        /// The file's name.
        filename: String,
        /// The position of the citation in the text, as recorded.
        index: serde_json::Number,
    },
}

impl From<crate::prepare::Annotation> for Annotation {
    fn from(annotation: crate::prepare::Annotation) -> Self {
        match annotation {
            crate::prepare::Annotation::Url {
                url,
                title,
                start_index,
                end_index,
            } => Annotation::UrlCitation {
                url,
                title,
                start_index,
                end_index,
            },
            crate::prepare::Annotation::File {
                file_id,
                filename,
                index,
            } => Annotation::FileCitation {
                file_id,
                filename,
                index,
            },
        }
    }
}

/// The `type` of an [`OutputText`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputTextType {
    /// `output_text`.
    OutputText,
}

/// A `{"text": ..., "type": "summary_text"}` item of a reasoning item's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryText {
    /// The summary text (a thinking part's content).
    pub text: String,
    /// Always `summary_text`.
    #[serde(rename = "type")]
    pub kind: SummaryTextType,
}

/// The `type` of a [`SummaryText`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SummaryTextType {
    /// `summary_text`.
    SummaryText,
}

/// An easy input message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputMessage {
    /// `system`, `user` or `assistant`.
    pub role: Role,
    /// A string, or `input_text` items for a list prompt.
    pub content: Content,
}

/// The role of an input message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A system prompt.
    System,
    /// A user prompt.
    User,
    /// A model's text.
    Assistant,
}

/// An input message's `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// A string.
    Text(String),
    /// A list prompt's items.
    Items(Vec<InputContent>),
}

/// An item of an input message's content (`ResponseInputContentParam`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputContent {
    /// `input_text`.
    InputText {
        /// The text.
        text: String,
    },
    /// `input_image`: by URL or `data:` URI, or an uploaded image by id.
    InputImage {
        /// The URL, or the image's `data:` URI.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        image_url: Option<String>,
        /// An OpenAI file id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_id: Option<String>,
        /// `vendor_metadata['detail']`, `auto` by default.
        detail: Value,
    },
    /// `input_file`: a document's `data:` URI with a file name, a file URL, or an uploaded file
    /// by id.
    InputFile {
        /// The document's `data:` URI.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_data: Option<String>,
        /// `filename.<format>`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
        /// The file's URL (`DocumentUrl`, `AudioUrl`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_url: Option<String>,
        /// An OpenAI file id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_id: Option<String>,
    },
}

/// The request `OpenAIResponsesModel` would send for `history`.
pub fn export(history: &[ModelMessage]) -> Result<Exported<Request>, ExportError> {
    export_with(history, ReplayedThinking::AssistantTurn)
}

/// [`export`] for a profile that puts the reasoning it writes out as text where `replayed` says.
pub fn export_with(history: &[ModelMessage], replayed: ReplayedThinking) -> Result<Exported<Request>, ExportError> {
    let profile = Profile {
        carries_foreign_thinking: replayed == ReplayedThinking::UserTurn,
        ..PROFILE
    };
    export_inner(history, profile).map_err(|error| error.for_provider(Provider::OpenAiResponses))
}

fn export_inner(history: &[ModelMessage], profile: Profile) -> Result<Exported<Request>, ExportError> {
    prepare::prepare(history, profile)?.map_in_order(map)
}

/// `_map_messages` on the prepared history.
fn map(prepared: prepare::PreparedHistory) -> Result<Exported<Request>, ExportError> {
    // Sized up front, not grown and copied.
    let capacity = prepared.most_items();
    let mut input = Vec::with_capacity(capacity);
    let mut origins = Vec::with_capacity(capacity);
    let message = |role, content: String| {
        Item::Message(InputMessage {
            role,
            content: Content::Text(content),
        })
    };
    // The prepared items are moved into the request: every text is copied once, from the history.
    for prepared_message in prepared.messages {
        match prepared_message {
            Prepared::Request(parts) => {
                for (at, item) in parts {
                    input.push(match item {
                        // Taken out by `prepare`.
                        RequestItem::ToolAvailability => continue,
                        RequestItem::SystemPrompt { content }
                        | RequestItem::WrappedSystemPrompt { content }
                        | RequestItem::Note { content } => message(Role::System, content),
                        RequestItem::User(UserText::Text(text)) | RequestItem::Feedback(text) => {
                            message(Role::User, text)
                        }
                        RequestItem::User(UserText::Items(items)) => Item::Message(InputMessage {
                            role: Role::User,
                            content: Content::Items(user_contents(&items)?),
                        }),
                        RequestItem::ToolReturn(result) => {
                            let call_id = result.id.clone();
                            let output = match prepare::into_response_str(result) {
                                prepare::Taken::Moved(text) => ToolOutput::Text(text),
                                prepare::Taken::Kept(result) => tool_output(&result)?,
                            };
                            Item::Typed(TypedItem::FunctionCallOutput { call_id, output })
                        }
                    });
                    origins.push(Origin {
                        start: at,
                        blocks: Vec::new(),
                    });
                }
            }
            Prepared::Response(parts) => {
                // `_ResponsesMapModelResponseContext.reasoning_item`: the response's last reasoning
                // item, which later parts with its id add their summaries to.
                let mut reasoning_item: Option<usize> = None;
                // `.message_item`: the response's last output message item.
                let mut message_item: Option<usize> = None;
                // `.code_interpreter_item`, `.web_search_item`, `.file_search_item`: the response's
                // last call item of each tool, which a later result's status is written to.
                let mut builtin_items: [Option<usize>; 3] = [None; 3];
                // `.carried_thinkings`, which go in a user message ahead of the response's items
                // (`response_start`), with where the first of them is.
                let response_start = input.len();
                let mut carried: Vec<String> = Vec::new();
                let mut carried_at = None;
                for (at, item) in parts {
                    if let ResponseItem::Builtin(BuiltinItem::Status { tool, status }) = item {
                        if let Some(index) = builtin_items[tool as usize] {
                            if let Item::Typed(
                                TypedItem::WebSearchCall { status: sent, .. }
                                | TypedItem::CodeInterpreterCall { status: sent, .. }
                                | TypedItem::FileSearchCall { status: sent, .. },
                            ) = &mut input[index]
                            {
                                *sent = status;
                            }
                        }
                        continue;
                    }
                    input.push(match item {
                        ResponseItem::Text(text) | ResponseItem::Thinking(Thinking::Tagged(text)) => {
                            message(Role::Assistant, text)
                        }
                        ResponseItem::Thinking(Thinking::Reasoning {
                            id,
                            encrypted_content,
                            content,
                        }) => {
                            let same_item = reasoning_item.filter(|&index| {
                                matches!(&input[index], Item::Typed(TypedItem::Reasoning { id: item_id, .. }) if *item_id == id)
                            });
                            let index = match same_item {
                                Some(index) => index,
                                None if encrypted_content.is_some() || !content.is_empty() => {
                                    reasoning_item = Some(input.len());
                                    input.push(Item::Typed(TypedItem::Reasoning {
                                        id,
                                        summary: Vec::new(),
                                        encrypted_content,
                                    }));
                                    origins.push(Origin {
                                        start: at,
                                        blocks: Vec::new(),
                                    });
                                    input.len() - 1
                                }
                                // Nothing to send: no encrypted content, no summary.
                                None => continue,
                            };
                            if !content.is_empty() {
                                if let Item::Typed(TypedItem::Reasoning { summary, .. }) = &mut input[index] {
                                    summary.push(SummaryText {
                                        text: content,
                                        kind: SummaryTextType::SummaryText,
                                    });
                                }
                            }
                            continue;
                        }
                        // `_map_response_text_part`: the response's last output message, when it
                        // has this id, takes the text; otherwise a new one does.
                        ResponseItem::ItemText {
                            id,
                            content,
                            annotations,
                        } => {
                            let same_item = message_item.filter(|&index| {
                                matches!(&input[index], Item::Typed(TypedItem::Message { id: item_id, .. }) if *item_id == id)
                            });
                            let index = match same_item {
                                Some(index) => index,
                                None => {
                                    message_item = Some(input.len());
                                    input.push(Item::Typed(TypedItem::Message {
                                        role: AssistantRole::Assistant,
                                        id,
                                        content: Vec::new(),
                                        status: Status::Completed,
                                    }));
                                    origins.push(Origin {
                                        start: at,
                                        blocks: Vec::new(),
                                    });
                                    input.len() - 1
                                }
                            };
                            if let Item::Typed(TypedItem::Message { content: texts, .. }) = &mut input[index] {
                                texts.push(OutputText {
                                    text: content,
                                    kind: OutputTextType::OutputText,
                                    annotations: annotations.into_iter().map(Annotation::from).collect(),
                                });
                            }
                            continue;
                        }
                        ResponseItem::Thinking(Thinking::Carried(text)) => {
                            carried_at.get_or_insert(at);
                            carried.push(text);
                            continue;
                        }
                        ResponseItem::Thinking(other) => {
                            return Err(ExportError::unsupported(
                                at,
                                "",
                                &format!("a thinking part prepared for another provider ({other:?})"),
                            ))
                        }
                        ResponseItem::Builtin(builtin) => {
                            let completed = || Value::String("completed".to_owned());
                            let (tool, item) = match builtin {
                                BuiltinItem::WebSearchCall { id, action } => (
                                    Some(BuiltinTool::WebSearch),
                                    TypedItem::WebSearchCall {
                                        id,
                                        action,
                                        status: completed(),
                                    },
                                ),
                                BuiltinItem::CodeInterpreterCall { id, code, container_id } => (
                                    Some(BuiltinTool::CodeExecution),
                                    TypedItem::CodeInterpreterCall {
                                        id,
                                        code: Box::new(code),
                                        container_id: Box::new(container_id),
                                        outputs: None,
                                        status: completed(),
                                    },
                                ),
                                BuiltinItem::FileSearchCall { id, queries } => (
                                    Some(BuiltinTool::FileSearch),
                                    TypedItem::FileSearchCall {
                                        id,
                                        queries,
                                        status: completed(),
                                    },
                                ),
                                BuiltinItem::ImageGenerationCall { id } => (None, TypedItem::ImageGenerationCall { id }),
                                BuiltinItem::McpListTools { id, server_label } => (
                                    None,
                                    TypedItem::McpListTools {
                                        id,
                                        server_label,
                                        tools: Vec::new(),
                                    },
                                ),
                                BuiltinItem::McpCall {
                                    id,
                                    server_label,
                                    name,
                                    arguments,
                                } => (
                                    None,
                                    TypedItem::McpCall {
                                        id,
                                        server_label,
                                        name,
                                        arguments,
                                        error: None,
                                        output: None,
                                    },
                                ),
                                // Taken above.
                                BuiltinItem::Status { .. } => continue,
                            };
                            if let Some(tool) = tool {
                                builtin_items[tool as usize] = Some(input.len());
                            }
                            Item::Typed(item)
                        }
                        // Only prepared for Anthropic (`native_tool_part`).
                        ResponseItem::Native(other) => {
                            return Err(ExportError::unsupported(
                                at,
                                "",
                                &format!("a server-side tool block prepared for another provider ({other:?})"),
                            ))
                        }
                        // Only prepared for Anthropic (`response_item`).
                        other @ ResponseItem::CitedText { .. } => {
                            return Err(ExportError::unsupported(
                                at,
                                "",
                                &format!("a cited text prepared for another provider ({other:?})"),
                            ))
                        }
                        // Prepared only with its encrypted content (`_map_response_compaction_part`).
                        ResponseItem::Compaction(compaction) => Item::Typed(TypedItem::Compaction {
                            id: compaction.id,
                            encrypted_content: Box::new(compaction.encrypted_content.unwrap_or_default()),
                        }),
                        ResponseItem::ToolCall {
                            id,
                            name,
                            args,
                            item_id,
                            sent_detail,
                        } => Item::Typed(TypedItem::FunctionCall {
                            name,
                            arguments: args.into_text(),
                            call_id: id,
                            id: item_id,
                            namespace: sent_detail,
                        }),
                    });
                    origins.push(Origin {
                        start: at,
                        blocks: Vec::new(),
                    });
                }
                // See `mimics_assistant_message_formatting`: reasoning replayed in an assistant
                // turn teaches the model to write thinking tags into its visible answers.
                if let Some(at) = carried_at {
                    input.insert(response_start, message(Role::User, carried.join("\n\n")));
                    origins.insert(
                        response_start,
                        Origin {
                            start: at,
                            blocks: Vec::new(),
                        },
                    );
                }
            }
        }
    }
    // `get_instructions`: `InstructionPart.join(parts)`, which is `'\n\n'.join(...).strip() or None`.
    let instructions = prepared
        .instructions
        .map(|(_, text)| python_strip(&text).to_owned())
        .filter(|text| !text.is_empty());
    Ok(Exported {
        request: Request { instructions, input },
        origins,
    })
}

/// Python's `str.strip()`: Rust's `trim` plus the four separators Python also counts as whitespace.
fn python_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// `_map_tool_return_output`: `model_response_str()` for a result without files, else its items
/// (`content_items(mode='str')`).
fn tool_output(result: &ToolResult) -> Result<ToolOutput, ExportError> {
    if result.files.is_empty() {
        return Ok(ToolOutput::Text(prepare::model_response_str(result, true)));
    }
    let mut items = Vec::new();
    for item in prepare::content_items(result, true) {
        items.push(match item {
            ToolItem::Text(text) => InputContent::InputText { text },
            ToolItem::File(file) => file_content(file, "tool returns")?,
        });
    }
    Ok(ToolOutput::Items(items))
}

/// `_map_user_prompt` for a list prompt (a cache point is left out: `gpt-5` has no
/// `openai_supports_prompt_cache_breakpoints`).
fn user_contents(items: &[UserItem]) -> Result<Vec<InputContent>, ExportError> {
    let mut contents = Vec::with_capacity(items.len());
    for item in items {
        match item {
            UserItem::Text(text) => contents.push(InputContent::InputText { text: text.clone() }),
            UserItem::File(file) => contents.push(file_content(file, "user prompts")?),
            UserItem::CachePoint { .. } => {}
        }
    }
    Ok(contents)
}

/// `_map_file_to_response_content` and `_map_uploaded_file_to_response_content`: a file item of a
/// user prompt or tool return (`context`), or the refusal pydantic-ai raises (or a download msgflow
/// never makes).
fn file_content(file: &File, context: &str) -> Result<InputContent, ExportError> {
    let detail = || file.detail().unwrap_or_else(|| Value::from("auto"));
    match &file.kind {
        // `binary_content_to_response_content`.
        FileKind::Binary { data, media_type, .. } => {
            if msgflow_media::is_image(media_type) {
                Ok(InputContent::InputImage {
                    image_url: Some(media::data_uri(media_type, data)),
                    file_id: None,
                    detail: detail(),
                })
            } else if msgflow_media::is_document(media_type) {
                let format = file.binary_format(media_type)?;
                Ok(InputContent::InputFile {
                    file_data: Some(media::data_uri(media_type, data)),
                    filename: Some(format!("filename.{format}")),
                    file_url: None,
                    file_id: None,
                })
            } else {
                Err(file.refused_because(format!(
                    "it maps no audio or video (nor any type it does not know) in OpenAI Responses {context}"
                )))
            }
        }
        // A video URL is refused whatever its `force_download`: the `else` of the item classes, which
        // each download on their own.
        FileKind::Url {
            kind: UrlKind::Video, ..
        } => Err(file.refuse_as(&format!("VideoUrl is not supported in OpenAI Responses {context}"))),
        FileKind::Url {
            force_download: true, ..
        } => Err(file.refuse_download("`force_download`")),
        FileKind::Url {
            kind: UrlKind::Image,
            url,
            ..
        } => Ok(InputContent::InputImage {
            image_url: Some(url.clone()),
            file_id: None,
            detail: detail(),
        }),
        FileKind::Url {
            kind: UrlKind::Audio | UrlKind::Document,
            ..
        } => Ok(InputContent::InputFile {
            file_data: None,
            filename: None,
            file_url: Some(file.url_to_send()?),
            file_id: None,
        }),
        // `uploaded_file_to_response_content`: an image by id with its detail, anything else as a file.
        FileKind::Uploaded { file_id, .. } => {
            file.check_uploaded_provider("openai", "OpenAIResponsesModel")?;
            if file.media_type()?.starts_with("image/") {
                Ok(InputContent::InputImage {
                    image_url: None,
                    file_id: Some(file_id.clone()),
                    detail: detail(),
                })
            } else {
                Ok(InputContent::InputFile {
                    file_data: None,
                    filename: None,
                    file_url: None,
                    file_id: Some(file_id.clone()),
                })
            }
        }
    }
}
