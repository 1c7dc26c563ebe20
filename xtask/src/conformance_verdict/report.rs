//! What a verdict differential run prints: the counts both sides gave and the disagreements,
//! grouped.

use std::collections::BTreeMap;

use serde_json::Value;

use super::cases::{Case, Disagreement, OracleRow};
use super::judge::short_loc;
use super::{SHOWN_ERRORS, SHOWN_GROUPS};

/// Counts of what both sides said, so a run shows what it covered.
pub(super) fn summarise(cases: &[Case], oracle: &BTreeMap<String, OracleRow>) {
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
pub(super) fn print_disagreements(disagreements: &[Disagreement]) -> usize {
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
