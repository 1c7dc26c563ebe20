//! What of AG-UI messages pydantic-ai's `load_messages` does not read: reported as dropped, at
//! its path, so that `from ag-ui` is never silent about it.

use serde_json::{Map, Value};

use super::{claims, Loader};
use crate::ag_ui::content::wire;
use crate::loss::LossKind;
use crate::object::field;
use crate::ui_payloads::{parse_tool_kind, parse_tool_retry, retry_feedback_left_out};

impl Loader<'_> {
    /// Reports the keys of a content part (at `path`) that `_input_content_to_user_content` does
    /// not read: of a media part's `source` all but its type, value and media type (and a file's
    /// provider), of its `metadata` all but `vendor_metadata` (and a URL's `force_download`).
    pub(super) fn unread_item_keys(&mut self, item: &Map<String, Value>, path: &str) {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" => self.unread_keys(item, &["type", "text"], || (path.into(), "a text content part".into())),
            "binary" => self.unread_keys(item, &["type", "mimeType", "mime_type", "url", "data"], || {
                (path.into(), "a binary content part".into())
            }),
            "image" | "audio" | "video" | "document" => {
                let what = || format!("a `{kind}` content part");
                self.unread_keys(item, &["type", "source", "metadata"], || (path.into(), what()));
                let source = item.get("source").and_then(Value::as_object);
                let source_type = source.and_then(|source| source.get("type")).and_then(Value::as_str);
                if let Some(source) = source {
                    let read: &[&str] = match source_type {
                        Some("file") => &["type", "value", "mimeType", "mime_type", "provider"],
                        _ => &["type", "value", "mimeType", "mime_type"],
                    };
                    self.unread_keys(source, read, || {
                        (format!("{path}.source"), format!("the `source` of {}", what()))
                    });
                }
                if let Some(Value::Object(metadata)) = item.get("metadata") {
                    let read: &[&str] = match source_type {
                        Some("url") => &["vendor_metadata", "force_download"],
                        _ => &["vendor_metadata"],
                    };
                    self.unread_keys(metadata, read, || {
                        (format!("{path}.metadata"), format!("the `metadata` of {}", what()))
                    });
                }
            }
            _ => {}
        }
    }

    /// Reports the keys of `object` besides `read`, which pydantic-ai's models of it do not have
    /// and so drop; `place` gives its path and what it is (made only for a report).
    pub(super) fn unread_keys(
        &mut self,
        object: &Map<String, Value>,
        read: &[&str],
        place: impl FnOnce() -> (String, String),
    ) {
        let mut unread = object.keys().filter(|key| !read.contains(&key.as_str())).peekable();
        if unread.peek().is_none() {
            return;
        }
        let (path, what) = place();
        for key in unread {
            self.report.push(
                LossKind::Dropped,
                self.document,
                crate::loss::key_path(&path, key),
                format!("`{key}` of {what}"),
            );
        }
    }

    /// Reports what of the `encryptedValue` of `object` (at `path()`) pydantic-ai does not read
    /// where it stands: a value that holds no claims of its own (`_parse_encrypted_namespace`
    /// finds none: a client's opaque value), claims besides `read`, a `tool_kind` it does not
    /// define (`parse_tool_kind`), an `outcome` it does not take, a `retry` that is none, retry
    /// feedback that does not validate or holds more than its part.
    pub(super) fn unread_claims(&mut self, object: &Map<String, Value>, path: impl FnOnce() -> String, read: &[&str]) {
        let Some((key, encrypted)) = ["encryptedValue", "encrypted_value"]
            .into_iter()
            .find_map(|key| Some((key, field(object, key).filter(|value| !value.is_null())?)))
        else {
            return;
        };
        let at = format!("{}.{key}", path());
        let Some(claims) = claims(Some(encrypted)) else {
            return self.loss(
                LossKind::Dropped,
                at,
                "an `encryptedValue` that holds no pydantic-ai claims (pydantic-ai reads none of it)",
            );
        };
        for (claim, value) in &claims {
            let unread = match claim.as_str() {
                _ if value.is_null() => false,
                _ if !read.contains(&claim.as_str()) => true,
                "tool_kind" => parse_tool_kind(value).is_null(),
                "outcome" => !matches!(
                    value.as_str(),
                    Some("success" | "failed" | "denied" | "interrupted" | "retried")
                ),
                "retry" => parse_tool_retry(value).is_null(),
                "retry_feedback" => !retry_feedback_left_out(value).is_empty(),
                "structured_content" => !value.is_object(),
                _ => false,
            };
            if unread {
                self.loss(
                    LossKind::Dropped,
                    at.clone(),
                    format!("the `{claim}` claim of an `encryptedValue`, which pydantic-ai does not read here"),
                );
            }
        }
    }

    /// Reports a tool message's `error` text unless it is the one pydantic-ai writes for the content
    /// it loads (`client_error_text`, here `written`): `load_messages` reads only that there is
    /// an error (the return failed), and the history gives back that text, not this one.
    pub(super) fn unread_error_text(
        &mut self,
        object: &Map<String, Value>,
        path: &str,
        written: impl FnOnce() -> String,
    ) {
        let Some(Value::String(error)) = wire(object, "error", "error") else {
            return;
        };
        // As pydantic-ai writes a failed return of text, or of data without files.
        if field(object, "content").and_then(Value::as_str) == Some(error.as_str()) {
            return;
        }
        if written() != *error {
            self.loss(
                LossKind::Dropped,
                format!("{path}.error"),
                "the `error` text of an AG-UI tool message, other than its content's (pydantic-ai keeps only that the return failed)",
            );
        }
    }
}
