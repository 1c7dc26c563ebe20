//! pydantic-ai's own `ModelResponsePartsManager` runs, recorded by `oracle/stream_oracle.py`
//! (`tests/fixtures/manager-cases.jsonl`), replayed through msgflow's manager: every event and
//! the final parts byte for byte, the same errors, and the same replay through `apply_event`.
//! `cargo xtask conformance` runs thousands of fresh cases the same way.

use msgflow_stream::differential::manager_case;

#[test]
fn recorded_pydantic_ai_manager_runs_are_reproduced_exactly() {
    let path = std::env::var("MSGFLOW_STREAM_CASES")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/manager-cases.jsonl").to_owned());
    let text = std::fs::read_to_string(&path).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (number, line) in text.lines().enumerate() {
        count += 1;
        if let Err(why) = manager_case(line) {
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
