//! [`repair`]: pydantic-ai 2.68.0's `repair_messages`, on the wire types, with a report.

use foldhash::HashMap;

use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, ToolReturnOutcome,
    ToolReturnPart,
};

use crate::pairing::{self, Pos};
use crate::report::{Change, MoveReason, RepairReport};

/// pydantic-ai's content for synthesized results (`INTERRUPTED_TOOL_RETURN_CONTENT` in
/// `_history_repair.py`).
pub const PYDANTIC_AI_SYNTHESIZED_CONTENT: &str = "The tool call was interrupted before a result was produced.";

/// msgflow's default content for synthesized results: pydantic-ai's, so a history repaired by
/// msgflow is the one pydantic-ai's own repair makes (and a prompt cache sees the same text).
pub const DEFAULT_SYNTHESIZED_CONTENT: &str = PYDANTIC_AI_SYNTHESIZED_CONTENT;

/// The metadata key pydantic-ai sets to `true` on synthesized results.
pub const SYNTHESIZED_METADATA_KEY: &str = "pydantic_ai_synthesized_tool_return";

/// The metadata namespace reserved for pydantic-ai, the only metadata a request merge keeps.
const FRAMEWORK_METADATA_KEY: &str = "__pydantic_ai__";

/// How [`repair`] behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepairOptions {
    /// The `content` of synthesized results. Default [`DEFAULT_SYNTHESIZED_CONTENT`]
    /// (pydantic-ai's own text); any other text, such as `[Aborted by user]`, makes the output
    /// differ from pydantic-ai's in that content only.
    pub content: String,
    /// Close out the dangling calls of the last response too (pydantic-ai's
    /// `repair_last_response`). Default `true`; `false` leaves that live frontier alone, for a
    /// run that will still execute or answer those calls.
    pub repair_last_response: bool,
    /// Also resolve what pydantic-ai's repair leaves and `check` reports, where nothing is lost
    /// silently: builtin tool calls without their `builtin-tool-return` and messages without parts
    /// (but a trailing empty request, pydantic-ai's frontier) are removed, each kept whole in the
    /// report. Default `false`: the output is then exactly pydantic-ai's.
    pub resolve_remaining: bool,
}

impl Default for RepairOptions {
    fn default() -> Self {
        Self {
            content: DEFAULT_SYNTHESIZED_CONTENT.to_owned(),
            repair_last_response: true,
            resolve_remaining: false,
        }
    }
}

/// The result of [`repair`].
#[derive(Clone, Debug, PartialEq)]
pub struct Repair {
    /// The repaired history.
    pub history: Vec<ModelMessage>,
    /// Every change made, including everything removed or discarded.
    pub report: RepairReport,
}

/// Where a part of the working history came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// An input part at this (input message, part) position.
    Input(Pos),
    /// The synthesized result with this index in `Repairer::synthesized`.
    Synthesized(usize),
}

struct Tracked<P> {
    origin: Origin,
    part: P,
}

/// A request's or a response's parts, each with where it came from.
enum TrackedParts {
    Request(Vec<Tracked<ModelRequestPart>>),
    Response(Vec<Tracked<ModelResponsePart>>),
}

/// A message of the working history. Most messages of a big history pass through untouched, so
/// a message keeps its parts where they were read until a pass changes them (`tracked`): a
/// repair then costs the size of what it changes, not of the history.
struct Work {
    /// The message; its `parts` are empty while `tracked` holds them.
    message: ModelMessage,
    /// `None`: `message.parts` are the parts of input message `inputs.first`, in input order.
    tracked: Option<TrackedParts>,
    /// The input messages it holds (several after a merge; none for an inserted request).
    inputs: Inputs,
    /// The own fields of each merged input message, filled when a merge happens.
    originals: Vec<serde_json::Value>,
    /// Set once consecutive requests were merged into this one (keeps merging chains linear).
    merged: Option<Box<MergedRequest>>,
}

/// The input messages a [`Work`] holds, without an allocation for the usual single one.
#[derive(Default)]
struct Inputs {
    first: Option<usize>,
    more: Vec<usize>,
}

