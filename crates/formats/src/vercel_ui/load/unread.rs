//! What of a UIMessage and its parts pydantic-ai's `load_messages` does not read: reported as
//! dropped, at its path, so that `from vercel-ui` is never silent about it.

use serde_json::Value;

use super::{field_of, Loader};
use crate::loss::LossKind;
use crate::messages_builder::{from_data_uri, INTERNAL_KEY};
use crate::ui_payloads::PROVIDER_METADATA_KEY;
use crate::vercel_ui::dump::USER_PROMPT_START_KEY;

impl Loader<'_> {
    /// Reports what of a UIMessage's `metadata` pydantic-ai reads nothing from
    /// (`apply_message_metadata`): metadata that is no object, the `__pydantic_ai__` key (never
    /// read from a client), and in `pydantic_ai` anything but a `timestamp` that validates
    /// (`timestamp_read`).
    pub(super) fn unread_message_metadata(&mut self, metadata: &Value, path: &str, timestamp_read: bool) {
        let metadata = match metadata {
            Value::Null => return,
            Value::Object(metadata) => metadata,
            _ => {
                return self.loss(
                    LossKind::Dropped,
                    format!("{path}.metadata"),
                    "a UIMessage `metadata` that is no object (pydantic-ai reads none of it)",
                )
            }
        };
        if metadata.contains_key(INTERNAL_KEY) {
            self.loss(
                LossKind::Dropped,
                format!("{path}.metadata.{INTERNAL_KEY}"),
                "the `__pydantic_ai__` key of a UIMessage's metadata (pydantic-ai never reads it from a client)",
            );
        }
        let ours_path = || format!("{path}.metadata.{PROVIDER_METADATA_KEY}");
        match metadata.get(PROVIDER_METADATA_KEY) {
            None | Some(Value::Null) => {}
            Some(Value::Object(ours)) => {
                for key in ours.keys().filter(|key| !(*key == "timestamp" && timestamp_read)) {
                    self.loss(
                        LossKind::Dropped,
                        crate::loss::key_path(&ours_path(), key),
                        "a value of a UIMessage's `metadata.pydantic_ai` other than a `timestamp` that is a datetime",
                    );
                }
            }
            Some(_) => self.loss(
                LossKind::Dropped,
                ours_path(),
                "a UIMessage's `metadata.pydantic_ai` that is no object",
            ),
        }
    }

    /// Reports what of a text part's `retry_feedback` claim (at `part_path`) pydantic-ai does not
    /// read ([`crate::ui_payloads::retry_feedback_left_out`]).
    pub(super) fn unread_retry_feedback(&mut self, claim: &Value, part_path: &str) {
        for within in crate::ui_payloads::retry_feedback_left_out(claim) {
            let what = if within.is_empty() {
                "a `retry_feedback` claim that does not validate (the part is read as its text)"
            } else {
                "a value of a `retry_feedback` claim that its part has no field for"
            };
            self.loss(
                LossKind::Dropped,
                format!("{part_path}.providerMetadata.{PROVIDER_METADATA_KEY}.retry_feedback{within}"),
                what,
            );
        }
    }

    /// Reports a file part's `mediaType` where its `url` is a data URI naming another: pydantic-ai
    /// takes the URI's (`BinaryContent.from_data_uri`).
    pub(super) fn unread_media_type(&mut self, part: &Value, part_path: &str) {
        let (Some(url), Some(media_type)) = (
            field_of(part, "url").and_then(Value::as_str),
            field_of(part, "mediaType").and_then(Value::as_str),
        ) else {
            return;
        };
        if from_data_uri(url).is_some_and(|(uri_media_type, _)| uri_media_type != media_type) {
            self.loss(
                LossKind::Dropped,
                format!("{part_path}.mediaType"),
                "the `mediaType` of a file part whose data URI names another (pydantic-ai takes the URI's)",
            );
        }
    }

    /// Reports what of a `data-*` part's payload (at `part_path`, of a `part_kind` the payload
    /// loads as) pydantic-ai does not read ([`crate::ui_payloads::payload_left_out`]).
    pub(super) fn unread_payload(&mut self, part: &Value, part_path: &str, part_kind: &str) {
        let Some(Value::Object(data)) = field_of(part, "data") else {
            return;
        };
        for within in crate::ui_payloads::payload_left_out(data, part_kind) {
            self.loss(
                LossKind::Dropped,
                format!("{part_path}.data{within}"),
                format!("a value of a `{part_kind}` payload that the part has no field for"),
            );
        }
    }

    /// Reports what of a part's `providerMetadata` (a tool part's `callProviderMetadata`)
    /// pydantic-ai does not read: `load_provider_metadata` reads the `pydantic_ai` entry only, and
    /// of it the keys the part's reader takes (`read_provider_keys`); a container that is no
    /// object is none of it.
    pub(super) fn unread_provider_metadata(&mut self, part: &Value, part_path: &str, part_type: &str, role: &str) {
        let Some((container, read)) = read_provider_keys(part_type, role) else {
            return;
        };
        let container_path = || format!("{part_path}.{container}");
        let metadata = match field_of(part, container) {
            None | Some(Value::Null) => return,
            Some(Value::Object(metadata)) => metadata,
            Some(_) => {
                return self.loss(
                    LossKind::Dropped,
                    container_path(),
                    format!("a `{container}` that is no object (pydantic-ai reads none of it)"),
                )
            }
        };
        for provider in metadata.keys().filter(|provider| *provider != PROVIDER_METADATA_KEY) {
            self.loss(
                LossKind::Dropped,
                crate::loss::key_path(&container_path(), provider),
                format!("`{container}` of a provider other than `pydantic_ai` (pydantic-ai reads only its own)"),
            );
        }
        let ours_path = || format!("{}.{PROVIDER_METADATA_KEY}", container_path());
        match metadata.get(PROVIDER_METADATA_KEY) {
            None | Some(Value::Null) => {}
            Some(Value::Object(ours)) => {
                for key in ours.keys().filter(|key| !read.contains(&key.as_str())) {
                    self.loss(
                        LossKind::Dropped,
                        crate::loss::key_path(&ours_path(), key),
                        format!(
                            "a value of `{container}.pydantic_ai` that a `{part_type}` part's reader does not take"
                        ),
                    );
                }
            }
            Some(_) => self.loss(
                LossKind::Dropped,
                ours_path(),
                format!("a `{container}.pydantic_ai` that is no object"),
            ),
        }
    }
}

