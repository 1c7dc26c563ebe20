//! The real-world check (part of `cargo xtask conformance`): every history of the corpora
//! `../shared/realworld2/` and `../shared/realworld/` (beside the checkout; `PROVENANCE.md` in
//! each says where every file came from), judged by msgflow and by pydantic-ai 2.68.0 itself
//! (`oracle/realworld_oracle.py`, in the providers venv):
//!
//! * the loadability verdict equals pydantic-ai's (`validate_json`), for files msgflow's types
//!   cannot hold too;
//! * `fmt` keeps the JSON value of every file msgflow reads;
//! * `repair` with default options equals pydantic-ai's `repair_messages` (both as pydantic-ai
//!   dumps them; timestamps pydantic-ai fills on load and generated tool-call ids masked);
//! * `export` succeeds wherever pydantic-ai's mapping builds a request, and equals it;
//! * `trim` (one turn; 200 `o200k_base` tokens) writes a history pydantic-ai loads and breaks no
//!   pair the input did not already have broken.
//!
//! A file holding one message object (SINGLE in `PROVENANCE.md`) is read wrapped in a list. The
//! corpora are required under CI (`CI` set); elsewhere a missing one is skipped with a message.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_context::tokens::{TokenCounter, Tokenizer};
use msgflow_context::trim::{trim, Budget};
use msgflow_providers::{export, Provider};
use msgflow_sanitize::{check, repair, RepairOptions};
use msgflow_wire::ModelMessage;
use serde_json::{json, Value};

use crate::project_root;

/// The corpora, relative to the workspace root.
const CORPORA: [&str; 2] = ["../shared/realworld2", "../shared/realworld"];
/// How many failures are shown in detail.
const SHOWN: usize = 8;