impl Inputs {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    fn append(&mut self, other: Inputs) {
        match self.first {
            None => *self = other,
            Some(_) => self.more.extend(other.first.into_iter().chain(other.more)),
        }
    }

    fn into_vec(self) -> Vec<usize> {
        self.first.into_iter().chain(self.more).collect()
    }
}

impl Work {
    fn input(index: usize, message: ModelMessage) -> Self {
        Work {
            message,
            tracked: None,
            inputs: Inputs {
                first: Some(index),
                more: Vec::new(),
            },
            originals: Vec::new(),
            merged: None,
        }
    }

    /// A request the repair adds.
    fn inserted(parts: Vec<Tracked<ModelRequestPart>>) -> Self {
        Work {
            message: ModelMessage::from(ModelRequest::new(Vec::new())),
            tracked: Some(TrackedParts::Request(parts)),
            inputs: Inputs::default(),
            originals: Vec::new(),
            merged: None,
        }
    }

    /// The request and its tracked parts (taken out of the message on first use); `None` for a
    /// response.
    fn request_parts(&mut self) -> Option<(&mut ModelRequest, &mut Vec<Tracked<ModelRequestPart>>)> {
        let ModelMessage::Request(request) = &mut self.message else {
            return None;
        };
        if self.tracked.is_none() {
            // Untracked parts are an input message's (an inserted request starts out tracked).
            let input = self.inputs.first?;
            self.tracked = Some(TrackedParts::Request(tracked(
                input,
                std::mem::take(&mut request.parts),
            )));
        }
        match self.tracked.as_mut()? {
            TrackedParts::Request(parts) => Some((request, parts)),
            TrackedParts::Response(_) => None,
        }
    }

    /// The response's tracked parts (taken out of the message on first use); `None` for a
    /// request.
    fn response_parts(&mut self) -> Option<&mut Vec<Tracked<ModelResponsePart>>> {
        let ModelMessage::Response(response) = &mut self.message else {
            return None;
        };
        if self.tracked.is_none() {
            let input = self.inputs.first?;
            self.tracked = Some(TrackedParts::Response(tracked(
                input,
                std::mem::take(&mut response.parts),
            )));
        }
        match self.tracked.as_mut()? {
            TrackedParts::Response(parts) => Some(parts),
            TrackedParts::Request(_) => None,
        }
    }

    /// Whether a request's parts hold content between tool results (see
    /// [`Repairer::move_from_between_results`]): for parts still as read, as the plan found.
    fn has_content_between_results(&self, plan: &Plan) -> bool {
        match (&self.tracked, &self.message, self.inputs.first) {
            (Some(TrackedParts::Request(parts)), _, _) => content_between(parts.iter().map(|t| &t.part)),
            (None, ModelMessage::Request(_), Some(input)) => plan.content_between_results.binary_search(&input).is_ok(),
            _ => false,
        }
    }

    /// Whether the message has no parts (as read, or tracked).
    fn is_empty(&self) -> bool {
        match (&self.tracked, &self.message) {
            (Some(TrackedParts::Request(parts)), _) => parts.is_empty(),
            (Some(TrackedParts::Response(parts)), _) => parts.is_empty(),
            (None, ModelMessage::Request(request)) => request.parts.is_empty(),
            (None, ModelMessage::Response(response)) => response.parts.is_empty(),
        }
    }

    /// The message's own fields (every key but `parts`) as JSON.
    fn own_fields(&mut self) -> serde_json::Value {
        match &mut self.message {
            ModelMessage::Request(request) => without_parts(request, |request| &mut request.parts),
            ModelMessage::Response(response) => without_parts(response, |response| &mut response.parts),
        }
    }
}

/// `header`'s fields but `parts` (set aside while it is serialised) as JSON.
fn without_parts<T: serde::Serialize, P>(header: &mut T, parts: impl Fn(&mut T) -> &mut Vec<P>) -> serde_json::Value {
    let held = std::mem::take(parts(header));
    let fields = header_fields(header);
    *parts(header) = held;
    fields
}

