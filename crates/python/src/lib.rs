//! `msgflow._msgflow`: the native module behind the Python package `msgflow`.
//!
//! Thin by design: every function parses pydantic-ai JSON bytes with msgflow-wire, calls the same
//! library function the CLI calls, and hands back bytes and a JSON report that the pure-Python
//! facade (`python/msgflow/__init__.py`) turns into frozen result objects. The work runs with the
//! GIL released ([`Python::detach`]) unless the input is under 16 KiB (see [`DETACH_FROM`]);
//! Python objects are only touched before and after.

mod arrow;
mod fit;
mod history_cache;
mod ops;

use msgflow_providers::ExportError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::IntoPyObjectExt;

pub use ops::Error;

/// The module's Rust allocations go to mimalloc, as the CLI's do (see the `mimalloc` line of the
/// workspace's Cargo.toml); Python's own objects stay with Python's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pyo3::create_exception!(
    msgflow,
    InvalidHistory,
    PyValueError,
    "The input is not a pydantic-ai message history (`.path`, `.line`, `.column` say where)."
);
pyo3::create_exception!(
    msgflow,
    ExportRefused,
    PyValueError,
    "The history cannot be sent to the provider as pydantic-ai would send it (`.message_index`, \
     `.part_index`, `.path`, `.reason`)."
);
pyo3::create_exception!(
    msgflow,
    ConversionError,
    PyValueError,
    "The input is not the format it was named as, the target cannot take the history, or `strict` \
     refused a loss (`.document`, `.path`, `.line`, `.column`, `.detail`)."
);
pyo3::create_exception!(
    msgflow,
    DoesNotFit,
    PyValueError,
    "Even the newest turn alone exceeds the budget (`.needed`, `.limit`, `.unit`)."
);

/// An attribute to set on a raised exception: its name and its value, if it converted.
type Attribute<'a> = (&'a str, PyResult<Py<PyAny>>);

/// The Python exception for an [`Error`], with the attributes the facade documents; for a row of
/// an Arrow column (`row`), the message names the row and the exception has a `row` attribute.
fn to_py_err(py: Python<'_>, error: Error, row: Option<usize>) -> PyErr {
    let message = match row {
        Some(row) => format!("row {row}: {error}"),
        None => error.to_string(),
    };
    let (err, mut attributes): (PyErr, Vec<Attribute<'_>>) = match error {
        Error::Parse(err) => (
            InvalidHistory::new_err(message),
            vec![
                ("path", err.path().into_py_any(py)),
                ("line", err.line().into_py_any(py)),
                ("column", err.column().into_py_any(py)),
                ("detail", err.message().into_py_any(py)),
            ],
        ),
        Error::Export(err) => {
            let location = err.location();
            let (path, reason) = match &err {
                ExportError::Refused { path, reason, .. } => (Some(path.clone()), reason.clone()),
                ExportError::Unsupported { path, .. } | ExportError::NeedsDownload { path, .. } => {
                    (Some(path.clone()), err.to_string())
                }
                ExportError::NoExport(_) => (None, err.to_string()),
            };
            (
                ExportRefused::new_err(message),
                vec![
                    ("message_index", location.map(|at| at.message).into_py_any(py)),
                    ("part_index", location.map(|at| at.part).into_py_any(py)),
                    ("path", path.into_py_any(py)),
                    ("reason", reason.into_py_any(py)),
                ],
            )
        }
        Error::DoesNotFit {
            needed, limit, unit, ..
        } => (
            DoesNotFit::new_err(message),
            vec![
                ("needed", needed.into_py_any(py)),
                ("limit", limit.into_py_any(py)),
                ("unit", unit.into_py_any(py)),
            ],
        ),
        Error::Convert(err) => (
            ConversionError::new_err(message),
            vec![
                ("document", err.document.into_py_any(py)),
                ("path", err.path.clone().into_py_any(py)),
                ("line", err.position.map(|(line, _)| line).into_py_any(py)),
                ("column", err.position.map(|(_, column)| column).into_py_any(py)),
                ("detail", err.message.into_py_any(py)),
            ],
        ),
        Error::Lossy {
            message: detail,
            document,
            path,
        } => (
            ConversionError::new_err(message),
            vec![
                ("document", document.into_py_any(py)),
                ("path", path.into_py_any(py)),
                ("line", None::<usize>.into_py_any(py)),
                ("column", None::<usize>.into_py_any(py)),
                ("detail", detail.into_py_any(py)),
            ],
        ),
        Error::Value(_) => (PyValueError::new_err(message), Vec::new()),
    };
    if let Some(row) = row {
        attributes.push(("row", row.into_py_any(py)));
    }
    let value = err.value(py);
    for (name, attribute) in attributes {
        // Converting a string or an integer and setting it on a fresh exception instance do not
        // fail in practice; if one did, the exception would still carry its message.
        if let Ok(attribute) = attribute {
            let _ = value.setattr(name, attribute);
        }
    }
    err
}

