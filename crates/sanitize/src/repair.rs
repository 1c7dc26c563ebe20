//! [`repair`]: pydantic-ai 2.68.0's `repair_messages`, on the wire types, with a report.
//!
//! This module holds the options, the entry point, passes 1 and 2 and the rebuilding of the output;
//! `plan` finds what the passes will change, `work` is the working history the passes edit, and
//! `merge` is pass 3.

mod merge;
mod plan;
mod work;

use foldhash::HashMap;

use msgflow_wire::{
    Field, ModelMessage, ModelRequestPart, ModelResponsePart, RawJson, ToolReturnOutcome, ToolReturnPart,
};

use self::merge::framework_metadata;
use self::plan::Plan;
use self::work::{Origin, Tracked, TrackedParts, Work};
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

#[derive(Default)]
struct Repairer {
    changes: Vec<Change>,
    synthesized: Vec<Synthesized>,
    moved: HashMap<Pos, MoveReason>,
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
