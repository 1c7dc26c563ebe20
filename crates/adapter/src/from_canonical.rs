//! Canonical → wire.
//!
//! Rule: start from the part's (or message's) origin when there is one, else from pydantic-ai's
//! defaults, then write every canonical field whose value differs from what the origin says.
//! An unchanged value therefore leaves the origin's exact spelling alone (an absent key stays
//! absent, a `null` stays `null`), which is what makes the round trip byte-identical.

use msgflow_canonical as c;
use msgflow_canonical::{CanonicalMessage, CanonicalPart, PartSide};
use msgflow_wire as w;
use msgflow_wire::{Field, FileDigests, ModelMessage, RawJson, Timestamp, ToolReturnOutcome};

use crate::error::AdapterError;
use crate::to_canonical::{id_of, outcome_of};

/// Converts a canonical message back to a wire message.
///
/// Assistant messages become responses and may hold text, thoughts, tool calls, builtin tool
/// returns, files and response-side "other" parts; user, system and tool messages become
/// requests and may hold system and user prompts, (non-builtin) tool returns, retry feedback and
/// request-side "other" parts. A part that does not fit is an [`AdapterError::PartRoleMismatch`];
/// an origin of the other message kind is an [`AdapterError::OriginRoleMismatch`]. A tool call or
/// return built in code with an empty id is an [`AdapterError::MissingToolCallId`].
pub fn from_canonical(message: &CanonicalMessage) -> Result<ModelMessage, AdapterError> {
    let fallback = message.timestamp().cloned().unwrap_or_else(c::default_timestamp);
    match message.role().side() {
        PartSide::Request => {
            let mut request = match message.origin() {
                Some(ModelMessage::Request(origin)) => envelope_request(origin),
                Some(ModelMessage::Response(_)) => {
                    return Err(AdapterError::OriginRoleMismatch {
                        role: message.role(),
                        origin: "response",
                    })
                }
                None => w::ModelRequest::new(Vec::new()),
            };
            let has_origin = message.origin().is_some();
            overlay_timestamp(&mut request.timestamp, message.timestamp(), has_origin, None);
            request.parts = message
                .parts()
                .iter()
                .enumerate()
                .map(|(index, part)| request_part(message, index, part, &fallback))
                .collect::<Result<_, _>>()?;
            Ok(ModelMessage::from(request))
        }
        PartSide::Response => {
            let mut response = match message.origin() {
                Some(ModelMessage::Response(origin)) => envelope_response(origin),
                Some(ModelMessage::Request(_)) => {
                    return Err(AdapterError::OriginRoleMismatch {
                        role: message.role(),
                        origin: "request",
                    })
                }
                None => w::ModelResponse::new(Vec::new()),
            };
            let has_origin = message.origin().is_some();
            overlay_timestamp(
                &mut response.timestamp,
                message.timestamp(),
                has_origin,
                Some(&fallback),
            );
            response.parts = message
                .parts()
                .iter()
                .enumerate()
                .map(|(index, part)| response_part(message, index, part, &fallback))
                .collect::<Result<_, _>>()?;
            Ok(ModelMessage::from(response))
        }
    }
}

fn envelope_request(origin: &w::ModelRequest) -> w::ModelRequest {
    w::ModelRequest {
        parts: Vec::new(),
        timestamp: origin.timestamp.clone(),
        instructions: origin.instructions.clone(),
        run_id: origin.run_id.clone(),
        conversation_id: origin.conversation_id.clone(),
        metadata: origin.metadata.clone(),
        state: origin.state.clone(),
        extra: origin.extra.clone(),
    }
}

fn envelope_response(origin: &w::ModelResponse) -> w::ModelResponse {
    let mut response = origin.clone();
    // The origin is stored with empty parts; clearing keeps a caller-supplied one honest.
    response.parts.clear();
    response
}

