//! Property tests: arbitrary operation sequences and arbitrary histories.

use msgflow_registry::{
    guidance, GuidanceConfig, HistoryEvent, RegistryError, RegistryWarning, ReturnOutcome, ToolCallRegistry,
    ToolCallStatus,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A small id pool (including the empty id) so that operations often hit the same calls.
const IDS: [&str; 4] = ["call_a", "call_b", "call_c", ""];
const NAMES: [&str; 2] = ["read_file", "bash"];

fn args_pool(index: usize) -> Value {
    match index {
        0 => json!({"path": "a.rs"}),
        1 => json!("{\"path\": \"a.rs\"}"), // the same arguments as 0, as a JSON string
        2 => json!({"path": "b.rs"}),
        _ => Value::Null,
    }
}

#[derive(Debug, Clone)]
enum Op {
    Register { id: usize, name: usize, args: usize },
    Start { id: usize, at: Option<String> },
    Complete { id: usize, at: Option<String> },
    Fail { id: usize, at: Option<String> },
    Cancel { id: usize, at: Option<String> },
}

fn timestamp() -> impl Strategy<Value = Option<String>> {
    proptest::option::of((0u32..60).prop_map(|second| format!("2025-01-01T00:00:{second:02}Z")))
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0..IDS.len();
    prop_oneof![
        (id.clone(), 0..NAMES.len(), 0..4usize).prop_map(|(id, name, args)| Op::Register { id, name, args }),
        (id.clone(), timestamp()).prop_map(|(id, at)| Op::Start { id, at }),
        (id.clone(), timestamp()).prop_map(|(id, at)| Op::Complete { id, at }),
        (id.clone(), timestamp()).prop_map(|(id, at)| Op::Fail { id, at }),
        (id, timestamp()).prop_map(|(id, at)| Op::Cancel { id, at }),
    ]
}

fn id_of(index: usize) -> &'static str {
    IDS.get(index).copied().unwrap_or("")
}

/// What the operation should do, decided from the state before it (an independent model).
fn expected(before: &ToolCallRegistry, op: &Op) -> Result<ToolCallStatus, RegistryError> {
    let transition = |id: usize, to: ToolCallStatus| {
        let id = id_of(id);
        match before.get(id) {
            None => Err(RegistryError::UnknownCall { id: id.to_owned() }),
            Some(call) if call.status().can_transition_to(to) => Ok(to),
            Some(call) => Err(RegistryError::IllegalTransition {
                id: id.to_owned(),
                from: call.status(),
                to,
            }),
        }
    };
    match op {
        Op::Register { id, name, args } => {
            let (id, name) = (id_of(*id), NAMES.get(*name).copied().unwrap_or(""));
            if id.is_empty() {
                return Err(RegistryError::EmptyId);
            }
            match before.get(id) {
                None => Ok(ToolCallStatus::Pending),
                Some(call) if call.is_same_call(name, &args_pool(*args)) => Ok(call.status()),
                Some(call) => Err(RegistryError::ConflictingRegistration {
                    id: id.to_owned(),
                    existing_name: call.tool_name().to_owned(),
                    new_name: name.to_owned(),
                }),
            }
        }
        Op::Start { id, .. } => transition(*id, ToolCallStatus::Running),
        Op::Complete { id, .. } => transition(*id, ToolCallStatus::Completed),
        Op::Fail { id, .. } => transition(*id, ToolCallStatus::Failed),
        Op::Cancel { id, .. } => transition(*id, ToolCallStatus::Cancelled),
    }
}

fn apply(registry: &mut ToolCallRegistry, op: &Op) -> Result<ToolCallStatus, RegistryError> {
    let outcome = match op {
        Op::Register { id, name, args } => {
            registry.register(id_of(*id), NAMES.get(*name).copied().unwrap_or(""), args_pool(*args))
        }
        Op::Start { id, at } => registry.start(id_of(*id), at.clone()),
        Op::Complete { id, at } => registry.complete(id_of(*id), json!({"ok": true}), at.clone()),
        Op::Fail { id, at } => registry.fail(id_of(*id), "boom", at.clone()),
        Op::Cancel { id, at } => registry.cancel(id_of(*id), Some("interrupted".into()), at.clone()),
    };
    outcome.map(|call| call.status())
}

