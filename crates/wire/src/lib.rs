//! pydantic-ai message histories as Rust types, read and written byte for byte.
//!
//! This crate is msgflow's equivalent of pydantic-ai's `ModelMessagesTypeAdapter`: it parses a
//! history (a JSON array of `request` / `response` messages) into the types generated from
//! `schema/pydantic-ai-messages.schema.json`, and serialises it back.
//!
//! * **Byte-identical.** A history written by pydantic-ai 2.68.0's `dump_json` is written back
//!   with the same bytes: key order, explicit `null`s, numbers, string escapes, timestamps.
//! * **Lossless.** Keys left out by older releases stay out ([`Field`]), unknown keys are kept
//!   ([`Extra`]), parts and content items of kinds this version does not know are kept whole
//!   ([`UnknownObject`]), and opaque values (tool arguments, tool output, metadata) are kept as
//!   written ([`RawJson`]).
//! * **Zero copy.** Parsed from an [`Input`] (or [`from_vec`]), opaque values are slices of the
//!   input's text rather than copies.
//! * **Located errors.** Input that is not a history gives a [`ParseError`] with the JSON path,
//!   line and column, and what was expected. Nesting deeper than [`MAX_DEPTH`] is an error, not a
//!   stack overflow.
//!
//! ```
//! let json = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#;
//! let history = msgflow_wire::from_str(json)?;
//! assert!(matches!(&history[0], msgflow_wire::ModelMessage::Request(_)));
//! assert_eq!(msgflow_wire::to_string(&history)?, json);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
mod base64data;
mod error;
mod extra;
mod field;
#[allow(clippy::all, missing_docs, rustdoc::all)]
mod generated;
mod helpers;
pub mod lax;
mod non_finite;
mod pieces;
mod raw;
mod rt;
mod scalars;
mod timestamp;
mod typed;
pub mod verdict;

use std::io::{Read, Write};

pub use base64data::{Base64Data, Base64Error};
pub use error::{ParseError, ParseErrorCategory, WriteError};
pub use extra::{Extra, UnknownObject};
pub use field::Field;
pub use generated::*;

pub use non_finite::has_non_finite_literal;
pub use raw::{Normalized, RawJson};
pub use scalars::{
    Decimal, Duration, FileDigests, Float, ForceDownload, Int, LaxBool, LaxScalar, OutOfRange, ParseIntError,
};
pub use timestamp::{Timestamp, TimestampError, TimestampParts};
pub use typed::{ShapeMismatch, TypedKey, TypedRoute, TypedShape, TypedValue};

/// The deepest nesting of arrays and objects msgflow interprets (serde_json's recursion limit).
///
/// Typed structure (messages, parts, content items) nested deeper is rejected with an error.
/// Opaque values (tool arguments, tool output, metadata) are read without recursion and carried
/// at any depth, byte for byte; only converting one to a `serde_json::Value`
/// ([`RawJson::try_to_value`]) is limited to this depth. pydantic-ai itself rejects histories
/// nested about 200 levels deep.
pub const MAX_DEPTH: usize = 128;

/// Limits applied while reading untrusted input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Reject input larger than this many bytes (no limit when `None`).
    pub max_input_bytes: Option<usize>,
}

/// Parses a history from JSON bytes.
///
/// Opaque values are copied out of `input`. To parse without copying them, hand the buffer
/// over instead: [`from_vec`] or [`Input`].
pub fn from_slice(input: &[u8]) -> Result<Vec<ModelMessage>, ParseError> {
    from_slice_with(input, &ParseOptions::default())
}

/// Parses a history from JSON bytes, applying `options`.
pub fn from_slice_with(input: &[u8], options: &ParseOptions) -> Result<Vec<ModelMessage>, ParseError> {
    check_size(input.len(), options)?;
    let text = utf8(input)?;
    parse_text(text, &rt::ContextGuard::new(input))
}

/// Parses a history from a buffer it takes over, without copying opaque values (see
/// [`Input`]).
///
/// ```
/// let json = br#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#;
/// let history = msgflow_wire::from_vec(json.to_vec())?;
/// assert_eq!(msgflow_wire::to_vec(&history)?, json);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_vec(input: Vec<u8>) -> Result<Vec<ModelMessage>, ParseError> {
    Input::from_vec(input)?.parse()
}

/// Parses a history from a JSON string.
pub fn from_str(input: &str) -> Result<Vec<ModelMessage>, ParseError> {
    from_slice(input.as_bytes())
}

