//! The binding's work, free of Python: pydantic-ai JSON bytes in, bytes and JSON reports out.
//!
//! Each function calls the library function the `msgflow` command of the same name calls and
//! reports what that command's `--json` or `--report` output holds, so that a Python caller gets
//! the CLI's answers (`crates/python/tests/test_cli_parity.py` compares them).

use std::collections::BTreeMap;

use msgflow_context::clamp;
use msgflow_context::clear;
use msgflow_context::tokens::{TokenCounter, Tokenizer};
use msgflow_context::trim::{self, Budget, TrimError};
use msgflow_providers::{ExportError, ExportOptions, Provider};
use msgflow_wire::{ModelMessage, ModelResponsePart, ParseError};
use serde::Serialize;
use serde_json::json;

mod convert;
pub use self::convert::convert;

/// Why a call failed; `lib.rs` raises each as its documented Python exception.
#[derive(Debug)]
pub enum Error {
    /// The input is not a pydantic-ai history (`InvalidHistory`).
    Parse(ParseError),
    /// The provider's request cannot be built (`ExportRefused`).
    Export(ExportError),
    /// The newest turn alone exceeds the budget (`DoesNotFit`).
    DoesNotFit {
        /// The library's explanation.
        message: String,
        /// What the newest turn needs.
        needed: usize,
        /// The budget.
        limit: usize,
        /// The budget's unit.
        unit: &'static str,
    },
    /// The input is not the format it was named as, or the target cannot take the history
    /// (`ConversionError`).
    Convert(msgflow_formats::ConvertError),
    /// `strict` and the conversion would lose something (`ConversionError`, at the first loss).
    Lossy {
        /// What the CLI prints for the refusal.
        message: String,
        /// The document and JSON path of the first loss.
        document: usize,
        /// Its JSON path in the input.
        path: String,
    },
    /// A bad argument (`ValueError`).
    Value(String),
}

impl std::fmt::Display for Error {
    /// The exception's message, and the `error` of an Arrow row (`msgflow.arrow`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Parse(err) => write!(f, "not a pydantic-ai message history: {err}"),
            Error::Export(err) => write!(f, "{err}"),
            Error::Convert(err) => write!(f, "{err}"),
            Error::DoesNotFit { message, .. } | Error::Lossy { message, .. } | Error::Value(message) => {
                f.write_str(message)
            }
        }
    }
}

fn parse(data: &[u8]) -> Result<Vec<ModelMessage>, Error> {
    msgflow_wire::from_slice(data).map_err(Error::Parse)
}

pub(crate) fn write(history: &[ModelMessage]) -> Result<Vec<u8>, Error> {
    msgflow_wire::to_vec(history).map_err(|err| Error::Value(format!("cannot serialise the history: {err}")))
}

pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|err| Error::Value(format!("cannot serialise the report: {err}")))
}

/// The provider `name` names (`anthropic`, `openai-chat`, ...).
pub fn provider(name: &str) -> Result<Provider, Error> {
    name.parse().map_err(Error::Value)
}

/// The model profile settings `msgflow check --provider` and `msgflow export` take
/// (`--openai-chat-thinking`, `--anthropic-thinking`, `--openai-thinking`), by their Python names.
#[derive(Clone, Copy, Debug, Default)]
pub struct Profile<'a> {
    /// `--openai-chat-thinking MODE`.
    pub openai_chat_thinking: Option<&'a str>,
    /// `--anthropic-thinking WHERE`.
    pub anthropic_thinking: Option<&'a str>,
    /// `--openai-thinking WHERE`.
    pub openai_thinking: Option<&'a str>,
}

