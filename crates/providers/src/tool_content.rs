//! Tool output as pydantic-ai reads it back: `ToolReturnContent` (`pydantic_ai/messages.py`), the
//! left-to-right union `str | MultiModalContent | Mapping[str, ToolReturnContent] |
//! Sequence[ToolReturnContent] | Any`, rebuilds every object in a tool result's content that
//! validates as a file item (`BinaryContent`, `ImageUrl`, `AudioUrl`, `VideoUrl`, `DocumentUrl`,
//! `UploadedFile`) at any depth, and an object that does not stays a mapping whose values are read the
//! same way. A rebuilt item nested in an object or a list is no file the mappings send
//! (`_split_content` only looks at the content and the items of a content list): its dump is part
//! of the item's JSON text (`tool_return_ta`), with its keys in the dataclass's order, its data as
//! URL-safe base64 and its computed `media_type` and `identifier` written out. msgflow-media's
//! builders write exactly that dump, so this module only decides which objects load as files.

use msgflow_media::{FileItem, UrlItem, UrlItemBuilder, UrlKind};
use msgflow_wire::{Base64Data, Field, FileDigests, ForceDownload, UploadedFileProviderName};
use serde::Serialize;
use serde_json::{Map, Value};

/// The file record a tool result's content is validated under (`_loaded_file_digests`, set by
/// `_RecordsContentFiles._validate_recorded_files`).
#[derive(Debug, Clone)]
pub(crate) enum FileRecord {
    /// No `content_file_digests` list: a history saved before records existed, in which a URL item
    /// loads as a file only with an `http` or `https` URL (its `force_download` reset), and an
    /// uploaded file never does (`_UNRECORDED`).
    Unrecorded,
    /// The recorded digests: a URL or uploaded-file mapping loads as a file only when its digest is
    /// one of them.
    Recorded(Vec<String>),
}

impl FileRecord {
    /// The record of a part's `content_file_digests`: a list of strings records them, anything else
    /// but a list (absent, `null`, a string, ...) is no record; a list holding anything but strings
    /// is `Err`, as pydantic-ai refuses to load it (`invalid_file_record`).
    pub(crate) fn of(digests: &Field<FileDigests>) -> Result<FileRecord, &'static str> {
        let Some(digests) = digests.get() else {
            return Ok(FileRecord::Unrecorded);
        };
        if let Some(record) = digests.record() {
            return Ok(FileRecord::Recorded(record.into_owned()));
        }
        match digests {
            FileDigests::Other(raw) if raw.get().trim_start().starts_with('[') => {
                Err("`content_file_digests` holding something other than strings (pydantic-ai refuses to load it)")
            }
            _ => Ok(FileRecord::Unrecorded),
        }
    }
}

/// The `kind` tags of `MultiModalContent`, the arm of `ToolReturnContent` that rebuilds file items.
const FILE_KINDS: [&str; 6] = [
    "image-url",
    "audio-url",
    "document-url",
    "video-url",
    "binary",
    "uploaded-file",
];

/// The file kind an object claims, when it claims one of [`FILE_KINDS`].
fn claimed_file_kind(map: &Map<String, Value>) -> Option<&str> {
    map.get("kind")
        .and_then(Value::as_str)
        .filter(|kind| FILE_KINDS.contains(kind))
}

/// Whether `value` holds an object claiming a file kind anywhere, walked without recursion (tool
/// output can be deeply nested) and without allocating but for the stack.
pub(crate) fn holds_file_item(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if claimed_file_kind(map).is_some() {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// Rebuilds, inside `value`, every object that loads as a file item as pydantic-ai dumps it; `value`
/// itself is read as data (a mapping or a list whose values are `ToolReturnContent`). `Err` names
/// what msgflow cannot decide exactly.
pub(crate) fn rebuild_nested_files(value: &mut Value, record: &FileRecord) -> Result<(), &'static str> {
    if !holds_file_item(value) {
        return Ok(());
    }
    rebuild_within(value, record)
}

/// The values of a mapping or a list, each read as `ToolReturnContent`. The recursion is bounded:
/// serde_json reads no value nested more than 128 deep.
fn rebuild_within(value: &mut Value, record: &FileRecord) -> Result<(), &'static str> {
    let items: Box<dyn Iterator<Item = &mut Value>> = match value {
        Value::Object(map) => Box::new(map.values_mut()),
        Value::Array(items) => Box::new(items.iter_mut()),
        _ => return Ok(()),
    };
    for item in items {
        // An object that loads as a file item becomes its dump, and nothing inside it is read
        // again (its `vendor_metadata` is `dict[str, Any]`); anything else has its values read.
        if let Value::Object(map) = item {
            if let Some(dump) = file_item_dump(map, record)? {
                *map = dump;
                continue;
            }
        }
        rebuild_within(item, record)?;
    }
    Ok(())
}

