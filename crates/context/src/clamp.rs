//! Clamping oversized parts: the head and the tail of the text are kept, a marker between them
//! says how much was removed.
//!
//! Two semantics:
//!
//! * [`clamp_parts`], msgflow's: every text a model is sent, request side included (response
//!   text and thinking, user prompt text, tool return content), over `max_bytes` bytes, cut on
//!   character boundaries so that the result, marker included, is at most `max_bytes` bytes (so
//!   clamping twice changes nothing).
//! * [`clamp_like_harness`], pydantic-ai-harness 0.62.0's `ClampOversizedMessages.compact`:
//!   response `text` parts and plain `tool-call` arguments only, counted in characters, with its
//!   marker (`\n[clamped: removed N of M characters]\n`) and `{"_clamped": ...}` arguments.

use msgflow_wire::{Field, ModelMessage, ModelRequestPart, ModelResponsePart, RawJson, UserContent, UserPromptContent};
use serde::Serialize;

/// The smallest `max_bytes` [`clamp_parts`] accepts: room for its marker and some text.
pub const MIN_CLAMP_BYTES: usize = 128;

/// One clamped part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClampedPart {
    /// The message.
    pub message: usize,
    /// The part.
    pub part: usize,
    /// Its `part_kind`.
    pub part_kind: &'static str,
    /// Its text's bytes before.
    pub original_bytes: usize,
    /// After.
    pub clamped_bytes: usize,
}

fn marker(removed: usize, original: usize) -> String {
    format!("\n[msgflow: clamped {removed} of {original} bytes]\n")
}

/// `text` cut to at most `max_bytes` bytes (head, marker, tail), or `None` when it fits.
pub fn clamp_text(text: &str, max_bytes: usize) -> Option<String> {
    if text.len() <= max_bytes {
        return None;
    }
    // The marker's numbers have at most as many digits as the original length.
    let room = max_bytes.saturating_sub(marker(text.len(), text.len()).len());
    let mut head = room / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (room - room / 2);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let removed = tail - head;
    let clamped = format!("{}{}{}", &text[..head], marker(removed, text.len()), &text[tail..]);
    (clamped.len() < text.len()).then_some(clamped)
}

/// Clamps every text, thinking, user prompt text and tool return over `max_bytes` bytes
/// (`max_bytes` at least [`MIN_CLAMP_BYTES`]: smaller values clamp to that). A tool return whose
/// content is not a string is clamped as its JSON text, and becomes that string.
pub fn clamp_parts(history: &mut [ModelMessage], max_bytes: usize) -> Vec<ClampedPart> {
    let max_bytes = max_bytes.max(MIN_CLAMP_BYTES);
    let mut clamped = Vec::new();
    for (message_index, message) in history.iter_mut().enumerate() {
        let mut note = |part: usize, part_kind: &'static str, original: usize, now: usize| {
            clamped.push(ClampedPart {
                message: message_index,
                part,
                part_kind,
                original_bytes: original,
                clamped_bytes: now,
            });
        };
        match message {
            ModelMessage::Request(request) => {
                for (index, part) in request.parts.iter_mut().enumerate() {
                    match part {
                        ModelRequestPart::UserPrompt(user) => match &mut user.content {
                            UserPromptContent::Text(text) => {
                                if let Some(short) = clamp_text(text, max_bytes) {
                                    note(index, "user-prompt", text.len(), short.len());
                                    *text = short;
                                }
                            }
                            UserPromptContent::Items(items) => {
                                for item in items {
                                    let text = match item {
                                        UserContent::Text(text) => text,
                                        UserContent::TextContent(content) => &mut content.content,
                                        _ => continue,
                                    };
                                    if let Some(short) = clamp_text(text, max_bytes) {
                                        note(index, "user-prompt", text.len(), short.len());
                                        *text = short;
                                    }
                                }
                            }
                        },
                        ModelRequestPart::ToolReturn(ret) => {
                            let text = ret.content.as_string().unwrap_or_else(|| ret.content.get().to_owned());
                            if let Some(short) = clamp_text(&text, max_bytes) {
                                note(index, "tool-return", text.len(), short.len());
                                ret.content = RawJson::string(&short);
                                // String content has no `content_file_digests` in pydantic-ai's dump.
                                ret.content_file_digests = Field::Absent;
                            }
                        }
                        _ => {}
                    }
                }
            }
            ModelMessage::Response(response) => {
                for (index, part) in response.parts.iter_mut().enumerate() {
                    let (text, kind) = match part {
                        ModelResponsePart::Text(text) => (&mut text.content, "text"),
                        ModelResponsePart::Thinking(thinking) => (&mut thinking.content, "thinking"),
                        _ => continue,
                    };
                    if let Some(short) = clamp_text(text, max_bytes) {
                        note(index, kind, text.len(), short.len());
                        *text = short;
                    }
                }
            }
        }
    }
    clamped
}

