//! Parse and serialise throughput of a mid-size history (`cargo bench -p msgflow-wire`).
//!
//! Uses the 1x big-strings history that `cargo xtask bench` caches under `target/bench/` (36 MB,
//! pydantic-ai's own bytes) when it is there, or the file named by `MSGFLOW_BENCH_FILE`; otherwise
//! a ~4 MB coding-agent history built here, so the bench runs on a fresh checkout too.
//! `serde_json::from_slice::<IgnoredAny>` (validating the JSON, nothing else) is the limit.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, TextPart,
    Timestamp, ToolCallPart, ToolReturnPart, UserPromptContent, UserPromptPart,
};

/// The history to measure and where it came from.
fn input() -> (String, Vec<u8>) {
    if let Some(path) = std::env::var_os("MSGFLOW_BENCH_FILE")
        .map(PathBuf::from)
        .or_else(cached_history)
    {
        if let Ok(bytes) = std::fs::read(&path) {
            return (path.display().to_string(), bytes);
        }
    }
    let bytes = msgflow_wire::to_vec(&built_history(400)).expect("the built history serialises");
    ("built in code".to_owned(), bytes)
}

/// `target/bench/big-strings-seed1-x1-*.json`, written by `cargo xtask bench`.
fn cached_history() -> Option<PathBuf> {
    let bench_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench");
    std::fs::read_dir(bench_dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("big-strings-seed1-x1-") && name.ends_with(".json"))
        })
}

fn timestamp(second: usize) -> Field<Timestamp> {
    let text = format!(
        "2025-06-02T{:02}:{:02}:{:02}.{:06}Z",
        9 + second / 3600 % 14,
        second / 60 % 60,
        second % 60,
        second % 999_983
    );
    Field::Present(Timestamp::parse(&text).expect("a valid timestamp"))
}

/// Pseudo source code of about `len` bytes, with the escapes and non-ASCII of real tool output.
fn source_text(seed: usize, len: usize) -> String {
    let mut text = String::with_capacity(len + 80);
    let mut line = 0;
    while text.len() < len {
        line += 1;
        text.push_str(&format!(
            "    fn handler_{seed}_{line}(&self, \"path\\\\to\") -> Result<()> {{\t// naïve café — ✓ {line}\n"
        ));
    }
    text
}

/// `turns` request/response pairs: a tool call and its string result (~10 KB) each.
fn built_history(turns: usize) -> Vec<ModelMessage> {
    let mut history = Vec::with_capacity(turns * 2);
    for turn in 0..turns {
        let call_id = format!("toolu_{turn:08}");
        let first_part = if turn == 0 {
            let mut prompt = UserPromptPart::new(UserPromptContent::Text("refactor the parser module".to_owned()));
            prompt.timestamp = timestamp(0);
            ModelRequestPart::UserPrompt(prompt)
        } else {
            let previous_id = format!("toolu_{:08}", turn - 1);
            let mut result = ToolReturnPart::new("read_file".to_owned(), RawJson::string(&source_text(turn, 10_000)));
            result.tool_call_id = Field::Present(previous_id);
            result.timestamp = timestamp(turn * 2);
            ModelRequestPart::ToolReturn(result)
        };
        let mut request = ModelRequest::new(vec![first_part]);
        request.timestamp = timestamp(turn * 2);
        history.push(ModelMessage::from(request));

        let mut call = ToolCallPart::new("read_file".to_owned());
        call.args = Field::Present(
            RawJson::from_json_text(&format!(
                r#"{{"path":"src/module_{turn}.rs","start_line":1,"end_line":400}}"#
            ))
            .expect("valid JSON"),
        );
        call.tool_call_id = Field::Present(call_id);
        let text = TextPart::new(format!("Reading module {turn} to find the handler and its callers."));
        let mut response = ModelResponse::new(vec![ModelResponsePart::Text(text), ModelResponsePart::ToolCall(call)]);
        response.timestamp = timestamp(turn * 2 + 1);
        response.model_name = Field::Present("claude-sonnet-4-5".to_owned());
        history.push(ModelMessage::from(response));
    }
    history
}

fn wire(c: &mut Criterion) {
    let (source, bytes) = input();
    let history = msgflow_wire::from_slice(&bytes).expect("the benchmark history parses");
    eprintln!(
        "msgflow-wire bench: {} bytes, {} messages ({source})",
        bytes.len(),
        history.len()
    );

    let mut group = c.benchmark_group("wire");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("ignored_any_limit", |b| {
        b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&bytes)).expect("valid JSON"))
    });
    group.bench_function("parse", |b| {
        b.iter(|| msgflow_wire::from_slice(black_box(&bytes)).expect("parses"))
    });
    group.bench_function("serialise", |b| {
        b.iter(|| msgflow_wire::to_vec(black_box(&history)).expect("serialises"))
    });
    group.bench_function("parse_serialise", |b| {
        b.iter(|| {
            let parsed = msgflow_wire::from_slice(black_box(&bytes)).expect("parses");
            msgflow_wire::to_vec(&parsed).expect("serialises")
        })
    });
    group.finish();
}

criterion_group!(benches, wire);
criterion_main!(benches);
