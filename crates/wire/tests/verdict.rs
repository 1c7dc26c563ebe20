//! The loadability verdict against pydantic-ai 2.68.0's own answers.
//!
//! `verdict/cases.json` holds one history per rule (field types and nullability, lax
//! coercions, literals, tagged unions, datetimes, model validators, JSON-level limits) with the
//! errors `ModelMessagesTypeAdapter.validate_json` raised for it, recorded by
//! `verdict/record.py`. Each case must get the same answer from msgflow: loadable or not, and
//! the same error types at the same `loc`s.

use std::collections::BTreeMap;

use msgflow_wire::verdict::{verdict, verdict_located, LocItem};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Case {
    name: String,
    input: String,
    pydantic: Vec<PydanticError>,
}

#[derive(Deserialize)]
struct PydanticError {
    #[serde(rename = "type")]
    error_type: String,
    loc: Vec<Value>,
}

/// Cases whose `loc`s msgflow does not reproduce, with why; their loadability must still agree.
/// None now: the user-content cases listed here before get pydantic's smart-union errors
/// (`verdict/smart.rs`).
const LOADABILITY_ONLY: &[&str] = &[];

/// Cases pydantic-ai loads that msgflow cannot read yet (RELIABILITY.md, section 7): pydantic-ai
/// ignores the computed `content_file_digests` on input, msgflow types it as a list of strings.
/// Each must still fail to read; once one reads, it leaves this list and gets the verdict's check.
const KNOWN_UNREADABLE: &[&str] = &[];

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/verdict/cases.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn loc_json(loc: &[LocItem]) -> Vec<Value> {
    loc.iter()
        .map(|item| match item {
            LocItem::Index(index) => Value::from(*index),
            LocItem::Key(key) => Value::from(key.as_str()),
        })
        .collect()
}

/// (type, loc) pairs, sorted: pydantic's order follows its dataclass fields, msgflow's the schema.
fn sorted(mut pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    pairs.sort();
    pairs
}

#[test]
fn every_case_gets_pydantics_answer() {
    let mut disagreements = BTreeMap::new();
    for case in cases() {
        let expected = sorted(
            case.pydantic
                .iter()
                .map(|e| (e.error_type.clone(), Value::from(e.loc.clone()).to_string()))
                .collect(),
        );
        let history = match msgflow_wire::from_str(&case.input) {
            Ok(history) => history,
            Err(error) => {
                // msgflow cannot read it: only right when pydantic refuses it too.
                if expected.is_empty() && !KNOWN_UNREADABLE.contains(&case.name.as_str()) {
                    disagreements.insert(case.name, format!("pydantic loads it, msgflow cannot read it: {error}"));
                }
                continue;
            }
        };
        if KNOWN_UNREADABLE.contains(&case.name.as_str()) {
            disagreements.insert(case.name, "reads now: remove it from KNOWN_UNREADABLE".to_owned());
            continue;
        }
        let found = verdict(&history);
        let actual = sorted(
            found
                .reasons()
                .iter()
                .map(|r| (r.error_type.clone(), Value::from(loc_json(&r.loc)).to_string()))
                .collect(),
        );
        let agrees = if LOADABILITY_ONLY.contains(&case.name.as_str()) {
            actual.is_empty() == expected.is_empty()
        } else {
            actual == expected
        };
        if !agrees {
            disagreements.insert(case.name, format!("pydantic {expected:?}\n    msgflow  {actual:?}"));
        }
    }
    let report: Vec<String> = disagreements
        .iter()
        .map(|(name, why)| format!("{name}:\n    {why}"))
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn reasons_are_located_in_the_input() {
    let input = "[{\"parts\": [],\n  \"kind\": \"response\",\n  \"usage\": {\"input_tokens\": null}}]";
    let history = msgflow_wire::from_str(input).unwrap();
    let found = verdict_located(&history, input);
    let reason = &found.reasons()[0];
    assert_eq!(reason.path, "$[0].usage.input_tokens");
    assert_eq!((reason.line, reason.column), (3, 29));
    assert_eq!(
        serde_json::to_value(reason).unwrap(),
        serde_json::json!({
            "type": "int_type",
            "loc": [0, "response", "usage", "input_tokens"],
            "path": "$[0].usage.input_tokens",
            "line": 3,
            "column": 29,
            "message": "Input should be a valid integer",
        })
    );
    // Unlocated, the same reason has no line or column.
    assert_eq!(
        (
            verdict(&history).reasons()[0].line,
            verdict(&history).reasons()[0].column
        ),
        (0, 0)
    );
}

#[test]
fn a_json_level_error_is_the_only_reason() {
    // pydantic-core parses before validating: the literal state never gets looked at.
    let input = r#"[{"parts":[{"tool_name":"t","args":{"a":"\udc00"},"part_kind":"tool-call"}],"kind":"response","finish_reason":"STOP"}]"#;
    let history = msgflow_wire::from_str(input).unwrap();
    let found = verdict(&history);
    assert_eq!(found.reasons().len(), 1);
    assert_eq!(found.reasons()[0].error_type, "json_invalid");
    assert!(found.reasons()[0].loc.is_empty());
    assert_eq!(found.reasons()[0].path, "$[0].parts[0].args");
}

/// A retry cause of the other side's set is refused with the narrowed set's message
/// (`RetryInfo[ToolRetryCause]` on a tool return, `RetryInfo[RetryFeedbackCause]` on retry
/// feedback), the messages pydantic-ai 2.68.0 gives for these parts.
#[test]
fn a_retry_cause_outside_its_sides_set_is_refused_with_that_set() {
    let input = r#"[{"kind":"request","parts":[
        {"part_kind":"tool-return","tool_name":"f","tool_call_id":"c","content":"x","outcome":"retried",
         "retry":{"cause":"no_output","attempt":1,"max_retries":2}},
        {"part_kind":"retry-feedback","content":"again","retry":{"cause":"unknown_tool","attempt":1,"max_retries":2}},
        {"part_kind":"retry-feedback","content":"again","retry":{"cause":"unavailable_tool","attempt":1,"max_retries":2}}]}]"#;
    let history = msgflow_wire::from_str(input).unwrap();
    let found = verdict(&history);
    let reasons: Vec<(&str, &str)> = found
        .reasons()
        .iter()
        .map(|reason| (reason.path.as_str(), reason.message.as_str()))
        .collect();
    assert_eq!(
        reasons,
        [
            (
                "$[0].parts[0].retry.cause",
                "Input should be 'validation_error', 'model_retry', 'unknown_tool' or 'unavailable_tool'"
            ),
            (
                "$[0].parts[1].retry.cause",
                "Input should be 'validation_error', 'no_output' or 'model_retry'"
            ),
            (
                "$[0].parts[2].retry.cause",
                "Input should be 'validation_error', 'no_output' or 'model_retry'"
            ),
        ]
    );
}