impl Profile<'_> {
    /// The export options for `provider`, each setting refused for a provider it does not apply
    /// to, as the CLI refuses it (its `export_options`).
    fn options(&self, provider: Option<Provider>) -> Result<ExportOptions, Error> {
        let mut options = ExportOptions::default();
        if let Some(mode) = self.openai_chat_thinking {
            if provider != Some(Provider::OpenAiChat) {
                return Err(Error::Value(
                    "openai_chat_thinking applies to the openai-chat provider only".to_owned(),
                ));
            }
            options.openai_chat_thinking = mode.parse().map_err(Error::Value)?;
        }
        if let Some(place) = self.anthropic_thinking {
            if provider != Some(Provider::Anthropic) {
                return Err(Error::Value(
                    "anthropic_thinking applies to the anthropic provider only".to_owned(),
                ));
            }
            options.anthropic_thinking = place.parse().map_err(Error::Value)?;
        }
        if let Some(place) = self.openai_thinking {
            if !matches!(provider, Some(Provider::OpenAiChat | Provider::OpenAiResponses)) {
                return Err(Error::Value(
                    "openai_thinking applies to the openai-chat and openai-responses providers only".to_owned(),
                ));
            }
            options.openai_thinking = place.parse().map_err(Error::Value)?;
        }
        Ok(options)
    }
}

/// The JSON path of a message or of one of its parts, as msgflow's parse errors write paths.
fn json_path(message: usize, part: Option<usize>) -> String {
    match part {
        Some(part) => format!("$[{message}].parts[{part}]"),
        None => format!("$[{message}]"),
    }
}

/// A violation as `check --json` prints it, with the CLI's text line and its JSON path. Reports
/// are serialised straight to text, never through `serde_json::Value`: a tool result may hold
/// the `NaN` pydantic-ai writes, which a `Value` cannot.
#[derive(Serialize)]
struct Located<'a, V: Serialize> {
    #[serde(flatten)]
    violation: &'a V,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<usize>,
    text: String,
    path: String,
}

/// `check --json`'s document (`provider` and `turns` as the CLI prints them for each mode).
#[derive(Serialize)]
struct CheckDocument<'a, V: Serialize> {
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<&'static str>,
    valid: bool,
    pydantic_ai_loadable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    turns: Option<usize>,
    violations: Vec<Located<'a, V>>,
}

/// What `check` found in one history: the verdict, the problems (counted, and their codes) and
/// `check --json`'s document, so that a caller reads the document only when there is something
/// in it.
#[derive(Debug)]
pub struct Checked {
    /// pydantic-ai 2.68.0 would load the history (`pydantic_ai_loadable`).
    pub loadable: bool,
    /// Nothing found (`valid`).
    pub valid: bool,
    /// The violations found.
    pub problems: usize,
    /// The code of each violation (its kind, or the provider rule's id), each once, in the order
    /// they first occur.
    pub codes: Vec<String>,
    /// `check --json`'s document.
    pub document: String,
}

/// Each code once, in the order of first occurrence.
fn distinct_codes(codes: impl Iterator<Item = String>) -> Vec<String> {
    let mut distinct: Vec<String> = Vec::new();
    for code in codes {
        if !distinct.contains(&code) {
            distinct.push(code);
        }
    }
    distinct
}

/// A violation kind's code as `check --json` writes it (`dangling-call`).
fn kind_code(kind: msgflow_sanitize::ViolationKind) -> String {
    serde_json::to_string(&kind).map_or_else(|_| format!("{kind:?}"), |code| code.trim_matches('"').to_owned())
}

/// `msgflow check --json` (with `--provider`, `check --provider P --json`), each violation with
/// its `text` (the CLI's text line) and `path`, and pydantic-ai 2.68.0's verdict in both cases.
pub fn check(data: &[u8], provider_name: Option<&str>, profile: &Profile<'_>) -> Result<Checked, Error> {
    let provider = provider_name.map(provider).transpose()?;
    let options = profile.options(provider)?;
    check_history(data, provider, &options)
}

