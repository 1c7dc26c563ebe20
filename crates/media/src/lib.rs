//! Pure functions reproducing pydantic-ai 2.68.0's multimodal rules, for `ImageUrl`, `AudioUrl`, `VideoUrl`,
//! `DocumentUrl`, `BinaryContent` and `UploadedFile`.
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
//! * Building items: [`FileItem`] (URL items, binary data from bytes, a path or a `data:` URI, uploaded files),
//!   [`text_content`], [`structured_content`] (and the text pydantic-ai renders for one on load,
//!   [`rendered_on_load`]), [`cache_point`], [`IntoUserContent`], [`user_prompt`], and tool
//!   results with their file record: [`tool_return`], [`content_file_digests_field`],
//!   [`record_content_file_digests`]. Built items are the `msgflow_wire` types with `media_type` and
//!   `identifier` filled in, so `msgflow_wire` writes them exactly as pydantic-ai dumps the same item.
//!
//! The rules work on `&str`, `&[u8]` and `serde_json::Value`; nothing panics on bad input.
//!
//! # Example: a multimodal history
//!
//! The seed's multimodal message (text, an image URL, a document URL, inline bytes) and a model response, written
//! as a history pydantic-ai loads with `ModelMessagesTypeAdapter.validate_json` (the full program is
//! `examples/multimodal_history.rs`):
//!
//! ```
//! use msgflow_media::{user_prompt, FileItem, IntoUserContent};
//! use msgflow_wire::{ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, TextPart, Timestamp};
//!
//! let prompt = user_prompt(
//!     vec![
//!         "Analyse this image and this document".into_user_content(),
//!         FileItem::image_url("https://example.com/chart.png").build()?.into_user_content(),
//!         FileItem::document_url("https://example.com/report.pdf").build()?.into_user_content(),
//!         FileItem::binary(&b"col,value\nq1,42\n"[..], "text/csv").build()?.into_user_content(),
//!     ],
//!     Timestamp::parse("2025-01-02T03:04:05Z")?,
//! );
//! let mut response = ModelResponse::new(vec![ModelResponsePart::Text(TextPart::new("The chart shows...".to_owned()))]);
//! response.model_name = Some("gpt-4o".to_owned()).into();
//! response.timestamp = Some(Timestamp::parse("2025-01-02T03:04:07Z")?).into();
//! let history = vec![
//!     ModelMessage::from(ModelRequest::new(vec![ModelRequestPart::UserPrompt(prompt)])),
//!     ModelMessage::from(response),
//! ];
//! let json = msgflow_wire::to_string(&history)?;
//! assert!(json.contains(r#"{"url":"https://example.com/chart.png","force_download":false,"vendor_metadata":null,"kind":"image-url","media_type":"image/png","identifier":"c198f8"}"#));
//! assert_eq!(msgflow_wire::from_str(&json)?, history);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod build;
mod content;
mod data_uri;
mod digests;
mod error;
mod format;
mod guess;
mod header;
mod identifier;
mod pyjson;
mod pyurl;
mod tables;
mod tool_return;

pub use build::{BinaryBuilder, BuildError, FileItem, UploadedFileBuilder, UrlItem, UrlItemBuilder};
pub use content::{
    cache_point, rendered_on_load, structured_content, text_content, user_prompt, IntoUserContent,
    StructuredContentBuilder,
};
pub use data_uri::{b64decode, parse_data_uri};
pub use digests::{
    content_file_digests, content_needs_file_digests, file_item_digest, is_recorded_file_item, UPLOADED_FILE_KEYS,
    URL_ITEM_KEYS,
};
pub use error::MediaError;
pub use format::{
    audio_format, binary_format, document_format, image_format, is_audio, is_document, is_image,
    is_known_document_media_type, is_text_like_media_type, is_video, uploaded_file_format, video_format,
};
pub use guess::{
    guess_media_type, infer_url_media_type, is_youtube_url, media_type_from_path, uploaded_file_item_media_type,
    uploaded_file_media_type, url_item_media_type, url_scheme, UnparsableFileId, UrlKind, OCTET_STREAM,
};
pub use header::{gif_frames, image_dimensions, pdf_pages, wav_seconds};
pub use identifier::{effective_identifier, identifier_for_bytes, identifier_for_file_id, identifier_for_url};
pub use pyjson::{python_json_dumps_ascii, python_json_dumps_sorted_ascii};
pub use tool_return::{
    content_file_digests_field, record_content_file_digests, record_native_content_file_digests, tool_return,
};