/// Writes `value` into a wire timestamp field.
///
/// With an origin, an unchanged value keeps the field as written; a cleared one falls back. Without
/// an origin, `None` becomes `fallback` (or stays pydantic-ai's default when there is none).
fn overlay_timestamp(
    field: &mut Field<Timestamp>,
    value: Option<&Timestamp>,
    has_origin: bool,
    fallback: Option<&Timestamp>,
) {
    if has_origin && field.get() == value {
        return;
    }
    match (value, fallback) {
        (Some(timestamp), _) | (None, Some(timestamp)) => *field = Field::Present(timestamp.clone()),
        (None, None) => {}
    }
}

/// Writes a canonical id into a wire `tool_call_id` field.
fn overlay_id(field: &mut Field<String>, id: &str, has_origin: bool, index: usize) -> Result<(), AdapterError> {
    if has_origin && id_of(field) == id {
        return Ok(());
    }
    if id.is_empty() {
        return Err(AdapterError::MissingToolCallId { index });
    }
    *field = Field::Present(id.to_owned());
    Ok(())
}

fn overlay_outcome(field: &mut Field<ToolReturnOutcome>, outcome: &ToolReturnOutcome, has_origin: bool) {
    if !(has_origin && outcome_of(field) == *outcome) {
        *field = Field::Present(outcome.clone());
    }
}

/// `content_file_digests` for new content: pydantic-ai writes the key for structured content
/// only. `[]` records "no file items", so file-shaped objects inside load as plain dicts.
fn digests_for(content: &RawJson) -> Field<FileDigests> {
    if content.is_object() || content.is_array() {
        Field::Present(FileDigests::default())
    } else {
        Field::Absent
    }
}

fn mismatch(message: &CanonicalMessage, index: usize, part: &CanonicalPart) -> AdapterError {
    AdapterError::PartRoleMismatch {
        role: message.role(),
        index,
        part: part_label(part),
    }
}

/// The canonical type and, when known, the wire part kind, for error messages.
fn part_label(part: &CanonicalPart) -> String {
    match part {
        CanonicalPart::Other(other) => match other.wire().part_kind() {
            Some(kind) => format!("other ({} part {kind:?})", side_name(other.side())),
            None => format!("other ({} part)", side_name(other.side())),
        },
        CanonicalPart::ToolReturn(ret) if ret.builtin => "tool_return (builtin)".to_owned(),
        other => other.type_name().to_owned(),
    }
}

fn side_name(side: PartSide) -> &'static str {
    match side {
        PartSide::Request => "request",
        PartSide::Response => "response",
    }
}

fn request_part(
    message: &CanonicalMessage,
    index: usize,
    part: &CanonicalPart,
    fallback: &Timestamp,
) -> Result<w::ModelRequestPart, AdapterError> {
    use w::ModelRequestPart as P;
    let fallback = Some(fallback);
    Ok(match part {
        CanonicalPart::SystemPrompt(p) => {
            let has_origin = p.origin.is_some();
            let mut out = p
                .origin
                .as_deref()
                .cloned()
                .unwrap_or_else(|| w::SystemPromptPart::new(p.content.clone()));
            if out.content != p.content {
                out.content.clone_from(&p.content);
            }
            overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), has_origin, fallback);
            P::SystemPrompt(out)
        }
        CanonicalPart::UserPrompt(p) => {
            let has_origin = p.origin.is_some();
            let mut out = p
                .origin
                .as_deref()
                .cloned()
                .unwrap_or_else(|| w::UserPromptPart::new(p.content.clone()));
            if out.content != p.content {
                out.content = p.content.clone();
            }
            overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), has_origin, fallback);
            P::UserPrompt(out)
        }
        CanonicalPart::ToolReturn(p) if !p.builtin => tool_return(p, index, fallback)?,
        CanonicalPart::RetryFeedback(p) => retry_feedback(p, fallback),
        CanonicalPart::Other(other) => match other.wire() {
            c::WirePart::Request(wire) => wire.clone(),
            c::WirePart::Response(_) => return Err(mismatch(message, index, part)),
        },
        CanonicalPart::Text(_)
        | CanonicalPart::Thought(_)
        | CanonicalPart::ToolCall(_)
        | CanonicalPart::ToolReturn(_)
        | CanonicalPart::File(_) => return Err(mismatch(message, index, part)),
    })
}

