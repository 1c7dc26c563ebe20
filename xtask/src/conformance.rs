//! `cargo xtask conformance [--count N] [--seed S]`: live differential checks against
//! pydantic-ai 2.68.0 (the oracle scripts in `oracle/`, run in the pinned venv).
//!
//! 1. **pydantic-ai -> msgflow.** `conformance.py gen-histories` writes random valid histories
//!    with pydantic-ai; msgflow must parse each and write it back byte for byte.
//! 2. **msgflow -> pydantic-ai.** Random histories from `msgflow_wire::arbitrary` (pydantic
//!    flavour, seeded) are written by msgflow; `conformance.py check-accepts` must report every
//!    one accepted and re-dumped by pydantic-ai to the same bytes (so msgflow wrote every key
//!    pydantic-ai writes, in its order and spelling).
//! 3. **Media types and identifiers** (`media_conformance`).
//! 4. Further checks (canonical form, repair, provider exports, the real-world corpora beside
//!    the checkout, ...).
//!
//! Every check runs even when an earlier one fails; the task exits non-zero when any failed.
//! Scratch files go to `target/conformance/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::Deserialize;

use crate::project_root;
use crate::venv::pydantic_ai_python;

/// How many failures a check prints in detail.
const SHOWN_FAILURES: usize = 5;

/// Command-line arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Histories per direction (pydantic-ai -> msgflow and msgflow -> pydantic-ai).
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Seed for the generators (the same seed gives the same histories). Default: 1 for the
    /// round-trip checks; for the verdict differential, derived from the git HEAD commit id.
    #[arg(long)]
    seed: Option<u64>,
    /// Run only the checks whose name contains this text (e.g. `--only verdict`).
    #[arg(long)]
    only: Option<String>,
    /// Copy one input per verdict disagreement to `tests/fixtures/verdict/` with its expected
    /// verdict (`oracle/verdict_oracle.py expect`).
    #[arg(long)]
    record_verdict_fixtures: bool,
}

impl Args {
    /// The seed of the round-trip checks.
    fn seed(&self) -> u64 {
        self.seed.unwrap_or(1)
    }
}