/// The state of a merged request while further requests may join it: the tracked parts hold
/// the results (which sort first), `rest` the other parts; the framework metadata namespace is
/// kept parsed. Both are folded back in [`Repairer::finish`].
#[derive(Default)]
struct MergedRequest {
    rest: Vec<Tracked<ModelRequestPart>>,
    namespace: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A synthesized result's provenance, for the report.
struct Synthesized {
    tool_call_id: Option<String>,
    tool_name: String,
    call: Pos,
}

/// Repairs `history` exactly as pydantic-ai 2.68.0's
/// `repair_messages(history, repair_last_response=options.repair_last_response)` does, except
/// that synthesized results carry `options.content`.
///
/// The three passes, in pydantic-ai's order:
/// 1. results answering no earlier call (by `tool_call_id`) are removed; an interior request left
///    empty is removed, a trailing one is kept (the history still ends on a request);
/// 2. each dangling call gets a synthesized `tool-return` (outcome `interrupted`, metadata
///    `{"pydantic_ai_synthesized_tool_return":true}`, the call's `tool_name` / `tool_call_id` /
///    `tool_kind`, the timestamp of the response that made the call), placed right after the
///    existing results of the next message if it is a request, else in a new request;
/// 3. consecutive requests with compatible instructions are merged (results first, stable),
///    consecutive synthetic responses are merged, and in other requests the parts sitting between
///    tool results move right after the last result.
///
/// Before the passes, a tool call without a `tool_call_id` gets one derived from its position
/// (`msgflow_call_<message>_<part>`), reported as a change: pydantic-ai gives such a call a random
/// id on load, and without an id the result synthesized for it could never answer it.
///
/// With `options.resolve_remaining`, a pass between 2 and 3 removes the builtin calls no
/// `builtin-tool-return` answers and the messages left without parts (not a trailing request),
/// which pydantic-ai's repair keeps; pass 3 then merges the requests such a removal brings together.
///
/// Nothing is lost: removed parts and the fields a merge discards are in the report. Runs in
/// linear time; deterministic and idempotent (repairing the output changes nothing).
pub fn repair(mut history: Vec<ModelMessage>, options: &RepairOptions) -> Repair {
    let mut repairer = Repairer::default();
    let plan = Plan::of(&mut history, options, &mut repairer.changes);
    let work = repairer.drop_orphans(history, &plan.orphans);
    let work = repairer.close_dangling(work, &plan.dangling, options);
    let work = if options.resolve_remaining {
        repairer.drop_unresolvable(work, &plan.unanswered_builtin)
    } else {
        work
    };
    let work = repairer.merge_consecutive(work, &plan);
    repairer.finish(work)
}

/// What the passes will change, found in one pass over the input (a pass per question costs a
/// trip through memory each on a big history). The matching walk does not see orphans (no call
/// has their key), so it gives the same dangling calls before pass 1 as after it, at input
/// positions.
struct Plan {
    /// The orphan results, in input order.
    orphans: Vec<Pos>,
    /// The calls to close, by input response.
    dangling: HashMap<usize, Vec<usize>>,
    /// The input requests with other content between their tool results, in input order.
    content_between_results: Vec<usize>,
    /// The builtin calls no builtin return answers, in input order (only with `resolve_remaining`).
    unanswered_builtin: Vec<Pos>,
}

impl Plan {
    /// Also gives every tool call without a `tool_call_id` a deterministic one (recorded in
    /// `changes`), so that the walk can match it.
    fn of(history: &mut [ModelMessage], options: &RepairOptions, changes: &mut Vec<Change>) -> Self {
        let mut matcher = pairing::Matcher::with_capacity(history.len());
        let mut builtin = options.resolve_remaining.then(pairing::BuiltinMatcher::default);
        let mut orphans = Vec::new();
        let mut content_between_results = Vec::new();
        for (index, message) in history.iter_mut().enumerate() {
            if let ModelMessage::Response(response) = message {
                assign_missing_call_ids(index, response, changes);
            }
            // Read-only from here on, for as long as the matcher holds its ids.
            let message: &ModelMessage = message;
            match message {
                ModelMessage::Response(response) => {
                    matcher.response(index);
                    for (part, key) in pairing::calls_of(index, response.parts.iter()) {
                        matcher.call(Pos { message: index, part }, key);
                    }
                    if let Some(builtin) = builtin.as_mut() {
                        for (part, response_part) in response.parts.iter().enumerate() {
                            match response_part {
                                ModelResponsePart::BuiltinToolCall(call) => {
                                    builtin.call(Pos { message: index, part }, &call.tool_call_id);
                                }
                                ModelResponsePart::BuiltinToolReturn(ret) => {
                                    builtin.ret(&ret.tool_call_id);
                                }
                                _ => {}
                            }
                        }
                    }
                }
                ModelMessage::Request(request) => {
                    for (part, key) in pairing::results_of(index, request.parts.iter()) {
                        if matcher.result(&key) == pairing::Answer::NoSuchCall {
                            orphans.push(Pos { message: index, part });
                        }
                    }
                    if content_between(request.parts.iter()) {
                        content_between_results.push(index);
                    }
                }
            }
        }
        let walk = matcher.finish();
        let mut dangling = walk.dangling;
        if !options.repair_last_response {
            if let Some(last) = walk.last_response {
                dangling.remove(&last);
            }
        }
        dangling.retain(|_, calls| !calls.is_empty());
        let unanswered_builtin = builtin.map_or_else(Vec::new, |builtin| {
            builtin.finish().into_iter().map(|(pos, _)| pos).collect()
        });
        Plan {
            orphans,
            dangling,
            content_between_results,
            unanswered_builtin,
        }
    }
}

/// Gives every tool call of input response `input_message` without a `tool_call_id` one derived
/// from its position.
fn assign_missing_call_ids(input_message: usize, response: &mut ModelResponse, changes: &mut Vec<Change>) {
    for (input_part, part) in response.parts.iter_mut().enumerate() {
        let ModelResponsePart::ToolCall(call) = part else {
            continue;
        };
        if call.tool_call_id.get().is_some() {
            continue;
        }
        let tool_call_id = format!("msgflow_call_{input_message}_{input_part}");
        call.tool_call_id = Field::Present(tool_call_id.clone());
        changes.push(Change::AssignedToolCallId {
            input_message,
            input_part,
            tool_call_id,
        });
    }
}

#[derive(Default)]
struct Repairer {
    changes: Vec<Change>,
    synthesized: Vec<Synthesized>,
    moved: HashMap<Pos, MoveReason>,
}

/// The fields of a message header (its parts are held apart, so `parts` is empty) without `parts`.
fn header_fields<T: serde::Serialize>(header: &T) -> serde_json::Value {
    match serde_json::to_value(header) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.shift_remove("parts");
            serde_json::Value::Object(object)
        }
        // The wire types always serialise as objects; keep whatever came out rather than panic.
        Ok(other) => other,
        Err(err) => serde_json::Value::String(format!("unserialisable message fields: {err}")),
    }
}

