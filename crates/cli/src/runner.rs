//! The machinery shared by every subcommand that reads histories: where the input comes from
//! (stdin, a file, or a batch of files and directories), where the output goes (stdout, `-o`,
//! `--in-place` with an optional `--backup`), parallel batch processing with a progress bar and
//! a summary, and the exit status.
//!
//! A subcommand only implements [`FileCommand`]: it turns the bytes of one input into output
//! bytes (a rewritten history or a report) or a [`Failure`]. Everything else lives here, so a new
//! subcommand is a small, local change.
//!
//! Batch mode (several inputs, or a directory):
//! * transforming commands need `--in-place` or `-o DIR` (each result goes to `DIR/<path relative
//!   to the directory given>`, or `DIR/<file name>` for files named directly);
//! * report commands print one section per file (`==> FILE <==`), or one JSON object per line
//!   with `--json`, to stdout or to `-o FILE`;
//! * files are processed in parallel; one bad file never stops the others; errors are printed in
//!   input order after the run, then a summary; the exit status is the worst file's.

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::args::{InputArgs, OutputArgs};
use crate::files;
use crate::outcome::{usage_error, Failure, Status};

/// What a command produces for each input, which decides where its output may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The output is a file of its own for each input: a rewritten history, which can replace
    /// the input (`--in-place`), or a page (`show --html`). A batch writes one file per input
    /// into `-o DIR`.
    Transform,
    /// The output is a report about the input (text, or JSON when `json`).
    Report {
        /// The report is one JSON document (batch mode then writes JSON Lines).
        json: bool,
    },
}

/// One input, read into memory.
#[derive(Debug)]
pub struct Source<'a> {
    /// How messages name the input: its path as given, or `<stdin>`.
    pub label: &'a str,
    /// The content, which a parsed history shares rather than copies.
    pub input: &'a msgflow_wire::Input,
    /// A row of a corpus: a JSON report is wanted compact (one line of the corpus report), and
    /// may say so with [`Processed::json_object`].
    pub row: bool,
}

/// Parses the input as a history, turning a parse error into a located [`Failure`].
pub fn parse_history(source: &Source<'_>) -> Result<Vec<msgflow_wire::ModelMessage>, Failure> {
    source.input.parse().map_err(|err| Failure::from_parse_error(&err))
}

impl Source<'_> {
    /// The content as bytes.
    pub fn bytes(&self) -> &[u8] {
        self.input.as_bytes()
    }
}

/// What a command made of one input.
#[derive(Debug, Default)]
pub struct Processed {
    /// The rewritten history or the report (may be empty for commands that only set a status).
    pub output: Vec<u8>,
    /// A rewritten history to serialise at delivery instead of `output`: written straight to
    /// stdout or `-o FILE` (with the input already freed), a large history never exists twice
    /// in memory, once parsed and once serialised.
    pub history: Option<Vec<msgflow_wire::ModelMessage>>,
    /// `Status::Ok`, or `Status::Problems` when the command found problems in a valid history.
    pub status: Status,
    /// Diagnostics for stderr, already formatted (each line ends with a newline).
    pub notes: String,
    /// The problem codes found (`check`), which a corpus summary counts.
    pub problem_codes: Vec<String>,
    /// The pydantic error types pydantic-ai would refuse the input with (`check`), which a
    /// corpus summary counts.
    pub error_types: Vec<String>,
    /// `output` is one compact JSON object none of whose keys is `row`, `line` or `id`: a corpus
    /// row's location goes before its fields as they are, without parsing the report again.
    pub json_object: bool,
}

impl Processed {
    /// A rewritten history, serialised when it is delivered.
    pub fn history(history: Vec<msgflow_wire::ModelMessage>, notes: String) -> Self {
        Processed {
            history: Some(history),
            notes,
            ..Processed::default()
        }
    }

    /// The output as bytes (serialising a history).
    pub fn into_bytes(self) -> Result<Vec<u8>, Failure> {
        match self.history {
            Some(history) => msgflow_wire::to_vec(&history).map_err(serialise_failure),
            None => Ok(self.output),
        }
    }
}

