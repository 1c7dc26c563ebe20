//! [`Float`]: a floating-point field, read as pydantic's lax mode reads floats, with its spelling
//! kept.

use std::borrow::Cow;
use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};

use super::without_digit_separators;
use crate::RawJson;

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

/// A floating-point field (`audio_seconds`).
///
/// Written as pydantic-ai writes floats (`0.0`, `1e+16`); a spelling read from the input that
/// differs (`0`, `1E16`) is kept as written.
///
/// Two floats are equal when they are the same number written the same way: a NaN (pydantic's
/// lax mode reads `"nan"`) equals itself, so a history holding one equals its own round trip.
#[derive(Clone, Debug)]
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

impl PartialEq for Float {
    fn eq(&self, other: &Self) -> bool {
        self.value.to_bits() == other.value.to_bits() && self.written == other.written
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
        // pydantic's lax `float` (pydantic-core `str_as_float`): booleans are 0 and 1; a string
        // is trimmed, may separate digits with single `_`, and may spell `inf` or `nan`. The
        // literals jiter reads (`crate::non_finite`) are floats (`allow_inf_nan` is pydantic's
        // default for `float`).
        let value: Option<f64> = match raw.get() {
            "true" => Some(1.0),
            "false" => Some(0.0),
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            text if text.starts_with('"') => {
                let literal = numeric_literal(&raw);
                without_digit_separators(&literal).and_then(|plain| plain.parse().ok())
            }
            text => text.parse().ok().filter(|_| !text.contains(['i', 'I', 'a', 'A'])),
        };
        let Some(value) = value else {
            return Err(D::Error::custom(format_args!("invalid value {raw}: expected a number")));
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

    /// Each as pydantic-ai 2.68.0 answers it for `usage.audio_seconds` (probed with `validate_json`).
    #[test]
    fn a_float_reads_what_pydantic_reads_and_keeps_its_spelling() {
        for (accepted, value) in [
            ("true", 1.0),
            ("false", 0.0),
            ("\" 5 \"", 5.0),
            ("\"1_000.5\"", 1000.5),
            ("\"+5\"", 5.0),
            ("\"5.\"", 5.0),
            ("\".5\"", 0.5),
            ("\"inf\"", f64::INFINITY),
            ("\"-Infinity\"", f64::NEG_INFINITY),
        ] {
            let float: Float = serde_json::from_str(accepted).unwrap();
            assert_eq!(float.value(), value, "{accepted}");
            assert_eq!(serde_json::to_string(&float).unwrap(), accepted);
        }
        let nan: Float = serde_json::from_str("\"nan\"").unwrap();
        assert!(nan.value().is_nan());
        for refused in ["\"5_\"", "\"abc\"", "\"0x10\"", "\".\"", "null", "[]"] {
            assert!(serde_json::from_str::<Float>(refused).is_err(), "{refused}");
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
    }
}
