//! The streaming differential checks (part of `cargo xtask conformance`, `--only stream`):
//!
//! 1. **The parts manager.** `stream_oracle.py manager` drives pydantic-ai 2.68.0's own
//!    `ModelResponsePartsManager` with seeded random delta sequences (every handler, vendor ids
//!    reused and interleaved, parallel tool calls, embedded `<think>` tags, dict and string
//!    arguments, whole parts mixed in, cut off at random points) and records every event it
//!    emitted (dumped with `TypeAdapter(ModelResponseStreamEvent)`), every error, the final
//!    parts and what `apply_event` makes of the events. msgflow's manager must agree byte for byte.
//! 2. **Agent runs.** `stream_oracle.py runs` records real `Agent.run_stream_events` runs on
//!    `FunctionModel` (streamed thinking, text and tool calls, tools that run, some cancelled
//!    midway); each event log assembled by msgflow must give the messages the run recorded
//!    (`msgflow_stream::differential::agent_run` says what may differ and why).
//!
//! One Python process per check. The seed comes from the HEAD commit unless `--seed` is given, so
//! each commit tries new cases and a failure reproduces with the seed printed.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::project_root;

/// Manager cases per run.
const MANAGER_CASES: usize = 4000;
/// Agent runs per run (each is a real asyncio agent run: about 30 ms).
const AGENT_RUNS: usize = 300;
/// How many failures are shown in detail.
const SHOWN: usize = 3;

/// Runs both checks; fails when any case differs.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    let manager = oracle(
        python,
        work,
        &[
            "manager",
            "--seed",
            &seed.to_string(),
            "--cases",
            &MANAGER_CASES.to_string(),
        ],
        "manager",
    )?;
    let manager_failures = compare(&manager, msgflow_stream::differential::manager_case);
    println!(
        "{} of {} pydantic-ai parts-manager runs (seed {seed}) reproduced: every event, error and part byte for byte, and apply_event",
        MANAGER_CASES - manager_failures.len(),
        MANAGER_CASES
    );
    let runs = oracle(
        python,
        work,
        &["runs", "--seed", &seed.to_string(), "--count", &AGENT_RUNS.to_string()],
        "runs",
    )?;
    let run_failures = compare(&runs, msgflow_stream::differential::agent_run);
    println!(
        "{} of {} Agent.run_stream_events runs on FunctionModel (seed {seed}) assembled into the messages they recorded",
        AGENT_RUNS - run_failures.len(),
        AGENT_RUNS
    );
    let failures: Vec<String> = manager_failures.into_iter().chain(run_failures).collect();
    if failures.is_empty() {
        return Ok(());
    }
    for failure in failures.iter().take(SHOWN) {
        println!("  {failure}");
    }
    bail!(
        "{} streaming cases differ from pydantic-ai (seed {seed}; rerun with --seed {seed} --only stream)",
        failures.len()
    )
}

/// Runs `stream_oracle.py` with `args`, keeping its output in `work/stream-<name>.jsonl`.
fn oracle(python: &Path, work: &Path, args: &[&str], name: &str) -> Result<String> {
    let script = project_root().join("oracle/stream_oracle.py");
    let output = Command::new(python)
        .arg(&script)
        .args(args)
        .current_dir(project_root().join("oracle"))
        .output()
        .with_context(|| format!("running {}", script.display()))?;
    if !output.status.success() {
        bail!(
            "stream_oracle.py {name} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let path = work.join(format!("stream-{name}.jsonl"));
    std::fs::write(&path, &output.stdout).with_context(|| format!("writing {}", path.display()))?;
    String::from_utf8(output.stdout).context("stream_oracle.py wrote non-UTF-8 output")
}

/// Every line that `check` rejects, numbered.
fn compare(lines: &str, check: fn(&str) -> Result<(), String>) -> Vec<String> {
    lines
        .lines()
        .enumerate()
        .filter_map(|(number, line)| check(line).err().map(|why| format!("case {number}: {why}")))
        .collect()
}
