//! The registry: tool calls keyed by id, in registration order, with checked status changes.

use std::borrow::Cow;
use std::collections::HashMap;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::call::CanonicalToolCall;
use crate::error::RegistryError;
use crate::status::ToolCallStatus;

/// Tool calls keyed by `tool_call_id`, kept in registration order.
///
/// Unlike tunacode's registry (which overwrote re-registered entries and allowed any status
/// change), every change here is checked: a conflicting re-registration, an unknown id or an
/// illegal transition returns a [`RegistryError`] and leaves the registry untouched.
///
/// Serializes as `{"calls": [ ...CanonicalToolCall... ]}` in registration order, and
/// deserializes back from that shape (ids must be unique and non-empty).
///
/// ```
/// use msgflow_registry::{ToolCallRegistry, ToolCallStatus, RegistryError};
/// use serde_json::json;
///
/// let mut registry = ToolCallRegistry::new();
/// registry.register("call_1", "read_file", json!({"path": "a.rs"}))?;
/// registry.start("call_1", Some("2025-01-02T03:04:05Z".into()))?;
/// registry.complete("call_1", json!("fn a() {}"), Some("2025-01-02T03:04:06Z".into()))?;
/// assert_eq!(registry.get("call_1").map(|c| c.status()), Some(ToolCallStatus::Completed));
///
/// // Completing twice is refused and changes nothing.
/// let err = registry.complete("call_1", json!("again"), None).unwrap_err();
/// assert!(matches!(err, RegistryError::IllegalTransition { .. }));
/// # Ok::<(), RegistryError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallRegistry {
    calls: Vec<CanonicalToolCall>,
    /// Position of each id in `calls`; always rebuilt together with `calls`.
    index: HashMap<String, usize>,
}

