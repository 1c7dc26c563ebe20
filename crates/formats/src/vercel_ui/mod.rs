//! Vercel AI SDK `UIMessage` arrays (versions 5 and 6) to and from pydantic-ai histories.
//!
//! * [`to_value`]: by default exactly what pydantic-ai 2.68.0's
//!   `VercelAIAdapter.dump_messages(messages, sdk_version=...)` writes (`pydantic_ai.ui.vercel_ai`).
//! * [`from_value`]: by default exactly the history `VercelAIAdapter.load_messages` reads from the
//!   same UI messages.
//! * Lossless ([`ConvertOptions::lossless`](crate::ConvertOptions)): the AI SDK's own shape of a
//!   turn (one assistant `UIMessage` per turn, its steps opened by `step-start` parts) and, in the
//!   first part of each `UIMessage`, a `providerMetadata.msgflow` record of the exact pydantic-ai
//!   messages it stands for. Reading back, the records of every `UIMessage` the front end left as
//!   it was give those messages back unchanged; messages it added or edited are read as
//!   pydantic-ai reads them. pydantic-ai itself ignores the record (it reads only
//!   `providerMetadata.pydantic_ai`), so it loads a lossless file as it loads its own.

mod citations;
pub(crate) mod dump;
mod load;

use msgflow_wire::ModelMessage;
use serde_json::{json, Map, Value};

use crate::loss::Report;
use crate::openai_chat::ShapeError;
use crate::{ConvertError, ConvertOptions};

use crate::messages_builder::INTERNAL_KEY;
use crate::ui_payloads::PROVIDER_METADATA_KEY;
/// The keys of a tool UI part, in the order pydantic-ai's models declare them (`ToolOutputAvailablePart`,
/// `DynamicToolUIPart`, ...; `request_types.py`).
const TOOL_PART_KEYS: [&str; 13] = [
    "type",
    "toolName",
    "toolCallId",
    "title",
    "state",
    "input",
    "output",
    "errorText",
    "providerExecuted",
    "callProviderMetadata",
    "preliminary",
    "approval",
    "rawInput",
];
/// The tool kinds pydantic-ai 2.68.0 defines (`_TOOL_KINDS`): their parts are typed.
pub(crate) const TYPED_TOOL_KINDS: [&str; 2] = ["capability-load", "tool-search"];
/// The `kind`s of the multimodal and text items a tool return's content can hold: content holding
/// none is written and read as it is; otherwise its files are rebuilt on both sides, as pydantic-ai
/// does (`tool_return_output`, `_validate_tool_output`; `ui_payloads::dumped_tool_content`,
/// `ui_payloads::loaded_tool_output`).
const CONTENT_ITEM_KINDS: [&str; 9] = [
    "binary",
    "image-url",
    "audio-url",
    "video-url",
    "document-url",
    "uploaded-file",
    "text-content",
    "structured-content",
    "cache-point",
];

/// Whether tool-return content holds a file or text item anywhere.
pub(crate) fn holds_content_item(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(holds_content_item),
        Value::Object(object) => {
            object
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|kind| CONTENT_ITEM_KINDS.contains(&kind))
                || object.values().any(holds_content_item)
        }
        _ => false,
    }
}

/// The key of msgflow's lossless record in a UI part's provider metadata.
const RECORD_KEY: &str = "msgflow";
/// The custom data part that carries the record of a history nothing of which shows.
const RECORD_PART_TYPE: &str = "data-msgflow-record";

/// The target of this module's refusals.
#[derive(Debug)]
pub(crate) struct VercelUi;

impl crate::unsupported::Target for VercelUi {
    const NAME: &'static str = "vercel-ui";
}

/// A history msgflow cannot write as pydantic-ai would (a part it does not convert yet).
pub(crate) type Unsupported = crate::unsupported::Unsupported<VercelUi>;

impl crate::ui_format::UiFormat for VercelUi {
    const MESSAGES: &'static str = "UI messages";
    const EXPECTED: &'static str = "expected Vercel AI UI messages: an array of UIMessages or {\"messages\": [...]}";
    const BODY_FIELD: &'static str = "request field";
    const LOAD_TAKES_VALUES: bool = true;

    fn dump(history: &[Value], options: &ConvertOptions) -> Result<Vec<Value>, Unsupported> {
        let dumped = dump::dump(history, options.vercel_sdk_version)?;
        Ok(dumped.into_iter().map(|(message, _)| message).collect())
    }

