//! From an event log back to messages: the response(s) a stream built and the tool-return
//! requests an agent run recorded between them.

use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelRequestState, ModelResponse, ModelResponseState,
    Timestamp,
};
use serde::Serialize;

use crate::log::{EventLog, LogEvent};
use crate::{PartsManager, ResponseStreamEvent, StreamError};

/// What the assembled responses get that the events do not carry.
#[derive(Clone, Debug, Default)]
pub struct AssembleOptions {
    /// Each response's `timestamp` (pydantic-ai stamps the time the stream started; absent when
    /// `None`, which pydantic-ai fills with the load time).
    pub timestamp: Option<Timestamp>,
    /// Each response's `model_name`.
    pub model_name: Option<String>,
    /// Each response's `provider_name`.
    pub provider_name: Option<String>,
}

/// A part of an interrupted response that had not ended when the stream was cut (no `part_end`
/// event): text or thinking cut short, or a tool call with the arguments that had arrived.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CutPart {
    /// Index of the response in [`Assembly::messages`].
    pub message: usize,
    /// Index of the part in the response.
    pub part: usize,
    /// The part's `part_kind`.
    pub part_kind: String,
    /// For a tool call, its `tool_name` and `tool_call_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call: Option<(String, String)>,
}

/// What an assembly read and built, and what the stream did not finish.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AssemblyReport {
    /// Events read.
    pub events: usize,
    /// Responses built.
    pub responses: usize,
    /// Parts in the responses.
    pub parts: usize,
    /// Tool results put into requests.
    pub tool_results: usize,
    /// `true` when the last response's stream ended (its last part has its `part_end` event, or
    /// the run went on to run tools or finished); `false` for an interrupted stream, whose last
    /// response has `state: "interrupted"`.
    pub completed: bool,
    /// The 1-based number of a last line that was cut off mid-JSON (its event is lost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_line: Option<usize>,
    /// Where a request pydantic-ai sent has no event in the log, so the history has two responses
    /// back to back (index in [`Assembly::messages`] of the second): the retry feedback
    /// (`retry-feedback`, "Please return text or call a tool.") after a response with no usable
    /// output is sent without an event.
    pub unlogged_requests: Vec<usize>,
    /// The parts of an interrupted response that had not ended: text and thinking cut short,
    /// tool calls with partial arguments (kept, as pydantic-ai keeps them).
    pub unfinished_parts: Vec<CutPart>,
}

/// The messages an event log assembles into, and the report.
#[derive(Clone, Debug)]
pub struct Assembly {
    /// Responses, with a request holding the tool results between two responses (and after the
    /// last one when the log ends after tool results).
    pub messages: Vec<ModelMessage>,
    /// What was read and what was cut.
    pub report: AssemblyReport,
}

/// An event that cannot be applied to the response being assembled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {source}")]
pub struct AssembleError {
    /// 1-based line of the event.
    pub line: usize,
    /// Why the manager refused it.
    pub source: StreamError,
}

/// The response being built.
struct Building {
    manager: PartsManager,
    /// Index of the last `part_start` and whether a `part_end` for it came after it.
    last_start: Option<(i64, bool)>,
    /// Indexes of parts started and not ended.
    open: Vec<i64>,
    /// Whether the stream ended: the last part started has its final `part_end` (one with no
    /// `next_part_kind`), or is a part that gets none.
    ended: bool,
}

impl Building {
    fn new() -> Self {
        Building {
            manager: PartsManager::new(),
            last_start: None,
            open: Vec::new(),
            ended: false,
        }
    }
}

