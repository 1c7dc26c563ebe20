//! Replay: whether a response's server state and thinking go back to the provider.

use super::form::{Profile, ResponseItem, Thinking, ThinkingMode, ANTHROPIC_THINKING_TAGS};
use super::thinking::{accepts_stateless_artifact, chat_auto_field, signature, tagged_thinking, truthy};
use crate::{framing, ExportError, PartLocation};
use msgflow_wire::{ModelResponse, ThinkingPart};

/// What a response's parts may replay of the provider's server-side state (OpenAI Responses'
/// item ids, `_map_model_response`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Replay {
    /// `same_endpoint`: the response is from another provider (or none), or its server state is
    /// this model's to look up (`accepts_server_state`). Only read where the profile
    /// `replays_own_items`.
    pub(super) same_endpoint: bool,
    pub(super) replays_own_items: bool,
}

impl Replay {
    pub(super) fn of(response: &ModelResponse, message_index: usize, profile: Profile) -> Result<Self, ExportError> {
        let same_endpoint = !profile.replays_own_items
            || response.provider_name.get().map(String::as_str) != Some(profile.system)
            || accepts_server_state(response, message_index)?;
        Ok(Replay {
            same_endpoint,
            replays_own_items: profile.replays_own_items,
        })
    }

    /// `should_send_item_id`: `openai_send_reasoning_ids` (on for `gpt-5`) and
    /// `from_same_provider`, a part of this provider's (or without a name, in a response of this
    /// provider's) from the same endpoint.
    pub(super) fn should_send_item_id(
        self,
        response: &ModelResponse,
        part_provider: Option<&String>,
        profile: Profile,
    ) -> bool {
        let system = Some(profile.system);
        self.replays_own_items
            && self.same_endpoint
            && (part_provider.map(String::as_str) == system
                || (part_provider.is_none() && response.provider_name.get().map(String::as_str) == system))
    }
}

/// `Model.accepts_server_state` for a response with this model's `provider_name`: a response
/// without a `provider_url` is judged by its name; one with a URL, by
/// `OpenAIProvider.shares_server_state_with`: the URL equals the default base URL
/// `https://api.openai.com/v1/` once normalised (`_normalized_url`: lowercase scheme and host,
/// an explicit default port, no trailing `/`). msgflow reads a plain `scheme://host[:port]/path`
/// URL; any other (user info, brackets, a fragment, spaces, a query) is refused.
pub(super) fn accepts_server_state(response: &ModelResponse, message_index: usize) -> Result<bool, ExportError> {
    let Some(url) = response.provider_url.get() else {
        return Ok(true);
    };
    let refuse = || {
        ExportError::unsupported(
            PartLocation {
                message: message_index,
                part: 0,
            },
            &format!("$[{message_index}].provider_url"),
            "a response from this provider at a `provider_url` msgflow does not compare with the API's (pydantic-ai replays item ids only to the endpoint that made them)",
        )
    };
    if url
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '@' | '[' | ']' | '#' | '?' | '\\' | '%'))
        || !url.is_ascii()
    {
        return Err(refuse());
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(refuse());
    };
    let (netloc, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let scheme = scheme.to_ascii_lowercase();
    let (host, port) = match netloc.split_once(':') {
        // A plain decimal port (no sign, no leading zero) that fits: what `urlsplit` reads as is.
        Some((host, port)) => match port.parse::<u16>() {
            Ok(number) if number > 0 && port == number.to_string() => (host, Some(number)),
            _ => return Err(refuse()),
        },
        None => (netloc, None),
    };
    let port = port.or(match scheme.as_str() {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    });
    let normalized = match port {
        Some(port) => format!(
            "{scheme}://{}:{port}{}",
            host.to_ascii_lowercase(),
            path.trim_end_matches('/')
        ),
        None => format!("{scheme}://{}{}", host.to_ascii_lowercase(), path.trim_end_matches('/')),
    };
    Ok(normalized == "https://api.openai.com:443/v1")
}

