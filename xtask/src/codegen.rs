//! `cargo xtask codegen`: refreshes the tables only Python knows, then runs xtask-codegen.
//!
//! Without `--check` the oracle scripts of `xtask/codegen/tables/` print their tables with pydantic-ai
//! 2.68.0 in `target/venv` and the JSON lands in `xtask/codegen/tables/`; xtask-codegen then renders every
//! generated Rust file (from the schema and from that JSON). With `--check` nothing runs in Python: the
//! checked-in files are compared with what the generators write from checked-in inputs (the same check
//! as xtask-codegen's freshness test in `cargo test`). `cargo xtask conformance` checks the JSON against
//! Python with [`oracle_tables_are_fresh`].

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use xtask_codegen::oracle_tables::{Table, TABLES};

use crate::project_root;

/// Runs the generators; with `check`, only compares.
pub fn run(check: bool) -> Result<()> {
    if !check {
        let python = crate::venv::pydantic_ai_python()?;
        for table in TABLES {
            let printed = print_table(&python, &table)?;
            let path = project_root().join(table.data);
            std::fs::write(&path, printed).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {}", table.data);
        }
    }
    xtask_codegen::run(check)
}

/// Fails unless each checked-in JSON table is what its oracle script prints now.
pub fn oracle_tables_are_fresh(python: &Path) -> Result<()> {
    for table in TABLES {
        let printed = print_table(python, &table)?;
        let path = project_root().join(table.data);
        let current = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        if current != printed {
            bail!(
                "{} is stale: run `cargo xtask codegen` and commit the result",
                table.data
            );
        }
        println!("{} is what {} prints", table.data, table.script);
    }
    Ok(())
}

/// What `table`'s oracle script prints, run by `python` with the oracle helpers importable.
fn print_table(python: &Path, table: &Table) -> Result<String> {
    let root = project_root();
    let output = Command::new(python)
        .arg(root.join(table.script))
        .env("PYTHONPATH", root.join("oracle"))
        .output()
        .with_context(|| format!("running {}", table.script))?;
    if !output.status.success() {
        bail!("{} failed:\n{}", table.script, String::from_utf8_lossy(&output.stderr));
    }
    String::from_utf8(output.stdout).with_context(|| format!("{} printed no UTF-8", table.script))
}
