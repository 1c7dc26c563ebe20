//! Adapter errors.

use msgflow_canonical::MessageRole;

/// A conversion the adapter refuses to guess at.
#[derive(Debug, thiserror::Error)]
pub enum AdapterError {
    /// A part cannot live in a message of this role (e.g. text in a user request).
    #[error("part {index} ({part}) cannot be in a {role} message: {hint}", hint = role_hint(*role))]
    PartRoleMismatch {
        /// The message's role.
        role: MessageRole,
        /// The part's index in the message.
        index: usize,
        /// The part's canonical type (and wire kind for "other" parts).
        part: String,
    },
    /// The message's wire origin is of the other kind than its role.
    #[error("a {role} message cannot carry a wire `{origin}` as its origin")]
    OriginRoleMismatch {
        /// The message's role.
        role: MessageRole,
        /// The origin's kind (`request` or `response`).
        origin: &'static str,
    },
    /// A tool call or return has no id to write as `tool_call_id`.
    #[error(
        "part {index} is a tool call or return without an id; pydantic-ai pairs calls and returns by tool_call_id"
    )]
    MissingToolCallId {
        /// The part's index in the message.
        index: usize,
    },
    /// Loose JSON that is neither a wire message nor a known legacy shape.
    #[error("not a message: {0}")]
    NotAMessage(String),
    /// A JSON object with `kind` that is not a valid wire message.
    #[error("invalid wire message: {0}")]
    Wire(#[from] msgflow_wire::ParseError),
    /// An error inside one message of a history.
    #[error("message {index}: {source}")]
    InMessage {
        /// The message's index in the history.
        index: usize,
        /// What went wrong.
        #[source]
        source: Box<AdapterError>,
    },
}

fn role_hint(role: MessageRole) -> &'static str {
    match role {
        MessageRole::Assistant => {
            "assistant messages are wire responses (text, thought, tool_call, builtin tool_return, file, response-side other parts)"
        }
        MessageRole::User | MessageRole::System | MessageRole::Tool => {
            "user, system and tool messages are wire requests (system_prompt, user_prompt, tool_return, retry_feedback, request-side other parts)"
        }
    }
}