fn history_event() -> impl Strategy<Value = HistoryEvent> {
    let id = prop_oneof![Just(String::new()), "c[0-3]"];
    let outcome = prop_oneof![
        Just(ReturnOutcome::Success),
        Just(ReturnOutcome::Failed),
        Just(ReturnOutcome::Denied),
        Just(ReturnOutcome::Interrupted),
        Just(ReturnOutcome::Retried),
        "[a-z]{0,3}".prop_map(|text| ReturnOutcome::from_wire(&text)),
    ];
    let content = prop_oneof![
        Just(Value::Null),
        ".{0,8}".prop_map(Value::from),
        (0i64..5).prop_map(Value::from)
    ];
    prop_oneof![
        (id.clone(), 0..NAMES.len(), 0..4usize, timestamp()).prop_map(|(id, name, args, at)| HistoryEvent::Call {
            id,
            name: NAMES.get(name).copied().unwrap_or("").to_owned(),
            args: args_pool(args),
            at,
        }),
        (id, 0..NAMES.len(), outcome, content, timestamp(), any::<bool>()).prop_map(
            |(id, name, outcome, content, at, synthesized)| HistoryEvent::Return {
                id,
                name: NAMES.get(name).copied().unwrap_or("").to_owned(),
                outcome,
                content,
                at,
                synthesized,
            }
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Operations never panic, do exactly what the transition table says, only move statuses
    /// forward, and leave the registry untouched when they fail.
    #[test]
    fn operations_follow_the_lifecycle(ops in proptest::collection::vec(op(), 0..40)) {
        let mut registry = ToolCallRegistry::new();
        for op in &ops {
            let before = registry.clone();
            let want = expected(&before, op);
            let got = apply(&mut registry, op);
            prop_assert_eq!(&got, &want, "{:?}", op);
            if got.is_err() {
                prop_assert_eq!(&registry, &before, "a failed {:?} changed the registry", op);
                continue;
            }
            // Nothing is ever removed or reordered; at most one call is appended.
            prop_assert!(registry.len() == before.len() || registry.len() == before.len() + 1);
            for (old, new) in before.iter().zip(registry.iter()) {
                prop_assert_eq!(old.tool_call_id(), new.tool_call_id());
                prop_assert_eq!(old.tool_name(), new.tool_name());
                prop_assert_eq!(old.args(), new.args());
                if old.is_complete() {
                    // A terminal call never changes again.
                    prop_assert_eq!(old, new);
                } else if old.status() != new.status() {
                    prop_assert!(old.status().can_transition_to(new.status()));
                }
            }
        }
        // Whatever happened, the export reads back to the same registry.
        let reloaded: ToolCallRegistry = serde_json::from_value(registry.to_json()).unwrap();
        prop_assert_eq!(reloaded, registry);
    }

    /// Replaying any history never panics and accounts for every event.
    #[test]
    fn replay_accounts_for_every_event(events in proptest::collection::vec(history_event(), 0..40)) {
        let calls = events.iter().filter(|event| matches!(event, HistoryEvent::Call { .. })).count();
        let returns = events.len() - calls;
        let (registry, warnings) = ToolCallRegistry::from_events(events);

        let replaced: Vec<_> = warnings
            .iter()
            .filter_map(|warning| match warning {
                RegistryWarning::ReusedId { earlier, .. } => Some(earlier),
                _ => None,
            })
            .collect();
        let skipped_calls = warnings.iter().filter(|w| matches!(w, RegistryWarning::EmptyCallId { .. })).count();
        let orphans = warnings.iter().filter(|w| matches!(w, RegistryWarning::OrphanReturn { .. })).count();

        // Every call is in the registry, was replaced by a later one, or was skipped.
        prop_assert_eq!(registry.len() + replaced.len() + skipped_calls, calls);
        // Every non-orphan return finished exactly one lifecycle.
        let finished = registry.iter().filter(|call| call.is_complete()).count()
            + replaced.iter().filter(|call| call.is_complete()).count();
        prop_assert_eq!(finished + orphans, returns);
        // Ids are unique and non-empty, so the export reads back.
        let reloaded: ToolCallRegistry = serde_json::from_value(registry.to_json()).unwrap();
        prop_assert_eq!(&reloaded, &registry);
        // Guidance only names calls that exist.
        for hint in guidance(&registry, &GuidanceConfig::default()) {
            prop_assert!(!hint.message.is_empty());
            for id in &hint.tool_call_ids {
                prop_assert!(registry.contains(id), "hint names unknown call {}", id);
            }
        }
    }
}
