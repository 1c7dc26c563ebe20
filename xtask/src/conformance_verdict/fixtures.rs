//! The verdict differential's fixtures: the open ones listed in `tests/fixtures/verdict/OPEN.txt`,
//! and the recording of disagreements (reduced to one message where that shows the same) as new
//! ones.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use super::cases::{Disagreement, Origin};
use super::judge::{compare, judge_msgflow, judge_pydantic};
use crate::project_root;
use msgflow_integration_tests::open_verdict_disagreements;

/// The fixture names (or `*` classes) listed in `tests/fixtures/verdict/OPEN.txt`:
/// disagreements known and not fixed yet.
pub(super) fn open_fixtures() -> Result<BTreeSet<String>> {
    let path = project_root().join("tests/fixtures/verdict/OPEN.txt");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(open_verdict_disagreements(&text).into_keys().collect())
}

/// A fixture name from a disagreement group: letters, digits, `.`, `-` and `_` only.
pub(super) fn fixture_name(kind: &str, group: &str) -> String {
    let prefix = match kind {
        "msgflow refuses what pydantic-ai loads" => "refuses",
        "msgflow accepts what pydantic-ai refuses" => "accepts",
        "both refuse, with different errors (type, loc)" => "errors",
        "fmt changes the JSON value of an input pydantic-ai loads" => "fmt",
        _ => "redump",
    };
    let mut name = format!("{prefix}--{group}");
    name = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    name.truncate(120);
    name
}

/// Copies the smallest input of each group to `tests/fixtures/verdict/` and has the oracle write
/// the expected verdicts.
pub(super) fn record_fixtures(python: &Path, disagreements: &[&Disagreement]) -> Result<()> {
    let fixtures = project_root().join("tests/fixtures/verdict");
    std::fs::create_dir_all(&fixtures)?;
    let mut smallest: BTreeMap<String, &Disagreement> = BTreeMap::new();
    for &disagreement in disagreements {
        let name = fixture_name(disagreement.kind, &disagreement.group);
        let slot = smallest.entry(name).or_insert(disagreement);
        if disagreement.input_bytes < slot.input_bytes {
            *slot = disagreement;
        }
    }
    let smallest: BTreeMap<String, &Disagreement> = smallest
        .into_iter()
        .filter(|(name, _)| !fixtures.join(format!("{name}.json")).exists())
        .collect();
    let reduced = reduced_inputs(python, &smallest)?;
    for (name, disagreement) in &smallest {
        let target = fixtures.join(format!("{name}.json"));
        match reduced.get(name) {
            Some(text) => std::fs::write(&target, text),
            None => std::fs::copy(&disagreement.input, &target).map(drop),
        }
        .with_context(|| format!("writing {}", target.display()))?;
    }
    let written = smallest.len();
    let status = Command::new(python)
        .arg(project_root().join("oracle/verdict_oracle.py"))
        .arg("expect")
        .arg("--dir")
        .arg(&fixtures)
        .current_dir(project_root().join("oracle"))
        .status()
        .context("running oracle/verdict_oracle.py expect")?;
    if !status.success() {
        bail!("verdict_oracle.py expect failed ({status})");
    }
    println!("recorded {written} new fixtures in {}", fixtures.display());
    Ok(())
}

/// The one-message reductions that show the same kind of disagreement as their whole input,
/// by fixture name (judged by both sides, in one oracle batch).
fn reduced_inputs(python: &Path, smallest: &BTreeMap<String, &Disagreement>) -> Result<BTreeMap<String, String>> {
    let dir = project_root().join("target/conformance/verdict/reduced");
    crate::conformance::fresh_dir(&dir)?;
    let mut cases = Vec::new();
    for (name, disagreement) in smallest {
        if let Some(text) = &disagreement.reduced {
            let origin = Origin::Reduced { fixture: name.clone() };
            cases.push(judge_msgflow(&dir, format!("r-{}", cases.len()), text.clone(), origin)?);
        }
    }
    if cases.is_empty() {
        return Ok(BTreeMap::new());
    }
    let oracle = judge_pydantic(python, &dir, &cases)?;
    let still = compare(&dir, &cases, &oracle)?;
    let mut reduced = BTreeMap::new();
    for case in &cases {
        let Origin::Reduced { fixture: name } = &case.origin else {
            continue;
        };
        let same_kind = still
            .iter()
            .any(|d| d.group == case.origin.group() && smallest.get(name).is_some_and(|whole| whole.kind == d.kind));
        if same_kind {
            reduced.insert(name.clone(), std::fs::read_to_string(dir.join(&case.input))?);
        }
    }
    println!(
        "{} of {} fixtures reduced to the mutated message",
        reduced.len(),
        smallest.len()
    );
    Ok(reduced)
}