fn tool_return(
    p: &c::ToolReturnPart,
    index: usize,
    fallback: Option<&Timestamp>,
) -> Result<w::ModelRequestPart, AdapterError> {
    use w::ModelRequestPart as P;
    // A legacy retry prompt can only say "retried"; another outcome needs a modern tool-return.
    match p.origin.as_deref() {
        Some(c::ToolReturnOrigin::RetryPrompt(origin)) if p.outcome == ToolReturnOutcome::Retried => {
            let mut out = origin.clone();
            if out.tool_name.get() != Some(&p.name) {
                out.tool_name = Field::Present(p.name.clone());
            }
            if out.content != p.content {
                out.content = p.content.clone();
            }
            overlay_id(&mut out.tool_call_id, &p.id, true, index)?;
            overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), true, fallback);
            Ok(P::RetryPrompt(out))
        }
        Some(c::ToolReturnOrigin::Function(origin)) => {
            let mut out = origin.clone();
            fill_tool_return(&mut out, p, true, index, fallback)?;
            Ok(P::ToolReturn(out))
        }
        // No origin, or one of another wire kind: build from the canonical fields.
        _ => {
            let mut out = w::ToolReturnPart::new(p.name.clone(), p.content.clone());
            out.content_file_digests = digests_for(&p.content);
            fill_tool_return(&mut out, p, false, index, fallback)?;
            Ok(P::ToolReturn(out))
        }
    }
}

fn fill_tool_return(
    out: &mut w::ToolReturnPart,
    p: &c::ToolReturnPart,
    has_origin: bool,
    index: usize,
    fallback: Option<&Timestamp>,
) -> Result<(), AdapterError> {
    if out.tool_name != p.name {
        out.tool_name.clone_from(&p.name);
    }
    if out.content != p.content {
        out.content = p.content.clone();
        out.content_file_digests = digests_for(&p.content);
    }
    overlay_id(&mut out.tool_call_id, &p.id, has_origin, index)?;
    overlay_outcome(&mut out.outcome, &p.outcome, has_origin);
    overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), has_origin, fallback);
    Ok(())
}

fn retry_feedback(p: &c::RetryFeedbackPart, fallback: Option<&Timestamp>) -> w::ModelRequestPart {
    use w::ModelRequestPart as P;
    match p.origin.as_deref() {
        Some(c::RetryFeedbackOrigin::RetryPrompt(origin)) if p.cause.is_none() => {
            let mut out = origin.clone();
            if out.content != p.content {
                out.content = p.content.clone();
            }
            overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), true, fallback);
            P::RetryPrompt(out)
        }
        Some(c::RetryFeedbackOrigin::Feedback(origin)) => {
            let mut out = origin.clone();
            if out.content != p.content {
                out.content = p.content.clone();
            }
            if let Some(cause) = &p.cause {
                if out.retry.cause != *cause {
                    out.retry.cause = cause.clone();
                }
            }
            overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), true, fallback);
            P::RetryFeedback(out)
        }
        _ => {
            let cause = p.cause.clone().unwrap_or(w::RetryCause::ModelRetry);
            let mut out = w::RetryFeedbackPart::new(p.content.clone(), w::RetryInfo::new(cause));
            overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), false, fallback);
            P::RetryFeedback(out)
        }
    }
}

