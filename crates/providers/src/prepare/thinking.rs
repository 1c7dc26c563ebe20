//! Reasoning: the scan that finds what a request carries, thinking carried in a user turn, and
//! the tags it is framed in.

use super::contexts::Sent;
use super::form::{Profile, ThinkingAsText, ThinkingMode, DEFAULT_THINKING_TAGS};
use crate::framing::Tag;
use crate::{framing, PartLocation};
use msgflow_wire::{ModelMessage, ModelRequestPart, ModelResponse, ModelResponsePart, ThinkingPart};
use serde_json::Value;

/// A request sent, for the instruction fallback: where it is in the history, its instructions,
/// where it is in the prepared messages, and whether a tool-availability delta stays in it.
pub(super) type SentRequest<'a> = (usize, Option<&'a String>, usize, bool);

/// The reasoning a response carries into a user turn: where its first such part is, and the
/// lookalike tags of all of them, in order.
pub(super) struct CarriedThinking {
    pub(super) at: PartLocation,
    pub(super) tags: Vec<Tag>,
}

/// What [`prepare`] reads of the whole history ahead of its pass, in one walk over it (a long
/// history is several times the cache, and each walk waits on memory).
pub(super) struct Scan {
    /// `_carried_thinking` for every message: for a response whose thinking this model replays in
    /// a user turn (`_carries_thinking_in_user_turn`), that reasoning's lookalikes; `None`
    /// otherwise.
    pub(super) carried: Vec<Option<CarriedThinking>>,
    /// Whether the history holds a speech part, so that `_convert_speech_parts` runs.
    pub(super) speech: bool,
    /// Whether it holds a system prompt with a `context_id`, which
    /// `_render_system_prompt_contexts` renders ([`RenderedContexts`]).
    pub(super) contexts: bool,
}

pub(super) fn scan(history: &[ModelMessage], profile: Profile) -> Scan {
    let mut carried = Vec::with_capacity(history.len());
    let mut speech = false;
    let mut contexts = false;
    for (message_index, message) in history.iter().enumerate() {
        let response = match message {
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    match part {
                        ModelRequestPart::Speech(_) => speech = true,
                        ModelRequestPart::SystemPrompt(system) if system.context_id.get().is_some() => contexts = true,
                        _ => {}
                    }
                }
                carried.push(None);
                continue;
            }
            ModelMessage::Response(response) => response,
        };
        let mut found: Option<CarriedThinking> = None;
        for (part_index, part) in response.parts.iter().enumerate() {
            let thinking = match part {
                ModelResponsePart::Thinking(thinking) => thinking,
                ModelResponsePart::Speech(_) => {
                    speech = true;
                    continue;
                }
                _ => continue,
            };
            if !carries_thinking_in_user_turn(response, thinking, profile) {
                continue;
            }
            let at = PartLocation {
                message: message_index,
                part: part_index,
            };
            let entry = found.get_or_insert(CarriedThinking { at, tags: Vec::new() });
            // `lookalike_tags(part.content)` of every carried part, concatenated.
            entry.tags.extend(framing::lookalike_tags(&thinking.content));
        }
        carried.push(found);
    }
    Scan {
        carried,
        speech,
        contexts,
    }
}

/// `Model._carries_thinking_in_user_turn`: reasoning with content, on a profile with
/// `mimics_assistant_message_formatting` (Anthropic's), that does not go back as the model's own
/// signed thinking.
pub(super) fn carries_thinking_in_user_turn(
    response: &ModelResponse,
    thinking: &ThinkingPart,
    profile: Profile,
) -> bool {
    if !profile.carries_foreign_thinking || thinking.content.is_empty() {
        return false;
    }
    match profile.thinking {
        // `OpenAIChatModel._carries_thinking_in_user_turn`: the reasoning it writes out as text.
        ThinkingMode::OpenAiChat => match profile.thinking_as_text {
            ThinkingAsText::All => true,
            ThinkingAsText::WithoutField => chat_auto_field(thinking, profile).is_none(),
            ThinkingAsText::None => false,
        },
        // `Model._carries_thinking_in_user_turn`, which OpenAI Responses keeps although its mapping
        // sends a reasoning item for some of those parts.
        ThinkingMode::Anthropic | ThinkingMode::OpenAiResponses => {
            !(signature(thinking).is_some()
                && accepts_stateless_artifact(response, thinking.provider_name.get(), profile.system))
        }
    }
}

/// `_auto_thinking_field`: the field OpenAI Chat's `'auto'` sends a part back in, its id (other
/// than `content`) when it is from this same provider.
pub(super) fn chat_auto_field(thinking: &ThinkingPart, profile: Profile) -> Option<&String> {
    thinking.id.get().filter(|id| {
        !id.is_empty() && *id != "content" && thinking.provider_name.get().map(String::as_str) == Some(profile.system)
    })
}

/// `_replies_noted_later`: the indices of the replies before the request at `index` that the
/// request before them does not note: every reply since the previous request but the one right
/// after it, or every message before `index` when no request came before. Read on the messages
/// `_convert_speech_parts` leaves (`sent`).
pub(super) fn replies_noted_later<'a>(
    history: &'a [ModelMessage],
    index: usize,
    sent: &'a Sent,
) -> impl Iterator<Item = usize> + 'a {
    let mut start = index;
    while start > 0 && !(sent.at(start - 1) && matches!(history[start - 1], ModelMessage::Request(_))) {
        start -= 1;
    }
    // The reply right after the previous request is noted by it.
    let from = if start > 0 {
        (start..index)
            .find(|&index| sent.at(index))
            .map_or(index, |first| first + 1)
    } else {
        0
    };
    (from..index).filter(|&index| sent.at(index) && matches!(history[index], ModelMessage::Response(_)))
}

/// A thinking part's signature, when it has a non-empty one (`part.signature` is truthy).
pub(super) fn signature(thinking: &ThinkingPart) -> Option<&String> {
    thinking.signature.get().filter(|signature| !signature.is_empty())
}

/// `accepts_stateless_artifact` (`_canonical_system.py`) for a model whose `system` and
/// `canonical_system` are both `system` and which has no `compatible_systems` (the three models
/// msgflow exports for): the data's system is the response's `canonical_system` for a part with the
/// response's `provider_name`, and is otherwise derived from the part's name
/// (`stateless_artifact_system`, `_LEGACY_CANONICAL_SYSTEMS`). A Google response's
/// `provider_url` only ever names a Google system, which none of these models accepts.
pub(crate) fn accepts_stateless_artifact(
    response: &ModelResponse,
    provider_name: Option<&String>,
    system: &str,
) -> bool {
    let Some(provider_name) = provider_name else {
        return false;
    };
    if Some(provider_name) == response.provider_name.get() {
        if let Some(canonical) = response.canonical_system.get() {
            return canonical == system;
        }
    }
    let derived = match provider_name.as_str() {
        "google-gla" => "google",
        "google-vertex" => "google-cloud",
        "grok" => "xai",
        "openai-codex" => "openai",
        other => other,
    };
    derived == system || provider_name == system
}

/// Python's truthiness of a JSON value (`None`, `False`, `0`, `""`, `[]`, `{}` are false).
pub(super) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|number| number != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// `render_replayed_thinking` on a profile without `mimics_assistant_message_formatting`: the
/// content between the profile's thinking tags, each on its own line.
pub(crate) fn tagged_thinking(content: &str) -> String {
    let (start, end) = DEFAULT_THINKING_TAGS;
    format!("{start}\n{content}\n{end}")
}
