//! What a repair's passes will change, found in one pass over the input.

use foldhash::HashMap;

use msgflow_wire::{Field, ModelMessage, ModelRequestPart, ModelResponse, ModelResponsePart};

use super::RepairOptions;
use crate::pairing::{self, Pos};
use crate::report::Change;

/// What the passes will change, found in one pass over the input (a pass per question costs a
/// trip through memory each on a big history). The matching walk does not see orphans (no call
/// has their key), so it gives the same dangling calls before pass 1 as after it, at input
/// positions.
pub(super) struct Plan {
    /// The orphan results, in input order.
    pub(super) orphans: Vec<Pos>,
    /// The calls to close, by input response.
    pub(super) dangling: HashMap<usize, Vec<usize>>,
    /// The input requests with other content between their tool results, in input order.
    pub(super) content_between_results: Vec<usize>,
    /// The builtin calls no builtin return answers, in input order (only with `resolve_remaining`).
    pub(super) unanswered_builtin: Vec<Pos>,
}

impl Plan {
    /// Also gives every tool call without a `tool_call_id` a deterministic one (recorded in
    /// `changes`), so that the walk can match it.
    pub(super) fn of(history: &mut [ModelMessage], options: &RepairOptions, changes: &mut Vec<Change>) -> Self {
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

/// Whether other content sits between the first and the last tool result of these parts.
pub(super) fn content_between<'a>(parts: impl Iterator<Item = &'a ModelRequestPart>) -> bool {
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
