//! [`RawJson`]: a JSON value msgflow carries without interpreting it. What reading a value finds
//! out about its bytes is in `scan` (with its 64-byte block classifier in `blocks`).

mod blocks;
mod normalize;
mod scan;

use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

pub use self::normalize::Normalized;
use self::scan::{compact, scan};
pub(crate) use self::scan::{holds_only_plain_integers, nests_deeper_than, skip_string, skip_whitespace};

/// A JSON value kept exactly as it was read (tool arguments, tool-return content, metadata,
/// provider details, ...).
///
/// Keeping opaque content as text is what makes msgflow both lossless and fast: integers of any
/// size, number spellings, key order and duplicate keys survive, and nothing is unescaped or
/// re-escaped. The only change made on reading is removing insignificant whitespace, so that
/// output is always in pydantic-ai's compact form.
///
/// A history parsed from an [`Input`](crate::Input) does not copy its opaque values at all: each
/// one is a slice of the input text, which stays allocated while any of them is alive. Cloning a
/// `RawJson` never copies its text either.
///
/// ```
/// use msgflow_wire::RawJson;
/// let raw = RawJson::from_json_text("{ \"path\": \"src/main.rs\",\n \"n\": 123456789012345678901234567890 }").unwrap();
/// assert_eq!(raw.get(), r#"{"path":"src/main.rs","n":123456789012345678901234567890}"#);
/// ```
#[derive(Clone)]
pub struct RawJson(Repr, Shape);

/// What the scan of a value on reading found out for the loadability verdict, so that the
/// verdict need not read its text again (`verdict/json_limits.rs`): its kind, an upper bound of
/// how deep its arrays and objects nest, and whether a string in it holds a `\u` escape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// At least the deepest nesting of arrays and objects; `u8::MAX` when not counted.
    pub(crate) depth_bound: u8,
    /// Whether a string (the value, or one in an array or object) may hold a `\u` escape.
    pub(crate) unicode_escape: bool,
    /// The value's first byte (`{`, `[`, `"`, `n`, `t`, `f`, `-` or a digit), which says its
    /// JSON kind: asking for the kind does not touch the text (a slice of a large input, mostly
    /// out of the cache by the time the verdict walks the history).
    pub(crate) first: u8,
    /// Whether the value is an object whose values are all plain integers
    /// ([`holds_only_plain_integers`]; told for objects of up to
    /// [`PLAIN_INTEGERS_SCAN`](scan::PLAIN_INTEGERS_SCAN) bytes).
    pub(crate) plain_int_values: bool,
}

impl Shape {
    /// Not counted (a value msgflow built, or one too deep for the byte): the verdict scans it.
    fn unknown(text: &str) -> Shape {
        Shape {
            depth_bound: u8::MAX,
            unicode_escape: true,
            first: text.as_bytes().first().copied().unwrap_or(b'n'),
            plain_int_values: false,
        }
    }
}

#[derive(Clone)]
enum Repr {
    Owned(Arc<str>),
    /// `input[start..end]`, a value as it was read from a shared input.
    Slice {
        input: Arc<String>,
        start: usize,
        end: usize,
    },
}

impl RawJson {
    /// The JSON text, compact.
    pub fn get(&self) -> &str {
        match &self.0 {
            Repr::Owned(text) => text,
            // The bounds were taken from a slice of this very input.
            Repr::Slice { input, start, end } => input.get(*start..*end).unwrap_or("null"),
        }
    }

    /// `null`.
    pub fn null() -> Self {
        Self::trusted("null")
    }

    /// `{}`.
    pub fn empty_object() -> Self {
        Self::trusted("{}")
    }

