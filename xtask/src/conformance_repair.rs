//! The repair differential check (part of `cargo xtask conformance`): fresh seeded broken
//! histories from `conformance.py gen-broken`, repaired by msgflow-sanitize in both modes and
//! compared with pydantic-ai 2.68.0's `repair_messages` output.
//!
//! The expected files are computed on each input as 2.68.0 loads it (legacy `retry-prompt`
//! parts translated, wire reference C1/C2); msgflow keeps retry prompts as written, so the same
//! translation is applied to the input first. Cases with retry-prompt shapes the translation does
//! not cover are skipped and counted. Outputs must match the expected files byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_sanitize::{repair, upgrade_legacy_retry_prompts, LegacyUpgrade, RepairOptions};
use serde_json::Value;

/// The gen-broken seed (the committed cases in tests/fixtures/repair use seed 1).
const SEED: u64 = 2;
/// How many cases to generate.
const COUNT: usize = 400;
/// How many mismatches are shown in detail.
const SHOWN: usize = 5;

/// Generates cases into `work/repair`, repairs each in both modes and compares with pydantic-ai.
pub fn run(python: &Path, work: &Path) -> Result<()> {
    let dir = work.join("repair");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    let script = crate::project_root().join("oracle/conformance.py");
    let status = Command::new(python)
        .arg(&script)
        .args([
            "gen-broken",
            "--seed",
            &SEED.to_string(),
            "--count",
            &COUNT.to_string(),
            "--out",
        ])
        .arg(&dir)
        .status()
        .with_context(|| format!("running {}", script.display()))?;
    if !status.success() {
        bail!("conformance.py gen-broken failed ({status})");
    }

    let (mut compared, mut translated, mut skipped) = (0usize, 0usize, 0usize);
    let mut mismatches = Vec::new();
    for index in 0..COUNT {
        let case = dir.join(format!("case-{index}"));
        let input_path = with_suffix(&case, "input.json");
        let mut history = msgflow_wire::from_slice(&read(&input_path)?)
            .map_err(|err| anyhow::anyhow!("msgflow cannot read {}: {err}", input_path.display()))?;
        match upgrade_legacy_retry_prompts(&mut history) {
            LegacyUpgrade { untranslated: 1.., .. } => {
                skipped += 1;
                continue;
            }
            LegacyUpgrade { translated: 0, .. } => {}
            LegacyUpgrade { .. } => translated += 1,
        }
        for (suffix, repair_last_response) in [("expected.json", true), ("expected-keep-last.json", false)] {
            let expected_path = with_suffix(&case, suffix);
            let expected = read(&expected_path)?;
            let options = RepairOptions {
                repair_last_response,
                ..RepairOptions::default()
            };
            let repaired = repair(history.clone(), &options);
            let actual = msgflow_wire::to_vec(&repaired.history)?;
            compared += 1;
            if actual != expected {
                mismatches.push(describe(
                    &expected_path,
                    &actual,
                    &expected,
                    &repaired.report.to_string(),
                ));
            }
        }
    }
    println!(
        "repair: {compared} repairs compared over {COUNT} cases (seed {SEED}); {translated} cases had legacy \
         retry-prompts translated first; {skipped} skipped (retry-prompt shapes not covered)"
    );
    if skipped * 10 > COUNT {
        bail!("too many cases skipped: {skipped} of {COUNT}");
    }
    if !mismatches.is_empty() {
        for mismatch in mismatches.iter().take(SHOWN) {
            println!("{mismatch}");
        }
        bail!(
            "{} of {compared} repairs differ from pydantic-ai's repair_messages",
            mismatches.len()
        );
    }
    Ok(())
}

fn with_suffix(case: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}.{suffix}", case.display()))
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// A readable account of one mismatch: the first differing JSON path and a line diff of the
/// pretty-printed outputs (at most 40 lines), plus msgflow's repair report.
fn describe(expected_path: &Path, actual: &[u8], expected: &[u8], report: &str) -> String {
    let mut text = format!("--- {} (pydantic-ai) vs msgflow\n", expected_path.display());
    let (Ok(actual), Ok(expected)) = (
        serde_json::from_slice::<Value>(actual),
        serde_json::from_slice::<Value>(expected),
    ) else {
        text.push_str("  (one side is not JSON)\n");
        return text;
    };
    match first_difference("$", &expected, &actual) {
        Some(path) => text.push_str(&format!("  first difference: {path}\n")),
        None => text.push_str("  equal as JSON values; the bytes differ (key order or number/string formatting)\n"),
    }
    let pretty = |value: &Value| serde_json::to_string_pretty(value).unwrap_or_default();
    let (expected_text, actual_text) = (pretty(&expected), pretty(&actual));
    let diff = similar::TextDiff::from_lines(&expected_text, &actual_text);
    let lines: Vec<String> = diff
        .unified_diff()
        .context_radius(2)
        .header("pydantic-ai", "msgflow")
        .to_string()
        .lines()
        .take(40)
        .map(|line| format!("  {line}\n"))
        .collect();
    text.extend(lines);
    text.push_str("  msgflow's report:\n");
    text.extend(report.lines().map(|line| format!("    {line}\n")));
    text
}

fn first_difference(path: &str, left: &Value, right: &Value) -> Option<String> {
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            let (keys_a, keys_b): (Vec<_>, Vec<_>) = (a.keys().collect(), b.keys().collect());
            if keys_a != keys_b {
                return Some(format!("{path}: keys {keys_a:?} (pydantic-ai) vs {keys_b:?} (msgflow)"));
            }
            a.iter()
                .find_map(|(key, value)| first_difference(&format!("{path}.{key}"), value, b.get(key)?))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}[{i}]"), x, y)),
        _ if left == right => None,
        _ => Some(format!("{path}: {left} (pydantic-ai) vs {right} (msgflow)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mismatch_is_described_with_its_path_and_a_diff() {
        let text = describe(
            Path::new("case-1.expected.json"),
            br#"[{"a":1,"b":[2]}]"#,
            br#"[{"a":1,"b":[3]}]"#,
            "a change\n",
        );
        assert!(
            text.contains("first difference: $[0].b[0]: 3 (pydantic-ai) vs 2 (msgflow)"),
            "{text}"
        );
        assert!(text.contains("-      3") && text.contains("+      2"), "{text}");
        assert!(text.contains("    a change"), "{text}");
    }
}
