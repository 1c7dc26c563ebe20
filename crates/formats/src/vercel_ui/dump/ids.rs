//! The ids of the UI messages a dump writes (`_generate_message_id`): the id `load_messages` kept,
//! or a fresh one numbered by the message's place among the UI messages, which is known only once
//! the messages before it are written (they are written on rayon's pool).

use serde_json::{Map, Value};

use super::super::{Unsupported, INTERNAL_KEY};
use crate::object::value_field as field;
use crate::ui_payloads::timestamp_parts;

/// A UI message written from a history message, all but its id, which depends on how many UI
/// messages come before it (`_generate_fresh_message_id`).
pub(super) struct Unnumbered {
    pub(super) id: IdRecipe,
    pub(super) role: &'static str,
    pub(super) metadata: Option<Map<String, Value>>,
    pub(super) parts: Vec<Value>,
}

impl Unnumbered {
    /// The UI message, the `number`th of the dump.
    pub(super) fn numbered(self, number: usize) -> Value {
        // Built by hand: `json!` would copy the parts value by value.
        let mut ui_message = Map::new();
        ui_message.insert("id".into(), Value::String(self.id.id(number)));
        ui_message.insert("role".into(), Value::String(self.role.into()));
        if let Some(metadata) = self.metadata {
            ui_message.insert("metadata".into(), Value::Object(metadata));
        }
        ui_message.insert("parts".into(), Value::Array(self.parts));
        Value::Object(ui_message)
    }
}

/// How a UI message's id is made from its place among the UI messages of the dump.
pub(super) enum IdRecipe {
    /// The `UIMessage.id` the message was loaded from.
    Kept(String),
    /// `{prefix}-{index}`.
    Numbered(String),
    /// A UUID5 of `{prefix}-{index}`.
    Uuid(String),
}

impl IdRecipe {
    /// The id of the UI message at `index`.
    fn id(self, index: usize) -> String {
        match self {
            IdRecipe::Kept(id) => id,
            IdRecipe::Numbered(prefix) => format!("{prefix}-{index}"),
            IdRecipe::Uuid(prefix) => {
                let name = format!("{prefix}-{index}");
                uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, name.as_bytes()).to_string()
            }
        }
    }
}

/// `_generate_message_id`: the `UIMessage.id` the message was loaded from, else a fresh one.
/// `kind` is the message's (`request` where it has none).
pub(super) fn id_recipe(message: &Value, kind: &str, role: &str, path: &str) -> Result<IdRecipe, Unsupported> {
    if let Some(id) = field(message, "metadata")
        .get(INTERNAL_KEY)
        .and_then(|namespace| namespace.get("ui_message_id"))
        .and_then(Value::as_str)
    {
        return Ok(IdRecipe::Kept(id.to_owned()));
    }
    fresh_id_recipe(message, kind, role, path)
}

/// `_generate_fresh_message_id`: `{provider_response_id}-{index}`, `{run_id}-{index}`, or a UUID5
/// of the timestamp, kind, role and index.
pub(super) fn fresh_id_recipe(message: &Value, kind: &str, role: &str, path: &str) -> Result<IdRecipe, Unsupported> {
    let truthy = |key: &str| field(message, key).as_str().filter(|text| !text.is_empty());
    if kind == "response" {
        // `vendor_id` is the legacy name pydantic-ai loads as `provider_response_id`.
        if let Some(id) = truthy("provider_response_id").or_else(|| truthy("vendor_id")) {
            return Ok(IdRecipe::Numbered(id.to_owned()));
        }
    }
    if let Some(run_id) = truthy("run_id") {
        return Ok(IdRecipe::Numbered(run_id.to_owned()));
    }
    let timestamp = match timestamp_parts(field(message, "timestamp"), path)? {
        Some(parts) => python_isoformat(parts),
        None => String::new(),
    };
    Ok(IdRecipe::Uuid(format!("{timestamp}-{kind}-{role}")))
}

/// `datetime.isoformat()`: microseconds only when set, the offset as `+HH:MM`.
fn python_isoformat(parts: msgflow_wire::TimestampParts) -> String {
    let mut text = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second
    );
    if parts.microsecond != 0 {
        text.push_str(&format!(".{:06}", parts.microsecond));
    }
    if let Some(offset) = parts.offset_minutes {
        let sign = if offset < 0 { '-' } else { '+' };
        let abs = offset.unsigned_abs();
        text.push_str(&format!("{sign}{:02}:{:02}", abs / 60, abs % 60));
    }
    text
}
