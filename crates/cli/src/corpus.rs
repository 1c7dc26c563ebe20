//! Corpus mode: a command run on every row of a JSON Lines or Parquet corpus (msgflow-corpus).
//!
//! Each row goes through the command's [`FileCommand::process`] as if it were a file of its own,
//! named by its location (`runs.jsonl line 4 (row 3)`), on rayon's pool, batch by batch:
//!
//! * report commands write one result per row, in row order: with `--json` one JSON object per
//!   line (`"row"`, `"line"`, `"id"`, then the command's fields for one file, or `"error"`) and a
//!   last line `{"summary": ...}`; as text, one section per row;
//! * writing commands write a new corpus of the same kind (`-o FILE`; JSON Lines may go to
//!   stdout), never the input itself; a row the command fails on is written unchanged or left
//!   out as `--on-error` says, and reported either way.
//!
//! The exit status is the worst row's; a corpus that cannot be read at all is exit 2 and nothing
//! is written.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use msgflow_corpus::{CorpusError, Edit, Format, Options, Reader, Row, RowLocation, RowStatus, Summary};

use crate::args::{CorpusArgs, InputArgs, OnError, OutputArgs};
use crate::files;
use crate::outcome::{usage_error, Failure, Status};
use crate::runner::{loadability_warning, FileCommand, Mode, Source};

/// The corpus named by the inputs, if they name one.
pub struct CorpusInput {
    /// The file, or `None` for standard input (JSON Lines only).
    path: Option<PathBuf>,
    format: Format,
}

/// `--report FILE` of `command` (`repair`, `trim`) takes a single input: a usage error when
/// `inputs` are a batch or a corpus.
pub fn refuse_report_for_many(command: &str, inputs: &InputArgs, corpus: &CorpusArgs) -> Result<(), Status> {
    if crate::runner::is_batch(inputs) || names_corpus(inputs, corpus) {
        return Err(usage_error(
            "--report takes a single input",
            Some(&format!("run {command} once per file to get one report each")),
        ));
    }
    Ok(())
}

/// Whether `inputs` (with `corpus`'s flags) name a corpus (for options that take one file).
pub fn names_corpus(inputs: &InputArgs, corpus: &CorpusArgs) -> bool {
    corpus.jsonl
        || corpus.field.is_some()
        || corpus.column.is_some()
        || inputs.files.iter().any(|path| Format::from_path(path).is_some())
}

/// Whether `inputs` (with `corpus`'s flags) name a corpus: `Ok(None)` when they do not (files,
/// directories, a single history), an error status when they are a corpus used wrongly.
pub fn corpus_input(inputs: &InputArgs, corpus: &CorpusArgs) -> Result<Option<CorpusInput>, Status> {
    let asked = corpus.jsonl || corpus.field.is_some() || corpus.column.is_some();
    let named = inputs
        .files
        .iter()
        .find_map(|path| Format::from_path(path).map(|format| (path, format)));
    if !asked && named.is_none() {
        if corpus.id_column.is_some() {
            return Err(usage_error(
                "--id-column names rows of a corpus; the input is not one",
                Some("give a *.jsonl, *.ndjson or *.parquet file, or --jsonl"),
            ));
        }
        return Ok(None);
    }
    let path = match inputs.files.as_slice() {
        [] => None,
        [only] if only.as_os_str() == "-" => None,
        [only] => Some(only.clone()),
        _ => {
            return Err(usage_error(
                "a corpus is read on its own: give one *.jsonl, *.ndjson or *.parquet file",
                Some("run msgflow once per corpus"),
            ))
        }
    };
    let format = if corpus.column.is_some() {
        Format::Parquet
    } else if corpus.jsonl || corpus.field.is_some() {
        Format::JsonLines
    } else {
        named.map_or(Format::JsonLines, |(_, format)| format)
    };
    if let (Some(path), Some(named)) = (&path, path.as_deref().and_then(Format::from_path)) {
        if named != format {
            return Err(usage_error(
                &format!(
                    "{} is named as {} but the options read {}",
                    path.display(),
                    format_name(named),
                    format_name(format)
                ),
                Some("--field and --jsonl are for JSON Lines, --column for Parquet"),
            ));
        }
    }
    if format == Format::Parquet && path.is_none() {
        return Err(usage_error(
            "a Parquet corpus is read from a file, not standard input",
            Some("save it to a file first"),
        ));
    }
    if path.is_none() && std::io::stdin().is_terminal() {
        return Err(usage_error(
            "no input: standard input is a terminal",
            Some("give a corpus file, or pipe JSON Lines into msgflow"),
        ));
    }
    Ok(Some(CorpusInput { path, format }))
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::JsonLines => "JSON Lines",
        Format::Parquet => "Parquet",
    }
}

