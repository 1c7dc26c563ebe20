//! Pure functions reproducing pydantic-ai 2.68.0's multimodal rules, for `ImageUrl`, `AudioUrl`, `VideoUrl`,
//! `DocumentUrl`, `BinaryContent` and `UploadedFile` (wire-format reference §6, §3 rule 12, §10).
//!
//! * Media types: [`guess_media_type`] (CPython 3.11 `mimetypes.guess_type` on a fixed, platform-independent
//!   table), [`infer_url_media_type`], [`uploaded_file_media_type`], [`media_type_from_path`],
//!   [`parse_data_uri`], [`is_youtube_url`].
//! * Identifiers: [`identifier_for_url`], [`identifier_for_bytes`], [`identifier_for_file_id`],
//!   [`effective_identifier`].
//! * Formats and predicates: [`image_format`], [`audio_format`], [`video_format`], [`document_format`],
//!   [`binary_format`], [`uploaded_file_format`], [`is_image`], [`is_audio`], [`is_video`], [`is_document`].
//! * Tool-return file records: [`content_file_digests`], [`file_item_digest`],
//!   [`python_json_dumps_sorted_ascii`].
//!
//! Everything works on `&str`, `&[u8]` and `serde_json::Value`; nothing panics on bad input.

mod data_uri;
mod digests;
mod error;
mod format;
mod guess;
mod identifier;
mod pyjson;
mod pyurl;
mod tables;

pub use data_uri::parse_data_uri;
pub use digests::{content_file_digests, content_needs_file_digests, file_item_digest, is_recorded_file_item};
pub use error::MediaError;
pub use format::{
    audio_format, binary_format, document_format, image_format, is_audio, is_document, is_image,
    is_text_like_media_type, is_video, uploaded_file_format, video_format,
};
pub use guess::{
    guess_media_type, infer_url_media_type, is_youtube_url, media_type_from_path, uploaded_file_item_media_type,
    uploaded_file_media_type, url_item_media_type, UnparsableFileId, UrlKind, OCTET_STREAM,
};
pub use identifier::{effective_identifier, identifier_for_bytes, identifier_for_file_id, identifier_for_url};
pub use pyjson::python_json_dumps_sorted_ascii;