/// The container of a part's provider metadata and the keys of its `pydantic_ai` entry that
/// pydantic-ai's reader of the part (`load_messages`, by the part's role and type) takes, or `None`
/// for a part whose models have no provider metadata.
fn read_provider_keys(part_type: &str, role: &str) -> Option<(&'static str, &'static [&'static str])> {
    let read: &'static [&'static str] = match (role, part_type) {
        (_, "dynamic-tool") => &TOOL_KEYS,
        (_, tool) if tool.starts_with("tool-") => &TOOL_KEYS,
        ("system", "text") => &["retry_feedback"],
        ("user", "text") => &["retry_feedback", "structured_content", USER_PROMPT_START_KEY],
        ("user", "file") => &[
            "vendor_metadata",
            "file_id",
            "provider_name",
            "identifier",
            "kind",
            "force_download",
            USER_PROMPT_START_KEY,
        ],
        ("assistant", "text") => &[
            "id",
            "provider_name",
            "provider_details",
            "canonical_system",
            "citations",
        ],
        ("assistant", "reasoning") => &[
            "id",
            "provider_name",
            "provider_details",
            "canonical_system",
            "signature",
        ],
        ("assistant", "file") => &[
            "id",
            "provider_name",
            "provider_details",
            "canonical_system",
            "vendor_metadata",
        ],
        _ => return None,
    };
    let container = if part_type == "dynamic-tool" || part_type.starts_with("tool-") {
        "callProviderMetadata"
    } else {
        "providerMetadata"
    };
    Some((container, read))
}

/// The keys of a tool part's `callProviderMetadata.pydantic_ai` its reader takes in some state
/// (`outcome`, `retry` and `content` of a return, `call_meta` and `return_meta` of a native tool's
/// part; a `retry` it does not take is reported where the part is read).
const TOOL_KEYS: [&str; 10] = [
    "id",
    "provider_name",
    "provider_details",
    "canonical_system",
    "tool_kind",
    "outcome",
    "retry",
    "content",
    "call_meta",
    "return_meta",
];
