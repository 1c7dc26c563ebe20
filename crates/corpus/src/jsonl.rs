//! JSON Lines corpora: one history per line, or one object per line with the history in a field.
//!
//! Lines are read as bytes and split on `\n` (a `\r` before it belongs to the terminator), so a
//! line that is not UTF-8 or not JSON is one bad row. Blank lines are not rows; a rewritten corpus
//! keeps them, and every line's terminator, as they were.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, Write};

use serde_json::value::RawValue;

use crate::{CorpusError, Edit, Options, Row, RowError, RowLocation, Slot};

/// Reads lines into batches.
pub(crate) struct JsonLinesReader {
    input: Box<dyn BufRead + Send>,
    field: Option<String>,
    id_field: Option<String>,
    batch_rows: usize,
    batch_bytes: usize,
    next_line: u64,
    next_row: u64,
    done: bool,
}

impl JsonLinesReader {
    pub(crate) fn new(input: Box<dyn BufRead + Send>, options: &Options) -> Result<Self, CorpusError> {
        if options.column.is_some() {
            return Err(CorpusError::Usage(
                "--column names a Parquet column; in JSON Lines the history's field is --field".to_owned(),
            ));
        }
        if options.id_column.is_some() && options.field.is_none() {
            return Err(CorpusError::Usage(
                "--id-column needs --field in JSON Lines: a line that is itself a history has no other field to \
                 name it"
                    .to_owned(),
            ));
        }
        Ok(JsonLinesReader {
            input,
            field: options.field.clone(),
            id_field: options.id_column.clone(),
            batch_rows: options.batch_rows.max(1),
            batch_bytes: options.batch_bytes.max(1),
            next_line: 1,
            next_row: 0,
            done: false,
        })
    }

    pub(crate) fn next_batch(&mut self) -> Result<Option<LineBatch>, CorpusError> {
        if self.done {
            return Ok(None);
        }
        let mut batch = LineBatch {
            lines: Vec::new(),
            rows: Vec::new(),
            field: self.field.clone(),
            id_field: self.id_field.clone(),
            bytes: 0,
        };
        while batch.rows.len() < self.batch_rows && batch.bytes < self.batch_bytes as u64 {
            let mut text = Vec::new();
            let read = self.input.read_until(b'\n', &mut text)?;
            if read == 0 {
                self.done = true;
                break;
            }
            batch.bytes += read as u64;
            let terminator = if text.ends_with(b"\r\n") {
                text.truncate(text.len() - 2);
                Terminator::CrLf
            } else if text.ends_with(b"\n") {
                text.truncate(text.len() - 1);
                Terminator::Lf
            } else {
                Terminator::None
            };
            let row = if text.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                let row = self.next_row;
                self.next_row += 1;
                batch.rows.push(batch.lines.len());
                Some(row)
            };
            batch.lines.push(Line {
                text,
                terminator,
                number: self.next_line,
                row,
            });
            self.next_line += 1;
        }
        if batch.lines.is_empty() {
            return Ok(None);
        }
        Ok(Some(batch))
    }
}

#[derive(Clone, Copy, Debug)]
enum Terminator {
    None,
    Lf,
    CrLf,
}

impl Terminator {
    fn bytes(self) -> &'static [u8] {
        match self {
            Terminator::None => b"",
            Terminator::Lf => b"\n",
            Terminator::CrLf => b"\r\n",
        }
    }
}

#[derive(Debug)]
struct Line {
    text: Vec<u8>,
    terminator: Terminator,
    number: u64,
    /// The row index, or `None` for a blank line.
    row: Option<u64>,
}

/// Consecutive lines of a JSON Lines corpus.
#[derive(Debug)]
pub struct LineBatch {
    lines: Vec<Line>,
    /// Indices into `lines` of the lines that are rows.
    rows: Vec<usize>,
    field: Option<String>,
    id_field: Option<String>,
    bytes: u64,
}

impl LineBatch {
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn input_bytes(&self) -> u64 {
        self.bytes
    }

