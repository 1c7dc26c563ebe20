//! Child processes and machine facts: release builds, whole-process timing with the child's own
//! peak RSS (`wait4`), and what /proc says about memory, load and the CPU.

use std::fs;
use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::measurement::Measurement;

/// The cargo target directory (`CARGO_TARGET_DIR` or `target/`).
pub(super) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// `cargo build --release <selection>`; returns the path of `binary`.
pub(super) fn build_release(root: &Path, selection: &[&str], binary: &str) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("bench: cargo build --release {}", selection.join(" "));
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "--quiet"])
        .args(selection)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release {} failed", selection.join(" "));
    }
    let path = target_dir(root).join("release").join(binary);
    if !path.is_file() {
        bail!("{} is missing after the build", path.display());
    }
    Ok(path)
}

/// A finished child process: wall time, peak RSS and exit code.
pub(super) struct ProcessRun {
    pub(super) seconds: f64,
    pub(super) max_rss_bytes: u64,
    pub(super) exit_code: Option<i32>,
}

/// Spawns `command` and reaps it with `wait4`, which reports the child's own peak RSS.
///
/// The child is forked, not vforked: when std spawns with `posix_spawn` (`CLONE_VM`), the kernel
/// folds the *parent's* peak RSS into the child's `ru_maxrss` at `exec`. A `pre_exec` hook makes
/// std fork instead, and a forked child starts from this process's current RSS, which must stay
/// small (nothing large is held here: see [`files_equal`]). Heap memory freed by an earlier
/// section (the peer rows parse histories of up to 315 MB here) is handed back to the kernel
/// first; a child whose peak does not exceed what it inherited is an error, not a figure.
pub(super) fn run_process(command: &mut Command) -> Result<ProcessRun> {
    // SAFETY: the hook does nothing, so it is async-signal-safe.
    unsafe {
        command.pre_exec(|| Ok(()));
    }
    // SAFETY: `malloc_trim` only returns free heap pages to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
    let inherited = own_rss_bytes();
    let started = Instant::now();
    let child = command.spawn().context("spawning the msgflow CLI")?;
    let pid = libc::pid_t::try_from(child.id()).context("pid out of range")?;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value (plain integers and timevals).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own unreaped child; `status` and `usage` are valid for writes. The
    // `Child` handle is never waited on afterwards (dropping it does not wait).
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let seconds = started.elapsed().as_secs_f64();
    if reaped != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    let exit_code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // ru_maxrss is in KiB on Linux.
    let max_rss_bytes = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
    if let Some(inherited) = inherited.filter(|&inherited| max_rss_bytes <= inherited) {
        bail!(
            "the child's peak RSS ({} MiB) is not above the {} MiB it inherited from this process at fork: \
             xtask holds too much memory to measure it",
            max_rss_bytes >> 20,
            inherited >> 20
        );
    }
    Ok(ProcessRun {
        seconds,
        max_rss_bytes,
        exit_code,
    })
}

/// `msgflow SUBCOMMAND FILE -o OUT`, a warm-up then `runs` timed processes. The peak reported is
/// the largest whole-process peak RSS seen.
pub(super) fn run_cli(
    cli: &Path,
    subcommand: &str,
    file: &Path,
    bench_dir: &Path,
    runs: u32,
    op: &str,
) -> Result<Measurement> {
    let output = bench_dir.join(format!("{op}.out.json"));
    let log = bench_dir.join(format!("{op}.stderr.txt"));
    let mut times = Vec::new();
    let mut peak = 0;
    for run in 0..=runs {
        let mut command = Command::new(cli);
        command
            .arg(subcommand)
            .arg(file)
            .arg("-o")
            .arg(&output)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log)?);
        let finished = run_process(&mut command)?;
        // 1: the history was valid but had problems (repair reports the changes it made).
        if !matches!(finished.exit_code, Some(0 | 1)) {
            let stderr = fs::read_to_string(&log).unwrap_or_default();
            bail!(
                "msgflow {subcommand} exited with {:?}: {}",
                finished.exit_code,
                stderr.trim()
            );
        }
        if run > 0 {
            times.push(finished.seconds);
            peak = peak.max(finished.max_rss_bytes);
        }
    }
    let input_bytes = fs::metadata(file)?.len();
    let output_bytes = fs::metadata(&output)?.len();
    let detail = if subcommand == "fmt" {
        serde_json::json!({ "byte_identical": files_equal(file, &output)? })
    } else {
        serde_json::json!({ "output_bytes": output_bytes })
    };
    fs::remove_file(&output).ok();
    fs::remove_file(&log).ok();
    Ok(Measurement {
        tool: "msgflow-cli".to_owned(),
        op: op.to_owned(),
        bytes: input_bytes,
        runs,
        median_s: median(&times),
        min_s: times.iter().copied().fold(f64::INFINITY, f64::min),
        times_s: times,
        peak_rss_delta_bytes: Some(peak),
        process_peak_rss_bytes: Some(peak),
        detail,
    })
}

/// This process's resident memory (`VmRSS`), where a forked child's peak RSS starts.
fn own_rss_bytes() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let kib = status.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    kib.trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()
        .map(|kib| kib * 1024)
}

/// Whether two files have the same bytes, compared in chunks so that this process stays small
/// (its peak RSS would otherwise leak into the next child's, see [`run_process`]).
pub(super) fn files_equal(a: &Path, b: &Path) -> Result<bool> {
    let (mut a, mut b) = (fs::File::open(a)?, fs::File::open(b)?);
    if a.metadata()?.len() != b.metadata()?.len() {
        return Ok(false);
    }
    let (mut chunk_a, mut chunk_b) = (vec![0_u8; 1 << 20], vec![0_u8; 1 << 20]);
    loop {
        let read = a.read(&mut chunk_a)?;
        if read == 0 {
            return Ok(true);
        }
        b.read_exact(&mut chunk_b[..read])?;
        if chunk_a[..read] != chunk_b[..read] {
            return Ok(false);
        }
    }
}

pub(super) fn median(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    match sorted.len() {
        0 => f64::NAN,
        len if len % 2 == 1 => sorted[middle],
        _ => (sorted[middle - 1] + sorted[middle]) / 2.0,
    }
}

/// `MemAvailable` from /proc/meminfo, in bytes.
pub(super) fn mem_available_bytes() -> Option<u64> {
    meminfo_field("MemAvailable")
}

pub(super) fn meminfo_field(field: &str) -> Option<u64> {
    let meminfo = fs::read_to_string("/proc/meminfo").ok()?;
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
        Some(kib * 1024)
    })
}

/// The 1/5/15-minute load averages, as /proc/loadavg prints them.
pub(super) fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_owned())
}

pub(super) fn utc_now() -> String {
    command_stdout(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap_or_else(|| "unknown".to_owned())
}

pub(super) fn command_stdout(command: &mut Command) -> Option<String> {
    let output = command.stderr(Stdio::null()).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The CPU model and the size of its last-level cache (`AMD EPYC, 16384K L3`): the model name alone
/// does not tell this workplace's machines apart, and the ratios to pydantic-ai move between them.
pub(super) fn cpu_and_cache() -> String {
    let cache = fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index3/size")
        .map_or_else(|_| "unknown".to_owned(), |size| size.trim().to_owned());
    format!("{}, {cache} L3", cpu_model())
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("model name").and_then(|rest| rest.split_once(':')))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}
