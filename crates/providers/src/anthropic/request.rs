//! The Anthropic Messages API request's types, as `AnthropicModel` sends them
//! (`anthropic.types.beta` params): the request, its turns and their content blocks.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `system` and `messages` of a Messages API request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The system prompt: a string, or text blocks when there are instructions; `None` (left out of
    /// the request) when there is none, as `_messages_create_params` sends
    /// `system=prepared.system_prompt or OMIT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<System>,
    /// The conversation.
    pub messages: Vec<Message>,
}

/// The top-level `system` parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum System {
    /// The standing system prompts joined by a blank line (never empty).
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
    /// A prompt-cache breakpoint ending at this block (never set by the export: with default
    /// settings pydantic-ai caches no system prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

impl TextBlock {
    /// A text block.
    pub fn new(text: impl Into<String>) -> Self {
        TextBlock {
            kind: TextType::Text,
            text: text.into(),
            cache_control: None,
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
        /// The web search results an assistant text cites, sent back with it (`_map_text_part`);
        /// none elsewhere.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        citations: Vec<WebSearchCitation>,
        /// A prompt-cache breakpoint ending at this block (a `CachePoint` after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
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
        /// A prompt-cache breakpoint ending at this block (a `CachePoint` after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// An image, in a user turn (`BetaImageBlockParam`).
    Image {
        /// Where the image is: its bytes, its URL or an uploaded file.
        source: Source,
        /// A prompt-cache breakpoint ending at this block (a `CachePoint` after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A document (a PDF or plain text), in a user turn (`BetaRequestDocumentBlockParam`).
    Document {
        /// Where the document is: its bytes or text, its URL or an uploaded file.
        source: Source,
        /// A prompt-cache breakpoint ending at this block (a `CachePoint` after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A server-side tool's call sent back in its assistant turn (`BetaServerToolUseBlockParam`,
    /// `_map_native_tool_call_part`): a web search, a web fetch, code execution or a tool search.
    ServerToolUse {
        /// The call's id.
        id: String,
        /// `web_search`, `web_fetch`, the code execution variant (`code_execution`,
        /// `bash_code_execution`, `text_editor_code_execution`) or the tool search variant
        /// (`tool_search_tool_bm25`, `tool_search_tool_regex`).
        name: String,
        /// The arguments (`args_as_dict`).
        input: Map<String, Value>,
        /// Who made the call when it was not the model directly (`add_anthropic_caller_param`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<Map<String, Value>>,
        /// A prompt-cache breakpoint ending at this block (a `CachePoint` after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A call of a tool on an MCP server, in its assistant turn (`BetaMCPToolUseBlockParam`).
    McpToolUse {
        /// The call's id.
        id: String,
        /// The server's id (what follows `mcp_server:` in the part's tool name).
        server_name: String,
        /// The server's tool (the call's `tool_name` argument).
        name: String,
        /// The tool's arguments (the call's `tool_args` argument), as recorded.
        input: Value,
    },
    /// A web search's results, in the assistant turn (`BetaWebSearchToolResultBlockParam`).
    WebSearchToolResult {
        /// The id of the `server_tool_use` it answers.
        tool_use_id: String,
        /// The results (or error) exactly as the response recorded them.
        content: Value,
        /// Who made the call when it was not the model directly (`add_anthropic_caller_param`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<Map<String, Value>>,
    },
    /// A web fetch's result, in the assistant turn (`BetaWebFetchToolResultBlockParam`).
    WebFetchToolResult {
        /// The id of the `server_tool_use` it answers.
        tool_use_id: String,
        /// The fetched document (or error) exactly as the response recorded it.
        content: Value,
        /// Who made the call when it was not the model directly (`add_anthropic_caller_param`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<Map<String, Value>>,
    },
    /// Code execution's result (`BetaCodeExecutionToolResultBlockParam`).
    CodeExecutionToolResult {
        /// The id of the `server_tool_use` it answers.
        tool_use_id: String,
        /// The result exactly as the response recorded it.
        content: Value,
    },
    /// A bash command's result (`BetaBashCodeExecutionToolResultBlockParam`).
    BashCodeExecutionToolResult {
        /// The id of the `server_tool_use` it answers.
        tool_use_id: String,
        /// The result exactly as the response recorded it.
        content: Value,
    },
    /// A text editor command's result (`BetaTextEditorCodeExecutionToolResultBlockParam`).
    TextEditorCodeExecutionToolResult {
        /// The id of the `server_tool_use` it answers.
        tool_use_id: String,
        /// The result exactly as the response recorded it.
        content: Value,
    },
    /// A tool search's result, in the assistant turn (`BetaToolSearchToolResultBlockParam`,
    /// `build_tool_search_replay_block`).
    ToolSearchToolResult {
        /// The id of the `server_tool_use` it answers.
        tool_use_id: String,
        /// The search result (`tool_search_tool_search_result`, its `tool_references`) or the
        /// recorded error (`tool_search_tool_result_error`, its `error_code`).
        content: Value,
    },
    /// An MCP tool's result, in the assistant turn (`BetaRequestMCPToolResultBlockParam`).
    McpToolResult {
        /// The id of the `mcp_tool_use` it answers.
        tool_use_id: String,
        /// The recorded result's `content`.
        content: Value,
        /// The recorded result's `is_error`.
        is_error: Value,
        /// A prompt-cache breakpoint ending at this block (a `CachePoint` after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A compaction the model made, sent back in its assistant turn (`BetaCompactionBlockParam`,
    /// `_map_compaction_part`).
    Compaction {
        /// The readable summary (`null` when the part has none).
        content: Option<String>,
        /// `provider_details['encrypted_content']`, when not `null`; boxed, as is the signature,
        /// so that every block stays small.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<Box<Value>>,
        /// `provider_details['signature']` (on-demand compaction), when not `null`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<Box<Value>>,
    },
    /// A tool call's result, in a user turn.
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// The result's text blocks, or `""` when there are none.
        content: ToolResultContent,
        /// Whether the tool failed (a `failed` or `retried` outcome).
        is_error: bool,
        /// A prompt-cache breakpoint ending at this block (a `CachePoint` after it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
}

/// A block's `cache_control` (`BetaCacheControlEphemeralParam`, `_build_cache_control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheControl {
    /// Always `ephemeral`.
    #[serde(rename = "type")]
    pub kind: CacheControlType,
    /// How long the cached prefix lives.
    pub ttl: CacheTtl,
}

/// The `type` of a [`CacheControl`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheControlType {
    /// `ephemeral`.
    Ephemeral,
}

/// A [`CacheControl`]'s time-to-live (`CachePoint.ttl`); a longer one sorts after a shorter one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CacheTtl {
    /// `5m`, the default.
    #[serde(rename = "5m")]
    FiveMinutes,
    /// `1h`.
    #[serde(rename = "1h")]
    OneHour,
}

impl CacheControl {
    /// An ephemeral breakpoint living `ttl`.
    pub fn ephemeral(ttl: CacheTtl) -> Self {
        CacheControl {
            kind: CacheControlType::Ephemeral,
            ttl,
        }
    }
}

impl Block {
    /// A text block without citations or `cache_control`.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text {
            text: text.into(),
            citations: Vec::new(),
            cache_control: None,
        }
    }

    /// The block's `cache_control`, for the types that take one (`ANTHROPIC_CACHEABLE_PARAM_TYPES`;
    /// `None` for the others).
    pub fn cache_control_mut(&mut self) -> Option<&mut Option<CacheControl>> {
        match self {
            Block::Text { cache_control, .. }
            | Block::ToolUse { cache_control, .. }
            | Block::ServerToolUse { cache_control, .. }
            | Block::Image { cache_control, .. }
            | Block::Document { cache_control, .. }
            | Block::ToolResult { cache_control, .. }
            | Block::McpToolResult { cache_control, .. } => Some(cache_control),
            _ => None,
        }
    }
}

/// A web search result an assistant text cites (`BetaCitationWebSearchResultLocationParam`,
/// `map_citation_for_replay`): rebuilt from the citation Anthropic returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebSearchCitation {
    /// Always `web_search_result_location`.
    #[serde(rename = "type")]
    pub kind: WebSearchCitationType,
    /// The result's URL.
    pub url: String,
    /// The result's title, `null` when it has none.
    pub title: Option<String>,
    /// The text cited from it.
    pub cited_text: String,
    /// Anthropic's encrypted pointer into the search results.
    pub encrypted_index: String,
}

