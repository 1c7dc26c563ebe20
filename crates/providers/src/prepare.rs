//! What every provider's export shares: pydantic-ai's `Model.prepare_messages` on the parts msgflow
//! exports, reduced to a small intermediate form the three mappings read.
//!
//! Mirrors `pydantic_ai/models/__init__.py` (2.68.0): `prepare_messages` (`_tool_results_first`, the
//! instruction fallback `_instruction_parts_of`), the trim before a compaction the mapping sends
//! (`_trim_messages_before_compaction`, `_standing_prompt_request`) and `pydantic_ai/messages.py`'s
//! rendering of tool calls and returns (`args_as_dict`, `args_as_json_str`, `content_items`,
//! `model_response_str`).
//!
//! msgflow exports a subset of what pydantic-ai can send (see [`crate::Unsupported`]); everything
//! outside it is refused with its location instead of being guessed at.

use std::borrow::Cow;

use msgflow_wire::{
    CachePointTtl, Field, ModelMessage, ModelRequestPart, ModelResponse, ModelResponsePart, ModelResponseState,
    NativeToolCallPart, NativeToolReturnPart, RawJson, RetryCause, Speaker, SpeechPart, SystemPromptScope,
    ThinkingPart, ToolReturnOutcome, UserContent, UserPromptContent,
};
use serde_json::{Map, Value};

use crate::dumped;
use crate::framing::{self, NoteContext, Source, Tag};
use crate::instructions;
use crate::media::{File, FileKind};
use crate::tool_content::{self, holds_file_item, FileRecord};
use crate::typed;
use crate::{ExportError, PartLocation};
use msgflow_media::UrlKind;

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
    fn of_success(written: &str) -> Option<ToolContent> {
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

    /// `content_items(mode='str')` of a content without files: a list's items' texts, or the
    /// one text of anything else.
    fn item_texts(&self) -> Vec<String> {
        match self {
            ToolContent::Read(Value::Array(items)) => items.iter().map(json_text).collect(),
            ToolContent::Read(other) => vec![json_text(other)],
            ToolContent::Dumped(text) if text.starts_with('[') => dumped_item_texts(text),
            ToolContent::Dumped(text) => vec![text.clone()],
        }
    }
}

/// The texts of a dumped list's items: a string's own text, any other item's JSON text.
fn dumped_item_texts(list: &str) -> Vec<String> {
    dumped::list_items(list)
        .map(|item| {
            if item.starts_with('"') {
                serde_json::from_str(item).unwrap_or_else(|_| item.to_owned())
            } else {
                item.to_owned()
            }
        })
        .collect()
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
        annotations: Vec<crate::openai_responses::Annotation>,
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
        citations: Vec<crate::anthropic::WebSearchCitation>,
    },
    /// A server-side tool's call or result Anthropic takes back (Anthropic only).
    Native(NativeBlock),
    /// A server-side tool's item OpenAI Responses takes back by its id (OpenAI Responses only).
    Builtin(BuiltinItem),
    /// A response's compaction the model sends back (Anthropic's `compaction` block, OpenAI
    /// Responses' `compaction` item).
    Compaction(Compaction),
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
const DEFAULT_THINKING_TAGS: (&str, &str) = ("<think>", "</think>");
/// The `thinking_tags` of Anthropic's profile (`anthropic_model_profile`).
const ANTHROPIC_THINKING_TAGS: (&str, &str) = ("<thinking>", "</thinking>");

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
    when_mapped: Option<ExportError>,
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
    fn refuses(self, media_type: &str) -> bool {
        msgflow_media::is_known_document_media_type(media_type)
            && match self {
                SupportedDocuments::AllKnown => false,
                SupportedDocuments::Only(types) => !types.contains(&media_type),
            }
    }
}

/// Runs the shared part of `prepare_messages` and collects what the mappings read.
pub(crate) fn prepare(history: &[ModelMessage], profile: Profile) -> Result<PreparedHistory, ExportError> {
    // `_project_instruction_state` runs first: every later step reads the history with its
    // baselines dropped and its changes rendered as system prompts. A part keeps the position it
    // has in the history as written (`origins`) for the export's origins and the refusals.
    let projection = instructions::project(history, profile.inline_system_prompts)?;
    let (history, origins) = match &projection {
        Some(projection) => (projection.messages.as_slice(), Some(projection.origins.as_slice())),
        None => (history, None),
    };
    let mut messages = Vec::with_capacity(history.len());
    let mut after_response = false;
    // The first request sent, which the announcement joins (`_announce_in_standing_prompt`).
    let mut first_request_index = None;
    let mut seen_request = false;
    let mut standing_count = 0;
    let mut noted = false;
    // `_note_lookalike_frames`: with inline system prompts, the first request with a note gets the
    // announcement (`framing_announcement` is `'when_needed'` by default).
    let mut pending_announcement = profile.inline_system_prompts;
    // One walk ahead of the pass: per response, the reasoning the model replays in a user turn,
    // with the lookalikes in it (`_carried_thinking_notes` reads them), and whether there is
    // speech or a context statement anywhere.
    let Scan {
        carried,
        speech,
        contexts,
    } = scan(history, profile);
    // `_render_system_prompt_contexts` runs ahead of every step that leaves a message out.
    let mut contexts = if contexts {
        RenderedContexts::of(history, profile)
    } else {
        RenderedContexts::default()
    };
    // `_convert_speech_parts` runs only on a history holding a speech part, and then leaves out
    // every message left without parts (`if request_parts:`), however it got empty.
    let sent = Sent::of(history, speech, &contexts);
    // A part's JSON path, for the errors: written into one buffer, not allocated per part.
    let mut path = String::new();
    // Refusals of parts pydantic-ai fails on only when it maps them, in history order.
    let mut when_mapped: Vec<ExportError> = Vec::new();
    // The requests sent, for the instruction fallback (read again on the history the trim before a
    // compaction leaves).
    let mut requests: Vec<SentRequest<'_>> = Vec::new();
    // How many leading items of the first request sent are its standing prompt as
    // `_standing_system_prompt_count` counts it on the prepared request, which
    // `_standing_prompt_request` keeps when a compaction trims the history.
    let mut standing_items = 0;
    let mut scoped = RequestScoped::of(history, &sent, &contexts, profile);
    // Whether a tool-search result became a request of its own ahead of the history's first request,
    // and the last one made after the history's last request, with where it is in `messages`
    // (`_synthesize_local_response`).
    let mut request_before_first = false;
    let mut last_request_made: Option<(PartLocation, usize)> = None;
    // Where the request-scoped prompts went: the last request's place in `messages`, and how many.
    let mut scoped_tail: Option<(usize, usize)> = None;
    for (message_index, message) in history.iter().enumerate() {
        if !sent.at(message_index) {
            continue;
        }
        match message {
            ModelMessage::Request(request) => {
                // The request pydantic-ai counts the standing prompt on (`first_request`, after
                // `_convert_speech_parts`), even when a later step leaves it out.
                let first_request = !seen_request;
                seen_request = true;
                // `_announce_tool_availability_delta_messages` (without `adds_tools`) runs on
                // every request holding a delta.
                let mut leading_system = first_request;
                // `_translate_retry_parts`'s `in_standing_run`: the first request's opening run
                // of system prompts, which (unlike the standing prompt count) a request-scoped
                // prompt continues, being a `SystemPromptPart` too.
                let mut feedback_run = first_request;
                // The request's context statements, each taken where its part is written.
                let mut rendered = contexts.of_message_mut(message_index);
                let mut holds_request_scoped = false;
                // Where the request's first current request-scoped prompt was written: it ends the
                // count of the standing prompt `_announce_tool_availability_delta_messages` makes
                // wherever it goes later. An answered one is dropped before that count
                // (`_drop_superseded_request_scoped_prompts`), so it ends nothing there.
                let mut first_scoped_part = None;
                let mut holds_tool_availability = false;
                let mut items = Vec::with_capacity(request.parts.len());
                for (part_index, part) in request.parts.iter().enumerate() {
                    // Left out before the standing prompt is counted: it is what remains that
                    // pydantic-ai counts (`_standing_system_prompt_count` runs after these drops).
                    let context = rendered
                        .as_deref_mut()
                        .and_then(|rendered| rendered.get_mut(part_index).and_then(Option::take));
                    if left_out(part) || matches!(context, Some(Context::LeftOut)) {
                        continue;
                    }
                    let origin = origins.map_or(part_index, |origins| origins[message_index][part_index]);
                    let at = PartLocation {
                        message: message_index,
                        part: origin,
                    };
                    if matches!(part, ModelRequestPart::ToolAvailabilityDelta(_)) {
                        // Announces no tool without tools, but is a part of the request until the
                        // notes are placed, and ends the standing prompt, which
                        // `_standing_system_prompt_count` counts with it in place.
                        leading_system = false;
                        feedback_run = false;
                        holds_tool_availability = true;
                        items.push(Authored {
                            at,
                            item: RequestItem::ToolAvailability,
                            sources: Vec::new(),
                            frame: false,
                        });
                        continue;
                    }
                    set_part_path(&mut path, message_index, origin);
                    if let ModelRequestPart::SystemPrompt(system) = part {
                        if matches!(system.scope.get(), Some(SystemPromptScope::Request)) {
                            // A request-scoped prompt ends the standing prompt
                            // (`_standing_system_prompt_count`) and is a mid-conversation system
                            // prompt for the announcement (`_has_mid_conversation_system_prompt`,
                            // read before the answered ones are dropped). On a profile that does
                            // not clear them itself (none of the three sets
                            // `supports_request_scoped_system_prompts`), one whose request has been
                            // answered is left out (`_drop_superseded_request_scoped_prompts`), and
                            // the current request's go last in the last request
                            // (`_move_request_scoped_prompts_to_tail`), `<system>`-wrapped without
                            // inline system prompts.
                            leading_system = false;
                            noted = true;
                            holds_request_scoped = true;
                            if message_index >= scoped.current_start {
                                first_scoped_part.get_or_insert(at.part);
                                let content = match context {
                                    Some(Context::Rendered(content)) => content,
                                    _ => system.content.clone(),
                                };
                                scoped.moved.push((at, system_prompt_item(content, false, profile)));
                                scoped.moved_any = true;
                            }
                            continue;
                        }
                    }
                    let standing = leading_system && matches!(part, ModelRequestPart::SystemPrompt(_));
                    let in_standing_run = feedback_run;
                    feedback_run = feedback_run && matches!(part, ModelRequestPart::SystemPrompt(_));
                    leading_system = standing;
                    standing_count += usize::from(standing);
                    let conversation_scoped = match part {
                        ModelRequestPart::SystemPrompt(system) => {
                            matches!(system.scope.get(), None | Some(SystemPromptScope::Conversation))
                        }
                        _ => false,
                    };
                    let (item, sources) = match context {
                        Some(Context::Rendered(content)) if conversation_scoped => {
                            (system_prompt_item(content, standing, profile), Vec::new())
                        }
                        _ => request_item(part, standing, in_standing_run, at, &path, profile)?,
                    };
                    let frame = holds_framework_frame(part);
                    items.push(Authored {
                        at,
                        item,
                        sources,
                        frame,
                    });
                }
                if after_response {
                    // `_tool_results_first`: in every request after a response, the tool results go
                    // ahead of the other parts, each group in its order (a stable sort).
                    items.sort_by_key(|authored| !matches!(authored.item, RequestItem::ToolReturn(_)));
                    if first_request && !profile.inline_system_prompts {
                        // `_wrap_non_leading_system_prompts` counts the standing prompt before the
                        // tool results move ahead of it, then wraps the system prompts at or past
                        // that count after the move: a standing prompt the results pushed back is
                        // sent as a `<system>` block, not lifted into the system prompt.
                        for authored in items.iter_mut().skip(standing_count) {
                            if let RequestItem::SystemPrompt { content } = &mut authored.item {
                                let content = std::mem::take(content);
                                authored.item = RequestItem::WrappedSystemPrompt { content };
                            }
                        }
                    }
                }
                if first_request && request_before_first && !profile.inline_system_prompts {
                    // `_wrap_non_leading_system_prompts` keeps the standing prompt only in the first
                    // request, now the tool-search result's: this one's system prompts are wrapped.
                    for authored in &mut items {
                        if let RequestItem::SystemPrompt { content } = &mut authored.item {
                            let content = std::mem::take(content);
                            authored.item = RequestItem::WrappedSystemPrompt { content };
                        }
                    }
                }
                // `_announce_in_standing_prompt`'s `needed`: a mid-conversation system prompt too.
                noted |= items
                    .iter()
                    .any(|authored| matches!(authored.item, RequestItem::WrappedSystemPrompt { .. }));
                let (mut items, frame_at) = note_lookalike_frames(items, first_request, profile);
                // `_frame_index_with_thinking`: reasoning carried into a user turn from the reply
                // right after this request, or from the replies before it no earlier request notes
                // (`_replies_noted_later`), is a frame of this request too.
                let next = (message_index + 1..history.len()).find(|&index| sent.at(index));
                let following = match next.map(|index| (index, &history[index])) {
                    Some((index, ModelMessage::Response(_))) => carried[index].as_ref(),
                    _ => None,
                };
                let earlier: Vec<&CarriedThinking> = replies_noted_later(history, message_index, &sent)
                    .filter_map(|index| carried[index].as_ref())
                    .collect();
                let frame_at = frame_at.or_else(|| (following.is_some() || !earlier.is_empty()).then_some(items.len()));
                if let Some(frame_at) = frame_at {
                    noted = true;
                    if pending_announcement {
                        pending_announcement = false;
                        let at = items
                            .iter()
                            .find(|(_, item)| matches!(item, RequestItem::Note { .. }))
                            .map_or(
                                PartLocation {
                                    message: message_index,
                                    part: 0,
                                },
                                |(at, _)| *at,
                            );
                        let content = framing::lookalike_note_announcement(true);
                        items.insert(frame_at, (at, RequestItem::Note { content }));
                    }
                }
                // `_carried_thinking_notes`: one note for the earlier replies' reasoning (worded
                // "preceding"), then one for the following reply's, last in the request.
                let earlier_note = (!earlier.is_empty()).then(|| CarriedThinking {
                    at: earlier[0].at,
                    tags: earlier
                        .iter()
                        .flat_map(|carried| carried.tags.iter().cloned())
                        .collect(),
                });
                let follows_turn = false; // `_system_entries_follow_user_turn` with a system role
                for (carried, preceding) in [(earlier_note.as_ref(), true), (following, follows_turn)] {
                    let Some(carried) = carried.filter(|carried| !carried.tags.is_empty()) else {
                        continue;
                    };
                    let context = NoteContext {
                        source: Source::Thinking,
                        preceding,
                        system_role: profile.inline_system_prompts,
                        genuine_change: false,
                        tool_name: None,
                        tool_call_id: None,
                    };
                    let content = framing::lookalike_frame_note(context, &carried.tags);
                    items.push((carried.at, RequestItem::Note { content }));
                }
                // `_announce_tool_availability_delta_messages` (without `adds_tools`) runs on every
                // request holding a delta.
                let announces_tools = !profile.adds_tools && holds_tool_availability;
                if announces_tools {
                    // `_announce_tool_availability_delta_messages` sorts the request's parts after
                    // the standing prompt (of the first request, counted with the deltas in place,
                    // and the request-scoped prompts, which end it, not yet moved) with the tool
                    // results first.
                    let head = if first_request {
                        items
                            .iter()
                            .take_while(|(at, item)| {
                                at.part < first_scoped_part.unwrap_or(usize::MAX)
                                    && matches!(
                                        item,
                                        RequestItem::SystemPrompt { .. }
                                            | RequestItem::Note { .. }
                                            | RequestItem::WrappedSystemPrompt { .. }
                                    )
                            })
                            .count()
                    } else {
                        0
                    };
                    items[head..].sort_by_key(|(_, item)| !matches!(item, RequestItem::ToolReturn(_)));
                }
                if first_request_index.is_none() {
                    // Read with a kept tool-availability delta still in place (it is not a system
                    // prompt) and before the request-scoped prompts join the last request (their
                    // scope ends the count); a note is a `SystemPromptPart` (`_FrameworkNote`) where
                    // the profile has inline system prompts, a `<system>` user block otherwise.
                    standing_items = items
                        .iter()
                        .take_while(|(_, item)| match item {
                            RequestItem::SystemPrompt { .. } => true,
                            RequestItem::Note { .. } => profile.inline_system_prompts,
                            _ => false,
                        })
                        .count();
                }
                if holds_tool_availability {
                    // Sends nothing: `_announce_tool_availability_delta_messages` drops it (no served
                    // deferred tool to announce), or the Responses mapping has no tool to add.
                    items.retain(|(_, item)| !matches!(item, RequestItem::ToolAvailability));
                }
                if let Some(Prepared::Response(previous)) = messages.last() {
                    order_tool_results_by_call(previous, &mut items);
                }
                if Some(message_index) == scoped.last_request {
                    if !scoped.moved.is_empty() {
                        scoped_tail = Some((messages.len(), scoped.moved.len()));
                    }
                    items.append(&mut scoped.moved);
                }
                if (announces_tools || holds_request_scoped) && items.is_empty() {
                    // `_announce_tool_availability_delta_messages` and the request-scoped steps: a
                    // request they leave without parts is left out (deltas announcing nothing, a
                    // prompt answered or moved to the last request).
                    continue;
                }
                if first_request_index.is_none() {
                    first_request_index = Some(messages.len());
                }
                // A tool-availability delta stays in the request where the mapping reads it
                // (`adds_tools`), and is no tool result there.
                let kept_delta = profile.adds_tools && holds_tool_availability;
                requests.push((message_index, request.instructions.get(), messages.len(), kept_delta));
                messages.push(Prepared::Request(items));
            }
            ModelMessage::Response(response) => {
                after_response = true;
                let mut items = Vec::with_capacity(response.parts.len());
                let replay = Replay::of(response, message_index, profile)?;
                // `_synthesize_local_response`: a tool-search result the model does not keep native
                // becomes a request of its own, the parts before it one response (when there are
                // any, whatever they render) and those after it another.
                let mut split = false;
                let mut buffered = 0;
                for (part_index, part) in response.parts.iter().enumerate() {
                    let at = PartLocation {
                        message: message_index,
                        part: part_index,
                    };
                    set_part_path(&mut path, message_index, part_index);
                    if let Some(result) = translated_tool_search_return(response, part, at, &path, profile)? {
                        if buffered > 0 {
                            messages.push(Prepared::Response(std::mem::take(&mut items)));
                        }
                        split = true;
                        buffered = 0;
                        if !seen_request {
                            // The first request from here on (`_wrap_non_leading_system_prompts`,
                            // `_announce_in_standing_prompt`, `_standing_prompt_request`).
                            request_before_first = true;
                            first_request_index.get_or_insert(messages.len());
                        }
                        if scoped.last_request.is_none_or(|last| message_index > last) {
                            last_request_made = Some((at, messages.len()));
                        }
                        requests.push((message_index, None, messages.len(), false));
                        messages.push(Prepared::Request(vec![(at, RequestItem::ToolReturn(result))]));
                        continue;
                    }
                    let item = response_item(response, part, at, &path, profile, replay, &mut when_mapped)?;
                    // A part that renders nothing still makes a response of the parts around a
                    // result, but for the model's speech without a transcript, which
                    // `_convert_speech_parts` has taken out before.
                    if item.is_some() || !matches!(part, ModelResponsePart::Speech(_)) {
                        buffered += 1;
                    }
                    if let Some(item) = item {
                        items.push((at, item));
                    }
                }
                if !split || buffered > 0 {
                    messages.push(Prepared::Response(items));
                }
            }
        }
    }
    // `_move_request_scoped_prompts_to_tail` runs after `_synthesize_local_response`: the current
    // request-scoped prompts go to the last request, which may be a tool-search result's; a request
    // they leave without parts is left out.
    if let (Some((at, made)), Some((tail, count))) = (last_request_made, scoped_tail) {
        let Prepared::Request(items) = &mut messages[tail] else {
            unreachable!("the request-scoped prompts joined a request")
        };
        let mut moved = items.split_off(items.len() - count);
        let emptied = items.is_empty();
        if let Prepared::Request(items) = &mut messages[made] {
            items.append(&mut moved);
        }
        if emptied {
            if first_request_index == Some(tail) {
                return Err(ExportError::unsupported(
                    at,
                    &part_path(at),
                    "a server-side tool search result pydantic-ai moves into a request of its own after the only request, which the request-scoped prompts then leave empty",
                ));
            }
            messages.remove(tail);
            requests.retain(|(_, _, prepared, _)| *prepared != tail);
            for (_, _, prepared, _) in &mut requests {
                if *prepared > tail {
                    *prepared -= 1;
                }
            }
        }
    }
    let instructions = instruction_fallback(&messages, &requests);
    // `_announce_in_standing_prompt` (`'when_needed'`): without inline system prompts, a history
    // with a note gets the announcement ahead of the first request's standing system prompt, when
    // there is a system prompt or instructions for it to join (every note is a mid-conversation
    // system prompt `<system>`-wrapped, so `needed` is whether there is a note).
    if !profile.inline_system_prompts && noted && (standing_count > 0 || instructions.is_some()) {
        if let Some(Prepared::Request(items)) = first_request_index.and_then(|index| messages.get_mut(index)) {
            let at = items
                .first()
                .map_or(PartLocation { message: 0, part: 0 }, |(at, _)| *at);
            let content = framing::lookalike_note_announcement(false);
            items.insert(0, (at, RequestItem::SystemPrompt { content }));
            standing_items += 1;
        }
    }
    // The mappings trim the prepared history before the latest compaction they send
    // (`Model._trim_before_compaction`, called first in Anthropic's `_map_message` and OpenAI
    // Responses' `_map_messages`); the instruction fallback then reads what is left.
    if profile.thinking != ThinkingMode::OpenAiChat {
        if let Some((trimmed, boundary)) = trim_before_compaction(&mut messages, &requests, standing_items, profile) {
            // What the trim dropped is never mapped, nor refused.
            let when_mapped = when_mapped
                .into_iter()
                .find(|refusal| refusal.location().is_some_and(|at| at > boundary));
            requests = trimmed;
            return Ok(PreparedHistory {
                instructions: instruction_fallback(&messages, &requests),
                messages,
                when_mapped,
            });
        }
    }
    Ok(PreparedHistory {
        messages,
        instructions,
        when_mapped: when_mapped.into_iter().next(),
    })
}