impl ToolCallRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a new [`Pending`](ToolCallStatus::Pending) call and returns it.
    ///
    /// * An empty `id` → [`RegistryError::EmptyId`].
    /// * An id already registered for the *same call* (same name, arguments meaning the same JSON
    ///   value — see [`CanonicalToolCall::is_same_call`]) → `Ok` with the existing entry,
    ///   unchanged (status, timestamps and the args as first written are kept).
    /// * An id already registered for a different call →
    ///   [`RegistryError::ConflictingRegistration`].
    ///
    /// ```
    /// use msgflow_registry::ToolCallRegistry;
    /// use serde_json::json;
    ///
    /// let mut registry = ToolCallRegistry::new();
    /// registry.register("c1", "grep", json!({"pattern": "todo"})).unwrap();
    /// // The same call again (args as a JSON string this time) is accepted and changes nothing.
    /// assert!(registry.register("c1", "grep", json!("{\"pattern\":\"todo\"}")).is_ok());
    /// assert!(registry.register("c1", "grep", json!({"pattern": "fixme"})).is_err());
    /// assert_eq!(registry.len(), 1);
    /// ```
    pub fn register(
        &mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        args: Value,
    ) -> Result<&CanonicalToolCall, RegistryError> {
        let id = id.into();
        let name = name.into();
        if id.is_empty() {
            return Err(RegistryError::EmptyId);
        }
        if let Some(position) = self.index.get(&id).copied() {
            let existing = self
                .calls
                .get(position)
                .ok_or_else(|| RegistryError::UnknownCall { id: id.clone() })?;
            if existing.is_same_call(&name, &args) {
                return Ok(existing);
            }
            return Err(RegistryError::ConflictingRegistration {
                id,
                existing_name: existing.tool_name().to_owned(),
                new_name: name,
            });
        }
        let position = self.push(CanonicalToolCall::new(id.clone(), name, args));
        self.calls.get(position).ok_or(RegistryError::UnknownCall { id })
    }

    /// Marks a pending call as [`Running`](ToolCallStatus::Running).
    ///
    /// `at` becomes `started_at`; `None` keeps whatever `started_at` was already known (for a
    /// call built from a history, the time the model issued it).
    pub fn start(&mut self, id: &str, at: Option<String>) -> Result<&CanonicalToolCall, RegistryError> {
        let call = self.checked_mut(id, ToolCallStatus::Running)?;
        call.mark_running(at);
        Ok(call)
    }

    /// Marks a pending or running call as [`Completed`](ToolCallStatus::Completed) with `result`.
    /// `at` becomes `completed_at`. A `null` result is stored as no result (JSON cannot tell
    /// them apart, and the export must read back exactly).
    pub fn complete(
        &mut self,
        id: &str,
        result: Value,
        at: Option<String>,
    ) -> Result<&CanonicalToolCall, RegistryError> {
        let call = self.checked_mut(id, ToolCallStatus::Completed)?;
        call.finish_as(ToolCallStatus::Completed, Some(result), None, at);
        Ok(call)
    }

    /// Marks a pending or running call as [`Failed`](ToolCallStatus::Failed) with `error`.
    /// `at` becomes `completed_at`.
    pub fn fail(
        &mut self,
        id: &str,
        error: impl Into<String>,
        at: Option<String>,
    ) -> Result<&CanonicalToolCall, RegistryError> {
        let call = self.checked_mut(id, ToolCallStatus::Failed)?;
        call.finish_as(ToolCallStatus::Failed, None, Some(error.into()), at);
        Ok(call)
    }

    /// Marks a pending or running call as [`Cancelled`](ToolCallStatus::Cancelled); `reason` is
    /// stored as the call's `error`. `at` becomes `completed_at`.
    pub fn cancel(
        &mut self,
        id: &str,
        reason: Option<String>,
        at: Option<String>,
    ) -> Result<&CanonicalToolCall, RegistryError> {
        let call = self.checked_mut(id, ToolCallStatus::Cancelled)?;
        call.finish_as(ToolCallStatus::Cancelled, None, reason, at);
        Ok(call)
    }

    /// The call registered under `id`, if any.
    pub fn get(&self, id: &str) -> Option<&CanonicalToolCall> {
        self.index.get(id).and_then(|&position| self.calls.get(position))
    }

    /// Whether a call is registered under `id`.
    pub fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    /// All calls, in registration order.
    pub fn iter(&self) -> std::slice::Iter<'_, CanonicalToolCall> {
        self.calls.iter()
    }

    /// All calls, in registration order, as a slice.
    pub fn calls(&self) -> &[CanonicalToolCall] {
        &self.calls
    }

    /// The number of registered calls.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether no call is registered.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The most recently registered call.
    pub fn latest(&self) -> Option<&CanonicalToolCall> {
        self.calls.last()
    }

    /// The `n` most recently registered calls, oldest first (fewer if the registry is smaller).
    pub fn recent(&self, n: usize) -> &[CanonicalToolCall] {
        let skip = self.calls.len().saturating_sub(n);
        self.calls.get(skip..).unwrap_or_default()
    }

    /// The calls that have no result yet — status [`Pending`](ToolCallStatus::Pending) *or*
    /// [`Running`](ToolCallStatus::Running) — in registration order. Each of them must be
    /// answered before the next model request.
    pub fn pending(&self) -> impl Iterator<Item = &CanonicalToolCall> + '_ {
        self.calls.iter().filter(|call| !call.is_complete())
    }

    /// The whole registry as JSON: `{"calls": [...]}`, in registration order, with status,
    /// result and error of every call.
    pub fn to_json(&self) -> Value {
        let calls = self
            .calls
            .iter()
            .map(|call| serde_json::to_value(call).unwrap_or(Value::Null))
            .collect();
        let mut document = serde_json::Map::new();
        document.insert("calls".to_owned(), Value::Array(calls));
        Value::Object(document)
    }

    /// Builds a registry from calls in registration order; ids must be unique and non-empty.
    pub fn from_calls(calls: Vec<CanonicalToolCall>) -> Result<Self, RegistryError> {
        let mut registry = Self::new();
        for call in calls {
            if call.tool_call_id().is_empty() {
                return Err(RegistryError::EmptyId);
            }
            if registry.contains(call.tool_call_id()) {
                return Err(RegistryError::DuplicateId {
                    id: call.tool_call_id().to_owned(),
                });
            }
            registry.push(call);
        }
        Ok(registry)
    }

    /// Appends a call whose id is known to be new; returns its position.
    pub(crate) fn push(&mut self, call: CanonicalToolCall) -> usize {
        let position = self.calls.len();
        self.index.insert(call.tool_call_id().to_owned(), position);
        self.calls.push(call);
        position
    }

    /// Removes and returns the call under `id`, keeping the order of the others.
    pub(crate) fn remove(&mut self, id: &str) -> Option<CanonicalToolCall> {
        let position = self.index.remove(id)?;
        if position >= self.calls.len() {
            return None;
        }
        let removed = self.calls.remove(position);
        // Entries after the removed one moved one place to the front.
        for later in self.calls.iter().skip(position) {
            if let Some(slot) = self.index.get_mut(later.tool_call_id()) {
                *slot = slot.saturating_sub(1);
            }
        }
        Some(removed)
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut CanonicalToolCall> {
        let position = *self.index.get(id)?;
        self.calls.get_mut(position)
    }

    /// The call under `id`, if it exists and may move to `to`; otherwise the matching error.
    fn checked_mut(&mut self, id: &str, to: ToolCallStatus) -> Result<&mut CanonicalToolCall, RegistryError> {
        let call = self
            .get_mut(id)
            .ok_or_else(|| RegistryError::UnknownCall { id: id.to_owned() })?;
        let from = call.status();
        if !from.can_transition_to(to) {
            return Err(RegistryError::IllegalTransition {
                id: id.to_owned(),
                from,
                to,
            });
        }
        Ok(call)
    }
}

