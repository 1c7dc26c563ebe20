//! [`Int`]: an integer field of any size, read as pydantic's lax mode reads integers, with its
//! spelling kept.

use std::borrow::Cow;
use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};

use super::without_digit_separators;
use crate::RawJson;

/// An integer field (token counts, retry attempts, offsets), of any size.
///
/// pydantic-ai types these fields as Python `int`, which has no size limit: it writes big
/// integers exactly and reads them back, so msgflow does too. It reads integers leniently, as
/// pydantic's lax mode does (`5.0`, `"5"`, `"1_000"` and `true` are 5, 5, 1000 and 1), and writes
/// them back as plain integers; msgflow keeps such a spelling as written so that a round trip
/// returns the same JSON, and rejects anything that is not an integer. Whether pydantic-ai 2.68.0
/// accepts a given spelling (it refuses floats beyond 64 bits and integers over 4300 digits) is
/// the loadability verdict's question, not the reader's: what is read is kept.
///
/// ```
/// use msgflow_wire::Int;
/// let tokens: Int = serde_json::from_str("5.0").unwrap();
/// assert_eq!(tokens.to_i64(), Some(5));
/// assert_eq!(serde_json::to_string(&tokens).unwrap(), "5.0");
/// assert!(serde_json::from_str::<Int>("5.5").is_err());
///
/// let huge: Int = serde_json::from_str("18446744073709551616").unwrap();
/// assert_eq!((huge.to_i64(), huge.digits().as_ref()), (None, "18446744073709551616"));
/// assert_eq!(serde_json::to_string(&huge).unwrap(), "18446744073709551616");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Int(IntRepr);

/// Almost every integer in a history is a small token count written plainly: those take 16
/// bytes (a usage holds a dozen of them), and the rare others keep their text in a box.
#[derive(Clone, PartialEq, Eq, Hash)]
enum IntRepr {
    /// Fits in an `i64` and was read in its plain decimal spelling (or built by msgflow).
    Plain(i64),
    /// Beyond 64 bits, or read in another spelling (`5.0`, `"5"`, `true`).
    Written(Box<WrittenInt>),
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct WrittenInt {
    /// The value when it fits in an `i64`; `None` for a bigger one.
    small: Option<i64>,
    /// The JSON text read.
    text: RawJson,
}

impl fmt::Debug for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Int")
            .field("small", &self.to_i64())
            .field("written", &self.written_json())
            .finish()
    }
}

impl Int {
    /// An integer from its value (when it fits in an `i64`) and the text it was read with (when
    /// that is not the value's plain spelling, or the value is big).
    fn new(small: Option<i64>, written: Option<RawJson>) -> Self {
        match (small, written) {
            (Some(value), None) => Int(IntRepr::Plain(value)),
            (small, Some(text)) => Int(IntRepr::Written(Box::new(WrittenInt { small, text }))),
            // Not built: a big value always has its text.
            (None, None) => Int(IntRepr::Plain(0)),
        }
    }

    /// The text read, when it is kept.
    fn written_json(&self) -> Option<&RawJson> {
        match &self.0 {
            IntRepr::Plain(_) => None,
            IntRepr::Written(written) => Some(&written.text),
        }
    }

    /// Whether the integer fits in an `i64` and was read in its plain decimal spelling (or
    /// built by msgflow): the common case, which needs no look at its text.
    #[inline]
    pub(crate) fn is_plain_small(&self) -> bool {
        matches!(self.0, IntRepr::Plain(_))
    }

    /// The integer, when it fits in an `i64`.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            IntRepr::Plain(value) => Some(*value),
            IntRepr::Written(written) => written.small,
        }
    }

    /// The integer, when it fits in a `u64`.
    pub fn to_u64(&self) -> Option<u64> {
        match self.to_i64() {
            Some(value) => u64::try_from(value).ok(),
            None => self.digits().parse().ok(),
        }
    }

    /// The integer, when it fits in an `i128` (enough for any sum of `u64` token counts).
    pub fn to_i128(&self) -> Option<i128> {
        match self.to_i64() {
            Some(value) => Some(i128::from(value)),
            None => self.digits().parse().ok(),
        }
    }

    /// The integer in plain decimal digits (`-` for a negative one, no leading zeros), whatever
    /// its size and however it was written.
    pub fn digits(&self) -> Cow<'_, str> {
        if let Some(value) = self.to_i64() {
            return Cow::Owned(itoa::Buffer::new().format(value).to_owned());
        }
        let raw = self.written_json().map_or("0", RawJson::get);
        match integer_value(raw) {
            Some(IntegerValue::Big(digits)) => digits,
            Some(IntegerValue::Small(value)) => Cow::Owned(value.to_string()),
            None => Cow::Borrowed("0"),
        }
    }

    /// Whether the integer is below zero.
    pub fn is_negative(&self) -> bool {
        match self.to_i64() {
            Some(value) => value < 0,
            None => self.digits().starts_with('-'),
        }
    }

    /// The spelling read from the input when it was not the plain decimal spelling of the
    /// value (`5.0`, `"5"`, `true`).
    pub fn written(&self) -> Option<&str> {
        let raw = self.written_json()?.get();
        match self.to_i64() {
            Some(_) => Some(raw),
            None => (self.digits() != raw).then_some(raw),
        }
    }
}

