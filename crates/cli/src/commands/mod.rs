//! The subcommands, one file each: its flags (a clap `Args` struct), the text after its
//! `--help`, and its `run`, which most commands give to [`crate::runner`] as a
//! [`crate::runner::FileCommand`]. `crate::cli` lists them.

pub mod assemble;
pub mod canonical;
pub mod check;
pub mod completions;
pub mod convert;
pub mod export;
pub mod fmt;
pub mod media;
pub mod repair;
pub mod schema;
pub mod show;
pub mod stats;
pub mod tools;
pub mod trim;
pub mod wire;
