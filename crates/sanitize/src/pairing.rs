//! The call/result matching shared by [`crate::check`] and [`crate::repair`]: which parts are
//! calls and results, and pydantic-ai's ordered matching walk (`_dangling_tool_calls_by_response`).

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt};

use msgflow_wire::{Field, ModelRequestPart, ModelResponsePart};

/// What a call or result is matched by. A part without a `tool_call_id` gets a key of its own
/// that matches nothing: pydantic-ai would give it a freshly generated id on load.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CallKey<'a> {
    /// The part's `tool_call_id` (borrowed: the walk copies no ids).
    Id(&'a str),
    /// A part without an id, identified by its (message, part) position in the walked list.
    Missing(usize, usize),
}

impl<'a> CallKey<'a> {
    pub(crate) fn of(id: &'a Field<String>, message: usize, part: usize) -> Self {
        match id.get() {
            Some(id) => CallKey::Id(id.as_str()),
            None => CallKey::Missing(message, part),
        }
    }
}

/// pydantic-ai's `_is_tool_result_part`: a `tool-return` (any `tool_kind`, any `outcome`) or a
/// legacy `retry-prompt` that names a tool. Builtin returns and `retry-feedback` never answer a call.
pub(crate) fn is_tool_result(part: &ModelRequestPart) -> bool {
    match part {
        ModelRequestPart::ToolReturn(_) => true,
        ModelRequestPart::RetryPrompt(retry) => retry.tool_name.get().is_some(),
        _ => false,
    }
}

/// A part pydantic-ai leaves among a request's results (`_move_parts_from_between_tool_results`):
/// a result, or a tool-availability delta. Any other part is content, which must not come before
/// or between results.
pub(crate) fn stays_among_results(part: &ModelRequestPart) -> bool {
    is_tool_result(part) || matches!(part, ModelRequestPart::ToolAvailabilityDelta(_))
}

/// The `tool_call_id` of a result part (`None` for parts that are not results).
pub(crate) fn result_id(part: &ModelRequestPart) -> Option<&Field<String>> {
    match part {
        ModelRequestPart::ToolReturn(ret) => Some(&ret.tool_call_id),
        ModelRequestPart::RetryPrompt(retry) if retry.tool_name.get().is_some() => Some(&retry.tool_call_id),
        _ => None,
    }
}

/// The tool name a result part names.
pub(crate) fn result_tool_name(part: &ModelRequestPart) -> Option<&str> {
    match part {
        ModelRequestPart::ToolReturn(ret) => Some(ret.tool_name.as_str()),
        ModelRequestPart::RetryPrompt(retry) => retry.tool_name.get().map(String::as_str),
        _ => None,
    }
}

/// pydantic-ai's `_tool_results_first_sort_key` as it applies to a history read from JSON: a
/// `tool-return` sorts ahead of the other parts of a merged request, and so does a legacy
/// `retry-prompt` naming a tool (2.68.0 loads it as a `tool-return`). A tool-less `retry-prompt`
/// does not: 2.68.0 loads it as a `retry-feedback`. (In memory, pydantic-ai also sorts a tool-less
/// `RetryPromptPart` first, which makes its repair non-idempotent: a later repair moves that part
/// from between the results again. No history read from JSON holds one.)
pub(crate) fn sorts_first(part: &ModelRequestPart) -> bool {
    is_tool_result(part)
}

/// The keys of a response's `tool-call` parts.
pub(crate) fn calls_of<'a>(
    index: usize,
    parts: impl Iterator<Item = &'a ModelResponsePart>,
) -> impl Iterator<Item = (usize, CallKey<'a>)> {
    parts.enumerate().filter_map(move |(part_index, part)| match part {
        ModelResponsePart::ToolCall(call) => Some((part_index, CallKey::of(&call.tool_call_id, index, part_index))),
        _ => None,
    })
}

/// The result keys of a request's parts.
pub(crate) fn results_of<'a>(
    index: usize,
    parts: impl Iterator<Item = &'a ModelRequestPart>,
) -> impl Iterator<Item = (usize, CallKey<'a>)> {
    parts.enumerate().filter_map(move |(part_index, part)| {
        result_id(part).map(|id| (part_index, CallKey::of(id, index, part_index)))
    })
}

