//! `cargo xtask bench` (being written).

use anyhow::{bail, Result};

/// Command-line arguments.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the task.
pub fn run(_args: &Args) -> Result<()> {
    bail!("cargo xtask bench is not written yet")
}