#[test]
fn pydantic_ai_output_is_loadable() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/v2_68");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            let history = msgflow_wire::from_str(&text).unwrap();
            let found = verdict_located(&history, &text);
            assert!(found.is_loadable(), "{}: {:?}", path.display(), found.reasons());
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} fixtures");
}

/// A long history is walked in chunks on several threads: its reasons must be its messages'
/// own, at their indexes and in their order, whichever chunk each falls in.
#[test]
fn a_long_historys_reasons_are_its_messages_in_order() {
    let fine =
        r#"{"parts":[{"content":"hi","part_kind":"text"}],"kind":"response","timestamp":"2025-06-02T09:00:16Z"}"#;
    let broken = [
        r#"{"parts":[],"kind":"response","usage":null,"finish_reason":"STOP"}"#,
        r#"{"parts":[{"content":"x","timestamp":"2016-12-31T23:59:60Z","part_kind":"user-prompt"}],"kind":"request"}"#,
        r#"{"parts":[{"tool_name":"t","args":[1],"part_kind":"tool-call"}],"kind":"response"}"#,
    ];
    let broken_at = [3usize, 511, 512, 1024, 1999, 2500, 4095];
    let messages: Vec<&str> = (0..4096)
        .map(|index| match broken_at.iter().position(|&at| at == index) {
            Some(which) => broken[which % broken.len()],
            None => fine,
        })
        .collect();
    let history = msgflow_wire::from_str(&format!("[{}]", messages.join(","))).unwrap();
    let mut expected = Vec::new();
    for (which, &index) in broken_at.iter().enumerate() {
        let alone = msgflow_wire::from_str(&format!("[{}]", broken[which % broken.len()])).unwrap();
        for mut reason in verdict(&alone).into_reasons() {
            reason.loc[0] = LocItem::Index(index);
            reason.path = reason.path.replacen("$[0]", &format!("$[{index}]"), 1);
            expected.push(reason);
        }
    }
    assert!(expected.len() > broken_at.len());
    assert_eq!(verdict(&history).into_reasons(), expected);

    // A JSON-level error anywhere is the only reason, as pydantic-core parses first.
    let mut with_lone_surrogate = messages.clone();
    let lone = r#"{"parts":[],"kind":"response","metadata":{"a":"\ud800"}}"#;
    with_lone_surrogate[3000] = lone;
    let history = msgflow_wire::from_str(&format!("[{}]", with_lone_surrogate.join(","))).unwrap();
    let reasons = verdict(&history).into_reasons();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert_eq!(
        (reasons[0].error_type.as_str(), reasons[0].path.as_str()),
        ("json_invalid", "$[3000].metadata")
    );
}
