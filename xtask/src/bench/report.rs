//! The main section of `BENCHMARKS.md`: targets (met / not met), per-history tables, the
//! pydantic-ai ratios and the scaling rows, rendered from the [`Results`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use super::measurement::*;
use super::process::{command_stdout, cpu_and_cache, meminfo_field};

pub(super) fn pydantic_versions(results: &Results) -> Option<String> {
    let detail = &results
        .measurements
        .values()
        .flat_map(BTreeMap::values)
        .find(|m| m.tool == "pydantic-ai")?
        .detail;
    Some(format!(
        "pydantic-ai {}, pydantic-core {}",
        detail.get("pydantic_ai_version")?.as_str()?,
        detail.get("pydantic_core_version")?.as_str()?
    ))
}

/// Facts about the run printed above the tables.
pub(super) struct Environment {
    pub(super) started_at: String,
    pub(super) load_before: String,
    pub(super) load_after: String,
    pub(super) runs: u32,
    pub(super) seed: u64,
    pub(super) skipped: Vec<String>,
    pub(super) pydantic_versions: Option<String>,
}

pub(super) fn format_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        "-".to_owned()
    } else if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else if seconds >= 0.001 {
        format!("{:.1} ms", seconds * 1e3)
    } else {
        format!("{:.0} µs", seconds * 1e6)
    }
}

pub(super) fn format_mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "-".to_owned(),
        |bytes| format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    )
}

/// Human names of the operations, in table order.
pub(super) const OPERATION_ROWS: &[(&str, &str)] = &[
    (PY_VALIDATE, "pydantic-ai `validate_json`"),
    (PY_DUMP, "pydantic-ai `dump_json`"),
    (LIMIT, "limit: serde_json `IgnoredAny`"),
    (PARSE, "msgflow parse (`from_vec`)"),
    (SERIALISE, "msgflow serialise (`to_vec`)"),
    (SERIALISE_WARM, "(diagnostic) serialise into mapped memory"),
    (PARSE_SERIALISE, "msgflow parse + serialise"),
    (PY_DUMP_KEPT, "(memory kept) pydantic-ai `dump_json`"),
    (SERIALISE_KEPT, "(memory kept) msgflow serialise (`to_vec`)"),
    (PARSE_SERIALISE_KEPT, "(memory kept) msgflow parse + serialise"),
    (CANONICAL, "msgflow wire -> canonical -> wire"),
    (CHECK, "msgflow `check`"),
    (VERDICT, "msgflow loadability verdict (`verdict::verdict`)"),
    (VERDICT_ONE_THREAD, "(diagnostic) the verdict on one thread"),
    (REPAIR, "msgflow `repair` (library)"),
    (CHECK_COLD, "(diagnostic) `check`, caches emptied"),
    (REPAIR_COLD, "(diagnostic) `repair`, caches emptied"),
    (CANONICAL_COLD, "(diagnostic) canonical round trip, caches emptied"),
    (READ_FILE, "(diagnostic) read the file (`fs::read`)"),
    (
        WRITE_FILE,
        "(diagnostic) write the file as the CLI does (64 KiB writes, fsync, rename)",
    ),
    (
        CLI_PARTS,
        "(diagnostic) read + parse + repair + serialise into mapped memory + write, added up",
    ),
    (CLI_REPAIR, "`msgflow repair FILE -o OUT` (process)"),
    (CLI_FMT, "`msgflow fmt FILE -o OUT` (process)"),
];

/// One target: what is compared, the measured value, and whether it is met (`None`: not measured).
pub(super) struct Target {
    pub(super) name: String,
    pub(super) measured: String,
    pub(super) met: Option<bool>,
}

pub(super) fn verdict(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "**NOT MET**",
        None => "not measured",
    }
}

/// `numerator / denominator` of two medians, as a target row.
pub(super) fn ratio_target(results: &Results, name: String, dataset: &str, ops: (&str, &str), goal: Goal) -> Target {
    let ratio = results
        .median(dataset, ops.0)
        .zip(results.median(dataset, ops.1))
        .map(|(a, b)| a / b);
    Target {
        name,
        measured: ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}x")),
        met: ratio.map(|ratio| goal.holds(ratio)),
    }
}

