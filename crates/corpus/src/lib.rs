//! Corpora of pydantic-ai histories: many histories in one file, one per row.
//!
//! Two kinds are read and written:
//!
//! * **JSON Lines** ([`jsonl`]): one history per line, or one JSON object per line holding the
//!   history in a field ([`Options::field`]), as an array or as a string of its JSON.
//! * **Parquet** ([`parquet`]): a string or binary column of history JSON ([`Options::column`]).
//!
//! A [`Reader`] yields [`Batch`]es of rows, so memory is bounded by the batch size and never by
//! the corpus size. [`run`] processes each batch's rows in parallel on rayon's pool and hands
//! the results back in row order, and, for a command that rewrites histories, a [`Writer`] writes
//! a new corpus of the same kind: every other field or column as it was, row order kept, a row
//! left unchanged or left out as its [`Edit`] says.
//!
//! Every row is located ([`RowLocation`]: its 0-based index, its 1-based line in JSON Lines, and
//! its key with [`Options::id_column`]). A row that holds no history (a malformed line, a missing
//! field, a null cell) is a [`RowError`] for that row only: it never stops the others.
//!
//! The per-row functions of [`row`] (`check_row`, `repair_row`) are what a caller without a file
//! uses, such as the Python package's Arrow functions.

mod jsonl;
mod parquet;
pub mod refusal;
pub mod row;
mod summary;

use std::borrow::Cow;
use std::fmt;
use std::io::{BufRead, Write};
use std::path::Path;

use rayon::prelude::*;

pub use summary::{RowStatus, Summary};

/// Rows per batch unless [`Options::batch_rows`] says otherwise: enough to keep two cores busy
/// between reads, few enough that a batch of typical histories stays in the tens of megabytes.
pub const DEFAULT_BATCH_ROWS: usize = 1024;

/// JSON Lines batches also end at this many bytes of lines, so a corpus of large rows keeps a
/// bounded batch too (a single row larger than this is a batch of its own).
pub const DEFAULT_BATCH_BYTES: usize = 64 << 20;

/// The kind of a corpus file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON value per line (`*.jsonl`, `*.ndjson`).
    JsonLines,
    /// An Apache Parquet file (`*.parquet`).
    Parquet,
}

impl Format {
    /// The kind a file name says (`*.jsonl`, `*.ndjson`, `*.parquet`, any case), if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "jsonl" | "ndjson" => Some(Format::JsonLines),
            "parquet" | "pq" => Some(Format::Parquet),
            _ => None,
        }
    }
}

/// How to find the histories in a corpus.
#[derive(Clone, Debug)]
pub struct Options {
    /// JSON Lines: the field of each line's object that holds the history (an array, or a string
    /// of its JSON). `None`: each line is a history.
    pub field: Option<String>,
    /// Parquet: the string or binary column of history JSON.
    pub column: Option<String>,
    /// The field (JSON Lines) or column (Parquet) whose value names each row in results.
    pub id_column: Option<String>,
    /// Rows per batch (at least 1).
    pub batch_rows: usize,
    /// JSON Lines: a batch also ends once it holds this many bytes.
    pub batch_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            field: None,
            column: None,
            id_column: None,
            batch_rows: DEFAULT_BATCH_ROWS,
            batch_bytes: DEFAULT_BATCH_BYTES,
        }
    }
}

/// Where a row is: what results and messages name.
#[derive(Clone, Debug, PartialEq)]
pub struct RowLocation {
    /// 0-based index among the rows (JSON Lines: blank lines are not rows).
    pub row: u64,
    /// 1-based line number (JSON Lines only).
    pub line: Option<u64>,
    /// The row's key from [`Options::id_column`] (`None` without it; JSON `null` when the row has
    /// none).
    pub id: Option<serde_json::Value>,
}

impl fmt::Display for RowLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line} (row {})", self.row)?,
            None => write!(f, "row {}", self.row)?,
        }
        if let Some(id) = &self.id {
            write!(f, " id {id}")?;
        }
        Ok(())
    }
}

/// Why a row holds no history msgflow can read: the row is reported and the others go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RowError {
    /// What is wrong with the row, and where in it.
    pub message: String,
}

impl RowError {
    fn new(message: impl Into<String>) -> Self {
        RowError {
            message: message.into(),
        }
    }
}

/// A corpus that cannot be read or written at all (as opposed to one bad row).
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The Parquet file cannot be read or written.
    #[error("{0}")]
    Parquet(#[from] ::parquet::errors::ParquetError),
    /// Arrow refused a batch (a column msgflow rebuilt).
    #[error("{0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The options do not fit the file (a missing column, a column of the wrong type).
    #[error("{0}")]
    Usage(String),
}

/// One row of a batch, located, with the history JSON it holds.
#[derive(Debug)]
pub struct Row<'a> {
    /// Where the row is.
    pub location: RowLocation,
    /// The history's JSON, or why the row holds none.
    pub content: Result<Cow<'a, [u8]>, RowError>,
    /// How to put a new history back where this one was.
    slot: Slot,
}

