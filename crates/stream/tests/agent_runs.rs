//! Real `Agent.run_stream_events` runs on pydantic-ai's `FunctionModel`, recorded by
//! `oracle/stream_oracle.py runs` (`tests/fixtures/agent-runs.jsonl`): streamed thinking, text
//! and tool calls, tools that ran, some runs cancelled midway. Each run's event log, assembled by
//! msgflow, must give the messages the run recorded: the same kinds, the same parts byte for
//! byte, the same states; where pydantic-ai sent a request without an event (retry feedback),
//! msgflow reports the place. (Usage, model name, timestamps and run ids are not in the
//! events.) `cargo xtask conformance` runs fresh ones the same way.

use msgflow_stream::differential::agent_run;

#[test]
fn assembled_event_logs_give_the_messages_pydantic_ai_recorded() {
    let path = std::env::var("MSGFLOW_STREAM_RUNS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/agent-runs.jsonl").to_owned());
    let text = std::fs::read_to_string(&path).unwrap();
    let failures: Vec<String> = text
        .lines()
        .enumerate()
        .filter_map(|(number, line)| agent_run(line).err().map(|why| format!("run {number}: {why}")))
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
