//! `PartsManager`: pydantic-ai 2.68.0's `ModelResponsePartsManager` (`pydantic_ai/_parts_manager.py`).

use std::borrow::Cow;
use std::fmt;

use msgflow_wire::{
    AgentStreamEvent, Citation, Extra, Field, Int, ModelResponsePart, ModelResponsePartDelta, NativeToolCallPart,
    PartDeltaEvent, PartStartEvent, RawJson, TextPart, TextPartDelta, ThinkingPart, ThinkingPartDelta, ToolCallPart,
    ToolCallPartDelta,
};

use crate::json::{self, Args};
use crate::StreamError;

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

/// A tool call, built or being built: a `ToolCallPart` or `NativeToolCallPart` whose arguments
/// are kept in a growable form.
#[derive(Clone, Debug)]
struct Call {
    native: bool,
    tool_name: String,
    args: Args,
    tool_call_id: Field<String>,
    tool_kind: Field<String>,
    id: Field<String>,
    provider_name: Field<String>,
    provider_details: Field<RawJson>,
    extra: Extra,
}

impl Call {
    fn from_tool_call(part: ToolCallPart) -> Self {
        Call {
            native: false,
            tool_name: part.tool_name,
            args: Args::from_field(part.args),
            tool_call_id: part.tool_call_id,
            tool_kind: part.tool_kind,
            id: part.id,
            provider_name: part.provider_name,
            provider_details: part.provider_details,
            extra: part.extra,
        }
    }

    fn from_native(part: NativeToolCallPart) -> Self {
        Call {
            native: true,
            tool_name: part.tool_name,
            args: Args::from_field(part.args),
            tool_call_id: part.tool_call_id,
            tool_kind: part.tool_kind,
            id: part.id,
            provider_name: part.provider_name,
            provider_details: part.provider_details,
            extra: part.extra,
        }
    }

    fn to_part(&self) -> ModelResponsePart {
        if self.native {
            ModelResponsePart::BuiltinToolCall(NativeToolCallPart {
                tool_name: self.tool_name.clone(),
                args: self.args.to_field(),
                tool_call_id: self.tool_call_id.clone(),
                tool_kind: self.tool_kind.clone(),
                id: self.id.clone(),
                provider_name: self.provider_name.clone(),
                provider_details: self.provider_details.clone(),
                // A streamed call always has its name.
                tool_name_absent: false,
                extra: self.extra.clone(),
            })
        } else {
            ModelResponsePart::ToolCall(ToolCallPart {
                tool_name: self.tool_name.clone(),
                args: self.args.to_field(),
                tool_call_id: self.tool_call_id.clone(),
                tool_kind: self.tool_kind.clone(),
                id: self.id.clone(),
                provider_name: self.provider_name.clone(),
                provider_details: self.provider_details.clone(),
                // A streamed call always has its name.
                tool_name_absent: false,
                extra: self.extra.clone(),
            })
        }
    }

    fn provider_name(&self) -> Option<&str> {
        self.provider_name.get().map(String::as_str)
    }
}

/// A tool call with no name yet: pydantic-ai keeps a `ToolCallPartDelta` in its place, emits no
/// event for it and leaves it out of `get_parts()`.
#[derive(Clone, Debug)]
struct Pending {
    args: Args,
    tool_call_id: Option<String>,
    provider_name: Option<String>,
    provider_details: Option<RawJson>,
}

/// One managed part.
#[derive(Clone, Debug)]
enum Slot {
    /// Text grows in place: `String::push_str` is amortised linear, pydantic-ai's string buffers.
    Text(TextPart),
    Thinking(ThinkingPart),
    Call(Call),
    Pending(Pending),
    Other(ModelResponsePart),
}

impl Slot {
    fn from_part(part: ModelResponsePart) -> Self {
        match part {
            ModelResponsePart::Text(part) => Slot::Text(part),
            ModelResponsePart::Thinking(part) => Slot::Thinking(part),
            ModelResponsePart::ToolCall(part) => Slot::Call(Call::from_tool_call(part)),
            ModelResponsePart::BuiltinToolCall(part) => Slot::Call(Call::from_native(part)),
            other => Slot::Other(other),
        }
    }

    /// The part, or `None` for a call with no name yet.
    fn to_part(&self) -> Option<ModelResponsePart> {
        match self {
            Slot::Text(part) => Some(ModelResponsePart::Text(part.clone())),
            Slot::Thinking(part) => Some(ModelResponsePart::Thinking(part.clone())),
            Slot::Call(call) => Some(call.to_part()),
            Slot::Pending(_) => None,
            Slot::Other(part) => Some(part.clone()),
        }
    }

