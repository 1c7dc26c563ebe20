//! Turns: the places where a history can be cut without separating a tool call from its result.
//!
//! A turn starts at a request that holds a user prompt and no tool result (the user speaking, not
//! a tool answering); the messages up to the next such request travel together. A start is only a
//! cut point when no call before it is answered by a result after it, as the matching walk of
//! [`crate::check`] and [`crate::repair`] (pydantic-ai's `_dangling_tool_calls_by_response`) pairs
//! them; a start that a pair spans is folded into the turn before it. A result that answers no
//! open call (its calls were answered or shadowed already) holds the newest call with its id the
//! same way, so that cutting never turns a misplaced result into an orphan. The same holds for a builtin
//! (`builtin-tool-call`) call and a `builtin-tool-return` with its id in a later response, paired
//! by the matcher `check` uses (`pairing::BuiltinMatcher`: the oldest open call with the id). So every
//! boundary of [`Turns`] is safe: dropping the turns before it leaves no orphan result, and every
//! pair in the suffix is matched the same way as in the whole history.
//!
//! ```
//! use msgflow_sanitize::Turns;
//! let json = r#"[
//!   {"kind":"request","parts":[{"part_kind":"user-prompt","content":"ls","timestamp":"2025-01-02T00:00:00Z"}]},
//!   {"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"bash","args":null,"tool_call_id":"c1"}],"timestamp":"2025-01-02T00:00:01Z"},
//!   {"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"bash","content":"a.rs","tool_call_id":"c1","timestamp":"2025-01-02T00:00:02Z"}]},
//!   {"kind":"response","parts":[{"part_kind":"text","content":"a.rs"}],"timestamp":"2025-01-02T00:00:03Z"},
//!   {"kind":"request","parts":[{"part_kind":"user-prompt","content":"thanks","timestamp":"2025-01-02T00:00:04Z"}]}
//! ]"#;
//! let history = msgflow_wire::from_str(json)?;
//! let turns = Turns::of(&history);
//! assert_eq!(turns.ranges().collect::<Vec<_>>(), [0..4, 4..5]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ops::Range;

use msgflow_wire::{ModelMessage, ModelRequestPart, ModelResponsePart};

use crate::pairing::{self, Answer, BuiltinAnswer, CallKey, Matcher, Pos};

/// Whether `message` opens a turn by its own shape: a request holding a user prompt and no tool
/// result. (Whether a turn really starts there also depends on the pairs around it: [`Turns::of`].)
pub fn opens_turn(message: &ModelMessage) -> bool {
    match message {
        ModelMessage::Request(request) => {
            request
                .parts
                .iter()
                .any(|part| matches!(part, ModelRequestPart::UserPrompt(_)))
                && !request.parts.iter().any(pairing::is_tool_result)
        }
        ModelMessage::Response(_) => false,
    }
}

/// The turns of a history: consecutive, non-empty message ranges covering it whole, each boundary
/// a safe cut point (see the module documentation). Built in one pass, linear in the history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turns {
    /// The first message of each turn, ascending; `starts[0] == 0` unless the history is empty.
    starts: Vec<usize>,
    /// The number of messages.
    messages: usize,
}

impl Turns {
    /// The turns of `history`.
    pub fn of(history: &[ModelMessage]) -> Turns {
        // `blocked[i] > 0` (after the prefix sum) when some pair has its call before message `i`
        // and its result at or after it: cutting before `i` would orphan that result.
        let mut blocked = vec![0i64; history.len() + 1];
        // `opens[i]`: message `i` opens a turn by its shape ([`opens_turn`]), noted in the same
        // pass so that the second reads no message again (on a big history every pass over the
        // messages is a trip through memory).
        let mut opens = vec![false; history.len()];
        let mut block = |call_message: usize, result_message: usize| {
            if result_message > call_message {
                blocked[call_message + 1] += 1;
                blocked[result_message + 1] -= 1;
            }
        };
        let mut matcher = Matcher::with_capacity(history.len());
        // Builtin calls pair with their returns as `check` pairs them.
        let mut builtin = pairing::BuiltinMatcher::default();
        for (index, message) in history.iter().enumerate() {
            match message {
                ModelMessage::Response(response) => {
                    matcher.response(index);
                    for (part_index, part) in response.parts.iter().enumerate() {
                        let pos = Pos {
                            message: index,
                            part: part_index,
                        };
                        match part {
                            ModelResponsePart::ToolCall(call) => {
                                matcher.call(pos, CallKey::of(&call.tool_call_id, index, part_index));
                            }
                            ModelResponsePart::BuiltinToolCall(call) => builtin.call(pos, &call.tool_call_id),
                            ModelResponsePart::BuiltinToolReturn(ret) => match builtin.ret(&ret.tool_call_id) {
                                BuiltinAnswer::Call(call) => block(call.message, index),
                                // Its calls were answered already: hold the newest one with its
                                // id, as for a misplaced tool result below.
                                BuiltinAnswer::NoOpenCall { newest } => block(newest.message, index),
                                BuiltinAnswer::NoSuchCall => {}
                            },
                            _ => {}
                        }
                    }
                }
                ModelMessage::Request(request) => {
                    let mut user_prompt = false;
                    let mut result = false;
                    for (part_index, part) in request.parts.iter().enumerate() {
                        user_prompt |= matches!(part, ModelRequestPart::UserPrompt(_));
                        let Some(id) = pairing::result_id(part) else {
                            continue;
                        };
                        result = true;
                        match matcher.result(&CallKey::of(id, index, part_index)) {
                            Answer::Call(call) => block(call.message, index),
                            // A result whose calls were all answered or shadowed already is
                            // misplaced; cutting its calls away would make it an orphan too.
                            Answer::NoOpenCall { newest } => block(newest.message, index),
                            Answer::NoSuchCall => {}
                        }
                    }
                    opens[index] = user_prompt && !result;
                }
            }
        }
        let mut starts = Vec::new();
        let mut open = 0i64;
        for (index, &opens_turn) in opens.iter().enumerate() {
            open += blocked[index];
            if index == 0 || (open == 0 && opens_turn) {
                starts.push(index);
            }
        }
        Turns {
            starts,
            messages: history.len(),
        }
    }