/// Where a row's history sits in its line or cell, for [`Row::rewrite`].
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// The whole line or cell is the history.
    Whole,
    /// A field of a JSON Lines object: the value's byte range in the line, and whether it is a
    /// string (the history's JSON escaped into it) rather than the array itself.
    Field { start: usize, end: usize, string: bool },
}

/// What becomes of a row in a rewritten corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The row is written exactly as it was read.
    Keep,
    /// The row's history is replaced by this JSON (the rest of the line or row as it was).
    Replace(Vec<u8>),
    /// The row is left out.
    Drop,
}

/// A batch of rows read from a corpus.
#[derive(Debug)]
pub enum Batch {
    /// Lines of a JSON Lines corpus.
    JsonLines(jsonl::LineBatch),
    /// A record batch of a Parquet corpus.
    Parquet(parquet::RecordBatchRows),
}

impl Batch {
    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            Batch::JsonLines(batch) => batch.len(),
            Batch::Parquet(batch) => batch.len(),
        }
    }

    /// Whether the batch has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row at `index` (0-based within the batch). JSON Lines rows with a field are parsed
    /// here, so callers get rows on their worker threads.
    pub fn row(&self, index: usize) -> Row<'_> {
        match self {
            Batch::JsonLines(batch) => batch.row(index),
            Batch::Parquet(batch) => batch.row(index),
        }
    }

    /// The bytes of input this batch covers (for progress).
    pub fn input_bytes(&self) -> u64 {
        match self {
            Batch::JsonLines(batch) => batch.input_bytes(),
            Batch::Parquet(_) => 0,
        }
    }
}

impl Row<'_> {
    /// The row's new value (the line, or the cell) with `history` in place of its history; the
    /// rest of a JSON Lines object stays byte for byte as it was.
    pub fn rewrite(&self, history: &[u8], original: &[u8]) -> Vec<u8> {
        match self.slot {
            Slot::Whole => history.to_vec(),
            Slot::Field { start, end, string } => {
                let mut line = Vec::with_capacity(original.len() + history.len());
                line.extend_from_slice(&original[..start]);
                if string {
                    // History JSON msgflow wrote is UTF-8; a lossy decode cannot change it.
                    let text = String::from_utf8_lossy(history);
                    line.extend_from_slice(serde_json::Value::from(text.as_ref()).to_string().as_bytes());
                } else {
                    line.extend_from_slice(history);
                }
                line.extend_from_slice(&original[end..]);
                line
            }
        }
    }
}

/// Reads a corpus batch by batch.
pub struct Reader {
    inner: ReaderKind,
}

enum ReaderKind {
    JsonLines(jsonl::JsonLinesReader),
    Parquet(parquet::ParquetReader),
}

impl Reader {
    /// Opens the corpus at `path` as `format`.
    pub fn open(path: &Path, format: Format, options: &Options) -> Result<Reader, CorpusError> {
        let inner = match format {
            Format::JsonLines => {
                let file = std::fs::File::open(path)?;
                ReaderKind::JsonLines(jsonl::JsonLinesReader::new(
                    Box::new(std::io::BufReader::with_capacity(1 << 16, file)),
                    options,
                )?)
            }
            Format::Parquet => ReaderKind::Parquet(parquet::ParquetReader::open(path, options)?),
        };
        Ok(Reader { inner })
    }

    /// Reads JSON Lines from any reader (standard input).
    pub fn json_lines(input: Box<dyn BufRead + Send>, options: &Options) -> Result<Reader, CorpusError> {
        Ok(Reader {
            inner: ReaderKind::JsonLines(jsonl::JsonLinesReader::new(input, options)?),
        })
    }

    /// The number of rows, when the file says it up front (Parquet).
    pub fn total_rows(&self) -> Option<u64> {
        match &self.inner {
            ReaderKind::JsonLines(_) => None,
            ReaderKind::Parquet(reader) => Some(reader.total_rows()),
        }
    }

    /// The kind of corpus being read.
    pub fn format(&self) -> Format {
        match self.inner {
            ReaderKind::JsonLines(_) => Format::JsonLines,
            ReaderKind::Parquet(_) => Format::Parquet,
        }
    }

    /// The next batch, or `None` at the end.
    pub fn next_batch(&mut self) -> Result<Option<Batch>, CorpusError> {
        match &mut self.inner {
            ReaderKind::JsonLines(reader) => Ok(reader.next_batch()?.map(Batch::JsonLines)),
            ReaderKind::Parquet(reader) => Ok(reader.next_batch()?.map(Batch::Parquet)),
        }
    }

