//! What a conversion could not carry: every value dropped, invented or changed, at its JSON path.
//!
//! The "to" directions find their losses by difference: the history is converted, read back with
//! the format's "from", and every value that did not survive is reported at its path in the
//! history. The report is then exactly what the format cannot hold, whatever the history holds.

use std::fmt;

use msgflow_media::UrlKind;
use serde::Serialize;
use serde_json::{Map, Value};

/// What happened to a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// The input holds it and the output does not.
    Dropped,
    /// The output holds a value the input did not give (made up, or left for pydantic-ai to fill
    /// in at load time, such as timestamps).
    Invented,
    /// The output holds it differently (an object written as its JSON text, a part of another kind).
    Changed,
}

impl fmt::Display for LossKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LossKind::Dropped => "dropped",
            LossKind::Invented => "invented",
            LossKind::Changed => "changed",
        })
    }
}

/// One value a conversion did not carry over as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loss {
    /// Dropped, invented or changed.
    pub kind: LossKind,
    /// The document of the input (0 unless the input is JSON Lines: its line's document index).
    pub document: usize,
    /// The JSON path of the value in that document of the input.
    pub path: String,
    /// What it is, without indices, so that losses of one kind group together.
    pub what: String,
}

/// Everything a conversion dropped, invented or changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The losses, in input order.
    pub losses: Vec<Loss>,
}

/// Losses of one kind and description, counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LossGroup {
    /// Dropped, invented or changed.
    pub kind: LossKind,
    /// What was lost.
    pub what: String,
    /// How many times.
    pub count: usize,
    /// The first place it happened: (document, JSON path).
    pub first: (usize, String),
}

impl Report {
    /// Whether the conversion carried everything over.
    pub fn is_lossless(&self) -> bool {
        self.losses.is_empty()
    }

    /// The paths of the losses of one kind, in input order.
    ///
    /// ```
    /// use msgflow_formats::{convert, Format, LossKind};
    ///
    /// let chat = r#"[{"role": "user", "name": "ann", "content": "hi"}]"#;
    /// let converted = convert(chat, Format::OpenAiChat, Format::PydanticAi).unwrap();
    /// assert_eq!(converted.report.paths(LossKind::Dropped), ["$[0].name"]);
    /// ```
    pub fn paths(&self, kind: LossKind) -> Vec<&str> {
        self.losses
            .iter()
            .filter(|loss| loss.kind == kind)
            .map(|loss| loss.path.as_str())
            .collect()
    }

    pub(crate) fn push(&mut self, kind: LossKind, document: usize, path: impl Into<String>, what: impl Into<String>) {
        self.losses.push(Loss {
            kind,
            document,
            path: path.into(),
            what: what.into(),
        });
    }

    /// The losses grouped by kind and description, in order of first occurrence.
    pub fn groups(&self) -> Vec<LossGroup> {
        let mut groups: Vec<LossGroup> = Vec::new();
        for loss in &self.losses {
            match groups
                .iter_mut()
                .find(|group| group.kind == loss.kind && group.what == loss.what)
            {
                Some(group) => group.count += 1,
                None => groups.push(LossGroup {
                    kind: loss.kind,
                    what: loss.what.clone(),
                    count: 1,
                    first: (loss.document, loss.path.clone()),
                }),
            }
        }
        groups
    }
}

/// Reports every difference between `original` (a history's JSON) and `back` (the same history
/// after a trip through a format), at its path in `original`.
///
/// What pydantic-ai loads alike is no difference (the crate README lists it; `cargo xtask
/// conformance --only "loss reports"` holds the report to pydantic-ai): a key one side leaves out
/// where the other holds its default (`null`, an all-zero usage, the schema's default for that key
/// of that kind of object: a tool return's `outcome` of `success`), a file item's computed
/// `identifier` or inferred `media_type`, a legacy retry prompt that comes back as the part
/// pydantic-ai loads it as, a number spelled otherwise. Tool-call `args` and tool-return `content`
/// that come back as the JSON text of the original value are reported as changed, not dropped.
pub(crate) fn diff(original: &Value, back: &Value, document: usize, report: &mut Report) {
    let mut path = String::from("$");
    diff_at(original, back, &mut path, "history", document, report);
}

