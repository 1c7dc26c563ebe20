//! What every provider's export shares: pydantic-ai's `Model.prepare_messages` on the parts msgflow
//! exports, reduced to a small intermediate form the three mappings read.
//!
//! Mirrors `pydantic_ai/models/__init__.py` (2.68.0): `prepare_messages` (`_tool_results_first`, the
//! instruction fallback `_instruction_parts_of`), the trim before a compaction the mapping sends
//! (`_trim_messages_before_compaction`, `_standing_prompt_request`) and `pydantic_ai/messages.py`'s
//! rendering of tool calls and returns (`args_as_dict`, `args_as_json_str`, `content_items`,
//! `model_response_str`).
//!
//! msgflow exports a subset of what pydantic-ai can send (see [`crate::Unsupported`]); everything
//! outside it is refused with its location instead of being guessed at.

use msgflow_wire::{ModelMessage, ModelRequestPart, ModelResponsePart, SystemPromptScope};

pub use self::feedback::{dumped_error_details, retry_feedback_model_response};
pub(crate) use self::form::{
    Annotation, BuiltinItem, BuiltinTool, NativeBlock, NativeResultKind, Prepared, PreparedHistory, Profile,
    RequestItem, ResponseItem, SupportedDocuments, Thinking, ThinkingAsText, ThinkingMode, ToolItem, ToolResult,
    UserItem, UserText, WebSearchCitation,
};
pub use self::rendering::{python_json, python_value};
// `dumped`'s tests compare their JSON text with the one the mappings render.
use self::contexts::{holds_framework_frame, left_out, Context, RenderedContexts, RequestScoped, Sent};
use self::notes::{note_lookalike_frames, order_tool_results_by_call, set_part_path, Authored};
#[cfg(test)]
pub(crate) use self::rendering::json_text;
pub use self::rendering::InventedIds;
pub(crate) use self::rendering::{
    content_items, into_plain_texts, into_response_str, model_response_str, tool_text_with_file_references, Taken,
};
use self::replay::Replay;
use self::request::{request_item, system_prompt_item};
use self::response::response_item;
pub(crate) use self::thinking::tagged_thinking;
use self::thinking::{replies_noted_later, scan, CarriedThinking, Scan, SentRequest};
use self::tool_search::translated_tool_search_return;
use crate::framing::{self, NoteContext, Source};
use crate::instructions;
use crate::{ExportError, PartLocation};

mod citations;
mod contexts;
mod feedback;
mod form;
mod native_tools;
mod notes;
mod rendering;
mod replay;
mod request;
mod response;
mod thinking;
mod tool_files;
mod tool_search;

