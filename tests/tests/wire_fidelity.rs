//! Fidelity of `msgflow-wire` on every committed fixture.
//!
//! 1. Histories written by pydantic-ai 2.68.0 are written back byte for byte.
//! 2. Histories written by older releases and by other tools come back as the same JSON value
//!    (unknown keys and kinds kept, nothing defaulted in, aliases as written).
//!
//! Each fixture is parsed both ways, copying opaque values (`from_slice`) and sharing the input
//! (`from_vec`); the two histories must be equal.

use std::path::{Path, PathBuf};

/// Parses `input` both ways and checks that they agree.
fn parse(input: &[u8]) -> Result<Vec<msgflow_wire::ModelMessage>, msgflow_wire::ParseError> {
    let copied = msgflow_wire::from_slice(input)?;
    let shared = msgflow_wire::from_vec(input.to_vec())?;
    assert_eq!(copied, shared, "copying and sharing parses differ");
    Ok(shared)
}

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|err| panic!("{}: {err}", root.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", root.display());
    files
}

#[test]
fn pydantic_ai_2_68_histories_are_rewritten_byte_for_byte() {
    let mut failures = Vec::new();
    for path in fixtures("v2_68") {
        let input = std::fs::read(&path).unwrap();
        match parse(&input) {
            Ok(history) => {
                let output = msgflow_wire::to_vec(&history).unwrap();
                if output != input {
                    let at = output
                        .iter()
                        .zip(&input)
                        .position(|(a, b)| a != b)
                        .unwrap_or(output.len().min(input.len()));
                    let lo = at.saturating_sub(80);
                    failures.push(format!(
                        "{}: differs at byte {at}\n  expected: {}\n  got:      {}",
                        path.display(),
                        String::from_utf8_lossy(&input[lo..(at + 80).min(input.len())]),
                        String::from_utf8_lossy(&output[lo..(at + 80).min(output.len())])
                    ));
                }
            }
            Err(err) => failures.push(format!("{}: {err}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn same_value_after_round_trip(dir: &str) {
    let mut failures = Vec::new();
    for path in fixtures(dir) {
        let input = std::fs::read(&path).unwrap();
        match parse(&input) {
            Ok(history) => {
                let output = msgflow_wire::to_vec(&history).unwrap();
                let before: serde_json::Value = serde_json::from_slice(&input).unwrap();
                let after: serde_json::Value = serde_json::from_slice(&output).unwrap();
                if before != after {
                    failures.push(format!("{}: the JSON value changed", path.display()));
                }
                // Compact output, whatever the input's layout.
                assert!(!output.contains(&b'\n'), "{}: output is not compact", path.display());
            }
            Err(err) => failures.push(format!("{}: {err}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn older_pydantic_ai_histories_keep_their_json_value() {
    same_value_after_round_trip("legacy");
}

#[test]
fn other_tools_histories_keep_their_json_value() {
    same_value_after_round_trip("other");
}
