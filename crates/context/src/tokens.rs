//! Token counts of messages and parts, with real tokenizers.
//!
//! Text, JSON (tool arguments and output) and base64 are run through OpenAI's BPE encodings
//! (`o200k_base`, `cl100k_base`; tiktoken-rs carries their vocabularies, so counting works
//! offline). Images are counted by the provider's documented rule from the dimensions in the
//! file header, PDFs by their page count, WAV audio by its duration ([`media_tokens`]); bytes no
//! rule applies to are counted as their base64 text, which is what a provider that takes them
//! inline is sent. For providers without a public tokenizer, [`TokenCounter::calibrated`] scales
//! the `o200k_base` count by the ratio the history's own recorded `usage.input_tokens` show.
//!
//! ```
//! use msgflow_context::tokens::{TokenCounter, Tokenizer};
//! let counter = TokenCounter::new(Tokenizer::O200kBase);
//! assert_eq!(counter.count_text("Hello, world!"), 4);
//! ```

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// The file-header readers the media rules count with (from `msgflow-media`).
pub use msgflow_media::{image_dimensions, pdf_pages, wav_seconds};

use msgflow_wire::{
    BinaryContent, ModelMessage, ModelRequestPart, ModelResponsePart, RawJson, UserContent, UserPromptContent,
};
use serde::Serialize;
use tiktoken_rs::CoreBPE;

/// The encoding a [`TokenCounter`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tokenizer {
    /// OpenAI's `o200k_base` (GPT-4o, GPT-4.1, o-series, GPT-5).
    O200kBase,
    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
    /// pydantic-ai-harness's text estimate: characters / 4 (`CHARS_PER_TOKEN`), binary content
    /// as 0 (the harness uses it for a history without recorded usage; with usage it counts that).
    /// Offered to compare with the harness, not to budget with.
    Chars4,
}

impl Tokenizer {
    /// The names the CLI accepts.
    pub const NAMES: &'static [&'static str] = &["o200k_base", "cl100k_base", "chars4"];

    /// The tokenizer's name.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::O200kBase => "o200k_base",
            Tokenizer::Cl100kBase => "cl100k_base",
            Tokenizer::Chars4 => "chars4",
        }
    }

    fn bpe(self) -> Option<&'static CoreBPE> {
        match self {
            Tokenizer::O200kBase => Some(tiktoken_rs::o200k_base_singleton()),
            Tokenizer::Cl100kBase => Some(tiktoken_rs::cl100k_base_singleton()),
            Tokenizer::Chars4 => None,
        }
    }
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Tokenizer {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "o200k_base" => Ok(Tokenizer::O200kBase),
            "cl100k_base" => Ok(Tokenizer::Cl100kBase),
            "chars4" => Ok(Tokenizer::Chars4),
            other => Err(format!(
                "unknown tokenizer `{other}`: expected one of {}",
                Tokenizer::NAMES.join(", ")
            )),
        }
    }
}

/// A counter by name, as `msgflow trim --tokenizer` and `msgflow stats --tokens --tokenizer`
/// choose it: one of the [`Tokenizer`]s, or `calibrated` ([`TokenCounter::calibrated`], which
/// needs the history to count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CounterChoice {
    /// A plain [`TokenCounter::new`] counter.
    Tokenizer(Tokenizer),
    /// `o200k_base` scaled to the history's recorded usage.
    Calibrated,
}

impl CounterChoice {
    /// Every name [`CounterChoice::from_str`] accepts.
    pub const NAMES: &'static [&'static str] = &["o200k_base", "cl100k_base", "chars4", "calibrated"];

    /// The choice's name.
    pub fn name(self) -> &'static str {
        match self {
            CounterChoice::Tokenizer(tokenizer) => tokenizer.name(),
            CounterChoice::Calibrated => "calibrated",
        }
    }

    /// The counter for `history`, and the calibration when the choice is `calibrated`; `None`
    /// when calibration was asked for and no response in `history` records a usable
    /// `usage.input_tokens`.
    pub fn counter_for(self, history: &[ModelMessage]) -> Option<(TokenCounter, Option<Calibration>)> {
        match self {
            CounterChoice::Tokenizer(tokenizer) => Some((TokenCounter::new(tokenizer), None)),
            CounterChoice::Calibrated => {
                TokenCounter::calibrated(history).map(|(counter, calibration)| (counter, Some(calibration)))
            }
        }
    }
}