/// `parts` tagged with their positions in input message `message`.
fn tracked<P>(message: usize, parts: Vec<P>) -> Vec<Tracked<P>> {
    parts
        .into_iter()
        .enumerate()
        .map(|(part, p)| Tracked {
            origin: Origin::Input(Pos { message, part }),
            part: p,
        })
        .collect()
}

impl Repairer {
    /// Pass 1, pydantic-ai's `_drop_orphaned_tool_results`: removes `orphans`, and the interior
    /// requests they leave empty.
    fn drop_orphans(&mut self, history: Vec<ModelMessage>, orphans: &[Pos]) -> Vec<Work> {
        let last_index = history.len().checked_sub(1);
        let mut orphans = orphans.iter().copied().peekable();
        let mut work = Vec::with_capacity(history.len() + 1);
        for (index, message) in history.into_iter().enumerate() {
            let mut message = Work::input(index, message);
            if orphans.peek().is_some_and(|orphan| orphan.message == index) {
                if let Some((_, parts)) = message.request_parts() {
                    for tracked in std::mem::take(parts) {
                        let Origin::Input(pos) = tracked.origin else {
                            parts.push(tracked);
                            continue;
                        };
                        if orphans.next_if_eq(&pos).is_some() {
                            self.changes.push(Change::RemovedOrphanReturn {
                                input_message: pos.message,
                                input_part: pos.part,
                                tool_call_id: pairing::result_id(&tracked.part).and_then(|id| id.get().cloned()),
                                part: Box::new(tracked.part),
                            });
                        } else {
                            parts.push(tracked);
                        }
                    }
                    if parts.is_empty() && Some(index) != last_index {
                        self.changes.push(Change::RemovedEmptyRequest {
                            input_message: index,
                            fields: message.own_fields(),
                        });
                        continue;
                    }
                }
            }
            work.push(message);
        }
        work
    }

