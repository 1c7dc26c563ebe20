//! msgflow's canonical message model.
//!
//! A pydantic-ai history says the same thing in many spellings (`tool-return` or legacy
//! `retry-prompt`, `builtin-tool-*`, string or object tool arguments, ...). The canonical model
//! gives each message a [`MessageRole`] and each part one of a few meanings ([`CanonicalPart`]):
//! text, thought, system prompt, user prompt, tool call, tool return, retry feedback, file, or
//! "other" for everything msgflow does not interpret. `msgflow-adapter` converts both ways.
//!
//! Unlike tunacode's canonical layer, nothing is lost:
//!
//! * **Origins.** Every part read from the wire keeps its wire object (`origin`, JSON key `wire`),
//!   and every message its message-level wire fields (usage, model and provider fields, run id,
//!   unknown keys). Converting back starts from the origin and writes the canonical fields over
//!   it, so an untouched message comes back byte for byte, and an edited one keeps everything
//!   that was not edited.
//! * **Nothing is filtered.** Thinking, builtin tool parts, files, deltas, speech, compaction and
//!   unknown part kinds all survive (as [`CanonicalPart::Other`] when not interpreted).
//! * **Values as written.** Tool arguments, tool output and retry feedback are kept as raw JSON
//!   ([`RawJson`](msgflow_wire::RawJson)), multimodal prompts as wire `UserContent` items.
//! * **Immutable and cheap to share.** [`CanonicalMessage`] has private fields; its parts are an
//!   `Arc<[CanonicalPart]>`.
//!
//! # Parts built in code
//!
//! Parts without an origin are converted to valid pydantic-ai 2.68.0 parts: tool calls and
//! returns need a non-empty id; a part timestamp that is `None` is written as the message's
//! timestamp, or [`DEFAULT_TIMESTAMP`] when the message has none (pydantic-ai would otherwise
//! fill in the load time, which makes output unreproducible); a response without a timestamp gets
//! [`DEFAULT_TIMESTAMP`] too, a request keeps `null` (its pydantic-ai default).
//!
//! # JSON form
//!
//! ```
//! use msgflow_canonical::{from_json_slice, to_json_vec, CanonicalMessage, CanonicalPart, MessageRole};
//! use msgflow_wire::RawJson;
//!
//! let call = CanonicalPart::tool_call("c1", "bash", RawJson::from_json_text(r#"{"cmd":"ls"}"#)?);
//! let message = CanonicalMessage::new(MessageRole::Assistant, vec![CanonicalPart::thought("list files"), call]);
//! let json = to_json_vec(std::slice::from_ref(&message))?;
//! assert_eq!(
//!     String::from_utf8(json.clone())?,
//!     r#"[{"role":"assistant","timestamp":null,"parts":[{"type":"thought","content":"list files"},{"type":"tool_call","id":"c1","name":"bash","args":{"cmd":"ls"},"builtin":false}]}]"#
//! );
//! assert_eq!(from_json_slice(&json)?, vec![message.clone()]);
//! assert_eq!(message.text_content(), "list files");
//! assert_eq!(message.tool_call_ids(), ["c1"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A message read from the wire additionally carries `"wire"` keys: on each part the original
//! pydantic-ai part, on the message the original message with `"parts":[]`. Canonical keys win
//! over `wire` when they differ, so the JSON can be edited by hand. [`canonical_schema`] gives the
//! JSON Schema (`msgflow schema canonical`).

#![warn(missing_docs)]

mod message;
mod origin;
mod part;

pub use message::{CanonicalMessage, MessageRole};
pub use origin::{PartSide, RetryFeedbackOrigin, ToolCallOrigin, ToolReturnOrigin, WirePart};
pub use part::{
    CanonicalPart, FilePart, OtherPart, RetryFeedbackPart, SystemPromptPart, TextPart, ThoughtPart, ToolCallPart,
    ToolReturnPart, UserPromptPart,
};

use msgflow_wire::{Timestamp, TimestampParts};

/// The timestamp written for parts and responses built in code without one:
/// `1970-01-01T00:00:00Z`. Deterministic on purpose; set real times with `with_timestamp`.
pub const DEFAULT_TIMESTAMP: &str = "1970-01-01T00:00:00Z";

/// [`DEFAULT_TIMESTAMP`] as a [`Timestamp`].
pub fn default_timestamp() -> Timestamp {
    Timestamp::from_parts(TimestampParts {
        year: 1970,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        microsecond: 0,
        offset_minutes: Some(0),
    })
}

/// Reading or writing the canonical JSON form failed.
#[derive(Debug, thiserror::Error)]
pub enum CanonicalError {
    /// The input is not canonical JSON (or could not be written).
    #[error("canonical JSON (line {line}, column {column}): {source}")]
    Json {
        /// 1-based line of the error (0 when writing).
        line: usize,
        /// 1-based column of the error (0 when writing).
        column: usize,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
}

impl From<serde_json::Error> for CanonicalError {
    fn from(source: serde_json::Error) -> Self {
        Self::Json {
            line: source.line(),
            column: source.column(),
            source,
        }
    }
}

/// Writes messages as canonical JSON (compact; an array of messages).
pub fn to_json_vec(messages: &[CanonicalMessage]) -> Result<Vec<u8>, CanonicalError> {
    Ok(serde_json::to_vec(messages)?)
}

/// Writes messages as pretty-printed canonical JSON.
pub fn to_json_vec_pretty(messages: &[CanonicalMessage]) -> Result<Vec<u8>, CanonicalError> {
    Ok(serde_json::to_vec_pretty(messages)?)
}

/// Reads canonical JSON (an array of messages, as written by [`to_json_vec`]).
///
/// Opaque values may hold the `NaN` / `Infinity` literals pydantic-ai reads (and msgflow carries
/// and writes back): they are read as the wire reader reads them ([`msgflow_wire::read_json`]).
pub fn from_json_slice(input: &[u8]) -> Result<Vec<CanonicalMessage>, CanonicalError> {
    match std::str::from_utf8(input) {
        Ok(text) => Ok(msgflow_wire::read_json(text)?),
        // serde_json says where the bytes stop being UTF-8.
        Err(_) => Ok(serde_json::from_slice(input)?),
    }
}

/// The JSON Schema (draft 2020-12) of the canonical JSON form: an array of messages.
pub fn canonical_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(Vec<CanonicalMessage>);
    serde_json::Value::from(schema)
}
