//! The skeleton both UI formats ([`vercel_ui`](crate::vercel_ui), [`ag_ui`](crate::ag_ui)) share:
//! pydantic-ai's `UIAdapter.dump_messages` / `load_messages` on a history's JSON, their lossless
//! form (a record of the exact messages, read back from the leading messages the front end left
//! as they were), and the loss report of the "to" direction, found by reading the output back.
//!
//! Each format gives its own mapping ([`UiFormat`]); this module gives what is the same for both.

use msgflow_wire::ModelMessage;
use serde_json::Value;

use crate::loaded::LoadedMessage;
use crate::loss::{LossKind, Report};
use crate::openai_chat::ShapeError;
use crate::round_trip::ReadBackError;
use crate::unsupported::{Target, Unsupported};
use crate::{ConvertError, ConvertOptions};

/// One UI format's mapping, on JSON.
pub(crate) trait UiFormat: Target + Sized {
    /// What the messages are called in a message (`AG-UI messages`).
    const MESSAGES: &'static str;
    /// The error for input that is neither an array of messages nor a body holding one.
    const EXPECTED: &'static str;
    /// What the other fields of a body `{"messages": [...], ...}` are called (`request field`).
    const BODY_FIELD: &'static str;

    /// pydantic-ai's `dump_messages` of the history's JSON messages.
    fn dump(history: &[Value], options: &ConvertOptions) -> Result<Vec<Value>, Unsupported<Self>>;

    /// The lossless form of the history's JSON messages.
    fn lossless_dump(history: &[Value], options: &ConvertOptions) -> Result<Vec<Value>, Unsupported<Self>>;

    /// The history the records of the leading messages hold, and how many messages it covers.
    fn recorded_prefix(messages: &[Value]) -> (Vec<Value>, usize);

    /// The history messages the record on `message` holds, and their array's path within
    /// `message` (`.metadata.msgflow.messages`), for an error to point at.
    fn record_at(message: &Value) -> Option<(String, &[Value])>;

    /// `load_messages` of `messages` (index `first` on of the array at `path`), going on from the
    /// `recorded` history: the history's JSON messages. The loader may move the values the history
    /// keeps out of `messages` rather than copy them, unless `keep_input` (the read-back of a "to"
    /// conversion, whose messages are its output).
    fn load(
        messages: &mut [Value],
        path: &str,
        first: usize,
        document: usize,
        report: &mut Report,
        recorded: Vec<Value>,
        keep_input: bool,
    ) -> Result<Vec<LoadedMessage>, ShapeError>;
}

/// The messages of `history` in the format `F`: pydantic-ai's `dump_messages`, or the lossless
/// form. Every value of the history they cannot hold is reported in `report`, at its path in the
/// history (found by reading the messages back with [`from_value`]).
///
/// pydantic-ai writes some histories its own `load_messages` then refuses (an AG-UI tool return
/// whose call is not in the history): the messages are still written, as pydantic-ai writes
/// them, and the whole history is reported dropped, so `--strict` refuses them. The same holds for
/// both formats: a read-back failure is a fact about the output, not a reason to write none.
pub(crate) fn to_value<F: UiFormat>(
    history: &[ModelMessage],
    document: usize,
    options: &ConvertOptions,
    report: &mut Report,
) -> Result<Value, ConvertError> {
    let original = crate::history_value(history, document)?;
    let messages = original.as_array().map_or(&[][..], Vec::as_slice);
    let written = if options.lossless {
        F::lossless_dump(messages, options)
    } else {
        F::dump(messages, options)
    }
    .map_err(|err| ConvertError {
        document,
        path: err.path,
        position: None,
        message: err.message,
    })?;
    let mut value = Value::Array(written);
    // The read-back's failure is reported, the diff's is returned. The messages are the output:
    // the loader leaves them as they are.
    let read = load::<F>(&mut value, document, options, &mut Report::default(), true);
    let read_back = match read {
        Ok((loaded, path, _)) => match crate::round_trip::diff_loaded(history, original, loaded, document, report) {
            Ok(()) => Ok(()),
            Err(ReadBackError::Convert(err)) => return Err(err),
            Err(ReadBackError::Unloadable(message)) => Err(unloadable::<F>(path, &message)),
        },
        Err(err) => Err(err),
    };
    match read_back {
        Ok(()) => {}
        Err(err) => report.push(
            LossKind::Dropped,
            document,
            err.path,
            format!(
                "the whole history: these {} do not load back ({})",
                F::MESSAGES,
                err.message
            ),
        ),
    }
    crate::round_trip::report_too_deep(&value, F::MESSAGES, document, report);
    Ok(value)
}

