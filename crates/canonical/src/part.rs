//! Canonical parts: what a message says, independent of its pydantic-ai spelling.

use std::sync::Arc;

use msgflow_wire as w;
use msgflow_wire::{RawJson, Timestamp};
use schemars::JsonSchema;
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::origin::{
    parse_raw, peek_string, PartSide, RetryFeedbackOrigin, ToolCallOrigin, ToolReturnOrigin, WirePart,
};

/// Schema of a `wire` key: the original pydantic-ai object, exactly as read.
fn wire_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The pydantic-ai object this value was read from, exactly as written (see the pydantic-ai message schema). It supplies every field the canonical keys do not model; the canonical keys win where both exist. Absent for values built in code.",
        "type": "object"
    })
}

/// Schema of a value kept as raw JSON.
fn any_json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "description": "Any JSON value, kept exactly as written." })
}

/// Schema of an optional timestamp.
fn timestamp_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "An RFC 3339 datetime as pydantic-ai writes it (e.g. \"2025-01-02T03:04:05.678901Z\"), or null.",
        "type": ["string", "number", "null"]
    })
}

/// Schema of user prompt content.
fn user_content_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "A string, or an array of pydantic-ai user content items (strings and objects tagged by `kind`: text-content, image-url, binary, ...), exactly as on the wire.",
        "type": ["string", "array"]
    })
}

/// Visible model output (`text` part).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TextPart {
    /// The text.
    pub content: String,
    /// The wire part this came from.
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<w::TextPart>>,
}

/// Model reasoning (`thinking` part; tunacode dropped these).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThoughtPart {
    /// The reasoning text (may be empty when a provider only sends a signature).
    pub content: String,
    /// The wire part this came from (keeps signatures and provider details).
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<w::ThinkingPart>>,
}

/// A system prompt (`system-prompt` part).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SystemPromptPart {
    /// The prompt text.
    pub content: String,
    /// When the prompt was written; see the crate docs for the default of parts built in code.
    #[serde(default)]
    #[schemars(schema_with = "timestamp_schema")]
    pub timestamp: Option<Timestamp>,
    /// The wire part this came from.
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<w::SystemPromptPart>>,
}

/// A user prompt (`user-prompt` part): a string or multimodal items, kept as wire items.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UserPromptPart {
    /// The prompt: a string or a list of wire `UserContent` items (text, images, files, ...).
    #[schemars(schema_with = "user_content_schema")]
    pub content: w::UserPromptContent,
    /// When the prompt was written; see the crate docs for the default of parts built in code.
    #[serde(default)]
    #[schemars(schema_with = "timestamp_schema")]
    pub timestamp: Option<Timestamp>,
    /// The wire part this came from.
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<w::UserPromptPart>>,
}

/// A tool call made by the model (`tool-call`, or `builtin-tool-call` when `builtin`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCallPart {
    /// The `tool_call_id` (empty when the wire part had none; pydantic-ai would invent one on load).
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments as written: a JSON object, a JSON string holding (possibly invalid) JSON, or none.
    #[serde(default)]
    #[schemars(schema_with = "any_json_schema")]
    pub args: Option<RawJson>,
    /// `true` for a tool the model provider runs itself (`builtin-tool-call`).
    #[serde(default)]
    pub builtin: bool,
    /// The wire part this came from.
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<ToolCallOrigin>>,
}

/// The answer to a tool call, whatever its wire form: `tool-return` (any outcome),
/// `builtin-tool-return` (when `builtin`), or a legacy `retry-prompt` with a tool name (outcome `retried`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolReturnPart {
    /// The `tool_call_id` of the call this answers (empty when the wire part had none).
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The tool output as written (any JSON; null allowed).
    #[schemars(schema_with = "any_json_schema")]
    pub content: RawJson,
    /// How the call ended (`success` when the wire part does not say).
    #[schemars(with = "String")]
    pub outcome: w::ToolReturnOutcome,
    /// `true` for the return of a provider-run tool (`builtin-tool-return`, inside a response).
    #[serde(default)]
    pub builtin: bool,
    /// When the return was produced; see the crate docs for the default of parts built in code.
    #[serde(default)]
    #[schemars(schema_with = "timestamp_schema")]
    pub timestamp: Option<Timestamp>,
    /// The wire part this came from.
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<ToolReturnOrigin>>,
}

