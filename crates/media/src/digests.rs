//! `content_file_digests`: the record pydantic-ai writes next to a tool result's content.

use crate::identifier::to_lower_hex;
use crate::pyjson::python_json_dumps_sorted_ascii;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The keys every dump of a URL item (`image-url`, `audio-url`, `video-url`, `document-url`) writes
/// (`_FILE_URL_ITEM_KEYS`).
pub const URL_ITEM_KEYS: [&str; 6] = [
    "url",
    "force_download",
    "vendor_metadata",
    "kind",
    "media_type",
    "identifier",
];

/// The keys every dump of an `uploaded-file` item writes (`_FILE_ITEM_KEYS['uploaded-file']`).
pub const UPLOADED_FILE_KEYS: [&str; 6] = [
    "file_id",
    "provider_name",
    "vendor_metadata",
    "kind",
    "media_type",
    "identifier",
];

/// `UploadedFileProviderName`.
const UPLOADED_FILE_PROVIDERS: [&str; 8] = [
    "anthropic",
    "openai",
    "google",
    "google-cloud",
    "google-gla",
    "google-vertex",
    "bedrock",
    "xai",
];

/// The digest pydantic-ai records for one file item (`_file_digest`): lowercase hex SHA-256 of
/// [`python_json_dumps_sorted_ascii`] of the item's JSON dump.
///
/// `item` must be the item's dump as pydantic-ai writes it (all six keys, computed `media_type` and `identifier`
/// filled in); the function hashes whatever it is given.
///
/// ```
/// use msgflow_media::file_item_digest;
/// use serde_json::json;
///
/// let item = json!({"url": "https://example.com/x.png", "force_download": false, "vendor_metadata": null,
///                   "kind": "image-url", "media_type": "image/png", "identifier": "f27cce"});
/// assert_eq!(file_item_digest(&item), "458b1a5a065c7457767aa58d943375ab2d8fc6a10306b60c81a3044b9ed43542");
/// ```
pub fn file_item_digest(item: &Value) -> String {
    let canonical = python_json_dumps_sorted_ascii(item);
    to_lower_hex(&Sha256::digest(canonical.as_bytes()))
}

/// Whether a tool-return part dumps a `content_file_digests` key for this content: pydantic-ai writes it whenever
/// the content is not a `str`, `int`, `float`, `bool` or `None`, which for JSON means arrays and objects.
///
/// ```
/// use serde_json::json;
/// assert!(msgflow_media::content_needs_file_digests(&json!([])));
/// assert!(!msgflow_media::content_needs_file_digests(&json!("text")));
/// ```
pub fn content_needs_file_digests(content: &Value) -> bool {
    matches!(content, Value::Array(_) | Value::Object(_))
}

/// Whether `value` is the dump of a file item that pydantic-ai records: a URL item or an `uploaded-file`, in
/// exactly the form its serializer writes.
///
/// That is an object whose `kind` is `image-url`, `audio-url`, `video-url`, `document-url` or `uploaded-file`,
/// whose key set is **exactly** the six keys that kind dumps, and whose values are ones a dump can hold:
///
/// * URL kinds: `url` a string, `force_download` `true`/`false`/`"allow-local"`, `vendor_metadata` an object or
///   null, `media_type` a non-empty string or null (the tool-return gate refuses `""`), `identifier` a non-empty
///   string (the computed identifier is never empty);
/// * `uploaded-file`: `file_id` a string, `provider_name` one of pydantic-ai's provider names, `vendor_metadata` an
///   object or null, `media_type` a string, `identifier` a non-empty string.
///
/// A mapping that only resembles a file item (missing or extra keys, other value types) is plain data.
///
/// ```
/// use serde_json::json;
/// let item = json!({"file_id": "file-1", "provider_name": "openai", "vendor_metadata": null,
///                   "kind": "uploaded-file", "media_type": "application/octet-stream", "identifier": "a1b2c3"});
/// assert!(msgflow_media::is_recorded_file_item(&item));
/// assert!(!msgflow_media::is_recorded_file_item(&json!({"kind": "image-url", "url": "https://x/a.png"})));
/// ```
pub fn is_recorded_file_item(value: &Value) -> bool {
    let Value::Object(map) = value else { return false };
    match map.get("kind").and_then(Value::as_str) {
        Some("image-url" | "audio-url" | "video-url" | "document-url") => is_url_item_dump(map),
        Some("uploaded-file") => is_uploaded_file_dump(map),
        _ => false,
    }
}