/// [`check`] with the provider and its export options already chosen.
pub fn check_history(data: &[u8], provider: Option<Provider>, options: &ExportOptions) -> Result<Checked, Error> {
    let history = parse(data)?;
    let violations = match std::str::from_utf8(data) {
        Ok(text) => msgflow_sanitize::check_located(&history, text),
        Err(_) => msgflow_sanitize::check(&history),
    };
    let loadable = !violations.iter().any(|violation| violation.kind.refuses_loading());
    if let Some(provider) = provider {
        let rules = msgflow_providers::check_with(&history, provider, options).map_err(Error::Export)?;
        let document = to_json(&CheckDocument {
            provider: Some(provider.name()),
            valid: rules.is_empty(),
            pydantic_ai_loadable: loadable,
            turns: None,
            violations: rules
                .iter()
                .map(|violation| Located {
                    violation,
                    turn: None,
                    text: format!("{}: {}", violation.rule.id, violation.rule.requirement),
                    path: json_path(violation.message, violation.part),
                })
                .collect(),
        })?;
        return Ok(Checked {
            loadable,
            valid: rules.is_empty(),
            problems: rules.len(),
            codes: distinct_codes(rules.iter().map(|violation| violation.rule.id.to_owned())),
            document,
        });
    }
    let turns = msgflow_sanitize::Turns::of(&history);
    let document = to_json(&CheckDocument {
        provider: None,
        valid: violations.is_empty(),
        pydantic_ai_loadable: loadable,
        turns: Some(turns.len()),
        violations: violations
            .iter()
            .map(|violation| Located {
                violation,
                // As `msgflow check --json`: a message past the end counts in the last turn.
                turn: Some(
                    turns
                        .turn_of(violation.message_index)
                        .unwrap_or_else(|| turns.len().saturating_sub(1)),
                ),
                text: violation.to_string(),
                path: json_path(violation.message_index, violation.part_index),
            })
            .collect(),
    })?;
    Ok(Checked {
        loadable,
        valid: violations.is_empty(),
        problems: violations.len(),
        codes: distinct_codes(violations.iter().map(|violation| kind_code(violation.kind))),
        document,
    })
}

/// `repair --report`'s document.
#[derive(Serialize)]
struct RepairDocument<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<&'static str>,
    changes: &'a [msgflow_sanitize::Change],
    #[serde(skip_serializing_if = "Option::is_none")]
    remaining: Option<&'a [msgflow_sanitize::Remaining]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider_changes: Option<&'a [msgflow_providers::ProviderChange]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unfixed: Option<&'a [msgflow_providers::Unfixed]>,
}

/// What `repair` made of one history.
pub struct Repaired {
    /// The repaired history's JSON.
    pub history: Vec<u8>,
    /// `repair --report`'s document.
    pub report: String,
    /// How many changes it made (pydantic-ai's repair and the provider's fixes).
    pub changes: usize,
}

/// `repair`'s options as the CLI's flags set them.
pub fn repair_options(message: Option<&str>, keep_last_response: bool) -> msgflow_sanitize::RepairOptions {
    let mut options = msgflow_sanitize::RepairOptions::default();
    if let Some(message) = message {
        message.clone_into(&mut options.content);
    }
    options.repair_last_response = !keep_last_response;
    options
}

/// `msgflow repair` (with `--provider`, `repair --provider P`): the history and the `--report`
/// document.
pub fn repair(
    data: &[u8],
    provider_name: Option<&str>,
    message: Option<&str>,
    keep_last_response: bool,
    resolve_remaining: bool,
) -> Result<(Vec<u8>, String), Error> {
    let provider = provider_name.map(provider).transpose()?;
    let mut options = repair_options(message, keep_last_response);
    options.resolve_remaining = resolve_remaining;
    let repaired = repair_history(data, provider, &options)?;
    Ok((repaired.history, repaired.report))
}