fn serialise_failure(err: msgflow_wire::WriteError) -> Failure {
    Failure::invalid(
        format!("cannot serialise the history: {err}"),
        Some("please report this".to_owned()),
    )
}

/// A subcommand that processes histories one input at a time.
pub trait FileCommand: Sync {
    /// Whether the output is a history or a report.
    fn mode(&self) -> Mode;

    /// Whether a history this command writes must be one pydantic-ai 2.68.0 loads (`--strict`).
    /// Every history a command writes is judged either way: with `strict` a history pydantic-ai
    /// would refuse is a failure (exit 2, nothing written, the input untouched); without it, it
    /// is written with one warning line naming the first reason.
    fn strict(&self) -> bool {
        false
    }

    /// In batch mode with `-o DIR`, the extension each output file gets instead of its input's
    /// (`None`: the input's file name, for commands that write histories).
    fn output_extension(&self) -> Option<&'static str> {
        None
    }

    /// Processes one input. Must not write anywhere itself: the runner delivers the output.
    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure>;

    /// The failure for an input that is not a history msgflow's types hold (not UTF-8, not
    /// JSON, not the shape of a history): exit 2 unless the command makes it a finding.
    fn unreadable_history(&self, err: &msgflow_wire::ParseError) -> Failure {
        Failure::from_parse_error(err)
    }
}

/// Where reports go when a command has only `-o` (no `--in-place`).
pub fn report_destination(output: Option<PathBuf>) -> OutputArgs {
    OutputArgs {
        output,
        in_place: false,
        backup: false,
    }
}

/// Whether the output of this run ends up on a terminal (for `--color auto` and widths).
pub fn output_is_terminal(output: &OutputArgs) -> bool {
    let to_stdout = output.output.as_deref().is_none_or(|path| path == Path::new("-"));
    to_stdout && !output.in_place && std::io::stdout().is_terminal()
}

/// Whether `inputs` mean batch mode: several inputs, or a directory.
pub fn is_batch(inputs: &InputArgs) -> bool {
    match inputs.files.as_slice() {
        [] => false,
        [only] => only.is_dir(),
        _ => true,
    }
}

/// Runs `command` over the inputs named by `inputs`, delivering output as `destination` says.
pub fn run(command: &dyn FileCommand, inputs: &InputArgs, destination: &OutputArgs) -> Status {
    let mode = command.mode();
    if mode != Mode::Transform && destination.in_place {
        return usage_error(
            "this command writes a report, it cannot rewrite its input (--in-place)",
            None,
        );
    }
    match plan(inputs) {
        Err(status) => status,
        Ok(Plan::Stdin) => {
            if destination.in_place {
                return usage_error(
                    "--in-place needs a FILE: standard input cannot be rewritten",
                    Some("name the file, or use -o FILE"),
                );
            }
            if std::io::stdin().is_terminal() {
                return usage_error(
                    "no input: standard input is a terminal",
                    Some("give a FILE (or a directory), or pipe a history into msgflow"),
                );
            }
            match files::read_stdin(inputs.max_input_bytes) {
                Ok(bytes) => run_one(
                    command,
                    "<stdin>",
                    None,
                    bytes,
                    destination,
                    destination.output.as_deref(),
                ),
                Err(err) => {
                    let failure = Failure::invalid(format!("cannot read standard input: {err}"), None);
                    eprint!("{}", failure.render("<stdin>"));
                    Status::Invalid
                }
            }
        }
        Ok(Plan::Single(path)) => {
            let label = path.display().to_string();
            match files::read_file(&path, inputs.max_input_bytes) {
                Ok(bytes) => run_one(
                    command,
                    &label,
                    Some(&path),
                    bytes,
                    destination,
                    destination.output.as_deref(),
                ),
                Err(err) => {
                    eprint!("{}", Failure::unreadable(&path, &err).render(&label));
                    Status::Invalid
                }
            }
        }
        Ok(Plan::Batch(items)) => run_batch(command, &items, destination, inputs.max_input_bytes),
    }
}

/// Where a batch input's output goes, relative to `-o DIR`.
pub fn output_name(command: &dyn FileCommand, relative: &Path) -> PathBuf {
    match command.output_extension() {
        Some(extension) => relative.with_extension(extension),
        None => relative.to_path_buf(),
    }
}