/// `_instruction_parts_of`'s fallback for a history without request parameters, read on the
/// prepared requests: the last one's instructions, or, when that one holds only tool results
/// (and notes pydantic-ai added, `_is_framework_added`), the one's before it.
fn instruction_fallback(messages: &[Prepared], requests: &[SentRequest<'_>]) -> Option<(usize, String)> {
    let only_results = |prepared: usize, kept_delta: bool| {
        !kept_delta
            && matches!(&messages[prepared], Prepared::Request(items) if items
                .iter()
                .all(|(_, item)| matches!(item, RequestItem::ToolReturn(_) | RequestItem::Note { .. })))
    };
    match requests {
        [.., (index, Some(text), _, _)] => Some((*index, (*text).clone())),
        [.., (index, Some(text), _, _), (_, None, prepared, kept_delta)] if only_results(*prepared, *kept_delta) => {
            Some((*index, (*text).clone()))
        }
        _ => None,
    }
}

/// `_trim_messages_before_compaction`: drops the prepared history before the latest compaction
/// the mapping sends that is a wire boundary, and the response's parts before it, keeping the
/// standing prompt as a request of its own (`_standing_prompt_request`: the first request's
/// standing items, and the instructions of the latest request before the boundary holding any).
/// OpenAI Responses passes `standing_prompt_retained=True` (`compaction_retains_standing_prompt`
/// is not set, but its `_map_messages` defaults it), honored for a compaction pydantic-ai's own
/// compact call stamped (`STANDING_PROMPT_PLANTED_KEY`): its standing items are not sent again.
/// Returns the requests left and where the boundary is in the history, or `None` when there is
/// no boundary.
fn trim_before_compaction<'a>(
    messages: &mut Vec<Prepared>,
    requests: &[SentRequest<'a>],
    standing_items: usize,
    profile: Profile,
) -> Option<(Vec<SentRequest<'a>>, PartLocation)> {
    let (message_index, item_index, planted, boundary) =
        messages.iter().enumerate().rev().find_map(|(index, message)| {
            let Prepared::Response(items) = message else {
                return None;
            };
            items
                .iter()
                .rposition(|(_, item)| matches!(item, ResponseItem::Compaction(c) if c.boundary))
                .map(|item| {
                    let planted = matches!(&items[item].1, ResponseItem::Compaction(c) if c.planted);
                    (index, item, planted, items[item].0)
                })
        })?;
    let retained = profile.thinking == ThinkingMode::OpenAiResponses && planted;
    let mut tail = messages.split_off(message_index);
    if let Some(Prepared::Response(items)) = tail.first_mut() {
        items.drain(..item_index);
    }
    let first_request = messages
        .iter()
        .position(|message| matches!(message, Prepared::Request(_)));
    let opening = match first_request.map(|index| &mut messages[index]) {
        Some(Prepared::Request(items)) if !retained => items.drain(..standing_items.min(items.len())).collect(),
        _ => Vec::new(),
    };
    let instructions = requests
        .iter()
        .rev()
        .find(|(_, instructions, prepared, _)| *prepared < message_index && instructions.is_some());
    let mut kept = Vec::with_capacity(requests.len());
    messages.clear();
    if !opening.is_empty() || instructions.is_some() {
        let (index, instructions) =
            instructions.map_or((0, None), |(index, instructions, _, _)| (*index, *instructions));
        kept.push((index, instructions, 0, false));
        messages.push(Prepared::Request(opening));
    }
    let shift = message_index - messages.len();
    kept.extend(
        requests
            .iter()
            .filter(|(_, _, prepared, _)| *prepared > message_index)
            .map(|&(index, instructions, prepared, kept_delta)| (index, instructions, prepared - shift, kept_delta)),
    );
    messages.append(&mut tail);
    Some((kept, boundary))
}

/// A request sent, for the instruction fallback: where it is in the history, its instructions,
/// where it is in the prepared messages, and whether a tool-availability delta stays in it.
type SentRequest<'a> = (usize, Option<&'a String>, usize, bool);

/// The reasoning a response carries into a user turn: where its first such part is, and the
/// lookalike tags of all of them, in order.
struct CarriedThinking {
    at: PartLocation,
    tags: Vec<Tag>,
}

/// What [`prepare`] reads of the whole history ahead of its pass, in one walk over it (a long
/// history is several times the cache, and each walk waits on memory).
struct Scan {
    /// `_carried_thinking` for every message: for a response whose thinking this model replays in
    /// a user turn (`_carries_thinking_in_user_turn`), that reasoning's lookalikes; `None`
    /// otherwise.
    carried: Vec<Option<CarriedThinking>>,
    /// Whether the history holds a speech part, so that `_convert_speech_parts` runs.
    speech: bool,
    /// Whether it holds a system prompt with a `context_id`, which
    /// `_render_system_prompt_contexts` renders ([`RenderedContexts`]).
    contexts: bool,
}

fn scan(history: &[ModelMessage], profile: Profile) -> Scan {
    let mut carried = Vec::with_capacity(history.len());
    let mut speech = false;
    let mut contexts = false;
    for (message_index, message) in history.iter().enumerate() {
        let response = match message {
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    match part {
                        ModelRequestPart::Speech(_) => speech = true,
                        ModelRequestPart::SystemPrompt(system) if system.context_id.get().is_some() => contexts = true,
                        _ => {}
                    }
                }
                carried.push(None);
                continue;
            }
            ModelMessage::Response(response) => response,
        };
        let mut found: Option<CarriedThinking> = None;
        for (part_index, part) in response.parts.iter().enumerate() {
            let thinking = match part {
                ModelResponsePart::Thinking(thinking) => thinking,
                ModelResponsePart::Speech(_) => {
                    speech = true;
                    continue;
                }
                _ => continue,
            };
            if !carries_thinking_in_user_turn(response, thinking, profile) {
                continue;
            }
            let at = PartLocation {
                message: message_index,
                part: part_index,
            };
            let entry = found.get_or_insert(CarriedThinking { at, tags: Vec::new() });
            // `lookalike_tags(part.content)` of every carried part, concatenated.
            entry.tags.extend(framing::lookalike_tags(&thinking.content));
        }
        carried.push(found);
    }
    Scan {
        carried,
        speech,
        contexts,
    }
}

/// `Model._carries_thinking_in_user_turn`: reasoning with content, on a profile with
/// `mimics_assistant_message_formatting` (Anthropic's), that does not go back as the model's own
/// signed thinking.
fn carries_thinking_in_user_turn(response: &ModelResponse, thinking: &ThinkingPart, profile: Profile) -> bool {
    if !profile.carries_foreign_thinking || thinking.content.is_empty() {
        return false;
    }
    match profile.thinking {
        // `OpenAIChatModel._carries_thinking_in_user_turn`: the reasoning it writes out as text.
        ThinkingMode::OpenAiChat => match profile.thinking_as_text {
            ThinkingAsText::All => true,
            ThinkingAsText::WithoutField => chat_auto_field(thinking, profile).is_none(),
            ThinkingAsText::None => false,
        },
        // `Model._carries_thinking_in_user_turn`, which OpenAI Responses keeps although its mapping
        // sends a reasoning item for some of those parts.
        ThinkingMode::Anthropic | ThinkingMode::OpenAiResponses => {
            !(signature(thinking).is_some()
                && accepts_stateless_artifact(response, thinking.provider_name.get(), profile.system))
        }
    }
}

/// `_auto_thinking_field`: the field OpenAI Chat's `'auto'` sends a part back in, its id (other
/// than `content`) when it is from this same provider.
fn chat_auto_field(thinking: &ThinkingPart, profile: Profile) -> Option<&String> {
    thinking.id.get().filter(|id| {
        !id.is_empty() && *id != "content" && thinking.provider_name.get().map(String::as_str) == Some(profile.system)
    })
}

/// `_replies_noted_later`: the indices of the replies before the request at `index` that the
/// request before them does not note: every reply since the previous request but the one right
/// after it, or every message before `index` when no request came before. Read on the messages
/// `_convert_speech_parts` leaves (`sent`).
fn replies_noted_later<'a>(
    history: &'a [ModelMessage],
    index: usize,
    sent: &'a Sent,
) -> impl Iterator<Item = usize> + 'a {
    let mut start = index;
    while start > 0 && !(sent.at(start - 1) && matches!(history[start - 1], ModelMessage::Request(_))) {
        start -= 1;
    }
    // The reply right after the previous request is noted by it.
    let from = if start > 0 {
        (start..index)
            .find(|&index| sent.at(index))
            .map_or(index, |first| first + 1)
    } else {
        0
    };
    (from..index).filter(|&index| sent.at(index) && matches!(history[index], ModelMessage::Response(_)))
}

/// A thinking part's signature, when it has a non-empty one (`part.signature` is truthy).
fn signature(thinking: &ThinkingPart) -> Option<&String> {
    thinking.signature.get().filter(|signature| !signature.is_empty())
}

/// `accepts_stateless_artifact` (`_canonical_system.py`) for a model whose `system` and
/// `canonical_system` are both `system` and which has no `compatible_systems` (the three models
/// msgflow exports for): the data's system is the response's `canonical_system` for a part with the
/// response's `provider_name`, and is otherwise derived from the part's name
/// (`stateless_artifact_system`, `_LEGACY_CANONICAL_SYSTEMS`). A Google response's
/// `provider_url` only ever names a Google system, which none of these models accepts.
pub(crate) fn accepts_stateless_artifact(
    response: &ModelResponse,
    provider_name: Option<&String>,
    system: &str,
) -> bool {
    let Some(provider_name) = provider_name else {
        return false;
    };
    if Some(provider_name) == response.provider_name.get() {
        if let Some(canonical) = response.canonical_system.get() {
            return canonical == system;
        }
    }
    let derived = match provider_name.as_str() {
        "google-gla" => "google",
        "google-vertex" => "google-cloud",
        "grok" => "xai",
        "openai-codex" => "openai",
        other => other,
    };
    derived == system || provider_name == system
}

/// Python's truthiness of a JSON value (`None`, `False`, `0`, `""`, `[]`, `{}` are false).
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|number| number != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// `render_replayed_thinking` on a profile without `mimics_assistant_message_formatting`: the
/// content between the profile's thinking tags, each on its own line.
pub(crate) fn tagged_thinking(content: &str) -> String {
    let (start, end) = DEFAULT_THINKING_TAGS;
    format!("{start}\n{content}\n{end}")
}

/// `_lookalike_sources`: who wrote a part's text that resembles a frame, with the tags it opens.
type Lookalikes = Vec<(Source, Vec<Tag>)>;

/// A request part as stored, with the lookalikes in its text (`_lookalike_sources`).
struct Authored {
    at: PartLocation,
    item: RequestItem,
    sources: Lookalikes,
    /// A user prompt holding a framework frame (`_is_user_channel_frame`).
    frame: bool,
}

/// What a part of a noted request is, for placing the announcement.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Part,
    /// A part that is a frame on the user channel (retry feedback, a compaction's summary, a user
    /// prompt holding a framework frame): the announcement goes with
    /// it as with a note, but it is no note (`_system_prompts_before_notes` does not move past it).
    Frame,
    Note,
    ToolNote,
}

