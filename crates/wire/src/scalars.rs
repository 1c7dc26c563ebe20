//! Small runtime types the schema names with `x-msgflow-rust-type`: the opaque scalars kept as
//! written (`Decimal`, `Duration`), `force_download` and `content_file_digests` here, and the lax
//! booleans, integers and floats in their own modules.

mod float;
mod integer;
mod lax_bool;

use std::borrow::Cow;
use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};

pub use self::float::Float;
pub use self::integer::{Int, OutOfRange, ParseIntError};
use self::lax_bool::lax_bool;
pub use self::lax_bool::LaxBool;
pub(crate) use self::lax_bool::{read_lax_bool, str_as_bool, BoolRefusal};
use crate::RawJson;

/// The kind of a scalar field pydantic-ai reads in lax mode ([`crate::lax_scalar`] names the
/// fields): a `bool`, an `int` or a `float`, each of which it reads from several spellings
/// (`"off"` and `0` are `False`, `5.0` and `"5"` are `5`, `5` is `5.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaxScalar {
    /// A `bool` ([`LaxBool`]).
    Bool,
    /// An `int` ([`Int`]).
    Int,
    /// A `float` ([`Float`]).
    Float,
}

impl LaxScalar {
    /// Whether pydantic-ai reads the JSON values `left` and `right` of a field of this kind as the
    /// same value (a float's sign included); `false` where it reads either as none.
    ///
    /// ```
    /// use msgflow_wire::LaxScalar;
    /// use serde_json::json;
    /// assert!(LaxScalar::Bool.reads_alike(&json!("off"), &json!(false)));
    /// assert!(LaxScalar::Int.reads_alike(&json!(5.0), &json!("5")));
    /// assert!(LaxScalar::Float.reads_alike(&json!(5), &json!(5.0)));
    /// assert!(!LaxScalar::Float.reads_alike(&json!(0.0), &json!(-0.0)));
    /// assert!(!LaxScalar::Int.reads_alike(&json!(5), &json!(6)));
    /// assert!(!LaxScalar::Bool.reads_alike(&json!("maybe"), &json!("maybe")));
    /// ```
    pub fn reads_alike(self, left: &serde_json::Value, right: &serde_json::Value) -> bool {
        match self {
            LaxScalar::Bool => crate::lax::boolean(left).is_some_and(|left| crate::lax::boolean(right) == Some(left)),
            LaxScalar::Int => crate::lax::int(left).is_some_and(|left| crate::lax::int(right) == Some(left)),
            // By their bits: Python keeps (and writes) the sign of `-0.0`.
            LaxScalar::Float => {
                let read =
                    |value: &serde_json::Value| Float::deserialize(value).ok().map(|float| float.value().to_bits());
                read(left).is_some_and(|left| read(right) == Some(left))
            }
        }
    }
}

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
