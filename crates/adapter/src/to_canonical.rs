//! Wire → canonical.

use std::sync::Arc;

use msgflow_canonical as c;
use msgflow_canonical::{CanonicalMessage, CanonicalPart, MessageRole};
use msgflow_wire as w;
use msgflow_wire::{Field, ModelMessage, ToolReturnOutcome};

/// Converts a wire message to its canonical form, losslessly.
///
/// The role of a response is `assistant`. A request is `tool` when it has parts and all of them
/// are tool returns, `system` when it has parts and all of them are system prompts, and `user`
/// otherwise (including an empty request).
pub fn to_canonical(message: &ModelMessage) -> CanonicalMessage {
    match message {
        ModelMessage::Request(request) => {
            let parts: Vec<CanonicalPart> = request.parts.iter().map(request_part).collect();
            let role = request_role(&parts);
            let envelope = ModelMessage::from(request.clone_without_parts());
            CanonicalMessage::new(role, parts)
                .with_timestamp(request.timestamp.get().cloned())
                .with_origin(Some(Arc::new(envelope)))
        }
        ModelMessage::Response(response) => {
            let parts: Vec<CanonicalPart> = response.parts.iter().map(response_part).collect();
            let envelope = ModelMessage::from(response.clone_without_parts());
            CanonicalMessage::new(MessageRole::Assistant, parts)
                .with_timestamp(response.timestamp.get().cloned())
                .with_origin(Some(Arc::new(envelope)))
        }
    }
}

/// The role of a request with these parts (see [`to_canonical`]).
pub fn request_role(parts: &[CanonicalPart]) -> MessageRole {
    if parts.is_empty() {
        MessageRole::User
    } else if parts.iter().all(|part| matches!(part, CanonicalPart::ToolReturn(_))) {
        MessageRole::Tool
    } else if parts.iter().all(|part| matches!(part, CanonicalPart::SystemPrompt(_))) {
        MessageRole::System
    } else {
        MessageRole::User
    }
}

/// Cloning a message's envelope without cloning its (possibly large) parts.
trait CloneWithoutParts {
    fn clone_without_parts(&self) -> Self;
}

impl CloneWithoutParts for w::ModelRequest {
    fn clone_without_parts(&self) -> Self {
        Self {
            parts: Vec::new(),
            timestamp: self.timestamp.clone(),
            instructions: self.instructions.clone(),
            run_id: self.run_id.clone(),
            conversation_id: self.conversation_id.clone(),
            metadata: self.metadata.clone(),
            state: self.state.clone(),
            extra: self.extra.clone(),
        }
    }
}

impl CloneWithoutParts for w::ModelResponse {
    fn clone_without_parts(&self) -> Self {
        Self {
            parts: Vec::new(),
            usage: self.usage.clone(),
            model_name: self.model_name.clone(),
            model_id: self.model_id.clone(),
            timestamp: self.timestamp.clone(),
            provider_name: self.provider_name.clone(),
            provider_url: self.provider_url.clone(),
            canonical_system: self.canonical_system.clone(),
            provider_details: self.provider_details.clone(),
            vendor_details: self.vendor_details.clone(),
            provider_response_id: self.provider_response_id.clone(),
            vendor_id: self.vendor_id.clone(),
            finish_reason: self.finish_reason.clone(),
            run_id: self.run_id.clone(),
            conversation_id: self.conversation_id.clone(),
            metadata: self.metadata.clone(),
            workspace_ref: self.workspace_ref.clone(),
            history_digest: self.history_digest.clone(),
            failed_attempts: self.failed_attempts.clone(),
            state: self.state.clone(),
            extra: self.extra.clone(),
        }
    }
}

/// The canonical id of a wire `tool_call_id` (absent or null: empty).
pub(crate) fn id_of(field: &Field<String>) -> String {
    field.get().cloned().unwrap_or_default()
}

/// The canonical outcome of a wire `outcome` (absent or null: pydantic-ai's default, success).
pub(crate) fn outcome_of(field: &Field<ToolReturnOutcome>) -> ToolReturnOutcome {
    field.get().cloned().unwrap_or(ToolReturnOutcome::Success)
}