    /// The part's `part_kind`, for messages.
    fn kind(&self) -> String {
        match self {
            Slot::Text(_) => "text".into(),
            Slot::Thinking(_) => "thinking".into(),
            Slot::Call(call) if call.native => "builtin-tool-call".into(),
            Slot::Call(_) => "tool-call".into(),
            Slot::Pending(_) => "tool-call delta".into(),
            Slot::Other(part) => part.tag().map(|tag| tag.into_owned()).unwrap_or_default(),
        }
    }

    /// `isinstance(existing_part, type(part))` in `handle_part`.
    fn is_same_kind(&self, part: &ModelResponsePart) -> bool {
        match (self, part) {
            (Slot::Text(_), ModelResponsePart::Text(_)) | (Slot::Thinking(_), ModelResponsePart::Thinking(_)) => true,
            (Slot::Call(call), ModelResponsePart::ToolCall(_)) => !call.native,
            (Slot::Call(call), ModelResponsePart::BuiltinToolCall(_)) => call.native,
            (Slot::Other(existing), part) => existing.tag().is_some() && existing.tag() == part.tag(),
            _ => false,
        }
    }
}

/// A tool-call delta's fields, normalised (`ToolCallPartDelta`).
struct CallDelta {
    tool_name_delta: Option<String>,
    args: Args,
    tool_call_id: Option<String>,
    provider_name: Option<String>,
    provider_details: Option<RawJson>,
}

impl CallDelta {
    /// Refuses what `apply` would raise on, before anything changes.
    fn check(&self, args: &Args) -> Result<(), StreamError> {
        match &self.args {
            Args::Text(_) if args.is_dict() => Err(StreamError::ArgsMismatch {
                existing: "dict",
                delta: "string",
            }),
            Args::Dict(_) if args.is_text() => Err(StreamError::ArgsMismatch {
                existing: "string",
                delta: "dict",
            }),
            _ => Ok(()),
        }
    }

    /// `ToolCallPartDelta._apply_to_part`.
    fn apply_to_call(&self, call: &mut Call) -> Result<(), StreamError> {
        self.check(&call.args)?;
        let provider_details = match self.provider_details.as_ref().filter(|raw| is_truthy(raw)) {
            Some(update) => Some(json::merge(call.provider_details.get(), update, "provider_details")?),
            None => None,
        };
        if let Some(name) = self.tool_name_delta.as_deref().filter(|name| !name.is_empty()) {
            call.tool_name.push_str(name);
        }
        call.args.apply(&self.args)?;
        if let Some(id) = self.tool_call_id.as_deref().filter(|id| !id.is_empty()) {
            call.tool_call_id = Field::Present(id.to_owned());
        }
        if let Some(name) = self.provider_name.as_deref().filter(|name| !name.is_empty()) {
            call.provider_name = Field::Present(name.to_owned());
        }
        if let Some(details) = provider_details {
            call.provider_details = Field::Present(details);
        }
        Ok(())
    }

    /// `ToolCallPartDelta._apply_to_delta`: the pending call, or the call it becomes once it has
    /// a name.
    fn apply_to_pending(&self, pending: &mut Pending, ids: &mut ToolCallIds) -> Result<Option<Call>, StreamError> {
        self.check(&pending.args)?;
        let provider_details = match self.provider_details.as_ref().filter(|raw| is_truthy(raw)) {
            Some(update) => Some(json::merge(
                pending.provider_details.as_ref(),
                update,
                "provider_details",
            )?),
            None => None,
        };
        pending.args.apply(&self.args)?;
        if let Some(id) = self.tool_call_id.as_deref().filter(|id| !id.is_empty()) {
            pending.tool_call_id = Some(id.to_owned());
        }
        if let Some(name) = self.provider_name.as_deref().filter(|name| !name.is_empty()) {
            pending.provider_name = Some(name.to_owned());
        }
        if let Some(details) = provider_details {
            pending.provider_details = Some(details);
        }
        // Only a non-empty name makes `tool_name_delta` non-None on the pending delta.
        Ok(match self.tool_name_delta.as_deref().filter(|name| !name.is_empty()) {
            Some(name) => Some(new_call(
                name.to_owned(),
                std::mem::replace(&mut pending.args, Args::Null),
                pending.tool_call_id.take(),
                pending.provider_name.take(),
                pending.provider_details.take(),
                ids,
            )),
            None => None,
        })
    }

    /// The delta as the event carries it.
    fn into_wire(self) -> ToolCallPartDelta {
        let mut delta = ToolCallPartDelta::new();
        delta.args_delta = match &self.args {
            Args::Text(text) => Field::Present(RawJson::string(text)),
            Args::Dict(dict) => Field::Present(json::dict_to_raw(dict)),
            _ => Field::Null,
        };
        delta.tool_name_delta = self.tool_name_delta.into();
        delta.tool_call_id = self.tool_call_id.into();
        delta.provider_name = self.provider_name.into();
        delta.provider_details = self.provider_details.into();
        delta
    }
}

