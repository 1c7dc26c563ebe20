//! The `result` of a tool return on a span: `serialize_any(content)` of the content pydantic-ai
//! 2.68.0 loads (`ToolReturnContent` in `pydantic_ai.messages`, default settings, so
//! `redact_binary_content` changes nothing).
//!
//! Loading rebuilds file items of the content, at any depth, into their classes, and
//! `serialize_any` then writes each as its dump (media type and identifier computed, data
//! re-encoded). A `BinaryContent` is always rebuilt. A URL item needs a `media_type` key
//! (`_RequireUrlMediaType`) and, like an uploaded file, the part's record of the files it holds
//! (`_check_file_provenance`): with `content_file_digests`, only an item whose digest it lists; without
//! one (a history saved before records existed), only an HTTP(S) URL, its `force_download` reset.
//! Everything else (text items, which `MultiModalContent` does not hold, and any other mapping)
//! stays as written.

use std::collections::HashSet;

use msgflow_media::FileItem;
use msgflow_wire::{Base64Data, ForceDownload};
use serde_json::{Map, Value};

/// The tool return's record of the files its content holds (`content_file_digests`).
pub(crate) enum FileRecord {
    /// No record: written before records existed.
    Unrecorded,
    /// The digests of the recorded file items.
    Digests(HashSet<String>),
}

impl FileRecord {
    /// The record of a tool return part (its `content_file_digests`, when a list of strings).
    pub(crate) fn of(part: &Value) -> Self {
        match part.get("content_file_digests").and_then(Value::as_array) {
            Some(digests) => FileRecord::Digests(digests.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
            None => FileRecord::Unrecorded,
        }
    }

    /// `_check_file_provenance` of a mapping claiming a URL or uploaded-file `kind`: whether it
    /// loads as that file, and whether its `force_download` is reset.
    fn admits(&self, object: &Map<String, Value>, kind: &str, keys: &[&str]) -> Option<bool> {
        match self {
            FileRecord::Unrecorded => {
                let url = object.get("url").and_then(Value::as_str)?;
                (kind != "uploaded-file" && is_http_url(url)).then_some(true)
            }
            FileRecord::Digests(digests) => {
                let within = object.keys().all(|key| keys.contains(&key.as_str()));
                let item = Value::Object(object.clone());
                (within && digests.contains(&msgflow_media::file_item_digest(&item))).then_some(false)
            }
        }
    }
}

/// `urlparse(url).scheme.lower() in ('http', 'https')`.
fn is_http_url(url: &str) -> bool {
    // `urlsplit` strips leading C0 controls and spaces and removes tabs and newlines first.
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some((scheme, _)) = url.split_once(':') else {
        return false;
    };
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid && matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https")
}

/// `serialize_any` of the loaded `content`.
pub(crate) fn recorded(content: &Value, record: &FileRecord) -> Value {
    match content {
        Value::Array(items) => Value::Array(items.iter().map(|item| recorded(item, record)).collect()),
        // Not a file pydantic-ai rebuilds: a `Mapping[str, ToolReturnContent]`, searched further.
        Value::Object(object) => file_item(object, record).unwrap_or_else(|| {
            Value::Object(
                object
                    .iter()
                    .map(|(key, value)| (key.clone(), recorded(value, record)))
                    .collect(),
            )
        }),
        other => other.clone(),
    }
}

/// The record pydantic-ai writes for the loaded `content` (`_RecordsContentFiles`): the sorted
/// digests of the URL items and uploaded files it rebuilt, not of mappings that only look like
/// their dumps.
pub(crate) fn rebuilt_file_digests(content: &Value, record: &FileRecord) -> Vec<String> {
    fn collect(value: &Value, record: &FileRecord, digests: &mut Vec<String>) {
        match value {
            Value::Array(items) => items.iter().for_each(|item| collect(item, record, digests)),
            Value::Object(object) => match file_item(object, record) {
                Some(dump) if msgflow_media::is_recorded_file_item(&dump) => {
                    digests.push(msgflow_media::file_item_digest(&dump));
                }
                Some(_) => {}
                None => object.values().for_each(|item| collect(item, record, digests)),
            },
            _ => {}
        }
    }
    let mut digests = Vec::new();
    collect(content, record, &mut digests);
    digests.sort_unstable();
    digests.dedup();
    digests
}

/// Whether `value` loads as a file (`is_multi_modal_content` of what pydantic-ai loads).
pub(crate) fn loads_as_file(value: &Value, record: &FileRecord) -> bool {
    matches!(value, Value::Object(object) if file_item(object, record).is_some())
}

/// The dump of the file `object` loads as, if it loads as one (the `MultiModalContent` arm of
/// `ToolReturnContent`, its gates and the item's own validation; keys an item does not declare are
/// ignored, as pydantic's dataclasses ignore them).
fn file_item(object: &Map<String, Value>, record: &FileRecord) -> Option<Value> {
    let kind = object.get("kind").and_then(Value::as_str)?;
    match kind {
        "binary" => binary(object),
        "image-url" | "audio-url" | "video-url" | "document-url" => {
            // `_RequireUrlMediaType._carries_media_type`: a non-empty string or null.
            let carries = match object.get("media_type")? {
                Value::Null => true,
                Value::String(media_type) => !media_type.is_empty(),
                _ => false,
            };
            let reset = carries.then(|| record.admits(object, kind, &msgflow_media::URL_ITEM_KEYS))??;
            url_item(object, kind, reset)
        }
        "uploaded-file" => {
            record.admits(object, kind, &msgflow_media::UPLOADED_FILE_KEYS)?;
            uploaded_file(object)
        }
        _ => None,
    }
}

/// An `ImageUrl`, `AudioUrl`, `VideoUrl` or `DocumentUrl` as pydantic-ai dumps it, its
/// `force_download` reset where `reset` says so.
pub(crate) fn url_item(object: &Map<String, Value>, kind: &str, reset: bool) -> Option<Value> {
    let url = object.get("url")?.as_str()?;
    let media_type = optional_text(object.get("media_type"))?;
    let identifier = optional_text(object.get("identifier"))?;
    let force_download = match object.get("force_download") {
        None | Some(Value::Bool(false)) => ForceDownload::No,
        Some(Value::Bool(true)) => ForceDownload::Yes,
        Some(Value::String(text)) if text == "allow-local" => ForceDownload::AllowLocal,
        // `bool | Literal['allow-local']`: the bool takes any other value pydantic's lax mode reads.
        Some(other) => match msgflow_wire::lax::boolean(other)? {
            true => ForceDownload::Yes,
            false => ForceDownload::No,
        },
    };
    let force_download = if reset { ForceDownload::No } else { force_download };
    let vendor_metadata = vendor_metadata(object.get("vendor_metadata"))?;
    macro_rules! build {
        ($builder:expr) => {{
            let mut builder = $builder.force_download(force_download);
            if let Some(media_type) = media_type {
                builder = builder.media_type(media_type);
            }
            if let Some(identifier) = identifier {
                builder = builder.identifier(identifier);
            }
            if let Some(metadata) = vendor_metadata {
                builder = builder.vendor_metadata(metadata);
            }
            serde_json::to_value(builder.build().ok()?).ok()
        }};
    }
    match kind {
        "image-url" => build!(FileItem::image_url(url)),
        "audio-url" => build!(FileItem::audio_url(url)),
        "video-url" => build!(FileItem::video_url(url)),
        _ => build!(FileItem::document_url(url)),
    }
}

/// A `BinaryContent` as pydantic-ai dumps it (`data` as padded URL-safe base64).
pub(crate) fn binary(object: &Map<String, Value>) -> Option<Value> {
    let data = Base64Data::parse(object.get("data")?.as_str()?).ok()?.decode().ok()?;
    let media_type = object.get("media_type")?.as_str()?;
    let mut builder = FileItem::binary(data, media_type);
    if let Some(identifier) = optional_text(object.get("identifier"))? {
        builder = builder.identifier(identifier);
    }
    if let Some(metadata) = vendor_metadata(object.get("vendor_metadata"))? {
        builder = builder.vendor_metadata(metadata);
    }
    serde_json::to_value(builder.build().ok()?).ok()
}

/// An `UploadedFile` as pydantic-ai dumps it (media type guessed from the file id when not given).
pub(crate) fn uploaded_file(object: &Map<String, Value>) -> Option<Value> {
    let file_id = object.get("file_id")?.as_str()?;
    let provider = serde_json::from_value(object.get("provider_name")?.clone()).ok()?;
    let mut builder = FileItem::uploaded_file(file_id, provider);
    if let Some(media_type) = optional_text(object.get("media_type"))? {
        builder = builder.media_type(media_type);
    }
    if let Some(identifier) = optional_text(object.get("identifier"))? {
        builder = builder.identifier(identifier);
    }
    if let Some(metadata) = vendor_metadata(object.get("vendor_metadata"))? {
        builder = builder.vendor_metadata(metadata);
    }
    serde_json::to_value(builder.build().ok()?).ok()
}

/// A text field that may be left out or null: `Some(None)` then, `None` for another type.
fn optional_text(value: Option<&Value>) -> Option<Option<&str>> {
    match value {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(text)) => Some(Some(text)),
        Some(_) => None,
    }
}