fn request_part(part: &w::ModelRequestPart) -> CanonicalPart {
    use w::ModelRequestPart as P;
    match part {
        P::SystemPrompt(p) => CanonicalPart::SystemPrompt(c::SystemPromptPart {
            content: p.content.clone(),
            timestamp: p.timestamp.get().cloned(),
            origin: Some(Arc::new(p.clone())),
        }),
        P::UserPrompt(p) => CanonicalPart::UserPrompt(c::UserPromptPart {
            content: p.content.clone(),
            timestamp: p.timestamp.get().cloned(),
            origin: Some(Arc::new(p.clone())),
        }),
        P::ToolReturn(p) => CanonicalPart::ToolReturn(c::ToolReturnPart {
            id: id_of(&p.tool_call_id),
            name: p.tool_name.clone(),
            content: p.content.clone(),
            outcome: outcome_of(&p.outcome),
            builtin: false,
            timestamp: p.timestamp.get().cloned(),
            origin: Some(Arc::new(c::ToolReturnOrigin::Function(p.clone()))),
        }),
        P::RetryPrompt(p) => match p.tool_name.get() {
            // pydantic-ai loads a retry prompt with a tool name as a `retried` tool return.
            Some(name) => CanonicalPart::ToolReturn(c::ToolReturnPart {
                id: id_of(&p.tool_call_id),
                name: name.clone(),
                content: p.content.clone(),
                outcome: ToolReturnOutcome::Retried,
                builtin: false,
                timestamp: p.timestamp.get().cloned(),
                origin: Some(Arc::new(c::ToolReturnOrigin::RetryPrompt(p.clone()))),
            }),
            None => CanonicalPart::RetryFeedback(c::RetryFeedbackPart {
                content: p.content.clone(),
                cause: None,
                timestamp: p.timestamp.get().cloned(),
                origin: Some(Arc::new(c::RetryFeedbackOrigin::RetryPrompt(p.clone()))),
            }),
        },
        P::RetryFeedback(p) => CanonicalPart::RetryFeedback(c::RetryFeedbackPart {
            content: p.content.clone(),
            cause: Some(p.retry.cause.clone()),
            timestamp: p.timestamp.get().cloned(),
            origin: Some(Arc::new(c::RetryFeedbackOrigin::Feedback(p.clone()))),
        }),
        other => CanonicalPart::Other(c::OtherPart::new(c::WirePart::Request(other.clone()))),
    }
}

fn response_part(part: &w::ModelResponsePart) -> CanonicalPart {
    use w::ModelResponsePart as P;
    match part {
        P::Text(p) => CanonicalPart::Text(c::TextPart {
            content: p.content.clone(),
            origin: Some(Arc::new(p.clone())),
        }),
        P::Thinking(p) => CanonicalPart::Thought(c::ThoughtPart {
            content: p.content.clone(),
            origin: Some(Arc::new(p.clone())),
        }),
        P::ToolCall(p) => CanonicalPart::ToolCall(c::ToolCallPart {
            id: id_of(&p.tool_call_id),
            name: p.tool_name.clone(),
            args: p.args.get().cloned(),
            builtin: false,
            origin: Some(Arc::new(c::ToolCallOrigin::Function(p.clone()))),
        }),
        P::BuiltinToolCall(p) => CanonicalPart::ToolCall(c::ToolCallPart {
            id: id_of(&p.tool_call_id),
            name: p.tool_name.clone(),
            args: p.args.get().cloned(),
            builtin: true,
            origin: Some(Arc::new(c::ToolCallOrigin::Builtin(p.clone()))),
        }),
        P::BuiltinToolReturn(p) => CanonicalPart::ToolReturn(c::ToolReturnPart {
            id: id_of(&p.tool_call_id),
            name: p.tool_name.clone(),
            content: p.content.clone(),
            outcome: outcome_of(&p.outcome),
            builtin: true,
            timestamp: p.timestamp.get().cloned(),
            origin: Some(Arc::new(c::ToolReturnOrigin::Builtin(p.clone()))),
        }),
        P::File(p) => CanonicalPart::File(c::FilePart {
            content: p.content.clone(),
            origin: Some(Arc::new(p.clone())),
        }),
        other => CanonicalPart::Other(c::OtherPart::new(c::WirePart::Response(other.clone()))),
    }
}
