//! `msgflow._msgflow`: the native module behind the Python package `msgflow`.
//!
//! Thin by design: every function parses pydantic-ai JSON bytes with msgflow-wire, calls the same
//! library function the CLI calls, and hands back bytes and a JSON report that the pure-Python
//! facade (`python/msgflow/__init__.py`) turns into frozen result objects. The work runs with the
//! GIL released ([`Python::detach`]); Python objects are only touched before and after.

mod arrow;
mod ops;

use msgflow_providers::ExportError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::IntoPyObjectExt;

pub use ops::Error;

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

/// Runs `work` without the GIL and turns its error into the documented exception.
fn run<T: Send>(py: Python<'_>, work: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    py.detach(work).map_err(|error| to_py_err(py, error, None))
}

/// `check`: the report as JSON (see `ops::check`).
#[pyfunction]
#[pyo3(signature = (data, provider=None))]
fn check(py: Python<'_>, data: &[u8], provider: Option<&str>) -> PyResult<String> {
    run(py, || ops::check(data, provider))
}

/// `repair`: the repaired history's bytes and the report as JSON.
#[pyfunction]
#[pyo3(signature = (data, provider=None, message=None, keep_last_response=false))]
fn repair<'py>(
    py: Python<'py>,
    data: &[u8],
    provider: Option<&str>,
    message: Option<&str>,
    keep_last_response: bool,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let (history, report) = run(py, || ops::repair(data, provider, message, keep_last_response))?;
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
    clear_tool_results_older_than=None, clamp_parts=None))]
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
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let options = ops::TrimOptions {
        max_tokens,
        keep_turns,
        max_bytes,
        tokenizer,
        clear_tool_results_older_than,
        clamp_parts,
    };
    let trimmed = run(py, || ops::trim(data, &options))?;
    Ok((PyBytes::new(py, &trimmed.history), trimmed.report))
}

/// `count_tokens`: the token report as JSON (`msgflow stats --tokens --json`).
#[pyfunction]
#[pyo3(signature = (data, tokenizer="o200k_base"))]
fn count_tokens(py: Python<'_>, data: &[u8], tokenizer: &str) -> PyResult<String> {
    run(py, || ops::count_tokens(data, tokenizer))
}

/// `export`: the request pydantic-ai would send, as JSON.
#[pyfunction]
fn export(py: Python<'_>, data: &[u8], to: &str) -> PyResult<String> {
    run(py, || ops::export(data, to))
}

/// `fmt`: the bytes pydantic-ai's `dump_json` writes for the history.
#[pyfunction]
fn fmt<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run(py, || ops::fmt(data))?;
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
    let (bytes, report) = run(py, || {
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
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(repair, m)?)?;
    m.add_function(wrap_pyfunction!(default_repair_message, m)?)?;
    m.add_function(wrap_pyfunction!(trim, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(export, m)?)?;
    m.add_function(wrap_pyfunction!(fmt, m)?)?;
    m.add_function(wrap_pyfunction!(assemble, m)?)?;
    m.add_class::<arrow::ArrowColumn>()?;
    m.add_function(wrap_pyfunction!(arrow::arrow_check, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_repair, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_trim, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::arrow_export, m)?)?;
    Ok(())
}
