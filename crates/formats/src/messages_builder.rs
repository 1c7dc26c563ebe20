//! The history a UI adapter's `load_messages` builds: pydantic-ai's `MessagesBuilder`
//! (`pydantic_ai.ui._messages_builder`) and the helpers both UI formats' loaders share; the OTel
//! loader, which puts its messages together itself, makes them typed here too ([`loaded_message`]).
//!
//! Parts come as the JSON pydantic-ai reads them from, or typed ([`Part`]) for the shapes most
//! parts have: a message of typed parts alone becomes a typed message, which the history takes
//! as it is; any other is written as JSON and read as pydantic-ai reads it
//! ([`crate::loaded::history_of`]).

use base64::Engine as _;
use msgflow_wire::{
    Field, FinishReason, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson,
    Timestamp, ToolCallPart, ToolReturnPart,
};
use rayon::prelude::*;
use serde::Deserialize as _;
use serde_json::{Map, Value};

use crate::loaded::LoadedMessage;
use crate::loss::{LossKind, Report};
use crate::openai_chat::ShapeError;
use crate::typed_parts;

/// The reserved namespace of `ModelMessage.metadata` the adapters keep the UI message id in.
pub(crate) const INTERNAL_KEY: &str = "__pydantic_ai__";

/// A part a loader hands the builder: the JSON pydantic-ai reads it from, or (for the shapes most
/// parts have, see [`crate::typed_parts`]) the typed part that JSON reads as, which the history
/// then takes without writing and reading its JSON.
pub(crate) enum Part {
    Json(Value),
    Request(ModelRequestPart),
    Response(ModelResponsePart),
    /// A tool return typed but for its content, set from this value ([`typed_parts::with_content`])
    /// when the history is put together: writing a long result's text is most of its part's cost,
    /// and [`Builder::into_messages`] does it on the thread pool, not in the loader's one thread.
    ToolReturn(ToolReturnPart, Value),
    /// A tool call typed but for its arguments, set from this value the same way.
    ToolCall(ToolCallPart, Value),
}

impl From<Value> for Part {
    fn from(value: Value) -> Self {
        Part::Json(value)
    }
}

impl From<ModelRequestPart> for Part {
    fn from(part: ModelRequestPart) -> Self {
        Part::Request(part)
    }
}

impl From<ModelResponsePart> for Part {
    fn from(part: ModelResponsePart) -> Self {
        Part::Response(part)
    }
}

impl Part {
    /// The typed part, its payload set, or its JSON.
    fn settled(self) -> Part {
        match self {
            Part::ToolReturn(part, content) => {
                Part::Request(ModelRequestPart::ToolReturn(typed_parts::with_content(part, &content)))
            }
            Part::ToolCall(mut part, args) => {
                part.args = Field::Present(typed_parts::payload(&args));
                Part::Response(ModelResponsePart::ToolCall(part))
            }
            part => part,
        }
    }

    /// The typed request part of a settled part.
    fn into_request(self) -> Option<ModelRequestPart> {
        match self {
            Part::Request(part) => Some(part),
            _ => None,
        }
    }

    /// The typed response part of a settled part.
    fn into_response(self) -> Option<ModelResponsePart> {
        match self {
            Part::Response(part) => Some(part),
            _ => None,
        }
    }

    fn is_request(&self) -> Option<bool> {
        match self {
            Part::Json(_) => None,
            Part::Request(_) | Part::ToolReturn(..) => Some(true),
            Part::Response(_) | Part::ToolCall(..) => Some(false),
        }
    }

    /// Whether the typed part is the one its JSON reads as: a payload not yet set must nest within
    /// the parser's depth limit where it stands (inside the history's array, the message, its
    /// parts and the part), or its JSON does not read at all.
    fn reads_as_typed(&self) -> bool {
        match self {
            Part::Json(_) => false,
            Part::Request(_) | Part::Response(_) => true,
            Part::ToolReturn(_, payload) | Part::ToolCall(_, payload) => {
                crate::round_trip::within_parse_depth(payload, 4)
            }
        }
    }