/// `_request_with_lookalike_notes`: a request's items (tool results first) with a note next to
/// each item whose text has a lookalike, and where the announcement would go (`None` when the
/// request has no note).
///
/// A user prompt's note goes ahead of it (saying "following"), or after it (saying "preceding")
/// on a profile with inline system prompts when only system prompts come before it in the first
/// request (`_lookalike_notes_follow_item`); a tool result's notes go after the request's last
/// tool result (`_with_tool_notes`; ahead of the first only on a profile that takes notes ahead of
/// tool results and has no inline system prompts, which none msgflow exports for is).
fn note_lookalike_frames(
    authored: Vec<Authored>,
    first_request: bool,
    profile: Profile,
) -> (Vec<(PartLocation, RequestItem)>, Option<usize>) {
    let system_role = profile.inline_system_prompts;
    let precede_tool_results = profile.notes_precede_tool_results && !system_role;
    let is_system = |item: &RequestItem| {
        matches!(
            item,
            RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. } | RequestItem::Note { .. }
        )
    };
    // `genuine_change`: the request carries the application's own mid-conversation system prompt,
    // and no lookalike in it is the user's.
    // `_leading_system_prompt_count` counts the system prompts the first request opens with, the
    // ones a request-scoped prompt (since left out) kept from the standing prompt, and so wrapped,
    // included.
    let leading = if first_request {
        authored
            .iter()
            .take_while(|part| {
                matches!(
                    part.item,
                    RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. }
                )
            })
            .count()
    } else {
        0
    };
    let has_genuine = authored[leading..].iter().any(|part| {
        matches!(
            part.item,
            RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. }
        )
    });
    let user_lookalike = authored
        .iter()
        .any(|part| part.sources.iter().any(|(source, _)| *source == Source::User));
    let genuine_change = has_genuine && !user_lookalike;
    let mut parts: Vec<(PartLocation, RequestItem, Slot)> = Vec::with_capacity(authored.len());
    let mut tool_notes = Vec::new();
    for Authored {
        at,
        item,
        sources,
        frame,
    } in authored
    {
        let note = |source: Source, tags: &[Tag], preceding: bool, result: Option<&ToolResult>| {
            let context = NoteContext {
                source,
                preceding,
                system_role,
                genuine_change: if source == Source::User {
                    has_genuine
                } else {
                    genuine_change
                },
                tool_name: result.map(|result| result.tool_name.as_str()),
                tool_call_id: result.map(|result| result.id.as_str()),
            };
            RequestItem::Note {
                content: framing::lookalike_frame_note(context, tags),
            }
        };
        if let RequestItem::ToolReturn(result) = &item {
            for (source, tags) in &sources {
                tool_notes.push((
                    at,
                    note(*source, tags, !precede_tool_results, Some(result)),
                    Slot::ToolNote,
                ));
            }
            // The relocated files' lookalikes: their user message comes after the notes.
            if !result.file_lookalikes.is_empty() {
                let file_note = note(Source::Tool, &result.file_lookalikes, false, Some(result));
                tool_notes.push((at, file_note, Slot::ToolNote));
            }
            parts.push((at, item, Slot::Part));
            continue;
        }
        let after = system_role && first_request && parts.iter().all(|(_, item, _)| is_system(item));
        let notes: Vec<_> = sources
            .iter()
            .map(|(source, tags)| (at, note(*source, tags, after, None), Slot::Note))
            .collect();
        // `_is_user_channel_frame`.
        let slot = if frame || matches!(item, RequestItem::Feedback(_)) {
            Slot::Frame
        } else {
            Slot::Part
        };
        if after {
            parts.push((at, item, slot));
            parts.extend(notes);
        } else {
            parts.extend(notes);
            parts.push((at, item, slot));
        }
    }
    let is_result = |(_, item, _): &(PartLocation, RequestItem, Slot)| matches!(item, RequestItem::ToolReturn(_));
    if !tool_notes.is_empty() {
        let index = if precede_tool_results {
            parts.iter().position(is_result)
        } else {
            parts.iter().rposition(is_result).map(|last| last + 1)
        };
        let index = index.expect("a tool note comes with its tool result");
        parts.splice(index..index, tool_notes);
    }
    if !system_role {
        // `_system_prompts_before_notes`: the request's own system prompts after its first note
        // go ahead of it.
        if let Some(first_note) = parts
            .iter()
            .position(|(_, _, slot)| matches!(slot, Slot::Note | Slot::ToolNote))
        {
            let rest = parts.split_off(first_note);
            let (genuine, others): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(_, item, _)| {
                matches!(
                    item,
                    RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. }
                )
            });
            parts.extend(genuine);
            parts.extend(others);
        }
    }
    // `_announcement_index`.
    // A tool result whose files go on the user channel is a frame too (`framed`).
    let relocated = |item: &RequestItem| {
        profile.relocates_tool_files && matches!(item, RequestItem::ToolReturn(result) if !result.files.is_empty())
    };
    let frame_at = parts
        .iter()
        .position(|(_, item, slot)| *slot != Slot::Part || relocated(item))
        .map(|mut frame_at| {
            if let Some(last) = parts.iter().rposition(is_result) {
                if profile.notes_precede_tool_results && frame_at > last && parts[frame_at].2 == Slot::ToolNote {
                    frame_at = parts.iter().position(is_result).unwrap_or(frame_at);
                } else if !precede_tool_results && frame_at <= last {
                    frame_at = last + 1;
                }
            }
            if first_request && parts[..frame_at].iter().all(|(_, item, _)| is_system(item)) {
                frame_at = parts.len();
            }
            frame_at
        });
    (parts.into_iter().map(|(at, item, _)| (at, item)).collect(), frame_at)
}

/// `_lookalike_sources` for one text: adds the tags its lookalikes open to `found`.
fn add_lookalikes(found: &mut Vec<Tag>, text: &str) {
    for tag in framing::lookalike_tags(text) {
        if !found.contains(&tag) {
            found.push(tag);
        }
    }
}

fn sourced(source: Source, found: Vec<Tag>) -> Lookalikes {
    if found.is_empty() {
        Vec::new()
    } else {
        vec![(source, found)]
    }
}

/// Makes `path` the JSON path of a part, `$[message].parts[part]`. Written for every part, though
/// read only in an error: `write!` costs several times as much.
fn set_part_path(path: &mut String, message: usize, part: usize) {
    let mut digits = itoa::Buffer::new();
    path.clear();
    path.push_str("$[");
    path.push_str(digits.format(message));
    path.push_str("].parts[");
    path.push_str(digits.format(part));
    path.push(']');
}

/// A part's JSON path, as [`set_part_path`] writes it.
fn part_path(at: PartLocation) -> String {
    let mut path = String::new();
    set_part_path(&mut path, at.message, at.part);
    path
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
    let ranked: Vec<(usize, usize)> = (0..items.len())
        .filter_map(|index| rank(&items[index].1).map(|rank| (index, rank)))
        .collect();
    // Nearly always already in order.
    if ranked.windows(2).all(|pair| pair[0].1 <= pair[1].1) {
        return;
    }
    // Moved out, sorted (stably) and moved back, not copied.
    let mut answers: Vec<(usize, (PartLocation, RequestItem))> = ranked
        .iter()
        .map(|&(index, rank)| {
            let at = items[index].0;
            (
                rank,
                std::mem::replace(&mut items[index], (at, RequestItem::ToolAvailability)),
            )
        })
        .collect();
    answers.sort_by_key(|(rank, _)| *rank);
    for ((slot, _), (_, answer)) in ranked.into_iter().zip(answers) {
        items[slot] = answer;
    }
}

fn request_item(
    part: &ModelRequestPart,
    standing: bool,
    in_standing_run: bool,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<(RequestItem, Lookalikes), ExportError> {
    match part {
        ModelRequestPart::SystemPrompt(system) => {
            if let Some(SystemPromptScope::Unknown(scope)) = system.scope.get() {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.scope"),
                    &format!("a system prompt with the scope `{scope}`"),
                ));
            }
            Ok((
                system_prompt_item(system.content.clone(), standing, profile),
                Vec::new(),
            ))
        }
        ModelRequestPart::UserPrompt(user) => match &user.content {
            UserPromptContent::Text(text) => {
                let mut found = Vec::new();
                add_lookalikes(&mut found, text);
                Ok((
                    RequestItem::User(UserText::Text(text.clone())),
                    sourced(Source::User, found),
                ))
            }
            UserPromptContent::Items(items) => {
                let mut contents = Vec::with_capacity(items.len());
                // `_lookalike_texts`: the user's own texts are checked first, then the text
                // files, each source getting its own note.
                let mut found = Vec::new();
                let mut in_files = Vec::new();
                let mut frames = Vec::new();
                for (item_index, item) in items.iter().enumerate() {
                    let item_path = format!("{path}.content[{item_index}]");
                    match item {
                        UserContent::Text(text) => {
                            add_lookalikes(&mut found, text);
                            contents.push(UserItem::Text(text.clone()));
                        }
                        // `str() | TextContent()`: its text, like a string's (`_text_of`), unless it
                        // is a frame a capability wrote (`is_framework_frame`), whose body is checked
                        // apart, after the files.
                        UserContent::TextContent(text) => {
                            match framework_frame(&text.metadata) {
                                None => add_lookalikes(&mut found, &text.content),
                                Some(author) => frames.push((author, &text.content)),
                            }
                            contents.push(UserItem::Text(text.content.clone()));
                        }
                        // `StructuredContent` is a `TextContent`: models without structured input are
                        // sent its `content`, the value rendered once when the item was made. An item
                        // without one is rendered again when loaded (`render`), which msgflow does not
                        // reproduce.
                        UserContent::StructuredContent(structured) => {
                            let Some(content) = structured.content.get().filter(|content| !content.is_empty()) else {
                                return Err(ExportError::unsupported(
                                    at,
                                    &format!("{item_path}.content"),
                                    "a structured-content item without its rendered `content` (pydantic-ai renders its value again)",
                                ));
                            };
                            match framework_frame(&structured.metadata) {
                                None => add_lookalikes(&mut found, content),
                                Some(author) => frames.push((author, content)),
                            }
                            contents.push(UserItem::Text(content.clone()));
                        }
                        UserContent::CachePoint(point) => {
                            let one_hour = match point.ttl.get() {
                                None | Some(CachePointTtl::V5m) => false,
                                Some(CachePointTtl::V1h) => true,
                                // `Literal['5m', '1h']`: pydantic-ai does not load the history.
                                Some(CachePointTtl::Unknown(ttl)) => {
                                    return Err(ExportError::unsupported(
                                        at,
                                        &format!("{item_path}.ttl"),
                                        &format!("a cache point with the ttl `{ttl}`"),
                                    ))
                                }
                            };
                            contents.push(UserItem::CachePoint {
                                at,
                                path: item_path,
                                one_hour,
                            });
                        }
                        other => match File::read(other, at, &item_path)? {
                            Some(file) => {
                                // `_text_file_content`: a text-like binary file is read as UTF-8
                                // (`errors='replace'`) for lookalikes.
                                if let FileKind::Binary { data, media_type, .. } = &file.kind {
                                    if msgflow_media::is_text_like_media_type(media_type) {
                                        let text = String::from_utf8_lossy(data);
                                        add_lookalikes(&mut in_files, &text);
                                    }
                                }
                                contents.push(UserItem::File(file));
                            }
                            None => {
                                return Err(ExportError::unsupported(
                                    at,
                                    &item_path,
                                    &format!("a `{}` user content item", other.tag().unwrap_or_default()),
                                ))
                            }
                        },
                    }
                }
                let mut sources = sourced(Source::User, found);
                sources.extend(sourced(Source::File, in_files));
                // `_lookalike_texts`: then each frame's body, without the frame's own tags, as its
                // author's (`framework_frame_body`); a frame naming no known author is the
                // framework's own and is not read. Each author's tags join that author's note.
                for (author, content) in frames {
                    let Some(author) = author else { continue };
                    let mut tags = Vec::new();
                    add_lookalikes(&mut tags, framing::without_own_tags(content));
                    if tags.is_empty() {
                        continue;
                    }
                    match sources.iter_mut().find(|(source, _)| *source == author) {
                        Some((_, known)) => {
                            for tag in tags {
                                if !known.contains(&tag) {
                                    known.push(tag);
                                }
                            }
                        }
                        None => sources.push((author, tags)),
                    }
                }
                Ok((RequestItem::User(UserText::Items(contents)), sources))
            }
        },
        ModelRequestPart::ToolReturn(ret) => {
            // A success of a typed kind loads as its typed class (`LoadCapabilityReturnPart`,
            // `ToolSearchReturnPart`): its literal name, its content validated as the kind's
            // TypedDict (keys reordered), sent as any other return.
            let typed_kind = match typed::return_route(&ret.tool_kind, &ret.outcome, true) {
                typed::Route::Typed(kind) => Some(kind),
                typed::Route::Base => None,
            };
            let refuse_typed = |reason| ExportError::unsupported(at, path, reason);
            let tool_name = match typed_kind {
                Some(kind) => typed::tool_name(&ret.tool_name, ret.tool_name_absent, kind.local_tool_name())
                    .map_err(refuse_typed)?
                    .to_owned(),
                None => ret.tool_name.clone(),
            };
            let typed_content = typed_kind
                .map(|kind| typed::return_content(kind, &ret.content).map_err(refuse_typed))
                .transpose()?;
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
            let content_path = [path, ".content"].concat();
            let dumped = (!outcome.is_error() && typed_content.is_none())
                .then(|| ToolContent::of_success(ret.content.get()))
                .flatten();
            let ToolFiles {
                content,
                files,
                lookalike_texts,
            } = match (dumped, typed_content) {
                (Some(content), _) => ToolFiles {
                    content,
                    files: Vec::new(),
                    lookalike_texts: None,
                },
                (None, Some(content)) => typed_tool_files(content, at, &content_path, profile)?,
                (None, None) => {
                    let content = ret.content.try_to_value().map_err(|_| {
                        ExportError::unsupported(at, &content_path, "tool output that is not plain JSON")
                    })?;
                    let record = FileRecord::of(&ret.content_file_digests)
                        .map_err(|why| ExportError::unsupported(at, &format!("{path}.content_file_digests"), why))?;
                    tool_files(content, &record, at, &content_path, profile)?
                }
            };
            let mut result = ToolResult {
                id,
                tool_name,
                content,
                outcome,
                files,
                file_lookalikes: Vec::new(),
            };
            // `_lookalike_sources` of the part as written (before its unreadable files are replaced):
            // the text items of `content_items(mode='str', wrap_if_error=False)`, a text file's text
            // in its place; where the files are relocated, the files' apart
            // (`_tool_result_lookalike_tags`).
            let texts = match lookalike_texts {
                Some(texts) => texts,
                // Written again, the content holds no lookalike it does not hold as written.
                None if !framing::json_may_hold_lookalike(ret.content.get()) => Vec::new(),
                None => content_items_unwrapped(&result)
                    .into_iter()
                    .map(|text| (text, false))
                    .collect(),
            };
            let mut found = Vec::new();
            let mut in_files = Vec::new();
            for (text, from_file) in texts {
                let into = if from_file && profile.relocates_tool_files {
                    &mut in_files
                } else {
                    &mut found
                };
                add_lookalikes(into, &text);
            }
            result.file_lookalikes = in_files;
            Ok((RequestItem::ToolReturn(result), sourced(Source::Tool, found)))
        }
        // `_translate_legacy_retry_part` (run when 2.68.0 loads a history): a legacy retry prompt
        // naming a tool is that call's result again, with `outcome='retried'`, its error details
        // dumped by `_dump_error_details`. (One naming no tool is retry feedback, which pydantic-ai
        // fences in `<pyai:validation_errors>` or `<pyai:retry_feedback>`: not exported.)
        ModelRequestPart::RetryPrompt(retry) if retry.tool_name.get().is_some() => {
            let id = tool_call_id(&retry.tool_call_id, at, path)?;
            let content_path = [path, ".content"].concat();
            let content = match retry.content.try_to_value() {
                Ok(Value::String(text)) => Value::String(text),
                Ok(Value::Array(details)) => dump_error_details(details).ok_or_else(|| {
                    ExportError::unsupported(at, &content_path, "retry error details pydantic-ai does not load")
                })?,
                _ => {
                    return Err(ExportError::unsupported(
                        at,
                        &content_path,
                        "retry content that is neither text nor error details",
                    ))
                }
            };
            let result = ToolResult {
                id,
                tool_name: retry.tool_name.get().cloned().unwrap_or_default(),
                content: ToolContent::Read(content),
                outcome: Outcome::Retried,
                // The details are no `ToolReturnContent` pydantic-ai reads files from.
                files: Vec::new(),
                file_lookalikes: Vec::new(),
            };
            let mut found = Vec::new();
            for text in content_items_unwrapped(&result) {
                add_lookalikes(&mut found, &text);
            }
            Ok((RequestItem::ToolReturn(result), sourced(Source::Tool, found)))
        }
        // `_translate_legacy_retry_part`: one naming no tool is the feedback it always meant, its
        // cause told by its content.
        ModelRequestPart::RetryPrompt(retry) => {
            let cause = if retry.content.is_string() {
                FeedbackCause::ModelRetry
            } else {
                FeedbackCause::ValidationError
            };
            retry_feedback(&retry.content, cause, in_standing_run, at, path, profile)
        }
        ModelRequestPart::RetryFeedback(feedback) => {
            let cause = match &feedback.retry.cause {
                RetryCause::ValidationError => FeedbackCause::ValidationError,
                RetryCause::ModelRetry => FeedbackCause::ModelRetry,
                RetryCause::NoOutput => FeedbackCause::NoOutput,
                other => {
                    return Err(ExportError::unsupported(
                        at,
                        &format!("{path}.retry.cause"),
                        &format!("retry feedback with the cause `{}`", other.as_str()),
                    ))
                }
            };
            retry_feedback(&feedback.content, cause, in_standing_run, at, path, profile)
        }
        // `_sendable_request_parts`: a request-side compaction is the user text framing its summary
        // (`_conversation_summary_text`), a frame on the user channel (`_is_user_channel_frame`),
        // its summary read for lookalikes (`_lookalike_texts`, noted as the summarization model's).
        ModelRequestPart::Compaction(compaction) => {
            let content = compaction.content.get().map_or("", String::as_str);
            let mut found = Vec::new();
            add_lookalikes(&mut found, content);
            Ok((
                RequestItem::Feedback(framing::conversation_summary(content)),
                sourced(Source::Summary, found),
            ))
        }
        // `_convert_speech_parts` without `supports_audio_input` (none of the three profiles sets
        // it): the user's speech is a user prompt of its transcript (a part without one is left
        // out, `left_out`), read for lookalikes like one (`authored` is taken after the conversion).
        ModelRequestPart::Speech(speech) if speech.speaker == Speaker::User => {
            let transcript = speech.transcript.get().cloned().unwrap_or_default();
            let mut found = Vec::new();
            add_lookalikes(&mut found, &transcript);
            Ok((
                RequestItem::User(UserText::Text(transcript)),
                sourced(Source::User, found),
            ))
        }
        other => Err(ExportError::unsupported(
            at,
            path,
            &format!("a `{}` part", other.tag().unwrap_or_default()),
        )),
    }
}

