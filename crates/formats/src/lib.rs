//! Conversions between pydantic-ai 2.68.0 histories and the formats around them, never silent
//! about what a format cannot hold.
//!
//! * [`openai_chat`]: OpenAI Chat Completions messages. To it: the request pydantic-ai's
//!   `OpenAIChatModel` sends (`msgflow_providers::openai_chat::export`). From it: the inverse of
//!   that mapping, reading responses as `OpenAIChatModel._process_response` does.
//! * [`anthropic`]: Anthropic Messages requests. To it: the request pydantic-ai's `AnthropicModel`
//!   sends (`msgflow_providers::anthropic::export`). From it: the inverse of that mapping, reading
//!   assistant turns as `AnthropicModel._process_response` does.
//! * [`vercel_ui`]: Vercel AI SDK `UIMessage`s (versions 5 and 6), equal to pydantic-ai's
//!   `VercelAIAdapter.dump_messages` / `load_messages` by default, and a lossless form
//!   ([`ConvertOptions::lossless`]) that gives every history it converts back unchanged.
//! * [`ag_ui`]: AG-UI protocol messages, equal to pydantic-ai's `AGUIAdapter.dump_messages` /
//!   `load_messages` by default, with the same lossless form.
//! * [`otel`]: the OpenTelemetry GenAI messages pydantic-ai's instrumentation records on a model
//!   request span, equal to `InstrumentationSettings(version=N).messages_to_otel_messages` for
//!   every version (2 to 6, [`ConvertOptions::otel_version`]); from them, the history a span or an
//!   OTLP JSON trace export recorded (one history per agent run).
//! * [`convert`]: any supported pair, on JSON or JSON Lines text, with a [`Report`] of every value
//!   dropped, invented or changed (at its JSON path in the input).
//!
//! ```
//! use msgflow_formats::{convert, Format, Output};
//! let chat = r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]"#;
//! let converted = convert(chat, Format::OpenAiChat, Format::PydanticAi)?;
//! let Output::Histories(histories) = &converted.output else { unreachable!() };
//! assert_eq!(histories[0].len(), 2);
//! // Chat messages carry no timestamps: pydantic-ai fills in the load time, and the report says so.
//! assert!(converted.report.losses.iter().any(|loss| loss.what.contains("timestamp")));
//! # Ok::<(), msgflow_formats::ConvertError>(())
//! ```

pub mod ag_ui;
pub mod anthropic;
mod document;
mod loaded;
mod loss;
mod messages_builder;
mod object;
pub mod openai_chat;
pub mod otel;
mod round_trip;
mod typed_parts;
mod ui_format;
mod ui_payloads;
mod unsupported;
pub mod vercel_ui;

use std::fmt;
use std::str::FromStr;

use msgflow_wire::ModelMessage;
use serde_json::Value;

pub use loss::{Loss, LossGroup, LossKind, Report};
pub(crate) use round_trip::history_value;

/// The formats msgflow converts between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// A pydantic-ai history (`ModelMessagesTypeAdapter` JSON).
    PydanticAi,
    /// OpenAI Chat Completions messages: an array of messages, a request body `{"messages": [...]}`
    /// (fine-tuning lines), or a Batch API line `{"body": {"messages": [...]}}`.
    OpenAiChat,
    /// An Anthropic Messages request `{"system": ..., "messages": [...]}`, a Message Batches line
    /// `{"params": {...}}`, or a bare array of messages.
    Anthropic,
    /// Vercel AI SDK `UIMessage`s (versions 5 and 6): an array, or a chat request body
    /// `{"messages": [...]}`.
    VercelUi,
    /// AG-UI protocol messages: an array, or a `RunAgentInput` body `{"messages": [...]}`.
    AgUi,
    /// OpenTelemetry GenAI messages: a span's message attributes
    /// `{"gen_ai.input.messages": [...], "gen_ai.output.messages": [...], "gen_ai.system_instructions": [...]}`,
    /// a bare message array, or an OTLP JSON trace export (see [`otel`]).
    Otel,
}

impl Format {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Format; 6] = [
        Format::PydanticAi,
        Format::OpenAiChat,
        Format::Anthropic,
        Format::VercelUi,
        Format::AgUi,
        Format::Otel,
    ];

    /// The name on the command line (`pydantic-ai`, `openai-chat`).
    pub fn name(self) -> &'static str {
        match self {
            Format::PydanticAi => "pydantic-ai",
            Format::OpenAiChat => "openai-chat",
            Format::Anthropic => "anthropic",
            Format::VercelUi => "vercel-ui",
            Format::AgUi => "ag-ui",
            Format::Otel => "otel",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| {
                let known: Vec<_> = Format::ALL.iter().map(|format| format.name()).collect();
                format!("unknown format `{name}`: expected one of {}", known.join(", "))
            })
    }
}

