//! The token check of `cargo xtask conformance`: msgflow's token counter (tiktoken-rs's
//! `o200k_base` and `cl100k_base`) must give, token for token, what Python `tiktoken` gives on
//! the same text, with Python's cache seeded from the vocabulary files tiktoken-rs ships
//! (`oracle/tokens_oracle.py`, in `target/venv-providers`; nothing is downloaded, and tiktoken
//! checks each file against the hash OpenAI publishes for it).
//!
//! The texts: every string value and the whole text of each pydantic-ai 2.68.0 fixture and
//! real-world history, and random texts drawn from a seed (the git HEAD commit id unless
//! `--seed` is given) out of the pieces BPE pre-tokenisation treats specially: whitespace runs,
//! newlines, digit runs, contractions, punctuation, CJK, emoji and combining marks.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_context::tokens::{TokenCounter, Tokenizer};
use proptest::strategy::{Strategy, ValueTree};
use serde_json::{json, Value};

use crate::project_root;

/// Random texts per run (each under both encodings).
const RANDOM_TEXTS: usize = 3_000;

/// What pre-tokenisation splits on, and what it keeps together.
const PIECES: &[&str] = &[
    " ",
    "  ",
    "   ",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    " \n ",
    "a",
    "the",
    "Hello",
    "WORLD",
    "don't",
    "'s",
    "'LL",
    "'ve",
    "123",
    "4567890",
    "3.14",
    "-",
    "_",
    "::",
    "()",
    "{\"k\": 1}",
    "<think>",
    "```rust",
    "fn main() {}",
    "é",
    "e\u{301}",
    "ß",
    "İ",
    "日本語",
    "中文",
    "한국어",
    "😀",
    "👩‍💻",
    "🇫🇷",
    "\u{200b}",
    "\u{a0}",
    "Ω",
    "ﬁ",
    "x̧",
    "iVBORw0KGgo=",
    "/usr/bin/env",
    "https://example.com/a?b=c",
];

/// Runs the check.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    let assets = tiktoken_rs_assets()?;
    let texts = texts(seed)?;
    let encodings = [Tokenizer::O200kBase, Tokenizer::Cl100kBase];
    let mut input = Vec::new();
    for (id, (encoding, (_, text))) in encodings
        .iter()
        .flat_map(|encoding| texts.iter().map(move |text| (encoding, text)))
        .enumerate()
    {
        serde_json::to_writer(
            &mut input,
            &json!({"id": id, "encoding": encoding.name(), "text": text}),
        )?;
        input.push(b'\n');
    }
    let cache = work.join("tiktoken-cache");
    let args = [
        OsStr::new("--assets"),
        assets.as_os_str(),
        OsStr::new("--cache"),
        cache.as_os_str(),
    ];
    let stdout = crate::conformance::pipe_through(python, "oracle/tokens_oracle.py", &args, input)?;

    let mut failures = Vec::new();
    let mut answers = 0;
    let mut tokens = 0;
    for line in stdout.lines() {
        let answer: Value = serde_json::from_str(line)?;
        let id = answer["id"].as_u64().context("an answer without id")? as usize;
        let tokenizer = encodings[id / texts.len()];
        let (name, text) = &texts[id % texts.len()];
        let expected: Vec<u32> = serde_json::from_value(answer["tokens"].clone())?;
        let bpe = match tokenizer {
            Tokenizer::O200kBase => tiktoken_rs::o200k_base_singleton(),
            _ => tiktoken_rs::cl100k_base_singleton(),
        };
        let ours = bpe.encode_ordinary(text);
        let counted = TokenCounter::new(tokenizer).count_text(text);
        answers += 1;
        tokens += expected.len();
        if ours != expected || counted != expected.len() {
            let first = ours.iter().zip(&expected).position(|(a, b)| a != b);
            failures.push(format!(
                "{name} ({}): tiktoken {} tokens, tiktoken-rs {} (msgflow counts {counted}), first difference at token {first:?}",
                tokenizer.name(),
                expected.len(),
                ours.len()
            ));
        }
    }
    if answers != texts.len() * encodings.len() {
        bail!(
            "the oracle answered {answers} of {} texts",
            texts.len() * encodings.len()
        );
    }
    println!(
        "tokens: {} texts x {} encodings, {tokens} tokens, seed {seed}; vocabulary from {}",
        texts.len(),
        encodings.len(),
        assets.display()
    );
    if !failures.is_empty() {
        bail!(
            "{} of {answers} token counts differ from Python tiktoken:\n{}",
            failures.len(),
            failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
        );
    }
    Ok(())
}

/// The fixtures' and real-world histories' texts, then random ones.
fn texts(seed: u64) -> Result<Vec<(String, String)>> {
    let root = project_root();
    let mut texts = Vec::new();
    for dir in ["tests/fixtures/v2_68", "tests/fixtures/realworld"] {
        for path in crate::conformance::json_files(&root.join(dir))? {
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            let name = crate::conformance::file_name(&path);
            if let Ok(value) = serde_json::from_str::<Value>(&text) {
                let mut strings = Vec::new();
                collect_strings(&value, &mut strings);
                texts.extend(
                    strings
                        .into_iter()
                        .enumerate()
                        .map(|(index, string)| (format!("{name} string {index}"), string)),
                );
            }
            texts.push((format!("{name} (whole file)"), text));
        }
    }
    let mut runner = crate::conformance::seeded_runner(seed);
    let piece = proptest::sample::select(PIECES);
    let strategy = proptest::prop_oneof![
        4 => proptest::collection::vec(piece, 1..40).prop_map(|pieces| pieces.concat()),
        1 => proptest::arbitrary::any::<String>(),
    ];
    for index in 0..RANDOM_TEXTS {
        let text = strategy
            .new_tree(&mut runner)
            .map_err(|err| anyhow::anyhow!("generating a text: {err}"))?
            .current();
        texts.push((format!("random text {index} (seed {seed})"), text));
    }
    Ok(texts)
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, out)),
        Value::Object(map) => map.values().for_each(|item| collect_strings(item, out)),
        _ => {}
    }
}

/// The `assets` directory of the tiktoken-rs package this workspace builds with (its
/// `*.tiktoken` vocabulary files), found through `cargo metadata`.
pub fn tiktoken_rs_assets() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Only this platform's packages: the others (Windows-only crates) are never built here. Not
    // `--offline`: on a fresh checkout the crates a build of the xtask alone did not need (the
    // workspace's dev-dependencies) are not downloaded yet, and metadata needs every one of them.
    let rustc = Command::new("rustc").arg("-vV").output().context("running rustc -vV")?;
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: ").map(str::to_owned))
        .context("rustc -vV names no host")?;
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--filter-platform", &host])
        .current_dir(project_root())
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed:\n{}", String::from_utf8_lossy(&output.stderr));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout).context("reading cargo metadata's output")?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == "tiktoken-rs")
        .and_then(|package| package["manifest_path"].as_str())
        .context("tiktoken-rs is not among the workspace's packages")?;
    let assets = Path::new(manifest)
        .parent()
        .context("tiktoken-rs's manifest has no directory")?
        .join("assets");
    if !assets.join("o200k_base.tiktoken").is_file() {
        bail!("{} holds no o200k_base.tiktoken", assets.display());
    }
    Ok(assets)
}