/// [`repair`] with the provider and options already chosen.
pub fn repair_history(
    data: &[u8],
    provider: Option<Provider>,
    options: &msgflow_sanitize::RepairOptions,
) -> Result<Repaired, Error> {
    let history = parse(data)?;
    if let Some(provider) = provider {
        let repaired = msgflow_providers::repair(history, provider, options).map_err(Error::Export)?;
        let report = to_json(&RepairDocument {
            provider: Some(provider.name()),
            changes: &repaired.report.changes,
            remaining: None,
            provider_changes: Some(&repaired.provider_changes),
            unfixed: Some(&repaired.unfixed),
        })?;
        return Ok(Repaired {
            history: write(&repaired.history)?,
            report,
            changes: repaired.report.changes.len() + repaired.provider_changes.len(),
        });
    }
    let repaired = msgflow_sanitize::repair(history, options);
    let remaining = msgflow_sanitize::remaining(&repaired.history, options);
    let report = to_json(&RepairDocument {
        provider: None,
        changes: &repaired.report.changes,
        remaining: Some(&remaining),
        provider_changes: None,
        unfixed: None,
    })?;
    Ok(Repaired {
        history: write(&repaired.history)?,
        report,
        changes: repaired.report.changes.len(),
    })
}

/// The counter `tokenizer` names for `history` (`calibrated` needs a recorded input-token count),
/// as `msgflow trim --tokenizer` and `msgflow stats --tokens --tokenizer` choose it.
fn counter_for(name: &str, history: &[ModelMessage]) -> Result<TokenCounter, Error> {
    if name == "calibrated" {
        return TokenCounter::calibrated(history)
            .map(|(counter, _)| counter)
            .ok_or_else(|| {
                Error::Value(
                    "tokenizer='calibrated': no response in the history records usage.input_tokens to calibrate on"
                        .to_owned(),
                )
            });
    }
    let tokenizer: Tokenizer = name.parse().map_err(Error::Value)?;
    Ok(TokenCounter::new(tokenizer))
}

fn count(history: &[ModelMessage], counter: &TokenCounter) -> usize {
    history.iter().map(|message| counter.count_message(message)).sum()
}

/// The error of a trim: `DoesNotFit` when the newest turn is over the budget.
pub(crate) fn trim_error(err: TrimError) -> Error {
    match err {
        TrimError::NewestTurnTooLarge {
            needed, limit, unit, ..
        } => Error::DoesNotFit {
            message: err.to_string(),
            needed,
            limit,
            unit,
        },
        TrimError::NoTurns => Error::Value("keep_turns must be 1 or more".to_owned()),
    }
}

/// What `msgflow trim` takes, by the Python names of its flags.
pub struct TrimOptions<'a> {
    /// `--max-tokens`.
    pub max_tokens: Option<usize>,
    /// `--keep-turns`.
    pub keep_turns: Option<usize>,
    /// `--max-bytes`.
    pub max_bytes: Option<usize>,
    /// `--tokenizer`.
    pub tokenizer: &'a str,
    /// `--clear-tool-results-older-than`.
    pub clear_tool_results_older_than: Option<usize>,
    /// `--clamp-parts`.
    pub clamp_parts: Option<usize>,
    /// `--harness-clear KEEP_PAIRS`: pydantic-ai-harness's `ClearToolResults(keep_pairs=...)`.
    pub harness_clear: Option<usize>,
    /// `--harness-clamp MAX_PART_CHARS`: pydantic-ai-harness's `ClampOversizedMessages(max_part_chars=...)`.
    pub harness_clamp: Option<usize>,
}

impl TrimOptions<'_> {
    fn budget(&self) -> Result<Option<Budget>, Error> {
        match (self.max_tokens, self.keep_turns, self.max_bytes) {
            (None, None, None) => Ok(None),
            (Some(tokens), None, None) => Ok(Some(Budget::Tokens(tokens))),
            (None, Some(turns), None) => Ok(Some(Budget::Turns(turns))),
            (None, None, Some(bytes)) => Ok(Some(Budget::Bytes(bytes))),
            _ => Err(Error::Value(
                "give one budget: max_tokens, keep_turns or max_bytes".to_owned(),
            )),
        }
    }
}

/// The size `msgflow trim` reports each step in: tokens for a token budget (or none), else the
/// bytes of the written history.
fn size(history: &[ModelMessage], counter: &TokenCounter, unit: &str) -> usize {
    if unit == "bytes" {
        let messages: usize = history.iter().map(trim::message_bytes).sum();
        2 + messages + history.len().saturating_sub(1)
    } else {
        count(history, counter)
    }
}

