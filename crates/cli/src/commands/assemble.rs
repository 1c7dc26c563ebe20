//! `msgflow assemble`: an event log of a streamed run (pydantic-ai's stream events, one JSON
//! object per line) back to the history it recorded (msgflow-stream).

use std::path::PathBuf;

use clap::Args;
use msgflow_stream::{assemble, read_log, AssembleOptions, AssemblyReport};
use msgflow_wire::{ModelMessage, Timestamp};

use crate::args::{InputArgs, OutputArgs, StrictArgs};
use crate::files;
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow assemble`.
#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// The event log: pydantic-ai stream events, one JSON object per line; `-` or nothing reads
    /// standard input.
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// The history the run started from: the assembled messages are appended to it (with
    /// --in-place, this file is rewritten).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Report on stderr as one JSON object: events read, responses and parts built, whether the
    /// stream completed, what was cut.
    #[arg(long)]
    pub json: bool,
    /// The responses' `timestamp` (RFC 3339); the current time by default.
    #[arg(long, value_name = "TIME")]
    pub timestamp: Option<String>,
    /// The responses' `model_name`.
    #[arg(long, value_name = "NAME")]
    pub model_name: Option<String>,
    /// The responses' `provider_name`.
    #[arg(long, value_name = "NAME")]
    pub provider_name: Option<String>,
}

/// The examples and notes after `msgflow assemble --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow assemble events.jsonl -o session.json\n",
    "  msgflow assemble events.jsonl --history before.json | msgflow repair - -o session.json\n",
    "  msgflow assemble events.jsonl --history session.json --in-place --backup --json\n\n",
    "Response events are replayed as pydantic-ai 2.68.0's parts manager (`apply_event`) replays them;\n",
    "tool results become the request between two responses. A log that ends before its stream did (no\n",
    "final part_end, a last line cut mid-JSON) gives a response with state \"interrupted\" that keeps what was\n",
    "streamed: text cut short, a tool call with its partial arguments; `msgflow repair` then answers the call.\n",
    "stderr says what was built and what was cut. A malformed line is an error naming its line and column.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow assemble`: with --in-place the history is the runner's input (rewritten in
/// place), else the event log is.
pub fn run(args: &AssembleArgs) -> Status {
    if crate::runner::is_batch(&args.input) {
        return crate::outcome::usage_error("assemble takes one event log", Some("run it once per log"));
    }
    let timestamp = match &args.timestamp {
        Some(text) => match Timestamp::parse(text) {
            Ok(timestamp) => timestamp,
            Err(err) => return crate::outcome::usage_error(&format!("--timestamp {text:?}: {err}"), None),
        },
        None => Timestamp::now(),
    };
    let options = AssembleOptions {
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
            let input = InputArgs {
                files: vec![history.clone()],
                ..args.input.clone()
            };
            (Inputs::History { log }, input)
        }
        (None, true) => {
            return crate::outcome::usage_error(
                "--in-place rewrites the --history file; without one there is nothing to rewrite",
                Some("use -o FILE"),
            )
        }
        (history, false) => (
            Inputs::Log {
                history: history.clone(),
            },
            args.input.clone(),
        ),
    };
    let command = Assemble {
        inputs,
        options,
        json: args.json,
        max_input_bytes,
        strict: args.strict.strict,
    };
    crate::runner::run(&command, &input_args, &args.output)
}

/// Where the event log and the history it extends come from.
pub enum Inputs {
    /// The runner's input is the event log; `history` (if any) is read here.
    Log {
        /// The history the run started from (`--history`).
        history: Option<PathBuf>,
    },
    /// The runner's input is the history (so that `--in-place` rewrites it); the log is read here.
    History {
        /// The event log.
        log: PathBuf,
    },
}

