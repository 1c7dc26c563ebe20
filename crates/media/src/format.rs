//! The `format` properties and media-type predicates of pydantic-ai's file items (`messages.py:486-491, 536-538,
//! 579-584, 624-629, 919-947, 1171-1189, 1522-1576`). Python properties only: never serialized, but provider
//! adapters (Bedrock, OpenAI file names) depend on them.

use crate::error::MediaError;
use crate::tables::EXTENSIONS_BY_TYPE;

/// `_image_format_lookup`.
const IMAGE_FORMATS: &[(&str, &str)] = &[
    ("image/jpeg", "jpeg"),
    ("image/png", "png"),
    ("image/gif", "gif"),
    ("image/webp", "webp"),
];

/// `_audio_format_lookup`.
const AUDIO_FORMATS: &[(&str, &str)] = &[
    ("audio/mpeg", "mp3"),
    ("audio/wav", "wav"),
    ("audio/flac", "flac"),
    ("audio/ogg", "oga"),
    ("audio/aiff", "aiff"),
    ("audio/aac", "aac"),
];

/// `_video_format_lookup`.
const VIDEO_FORMATS: &[(&str, &str)] = &[
    ("video/x-matroska", "mkv"),
    ("video/quicktime", "mov"),
    ("video/mp4", "mp4"),
    ("video/webm", "webm"),
    ("video/x-flv", "flv"),
    ("video/mpeg", "mpeg"),
    ("video/x-ms-wmv", "wmv"),
    ("video/3gpp", "three_gp"),
];

/// `_document_format_lookup`: the formats model APIs expect for the document types they name.
const DOCUMENT_FORMATS: &[(&str, &str)] = &[
    ("application/pdf", "pdf"),
    ("text/plain", "txt"),
    ("text/csv", "csv"),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "docx",
    ),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsx",
    ),
    ("text/html", "html"),
    ("text/markdown", "md"),
    ("application/msword", "doc"),
    ("application/vnd.ms-excel", "xls"),
];

fn lookup(table: &[(&str, &'static str)], media_type: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|(known, _)| *known == media_type)
        .map(|(_, format)| *format)
}

/// `ImageUrl.format`: `jpeg`, `png`, `gif` or `webp` (exact, case-sensitive media type).
///
/// # Errors
///
/// [`MediaError::UnknownImageMediaType`] for any other type (Python raises `KeyError`).
///
/// ```
/// assert_eq!(msgflow_media::image_format("image/jpeg").unwrap(), "jpeg");
/// assert!(msgflow_media::image_format("image/svg+xml").is_err());
/// ```
pub fn image_format(media_type: &str) -> Result<&'static str, MediaError> {
    lookup(IMAGE_FORMATS, media_type).ok_or_else(|| MediaError::UnknownImageMediaType(media_type.to_owned()))
}

/// `AudioUrl.format`: `mp3`, `wav`, `flac`, `oga`, `aiff` or `aac`.
///
/// # Errors
///
/// [`MediaError::UnknownAudioMediaType`] for any other type (Python raises `KeyError`).
///
/// ```
/// assert_eq!(msgflow_media::audio_format("audio/ogg").unwrap(), "oga");
/// assert!(msgflow_media::audio_format("audio/x-wav").is_err());
/// ```
pub fn audio_format(media_type: &str) -> Result<&'static str, MediaError> {
    lookup(AUDIO_FORMATS, media_type).ok_or_else(|| MediaError::UnknownAudioMediaType(media_type.to_owned()))
}

/// `VideoUrl.format`: `mkv`, `mov`, `mp4`, `webm`, `flv`, `mpeg`, `wmv` or `three_gp`.
///
/// # Errors
///
/// [`MediaError::UnknownVideoMediaType`] for any other type (Python raises `KeyError`).
///
/// ```
/// assert_eq!(msgflow_media::video_format("video/3gpp").unwrap(), "three_gp");
/// assert!(msgflow_media::video_format("audio/3gpp").is_err());
/// ```
pub fn video_format(media_type: &str) -> Result<&'static str, MediaError> {
    lookup(VIDEO_FORMATS, media_type).ok_or_else(|| MediaError::UnknownVideoMediaType(media_type.to_owned()))
}