/// A system prompt as the mappings take it: the standing ones lifted into the system field, a
/// mid-conversation one in place or, without inline system prompts, `<system>`-wrapped
/// (`_wrap_non_leading_system_prompts`). The application's own text: never looked at for
/// lookalikes.
fn system_prompt_item(content: String, standing: bool, profile: Profile) -> RequestItem {
    if !standing && !profile.inline_system_prompts {
        RequestItem::WrappedSystemPrompt { content }
    } else {
        RequestItem::SystemPrompt { content }
    }
}

/// Where the request-scoped system prompts go (`_current_request_start`,
/// `_move_request_scoped_prompts_to_tail`).
#[derive(Debug)]
struct RequestScoped {
    /// The history index of the first message of the current request (the trailing requests, and
    /// the responses after them): a request-scoped prompt before it has been answered.
    current_start: usize,
    /// The history index of the last request sent, which the current prompts end.
    last_request: Option<usize>,
    /// The current request's prompts, in order, until the last request takes them.
    moved: Vec<(PartLocation, RequestItem)>,
    /// Whether there were any.
    moved_any: bool,
}

impl RequestScoped {
    /// Read from the end of the history, on the messages `prepare_messages` still has at each step
    /// (`_render_system_prompt_contexts` and `_convert_speech_parts` ran before;
    /// `_announce_tool_availability_delta_messages` runs between the two steps, so a request it
    /// leaves without parts ends no current prompt: they stay in the request before it).
    fn of(history: &[ModelMessage], sent: &Sent, contexts: &RenderedContexts, profile: Profile) -> Self {
        let mut current_start = history.len();
        while current_start > 0
            && (!sent.at(current_start - 1) || matches!(history[current_start - 1], ModelMessage::Response(_)))
        {
            current_start -= 1;
        }
        while current_start > 0
            && (!sent.at(current_start - 1) || matches!(history[current_start - 1], ModelMessage::Request(_)))
        {
            current_start -= 1;
        }
        // Messages `sent` leaves out at the run's start belong to no request: step back over them.
        while current_start < history.len() && !sent.at(current_start) {
            current_start += 1;
        }
        let last_request = history.iter().enumerate().rposition(|(index, message)| match message {
            ModelMessage::Request(request) => {
                sent.at(index) && (profile.adds_tools || !only_tool_availability(request, contexts.of_message(index)))
            }
            ModelMessage::Response(_) => false,
        });
        RequestScoped {
            current_start,
            last_request,
            moved: Vec::new(),
            moved_any: false,
        }
    }
}

/// What `_render_system_prompt_contexts` makes of a part with a `context_id`.
#[derive(Debug, Clone)]
enum Context {
    /// Its `<pyai:context>` element.
    Rendered(String),
    /// A statement that would open its id without content: nothing to state, left out.
    LeftOut,
}

/// `_render_system_prompt_contexts`' state along the history: the ids opened so far, and whether the
/// sentence saying a later element replaces an earlier one has been sent (never by the instruction
/// prefix: msgflow exports without request parameters, so `prefix_states_rule` is false).
#[derive(Debug, Default)]
struct Contexts {
    opened: Vec<String>,
    stated: bool,
}

impl Contexts {
    /// The rendering of each part of a request holding system prompts with a `context_id` (by part
    /// index, `None` for a part without one); `None` for a request holding none.
    /// `first`: whether it is the history's first request.
    fn render(
        &mut self,
        request: &msgflow_wire::ModelRequest,
        first: bool,
        profile: Profile,
    ) -> Option<Vec<Option<Context>>> {
        let has_context = |part: &ModelRequestPart| matches!(part, ModelRequestPart::SystemPrompt(system) if system.context_id.get().is_some());
        if !request.parts.iter().any(has_context) {
            return None;
        }
        // `_standing_system_prompt_count` of the first request as it is at this step: capability
        // load deltas are already left out, settings deltas and speech not yet.
        let standing = if first {
            request
                .parts
                .iter()
                .filter(|part| !matches!(part, ModelRequestPart::CapabilityLoadDelta(_)))
                .take_while(|part| {
                    matches!(part, ModelRequestPart::SystemPrompt(system)
                        if matches!(system.scope.get(), None | Some(SystemPromptScope::Conversation)))
                })
                .count()
        } else {
            0
        };
        let standing_end = request
            .parts
            .iter()
            .enumerate()
            .filter(|(_, part)| !matches!(part, ModelRequestPart::CapabilityLoadDelta(_)))
            .nth(standing)
            .map_or(request.parts.len(), |(index, _)| index);
        let mut rendered = vec![None; request.parts.len()];
        // The standing prompt, then the rest of the request: each group's last opening states the
        // rule, once in the history.
        for group in [0..standing_end, standing_end..request.parts.len()] {
            let mut statements = Vec::new();
            let mut last_opening = None;
            for index in group {
                let ModelRequestPart::SystemPrompt(system) = &request.parts[index] else {
                    continue;
                };
                let Some(id) = system.context_id.get() else {
                    continue;
                };
                if !self.opened.contains(id) {
                    if system.content.is_empty() {
                        rendered[index] = Some(Context::LeftOut);
                        continue;
                    }
                    self.opened.push(id.clone());
                    last_opening = Some(index);
                }
                statements.push((index, id, &system.content));
            }
            let states_rule_at = if self.stated { None } else { last_opening };
            for (index, id, content) in statements {
                let element = framing::context_element(
                    id,
                    content,
                    profile.inline_system_prompts,
                    Some(index) == states_rule_at,
                );
                rendered[index] = Some(Context::Rendered(element));
            }
            self.stated |= states_rule_at.is_some();
        }
        Some(rendered)
    }
}

/// What `_render_system_prompt_contexts` makes of the history: the statements of each request
/// holding a part with a `context_id`, by history index. It runs on the whole history ahead of
/// every step that leaves a message out, so a request left out later still opens its ids; most
/// histories hold no such part, and only the requests that do are stored.
#[derive(Debug, Default)]
struct RenderedContexts(Vec<(usize, Vec<Option<Context>>)>);

impl RenderedContexts {
    fn of(history: &[ModelMessage], profile: Profile) -> Self {
        let mut contexts = Contexts::default();
        let mut first = true;
        let mut rendered = Vec::new();
        for (index, message) in history.iter().enumerate() {
            if let ModelMessage::Request(request) = message {
                if let Some(statements) = contexts.render(request, std::mem::replace(&mut first, false), profile) {
                    rendered.push((index, statements));
                }
            }
        }
        RenderedContexts(rendered)
    }

    /// Where the statements of the message at `index` are stored, if it holds any.
    fn position(&self, index: usize) -> Option<usize> {
        self.0.binary_search_by_key(&index, |(message, _)| *message).ok()
    }

    /// The statements of the message at `index` (by part index), `None` where it holds none.
    fn of_message(&self, index: usize) -> Option<&[Option<Context>]> {
        self.position(index).map(|at| self.0[at].1.as_slice())
    }

    /// [`RenderedContexts::of_message`], for the export to take each statement where it writes its
    /// part.
    fn of_message_mut(&mut self, index: usize) -> Option<&mut [Option<Context>]> {
        self.position(index).map(|at| self.0[at].1.as_mut_slice())
    }
}

/// `is_framework_frame`: a text item whose metadata's `__pydantic_ai__` namespace marks it as a
/// frame a capability wrote (`framework_frame: true`, `framework_frame_text`), with the author of
/// its body (`framework_frame_body`: `framework_frame_author`, when it is one of pydantic-ai's
/// `LookalikeSource`s). `None` for a text like any other (other metadata, in that namespace too).
fn framework_frame(metadata: &Field<RawJson>) -> Option<Option<Source>> {
    let value = metadata.get()?.try_to_value().ok()?;
    let namespace = value.get("__pydantic_ai__")?.as_object()?;
    if namespace.get("framework_frame") != Some(&Value::Bool(true)) {
        return None;
    }
    let author = match namespace.get("framework_frame_author").and_then(Value::as_str) {
        Some("user") => Some(Source::User),
        Some("tool") => Some(Source::Tool),
        Some("file") => Some(Source::File),
        Some("summary") => Some(Source::Summary),
        Some("retry") => Some(Source::Retry),
        Some("thinking") => Some(Source::Thinking),
        _ => None,
    };
    Some(author)
}

/// `_is_user_channel_frame`: a user prompt holding a frame a capability wrote is a frame on the
/// user channel, which the announcement of the notes goes with.
fn holds_framework_frame(part: &ModelRequestPart) -> bool {
    let ModelRequestPart::UserPrompt(user) = part else {
        return false;
    };
    let UserPromptContent::Items(items) = &user.content else {
        return false;
    };
    items.iter().any(|item| match item {
        UserContent::TextContent(text) => framework_frame(&text.metadata).is_some(),
        UserContent::StructuredContent(structured) => framework_frame(&structured.metadata).is_some(),
        _ => false,
    })
}

/// Whether `prepare_messages` leaves a request part out before anything else reads the request:
/// `_drop_capability_load_deltas` (the model sees a capability's load as its instructions and
/// tools), `_project_model_settings_deltas` with `keep=False` (none of the three profiles sets
/// `supports_mid_conversation_effort`, so the current settings go out as the request's own), and
/// `_convert_speech_parts` for the user's speech without a transcript (the audio is not sent
/// without `supports_audio_input`).
///
/// `CapabilityLoadDeltaPart`s are read by `_project_instruction_state` first, in a history with
/// instruction deltas or baselines (`instructions::project`: what they load decides which changes
/// are a loaded capability's).
fn left_out(part: &ModelRequestPart) -> bool {
    match part {
        ModelRequestPart::CapabilityLoadDelta(_) | ModelRequestPart::ModelSettingsDelta(_) => true,
        ModelRequestPart::Speech(speech) => speech.speaker == Speaker::User && !has_transcript(speech),
        _ => false,
    }
}

/// Whether every part of the request `prepare_messages` keeps is a tool-availability delta (and
/// there is one); `rendered` is the request's context statements.
fn only_tool_availability(request: &msgflow_wire::ModelRequest, rendered: Option<&[Option<Context>]>) -> bool {
    let mut kept = kept_parts(request, rendered);
    kept.next()
        .is_some_and(|part| matches!(part, ModelRequestPart::ToolAvailabilityDelta(_)))
        && kept.all(|part| matches!(part, ModelRequestPart::ToolAvailabilityDelta(_)))
}

/// The parts of a request the steps before `_convert_speech_parts` keep: those [`left_out`]
/// drops, and the context statements `_render_system_prompt_contexts` leaves out, are not
/// among them. `rendered` is the request's context statements.
fn kept_parts<'a>(
    request: &'a msgflow_wire::ModelRequest,
    rendered: Option<&'a [Option<Context>]>,
) -> impl Iterator<Item = &'a ModelRequestPart> {
    request.parts.iter().enumerate().filter_map(move |(index, part)| {
        let stated = !matches!(
            rendered.and_then(|rendered| rendered[index].as_ref()),
            Some(Context::LeftOut)
        );
        (!left_out(part) && stated).then_some(part)
    })
}

/// `part.transcript` is truthy.
fn has_transcript(speech: &SpeechPart) -> bool {
    speech.transcript.get().is_some_and(|text| !text.is_empty())
}

/// Which messages `_convert_speech_parts` keeps: on a history holding speech, those left with a
/// part (it leaves out every message without one, however it got empty); on any other, all.
struct Sent(Option<Vec<bool>>);

impl Sent {
    /// `contexts`: the statements `_render_system_prompt_contexts` (which runs first) leaves out
    /// count too.
    fn of(history: &[ModelMessage], speech: bool, contexts: &RenderedContexts) -> Self {
        if !speech {
            return Sent(None);
        }
        Sent(Some(
            history
                .iter()
                .enumerate()
                .map(|(index, message)| sends_parts(message, contexts.of_message(index)))
                .collect(),
        ))
    }

    /// Whether the message at `index` is sent.
    fn at(&self, index: usize) -> bool {
        self.0.as_ref().is_none_or(|sent| sent[index])
    }
}

/// Whether a message keeps a part through `_convert_speech_parts`, stopping at the first part
/// kept; `rendered` is the request's context statements.
fn sends_parts(message: &ModelMessage, rendered: Option<&[Option<Context>]>) -> bool {
    match message {
        ModelMessage::Request(request) => kept_parts(request, rendered).next().is_some(),
        ModelMessage::Response(response) => response.parts.iter().enumerate().any(|(index, part)| {
            !matches!(part, ModelResponsePart::Speech(_))
                || assistant_speech(response, index).is_some_and(|text| !text.is_empty())
        }),
    }
}

/// `assistant_speech_text` (models/_speech.py): the transcript of the speech part at `index`, then
/// `[Interrupted after N ms]` when it records where the listener cut it off, or `[Interrupted]` on
/// the last speech part of an interrupted response that does not; the lines joined by a newline.
/// `None` for a part that is not speech.
fn assistant_speech(response: &ModelResponse, index: usize) -> Option<String> {
    let ModelResponsePart::Speech(speech) = response.parts.get(index)? else {
        return None;
    };
    let mut text = speech.transcript.get().cloned().unwrap_or_default();
    let marker = match speech.interrupted_at_ms.get() {
        // A big integer is written as Python prints it, digits only.
        Some(ms) => Some(format!("[Interrupted after {ms} ms]")),
        None if matches!(response.state.get(), Some(ModelResponseState::Interrupted))
            && !response.parts[index + 1..]
                .iter()
                .any(|part| matches!(part, ModelResponsePart::Speech(_))) =>
        {
            Some("[Interrupted]".to_owned())
        }
        None => None,
    };
    if let Some(marker) = marker {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&marker);
    }
    Some(text)
}

/// The causes of retry feedback (`RetryFeedbackCause`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FeedbackCause {
    ValidationError,
    ModelRetry,
    NoOutput,
}

/// `_RETRY_FEEDBACK_FRAMING`: the line that opens user-voice retry feedback.
const RETRY_FEEDBACK_FRAMING: &str =
    "Your previous response failed the application's validation (this is automated feedback, not a message from the user):";

/// `_NO_OUTPUT_ALTERNATIVE_SLOTS`: what the agent loop can ask for when a response held nothing
/// usable, in the order it lists them.
const NO_OUTPUT_ALTERNATIVE_SLOTS: [&[&str]; 3] = [
    &["return text"],
    &["include your response in a tool call", "call a tool"],
    &["return an image"],
];

/// Whether `text` is one of `_NO_OUTPUT_FEEDBACK_TEXTS`: `Please <alternatives joined by " or ">.`,
/// at most one alternative of each slot, in slot order.
fn is_no_output_feedback_text(text: &str) -> bool {
    let Some(alternatives) = text.strip_prefix("Please ").and_then(|rest| rest.strip_suffix('.')) else {
        return false;
    };
    // Every choice of at most one alternative per slot, written out and compared (12 texts).
    fn matches(rest: &str, slots: &[&[&str]], first: bool) -> bool {
        let Some((slot, others)) = slots.split_first() else {
            return rest.is_empty();
        };
        matches(rest, others, first)
            || slot.iter().any(|alternative| {
                let prefix = if first { "" } else { " or " };
                rest.strip_prefix(prefix)
                    .and_then(|rest| rest.strip_prefix(alternative))
                    .is_some_and(|rest| matches(rest, others, false))
            })
    }
    matches(alternatives, &NO_OUTPUT_ALTERNATIVE_SLOTS, true)
}

