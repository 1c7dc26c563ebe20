//! Event logs: pydantic-ai's stream events, one JSON object per line, as applications log or
//! forward them (`TypeAdapter(AgentStreamEvent).dump_json(event)`).

use std::fmt;

use msgflow_wire::{ModelRequestPart, ToolCallPart, UnknownObject};

use crate::ResponseStreamEvent;

/// One line of an event log.
#[derive(Clone, Debug, PartialEq)]
pub enum LogEvent {
    /// A model response stream event: `part_start`, `part_delta`, `part_end`, `final_result`.
    Response(ResponseStreamEvent),
    /// `function_tool_call` or `output_tool_call`: the agent is about to run (or validate) a call.
    ToolCall {
        /// The `event_kind`.
        kind: String,
        /// The call.
        part: ToolCallPart,
    },
    /// `function_tool_result` or `output_tool_result`: a call's result, as it goes into the next
    /// request.
    ToolResult {
        /// The `event_kind`.
        kind: String,
        /// The result part (`tool-return`, or `retry-prompt` for a failed call).
        part: ModelRequestPart,
    },
    /// The run's result (`AgentRunResultEvent`, which has a `result` and no `event_kind`): the
    /// run finished.
    RunResult,
    /// Any other agent event (`enqueued_messages`, `custom`, realtime events, ...), kept as written;
    /// it changes no message.
    Other(UnknownObject),
}

impl LogEvent {
    /// The event's `event_kind` (`result` for the run's result).
    pub fn kind(&self) -> String {
        match self {
            LogEvent::Response(event) => event.tag().map(|tag| tag.into_owned()).unwrap_or_default(),
            LogEvent::ToolCall { kind, .. } | LogEvent::ToolResult { kind, .. } => kind.clone(),
            LogEvent::RunResult => "result".to_owned(),
            LogEvent::Other(object) => object.tag("event_kind").unwrap_or_default(),
        }
    }
}

/// A line of an event log that is not a stream event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct LogError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column within the line (in bytes).
    pub column: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

/// A last line cut off before its end: the log was still being written when it was copied, or
/// the writer was killed. Not an error: the stream was interrupted there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TruncatedLine {
    /// 1-based line number.
    pub line: usize,
    /// How many bytes of it there are.
    pub bytes: usize,
}

impl fmt::Display for TruncatedLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} is cut off after {} bytes", self.line, self.bytes)
    }
}

/// An event log, read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventLog {
    /// The events with the 1-based line each came from, in order.
    pub events: Vec<(usize, LogEvent)>,
    /// The last line, when it was cut off.
    pub truncated: Option<TruncatedLine>,
}

/// Reads an event log: one JSON object per line, blank lines ignored.
///
/// A last line without its newline that ends in the middle of its JSON is reported in
/// [`EventLog::truncated`]; any other line that is not a stream event is an error, located by
/// line and column.
///
/// ```
/// let log = msgflow_stream::read_log(concat!(
///     r#"{"index":0,"part":{"content":"Hel","id":null,"provider_name":null,"provider_details":null,"citations":null,"part_kind":"text"},"previous_part_kind":null,"canonical_system":null,"event_kind":"part_start"}"#, "\n",
///     r#"{"index":0,"delta":{"content_delta":"lo","provider_na"#,
/// ))?;
/// assert_eq!(log.events.len(), 1);
/// assert_eq!(log.truncated.map(|cut| cut.line), Some(2));
///
/// let err = msgflow_stream::read_log("{\"event_kind\":\"part_start\",\"index\":0}\n").unwrap_err();
/// assert_eq!(err.line, 1);
/// # Ok::<(), msgflow_stream::LogError>(())
/// ```
pub fn read_log(text: &str) -> Result<EventLog, LogError> {
    let mut log = EventLog::default();
    let mut rest = text;
    let mut number = 0;
    while !rest.is_empty() {
        number += 1;
        let (line, has_newline) = match rest.find('\n') {
            Some(end) => {
                let line = &rest[..end];
                rest = &rest[end + 1..];
                (line, true)
            }
            None => {
                let line = rest;
                rest = "";
                (line, false)
            }
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, number) {
            Ok(event) => log.events.push((number, event)),
            Err((err, eof)) if eof && !has_newline => {
                log.truncated = Some(TruncatedLine {
                    line: number,
                    bytes: line.len(),
                });
                drop(err);
            }
            Err((err, _)) => return Err(err),
        }
    }
    Ok(log)
}

/// Parses one line; the flag says whether the JSON ended early.
fn parse_line(line: &str, number: usize) -> Result<LogEvent, (LogError, bool)> {
    let located = |err: serde_json::Error| {
        let eof = err.classify() == serde_json::error::Category::Eof;
        let message = err.to_string();
        // serde_json appends " at line L column C"; the position is reported separately.
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_owned(),
            None => message,
        };
        (
            LogError {
                line: number,
                column: err.column().max(1),
                message: describe(&message),
            },
            eof,
        )
    };
    // Every event is an object; its `event_kind` says which.
    let object = UnknownObject::from_json_text(line).map_err(located)?;
    let Some(kind) = object.tag("event_kind") else {
        if object.get("result").is_some() {
            return Ok(LogEvent::RunResult);
        }
        return Err((
            LogError {
                line: number,
                column: 1,
                message: "not a pydantic-ai stream event: expected an object with `event_kind` \
                          (such as \"part_start\", \"part_delta\", \"function_tool_result\")"
                    .to_owned(),
            },
            false,
        ));
    };
    let field = |name: &'static str| {
        object.get(name).ok_or_else(|| {
            (
                LogError {
                    line: number,
                    column: 1,
                    message: format!("`{kind}` event without `{name}`"),
                },
                false,
            )
        })
    };
    let in_field = |name: &'static str, err: serde_json::Error| {
        (
            LogError {
                line: number,
                column: 1,
                message: format!("`{kind}` event: invalid `{name}`: {}", describe(&strip_position(&err))),
            },
            false,
        )
    };
    match kind.as_str() {
        "part_start" | "part_delta" | "part_end" | "final_result" => serde_json::from_str::<ResponseStreamEvent>(line)
            .map(LogEvent::Response)
            .map_err(located),
        "function_tool_call" | "output_tool_call" => {
            let part =
                serde_json::from_str::<ToolCallPart>(field("part")?.get()).map_err(|err| in_field("part", err))?;
            Ok(LogEvent::ToolCall { kind, part })
        }
        "function_tool_result" | "output_tool_result" => {
            let part =
                serde_json::from_str::<ModelRequestPart>(field("part")?.get()).map_err(|err| in_field("part", err))?;
            Ok(LogEvent::ToolResult { kind, part })
        }
        _ => Ok(LogEvent::Other(object)),
    }
}

fn strip_position(err: &serde_json::Error) -> String {
    let message = err.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

/// serde's wording, with what a log line must be.
fn describe(message: &str) -> String {
    if message.starts_with("EOF") {
        format!("{message}: the line ends inside its JSON (a stream event is one JSON object per line)")
    } else {
        message.to_owned()
    }
}
