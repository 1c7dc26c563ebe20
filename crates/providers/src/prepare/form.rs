//! The intermediate form the mappings read: request and response items, the profile a mapping
//! prepares for, and the prepared history.

use crate::framing::Tag;
use crate::media::File;
use crate::{dumped, ExportError, PartLocation};
use msgflow_wire::{NativeToolCallPart, NativeToolReturnPart};
use serde_json::{Map, Value};
use std::borrow::Cow;

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
    /// A note pydantic-ai adds next to an item whose text resembles one of its frames
    /// (`lookalike_frame_note`), or the announcement of what the notes mean: a mid-conversation
    /// system prompt, which Anthropic sends `<system>`-wrapped in the user turn.
    Note { content: String },
    /// A mid-conversation system prompt on a profile without inline system prompts
    /// (`_wrap_non_leading_system_prompts`): sent as a `<system>` block in the user turn.
    WrappedSystemPrompt { content: String },
    /// Retry feedback in the user voice (`RetryFeedbackPart.model_response`: the application's
    /// attribution line, then the feedback fenced in `<pyai:validation_errors>` or
    /// `<pyai:retry_feedback>`), sent as user text; a frame on the user channel
    /// (`_is_user_channel_frame`), which the lookalike-note announcement goes with.
    Feedback(String),
    /// A `ToolAvailabilityDeltaPart`, which the notes and the announcement are placed around
    /// (`_note_lookalike_frames` runs while it is in the request) and which sends nothing without
    /// tools: `prepare` takes it out again before the mappings read the request.
    ToolAvailability,
}

/// A user prompt's content: a plain string or a list of items.
#[derive(Debug, Clone)]
pub(crate) enum UserText {
    Text(String),
    Items(Vec<UserItem>),
}

/// An item of a list user prompt, as the mappings read it (`_map_user_prompt`).
#[derive(Debug, Clone)]
pub(crate) enum UserItem {
    /// A string.
    Text(String),
    /// A file or media item (`BinaryContent`, a URL item, `UploadedFile`).
    File(File),
    /// A `CachePoint`, which OpenAI's models without prompt-cache breakpoints leave out, and
    /// Anthropic's marks on the block before it. `one_hour` is its `ttl` of `1h` (`5m` otherwise).
    CachePoint {
        at: PartLocation,
        path: String,
        one_hour: bool,
    },
}

/// A `tool-return` part with what its rendering needs.
#[derive(Debug, Clone)]
pub(crate) struct ToolResult {
    pub id: String,
    /// The tool's name, which a lookalike note quotes.
    pub tool_name: String,
    pub content: ToolContent,
    pub outcome: Outcome,
    /// The file items pydantic-ai reads in `content` (`files`): the content itself, or items of a
    /// content list, each with its index in the list (0 for the content itself).
    pub files: Vec<(usize, File)>,
    /// On a profile that relocates tool files: the lookalikes of the result's text files, which get
    /// a note of their own worded "following" (`_tool_lookalike_notes` with `relocated`).
    pub file_lookalikes: Vec<Tag>,
}

/// A tool result's content.
#[derive(Debug, Clone)]
pub(crate) enum ToolContent {
    /// The content as Python reads it.
    Read(Value),
    /// An object or a non-empty list of a result that is no error, holding no `kind` key (so no
    /// file item), in the form pydantic-ai dumps it in ([`dumped::is_dumped_form`]): its JSON
    /// text as written, which is what the renderings write for it. Tool output is most of a
    /// history, and reading it into a `Value` to write the same text again was most of an export.
    Dumped(String),
}

impl ToolContent {
    /// The content of a `tool-return` part that is no error, unread where it is in dumped form.
    pub(super) fn of_success(written: &str) -> Option<ToolContent> {
        let container = written.starts_with('{') || (written.starts_with('[') && written != "[]");
        (container
            && memchr::memmem::find(written.as_bytes(), b"\"kind\"").is_none()
            && dumped::is_dumped_form(written))
        .then(|| ToolContent::Dumped(written.to_owned()))
    }

