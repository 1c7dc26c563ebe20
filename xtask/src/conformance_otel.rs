//! The OTel differential check (part of `cargo xtask conformance`, `--only otel`):
//! msgflow-formats' `otel` against pydantic-ai 2.68.0's own instrumentation
//! (`oracle/otel_oracle.py`, in the `target/venv` venv).
//!
//! For every committed fixture, every history of the real-world corpora (`../shared/realworld*`)
//! and seeded arbitrary histories (`Flavour::Pydantic`), at every instrumentation version (2 to 6):
//!
//! * `to` must equal the span attributes `InstrumentationSettings(version=v).handle_messages`
//!   writes for the history (its last response as the output);
//! * `from` must give back everything a span records: the span msgflow writes for the history it
//!   read back is the span it read (`to(from(to(h))) == to(h)`, compared as the messages in order
//!   and the instructions), which needs no oracle; where the read reports a part dropped (an
//!   uploaded file, whose provider a span does not hold) the difference is counted, not failed.
//!   What a span does not record is reported by `to` (the loss groups are printed, by histories).
//!
//! A history holding parts msgflow does not convert to otel yet is refused by msgflow with the
//! part's path; refusals are counted by reason, most frequent first. A refusal saying pydantic-ai
//! does not load the history is checked: pydantic-ai must raise on loading it (`raises`). The real files of `../shared/formats/otel` must
//! load, with the message counts `crates/formats/tests/real_files.rs` pins.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use msgflow_formats::{otel, ConvertOptions, LossKind, Report};
use serde_json::{Map, Value};

/// Seeded arbitrary histories per run.
const ARBITRARY_COUNT: usize = 3000;
/// Mismatches shown in detail.
const SHOWN: usize = 8;
/// How msgflow's refusals of what pydantic-ai itself does not load begin (`Unsupported::not_loaded`).
const NOT_LOADED: &str = "pydantic-ai 2.68.0 does not load";

/// Runs the check with the given seed.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    println!("seed {seed} (from the HEAD commit unless --seed is given)");
    let dir = work.join("otel");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let root = crate::project_root();
    let (sources, fixture_count, realworld_count) =
        crate::conformance_formats::history_sources(&root, seed, ARBITRARY_COUNT)?;

    let mut cases: Vec<Value> = Vec::new();
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let mut losses: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut stable = 0usize;
    let mut dropped_on_read = 0usize;
    let total = sources.len();
    for (name, value) in sources {
        let original = msgflow_wire::from_str(&value.to_string())?;
        let mut case = Map::new();
        case.insert("name".into(), name.clone().into());
        case.insert("history".into(), value);
        if crate::conformance_ui_formats::has_made_up_ids(&original) {
            case.insert("made_up_ids".into(), true.into());
        }
        let mut converted = true;
        for version in otel::VERSIONS {
            let options = ConvertOptions {
                otel_version: version,
                ..ConvertOptions::default()
            };
            let mut report = Report::default();
            let span = match otel::to_value(&original, 0, &options, &mut report) {
                Ok(span) => span,
                Err(err) if err.message.contains("please report this") => {
                    failures.push(format!("{name}: v{version}: {err}"));
                    converted = false;
                    break;
                }
                Err(err) => {
                    // A refusal that says pydantic-ai does not load the history must be one it raises on.
                    if err.message.starts_with(NOT_LOADED) {
                        cases.push(
                            serde_json::json!({"name": name, "history": case["history"], "refused": err.message}),
                        );
                    }
                    *refused.entry(err.message).or_default() += 1;
                    converted = false;
                    break;
                }
            };
            if version == otel::DEFAULT_VERSION {
                for group in report.groups() {
                    *losses.entry(format!("{} {}", group.kind, group.what)).or_default() += 1;
                }
            }
            let mut read_report = Report::default();
            let back = otel::from_value(&span, 0, &mut read_report)
                .map_err(|err| anyhow::anyhow!("{name}: msgflow cannot read its own otel: {err:?}"))?;
            let back = back.into_iter().next().unwrap_or_default();
            // What a read reports dropped (an uploaded file's provider is not in a span) cannot come back.
            let dropped = read_report.losses.iter().any(|loss| loss.kind == LossKind::Dropped);
            match otel::to_value(&back, 0, &options, &mut Report::default()) {
                Ok(again) if recorded(&again) == recorded(&span) => stable += 1,
                Ok(_) if dropped => dropped_on_read += 1,
                Ok(again) => failures.push(format!(
                    "{name}: v{version}: the span of the history read back differs: {}",
                    first_difference(&recorded(&span), &recorded(&again))
                )),
                Err(err) => failures.push(format!("{name}: v{version}: the history read back is refused: {err}")),
            }
            case.insert(format!("otel{version}"), span);
        }
        if converted {
            cases.push(Value::Object(case));
        }
    }
    let compared = cases.iter().filter(|case| case.get("refused").is_none()).count();
    let foreign = read_foreign_files(&root, &mut failures)?;

    let answers = crate::conformance::ask_oracle(python, "otel_oracle.py", &dir, &cases)?;
    let mut equal: BTreeMap<String, usize> = BTreeMap::new();
    // Differences from pydantic-ai are shown first.
    let round_trip_failures = std::mem::take(&mut failures);
    for answer in &answers {
        let name = answer["name"].as_str().unwrap_or("?");
        if let Some(error) = answer.get("error") {
            failures.push(format!("{name}: the oracle failed: {error}"));
            continue;
        }
        for (check, verdict) in answer.as_object().into_iter().flatten() {
            if check == "name" {
                continue;
            }
            match verdict {
                Value::String(text) if text == "equal" => *equal.entry(check.clone()).or_default() += 1,
                _ => failures.push(format!("{name}: {check}: {verdict}")),
            }
        }
    }
    failures.extend(round_trip_failures);
    let refusals: usize = refused.values().sum();
    println!(
        "{total} histories ({fixture_count} fixtures, {realworld_count} real-world, {ARBITRARY_COUNT} arbitrary): \
         {compared} converted, {refusals} refused by msgflow; {foreign} real otel files read"
    );
    for (check, count) in &equal {
        println!("  {check}: {count} equal to pydantic-ai");
    }
    println!(
        "  to(from(to(h))) == to(h): {stable} of {} (history, version) pairs; {dropped_on_read} differ where the read \
         reported a part dropped",
        compared * otel::VERSIONS.len()
    );
    println!(
        "  losses of history -> otel -> history at version {}:",
        otel::DEFAULT_VERSION
    );
    for (what, count) in &losses {
        println!("    {count} {what}");
    }
    // Most frequent reason first: the order in which they are worth converting.
    let mut reasons: Vec<(&String, &usize)> = refused.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    for (why, count) in reasons {
        println!("  refused {count}: {why}");
    }
    if !failures.is_empty() {
        for failure in failures.iter().take(SHOWN) {
            println!("FAIL {failure}");
        }
        bail!("{} differences", failures.len());
    }
    // Arbitrary histories are dense in parts msgflow refuses (each is listed above); this guards
    // against a check that silently compares next to nothing.
    if compared < total / 5 {
        bail!("too few histories compared: {compared} of {total}");
    }
    Ok(())
}

