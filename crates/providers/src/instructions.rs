//! `_project_instruction_state` (pydantic_ai/models/__init__.py, 2.68.0): the first step of
//! `prepare_messages` on a history whose requests record instruction state
//! (`_has_instruction_state`: an `InstructionDeltaPart` or `InstructionBaselinePart`).
//!
//! Baselines are never sent: they record what a request's `instructions` were made of. Each change
//! (`InstructionDeltaPart`) in the current instruction window becomes a `SystemPromptPart` in its
//! place, rendered by `InstructionDeltaPart.render` as the `<pyai:context>` element of its block
//! (a `<pyai:context_diff>` when that is shorter and the change says which text it replaces), or
//! the block's withdrawal; changes from before the window are left out. A change to a loaded
//! capability's block (`capability:<id>`, loaded by a `CapabilityLoadDeltaPart` or a
//! `load_capability` exchange) is rendered
//! until the compaction that ends the load, whatever the window (`LoadedInstructionValues`).
//!
//! msgflow exports without request parameters (`prefix=None`), so the requests' `instructions`
//! are left as written and the instruction fallback (`_instruction_parts_of`) reads them.
//!
//! The rest of `prepare_messages` then sees the rendered changes as the system prompts they are:
//! the standing prompt when they lead the first request, otherwise mid-conversation ones
//! (`<system>`-wrapped for Anthropic). The projection is a new history with the original
//! position of each request part kept beside it, so every export and refusal still names the
//! part as written.

use std::collections::HashMap;

use msgflow_wire::{
    InstructionBlock, InstructionDeltaPart, ModelMessage, ModelRequest, ModelRequestPart, ModelResponsePart, RawJson,
    SystemPromptPart,
};
use sha2::{Digest, Sha256};

use crate::{difflib, framing, typed, ExportError, PartLocation};

/// A history after `_project_instruction_state`.
pub(crate) struct Projection {
    pub messages: Vec<ModelMessage>,
    /// For each message, the index in the history of each of its projected parts (a request's
    /// baselines and left-out changes removed; a response's parts are all kept).
    pub origins: Vec<Vec<usize>>,
}