/// Python's truthiness of a dict-or-None value.
fn is_truthy(raw: &RawJson) -> bool {
    !raw.is_null() && !json::is_empty_object(raw)
}

/// `ToolCallPart(tool_name, args, tool_call_id or _generate_tool_call_id(), provider_name=...,
/// provider_details=...)`, as `ToolCallPartDelta.as_part` and `_apply_to_delta` build it.
fn new_call(
    tool_name: String,
    args: Args,
    tool_call_id: Option<String>,
    provider_name: Option<String>,
    provider_details: Option<RawJson>,
    ids: &mut ToolCallIds,
) -> Call {
    let tool_call_id = tool_call_id.filter(|id| !id.is_empty()).unwrap_or_else(|| ids.next());
    Call {
        native: false,
        tool_name,
        args,
        tool_call_id: Field::Present(tool_call_id),
        tool_kind: Field::Null,
        id: Field::Null,
        provider_name: provider_name.into(),
        provider_details: provider_details.into(),
        extra: Extra::new(),
    }
}

/// Where ids for tool calls that arrive without one come from.
struct ToolCallIds(Box<dyn FnMut() -> String + Send>);

impl ToolCallIds {
    fn next(&mut self) -> String {
        (self.0)()
    }
}

/// `pyd_ai_` + a random uuid4 in hex, as `pydantic_ai._utils.generate_tool_call_id` makes them.
pub fn generate_tool_call_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: still unique within the process, which is what the id is for.
        use std::hash::BuildHasher;
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let state = foldhash::fast::RandomState::default();
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        bytes[..8].copy_from_slice(&state.hash_one(count).to_le_bytes());
        bytes[8..].copy_from_slice(&state.hash_one(!count).to_le_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let mut id = String::with_capacity(7 + 32);
    id.push_str("pyd_ai_");
    for byte in bytes {
        id.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        id.push(char::from_digit(u32::from(byte & 0x0f), 16).unwrap_or('0'));
    }
    id
}

/// Python's `str.isspace()` on a non-empty string: Unicode `White_Space` plus the four
/// information separators U+001C..U+001F, which Python counts and Rust does not.
fn py_isspace(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Turns a streamed response's deltas into pydantic-ai's stream events and final parts, exactly
/// as pydantic-ai 2.68.0's `ModelResponsePartsManager` does, and replays logged events
/// ([`apply_event`](Self::apply_event)).
///
/// Each handler returns the event pydantic-ai yields (at most one), or `None` where it yields
/// nothing; it returns an error where pydantic-ai raises, leaving the manager as it was.
///
/// ```
/// use msgflow_stream::{ArgsDelta, PartsManager, TextDelta, ToolCallDelta};
///
/// let mut manager = PartsManager::new();
/// manager.handle_text_delta(TextDelta::new(None, "Let me look."))?;
/// // A call whose name arrives after its first argument fragment.
/// let call = |args| ToolCallDelta { vendor_part_id: Some(1.into()), args: Some(ArgsDelta::Text(args)), ..Default::default() };
/// assert!(manager.handle_tool_call_delta(call(r#"{"path":"#))?.is_none()); // no name yet: no event
/// manager.handle_tool_call_delta(ToolCallDelta { tool_name: Some("read_file".into()), tool_call_id: Some("c1".into()), ..call(r#""a.rs"}"#) })?;
/// let parts = serde_json::to_string(&manager.get_parts())?;
/// assert_eq!(parts, r#"[{"content":"Let me look.","id":null,"provider_name":null,"provider_details":null,"citations":null,"part_kind":"text"},{"tool_name":"read_file","args":"{\"path\":\"a.rs\"}","tool_call_id":"c1","tool_kind":null,"id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}]"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PartsManager {
    parts: Vec<Slot>,
    vendor_ids: VendorIndex,
    ids: ToolCallIds,
}

/// `_vendor_id_to_part_index`, with the id last inserted held beside the map: nearly every delta
/// of a stream goes to the part that was started last, and comparing one id is a fraction of
/// hashing it (the handlers' cost per delta is a few dozen nanoseconds).
#[derive(Debug, Default)]
struct VendorIndex {
    map: foldhash::HashMap<VendorId, usize>,
    /// The id last inserted, and its index; `None` once it is removed or pointed elsewhere.
    latest: Option<(VendorId, usize)>,
}

impl VendorIndex {
    #[inline]
    fn get(&self, vendor: &VendorId) -> Option<&usize> {
        match &self.latest {
            Some((latest, index)) if latest == vendor => Some(index),
            _ => self.map.get(vendor),
        }
    }