/// Input that is not the format it was named as, or a history the target cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct ConvertError {
    /// The document of the input (0 unless the input is JSON Lines).
    pub document: usize,
    /// The JSON path of the value, in that document.
    pub path: String,
    /// Its 1-based line and column in the whole input, when known.
    pub position: Option<(usize, usize)>,
    /// What was expected, or why the conversion is impossible.
    pub message: String,
}

impl ConvertError {
    fn render(&self) -> String {
        match self.position {
            Some((line, column)) => format!("at {} (line {line}, column {column}): {}", self.path, self.message),
            None => format!("at {}: {}", self.path, self.message),
        }
    }
}

/// What a conversion produced: histories, or documents of a foreign format.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// One history per input document (per agent run of an OTLP trace export).
    Histories(Vec<Vec<ModelMessage>>),
    /// One foreign document per input document.
    Documents(Vec<Value>),
}

impl Output {
    /// How many documents (conversations) the output holds.
    pub fn len(&self) -> usize {
        match self {
            Output::Histories(histories) => histories.len(),
            Output::Documents(documents) => documents.len(),
        }
    }

    /// Whether the output holds no document.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The result of [`convert`].
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The converted documents, in input order.
    pub output: Output,
    /// Everything dropped, invented or changed on the way.
    pub report: Report,
}

/// How [`convert_with`] converts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Keep what the UI formats' pydantic-ai adapters drop, so that history -> UI -> history is
    /// the identity (see [`vercel_ui`]). Off: exactly what pydantic-ai's adapters write and read.
    pub lossless: bool,
    /// The Vercel AI SDK version written (5 or 6; `dump_messages(sdk_version=...)`): 6 writes tool
    /// calls awaiting a result as `approval-requested`.
    pub vercel_sdk_version: u8,
    /// The instrumentation version of the OTel messages written (`InstrumentationSettings(version=...)`,
    /// 2 to 6; default [`otel::DEFAULT_VERSION`], pydantic-ai's default).
    pub otel_version: u8,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            lossless: false,
            vercel_sdk_version: 5,
            otel_version: otel::DEFAULT_VERSION,
        }
    }
}

/// Converts `input` (one JSON document, or JSON Lines: one document per line) from one format to
/// another, through a pydantic-ai history, with the default [`ConvertOptions`].
///
/// `pydantic-ai` to `pydantic-ai` reads and rewrites the histories; a foreign format to itself
/// goes through a history and reports the losses of both legs.
pub fn convert(input: &str, from: Format, to: Format) -> Result<Converted, ConvertError> {
    convert_with(input, from, to, &ConvertOptions::default())
}

