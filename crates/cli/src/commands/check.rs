//! `msgflow check`: list what a provider would reject or pydantic-ai would refuse or fix
//! (msgflow-sanitize's `check`), exit 1 when anything is found, and note the merges
//! pydantic-ai's repair makes in a history nothing is wrong with (`normalisations`).

use clap::Args;

use msgflow_wire::ParseErrorCategory;

use crate::args::{CorpusArgs, InputArgs, ReportOutputArgs};
use crate::outcome::{Failure, Status};
use crate::provider::ProfileArgs;
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// Print the violations as JSON (JSON Lines, one object per file, in batch mode):
    /// `valid` (no violations: exit 0), `pydantic_ai_loadable` (pydantic-ai 2.68.0 would load the
    /// history; a dangling call loads, yet is a violation), `turns`, `violations`, `notes`.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 exactly when pydantic-ai 2.68.0 would not load the input, whether or not msgflow's
    /// own types can hold it (not JSON, not a history, or `pydantic_ai_loadable: false`), and 0
    /// when it would, whatever else is found.
    #[arg(long, conflicts_with = "provider")]
    pub require_loadable: bool,
    /// Check against a provider's rules instead, on the request msgflow would export:
    /// anthropic, openai-chat, openai-responses or gemini.
    #[arg(long, visible_alias = "to", value_name = "PROVIDER")]
    pub provider: Option<msgflow_providers::Provider>,
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// The examples and notes after `msgflow check --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow check history.json\n",
    "  msgflow check --provider anthropic history.json    # the 400s Anthropic would answer, and where\n",
    "  msgflow check --json history.json | jq '.violations[].kind'\n",
    "  msgflow check --require-loadable history.json      # exit 1 only if pydantic-ai would not load it\n",
    "  msgflow check -r histories/                      # batch: exit 1 if any file has problems\n\n",
    "Exit status 1 means at least one violation was found; a history pydantic-ai 2.68.0 would not load\n",
    "always has one (not-loadable) when msgflow's types can hold it, and exits 2 (not a pydantic-ai\n",
    "message history) when they cannot. With --require-loadable: 0 when pydantic-ai would load the input,\n",
    "1 when it would not (either way), 2 only for usage errors and unreadable files.\n",
    "Lines starting with `note:` (`notes` in --json) are the merges pydantic-ai's repair makes in a history\n",
    "nothing is wrong with (consecutive requests, consecutive synthetic responses); they fail nothing.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow check`.
pub fn run(args: &CheckArgs) -> Status {
    let options = match args.profile.export_options(args.provider) {
        Ok(options) => options,
        Err(status) => return status,
    };
    let command = Check {
        json: args.json,
        require_loadable: args.require_loadable,
        provider: args.provider,
        options,
    };
    let destination = crate::runner::report_destination(args.output.output.clone());
    crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination)
}

/// Checks each input; text (one violation per line) or JSON. A history pydantic-ai 2.68.0
/// would not load always has violations (`not-loadable` and the unknown or mismatched parts
/// pydantic-ai refuses), so it exits 1.
pub struct Check {
    /// Print `{"valid": bool, "pydantic_ai_loadable": bool, "turns": N, "violations": [...],
    /// "notes": [...]}` instead of text: `valid` is "no violations" (exit 0), which a history
    /// pydantic-ai loads may still lack (a dangling call loads, a provider rejects it); each
    /// violation names the turn it is in (`msgflow_sanitize::Turns`, the cut points `trim` uses);
    /// `notes` are the merges pydantic-ai's repair makes (`msgflow_sanitize::normalisations`),
    /// which fail nothing.
    pub json: bool,
    /// Exit 1 exactly when pydantic-ai 2.68.0 would not load the input (`--require-loadable`):
    /// an input msgflow's types cannot hold is then a finding, not an error, and violations
    /// that do not stop pydantic-ai loading the history do not change the exit status.
    pub require_loadable: bool,
    /// Check against this provider's rules instead (msgflow-providers).
    pub provider: Option<msgflow_providers::Provider>,
    /// The profile settings of the request the provider's rules are evaluated on.
    pub options: msgflow_providers::ExportOptions,
}

impl FileCommand for Check {
    fn mode(&self) -> Mode {
        Mode::Report { json: self.json }
    }

    /// Not UTF-8, not JSON, or not the shape of a history: pydantic-ai's `validate_json` refuses
    /// such an input too (`json_invalid`, or a validation error where msgflow's types, which
    /// mirror pydantic-ai's, fail), so `--require-loadable` reports it with exit 1. A limit
    /// (`--max-input-bytes`, nesting) says nothing about pydantic-ai and stays an error.
    fn unreadable_history(&self, err: &msgflow_wire::ParseError) -> Failure {
        let mut failure = Failure::from_parse_error(err);
        let refused_by_pydantic_ai = matches!(
            err.category(),
            ParseErrorCategory::Syntax | ParseErrorCategory::Eof | ParseErrorCategory::Data
        );
        if self.require_loadable && refused_by_pydantic_ai {
            failure.status = Status::Problems;
            failure.message = format!("pydantic-ai 2.68.0 would not load it: {}", failure.message);
        }
        failure
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        if let Some(provider) = self.provider {
            return crate::provider::check(source, provider, &self.options, self.json);
        }
        let history = source.input.parse().map_err(|err| self.unreadable_history(&err))?;
        let report = msgflow_corpus::row::check_history(&history, Some(source.input.as_str()));
        let status = if self.require_loadable {
            if report.pydantic_ai_loadable {
                Status::Ok
            } else {
                Status::Problems
            }
        } else if report.valid {
            Status::Ok
        } else {
            Status::Problems
        };
        let output = if self.json {
            // The fields of `CheckReport` are none of a corpus row's location keys.
            let written = if source.row {
                serde_json::to_string(&report)
            } else {
                serde_json::to_string_pretty(&report)
            };
            let mut text =
                written.map_err(|err| Failure::invalid(format!("cannot serialise the report: {err}"), None))?;
            text.push('\n');
            text
        } else {
            let mut text: String = report
                .violations
                .iter()
                .map(|located| format!("{}\n", located.violation))
                .collect();
            text.extend(report.notes.iter().map(|note| format!("{note}\n")));
            if report.valid {
                text.push_str("no problems found\n");
            }
            text
        };
        Ok(Processed {
            output: output.into_bytes(),
            status,
            problem_codes: report.problem_codes(),
            error_types: report.error_types,
            json_object: self.json && source.row,
            ..Processed::default()
        })
    }
}
