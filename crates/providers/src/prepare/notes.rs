//! Lookalike notes: the framing tags authored text holds, noted as pydantic-ai's
//! `_note_lookalike_frames` notes them, and part paths.

use super::form::{Profile, RequestItem, ResponseItem, ToolResult};
use crate::framing::{NoteContext, Source, Tag};
use crate::{framing, PartLocation};

/// `_lookalike_sources`: who wrote a part's text that resembles a frame, with the tags it opens.
pub(super) type Lookalikes = Vec<(Source, Vec<Tag>)>;

/// A request part as stored, with the lookalikes in its text (`_lookalike_sources`).
pub(super) struct Authored {
    pub(super) at: PartLocation,
    pub(super) item: RequestItem,
    pub(super) sources: Lookalikes,
    /// A user prompt holding a framework frame (`_is_user_channel_frame`).
    pub(super) frame: bool,
}

/// What a part of a noted request is, for placing the announcement.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Part,
    /// A part that is a frame on the user channel (retry feedback, a compaction's summary, a user
    /// prompt holding a framework frame): the announcement goes with
    /// it as with a note, but it is no note (`_system_prompts_before_notes` does not move past it).
    Frame,
    Note,
    ToolNote,
}

/// `_request_with_lookalike_notes`: a request's items (tool results first) with a note next to
/// each item whose text has a lookalike, and where the announcement would go (`None` when the
/// request has no note).
///
/// A user prompt's note goes ahead of it (saying "following"), or after it (saying "preceding")
/// on a profile with inline system prompts when only system prompts come before it in the first
/// request (`_lookalike_notes_follow_item`); a tool result's notes go after the request's last
/// tool result (`_with_tool_notes`; ahead of the first only on a profile that takes notes ahead of
/// tool results and has no inline system prompts, which none msgflow exports for is).
pub(super) fn note_lookalike_frames(
    authored: Vec<Authored>,
    first_request: bool,
    profile: Profile,
) -> (Vec<(PartLocation, RequestItem)>, Option<usize>) {
    let system_role = profile.inline_system_prompts;
    let precede_tool_results = profile.notes_precede_tool_results && !system_role;
    let is_system = |item: &RequestItem| {
        matches!(
            item,
            RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. } | RequestItem::Note { .. }
        )
    };
    // `genuine_change`: the request carries the application's own mid-conversation system prompt,
    // and no lookalike in it is the user's.
    // `_leading_system_prompt_count` counts the system prompts the first request opens with, the
    // ones a request-scoped prompt (since left out) kept from the standing prompt, and so wrapped,
    // included.
    let leading = if first_request {
        authored
            .iter()
            .take_while(|part| {
                matches!(
                    part.item,
                    RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. }
                )
            })
            .count()
    } else {
        0
    };
    let has_genuine = authored[leading..].iter().any(|part| {
        matches!(
            part.item,
            RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. }
        )
    });
    let user_lookalike = authored
        .iter()
        .any(|part| part.sources.iter().any(|(source, _)| *source == Source::User));
    let genuine_change = has_genuine && !user_lookalike;
    let mut parts: Vec<(PartLocation, RequestItem, Slot)> = Vec::with_capacity(authored.len());
    let mut tool_notes = Vec::new();
    for Authored {
        at,
        item,
        sources,
        frame,
    } in authored
    {
        let note = |source: Source, tags: &[Tag], preceding: bool, result: Option<&ToolResult>| {
            let context = NoteContext {
                source,
                preceding,
                system_role,
                genuine_change: if source == Source::User {
                    has_genuine
                } else {
                    genuine_change
                },
                tool_name: result.map(|result| result.tool_name.as_str()),
                tool_call_id: result.map(|result| result.id.as_str()),
            };
            RequestItem::Note {
                content: framing::lookalike_frame_note(context, tags),
            }
        };
        if let RequestItem::ToolReturn(result) = &item {
            for (source, tags) in &sources {
                tool_notes.push((
                    at,
                    note(*source, tags, !precede_tool_results, Some(result)),
                    Slot::ToolNote,
                ));
            }
            // The relocated files' lookalikes: their user message comes after the notes.
            if !result.file_lookalikes.is_empty() {
                let file_note = note(Source::Tool, &result.file_lookalikes, false, Some(result));
                tool_notes.push((at, file_note, Slot::ToolNote));
            }
            parts.push((at, item, Slot::Part));
            continue;
        }
        let after = system_role && first_request && parts.iter().all(|(_, item, _)| is_system(item));
        let notes: Vec<_> = sources
            .iter()
            .map(|(source, tags)| (at, note(*source, tags, after, None), Slot::Note))
            .collect();
        // `_is_user_channel_frame`.
        let slot = if frame || matches!(item, RequestItem::Feedback(_)) {
            Slot::Frame
        } else {
            Slot::Part
        };
        if after {
            parts.push((at, item, slot));
            parts.extend(notes);
        } else {
            parts.extend(notes);
            parts.push((at, item, slot));
        }
    }
    let is_result = |(_, item, _): &(PartLocation, RequestItem, Slot)| matches!(item, RequestItem::ToolReturn(_));
    if !tool_notes.is_empty() {
        let index = if precede_tool_results {
            parts.iter().position(is_result)
        } else {
            parts.iter().rposition(is_result).map(|last| last + 1)
        };
        let index = index.expect("a tool note comes with its tool result");
        parts.splice(index..index, tool_notes);
    }
    if !system_role {
        // `_system_prompts_before_notes`: the request's own system prompts after its first note
        // go ahead of it.
        if let Some(first_note) = parts
            .iter()
            .position(|(_, _, slot)| matches!(slot, Slot::Note | Slot::ToolNote))
        {
            let rest = parts.split_off(first_note);
            let (genuine, others): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(_, item, _)| {
                matches!(
                    item,
                    RequestItem::SystemPrompt { .. } | RequestItem::WrappedSystemPrompt { .. }
                )
            });
            parts.extend(genuine);
            parts.extend(others);
        }
    }
    // `_announcement_index`.
    // A tool result whose files go on the user channel is a frame too (`framed`).
    let relocated = |item: &RequestItem| {
        profile.relocates_tool_files && matches!(item, RequestItem::ToolReturn(result) if !result.files.is_empty())
    };
    let frame_at = parts
        .iter()
        .position(|(_, item, slot)| *slot != Slot::Part || relocated(item))
        .map(|mut frame_at| {
            if let Some(last) = parts.iter().rposition(is_result) {
                if profile.notes_precede_tool_results && frame_at > last && parts[frame_at].2 == Slot::ToolNote {
                    frame_at = parts.iter().position(is_result).unwrap_or(frame_at);
                } else if !precede_tool_results && frame_at <= last {
                    frame_at = last + 1;
                }
            }
            if first_request && parts[..frame_at].iter().all(|(_, item, _)| is_system(item)) {
                frame_at = parts.len();
            }
            frame_at
        });
    (parts.into_iter().map(|(at, item, _)| (at, item)).collect(), frame_at)
}