/// The dump of `map` when it loads as a file item (`MultiModalContent` with `_RequireUrlMediaType`'s
/// gates), `None` when it stays a mapping.
pub(crate) fn file_item_dump(
    map: &Map<String, Value>,
    record: &FileRecord,
) -> Result<Option<Map<String, Value>>, &'static str> {
    let Some(kind) = claimed_file_kind(map) else {
        return Ok(None);
    };
    match kind {
        "binary" => Ok(binary_dump(map)),
        "uploaded-file" => uploaded_file_dump(map, record),
        url_kind => match UrlKind::from_kind_tag(url_kind) {
            Some(UrlKind::Image) => url_item_dump(FileItem::image_url, map, record),
            Some(UrlKind::Audio) => url_item_dump(FileItem::audio_url, map, record),
            Some(UrlKind::Video) => url_item_dump(FileItem::video_url, map, record),
            Some(UrlKind::Document) => url_item_dump(FileItem::document_url, map, record),
            None => Ok(None),
        },
    }
}

/// `vendor_metadata: dict[str, Any] | None`: absent, `null` or an object validate.
fn vendor_metadata(map: &Map<String, Value>) -> Option<Option<&Value>> {
    match map.get("vendor_metadata") {
        None | Some(Value::Null) => Some(None),
        Some(object @ Value::Object(_)) => Some(Some(object)),
        Some(_) => None,
    }
}

/// An optional `str | None` field: `Some(None)` when absent or `null`, `None` when it does not
/// validate.
fn optional_string<'a>(map: &'a Map<String, Value>, key: &str) -> Option<Option<&'a str>> {
    match map.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(text)) => Some(Some(text)),
        Some(_) => None,
    }
}

