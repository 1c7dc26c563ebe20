//! OpenAI Responses' rules: the table, and their check on the request msgflow exports.

use std::collections::{HashMap, HashSet};

use msgflow_wire::{ModelMessage, ModelResponsePart};

use super::{Content as ResponsesContent, Item, ToolOutput, TypedItem};
use crate::rules::openai::{
    OpenAiMedia, OPENAI_FILES_TOO_LARGE_ERROR, OPENAI_IMAGES_TOO_LARGE_ERROR, OPENAI_IMAGE_DOCUMENTATION,
    OPENAI_IMAGE_FORMAT_ERROR, OPENAI_IMAGE_FORMAT_REPAIR, OPENAI_MEDIA_REPAIR, OPENAI_PDF_DOCUMENTATION,
    OPENAI_PDF_PAGES_ERROR, OPENAI_TOO_MANY_IMAGES_ERROR,
};
use crate::rules::table::{rule, Rule, Violation};
use crate::{ExportError, ExportOptions, PartLocation, Provider};

/// OpenAI Responses rules (https://platform.openai.com/docs/guides/function-calling and
/// https://platform.openai.com/docs/api-reference/responses/create).
pub const OPENAI_RESPONSES_RULES: &[Rule] = &[
    Rule {
        id: "openai-responses/output-without-call",
        requirement: "every `function_call_output` answers a `function_call` earlier in the input",
        provider_error: "No tool call found for function call output with call_id {}.",
        documentation: "https://platform.openai.com/docs/guides/function-calling#handling-function-calls",
        repair: "pydantic-ai's repair drops a result that answers no call (kept whole in the report); a result a turn late (after another response) or calls sharing an id are left as they are; nor is a result whose call the trim before a compaction leaves out of the request (the compaction stands for the conversation before it; remove the result, or the compaction, yourself)",
        fixable: false,
    },
    Rule {
        id: "openai-responses/function-call-without-reasoning",
        requirement: "a `function_call` sent with its item id (`fc_...`) comes after the reasoning item the same response produced before it",
        provider_error: "Item '{}' of type 'function_call' was provided without its required 'reasoning' item: '{}'.",
        // "If you're manually managing context ... pass all reasoning items between the latest user
        // message and your function call output back"; an item id refers to the stored output,
        // whose reasoning must come with it.
        documentation: "https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context",
        repair: "the call's item id is removed (its content is in the report): the call then goes as a new `function_call`, which needs no stored reasoning; the reasoning itself (a part with neither summary nor encrypted content, which pydantic-ai does not send) cannot be restored",
        fixable: true,
    },
    Rule {
        id: "openai-responses/call-without-output",
        requirement: "every `function_call` has its `function_call_output` in the input",
        provider_error: "No tool output found for function call {}.",
        documentation: "https://platform.openai.com/docs/guides/function-calling#handling-function-calls",
        repair: "pydantic-ai's repair synthesizes an interrupted result for the call; a result a turn late (after another response) or calls sharing an id are left as they are",
        fixable: false,
    },
    Rule {
        id: "openai-responses/image-media-type",
        requirement: "an `input_image` sent as a `data:` URI is PNG, JPEG, WEBP or GIF",
        provider_error: OPENAI_IMAGE_FORMAT_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: OPENAI_IMAGE_FORMAT_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-responses/animated-gif",
        requirement: "an image sent as a `data:` URI is not an animated GIF (more than one frame)",
        // OpenAI takes a "non-animated GIF" only; the error for an animated one is not documented,
        // so the documented answer to an image it does not take is quoted.
        provider_error: OPENAI_IMAGE_FORMAT_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: "not fixed: msgflow does not convert images; send one frame (as PNG, or a still GIF) yourself",
        fixable: false,
    },
    Rule {
        id: "openai-responses/too-many-images",
        requirement: "a request holds at most 500 images",
        provider_error: OPENAI_TOO_MANY_IMAGES_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-responses/images-too-large",
        requirement: "the images sent as `data:` URIs in a request total at most 50 MB (52,428,800 characters)",
        provider_error: OPENAI_IMAGES_TOO_LARGE_ERROR,
        documentation: OPENAI_IMAGE_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-responses/pdf-too-many-pages",
        requirement: "the PDFs sent as file data in a request have at most 100 pages in all",
        provider_error: OPENAI_PDF_PAGES_ERROR,
        documentation: OPENAI_PDF_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
    Rule {
        id: "openai-responses/files-too-large",
        requirement: "the files sent as file data in a request total at most 32 MB (33,554,432 bytes)",
        provider_error: OPENAI_FILES_TOO_LARGE_ERROR,
        documentation: OPENAI_PDF_DOCUMENTATION,
        repair: OPENAI_MEDIA_REPAIR,
        fixable: false,
    },
];
/// The Responses rules the request exported from `history` breaks.
pub(crate) fn check(history: &[ModelMessage], options: &ExportOptions) -> Result<Vec<Violation>, ExportError> {
    let exported = super::export_with(history, options.openai_thinking)?;
    let provider = Provider::OpenAiResponses;
    let mut violations = Vec::new();
    let mut media = OpenAiMedia::new(provider, OPENAI_RESPONSES_RULES);
    let mut calls: HashMap<&str, PartLocation> = HashMap::new();
    let mut answered: HashSet<&str> = HashSet::new();
    let input = &exported.request.input;
    for (index, item) in input.iter().enumerate() {
        let at = exported.origins[index].start;
        match item {
            Item::Typed(TypedItem::FunctionCall { call_id, id, .. }) => {
                calls.entry(call_id.as_str()).or_insert(at);
                if let Some(item_id) = id {
                    if let Some(reasoning) = required_reasoning(history, at) {
                        let sent = input[..index].iter().any(|earlier| {
                            matches!(earlier, Item::Typed(TypedItem::Reasoning { id, .. }) if id == reasoning)
                        });
                        if !sent {
                            violations.push(Violation::new(
                                rule(
                                    OPENAI_RESPONSES_RULES,
                                    "openai-responses/function-call-without-reasoning",
                                ),
                                at,
                                &[item_id, reasoning],
                            ));
                        }
                    }
                }
            }
            Item::Typed(TypedItem::FunctionCallOutput { call_id, output }) => {
                if calls.contains_key(call_id.as_str()) {
                    answered.insert(call_id.as_str());
                } else {
                    violations.push(Violation::new(
                        rule(OPENAI_RESPONSES_RULES, "openai-responses/output-without-call"),
                        at,
                        &[call_id],
                    ));
                }
                if let ToolOutput::Items(contents) = output {
                    media.contents(contents, at, &mut violations);
                }
            }
            Item::Message(message) => {
                if let ResponsesContent::Items(contents) = &message.content {
                    media.contents(contents, at, &mut violations);
                }
            }
            // Server-side tool items are resolved by their ids on OpenAI's side: no client-tool
            // pairing applies.
            Item::Typed(
                TypedItem::Reasoning { .. }
                | TypedItem::Message { .. }
                | TypedItem::WebSearchCall { .. }
                | TypedItem::CodeInterpreterCall { .. }
                | TypedItem::FileSearchCall { .. }
                | TypedItem::ImageGenerationCall { .. }
                | TypedItem::McpListTools { .. }
                | TypedItem::McpCall { .. }
                | TypedItem::Compaction { .. },
            ) => {}
        }
    }
    for (call_id, at) in &calls {
        if !answered.contains(call_id) {
            violations.push(Violation::new(
                rule(OPENAI_RESPONSES_RULES, "openai-responses/call-without-output"),
                *at,
                &[call_id],
            ));
        }
    }
    media.finish(&mut violations);
    Ok(violations)
}

/// The id of the reasoning item OpenAI produced right before the call at `at` in its response:
/// the last thinking part ahead of it with an id, from OpenAI (or without a name, in a response
/// from OpenAI). A call is only sent with its item id when it is OpenAI's own, so that reasoning
/// is the stored output's.
fn required_reasoning(history: &[ModelMessage], at: PartLocation) -> Option<&str> {
    let ModelMessage::Response(response) = history.get(at.message)? else {
        return None;
    };
    let from_openai = |provider_name: Option<&String>| match provider_name {
        Some(name) => name == "openai",
        None => response.provider_name.get().is_some_and(|name| name == "openai"),
    };
    response.parts.get(..at.part)?.iter().rev().find_map(|part| match part {
        ModelResponsePart::Thinking(thinking) if from_openai(thinking.provider_name.get()) => {
            thinking.id.get().map(String::as_str).filter(|id| !id.is_empty())
        }
        _ => None,
    })
}
