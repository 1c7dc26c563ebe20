//! What [`crate::repair`] changed, for `--report FILE` (JSON) and the CLI's stderr (one line each).

use std::fmt;

use msgflow_wire::{ModelRequestPart, ModelResponsePart};
use serde::Serialize;

/// Every change a repair made, in a fixed order: first the removals of pass 1 (in input order),
/// then those of the opt-in `resolve_remaining` pass (in input order), then, walking the output from its first message, for each output message: its insertion, its
/// merge, then its inserted and moved parts in output order.
///
/// Positions are zero-based. `input_*` fields refer to the history given to [`crate::repair`],
/// `output_*` fields to [`crate::Repair::history`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RepairReport {
    /// The changes, in the order described above.
    pub changes: Vec<Change>,
}

impl RepairReport {
    /// `true` when the repair changed nothing (the output equals the input).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The orphan results that were removed, whole, in input order.
    pub fn removed_parts(&self) -> impl Iterator<Item = &ModelRequestPart> {
        self.changes.iter().filter_map(|change| match change {
            Change::RemovedOrphanReturn { part, .. } => Some(part.as_ref()),
            _ => None,
        })
    }
}

/// Why a part changed place inside a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveReason {
    /// It sat between two tool results and was moved right after the last of them
    /// (pydantic-ai's `_move_parts_from_between_tool_results`).
    FromBetweenResults,
    /// It is a tool result (or legacy retry prompt) that a merge of consecutive requests moved
    /// ahead of other content (pydantic-ai's results-first stable sort).
    ResultsFirst,
}

/// One change made by [`crate::repair`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "kebab-case")]
pub enum Change {
    /// A tool call without a `tool_call_id` was given one, so that the result synthesized for it
    /// can answer it (pydantic-ai gives such a call a random `pyd_ai_…` id when it loads the
    /// history; msgflow's is derived from the call's position, so repairs are deterministic).
    AssignedToolCallId {
        /// The call's message in the input.
        input_message: usize,
        /// Its index in that message's parts.
        input_part: usize,
        /// The id it was given.
        tool_call_id: String,
    },
    /// A result whose `tool_call_id` matches no earlier call was removed; `part` is the part, whole.
    RemovedOrphanReturn {
        /// Its message in the input.
        input_message: usize,
        /// Its index in that message's parts.
        input_part: usize,
        /// Its `tool_call_id` (`None` when it has none).
        tool_call_id: Option<String>,
        /// The removed part, exactly as it was.
        part: Box<ModelRequestPart>,
    },
    /// A `builtin-tool-call` no `builtin-tool-return` answers was removed (opt-in
    /// `resolve_remaining`; pydantic-ai's repair keeps it); `part` is the part, whole.
    RemovedBuiltinCall {
        /// Its message in the input.
        input_message: usize,
        /// Its index in that message's parts.
        input_part: usize,
        /// Its `tool_call_id` (`None` when it has none).
        tool_call_id: Option<String>,
        /// The removed part, exactly as it was.
        part: Box<ModelResponsePart>,
    },
    /// A message without parts (as read, or once its unanswered builtin calls were removed) was
    /// removed (opt-in `resolve_remaining`; pydantic-ai's repair keeps it).
    RemovedEmptyMessage {
        /// The message's index in the input.
        input_message: usize,
        /// The message's own fields (every key but `parts`, `kind` included), as they were.
        fields: serde_json::Value,
    },
    /// An interior request left empty by orphan removal was removed.
    RemovedEmptyRequest {
        /// The request's index in the input.
        input_message: usize,
        /// The request's own fields (every key but `parts`), as they were.
        fields: serde_json::Value,
    },
    /// A new request was inserted to hold synthesized results (after a response followed by
    /// another response, or at the end of the history).
    InsertedRequest {
        /// The new request's index in the output.
        output_message: usize,
    },
    /// A result was synthesized for a dangling call.
    InsertedSyntheticReturn {
        /// Where it is in the output.
        output_message: usize,
        /// Its index in that message's parts.
        output_part: usize,
        /// The call's `tool_call_id` (`None` when the call has none).
        tool_call_id: Option<String>,
        /// The call's tool name.
        tool_name: String,
        /// The response that made the call, in the input.
        call_input_message: usize,
        /// The call's index in that response's parts.
        call_input_part: usize,
    },
    /// Consecutive requests were merged into one newly built request.
    ///
    /// pydantic-ai's merge keeps `parts`, `instructions` (the first non-empty), `timestamp` (the
    /// last one set) and the `__pydantic_ai__` metadata namespace (shallow-merged); it discards
    /// `run_id`, `conversation_id`, `state`, application metadata keys and unknown keys.
    /// `originals` holds every field of each merged request, so nothing is lost.
    MergedRequests {
        /// The merged request's index in the output.
        output_message: usize,
        /// The merged requests' indices in the input, in order.
        input_messages: Vec<usize>,
        /// Each merged request's own fields (every key but `parts`) as they were before the merge,
        /// in the order of `input_messages`.
        originals: Vec<serde_json::Value>,
    },
    /// Consecutive synthetic responses (no `provider_response_id`, `provider_name` or
    /// `model_name`) were merged: the first one's fields are kept, the parts concatenated.
    MergedResponses {
        /// The merged response's index in the output.
        output_message: usize,
        /// The merged responses' indices in the input, in order.
        input_messages: Vec<usize>,
        /// Each merged response's own fields (every key but `parts`), in the order of
        /// `input_messages`; all but the first are what the merge discards.
        originals: Vec<serde_json::Value>,
    },
    /// A part changed place inside a request.
    MovedPart {
        /// Its message in the input.
        input_message: usize,
        /// Its index in that message's parts.
        input_part: usize,
        /// Its message in the output.
        output_message: usize,
        /// Its index in that message's parts.
        output_part: usize,
        /// Why it moved.
        reason: MoveReason,
    },
}