    /// The part's JSON. A payload not set yet goes into the JSON as it is, not through the typed
    /// part's text: it may nest too deep to be read back (then the history's read gives the error).
    fn into_json(self) -> Value {
        fn json<P: serde::Serialize>(part: &P) -> Value {
            serde_json::to_value(part).expect("a part a loader built always has JSON")
        }
        match self {
            Part::Json(value) => value,
            Part::Request(part) => json(&part),
            Part::Response(part) => json(&part),
            Part::ToolReturn(part, content) => {
                let needs_digests = msgflow_media::content_needs_file_digests(&content);
                let mut value = json(&ModelRequestPart::ToolReturn(part));
                value["content"] = content;
                if needs_digests {
                    value["content_file_digests"] = Value::Array(Vec::new());
                }
                value
            }
            Part::ToolCall(part, args) => {
                let mut value = json(&ModelResponsePart::ToolCall(part));
                value["args"] = args;
                value
            }
        }
    }
}

/// A message of the history being built.
enum Message {
    /// A message the builder opened for a part: its parts, and the keys set on it since (after
    /// `parts` and `kind`, in the order they were set).
    Opened {
        request: bool,
        parts: Vec<Part>,
        fields: Map<String, Value>,
        /// The UI message id `set_ui_message_id` keeps in the metadata, while the message has no
        /// other metadata: written into `fields` the moment anything reads them, and otherwise
        /// straight into the typed message's metadata, without building its JSON first.
        ui_message_id: Option<String>,
    },
    /// A message given whole, as JSON (a lossless record, an enqueued message).
    Whole(Map<String, Value>),
}

impl Message {
    fn is_kind(&self, kind: &str) -> bool {
        match self {
            Message::Opened { request, .. } => kind == if *request { "request" } else { "response" },
            // A record may hold anything.
            Message::Whole(message) => message.get("kind").is_some_and(|value| value == kind),
        }
    }

    fn part_count(&self) -> usize {
        match self {
            Message::Opened { parts, .. } => parts.len(),
            Message::Whole(message) => message.get("parts").and_then(Value::as_array).map_or(0, Vec::len),
        }
    }

    /// The message's keys other than its parts and kind (all of them for a message given whole).
    fn fields_mut(&mut self) -> &mut Map<String, Value> {
        match self {
            Message::Opened {
                fields, ui_message_id, ..
            } => {
                if let Some(id) = ui_message_id.take() {
                    set_ui_message_id(fields, id);
                }
                fields
            }
            Message::Whole(message) => message,
        }
    }

    fn into_loaded(self) -> LoadedMessage {
        match self {
            Message::Opened {
                request,
                parts,
                mut fields,
                ui_message_id,
            } => match typed_message(request, parts, fields, ui_message_id) {
                Ok(message) => LoadedMessage::Typed(message),
                Err((parts, fields_left, ui_message_id)) => {
                    fields = fields_left;
                    if let Some(id) = ui_message_id {
                        set_ui_message_id(&mut fields, id);
                    }
                    let mut message = Map::with_capacity(2 + fields.len());
                    message.insert(
                        "parts".into(),
                        Value::Array(parts.into_iter().map(Part::into_json).collect()),
                    );
                    message.insert("kind".into(), if request { "request" } else { "response" }.into());
                    message.extend(fields);
                    LoadedMessage::Json(Value::Object(message))
                }
            },
            Message::Whole(message) => LoadedMessage::Json(Value::Object(message)),
        }
    }
}

