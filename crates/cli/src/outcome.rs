//! Exit statuses and the errors a command reports for one input.

use std::fmt;
use std::path::Path;

use msgflow_wire::{ParseError, ParseErrorCategory};

/// How a run (or one file of a batch) ended. Ordered from best to worst, so the exit status of
/// a batch is the maximum over its files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Exit 0: the input is valid and nothing is wrong with it.
    #[default]
    Ok,
    /// Exit 1: the input is a valid history, but the command found problems in it.
    Problems,
    /// Exit 2: invalid input, a usage error, or a file that could not be read or written.
    Invalid,
}

impl Status {
    /// The process exit code of this status.
    pub fn code(self) -> u8 {
        match self {
            Status::Ok => 0,
            Status::Problems => 1,
            Status::Invalid => 2,
        }
    }

    /// A short lower-case word for summaries and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Problems => "problems",
            Status::Invalid => "invalid",
        }
    }
}

/// The exit-code table, as a literal so `concat!` can put it into clap's `after_help`.
macro_rules! exit_codes_text {
    () => {
        "Exit codes:
  0  success: the input is a history msgflow reads (and, for checking commands, has no problems)
  1  the input is a history msgflow reads, but problems were found in it (in batch mode: in at least
     one file); a history pydantic-ai would not load is such a problem when msgflow reads it
  2  invalid input (not JSON, or JSON msgflow cannot read as a pydantic-ai history), a usage error,
     a file that cannot be read or written, or --strict refusing output pydantic-ai would not load
  `check --require-loadable` exits 1 exactly when pydantic-ai 2.68.0 would not load the input,
  whether msgflow reads it or not"
    };
}

/// The exit-code table shown in `--help` (kept in one place so every subcommand says the same).
#[cfg(test)]
pub const EXIT_CODES_HELP: &str = exit_codes_text!();

/// Why a command could not process one input: what went wrong and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The exit status this failure leads to.
    pub status: Status,
    /// What went wrong, including where (JSON path, line and column) when known.
    pub message: String,
    /// What the user can do about it.
    pub hint: Option<String>,
    /// The error, when the input could not be read as a history: a corpus counts pydantic-ai's
    /// error types from it without parsing the row a second time.
    pub parse_error: Option<Box<ParseError>>,
}

impl Failure {
    /// A failure with exit status 2 (invalid input, unreadable or unwritable file).
    pub fn invalid(message: impl Into<String>, hint: impl Into<Option<String>>) -> Self {
        Failure {
            status: Status::Invalid,
            message: message.into(),
            hint: hint.into(),
            parse_error: None,
        }
    }

    /// The failure for input that msgflow_wire could not read as a history; the hint depends on
    /// whether the JSON itself is broken or only its shape.
    pub fn from_parse_error(err: &ParseError) -> Self {
        let hint = match err.category() {
            ParseErrorCategory::Syntax => {
                "the input is not valid JSON: fix the syntax at that line and column".to_owned()
            }
            ParseErrorCategory::Eof => {
                "the input ends in the middle of a value: the file is probably truncated; restore it from the \
                 source that wrote it"
                    .to_owned()
            }
            ParseErrorCategory::Data => format!(
                "the input is valid JSON but not a pydantic-ai message history: fix the value at {} \
                 (`msgflow schema wire` prints the expected shape)",
                err.path()
            ),
            ParseErrorCategory::Io => "check that the input can be read".to_owned(),
            ParseErrorCategory::Limit => "the input exceeds a limit; split it or raise the limit".to_owned(),
        };
        Failure {
            parse_error: Some(Box::new(err.clone())),
            ..Failure::invalid(format!("not a pydantic-ai message history: {err}"), Some(hint))
        }
    }

    /// The failure for an input file that cannot be read.
    pub fn unreadable(path: &Path, err: &std::io::Error) -> Self {
        Failure::invalid(
            format!("cannot read {}: {err}", path.display()),
            Some("check that the file exists and is readable".to_owned()),
        )
    }

    /// The failure for an output that cannot be written; the input is never touched in that case.
    pub fn unwritable(path: &Path, err: &std::io::Error) -> Self {
        Failure::invalid(
            format!("cannot write {}: {err}", path.display()),
            Some(
                "check that the directory exists and is writable; nothing was changed (the input is intact)".to_owned(),
            ),
        )
    }

    /// Renders the failure for stderr, naming the input it concerns.
    pub fn render(&self, label: &str) -> String {
        let mut text = format!("msgflow: error: {label}: {}\n", self.message);
        if let Some(hint) = &self.hint {
            text.push_str(&format!("  help: {hint}\n"));
        }
        text
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Prints a usage error (exit status 2) that concerns no particular input.
pub fn usage_error(message: &str, hint: Option<&str>) -> Status {
    eprintln!("msgflow: error: {message}");
    if let Some(hint) = hint {
        eprintln!("  help: {hint}");
    }
    Status::Invalid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_status_is_the_maximum() {
        assert_eq!(
            [Status::Ok, Status::Invalid, Status::Problems].into_iter().max(),
            Some(Status::Invalid)
        );
        assert_eq!(Status::Problems.code(), 1);
    }

    #[test]
    fn parse_failures_name_the_path_and_a_remedy() {
        let err = msgflow_wire::from_str(r#"[{"kind":"request","parts":[{"part_kind":"user-prompt"}]}]"#)
            .expect_err("a part without content is invalid");
        let failure = Failure::from_parse_error(&err);
        assert_eq!(failure.status, Status::Invalid);
        let text = failure.render("a.json");
        assert!(text.contains("a.json: not a pydantic-ai message history: at $[0].parts[0] (line 1, column "));
        assert!(text.contains("fix the value at $[0].parts[0]"), "{text}");
    }
}