/// The history of messages in the format `F`: `value` is an array of messages or a body
/// `{"messages": [...], ...}`. Everything the history cannot hold, and everything pydantic-ai
/// fills in on load, is reported in `report` at its path in `value`.
pub(crate) fn from_value<F: UiFormat>(
    mut value: Value,
    document: usize,
    options: &ConvertOptions,
    report: &mut Report,
) -> Result<Vec<ModelMessage>, ShapeError> {
    let (history, path, recorded) = load::<F>(&mut value, document, options, report, false)?;
    // What the loader left of the input is freed before the history is read, unless records were
    // read from it: a history they make that does not load is their error, at their place.
    let with_records = (recorded > 0).then_some(value);
    crate::loaded::history_of(history).map_err(|message| {
        with_records
            .and_then(|mut value| {
                let (messages, _) = crate::messages_builder::ui_messages(
                    &mut value,
                    document,
                    &mut Report::default(),
                    F::EXPECTED,
                    F::BODY_FIELD,
                )
                .ok()?;
                unreadable_record::<F>(&messages[..recorded.min(messages.len())], &path)
            })
            .unwrap_or_else(|| unloadable::<F>(path, &message))
    })
}

/// The error for the first message of the records on `messages` (the leading UI messages at
/// `path`) that pydantic-ai would not load, at its path in the input: where the history a record
/// restores does not load, the record is what is wrong, not the messages built around it.
fn unreadable_record<F: UiFormat>(messages: &[Value], path: &str) -> Option<ShapeError> {
    messages.iter().enumerate().find_map(|(index, message)| {
        let (record_path, held) = F::record_at(message)?;
        held.iter().enumerate().find_map(|(position, recorded)| {
            let message = crate::loaded::history_of(vec![LoadedMessage::Json(recorded.clone())]).err()?;
            Some(ShapeError {
                path: format!("{path}[{index}]{record_path}[{position}]"),
                message: format!("msgflow's record holds no pydantic-ai message: {message}"),
            })
        })
    })
}

/// The history's JSON messages `F`'s loader makes of `value` (see [`from_value`]), the path of
/// the messages in `value`, and how many of them (the leading ones) the history was restored from
/// their records. With `keep_input`, `value` is left as it is.
fn load<F: UiFormat>(
    value: &mut Value,
    document: usize,
    options: &ConvertOptions,
    report: &mut Report,
    keep_input: bool,
) -> Result<(Vec<LoadedMessage>, String, usize), ShapeError> {
    let (messages, path) = crate::messages_builder::ui_messages(value, document, report, F::EXPECTED, F::BODY_FIELD)?;
    let (recorded, rest) = if options.lossless {
        F::recorded_prefix(messages)
    } else {
        (Vec::new(), 0)
    };
    // A record of something that is no message object would go unread (the history builder takes
    // message objects): it is refused where it is, as a message pydantic-ai would not load is.
    if recorded.iter().any(|message| !message.is_object()) {
        return Err(unreadable_record::<F>(&messages[..rest], &path)
            .unwrap_or_else(|| unloadable::<F>(path, "a record holds a value that is no message")));
    }
    let history = F::load(
        &mut messages[rest..],
        &path,
        rest,
        document,
        report,
        recorded,
        keep_input,
    )?;
    Ok((history, path, rest))
}

/// The error for loaded messages of `F` (at `path`) that make no history.
fn unloadable<F: UiFormat>(path: String, message: &str) -> ShapeError {
    ShapeError {
        path,
        message: format!("the {} make no pydantic-ai history: {message}", F::MESSAGES),
    }
}
