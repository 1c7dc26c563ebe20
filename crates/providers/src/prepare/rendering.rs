//! Rendering of tool calls and returns: `args_as_dict`, `args_as_json_str`, `content_items`,
//! `model_response_str`.

use super::form::{Outcome, Profile, ToolArgs, ToolContent, ToolItem, ToolResult};
use crate::media::File;
use crate::{dumped, ExportError, PartLocation};
use msgflow_wire::{Field, ModelMessage, ModelRequestPart, ModelResponsePart, RawJson};
use serde_json::{Map, Value};

/// A tool part's id as sent. pydantic-ai gives a part without one (absent, or empty when mapped:
/// `guard_tool_call_id`) a random `pyd_ai_...` id of its own, so no two such parts share one; the
/// export gives it `msgflow_call_<message>_<part>`, the id `repair` gives a call without one,
/// unique to the part and the same on every run.
pub(super) fn tool_call_id(id: &Field<String>, at: PartLocation, _path: &str) -> Result<String, ExportError> {
    match id.get() {
        Some(id) if !invents_id(id) => Ok(id.clone()),
        _ => Ok(format!("msgflow_call_{}_{}", at.message, at.part)),
    }
}

/// Whether [`tool_call_id`] makes up the id of a part holding this one.
fn invents_id(id: &str) -> bool {
    id.is_empty()
}

/// The tool parts an export names by an id msgflow made up ([`tool_call_id`]'s
/// `msgflow_call_<message>_<part>`), where pydantic-ai would make up a random `pyd_ai_...` id on
/// load (`_generate_tool_call_id` in `pydantic_ai.messages`): tool calls, returns, server-side
/// calls and returns, and retry prompts naming a tool, without a `tool_call_id` or with an empty one.
/// Its text (`Display`) is the note `msgflow export` prints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InventedIds(pub Vec<PartLocation>);

impl InventedIds {
    /// The tool parts of `history` whose id an export makes up, in history order.
    pub fn of(history: &[ModelMessage]) -> InventedIds {
        let missing = |id: &Field<String>| id.get().is_none_or(|id| invents_id(id));
        let mut places = Vec::new();
        for (message, entry) in history.iter().enumerate() {
            let at = |part| PartLocation { message, part };
            match entry {
                ModelMessage::Request(request) => places.extend(
                    (request.parts.iter().enumerate())
                        .filter(|(_, part)| match part {
                            ModelRequestPart::ToolReturn(part) => missing(&part.tool_call_id),
                            ModelRequestPart::RetryPrompt(part) => {
                                part.tool_name.get().is_some() && missing(&part.tool_call_id)
                            }
                            _ => false,
                        })
                        .map(|(index, _)| at(index)),
                ),
                ModelMessage::Response(response) => places.extend(
                    (response.parts.iter().enumerate())
                        .filter(|(_, part)| match part {
                            ModelResponsePart::ToolCall(part) => missing(&part.tool_call_id),
                            ModelResponsePart::BuiltinToolCall(part) => missing(&part.tool_call_id),
                            ModelResponsePart::BuiltinToolReturn(part) => missing(&part.tool_call_id),
                            _ => false,
                        })
                        .map(|(index, _)| at(index)),
                ),
            }
        }
        InventedIds(places)
    }

    /// No id is made up.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Display for InventedIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(first) = self.0.first() else {
            return f.write_str("no tool part has a made-up tool_call_id");
        };
        write!(
            f,
            "{} tool part(s) have no tool_call_id (the first at $[{}].parts[{}]); the request names each \
             msgflow_call_<message>_<part>, where pydantic-ai would make up a random pyd_ai_ id",
            self.0.len(),
            first.message,
            first.part
        )
    }
}

/// A call's arguments as the profile's mapping sends them: the object of `args_as_dict`, or its
/// text (`args_as_json_str`). Arguments already in the form pydantic-ai dumps them in are that
/// text as written: read and written again, they would come out the same.
pub(super) fn tool_args(args: &Field<RawJson>, profile: Profile) -> Option<ToolArgs> {
    if !profile.args_as_text {
        return args_as_dict(args).map(ToolArgs::Object);
    }
    match args.get() {
        Some(raw) if raw.is_object() && dumped::is_dumped_form(raw.get()) => Some(ToolArgs::Text(raw.get().to_owned())),
        _ => args_as_dict(args).map(|map| ToolArgs::Text(object_text(&map))),
    }
}

/// Validated typed arguments as the profile's mapping sends them (an object, or its JSON text).
pub(super) fn fitted_args(map: Map<String, Value>, profile: Profile) -> ToolArgs {
    if profile.args_as_text {
        ToolArgs::Text(object_text(&map))
    } else {
        ToolArgs::Object(map)
    }
}