/// One step of `trim --report`: its size before and after, in the budget's unit.
#[derive(Serialize)]
struct Step {
    step: &'static str,
    unit: &'static str,
    before: usize,
    after: usize,
}

/// `trim --report`'s document.
#[derive(Serialize)]
struct TrimDocument {
    #[serde(skip_serializing_if = "Option::is_none")]
    cleared: Option<Vec<clear::ClearedResult>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    harness_cleared: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clamped: Option<Vec<clamp::ClampedPart>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    harness_clamped: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trim: Option<trim::TrimReport>,
    steps: Vec<Step>,
}

/// What the binding's `trim` reports: the token counts and `trim --report`'s document.
#[derive(Serialize)]
struct Trimmed<'a> {
    tokenizer: &'a str,
    tokens_before: usize,
    tokens_after: usize,
    report: TrimDocument,
}

/// What `trim` made of one history.
#[derive(Debug)]
pub struct TrimmedHistory {
    /// The trimmed history's JSON.
    pub history: Vec<u8>,
    /// The tokens before and after and `trim --report`'s document under `report`.
    pub report: String,
    /// The history's tokens before.
    pub tokens_before: usize,
    /// The trimmed history's tokens.
    pub tokens_after: usize,
}

impl TrimOptions<'_> {
    /// The arguments' own errors, before any history is read: no budget and no step, two
    /// budgets, or a tokenizer msgflow does not have.
    pub fn validate(&self) -> Result<Option<Budget>, Error> {
        let budget = self.budget()?;
        let no_step = self.clear_tool_results_older_than.is_none()
            && self.clamp_parts.is_none()
            && self.harness_clear.is_none()
            && self.harness_clamp.is_none();
        if budget.is_none() && no_step {
            return Err(Error::Value(
                "trim needs a budget (max_tokens, keep_turns or max_bytes) or a step \
                 (clear_tool_results_older_than, clamp_parts, harness_clear, harness_clamp)"
                    .to_owned(),
            ));
        }
        // The ranges `msgflow trim`'s flags accept.
        if self.clamp_parts.is_some_and(|bytes| bytes < clamp::MIN_CLAMP_BYTES) {
            return Err(Error::Value(format!(
                "clamp_parts must be {} or more",
                clamp::MIN_CLAMP_BYTES
            )));
        }
        if self.harness_clamp == Some(0) {
            return Err(Error::Value("harness_clamp must be 1 or more".to_owned()));
        }
        validate_tokenizer(self.tokenizer)?;
        Ok(budget)
    }
}

/// Fails for a tokenizer name msgflow does not have (`calibrated` is one: each history says
/// whether it can calibrate).
pub fn validate_tokenizer(name: &str) -> Result<(), Error> {
    if name == "calibrated" {
        return Ok(());
    }
    name.parse::<Tokenizer>().map(drop).map_err(Error::Value)
}

