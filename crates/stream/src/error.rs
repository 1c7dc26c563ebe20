//! What the parts manager refuses, where pydantic-ai raises.

/// An event or delta the parts manager cannot apply.
///
/// Each variant is a place where pydantic-ai 2.68.0's `ModelResponsePartsManager` (or the delta's
/// `apply`) raises; the manager's state is left as it was before the call, as pydantic-ai leaves it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// A delta of one kind aimed at a part of another kind (`UnexpectedModelBehavior: Cannot apply a
    /// text delta to existing_part=...` and its thinking / tool-call siblings).
    #[error("cannot apply a {delta} delta to part {index}, a `{part_kind}` part")]
    WrongPartKind {
        /// `text`, `thinking` or `tool call`.
        delta: &'static str,
        /// Index of the part the delta was aimed at.
        index: usize,
        /// `part_kind` of that part (`tool-call delta` for a call that has no name yet).
        part_kind: String,
    },
    /// `handle_thinking_delta` with nothing to start a part from (`UnexpectedModelBehavior: Cannot
    /// create a ThinkingPart with no content, signature, or provider_details`).
    #[error("cannot create a thinking part with no content, signature, or provider_details")]
    EmptyThinkingPart,
    /// A string arguments delta onto dict arguments or the reverse (`UnexpectedModelBehavior: Cannot
    /// apply JSON deltas to non-JSON tool arguments` / `Cannot apply dict deltas to non-dict tool
    /// arguments`).
    #[error("cannot apply {delta} arguments to a tool call whose arguments are a {existing}")]
    ArgsMismatch {
        /// What the call's arguments are: `dict` or `string`.
        existing: &'static str,
        /// What the delta carries: `string` or `dict`.
        delta: &'static str,
    },
    /// Tool arguments that are neither a string, an object nor null.
    #[error("tool arguments must be a string, an object or null, not {found}")]
    InvalidArgs {
        /// The value as written.
        found: String,
    },
    /// A value that must be a JSON object (provider details, dict arguments) is not one.
    #[error("`{what}` must be an object, not {found}")]
    NotAnObject {
        /// Which value.
        what: &'static str,
        /// The value as written.
        found: String,
    },
    /// A replayed `part_delta` event for an index no `part_start` event opened, or that holds a
    /// call with no name yet (`apply_event`'s `assert part is not None`, the IndexError of
    /// pydantic-ai issue #6731).
    #[error("part_delta event for index {index}, which no part_start event opened")]
    UnknownIndex {
        /// The event's `index`.
        index: i64,
    },
    /// A replayed delta of one kind for a part of another (`ValueError: Cannot apply TextPartDeltas
    /// to non-TextParts` and its siblings).
    #[error("part_delta event for index {index}: cannot apply a `{delta_kind}` delta to a `{part_kind}` part")]
    ReplayKindMismatch {
        /// The event's `index`.
        index: i64,
        /// The delta's `part_delta_kind`.
        delta_kind: String,
        /// The part's `part_kind`.
        part_kind: String,
    },
    /// A delta msgflow cannot apply: `speech` deltas (realtime audio) and kinds from a newer
    /// pydantic-ai.
    #[error("part_delta event for index {index}: `{delta_kind}` deltas are not supported")]
    UnsupportedDelta {
        /// The event's `index`.
        index: i64,
        /// The delta's `part_delta_kind`.
        delta_kind: String,
    },
}

impl StreamError {
    /// A short name for the kind of error, the same for every instance of a variant (for
    /// reports and for comparing with what pydantic-ai raised).
    pub fn kind(&self) -> &'static str {
        match self {
            StreamError::WrongPartKind { .. } => "wrong_part_kind",
            StreamError::EmptyThinkingPart => "empty_thinking_part",
            StreamError::ArgsMismatch { .. } => "args_mismatch",
            StreamError::InvalidArgs { .. } => "invalid_args",
            StreamError::NotAnObject { .. } => "not_an_object",
            StreamError::UnknownIndex { .. } => "unknown_index",
            StreamError::ReplayKindMismatch { .. } => "replay_kind_mismatch",
            StreamError::UnsupportedDelta { .. } => "unsupported_delta",
        }
    }
}
