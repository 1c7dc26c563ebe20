//! System-prompt contexts and request-scoped prompts, framework frames, the parts a request
//! sends, and speech.

use super::form::{Profile, RequestItem};
use crate::framing::Source;
use crate::{framing, PartLocation};
use msgflow_wire::{
    Field, ModelMessage, ModelRequestPart, ModelResponse, ModelResponsePart, ModelResponseState, RawJson, Speaker,
    SpeechPart, SystemPromptScope, UserContent, UserPromptContent,
};
use serde_json::Value;

/// Where the request-scoped system prompts go (`_current_request_start`,
/// `_move_request_scoped_prompts_to_tail`).
#[derive(Debug)]
pub(super) struct RequestScoped {
    /// The history index of the first message of the current request (the trailing requests, and
    /// the responses after them): a request-scoped prompt before it has been answered.
    pub(super) current_start: usize,
    /// The history index of the last request sent that keeps a part of its own, which the current
    /// prompts end. A later request holding only a tool-availability delta can still keep a note;
    /// the prompts then move on to it after the pass.
    pub(super) last_request: Option<usize>,
    /// The current request's prompts, in order, until the last request takes them.
    pub(super) moved: Vec<(PartLocation, RequestItem)>,
    /// Whether there were any.
    pub(super) moved_any: bool,
}

impl RequestScoped {
    /// Read from the end of the history, on the messages `prepare_messages` still has at each step
    /// (`_render_system_prompt_contexts` and `_convert_speech_parts` ran before;
    /// `_announce_tool_availability_delta_messages` runs between the two steps, so a request it
    /// leaves without parts ends no current prompt: they stay in the request before it, unless
    /// a note keeps that request, which `prepare` learns only in its pass and mends after it).
    pub(super) fn of(history: &[ModelMessage], sent: &Sent, contexts: &RenderedContexts, profile: Profile) -> Self {
        let mut current_start = history.len();
        while current_start > 0
            && (!sent.at(current_start - 1) || matches!(history[current_start - 1], ModelMessage::Response(_)))
        {
            current_start -= 1;
        }
        while current_start > 0
            && (!sent.at(current_start - 1) || matches!(history[current_start - 1], ModelMessage::Request(_)))
        {
            current_start -= 1;
        }
        // Messages `sent` leaves out at the run's start belong to no request: step back over them.
        while current_start < history.len() && !sent.at(current_start) {
            current_start += 1;
        }
        let last_request = history.iter().enumerate().rposition(|(index, message)| match message {
            ModelMessage::Request(request) => {
                sent.at(index) && (profile.adds_tools || !only_tool_availability(request, contexts.of_message(index)))
            }
            ModelMessage::Response(_) => false,
        });
        RequestScoped {
            current_start,
            last_request,
            moved: Vec::new(),
            moved_any: false,
        }
    }
}

/// What `_render_system_prompt_contexts` makes of a part with a `context_id`.
#[derive(Debug, Clone)]
pub(super) enum Context {
    /// Its `<pyai:context>` element.
    Rendered(String),
    /// A statement that would open its id without content: nothing to state, left out.
    LeftOut,
}

/// `_render_system_prompt_contexts`' state along the history: the ids opened so far, and whether the
/// sentence saying a later element replaces an earlier one has been sent (never by the instruction
/// prefix: msgflow exports without request parameters, so `prefix_states_rule` is false).
#[derive(Debug, Default)]
pub(super) struct Contexts {
    pub(super) opened: Vec<String>,
    pub(super) stated: bool,
}

impl Contexts {
    /// The rendering of each part of a request holding system prompts with a `context_id` (by part
    /// index, `None` for a part without one); `None` for a request holding none.
    /// `first`: whether it is the history's first request.
    pub(super) fn render(
        &mut self,
        request: &msgflow_wire::ModelRequest,
        first: bool,
        profile: Profile,
    ) -> Option<Vec<Option<Context>>> {
        let has_context = |part: &ModelRequestPart| matches!(part, ModelRequestPart::SystemPrompt(system) if system.context_id.get().is_some());
        if !request.parts.iter().any(has_context) {
            return None;
        }
        // `_standing_system_prompt_count` of the first request as it is at this step: capability
        // load deltas are already left out, settings deltas and speech not yet.
        let standing = if first {
            request
                .parts
                .iter()
                .filter(|part| !matches!(part, ModelRequestPart::CapabilityLoadDelta(_)))
                .take_while(|part| {
                    matches!(part, ModelRequestPart::SystemPrompt(system)
                        if matches!(system.scope.get(), None | Some(SystemPromptScope::Conversation)))
                })
                .count()
        } else {
            0
        };
        let standing_end = request
            .parts
            .iter()
            .enumerate()
            .filter(|(_, part)| !matches!(part, ModelRequestPart::CapabilityLoadDelta(_)))
            .nth(standing)
            .map_or(request.parts.len(), |(index, _)| index);
        let mut rendered = vec![None; request.parts.len()];
        // The standing prompt, then the rest of the request: each group's last opening states the
        // rule, once in the history.
        for group in [0..standing_end, standing_end..request.parts.len()] {
            let mut statements = Vec::new();
            let mut last_opening = None;
            for index in group {
                let ModelRequestPart::SystemPrompt(system) = &request.parts[index] else {
                    continue;
                };
                let Some(id) = system.context_id.get() else {
                    continue;
                };
                if !self.opened.contains(id) {
                    if system.content.is_empty() {
                        rendered[index] = Some(Context::LeftOut);
                        continue;
                    }
                    self.opened.push(id.clone());
                    last_opening = Some(index);
                }
                statements.push((index, id, &system.content));
            }
            let states_rule_at = if self.stated { None } else { last_opening };
            for (index, id, content) in statements {
                let element = framing::context_element(
                    id,
                    content,
                    profile.inline_system_prompts,
                    Some(index) == states_rule_at,
                );
                rendered[index] = Some(Context::Rendered(element));
            }
            self.stated |= states_rule_at.is_some();
        }
        Some(rendered)
    }
}

