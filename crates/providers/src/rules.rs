//! Each provider's rules for conversation structure, as tables: one [`Rule`] per thing the API
//! rejects, citing where the provider documents it, with the error it answers and what
//! `repair --provider` does about it.
//!
//! Anthropic and OpenAI rules are evaluated on the request msgflow exports (so pydantic-ai's own
//! dropping and reordering are taken into account: its `_tool_results_first` already puts results
//! first, empty text blocks are never sent); Gemini's on the history's turns (request = `user`
//! turn, response = `model` turn, as `GoogleModel` maps them). Every violation is reported at the
//! history's message and part.
//!
//! A new provider adds its table here, one `check_<provider>` function evaluating it, and an arm
//! in [`check`].

use std::collections::{HashMap, HashSet};

use msgflow_wire::{ModelMessage, ModelRequestPart, ModelResponsePart, UserContent, UserPromptContent};
use serde::Serialize;

use crate::anthropic::{
    self, Block, Message as AnthropicMessage, Role as AnthropicRole, Source as AnthropicSource, ToolResultContent,
};
use crate::openai_chat::{
    self, ContentPart as ChatContentPart, Message as ChatMessage, UserContent as ChatUserContent,
};
use crate::openai_responses::{self, Content as ResponsesContent, InputContent, Item, ToolOutput, TypedItem};
use crate::{ExportError, ExportOptions, PartLocation, Provider};

/// One rule a provider's API enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// `<provider>/<name>`.
    pub id: &'static str,
    /// What the API requires.
    pub requirement: &'static str,
    /// The error the API answers with (the 400's message, `{}` where it names the id).
    pub provider_error: &'static str,
    /// Where the provider documents it.
    pub documentation: &'static str,
    /// What `repair --provider` does about it.
    pub repair: &'static str,
    /// Whether `repair --provider` always fixes it (`false`: it fixes the common cause, such as a
    /// dangling call, or nothing; `repair` says so for what it leaves).
    pub fixable: bool,
}

