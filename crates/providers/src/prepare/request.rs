//! Request parts: `request_item` and the system prompt item.

use std::borrow::Cow;

use super::contexts::framework_frame;
use super::feedback::{dump_error_details, retry_feedback, FeedbackCause};
use super::form::{Outcome, Profile, RequestItem, ToolContent, ToolResult, UserItem, UserText};
use super::notes::{add_lookalikes, sourced, Lookalikes};
use super::rendering::{content_items_unwrapped, tool_call_id};
use super::tool_files::{tool_files, typed_tool_files, ToolFiles};
use crate::framing::Source;
use crate::media::{File, FileKind};
use crate::tool_content::FileRecord;
use crate::{framing, typed, ExportError, PartLocation};
use msgflow_wire::{
    CachePointTtl, ModelRequestPart, RetryCause, Speaker, StructuredContent, SystemPromptScope, ToolReturnOutcome,
    UserContent, UserPromptContent,
};
use serde_json::Value;

pub(super) fn request_item(
    part: &ModelRequestPart,
    standing: bool,
    in_standing_run: bool,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<(RequestItem, Lookalikes), ExportError> {
    match part {
        ModelRequestPart::SystemPrompt(system) => {
            if let Some(SystemPromptScope::Unknown(scope)) = system.scope.get() {
                return Err(ExportError::unsupported(
                    at,
                    &format!("{path}.scope"),
                    &format!("a system prompt with the scope `{scope}`"),
                ));
            }
            Ok((
                system_prompt_item(system.content.clone(), standing, profile),
                Vec::new(),
            ))
        }
        ModelRequestPart::UserPrompt(user) => match &user.content {
            UserPromptContent::Text(text) => {
                let mut found = Vec::new();
                add_lookalikes(&mut found, text);
                Ok((
                    RequestItem::User(UserText::Text(text.clone())),
                    sourced(Source::User, found),
                ))
            }
            UserPromptContent::Items(items) => {
                let mut contents = Vec::with_capacity(items.len());
                // `_lookalike_texts`: the user's own texts are checked first, then the text
                // files, each source getting its own note.
                let mut found = Vec::new();
                let mut in_files = Vec::new();
                let mut frames = Vec::new();
                for (item_index, item) in items.iter().enumerate() {
                    let item_path = format!("{path}.content[{item_index}]");
                    match item {
                        UserContent::Text(text) => {
                            add_lookalikes(&mut found, text);
                            contents.push(UserItem::Text(text.clone()));
                        }
                        // `str() | TextContent()`: its text, like a string's (`_text_of`), unless it
                        // is a frame a capability wrote (`is_framework_frame`), whose body is checked
                        // apart, after the files.
                        UserContent::TextContent(text) => {
                            match framework_frame(&text.metadata) {
                                None => add_lookalikes(&mut found, &text.content),
                                Some(author) => frames.push((author, Cow::Borrowed(text.content.as_str()))),
                            }
                            contents.push(UserItem::Text(text.content.clone()));
                        }
                        // `StructuredContent` is a `TextContent`: models without structured input are
                        // sent its `content`, the value rendered once when the item was made. An item
                        // stored without one is rendered when loaded (`StructuredContent.render`).
                        UserContent::StructuredContent(structured) => {
                            let content = match structured.content.get().filter(|content| !content.is_empty()) {
                                Some(content) => Cow::Borrowed(content.as_str()),
                                None => Cow::Owned(rendered_on_load(structured, at, &item_path)?),
                            };
                            contents.push(UserItem::Text(content.to_string()));
                            match framework_frame(&structured.metadata) {
                                None => add_lookalikes(&mut found, &content),
                                Some(author) => frames.push((author, content)),
                            }
                        }
                        UserContent::CachePoint(point) => {
                            let one_hour = match point.ttl.get() {
                                None | Some(CachePointTtl::V5m) => false,
                                Some(CachePointTtl::V1h) => true,
                                // `Literal['5m', '1h']`: pydantic-ai does not load the history.
                                Some(CachePointTtl::Unknown(ttl)) => {
                                    return Err(ExportError::unsupported(
                                        at,
                                        &format!("{item_path}.ttl"),
                                        &format!("a cache point with the ttl `{ttl}`"),
                                    ))
                                }
                            };
                            contents.push(UserItem::CachePoint {
                                at,
                                path: item_path,
                                one_hour,
                            });
                        }
                        other => match File::read(other, at, &item_path)? {
                            Some(file) => {
                                // `_text_file_content`: a text-like binary file is read as UTF-8
                                // (`errors='replace'`) for lookalikes.
                                if let FileKind::Binary { data, media_type, .. } = &file.kind {
                                    if msgflow_media::is_text_like_media_type(media_type) {
                                        let text = String::from_utf8_lossy(data);
                                        add_lookalikes(&mut in_files, &text);
                                    }
                                }
                                contents.push(UserItem::File(file));
                            }
                            None => {
                                let what = format!("a `{}` user content item", other.tag().unwrap_or_default());
                                return Err(if matches!(other, UserContent::Unknown(_)) {
                                    ExportError::unknown_kind(at, &item_path, what)
                                } else {
                                    ExportError::unsupported(at, &item_path, &what)
                                });
                            }
                        },
                    }
                }
                let mut sources = sourced(Source::User, found);
                sources.extend(sourced(Source::File, in_files));
                // `_lookalike_texts`: then each frame's body, without the frame's own tags, as its
                // author's (`framework_frame_body`); a frame naming no known author is the
                // framework's own and is not read. Each author's tags join that author's note.
                for (author, content) in frames {
                    let Some(author) = author else { continue };
                    let mut tags = Vec::new();
                    add_lookalikes(&mut tags, framing::without_own_tags(&content));
                    if tags.is_empty() {
                        continue;
                    }
                    match sources.iter_mut().find(|(source, _)| *source == author) {
                        Some((_, known)) => {
                            for tag in tags {
                                if !known.contains(&tag) {
                                    known.push(tag);
                                }
                            }
                        }
                        None => sources.push((author, tags)),
                    }
                }
                Ok((RequestItem::User(UserText::Items(contents)), sources))
            }
        },
        ModelRequestPart::ToolReturn(ret) => {
            // A success of a typed kind loads as its typed class (`LoadCapabilityReturnPart`,
            // `ToolSearchReturnPart`): its literal name, its content validated as the kind's
            // TypedDict (keys reordered), sent as any other return.
            let typed_kind = match typed::return_route(&ret.tool_kind, &ret.outcome, true) {
                typed::Route::Typed(kind) => Some(kind),
                typed::Route::Base => None,
            };
            let refuse_typed = |reason| ExportError::unsupported(at, path, reason);
            let tool_name = match typed_kind {
                Some(kind) => typed::tool_name(&ret.tool_name, ret.tool_name_absent, kind.tool_name())
                    .map_err(refuse_typed)?
                    .to_owned(),
                None => ret.tool_name.clone(),
            };
            let typed_content = typed_kind
                .map(|kind| typed::return_content(kind, &ret.content).map_err(refuse_typed))
                .transpose()?;
            let id = tool_call_id(&ret.tool_call_id, at, path)?;
            let outcome = match ret.outcome.get() {
                None | Some(ToolReturnOutcome::Success) => Outcome::Success,
                Some(ToolReturnOutcome::Failed) => Outcome::Failed,
                Some(ToolReturnOutcome::Retried) => Outcome::Retried,
                Some(ToolReturnOutcome::Denied | ToolReturnOutcome::Interrupted) => Outcome::Other,
                Some(ToolReturnOutcome::Unknown(_)) => {
                    return Err(ExportError::unsupported(
                        at,
                        &format!("{path}.outcome"),
                        "an unknown outcome",
                    ))
                }
            };
            let content_path = [path, ".content"].concat();
            let dumped = (!outcome.is_error() && typed_content.is_none())
                .then(|| ToolContent::of_success(ret.content.get()))
                .flatten();
            let ToolFiles {
                content,
                files,
                lookalike_texts,
            } = match (dumped, typed_content) {
                (Some(content), _) => ToolFiles {
                    content,
                    files: Vec::new(),
                    lookalike_texts: None,
                },
                (None, Some(content)) => typed_tool_files(content, at, &content_path, profile)?,
                (None, None) => {
                    let content = ret.content.try_to_value().map_err(|_| {
                        ExportError::unsupported(at, &content_path, "tool output that is not plain JSON")
                    })?;
                    let record = FileRecord::of(&ret.content_file_digests)
                        .map_err(|why| ExportError::unsupported(at, &format!("{path}.content_file_digests"), why))?;
                    tool_files(content, &record, at, &content_path, profile)?
                }
            };
            let mut result = ToolResult {
                id,
                tool_name,
                content,
                outcome,
                files,
                file_lookalikes: Vec::new(),
            };
            // `_lookalike_sources` of the part as written (before its unreadable files are replaced):
            // the text items of `content_items(mode='str', wrap_if_error=False)`, a text file's text
            // in its place; where the files are relocated, the files' apart
            // (`_tool_result_lookalike_tags`).
            let texts = match lookalike_texts {
                Some(texts) => texts,
                // Written again, the content holds no lookalike it does not hold as written.
                None if !framing::json_may_hold_lookalike(ret.content.get()) => Vec::new(),
                None => content_items_unwrapped(&result)
                    .into_iter()
                    .map(|text| (text, false))
                    .collect(),
            };
            let mut found = Vec::new();
            let mut in_files = Vec::new();
            for (text, from_file) in texts {
                let into = if from_file && profile.relocates_tool_files {
                    &mut in_files
                } else {
                    &mut found
                };
                add_lookalikes(into, &text);
            }
            result.file_lookalikes = in_files;
            Ok((RequestItem::ToolReturn(result), sourced(Source::Tool, found)))
        }
        // `_translate_legacy_retry_part` (run when 2.68.0 loads a history): a legacy retry prompt
        // naming a tool is that call's result again, with `outcome='retried'`, its error details
        // dumped by `_dump_error_details`. (One naming no tool is retry feedback, which pydantic-ai
        // fences in `<pyai:validation_errors>` or `<pyai:retry_feedback>`: not exported.)
        ModelRequestPart::RetryPrompt(retry) if retry.tool_name.get().is_some() => {
            let id = tool_call_id(&retry.tool_call_id, at, path)?;
            let content_path = [path, ".content"].concat();
            let content = match retry.content.try_to_value() {
                Ok(Value::String(text)) => Value::String(text),
                Ok(Value::Array(details)) => dump_error_details(details).ok_or_else(|| {
                    ExportError::unsupported(at, &content_path, "retry error details pydantic-ai does not load")
                })?,
                _ => {
                    return Err(ExportError::unsupported(
                        at,
                        &content_path,
                        "retry content that is neither text nor error details",
                    ))
                }
            };
            let result = ToolResult {
                id,
                tool_name: retry.tool_name.get().cloned().unwrap_or_default(),
                content: ToolContent::Read(content),
                outcome: Outcome::Retried,
                // The details are no `ToolReturnContent` pydantic-ai reads files from.
                files: Vec::new(),
                file_lookalikes: Vec::new(),
            };
            let mut found = Vec::new();
            for text in content_items_unwrapped(&result) {
                add_lookalikes(&mut found, &text);
            }
            Ok((RequestItem::ToolReturn(result), sourced(Source::Tool, found)))
        }
        // `_translate_legacy_retry_part`: one naming no tool is the feedback it always meant, its
        // cause told by its content.
        ModelRequestPart::RetryPrompt(retry) => {
            let cause = if retry.content.is_string() {
                FeedbackCause::ModelRetry
            } else {
                FeedbackCause::ValidationError
            };
            retry_feedback(&retry.content, cause, in_standing_run, at, path, profile)
        }
        ModelRequestPart::RetryFeedback(feedback) => {
            let cause = match &feedback.retry.cause {
                RetryCause::ValidationError => FeedbackCause::ValidationError,
                RetryCause::ModelRetry => FeedbackCause::ModelRetry,
                RetryCause::NoOutput => FeedbackCause::NoOutput,
                other => {
                    return Err(ExportError::unsupported(
                        at,
                        &format!("{path}.retry.cause"),
                        &format!("retry feedback with the cause `{}`", other.as_str()),
                    ))
                }
            };
            retry_feedback(&feedback.content, cause, in_standing_run, at, path, profile)
        }
        // `_sendable_request_parts`: a request-side compaction is the user text framing its summary
        // (`_conversation_summary_text`), a frame on the user channel (`_is_user_channel_frame`),
        // its summary read for lookalikes (`_lookalike_texts`, noted as the summarization model's).
        ModelRequestPart::Compaction(compaction) => {
            let content = compaction.content.get().map_or("", String::as_str);
            let mut found = Vec::new();
            add_lookalikes(&mut found, content);
            Ok((
                RequestItem::Feedback(framing::conversation_summary(content)),
                sourced(Source::Summary, found),
            ))
        }
        // `_convert_speech_parts` without `supports_audio_input` (none of the three profiles sets
        // it): the user's speech is a user prompt of its transcript (a part without one is left
        // out, `left_out`), read for lookalikes like one (`authored` is taken after the conversion).
        ModelRequestPart::Speech(speech) if speech.speaker == Speaker::User => {
            let transcript = speech.transcript.get().cloned().unwrap_or_default();
            let mut found = Vec::new();
            add_lookalikes(&mut found, &transcript);
            Ok((
                RequestItem::User(UserText::Text(transcript)),
                sourced(Source::User, found),
            ))
        }
        ModelRequestPart::Unknown(_) => Err(ExportError::unknown_kind(
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

/// The text pydantic-ai renders for a structured-content item stored without one, on load
/// (`StructuredContent.__post_init__`: `render`, its default JSON, as the format an item was made
/// with is not stored). A tag it refuses to render under makes the history one it does not load.
fn rendered_on_load(structured: &StructuredContent, at: PartLocation, path: &str) -> Result<String, ExportError> {
    let value = structured.value.try_to_value().map_err(|_| {
        ExportError::unsupported(
            at,
            &format!("{path}.value"),
            "structured content too deeply nested to render",
        )
    })?;
    msgflow_media::rendered_on_load(
        &value,
        structured.tag.get().map(String::as_str),
        structured.description.get().map(String::as_str),
    )
    .map_err(|err| {
        ExportError::refused(
            at,
            &format!("{path}.tag"),
            "StructuredContent".to_owned(),
            format!("pydantic-ai 2.68.0 does not load it: rendering it raises `ValueError: {err}`"),
        )
    })
}

/// A system prompt as the mappings take it: the standing ones lifted into the system field, a
/// mid-conversation one in place or, without inline system prompts, `<system>`-wrapped
/// (`_wrap_non_leading_system_prompts`). The application's own text: never looked at for
/// lookalikes.
pub(super) fn system_prompt_item(content: String, standing: bool, profile: Profile) -> RequestItem {
    if !standing && !profile.inline_system_prompts {
        RequestItem::WrappedSystemPrompt { content }
    } else {
        RequestItem::SystemPrompt { content }
    }
}
