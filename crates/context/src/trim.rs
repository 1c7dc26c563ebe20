//! [`trim`]: keep the newest whole turns that fit a budget.
//!
//! A history is only ever cut at a turn boundary ([`Turns`]), so no call loses its result and no
//! result its call. The system prompt parts and the instructions of the history's first request
//! are kept: when that request is cut away, they move onto the new first request, the system
//! prompts ahead of its parts (where pydantic-ai puts them on a fresh run: `_agent_graph`'s
//! `_sys_parts` come first in the first `ModelRequest`), the instructions into its
//! `instructions` when it has none. Every other kept message is the input's, untouched, so its
//! bytes are the same. A history that fits is returned as it is, which makes trimming idempotent.

use std::borrow::Cow;

use msgflow_sanitize::Turns;
use msgflow_wire::{Field, ModelMessage, ModelRequestPart, ModelResponsePart};
use serde::Serialize;

use crate::tokens::TokenCounter;

/// What a trimmed history must fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "unit", content = "limit", rename_all = "kebab-case")]
pub enum Budget {
    /// At most this many tokens (counted by the [`TokenCounter`] given to [`trim`]).
    Tokens(usize),
    /// At most this many turns.
    Turns(usize),
    /// At most this many bytes of the written history (pydantic-ai's compact JSON).
    Bytes(usize),
}

impl Budget {
    fn unit(self) -> &'static str {
        match self {
            Budget::Tokens(_) => "tokens",
            Budget::Turns(_) => "turns",
            Budget::Bytes(_) => "bytes",
        }
    }
}

/// Why a history could not be trimmed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrimError {
    /// Even the newest turn (with the kept system prompt) is over the budget.
    #[error(
        "the newest turn (messages {first}..={last}) needs {needed} {unit} with the kept system prompt and \
         instructions, over the budget of {limit} {unit}: nothing can be cut from inside a turn without \
         separating a tool call from its result (raise the budget, or clear and clamp first)"
    )]
    NewestTurnTooLarge {
        /// Its first message.
        first: usize,
        /// Its last message.
        last: usize,
        /// What it needs.
        needed: usize,
        /// The budget.
        limit: usize,
        /// The budget's unit.
        unit: &'static str,
    },
    /// `Budget::Turns(0)`.
    #[error("a trimmed history keeps at least one turn (--keep-turns must be 1 or more)")]
    NoTurns,
}

/// A message [`trim`] removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RemovedMessage {
    /// Its index in the input.
    pub index: usize,
    /// `request` or `response`.
    pub kind: &'static str,
    /// Its turn.
    pub turn: usize,
    /// The `part_kind` of each of its parts.
    pub parts: Vec<Cow<'static, str>>,
    /// Its size in the budget's unit (bytes for a turn budget).
    pub size: usize,
}

/// Something [`trim`] moved from the removed first request onto the new first request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MovedItem {
    /// `system-prompt` or `instructions`.
    pub what: &'static str,
    /// The input message it was in.
    pub from_message: usize,
    /// Its part index there (`None` for instructions).
    pub from_part: Option<usize>,
    /// Its part index in the output's first message (`None` for instructions).
    pub to_part: Option<usize>,
}

/// What [`trim`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrimReport {
    /// The budget.
    pub budget: Budget,
    /// The unit of the sizes below (`tokens` or `bytes`).
    pub size_unit: &'static str,
    /// Turns in the input.
    pub turns_before: usize,
    /// Turns kept.
    pub turns_kept: usize,
    /// Messages in the input.
    pub messages_before: usize,
    /// Messages kept.
    pub messages_kept: usize,
    /// The input's size.
    pub size_before: usize,
    /// The output's size.
    pub size_after: usize,
    /// Every removed message, oldest first.
    pub removed: Vec<RemovedMessage>,
    /// The system prompts and instructions moved onto the new first request.
    pub moved: Vec<MovedItem>,
}

/// A trimmed history and its report.
#[derive(Clone, Debug)]
pub struct Trimmed {
    /// The newest turns that fit.
    pub history: Vec<ModelMessage>,
    /// What was done.
    pub report: TrimReport,
}

/// From this many messages on, their sizes are counted in parallel (below, the threads cost more
/// than they save).
const PARALLEL_FROM: usize = 4096;

/// The sizes of a history in one unit, and the cost of the output for a cut.
#[derive(Clone, Debug)]
struct Sizer<'a> {
    counter: TokenCounter,
    bytes: bool,
    /// Each message's size, when the caller counted them already ([`trim_window_sized`]).
    known: Option<&'a [usize]>,
}