    /// Parses JSON text (any whitespace is removed), with the `NaN` / `Infinity` literals
    /// pydantic-ai reads (see [`crate::read_json`]).
    pub fn from_json_text(text: &str) -> Result<Self, serde_json::Error> {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => Ok(Self::from_raw(raw)),
            Err(_) => crate::read_json(text),
        }
    }

    /// Serialises a value in compact form.
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        Ok(Self::trusted_owned(serde_json::to_string(value)?))
    }

    /// A JSON string holding `text`.
    pub fn string(text: &str) -> Self {
        // serde_json escapes `"`, `\` and the control characters, and nothing else: a text
        // without them is its own JSON, quoted. A stream calls this for every argument fragment
        // (a few bytes each), where serialising costs more than the rest of the delta.
        let plain = text.bytes().all(|byte| byte >= 0x20 && byte != b'"' && byte != b'\\');
        if !plain {
            // Serialising a `&str` cannot fail.
            return Self::from_value(text).unwrap_or_else(|_| Self::null());
        }
        let shape = Shape {
            depth_bound: 0,
            unicode_escape: false,
            first: b'"',
            plain_int_values: false,
        };
        // A short one is quoted on the stack, so that the `Arc` is its only allocation.
        const ON_STACK: usize = 64;
        let mut buffer = [0u8; ON_STACK];
        if let Some(inner) = buffer.get_mut(1..text.len() + 1).filter(|_| text.len() + 2 <= ON_STACK) {
            inner.copy_from_slice(text.as_bytes());
            buffer[0] = b'"';
            buffer[text.len() + 1] = b'"';
            if let Ok(quoted) = std::str::from_utf8(&buffer[..text.len() + 2]) {
                return RawJson(Repr::Owned(Arc::from(quoted)), shape);
            }
        }
        RawJson(Repr::Owned(Arc::from(format!("\"{text}\""))), shape)
    }

    /// Takes a raw value, compacting it when it holds insignificant whitespace.
    pub fn from_raw(raw: &RawValue) -> Self {
        Self::from_read_text(raw.get())
    }

    /// A value's text as the parser delivered it: a slice of the shared input when there is
    /// one (see [`crate::Input`]), a copy otherwise.
    pub(crate) fn from_read_text(text: &str) -> Self {
        if crate::non_finite::restoring() {
            if let Some(restored) = crate::non_finite::restore(text) {
                return Self::from_owned_text(restored);
            }
        }
        let scan = scan(text.as_bytes());
        if scan.whitespace {
            // Whitespace between tokens changes neither the nesting nor the escapes.
            return RawJson(Repr::Owned(Arc::from(compact(text))), scan.shape);
        }
        match crate::rt::shared_input_range(text) {
            Some((input, start)) => RawJson(
                Repr::Slice {
                    input,
                    start,
                    end: start + text.len(),
                },
                scan.shape,
            ),
            None => RawJson(Repr::Owned(Arc::from(text)), scan.shape),
        }
    }

    /// A value's text msgflow holds itself (compacted when it holds whitespace).
    fn from_owned_text(text: String) -> Self {
        let scan = scan(text.as_bytes());
        let text = if scan.whitespace { compact(&text) } else { text };
        RawJson(Repr::Owned(Arc::from(text)), scan.shape)
    }

    /// Wraps text that is already known to be one compact JSON value.
    pub(crate) fn trusted(text: &str) -> Self {
        RawJson(Repr::Owned(Arc::from(text)), Shape::unknown(text))
    }

    fn trusted_owned(text: String) -> Self {
        let shape = Shape::unknown(&text);
        RawJson(Repr::Owned(Arc::from(text)), shape)
    }

    /// What reading the value found out about its nesting and escapes.
    pub(crate) fn shape(&self) -> Shape {
        self.1
    }

    /// The length of the text in bytes.
    pub(crate) fn text_len(&self) -> usize {
        match &self.0 {
            Repr::Owned(text) => text.len(),
            Repr::Slice { start, end, .. } => end - start,
        }
    }

    /// `true` for the JSON literal `null` (the only JSON value that starts with `n`).
    pub fn is_null(&self) -> bool {
        self.1.first == b'n'
    }

    /// `true` when the value is a JSON string.
    pub fn is_string(&self) -> bool {
        self.1.first == b'"'
    }

    /// `true` when the value is a JSON object.
    pub fn is_object(&self) -> bool {
        self.1.first == b'{'
    }

    /// `true` when the value is a JSON array.
    pub fn is_array(&self) -> bool {
        self.1.first == b'['
    }

    /// The unescaped text when the value is a JSON string.
    pub fn as_string(&self) -> Option<String> {
        if self.is_string() {
            serde_json::from_str(self.get()).ok()
        } else {
            None
        }
    }

    /// Parses the value as `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// The value as a [`serde_json::Value`] (integers beyond 64 bits become floats there).
    ///
    /// msgflow carries opaque values at any depth, but a `Value` is built recursively, so a value
    /// nested deeper than [`crate::MAX_DEPTH`] levels cannot become one: it is an error here.
    pub fn try_to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// The value as a [`serde_json::Value`]; a value nested deeper than [`crate::MAX_DEPTH`]
    /// levels comes back as a JSON string holding its text (see [`RawJson::try_to_value`]).
    pub fn to_value(&self) -> serde_json::Value {
        self.try_to_value()
            .unwrap_or_else(|_| serde_json::Value::String(self.get().to_owned()))
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl std::hash::Hash for RawJson {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.get().hash(state);
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.get())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl From<serde_json::Value> for RawJson {
    fn from(value: serde_json::Value) -> Self {
        Self::from_value(&value).unwrap_or_else(|_| Self::null())
    }
}

impl From<&serde_json::Value> for RawJson {
    fn from(value: &serde_json::Value) -> Self {
        Self::from_value(value).unwrap_or_else(|_| Self::null())
    }
}

// Both directions speak serde_json's raw-value protocol (what `RawValue` does): a newtype
// struct named by the marker, holding the JSON text. serde_json writes the text verbatim and,
// reading from a slice, hands over the text borrowed from the input.

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(crate::rt::RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(crate::rt::RAW_VALUE_TOKEN, self.get())?;
        raw.end()
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RawVisitor;
        impl<'de> Visitor<'de> for RawVisitor {
            type Value = RawJson;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawJson, A::Error> {
                if map.next_key::<IgnoredAny>()?.is_none() {
                    return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
                }
                map.next_value_seed(RawTextSeed)
            }
        }
        deserializer.deserialize_newtype_struct(crate::rt::RAW_VALUE_TOKEN, RawVisitor)
    }
}