/// Inputs below this many bytes are worked on with the GIL held: their work takes microseconds,
/// about what handing the GIL over and taking it back costs (`msgflow.check` on a two-message
/// history; see BENCHMARKS.md, "Python").
const DETACH_FROM: usize = 16 * 1024;

/// Runs `work` (on an input of `input_len` bytes) without the GIL, unless the input is small, and
/// turns its error into the documented exception.
fn run<T: Send>(py: Python<'_>, input_len: usize, work: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    let result = if input_len < DETACH_FROM {
        work()
    } else {
        py.detach(work)
    };
    result.map_err(|error| to_py_err(py, error, None))
}

/// `check`: the verdict, and the report as JSON when it holds a problem (see `ops::check`); a
/// clean history's answer needs no JSON read in Python.
#[pyfunction]
#[pyo3(signature = (data, provider=None, openai_chat_thinking=None, anthropic_thinking=None, openai_thinking=None))]
fn check(
    py: Python<'_>,
    data: &[u8],
    provider: Option<&str>,
    openai_chat_thinking: Option<&str>,
    anthropic_thinking: Option<&str>,
    openai_thinking: Option<&str>,
) -> PyResult<(bool, Option<String>)> {
    let profile = ops::Profile {
        openai_chat_thinking,
        anthropic_thinking,
        openai_thinking,
    };
    let checked = run(py, data.len(), || ops::check(data, provider, &profile))?;
    Ok((checked.loadable, (checked.problems > 0).then_some(checked.document)))
}

/// `msgflow.check`'s Rust work alone, `calls` times in a row in this process: the seconds per
/// call. A benchmark hook (`crates/python/bench/python_bench.py`): beside the time of the native
/// call it tells the binding's cost from the work's.
#[pyfunction]
fn _check_seconds_per_call(data: &[u8], calls: u32) -> PyResult<f64> {
    let calls = calls.max(1);
    let start = std::time::Instant::now();
    for _ in 0..calls {
        std::hint::black_box(ops::check(std::hint::black_box(data), None, &ops::Profile::default()))
            .map_err(|_| PyValueError::new_err("_check_seconds_per_call: the input is not a pydantic-ai history"))?;
    }
    Ok(start.elapsed().as_secs_f64() / f64::from(calls))
}

/// `repair`: the repaired history's bytes and the report as JSON.
#[pyfunction]
#[pyo3(signature = (data, provider=None, message=None, keep_last_response=false, resolve_remaining=false))]
fn repair<'py>(
    py: Python<'py>,
    data: &[u8],
    provider: Option<&str>,
    message: Option<&str>,
    keep_last_response: bool,
    resolve_remaining: bool,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let (history, report) = run(py, data.len(), || {
        ops::repair(data, provider, message, keep_last_response, resolve_remaining)
    })?;
    Ok((PyBytes::new(py, &history), report))
}

/// The text a synthesized tool result holds unless `message` is given (msgflow-sanitize's default).
#[pyfunction]
fn default_repair_message() -> String {
    msgflow_sanitize::RepairOptions::default().content
}

/// `trim`: the trimmed history's bytes and the report as JSON.
#[pyfunction]
#[pyo3(signature = (data, max_tokens=None, keep_turns=None, max_bytes=None, tokenizer="o200k_base",
    clear_tool_results_older_than=None, clamp_parts=None, harness_clear=None, harness_clamp=None))]
#[allow(clippy::too_many_arguments)]
fn trim<'py>(
    py: Python<'py>,
    data: &[u8],
    max_tokens: Option<usize>,
    keep_turns: Option<usize>,
    max_bytes: Option<usize>,
    tokenizer: &str,
    clear_tool_results_older_than: Option<usize>,
    clamp_parts: Option<usize>,
    harness_clear: Option<usize>,
    harness_clamp: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let options = ops::TrimOptions {
        max_tokens,
        keep_turns,
        max_bytes,
        tokenizer,
        clear_tool_results_older_than,
        clamp_parts,
        harness_clear,
        harness_clamp,
    };
    let trimmed = run(py, data.len(), || ops::trim(data, &options))?;
    Ok((PyBytes::new(py, &trimmed.history), trimmed.report))
}

