//! The provider boundary: the request pydantic-ai 2.68.0 would send for a history, each provider's
//! rules for conversation structure, and repair that satisfies them.
//!
//! * [`anthropic::export`], [`openai_chat::export`], [`openai_responses::export`] (or [`export`]
//!   with a [`Provider`]): the request messages pydantic-ai's `AnthropicModel`
//!   (`claude-sonnet-4-5`), `OpenAIChatModel` (`gpt-4o`) and `OpenAIResponsesModel` (`gpt-5`)
//!   build for a history (`prepare_messages` and the model's message mapping, default settings,
//!   no tools), as typed serde structs that serialise to the provider's JSON.
//! * [`check`]: the provider's documented rules ([`rules`]), evaluated on that request and
//!   reported at the history's message and part.
//! * [`repair`]: pydantic-ai's repair (`msgflow_sanitize::repair`), then the provider fixes.
//!
//! ```
//! use msgflow_providers::{check, export, Provider};
//! let json = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}],"kind":"request"},{"parts":[{"content":"hello ","part_kind":"text"}],"kind":"response"}]"#;
//! let history = msgflow_wire::from_str(json)?;
//! let request = export(&history, Provider::Anthropic)?;
//! assert_eq!(request["messages"][1]["content"][0]["text"], "hello ");
//! // Anthropic rejects a final assistant turn ending in whitespace.
//! let violations = check(&history, Provider::Anthropic)?;
//! assert_eq!(violations[0].rule.id, "anthropic/final-assistant-trailing-whitespace");
//! assert_eq!((violations[0].message, violations[0].part), (1, Some(0)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod anthropic;
mod difflib;
mod dumped;
mod framing;
mod gemini;
mod instructions;
mod media;
pub mod openai_chat;
pub mod openai_responses;
mod prepare;
mod repair;
pub mod rules;
mod tool_content;
mod typed;

use std::fmt;
use std::str::FromStr;

use msgflow_wire::ModelMessage;
use serde::Serialize;

pub use instructions::instruction_delta_rendered;
pub use prepare::InventedIds;
pub use prepare::{dumped_error_details, python_json, python_value, retry_feedback_model_response};
pub use repair::{repair, ProviderChange, ProviderChangeKind, ProviderRepair, Unfixed};
pub use rules::{check, check_with, Rule, Violation};

/// A position in the history: message index and part index, as `msgflow check` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PartLocation {
    /// Index of the message in the history.
    pub message: usize,
    /// Index of the part in that message.
    pub part: usize,
}

/// Where each message (and each block in it) of an exported request came from in the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// The history part the provider message starts with.
    pub start: PartLocation,
    /// One entry per content block (Anthropic `content`, OpenAI Chat `tool_calls`), in order;
    /// empty for messages made of a single item.
    pub blocks: Vec<PartLocation>,
}

/// An exported request with the history location of each of its messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exported<R> {
    /// The request, as the provider's API takes it.
    pub request: R,
    /// `origins[i]` is where `request`'s message `i` came from.
    pub origins: Vec<Origin>,
}

/// The providers msgflow knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Anthropic Messages API (`AnthropicModel`, `claude-sonnet-4-5`).
    Anthropic,
    /// OpenAI Chat Completions (`OpenAIChatModel`, `gpt-4o`).
    OpenAiChat,
    /// OpenAI Responses (`OpenAIResponsesModel`, `gpt-5`).
    OpenAiResponses,
    /// Google Gemini (`generateContent`): rules only, on the history's turns; no export.
    Gemini,
}

impl Provider {
    /// Every provider, in the order the CLI lists them.
    pub const ALL: [Provider; 4] = [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
    ];

    /// The providers [`export`] supports.
    pub const EXPORTABLE: [Provider; 3] = [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses];

    /// The name used on the command line and in reports (`anthropic`, `openai-chat`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Gemini => "gemini",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.name() == name)
            .ok_or_else(|| {
                let known: Vec<_> = Provider::ALL.iter().map(|provider| provider.name()).collect();
                format!("unknown provider `{name}`: expected one of {}", known.join(", "))
            })
    }
}