    fn insert(&mut self, vendor: VendorId, index: usize) {
        self.latest = Some((vendor.clone(), index));
        self.map.insert(vendor, index);
    }

    fn remove(&mut self, vendor: &VendorId) {
        if self.latest.as_ref().is_some_and(|(latest, _)| latest == vendor) {
            self.latest = None;
        }
        self.map.remove(vendor);
    }
}

impl Default for PartsManager {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for PartsManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartsManager")
            .field("parts", &self.parts)
            .field("vendor_ids", &self.vendor_ids.map)
            .finish()
    }
}

impl PartsManager {
    /// An empty manager; tool calls without an id get [`generate_tool_call_id`]'s.
    pub fn new() -> Self {
        Self::with_tool_call_ids(generate_tool_call_id)
    }

    /// An empty manager taking ids for calls without one from `next_id` (for reproducible output).
    pub fn with_tool_call_ids(next_id: impl FnMut() -> String + Send + 'static) -> Self {
        PartsManager {
            parts: Vec::new(),
            vendor_ids: VendorIndex::default(),
            ids: ToolCallIds(Box::new(next_id)),
        }
    }

    /// The parts so far, calls without a name left out (`get_parts()`).
    pub fn get_parts(&self) -> Vec<ModelResponsePart> {
        self.parts.iter().filter_map(Slot::to_part).collect()
    }

    /// Consumes the manager, returning its parts (as [`get_parts`](Self::get_parts), without copying).
    pub fn into_parts(self) -> Vec<ModelResponsePart> {
        self.parts
            .into_iter()
            .filter_map(|slot| match slot {
                Slot::Text(part) => Some(ModelResponsePart::Text(part)),
                Slot::Thinking(part) => Some(ModelResponsePart::Thinking(part)),
                Slot::Call(call) => Some(call.to_part()),
                Slot::Pending(_) => None,
                Slot::Other(part) => Some(part),
            })
            .collect()
    }

    /// How many parts are managed, calls without a name included.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// `true` before the first part.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The calls that have no name yet (pydantic-ai drops them from the response), as
    /// `(index, tool_call_id, arguments so far)`.
    pub fn pending_calls(&self) -> Vec<(usize, Option<String>, Option<RawJson>)> {
        self.parts
            .iter()
            .enumerate()
            .filter_map(|(index, slot)| match slot {
                Slot::Pending(pending) => Some((
                    index,
                    pending.tool_call_id.clone(),
                    pending.args.to_field().into_option(),
                )),
                _ => None,
            })
            .collect()
    }

    /// The part a vendor id points at (`get_part_by_vendor_id`); `None` also for a call with no name.
    pub fn get_part_by_vendor_id(&self, vendor_part_id: &VendorId) -> Option<ModelResponsePart> {
        self.vendor_ids
            .get(vendor_part_id)
            .and_then(|&index| self.parts[index].to_part())
    }

    fn append(&mut self, slot: Slot, vendor_part_id: Option<VendorId>) -> usize {
        let index = self.parts.len();
        self.parts.push(slot);
        if let Some(vendor_part_id) = vendor_part_id {
            self.vendor_ids.insert(vendor_part_id, index);
        }
        index
    }

    fn start_event(&self, index: usize) -> Option<AgentStreamEvent> {
        self.parts[index]
            .to_part()
            .map(|part| AgentStreamEvent::from(PartStartEvent::new(Int::from(index as i64), part)))
    }

    fn delta_event(index: usize, delta: ModelResponsePartDelta) -> AgentStreamEvent {
        AgentStreamEvent::PartDelta(PartDeltaEvent::new(Int::from(index as i64), delta))
    }

    /// `_resolve_provider_name`: the name, unless the part already has that very name.
    fn resolve_provider_name(existing: Option<&str>, provider_name: Option<&str>) -> Option<String> {
        match existing {
            Some(existing) if provider_name == Some(existing) => None,
            _ => provider_name.map(str::to_owned),
        }
    }

