//! OpenAI Chat Completions' rules: the table, and their check on the request msgflow exports.

use std::collections::HashSet;

use msgflow_wire::ModelMessage;

use super::{ContentPart as ChatContentPart, Message as ChatMessage, UserContent as ChatUserContent};
use crate::rules::openai::{
    OpenAiMedia, OPENAI_FILES_TOO_LARGE_ERROR, OPENAI_IMAGES_TOO_LARGE_ERROR, OPENAI_IMAGE_DOCUMENTATION,
    OPENAI_IMAGE_FORMAT_ERROR, OPENAI_IMAGE_FORMAT_REPAIR, OPENAI_MEDIA_REPAIR, OPENAI_PDF_DOCUMENTATION,
    OPENAI_PDF_PAGES_ERROR, OPENAI_TOO_MANY_IMAGES_ERROR,
};
use crate::rules::table::{rule, Rule, Violation};
use crate::{ExportError, ExportOptions, PartLocation, Provider};

/// OpenAI Chat Completions rules (https://platform.openai.com/docs/guides/function-calling and
/// https://platform.openai.com/docs/api-reference/chat/create).
pub const OPENAI_CHAT_RULES: &[Rule] = &[
    Rule {
        id: "openai-chat/tool-calls-without-response",
        requirement: "an assistant message with `tool_calls` is followed by one tool message per call",
        provider_error: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
        documentation: "https://platform.openai.com/docs/guides/function-calling#handling-function-calls",
        repair: "pydantic-ai's repair synthesizes an interrupted result for the call, right after the results of the next request; a result a turn late (after another response) or calls sharing an id are left as they are",
        fixable: false,
    },
    Rule {
        id: "openai-chat/tool-without-call",
        requirement: "a tool message answers a call of the assistant message right before the tool messages",
        provider_error: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        documentation: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages",
        repair: "pydantic-ai's repair drops a result that answers no call (kept whole in the report); a result answering a call further back cannot be moved without reordering the conversation",
        fixable: false,
    },
    // The limit is not in the reference's text; it is what the API validates and answers with
    // (`"code": "string_above_max_length"`, `"param": "messages[N].tool_calls[0].id"`), hit when
    // a history made elsewhere (OpenAI Responses' 53-character `fc_...` ids, other providers,
    // generated ids) is sent to Chat Completions.
    Rule {
        id: "openai-chat/tool-call-id-too-long",
        requirement: "a tool call's `id` is at most 40 characters long",
        provider_error: "Invalid 'messages[{}].tool_calls[{}].id': string too long. Expected a string with maximum length 40, but got a string with length {} instead.",
        documentation: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages",
        repair: "the call and its results get the id `call_` and a hash of the old one, reported with both ids; not fixed when another call has the same id",
        fixable: false,
    },
    Rule {
        id: "openai-chat/image-media-type",
        requirement: "an image sent as a `data:` URI is PNG, JPEG, WEBP or GIF",
        provider_error: OPENAI_IMAGE_FORMAT_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: OPENAI_IMAGE_FORMAT_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-chat/animated-gif",
        requirement: "an image sent as a `data:` URI is not an animated GIF (more than one frame)",
        // OpenAI takes a "non-animated GIF" only; the error for an animated one is not documented,
        // so the documented answer to an image it does not take is quoted.
        provider_error: OPENAI_IMAGE_FORMAT_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: "not fixed: msgflow does not convert images; send one frame (as PNG, or a still GIF) yourself",
        fixable: false,
    },
    Rule {
        id: "openai-chat/too-many-images",
        requirement: "a request holds at most 500 images",
        provider_error: OPENAI_TOO_MANY_IMAGES_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-chat/images-too-large",
        requirement: "the images sent as `data:` URIs in a request total at most 50 MB (52,428,800 characters)",
        provider_error: OPENAI_IMAGES_TOO_LARGE_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-chat/pdf-too-many-pages",
        requirement: "the PDFs sent as file data in a request have at most 100 pages in all",
        provider_error: OPENAI_PDF_PAGES_ERROR,
        documentation: OPENAI_PDF_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-chat/files-too-large",
        requirement: "the files sent as file data in a request total at most 32 MB (33,554,432 bytes)",
        provider_error: OPENAI_FILES_TOO_LARGE_ERROR,
        documentation: OPENAI_PDF_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
];

/// The longest tool call id Chat Completions takes.
pub const OPENAI_CHAT_MAX_CALL_ID: usize = 40;
/// The Chat Completions rules the request exported from `history` breaks.
pub(crate) fn check(history: &[ModelMessage], options: &ExportOptions) -> Result<Vec<Violation>, ExportError> {
    let exported = super::export_with(history, &options.openai_chat_thinking, options.openai_thinking)?;
    let messages = &exported.request.messages;
    let provider = Provider::OpenAiChat;
    let mut violations = Vec::new();
    let mut media = OpenAiMedia::new(provider, OPENAI_CHAT_RULES);
    // The calls the run of tool messages being read may answer: those of the assistant message
    // right before the run.
    let mut open: Vec<(&str, PartLocation)> = Vec::new();
    let mut answerable: HashSet<&str> = HashSet::new();
    let flush = |open: &mut Vec<(&str, PartLocation)>, violations: &mut Vec<Violation>| {
        for (id, at) in open.drain(..) {
            violations.push(Violation::new(
                rule(OPENAI_CHAT_RULES, "openai-chat/tool-calls-without-response"),
                at,
                &[id],
            ));
        }
    };
    for (index, message) in messages.iter().enumerate() {
        let origin = &exported.origins[index];
        match message {
            ChatMessage::Tool { tool_call_id, .. } => {
                if answerable.remove(tool_call_id.as_str()) {
                    open.retain(|(id, _)| *id != tool_call_id.as_str());
                } else {
                    violations.push(Violation::new(
                        rule(OPENAI_CHAT_RULES, "openai-chat/tool-without-call"),
                        origin.start,
                        &[],
                    ));
                }
            }
            other => {
                flush(&mut open, &mut violations);
                answerable.clear();
                if let ChatMessage::User {
                    content: ChatUserContent::Parts(parts),
                } = other
                {
                    for part in parts {
                        match part {
                            ChatContentPart::ImageUrl { image_url } => {
                                media.image(&image_url.url, origin.start, &mut violations);
                            }
                            ChatContentPart::File { file } => {
                                if let Some(data) = &file.file_data {
                                    media.file(data, origin.start);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                if let ChatMessage::Assistant {
                    tool_calls: Some(calls),
                    ..
                } = other
                {
                    for (call_index, (call, at)) in calls.iter().zip(&origin.blocks).enumerate() {
                        let length = call.id.chars().count();
                        if length > OPENAI_CHAT_MAX_CALL_ID {
                            violations.push(Violation::new(
                                rule(OPENAI_CHAT_RULES, "openai-chat/tool-call-id-too-long"),
                                *at,
                                &[&index.to_string(), &call_index.to_string(), &length.to_string()],
                            ));
                        }
                        open.push((call.id.as_str(), *at));
                        answerable.insert(call.id.as_str());
                    }
                }
            }
        }
    }
    flush(&mut open, &mut violations);
    media.finish(&mut violations);
    Ok(violations)
}