impl<'a> IntoIterator for &'a ToolCallRegistry {
    type Item = &'a CanonicalToolCall;
    type IntoIter = std::slice::Iter<'a, CanonicalToolCall>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The serialized shape of a registry.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "ToolCallRegistry")]
#[schemars(description = "The tool calls of a conversation, in registration order.")]
#[serde(deny_unknown_fields)]
struct RegistryDocumentRef<'a> {
    /// The calls, in registration order.
    calls: &'a [CanonicalToolCall],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryDocument {
    calls: Vec<CanonicalToolCall>,
}

impl Serialize for ToolCallRegistry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RegistryDocumentRef { calls: &self.calls }.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolCallRegistry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let document = RegistryDocument::deserialize(deserializer)?;
        Self::from_calls(document.calls).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for ToolCallRegistry {
    fn schema_name() -> Cow<'static, str> {
        RegistryDocumentRef::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        RegistryDocumentRef::json_schema(generator)
    }
}

/// The JSON Schema (draft 2020-12) of a serialized [`ToolCallRegistry`], generated by schemars.
///
/// ```
/// let schema = msgflow_registry::registry_schema();
/// assert_eq!(schema["title"], "ToolCallRegistry");
/// assert!(schema["$defs"]["CanonicalToolCall"].is_object());
/// ```
pub fn registry_schema() -> Value {
    let schema = schemars::schema_for!(ToolCallRegistry);
    schema.to_value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T1: &str = "2025-01-02T03:04:05.678901Z";
    const T2: &str = "2025-01-02T03:04:06+02:00";

    fn at(text: &str) -> Option<String> {
        Some(text.to_owned())
    }

    fn registry_with(id: &str) -> ToolCallRegistry {
        let mut registry = ToolCallRegistry::new();
        registry.register(id, "bash", json!({"cmd": "ls"})).unwrap();
        registry
    }

    /// Puts call `id` of a fresh registry into `status` through legal transitions.
    fn registry_in(status: ToolCallStatus) -> ToolCallRegistry {
        let mut registry = registry_with("c");
        match status {
            ToolCallStatus::Pending => {}
            ToolCallStatus::Running => {
                registry.start("c", at(T1)).unwrap();
            }
            ToolCallStatus::Completed => {
                registry.complete("c", json!("out"), at(T2)).unwrap();
            }
            ToolCallStatus::Failed => {
                registry.fail("c", "boom", at(T2)).unwrap();
            }
            ToolCallStatus::Cancelled => {
                registry.cancel("c", Some("esc".into()), at(T2)).unwrap();
            }
        }
        registry
    }

    fn apply(registry: &mut ToolCallRegistry, to: ToolCallStatus) -> Result<ToolCallStatus, RegistryError> {
        let result = match to {
            ToolCallStatus::Pending => return Ok(ToolCallStatus::Pending),
            ToolCallStatus::Running => registry.start("c", None),
            ToolCallStatus::Completed => registry.complete("c", json!(1), None),
            ToolCallStatus::Failed => registry.fail("c", "e", None),
            ToolCallStatus::Cancelled => registry.cancel("c", None, None),
        };
        result.map(CanonicalToolCall::status)
    }

    #[test]
    fn every_transition_is_checked() {
        let targets = [
            ToolCallStatus::Running,
            ToolCallStatus::Completed,
            ToolCallStatus::Failed,
            ToolCallStatus::Cancelled,
        ];
        for from in ToolCallStatus::ALL {
            for to in targets {
                let mut registry = registry_in(from);
                let before = registry.clone();
                let outcome = apply(&mut registry, to);
                if from.can_transition_to(to) {
                    assert_eq!(outcome, Ok(to), "{from} -> {to}");
                } else {
                    assert_eq!(
                        outcome,
                        Err(RegistryError::IllegalTransition {
                            id: "c".into(),
                            from,
                            to
                        }),
                        "{from} -> {to}"
                    );
                    assert_eq!(registry, before, "a refused {from} -> {to} changed the registry");
                }
            }
        }
    }

    #[test]
    fn legal_transitions_record_outcome_and_timestamps() {
        let mut registry = registry_with("c");
        let call = registry.start("c", at(T1)).unwrap();
        assert_eq!(call.status(), ToolCallStatus::Running);
        assert_eq!(call.started_at(), Some(T1));
        let call = registry.complete("c", json!({"lines": 3}), at(T2)).unwrap();
        assert_eq!(call.result(), Some(&json!({"lines": 3})));
        assert_eq!(call.error(), None);
        assert_eq!(call.started_at(), Some(T1));
        assert_eq!(call.completed_at(), Some(T2), "timestamp text kept exactly");

        let mut registry = registry_with("c");
        let call = registry.fail("c", "exit 1", at(T2)).unwrap();
        assert_eq!(
            (call.status(), call.error(), call.result()),
            (ToolCallStatus::Failed, Some("exit 1"), None)
        );
        assert_eq!(call.started_at(), None, "pending -> failed never started");

        let mut registry = registry_with("c");
        registry.start("c", None).unwrap();
        let call = registry.cancel("c", Some("user pressed esc".into()), at(T2)).unwrap();
        assert_eq!(call.status(), ToolCallStatus::Cancelled);
        assert_eq!(call.error(), Some("user pressed esc"));

        let mut registry = registry_with("c");
        assert_eq!(registry.cancel("c", None, None).unwrap().error(), None);
    }

    #[test]
    fn start_without_time_keeps_known_start() {
        let mut registry = registry_with("c");
        registry.get_mut("c").unwrap().set_started_at(at(T1));
        assert_eq!(registry.start("c", None).unwrap().started_at(), Some(T1));
    }

    #[test]
    fn unknown_ids_are_errors() {
        let mut registry = registry_with("c");
        let before = registry.clone();
        let unknown = || RegistryError::UnknownCall { id: "nope".into() };
        assert_eq!(registry.start("nope", None).unwrap_err(), unknown());
        assert_eq!(registry.complete("nope", json!(1), None).unwrap_err(), unknown());
        assert_eq!(registry.fail("nope", "x", None).unwrap_err(), unknown());
        assert_eq!(registry.cancel("nope", None, None).unwrap_err(), unknown());
        assert_eq!(registry, before);
        assert!(registry.get("nope").is_none());
    }

    #[test]
    fn empty_id_is_refused() {
        let mut registry = ToolCallRegistry::new();
        assert_eq!(
            registry.register("", "bash", json!({})).unwrap_err(),
            RegistryError::EmptyId
        );
        assert!(registry.is_empty());
    }

    #[test]
    fn re_registering_the_same_call_is_a_no_op() {
        let mut registry = registry_with("c");
        registry.start("c", at(T1)).unwrap();
        let before = registry.clone();
        // Same name; args as a JSON string with other key spacing: the same call.
        let call = registry.register("c", "bash", json!("{ \"cmd\": \"ls\" }")).unwrap();
        assert_eq!(call.status(), ToolCallStatus::Running, "status kept");
        assert_eq!(call.args(), &json!({"cmd": "ls"}), "args as first written kept");
        assert_eq!(registry, before);
    }

    #[test]
    fn re_registering_a_different_call_is_refused() {
        let mut registry = registry_with("c");
        let before = registry.clone();
        assert_eq!(
            registry.register("c", "bash", json!({"cmd": "rm -rf /"})).unwrap_err(),
            RegistryError::ConflictingRegistration {
                id: "c".into(),
                existing_name: "bash".into(),
                new_name: "bash".into()
            }
        );
        assert!(matches!(
            registry.register("c", "shell", json!({"cmd": "ls"})),
            Err(RegistryError::ConflictingRegistration { .. })
        ));
        assert_eq!(registry, before);
    }

    #[test]
    fn re_registering_a_finished_call_is_still_a_no_op() {
        let mut registry = registry_in(ToolCallStatus::Completed);
        let before = registry.clone();
        assert_eq!(
            registry.register("c", "bash", json!({"cmd": "ls"})).unwrap().status(),
            ToolCallStatus::Completed
        );
        assert_eq!(registry, before);
    }

    #[test]
    fn queries_follow_registration_order() {
        let mut registry = ToolCallRegistry::new();
        assert!(registry.latest().is_none());
        assert!(registry.recent(3).is_empty());
        for id in ["a", "b", "c", "d"] {
            registry.register(id, "t", json!({ "id": id })).unwrap();
        }
        registry.complete("b", json!("x"), None).unwrap();
        registry.start("c", None).unwrap();
        let order: Vec<&str> = registry.iter().map(CanonicalToolCall::tool_call_id).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
        assert_eq!(registry.len(), 4);
        assert_eq!(registry.latest().map(CanonicalToolCall::tool_call_id), Some("d"));
        let recent: Vec<&str> = registry.recent(2).iter().map(CanonicalToolCall::tool_call_id).collect();
        assert_eq!(recent, ["c", "d"]);
        assert_eq!(registry.recent(10).len(), 4);
        assert!(registry.recent(0).is_empty());
        let pending: Vec<&str> = registry.pending().map(CanonicalToolCall::tool_call_id).collect();
        assert_eq!(pending, ["a", "c", "d"], "running calls count as pending");
        assert_eq!((&registry).into_iter().count(), 4);
    }

    #[test]
    fn remove_keeps_index_consistent() {
        let mut registry = ToolCallRegistry::new();
        for id in ["a", "b", "c"] {
            registry.register(id, "t", json!({})).unwrap();
        }
        assert_eq!(
            registry.remove("a").map(|c| c.tool_call_id().to_owned()),
            Some("a".into())
        );
        assert!(registry.remove("a").is_none());
        assert_eq!(registry.get("c").map(CanonicalToolCall::tool_call_id), Some("c"));
        assert_eq!(registry.get("b").map(CanonicalToolCall::tool_call_id), Some("b"));
        registry.complete("c", json!(1), None).unwrap();
        assert_eq!(
            registry.get("c").map(CanonicalToolCall::status),
            Some(ToolCallStatus::Completed)
        );
    }

    #[test]
    fn json_export_has_every_field_in_order() {
        let mut registry = ToolCallRegistry::new();
        registry.register("b", "bash", json!("{\"cmd\":\"ls\"}")).unwrap();
        registry.register("a", "read_file", Value::Null).unwrap();
        registry.fail("b", "exit 2", at(T2)).unwrap();
        let exported = registry.to_json();
        assert_eq!(
            exported,
            json!({"calls": [
                {"tool_call_id": "b", "tool_name": "bash", "args": "{\"cmd\":\"ls\"}", "status": "failed",
                 "result": null, "error": "exit 2", "started_at": null, "completed_at": T2},
                {"tool_call_id": "a", "tool_name": "read_file", "args": null, "status": "pending",
                 "result": null, "error": null, "started_at": null, "completed_at": null},
            ]})
        );
        assert_eq!(
            serde_json::to_value(&registry).unwrap(),
            exported,
            "Serialize == to_json"
        );
    }

    #[test]
    fn json_round_trip() {
        let mut registry = ToolCallRegistry::new();
        registry.register("c1", "grep", json!({"pattern": "fn main"})).unwrap();
        registry.register("c2", "bash", json!("{\"cmd\":\"make\"}")).unwrap();
        registry.register("c3", "read_file", json!({"path": "x"})).unwrap();
        registry.start("c1", at(T1)).unwrap();
        registry.complete("c1", json!(["src/main.rs:1"]), at(T2)).unwrap();
        registry.cancel("c2", Some("interrupted".into()), None).unwrap();
        let text = serde_json::to_string(&registry).unwrap();
        let back: ToolCallRegistry = serde_json::from_str(&text).unwrap();
        assert_eq!(back, registry);
        assert_eq!(
            back.get("c3").map(CanonicalToolCall::status),
            Some(ToolCallStatus::Pending)
        );
        // The index was rebuilt: the reloaded registry is fully usable.
        let mut back = back;
        back.complete("c3", json!("text"), None).unwrap();
    }

    #[test]
    fn deserialize_rejects_duplicate_and_empty_ids_and_unknown_keys() {
        let call = json!({"tool_call_id": "c", "tool_name": "t", "args": {}, "status": "pending"});
        let duplicate = json!({"calls": [call.clone(), call.clone()]});
        let error = serde_json::from_value::<ToolCallRegistry>(duplicate).unwrap_err();
        assert!(error.to_string().contains("appears more than once"), "{error}");
        let empty = json!({"calls": [{"tool_call_id": "", "tool_name": "t", "status": "pending"}]});
        assert!(serde_json::from_value::<ToolCallRegistry>(empty).is_err());
        assert!(serde_json::from_value::<ToolCallRegistry>(json!({"calls": [], "extra": 1})).is_err());
        assert!(serde_json::from_value::<ToolCallRegistry>(
            json!({"calls": [{"tool_call_id": "c", "tool_name": "t", "status": "done"}]})
        )
        .is_err());
        // Optional fields may be omitted.
        let minimal: ToolCallRegistry = serde_json::from_value(json!({"calls": [call]})).unwrap();
        assert_eq!(minimal.get("c").and_then(CanonicalToolCall::result), None);
    }

    #[test]
    fn schema_describes_the_export() {
        let schema = registry_schema();
        assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(schema["title"], "ToolCallRegistry");
        assert_eq!(schema["required"], json!(["calls"]));
        assert_eq!(
            schema["properties"]["calls"]["items"]["$ref"],
            "#/$defs/CanonicalToolCall"
        );
        let call = &schema["$defs"]["CanonicalToolCall"];
        let properties: Vec<&String> = call["properties"].as_object().unwrap().keys().collect();
        for key in [
            "tool_call_id",
            "tool_name",
            "args",
            "status",
            "result",
            "error",
            "started_at",
            "completed_at",
        ] {
            assert!(properties.iter().any(|p| *p == key), "missing {key}");
        }
        assert_eq!(schema["additionalProperties"], json!(false));
        let statuses: Vec<&Value> = schema["$defs"]["ToolCallStatus"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|variant| &variant["const"])
            .collect();
        assert_eq!(
            statuses,
            [
                &json!("pending"),
                &json!("running"),
                &json!("completed"),
                &json!("failed"),
                &json!("cancelled")
            ]
        );
    }
}