/// Parses a history from a reader (read to the end first, then parsed as an [`Input`]).
pub fn from_reader<R: Read>(mut reader: R) -> Result<Vec<ModelMessage>, ParseError> {
    let mut input = Vec::new();
    reader
        .read_to_end(&mut input)
        .map_err(|err| ParseError::new(ParseErrorCategory::Io, format!("cannot read the input: {err}")))?;
    from_vec(input)
}

/// The JSON values of `text`, a long array of objects that each start like the first (as the
/// messages a front end keeps do), parsed in pieces on rayon's thread pool as a history is; `None`
/// when the text is short (under 512 KiB), is not such an array, or is not cut where an item
/// starts, and the caller then parses it whole. Each item is read as the root of its own text,
/// so an item nested [`MAX_DEPTH`] levels deep, which the whole text's parse refuses, is read
/// here: a caller that needs the whole text's verdict checks the depth.
pub fn values_in_pieces(text: &str) -> Option<Vec<serde_json::Value>> {
    pieces::values_in_pieces(text)
}

/// Parses one message (a JSON object) from a string.
pub fn message_from_str(input: &str) -> Result<ModelMessage, ParseError> {
    let guard = rt::ContextGuard::new(input.as_bytes());
    serde_json::from_str::<ModelMessage>(input).map_err(|err| locate(input.as_bytes(), &guard, &err))
}

/// The text of a history, read once and shared by everything parsed from it.
///
/// Tool output, tool arguments and other opaque values make up most of a history. Parsed from
/// an `Input`, each is a slice of the input's text rather than a copy: parsing is faster and a
/// parsed history takes little memory beyond the input itself. The text is freed when the
/// `Input` and the last [`RawJson`] parsed from it are dropped, so a program that keeps one
/// small value of a large history should copy it (`RawJson::from_json_text(raw.get())`).
///
/// ```
/// let input = msgflow_wire::Input::from_vec(br#"[]"#.to_vec())?;
/// assert!(input.parse()?.is_empty());
/// # Ok::<(), msgflow_wire::ParseError>(())
/// ```
#[derive(Clone)]
pub struct Input(std::sync::Arc<String>);

impl std::fmt::Debug for Input {
    // The text can be hundreds of megabytes: show its size, not its content.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").field("bytes", &self.0.len()).finish()
    }
}

impl Input {
    /// Takes over a buffer of JSON bytes, checking that they are UTF-8 (the buffer is not
    /// copied).
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self, ParseError> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Input::from(text)),
            Err(err) => Err(utf8_error(err.as_bytes(), &err.utf8_error())),
        }
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The JSON text as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The length of the text in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `true` for an empty text.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Parses the text as a history.
    pub fn parse(&self) -> Result<Vec<ModelMessage>, ParseError> {
        self.parse_with(&ParseOptions::default())
    }

    /// Parses the text as a history, applying `options`.
    pub fn parse_with(&self, options: &ParseOptions) -> Result<Vec<ModelMessage>, ParseError> {
        check_size(self.0.len(), options)?;
        parse_text(&self.0, &rt::ContextGuard::shared(&self.0))
    }
}

impl From<String> for Input {
    fn from(text: String) -> Self {
        Input(std::sync::Arc::new(text))
    }
}

fn check_size(len: usize, options: &ParseOptions) -> Result<(), ParseError> {
    match options.max_input_bytes {
        Some(limit) if len > limit => Err(ParseError::new(
            ParseErrorCategory::Limit,
            format!("the input is {len} bytes, more than the limit of {limit} bytes"),
        )),
        _ => Ok(()),
    }
}

fn utf8(input: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(input).map_err(|err| utf8_error(input, &err))
}

fn utf8_error(input: &[u8], err: &std::str::Utf8Error) -> ParseError {
    let (line, column) = rt::line_column(input, err.valid_up_to());
    let mut error = ParseError::new(
        ParseErrorCategory::Syntax,
        format!("invalid UTF-8 at byte {}: JSON text must be UTF-8", err.valid_up_to()),
    );
    (error.line, error.column) = (line, column);
    error
}

/// The error for a text that starts with a UTF-8 byte order mark (which Windows editors write and
/// JSON does not allow), for every reader of JSON text to give alike.
pub const BYTE_ORDER_MARK_ERROR: &str =
    "the input starts with a UTF-8 byte order mark, which JSON does not allow; remove the first 3 bytes";

