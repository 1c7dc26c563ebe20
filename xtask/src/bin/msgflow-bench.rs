//! Times one msgflow operation on a history file and prints one JSON line (the Rust side of
//! `cargo xtask bench`; the Python side is `oracle/bench/pydantic_bench.py`, whose method and
//! output this mirrors).
//!
//! ```text
//! cargo build --release -p xtask --bin msgflow-bench
//! target/release/msgflow-bench --file target/bench/big-strings-1x.json --op parse --runs 7
//! ```
//!
//! The operation runs `--runs` times after a warm-up on a tiny built-in history. Whatever an
//! operation needs as input (the parsed history for `serialise`, a fresh copy of it for `repair`)
//! is prepared outside the timing, and each run's result is dropped outside the timing, so runs
//! do not stack their memory. Right before the first measured run the kernel's peak-RSS counter
//! is reset (`5` into `/proc/self/clear_refs`), and `VmHWM - VmRSS(before)` after it is the
//! operation's peak memory (`null` when the reset is not possible). Run each operation in a fresh
//! process for clean numbers: memory freed by an earlier operation stays in the process and
//! would be reused.

use std::fs;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, ValueEnum};
use msgflow_formats::Format;
use msgflow_sanitize::RepairOptions;
use msgflow_wire::ModelMessage;

/// The CLI's allocator (see the `mimalloc` line of the workspace's Cargo.toml), so that the library
/// rows and the corpus rows measure what the shipped processes do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The same tiny history `pydantic_bench.py` warms up on: every part kind the benchmark histories
/// use.
const WARM_UP_HISTORY: &[u8] = br#"[{"parts":[{"content":"sys","timestamp":"2025-01-02T03:04:05.000001Z","part_kind":"system-prompt"},{"content":"hi","timestamp":"2025-01-02T03:04:05.000002Z","part_kind":"user-prompt"}],"timestamp":"2025-01-02T03:04:05.000003Z","instructions":"be brief","kind":"request"},{"parts":[{"content":"hmm","signature":"c2ln","provider_name":"anthropic","part_kind":"thinking"},{"content":"ok","part_kind":"text"},{"tool_name":"read_file","args":{"path":"a.py"},"tool_call_id":"toolu_00000001","part_kind":"tool-call"}],"usage":{"input_tokens":1,"output_tokens":1,"details":{"reasoning_tokens":0}},"timestamp":"2025-01-02T03:04:06.000001Z","kind":"response","finish_reason":"tool_call"},{"parts":[{"tool_name":"read_file","content":[{"line":1,"text":"x"}],"tool_call_id":"toolu_00000001","timestamp":"2025-01-02T03:04:07.000001Z","part_kind":"tool-return"}],"kind":"request"}]"#;

/// What the cold operations write before each run: more than the last-level cache holds (the
/// machines seen here report 16 MiB to 480 MiB of L3), so that none of the operation's data is left
/// in it.
const CACHE_EVICTION_BYTES: usize = 1 << 30;

/// After a successful reset VmHWM equals VmRSS; allow for pages touched between the two reads.
const RESET_SLACK_BYTES: u64 = 4 * 1024 * 1024;

/// The CLI's output buffer (`BufWriter::with_capacity(1 << 16, ..)` in its runner).
const WRITE_CHUNK_BYTES: usize = 1 << 16;