impl fmt::Display for CounterChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CounterChoice {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        if name == "calibrated" {
            return Ok(CounterChoice::Calibrated);
        }
        name.parse()
            .map(CounterChoice::Tokenizer)
            .map_err(|_| format!("expected one of {}", CounterChoice::NAMES.join(", ")))
    }
}

/// Whose documented rule counts images, PDFs and audio.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaRule {
    /// OpenAI (GPT-4o family, `detail: high`): fit in 2048x2048, shortest side to 768, then
    /// 85 + 170 per 512-pixel tile.
    OpenAi,
    /// Anthropic: width x height / 750 after fitting the long edge in 1568 pixels; a PDF page
    /// as 1500 tokens of text plus its page image (1568x1568 at most, about 1590 more).
    Anthropic,
    /// Google Gemini: 258 per image up to 384x384, else 258 per 768x768 tile; 258 per PDF page;
    /// 32 per second of audio.
    Google,
}

impl MediaRule {
    /// The rule of a pydantic-ai `provider_name` (OpenAI's for providers without one of their own).
    pub fn for_provider(provider: &str) -> MediaRule {
        match provider {
            "anthropic" | "bedrock" => MediaRule::Anthropic,
            "google-gla" | "google-vertex" | "google" | "gemini" => MediaRule::Google,
            _ => MediaRule::OpenAi,
        }
    }
}

/// Counts tokens of text, parts and messages.
#[derive(Clone, Debug)]
pub struct TokenCounter {
    tokenizer: Tokenizer,
    media: MediaRule,
    /// Recorded tokens per counted token, when calibrated.
    scale: Option<f64>,
}

impl TokenCounter {
    /// A counter running `tokenizer`, counting media by the rule that goes with it (OpenAI's
    /// for the OpenAI encodings; none for [`Tokenizer::Chars4`], which counts binary as 0 like
    /// the harness).
    pub fn new(tokenizer: Tokenizer) -> TokenCounter {
        TokenCounter {
            tokenizer,
            media: MediaRule::OpenAi,
            scale: None,
        }
    }

    /// The same counter with another provider's media rule.
    pub fn with_media_rule(mut self, media: MediaRule) -> TokenCounter {
        self.media = media;
        self
    }