/// The typed message an opened message's JSON reads as, when its parts are all typed and its
/// other keys are the ones the loaders set: the metadata (nested within the parser's depth
/// limit), the timestamp (a datetime text), a request's instructions (a text) and a response's
/// finish reason (one pydantic-ai has); else what it was given back.
#[allow(clippy::type_complexity)]
fn typed_message(
    request: bool,
    parts: Vec<Part>,
    fields: Map<String, Value>,
    ui_message_id: Option<String>,
) -> Result<ModelMessage, (Vec<Part>, Map<String, Value>, Option<String>)> {
    let mut typed = parts
        .iter()
        .all(|part| part.is_request() == Some(request) && part.reads_as_typed());
    let (mut metadata, mut timestamp) = (Field::Absent, Field::Absent);
    let (mut instructions, mut finish_reason) = (Field::Absent, Field::Absent);
    for (key, value) in &fields {
        if !typed {
            break;
        }
        match (key.as_str(), value) {
            ("instructions", Value::String(text)) if request => instructions = Field::Present(text.clone()),
            ("finish_reason", Value::String(_)) if !request => match FinishReason::deserialize(value) {
                Ok(reason) => finish_reason = Field::Present(reason),
                Err(_) => typed = false,
            },
            // Within the history's array and the message's object.
            ("metadata", Value::Object(_)) if crate::round_trip::within_parse_depth(value, 2) => {
                metadata = Field::Present(RawJson::from_value(value).expect("a JSON value always serialises"));
            }
            ("timestamp", Value::String(text)) => match Timestamp::parse(text) {
                Ok(parsed) => timestamp = Field::Present(parsed),
                Err(_) => typed = false,
            },
            _ => typed = false,
        }
    }
    if !typed {
        return Err((parts, fields, ui_message_id));
    }
    if let Some(id) = &ui_message_id {
        // What `set_ui_message_id` writes into a message without metadata, as its JSON text.
        #[derive(serde::Serialize)]
        struct Namespace<'a> {
            ui_message_id: &'a str,
        }
        #[derive(serde::Serialize)]
        struct IdMetadata<'a> {
            #[serde(rename = "__pydantic_ai__")]
            namespace: Namespace<'a>,
        }
        let written = IdMetadata {
            namespace: Namespace { ui_message_id: id },
        };
        metadata = Field::Present(RawJson::from_value(&written).expect("a string always serialises"));
    }
    let settled = parts.into_iter().map(Part::settled);
    Ok(if request {
        let parts = settled.filter_map(Part::into_request).collect();
        ModelMessage::Request(Box::new(ModelRequest {
            metadata,
            timestamp,
            instructions,
            ..typed_parts::request(parts)
        }))
    } else {
        let parts = settled.filter_map(Part::into_response).collect();
        ModelMessage::Response(Box::new(ModelResponse {
            metadata,
            timestamp,
            finish_reason,
            ..typed_parts::response(parts)
        }))
    })
}

/// A message a loader put together itself (the OTel loader, which has no `MessagesBuilder`):
/// typed where [`typed_message`] makes it so, else its JSON, `parts` first and `kind` second.
pub(crate) fn loaded_message(request: bool, parts: Vec<Part>, fields: Map<String, Value>) -> LoadedMessage {
    Message::Opened {
        request,
        parts,
        fields,
        ui_message_id: None,
    }
    .into_loaded()
}

/// The history being built: `MessagesBuilder`.
pub(crate) struct Builder {
    messages: Vec<Message>,
    /// The indices of the messages [`Builder::append_whole`] added, ascending: `add` never extends
    /// the last of them (`_sealed_tail`), and none is a UI message's metadata target (they carry
    /// their own, `_metadata_target`).
    whole: Vec<usize>,
    /// For each message (by index, up to the last one UI messages landed in), which of them gave
    /// it what it holds ([`Givers`]).
    givers: Vec<Givers>,
}

/// Which UI message gave a history message its id, its application `metadata` and its timestamp,
/// by the UI message's index in its array. pydantic-ai's builder puts consecutive UI messages of
/// one side into one history message (`MessagesBuilder.add` extends the last message), and each
/// then writes its own over the earlier one's (`apply_message_metadata`, `set_ui_message_id`):
/// what a later one replaces is lost, and [`Givers::land`] says where it was.
#[derive(Default)]
pub(crate) struct Givers {
    id: Option<usize>,
    /// The UI message and the keys of its application metadata.
    metadata: Option<(usize, Vec<String>)>,
    timestamp: Option<usize>,
}