/// The operations, each on the whole file's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Operation {
    /// `msgflow_wire::from_vec` (the buffer is handed over, as the CLI does after reading a file).
    Parse,
    /// `msgflow_wire::to_vec` of the parsed history.
    Serialise,
    /// `from_vec` then `to_vec`.
    ParseSerialise,
    /// `to_canonical_history` then `from_canonical_history` (in memory: wire types -> canonical ->
    /// wire types).
    CanonicalRoundtrip,
    /// `msgflow_sanitize::check` of the parsed history.
    Check,
    /// `msgflow_wire::verdict::verdict` of the parsed history: would pydantic-ai 2.68.0 load it
    /// (the cost `check` and every history-writing command add to a parse).
    Verdict,
    /// The verdict on one thread (a diagnostic: the verdict walks a long history's chunks on
    /// every core; this is its cost where there is only one).
    VerdictOneThread,
    /// `msgflow_sanitize::repair` (default options) of a copy of the parsed history.
    Repair,
    /// `serde_json::from_slice::<IgnoredAny>`: validating the JSON and nothing else, the limit.
    IgnoredAny,
    /// `std::fs::read` of the file: what every command pays before it parses (the file is in
    /// the page cache after the warm-up).
    ReadFile,
    /// `msgflow_wire::to_writer` into a buffer whose memory is already mapped (a diagnostic:
    /// `serialise` minus the kernel's cost of providing fresh pages for the output).
    SerialiseWarm,
    /// `check`, with the CPU caches emptied before each run (a diagnostic: how much of `check`'s
    /// time on a small history is the parsed history still being in the cache).
    CheckCold,
    /// `repair`, with the CPU caches emptied before each run (see `check-cold`).
    RepairCold,
    /// `canonical-roundtrip`, with the CPU caches emptied before each run (see `check-cold`).
    CanonicalRoundtripCold,
    /// Writing the file's bytes the way the CLI writes its output: 64 KiB writes into a temporary
    /// file beside `--file`, fsync, rename over the previous run's file, fsync of the directory
    /// (a diagnostic: what `msgflow repair -o OUT` pays after serialising).
    WriteFile,
    /// `--file` is a JSON array of strings: each a text delta into one part
    /// (`PartsManager::handle_text_delta`, vendor id 0, as OpenAI's choice index), then the parts.
    StreamTextDeltas,
    /// `--file` is a JSON array of strings: the argument fragments of one tool call (the first
    /// delta also carries its name and id), then the parts.
    StreamArgFragments,
    /// `msgflow_providers::anthropic::export` of the parsed history: the typed request a Rust
    /// program hands to its HTTP client (pydantic-ai's mapping builds the SDK's dicts).
    ExportAnthropic,
    /// `export-anthropic` with the CPU caches emptied before each run (see `trim-chars4-cold`):
    /// warm, the 10k-message history's request stays in the cache between runs, the 100k one's
    /// cannot.
    ExportAnthropicCold,
    /// `msgflow_providers::openai_chat::export`.
    ExportOpenaiChat,
    /// `msgflow_providers::openai_responses::export`.
    ExportOpenaiResponses,
    /// `msgflow_providers::check` against Anthropic's rules (`check --provider anthropic`).
    CheckProviderAnthropic,
    /// `check-provider-anthropic` with the CPU caches emptied before each run (see
    /// `export-anthropic-cold`).
    CheckProviderAnthropicCold,
    /// `msgflow_context::trim::trim_window` of the parsed history to `--budget` tokens counted as
    /// pydantic-ai-harness estimates them (characters / 4), like its `SlidingWindowCompaction`,
    /// whose `compact` also returns a list sharing the input's messages.
    TrimChars4,
    /// `trim-chars4` with the CPU caches emptied before each run: the walk over the turns waits on
    /// memory, so a 10k-message history that stays in the cache between warm runs would make a
    /// 100k one look superlinear; cold, their times per byte compare the walks themselves.
    TrimChars4Cold,
    /// The same with `o200k_base` token counts (what `trim --max-tokens` does by default).
    TrimO200k,
    /// `o200k_base` token counts of every message (`stats --tokens`).
    CountTokens,
    /// `--file` is a JSON Lines corpus, each line held as a buffer of its own: every buffer
    /// checked as `msgflow check --json` checks one file (`msgflow_corpus::row::check_row`, its
    /// JSON report written to memory), on one thread. The baseline the corpus rows of the bench
    /// compare `msgflow check` on the same histories as JSON Lines and as Parquet with.
    CheckBuffers,
    /// `msgflow_formats::convert` of the file's text (a history) to Vercel AI `UIMessage`s, then
    /// the output's compact JSON: the steps `conversion_bench.py` times pydantic-ai's adapter on
    /// (parse, convert, serialise), plus msgflow's loss report.
    ConvertToVercelUi,
    /// `convert` of the file's `UIMessage`s to a history, then the history's JSON.
    ConvertFromVercelUi,
    /// `convert` of a history to AG-UI messages, then their JSON.
    ConvertToAgUi,
    /// `convert` of the file's AG-UI messages to a history, then the history's JSON.
    ConvertFromAgUi,
    /// `convert` of a history to the OTel message attributes of its last model request span, then
    /// their JSON.
    ConvertToOtel,
}