/// What `_render_system_prompt_contexts` makes of the history: the statements of each request
/// holding a part with a `context_id`, by history index. It runs on the whole history ahead of
/// every step that leaves a message out, so a request left out later still opens its ids; most
/// histories hold no such part, and only the requests that do are stored.
#[derive(Debug, Default)]
pub(super) struct RenderedContexts(pub(super) Vec<(usize, Vec<Option<Context>>)>);

impl RenderedContexts {
    pub(super) fn of(history: &[ModelMessage], profile: Profile) -> Self {
        let mut contexts = Contexts::default();
        let mut first = true;
        let mut rendered = Vec::new();
        for (index, message) in history.iter().enumerate() {
            if let ModelMessage::Request(request) = message {
                if let Some(statements) = contexts.render(request, std::mem::replace(&mut first, false), profile) {
                    rendered.push((index, statements));
                }
            }
        }
        RenderedContexts(rendered)
    }

    /// Where the statements of the message at `index` are stored, if it holds any.
    pub(super) fn position(&self, index: usize) -> Option<usize> {
        self.0.binary_search_by_key(&index, |(message, _)| *message).ok()
    }

    /// The statements of the message at `index` (by part index), `None` where it holds none.
    pub(super) fn of_message(&self, index: usize) -> Option<&[Option<Context>]> {
        self.position(index).map(|at| self.0[at].1.as_slice())
    }

    /// [`RenderedContexts::of_message`], for the export to take each statement where it writes its
    /// part.
    pub(super) fn of_message_mut(&mut self, index: usize) -> Option<&mut [Option<Context>]> {
        self.position(index).map(|at| self.0[at].1.as_mut_slice())
    }
}

/// `is_framework_frame`: a text item whose metadata's `__pydantic_ai__` namespace marks it as a
/// frame a capability wrote (`framework_frame: true`, `framework_frame_text`), with the author of
/// its body (`framework_frame_body`: `framework_frame_author`, when it is one of pydantic-ai's
/// `LookalikeSource`s). `None` for a text like any other (other metadata, in that namespace too).
pub(super) fn framework_frame(metadata: &Field<RawJson>) -> Option<Option<Source>> {
    let value = metadata.get()?.try_to_value().ok()?;
    let namespace = value.get("__pydantic_ai__")?.as_object()?;
    if namespace.get("framework_frame") != Some(&Value::Bool(true)) {
        return None;
    }
    let author = match namespace.get("framework_frame_author").and_then(Value::as_str) {
        Some("user") => Some(Source::User),
        Some("tool") => Some(Source::Tool),
        Some("file") => Some(Source::File),
        Some("summary") => Some(Source::Summary),
        Some("retry") => Some(Source::Retry),
        Some("thinking") => Some(Source::Thinking),
        _ => None,
    };
    Some(author)
}

/// `_is_user_channel_frame`: a user prompt holding a frame a capability wrote is a frame on the
/// user channel, which the announcement of the notes goes with.
pub(super) fn holds_framework_frame(part: &ModelRequestPart) -> bool {
    let ModelRequestPart::UserPrompt(user) = part else {
        return false;
    };
    let UserPromptContent::Items(items) = &user.content else {
        return false;
    };
    items.iter().any(|item| match item {
        UserContent::TextContent(text) => framework_frame(&text.metadata).is_some(),
        UserContent::StructuredContent(structured) => framework_frame(&structured.metadata).is_some(),
        _ => false,
    })
}

