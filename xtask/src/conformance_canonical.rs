//! Conformance of canonical messages built in code: converted to wire, are they histories
//! pydantic-ai 2.68.0 accepts?
//!
//! Builds seeded canonical histories with no origins (text, thoughts, system prompts, user
//! prompts with multimodal items, tool calls with object and string arguments, tool returns with
//! every outcome, retry feedback, files, builtin tool calls and returns), converts them with
//! `msgflow_adapter::from_canonical_history`, writes `work/canonical-built/hist-<i>.json` and asks
//! `oracle/conformance.py roundtrip-dir` about each file.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_canonical::{CanonicalMessage, CanonicalPart, MessageRole};
use msgflow_wire::{self as w, RawJson, RetryCause, Timestamp, TimestampParts, ToolReturnOutcome};
use serde_json::{json, Value};

/// How many histories are built.
const HISTORY_COUNT: u64 = 300;

/// Builds the histories, runs the oracle, and fails listing every file pydantic-ai rejects.
pub fn run(python: &Path, work: &Path) -> Result<()> {
    let dir = work.join("canonical-built");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for index in 0..HISTORY_COUNT {
        let history = build_history(index);
        let wire = msgflow_adapter::from_canonical_history(&history)
            .with_context(|| format!("hist-{index}: canonical history does not convert to wire"))?;
        let bytes = msgflow_wire::to_vec(&wire)?;
        std::fs::write(dir.join(format!("hist-{index}.json")), bytes)?;
    }

    let report_path = work.join("canonical-built-report.json");
    let root = crate::project_root();
    let status = Command::new(python)
        .current_dir(&root)
        .arg("oracle/conformance.py")
        .arg("roundtrip-dir")
        .arg("--dir")
        .arg(&dir)
        .arg("--out")
        .arg(&report_path)
        .status()
        .with_context(|| format!("cannot run {}", python.display()))?;
    if !status.success() {
        bail!("oracle/conformance.py roundtrip-dir failed ({status})");
    }
    let report: Vec<Value> = serde_json::from_slice(
        &std::fs::read(&report_path).with_context(|| format!("cannot read {}", report_path.display()))?,
    )?;
    if report.len() as u64 != HISTORY_COUNT {
        bail!("the report lists {} files, expected {HISTORY_COUNT}", report.len());
    }
    let rejected: Vec<String> = report
        .iter()
        .filter(|entry| entry["accepted"] != Value::Bool(true))
        .map(|entry| {
            format!(
                "  {}: {}",
                entry["file"].as_str().unwrap_or("?"),
                entry["error"].as_str().unwrap_or("?")
            )
        })
        .collect();
    let unstable: Vec<&str> = report
        .iter()
        .filter(|entry| entry["accepted"] == Value::Bool(true) && entry["redump_equal"] != Value::Bool(true))
        .filter_map(|entry| entry["file"].as_str())
        .collect();
    println!(
        "canonical-built: {HISTORY_COUNT} histories, {} accepted by pydantic-ai 2.68.0, {} byte-stable",
        report.len() - rejected.len(),
        report.len() - rejected.len() - unstable.len()
    );
    if !rejected.is_empty() {
        bail!(
            "pydantic-ai 2.68.0 rejects {} canonical-built histories (in {}):\n{}",
            rejected.len(),
            dir.display(),
            rejected.join("\n")
        );
    }
    if !unstable.is_empty() {
        bail!(
            "pydantic-ai 2.68.0 re-dumps {} canonical-built histories differently (in {}): {}",
            unstable.len(),
            dir.display(),
            unstable.join(", ")
        );
    }
    Ok(())
}

/// A small deterministic generator (splitmix64), so each history depends only on its index.
struct Rng(u64);