/// `msgflow trim`: clear, clamp, then keep the newest whole turns that fit. The report holds the
/// tokens before and after and the CLI's `--report` document under `report`.
pub fn trim(data: &[u8], options: &TrimOptions<'_>) -> Result<TrimmedHistory, Error> {
    let budget = options.validate()?;
    let mut history = parse(data)?;
    let counter = counter_for(options.tokenizer, &history)?;
    let unit = match budget {
        Some(Budget::Bytes(_) | Budget::Turns(_)) => "bytes",
        Some(Budget::Tokens(_)) | None => "tokens",
    };
    let tokens_before = count(&history, &counter);
    let mut before = if unit == "tokens" {
        tokens_before
    } else {
        size(&history, &counter, unit)
    };
    let mut report = TrimDocument {
        cleared: None,
        harness_cleared: None,
        clamped: None,
        harness_clamped: None,
        trim: None,
        steps: Vec::new(),
    };
    let mut step = |name: &'static str, history: &[ModelMessage], steps: &mut Vec<Step>| {
        let after = size(history, &counter, unit);
        steps.push(Step {
            step: name,
            unit,
            before,
            after,
        });
        before = after;
    };
    if let Some(keep_turns) = options.clear_tool_results_older_than {
        report.cleared = Some(clear::clear_tool_results(&mut history, keep_turns));
        step("clear-tool-results", &history, &mut report.steps);
    }
    if let Some(keep_pairs) = options.harness_clear {
        let harness = clear::HarnessClear {
            keep_pairs,
            ..Default::default()
        };
        report.harness_cleared = Some(clear::clear_like_harness(&mut history, &harness));
        step("harness-clear", &history, &mut report.steps);
    }
    if let Some(max_bytes) = options.clamp_parts {
        report.clamped = Some(clamp::clamp_parts(&mut history, max_bytes));
        step("clamp-parts", &history, &mut report.steps);
    }
    if let Some(max_part_chars) = options.harness_clamp {
        let harness = clamp::HarnessClamp {
            max_part_chars: Some(max_part_chars),
            ..Default::default()
        };
        report.harness_clamped = Some(clamp::clamp_like_harness(&mut history, &harness));
        step("harness-clamp", &history, &mut report.steps);
    }
    if let Some(budget) = budget {
        let trimmed = trim::trim(history, budget, &counter).map_err(trim_error)?;
        history = trimmed.history;
        report.trim = Some(trimmed.report);
        step("trim", &history, &mut report.steps);
    }
    // In tokens, the last step's size is the count after; in bytes, count once more.
    let tokens_after = match report.steps.last() {
        Some(last) if unit == "tokens" => last.after,
        _ => count(&history, &counter),
    };
    let document = Trimmed {
        tokenizer: options.tokenizer,
        tokens_before,
        tokens_after,
        report,
    };
    Ok(TrimmedHistory {
        history: write(&history)?,
        report: to_json(&document)?,
        tokens_before,
        tokens_after,
    })
}

/// `msgflow stats --tokens --json`: the total, each message's tokens, and tokens by part kind.
pub fn count_tokens(data: &[u8], tokenizer: &str) -> Result<String, Error> {
    count_history_tokens(data, tokenizer).map(|(_, document)| document)
}

/// [`count_tokens`]: the total and the document.
pub fn count_history_tokens(data: &[u8], tokenizer: &str) -> Result<(usize, String), Error> {
    let history = parse(data)?;
    let counter = counter_for(tokenizer, &history)?;
    let tag = |tag: Option<std::borrow::Cow<'_, str>>| tag.map_or_else(|| "unknown".to_owned(), |tag| tag.into_owned());
    let mut by_part_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut messages = Vec::with_capacity(history.len());
    for (index, message) in history.iter().enumerate() {
        let kind = match message {
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    *by_part_kind.entry(tag(part.tag())).or_default() += counter.count_request_part(part);
                }
                if let Some(text) = request.instructions.get() {
                    *by_part_kind.entry("instructions".to_owned()).or_default() += counter.count_instructions(text);
                }
                "request"
            }
            ModelMessage::Response(response) => {
                for part in &response.parts {
                    *by_part_kind.entry(tag(ModelResponsePart::tag(part))).or_default() +=
                        counter.count_response_part(part);
                }
                "response"
            }
        };
        messages.push(json!({"index": index, "kind": kind, "tokens": counter.count_message(message)}));
    }
    let total: usize = history.iter().map(|message| counter.count_message(message)).sum();
    let document = to_json(&json!({
        "tokenizer": tokenizer,
        "total": total,
        "by_part_kind": by_part_kind,
        "messages": messages,
    }))?;
    Ok((total, document))
}

/// A provider request, and what `msgflow export` notes on stderr about it.
pub struct Exported {
    /// The request pydantic-ai would send, as JSON.
    pub request: String,
    /// The note on tool parts the request names by ids msgflow made up
    /// ([`msgflow_providers::InventedIds`]), `None` when every tool part has an id.
    pub invented_ids: Option<String>,
}

