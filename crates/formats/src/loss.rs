//! What a conversion could not carry: every value dropped, invented or changed, at its JSON path.
//!
//! The "to" directions find their losses by difference: the history is converted, read back with
//! the format's "from", and every value that did not survive is reported at its path in the
//! history. The report is then exactly what the format cannot hold, whatever the history holds.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

mod alike;

use alike::{same_place_field, same_value, tool_return_as_loaded, Place};

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
        diff_differing(original, back, path, owner, false, document, report);
    }
}

/// [`diff_at`] of two values known not to be the [`same_value`]. Within `data` (a value
/// pydantic-ai keeps as written: `msgflow_wire::holds_data`), a key left out is no default: the
/// data's keys and values are its own.
fn diff_differing(
    original: &Value,
    back: &Value,
    path: &mut String,
    owner: &str,
    data: bool,
    document: usize,
    report: &mut Report,
) {
    match (original, back) {
        (Value::Object(left), Value::Object(right)) => {
            let back_kind = kind_of(back);
            // An object without its tag where the type is known (a file part's `BinaryContent`)
            // loads as the kind the other side writes.
            let implied_tag = (!data && kind_of(original).is_none() && back_kind.is_some()).then(|| {
                if right.contains_key("part_kind") {
                    "part_kind"
                } else {
                    "kind"
                }
            });
            let original_kind = if implied_tag.is_some() {
                back_kind
            } else {
                kind_of(original)
            };
            let owner_kind = original_kind.unwrap_or(owner);
            if original_kind != back_kind {
                // pydantic-ai loads a legacy retry prompt as the part it meant
                // (`_translate_legacy_retry_part`): that part is what has to come back.
                if original_kind == Some("retry-prompt") {
                    if let Some(translated) = crate::ui_payloads::legacy_retry_as_loaded(original)
                        .filter(|translated| kind_of(translated) == back_kind)
                    {
                        if !same_value(&translated, back) {
                            diff_differing(&translated, back, path, owner, data, document, report);
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
            // Tool returns are compared as pydantic-ai loads them: their content's file items
            // rebuilt, and the record of them it writes.
            let loaded = (!data && matches!(original_kind, Some("tool-return" | "builtin-tool-return")))
                .then(|| (tool_return_as_loaded(original), tool_return_as_loaded(back)));
            let (left, right) = match &loaded {
                Some((left, right)) if same_value(left, right) => return,
                Some((Value::Object(left), Value::Object(right))) => (left, right),
                _ => (left, right),
            };
            let place = Place {
                kind: original_kind,
                owner,
                data,
            };
            // The keys of `right` that `left` holds too: when that is all of them, `right` has no
            // key of its own to report.
            let mut shared = 0;
            let mut right_in_order = right.iter();
            for (key, left_value) in left {
                let found =
                    same_place_field(right, right_in_order.next(), key).or_else(|| place.read_as(left, right, key));
                shared += usize::from(found.is_some());
                if place.kept(left, key, left_value, found) {
                    continue;
                }
                let right_value = found.unwrap_or(&Value::Null);
                let length = path.len();
                push_key(path, key);
                if found.is_none() || right_value.is_null() {
                    report.push(
                        LossKind::Dropped,
                        document,
                        path.clone(),
                        format!("`{key}` of a `{owner_kind}`"),
                    );
                } else if left_value.is_null() {
                    if !place.computed(right, key, right_value) {
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
                        data || msgflow_wire::holds_data(original_kind, key),
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
                    && implied_tag != Some(key.as_str())
                    && !place.filled_in(left, right, key, right_value)
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
                    diff_differing(left_value, right_value, path, owner, data, document, report);
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

/// `path` and one key further: `.key`, or `["key"]` for a key that is not a plain name.
pub(crate) fn key_path(path: &str, key: &str) -> String {
    let mut path = path.to_owned();
    push_key(&mut path, key);
    path
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
        let back = json!([{"usage": {"b": [2.5, 0], "a": 100000.0}, "parts": [], "kind": "request", "z": null}]);
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
            {"kind": "uploaded-file", "file_id": "files/x/report.pdf", "provider_name": "openai",
             "media_type": "application/pdf"},
        ]}]);
        assert_eq!(msgflow_media::identifier_for_url(url), "d8ea78");
        let back = json!([{"part_kind": "user-prompt", "content": [
            {"kind": "image-url", "url": url, "media_type": null, "identifier": null},
            {"kind": "binary", "data": "aGk=", "media_type": "text/plain"},
            {"kind": "image-url", "url": url},
            // An uploaded file's media type is inferred from its file id (found by a seeded run of
            // the loss-report check, through `to openai-chat`, which sends no media type).
            {"kind": "uploaded-file", "file_id": "files/x/report.pdf", "provider_name": "openai", "media_type": null},
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

    /// The paths `diff` reports for one request holding `original`'s parts, against `back`'s.
    fn part_diff(original: Value, back: Value) -> Vec<(LossKind, String)> {
        let mut report = Report::default();
        diff(
            &json!([{"kind": "request", "parts": [original]}]),
            &json!([{"kind": "request", "parts": [back]}]),
            0,
            &mut report,
        );
        report.losses.into_iter().map(|loss| (loss.kind, loss.path)).collect()
    }

    #[test]
    fn within_data_a_key_left_out_is_a_loss_whatever_its_value() {
        // pydantic-ai keeps `metadata` as written: `{"a": null}` and `{}` are two dicts.
        let found = part_diff(
            json!({"part_kind": "tool-return", "tool_name": "f", "content": {"rows": [], "n": 0}, "metadata": {"a": null}}),
            json!({"part_kind": "tool-return", "tool_name": "f", "content": {"rows": [], "extra": {}}, "metadata": {"b": []}}),
        );
        let paths: Vec<&str> = found.iter().map(|(_, path)| path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "$[0].parts[0].content.n",
                "$[0].parts[0].content.extra",
                "$[0].parts[0].metadata.a",
                "$[0].parts[0].metadata.b"
            ]
        );
        // A tagged object's key left out is its default only when that is `null` (or the schema's).
        let found = part_diff(
            json!({"part_kind": "tool-call", "tool_name": "f", "tool_call_id": "c"}),
            json!({"part_kind": "tool-call", "tool_name": "f", "tool_call_id": "c", "args": {}}),
        );
        assert_eq!(found, [(LossKind::Invented, "$[0].parts[0].args".to_owned())]);
    }

    #[test]
    fn a_field_given_under_its_legacy_name_is_compared_with_the_field() {
        let original = json!([{"kind": "response", "parts": [], "vendor_id": "r1", "vendor_details": {"a": 1},
            "usage": {"request_tokens": 5}}]);
        let back = json!([{"kind": "response", "parts": [], "provider_response_id": "r1",
            "provider_details": {"a": 2}, "usage": {"input_tokens": 5}}]);
        let mut report = Report::default();
        diff(&original, &back, 0, &mut report);
        assert_eq!(kinds_and_paths(&report), [(LossKind::Changed, "$[0].vendor_details.a")]);
        let found = part_diff(
            json!({"part_kind": "tool-availability-delta", "added": ["t"]}),
            json!({"part_kind": "tool-availability-delta", "tools_added": ["t"]}),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn values_written_otherwise_that_load_alike_are_no_loss() {
        let original = json!([{"kind": "response", "parts": [{"part_kind": "file", "content": {"data": "+/8", "media_type": "image/png"}}],
            "timestamp": "2026-07-01T09:00:02.000000Z", "usage": {"details": null, "output_tokens": 0, "audio_seconds": 0.0}}]);
        let back = json!([{"kind": "response", "parts": [{"part_kind": "file", "content": {"data": "-_8=", "media_type": "image/png", "kind": "binary"}}],
            "timestamp": "2026-07-01T09:00:02Z", "usage": {"details": {}}}]);
        let mut report = Report::default();
        diff(&original, &back, 0, &mut report);
        assert!(report.is_lossless(), "{:?}", report.losses);
        // Not another instant, another offset, or a float's sign (an `int` field reads `-0.0` as 0).
        let back = json!([{"kind": "response", "parts": [{"part_kind": "file", "content": {"data": "+/8", "media_type": "image/png"}}],
            "timestamp": "2026-07-01T09:00:02+01:00", "usage": {"details": {}, "output_tokens": -0.0, "audio_seconds": -0.0}}]);
        diff(&original, &back, 0, &mut report);
        assert_eq!(
            kinds_and_paths(&report),
            [
                (LossKind::Changed, "$[0].timestamp"),
                (LossKind::Changed, "$[0].usage.audio_seconds")
            ]
        );
    }

    #[test]
    fn values_pydantic_ai_fills_in_or_renders_are_no_loss() {
        let found = part_diff(
            json!({"part_kind": "user-prompt", "content": [
                {"kind": "audio-url", "url": "https://e.com/a.unknownext", "media_type": null},
                {"kind": "structured-content", "value": {"a": 1}, "tag": "t", "content": ""},
            ]}),
            json!({"part_kind": "user-prompt", "content": [
                {"kind": "audio-url", "url": "https://e.com/a.unknownext", "media_type": ""},
                {"kind": "structured-content", "value": {"a": 1}, "tag": "t", "content": "<t>{\"a\":1}</t>"},
            ]}),
        );
        assert!(found.is_empty(), "{found:?}");
        let found = part_diff(
            json!({"part_kind": "tool-return", "tool_kind": "tool-search", "content": {"discovered_tools": []}, "tool_call_id": "c"}),
            json!({"part_kind": "tool-return", "tool_kind": "tool-search", "tool_name": "search_tools", "content": {"discovered_tools": []}, "tool_call_id": "c"}),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_tool_result_is_compared_as_its_file_record_loads_it() {
        let item = json!({"url": "https://e.com/a.png", "force_download": false, "vendor_metadata": null,
            "kind": "image-url", "media_type": "image/png", "identifier": "x"});
        let digest = msgflow_media::file_item_digest(&item);
        let part = |record: Value| json!({"part_kind": "tool-return", "tool_name": "f", "content": {"img": item}, "content_file_digests": record});
        // The same item rebuilt, under a record that also names a file no longer there: alike.
        let found = part_diff(part(json!([digest, "00"])), part(json!([digest])));
        assert!(found.is_empty(), "{found:?}");
        // Under an empty record the same mapping is data, not a file: a loss.
        let found = part_diff(part(json!([])), part(json!([digest])));
        assert_eq!(
            found,
            [(LossKind::Invented, "$[0].parts[0].content_file_digests[0]".to_owned())]
        );
        // No record at all rebuilds every file-like mapping (histories written before the
        // record existed); an empty one rebuilds none: the URL item loads otherwise.
        let without_record = |mut part: Value| {
            part.as_object_mut()
                .map(|part| part.shift_remove("content_file_digests"));
            part
        };
        let found = part_diff(without_record(part(json!([]))), part(json!([])));
        assert_eq!(
            found,
            [(LossKind::Dropped, "$[0].parts[0].content_file_digests[0]".to_owned())]
        );
        assert!(part_diff(without_record(part(json!([]))), part(json!([digest]))).is_empty());
    }

    #[test]
    fn a_lax_scalar_spelled_otherwise_is_no_difference() {
        // pydantic-ai reads `"off"` as `False`, `5.0` and `"5"` as `5`, `5` as `5.0`.
        let found = part_diff(
            json!({"part_kind": "model-settings-delta", "settings": {}, "top_level": "off"}),
            json!({"part_kind": "model-settings-delta", "settings": {}, "top_level": false}),
        );
        assert!(found.is_empty(), "{found:?}");
        // Left out, `top_level` is the schema's `false`, however the other side spells it.
        let found = part_diff(
            json!({"part_kind": "model-settings-delta", "settings": {}, "top_level": "no"}),
            json!({"part_kind": "model-settings-delta", "settings": {}}),
        );
        assert!(found.is_empty(), "{found:?}");
        let found = part_diff(
            json!({"part_kind": "model-settings-delta", "settings": {}, "top_level": "on"}),
            json!({"part_kind": "model-settings-delta", "settings": {}, "top_level": false}),
        );
        assert_eq!(found, [(LossKind::Changed, "$[0].parts[0].top_level".to_owned())]);
        let found = part_diff(
            json!({"part_kind": "retry-feedback", "content": "x", "retry": {"cause": "model_retry", "attempt": 2.0}}),
            json!({"part_kind": "retry-feedback", "content": "x", "retry": {"cause": "model_retry", "attempt": "2"}}),
        );
        assert!(found.is_empty(), "{found:?}");
        // In data, a spelling is the data's own.
        let found = part_diff(
            json!({"part_kind": "tool-call", "tool_name": "f", "args": {"top_level": "off"}, "tool_call_id": "c"}),
            json!({"part_kind": "tool-call", "tool_name": "f", "args": {"top_level": false}, "tool_call_id": "c"}),
        );
        assert_eq!(found, [(LossKind::Changed, "$[0].parts[0].args.top_level".to_owned())]);
        // A usage's counter: `"5"` is 5, and `"0"` is the zero a counter left out loads as.
        let response = |usage: Value| json!([{"kind": "response", "parts": [], "usage": usage}]);
        let mut report = Report::default();
        diff(
            &response(json!({"input_tokens": "5", "output_tokens": "0", "audio_seconds": 1})),
            &response(json!({"input_tokens": 5, "audio_seconds": 1.0})),
            0,
            &mut report,
        );
        assert!(report.is_lossless(), "{:?}", report.losses);
    }

    #[test]
    fn only_a_usage_defaults_its_counters_to_zero_and_a_given_only_key_has_no_default() {
        // A retry's `attempt` left out loads as `None`, not 0; a usage's counters as 0.
        let found = part_diff(
            json!({"part_kind": "retry-feedback", "content": "x", "retry": {"cause": "model_retry", "attempt": 0}}),
            json!({"part_kind": "retry-feedback", "content": "x", "retry": {"cause": "model_retry"}}),
        );
        assert_eq!(found, [(LossKind::Dropped, "$[0].parts[0].retry.attempt".to_owned())]);
        // `RecordedModelSettings` is a total=False TypedDict: `thinking` left out stays out.
        let found = part_diff(
            json!({"part_kind": "model-settings-delta", "settings": {}}),
            json!({"part_kind": "model-settings-delta", "settings": {"thinking": null}}),
        );
        assert_eq!(
            found,
            [(LossKind::Invented, "$[0].parts[0].settings.thinking".to_owned())]
        );
    }
}