impl From<i64> for Int {
    fn from(value: i64) -> Self {
        Int(IntRepr::Plain(value))
    }
}

/// Small machine integers convert exactly (and an untyped literal, `Int::from(12)`, is an `i32`).
macro_rules! int_from_small {
    ($($small:ty),*) => {$(
        impl From<$small> for Int {
            fn from(value: $small) -> Self {
                Int::from(i64::from(value))
            }
        }
    )*};
}

int_from_small!(i8, i16, i32, u8, u16, u32);

impl From<usize> for Int {
    fn from(value: usize) -> Self {
        // usize is at most 64 bits on every platform Rust supports.
        Int::from(value as u64)
    }
}

impl From<u64> for Int {
    fn from(value: u64) -> Self {
        match i64::try_from(value) {
            Ok(small) => Int::from(small),
            Err(_) => Int::big(itoa::Buffer::new().format(value)),
        }
    }
}

impl From<i128> for Int {
    fn from(value: i128) -> Self {
        match i64::try_from(value) {
            Ok(small) => Int::from(small),
            Err(_) => Int::big(itoa::Buffer::new().format(value)),
        }
    }
}

impl Int {
    /// An integer outside `i64` from its plain decimal digits.
    fn big(digits: &str) -> Self {
        // Plain decimal digits are valid compact JSON.
        Int::new(None, Some(RawJson::trusted(digits)))
    }
}

/// Error of [`Int::from_str`](std::str::FromStr::from_str): the text is not a plain decimal integer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid integer {0:?}: expected decimal digits with an optional `-`")]
pub struct ParseIntError(String);

impl std::str::FromStr for Int {
    type Err = ParseIntError;

    /// Reads plain decimal digits of any size (`-12`, `18446744073709551616`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        let plain = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'))
            && text != "-0";
        if !plain {
            return Err(ParseIntError(text.to_owned()));
        }
        Ok(match text.parse::<i64>() {
            Ok(value) => Int::from(value),
            Err(_) => Int::big(text),
        })
    }
}

impl TryFrom<&Int> for i64 {
    type Error = OutOfRange;

    fn try_from(value: &Int) -> Result<Self, Self::Error> {
        value.to_i64().ok_or_else(|| OutOfRange(value.digits().into_owned()))
    }
}

/// An [`Int`] that does not fit the machine integer asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("integer {0} is out of range")]
pub struct OutOfRange(pub String);

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_i64() {
            Some(value) => write!(f, "{value}"),
            None => f.write_str(&self.digits()),
        }
    }
}

impl Serialize for Int {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            IntRepr::Plain(value) => serializer.serialize_i64(*value),
            IntRepr::Written(written) => written.text.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawJson::deserialize(deserializer)?;
        match integer_value(raw.get()) {
            Some(IntegerValue::Small(value)) => {
                // Token counts fill every response's usage: compare without allocating.
                let written = (itoa::Buffer::new().format(value) != raw.get()).then_some(raw);
                Ok(Int::new(Some(value), written))
            }
            Some(IntegerValue::Big(_)) => Ok(Int::new(None, Some(raw))),
            None => Err(D::Error::custom(format_args!(
                "invalid value {raw}: expected an integer"
            ))),
        }
    }
}

/// What an integer field's JSON text means.
enum IntegerValue<'a> {
    Small(i64),
    /// Plain decimal digits of a value outside `i64`.
    Big(Cow<'a, str>),
}