/// `_project_instruction_state(messages, inline_system=..., prefix=None)`, or `None` for a history
/// without instruction state (`_has_instruction_state`), which it leaves as it is.
pub(crate) fn project(history: &[ModelMessage], inline_system: bool) -> Result<Option<Projection>, ExportError> {
    let has_state = history.iter().any(|message| match message {
        ModelMessage::Request(request) => request.parts.iter().any(is_instruction_state),
        ModelMessage::Response(_) => false,
    });
    if !has_state {
        return Ok(None);
    }
    let current_start = instruction_window_start(history);
    // `InstructionValues.at(window)` of the window the history ends in: the changes rendered are
    // those from `current_start` on, after which no message opens a window.
    let mut values = InstructionValues::at(instruction_window(history))?;
    let loads_start = post_compaction_window_start(history);
    let mut loaded = LoadedInstructionValues::default();
    let mut messages = Vec::with_capacity(history.len());
    let mut origins = Vec::with_capacity(history.len());
    for (index, message) in history.iter().enumerate() {
        let request = match message {
            ModelMessage::Response(response) => {
                // `loaded.observe` of a response's parts: a `LoadCapabilityCallPart` records the
                // capability its arguments name (`LoadExchanges.observe`), which its return loads.
                for (part_index, part) in response.parts.iter().enumerate() {
                    if let ModelResponsePart::ToolCall(call) = part {
                        let typed_load = matches!(
                            typed::call_route(&call.tool_kind, &call.extra, true),
                            Ok(typed::Route::Typed(kind)) if kind.tool_kind() == typed::CAPABILITY_LOAD
                        );
                        if typed_load && (index, part_index) >= loads_start {
                            if let (Some(id), Some(capability_id)) =
                                (call.tool_call_id.get(), typed::capability_id(&call.args))
                            {
                                loaded.calls.insert(id.clone(), capability_id);
                            }
                        }
                    }
                }
                messages.push(message.clone());
                origins.push((0..response.parts.len()).collect());
                continue;
            }
            ModelMessage::Request(request) => request,
        };
        // `window_boundary_index`: in the request the current window opened at, only the changes
        // after the part that opened it count.
        let opened_at = if index == current_start {
            request.parts.iter().rposition(is_window_boundary)
        } else {
            None
        };
        let mut parts = Vec::with_capacity(request.parts.len());
        let mut kept = Vec::with_capacity(request.parts.len());
        for (part_index, part) in request.parts.iter().enumerate() {
            let at = PartLocation {
                message: index,
                part: part_index,
            };
            let in_loads_window = (index, part_index) >= loads_start;
            match part {
                ModelRequestPart::InstructionDelta(delta) => {
                    let id = instruction_id(&delta.id, at, &format!("$[{index}].parts[{part_index}].id"))?;
                    let rendered = match id {
                        // `loaded.tracks(part)`: a statement of a loaded capability's block, which no
                        // window restates, so it stays in effect until the compaction ending the load.
                        Some(id) if in_loads_window && loaded.tracks(&id) => {
                            let previous = loaded.apply(&id, delta.content.clone());
                            Some(render(delta, &id, previous.as_deref(), inline_system))
                        }
                        // A change of the current window; one a newer version wrote (`id` loads as
                        // `None`) is superseded by the window the next request opens.
                        Some(id) if index >= current_start && opened_at.is_none_or(|opened| part_index > opened) => {
                            let previous = values.apply(&id, delta.content.clone());
                            Some(render(delta, &id, previous.as_deref(), inline_system))
                        }
                        _ => None,
                    };
                    if let Some(content) = rendered {
                        parts.push(ModelRequestPart::SystemPrompt(SystemPromptPart::new(content)));
                        kept.push(part_index);
                    }
                }
                ModelRequestPart::InstructionBaseline(baseline) => {
                    if in_loads_window {
                        loaded.observe_baseline(baseline, index, part_index)?;
                    }
                }
                other => {
                    if in_loads_window {
                        match other {
                            ModelRequestPart::CapabilityLoadDelta(load) => {
                                loaded.load(load.loaded.get().map_or(&[][..], Vec::as_slice));
                            }
                            // `LoadExchanges.observe`: a `LoadCapabilityReturnPart` loads the
                            // capability its call named (a failed load is a base part, loading
                            // nothing). The instructions it may carry seed the block's value, which
                            // no change is rendered against (`apply`: only a change's own value is).
                            ModelRequestPart::ToolReturn(ret)
                                if matches!(
                                    typed::return_route(&ret.tool_kind, &ret.outcome, true),
                                    typed::Route::Typed(kind) if kind.tool_kind() == typed::CAPABILITY_LOAD
                                ) =>
                            {
                                let capability_id = ret.tool_call_id.get().and_then(|id| loaded.calls.get(id)).cloned();
                                if let Some(capability_id) = capability_id {
                                    loaded.load(&[capability_id]);
                                }
                            }
                            _ => {}
                        }
                    }
                    parts.push(other.clone());
                    kept.push(part_index);
                }
            }
        }
        messages.push(ModelMessage::Request(Box::new(ModelRequest {
            parts,
            timestamp: request.timestamp.clone(),
            instructions: request.instructions.clone(),
            run_id: request.run_id.clone(),
            conversation_id: request.conversation_id.clone(),
            metadata: request.metadata.clone(),
            state: request.state.clone(),
            extra: request.extra.clone(),
        })));
        origins.push(kept);
    }
    Ok(Some(Projection { messages, origins }))
}

fn is_instruction_state(part: &ModelRequestPart) -> bool {
    matches!(
        part,
        ModelRequestPart::InstructionDelta(_) | ModelRequestPart::InstructionBaseline(_)
    )
}

/// `is_window_boundary` for a request part: a baseline, or a compaction.
fn is_window_boundary(part: &ModelRequestPart) -> bool {
    matches!(
        part,
        ModelRequestPart::InstructionBaseline(_) | ModelRequestPart::Compaction(_)
    )
}

/// `_opens_instruction_window`: a request recording a baseline, or a compaction on either side.
fn opens_instruction_window(message: &ModelMessage) -> bool {
    match message {
        ModelMessage::Request(request) => request.parts.iter().any(is_window_boundary),
        ModelMessage::Response(response) => response
            .parts
            .iter()
            .any(|part| matches!(part, ModelResponsePart::Compaction(_))),
    }
}

/// `instruction_window_start`: the last message that opens a window, or 0.
fn instruction_window_start(history: &[ModelMessage]) -> usize {
    history.iter().rposition(opens_instruction_window).unwrap_or(0)
}

/// `instruction_window` (`advance_instruction_window` over every part in order): the baseline of
/// the window the history ends in; a compaction after it ends it.
fn instruction_window(history: &[ModelMessage]) -> Option<(usize, usize, &msgflow_wire::InstructionBaselinePart)> {
    let mut window = None;
    for (index, message) in history.iter().enumerate() {
        match message {
            ModelMessage::Request(request) => {
                for (part_index, part) in request.parts.iter().enumerate() {
                    match part {
                        ModelRequestPart::InstructionBaseline(baseline) => window = Some((index, part_index, baseline)),
                        ModelRequestPart::Compaction(_) => window = None,
                        _ => {}
                    }
                }
            }
            ModelMessage::Response(response) => {
                if response
                    .parts
                    .iter()
                    .any(|part| matches!(part, ModelResponsePart::Compaction(_)))
                {
                    window = None;
                }
            }
        }
    }
    window
}

