//! Every provider rule has a fixture (`tests/fixtures/providers/<rule>/`): `rejected.json`, a
//! history the provider's API rejects, and `fixed.json`, its minimal fix. The check of the
//! rejected one and its provider repair are pinned by insta; the fix passes the check.

use std::path::{Path, PathBuf};

use msgflow_providers::rules::rules;
use msgflow_providers::{check, repair, Provider};
use msgflow_sanitize::RepairOptions;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/providers")
}

fn load(path: &Path) -> Vec<msgflow_wire::ModelMessage> {
    msgflow_wire::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `anthropic/final-assistant-trailing-whitespace` -> the fixture directory's name.
fn fixture_dir(rule_id: &str) -> PathBuf {
    fixtures().join(rule_id.replace('/', "-"))
}

#[test]
fn every_rule_has_its_fixture_and_is_found_there() {
    for provider in Provider::ALL {
        for rule in rules(provider) {
            let dir = fixture_dir(rule.id);
            assert!(
                dir.join("rejected.json").is_file(),
                "{}: no fixture in {}",
                rule.id,
                dir.display()
            );
            let violations = check(&load(&dir.join("rejected.json")), provider).unwrap();
            assert!(
                violations.iter().any(|violation| violation.rule.id == rule.id),
                "{}: the rejected fixture does not break it: {violations:?}",
                rule.id
            );
            let fixed = check(&load(&dir.join("fixed.json")), provider).unwrap();
            assert!(
                fixed.is_empty(),
                "{}: the fixed fixture still breaks {fixed:?}",
                rule.id
            );
        }
    }
}

#[test]
fn rule_reports_are_pinned() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let provider = Provider::ALL
            .into_iter()
            .find(|provider| name.starts_with(&format!("{provider}-")))
            .unwrap();
        let rejected = load(&dir.join("rejected.json"));
        let violations = check(&rejected, provider).unwrap();
        insta::assert_json_snapshot!(format!("check-{name}"), violations);
        let repaired = repair(rejected, provider, &RepairOptions::default()).unwrap();
        let report = serde_json::json!({
            "changes": repaired.report.changes.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "provider_changes": repaired.provider_changes,
            "unfixed": repaired.unfixed,
        });
        // A `serde_json::Value` is printed by serde_json itself (insta's serializer would spell its
        // numbers as serde_json's private arbitrary-precision maps).
        insta::assert_snapshot!(format!("repair-{name}"), serde_json::to_string_pretty(&report).unwrap());
        // Whatever repair leaves is only what its table says it cannot fix.
        for unfixed in &repaired.unfixed {
            assert!(!unfixed.violation.rule.fixable || unfixed.violation.rule.id == "anthropic/whitespace-only-text");
        }
        assert!(
            check(&repaired.history, provider)
                .unwrap()
                .iter()
                .all(|v| !v.rule.fixable),
            "{name}"
        );
    }
}

#[test]
fn violations_name_the_history_message_and_part_and_quote_the_error() {
    let history = load(&fixture_dir("anthropic/tool-use-without-result").join("rejected.json"));
    let violations = check(&history, Provider::Anthropic).unwrap();
    assert_eq!(violations.len(), 1);
    assert_eq!((violations[0].message, violations[0].part), (1, Some(0)));
    assert_eq!(
        violations[0].provider_error,
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. \
         Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    );
}