    /// `handle_text_delta`: appends text to the part `vendor_part_id` names (or to the latest part
    /// if it is text), or starts a text part; with `thinking_tags`, a delta that is exactly the start
    /// tag starts a thinking part that takes the following deltas until the end tag.
    pub fn handle_text_delta(&mut self, delta: TextDelta<'_>) -> Result<Option<AgentStreamEvent>, StreamError> {
        let TextDelta {
            vendor_part_id,
            content,
            id,
            provider_name,
            provider_details,
            citations,
            thinking_tags,
            ignore_leading_whitespace,
        } = delta;
        // The common case, more text for the text part the vendor id points at and nothing else:
        // what the general path below does for it (`TextPartDelta._apply_to_part` with no name,
        // details or citations changes only the content), in fewer steps.
        if let (Some(vendor), None, None, None, None) = (
            &vendor_part_id,
            &provider_name,
            &provider_details,
            &citations,
            &thinking_tags,
        ) {
            if let Some(&index) = self.vendor_ids.get(vendor) {
                if let Slot::Text(part) = &mut self.parts[index] {
                    // `{}` details become `None` when a delta is applied (`merge_or_none`).
                    if !part.provider_details.get().is_some_and(json::is_empty_object) {
                        part.content.push_str(&content);
                        let wire = TextPartDelta::new(content.into_owned());
                        return Ok(Some(Self::delta_event(index, ModelResponsePartDelta::Text(wire))));
                    }
                }
            }
        }
        let mut existing_text: Option<usize> = None;
        match &vendor_part_id {
            None => {
                if let Some(Slot::Text(_)) = self.parts.last() {
                    existing_text = Some(self.parts.len() - 1);
                }
            }
            Some(vendor) => {
                if let Some(&index) = self.vendor_ids.get(vendor) {
                    match &self.parts[index] {
                        Slot::Thinking(_) if thinking_tags.is_some() => {
                            let (_, end) = thinking_tags.as_ref().expect("checked just above");
                            if content.as_ref() == end.as_str() {
                                // `_handle_embedded_thinking_end`: the next text delta starts a new part.
                                self.vendor_ids.remove(vendor);
                                return Ok(None);
                            }
                            return self
                                .embedded_thinking_content(index, content, provider_name, provider_details)
                                .map(Some);
                        }
                        Slot::Text(_) => existing_text = Some(index),
                        other => {
                            return Err(StreamError::WrongPartKind {
                                delta: "text",
                                index,
                                part_kind: other.kind(),
                            })
                        }
                    }
                }
            }
        }

        if let Some((start, _)) = &thinking_tags {
            if content.as_ref() == start.as_str() {
                // `_handle_embedded_thinking_start`.
                if let Some(vendor) = &vendor_part_id {
                    self.vendor_ids.remove(vendor);
                }
                let mut part = ThinkingPart::new(String::new());
                part.provider_name = provider_name.into();
                part.provider_details = provider_details.into();
                let index = self.append(Slot::Thinking(part), vendor_part_id);
                return Ok(self.start_event(index));
            }
        }

        match existing_text {
            None => {
                // Ollama + Qwen3 emit `<think>\n</think>\n\n` or empty text ahead of tool calls.
                if ignore_leading_whitespace && (content.is_empty() || py_isspace(&content)) {
                    return Ok(None);
                }
                let mut part = TextPart::new(content.into_owned());
                part.id = id.into();
                part.provider_name = provider_name.into();
                part.provider_details = provider_details.into();
                part.citations = citations.into();
                let index = self.append(Slot::Text(part), vendor_part_id);
                Ok(self.start_event(index))
            }
            Some(index) => {
                let Slot::Text(part) = &mut self.parts[index] else {
                    unreachable!("index points at a text part")
                };
                let mut wire = TextPartDelta::new(content.into_owned());
                wire.provider_name =
                    Self::resolve_provider_name(part.provider_name.get().map(String::as_str), provider_name.as_deref())
                        .into();
                wire.provider_details = provider_details.into();
                wire.citations_delta = citations.into();
                apply_text_delta(part, &wire)?;
                Ok(Some(Self::delta_event(index, ModelResponsePartDelta::Text(wire))))
            }
        }
    }

    /// `_handle_embedded_thinking_content`.
    fn embedded_thinking_content(
        &mut self,
        index: usize,
        content: Cow<'_, str>,
        provider_name: Option<String>,
        provider_details: Option<RawJson>,
    ) -> Result<AgentStreamEvent, StreamError> {
        let Slot::Thinking(part) = &mut self.parts[index] else {
            unreachable!("index points at a thinking part")
        };
        let mut wire = ThinkingPartDelta::new();
        wire.content_delta = Field::Present(content.into_owned());
        wire.provider_name =
            Self::resolve_provider_name(part.provider_name.get().map(String::as_str), provider_name.as_deref()).into();
        wire.provider_details = provider_details.into();
        apply_thinking_delta(part, &wire)?;
        Ok(Self::delta_event(index, ModelResponsePartDelta::Thinking(wire)))
    }

