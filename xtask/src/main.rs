//! msgflow's build tasks: `cargo xtask <task>`.
//!
//! Each task is a module with a `run` function; the Python side of the oracle tasks lives in
//! `oracle/` and runs in a venv under `target/` that [`venv`] creates.

mod bench;
mod codegen;
mod conformance;
mod conformance_ag_ui;
mod conformance_canonical;
mod conformance_context;
mod conformance_formats;
mod conformance_loss_reports;
mod conformance_otel;
mod conformance_providers;
mod conformance_realworld;
mod conformance_repair;
mod conformance_stream;
mod conformance_tokens;
mod conformance_ui_formats;
mod conformance_ui_mutations;
mod conformance_verdict;
mod fixtures;
mod media_conformance;
mod mutate;
mod venv;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "xtask", about = "msgflow build tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Generate the wire types, strategies and verdict rules from schema/pydantic-ai-messages.schema.json,
    /// and the Unicode, media and Vercel UI part tables from what Python 3.11 and pydantic-ai print.
    Codegen {
        /// Fail when a checked-in file is stale instead of rewriting it (runs no Python).
        #[arg(long)]
        check: bool,
    },
    /// Create the pydantic-ai venvs and regenerate the committed fixtures in tests/fixtures/.
    Fixtures(fixtures::Args),
    /// Live differential checks against pydantic-ai 2.68.0 (wire, canonical, repair, media).
    Conformance(conformance::Args),
    /// Side-by-side benchmarks against pydantic-ai and the JSON parsing limit.
    Bench(bench::Args),
}

fn main() -> Result<()> {
    match Cli::parse().task {
        Task::Codegen { check } => codegen::run(check),
        Task::Fixtures(args) => fixtures::run(&args),
        Task::Conformance(args) => conformance::run(&args),
        Task::Bench(args) => bench::run(&args),
    }
}

/// The workspace root (the parent of `xtask/`).
pub fn project_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}
