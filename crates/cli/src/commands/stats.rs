//! `msgflow stats`: counts of messages, parts, tool calls, tokens, cost and models.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use clap::Args;
use msgflow_context::tokens::CounterChoice;
use msgflow_wire::{ModelMessage, ModelRequestPart, ModelResponsePart, RequestUsage, ToolReturnOutcome};
use serde::Serialize;

use crate::args::{CorpusArgs, InputArgs, ReportOutputArgs};
use crate::decimal::DecimalSum;
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

mod tokens;

/// `msgflow stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// Print JSON instead of a table (JSON Lines, one object per file, in batch mode).
    #[arg(long)]
    pub json: bool,
    /// Count tokens per message and part kind with a real tokenizer instead (see --tokenizer).
    #[arg(long)]
    pub tokens: bool,
    /// With --tokens: o200k_base, cl100k_base, chars4 (pydantic-ai-harness's estimate) or
    /// calibrated (o200k_base scaled to the history's recorded usage.input_tokens).
    #[arg(long, value_name = "NAME", default_value = "o200k_base", requires = "tokens")]
    pub tokenizer: CounterChoice,
}

/// The examples and notes after `msgflow stats --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow stats history.json\n",
    "  msgflow stats --json history.json | jq .tokens\n",
    "  msgflow stats --json -r runs/ > stats.jsonl     # batch: one JSON object per line\n",
    "  msgflow stats --tokens --tokenizer cl100k_base history.json\n\n",
    exit_codes_text!()
);

/// Runs `msgflow stats`, or with `--tokens` the token counts.
pub fn run(args: &StatsArgs) -> Status {
    let destination = crate::runner::report_destination(args.output.output.clone());
    if args.tokens {
        let command = tokens::TokenStats {
            tokenizer: args.tokenizer,
            json: args.json,
        };
        return crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination);
    }
    let command = Stats { json: args.json };
    crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination)
}

/// Summarises each input as a table, or as JSON with `json`.
pub struct Stats {
    /// Print JSON instead of a table.
    pub json: bool,
}

impl FileCommand for Stats {
    fn mode(&self) -> Mode {
        Mode::Report { json: self.json }
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        let report = Report::of(&history);
        let output = if self.json {
            let mut text = serde_json::to_string_pretty(&report)
                .map_err(|err| Failure::invalid(format!("cannot serialise the report: {err}"), None))?;
            text.push('\n');
            text
        } else {
            report.table()
        };
        Ok(Processed {
            output: output.into_bytes(),
            ..Processed::default()
        })
    }
}

/// What `msgflow stats` reports (the `--json` output, field for field).
#[derive(Debug, Default, Serialize)]
struct Report {
    messages: MessageCounts,
    /// Parts by `part_kind`.
    parts: BTreeMap<String, usize>,
    tool_calls: ToolCalls,
    /// Provider-executed (builtin) tool calls by tool name.
    builtin_tool_calls: BTreeMap<String, usize>,
    tokens: Tokens,
    cost: Cost,
    /// Responses by model name (model id when the name is missing).
    models: BTreeMap<String, usize>,
}

#[derive(Debug, Default, Serialize)]
struct MessageCounts {
    total: usize,
    requests: usize,
    responses: usize,
}

/// Function tool calls, each classified by what answered it.
#[derive(Debug, Default, Serialize)]
struct ToolCalls {
    total: usize,
    /// `answered` (success or no outcome recorded), `failed`, `denied`, `interrupted`,
    /// `retried` (outcome or a retry prompt), `dangling` (no answer), `no id` (cannot be matched).
    by_status: BTreeMap<String, usize>,
    by_name: BTreeMap<String, ToolStats>,
    /// Tool returns or retry prompts whose id matches no call.
    orphan_returns: usize,
}

#[derive(Debug, Default, Serialize)]
struct ToolStats {
    calls: usize,
    by_status: BTreeMap<String, usize>,
}

/// Token counts summed over every response's `usage` (legacy `request_tokens` /
/// `response_tokens` count when the current keys are absent).
///
/// pydantic-ai's counts are Python ints of any size; the sums are 128-bit, and a count (or a sum)
/// beyond that is listed in `out_of_range` and left out of its total rather than failing the file.
#[derive(Debug, Default, Serialize)]
struct Tokens {
    responses_with_usage: usize,
    input: i128,
    output: i128,
    cache_read: i128,
    cache_write: i128,
    cache_write_1h: i128,
    reasoning: i128,
    unmeasured_requests: i128,
    /// `usage.<field> = <digits>` of every count left out of its sum.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    out_of_range: Vec<String>,
}

#[derive(Debug, Default, Serialize)]
struct Cost {
    /// The exact sum of every `usage.cost` (a decimal string), or null when none is recorded.
    total: Option<String>,
    /// Responses with a cost.
    priced_responses: usize,
    /// Costs that are not decimal numbers (left out of the total).
    unreadable: Vec<String>,
}

const ANSWERED: &str = "answered";
const DANGLING: &str = "dangling";
const RETRIED: &str = "retried";
const NO_ID: &str = "no id";

