//! `PartsManager`: pydantic-ai 2.68.0's `ModelResponsePartsManager` (`pydantic_ai/_parts_manager.py`).

use std::borrow::Cow;
use std::fmt;

use msgflow_wire::{
    AgentStreamEvent, Extra, Field, Int, ModelResponsePart, ModelResponsePartDelta, NativeToolCallPart, PartDeltaEvent,
    PartStartEvent, RawJson, TextPart, TextPartDelta, ThinkingPart, ThinkingPartDelta, ToolCallPart, ToolCallPartDelta,
};

use crate::deltas::{ArgsDelta, TextDelta, ThinkingDelta, ToolCallDelta, VendorId};
use crate::json::{self, Args};
use crate::StreamError;

mod handlers;
mod replay;

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