    /// An estimate for a provider without a public tokenizer: `o200k_base` counts scaled by the
    /// history's own recorded usage ([`Calibration::of`]), with the media rule of the provider
    /// that answered. `None` when the history records no usable `usage.input_tokens`.
    pub fn calibrated(history: &[ModelMessage]) -> Option<(TokenCounter, Calibration)> {
        let calibration = Calibration::of(history)?;
        let counter = TokenCounter {
            tokenizer: Tokenizer::O200kBase,
            media: calibration.media,
            scale: Some(calibration.scale()),
        };
        Some((counter, calibration))
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> Tokenizer {
        self.tokenizer
    }

    /// The media rule.
    pub fn media_rule(&self) -> MediaRule {
        self.media
    }

    /// The calibration scale, when calibrated.
    pub fn scale(&self) -> Option<f64> {
        self.scale
    }

    /// The tokens of a text (unscaled).
    pub fn count_text(&self, text: &str) -> usize {
        match self.tokenizer.bpe() {
            Some(bpe) => bpe.encode_ordinary(text).len(),
            // The harness's `len(text) // CHARS_PER_TOKEN` counts characters (code points).
            None => text.chars().count() / 4,
        }
    }

    /// The tokens of one piece (unscaled).
    fn count_piece(&self, piece: Piece<'_>) -> usize {
        match piece {
            Piece::Text(text) => self.count_text(&text),
            Piece::JsonString(raw) if self.tokenizer == Tokenizer::Chars4 => json_string_chars(raw) / 4,
            // A literal serde cannot read as text (a lone surrogate escape) is sent as written.
            Piece::JsonString(raw) => match serde_json::from_str::<String>(raw) {
                Ok(text) => self.count_text(&text),
                Err(_) => self.count_text(raw),
            },
            Piece::Binary(binary) => self.count_binary(binary),
        }
    }

    fn count_binary(&self, binary: &BinaryContent) -> usize {
        if self.tokenizer == Tokenizer::Chars4 {
            return 0;
        }
        let bytes = binary.data.decode().unwrap_or_default();
        media_tokens(self.media, &binary.media_type, &bytes).unwrap_or_else(|| self.count_text(binary.data.as_str()))
    }

    /// The tokens of a request part, by its kind.
    pub fn count_request_part(&self, part: &ModelRequestPart) -> usize {
        let mut counted = 0;
        request_part_pieces(part, &mut |piece| counted += self.count_piece(piece));
        self.scaled(counted)
    }

    /// The tokens of a response part, by its kind.
    pub fn count_response_part(&self, part: &ModelResponsePart) -> usize {
        let mut counted = 0;
        response_part_pieces(part, &mut |piece| counted += self.count_piece(piece));
        self.scaled(counted)
    }

    /// The tokens of a request's `instructions`.
    pub fn count_instructions(&self, text: &str) -> usize {
        self.scaled(self.count_text(text))
    }

    /// The tokens of a message: the sum of its parts (and a request's instructions).
    pub fn count_message(&self, message: &ModelMessage) -> usize {
        match message {
            ModelMessage::Request(request) => {
                let parts: usize = request.parts.iter().map(|part| self.count_request_part(part)).sum();
                parts
                    + request
                        .instructions
                        .get()
                        .map_or(0, |text| self.count_instructions(text))
            }
            ModelMessage::Response(response) => response.parts.iter().map(|part| self.count_response_part(part)).sum(),
        }
    }

    /// The texts this counter runs its encoding over for `message`, in order: what a tokenizer
    /// elsewhere must be given to count the same (binary items a media rule counts are left out;
    /// the others are their base64 text).
    ///
    /// ```
    /// use msgflow_context::tokens::{TokenCounter, Tokenizer};
    /// let history = msgflow_wire::from_str(
    ///     r#"[{"parts":[{"content":"Hello, world!","part_kind":"user-prompt"}],"instructions":"Be brief.","kind":"request"}]"#,
    /// ).unwrap();
    /// let counter = TokenCounter::new(Tokenizer::O200kBase);
    /// assert_eq!(counter.texts(&history[0]), ["Hello, world!", "Be brief."]);
    /// ```
    pub fn texts(&self, message: &ModelMessage) -> Vec<String> {
        let mut texts = Vec::new();
        let mut keep = |piece: Piece<'_>| match piece {
            Piece::Text(text) => texts.push(text.into_owned()),
            Piece::JsonString(raw) => {
                texts.push(serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.to_owned()))
            }
            Piece::Binary(binary) => {
                let bytes = binary.data.decode().unwrap_or_default();
                if self.tokenizer == Tokenizer::Chars4 || media_tokens(self.media, &binary.media_type, &bytes).is_none()
                {
                    texts.push(binary.data.as_str().to_owned());
                }
            }
        };
        match message {
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    request_part_pieces(part, &mut keep);
                }
                if let Some(text) = request.instructions.get() {
                    keep(Piece::Text(Cow::Borrowed(text)));
                }
            }
            ModelMessage::Response(response) => {
                for part in &response.parts {
                    response_part_pieces(part, &mut keep);
                }
            }
        }
        texts
    }

    fn scaled(&self, counted: usize) -> usize {
        match self.scale {
            Some(scale) => (counted as f64 * scale).round() as usize,
            None => counted,
        }
    }
}

/// What a part is counted as: text run through the encoding, or a binary item counted by the
/// media rule (or as its base64 text).
enum Piece<'a> {
    Text(Cow<'a, str>),
    /// A JSON string literal (quotes and escapes included), counted as the text it holds.
    JsonString(&'a str),
    Binary(&'a BinaryContent),
}

/// A JSON value as it is sent: a string as its text, anything else as its JSON.
fn json_piece(json: &RawJson) -> Piece<'_> {
    if json.is_string() {
        Piece::JsonString(json.get())
    } else {
        Piece::Text(Cow::Borrowed(json.get()))
    }
}

/// The characters (code points) of the text a JSON string literal holds, without unescaping it:
/// each escape is one character, and a `\u` surrogate pair is one.
fn json_string_chars(literal: &str) -> usize {
    let inner = literal.get(1..literal.len().saturating_sub(1)).unwrap_or_default();
    let bytes = inner.as_bytes();
    let mut chars = 0;
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'\\', &bytes[at..]) {
        chars += inner[at..at + offset].chars().count() + 1;
        let escape = at + offset + 1;
        at = match bytes.get(escape) {
            Some(b'u') => {
                let high = inner
                    .get(escape + 1..escape + 5)
                    .and_then(|hex| u16::from_str_radix(hex, 16).ok());
                let pair = high.is_some_and(|unit| (0xD800..0xDC00).contains(&unit))
                    && inner.get(escape + 5..escape + 7) == Some("\\u");
                escape + if pair { 11 } else { 5 }
            }
            _ => escape + 1,
        };
        at = at.min(bytes.len());
    }
    chars + inner[at..].chars().count()
}