/// Parses validated text; the guard's context decides whether opaque values are shared.
fn parse_text(text: &str, guard: &rt::ContextGuard) -> Result<Vec<ModelMessage>, ParseError> {
    if text.starts_with('\u{FEFF}') {
        let mut err = ParseError::new(ParseErrorCategory::Syntax, BYTE_ORDER_MARK_ERROR);
        (err.line, err.column) = (1, 1);
        return Err(err);
    }
    if text.len() >= pieces::MIN_BYTES {
        if let Some(messages) = pieces::parse_in_pieces(text) {
            return Ok(messages);
        }
    }
    // serde_json reads the text as a `str`, so it does not validate UTF-8 again for every raw
    // value it borrows.
    match serde_json::from_str::<rt::IndexedVec<ModelMessage>>(text) {
        Ok(messages) => Ok(messages.0),
        Err(err) => {
            let error = locate(text.as_bytes(), guard, &err);
            match non_finite::Substituted::of(text) {
                Some(substituted) if error.category == ParseErrorCategory::Syntax => {
                    parse_substituted(text, &substituted)
                }
                _ => Err(error),
            }
        }
    }
}

/// Reads a `T` from JSON text as [`from_str`] reads a history: with serde_json, plus the `NaN`,
/// `Infinity` and `-Infinity` literals pydantic-ai reads as floats, wherever `T` holds a
/// [`RawJson`] or a [`Float`] to take them (for other types that carry wire values, such as the
/// canonical form). An error is serde_json's for `text` as given.
///
/// ```
/// let args: msgflow_wire::RawJson = msgflow_wire::read_json(r#"{"x": NaN}"#)?;
/// assert_eq!(args.get(), r#"{"x":NaN}"#);
/// assert!(msgflow_wire::read_json::<String>("NaN").is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn read_json<T: serde::de::DeserializeOwned + serde::Serialize>(text: &str) -> Result<T, serde_json::Error> {
    let error = match serde_json::from_str::<T>(text) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    let substituted = match non_finite::Substituted::of(text) {
        Some(substituted) if error.classify() == serde_json::error::Category::Syntax => substituted,
        _ => return Err(error),
    };
    let restoring = non_finite::RestoreGuard::new(&substituted);
    let Ok(value) = serde_json::from_str::<T>(&substituted.text) else {
        return Err(error);
    };
    drop(restoring);
    match serde_json::to_string(&value) {
        Ok(output) if substituted.restored_in(&output).is_ok() => Ok(value),
        _ => Err(error),
    }
}

/// Reads an input holding `NaN` / `Infinity` literals, which pydantic-ai reads as floats, through
/// placeholders (see [`non_finite`]), and locates what fails in the input itself.
fn parse_substituted(input: &str, substituted: &non_finite::Substituted) -> Result<Vec<ModelMessage>, ParseError> {
    let text = substituted.text.as_str();
    let guard = rt::ContextGuard::new(text.as_bytes());
    let restoring = non_finite::RestoreGuard::new(substituted);
    let relocate = |mut error: ParseError, offset: usize| {
        (error.line, error.column) = rt::line_column(input.as_bytes(), substituted.original_offset(offset));
        error.message = non_finite::restore_message(&error.message);
        error
    };
    let messages = match serde_json::from_str::<rt::IndexedVec<ModelMessage>>(text) {
        Ok(messages) => messages.0,
        Err(err) => {
            let error = locate(text.as_bytes(), &guard, &err);
            let offset = rt::offset_of_line_column(text.as_bytes(), error.line, error.column);
            return Err(relocate(error, offset));
        }
    };
    drop((restoring, guard));
    // A literal read anywhere but a float field or an opaque value stayed a placeholder string;
    // pydantic-ai refuses it there (`float` is not `str`, `int`, `datetime`, ...).
    let output = to_string(&messages).map_err(|err| ParseError::new(ParseErrorCategory::Data, err.to_string()))?;
    if let Err(Some((at, literal))) = substituted.restored_in(&output) {
        let mut error = ParseError::new(
            ParseErrorCategory::Data,
            format!(
                "`{literal}` in a field that takes no float: pydantic-ai reads it as a \
                 float and refuses it here; replace it with a value of the field's type"
            ),
        );
        (error.line, error.column) = rt::line_column(input.as_bytes(), at);
        error.path = non_finite::path_at(input, at);
        return Err(error);
    }
    if substituted.restored_in(&output).is_err() {
        return Err(ParseError::new(
            ParseErrorCategory::Data,
            "a `NaN` or `Infinity` literal would be lost on writing the history back",
        ));
    }
    Ok(messages)
}