/// `vendor_metadata`: an object or none; `None` for another type.
fn vendor_metadata(value: Option<&Value>) -> Option<Option<Value>> {
    match value {
        None | Some(Value::Null) => Some(None),
        Some(metadata @ Value::Object(_)) => Some(Some(metadata.clone())),
        Some(_) => None,
    }
}

/// The `content_file_digests` of a tool result read from a span: the digests of the file items in
/// it that are pydantic-ai's own dumps (a file's dump dumps to itself), so that they load as files
/// again and a mapping that merely looks like one stays data. Found items and binary items are not
/// searched further, as `content_file_digests` does not.
pub(super) fn dumped_file_digests(result: &Value) -> Vec<String> {
    fn walk(value: &Value, digests: &mut Vec<String>) {
        match value {
            Value::Array(items) => items.iter().for_each(|item| walk(item, digests)),
            Value::Object(object) => {
                let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
                if msgflow_media::is_recorded_file_item(value) {
                    let is_own_dump = kind == "uploaded-file" || url_item(object, kind, false).as_ref() == Some(value);
                    if is_own_dump {
                        digests.push(msgflow_media::file_item_digest(value));
                    }
                } else if kind != "binary" {
                    object.values().for_each(|item| walk(item, digests));
                }
            }
            _ => {}
        }
    }
    let mut digests = Vec::new();
    walk(result, &mut digests);
    digests.sort_unstable();
    digests.dedup();
    digests
}
