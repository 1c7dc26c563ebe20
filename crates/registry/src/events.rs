//! Building a registry from a message history, given as a neutral stream of call/return events.
//!
//! The adapter layer turns pydantic-ai messages into [`HistoryEvent`]s (one per `tool-call` part
//! and one per `tool-return` part, in history order); this module replays them. It never fails
//! and never panics: whatever does not fit a clean lifecycle is reported as a
//! [`RegistryWarning`].

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::args::content_text;
use crate::call::CanonicalToolCall;
use crate::registry::ToolCallRegistry;
use crate::status::ToolCallStatus;

/// The `outcome` of a pydantic-ai `tool-return` part.
///
/// Serialized as the wire string (`"success"`, `"failed"`, `"denied"`, `"interrupted"`,
/// `"retried"`); any other string is kept in [`Other`](Self::Other).
///
/// ```
/// use msgflow_registry::ReturnOutcome;
///
/// assert_eq!(ReturnOutcome::from_wire("denied"), ReturnOutcome::Denied);
/// assert_eq!(ReturnOutcome::from_wire("vetoed"), ReturnOutcome::Other("vetoed".into()));
/// assert_eq!(ReturnOutcome::Retried.as_str(), "retried");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ReturnOutcome {
    /// The tool ran and returned a result (pydantic-ai's default).
    #[default]
    Success,
    /// The tool raised an error.
    Failed,
    /// The call was denied (e.g. by a human approval step).
    Denied,
    /// The call was interrupted before producing a result.
    Interrupted,
    /// The arguments were rejected and the model was asked to retry (a legacy `retry-prompt`).
    Retried,
    /// An outcome this crate does not know, kept as written.
    Other(String),
}

impl ReturnOutcome {
    /// Parses the wire string; unknown values become [`Other`](Self::Other).
    pub fn from_wire(text: &str) -> Self {
        match text {
            "success" => Self::Success,
            "failed" => Self::Failed,
            "denied" => Self::Denied,
            "interrupted" => Self::Interrupted,
            "retried" => Self::Retried,
            other => Self::Other(other.to_owned()),
        }
    }

    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Success => "success",
            Self::Failed => "failed",
            Self::Denied => "denied",
            Self::Interrupted => "interrupted",
            Self::Retried => "retried",
            Self::Other(text) => text,
        }
    }
}

impl fmt::Display for ReturnOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ReturnOutcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ReturnOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(Self::from_wire(&text))
    }
}

impl JsonSchema for ReturnOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReturnOutcome".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A tool-return outcome: success, failed, denied, interrupted, retried, or any other string (kept as written)."
        })
    }
}

/// One tool-related event of a message history, in history order.
///
/// JSON form: `{"event": "call", ...}` / `{"event": "return", ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum HistoryEvent {
    /// A `tool-call` part of a model response.
    Call {
        /// The part's `tool_call_id`.
        id: String,
        /// The part's `tool_name`.
        name: String,
        /// The part's `args`, as written.
        #[serde(default)]
        args: Value,
        /// The response's timestamp (RFC 3339 text), if known.
        #[serde(default)]
        at: Option<String>,
    },
    /// A `tool-return` part (or a legacy `retry-prompt` with a tool name) of a request.
    Return {
        /// The part's `tool_call_id`.
        id: String,
        /// The part's `tool_name`.
        name: String,
        /// The part's `outcome`.
        #[serde(default)]
        outcome: ReturnOutcome,
        /// The part's `content`, as written.
        #[serde(default)]
        content: Value,
        /// The part's timestamp (RFC 3339 text), if known.
        #[serde(default)]
        at: Option<String>,
        /// Whether a repair step fabricated this return to close a dangling call (pydantic-ai
        /// marks these with `metadata.pydantic_ai_synthesized_tool_return`).
        #[serde(default)]
        synthesized: bool,
    },
}