    /// `handle_thinking_delta`: appends thinking to the part `vendor_part_id` names (or to the
    /// latest part if it is thinking), or starts a thinking part.
    pub fn handle_thinking_delta(&mut self, delta: ThinkingDelta<'_>) -> Result<Option<AgentStreamEvent>, StreamError> {
        let ThinkingDelta {
            vendor_part_id,
            content,
            id,
            signature,
            provider_name,
            provider_details,
        } = delta;
        let mut existing: Option<usize> = None;
        match &vendor_part_id {
            None => {
                if let Some(Slot::Thinking(_)) = self.parts.last() {
                    existing = Some(self.parts.len() - 1);
                }
            }
            Some(vendor) => {
                if let Some(&index) = self.vendor_ids.get(vendor) {
                    match &self.parts[index] {
                        Slot::Thinking(_) => existing = Some(index),
                        other => {
                            return Err(StreamError::WrongPartKind {
                                delta: "thinking",
                                index,
                                part_kind: other.kind(),
                            })
                        }
                    }
                }
            }
        }
        match existing {
            None => {
                if content.is_none() && signature.is_none() && provider_details.is_none() {
                    return Err(StreamError::EmptyThinkingPart);
                }
                let mut part = ThinkingPart::new(content.map(Cow::into_owned).unwrap_or_default());
                part.id = id.into();
                part.signature = signature.into();
                part.provider_name = provider_name.into();
                part.provider_details = provider_details.into();
                let index = self.append(Slot::Thinking(part), vendor_part_id);
                Ok(self.start_event(index))
            }
            Some(index) => {
                if content.is_none() && signature.is_none() && provider_name.is_none() && provider_details.is_none() {
                    return Ok(None);
                }
                let Slot::Thinking(part) = &mut self.parts[index] else {
                    unreachable!("index points at thinking")
                };
                let mut wire = ThinkingPartDelta::new();
                wire.content_delta = content.map(Cow::into_owned).into();
                wire.signature_delta = signature.into();
                wire.provider_name =
                    Self::resolve_provider_name(part.provider_name.get().map(String::as_str), provider_name.as_deref())
                        .into();
                wire.provider_details = provider_details.into();
                apply_thinking_delta(part, &wire)?;
                Ok(Some(Self::delta_event(index, ModelResponsePartDelta::Thinking(wire))))
            }
        }
    }

    /// `handle_tool_call_delta`: builds a tool call from a name, an id and arguments arriving in
    /// any order and in pieces. A call stays pending (no event, not in the parts) until it has a
    /// name; it then starts with a `part_start` event, and later deltas give `part_delta` events.
    pub fn handle_tool_call_delta(
        &mut self,
        delta: ToolCallDelta<'_>,
    ) -> Result<Option<AgentStreamEvent>, StreamError> {
        let ToolCallDelta {
            vendor_part_id,
            tool_name,
            args,
            tool_call_id,
            provider_name,
            provider_details,
        } = delta;
        // The common case, a fragment of a call's string arguments and nothing else: what the
        // general path below does for it, without copying the fragment twice.
        if let (Some(vendor), None, Some(ArgsDelta::Text(fragment)), None, None, None) = (
            &vendor_part_id,
            &tool_name,
            &args,
            &tool_call_id,
            &provider_name,
            &provider_details,
        ) {
            if let Some(&index) = self.vendor_ids.get(vendor) {
                if let Slot::Call(call) = &mut self.parts[index] {
                    call.args.push_text(fragment)?;
                    let mut wire = ToolCallPartDelta::new();
                    wire.args_delta = Field::Present(RawJson::string(fragment));
                    wire.tool_call_id = call.tool_call_id.get().filter(|id| !id.is_empty()).cloned().into();
                    return Ok(Some(Self::delta_event(index, ModelResponsePartDelta::ToolCall(wire))));
                }
            }
        }
        let args = match args {
            None => Args::Null,
            Some(ArgsDelta::Text(text)) => Args::Text(text.to_owned()),
            Some(ArgsDelta::Dict(raw)) => Args::from_delta(Some(&raw))?,
        };
        let mut existing: Option<usize> = None;
        match &vendor_part_id {
            None => {
                // A named delta without a vendor id is always a new call.
                if tool_name.is_none() {
                    if let Some(Slot::Call(_) | Slot::Pending(_)) = self.parts.last() {
                        existing = Some(self.parts.len() - 1);
                    }
                }
            }
            Some(vendor) => {
                if let Some(&index) = self.vendor_ids.get(vendor) {
                    match &self.parts[index] {
                        Slot::Call(_) | Slot::Pending(_) => existing = Some(index),
                        other => {
                            return Err(StreamError::WrongPartKind {
                                delta: "tool call",
                                index,
                                part_kind: other.kind(),
                            })
                        }
                    }
                }
            }
        }
        match existing {
            None => {
                let delta = CallDelta {
                    tool_name_delta: tool_name,
                    args,
                    tool_call_id,
                    provider_name,
                    provider_details: provider_details.filter(|raw| !raw.is_null()),
                };
                // `delta.as_part() or delta`.
                let slot = match delta.tool_name_delta {
                    Some(name) => Slot::Call(new_call(
                        name,
                        delta.args,
                        delta.tool_call_id,
                        delta.provider_name,
                        delta.provider_details,
                        &mut self.ids,
                    )),
                    None => Slot::Pending(Pending {
                        args: delta.args,
                        tool_call_id: delta.tool_call_id,
                        provider_name: delta.provider_name,
                        provider_details: delta.provider_details,
                    }),
                };
                let index = self.append(slot, vendor_part_id);
                Ok(self.start_event(index))
            }
            Some(index) => {
                let existing_provider_name = match &self.parts[index] {
                    Slot::Call(call) => call.provider_name().map(str::to_owned),
                    Slot::Pending(pending) => pending.provider_name.clone(),
                    _ => unreachable!("index points at a tool call"),
                };
                let mut delta = CallDelta {
                    tool_name_delta: tool_name,
                    args,
                    tool_call_id,
                    provider_name: Self::resolve_provider_name(
                        existing_provider_name.as_deref(),
                        provider_name.as_deref(),
                    ),
                    provider_details: provider_details.filter(|raw| !raw.is_null()),
                };
                match &mut self.parts[index] {
                    Slot::Call(call) => {
                        delta.apply_to_call(call)?;
                        if delta.tool_call_id.as_deref().is_none_or(str::is_empty) {
                            if let Some(id) = call.tool_call_id.get().filter(|id| !id.is_empty()) {
                                delta.tool_call_id = Some(id.clone());
                            }
                        }
                        Ok(Some(Self::delta_event(
                            index,
                            ModelResponsePartDelta::ToolCall(delta.into_wire()),
                        )))
                    }
                    Slot::Pending(pending) => match delta.apply_to_pending(pending, &mut self.ids)? {
                        Some(call) => {
                            self.parts[index] = Slot::Call(call);
                            Ok(self.start_event(index))
                        }
                        None => Ok(None),
                    },
                    _ => unreachable!("index points at a tool call"),
                }
            }
        }
    }