/// Anthropic Messages API rules (https://docs.anthropic.com/en/api/messages and
/// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
pub const ANTHROPIC_RULES: &[Rule] = &[
    Rule {
        id: "anthropic/tool-use-without-result",
        requirement: "every `tool_use` block has its `tool_result` in the very next user turn",
        provider_error: "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        // "Tool result blocks must immediately follow their corresponding tool use blocks in the message history."
        documentation: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks",
        repair: "pydantic-ai's repair synthesizes an interrupted result for the call, right after the results of the next request; a result a turn late (after another response) or calls sharing an id are left as they are",
        fixable: false,
    },
    Rule {
        id: "anthropic/unexpected-tool-result",
        requirement: "every `tool_result` answers a `tool_use` of the turn right before it",
        provider_error: "messages.{}: unexpected `tool_use_id` found in `tool_result` blocks: {}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
        documentation: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks",
        repair: "pydantic-ai's repair drops a result that answers no call (kept whole in the report); a result answering a call further back cannot be moved without reordering the conversation; nor is a result whose call the trim before a compaction leaves out of the request (the compaction stands for the conversation before it; remove the result, or the compaction, yourself)",
        fixable: false,
    },
    Rule {
        id: "anthropic/duplicate-tool-use-id",
        requirement: "`tool_use` ids are unique in a request",
        provider_error: "messages.{}.content.{}: `tool_use` ids must be unique",
        documentation: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
        repair: "not fixed: renaming a call would change which result answers it; give the calls distinct ids",
        fixable: false,
    },
    Rule {
        id: "anthropic/tool-use-id-pattern",
        requirement: "a `tool_use` id matches `^[a-zA-Z0-9_-]+$`",
        provider_error: "messages.{}.content.{}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        documentation: "https://docs.anthropic.com/en/api/messages",
        repair: "the call and its results get an id that matches (its other characters replaced by `_`, or `call_` and a hash of it when that id is taken), reported with both ids; not fixed when another call has the same id",
        fixable: false,
    },
    Rule {
        id: "anthropic/whitespace-only-text",
        requirement: "text blocks hold non-whitespace text",
        provider_error: "messages: text content blocks must contain non-whitespace text",
        documentation: "https://docs.anthropic.com/en/api/messages",
        repair: "a whitespace-only text part of a response is removed (its content is in the report); a whitespace-only user prompt is the user's and is left for you to edit",
        fixable: true,
    },
    Rule {
        id: "anthropic/final-assistant-trailing-whitespace",
        requirement: "a final assistant turn (a prefill) does not end with whitespace",
        provider_error: "messages: final assistant content cannot end with trailing whitespace",
        // "The final assistant message may be used to prefill the response"; trailing whitespace is rejected.
        documentation: "https://docs.anthropic.com/en/docs/build-with-claude/prompt-engineering/prefill-claudes-response",
        repair: "the trailing whitespace of the final text is removed (the removed text is in the report)",
        fixable: true,
    },
    Rule {
        id: "anthropic/image-media-type",
        requirement: "an image sent as bytes is JPEG, PNG, GIF or WebP (`image/jpeg`, `image/png`, `image/gif`, `image/webp`)",
        provider_error: "messages.{}.content.{}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
        // "Supported image formats: JPEG, PNG, GIF, WebP" (Vision, "Image format").
        documentation: "https://docs.anthropic.com/en/docs/build-with-claude/vision",
        repair: "not fixed: msgflow does not convert images; convert it to one of the four types (or remove it) yourself",
        fixable: false,
    },
    Rule {
        id: "anthropic/image-too-large",
        requirement: "an image sent as bytes is at most 5 MB (5,242,880 bytes of base64)",
        provider_error: "messages.{}.content.{}.image.source.base64: image exceeds 5 MB maximum: {} bytes > 5242880 bytes",
        // "The maximum allowed image file size is 5MB per image for API requests" (Vision, "Image size").
        documentation: "https://docs.anthropic.com/en/docs/build-with-claude/vision#evaluate-image-size",
        repair: "not fixed: msgflow does not resize or re-encode images; shrink it (or remove it) yourself",
        fixable: false,
    },
    Rule {
        id: "anthropic/image-dimensions",
        requirement: "an image sent as bytes is at most 8000x8000 pixels, or 2000x2000 when the request holds more than 20 images (read from the PNG, GIF, WebP or JPEG header)",
        provider_error: "messages.{}.content.{}.image.source.base64.data: At least one of the image dimensions exceed max allowed size{}: {} pixels",
        // "Images larger than 8000x8000 px will be rejected. If you submit more than 20 images in one API
        // request, this limit is 2000x2000 px" (Vision, "Evaluate image size").
        documentation: "https://docs.anthropic.com/en/docs/build-with-claude/vision#evaluate-image-size",
        repair: "not fixed: msgflow does not resize images; resize it (or send fewer images) yourself",
        fixable: false,
    },
    Rule {
        id: "anthropic/pdf-too-many-pages",
        requirement: "the PDFs sent as bytes in a request have at most 100 pages in all (read from each PDF's page objects)",
        provider_error: "messages.{}.content.{}: A maximum of 100 PDF pages may be provided. The request holds {} pages.",
        // "Maximum pages per request: 600 (100 for models with a 200k-token context window)"; the
        // limit is on the entire request (PDF support, "PDF support limitations"). claude-sonnet-4-5,
        // the exported profile, has a 200k-token window. The error text is not documented; this one
        // names what is checked.
        documentation: "https://docs.anthropic.com/en/docs/build-with-claude/pdf-support",
        repair: "not fixed: msgflow does not split documents; send fewer pages (split the PDF, or leave older ones out with `msgflow trim`) yourself",
        fixable: false,
    },
    Rule {
        id: "anthropic/request-too-large",
        requirement: "the request is at most 32 MB (33,554,432 bytes of JSON); reported at the message that holds the most of it",
        provider_error: "413 request_too_large: Request exceeds the maximum allowed number of bytes. (The request is {} bytes of JSON, before its model and settings.)",
        // "Messages API: 32 MB"; a larger request gets a 413 `request_too_large` error before it is
        // processed (API overview, "Request size limits"; Errors, "HTTP errors").
        documentation: "https://docs.anthropic.com/en/api/overview#request-size-limits",
        repair: "not fixed: msgflow does not leave conversation out on its own; trim the history (`msgflow trim`) or move its large files out (`msgflow media extract`) yourself",
        fixable: false,
    },
];

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
/// "Image input requirements: file types PNG (.png), JPEG (.jpeg and .jpg), WEBP (.webp),
/// non-animated GIF (.gif)" (Images and vision, both APIs).
const OPENAI_IMAGE_DOCUMENTATION: &str =
    "https://platform.openai.com/docs/guides/images-vision#image-input-requirements";
/// OpenAI's answer to an image of another format (as reported by its users, typo included).
const OPENAI_IMAGE_FORMAT_ERROR: &str = "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].";
const OPENAI_IMAGE_FORMAT_REPAIR: &str =
    "not fixed: msgflow does not convert images; convert it to PNG, JPEG, WEBP or GIF (or remove it) yourself";
// The per-request media limits (both APIs): "Up to 50 MB total payload size per request; up to 500
// individual image inputs per request" (Images and vision, "Image input requirements"); "up to 100
// pages and 32MB of total content in a single request to the API, across multiple file inputs"
// (File inputs, "Usage considerations"). OpenAI does not document the errors' texts: these name what
// is checked.
const OPENAI_PDF_DOCUMENTATION: &str = "https://platform.openai.com/docs/guides/pdf-files#usage-considerations";
const OPENAI_TOO_MANY_IMAGES_ERROR: &str = "Too many images in the request: {} (at most 500).";
const OPENAI_IMAGES_TOO_LARGE_ERROR: &str =
    "The images in the request total {} bytes, more than the 50 MB payload limit.";
const OPENAI_PDF_PAGES_ERROR: &str = "The PDFs in the request have {} pages, more than the limit of 100.";
const OPENAI_FILES_TOO_LARGE_ERROR: &str = "The files in the request total {} bytes, more than the 32 MB limit.";
const OPENAI_MEDIA_REPAIR: &str = "not fixed: msgflow does not shrink or drop media; send fewer or smaller files (or leave older messages out with `msgflow trim`) yourself";

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