/// Something in a history that did not fit a clean call → return lifecycle. Replaying continues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "warning", rename_all = "snake_case")]
pub enum RegistryWarning {
    /// A call with an empty `tool_call_id`; it cannot be matched to a result and was skipped.
    EmptyCallId {
        /// The call's tool name.
        tool_name: String,
        /// The position of the event in the input.
        event_index: usize,
    },
    /// A call reused the id of an earlier call. The new call starts a new lifecycle under the id
    /// (later returns answer it) and the earlier call is removed from the registry; it is kept
    /// here, with the status it had.
    ReusedId {
        /// The reused id.
        id: String,
        /// The earlier call as it was when it was replaced. If its status is not terminal, it was
        /// never answered.
        earlier: Box<CanonicalToolCall>,
        /// The position of the new call's event in the input.
        event_index: usize,
    },
    /// A return with no open call: its id was never called, or the call already finished.
    OrphanReturn {
        /// The return's id.
        id: String,
        /// The return's tool name.
        tool_name: String,
        /// The return's outcome.
        outcome: ReturnOutcome,
        /// The status of the finished call under this id, or `None` if the id was never called.
        finished_status: Option<ToolCallStatus>,
        /// The position of the event in the input.
        event_index: usize,
    },
    /// A return named a different tool than its call. The return was still applied.
    ToolNameMismatch {
        /// The id.
        id: String,
        /// The tool name on the call.
        call_name: String,
        /// The tool name on the return.
        return_name: String,
        /// The position of the return's event in the input.
        event_index: usize,
    },
    /// A return with an outcome this crate does not know; the call was marked completed.
    UnknownOutcome {
        /// The id.
        id: String,
        /// The outcome as written.
        outcome: String,
        /// The position of the return's event in the input.
        event_index: usize,
    },
}

impl fmt::Display for RegistryWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyCallId { tool_name, event_index } => {
                write!(
                    f,
                    "event {event_index}: call to `{tool_name}` has an empty tool_call_id; skipped"
                )
            }
            Self::ReusedId {
                id,
                earlier,
                event_index,
            } => write!(
                f,
                "event {event_index}: tool_call_id `{id}` reused; the earlier `{}` call ({}) was replaced",
                earlier.tool_name(),
                earlier.status()
            ),
            Self::OrphanReturn {
                id,
                tool_name,
                finished_status,
                event_index,
                ..
            } => match finished_status {
                Some(status) => write!(
                    f,
                    "event {event_index}: return from `{tool_name}` for `{id}`, which is already {status}; ignored"
                ),
                None => write!(
                    f,
                    "event {event_index}: return from `{tool_name}` for `{id}`, which was never called; ignored"
                ),
            },
            Self::ToolNameMismatch {
                id,
                call_name,
                return_name,
                event_index,
            } => write!(
                f,
                "event {event_index}: return for `{id}` names `{return_name}` but the call was to `{call_name}`"
            ),
            Self::UnknownOutcome {
                id,
                outcome,
                event_index,
            } => write!(
                f,
                "event {event_index}: return for `{id}` has unknown outcome `{outcome}`; treated as completed"
            ),
        }
    }
}

/// Error text used when a failing return carries no content of its own.
fn fallback_error(outcome: &ReturnOutcome) -> String {
    match outcome {
        ReturnOutcome::Denied => "tool call denied".to_owned(),
        ReturnOutcome::Retried => "tool call rejected; retry requested".to_owned(),
        ReturnOutcome::Interrupted => "tool call interrupted".to_owned(),
        _ => "tool call failed".to_owned(),
    }
}

fn error_text(content: &Value, outcome: &ReturnOutcome) -> String {
    let text = content_text(content);
    if text.trim().is_empty() {
        fallback_error(outcome)
    } else {
        text
    }
}

