//! What msgflow makes of one row: the functions a caller with one history's bytes uses (the
//! Python package's Arrow functions), shaped for serialisation. `msgflow check --json` writes
//! [`CheckReport`] for a file and, with the row's location first, for each row of a corpus.

use serde::Serialize;

use msgflow_sanitize::{Note, RepairOptions, Violation};
use msgflow_wire::{ModelMessage, ParseError};

/// What `check` finds in one history (`msgflow check --json` for one file, or one corpus row).
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// No violations at all.
    pub valid: bool,
    /// pydantic-ai 2.68.0's `ModelMessagesTypeAdapter.validate_json` would load the history (a
    /// dangling call loads, yet is a violation).
    pub pydantic_ai_loadable: bool,
    /// The number of turns (`msgflow_sanitize::Turns`, the cut points `trim` uses).
    pub turns: usize,
    /// Every violation, with the turn it is in.
    pub violations: Vec<LocatedViolation>,
    /// The merges pydantic-ai's repair makes in a history nothing is wrong with.
    pub notes: Vec<Note>,
    /// pydantic's error `type` of each reason pydantic-ai would refuse the history for (the
    /// verdict's reasons, in order; empty when it loads). Not part of the JSON: corpus summaries
    /// count them.
    #[serde(skip)]
    pub error_types: Vec<String>,
}

/// A violation and the turn it is in.
#[derive(Clone, Debug, Serialize)]
pub struct LocatedViolation {
    /// The violation, as `msgflow_sanitize::check` reports it.
    #[serde(flatten)]
    pub violation: Violation,
    /// The 0-based turn of its message (a message before the first turn counts in turn 0).
    pub turn: usize,
}

impl CheckReport {
    /// The problem codes of the violations (`dangling-call`, `not-loadable`, ...), each once, in
    /// the order they first occur.
    pub fn problem_codes(&self) -> Vec<String> {
        let mut codes: Vec<String> = Vec::new();
        for located in &self.violations {
            let code = kind_code(&located.violation);
            if !codes.contains(&code) {
                codes.push(code);
            }
        }
        codes
    }
}

fn kind_code(violation: &Violation) -> String {
    serde_json::to_value(violation.kind)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Checks a history msgflow read from `input` (its text, for line and column of each reason;
/// `None` when the bytes were not text).
pub fn check_history(history: &[ModelMessage], input: Option<&str>) -> CheckReport {
    let (violations, mut error_types) = msgflow_sanitize::check_with_error_types(history, input);
    let loadable = !violations.iter().any(|violation| violation.kind.refuses_loading());
    if loadable {
        error_types.clear();
    }
    let turns = msgflow_sanitize::Turns::of(history);
    let violations = violations
        .into_iter()
        .map(|violation| {
            let turn = turns
                .starts()
                .partition_point(|&start| start <= violation.message_index)
                .saturating_sub(1);
            LocatedViolation { violation, turn }
        })
        .collect::<Vec<_>>();
    CheckReport {
        valid: violations.is_empty(),
        pydantic_ai_loadable: loadable,
        turns: turns.len(),
        violations,
        notes: msgflow_sanitize::normalisations(history),
        error_types,
    }
}

/// Why a row's bytes are not a history msgflow reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RowFailure {
    /// What is wrong and where (JSON path, line and column within the row), as `msgflow check`
    /// prints it.
    pub error: String,
    /// pydantic's error types for the row, each once (`json_invalid` for bytes that are not
    /// JSON, `list_type`, `union_tag_invalid`, `missing`... for JSON that is not a history: see
    /// [`crate::refusal`]); empty when msgflow does not know. Not part of the JSON.
    #[serde(skip)]
    pub error_types: Vec<String>,
}

impl RowFailure {
    /// The failure for a row's `bytes`, which msgflow could not read as a history (`err`).
    pub fn of_row(bytes: &[u8], err: &ParseError) -> Self {
        RowFailure {
            error: format!("not a pydantic-ai message history: {err}"),
            error_types: crate::refusal::error_types(bytes, err),
        }
    }
}

/// The outcome of [`check_row`]: serialises to `check --json`'s fields, or to `{"error": ...}`.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum RowCheck {
    /// The row is a history; what check found.
    Checked(CheckReport),
    /// The row is not a history msgflow reads.
    Unreadable(RowFailure),
}

impl RowCheck {
    /// Whether pydantic-ai 2.68.0 would load the row (`false` for a row that is not JSON or not
    /// the shape of a history, which pydantic-ai refuses too).
    pub fn pydantic_ai_loadable(&self) -> bool {
        match self {
            RowCheck::Checked(report) => report.pydantic_ai_loadable,
            RowCheck::Unreadable(_) => false,
        }
    }
}

fn parse(bytes: &[u8]) -> Result<(msgflow_wire::Input, Vec<ModelMessage>), RowFailure> {
    let input = msgflow_wire::Input::from_vec(bytes.to_vec()).map_err(|err| RowFailure::of_row(bytes, &err))?;
    let history = input.parse().map_err(|err| RowFailure::of_row(bytes, &err))?;
    Ok((input, history))
}

/// Checks one row's history JSON (`msgflow check --json` on it).
pub fn check_row(bytes: &[u8]) -> RowCheck {
    match parse(bytes) {
        Ok((input, history)) => RowCheck::Checked(check_history(&history, Some(input.as_str()))),
        Err(failure) => RowCheck::Unreadable(failure),
    }
}

/// What [`repair_row`] made of a row.
#[derive(Clone, Debug, Serialize)]
pub struct RepairedRow {
    /// The repaired history's JSON (pydantic-ai's compact form).
    #[serde(skip)]
    pub json: Vec<u8>,
    /// How many changes the repair made (each is in `msgflow repair`'s report).
    pub changes: usize,
    /// How many problems `check` still finds in the output.
    pub remaining: usize,
    /// Whether pydantic-ai 2.68.0 would load the output.
    pub pydantic_ai_loadable: bool,
}

/// Repairs one row's history JSON as `msgflow repair` does (pydantic-ai's `repair_messages`).
pub fn repair_row(bytes: &[u8], options: &RepairOptions) -> Result<RepairedRow, RowFailure> {
    let (_input, history) = parse(bytes)?;
    let repaired = msgflow_sanitize::repair(history, options);
    let remaining = msgflow_sanitize::remaining(&repaired.history, options).len();
    let loadable = msgflow_wire::verdict::verdict(&repaired.history).is_loadable();
    let json = msgflow_wire::to_vec(&repaired.history).map_err(|err| RowFailure {
        error: format!("cannot serialise the repaired history: {err}"),
        error_types: Vec::new(),
    })?;
    Ok(RepairedRow {
        json,
        changes: repaired.report.changes.len(),
        remaining,
        pydantic_ai_loadable: loadable,
    })
}