#[derive(Clone, Copy)]
pub(super) enum Goal {
    AtLeast(f64),
    AtMost(f64),
}

impl Goal {
    pub(super) fn holds(self, value: f64) -> bool {
        match self {
            Goal::AtLeast(bound) => value >= bound,
            Goal::AtMost(bound) => value <= bound,
        }
    }
}

/// Time per byte (or per message) of `op` on `large` relative to `base`: 1.0 is perfectly linear.
pub(super) fn scaling_ratio(
    results: &Results,
    op: &str,
    base: &str,
    large: &str,
    per_message: Option<(f64, f64)>,
) -> Option<f64> {
    let base_m = results.get(base, op)?;
    let large_m = results.get(large, op)?;
    let (base_units, large_units) = per_message.unwrap_or((base_m.bytes as f64, large_m.bytes as f64));
    Some((large_m.median_s / large_units) / (base_m.median_s / base_units))
}

/// The operations whose linear scaling is checked, 1x -> 4x -> 16x.
pub(super) const SCALING_OPS: &[&str] = &[
    PARSE,
    SERIALISE,
    PARSE_SERIALISE,
    CANONICAL,
    CHECK,
    REPAIR,
    CLI_REPAIR,
    LIMIT,
];
/// The operations on a parsed history again, with the caches emptied before each run, so that
/// every size starts from memory: a 1x history's parsed form otherwise stays in the cache between
/// runs and a 16x one does not. Their scaling rows sit beside the plain ones, which stay targets.
pub(super) const COLD_SCALING_OPS: &[&str] = &[CANONICAL_COLD, CHECK_COLD, REPAIR_COLD];
/// Within 20% of linear.
pub(super) const LINEAR_TOLERANCE: f64 = 1.2;

pub(super) fn targets(results: &Results) -> Vec<Target> {
    let mut rows = Vec::new();
    for (dataset, bound) in [(BIG_STRINGS, 10.0), (BIG_STRUCTURED, 30.0)] {
        rows.push(ratio_target(
            results,
            format!("parse >= {bound:.0}x faster than pydantic-ai (`validate_json` / parse), {dataset}"),
            dataset,
            (PY_VALIDATE, PARSE),
            Goal::AtLeast(bound),
        ));
        rows.push(ratio_target(
            results,
            format!("serialise >= {bound:.0}x faster than pydantic-ai (`dump_json` / serialise), {dataset}"),
            dataset,
            (PY_DUMP, SERIALISE),
            Goal::AtLeast(bound),
        ));
        rows.push(ratio_target(
            results,
            format!("(memory kept, both tools) serialise >= {bound:.0}x faster than pydantic-ai, {dataset}"),
            dataset,
            (PY_DUMP_KEPT, SERIALISE_KEPT),
            Goal::AtLeast(bound),
        ));
    }
    for dataset in [BIG_STRINGS, BIG_STRUCTURED] {
        rows.push(ratio_target(
            results,
            format!("parse <= 2x `IgnoredAny`, {dataset}"),
            dataset,
            (PARSE, LIMIT),
            Goal::AtMost(2.0),
        ));
        rows.push(ratio_target(
            results,
            format!("parse + serialise <= 3x `IgnoredAny`, {dataset}"),
            dataset,
            (PARSE_SERIALISE, LIMIT),
            Goal::AtMost(3.0),
        ));
        rows.push(ratio_target(
            results,
            format!("(memory kept) parse + serialise <= 3x `IgnoredAny`, {dataset}"),
            dataset,
            (PARSE_SERIALISE_KEPT, LIMIT),
            Goal::AtMost(3.0),
        ));
        rows.push(ratio_target(
            results,
            format!("`msgflow repair` end to end <= 3x `IgnoredAny`, {dataset}"),
            dataset,
            (CLI_REPAIR, LIMIT),
            Goal::AtMost(3.0),
        ));
    }
    let fmt_peak = results
        .get(BIG_STRINGS, CLI_FMT)
        .and_then(|m| m.peak_rss_delta_bytes.map(|peak| (peak as f64 / m.bytes as f64, peak)));
    rows.push(Target {
        name: format!("`msgflow fmt` whole-process peak RSS <= 2x input size, {BIG_STRINGS}"),
        measured: fmt_peak.map_or_else(
            || "-".to_owned(),
            |(ratio, peak)| format!("{ratio:.2}x ({})", format_mib(Some(peak))),
        ),
        met: fmt_peak.map(|(ratio, _)| ratio <= 2.0),
    });
    for op in SCALING_OPS.iter().chain(COLD_SCALING_OPS) {
        for large in [BIG_STRINGS_4X, BIG_STRINGS_16X] {
            let ratio = scaling_ratio(results, op, BIG_STRINGS, large, None);
            rows.push(Target {
                name: format!("linear within 20%: `{op}` time per byte, {large} / 1x"),
                measured: ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}")),
                met: ratio.map(|ratio| ratio <= LINEAR_TOLERANCE),
            });
        }
    }
    // The verdict's cost on every history: the small ones are all messages and usage, which is
    // where the verdict does the most per byte.
    for dataset in [BIG_STRINGS, BIG_STRUCTURED, SMALL_10K, SMALL_100K] {
        rows.push(ratio_target(
            results,
            format!("loadability verdict <= 10% of parse time, {dataset}"),
            dataset,
            (VERDICT, PARSE),
            Goal::AtMost(0.10),
        ));
    }
    for op in [CHECK, REPAIR, CHECK_COLD, REPAIR_COLD] {
        let ratio = scaling_ratio(results, op, SMALL_10K, SMALL_100K, Some((10_000.0, 100_000.0)));
        rows.push(Target {
            name: format!("100k messages linear: `{op}` time per message, 100k / 10k"),
            measured: ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}")),
            met: ratio.map(|ratio| ratio <= LINEAR_TOLERANCE),
        });
    }
    rows
}