    /// A writer of a corpus of the same kind into `output` (Parquet: the same schema and
    /// compression).
    pub fn writer<W: Write + Send + 'static>(&self, output: W) -> Result<Writer, CorpusError> {
        let inner = match &self.inner {
            ReaderKind::JsonLines(_) => WriterKind::JsonLines(jsonl::JsonLinesWriter::new(Box::new(output))),
            ReaderKind::Parquet(reader) => WriterKind::Parquet(Box::new(reader.writer(Box::new(output))?)),
        };
        Ok(Writer { inner })
    }
}

/// Writes a rewritten corpus of the kind it was read as.
pub struct Writer {
    inner: WriterKind,
}

enum WriterKind {
    JsonLines(jsonl::JsonLinesWriter),
    Parquet(Box<parquet::ParquetWriter>),
}

impl Writer {
    /// Writes `batch` with each row changed as `edits` says (one per row, in order; a
    /// [`Edit::Replace`] holds the row's new line or cell, as [`Row::rewrite`] made it).
    pub fn write(&mut self, batch: &Batch, edits: &[Edit]) -> Result<(), CorpusError> {
        match (&mut self.inner, batch) {
            (WriterKind::JsonLines(writer), Batch::JsonLines(batch)) => writer.write(batch, edits),
            (WriterKind::Parquet(writer), Batch::Parquet(batch)) => writer.write(batch, edits),
            _ => Err(CorpusError::Usage(
                "a batch was written to a corpus of another kind".to_owned(),
            )),
        }
    }

    /// Flushes and closes the corpus (Parquet writes its footer here).
    pub fn finish(self) -> Result<(), CorpusError> {
        match self.inner {
            WriterKind::JsonLines(writer) => writer.finish(),
            WriterKind::Parquet(writer) => writer.finish(),
        }
    }
}

/// Reads `reader` to the end, runs `work` on every row in parallel (rayon's pool: the global one
/// or the one the call is installed in), and gives each row's result to `collect` in row order.
/// With a `writer`, each row's [`Edit`] is applied and the batch written in order. `progress` is
/// called after each batch with its row count and input bytes.
///
/// The three stages overlap: while a batch's rows are worked on, the previous batch is collected
/// and written and the next one read (`rayon::join`), so a second thread is never left waiting on
/// reading or writing. On one thread the stages run one after the other, as a loop would. At most
/// three batches are held at once, whatever the corpus size. A read error ends the run after every
/// batch before it was collected and written; a `collect` or write error ends it at once.
pub fn run<T: Send>(
    reader: &mut Reader,
    mut writer: Option<&mut Writer>,
    work: impl Fn(&Row<'_>) -> (T, Edit) + Sync,
    mut collect: impl FnMut(&RowLocation, T) -> std::io::Result<()> + Send,
    mut progress: impl FnMut(usize, u64) + Send,
) -> Result<(), CorpusError> {
    let mut deliver = |(batch, results): Worked<T>| -> Result<(), CorpusError> {
        let mut edits = Vec::with_capacity(results.len());
        for (location, result, edit) in results {
            collect(&location, result)?;
            edits.push(edit);
        }
        if let Some(writer) = writer.as_deref_mut() {
            writer.write(&batch, &edits)?;
        }
        progress(batch.len(), batch.input_bytes());
        Ok(())
    };
    let mut current = reader.next_batch()?;
    let mut worked: Option<Worked<T>> = None;
    while let Some(batch) = current.take() {
        let (previous, results) = rayon::join(
            || -> Result<_, CorpusError> {
                if let Some(previous) = worked.take() {
                    deliver(previous)?;
                }
                Ok(reader.next_batch())
            },
            || work_batch(&batch, &work),
        );
        let next = previous?;
        worked = Some((batch, results));
        match next {
            Ok(next) => current = next,
            Err(err) => {
                if let Some(last) = worked.take() {
                    deliver(last)?;
                }
                return Err(err);
            }
        }
    }
    if let Some(last) = worked {
        deliver(last)?;
    }
    Ok(())
}

/// A batch with each row's location, result and edit, in row order.
type Worked<T> = (Batch, Vec<(RowLocation, T, Edit)>);

/// Runs `work` on every row of `batch` in parallel, results in row order.
fn work_batch<T: Send>(batch: &Batch, work: &(impl Fn(&Row<'_>) -> (T, Edit) + Sync)) -> Vec<(RowLocation, T, Edit)> {
    (0..batch.len())
        .into_par_iter()
        .map(|index| {
            let row = batch.row(index);
            let (result, edit) = work(&row);
            let edit = match edit {
                Edit::Replace(history) => Edit::Replace(batch_rewrite(batch, index, &row, &history)),
                other => other,
            };
            (row.location, result, edit)
        })
        .collect()
}

fn batch_rewrite(batch: &Batch, index: usize, row: &Row<'_>, history: &[u8]) -> Vec<u8> {
    match batch {
        Batch::JsonLines(lines) => row.rewrite(history, lines.line_text(index)),
        Batch::Parquet(_) => row.rewrite(history, &[]),
    }
}
