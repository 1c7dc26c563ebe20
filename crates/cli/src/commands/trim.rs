//! `msgflow trim`: fit a history into a budget (msgflow-context): clear old tool results, clamp
//! oversized parts, then keep the newest whole turns that fit, reporting every step.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use msgflow_context::clamp::{self, ClampedPart, HarnessClamp};
use msgflow_context::clear::{self, ClearedResult, HarnessClear};
use msgflow_context::tokens::{CounterChoice, TokenCounter};
use msgflow_context::trim::{self, Budget, TrimError, TrimReport};
use msgflow_wire::ModelMessage;
use serde::Serialize;

use crate::args::{CorpusArgs, InputArgs, OutputArgs, StrictArgs};
use crate::files;
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow trim`.
#[derive(Debug, Args)]
pub struct TrimArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// Keep the newest whole turns that fit in N tokens (counted by --tokenizer).
    #[arg(long, value_name = "N", group = "budget")]
    pub max_tokens: Option<usize>,
    /// Keep the newest N turns (a turn starts where the user speaks).
    #[arg(long, value_name = "N", group = "budget", value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_turns: Option<u64>,
    /// Keep the newest whole turns that fit in N bytes of compact JSON.
    #[arg(long, value_name = "N", group = "budget")]
    pub max_bytes: Option<usize>,
    /// The token counter: o200k_base, cl100k_base, chars4 or calibrated.
    #[arg(long, value_name = "NAME", default_value = "o200k_base")]
    pub tokenizer: CounterChoice,
    /// First replace the content of tool results older than the newest K turns with a placeholder
    /// naming the tool and the size (calls, returns and ids stay).
    #[arg(long, value_name = "K")]
    pub clear_tool_results_older_than: Option<usize>,
    /// First clear as pydantic-ai-harness's ClearToolResults(keep_pairs=N) does (its placeholder
    /// and metadata mark).
    #[arg(long, value_name = "KEEP_PAIRS")]
    pub harness_clear: Option<usize>,
    /// Then cut text, thinking, user prompt text and tool output over BYTES to head and tail (a
    /// marker between); at least 128.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(128..))]
    pub clamp_parts: Option<u64>,
    /// Then clamp as pydantic-ai-harness's ClampOversizedMessages(max_part_chars=N) does
    /// (response text and tool-call arguments, 2000 characters of head and of tail kept).
    #[arg(long, value_name = "MAX_PART_CHARS", value_parser = clap::value_parser!(u64).range(1..))]
    pub harness_clamp: Option<u64>,
    /// Print what each step would reclaim instead of writing the history.
    #[arg(long)]
    pub dry_run: bool,
    /// Also write the report (every removed message, cleared result and clamped part) as JSON
    /// to FILE (single input only).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// The examples and notes after `msgflow trim --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow trim --max-tokens 100000 history.json -o trimmed.json\n",
    "  msgflow trim --keep-turns 5 --report removed.json --in-place history.json\n",
    "  msgflow trim --clear-tool-results-older-than 2 --clamp-parts 16384 --max-tokens 50000 --dry-run history.json\n",
    "  msgflow trim --max-bytes 1000000 --tokenizer cl100k_base -r -o trimmed/ runs/\n\n",
    "A history is only cut where a turn starts (a request with a user prompt and no tool result), never\n",
    "between a tool call and its result. The system prompts and instructions of the first request are\n",
    "kept, moved onto the new first request. A history that fits is written unchanged.\n\n",
    "Exit status 1 means even the newest turn does not fit the budget (nothing is written).\n\n",
    exit_codes_text!()
);