impl Operation {
    /// The formats a conversion operation converts from and to.
    fn conversion(self) -> Option<(Format, Format)> {
        Some(match self {
            Operation::ConvertToVercelUi => (Format::PydanticAi, Format::VercelUi),
            Operation::ConvertFromVercelUi => (Format::VercelUi, Format::PydanticAi),
            Operation::ConvertToAgUi => (Format::PydanticAi, Format::AgUi),
            Operation::ConvertFromAgUi => (Format::AgUi, Format::PydanticAi),
            Operation::ConvertToOtel => (Format::PydanticAi, Format::Otel),
            _ => return None,
        })
    }

    /// Whether the caches are emptied before each run.
    fn is_cold(self) -> bool {
        matches!(
            self,
            Operation::CheckCold
                | Operation::RepairCold
                | Operation::CanonicalRoundtripCold
                | Operation::TrimChars4Cold
                | Operation::ExportAnthropicCold
                | Operation::CheckProviderAnthropicCold
        )
    }
}

#[derive(Parser)]
#[command(
    name = "msgflow-bench",
    about = "Time one msgflow operation on a history file (one JSON line)"
)]
struct Cli {
    /// A pydantic-ai history (JSON array of messages).
    #[arg(long)]
    file: PathBuf,
    /// The operation to time.
    #[arg(long, value_enum)]
    op: Operation,
    /// Measured runs (after the warm-up).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// The token budget of the trim operations.
    #[arg(long, default_value_t = 100_000)]
    budget: usize,
    /// With a conversion operation: time only its input and output, the least any conversion
    /// in msgflow's types pays: the input read as `convert` reads it (a history's types, or a
    /// foreign document's JSON value), and the output, converted before the timing, written as
    /// `convert` writes it. pydantic-ai's time over this one bounds the speed-up any mapping and
    /// loss report could reach.
    #[arg(long)]
    io_only: bool,
}

/// One run's output, kept alive until after the timing so that freeing it is not measured.
/// The fields are only read by `Drop`.
#[allow(dead_code)]
enum Output {
    History(Vec<ModelMessage>),
    Bytes(Vec<u8>),
    HistoryAndBytes(Vec<ModelMessage>, Vec<u8>),
    Canonical(Vec<msgflow_canonical::CanonicalMessage>, Vec<ModelMessage>),
    Violations(Vec<msgflow_sanitize::Violation>),
    Verdict(msgflow_wire::verdict::Verdict),
    Repair(msgflow_sanitize::Repair),
    /// Where `write-file` wrote.
    Written(PathBuf),
    /// A stream's parts, and how many events the manager emitted.
    Parts(Vec<msgflow_wire::ModelResponsePart>, usize),
    /// A provider request, as JSON (outside the timing: for its size).
    Request(Box<dyn Fn() -> usize>),
    ProviderViolations(Vec<msgflow_providers::Violation>),
    /// A trim window: where it starts, its new first message.
    Trimmed(usize, Option<ModelMessage>),
    Tokens(usize),
    /// How many buffers were checked, and the bytes of their JSON reports.
    Checked(usize, usize),
    /// A conversion's output JSON, and how many losses its report holds.
    Converted(Vec<u8>, usize),
    /// `--io-only`: the input as read, and the output's JSON.
    ReadAndWritten(Box<dyn std::any::Any>, Vec<u8>),
    Nothing,
}

/// What a run consumes, prepared outside the timing.
#[derive(Default)]
struct Spare {
    /// A copy of the input bytes, for the operations that take the buffer over.
    buffer: Option<Vec<u8>>,
    /// The input's lines, each in a buffer of its own (`check-buffers`).
    lines: Vec<Vec<u8>>,
    /// A copy of the parsed history, for `repair` and `trim`.
    history: Option<Vec<ModelMessage>>,
}