/// What a UI message gives the history message it lands in.
#[derive(Default)]
pub(crate) struct Given {
    /// An `id`.
    pub(crate) id: bool,
    /// Application metadata with these keys (none: it leaves the message's as it is).
    pub(crate) metadata: Vec<String>,
    /// A timestamp the message takes.
    pub(crate) timestamp: bool,
}

/// A value of an earlier UI message that a later one landing in the same history message replaced.
pub(crate) enum Replaced {
    Id,
    MetadataKey(String),
    Timestamp,
}

impl Replaced {
    /// Its path, given the path of its UI message.
    pub(crate) fn path(&self, message_path: &str) -> String {
        match self {
            Replaced::Id => format!("{message_path}.id"),
            Replaced::MetadataKey(key) => crate::loss::key_path(&format!("{message_path}.metadata"), key),
            Replaced::Timestamp => format!("{message_path}.metadata.pydantic_ai.timestamp"),
        }
    }

    /// What it was, for the report.
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Replaced::Id => {
                "the `id` of a UI message that shares its history message with a later one (which keeps the later's)"
            }
            Replaced::MetadataKey(_) => {
                "`metadata` of a UI message that shares its history message with a later one (whose `metadata` replaces it)"
            }
            Replaced::Timestamp => {
                "the timestamp of a UI message that shares its history message with a later one (whose timestamp replaces it)"
            }
        }
    }
}

impl Givers {
    /// Records that the UI message of index `message` landed in this history message, giving it
    /// `given`, and returns the values of earlier UI messages it replaced, by their messages'
    /// indices. Application metadata replaces the whole metadata object, and with it an earlier id.
    pub(crate) fn land(&mut self, message: usize, given: Given) -> Vec<(usize, Replaced)> {
        let mut replaced = Vec::new();
        let gives_metadata = !given.metadata.is_empty();
        if given.id || gives_metadata {
            if let Some(earlier) = self.id.take() {
                replaced.push((earlier, Replaced::Id));
            }
        }
        if gives_metadata {
            if let Some((earlier, keys)) = self.metadata.take() {
                replaced.extend(keys.into_iter().map(|key| (earlier, Replaced::MetadataKey(key))));
            }
            self.metadata = Some((message, given.metadata));
        }
        if given.timestamp {
            if let Some(earlier) = self.timestamp.replace(message) {
                replaced.push((earlier, Replaced::Timestamp));
            }
        }
        if given.id {
            self.id = Some(message);
        }
        replaced
    }

    /// The UI message whose id the history message holds, if any.
    pub(crate) fn id(&self) -> Option<usize> {
        self.id
    }
}

/// The path of the UI message of index `index` in the array of the one at `message_path`.
pub(crate) fn sibling_path(message_path: &str, index: usize) -> String {
    let array = message_path.rsplit_once('[').map_or(message_path, |(array, _)| array);
    format!("{array}[{index}]")
}

impl Builder {
    /// A builder going on from `history` (the messages before the ones read, as JSON objects; the
    /// loaders refuse a record of anything else before they get here, so nothing is left out).
    pub(crate) fn new(history: Vec<Value>) -> Self {
        let messages = history
            .into_iter()
            .filter_map(|message| match message {
                Value::Object(object) => Some(Message::Whole(object)),
                _ => None,
            })
            .collect();
        Builder {
            messages,
            whole: Vec::new(),
            givers: Vec::new(),
        }
    }

    /// Whether the history ends on a response that is one empty text part (a text part of any
    /// other field set, or with any other key, is not one).
    pub(crate) fn ends_on_empty_text_response(&self) -> bool {
        fn empty_text_json(part: &Value) -> bool {
            part["part_kind"] == "text"
                && part["content"] == ""
                && part.as_object().is_some_and(|part| {
                    part.iter()
                        .all(|(key, value)| matches!(key.as_str(), "content" | "part_kind") || value.is_null())
                })
        }
        let Some(last) = self.messages.last() else {
            return false;
        };
        if !last.is_kind("response") {
            return false;
        }
        match last {
            Message::Opened { parts, .. } => match parts.as_slice() {
                [Part::Json(part)] => empty_text_json(part),
                [Part::Response(ModelResponsePart::Text(text))] => {
                    text.content.is_empty()
                        && text.id.get().is_none()
                        && text.provider_name.get().is_none()
                        && text.provider_details.get().is_none()
                        && text.citations.get().is_none()
                        && text.extra.is_empty()
                }
                _ => false,
            },
            Message::Whole(message) => match message.get("parts").and_then(Value::as_array).map(Vec::as_slice) {
                Some([only]) => empty_text_json(only),
                _ => false,
            },
        }
    }