/// The parameters of pydantic-ai-harness's `ClampOversizedMessages` that decide what `compact`
/// does (its `tokenizer` is the default ~4 characters per token).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarnessClamp {
    /// `max_part_tokens` (characters / 4).
    pub max_part_tokens: Option<usize>,
    /// `max_part_chars`.
    pub max_part_chars: Option<usize>,
    /// `keep_head_chars` (default 2000).
    pub keep_head_chars: usize,
    /// `keep_tail_chars` (default 2000).
    pub keep_tail_chars: usize,
    /// `clamp_tool_call_args` (default true).
    pub clamp_tool_call_args: bool,
}

impl Default for HarnessClamp {
    fn default() -> Self {
        HarnessClamp {
            max_part_tokens: None,
            max_part_chars: None,
            keep_head_chars: 2000,
            keep_tail_chars: 2000,
            clamp_tool_call_args: true,
        }
    }
}

impl HarnessClamp {
    /// `ClampOversizedMessages._clamp`: Python slicing by code points, `None` when not oversized
    /// or when the result would not be shorter.
    fn clamp(&self, text: &str) -> Option<String> {
        let chars: Vec<char> = text.chars().collect();
        let len = chars.len();
        let oversized =
            self.max_part_chars.is_some_and(|max| len > max) || self.max_part_tokens.is_some_and(|max| len / 4 > max);
        if !oversized {
            return None;
        }
        let head = &chars[..self.keep_head_chars.min(len)];
        // `text[len(text) - keep_tail_chars:]`: a negative start counts from the end, as in Python.
        let tail: &[char] = if self.keep_tail_chars == 0 {
            &[]
        } else {
            let start = len as i64 - self.keep_tail_chars as i64;
            let start = if start < 0 { (start + len as i64).max(0) } else { start };
            &chars[start as usize..]
        };
        let removed = len as i64 - head.len() as i64 - tail.len() as i64;
        let clamped: String = head.iter().collect::<String>()
            + &format!("\n[clamped: removed {removed} of {len} characters]\n")
            + &tail.iter().collect::<String>();
        (clamped.chars().count() < len).then_some(clamped)
    }
}

/// pydantic-ai's `ToolCallPart.args_as_json_str()`: the compact JSON of `args_as_dict()`, which
/// is `{}` for no arguments, the object itself, a JSON string parsed when it holds an object, and
/// `{"INVALID_JSON": "<raw args>"}` for anything else.
fn args_as_json_str(args: Option<&RawJson>) -> String {
    let Some(args) = args else {
        return "{}".to_owned();
    };
    if args.is_object() {
        // Read objects are kept in compact form (msgflow-wire compacts them on reading).
        return args.get().to_owned();
    }
    match args.as_string() {
        None => "{}".to_owned(),
        Some(text) if text.is_empty() => "{}".to_owned(),
        Some(text) => match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(value @ serde_json::Value::Object(_)) => value.to_string(),
            _ => serde_json::json!({ "INVALID_JSON": text }).to_string(),
        },
    }
}

/// pydantic-ai-harness 0.62.0's `ClampOversizedMessages.compact` on a stored history. Returns
/// how many parts it clamped.
pub fn clamp_like_harness(history: &mut [ModelMessage], options: &HarnessClamp) -> usize {
    let mut clamped = 0;
    for message in history.iter_mut() {
        let ModelMessage::Response(response) = message else {
            continue;
        };
        for part in &mut response.parts {
            match part {
                ModelResponsePart::Text(text) => {
                    if let Some(short) = options.clamp(&text.content) {
                        text.content = short;
                        clamped += 1;
                    }
                }
                // `type(part) is ToolCallPart`: the typed subclasses (tool search, capability
                // load) are never clamped.
                ModelResponsePart::ToolCall(call) if options.clamp_tool_call_args => {
                    let typed = call.tool_kind.get().is_some_and(|kind| {
                        ModelResponsePart::TYPED_ROUTES
                            .iter()
                            .any(|route| route.part_kind == "tool-call" && route.tool_kind == kind)
                    });
                    if typed {
                        continue;
                    }
                    let args = args_as_json_str(call.args.get());
                    if let Some(short) = options.clamp(&args) {
                        call.args = Field::Present(RawJson::from(serde_json::json!({ "_clamped": short })));
                        clamped += 1;
                    }
                }
                _ => {}
            }
        }
    }
    clamped
}
