//! [`trim`]: keep the newest whole turns that fit a budget.
//!
//! A history is only ever cut at a turn boundary ([`Turns`]), so no call loses its result and no
//! result its call. The system prompt parts and the instructions of the history's first request
//! are kept: when that request is cut away, they move onto the new first request, the system
//! prompts ahead of its parts (where pydantic-ai puts them on a fresh run: `_agent_graph`'s
//! `_sys_parts` come first in the first `ModelRequest`), the instructions into its
//! `instructions` when it has none. Every other kept message is the input's, untouched, so its
//! bytes are the same. A history that fits is returned as it is, which makes trimming idempotent.

use std::io;

use msgflow_sanitize::Turns;
use msgflow_wire::{Field, ModelMessage, ModelRequestPart};
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
    pub parts: Vec<String>,
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
const PARALLEL_SIZES_FROM: usize = 4096;

/// The sizes of a history in one unit, and the cost of the output for a cut.
struct Sizer<'a> {
    counter: &'a TokenCounter,
    bytes: bool,
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
}

/// The bytes a message takes in pydantic-ai's compact JSON.
pub fn message_bytes(message: &ModelMessage) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail; a value serde cannot write would fail the real write too.
    let _ = serde_json::to_writer(&mut count, message);
    count.0
}

/// The system prompts and instructions of the history's first request, to keep.
struct Preamble {
    message: usize,
    system_prompts: Vec<(usize, ModelRequestPart)>,
    instructions: Option<String>,
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
        })
    }

    /// `first` with the preamble moved onto it (when it is a request), and what was moved.
    fn apply(&self, first: &mut ModelMessage) -> Vec<MovedItem> {
        let mut moved = Vec::new();
        if let ModelMessage::Request(request) = first {
            // A system prompt the new first request already holds is not added twice.
            let missing: Vec<&(usize, ModelRequestPart)> = self
                .system_prompts
                .iter()
                .filter(|(_, part)| !request.parts.contains(part))
                .collect();
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

fn part_kinds(message: &ModelMessage) -> Vec<String> {
    let kinds: Vec<Option<std::borrow::Cow<'_, str>>> = match message {
        ModelMessage::Request(request) => request.parts.iter().map(|part| part.tag()).collect(),
        ModelMessage::Response(response) => response.parts.iter().map(|part| part.tag()).collect(),
    };
    kinds
        .into_iter()
        .map(|tag| tag.map_or_else(|| "unknown".to_owned(), |tag| tag.into_owned()))
        .collect()
}

/// Which turn to keep from, and the output's size.
struct Cut {
    first_turn: usize,
    size_after: usize,
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
        let window = trim_window(&history, budget, counter)?;
        (window.start, window.first, window.report)
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
    /// What was done.
    pub report: TrimReport,
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
}

/// [`trim`] on a borrowed history: the window of it to send, without copying or dropping a
/// message (what a server holding the history needs: pydantic-ai-harness's `compact` likewise
/// returns a list sharing the input's messages).
pub fn trim_window<'a>(
    history: &'a [ModelMessage],
    budget: Budget,
    counter: &TokenCounter,
) -> Result<Window<'a>, TrimError> {
    let turns = Turns::of(history);
    let sizer = Sizer {
        counter,
        bytes: !matches!(budget, Budget::Tokens(_)),
    };
    let sizes: Vec<usize> = if history.len() >= PARALLEL_SIZES_FROM {
        use rayon::prelude::*;
        history.par_iter().map(|message| sizer.message(message)).collect()
    } else {
        history.iter().map(|message| sizer.message(message)).collect()
    };
    let size_before = sizer.total(history.len(), sizes.iter().sum());
    // suffix[i]: the sizes of messages i.. added up.
    let mut suffix = vec![0; history.len() + 1];
    for index in (0..history.len()).rev() {
        suffix[index] = suffix[index + 1] + sizes[index];
    }
    let preamble = Preamble::of(history);
    let cost_from = |turn: usize| -> usize {
        let start = turns.starts()[turn];
        let first = match &preamble {
            Some(preamble) if turn > 0 && preamble.message < start => {
                let mut first = history[start].clone();
                preamble.apply(&mut first);
                sizer.message(&first)
            }
            _ => sizes[start],
        };
        sizer.total(history.len() - start, first + suffix[start + 1])
    };
    let cut = match budget {
        Budget::Turns(0) => return Err(TrimError::NoTurns),
        Budget::Turns(keep) => {
            let first_turn = turns.len().saturating_sub(keep);
            Cut {
                first_turn,
                size_after: if first_turn == 0 {
                    size_before
                } else {
                    cost_from(first_turn)
                },
            }
        }
        Budget::Tokens(limit) | Budget::Bytes(limit) => {
            if size_before <= limit || turns.is_empty() {
                Cut {
                    first_turn: 0,
                    size_after: size_before,
                }
            } else {
                let newest = turns.len() - 1;
                let needed = cost_from(newest);
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
                // Walk back while one more turn still fits.
                let mut cut = Cut {
                    first_turn: newest,
                    size_after: needed,
                };
                for turn in (1..newest).rev() {
                    let size = cost_from(turn);
                    if size > limit {
                        break;
                    }
                    cut = Cut {
                        first_turn: turn,
                        size_after: size,
                    };
                }
                cut
            }
        }
    };
    let messages_before = history.len();
    let mut report = TrimReport {
        budget,
        size_unit: if sizer.bytes { "bytes" } else { "tokens" },
        turns_before: turns.len(),
        turns_kept: turns.len() - cut.first_turn,
        messages_before,
        messages_kept: messages_before,
        size_before,
        size_after: cut.size_after,
        removed: Vec::new(),
        moved: Vec::new(),
    };
    if cut.first_turn == 0 {
        return Ok(Window {
            start: 0,
            first: None,
            kept: history,
            report,
        });
    }
    let start = turns.starts()[cut.first_turn];
    report.removed = history[..start]
        .iter()
        .enumerate()
        .map(|(index, message)| RemovedMessage {
            index,
            kind: kind(message),
            turn: turns.turn_of(index).unwrap_or(0),
            parts: part_kinds(message),
            size: sizes[index],
        })
        .collect();
    let kept = &history[start..];
    let first = preamble
        .filter(|preamble| preamble.message < start)
        .and_then(|preamble| {
            let mut first = kept[0].clone();
            report.moved = preamble.apply(&mut first);
            (!report.moved.is_empty()).then_some(first)
        });
    report.messages_kept = kept.len();
    Ok(Window {
        start,
        first,
        kept,
        report,
    })
}
