//! Inline media out to files and back: [`extract`] moves the bytes of every inline binary item
//! (user prompt items, binary items inside tool return content, `file` parts) into
//! content-addressed files (`<sha256>.<ext>`), and [`inline`] puts them back, byte for byte.
//!
//! The reference left behind is still a pydantic-ai `BinaryContent` (so pydantic-ai 2.68.0 loads
//! the history, response `file` parts included, where only binary content is allowed): its `data`
//! is empty and its `vendor_metadata` holds `{"msgflow.media-ref": {...}}` with the file name,
//! digest and size, and what `vendor_metadata` was before. A file is never overwritten with
//! different bytes; a missing or altered file is an error naming it.
//!
//! A tool return's content is opaque JSON: it is only rewritten when msgflow writes it back
//! exactly as it was read (pydantic-ai's compact form), so that [`inline`] can restore it byte
//! for byte; other content is left inline and counted in [`Extraction::left_inline`].

use std::io::Write as _;
use std::path::{Path, PathBuf};

use msgflow_wire::{
    Base64Data, BinaryContent, Field, ModelMessage, ModelRequestPart, ModelResponsePart, RawJson, UserContent,
    UserPromptContent,
};
use serde::Serialize;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// The `vendor_metadata` key of a reference.
pub const REF_KEY: &str = "msgflow.media-ref";

/// Why media could not be moved out or back in.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    /// A file to write exists with other bytes.
    #[error("{path} already exists with different bytes (refusing to overwrite it)")]
    Collision {
        /// The file.
        path: PathBuf,
    },
    /// A referenced file is missing or unreadable.
    #[error("message {message}, part {part}: cannot read {path}: {source}")]
    Missing {
        /// The message.
        message: usize,
        /// The part.
        part: usize,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A referenced file's bytes are not the ones extracted.
    #[error("message {message}, part {part}: {path} was altered: expected {expected_bytes} bytes with sha256 {expected_sha256}, found {found_bytes} bytes with sha256 {found_sha256}")]
    Altered {
        /// The message.
        message: usize,
        /// The part.
        part: usize,
        /// The file.
        path: PathBuf,
        /// The digest recorded.
        expected_sha256: String,
        /// The size recorded.
        expected_bytes: u64,
        /// The digest found.
        found_sha256: String,
        /// The size found.
        found_bytes: u64,
    },
    /// A reference that is not one msgflow wrote.
    #[error("message {message}, part {part}: the {REF_KEY} reference is malformed: {reason}")]
    BadReference {
        /// The message.
        message: usize,
        /// The part.
        part: usize,
        /// What is wrong.
        reason: String,
    },
    /// Writing a file failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// What [`extract`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Extraction {
    /// Every item moved out, in history order.
    pub files: Vec<ExtractedItem>,
    /// Tool returns holding binary items that were left inline (their JSON is not in compact form).
    pub left_inline: usize,
}

/// One item moved out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExtractedItem {
    /// The message.
    pub message: usize,
    /// The part.
    pub part: usize,
    /// The file name in the directory.
    pub file: String,
    /// Its size.
    pub bytes: u64,
    /// The item's media type.
    pub media_type: String,
}

/// The extension of a media type's files (`bin` for those without a usual one).
pub fn extension(media_type: &str) -> &'static str {
    match media_type.split(';').next().unwrap_or("").trim() {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "application/pdf" => "pdf",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/ogg" => "ogg",
        "audio/flac" => "flac",
        "video/mp4" => "mp4",
        "video/webm" => "webm",
        "text/plain" => "txt",
        "text/markdown" => "md",
        "text/html" => "html",
        "text/csv" => "csv",
        "application/json" => "json",
        _ => "bin",
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The part of a binary item [`extract`] and [`inline`] change, whatever holds it.
struct Item<'a> {
    data: &'a str,
    media_type: &'a str,
    vendor_metadata: Field<&'a Value>,
}

