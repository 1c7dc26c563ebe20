//! The UI-format differential check (part of `cargo xtask conformance`, `--only vercel-ui`):
//! msgflow-formats' `vercel-ui` against pydantic-ai 2.68.0's own `VercelAIAdapter`
//! (`oracle/ui_formats_oracle.py`, in the `target/venv-ui-formats` venv).
//!
//! For every committed fixture, every history of the real-world corpora (`../shared/realworld*`)
//! and seeded arbitrary histories (`Flavour::Pydantic`):
//!
//! * `to` (AI SDK 5 and 6) must equal `dump_messages(history, sdk_version=...)`;
//! * `from` of those UI messages must equal `load_messages` of them (timestamps pydantic-ai stamps
//!   with the load time aside);
//! * the lossless form must give the history back unchanged (`from(to(h)) == h`, byte for byte as
//!   msgflow writes it), which needs no oracle.
//!
//! A history holding parts msgflow does not convert to vercel-ui yet is refused by msgflow with
//! the part's path; refusals are counted by reason, and one that says pydantic-ai does not load the
//! history must be one pydantic-ai raises on (`raises`). The real files of
//! `../shared/formats/vercel-ui` are read too: where pydantic-ai loads a file, msgflow's history
//! must equal its `load_messages`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use msgflow_formats::{vercel_ui, ConvertOptions, Report};
use serde_json::{json, Map, Value};

/// Seeded arbitrary histories per run.
const ARBITRARY_COUNT: usize = 3000;
/// Refused histories kept per reason in `refused.jsonl`.
const EXAMPLES_PER_REASON: usize = 3;
/// Mismatches shown in detail.
const SHOWN: usize = 8;
/// The timestamp given to responses that have none, on both sides: pydantic-ai stamps such a
/// response with the load time, which no two runs share.
const FIXED_TIMESTAMP: &str = "2025-01-02T03:04:05Z";

/// Runs the check with the given seed.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    println!("seed {seed} (from the HEAD commit unless --seed is given)");
    let dir = work.join("ui-formats");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let root = crate::project_root();
    let (sources, fixture_count, realworld_count) =
        crate::conformance_formats::history_sources(&root, seed, ARBITRARY_COUNT)?;

    let mut cases: Vec<Value> = Vec::new();
    let mut refused = Refusals::default();
    let mut failures: Vec<String> = Vec::new();
    let mut lossless_identity = 0usize;
    for (name, mut value) in sources {
        stamp_load_times(&mut value);
        let original = msgflow_wire::from_str(&value.to_string())?;
        let mut case = Map::new();
        case.insert("name".into(), name.clone().into());
        case.insert("history".into(), value.clone());
        if has_made_up_ids(&original) {
            case.insert("made_up_ids".into(), true.into());
        }
        let mut converted = false;
        for version in [5u8, 6] {
            let options = ConvertOptions {
                vercel_sdk_version: version,
                ..ConvertOptions::default()
            };
            let ui = match vercel_ui::to_value(&original, 0, &options, &mut Report::default()) {
                Ok(ui) => ui,
                Err(err) => {
                    refused.add(err.message, &name, &err.path, &value);
                    break;
                }
            };
            let back = vercel_ui::from_value(&ui, 0, &options, &mut Report::default())
                .map_err(|err| anyhow::anyhow!("{name}: msgflow cannot read its own UI messages: {err:?}"))?;
            case.insert(format!("ui{version}"), ui);
            case.insert(
                format!("back{version}"),
                serde_json::from_str(&msgflow_wire::to_string(&back)?)?,
            );
            converted = true;
        }
        if !converted {
            continue;
        }
        let lossless = ConvertOptions {
            lossless: true,
            ..ConvertOptions::default()
        };
        let ui = vercel_ui::to_value(&original, 0, &lossless, &mut Report::default())
            .map_err(|err| anyhow::anyhow!("{name}: lossless: {err}"))?;
        let back = vercel_ui::from_value(&ui, 0, &lossless, &mut Report::default())
            .map_err(|err| anyhow::anyhow!("{name}: lossless: msgflow cannot read its own UI messages: {err:?}"))?;
        if msgflow_wire::to_string(&back)? == msgflow_wire::to_string(&original)? {
            lossless_identity += 1;
        } else {
            failures.push(format!("{name}: the lossless round trip changed the history"));
        }
        cases.push(Value::Object(case));
    }
    let compared = cases.len();
    refused.write_examples(&dir)?;
    let mut written: Vec<Value> = cases.iter().filter_map(|case| case.get("ui5").cloned()).collect();
    // What clients send beside pydantic-ai's dumps is mutated too (enqueued messages above all: their
    // messages are validated apart from the others).
    let client_inputs = client_inputs(&root, "vercel_ui_inputs.json")?;
    written.extend(client_inputs.iter().map(|(_, messages)| messages.clone()));
    let default = ConvertOptions::default();
    let mutated = crate::conformance_ui_mutations::cases(&written, seed, |document| {
        vercel_ui::from_value(document, 0, &default, &mut Report::default()).map_err(|err| format!("{err:?}"))
    })?;
    cases.extend(mutated);
    cases.extend(refused.not_loaded_cases());
    let foreign = foreign_cases(&root, client_inputs, &mut cases)?;

    let answers = crate::conformance::ask_oracle(python, "ui_formats_oracle.py", &dir, &cases)?;
    let counts = Counts {
        fixtures: fixture_count,
        realworld: realworld_count,
        arbitrary: ARBITRARY_COUNT,
        compared,
        foreign,
        lossless_identity,
    };
    judge("vercel-ui", &answers, &counts, &refused, failures)
}