/// Runs `msgflow trim`: the steps the flags ask for, in their fixed order.
pub fn run(args: &TrimArgs) -> Status {
    if args.report.is_some() {
        if let Err(status) = crate::corpus::refuse_report_for_many("trim", &args.input, &args.corpus) {
            return status;
        }
    }
    let budget = match (args.max_tokens, args.keep_turns, args.max_bytes) {
        (Some(tokens), _, _) => Some(Budget::Tokens(tokens)),
        (_, Some(turns), _) => Some(Budget::Turns(usize::try_from(turns).unwrap_or(usize::MAX))),
        (_, _, Some(bytes)) => Some(Budget::Bytes(bytes)),
        _ => None,
    };
    let to_usize = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
    let command = Trim {
        budget,
        tokenizer: args.tokenizer,
        clear_older_than: args.clear_tool_results_older_than,
        harness_clear: args.harness_clear.map(|keep_pairs| HarnessClear {
            keep_pairs,
            ..Default::default()
        }),
        clamp_bytes: args.clamp_parts.map(to_usize),
        harness_clamp: args.harness_clamp.map(|max| HarnessClamp {
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

/// The steps `msgflow trim` runs, in this order: clear, clamp, trim.
pub struct Trim {
    /// The budget to trim to, if any.
    pub budget: Option<Budget>,
    /// `--tokenizer` (for `--max-tokens` and the dry-run's token figures).
    pub tokenizer: CounterChoice,
    /// `--clear-tool-results-older-than K` (turns).
    pub clear_older_than: Option<usize>,
    /// `--harness-clear KEEP_PAIRS`: pydantic-ai-harness's `ClearToolResults`.
    pub harness_clear: Option<HarnessClear>,
    /// `--clamp-parts BYTES`.
    pub clamp_bytes: Option<usize>,
    /// `--harness-clamp MAX_PART_CHARS`: pydantic-ai-harness's `ClampOversizedMessages`.
    pub harness_clamp: Option<HarnessClamp>,
    /// `--dry-run`: report what each step would reclaim, write no history.
    pub dry_run: bool,
    /// `--report FILE`: the JSON report.
    pub report: Option<PathBuf>,
    /// `--strict`: refuse to write a history pydantic-ai would not load.
    pub strict: bool,
}

/// What `--report` writes.
#[derive(Debug, Default, Serialize)]
struct Report {
    /// `--clear-tool-results-older-than`: the returns cleared.
    #[serde(skip_serializing_if = "Option::is_none")]
    cleared: Option<Vec<ClearedResult>>,
    /// `--harness-clear`: how many returns were cleared.
    #[serde(skip_serializing_if = "Option::is_none")]
    harness_cleared: Option<usize>,
    /// `--clamp-parts`: the parts clamped.
    #[serde(skip_serializing_if = "Option::is_none")]
    clamped: Option<Vec<ClampedPart>>,
    /// `--harness-clamp`: how many parts were clamped.
    #[serde(skip_serializing_if = "Option::is_none")]
    harness_clamped: Option<usize>,
    /// The trim.
    #[serde(skip_serializing_if = "Option::is_none")]
    trim: Option<TrimReport>,
    /// Each step's size before and after, in the budget's unit (`--dry-run` prints these).
    steps: Vec<Step>,
}

#[derive(Debug, Serialize)]
struct Step {
    step: &'static str,
    unit: &'static str,
    before: usize,
    after: usize,
}

impl Trim {
    fn unit(&self) -> &'static str {
        match self.budget {
            Some(Budget::Tokens(_)) | None => "tokens",
            Some(Budget::Bytes(_) | Budget::Turns(_)) => "bytes",
        }
    }

    fn size(&self, history: &[ModelMessage], counter: &TokenCounter) -> usize {
        if self.unit() == "bytes" {
            let messages: usize = history.iter().map(trim::message_bytes).sum();
            2 + messages + history.len().saturating_sub(1)
        } else {
            history.iter().map(|message| counter.count_message(message)).sum()
        }
    }

    /// Runs the steps; a trim that cannot meet the budget comes back as the failure beside the
    /// report of the steps before it (which `--dry-run` prints).
    fn run(&self, mut history: Vec<ModelMessage>) -> Result<(Vec<ModelMessage>, Report, Option<Failure>), Failure> {
        let (counter, _) = crate::tokenizer::counter_for(self.tokenizer, &history)?;
        let mut report = Report::default();
        let unit = self.unit();
        let mut size = self.size(&history, &counter);
        let mut step = |name: &'static str, history: &[ModelMessage], report: &mut Report| {
            let after = self.size(history, &counter);
            report.steps.push(Step {
                step: name,
                unit,
                before: size,
                after,
            });
            size = after;
        };
        if let Some(keep_turns) = self.clear_older_than {
            report.cleared = Some(clear::clear_tool_results(&mut history, keep_turns));
            step("clear-tool-results", &history, &mut report);
        }
        if let Some(options) = &self.harness_clear {
            report.harness_cleared = Some(clear::clear_like_harness(&mut history, options));
            step("harness-clear", &history, &mut report);
        }
        if let Some(max_bytes) = self.clamp_bytes {
            report.clamped = Some(clamp::clamp_parts(&mut history, max_bytes));
            step("clamp-parts", &history, &mut report);
        }
        if let Some(options) = &self.harness_clamp {
            report.harness_clamped = Some(clamp::clamp_like_harness(&mut history, options));
            step("harness-clamp", &history, &mut report);
        }
        if let Some(budget) = self.budget {
            let trimmed = trim::trim(history.clone(), budget, &counter).map_err(|err| match err {
                TrimError::NewestTurnTooLarge { .. } => Failure {
                    status: Status::Problems,
                    message: err.to_string(),
                    hint: Some(
                        "--dry-run shows what clearing (--clear-tool-results-older-than) and clamping \
                         (--clamp-parts) would reclaim"
                            .to_owned(),
                    ),
                    parse_error: None,
                },
                TrimError::NoTurns => Failure::invalid(err.to_string(), None),
            });
            match trimmed {
                Ok(trimmed) => {
                    history = trimmed.history;
                    report.trim = Some(trimmed.report);
                    step("trim", &history, &mut report);
                }
                Err(failure) => return Ok((history, report, Some(failure))),
            }
        }
        Ok((history, report, None))
    }
}

fn dry_run_text(report: &Report) -> String {
    let mut out = String::new();
    for step in &report.steps {
        let _ = writeln!(
            out,
            "{:<20} {:>10} -> {:>10} {}  (reclaims {})",
            step.step,
            step.before,
            step.after,
            step.unit,
            step.before.saturating_sub(step.after)
        );
    }
    if let Some(trim) = &report.trim {
        let _ = writeln!(
            out,
            "trim keeps {} of {} ({} of {}), removes {}",
            trim.turns_kept,
            counted(trim.turns_before, "turn"),
            trim.messages_kept,
            counted(trim.messages_before, "message"),
            trim.removed.len()
        );
    }
    out
}

fn notes(label: &str, report: &Report) -> String {
    let mut out = String::new();
    if let Some(cleared) = &report.cleared {
        let _ = writeln!(out, "msgflow: {label}: cleared {} tool results", cleared.len());
    }
    if let Some(count) = report.harness_cleared {
        let _ = writeln!(
            out,
            "msgflow: {label}: cleared {count} tool results (harness ClearToolResults)"
        );
    }
    if let Some(clamped) = &report.clamped {
        let _ = writeln!(out, "msgflow: {label}: clamped {} parts", clamped.len());
    }
    if let Some(count) = report.harness_clamped {
        let _ = writeln!(
            out,
            "msgflow: {label}: clamped {count} parts (harness ClampOversizedMessages)"
        );
    }
    if let Some(trim) = &report.trim {
        if trim.removed.is_empty() {
            // The budget is in the unit the user gave: turns for --keep-turns, else the size's.
            let fits = match trim.budget {
                Budget::Turns(limit) => format!("{} of at most {limit}", counted(trim.turns_before, "turn")),
                Budget::Tokens(limit) | Budget::Bytes(limit) => {
                    format!("{} of {limit} {}", trim.size_after, trim.size_unit)
                }
            };
            let _ = writeln!(out, "msgflow: {label}: fits ({fits}): nothing removed");
        } else {
            let _ = writeln!(
                out,
                "msgflow: {label}: removed messages 0..={} ({} of {}); kept {}, {} {} (was {})",
                trim.removed.len() - 1,
                trim.turns_before - trim.turns_kept,
                counted(trim.turns_before, "turn"),
                counted(trim.turns_kept, "turn"),
                trim.size_after,
                trim.size_unit,
                trim.size_before
            );
            for moved in &trim.moved {
                let _ = writeln!(
                    out,
                    "msgflow: {label}: moved the {} of removed message {} onto the new first request",
                    moved.what, moved.from_message
                );
            }
        }
    }
    out
}

/// `1 turn`, `2 turns`.
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("{count} {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

impl FileCommand for Trim {
    fn mode(&self) -> Mode {
        if self.dry_run {
            Mode::Report { json: false }
        } else {
            Mode::Transform
        }
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        let (history, report, failure) = self.run(history)?;
        if self.dry_run {
            let mut text = dry_run_text(&report);
            let status = match &failure {
                Some(failure) => {
                    let _ = writeln!(text, "trim: {}", failure.message);
                    failure.status
                }
                None => Status::Ok,
            };
            return Ok(Processed {
                output: text.into_bytes(),
                status,
                ..Processed::default()
            });
        }
        if let Some(failure) = failure {
            return Err(failure);
        }
        if self.strict && self.report.is_some() {
            // The report is written here, before the runner judges the history: judge it first,
            // so that a refusal writes nothing at all.
            crate::runner::refuse_unloadable(&history)?;
        }
        if let Some(path) = &self.report {
            let mut json = serde_json::to_vec_pretty(&report)
                .map_err(|err| Failure::invalid(format!("cannot serialise the trim report: {err}"), None))?;
            json.push(b'\n');
            // Written before the history is delivered: if it fails, nothing else is written.
            files::write_atomically(path, &json, None).map_err(|err| Failure::unwritable(path, &err))?;
        }
        Ok(Processed::history(history, notes(source.label, &report)))
    }
}