/// `_post_compaction_window_start`: the latest compaction (a response's part, or the turn start of
/// a request holding one: the run of requests before it), as (message, part); `(0, 0)` without.
fn post_compaction_window_start(history: &[ModelMessage]) -> (usize, usize) {
    for (index, message) in history.iter().enumerate().rev() {
        match message {
            ModelMessage::Response(response) => {
                if let Some(part) = response
                    .parts
                    .iter()
                    .rposition(|part| matches!(part, ModelResponsePart::Compaction(_)))
                {
                    return (index, part);
                }
            }
            ModelMessage::Request(request) => {
                if request
                    .parts
                    .iter()
                    .any(|part| matches!(part, ModelRequestPart::Compaction(_)))
                {
                    // `_request_turn_start`.
                    let mut start = index;
                    while start > 0 && matches!(history[start - 1], ModelMessage::Request(_)) {
                        start -= 1;
                    }
                    return (start, 0);
                }
            }
        }
    }
    (0, 0)
}

/// An `InstructionId` as `_deserialize_instruction_id` reads it from its string, kept as that
/// string (`str(id)`, which is the string itself for every namespace it knows).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct InstructionId {
    rendered: String,
    /// `_loaded_block_capability_id`: the capability whose loaded block this id is
    /// (`capability:<id>`, no name).
    loaded_block_of: Option<String>,
}

/// The instruction blocks of a baseline (message `index`, part `part_index`) that have an id
/// pydantic-ai reads, with it.
fn identified_blocks(
    baseline: &msgflow_wire::InstructionBaselinePart,
    index: usize,
    part_index: usize,
) -> Result<Vec<(InstructionId, &msgflow_wire::InstructionPart)>, ExportError> {
    let at = PartLocation {
        message: index,
        part: part_index,
    };
    let mut blocks = Vec::new();
    for (block_index, block) in baseline.instructions.iter().enumerate() {
        let InstructionBlock::Instruction(part) = block else {
            continue;
        };
        let Some(raw) = part.id.get() else {
            continue;
        };
        let path = format!("$[{index}].parts[{part_index}].instructions[{block_index}].id");
        if let Some(id) = instruction_id(raw, at, &path)? {
            blocks.push((id, part));
        }
    }
    Ok(blocks)
}

/// `_deserialize_instruction_id`: `agent`, `agent:<name>`, `run:<name>`, `toolset:<id>[:<name>]`,
/// `capability:<id>[:<name>]`; any other string (a newer version's namespace) and `null` load as
/// `None`. The object form the validation schema also takes is refused.
fn instruction_id(raw: &RawJson, at: PartLocation, path: &str) -> Result<Option<InstructionId>, ExportError> {
    if raw.is_null() {
        return Ok(None);
    }
    let Some(text) = raw.as_string() else {
        return Err(ExportError::unsupported(
            at,
            path,
            "an instruction id in its object form (pydantic-ai resolves its `source` by a smart union of the source types, `{}` as the agent's and `{\"id\": ...}` as a toolset's; send the id as its string)",
        ));
    };
    if !is_addressable_instruction_id(&text) {
        return Ok(None);
    }
    let loaded_block_of = text
        .strip_prefix("capability:")
        .filter(|rest| !rest.contains(':'))
        .map(str::to_owned);
    Ok(Some(InstructionId {
        rendered: text,
        loaded_block_of,
    }))
}

/// Whether `_deserialize_instruction_id` reads the string as an id (`agent`, `agent:<name>`,
/// `run:<name>`, `toolset:<id>[:<name>]`, `capability:<id>[:<name>]`); `str()` of the id it makes
/// is the string again.
fn is_addressable_instruction_id(text: &str) -> bool {
    text == "agent"
        || ["agent:", "run:", "toolset:", "capability:"]
            .iter()
            .any(|prefix| text.starts_with(prefix))
}

/// `InstructionDeltaPart.render()` with its defaults (`inline_system=True`, no previous text), as
/// `InstructionDeltaPart.otel_message_parts` records a change on a trace: the block's
/// `<pyai:context>` element holding the replacement, or its withdrawal. An id pydantic-ai loads as
/// `None` (`null`, a namespace it does not know) makes an element without an `id` attribute.
/// `None` for an id in its object form, whose source pydantic-ai resolves by a smart union msgflow
/// does not mirror.
pub fn instruction_delta_rendered(id: &serde_json::Value, content: Option<&str>) -> Option<String> {
    let id = match id {
        serde_json::Value::Null => None,
        serde_json::Value::String(text) => Some(text.as_str()).filter(|text| is_addressable_instruction_id(text)),
        _ => return None,
    };
    let content = content.unwrap_or(framing::withdrawal_text(true));
    Some(framing::instruction_context_element(id, content))
}

