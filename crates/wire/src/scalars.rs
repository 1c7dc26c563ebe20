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

impl ForceDownload {
    /// Whether pydantic-ai downloads the file (`true`, `"allow-local"`, or a value its lax mode reads
    /// as `true`), or `None` for a value it does not load.
    ///
    /// ```
    /// use msgflow_wire::ForceDownload;
    /// let off: ForceDownload = serde_json::from_str(r#""off""#).unwrap();
    /// assert_eq!(off.downloads(), Some(false));
    /// assert_eq!(ForceDownload::AllowLocal.downloads(), Some(true));
    /// let other: ForceDownload = serde_json::from_str(r#""local""#).unwrap();
    /// assert_eq!(other.downloads(), None);
    /// ```
    pub fn downloads(&self) -> Option<bool> {
        match self {
            ForceDownload::No => Some(false),
            ForceDownload::Yes | ForceDownload::AllowLocal => Some(true),
            // `bool | Literal['allow-local']`: only the bool takes another value, in lax mode.
            ForceDownload::Other(raw) => lax_bool(raw),
        }
    }
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

/// `content_file_digests` of a tool result: the record of the file items its content held when
/// pydantic-ai dumped it (sorted SHA-256 digests), or any other value, kept as written.
///
/// pydantic-ai reads it as a list only (`_validate_recorded_files`): a list of strings is the
/// record, a list holding anything else is refused (`invalid_file_record`), and any other value
/// (`null`, a number, an object, ...) is ignored, as if there were no record. msgflow reads all of
/// them and writes each back as it was; [`FileDigests::record`] is what pydantic-ai reads.
///
/// ```
/// use msgflow_wire::FileDigests;
/// let record: FileDigests = serde_json::from_str(r#"["ab12"]"#).unwrap();
/// assert_eq!(record.record().as_deref(), Some(&["ab12".to_owned()][..]));
/// let ignored: FileDigests = serde_json::from_str("7").unwrap();
/// assert_eq!(ignored.record(), None);
/// assert_eq!(serde_json::to_string(&ignored).unwrap(), "7");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileDigests {
    /// A list of digests: the record.
    List(Vec<String>),
    /// Anything else, kept as written.
    Other(RawJson),
}

impl FileDigests {
    /// The record pydantic-ai reads: the digests, when this is a list of strings (in any
    /// spelling).
    pub fn record(&self) -> Option<Cow<'_, [String]>> {
        match self {
            FileDigests::List(digests) => Some(Cow::Borrowed(digests)),
            FileDigests::Other(raw) => serde_json::from_str::<Vec<String>>(raw.get()).ok().map(Cow::Owned),
        }
    }
}

impl Default for FileDigests {
    fn default() -> Self {
        FileDigests::List(Vec::new())
    }
}

impl From<Vec<String>> for FileDigests {
    fn from(digests: Vec<String>) -> Self {
        FileDigests::List(digests)
    }
}

impl Serialize for FileDigests {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            FileDigests::List(digests) => digests.serialize(serializer),
            FileDigests::Other(raw) => raw.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for FileDigests {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        // A list of strings written back as serde writes it is the record; anything else
        // (another spelling too, so that it is written back as it was) is kept as written.
        if raw.is_array() {
            if let Ok(digests) = serde_json::from_str::<Vec<String>>(raw.get()) {
                if serde_json::to_string(&digests).is_ok_and(|written| written == raw.get()) {
                    return Ok(FileDigests::List(digests));
                }
            }
        }
        Ok(FileDigests::Other(raw))
    }
}

/// A plain `bool` field of pydantic-ai's (`InstructionPart.dynamic`, `top_level`, ...): `true`
/// or `false`, or any other value kept as written in `Other`.
///
/// pydantic's lax mode reads `1`, `0`, `1.0`, `"yes"`, `"off"`, `"t"`, ... as booleans
/// (pydantic-core `input/shared.rs` `str_as_bool` and `int_as_bool`), so a history holding them
/// loads in pydantic-ai and msgflow reads it too; [`LaxBool::value`] is what pydantic reads, and
/// the loadability verdict refuses what it would not.
///
/// ```
/// use msgflow_wire::LaxBool;
/// let yes: LaxBool = serde_json::from_str(r#""Yes""#).unwrap();
/// assert_eq!(yes.value(), Some(true));
/// assert_eq!(serde_json::to_string(&yes).unwrap(), r#""Yes""#);
/// let maybe: LaxBool = serde_json::from_str(r#""maybe""#).unwrap();
/// assert_eq!(maybe.value(), None);
/// // pydantic-core does not trim: a padded spelling is refused.
/// let padded: LaxBool = serde_json::from_str(r#"" t ""#).unwrap();
/// assert_eq!(padded.value(), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum LaxBool {
    /// `false`.
    #[default]
    False,
    /// `true`.
    True,
    /// Any other value, kept as written.
    Other(RawJson),
}