/// Runs the shared part of `prepare_messages` and collects what the mappings read.
pub(crate) fn prepare(history: &[ModelMessage], profile: Profile) -> Result<PreparedHistory, ExportError> {
    // `_project_instruction_state` runs first: every later step reads the history with its
    // baselines dropped and its changes rendered as system prompts. A part keeps the position it
    // has in the history as written (`origins`) for the export's origins and the refusals.
    let projection = instructions::project(history, profile.inline_system_prompts)?;
    let (history, origins) = match &projection {
        Some(projection) => (projection.messages.as_slice(), Some(projection.origins.as_slice())),
        None => (history, None),
    };
    let mut messages = Vec::with_capacity(history.len());
    let mut after_response = false;
    // The first request sent, which the announcement joins (`_announce_in_standing_prompt`).
    let mut first_request_index = None;
    let mut seen_request = false;
    let mut standing_count = 0;
    let mut noted = false;
    // `_note_lookalike_frames`: with inline system prompts, the first request with a note gets the
    // announcement (`framing_announcement` is `'when_needed'` by default).
    let mut pending_announcement = profile.inline_system_prompts;
    // One walk ahead of the pass: per response, the reasoning the model replays in a user turn,
    // with the lookalikes in it (`_carried_thinking_notes` reads them), and whether there is
    // speech or a context statement anywhere.
    let Scan {
        carried,
        speech,
        contexts,
    } = scan(history, profile);
    // `_render_system_prompt_contexts` runs ahead of every step that leaves a message out.
    let mut contexts = if contexts {
        RenderedContexts::of(history, profile)
    } else {
        RenderedContexts::default()
    };
    // `_convert_speech_parts` runs only on a history holding a speech part, and then leaves out
    // every message left without parts (`if request_parts:`), however it got empty.
    let sent = Sent::of(history, speech, &contexts);
    // A part's JSON path, for the errors: written into one buffer, not allocated per part.
    let mut path = String::new();
    // Refusals of parts pydantic-ai fails on only when it maps them, in history order.
    let mut when_mapped: Vec<ExportError> = Vec::new();
    // The requests sent, for the instruction fallback (read again on the history the trim before a
    // compaction leaves).
    let mut requests: Vec<SentRequest<'_>> = Vec::new();
    // How many leading items of the first request sent are its standing prompt as
    // `_standing_system_prompt_count` counts it on the prepared request, which
    // `_standing_prompt_request` keeps when a compaction trims the history.
    let mut standing_items = 0;
    let mut scoped = RequestScoped::of(history, &sent, &contexts, profile);
    // Whether a tool-search result became a request of its own ahead of the history's first request
    // (`_synthesize_local_response`).
    let mut request_before_first = false;
    // Where the request-scoped prompts went: the last request's place in `messages`, and how many.
    let mut scoped_tail: Option<(usize, usize)> = None;
    for (message_index, message) in history.iter().enumerate() {
        if !sent.at(message_index) {
            continue;
        }
        match message {
            ModelMessage::Request(request) => {
                // The request pydantic-ai counts the standing prompt on (`first_request`, after
                // `_convert_speech_parts`), even when a later step leaves it out.
                let first_request = !seen_request;
                seen_request = true;
                // `_announce_tool_availability_delta_messages` (without `adds_tools`) runs on
                // every request holding a delta.
                let mut leading_system = first_request;
                // `_translate_retry_parts`'s `in_standing_run`: the first request's opening run
                // of system prompts, which (unlike the standing prompt count) a request-scoped
                // prompt continues, being a `SystemPromptPart` too.
                let mut feedback_run = first_request;
                // The request's context statements, each taken where its part is written.
                let mut rendered = contexts.of_message_mut(message_index);
                let mut holds_request_scoped = false;
                // Where the request's first current request-scoped prompt was written: it ends the
                // count of the standing prompt `_announce_tool_availability_delta_messages` makes
                // wherever it goes later. An answered one is dropped before that count
                // (`_drop_superseded_request_scoped_prompts`), so it ends nothing there.
                let mut first_scoped_part = None;
                let mut holds_tool_availability = false;
                let mut items = Vec::with_capacity(request.parts.len());
                for (part_index, part) in request.parts.iter().enumerate() {
                    // Left out before the standing prompt is counted: it is what remains that
                    // pydantic-ai counts (`_standing_system_prompt_count` runs after these drops).
                    let context = rendered
                        .as_deref_mut()
                        .and_then(|rendered| rendered.get_mut(part_index).and_then(Option::take));
                    if left_out(part) || matches!(context, Some(Context::LeftOut)) {
                        continue;
                    }
                    let origin = origins.map_or(part_index, |origins| origins[message_index][part_index]);
                    let at = PartLocation {
                        message: message_index,
                        part: origin,
                    };
                    if matches!(part, ModelRequestPart::ToolAvailabilityDelta(_)) {
                        // Announces no tool without tools, but is a part of the request until the
                        // notes are placed, and ends the standing prompt, which
                        // `_standing_system_prompt_count` counts with it in place.
                        leading_system = false;
                        feedback_run = false;
                        holds_tool_availability = true;
                        items.push(Authored {
                            at,
                            item: RequestItem::ToolAvailability,
                            sources: Vec::new(),
                            frame: false,
                        });
                        continue;
                    }
                    set_part_path(&mut path, message_index, origin);
                    if let ModelRequestPart::SystemPrompt(system) = part {
                        if matches!(system.scope.get(), Some(SystemPromptScope::Request)) {
                            // A request-scoped prompt ends the standing prompt
                            // (`_standing_system_prompt_count`) and is a mid-conversation system
                            // prompt for the announcement (`_has_mid_conversation_system_prompt`,
                            // read before the answered ones are dropped). On a profile that does
                            // not clear them itself (none of the three sets
                            // `supports_request_scoped_system_prompts`), one whose request has been
                            // answered is left out (`_drop_superseded_request_scoped_prompts`), and
                            // the current request's go last in the last request
                            // (`_move_request_scoped_prompts_to_tail`), `<system>`-wrapped without
                            // inline system prompts.
                            leading_system = false;
                            noted = true;
                            holds_request_scoped = true;
                            if message_index >= scoped.current_start {
                                first_scoped_part.get_or_insert(at.part);
                                let content = match context {
                                    Some(Context::Rendered(content)) => content,
                                    _ => system.content.clone(),
                                };
                                scoped.moved.push((at, system_prompt_item(content, false, profile)));
                                scoped.moved_any = true;
                            }
                            continue;
                        }
                    }
                    let standing = leading_system && matches!(part, ModelRequestPart::SystemPrompt(_));
                    let in_standing_run = feedback_run;
                    feedback_run = feedback_run && matches!(part, ModelRequestPart::SystemPrompt(_));
                    leading_system = standing;
                    standing_count += usize::from(standing);
                    let conversation_scoped = match part {
                        ModelRequestPart::SystemPrompt(system) => {
                            matches!(system.scope.get(), None | Some(SystemPromptScope::Conversation))
                        }
                        _ => false,
                    };
                    let (item, sources) = match context {
                        Some(Context::Rendered(content)) if conversation_scoped => {
                            (system_prompt_item(content, standing, profile), Vec::new())
                        }
                        _ => request_item(part, standing, in_standing_run, at, &path, profile)?,
                    };
                    let frame = holds_framework_frame(part);
                    items.push(Authored {
                        at,
                        item,
                        sources,
                        frame,
                    });
                }
                if after_response {
                    // `_tool_results_first`: in every request after a response, the tool results go
                    // ahead of the other parts, each group in its order (a stable sort).
                    items.sort_by_key(|authored| !matches!(authored.item, RequestItem::ToolReturn(_)));
                    if first_request && !profile.inline_system_prompts {
                        // `_wrap_non_leading_system_prompts` counts the standing prompt before the
                        // tool results move ahead of it, then wraps the system prompts at or past
                        // that count after the move: a standing prompt the results pushed back is
                        // sent as a `<system>` block, not lifted into the system prompt.
                        for authored in items.iter_mut().skip(standing_count) {
                            if let RequestItem::SystemPrompt { content } = &mut authored.item {
                                let content = std::mem::take(content);
                                authored.item = RequestItem::WrappedSystemPrompt { content };
                            }
                        }
                    }
                }
                if first_request && request_before_first && !profile.inline_system_prompts {
                    // `_wrap_non_leading_system_prompts` keeps the standing prompt only in the first
                    // request, now the tool-search result's: this one's system prompts are wrapped.
                    for authored in &mut items {
                        if let RequestItem::SystemPrompt { content } = &mut authored.item {
                            let content = std::mem::take(content);
                            authored.item = RequestItem::WrappedSystemPrompt { content };
                        }
                    }
                }
                // `_announce_in_standing_prompt`'s `needed`: a mid-conversation system prompt too.
                noted |= items
                    .iter()
                    .any(|authored| matches!(authored.item, RequestItem::WrappedSystemPrompt { .. }));
                let (mut items, frame_at) = note_lookalike_frames(items, first_request, profile);
                // `_frame_index_with_thinking`: reasoning carried into a user turn from the reply
                // right after this request, or from the replies before it no earlier request notes
                // (`_replies_noted_later`), is a frame of this request too.
                let next = (message_index + 1..history.len()).find(|&index| sent.at(index));
                let following = match next.map(|index| (index, &history[index])) {
                    Some((index, ModelMessage::Response(_))) => carried[index].as_ref(),
                    _ => None,
                };
                let earlier: Vec<&CarriedThinking> = replies_noted_later(history, message_index, &sent)
                    .filter_map(|index| carried[index].as_ref())
                    .collect();
                let frame_at = frame_at.or_else(|| (following.is_some() || !earlier.is_empty()).then_some(items.len()));
                if let Some(frame_at) = frame_at {
                    noted = true;
                    if pending_announcement {
                        pending_announcement = false;
                        let at = items
                            .iter()
                            .find(|(_, item)| matches!(item, RequestItem::Note { .. }))
                            .map_or(
                                PartLocation {
                                    message: message_index,
                                    part: 0,
                                },
                                |(at, _)| *at,
                            );
                        let content = framing::lookalike_note_announcement(true);
                        items.insert(frame_at, (at, RequestItem::Note { content }));
                    }
                }
                // `_carried_thinking_notes`: one note for the earlier replies' reasoning (worded
                // "preceding"), then one for the following reply's, last in the request.
                let earlier_note = (!earlier.is_empty()).then(|| CarriedThinking {
                    at: earlier[0].at,
                    tags: earlier
                        .iter()
                        .flat_map(|carried| carried.tags.iter().cloned())
                        .collect(),
                });
                let follows_turn = false; // `_system_entries_follow_user_turn` with a system role
                for (carried, preceding) in [(earlier_note.as_ref(), true), (following, follows_turn)] {
                    let Some(carried) = carried.filter(|carried| !carried.tags.is_empty()) else {
                        continue;
                    };
                    let context = NoteContext {
                        source: Source::Thinking,
                        preceding,
                        system_role: profile.inline_system_prompts,
                        genuine_change: false,
                        tool_name: None,
                        tool_call_id: None,
                    };
                    let content = framing::lookalike_frame_note(context, &carried.tags);
                    items.push((carried.at, RequestItem::Note { content }));
                }
                // `_announce_tool_availability_delta_messages` (without `adds_tools`) runs on every
                // request holding a delta.
                let announces_tools = !profile.adds_tools && holds_tool_availability;
                if announces_tools {
                    // `_announce_tool_availability_delta_messages` sorts the request's parts after
                    // the standing prompt (of the first request, counted with the deltas in place,
                    // and the request-scoped prompts, which end it, not yet moved) with the tool
                    // results first.
                    let head = if first_request {
                        items
                            .iter()
                            .take_while(|(at, item)| {
                                at.part < first_scoped_part.unwrap_or(usize::MAX)
                                    && matches!(
                                        item,
                                        RequestItem::SystemPrompt { .. }
                                            | RequestItem::Note { .. }
                                            | RequestItem::WrappedSystemPrompt { .. }
                                    )
                            })
                            .count()
                    } else {
                        0
                    };
                    items[head..].sort_by_key(|(_, item)| !matches!(item, RequestItem::ToolReturn(_)));
                }
                if first_request_index.is_none() {
                    // Read with a kept tool-availability delta still in place (it is not a system
                    // prompt) and before the request-scoped prompts join the last request (their
                    // scope ends the count); a note is a `SystemPromptPart` (`_FrameworkNote`) where
                    // the profile has inline system prompts, a `<system>` user block otherwise.
                    standing_items = standing_prompt_items(&items, profile);
                }
                if holds_tool_availability {
                    // Sends nothing: `_announce_tool_availability_delta_messages` drops it (no served
                    // deferred tool to announce), or the Responses mapping has no tool to add.
                    items.retain(|(_, item)| !matches!(item, RequestItem::ToolAvailability));
                }
                if let Some(Prepared::Response(previous)) = messages.last() {
                    order_tool_results_by_call(previous, &mut items);
                }
                if Some(message_index) == scoped.last_request {
                    if !scoped.moved.is_empty() {
                        scoped_tail = Some((messages.len(), scoped.moved.len()));
                    }
                    items.append(&mut scoped.moved);
                }
                if (announces_tools || holds_request_scoped) && items.is_empty() {
                    // `_announce_tool_availability_delta_messages` and the request-scoped steps: a
                    // request they leave without parts is left out (deltas announcing nothing, a
                    // prompt answered or moved to the last request).
                    continue;
                }
                if first_request_index.is_none() {
                    first_request_index = Some(messages.len());
                }
                // A tool-availability delta stays in the request where the mapping reads it
                // (`adds_tools`), and is no tool result there.
                let kept_delta = profile.adds_tools && holds_tool_availability;
                requests.push((message_index, request.instructions.get(), messages.len(), kept_delta));
                messages.push(Prepared::Request(items));
            }
            ModelMessage::Response(response) => {
                after_response = true;
                let mut items = Vec::with_capacity(response.parts.len());
                let replay = Replay::of(response, message_index, profile)?;
                // `_synthesize_local_response`: a tool-search result the model does not keep native
                // becomes a request of its own, the parts before it one response (when there are
                // any, whatever they render) and those after it another.
                let mut split = false;
                let mut buffered = 0;
                for (part_index, part) in response.parts.iter().enumerate() {
                    let at = PartLocation {
                        message: message_index,
                        part: part_index,
                    };
                    set_part_path(&mut path, message_index, part_index);
                    if let Some(result) = translated_tool_search_return(response, part, at, &path, profile)? {
                        if buffered > 0 {
                            messages.push(Prepared::Response(std::mem::take(&mut items)));
                        }
                        split = true;
                        buffered = 0;
                        if !seen_request {
                            // The first request from here on (`_wrap_non_leading_system_prompts`,
                            // `_announce_in_standing_prompt`, `_standing_prompt_request`).
                            request_before_first = true;
                            first_request_index.get_or_insert(messages.len());
                        }
                        requests.push((message_index, None, messages.len(), false));
                        messages.push(Prepared::Request(vec![(at, RequestItem::ToolReturn(result))]));
                        continue;
                    }
                    let item = response_item(response, part, at, &path, profile, replay, &mut when_mapped)?;
                    // A part that renders nothing still makes a response of the parts around a
                    // result, but for the model's speech without a transcript, which
                    // `_convert_speech_parts` has taken out before.
                    if item.is_some() || !matches!(part, ModelResponsePart::Speech(_)) {
                        buffered += 1;
                    }
                    if let Some(item) = item {
                        items.push((at, item));
                    }
                }
                if !split || buffered > 0 {
                    messages.push(Prepared::Response(items));
                }
            }
        }
    }
    // `_move_request_scoped_prompts_to_tail` runs after `_synthesize_local_response` and
    // `_announce_tool_availability_delta_messages`: the current request-scoped prompts go to the last
    // request, which may be a tool-search result's, or a request holding only a tool-availability
    // delta that `_note_lookalike_frames` gave a note (the reasoning of the reply after it, carried
    // into a user turn); a request they leave without parts is left out.
    let later_request = scoped_tail.and_then(|(tail, _)| {
        messages
            .iter()
            .rposition(|message| matches!(message, Prepared::Request(_)))
            .filter(|&last| last > tail)
    });
    if let (Some(made), Some((tail, count))) = (later_request, scoped_tail) {
        let Prepared::Request(items) = &mut messages[tail] else {
            unreachable!("the request-scoped prompts joined a request")
        };
        let mut moved = items.split_off(items.len() - count);
        let emptied = items.is_empty();
        if let Prepared::Request(items) = &mut messages[made] {
            items.append(&mut moved);
        }
        if emptied {
            messages.remove(tail);
            requests.retain(|(_, _, prepared, _)| *prepared != tail);
            for (_, _, prepared, _) in &mut requests {
                if *prepared > tail {
                    *prepared -= 1;
                }
            }
            if first_request_index == Some(tail) {
                // The history's only request held nothing but request-scoped prompts, now in the
                // tool-search result's request after it: the steps after the move
                // (`_announce_in_standing_prompt`, `_standing_prompt_request`) take the first
                // request left, and the trim counts its standing prompt again
                // (`_standing_system_prompt_count`).
                first_request_index = messages
                    .iter()
                    .position(|message| matches!(message, Prepared::Request(_)));
                standing_items = match first_request_index.map(|index| &messages[index]) {
                    Some(Prepared::Request(items)) => standing_prompt_items(items, profile),
                    _ => 0,
                };
            }
        }
    }
    let instructions = instruction_fallback(&messages, &requests);
    // `_announce_in_standing_prompt` (`'when_needed'`): without inline system prompts, a history
    // with a note gets the announcement ahead of the first request's standing system prompt, when
    // there is a system prompt or instructions for it to join (every note is a mid-conversation
    // system prompt `<system>`-wrapped, so `needed` is whether there is a note).
    if !profile.inline_system_prompts && noted && (standing_count > 0 || instructions.is_some()) {
        if let Some(Prepared::Request(items)) = first_request_index.and_then(|index| messages.get_mut(index)) {
            let at = items
                .first()
                .map_or(PartLocation { message: 0, part: 0 }, |(at, _)| *at);
            let content = framing::lookalike_note_announcement(false);
            items.insert(0, (at, RequestItem::SystemPrompt { content }));
            standing_items += 1;
        }
    }
    // The mappings trim the prepared history before the latest compaction they send
    // (`Model._trim_before_compaction`, called first in Anthropic's `_map_message` and OpenAI
    // Responses' `_map_messages`); the instruction fallback then reads what is left.
    if profile.thinking != ThinkingMode::OpenAiChat {
        if let Some((trimmed, boundary)) = trim_before_compaction(&mut messages, &requests, standing_items, profile) {
            // What the trim dropped is never mapped, nor refused.
            let when_mapped = when_mapped
                .into_iter()
                .find(|refusal| refusal.location().is_some_and(|at| at > boundary));
            requests = trimmed;
            return Ok(PreparedHistory {
                instructions: instruction_fallback(&messages, &requests),
                messages,
                when_mapped,
            });
        }
    }
    Ok(PreparedHistory {
        messages,
        instructions,
        when_mapped: when_mapped.into_iter().next(),
    })
}

