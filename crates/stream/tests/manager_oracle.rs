//! pydantic-ai's own `ModelResponsePartsManager` runs, recorded by `python/stream_oracle.py`
//! (`tests/fixtures/manager-cases.jsonl`), replayed through msgflow's manager: every event and
//! the final parts byte for byte, the same errors, and the same replay through `apply_event`.
//! `cargo xtask conformance` runs thousands of fresh cases the same way.

use msgflow_stream::ops::Op;
use msgflow_stream::{PartsManager, ResponseStreamEvent};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    ops: Vec<Op>,
    results: Vec<OpResult>,
    parts: serde_json::Value,
    replay: Replay,
}

#[derive(Deserialize)]
struct OpResult {
    events: Vec<String>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Replay {
    parts: serde_json::Value,
    error: Option<String>,
}

fn counter_manager() -> PartsManager {
    let mut next = 0usize;
    PartsManager::with_tool_call_ids(move || {
        let id = format!("gen_{next}");
        next += 1;
        id
    })
}

/// Runs one recorded case; `Err` says where msgflow differs.
fn run_case(line: &str) -> Result<(), String> {
    let case: Case = serde_json::from_str(line).map_err(|err| format!("unreadable case: {err}"))?;
    let mut manager = counter_manager();
    let mut emitted = Vec::new();
    for (step, (op, expected)) in case.ops.iter().zip(&case.results).enumerate() {
        let (events, error) = match op.apply(&mut manager) {
            Ok(event) => (event.into_iter().collect::<Vec<_>>(), None),
            Err(err) => (Vec::new(), Some(err.kind().to_owned())),
        };
        let events: Vec<String> = events.iter().map(|e| serde_json::to_string(e).unwrap()).collect();
        if events != expected.events || error != expected.error {
            return Err(format!(
                "op {step} {op:?}:\n  msgflow: {events:?} {error:?}\n  pydantic-ai: {:?} {:?}",
                expected.events, expected.error
            ));
        }
        emitted.extend(events);
    }
    let parts: serde_json::Value = serde_json::from_str(&serde_json::to_string(&manager.get_parts()).unwrap()).unwrap();
    let parts_text = serde_json::to_string(&manager.get_parts()).unwrap();
    let expected_text = serde_json::to_string(&case.parts).unwrap();
    if parts != case.parts || parts_text != expected_text {
        return Err(format!(
            "final parts:\n  msgflow: {parts_text}\n  pydantic-ai: {expected_text}"
        ));
    }
    let mut replayer = counter_manager();
    let mut replay_error = None;
    for text in &emitted {
        let event: ResponseStreamEvent = serde_json::from_str(text).unwrap();
        if let Err(err) = replayer.apply_event(&event) {
            replay_error = Some(err.kind().to_owned());
            break;
        }
    }
    let replayed = serde_json::to_string(&replayer.get_parts()).unwrap();
    let expected_replay = serde_json::to_string(&case.replay.parts).unwrap();
    if replayed != expected_replay || replay_error != case.replay.error {
        return Err(format!(
            "replay:\n  msgflow: {replayed} {replay_error:?}\n  pydantic-ai: {expected_replay} {:?}",
            case.replay.error
        ));
    }
    Ok(())
}

#[test]
fn recorded_pydantic_ai_manager_runs_are_reproduced_exactly() {
    let path = std::env::var("MSGFLOW_STREAM_CASES")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/manager-cases.jsonl").to_owned());
    let text = std::fs::read_to_string(&path).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (number, line) in text.lines().enumerate() {
        count += 1;
        if let Err(why) = run_case(line) {
            failures.push(format!("case {number}: {why}"));
        }
    }
    assert!(count > 0, "no cases in {path}");
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ; first:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n")
    );
}