/// The files of a batch (each with its path relative to the argument that named it), or `None`
/// when `inputs` are not a batch or cannot be listed (the run itself reports why).
pub fn batch_files(inputs: &InputArgs) -> Option<Vec<(PathBuf, PathBuf)>> {
    match plan(inputs) {
        Ok(Plan::Batch(items)) => Some(items.into_iter().map(|item| (item.path, item.relative)).collect()),
        _ => None,
    }
}

enum Plan {
    Stdin,
    Single(PathBuf),
    Batch(Vec<BatchItem>),
}

/// One file of a batch and where it sits relative to the argument that named it.
struct BatchItem {
    path: PathBuf,
    relative: PathBuf,
}

fn plan(inputs: &InputArgs) -> Result<Plan, Status> {
    let dash = Path::new("-");
    match inputs.files.as_slice() {
        [] => return Ok(Plan::Stdin),
        [only] if only == dash => return Ok(Plan::Stdin),
        [only] if !only.is_dir() => return Ok(Plan::Single(only.clone())),
        _ => {}
    }
    if inputs.files.iter().any(|file| file == dash) {
        return Err(usage_error(
            "`-` (standard input) cannot be combined with other inputs",
            None,
        ));
    }
    let mut items = Vec::new();
    for argument in &inputs.files {
        if argument.is_dir() {
            let found = files::json_files_in(argument, inputs.recursive).map_err(|err| {
                usage_error(
                    &format!("cannot list the directory {}: {err}", argument.display()),
                    None,
                )
            })?;
            for path in found {
                let relative = path
                    .strip_prefix(argument)
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|_| path.clone());
                items.push(BatchItem { path, relative });
            }
        } else {
            let relative = argument
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| argument.clone());
            items.push(BatchItem {
                path: argument.clone(),
                relative,
            });
        }
    }
    Ok(Plan::Batch(items))
}

/// Processes one input and delivers its output; returns its status. Messages go to stderr.
fn run_one(
    command: &dyn FileCommand,
    label: &str,
    path: Option<&Path>,
    bytes: Vec<u8>,
    destination: &OutputArgs,
    output: Option<&Path>,
) -> Status {
    let (status, stderr, report) = process_and_deliver(command, label, path, bytes, destination, output);
    eprint!("{stderr}");
    if let Some(report) = report {
        if let Err(err) = deliver(&report, output) {
            eprint!("{}", err.render(label));
            return Status::Invalid;
        }
    }
    status
}

/// Runs the command on one input. Transformed histories are written here (to the input itself,
/// `output`, or returned for stdout); reports are returned. Returns (status, stderr text, bytes
/// for stdout or the report file).
fn process_and_deliver(
    command: &dyn FileCommand,
    label: &str,
    path: Option<&Path>,
    bytes: Vec<u8>,
    destination: &OutputArgs,
    output: Option<&Path>,
) -> (Status, String, Option<Vec<u8>>) {
    let input = match msgflow_wire::Input::from_vec(bytes) {
        Ok(input) => input,
        Err(err) => {
            let failure = command.unreadable_history(&err);
            return (failure.status, failure.render(label), None);
        }
    };
    let processed = match command.process(&Source {
        label,
        input: &input,
        row: false,
    }) {
        Ok(processed) => processed,
        Err(failure) => return (failure.status, failure.render(label), None),
    };
    let mut stderr = processed.notes.clone();
    let status = processed.status;
    if let Some(history) = &processed.history {
        match loadability_warning(history, command.strict()) {
            Ok(warning) => stderr.extend(warning.map(|warning| format!("msgflow: warning: {label}: {warning}\n"))),
            Err(failure) => return (failure.status, stderr + &failure.render(label), None),
        }
    }
    if command.mode() != Mode::Transform {
        return match processed.into_bytes() {
            Ok(report) => (status, stderr, Some(report)),
            Err(failure) => (failure.status, stderr + &failure.render(label), None),
        };
    }
    let written = match (destination.in_place, path) {
        (true, Some(path)) => processed.into_bytes().and_then(|new| {
            if new == input.as_bytes() {
                Ok(()) // Already in the requested form: leave the file (and its mtime) alone.
            } else {
                files::replace_in_place(path, input.as_bytes(), &new, destination.backup)
                    .map_err(|(target, err)| Failure::unwritable(&target, &err))
            }
        }),
        _ => {
            // Drop this handle: the text now lives only as long as the history's opaque values.
            drop(input);
            let write = |writer: &mut dyn std::io::Write| match &processed.history {
                Some(history) => msgflow_wire::to_writer(std::io::BufWriter::with_capacity(1 << 16, writer), history)
                    .map_err(std::io::Error::other),
                None => writer.write_all(&processed.output),
            };
            match output {
                Some(target) if target != Path::new("-") => {
                    files::write_atomically_with(target, None, write).map_err(|err| Failure::unwritable(target, &err))
                }
                _ => files::write_stdout_with(write)
                    .map_err(|err| Failure::invalid(format!("cannot write to standard output: {err}"), None)),
            }
        }
    };
    match written {
        Ok(()) => (status, stderr, None),
        Err(failure) => {
            stderr.push_str(&failure.render(label));
            (Status::Invalid, stderr, None)
        }
    }
}

