//! Errors of registry operations. Every error leaves the registry unchanged.

use thiserror::Error;

use crate::status::ToolCallStatus;

/// Why a registry operation was refused. The registry is left exactly as it was.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RegistryError {
    /// A call was registered with an empty `tool_call_id`; it could never be matched to a result.
    #[error("tool_call_id is required")]
    EmptyId,
    /// The id is already registered for a different tool name or different arguments.
    #[error(
        "tool call `{id}` is already registered as `{existing_name}` with other arguments or name (new: `{new_name}`)"
    )]
    ConflictingRegistration {
        /// The id registered twice.
        id: String,
        /// The tool name already stored under the id.
        existing_name: String,
        /// The tool name of the refused registration.
        new_name: String,
    },
    /// No call is registered under this id.
    #[error("tool call `{id}` is not registered")]
    UnknownCall {
        /// The id that was looked up.
        id: String,
    },
    /// The requested status change is not allowed (see
    /// [`ToolCallStatus::can_transition_to`]), e.g. completing a cancelled call or completing
    /// twice.
    #[error("tool call `{id}` cannot go from {from} to {to}")]
    IllegalTransition {
        /// The call's id.
        id: String,
        /// Its current status.
        from: ToolCallStatus,
        /// The refused status.
        to: ToolCallStatus,
    },
    /// A deserialized registry listed the same id twice.
    #[error("tool call `{id}` appears more than once")]
    DuplicateId {
        /// The repeated id.
        id: String,
    },
}