/// A tool-call id generated for a part without one: pydantic-ai's random `pyd_ai_<32 hex>`, or
/// msgflow's `msgflow_call_<message>_<part>`.
fn is_generated_id(text: &str) -> bool {
    let hex = |rest: &str| rest.len() == 32 && rest.bytes().all(|byte| byte.is_ascii_hexdigit());
    let position = |rest: &str| {
        rest.split_once('_').is_some_and(|(message, part)| {
            [message, part]
                .iter()
                .all(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    text.strip_prefix("pyd_ai_").is_some_and(hex) || text.strip_prefix("msgflow_call_").is_some_and(position)
}

/// A request with every generated id replaced by `<generated>`.
fn masked_ids(value: &Value) -> Value {
    match value {
        Value::String(text) if is_generated_id(text) => Value::String("<generated>".to_owned()),
        Value::Array(items) => Value::Array(items.iter().map(masked_ids).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(key, item)| (key.clone(), masked_ids(item))).collect()),
        other => other.clone(),
    }
}

/// The budgets `trim` is run with, by the name the oracle reports them under.
fn budgets() -> [(&'static str, Budget); 2] {
    [("turns-1", Budget::Turns(1)), ("tokens-200", Budget::Tokens(200))]
}

/// Judges every corpus file with msgflow, asks the oracle, and fails on any disagreement.
pub fn run(python: &Path, work: &Path) -> Result<()> {
    let dir = work.join("realworld");
    crate::conformance::fresh_dir(&dir)?;
    let files = corpus_files()?;
    if files.is_empty() {
        println!("no real-world corpus found beside the checkout: nothing to check");
        return Ok(());
    }
    let counter = TokenCounter::new(Tokenizer::O200kBase);
    let mut manifest = Vec::new();
    let mut ours = BTreeMap::new();
    let mut failures = Vec::new();
    for (index, (name, text)) in files.iter().enumerate() {
        let id = format!("case-{index}");
        let side = judge_msgflow(&dir, &id, text, &counter)?;
        if let Some(problem) = &side.fmt_problem {
            failures.push(format!("{name}: fmt: {problem}"));
        }
        for problem in &side.broken_pairs {
            failures.push(format!("{name}: trim {problem}"));
        }
        manifest.push(json!({
            "name": name,
            "input": format!("{id}.json"),
            "repaired": side.repaired,
            "trimmed": side.trimmed,
        }));
        ours.insert(name.clone(), side);
    }
    let manifest_path = dir.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest)?).context("writing the manifest")?;
    let answers_path = dir.join("answers.jsonl");
    let script = project_root().join("oracle/realworld_oracle.py");
    let status = Command::new(python)
        .arg(&script)
        .arg("--manifest")
        .arg(&manifest_path)
        .arg("--out")
        .arg(&answers_path)
        .current_dir(project_root().join("oracle"))
        .status()
        .with_context(|| format!("running {}", script.display()))?;
    if !status.success() {
        bail!("realworld_oracle.py failed ({status})");
    }
    let answers = std::fs::read_to_string(&answers_path).context("reading the oracle's answers")?;
    let (mut loadable, mut repaired, mut exported, mut trimmed) = (0usize, 0usize, 0usize, 0usize);
    for line in answers.lines() {
        let answer: Value = serde_json::from_str(line).context("an answer line")?;
        let name = answer["name"].as_str().unwrap_or_default().to_owned();
        let Some(side) = ours.get(&name) else {
            bail!("the oracle answered for {name}, which was not asked");
        };
        let theirs = answer["loadable"].as_bool().unwrap_or(false);
        if side.loadable != theirs {
            failures.push(format!(
                "{name}: verdict: msgflow says loadable={}, pydantic-ai {theirs} (its errors: {}; msgflow: {})",
                side.loadable, answer["errors"], side.verdict_detail
            ));
        }
        if !theirs {
            continue;
        }
        loadable += 1;
        match answer["repair_equal"].as_bool() {
            Some(true) => repaired += 1,
            Some(false) => failures.push(format!("{name}: repair: {}", answer["repair_detail"])),
            None => failures.push(format!(
                "{name}: repair: msgflow could not repair a history pydantic-ai loads"
            )),
        }
        for provider in Provider::EXPORTABLE {
            let theirs = &answer["exports"][provider.name()];
            match (theirs.get("request"), side.exports.get(provider.name())) {
                (Some(request), Some(Ok(ours))) => {
                    let (ours, request) = (masked_ids(ours), masked_ids(request));
                    match first_difference("$", &ours, &request) {
                        None => exported += 1,
                        Some(at) => failures.push(format!(
                            "{name}: export --to {provider}: the request differs from pydantic-ai's at {at}"
                        )),
                    }
                }
                (Some(_), Some(Err(error))) => failures.push(format!(
                    "{name}: export --to {provider}: refused ({error}) where pydantic-ai maps the history"
                )),
                (None, Some(Ok(_))) => failures.push(format!(
                    "{name}: export --to {provider}: exported where pydantic-ai refuses ({theirs})"
                )),
                (None, _) | (Some(_), None) => {}
            }
        }
        let trims = answer["trimmed"].as_object().cloned().unwrap_or_default();
        for (budget, verdict) in trims {
            if verdict["loadable"] == true {
                trimmed += 1;
            } else {
                failures.push(format!(
                    "{name}: trim {budget}: pydantic-ai does not load the output: {}",
                    verdict["errors"]
                ));
            }
        }
    }
    let answered = answers.lines().count();
    if answered != files.len() {
        failures.push(format!(
            "the oracle answered for {answered} of {} histories",
            files.len()
        ));
    }
    println!(
        "{} real-world histories ({loadable} loadable): {repaired} repairs equal pydantic-ai's, {exported} \
         exports equal, {trimmed} trimmed histories load",
        files.len()
    );
    if failures.is_empty() {
        return Ok(());
    }
    for failure in failures.iter().take(SHOWN) {
        println!("  {failure}");
    }
    bail!(
        "{} disagreements with pydantic-ai on the real-world histories",
        failures.len()
    )
}

/// Every `*.json` history of the corpora, by `<corpus>/<file name>`, a single message object
/// wrapped in a list. A corpus that is missing fails under CI.
fn corpus_files() -> Result<Vec<(String, String)>> {
    let mut files = Vec::new();
    for corpus in CORPORA {
        let dir = project_root().join(corpus);
        if !dir.is_dir() {
            if std::env::var_os("CI").is_some() {
                bail!(
                    "{} is missing: CI needs the real-world corpora beside the checkout",
                    dir.display()
                );
            }
            println!("SKIP {corpus}: {} is missing", dir.display());
            continue;
        }
        let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|entry| Some(entry.ok()?.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        names.sort();
        let label = corpus.trim_start_matches("../shared/");
        for path in names {
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            let single = text.trim_start().starts_with('{');
            let name = format!("{label}/{}", path.file_name().unwrap_or_default().to_string_lossy());
            files.push((name, if single { format!("[{text}]") } else { text }));
        }
    }
    Ok(files)
}

/// What msgflow made of one history.
struct MsgflowSide {
    loadable: bool,
    verdict_detail: String,
    fmt_problem: Option<String>,
    /// The repaired history's file, when msgflow reads the input.
    repaired: Option<String>,
    /// Per budget, the trimmed history's file (budgets the newest turn does not fit are left out).
    trimmed: BTreeMap<&'static str, String>,
    /// Pairs the trimmed history breaks that the input did not.
    broken_pairs: Vec<String>,
    exports: BTreeMap<&'static str, Result<Value, String>>,
}

fn judge_msgflow(dir: &Path, id: &str, text: &str, counter: &TokenCounter) -> Result<MsgflowSide> {
    let write = |suffix: &str, bytes: &[u8]| -> Result<String> {
        let name = format!("{id}{suffix}.json");
        std::fs::write(dir.join(&name), bytes).with_context(|| format!("writing {name}"))?;
        Ok(name)
    };
    write("", text.as_bytes())?;
    let history = match msgflow_wire::from_str(text) {
        Ok(history) => history,
        Err(error) => {
            return Ok(MsgflowSide {
                loadable: false,
                verdict_detail: format!("not a history msgflow reads: {error}"),
                fmt_problem: None,
                repaired: None,
                trimmed: BTreeMap::new(),
                broken_pairs: Vec::new(),
                exports: BTreeMap::new(),
            })
        }
    };
    let violations = check(&history);
    let refusing: Vec<String> = violations
        .iter()
        .filter(|violation| violation.kind.refuses_loading())
        .map(|violation| violation.detail.clone())
        .collect();
    let fmt = msgflow_wire::to_vec(&history).context("writing a history msgflow read")?;
    let fmt_problem = match (
        serde_json::from_str::<Value>(text),
        serde_json::from_slice::<Value>(&fmt),
    ) {
        (Ok(input), Ok(output)) if input == output => None,
        (Ok(input), Ok(output)) => Some(format!(
            "the JSON value changed at {}",
            first_difference("$", &input, &output).unwrap_or_default()
        )),
        (_, Err(error)) => Some(format!("the output is not JSON: {error}")),
        (Err(_), Ok(_)) => None,
    };
    let repaired = repair(history.clone(), &RepairOptions::default());
    let repaired = write(".repaired", &msgflow_wire::to_vec(&repaired.history)?)?;
    let mut trimmed = BTreeMap::new();
    let mut broken_pairs = Vec::new();
    let before = broken(&history);
    for (budget_name, budget) in budgets() {
        let Ok(output) = trim(history.clone(), budget, counter) else {
            continue;
        };
        let after = broken(&output.history);
        for pair in after.keys() {
            if after[pair] > before.get(pair).copied().unwrap_or(0) {
                broken_pairs.push(format!("{budget_name}: breaks {pair}"));
            }
        }
        trimmed.insert(
            budget_name,
            write(
                &format!(".trimmed-{budget_name}"),
                &msgflow_wire::to_vec(&output.history)?,
            )?,
        );
    }
    let exports = Provider::EXPORTABLE
        .into_iter()
        .map(|provider| {
            (
                provider.name(),
                export(&history, provider).map_err(|error| error.to_string()),
            )
        })
        .collect();
    Ok(MsgflowSide {
        loadable: refusing.is_empty(),
        verdict_detail: if refusing.is_empty() {
            "loadable".to_owned()
        } else {
            refusing.join("; ")
        },
        fmt_problem,
        repaired: Some(repaired),
        trimmed,
        broken_pairs,
        exports,
    })
}

/// The dangling calls and orphan results of a history, counted by kind and tool-call id.
fn broken(history: &[ModelMessage]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for violation in msgflow_integration_tests::unpaired(history) {
        let key = format!("{:?} {:?}", violation.kind, violation.tool_call_id);
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// The first path where two JSON values differ, their objects compared as maps: unlike the repair
/// check's (`conformance_repair`), which holds histories to pydantic-ai's key order, a request's
/// key order is the SDK's dicts' on one side and msgflow's structs' on the other, and no provider
/// reads it.
fn first_difference(path: &str, left: &Value, right: &Value) -> Option<String> {
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            if let Some(key) = a
                .keys()
                .chain(b.keys())
                .find(|key| !(a.contains_key(*key) && b.contains_key(*key)))
            {
                return Some(format!("{path}.{key}: present on one side only"));
            }
            a.iter()
                .find_map(|(key, value)| first_difference(&format!("{path}.{key}"), value, &b[key]))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(index, (x, y))| first_difference(&format!("{path}[{index}]"), x, y)),
        _ if left == right => None,
        _ => Some(format!("{path}: {left} != {right}")),
    }
}
