//! What `FitContext` does before each model request, on a history whose messages are parsed and
//! counted already: `msgflow trim --max-tokens` (clear, clamp, then the newest whole turns that
//! fit), answering with the cut and the few messages that differ from the input's, so that the
//! caller keeps its own message objects for the rest.
//!
//! The answer is the one [`crate::ops::trim`] gives on the whole history (the tests below and
//! `crates/python/tests/test_history_cache.py` compare them); only the counting is skipped.

use std::collections::BTreeSet;

use msgflow_context::clamp;
use msgflow_context::clear;
use msgflow_context::tokens::TokenCounter;
use msgflow_context::trim;
use msgflow_wire::ModelMessage;
use serde::Serialize;

use crate::ops::{self, Error};

/// What `FitContext` takes, by the names of `msgflow.trim`'s arguments.
#[derive(Clone, Copy, Debug)]
pub struct FitOptions {
    /// `max_tokens`.
    pub max_tokens: usize,
    /// `clear_tool_results_older_than`.
    pub clear_tool_results_older_than: Option<usize>,
    /// `clamp_parts`.
    pub clamp_parts: Option<usize>,
}

/// The trimmed history, described against the input.
#[derive(Debug, PartialEq)]
pub struct Fitted {
    /// The first input message kept: the output is the input from here on, except for `changed`.
    pub start: usize,
    /// The output messages that are not the input's own (a cleared result, a clamped part, the
    /// system prompt moved onto the new first request): each with its index in the output.
    pub changed: Vec<(usize, ModelMessage)>,
    /// The figures `msgflow.trim` reports.
    pub summary: Summary,
}

/// `msgflow.trim`'s figures for a fit.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The input's tokens.
    pub tokens_before: usize,
    /// The output's tokens.
    pub tokens_after: usize,
    /// Messages removed from the front.
    pub removed: usize,
    /// Messages in the input.
    pub messages_before: usize,
}

/// `msgflow trim --max-tokens` of `history`, whose messages have `tokens` (each
/// `counter.count_message`): clear, clamp, then cut, as [`crate::ops::trim`] does.
pub fn fit(
    history: &[ModelMessage],
    tokens: &[usize],
    counter: &TokenCounter,
    options: &FitOptions,
) -> Result<Fitted, Error> {
    if options.clamp_parts.is_some_and(|bytes| bytes < clamp::MIN_CLAMP_BYTES) {
        return Err(Error::Value(format!(
            "clamp_parts must be {} or more",
            clamp::MIN_CLAMP_BYTES
        )));
    }
    let tokens_before = tokens.iter().sum();
    if options.clear_tool_results_older_than.is_none() && options.clamp_parts.is_none() {
        return cut(history, tokens, counter, options, tokens_before, &BTreeSet::new());
    }
    // Clearing and clamping rewrite messages: on a copy, recounting only what they rewrote.
    let mut stepped = history.to_vec();
    let mut rewritten = BTreeSet::new();
    if let Some(keep_turns) = options.clear_tool_results_older_than {
        rewritten.extend(
            clear::clear_tool_results(&mut stepped, keep_turns)
                .iter()
                .map(|cleared| cleared.message),
        );
    }
    if let Some(max_bytes) = options.clamp_parts {
        rewritten.extend(
            clamp::clamp_parts(&mut stepped, max_bytes)
                .iter()
                .map(|clamped| clamped.message),
        );
    }
    let mut stepped_tokens = tokens.to_vec();
    for &index in &rewritten {
        stepped_tokens[index] = counter.count_message(&stepped[index]);
    }
    cut(&stepped, &stepped_tokens, counter, options, tokens_before, &rewritten)
}