impl LaxBool {
    /// The boolean pydantic reads, or `None` when it refuses the value.
    pub fn value(&self) -> Option<bool> {
        match self {
            LaxBool::False => Some(false),
            LaxBool::True => Some(true),
            LaxBool::Other(raw) => lax_bool(raw),
        }
    }
}

fn lax_bool(raw: &RawJson) -> Option<bool> {
    read_lax_bool(raw.get()).ok()
}

/// Why pydantic refuses a JSON literal as a `bool`: the verdict's `bool_parsing` or `bool_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoolRefusal {
    /// A string or number of the right kind that is no boolean (`"maybe"`, `2`, `5.0`).
    Parsing,
    /// Any other value (`0.5`, `null`, an integer beyond 64 bits).
    Type,
}

/// pydantic's lax `bool` for a JSON literal (pydantic-core `input/shared.rs` `str_as_bool`,
/// `int_as_bool` and `validate_bool` for JSON): `true`, `false`, the integers and floats 0 and 1,
/// and the strings [`str_as_bool`] knows. The one rule behind [`LaxBool::value`],
/// [`ForceDownload::downloads`] and the verdict's `lax::bool_error`.
pub(crate) fn read_lax_bool(written: &str) -> Result<bool, BoolRefusal> {
    const I64_MIN_F64: f64 = i64::MIN as f64;
    const I64_MAX_F64: f64 = i64::MAX as f64;
    let is_number = matches!(written.as_bytes().first(), Some(b'-' | b'0'..=b'9'));
    match written {
        "true" => Ok(true),
        "false" => Ok(false),
        _ if written.starts_with('"') => serde_json::from_str::<String>(written)
            .ok()
            .and_then(|text| str_as_bool(&text))
            .ok_or(BoolRefusal::Parsing),
        // jiter reads an integer beyond 64 bits as a big int, which `int_as_bool` does not take:
        // a type error, not a parsing one (probed with the venv: 2**63 is `bool_type`).
        _ if is_number && !written.contains(['.', 'e', 'E']) => match written.parse::<i64>() {
            Ok(0) => Ok(false),
            Ok(1) => Ok(true),
            Ok(_) => Err(BoolRefusal::Parsing),
            Err(_) => Err(BoolRefusal::Type),
        },
        // A float goes through `float_as_int` first: a whole one within 64 bits is an int, which
        // must be 0 or 1 (probed: `5.0` and `1E16` are `bool_parsing`); any other is `bool_type`.
        _ if is_number => match written.parse::<f64>() {
            Ok(0.0) => Ok(false),
            Ok(1.0) => Ok(true),
            Ok(value) if value.fract() == 0.0 && value > I64_MIN_F64 && value < I64_MAX_F64 => {
                Err(BoolRefusal::Parsing)
            }
            _ => Err(BoolRefusal::Type),
        },
        _ => Err(BoolRefusal::Type),
    }
}

/// pydantic-core's `str_as_bool`: the strings it reads as a bool, in any case and unpadded. The one
/// table of them, read by [`LaxBool::value`], [`ForceDownload::downloads`] and the verdict.
pub(crate) fn str_as_bool(text: &str) -> Option<bool> {
    const FALSE: [&str; 6] = ["0", "off", "f", "false", "n", "no"];
    const TRUE: [&str; 6] = ["1", "on", "t", "true", "y", "yes"];
    if FALSE.iter().any(|spelling| spelling.eq_ignore_ascii_case(text)) {
        Some(false)
    } else if TRUE.iter().any(|spelling| spelling.eq_ignore_ascii_case(text)) {
        Some(true)
    } else {
        None
    }
}

impl From<bool> for LaxBool {
    fn from(value: bool) -> Self {
        if value {
            LaxBool::True
        } else {
            LaxBool::False
        }
    }
}

impl Serialize for LaxBool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            LaxBool::False => serializer.serialize_bool(false),
            LaxBool::True => serializer.serialize_bool(true),
            LaxBool::Other(raw) => raw.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for LaxBool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        Ok(match raw.get() {
            "false" => LaxBool::False,
            "true" => LaxBool::True,
            _ => LaxBool::Other(raw),
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

/// `text` without `_` digit separators, or `None` when one is not between two digits (Python's
/// rule, which pydantic-core applies to numeric strings).
fn without_digit_separators(text: &str) -> Option<Cow<'_, str>> {
    if !text.contains('_') {
        return Some(Cow::Borrowed(text));
    }
    let bytes = text.as_bytes();
    let between_digits =
        |at: usize| at > 0 && bytes[at - 1].is_ascii_digit() && bytes.get(at + 1).is_some_and(u8::is_ascii_digit);
    (0..bytes.len())
        .filter(|&at| bytes[at] == b'_')
        .all(between_digits)
        .then(|| Cow::Owned(text.replace('_', "")))
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
