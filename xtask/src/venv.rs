//! The Python venvs the oracle tasks run pydantic-ai in (created by `python/setup_venv.py`).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::project_root;

/// Creates (or reuses) `target/venv` with `python/requirements.txt` and returns its interpreter.
#[allow(dead_code)]
pub fn pydantic_ai_python() -> Result<PathBuf> {
    let root = project_root();
    let output = Command::new("python3")
        .arg(root.join("python/setup_venv.py"))
        .arg("--venv")
        .arg(root.join("target/venv"))
        .arg("--requirements")
        .arg(root.join("python/requirements.txt"))
        .output()
        .context("running python3 python/setup_venv.py (is Python 3 installed?)")?;
    if !output.status.success() {
        bail!("creating the pydantic-ai venv failed:\n{}", String::from_utf8_lossy(&output.stderr));
    }
    let python = String::from_utf8(output.stdout)?.trim().to_owned();
    Ok(PathBuf::from(python))
}