/// `count_tokens`: the token report as JSON (`msgflow stats --tokens --json`).
#[pyfunction]
#[pyo3(signature = (data, tokenizer="o200k_base"))]
fn count_tokens(py: Python<'_>, data: &[u8], tokenizer: &str) -> PyResult<String> {
    run(py, data.len(), || ops::count_tokens(data, tokenizer))
}

/// `export`: the request pydantic-ai would send, as JSON, and the note on tool parts it names by
/// ids msgflow made up (`None` when there are none).
#[pyfunction]
#[pyo3(signature = (data, to, openai_chat_thinking=None, anthropic_thinking=None, openai_thinking=None))]
fn export(
    py: Python<'_>,
    data: &[u8],
    to: &str,
    openai_chat_thinking: Option<&str>,
    anthropic_thinking: Option<&str>,
    openai_thinking: Option<&str>,
) -> PyResult<(String, Option<String>)> {
    let profile = ops::Profile {
        openai_chat_thinking,
        anthropic_thinking,
        openai_thinking,
    };
    let exported = run(py, data.len(), || ops::export(data, to, &profile))?;
    Ok((exported.request, exported.invented_ids))
}

/// `convert`: one JSON document per input document, and the losses as JSON.
// The keyword arguments of `msgflow.convert`, one per option, as Python passes them.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (data, from_, to, lossless=false, strict=false, vercel_sdk=5, otel_version=msgflow_formats::otel::DEFAULT_VERSION))]
fn convert<'py>(
    py: Python<'py>,
    data: &[u8],
    from_: &str,
    to: &str,
    lossless: bool,
    strict: bool,
    vercel_sdk: u8,
    otel_version: u8,
) -> PyResult<(Vec<Bound<'py, PyBytes>>, String)> {
    if !(5..=6).contains(&vercel_sdk) {
        return Err(PyValueError::new_err(format!(
            "vercel_sdk must be 5 or 6, not {vercel_sdk}"
        )));
    }
    let options = msgflow_formats::ConvertOptions {
        lossless,
        vercel_sdk_version: vercel_sdk,
        otel_version,
    };
    let (documents, losses) = run(py, data.len(), || ops::convert(data, from_, to, &options, strict))?;
    let documents = documents.iter().map(|document| PyBytes::new(py, document)).collect();
    Ok((documents, losses))
}

/// `fmt`: the bytes pydantic-ai's `dump_json` writes for the history.
#[pyfunction]
fn fmt<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run(py, data.len(), || ops::fmt(data))?;
    Ok(PyBytes::new(py, &bytes))
}

/// `assemble`: the history extended with the messages of an event log, and the report as JSON.
#[pyfunction]
#[pyo3(signature = (events, history, timestamp, model_name=None, provider_name=None))]
fn assemble<'py>(
    py: Python<'py>,
    events: &str,
    history: Option<&[u8]>,
    timestamp: &str,
    model_name: Option<String>,
    provider_name: Option<String>,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let (bytes, report) = run(py, events.len() + history.map_or(0, <[u8]>::len), || {
        ops::assemble(events, history, timestamp, model_name, provider_name)
    })?;
    Ok((PyBytes::new(py, &bytes), report))
}

/// The module `msgflow._msgflow`.
#[pymodule]
fn _msgflow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidHistory", py.get_type::<InvalidHistory>())?;
    m.add("ExportRefused", py.get_type::<ExportRefused>())?;
    m.add("DoesNotFit", py.get_type::<DoesNotFit>())?;
    m.add("ConversionError", py.get_type::<ConversionError>())?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(_check_seconds_per_call, m)?)?;
    m.add_function(wrap_pyfunction!(repair, m)?)?;
    m.add_function(wrap_pyfunction!(default_repair_message, m)?)?;
    m.add_function(wrap_pyfunction!(trim, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(export, m)?)?;
    m.add_function(wrap_pyfunction!(fmt, m)?)?;
    m.add_function(wrap_pyfunction!(assemble, m)?)?;
    m.add_class::<history_cache::HistoryCache>()?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_class::<arrow::ArrowColumn>()?;
    m.add_function(wrap_pyfunction!(arrow::arrow_check, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_repair, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_trim, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_export, m)?)?;
    Ok(())
}