impl Sizer<'_> {
    fn message(&self, message: &ModelMessage) -> usize {
        if self.bytes {
            message_bytes(message)
        } else {
            self.counter.count_message(message)
        }
    }

    /// The size of a history whose messages have `sizes`: commas and brackets count in bytes.
    fn total(&self, messages: usize, sizes: usize) -> usize {
        if self.bytes {
            2 + sizes + messages.saturating_sub(1)
        } else {
            sizes
        }
    }

    /// The sizes of the messages `range` of `history`, in order.
    fn sizes(&self, history: &[ModelMessage], range: std::ops::Range<usize>) -> Vec<usize> {
        if let Some(known) = self.known {
            return known[range].to_vec();
        }
        let messages = &history[range];
        if messages.len() >= PARALLEL_FROM {
            use rayon::prelude::*;
            messages.par_iter().map(|message| self.message(message)).collect()
        } else {
            messages.iter().map(|message| self.message(message)).collect()
        }
    }
}

/// The sizes of the newest messages of a history: a cut only ever needs those of the messages it
/// can keep, so they are counted from the newest back, as far as needed.
#[derive(Clone, Debug)]
struct Counted {
    /// The oldest message counted.
    from: usize,
    /// `kept[k]`: the sizes of the newest `k + 1` messages added up (newest first, so that
    /// counting further back appends).
    kept: Vec<usize>,
    /// The history's length.
    messages: usize,
}

impl Counted {
    fn none(messages: usize) -> Counted {
        Counted {
            from: messages,
            kept: Vec::new(),
            messages,
        }
    }

    /// The sizes of the messages `index..` added up (`index` counted already).
    fn suffix(&self, index: usize) -> usize {
        match self.messages - index {
            0 => 0,
            len => self.kept[len - 1],
        }
    }

    /// The size of message `index` (counted already).
    fn size(&self, index: usize) -> usize {
        self.suffix(index) - self.suffix(index + 1)
    }

    /// Counts the messages from `from` on.
    fn back_to(&mut self, history: &[ModelMessage], sizer: &Sizer, from: usize) {
        if from >= self.from {
            return;
        }
        let sizes = sizer.sizes(history, from..self.from);
        let mut sum = self.suffix(self.from);
        self.kept.extend(sizes.into_iter().rev().map(|size| {
            sum += size;
            sum
        }));
        self.from = from;
    }

    /// Counts back from the newest message until the counted messages alone are over `limit`
    /// (so that no cut before `from` fits: a cut costs at least the sizes it keeps), or to the
    /// start.
    fn back_until_over(history: &[ModelMessage], sizer: &Sizer, limit: usize) -> Counted {
        let mut counted = Counted::none(history.len());
        // Chunks grow, so that a budget of a few messages counts a few, and a big one pays for
        // few rounds of threads.
        let mut chunk = 256;
        while counted.from > 0 && sizer.total(history.len() - counted.from, counted.suffix(counted.from)) <= limit {
            counted.back_to(history, sizer, counted.from.saturating_sub(chunk));
            chunk = (chunk * 2).min(1 << 16);
        }
        counted
    }
}

/// The bytes a message takes in pydantic-ai's compact JSON.
pub fn message_bytes(message: &ModelMessage) -> usize {
    msgflow_wire::compact_json_len(message)
}

/// The system prompts and instructions of the history's first request, to keep.
struct Preamble {
    message: usize,
    system_prompts: Vec<(usize, ModelRequestPart)>,
    instructions: Option<String>,
    /// The tokens of each system prompt and of the instructions, counted on first use: a cut
    /// prices the preamble on every turn it walks back over.
    tokens: std::cell::OnceCell<(Vec<usize>, usize)>,
}

impl Preamble {
    fn of(history: &[ModelMessage]) -> Option<Preamble> {
        let (message, request) = history
            .iter()
            .enumerate()
            .find_map(|(index, message)| message.as_request().map(|request| (index, request)))?;
        let system_prompts = request
            .parts
            .iter()
            .enumerate()
            .filter(|(_, part)| matches!(part, ModelRequestPart::SystemPrompt(_)))
            .map(|(index, part)| (index, part.clone()))
            .collect();
        Some(Preamble {
            message,
            system_prompts,
            instructions: request.instructions.get().cloned(),
            tokens: std::cell::OnceCell::new(),
        })
    }