/// A thinking part as the model sends it back (`None`: left out).
pub(super) fn thinking_item(
    response: &ModelResponse,
    thinking: &ThinkingPart,
    at: PartLocation,
    path: &str,
    profile: Profile,
    replay: Replay,
) -> Result<Option<ResponseItem>, ExportError> {
    let content = &thinking.content;
    let signature = signature(thinking);
    let provider_name = thinking.provider_name.get();
    let id = thinking.id.get().filter(|id| !id.is_empty());
    let accepted = || accepts_stateless_artifact(response, provider_name, profile.system);
    let item = match profile.thinking {
        // `AnthropicModel._map_thinking_part`: a non-empty signature the model accepts goes back as
        // its own block; other reasoning with content is carried in a user turn as an
        // `<assistant_thinking>` frame (`render_replayed_thinking`); empty reasoning is left out.
        ThinkingMode::Anthropic => match signature {
            Some(signature) if accepted() => Thinking::Signed {
                content: content.clone(),
                signature: signature.clone(),
                // `REDACTED_THINKING_PART_IDS` (_thinking_part.py).
                redacted: matches!(id.map(String::as_str), Some("redacted_thinking" | "redacted_content")),
            },
            _ if content.is_empty() => return Ok(None),
            _ if profile.carries_foreign_thinking => Thinking::Carried(framing::assistant_thinking_frame(content)),
            _ => {
                let (start, end) = ANTHROPIC_THINKING_TAGS;
                Thinking::Tagged(format!("{start}\n{content}\n{end}"))
            }
        },
        // `_map_response_thinking_part` with `'auto'`: reasoning from a field of this same provider
        // (`_auto_thinking_field`: an id other than `content`) goes back in that field, the rest
        // as tagged text of the assistant message (`_map_response_thinking_as_text`).
        // `_map_response_thinking_part`: where the part goes depends on the send-back mode
        // (`openai_chat::ChatThinking`); the mapping decides, given the field `'auto'` would use
        // (`_auto_thinking_field`: an id other than `content`, from this same provider).
        ThinkingMode::OpenAiChat => Thinking::Chat {
            content: content.clone(),
            auto_field: chat_auto_field(thinking, profile).cloned(),
        },
        ThinkingMode::OpenAiResponses => {
            // `raw_content` from this provider (gpt-oss raw chain of thought) goes back as the
            // reasoning item's `content`, which msgflow does not reproduce.
            let raw_content = provider_name.map(String::as_str) == Some(profile.system)
                && thinking
                    .provider_details
                    .get()
                    .and_then(|details| details.try_to_value().ok())
                    .is_some_and(|details| details.get("raw_content").is_some_and(truthy));
            if raw_content {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.provider_details"),
                    "a thinking part with raw chain-of-thought content (`provider_details.raw_content`)",
                ));
            }
            // `synthetic_chat_reasoning`: Chat Completions' field names are no reasoning item ids
            // unless the part carries native data.
            let synthetic = matches!(
                thinking.id.get().map(String::as_str),
                Some("content" | "reasoning" | "reasoning_content")
            );
            let native_reasoning = !synthetic || signature.is_some();
            // `openai_supports_encrypted_reasoning_content` and `accepts_stateless_artifacts`.
            let encrypted_content = signature.filter(|_| accepted()).cloned();
            let should_send_item_id = replay.should_send_item_id(response, provider_name, profile);
            match id {
                Some(id) if native_reasoning && (should_send_item_id || encrypted_content.is_some()) => {
                    Thinking::Reasoning {
                        id: id.clone(),
                        encrypted_content,
                        content: content.clone(),
                    }
                }
                // `render_replayed_thinking`: an empty part carried would tell the model the
                // assistant thought nothing, and is left out.
                _ if profile.carries_foreign_thinking && content.is_empty() => return Ok(None),
                _ if profile.carries_foreign_thinking => Thinking::Carried(framing::assistant_thinking_frame(content)),
                _ => Thinking::Tagged(tagged_thinking(content)),
            }
        }
    };
    Ok(Some(ResponseItem::Thinking(item)))
}
