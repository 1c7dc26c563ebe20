//! The history a UI adapter's `load_messages` builds, on JSON: pydantic-ai's `MessagesBuilder`
//! (`pydantic_ai.ui._messages_builder`) and the helpers both UI formats' loaders share.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::loss::{LossKind, Report};
use crate::openai_chat::ShapeError;

/// The reserved namespace of `ModelMessage.metadata` the adapters keep the UI message id in.
pub(crate) const INTERNAL_KEY: &str = "__pydantic_ai__";

/// The history being built: `MessagesBuilder`, on JSON.
pub(crate) struct Builder {
    messages: Vec<Map<String, Value>>,
    /// The indices of the messages [`Builder::append_whole`] added, ascending: `add` never extends
    /// the last of them (`_sealed_tail`), and none is a UI message's metadata target (they carry
    /// their own, `_metadata_target`).
    whole: Vec<usize>,
}

impl Builder {
    /// A builder going on from `history` (the messages before the ones read, as JSON objects; the
    /// loaders refuse a record of anything else before they get here, so nothing is left out).
    pub(crate) fn new(history: Vec<Value>) -> Self {
        let messages = history
            .into_iter()
            .filter_map(|message| match message {
                Value::Object(object) => Some(object),
                _ => None,
            })
            .collect();
        Builder {
            messages,
            whole: Vec::new(),
        }
    }

    /// The last message built.
    pub(crate) fn last(&self) -> Option<&Map<String, Value>> {
        self.messages.last()
    }

    /// Removes the last message (a response another replaces).
    pub(crate) fn pop(&mut self) {
        self.messages.pop();
        if self.whole.last() == Some(&self.messages.len()) {
            self.whole.pop();
        }
    }

    /// The messages built.
    pub(crate) fn into_messages(self) -> Vec<Value> {
        self.messages.into_iter().map(Value::Object).collect()
    }

    /// `MessagesBuilder._append_whole`: complete messages (JSON objects), after which a part opens
    /// a new message rather than extend the last of them.
    pub(crate) fn append_whole(&mut self, messages: Vec<Value>) {
        for message in messages {
            if let Value::Object(object) = message {
                self.whole.push(self.messages.len());
                self.messages.push(object);
            }
        }
    }

    /// `MessagesBuilder.add`: a part extends the last message of its side, or opens one.
    pub(crate) fn add(&mut self, part: Value, to_request: bool) {
        let kind = if to_request { "request" } else { "response" };
        let open = match self.whole.last() {
            Some(&sealed) if sealed + 1 == self.messages.len() => None,
            _ => self.messages.last_mut(),
        };
        match open {
            Some(last) if is_kind(last, kind) => {
                if let Some(Value::Array(parts)) = last.get_mut("parts") {
                    parts.push(part);
                }
            }
            _ => {
                let mut message = Map::new();
                message.insert("parts".into(), Value::Array(vec![part]));
                message.insert("kind".into(), kind.into());
                self.messages.push(message);
            }
        }
    }

    pub(crate) fn checkpoint(&self) -> (usize, usize) {
        let last_len = self.messages.last().map_or(0, part_count);
        (self.messages.len(), last_len)
    }

    /// `_metadata_target`: the first message of `kind` changed since the checkpoint.
    pub(crate) fn target(&mut self, checkpoint: (usize, usize), kind: &str) -> Option<&mut Map<String, Value>> {
        let index = self.target_index(checkpoint, kind)?;
        Some(&mut self.messages[index])
    }

    /// The index of [`Builder::target`]'s message, for a caller that looks for more than one kind.
    pub(crate) fn target_index(&self, (count, last_len): (usize, usize), kind: &str) -> Option<usize> {
        let start = if count > 0 && part_count(&self.messages[count - 1]) > last_len {
            count - 1
        } else {
            count
        };
        (start..self.messages.len())
            .find(|&index| is_kind(&self.messages[index], kind) && self.whole.binary_search(&index).is_err())
    }

    /// The message at `index` (from [`Builder::target_index`]).
    pub(crate) fn message_mut(&mut self, index: usize) -> &mut Map<String, Value> {
        &mut self.messages[index]
    }

    /// `restore_canonical_system`: the `canonical_system` a part carried, onto its response.
    pub(crate) fn restore_canonical_system(&mut self, provider_name: &Value, canonical_system: &Value) {
        let (Value::String(_), Value::String(_)) = (provider_name, canonical_system) else {
            return;
        };
        let Some(response) = self.messages.last_mut() else {
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

/// Whether a message built (or recorded: a lossless record may hold anything) is of `kind`.
fn is_kind(message: &Map<String, Value>, kind: &str) -> bool {
    message.get("kind").is_some_and(|value| value == kind)
}

/// How many parts a message built (or recorded) has.
fn part_count(message: &Map<String, Value>) -> usize {
    message.get("parts").and_then(Value::as_array).map_or(0, Vec::len)
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
pub(crate) fn set_ui_message_id(target: &mut Map<String, Value>, id: String) {
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