/// A (message, part) position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Pos {
    pub(crate) message: usize,
    pub(crate) part: usize,
}

/// The outcome of the matching walk.
#[derive(Default)]
pub(crate) struct Walk {
    /// Dangling calls (part indices) by response index, in pydantic-ai's order: calls found
    /// dangling by shadowing first, then the calls still open at the end grouped by id in order of
    /// each id's first appearance as a call, FIFO within an id.
    pub(crate) dangling: HashMap<usize, Vec<usize>>,
    /// The index of the last response.
    pub(crate) last_response: Option<usize>,
}

/// The open calls of one id, oldest first. Nearly every id has one call at a time, which needs
/// no allocation.
#[derive(Default)]
enum Pending {
    #[default]
    None,
    One(Pos),
    Many(VecDeque<Pos>),
}

impl Pending {
    fn newest(&self) -> Option<Pos> {
        match self {
            Pending::None => None,
            Pending::One(pos) => Some(*pos),
            Pending::Many(queue) => queue.back().copied(),
        }
    }

    fn push(&mut self, pos: Pos) {
        *self = match std::mem::take(self) {
            Pending::None => Pending::One(pos),
            Pending::One(first) => Pending::Many(VecDeque::from([first, pos])),
            Pending::Many(mut queue) => {
                queue.push_back(pos);
                Pending::Many(queue)
            }
        };
    }

    fn pop_oldest(&mut self) -> Option<Pos> {
        match self {
            Pending::None => None,
            Pending::One(pos) => {
                let pos = *pos;
                *self = Pending::None;
                Some(pos)
            }
            Pending::Many(queue) => queue.pop_front(),
        }
    }

    /// Empties the queue, oldest first.
    fn drain(&mut self) -> impl Iterator<Item = Pos> {
        std::mem::take(self).into_positions()
    }

    /// The open calls, oldest first.
    fn into_positions(self) -> impl Iterator<Item = Pos> {
        let (one, many) = match self {
            Pending::None => (None, VecDeque::new()),
            Pending::One(pos) => (Some(pos), VecDeque::new()),
            Pending::Many(queue) => (None, queue),
        };
        one.into_iter().chain(many)
    }
}

/// Everything the walk knows about one key.
struct Slot {
    /// The first call ever made with this key.
    first: Pos,
    /// The newest call made with this key.
    newest: Pos,
    /// Its calls still open.
    pending: Pending,
}

/// What the walk made of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// No earlier call has the result's key (pydantic-ai's orphan).
    NoSuchCall,
    /// Every earlier call with its key was already answered or shadowed; `newest` is the newest
    /// of them.
    NoOpenCall {
        /// The newest earlier call with the result's key.
        newest: Pos,
    },
    /// The oldest open call with its key, which it answers.
    Call(Pos),
}

/// pydantic-ai's `_dangling_tool_calls_by_response` as a state machine fed one part at a time in
/// history order, so that [`crate::check`] can make all its observations in one pass over the
/// history (a pass per observation costs a trip through memory each on a big history). Linear time.
pub(crate) struct Matcher<'a> {
    /// Sized up front: growing a large map rehashes every key it holds.
    slot_of: HashMap<CallKey<'a>, usize>,
    /// Per key, in order of each key's first appearance (Python dict insertion order).
    slots: Vec<Slot>,
    walk: Walk,
}

impl<'a> Matcher<'a> {
    /// A matcher for a history of about `messages` messages.
    pub(crate) fn with_capacity(messages: usize) -> Self {
        Matcher {
            slot_of: HashMap::with_capacity(messages),
            slots: Vec::with_capacity(messages),
            walk: Walk::default(),
        }
    }

    /// A response starts (with or without calls).
    pub(crate) fn response(&mut self, index: usize) {
        self.walk.last_response = Some(index);
    }