/// With `--strict`, the failure for a history pydantic-ai 2.68.0 would not load (for a command
/// that must decide before it writes anything besides the history).
pub(crate) fn refuse_unloadable(history: &[msgflow_wire::ModelMessage]) -> Result<(), Failure> {
    loadability_warning(history, true).map(|_| ())
}

/// pydantic-ai 2.68.0's verdict on a history about to be written: `None` when it would load it,
/// else the warning to print, or with `strict` the failure that stops the write.
pub(crate) fn loadability_warning(
    history: &[msgflow_wire::ModelMessage],
    strict: bool,
) -> Result<Option<String>, Failure> {
    let verdict = msgflow_wire::verdict::verdict(history);
    let Some(first) = verdict.reasons().first() else {
        return Ok(None);
    };
    let more = match verdict.reasons().len() - 1 {
        0 => String::new(),
        1 => " (and 1 more reason)".to_owned(),
        more => format!(" (and {more} more reasons)"),
    };
    if strict {
        return Err(Failure::invalid(
            format!("refusing to write a history pydantic-ai 2.68.0 would not load: {first}{more}"),
            Some(
                "`msgflow check` lists every reason; without --strict the history is written with a warning".to_owned(),
            ),
        ));
    }
    Ok(Some(format!(
        "the output would not load in pydantic-ai 2.68.0: {first}{more} (`msgflow check` lists every reason; \
         --strict refuses to write it)"
    )))
}

/// Writes a report (or a transformed history bound for stdout) to `output` or stdout.
fn deliver(bytes: &[u8], output: Option<&Path>) -> Result<(), Failure> {
    match output {
        Some(target) if target != Path::new("-") => {
            files::write_atomically(target, bytes, None).map_err(|err| Failure::unwritable(target, &err))
        }
        _ => files::write_stdout(bytes)
            .map_err(|err| Failure::invalid(format!("cannot write to standard output: {err}"), None)),
    }
}

struct BatchResult {
    status: Status,
    stderr: String,
    report: Option<Vec<u8>>,
}

