//! The subcommands. Each file-processing command implements [`crate::runner::FileCommand`];
//! [`dispatch`] maps the parsed command line to one of them.

mod assemble;
mod check;
mod convert;
mod convert_format;
mod export;
mod fmt;
mod media;
mod provider;
mod repair;
mod schema;
mod show;
mod show_html;
mod stats;
mod tokens;
mod tools;
mod trim;

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, Command, CompletionsArgs};
use crate::outcome::{Failure, Status};
use crate::runner::{self, report_destination, Source};

/// Runs the subcommand and returns the exit status.
pub fn dispatch(cli: Cli) -> Status {
    match cli.command {
        Command::Fmt(args) => {
            let command = fmt::Fmt {
                check: args.check,
                strict: args.strict.strict,
            };
            crate::corpus::run_or_files(&command, &args.input, &args.corpus, &args.output)
        }
        Command::Show(args) if args.html => show_html::run(&args),
        Command::Show(args) => {
            let destination = report_destination(args.output.output.clone());
            let command = show::Show::from_args(&args, runner::output_is_terminal(&destination));
            runner::run(&command, &args.input, &destination)
        }
        Command::Stats(args) if args.tokens => {
            let command = tokens::TokenStats {
                tokenizer: args.tokenizer.clone(),
                json: args.json,
            };
            let destination = report_destination(args.output.output.clone());
            crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination)
        }
        Command::Stats(args) => {
            let command = stats::Stats { json: args.json };
            let destination = report_destination(args.output.output.clone());
            crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination)
        }
        Command::Canonical(args) => {
            runner::run(&convert::ToCanonical { pretty: args.pretty }, &args.input, &args.output)
        }
        Command::Wire(args) => {
            let command = convert::ToWire {
                strict: args.strict.strict,
            };
            runner::run(&command, &args.input, &args.output)
        }
        Command::Check(args) => {
            let options = match provider::export_options(args.provider, &args.profile) {
                Ok(options) => options,
                Err(status) => return status,
            };
            let command = check::Check {
                json: args.json,
                require_loadable: args.require_loadable,
                provider: args.provider,
                options,
            };
            let destination = report_destination(args.output.output.clone());
            crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination)
        }
        Command::Repair(args) => {
            if args.report.is_some()
                && (runner::is_batch(&args.input) || crate::corpus::names_corpus(&args.input, &args.corpus))
            {
                return crate::outcome::usage_error(
                    "--report takes a single input",
                    Some("run repair once per file to get one report each"),
                );
            }
            let mut options = msgflow_sanitize::RepairOptions::default();
            if let Some(message) = &args.message {
                options.content.clone_from(message);
            }
            options.repair_last_response = !args.keep_last_response;
            options.resolve_remaining = args.resolve_remaining;
            let command = repair::Repair {
                options,
                report: args.report.clone(),
                provider: args.provider,
                strict: args.strict.strict,
            };
            crate::corpus::run_or_files(&command, &args.input, &args.corpus, &args.output)
        }
        Command::Export(args) => {
            let options = match provider::export_options(Some(args.to), &args.profile) {
                Ok(options) => options,
                Err(status) => return status,
            };
            let command = export::Export { to: args.to, options };
            let destination = report_destination(args.output.output.clone());
            crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination)
        }
        Command::ConvertFormat(args) => {
            let command = convert_format::ConvertFormat {
                from: args.from,
                to: args.to,
                strict: args.strict,
                options: msgflow_formats::ConvertOptions {
                    lossless: args.lossless,
                    vercel_sdk_version: args.vercel_sdk,
                    otel_version: args.otel_version,
                },
            };
            runner::run(&command, &args.input, &report_destination(args.output.clone()))
        }
        Command::Trim(args) => trim_command(&args),
        Command::Media(args) => {
            let (direction, args) = match &args.action {
                crate::cli::MediaAction::Extract(args) => (media::Direction::Extract, args),
                crate::cli::MediaAction::Inline(args) => (media::Direction::Inline, args),
            };
            let command = media::Media {
                direction,
                dir: args.dir.clone(),
                strict: args.strict.strict,
            };
            runner::run(&command, &args.input, &args.output)
        }
        Command::Assemble(args) => assemble_command(&args),
        Command::Tools(args) => {
            let command = tools::Tools {
                guidance: args.guidance,
            };
            runner::run(&command, &args.input, &report_destination(args.output.output.clone()))
        }
        Command::Schema(args) => schema::run(&args),
        Command::Completions(args) => completions(&args),
    }
}

pub(crate) use tokens::parse_tokenizer;

