//! `msgflow repair`: pydantic-ai's `repair_messages` (msgflow-sanitize), reporting every change.

use std::path::PathBuf;

use clap::Args;

use crate::args::{CorpusArgs, InputArgs, OutputArgs, StrictArgs};
use crate::files;
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow repair`.
#[derive(Debug, Args)]
pub struct RepairArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The content of the results synthesized for dangling tool calls (default: pydantic-ai's
    /// "The tool call was interrupted before a result was produced."), e.g. '[Aborted by user]'.
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// Leave the dangling calls of the last response alone (a run that will still answer them).
    #[arg(long)]
    pub keep_last_response: bool,
    /// Also resolve what pydantic-ai's repair leaves, where nothing is lost silently: remove
    /// builtin tool calls without their return and messages without parts (each kept whole in
    /// the report). Without it the output is exactly pydantic-ai's.
    #[arg(long)]
    pub resolve_remaining: bool,
    /// Also write the list of changes as JSON to FILE (single input only).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// After pydantic-ai's repair, fix what this provider would still reject (anthropic,
    /// openai-chat, openai-responses or gemini); exit 1 if something is left that it cannot fix.
    #[arg(long, visible_alias = "to", value_name = "PROVIDER")]
    pub provider: Option<msgflow_providers::Provider>,
}

/// The examples and notes after `msgflow repair --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow repair history.json > repaired.json\n",
    "  msgflow repair --in-place --backup --report changes.json history.json\n",
    "  msgflow repair --keep-last-response --message '[Aborted by user]' history.json\n",
    "  msgflow repair --provider anthropic history.json  # then Anthropic's own rules\n\n",
    "The changes are listed on stderr, one per line, then every problem `msgflow check` still finds in\n",
    "the output, with why it was left. Exit 0: the output passes `check`; exit 1: the output was written\n",
    "but problems remain (pydantic-ai's own repair leaves them; --resolve-remaining fixes some).\n",
    "A history pydantic-ai 2.68.0 would not load is written with a warning, or refused with --strict.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow repair`.
pub fn run(args: &RepairArgs) -> Status {
    if args.report.is_some() {
        if let Err(status) = crate::corpus::refuse_report_for_many("repair", &args.input, &args.corpus) {
            return status;
        }
    }
    let mut options = msgflow_sanitize::RepairOptions::default();
    if let Some(message) = &args.message {
        options.content.clone_from(message);
    }
    options.repair_last_response = !args.keep_last_response;
    options.resolve_remaining = args.resolve_remaining;
    let command = Repair {
        options,
        report: args.report.clone(),
        provider: args.provider,
        strict: args.strict.strict,
    };
    crate::corpus::run_or_files(&command, &args.input, &args.corpus, &args.output)
}

/// Repairs each input; changes go to stderr, and as JSON to `report` when set.
pub struct Repair {
    /// What the repair does.
    pub options: msgflow_sanitize::RepairOptions,
    /// Where to write the JSON list of changes (single input only; checked by the caller).
    pub report: Option<PathBuf>,
    /// Then fix what this provider would still reject (msgflow-providers).
    pub provider: Option<msgflow_providers::Provider>,
    /// Refuse output pydantic-ai 2.68.0 would not load (`--strict`).
    pub strict: bool,
}

impl FileCommand for Repair {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        if let Some(provider) = self.provider {
            return crate::provider::repair(source, provider, &self.options, self.report.as_deref());
        }
        let history = crate::runner::parse_history(source)?;
        let repaired = msgflow_sanitize::repair(history, &self.options);
        let remaining = msgflow_sanitize::remaining(&repaired.history, &self.options);
        if let Some(path) = &self.report {
            let report = Report {
                changes: &repaired.report.changes,
                remaining: &remaining,
            };
            let mut json = serde_json::to_vec_pretty(&report)
                .map_err(|err| Failure::invalid(format!("cannot serialise the repair report: {err}"), None))?;
            json.push(b'\n');
            // Written before the history is delivered: if it fails, nothing else is written.
            files::write_atomically(path, &json, None).map_err(|err| Failure::unwritable(path, &err))?;
        }
        let mut notes: String = repaired
            .report
            .changes
            .iter()
            .map(|change| format!("msgflow: {}: {change}\n", source.label))
            .collect();
        for left in &remaining {
            notes.push_str(&format!(
                "msgflow: {}: left: {}; why: {}\n",
                source.label, left.violation, left.why_left
            ));
        }
        let status = if remaining.is_empty() {
            Status::Ok
        } else {
            Status::Problems
        };
        Ok(Processed {
            status,
            ..Processed::history(repaired.history, notes)
        })
    }
}

/// The JSON written by `--report`: every change, then every problem left and why.
#[derive(serde::Serialize)]
struct Report<'a> {
    changes: &'a [msgflow_sanitize::Change],
    remaining: &'a [msgflow_sanitize::Remaining],
}