/// The cut of `history` (the input after clearing and clamping, whose messages `rewritten`
/// differ from the caller's).
fn cut(
    history: &[ModelMessage],
    tokens: &[usize],
    counter: &TokenCounter,
    options: &FitOptions,
    tokens_before: usize,
    rewritten: &BTreeSet<usize>,
) -> Result<Fitted, Error> {
    let window = trim::trim_window_sized(history, options.max_tokens, counter, tokens).map_err(ops::trim_error)?;
    let start = window.start;
    let mut changed: Vec<(usize, ModelMessage)> = rewritten
        .range(start..)
        .map(|&index| (index - start, history[index].clone()))
        .collect();
    let mut tokens_after: usize = tokens[start..].iter().sum();
    if let Some(first) = &window.first {
        tokens_after = tokens_after - tokens[start] + counter.count_message(first);
        match changed.first_mut() {
            Some((0, message)) => *message = first.clone(),
            _ => changed.insert(0, (0, first.clone())),
        }
    }
    Ok(Fitted {
        start,
        changed,
        summary: Summary {
            tokens_before,
            tokens_after,
            removed: start,
            messages_before: history.len(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use msgflow_context::tokens::Tokenizer;
    use serde_json::Value;

    /// `fit` answers as `ops::trim` on the whole history: the same output and the same figures.
    /// Returns what the case exercised: (messages removed, messages changed), or `None` when
    /// nothing fits.
    fn assert_fits_as_trim(data: &[u8], options: &FitOptions) -> Option<(usize, usize)> {
        let history = msgflow_wire::from_slice(data).expect("a fixture parses");
        let counter = TokenCounter::new(Tokenizer::O200kBase);
        let tokens: Vec<usize> = history.iter().map(|message| counter.count_message(message)).collect();
        let trim_options = ops::TrimOptions {
            max_tokens: Some(options.max_tokens),
            keep_turns: None,
            max_bytes: None,
            tokenizer: "o200k_base",
            clear_tool_results_older_than: options.clear_tool_results_older_than,
            clamp_parts: options.clamp_parts,
            harness_clear: None,
            harness_clamp: None,
        };
        match (
            fit(&history, &tokens, &counter, options),
            ops::trim(data, &trim_options),
        ) {
            (Ok(fitted), Ok(trimmed)) => {
                let (bytes, report) = (trimmed.history, trimmed.report);
                let mut output: Vec<ModelMessage> = history[fitted.start..].to_vec();
                for (index, message) in &fitted.changed {
                    output[*index] = message.clone();
                }
                assert_eq!(msgflow_wire::to_vec(&output).unwrap(), bytes, "{options:?}");
                let report: Value = serde_json::from_str(&report).unwrap();
                assert_eq!(report["tokens_before"], fitted.summary.tokens_before, "{options:?}");
                assert_eq!(report["tokens_after"], fitted.summary.tokens_after, "{options:?}");
                Some((fitted.start, fitted.changed.len()))
            }
            (Err(Error::DoesNotFit { needed, .. }), Err(Error::DoesNotFit { needed: expected, .. })) => {
                assert_eq!(needed, expected, "{options:?}");
                None
            }
            (fitted, trimmed) => panic!("{options:?}: fit gave {fitted:?}, trim gave {trimmed:?}"),
        }
    }

    /// A session of `turns` turns: a system prompt and instructions first, then in each turn a
    /// user prompt, a tool call, its long result and an answer.
    fn session(turns: usize) -> Vec<u8> {
        let mut messages = Vec::new();
        for turn in 0..turns {
            let preamble = if turn == 0 {
                r#"{"content":"You are a careful coding agent.","part_kind":"system-prompt"},"#
            } else {
                ""
            };
            let instructions = if turn == 0 { r#""Be brief.""# } else { "null" };
            let result = format!("line {turn} of a file that is read again and again. ").repeat(4 * (turn % 3) + 1);
            messages.push(format!(
                r#"{{"parts":[{preamble}{{"content":"question {turn}","part_kind":"user-prompt"}}],"instructions":{instructions},"kind":"request"}}"#
            ));
            messages.push(format!(
                r#"{{"parts":[{{"tool_name":"read_file","args":"{{\"path\":\"f{turn}.py\"}}","tool_call_id":"c{turn}","part_kind":"tool-call"}}],"kind":"response"}}"#
            ));
            messages.push(format!(
                r#"{{"parts":[{{"tool_name":"read_file","content":"{result}","tool_call_id":"c{turn}","part_kind":"tool-return"}}],"kind":"request"}}"#
            ));
            messages.push(format!(
                r#"{{"parts":[{{"content":"answer {turn}","part_kind":"text"}}],"kind":"response"}}"#
            ));
        }
        format!("[{}]", messages.join(",")).into_bytes()
    }

    #[test]
    fn every_budget_and_step_fits_as_trim_does() {
        let examples = [
            include_bytes!("../../../examples/interrupted-session.json").to_vec(),
            session(9),
        ];
        // Cases that do not fit, that fit whole, that are cut, and with messages changed.
        let mut outcomes = [0; 4];
        for data in &examples {
            let history = msgflow_wire::from_slice(data).unwrap();
            let counter = TokenCounter::new(Tokenizer::O200kBase);
            let total: usize = history.iter().map(|message| counter.count_message(message)).sum();
            for max_tokens in (0..=total).step_by(7).chain([total]) {
                for clear_tool_results_older_than in [None, Some(0), Some(1), Some(3)] {
                    for clamp_parts in [None, Some(128)] {
                        let options = FitOptions {
                            max_tokens,
                            clear_tool_results_older_than,
                            clamp_parts,
                        };
                        let outcome = assert_fits_as_trim(data, &options);
                        outcomes[0] += usize::from(outcome.is_none());
                        outcomes[1] += usize::from(outcome.is_some_and(|(removed, _)| removed == 0));
                        outcomes[2] += usize::from(outcome.is_some_and(|(removed, _)| removed > 0));
                        outcomes[3] += usize::from(outcome.is_some_and(|(_, changed)| changed > 0));
                    }
                }
            }
        }
        assert!(outcomes.iter().all(|&count| count > 0), "{outcomes:?}");
    }
}