/// Runs `command` on the corpus the inputs name, or as usual on files, directories or stdin.
pub fn run_or_files(
    command: &dyn FileCommand,
    inputs: &InputArgs,
    corpus: &CorpusArgs,
    destination: &OutputArgs,
) -> Status {
    match corpus_input(inputs, corpus) {
        Err(status) => status,
        Ok(Some(input)) => run(command, &input, corpus, destination, inputs.max_input_bytes),
        Ok(None) => crate::runner::run(command, inputs, destination),
    }
}

/// What one row came to.
struct RowResult {
    status: Status,
    /// Diagnostics for stderr (already rendered with the row's name).
    stderr: String,
    /// The report (report commands), or the failure's message when the row failed.
    report: Result<Vec<u8>, String>,
    problem_codes: Vec<String>,
    error_types: Vec<String>,
    /// Whether the row was written unchanged or left out because it failed.
    fell_back: bool,
    /// `report` is one compact JSON object without location keys ([`crate::runner::Processed::json_object`]).
    json_object: bool,
    /// The row's line of a `--json` report, made on the worker thread.
    json_line: Vec<u8>,
}

/// Runs `command` on every row of `corpus`, as the module documentation says.
pub fn run(
    command: &dyn FileCommand,
    corpus: &CorpusInput,
    args: &CorpusArgs,
    destination: &OutputArgs,
    max_input_bytes: Option<u64>,
) -> Status {
    let label = corpus
        .path
        .as_ref()
        .map_or_else(|| "<stdin>".to_owned(), |path| path.display().to_string());
    let mode = command.mode();
    if destination.in_place {
        return usage_error(
            "a corpus is never rewritten in place",
            Some("write the new corpus with -o FILE (row order, other fields and columns are kept)"),
        );
    }
    let output = destination.output.as_deref().filter(|path| *path != Path::new("-"));
    if let (Some(output), Some(input)) = (output, &corpus.path) {
        let same = match (std::fs::canonicalize(output), std::fs::canonicalize(input)) {
            (Ok(output), Ok(input)) => output == input,
            _ => false,
        };
        if same {
            return usage_error(
                &format!(
                    "-o {} is the input itself; a corpus is never rewritten in place",
                    output.display()
                ),
                Some("write to another file, then move it over the input if you wish"),
            );
        }
    }
    if mode == Mode::Transform && corpus.format == Format::Parquet && output.is_none() {
        return usage_error(
            "a rewritten Parquet corpus needs -o FILE",
            Some("e.g. -o repaired.parquet"),
        );
    }
    let options = Options {
        field: args.field.clone(),
        column: args.column.clone(),
        id_column: args.id_column.clone(),
        batch_rows: args.batch_rows,
        ..Options::default()
    };
    let reader = match &corpus.path {
        Some(path) => Reader::open(path, corpus.format, &options),
        None => Reader::json_lines(Box::new(std::io::BufReader::new(std::io::stdin())), &options),
    };
    let mut reader = match reader {
        Ok(reader) => reader,
        Err(err) => return fatal(&label, &err),
    };
    let job = Job {
        command,
        label: &label,
        mode,
        on_error: args.on_error,
        max_input_bytes,
    };
    let pool = match args.threads {
        Some(threads) => match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => Some(pool),
            Err(err) => return usage_error(&format!("--threads {threads}: {err}"), None),
        },
        None => None,
    };
    let progress = progress_bar(&reader, corpus.path.as_deref());
    // A JSON Lines file's bar counts bytes (its rows are not known up front), others count rows.
    let by_bytes = reader.total_rows().is_none() && corpus.path.is_some();
    let outcome = {
        let mut drive = |out: Box<dyn Write + Send>| match &pool {
            Some(pool) => pool.install(|| job.drive(&mut reader, out, &progress, by_bytes)),
            None => job.drive(&mut reader, out, &progress, by_bytes),
        };
        match output {
            Some(target) => files::write_atomically_to(target, None, |file| {
                let handle = file.try_clone()?;
                drive(Box::new(handle)).map_err(|err| std::io::Error::other(err.to_string()))
            })
            .map_err(|err| Failure::unwritable(target, &err)),
            None => drive(Box::new(std::io::stdout())).map_err(|err| Failure::invalid(err.to_string(), None)),
        }
    };
    progress.finish_and_clear();
    match outcome {
        Ok(tally) => {
            tally.print(&label, mode, job.on_error);
            tally.worst
        }
        Err(failure) => {
            eprint!("{}", failure.render(&label));
            Status::Invalid
        }
    }
}