impl Spare {
    fn for_op(op: Operation, input: &[u8], parsed: &[ModelMessage]) -> Self {
        let buffer = match op {
            Operation::Parse | Operation::ParseSerialise => Some(input.to_vec()),
            // Written once, so that every page is mapped, then emptied.
            Operation::SerialiseWarm => Some(vec![1; input.len() + input.len() / 8]).map(|mut buffer| {
                buffer.clear();
                buffer
            }),
            _ => None,
        };
        let lines = if op == Operation::CheckBuffers {
            input
                .split(|&byte| byte == b'\n')
                .filter(|line| !line.is_empty())
                .map(<[u8]>::to_vec)
                .collect()
        } else {
            Vec::new()
        };
        Spare {
            buffer,
            lines,
            history: matches!(op, Operation::Repair | Operation::RepairCold).then(|| parsed.to_vec()),
        }
    }

    fn buffer(&mut self) -> Result<Vec<u8>> {
        self.buffer.take().context("parsing needs a copy of the input")
    }
}

/// What an operation starts from, prepared outside the timing.
struct Prepared<'a> {
    /// Where `input` came from.
    file: &'a Path,
    input: &'a [u8],
    /// `input`'s history, for the operations that start from it.
    parsed: &'a [ModelMessage],
    /// `input`'s strings, for the stream operations.
    deltas: &'a [String],
    /// `--budget`.
    budget: usize,
    /// A rayon pool of one thread, for `verdict-one-thread`.
    one_thread: &'a rayon::ThreadPool,
    /// With `--io-only`: the conversion's output, made before the timing.
    converted: Option<&'a msgflow_formats::Output>,
}

