//! The flag groups several commands share: which inputs to read ([`InputArgs`], [`CorpusArgs`]),
//! where a rewritten history or a report goes ([`OutputArgs`], [`ReportOutputArgs`]) and
//! `--strict` ([`StrictArgs`]). Each command's own flags live in its file under `commands/`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Which inputs to read.
#[derive(Debug, Args, Clone, Default)]
pub struct InputArgs {
    /// History files or directories; `-` or nothing reads standard input. Several inputs or a
    /// directory switch to batch mode.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// In batch mode, also read *.json files in subdirectories.
    #[arg(short = 'r', long)]
    pub recursive: bool,
    /// Refuse inputs larger than BYTES (checked before reading a file); no limit by default.
    #[arg(long, value_name = "BYTES")]
    pub max_input_bytes: Option<u64>,
}

/// Corpora: many histories in one JSON Lines or Parquet file, one per row.
#[derive(Debug, Args, Clone)]
pub struct CorpusArgs {
    /// Read the input as JSON Lines, one history per line, whatever its name (`*.jsonl` and
    /// `*.ndjson` files are read so anyway; `-` reads them from standard input).
    #[arg(long)]
    pub jsonl: bool,
    /// JSON Lines: each line is an object holding the history in field NAME (an array, or a
    /// string of its JSON); the other fields are kept as they are in a rewritten corpus.
    #[arg(long, value_name = "NAME")]
    pub field: Option<String>,
    /// Parquet: the string or binary column of history JSON (a `*.parquet` input needs it).
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
    /// Name each row in results by this field (JSON Lines, with --field) or column (Parquet; string
    /// or integer).
    #[arg(long, value_name = "NAME")]
    pub id_column: Option<String>,
    /// Writing commands: a row that holds no history or that the command fails on is reported,
    /// then written unchanged (pass) or left out (drop).
    #[arg(long, value_enum, default_value_t = OnError::Pass, value_name = "WHAT")]
    pub on_error: OnError,
    /// Rows read, processed in parallel and written at a time (memory is bounded by this, not by
    /// the corpus).
    #[arg(long, value_name = "N", default_value_t = msgflow_corpus::DEFAULT_BATCH_ROWS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub batch_rows: usize,
    /// Worker threads for the rows of a corpus (default: one per core, or RAYON_NUM_THREADS).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub threads: Option<usize>,
}

/// What a writing command does with a corpus row it fails on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OnError {
    /// Write the row unchanged (nothing is lost).
    #[default]
    Pass,
    /// Leave the row out of the new corpus.
    Drop,
}

/// Where a rewritten history goes.
#[derive(Debug, Args, Clone, Default)]
pub struct OutputArgs {
    /// Write to FILE instead of standard output (`-` is stdout); in batch mode, a directory DIR
    /// that receives one file per input.
    #[arg(short = 'o', long, value_name = "FILE|DIR", conflicts_with = "in_place")]
    pub output: Option<PathBuf>,
    /// Rewrite each input file atomically (never half-written; untouched if anything fails).
    #[arg(short = 'i', long)]
    pub in_place: bool,
    /// With --in-place, keep the original as FILE.bak (overwriting an older one).
    #[arg(long, requires = "in_place")]
    pub backup: bool,
}

/// Whether a history that pydantic-ai would not load may be written.
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct StrictArgs {
    /// Refuse to write a history pydantic-ai 2.68.0 would not load (exit 2, nothing written, the
    /// input untouched). Without it such a history is written, with a warning naming the first reason.
    #[arg(long)]
    pub strict: bool,
}

/// Where a report goes.
#[derive(Debug, Args, Clone, Default)]
pub struct ReportOutputArgs {
    /// Write the report to FILE instead of standard output (`-` is stdout); in batch mode, all
    /// files' reports go to this one file.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}
