//! AG-UI protocol messages to and from pydantic-ai histories.
//!
//! * [`to_value`]: by default what pydantic-ai 2.68.0's `AGUIAdapter.dump_messages(messages)`
//!   writes (`pydantic_ai.ui.ag_ui`) with ag-ui-protocol 1.0, the release its `ag-ui` extra
//!   resolves to (`oracle/requirements-ui-formats.txt`): typed media parts, `reasoning` messages,
//!   pydantic-ai's claims in `encryptedValue`. pydantic-ai gives each message a random UUID4 id;
//!   msgflow gives a UUID5 of the message's place, so a history always converts to the same bytes.
//! * [`from_value`]: by default the history `AGUIAdapter.load_messages` reads from the same
//!   messages (a message array, or a `RunAgentInput` body `{"messages": [...], ...}`).
//! * Lossless ([`ConvertOptions::lossless`](crate::ConvertOptions)): the same messages, and in the
//!   `metadata` of the last AG-UI message written for each history message a `msgflow` record of
//!   the exact pydantic-ai messages it stands for. Reading back, the records of every message the
//!   front end left as it was give those messages back unchanged; messages it added or changed are
//!   read as pydantic-ai reads them. pydantic-ai reads no message `metadata`, so it loads a lossless
//!   file as it loads its own.

mod content;
mod dump;
mod load;
mod validate;

use msgflow_wire::ModelMessage;
use serde_json::{json, Map, Value};

use crate::loss::Report;
use crate::openai_chat::ShapeError;
use crate::{ConvertError, ConvertOptions};

/// The prefix of a native tool's call id (`BUILTIN_TOOL_CALL_ID_PREFIX`):
/// `pyd_ai_builtin|<provider>|<id>`.
const BUILTIN_TOOL_CALL_ID_PREFIX: &str = "pyd_ai_builtin";
/// The key pydantic-ai nests its claims under in an `encryptedValue` (`_ENCRYPTED_VALUE_NAMESPACE`).
const ENCRYPTED_VALUE_NAMESPACE: &str = "pydantic_ai";
/// The key of msgflow's lossless record in an AG-UI message's `metadata`.
const RECORD_KEY: &str = "msgflow";
/// The activity that carries the record of a history nothing of which shows.
const RECORD_ACTIVITY_TYPE: &str = "msgflow_record";

/// The target of this module's refusals.
#[derive(Debug)]
pub(crate) struct AgUi;

impl crate::unsupported::Target for AgUi {
    const NAME: &'static str = "ag-ui";
}

/// A history msgflow cannot write as pydantic-ai would (a part it does not convert yet).
pub(crate) type Unsupported = crate::unsupported::Unsupported<AgUi>;

impl crate::ui_format::UiFormat for AgUi {
    const MESSAGES: &'static str = "AG-UI messages";
    const EXPECTED: &'static str =
        "expected AG-UI messages: an array of messages or a RunAgentInput {\"messages\": [...]}";
    const BODY_FIELD: &'static str = "run input field";

    fn dump(history: &[Value], _options: &ConvertOptions) -> Result<Vec<Value>, Unsupported> {
        let groups = dump::dump(history)?;
        Ok(groups.into_iter().flatten().collect())
    }

    fn lossless_dump(history: &[Value], _options: &ConvertOptions) -> Result<Vec<Value>, Unsupported> {
        lossless_dump(history)
    }

    fn recorded_prefix(messages: &[Value]) -> (Vec<Value>, usize) {
        recorded_prefix(messages)
    }

    fn record_at(message: &Value) -> Option<(String, &[Value])> {
        let held = record_of(message)?;
        Some((format!(".metadata.{RECORD_KEY}.messages"), held.as_slice()))
    }

    fn load(
        messages: &mut [Value],
        path: &str,
        first: usize,
        document: usize,
        report: &mut Report,
        recorded: Vec<Value>,
        _keep_input: bool,
    ) -> Result<Vec<crate::loaded::LoadedMessage>, ShapeError> {
        // The AG-UI loader copies what the history keeps: it leaves its input as it is.
        load::load(messages, path, first, document, report, recorded)
    }
}