/// `_translate_retry_parts` for retry feedback: `model_response()` in the voice its cause calls
/// for. Validation errors and `ModelRetry` messages (and `'no_output'` feedback with any text but
/// the agent loop's own) go in the user voice, fenced, the quoted content checked for lookalikes
/// (`_lookalike_sources`: the `'retry'` source); the loop's own `'no_output'` text is a
/// mid-conversation system prompt.
fn retry_feedback(
    content: &RawJson,
    cause: FeedbackCause,
    in_standing_run: bool,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<(RequestItem, Lookalikes), ExportError> {
    let content_path = [path, ".content"].concat();
    // `_retry_feedback_text`: a message as is, error details as their JSON.
    let text = match content.try_to_value() {
        Ok(Value::String(text)) => text,
        Ok(Value::Array(details)) => json_text(&dump_error_details(details).ok_or_else(|| {
            ExportError::unsupported(at, &content_path, "retry error details pydantic-ai does not load")
        })?),
        _ => {
            return Err(ExportError::unsupported(
                at,
                &content_path,
                "retry content that is neither text nor error details",
            ))
        }
    };
    // `_retry_feedback_speaks_for_the_harness`.
    if cause == FeedbackCause::NoOutput && content.is_string() && is_no_output_feedback_text(&text) {
        // Feedback that would extend the first request's opening run of system prompts is never
        // part of the standing prompt: `<system>`-tagged user text, a frame, on every profile.
        if in_standing_run {
            return Ok((RequestItem::Feedback(framing::system_frame(&text)), Vec::new()));
        }
        let item = if profile.inline_system_prompts {
            RequestItem::SystemPrompt { content: text }
        } else {
            RequestItem::WrappedSystemPrompt { content: text }
        };
        return Ok((item, Vec::new()));
    }
    let mut found = Vec::new();
    add_lookalikes(&mut found, &text);
    let tag = if cause == FeedbackCause::ValidationError {
        framing::VALIDATION_ERRORS_TAG
    } else {
        framing::RETRY_FEEDBACK_TAG
    };
    let fenced = format!("{RETRY_FEEDBACK_FRAMING}\n<{tag}>\n{text}\n</{tag}>");
    Ok((RequestItem::Feedback(fenced), sourced(Source::Retry, found)))
}

/// The keys of pydantic-core's `ErrorDetails`, in its order (the order `error_details_ta` dumps
/// them in); `ctx` is never dumped.
const ERROR_DETAIL_KEYS: [&str; 5] = ["type", "loc", "msg", "input", "url"];

/// `_dump_error_details`: each error with the keys of `ErrorDetails` in its order (`ctx` and
/// unknown keys dropped), and the `input` of a root-level error (`loc` of at most one item) left out
/// when it equals the first root-level error's (Python `==`). `None` for details pydantic-ai
/// would not load as `list[ErrorDetails]` (msgflow's verdict reports those).
fn dump_error_details(details: Vec<Value>) -> Option<Value> {
    let mut root_input: Option<Value> = None;
    let mut dumped = Vec::with_capacity(details.len());
    for detail in details {
        let Value::Object(mut detail) = detail else { return None };
        let loc = detail
            .get("loc")?
            .as_array()?
            .iter()
            .map(loc_item)
            .collect::<Option<Vec<Value>>>()?;
        let loc_len = loc.len();
        detail.insert("loc".to_owned(), Value::Array(loc));
        let loads = detail.get("type")?.is_string()
            && detail.get("msg")?.is_string()
            && detail.contains_key("input")
            && detail.get("url").is_none_or(Value::is_string);
        if !loads {
            return None;
        }
        if loc_len <= 1 {
            match &root_input {
                None => root_input = Some(detail.get("input").cloned().unwrap_or(Value::Null)),
                Some(first) if detail.get("input").is_some_and(|input| python_eq(input, first)) => {
                    detail.remove("input");
                }
                Some(_) => {}
            }
        }
        let mut ordered = Map::new();
        for key in ERROR_DETAIL_KEYS {
            if let Some(value) = detail.remove(key) {
                ordered.insert(key.to_owned(), value);
            }
        }
        dumped.push(Value::Object(ordered));
    }
    Some(Value::Array(dumped))
}

/// An item of `ErrorDetails.loc` (`tuple[int | str, ...]`) as pydantic loads it: a string or an
/// integer as written, and what lax `int` reads as one (probed with the venv: `true` is `1`, `2.0`
/// and `1e2` are `2` and `100`; `1.5`, `1e19`, `null` are refused), so the part is sent with the
/// integer pydantic-ai holds. `None` for an item pydantic-ai does not load.
fn loc_item(item: &Value) -> Option<Value> {
    match item {
        Value::String(_) => Some(item.clone()),
        Value::Bool(flag) => Some(Value::from(u8::from(*flag))),
        Value::Number(_) if is_integer(item) => Some(item.clone()),
        Value::Number(number) => {
            // pydantic-core's `float_as_int`: whole, and strictly within `i64`.
            let value = number.as_f64()?;
            let whole = value.is_finite() && value.fract() == 0.0;
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            let within = value > i64::MIN as f64 && value < i64::MAX as f64;
            #[allow(clippy::cast_possible_truncation)]
            (whole && within).then(|| Value::from(value as i64))
        }
        _ => None,
    }
}

/// Whether a JSON number is written as an integer (which Python reads as an `int`, of any size).
fn is_integer(value: &Value) -> bool {
    matches!(value, Value::Number(number) if !number.to_string().contains(['.', 'e', 'E']))
}

/// Python's `==` on JSON values: `True == 1`, `1 == 1.0`; objects equal by keys and values.
fn python_eq(left: &Value, right: &Value) -> bool {
    fn number(value: &Value) -> Option<f64> {
        match value {
            Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
            Value::Number(number) => number.as_f64(),
            _ => None,
        }
    }
    match (left, right) {
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len() && left.iter().zip(right).all(|(left, right)| python_eq(left, right))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .all(|(key, value)| right.get(key).is_some_and(|other| python_eq(value, other)))
        }
        (Value::Bool(left), Value::Bool(right)) => left == right,
        // Integers of any size compare exactly (`-0` is `0`).
        (Value::Number(_), Value::Number(_)) if is_integer(left) && is_integer(right) => {
            let digits = |value: &Value| {
                let text = value.to_string();
                if text == "-0" {
                    "0".to_owned()
                } else {
                    text
                }
            };
            digits(left) == digits(right)
        }
        _ => match (number(left), number(right)) {
            (Some(left), Some(right)) => left == right,
            _ => left == right,
        },
    }
}

/// The files of a tool result (`_split_content`): pydantic-ai validates tool output as
/// `ToolReturnContent`, which rebuilds every object that loads as a file item, at any depth
/// ([`tool_content`]); the content itself, or an item of a content list, that does is a file, and
/// any other is data, whose text holds the dumps of the items rebuilt inside it. A `BinaryContent`
/// loads whatever the record says; a URL item or an uploaded file only when `content_file_digests`
/// records it, or (a URL item) with an `http(s)` URL in a result saved without a record. Binary
/// images (not text-like ones such as SVG) and documents, URL items and uploaded files go to the
/// mapping, which reads them as it reads a user prompt's (`_map_tool_return_part`,
/// `model_response_str_and_user_content`, `_map_tool_return_output`).
///
/// Returns the content as the mapping reads it, with each file the model cannot read (audio, video,
/// a document type the profile leaves out) replaced by pydantic-ai's note
/// (`_replace_unsupported_tool_return_files`), and its files.
fn tool_files(
    mut content: Value,
    record: &FileRecord,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<ToolFiles, ExportError> {
    let mut notes = Vec::new();
    // Each file item's text for `_lookalike_texts`: a text file's, decoded (`_text_file_content`,
    // `errors='replace'`); none for other files.
    let mut file_texts: Vec<(usize, Option<String>)> = Vec::new();
    let listed = content.is_array();
    // The JSON path of an item, made only for an item that is (or holds) a file.
    let path_of = |index: usize| {
        if listed {
            format!("{path}[{index}]")
        } else {
            path.to_owned()
        }
    };
    // `ToolReturnContent` of the content or each item of a content list: a file item becomes its
    // dump (so that it is read below in the form pydantic-ai holds it), data has the file items
    // inside it rebuilt.
    let mut is_file = Vec::new();
    {
        let candidates = match &mut content {
            Value::Array(items) => items.as_mut_slice(),
            other => std::slice::from_mut(other),
        };
        for (index, value) in candidates.iter_mut().enumerate() {
            let refuse = |why: &str| ExportError::unsupported(at, &path_of(index), why);
            let dump = match value {
                Value::Object(map) => tool_content::file_item_dump(map, record).map_err(refuse)?,
                _ => None,
            };
            is_file.push(dump.is_some());
            match dump {
                Some(dump) => *value = Value::Object(dump),
                None => tool_content::rebuild_nested_files(value, record).map_err(refuse)?,
            }
        }
    }
    let candidates = match &content {
        Value::Array(items) => items.as_slice(),
        other => std::slice::from_ref(other),
    };
    let mut files = Vec::new();
    for (index, value) in candidates.iter().enumerate() {
        if !is_file[index] {
            continue;
        }
        let item_path = path_of(index);
        let refuse = |what: &str| ExportError::unsupported(at, &item_path, what);
        // The item is in its dump form, which reads as the user-content item it is.
        let item: UserContent = serde_json::from_str(&value.to_string())
            .map_err(|_| refuse("tool output holding a file item msgflow cannot read back"))?;
        let Some(file) = File::read(&item, at, &item_path)? else {
            return Err(refuse("tool output holding a file item msgflow cannot read back"));
        };
        let FileKind::Binary { data, media_type } = &file.kind else {
            // A URL item or an uploaded file: no text of its own for `_lookalike_texts`
            // (`_text_file_content` reads only binary content). A URL item the model cannot read
            // becomes its note; an uploaded file is no `SendableFile`, and goes to the mapping, as
            // does every other URL item, which refuses what pydantic-ai's refuses.
            file_texts.push((index, None));
            if let Some(unsupported) = unsupported_url_input(&file, profile) {
                notes.push((index, unsupported_file_note(&file, &unsupported)));
            } else {
                files.push((index, file));
            }
            continue;
        };
        let media_type = media_type.as_str();
        let text_like = msgflow_media::is_text_like_media_type(media_type);
        file_texts.push((index, text_like.then(|| String::from_utf8_lossy(data).into_owned())));
        if let Some(unsupported) = unsupported_file_input(media_type, profile) {
            notes.push((index, unsupported_file_note(&file, &unsupported)));
            continue;
        }
        // Every other file goes to the mapping, which refuses what pydantic-ai's does when it maps
        // the result, in the history's order: Anthropic and OpenAI Responses take only images and
        // documents in a tool return, and OpenAI Chat maps a relocated file as a user prompt's
        // (a text file inlined as text). A refusal here would come ahead of a refusal the mapping
        // makes of an earlier message, such as a URL pydantic-ai would download first.
        files.push((index, file));
    }
    // `_lookalike_texts` of the content as loaded (before the notes replace files), when it holds
    // files: each item's text, a file's
    // own text in its place.
    let lookalike_texts = (!file_texts.is_empty()).then(|| {
        let items = match &content {
            Value::Array(items) => items.as_slice(),
            other => std::slice::from_ref(other),
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(index, item)| match file_texts.iter().find(|(at, _)| *at == index) {
                Some((_, text)) => text.clone().map(|text| (text, true)),
                None => Some((json_text(item), false)),
            })
            .collect()
    });
    for (index, note) in notes {
        match &mut content {
            Value::Array(items) => items[index] = Value::String(note),
            other => *other = Value::String(note),
        }
    }
    Ok(ToolFiles {
        content: ToolContent::Read(content),
        files,
        lookalike_texts,
    })
}

/// [`tool_files`] of a typed result's content, validated as its kind's TypedDict: msgflow does not
/// reproduce how that validation treats an object shaped like a file item, and refuses it.
fn typed_tool_files(
    content: Map<String, Value>,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<ToolFiles, ExportError> {
    let content = Value::Object(content);
    if holds_file_item(&content) {
        return Err(ExportError::unsupported(
            at,
            path,
            "a typed tool result holding an object shaped like a file item",
        ));
    }
    tool_files(content, &FileRecord::Unrecorded, at, path, profile)
}

/// A tool result's content as the mapping reads it, its files, and (when it held files) the texts
/// its lookalikes are read in.
struct ToolFiles {
    content: ToolContent,
    files: Vec<(usize, File)>,
    /// Each text, and whether it is a file's.
    lookalike_texts: Option<Vec<(String, bool)>>,
}

/// `unsupported_file_input` for binary content on the three models, whose profiles turn
/// `supports_audio_file_input` and `supports_video_input` off and read the documents of
/// `supported_documents`: what the model cannot read.
fn unsupported_file_input(media_type: &str, profile: Profile) -> Option<String> {
    if msgflow_media::is_image(media_type) {
        None
    } else if msgflow_media::is_audio(media_type) {
        Some("audio files".to_owned())
    } else if msgflow_media::is_video(media_type) {
        Some("video".to_owned())
    } else if msgflow_media::is_document(media_type) && profile.supported_documents.refuses(media_type) {
        Some(format!("{media_type} documents"))
    } else {
        None
    }
}

/// `unsupported_file_input` for a URL item, judged by its class (an `UploadedFile` is no
/// `SendableFile`, and is never judged): images are read, audio and video are not, and a document
/// is not when its media type (`inferred_media_type`, `None` when it cannot be inferred) is a known
/// one the profile leaves out.
fn unsupported_url_input(file: &File, profile: Profile) -> Option<String> {
    let FileKind::Url { kind, media_type, .. } = &file.kind else {
        return None;
    };
    match kind {
        UrlKind::Image => None,
        UrlKind::Audio => Some("audio files".to_owned()),
        UrlKind::Video => Some("video".to_owned()),
        UrlKind::Document => media_type
            .as_deref()
            .filter(|media_type| profile.supported_documents.refuses(media_type))
            .map(|media_type| format!("{media_type} documents")),
    }
}

/// `unsupported_file_note`: `File <identifier> (<media type>, <size> bytes) was not sent: this
/// model cannot read <what>.`, the size with thousands separators (`f'{n:,}'`), given only for
/// binary content; the media type left out when it is empty or, for a URL, cannot be inferred.
fn unsupported_file_note(file: &File, unsupported: &str) -> String {
    let mut details = Vec::new();
    match &file.kind {
        FileKind::Binary { data, media_type } => {
            if !media_type.is_empty() {
                details.push(media_type.clone());
            }
            let digits = data.len().to_string();
            let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
            for (index, digit) in digits.chars().enumerate() {
                if index > 0 && (digits.len() - index) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(digit);
            }
            details.push(format!("{grouped} bytes"));
        }
        FileKind::Url { media_type, .. } | FileKind::Uploaded { media_type, .. } => {
            details.extend(media_type.iter().filter(|media_type| !media_type.is_empty()).cloned());
        }
    }
    let described = if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join(", "))
    };
    format!(
        "File {}{described} was not sent: this model cannot read {unsupported}.",
        file.identifier
    )
}

fn response_item(
    response: &ModelResponse,
    part: &ModelResponsePart,
    at: PartLocation,
    path: &str,
    profile: Profile,
    replay: Replay,
    when_mapped: &mut Vec<ExportError>,
) -> Result<Option<ResponseItem>, ExportError> {
    match part {
        ModelResponsePart::Text(text) => {
            // Of a text's provider details, the mappings read only its `citations` (and OpenAI
            // Responses its `phase`, sent only with `openai_supports_phase`, which gpt-5's profile
            // does not set): the rest (logprobs, annotations, ...) is not sent.
            let citations = text
                .provider_details
                .get()
                .and_then(|details| details.try_to_value().ok())
                .and_then(|mut details| details.get_mut("citations").map(Value::take))
                .unwrap_or(Value::Null);
            let sends_item_id = text.id.get().is_some_and(|id| !id.is_empty())
                && replay.should_send_item_id(response, text.provider_name.get(), profile);
            let replays_citations = match profile.thinking {
                // `_map_text_part`: web search citations of a non-empty text go back when the model
                // takes the response's stateless artifacts, the part's own citations still cover
                // the whole text (`citations_fit_text`), and pydantic-ai can rebuild them
                // (`map_citation_for_replay`); claude-sonnet-4-5 supports web search.
                ThinkingMode::Anthropic => {
                    if !text.content.is_empty()
                        && accepts_stateless_artifact(response, text.provider_name.get(), profile.system)
                        && citations_fit_text(text)
                    {
                        let rebuilt: Vec<_> = citations
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(web_search_citation)
                            .collect();
                        if !rebuilt.is_empty() {
                            return Ok(Some(ResponseItem::CitedText {
                                content: text.content.clone(),
                                citations: rebuilt,
                            }));
                        }
                    }
                    false
                }
                // `_map_response_text_part`: the URL and file citations of a text sent with its item
                // id go back as its annotations (`map_responses_citations_for_replay`).
                // `_map_response_text_part`: rebuilt as the annotations of the text item below.
                ThinkingMode::OpenAiResponses => false,
                // `_map_response_text_part` (Chat): the text alone.
                ThinkingMode::OpenAiChat => false,
            };
            if replays_citations {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.provider_details.citations"),
                    "a text part with citations pydantic-ai replays",
                ));
            }
            // `_map_response_text_part`: a text with an id, from this same provider, goes back in an
            // output message item with that id.
            match text.id.get().filter(|id| !id.is_empty()) {
                Some(id) if sends_item_id => Ok(Some(ResponseItem::ItemText {
                    id: id.clone(),
                    // Citations are only replayed with the message id of the output they came from.
                    annotations: responses_annotations(&citations, &text.content, at, path)?,
                    content: text.content.clone(),
                })),
                _ => Ok(Some(ResponseItem::Text(text.content.clone()))),
            }
        }
        ModelResponsePart::ToolCall(call) => {
            // A call of a typed kind loads as its typed class (`LoadCapabilityCallPart`,
            // `ToolSearchCallPart`): its literal name, object arguments validated as the kind's
            // TypedDict (keys reordered), sent as any other call.
            let refuse_typed = |reason| ExportError::unsupported(at, path, reason);
            let (tool_name, typed_args) =
                match typed::call_route(&call.tool_kind, &call.extra, true).map_err(refuse_typed)? {
                    typed::Route::Typed(kind) => (
                        typed::tool_name(&call.tool_name, call.tool_name_absent, kind.local_tool_name())
                            .map_err(refuse_typed)?
                            .to_owned(),
                        typed::call_args(kind, &call.args).map_err(refuse_typed)?,
                    ),
                    typed::Route::Base => (call.tool_name.clone(), None),
                };
            // Of a call's provider details, OpenAI Chat sends back its `extra_content` (when the
            // model takes the response's stateless artifacts, `_map_response_tool_call_part`) and
            // OpenAI Responses its `namespace` (of OpenAI's own calls, `_map_function_call`);
            // Anthropic sends neither. msgflow refuses those it would send and leaves the rest.
            let details = call
                .provider_details
                .get()
                .and_then(|details| details.try_to_value().ok())
                .unwrap_or(Value::Null);
            // `_map_response_tool_call_part` (Chat): a truthy `extra_content` goes back as the
            // call's own key to a model taking the response's stateless artifacts;
            // `_map_function_call` (Responses): a truthy `namespace` goes back to this same
            // provider (no tools: nothing synthesizes one). Sent as Python holds it once read.
            let detail = |key: &str| details.get(key).filter(|value| truthy(value));
            let sent_detail = match profile.thinking {
                ThinkingMode::Anthropic => None,
                ThinkingMode::OpenAiChat => detail("extra_content")
                    .filter(|_| accepts_stateless_artifact(response, call.provider_name.get(), profile.system)),
                ThinkingMode::OpenAiResponses => {
                    detail("namespace").filter(|_| call.provider_name.get().map(String::as_str) == Some(profile.system))
                }
            }
            .map(|value| redumped(value).unwrap_or_else(|| value.clone()));
            let id = tool_call_id(&call.tool_call_id, at, path)?;
            if id.contains('|') {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.tool_call_id"),
                    "a combined `call_id|id` tool call id",
                ));
            }
            // `_map_function_call`: the item id of a call from this same provider goes back.
            let item_id = call
                .id
                .get()
                .filter(|id| !id.is_empty() && replay.should_send_item_id(response, call.provider_name.get(), profile))
                .cloned();
            let args = match typed_args {
                Some(map) => Some(fitted_args(map, profile)),
                None => tool_args(&call.args, profile),
            };
            Ok(Some(ResponseItem::ToolCall {
                id,
                name: tool_name,
                args: args.ok_or_else(|| {
                    ExportError::unsupported(
                        at,
                        &format!("{path}.args"),
                        "tool arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDKs write differently",
                    )
                })?,
                item_id,
                sent_detail,
            }))
        }
        ModelResponsePart::Thinking(thinking) => thinking_item(response, thinking, at, path, profile, replay),
        ModelResponsePart::BuiltinToolCall(call) => native_tool_part(
            response,
            NativeToolPart::Call(call),
            at,
            path,
            profile,
            replay,
            when_mapped,
        ),
        ModelResponsePart::BuiltinToolReturn(result) => native_tool_part(
            response,
            NativeToolPart::Return(result),
            at,
            path,
            profile,
            replay,
            when_mapped,
        ),
        ModelResponsePart::Compaction(compaction) => compaction_item(response, compaction, at, path, profile),
        // A file the model generated: not sent back by any of the three mappings (`_map_model_response`:
        // `case FilePart(): pass`).
        ModelResponsePart::File(_) => Ok(None),
        // `_convert_speech_parts`: the model's speech is a text part of what the listener heard
        // (`assistant_speech_text`), left out when that is empty.
        ModelResponsePart::Speech(speech) if speech.speaker == Speaker::Assistant => {
            Ok(assistant_speech(response, at.part)
                .filter(|text| !text.is_empty())
                .map(ResponseItem::Text))
        }
        other => Err(ExportError::unsupported(
            at,
            path,
            &format!("a `{}` part", other.tag().unwrap_or_default()),
        )),
    }
}

