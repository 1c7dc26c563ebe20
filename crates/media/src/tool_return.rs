//! Tool-return parts built in Rust, with `content_file_digests` recorded as pydantic-ai records it.

use msgflow_wire::{
    Extra, Field, FileDigests, NativeToolReturnPart, RawJson, Timestamp, ToolReturnOutcome, ToolReturnPart,
};
use serde_json::Value;

use crate::digests::{content_file_digests, content_needs_file_digests};

/// The `content_file_digests` field for a tool result's `content`: absent for a string, number, boolean or null
/// (pydantic-ai writes no key for `str | int | float | bool | None`), otherwise the sorted, de-duplicated digests
/// of every URL item and uploaded file inside it (`[]` when there is none; binary items are never recorded).
///
/// File items must appear in their dump form, as `serde_json::to_value(&item)` of a built item gives them.
///
/// ```
/// use msgflow_media::content_file_digests_field;
/// use serde_json::json;
///
/// assert!(content_file_digests_field(&json!("done")).is_absent());
/// assert_eq!(content_file_digests_field(&json!({"rows": [1, 2]})).get().and_then(|d| d.record()).as_deref(), Some(&[][..]));
/// ```
pub fn content_file_digests_field(content: &Value) -> Field<FileDigests> {
    if content_needs_file_digests(content) {
        Field::Present(FileDigests::List(content_file_digests(content)))
    } else {
        Field::Absent
    }
}

/// A `ToolReturnPart` as pydantic-ai dumps `ToolReturnPart(tool_name, content, tool_call_id=..., timestamp=...)`:
/// outcome `success`, no tool kind, metadata or retry, and `content_file_digests` computed from `content`
/// ([`content_file_digests_field`]).
///
/// ```
/// use msgflow_media::{tool_return, FileItem};
/// use msgflow_wire::Timestamp;
/// use serde_json::json;
///
/// let image = FileItem::image_url("https://example.com/chart.png").build()?;
/// let part = tool_return("fetch", "call_1", json!([serde_json::to_value(&image)?]), Timestamp::parse("2025-01-02T03:04:05Z")?);
/// assert_eq!(
///     part.content_file_digests.get().and_then(|digests| digests.record()).as_deref(),
///     Some(&["a7e1d1ec13a575d91d39a3b16c398e4fad2ee3e522ec586d26712eb179dba9f4".to_owned()][..])
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tool_return(
    tool_name: impl Into<String>,
    tool_call_id: impl Into<String>,
    content: impl Into<Value>,
    timestamp: Timestamp,
) -> ToolReturnPart {
    let content = content.into();
    ToolReturnPart {
        tool_name: tool_name.into(),
        content_file_digests: content_file_digests_field(&content),
        content: RawJson::from(content),
        tool_call_id: Field::Present(tool_call_id.into()),
        tool_kind: Field::Null,
        metadata: Field::Null,
        timestamp: Field::Present(timestamp),
        outcome: Field::Present(ToolReturnOutcome::Success),
        retry: Field::Null,
        tool_name_absent: false,
        extra: Extra::new(),
    }
}

/// Recomputes `content_file_digests` of a `ToolReturnPart` from its current `content` (after editing the content,
/// or on a part built with `ToolReturnPart::new`).
///
/// ```
/// use msgflow_media::record_content_file_digests;
/// use msgflow_wire::{RawJson, ToolReturnPart};
///
/// let mut part = ToolReturnPart::new("fetch".to_owned(), RawJson::from(serde_json::json!([1])));
/// record_content_file_digests(&mut part);
/// assert_eq!(part.content_file_digests.get().and_then(|digests| digests.record()).as_deref(), Some(&[][..]));
/// ```
pub fn record_content_file_digests(part: &mut ToolReturnPart) {
    part.content_file_digests = content_file_digests_field(&part.content.to_value());
}

/// [`record_content_file_digests`] for a `NativeToolReturnPart` (`builtin-tool-return`), which pydantic-ai records
/// the same way.
pub fn record_native_content_file_digests(part: &mut NativeToolReturnPart) {
    part.content_file_digests = content_file_digests_field(&part.content.to_value());
}