impl From<crate::prepare::WebSearchCitation> for WebSearchCitation {
    fn from(citation: crate::prepare::WebSearchCitation) -> Self {
        WebSearchCitation {
            kind: WebSearchCitationType::WebSearchResultLocation,
            url: citation.url,
            title: citation.title,
            cited_text: citation.cited_text,
            encrypted_index: citation.encrypted_index,
        }
    }
}

/// The `type` of a [`WebSearchCitation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebSearchCitationType {
    /// `web_search_result_location`.
    WebSearchResultLocation,
}

/// An image or document block's `source`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Source {
    /// The bytes, standard base64: an image's (`BinaryContent`, `_map_binary_data`) or a PDF's
    /// (`BetaBase64PDFSourceParam`).
    Base64 {
        /// The base64 text.
        data: String,
        /// The media type as the item has it (`image/...`, `application/pdf`).
        media_type: String,
    },
    /// A `text/plain` document's text (`BetaPlainTextSourceParam`; documents only).
    Text {
        /// The text (the bytes read as UTF-8).
        data: String,
        /// Always `text/plain`.
        media_type: String,
    },
    /// The URL of an image or a PDF (without `force_download`: `_map_image_url`, `_map_document_url`).
    Url {
        /// The URL.
        url: String,
    },
    /// A file in Anthropic's Files API (`UploadedFile`, `_map_uploaded_file`).
    File {
        /// The file id.
        file_id: String,
    },
}

/// A `tool_result`'s `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// `""`, for a result without items (an empty list).
    Text(String),
    /// The result's items as text blocks, and its images and PDFs as image and document blocks.
    Blocks(Vec<Block>),
}
