//! Pass 3, pydantic-ai's `_merge_consecutive_messages`: consecutive requests and synthetic
//! responses merged, and the parts between tool results moved after them.

use msgflow_wire::{Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, RawJson};

use super::plan::Plan;
use super::work::{MergedRequest, Origin, Tracked, Work};
use super::Repairer;
use crate::pairing;
use crate::report::MoveReason;

/// The metadata namespace reserved for pydantic-ai, the only metadata a request merge keeps.
const FRAMEWORK_METADATA_KEY: &str = "__pydantic_ai__";

impl Repairer {
    /// Pass 3, pydantic-ai's `_merge_consecutive_messages`.
    pub(super) fn merge_consecutive(&mut self, work: Vec<Work>, plan: &Plan) -> Vec<Work> {
        let mut clean: Vec<Work> = Vec::with_capacity(work.len());
        for mut message in work {
            let merged = match clean.last_mut() {
                Some(last) => match message.message {
                    ModelMessage::Request(_) => self.merge_request(last, &mut message),
                    ModelMessage::Response(_) => merge_response(last, &mut message),
                },
                None => false,
            };
            if merged {
                if let Some(last) = clean.last_mut() {
                    last.inputs.append(std::mem::take(&mut message.inputs));
                }
                continue;
            }
            if message.has_content_between_results(plan) {
                if let Some((_, parts)) = message.request_parts() {
                    self.move_from_between_results(parts);
                }
            }
            clean.push(message);
        }
        clean
    }

    /// pydantic-ai's `_append_request` merge branch; `false` when request `joining` cannot join
    /// `last`.
    ///
    /// The merged parts are a stable sort of the concatenation, results first. `last` keeps its
    /// results and other parts apart ([`MergedRequest`]), so each merge costs only the size of
    /// the joining request.
    fn merge_request(&mut self, last: &mut Work, joining: &mut Work) -> bool {
        let (ModelMessage::Request(last_request), ModelMessage::Request(request)) = (&last.message, &joining.message)
        else {
            return false;
        };
        let non_empty = |instructions: &Field<String>| instructions.get().filter(|text| !text.is_empty()).is_some();
        if non_empty(&last_request.instructions)
            && non_empty(&request.instructions)
            && last_request.instructions.get() != request.instructions.get()
        {
            return false;
        }
        if last.originals.is_empty() {
            let fields = last.own_fields();
            last.originals.push(fields);
        }
        let fields = joining.own_fields();
        last.originals.push(fields);
        let mut merged_state = last.merged.take();
        let (Some((last_request, last_parts)), Some((request, parts))) =
            (last.request_parts(), joining.request_parts())
        else {
            return false;
        };
        let state = merged_state.get_or_insert_with(|| {
            // First merge: split the earlier request's parts, results first.
            let mut results = Vec::with_capacity(last_parts.len());
            let mut rest = Vec::new();
            for tracked in std::mem::take(last_parts) {
                self.sort_part(tracked, &mut results, &mut rest);
            }
            *last_parts = results;
            let namespace = framework_namespace(&last_request.metadata);
            Box::new(MergedRequest { rest, namespace })
        });
        for tracked in std::mem::take(parts) {
            self.sort_part(tracked, last_parts, &mut state.rest);
        }

        // `instructions`: the earlier ones if non-empty, else the later ones (pydantic-ai's `or`).
        let instructions = match std::mem::take(&mut last_request.instructions) {
            Field::Present(text) if !text.is_empty() => Field::Present(text),
            _ => match std::mem::take(&mut request.instructions) {
                Field::Present(text) => Field::Present(text),
                Field::Absent | Field::Null => Field::Null,
            },
        };
        // `timestamp`: the later one if set, else the earlier one.
        let timestamp = match (
            std::mem::take(&mut request.timestamp),
            std::mem::take(&mut last_request.timestamp),
        ) {
            (Field::Present(later), _) => Field::Present(later),
            (_, Field::Present(earlier)) => Field::Present(earlier),
            _ => Field::Null,
        };
        // `metadata`: only the `__pydantic_ai__` namespace, shallow-merged, later keys winning.
        if let Some(later) = framework_namespace(&request.metadata) {
            let merged = state.namespace.get_or_insert_with(serde_json::Map::new);
            for (key, value) in later {
                merged.insert(key, value);
            }
        }
        let mut merged = ModelRequest::new(Vec::new());
        merged.instructions = instructions;
        merged.timestamp = timestamp;
        *last_request = merged;
        last.merged = merged_state;
        true
    }
    /// Appends a part to a merged request's results or other parts; a result that follows other
    /// content in the concatenation has moved.
    fn sort_part(
        &mut self,
        tracked: Tracked<ModelRequestPart>,
        results: &mut Vec<Tracked<ModelRequestPart>>,
        rest: &mut Vec<Tracked<ModelRequestPart>>,
    ) {
        if pairing::sorts_first(&tracked.part) {
            if !rest.is_empty() {
                if let Origin::Input(pos) = tracked.origin {
                    self.moved.insert(pos, MoveReason::ResultsFirst);
                }
            }
            results.push(tracked);
        } else {
            rest.push(tracked);
        }
    }