    /// `handle_tool_call_part`: creates a complete call, or replaces the call `vendor_part_id`
    /// names.
    #[allow(clippy::too_many_arguments)]
    pub fn handle_tool_call_part(
        &mut self,
        vendor_part_id: Option<VendorId>,
        tool_name: &str,
        args: Option<RawJson>,
        tool_call_id: Option<String>,
        id: Option<String>,
        provider_name: Option<String>,
        provider_details: Option<RawJson>,
    ) -> AgentStreamEvent {
        let tool_call_id = tool_call_id
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| self.ids.next());
        let call = Call {
            native: false,
            tool_name: tool_name.to_owned(),
            args: Args::from_field(args.into()),
            tool_call_id: Field::Present(tool_call_id),
            tool_kind: Field::Null,
            id: id.into(),
            provider_name: provider_name.into(),
            provider_details: provider_details.into(),
            extra: Extra::new(),
        };
        let part = call.to_part();
        let index = match vendor_part_id {
            None => self.append(Slot::Call(call), None),
            Some(vendor) => {
                let index = match self.vendor_ids.get(&vendor) {
                    Some(&index) if matches!(&self.parts[index], Slot::Call(existing) if !existing.native) => {
                        self.parts[index] = Slot::Call(call);
                        index
                    }
                    _ => self.append(Slot::Call(call), None),
                };
                self.vendor_ids.insert(vendor, index);
                index
            }
        };
        AgentStreamEvent::from(PartStartEvent::new(Int::from(index as i64), part))
    }

    /// `handle_part`: appends a whole part, or replaces the part `vendor_part_id` names when it
    /// is of the same kind (else appends and points the vendor id at the new part).
    pub fn handle_part(&mut self, vendor_part_id: Option<VendorId>, part: ModelResponsePart) -> AgentStreamEvent {
        let event_part = part.clone();
        let index = self.put_part(vendor_part_id, part);
        AgentStreamEvent::from(PartStartEvent::new(Int::from(index as i64), event_part))
    }

    fn put_part(&mut self, vendor_part_id: Option<VendorId>, part: ModelResponsePart) -> usize {
        match vendor_part_id {
            None => self.append(Slot::from_part(part), None),
            Some(vendor) => {
                let index = match self.vendor_ids.get(&vendor) {
                    Some(&index) if self.parts[index].is_same_kind(&part) => {
                        self.parts[index] = Slot::from_part(part);
                        index
                    }
                    _ => self.append(Slot::from_part(part), None),
                };
                self.vendor_ids.insert(vendor, index);
                index
            }
        }
    }

    /// `apply_event`: replays a logged event, so that [`get_parts`](Self::get_parts) reflects it.
    /// `part_start` puts its part under its index (replacing a part of the same kind there),
    /// `part_delta` applies its delta to the part under its index; `part_end` and `final_result`
    /// change nothing.
    pub fn apply_event(&mut self, event: &AgentStreamEvent) -> Result<(), StreamError> {
        match event {
            AgentStreamEvent::PartStart(start) => {
                let index =
                    event_index(&start.index).map_or_else(|| VendorId::Str(start.index.to_string()), VendorId::Int);
                self.put_part(Some(index), start.part.clone());
                Ok(())
            }
            AgentStreamEvent::PartDelta(delta_event) => self.apply_delta_event(delta_event),
            AgentStreamEvent::PartEnd(_) | AgentStreamEvent::FinalResult(_) | AgentStreamEvent::Unknown(_) => Ok(()),
        }
    }

    fn apply_delta_event(&mut self, event: &PartDeltaEvent) -> Result<(), StreamError> {
        let Some(raw_index) = event_index(&event.index) else {
            return Err(StreamError::UnknownIndex { index: i64::MAX });
        };
        let Some(&index) = self.vendor_ids.get(&VendorId::Int(raw_index)) else {
            return Err(StreamError::UnknownIndex { index: raw_index });
        };
        let mismatch = |slot: &Slot| StreamError::ReplayKindMismatch {
            index: raw_index,
            delta_kind: event.delta.tag().map(|tag| tag.into_owned()).unwrap_or_default(),
            part_kind: slot.kind(),
        };
        let slot = &mut self.parts[index];
        if let Slot::Pending(_) = slot {
            // `assert not isinstance(part, ToolCallPartDelta)`.
            return Err(StreamError::UnknownIndex { index: raw_index });
        }
        match (&event.delta, slot) {
            (ModelResponsePartDelta::Text(delta), Slot::Text(part)) => apply_text_delta(part, delta),
            (ModelResponsePartDelta::Thinking(delta), Slot::Thinking(part)) => apply_thinking_delta(part, delta),
            (ModelResponsePartDelta::ToolCall(delta), Slot::Call(call)) => {
                let delta = CallDelta {
                    tool_name_delta: delta.tool_name_delta.get().cloned(),
                    args: Args::from_delta(delta.args_delta.get())?,
                    tool_call_id: delta.tool_call_id.get().cloned(),
                    provider_name: delta.provider_name.get().cloned(),
                    provider_details: delta.provider_details.get().cloned(),
                };
                delta.apply_to_call(call)
            }
            (ModelResponsePartDelta::Speech(_), Slot::Other(ModelResponsePart::Speech(_)))
            | (ModelResponsePartDelta::Unknown(_), _) => Err(StreamError::UnsupportedDelta {
                index: raw_index,
                delta_kind: event.delta.tag().map(|tag| tag.into_owned()).unwrap_or_default(),
            }),
            (_, slot) => Err(mismatch(slot)),
        }
    }
}