/// Runs `op` once (`spare` is what the operation consumes).
fn run_once(op: Operation, prepared: &Prepared<'_>, mut spare: Spare) -> Result<Output> {
    use msgflow_context::tokens::{TokenCounter, Tokenizer};
    use msgflow_providers::Provider;
    use msgflow_stream::{ArgsDelta, PartsManager, TextDelta, ToolCallDelta, VendorId};
    let Prepared {
        file,
        input,
        parsed,
        deltas,
        budget,
        one_thread,
        converted,
    } = *prepared;
    let trim = |tokenizer| -> Result<Output> {
        let counter = TokenCounter::new(tokenizer);
        let window =
            msgflow_context::trim::trim_window(parsed, msgflow_context::trim::Budget::Tokens(budget), &counter)?;
        Ok(Output::Trimmed(window.start, window.first))
    };
    Ok(match op {
        Operation::StreamTextDeltas => {
            let mut manager = PartsManager::new();
            let mut events = 0;
            for delta in deltas {
                let delta = TextDelta::new(Some(VendorId::Int(0)), delta.as_str());
                events += usize::from(manager.handle_text_delta(delta)?.is_some());
            }
            Output::Parts(manager.into_parts(), events)
        }
        Operation::StreamArgFragments => {
            let mut manager = PartsManager::new();
            let mut events = 0;
            for (index, fragment) in deltas.iter().enumerate() {
                let first = index == 0;
                let delta = ToolCallDelta {
                    vendor_part_id: Some(VendorId::Int(0)),
                    tool_name: first.then(|| "write_file".to_owned()),
                    tool_call_id: first.then(|| "call_0".to_owned()),
                    args: Some(ArgsDelta::Text(fragment)),
                    ..ToolCallDelta::default()
                };
                events += usize::from(manager.handle_tool_call_delta(delta)?.is_some());
            }
            Output::Parts(manager.into_parts(), events)
        }
        Operation::ExportAnthropic | Operation::ExportAnthropicCold => {
            request(msgflow_providers::anthropic::export(parsed)?.request)
        }
        Operation::ExportOpenaiChat => request(msgflow_providers::openai_chat::export(parsed)?.request),
        Operation::ExportOpenaiResponses => request(msgflow_providers::openai_responses::export(parsed)?.request),
        Operation::CheckProviderAnthropic | Operation::CheckProviderAnthropicCold => {
            Output::ProviderViolations(msgflow_providers::check(parsed, Provider::Anthropic)?)
        }
        Operation::TrimChars4 | Operation::TrimChars4Cold => trim(Tokenizer::Chars4)?,
        Operation::TrimO200k => trim(Tokenizer::O200kBase)?,
        Operation::CountTokens => {
            let counter = TokenCounter::new(Tokenizer::O200kBase);
            Output::Tokens(parsed.iter().map(|message| counter.count_message(message)).sum())
        }
        Operation::CheckBuffers => {
            let lines = std::mem::take(&mut spare.lines);
            let output_bytes = one_thread.install(|| -> Result<usize> {
                let mut written = 0;
                for line in &lines {
                    let report = msgflow_corpus::row::check_row(line);
                    written += serde_json::to_vec(&report)?.len();
                }
                Ok(written)
            })?;
            Output::Checked(lines.len(), output_bytes)
        }
        Operation::Parse => Output::History(msgflow_wire::from_vec(spare.buffer()?)?),
        Operation::Serialise => Output::Bytes(msgflow_wire::to_vec(parsed)?),
        Operation::ParseSerialise => {
            let history = msgflow_wire::from_vec(spare.buffer()?)?;
            let bytes = msgflow_wire::to_vec(&history)?;
            Output::HistoryAndBytes(history, bytes)
        }
        Operation::CanonicalRoundtrip | Operation::CanonicalRoundtripCold => {
            let canonical = msgflow_adapter::to_canonical_history(parsed);
            let back = msgflow_adapter::from_canonical_history(&canonical)?;
            Output::Canonical(canonical, back)
        }
        Operation::Check | Operation::CheckCold => Output::Violations(msgflow_sanitize::check(parsed)),
        Operation::Verdict => Output::Verdict(msgflow_wire::verdict::verdict(parsed)),
        Operation::VerdictOneThread => Output::Verdict(one_thread.install(|| msgflow_wire::verdict::verdict(parsed))),
        Operation::Repair | Operation::RepairCold => {
            let history = spare.history.context("repair needs a copy of the history")?;
            Output::Repair(msgflow_sanitize::repair(history, &RepairOptions::default()))
        }
        Operation::IgnoredAny => {
            serde_json::from_slice::<serde::de::IgnoredAny>(input)?;
            Output::Nothing
        }
        Operation::ReadFile => Output::Bytes(fs::read(file)?),
        Operation::SerialiseWarm => {
            let mut buffer = spare.buffer()?;
            msgflow_wire::to_writer(&mut buffer, parsed)?;
            Output::Bytes(buffer)
        }
        Operation::ConvertToVercelUi
        | Operation::ConvertFromVercelUi
        | Operation::ConvertToAgUi
        | Operation::ConvertFromAgUi
        | Operation::ConvertToOtel => {
            let (from, to) = op.conversion().context("a conversion operation has its formats")?;
            match converted {
                Some(output) => read_and_write(input, from, output)?,
                None => convert(input, from, to)?,
            }
        }
        Operation::WriteFile => {
            let target = written_file_path(file);
            write_like_the_cli(&target, input)?;
            Output::Written(target)
        }
    })
}

/// `input` converted `from` one format `to` another, and the output's compact JSON (as pydantic-ai's
/// `dump_json` writes it), written as `msgflow convert` writes it: a history with `to_vec` (which
/// sizes its buffer from the history), a document into a buffer the size of the input.
fn convert(input: &[u8], from: Format, to: Format) -> Result<Output> {
    let converted = msgflow_formats::convert(std::str::from_utf8(input)?, from, to)?;
    let mut bytes = Vec::new();
    write_output(input, &converted.output, &mut bytes)?;
    Ok(Output::Converted(bytes, converted.report.losses.len()))
}