    /// The system prompts `parts` do not hold already (one is not added twice).
    fn missing<'p>(&'p self, parts: &'p [ModelRequestPart]) -> impl Iterator<Item = &'p (usize, ModelRequestPart)> {
        self.system_prompts
            .iter()
            .filter(move |(_, part)| !parts.contains(part))
    }

    /// The size of `first` (of size `size`) with the preamble moved onto it. Tokens add up by
    /// part, so they are counted without building the new message.
    fn cost_on(&self, first: &ModelMessage, size: usize, sizer: &Sizer) -> usize {
        let ModelMessage::Request(request) = first else {
            return size;
        };
        if sizer.bytes {
            let mut first = first.clone();
            self.apply(&mut first);
            return sizer.message(&first);
        }
        let (prompt_tokens, instruction_tokens) = self.tokens.get_or_init(|| {
            let prompts = self
                .system_prompts
                .iter()
                .map(|(_, part)| sizer.counter.count_request_part(part))
                .collect();
            let instructions = self
                .instructions
                .as_ref()
                .map_or(0, |text| sizer.counter.count_instructions(text));
            (prompts, instructions)
        });
        let prompts: usize = self
            .system_prompts
            .iter()
            .zip(prompt_tokens)
            .filter(|((_, part), _)| !request.parts.contains(part))
            .map(|(_, tokens)| tokens)
            .sum();
        let instructions = match (request.instructions.get(), &self.instructions) {
            (None, Some(_)) => *instruction_tokens,
            _ => 0,
        };
        size + prompts + instructions
    }

    /// `first` with the preamble moved onto it (when it is a request), and what was moved.
    fn apply(&self, first: &mut ModelMessage) -> Vec<MovedItem> {
        let mut moved = Vec::new();
        if let ModelMessage::Request(request) = first {
            let missing: Vec<&(usize, ModelRequestPart)> = self.missing(&request.parts).collect();

            let mut parts = Vec::with_capacity(missing.len() + request.parts.len());
            for (to_part, (from_part, part)) in missing.into_iter().enumerate() {
                moved.push(MovedItem {
                    what: "system-prompt",
                    from_message: self.message,
                    from_part: Some(*from_part),
                    to_part: Some(to_part),
                });
                parts.push(part.clone());
            }
            parts.append(&mut request.parts);
            request.parts = parts;
            if let (None, Some(instructions)) = (request.instructions.get(), &self.instructions) {
                request.instructions = Field::Present(instructions.clone());
                moved.push(MovedItem {
                    what: "instructions",
                    from_message: self.message,
                    from_part: None,
                    to_part: None,
                });
            }
        }
        moved
    }
}

/// The kind name of a message.
fn kind(message: &ModelMessage) -> &'static str {
    match message {
        ModelMessage::Request(_) => "request",
        ModelMessage::Response(_) => "response",
    }
}

