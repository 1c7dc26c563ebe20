//! The loss-report check (part of `cargo xtask conformance`, `--only "loss reports"`): a "to"
//! conversion reports a value exactly where pydantic-ai 2.68.0 holds it otherwise after the trip.
//!
//! msgflow finds a "to" conversion's losses by reading its output back and diffing the two
//! histories' JSON (`msgflow_formats::round_trip`). That diff is msgflow's own judgement of what
//! pydantic-ai would hold alike: a key left out or its default, a number or a timestamp spelled
//! otherwise, a computed identifier, a legacy name, a tool result's file record. Here pydantic-ai
//! judges: for every committed fixture, the real-world corpora and seeded arbitrary histories (as
//! pydantic-ai writes them, and of any shape), converted to every format and form and read back by
//! msgflow, `oracle/loss_report_oracle.py` loads the history and what came back, dumps each message
//! and lists the JSON paths at which the dumps differ (what loading invents, load-time timestamps
//! and generated tool call ids, masked). Each path must be one a report entry names, holds or lies
//! within (a part reported as become another kind differs in its kind and its content), and each
//! entry must name such a path: an entry for a value pydantic-ai holds alike is a loss that is not
//! one (`--strict` would refuse a conversion for nothing), a difference no entry names is a loss
//! msgflow did not see. Two allowances: an entry for a key pydantic-ai does not read (the file's
//! data all the same, which a format may drop), and a difference in a field the history gives
//! under a legacy name (`vendor_id`), which the report names by the history's key.

use std::path::Path;

use anyhow::{bail, Result};
use msgflow_formats::{convert_with, ConvertOptions, Format, Output, Report};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::strategy::{Strategy, ValueTree};
use serde_json::{json, Value};

/// Seeded arbitrary histories per run (each converted in every form), as pydantic-ai writes them.
const ARBITRARY_COUNT: usize = 600;
/// And of any shape msgflow keeps.
const ANY_COUNT: usize = 600;
/// Mismatches shown in detail.
const SHOWN: usize = 8;

/// The forms every history is converted to: (label, format, options).
fn forms() -> Vec<(&'static str, Format, ConvertOptions)> {
    let with = |lossless: bool, vercel_sdk_version: u8| ConvertOptions {
        lossless,
        vercel_sdk_version,
        ..ConvertOptions::default()
    };
    vec![
        ("openai-chat", Format::OpenAiChat, ConvertOptions::default()),
        ("anthropic", Format::Anthropic, ConvertOptions::default()),
        ("vercel-ui 5", Format::VercelUi, with(false, 5)),
        ("vercel-ui 6", Format::VercelUi, with(false, 6)),
        ("vercel-ui 6 lossless", Format::VercelUi, with(true, 6)),
        ("ag-ui", Format::AgUi, ConvertOptions::default()),
        ("ag-ui lossless", Format::AgUi, with(true, 6)),
        ("otel", Format::Otel, ConvertOptions::default()),
    ]
}