/// [`diff`] of two histories' JSON messages, where `back[i]` is `None` for a message known to
/// have come back equal to `original[i]` (so it is neither compared nor built).
pub(crate) fn diff_messages(original: &[Value], back: &[Option<Value>], document: usize, report: &mut Report) {
    for (index, (left_value, right_value)) in original.iter().zip(back).enumerate() {
        if let Some(right_value) = right_value {
            diff_message(index, left_value, right_value, document, report);
        }
    }
    for (index, missing) in original.iter().enumerate().skip(back.len()) {
        dropped_message(index, missing, document, report);
    }
    for (index, extra) in back.iter().enumerate().skip(original.len()) {
        invented_message(index, extra.as_ref(), document, report);
    }
}

/// [`diff`] of message `index` of two histories, `original` and `back`.
pub(crate) fn diff_message(index: usize, original: &Value, back: &Value, document: usize, report: &mut Report) {
    let mut path = format!("$[{index}]");
    diff_at(original, back, &mut path, "history", document, report);
}

/// Message `index` of the original history, which did not come back.
pub(crate) fn dropped_message(index: usize, missing: &Value, document: usize, report: &mut Report) {
    let what = kind_of(missing).unwrap_or("history");
    report.push(
        LossKind::Dropped,
        document,
        format!("$[{index}]"),
        format!("a `{what}`"),
    );
}

/// Message `index` of the history that came back, past the original's end.
pub(crate) fn invented_message(index: usize, extra: Option<&Value>, document: usize, report: &mut Report) {
    let what = extra.and_then(kind_of).unwrap_or("history");
    report.push(
        LossKind::Invented,
        document,
        format!("$[{index}]"),
        format!("a `{what}`"),
    );
}

fn diff_at(original: &Value, back: &Value, path: &mut String, owner: &str, document: usize, report: &mut Report) {
    if !same_value(original, back) {
        diff_differing(original, back, path, owner, document, report);
    }
}