/// `--only`: the text a check's name must contain to run.
static ONLY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Runs every check and fails when any of them failed.
pub fn run(args: &Args) -> Result<()> {
    ONLY.get_or_init(|| args.only.clone());
    let python = pydantic_ai_python()?;
    let work = project_root().join("target/conformance");
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    println!(
        "oracle: {} (pydantic-ai 2.68.0); work dir {}",
        python.display(),
        work.display()
    );

    let mut results = Vec::new();
    results.push(check("pydantic-ai histories round-trip through msgflow", || {
        python_histories_round_trip(&python, &work, args)
    }));
    results.push(check(
        "msgflow histories accepted and re-dumped unchanged by pydantic-ai",
        || msgflow_histories_accepted(&python, &work, args),
    ));
    results.push(check("media types and identifiers", || {
        crate::media_conformance::run(&python, &work)
    }));
    // Further checks (canonical, repair) are called here.
    results.push(check(
        "canonical messages built in code are accepted by pydantic-ai",
        || crate::conformance_canonical::run(&python, &work),
    ));
    results.push(check("repair matches pydantic-ai repair_messages", || {
        crate::conformance_repair::run(&python, &work)
    }));
    results.push(check(
        "provider exports equal pydantic-ai's anthropic, openai-chat and openai-responses mapping",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_providers::run(&crate::venv::providers_python()?, &work, seed)
        },
    ));
    results.push(check(
        "formats: openai-chat and anthropic from msgflow-formats are inverted by pydantic-ai's OpenAIChatModel and AnthropicModel mappings",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_formats::run(&crate::venv::providers_python()?, &work, seed)
        },
    ));
    results.push(check(
        "formats: vercel-ui to and from msgflow-formats equal pydantic-ai's VercelAIAdapter; lossless is identity",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_ui_formats::run(&crate::venv::ui_formats_python()?, &work, seed)
        },
    ));
    results.push(check(
        "formats: ag-ui to and from msgflow-formats equal pydantic-ai's AGUIAdapter; lossless is identity",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_ag_ui::run(&crate::venv::ui_formats_python()?, &work, seed)
        },
    ));
    results.push(check(
        "formats: otel to msgflow-formats equals pydantic-ai's InstrumentationSettings span attributes (versions 2-6); from inverts it",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_otel::run(&pydantic_ai_python()?, &work, seed)
        },
    ));
    results.push(check(
        "formats: loss reports name exactly the values pydantic-ai holds otherwise after the trip",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_loss_reports::run(&python, &work, seed)
        },
    ));
    results.push(check(
        "clearing and clamping equal pydantic-ai-harness's ClearToolResults and ClampOversizedMessages",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_context::run(&crate::venv::context_python()?, &work, seed)
        },
    ));
    results.push(check(
        "verdict equals pydantic-ai's validate_json on mutations and real-world histories",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_verdict::run(&python, &work, seed, args.record_verdict_fixtures)
        },
    ));
    results.push(check(
        "realworld corpora: verdict, fmt, repair, export and trim equal pydantic-ai's",
        || crate::conformance_realworld::run(&crate::venv::providers_python()?, &work),
    ));
    results.push(check(
        "streaming: pydantic-ai's parts manager and run_stream_events logs",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_stream::run(&python, &work, seed)
        },
    ));

    results.push(check(
        "the Unicode, media and UI part tables of xtask/codegen/tables/ are what Python 3.11 and pydantic-ai print",
        || crate::codegen::oracle_tables_are_fresh(&python),
    ));
    results.push(check(
        "token counts equal Python tiktoken's on the vocabulary tiktoken-rs ships",
        || {
            let seed = head_seed(args.seed)?;
            crate::conformance_tokens::run(&crate::venv::providers_python()?, &work, seed)
        },
    ));

    let failed: Vec<&str> = results
        .iter()
        .filter(|(_, passed)| *passed == Some(false))
        .map(|(name, _)| *name)
        .collect();
    let ran = results.iter().filter(|(_, passed)| passed.is_some()).count();
    let skipped = match results.len() - ran {
        0 => String::new(),
        skipped => format!(", {skipped} skipped by --only"),
    };
    println!();
    if failed.is_empty() {
        match skipped.is_empty() {
            true => println!("conformance: all {ran} checks passed"),
            false => println!("conformance: {ran} run and passed{skipped}"),
        }
        Ok(())
    } else {
        bail!(
            "conformance: {} of {ran} checks run failed{skipped}: {}",
            failed.len(),
            failed.join("; ")
        )
    }
}

/// Runs one check, printing its outcome; returns its name and whether it passed (`None`: not
/// run, `--only` left it out).
fn check(name: &str, body: impl FnOnce() -> Result<()>) -> (&str, Option<bool>) {
    if ONLY
        .get()
        .and_then(Option::as_deref)
        .is_some_and(|only| !name.contains(only))
    {
        println!("SKIP {name} (--only)");
        return (name, None);
    }
    println!("\n== {name}");
    let started = Instant::now();
    let outcome = body();
    let seconds = started.elapsed().as_secs_f64();
    match outcome {
        Ok(()) => {
            println!("PASS {name} ({seconds:.1}s)");
            (name, Some(true))
        }
        Err(err) => {
            println!("FAIL {name} ({seconds:.1}s): {err:#}");
            (name, Some(false))
        }
    }
}

/// Empties (or creates) a scratch directory under the work dir.
pub(crate) fn fresh_dir(path: &Path) -> Result<()> {
    if path.exists() {
        std::fs::remove_dir_all(path).with_context(|| format!("removing {}", path.display()))?;
    }
    std::fs::create_dir_all(path).with_context(|| format!("creating {}", path.display()))
}