/// `msgflow trim`: the steps the flags ask for, in their fixed order.
fn trim_command(args: &crate::cli::TrimArgs) -> Status {
    use msgflow_context::trim::Budget;
    if args.report.is_some()
        && (runner::is_batch(&args.input) || crate::corpus::names_corpus(&args.input, &args.corpus))
    {
        return crate::outcome::usage_error(
            "--report takes a single input",
            Some("run trim once per file to get one report each"),
        );
    }
    let budget = match (args.max_tokens, args.keep_turns, args.max_bytes) {
        (Some(tokens), _, _) => Some(Budget::Tokens(tokens)),
        (_, Some(turns), _) => Some(Budget::Turns(usize::try_from(turns).unwrap_or(usize::MAX))),
        (_, _, Some(bytes)) => Some(Budget::Bytes(bytes)),
        _ => None,
    };
    let to_usize = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
    let command = trim::Trim {
        budget,
        tokenizer: args.tokenizer.clone(),
        clear_older_than: args.clear_tool_results_older_than,
        harness_clear: args
            .harness_clear
            .map(|keep_pairs| msgflow_context::clear::HarnessClear {
                keep_pairs,
                ..Default::default()
            }),
        clamp_bytes: args.clamp_parts.map(to_usize),
        harness_clamp: args.harness_clamp.map(|max| msgflow_context::clamp::HarnessClamp {
            max_part_chars: Some(to_usize(max)),
            ..Default::default()
        }),
        dry_run: args.dry_run,
        report: args.report.clone(),
        strict: args.strict.strict,
    };
    let nothing_to_do = command.budget.is_none()
        && command.clear_older_than.is_none()
        && command.harness_clear.is_none()
        && command.clamp_bytes.is_none()
        && command.harness_clamp.is_none();
    if nothing_to_do {
        return crate::outcome::usage_error(
            "trim needs a budget (--max-tokens, --keep-turns or --max-bytes) or a step (--clear-tool-results-older-than, --clamp-parts, --harness-clear, --harness-clamp)",
            Some("see `msgflow trim --help`"),
        );
    }
    crate::corpus::run_or_files(&command, &args.input, &args.corpus, &args.output)
}

pub(crate) use provider::{parse_chat_thinking, parse_provider, parse_replayed_thinking};

/// Parses the input as a history, turning a parse error into a located [`Failure`].
pub(crate) fn parse_history(source: &Source<'_>) -> Result<Vec<msgflow_wire::ModelMessage>, Failure> {
    source.input.parse().map_err(|err| Failure::from_parse_error(&err))
}

/// `msgflow assemble`: with --in-place the history is the runner's input (rewritten in place), else
/// the event log is.
fn assemble_command(args: &crate::cli::AssembleArgs) -> Status {
    if runner::is_batch(&args.input) {
        return crate::outcome::usage_error("assemble takes one event log", Some("run it once per log"));
    }
    let timestamp = match &args.timestamp {
        Some(text) => match msgflow_wire::Timestamp::parse(text) {
            Ok(timestamp) => timestamp,
            Err(err) => return crate::outcome::usage_error(&format!("--timestamp {text:?}: {err}"), None),
        },
        None => assemble::now(),
    };
    let options = msgflow_stream::AssembleOptions {
        timestamp: Some(timestamp),
        model_name: args.model_name.clone(),
        provider_name: args.provider_name.clone(),
    };
    let max_input_bytes = args.input.max_input_bytes;
    let (inputs, input_args) = match (&args.history, args.output.in_place) {
        (Some(history), true) => {
            let Some(log) = args.input.files.first().filter(|path| path.as_os_str() != "-").cloned() else {
                return crate::outcome::usage_error(
                    "--in-place rewrites the --history file and needs the event log as a file",
                    None,
                );
            };
            let input = crate::cli::InputArgs {
                files: vec![history.clone()],
                ..args.input.clone()
            };
            (assemble::Inputs::History { log }, input)
        }
        (None, true) => {
            return crate::outcome::usage_error(
                "--in-place rewrites the --history file; without one there is nothing to rewrite",
                Some("use -o FILE"),
            )
        }
        (history, false) => (
            assemble::Inputs::Log {
                history: history.clone(),
            },
            args.input.clone(),
        ),
    };
    let command = assemble::Assemble {
        inputs,
        options,
        json: args.json,
        max_input_bytes,
        strict: args.strict.strict,
    };
    runner::run(&command, &input_args, &args.output)
}

fn completions(args: &CompletionsArgs) -> Status {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "msgflow", &mut script);
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&script) {
        Ok(()) => Status::Ok,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Status::Ok,
        Err(err) => crate::outcome::usage_error(&format!("cannot write to standard output: {err}"), None),
    }
}