fn has_exactly_keys(map: &Map<String, Value>, keys: &[&str; 6]) -> bool {
    map.len() == keys.len() && keys.iter().all(|key| map.contains_key(*key))
}

fn is_object_or_null(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Object(_) | Value::Null))
}

fn is_non_empty_string(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::String(text)) if !text.is_empty())
}

fn is_force_download_value(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(_)) => true,
        Some(Value::String(mode)) => mode == "allow-local",
        _ => false,
    }
}

fn is_url_item_dump(map: &Map<String, Value>) -> bool {
    has_exactly_keys(map, &URL_ITEM_KEYS)
        && matches!(map.get("url"), Some(Value::String(_)))
        && is_force_download_value(map.get("force_download"))
        && is_object_or_null(map.get("vendor_metadata"))
        && (matches!(map.get("media_type"), Some(Value::Null)) || is_non_empty_string(map.get("media_type")))
        && is_non_empty_string(map.get("identifier"))
}

fn is_uploaded_file_dump(map: &Map<String, Value>) -> bool {
    has_exactly_keys(map, &UPLOADED_FILE_KEYS)
        && matches!(map.get("file_id"), Some(Value::String(_)))
        && map
            .get("provider_name")
            .and_then(Value::as_str)
            .is_some_and(|name| UPLOADED_FILE_PROVIDERS.contains(&name))
        && is_object_or_null(map.get("vendor_metadata"))
        && matches!(map.get("media_type"), Some(Value::String(_)))
        && is_non_empty_string(map.get("identifier"))
}

/// Whether `value` would load as a `BinaryContent` inside tool-return content (that arm has no provenance gate): an
/// object with `kind` `binary` and string `data` and `media_type`. Its contents are not searched, since its
/// `vendor_metadata` loads as plain data. (pydantic-ai also checks that `data` decodes as base64; that check is not
/// repeated here.)
fn is_binary_item(map: &Map<String, Value>) -> bool {
    map.get("kind").and_then(Value::as_str) == Some("binary")
        && matches!(map.get("data"), Some(Value::String(_)))
        && matches!(map.get("media_type"), Some(Value::String(_)))
}

/// The `content_file_digests` value pydantic-ai writes for a tool-return `content` holding file items: one
/// [`file_item_digest`] per [`is_recorded_file_item`] object found anywhere in `content` (through arrays and object
/// values, at any depth), sorted and de-duplicated. `BinaryContent` items are never recorded.
///
/// Found items are not searched further (their `vendor_metadata` loads back as plain data); binary items are not
/// searched either; any other object or array is. This is what a dump writes when every file-shaped mapping in the
/// content is a real file item in its normal dump form (as it is after a load that rebuilt the items, or when the
/// content was built from typed items). Whether the key is written at all is [`content_needs_file_digests`].
///
/// ```
/// use msgflow_media::content_file_digests;
/// use serde_json::json;
///
/// let image = json!({"url": "https://example.com/x.png", "force_download": false, "vendor_metadata": null,
///                    "kind": "image-url", "media_type": "image/png", "identifier": "f27cce"});
/// let content = json!({"files": [image.clone(), {"nested": image}], "note": "same file twice"});
/// assert_eq!(
///     content_file_digests(&content),
///     vec!["458b1a5a065c7457767aa58d943375ab2d8fc6a10306b60c81a3044b9ed43542".to_owned()]
/// );
/// assert!(content_file_digests(&json!([{"kind": "image-url", "url": "https://x/a.png"}])).is_empty());
/// ```
pub fn content_file_digests(content: &Value) -> Vec<String> {
    let mut digests = Vec::new();
    collect_digests(content, &mut digests);
    digests.sort_unstable();
    digests.dedup();
    digests
}

fn collect_digests(value: &Value, digests: &mut Vec<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| collect_digests(item, digests)),
        Value::Object(map) => {
            if is_recorded_file_item(value) {
                digests.push(file_item_digest(value));
            } else if !is_binary_item(map) {
                map.values().for_each(|item| collect_digests(item, digests));
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}
