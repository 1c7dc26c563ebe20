//! pydantic's lax `bool`: the [`LaxBool`] field type and the one reading of a JSON literal as a
//! boolean that it, `ForceDownload` and the verdict share.

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};

use crate::RawJson;

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

pub(super) fn lax_bool(raw: &RawJson) -> Option<bool> {
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
/// [`ForceDownload::downloads`](crate::ForceDownload::downloads) and the verdict's `lax::bool_error`.
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
/// table of them, read by [`LaxBool::value`], [`ForceDownload::downloads`](crate::ForceDownload::downloads) and the verdict.
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