/// Why a history cannot be exported.
///
/// Three cases, which call for different things of the user: msgflow's own limit
/// ([`Unsupported`](ExportError::Unsupported)), pydantic-ai's own refusal
/// ([`Refused`](ExportError::Refused): it would not send the history either), and a file
/// pydantic-ai would fetch first ([`NeedsDownload`](ExportError::NeedsDownload): msgflow never
/// downloads).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The history holds something msgflow's export does not reproduce exactly (pydantic-ai may
    /// well send it): msgflow refuses rather than send a request pydantic-ai would not.
    #[error("message {message}, part {part}: at {path}: msgflow cannot export {what} to {provider} yet")]
    Unsupported {
        /// The provider asked for (filled in by the export entry points).
        provider: &'static str,
        /// Index of the message.
        message: usize,
        /// Index of the part.
        part: usize,
        /// The JSON path of the value.
        path: String,
        /// What it is.
        what: String,
    },
    /// pydantic-ai's mapping for this provider raises on the history (content the provider cannot
    /// take, an uploaded file from another provider's store, ...): it sends nothing, and msgflow
    /// refuses too.
    #[error("message {message}, part {part}: at {path}: pydantic-ai refuses to send {what} to {provider}: {reason}")]
    Refused {
        /// The provider asked for (filled in by the export entry points).
        provider: &'static str,
        /// Index of the message.
        message: usize,
        /// Index of the part.
        part: usize,
        /// The JSON path of the value.
        path: String,
        /// What it is, as pydantic-ai names it (`VideoUrl`, `BinaryContent image/png`, ...).
        what: String,
        /// Why, quoting pydantic-ai's error where it raises one.
        reason: String,
    },
    /// pydantic-ai would download a URL before sending it (`download_item`: the provider takes
    /// the file's data, or `force_download` asks for it); msgflow never downloads.
    #[error(
        "message {message}, part {part}: at {path}: pydantic-ai would download {what} before sending it to \
         {provider} ({why}), and msgflow never downloads: send the bytes as binary content"
    )]
    NeedsDownload {
        /// The provider asked for (filled in by the export entry points).
        provider: &'static str,
        /// Index of the message.
        message: usize,
        /// Index of the part.
        part: usize,
        /// The JSON path of the URL item.
        path: String,
        /// The item, as pydantic-ai names it (`DocumentUrl `https://...``).
        what: String,
        /// Why pydantic-ai downloads it.
        why: String,
    },
    /// The provider has no export (Gemini: rules only).
    #[error("msgflow has no export to {0}; `check --provider {0}` checks its rules")]
    NoExport(&'static str),
}

impl ExportError {
    pub(crate) fn unsupported(at: PartLocation, path: &str, what: &str) -> Self {
        ExportError::Unsupported {
            provider: "",
            message: at.message,
            part: at.part,
            path: path.to_owned(),
            what: what.to_owned(),
        }
    }

    /// A part or user content item of a kind pydantic-ai 2.68.0 does not have: it does not load
    /// the history, so it sends nothing.
    pub(crate) fn unknown_kind(at: PartLocation, path: &str, what: String) -> Self {
        let reason = "pydantic-ai 2.68.0 does not load a history holding it (an unknown kind)".to_owned();
        ExportError::refused(at, path, what, reason)
    }

    pub(crate) fn refused(at: PartLocation, path: &str, what: String, reason: String) -> Self {
        ExportError::Refused {
            provider: "",
            message: at.message,
            part: at.part,
            path: path.to_owned(),
            what,
            reason,
        }
    }

    pub(crate) fn needs_download(at: PartLocation, path: &str, what: String, why: &str) -> Self {
        ExportError::NeedsDownload {
            provider: "",
            message: at.message,
            part: at.part,
            path: path.to_owned(),
            what,
            why: why.to_owned(),
        }
    }

    fn for_provider(mut self, provider: Provider) -> Self {
        match &mut self {
            ExportError::Unsupported { provider: slot, .. }
            | ExportError::Refused { provider: slot, .. }
            | ExportError::NeedsDownload { provider: slot, .. } => *slot = provider.name(),
            ExportError::NoExport(_) => {}
        }
        self
    }

    /// The JSON path in the history of the value the error is about, if any (within the part
    /// [`location`](Self::location) names).
    pub fn path(&self) -> Option<&str> {
        match self {
            ExportError::Unsupported { path, .. }
            | ExportError::Refused { path, .. }
            | ExportError::NeedsDownload { path, .. } => Some(path),
            ExportError::NoExport(_) => None,
        }
    }