/// A built item as its JSON object.
fn dumped(item: &impl Serialize) -> Option<Map<String, Value>> {
    match serde_json::to_value(item) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// `BinaryContent` (no provenance gate applies to it): `data` a string pydantic-ai decodes as base64
/// (either alphabet, padding optional), `media_type` a string; keys it does not declare are dropped.
fn binary_dump(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    let data = Base64Data::parse(map.get("data")?.as_str()?).ok()?.decode().ok()?;
    let media_type = map.get("media_type")?.as_str()?;
    let metadata = vendor_metadata(map)?;
    let identifier = optional_string(map, "identifier")?;
    let mut builder = FileItem::binary(data, media_type);
    if let Some(identifier) = identifier {
        builder = builder.identifier(identifier);
    }
    if let Some(metadata) = metadata {
        builder = builder.vendor_metadata(metadata.clone());
    }
    dumped(&builder.build().ok()?)
}

/// Whether a URL or uploaded-file mapping passes `_check_file_provenance` under a list record: the
/// record is not empty, the mapping has no key a dump of its kind does not write, and its digest
/// (msgflow-media's `_file_digest`) is recorded.
fn recorded(map: &Map<String, Value>, digests: &[String], keys: &[&str; 6]) -> bool {
    !digests.is_empty()
        && map.keys().all(|key| keys.contains(&key.as_str()))
        && digests.contains(&msgflow_media::file_item_digest(&Value::Object(map.clone())))
}

/// An `ImageUrl`, `AudioUrl`, `VideoUrl` or `DocumentUrl`: the provenance gate, then the gate that
/// wants a `media_type` key holding a non-empty string or `null` (`_carries_media_type`), then the
/// dataclass's fields.
fn url_item_dump<T: UrlItem + Serialize>(
    builder: fn(String) -> UrlItemBuilder<T>,
    map: &Map<String, Value>,
    record: &FileRecord,
) -> Result<Option<Map<String, Value>>, &'static str> {
    let force_download = match record {
        FileRecord::Unrecorded => {
            // `_UNRECORDED`: only an `http(s)` URL (as `urlparse` reads its scheme) loads, with
            // `force_download` reset to `False` whatever it held.
            let http = map
                .get("url")
                .and_then(Value::as_str)
                .and_then(msgflow_media::url_scheme)
                .is_some_and(|scheme| scheme == "http" || scheme == "https");
            if !http {
                return Ok(None);
            }
            ForceDownload::No
        }
        FileRecord::Recorded(digests) => {
            if !recorded(map, digests, &msgflow_media::URL_ITEM_KEYS) {
                return Ok(None);
            }
            // `bool | Literal['allow-local']`: a value pydantic-ai's lax mode reads as a bool is that
            // bool, dumped as `true` or `false`.
            let written = map.get("force_download").cloned().unwrap_or(Value::Bool(false));
            match serde_json::from_value::<ForceDownload>(written).ok() {
                Some(ForceDownload::AllowLocal) => ForceDownload::AllowLocal,
                Some(value) => match value.downloads() {
                    Some(true) => ForceDownload::Yes,
                    Some(false) => ForceDownload::No,
                    None => return Ok(None),
                },
                None => return Ok(None),
            }
        }
    };
    let media_type = match map.get("media_type") {
        Some(Value::Null) => None,
        Some(Value::String(media_type)) if !media_type.is_empty() => Some(media_type.as_str()),
        _ => return Ok(None),
    };
    let Some(Value::String(url)) = map.get("url") else {
        return Ok(None);
    };
    let (Some(metadata), Some(identifier)) = (vendor_metadata(map), optional_string(map, "identifier")) else {
        return Ok(None);
    };
    let mut item = builder(url.clone()).force_download(force_download);
    if let Some(media_type) = media_type {
        item = item.media_type(media_type);
    }
    if let Some(identifier) = identifier {
        item = item.identifier(identifier);
    }
    if let Some(metadata) = metadata {
        item = item.vendor_metadata(metadata.clone());
    }
    Ok(item.build().ok().as_ref().and_then(dumped))
}