/// Anything else is sent as what it says: its JSON.
fn json_of<'a, T: Serialize>(value: &T, piece: &mut impl FnMut(Piece<'a>)) {
    if let Ok(json) = serde_json::to_string(value) {
        piece(Piece::Text(Cow::Owned(json)));
    }
}

fn user_content_pieces<'a>(item: &'a UserContent, piece: &mut impl FnMut(Piece<'a>)) {
    match item {
        UserContent::Text(text) => piece(Piece::Text(Cow::Borrowed(text))),
        UserContent::TextContent(text) => piece(Piece::Text(Cow::Borrowed(&text.content))),
        UserContent::Binary(binary) => piece(Piece::Binary(binary)),
        UserContent::CachePoint(_) => {}
        // URLs and the other items are sent as what they say.
        other => json_of(other, piece),
    }
}

/// The pieces of a request part, by its kind.
fn request_part_pieces<'a>(part: &'a ModelRequestPart, piece: &mut impl FnMut(Piece<'a>)) {
    match part {
        ModelRequestPart::SystemPrompt(system) => piece(Piece::Text(Cow::Borrowed(&system.content))),
        ModelRequestPart::UserPrompt(user) => match &user.content {
            UserPromptContent::Text(text) => piece(Piece::Text(Cow::Borrowed(text))),
            UserPromptContent::Items(items) => items.iter().for_each(|item| user_content_pieces(item, piece)),
        },
        ModelRequestPart::ToolReturn(ret) => {
            piece(Piece::Text(Cow::Borrowed(&ret.tool_name)));
            piece(json_piece(&ret.content));
        }
        ModelRequestPart::RetryPrompt(retry) => piece(json_piece(&retry.content)),
        other => json_of(other, piece),
    }
}

/// The pieces of a response part, by its kind.
fn response_part_pieces<'a>(part: &'a ModelResponsePart, piece: &mut impl FnMut(Piece<'a>)) {
    match part {
        ModelResponsePart::Text(text) => piece(Piece::Text(Cow::Borrowed(&text.content))),
        ModelResponsePart::Thinking(thinking) => piece(Piece::Text(Cow::Borrowed(&thinking.content))),
        ModelResponsePart::ToolCall(call) => {
            piece(Piece::Text(Cow::Borrowed(&call.tool_name)));
            if let Some(args) = call.args.get() {
                piece(json_piece(args));
            }
        }
        ModelResponsePart::File(file) => piece(Piece::Binary(&file.content)),
        other => json_of(other, piece),
    }
}

/// How an estimate was calibrated: the newest response that records `usage.input_tokens`, and
/// the `o200k_base` count of the messages sent before it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// The response whose usage was used.
    pub response_index: usize,
    /// Its recorded `usage.input_tokens`.
    pub recorded_input_tokens: u64,
    /// The `o200k_base` count of messages `0..response_index`.
    pub counted_tokens: u64,
    /// The provider that answered, when recorded.
    pub provider: Option<String>,
    /// The media rule that goes with that provider.
    pub media: MediaRule,
}

impl Calibration {
    /// The calibration of `history`, `None` when no response records input tokens.
    ///
    /// Recorded input tokens also cover what the history does not hold (tool definitions, the
    /// agent's instructions when not recorded), so the scale is an upper estimate for the messages.
    pub fn of(history: &[ModelMessage]) -> Option<Calibration> {
        let (index, response, recorded) = history.iter().enumerate().rev().find_map(|(index, message)| {
            let response = message.as_response()?;
            let usage = response.usage.get()?;
            let tokens = int_u64(usage.input_tokens.get().or(usage.request_tokens.get())?)?;
            (tokens > 0).then_some((index, response, tokens))
        })?;
        let provider = response.provider_name.get().cloned();
        let media = provider.as_deref().map_or(MediaRule::OpenAi, MediaRule::for_provider);
        let counter = TokenCounter::new(Tokenizer::O200kBase).with_media_rule(media);
        let counted: usize = history[..index]
            .iter()
            .map(|message| counter.count_message(message))
            .sum();
        (counted > 0).then_some(Calibration {
            response_index: index,
            recorded_input_tokens: recorded,
            counted_tokens: counted as u64,
            provider,
            media,
        })
    }

