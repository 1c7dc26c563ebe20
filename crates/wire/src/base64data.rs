//! [`Base64Data`]: bytes as pydantic-ai writes them, URL-safe base64.

use std::fmt;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// pydantic-ai reads both alphabets, with or without padding, but rejects wrong padding.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Binary data (`BinaryContent.data`, speech audio) in its base64 text form.
///
/// pydantic-ai writes URL-safe base64 with `=` padding and accepts the standard alphabet and
/// missing padding on input. msgflow validates the text when reading and keeps it as written.
///
/// ```
/// use msgflow_wire::Base64Data;
/// let data = Base64Data::from_bytes(&[0xfb, 0xff]);
/// assert_eq!(data.as_str(), "-_8=");
/// assert_eq!(Base64Data::parse("+/8").unwrap().decode().unwrap(), vec![0xfb, 0xff]);
/// assert!(Base64Data::parse("A===").is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Base64Data(String);

/// Why a text is not valid base64.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid base64 data: {reason}")]
pub struct Base64Error {
    /// What the decoder found.
    pub reason: String,
}

impl Base64Data {
    /// Encodes bytes the way pydantic-ai does (URL-safe alphabet, padded).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Base64Data(URL_SAFE.encode(bytes))
    }

    /// Validates base64 text and keeps it as written.
    pub fn parse(text: &str) -> Result<Self, Base64Error> {
        decode(text)?;
        Ok(Base64Data(text.to_owned()))
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The decoded bytes.
    pub fn decode(&self) -> Result<Vec<u8>, Base64Error> {
        decode(&self.0)
    }

    /// The bytes of base64 text as pydantic-ai reads them (either alphabet, padded or not), in
    /// one pass: for a mapping that needs the bytes of a JSON value it has not validated.
    ///
    /// ```
    /// use msgflow_wire::Base64Data;
    /// assert_eq!(Base64Data::decode_str("+/8").unwrap(), vec![0xfb, 0xff]);
    /// assert_eq!(Base64Data::decode_str("-_8=").unwrap(), vec![0xfb, 0xff]);
    /// assert!(Base64Data::decode_str("A===").is_err());
    /// ```
    pub fn decode_str(text: &str) -> Result<Vec<u8>, Base64Error> {
        decode(text)
    }
}

fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let url_safe: std::borrow::Cow<'_, str> = if text.contains(['+', '/']) {
        text.replace('+', "-").replace('/', "_").into()
    } else {
        text.into()
    };
    LENIENT.decode(url_safe.as_bytes()).map_err(|err| Base64Error {
        reason: err.to_string(),
    })
}

impl fmt::Debug for Base64Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 32;
        match self.0.get(..SHOWN) {
            Some(head) if self.0.len() > SHOWN => write!(f, "Base64Data({head}... {} chars)", self.0.len()),
            _ => write!(f, "Base64Data({})", self.0),
        }
    }
}

impl Serialize for Base64Data {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Base64Data {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Base64Visitor;
        impl Visitor<'_> for Base64Visitor {
            type Value = Base64Data;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base64 string")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Base64Data, E> {
                Base64Data::parse(text).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Base64Visitor)
    }
}
