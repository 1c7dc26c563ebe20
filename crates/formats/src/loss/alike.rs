//! What pydantic-ai loads alike though it is written otherwise: the judgements the loss diff
//! ([`super::diff`]) makes of two values before it reports them, each mirroring what pydantic-ai
//! does on load (defaults, computed fields, legacy names, spellings, a tool result's file record).
//! `cargo xtask conformance --only "loss reports"` holds them to pydantic-ai itself.

use msgflow_media::UrlKind;
use serde_json::{Map, Value};

/// Where the diff compares two objects: the kind of the object (its tag, or the tag the other side
/// writes where the type implies it), what holds it (`response.usage`, for an object without a
/// tag), and whether it lies in data pydantic-ai keeps as written (`msgflow_wire::holds_data`),
/// where every key and value is the data's own and none is a default.
#[derive(Clone, Copy)]
pub(super) struct Place<'a> {
    pub(super) kind: Option<&'a str>,
    pub(super) owner: &'a str,
    pub(super) data: bool,
}

impl Place<'_> {
    /// Whether `left`'s `key`, of value `left_value`, loads as `right`'s does: `found` there, or
    /// left out (`None`).
    pub(super) fn kept(&self, left: &Map<String, Value>, key: &str, left_value: &Value, found: Option<&Value>) -> bool {
        let Place { kind, owner, data } = *self;
        // A key the data lost is lost whatever its value; so is one pydantic-ai writes only when given.
        if found.is_none() && (data || msgflow_wire::written_only_when_given(kind, key)) {
            return false;
        }
        let right_value = found.unwrap_or(&Value::Null);
        same_value(left_value, right_value)
            || found.is_none()
                && (is_left_out_default(kind, owner, key, left_value) || is_schema_default(kind, key, left_value))
            || !data && right_value.is_null() && is_computed_default(left, kind, key, left_value)
            || !data && loads_alike(kind, owner, key, left_value, right_value)
            || !data && is_rendered_on_load(left, kind, key, right_value)
    }

    /// Whether `value`, which `item` holds for `key` where the other side holds `null`, is what
    /// pydantic-ai computes for the key ([`is_computed_default`]).
    pub(super) fn computed(&self, item: &Map<String, Value>, key: &str, value: &Value) -> bool {
        !self.data && is_computed_default(item, self.kind, key, value)
    }

    /// Whether `value`, which `right` holds for a `key` `left` leaves out, is what pydantic-ai fills
    /// in for `left` without it (or reads from `left` under a legacy name).
    pub(super) fn filled_in(
        &self,
        left: &Map<String, Value>,
        right: &Map<String, Value>,
        key: &str,
        value: &Value,
    ) -> bool {
        let Place { kind, owner, data } = *self;
        !data
            && (holds_under_legacy_name(left, kind, key)
                || !msgflow_wire::written_only_when_given(kind, key)
                    && (is_left_out_default(kind, owner, key, value)
                        || is_schema_default(kind, key, value)
                        || is_computed_default(right, kind, key, value)
                        || loads_alike(kind, owner, key, &Value::Null, value)
                        || is_routed_tool_name(left, kind, key, value)))
    }

    /// The value of the field `right` holds where `left` gives it under its legacy name `key`
    /// (`msgflow_wire::legacy_alias_of`: a response's `vendor_id`, a usage's `request_tokens`),
    /// which pydantic-ai reads as that field when `left` does not hold the field itself.
    pub(super) fn read_as<'m>(
        &self,
        left: &Map<String, Value>,
        right: &'m Map<String, Value>,
        key: &str,
    ) -> Option<&'m Value> {
        if self.data {
            return None;
        }
        let field = msgflow_wire::legacy_alias_of(self.kind, key)?;
        if crate::object::field(left, field).is_some() {
            return None;
        }
        crate::object::field(right, field)
    }
}

/// `map.get(key)`, where `at_same_place` is the entry of `map` at the place `key` has in the
/// other object: both sides of a diff are usually written in the same key order, so the key is
/// compared there first instead of looked up (serde_json's maps hash every lookup).
pub(super) fn same_place_field<'m>(
    map: &'m serde_json::Map<String, Value>,
    at_same_place: Option<(&'m String, &'m Value)>,
    key: &str,
) -> Option<&'m Value> {
    match at_same_place {
        Some((name, value)) if name == key => Some(value),
        _ => crate::object::field(map, key),
    }
}

