//! Manager calls as data: one JSON object per call to a [`PartsManager`] handler.
//!
//! This is the form `oracle/stream_oracle.py` records pydantic-ai's calls in, so that the same
//! sequence can be run through both managers and compared (`cargo xtask conformance`), and the
//! form the fuzz target drives the manager with.
//!
//! ```
//! use msgflow_stream::{ops::Op, PartsManager};
//! let op: Op = serde_json::from_str(r#"{"op":"text","vendor_part_id":0,"content":"Hi"}"#)?;
//! let mut manager = PartsManager::new();
//! let event = op.apply(&mut manager)?.expect("a new part starts");
//! assert_eq!(serde_json::to_string(&event)?, r#"{"index":0,"part":{"content":"Hi","id":null,"provider_name":null,"provider_details":null,"citations":null,"part_kind":"text"},"previous_part_kind":null,"canonical_system":null,"event_kind":"part_start"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;

use msgflow_wire::{ModelResponsePart, RawJson};
use serde::Deserialize;

use crate::{
    ArgsDelta, PartsManager, ResponseStreamEvent, StreamError, TextDelta, ThinkingDelta, ToolCallDelta, VendorId,
};

/// A vendor id as JSON: a number or a string.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum JsonVendorId {
    /// An integer id.
    Int(i64),
    /// A string id.
    Str(String),
}

impl From<JsonVendorId> for VendorId {
    fn from(value: JsonVendorId) -> Self {
        match value {
            JsonVendorId::Int(value) => VendorId::Int(value),
            JsonVendorId::Str(value) => VendorId::Str(value),
        }
    }
}

/// The handler an [`Op`] calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// `handle_text_delta`.
    Text,
    /// `handle_thinking_delta`.
    Thinking,
    /// `handle_tool_call_delta`.
    ToolCallDelta,
    /// `handle_tool_call_part`.
    ToolCallPart,
    /// `handle_part`.
    Part,
}

/// One handler call: `op` names the handler, the other keys are its keyword arguments (absent
/// ones take the handler's defaults; `content` of `text`, `tool_name` of `tool_call_part` and
/// `part` of `part` are required).
///
/// A flat struct rather than a tagged enum: serde buffers a tagged enum's content, and raw JSON
/// values (kept as written) cannot be read back from that buffer.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "OpFields")]
pub struct Op(OpFields);

/// The keys of an [`Op`].
#[derive(Clone, Debug, Deserialize)]
pub struct OpFields {
    /// Which handler.
    pub op: OpKind,
    /// `vendor_part_id`.
    #[serde(default)]
    pub vendor_part_id: Option<JsonVendorId>,
    /// `content` (text and thinking).
    #[serde(default)]
    pub content: Option<String>,
    /// `id`.
    #[serde(default)]
    pub id: Option<String>,
    /// `signature` (thinking).
    #[serde(default)]
    pub signature: Option<String>,
    /// `tool_name` (tool calls).
    #[serde(default)]
    pub tool_name: Option<String>,
    /// `args` (tool calls): a string, an object or null.
    #[serde(default)]
    pub args: Option<RawJson>,
    /// `tool_call_id` (tool calls).
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// `provider_name`.
    #[serde(default)]
    pub provider_name: Option<String>,
    /// `provider_details` (an object).
    #[serde(default)]
    pub provider_details: Option<RawJson>,
    /// `thinking_tags`: `[start, end]` (text).
    #[serde(default)]
    pub thinking_tags: Option<(String, String)>,
    /// `ignore_leading_whitespace` (text).
    #[serde(default)]
    pub ignore_leading_whitespace: bool,
    /// `part` (part), as pydantic-ai dumps it.
    #[serde(default)]
    pub part: Option<ModelResponsePart>,
}

impl TryFrom<OpFields> for Op {
    type Error = String;

    fn try_from(fields: OpFields) -> Result<Self, String> {
        let missing = match fields.op {
            OpKind::Text if fields.content.is_none() => Some("content"),
            OpKind::ToolCallPart if fields.tool_name.is_none() => Some("tool_name"),
            OpKind::Part if fields.part.is_none() => Some("part"),
            _ => None,
        };
        match missing {
            Some(key) => Err(format!("op `{:?}` needs `{key}`", fields.op)),
            None => Ok(Op(fields)),
        }
    }
}

impl Op {
    /// The call's keys.
    pub fn fields(&self) -> &OpFields {
        &self.0
    }
}

/// `None` for an absent or `null` value.
fn non_null(raw: Option<RawJson>) -> Option<RawJson> {
    raw.filter(|raw| !raw.is_null())
}

impl Op {
    /// Calls the handler on `manager`, returning the event it emits, if any.
    pub fn apply(&self, manager: &mut PartsManager) -> Result<Option<ResponseStreamEvent>, StreamError> {
        let f = &self.0;
        let vendor_part_id = f.vendor_part_id.clone().map(VendorId::from);
        match f.op {
            OpKind::Text => manager.handle_text_delta(TextDelta {
                vendor_part_id,
                content: f.content.as_deref().unwrap_or_default().into(),
                id: f.id.clone(),
                provider_name: f.provider_name.clone(),
                provider_details: non_null(f.provider_details.clone()),
                citations: None,
                thinking_tags: f.thinking_tags.clone(),
                ignore_leading_whitespace: f.ignore_leading_whitespace,
            }),
            OpKind::Thinking => manager.handle_thinking_delta(ThinkingDelta {
                vendor_part_id,
                content: f.content.as_deref().map(Cow::Borrowed),
                id: f.id.clone(),
                signature: f.signature.clone(),
                provider_name: f.provider_name.clone(),
                provider_details: non_null(f.provider_details.clone()),
            }),
            OpKind::ToolCallDelta => {
                let text;
                let args = match non_null(f.args.clone()) {
                    None => None,
                    Some(raw) if raw.is_string() => {
                        text = raw.as_string().unwrap_or_default();
                        Some(ArgsDelta::Text(&text))
                    }
                    Some(raw) => Some(ArgsDelta::Dict(raw)),
                };
                manager.handle_tool_call_delta(ToolCallDelta {
                    vendor_part_id,
                    tool_name: f.tool_name.clone(),
                    args,
                    tool_call_id: f.tool_call_id.clone(),
                    provider_name: f.provider_name.clone(),
                    provider_details: non_null(f.provider_details.clone()),
                })
            }
            OpKind::ToolCallPart => Ok(Some(manager.handle_tool_call_part(
                vendor_part_id,
                f.tool_name.as_deref().unwrap_or_default(),
                non_null(f.args.clone()),
                f.tool_call_id.clone(),
                f.id.clone(),
                f.provider_name.clone(),
                non_null(f.provider_details.clone()),
            ))),
            OpKind::Part => match &f.part {
                Some(part) => Ok(Some(manager.handle_part(vendor_part_id, part.clone()))),
                None => Ok(None),
            },
        }
    }
}
