//! AG-UI message content as pydantic-ai's `AGUIAdapter.load_messages` reads it: tool results'
//! text rehydrated into values (`rehydrate_tool_return_content`), tool content parts as the
//! tool's content, and typed media parts as URL items, binary content or uploaded files
//! (`_multimodal.py`).

use msgflow_wire::{RawJson, UploadedFileProviderName};
use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::messages_builder::{binary_json, from_data_uri};
use crate::object::{field, object};
use crate::openai_chat::{shape, ShapeError};

/// A field by its wire name (camelCase) or its Python name: the SDK's models accept both
/// (`populate_by_name`), and real files use both (`toolCalls` and `tool_calls`).
pub(super) fn wire<'v>(object: &'v Map<String, Value>, camel: &str, snake: &str) -> Option<&'v Value> {
    field(object, camel)
        .or_else(|| field(object, snake))
        .filter(|value| !value.is_null())
}

/// What [`rehydrate`] makes of a tool message's content.
pub(super) enum Rehydrated {
    /// A text that is not an object or an array, or an object or an array with no file item in
    /// it, as the JSON text pydantic-ai dumps it as (for data, `RawJson::normalized`): written as
    /// it was read, with no value built or text copied; and how deep arrays and objects nest in it.
    Plain { json: RawJson, nesting: usize },
    /// The content as a value (a text kept as it is, or data with files), and the digests of its files.
    Value(Value, Vec<String>),
}

impl Rehydrated {
    /// The content as a value, and the digests of its files.
    pub(super) fn into_value(self) -> (Value, Vec<String>) {
        match self {
            Rehydrated::Plain { json, .. } => (json.to_value(), Vec::new()),
            Rehydrated::Value(value, digests) => (value, digests),
        }
    }
}

/// [`rehydrate`] of each tool message's string content of 4 KiB or more, by message index, on the
/// thread pool (the loader reads the others as it meets them).
///
/// The loader reads messages in order, as pydantic-ai does, but a tool result's text is read with
/// no regard to the messages around it, and reading it (a JSON document of its own) is most of a
/// load's work on histories of large structured results.
pub(super) fn rehydrated_tool_contents(messages: &[Value]) -> Vec<Option<Rehydrated>> {
    // Below this, a text is read faster than it is handed to another thread.
    const READ_AHEAD_BYTES: usize = 4096;
    messages
        .par_iter()
        .with_min_len(64)
        .map(|message| {
            let object = message.as_object()?;
            if field(object, "role")?.as_str()? != "tool" {
                return None;
            }
            match field(object, "content")? {
                Value::String(text) if text.len() >= READ_AHEAD_BYTES => Some(rehydrate(text)),
                _ => None,
            }
        })
        .collect()
}

/// `rehydrate_tool_return_content`: JSON objects and arrays come back as values, their file items
/// as files (with the digests that record them, `loaded_tool_output`), anything else as the text it is.
pub(super) fn rehydrate(text: &str) -> Rehydrated {
    // Only an object or an array is read as one: any other text is kept as it is, whatever it parses as.
    let opens_a_container = text.trim_start_matches([' ', '\t', '\n', '\r']).starts_with(['{', '[']);
    if !opens_a_container {
        return Rehydrated::Plain {
            json: RawJson::string(text),
            nesting: 0,
        };
    }
    // Most results are plain data; one with a file item, or a repeated key, is read as a value.
    if let Some(normalized) = RawJson::normalized(text).filter(|normalized| !normalized.holds_content_item) {
        return Rehydrated::Plain {
            json: normalized.raw,
            nesting: normalized.nesting,
        };
    }
    match serde_json::from_str::<Value>(text) {
        Ok(parsed @ (Value::Object(_) | Value::Array(_))) => {
            if !crate::vercel_ui::holds_content_item(&parsed) {
                return Rehydrated::Value(parsed, Vec::new());
            }
            let (content, digests) = crate::ui_payloads::loaded_tool_output(&parsed, false);
            Rehydrated::Value(content, digests)
        }
        _ => Rehydrated::Plain {
            json: RawJson::string(text),
            nesting: 0,
        },
    }
}

/// What [`media_item`] makes of a typed media part.
pub(super) enum MediaItem {
    /// The content item it loads as.
    Loaded(Value),
    /// Nothing: a provider file reference (this handle) of a provider `UploadedFile` does not name.
    UnknownProvider(String),
}

