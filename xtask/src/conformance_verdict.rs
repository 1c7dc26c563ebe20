//! The verdict differential (part of `cargo xtask conformance`): msgflow's loadability verdict
//! (`msgflow_wire::verdict`) against pydantic-ai 2.68.0's `ModelMessagesTypeAdapter.validate_json`,
//! on fresh schema-driven mutations of valid histories and on the real-world corpus.
//!
//! 1. **Bases.** Valid histories written by pydantic-ai (`conformance.py gen-histories`) and by
//!    msgflow (`msgflow_wire::arbitrary`, pydantic flavour), both drawn from the run's seed; and
//!    [`ANY_BASES`] histories of `arbitrary`'s any flavour (absent keys, nulls, unknown keys, parts
//!    and values, lax and odd spellings: `" T "` for a bool, `"7"` for an int, timestamps and
//!    numbers pydantic-ai normalises, integers beyond 64 bits), as msgflow writes them. Those are
//!    judged whole too (one in [`PRETTY_EVERY`] re-indented, whitespace between every token), so
//!    every corner msgflow's own proptests reach is compared with pydantic-ai; their
//!    disagreements are grouped by the first (type, loc) only one side reports.
//! 2. **Mutations.** [`crate::mutate`] lists every single-point edit of each base that the schema
//!    suggests; at least [`MUTATIONS`] are drawn, evenly over the pydantic-flavour bases, and
//!    [`ANY_MUTATIONS`] over the any-flavour ones. The mutated histories msgflow reads are also
//!    joined, as written, into [`LONG_HISTORIES`](inputs::LONG_HISTORIES) histories of over 2,048
//!    messages, which the verdict walks in parallel chunks.
//! 3. **msgflow's side**, in process: parse, verdict (loadable, reasons with type and loc), and
//!    for every history it parses the `fmt` output (`to_vec` of the parse), written beside the
//!    input, and whether it has the input's JSON value.
//! 4. **pydantic-ai's side**, one Python process for the whole batch (`verdict_oracle.py judge`):
//!    loadable, errors (type, loc), and for loaded inputs whether the re-dump of msgflow's output
//!    equals the re-dump of the input (timestamps and ids pydantic-ai invents on load masked).
//! 5. **Comparison.** A disagreement is a different verdict, a different set of (type, loc) for
//!    an input both refuse, an accepted input whose `fmt` output changes the JSON value, or whose
//!    re-dump differs. Every disagreement fails the check; they are grouped by mutation
//!    (schema location and class), each with its input file under `target/conformance/verdict/`,
//!    pydantic-ai's errors and msgflow's reasons, and written whole to `disagreements.json`.
//!    With `--record-verdict-fixtures` the smallest input of each group is copied to
//!    `tests/fixtures/verdict/` and `verdict_oracle.py expect` writes its expected verdict
//!    (mutations of an any-flavour base that disagrees whole are left to the base's fixture).
//!
//! `inputs` makes the bases and the other inputs, `judge` runs both sides and compares them,
//! `report` prints the outcome and `fixtures` records disagreements as fixtures.
//!
//! The default seed is derived from the git HEAD commit id (each commit draws fresh mutations,
//! and CI's run of a commit is the one anybody can run before pushing it); `--seed` overrides.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::mutate::{candidates, sample, Json, Mutation, Rng, Schema, Step};
use crate::project_root;
use msgflow_integration_tests::matches_open;

/// Mutations per run, at least.
pub const MUTATIONS: usize = 5000;
/// Base histories written by pydantic-ai.
const PYDANTIC_BASES: usize = 200;
/// Base histories written by msgflow (`arbitrary`).
const MSGFLOW_BASES: usize = 100;
/// Histories of `msgflow_wire::arbitrary`'s any flavour: judged whole, as written, and mutated.
const ANY_BASES: usize = 300;
/// Mutations of the any-flavour bases, at least (beside the [`MUTATIONS`] of the others).
const ANY_MUTATIONS: usize = 2000;
/// One any-flavour base in this many is judged re-indented (whitespace between every token).
const PRETTY_EVERY: usize = 4;
/// Disagreement groups shown in detail.
const SHOWN_GROUPS: usize = 12;
/// Errors (pydantic-ai's, msgflow's) shown per example.
const SHOWN_ERRORS: usize = 4;

mod cases;
mod fixtures;
mod inputs;
mod judge;
mod report;
#[cfg(test)]
mod tests;

use self::cases::{Case, Disagreement, Origin};
use self::fixtures::{fixture_name, open_fixtures, record_fixtures};
use self::inputs::{any_bases, bases, long_inputs, realworld_inputs};
use self::judge::{compare, judge_msgflow, judge_pydantic};
use self::report::{print_disagreements, summarise};

