//! The working history of a repair: each message with the input messages it holds and, once a
//! pass changes them, its parts tagged with where they came from.

use msgflow_wire::{ModelMessage, ModelRequest, ModelRequestPart, ModelResponsePart};

use super::plan::{content_between, Plan};
use crate::pairing::Pos;

/// Where a part of the working history came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// An input part at this (input message, part) position.
    Input(Pos),
    /// The synthesized result with this index in `Repairer::synthesized`.
    Synthesized(usize),
}

pub(super) struct Tracked<P> {
    pub(super) origin: Origin,
    pub(super) part: P,
}

/// A request's or a response's parts, each with where it came from.
pub(super) enum TrackedParts {
    Request(Vec<Tracked<ModelRequestPart>>),
    Response(Vec<Tracked<ModelResponsePart>>),
}

/// A message of the working history. Most messages of a big history pass through untouched, so
/// a message keeps its parts where they were read until a pass changes them (`tracked`): a
/// repair then costs the size of what it changes, not of the history.
pub(super) struct Work {
    /// The message; its `parts` are empty while `tracked` holds them.
    pub(super) message: ModelMessage,
    /// `None`: `message.parts` are the parts of input message `inputs.first`, in input order.
    pub(super) tracked: Option<TrackedParts>,
    /// The input messages it holds (several after a merge; none for an inserted request).
    pub(super) inputs: Inputs,
    /// The own fields of each merged input message, filled when a merge happens.
    pub(super) originals: Vec<serde_json::Value>,
    /// Set once consecutive requests were merged into this one (keeps merging chains linear).
    pub(super) merged: Option<Box<MergedRequest>>,
}

/// The input messages a [`Work`] holds, without an allocation for the usual single one.
#[derive(Default)]
pub(super) struct Inputs {
    pub(super) first: Option<usize>,
    more: Vec<usize>,
}

impl Inputs {
    pub(super) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    pub(super) fn append(&mut self, other: Inputs) {
        match self.first {
            None => *self = other,
            Some(_) => self.more.extend(other.first.into_iter().chain(other.more)),
        }
    }

    pub(super) fn into_vec(self) -> Vec<usize> {
        self.first.into_iter().chain(self.more).collect()
    }
}

impl Work {
    pub(super) fn input(index: usize, message: ModelMessage) -> Self {
        Work {
            message,
            tracked: None,
            inputs: Inputs {
                first: Some(index),
                more: Vec::new(),
            },
            originals: Vec::new(),
            merged: None,
        }
    }

    /// A request the repair adds.
    pub(super) fn inserted(parts: Vec<Tracked<ModelRequestPart>>) -> Self {
        Work {
            message: ModelMessage::from(ModelRequest::new(Vec::new())),
            tracked: Some(TrackedParts::Request(parts)),
            inputs: Inputs::default(),
            originals: Vec::new(),
            merged: None,
        }
    }

    /// The request and its tracked parts (taken out of the message on first use); `None` for a
    /// response.
    pub(super) fn request_parts(&mut self) -> Option<(&mut ModelRequest, &mut Vec<Tracked<ModelRequestPart>>)> {
        let ModelMessage::Request(request) = &mut self.message else {
            return None;
        };
        if self.tracked.is_none() {
            // Untracked parts are an input message's (an inserted request starts out tracked).
            let input = self.inputs.first?;
            self.tracked = Some(TrackedParts::Request(tracked(
                input,
                std::mem::take(&mut request.parts),
            )));
        }
        match self.tracked.as_mut()? {
            TrackedParts::Request(parts) => Some((request, parts)),
            TrackedParts::Response(_) => None,
        }
    }

    /// The response's tracked parts (taken out of the message on first use); `None` for a
    /// request.
    pub(super) fn response_parts(&mut self) -> Option<&mut Vec<Tracked<ModelResponsePart>>> {
        let ModelMessage::Response(response) = &mut self.message else {
            return None;
        };
        if self.tracked.is_none() {
            let input = self.inputs.first?;
            self.tracked = Some(TrackedParts::Response(tracked(
                input,
                std::mem::take(&mut response.parts),
            )));
        }
        match self.tracked.as_mut()? {
            TrackedParts::Response(parts) => Some(parts),
            TrackedParts::Request(_) => None,
        }
    }

    /// Whether a request's parts hold content between tool results (see
    /// [`Repairer::move_from_between_results`](super::Repairer::move_from_between_results)): for parts still as read, as the plan found.
    pub(super) fn has_content_between_results(&self, plan: &Plan) -> bool {
        match (&self.tracked, &self.message, self.inputs.first) {
            (Some(TrackedParts::Request(parts)), _, _) => content_between(parts.iter().map(|t| &t.part)),
            (None, ModelMessage::Request(_), Some(input)) => plan.content_between_results.binary_search(&input).is_ok(),
            _ => false,
        }
    }

    /// Whether the message has no parts (as read, or tracked).
    pub(super) fn is_empty(&self) -> bool {
        match (&self.tracked, &self.message) {
            (Some(TrackedParts::Request(parts)), _) => parts.is_empty(),
            (Some(TrackedParts::Response(parts)), _) => parts.is_empty(),
            (None, ModelMessage::Request(request)) => request.parts.is_empty(),
            (None, ModelMessage::Response(response)) => response.parts.is_empty(),
        }
    }

    /// The message's own fields (every key but `parts`) as JSON.
    pub(super) fn own_fields(&mut self) -> serde_json::Value {
        match &mut self.message {
            ModelMessage::Request(request) => without_parts(request, |request| &mut request.parts),
            ModelMessage::Response(response) => without_parts(response, |response| &mut response.parts),
        }
    }
}

/// `header`'s fields but `parts` (set aside while it is serialised) as JSON.
fn without_parts<T: serde::Serialize, P>(header: &mut T, parts: impl Fn(&mut T) -> &mut Vec<P>) -> serde_json::Value {
    let held = std::mem::take(parts(header));
    let fields = header_fields(header);
    *parts(header) = held;
    fields
}

/// The state of a merged request while further requests may join it: the tracked parts hold
/// the results (which sort first), `rest` the other parts; the framework metadata namespace is
/// kept parsed. Both are folded back in [`Repairer::finish`](super::Repairer::finish).
#[derive(Default)]
pub(super) struct MergedRequest {
    pub(super) rest: Vec<Tracked<ModelRequestPart>>,
    pub(super) namespace: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The fields of a message header (its parts are held apart, so `parts` is empty) without `parts`.
fn header_fields<T: serde::Serialize>(header: &T) -> serde_json::Value {
    match serde_json::to_value(header) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.shift_remove("parts");
            serde_json::Value::Object(object)
        }
        // The wire types always serialise as objects; keep whatever came out rather than panic.
        Ok(other) => other,
        Err(err) => serde_json::Value::String(format!("unserialisable message fields: {err}")),
    }
}

/// `parts` tagged with their positions in input message `message`.
fn tracked<P>(message: usize, parts: Vec<P>) -> Vec<Tracked<P>> {
    parts
        .into_iter()
        .enumerate()
        .map(|(part, p)| Tracked {
            origin: Origin::Input(Pos { message, part }),
            part: p,
        })
        .collect()
}
