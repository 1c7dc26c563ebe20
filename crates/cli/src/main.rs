//! `msgflow`: the command line for pydantic-ai message histories.
//!
//! See the crate README for every subcommand, its options and the exit codes.

#[macro_use]
mod outcome;
mod cli;
mod commands;
mod corpus;
mod decimal;
mod files;
mod runner;
mod style;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    ExitCode::from(commands::dispatch(cli).code())
}