/// Gemini `generateContent` rules (https://ai.google.dev/gemini-api/docs/function-calling).
pub const GEMINI_RULES: &[Rule] = &[
    Rule {
        id: "gemini/function-response-count",
        requirement: "a model turn's function calls are answered, all of them, by the next turn's function responses",
        provider_error: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
        documentation: "https://ai.google.dev/gemini-api/docs/function-calling#multi-turn",
        repair: "pydantic-ai's repair synthesizes an interrupted result for each unanswered call and drops results that answer none; calls sharing an id in one turn, or results a turn late (after another response), are left as they are",
        fixable: false,
    },
    Rule {
        id: "gemini/function-call-turn-order",
        requirement: "a model turn with function calls comes right after a user turn or a function response turn",
        provider_error: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        documentation: "https://ai.google.dev/gemini-api/docs/function-calling#multi-turn",
        repair: "not fixed: the conversation would need a user turn msgflow cannot invent; start the history with a request",
        fixable: false,
    },
    Rule {
        id: "gemini/inline-data-too-large",
        requirement: "the inline data of a request (binary content of user prompts and tool results, files the model generated: sent base64-encoded as `inline_data`) totals at most 100 MB (104,857,600 bytes of base64)",
        provider_error: "Request payload size exceeds the limit: 104857600 bytes.",
        // "Inline data: ... up to 100 MB per request (50 MB for PDFs)"; larger files go through the
        // Files API or a URL (File input methods, "Input method comparison").
        documentation: "https://ai.google.dev/gemini-api/docs/file-input-methods",
        repair: "not fixed: msgflow does not upload files; upload the large files with the Files API and refer to them by URL, or remove them",
        fixable: false,
    },
];

/// The media limits the rules check, each from the documentation its rule cites.
mod limits {
    /// Anthropic's image media types.
    pub const ANTHROPIC_IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
    /// Anthropic's 5 MB per image, measured on the base64 data (the error's byte count).
    pub const ANTHROPIC_MAX_IMAGE_BASE64: usize = 5 * 1024 * 1024;
    /// Anthropic's largest image side.
    pub const ANTHROPIC_MAX_IMAGE_SIDE: u32 = 8000;
    /// More images than this in a request lower the largest side to [`ANTHROPIC_MANY_IMAGES_SIDE`].
    pub const ANTHROPIC_MANY_IMAGES: usize = 20;
    /// Anthropic's largest image side in a request of many images.
    pub const ANTHROPIC_MANY_IMAGES_SIDE: u32 = 2000;
    /// OpenAI's image media types.
    pub const OPENAI_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];
    /// Gemini's inline data per request, measured on the base64 text the request carries.
    pub const GEMINI_MAX_INLINE_BASE64: usize = 100 * 1024 * 1024;
    /// Anthropic's Messages API request size.
    pub const ANTHROPIC_MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;
    /// Anthropic's PDF pages per request (a model with a 200k-token window).
    pub const ANTHROPIC_MAX_PDF_PAGES: usize = 100;
    /// OpenAI's images per request.
    pub const OPENAI_MAX_IMAGES: usize = 500;
    /// OpenAI's image payload per request, measured on the `data:` URIs sent.
    pub const OPENAI_MAX_IMAGE_PAYLOAD: usize = 50 * 1024 * 1024;
    /// OpenAI's PDF pages per request.
    pub const OPENAI_MAX_PDF_PAGES: usize = 100;
    /// OpenAI's file content per request, in bytes (decoded).
    pub const OPENAI_MAX_FILE_BYTES: usize = 32 * 1024 * 1024;
    /// Base64 text read for an image's header (PNG, GIF and WebP headers are in the first bytes; a
    /// JPEG frame header further on than this is not looked for).
    pub const HEADER_BASE64: usize = 64 * 1024;
}

/// The rule table of a provider.
pub fn rules(provider: Provider) -> &'static [Rule] {
    match provider {
        Provider::Anthropic => ANTHROPIC_RULES,
        Provider::OpenAiChat => OPENAI_CHAT_RULES,
        Provider::OpenAiResponses => OPENAI_RESPONSES_RULES,
        Provider::Gemini => GEMINI_RULES,
    }
}

fn rule(provider: Provider, id: &str) -> &'static Rule {
    rules(provider)
        .iter()
        .find(|rule| rule.id == id)
        .expect("every rule id used is in its table")
}

/// A broken rule, at the history's message and part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The rule.
    pub rule: &'static Rule,
    /// Index of the history message it is about.
    pub message: usize,
    /// Index of the part, when it is about one.
    pub part: Option<usize>,
    /// The provider's error, with the index and ids filled in.
    pub provider_error: String,
}

impl Violation {
    fn new(rule: &'static Rule, at: PartLocation, values: &[&str]) -> Self {
        let mut provider_error = String::with_capacity(rule.provider_error.len());
        let mut values = values.iter();
        let mut rest = rule.provider_error;
        while let Some(index) = rest.find("{}") {
            provider_error.push_str(&rest[..index]);
            provider_error.push_str(values.next().copied().unwrap_or("?"));
            rest = &rest[index + 2..];
        }
        provider_error.push_str(rest);
        Violation {
            rule,
            message: at.message,
            part: Some(at.part),
            provider_error,
        }
    }
}