impl ToolCallRegistry {
    /// Replays a history's tool events into a new registry, collecting warnings.
    ///
    /// * **Call** → registers a [`Pending`](ToolCallStatus::Pending) call; its `at` is kept as
    ///   `started_at` (when the model issued it). A call with an empty id is skipped
    ///   ([`RegistryWarning::EmptyCallId`]).
    /// * **Reused id**: a call whose id is already registered (finished or not) starts a *new
    ///   lifecycle*: the id keeps its wire value (no suffix is invented, so it still matches
    ///   the returns that follow), the new call is appended at the end of the registration order,
    ///   and the earlier call is removed and reported in [`RegistryWarning::ReusedId`].
    /// * **Return** for an open call (pending or running) finishes it:
    ///
    ///   | return | status | stored |
    ///   |---|---|---|
    ///   | `synthesized` (any outcome) | Cancelled | error = content text |
    ///   | `interrupted` | Cancelled | error = content text |
    ///   | `success` | Completed | result = content (as written) |
    ///   | `failed`, `denied` | Failed | error = content text |
    ///   | `retried` | Failed | error = the retry text (the model was asked to retry) |
    ///   | any other outcome | Completed + [`RegistryWarning::UnknownOutcome`] | result = content |
    ///
    ///   Content text is a JSON string as-is or other JSON compactly serialized; an empty text
    ///   becomes a short fallback (`"tool call denied"`, ...). `at` becomes `completed_at`. A
    ///   differing tool name is reported ([`RegistryWarning::ToolNameMismatch`]) but applied.
    /// * **Return with no open call** (unknown id, or the call already finished) →
    ///   [`RegistryWarning::OrphanReturn`]; the registry is not changed.
    /// * Calls never answered stay [`Pending`](ToolCallStatus::Pending).
    ///
    /// ```
    /// use msgflow_registry::{HistoryEvent, ReturnOutcome, ToolCallRegistry, ToolCallStatus};
    /// use serde_json::json;
    ///
    /// let events = vec![
    ///     HistoryEvent::Call { id: "c1".into(), name: "bash".into(), args: json!({"cmd": "ls"}), at: None },
    ///     HistoryEvent::Return {
    ///         id: "c1".into(), name: "bash".into(), outcome: ReturnOutcome::Success,
    ///         content: json!("Cargo.toml\nsrc"), at: None, synthesized: false,
    ///     },
    ///     HistoryEvent::Return {
    ///         id: "zz".into(), name: "bash".into(), outcome: ReturnOutcome::Success,
    ///         content: json!("?"), at: None, synthesized: false,
    ///     },
    /// ];
    /// let (registry, warnings) = ToolCallRegistry::from_events(events);
    /// assert_eq!(registry.get("c1").map(|c| c.status()), Some(ToolCallStatus::Completed));
    /// assert_eq!(warnings.len(), 1); // the orphan return for "zz"
    /// ```
    pub fn from_events(events: impl IntoIterator<Item = HistoryEvent>) -> (ToolCallRegistry, Vec<RegistryWarning>) {
        let mut registry = ToolCallRegistry::new();
        let mut warnings = Vec::new();
        for (event_index, event) in events.into_iter().enumerate() {
            match event {
                HistoryEvent::Call { id, name, args, at } => {
                    registry.replay_call(id, name, args, at, event_index, &mut warnings);
                }
                HistoryEvent::Return {
                    id,
                    name,
                    outcome,
                    content,
                    at,
                    synthesized,
                } => {
                    let ret = ReplayedReturn {
                        id,
                        name,
                        outcome,
                        content,
                        at,
                        synthesized,
                    };
                    registry.replay_return(ret, event_index, &mut warnings);
                }
            }
        }
        (registry, warnings)
    }

    fn replay_call(
        &mut self,
        id: String,
        name: String,
        args: Value,
        at: Option<String>,
        event_index: usize,
        warnings: &mut Vec<RegistryWarning>,
    ) {
        if id.is_empty() {
            warnings.push(RegistryWarning::EmptyCallId {
                tool_name: name,
                event_index,
            });
            return;
        }
        if let Some(earlier) = self.remove(&id) {
            warnings.push(RegistryWarning::ReusedId {
                id: id.clone(),
                earlier: Box::new(earlier),
                event_index,
            });
        }
        let mut call = CanonicalToolCall::new(id, name, args);
        call.set_started_at(at);
        self.push(call);
    }

