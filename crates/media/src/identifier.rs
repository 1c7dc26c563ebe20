//! The `identifier` of file items (`messages.py:302-306, 383, 892, 1162`).

use sha1::{Digest, Sha1};

/// Lowercase hex of `bytes`.
pub(crate) fn to_lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    hex
}

/// `_multi_modal_content_identifier`: the first 6 lowercase hex digits of SHA-1 of `data`.
fn short_sha1(data: &[u8]) -> String {
    let digest = Sha1::digest(data);
    // 3 bytes = 6 hex digits.
    to_lower_hex(digest.get(..3).unwrap_or_default())
}

/// The computed identifier of a `FileUrl` (`ImageUrl`, `AudioUrl`, `VideoUrl`, `DocumentUrl`): SHA-1 of the URL's
/// UTF-8 bytes, first 6 hex digits.
///
/// ```
/// assert_eq!(msgflow_media::identifier_for_url("https://example.com/cat.png"), "750ff4");
/// ```
pub fn identifier_for_url(url: &str) -> String {
    short_sha1(url.as_bytes())
}

/// The computed identifier of a `BinaryContent`: SHA-1 of the raw data, first 6 hex digits.
///
/// ```
/// assert_eq!(msgflow_media::identifier_for_bytes(b""), "da39a3");
/// ```
pub fn identifier_for_bytes(data: &[u8]) -> String {
    short_sha1(data)
}

/// The computed identifier of an `UploadedFile`: SHA-1 of the file id's UTF-8 bytes, first 6 hex digits.
///
/// ```
/// assert_eq!(msgflow_media::identifier_for_file_id("file-abc123"), "3a1a6c");
/// ```
pub fn identifier_for_file_id(file_id: &str) -> String {
    short_sha1(file_id.as_bytes())
}

/// The identifier an item dumps: `explicit` when it is truthy (non-empty), otherwise `computed` (one of the
/// `identifier_for_*` functions, only called when needed). All three file kinds use this truthiness rule, so an
/// explicit `""` falls back to the hash.
///
/// ```
/// use msgflow_media::{effective_identifier, identifier_for_url};
///
/// let url = "https://example.com/cat.png";
/// assert_eq!(effective_identifier(Some("mine"), || identifier_for_url(url)), "mine");
/// assert_eq!(effective_identifier(Some(""), || identifier_for_url(url)), "750ff4");
/// assert_eq!(effective_identifier(None, || identifier_for_url(url)), "750ff4");
/// ```
pub fn effective_identifier(explicit: Option<&str>, computed: impl FnOnce() -> String) -> String {
    match explicit {
        Some(identifier) if !identifier.is_empty() => identifier.to_owned(),
        _ => computed(),
    }
}