fn locate(input: &[u8], guard: &rt::ContextGuard, err: &serde_json::Error) -> ParseError {
    let (path, offset) = guard.error_location();
    let (line, column) = match offset {
        Some(offset) => rt::line_column(input, offset),
        None => (err.line(), err.column()),
    };
    let category = match err.classify() {
        serde_json::error::Category::Io => ParseErrorCategory::Io,
        serde_json::error::Category::Syntax => ParseErrorCategory::Syntax,
        serde_json::error::Category::Data => ParseErrorCategory::Data,
        serde_json::error::Category::Eof => ParseErrorCategory::Eof,
    };
    let mut message = rt::message_of(err);
    if message.contains("recursion limit exceeded") {
        message = format!("nesting deeper than {MAX_DEPTH} levels (msgflow's limit)");
    }
    let at = offset.unwrap_or_else(|| rt::offset_of_line_column(input, err.line(), err.column()));
    if let Some(literal) = non_finite_literal_near(input, at) {
        message = format!(
            "`{literal}` is not valid JSON (pydantic-ai reads it as a float, and msgflow reads it where \
             pydantic-ai does, but not in this input): replace it with null"
        );
    }
    // serde_json reports column 0 for an error before the first character of a line.
    let column = if line > 0 { column.max(1) } else { column };
    ParseError {
        category,
        path,
        line,
        column,
        message,
    }
}

/// `NaN`, `Infinity` or `-Infinity` at (or just before) a syntax error's position.
fn non_finite_literal_near(input: &[u8], offset: usize) -> Option<&'static str> {
    let start = offset.saturating_sub(9);
    let window = input.get(start..(offset + 9).min(input.len()))?;
    ["-Infinity", "Infinity", "NaN"]
        .into_iter()
        .find(|literal| window.windows(literal.len()).any(|w| w == literal.as_bytes()))
}

/// Serialises a history in pydantic-ai's compact form.
pub fn to_vec(messages: &[ModelMessage]) -> Result<Vec<u8>, WriteError> {
    let estimate: usize = messages.iter().map(rt::SizeHint::size_hint).sum();
    let mut out = Vec::with_capacity(estimate + estimate / 32 + 64);
    to_writer(&mut out, messages)?;
    Ok(out)
}

/// Serialises a history as a string in pydantic-ai's compact form.
pub fn to_string(messages: &[ModelMessage]) -> Result<String, WriteError> {
    let bytes = to_vec(messages)?;
    // serde_json writes only UTF-8.
    Ok(String::from_utf8(bytes).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned()))
}

/// Serialises a history to a writer in pydantic-ai's compact form.
pub fn to_writer<W: Write>(writer: W, messages: &[ModelMessage]) -> Result<(), WriteError> {
    serde_json::to_writer(writer, messages)?;
    Ok(())
}

/// The length in bytes of `value`'s compact JSON (a message's, a provider request's), counted as
/// it is written, without keeping the text.
///
/// ```
/// assert_eq!(msgflow_wire::compact_json_len(&serde_json::json!({"a": [1, 2]})), 11);
/// ```
pub fn compact_json_len<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail; a value serde cannot write would fail the real write too.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_reports_invalid_utf8_where_it_is() {
        let err = Input::from_vec(b"[\n  \"ok\",\n  \"\xff\"]".to_vec()).unwrap_err();
        assert_eq!((err.line, err.column), (3, 4));
        assert!(err.message.contains("invalid UTF-8 at byte 13"), "{err}");
    }

    #[test]
    fn shared_and_copied_parses_fail_alike() {
        for bad in [
            &b"\xEF\xBB\xBF[]"[..],
            b"[{\"kind\":\"request\"}]",
            b"[1,",
            b"[{\"kind\":\"nope\",\"parts\":[]}]",
        ] {
            let copied = from_slice(bad).unwrap_err();
            let shared = from_vec(bad.to_vec()).unwrap_err();
            assert_eq!(copied, shared);
        }
    }

    #[test]
    fn an_input_shows_its_size_not_its_text() {
        let input = Input::from("[]".repeat(1000));
        assert_eq!(format!("{input:?}"), "Input { bytes: 2000 }");
        assert_eq!(input.len(), 2000);
        assert!(!input.is_empty());
        assert!(Input::from(String::new()).parse().is_err());
    }

    #[test]
    fn the_size_limit_applies_to_an_input() {
        let input = Input::from("[]".to_owned());
        let options = ParseOptions {
            max_input_bytes: Some(1),
        };
        assert_eq!(
            input.parse_with(&options).unwrap_err().category(),
            ParseErrorCategory::Limit
        );
        assert!(input.parse_with(&ParseOptions::default()).unwrap().is_empty());
    }
}