/// Equal, or numbers Python reads as the same (`1e5` and `100000.0`, `-0` and `0`): a number
/// written as pydantic-ai writes the one it read is no change (msgflow keeps a history's numbers
/// as written, pydantic-ai re-dumps them). Objects are equal whatever the order of their keys.
pub(super) fn same_value(original: &Value, back: &Value) -> bool {
    match (original, back) {
        (Value::Number(_), Value::Number(_)) => {
            original == back || msgflow_providers::python_json(original) == msgflow_providers::python_json(back)
        }
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len() && left.iter().zip(right).all(|(left, right)| same_value(left, right))
        }
        (Value::Object(left), Value::Object(right)) => {
            let mut right_in_order = right.iter();
            left.len() == right.len()
                && left.iter().all(|(key, left)| {
                    same_place_field(right, right_in_order.next(), key).is_some_and(|right| same_value(left, right))
                })
        }
        _ => original == back,
    }
}

/// Whether `value`, of `key` that an object of kind `kind` (held by `owner`) leaves out, is what
/// pydantic-ai fills in for any such key: `null`, or in a usage, whose counters default to zero,
/// any [`is_default`] value or a counter zero however spelled (`"0"`). A tagged object's other
/// defaults are the schema's ([`is_schema_default`]).
fn is_left_out_default(kind: Option<&str>, owner: &str, key: &str, value: &Value) -> bool {
    match kind {
        None if owner.ends_with(".usage") => {
            is_default(value)
                || msgflow_wire::lax_scalar(None, key).is_some_and(|scalar| scalar.reads_alike(&Value::from(0), value))
        }
        _ => value.is_null(),
    }
}

/// Whether a value is the default pydantic-ai fills in for a key left out (`null`, zero, empty,
/// or an object of such values, as an all-zero usage).
fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(flag) => !flag,
        // `-0.0` is no default: Python keeps, and writes, its sign.
        Value::Number(_) => matches!(msgflow_providers::python_json(value).as_str(), "0" | "0.0"),
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(object) => object.values().all(is_default),
    }
}

/// Whether `value` is the default the schema gives `key` of an object of kind `kind` (a tool
/// return's `outcome` of `success`, a system prompt's `scope` of `conversation`, a response's
/// `usage` of zeros): pydantic-ai loads the key left out as that value.
fn is_schema_default(kind: Option<&str>, key: &str, value: &Value) -> bool {
    kind.and_then(|kind| msgflow_wire::schema_default(kind, key))
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .is_some_and(|default| {
            // An object defaulted whole (a response's `usage`) is its fields' defaults; a scalar
            // may be spelled as pydantic-ai reads it (`top_level: "off"`).
            same_value(&default, value)
                || default.is_object() && value.is_object() && is_default(value)
                || msgflow_wire::lax_scalar(kind, key).is_some_and(|scalar| scalar.reads_alike(&default, value))
        })
}

/// Whether `value` is what pydantic-ai computes for `key` of the file item `item` (of kind `kind`)
/// when the key is left out or `null`: its `identifier`, a hash of its URL, data or file id
/// (`_multi_modal_content_identifier`), or a URL item's or an uploaded file's `media_type`, inferred
/// from the URL or the file id. Both
/// are computed fields, dumped as computed, so an item that holds them as computed loads and
/// dumps as one without them. (A tool return's `content_file_digests` is judged with its content,
/// [`tool_return_as_loaded`]: an empty record and none load a content's files otherwise.)
fn is_computed_default(item: &Map<String, Value>, kind: Option<&str>, key: &str, value: &Value) -> bool {
    let (Some(kind), Some(text)) = (kind, value.as_str()) else {
        return false;
    };
    let text_of = |name: &str| crate::object::field(item, name).and_then(Value::as_str);
    let url_kind = match kind {
        "image-url" => Some(UrlKind::Image),
        "audio-url" => Some(UrlKind::Audio),
        "video-url" => Some(UrlKind::Video),
        "document-url" => Some(UrlKind::Document),
        _ => None,
    };
    match (key, url_kind) {
        ("identifier", Some(_)) => text_of("url").is_some_and(|url| msgflow_media::identifier_for_url(url) == text),
        // An empty override is none: the media type is inferred (`_infer_media_type`).
        ("media_type", Some(url_kind)) => {
            text.is_empty()
                || text_of("url")
                    .and_then(|url| msgflow_media::url_item_media_type(url_kind, None, url))
                    .is_some_and(|inferred| inferred == text)
        }
        ("identifier", None) if kind == "binary" => crate::object::field(item, "data")
            .and_then(crate::binary_bytes)
            .is_some_and(|data| msgflow_media::identifier_for_bytes(&data) == text),
        ("identifier", None) if kind == "uploaded-file" => {
            text_of("file_id").is_some_and(|file_id| msgflow_media::identifier_for_file_id(file_id) == text)
        }
        // `UploadedFile.media_type`: inferred from the file id's path.
        ("media_type", None) if kind == "uploaded-file" => text_of("file_id")
            .and_then(|file_id| msgflow_media::uploaded_file_item_media_type(None, file_id).ok())
            .is_some_and(|inferred| inferred == text),
        _ => false,
    }
}

