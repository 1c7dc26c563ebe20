//! Anthropic's rules: the table, and their check on the request msgflow exports.

use msgflow_wire::ModelMessage;

use super::{Block, Message as AnthropicMessage, Role as AnthropicRole, Source as AnthropicSource, ToolResultContent};
use crate::rules::media::{base64_pdf_pages, image_header_dimensions, limits, Limit};
use crate::rules::table::{rule, Rule, Violation};
use crate::{ExportError, ExportOptions, PartLocation};

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
/// The Anthropic rules the request exported from `history` breaks.
pub(crate) fn check(history: &[ModelMessage], options: &ExportOptions) -> Result<Vec<Violation>, ExportError> {
    let crate::Exported {
        mut request,
        mut origins,
    } = super::export_with(history, options.anthropic_thinking)?;
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
                            rule(ANTHROPIC_RULES, "anthropic/duplicate-tool-use-id"),
                            at,
                            &[&index_text(), &block_text()],
                        ));
                    }
                    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
                        violations.push(Violation::new(
                            rule(ANTHROPIC_RULES, "anthropic/tool-use-id-pattern"),
                            at,
                            &[&index_text(), &block_text()],
                        ));
                    }
                    if next_results.binary_search(&id.as_str()).is_err() {
                        violations.push(Violation::new(
                            rule(ANTHROPIC_RULES, "anthropic/tool-use-without-result"),
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
                            rule(ANTHROPIC_RULES, "anthropic/unexpected-tool-result"),
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
                            rule(ANTHROPIC_RULES, "anthropic/whitespace-only-text"),
                            at,
                            &[],
                        ));
                    } else if index + 1 == messages.len()
                        && message.role == AnthropicRole::Assistant
                        && block_index + 1 == message.content.len()
                        && text.ends_with(char::is_whitespace)
                    {
                        violations.push(Violation::new(
                            rule(ANTHROPIC_RULES, "anthropic/final-assistant-trailing-whitespace"),
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
            rule(ANTHROPIC_RULES, "anthropic/request-too-large"),
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
        if !limits::ANTHROPIC_IMAGE_TYPES.contains(&media_type) {
            violations.push(Violation::new(
                rule(ANTHROPIC_RULES, "anthropic/image-media-type"),
                at,
                &[message, block],
            ));
        }
        if data.len() > limits::ANTHROPIC_MAX_IMAGE_BASE64 {
            violations.push(Violation::new(
                rule(ANTHROPIC_RULES, "anthropic/image-too-large"),
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
                    rule(ANTHROPIC_RULES, "anthropic/image-dimensions"),
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
                rule(ANTHROPIC_RULES, "anthropic/pdf-too-many-pages"),
                at,
                &[message, block, &self.pages.total.to_string()],
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