/// Whether `prepare_messages` leaves a request part out before anything else reads the request:
/// `_drop_capability_load_deltas` (the model sees a capability's load as its instructions and
/// tools), `_project_model_settings_deltas` with `keep=False` (none of the three profiles sets
/// `supports_mid_conversation_effort`, so the current settings go out as the request's own), and
/// `_convert_speech_parts` for the user's speech without a transcript (the audio is not sent
/// without `supports_audio_input`).
///
/// `CapabilityLoadDeltaPart`s are read by `_project_instruction_state` first, in a history with
/// instruction deltas or baselines (`instructions::project`: what they load decides which changes
/// are a loaded capability's).
pub(super) fn left_out(part: &ModelRequestPart) -> bool {
    match part {
        ModelRequestPart::CapabilityLoadDelta(_) | ModelRequestPart::ModelSettingsDelta(_) => true,
        ModelRequestPart::Speech(speech) => speech.speaker == Speaker::User && !has_transcript(speech),
        _ => false,
    }
}

/// Whether every part of the request `prepare_messages` keeps is a tool-availability delta (and
/// there is one); `rendered` is the request's context statements.
pub(super) fn only_tool_availability(
    request: &msgflow_wire::ModelRequest,
    rendered: Option<&[Option<Context>]>,
) -> bool {
    let mut kept = kept_parts(request, rendered);
    kept.next()
        .is_some_and(|part| matches!(part, ModelRequestPart::ToolAvailabilityDelta(_)))
        && kept.all(|part| matches!(part, ModelRequestPart::ToolAvailabilityDelta(_)))
}

/// The parts of a request the steps before `_convert_speech_parts` keep: those [`left_out`]
/// drops, and the context statements `_render_system_prompt_contexts` leaves out, are not
/// among them. `rendered` is the request's context statements.
pub(super) fn kept_parts<'a>(
    request: &'a msgflow_wire::ModelRequest,
    rendered: Option<&'a [Option<Context>]>,
) -> impl Iterator<Item = &'a ModelRequestPart> {
    request.parts.iter().enumerate().filter_map(move |(index, part)| {
        let stated = !matches!(
            rendered.and_then(|rendered| rendered[index].as_ref()),
            Some(Context::LeftOut)
        );
        (!left_out(part) && stated).then_some(part)
    })
}

/// `part.transcript` is truthy.
pub(super) fn has_transcript(speech: &SpeechPart) -> bool {
    speech.transcript.get().is_some_and(|text| !text.is_empty())
}

/// Which messages `_convert_speech_parts` keeps: on a history holding speech, those left with a
/// part (it leaves out every message without one, however it got empty); on any other, all.
pub(super) struct Sent(pub(super) Option<Vec<bool>>);

impl Sent {
    /// `contexts`: the statements `_render_system_prompt_contexts` (which runs first) leaves out
    /// count too.
    pub(super) fn of(history: &[ModelMessage], speech: bool, contexts: &RenderedContexts) -> Self {
        if !speech {
            return Sent(None);
        }
        Sent(Some(
            history
                .iter()
                .enumerate()
                .map(|(index, message)| sends_parts(message, contexts.of_message(index)))
                .collect(),
        ))
    }

    /// Whether the message at `index` is sent.
    pub(super) fn at(&self, index: usize) -> bool {
        self.0.as_ref().is_none_or(|sent| sent[index])
    }
}

/// Whether a message keeps a part through `_convert_speech_parts`, stopping at the first part
/// kept; `rendered` is the request's context statements.
pub(super) fn sends_parts(message: &ModelMessage, rendered: Option<&[Option<Context>]>) -> bool {
    match message {
        ModelMessage::Request(request) => kept_parts(request, rendered).next().is_some(),
        ModelMessage::Response(response) => response.parts.iter().enumerate().any(|(index, part)| {
            !matches!(part, ModelResponsePart::Speech(_))
                || assistant_speech(response, index).is_some_and(|text| !text.is_empty())
        }),
    }
}

/// `assistant_speech_text` (models/_speech.py): the transcript of the speech part at `index`, then
/// `[Interrupted after N ms]` when it records where the listener cut it off, or `[Interrupted]` on
/// the last speech part of an interrupted response that does not; the lines joined by a newline.
/// `None` for a part that is not speech.
pub(super) fn assistant_speech(response: &ModelResponse, index: usize) -> Option<String> {
    let ModelResponsePart::Speech(speech) = response.parts.get(index)? else {
        return None;
    };
    let mut text = speech.transcript.get().cloned().unwrap_or_default();
    let marker = match speech.interrupted_at_ms.get() {
        // A big integer is written as Python prints it, digits only.
        Some(ms) => Some(format!("[Interrupted after {ms} ms]")),
        None if matches!(response.state.get(), Some(ModelResponseState::Interrupted))
            && !response.parts[index + 1..]
                .iter()
                .any(|part| matches!(part, ModelResponsePart::Speech(_))) =>
        {
            Some("[Interrupted]".to_owned())
        }
        None => None,
    };
    if let Some(marker) = marker {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&marker);
    }
    Some(text)
}
