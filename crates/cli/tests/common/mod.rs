//! What the end-to-end tests of the `msgflow` binary share: running it, the fixtures, and a
//! directory of good and bad inputs for batch mode.
// Each test file uses some of these.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/v2_68")
        .join(name)
}

/// A file of the repository, by its path from the root.
pub fn repo_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

pub fn msgflow() -> Result<Command, Box<dyn std::error::Error>> {
    let mut command = Command::cargo_bin("msgflow")?;
    // Deterministic output whatever the environment running the tests says.
    command.env_remove("NO_COLOR").env_remove("COLUMNS");
    Ok(command)
}

/// The same history, pretty-printed (valid, but not in pydantic-ai's compact form).
pub fn pretty(bytes: &[u8]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let value: serde_json::Value = serde_json::from_slice(bytes)?;
    Ok(serde_json::to_vec_pretty(&value)?)
}

/// Valid JSON that is not a history: a user-prompt part without `content`.
pub const NOT_A_HISTORY: &str = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt"}]}]"#;
/// Not JSON at all.
pub const NOT_JSON: &str = "[{\"kind\": \"request\",\n  \"parts\": [}";

pub fn directory_listing(dir: &Path) -> Result<Vec<String>, std::io::Error> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// A directory with a valid (pretty-printed) file, a broken one (valid JSON, not a history), an
/// invalid one (not JSON), a non-JSON file, and a valid file in a subdirectory.
pub struct BatchDir {
    pub dir: tempfile::TempDir,
    pub compact: Vec<u8>,
}

impl BatchDir {
    pub fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let compact = fs::read(fixture("coding-agent-session.json"))?;
        fs::write(dir.path().join("valid.json"), pretty(&compact)?)?;
        fs::write(dir.path().join("broken.json"), NOT_A_HISTORY)?;
        fs::write(dir.path().join("invalid.json"), NOT_JSON)?;
        fs::write(dir.path().join("notes.txt"), "not a history")?;
        fs::create_dir(dir.path().join("sub"))?;
        fs::write(dir.path().join("sub/nested.json"), pretty(&compact)?)?;
        Ok(BatchDir { dir, compact })
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// A response whose usage and tool arguments hold integers beyond 64 bits, as pydantic-ai 2.68.0
/// dumps them (`ModelMessagesTypeAdapter.dump_json` of a `RequestUsage(output_tokens=2**64)`).
pub const BIG_INTEGERS: &str = r#"[{"parts":[{"tool_name":"seek","args":{"offset":340282366920938463463374607431768211456},"tool_call_id":"c1","tool_kind":null,"id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}],"usage":{"input_tokens":-18446744073709551617,"cache_write_tokens":0,"cache_write_1h_tokens":0,"cache_read_tokens":0,"output_tokens":18446744073709551616,"output_reasoning_tokens":0,"input_audio_tokens":0,"cache_audio_read_tokens":0,"output_audio_tokens":0,"audio_seconds":0.0,"details":{},"cost":null},"model_name":"m","model_id":null,"timestamp":"2025-01-02T03:04:05Z","kind":"response","provider_name":null,"provider_url":null,"canonical_system":null,"provider_details":null,"provider_response_id":null,"finish_reason":null,"run_id":null,"conversation_id":null,"metadata":null,"workspace_ref":null,"history_digest":null,"failed_attempts":null,"state":"complete"}]"#;

/// Asserts that a run of the binary exited 0, showing its stderr when it did not.
pub fn assert_succeeded(output: &std::process::Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