/// Assembles the log and appends the messages to the history.
pub struct Assemble {
    /// Which input is which.
    pub inputs: Inputs,
    /// What the responses get that the events do not carry.
    pub options: AssembleOptions,
    /// Report as one JSON object on stderr instead of text lines.
    pub json: bool,
    /// Refuse input larger than this (`--max-input-bytes`), for the file read here.
    pub max_input_bytes: Option<u64>,
    /// `--strict`: refuse to write a history pydantic-ai would not load.
    pub strict: bool,
}

impl FileCommand for Assemble {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let (log_label, log_text, mut history): (String, String, Vec<ModelMessage>) = match &self.inputs {
            Inputs::Log { history } => {
                let history = match history {
                    Some(path) => {
                        let bytes = files::read_file(path, self.max_input_bytes)
                            .map_err(|err| Failure::unreadable(path, &err))?;
                        msgflow_wire::from_vec(bytes).map_err(|err| {
                            let failure = Failure::from_parse_error(&err);
                            Failure::invalid(format!("{}: {}", path.display(), failure.message), failure.hint)
                        })?
                    }
                    None => Vec::new(),
                };
                // The runner names the input (the log) in front of every message.
                (String::new(), source.input.as_str().to_owned(), history)
            }
            Inputs::History { log } => {
                let bytes =
                    files::read_file(log, self.max_input_bytes).map_err(|err| Failure::unreadable(log, &err))?;
                let text = String::from_utf8(bytes).map_err(|err| {
                    Failure::invalid(
                        format!(
                            "{}: not UTF-8 text (byte {})",
                            log.display(),
                            err.utf8_error().valid_up_to()
                        ),
                        Some("an event log is JSON Lines, which is UTF-8".to_owned()),
                    )
                })?;
                (
                    format!("{}: ", log.display()),
                    text,
                    crate::runner::parse_history(source)?,
                )
            }
        };
        let log = read_log(&log_text).map_err(|err| {
            Failure::invalid(
                format!("{log_label}not a pydantic-ai event log: {err}"),
                Some(
                    "each line must be one stream event as pydantic-ai's TypeAdapter(AgentStreamEvent) dumps it; \
                     fix or remove that line"
                        .to_owned(),
                ),
            )
        })?;
        let assembly = assemble(&log, &self.options).map_err(|err| {
            Failure::invalid(
                format!("{log_label}the events do not make a response: {err}"),
                Some("pydantic-ai raises on the same event (`apply_event`); the log is not one stream's".to_owned()),
            )
        })?;
        let notes = if self.json {
            let mut json = serde_json::to_string(&assembly.report)
                .map_err(|err| Failure::invalid(format!("cannot serialise the report: {err}"), None))?;
            json.push('\n');
            json
        } else {
            describe(
                log_label.strip_suffix(": ").unwrap_or(source.label),
                &assembly.report,
                history.len(),
            )
        };
        history.extend(assembly.messages);
        Ok(Processed {
            status: Status::Ok,
            ..Processed::history(history, notes)
        })
    }
}

/// The report as text lines for stderr; message indexes count in the output history.
fn describe(label: &str, report: &AssemblyReport, offset: usize) -> String {
    let mut text = format!(
        "msgflow: {label}: {} events, {} response(s), {} parts, {} tool result(s); stream {}\n",
        report.events,
        report.responses,
        report.parts,
        report.tool_results,
        if report.completed { "completed" } else { "interrupted" }
    );
    if let Some(line) = report.truncated_line {
        text.push_str(&format!(
            "msgflow: {label}: line {line} is cut off mid-event; its event is lost\n"
        ));
    }
    for cut in &report.unfinished_parts {
        let what = match &cut.tool_call {
            Some((name, id)) => format!("tool call `{name}` [{id}] with partial arguments"),
            None => format!("{} part cut short", cut.part_kind),
        };
        text.push_str(&format!(
            "msgflow: {label}: kept {what} (message {}, part {})\n",
            offset + cut.message,
            cut.part
        ));
    }
    for index in &report.unlogged_requests {
        text.push_str(&format!(
            "msgflow: {label}: message {} follows a response without the request pydantic-ai sent in between \
             (retry feedback has no event)\n",
            offset + index
        ));
    }
    text
}