fn id_text(id: &Option<String>) -> String {
    match id {
        Some(id) => format!("`{id}`"),
        None => "(no tool_call_id)".to_owned(),
    }
}

fn list(indices: &[usize]) -> String {
    indices.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::AssignedToolCallId {
                input_message,
                input_part,
                tool_call_id,
            } => write!(
                f,
                "gave the tool call at input message {input_message}, part {input_part} the id `{tool_call_id}` \
                 (it had none, so no result could answer it)"
            ),
            Change::RemovedOrphanReturn {
                input_message,
                input_part,
                tool_call_id,
                part,
            } => write!(
                f,
                "removed orphan {} {} at input message {input_message}, part {input_part}: no earlier call has that id",
                part.tag().unwrap_or_default(),
                id_text(tool_call_id)
            ),
            Change::RemovedEmptyRequest { input_message, .. } => {
                write!(f, "removed input request {input_message}: it held only orphan results")
            }
            Change::RemovedBuiltinCall {
                input_message,
                input_part,
                tool_call_id,
                part,
            } => write!(
                f,
                "removed builtin tool call {} (tool `{}`) at input message {input_message}, part {input_part}: no \
                 builtin-tool-return answers it (kept whole in the report)",
                id_text(tool_call_id),
                match part.as_ref() {
                    ModelResponsePart::BuiltinToolCall(call) => call.tool_name.as_str(),
                    _ => "?",
                }
            ),
            Change::RemovedEmptyMessage { input_message, fields } => write!(
                f,
                "removed input message {input_message}: a {} without parts (its fields are kept in the report)",
                fields
                    .get("kind")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("message")
            ),
            Change::InsertedRequest { output_message } => {
                write!(
                    f,
                    "inserted a new request at output message {output_message} for synthesized results"
                )
            }
            Change::InsertedSyntheticReturn {
                output_message,
                output_part,
                tool_call_id,
                tool_name,
                call_input_message,
                call_input_part,
            } => write!(
                f,
                "synthesized an interrupted result for dangling call {} (tool `{tool_name}`, input message \
                 {call_input_message}, part {call_input_part}) at output message {output_message}, part {output_part}",
                id_text(tool_call_id)
            ),
            Change::MergedRequests {
                output_message,
                input_messages,
                ..
            } => write!(
                f,
                "merged consecutive input requests [{}] into output message {output_message} (their run_id, \
                 conversation_id, state and application metadata are kept in the report)",
                list(input_messages)
            ),
            Change::MergedResponses {
                output_message,
                input_messages,
                ..
            } => write!(
                f,
                "merged consecutive synthetic input responses [{}] into output message {output_message} (the \
                 later ones' fields are kept in the report)",
                list(input_messages)
            ),
            Change::MovedPart {
                input_message,
                input_part,
                output_message,
                output_part,
                reason,
            } => {
                let why = match reason {
                    MoveReason::FromBetweenResults => "it sat between tool results",
                    MoveReason::ResultsFirst => "tool results lead a merged request",
                };
                write!(
                    f,
                    "moved input message {input_message}, part {input_part} to output message {output_message}, \
                     part {output_part}: {why}"
                )
            }
        }
    }
}

impl fmt::Display for RepairReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for change in &self.changes {
            writeln!(f, "{change}")?;
        }
        Ok(())
    }
}