impl ToolArgs {
    /// The arguments as an object.
    pub(crate) fn into_object(self) -> Map<String, Value> {
        match self {
            ToolArgs::Object(map) => map,
            // The text of an object: it reads back as one.
            ToolArgs::Text(text) => serde_json::from_str(&text).unwrap_or_default(),
        }
    }

    /// The arguments as compact JSON text.
    pub(crate) fn into_text(self) -> String {
        match self {
            ToolArgs::Object(map) => object_text(&map),
            ToolArgs::Text(text) => text,
        }
    }

    /// [`ToolArgs::into_text`] of arguments that stay where they are.
    pub(crate) fn to_text(&self) -> String {
        match self {
            ToolArgs::Object(map) => object_text(map),
            ToolArgs::Text(text) => text.clone(),
        }
    }
}

/// `BaseToolCallPart.args_as_dict` (messages.py): no args or empty args are `{}`, an object is
/// itself, a JSON string is parsed, and anything that is not a JSON object becomes
/// `{"INVALID_JSON": <raw args>}`. `None` for an object holding `NaN` or `Infinity` (as written or
/// as their JSON string): pydantic-core reads them as floats, which each SDK then writes its own
/// way, while serde_json reads neither. Looked for only where serde_json failed, so valid
/// arguments are not scanned again.
pub(crate) fn args_as_dict(args: &Field<RawJson>) -> Option<Map<String, Value>> {
    let Some(raw) = args.get() else { return Some(Map::new()) };
    let invalid = |text: String| {
        // Only an object is read as arguments; anything else is invalid in pydantic-ai too.
        if text.trim_start().starts_with('{') && msgflow_wire::has_non_finite_literal(&text) {
            return None;
        }
        let mut map = Map::new();
        map.insert("INVALID_JSON".to_owned(), Value::String(text));
        Some(map)
    };
    match raw.try_to_value() {
        Ok(Value::Object(map)) => Some(map),
        Ok(Value::String(text)) => {
            if text.is_empty() {
                return Some(Map::new());
            }
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => Some(map),
                _ => invalid(text),
            }
        }
        // `not self.args`: `null`, `[]`, `0`, `false` are all empty.
        Ok(Value::Null) => Some(Map::new()),
        Ok(Value::Array(items)) if items.is_empty() => Some(Map::new()),
        Ok(other) => invalid(other.to_string()),
        Err(_) => invalid(raw.get().to_owned()),
    }
}

/// The JSON text of an object (what [`json_text`] gives for it as a `Value`).
pub(crate) fn object_text(map: &Map<String, Value>) -> String {
    let text = match redumped_map(map) {
        Some(redumped) => serde_json::to_string(&redumped),
        None => serde_json::to_string(map),
    };
    text.expect("a serde_json::Map always serialises")
}

/// `_tool_return_text`: a non-string value's compact JSON text ([`python_json`]).
pub(crate) fn json_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => python_json(other),
    }
}

/// The compact JSON pydantic-ai writes for a JSON value it read (`pydantic_core.to_json`, which
/// serde_json 1.0.154 matches): numbers as Python holds them once read (`1e5` is `100000.0`,
/// `-0` is `0`), where msgflow keeps a history's numbers as written.
///
/// ```
/// let value: serde_json::Value = serde_json::from_str(r#"{"amount": 1e+5, "n": -0, "big": 123456789012345678901234567890}"#)?;
/// assert_eq!(msgflow_providers::python_json(&value), r#"{"amount":100000.0,"n":0,"big":123456789012345678901234567890}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn python_json(value: &Value) -> String {
    match redumped(value) {
        Some(redumped) => serde_json::to_string(&redumped),
        None => serde_json::to_string(value),
    }
    .expect("a serde_json::Value always serialises")
}

/// `value` with its numbers as Python holds them once read ([`python_json`]'s value): moved
/// through unchanged when nothing differs, as nearly always.
///
/// ```
/// use serde_json::json;
/// let value: serde_json::Value = serde_json::from_str(r#"{"paid": 2.50, "n": 7}"#)?;
/// assert_eq!(msgflow_providers::python_value(value).to_string(), r#"{"paid":2.5,"n":7}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn python_value(value: Value) -> Value {
    if respelled(&value) {
        as_python(&value)
    } else {
        value
    }
}

/// `value` as Python holds it once read, where that differs from how it is written (msgflow
/// keeps numbers as written; pydantic-ai re-dumps what it read): an integer `-0` is `0`, a float
/// is its shortest round-trip form (`1.50` is `1.5`, `1e2` is `100.0`: serde_json formats floats
/// as pydantic-core does), and one out of range is `null` (`ser_json_inf_nan='null'`). `None`
/// when nothing differs, which is nearly always: the value is then written as it is.
pub(super) fn redumped(value: &Value) -> Option<Value> {
    respelled(value).then(|| as_python(value))
}