/// An event's `index` as an `i64` (`None` past its range, which no manager ever emits).
fn event_index(index: &Int) -> Option<i64> {
    index.to_string().parse().ok()
}

/// `TextPartDelta.apply`: the text appended, `provider_name = delta's or part's`, provider
/// details merged (`or None`), citations replaced when the delta has them.
fn apply_text_delta(part: &mut TextPart, delta: &TextPartDelta) -> Result<(), StreamError> {
    let update = delta.provider_details.get().filter(|raw| !raw.is_null());
    // The merge only changes the part when there is an update or the part's details are `{}`.
    let provider_details = if update.is_some() || part.provider_details.get().is_some_and(json::is_empty_object) {
        Some(json::merge_or_none(&part.provider_details, update)?)
    } else {
        None
    };
    part.content.push_str(&delta.content_delta);
    if let Some(name) = delta.provider_name.get().filter(|name| !name.is_empty()) {
        part.provider_name = Field::Present(name.clone());
    }
    if let Some(details) = provider_details {
        part.provider_details = details;
    }
    if let Some(citations) = delta.citations_delta.get() {
        part.citations = Field::Present(citations.clone());
    }
    Ok(())
}

/// `ThinkingPartDelta._apply_to_part`: the text appended when non-empty, signature and provider
/// name replaced when given, provider details merged (`or None`).
fn apply_thinking_delta(part: &mut ThinkingPart, delta: &ThinkingPartDelta) -> Result<(), StreamError> {
    let update = delta.provider_details.get().filter(|raw| !raw.is_null());
    let provider_details = if update.is_some() || part.provider_details.get().is_some_and(json::is_empty_object) {
        Some(json::merge_or_none(&part.provider_details, update)?)
    } else {
        None
    };
    if let Some(content) = delta.content_delta.get() {
        part.content.push_str(content);
    }
    if let Some(signature) = delta.signature_delta.get() {
        part.signature = Field::Present(signature.clone());
    }
    if let Some(name) = delta.provider_name.get() {
        part.provider_name = Field::Present(name.clone());
    }
    if let Some(details) = provider_details {
        part.provider_details = details;
    }
    Ok(())
}
