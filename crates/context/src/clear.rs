//! Clearing old tool results: the content of a tool return is replaced by a short placeholder,
//! the part itself (its tool name, id, timestamp, outcome) stays, so every call keeps its result.
//!
//! Two semantics:
//!
//! * [`clear_tool_results`], msgflow's: results in turns older than the newest `keep_turns` turns
//!   ([`Turns`]), each placeholder saying what was there (`[msgflow: cleared result of `read_file`:
//!   4096 bytes]`). A turn is what a user asked and everything the agent did for it, so the current
//!   task's results are never cleared however many tools it ran.
//! * [`clear_like_harness`], pydantic-ai-harness 0.62.0's `ClearToolResults.compact`: all but the
//!   newest `keep_pairs` call/return pairs (`iter_tool_pairs`), counted in return order,
//!   `outcome: retried` returns left out, with its placeholder and the
//!   `pydantic-ai-harness.compaction.cleared-tool-result.v1` metadata mark (`cleared_return`).

use msgflow_sanitize::Turns;
use msgflow_wire::{
    Field, ModelMessage, ModelRequestPart, ModelResponsePart, RawJson, ToolReturnOutcome, ToolReturnPart,
};
use serde::Serialize;

/// The start of every placeholder [`clear_tool_results`] writes (so clearing twice changes nothing).
pub const CLEARED_PREFIX: &str = "[msgflow: cleared result of ";

/// pydantic-ai-harness's default `ClearToolResults.placeholder`.
pub const HARNESS_PLACEHOLDER: &str = "[tool result cleared]";

/// pydantic-ai-harness's `CLEARED_TOOL_RESULT_METADATA`: the metadata key marking a cleared return.
pub const HARNESS_CLEARED_METADATA_KEY: &str = "pydantic-ai-harness.compaction.cleared-tool-result.v1";

/// One cleared tool return.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClearedResult {
    /// The message.
    pub message: usize,
    /// The part.
    pub part: usize,
    /// The tool.
    pub tool_name: String,
    /// The call id.
    pub tool_call_id: Option<String>,
    /// The bytes of the content's JSON before clearing.
    pub original_bytes: usize,
}

/// Whether a return is held by a typed class in pydantic-ai (`ToolSearchReturnPart`,
/// `LoadCapabilityReturnPart`): its content is structured and re-read by the framework, so it is
/// never cleared (the harness's `cleared_return` leaves it alone too).
fn is_typed(ret: &ToolReturnPart) -> bool {
    let Some(kind) = ret.tool_kind.get() else {
        return false;
    };
    let success = matches!(ret.outcome.get(), None | Some(ToolReturnOutcome::Success));
    ModelRequestPart::TYPED_ROUTES.iter().any(|route| {
        route.part_kind == "tool-return" && route.tool_kind == kind && (success || !route.outcome_success_only)
    })
}

/// The placeholder for a result of `tool_name` whose content took `bytes` bytes.
pub fn placeholder(tool_name: &str, bytes: usize) -> String {
    format!("{CLEARED_PREFIX}`{tool_name}`: {bytes} bytes]")
}

fn replace_content(ret: &mut ToolReturnPart, content: RawJson) {
    ret.content = content;
    // pydantic-ai writes `content_file_digests` only for content that is not a string (the
    // digests of the files inside it); a placeholder is a string, so the key goes, as in its dump.
    ret.content_file_digests = Field::Absent;
}

/// Replaces the content of every tool return in a turn older than the newest `keep_turns` turns
/// with a placeholder naming the tool and the size, and returns what it cleared.
///
/// Returns already cleared and typed returns are left alone, so clearing is idempotent.
pub fn clear_tool_results(history: &mut [ModelMessage], keep_turns: usize) -> Vec<ClearedResult> {
    let turns = Turns::of(history);
    let Some(first_kept) = turns.len().checked_sub(keep_turns) else {
        return Vec::new();
    };
    let end = if first_kept == turns.len() {
        history.len()
    } else {
        turns.starts()[first_kept]
    };
    let mut cleared = Vec::new();
    for (message_index, message) in history[..end].iter_mut().enumerate() {
        let ModelMessage::Request(request) = message else {
            continue;
        };
        for (part_index, part) in request.parts.iter_mut().enumerate() {
            let ModelRequestPart::ToolReturn(ret) = part else {
                continue;
            };
            let already = ret
                .content
                .as_string()
                .is_some_and(|text| text.starts_with(CLEARED_PREFIX));
            if already || is_typed(ret) {
                continue;
            }
            let original_bytes = ret.content.get().len();
            let text = placeholder(&ret.tool_name, original_bytes);
            replace_content(ret, RawJson::string(&text));
            cleared.push(ClearedResult {
                message: message_index,
                part: part_index,
                tool_name: ret.tool_name.clone(),
                tool_call_id: ret.tool_call_id.get().cloned(),
                original_bytes,
            });
        }
    }
    cleared
}