/// `_lookalike_sources` for one text: adds the tags its lookalikes open to `found`.
pub(super) fn add_lookalikes(found: &mut Vec<Tag>, text: &str) {
    for tag in framing::lookalike_tags(text) {
        if !found.contains(&tag) {
            found.push(tag);
        }
    }
}

pub(super) fn sourced(source: Source, found: Vec<Tag>) -> Lookalikes {
    if found.is_empty() {
        Vec::new()
    } else {
        vec![(source, found)]
    }
}

/// Makes `path` the JSON path of a part, `$[message].parts[part]`. Written for every part, though
/// read only in an error: `write!` costs several times as much.
pub(super) fn set_part_path(path: &mut String, message: usize, part: usize) {
    let mut digits = itoa::Buffer::new();
    path.clear();
    path.push_str("$[");
    path.push_str(digits.format(message));
    path.push_str("].parts[");
    path.push_str(digits.format(part));
    path.push(']');
}

/// `_order_tool_results_by_call`: in a request right after a response, the results answering
/// that response's calls are put in the order of the calls (the first call with an id decides),
/// in the positions results already held; every other part keeps its place, and results
/// answering the same call keep their order.
pub(super) fn order_tool_results_by_call(
    previous: &[(PartLocation, ResponseItem)],
    items: &mut [(PartLocation, RequestItem)],
) {
    let mut call_order: Vec<&str> = Vec::new();
    for (_, item) in previous {
        if let ResponseItem::ToolCall { id, .. } = item {
            if !call_order.contains(&id.as_str()) {
                call_order.push(id);
            }
        }
    }
    let rank = |item: &RequestItem| match item {
        RequestItem::ToolReturn(result) => call_order.iter().position(|id| *id == result.id),
        _ => None,
    };
    let ranked: Vec<(usize, usize)> = (0..items.len())
        .filter_map(|index| rank(&items[index].1).map(|rank| (index, rank)))
        .collect();
    // Nearly always already in order.
    if ranked.windows(2).all(|pair| pair[0].1 <= pair[1].1) {
        return;
    }
    // Moved out, sorted (stably) and moved back, not copied.
    let mut answers: Vec<(usize, (PartLocation, RequestItem))> = ranked
        .iter()
        .map(|&(index, rank)| {
            let at = items[index].0;
            (
                rank,
                std::mem::replace(&mut items[index], (at, RequestItem::ToolAvailability)),
            )
        })
        .collect();
    answers.sort_by_key(|(rank, _)| *rank);
    for ((slot, _), (_, answer)) in ranked.into_iter().zip(answers) {
        items[slot] = answer;
    }
}