/// Feedback asking the model to try again, not tied to a tool call (`retry-feedback`, or a legacy
/// `retry-prompt` without a tool name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RetryFeedbackPart {
    /// The feedback: a string or a list of validation error details, as written.
    #[schemars(schema_with = "any_json_schema")]
    pub content: RawJson,
    /// Why the retry was requested (`None` for a legacy `retry-prompt`, which has no cause; parts
    /// built in code without a cause are written with `model_retry`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub cause: Option<w::RetryCause>,
    /// When the feedback was produced; see the crate docs for the default of parts built in code.
    #[serde(default)]
    #[schemars(schema_with = "timestamp_schema")]
    pub timestamp: Option<Timestamp>,
    /// The wire part this came from.
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<RetryFeedbackOrigin>>,
}

/// A file produced by the model (`file` part).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FilePart {
    /// The file: base64 data, media type and identifier, as a wire `BinaryContent` object.
    #[schemars(schema_with = "wire_schema")]
    pub content: w::BinaryContent,
    /// The wire part this came from.
    #[serde(rename = "wire", default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "wire_schema")]
    pub origin: Option<Arc<w::FilePart>>,
}

/// Any other wire part (deltas, compaction, speech, unknown kinds, ...), kept whole.
///
/// JSON form: `{"type": "other", "side": "request", "part_kind": "compaction", "wire": {...}}`
/// (`part_kind` is informative; `side` and `wire` are read back).
#[derive(Clone, Debug, PartialEq)]
pub struct OtherPart {
    wire: Arc<WirePart>,
}

impl OtherPart {
    /// Wraps a wire part.
    pub fn new(wire: WirePart) -> Self {
        Self { wire: Arc::new(wire) }
    }

    /// The wire part.
    pub fn wire(&self) -> &WirePart {
        &self.wire
    }

    /// The message kind the part belongs in.
    pub fn side(&self) -> PartSide {
        self.wire.side()
    }
}

impl Serialize for OtherPart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("side", &self.side())?;
        map.serialize_entry("part_kind", &self.wire.part_kind())?;
        map.serialize_entry("wire", &*self.wire)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for OtherPart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Repr<'a> {
            side: PartSide,
            #[serde(borrow)]
            wire: &'a RawValue,
        }
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let repr: Repr<'_> = parse_raw(&raw)?;
        let wire = match repr.side {
            PartSide::Request => WirePart::Request(parse_raw(repr.wire)?),
            PartSide::Response => WirePart::Response(parse_raw(repr.wire)?),
        };
        Ok(Self::new(wire))
    }
}

impl JsonSchema for OtherPart {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OtherPart".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A wire part the canonical model does not interpret, kept whole.",
            "type": "object",
            "properties": {
                "side": { "enum": ["request", "response"], "description": "The message kind the part belongs in." },
                "part_kind": { "type": ["string", "null"], "description": "The wire part's part_kind (informative)." },
                "wire": { "type": "object", "description": "The pydantic-ai part, exactly as written." }
            },
            "required": ["side", "wire"]
        })
    }
}

/// One part of a [`CanonicalMessage`](crate::CanonicalMessage).
///
/// Every part read from the wire keeps its wire object as `origin` (JSON key `wire`); the
/// canonical fields are what msgflow interprets, and they win over the origin on conversion back.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CanonicalPart {
    /// Visible model output.
    Text(TextPart),
    /// Model reasoning.
    Thought(ThoughtPart),
    /// A system prompt.
    SystemPrompt(SystemPromptPart),
    /// A user prompt.
    UserPrompt(UserPromptPart),
    /// A tool call.
    ToolCall(ToolCallPart),
    /// The answer to a tool call.
    ToolReturn(ToolReturnPart),
    /// Retry feedback not tied to a tool call.
    RetryFeedback(RetryFeedbackPart),
    /// A model-produced file.
    File(FilePart),
    /// Any other wire part, kept whole.
    Other(OtherPart),
}

impl<'de> Deserialize<'de> for CanonicalPart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Parts hold raw JSON (tool arguments, wire objects), which serde's buffered
        // internally-tagged enums cannot carry: read the object's text, then dispatch on `type`.
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        match peek_string(&raw, "type").as_deref() {
            Some("text") => parse_raw(&raw).map(Self::Text),
            Some("thought") => parse_raw(&raw).map(Self::Thought),
            Some("system_prompt") => parse_raw(&raw).map(Self::SystemPrompt),
            Some("user_prompt") => parse_raw(&raw).map(Self::UserPrompt),
            Some("tool_call") => parse_raw(&raw).map(Self::ToolCall),
            Some("tool_return") => parse_raw(&raw).map(Self::ToolReturn),
            Some("retry_feedback") => parse_raw(&raw).map(Self::RetryFeedback),
            Some("file") => parse_raw(&raw).map(Self::File),
            Some("other") => parse_raw(&raw).map(Self::Other),
            Some(other) => Err(D::Error::custom(format_args!(
                "unknown canonical part type {other:?}: expected one of text, thought, system_prompt, user_prompt, tool_call, tool_return, retry_feedback, file, other"
            ))),
            None => Err(D::Error::custom("a canonical part needs a string `type`")),
        }
    }
}