/// `STANDING_PROMPT_PLANTED_KEY` (messages.py): stamped on a compaction pydantic-ai's own compact
/// call made, whose window held the standing prompt.
const STANDING_PROMPT_PLANTED_KEY: &str = "pydantic_ai_standing_prompt_planted";

/// A response's compaction as the model sends it back, or `None` where it is left out: Anthropic's
/// `_map_compaction_part` sends every one whose stateless artifacts it takes, OpenAI Responses'
/// `_map_response_compaction_part` only one with `encrypted_content` too, OpenAI Chat none. Whether
/// it trims the history before it is `_compaction_part_is_wire_boundary` with the model's
/// `compaction_requires_encrypted_content` (only OpenAI Responses'): encrypted content, or else
/// (Anthropic) a non-empty summary.
fn compaction_item(
    response: &ModelResponse,
    compaction: &msgflow_wire::CompactionPart,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<Option<ResponseItem>, ExportError> {
    if profile.thinking == ThinkingMode::OpenAiChat
        || !accepts_stateless_artifact(response, compaction.provider_name.get(), profile.system)
    {
        return Ok(None);
    }
    let details = match compaction.provider_details.get().map(RawJson::try_to_value) {
        None => Map::new(),
        Some(Ok(Value::Object(details))) => details,
        Some(Ok(details)) if !truthy(&details) => Map::new(),
        _ => {
            return Err(ExportError::unsupported(
                at,
                &format!("{path}.provider_details"),
                "a compaction whose provider details are not an object",
            ))
        }
    };
    // As Python holds each value once read (`redumped`: floats as `float` writes them).
    let read = |key: &str| {
        details
            .get(key)
            .map(|value| redumped(value).unwrap_or_else(|| value.clone()))
    };
    let encrypted_content = read("encrypted_content");
    let content = compaction.content.get().cloned();
    let requires_encrypted_content = profile.thinking == ThinkingMode::OpenAiResponses;
    if requires_encrypted_content && encrypted_content.is_none() {
        return Ok(None);
    }
    let boundary =
        encrypted_content.is_some() || (!requires_encrypted_content && content.as_ref().is_some_and(|c| !c.is_empty()));
    Ok(Some(ResponseItem::Compaction(Compaction {
        id: compaction.id.get().cloned(),
        content,
        encrypted_content,
        signature: read("signature"),
        boundary,
        planted: details.get(STANDING_PROMPT_PLANTED_KEY).is_some_and(truthy),
    })))
}

/// `_STATELESS_NATIVE_TOOL_KINDS` (Anthropic): the server-side tools whose results carry their
/// state inline, sent to any model that takes the response's stateless artifacts.
const STATELESS_NATIVE_TOOLS: &[&str] = &[
    "web_search",
    "web_search_tool_result",
    "web_fetch",
    "tool_search",
    "advisor",
];

/// `Some` for a server-side part of the `tool-search` kind that loads as its typed class
/// (`NativeToolSearchCallPart`, `NativeToolSearchReturnPart`; no typed server-side class exists for
/// `capability-load`, which stays a base part).
fn native_tool_search_kind(
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
) -> Result<Option<typed::TypedKind>, ExportError> {
    let route = match part {
        NativeToolPart::Call(call) => typed::call_route(&call.tool_kind, &call.extra, false)
            .map_err(|reason| ExportError::unsupported(at, path, reason))?,
        NativeToolPart::Return(result) => typed::return_route(&result.tool_kind, &result.outcome, false),
    };
    Ok(match route {
        typed::Route::Typed(kind) => Some(kind),
        typed::Route::Base => None,
    })
}

/// `synthesize_local_tool_search_messages`' `keeps_native`: Anthropic's profile supports
/// `ToolSearchTool`, so a typed tool-search part whose stateless artifacts it takes
/// (`accepts_stateless_artifacts`) keeps its native form; neither OpenAI profile supports it, so
/// every one is translated into its local form (`synthesize_local_from_native_call`/`_return`).
fn keeps_native_tool_search(response: &ModelResponse, part: NativeToolPart<'_>, profile: Profile) -> bool {
    profile.thinking == ThinkingMode::Anthropic
        && accepts_stateless_artifact(response, part.provider_name(), profile.system)
}

/// A typed tool-search part in its checked form: the literal name and the validated arguments
/// (`None`: kept as written) or content.
enum CheckedToolSearch {
    Call(Option<Map<String, Value>>),
    Return(Map<String, Value>),
}

fn checked_tool_search(
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
) -> Result<CheckedToolSearch, ExportError> {
    let refuse = |reason| ExportError::unsupported(at, path, reason);
    let kind = typed::TypedKind::ToolSearch;
    match part {
        NativeToolPart::Call(call) => {
            typed::tool_name(&call.tool_name, call.tool_name_absent, typed::TOOL_SEARCH_NATIVE).map_err(refuse)?;
            Ok(CheckedToolSearch::Call(
                typed::call_args(kind, &call.args).map_err(refuse)?,
            ))
        }
        NativeToolPart::Return(result) => {
            typed::tool_name(&result.tool_name, result.tool_name_absent, typed::TOOL_SEARCH_NATIVE).map_err(refuse)?;
            Ok(CheckedToolSearch::Return(
                typed::return_content(kind, &result.content).map_err(refuse)?,
            ))
        }
    }
}

/// A typed tool-search return the model does not keep native: `synthesize_local_from_native_return`
/// makes it a `ToolSearchReturnPart` (the same content and call id, no provider fields) in a request
/// of its own, between the response's parts before and after it (`_synthesize_local_response`).
/// It is made after the lookalike notes, so its text is not read for lookalikes.
fn translated_tool_search_return(
    response: &ModelResponse,
    part: &ModelResponsePart,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<Option<ToolResult>, ExportError> {
    let ModelResponsePart::BuiltinToolReturn(result) = part else {
        return Ok(None);
    };
    let native = NativeToolPart::Return(result);
    if native_tool_search_kind(native, at, path)?.is_none() || keeps_native_tool_search(response, native, profile) {
        return Ok(None);
    }
    let CheckedToolSearch::Return(content) = checked_tool_search(native, at, path)? else {
        return Ok(None);
    };
    let ToolFiles { content, files, .. } = typed_tool_files(content, at, &format!("{path}.content"), profile)?;
    if !files.is_empty() {
        return Err(ExportError::unsupported(
            at,
            &format!("{path}.content"),
            "a server-side tool search result holding a file item",
        ));
    }
    Ok(Some(ToolResult {
        id: tool_call_id(&result.tool_call_id, at, path)?,
        tool_name: typed::TOOL_SEARCH_FUNCTION.to_owned(),
        content,
        outcome: Outcome::Success,
        files: Vec::new(),
        file_lookalikes: Vec::new(),
    }))
}

/// A typed tool-search call, or a return kept native (see [`translated_tool_search_return`] for
/// the others).
///
/// * Kept native (Anthropic, `_map_native_tool_call_part`, `_map_tool_search_call_input`): a
///   `server_tool_use` named `tool_search_tool_regex` when `provider_details['strategy']` is
///   `regex`, else `tool_search_tool_bm25`, its input `{"query": ...}` (`{"pattern": ...}` for
///   regex) of its string queries joined by a space, or its arguments as they are without
///   `queries`, with its caller; the result as a `tool_search_tool_result`
///   (`build_tool_search_replay_block`): the `error_code` its provider details record, or a search
///   result whose references name only tools the request declares (none without tools).
/// * Translated (`synthesize_local_from_native_call`): a `search_tools` function call with the
///   same arguments and id and no provider fields.
fn native_tool_search_kept(
    response: &ModelResponse,
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<Option<ResponseItem>, ExportError> {
    let checked = checked_tool_search(part, at, path)?;
    let keeps_native = keeps_native_tool_search(response, part, profile);
    let nan = || {
        ExportError::unsupported(
            at,
            &format!("{path}.args"),
            "tool arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDKs write differently",
        )
    };
    let details = || match part {
        NativeToolPart::Call(call) => &call.provider_details,
        NativeToolPart::Return(result) => &result.provider_details,
    };
    let details = details()
        .get()
        .and_then(|details| details.try_to_value().ok())
        .unwrap_or(Value::Null);
    match (checked, part) {
        (CheckedToolSearch::Call(fitted), NativeToolPart::Call(call)) => {
            let id = tool_call_id(&call.tool_call_id, at, path)?;
            if !keeps_native {
                let args = match fitted {
                    Some(map) => Some(fitted_args(map, profile)),
                    None => tool_args(&call.args, profile),
                };
                return Ok(Some(ResponseItem::ToolCall {
                    id,
                    name: typed::TOOL_SEARCH_FUNCTION.to_owned(),
                    args: args.ok_or_else(nan)?,
                    item_id: None,
                    sent_detail: None,
                }));
            }
            let regex = details.get("strategy").and_then(Value::as_str) == Some("regex");
            let args = match fitted {
                Some(map) => map,
                None => args_as_dict(&call.args).ok_or_else(nan)?,
            };
            let input = match args.get("queries") {
                None => args,
                Some(queries) => {
                    let joined = queries
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ");
                    let mut input = Map::new();
                    input.insert(
                        (if regex { "pattern" } else { "query" }).to_owned(),
                        Value::String(joined),
                    );
                    input
                }
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ServerToolUse {
                id,
                name: if regex {
                    "tool_search_tool_regex"
                } else {
                    "tool_search_tool_bm25"
                },
                input: redumped_map(&input).unwrap_or(input),
                caller: part.anthropic_caller(),
            })))
        }
        (CheckedToolSearch::Return(_), NativeToolPart::Return(result)) if keeps_native => {
            let content = match details.get("error_code").filter(|code| !code.is_null()) {
                Some(code) => serde_json::json!({
                    "type": "tool_search_tool_result_error",
                    "error_code": redumped(code).unwrap_or_else(|| code.clone()),
                }),
                None => serde_json::json!({"type": "tool_search_tool_search_result", "tool_references": []}),
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ToolSearchResult {
                tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                content,
            })))
        }
        // A translated return splits the response before `response_item` reads it.
        _ => Ok(None),
    }
}

/// `ToolSearchTool.kind`: the name of a server-side tool search.
const TOOL_SEARCH: &str = "tool_search";

/// `map_responses_citations_for_replay`: the URL citations whose range (in code points) still
/// holds their non-empty URL, and the file citations with a non-empty file id, rebuilt from the
/// text's `provider_details['citations']`; any other is left out. An index written as a boolean,
/// which Python takes for an integer and the SDK writes as a boolean, is refused.
fn responses_annotations(
    citations: &Value,
    content: &str,
    at: PartLocation,
    path: &str,
) -> Result<Vec<crate::openai_responses::Annotation>, ExportError> {
    use crate::openai_responses::Annotation;
    let mut annotations = Vec::new();
    for citation in citations.as_array().into_iter().flatten() {
        let text = |key: &str| citation.get(key).and_then(Value::as_str);
        let kind = text("type");
        if !matches!(kind, Some("url_citation" | "file_citation")) {
            continue;
        }
        let indices: &[&str] = if kind == Some("url_citation") {
            &["start_index", "end_index"]
        } else {
            &["index"]
        };
        if indices
            .iter()
            .any(|key| citation.get(*key).is_some_and(Value::is_boolean))
        {
            return Err(ExportError::unsupported(
                at,
                &format!("{path}.provider_details.citations"),
                "a text part with citations pydantic-ai replays, with an index written as a boolean (Python reads it as an integer)",
            ));
        }
        if kind == Some("url_citation") {
            let (Some(url), Some(title)) = (text("url").filter(|url| !url.is_empty()), text("title")) else {
                continue;
            };
            let index = |key: &str| citation.get(key).and_then(Value::as_i64);
            let (Some(start), Some(end)) = (index("start_index"), index("end_index")) else {
                continue;
            };
            let length = content.chars().count() as i64;
            if !(0 <= start && start <= end && end <= length) {
                continue;
            }
            // `text[start:end]`, in code points.
            let byte = |at: i64| {
                content
                    .char_indices()
                    .nth(at as usize)
                    .map_or(content.len(), |(byte, _)| byte)
            };
            if !content[byte(start)..byte(end)].contains(url) {
                continue;
            }
            annotations.push(Annotation::UrlCitation {
                url: url.to_owned(),
                title: title.to_owned(),
                start_index: start as u64,
                end_index: end as u64,
            });
        } else {
            let (Some(file_id), Some(filename)) = (text("file_id").filter(|id| !id.is_empty()), text("filename"))
            else {
                continue;
            };
            // `isinstance(index, int)`: any integer, which serde_json keeps exactly.
            let Some(index) = citation
                .get("index")
                .and_then(Value::as_number)
                .filter(|number| !number.is_f64())
            else {
                continue;
            };
            annotations.push(Annotation::FileCitation {
                file_id: file_id.to_owned(),
                filename: filename.to_owned(),
                index: index.clone(),
            });
        }
    }
    Ok(annotations)
}

/// `citations_fit_text`: the part has citations, and each is anchored to its whole content
/// (`ContentCitationAnchor(start=0, end=len(content))`, a length in code points).
fn citations_fit_text(text: &msgflow_wire::TextPart) -> bool {
    let Some(citations) = text.citations.get().filter(|citations| !citations.is_empty()) else {
        return false;
    };
    let length = text.content.chars().count() as u64;
    citations.iter().all(|citation| {
        matches!(
            citation.anchor.get(),
            Some(msgflow_wire::CitationAnchor::Content(anchor))
                if anchor.start.to_u64() == Some(0) && anchor.end.to_u64() == Some(length)
        )
    })
}

/// `map_citation_for_replay`: a web search citation Anthropic returned (in the text's
/// `provider_details`), rebuilt from its string fields; `None` for any other citation.
fn web_search_citation(citation: &Value) -> Option<crate::anthropic::WebSearchCitation> {
    if citation.get("type").and_then(Value::as_str) != Some("web_search_result_location") {
        return None;
    }
    let text = |key: &str| citation.get(key).and_then(Value::as_str).map(str::to_owned);
    let title = match citation.get("title") {
        None | Some(Value::Null) => None,
        Some(Value::String(title)) => Some(title.clone()),
        Some(_) => return None,
    };
    Some(crate::anthropic::WebSearchCitation {
        kind: crate::anthropic::WebSearchCitationType::WebSearchResultLocation,
        url: text("url")?,
        title,
        cited_text: text("cited_text")?,
        encrypted_index: text("encrypted_index")?,
    })
}

/// A server-side tool part, call or return.
#[derive(Clone, Copy)]
enum NativeToolPart<'a> {
    Call(&'a NativeToolCallPart),
    Return(&'a NativeToolReturnPart),
}

impl NativeToolPart<'_> {
    /// The refusal of this part for `reason` (``a server-side tool part (`web_search` call) ...``).
    fn refusal(self, at: PartLocation, path: &str, reason: &str) -> ExportError {
        ExportError::unsupported(
            at,
            path,
            &format!("a server-side tool part (`{}` {}) {reason}", self.name(), self.noun()),
        )
    }

    /// pydantic-ai's own failure on the part (it raises when it maps it).
    fn failure(self, at: PartLocation, path: &str, reason: &str) -> ExportError {
        ExportError::refused(
            at,
            path,
            format!("a server-side tool part (`{}` {})", self.name(), self.noun()),
            reason.to_owned(),
        )
    }

    /// What the part is, for a refusal.
    fn noun(self) -> &'static str {
        match self {
            NativeToolPart::Call(_) => "call",
            NativeToolPart::Return(_) => "return",
        }
    }

    fn name(&self) -> &str {
        match self {
            NativeToolPart::Call(call) => &call.tool_name,
            NativeToolPart::Return(result) => &result.tool_name,
        }
    }

    fn provider_name(&self) -> Option<&String> {
        match self {
            NativeToolPart::Call(call) => call.provider_name.get(),
            NativeToolPart::Return(result) => result.provider_name.get(),
        }
    }

    fn tool_call_id(&self) -> &Field<String> {
        match self {
            NativeToolPart::Call(call) => &call.tool_call_id,
            NativeToolPart::Return(result) => &result.tool_call_id,
        }
    }

    /// `add_anthropic_caller_param`: `provider_details['anthropic_caller']`, re-emitted as it is
    /// when it is an object.
    fn anthropic_caller(&self) -> Option<Map<String, Value>> {
        let details = match self {
            NativeToolPart::Call(call) => &call.provider_details,
            NativeToolPart::Return(result) => &result.provider_details,
        };
        match details
            .get()?
            .try_to_value()
            .ok()?
            .get_mut("anthropic_caller")
            .map(Value::take)?
        {
            Value::Object(caller) => Some(redumped_map(&caller).unwrap_or(caller)),
            _ => None,
        }
    }
}

