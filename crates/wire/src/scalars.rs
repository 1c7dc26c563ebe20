//! Small runtime types the schema names with `x-msgflow-rust-type`.

use std::borrow::Cow;
use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};

use crate::RawJson;

macro_rules! opaque_scalar {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name(RawJson);

        impl $name {
            /// The JSON text as written (a string literal with its quotes, or a number).
            pub fn as_json(&self) -> &str {
                self.0.get()
            }

            /// Wraps a JSON value.
            pub fn from_raw(raw: RawJson) -> Self {
                $name(raw)
            }

            /// The value as written when it is a JSON string, else the number's text.
            pub fn text(&self) -> String {
                self.0.as_string().unwrap_or_else(|| self.0.get().to_owned())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.text())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(serializer)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                RawJson::deserialize(deserializer).map($name)
            }
        }
    };
}

opaque_scalar! {
    /// A decimal amount (`usage.cost`): pydantic-ai writes a JSON string with its digits kept
    /// (`"0.001234"`, `"0.50"`) and reads a string or a number. msgflow keeps the text.
    ///
    /// ```
    /// let cost = msgflow_wire::Decimal::new("0.50");
    /// assert_eq!(cost.as_json(), "\"0.50\"");
    /// assert_eq!(cost.to_f64(), Some(0.5));
    /// ```
    Decimal
}

impl Decimal {
    /// A decimal written as pydantic-ai writes it (a JSON string).
    pub fn new(digits: &str) -> Self {
        Decimal(RawJson::string(digits))
    }

    /// The amount as a float (for sums and display).
    pub fn to_f64(&self) -> Option<f64> {
        self.text().trim().parse().ok()
    }
}

opaque_scalar! {
    /// A duration (`failed_attempts[].duration`): pydantic-ai writes ISO 8601 (`"PT1.5S"`) and
    /// reads that, seconds as a number, or `"HH:MM:SS"`. msgflow keeps what was written.
    Duration
}

impl Duration {
    /// A duration from ISO 8601 text such as `PT1.5S`.
    pub fn iso8601(text: &str) -> Self {
        Duration(RawJson::string(text))
    }
}

/// `force_download` of a file URL: `false`, `true` or `"allow-local"`.
///
/// Any other value (pydantic-ai's lax mode reads `"yes"` as `true`) is kept as written in
/// `Other`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ForceDownload {
    /// Send the URL to providers that accept URLs; download otherwise.
    #[default]
    No,
    /// Always download, with SSRF protection.
    Yes,
    /// Always download, allowing private addresses.
    AllowLocal,
    /// A value pydantic-ai coerces (such as `"yes"` or `1`), kept as written.
    Other(RawJson),
}

impl Serialize for ForceDownload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ForceDownload::No => serializer.serialize_bool(false),
            ForceDownload::Yes => serializer.serialize_bool(true),
            ForceDownload::AllowLocal => serializer.serialize_str("allow-local"),
            ForceDownload::Other(raw) => raw.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ForceDownload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        Ok(match raw.get() {
            "false" => ForceDownload::No,
            "true" => ForceDownload::Yes,
            "\"allow-local\"" => ForceDownload::AllowLocal,
            _ => ForceDownload::Other(raw),
        })
    }
}

/// The number text of a raw numeric field: the literal itself, or the content of a string
/// (pydantic-ai's lax mode reads `"5"` as 5).
fn numeric_literal(raw: &RawJson) -> Cow<'_, str> {
    match raw.as_string() {
        Some(text) => Cow::Owned(text.trim().to_owned()),
        // A JSON number has no whitespace in it.
        None => Cow::Borrowed(raw.get()),
    }
}

/// Writes a number, or the spelling it was read with.
fn serialize_number<S: Serializer>(
    written: &Option<RawJson>,
    serializer: S,
    plain: impl FnOnce(S) -> Result<S::Ok, S::Error>,
) -> Result<S::Ok, S::Error> {
    match written {
        Some(raw) => raw.serialize(serializer),
        None => plain(serializer),
    }
}

/// An integer field (token counts, retry attempts, offsets).
///
/// pydantic-ai reads integers leniently (`5.0` and `"5"` are 5) and writes them back as plain
/// integers; msgflow keeps such a spelling as written so that a round trip returns the same
/// JSON, and rejects anything that is not an integer.
///
/// ```
/// use msgflow_wire::Int;
/// let tokens: Int = serde_json::from_str("5.0").unwrap();
/// assert_eq!(tokens.value(), 5);
/// assert_eq!(serde_json::to_string(&tokens).unwrap(), "5.0");
/// assert!(serde_json::from_str::<Int>("5.5").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Int {
    value: i64,
    written: Option<RawJson>,
}

impl Int {
    /// The integer.
    pub fn value(&self) -> i64 {
        self.value
    }