/// Runs `oracle/conformance.py` with `args` from the project root.
fn run_oracle(python: &Path, args: &[&str]) -> Result<()> {
    let output = Command::new(python)
        .arg(project_root().join("oracle/conformance.py"))
        .args(args)
        .current_dir(project_root())
        .output()
        .with_context(|| format!("running {} oracle/conformance.py", python.display()))?;
    if !output.status.success() {
        bail!(
            "oracle/conformance.py {} failed ({}):\n{}{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

/// Runs `python script args...` with `input` on its stdin (written from another thread, so a
/// large input cannot deadlock against the output) and returns its stdout; fails with its stderr.
pub(crate) fn pipe_through(python: &Path, script: &str, args: &[&std::ffi::OsStr], input: Vec<u8>) -> Result<String> {
    use std::io::Write as _;
    use std::process::Stdio;
    let root = project_root();
    let mut child = Command::new(python)
        .arg(root.join(script))
        .args(args)
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {} {script}", python.display()))?;
    let mut stdin = child.stdin.take().context("the oracle's stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output()?;
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("writing to {script} panicked"))??;
    if !output.status.success() {
        bail!(
            "{script} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    String::from_utf8(output.stdout).with_context(|| format!("{script} printed text that is not UTF-8"))
}

/// Writes `cases` as JSON Lines in `dir`, runs `oracle/<script> --cases ... --out ...` with
/// `python` (from `oracle/`), and reads its answers, one per case.
pub(crate) fn ask_oracle(
    python: &Path,
    script: &str,
    dir: &Path,
    cases: &[serde_json::Value],
) -> Result<Vec<serde_json::Value>> {
    let root = project_root();
    let cases_path = dir.join("cases.jsonl");
    let mut lines = String::new();
    for case in cases {
        lines.push_str(&serde_json::to_string(case)?);
        lines.push('\n');
    }
    std::fs::write(&cases_path, lines).with_context(|| format!("writing {}", cases_path.display()))?;
    let out_path = dir.join("oracle.jsonl");
    let output = std::process::Command::new(python)
        .arg(root.join("oracle").join(script))
        .arg("--cases")
        .arg(&cases_path)
        .arg("--out")
        .arg(&out_path)
        .current_dir(root.join("oracle"))
        .output()
        .with_context(|| format!("running oracle/{script}"))?;
    if !output.status.success() {
        anyhow::bail!(
            "{script} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = std::fs::read_to_string(&out_path)?;
    let answers: Vec<serde_json::Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .context("reading the oracle's answers")?;
    if answers.len() != cases.len() {
        anyhow::bail!("the oracle answered {} of {} cases", answers.len(), cases.len());
    }
    Ok(answers)
}

/// The `*.json` files of a directory, sorted by name.
pub(crate) fn json_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort_by_key(|path| natural_key(path));
    Ok(files)
}

/// Sort key putting `hist-2.json` before `hist-10.json`.
fn natural_key(path: &Path) -> (String, u64) {
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let digits: String = stem
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let prefix = stem[..stem.len() - digits.len()].to_owned();
    (prefix, digits.parse().unwrap_or(0))
}

/// The real files of `../shared/formats/<format>`, sorted by name. The corpus must be there in CI;
/// elsewhere a missing one is said and gives no file.
pub(crate) fn foreign_files(root: &Path, format: &str) -> Result<Vec<PathBuf>> {
    let dir = root.join("../shared/formats").join(format);
    if !dir.is_dir() {
        if std::env::var_os("CI").is_some() {
            bail!("the foreign-format corpus {} is missing", dir.display());
        }
        println!("skipped {}: missing (outside CI)", dir.display());
        return Ok(Vec::new());
    }
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        paths.push(entry?.path());
    }
    paths.sort();
    Ok(paths)
}

pub(crate) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Check 1: pydantic-ai writes, msgflow reads and writes back the same bytes.
fn python_histories_round_trip(python: &Path, work: &Path, args: &Args) -> Result<()> {
    let dir = work.join("pydantic-histories");
    fresh_dir(&dir)?;
    let (seed, count) = (args.seed().to_string(), args.count.to_string());
    let out = dir.to_string_lossy().into_owned();
    run_oracle(
        python,
        &["gen-histories", "--seed", &seed, "--count", &count, "--out", &out],
    )?;
    let files = json_files(&dir)?;
    if files.len() != args.count {
        bail!("gen-histories wrote {} files, expected {}", files.len(), args.count);
    }
    let mut failures = Vec::new();
    let mut bytes_checked = 0usize;
    for path in &files {
        let input = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        bytes_checked += input.len();
        match msgflow_wire::from_slice(&input) {
            Err(err) => failures.push(format!("{}: msgflow rejects it: {err}", file_name(path))),
            Ok(messages) => match msgflow_wire::to_vec(&messages) {
                Err(err) => failures.push(format!("{}: msgflow cannot write it: {err}", file_name(path))),
                Ok(output) if output != input => failures.push(format!(
                    "{}: written back differently\n{}",
                    file_name(path),
                    diff_excerpt(&input, &output)
                )),
                Ok(_) => {}
            },
        }
    }
    println!(
        "{} of {} pydantic-ai histories ({} KiB, seed {}) parsed and written back byte for byte",
        files.len() - failures.len(),
        files.len(),
        bytes_checked / 1024,
        args.seed()
    );
    report_failures(&failures, files.len())
}

/// One row of `conformance.py check-accepts`' report.
#[derive(Deserialize)]
struct AcceptReport {
    file: String,
    accepted: bool,
    error: Option<String>,
    redump_equal: Option<bool>,
}

/// Check 2: msgflow writes random pydantic-flavour histories, pydantic-ai accepts each and
/// re-dumps it to the same bytes.
fn msgflow_histories_accepted(python: &Path, work: &Path, args: &Args) -> Result<()> {
    let dir = work.join("msgflow-histories");
    fresh_dir(&dir)?;
    let mut runner = seeded_runner(args.seed());
    let strategy = history(Flavour::Pydantic);
    let mut total_messages = 0;
    for index in 0..args.count {
        let messages = strategy
            .new_tree(&mut runner)
            .map_err(|reason| anyhow::anyhow!("generating history {index}: {reason}"))?
            .current();
        total_messages += messages.len();
        let bytes = msgflow_wire::to_vec(&messages).with_context(|| format!("writing history {index}"))?;
        let path = dir.join(format!("msgflow-{index}.json"));
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    let report_path = work.join("msgflow-histories-report.json");
    let (dir_arg, report_arg) = (
        dir.to_string_lossy().into_owned(),
        report_path.to_string_lossy().into_owned(),
    );
    run_oracle(python, &["check-accepts", "--dir", &dir_arg, "--out", &report_arg])?;
    let report: Vec<AcceptReport> = serde_json::from_slice(
        &std::fs::read(&report_path).with_context(|| format!("reading {}", report_path.display()))?,
    )
    .context("parsing the check-accepts report")?;
    if report.len() != args.count {
        bail!("check-accepts reported {} files, expected {}", report.len(), args.count);
    }
    let mut failures = Vec::new();
    for row in &report {
        let path = dir.join(Path::new(&row.file).file_name().unwrap_or_default());
        if !row.accepted {
            failures.push(format!(
                "{}: pydantic-ai rejects it: {}",
                file_name(&path),
                row.error.as_deref().unwrap_or("(no error text)")
            ));
        } else if row.redump_equal != Some(true) {
            let detail = if failures.len() < SHOWN_FAILURES {
                python_redump(python, &path)
                    .and_then(|redump| Ok(diff_excerpt(&std::fs::read(&path)?, &redump)))
                    .unwrap_or_else(|err| format!("(could not get the re-dump: {err:#})"))
            } else {
                String::new()
            };
            failures.push(format!(
                "{}: pydantic-ai re-dumps it differently (msgflow wrote the first line)\n{detail}",
                file_name(&path)
            ));
        }
    }
    println!(
        "{} of {} msgflow histories ({} messages, seed {}) accepted and re-dumped unchanged by pydantic-ai",
        report.len() - failures.len(),
        report.len(),
        total_messages,
        args.seed()
    );
    report_failures(&failures, report.len())
}

/// The seed of the checks that draw fresh cases on every commit: `--seed`, else the first 16 hex
/// digits of the HEAD commit id (printed by each check, so that a failure reproduces).
pub(crate) fn head_seed(given: Option<u64>) -> Result<u64> {
    if let Some(seed) = given {
        return Ok(seed);
    }
    let output = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(project_root())
        .output()
        .context("running git rev-parse HEAD")?;
    if !output.status.success() {
        bail!("git rev-parse HEAD failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let id = String::from_utf8_lossy(&output.stdout);
    u64::from_str_radix(id.trim().get(..16).unwrap_or_default(), 16)
        .with_context(|| format!("git rev-parse HEAD printed {:?}, not a commit id", id.trim()))
}

/// A proptest runner whose random stream depends only on `seed`.
pub(crate) fn seeded_runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    for (index, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes());
    }
    let config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// pydantic-ai's `dump_json(validate_json(file))`, for showing a difference.
fn python_redump(python: &Path, path: &Path) -> Result<Vec<u8>> {
    const SCRIPT: &str = "import sys\nsys.path.insert(0, 'oracle')\nimport oracle_common\nfrom pydantic_ai.messages import ModelMessagesTypeAdapter as A\ndata = open(sys.argv[1], 'rb').read()\nsys.stdout.buffer.write(A.dump_json(A.validate_json(data)))\n";
    let output = Command::new(python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(path)
        .current_dir(project_root())
        .output()
        .context("running the re-dump snippet")?;
    if !output.status.success() {
        bail!("{}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(output.stdout)
}

/// The bytes around the first difference of two outputs.
pub(crate) fn diff_excerpt(expected: &[u8], actual: &[u8]) -> String {
    const CONTEXT: usize = 80;
    let at = expected
        .iter()
        .zip(actual)
        .position(|(left, right)| left != right)
        .unwrap_or(expected.len().min(actual.len()));
    let start = at.saturating_sub(CONTEXT);
    let excerpt = |bytes: &[u8]| {
        let end = (at + CONTEXT).min(bytes.len());
        let text = String::from_utf8_lossy(bytes.get(start..end).unwrap_or_default());
        format!("{}{}", if start > 0 { "..." } else { "" }, text.escape_debug())
    };
    format!(
        "  first difference at byte {at} (lengths {} and {}):\n    < {}\n    > {}",
        expected.len(),
        actual.len(),
        excerpt(expected),
        excerpt(actual)
    )
}

/// Prints the first failures and fails when there are any.
fn report_failures(failures: &[String], total: usize) -> Result<()> {
    if failures.is_empty() {
        return Ok(());
    }
    for failure in failures.iter().take(SHOWN_FAILURES) {
        println!("  - {failure}");
    }
    if failures.len() > SHOWN_FAILURES {
        println!("  ... and {} more", failures.len() - SHOWN_FAILURES);
    }
    bail!("{} of {total} histories failed", failures.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_runner_is_deterministic() {
        let strategy = history(Flavour::Pydantic);
        let draw = |seed| {
            let mut runner = seeded_runner(seed);
            (0..5)
                .map(|_| strategy.new_tree(&mut runner).map(|tree| tree.current()).ok())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    #[test]
    fn diff_excerpt_points_at_the_first_difference() {
        let excerpt = diff_excerpt(b"[{\"a\":1}]", b"[{\"a\":2}]");
        assert!(excerpt.contains("first difference at byte 6"), "{excerpt}");
    }

    #[test]
    fn natural_order() {
        let mut files = [PathBuf::from("hist-10.json"), PathBuf::from("hist-2.json")];
        files.sort_by_key(|path| natural_key(path));
        assert_eq!(files[0], PathBuf::from("hist-2.json"));
    }
}