/// Writes `bytes` to `dir/name` unless a file with those bytes is there already.
fn store(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), MediaError> {
    let path = dir.join(name);
    match std::fs::read(&path) {
        Ok(existing) if existing == bytes => return Ok(()),
        Ok(_) => return Err(MediaError::Collision { path }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(MediaError::Write { path, source }),
    }
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        // A temporary file renamed into place: a failure never leaves a partial media file.
        let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, &path)
    };
    write().map_err(|source| MediaError::Write { path, source })
}

/// The reference for `item` stored as `file`, as the new `vendor_metadata`.
fn reference(item: &Item<'_>, file: &str, bytes: &[u8]) -> Value {
    let mut reference = Map::new();
    reference.insert("file".into(), json!(file));
    reference.insert("sha256".into(), json!(sha256_hex(bytes)));
    reference.insert("bytes".into(), json!(bytes.len()));
    match item.vendor_metadata {
        Field::Absent => {
            reference.insert("vendor_metadata_absent".into(), json!(true));
        }
        Field::Null => {
            reference.insert("vendor_metadata".into(), Value::Null);
        }
        Field::Present(value) => {
            reference.insert("vendor_metadata".into(), value.clone());
        }
    }
    // The data as written, when the bytes' own encoding would spell it differently.
    if Base64Data::from_bytes(bytes).as_str() != item.data {
        reference.insert("data".into(), json!(item.data));
    }
    json!({ REF_KEY: reference })
}

/// Moves one item's bytes out; `None` when there is nothing to move (already a reference, or no data).
fn extract_item(item: &Item<'_>, dir: &Path) -> Result<Option<(Value, String, Vec<u8>)>, MediaError> {
    if item.data.is_empty() {
        return Ok(None);
    }
    let Ok(bytes) = Base64Data::parse(item.data).and_then(|data| data.decode()) else {
        return Ok(None);
    };
    let file = format!("{}.{}", sha256_hex(&bytes), extension(item.media_type));
    store(dir, &file, &bytes)?;
    Ok(Some((reference(item, &file, &bytes), file, bytes)))
}

/// `vendor_metadata` as a value, when writing it back gives its exact text (else the item stays
/// inline: its restore could not be byte for byte).
fn field_value(field: &Field<RawJson>) -> Option<Field<Value>> {
    Some(match field {
        Field::Absent => Field::Absent,
        Field::Null => Field::Null,
        Field::Present(raw) => Field::Present(exact_value(raw)?),
    })
}

fn extract_binary(binary: &mut BinaryContent, dir: &Path) -> Result<Option<(String, u64)>, MediaError> {
    let Some(vendor_metadata) = field_value(&binary.vendor_metadata) else {
        return Ok(None);
    };
    let item = Item {
        data: binary.data.as_str(),
        media_type: &binary.media_type,
        vendor_metadata: vendor_metadata.as_ref(),
    };
    let Some((reference, file, bytes)) = extract_item(&item, dir)? else {
        return Ok(None);
    };
    binary.data = Base64Data::from_bytes(&[]);
    binary.vendor_metadata = Field::Present(RawJson::from(reference));
    Ok(Some((file, bytes.len() as u64)))
}

/// A binary item's JSON object inside tool return content.
fn is_binary_object(object: &Map<String, Value>) -> bool {
    object.get("kind").and_then(Value::as_str) == Some("binary")
        && object.get("data").is_some_and(Value::is_string)
        && object.get("media_type").is_some_and(Value::is_string)
}

fn extract_in_value(value: &mut Value, dir: &Path, found: &mut Vec<(String, u64, String)>) -> Result<(), MediaError> {
    match value {
        Value::Array(items) => items.iter_mut().try_for_each(|item| extract_in_value(item, dir, found)),
        Value::Object(object) if is_binary_object(object) => {
            let vendor_metadata = match object.get("vendor_metadata") {
                None => Field::Absent,
                Some(Value::Null) => Field::Null,
                Some(value) => Field::Present(value),
            };
            let item = Item {
                data: object.get("data").and_then(Value::as_str).unwrap_or(""),
                media_type: object.get("media_type").and_then(Value::as_str).unwrap_or(""),
                vendor_metadata,
            };
            let media_type = item.media_type.to_owned();
            if let Some((reference, file, bytes)) = extract_item(&item, dir)? {
                object.insert("data".into(), json!(""));
                object.insert("vendor_metadata".into(), reference);
                found.push((file, bytes.len() as u64, media_type));
            }
            Ok(())
        }
        Value::Object(object) => object
            .values_mut()
            .try_for_each(|item| extract_in_value(item, dir, found)),
        _ => Ok(()),
    }
}

