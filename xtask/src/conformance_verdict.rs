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
//!    joined, as written, into [`LONG_HISTORIES`] histories of over 2,048 messages, which the
//!    verdict walks in parallel chunks.
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
//! The default seed is derived from the git HEAD commit id (each commit draws fresh mutations,
//! and CI's run of a commit is the one anybody can run before pushing it); `--seed` overrides.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_wire::arbitrary::{history, Flavour};
use msgflow_wire::verdict;
use proptest::strategy::{Strategy, ValueTree};
use serde_json::Value;

use crate::mutate::{candidates, sample, Json, Mutation, Rng, Schema, Step};
use msgflow_integration_tests::{matches_open, open_verdict_disagreements};

use crate::project_root;

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
#[cfg(test)]
mod tests;

use self::cases::{Case, Disagreement, MsgflowSide, OracleRow, Origin, ReasonRow};

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

/// An any-flavour base history.
struct AnyBase {
    name: String,
    /// The text judged whole: as msgflow writes it, or re-indented.
    text: String,
    pretty: bool,
    /// The history as msgflow writes it, which is mutated.
    json: Json,
}

/// [`ANY_BASES`] histories of `msgflow_wire::arbitrary::history(Flavour::Any)`, drawn from the
/// run's seed (a stream apart from the pydantic-flavour bases'): absent keys, nulls, unknown keys,
/// parts and values, and the lax and odd spellings msgflow keeps as written (`" T "` for a bool,
/// `"7"` for an int, timestamps and numbers pydantic-ai normalises). Many are not loadable; the
/// differential compares the reasons.
fn any_bases(dir: &Path, seed: u64) -> Result<Vec<AnyBase>> {
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
fn long_inputs(dir: &Path, cases: &[Case]) -> Result<Vec<(String, usize)>> {
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

/// The fixture names (or `*` classes) listed in `tests/fixtures/verdict/OPEN.txt`:
/// disagreements known and not fixed yet.
fn open_fixtures() -> Result<BTreeSet<String>> {
    let path = project_root().join("tests/fixtures/verdict/OPEN.txt");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(open_verdict_disagreements(&text).into_keys().collect())
}

/// The base histories, parsed: msgflow's, then pydantic-ai's (larger, so they absorb the
/// shortfall of msgflow's small ones; see `run`).
fn bases(python: &Path, dir: &Path, seed: u64) -> Result<Vec<(String, Json)>> {
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
fn realworld_inputs() -> Result<Vec<(String, String)>> {
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

/// Writes the input, runs msgflow on it and writes its `fmt` output.
fn judge_msgflow(dir: &Path, id: String, text: String, origin: Origin) -> Result<Case> {
    let input = format!("{id}.json");
    std::fs::write(dir.join(&input), &text).with_context(|| format!("writing {input}"))?;
    let msgflow = match msgflow_wire::from_str(&text) {
        Err(err) => MsgflowSide {
            loadable: false,
            parse_error: Some(err.to_string()),
            reasons: Vec::new(),
            fmt: None,
            fmt_changes_value: None,
        },
        Ok(messages) => {
            let verdict = verdict::verdict_located(&messages, &text);
            let reasons = verdict
                .reasons()
                .iter()
                .map(|reason| ReasonRow {
                    error_type: reason.error_type.clone(),
                    loc: serde_json::to_value(&reason.loc).unwrap_or(Value::Null),
                    at: format!("{} (line {}, column {})", reason.path, reason.line, reason.column),
                    message: reason.message.clone(),
                })
                .collect();
            let (fmt, fmt_changes_value) = match msgflow_wire::to_string(&messages) {
                Err(err) => (None, Some(format!("msgflow cannot write its parse: {err}"))),
                Ok(output) => {
                    let name = format!("{id}.fmt.json");
                    std::fs::write(dir.join(&name), &output).with_context(|| format!("writing {name}"))?;
                    (Some(name), value_change(&text, &output))
                }
            };
            MsgflowSide {
                loadable: verdict.is_loadable(),
                parse_error: None,
                reasons,
                fmt,
                fmt_changes_value,
            }
        }
    };
    Ok(Case {
        id,
        input,
        origin,
        msgflow,
    })
}

/// Why `output` does not have the JSON value of `input` (None when it has).
fn value_change(input: &str, output: &str) -> Option<String> {
    match (Json::parse(input), Json::parse(output)) {
        (Ok(a), Ok(b)) if a.same_value(&b) => None,
        (Ok(_), Ok(_)) => Some(crate::conformance::diff_excerpt(input.as_bytes(), output.as_bytes())),
        (Err(err), _) | (_, Err(err)) => Some(format!("not comparable: {err:#}")),
    }
}

/// Runs `verdict_oracle.py judge` once over every case.
fn judge_pydantic(python: &Path, dir: &Path, cases: &[Case]) -> Result<BTreeMap<String, OracleRow>> {
    let manifest: Vec<Value> = cases
        .iter()
        .map(|case| serde_json::json!({"id": case.id, "input": case.input, "fmt": case.msgflow.fmt}))
        .collect();
    let manifest_path = dir.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest)?)?;
    let report_path = dir.join("pydantic.json");
    let output = Command::new(python)
        .arg(project_root().join("oracle/verdict_oracle.py"))
        .arg("judge")
        .arg("--manifest")
        .arg(&manifest_path)
        .arg("--out")
        .arg(&report_path)
        .current_dir(project_root().join("oracle"))
        .output()
        .context("running oracle/verdict_oracle.py judge")?;
    if !output.status.success() {
        bail!(
            "verdict_oracle.py judge failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    print!("{}", String::from_utf8_lossy(&output.stdout));
    let rows: Vec<OracleRow> =
        serde_json::from_slice(&std::fs::read(&report_path)?).context("parsing the oracle's report")?;
    let rows: BTreeMap<String, OracleRow> = rows.into_iter().map(|row| (row.id.clone(), row)).collect();
    if rows.len() != cases.len() {
        bail!("the oracle judged {} cases, expected {}", rows.len(), cases.len());
    }
    Ok(rows)
}

/// The (type, loc) pairs of a verdict, comparable across both sides.
fn error_set<'a>(errors: impl Iterator<Item = (&'a str, &'a Value)>) -> BTreeSet<(String, String)> {
    errors
        .map(|(error_type, loc)| (error_type.to_owned(), loc.to_string()))
        .collect()
}

fn compare(dir: &Path, cases: &[Case], oracle: &BTreeMap<String, OracleRow>) -> Result<Vec<Disagreement>> {
    let mut disagreements = Vec::new();
    for case in cases {
        let pydantic = oracle
            .get(&case.id)
            .with_context(|| format!("no oracle row for {}", case.id))?;
        let ours = &case.msgflow;
        let mut found = |kind: &'static str, detail: Option<String>| {
            let input = dir.join(&case.input);
            let (group, reduced) = match &case.origin {
                Origin::Mutation { reduced, .. } => (case.origin.group(), reduced.clone()),
                Origin::AnyBase { .. } => {
                    let (group, message) = any_base_group(kind, pydantic, ours);
                    (group, message.and_then(|at| one_message(&input, at)))
                }
                Origin::RealWorld { .. } | Origin::Long { .. } | Origin::Reduced { .. } => (case.origin.group(), None),
            };
            let any_base = match &case.origin {
                Origin::AnyBase { name, .. } => Some(name.clone()),
                Origin::Mutation { base, .. } if base.starts_with("bases-any/") => Some(base.clone()),
                _ => None,
            };
            disagreements.push(Disagreement {
                reduced,
                any_base,
                kind,
                group,
                what: case.origin.describe(),
                input_bytes: std::fs::metadata(&input).map(|meta| meta.len() as usize).unwrap_or(0),
                input,
                pydantic_loadable: pydantic.loadable,
                pydantic_errors: pydantic.errors.clone(),
                msgflow: serde_json::to_value(ours).unwrap_or(Value::Null),
                detail,
            });
        };
        match (pydantic.loadable, ours.loadable) {
            (true, false) => found("msgflow refuses what pydantic-ai loads", ours.parse_error.clone()),
            (false, true) => found("msgflow accepts what pydantic-ai refuses", None),
            (false, false) if ours.parse_error.is_none() => {
                let theirs = error_set(pydantic.errors.iter().map(|e| (e.error_type.as_str(), &e.loc)));
                let mine = error_set(ours.reasons.iter().map(|r| (r.error_type.as_str(), &r.loc)));
                if theirs != mine {
                    let only = |a: &BTreeSet<(String, String)>, b: &BTreeSet<(String, String)>| {
                        a.difference(b)
                            .map(|(t, l)| format!("{t} {}", short_loc(&serde_json::from_str(l).unwrap_or(Value::Null))))
                            .collect::<Vec<_>>()
                            .join("; ")
                    };
                    found(
                        "both refuse, with different errors (type, loc)",
                        Some(format!(
                            "only pydantic-ai: [{}]; only msgflow: [{}]",
                            only(&theirs, &mine),
                            only(&mine, &theirs)
                        )),
                    );
                }
            }
            (false, false) => {}
            (true, true) => {
                if let Some(change) = &ours.fmt_changes_value {
                    found(
                        "fmt changes the JSON value of an input pydantic-ai loads",
                        Some(change.clone()),
                    );
                }
                if pydantic.fmt_redump_equal == Some(false) {
                    found(
                        "pydantic-ai re-dumps msgflow's fmt output differently from the input",
                        pydantic.fmt_detail.clone(),
                    );
                }
            }
        }
    }
    Ok(disagreements)
}

/// The group of a disagreement on an any-flavour base judged whole (no mutation names it): the
/// first (type, loc) that only one side reports, the loc without its message index and with
/// list indices as `*` (`any int_parsing request.parts.*.user-prompt.timestamp`); and the index
/// of the message that loc is in, for the fixture's one-message reduction.
fn any_base_group(kind: &str, pydantic: &OracleRow, ours: &MsgflowSide) -> (String, Option<usize>) {
    let theirs: Vec<(&str, &Value)> = pydantic
        .errors
        .iter()
        .map(|e| (e.error_type.as_str(), &e.loc))
        .collect();
    let mine: Vec<(&str, &Value)> = ours.reasons.iter().map(|r| (r.error_type.as_str(), &r.loc)).collect();
    fn only<'a>(a: &[(&'a str, &'a Value)], b: &[(&'a str, &'a Value)]) -> Option<(&'a str, &'a Value)> {
        a.iter().find(|x| !b.contains(x)).copied()
    }
    let first = match kind {
        "both refuse, with different errors (type, loc)" => only(&theirs, &mine).or_else(|| only(&mine, &theirs)),
        "msgflow accepts what pydantic-ai refuses" => theirs.first().copied(),
        "msgflow refuses what pydantic-ai loads" => mine.first().copied(),
        _ => None,
    };
    let Some((error_type, loc)) = first else {
        let what = if ours.parse_error.is_some() { "unparsed" } else { "fmt" };
        return (format!("any {what}"), None);
    };
    let items = loc.as_array().map(Vec::as_slice).unwrap_or_default();
    let pattern: Vec<String> = items
        .iter()
        .skip(1)
        .map(|item| match item {
            Value::Number(_) => "*".to_owned(),
            Value::String(text) => text.chars().take(30).collect(),
            other => other.to_string(),
        })
        .collect();
    let message = items.first().and_then(Value::as_u64).map(|at| at as usize);
    (format!("any {error_type} {}", pattern.join(".")), message)
}

/// The history in `input` cut to its message `at`.
fn one_message(input: &Path, at: usize) -> Option<String> {
    let text = std::fs::read_to_string(input).ok()?;
    match Json::parse(&text).ok()? {
        Json::Array(messages) => Some(Json::Array(vec![messages.get(at)?.clone()]).to_text()),
        _ => None,
    }
}

/// Counts of what both sides said, so a run shows what it covered.
fn summarise(cases: &[Case], oracle: &BTreeMap<String, OracleRow>) {
    let loadable = oracle.values().filter(|row| row.loadable).count();
    let unparsed = cases.iter().filter(|case| case.msgflow.parse_error.is_some()).count();
    let both_refuse_unparsed = cases
        .iter()
        .filter(|case| case.msgflow.parse_error.is_some() && oracle.get(&case.id).is_some_and(|row| !row.loadable))
        .count();
    let redumped = oracle.values().filter(|row| row.fmt_redump_equal.is_some()).count();
    println!(
        "pydantic-ai loads {loadable} of {} inputs; msgflow cannot parse {unparsed} ({both_refuse_unparsed} of them \
         refused by both, errors not compared: msgflow has no reasons for what it cannot read); re-dumps compared \
         for {redumped}",
        cases.len()
    );
}

/// Prints the disagreements grouped by kind and mutation; returns the number of groups.
fn print_disagreements(disagreements: &[Disagreement]) -> usize {
    let mut by_kind: BTreeMap<&str, BTreeMap<&str, Vec<&Disagreement>>> = BTreeMap::new();
    for disagreement in disagreements {
        by_kind
            .entry(disagreement.kind)
            .or_default()
            .entry(&disagreement.group)
            .or_default()
            .push(disagreement);
    }
    let mut groups = 0;
    let mut shown = 0;
    // Every kind gets its share of the detailed examples.
    let per_kind = SHOWN_GROUPS.div_ceil(by_kind.len());
    for (kind, by_group) in &by_kind {
        let count: usize = by_group.values().map(Vec::len).sum();
        println!(
            "\n{kind}: {count} inputs, {} distinct mutations or files",
            by_group.len()
        );
        groups += by_group.len();
        for (group, members) in by_group {
            println!("  - {group}: {} inputs", members.len());
        }
        for members in by_group.values().take(per_kind) {
            shown += 1;
            let smallest = members
                .iter()
                .min_by_key(|d| d.input_bytes)
                .copied()
                .unwrap_or(members[0]);
            println!("\n  {kind}: {}", smallest.what);
            println!(
                "    input: {} ({} bytes)",
                smallest.input.display(),
                smallest.input_bytes
            );
            let errors: Vec<String> = smallest
                .pydantic_errors
                .iter()
                .take(SHOWN_ERRORS)
                .map(|e| format!("{} {} ({})", e.error_type, short_loc(&e.loc), e.msg))
                .collect();
            println!(
                "    pydantic-ai: loadable {}, errors [{}]",
                smallest.pydantic_loadable,
                errors.join("; ")
            );
            println!("    msgflow: {}", msgflow_line(&smallest.msgflow));
            if let Some(detail) = &smallest.detail {
                println!("    {detail}");
            }
        }
    }
    if groups > shown {
        println!(
            "\n  ({} more groups without an example here; every input is in disagreements.json)",
            groups - shown
        );
    }
    groups
}

/// A loc for reading: pydantic's long union member names (`json-or-python[json=list[union[...`)
/// cut to 40 characters; `disagreements.json` has them whole.
fn short_loc(loc: &Value) -> String {
    let Some(items) = loc.as_array() else {
        return loc.to_string();
    };
    let items: Vec<String> = items
        .iter()
        .map(|item| match item.as_str() {
            Some(text) if text.chars().count() > 40 => format!("\"{}...\"", text.chars().take(40).collect::<String>()),
            _ => item.to_string(),
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn msgflow_line(side: &Value) -> String {
    if let Some(error) = side.get("parse_error").and_then(Value::as_str) {
        return format!("cannot parse it: {error}");
    }
    let reasons: Vec<String> = side
        .get("reasons")
        .and_then(Value::as_array)
        .map(|reasons| {
            reasons
                .iter()
                .take(SHOWN_ERRORS)
                .map(|r| {
                    format!(
                        "{} {} at {}: {}",
                        r["type"].as_str().unwrap_or("?"),
                        short_loc(&r["loc"]),
                        r["at"].as_str().unwrap_or("?"),
                        r["message"].as_str().unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    format!("loadable {}, reasons [{}]", side["loadable"], reasons.join("; "))
}

/// A fixture name from a disagreement group: letters, digits, `.`, `-` and `_` only.
fn fixture_name(kind: &str, group: &str) -> String {
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
fn record_fixtures(python: &Path, disagreements: &[&Disagreement]) -> Result<()> {
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