    /// Pass 2, pydantic-ai's `_repair_dangling_tool_calls`: a synthesized result for each call
    /// in `dangling` (by input response), after the results of the next message if it is a
    /// request, else in a new request.
    fn close_dangling(
        &mut self,
        work: Vec<Work>,
        dangling: &HashMap<usize, Vec<usize>>,
        options: &RepairOptions,
    ) -> Vec<Work> {
        if dangling.is_empty() {
            return work;
        }
        let content = RawJson::string(&options.content);
        let mut metadata_object = serde_json::Map::new();
        metadata_object.insert(SYNTHESIZED_METADATA_KEY.to_owned(), serde_json::Value::Bool(true));
        let metadata = RawJson::from(serde_json::Value::Object(metadata_object));

        let mut repaired = Vec::with_capacity(work.len() + 1);
        let mut pending: Vec<Tracked<ModelRequestPart>> = Vec::new();
        for mut message in work {
            match &message.message {
                ModelMessage::Response(response) => {
                    if !pending.is_empty() {
                        repaired.push(Work::inserted(std::mem::take(&mut pending)));
                    }
                    // Responses are still as read here: input part `index` is `parts[index]`.
                    let Some(input) = message.inputs.first else {
                        repaired.push(message);
                        continue;
                    };
                    for &part_index in dangling.get(&input).map(Vec::as_slice).unwrap_or_default() {
                        let Some(ModelResponsePart::ToolCall(call)) = response.parts.get(part_index) else {
                            continue;
                        };
                        let mut synthesized = ToolReturnPart::new(call.tool_name.clone(), content.clone());
                        synthesized.tool_call_id = call.tool_call_id.clone();
                        synthesized.tool_kind = match call.tool_kind.get() {
                            Some(kind) => Field::Present(kind.clone()),
                            None => Field::Null,
                        };
                        synthesized.metadata = Field::Present(metadata.clone());
                        synthesized.timestamp = response.timestamp.clone();
                        synthesized.outcome = Field::Present(ToolReturnOutcome::Interrupted);
                        self.synthesized.push(Synthesized {
                            tool_call_id: call.tool_call_id.get().cloned(),
                            tool_name: call.tool_name.clone(),
                            call: Pos {
                                message: input,
                                part: part_index,
                            },
                        });
                        pending.push(Tracked {
                            origin: Origin::Synthesized(self.synthesized.len() - 1),
                            part: ModelRequestPart::ToolReturn(synthesized),
                        });
                    }
                }
                ModelMessage::Request(_) => {
                    if !pending.is_empty() {
                        if let Some((_, parts)) = message.request_parts() {
                            let insert_at = parts
                                .iter()
                                .rposition(|tracked| pairing::is_tool_result(&tracked.part))
                                .map_or(0, |last| last + 1);
                            parts.splice(insert_at..insert_at, std::mem::take(&mut pending));
                        }
                    }
                }
            }
            repaired.push(message);
        }
        if !pending.is_empty() {
            repaired.push(Work::inserted(pending));
        }
        repaired
    }

