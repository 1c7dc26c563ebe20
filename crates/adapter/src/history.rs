//! Whole-history helpers (the seed document's `adapter.py` functions).

use std::collections::HashSet;

use msgflow_canonical::CanonicalMessage;
use msgflow_wire::ModelMessage;

use crate::error::AdapterError;
use crate::from_canonical::from_canonical;
use crate::to_canonical::to_canonical;

/// Converts every message of a history.
pub fn to_canonical_history(messages: &[ModelMessage]) -> Vec<CanonicalMessage> {
    messages.iter().map(to_canonical).collect()
}

/// Converts every message back; the first failure is returned with its message index.
pub fn from_canonical_history(messages: &[CanonicalMessage]) -> Result<Vec<ModelMessage>, AdapterError> {
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            from_canonical(message).map_err(|source| AdapterError::InMessage {
                index,
                source: Box::new(source),
            })
        })
        .collect()
}

/// The message's text and thought contents joined with one space
/// ([`CanonicalMessage::text_content`]).
pub fn get_content(message: &ModelMessage) -> String {
    to_canonical(message).text_content()
}

/// The message's tool call ids in part order ([`CanonicalMessage::tool_call_ids`]).
pub fn get_tool_call_ids(message: &ModelMessage) -> Vec<String> {
    to_canonical(message)
        .tool_call_ids()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The ids the message's tool returns answer, in part order ([`CanonicalMessage::tool_return_ids`]).
pub fn get_tool_return_ids(message: &ModelMessage) -> Vec<String> {
    to_canonical(message)
        .tool_return_ids()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Tool call ids that no tool return anywhere in the history answers, in order of first call.
///
/// The seed's semantics: all call ids minus all return ids, **ignoring position** (a return
/// before its call, or many messages later, counts) and **by set** (two calls sharing an id are
/// both answered by one return). Unlike tunacode, every return form counts: `tool-return` of
/// any outcome, `builtin-tool-return` and a legacy `retry-prompt` with a tool name. A call with no
/// id has the id `""`. The precise, position-aware check pydantic-ai applies lives in
/// msgflow-sanitize.
pub fn find_dangling_tool_calls(messages: &[ModelMessage]) -> Vec<String> {
    let canonical = to_canonical_history(messages);
    let returned: HashSet<&str> = canonical.iter().flat_map(CanonicalMessage::tool_return_ids).collect();
    let mut seen = HashSet::new();
    canonical
        .iter()
        .flat_map(CanonicalMessage::tool_call_ids)
        .filter(|id| !returned.contains(id) && seen.insert(*id))
        .map(str::to_owned)
        .collect()
}
