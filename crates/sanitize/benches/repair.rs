//! `check` and `repair` on 1k / 10k / 100k-message histories built here
//! (`cargo bench -p msgflow-sanitize`): the time per message (criterion's "elements" throughput)
//! should stay flat as the history grows. Group `sanitize` is a realistic alternation with a few
//! defects; group `sanitize-hostile` the merge chains and shadowed ids of the tests' `common`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use msgflow_sanitize::{check, repair, RepairOptions};
use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, TextPart,
    ToolCallPart, ToolReturnPart, UserPromptContent, UserPromptPart,
};

const SIZES: &[usize] = &[1_000, 10_000, 100_000];

/// `messages` alternating messages (request first): tool calls answered by the next request,
/// with a few defects for `repair` to fix: every 50th call is never answered, every 70th result
/// answers no call, and the last response's call dangles.
fn history(messages: usize) -> Vec<ModelMessage> {
    let mut history = Vec::with_capacity(messages);
    let mut pending: Option<String> = None;
    for index in 0..messages {
        if index % 2 == 0 {
            let mut parts = Vec::new();
            match pending.take() {
                Some(call_id) if index % 100 != 0 => {
                    let mut result = ToolReturnPart::new("run_shell".to_owned(), RawJson::string("exit 0: ok"));
                    result.tool_call_id = Field::Present(call_id);
                    parts.push(ModelRequestPart::ToolReturn(result));
                }
                _ => {
                    let prompt = UserPromptPart::new(UserPromptContent::Text("run the tests".to_owned()));
                    parts.push(ModelRequestPart::UserPrompt(prompt));
                }
            }
            if index % 140 == 0 {
                let mut orphan = ToolReturnPart::new("grep".to_owned(), RawJson::string("no matches"));
                orphan.tool_call_id = Field::Present(format!("orphan_{index}"));
                parts.push(ModelRequestPart::ToolReturn(orphan));
            }
            history.push(ModelMessage::from(ModelRequest::new(parts)));
        } else {
            let call_id = format!("toolu_{index:08}");
            let mut call = ToolCallPart::new("run_shell".to_owned());
            call.args = Field::Present(RawJson::from_json_text(r#"{"command":"cargo test"}"#).expect("valid JSON"));
            call.tool_call_id = Field::Present(call_id.clone());
            pending = Some(call_id);
            let parts = vec![
                ModelResponsePart::Text(TextPart::new("Running the tests.".to_owned())),
                ModelResponsePart::ToolCall(call),
            ];
            history.push(ModelMessage::from(ModelResponse::new(parts)));
        }
    }
    history
}

fn sanitize(c: &mut Criterion) {
    let options = RepairOptions::default();
    let mut group = c.benchmark_group("sanitize");
    for &size in SIZES {
        let input = history(size);
        group.throughput(Throughput::Elements(size as u64));
        group.bench_with_input(BenchmarkId::new("check", size), &input, |b, input| {
            b.iter(|| check(black_box(input)))
        });
        group.bench_with_input(BenchmarkId::new("repair", size), &input, |b, input| {
            b.iter_batched(
                || input.clone(),
                |history| repair(history, &options),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn sanitize_hostile(c: &mut Criterion) {
    let options = RepairOptions::default();
    let mut group = c.benchmark_group("sanitize-hostile");
    for &size in SIZES {
        let shapes = [
            (
                "merge-chains-and-shadowed-ids",
                common::merge_chains_and_shadowed_ids(size / 4),
            ),
            ("one-long-merge-chain", common::long_merge_chain(size - 1)),
        ];
        group.throughput(Throughput::Elements(size as u64));
        for (shape, input) in shapes {
            group.bench_with_input(BenchmarkId::new(format!("repair/{shape}"), size), &input, |b, input| {
                b.iter_batched(
                    || input.clone(),
                    |history| repair(history, &options),
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

/// Few, short samples: the 100k-message runs take tens of milliseconds each.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = sanitize, sanitize_hostile
}
criterion_main!(benches);
