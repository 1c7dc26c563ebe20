//! Response parts: `response_item` and compactions.

use super::citations::{citations_fit_text, responses_annotations, web_search_citation};
use super::contexts::assistant_speech;
use super::form::{Compaction, NativeToolPart, Profile, ResponseItem, ThinkingMode};
use super::native_tools::native_tool_part;
use super::rendering::{fitted_args, redumped, tool_args, tool_call_id};
use super::replay::{thinking_item, Replay};
use super::thinking::{accepts_stateless_artifact, truthy};
use crate::{typed, ExportError, PartLocation};
use msgflow_wire::{ModelResponse, ModelResponsePart, RawJson, Speaker};
use serde_json::{Map, Value};

pub(super) fn response_item(
    response: &ModelResponse,
    part: &ModelResponsePart,
    at: PartLocation,
    path: &str,
    profile: Profile,
    replay: Replay,
    when_mapped: &mut Vec<ExportError>,
) -> Result<Option<ResponseItem>, ExportError> {
    match part {
        ModelResponsePart::Text(text) => {
            // Of a text's provider details, the mappings read only its `citations` (and OpenAI
            // Responses its `phase`, sent only with `openai_supports_phase`, which gpt-5's profile
            // does not set): the rest (logprobs, annotations, ...) is not sent.
            let citations = text
                .provider_details
                .get()
                .and_then(|details| details.try_to_value().ok())
                .and_then(|mut details| details.get_mut("citations").map(Value::take))
                .unwrap_or(Value::Null);
            let sends_item_id = text.id.get().is_some_and(|id| !id.is_empty())
                && replay.should_send_item_id(response, text.provider_name.get(), profile);
            let replays_citations = match profile.thinking {
                // `_map_text_part`: web search citations of a non-empty text go back when the model
                // takes the response's stateless artifacts, the part's own citations still cover
                // the whole text (`citations_fit_text`), and pydantic-ai can rebuild them
                // (`map_citation_for_replay`); claude-sonnet-4-5 supports web search.
                ThinkingMode::Anthropic => {
                    if !text.content.is_empty()
                        && accepts_stateless_artifact(response, text.provider_name.get(), profile.system)
                        && citations_fit_text(text)
                    {
                        let rebuilt: Vec<_> = citations
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(web_search_citation)
                            .collect();
                        if !rebuilt.is_empty() {
                            return Ok(Some(ResponseItem::CitedText {
                                content: text.content.clone(),
                                citations: rebuilt,
                            }));
                        }
                    }
                    false
                }
                // `_map_response_text_part`: the URL and file citations of a text sent with its item
                // id go back as its annotations (`map_responses_citations_for_replay`).
                // `_map_response_text_part`: rebuilt as the annotations of the text item below.
                ThinkingMode::OpenAiResponses => false,
                // `_map_response_text_part` (Chat): the text alone.
                ThinkingMode::OpenAiChat => false,
            };
            if replays_citations {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.provider_details.citations"),
                    "a text part with citations pydantic-ai replays",
                ));
            }
            // `_map_response_text_part`: a text with an id, from this same provider, goes back in an
            // output message item with that id.
            match text.id.get().filter(|id| !id.is_empty()) {
                Some(id) if sends_item_id => Ok(Some(ResponseItem::ItemText {
                    id: id.clone(),
                    // Citations are only replayed with the message id of the output they came from.
                    annotations: responses_annotations(&citations, &text.content, at, path)?,
                    content: text.content.clone(),
                })),
                _ => Ok(Some(ResponseItem::Text(text.content.clone()))),
            }
        }
        ModelResponsePart::ToolCall(call) => {
            // A call of a typed kind loads as its typed class (`LoadCapabilityCallPart`,
            // `ToolSearchCallPart`): its literal name, object arguments validated as the kind's
            // TypedDict (keys reordered), sent as any other call.
            let refuse_typed = |reason| ExportError::unsupported(at, path, reason);
            let (tool_name, typed_args) =
                match typed::call_route(&call.tool_kind, &call.extra, true).map_err(refuse_typed)? {
                    typed::Route::Typed(kind) => (
                        typed::tool_name(&call.tool_name, call.tool_name_absent, kind.tool_name())
                            .map_err(refuse_typed)?
                            .to_owned(),
                        typed::call_args(kind, &call.args).map_err(refuse_typed)?,
                    ),
                    typed::Route::Base => (call.tool_name.clone(), None),
                };
            // Of a call's provider details, OpenAI Chat sends back its `extra_content` (when the
            // model takes the response's stateless artifacts, `_map_response_tool_call_part`) and
            // OpenAI Responses its `namespace` (of OpenAI's own calls, `_map_function_call`);
            // Anthropic sends neither. msgflow refuses those it would send and leaves the rest.
            let details = call
                .provider_details
                .get()
                .and_then(|details| details.try_to_value().ok())
                .unwrap_or(Value::Null);
            // `_map_response_tool_call_part` (Chat): a truthy `extra_content` goes back as the
            // call's own key to a model taking the response's stateless artifacts;
            // `_map_function_call` (Responses): a truthy `namespace` goes back to this same
            // provider (no tools: nothing synthesizes one). Sent as Python holds it once read.
            let detail = |key: &str| details.get(key).filter(|value| truthy(value));
            let sent_detail = match profile.thinking {
                ThinkingMode::Anthropic => None,
                ThinkingMode::OpenAiChat => detail("extra_content")
                    .filter(|_| accepts_stateless_artifact(response, call.provider_name.get(), profile.system)),
                ThinkingMode::OpenAiResponses => {
                    detail("namespace").filter(|_| call.provider_name.get().map(String::as_str) == Some(profile.system))
                }
            }
            .map(|value| redumped(value).unwrap_or_else(|| value.clone()));
            let id = tool_call_id(&call.tool_call_id, at, path)?;
            if id.contains('|') {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.tool_call_id"),
                    "a combined `call_id|id` tool call id",
                ));
            }
            // `_map_function_call`: the item id of a call from this same provider goes back.
            let item_id = call
                .id
                .get()
                .filter(|id| !id.is_empty() && replay.should_send_item_id(response, call.provider_name.get(), profile))
                .cloned();
            let args = match typed_args {
                Some(map) => Some(fitted_args(map, profile)),
                None => tool_args(&call.args, profile),
            };
            Ok(Some(ResponseItem::ToolCall {
                id,
                name: tool_name,
                args: args.ok_or_else(|| {
                    ExportError::unsupported(
                        at,
                        &format!("{path}.args"),
                        "tool arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDKs write differently",
                    )
                })?,
                item_id,
                sent_detail,
            }))
        }
        ModelResponsePart::Thinking(thinking) => thinking_item(response, thinking, at, path, profile, replay),
        ModelResponsePart::BuiltinToolCall(call) => native_tool_part(
            response,
            NativeToolPart::Call(call),
            at,
            path,
            profile,
            replay,
            when_mapped,
        ),
        ModelResponsePart::BuiltinToolReturn(result) => native_tool_part(
            response,
            NativeToolPart::Return(result),
            at,
            path,
            profile,
            replay,
            when_mapped,
        ),
        ModelResponsePart::Compaction(compaction) => compaction_item(response, compaction, at, path, profile),
        // A file the model generated: not sent back by any of the three mappings (`_map_model_response`:
        // `case FilePart(): pass`).
        ModelResponsePart::File(_) => Ok(None),
        // `_convert_speech_parts`: the model's speech is a text part of what the listener heard
        // (`assistant_speech_text`), left out when that is empty.
        ModelResponsePart::Speech(speech) if speech.speaker == Speaker::Assistant => {
            Ok(assistant_speech(response, at.part)
                .filter(|text| !text.is_empty())
                .map(ResponseItem::Text))
        }
        ModelResponsePart::Unknown(_) => Err(ExportError::unknown_kind(
            at,
            path,
            format!("a `{}` part", part.tag().unwrap_or_default()),
        )),
        other => Err(ExportError::unsupported(
            at,
            path,
            &format!("a `{}` part", other.tag().unwrap_or_default()),
        )),
    }
}