/// `--io-only`: `input` read as `convert` reads a document `from` its format, and `output` (what
/// the conversion made of it) written as [`convert`] writes it, with no conversion between.
fn read_and_write(input: &[u8], from: Format, output: &msgflow_formats::Output) -> Result<Output> {
    let text = std::str::from_utf8(input)?;
    // As `msgflow_formats::convert_with` reads a document (a history into its types from one copy
    // of the text; a long array of UI messages in pieces on the pool; any other document whole),
    // without the walk it adds over UI messages read in pieces for the whole text's depth limit:
    // a check, not a read, so the bound stays the least a conversion pays. Kept in step with it
    // by hand, as `convert_with` does not expose its reading.
    let read: Box<dyn std::any::Any> = match from {
        Format::PydanticAi => Box::new(msgflow_wire::Input::from(text.to_owned()).parse()?),
        Format::VercelUi | Format::AgUi => match msgflow_wire::values_in_pieces(text) {
            Some(messages) => Box::new(messages),
            None => Box::new(serde_json::from_str::<serde_json::Value>(text)?),
        },
        _ => Box::new(serde_json::from_str::<serde_json::Value>(text)?),
    };
    let mut bytes = Vec::new();
    write_output(input, output, &mut bytes)?;
    // Freed after the timing, as a conversion's output is.
    Ok(Output::ReadAndWritten(read, bytes))
}

/// The output's compact JSON as `msgflow convert` writes it: a history with `to_vec` (which sizes
/// its buffer from the history), a document into a buffer the size of the input.
fn write_output(input: &[u8], output: &msgflow_formats::Output, bytes: &mut Vec<u8>) -> Result<()> {
    match output {
        msgflow_formats::Output::Histories(histories) => {
            for history in histories {
                let written = msgflow_wire::to_vec(history)?;
                if bytes.is_empty() {
                    *bytes = written;
                } else {
                    bytes.extend_from_slice(&written);
                }
            }
        }
        msgflow_formats::Output::Documents(documents) => {
            bytes.reserve(input.len());
            for document in documents {
                serde_json::to_writer(&mut *bytes, document)?;
            }
        }
    }
    Ok(())
}

/// A typed provider request, kept until after the timing; its JSON size is measured afterwards.
fn request<R: serde::Serialize + 'static>(request: R) -> Output {
    Output::Request(Box::new(move || {
        serde_json::to_vec(&request).map_or(0, |bytes| bytes.len())
    }))
}

/// Where `write-file` writes: beside the input, removed after the last run.
fn written_file_path(file: &Path) -> PathBuf {
    file.with_extension("write-file.out")
}

/// The steps of the CLI's `files::write_atomically_with`, with the output already in memory (the
/// CLI streams it from the serialiser through a 64 KiB buffer).
fn write_like_the_cli(target: &Path, bytes: &[u8]) -> Result<()> {
    let directory = target.parent().context("the output has no directory")?;
    let mut temporary = tempfile::Builder::new().tempfile_in(directory)?;
    for chunk in bytes.chunks(WRITE_CHUNK_BYTES) {
        temporary.as_file_mut().write_all(chunk)?;
    }
    temporary.as_file().sync_all()?;
    temporary.persist(target).map_err(|err| err.error)?;
    fs::File::open(directory)?.sync_all()?;
    Ok(())
}