/// [`redumped`] of an object's values.
pub(super) fn redumped_map(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    map.values().any(respelled).then(|| as_python_map(map))
}

/// Whether Python writes `value` otherwise than it is written: a walk that allocates nothing, as
/// nearly every value is written as Python writes it.
fn respelled(value: &Value) -> bool {
    match value {
        Value::Number(number) => number_as_python(number).is_some(),
        Value::Array(items) => items.iter().any(respelled),
        Value::Object(map) => map.values().any(respelled),
        _ => false,
    }
}

fn as_python(value: &Value) -> Value {
    match value {
        Value::Number(number) => number_as_python(number).unwrap_or_else(|| value.clone()),
        Value::Array(items) => Value::Array(items.iter().map(as_python).collect()),
        Value::Object(map) => Value::Object(as_python_map(map)),
        other => other.clone(),
    }
}

fn as_python_map(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter().map(|(key, value)| (key.clone(), as_python(value))).collect()
}

/// A number as Python holds it once read, when that is written otherwise (the text of a number is
/// kept as written: `arbitrary_precision`).
fn number_as_python(number: &serde_json::Number) -> Option<Value> {
    let text = number.as_str();
    if !text.contains(['.', 'e', 'E']) {
        return (text == "-0").then(|| Value::from(0));
    }
    let float: f64 = text.parse().ok()?;
    if !float.is_finite() {
        return Some(Value::Null);
    }
    let python = serde_json::to_string(&float).ok()?;
    (python != text).then(|| Value::from(float))
}

/// `content_items(mode='str', wrap_if_error=...)`: the items Anthropic sends as a `tool_result`'s
/// blocks (`wrap_if_error=False`) and OpenAI Responses as a `function_call_output`'s list.
pub(crate) fn content_items(result: &ToolResult, wrap_if_error: bool) -> Vec<ToolItem<'_>> {
    if wrap_if_error && result.outcome.is_error() {
        // The wrapped error, then the files.
        let mut items = vec![ToolItem::Text(model_response_str(result, true))];
        items.extend(result.files.iter().map(|(_, file)| ToolItem::File(file)));
        return items;
    }
    if result.files.is_empty() {
        return content_items_unwrapped(result)
            .into_iter()
            .map(ToolItem::Text)
            .collect();
    }
    // `_serialize_content_items`: files as they are, other items as their text.
    let content = result.content.value();
    let items = match &*content {
        Value::Array(items) => items.as_slice(),
        other => std::slice::from_ref(other),
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match result.files.iter().find(|(at, _)| *at == index) {
            Some((_, file)) => ToolItem::File(file),
            None => ToolItem::Text(json_text(item)),
        })
        .collect()
}

/// What [`into_plain_texts`] and [`into_response_str`] make of a tool result: its rendering,
/// moved out of it, or the result itself, back, for the rendering that reads it in place.
pub(crate) enum Taken<T> {
    Moved(T),
    Kept(ToolResult),
}

/// [`content_items`] (`wrap_if_error=False`) of a result without files whose texts can be moved
/// out of it (a string result, the common one, is not copied); the result comes back for
/// [`content_items`] when it holds files or is a retry's one JSON array.
pub(crate) fn into_plain_texts(result: ToolResult) -> Taken<Vec<String>> {
    let retry_array = result.outcome == Outcome::Retried && result.content.is_array();
    if !result.files.is_empty() || retry_array {
        return Taken::Kept(result);
    }
    Taken::Moved(match result.content {
        ToolContent::Read(Value::Array(items)) => items.into_iter().map(into_json_text).collect(),
        ToolContent::Read(other) => vec![into_json_text(other)],
        ToolContent::Dumped(text) if text.starts_with('[') => dumped_item_texts(&text),
        ToolContent::Dumped(text) => vec![text],
    })
}

/// [`json_text`] of a value given up: a string is moved, not copied.
pub(super) fn into_json_text(value: Value) -> String {
    match value {
        Value::String(text) => text,
        other => json_text(&other),
    }
}

/// [`model_response_str`] (`wrap_if_error=True`) of a result without files that is no error,
/// moved out of it (a string result is not copied); the result comes back otherwise.
pub(crate) fn into_response_str(result: ToolResult) -> Taken<String> {
    if !result.files.is_empty() || result.outcome.is_error() {
        return Taken::Kept(result);
    }
    Taken::Moved(match result.content {
        // `_unwrap_data`: an empty list is no data.
        ToolContent::Read(Value::Null) => String::new(),
        ToolContent::Read(Value::Array(items)) if items.is_empty() => String::new(),
        ToolContent::Read(other) => into_json_text(other),
        // An object or a list of items: its JSON text.
        ToolContent::Dumped(text) => text,
    })
}