fn fatal(label: &str, err: &CorpusError) -> Status {
    let hint = match err {
        CorpusError::Parquet(_) => Some(
            "msgflow reads Parquet compressed with Snappy or Zstandard, or uncompressed; check that the file is \
             Parquet"
                .to_owned(),
        ),
        _ => None,
    };
    eprint!(
        "{}",
        Failure::invalid(format!("cannot read the corpus: {err}"), hint).render(label)
    );
    Status::Invalid
}

struct Job<'a> {
    command: &'a dyn FileCommand,
    label: &'a str,
    mode: Mode,
    on_error: OnError,
    max_input_bytes: Option<u64>,
}

/// The counts of a finished run.
struct Tally {
    summary: Summary,
    worst: Status,
    fell_back: u64,
}

impl Tally {
    fn print(&self, label: &str, mode: Mode, on_error: OnError) {
        let summary = &self.summary;
        let mut line = format!(
            "msgflow: {label}: {} row{}: {} ok, {} with problems, {} invalid",
            summary.rows,
            if summary.rows == 1 { "" } else { "s" },
            summary.ok,
            summary.problems,
            summary.invalid,
        );
        if mode == Mode::Transform && self.fell_back > 0 {
            line.push_str(&match on_error {
                OnError::Pass => format!("; {} written unchanged (--on-error pass)", self.fell_back),
                OnError::Drop => format!("; {} left out (--on-error drop)", self.fell_back),
            });
        }
        eprintln!("{line}");
    }
}

impl Job<'_> {
    /// Reads, processes and writes the whole corpus into `out`.
    fn drive(
        &self,
        reader: &mut Reader,
        out: Box<dyn Write + Send>,
        progress: &ProgressBar,
        by_bytes: bool,
    ) -> Result<Tally, CorpusError> {
        let mut tally = Tally {
            summary: Summary::default(),
            worst: Status::Ok,
            fell_back: 0,
        };
        let json = matches!(self.mode, Mode::Report { json: true });
        let (mut writer, mut report) = match self.mode {
            Mode::Transform => (Some(reader.writer(out)?), None),
            Mode::Report { .. } => (None, Some(std::io::BufWriter::with_capacity(1 << 16, out))),
        };
        let mut first_section = true;
        msgflow_corpus::run(
            reader,
            writer.as_mut(),
            |row| {
                let (mut result, edit) = self.process_row(row);
                if json {
                    result.json_line = json_line(&row.location, &result);
                }
                (result, edit)
            },
            |location, result| {
                eprint!("{}", result.stderr);
                let status = match result.status {
                    Status::Ok => RowStatus::Ok,
                    Status::Problems => RowStatus::Problems,
                    Status::Invalid => RowStatus::Invalid,
                };
                tally.summary.add(status, &result.problem_codes, &result.error_types);
                tally.worst = tally.worst.max(result.status);
                tally.fell_back += u64::from(result.fell_back);
                if let Some(report) = report.as_mut() {
                    if json {
                        report.write_all(&result.json_line)?;
                    } else if let Some(text) = result.report.as_ref().ok().filter(|text| !text.is_empty()) {
                        if !first_section {
                            report.write_all(b"\n")?;
                        }
                        first_section = false;
                        writeln!(report, "==> {} {} <==", self.label, location)?;
                        report.write_all(text)?;
                        if !text.ends_with(b"\n") {
                            report.write_all(b"\n")?;
                        }
                    }
                }
                Ok(())
            },
            |rows, bytes| progress.inc(if by_bytes { bytes } else { rows as u64 }),
        )?;
        if let Some(writer) = writer {
            writer.finish()?;
        }
        if let Some(mut report) = report {
            if json {
                let line = serde_json::json!({ "summary": tally.summary });
                report.write_all(line.to_string().as_bytes())?;
                report.write_all(b"\n")?;
            }
            match report.flush() {
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other?,
            }
        }
        Ok(tally)
    }

    /// Runs the command on one row (on a worker thread).
    fn process_row(&self, row: &Row<'_>) -> (RowResult, Edit) {
        let name = format!("{} {}", self.label, row.location);
        let failed = |failure: Failure| {
            let edit = match self.on_error {
                OnError::Pass => Edit::Keep,
                OnError::Drop => Edit::Drop,
            };
            let result = RowResult {
                status: failure.status,
                stderr: failure.render(&name),
                report: Err(failure.message),
                problem_codes: Vec::new(),
                error_types: Vec::new(),
                fell_back: self.mode == Mode::Transform,
                json_object: false,
                json_line: Vec::new(),
            };
            (result, edit)
        };
        let bytes = match &row.content {
            Ok(bytes) => bytes,
            Err(err) => return failed(Failure::invalid(err.message.clone(), None)),
        };
        if let Some(limit) = self.max_input_bytes.filter(|&limit| bytes.len() as u64 > limit) {
            return failed(Failure::invalid(
                format!("the row's history is larger than --max-input-bytes ({limit} bytes)"),
                None,
            ));
        }
        let input = match msgflow_wire::Input::from_vec(bytes.to_vec()) {
            Ok(input) => input,
            Err(err) => {
                let (mut result, edit) = failed(self.command.unreadable_history(&err));
                result.error_types = msgflow_corpus::refusal::error_types(bytes, &err);
                return (result, edit);
            }
        };
        let mut processed = match self.command.process(&Source {
            label: &name,
            input: &input,
            row: true,
        }) {
            Ok(processed) => processed,
            Err(failure) => {
                let error_types = failure
                    .parse_error
                    .as_ref()
                    .map(|err| msgflow_corpus::refusal::error_types(bytes, err))
                    .unwrap_or_default();
                let (mut result, edit) = failed(failure);
                result.error_types = error_types;
                return (result, edit);
            }
        };
        let mut stderr = std::mem::take(&mut processed.notes);
        if let Some(history) = &processed.history {
            match loadability_warning(history, self.command.strict()) {
                Ok(warning) => stderr.extend(warning.map(|warning| format!("msgflow: warning: {name}: {warning}\n"))),
                Err(failure) => {
                    let (mut result, edit) = failed(failure);
                    result.stderr.insert_str(0, &stderr);
                    return (result, edit);
                }
            }
        }
        let status = processed.status;
        let json_object = processed.json_object;
        let problem_codes = std::mem::take(&mut processed.problem_codes);
        let error_types = std::mem::take(&mut processed.error_types);
        let output = match processed.into_bytes() {
            Ok(output) => output,
            Err(failure) => return failed(failure),
        };
        let (report, edit) = match self.mode {
            Mode::Transform => (Ok(Vec::new()), Edit::Replace(output)),
            Mode::Report { .. } => (Ok(output), Edit::Keep),
        };
        let result = RowResult {
            status,
            stderr,
            report,
            problem_codes,
            error_types,
            fell_back: false,
            json_object,
            json_line: Vec::new(),
        };
        (result, edit)
    }
}

