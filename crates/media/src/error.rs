//! The error type of the media rules.

/// A media rule pydantic-ai would refuse, with the same meaning as its exception.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MediaError {
    /// `ImageUrl.format` on a type outside its table (Python: `KeyError`).
    #[error("Unknown image media type: {0}")]
    UnknownImageMediaType(String),
    /// `AudioUrl.format` on a type outside its table (Python: `KeyError`).
    #[error("Unknown audio media type: {0}")]
    UnknownAudioMediaType(String),
    /// `VideoUrl.format` on a type outside its table (Python: `KeyError`).
    #[error("Unknown video media type: {0}")]
    UnknownVideoMediaType(String),
    /// `DocumentUrl.format` with no known extension (Python: `ValueError`, same message).
    #[error("Unknown document media type: {0}")]
    UnknownDocumentMediaType(String),
    /// `BinaryContent.format` / `UploadedFile.format` with no format (Python: `ValueError`, same message).
    #[error("Unknown media type: {0}")]
    UnknownMediaType(String),
    /// `BinaryContent.from_data_uri` on a string not starting with `data:` (Python's message).
    #[error("Data URI must start with \"data:\"")]
    DataUriMissingPrefix,
    /// `BinaryContent.from_data_uri` on a data URI without `;base64,` (Python's message).
    #[error("Data URI must be base64-encoded (expected \";base64,\" marker)")]
    DataUriNotBase64,
    /// `base64.b64decode` found a leftover partial quantum (`binascii.Error`, Python's message).
    #[error("Incorrect padding")]
    Base64IncorrectPadding,
    /// `base64.b64decode` found one data character past a multiple of four (`binascii.Error`, Python's message).
    #[error("Invalid base64-encoded string: number of data characters ({0}) cannot be 1 more than a multiple of 4")]
    Base64InvalidLength(usize),
    /// `base64.b64decode` of a `str` holding a character outside ASCII (`ValueError`, Python's message).
    #[error("string argument should contain only ASCII characters")]
    Base64NonAscii,
}
