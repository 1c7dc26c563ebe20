//! The main section's inputs and raw results: the generated histories, the operations run on
//! each, and one [`Measurement`] per operation and history (as `msgflow-bench` and
//! `pydantic_bench.py` print it).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// How many messages a generated history has.
#[derive(Clone, Copy)]
pub(super) enum Size {
    /// `--scale F`: F times the reference 5,000 messages.
    Scale(u32),
    /// `--messages N`.
    Messages(u32),
}

/// One generated history.
pub(super) struct Dataset {
    /// Short name used in tables and result keys.
    pub(super) key: &'static str,
    pub(super) shape: &'static str,
    pub(super) size: Size,
    /// Whether pydantic-ai runs on it too (the scaling files are msgflow-only).
    pub(super) with_pydantic: bool,
}

pub(super) const BIG_STRINGS: &str = "big-strings 1x";
pub(super) const BIG_STRUCTURED: &str = "big-structured 1x";
pub(super) const BIG_STRINGS_4X: &str = "big-strings 4x";
pub(super) const BIG_STRINGS_16X: &str = "big-strings 16x";
pub(super) const SMALL_10K: &str = "small 10k msgs";
pub(super) const SMALL_100K: &str = "small 100k msgs";

/// Every history, in the order they are benchmarked.
pub(super) const DATASETS: &[Dataset] = &[
    Dataset {
        key: BIG_STRINGS,
        shape: "big-strings",
        size: Size::Scale(1),
        with_pydantic: true,
    },
    Dataset {
        key: BIG_STRUCTURED,
        shape: "big-structured",
        size: Size::Scale(1),
        with_pydantic: true,
    },
    Dataset {
        key: BIG_STRINGS_4X,
        shape: "big-strings",
        size: Size::Scale(4),
        with_pydantic: false,
    },
    Dataset {
        key: BIG_STRINGS_16X,
        shape: "big-strings",
        size: Size::Scale(16),
        with_pydantic: false,
    },
    Dataset {
        key: SMALL_10K,
        shape: "small",
        size: Size::Messages(10_000),
        with_pydantic: false,
    },
    Dataset {
        key: SMALL_100K,
        shape: "small",
        size: Size::Messages(100_000),
        with_pydantic: true,
    },
];

// Operation names (the `op` of a result; the msgflow-bench ones are its `--op` values).
pub(super) const PY_VALIDATE: &str = "validate_json";
pub(super) const PY_DUMP: &str = "dump_json";
pub(super) const PARSE: &str = "parse";
pub(super) const SERIALISE: &str = "serialise";
pub(super) const PARSE_SERIALISE: &str = "parse-serialise";
pub(super) const CANONICAL: &str = "canonical-roundtrip";
pub(super) const CHECK: &str = "check";
pub(super) const VERDICT: &str = "verdict";
pub(super) const VERDICT_ONE_THREAD: &str = "verdict-one-thread";
pub(super) const REPAIR: &str = "repair";
pub(super) const LIMIT: &str = "ignored-any";
pub(super) const READ_FILE: &str = "read-file";
pub(super) const SERIALISE_WARM: &str = "serialise-warm";
pub(super) const CHECK_COLD: &str = "check-cold";
pub(super) const REPAIR_COLD: &str = "repair-cold";
pub(super) const CANONICAL_COLD: &str = "canonical-roundtrip-cold";
pub(super) const WRITE_FILE: &str = "write-file";
/// The sum of the CLI's parts (computed, not run): see [`cli_parts`].
pub(super) const CLI_PARTS: &str = "cli-parts";
pub(super) const PY_DUMP_KEPT: &str = "dump_json-kept-memory";
pub(super) const SERIALISE_KEPT: &str = "serialise-kept-memory";
pub(super) const PARSE_SERIALISE_KEPT: &str = "parse-serialise-kept-memory";
pub(super) const CLI_REPAIR: &str = "cli-repair";
pub(super) const CLI_FMT: &str = "cli-fmt";