/// A sanity fact about the first run's output, reported so that a broken operation is visible.
fn describe(op: Operation, input: &[u8], parsed: &[ModelMessage], output: &Output) -> serde_json::Value {
    match output {
        Output::Parts(parts, events) => serde_json::json!({
            "parts": parts.len(),
            "events": events,
            "output_bytes": serde_json::to_vec(parts).map_or(0, |bytes| bytes.len()),
        }),
        Output::Request(size) => serde_json::json!({ "request_bytes": size() }),
        Output::ProviderViolations(violations) => serde_json::json!({ "violations": violations.len() }),
        Output::Trimmed(start, first) => {
            let skip = *start + usize::from(first.is_some());
            let kept: Vec<ModelMessage> = first.iter().chain(&parsed[skip..]).cloned().collect();
            let violations = msgflow_sanitize::check(&kept);
            serde_json::json!({
                "messages_before": parsed.len(),
                "messages_after": kept.len(),
                "broken_pairs": msgflow_integration_tests::unpaired(&kept).len(),
                "input_broken_pairs": msgflow_integration_tests::unpaired(parsed).len(),
                "check_passes": violations.is_empty(),
            })
        }
        Output::Tokens(tokens) => serde_json::json!({ "tokens": tokens }),
        Output::Checked(rows, report_bytes) => serde_json::json!({ "rows": rows, "report_bytes": report_bytes }),
        Output::Converted(bytes, losses) => serde_json::json!({ "output_bytes": bytes.len(), "losses": losses }),
        Output::ReadAndWritten(_, bytes) => serde_json::json!({ "output_bytes": bytes.len(), "io_only": true }),
        Output::History(history) => serde_json::json!({ "messages": history.len() }),
        // A read is its input: comparing them would say nothing.
        Output::Bytes(bytes) if op == Operation::ReadFile => serde_json::json!({ "bytes_read": bytes.len() }),
        Output::Bytes(bytes) | Output::HistoryAndBytes(_, bytes) => {
            serde_json::json!({ "output_bytes": bytes.len(), "byte_identical": bytes.as_slice() == input })
        }
        Output::Canonical(canonical, back) => serde_json::json!({
            "canonical_messages": canonical.len(),
            "roundtrip_equal": back.as_slice() == parsed,
        }),
        Output::Violations(violations) => serde_json::json!({ "violations": violations.len() }),
        Output::Verdict(verdict) => serde_json::json!({
            "loadable": verdict.is_loadable(),
            "reasons": verdict.reasons().len(),
        }),
        Output::Repair(repair) => serde_json::json!({
            "changes": repair.report.changes.len(),
            "messages_after": repair.history.len(),
        }),
        Output::Written(path) => serde_json::json!({
            "file_identical": fs::read(path).is_ok_and(|written| written == input),
        }),
        Output::Nothing => serde_json::json!({ "op": format!("{op:?}") }),
    }
}

/// A `kB` field of `/proc/self/status` (e.g. `VmRSS`) in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
        Some(kib * 1024)
    })
}

/// Resets the kernel's peak-RSS counter; true only if the reset visibly took effect.
fn reset_peak_rss() -> bool {
    if fs::write("/proc/self/clear_refs", "5").is_err() {
        return false;
    }
    match (status_bytes("VmHWM"), status_bytes("VmRSS")) {
        (Some(hwm), Some(rss)) => hwm <= rss + RESET_SLACK_BYTES,
        _ => false,
    }
}