    /// Recorded tokens per counted token.
    pub fn scale(&self) -> f64 {
        self.recorded_input_tokens as f64 / self.counted_tokens as f64
    }
}

/// The tokens of a media item by `rule`, from its bytes; `None` when the bytes do not say
/// (unknown format, unreadable header).
///
/// ```
/// use msgflow_context::tokens::{media_tokens, MediaRule};
/// // A 1024x1024 PNG header: OpenAI scales it to 768x768, 4 tiles.
/// let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
/// png.extend_from_slice(&1024u32.to_be_bytes());
/// png.extend_from_slice(&1024u32.to_be_bytes());
/// assert_eq!(media_tokens(MediaRule::OpenAi, "image/png", &png), Some(85 + 170 * 4));
/// assert_eq!(media_tokens(MediaRule::Anthropic, "image/png", &png), Some(1024 * 1024 / 750));
/// ```
pub fn media_tokens(rule: MediaRule, media_type: &str, bytes: &[u8]) -> Option<usize> {
    if let Some((width, height)) = image_dimensions(bytes) {
        return Some(image_tokens(rule, width, height));
    }
    if media_type == "application/pdf" || bytes.starts_with(b"%PDF-") {
        let pages = pdf_pages(bytes)?;
        return Some(match rule {
            MediaRule::Google => 258 * pages,
            MediaRule::Anthropic => pages * (1500 + image_tokens(rule, 1568, 1568)),
            // OpenAI sends each page's text and an image of it: the same estimate, its image rule.
            MediaRule::OpenAi => pages * (1500 + image_tokens(rule, 1568, 1568)),
        });
    }
    if let Some(seconds) = wav_seconds(bytes) {
        return Some(match rule {
            MediaRule::Google => (32.0 * seconds).ceil() as usize,
            // OpenAI's audio models: about 10 tokens per second of input audio (gpt-4o-audio).
            MediaRule::OpenAi | MediaRule::Anthropic => (10.0 * seconds).ceil() as usize,
        });
    }
    None
}

/// The tokens of a `width` x `height` image by `rule`.
pub fn image_tokens(rule: MediaRule, width: u32, height: u32) -> usize {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    match rule {
        MediaRule::OpenAi => {
            let fit = (2048.0 / w.max(h)).min(1.0);
            let (w, h) = (w * fit, h * fit);
            let short = (768.0 / w.min(h)).min(1.0);
            let (w, h) = (w * short, h * short);
            let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
            85 + 170 * tiles as usize
        }
        MediaRule::Anthropic => {
            let fit = (1568.0 / w.max(h)).min(1.0);
            ((w * fit).floor() * (h * fit).floor() / 750.0) as usize
        }
        MediaRule::Google => {
            if w <= 384.0 && h <= 384.0 {
                258
            } else {
                258 * ((w / 768.0).ceil() * (h / 768.0).ceil()) as usize
            }
        }
    }
}

/// A recorded token count as a `u64` (`None` when negative, fractional or too big).
pub fn int_u64(int: &msgflow_wire::Int) -> Option<u64> {
    // The text as written (`5`, `5.0`), which every version of `Int` displays.
    let text = int.to_string();
    text.strip_suffix(".0").unwrap_or(&text).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{json_string_chars, CounterChoice};

    #[test]
    fn every_counter_name_parses_back_to_itself() {
        for name in CounterChoice::NAMES {
            let choice: CounterChoice = name.parse().unwrap();
            assert_eq!(choice.name(), *name);
        }
        let refused = "o200k".parse::<CounterChoice>().unwrap_err();
        assert_eq!(refused, "expected one of o200k_base, cl100k_base, chars4, calibrated");
    }

    #[test]
    fn a_json_string_has_the_characters_of_its_text() {
        for text in ["", "plain", "é日本😀", "a\nb\t\"q\"\\", "\u{1}\u{1f}", "x😀y\u{7f}"] {
            let literal = serde_json::to_string(text).unwrap();
            assert_eq!(json_string_chars(&literal), text.chars().count(), "{literal}");
        }
        // Escapes serde_json does not write: `\u` forms, a surrogate pair, `\/`.
        assert_eq!(json_string_chars(r#""\u00e9\/\ud83d\ude00!""#), 4);
    }
}