/// What runs on one file, in this order: pydantic-ai and msgflow alternate.
pub(super) enum Job {
    Pydantic(&'static str, Memory),
    Msgflow(&'static str, Memory),
    /// `msgflow repair FILE -o OUT`, whole process.
    CliRepair,
    /// `msgflow fmt FILE -o OUT`, whole process (for its peak memory).
    CliFmt,
}

/// How the process's allocator treats freed memory.
#[derive(Clone, Copy)]
pub(super) enum Memory {
    /// The allocators' defaults.
    Default,
    /// Told to keep freed memory (see [`KEPT_MEMORY_ENV`]); the results are filed under this
    /// name. Only on the files pydantic-ai runs on, since the rows compare the two.
    Kept(&'static str),
}

/// Allocators hand large freed blocks back to the kernel (glibc above its mmap threshold, at most
/// 32 MiB by default; mimalloc a second after they are freed), so every run that writes a large
/// output pays for the kernel zeroing and mapping its pages again; on this machine 0.3-0.4 ms per
/// MB. These settings keep such memory in the process, as a long-running batch process would reuse
/// it. Both tools run with them in the "memory kept" rows (pydantic-ai allocates through glibc's
/// `malloc`, msgflow through mimalloc).
pub(super) const KEPT_MEMORY_ENV: [(&str, &str); 2] = [
    (
        "GLIBC_TUNABLES",
        "glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=17179869184",
    ),
    ("MIMALLOC_PURGE_DELAY", "-1"),
];

pub(super) const JOBS: &[Job] = &[
    Job::Pydantic(PY_VALIDATE, Memory::Default),
    Job::Msgflow(PARSE, Memory::Default),
    Job::Msgflow(LIMIT, Memory::Default),
    Job::Pydantic(PY_DUMP, Memory::Default),
    Job::Msgflow(SERIALISE, Memory::Default),
    Job::Msgflow(SERIALISE_WARM, Memory::Default),
    Job::Msgflow(PARSE_SERIALISE, Memory::Default),
    Job::Msgflow(CANONICAL, Memory::Default),
    Job::Msgflow(CHECK, Memory::Default),
    Job::Msgflow(VERDICT, Memory::Default),
    Job::Msgflow(VERDICT_ONE_THREAD, Memory::Default),
    Job::Msgflow(REPAIR, Memory::Default),
    Job::Msgflow(CHECK_COLD, Memory::Default),
    Job::Msgflow(REPAIR_COLD, Memory::Default),
    Job::Msgflow(CANONICAL_COLD, Memory::Default),
    Job::Msgflow(READ_FILE, Memory::Default),
    Job::Msgflow(WRITE_FILE, Memory::Default),
    Job::Pydantic(PY_DUMP, Memory::Kept(PY_DUMP_KEPT)),
    Job::Msgflow(SERIALISE, Memory::Kept(SERIALISE_KEPT)),
    Job::Msgflow(PARSE_SERIALISE, Memory::Kept(PARSE_SERIALISE_KEPT)),
    Job::CliRepair,
    Job::CliFmt,
];

/// One operation's timing on one file (the JSON line of `msgflow-bench` / `pydantic_bench.py`,
/// or a CLI measurement).
#[derive(Clone, Debug, Deserialize, Serialize)]
pub(super) struct Measurement {
    pub(super) tool: String,
    pub(super) op: String,
    pub(super) bytes: u64,
    pub(super) runs: u32,
    pub(super) median_s: f64,
    pub(super) min_s: f64,
    #[serde(default)]
    pub(super) times_s: Vec<f64>,
    /// Peak RSS during the first run minus RSS before it (for CLI rows: the whole process's peak).
    pub(super) peak_rss_delta_bytes: Option<u64>,
    #[serde(default)]
    pub(super) process_peak_rss_bytes: Option<u64>,
    #[serde(default)]
    pub(super) detail: serde_json::Value,
}

/// Everything measured, keyed by dataset then operation.
#[derive(Default, Serialize)]
pub(super) struct Results {
    pub(super) measurements: BTreeMap<String, BTreeMap<String, Measurement>>,
    pub(super) failures: Vec<String>,
}

impl Measurement {
    /// The measurement under another operation name (a variant of the operation it ran).
    pub(super) fn filed_as(self, op: &str) -> Self {
        Measurement {
            op: op.to_owned(),
            ..self
        }
    }
}

impl Results {
    pub(super) fn get(&self, dataset: &str, op: &str) -> Option<&Measurement> {
        self.measurements.get(dataset)?.get(op)
    }

    pub(super) fn median(&self, dataset: &str, op: &str) -> Option<f64> {
        self.get(dataset, op).map(|m| m.median_s)
    }
}

/// The steps of `msgflow repair FILE -o OUT`, each timed on its own, added up (medians, and
/// minimums): how much of the whole process's time they explain, and what it cannot go below
/// (none of them is start-up, and serialising into mapped memory is the cheapest way to write).
pub(super) fn cli_parts(measurements: &BTreeMap<String, Measurement>) -> Option<Measurement> {
    const PARTS: [&str; 5] = [READ_FILE, PARSE, REPAIR, SERIALISE_WARM, WRITE_FILE];
    let parts = PARTS
        .iter()
        .map(|op| measurements.get(*op))
        .collect::<Option<Vec<_>>>()?;
    Some(Measurement {
        tool: "derived".to_owned(),
        op: CLI_PARTS.to_owned(),
        bytes: parts[0].bytes,
        runs: parts.iter().map(|m| m.runs).min().unwrap_or(0),
        median_s: parts.iter().map(|m| m.median_s).sum(),
        min_s: parts.iter().map(|m| m.min_s).sum(),
        times_s: Vec::new(),
        peak_rss_delta_bytes: None,
        process_peak_rss_bytes: None,
        detail: serde_json::json!({ "sum_of": PARTS.join(" + ") }),
    })
}

pub(super) fn pydantic_command(python: &Path, root: &Path) -> Command {
    let mut command = Command::new(python);
    command.arg(root.join("oracle/bench/pydantic_bench.py"));
    command
}

/// FNV-1a of the generator script: a change to it regenerates the cached histories.
pub(super) fn generator_hash(script: &[u8]) -> String {
    let hash = script.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{:08x}", hash >> 32)
}

/// The cached history for `dataset`, generating it first if needed.
pub(super) fn generate(root: &Path, python: &Path, bench_dir: &Path, dataset: &Dataset, seed: u64) -> Result<PathBuf> {
    let script = root.join("oracle/bench/gen_history.py");
    let script_bytes = fs::read(&script).with_context(|| format!("reading {}", script.display()))?;
    let (size_arg, size_value, size_name) = match dataset.size {
        Size::Scale(factor) => ("--scale", factor.to_string(), format!("x{factor}")),
        Size::Messages(count) => ("--messages", count.to_string(), format!("m{count}")),
    };
    let name = format!(
        "{}-seed{seed}-{size_name}-g{}.json",
        dataset.shape,
        generator_hash(&script_bytes)
    );
    let path = bench_dir.join(name);
    if path.is_file() {
        return Ok(path);
    }
    eprintln!("bench: generating {}", path.display());
    let partial = path.with_extension("json.partial");
    let status = Command::new(python)
        .arg(&script)
        .args([
            "--shape",
            dataset.shape,
            "--seed",
            &seed.to_string(),
            size_arg,
            &size_value,
            "--out",
        ])
        .arg(&partial)
        .status()
        .context("running gen_history.py")?;
    if !status.success() {
        bail!("gen_history.py failed for {}", dataset.key);
    }
    fs::rename(&partial, &path).with_context(|| format!("renaming {}", partial.display()))?;
    Ok(path)
}

/// Runs `command --file FILE --op OP --runs N` and parses the JSON line it prints last.
pub(super) fn run_json_line(command: &mut Command, file: &Path, op: &str, runs: u32) -> Result<Measurement> {
    let output = command
        .arg("--file")
        .arg(file)
        .args(["--op", op, "--runs", &runs.to_string()])
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("starting {op}"))?;
    if !output.status.success() {
        bail!("{op} exited with {}", output.status);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|line| line.starts_with('{'))
        .context("no JSON line")?;
    let mut measurement: Measurement =
        serde_json::from_str(line).with_context(|| format!("{op} printed an unexpected line: {line}"))?;
    // pydantic_bench.py has no `detail`; keep its versions there instead (peer_bench.py has one).
    if measurement.tool == "pydantic-ai" && measurement.detail.is_null() {
        let value: serde_json::Value = serde_json::from_str(line)?;
        measurement.detail = serde_json::json!({
            "pydantic_ai_version": value.get("pydantic_ai_version"),
            "pydantic_core_version": value.get("pydantic_core_version"),
        });
    }
    Ok(measurement)
}