    /// A `tool-call` of the current response; returns the first earlier call with the same key.
    pub(crate) fn call(&mut self, pos: Pos, key: CallKey<'a>) -> Option<Pos> {
        let slots = &mut self.slots;
        let slot = *self.slot_of.entry(key).or_insert_with(|| {
            slots.push(Slot {
                first: pos,
                newest: pos,
                pending: Pending::None,
            });
            slots.len() - 1
        });
        let slot = slots.get_mut(slot)?;
        slot.newest = pos;
        let pending = &mut slot.pending;
        if pending.newest().is_some_and(|open| open.message != pos.message) {
            // A call reusing the id of calls from an earlier response: those can no longer be
            // answered (a later result answers the new call), so they dangle.
            for shadowed in pending.drain() {
                self.walk
                    .dangling
                    .entry(shadowed.message)
                    .or_default()
                    .push(shadowed.part);
            }
        }
        pending.push(pos);
        Some(slot.first).filter(|&first| first != pos)
    }

    /// A result of the current request: the call it answers, if any.
    pub(crate) fn result(&mut self, key: &CallKey<'a>) -> Answer {
        match self.slot_of.get(key).and_then(|&slot| self.slots.get_mut(slot)) {
            None => Answer::NoSuchCall,
            Some(slot) => slot
                .pending
                .pop_oldest()
                .map_or(Answer::NoOpenCall { newest: slot.newest }, Answer::Call),
        }
    }

    /// The calls left open and the other facts of the walk.
    pub(crate) fn finish(mut self) -> Walk {
        for slot in &mut self.slots {
            for open in slot.pending.drain() {
                self.walk.dangling.entry(open.message).or_default().push(open.part);
            }
        }
        self.walk
    }
}

/// Builtin tool calls waiting for their `builtin-tool-return`: providers co-locate the two in
/// one response, and some (Anthropic tool search) return in a later response, so a return
/// answers the oldest open builtin call with its id in the same or an earlier response.
/// pydantic-ai's repair does not pair builtin parts at all; `check` reports the unanswered ones
/// and repair's opt-in `resolve_remaining` removes them. Fed one part at a time, linear.
#[derive(Default)]
pub(crate) struct BuiltinMatcher<'a> {
    open: HashMap<&'a str, BuiltinSlot>,
    without_id: Vec<Pos>,
}

/// The builtin calls of one id.
struct BuiltinSlot {
    /// The newest call with the id.
    newest: Pos,
    /// Its calls no return answered yet, oldest first.
    pending: Pending,
}

/// What a `builtin-tool-return` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BuiltinAnswer {
    /// No builtin call has its id (or it has none).
    NoSuchCall,
    /// Every earlier builtin call with its id was answered already; `newest` is the newest.
    NoOpenCall {
        /// The newest earlier builtin call with the return's id.
        newest: Pos,
    },
    /// The oldest open builtin call with its id, which it answers.
    Call(Pos),
}

impl<'a> BuiltinMatcher<'a> {
    /// A `builtin-tool-call` at `pos`.
    pub(crate) fn call(&mut self, pos: Pos, id: &'a Field<String>) {
        match id.get() {
            Some(id) => {
                let slot = self.open.entry(id.as_str()).or_insert(BuiltinSlot {
                    newest: pos,
                    pending: Pending::None,
                });
                slot.newest = pos;
                slot.pending.push(pos);
            }
            None => self.without_id.push(pos),
        }
    }

    /// A `builtin-tool-return`: answers the oldest open call with its id, and says which.
    pub(crate) fn ret(&mut self, id: &Field<String>) -> BuiltinAnswer {
        match id.get().and_then(|id| self.open.get_mut(id.as_str())) {
            None => BuiltinAnswer::NoSuchCall,
            Some(slot) => slot
                .pending
                .pop_oldest()
                .map_or(BuiltinAnswer::NoOpenCall { newest: slot.newest }, BuiltinAnswer::Call),
        }
    }

    /// The calls no return answered, in history order, each with whether it lacks an id.
    pub(crate) fn finish(self) -> Vec<(Pos, bool)> {
        let mut unanswered: Vec<(Pos, bool)> = self.without_id.into_iter().map(|pos| (pos, true)).collect();
        unanswered.extend(
            self.open
                .into_values()
                .flat_map(|slot| slot.pending.into_positions())
                .map(|pos| (pos, false)),
        );
        unanswered.sort_unstable_by_key(|(pos, _)| (pos.message, pos.part));
        unanswered
    }
}
