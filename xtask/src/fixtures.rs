//! `cargo xtask fixtures [--legacy]`: regenerates `tests/fixtures/` with the pinned pydantic-ai
//! venvs (see `oracle/README.md`), including pydantic-ai's answers for the real-world corpus and
//! the verdict fixtures, and shows what changed.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::project_root;
use crate::venv::{legacy_python, pydantic_ai_python, LEGACY_VERSIONS};

/// Command-line arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Also regenerate `tests/fixtures/legacy/` with the legacy writers (0.4.0, 1.0.0, 2.0.0);
    /// each needs its own venv, created on first use.
    #[arg(long)]
    legacy: bool,
}

/// Runs the generators, then prints `git diff --stat` of `tests/fixtures/` and any new files.
pub fn run(args: &Args) -> Result<()> {
    let root = project_root();
    let fixtures = root.join("tests/fixtures");
    let python = pydantic_ai_python()?;
    println!("pydantic-ai 2.68.0: {}", python.display());
    run_python(
        &python,
        &[
            root.join("oracle/gen_fixtures.py").as_os_str(),
            "--out".as_ref(),
            fixtures.as_os_str(),
        ],
    )?;
    // pydantic-ai's answers for the real-world corpus and the verdict fixtures (oracle/README.md).
    let verdict_oracle = root.join("oracle/verdict_oracle.py");
    for (command, dir) in [("realworld", "realworld"), ("expect", "verdict")] {
        let dir = fixtures.join(dir);
        run_python(
            &python,
            &[
                verdict_oracle.as_os_str(),
                command.as_ref(),
                "--dir".as_ref(),
                dir.as_os_str(),
            ],
        )?;
    }
    if args.legacy {
        let legacy_dir = fixtures.join("legacy");
        for version in LEGACY_VERSIONS {
            let python = legacy_python(version)?;
            println!("pydantic-ai {version}: {}", python.display());
            run_python(
                &python,
                &[
                    root.join("oracle/gen_legacy_fixtures.py").as_os_str(),
                    "--out".as_ref(),
                    legacy_dir.as_os_str(),
                    "--tag".as_ref(),
                    version.as_ref(),
                ],
            )?;
        }
    }
    report_changes(&root)
}

fn run_python(python: &Path, args: &[&std::ffi::OsStr]) -> Result<()> {
    let status = Command::new(python)
        .args(args)
        .current_dir(project_root())
        .status()
        .with_context(|| format!("running {}", python.display()))?;
    if !status.success() {
        bail!("{} {:?} failed ({status})", python.display(), args);
    }
    Ok(())
}

/// Prints what the regeneration changed (read-only git commands).
fn report_changes(root: &Path) -> Result<()> {
    let diff = Command::new("git")
        .args(["diff", "--stat", "--", "tests/fixtures"])
        .current_dir(root)
        .output()
        .context("running git diff --stat")?;
    let untracked = Command::new("git")
        .args(["ls-files", "--others", "--exclude-standard", "--", "tests/fixtures"])
        .current_dir(root)
        .output()
        .context("running git ls-files")?;
    let diff = String::from_utf8_lossy(&diff.stdout);
    let untracked = String::from_utf8_lossy(&untracked.stdout);
    if diff.trim().is_empty() && untracked.trim().is_empty() {
        println!("tests/fixtures: unchanged");
        return Ok(());
    }
    if !diff.trim().is_empty() {
        println!("tests/fixtures changed:\n{diff}");
    }
    if !untracked.trim().is_empty() {
        // Summarised per directory: a new fixture set can hold hundreds of files.
        let mut per_dir = std::collections::BTreeMap::<&str, usize>::new();
        for file in untracked.lines() {
            let dir = file.rsplit_once('/').map_or(".", |(dir, _)| dir);
            *per_dir.entry(dir).or_default() += 1;
        }
        println!("files not in git yet:");
        for (dir, count) in per_dir {
            println!("  {dir}/: {count}");
        }
    }
    Ok(())
}
