//! Both sides of the verdict differential and their comparison: msgflow in process, pydantic-ai in
//! one Python batch, and the disagreements grouped by mutation or by the first (type, loc) one
//! side alone reports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_wire::verdict;
use serde_json::Value;

use super::cases::{Case, Disagreement, MsgflowSide, OracleRow, Origin, ReasonRow};
use crate::mutate::Json;
use crate::project_root;

/// Writes the input, runs msgflow on it and writes its `fmt` output.
pub(super) fn judge_msgflow(dir: &Path, id: String, text: String, origin: Origin) -> Result<Case> {
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
pub(super) fn value_change(input: &str, output: &str) -> Option<String> {
    match (Json::parse(input), Json::parse(output)) {
        (Ok(a), Ok(b)) if a.same_value(&b) => None,
        (Ok(_), Ok(_)) => Some(crate::conformance::diff_excerpt(input.as_bytes(), output.as_bytes())),
        (Err(err), _) | (_, Err(err)) => Some(format!("not comparable: {err:#}")),
    }
}

/// Runs `verdict_oracle.py judge` once over every case.
pub(super) fn judge_pydantic(python: &Path, dir: &Path, cases: &[Case]) -> Result<BTreeMap<String, OracleRow>> {
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

pub(super) fn compare(dir: &Path, cases: &[Case], oracle: &BTreeMap<String, OracleRow>) -> Result<Vec<Disagreement>> {
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
pub(super) fn any_base_group(kind: &str, pydantic: &OracleRow, ours: &MsgflowSide) -> (String, Option<usize>) {
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

/// A loc for reading: pydantic's long union member names (`json-or-python[json=list[union[...`)
/// cut to 40 characters; `disagreements.json` has them whole.
pub(super) fn short_loc(loc: &Value) -> String {
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
