//! OpenTelemetry GenAI messages, as pydantic-ai 2.68.0's instrumentation records them on its
//! spans, to and from pydantic-ai histories.
//!
//! The document msgflow writes and reads is one span's message attributes, parsed, under their
//! attribute names:
//!
//! ```json
//! {"gen_ai.input.messages": [...], "gen_ai.output.messages": [...], "gen_ai.system_instructions": [...]}
//! ```
//!
//! * [`to_value`]: the attributes `InstrumentationSettings(version=N).handle_messages` writes on
//!   the model request span whose response is the history's last message (the input is every
//!   message before it; a history that does not end in a response has no output key), for every
//!   instrumentation version pydantic-ai 2.68.0 has (2 to 6, [`ConvertOptions::otel_version`],
//!   default 5: `DEFAULT_INSTRUMENTATION_VERSION`). Version 1 is not a message format: pydantic-ai
//!   2.68.0 refuses it (`Instrumentation version must be one of 2, 3, 4, 5, or 6.`), and so does msgflow.
//! * [`from_value`]: the history a span recorded. It reads that document (the attribute values as
//!   arrays or as the JSON strings spans hold), a bare array of messages, the agent run span's
//!   `pydantic_ai.all_messages` (the whole history, final response and output-tool return
//!   included: preferred wherever it is present), and OTLP JSON trace exports
//!   (`{"resourceSpans": [...]}`, see [`from_documents`]).
//!
//! What a span cannot hold (timestamps, usage, model and provider names, ids of responses,
//! provider details, metadata, the instructions of every request but the last) is reported by the
//! [`Report`]; the crate README has the table.

mod dump;
mod load;
mod otlp;
pub(crate) mod tool_content;

use msgflow_wire::ModelMessage;
use serde_json::{Map, Value};

use crate::loaded::LoadedMessage;
use crate::loss::Report;
use crate::openai_chat::ShapeError;
use crate::round_trip::ReadBackError;
use crate::{ConvertError, ConvertOptions};

/// The span attribute of the messages sent to the model.
pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
/// The span attribute of the model's response.
pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
/// The span attribute of the instructions in force.
pub const SYSTEM_INSTRUCTIONS: &str = "gen_ai.system_instructions";
/// The agent run span's attribute of the whole history.
pub const ALL_MESSAGES: &str = "pydantic_ai.all_messages";
/// The instrumentation versions pydantic-ai 2.68.0 writes (`InstrumentationSettings.version`).
pub const VERSIONS: std::ops::RangeInclusive<u8> = 2..=6;
/// pydantic-ai 2.68.0's `DEFAULT_INSTRUMENTATION_VERSION`.
pub const DEFAULT_VERSION: u8 = 5;

/// The target of this module's refusals.
#[derive(Debug)]
pub(crate) struct Otel;

impl crate::unsupported::Target for Otel {
    const NAME: &'static str = "otel";
}

/// A history msgflow cannot write as pydantic-ai would (a part it does not convert yet).
pub(crate) type Unsupported = crate::unsupported::Unsupported<Otel>;

