//! `msgflow stats --tokens`: tokens per message and per part kind with a real tokenizer
//! (msgflow-context's counter).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use msgflow_context::tokens::{Calibration, CounterChoice};
use msgflow_wire::{ModelMessage, ModelResponsePart};
use serde::Serialize;

use crate::outcome::Failure;
use crate::runner::{FileCommand, Mode, Processed, Source};

/// Counts the tokens of each input.
pub struct TokenStats {
    /// `--tokenizer`.
    pub tokenizer: CounterChoice,
    /// Print JSON instead of a table.
    pub json: bool,
}

/// The tokens of one message.
#[derive(Debug, Serialize)]
struct MessageTokens {
    index: usize,
    kind: &'static str,
    tokens: usize,
    /// The usage the response records, for comparison (`usage.input_tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    recorded_input_tokens: Option<u64>,
}

/// What `msgflow stats --tokens` reports.
#[derive(Debug, Serialize)]
struct TokenReport {
    tokenizer: String,
    media_rule: msgflow_context::tokens::MediaRule,
    total: usize,
    /// Tokens by `part_kind` (instructions under `instructions`).
    by_part_kind: BTreeMap<String, usize>,
    messages: Vec<MessageTokens>,
    #[serde(skip_serializing_if = "Option::is_none")]
    calibration: Option<CalibrationReport>,
}

#[derive(Debug, Serialize)]
struct CalibrationReport {
    #[serde(flatten)]
    calibration: Calibration,
    scale: f64,
}

fn tag(tag: Option<std::borrow::Cow<'_, str>>) -> String {
    tag.map_or_else(|| "unknown".to_owned(), |tag| tag.into_owned())
}

impl TokenReport {
    fn of(history: &[ModelMessage], choice: CounterChoice) -> Result<TokenReport, Failure> {
        let (counter, calibration) = crate::tokenizer::counter_for(choice, history)?;
        let mut by_part_kind: BTreeMap<String, usize> = BTreeMap::new();
        let mut messages = Vec::with_capacity(history.len());
        for (index, message) in history.iter().enumerate() {
            let (kind, recorded) = match message {
                ModelMessage::Request(request) => {
                    for part in &request.parts {
                        *by_part_kind.entry(tag(part.tag())).or_default() += counter.count_request_part(part);
                    }
                    if let Some(text) = request.instructions.get() {
                        *by_part_kind.entry("instructions".to_owned()).or_default() += counter.count_instructions(text);
                    }
                    ("request", None)
                }
                ModelMessage::Response(response) => {
                    for part in &response.parts {
                        *by_part_kind.entry(tag(ModelResponsePart::tag(part))).or_default() +=
                            counter.count_response_part(part);
                    }
                    let recorded = response
                        .usage
                        .get()
                        .and_then(|usage| usage.input_tokens.get().or(usage.request_tokens.get()))
                        .and_then(msgflow_context::tokens::int_u64);
                    ("response", recorded)
                }
            };
            messages.push(MessageTokens {
                index,
                kind,
                tokens: counter.count_message(message),
                recorded_input_tokens: recorded,
            });
        }
        Ok(TokenReport {
            tokenizer: choice.to_string(),
            media_rule: counter.media_rule(),
            total: messages.iter().map(|message| message.tokens).sum(),
            by_part_kind,
            messages,
            calibration: calibration.map(|calibration| CalibrationReport {
                scale: calibration.scale(),
                calibration,
            }),
        })
    }

    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "tokens ({}): {}", self.tokenizer, self.total);
        if let Some(calibration) = &self.calibration {
            let _ = writeln!(
                out,
                "  calibrated on message {}: recorded {} input tokens, o200k_base counts {} (x{:.3})",
                calibration.calibration.response_index,
                calibration.calibration.recorded_input_tokens,
                calibration.calibration.counted_tokens,
                calibration.scale
            );
        }
        let _ = writeln!(out, "by part kind:");
        for (kind, tokens) in &self.by_part_kind {
            let _ = writeln!(out, "  {kind:<24} {tokens:>10}");
        }
        let _ = writeln!(out, "by message:");
        for message in &self.messages {
            let _ = write!(
                out,
                "  #{:<5} {:<9} {:>10}",
                message.index, message.kind, message.tokens
            );
            if let Some(recorded) = message.recorded_input_tokens {
                let _ = write!(out, "  (recorded input: {recorded})");
            }
            out.push('\n');
        }
        out
    }
}

impl FileCommand for TokenStats {
    fn mode(&self) -> Mode {
        Mode::Report { json: self.json }
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        let report = TokenReport::of(&history, self.tokenizer)?;
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