    /// pydantic-ai's `_move_parts_from_between_tool_results`.
    fn move_from_between_results(&mut self, parts: &mut Vec<Tracked<ModelRequestPart>>) {
        let first = parts.iter().position(|tracked| pairing::is_tool_result(&tracked.part));
        let last = parts.iter().rposition(|tracked| pairing::is_tool_result(&tracked.part));
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let tail = parts.split_off(last + 1);
        let between = parts.split_off(first);
        let mut moved = Vec::new();
        for tracked in between {
            if pairing::stays_among_results(&tracked.part) {
                parts.push(tracked);
            } else {
                if let Origin::Input(pos) = tracked.origin {
                    self.moved.insert(pos, MoveReason::FromBetweenResults);
                }
                moved.push(tracked);
            }
        }
        parts.append(&mut moved);
        parts.extend(tail);
    }
}

/// pydantic-ai's `_append_response` merge branch: only two synthetic responses merge, keeping
/// the earlier one's fields.
fn merge_response(last: &mut Work, joining: &mut Work) -> bool {
    let (ModelMessage::Response(last_response), ModelMessage::Response(response)) = (&last.message, &joining.message)
    else {
        return false;
    };
    if !is_synthetic(last_response) || !is_synthetic(response) {
        return false;
    }
    if last.originals.is_empty() {
        let fields = last.own_fields();
        last.originals.push(fields);
    }
    let fields = joining.own_fields();
    last.originals.push(fields);
    if let (Some(last_parts), Some(parts)) = (last.response_parts(), joining.response_parts()) {
        last_parts.append(parts);
    }
    true
}

/// A response that did not come from a model API: no provider response id (or its legacy
/// `vendor_id` alias, which pydantic-ai loads into it), provider name or model name.
fn is_synthetic(response: &ModelResponse) -> bool {
    response
        .provider_response_id
        .get()
        .or(response.vendor_id.get())
        .is_none()
        && response.provider_name.get().is_none()
        && response.model_name.get().is_none()
}

/// The `__pydantic_ai__` namespace of a request's metadata, when it is an object.
fn framework_namespace(metadata: &Field<RawJson>) -> Option<serde_json::Map<String, serde_json::Value>> {
    match metadata.get().map(RawJson::to_value) {
        Some(serde_json::Value::Object(mut object)) => match object.shift_remove(FRAMEWORK_METADATA_KEY) {
            Some(serde_json::Value::Object(namespace)) => Some(namespace),
            _ => None,
        },
        _ => None,
    }
}

/// A merged request's metadata: `{"__pydantic_ai__": namespace}`, or null without a namespace.
pub(super) fn framework_metadata(namespace: Option<serde_json::Map<String, serde_json::Value>>) -> Field<RawJson> {
    match namespace {
        Some(namespace) => {
            let mut metadata = serde_json::Map::new();
            metadata.insert(FRAMEWORK_METADATA_KEY.to_owned(), serde_json::Value::Object(namespace));
            Field::Present(RawJson::from(serde_json::Value::Object(metadata)))
        }
        None => Field::Null,
    }
}