/// The span attributes of `history` (see the module documentation), at instrumentation version
/// `options.otel_version`. Every value of the history they cannot hold is reported in `report`,
/// at its path in the history (found by reading the document back with [`from_value`]).
pub fn to_value(
    history: &[ModelMessage],
    document: usize,
    options: &ConvertOptions,
    report: &mut Report,
) -> Result<Value, ConvertError> {
    let version = options.otel_version;
    if !VERSIONS.contains(&version) {
        return Err(ConvertError {
            document,
            path: "$".into(),
            position: None,
            message: format!(
                "pydantic-ai 2.68.0 writes OTel instrumentation versions 2 to 6, not {version} (version 1 recorded \
                 messages as log events, which pydantic-ai no longer writes)"
            ),
        });
    }
    let original = crate::history_value(history, document)?;
    let messages = original.as_array().map_or(&[][..], Vec::as_slice);
    let span = dump::span(messages, version).map_err(|err| ConvertError {
        document,
        path: err.path,
        position: None,
        message: err.message,
    })?;
    let mut attributes = Map::new();
    attributes.insert(INPUT_MESSAGES.into(), Value::Array(span.input));
    if let Some(output) = span.output {
        attributes.insert(OUTPUT_MESSAGES.into(), Value::Array(vec![output]));
    }
    if let Some(instructions) = span.instructions {
        attributes.insert(
            SYSTEM_INSTRUCTIONS.into(),
            serde_json::json!([{"type": "text", "content": instructions}]),
        );
    }
    let value = Value::Object(attributes);
    // `from_value` of the document, without the typed history: the span's loaded messages go to
    // the message-by-message read-back.
    let unreadable = |err: ShapeError| ConvertError {
        document,
        path: err.path,
        position: None,
        message: format!(
            "msgflow cannot read back its own otel: {} (please report this)",
            err.message
        ),
    };
    let loaded = load::span_document(&value, "$", document, &mut Report::default()).map_err(unreadable)?;
    match crate::round_trip::diff_loaded(history, original, loaded, document, report) {
        Ok(()) => {
            crate::round_trip::report_too_deep(&value, "OTel span attributes", document, report);
            Ok(value)
        }
        Err(ReadBackError::Convert(err)) => Err(err),
        Err(ReadBackError::Unloadable(message)) => Err(unreadable(unloadable(&message))),
    }
}

/// The histories of one OTel document: one for a span's attributes or a bare message array, one
/// per agent run for an OTLP JSON export. Everything a history cannot hold, and everything
/// pydantic-ai fills in on load, is reported in `report` at its path in `value`.
pub fn from_value(value: &Value, document: usize, report: &mut Report) -> Result<Vec<Vec<ModelMessage>>, ShapeError> {
    from_documents(&[(value, document)], report).map_err(|(_, err)| err)
}

/// The histories of several OTel documents (the lines of a JSON Lines input). OTLP exports are
/// read together, as an exporter may split one trace over several export requests: every agent
/// run span (one with `pydantic_ai.all_messages`, or named `agent run` / `invoke_agent ...`)
/// gives one history, from `pydantic_ai.all_messages` when it has it, else from the last model
/// request span under it (its input and output messages); model request spans under no agent
/// run give one history per trace, from the last of them. Other documents give one history each.
/// An error comes with the index of the document it is in.
pub fn from_documents(
    values: &[(&Value, usize)],
    report: &mut Report,
) -> Result<Vec<Vec<ModelMessage>>, (usize, ShapeError)> {
    let mut histories = Vec::new();
    let mut spans = otlp::Spans::default();
    for &(value, document) in values {
        if otlp::is_export(value) {
            spans.add(value, document).map_err(|err| (document, err))?;
        } else {
            let history = load::span_document(value, "$", document, report).map_err(|err| (document, err))?;
            histories.push(parse(history, document)?);
        }
    }
    let exports = spans.document_count();
    let runs = spans.runs(report);
    if runs.is_empty() && exports > 0 && histories.is_empty() {
        return Err((
            0,
            ShapeError {
                path: "$.resourceSpans".into(),
                message: format!(
                    "the OTLP export holds no span with messages (`{ALL_MESSAGES}`, `{INPUT_MESSAGES}` or \
                     `{OUTPUT_MESSAGES}`): was it recorded with `include_content=False`?"
                ),
            },
        ));
    }
    for (attributes, document) in runs {
        let history = load::span_attributes(&attributes, document, report).map_err(|err| (document, err))?;
        histories.push(parse(history, document)?);
    }
    Ok(histories)
}

fn parse(history: Vec<LoadedMessage>, document: usize) -> Result<Vec<ModelMessage>, (usize, ShapeError)> {
    crate::loaded::history_of(history).map_err(|message| (document, unloadable(&message)))
}

/// The error for OTel messages whose loaded history pydantic-ai would refuse.
fn unloadable(message: &str) -> ShapeError {
    ShapeError {
        path: "$".into(),
        message: format!("the OTel messages make no pydantic-ai history: {message}"),
    }
}