/// Runs the check with the given seed.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    println!("seed {seed} (from the HEAD commit unless --seed is given)");
    let dir = work.join("loss-reports");
    crate::conformance::fresh_dir(&dir)?;
    let root = crate::project_root();
    let (sources, fixture_count, realworld_count) =
        crate::conformance_formats::history_sources(&root, seed, ARBITRARY_COUNT)?;
    let mut sources = sources
        .into_iter()
        .map(|(name, history)| Ok((name, serde_json::to_string(&history)?)))
        .collect::<Result<Vec<_>>>()?;
    // Histories with keys left out, nulls and keys pydantic-ai does not read, as older releases
    // and other tools write them (those pydantic-ai refuses are counted, not compared).
    let mut runner = crate::conformance::seeded_runner(seed.rotate_left(29));
    let strategy = history(Flavour::Any);
    for index in 0..ANY_COUNT {
        let tree = strategy.new_tree(&mut runner).map_err(|err| anyhow::anyhow!("{err}"))?;
        // As text: values such histories hold (`NaN`, ...) are no `serde_json::Value`.
        sources.push((format!("any-{index}"), msgflow_wire::to_string(&tree.current())?));
    }

    let mut cases = Vec::new();
    let mut reported: Vec<Vec<String>> = Vec::new();
    let (mut refused, mut whole) = (0usize, 0usize);
    for (name, text) in &sources {
        for (label, format, options) in forms() {
            let Some((back, report)) = trip(text, format, &options) else {
                refused += 1; // refused by the "to" (the other checks' business) or not read back
                continue;
            };
            let Some(paths) = reported_paths(&report) else {
                whole += 1; // the whole history reported (output that does not load back)
                continue;
            };
            cases.push(json!({"name": format!("{name} to {label}"), "original": text, "back": back}));
            reported.push(paths);
        }
    }
    let answers = crate::conformance::ask_oracle(python, "loss_report_oracle.py", &dir, &cases)?;

    let mut failures = Vec::new();
    let (mut agreed, mut lossy, mut unloadable, mut unread) = (0usize, 0usize, 0usize, 0usize);
    for ((case, reported), answer) in cases.iter().zip(&reported).zip(&answers) {
        let name = case["name"].as_str().unwrap_or_default();
        match answer.get("invalid").and_then(Value::as_str) {
            // A history pydantic-ai refuses has no messages it holds to compare with.
            Some("original") => {
                unloadable += 1;
                continue;
            }
            Some(side) => {
                failures.push(format!(
                    "{name}: pydantic-ai does not load the {side} history: {}",
                    answer["error"]
                ));
                continue;
            }
            None => {}
        }
        let (Some(differing), Some(unread_keys), Some(read_as)) = (
            paths(&answer["differing"]),
            paths(&answer["unread_keys"]),
            path_pairs(&answer["read_as"]),
        ) else {
            failures.push(format!("{name}: the oracle failed: {answer}"));
            continue;
        };
        // A report entry and a difference are the same loss when one's path holds the other's: a
        // part reported as become another kind differs in its kind and content.
        let silent: Vec<&str> = differing
            .iter()
            .filter(|difference| !reported.iter().any(|path| explains(path, difference, &read_as)))
            .copied()
            .collect();
        let noise: Vec<&str> = reported
            .iter()
            .filter(|path| !differing.iter().any(|difference| related(path, difference)))
            .map(String::as_str)
            .collect();
        // Keys pydantic-ai does not read are the file's data all the same: a format that drops
        // them loses it, and says so, though pydantic-ai holds the message alike.
        let unexplained: Vec<&str> = noise
            .iter()
            .filter(|path| !unread_keys.iter().any(|key| related(path, key)))
            .copied()
            .collect();
        if silent.is_empty() && unexplained.is_empty() {
            agreed += 1;
            lossy += usize::from(!reported.is_empty());
            unread += usize::from(!noise.is_empty());
            continue;
        }
        failures.push(format!(
            "{name}: reported but held alike by pydantic-ai: {unexplained:?}; held otherwise but not reported: \
             {silent:?}"
        ));
    }
    println!(
        "{} cases ({fixture_count} fixtures, {realworld_count} real-world, {ARBITRARY_COUNT} + {ANY_COUNT} arbitrary histories in {} \
         forms; {refused} refused or not read back, {whole} reported whole, {unloadable} of histories pydantic-ai \
         refuses): the report names exactly the values pydantic-ai holds otherwise in {agreed} ({lossy} of them \
         lossy; {unread} also naming keys pydantic-ai does not read)",
        cases.len() - unloadable,
        forms().len()
    );
    if !failures.is_empty() {
        let listed = dir.join("failures.txt");
        std::fs::write(&listed, failures.join("\n") + "\n")?;
        println!("every disagreement: {}", listed.display());
        for failure in failures.iter().take(SHOWN) {
            println!("FAIL {failure}");
        }
        bail!(
            "{} of {} loss reports disagree with pydantic-ai",
            failures.len(),
            cases.len()
        );
    }
    if lossy < agreed / 4 || lossy == agreed {
        bail!("too few cases on one side: {lossy} lossy of {agreed}");
    }
    Ok(())
}

/// The history `text` converted to `format` and read back: the history that came back (its JSON
/// text) and the "to" conversion's report; `None` where either leg refuses.
fn trip(text: &str, format: Format, options: &ConvertOptions) -> Option<(String, Report)> {
    let converted = convert_with(text, Format::PydanticAi, format, options).ok()?;
    let Output::Documents(documents) = converted.output else {
        return None;
    };
    let document = serde_json::to_string(documents.first()?).ok()?;
    let back = convert_with(&document, format, Format::PydanticAi, options).ok()?;
    let Output::Histories(histories) = back.output else {
        return None;
    };
    let history = msgflow_wire::to_string(histories.first()?).ok()?;
    Some((history, converted.report))
}

/// A JSON array of paths.
fn paths(value: &Value) -> Option<Vec<&str>> {
    value.as_array()?.iter().map(Value::as_str).collect()
}

/// A JSON array of pairs of paths.
fn path_pairs(value: &Value) -> Option<Vec<(&str, &str)>> {
    value
        .as_array()?
        .iter()
        .map(|pair| Some((pair.get(0)?.as_str()?, pair.get(1)?.as_str()?)))
        .collect()
}

/// Whether one of two JSON paths (as msgflow writes them) is the other or holds it.
fn related(left: &str, right: &str) -> bool {
    let (short, long) = if left.len() <= right.len() {
        (left, right)
    } else {
        (right, left)
    };
    long.starts_with(short) && matches!(long.as_bytes().get(short.len()), None | Some(b'.' | b'['))
}

/// Whether the report entry at `path` accounts for pydantic-ai's `difference`: they are
/// [`related`]; or the difference is in a field the history gave under a legacy name (`read_as`:
/// the name's path, the field's) and the entry is at that name; or the difference is in a tool
/// return's `content_file_digests`, which pydantic-ai writes from the content
/// (`_RecordsContentFiles`), and the entry is in that content.
fn explains(path: &str, difference: &str, read_as: &[(&str, &str)]) -> bool {
    related(path, difference)
        || read_as
            .iter()
            .any(|(name, field)| related(field, difference) && related(path, name))
        || difference
            .split_once(".content_file_digests")
            .is_some_and(|(part, _)| related(path, &format!("{part}.content")))
}

/// The paths a report names, each within one message (`$[i]...`); `None` when it names the whole
/// history.
fn reported_paths(report: &Report) -> Option<Vec<String>> {
    report
        .losses
        .iter()
        .map(|loss| loss.path.starts_with("$[").then(|| loss.path.clone()))
        .collect()
}