/// `_standing_system_prompt_count` on a prepared request: its opening system prompts, with a note
/// one where the profile has inline system prompts (a `_FrameworkNote` is a `SystemPromptPart`
/// there, a `<system>` user block otherwise).
fn standing_prompt_items(items: &[(PartLocation, RequestItem)], profile: Profile) -> usize {
    items
        .iter()
        .take_while(|(_, item)| match item {
            RequestItem::SystemPrompt { .. } => true,
            RequestItem::Note { .. } => profile.inline_system_prompts,
            _ => false,
        })
        .count()
}

/// `_instruction_parts_of`'s fallback for a history without request parameters, read on the
/// prepared requests: the last one's instructions, or, when that one holds only tool results
/// (and notes pydantic-ai added, `_is_framework_added`), the one's before it.
fn instruction_fallback(messages: &[Prepared], requests: &[SentRequest<'_>]) -> Option<(usize, String)> {
    let only_results = |prepared: usize, kept_delta: bool| {
        !kept_delta
            && matches!(&messages[prepared], Prepared::Request(items) if items
                .iter()
                .all(|(_, item)| matches!(item, RequestItem::ToolReturn(_) | RequestItem::Note { .. })))
    };
    match requests {
        [.., (index, Some(text), _, _)] => Some((*index, (*text).clone())),
        [.., (index, Some(text), _, _), (_, None, prepared, kept_delta)] if only_results(*prepared, *kept_delta) => {
            Some((*index, (*text).clone()))
        }
        _ => None,
    }
}

/// `_trim_messages_before_compaction`: drops the prepared history before the latest compaction
/// the mapping sends that is a wire boundary, and the response's parts before it, keeping the
/// standing prompt as a request of its own (`_standing_prompt_request`: the first request's
/// standing items, and the instructions of the latest request before the boundary holding any).
/// OpenAI Responses passes `standing_prompt_retained=True` (`compaction_retains_standing_prompt`
/// is not set, but its `_map_messages` defaults it), honored for a compaction pydantic-ai's own
/// compact call stamped (`STANDING_PROMPT_PLANTED_KEY`): its standing items are not sent again.
/// Returns the requests left and where the boundary is in the history, or `None` when there is
/// no boundary.
fn trim_before_compaction<'a>(
    messages: &mut Vec<Prepared>,
    requests: &[SentRequest<'a>],
    standing_items: usize,
    profile: Profile,
) -> Option<(Vec<SentRequest<'a>>, PartLocation)> {
    let (message_index, item_index, planted, boundary) =
        messages.iter().enumerate().rev().find_map(|(index, message)| {
            let Prepared::Response(items) = message else {
                return None;
            };
            items
                .iter()
                .rposition(|(_, item)| matches!(item, ResponseItem::Compaction(c) if c.boundary))
                .map(|item| {
                    let planted = matches!(&items[item].1, ResponseItem::Compaction(c) if c.planted);
                    (index, item, planted, items[item].0)
                })
        })?;
    let retained = profile.thinking == ThinkingMode::OpenAiResponses && planted;
    let mut tail = messages.split_off(message_index);
    if let Some(Prepared::Response(items)) = tail.first_mut() {
        items.drain(..item_index);
    }
    let first_request = messages
        .iter()
        .position(|message| matches!(message, Prepared::Request(_)));
    let opening = match first_request.map(|index| &mut messages[index]) {
        Some(Prepared::Request(items)) if !retained => items.drain(..standing_items.min(items.len())).collect(),
        _ => Vec::new(),
    };
    let instructions = requests
        .iter()
        .rev()
        .find(|(_, instructions, prepared, _)| *prepared < message_index && instructions.is_some());
    let mut kept = Vec::with_capacity(requests.len());
    messages.clear();
    if !opening.is_empty() || instructions.is_some() {
        let (index, instructions) =
            instructions.map_or((0, None), |(index, instructions, _, _)| (*index, *instructions));
        kept.push((index, instructions, 0, false));
        messages.push(Prepared::Request(opening));
    }
    let shift = message_index - messages.len();
    kept.extend(
        requests
            .iter()
            .filter(|(_, _, prepared, _)| *prepared > message_index)
            .map(|&(index, instructions, prepared, kept_delta)| (index, instructions, prepared - shift, kept_delta)),
    );
    messages.append(&mut tail);
    Some((kept, boundary))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::rendering::{json_text, redumped};

    #[test]
    fn tool_output_text_has_the_numbers_python_redumps() {
        let value: Value = serde_json::from_str(
            r#"{"z":-0,"f":1.50,"e":1e2,"big":18446744073709551616,"nz":-0.0,"inf":1e400,"s":"-0"}"#,
        )
        .unwrap();
        assert_eq!(
            json_text(&value),
            r#"{"z":0,"f":1.5,"e":100.0,"big":18446744073709551616,"nz":-0.0,"inf":null,"s":"-0"}"#
        );
        // Already as Python writes it: left as it is.
        let plain: Value = serde_json::from_str(r#"[1,2.5,"x",{"a":null}]"#).unwrap();
        assert!(redumped(&plain).is_none());
    }
}
