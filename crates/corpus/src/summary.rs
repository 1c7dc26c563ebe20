//! The last line of a corpus report: how many rows ended how, and which problems they have.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::row::RowCheck;

/// How one row ended (the exit statuses of one file: 0, 1, 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowStatus {
    /// Nothing is wrong with the row.
    Ok,
    /// The row is a history with problems.
    Problems,
    /// The row holds no history msgflow reads, or the command failed on it.
    Invalid,
}

/// Counts over a corpus's rows. Codes and error types count rows: a row with three dangling
/// calls counts once under `dangling-call`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rows read.
    pub rows: u64,
    /// Rows with nothing wrong.
    pub ok: u64,
    /// Rows that are histories with problems.
    pub problems: u64,
    /// Rows that hold no history msgflow reads (or that the command failed on).
    pub invalid: u64,
    /// Rows per problem code (`msgflow check`'s violation kinds).
    pub problem_codes: BTreeMap<String, u64>,
    /// Rows per pydantic error type pydantic-ai 2.68.0 would refuse them with (`json_invalid`
    /// for rows that are not JSON).
    pub pydantic_ai_error_types: BTreeMap<String, u64>,
}

impl Summary {
    /// Counts one row.
    pub fn add(&mut self, status: RowStatus, problem_codes: &[String], error_types: &[String]) {
        self.rows += 1;
        match status {
            RowStatus::Ok => self.ok += 1,
            RowStatus::Problems => self.problems += 1,
            RowStatus::Invalid => self.invalid += 1,
        }
        for code in problem_codes {
            *self.problem_codes.entry(code.clone()).or_default() += 1;
        }
        let mut seen: Vec<&String> = Vec::new();
        for error_type in error_types {
            if !seen.contains(&error_type) {
                seen.push(error_type);
                *self.pydantic_ai_error_types.entry(error_type.clone()).or_default() += 1;
            }
        }
    }

    /// Counts one row's [`crate::row::check_row`] outcome as `msgflow check` does.
    pub fn add_check(&mut self, check: &RowCheck) {
        match check {
            RowCheck::Checked(report) => {
                let status = if report.valid {
                    RowStatus::Ok
                } else {
                    RowStatus::Problems
                };
                self.add(status, &report.problem_codes(), &report.error_types);
            }
            RowCheck::Unreadable(failure) => {
                self.add(RowStatus::Invalid, &[], &failure.error_types);
            }
        }
    }
}
