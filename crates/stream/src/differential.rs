//! The differential checks against pydantic-ai's own runs, recorded by `oracle/stream_oracle.py`:
//! shared by this crate's tests (on committed recordings) and `cargo xtask conformance` (on fresh
//! ones). Each function takes one recorded JSON line and says where msgflow differs.

use msgflow_wire::ModelMessage;
use serde::Deserialize;

use crate::ops::Op;
use crate::{assemble, read_log, AssembleOptions, PartsManager, ResponseStreamEvent};

fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|err| format!("cannot serialise: {err}"))
}

fn to_value<T: serde::Serialize + ?Sized>(value: &T) -> Result<serde_json::Value, String> {
    serde_json::from_str(&to_json(value)?).map_err(|err| format!("cannot read back: {err}"))
}

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

/// Runs one case recorded by `stream_oracle.py manager` through msgflow's manager; `Err` says
/// where msgflow differs from pydantic-ai (events, errors, final parts, replay).
pub fn manager_case(line: &str) -> Result<(), String> {
    let case: Case = serde_json::from_str(line).map_err(|err| format!("unreadable case: {err}"))?;
    let mut manager = counter_manager();
    let mut emitted = Vec::new();
    for (step, (op, expected)) in case.ops.iter().zip(&case.results).enumerate() {
        let (events, error) = match op.apply(&mut manager) {
            Ok(event) => (event.into_iter().collect::<Vec<_>>(), None),
            Err(err) => (Vec::new(), Some(err.kind().to_owned())),
        };
        let events = events.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
        if events != expected.events || error != expected.error {
            return Err(format!(
                "op {step} {op:?}:\n  msgflow: {events:?} {error:?}\n  pydantic-ai: {:?} {:?}",
                expected.events, expected.error
            ));
        }
        emitted.extend(events);
    }
    let parts_text = to_json(&manager.get_parts())?;
    let expected_text = to_json(&case.parts)?;
    if parts_text != expected_text {
        return Err(format!(
            "final parts:\n  msgflow: {parts_text}\n  pydantic-ai: {expected_text}"
        ));
    }
    let mut replayer = counter_manager();
    let mut replay_error = None;
    for text in &emitted {
        let event: ResponseStreamEvent =
            serde_json::from_str(text).map_err(|err| format!("msgflow cannot read its own event {text}: {err}"))?;
        if let Err(err) = replayer.apply_event(&event) {
            replay_error = Some(err.kind().to_owned());
            break;
        }
    }
    let replayed = to_json(&replayer.get_parts())?;
    let expected_replay = to_json(&case.replay.parts)?;
    if replayed != expected_replay || replay_error != case.replay.error {
        return Err(format!(
            "replay:\n  msgflow: {replayed} {replay_error:?}\n  pydantic-ai: {expected_replay} {:?}",
            case.replay.error
        ));
    }
    Ok(())
}

#[derive(Deserialize)]
struct Run {
    log: String,
    messages: Vec<serde_json::Value>,
    cancelled_at: Option<usize>,
}

/// Whether `logged` is `recorded` cut short: the same kinds and states, the same parts except
/// that `recorded` may have more parts after them and its text, thinking or string arguments of
/// the last logged part may go on. A run cancelled midway records what its model stream had
/// produced, including events still on their way to the consumer when it stopped, which the log
/// never got.
fn is_cut_short(logged: &serde_json::Value, recorded: &serde_json::Value) -> bool {
    let (Some(logged_parts), Some(recorded_parts)) = (logged["parts"].as_array(), recorded["parts"].as_array()) else {
        return false;
    };
    if logged["kind"] != recorded["kind"]
        || logged["state"] != recorded["state"]
        || logged_parts.len() > recorded_parts.len()
    {
        return false;
    }
    logged_parts
        .iter()
        .zip(recorded_parts)
        .enumerate()
        .all(|(index, (mine, theirs))| {
            if mine == theirs {
                return true;
            }
            if index + 1 != logged_parts.len() {
                return false;
            }
            let key = if mine["part_kind"] == "tool-call" {
                "args"
            } else {
                "content"
            };
            let (Some(cut), Some(full)) = (mine[key].as_str(), theirs[key].as_str()) else {
                return false;
            };
            let mut rest_mine = mine.clone();
            rest_mine[key] = theirs[key].clone();
            full.starts_with(cut) && rest_mine == *theirs
        })
}

