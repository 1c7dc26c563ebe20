//! Canonical messages.

use std::sync::Arc;

use msgflow_wire as w;
use msgflow_wire::Timestamp;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::origin::PartSide;
use crate::part::CanonicalPart;

/// Who a message is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    /// A request that is not only tool returns or only system prompts.
    User,
    /// A model response.
    Assistant,
    /// A request holding only system prompts.
    System,
    /// A request holding only tool returns.
    Tool,
}

impl MessageRole {
    /// The wire message kind for this role: `response` for assistant, `request` otherwise.
    pub fn side(self) -> PartSide {
        match self {
            Self::Assistant => PartSide::Response,
            Self::User | Self::System | Self::Tool => PartSide::Request,
        }
    }

    /// The lowercase name (`"user"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::System => "system",
            Self::Tool => "tool",
        }
    }
}

impl std::fmt::Display for MessageRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message: a role and its parts, immutable once built.
///
/// The parts are the only source of truth (tool calls and returns are parts; nothing is stored
/// twice). They live in an `Arc<[CanonicalPart]>`, so `clone` is cheap and messages can be shared
/// across threads. A message read from the wire also keeps its message-level wire fields
/// (`origin`, the wire message with its `parts` emptied: usage, model name, provider details,
/// run id, unknown keys, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct CanonicalMessage {
    role: MessageRole,
    parts: Arc<[CanonicalPart]>,
    timestamp: Option<Timestamp>,
    origin: Option<Arc<w::ModelMessage>>,
}

impl CanonicalMessage {
    /// A message built in code (no timestamp, no origin).
    pub fn new(role: MessageRole, parts: impl Into<Arc<[CanonicalPart]>>) -> Self {
        Self {
            role,
            parts: parts.into(),
            timestamp: None,
            origin: None,
        }
    }

    /// The same message with its timestamp set (the wire message's `timestamp`).
    #[must_use]
    pub fn with_timestamp(mut self, timestamp: Option<Timestamp>) -> Self {
        self.timestamp = timestamp;
        self
    }

    /// The same message with its message-level wire fields set. The origin's own `parts` are
    /// ignored on conversion (the canonical parts replace them); store it with `parts` empty.
    #[must_use]
    pub fn with_origin(mut self, origin: Option<Arc<w::ModelMessage>>) -> Self {
        self.origin = origin;
        self
    }

    /// The same message with other parts (role, timestamp and origin kept).
    #[must_use]
    pub fn with_parts(mut self, parts: impl Into<Arc<[CanonicalPart]>>) -> Self {
        self.parts = parts.into();
        self
    }

    /// Who the message is from.
    pub fn role(&self) -> MessageRole {
        self.role
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[CanonicalPart] {
        &self.parts
    }

    /// The shared part list (cloning it is cheap).
    pub fn shared_parts(&self) -> Arc<[CanonicalPart]> {
        Arc::clone(&self.parts)
    }

    /// The message timestamp (`timestamp` of the wire message), if any.
    pub fn timestamp(&self) -> Option<&Timestamp> {
        self.timestamp.as_ref()
    }

    /// The wire message this came from, with its parts emptied.
    pub fn origin(&self) -> Option<&w::ModelMessage> {
        self.origin.as_deref()
    }

    /// The shared origin.
    pub fn shared_origin(&self) -> Option<Arc<w::ModelMessage>> {
        self.origin.clone()
    }

    /// The contents of the text and thought parts, joined with one space.
    ///
    /// This is the seed document's `get_text_content` (tunacode's original behaviour): prompts,
    /// tool output and every other part are **not** included, and a thought counts like text.
    /// An empty text part still contributes its (empty) segment, so `["a", "", "b"]` gives
    /// `"a  b"`.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        let mut first = true;
        for part in self.parts.iter() {
            let content = match part {
                CanonicalPart::Text(text) => &text.content,
                CanonicalPart::Thought(thought) => &thought.content,
                _ => continue,
            };
            if !first {
                out.push(' ');
            }
            first = false;
            out.push_str(content);
        }
        out
    }

    /// The ids of the tool calls (function and builtin) in part order, duplicates kept.
    pub fn tool_call_ids(&self) -> Vec<&str> {
        self.parts.iter().filter_map(CanonicalPart::tool_call_id).collect()
    }

    /// The ids answered by tool returns in part order, duplicates kept: `tool-return` (any
    /// outcome), `builtin-tool-return` and legacy `retry-prompt` parts with a tool name.
    pub fn tool_return_ids(&self) -> Vec<&str> {
        self.parts.iter().filter_map(CanonicalPart::tool_return_id).collect()
    }
}

/// The JSON form of a message (borrowed, for writing).
#[derive(Serialize)]
struct MessageOut<'a> {
    role: MessageRole,
    timestamp: Option<&'a Timestamp>,
    parts: &'a [CanonicalPart],
    #[serde(skip_serializing_if = "Option::is_none")]
    wire: Option<&'a w::ModelMessage>,
}

/// The JSON form of a message (owned, for reading and for the schema).
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "CanonicalMessage")]
struct MessageIn {
    /// Who the message is from.
    role: MessageRole,
    /// The wire message's `timestamp` (RFC 3339 text), or null.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    timestamp: Option<Timestamp>,
    /// The parts, in order.
    parts: Vec<CanonicalPart>,
    /// The pydantic-ai message this was read from, with `parts` empty: every message-level field
    /// (usage, model name, provider details, run id, unknown keys, ...). Absent for messages built in code.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    wire: Option<w::ModelMessage>,
}

impl Serialize for CanonicalMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        MessageOut {
            role: self.role,
            timestamp: self.timestamp.as_ref(),
            parts: &self.parts,
            wire: self.origin.as_deref(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CanonicalMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let repr = MessageIn::deserialize(deserializer)?;
        Ok(Self {
            role: repr.role,
            parts: repr.parts.into(),
            timestamp: repr.timestamp,
            origin: repr.wire.map(Arc::new),
        })
    }
}

impl JsonSchema for CanonicalMessage {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CanonicalMessage".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        MessageIn::json_schema(generator)
    }
}