/// `msgflow export --to P`: the request, as JSON, and the note on made-up ids.
pub fn export(data: &[u8], to: &str, profile: &Profile<'_>) -> Result<Exported, Error> {
    let provider = provider(to)?;
    let options = profile.options(Some(provider))?;
    export_history(data, provider, &options)
}

/// [`export`] with the provider and its options already chosen.
pub fn export_history(data: &[u8], provider: Provider, options: &ExportOptions) -> Result<Exported, Error> {
    let history = parse(data)?;
    let request = msgflow_providers::export_with(&history, provider, options).map_err(Error::Export)?;
    let invented = msgflow_providers::InventedIds::of(&history);
    Ok(Exported {
        request: to_json(&request)?,
        invented_ids: (!invented.is_empty()).then(|| invented.to_string()),
    })
}

/// `msgflow fmt`: the history as pydantic-ai 2.68's `dump_json` writes it.
pub fn fmt(data: &[u8]) -> Result<Vec<u8>, Error> {
    write(&parse(data)?)
}

/// `msgflow assemble`: the messages a streamed run's event log (JSON Lines) records, after
/// `history`, and the report (`assemble --json`).
pub fn assemble(
    events: &str,
    history: Option<&[u8]>,
    timestamp: &str,
    model_name: Option<String>,
    provider_name: Option<String>,
) -> Result<(Vec<u8>, String), Error> {
    let mut history = history.map(parse).transpose()?.unwrap_or_default();
    let timestamp = msgflow_wire::Timestamp::parse(timestamp)
        .map_err(|err| Error::Value(format!("timestamp {timestamp:?}: {err}")))?;
    let options = msgflow_stream::AssembleOptions {
        timestamp: Some(timestamp),
        model_name,
        provider_name,
    };
    let log =
        msgflow_stream::read_log(events).map_err(|err| Error::Value(format!("not a pydantic-ai event log: {err}")))?;
    let assembly = msgflow_stream::assemble(&log, &options)
        .map_err(|err| Error::Value(format!("the events do not make a response: {err}")))?;
    let report = to_json(&assembly.report)?;
    history.extend(assembly.messages);
    Ok((write(&history)?, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const SESSION: &[u8] = include_bytes!("../../../examples/interrupted-session.json");

    #[test]
    fn repair_answers_the_dangling_calls_that_check_reports() -> Result<(), String> {
        let report: Value = serde_json::from_str(
            &check(SESSION, None, &Profile::default())
                .map_err(|e| format!("{e:?}"))?
                .document,
        )
        .map_err(|e| e.to_string())?;
        assert_eq!(report["valid"], false);
        assert_eq!(report["violations"][0]["kind"], "dangling-call");
        assert_eq!(report["violations"][0]["path"], "$[5].parts[1]");
        let (repaired, _) = repair(SESSION, None, None, false, false).map_err(|e| format!("{e:?}"))?;
        let report: Value = serde_json::from_str(
            &check(&repaired, None, &Profile::default())
                .map_err(|e| format!("{e:?}"))?
                .document,
        )
        .map_err(|e| e.to_string())?;
        assert_eq!(report["valid"], true, "{report}");
        Ok(())
    }

    #[test]
    fn a_budget_below_the_newest_turn_does_not_fit() {
        let options = TrimOptions {
            max_tokens: Some(1),
            keep_turns: None,
            max_bytes: None,
            tokenizer: "o200k_base",
            clear_tool_results_older_than: None,
            clamp_parts: None,
            harness_clear: None,
            harness_clamp: None,
        };
        assert!(matches!(
            trim(SESSION, &options),
            Err(Error::DoesNotFit { limit: 1, .. })
        ));
    }

    #[test]
    fn what_is_not_json_is_a_parse_error() {
        assert!(matches!(fmt(b"[{"), Err(Error::Parse(_))));
    }
}
