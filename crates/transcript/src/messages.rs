//! The conversation: one `<article>` per message, one `<section>` per part, markers at their
//! message and part, tool calls and results linked both ways.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;

use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, ToolReturnOutcome,
    UserContent, UserPromptContent,
};

use crate::display::{arguments_for_display, json_for_display, pretty, retry_feedback_label, setup_note};
use crate::escape::push_escaped;
use crate::markdown::push_markdown;
use crate::media::{push_binary, push_url_item};
use crate::Marker;

/// Tool output longer than this many lines (or [`COLLAPSE_CHARS`] characters) starts collapsed.
const COLLAPSE_LINES: usize = 24;
const COLLAPSE_CHARS: usize = 3000;

/// A part's place: message and part index.
type Pos = (usize, usize);

/// Calls and the results that answer them, paired by `tool_call_id`, each result with the oldest
/// call of its id still open (as `msgflow check` pairs them, after pydantic-ai's
/// `_clean_message_history`, which expects a result right after its call).
#[derive(Default)]
pub struct Pairing {
    result_of: HashMap<Pos, Pos>,
    call_of: HashMap<Pos, Pos>,
}

impl Pairing {
    pub fn of(history: &[ModelMessage]) -> Self {
        let mut pairing = Pairing::default();
        let mut open: HashMap<&str, VecDeque<Pos>> = HashMap::new();
        let mut open_builtin: HashMap<&str, VecDeque<Pos>> = HashMap::new();
        let mut answer = |open: &mut HashMap<&str, VecDeque<Pos>>, id: Option<&str>, at: Pos| {
            if let Some(call) = id.and_then(|id| open.get_mut(id)).and_then(VecDeque::pop_front) {
                pairing.result_of.insert(call, at);
                pairing.call_of.insert(at, call);
            }
        };
        for (index, message) in history.iter().enumerate() {
            match message {
                ModelMessage::Request(request) => {
                    for (part_index, part) in request.parts.iter().enumerate() {
                        let id = match part {
                            ModelRequestPart::ToolReturn(part) => part.tool_call_id.get(),
                            ModelRequestPart::RetryPrompt(part) if part.tool_name.is_present() => {
                                part.tool_call_id.get()
                            }
                            _ => continue,
                        };
                        answer(&mut open, id.map(String::as_str), (index, part_index));
                    }
                }
                ModelMessage::Response(response) => {
                    for (part_index, part) in response.parts.iter().enumerate() {
                        let at = (index, part_index);
                        match part {
                            ModelResponsePart::ToolCall(part) => {
                                if let Some(id) = part.tool_call_id.get() {
                                    open.entry(id.as_str()).or_default().push_back(at);
                                }
                            }
                            ModelResponsePart::BuiltinToolCall(part) => {
                                if let Some(id) = part.tool_call_id.get() {
                                    open_builtin.entry(id.as_str()).or_default().push_back(at);
                                }
                            }
                            ModelResponsePart::BuiltinToolReturn(part) => {
                                answer(&mut open_builtin, part.tool_call_id.get().map(String::as_str), at);
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        pairing
    }
}

/// Writes the messages of one history.
pub struct Messages<'a> {
    pub out: &'a mut String,
    pub pairing: &'a Pairing,
    /// Markers by message, then by part (`None`: about the message).
    pub markers: &'a HashMap<usize, Vec<&'a Marker>>,
    pub tokens: Option<&'a [usize]>,
    /// The turn each message starts, if it starts one.
    pub turn_starts: &'a HashMap<usize, usize>,
    pub max_embedded: usize,
}

impl Messages<'_> {
    pub fn message(&mut self, index: usize, message: &ModelMessage) {
        let markers = self.markers.get(&index).map_or(&[][..], Vec::as_slice);
        let kind = match message {
            ModelMessage::Request(_) => "request",
            ModelMessage::Response(_) => "response",
        };
        if let Some(turn) = self.turn_starts.get(&index) {
            let _ = write!(self.out, "<div class=\"turn\" id=\"turn{turn}\">turn {turn}</div>");
        }
        let _ = write!(self.out, "<article class=\"msg {kind}");
        if !markers.is_empty() {
            self.out.push_str(" has-problem");
        }
        let _ = write!(self.out, "\" id=\"m{index}\" data-index=\"{index}\">");
        let _ = write!(
            self.out,
            "<header class=\"msg-head\"><a class=\"num\" href=\"#m{index}\">#{index}</a> <span class=\"role\">{kind}</span>"
        );
        let part_count = match message {
            ModelMessage::Request(request) => {
                self.request_head(request);
                request.parts.len()
            }
            ModelMessage::Response(response) => {
                self.response_head(response);
                response.parts.len()
            }
        };
        if let Some(tokens) = self.tokens.and_then(|tokens| tokens.get(index)) {
            let _ = write!(self.out, " <span class=\"meta tokens\">{tokens} tokens</span>");
        }
        if !markers.is_empty() {
            let _ = write!(
                self.out,
                " <span class=\"badge problem\">{} problem{}</span>",
                markers.len(),
                if markers.len() == 1 { "" } else { "s" }
            );
        }
        self.out.push_str("</header>");
        // Markers about the message, or about a part it does not have.
        for marker in markers
            .iter()
            .filter(|marker| marker.part.is_none_or(|part| part >= part_count))
        {
            push_marker(self.out, marker);
        }
        match message {
            ModelMessage::Request(request) => self.request_parts(index, request, markers),
            ModelMessage::Response(response) => self.response_parts(index, response, markers),
        }
        self.out.push_str("</article>\n");
    }

    fn meta(&mut self, class: &str, text: &str) {
        let _ = write!(self.out, " <span class=\"meta {class}\">");
        push_escaped(self.out, text);
        self.out.push_str("</span>");
    }

    fn request_head(&mut self, request: &ModelRequest) {
        if let Some(timestamp) = request.timestamp.get() {
            self.meta("time", &timestamp.to_string());
        }
        if let Some(state) = request.state.get().filter(|state| state.as_str() != "complete") {
            self.meta("state", &format!("state: {}", state.as_str()));
        }
    }

    fn response_head(&mut self, response: &ModelResponse) {
        let model = response.model_name.get().or(response.model_id.get());
        if let Some(model) = model {
            self.meta("model", model);
        }
        if let Some(provider) = response.provider_name.get() {
            self.meta("provider", provider);
        }
        if let Some(timestamp) = response.timestamp.get() {
            self.meta("time", &timestamp.to_string());
        }
        if let Some(reason) = response.finish_reason.get() {
            self.meta("finish", &format!("finish: {}", reason.as_str()));
        }
        if let Some(usage) = response.usage.get() {
            let tokens = |field: &Field<msgflow_wire::Int>, legacy: &Field<msgflow_wire::Int>| {
                field.get().or(legacy.get()).map(ToString::to_string)
            };
            let input = tokens(&usage.input_tokens, &usage.request_tokens);
            let output = tokens(&usage.output_tokens, &usage.response_tokens);
            if input.is_some() || output.is_some() {
                let text = format!(
                    "usage: {} in, {} out",
                    input.as_deref().unwrap_or("0"),
                    output.as_deref().unwrap_or("0")
                );
                self.meta("usage", &text);
            }
        }
        if let Some(state) = response.state.get().filter(|state| state.as_str() != "complete") {
            self.meta("state", &format!("state: {}", state.as_str()));
        }
    }

    /// Opens a part's section: its label (escaped) and the markers about it.
    fn open_part(&mut self, at: Pos, class: &str, label: &str, markers: &[&Marker]) {
        let (message, part) = at;
        let _ = write!(
            self.out,
            "<section class=\"part {class}\" id=\"m{message}p{part}\" data-part=\"{part}\"><div class=\"label\">"
        );
        push_escaped(self.out, label);
        self.out.push_str("</div>");
        for marker in markers.iter().filter(|marker| marker.part == Some(part)) {
            push_marker(self.out, marker);
        }
    }

    fn close_part(&mut self) {
        self.out.push_str("</section>");
    }

    fn markdown_part(&mut self, at: Pos, class: &str, label: &str, text: &str, markers: &[&Marker]) {
        self.open_part(at, class, label, markers);
        self.out.push_str("<div class=\"md\">");
        push_markdown(self.out, text);
        self.out.push_str("</div>");
        self.close_part();
    }

    fn note_part(&mut self, at: Pos, text: &str, markers: &[&Marker]) {
        self.open_part(at, "note", text, markers);
        self.close_part();
    }

    fn request_parts(&mut self, index: usize, request: &ModelRequest, markers: &[&Marker]) {
        if let Some(instructions) = request.instructions.get() {
            self.out.push_str(
                "<section class=\"part system instructions\"><div class=\"label\">instructions</div><div class=\"md\">",
            );
            push_markdown(self.out, instructions);
            self.out.push_str("</div></section>");
        }
        for (part_index, part) in request.parts.iter().enumerate() {
            let at = (index, part_index);
            match part {
                ModelRequestPart::SystemPrompt(part) => {
                    self.markdown_part(at, "system", "system prompt", &part.content, markers)
                }
                ModelRequestPart::UserPrompt(part) => {
                    self.open_part(at, "user", "user", markers);
                    self.user_content(&part.content);
                    self.close_part();
                }
                ModelRequestPart::Speech(part) => self.markdown_part(
                    at,
                    "user",
                    &format!("speech ({})", part.speaker.as_str()),
                    part.transcript.get().map_or("[audio]", String::as_str),
                    markers,
                ),
                ModelRequestPart::ToolReturn(part) => {
                    let synthesized = part
                        .metadata
                        .get()
                        .and_then(|metadata| metadata.to_value().get("pydantic_ai_synthesized_tool_return").cloned())
                        .is_some_and(|value| value == serde_json::Value::Bool(true));
                    let outcome = part.outcome.get().map_or("success", ToolReturnOutcome::as_str);
                    let label = format!("tool result {}{}", part.tool_name, id_suffix(&part.tool_call_id));
                    self.result(at, &label, outcome, synthesized, &part.content, markers);
                }
                ModelRequestPart::RetryPrompt(part) => match part.tool_name.get() {
                    Some(name) => {
                        let label = format!("tool result {name}{}", id_suffix(&part.tool_call_id));
                        self.result(at, &label, "retried", false, &part.content, markers);
                    }
                    None => {
                        self.open_part(at, "retry", "retry (the model is asked to try again)", markers);
                        self.preformatted(&json_for_display(&part.content));
                        self.close_part();
                    }
                },
                ModelRequestPart::RetryFeedback(part) => {
                    self.open_part(at, "retry", &retry_feedback_label(part), markers);
                    self.preformatted(&json_for_display(&part.content));
                    self.close_part();
                }
                ModelRequestPart::ToolAvailabilityDelta(_)
                | ModelRequestPart::CapabilityLoadDelta(_)
                | ModelRequestPart::ModelSettingsDelta(_)
                | ModelRequestPart::InstructionBaseline(_) => {
                    self.note_part(at, &setup_note(part).unwrap_or_default(), markers)
                }
                ModelRequestPart::InstructionDelta(part) => match &part.content {
                    Some(content) => self.markdown_part(at, "system", "instruction change", content, markers),
                    None => self.note_part(at, &format!("instruction {} removed", part.id.get()), markers),
                },
                ModelRequestPart::Compaction(part) => {
                    self.open_part(at, "note", "compaction", markers);
                    self.preformatted(part.content.get().map_or("[compacted history]", String::as_str));
                    self.close_part();
                }
                ModelRequestPart::Unknown(part) => {
                    let tag = part.tag("part_kind").unwrap_or_else(|| "?".to_owned());
                    self.note_part(at, &format!("part of unknown kind `{tag}` (kept as written)"), markers);
                }
            }
        }
    }

    fn response_parts(&mut self, index: usize, response: &ModelResponse, markers: &[&Marker]) {
        for (part_index, part) in response.parts.iter().enumerate() {
            let at = (index, part_index);
            match part {
                ModelResponsePart::Text(part) => {
                    self.markdown_part(at, "assistant", "assistant", &part.content, markers)
                }
                ModelResponsePart::Thinking(part) => {
                    self.open_part(at, "thinking", "thinking", markers);
                    let _ = write!(
                        self.out,
                        "<details class=\"thinking\"><summary>{} characters of thinking</summary><div class=\"md\">",
                        part.content.chars().count()
                    );
                    push_markdown(self.out, &part.content);
                    self.out.push_str("</div></details>");
                    self.close_part();
                }
                ModelResponsePart::ToolCall(part) => {
                    let label = format!("tool call {}{}", part.tool_name, id_suffix(&part.tool_call_id));
                    self.call(at, "tool-call", &label, &part.args, markers);
                }
                ModelResponsePart::BuiltinToolCall(part) => {
                    let label = format!("builtin tool call {}{}", part.tool_name, id_suffix(&part.tool_call_id));
                    self.call(at, "tool-call builtin", &label, &part.args, markers);
                }
                ModelResponsePart::BuiltinToolReturn(part) => {
                    let outcome = part.outcome.get().map_or("success", ToolReturnOutcome::as_str);
                    let label = format!(
                        "builtin tool result {}{}",
                        part.tool_name,
                        id_suffix(&part.tool_call_id)
                    );
                    self.result(at, &label, outcome, false, &part.content, markers);
                }
                ModelResponsePart::Compaction(part) => {
                    self.open_part(at, "note", "compaction", markers);
                    self.preformatted(part.content.get().map_or("[compacted history]", String::as_str));
                    self.close_part();
                }
                ModelResponsePart::File(part) => {
                    self.open_part(at, "assistant", "file", markers);
                    push_binary(self.out, &part.content, self.max_embedded);
                    self.close_part();
                }
                ModelResponsePart::Speech(part) => self.markdown_part(
                    at,
                    "assistant",
                    &format!("speech ({})", part.speaker.as_str()),
                    part.transcript.get().map_or("[audio]", String::as_str),
                    markers,
                ),
                ModelResponsePart::Unknown(part) => {
                    let tag = part.tag("part_kind").unwrap_or_else(|| "?".to_owned());
                    self.note_part(at, &format!("part of unknown kind `{tag}` (kept as written)"), markers);
                }
            }
        }
    }

    fn call(&mut self, at: Pos, class: &str, label: &str, args: &Field<RawJson>, markers: &[&Marker]) {
        self.open_part(at, class, label, markers);
        match self.pairing.result_of.get(&at) {
            Some(&(message, part)) => {
                let _ = write!(
                    self.out,
                    "<a class=\"to-result\" href=\"#m{message}p{part}\">result in #{message} &darr;</a>"
                );
            }
            None => self.out.push_str("<span class=\"badge outcome-none\">no result</span>"),
        }
        let text = arguments_for_display(args);
        self.preformatted(&text);
        self.close_part();
    }

    fn result(
        &mut self,
        at: Pos,
        label: &str,
        outcome: &str,
        synthesized: bool,
        content: &RawJson,
        markers: &[&Marker],
    ) {
        let outcome_class: String = outcome
            .chars()
            .filter(|character| character.is_ascii_alphanumeric() || *character == '-')
            .collect();
        self.open_part(at, &format!("tool-result outcome-{outcome_class}"), label, markers);
        self.out.push_str("<span class=\"badge outcome\">");
        push_escaped(self.out, outcome);
        self.out.push_str("</span>");
        if synthesized {
            self.out
                .push_str(" <span class=\"badge synthesized\">synthesized by repair</span>");
        }
        match self.pairing.call_of.get(&at) {
            Some(&(message, part)) => {
                let _ = write!(
                    self.out,
                    " <a class=\"to-call\" href=\"#m{message}p{part}\">&uarr; call in #{message}</a>"
                );
            }
            None => self
                .out
                .push_str(" <span class=\"badge outcome-none\">no matching call</span>"),
        }
        self.preformatted(&json_for_display(content));
        self.close_part();
    }

    /// Text as written (tool arguments and output), collapsed when long.
    fn preformatted(&mut self, text: &str) {
        let text = text.trim_end_matches('\n');
        let lines = text.lines().count();
        let chars = text.len();
        let long = lines > COLLAPSE_LINES || chars > COLLAPSE_CHARS;
        if long {
            let _ = write!(
                self.out,
                "<details class=\"long\"><summary>{lines} lines, {} characters</summary>",
                text.chars().count()
            );
        }
        self.out.push_str("<pre>");
        push_escaped(self.out, text);
        self.out.push_str("</pre>");
        if long {
            self.out.push_str("</details>");
        }
    }

    fn user_content(&mut self, content: &UserPromptContent) {
        match content {
            UserPromptContent::Text(text) => {
                self.out.push_str("<div class=\"md\">");
                push_markdown(self.out, text);
                self.out.push_str("</div>");
            }
            UserPromptContent::Items(items) => {
                for item in items {
                    self.user_item(item);
                }
            }
        }
    }

    fn user_item(&mut self, item: &UserContent) {
        match item {
            UserContent::Text(text) => {
                self.out.push_str("<div class=\"md\">");
                push_markdown(self.out, text);
                self.out.push_str("</div>");
            }
            UserContent::TextContent(item) => {
                self.out.push_str("<div class=\"md\">");
                push_markdown(self.out, &item.content);
                self.out.push_str("</div>");
            }
            UserContent::StructuredContent(item) => match item.content.get() {
                Some(text) => self.preformatted(text),
                None => self.preformatted(&pretty(&item.value.to_value())),
            },
            UserContent::ImageUrl(item) => push_url_item(
                self.out,
                "image URL",
                &item.url,
                item.media_type.get().map(String::as_str),
            ),
            UserContent::AudioUrl(item) => push_url_item(
                self.out,
                "audio URL",
                &item.url,
                item.media_type.get().map(String::as_str),
            ),
            UserContent::VideoUrl(item) => push_url_item(
                self.out,
                "video URL",
                &item.url,
                item.media_type.get().map(String::as_str),
            ),
            UserContent::DocumentUrl(item) => push_url_item(
                self.out,
                "document URL",
                &item.url,
                item.media_type.get().map(String::as_str),
            ),
            UserContent::Binary(item) => push_binary(self.out, item, self.max_embedded),
            UserContent::UploadedFile(item) => {
                self.out
                    .push_str("<div class=\"media\"><span class=\"badge\">uploaded file</span> ");
                push_escaped(self.out, &format!("{} ({})", item.file_id, item.provider_name.as_str()));
                self.out.push_str("</div>");
            }
            UserContent::CachePoint(_) => self.out.push_str("<div class=\"note\">cache point</div>"),
            UserContent::Unknown(item) => {
                self.out.push_str("<div class=\"note\">");
                push_escaped(
                    self.out,
                    &format!("content of unknown kind `{}`", item.tag("kind").unwrap_or_default()),
                );
                self.out.push_str("</div>");
            }
        }
    }
}

/// Appends a marker: who says it and the text it prints.
pub fn push_marker(out: &mut String, marker: &Marker) {
    let _ = write!(out, "<div class=\"marker\" data-message=\"{}\"", marker.message);
    if let Some(part) = marker.part {
        let _ = write!(out, " data-part=\"{part}\"");
    }
    out.push_str("><span class=\"marker-source\">");
    push_escaped(out, &marker.source);
    out.push_str("</span> <span class=\"marker-text\">");
    push_escaped(out, &marker.text);
    out.push_str("</span></div>");
}

fn id_suffix(id: &Field<String>) -> String {
    id.get().map(|id| format!(" [{id}]")).unwrap_or_default()
}