/// The parameters of pydantic-ai-harness's `ClearToolResults` that decide what `compact` does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarnessClear {
    /// `keep_pairs` (default 3).
    pub keep_pairs: usize,
    /// `placeholder` (default [`HARNESS_PLACEHOLDER`]).
    pub placeholder: String,
    /// `exclude_tools`.
    pub exclude_tools: Vec<String>,
    /// `clear_tool_inputs`: also replace the cleared calls' arguments with `'{}'`.
    pub clear_tool_inputs: bool,
}

impl Default for HarnessClear {
    fn default() -> Self {
        HarnessClear {
            keep_pairs: 3,
            placeholder: HARNESS_PLACEHOLDER.to_owned(),
            exclude_tools: Vec::new(),
            clear_tool_inputs: false,
        }
    }
}

/// Adds the harness's cleared mark to a return's metadata as `cleared_return` does: `None`
/// becomes `{KEY: true}`, a dict gets the key (`{**metadata, KEY: True}`: an existing key keeps
/// its place); other metadata stays as it is. Returns `false` when the metadata cannot be read.
fn mark_cleared(ret: &mut ToolReturnPart) -> bool {
    let marked = match ret.metadata.get() {
        None => serde_json::json!({ HARNESS_CLEARED_METADATA_KEY: true }),
        Some(raw) if raw.is_object() => match raw.try_to_value() {
            Ok(serde_json::Value::Object(mut map)) => {
                map.insert(HARNESS_CLEARED_METADATA_KEY.to_owned(), serde_json::Value::Bool(true));
                serde_json::Value::Object(map)
            }
            _ => return false,
        },
        Some(_) => return true,
    };
    ret.metadata = Field::Present(RawJson::from(marked));
    true
}

/// pydantic-ai-harness 0.62.0's `ClearToolResults.compact` on a stored history: the same returns
/// cleared, with the same placeholder and metadata, the rest untouched. Returns how many returns
/// it cleared.
pub fn clear_like_harness(history: &mut [ModelMessage], options: &HarnessClear) -> usize {
    // `iter_tool_pairs`: the calls by id (a later call with the same id wins), then the returns
    // that answer one, in order, except retried ones.
    let mut calls: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for message in history.iter() {
        if let ModelMessage::Response(response) = message {
            for part in &response.parts {
                if let ModelResponsePart::ToolCall(call) = part {
                    if let Some(id) = call.tool_call_id.get().filter(|id| !id.is_empty()) {
                        calls.insert(id.clone(), call.tool_name.clone());
                    }
                }
            }
        }
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for message in history.iter() {
        if let ModelMessage::Request(request) = message {
            for part in &request.parts {
                if let ModelRequestPart::ToolReturn(ret) = part {
                    let retried = matches!(ret.outcome.get(), Some(ToolReturnOutcome::Retried));
                    if let Some((id, tool)) = ret.tool_call_id.get().and_then(|id| calls.get_key_value(id)) {
                        if !retried {
                            pairs.push((id.clone(), tool.clone()));
                        }
                    }
                }
            }
        }
    }
    let clearable = &pairs[..pairs.len().saturating_sub(options.keep_pairs)];
    let clear_ids: std::collections::HashSet<&str> = clearable
        .iter()
        .filter(|(_, tool)| !options.exclude_tools.contains(tool))
        .map(|(id, _)| id.as_str())
        .collect();
    if clear_ids.is_empty() {
        return 0;
    }
    let placeholder = RawJson::string(&options.placeholder);
    let mut cleared = 0;
    for message in history.iter_mut() {
        match message {
            ModelMessage::Request(request) => {
                for part in &mut request.parts {
                    let ModelRequestPart::ToolReturn(ret) = part else {
                        continue;
                    };
                    let selected = ret.tool_call_id.get().is_some_and(|id| clear_ids.contains(id.as_str()));
                    // `str(part.content) != placeholder`: only a string content can equal it.
                    if !selected || ret.content == placeholder || is_typed(ret) {
                        continue;
                    }
                    if mark_cleared(ret) {
                        replace_content(ret, placeholder.clone());
                        cleared += 1;
                    }
                }
            }
            ModelMessage::Response(response) if options.clear_tool_inputs => {
                let cleared_args = RawJson::string("{}");
                for part in &mut response.parts {
                    let ModelResponsePart::ToolCall(call) = part else {
                        continue;
                    };
                    // A `load_capability` call keeps its input: core reads which capability it loads.
                    let loads_capability = call.tool_kind.get().is_some_and(|kind| kind == "capability-load");
                    let selected = call
                        .tool_call_id
                        .get()
                        .is_some_and(|id| clear_ids.contains(id.as_str()));
                    if selected && !loads_capability && call.args.get() != Some(&cleared_args) {
                        call.args = Field::Present(cleared_args.clone());
                    }
                }
            }
            ModelMessage::Response(_) => {}
        }
    }
    cleared
}
