//! Bridge to msgflow-registry: tool-call lifecycle events from a wire history.

use msgflow_registry::{HistoryEvent, RegistryWarning, ReturnOutcome, ToolCallRegistry};
use msgflow_wire::{self as w, Field, ModelMessage, RawJson, Timestamp};
use serde_json::Value;

use crate::to_canonical::{id_of, outcome_of};

/// The metadata key pydantic-ai's repair step sets on the tool returns it fabricates.
pub const SYNTHESIZED_TOOL_RETURN_METADATA_KEY: &str = "pydantic_ai_synthesized_tool_return";

/// The tool events of a history, in history order.
///
/// * `Call` for every `tool-call` part (at = the response's timestamp);
/// * `Return` for every `tool-return` part (outcome as written, `success` when absent;
///   `synthesized` when its metadata has `pydantic_ai_synthesized_tool_return: true`) and every
///   legacy `retry-prompt` with a tool name (outcome `retried`), at = the part's timestamp.
///
/// Builtin (provider-run) tool calls and returns are left out: the application never answers
/// them, so they have no lifecycle to track.
pub fn registry_events(messages: &[ModelMessage]) -> Vec<HistoryEvent> {
    let mut events = Vec::new();
    for message in messages {
        match message {
            ModelMessage::Response(response) => {
                let at = timestamp_text(&response.timestamp);
                for part in &response.parts {
                    if let w::ModelResponsePart::ToolCall(call) = part {
                        events.push(HistoryEvent::Call {
                            id: id_of(&call.tool_call_id),
                            name: call.tool_name.clone(),
                            args: call.args.get().map_or(Value::Null, RawJson::to_value),
                            at: at.clone(),
                        });
                    }
                }
            }
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    match part {
                        w::ModelRequestPart::ToolReturn(ret) => events.push(HistoryEvent::Return {
                            id: id_of(&ret.tool_call_id),
                            name: ret.tool_name.clone(),
                            outcome: ReturnOutcome::from_wire(outcome_of(&ret.outcome).as_str()),
                            content: ret.content.to_value(),
                            at: timestamp_text(&ret.timestamp),
                            synthesized: is_synthesized(&ret.metadata),
                        }),
                        w::ModelRequestPart::RetryPrompt(retry) => {
                            if let Some(name) = retry.tool_name.get() {
                                events.push(HistoryEvent::Return {
                                    id: id_of(&retry.tool_call_id),
                                    name: name.clone(),
                                    outcome: ReturnOutcome::Retried,
                                    content: retry.content.to_value(),
                                    at: timestamp_text(&retry.timestamp),
                                    synthesized: false,
                                });
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    events
}

/// A registry replayed from the history's tool events, with whatever did not fit a clean
/// lifecycle as warnings.
pub fn tool_registry(messages: &[ModelMessage]) -> (ToolCallRegistry, Vec<RegistryWarning>) {
    ToolCallRegistry::from_events(registry_events(messages))
}

fn timestamp_text(field: &Field<Timestamp>) -> Option<String> {
    field.get().map(|timestamp| timestamp.as_written().to_owned())
}

fn is_synthesized(metadata: &Field<RawJson>) -> bool {
    metadata.get().is_some_and(|metadata| {
        metadata.is_object()
            && metadata.to_value().get(SYNTHESIZED_TOOL_RETURN_METADATA_KEY) == Some(&Value::Bool(true))
    })
}
