//! The values of UI parts and messages as pydantic-ai's `VercelAIAdapter.load_messages` reads
//! them: tool output with its files rebuilt, structured content a text claims, a user's file
//! part, and a message's metadata and timestamp.

use serde_json::{Map, Value};

use super::{get, shape, truthy};
use crate::messages_builder::{binary_json, from_data_uri, Given, INTERNAL_KEY};
use crate::object::object;
use crate::openai_chat::ShapeError;
use crate::ui_payloads::{loaded_tool_output, structured_content_from_payload, PROVIDER_METADATA_KEY};

/// `_validate_tool_output`: tool output with its file items rebuilt, and the digests that record
/// them (`loaded_tool_output`); output holding no file or text item as it is.
pub(super) fn validated_tool_output(output: Value) -> (Value, Vec<String>) {
    if !crate::vercel_ui::holds_content_item(&output) {
        return (output, Vec::new());
    }
    loaded_tool_output(&output, true)
}

/// `structured_content_from_payload(_parse_json(claim), text)`: the `StructuredContent` a user
/// text part claims to be, or its plain text when the claim does not validate.
pub(super) fn structured_content(claim: &Value, text: &str) -> Value {
    let payload = claim
        .as_str()
        .and_then(|json_text| serde_json::from_str::<Value>(json_text).ok())
        .unwrap_or(Value::Null);
    structured_content_from_payload(&payload, text)
}

/// A user file part: inline data, an uploaded file, or a URL item of the kind its media type says.
pub(super) fn user_file(part: &Value, metadata: &Map<String, Value>, path: &str) -> Result<Value, ShapeError> {
    let url = part
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| shape(&format!("{path}.url"), "expected the file's `url` as a string"))?;
    let media_type = part.get("mediaType").and_then(Value::as_str).ok_or_else(|| {
        shape(
            &format!("{path}.mediaType"),
            "expected the file's `mediaType` as a string",
        )
    })?;
    let vendor_metadata = get(metadata, "vendor_metadata");
    if let Some((data_media_type, bytes)) = from_data_uri(url) {
        return Ok(binary_json(&data_media_type, &bytes, vendor_metadata));
    }
    let (file_id, provider) = (get(metadata, "file_id"), get(metadata, "provider_name"));
    if truthy(file_id) && truthy(provider) {
        return Ok(
            object! {"file_id": file_id.clone(), "provider_name": provider.clone(), "media_type": media_type,
            "vendor_metadata": vendor_metadata.clone(), "identifier": get(metadata, "identifier").clone(),
            "kind": "uploaded-file"},
        );
    }
    let kind = if media_type.is_empty() {
        // `_KIND_TO_URL_TYPE`, a document for anything else.
        let claimed = get(metadata, "kind").as_str().unwrap_or_default();
        if ["image-url", "audio-url", "video-url"].contains(&claimed) {
            claimed
        } else {
            "document-url"
        }
    } else {
        match media_type.split('/').next() {
            Some("image") => "image-url",
            Some("video") => "video-url",
            Some("audio") => "audio-url",
            _ => "document-url",
        }
    };
    let force_download = match get(metadata, "force_download") {
        Value::Null => Value::Bool(false),
        other => other.clone(),
    };
    Ok(
        object! {"url": url, "force_download": force_download, "vendor_metadata": vendor_metadata.clone(),
        "kind": kind, "media_type": media_type},
    )
}

/// A UIMessage's `metadata.pydantic_ai.timestamp` where it validates as a `datetime` (a Unix
/// time too), as `apply_message_metadata` takes it.
pub(super) fn loadable_timestamp(metadata: &Value) -> Option<msgflow_wire::Timestamp> {
    let value = metadata.get(PROVIDER_METADATA_KEY)?.get("timestamp")?;
    <msgflow_wire::Timestamp as serde::Deserialize>::deserialize(value)
        .ok()
        .filter(msgflow_wire::Timestamp::is_loadable)
}

/// `apply_message_metadata`: application metadata replaces the message's; `pydantic_ai.timestamp`
/// (`timestamp`, [`loadable_timestamp`] of it) sets its timestamp. Returns what it gave the
/// message (the keys of the application metadata, whether a timestamp), the `id` left out.
pub(super) fn apply_message_metadata(
    target: &mut Map<String, Value>,
    metadata: &Value,
    timestamp: Option<msgflow_wire::Timestamp>,
) -> Given {
    let Value::Object(metadata) = metadata else {
        return Given::default();
    };
    let application: Map<String, Value> = metadata
        .iter()
        .filter(|(key, _)| key.as_str() != PROVIDER_METADATA_KEY && key.as_str() != INTERNAL_KEY)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let keys = application.keys().cloned().collect();
    if !application.is_empty() {
        target.insert("metadata".into(), Value::Object(application));
    }
    let given = Given {
        id: false,
        metadata: keys,
        timestamp: timestamp.is_some(),
    };
    match timestamp.as_ref().map(|timestamp| (timestamp, timestamp.parts())) {
        // A datetime as pydantic-ai writes the one it read.
        Some((_, Some(parts))) => {
            target.insert(
                "timestamp".into(),
                msgflow_wire::Timestamp::from_parts(parts).as_written().into(),
            );
        }
        // A Unix time with a fraction (a number or a numeric string), which the history holds as
        // written: it loads as the same datetime.
        Some((timestamp, None)) => {
            if let Ok(value) = serde_json::to_value(timestamp) {
                target.insert("timestamp".into(), value);
            }
        }
        None => {}
    }
    given
}