/// `content_items(mode='str', wrap_if_error=False)` of a result without files.
pub(super) fn content_items_unwrapped(result: &ToolResult) -> Vec<String> {
    // A retry's validation errors are one JSON array the model is shown whole.
    if result.outcome == Outcome::Retried && result.content.is_array() {
        return vec![model_response_str(result, false)];
    }
    result.content.item_texts()
}

/// `model_response_str(wrap_if_error=...)`: the one text OpenAI sends for a tool result.
pub(crate) fn model_response_str(result: &ToolResult, wrap_if_error: bool) -> String {
    let value = &unwrap_data(result);
    let response = match value {
        Value::Null => String::new(),
        other => json_text(other),
    };
    if wrap_if_error && result.outcome.is_error() {
        // `_error_value`: a retry's structured data goes in as it is, anything else as its text.
        let error = if result.outcome == Outcome::Retried && !value.is_null() && !value.is_string() {
            value.clone()
        } else {
            Value::String(response)
        };
        let mut wrapper = Map::new();
        wrapper.insert("error".to_owned(), error);
        return json_text(&Value::Object(wrapper));
    }
    response
}

/// `model_response_str_and_user_content`'s text (for a result with files): each file referred to
/// as `See file <identifier>.`, the texts as they are, a list content as a JSON array of them, a
/// failure as `[{"error": ...}, "See file ...", ...]`.
pub(crate) fn tool_text_with_file_references(result: &ToolResult) -> String {
    let reference = |file: &File| format!("See file {}.", file.identifier);
    if result.outcome.is_error() {
        let mut wrapped = Map::new();
        let value = unwrap_data(result);
        let response = model_response_str(result, false);
        // `_error_value`: a retry's structured data goes in as it is, anything else as its text.
        let error = if result.outcome == Outcome::Retried && !value.is_null() && !value.is_string() {
            value
        } else {
            Value::String(response)
        };
        wrapped.insert("error".to_owned(), error);
        let mut items = vec![Value::Object(wrapped)];
        items.extend(result.files.iter().map(|(_, file)| Value::String(reference(file))));
        return json_text(&Value::Array(items));
    }
    let texts: Vec<Value> = content_items(result, false)
        .into_iter()
        .map(|item| match item {
            ToolItem::Text(text) => Value::String(text),
            ToolItem::File(file) => Value::String(reference(file)),
        })
        .collect();
    match (&*result.content.value(), texts.as_slice()) {
        (Value::Array(_), _) => json_text(&Value::Array(texts)),
        (_, [Value::String(text)]) => text.clone(),
        _ => json_text(&Value::Array(texts)),
    }
}

/// `_unwrap_data`: the content without its files; no data is `null`, and a single item is unwrapped
/// when the content was not a list or when files were taken out of it.
pub(super) fn unwrap_data(result: &ToolResult) -> Value {
    let content = result.content.value();
    if result.files.is_empty() {
        return match content.into_owned() {
            Value::Array(items) if items.is_empty() => Value::Null,
            content => content,
        };
    }
    let Value::Array(items) = &*content else {
        // The content is the file itself.
        return Value::Null;
    };
    let mut data: Vec<Value> = items
        .iter()
        .enumerate()
        .filter(|(index, _)| !result.files.iter().any(|(at, _)| at == index))
        .map(|(_, item)| item.clone())
        .collect();
    match data.len() {
        0 => Value::Null,
        1 => data.remove(0),
        _ => Value::Array(data),
    }
}

impl ToolContent {
    /// `content_items(mode='str')` of a content without files: a list's items' texts, or the
    /// one text of anything else.
    pub(super) fn item_texts(&self) -> Vec<String> {
        match self {
            ToolContent::Read(Value::Array(items)) => items.iter().map(json_text).collect(),
            ToolContent::Read(other) => vec![json_text(other)],
            ToolContent::Dumped(text) if text.starts_with('[') => dumped_item_texts(text),
            ToolContent::Dumped(text) => vec![text.clone()],
        }
    }
}

/// The texts of a dumped list's items: a string's own text, any other item's JSON text.
pub(super) fn dumped_item_texts(list: &str) -> Vec<String> {
    dumped::list_items(list)
        .map(|item| {
            if item.starts_with('"') {
                serde_json::from_str(item).unwrap_or_else(|_| item.to_owned())
            } else {
                item.to_owned()
            }
        })
        .collect()
}