/// Whether `left` gives the field `field` under a legacy name ([`Place::read_as`]).
fn holds_under_legacy_name(left: &Map<String, Value>, kind: Option<&str>, field: &str) -> bool {
    left.keys()
        .any(|key| msgflow_wire::legacy_alias_of(kind, key) == Some(field))
}

/// Whether `value` is the `content` pydantic-ai renders for the structured-content item `item` (of
/// kind `kind`) stored with an empty one (`StructuredContent.__post_init__`: `render`, its default
/// JSON).
fn is_rendered_on_load(item: &Map<String, Value>, kind: Option<&str>, key: &str, value: &Value) -> bool {
    let field = |name: &str| crate::object::field(item, name);
    if kind != Some("structured-content") || key != "content" || field("content").is_some_and(|content| content != "") {
        return false;
    }
    let text = |name: &str| field(name).and_then(Value::as_str);
    msgflow_media::rendered_on_load(field("value").unwrap_or(&Value::Null), text("tag"), text("description"))
        .is_ok_and(|rendered| Some(rendered.as_str()) == value.as_str())
}

/// Whether `value` is the `tool_name` pydantic-ai gives the tool part `part` (of kind `kind`) that
/// leaves it out: the one name of the typed class its `tool_kind` routes it to
/// (`msgflow_wire::TypedRoute`: a `tool-search` call is a `ToolSearchCallPart`, `search_tools`).
fn is_routed_tool_name(part: &Map<String, Value>, kind: Option<&str>, key: &str, value: &Value) -> bool {
    let text_of = |name: &str| crate::object::field(part, name).and_then(Value::as_str);
    key == "tool_name"
        && kind
            .zip(text_of("tool_kind"))
            .and_then(|(kind, tool_kind)| msgflow_wire::TypedRoute::find(kind, tool_kind))
            .is_some_and(|route| {
                Some(route.tool_name) == value.as_str()
                    && (!route.outcome_success_only || text_of("outcome").is_none_or(|outcome| outcome == "success"))
            })
}

/// Whether two values of `key` (in an object of kind `kind`, or, without one, held by `owner`)
/// load alike though they are written otherwise (`null` standing for a key left out): timestamps
/// of the same instant and offset (`2025-01-01T00:00:00.000Z` and `2025-01-01T00:00:00Z`), a
/// binary item's data in either base64 alphabet, padded or not (`BinaryContent`'s validator), and
/// a usage's `details` that are both empty or falsy (`usage._with_legacy_defaults` makes them `{}`),
/// and a scalar field pydantic-ai reads in lax mode (`msgflow_wire::lax_scalar`) written in two
/// spellings of one value (`"off"` and `false`, `5.0` and `5`).
fn loads_alike(kind: Option<&str>, owner: &str, key: &str, left: &Value, right: &Value) -> bool {
    match key {
        "timestamp" => {
            let parts = |value: &Value| {
                let text = match value {
                    Value::String(text) => text.clone(),
                    Value::Number(number) => number.to_string(),
                    _ => return None,
                };
                msgflow_wire::Timestamp::parse(&text).ok()?.parts()
            };
            parts(left).is_some_and(|left| parts(right) == Some(left))
        }
        "data" if kind == Some("binary") => {
            crate::binary_bytes(left).is_some_and(|left| crate::binary_bytes(right) == Some(left))
        }
        "details" if kind.is_none() && owner.ends_with(".usage") => {
            let falsy = |value: &Value| match value {
                Value::Object(object) => object.is_empty(),
                value => is_default(value),
            };
            falsy(left) && falsy(right)
        }
        _ => msgflow_wire::lax_scalar(kind, key).is_some_and(|scalar| scalar.reads_alike(left, right)),
    }
}

/// A tool return `part` as pydantic-ai loads and dumps it: the objects of its content that load
/// as file items (`ToolReturnContent`, under the part's `content_file_digests` record) as their
/// dumps, and the record written again from them (`_RecordsContentFiles`): the digests of the
/// items rebuilt, for content that is no string, number, boolean or null, and none otherwise.
pub(super) fn tool_return_as_loaded(part: &Value) -> Value {
    use crate::otel::tool_content::{rebuilt_file_digests, recorded, FileRecord};
    let Value::Object(object) = part else {
        return part.clone();
    };
    let mut loaded = object.clone();
    if let Some(content) = object.get("content") {
        let record = FileRecord::of(part);
        let digests = rebuilt_file_digests(content, &record);
        let content = recorded(content, &record);
        if msgflow_media::content_needs_file_digests(&content) {
            loaded.insert("content_file_digests".into(), digests.into());
        } else {
            loaded.shift_remove("content_file_digests");
        }
        loaded.insert("content".into(), content);
    }
    Value::Object(loaded)
}