/// The `part_kind` of each of a message's parts (`unknown` for a part without one). A known kind
/// is the schema's own `&'static str`: a report on a big cut then allocates no string per part.
fn part_kinds(message: &ModelMessage) -> Vec<Cow<'static, str>> {
    fn named(tag: Option<Cow<'_, str>>, known: &'static [&'static str]) -> Cow<'static, str> {
        match tag {
            None => Cow::Borrowed("unknown"),
            Some(tag) => match known.iter().find(|&&name| name == tag) {
                Some(&name) => Cow::Borrowed(name),
                None => Cow::Owned(tag.into_owned()),
            },
        }
    }
    match message {
        ModelMessage::Request(request) => request
            .parts
            .iter()
            .map(|part| named(part.tag(), ModelRequestPart::KNOWN_TAGS))
            .collect(),
        ModelMessage::Response(response) => response
            .parts
            .iter()
            .map(|part| named(part.tag(), ModelResponsePart::KNOWN_TAGS))
            .collect(),
    }
}

/// Keeps the newest whole turns of `history` that fit `budget` (tokens counted by `counter`).
///
/// The result keeps the first request's system prompts and instructions, is cut only between
/// turns, and is `history` itself when it already fits. Fails when even the newest turn does not.
///
/// ```
/// use msgflow_context::tokens::{TokenCounter, Tokenizer};
/// use msgflow_context::trim::{trim, Budget};
/// let json = r#"[
///   {"kind":"request","parts":[{"part_kind":"system-prompt","content":"Be brief."},{"part_kind":"user-prompt","content":"hi"}]},
///   {"kind":"response","parts":[{"part_kind":"text","content":"Hello!"}]},
///   {"kind":"request","parts":[{"part_kind":"user-prompt","content":"bye"}]}
/// ]"#;
/// let history = msgflow_wire::from_str(json)?;
/// let trimmed = trim(history, Budget::Turns(1), &TokenCounter::new(Tokenizer::O200kBase))?;
/// assert_eq!(trimmed.history.len(), 1);
/// assert_eq!(trimmed.report.removed.len(), 2);
/// assert_eq!(trimmed.history[0].parts_len(), 2); // the system prompt moved onto "bye"
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn trim(mut history: Vec<ModelMessage>, budget: Budget, counter: &TokenCounter) -> Result<Trimmed, TrimError> {
    let (start, first, report) = {
        let mut window = trim_window(&history, budget, counter)?;
        // The window is done with: its size table and moved items go to the report uncopied.
        let counted = std::mem::replace(&mut window.counted, Counted::none(0));
        let moved = std::mem::take(&mut window.moved);
        let report = window.report_from(counted, moved);
        (window.start, window.first, report)
    };
    if start == 0 {
        return Ok(Trimmed { history, report });
    }
    let mut kept = history.split_off(start);
    if let Some(first) = first {
        kept[0] = first;
    }
    Ok(Trimmed { history: kept, report })
}

/// What [`trim_window`] keeps of a borrowed history: the input's messages from `start` on, the
/// first of them replaced by `first` when the system prompt and instructions were moved onto it.
#[derive(Clone, Debug)]
pub struct Window<'a> {
    /// The first kept message's index in the input.
    pub start: usize,
    /// The new first message (the input's message `start` with the preamble moved onto it), if
    /// anything was moved.
    pub first: Option<ModelMessage>,
    /// The kept messages as they are in the input (`first`, when set, stands for `kept[0]`).
    pub kept: &'a [ModelMessage],
    /// Turns in the input.
    pub turns_before: usize,
    /// Turns kept.
    pub turns_kept: usize,
    /// The window's size in the budget's unit (bytes for a turn budget).
    pub size_after: usize,
    /// The system prompts and instructions moved onto `first`.
    pub moved: Vec<MovedItem>,
    budget: Budget,
    history: &'a [ModelMessage],
    turns: Turns,
    counted: Counted,
    sizer: Sizer<'a>,
}

impl Window<'_> {
    /// The kept messages in order.
    pub fn messages(&self) -> impl Iterator<Item = &ModelMessage> {
        let skip = usize::from(self.first.is_some());
        self.first.iter().chain(self.kept.iter().skip(skip))
    }

    /// The trimmed history, as [`trim`] returns it.
    pub fn to_vec(&self) -> Vec<ModelMessage> {
        self.messages().cloned().collect()
    }

    /// The full report: the window's figures, the input's size and every removed message. The
    /// window counted only the messages a cut could keep; this counts the others.
    pub fn report(&self) -> TrimReport {
        self.report_from(self.counted.clone(), self.moved.clone())
    }

    /// The report, counting on from `counted` (the window's own sizes, taken or copied).
    fn report_from(&self, mut counted: Counted, moved: Vec<MovedItem>) -> TrimReport {
        counted.back_to(self.history, &self.sizer, 0);
        let removed = |index: usize| RemovedMessage {
            index,
            kind: kind(&self.history[index]),
            turn: self.turns.turn_of(index).unwrap_or(0),
            parts: part_kinds(&self.history[index]),
            size: counted.size(index),
        };
        let removed = if self.start >= PARALLEL_FROM {
            use rayon::prelude::*;
            (0..self.start).into_par_iter().map(removed).collect()
        } else {
            (0..self.start).map(removed).collect()
        };
        TrimReport {
            budget: self.budget,
            size_unit: if self.sizer.bytes { "bytes" } else { "tokens" },
            turns_before: self.turns_before,
            turns_kept: self.turns_kept,
            messages_before: self.history.len(),
            messages_kept: self.kept.len(),
            size_before: self.sizer.total(self.history.len(), counted.suffix(0)),
            size_after: self.size_after,
            removed,
            moved,
        }
    }
}

/// [`trim`] on a borrowed history: the window of it to send, without copying or dropping a
/// message (what a server holding the history needs: pydantic-ai-harness's `compact` likewise
/// returns a list sharing the input's messages). It counts only the newest messages, as far
/// back as a cut could keep; [`Window::report`] counts the rest.
pub fn trim_window<'a>(
    history: &'a [ModelMessage],
    budget: Budget,
    counter: &TokenCounter,
) -> Result<Window<'a>, TrimError> {
    window(history, budget, counter, None)
}