    /// The content as Python reads it: a dumped content is read here, for the renderings of
    /// errors and files, which never meet one.
    pub(crate) fn value(&self) -> Cow<'_, Value> {
        match self {
            ToolContent::Read(value) => Cow::Borrowed(value),
            ToolContent::Dumped(text) => Cow::Owned(serde_json::from_str(text).unwrap_or_default()),
        }
    }

    pub(crate) fn is_array(&self) -> bool {
        match self {
            ToolContent::Read(value) => value.is_array(),
            ToolContent::Dumped(text) => text.starts_with('['),
        }
    }
}

/// An item of a tool result's `content_items(mode='str')`: a text, or a file.
#[derive(Debug, Clone)]
pub(crate) enum ToolItem<'a> {
    Text(String),
    File(&'a File),
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
    /// A text part from this same provider with an item id (OpenAI Responses only): sent back
    /// in an output message item with that id.
    ItemText {
        id: String,
        content: String,
        /// The URL and file citations OpenAI returned for it (`map_responses_citations_for_replay`).
        annotations: Vec<Annotation>,
    },
    /// A thinking part, as the profile sends it back.
    Thinking(Thinking),
    ToolCall {
        id: String,
        name: String,
        args: ToolArgs,
        /// The call's item id, sent back to this same provider (OpenAI Responses only).
        item_id: Option<String>,
        /// The provider detail the mapping sends back with the call: OpenAI Chat's
        /// `extra_content` vendor extension, OpenAI Responses' tool-search `namespace`.
        sent_detail: Option<Value>,
    },
    /// A text with the web search results it cites (Anthropic only, `_map_text_part`).
    CitedText {
        content: String,
        citations: Vec<WebSearchCitation>,
    },
    /// A server-side tool's call or result Anthropic takes back (Anthropic only).
    Native(NativeBlock),
    /// A server-side tool's item OpenAI Responses takes back by its id (OpenAI Responses only).
    Builtin(BuiltinItem),
    /// A response's compaction the model sends back (Anthropic's `compaction` block, OpenAI
    /// Responses' `compaction` item).
    Compaction(Compaction),
}

/// A citation OpenAI returned for an output text, as `map_responses_citations_for_replay` rebuilds
/// it (the OpenAI Responses mapping writes it as its `Annotation`).
#[derive(Debug, Clone)]
pub(crate) enum Annotation {
    /// A URL citation: a web page the text links, at a range (in code points) holding the link.
    Url {
        url: String,
        title: String,
        start_index: u64,
        end_index: u64,
    },
    /// A file citation, its `index` as recorded.
    File {
        file_id: String,
        filename: String,
        index: serde_json::Number,
    },
}

/// A web search result an assistant text cites, as `map_citation_for_replay` rebuilds it from the
/// citation Anthropic returned (the Anthropic mapping writes it as its `WebSearchCitation`).
#[derive(Debug, Clone)]
pub(crate) struct WebSearchCitation {
    pub url: String,
    /// The result's title, `None` when it has none.
    pub title: Option<String>,
    pub cited_text: String,
    pub encrypted_index: String,
}

/// A response's compaction as `_map_compaction_part` (Anthropic) and `_map_response_compaction_part`
/// (OpenAI Responses) send it back; every value is as Python read it ([`redumped`]).
#[derive(Debug, Clone)]
pub(crate) struct Compaction {
    /// The part's `id` (OpenAI Responses' item id).
    pub id: Option<String>,
    /// The summary (Anthropic's readable one).
    pub content: Option<String>,
    /// `provider_details['encrypted_content']` when the key is there (its value may be `null`).
    pub encrypted_content: Option<Value>,
    /// `provider_details['signature']` (Anthropic's on-demand compaction).
    pub signature: Option<Value>,
    /// `_compaction_part_is_wire_boundary`: the history before it is trimmed.
    pub boundary: bool,
    /// `provider_details[STANDING_PROMPT_PLANTED_KEY]` is truthy: pydantic-ai's own compact call made
    /// it, with the standing prompt planted in the window it replaced.
    pub planted: bool,
}

