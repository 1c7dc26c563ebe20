//! Lossless round trips over every committed fixture, and snapshots of the canonical JSON.

use std::path::{Path, PathBuf};

use msgflow_adapter::{from_canonical, from_canonical_history, to_canonical, to_canonical_history};
use msgflow_canonical::{from_json_slice, to_json_vec, to_json_vec_pretty};

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "json") {
            out.push(path);
        }
    }
}

fn all_fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    json_files(&fixtures_root(), &mut files);
    files.sort();
    files
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    let files = all_fixtures();
    assert!(
        files.len() >= 90,
        "expected the committed fixtures, found {}",
        files.len()
    );
    let mut checked = 0;
    let mut rejected = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let history = match msgflow_wire::from_slice(&bytes) {
            Ok(history) => history,
            Err(err) => {
                rejected.push(format!("{}: {err}", path.display()));
                continue;
            }
        };
        let expected = msgflow_wire::to_vec(&history).unwrap();

        // Message by message.
        for (index, message) in history.iter().enumerate() {
            let back = from_canonical(&to_canonical(message))
                .unwrap_or_else(|err| panic!("{} message {index}: {err}", path.display()));
            assert_eq!(&back, message, "{} message {index}", path.display());
        }

        // Whole history, serialized.
        let canonical = to_canonical_history(&history);
        let back = from_canonical_history(&canonical).unwrap();
        assert_eq!(msgflow_wire::to_vec(&back).unwrap(), expected, "{}", path.display());

        // Through the canonical JSON form.
        let json = to_json_vec(&canonical).unwrap();
        let reread = from_json_slice(&json).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        assert_eq!(reread, canonical, "{}", path.display());
        let back = from_canonical_history(&reread).unwrap();
        assert_eq!(
            msgflow_wire::to_vec(&back).unwrap(),
            expected,
            "{} via canonical JSON",
            path.display()
        );
        // Writing the canonical JSON again is stable.
        assert_eq!(to_json_vec(&reread).unwrap(), json, "{}", path.display());
        checked += 1;
    }
    // Only deliberately malformed inputs may be rejected by the wire parser.
    assert!(checked >= 85, "only {checked} fixtures parsed; rejected: {rejected:#?}");
}

fn snapshot(name: &str) -> String {
    let bytes = std::fs::read(fixtures_root().join(name)).unwrap();
    let history = msgflow_wire::from_slice(&bytes).unwrap();
    String::from_utf8(to_json_vec_pretty(&to_canonical_history(&history)).unwrap()).unwrap()
}

#[test]
fn snapshot_tool_call_return_basic() {
    insta::assert_snapshot!(snapshot("v2_68/tool-call-return-basic.json"));
}

#[test]
fn snapshot_thinking() {
    insta::assert_snapshot!(snapshot("v2_68/thinking.json"));
}

#[test]
fn snapshot_user_content_mixed() {
    insta::assert_snapshot!(snapshot("v2_68/user-content-mixed.json"));
}

#[test]
fn snapshot_retry_prompt_legacy() {
    insta::assert_snapshot!(snapshot("translations/retry-prompt-legacy.input.json"));
}
