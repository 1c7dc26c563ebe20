//! [`normalisations`]: what pydantic-ai 2.68.0's `repair_messages` changes in a history that
//! nothing is wrong with, so that `check` says what `repair` will do.
//!
//! pydantic-ai loads and runs such a history as it is; its repair (run at the start of every
//! agent run) merges consecutive requests (a run that died before the model answered, then a new
//! prompt) and consecutive synthetic responses (`_merge_consecutive_messages`). These are notes,
//! not violations: nothing a provider rejects, nothing lost that the report of `repair` does not
//! keep.

use std::fmt;

use msgflow_wire::ModelMessage;
use serde::Serialize;

use crate::repair::{repair, RepairOptions};
use crate::report::Change;

/// The kind of a [`Note`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteKind {
    /// Consecutive requests pydantic-ai's repair merges into one (results first; the first
    /// non-empty `instructions`, the last `timestamp`; `run_id`, `conversation_id`, `state` and
    /// application metadata of the merged requests are dropped).
    MergedRequests,
    /// Consecutive synthetic responses (no provider response id, provider name or model name)
    /// pydantic-ai's repair merges into one, keeping the first one's fields.
    MergedResponses,
}

/// One change pydantic-ai's repair would make that is no problem (see [`normalisations`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// What pydantic-ai's repair does.
    pub kind: NoteKind,
    /// The first message concerned, zero-based.
    pub message_index: usize,
    /// Every message concerned, zero-based, in order.
    pub message_indices: Vec<usize>,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = self
            .message_indices
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let what = match self.kind {
            NoteKind::MergedRequests => "consecutive requests",
            NoteKind::MergedResponses => "consecutive synthetic responses",
        };
        write!(
            f,
            "note: {what} at messages {list}: pydantic-ai's repair merges them into one (pydantic-ai loads the \
             history as it is; `repair` makes the merge and keeps what it drops in its report)"
        )
    }
}

/// The merges pydantic-ai 2.68.0's `repair_messages` makes in `history` (the default
/// [`RepairOptions`]), at the input's message indices.
///
/// Only a history with two requests or two responses in a row can hold one; any other history
/// is answered without repairing it.
pub fn normalisations(history: &[ModelMessage]) -> Vec<Note> {
    let adjacent_alike = history.windows(2).any(|pair| {
        matches!(
            pair,
            [ModelMessage::Request(_), ModelMessage::Request(_)]
                | [ModelMessage::Response(_), ModelMessage::Response(_)]
        )
    });
    if !adjacent_alike {
        return Vec::new();
    }
    repair(history.to_vec(), &RepairOptions::default())
        .report
        .changes
        .into_iter()
        .filter_map(|change| {
            let (kind, input_messages) = match change {
                Change::MergedRequests { input_messages, .. } => (NoteKind::MergedRequests, input_messages),
                Change::MergedResponses { input_messages, .. } => (NoteKind::MergedResponses, input_messages),
                _ => return None,
            };
            Some(Note {
                kind,
                message_index: *input_messages.first()?,
                message_indices: input_messages,
            })
        })
        .collect()
}