/// The rules of `provider` the history breaks, in history order.
///
/// Anthropic and OpenAI rules are evaluated on the exported request, so a history msgflow cannot
/// export yet is an error ([`ExportError`]).
pub fn check(history: &[ModelMessage], provider: Provider) -> Result<Vec<Violation>, ExportError> {
    check_with(history, provider, &ExportOptions::default())
}

/// [`check`] on the request a profile with `options` exports.
pub fn check_with(
    history: &[ModelMessage],
    provider: Provider,
    options: &ExportOptions,
) -> Result<Vec<Violation>, ExportError> {
    let mut violations = match provider {
        Provider::Anthropic => check_anthropic(history, options)?,
        Provider::OpenAiChat => check_openai_chat(history, options)?,
        Provider::OpenAiResponses => check_openai_responses(history, options)?,
        Provider::Gemini => check_gemini(history),
    };
    violations.sort_by_key(|violation| (violation.message, violation.part));
    Ok(violations)
}

fn check_anthropic(history: &[ModelMessage], options: &ExportOptions) -> Result<Vec<Violation>, ExportError> {
    let crate::Exported {
        mut request,
        mut origins,
    } = anthropic::export_with(history, options.anthropic_thinking)?;
    let provider = Provider::Anthropic;
    let mut violations = Vec::new();
    // One pass over the request's messages: each is checked, measured as JSON and freed while it
    // is in the cache. A 100k-message request is several times the last-level cache, and a pass of
    // its own for the size, and another for freeing it, each waited on memory for every message.
    let mut messages = std::mem::take(&mut request.messages);
    // `{"system":...,"messages":[]}`, then each message and the commas between them.
    let mut size = msgflow_wire::compact_json_len(&request) + messages.len().saturating_sub(1);
    // The largest message (the first of the largest), for `anthropic/request-too-large`.
    let mut largest: Option<(usize, PartLocation)> = None;
    let mut seen_ids = SeenIds::default();
    let mut images = AnthropicImages::default();
    let mut pdf_pages = AnthropicPdfPages::default();
    for index in 0..messages.len() {
        let message = &messages[index];
        let origin = &origins[index];
        let message_size = msgflow_wire::compact_json_len(message);
        size += message_size;
        if largest.is_none_or(|(most, _)| message_size > most) {
            largest = Some((message_size, origin.start));
        }
        let previous_calls = block_ids(
            index.checked_sub(1).map(|previous| &messages[previous]),
            AnthropicRole::Assistant,
            false,
        );
        let next_results = block_ids(messages.get(index + 1), AnthropicRole::User, true);
        // The texts a provider error quotes, written only for a violation.
        let index_text = || index.to_string();
        for (block_index, block) in message.content.iter().enumerate() {
            let at = origin.blocks[block_index];
            let block_text = || block_index.to_string();
            match block {
                Block::ToolUse { id, .. } => {
                    if !seen_ids.insert(id) {
                        violations.push(Violation::new(
                            rule(provider, "anthropic/duplicate-tool-use-id"),
                            at,
                            &[&index_text(), &block_text()],
                        ));
                    }
                    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
                        violations.push(Violation::new(
                            rule(provider, "anthropic/tool-use-id-pattern"),
                            at,
                            &[&index_text(), &block_text()],
                        ));
                    }
                    if next_results.binary_search(&id.as_str()).is_err() {
                        violations.push(Violation::new(
                            rule(provider, "anthropic/tool-use-without-result"),
                            at,
                            &[&index_text(), id],
                        ));
                    }
                }
                Block::ToolResult {
                    tool_use_id, content, ..
                } => {
                    if previous_calls.binary_search(&tool_use_id.as_str()).is_err() {
                        violations.push(Violation::new(
                            rule(provider, "anthropic/unexpected-tool-result"),
                            at,
                            &[&index_text(), tool_use_id],
                        ));
                    }
                    // A tool's images and PDFs, at their path in the request
                    // (`content.<block>.content.<item>`).
                    if let ToolResultContent::Blocks(blocks) = content {
                        for (item_index, item) in blocks.iter().enumerate() {
                            let path = || format!("{block_index}.content.{item_index}");
                            match item {
                                Block::Image {
                                    source: AnthropicSource::Base64 { data, media_type },
                                    ..
                                } => images.check(data, media_type, at, [&index_text(), &path()], &mut violations),
                                Block::Image { .. } => images.count += 1,
                                Block::Document {
                                    source: AnthropicSource::Base64 { data, media_type },
                                    ..
                                } if media_type == "application/pdf" => {
                                    pdf_pages.add(data, at, [&index_text(), &path()])
                                }
                                _ => {}
                            }
                        }
                    }
                }
                Block::Image {
                    source: AnthropicSource::Base64 { data, media_type },
                    ..
                } => images.check(data, media_type, at, [&index_text(), &block_text()], &mut violations),
                Block::Image { .. } => images.count += 1,
                Block::Document {
                    source: AnthropicSource::Base64 { data, media_type },
                    ..
                } if media_type == "application/pdf" => pdf_pages.add(data, at, [&index_text(), &block_text()]),
                // Server-side tool blocks answer each other within the assistant turn (and
                // pydantic-ai drops a call left unanswered): no rule of the client tools applies.
                Block::Thinking { .. }
                | Block::RedactedThinking { .. }
                | Block::Document { .. }
                | Block::ServerToolUse { .. }
                | Block::McpToolUse { .. }
                | Block::WebSearchToolResult { .. }
                | Block::WebFetchToolResult { .. }
                | Block::McpToolResult { .. }
                | Block::ToolSearchToolResult { .. }
                | Block::CodeExecutionToolResult { .. }
                | Block::BashCodeExecutionToolResult { .. }
                | Block::TextEditorCodeExecutionToolResult { .. }
                | Block::Compaction { .. } => {}
                Block::Text { text, .. } => {
                    if text.trim().is_empty() {
                        violations.push(Violation::new(
                            rule(provider, "anthropic/whitespace-only-text"),
                            at,
                            &[],
                        ));
                    } else if index + 1 == messages.len()
                        && message.role == AnthropicRole::Assistant
                        && block_index + 1 == message.content.len()
                        && text.ends_with(char::is_whitespace)
                    {
                        violations.push(Violation::new(
                            rule(provider, "anthropic/final-assistant-trailing-whitespace"),
                            at,
                            &[],
                        ));
                    }
                }
            }
        }
        // The message before is read no more (a result looks one message back).
        if let Some(previous) = index.checked_sub(1) {
            drop(std::mem::take(&mut messages[previous].content));
            drop(std::mem::take(&mut origins[previous].blocks));
        }
    }
    images.finish(&mut violations);
    pdf_pages.finish(&mut violations);
    // `anthropic/request-too-large`: the request's JSON, without the model and settings a client
    // adds. A system prompt alone can pass the limit: the request is then reported at its start.
    if size > limits::ANTHROPIC_MAX_REQUEST_BYTES {
        let at = largest.map_or(PartLocation { message: 0, part: 0 }, |(_, start)| start);
        violations.push(Violation::new(
            rule(Provider::Anthropic, "anthropic/request-too-large"),
            at,
            &[&size.to_string()],
        ));
    }
    Ok(violations)
}