fn median(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    match sorted.len() {
        0 => f64::NAN,
        len if len % 2 == 1 => sorted[middle],
        _ => (sorted[middle - 1] + sorted[middle]) / 2.0,
    }
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let input = fs::read(&cli.file).with_context(|| format!("reading {}", cli.file.display()))?;
    if cli.io_only && cli.op.conversion().is_none() {
        bail!("--io-only times a conversion's input and output: it needs a convert-* operation");
    }
    // `--io-only`: the conversion's output, made once before any timing.
    let premade = |input: &[u8]| -> Result<Option<msgflow_formats::Output>> {
        match cli.op.conversion() {
            Some((from, to)) if cli.io_only => Ok(Some(
                msgflow_formats::convert(std::str::from_utf8(input)?, from, to)?.output,
            )),
            _ => Ok(None),
        }
    };

    let is_stream = matches!(cli.op, Operation::StreamTextDeltas | Operation::StreamArgFragments);
    let deltas: Vec<String> = if is_stream {
        serde_json::from_slice(&input)
            .with_context(|| format!("{} is not a JSON array of strings", cli.file.display()))?
    } else {
        Vec::new()
    };

    // Built before the timing (its thread starts here).
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    // Warm-up on the tiny history (or the first deltas): touches every code path once without
    // growing the heap.
    let warm_parsed = msgflow_wire::from_slice(WARM_UP_HISTORY)?;
    let warm_input = match cli.op.conversion() {
        // A conversion from a foreign format warms up on the warm-up history in that format.
        Some((from, _)) if from != Format::PydanticAi => match convert(WARM_UP_HISTORY, Format::PydanticAi, from)? {
            Output::Converted(bytes, _) => bytes,
            _ => unreachable!("convert gives converted bytes"),
        },
        _ => WARM_UP_HISTORY.to_vec(),
    };
    let warm_spare = Spare::for_op(cli.op, &warm_input, &warm_parsed);
    let warm_converted = premade(&warm_input)?;
    let warm_up = Prepared {
        file: &cli.file,
        input: &warm_input,
        parsed: &warm_parsed,
        deltas: &deltas[..deltas.len().min(10)],
        budget: usize::MAX,
        one_thread: &one_thread,
        converted: warm_converted.as_ref(),
    };
    drop(run_once(cli.op, &warm_up, warm_spare)?);
    drop(warm_parsed);

    let needs_parsed = !is_stream
        && !matches!(
            cli.op,
            Operation::Parse
                | Operation::ParseSerialise
                | Operation::IgnoredAny
                | Operation::ReadFile
                | Operation::WriteFile
                | Operation::CheckBuffers
        )
        && cli.op.conversion().is_none();
    // Mapped before the first run, so that writing it later changes no memory figure.
    let mut eviction = if cli.op.is_cold() {
        vec![1_u8; CACHE_EVICTION_BYTES]
    } else {
        Vec::new()
    };
    let parsed = if needs_parsed {
        msgflow_wire::from_vec(input.clone()).with_context(|| format!("parsing {}", cli.file.display()))?
    } else {
        Vec::new()
    };
    let converted = premade(&input)?;

    let mut process_peak = status_bytes("VmHWM").unwrap_or(0);
    let mut times = Vec::new();
    let mut peak_rss_delta = None;
    let mut detail = serde_json::Value::Null;
    for run in 0..cli.runs {
        let spare = Spare::for_op(cli.op, &input, &parsed);
        let measure_memory = run == 0;
        let mut memory_baseline = None;
        if measure_memory {
            // The reset discards the peak so far; remember it for process_peak_rss_bytes.
            process_peak = process_peak.max(status_bytes("VmHWM").unwrap_or(0));
            let rss_before = status_bytes("VmRSS");
            memory_baseline = rss_before.filter(|_| reset_peak_rss());
        }
        if !eviction.is_empty() {
            eviction.fill(run as u8);
            black_box(&eviction);
        }
        let started = Instant::now();
        let prepared = Prepared {
            file: &cli.file,
            input: black_box(&input),
            parsed: &parsed,
            deltas: &deltas,
            budget: cli.budget,
            one_thread: &one_thread,
            converted: converted.as_ref(),
        };
        let output = black_box(run_once(cli.op, &prepared, spare)?);
        let elapsed = started.elapsed().as_secs_f64();
        if let (Some(before), Some(hwm)) = (memory_baseline, status_bytes("VmHWM")) {
            peak_rss_delta = Some(hwm.saturating_sub(before));
        }
        if measure_memory {
            detail = describe(cli.op, &input, &parsed, &output);
        }
        times.push(elapsed);
        drop(output);
    }
    process_peak = process_peak.max(status_bytes("VmHWM").unwrap_or(0));
    if cli.op == Operation::WriteFile {
        fs::remove_file(written_file_path(&cli.file)).ok();
    }
    if times.is_empty() {
        bail!("no runs");
    }

    let report = serde_json::json!({
        "tool": "msgflow",
        "op": cli.op.to_possible_value().map(|value| {
            let name = value.get_name();
            if cli.io_only { format!("{name} --io-only") } else { name.to_owned() }
        }),
        "file": cli.file.display().to_string(),
        "bytes": input.len(),
        "runs": cli.runs,
        "median_s": median(&times),
        "min_s": times.iter().copied().fold(f64::INFINITY, f64::min),
        "times_s": times,
        "peak_rss_delta_bytes": peak_rss_delta,
        "process_peak_rss_bytes": process_peak,
        "detail": detail,
    });
    println!("{report}");
    Ok(())
}