impl Report {
    fn of(history: &[ModelMessage]) -> Report {
        let mut report = Report::default();
        // Calls in order (name, id); answers by id (the last answer wins).
        let mut calls: Vec<(&str, Option<&str>)> = Vec::new();
        let mut answers: HashMap<&str, String> = HashMap::new();
        let mut cost = DecimalSum::default();
        report.messages.total = history.len();
        for message in history {
            match message {
                ModelMessage::Request(request) => {
                    report.messages.requests += 1;
                    for part in &request.parts {
                        *report.parts.entry(tag_of(part.tag())).or_default() += 1;
                        match part {
                            ModelRequestPart::ToolReturn(part) => {
                                let status = match part.outcome.get() {
                                    None | Some(ToolReturnOutcome::Success) => ANSWERED.to_owned(),
                                    Some(outcome) => outcome.as_str().to_owned(),
                                };
                                record_answer(&mut answers, &mut report, part.tool_call_id.get(), status);
                            }
                            ModelRequestPart::RetryPrompt(part) if part.tool_name.is_present() => {
                                record_answer(&mut answers, &mut report, part.tool_call_id.get(), RETRIED.to_owned());
                            }
                            _ => {}
                        }
                    }
                }
                ModelMessage::Response(response) => {
                    report.messages.responses += 1;
                    for part in &response.parts {
                        *report.parts.entry(tag_of(part.tag())).or_default() += 1;
                        match part {
                            ModelResponsePart::ToolCall(part) => {
                                calls.push((&part.tool_name, part.tool_call_id.get().map(String::as_str)));
                            }
                            ModelResponsePart::BuiltinToolCall(part) => {
                                *report.builtin_tool_calls.entry(part.tool_name.clone()).or_default() += 1;
                            }
                            _ => {}
                        }
                    }
                    if let Some(model) = response.model_name.get().or(response.model_id.get()) {
                        *report.models.entry(model.clone()).or_default() += 1;
                    }
                    if let Some(usage) = response.usage.get() {
                        report.tokens.add(usage);
                        if let Some(amount) = usage.cost.get() {
                            match cost.add(&amount.text()) {
                                Ok(()) => report.cost.priced_responses += 1,
                                Err(_) => report.cost.unreadable.push(amount.text()),
                            }
                        }
                    }
                }
            }
        }
        if report.cost.priced_responses > 0 {
            report.cost.total = Some(cost.to_string());
        }
        let called: std::collections::HashSet<&str> = calls.iter().filter_map(|(_, id)| *id).collect();
        report.tool_calls.orphan_returns += answers.keys().filter(|id| !called.contains(*id)).count();
        for (name, id) in calls {
            let status = match id {
                None => NO_ID,
                Some(id) => answers.get(id).map_or(DANGLING, String::as_str),
            };
            report.tool_calls.total += 1;
            *report.tool_calls.by_status.entry(status.to_owned()).or_default() += 1;
            let per_tool = report.tool_calls.by_name.entry(name.to_owned()).or_default();
            per_tool.calls += 1;
            *per_tool.by_status.entry(status.to_owned()).or_default() += 1;
        }
        report
    }

    /// The human-readable table.
    fn table(&self) -> String {
        let mut out = String::new();
        let mut row = |label: &str, value: String| {
            let _ = writeln!(out, "{label:<20}{value}");
        };
        row(
            "messages",
            format!(
                "{} ({}, {})",
                self.messages.total,
                plural(self.messages.requests, "request"),
                plural(self.messages.responses, "response")
            ),
        );
        row("parts", self.parts.values().sum::<usize>().to_string());
        for (kind, count) in &self.parts {
            row(&format!("  {kind}"), count.to_string());
        }
        let calls = &self.tool_calls;
        let statuses = status_list(&calls.by_status);
        row(
            "tool calls",
            if statuses.is_empty() {
                "0".to_owned()
            } else {
                format!("{} ({statuses})", calls.total)
            },
        );
        for (name, tool) in &calls.by_name {
            row(
                &format!("  {name}"),
                format!("{} ({})", tool.calls, status_list(&tool.by_status)),
            );
        }
        if calls.orphan_returns > 0 {
            row("orphan returns", calls.orphan_returns.to_string());
        }
        if !self.builtin_tool_calls.is_empty() {
            row(
                "builtin tool calls",
                self.builtin_tool_calls.values().sum::<usize>().to_string(),
            );
            for (name, count) in &self.builtin_tool_calls {
                row(&format!("  {name}"), count.to_string());
            }
        }
        let tokens = &self.tokens;
        row(
            "tokens",
            format!(
                "{} in, {} out (over {} with usage)",
                tokens.input,
                tokens.output,
                plural(tokens.responses_with_usage, "response")
            ),
        );
        row("  cache read", tokens.cache_read.to_string());
        row(
            "  cache write",
            format!("{} ({} for 1 hour)", tokens.cache_write, tokens.cache_write_1h),
        );
        row("  reasoning", tokens.reasoning.to_string());
        if tokens.unmeasured_requests > 0 {
            row(
                "  unmeasured",
                format!("{} request(s) without usage data", tokens.unmeasured_requests),
            );
        }
        if !tokens.out_of_range.is_empty() {
            row(
                "  out of range",
                format!("left out of the sums: {}", tokens.out_of_range.join(", ")),
            );
        }
        let cost = match &self.cost.total {
            Some(total) => {
                format!(
                    "{total} ({} of {} responses priced)",
                    self.cost.priced_responses, self.messages.responses
                )
            }
            None => "none recorded".to_owned(),
        };
        row("cost", cost);
        if !self.cost.unreadable.is_empty() {
            row("  unreadable", self.cost.unreadable.join(", "));
        }
        let models: Vec<String> = self
            .models
            .iter()
            .map(|(model, count)| format!("{model} ({count})"))
            .collect();
        row(
            "models",
            if models.is_empty() {
                "none recorded".to_owned()
            } else {
                models.join(", ")
            },
        );
        out
    }
}