    fn lossless_dump(history: &[Value], options: &ConvertOptions) -> Result<Vec<Value>, Unsupported> {
        lossless_dump(history, options.vercel_sdk_version)
    }

    fn recorded_prefix(messages: &[Value]) -> (Vec<Value>, usize) {
        recorded_prefix(messages)
    }

    fn record_at(message: &Value) -> Option<(String, &[Value])> {
        let (index, key, record) = located_record(message)?;
        let held = record.get("messages")?.as_array()?;
        let path = match key {
            "data" => format!(".parts[{index}].data.messages"),
            key => format!(".parts[{index}].{key}.{RECORD_KEY}.messages"),
        };
        Some((path, held.as_slice()))
    }

    fn load(
        messages: &mut [Value],
        path: &str,
        first: usize,
        document: usize,
        report: &mut Report,
        recorded: Vec<Value>,
    ) -> Result<Vec<Value>, ShapeError> {
        load::load(messages, path, first, document, report, recorded)
    }
}

/// The UI messages of `history`: pydantic-ai's `dump_messages`, or the lossless form. Every value
/// of the history they cannot hold is reported in `report`, at its path in the history (found by
/// reading the messages back with [`from_value`]; messages that do not load back are reported as
/// the whole history dropped).
pub fn to_value(
    history: &[ModelMessage],
    document: usize,
    options: &ConvertOptions,
    report: &mut Report,
) -> Result<Value, ConvertError> {
    crate::ui_format::to_value::<VercelUi>(history, document, options, report)
}

/// The history of Vercel AI UI messages: `value` is an array of `UIMessage`s or a chat request
/// body `{"messages": [...], ...}`. Everything the history cannot hold, and everything pydantic-ai
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
    crate::ui_format::from_value::<VercelUi>(value.clone(), document, options, report)
}

/// The lossless form: pydantic-ai's dump with each turn's responses in one assistant message
/// (`step-start` before each step, as the AI SDK writes a multi-step turn) and a record of the
/// exact messages behind each `UIMessage`.
fn lossless_dump(history: &[Value], sdk_version: u8) -> Result<Vec<Value>, Unsupported> {
    let dumped = dump::dump(history, sdk_version)?;
    // (UI message, the last history message it stands for)
    let mut merged: Vec<(Value, usize)> = Vec::new();
    for (mut message, source) in dumped {
        if message["role"] == "assistant" {
            if let Some((previous, previous_source)) = merged.last_mut() {
                // Responses with only tool returns between them are one turn.
                let one_turn = previous["role"] == "assistant"
                    && history[*previous_source + 1..source]
                        .iter()
                        .all(|between| dump::kind(between) == "request" && dump::is_tool_returns_only(between));
                if one_turn {
                    if let Some(Value::Array(parts)) = previous.get_mut("parts") {
                        if parts.first().is_none_or(|first| first["type"] != "step-start") {
                            parts.insert(0, json!({"type": "step-start"}));
                        }
                        parts.push(json!({"type": "step-start"}));
                        parts.extend(message["parts"].as_array().cloned().unwrap_or_default());
                    }
                    *previous_source = source;
                    continue;
                }
            }
        }
        if message["role"] == "assistant" {
            if let Some(Value::Array(parts)) = message.get_mut("parts") {
                parts.insert(0, json!({"type": "step-start"}));
            }
        }
        merged.push((message, source));
    }
    if merged.is_empty() && !history.is_empty() {
        // Nothing of the history shows (speech, orphan tool returns): a message of its own carries
        // the record, as a custom data part, which pydantic-ai and the AI SDK's model conversion skip.
        let record = json!({"messages": history, "sdk_version": sdk_version});
        return Ok(vec![json!({
            "id": "msgflow-record",
            "role": "user",
            "parts": [{"type": RECORD_PART_TYPE, "data": record}],
        })]);
    }
    let mut start = 0;
    let count = merged.len();
    let mut result = Vec::with_capacity(count);
    for (index, (mut message, source)) in merged.into_iter().enumerate() {
        // The last UI message also stands for trailing history messages that show as nothing.
        let end = if index + 1 == count { history.len() } else { source + 1 };
        if end > start {
            let record = json!({"messages": history[start..end], "sdk_version": sdk_version});
            attach_record(&mut message, record);
            start = end;
        }
        result.push(message);
    }
    Ok(result)
}