/// The AG-UI messages of `history`: pydantic-ai's `dump_messages`, or the lossless form. Every
/// value of the history they cannot hold is reported in `report`, at its path in the history
/// (found by reading the messages back with [`from_value`]). pydantic-ai writes a tool return
/// whose call is not in the history, and then cannot read it back (`load_messages` raises): such
/// output is written and reported as the whole history dropped, not refused.
pub fn to_value(
    history: &[ModelMessage],
    document: usize,
    options: &ConvertOptions,
    report: &mut Report,
) -> Result<Value, ConvertError> {
    crate::ui_format::to_value::<AgUi>(history, document, options, report)
}

/// The history of AG-UI messages: `value` is an array of messages or a `RunAgentInput` body
/// `{"messages": [...], ...}`. Everything the history cannot hold, and everything pydantic-ai
/// fills in on load, is reported in `report` at its path in `value`.
///
/// The loader works on its own copy of `value`; [`convert`](crate::convert) hands it its own parse of
/// the input instead.
pub fn from_value(
    value: &Value,
    document: usize,
    options: &ConvertOptions,
    report: &mut Report,
) -> Result<Vec<ModelMessage>, ShapeError> {
    crate::ui_format::from_value::<AgUi>(value.clone(), document, options, report)
}

/// The lossless form: pydantic-ai's dump, the record of each history message on the last AG-UI
/// message written for it (a history message written as nothing rides with the next one, or the
/// last one).
fn lossless_dump(history: &[Value]) -> Result<Vec<Value>, Unsupported> {
    let groups = dump::dump(history)?;
    let mut written: Vec<Value> = Vec::new();
    let mut unrecorded: Vec<Value> = Vec::new();
    for (message, group) in history.iter().zip(groups) {
        unrecorded.push(message.clone());
        if group.is_empty() {
            continue;
        }
        written.extend(group);
        let last = written.last_mut().expect("a group was just written");
        attach_record(last, std::mem::take(&mut unrecorded));
    }
    if !unrecorded.is_empty() {
        match written.last_mut() {
            Some(last) => {
                let held = last["metadata"][RECORD_KEY]["messages"]
                    .as_array_mut()
                    .expect("every written group carries a record");
                held.extend(unrecorded);
            }
            None => written.push(json!({
                "id": "msgflow-record",
                "role": "activity",
                "activityType": RECORD_ACTIVITY_TYPE,
                "content": {},
                "metadata": {RECORD_KEY: {"messages": unrecorded}},
            })),
        }
    }
    Ok(written)
}

fn attach_record(message: &mut Value, messages: Vec<Value>) {
    let Value::Object(object) = message else { return };
    let metadata = object.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(metadata) = metadata {
        metadata.insert(RECORD_KEY.into(), json!({ "messages": messages }));
    }
}

/// The record a message carries, if any.
fn record_of(message: &Value) -> Option<&Vec<Value>> {
    message.get("metadata")?.get(RECORD_KEY)?.get("messages")?.as_array()
}

/// Whether a message's `metadata` holds msgflow's record and nothing else.
fn is_only_record(metadata: &Value) -> bool {
    metadata
        .as_object()
        .is_some_and(|object| object.len() == 1 && object.contains_key(RECORD_KEY))
}

/// A message without msgflow's record, for comparing what the front end shows.
fn shown(message: &Value) -> Value {
    let mut message = message.clone();
    if let Some(object) = message.as_object_mut() {
        if object.get("metadata").is_some_and(is_only_record) {
            object.remove("metadata");
        } else if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
            metadata.remove(RECORD_KEY);
        }
    }
    message
}

/// The history the records of the leading messages hold, and how many messages it covers: every
/// record up to the first message the front end added or changed (it differs from what msgflow
/// writes for the recorded history).
fn recorded_prefix(messages: &[Value]) -> (Vec<Value>, usize) {
    let mut recorded: Vec<Value> = Vec::new();
    // (index of the message carrying a record, history messages recorded up to it)
    let mut owners: Vec<(usize, usize)> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if let Some(held) = record_of(message) {
            recorded.extend(held.iter().cloned());
            owners.push((index, recorded.len()));
        }
    }
    if recorded.is_empty() {
        return (Vec::new(), 0);
    }
    let Ok(expected) = lossless_dump(&recorded) else {
        return (Vec::new(), 0);
    };
    let covered = messages
        .iter()
        .zip(&expected)
        .take_while(|(given, written)| shown(given) == shown(written))
        .count();
    match owners.iter().rev().find(|(owner, _)| *owner < covered) {
        Some(&(owner, count)) => {
            recorded.truncate(count);
            (recorded, owner + 1)
        }
        None => (Vec::new(), 0),
    }
}