impl CanonicalPart {
    /// Visible text built in code.
    pub fn text(content: impl Into<String>) -> Self {
        Self::Text(TextPart {
            content: content.into(),
            origin: None,
        })
    }

    /// Model reasoning built in code.
    pub fn thought(content: impl Into<String>) -> Self {
        Self::Thought(ThoughtPart {
            content: content.into(),
            origin: None,
        })
    }

    /// A system prompt built in code (no timestamp: see the crate docs).
    pub fn system_prompt(content: impl Into<String>) -> Self {
        Self::SystemPrompt(SystemPromptPart {
            content: content.into(),
            timestamp: None,
            origin: None,
        })
    }

    /// A plain-text user prompt built in code (no timestamp: see the crate docs).
    pub fn user_prompt(content: impl Into<String>) -> Self {
        Self::user_prompt_content(w::UserPromptContent::Text(content.into()))
    }

    /// A user prompt of multimodal items built in code.
    pub fn user_prompt_items(items: Vec<w::UserContent>) -> Self {
        Self::user_prompt_content(w::UserPromptContent::Items(items))
    }

    fn user_prompt_content(content: w::UserPromptContent) -> Self {
        Self::UserPrompt(UserPromptPart {
            content,
            timestamp: None,
            origin: None,
        })
    }

    /// A function tool call built in code. `args` is any JSON value: an object, or a string
    /// holding JSON text (kept as a string on the wire).
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, args: RawJson) -> Self {
        Self::ToolCall(ToolCallPart {
            id: id.into(),
            name: name.into(),
            args: Some(args),
            builtin: false,
            origin: None,
        })
    }

    /// A function tool return built in code.
    pub fn tool_return(
        id: impl Into<String>,
        name: impl Into<String>,
        content: RawJson,
        outcome: w::ToolReturnOutcome,
    ) -> Self {
        Self::ToolReturn(ToolReturnPart {
            id: id.into(),
            name: name.into(),
            content,
            outcome,
            builtin: false,
            timestamp: None,
            origin: None,
        })
    }

    /// Retry feedback built in code.
    pub fn retry_feedback(content: RawJson, cause: w::RetryCause) -> Self {
        Self::RetryFeedback(RetryFeedbackPart {
            content,
            cause: Some(cause),
            timestamp: None,
            origin: None,
        })
    }

    /// A model-produced file built in code.
    pub fn file(content: w::BinaryContent) -> Self {
        Self::File(FilePart { content, origin: None })
    }

    /// The same part with `timestamp` set (parts without a timestamp field are returned unchanged).
    #[must_use]
    pub fn with_timestamp(mut self, timestamp: Timestamp) -> Self {
        match &mut self {
            Self::SystemPrompt(part) => part.timestamp = Some(timestamp),
            Self::UserPrompt(part) => part.timestamp = Some(timestamp),
            Self::ToolReturn(part) => part.timestamp = Some(timestamp),
            Self::RetryFeedback(part) => part.timestamp = Some(timestamp),
            Self::Text(_) | Self::Thought(_) | Self::ToolCall(_) | Self::File(_) | Self::Other(_) => {}
        }
        self
    }

    /// The canonical type name as in the JSON form (`"text"`, `"tool_call"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::Thought(_) => "thought",
            Self::SystemPrompt(_) => "system_prompt",
            Self::UserPrompt(_) => "user_prompt",
            Self::ToolCall(_) => "tool_call",
            Self::ToolReturn(_) => "tool_return",
            Self::RetryFeedback(_) => "retry_feedback",
            Self::File(_) => "file",
            Self::Other(_) => "other",
        }
    }

    /// The message kind this part must live in.
    pub fn side(&self) -> PartSide {
        match self {
            Self::Text(_) | Self::Thought(_) | Self::ToolCall(_) | Self::File(_) => PartSide::Response,
            Self::SystemPrompt(_) | Self::UserPrompt(_) | Self::RetryFeedback(_) => PartSide::Request,
            Self::ToolReturn(part) if part.builtin => PartSide::Response,
            Self::ToolReturn(_) => PartSide::Request,
            Self::Other(part) => part.side(),
        }
    }

    /// The call id, for tool calls.
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Self::ToolCall(part) => Some(&part.id),
            _ => None,
        }
    }

    /// The id of the call this answers, for tool returns.
    pub fn tool_return_id(&self) -> Option<&str> {
        match self {
            Self::ToolReturn(part) => Some(&part.id),
            _ => None,
        }
    }
}