/// `get_anthropic_code_execution_tool_name`: the code execution tool a part is of, by the
/// `anthropic_tool_name` its provider details record, its own name, or (a result's) the `type` of
/// its content.
fn anthropic_code_execution_tool(part: NativeToolPart<'_>, content: Option<&Value>) -> &'static str {
    const TOOLS: [&str; 3] = ["code_execution", "bash_code_execution", "text_editor_code_execution"];
    let details = match part {
        NativeToolPart::Call(call) => &call.provider_details,
        NativeToolPart::Return(result) => &result.provider_details,
    };
    let recorded = details
        .get()
        .and_then(|details| details.try_to_value().ok())
        .and_then(|details| {
            details
                .get("anthropic_tool_name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    if let Some(tool) = recorded.and_then(|name| TOOLS.into_iter().find(|tool| *tool == name)) {
        return tool;
    }
    if let Some(tool) = TOOLS[1..].iter().find(|tool| **tool == part.name()) {
        return tool;
    }
    match content.and_then(|content| content.get("type")).and_then(Value::as_str) {
        Some(kind) if kind.starts_with("bash_code_execution") => "bash_code_execution",
        Some(kind) if kind.starts_with("text_editor_code_execution") => "text_editor_code_execution",
        _ => "code_execution",
    }
}

/// `MCPServerTool.kind`: an MCP server's tool is `mcp_server:<server id>`.
const MCP_SERVER: &str = "mcp_server";

/// A server-side (builtin) tool call or return: left out where the mapping does not replay it,
/// sent back as the provider's block or item where it does ([`anthropic_native_block`],
/// [`openai_builtin_item`]); a typed tool search goes as [`native_tool_search_kept`] says, and a
/// base part named `tool_search` and the corners pydantic-ai fails on are refused.
///
/// * Anthropic (`_replays_native_tool_part`): a stateless tool's part goes back when the model takes
///   the response's stateless artifacts, any other only to Anthropic itself.
/// * OpenAI Chat (`_map_response_builtin_part`): never sent.
/// * OpenAI Responses (`_map_response_native_tool_call_part` and `..._return_part`): a part goes
///   back with its item id when it is OpenAI's own from this endpoint (`should_send_item_id`), and
///   a tool search also to a model taking its stateless artifacts.
fn native_tool_part(
    response: &ModelResponse,
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
    profile: Profile,
    replay: Replay,
    when_mapped: &mut Vec<ExportError>,
) -> Result<Option<ResponseItem>, ExportError> {
    if native_tool_search_kind(part, at, path)?.is_some() {
        return native_tool_search_kept(response, part, at, path, profile);
    }
    let tool_name = part.name();
    let provider_name = part.provider_name();
    let accepts = || accepts_stateless_artifact(response, provider_name, profile.system);
    let replayed = match profile.thinking {
        ThinkingMode::Anthropic => {
            if STATELESS_NATIVE_TOOLS.contains(&tool_name) {
                accepts()
            } else {
                provider_name.map(String::as_str) == Some(profile.system)
            }
        }
        ThinkingMode::OpenAiChat => false,
        ThinkingMode::OpenAiResponses => {
            let own = replay.should_send_item_id(response, provider_name, profile);
            own || (tool_name == TOOL_SEARCH && accepts())
        }
    };
    // A base part named `tool_search` (no typed `tool-search` kind, which `native_tool_search_kept`
    // handles): `_synthesize_local_response` leaves it alone and the mappings send it by its name,
    // which msgflow does not rebuild.
    if tool_name == TOOL_SEARCH {
        return Err(ExportError::unsupported(
            at,
            path,
            &format!("a server-side tool part (`{tool_name}`) pydantic-ai sends back to this provider"),
        ));
    }
    if !replayed {
        return Ok(None);
    }
    let mapped = match profile.thinking {
        ThinkingMode::Anthropic => anthropic_native_block(part, at, path),
        ThinkingMode::OpenAiResponses => openai_builtin_item(part, at, path),
        ThinkingMode::OpenAiChat => Err(ExportError::unsupported(
            at,
            path,
            &format!("a server-side tool part (`{tool_name}`) pydantic-ai sends back to this provider"),
        )),
    };
    // pydantic-ai fails on such a part in the mapping (`_map_native_tool_call_part`,
    // `_map_response_native_tool_call_part`, ...), which a part the trim before a compaction
    // drops never reaches: the refusal waits for the trim ([`PreparedHistory`]'s caller).
    mapped.or_else(|refusal| {
        when_mapped.push(refusal);
        Ok(None)
    })
}

/// `_map_stateful_native_tool_call` and the `should_send_item_id` branch of
/// `_map_response_native_tool_return_part` (OpenAI Responses), for OpenAI's own part from this
/// endpoint, with the default settings (`store` not disabled, so an image generation call goes back).
fn openai_builtin_item(
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
) -> Result<Option<ResponseItem>, ExportError> {
    let tool_name = part.name();
    let refuse = |reason: &str| Err(part.refusal(at, path, reason));
    let call = match part {
        NativeToolPart::Return(result) => {
            let tool = match tool_name {
                "code_execution" => BuiltinTool::CodeExecution,
                "web_search" => BuiltinTool::WebSearch,
                "file_search" => BuiltinTool::FileSearch,
                // An image generation or MCP result, or any other, sends nothing.
                _ => return Ok(None),
            };
            let Ok(content) = result.content.try_to_value() else {
                return refuse("whose content serde_json cannot read");
            };
            let status = content.get("status").filter(|status| truthy(status)).cloned();
            return Ok(status.map(|status| {
                ResponseItem::Builtin(BuiltinItem::Status {
                    tool,
                    status: redumped(&status).unwrap_or(status),
                })
            }));
        }
        NativeToolPart::Call(call) => call,
    };
    let mcp_server = tool_name.strip_prefix(MCP_SERVER);
    let known = matches!(
        tool_name,
        "code_execution" | "web_search" | "file_search" | "image_generation"
    );
    if !known && mcp_server.is_none() {
        return Ok(None);
    }
    // Every branch needs the call's id (`item.tool_call_id and ...`): an empty one sends nothing,
    // a missing one is a random id pydantic-ai makes up.
    if call.tool_call_id.get().is_some_and(String::is_empty) {
        return Ok(None);
    }
    let tool_call_id = tool_call_id(&call.tool_call_id, at, path)?;
    if mcp_server.is_some_and(|rest| !rest.contains(':')) {
        // `item.tool_name.split(':', 1)[1]`, read before the arguments, raises an `IndexError`.
        return Err(part.failure(
            at,
            path,
            "it is named `mcp_server` without a server id, and `tool_name.split(':', 1)[1]` raises an `IndexError`",
        ));
    }
    // `item.id or item.tool_call_id`.
    let item_id = || {
        call.id
            .get()
            .filter(|id| !id.is_empty())
            .cloned()
            .unwrap_or_else(|| tool_call_id.clone())
    };
    let Some(mut args) = args_as_dict(&call.args) else {
        return refuse("with arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDK writes differently");
    };
    let python = |value: Value| redumped(&value).unwrap_or(value);
    let item = match tool_name {
        "image_generation" => BuiltinItem::ImageGenerationCall { id: tool_call_id },
        // The other branches need arguments (`and (args := item.args_as_dict())`).
        _ if args.is_empty() => return Ok(None),
        "code_execution" => {
            let Some(container_id) = args.remove("container_id").filter(truthy) else {
                return Ok(None);
            };
            BuiltinItem::CodeInterpreterCall {
                id: tool_call_id,
                code: python(args.remove("code").unwrap_or(Value::Null)),
                container_id: python(container_id),
            }
        }
        "web_search" => BuiltinItem::WebSearchCall {
            id: item_id(),
            action: args
                .into_iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key, python(value)))
                .collect(),
        },
        "file_search" => BuiltinItem::FileSearchCall {
            id: item_id(),
            queries: python(args.remove("queries").unwrap_or_else(|| Value::Array(Vec::new()))),
        },
        _ => {
            // Refused above without the colon.
            let Some((_, server_label)) = mcp_server.and_then(|rest| rest.split_once(':')) else {
                return Ok(None);
            };
            if server_label.is_empty() {
                return Ok(None);
            }
            let server_label = server_label.to_owned();
            match args.get("action") {
                Some(Value::String(action)) if action == "list_tools" => BuiltinItem::McpListTools {
                    id: tool_call_id,
                    server_label,
                },
                Some(Value::String(action)) if action == "call_tool" => {
                    let name = match args.remove("tool_name") {
                        Some(Value::String(name)) if !name.is_empty() => name,
                        Some(value) if truthy(&value) => return refuse("whose `tool_name` argument is not a string"),
                        _ => return Ok(None),
                    };
                    let tool_args = match args.remove("tool_args") {
                        None | Some(Value::Null) => return Ok(None),
                        Some(value) => python(value),
                    };
                    BuiltinItem::McpCall {
                        id: tool_call_id,
                        server_label,
                        name,
                        arguments: serde_json::to_string(&tool_args).expect("a serde_json::Value always serialises"),
                    }
                }
                _ => return Ok(None),
            }
        }
    };
    Ok(Some(ResponseItem::Builtin(item)))
}

/// `_map_native_tool_call_part` and `_map_native_tool_return_part` (Anthropic), for a part
/// `_replays_native_tool_part` sends back, without native tools in the request (so no advisor).
fn anthropic_native_block(
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
) -> Result<Option<ResponseItem>, ExportError> {
    let tool_name = part.name();
    let refuse = |reason: &str| Err(part.refusal(at, path, reason));
    let mcp_server = tool_name.strip_prefix(MCP_SERVER);
    match part {
        NativeToolPart::Call(call) => {
            let input = || {
                args_as_dict(&call.args).ok_or_else(|| {
                    ExportError::unsupported(
                        at,
                        &format!("{path}.args"),
                        "tool arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDKs write differently",
                    )
                })
            };
            let name = match tool_name {
                "web_search" => "web_search",
                "web_fetch" => "web_fetch",
                "code_execution" | "bash_code_execution" | "text_editor_code_execution" => {
                    anthropic_code_execution_tool(part, None)
                }
                // `if not map_context.advisor_active: return`: no advisor tool in the request.
                "advisor" => return Ok(None),
                _ => {
                    if mcp_server.is_some_and(|rest| !rest.contains(':')) {
                        // `part.tool_name.split(':', 1)[1]` raises an `IndexError`.
                        return Err(part.failure(
            at,
            path,
            "it is named `mcp_server` without a server id, and `tool_name.split(':', 1)[1]` raises an `IndexError`",
        ));
                    }
                    let server_id = mcp_server.and_then(|rest| rest.split_once(':')).map(|(_, id)| id);
                    // The `mcp_tool_use` block of a call whose arguments name the server's tool
                    // (`tool_name`) and hold its arguments (`tool_args`); any other call sends nothing.
                    let Some(server_name) = server_id.filter(|id| !id.is_empty()) else {
                        return Ok(None);
                    };
                    let mut args = input()?;
                    let name = match args.remove("tool_name") {
                        Some(Value::String(name)) if !name.is_empty() => name,
                        Some(value) if truthy(&value) => {
                            return refuse("whose `tool_name` argument is not a string");
                        }
                        _ => return Ok(None),
                    };
                    let tool_args = match args.remove("tool_args") {
                        None | Some(Value::Null) => return Ok(None),
                        Some(value) => redumped(&value).unwrap_or(value),
                    };
                    return Ok(Some(ResponseItem::Native(NativeBlock::McpToolUse {
                        id: tool_call_id(&call.tool_call_id, at, path)?,
                        server_name: server_name.to_owned(),
                        name,
                        input: tool_args,
                    })));
                }
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ServerToolUse {
                id: tool_call_id(part.tool_call_id(), at, path)?,
                name,
                input: input()?,
                caller: part.anthropic_caller(),
            })))
        }
        NativeToolPart::Return(result) => {
            let content = match result.content.try_to_value() {
                Ok(content) => redumped(&content).unwrap_or(content),
                Err(_) => return refuse("whose content serde_json cannot read"),
            };
            // An object with a file `kind` may load as a file item (`_RecordsContentFiles`), which
            // the SDK would then write as its own type, not as recorded.
            if holds_file_item(&content) {
                return refuse("holding an object with a file `kind`, which pydantic-ai may load as a file");
            }
            let kind = match tool_name {
                "web_search" | "web_search_tool_result" if content.is_object() || content.is_array() => {
                    NativeResultKind::WebSearch
                }
                "web_fetch" if content.is_object() => NativeResultKind::WebFetch,
                // `build_code_execution_tool_result_block`: the block of the tool variant, no caller.
                "code_execution"
                | "code_execution_tool_result"
                | "bash_code_execution"
                | "text_editor_code_execution"
                    if content.is_object() || content.is_array() =>
                {
                    let kind = match anthropic_code_execution_tool(part, Some(&content)) {
                        "bash_code_execution" => NativeResultKind::BashCodeExecution,
                        "text_editor_code_execution" => NativeResultKind::TextEditorCodeExecution,
                        _ => NativeResultKind::CodeExecution,
                    };
                    return Ok(Some(ResponseItem::Native(NativeBlock::ToolResult {
                        kind,
                        tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                        content,
                        caller: None,
                    })));
                }
                _ => {
                    // `part.tool_name.startswith(MCPServerTool.kind) and isinstance(part.content, dict)`.
                    let Some(mut mcp_content) = mcp_server.and_then(|_| content.as_object().cloned()) else {
                        // Any other result, and one whose content is not of its block's shape,
                        // sends nothing.
                        return Ok(None);
                    };
                    // `mcp_content['content']` and `['is_error']`: a `KeyError` without them.
                    let (Some(content), Some(is_error)) =
                        (mcp_content.remove("content"), mcp_content.remove("is_error"))
                    else {
                        return Err(part.failure(
                            at,
                            path,
                            "it lacks the `content` and `is_error` pydantic-ai reads, and its mapping fails",
                        ));
                    };
                    return Ok(Some(ResponseItem::Native(NativeBlock::McpToolResult {
                        tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                        content,
                        is_error,
                    })));
                }
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ToolResult {
                kind,
                tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                content,
                caller: part.anthropic_caller(),
            })))
        }
    }
}

/// What a response's parts may replay of the provider's server-side state (OpenAI Responses'
/// item ids, `_map_model_response`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Replay {
    /// `same_endpoint`: the response is from another provider (or none), or its server state is
    /// this model's to look up (`accepts_server_state`). Only read where the profile
    /// `replays_own_items`.
    same_endpoint: bool,
    replays_own_items: bool,
}

impl Replay {
    fn of(response: &ModelResponse, message_index: usize, profile: Profile) -> Result<Self, ExportError> {
        let same_endpoint = !profile.replays_own_items
            || response.provider_name.get().map(String::as_str) != Some(profile.system)
            || accepts_server_state(response, message_index)?;
        Ok(Replay {
            same_endpoint,
            replays_own_items: profile.replays_own_items,
        })
    }

    /// `should_send_item_id`: `openai_send_reasoning_ids` (on for `gpt-5`) and
    /// `from_same_provider`, a part of this provider's (or without a name, in a response of this
    /// provider's) from the same endpoint.
    fn should_send_item_id(self, response: &ModelResponse, part_provider: Option<&String>, profile: Profile) -> bool {
        let system = Some(profile.system);
        self.replays_own_items
            && self.same_endpoint
            && (part_provider.map(String::as_str) == system
                || (part_provider.is_none() && response.provider_name.get().map(String::as_str) == system))
    }
}

/// `Model.accepts_server_state` for a response with this model's `provider_name`: a response
/// without a `provider_url` is judged by its name; one with a URL, by
/// `OpenAIProvider.shares_server_state_with`: the URL equals the default base URL
/// `https://api.openai.com/v1/` once normalised (`_normalized_url`: lowercase scheme and host,
/// an explicit default port, no trailing `/`). msgflow reads a plain `scheme://host[:port]/path`
/// URL; any other (user info, brackets, a fragment, spaces, a query) is refused.
fn accepts_server_state(response: &ModelResponse, message_index: usize) -> Result<bool, ExportError> {
    let Some(url) = response.provider_url.get() else {
        return Ok(true);
    };
    let refuse = || {
        ExportError::unsupported(
            PartLocation {
                message: message_index,
                part: 0,
            },
            &format!("$[{message_index}].provider_url"),
            "a response from this provider at a `provider_url` msgflow does not compare with the API's (pydantic-ai replays item ids only to the endpoint that made them)",
        )
    };
    if url
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '@' | '[' | ']' | '#' | '?' | '\\' | '%'))
        || !url.is_ascii()
    {
        return Err(refuse());
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(refuse());
    };
    let (netloc, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let scheme = scheme.to_ascii_lowercase();
    let (host, port) = match netloc.split_once(':') {
        // A plain decimal port (no sign, no leading zero) that fits: what `urlsplit` reads as is.
        Some((host, port)) => match port.parse::<u16>() {
            Ok(number) if number > 0 && port == number.to_string() => (host, Some(number)),
            _ => return Err(refuse()),
        },
        None => (netloc, None),
    };
    let port = port.or(match scheme.as_str() {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    });
    let normalized = match port {
        Some(port) => format!(
            "{scheme}://{}:{port}{}",
            host.to_ascii_lowercase(),
            path.trim_end_matches('/')
        ),
        None => format!("{scheme}://{}{}", host.to_ascii_lowercase(), path.trim_end_matches('/')),
    };
    Ok(normalized == "https://api.openai.com:443/v1")
}