/// A server-side (builtin) tool part of OpenAI's own as `OpenAIResponsesModel` sends it back
/// (`_map_stateful_native_tool_call`, `_map_response_native_tool_return_part`): the call's item,
/// which the server resolves by its id, and nothing for a result but its status.
#[derive(Debug, Clone)]
pub(crate) enum BuiltinItem {
    /// `web_search_call` (`map_web_search_call_for_replay`): the arguments that are not `None`
    /// as its action.
    WebSearchCall { id: String, action: Map<String, Value> },
    /// `code_interpreter_call`: the code and the container it ran in.
    CodeInterpreterCall {
        id: String,
        code: Value,
        container_id: Value,
    },
    /// `file_search_call`: its queries.
    FileSearchCall { id: String, queries: Value },
    /// `image_generation_call`: its id alone.
    ImageGenerationCall { id: String },
    /// `mcp_list_tools` of the server `server_label` (its tools are read server-side).
    McpListTools { id: String, server_label: String },
    /// `mcp_call` of the server's tool `name`, its arguments as compact JSON (`to_json`).
    McpCall {
        id: String,
        server_label: String,
        name: String,
        arguments: String,
    },
    /// A result's truthy `status`, which becomes that of the response's last call item of its tool
    /// (`builtin_item['status'] = status`).
    Status { tool: BuiltinTool, status: Value },
}

/// The tools whose call items a result's status is written to (`kind_to_item`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuiltinTool {
    /// `code_execution`: the `code_interpreter_call`.
    CodeExecution,
    /// `web_search`: the `web_search_call`.
    WebSearch,
    /// `file_search`: the `file_search_call`.
    FileSearch,
}

/// A server-side (builtin) tool part as `AnthropicModel` sends it back (`_map_native_tool_call_part`,
/// `_map_native_tool_return_part`). Every value is as Python read it ([`python_value`]).
#[derive(Debug, Clone)]
pub(crate) enum NativeBlock {
    /// `server_tool_use`: a web search, web fetch or code execution call.
    ServerToolUse {
        id: String,
        /// `web_search`, `web_fetch` or a code execution tool's name.
        name: &'static str,
        input: Map<String, Value>,
        /// `provider_details['anthropic_caller']` when it is an object (`add_anthropic_caller_param`).
        caller: Option<Map<String, Value>>,
    },
    /// `mcp_tool_use`: a call of a tool on an MCP server.
    McpToolUse {
        id: String,
        server_name: String,
        name: String,
        input: Value,
    },
    /// `web_search_tool_result` or `web_fetch_tool_result`: the result's content as recorded.
    ToolResult {
        kind: NativeResultKind,
        tool_use_id: String,
        content: Value,
        caller: Option<Map<String, Value>>,
    },
    /// `tool_search_tool_result` (`build_tool_search_replay_block`): an error of the recorded
    /// `error_code`, or a search result of the references the request can take.
    ToolSearchResult { tool_use_id: String, content: Value },
    /// `mcp_tool_result`: the recorded `content` and `is_error`.
    McpToolResult {
        tool_use_id: String,
        content: Value,
        is_error: Value,
    },
}

/// Which server-side result block a [`NativeBlock::ToolResult`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NativeResultKind {
    /// `web_search_tool_result`.
    WebSearch,
    /// `web_fetch_tool_result`.
    WebFetch,
    /// `code_execution_tool_result`.
    CodeExecution,
    /// `bash_code_execution_tool_result`.
    BashCodeExecution,
    /// `text_editor_code_execution_tool_result`.
    TextEditorCodeExecution,
}