/// pydantic-ai's `_document_format`: the fixed document table first; otherwise the extensions
/// `mimetypes.guess_all_extensions(media_type)` lists (type lowercased, registration order, dots stripped),
/// preferring the one spelling the subtype (`application/xml` → `xml`, not `xsl`), else the first.
fn document_format_option(media_type: &str) -> Option<&'static str> {
    if let Some(format) = lookup(DOCUMENT_FORMATS, media_type) {
        return Some(format);
    }
    let lowered = media_type.to_lowercase();
    let extensions = EXTENSIONS_BY_TYPE
        .binary_search_by(|(known, _)| (*known).cmp(lowered.as_str()))
        .ok()
        .and_then(|index| EXTENSIONS_BY_TYPE.get(index))
        .map(|(_, extensions)| *extensions)?;
    // `partition('/')[2]` of the type as given, not lowercased.
    let subtype = media_type.split_once('/').map_or("", |(_, subtype)| subtype);
    let mut formats = extensions
        .iter()
        .map(|extension| extension.strip_prefix('.').unwrap_or(extension));
    formats
        .clone()
        .find(|format| *format == subtype)
        .or_else(|| formats.next())
}

/// `DocumentUrl.format`: the extension a document's media type is known by, without the dot.
///
/// The fixed table (`application/pdf` → `pdf`, `text/plain` → `txt`, `text/csv` → `csv`, `.docx`/`.xlsx` types,
/// `text/html` → `html`, `text/markdown` → `md`, `application/msword` → `doc`, `application/vnd.ms-excel` → `xls`)
/// wins; otherwise the extensions the baseline table registers for the type, in Python's order, preferring the one
/// equal to the subtype. That order includes stale registrations, as Python's does: `text/xml` → `xml`,
/// `audio/x-wav` → `wav`.
///
/// # Errors
///
/// [`MediaError::UnknownDocumentMediaType`] ("Unknown document media type: ...") when no extension is known.
///
/// ```
/// use msgflow_media::document_format;
///
/// assert_eq!(document_format("application/pdf").unwrap(), "pdf");
/// assert_eq!(document_format("application/xml").unwrap(), "xml"); // subtype beats the first-listed `xsl`
/// assert_eq!(document_format("application/postscript").unwrap(), "ps");
/// assert_eq!(
///     document_format("application/x-unknown").unwrap_err().to_string(),
///     "Unknown document media type: application/x-unknown"
/// );
/// ```
pub fn document_format(media_type: &str) -> Result<&'static str, MediaError> {
    document_format_option(media_type).ok_or_else(|| MediaError::UnknownDocumentMediaType(media_type.to_owned()))
}

/// Whether `media_type` is one of pydantic-ai's `KNOWN_DOCUMENT_MEDIA_TYPES` (every
/// `DocumentMediaType`, the types `_document_format_lookup` names).
///
/// ```
/// assert!(msgflow_media::is_known_document_media_type("text/markdown"));
/// assert!(!msgflow_media::is_known_document_media_type("application/zip"));
/// ```
pub fn is_known_document_media_type(media_type: &str) -> bool {
    lookup(DOCUMENT_FORMATS, media_type).is_some()
}

/// `BinaryContent.is_audio`: the media type starts with `audio/` (case-sensitive).
///
/// ```
/// assert!(msgflow_media::is_audio("audio/wav"));
/// assert!(!msgflow_media::is_audio("Audio/wav"));
/// ```
pub fn is_audio(media_type: &str) -> bool {
    media_type.starts_with("audio/")
}

/// `BinaryContent.is_image`: the media type starts with `image/` (case-sensitive).
///
/// ```
/// assert!(msgflow_media::is_image("image/png"));
/// ```
pub fn is_image(media_type: &str) -> bool {
    media_type.starts_with("image/")
}

/// `BinaryContent.is_video`: the media type starts with `video/` (case-sensitive).
///
/// ```
/// assert!(msgflow_media::is_video("video/mp4"));
/// ```
pub fn is_video(media_type: &str) -> bool {
    media_type.starts_with("video/")
}