/// A thinking part as the model sends it back (`None`: left out).
fn thinking_item(
    response: &ModelResponse,
    thinking: &ThinkingPart,
    at: PartLocation,
    path: &str,
    profile: Profile,
    replay: Replay,
) -> Result<Option<ResponseItem>, ExportError> {
    let content = &thinking.content;
    let signature = signature(thinking);
    let provider_name = thinking.provider_name.get();
    let id = thinking.id.get().filter(|id| !id.is_empty());
    let accepted = || accepts_stateless_artifact(response, provider_name, profile.system);
    let item = match profile.thinking {
        // `AnthropicModel._map_thinking_part`: a non-empty signature the model accepts goes back as
        // its own block; other reasoning with content is carried in a user turn as an
        // `<assistant_thinking>` frame (`render_replayed_thinking`); empty reasoning is left out.
        ThinkingMode::Anthropic => match signature {
            Some(signature) if accepted() => Thinking::Signed {
                content: content.clone(),
                signature: signature.clone(),
                // `REDACTED_THINKING_PART_IDS` (_thinking_part.py).
                redacted: matches!(id.map(String::as_str), Some("redacted_thinking" | "redacted_content")),
            },
            _ if content.is_empty() => return Ok(None),
            _ if profile.carries_foreign_thinking => Thinking::Carried(framing::assistant_thinking_frame(content)),
            _ => {
                let (start, end) = ANTHROPIC_THINKING_TAGS;
                Thinking::Tagged(format!("{start}\n{content}\n{end}"))
            }
        },
        // `_map_response_thinking_part` with `'auto'`: reasoning from a field of this same provider
        // (`_auto_thinking_field`: an id other than `content`) goes back in that field, the rest
        // as tagged text of the assistant message (`_map_response_thinking_as_text`).
        // `_map_response_thinking_part`: where the part goes depends on the send-back mode
        // (`openai_chat::ChatThinking`); the mapping decides, given the field `'auto'` would use
        // (`_auto_thinking_field`: an id other than `content`, from this same provider).
        ThinkingMode::OpenAiChat => Thinking::Chat {
            content: content.clone(),
            auto_field: chat_auto_field(thinking, profile).cloned(),
        },
        ThinkingMode::OpenAiResponses => {
            // `raw_content` from this provider (gpt-oss raw chain of thought) goes back as the
            // reasoning item's `content`, which msgflow does not reproduce.
            let raw_content = provider_name.map(String::as_str) == Some(profile.system)
                && thinking
                    .provider_details
                    .get()
                    .and_then(|details| details.try_to_value().ok())
                    .is_some_and(|details| details.get("raw_content").is_some_and(truthy));
            if raw_content {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.provider_details"),
                    "a thinking part with raw chain-of-thought content (`provider_details.raw_content`)",
                ));
            }
            // `synthetic_chat_reasoning`: Chat Completions' field names are no reasoning item ids
            // unless the part carries native data.
            let synthetic = matches!(
                thinking.id.get().map(String::as_str),
                Some("content" | "reasoning" | "reasoning_content")
            );
            let native_reasoning = !synthetic || signature.is_some();
            // `openai_supports_encrypted_reasoning_content` and `accepts_stateless_artifacts`.
            let encrypted_content = signature.filter(|_| accepted()).cloned();
            let should_send_item_id = replay.should_send_item_id(response, provider_name, profile);
            match id {
                Some(id) if native_reasoning && (should_send_item_id || encrypted_content.is_some()) => {
                    Thinking::Reasoning {
                        id: id.clone(),
                        encrypted_content,
                        content: content.clone(),
                    }
                }
                // `render_replayed_thinking`: an empty part carried would tell the model the
                // assistant thought nothing, and is left out.
                _ if profile.carries_foreign_thinking && content.is_empty() => return Ok(None),
                _ if profile.carries_foreign_thinking => Thinking::Carried(framing::assistant_thinking_frame(content)),
                _ => Thinking::Tagged(tagged_thinking(content)),
            }
        }
    };
    Ok(Some(ResponseItem::Thinking(item)))
}

/// A tool part's id as sent. pydantic-ai gives a part without one (absent, or empty when mapped:
/// `guard_tool_call_id`) a random `pyd_ai_...` id of its own, so no two such parts share one; the
/// export gives it `msgflow_call_<message>_<part>`, the id `repair` gives a call without one,
/// unique to the part and the same on every run.
fn tool_call_id(id: &Field<String>, at: PartLocation, _path: &str) -> Result<String, ExportError> {
    match id.get() {
        Some(id) if !id.is_empty() => Ok(id.clone()),
        _ => Ok(format!("msgflow_call_{}_{}", at.message, at.part)),
    }
}

/// A call's arguments as the profile's mapping sends them: the object of `args_as_dict`, or its
/// text (`args_as_json_str`). Arguments already in the form pydantic-ai dumps them in are that
/// text as written: read and written again, they would come out the same.
fn tool_args(args: &Field<RawJson>, profile: Profile) -> Option<ToolArgs> {
    if !profile.args_as_text {
        return args_as_dict(args).map(ToolArgs::Object);
    }
    match args.get() {
        Some(raw) if raw.is_object() && dumped::is_dumped_form(raw.get()) => Some(ToolArgs::Text(raw.get().to_owned())),
        _ => args_as_dict(args).map(|map| ToolArgs::Text(object_text(&map))),
    }
}

/// Validated typed arguments as the profile's mapping sends them (an object, or its JSON text).
fn fitted_args(map: Map<String, Value>, profile: Profile) -> ToolArgs {
    if profile.args_as_text {
        ToolArgs::Text(object_text(&map))
    } else {
        ToolArgs::Object(map)
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

impl ToolArgs {
    /// The arguments as an object.
    pub(crate) fn into_object(self) -> Map<String, Value> {
        match self {
            ToolArgs::Object(map) => map,
            // The text of an object: it reads back as one.
            ToolArgs::Text(text) => serde_json::from_str(&text).unwrap_or_default(),
        }
    }

    /// The arguments as compact JSON text.
    pub(crate) fn into_text(self) -> String {
        match self {
            ToolArgs::Object(map) => object_text(&map),
            ToolArgs::Text(text) => text,
        }
    }

    /// [`ToolArgs::into_text`] of arguments that stay where they are.
    pub(crate) fn to_text(&self) -> String {
        match self {
            ToolArgs::Object(map) => object_text(map),
            ToolArgs::Text(text) => text.clone(),
        }
    }
}

/// `BaseToolCallPart.args_as_dict` (messages.py): no args or empty args are `{}`, an object is
/// itself, a JSON string is parsed, and anything that is not a JSON object becomes
/// `{"INVALID_JSON": <raw args>}`. `None` for an object holding `NaN` or `Infinity` (as written or
/// as their JSON string): pydantic-core reads them as floats, which each SDK then writes its own
/// way, while serde_json reads neither. Looked for only where serde_json failed, so valid
/// arguments are not scanned again.
pub(crate) fn args_as_dict(args: &Field<RawJson>) -> Option<Map<String, Value>> {
    let Some(raw) = args.get() else { return Some(Map::new()) };
    let invalid = |text: String| {
        // Only an object is read as arguments; anything else is invalid in pydantic-ai too.
        if text.trim_start().starts_with('{') && msgflow_wire::has_non_finite_literal(&text) {
            return None;
        }
        let mut map = Map::new();
        map.insert("INVALID_JSON".to_owned(), Value::String(text));
        Some(map)
    };
    match raw.try_to_value() {
        Ok(Value::Object(map)) => Some(map),
        Ok(Value::String(text)) => {
            if text.is_empty() {
                return Some(Map::new());
            }
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => Some(map),
                _ => invalid(text),
            }
        }
        // `not self.args`: `null`, `[]`, `0`, `false` are all empty.
        Ok(Value::Null) => Some(Map::new()),
        Ok(Value::Array(items)) if items.is_empty() => Some(Map::new()),
        Ok(other) => invalid(other.to_string()),
        Err(_) => invalid(raw.get().to_owned()),
    }
}

/// The JSON text of an object (what [`json_text`] gives for it as a `Value`).
pub(crate) fn object_text(map: &Map<String, Value>) -> String {
    let text = match redumped_map(map) {
        Some(redumped) => serde_json::to_string(&redumped),
        None => serde_json::to_string(map),
    };
    text.expect("a serde_json::Map always serialises")
}

/// `_tool_return_text`: a non-string value's compact JSON text (pydantic-core's `to_json`, which
/// serde_json 1.0.154 matches), of the value as Python read it ([`redumped`]).
pub(crate) fn json_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => match redumped(other) {
            Some(redumped) => serde_json::to_string(&redumped),
            None => serde_json::to_string(other),
        }
        .expect("a serde_json::Value always serialises"),
    }
}

/// `value` as Python holds it once read, where that differs from how it is written (msgflow
/// keeps numbers as written; pydantic-ai re-dumps what it read): an integer `-0` is `0`, a float
/// is its shortest round-trip form (`1.50` is `1.5`, `1e2` is `100.0`: serde_json formats floats
/// as pydantic-core does), and one out of range is `null` (`ser_json_inf_nan='null'`). `None`
/// when nothing differs, which is nearly always: the value is then written as it is.
fn redumped(value: &Value) -> Option<Value> {
    match value {
        Value::Number(number) => {
            let text = number.to_string();
            if !text.contains(['.', 'e', 'E']) {
                return (text == "-0").then(|| Value::from(0));
            }
            let float: f64 = text.parse().ok()?;
            if !float.is_finite() {
                return Some(Value::Null);
            }
            let python = serde_json::to_string(&float).ok()?;
            (python != text).then(|| Value::from(float))
        }
        Value::Array(items) => {
            let changed: Vec<Option<Value>> = items.iter().map(redumped).collect();
            changed.iter().any(Option::is_some).then(|| {
                Value::Array(
                    items
                        .iter()
                        .zip(changed)
                        .map(|(item, changed)| changed.unwrap_or_else(|| item.clone()))
                        .collect(),
                )
            })
        }
        Value::Object(map) => redumped_map(map).map(Value::Object),
        _ => None,
    }
}

/// [`redumped`] of an object's values.
fn redumped_map(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    let changed: Vec<Option<Value>> = map.values().map(redumped).collect();
    changed.iter().any(Option::is_some).then(|| {
        map.iter()
            .zip(changed)
            .map(|((key, value), changed)| (key.clone(), changed.unwrap_or_else(|| value.clone())))
            .collect()
    })
}

/// `content_items(mode='str', wrap_if_error=...)`: the items Anthropic sends as a `tool_result`'s
/// blocks (`wrap_if_error=False`) and OpenAI Responses as a `function_call_output`'s list.
pub(crate) fn content_items(result: &ToolResult, wrap_if_error: bool) -> Vec<ToolItem<'_>> {
    if wrap_if_error && result.outcome.is_error() {
        // The wrapped error, then the files.
        let mut items = vec![ToolItem::Text(model_response_str(result, true))];
        items.extend(result.files.iter().map(|(_, file)| ToolItem::File(file)));
        return items;
    }
    if result.files.is_empty() {
        return content_items_unwrapped(result)
            .into_iter()
            .map(ToolItem::Text)
            .collect();
    }
    // `_serialize_content_items`: files as they are, other items as their text.
    let content = result.content.value();
    let items = match &*content {
        Value::Array(items) => items.as_slice(),
        other => std::slice::from_ref(other),
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match result.files.iter().find(|(at, _)| *at == index) {
            Some((_, file)) => ToolItem::File(file),
            None => ToolItem::Text(json_text(item)),
        })
        .collect()
}

/// What [`into_plain_texts`] and [`into_response_str`] make of a tool result: its rendering,
/// moved out of it, or the result itself, back, for the rendering that reads it in place.
pub(crate) enum Taken<T> {
    Moved(T),
    Kept(ToolResult),
}

/// [`content_items`] (`wrap_if_error=False`) of a result without files whose texts can be moved
/// out of it (a string result, the common one, is not copied); the result comes back for
/// [`content_items`] when it holds files or is a retry's one JSON array.
pub(crate) fn into_plain_texts(result: ToolResult) -> Taken<Vec<String>> {
    let retry_array = result.outcome == Outcome::Retried && result.content.is_array();
    if !result.files.is_empty() || retry_array {
        return Taken::Kept(result);
    }
    Taken::Moved(match result.content {
        ToolContent::Read(Value::Array(items)) => items.into_iter().map(into_json_text).collect(),
        ToolContent::Read(other) => vec![into_json_text(other)],
        ToolContent::Dumped(text) if text.starts_with('[') => dumped_item_texts(&text),
        ToolContent::Dumped(text) => vec![text],
    })
}

/// [`json_text`] of a value given up: a string is moved, not copied.
fn into_json_text(value: Value) -> String {
    match value {
        Value::String(text) => text,
        other => json_text(&other),
    }
}

/// [`model_response_str`] (`wrap_if_error=True`) of a result without files that is no error,
/// moved out of it (a string result is not copied); the result comes back otherwise.
pub(crate) fn into_response_str(result: ToolResult) -> Taken<String> {
    if !result.files.is_empty() || result.outcome.is_error() {
        return Taken::Kept(result);
    }
    Taken::Moved(match result.content {
        // `_unwrap_data`: an empty list is no data.
        ToolContent::Read(Value::Null) => String::new(),
        ToolContent::Read(Value::Array(items)) if items.is_empty() => String::new(),
        ToolContent::Read(other) => into_json_text(other),
        // An object or a list of items: its JSON text.
        ToolContent::Dumped(text) => text,
    })
}

/// `content_items(mode='str', wrap_if_error=False)` of a result without files.
fn content_items_unwrapped(result: &ToolResult) -> Vec<String> {
    // A retry's validation errors are one JSON array the model is shown whole.
    if result.outcome == Outcome::Retried && result.content.is_array() {
        return vec![model_response_str(result, false)];
    }
    result.content.item_texts()
}

/// `model_response_str(wrap_if_error=...)`: the one text OpenAI sends for a tool result.
pub(crate) fn model_response_str(result: &ToolResult, wrap_if_error: bool) -> String {
    let value = &unwrap_data(result);
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

/// `model_response_str_and_user_content`'s text (for a result with files): each file referred to
/// as `See file <identifier>.`, the texts as they are, a list content as a JSON array of them, a
/// failure as `[{"error": ...}, "See file ...", ...]`.
pub(crate) fn tool_text_with_file_references(result: &ToolResult) -> String {
    let reference = |file: &File| format!("See file {}.", file.identifier);
    if result.outcome.is_error() {
        let mut wrapped = Map::new();
        let value = unwrap_data(result);
        let response = model_response_str(result, false);
        // `_error_value`: a retry's structured data goes in as it is, anything else as its text.
        let error = if result.outcome == Outcome::Retried && !value.is_null() && !value.is_string() {
            value
        } else {
            Value::String(response)
        };
        wrapped.insert("error".to_owned(), error);
        let mut items = vec![Value::Object(wrapped)];
        items.extend(result.files.iter().map(|(_, file)| Value::String(reference(file))));
        return json_text(&Value::Array(items));
    }
    let texts: Vec<Value> = content_items(result, false)
        .into_iter()
        .map(|item| match item {
            ToolItem::Text(text) => Value::String(text),
            ToolItem::File(file) => Value::String(reference(file)),
        })
        .collect();
    match (&*result.content.value(), texts.as_slice()) {
        (Value::Array(_), _) => json_text(&Value::Array(texts)),
        (_, [Value::String(text)]) => text.clone(),
        _ => json_text(&Value::Array(texts)),
    }
}

/// `_unwrap_data`: the content without its files; no data is `null`, and a single item is unwrapped
/// when the content was not a list or when files were taken out of it.
fn unwrap_data(result: &ToolResult) -> Value {
    let content = result.content.value();
    if result.files.is_empty() {
        return match content.into_owned() {
            Value::Array(items) if items.is_empty() => Value::Null,
            content => content,
        };
    }
    let Value::Array(items) = &*content else {
        // The content is the file itself.
        return Value::Null;
    };
    let mut data: Vec<Value> = items
        .iter()
        .enumerate()
        .filter(|(index, _)| !result.files.iter().any(|(at, _)| at == index))
        .map(|(_, item)| item.clone())
        .collect();
    match data.len() {
        0 => Value::Null,
        1 => data.remove(0),
        _ => Value::Array(data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_output_text_has_the_numbers_python_redumps() {
        let value: Value = serde_json::from_str(
            r#"{"z":-0,"f":1.50,"e":1e2,"big":18446744073709551616,"nz":-0.0,"inf":1e400,"s":"-0"}"#,
        )
        .unwrap();
        assert_eq!(
            json_text(&value),
            r#"{"z":0,"f":1.5,"e":100.0,"big":18446744073709551616,"nz":-0.0,"inf":null,"s":"-0"}"#
        );
        // Already as Python writes it: left as it is.
        let plain: Value = serde_json::from_str(r#"[1,2.5,"x",{"a":null}]"#).unwrap();
        assert!(redumped(&plain).is_none());
    }
}
