//! `msgflow`: the command line for pydantic-ai message histories.
//!
//! See the crate README for every subcommand, its options and the exit codes.

#[macro_use]
mod outcome;
mod args;
mod cli;
mod commands;
mod corpus;
mod decimal;
mod files;
mod provider;
mod runner;
mod style;
mod tokenizer;

use std::process::ExitCode;

/// mimalloc rather than glibc's allocator: see the `mimalloc` line of the workspace's Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    ExitCode::from(cli.command.run().code())
}