    /// The opt-in pass (`resolve_remaining`, not pydantic-ai's): removes the builtin calls in
    /// `unanswered` (input positions, in input order), then every message left without parts but
    /// a trailing request. Runs after pass 2, so an empty request that received synthesized
    /// results stays.
    fn drop_unresolvable(&mut self, work: Vec<Work>, unanswered: &[Pos]) -> Vec<Work> {
        let last_index = work.len().checked_sub(1);
        let mut unanswered = unanswered.iter().copied().peekable();
        let mut kept = Vec::with_capacity(work.len());
        for (index, mut message) in work.into_iter().enumerate() {
            let input = message.inputs.first;
            if input.is_some() && unanswered.peek().map(|pos| pos.message) == input {
                if let Some(parts) = message.response_parts() {
                    for tracked in std::mem::take(parts) {
                        match tracked.origin {
                            Origin::Input(pos) if unanswered.next_if_eq(&pos).is_some() => {
                                let tool_call_id = match &tracked.part {
                                    ModelResponsePart::BuiltinToolCall(call) => call.tool_call_id.get().cloned(),
                                    _ => None,
                                };
                                self.changes.push(Change::RemovedBuiltinCall {
                                    input_message: pos.message,
                                    input_part: pos.part,
                                    tool_call_id,
                                    part: Box::new(tracked.part),
                                });
                            }
                            _ => parts.push(tracked),
                        }
                    }
                }
            }
            let trailing_request = Some(index) == last_index && matches!(message.message, ModelMessage::Request(_));
            if message.is_empty() && !trailing_request {
                if let Some(input_message) = input {
                    self.changes.push(Change::RemovedEmptyMessage {
                        input_message,
                        fields: message.own_fields(),
                    });
                    continue;
                }
            }
            kept.push(message);
        }
        kept
    }

    /// Pass 3, pydantic-ai's `_merge_consecutive_messages`.
    fn merge_consecutive(&mut self, work: Vec<Work>, plan: &Plan) -> Vec<Work> {
        let mut clean: Vec<Work> = Vec::with_capacity(work.len());
        for mut message in work {
            let merged = match clean.last_mut() {
                Some(last) => match message.message {
                    ModelMessage::Request(_) => self.merge_request(last, &mut message),
                    ModelMessage::Response(_) => merge_response(last, &mut message),
                },
                None => false,
            };
            if merged {
                if let Some(last) = clean.last_mut() {
                    last.inputs.append(std::mem::take(&mut message.inputs));
                }
                continue;
            }
            if message.has_content_between_results(plan) {
                if let Some((_, parts)) = message.request_parts() {
                    self.move_from_between_results(parts);
                }
            }
            clean.push(message);
        }
        clean
    }