    /// Removes the last message (a response another replaces), and returns which UI messages had
    /// given it what it held.
    pub(crate) fn pop(&mut self) -> Option<Givers> {
        self.messages.pop();
        if self.whole.last() == Some(&self.messages.len()) {
            self.whole.pop();
        }
        let popped = self.messages.len();
        let givers = (popped < self.givers.len()).then(|| std::mem::take(&mut self.givers[popped]));
        self.givers.truncate(popped);
        givers
    }

    /// Which UI messages gave the message at `index` (from [`Builder::target_index`]) what it holds.
    pub(crate) fn givers(&mut self, index: usize) -> &mut Givers {
        if self.givers.len() <= index {
            self.givers.resize_with(index + 1, Givers::default);
        }
        &mut self.givers[index]
    }

    /// The messages built, put together on the thread pool (see [`Part::ToolReturn`]).
    pub(crate) fn into_messages(self) -> Vec<LoadedMessage> {
        self.messages.into_par_iter().map(Message::into_loaded).collect()
    }

    /// `MessagesBuilder._append_whole`: complete messages, after which a part opens a new message
    /// rather than extend the last of them.
    pub(crate) fn append_whole(&mut self, messages: Vec<LoadedMessage>) {
        for message in messages {
            if let Value::Object(object) = message.into_json() {
                self.whole.push(self.messages.len());
                self.messages.push(Message::Whole(object));
            }
        }
    }

    /// `MessagesBuilder.add`: a part extends the last message of its side, or opens one.
    pub(crate) fn add(&mut self, part: impl Into<Part>, to_request: bool) {
        let part = part.into();
        let kind = if to_request { "request" } else { "response" };
        let open = match self.whole.last() {
            Some(&sealed) if sealed + 1 == self.messages.len() => None,
            _ => self.messages.last_mut(),
        };
        match open {
            Some(last) if last.is_kind(kind) => match last {
                Message::Opened { parts, .. } => parts.push(part),
                Message::Whole(message) => {
                    if let Some(Value::Array(parts)) = message.get_mut("parts") {
                        parts.push(part.into_json());
                    }
                }
            },
            _ => self.messages.push(Message::Opened {
                request: to_request,
                parts: vec![part],
                fields: Map::new(),
                ui_message_id: None,
            }),
        }
    }

    pub(crate) fn checkpoint(&self) -> (usize, usize) {
        let last_len = self.messages.last().map_or(0, Message::part_count);
        (self.messages.len(), last_len)
    }

    /// `_metadata_target`: the index of the first message of `kind` changed since the checkpoint.
    pub(crate) fn target_index(&self, (count, last_len): (usize, usize), kind: &str) -> Option<usize> {
        let start = if count > 0 && self.messages[count - 1].part_count() > last_len {
            count - 1
        } else {
            count
        };
        (start..self.messages.len())
            .find(|&index| self.messages[index].is_kind(kind) && self.whole.binary_search(&index).is_err())
    }

    /// The keys set on the message at `index` (from [`Builder::target_index`]; its parts and kind
    /// are the builder's).
    pub(crate) fn message_mut(&mut self, index: usize) -> &mut Map<String, Value> {
        self.messages[index].fields_mut()
    }

    /// `set_ui_message_id` on the message at `index` (from [`Builder::target_index`]).
    pub(crate) fn set_ui_message_id(&mut self, index: usize, id: String) {
        match &mut self.messages[index] {
            Message::Opened {
                fields, ui_message_id, ..
            } if !fields.contains_key("metadata") => *ui_message_id = Some(id),
            message => set_ui_message_id(message.fields_mut(), id),
        }
    }