    /// The spelling read from the input when it was not a plain integer (`5.0`, `"5"`).
    pub fn written(&self) -> Option<&str> {
        self.written.as_ref().map(RawJson::get)
    }
}

impl From<i64> for Int {
    fn from(value: i64) -> Self {
        Int { value, written: None }
    }
}

impl From<Int> for i64 {
    fn from(value: Int) -> Self {
        value.value
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)
    }
}

impl Serialize for Int {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_number(&self.written, serializer, |s| s.serialize_i64(self.value))
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawJson::deserialize(deserializer)?;
        let literal = numeric_literal(&raw);
        let value = if let Ok(value) = literal.parse::<i64>() {
            value
        } else if !literal.is_empty() && literal != "-" && literal.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
            return Err(D::Error::custom(format_args!(
                "integer {literal} does not fit in 64 bits"
            )));
        } else {
            match literal.parse::<f64>() {
                Ok(float)
                    if float.fract() == 0.0 && float.abs() < 9.2e18 && !literal.contains(['i', 'n', 'N', 'I']) =>
                {
                    float as i64
                }
                _ => {
                    return Err(D::Error::custom(format_args!(
                        "invalid value {raw}: expected an integer"
                    )))
                }
            }
        };
        // Token counts fill every response's usage: compare without allocating.
        let written = (itoa::Buffer::new().format(value) != raw.get()).then_some(raw);
        Ok(Int { value, written })
    }
}

/// A floating-point field (`audio_seconds`).
///
/// Written as pydantic-ai writes floats (`0.0`, `1e+16`); a spelling read from the input that
/// differs (`0`, `1E16`) is kept as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Float {
    value: f64,
    written: Option<RawJson>,
}

impl Float {
    /// The number.
    pub fn value(&self) -> f64 {
        self.value
    }
}

impl From<f64> for Float {
    fn from(value: f64) -> Self {
        Float { value, written: None }
    }
}

impl fmt::Display for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)
    }
}

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_number(&self.written, serializer, |s| s.serialize_f64(self.value))
    }
}

impl<'de> Deserialize<'de> for Float {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawJson::deserialize(deserializer)?;
        let literal = numeric_literal(&raw);
        let value: f64 = match literal.parse() {
            Ok(value) if !literal.is_empty() && !literal.contains(['i', 'I', 'a', 'A']) => value,
            _ => return Err(D::Error::custom(format_args!("invalid value {raw}: expected a number"))),
        };
        let written = (!written_as(value, raw.get())).then_some(raw);
        Ok(Float { value, written })
    }
}

/// Whether serde_json writes `value` as `text` (checked without allocating).
fn written_as(value: f64, text: &str) -> bool {
    // The longest f64 serde_json writes is 24 bytes (`-1.7976931348623157e+308`).
    let mut buffer = [0_u8; 32];
    let mut unused: &mut [u8] = &mut buffer;
    if serde_json::to_writer(&mut unused, &value).is_err() {
        return false;
    }
    let length = 32 - unused.len();
    buffer[..length] == *text.as_bytes()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn int(text: &str) -> Int {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn an_integer_keeps_only_an_unusual_spelling() {
        for plain in ["0", "5", "-12", "9223372036854775807", "-9223372036854775808"] {
            assert_eq!(int(plain).written(), None, "{plain}");
            assert_eq!(serde_json::to_string(&int(plain)).unwrap(), plain);
        }
        for (unusual, value) in [("-0", 0), ("5.0", 5), ("1E5", 100_000), ("\"5\"", 5), ("\" 7 \"", 7)] {
            let parsed = int(unusual);
            assert_eq!((parsed.value(), parsed.written()), (value, Some(unusual)));
            assert_eq!(serde_json::to_string(&parsed).unwrap(), unusual);
        }
    }

    proptest! {
        #[test]
        fn a_float_is_plain_exactly_when_serde_json_writes_it_so(value in any::<f64>(), other in any::<f64>()) {
            let text = serde_json::to_string(&value).unwrap();
            let other_text = serde_json::to_string(&other).unwrap();
            prop_assert!(written_as(value, &text));
            prop_assert_eq!(written_as(value, &other_text), text == other_text);
            let padded = format!("{text} ");
            prop_assert!(!written_as(value, &padded));
        }

        #[test]
        fn an_integer_is_plain_exactly_when_written_as_its_digits(
            value in any::<i64>(),
            exact_in_a_float in -(1_i64 << 53)..(1 << 53),
        ) {
            let plain = int(&value.to_string());
            prop_assert_eq!(plain.written(), None);
            let spelled = format!("{exact_in_a_float}.0");
            let unusual = int(&spelled);
            prop_assert_eq!(unusual.written(), Some(spelled.as_str()));
        }
    }
}