/// Puts the record in the first part that has provider metadata (`step-start` and data parts
/// have none), or in a record part of its own at the end of a message of only those.
fn attach_record(message: &mut Value, record: Value) {
    let Some(Value::Array(parts)) = message.get_mut("parts") else {
        return;
    };
    let has_metadata = |part: &Value| {
        let kind = part["type"].as_str().unwrap_or("");
        matches!(kind, "text" | "reasoning" | "file") || kind.starts_with("tool-") || kind == "dynamic-tool"
    };
    if !parts.iter().any(has_metadata) {
        parts.push(json!({"type": RECORD_PART_TYPE, "data": record}));
        return;
    }
    for part in parts.iter_mut() {
        let key = match part["type"].as_str().unwrap_or("") {
            "text" | "reasoning" | "file" => "providerMetadata",
            kind if kind.starts_with("tool-") || kind == "dynamic-tool" => "callProviderMetadata",
            _ => continue,
        };
        let Value::Object(object) = part else { continue };
        let metadata = object.entry(key).or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(metadata) = metadata {
            metadata.insert(RECORD_KEY.into(), record);
        }
        return;
    }
}

/// The record of a UI message, if it carries one.
fn record_of(message: &Value) -> Option<&Value> {
    located_record(message).map(|(_, _, record)| record)
}

/// [`record_of`], the index of the part that carries it and the key it is under in that part
/// (`data` for a record part, else `providerMetadata` or `callProviderMetadata`, under `msgflow`).
fn located_record(message: &Value) -> Option<(usize, &'static str, &Value)> {
    message["parts"]
        .as_array()?
        .iter()
        .enumerate()
        .find_map(|(index, part)| {
            if part["type"] == RECORD_PART_TYPE {
                return Some((index, "data", part.get("data")?));
            }
            let key = ["providerMetadata", "callProviderMetadata"]
                .into_iter()
                .find(|key| part.get(*key).is_some())?;
            Some((index, key, part[key].get(RECORD_KEY)?))
        })
}

/// A UI message without msgflow's records and ids, for comparing what the front end shows.
fn shown(message: &Value) -> Value {
    let mut message = message.clone();
    if let Value::Object(object) = &mut message {
        object.remove("id");
        object.remove("metadata");
    }
    if let Some(Value::Array(parts)) = message.get_mut("parts") {
        for part in parts {
            for key in ["providerMetadata", "callProviderMetadata"] {
                if let Some(Value::Object(metadata)) = part.get_mut(key) {
                    metadata.remove(RECORD_KEY);
                    if metadata.is_empty() {
                        part.as_object_mut()
                            .expect("a part with metadata is an object")
                            .remove(key);
                    }
                }
            }
            // The approval id of a denial is random in every dump.
            if part["state"] == "output-denied" {
                if let Some(approval) = part.get_mut("approval").and_then(Value::as_object_mut) {
                    approval.remove("id");
                }
            }
        }
    }
    message
}

/// The history the records of the leading UI messages hold, and how many UI messages it covers:
/// every message up to the first one the front end added or changed (its parts differ from what
/// msgflow writes for the recorded history).
fn recorded_prefix(messages: &[Value]) -> (Vec<Value>, usize) {
    let mut recorded: Vec<Value> = Vec::new();
    let mut owners: Vec<usize> = Vec::new();
    let mut sdk_version = 5;
    for (index, message) in messages.iter().enumerate() {
        if let Some(record) = record_of(message) {
            let Some(held) = record.get("messages").and_then(Value::as_array) else {
                break;
            };
            sdk_version = record.get("sdk_version").and_then(Value::as_u64).map_or(5, |v| v as u8);
            recorded.extend(held.iter().cloned());
            owners.push(index);
        }
    }
    if recorded.is_empty() {
        return (Vec::new(), 0);
    }
    let Ok(expected) = lossless_dump(&recorded, sdk_version) else {
        return (Vec::new(), 0);
    };
    let covered = messages
        .iter()
        .zip(&expected)
        .take_while(|(given, written)| shown(given) == shown(written))
        .count();
    // Only whole records count: each stands for the UI messages up to the next record (the last
    // one, up to the end of what msgflow wrote for the recorded history).
    let ends: Vec<usize> = owners
        .iter()
        .skip(1)
        .copied()
        .chain(std::iter::once(expected.len()))
        .collect();
    let Some(last) = ends.iter().rposition(|&end| end <= covered) else {
        return (Vec::new(), 0);
    };
    let mut history = Vec::new();
    for &owner in &owners[..=last] {
        if let Some(held) = record_of(&messages[owner])
            .and_then(|record| record.get("messages"))
            .and_then(Value::as_array)
        {
            history.extend(held.iter().cloned());
        }
    }
    (history, ends[last])
}
