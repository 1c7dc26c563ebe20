//! The AG-UI activities `load_messages` reads: pydantic-ai's own, which carry parts through the
//! client (deltas, compaction), and the messages enqueued during a run.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{dump, shape, Loader, ENQUEUED_MESSAGES_ACTIVITY_TYPE};
use crate::ag_ui::content::wire;
use crate::ag_ui::RECORD_ACTIVITY_TYPE;
use crate::loss::{LossKind, Report};
use crate::messages_builder::Builder;
use crate::openai_chat::ShapeError;
use crate::ui_payloads::{
    capability_load_delta_from_payload, compaction_from_payload, is_request_compaction,
    model_settings_delta_from_payload, payload_left_out, tool_availability_delta_from_payload,
};

impl Loader<'_> {
    /// pydantic-ai's own activities carry the parts it rides through the client, or whole
    /// messages enqueued during a run (then this returns `true`); any other activity (and files,
    /// which `preserve_file_data=False` skips) loads as nothing.
    pub(super) fn activity(&mut self, object: &Map<String, Value>, path: &str) -> Result<bool, ShapeError> {
        let activity_type = wire(object, "activityType", "activity_type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if activity_type == ENQUEUED_MESSAGES_ACTIVITY_TYPE {
            self.enqueued_messages(object, path)?;
            return Ok(true);
        }
        let own = [
            dump::TOOL_AVAILABILITY_DELTA_ACTIVITY_TYPE,
            dump::CAPABILITY_LOAD_DELTA_ACTIVITY_TYPE,
            dump::MODEL_SETTINGS_DELTA_ACTIVITY_TYPE,
            dump::COMPACTION_ACTIVITY_TYPE,
        ];
        if own.contains(&activity_type) {
            let Some(content) = object.get("content").and_then(Value::as_object) else {
                return Err(shape(
                    &format!("{path}.content"),
                    "expected the activity's `content` as an object",
                ));
            };
            let (part, left_out) = match activity_type {
                dump::TOOL_AVAILABILITY_DELTA_ACTIVITY_TYPE => {
                    let (delta, left_out) = tool_availability_delta_from_payload(content);
                    (Some(delta), left_out)
                }
                dump::CAPABILITY_LOAD_DELTA_ACTIVITY_TYPE => (
                    capability_load_delta_from_payload(content),
                    payload_left_out(content, "capability-load-delta"),
                ),
                dump::MODEL_SETTINGS_DELTA_ACTIVITY_TYPE => (
                    model_settings_delta_from_payload(content),
                    payload_left_out(content, "model-settings-delta"),
                ),
                _ => (
                    compaction_from_payload(&object["content"]),
                    payload_left_out(content, "compaction"),
                ),
            };
            let Some(part) = part else {
                self.loss(
                    LossKind::Dropped,
                    path,
                    format!("a `{activity_type}` activity whose content pydantic-ai does not load"),
                );
                return Ok(false);
            };
            for within in left_out {
                self.loss(
                    LossKind::Dropped,
                    format!("{path}.content{within}"),
                    format!("a value of a `{activity_type}` activity pydantic-ai does not read (no field of the delta, or not a tool name)"),
                );
            }
            if part["part_kind"] == "compaction" {
                // `MessagesBuilder.add`: a compaction no provider produced goes to a request.
                let provider_name = part.get("provider_name").cloned().unwrap_or(Value::Null);
                let to_request = is_request_compaction(&part);
                self.builder.add(part, to_request);
                let canonical = content.get("canonical_system").unwrap_or(&Value::Null);
                self.builder.restore_canonical_system(&provider_name, canonical);
            } else {
                self.builder.add(part, true);
            }
            return Ok(false);
        }
        if activity_type != RECORD_ACTIVITY_TYPE {
            self.loss(
                LossKind::Dropped,
                path,
                format!("an AG-UI `{activity_type}` activity (not part of a history)"),
            );
        }
        Ok(false)
    }

    /// An enqueued-messages activity: its messages loaded on their own (`load_messages` of
    /// `_enqueued_messages`), then appended whole (`MessagesBuilder._append_whole`). pydantic-ai
    /// loads messages that do not validate as AG-UI messages as none and refuses the input where
    /// they do not load; msgflow leaves out what it cannot load, reported dropped, either way.
    fn enqueued_messages(&mut self, object: &Map<String, Value>, path: &str) -> Result<(), ShapeError> {
        let Some(content) = object.get("content").and_then(Value::as_object) else {
            return Err(shape(
                &format!("{path}.content"),
                "expected the activity's `content` as an object",
            ));
        };
        if self.enqueued {
            self.loss(
                LossKind::Dropped,
                path,
                "an enqueued-messages activity within another (pydantic-ai loads it as nothing)",
            );
            return Ok(());
        }
        let messages_path = format!("{path}.content.messages");
        let Some(Value::Array(messages)) = content.get("messages") else {
            self.loss(
                LossKind::Dropped,
                path,
                "an enqueued-messages activity without a `messages` array (pydantic-ai loads it as nothing)",
            );
            return Ok(());
        };
        // `load_messages` of them alone: a history of their own, calls of their own.
        let mut report = Report::default();
        let enqueued = Loader {
            document: self.document,
            report: &mut report,
            builder: Builder::new(Vec::new()),
            tool_names: HashMap::new(),
            tool_kinds: HashMap::new(),
            enqueued: true,
        };
        if let Some(Value::String(_)) = object.get("id") {
            self.loss(
                LossKind::Dropped,
                format!("{path}.id"),
                "the `id` of an enqueued-messages activity (its messages keep their own)",
            );
        }
        match enqueued.read(messages, &messages_path, 0) {
            Ok(loaded) => {
                self.report.losses.extend(report.losses);
                self.builder.append_whole(loaded);
            }
            // pydantic-ai loads none of them: all are dropped, for the reason found where it is.
            Err(err) => self.loss(
                LossKind::Dropped,
                messages_path,
                format!(
                    "the enqueued messages of this activity, which do not load (at {}: {})",
                    err.path, err.message
                ),
            ),
        }
        Ok(())
    }
}