    /// The text of the `index`th row's line (without its terminator).
    pub(crate) fn line_text(&self, index: usize) -> &[u8] {
        &self.lines[self.rows[index]].text
    }

    pub(crate) fn row(&self, index: usize) -> Row<'_> {
        let line = &self.lines[self.rows[index]];
        let mut location = RowLocation {
            row: line.row.unwrap_or_default(),
            line: Some(line.number),
            id: None,
        };
        let Some(field) = &self.field else {
            return Row {
                location,
                content: Ok(Cow::Borrowed(&line.text)),
                slot: Slot::Whole,
            };
        };
        if self.id_field.is_some() {
            location.id = Some(serde_json::Value::Null);
        }
        let object = match serde_json::from_slice::<HashMap<String, &RawValue>>(&line.text) {
            Ok(object) => object,
            Err(err) => {
                return Row {
                    location,
                    content: Err(RowError::new(format!(
                        "the line is not a JSON object (--field {field} needs one per line): {err}"
                    ))),
                    slot: Slot::Whole,
                }
            }
        };
        if let Some(id_field) = &self.id_field {
            if let Some(raw) = object.get(id_field) {
                location.id = serde_json::from_str(raw.get()).ok();
            }
        }
        let (content, slot) = field_content(&line.text, &object, field);
        Row {
            location,
            content,
            slot,
        }
    }
}

/// The history in `field` of a line's `object` (parsed from `text`), and where it sits.
fn field_content<'a>(
    text: &'a [u8],
    object: &HashMap<String, &'a RawValue>,
    field: &str,
) -> (Result<Cow<'a, [u8]>, RowError>, Slot) {
    let Some(raw) = object.get(field) else {
        return (
            Err(RowError::new(format!("the line's object has no field {field:?}"))),
            Slot::Whole,
        );
    };
    let value = raw.get();
    // The raw value borrows from `text`: its offset there is where the history goes back.
    let start = value.as_ptr() as usize - text.as_ptr() as usize;
    let end = start + value.len();
    match value.as_bytes().first() {
        Some(b'[') => (
            Ok(Cow::Borrowed(&text[start..end])),
            Slot::Field {
                start,
                end,
                string: false,
            },
        ),
        Some(b'"') => match serde_json::from_str::<String>(value) {
            Ok(json) => (
                Ok(Cow::Owned(json.into_bytes())),
                Slot::Field {
                    start,
                    end,
                    string: true,
                },
            ),
            Err(err) => (Err(RowError::new(format!("field {field:?}: {err}"))), Slot::Whole),
        },
        first => {
            let kind = match first {
                Some(b'n') => "null",
                Some(b't' | b'f') => "a boolean",
                Some(b'{') => "an object",
                _ => "a number",
            };
            (
                Err(RowError::new(format!(
                    "field {field:?} is {kind}; expected the history: an array of messages, or a string of its JSON"
                ))),
                Slot::Whole,
            )
        }
    }
}

/// Writes lines back, changed as the edits say.
pub(crate) struct JsonLinesWriter {
    output: std::io::BufWriter<Box<dyn Write + Send>>,
}

impl JsonLinesWriter {
    pub(crate) fn new(output: Box<dyn Write + Send>) -> Self {
        JsonLinesWriter {
            output: std::io::BufWriter::with_capacity(1 << 16, output),
        }
    }

    pub(crate) fn write(&mut self, batch: &LineBatch, edits: &[Edit]) -> Result<(), CorpusError> {
        let mut edits = edits.iter();
        for line in &batch.lines {
            let text: &[u8] = if line.row.is_some() {
                match edits.next() {
                    Some(Edit::Drop) => continue,
                    Some(Edit::Replace(new)) => new,
                    Some(Edit::Keep) | None => &line.text,
                }
            } else {
                &line.text
            };
            self.output.write_all(text)?;
            self.output.write_all(line.terminator.bytes())?;
        }
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Result<(), CorpusError> {
        self.output.flush()?;
        Ok(())
    }
}