/// Tool return content as a JSON value, when writing it back gives its exact text.
fn exact_value(raw: &RawJson) -> Option<Value> {
    let value = raw.try_to_value().ok()?;
    (serde_json::to_string(&value).ok()? == raw.get()).then_some(value)
}

fn mentions_binary(raw: &RawJson) -> bool {
    raw.get().contains("\"binary\"")
}

/// Moves the bytes of every inline binary item of `history` into files in `dir` (created if
/// needed), leaving references. Items already extracted are left as they are.
pub fn extract(history: &mut [ModelMessage], dir: &Path) -> Result<Extraction, MediaError> {
    let mut extraction = Extraction::default();
    for (message_index, message) in history.iter_mut().enumerate() {
        let mut note = |part: usize, file: String, bytes: u64, media_type: &str| {
            extraction.files.push(ExtractedItem {
                message: message_index,
                part,
                file,
                bytes,
                media_type: media_type.to_owned(),
            });
        };
        match message {
            ModelMessage::Request(request) => {
                for (part_index, part) in request.parts.iter_mut().enumerate() {
                    match part {
                        ModelRequestPart::UserPrompt(user) => {
                            if let UserPromptContent::Items(items) = &mut user.content {
                                for item in items {
                                    if let UserContent::Binary(binary) = item {
                                        if let Some((file, bytes)) = extract_binary(binary, dir)? {
                                            note(part_index, file, bytes, &binary.media_type);
                                        }
                                    }
                                }
                            }
                        }
                        ModelRequestPart::ToolReturn(ret) if mentions_binary(&ret.content) => {
                            let Some(mut value) = exact_value(&ret.content) else {
                                extraction.left_inline += 1;
                                continue;
                            };
                            let mut found = Vec::new();
                            extract_in_value(&mut value, dir, &mut found)?;
                            if !found.is_empty() {
                                ret.content = RawJson::from(value);
                                for (file, bytes, media_type) in found {
                                    note(part_index, file, bytes, &media_type);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            ModelMessage::Response(response) => {
                for (part_index, part) in response.parts.iter_mut().enumerate() {
                    if let ModelResponsePart::File(file_part) = part {
                        if let Some((file, bytes)) = extract_binary(&mut file_part.content, dir)? {
                            note(part_index, file, bytes, &file_part.content.media_type);
                        }
                    }
                }
            }
        }
    }
    Ok(extraction)
}

/// What a reference says, and the item's original `data` and `vendor_metadata`, read back.
struct Restored {
    data: String,
    vendor_metadata: Field<Value>,
}

fn restore(reference: &Value, dir: &Path, message: usize, part: usize) -> Result<Restored, MediaError> {
    let bad = |reason: &str| MediaError::BadReference {
        message,
        part,
        reason: reason.to_owned(),
    };
    let file = reference
        .get("file")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("no `file`"))?;
    if file.contains(['/', '\\']) || file.starts_with('.') {
        return Err(bad("`file` must be a plain file name in the directory"));
    }
    let sha256 = reference
        .get("sha256")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("no `sha256`"))?;
    let size = reference
        .get("bytes")
        .and_then(Value::as_u64)
        .ok_or_else(|| bad("no `bytes`"))?;
    let path = dir.join(file);
    let bytes = std::fs::read(&path).map_err(|source| MediaError::Missing {
        message,
        part,
        path: path.clone(),
        source,
    })?;
    let found = sha256_hex(&bytes);
    if found != sha256 || bytes.len() as u64 != size {
        return Err(MediaError::Altered {
            message,
            part,
            path,
            expected_sha256: sha256.to_owned(),
            expected_bytes: size,
            found_sha256: found,
            found_bytes: bytes.len() as u64,
        });
    }
    let data = match reference.get("data") {
        Some(Value::String(text)) => text.clone(),
        Some(_) => return Err(bad("`data` must be a string")),
        None => Base64Data::from_bytes(&bytes).as_str().to_owned(),
    };
    let vendor_metadata = if reference.get("vendor_metadata_absent") == Some(&Value::Bool(true)) {
        Field::Absent
    } else {
        match reference.get("vendor_metadata") {
            None => return Err(bad("no `vendor_metadata`")),
            Some(Value::Null) => Field::Null,
            Some(value) => Field::Present(value.clone()),
        }
    };
    Ok(Restored { data, vendor_metadata })
}

/// The reference a `vendor_metadata` holds, if it is one.
fn reference_of(vendor_metadata: &Value) -> Option<&Value> {
    let object = vendor_metadata.as_object()?;
    (object.len() == 1).then(|| object.get(REF_KEY)).flatten()
}

fn inline_binary(binary: &mut BinaryContent, dir: &Path, message: usize, part: usize) -> Result<bool, MediaError> {
    let Some(metadata) = binary.vendor_metadata.get().and_then(|raw| raw.try_to_value().ok()) else {
        return Ok(false);
    };
    let Some(reference) = reference_of(&metadata) else {
        return Ok(false);
    };
    let restored = restore(reference, dir, message, part)?;
    binary.data = Base64Data::parse(&restored.data).map_err(|err| MediaError::BadReference {
        message,
        part,
        reason: err.to_string(),
    })?;
    binary.vendor_metadata = restored.vendor_metadata.map(RawJson::from);
    Ok(true)
}

fn inline_in_value(value: &mut Value, dir: &Path, message: usize, part: usize) -> Result<usize, MediaError> {
    match value {
        Value::Array(items) => items
            .iter_mut()
            .map(|item| inline_in_value(item, dir, message, part))
            .sum(),
        Value::Object(object) => {
            let reference = object.get("vendor_metadata").and_then(reference_of).cloned();
            if let Some(reference) = reference {
                let restored = restore(&reference, dir, message, part)?;
                object.insert("data".into(), Value::String(restored.data));
                match restored.vendor_metadata {
                    Field::Absent => {
                        object.shift_remove("vendor_metadata");
                    }
                    Field::Null => {
                        object.insert("vendor_metadata".into(), Value::Null);
                    }
                    Field::Present(value) => {
                        object.insert("vendor_metadata".into(), value);
                    }
                }
                return Ok(1);
            }
            object
                .values_mut()
                .map(|item| inline_in_value(item, dir, message, part))
                .sum()
        }
        _ => Ok(0),
    }
}

/// Puts back the bytes of every reference [`extract`] left, reading them from `dir`; returns how
/// many items it restored.
pub fn inline(history: &mut [ModelMessage], dir: &Path) -> Result<usize, MediaError> {
    let mut restored = 0;
    for (message_index, message) in history.iter_mut().enumerate() {
        match message {
            ModelMessage::Request(request) => {
                for (part_index, part) in request.parts.iter_mut().enumerate() {
                    match part {
                        ModelRequestPart::UserPrompt(user) => {
                            if let UserPromptContent::Items(items) = &mut user.content {
                                for item in items {
                                    if let UserContent::Binary(binary) = item {
                                        restored += usize::from(inline_binary(binary, dir, message_index, part_index)?);
                                    }
                                }
                            }
                        }
                        ModelRequestPart::ToolReturn(ret) if ret.content.get().contains(REF_KEY) => {
                            let Some(mut value) = exact_value(&ret.content) else {
                                continue;
                            };
                            let count = inline_in_value(&mut value, dir, message_index, part_index)?;
                            if count > 0 {
                                ret.content = RawJson::from(value);
                                restored += count;
                            }
                        }
                        _ => {}
                    }
                }
            }
            ModelMessage::Response(response) => {
                for (part_index, part) in response.parts.iter_mut().enumerate() {
                    if let ModelResponsePart::File(file_part) = part {
                        restored += usize::from(inline_binary(&mut file_part.content, dir, message_index, part_index)?);
                    }
                }
            }
        }
    }
    Ok(restored)
}