/// An `UploadedFile`: only a recorded one loads; its `provider_name` must be one pydantic-ai knows.
fn uploaded_file_dump(
    map: &Map<String, Value>,
    record: &FileRecord,
) -> Result<Option<Map<String, Value>>, &'static str> {
    let FileRecord::Recorded(digests) = record else {
        return Ok(None);
    };
    if !recorded(map, digests, &msgflow_media::UPLOADED_FILE_KEYS) {
        return Ok(None);
    }
    let Some(Value::String(file_id)) = map.get("file_id") else {
        return Ok(None);
    };
    let provider = match map.get("provider_name") {
        Some(name @ Value::String(_)) => match serde_json::from_value::<UploadedFileProviderName>(name.clone()) {
            Ok(UploadedFileProviderName::Unknown(_)) | Err(_) => return Ok(None),
            Ok(provider) => provider,
        },
        _ => return Ok(None),
    };
    let (Some(metadata), Some(media_type), Some(identifier)) = (
        vendor_metadata(map),
        optional_string(map, "media_type"),
        optional_string(map, "identifier"),
    ) else {
        return Ok(None);
    };
    let mut item = FileItem::uploaded_file(file_id.clone(), provider);
    if let Some(media_type) = media_type {
        item = item.media_type(media_type);
    }
    if let Some(identifier) = identifier {
        item = item.identifier(identifier);
    }
    if let Some(metadata) = metadata {
        item = item.vendor_metadata(metadata.clone());
    }
    match item.build() {
        Ok(built) => Ok(dumped(&built)),
        // No media type given and a file id Python's `urlparse` refuses: the dump raises.
        Err(_) => Err("a recorded uploaded file in tool output whose media type pydantic-ai fails to compute (it fails to dump it)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dump(item: Value, record: &FileRecord) -> Option<Value> {
        file_item_dump(item.as_object().unwrap(), record)
            .unwrap()
            .map(Value::Object)
    }

    /// Each expected dump is what pydantic-ai 2.68.0's `model_response_str` wrote for the item nested
    /// in an object.
    #[test]
    fn binary_content_loads_whenever_its_data_decodes() {
        let png = |data: &str| json!({"kind": "binary", "data": data, "media_type": "image/png"});
        assert_eq!(
            dump(png("+/+/"), &FileRecord::Unrecorded),
            Some(
                json!({"data": "-_-_", "media_type": "image/png", "vendor_metadata": null, "kind": "binary",
                "identifier": "d4dea6"})
            )
        );
        assert_eq!(
            dump(png("YQ"), &FileRecord::Recorded(Vec::new())).unwrap()["data"],
            json!("YQ==")
        );
        // Bits past the last byte, a newline, too much padding: a mapping.
        for data in ["ab", "YR==", "iVBO\nRw0KGgo=", "iVBORw0KGgo=="] {
            assert_eq!(dump(png(data), &FileRecord::Unrecorded), None, "{data}");
        }
        assert_eq!(
            dump(
                json!({"kind": "binary", "data": "YQ==", "media_type": "image/png", "identifier": 5}),
                &FileRecord::Unrecorded
            ),
            None
        );
    }

    #[test]
    fn url_items_load_as_the_record_says() {
        let url = json!({"kind": "image-url", "url": "https://example.com/a.png", "media_type": null});
        let rebuilt = json!({"url": "https://example.com/a.png", "force_download": false, "vendor_metadata": null,
            "kind": "image-url", "media_type": "image/png", "identifier": "b86daf"});
        assert_eq!(dump(url.clone(), &FileRecord::Unrecorded), Some(rebuilt.clone()));
        assert_eq!(dump(url.clone(), &FileRecord::Recorded(Vec::new())), None);
        let digest = msgflow_media::file_item_digest(&url);
        assert_eq!(dump(url.clone(), &FileRecord::Recorded(vec![digest])), Some(rebuilt));
        // No `media_type` key, or an empty one: a mapping.
        let mut bare = url.clone();
        bare.as_object_mut().unwrap().remove("media_type");
        assert_eq!(dump(bare, &FileRecord::Unrecorded), None);
        let mut empty = url;
        empty["media_type"] = json!("");
        assert_eq!(dump(empty, &FileRecord::Unrecorded), None);
        // Without a record only an http(s) URL loads.
        let gs = json!({"kind": "document-url", "url": "gs://b/a.pdf", "media_type": "application/pdf"});
        assert_eq!(dump(gs, &FileRecord::Unrecorded), None);
    }

    #[test]
    fn an_uploaded_file_loads_only_when_recorded() {
        let file = json!({"kind": "uploaded-file", "file_id": "file-1", "provider_name": "openai"});
        assert_eq!(dump(file.clone(), &FileRecord::Unrecorded), None);
        let digest = msgflow_media::file_item_digest(&file);
        assert_eq!(
            dump(file, &FileRecord::Recorded(vec![digest])),
            Some(
                json!({"file_id": "file-1", "provider_name": "openai", "vendor_metadata": null,
                "kind": "uploaded-file", "media_type": "application/octet-stream", "identifier": "c86d26"})
            )
        );
        let unknown = json!({"kind": "uploaded-file", "file_id": "file-1", "provider_name": "zzz"});
        let digest = msgflow_media::file_item_digest(&unknown);
        assert_eq!(dump(unknown, &FileRecord::Recorded(vec![digest])), None);
    }

    #[test]
    fn a_mapping_that_stays_one_has_its_values_read() {
        let inner = json!({"kind": "binary", "data": "YQ==", "media_type": "text/plain"});
        let mut content = json!({"x": {"kind": "binary", "data": "!!", "media_type": "image/png",
            "vendor_metadata": {"b": inner}}});
        rebuild_nested_files(&mut content, &FileRecord::Unrecorded).unwrap();
        assert_eq!(content["x"]["vendor_metadata"]["b"]["identifier"], json!("86f7e4"));
        assert_eq!(content["x"]["data"], json!("!!"));
    }
}