/// Rebuilds the messages of an event log, as pydantic-ai recorded them.
///
/// Response events are replayed with [`PartsManager::apply_event`] (pydantic-ai's
/// `apply_event` + `get_parts()`). A response event after tool events starts the next
/// response; the tool results in between become a request, in order. The last response is
/// `complete` when its stream ended (the `part_end` of its last part, which pydantic-ai sends
/// only once the provider stream is exhausted, or later run events), else `interrupted`: the
/// parts streamed so far are kept as they were, text cut short and a tool call with the
/// arguments that had arrived, which `msgflow repair` then answers with an interrupted result.
///
/// ```
/// use msgflow_stream::{assemble, read_log, AssembleOptions};
/// let log = read_log(concat!(
///     r#"{"index":0,"part":{"content":"Hel","id":null,"provider_name":null,"provider_details":null,"citations":null,"part_kind":"text"},"previous_part_kind":null,"canonical_system":null,"event_kind":"part_start"}"#, "\n",
///     r#"{"index":0,"delta":{"content_delta":"lo","provider_name":null,"provider_details":null,"citations_delta":null,"part_delta_kind":"text"},"event_kind":"part_delta"}"#, "\n",
/// ))?;
/// let assembly = assemble(&log, &AssembleOptions::default())?;
/// assert!(!assembly.report.completed); // no part_end: the stream was cut
/// let json = msgflow_wire::to_string(&assembly.messages)?;
/// assert!(json.contains(r#""content":"Hello""#) && json.ends_with(r#""state":"interrupted"}]"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn assemble(log: &EventLog, options: &AssembleOptions) -> Result<Assembly, AssembleError> {
    let mut messages = Vec::new();
    let mut report = AssemblyReport {
        events: log.events.len(),
        truncated_line: log.truncated.as_ref().map(|cut| cut.line),
        ..Default::default()
    };
    let mut building: Option<Building> = None;
    let mut results: Vec<ModelRequestPart> = Vec::new();
    // The calls the agent handles, in the response's order (results arrive as tools finish).
    let mut call_order: Vec<String> = Vec::new();
    // Whether the run went past the current response (tool events, the run's result).
    let mut past_response = false;
    let mut run_finished = false;

    for (line, event) in &log.events {
        match event {
            LogEvent::Response(event) => {
                // After the end of a stream (the `part_end` of its last part, `next_part_kind`
                // null), a part event belongs to the next response: pydantic-ai sent a request
                // the log has no event for (the retry feedback after a response with no output).
                let stream_ended = building.as_ref().is_some_and(|current| current.ended);
                if stream_ended
                    && !past_response
                    && matches!(
                        event,
                        ResponseStreamEvent::PartStart(_) | ResponseStreamEvent::PartDelta(_)
                    )
                {
                    if let Some(done) = building.take() {
                        messages.push(finish(done, options, true, &mut report, messages.len()));
                        report.unlogged_requests.push(messages.len());
                    }
                }
                if past_response {
                    if let Some(done) = building.take() {
                        messages.push(finish(done, options, true, &mut report, messages.len()));
                    }
                    if !results.is_empty() {
                        let parts = in_call_order(std::mem::take(&mut results), &call_order);
                        messages.push(ModelMessage::from(ModelRequest::new(parts)));
                    }
                    call_order.clear();
                    past_response = false;
                }
                let current = building.get_or_insert_with(Building::new);
                current
                    .manager
                    .apply_event(event)
                    .map_err(|source| AssembleError { line: *line, source })?;
                track(current, event);
            }
            LogEvent::ToolCall { part, .. } => {
                past_response = true;
                call_order.push(part.tool_call_id.get().cloned().unwrap_or_default());
            }
            LogEvent::ToolResult { part, .. } => {
                past_response = true;
                report.tool_results += 1;
                results.push(part.clone());
            }
            LogEvent::RunResult => {
                past_response = true;
                run_finished = true;
            }
            LogEvent::Other(_) => {}
        }
    }
    let mut completed = run_finished;
    if let Some(last) = building.take() {
        let ended = (last.last_start.is_none() || last.ended) && log.truncated.is_none();
        completed = completed || ended;
        let index = messages.len();
        messages.push(finish(last, options, completed, &mut report, index));
    } else if log.truncated.is_none() {
        completed = true;
    }
    if past_response && !run_finished {
        // The run was stopped while it handled the response's tool calls: pydantic-ai records
        // the request it was building, with the results it had (possibly none), as interrupted.
        let mut request = ModelRequest::new(in_call_order(results, &call_order));
        request.state = Field::Present(ModelRequestState::from_wire("interrupted"));
        messages.push(ModelMessage::from(request));
        completed = false;
    } else if !results.is_empty() {
        messages.push(ModelMessage::from(ModelRequest::new(in_call_order(
            results,
            &call_order,
        ))));
    }
    report.completed = completed;
    report.responses = messages
        .iter()
        .filter(|message| matches!(message, ModelMessage::Response(_)))
        .count();
    Ok(Assembly { messages, report })
}