/// The histories msgflow refused, by reason: how many, and the first one met (its name and the
/// JSON path of the part refused), printed most frequent first. The first histories of each reason
/// are kept, for [`Refusals::write_examples`].
#[derive(Default)]
pub(crate) struct Refusals {
    by_reason: BTreeMap<String, (usize, String)>,
    examples: Vec<Value>,
    not_loaded: Vec<Value>,
}

/// How a refusal begins that says pydantic-ai does not load the history either (`Unsupported::not_loaded`).
const NOT_LOADED: &str = "pydantic-ai 2.68.0 does not load";

impl Refusals {
    /// Counts one refused history: `reason` (the refusal's message), met in `history` (named
    /// `name`) at `path`.
    pub(crate) fn add(&mut self, reason: String, name: &str, path: &str, history: &Value) {
        let entry = self
            .by_reason
            .entry(reason.clone())
            .or_insert_with(|| (0, format!("{name} at {path}")));
        entry.0 += 1;
        if reason.starts_with(NOT_LOADED) {
            (self.not_loaded).push(json!({"name": name, "history": history, "refused": reason}));
        }
        if entry.0 <= EXAMPLES_PER_REASON {
            (self.examples).push(json!({"reason": reason, "name": name, "path": path, "history": history}));
        }
    }

    /// Writes the first histories refused for each reason to `refused.jsonl` in `dir`, one a
    /// line, to look into.
    pub(crate) fn write_examples(&self, dir: &Path) -> Result<()> {
        let path = dir.join("refused.jsonl");
        let lines: String = self.examples.iter().map(|example| format!("{example}\n")).collect();
        std::fs::write(&path, lines).with_context(|| format!("writing {}", path.display()))
    }

    /// Cases for the oracle, one per history refused as one pydantic-ai does not load: loading it
    /// must raise (`raises`).
    pub(crate) fn not_loaded_cases(&self) -> impl Iterator<Item = Value> + '_ {
        self.not_loaded.iter().cloned()
    }

    fn total(&self) -> usize {
        self.by_reason.values().map(|(count, _)| count).sum()
    }

    /// Prints `refused N: reason (e.g. history at path)`, most frequent first.
    fn print(&self) {
        let mut reasons: Vec<_> = self.by_reason.iter().collect();
        reasons.sort_by(|(a_why, (a, _)), (b_why, (b, _))| b.cmp(a).then(a_why.cmp(b_why)));
        for (why, (count, example)) in reasons {
            println!("  refused {count}: {why} (e.g. {example})");
        }
    }
}

/// What a UI-format check converted, for its summary.
pub(crate) struct Counts {
    pub(crate) fixtures: usize,
    pub(crate) realworld: usize,
    pub(crate) arbitrary: usize,
    /// Histories converted and sent to the oracle.
    pub(crate) compared: usize,
    /// Real files of the format read.
    pub(crate) foreign: usize,
    /// Histories the lossless form gave back unchanged.
    pub(crate) lossless_identity: usize,
}

