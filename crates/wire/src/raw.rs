//! [`RawJson`]: a JSON value msgflow carries without interpreting it.

use std::fmt;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// A JSON value kept exactly as it was read (tool arguments, tool-return content, metadata,
/// provider details, ...).
///
/// Keeping opaque content as text is what makes msgflow both lossless and fast: integers of any
/// size, number spellings, key order and duplicate keys survive, and nothing is unescaped or
/// re-escaped. The only change made on reading is removing insignificant whitespace, so that
/// output is always in pydantic-ai's compact form.
///
/// ```
/// use msgflow_wire::RawJson;
/// let raw = RawJson::from_json_text("{ \"path\": \"src/main.rs\",\n \"n\": 123456789012345678901234567890 }").unwrap();
/// assert_eq!(raw.get(), r#"{"path":"src/main.rs","n":123456789012345678901234567890}"#);
/// ```
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The JSON text, compact.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// `null`.
    pub fn null() -> Self {
        RawJson(RawValue::NULL.to_owned())
    }

    /// `{}`.
    pub fn empty_object() -> Self {
        Self::trusted("{}")
    }

    /// Parses JSON text (any whitespace is removed).
    pub fn from_json_text(text: &str) -> Result<Self, serde_json::Error> {
        let raw: Box<RawValue> = serde_json::from_str(text)?;
        Ok(Self::from_raw(&raw))
    }

    /// Serialises a value in compact form.
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        Ok(RawJson(serde_json::value::to_raw_value(value)?))
    }

    /// A JSON string holding `text`.
    pub fn string(text: &str) -> Self {
        // Serialising a `&str` cannot fail.
        Self::from_value(text).unwrap_or_else(|_| Self::null())
    }

    /// Copies a borrowed raw value, compacting it when it holds insignificant whitespace.
    pub fn from_raw(raw: &RawValue) -> Self {
        let text = raw.get();
        if needs_compaction(text.as_bytes()) {
            Self::trusted(&compact(text))
        } else {
            RawJson(raw.to_owned())
        }
    }

    /// Wraps text that is already known to be one compact JSON value.
    pub(crate) fn trusted(text: &str) -> Self {
        match RawValue::from_string(text.to_owned()) {
            Ok(raw) => RawJson(raw),
            // Unreachable for valid input; keep the data as a string rather than panic.
            Err(_) => Self::string(text),
        }
    }

    /// `true` for the JSON literal `null`.
    pub fn is_null(&self) -> bool {
        self.get() == "null"
    }

    /// `true` when the value is a JSON string.
    pub fn is_string(&self) -> bool {
        self.get().starts_with('"')
    }

    /// `true` when the value is a JSON object.
    pub fn is_object(&self) -> bool {
        self.get().starts_with('{')
    }

    /// `true` when the value is a JSON array.
    pub fn is_array(&self) -> bool {
        self.get().starts_with('[')
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

    /// The borrowed [`RawValue`].
    pub fn as_raw_value(&self) -> &RawValue {
        &self.0
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

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        if needs_compaction(raw.get().as_bytes()) {
            Ok(Self::trusted(&compact(raw.get())))
        } else {
            Ok(RawJson(raw))
        }
    }
}

/// Where the string starting after an opening quote at `start` ends (the index after its
/// closing quote), or the end of the input.
///
/// Only quotes stop the search: a quote is the closing one when an even number of backslashes
/// precede it. Tool output is full of `\n` escapes, so this is much faster than stopping at
/// every backslash.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while let Some(rest) = bytes.get(i..) {
        let Some(offset) = memchr::memchr(b'"', rest) else {
            return bytes.len();
        };
        let at = i + offset;
        let backslashes = bytes
            .get(start..at)
            .map_or(0, |before| before.iter().rev().take_while(|&&b| b == b'\\').count());
        if backslashes % 2 == 0 {
            return at + 1;
        }
        i = at + 1;
    }
    bytes.len()
}

/// `true` when valid JSON text holds whitespace outside its strings.
pub(crate) fn needs_compaction(bytes: &[u8]) -> bool {
    // A raw value starts at its first token: only arrays and objects can hold whitespace.
    if !matches!(bytes.first(), Some(b'{' | b'[')) {
        return false;
    }
    // Raw newlines, returns and tabs cannot occur inside JSON strings: one fast search finds
    // every pretty-printed value. Only spaces need the string-aware walk below.
    if memchr::memchr3(b'\n', b'\r', b'\t', bytes).is_some() {
        return true;
    }
    if memchr::memchr(b' ', bytes).is_none() {
        return false;
    }
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => i = skip_string(bytes, i + 1),
            b' ' | b'\n' | b'\r' | b'\t' => return true,
            _ => i += 1,
        }
    }
    false
}

/// Valid JSON text without its insignificant whitespace; strings and numbers as written.
pub(crate) fn compact(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => {
                let end = skip_string(bytes, i + 1);
                out.extend_from_slice(bytes.get(i..end).unwrap_or_default());
                i = end;
            }
            b' ' | b'\n' | b'\r' | b'\t' => i += 1,
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    // Only ASCII whitespace was removed, between tokens, so the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_keeps_strings_and_numbers() {
        let text = "{ \"a b\" : [1E5 , \"x\\\" y\" ],\n\t\"c\":-0.0 }";
        assert!(needs_compaction(text.as_bytes()));
        assert_eq!(compact(text), "{\"a b\":[1E5,\"x\\\" y\"],\"c\":-0.0}");
        assert!(!needs_compaction(compact(text).as_bytes()));
    }

    #[test]
    fn compact_text_is_kept() {
        let raw = RawJson::from_json_text(r#"{"k":"v w","n":[1,2]}"#).unwrap();
        assert_eq!(raw.get(), r#"{"k":"v w","n":[1,2]}"#);
        assert!(RawJson::null().is_null());
        assert_eq!(RawJson::string("a\"b").as_string().as_deref(), Some("a\"b"));
    }
}