    fn replay_return(&mut self, ret: ReplayedReturn, event_index: usize, warnings: &mut Vec<RegistryWarning>) {
        let Some(call) = self.get_mut(&ret.id).filter(|call| !call.is_complete()) else {
            let finished_status = self.get(&ret.id).map(CanonicalToolCall::status);
            warnings.push(RegistryWarning::OrphanReturn {
                id: ret.id,
                tool_name: ret.name,
                outcome: ret.outcome,
                finished_status,
                event_index,
            });
            return;
        };
        if call.tool_name() != ret.name {
            warnings.push(RegistryWarning::ToolNameMismatch {
                id: ret.id.clone(),
                call_name: call.tool_name().to_owned(),
                return_name: ret.name.clone(),
                event_index,
            });
        }
        // The call is open (checked above), so every terminal status is a legal transition.
        let (status, result, error) = if ret.synthesized {
            (
                ToolCallStatus::Cancelled,
                None,
                Some(error_text(&ret.content, &ReturnOutcome::Interrupted)),
            )
        } else {
            match &ret.outcome {
                ReturnOutcome::Success => (ToolCallStatus::Completed, Some(ret.content), None),
                ReturnOutcome::Failed | ReturnOutcome::Denied | ReturnOutcome::Retried => (
                    ToolCallStatus::Failed,
                    None,
                    Some(error_text(&ret.content, &ret.outcome)),
                ),
                ReturnOutcome::Interrupted => (
                    ToolCallStatus::Cancelled,
                    None,
                    Some(error_text(&ret.content, &ret.outcome)),
                ),
                ReturnOutcome::Other(outcome) => {
                    warnings.push(RegistryWarning::UnknownOutcome {
                        id: ret.id.clone(),
                        outcome: outcome.clone(),
                        event_index,
                    });
                    (ToolCallStatus::Completed, Some(ret.content), None)
                }
            }
        };
        call.finish_as(status, result, error, ret.at);
    }
}

