//! Native tool search and citations: which tool-search parts are kept, and how they and
//! citations are translated.

use super::form::{NativeBlock, NativeToolPart, Outcome, Profile, ResponseItem, ThinkingMode, ToolResult};
use super::rendering::{args_as_dict, fitted_args, redumped, redumped_map, tool_args, tool_call_id};
use super::thinking::accepts_stateless_artifact;
use super::tool_files::{typed_tool_files, ToolFiles};
use crate::{typed, ExportError, PartLocation};
use msgflow_wire::{ModelResponse, ModelResponsePart};
use serde_json::{Map, Value};

/// `_STATELESS_NATIVE_TOOL_KINDS` (Anthropic): the server-side tools whose results carry their
/// state inline, sent to any model that takes the response's stateless artifacts.
pub(super) const STATELESS_NATIVE_TOOLS: &[&str] = &[
    "web_search",
    "web_search_tool_result",
    "web_fetch",
    "tool_search",
    "advisor",
];

/// `Some` for a server-side part of the `tool-search` kind that loads as its typed class
/// (`NativeToolSearchCallPart`, `NativeToolSearchReturnPart`; no typed server-side class exists for
/// `capability-load`, which stays a base part).
pub(super) fn native_tool_search_kind(
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
) -> Result<Option<typed::TypedKind>, ExportError> {
    let route = match part {
        NativeToolPart::Call(call) => typed::call_route(&call.tool_kind, &call.extra, false)
            .map_err(|reason| ExportError::unsupported(at, path, reason))?,
        NativeToolPart::Return(result) => typed::return_route(&result.tool_kind, &result.outcome, false),
    };
    Ok(match route {
        typed::Route::Typed(kind) => Some(kind),
        typed::Route::Base => None,
    })
}

/// `synthesize_local_tool_search_messages`' `keeps_native`: Anthropic's profile supports
/// `ToolSearchTool`, so a typed tool-search part whose stateless artifacts it takes
/// (`accepts_stateless_artifacts`) keeps its native form; neither OpenAI profile supports it, so
/// every one is translated into its local form (`synthesize_local_from_native_call`/`_return`).
pub(super) fn keeps_native_tool_search(response: &ModelResponse, part: NativeToolPart<'_>, profile: Profile) -> bool {
    profile.thinking == ThinkingMode::Anthropic
        && accepts_stateless_artifact(response, part.provider_name(), profile.system)
}

/// A typed tool-search part in its checked form: the literal name and the validated arguments
/// (`None`: kept as written) or content.
pub(super) enum CheckedToolSearch {
    Call(Option<Map<String, Value>>),
    Return(Map<String, Value>),
}

pub(super) fn checked_tool_search(
    part: NativeToolPart<'_>,
    kind: typed::TypedKind,
    at: PartLocation,
    path: &str,
) -> Result<CheckedToolSearch, ExportError> {
    let refuse = |reason| ExportError::unsupported(at, path, reason);
    match part {
        NativeToolPart::Call(call) => {
            typed::tool_name(&call.tool_name, call.tool_name_absent, kind.tool_name()).map_err(refuse)?;
            Ok(CheckedToolSearch::Call(
                typed::call_args(kind, &call.args).map_err(refuse)?,
            ))
        }
        NativeToolPart::Return(result) => {
            typed::tool_name(&result.tool_name, result.tool_name_absent, kind.tool_name()).map_err(refuse)?;
            Ok(CheckedToolSearch::Return(
                typed::return_content(kind, &result.content).map_err(refuse)?,
            ))
        }
    }
}