/// The tool-use ids of a request so far, for `anthropic/duplicate-tool-use-id`, copied into one
/// buffer. The check frees each block after reading it, so the set cannot borrow the ids, and a
/// `String` per id cost the most of the check on a request larger than the cache: each allocation
/// made glibc sort the blocks freed so far, and dropping the set freed every id in hash order.
#[derive(Default)]
struct SeenIds {
    text: String,
    /// Each id's range in `text`.
    ranges: hashbrown::HashTable<(usize, usize)>,
    state: foldhash::fast::RandomState,
}

impl SeenIds {
    /// Notes `id`, and answers whether it is new (as `HashSet::insert`).
    fn insert(&mut self, id: &str) -> bool {
        use std::hash::BuildHasher as _;
        let Self { text, ranges, state } = self;
        let hash = state.hash_one(id);
        match ranges.entry(
            hash,
            |&(start, end)| &text[start..end] == id,
            |&(start, end)| state.hash_one(&text[start..end]),
        ) {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(vacant) => {
                let start = text.len();
                text.push_str(id);
                vacant.insert((start, text.len()));
                true
            }
        }
    }
}

/// Anthropic's image rules over a request: each image's type and size as it is met, and its
/// dimensions once the request's image count says which side limit applies (a request of many
/// images has a smaller one).
#[derive(Default)]
struct AnthropicImages {
    /// Every image of the request, those of tool results and those sent by URL too.
    count: usize,
    /// Each image sent as bytes whose header gives its dimensions: where it is, and its message and
    /// block (in the request) for the error.
    sized: Vec<(u32, u32, PartLocation, [String; 2])>,
}

impl AnthropicImages {
    /// The media rules of one image sent as bytes: its type and size now, its dimensions at
    /// [`AnthropicImages::finish`].
    fn check(
        &mut self,
        data: &str,
        media_type: &str,
        at: PartLocation,
        [message, block]: [&str; 2],
        violations: &mut Vec<Violation>,
    ) {
        self.count += 1;
        let provider = Provider::Anthropic;
        if !limits::ANTHROPIC_IMAGE_TYPES.contains(&media_type) {
            violations.push(Violation::new(
                rule(provider, "anthropic/image-media-type"),
                at,
                &[message, block],
            ));
        }
        if data.len() > limits::ANTHROPIC_MAX_IMAGE_BASE64 {
            violations.push(Violation::new(
                rule(provider, "anthropic/image-too-large"),
                at,
                &[message, block, &data.len().to_string()],
            ));
        }
        if let Some((width, height)) = image_header_dimensions(data) {
            self.sized
                .push((width, height, at, [message.to_owned(), block.to_owned()]));
        }
    }