/// Tallies the oracle's answers (`"equal"`, a refusal of a real file, or a difference), prints the
/// summary and fails on any difference, or when too few histories were compared.
pub(crate) fn judge(
    format: &str,
    answers: &[Value],
    counts: &Counts,
    refused: &Refusals,
    mut failures: Vec<String>,
) -> Result<()> {
    let Counts {
        fixtures,
        realworld,
        arbitrary,
        compared,
        foreign,
        lossless_identity,
    } = *counts;
    let mut equal: BTreeMap<String, usize> = BTreeMap::new();
    let mut pydantic_refuses = 0usize;
    // Mutated documents pydantic-ai refuses (msgflow may read them or refuse them).
    let mut mutated_refused = 0usize;
    for answer in answers {
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
                _ if check == "foreign" && verdict.get("refused").is_some() => pydantic_refuses += 1,
                _ if check == "mutated" && verdict.get("refused").is_some() => mutated_refused += 1,
                _ => failures.push(format!("{name}: {check}: {verdict}")),
            }
        }
    }
    let refusals = refused.total();
    println!(
        "{} histories ({fixtures} fixtures, {realworld} real-world, {arbitrary} arbitrary): {compared} \
         converted, {refusals} refused by msgflow; {foreign} {format} inputs msgflow did not write (real files and \
         committed client inputs; {pydantic_refuses} refused by pydantic-ai)",
        compared + refusals
    );
    for (check, count) in &equal {
        println!("  {check}: {count} equal to pydantic-ai");
    }
    println!("  lossless round trip: {lossless_identity} of {compared} histories unchanged");
    println!(
        "  mutated {format} documents: {} loaded alike, {mutated_refused} refused by pydantic-ai",
        equal.get("mutated").copied().unwrap_or(0)
    );
    refused.print();
    if !failures.is_empty() {
        for failure in failures.iter().take(SHOWN) {
            println!("FAIL {failure}");
        }
        bail!("{} differences", failures.len());
    }
    // Arbitrary histories are dense in parts msgflow refuses for the UI formats (each is listed above);
    // this guards against a check that silently compares next to nothing.
    if compared < (compared + refusals) / 5 {
        bail!("too few histories compared: {compared} of {}", compared + refusals);
    }
    Ok(())
}

/// Whether the history holds tool parts without a `tool_call_id`, which pydantic-ai gives random ids
/// on load (and msgflow `msgflow_call_<message>_<part>`): the oracle leaves such ids out on both sides.
pub(crate) fn has_made_up_ids(history: &[msgflow_wire::ModelMessage]) -> bool {
    !msgflow_providers::InventedIds::of(history).is_empty()
}

/// Gives every response without a timestamp the fixed one, and so every retry feedback part (and
/// legacy retry prompt, which loads as one) without the key: pydantic-ai stamps both with the load
/// time and writes the stamp for the front end, msgflow with the time of the conversion.
pub(crate) fn stamp_load_times(history: &mut Value) {
    for message in history.as_array_mut().into_iter().flatten() {
        let Some(object) = message.as_object_mut() else {
            continue;
        };
        if object.get("kind") == Some(&json!("response")) && object.get("timestamp").is_none_or(Value::is_null) {
            object.insert("timestamp".into(), FIXED_TIMESTAMP.into());
        }
        if object.get("kind") == Some(&json!("request")) {
            let parts = object.get_mut("parts").and_then(Value::as_array_mut);
            for part in parts.into_iter().flatten().filter_map(Value::as_object_mut) {
                let feedback = matches!(
                    part.get("part_kind").and_then(Value::as_str),
                    Some("retry-feedback" | "retry-prompt")
                );
                if feedback && !part.contains_key("timestamp") {
                    part.insert("timestamp".into(), FIXED_TIMESTAMP.into());
                }
            }
        }
    }
}

/// The real files of `../shared/formats/<format>`, by name (`formats/<format>/<file>`).
pub(crate) fn foreign_inputs(root: &Path, format: &str) -> Result<Vec<(String, Value)>> {
    let mut inputs = Vec::new();
    for path in crate::conformance::foreign_files(root, format)? {
        let text = std::fs::read_to_string(&path)?;
        let value: Value = serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
        inputs.push((
            format!("formats/{format}/{}", crate::conformance::file_name(&path)),
            value,
        ));
    }
    Ok(inputs)
}

/// The committed client inputs of `crates/formats/tests/data/<file>` (what clients send beside
/// pydantic-ai's dumps: AG-UI tool results holding media and file references, enqueued messages),
/// by name, for the differential checks to compare whole and to mutate.
pub(crate) fn client_inputs(root: &Path, file: &str) -> Result<Vec<(String, Value)>> {
    let path = root.join("crates/formats/tests/data").join(file);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let cases: Vec<Value> = serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
    Ok(cases
        .into_iter()
        .map(|case| {
            let name = format!("{file}/{}", case["name"].as_str().unwrap_or("?"));
            (name, case["messages"].clone())
        })
        .collect())
}

/// The real files of `../shared/formats/vercel-ui` and the committed client inputs, read by
/// msgflow, as cases for the oracle.
fn foreign_cases(root: &Path, client_inputs: Vec<(String, Value)>, cases: &mut Vec<Value>) -> Result<usize> {
    let mut inputs = foreign_inputs(root, "vercel-ui")?;
    inputs.extend(client_inputs);
    let count = inputs.len();
    for (name, value) in inputs {
        let history = vercel_ui::from_value(&value, 0, &ConvertOptions::default(), &mut Report::default())
            .map_err(|err| anyhow::anyhow!("{name}: msgflow cannot read it: {err:?}"))?;
        let messages = value.get("messages").cloned().unwrap_or(value);
        cases.push(json!({
            "name": name,
            "ui": messages,
            "back": serde_json::from_str::<Value>(&msgflow_wire::to_string(&history)?)?,
        }));
    }
    Ok(count)
}
