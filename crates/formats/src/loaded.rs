//! The typed history of the messages a loader built ([`LoadedMessage`]): the typed ones taken as
//! they are, the JSON ones read as pydantic-ai reads a history's JSON, a few at a time on the
//! thread pool, with the error the whole history's text gives where they do not read.

use msgflow_wire::ModelMessage;
use rayon::prelude::*;
use serde_json::Value;

/// A message a loader built: typed where the loader built its parts typed (the shapes most
/// messages have), else as the JSON pydantic-ai would read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LoadedMessage {
    /// A message whose every value the loader built as the typed value its JSON reads as.
    Typed(ModelMessage),
    /// A message's JSON, which [`history_of`] reads.
    Json(Value),
}

impl LoadedMessage {
    /// The message's JSON (a typed message's is what it reads back from).
    pub(crate) fn into_json(self) -> Value {
        match self {
            LoadedMessage::Typed(message) => {
                serde_json::to_value(&message).expect("a message a loader built always has JSON")
            }
            LoadedMessage::Json(value) => value,
        }
    }
}

impl From<Value> for LoadedMessage {
    fn from(value: Value) -> Self {
        LoadedMessage::Json(value)
    }
}

/// The typed history of the messages a loader built, or pydantic-ai's reason to refuse it: what
/// reading the whole array's text gives, read a few messages at a time on the thread pool.
///
/// Typed messages are taken as they are. The JSON ones are read in groups, each group as an array
/// of its own, so that each message nests exactly as deep as in the whole history's text (the
/// parser's depth limit counts from the root) and is read as it is there (the parser keeps no state
/// from one item of an array to the next); each value is written and freed on the thread that reads
/// it. Groups (of [`MESSAGES_PER_READ`]), not single messages, because a parse has a cost of its own
/// (the input it keeps, its result) that a message of a few hundred bytes pays as much as its
/// reading. Where a group does not read, the whole text is read, for the error it gives.
pub(crate) fn history_of(messages: Vec<LoadedMessage>) -> Result<Vec<ModelMessage>, String> {
    read_in_groups(messages, MESSAGES_PER_READ)
}

/// How many messages [`history_of`] reads at once.
pub(crate) const MESSAGES_PER_READ: usize = 32;

/// One group of [`read_in_groups`]: its messages in order, the JSON ones read from the group's
/// text, or (where that text does not read) the group's text, kept for the whole text's error.
struct ReadGroup {
    text: Option<msgflow_wire::Input>,
    messages: Option<Vec<ModelMessage>>,
}

/// [`history_of`], reading `per_read` messages at once.
pub(crate) fn read_in_groups(messages: Vec<LoadedMessage>, per_read: usize) -> Result<Vec<ModelMessage>, String> {
    let read: Vec<ReadGroup> = messages.into_par_iter().chunks(per_read).map(read_group).collect();
    if read.iter().all(|group| group.messages.is_some()) {
        let mut history = Vec::with_capacity(
            read.iter()
                .map(|group| group.messages.as_ref().map_or(0, Vec::len))
                .sum(),
        );
        for group in read {
            history.extend(group.messages.expect("every group read"));
        }
        return Ok(history);
    }
    // The whole text: each group's (a typed message written as its JSON).
    let texts: Vec<Vec<u8>> = read
        .into_iter()
        .map(|group| match (group.text, group.messages) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(messages)) => group_text(&messages),
            (None, None) => unreachable!("a group that did not read kept its text"),
        })
        .collect();
    let mut text = Vec::with_capacity(texts.iter().map(Vec::len).sum::<usize>() + 2);
    text.push(b'[');
    let mut first = true;
    for group in &texts {
        let inner = &group[1..group.len() - 1];
        if inner.is_empty() {
            continue;
        }
        if !first {
            text.push(b',');
        }
        first = false;
        text.extend_from_slice(inner);
    }
    text.push(b']');
    drop(texts);
    msgflow_wire::from_vec(text).map_err(|err| err.message().to_owned())
}

/// Reads one group of [`read_in_groups`]: its JSON messages from one text, its typed ones as
/// they are, in the group's order.
fn read_group(group: Vec<LoadedMessage>) -> ReadGroup {
    let json: Vec<&Value> = group
        .iter()
        .filter_map(|message| match message {
            LoadedMessage::Json(value) => Some(value),
            LoadedMessage::Typed(_) => None,
        })
        .collect();
    if json.is_empty() {
        let messages = group
            .into_iter()
            .map(|message| match message {
                LoadedMessage::Typed(message) => message,
                LoadedMessage::Json(_) => unreachable!("no JSON message in the group"),
            })
            .collect();
        return ReadGroup {
            text: None,
            messages: Some(messages),
        };
    }
    let text = group_text(&json);
    let count = json.len();
    drop(json);
    let input = msgflow_wire::Input::from_vec(text).expect("serde_json writes UTF-8");
    let Some(parsed) = input.parse().ok().filter(|messages| messages.len() == count) else {
        // The group's whole text, typed messages too, for the error of the whole history's text.
        let values: Vec<Value> = group.into_iter().map(LoadedMessage::into_json).collect();
        drop(input);
        let text = msgflow_wire::Input::from_vec(group_text(&values)).expect("serde_json writes UTF-8");
        return ReadGroup {
            text: Some(text),
            messages: None,
        };
    };
    let mut parsed = parsed.into_iter();
    let messages = group
        .into_iter()
        .map(|message| match message {
            LoadedMessage::Typed(message) => message,
            LoadedMessage::Json(_) => parsed.next().expect("one parsed message a JSON message"),
        })
        .collect();
    ReadGroup {
        text: None,
        messages: Some(messages),
    }
}

/// The JSON of a group of messages as an array (`[...]`), written into a buffer each thread
/// keeps, so that only the copy the group keeps is allocated, at its size: written into a
/// fresh buffer, the text is reallocated as it grows, several times per group. A group that
/// grew the buffer past `KEPT_BUFFER_BYTES` takes the buffer itself, as it took a fresh one
/// before, so that no thread holds a long group's size once the conversion is over.
fn group_text<V: serde::Serialize>(messages: &[V]) -> Vec<u8> {
    const KEPT_BUFFER_BYTES: usize = 1 << 20;
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        serde_json::to_writer(&mut *buffer, messages).expect("a JSON value always serialises");
        if buffer.capacity() > KEPT_BUFFER_BYTES {
            std::mem::take(buffer)
        } else {
            buffer.as_slice().to_vec()
        }
    })
}
