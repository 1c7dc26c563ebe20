//! Real `Agent.run_stream_events` runs on pydantic-ai's `FunctionModel`, recorded by
//! `python/stream_oracle.py runs` (`tests/fixtures/agent-runs.jsonl`): streamed thinking, text
//! and tool calls, tools that ran, some runs cancelled midway. Each run's event log, assembled by
//! msgflow, must give the messages the run recorded: the same kinds, the same parts byte for
//! byte, the same states; where pydantic-ai sent a request without an event (retry feedback),
//! msgflow reports the place. (Usage, model name, timestamps and run ids are not in the
//! events.) `cargo xtask conformance` runs fresh ones the same way.

use msgflow_stream::{assemble, read_log, AssembleOptions};
use msgflow_wire::ModelMessage;
use serde::Deserialize;

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
    let parts = serde_json::to_string(&message["parts"]).unwrap();
    let state = message["state"].as_str().unwrap_or_default().to_owned();
    (kind, parts, state)
}

fn check_run(line: &str) -> Result<(), String> {
    let run: Run = serde_json::from_str(line).map_err(|err| format!("unreadable run: {err}"))?;
    let log = read_log(&run.log).map_err(|err| format!("msgflow cannot read the log: {err}"))?;
    let assembly = assemble(&log, &AssembleOptions::default()).map_err(|err| format!("assemble: {err}"))?;
    let actual: Vec<_> = assembly
        .messages
        .iter()
        .map(|message: &ModelMessage| essentials(&serde_json::to_value(message).unwrap()))
        .collect();
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
    let assembled: Vec<serde_json::Value> = assembly
        .messages
        .iter()
        .map(|message| serde_json::to_value(message).unwrap())
        .collect();
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

#[test]
fn assembled_event_logs_give_the_messages_pydantic_ai_recorded() {
    let path = std::env::var("MSGFLOW_STREAM_RUNS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/agent-runs.jsonl").to_owned());
    let text = std::fs::read_to_string(&path).unwrap();
    let failures: Vec<String> = text
        .lines()
        .enumerate()
        .filter_map(|(number, line)| check_run(line).err().map(|why| format!("run {number}: {why}")))
        .collect();
    assert!(text.lines().count() > 0, "no runs in {path}");
    let numbers: Vec<&str> = failures
        .iter()
        .filter_map(|failure| failure.split(':').next())
        .collect();
    assert!(
        failures.is_empty(),
        "{} runs differ ({}); first:\n{}",
        failures.len(),
        numbers.join(", "),
        failures[0]
    );
}