    /// The number of turns (0 for an empty history).
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the history is empty.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The first message of each turn, ascending.
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }

    /// The messages of turn `turn` (panics when `turn >= self.len()`, like slice indexing).
    pub fn range(&self, turn: usize) -> Range<usize> {
        let end = self.starts.get(turn + 1).copied().unwrap_or(self.messages);
        self.starts[turn]..end
    }

    /// The message ranges of all turns, oldest first.
    pub fn ranges(&self) -> impl ExactSizeIterator<Item = Range<usize>> + '_ {
        (0..self.len()).map(|turn| self.range(turn))
    }

    /// The turn message `message` belongs to (`None` past the end).
    pub fn turn_of(&self, message: usize) -> Option<usize> {
        if message >= self.messages {
            return None;
        }
        Some(self.starts.partition_point(|&start| start <= message) - 1)
    }

    /// Whether the history can be cut right before `message` (keeping `message..`): `0`, the end,
    /// and the first message of every turn.
    pub fn is_cut_point(&self, message: usize) -> bool {
        message == self.messages || self.starts.binary_search(&message).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(json: &str) -> Vec<ModelMessage> {
        msgflow_wire::from_str(json).expect("a valid history")
    }

    #[test]
    fn builtin_calls_pair_with_their_returns_as_check_pairs_them() {
        // Two builtin calls share the id `b1`: the first return answers the first call (message
        // 1) and the second the second (message 4), oldest first as `check` pairs them; so the
        // user's request at 3 is a cut point, and the one at 5 (inside the second pair) is not.
        let user = |text: &str| {
            format!(
                r#"{{"kind":"request","parts":[{{"part_kind":"user-prompt","content":"{text}","timestamp":"2025-01-02T00:00:00Z"}}]}}"#
            )
        };
        let call = r#"{"kind":"response","parts":[{"part_kind":"builtin-tool-call","tool_name":"web_search","args":null,"tool_call_id":"b1"}],"timestamp":"2025-01-02T00:00:01Z"}"#;
        let ret = r#"{"kind":"response","parts":[{"part_kind":"builtin-tool-return","tool_name":"web_search","content":"ok","tool_call_id":"b1","timestamp":"2025-01-02T00:00:02Z"}],"timestamp":"2025-01-02T00:00:02Z"}"#;
        let json = format!("[{},{call},{ret},{},{call},{},{ret}]", user("a"), user("b"), user("c"));
        let history = history(&json);
        assert!(crate::check(&history).is_empty(), "{:?}", crate::check(&history));
        let turns = Turns::of(&history);
        assert_eq!(turns.ranges().collect::<Vec<_>>(), [0..3, 3..7]);
    }

    #[test]
    fn a_builtin_return_answering_no_open_call_holds_the_newest_call_with_its_id() {
        let user = r#"{"kind":"request","parts":[{"part_kind":"user-prompt","content":"go","timestamp":"2025-01-02T00:00:00Z"}]}"#;
        let call = r#"{"kind":"response","parts":[{"part_kind":"builtin-tool-call","tool_name":"web_search","args":null,"tool_call_id":"b1"}],"timestamp":"2025-01-02T00:00:01Z"}"#;
        let ret = r#"{"kind":"response","parts":[{"part_kind":"builtin-tool-return","tool_name":"web_search","content":"ok","tool_call_id":"b1","timestamp":"2025-01-02T00:00:02Z"}],"timestamp":"2025-01-02T00:00:02Z"}"#;
        // The second return answers nothing open: cutting before it must not separate it from
        // the call it repeats (message 1).
        let history = history(&format!("[{user},{call},{ret},{user},{ret}]"));
        assert_eq!(Turns::of(&history).starts(), &[0]);
    }
}