/// `STANDING_PROMPT_PLANTED_KEY` (messages.py): stamped on a compaction pydantic-ai's own compact
/// call made, whose window held the standing prompt.
pub(super) const STANDING_PROMPT_PLANTED_KEY: &str = "pydantic_ai_standing_prompt_planted";

/// A response's compaction as the model sends it back, or `None` where it is left out: Anthropic's
/// `_map_compaction_part` sends every one whose stateless artifacts it takes, OpenAI Responses'
/// `_map_response_compaction_part` only one with `encrypted_content` too, OpenAI Chat none. Whether
/// it trims the history before it is `_compaction_part_is_wire_boundary` with the model's
/// `compaction_requires_encrypted_content` (only OpenAI Responses'): encrypted content, or else
/// (Anthropic) a non-empty summary.
pub(super) fn compaction_item(
    response: &ModelResponse,
    compaction: &msgflow_wire::CompactionPart,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<Option<ResponseItem>, ExportError> {
    if profile.thinking == ThinkingMode::OpenAiChat
        || !accepts_stateless_artifact(response, compaction.provider_name.get(), profile.system)
    {
        return Ok(None);
    }
    let details = match compaction.provider_details.get().map(RawJson::try_to_value) {
        None => Map::new(),
        Some(Ok(Value::Object(details))) => details,
        Some(Ok(details)) if !truthy(&details) => Map::new(),
        _ => {
            return Err(ExportError::unsupported(
                at,
                &format!("{path}.provider_details"),
                "a compaction whose provider details are not an object",
            ))
        }
    };
    // As Python holds each value once read (`redumped`: floats as `float` writes them).
    let read = |key: &str| {
        details
            .get(key)
            .map(|value| redumped(value).unwrap_or_else(|| value.clone()))
    };
    let encrypted_content = read("encrypted_content");
    let content = compaction.content.get().cloned();
    let requires_encrypted_content = profile.thinking == ThinkingMode::OpenAiResponses;
    if requires_encrypted_content && encrypted_content.is_none() {
        return Ok(None);
    }
    let boundary =
        encrypted_content.is_some() || (!requires_encrypted_content && content.as_ref().is_some_and(|c| !c.is_empty()));
    Ok(Some(ResponseItem::Compaction(Compaction {
        id: compaction.id.get().cloned(),
        content,
        encrypted_content,
        signature: read("signature"),
        boundary,
        planted: details.get(STANDING_PROMPT_PLANTED_KEY).is_some_and(truthy),
    })))
}