    /// `restore_canonical_system`: the `canonical_system` a part carried, onto its response.
    pub(crate) fn restore_canonical_system(&mut self, provider_name: &Value, canonical_system: &Value) {
        let (Value::String(_), Value::String(_)) = (provider_name, canonical_system) else {
            return;
        };
        let Some(response) = self.messages.last_mut().map(Message::fields_mut) else {
            return;
        };
        match response.get("provider_name") {
            None | Some(Value::Null) => {
                response.insert("provider_name".into(), provider_name.clone());
                response.insert("canonical_system".into(), canonical_system.clone());
            }
            Some(name) if name == provider_name && response.get("canonical_system") != Some(canonical_system) => {
                response.insert("canonical_system".into(), Value::Null);
            }
            Some(_) => {}
        }
    }
}

/// `BinaryContent.from_data_uri`: `data:<media type>;base64,<data>`, else `None` (where pydantic-ai raises).
pub(crate) fn from_data_uri(url: &str) -> Option<(String, Vec<u8>)> {
    msgflow_media::parse_data_uri(url).ok()
}

pub(crate) fn binary_json(media_type: &str, bytes: &[u8], vendor_metadata: &Value) -> Value {
    let mut object = Map::new();
    object.insert(
        "data".into(),
        base64::engine::general_purpose::URL_SAFE.encode(bytes).into(),
    );
    object.insert("media_type".into(), media_type.into());
    if vendor_metadata.is_object() {
        object.insert("vendor_metadata".into(), vendor_metadata.clone());
    }
    object.insert("kind".into(), "binary".into());
    Value::Object(object)
}

/// `set_ui_message_id`: the `UIMessage.id`, kept in the reserved `__pydantic_ai__` namespace.
fn set_ui_message_id(target: &mut Map<String, Value>, id: String) {
    let mut entry = Map::with_capacity(1);
    entry.insert("ui_message_id".into(), Value::String(id));
    let metadata = match target.get_mut("metadata") {
        Some(Value::Object(metadata)) => metadata,
        Some(other) => {
            *other = Value::Object(Map::with_capacity(1));
            other.as_object_mut().expect("made an object above")
        }
        None => {
            // The common case: a message the loader built, with no metadata yet.
            let mut metadata = Map::with_capacity(1);
            metadata.insert(INTERNAL_KEY.into(), Value::Object(entry));
            target.insert("metadata".into(), Value::Object(metadata));
            return;
        }
    };
    match metadata.get_mut(INTERNAL_KEY) {
        Some(Value::Object(namespace)) => {
            namespace.extend(entry);
        }
        Some(other) => *other = Value::Object(entry),
        None => {
            metadata.insert(INTERNAL_KEY.into(), Value::Object(entry));
        }
    }
}

/// The messages of a UI format's input and their path: an array of messages, or a request body
/// `{"messages": [...], ...}` whose other fields (`field_label` names them) are reported dropped.
/// The messages are given mutably: a loader moves the values the history keeps out of them.
pub(crate) fn ui_messages<'v>(
    value: &'v mut Value,
    document: usize,
    report: &mut Report,
    expected: &str,
    field_label: &str,
) -> Result<(&'v mut [Value], String), ShapeError> {
    let not_messages = || ShapeError {
        path: "$".into(),
        message: expected.into(),
    };
    match value {
        Value::Array(messages) => Ok((messages.as_mut_slice(), "$".to_owned())),
        Value::Object(body) => {
            if !matches!(body.get("messages"), Some(Value::Array(_))) {
                return Err(not_messages());
            }
            for key in body.keys().filter(|key| key.as_str() != "messages") {
                report.push(
                    LossKind::Dropped,
                    document,
                    format!("$.{key}"),
                    format!("{field_label} `{key}` (a history holds messages only)"),
                );
            }
            match body.get_mut("messages") {
                Some(Value::Array(messages)) => Ok((messages.as_mut_slice(), "$.messages".to_owned())),
                _ => Err(not_messages()),
            }
        }
        _ => Err(not_messages()),
    }
}