fn run_batch(
    command: &dyn FileCommand,
    items: &[BatchItem],
    destination: &OutputArgs,
    max_input_bytes: Option<u64>,
) -> Status {
    let mode = command.mode();
    let output_directory = match batch_output_directory(command, items, destination) {
        Ok(directory) => directory,
        Err(status) => return status,
    };
    if items.is_empty() {
        eprintln!("msgflow: no *.json files found (add -r to search subdirectories)");
        return Status::Ok;
    }

    let progress = progress_bar(items.len());
    let results: Vec<BatchResult> = items
        .par_iter()
        .map(|item| {
            let label = item.path.display().to_string();
            let target = output_directory
                .as_ref()
                .map(|directory| directory.join(output_name(command, &item.relative)));
            let result = match files::read_file(&item.path, max_input_bytes) {
                Ok(bytes) => {
                    let (status, stderr, report) =
                        process_and_deliver(command, &label, Some(&item.path), bytes, destination, target.as_deref());
                    BatchResult { status, stderr, report }
                }
                Err(err) => BatchResult {
                    status: Status::Invalid,
                    stderr: Failure::unreadable(&item.path, &err).render(&label),
                    report: None,
                },
            };
            progress.inc(1);
            result
        })
        .collect();
    progress.finish_and_clear();

    let mut combined = Vec::new();
    for (item, result) in items.iter().zip(&results) {
        eprint!("{}", result.stderr);
        if let Mode::Report { json } = mode {
            append_report(&mut combined, &item.path.display().to_string(), result, json);
        }
    }
    let mut worst = results.iter().map(|result| result.status).max().unwrap_or(Status::Ok);
    if let Mode::Report { .. } = mode {
        if let Err(failure) = deliver(&combined, destination.output.as_deref()) {
            eprint!("{}", failure.render("report"));
            worst = Status::Invalid;
        }
    }
    let count = |status: Status| results.iter().filter(|result| result.status == status).count();
    eprintln!(
        "msgflow: {} file{}: {} ok, {} with problems, {} invalid",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        count(Status::Ok),
        count(Status::Problems),
        count(Status::Invalid),
    );
    worst
}

/// Checks the output options of a batch; for `-o DIR` with a transforming command, creates the
/// directory and returns it.
fn batch_output_directory(
    command: &dyn FileCommand,
    items: &[BatchItem],
    destination: &OutputArgs,
) -> Result<Option<PathBuf>, Status> {
    if command.mode() != Mode::Transform {
        return Ok(None);
    }
    if destination.in_place {
        return Ok(None);
    }
    let Some(directory) = destination
        .output
        .as_ref()
        .filter(|path| path.as_path() != Path::new("-"))
    else {
        return Err(usage_error(
            "several inputs: the results need somewhere to go",
            Some("add --in-place (optionally --backup) to rewrite each file, or -o DIR to write them into DIR"),
        ));
    };
    if directory.exists() && !directory.is_dir() {
        return Err(usage_error(
            &format!(
                "-o {} must be a directory when there are several inputs",
                directory.display()
            ),
            None,
        ));
    }
    let mut seen = HashSet::new();
    for item in items {
        let name = output_name(command, &item.relative);
        if !seen.insert(name.clone()) {
            return Err(usage_error(
                &format!(
                    "two inputs would both be written to {}",
                    directory.join(&name).display()
                ),
                Some("give them in separate runs, or pass their common directory instead"),
            ));
        }
    }
    for item in items {
        if let Some(parent) = directory.join(output_name(command, &item.relative)).parent() {
            if let Err(err) = std::fs::create_dir_all(parent) {
                return Err(usage_error(
                    &format!("cannot create the directory {}: {err}", parent.display()),
                    None,
                ));
            }
        }
    }
    Ok(Some(directory.clone()))
}

fn append_report(combined: &mut Vec<u8>, label: &str, result: &BatchResult, json: bool) {
    if json {
        let mut line = serde_json::Map::new();
        line.insert("file".to_owned(), label.into());
        line.insert("status".to_owned(), result.status.as_str().into());
        match &result.report {
            Some(report) => {
                let value = serde_json::from_slice(report).unwrap_or_else(|_| String::from_utf8_lossy(report).into());
                line.insert("report".to_owned(), value);
            }
            None => {
                line.insert("error".to_owned(), result.stderr.trim_end().into());
            }
        }
        combined.extend_from_slice(serde_json::Value::Object(line).to_string().as_bytes());
        combined.push(b'\n');
    } else if let Some(report) = result.report.as_ref().filter(|report| !report.is_empty()) {
        // Commands that only set a status (fmt --check) print no empty sections.
        if !combined.is_empty() {
            combined.push(b'\n');
        }
        combined.extend_from_slice(format!("==> {label} <==\n").as_bytes());
        combined.extend_from_slice(report);
        if !report.ends_with(b"\n") {
            combined.push(b'\n');
        }
    }
}

/// A progress bar on stderr when stderr is a terminal; otherwise a hidden one (no output).
fn progress_bar(length: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(length as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} files ({eta})") {
        bar.set_style(style);
    }
    bar
}