/// The text of a raw value: borrowed from the input when the parser reads a slice, a
/// temporary string when it reads a stream.
struct RawTextSeed;

impl<'de> DeserializeSeed<'de> for RawTextSeed {
    type Value = RawJson;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawJson, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for RawTextSeed {
    type Value = RawJson;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the text of a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<RawJson, E> {
        Ok(RawJson::from_read_text(text))
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<RawJson, E> {
        // A transient buffer never lies inside the shared input, so this copies.
        Ok(RawJson::from_read_text(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The quoting fast path writes what serde_json writes, and a shape the scan would agree
        /// with, on every length around the stack buffer's and every byte class.
        #[test]
        fn strings_are_quoted_as_serde_json_quotes_them(text in "[a-z\"\\\\\u{0}-\u{1f}\u{7f}é😀 ]{0,80}") {
            let raw = RawJson::string(&text);
            let expected = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(raw.get(), expected.as_str());
            prop_assert_eq!(raw.as_string(), Some(text.clone()));
            let scanned = scan(expected.as_bytes()).shape;
            prop_assert!(raw.1.unicode_escape || !scanned.unicode_escape);
            prop_assert_eq!(raw.1.first, b'"');
        }
    }

    #[test]
    fn values_parsed_from_an_input_are_slices_of_it_and_outlive_it() {
        let text = r#"[{"parts":[{"tool_name":"f","content":{"a": [1, 2]},"tool_call_id":"c","metadata":null,"timestamp":"2025-01-02T03:04:05Z","part_kind":"tool-return"}],"kind":"request"}]"#;
        let input = crate::Input::from(text.to_owned());
        let history = input.parse().unwrap();
        drop(input);
        let crate::ModelMessage::Request(request) = &history[0] else {
            panic!("a request")
        };
        let crate::ModelRequestPart::ToolReturn(part) = &request.parts[0] else {
            panic!("a tool return")
        };
        // Whitespace is removed even from a shared input (the value becomes a copy).
        assert_eq!(part.content.get(), r#"{"a":[1,2]}"#);
        assert!(matches!(part.content.0, Repr::Owned(_)));
        assert_eq!(history, crate::from_str(text).unwrap());
    }

    #[test]
    fn compact_values_from_an_input_share_it() {
        let input = crate::Input::from(r#"[{"parts":[{"tool_name":"f","content":[1,"two"],"tool_call_id":"c","timestamp":"2025-01-02T03:04:05Z","part_kind":"tool-return"}],"kind":"request"}]"#.to_owned());
        let history = input.parse().unwrap();
        let crate::ModelMessage::Request(request) = &history[0] else {
            panic!("a request")
        };
        let crate::ModelRequestPart::ToolReturn(part) = &request.parts[0] else {
            panic!("a tool return")
        };
        assert_eq!(part.content.get(), r#"[1,"two"]"#);
        let Repr::Slice { input: shared, .. } = &part.content.0 else {
            panic!("a slice")
        };
        assert!(std::ptr::eq(shared.as_str(), input.as_str()));
        // A copied parse owns its values.
        let copied = crate::from_str(input.as_str()).unwrap();
        let crate::ModelMessage::Request(request) = &copied[0] else {
            panic!("a request")
        };
        let crate::ModelRequestPart::ToolReturn(part) = &request.parts[0] else {
            panic!("a tool return")
        };
        assert!(matches!(part.content.0, Repr::Owned(_)));
    }

    /// The marker is serde_json's: with a wrong one, serde_json would write and expect a
    /// one-key object instead of the value itself.
    #[test]
    fn raw_values_are_handed_over_without_rescanning() {
        let text = r#"{"n":1.50,"s":"a\u00e9"}"#;
        let raw: RawJson = serde_json::from_str(text).unwrap();
        assert_eq!(raw.get(), text);
        assert_eq!(serde_json::to_string(&raw).unwrap(), text);
        // A reader hands the text over as a temporary string; it is copied and compacted.
        let streamed: RawJson = serde_json::from_reader("[1, 2]".as_bytes()).unwrap();
        assert_eq!(streamed.get(), "[1,2]");
        assert!(matches!(streamed.0, Repr::Owned(_)));
    }

    #[test]
    fn compact_text_is_kept() {
        let raw = RawJson::from_json_text(r#"{"k":"v w","n":[1,2]}"#).unwrap();
        assert_eq!(raw.get(), r#"{"k":"v w","n":[1,2]}"#);
        assert!(RawJson::null().is_null());
        assert_eq!(RawJson::string("a\"b").as_string().as_deref(), Some("a\"b"));
    }
}