/// The generated section: environment, per-file tables, ratios, scaling and targets.
pub(super) fn render_report(results: &Results, environment: &Environment) -> String {
    let mut out = String::new();
    let memory = meminfo_field("MemTotal").map_or_else(
        || "unknown".to_owned(),
        |b| format!("{:.1} GiB", b as f64 / 1_073_741_824.0),
    );
    let nproc = std::thread::available_parallelism().map_or(0, usize::from);
    let commit = command_stdout(Command::new("git").args(["rev-parse", "--short", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    let rustc = command_stdout(Command::new("rustc").arg("--version")).unwrap_or_else(|| "unknown".to_owned());
    let _ = writeln!(out, "### Run of {}\n", environment.started_at);
    let _ = writeln!(
        out,
        "- machine: {nproc} CPUs ({}), {memory} RAM; load average (1/5/15 min) {} at the start, {} at the end",
        cpu_and_cache(),
        environment.load_before,
        environment.load_after
    );
    let _ = writeln!(
        out,
        "- commit {commit} (plus uncommitted changes, if any); {rustc}; {}",
        environment
            .pydantic_versions
            .as_deref()
            .unwrap_or("pydantic-ai not run")
    );
    let _ = writeln!(
        out,
        "- median of {} runs after a warm-up, one process per operation; seed {}",
        environment.runs, environment.seed
    );
    for note in &environment.skipped {
        let _ = writeln!(out, "- {note}");
    }
    for failure in &results.failures {
        let _ = writeln!(out, "- FAILED: {failure}");
    }

    let _ = writeln!(out, "\n#### Targets\n");
    let _ = writeln!(out, "| target | measured | verdict |\n|---|---|---|");
    for target in targets(results) {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            target.name,
            target.measured,
            verdict(target.met)
        );
    }

    let _ = writeln!(out, "\n#### Times, throughput and peak memory\n");
    let _ = writeln!(
        out,
        "Peak memory: RSS high-water mark during the first measured run minus RSS before it (input and, where \
         used, the parsed history already loaded); for the two CLI rows, the whole process's peak (`wait4`)."
    );
    for dataset in DATASETS {
        let Some(measurements) = results.measurements.get(dataset.key) else {
            continue;
        };
        let bytes = measurements.values().next().map_or(0, |m| m.bytes);
        let _ = writeln!(out, "\n**{}** ({:.1} MB)\n", dataset.key, bytes as f64 / 1e6);
        let _ = writeln!(
            out,
            "| operation | median | min | MB/s | peak memory | vs limit | check |\n|---|---|---|---|---|---|---|"
        );
        let limit = measurements.get(LIMIT).map(|m| m.median_s);
        for (op, label) in OPERATION_ROWS {
            let Some(m) = measurements.get(*op) else {
                continue;
            };
            let throughput = m.bytes as f64 / 1e6 / m.median_s;
            let versus_limit = limit.map_or_else(|| "-".to_owned(), |limit| format!("{:.2}x", m.median_s / limit));
            let _ = writeln!(
                out,
                "| {label} | {} | {} | {throughput:.0} | {} | {versus_limit} | {} |",
                format_seconds(m.median_s),
                format_seconds(m.min_s),
                format_mib(m.peak_rss_delta_bytes),
                detail_text(&m.detail)
            );
        }
    }

    let _ = writeln!(out, "\n#### pydantic-ai / msgflow\n");
    let _ = writeln!(
        out,
        "| file | parse (`validate_json` / `from_vec`) | serialise (`dump_json` / `to_vec`) | serialise, memory kept (both) |\n|---|---|---|---|"
    );
    for dataset in DATASETS.iter().filter(|d| d.with_pydantic) {
        let ratio = |a: &str, b: &str| {
            results
                .median(dataset.key, a)
                .zip(results.median(dataset.key, b))
                .map_or_else(|| "-".to_owned(), |(a, b)| format!("{:.1}x", a / b))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            dataset.key,
            ratio(PY_VALIDATE, PARSE),
            ratio(PY_DUMP, SERIALISE),
            ratio(PY_DUMP_KEPT, SERIALISE_KEPT)
        );
    }

    let _ = writeln!(out, "\n#### Scaling (big-strings 1x / 4x / 16x)\n");
    let _ = writeln!(
        out,
        "Time per byte relative to 1x (1.00 = linear; <= {LINEAR_TOLERANCE:.2} is within 20%).\n"
    );
    let _ = writeln!(
        out,
        "| operation | 1x | 4x | 16x | 4x per byte / 1x | 16x per byte / 1x |\n|---|---|---|---|---|---|"
    );
    for op in SCALING_OPS.iter().chain(COLD_SCALING_OPS) {
        let time = |dataset| {
            results
                .median(dataset, op)
                .map_or_else(|| "-".to_owned(), format_seconds)
        };
        let ratio = |large| {
            scaling_ratio(results, op, BIG_STRINGS, large, None).map_or_else(|| "-".to_owned(), |r| format!("{r:.2}"))
        };
        let _ = writeln!(
            out,
            "| `{op}` | {} | {} | {} | {} | {} |",
            time(BIG_STRINGS),
            time(BIG_STRINGS_4X),
            time(BIG_STRINGS_16X),
            ratio(BIG_STRINGS_4X),
            ratio(BIG_STRINGS_16X)
        );
    }
    let _ = writeln!(
        out,
        "\n| operation | 10k messages | 100k messages | 100k per message / 10k |\n|---|---|---|---|"
    );
    for op in [PARSE, CHECK, REPAIR, CHECK_COLD, REPAIR_COLD, CLI_REPAIR] {
        let time = |dataset| {
            results
                .median(dataset, op)
                .map_or_else(|| "-".to_owned(), format_seconds)
        };
        let ratio = scaling_ratio(results, op, SMALL_10K, SMALL_100K, Some((10_000.0, 100_000.0)))
            .map_or_else(|| "-".to_owned(), |r| format!("{r:.2}"));
        let _ = writeln!(out, "| `{op}` | {} | {} | {ratio} |", time(SMALL_10K), time(SMALL_100K));
    }
    out
}

/// The sanity facts of a measurement, compactly (e.g. `byte_identical: true`).
pub(super) fn detail_text(detail: &serde_json::Value) -> String {
    let Some(object) = detail.as_object() else {
        return String::new();
    };
    object
        .iter()
        .filter(|(key, _)| !key.ends_with("_version") && key.as_str() != "op")
        .map(|(key, value)| format!("{key}: {value}"))
        .collect::<Vec<_>>()
        .join(", ")
}