    /// The error without where it is (for a caller that reports [`path`](Self::path) itself).
    ///
    /// ```
    /// use msgflow_providers::{openai_chat, ExportError};
    /// let history = msgflow_wire::from_str(
    ///     r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt",
    ///          "content": [{"kind": "video-url", "url": "https://example.com/a.mp4"}]}]}]"#,
    /// )?;
    /// let err = openai_chat::export(&history).unwrap_err();
    /// assert_eq!(err.path(), Some("$[0].parts[0].content[0]"));
    /// assert!(err.reason().starts_with("pydantic-ai refuses to send VideoUrl"), "{}", err.reason());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reason(&self) -> String {
        let text = self.to_string();
        match (self.location(), self.path()) {
            (Some(at), Some(path)) => {
                let prefix = format!("message {}, part {}: at {path}: ", at.message, at.part);
                text.strip_prefix(&prefix).map_or_else(|| text.clone(), str::to_owned)
            }
            _ => text,
        }
    }

    /// The history location the error is about, if any.
    pub fn location(&self) -> Option<PartLocation> {
        match self {
            ExportError::Unsupported { message, part, .. }
            | ExportError::Refused { message, part, .. }
            | ExportError::NeedsDownload { message, part, .. } => Some(PartLocation {
                message: *message,
                part: *part,
            }),
            ExportError::NoExport(_) => None,
        }
    }
}

/// The model profile's settings, where they differ from the default profile of each provider's
/// model and change the request: what `msgflow export` and `check --provider` take as options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportOptions {
    /// How OpenAI Chat sends thinking back (`openai_chat_send_back_thinking_parts`).
    pub openai_chat_thinking: openai_chat::ChatThinking,
    /// Where Anthropic puts reasoning it cannot send back as the model's own thinking block
    /// (`mimics_assistant_message_formatting`; `claude-sonnet-4-5`: a user turn).
    pub anthropic_thinking: ReplayedThinking,
    /// Where OpenAI Chat and Responses put reasoning they write out as text
    /// (`mimics_assistant_message_formatting`; `gpt-4o` and `gpt-5`: the assistant turn).
    pub openai_thinking: ReplayedThinking,
}

impl Default for ExportOptions {
    /// The default profiles: `claude-sonnet-4-5`, `gpt-4o`, `gpt-5`.
    fn default() -> Self {
        ExportOptions {
            openai_chat_thinking: openai_chat::ChatThinking::default(),
            anthropic_thinking: ReplayedThinking::UserTurn,
            openai_thinking: ReplayedThinking::AssistantTurn,
        }
    }
}

/// Where a mapping puts reasoning it cannot send back as the model's own (unsigned, from another
/// provider, or written out as text by the profile's choice): the profile's
/// `mimics_assistant_message_formatting` (`render_replayed_thinking`). `claude-sonnet-4-5` sets it;
/// `gpt-4o` and `gpt-5` do not.
///
/// ```
/// use msgflow_providers::ReplayedThinking;
/// assert_eq!("assistant-turn".parse(), Ok(ReplayedThinking::AssistantTurn));
/// assert_eq!("user-turn".parse(), Ok(ReplayedThinking::UserTurn));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayedThinking {
    /// `mimics_assistant_message_formatting=True`: an `<assistant_thinking>` frame in a user turn
    /// ahead of the assistant turn, with a note for a lookalike in it.
    UserTurn,
    /// `mimics_assistant_message_formatting=False`: the reasoning in the profile's thinking tags, as
    /// text of the assistant turn it was produced in.
    AssistantTurn,
}

impl std::str::FromStr for ReplayedThinking {
    type Err = String;

    /// `user-turn` or `assistant-turn`, as `msgflow export --anthropic-thinking` and
    /// `--openai-thinking` spell them.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "user-turn" => Ok(ReplayedThinking::UserTurn),
            "assistant-turn" => Ok(ReplayedThinking::AssistantTurn),
            other => Err(format!("`{other}` is not `user-turn` or `assistant-turn`")),
        }
    }
}

/// The request for `provider` as a JSON value (what `msgflow export --to` prints).
///
/// Gemini has rules but no export: it returns [`ExportError::NoExport`].
pub fn export(history: &[ModelMessage], provider: Provider) -> Result<serde_json::Value, ExportError> {
    export_with(history, provider, &ExportOptions::default())
}

/// [`export`] with a profile's settings other than the defaults.
pub fn export_with(
    history: &[ModelMessage],
    provider: Provider,
    options: &ExportOptions,
) -> Result<serde_json::Value, ExportError> {
    fn to_value<R: Serialize>(request: &R) -> serde_json::Value {
        serde_json::to_value(request).expect("the request types always serialise")
    }
    match provider {
        Provider::Anthropic => {
            anthropic::export_with(history, options.anthropic_thinking).map(|exported| to_value(&exported.request))
        }
        Provider::OpenAiChat => {
            openai_chat::export_with(history, &options.openai_chat_thinking, options.openai_thinking)
                .map(|exported| to_value(&exported.request))
        }
        Provider::OpenAiResponses => {
            openai_responses::export_with(history, options.openai_thinking).map(|exported| to_value(&exported.request))
        }
        Provider::Gemini => Err(ExportError::NoExport("gemini")),
    }
}