/// [`trim_window`] to a token budget, with each message's tokens counted already
/// (`tokens[i]` is `counter.count_message(&history[i])`): what a caller that keeps a growing
/// history's counts between trims (the Python package's `FitContext`) pays is the cut alone. The
/// window is the one [`trim_window`] gives, provided `tokens` holds those counts.
///
/// # Panics
///
/// When `tokens` is not as long as `history`.
pub fn trim_window_sized<'a>(
    history: &'a [ModelMessage],
    max_tokens: usize,
    counter: &TokenCounter,
    tokens: &'a [usize],
) -> Result<Window<'a>, TrimError> {
    assert_eq!(tokens.len(), history.len(), "one token count per message");
    window(history, Budget::Tokens(max_tokens), counter, Some(tokens))
}

fn window<'a>(
    history: &'a [ModelMessage],
    budget: Budget,
    counter: &TokenCounter,
    known: Option<&'a [usize]>,
) -> Result<Window<'a>, TrimError> {
    let bytes = !matches!(budget, Budget::Tokens(_));
    let sizer = Sizer {
        counter: counter.clone(),
        bytes,
        known: known.filter(|_| !bytes),
    };
    // The turns are one walk over the whole history. (Counting sizes on another thread beside
    // it was measured slower: both walks wait on memory, and they slow each other down.)
    let turns = Turns::of(history);
    let mut counted = match budget {
        Budget::Turns(0) => return Err(TrimError::NoTurns),
        Budget::Turns(_) => Counted::none(history.len()),
        Budget::Tokens(limit) | Budget::Bytes(limit) => Counted::back_until_over(history, &sizer, limit),
    };
    let preamble = Preamble::of(history);
    let cost_from = |counted: &Counted, turn: usize| -> usize {
        let start = turns.starts()[turn];
        let first = counted.size(start);
        let first_with_preamble = match &preamble {
            Some(preamble) if turn > 0 && preamble.message < start => preamble.cost_on(&history[start], first, &sizer),
            _ => first,
        };
        sizer.total(
            history.len() - start,
            counted.suffix(start) - first + first_with_preamble,
        )
    };
    // The turn to keep from, and the window's size.
    let (first_turn, size_after) = match budget {
        Budget::Turns(keep) => {
            let first_turn = turns.len().saturating_sub(keep);
            counted.back_to(history, &sizer, turns.starts().get(first_turn).copied().unwrap_or(0));
            let size = if first_turn == 0 {
                sizer.total(history.len(), counted.suffix(0))
            } else {
                cost_from(&counted, first_turn)
            };
            (first_turn, size)
        }
        Budget::Tokens(limit) | Budget::Bytes(limit) => {
            let fits = counted.from == 0 && sizer.total(history.len(), counted.suffix(0)) <= limit;
            if fits || turns.is_empty() {
                counted.back_to(history, &sizer, 0);
                (0, sizer.total(history.len(), counted.suffix(0)))
            } else {
                let newest = turns.len() - 1;
                counted.back_to(history, &sizer, turns.starts()[newest]);
                let needed = cost_from(&counted, newest);
                if needed > limit {
                    let range = turns.range(newest);
                    return Err(TrimError::NewestTurnTooLarge {
                        first: range.start,
                        last: range.end - 1,
                        needed,
                        limit,
                        unit: budget.unit(),
                    });
                }
                // Walk back while one more turn still fits. A turn that starts before the
                // counted messages cannot: what they keep is over the budget already.
                let mut cut = (newest, needed);
                for turn in (1..newest).rev() {
                    if turns.starts()[turn] < counted.from {
                        break;
                    }
                    let size = cost_from(&counted, turn);
                    if size > limit {
                        break;
                    }
                    cut = (turn, size);
                }
                cut
            }
        }
    };
    let start = if first_turn == 0 { 0 } else { turns.starts()[first_turn] };
    let kept = &history[start..];
    let mut moved = Vec::new();
    let first = preamble
        .filter(|preamble| start > 0 && preamble.message < start)
        .and_then(|preamble| {
            let mut first = kept[0].clone();
            moved = preamble.apply(&mut first);
            (!moved.is_empty()).then_some(first)
        });
    Ok(Window {
        start,
        first,
        kept,
        turns_before: turns.len(),
        turns_kept: turns.len() - first_turn,
        size_after,
        moved,
        budget,
        history,
        turns,
        counted,
        sizer,
    })
}