/// How a thinking part goes back to the model (`_map_thinking_part`, `_map_response_thinking_part`).
#[derive(Debug, Clone)]
pub(crate) enum Thinking {
    /// Anthropic's own signed thinking, sent back as its `thinking` block (`redacted_thinking` when
    /// the part's id is one of `REDACTED_THINKING_PART_IDS`).
    Signed {
        content: String,
        signature: String,
        redacted: bool,
    },
    /// `render_replayed_thinking` without `mimics_assistant_message_formatting`: the reasoning in the
    /// profile's thinking tags, as text of the assistant turn it was produced in.
    Tagged(String),
    /// `render_replayed_thinking` with `mimics_assistant_message_formatting` (Anthropic): the
    /// reasoning in an `<assistant_thinking>` frame, carried in a user turn ahead of the assistant
    /// turn. Never empty (an empty part is left out).
    Carried(String),
    /// An OpenAI Chat thinking part, with the field `'auto'` sends it back in
    /// (`_auto_thinking_field`, `None`: as tagged text); `openai_chat::ChatThinking` decides.
    Chat {
        content: String,
        auto_field: Option<String>,
    },
    /// An OpenAI Responses reasoning item (`_map_thinking_to_reasoning_item`): its id, the
    /// encrypted content when the model accepts it, and the content as a summary.
    Reasoning {
        id: String,
        encrypted_content: Option<String>,
        content: String,
    },
}

/// How the model sends thinking parts back, by its mapping and profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThinkingMode {
    /// `AnthropicModel._map_thinking_part`, with `mimics_assistant_message_formatting`.
    Anthropic,
    /// `OpenAIChatModel._MapModelResponseContext._map_response_thinking_part`, with
    /// `openai_chat_send_back_thinking_parts='auto'`, no `openai_chat_thinking_field`, the default
    /// thinking tags and no `mimics_assistant_message_formatting` (`gpt-4o`).
    OpenAiChat,
    /// `OpenAIResponsesModel._map_response_thinking_part`, with
    /// `openai_supports_encrypted_reasoning_content` (so `openai_send_reasoning_ids`), the default
    /// thinking tags and no `mimics_assistant_message_formatting` (`gpt-5`).
    OpenAiResponses,
}

/// `DEFAULT_THINKING_TAGS` (profiles/__init__.py), the thinking tags of both OpenAI profiles.
pub(super) const DEFAULT_THINKING_TAGS: (&str, &str) = ("<think>", "</think>");
/// The `thinking_tags` of Anthropic's profile (`anthropic_model_profile`).
pub(super) const ANTHROPIC_THINKING_TAGS: (&str, &str) = ("<thinking>", "</thinking>");

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
    /// The first part pydantic-ai fails on only when its mapping reaches it (a server-side tool
    /// part it cannot map), after the trim before a compaction, which drops what it never maps.
    /// Read by [`PreparedHistory::map_in_order`].
    pub(super) when_mapped: Option<ExportError>,
}

impl PreparedHistory {
    /// Runs a provider's mapping on the prepared history, and answers as pydantic-ai does, which
    /// maps the history in order and stops at the first part it fails on: the mapping's own
    /// refusal (a file it would download, content it cannot take) where that comes first, the
    /// part [`prepare`] found pydantic-ai failing on otherwise, even when the rest maps.
    pub(crate) fn map_in_order<T>(
        mut self,
        map: impl FnOnce(PreparedHistory) -> Result<T, ExportError>,
    ) -> Result<T, ExportError> {
        let Some(pending) = self.when_mapped.take() else {
            return map(self);
        };
        match map(self) {
            Err(error) if error.location() < pending.location() => Err(error),
            _ => Err(pending),
        }
    }

    /// At least how many messages (or items) a mapping makes of the prepared history: one per
    /// item, and one more per request for the files of its tool results. The mappings size their
    /// output with it, since growing a long request's vector copies it and, in glibc, makes every
    /// growth consolidate all the small blocks freed so far.
    pub(crate) fn most_items(&self) -> usize {
        self.messages
            .iter()
            .map(|message| match message {
                Prepared::Request(items) => items.len() + 1,
                Prepared::Response(items) => items.len(),
            })
            .sum()
    }
}