/// `InstructionValues`: each block's value as the model last received it in the window, folded
/// forward through the window's changes.
struct InstructionValues(HashMap<InstructionId, Option<String>>);

impl InstructionValues {
    /// `InstructionValues.at(baseline)`: the baseline's `InstructionPart` blocks with an id, an
    /// empty one as `None` (`part.content or None`).
    fn at(window: Option<(usize, usize, &msgflow_wire::InstructionBaselinePart)>) -> Result<Self, ExportError> {
        let mut values = HashMap::new();
        if let Some((index, part_index, baseline)) = window {
            for (id, part) in identified_blocks(baseline, index, part_index)? {
                values.insert(id, Some(part.content.clone()).filter(|content| !content.is_empty()));
            }
        }
        Ok(InstructionValues(values))
    }

    /// `InstructionValues.apply`: folds in a change, returning the value it replaces.
    fn apply(&mut self, id: &InstructionId, content: Option<String>) -> Option<String> {
        self.0.insert(id.clone(), content).flatten()
    }
}

/// `LoadedInstructionValues` over the parts msgflow exports: capabilities are loaded by a
/// `CapabilityLoadDeltaPart` or a `load_capability` exchange (`LoadCapabilityCallPart` and its
/// `LoadCapabilityReturnPart`, `LoadExchanges`).
#[derive(Default)]
struct LoadedInstructionValues {
    /// `LoadExchanges._calls`: each `load_capability` call's id and the capability it names.
    calls: HashMap<String, String>,
    /// Each loaded capability's block text as last delivered (`values`).
    values: HashMap<String, Option<String>>,
    /// The capabilities whose value a change delivered rather than their load (`_changed`).
    changed: Vec<String>,
}

impl LoadedInstructionValues {
    /// `observe` of a `CapabilityLoadDeltaPart`: each capability is (re)loaded with no statement yet.
    fn load(&mut self, capability_ids: &[String]) {
        for capability_id in capability_ids {
            self.values.insert(capability_id.clone(), None);
            self.changed.retain(|changed| changed != capability_id);
        }
    }

    /// `observe` of a baseline: a loaded capability's block recorded in the prefix (the capability
    /// is eager now) is no longer the load's.
    fn observe_baseline(
        &mut self,
        baseline: &msgflow_wire::InstructionBaselinePart,
        index: usize,
        part_index: usize,
    ) -> Result<(), ExportError> {
        for (id, _) in identified_blocks(baseline, index, part_index)? {
            if let Some(capability_id) = id.loaded_block_of {
                self.values.remove(&capability_id);
                self.changed.retain(|changed| *changed != capability_id);
            }
        }
        Ok(())
    }

    /// `tracks`: a change to a loaded capability's block.
    fn tracks(&self, id: &InstructionId) -> bool {
        id.loaded_block_of
            .as_ref()
            .is_some_and(|capability_id| self.values.contains_key(capability_id))
    }

    /// `apply`: folds in a change `tracks` accepted, returning the value it replaces only when an
    /// earlier change delivered it (the first change after a load is rendered in full).
    fn apply(&mut self, id: &InstructionId, content: Option<String>) -> Option<String> {
        let capability_id = id.loaded_block_of.clone().unwrap_or_default();
        let previous = self.values.insert(capability_id.clone(), content).flatten();
        if self.changed.contains(&capability_id) {
            previous
        } else {
            self.changed.push(capability_id);
            None
        }
    }
}

/// `InstructionDeltaPart.render(inline_system=..., previous=...)`: a replacement as the block's
/// `<pyai:context>` element, or as a `<pyai:context_diff>` of a unified diff against `previous`
/// when `previous` is the text the change replaces (its SHA-256 is `base_hash`) and the diff is
/// shorter (`len`, in code points); a withdrawal as the element saying so, worded for the channel.
fn render(delta: &InstructionDeltaPart, id: &InstructionId, previous: Option<&str>, inline_system: bool) -> String {
    let Some(content) = delta.content.as_deref() else {
        return framing::instruction_context_element(Some(&id.rendered), framing::withdrawal_text(inline_system));
    };
    let full = framing::instruction_context_element(Some(&id.rendered), content);
    if let (Some(previous), Some(base_hash)) = (previous, delta.base_hash.get()) {
        if instruction_text_hash(previous) == *base_hash {
            let before: Vec<&str> = previous.split('\n').collect();
            let after: Vec<&str> = content.split('\n').collect();
            let diff =
                framing::instruction_context_diff_element(&id.rendered, &difflib::unified_diff(&before, &after, 2));
            if diff.chars().count() < full.chars().count() {
                return diff;
            }
        }
    }
    full
}

/// `_instruction_text_hash`: the SHA-256 hex digest of the text's UTF-8.
fn instruction_text_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}