/// [`diff_at`] of two values known not to be the [`same_value`].
fn diff_differing(
    original: &Value,
    back: &Value,
    path: &mut String,
    owner: &str,
    document: usize,
    report: &mut Report,
) {
    match (original, back) {
        (Value::Object(left), Value::Object(right)) => {
            let original_kind = kind_of(original);
            let back_kind = kind_of(back);
            let owner_kind = original_kind.unwrap_or(owner);
            if original_kind != back_kind {
                // pydantic-ai loads a legacy retry prompt as the part it meant
                // (`_translate_legacy_retry_part`): that part is what has to come back.
                if original_kind == Some("retry-prompt") {
                    if let Some(translated) = crate::ui_payloads::legacy_retry_as_loaded(original)
                        .filter(|translated| kind_of(translated) == back_kind)
                    {
                        if !same_value(&translated, back) {
                            diff_differing(&translated, back, path, owner, document, report);
                        }
                        return;
                    }
                }
                report.push(
                    LossKind::Changed,
                    document,
                    path.clone(),
                    format!("a `{}` became a `{}`", owner_kind, back_kind.unwrap_or("?")),
                );
                return;
            }
            // The keys of `right` that `left` holds too: when that is all of them, `right` has no
            // key of its own to report.
            let mut shared = 0;
            let mut right_in_order = right.iter();
            for (key, left_value) in left {
                let found = same_place_field(right, right_in_order.next(), key);
                shared += usize::from(found.is_some());
                let right_value = found.unwrap_or(&Value::Null);
                if same_value(left_value, right_value)
                    || found.is_none() && is_schema_default(original_kind, key, left_value)
                    || right_value.is_null() && is_computed_default(left, original_kind, key, left_value)
                {
                    continue;
                }
                let length = path.len();
                push_key(path, key);
                if right_value.is_null() {
                    report.push(
                        LossKind::Dropped,
                        document,
                        path.clone(),
                        format!("`{key}` of a `{owner_kind}`"),
                    );
                } else if left_value.is_null() {
                    if !is_computed_default(right, original_kind, key, right_value) {
                        report.push(
                            LossKind::Invented,
                            document,
                            path.clone(),
                            format!("`{key}` of a `{owner_kind}`"),
                        );
                    }
                } else if is_json_text_of(right_value, left_value) {
                    report.push(
                        LossKind::Changed,
                        document,
                        path.clone(),
                        format!("`{key}` of a `{owner_kind}` written as its JSON text"),
                    );
                } else if left_value.is_object() && right_value.is_object()
                    || left_value.is_array() && right_value.is_array()
                {
                    diff_differing(
                        left_value,
                        right_value,
                        path,
                        &format!("{owner_kind}.{key}"),
                        document,
                        report,
                    );
                } else {
                    report.push(
                        LossKind::Changed,
                        document,
                        path.clone(),
                        format!("`{key}` of a `{owner_kind}`"),
                    );
                }
                path.truncate(length);
            }
            if shared == right.len() {
                return;
            }
            for (key, right_value) in right {
                if crate::object::field(left, key).is_none()
                    && !is_default(right_value)
                    && !is_schema_default(original_kind, key, right_value)
                    && !is_computed_default(right, original_kind, key, right_value)
                {
                    let length = path.len();
                    push_key(path, key);
                    report.push(
                        LossKind::Invented,
                        document,
                        path.clone(),
                        format!("`{key}` of a `{owner_kind}`"),
                    );
                    path.truncate(length);
                }
            }
        }
        (Value::Array(left), Value::Array(right)) => {
            for (index, (left_value, right_value)) in left.iter().zip(right).enumerate() {
                if !same_value(left_value, right_value) {
                    let length = path.len();
                    push_index(path, index);
                    diff_differing(left_value, right_value, path, owner, document, report);
                    path.truncate(length);
                }
            }
            for (index, missing) in left.iter().enumerate().skip(right.len()) {
                let what = kind_of(missing).unwrap_or(owner);
                report.push(
                    LossKind::Dropped,
                    document,
                    format!("{path}[{index}]"),
                    format!("a `{what}`"),
                );
            }
            for (index, extra) in right.iter().enumerate().skip(left.len()) {
                let what = kind_of(extra).unwrap_or(owner);
                report.push(
                    LossKind::Invented,
                    document,
                    format!("{path}[{index}]"),
                    format!("a `{what}`"),
                );
            }
        }
        _ => report.push(
            LossKind::Changed,
            document,
            path.clone(),
            format!("the value of a `{owner}`"),
        ),
    }
}

/// `map.get(key)`, where `at_same_place` is the entry of `map` at the place `key` has in the
/// other object: both sides of a diff are usually written in the same key order, so the key is
/// compared there first instead of looked up (serde_json's maps hash every lookup).
fn same_place_field<'m>(
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
fn same_value(original: &Value, back: &Value) -> bool {
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

/// Whether a value is the default pydantic-ai fills in for a key left out (`null`, zero, empty,
/// or an object of such values, as an all-zero usage).
fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(flag) => !flag,
        Value::Number(number) => number.as_f64() == Some(0.0),
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
            // An object defaulted whole (a response's `usage`) is its fields' defaults.
            same_value(&default, value) || default.is_object() && value.is_object() && is_default(value)
        })
}

/// Whether `value` is what pydantic-ai computes for `key` of the file item `item` (of kind `kind`)
/// when the key is left out or `null`: its `identifier`, a hash of its URL, data or file id
/// (`_multi_modal_content_identifier`), or a URL item's `media_type`, inferred from the URL. Both
/// are computed fields, dumped as computed, so an item that holds them as computed loads and
/// dumps as one without them.
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
        ("media_type", Some(url_kind)) => text_of("url")
            .and_then(|url| msgflow_media::url_item_media_type(url_kind, None, url))
            .is_some_and(|inferred| inferred == text),
        ("identifier", None) if kind == "binary" => crate::object::field(item, "data")
            .and_then(crate::binary_bytes)
            .is_some_and(|data| msgflow_media::identifier_for_bytes(&data) == text),
        ("identifier", None) if kind == "uploaded-file" => {
            text_of("file_id").is_some_and(|file_id| msgflow_media::identifier_for_file_id(file_id) == text)
        }
        _ => false,
    }
}