/// A tool message's content parts as the tool's content (`tool_return_content_ta`), with the
/// digests of its files, as [`rehydrate`] gives a text's.
pub(super) fn returned_content(content: Value) -> Rehydrated {
    let (content, digests) = crate::ui_payloads::loaded_tool_output(&content, false);
    Rehydrated::Value(content, digests)
}

/// `multimodal_input_to_content`: a typed media part as a URL item, binary content or
/// an uploaded file.
pub(super) fn media_item(object: &Map<String, Value>, media: &str, path: &str) -> Result<MediaItem, ShapeError> {
    let metadata = object.get("metadata").and_then(Value::as_object);
    let vendor_metadata = metadata
        .and_then(|metadata| metadata.get("vendor_metadata"))
        .cloned()
        .unwrap_or(Value::Null);
    let force_download = metadata
        .and_then(|metadata| metadata.get("force_download"))
        .cloned()
        .unwrap_or(Value::Bool(false));
    let source = object.get("source").and_then(Value::as_object);
    let source_type = source.and_then(|source| source.get("type")).and_then(Value::as_str);
    let value = source.and_then(|source| source.get("value")).and_then(Value::as_str);
    let mime_type = source
        .and_then(|source| wire(source, "mimeType", "mime_type"))
        .and_then(Value::as_str);
    match (source_type, value) {
        (Some("url"), Some(url)) => Ok(MediaItem::Loaded(object! {
            "url": url, "force_download": force_download, "vendor_metadata": vendor_metadata,
            "kind": format!("{media}-url"), "media_type": mime_type.filter(|mime| !mime.is_empty()),
        })),
        (Some("data"), Some(data)) => {
            let Some(mime_type) = mime_type else {
                return Err(shape(&format!("{path}.source"), "expected a data source's `mimeType`"));
            };
            // `b64decode(source.value)` (`_multimodal.py`): lenient, as Python's default is.
            let bytes = msgflow_media::b64decode(data)
                .map_err(|err| shape(&format!("{path}.source.value"), format!("expected base64 data: {err}")))?;
            Ok(MediaItem::Loaded(binary_json(mime_type, &bytes, &vendor_metadata)))
        }
        // An `UploadedFile` of a provider pydantic-ai knows; the media type as the client gave it
        // (pydantic-ai guesses one from the file id where there is none).
        (Some("file"), Some(file_id)) => {
            let provider = source.and_then(|source| source.get("provider"));
            match provider.and_then(Value::as_str) {
                Some(provider) if UploadedFileProviderName::KNOWN.contains(&provider) => {
                    Ok(MediaItem::Loaded(object! {
                        "file_id": file_id, "provider_name": provider, "vendor_metadata": vendor_metadata,
                        "kind": "uploaded-file", "media_type": mime_type,
                    }))
                }
                _ => Ok(MediaItem::UnknownProvider(file_id.to_owned())),
            }
        }
        _ => Err(shape(
            &format!("{path}.source"),
            "expected a media `source` with `type` url, data or file and a string `value`",
        )),
    }
}

/// The `binary` part ag-ui-protocol 1.0 retired, read as pydantic-ai reads it from an older client.
pub(super) fn legacy_binary_item(object: &Map<String, Value>, path: &str) -> Result<Value, ShapeError> {
    let mime_type = wire(object, "mimeType", "mime_type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Some(url) = object.get("url").and_then(Value::as_str).filter(|url| !url.is_empty()) {
        if let Some((media_type, bytes)) = from_data_uri(url) {
            // `inlined.media_type or mime_type` (`_translate_binary_part`).
            let media_type = if media_type.is_empty() { mime_type } else { &media_type };
            return Ok(binary_json(media_type, &bytes, &Value::Null));
        }
        let kind = match mime_type.split('/').next() {
            Some("image") => "image-url",
            Some("video") => "video-url",
            Some("audio") => "audio-url",
            _ => "document-url",
        };
        return Ok(
            object! {"url": url, "force_download": false, "vendor_metadata": Value::Null,
            "kind": kind, "media_type": mime_type},
        );
    }
    match object
        .get("data")
        .and_then(Value::as_str)
        .filter(|data| !data.is_empty())
    {
        Some(data) => {
            let bytes = msgflow_media::b64decode(data)
                .map_err(|err| shape(&format!("{path}.data"), format!("expected base64 data: {err}")))?;
            Ok(binary_json(mime_type, &bytes, &Value::Null))
        }
        None => Err(shape(path, "a binary part must have a `url` or `data`")),
    }
}
