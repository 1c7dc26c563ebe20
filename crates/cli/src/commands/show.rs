//! `msgflow show`: a history as a readable transcript.
//!
//! Each message gets a header (number, kind, model, time, usage); each part a label (`user`,
//! `assistant`, `thinking`, `tool call NAME [ID]`, ...) and its content indented and wrapped.
//! Tool arguments and output are truncated to `--max-lines` lines unless `--full`. Control
//! characters in the content are shown escaped, so a tool's output cannot drive the terminal.

use std::collections::HashSet;

use clap::Args;
use msgflow_context::tokens::CounterChoice;
use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, ToolReturnOutcome,
    UserContent, UserPromptContent,
};

use msgflow_transcript::display::{arguments_for_display, json_for_display, pretty, retry_feedback_label, setup_note};

use crate::args::{InputArgs, ReportOutputArgs};
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};
use crate::style::{self, ColorChoice, Painter, Role};

mod html;

/// `msgflow show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// When to use colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Wrap text at this many columns (default: the terminal's width, or 100).
    #[arg(long, value_name = "COLUMNS", value_parser = clap::value_parser!(u16).range(20..))]
    pub width: Option<u16>,
    /// Show tool arguments and output whole instead of truncating them.
    #[arg(long)]
    pub full: bool,
    /// Lines of tool arguments and output shown before truncating (ignored with --full).
    #[arg(long, value_name = "N", default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_lines: u32,
    /// Write a self-contained HTML page instead (msgflow-transcript): the chat, check's findings
    /// at their messages, media, and a token chart. In batch mode -o DIR gets one page per input
    /// and an index.html.
    #[arg(long, conflicts_with_all = ["color", "width", "full", "max_lines"])]
    pub html: bool,
    /// With --html: also mark what this provider would reject (as `check --provider` does).
    #[arg(long, value_name = "PROVIDER", requires = "html")]
    pub provider: Option<msgflow_providers::Provider>,
    /// With --html: draw the cumulative token count against a context window of N tokens.
    #[arg(long, value_name = "N", requires = "html")]
    pub context_window: Option<u64>,
    /// With --html: the token counter of the chart (as `stats --tokens --tokenizer`).
    #[arg(long, value_name = "NAME", default_value = "o200k_base", requires = "html")]
    pub tokenizer: CounterChoice,
}

/// The examples and notes after `msgflow show --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow show history.json\n",
    "  msgflow show --full --color always history.json | less -R\n",
    "  msgflow show --width 80 histories/              # batch: one section per file\n",
    "  msgflow show --html history.json -o session.html\n",
    "  msgflow show --html --provider anthropic --context-window 200000 runs/ -o pages/  # one page each + index.html\n\n",
    exit_codes_text!()
);

/// Runs `msgflow show`: a text transcript, or with `--html` a page.
pub fn run(args: &ShowArgs) -> Status {
    if args.html {
        return html::run(args);
    }
    let destination = crate::runner::report_destination(args.output.output.clone());
    let command = Show::from_args(args, crate::runner::output_is_terminal(&destination));
    crate::runner::run(&command, &args.input, &destination)
}

/// Indentation of part labels.
const LABEL_INDENT: &str = "  ";
/// Indentation of part content.
const CONTENT_INDENT: &str = "    ";

/// Renders transcripts.
pub struct Show {
    painter: Painter,
    width: usize,
    max_lines: Option<usize>,
}

impl Show {
    /// The renderer `args` ask for; `output_is_terminal` decides `--color auto` and the width.
    pub fn from_args(args: &ShowArgs, output_is_terminal: bool) -> Self {
        Show {
            painter: Painter::new(style::use_color(args.color, output_is_terminal)),
            width: style::wrap_width(args.width, output_is_terminal),
            max_lines: if args.full {
                None
            } else {
                usize::try_from(args.max_lines).ok()
            },
        }
    }
}