    /// pydantic-ai's `_append_request` merge branch; `false` when request `joining` cannot join
    /// `last`.
    ///
    /// The merged parts are a stable sort of the concatenation, results first. `last` keeps its
    /// results and other parts apart ([`MergedRequest`]), so each merge costs only the size of
    /// the joining request.
    fn merge_request(&mut self, last: &mut Work, joining: &mut Work) -> bool {
        let (ModelMessage::Request(last_request), ModelMessage::Request(request)) = (&last.message, &joining.message)
        else {
            return false;
        };
        let non_empty = |instructions: &Field<String>| instructions.get().filter(|text| !text.is_empty()).is_some();
        if non_empty(&last_request.instructions)
            && non_empty(&request.instructions)
            && last_request.instructions.get() != request.instructions.get()
        {
            return false;
        }
        if last.originals.is_empty() {
            let fields = last.own_fields();
            last.originals.push(fields);
        }
        let fields = joining.own_fields();
        last.originals.push(fields);
        let mut merged_state = last.merged.take();
        let (Some((last_request, last_parts)), Some((request, parts))) =
            (last.request_parts(), joining.request_parts())
        else {
            return false;
        };
        let state = merged_state.get_or_insert_with(|| {
            // First merge: split the earlier request's parts, results first.
            let mut results = Vec::with_capacity(last_parts.len());
            let mut rest = Vec::new();
            for tracked in std::mem::take(last_parts) {
                self.sort_part(tracked, &mut results, &mut rest);
            }
            *last_parts = results;
            let namespace = framework_namespace(&last_request.metadata);
            Box::new(MergedRequest { rest, namespace })
        });
        for tracked in std::mem::take(parts) {
            self.sort_part(tracked, last_parts, &mut state.rest);
        }

        // `instructions`: the earlier ones if non-empty, else the later ones (pydantic-ai's `or`).
        let instructions = match std::mem::take(&mut last_request.instructions) {
            Field::Present(text) if !text.is_empty() => Field::Present(text),
            _ => match std::mem::take(&mut request.instructions) {
                Field::Present(text) => Field::Present(text),
                Field::Absent | Field::Null => Field::Null,
            },
        };
        // `timestamp`: the later one if set, else the earlier one.
        let timestamp = match (
            std::mem::take(&mut request.timestamp),
            std::mem::take(&mut last_request.timestamp),
        ) {
            (Field::Present(later), _) => Field::Present(later),
            (_, Field::Present(earlier)) => Field::Present(earlier),
            _ => Field::Null,
        };
        // `metadata`: only the `__pydantic_ai__` namespace, shallow-merged, later keys winning.
        if let Some(later) = framework_namespace(&request.metadata) {
            let merged = state.namespace.get_or_insert_with(serde_json::Map::new);
            for (key, value) in later {
                merged.insert(key, value);
            }
        }
        let mut merged = ModelRequest::new(Vec::new());
        merged.instructions = instructions;
        merged.timestamp = timestamp;
        *last_request = merged;
        last.merged = merged_state;
        true
    }
    /// Appends a part to a merged request's results or other parts; a result that follows other
    /// content in the concatenation has moved.
    fn sort_part(
        &mut self,
        tracked: Tracked<ModelRequestPart>,
        results: &mut Vec<Tracked<ModelRequestPart>>,
        rest: &mut Vec<Tracked<ModelRequestPart>>,
    ) {
        if pairing::sorts_first(&tracked.part) {
            if !rest.is_empty() {
                if let Origin::Input(pos) = tracked.origin {
                    self.moved.insert(pos, MoveReason::ResultsFirst);
                }
            }
            results.push(tracked);
        } else {
            rest.push(tracked);
        }
    }

    /// pydantic-ai's `_move_parts_from_between_tool_results`.
    fn move_from_between_results(&mut self, parts: &mut Vec<Tracked<ModelRequestPart>>) {
        let first = parts.iter().position(|tracked| pairing::is_tool_result(&tracked.part));
        let last = parts.iter().rposition(|tracked| pairing::is_tool_result(&tracked.part));
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let tail = parts.split_off(last + 1);
        let between = parts.split_off(first);
        let mut moved = Vec::new();
        for tracked in between {
            if pairing::stays_among_results(&tracked.part) {
                parts.push(tracked);
            } else {
                if let Origin::Input(pos) = tracked.origin {
                    self.moved.insert(pos, MoveReason::FromBetweenResults);
                }
                moved.push(tracked);
            }
        }
        parts.append(&mut moved);
        parts.extend(tail);
    }

    /// Rebuilds wire messages and lists the changes with their output positions.
    fn finish(mut self, work: Vec<Work>) -> Repair {
        let mut history = Vec::with_capacity(work.len());
        for (output_message, mut message) in work.into_iter().enumerate() {
            let inputs = message.inputs.len();
            if inputs == 0 {
                self.changes.push(Change::InsertedRequest { output_message });
            }
            if inputs > 1 {
                let (input_messages, originals) = (message.inputs.into_vec(), message.originals);
                self.changes.push(match &message.message {
                    ModelMessage::Request(_) => Change::MergedRequests {
                        output_message,
                        input_messages,
                        originals,
                    },
                    ModelMessage::Response(_) => Change::MergedResponses {
                        output_message,
                        input_messages,
                        originals,
                    },
                });
            }
            match (&mut message.message, message.tracked) {
                (_, None) => {}
                (ModelMessage::Request(request), Some(TrackedParts::Request(mut parts))) => {
                    if let Some(merged) = message.merged {
                        parts.extend(merged.rest);
                        request.metadata = framework_metadata(merged.namespace);
                    }
                    request.parts = parts
                        .into_iter()
                        .enumerate()
                        .map(|(output_part, tracked)| {
                            self.note_part(tracked.origin, output_message, output_part);
                            tracked.part
                        })
                        .collect();
                }
                (ModelMessage::Response(response), Some(TrackedParts::Response(parts))) => {
                    response.parts = parts.into_iter().map(|tracked| tracked.part).collect();
                }
                // `Work` only tracks the parts of its own kind of message.
                (_, Some(_)) => {}
            }
            history.push(message.message);
        }
        Repair {
            history,
            report: RepairReport { changes: self.changes },
        }
    }