/// Python `str.isspace` for one character (it also counts U+001C..U+001F, which Rust's `char::is_whitespace` does
/// not).
fn is_python_space(character: char) -> bool {
    character.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&character)
}

/// pydantic-ai's `_utils.is_text_like_media_type`: on the bare type (before the first `;`, Python-whitespace
/// stripped), `text/*`, `application/json`, `*+json`, `application/xml`, `*+xml`, `application/yaml`,
/// `application/x-yaml` or `application/toml`.
///
/// ```
/// assert!(msgflow_media::is_text_like_media_type("application/ld+json; charset=utf-8"));
/// assert!(!msgflow_media::is_text_like_media_type("application/pdf"));
/// ```
pub fn is_text_like_media_type(media_type: &str) -> bool {
    let bare = media_type
        .split_once(';')
        .map_or(media_type, |(before, _)| before)
        .trim_matches(is_python_space);
    bare.starts_with("text/")
        || bare == "application/json"
        || bare.ends_with("+json")
        || bare == "application/xml"
        || bare.ends_with("+xml")
        || bare == "application/x-yaml"
        || bare == "application/yaml"
        || bare == "application/toml"
}

/// `BinaryContent.is_document`: a type in the fixed document table, or any type that is not audio, image, video or
/// text-like and for which an extension is known ([`document_format`] succeeds).
///
/// ```
/// use msgflow_media::is_document;
///
/// assert!(is_document("text/plain")); // fixed table wins over "text-like"
/// assert!(is_document("application/zip"));
/// assert!(!is_document("application/json")); // text-like
/// assert!(!is_document("application/x-unknown")); // no extension known
/// ```
pub fn is_document(media_type: &str) -> bool {
    if is_known_document_media_type(media_type) {
        return true;
    }
    if is_audio(media_type) || is_image(media_type) || is_video(media_type) || is_text_like_media_type(media_type) {
        return false;
    }
    document_format_option(media_type).is_some()
}

/// `BinaryContent.format`: the audio, image or video table by prefix (an unlisted type of those families has no
/// format), otherwise the document rule of [`document_format`].
///
/// # Errors
///
/// [`MediaError::UnknownMediaType`] ("Unknown media type: ...") when there is no format.
///
/// ```
/// use msgflow_media::binary_format;
///
/// assert_eq!(binary_format("image/webp").unwrap(), "webp");
/// assert_eq!(binary_format("application/zip").unwrap(), "zip");
/// assert_eq!(binary_format("image/svg+xml").unwrap_err().to_string(), "Unknown media type: image/svg+xml");
/// ```
pub fn binary_format(media_type: &str) -> Result<&'static str, MediaError> {
    let format = if is_audio(media_type) {
        lookup(AUDIO_FORMATS, media_type)
    } else if is_image(media_type) {
        lookup(IMAGE_FORMATS, media_type)
    } else if is_video(media_type) {
        lookup(VIDEO_FORMATS, media_type)
    } else {
        document_format_option(media_type)
    };
    format.ok_or_else(|| MediaError::UnknownMediaType(media_type.to_owned()))
}

/// `UploadedFile.format`: the image, video or audio table by prefix, otherwise the **fixed** document table only
/// (no extension lookup).
///
/// # Errors
///
/// [`MediaError::UnknownMediaType`] ("Unknown media type: ...") when there is no format.
///
/// ```
/// use msgflow_media::uploaded_file_format;
///
/// assert_eq!(uploaded_file_format("application/pdf").unwrap(), "pdf");
/// assert!(uploaded_file_format("application/zip").is_err()); // `binary_format` would say "zip"
/// ```
pub fn uploaded_file_format(media_type: &str) -> Result<&'static str, MediaError> {
    let table = if is_image(media_type) {
        IMAGE_FORMATS
    } else if is_video(media_type) {
        VIDEO_FORMATS
    } else if is_audio(media_type) {
        AUDIO_FORMATS
    } else {
        DOCUMENT_FORMATS
    };
    lookup(table, media_type).ok_or_else(|| MediaError::UnknownMediaType(media_type.to_owned()))
}
