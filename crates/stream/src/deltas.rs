//! The deltas a provider's stream hands to [`crate::PartsManager`], as the arguments of pydantic-ai
//! 2.68.0's `ModelResponsePartsManager.handle_*_delta` (`pydantic_ai/_parts_manager.py`).

use std::borrow::Cow;

use msgflow_wire::{Citation, RawJson};

/// How a provider names the piece of the response a delta belongs to (pydantic-ai's `VendorId`,
/// any hashable: in practice an index or a string id).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VendorId {
    /// An index, such as OpenAI's `choices[].delta.tool_calls[].index`; also what [`PartsManager::apply_event`]
    /// uses (the event's `index`).
    Int(i64),
    /// A string id, such as a content block or item id.
    Str(String),
}

impl From<i64> for VendorId {
    fn from(value: i64) -> Self {
        VendorId::Int(value)
    }
}

impl From<&str> for VendorId {
    fn from(value: &str) -> Self {
        VendorId::Str(value.to_owned())
    }
}

impl From<String> for VendorId {
    fn from(value: String) -> Self {
        VendorId::Str(value)
    }
}

/// The arguments of [`PartsManager::handle_text_delta`] (pydantic-ai's keyword arguments).
///
/// ```
/// use msgflow_stream::{PartsManager, TextDelta};
/// let mut manager = PartsManager::new();
/// manager.handle_text_delta(TextDelta::new(None, "Hello"))?;
/// manager.handle_text_delta(TextDelta { ignore_leading_whitespace: true, ..TextDelta::new(None, ", world") })?;
/// # Ok::<(), msgflow_stream::StreamError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct TextDelta<'a> {
    /// The provider's id for this piece of text; `None` continues the latest part if it is text.
    pub vendor_part_id: Option<VendorId>,
    /// The text to append: borrowed, or owned and then moved into the event without a copy.
    pub content: Cow<'a, str>,
    /// The part's `id`, used when the delta starts a part.
    pub id: Option<String>,
    /// The provider's name.
    pub provider_name: Option<String>,
    /// Provider details to merge (a JSON object).
    pub provider_details: Option<RawJson>,
    /// Citations to set on the part.
    pub citations: Option<Vec<Citation>>,
    /// `(start, end)` tags (such as `<think>`, `</think>`) whose content becomes thinking parts.
    pub thinking_tags: Option<(String, String)>,
    /// Drop a first delta that is empty or only whitespace.
    pub ignore_leading_whitespace: bool,
}

impl<'a> TextDelta<'a> {
    /// A text delta with no metadata.
    pub fn new(vendor_part_id: Option<VendorId>, content: impl Into<Cow<'a, str>>) -> Self {
        Self {
            vendor_part_id,
            content: content.into(),
            ..Self::default()
        }
    }
}

/// The arguments of [`PartsManager::handle_thinking_delta`].
#[derive(Clone, Debug, Default)]
pub struct ThinkingDelta<'a> {
    /// The provider's id for this piece of thinking; `None` continues the latest part if it is thinking.
    pub vendor_part_id: Option<VendorId>,
    /// Thinking text to append: borrowed, or owned and then moved into the event without a copy.
    pub content: Option<Cow<'a, str>>,
    /// The part's `id`, used when the delta starts a part.
    pub id: Option<String>,
    /// The signature (replaces the part's).
    pub signature: Option<String>,
    /// The provider's name.
    pub provider_name: Option<String>,
    /// Provider details to merge (a JSON object).
    pub provider_details: Option<RawJson>,
}

/// Tool-call arguments as a delta carries them.
#[derive(Clone, Debug)]
pub enum ArgsDelta<'a> {
    /// A fragment of JSON text, appended to string arguments.
    Text(&'a str),
    /// A JSON object, merged into dict arguments.
    Dict(RawJson),
}

/// The arguments of [`PartsManager::handle_tool_call_delta`].
#[derive(Clone, Debug, Default)]
pub struct ToolCallDelta<'a> {
    /// The provider's id for this call; `None` continues the latest call unless `tool_name` is given.
    pub vendor_part_id: Option<VendorId>,
    /// The tool name, or a piece of it (appended).
    pub tool_name: Option<String>,
    /// Arguments to append or merge.
    pub args: Option<ArgsDelta<'a>>,
    /// The call's id, once known.
    pub tool_call_id: Option<String>,
    /// The provider's name.
    pub provider_name: Option<String>,
    /// Provider details to merge (a JSON object).
    pub provider_details: Option<RawJson>,
}