/// The integer a JSON value stands for, as pydantic's lax mode reads it: a JSON integer, a float
/// without a fractional part, a string holding either (surrounding whitespace and Python's digit
/// separators `_` allowed, as `int()` allows them), or a boolean.
fn integer_value(json: &str) -> Option<IntegerValue<'_>> {
    match json {
        "true" => return Some(IntegerValue::Small(1)),
        "false" => return Some(IntegerValue::Small(0)),
        _ => {}
    }
    if let Ok(value) = json.parse::<i64>() {
        return Some(IntegerValue::Small(value));
    }
    let literal: Cow<'_, str> = if json.starts_with('"') {
        let text: String = serde_json::from_str(json).ok()?;
        Cow::Owned(without_digit_separators(text.trim())?.into_owned())
    } else {
        Cow::Borrowed(json)
    };
    decimal_integer(literal)
}

/// An integer literal (sign, digits) of any size, or a float literal without a fractional part.
fn decimal_integer(literal: Cow<'_, str>) -> Option<IntegerValue<'_>> {
    let unsigned = literal.strip_prefix(['-', '+']).unwrap_or(&literal);
    if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(value) = literal.parse::<i64>() {
            return Some(IntegerValue::Small(value));
        }
        let negative = literal.starts_with('-');
        let significant = unsigned.trim_start_matches('0');
        return Some(IntegerValue::Big(Cow::Owned(format!(
            "{}{significant}",
            if negative { "-" } else { "" }
        ))));
    }
    if literal.contains(['i', 'n', 'N', 'I']) {
        return None;
    }
    let float: f64 = literal.parse().ok()?;
    if !float.is_finite() || float.fract() != 0.0 {
        return None;
    }
    // Within i64 the cast is exact; beyond it, `{:.0}` prints the float's exact integer value.
    if float.abs() < 9.2e18 {
        Some(IntegerValue::Small(float as i64))
    } else {
        Some(IntegerValue::Big(Cow::Owned(format!("{float:.0}"))))
    }
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
        for (unusual, value) in [
            ("-0", 0),
            ("5.0", 5),
            ("1E5", 100_000),
            ("\"5\"", 5),
            ("\" 7 \"", 7),
            ("\"1_000\"", 1000),
            ("true", 1),
            ("false", 0),
        ] {
            let parsed = int(unusual);
            assert_eq!((parsed.to_i64(), parsed.written()), (Some(value), Some(unusual)));
            assert_eq!(serde_json::to_string(&parsed).unwrap(), unusual);
        }
    }

    #[test]
    fn an_integer_of_any_size_is_read_and_written_exactly() {
        let huge = "123456789012345678901234567890123456789012345678901234567890";
        for plain in [
            huge,
            "-18446744073709551617",
            "18446744073709551616",
            "9223372036854775808",
        ] {
            let parsed = int(plain);
            assert_eq!((parsed.to_i64(), parsed.written()), (None, None), "{plain}");
            assert_eq!(parsed.digits(), plain);
            assert_eq!(parsed.to_string(), plain);
            assert_eq!(serde_json::to_string(&parsed).unwrap(), plain);
            assert_eq!(plain.parse::<Int>().unwrap(), parsed);
        }
        assert_eq!(int("18446744073709551615").to_u64(), Some(u64::MAX));
        assert_eq!(int("-9223372036854775809").to_i128(), Some(i128::from(i64::MIN) - 1));
        assert!(int("-18446744073709551617").is_negative());
        for (unusual, digits) in [
            ("1e20", "100000000000000000000"),
            ("\"+0018446744073709551616\"", "18446744073709551616"),
            ("\"18_446_744_073_709_551_616\"", "18446744073709551616"),
            ("-1.0e19", "-10000000000000000000"),
        ] {
            let parsed = int(unusual);
            assert_eq!((parsed.digits().as_ref(), parsed.written()), (digits, Some(unusual)));
            assert_eq!(serde_json::to_string(&parsed).unwrap(), unusual);
        }
        assert_eq!(Int::from(u64::MAX).digits(), "18446744073709551615");
        assert_eq!(Int::from(u64::MAX).written(), None);
        for bad in ["\"1__0\"", "\"_1\"", "\"1e3x\"", "null", "\"\"", "1.5", "\"0x10\""] {
            assert!(serde_json::from_str::<Int>(bad).is_err(), "{bad}");
        }
        for bad in ["", "-", "01", "-0", "+1", "1.0"] {
            assert!(bad.parse::<Int>().is_err(), "{bad:?}");
        }
    }

    proptest! {
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
