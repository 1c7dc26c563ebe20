//! The verdict differential's inputs: the valid base histories (pydantic-ai's, msgflow's pydantic
//! and any flavours), the long joined histories and the real-world corpus.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::strategy::{Strategy, ValueTree};

use super::cases::Case;
use super::{ANY_BASES, MSGFLOW_BASES, PRETTY_EVERY, PYDANTIC_BASES};
use crate::mutate::Json;
use crate::project_root;

/// An any-flavour base history.
pub(super) struct AnyBase {
    pub(super) name: String,
    /// The text judged whole: as msgflow writes it, or re-indented.
    pub(super) text: String,
    pub(super) pretty: bool,
    /// The history as msgflow writes it, which is mutated.
    pub(super) json: Json,
}

/// [`ANY_BASES`] histories of `msgflow_wire::arbitrary::history(Flavour::Any)`, drawn from the
/// run's seed (a stream apart from the pydantic-flavour bases'): absent keys, nulls, unknown keys,
/// parts and values, and the lax and odd spellings msgflow keeps as written (`" T "` for a bool,
/// `"7"` for an int, timestamps and numbers pydantic-ai normalises). Many are not loadable; the
/// differential compares the reasons.
pub(super) fn any_bases(dir: &Path, seed: u64) -> Result<Vec<AnyBase>> {
    let any_dir = dir.join("bases-any");
    std::fs::create_dir_all(&any_dir)?;
    let mut runner = crate::conformance::seeded_runner(seed ^ 0x616e_7966_6c61_766f);
    let strategy = history(Flavour::Any);
    let mut bases = Vec::with_capacity(ANY_BASES);
    for index in 0..ANY_BASES {
        let messages = strategy
            .new_tree(&mut runner)
            .map_err(|reason| anyhow::anyhow!("generating any-flavour history {index}: {reason}"))?
            .current();
        let written =
            msgflow_wire::to_string(&messages).with_context(|| format!("writing any-flavour history {index}"))?;
        let json = Json::parse(&written).with_context(|| format!("parsing any-flavour history {index}"))?;
        let pretty = index % PRETTY_EVERY == PRETTY_EVERY - 1;
        let text = if pretty { json.to_pretty_text() } else { written };
        let name = format!("bases-any/any-{index}.json");
        std::fs::write(dir.join(&name), &text)?;
        bases.push(AnyBase {
            name,
            text,
            pretty,
            json,
        });
    }
    Ok(bases)
}

/// The message count from which the verdict walks a history in parallel chunks
/// (`msgflow_wire::verdict`), and how many long histories are checked.
const LONG_MESSAGES: usize = 1024;
const LONG_HISTORIES: usize = 3;

/// The mutated histories msgflow reads, in order, joined as written into [`LONG_HISTORIES`] histories of at
/// least [`LONG_MESSAGES`] messages each (their texts spliced, so every mutation stays as it was
/// written); with each one's message count.
pub(super) fn long_inputs(dir: &Path, cases: &[Case]) -> Result<Vec<(String, usize)>> {
    let mut joined = Vec::new();
    let (mut text, mut messages) = (String::from("["), 0usize);
    for case in cases {
        if joined.len() == LONG_HISTORIES {
            break;
        }
        // One history msgflow cannot read would leave nothing of the joined one to compare.
        if case.msgflow.parse_error.is_some() {
            continue;
        }
        let input =
            std::fs::read_to_string(dir.join(&case.input)).with_context(|| format!("reading {}", case.input))?;
        let input = input.trim();
        // A mutation of the list itself (no longer an array, or empty) cannot be spliced.
        let Some(inner) = input.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) else {
            continue;
        };
        let Ok(items) = serde_json::from_str::<Vec<serde::de::IgnoredAny>>(input) else {
            continue;
        };
        if items.is_empty() {
            continue;
        }
        if messages > 0 {
            text.push(',');
        }
        text.push_str(inner);
        messages += items.len();
        if messages >= LONG_MESSAGES * 2 {
            text.push(']');
            joined.push((std::mem::replace(&mut text, String::from("[")), messages));
            messages = 0;
        }
    }
    if joined.len() < LONG_HISTORIES {
        bail!(
            "the mutations make only {} long histories (need {LONG_HISTORIES})",
            joined.len()
        );
    }
    Ok(joined)
}

/// The base histories, parsed: msgflow's, then pydantic-ai's (larger, so they absorb the
/// shortfall of msgflow's small ones; see `run`).
pub(super) fn bases(python: &Path, dir: &Path, seed: u64) -> Result<Vec<(String, Json)>> {
    let pydantic_dir = dir.join("bases-pydantic");
    let status = Command::new(python)
        .arg(project_root().join("oracle/conformance.py"))
        .args(["gen-histories", "--seed", &seed.to_string(), "--count"])
        .arg(PYDANTIC_BASES.to_string())
        .arg("--out")
        .arg(&pydantic_dir)
        .current_dir(project_root())
        .status()
        .context("running oracle/conformance.py gen-histories")?;
    if !status.success() {
        bail!("conformance.py gen-histories failed ({status})");
    }
    let mut bases = msgflow_bases(dir, seed)?;
    for index in 0..PYDANTIC_BASES {
        let path = pydantic_dir.join(format!("hist-{index}.json"));
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let base = Json::parse(&text).with_context(|| format!("parsing {}", path.display()))?;
        bases.push((format!("bases-pydantic/hist-{index}.json"), base));
    }
    Ok(bases)
}

/// Histories written by msgflow from `msgflow_wire::arbitrary`, parsed.
fn msgflow_bases(dir: &Path, seed: u64) -> Result<Vec<(String, Json)>> {
    let mut bases = Vec::new();
    let msgflow_dir = dir.join("bases-msgflow");
    std::fs::create_dir_all(&msgflow_dir)?;
    let mut runner = crate::conformance::seeded_runner(seed);
    let strategy = history(Flavour::Pydantic);
    for index in 0..MSGFLOW_BASES {
        let messages = strategy
            .new_tree(&mut runner)
            .map_err(|reason| anyhow::anyhow!("generating history {index}: {reason}"))?
            .current();
        let text = msgflow_wire::to_string(&messages).with_context(|| format!("writing history {index}"))?;
        let name = format!("bases-msgflow/msgflow-{index}.json");
        std::fs::write(dir.join(&name), &text)?;
        bases.push((
            name,
            Json::parse(&text).with_context(|| format!("parsing msgflow history {index}"))?,
        ));
    }
    Ok(bases)
}

/// The real-world corpus (`tests/fixtures/realworld/*.json`), one message object wrapped in a
/// list as `PROVENANCE.md` says (and as `verdict_oracle.py realworld` loads it).
pub(super) fn realworld_inputs() -> Result<Vec<(String, String)>> {
    let dir = project_root().join("tests/fixtures/realworld");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(&name)).with_context(|| format!("reading {name}"))?;
            let single = text.trim_start().starts_with('{');
            Ok((name, if single { format!("[{text}]") } else { text }))
        })
        .collect()
}