    fn note_part(&mut self, origin: Origin, output_message: usize, output_part: usize) {
        match origin {
            Origin::Synthesized(index) => {
                if let Some(synthesized) = self.synthesized.get(index) {
                    self.changes.push(Change::InsertedSyntheticReturn {
                        output_message,
                        output_part,
                        tool_call_id: synthesized.tool_call_id.clone(),
                        tool_name: synthesized.tool_name.clone(),
                        call_input_message: synthesized.call.message,
                        call_input_part: synthesized.call.part,
                    });
                }
            }
            Origin::Input(pos) => {
                if let Some(&reason) = self.moved.get(&pos) {
                    self.changes.push(Change::MovedPart {
                        input_message: pos.message,
                        input_part: pos.part,
                        output_message,
                        output_part,
                        reason,
                    });
                }
            }
        }
    }
}

/// Whether other content sits between the first and the last tool result of these parts.
fn content_between<'a>(parts: impl Iterator<Item = &'a ModelRequestPart>) -> bool {
    let mut results_seen = false;
    let mut content_after_result = false;
    for part in parts {
        if pairing::is_tool_result(part) {
            if content_after_result {
                return true;
            }
            results_seen = true;
        } else if results_seen && !pairing::stays_among_results(part) {
            content_after_result = true;
        }
    }
    false
}

/// pydantic-ai's `_append_response` merge branch: only two synthetic responses merge, keeping
/// the earlier one's fields.
fn merge_response(last: &mut Work, joining: &mut Work) -> bool {
    let (ModelMessage::Response(last_response), ModelMessage::Response(response)) = (&last.message, &joining.message)
    else {
        return false;
    };
    if !is_synthetic(last_response) || !is_synthetic(response) {
        return false;
    }
    if last.originals.is_empty() {
        let fields = last.own_fields();
        last.originals.push(fields);
    }
    let fields = joining.own_fields();
    last.originals.push(fields);
    if let (Some(last_parts), Some(parts)) = (last.response_parts(), joining.response_parts()) {
        last_parts.append(parts);
    }
    true
}

/// A response that did not come from a model API: no provider response id (or its legacy
/// `vendor_id` alias, which pydantic-ai loads into it), provider name or model name.
fn is_synthetic(response: &ModelResponse) -> bool {
    response
        .provider_response_id
        .get()
        .or(response.vendor_id.get())
        .is_none()
        && response.provider_name.get().is_none()
        && response.model_name.get().is_none()
}

/// The `__pydantic_ai__` namespace of a request's metadata, when it is an object.
fn framework_namespace(metadata: &Field<RawJson>) -> Option<serde_json::Map<String, serde_json::Value>> {
    match metadata.get().map(RawJson::to_value) {
        Some(serde_json::Value::Object(mut object)) => match object.shift_remove(FRAMEWORK_METADATA_KEY) {
            Some(serde_json::Value::Object(namespace)) => Some(namespace),
            _ => None,
        },
        _ => None,
    }
}

/// A merged request's metadata: `{"__pydantic_ai__": namespace}`, or null without a namespace.
fn framework_metadata(namespace: Option<serde_json::Map<String, serde_json::Value>>) -> Field<RawJson> {
    match namespace {
        Some(namespace) => {
            let mut metadata = serde_json::Map::new();
            metadata.insert(FRAMEWORK_METADATA_KEY.to_owned(), serde_json::Value::Object(namespace));
            Field::Present(RawJson::from(serde_json::Value::Object(metadata)))
        }
        None => Field::Null,
    }
}