impl Tokens {
    fn add(&mut self, usage: &RequestUsage) {
        self.responses_with_usage += 1;
        let sums = [
            (
                &mut self.input,
                "input_tokens",
                usage.input_tokens.get().or(usage.request_tokens.get()),
            ),
            (
                &mut self.output,
                "output_tokens",
                usage.output_tokens.get().or(usage.response_tokens.get()),
            ),
            (&mut self.cache_read, "cache_read_tokens", usage.cache_read_tokens.get()),
            (
                &mut self.cache_write,
                "cache_write_tokens",
                usage.cache_write_tokens.get(),
            ),
            (
                &mut self.cache_write_1h,
                "cache_write_1h_tokens",
                usage.cache_write_1h_tokens.get(),
            ),
            (
                &mut self.reasoning,
                "output_reasoning_tokens",
                usage.output_reasoning_tokens.get(),
            ),
            (
                &mut self.unmeasured_requests,
                "unmeasured_requests",
                usage.unmeasured_requests.get(),
            ),
        ];
        for (sum, name, count) in sums {
            let Some(count) = count else { continue };
            match count.to_i128().and_then(|count| sum.checked_add(count)) {
                Some(total) => *sum = total,
                None => self.out_of_range.push(format!("usage.{name} = {count}")),
            }
        }
    }
}

fn record_answer<'a>(
    answers: &mut HashMap<&'a str, String>,
    report: &mut Report,
    id: Option<&'a String>,
    status: String,
) {
    match id {
        Some(id) => {
            answers.insert(id, status);
        }
        None => report.tool_calls.orphan_returns += 1,
    }
}

fn tag_of(tag: Option<std::borrow::Cow<'_, str>>) -> String {
    tag.map_or_else(|| "(no part_kind)".to_owned(), |tag| tag.into_owned())
}

/// `1 request`, `2 requests`.
fn plural(count: usize, noun: &str) -> String {
    format!("{count} {noun}{}", if count == 1 { "" } else { "s" })
}

fn status_list(statuses: &BTreeMap<String, usize>) -> String {
    statuses
        .iter()
        .map(|(status, count)| format!("{count} {status}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_calls_and_sums_costs_exactly() -> Result<(), msgflow_wire::ParseError> {
        let json = r#"[
          {"kind":"response","parts":[
            {"part_kind":"tool-call","tool_name":"a","args":{},"tool_call_id":"1"},
            {"part_kind":"tool-call","tool_name":"a","args":{},"tool_call_id":"2"},
            {"part_kind":"tool-call","tool_name":"b","args":{},"tool_call_id":"3"}],
           "usage":{"input_tokens":10,"output_tokens":5,"cost":"0.1"},"model_name":"m"},
          {"kind":"request","parts":[
            {"part_kind":"tool-return","tool_name":"a","content":"ok","tool_call_id":"1"},
            {"part_kind":"tool-return","tool_name":"b","content":"no","tool_call_id":"3","outcome":"failed"},
            {"part_kind":"tool-return","tool_name":"c","content":"?","tool_call_id":"9"}]},
          {"kind":"response","parts":[{"part_kind":"text","content":"done"}],
           "usage":{"request_tokens":7,"cost":"0.2"},"model_name":"m"}
        ]"#;
        let report = Report::of(&msgflow_wire::from_str(json)?);
        assert_eq!(report.tool_calls.total, 3);
        assert_eq!(report.tool_calls.by_status.get(ANSWERED), Some(&1));
        assert_eq!(report.tool_calls.by_status.get(DANGLING), Some(&1));
        assert_eq!(report.tool_calls.by_status.get("failed"), Some(&1));
        assert_eq!(report.tool_calls.orphan_returns, 1);
        assert_eq!((report.tokens.input, report.tokens.output), (17, 5));
        assert_eq!(report.cost.total.as_deref(), Some("0.3"));
        assert_eq!(report.models.get("m"), Some(&2));
        assert_eq!(report.parts.get("tool-return"), Some(&3));
        Ok(())
    }
}