/// What a provider's mapping needs to know to decide which parts msgflow can export for it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Profile {
    /// `supports_inline_system_prompts`: whether a system prompt after the standing ones is sent
    /// in place (OpenAI) or rewritten with pydantic-ai's `<system>` framing (Anthropic), which
    /// msgflow does not reproduce.
    /// It is also the `system_role` the lookalike notes are worded for.
    pub inline_system_prompts: bool,
    /// The provider name pydantic-ai's models compare `provider_name` with (`self.system`).
    pub system: &'static str,
    /// Whether the mapping replays state of responses from this same provider on text and tool
    /// calls (OpenAI Responses sends their item ids, [`Replay`]); Anthropic and OpenAI Chat do
    /// not for the parts msgflow exports (citations and native tools, which they do replay, are
    /// refused).
    pub replays_own_items: bool,
    /// How thinking parts go back to the model.
    pub thinking: ThinkingMode,
    /// `_lookalike_notes_precede_tool_results`: whether the API takes a lookalike note ahead of a
    /// request's tool results (OpenAI Responses).
    pub notes_precede_tool_results: bool,
    /// `tool_addition_mode is not None` (OpenAI Responses, `'with_definitions'`): a
    /// `ToolAvailabilityDeltaPart` stays in its request for the mapping, which renders an
    /// `additional_tools` item only for a tool the request declares (none: msgflow exports without
    /// tools). Otherwise `_announce_tool_availability_delta_messages` announces only served
    /// deferred tools (none), so the delta drops out, and a request left without parts with it.
    pub adds_tools: bool,
    /// `_relocates_tool_files` (OpenAI Chat, whose tool messages take text only): a tool result's
    /// files go in a user message after the request, each framed in `<pyai:tool_result>` tags, and
    /// the result counts as a frame for the announcement (`_moves_tool_files`).
    pub relocates_tool_files: bool,
    /// `supported_document_media_types`: the known document types the model reads; a tool's file
    /// of another known type is replaced by a note (`unsupported_file_input`).
    pub supported_documents: SupportedDocuments,
    /// Whether the mapping sends a call's arguments as JSON text (`args_as_json_str`, OpenAI's
    /// `arguments`) rather than as an object (Anthropic's `input`).
    pub args_as_text: bool,
    /// `mimics_assistant_message_formatting`: reasoning the model cannot take as its own (Anthropic:
    /// a thinking block; OpenAI: a field or reasoning item) is carried in a user turn as an
    /// `<assistant_thinking>` frame, rather than written in the assistant turn in the profile's
    /// thinking tags.
    pub carries_foreign_thinking: bool,
    /// Which reasoning OpenAI Chat writes out as text (`openai_chat_send_back_thinking_parts`),
    /// which `_carries_thinking_in_user_turn` carries.
    pub thinking_as_text: ThinkingAsText,
}

/// Which of OpenAI Chat's reasoning `_map_response_thinking_as_text` writes out as text: all of it
/// (`'tags'`), what `'auto'` sends in no field (`_auto_thinking_field`), or none (a field, or off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThinkingAsText {
    All,
    WithoutField,
    None,
}

/// `supported_document_media_types`: which of pydantic-ai's known document types
/// ([`msgflow_media::is_known_document_media_type`]) a profile reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SupportedDocuments {
    /// Every known type (OpenAI's profiles).
    AllKnown,
    /// These types only (Anthropic's profile: `application/pdf` and `text/plain`).
    Only(&'static [&'static str]),
}

impl SupportedDocuments {
    /// Whether a file of `media_type` is a known document type the profile leaves out, which
    /// `unsupported_file_input` replaces by a note.
    pub(super) fn refuses(self, media_type: &str) -> bool {
        msgflow_media::is_known_document_media_type(media_type)
            && match self {
                SupportedDocuments::AllKnown => false,
                SupportedDocuments::Only(types) => !types.contains(&media_type),
            }
    }
}

/// A call's arguments, as its mapping sends them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ToolArgs {
    /// `args_as_dict`: Anthropic's `input`.
    Object(Map<String, Value>),
    /// `args_as_json_str`, the compact JSON text of that object: the OpenAI mappings' `arguments`.
    Text(String),
}

/// A server-side tool part, call or return.
#[derive(Clone, Copy)]
pub(super) enum NativeToolPart<'a> {
    Call(&'a NativeToolCallPart),
    Return(&'a NativeToolReturnPart),
}