fn response_part(
    message: &CanonicalMessage,
    index: usize,
    part: &CanonicalPart,
    fallback: &Timestamp,
) -> Result<w::ModelResponsePart, AdapterError> {
    use w::ModelResponsePart as P;
    Ok(match part {
        CanonicalPart::Text(p) => {
            let mut out = p
                .origin
                .as_deref()
                .cloned()
                .unwrap_or_else(|| w::TextPart::new(p.content.clone()));
            if out.content != p.content {
                out.content.clone_from(&p.content);
            }
            P::Text(out)
        }
        CanonicalPart::Thought(p) => {
            let mut out = p
                .origin
                .as_deref()
                .cloned()
                .unwrap_or_else(|| w::ThinkingPart::new(p.content.clone()));
            if out.content != p.content {
                out.content.clone_from(&p.content);
            }
            P::Thinking(out)
        }
        CanonicalPart::ToolCall(p) => tool_call(p, index)?,
        CanonicalPart::ToolReturn(p) if p.builtin => {
            let (mut out, has_origin) = match p.origin.as_deref() {
                Some(c::ToolReturnOrigin::Builtin(origin)) => (origin.clone(), true),
                _ => {
                    let mut out = w::NativeToolReturnPart::new(p.name.clone(), p.content.clone());
                    out.content_file_digests = digests_for(&p.content);
                    (out, false)
                }
            };
            if out.tool_name != p.name {
                out.tool_name.clone_from(&p.name);
            }
            if out.content != p.content {
                out.content = p.content.clone();
                out.content_file_digests = digests_for(&p.content);
            }
            overlay_id(&mut out.tool_call_id, &p.id, has_origin, index)?;
            overlay_outcome(&mut out.outcome, &p.outcome, has_origin);
            overlay_timestamp(&mut out.timestamp, p.timestamp.as_ref(), has_origin, Some(fallback));
            P::BuiltinToolReturn(out)
        }
        CanonicalPart::File(p) => {
            let mut out = p
                .origin
                .as_deref()
                .cloned()
                .unwrap_or_else(|| w::FilePart::new(p.content.clone()));
            if out.content != p.content {
                out.content = p.content.clone();
            }
            P::File(out)
        }
        CanonicalPart::Other(other) => match other.wire() {
            c::WirePart::Response(wire) => wire.clone(),
            c::WirePart::Request(_) => return Err(mismatch(message, index, part)),
        },
        CanonicalPart::SystemPrompt(_)
        | CanonicalPart::UserPrompt(_)
        | CanonicalPart::ToolReturn(_)
        | CanonicalPart::RetryFeedback(_) => return Err(mismatch(message, index, part)),
    })
}

fn tool_call(p: &c::ToolCallPart, index: usize) -> Result<w::ModelResponsePart, AdapterError> {
    use w::ModelResponsePart as P;
    // The three fields shared by both wire kinds, written over whichever one applies.
    fn fill(
        tool_name: &mut String,
        args: &mut Field<RawJson>,
        tool_call_id: &mut Field<String>,
        p: &c::ToolCallPart,
        has_origin: bool,
        index: usize,
    ) -> Result<(), AdapterError> {
        if *tool_name != p.name {
            tool_name.clone_from(&p.name);
        }
        if !(has_origin && args.get() == p.args.as_ref()) {
            *args = Field::from(p.args.clone());
        }
        overlay_id(tool_call_id, &p.id, has_origin, index)
    }
    match (p.builtin, p.origin.as_deref()) {
        (false, origin) => {
            let (mut out, has_origin) = match origin {
                Some(c::ToolCallOrigin::Function(origin)) => (origin.clone(), true),
                _ => (w::ToolCallPart::new(p.name.clone()), false),
            };
            fill(
                &mut out.tool_name,
                &mut out.args,
                &mut out.tool_call_id,
                p,
                has_origin,
                index,
            )?;
            Ok(P::ToolCall(out))
        }
        (true, origin) => {
            let (mut out, has_origin) = match origin {
                Some(c::ToolCallOrigin::Builtin(origin)) => (origin.clone(), true),
                _ => (w::NativeToolCallPart::new(p.name.clone()), false),
            };
            fill(
                &mut out.tool_name,
                &mut out.args,
                &mut out.tool_call_id,
                p,
                has_origin,
                index,
            )?;
            Ok(P::BuiltinToolCall(out))
        }
    }
}