impl FileCommand for Show {
    fn mode(&self) -> Mode {
        Mode::Report { json: false }
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        Ok(Processed {
            output: self.render(&history).into_bytes(),
            ..Processed::default()
        })
    }
}

/// Tool-call ids seen in calls and in answers, to flag calls without a result and results
/// without a call.
struct Pairing {
    called: HashSet<String>,
    answered: HashSet<String>,
}

impl Pairing {
    fn of(history: &[ModelMessage]) -> Self {
        let mut pairing = Pairing {
            called: HashSet::new(),
            answered: HashSet::new(),
        };
        for message in history {
            match message {
                ModelMessage::Request(request) => {
                    for part in &request.parts {
                        let id = match part {
                            ModelRequestPart::ToolReturn(part) => part.tool_call_id.get(),
                            ModelRequestPart::RetryPrompt(part) if part.tool_name.is_present() => {
                                part.tool_call_id.get()
                            }
                            _ => None,
                        };
                        pairing.answered.extend(id.cloned());
                    }
                }
                ModelMessage::Response(response) => {
                    for part in &response.parts {
                        match part {
                            ModelResponsePart::ToolCall(part) => {
                                pairing.called.extend(part.tool_call_id.get().cloned())
                            }
                            ModelResponsePart::BuiltinToolCall(part) => {
                                pairing.called.extend(part.tool_call_id.get().cloned())
                            }
                            ModelResponsePart::BuiltinToolReturn(part) => {
                                pairing.answered.extend(part.tool_call_id.get().cloned())
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

impl Show {
    /// The whole transcript.
    fn render(&self, history: &[ModelMessage]) -> String {
        let pairing = Pairing::of(history);
        let mut out = String::new();
        if history.is_empty() {
            out.push_str(&self.painter.paint(Role::Note, "(empty history: no messages)"));
            out.push('\n');
        }
        for (index, message) in history.iter().enumerate() {
            if index > 0 {
                out.push('\n');
            }
            match message {
                // Numbered from 0, like JSON paths (`$[5]`) and `msgflow check`.
                ModelMessage::Request(request) => self.request(&mut out, index, request, &pairing),
                ModelMessage::Response(response) => self.response(&mut out, index, response, &pairing),
            }
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }

    fn request(&self, out: &mut String, number: usize, request: &ModelRequest, pairing: &Pairing) {
        let mut header = vec![format!("#{number} request")];
        header.extend(request.timestamp.get().map(ToString::to_string));
        if let Some(state) = request.state.get().filter(|state| state.as_str() != "complete") {
            header.push(format!("state: {}", state.as_str()));
        }
        self.header(out, &header);
        if let Some(instructions) = request.instructions.get() {
            self.block(out, Role::System, "instructions", instructions, false);
        }
        for part in &request.parts {
            match part {
                ModelRequestPart::SystemPrompt(part) => self.block(out, Role::System, "system", &part.content, false),
                ModelRequestPart::UserPrompt(part) => {
                    self.block(out, Role::User, "user", &user_prompt_text(&part.content), false)
                }
                ModelRequestPart::Speech(part) => self.block(
                    out,
                    Role::User,
                    &format!("speech ({})", part.speaker.as_str()),
                    part.transcript.get().map_or("[audio]", String::as_str),
                    false,
                ),
                ModelRequestPart::ToolReturn(part) => {
                    let outcome = part.outcome.get();
                    let mut label = format!("tool return {}{}", part.tool_name, id_suffix(&part.tool_call_id));
                    if let Some(outcome) = outcome {
                        label.push_str(&format!(" -> {}", outcome.as_str()));
                    }
                    label.push_str(&unmatched_note(&part.tool_call_id, &pairing.called, "no matching call"));
                    let role = match outcome {
                        None | Some(ToolReturnOutcome::Success) => Role::Success,
                        Some(_) => Role::Failure,
                    };
                    self.block(out, role, &label, &json_for_display(&part.content), true);
                }
                ModelRequestPart::RetryPrompt(part) => {
                    let label = match part.tool_name.get() {
                        Some(name) => format!("retry {name}{}", id_suffix(&part.tool_call_id)),
                        None => "retry".to_owned(),
                    };
                    self.block(out, Role::Failure, &label, &json_for_display(&part.content), true);
                }
                ModelRequestPart::RetryFeedback(part) => self.block(
                    out,
                    Role::Failure,
                    &retry_feedback_label(part),
                    &json_for_display(&part.content),
                    true,
                ),
                ModelRequestPart::ToolAvailabilityDelta(_)
                | ModelRequestPart::CapabilityLoadDelta(_)
                | ModelRequestPart::ModelSettingsDelta(_)
                | ModelRequestPart::InstructionBaseline(_) => self.note(out, &setup_note(part).unwrap_or_default()),
                ModelRequestPart::InstructionDelta(part) => match &part.content {
                    Some(content) => self.block(out, Role::System, "instruction change", content, false),
                    None => self.note(out, &format!("instruction {} removed", part.id.get())),
                },
                ModelRequestPart::Compaction(part) => self.block(
                    out,
                    Role::Note,
                    "compaction",
                    part.content.get().map_or("[compacted history]", String::as_str),
                    true,
                ),
                ModelRequestPart::Unknown(part) => self.unknown(out, part.tag("part_kind")),
            }
        }
    }

    fn response(&self, out: &mut String, number: usize, response: &ModelResponse, pairing: &Pairing) {
        let mut header = vec![format!("#{number} response")];
        let model = response.model_name.get().or(response.model_id.get());
        match (model, response.provider_name.get()) {
            (Some(model), Some(provider)) => header.push(format!("{model} ({provider})")),
            (Some(model), None) => header.push(model.clone()),
            (None, Some(provider)) => header.push(format!("({provider})")),
            (None, None) => {}
        }
        header.extend(response.timestamp.get().map(ToString::to_string));
        if let Some(reason) = response.finish_reason.get() {
            header.push(format!("finish: {}", reason.as_str()));
        }
        if let Some(usage) = response.usage.get() {
            let tokens = |field: &Field<msgflow_wire::Int>, legacy: &Field<msgflow_wire::Int>| {
                field
                    .get()
                    .or(legacy.get())
                    .map_or_else(|| "0".to_owned(), ToString::to_string)
            };
            let input = tokens(&usage.input_tokens, &usage.request_tokens);
            let output = tokens(&usage.output_tokens, &usage.response_tokens);
            if input != "0" || output != "0" {
                header.push(format!("tokens: {input} in, {output} out"));
            }
        }
        if let Some(state) = response.state.get().filter(|state| state.as_str() != "complete") {
            header.push(format!("state: {}", state.as_str()));
        }
        self.header(out, &header);
        for part in &response.parts {
            match part {
                ModelResponsePart::Text(part) => self.block(out, Role::Assistant, "assistant", &part.content, false),
                ModelResponsePart::Thinking(part) => self.block(out, Role::Thinking, "thinking", &part.content, false),
                ModelResponsePart::ToolCall(part) => {
                    let mut label = format!("tool call {}{}", part.tool_name, id_suffix(&part.tool_call_id));
                    label.push_str(&unmatched_note(&part.tool_call_id, &pairing.answered, "no result"));
                    self.tool_call(out, &label, &part.args);
                }
                ModelResponsePart::BuiltinToolCall(part) => {
                    let mut label = format!("builtin tool call {}{}", part.tool_name, id_suffix(&part.tool_call_id));
                    label.push_str(&unmatched_note(&part.tool_call_id, &pairing.answered, "no result"));
                    self.tool_call(out, &label, &part.args);
                }
                ModelResponsePart::BuiltinToolReturn(part) => {
                    let mut label = format!(
                        "builtin tool return {}{}",
                        part.tool_name,
                        id_suffix(&part.tool_call_id)
                    );
                    if let Some(outcome) = part.outcome.get() {
                        label.push_str(&format!(" -> {}", outcome.as_str()));
                    }
                    let role = match part.outcome.get() {
                        None | Some(ToolReturnOutcome::Success) => Role::Success,
                        Some(_) => Role::Failure,
                    };
                    self.block(out, role, &label, &json_for_display(&part.content), true);
                }
                ModelResponsePart::Compaction(part) => self.block(
                    out,
                    Role::Note,
                    "compaction",
                    part.content.get().map_or("[compacted history]", String::as_str),
                    true,
                ),
                ModelResponsePart::File(part) => self.note(
                    out,
                    &format!(
                        "file: {}",
                        binary_summary(&part.content.media_type, part.content.data.as_str())
                    ),
                ),
                ModelResponsePart::Speech(part) => self.block(
                    out,
                    Role::Assistant,
                    &format!("speech ({})", part.speaker.as_str()),
                    part.transcript.get().map_or("[audio]", String::as_str),
                    false,
                ),
                ModelResponsePart::Unknown(part) => self.unknown(out, part.tag("part_kind")),
            }
        }
    }

    fn header(&self, out: &mut String, fields: &[String]) {
        out.push_str(&self.painter.paint(Role::Header, &fields.join("  ")));
        out.push('\n');
    }

    /// A label line, then `content` indented, wrapped and (when `truncate`) cut to `max_lines`.
    fn block(&self, out: &mut String, role: Role, label: &str, content: &str, truncate: bool) {
        out.push_str(LABEL_INDENT);
        out.push_str(&self.painter.paint(role, label));
        out.push('\n');
        let text_width = self.width.saturating_sub(CONTENT_INDENT.len()).max(10);
        // Trailing newlines (common in tool output) would only show as empty lines.
        let lines = wrap(escape_controls(content).trim_end_matches('\n'), text_width);
        let limit = match self.max_lines {
            Some(limit) if truncate && lines.len() > limit => limit,
            _ => lines.len(),
        };
        let content_role = if matches!(role, Role::Thinking) {
            Some(Role::Thinking)
        } else {
            None
        };
        for line in lines.iter().take(limit) {
            if line.is_empty() {
                out.push('\n');
                continue;
            }
            out.push_str(CONTENT_INDENT);
            match content_role {
                Some(role) => out.push_str(&self.painter.paint(role, line)),
                None => out.push_str(line),
            }
            out.push('\n');
        }
        if limit < lines.len() {
            let hidden = lines.len() - limit;
            let note = format!(
                "... {hidden} more line{} (--full shows everything)",
                if hidden == 1 { "" } else { "s" }
            );
            out.push_str(CONTENT_INDENT);
            out.push_str(&self.painter.paint(Role::Note, &note));
            out.push('\n');
        }
    }

    fn tool_call(&self, out: &mut String, label: &str, args: &Field<RawJson>) {
        let text = arguments_for_display(args);
        self.block(out, Role::ToolCall, label, &text, true);
    }

    fn note(&self, out: &mut String, text: &str) {
        out.push_str(LABEL_INDENT);
        out.push_str(&self.painter.paint(Role::Note, &escape_controls(text)));
        out.push('\n');
    }

    fn unknown(&self, out: &mut String, tag: Option<String>) {
        let tag = tag.unwrap_or_else(|| "?".to_owned());
        self.note(out, &format!("part of unknown kind `{tag}` (kept as written)"));
    }
}

fn id_suffix(id: &Field<String>) -> String {
    id.get().map(|id| format!(" [{id}]")).unwrap_or_default()
}

/// `" (note)"` when `id` is set but not among `seen`.
fn unmatched_note(id: &Field<String>, seen: &HashSet<String>, note: &str) -> String {
    match id.get() {
        Some(id) if !seen.contains(id) => format!(" ({note})"),
        _ => String::new(),
    }
}

fn user_prompt_text(content: &UserPromptContent) -> String {
    match content {
        UserPromptContent::Text(text) => text.clone(),
        UserPromptContent::Items(items) => items.iter().map(user_content_text).collect::<Vec<_>>().join("\n"),
    }
}

fn user_content_text(item: &UserContent) -> String {
    match item {
        UserContent::Text(text) => text.clone(),
        UserContent::TextContent(item) => item.content.clone(),
        UserContent::StructuredContent(item) => match item.content.get() {
            Some(text) => text.clone(),
            None => pretty(&item.value.to_value()),
        },
        UserContent::ImageUrl(item) => format!("[image: {}]", item.url),
        UserContent::AudioUrl(item) => format!("[audio: {}]", item.url),
        UserContent::VideoUrl(item) => format!("[video: {}]", item.url),
        UserContent::DocumentUrl(item) => format!("[document: {}]", item.url),
        UserContent::Binary(item) => format!("[{}]", binary_summary(&item.media_type, item.data.as_str())),
        UserContent::UploadedFile(item) => {
            format!("[uploaded file {} ({})]", item.file_id, item.provider_name.as_str())
        }
        UserContent::CachePoint(_) => "[cache point]".to_owned(),
        UserContent::Unknown(item) => format!("[content of unknown kind `{}`]", item.tag("kind").unwrap_or_default()),
    }
}

/// `image/png, 1234 bytes`, computed from the base64 length (decoding only to count is wasteful).
fn binary_summary(media_type: &str, base64: &str) -> String {
    let padding = base64.bytes().rev().take_while(|byte| *byte == b'=').count();
    let bytes = (base64.len() / 4 * 3).saturating_sub(padding);
    format!("{media_type}, {bytes} bytes")
}

/// Replaces control characters other than newline and tab with visible `\u{..}` escapes, and tabs
/// with spaces, so the text cannot move the cursor, change colours or retitle the terminal.
fn escape_controls(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '\n' => escaped.push('\n'),
            '\t' => escaped.push_str("    "),
            '\r' => {}
            c if c.is_control() => escaped.push_str(&format!("\\u{{{:04x}}}", u32::from(c))),
            c => escaped.push(c),
        }
    }
    escaped
}

/// Splits `text` into lines of at most `width` characters, breaking at spaces where possible.
/// (Characters, not terminal columns: wide characters can make a line look longer.)
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for line in text.split('\n') {
        let mut rest = line;
        // `nth(width)` finds the first character past the width (if any) without counting the
        // whole rest of the line each time, which made long lines quadratic.
        while let Some((cut, _)) = rest.char_indices().nth(width) {
            // A space right after the first `width` characters is a fine place to break, too.
            let lookahead = rest[cut..].chars().next().map_or(cut, |next| cut + next.len_utf8());
            // Break at the last space that keeps the line within `width`, unless that is at the start.
            let (line, next) = match rest[..lookahead].rfind(' ') {
                Some(space) if space > 0 => (&rest[..space], &rest[space + 1..]),
                _ => (&rest[..cut], &rest[cut..]),
            };
            lines.push(line.trim_end().to_owned());
            rest = next;
        }
        lines.push(rest.to_owned());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_and_splits_long_words() {
        assert_eq!(wrap("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("one\n\ntwo", 10), ["one", "", "two"]);
        assert_eq!(wrap("café crème", 5), ["café", "crème"]);
    }

    #[test]
    fn control_characters_are_made_visible() {
        assert_eq!(escape_controls("a\u{1b}[31mb\tc\r\n"), "a\\u{001b}[31mb    c\n");
    }

    #[test]
    fn binary_size_comes_from_the_base64_length() {
        assert_eq!(binary_summary("image/png", "aGVsbG8="), "image/png, 5 bytes");
    }
}