/// What a span records, whichever request the history ends with: its messages in order (input
/// then output) and its instructions.
fn recorded(span: &Value) -> Value {
    let mut messages = span[otel::INPUT_MESSAGES].as_array().cloned().unwrap_or_default();
    messages.extend(span[otel::OUTPUT_MESSAGES].as_array().cloned().unwrap_or_default());
    serde_json::json!([messages, span[otel::SYSTEM_INSTRUCTIONS]])
}

/// The path of the first difference between two JSON values.
fn first_difference(left: &Value, right: &Value) -> String {
    fn walk(left: &Value, right: &Value, path: &mut String) -> Option<String> {
        match (left, right) {
            (Value::Object(a), Value::Object(b)) => {
                for key in a.keys().chain(b.keys()) {
                    let (x, y) = (a.get(key).unwrap_or(&Value::Null), b.get(key).unwrap_or(&Value::Null));
                    if x != y {
                        path.push_str(&format!(".{key}"));
                        return walk(x, y, path);
                    }
                }
                None
            }
            (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
                let index = a.iter().zip(b).position(|(x, y)| x != y)?;
                path.push_str(&format!("[{index}]"));
                walk(&a[index], &b[index], path)
            }
            _ if left == right => None,
            _ => Some(format!("{path}: {left} != {right}")),
        }
    }
    walk(left, right, &mut "$".to_owned()).unwrap_or_default()
}

/// Reads every real file of `../shared/formats/otel`; each must give at least one history.
fn read_foreign_files(root: &Path, failures: &mut Vec<String>) -> Result<usize> {
    let mut count = 0;
    for path in crate::conformance::foreign_files(root, "otel")? {
        let text = std::fs::read_to_string(&path)?;
        let name = crate::conformance::file_name(&path);
        match msgflow_formats::convert(
            &text,
            msgflow_formats::Format::Otel,
            msgflow_formats::Format::PydanticAi,
        ) {
            Ok(converted) if converted.output.is_empty() => failures.push(format!("formats/otel/{name}: no history")),
            Ok(_) => count += 1,
            Err(err) => failures.push(format!("formats/otel/{name}: msgflow cannot read it: {err}")),
        }
    }
    Ok(count)
}
