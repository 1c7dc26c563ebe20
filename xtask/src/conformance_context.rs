//! The context check of `cargo xtask conformance`: msgflow-context's `clear_like_harness` and
//! `clamp_like_harness` must write exactly what pydantic-ai-harness 0.62.0's `ClearToolResults`
//! and `ClampOversizedMessages` `compact` dump (`oracle/context_oracle.py`, in
//! `target/venv-context`), on every pydantic-ai 2.68.0 fixture and on random pydantic-flavour
//! histories, each with several parameter sets. The histories and parameters are drawn from a
//! seed (the git HEAD commit id unless `--seed` is given), printed so that a failure reproduces.

use std::path::Path;

use anyhow::{bail, Context, Result};
use msgflow_context::clamp::{clamp_like_harness, HarnessClamp};
use msgflow_context::clear::{clear_like_harness, HarnessClear, HARNESS_PLACEHOLDER};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::strategy::{Strategy, ValueTree};
use serde_json::{json, Value};

use crate::project_root;

/// Random histories per run (each with every parameter set below).
const RANDOM_HISTORIES: usize = 400;

/// One strategy with its parameters, for both sides.
enum Params {
    Clear(HarnessClear),
    Clamp(HarnessClamp),
}

impl Params {
    fn json(&self) -> (&'static str, Value) {
        match self {
            Params::Clear(clear) => (
                "clear",
                json!({
                    "keep_pairs": clear.keep_pairs,
                    "placeholder": clear.placeholder,
                    "exclude_tools": clear.exclude_tools,
                    "clear_tool_inputs": clear.clear_tool_inputs,
                }),
            ),
            Params::Clamp(clamp) => (
                "clamp",
                json!({
                    "max_part_chars": clamp.max_part_chars,
                    "max_part_tokens": clamp.max_part_tokens,
                    "keep_head_chars": clamp.keep_head_chars,
                    "keep_tail_chars": clamp.keep_tail_chars,
                    "clamp_tool_call_args": clamp.clamp_tool_call_args,
                }),
            ),
        }
    }

    fn apply(&self, history: &mut [msgflow_wire::ModelMessage]) {
        match self {
            Params::Clear(clear) => {
                clear_like_harness(history, clear);
            }
            Params::Clamp(clamp) => {
                clamp_like_harness(history, clamp);
            }
        }
    }
}

fn parameter_sets() -> Vec<Params> {
    let clear = |keep_pairs, placeholder: &str, exclude: &[&str], inputs| {
        Params::Clear(HarnessClear {
            keep_pairs,
            placeholder: placeholder.to_owned(),
            exclude_tools: exclude.iter().map(|tool| (*tool).to_owned()).collect(),
            clear_tool_inputs: inputs,
        })
    };
    let clamp = |chars, tokens, head, tail, args| {
        Params::Clamp(HarnessClamp {
            max_part_chars: chars,
            max_part_tokens: tokens,
            keep_head_chars: head,
            keep_tail_chars: tail,
            clamp_tool_call_args: args,
        })
    };
    vec![
        clear(0, HARNESS_PLACEHOLDER, &[], false),
        clear(1, HARNESS_PLACEHOLDER, &[], true),
        clear(3, "[gone]", &["read_file", "fn"], false),
        clamp(Some(8), None, 3, 2, true),
        clamp(Some(1), None, 0, 0, false),
        clamp(None, Some(2), 4, 40, true),
        clamp(Some(20), Some(1), 30, 1, true),
    ]
}

/// Runs the check.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    let root = project_root();
    let mut histories: Vec<(String, String)> = Vec::new();
    let fixtures = root.join("tests/fixtures/v2_68");
    let mut names: Vec<_> = std::fs::read_dir(&fixtures)
        .with_context(|| format!("reading {}", fixtures.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        histories.push((path.display().to_string(), text));
    }
    let mut runner = crate::conformance::seeded_runner(seed);
    let strategy = history(Flavour::Pydantic);
    for index in 0..RANDOM_HISTORIES {
        let messages = strategy
            .new_tree(&mut runner)
            .map_err(|err| anyhow::anyhow!("generating a history: {err}"))?
            .current();
        histories.push((
            format!("random history {index} (seed {seed})"),
            msgflow_wire::to_string(&messages)?,
        ));
    }

    let params = parameter_sets();
    let mut cases = Vec::new();
    let mut input = Vec::new();
    for (name, text) in &histories {
        for (param_index, param) in params.iter().enumerate() {
            let (strategy, json) = param.json();
            let id = cases.len();
            cases.push((name.as_str(), text.as_str(), param_index));
            serde_json::to_writer(
                &mut input,
                &json!({ "id": id, "history": text, "strategy": strategy, "params": json }),
            )?;
            input.push(b'\n');
        }
    }
    std::fs::write(work.join("context-cases.jsonl"), &input)?;
    let stdout = crate::conformance::pipe_through(python, "oracle/context_oracle.py", &[], input)?;

    let mut failures = Vec::new();
    let mut changed = 0;
    let mut answers = 0;
    for line in stdout.lines() {
        let answer: Value = serde_json::from_str(line)?;
        let id = answer["id"].as_u64().context("an answer without id")? as usize;
        let (name, text, param_index) = cases[id];
        answers += 1;
        let expected = match (answer["output"].as_str(), answer["error"].as_str()) {
            (Some(output), _) => output,
            (None, Some(error)) => {
                failures.push(format!(
                    "{name}, parameter set {param_index}: the harness failed: {error}"
                ));
                continue;
            }
            _ => bail!("a malformed answer: {line}"),
        };
        let mut messages = msgflow_wire::from_str(text)?;
        params[param_index].apply(&mut messages);
        let ours = msgflow_wire::to_string(&messages)?;
        if ours != text {
            changed += 1;
        }
        if ours != expected {
            let at = ours
                .bytes()
                .zip(expected.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let from = at.saturating_sub(80);
            failures.push(format!(
                "{name}, parameter set {param_index}: differs at byte {at}\n  msgflow: {}\n  harness: {}",
                ours.get(from..(at + 120).min(ours.len())).unwrap_or(""),
                expected.get(from..(at + 120).min(expected.len())).unwrap_or("")
            ));
        }
    }
    if answers != cases.len() {
        bail!("the oracle answered {answers} of {} cases", cases.len());
    }
    println!(
        "{} cases ({} histories x {} parameter sets, seed {seed}): {} changed by the strategy, {} equal to the harness",
        cases.len(),
        histories.len(),
        params.len(),
        changed,
        cases.len() - failures.len()
    );
    if !failures.is_empty() {
        for failure in failures.iter().take(5) {
            println!("  {failure}");
        }
        bail!(
            "{} of {} cases differ from pydantic-ai-harness",
            failures.len(),
            cases.len()
        );
    }
    if changed == 0 {
        bail!("no case changed anything: the check would prove nothing");
    }
    Ok(())
}