/// One row's line of a JSON report: its location, then the command's fields (or `"error"`).
fn json_line(location: &RowLocation, result: &RowResult) -> Vec<u8> {
    let mut line = serde_json::Map::new();
    line.insert("row".to_owned(), location.row.into());
    if let Some(number) = location.line {
        line.insert("line".to_owned(), number.into());
    }
    if let Some(id) = &location.id {
        line.insert("id".to_owned(), id.clone());
    }
    if let (true, Ok(report)) = (result.json_object, &result.report) {
        if let Some(fields) = report.trim_ascii_end().strip_prefix(b"{") {
            // The report's fields follow the location's as they were written: the same bytes as
            // parsing and writing them again would give, without doing that for every row.
            let mut bytes = serde_json::Value::Object(line).to_string().into_bytes();
            bytes.pop(); // the location's closing brace
            if fields != b"}" {
                bytes.push(b',');
            }
            bytes.extend_from_slice(fields);
            bytes.push(b'\n');
            return bytes;
        }
    }
    match &result.report {
        Ok(report) => match serde_json::from_slice::<serde_json::Value>(report) {
            Ok(serde_json::Value::Object(fields)) => line.extend(fields),
            Ok(other) => {
                line.insert("report".to_owned(), other);
            }
            Err(_) => {
                line.insert("report".to_owned(), String::from_utf8_lossy(report).into());
            }
        },
        Err(message) => {
            line.insert("error".to_owned(), message.clone().into());
        }
    }
    let mut bytes = serde_json::Value::Object(line).to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

/// A progress bar on stderr when it is a terminal: rows of a Parquet file, bytes of a JSON Lines
/// file, a counter for standard input.
fn progress_bar(reader: &Reader, path: Option<&Path>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (length, template) = match (reader.total_rows(), path.and_then(|path| std::fs::metadata(path).ok())) {
        (Some(rows), _) => (Some(rows), "{bar:40.cyan/blue} {pos}/{len} rows ({eta})"),
        (None, Some(metadata)) => (Some(metadata.len()), "{bar:40.cyan/blue} {bytes}/{total_bytes} ({eta})"),
        (None, None) => (None, "{spinner} {pos} rows"),
    };
    let bar = match length {
        Some(length) => ProgressBar::new(length),
        None => ProgressBar::new_spinner(),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}