/// The kind a history object declares: its `part_kind` or `kind` (`user-prompt`, `request`, `image-url`).
fn kind_of(value: &Value) -> Option<&str> {
    let object = value.as_object()?;
    crate::object::field(object, "part_kind")
        .or_else(|| crate::object::field(object, "kind"))
        .and_then(Value::as_str)
}

fn is_json_text_of(text: &Value, value: &Value) -> bool {
    match text.as_str() {
        Some(text) if !value.is_string() => {
            serde_json::from_str::<Value>(text).is_ok_and(|parsed| same_value(&parsed, value))
        }
        _ => false,
    }
}

/// Appends `[index]` to a JSON path.
fn push_index(path: &mut String, index: usize) {
    use std::fmt::Write as _;
    write!(path, "[{index}]").expect("writing to a String cannot fail");
}

/// Appends `.key` (or `["key"]` for a key that is not a plain name) to a JSON path.
pub(crate) fn push_key(path: &mut String, key: &str) {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        path.push('.');
        path.push_str(key);
    } else {
        path.push('[');
        path.push_str(&serde_json::to_string(key).expect("a string always serialises"));
        path.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds_and_paths(report: &Report) -> Vec<(LossKind, &str)> {
        report
            .losses
            .iter()
            .map(|loss| (loss.kind, loss.path.as_str()))
            .collect()
    }

    #[test]
    fn differences_are_reported_at_their_path_by_kind() {
        let original = json!([{"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": "f", "args": {"a": 1}, "id": "x"}
        ], "timestamp": "2025-01-01T00:00:00Z", "model_name": null}]);
        let back = json!([{"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": "f", "args": "{\"a\":1}", "id": null}
        ], "provider_name": "openai"}]);
        let mut report = Report::default();
        diff(&original, &back, 0, &mut report);
        let found = kinds_and_paths(&report);
        assert_eq!(
            found,
            [
                (LossKind::Changed, "$[0].parts[0].args"),
                (LossKind::Dropped, "$[0].parts[0].id"),
                (LossKind::Dropped, "$[0].timestamp"),
                (LossKind::Invented, "$[0].provider_name"),
            ]
        );
        assert_eq!(report.losses[1].what, "`id` of a `tool-call`");
    }

    #[test]
    fn key_order_and_number_spelling_are_no_difference() {
        let original = json!([{"kind": "request", "parts": [], "usage": {"a": 1e5, "b": [2.5e0, -0]}, "x": null}]);
        let back = json!([{"usage": {"b": [2.5, 0], "a": 100000.0}, "parts": [], "kind": "request", "z": 0}]);
        let mut report = Report::default();
        diff(&original, &back, 0, &mut report);
        assert!(report.is_lossless(), "{:?}", report.losses);
        let back = json!([{"usage": {"b": [2.5, 0], "a": 100001}, "parts": [], "kind": "request", "z": 1}]);
        diff(&original, &back, 0, &mut report);
        let found = kinds_and_paths(&report);
        assert_eq!(
            found,
            [(LossKind::Changed, "$[0].usage.a"), (LossKind::Invented, "$[0].z")]
        );
    }

    #[test]
    fn a_key_left_out_for_its_schema_default_is_no_difference() {
        // Histories older pydantic-ai wrote have no `outcome` or `scope`; the read-back writes the
        // defaults pydantic-ai loads them as, and the other way round.
        let original = json!([{"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": "f", "content": "x"},
            {"part_kind": "system-prompt", "content": "s", "scope": "conversation"},
        ], "state": "complete"}]);
        let back = json!([{"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": "f", "content": "x", "outcome": "success"},
            {"part_kind": "system-prompt", "content": "s"},
        ]}]);
        let mut report = Report::default();
        diff(&original, &back, 0, &mut report);
        assert!(report.is_lossless(), "{:?}", report.losses);

        // Another value, or the default of another kind's key, is a difference.
        let back = json!([{"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": "f", "content": "x", "outcome": "failed", "scope": "conversation"},
            {"part_kind": "system-prompt", "content": "s", "scope": "request"},
        ], "state": "interrupted"}]);
        diff(&original, &back, 0, &mut report);
        assert_eq!(
            kinds_and_paths(&report),
            [
                (LossKind::Invented, "$[0].parts[0].outcome"),
                (LossKind::Invented, "$[0].parts[0].scope"),
                (LossKind::Changed, "$[0].parts[1].scope"),
                (LossKind::Changed, "$[0].state"),
            ]
        );
    }

    #[test]
    fn a_file_item_s_computed_identifier_and_media_type_are_no_difference() {
        // pydantic-ai dumps `identifier` and a URL item's `media_type` as computed; an item read
        // back without them computes the same ones.
        let url = "https://example.com/paris.jpg";
        let original = json!([{"part_kind": "user-prompt", "content": [
            {"kind": "image-url", "url": url, "media_type": "image/jpeg", "identifier": "d8ea78"},
            {"kind": "binary", "data": "aGk=", "media_type": "text/plain", "identifier": msgflow_media::identifier_for_bytes(b"hi")},
            {"kind": "image-url", "url": url, "media_type": "image/png", "identifier": "mine"},
        ]}]);
        assert_eq!(msgflow_media::identifier_for_url(url), "d8ea78");
        let back = json!([{"part_kind": "user-prompt", "content": [
            {"kind": "image-url", "url": url, "media_type": null, "identifier": null},
            {"kind": "binary", "data": "aGk=", "media_type": "text/plain"},
            {"kind": "image-url", "url": url},
        ]}]);
        let mut report = Report::default();
        diff(&original, &back, 0, &mut report);
        // An explicit value other than the computed one is lost.
        assert_eq!(
            kinds_and_paths(&report),
            [
                (LossKind::Dropped, "$[0].content[2].media_type"),
                (LossKind::Dropped, "$[0].content[2].identifier"),
            ]
        );
        // The other way round: computed values written where the history had none.
        let mut report = Report::default();
        diff(&back, &original, 0, &mut report);
        assert_eq!(
            kinds_and_paths(&report),
            [
                (LossKind::Invented, "$[0].content[2].media_type"),
                (LossKind::Invented, "$[0].content[2].identifier"),
            ]
        );
    }

    #[test]
    fn a_legacy_retry_prompt_is_compared_as_the_part_pydantic_ai_loads_it_as() {
        let original = json!([{"kind": "request", "parts": [
            {"part_kind": "retry-prompt", "content": "try again"},
            {"part_kind": "retry-prompt", "content": "bad", "tool_name": "f", "tool_call_id": "c"},
        ]}]);
        let back = json!([{"kind": "request", "parts": [
            {"part_kind": "retry-feedback", "content": "try again", "retry": {"cause": "model_retry"}},
            {"part_kind": "tool-return", "tool_name": "f", "content": "bad", "tool_call_id": "c", "outcome": "retried"},
        ]}]);
        let mut report = Report::default();
        diff(&original, &back, 0, &mut report);
        assert!(report.is_lossless(), "{:?}", report.losses);
        // What does not come back as the translation is reported on it.
        let back = json!([{"kind": "request", "parts": [
            {"part_kind": "retry-feedback", "content": "try later", "retry": {"cause": "model_retry"}},
            {"part_kind": "user-prompt", "content": "bad"},
        ]}]);
        diff(&original, &back, 0, &mut report);
        assert_eq!(
            kinds_and_paths(&report),
            [
                (LossKind::Changed, "$[0].parts[0].content"),
                (LossKind::Changed, "$[0].parts[1]")
            ]
        );
        assert_eq!(report.losses[1].what, "a `retry-prompt` became a `user-prompt`");
    }

    #[test]
    fn a_part_of_another_kind_is_one_change_and_missing_parts_are_dropped() {
        let original = json!([{"part_kind": "user-prompt", "content": "a"}, {"part_kind": "text", "content": "b"}]);
        let back = json!([{"part_kind": "system-prompt", "content": "a"}]);
        let mut report = Report::default();
        diff(&original, &back, 3, &mut report);
        assert_eq!(report.losses.len(), 2);
        assert_eq!(report.losses[0].what, "a `user-prompt` became a `system-prompt`");
        assert_eq!(
            (report.losses[1].kind, report.losses[1].document),
            (LossKind::Dropped, 3)
        );
        assert_eq!(report.groups()[1].what, "a `text`");
    }
}