/// A typed tool-search return the model does not keep native: `synthesize_local_from_native_return`
/// makes it a `ToolSearchReturnPart` (the same content and call id, no provider fields) in a request
/// of its own, between the response's parts before and after it (`_synthesize_local_response`).
/// It is made after the lookalike notes, so its text is not read for lookalikes.
pub(super) fn translated_tool_search_return(
    response: &ModelResponse,
    part: &ModelResponsePart,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<Option<ToolResult>, ExportError> {
    let ModelResponsePart::BuiltinToolReturn(result) = part else {
        return Ok(None);
    };
    let native = NativeToolPart::Return(result);
    let Some(kind) = native_tool_search_kind(native, at, path)? else {
        return Ok(None);
    };
    if keeps_native_tool_search(response, native, profile) {
        return Ok(None);
    }
    let CheckedToolSearch::Return(content) = checked_tool_search(native, kind, at, path)? else {
        return Ok(None);
    };
    let ToolFiles { content, files, .. } = typed_tool_files(content, at, &format!("{path}.content"), profile)?;
    if !files.is_empty() {
        return Err(ExportError::unsupported(
            at,
            &format!("{path}.content"),
            "a server-side tool search result holding a file item",
        ));
    }
    Ok(Some(ToolResult {
        id: tool_call_id(&result.tool_call_id, at, path)?,
        tool_name: kind.local_tool_name().to_owned(),
        content,
        outcome: Outcome::Success,
        files: Vec::new(),
        file_lookalikes: Vec::new(),
    }))
}

/// A typed tool-search call, or a return kept native (see [`translated_tool_search_return`] for
/// the others).
///
/// * Kept native (Anthropic, `_map_native_tool_call_part`, `_map_tool_search_call_input`): a
///   `server_tool_use` named `tool_search_tool_regex` when `provider_details['strategy']` is
///   `regex`, else `tool_search_tool_bm25`, its input `{"query": ...}` (`{"pattern": ...}` for
///   regex) of its string queries joined by a space, or its arguments as they are without
///   `queries`, with its caller; the result as a `tool_search_tool_result`
///   (`build_tool_search_replay_block`): the `error_code` its provider details record, or a search
///   result whose references name only tools the request declares (none without tools).
/// * Translated (`synthesize_local_from_native_call`): a `search_tools` function call with the
///   same arguments and id and no provider fields.
pub(super) fn native_tool_search_kept(
    response: &ModelResponse,
    part: NativeToolPart<'_>,
    kind: typed::TypedKind,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<Option<ResponseItem>, ExportError> {
    let checked = checked_tool_search(part, kind, at, path)?;
    let keeps_native = keeps_native_tool_search(response, part, profile);
    let nan = || {
        ExportError::unsupported(
            at,
            &format!("{path}.args"),
            "tool arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDKs write differently",
        )
    };
    let details = || match part {
        NativeToolPart::Call(call) => &call.provider_details,
        NativeToolPart::Return(result) => &result.provider_details,
    };
    let details = details()
        .get()
        .and_then(|details| details.try_to_value().ok())
        .unwrap_or(Value::Null);
    match (checked, part) {
        (CheckedToolSearch::Call(fitted), NativeToolPart::Call(call)) => {
            let id = tool_call_id(&call.tool_call_id, at, path)?;
            if !keeps_native {
                let args = match fitted {
                    Some(map) => Some(fitted_args(map, profile)),
                    None => tool_args(&call.args, profile),
                };
                return Ok(Some(ResponseItem::ToolCall {
                    id,
                    name: kind.local_tool_name().to_owned(),
                    args: args.ok_or_else(nan)?,
                    item_id: None,
                    sent_detail: None,
                }));
            }
            let regex = details.get("strategy").and_then(Value::as_str) == Some("regex");
            let args = match fitted {
                Some(map) => map,
                None => args_as_dict(&call.args).ok_or_else(nan)?,
            };
            let input = match args.get("queries") {
                None => args,
                Some(queries) => {
                    let joined = queries
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ");
                    let mut input = Map::new();
                    input.insert(
                        (if regex { "pattern" } else { "query" }).to_owned(),
                        Value::String(joined),
                    );
                    input
                }
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ServerToolUse {
                id,
                name: if regex {
                    "tool_search_tool_regex"
                } else {
                    "tool_search_tool_bm25"
                },
                input: redumped_map(&input).unwrap_or(input),
                caller: part.anthropic_caller(),
            })))
        }
        (CheckedToolSearch::Return(_), NativeToolPart::Return(result)) if keeps_native => {
            let content = match details.get("error_code").filter(|code| !code.is_null()) {
                Some(code) => serde_json::json!({
                    "type": "tool_search_tool_result_error",
                    "error_code": redumped(code).unwrap_or_else(|| code.clone()),
                }),
                None => serde_json::json!({"type": "tool_search_tool_search_result", "tool_references": []}),
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ToolSearchResult {
                tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                content,
            })))
        }
        // A translated return splits the response before `response_item` reads it.
        _ => Ok(None),
    }
}

/// `ToolSearchTool.kind`: the name of a server-side tool search.
pub(super) const TOOL_SEARCH: &str = "tool_search";
