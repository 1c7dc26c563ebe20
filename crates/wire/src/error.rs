//! Errors of reading and writing histories.

use std::fmt;

/// What kind of problem stopped parsing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseErrorCategory {
    /// The input is not valid JSON (or not UTF-8).
    Syntax,
    /// The input ended in the middle of a value.
    Eof,
    /// Valid JSON that is not a pydantic-ai history (a wrong type, a missing key, an unknown
    /// message kind, ...).
    Data,
    /// Reading the input failed.
    Io,
    /// The input exceeds a configured limit.
    Limit,
}

/// Why a history could not be read, and where.
///
/// ```
/// let err = msgflow_wire::from_str(r#"[{"kind":"request","parts":[{"part_kind":"user-prompt"}]}]"#).unwrap_err();
/// assert_eq!(err.path(), "$[0].parts[0]");
/// assert!(err.message().contains("missing required key `content`"));
/// // Located at the part: its first value.
/// assert_eq!((err.line(), err.column()), (1, 42));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub(crate) category: ParseErrorCategory,
    pub(crate) path: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

impl ParseError {
    /// The kind of problem.
    pub fn category(&self) -> ParseErrorCategory {
        self.category
    }

    /// The JSON path of the value being read, e.g. `$[3].parts[1].timestamp`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// 1-based line in the input (0 when unknown).
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column (in bytes) in the input (0 when unknown).
    pub fn column(&self) -> usize {
        self.column
    }

    /// What was wrong and what was expected.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn new(category: ParseErrorCategory, message: impl Into<String>) -> Self {
        ParseError {
            category,
            path: "$".to_owned(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "at {}: {}", self.path, self.message)
        } else {
            write!(
                f,
                "at {} (line {}, column {}): {}",
                self.path, self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for ParseError {}

/// Why a history could not be written (only I/O can fail).
#[derive(Debug, thiserror::Error)]
#[error("cannot write the history: {0}")]
pub struct WriteError(#[from] pub(crate) serde_json::Error);