/// The results in the order of their calls: tools run concurrently and their result events come
/// as they finish, but pydantic-ai puts the returns into the request by call index
/// (`_tool_execution.py`, "Append parts ... in emission order"). Results for calls without a call
/// event keep their place after the others.
fn in_call_order(mut results: Vec<ModelRequestPart>, call_order: &[String]) -> Vec<ModelRequestPart> {
    let position = |part: &ModelRequestPart| {
        let id = match part {
            ModelRequestPart::ToolReturn(part) => part.tool_call_id.get(),
            ModelRequestPart::RetryPrompt(part) => part.tool_call_id.get(),
            _ => None,
        };
        id.and_then(|id| call_order.iter().position(|call| call == id))
            .unwrap_or(usize::MAX)
    };
    results.sort_by_key(position);
    results
}

/// Follows which parts started and ended.
fn track(current: &mut Building, event: &ResponseStreamEvent) {
    match event {
        ResponseStreamEvent::PartStart(start) => {
            let index = start.index.to_string().parse().unwrap_or(i64::MAX);
            // Parts other than text, thinking and tool calls get no end event (`iterator_with_part_end`).
            let endable = matches!(
                start.part,
                msgflow_wire::ModelResponsePart::Text(_)
                    | msgflow_wire::ModelResponsePart::Thinking(_)
                    | msgflow_wire::ModelResponsePart::ToolCall(_)
                    | msgflow_wire::ModelResponsePart::BuiltinToolCall(_)
            );
            current.last_start = Some((index, !endable));
            current.ended = !endable;
            current.open.retain(|&open| open != index);
            if endable {
                current.open.push(index);
            }
        }
        ResponseStreamEvent::PartEnd(end) => {
            let index = end.index.to_string().parse().unwrap_or(i64::MAX);
            current.open.retain(|&open| open != index);
            if let Some((last, ended)) = &mut current.last_start {
                if *last == index {
                    *ended = true;
                    current.ended = end.next_part_kind.get().is_none();
                }
            }
        }
        _ => {}
    }
}

/// The response a finished (or cut) stream recorded.
fn finish(
    building: Building,
    options: &AssembleOptions,
    completed: bool,
    report: &mut AssemblyReport,
    message: usize,
) -> ModelMessage {
    let parts = building.manager.into_parts();
    if !completed {
        for &index in &building.open {
            let Some(part) = usize::try_from(index).ok().and_then(|index| parts.get(index)) else {
                continue;
            };
            let tool_call = match part {
                msgflow_wire::ModelResponsePart::ToolCall(call) => Some((
                    call.tool_name.clone(),
                    call.tool_call_id.get().cloned().unwrap_or_default(),
                )),
                msgflow_wire::ModelResponsePart::BuiltinToolCall(call) => Some((
                    call.tool_name.clone(),
                    call.tool_call_id.get().cloned().unwrap_or_default(),
                )),
                _ => None,
            };
            report.unfinished_parts.push(CutPart {
                message,
                part: index as usize,
                part_kind: part.tag().map(|tag| tag.into_owned()).unwrap_or_default(),
                tool_call,
            });
        }
    }
    report.parts += parts.len();
    let mut response = ModelResponse::new(parts);
    response.timestamp = options.timestamp.clone().into();
    response.model_name = options.model_name.clone().into();
    response.provider_name = options.provider_name.clone().into();
    if !completed {
        response.state = Field::Present(ModelResponseState::from_wire("interrupted"));
    }
    ModelMessage::from(response)
}