/// [`convert`] with options.
pub fn convert_with(
    input: &str,
    from: Format,
    to: Format,
    options: &ConvertOptions,
) -> Result<Converted, ConvertError> {
    // An input that is one JSON value is parsed once, not checked then parsed. A history is read
    // from a copy of the text its opaque values are then slices of (one copy, not one each).
    let (mut whole, mut whole_history) = match from {
        Format::PydanticAi => (None, msgflow_wire::Input::from(input.to_owned()).parse().ok()),
        // A long array of UI messages is read in pieces on the pool (each message as the root of
        // its text, so the whole text's depth limit is checked after).
        Format::VercelUi | Format::AgUi => match msgflow_wire::values_in_pieces(input) {
            Some(messages)
                if messages
                    .iter()
                    .all(|message| round_trip::within_parse_depth(message, 1)) =>
            {
                (Some(Value::Array(messages)), None)
            }
            _ => (serde_json::from_str::<Value>(input).ok(), None),
        },
        _ => (serde_json::from_str::<Value>(input).ok(), None),
    };
    let documents = match (&whole, &whole_history) {
        (Some(_), _) | (_, Some(_)) => vec![document::Document {
            text: input,
            lines_before: 0,
        }],
        (None, None) => document::split(input)?,
    };
    let mut value_of = |doc: &document::Document<'_>, index: usize| match whole.take() {
        Some(value) => Ok(value),
        None => document::value(doc, index),
    };
    let mut report = Report::default();
    let mut histories = Vec::with_capacity(documents.len());
    if from == Format::Otel {
        // OTLP exports are read together (one trace may be split over several lines), and one
        // document may hold several agent runs.
        let values = documents
            .iter()
            .enumerate()
            .map(|(index, doc)| value_of(doc, index))
            .collect::<Result<Vec<_>, _>>()?;
        let indexed: Vec<(&Value, usize)> = values.iter().zip(0..).collect();
        histories = otel::from_documents(&indexed, &mut report)
            .map_err(|(index, err)| documents[index].error_at(index, &err.path, err.message))?;
    }
    for (index, doc) in documents.iter().enumerate() {
        let history = match from {
            Format::Otel => break,
            Format::PydanticAi => match whole_history.take() {
                Some(history) => history,
                None => msgflow_wire::from_str(doc.text).map_err(|err| ConvertError {
                    document: index,
                    path: err.path().to_owned(),
                    position: Some((err.line() + doc.lines_before, err.column())),
                    message: format!("not a pydantic-ai history: {}", err.message()),
                })?,
            },
            Format::OpenAiChat => {
                let value = value_of(doc, index)?;
                openai_chat::from_value(&value, index, &mut report)
                    .map_err(|err| doc.error_at(index, &err.path, err.message))?
            }
            Format::Anthropic => {
                let value = value_of(doc, index)?;
                anthropic::from_value(&value, index, &mut report)
                    .map_err(|err| doc.error_at(index, &err.path, err.message))?
            }
            Format::VercelUi => {
                let value = value_of(doc, index)?;
                ui_format::from_value::<vercel_ui::VercelUi>(value, index, options, &mut report)
                    .map_err(|err| doc.error_at(index, &err.path, err.message))?
            }
            Format::AgUi => {
                let value = value_of(doc, index)?;
                ui_format::from_value::<ag_ui::AgUi>(value, index, options, &mut report)
                    .map_err(|err| doc.error_at(index, &err.path, err.message))?
            }
        };
        histories.push(history);
    }
    if to == Format::PydanticAi {
        return Ok(Converted {
            output: Output::Histories(histories),
            report,
        });
    }
    // A trip between two foreign formats reports the losses of each leg; the second leg's paths
    // are in the history between them.
    let mut documents = Vec::with_capacity(histories.len());
    for (index, history) in histories.iter().enumerate() {
        documents.push(match to {
            Format::OpenAiChat => openai_chat::to_value(history, index, &mut report)?,
            Format::Anthropic => anthropic::to_value(history, index, &mut report)?,
            Format::VercelUi => vercel_ui::to_value(history, index, options, &mut report)?,
            Format::AgUi => ag_ui::to_value(history, index, options, &mut report)?,
            Format::Otel => otel::to_value(history, index, options, &mut report)?,
            Format::PydanticAi => unreachable!("returned above"),
        });
    }
    let output = Output::Documents(documents);
    Ok(Converted { output, report })
}

/// The bytes of a `BinaryContent`'s `data` in a history's JSON, read as pydantic-ai reads them
/// (base64 in either alphabet, padded or not; it writes URL-safe and padded), or `None` when it
/// is no base64 string.
pub(crate) fn binary_bytes(data: &Value) -> Option<Vec<u8>> {
    msgflow_wire::Base64Data::decode_str(data.as_str()?).ok()
}

/// An export's refusal, located at the part it refuses in the history.
fn export_error(err: &msgflow_providers::ExportError, document: usize) -> ConvertError {
    ConvertError {
        document,
        path: err.path().unwrap_or("$").to_owned(),
        position: None,
        message: err.reason(),
    }
}

/// The "to" half of a provider format: the request pydantic-ai's model sends for `history` (the
/// provider export's), read back with the format's `from` for the loss report.
pub(crate) fn exported_request<R: serde::Serialize>(
    exported: Result<R, msgflow_providers::ExportError>,
    history: &[ModelMessage],
    document: usize,
    report: &mut Report,
    from: fn(&Value, usize, &mut Report) -> Result<Vec<ModelMessage>, openai_chat::ShapeError>,
    format_name: &str,
) -> Result<Value, ConvertError> {
    let request = exported.map_err(|err| export_error(&err, document))?;
    let value = serde_json::to_value(&request).expect("the request types always serialise");
    read_back_and_diff(history, &value, document, report, from, format_name)?;
    round_trip::report_too_deep(&value, format_name, document, report);
    Ok(value)
}

/// The "to" half of a format: reads `sent` (what `history` became) back with the format's `from`
/// and reports every value of the history that did not come back, at its path in the history.
fn read_back_and_diff(
    history: &[ModelMessage],
    sent: &Value,
    document: usize,
    report: &mut Report,
    from: fn(&Value, usize, &mut Report) -> Result<Vec<ModelMessage>, openai_chat::ShapeError>,
    format_name: &str,
) -> Result<(), ConvertError> {
    let back = from(sent, document, &mut Report::default()).map_err(|err| ConvertError {
        document,
        path: err.path,
        position: None,
        message: format!(
            "msgflow cannot read back its own {format_name}: {} (please report this)",
            err.message
        ),
    })?;
    round_trip::diff_back(history, &history_value(history, document)?, &back, document, report)
}