    /// `anthropic/image-dimensions` for each image larger than the side its request allows.
    fn finish(self, violations: &mut Vec<Violation>) {
        let (limit, kind) = if self.count > limits::ANTHROPIC_MANY_IMAGES {
            (limits::ANTHROPIC_MANY_IMAGES_SIDE, " for many-image requests")
        } else {
            (limits::ANTHROPIC_MAX_IMAGE_SIDE, "")
        };
        for (width, height, at, [message, block]) in self.sized {
            if width > limit || height > limit {
                violations.push(Violation::new(
                    rule(Provider::Anthropic, "anthropic/image-dimensions"),
                    at,
                    &[&message, &block, kind, &limit.to_string()],
                ));
            }
        }
    }
}

/// The ids of `message`'s tool calls (or, with `results`, of the calls its results answer) when it
/// has `role`, sorted: the calls a result may answer, the results a call needs. A message holds
/// few of them, and a sorted list needs no hashing nor, when empty, memory.
fn block_ids(message: Option<&AnthropicMessage>, role: AnthropicRole, results: bool) -> Vec<&str> {
    let mut ids: Vec<&str> = message
        .filter(|message| message.role == role)
        .into_iter()
        .flat_map(|message| &message.content)
        .filter_map(|block| match block {
            Block::ToolUse { id, .. } if !results => Some(id.as_str()),
            Block::ToolResult { tool_use_id, .. } if results => Some(tool_use_id.as_str()),
            _ => None,
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// Width and height from the header of a base64 image (PNG, GIF, WebP, JPEG), decoding only its
/// first [`limits::HEADER_BASE64`] characters; `None` when they do not say.
fn image_header_dimensions(data: &str) -> Option<(u32, u32)> {
    use base64::Engine as _;
    let prefix = data.get(..data.len().min(limits::HEADER_BASE64))?;
    let prefix = &prefix[..prefix.len() / 4 * 4];
    let bytes = base64::engine::general_purpose::STANDARD.decode(prefix).ok()?;
    msgflow_media::image_dimensions(&bytes)
}

/// The media type and base64 data of a `data:` URI (`data:<type>;base64,...`), `None` for any
/// other URL.
fn data_uri_parts(url: &str) -> Option<(&str, &str)> {
    url.strip_prefix("data:")?.split_once(";base64,")
}

/// The bytes of base64 `data`, `None` when it does not decode.
fn decoded(data: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(data).ok()
}

/// The size in bytes of what base64 `data` holds.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count().min(2);
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// The pages of a base64 PDF, as its page objects say (a PDF whose pages are in compressed object
/// streams says nothing: 0, so that no limit is reported on a guess).
fn base64_pdf_pages(data: &str) -> usize {
    decoded(data)
        .and_then(|bytes| msgflow_media::pdf_pages(&bytes))
        .unwrap_or(0)
}

/// A request-wide limit: the running total, and where it was first passed.
#[derive(Default)]
struct Limit {
    total: usize,
    passed_at: Option<PartLocation>,
}

impl Limit {
    /// Adds an item's amount; `true` when this item is the one that passes the limit.
    fn add(&mut self, amount: usize, limit: usize, at: PartLocation) -> bool {
        self.total += amount;
        let passes = self.total > limit && self.passed_at.is_none();
        if passes {
            self.passed_at = Some(at);
        }
        passes
    }

    /// The violation of `rule_id` at the item that passed the limit, naming the request's total.
    fn report(&self, provider: Provider, rule_id: &str, violations: &mut Vec<Violation>) {
        if let Some(at) = self.passed_at {
            violations.push(Violation::new(rule(provider, rule_id), at, &[&self.total.to_string()]));
        }
    }
}

/// Anthropic's PDF pages of a request, and the message and block (in the request) of the PDF that
/// passes the limit, which its error names.
#[derive(Default)]
struct AnthropicPdfPages {
    pages: Limit,
    passed_in: [String; 2],
}

impl AnthropicPdfPages {
    fn add(&mut self, data: &str, at: PartLocation, [message, block]: [&str; 2]) {
        if self
            .pages
            .add(base64_pdf_pages(data), limits::ANTHROPIC_MAX_PDF_PAGES, at)
        {
            self.passed_in = [message.to_owned(), block.to_owned()];
        }
    }

    fn finish(self, violations: &mut Vec<Violation>) {
        if let Some(at) = self.pages.passed_at {
            let [message, block] = &self.passed_in;
            violations.push(Violation::new(
                rule(Provider::Anthropic, "anthropic/pdf-too-many-pages"),
                at,
                &[message, block, &self.pages.total.to_string()],
            ));
        }
    }
}

/// OpenAI's media rules (both APIs): each image's type and animation, checked as it is met, and
/// the request's totals of images, image payload, PDF pages and file bytes, reported once at the
/// item that passes each limit ([`OpenAiMedia::finish`]).
struct OpenAiMedia {
    provider: Provider,
    images: Limit,
    image_payload: Limit,
    pdf_pages: Limit,
    file_bytes: Limit,
}

impl OpenAiMedia {
    fn new(provider: Provider) -> Self {
        OpenAiMedia {
            provider,
            images: Limit::default(),
            image_payload: Limit::default(),
            pdf_pages: Limit::default(),
            file_bytes: Limit::default(),
        }
    }

    fn rule_id(&self, name: &str) -> String {
        format!("{}/{name}", self.provider.name())
    }

    fn image(&mut self, url: &str, at: PartLocation, violations: &mut Vec<Violation>) {
        let _ = self.images.add(1, limits::OPENAI_MAX_IMAGES, at);
        let Some((media_type, data)) = data_uri_parts(url) else {
            return;
        };
        let _ = self.image_payload.add(url.len(), limits::OPENAI_MAX_IMAGE_PAYLOAD, at);
        if !limits::OPENAI_IMAGE_TYPES.contains(&media_type) {
            violations.push(Violation::new(
                rule(self.provider, &self.rule_id("image-media-type")),
                at,
                &[],
            ));
        } else if media_type == "image/gif"
            && decoded(data)
                .and_then(|bytes| msgflow_media::gif_frames(&bytes))
                .is_some_and(|frames| frames > 1)
        {
            violations.push(Violation::new(
                rule(self.provider, &self.rule_id("animated-gif")),
                at,
                &[],
            ));
        }
    }

    fn file(&mut self, file_data: &str, at: PartLocation) {
        let Some((media_type, data)) = data_uri_parts(file_data) else {
            return;
        };
        let _ = self
            .file_bytes
            .add(decoded_len(data), limits::OPENAI_MAX_FILE_BYTES, at);
        if media_type == "application/pdf" {
            let _ = self
                .pdf_pages
                .add(base64_pdf_pages(data), limits::OPENAI_MAX_PDF_PAGES, at);
        }
    }

    /// The images and files of Responses input contents.
    fn contents(&mut self, contents: &[InputContent], at: PartLocation, violations: &mut Vec<Violation>) {
        for content in contents {
            match content {
                InputContent::InputImage {
                    image_url: Some(url), ..
                } => self.image(url, at, violations),
                InputContent::InputFile {
                    file_data: Some(data), ..
                } => self.file(data, at),
                _ => {}
            }
        }
    }

    fn finish(self, violations: &mut Vec<Violation>) {
        let provider = self.provider;
        self.images
            .report(provider, &self.rule_id("too-many-images"), violations);
        self.image_payload
            .report(provider, &self.rule_id("images-too-large"), violations);
        self.pdf_pages
            .report(provider, &self.rule_id("pdf-too-many-pages"), violations);
        self.file_bytes
            .report(provider, &self.rule_id("files-too-large"), violations);
    }
}

fn check_openai_chat(history: &[ModelMessage], options: &ExportOptions) -> Result<Vec<Violation>, ExportError> {
    let exported = openai_chat::export_with(history, &options.openai_chat_thinking, options.openai_thinking)?;
    let messages = &exported.request.messages;
    let provider = Provider::OpenAiChat;
    let mut violations = Vec::new();
    let mut media = OpenAiMedia::new(provider);
    // The calls the run of tool messages being read may answer: those of the assistant message
    // right before the run.
    let mut open: Vec<(&str, PartLocation)> = Vec::new();
    let mut answerable: HashSet<&str> = HashSet::new();
    let flush = |open: &mut Vec<(&str, PartLocation)>, violations: &mut Vec<Violation>| {
        for (id, at) in open.drain(..) {
            violations.push(Violation::new(
                rule(provider, "openai-chat/tool-calls-without-response"),
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
                        rule(provider, "openai-chat/tool-without-call"),
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
                                rule(provider, "openai-chat/tool-call-id-too-long"),
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

fn check_openai_responses(history: &[ModelMessage], options: &ExportOptions) -> Result<Vec<Violation>, ExportError> {
    let exported = openai_responses::export_with(history, options.openai_thinking)?;
    let provider = Provider::OpenAiResponses;
    let mut violations = Vec::new();
    let mut media = OpenAiMedia::new(provider);
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
                                rule(provider, "openai-responses/function-call-without-reasoning"),
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
                        rule(provider, "openai-responses/output-without-call"),
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
                rule(provider, "openai-responses/call-without-output"),
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

fn check_gemini(history: &[ModelMessage]) -> Vec<Violation> {
    let provider = Provider::Gemini;
    let mut violations = Vec::new();
    if let Some(at) = gemini_inline_overflow(history) {
        violations.push(Violation::new(rule(provider, "gemini/inline-data-too-large"), at, &[]));
    }
    for (index, message) in history.iter().enumerate() {
        let ModelMessage::Response(response) = message else {
            continue;
        };
        let calls: Vec<(usize, &str)> = response
            .parts
            .iter()
            .enumerate()
            .filter_map(|(part, item)| match item {
                ModelResponsePart::ToolCall(call) => {
                    Some((part, call.tool_call_id.get().map(String::as_str).unwrap_or_default()))
                }
                _ => None,
            })
            .collect();
        let Some(&(first_call, _)) = calls.first() else {
            continue;
        };
        let at = PartLocation {
            message: index,
            part: first_call,
        };
        if !matches!(
            index.checked_sub(1).map(|previous| &history[previous]),
            Some(ModelMessage::Request(_))
        ) {
            violations.push(Violation::new(
                rule(provider, "gemini/function-call-turn-order"),
                at,
                &[],
            ));
        }
        let responses: Vec<&str> = match history.get(index + 1) {
            Some(ModelMessage::Request(request)) => request
                .parts
                .iter()
                .filter_map(|part| match part {
                    ModelRequestPart::ToolReturn(ret) => {
                        Some(ret.tool_call_id.get().map(String::as_str).unwrap_or_default())
                    }
                    ModelRequestPart::RetryPrompt(retry) if retry.tool_name.get().is_some() => {
                        Some(retry.tool_call_id.get().map(String::as_str).unwrap_or_default())
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let call_ids: HashSet<&str> = calls.iter().map(|(_, id)| *id).collect();
        let response_ids: HashSet<&str> = responses.iter().copied().collect();
        if responses.len() != calls.len() || call_ids != response_ids {
            let unanswered = calls
                .iter()
                .find(|(_, id)| !response_ids.contains(id))
                .map_or(first_call, |(part, _)| *part);
            violations.push(Violation::new(
                rule(provider, "gemini/function-response-count"),
                PartLocation {
                    message: index,
                    part: unanswered,
                },
                &[],
            ));
        }
    }
    violations
}

/// Where the history's inline data passes Gemini's limit: the part holding the binary item that
/// takes the total of their base64 text past it. `GoogleModel` sends the whole history in one
/// request, and as `inline_data` every `BinaryContent` of a user prompt and of a tool result
/// (`_resolve_file`) and every `FilePart` of a response; a URL it downloads first is not counted
/// (msgflow cannot know its size).
fn gemini_inline_overflow(history: &[ModelMessage]) -> Option<PartLocation> {
    // The base64 text as sent: padded, so a multiple of 4 characters.
    let sent = |data: &msgflow_wire::Base64Data| data.as_str().len().div_ceil(4) * 4;
    let mut total = 0usize;
    for (message_index, message) in history.iter().enumerate() {
        let parts: Vec<usize> = match message {
            ModelMessage::Request(request) => request
                .parts
                .iter()
                .map(|part| match part {
                    ModelRequestPart::UserPrompt(user) => match &user.content {
                        UserPromptContent::Items(items) => items
                            .iter()
                            .map(|item| match item {
                                UserContent::Binary(binary) => sent(&binary.data),
                                _ => 0,
                            })
                            .sum(),
                        UserPromptContent::Text(_) => 0,
                    },
                    ModelRequestPart::ToolReturn(ret) => tool_return_inline_base64(ret),
                    _ => 0,
                })
                .collect(),
            ModelMessage::Response(response) => response
                .parts
                .iter()
                .map(|part| match part {
                    ModelResponsePart::File(file) => sent(&file.content.data),
                    _ => 0,
                })
                .collect(),
        };
        for (part_index, size) in parts.into_iter().enumerate() {
            total += size;
            if total > limits::GEMINI_MAX_INLINE_BASE64 {
                return Some(PartLocation {
                    message: message_index,
                    part: part_index,
                });
            }
        }
    }
    None
}

/// The base64 text of a tool result's binary files (the content, or items of a content list, that
/// are `BinaryContent` objects); the content is read only when its text holds one.
fn tool_return_inline_base64(ret: &msgflow_wire::ToolReturnPart) -> usize {
    if !ret.content.get().contains("\"binary\"") {
        return 0;
    }
    let Ok(content) = ret.content.try_to_value() else {
        return 0;
    };
    let binary_size = |value: &serde_json::Value| match value {
        serde_json::Value::Object(map) if map.get("kind").and_then(serde_json::Value::as_str) == Some("binary") => map
            .get("data")
            .and_then(serde_json::Value::as_str)
            .map_or(0, |data| data.len().div_ceil(4) * 4),
        _ => 0,
    };
    match &content {
        serde_json::Value::Array(items) => items.iter().map(binary_size).sum(),
        other => binary_size(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_results_binary_files_count_as_inline_data() {
        let history = msgflow_wire::from_str(
            r#"[{"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"t","tool_call_id":"c",
            "content":["shot",{"kind":"binary","data":"aGVsbG8","media_type":"image/png"},{"kind":"binary","data":"aGk=","media_type":"application/pdf"}],
            "timestamp":"2026-03-14T09:00:00Z"}]}]"#,
        )
        .unwrap();
        let ModelMessage::Request(request) = &history[0] else {
            unreachable!()
        };
        let ModelRequestPart::ToolReturn(ret) = &request.parts[0] else {
            unreachable!()
        };
        // `aGVsbG8` is sent padded (`aGVsbG8=`): 8 characters, then 4.
        assert_eq!(tool_return_inline_base64(ret), 12);
    }

    #[test]
    fn seen_ids_tell_each_id_again_after_the_table_grows() {
        let mut seen = SeenIds::default();
        let ids: Vec<String> = (0..5_000).map(|n| format!("toolu_{n}")).collect();
        for id in &ids {
            assert!(seen.insert(id), "{id} is new");
        }
        assert!(seen.insert(""), "the empty id is new");
        for id in ids.iter().rev() {
            assert!(!seen.insert(id), "{id} was seen");
        }
        assert!(!seen.insert(""));
        // It extends the seen `toolu_500`.
        assert!(seen.insert("toolu_5000"));
    }
}
