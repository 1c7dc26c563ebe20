//! The Python venvs the oracle tasks run pydantic-ai in (created by `oracle/setup_venv.py`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::project_root;

/// The legacy pydantic-ai releases with a pinned requirements file (`oracle/requirements-legacy-<ver>.txt`).
pub const LEGACY_VERSIONS: &[&str] = &["0.4.0", "1.0.0", "2.0.0"];

/// Creates (or reuses) `target/venv` with `oracle/requirements.txt` and returns its interpreter.
pub fn pydantic_ai_python() -> Result<PathBuf> {
    let root = project_root();
    setup_venv(&root.join("target/venv"), &root.join("oracle/requirements.txt"))
}

/// Creates (or reuses) `target/venv-context`: pydantic-ai 2.68.0 (`oracle/requirements.txt`) and
/// then `oracle/requirements-context.txt` (pydantic-ai-harness) installed with `--no-deps`, as its
/// release pins pydantic-ai-slim 2.62.0 while its compaction strategies run on 2.68.0 with nothing
/// more. Returns the interpreter (for `context_oracle.py`).
pub fn context_python() -> Result<PathBuf> {
    with_harness(&project_root().join("target/venv-context"))
}

/// Creates (or reuses) `target/venv-python-bench`, the venv the Python rows of `cargo xtask bench`
/// run in: as `target/venv-context` (pydantic-ai-slim 2.68.0 and pydantic-ai-harness), plus
/// maturin, which builds the release wheel of `crates/python` that the benchmark installs there.
/// Returns the interpreter.
pub fn python_bench_python() -> Result<PathBuf> {
    let python = with_harness(&project_root().join("target/venv-python-bench"))?;
    pip_install(&python, &["maturin>=1.9.4,<2".as_ref()])?;
    Ok(python)
}

/// `target/venv-python-bench` (see [`python_bench_python`]) with Ray Data and pyarrow added
/// (`crates/python/tests/ray/requirements.txt`, the Ray test's pins): the venv the corpus rows of
/// `cargo xtask bench` generate their corpora and run the Ray path in. Returns the interpreter.
pub fn corpus_bench_python() -> Result<PathBuf> {
    let python = python_bench_python()?;
    let requirements = project_root().join("crates/python/tests/ray/requirements.txt");
    pip_install(&python, &["-r".as_ref(), requirements.as_os_str()])?;
    Ok(python)
}

/// `python -m pip install -q ARGS`, failing with pip's error output.
pub fn pip_install(python: &Path, args: &[&std::ffi::OsStr]) -> Result<()> {
    let output = Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "-q",
        ])
        .args(args)
        .output()
        .with_context(|| format!("running pip with {}", python.display()))?;
    if !output.status.success() {
        bail!(
            "pip install {} failed:\n{}",
            args.iter()
                .map(|arg| arg.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

/// `venv` with `oracle/requirements.txt` and then `oracle/requirements-context.txt` installed with
/// `--no-deps` (see [`context_python`]).
fn with_harness(venv: &Path) -> Result<PathBuf> {
    let root = project_root();
    let python = setup_venv(venv, &root.join("oracle/requirements.txt"))?;
    let requirements = root.join("oracle/requirements-context.txt");
    let wanted = std::fs::read(&requirements).with_context(|| format!("reading {}", requirements.display()))?;
    // Installed again only when the file changes (a stamp holding its bytes, like setup_venv.py's).
    let stamp = venv.join(".msgflow-context-no-deps");
    if std::fs::read(&stamp).ok().as_deref() != Some(wanted.as_slice()) {
        pip_install(
            &python,
            &["--no-deps".as_ref(), "-r".as_ref(), requirements.as_os_str()],
        )?;
        std::fs::write(&stamp, &wanted).with_context(|| format!("writing {}", stamp.display()))?;
    }
    Ok(python)
}

/// Creates (or reuses) `target/venv-providers` with `oracle/requirements-providers.txt` (pydantic-ai
/// with its `anthropic` and `openai` extras, for `providers_oracle.py`) and returns its interpreter.
pub fn providers_python() -> Result<PathBuf> {
    let root = project_root();
    setup_venv(
        &root.join("target/venv-providers"),
        &root.join("oracle/requirements-providers.txt"),
    )
}

/// Creates (or reuses) `target/venv-ui-formats` with `oracle/requirements-ui-formats.txt`
/// (pydantic-ai with its `ag-ui` extra, for the UI-format oracles and the conversion benchmark)
/// and returns its interpreter.
pub fn ui_formats_python() -> Result<PathBuf> {
    let root = project_root();
    setup_venv(
        &root.join("target/venv-ui-formats"),
        &root.join("oracle/requirements-ui-formats.txt"),
    )
}

/// Creates (or reuses) `target/venv-legacy-<version>` with `oracle/requirements-legacy-<version>.txt`
/// (a legacy pydantic-ai writer, for `gen_legacy_fixtures.py`) and returns its interpreter.
pub fn legacy_python(version: &str) -> Result<PathBuf> {
    let root = project_root();
    let requirements = root.join(format!("oracle/requirements-legacy-{version}.txt"));
    if !requirements.is_file() {
        bail!(
            "no pinned requirements for pydantic-ai {version} ({} is missing; known: {})",
            requirements.display(),
            LEGACY_VERSIONS.join(", ")
        );
    }
    setup_venv(&root.join(format!("target/venv-legacy-{version}")), &requirements)
}

/// Runs `oracle/setup_venv.py`, which installs only when the requirements changed, and returns
/// the interpreter path it prints.
fn setup_venv(venv: &Path, requirements: &Path) -> Result<PathBuf> {
    let root = project_root();
    let output = Command::new("python3")
        .arg(root.join("oracle/setup_venv.py"))
        .arg("--venv")
        .arg(venv)
        .arg("--requirements")
        .arg(requirements)
        .output()
        .context("running python3 oracle/setup_venv.py (is Python 3 installed?)")?;
    if !output.status.success() {
        bail!(
            "creating the venv {} failed:\n{}",
            venv.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let python = String::from_utf8(output.stdout).context("setup_venv.py printed a non-UTF-8 path")?;
    let python = PathBuf::from(python.trim());
    if !python.exists() {
        bail!("setup_venv.py printed {}, which does not exist", python.display());
    }
    Ok(python)
}