/// What the events determine of a message: its kind, its parts, and a response's state.
fn essentials(message: &serde_json::Value) -> (String, String, String) {
    let kind = message["kind"].as_str().unwrap_or_default().to_owned();
    let parts = message["parts"].to_string();
    let state = message["state"].as_str().unwrap_or_default().to_owned();
    (kind, parts, state)
}

/// Assembles the event log of one run recorded by `stream_oracle.py runs` and compares it with
/// the messages the run recorded; `Err` says where msgflow differs.
pub fn agent_run(line: &str) -> Result<(), String> {
    let run: Run = serde_json::from_str(line).map_err(|err| format!("unreadable run: {err}"))?;
    let log = read_log(&run.log).map_err(|err| format!("msgflow cannot read the log: {err}"))?;
    let assembly = assemble(&log, &AssembleOptions::default()).map_err(|err| format!("assemble: {err}"))?;
    let actual = assembly
        .messages
        .iter()
        .map(|message: &ModelMessage| to_value(message).map(|value| essentials(&value)))
        .collect::<Result<Vec<_>, _>>()?;
    // pydantic-ai sends the retry feedback after a response with no output without an event:
    // msgflow must report each such place and build everything else.
    let retry_only = |message: &&serde_json::Value| {
        message["kind"] == "request"
            && message["parts"].as_array().is_some_and(|parts| {
                !parts.is_empty() && parts.iter().all(|part| part["part_kind"] == "retry-feedback")
            })
    };
    let unlogged: Vec<usize> = run
        .messages
        .iter()
        .enumerate()
        .filter(|(_, message)| retry_only(message))
        .enumerate()
        .map(|(removed_before, (index, _))| index - removed_before)
        .collect();
    if unlogged != assembly.report.unlogged_requests {
        return Err(format!(
            "unlogged requests: msgflow reports {:?}, pydantic-ai sent them at {unlogged:?}",
            assembly.report.unlogged_requests
        ));
    }
    let expected: Vec<_> = run
        .messages
        .iter()
        .filter(|message| !retry_only(message))
        .map(essentials)
        .collect();
    if actual == expected {
        return Ok(());
    }
    // A cancelled run may have recorded events its log never got (still in flight): then every
    // message but the last must be equal and the last one cut short.
    let assembled = assembly.messages.iter().map(to_value).collect::<Result<Vec<_>, _>>()?;
    let recorded: Vec<&serde_json::Value> = run.messages.iter().filter(|message| !retry_only(message)).collect();
    let in_flight = run.cancelled_at.is_some()
        && assembled.len() == recorded.len()
        && actual[..actual.len() - 1] == expected[..expected.len() - 1]
        && is_cut_short(&assembled[assembled.len() - 1], recorded[recorded.len() - 1]);
    if in_flight {
        return Ok(());
    }
    // Cancelled right at the `part_end` that ends the stream: the log cannot tell this from a
    // stream that ended, so msgflow says `complete` where pydantic-ai (whose stream was not yet
    // marked finished) says `interrupted`; everything else is equal.
    let log_events = run.log.lines().count();
    if run.cancelled_at == Some(log_events) && actual.len() == expected.len() {
        let last = actual.len() - 1;
        let same_but_state = actual[..last] == expected[..last]
            && (&actual[last].0, &actual[last].1) == (&expected[last].0, &expected[last].1)
            && (actual[last].2.as_str(), expected[last].2.as_str()) == ("complete", "interrupted");
        if same_but_state {
            return Ok(());
        }
    }
    // Cancelled after every call had its result: pydantic-ai drops those results (the request is
    // only added when the next model request starts); msgflow keeps them, in an `interrupted`
    // request, so nothing is lost.
    if run.cancelled_at == Some(log_events)
        && actual.len() == expected.len() + 1
        && actual[..expected.len()] == expected[..]
        && actual[expected.len()].0 == "request"
        && actual[expected.len()].2 == "interrupted"
    {
        return Ok(());
    }
    Err(format!("msgflow: {actual:#?}\npydantic-ai: {expected:#?}"))
}