impl Rng {
    fn new(index: u64) -> Self {
        Rng(0x6d73_6766_6c6f_7721 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let index = self.below(items.len() as u64) as usize;
        &items[index]
    }

    fn text(&mut self) -> String {
        const WORDS: &[&str] = &[
            "read",
            "the",
            "file",
            "naïve",
            "café",
            "🦀",
            "line\nbreak",
            "quote\"d",
            "tab\there",
            "",
            "ok",
            "</script>",
            "\u{7f}",
        ];
        let count = 1 + self.below(6);
        (0..count).map(|_| *self.pick(WORDS)).collect::<Vec<_>>().join(" ")
    }

    fn json(&mut self, depth: u32) -> Value {
        match self.below(if depth == 0 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => json!(self.chance(50)),
            2 => json!(self.below(1_000_000) as i64 - 500_000),
            3 => json!([1.5, -0.0, 1e16, 3e-7, 100.0][self.below(5) as usize]),
            4 => json!(self.text()),
            5 => Value::Array((0..self.below(4)).map(|_| self.json(depth - 1)).collect()),
            _ => {
                let mut map = serde_json::Map::new();
                for i in 0..self.below(4) {
                    map.insert(format!("k{i}"), self.json(depth - 1));
                }
                Value::Object(map)
            }
        }
    }
}

fn timestamp(rng: &mut Rng) -> Timestamp {
    Timestamp::from_parts(TimestampParts {
        year: 2025,
        month: 1 + rng.below(12) as u8,
        day: 1 + rng.below(28) as u8,
        hour: rng.below(24) as u8,
        minute: rng.below(60) as u8,
        second: rng.below(60) as u8,
        microsecond: if rng.chance(50) { 0 } else { rng.below(1_000_000) as u32 },
        offset_minutes: *rng.pick(&[Some(0), Some(330), Some(-300), None]),
    })
}

fn raw(value: &Value) -> RawJson {
    RawJson::from_value(value).unwrap_or_else(|_| RawJson::null())
}

fn user_items(rng: &mut Rng) -> Vec<w::UserContent> {
    let mut items = Vec::new();
    for _ in 0..1 + rng.below(4) {
        items.push(match rng.below(5) {
            0 => w::UserContent::Text(rng.text()),
            1 => w::UserContent::TextContent(w::TextContent::new(rng.text())),
            2 => {
                let mut image = w::ImageUrl::new(format!("https://example.com/img-{}.png", rng.below(100)));
                // Explicit computed fields (and `force_download`, which `ImageUrl::new` leaves
                // absent although pydantic-ai always writes it), so the re-dump is byte-stable.
                image.force_download = w::Field::Present(w::ForceDownload::No);
                image.media_type = w::Field::Present("image/png".into());
                image.identifier = w::Field::Present(format!("img{}", rng.below(1000)));
                w::UserContent::ImageUrl(image)
            }
            3 => {
                let bytes: Vec<u8> = (0..rng.below(16)).map(|_| rng.below(256) as u8).collect();
                let mut binary =
                    w::BinaryContent::new(w::Base64Data::from_bytes(&bytes), "application/octet-stream".into());
                binary.identifier = w::Field::Present(format!("bin{}", rng.below(1000)));
                w::UserContent::Binary(binary)
            }
            _ => w::UserContent::CachePoint(w::CachePoint::new()),
        });
    }
    items
}

/// One seeded history: a system prompt, a user prompt, then a few model turns with tool calls
/// and a request answering them.
fn build_history(index: u64) -> Vec<CanonicalMessage> {
    let mut rng = Rng::new(index);
    let mut history = Vec::new();
    let mut first: Vec<CanonicalPart> = Vec::new();
    if rng.chance(60) {
        first.push(CanonicalPart::system_prompt(rng.text()));
    }
    first.push(if rng.chance(50) {
        CanonicalPart::user_prompt(rng.text())
    } else {
        CanonicalPart::user_prompt_items(user_items(&mut rng))
    });
    let mut request = CanonicalMessage::new(MessageRole::User, first);
    if rng.chance(50) {
        request = request.with_timestamp(Some(timestamp(&mut rng)));
    }
    history.push(request);

    const OUTCOMES: &[ToolReturnOutcome] = &[
        ToolReturnOutcome::Success,
        ToolReturnOutcome::Failed,
        ToolReturnOutcome::Denied,
        ToolReturnOutcome::Interrupted,
        ToolReturnOutcome::Retried,
    ];
    const CAUSES: &[RetryCause] = &[
        RetryCause::ValidationError,
        RetryCause::NoOutput,
        RetryCause::ModelRetry,
    ];
    for turn in 0..1 + rng.below(4) {
        let mut parts = Vec::new();
        if rng.chance(50) {
            parts.push(CanonicalPart::thought(rng.text()));
        }
        if rng.chance(70) {
            parts.push(CanonicalPart::text(rng.text()));
        }
        if rng.chance(10) {
            let bytes: Vec<u8> = (0..rng.below(8)).map(|_| rng.below(256) as u8).collect();
            let mut file = w::BinaryContent::new(w::Base64Data::from_bytes(&bytes), "image/png".into());
            file.identifier = w::Field::Present(format!("file{turn}"));
            parts.push(CanonicalPart::file(file));
        }
        if rng.chance(15) {
            let id = format!("native-{index}-{turn}");
            parts.push(CanonicalPart::ToolCall(msgflow_canonical::ToolCallPart {
                id: id.clone(),
                name: "web_search".into(),
                args: Some(raw(&json!({"query": rng.text()}))),
                builtin: true,
                origin: None,
            }));
            let content = raw(&json!({"results": [rng.text()]}));
            parts.push(CanonicalPart::ToolReturn(msgflow_canonical::ToolReturnPart {
                id,
                name: "web_search".into(),
                content,
                outcome: ToolReturnOutcome::Success,
                builtin: true,
                timestamp: None,
                origin: None,
            }));
        }
        let calls: Vec<(String, String)> = (0..rng.below(4))
            .map(|i| {
                (
                    format!("call-{index}-{turn}-{i}"),
                    (*rng.pick(&["bash", "read_file", "grep"])).to_owned(),
                )
            })
            .collect();
        for (id, name) in &calls {
            let args = if rng.chance(60) {
                raw(&json!({"path": rng.text(), "n": rng.below(10), "extra": rng.json(2)}))
            } else {
                // A string holding JSON text (or not): kept verbatim.
                RawJson::string(&if rng.chance(70) {
                    format!("{{\"q\": \"{}\"}}", rng.below(100))
                } else {
                    "not json {".to_owned()
                })
            };
            parts.push(CanonicalPart::tool_call(id.clone(), name.clone(), args));
        }
        let mut response = CanonicalMessage::new(MessageRole::Assistant, parts);
        if rng.chance(60) {
            response = response.with_timestamp(Some(timestamp(&mut rng)));
        }
        history.push(response);

        let mut answers = Vec::new();
        for (id, name) in &calls {
            let content = if rng.chance(50) {
                RawJson::string(&rng.text())
            } else {
                raw(&rng.json(3))
            };
            let mut part = CanonicalPart::tool_return(id.clone(), name.clone(), content, rng.pick(OUTCOMES).clone());
            if rng.chance(50) {
                part = part.with_timestamp(timestamp(&mut rng));
            }
            answers.push(part);
        }
        if rng.chance(20) {
            let content = if rng.chance(50) {
                RawJson::string(&rng.text())
            } else {
                raw(&json!([{"type": "missing", "loc": ["x"], "msg": "Field required", "input": {}}]))
            };
            answers.push(CanonicalPart::retry_feedback(content, rng.pick(CAUSES).clone()));
        }
        if rng.chance(30) {
            answers.push(CanonicalPart::user_prompt(rng.text()));
        }
        if !answers.is_empty() {
            history.push(CanonicalMessage::new(MessageRole::Tool, answers));
        }
    }
    history
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histories_are_deterministic_and_convert() {
        for index in 0..50 {
            let a = msgflow_adapter::from_canonical_history(&build_history(index)).unwrap();
            let b = msgflow_adapter::from_canonical_history(&build_history(index)).unwrap();
            assert_eq!(msgflow_wire::to_vec(&a).unwrap(), msgflow_wire::to_vec(&b).unwrap());
        }
    }

    /// The live check (needs the venv: `python3 oracle/setup_venv.py --venv target/venv ...`).
    #[test]
    #[ignore = "runs pydantic-ai from target/venv"]
    fn pydantic_ai_accepts_canonical_built_histories() {
        let root = crate::project_root();
        let work = root.join("target/conformance-work");
        run(&root.join("target/venv/bin/python"), &work).unwrap();
    }
}