/// The fields of a [`HistoryEvent::Return`], moved out of the event.
struct ReplayedReturn {
    id: String,
    name: String,
    outcome: ReturnOutcome,
    content: Value,
    at: Option<String>,
    synthesized: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, name: &str, args: Value) -> HistoryEvent {
        HistoryEvent::Call {
            id: id.into(),
            name: name.into(),
            args,
            at: Some("2025-01-02T00:00:00Z".into()),
        }
    }

    fn ret(id: &str, name: &str, outcome: ReturnOutcome, content: Value) -> HistoryEvent {
        HistoryEvent::Return {
            id: id.into(),
            name: name.into(),
            outcome,
            content,
            at: Some("2025-01-02T00:00:01Z".into()),
            synthesized: false,
        }
    }

    fn status_of(registry: &ToolCallRegistry, id: &str) -> Option<ToolCallStatus> {
        registry.get(id).map(CanonicalToolCall::status)
    }

    #[test]
    fn outcomes_map_to_statuses() {
        let cases = [
            (
                ReturnOutcome::Success,
                json!({"rows": 2}),
                ToolCallStatus::Completed,
                None,
                Some(json!({"rows": 2})),
            ),
            (
                ReturnOutcome::Failed,
                json!("exit 1"),
                ToolCallStatus::Failed,
                Some("exit 1"),
                None,
            ),
            (
                ReturnOutcome::Denied,
                json!("not allowed"),
                ToolCallStatus::Failed,
                Some("not allowed"),
                None,
            ),
            (
                ReturnOutcome::Interrupted,
                json!("stopped"),
                ToolCallStatus::Cancelled,
                Some("stopped"),
                None,
            ),
            (
                ReturnOutcome::Retried,
                json!("path must be relative, retry"),
                ToolCallStatus::Failed,
                Some("path must be relative, retry"),
                None,
            ),
            (
                ReturnOutcome::Retried,
                json!([{"msg": "Field required"}]),
                ToolCallStatus::Failed,
                Some(r#"[{"msg":"Field required"}]"#),
                None,
            ),
        ];
        for (outcome, content, status, error, result) in cases {
            let label = format!("{outcome}");
            let (registry, warnings) =
                ToolCallRegistry::from_events([call("c", "t", json!({})), ret("c", "t", outcome, content)]);
            assert!(warnings.is_empty(), "{label}: {warnings:?}");
            let stored = registry.get("c").unwrap();
            assert_eq!(stored.status(), status, "{label}");
            assert_eq!(stored.error(), error, "{label}");
            assert_eq!(stored.result(), result.as_ref(), "{label}");
            assert_eq!(stored.started_at(), Some("2025-01-02T00:00:00Z"), "{label}");
            assert_eq!(stored.completed_at(), Some("2025-01-02T00:00:01Z"), "{label}");
        }
    }

    #[test]
    fn empty_failure_content_gets_a_fallback_text() {
        let (registry, _) = ToolCallRegistry::from_events([
            call("a", "t", json!({})),
            ret("a", "t", ReturnOutcome::Denied, Value::Null),
            call("b", "t", json!({})),
            ret("b", "t", ReturnOutcome::Failed, json!("  ")),
        ]);
        assert_eq!(
            registry.get("a").and_then(CanonicalToolCall::error),
            Some("tool call denied")
        );
        assert_eq!(
            registry.get("b").and_then(CanonicalToolCall::error),
            Some("tool call failed")
        );
    }

    #[test]
    fn synthesized_return_cancels_whatever_its_outcome() {
        let text = "The tool call was interrupted before a result was produced.";
        for outcome in [ReturnOutcome::Interrupted, ReturnOutcome::Success] {
            let (registry, warnings) = ToolCallRegistry::from_events([
                call("c", "bash", json!({"cmd": "sleep 100"})),
                HistoryEvent::Return {
                    id: "c".into(),
                    name: "bash".into(),
                    outcome,
                    content: json!(text),
                    at: None,
                    synthesized: true,
                },
            ]);
            assert!(warnings.is_empty());
            let stored = registry.get("c").unwrap();
            assert_eq!(stored.status(), ToolCallStatus::Cancelled);
            assert_eq!(stored.error(), Some(text));
            assert_eq!(stored.result(), None);
            assert_eq!(stored.completed_at(), None);
        }
    }

    #[test]
    fn return_without_call_is_an_orphan() {
        let (registry, warnings) =
            ToolCallRegistry::from_events([ret("ghost", "read_file", ReturnOutcome::Success, json!("x"))]);
        assert!(registry.is_empty());
        assert_eq!(
            warnings,
            [RegistryWarning::OrphanReturn {
                id: "ghost".into(),
                tool_name: "read_file".into(),
                outcome: ReturnOutcome::Success,
                finished_status: None,
                event_index: 0,
            }]
        );
        assert_eq!(
            warnings[0].to_string(),
            "event 0: return from `read_file` for `ghost`, which was never called; ignored"
        );
    }

    #[test]
    fn second_return_for_a_finished_call_is_an_orphan_and_changes_nothing() {
        let (registry, warnings) = ToolCallRegistry::from_events([
            call("c", "t", json!({})),
            ret("c", "t", ReturnOutcome::Success, json!("first")),
            ret("c", "t", ReturnOutcome::Failed, json!("second")),
        ]);
        let stored = registry.get("c").unwrap();
        assert_eq!(
            (stored.status(), stored.result()),
            (ToolCallStatus::Completed, Some(&json!("first")))
        );
        assert!(matches!(
            warnings.as_slice(),
            [RegistryWarning::OrphanReturn {
                finished_status: Some(ToolCallStatus::Completed),
                event_index: 2,
                ..
            }]
        ));
    }

    #[test]
    fn return_before_its_call_is_an_orphan_and_the_call_stays_pending() {
        let (registry, warnings) = ToolCallRegistry::from_events([
            ret("c", "t", ReturnOutcome::Success, json!("early")),
            call("c", "t", json!({})),
        ]);
        assert_eq!(status_of(&registry, "c"), Some(ToolCallStatus::Pending));
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn reused_id_of_finished_call_starts_a_new_lifecycle() {
        let (registry, warnings) = ToolCallRegistry::from_events([
            call("c", "read_file", json!({"path": "a"})),
            call("d", "grep", json!({"pattern": "x"})),
            ret("c", "read_file", ReturnOutcome::Success, json!("A")),
            call("c", "read_file", json!({"path": "b"})),
            ret("c", "read_file", ReturnOutcome::Success, json!("B")),
        ]);
        let order: Vec<&str> = registry.iter().map(CanonicalToolCall::tool_call_id).collect();
        assert_eq!(order, ["d", "c"], "the new lifecycle is registered last");
        let current = registry.get("c").unwrap();
        assert_eq!(current.args(), &json!({"path": "b"}));
        assert_eq!(current.result(), Some(&json!("B")));
        let [RegistryWarning::ReusedId {
            id,
            earlier,
            event_index,
        }] = warnings.as_slice()
        else {
            panic!("expected one ReusedId warning, got {warnings:?}");
        };
        assert_eq!((id.as_str(), *event_index), ("c", 3));
        assert_eq!(earlier.status(), ToolCallStatus::Completed);
        assert_eq!(earlier.result(), Some(&json!("A")));
        assert_eq!(earlier.args(), &json!({"path": "a"}));
    }

    #[test]
    fn reused_id_of_open_call_reports_the_unanswered_one() {
        let (registry, warnings) = ToolCallRegistry::from_events([
            call("c", "bash", json!({"cmd": "a"})),
            call("c", "bash", json!({"cmd": "b"})),
        ]);
        assert_eq!(registry.len(), 1);
        assert_eq!(
            registry.get("c").map(CanonicalToolCall::args),
            Some(&json!({"cmd": "b"}))
        );
        assert!(matches!(
            warnings.as_slice(),
            [RegistryWarning::ReusedId { earlier, .. }] if earlier.status() == ToolCallStatus::Pending
        ));
        assert_eq!(
            warnings[0].to_string(),
            "event 1: tool_call_id `c` reused; the earlier `bash` call (pending) was replaced"
        );
    }

    #[test]
    fn open_calls_stay_pending() {
        let (registry, warnings) = ToolCallRegistry::from_events([
            call("a", "t", json!({})),
            call("b", "t", json!({"x": 1})),
            ret("a", "t", ReturnOutcome::Success, json!("ok")),
        ]);
        assert!(warnings.is_empty());
        assert_eq!(status_of(&registry, "b"), Some(ToolCallStatus::Pending));
        let pending: Vec<&str> = registry.pending().map(CanonicalToolCall::tool_call_id).collect();
        assert_eq!(pending, ["b"]);
    }

    #[test]
    fn empty_call_id_is_skipped() {
        let (registry, warnings) = ToolCallRegistry::from_events([
            call("", "bash", json!({})),
            ret("", "bash", ReturnOutcome::Success, json!("?")),
        ]);
        assert!(registry.is_empty());
        assert!(matches!(
            warnings.as_slice(),
            [
                RegistryWarning::EmptyCallId { event_index: 0, .. },
                RegistryWarning::OrphanReturn { event_index: 1, .. }
            ]
        ));
    }

    #[test]
    fn name_mismatch_and_unknown_outcome_are_reported_but_applied() {
        let (registry, warnings) = ToolCallRegistry::from_events([
            call("c", "read_file", json!({})),
            ret("c", "cat", ReturnOutcome::from_wire("vetoed"), json!("body")),
        ]);
        assert_eq!(status_of(&registry, "c"), Some(ToolCallStatus::Completed));
        assert_eq!(
            warnings,
            [
                RegistryWarning::ToolNameMismatch {
                    id: "c".into(),
                    call_name: "read_file".into(),
                    return_name: "cat".into(),
                    event_index: 1
                },
                RegistryWarning::UnknownOutcome {
                    id: "c".into(),
                    outcome: "vetoed".into(),
                    event_index: 1
                },
            ]
        );
    }

    #[test]
    fn events_have_a_tagged_json_form() {
        let event: HistoryEvent = serde_json::from_value(json!({
            "event": "return", "id": "c", "name": "t", "outcome": "retried", "content": "fix it"
        }))
        .unwrap();
        assert_eq!(
            event,
            HistoryEvent::Return {
                id: "c".into(),
                name: "t".into(),
                outcome: ReturnOutcome::Retried,
                content: json!("fix it"),
                at: None,
                synthesized: false
            }
        );
        let call_event = call("c", "t", json!("{}"));
        let text = serde_json::to_value(&call_event).unwrap();
        assert_eq!(text["event"], "call");
        assert_eq!(serde_json::from_value::<HistoryEvent>(text).unwrap(), call_event);
        let other: ReturnOutcome = serde_json::from_value(json!("later")).unwrap();
        assert_eq!(serde_json::to_value(&other).unwrap(), json!("later"));
    }
}