/// Generates, judges and compares; fails on any disagreement.
pub fn run(python: &Path, work: &Path, seed: u64, record: bool) -> Result<()> {
    let dir = work.join("verdict");
    crate::conformance::fresh_dir(&dir)?;
    println!("verdict seed {seed} (from git HEAD unless --seed is given)");

    let bases = bases(python, &dir, seed)?;
    let any = any_bases(&dir, seed)?;
    let schema = Schema::load(&project_root().join("schema/pydantic-ai-messages.schema.json"))?;
    let mut rng = Rng::new(seed);
    let mut cases = Vec::new();
    let mut candidate_total = mutate(&dir, &schema, &bases, MUTATIONS, &mut rng, &mut cases)?;
    // Smallest first (an any-flavour history may be empty): the larger ones after absorb the
    // shortfall of the small ones' shares.
    let mut any_pairs: Vec<(String, Json)> = any.iter().map(|base| (base.name.clone(), base.json.clone())).collect();
    any_pairs.sort_by_key(|(name, json)| (json.to_text().len(), name.clone()));
    candidate_total += mutate(&dir, &schema, &any_pairs, ANY_MUTATIONS, &mut rng, &mut cases)?;
    let mutations = cases.len();
    let long = long_inputs(&dir, &cases)?;
    let long_count = long.len();
    for (text, messages) in long {
        let id = format!("long-{}", cases.len());
        cases.push(judge_msgflow(&dir, id, text, Origin::Long { messages })?);
    }
    for base in any {
        let id = format!("any-{}", cases.len());
        let origin = Origin::AnyBase {
            name: base.name,
            pretty: base.pretty,
        };
        cases.push(judge_msgflow(&dir, id, base.text, origin)?);
    }
    for (name, text) in realworld_inputs()? {
        let id = format!("realworld-{}", cases.len());
        cases.push(judge_msgflow(&dir, id, text, Origin::RealWorld { name })?);
    }
    println!(
        "{mutations} mutations drawn from {candidate_total} candidates over {} base histories ({} of them \
         any-flavour, {ANY_MUTATIONS} mutations), plus {long_count} of them joined into long histories, the \
         {ANY_BASES} any-flavour bases judged whole and {} real-world histories",
        bases.len() + ANY_BASES,
        ANY_BASES,
        cases.len() - mutations - long_count - ANY_BASES
    );

    let oracle = judge_pydantic(python, &dir, &cases)?;
    let disagreements = compare(&dir, &cases, &oracle)?;
    summarise(&cases, &oracle);
    let report_path = dir.join("disagreements.json");
    std::fs::write(&report_path, serde_json::to_vec_pretty(&disagreements)?)
        .with_context(|| format!("writing {}", report_path.display()))?;
    if disagreements.is_empty() {
        return Ok(());
    }
    if record {
        // A mutation of an any-flavour base that itself disagrees mostly shows the base's
        // disagreement again, under the mutation's name: the base's own fixture records it.
        let disagreeing_bases: BTreeSet<&str> = disagreements
            .iter()
            .filter(|d| d.group.starts_with("any "))
            .filter_map(|d| d.any_base.as_deref())
            .collect();
        let own: Vec<&Disagreement> = disagreements
            .iter()
            .filter(|d| {
                d.group.starts_with("any ")
                    || d.any_base
                        .as_deref()
                        .is_none_or(|base| !disagreeing_bases.contains(base))
            })
            .collect();
        record_fixtures(python, &own)?;
    }
    // Known, open disagreements (their fixture is listed in OPEN.txt) are reported, not failed
    // on: the check fails on every disagreement no committed fixture records as open.
    let open = open_fixtures()?;
    let (known, new): (Vec<Disagreement>, Vec<Disagreement>) = disagreements.into_iter().partition(|disagreement| {
        let name = fixture_name(disagreement.kind, &disagreement.group);
        open.iter().any(|pattern| matches_open(pattern, &name))
    });
    if !known.is_empty() {
        println!(
            "{} of {} inputs show disagreements already recorded as open in tests/fixtures/verdict/OPEN.txt \
             ({} groups; all in {})",
            known.len(),
            cases.len(),
            known
                .iter()
                .map(|d| fixture_name(d.kind, &d.group))
                .collect::<BTreeSet<_>>()
                .len(),
            report_path.display()
        );
    }
    if new.is_empty() {
        return Ok(());
    }
    let groups = print_disagreements(&new);
    bail!(
        "{} of {} inputs disagree with pydantic-ai in ways no fixture records ({groups} distinct mutations or \
         files; all in {}; `--record-verdict-fixtures` commits them as fixtures)",
        new.len(),
        cases.len(),
        report_path.display()
    )
}

/// Draws at least `count` mutations, evenly over `bases`, judges msgflow's side of each and
/// appends them to `cases`; returns how many candidates there were.
fn mutate(
    dir: &Path,
    schema: &Schema,
    bases: &[(String, Json)],
    count: usize,
    rng: &mut Rng,
    cases: &mut Vec<Case>,
) -> Result<usize> {
    let start = cases.len();
    let all: Vec<Vec<Mutation>> = bases.iter().map(|(_, base)| candidates(schema, base)).collect();
    let candidate_total = all.iter().map(Vec::len).sum();
    // Even shares, the smallest bases first: each takes an even share of what is still missing,
    // or all it has, so a small base's shortfall goes to the larger ones wherever they stand in
    // the list (shared in list order, a shortfall near its end had no base left to take it).
    let mut order: Vec<usize> = (0..bases.len()).collect();
    order.sort_by_key(|&index| all[index].len());
    let mut shares = vec![0; bases.len()];
    let mut missing = count;
    for (position, &index) in order.iter().enumerate() {
        let share = missing.div_ceil(bases.len() - position).min(all[index].len());
        shares[index] = share;
        missing = missing.saturating_sub(share);
    }
    for (((name, base), all), share) in bases.iter().zip(all).zip(shares) {
        for mutation in sample(all, share, rng) {
            let mutated = mutation.apply(base)?;
            let reduced = match (&mutated, mutation.steps.as_slice()) {
                (Json::Array(messages), [Step::Index(at), _, ..]) => messages
                    .get(*at)
                    .map(|message| Json::Array(vec![message.clone()]).to_text()),
                _ => None,
            };
            let id = format!("m-{}", cases.len());
            let origin = Origin::Mutation {
                base: name.clone(),
                mutation: Box::new(mutation),
                reduced,
            };
            cases.push(judge_msgflow(dir, id, mutated.to_text(), origin)?);
        }
    }
    let drawn = cases.len() - start;
    if drawn < count {
        bail!("only {drawn} mutations drawn from {} bases (need {count})", bases.len());
    }
    Ok(candidate_total)
}
