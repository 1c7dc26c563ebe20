//! `msgflow.arrow`'s native half: a column of history JSON in, one result row per input row out,
//! the rows worked on in parallel (rayon) with the GIL released.
//!
//! Every function returns a struct column: the operation's fields, then `error`. A null input row
//! gives a null struct row; a row that is not a history (or that the operation refuses) gives a
//! valid struct row whose result fields are null and whose `error` says why, unless the caller asks
//! for the first such row to raise (`raise_errors`).

mod ffi;

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, Int64Array, LargeStringArray, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

pub use ffi::ArrowColumn;

use crate::ops::{self, Error};
use crate::to_py_err;

/// One input row's outcome: `None` for a null row.
type Outcome<T> = Option<Result<T, Error>>;

/// The bytes of each row of `arrays` (their chunks in order), `None` for a null row.
fn row_bytes(arrays: &[ArrayRef]) -> Result<Vec<Option<&[u8]>>, String> {
    let mut rows = Vec::with_capacity(arrays.iter().map(|array| array.len()).sum());
    for array in arrays {
        match array.data_type() {
            DataType::Utf8 => rows.extend(array.as_string::<i32>().iter().map(|row| row.map(str::as_bytes))),
            DataType::LargeUtf8 => rows.extend(array.as_string::<i64>().iter().map(|row| row.map(str::as_bytes))),
            DataType::Utf8View => rows.extend(array.as_string_view().iter().map(|row| row.map(str::as_bytes))),
            DataType::Binary => rows.extend(array.as_binary::<i32>().iter()),
            DataType::LargeBinary => rows.extend(array.as_binary::<i64>().iter()),
            DataType::BinaryView => rows.extend(array.as_binary_view().iter()),
            DataType::Null => rows.extend(std::iter::repeat_n(None, array.len())),
            // A table or query result of one column (a DuckDB relation, a pyarrow `Table`) streams
            // its rows as a struct of that column.
            DataType::Struct(fields) if fields.len() == 1 && array.null_count() == 0 => {
                rows.extend(row_bytes(std::slice::from_ref(array.as_struct().column(0)))?);
            }
            other => {
                return Err(format!(
                    "expected a column of history JSON (string, large_string, string_view, binary, large_binary \
                     or binary_view, or a table of that one column), not {other}"
                ))
            }
        }
    }
    Ok(rows)
}

/// The column's rows, each through `work` in parallel without the GIL, then into a struct column by
/// `fields`. With `raise_errors`, the first row that fails raises its exception (naming the row).
fn map_rows<T: Send>(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    raise_errors: bool,
    work: impl Fn(&[u8]) -> Result<T, Error> + Sync + Send,
    fields: impl FnOnce(&[Outcome<T>]) -> Vec<(Field, ArrayRef)> + Send,
) -> PyResult<ArrowColumn> {
    let arrays = ffi::import_column(column)?;
    let rows = row_bytes(&arrays).map_err(PyValueError::new_err)?;
    let built = py.detach(|| {
        let mut outcomes: Vec<Outcome<T>> = rows.par_iter().map(|row| row.map(&work)).collect();
        if raise_errors {
            if let Some(index) = outcomes.iter().position(|outcome| matches!(outcome, Some(Err(_)))) {
                if let Some(Err(error)) = outcomes.swap_remove(index) {
                    return Err((index, error));
                }
            }
        }
        Ok(struct_column(&outcomes, fields(&outcomes)))
    });
    match built {
        Ok(Ok(array)) => Ok(ArrowColumn::new(array)),
        Ok(Err(message)) => Err(PyValueError::new_err(message)),
        Err((row, error)) => Err(to_py_err(py, error, Some(row))),
    }
}

/// The struct column of `fields` and `error`, null where the input row was null.
fn struct_column<T>(outcomes: &[Outcome<T>], mut fields: Vec<(Field, ArrayRef)>) -> Result<ArrayRef, String> {
    let errors: LargeStringArray = outcomes
        .iter()
        .map(|outcome| match outcome {
            Some(Err(error)) => Some(error.to_string()),
            _ => None,
        })
        .collect();
    fields.push((Field::new("error", DataType::LargeUtf8, true), Arc::new(errors)));
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = fields.into_iter().unzip();
    let validity = NullBuffer::from_iter(outcomes.iter().map(Option::is_some));
    let validity = (validity.null_count() > 0).then_some(validity);
    StructArray::try_new(Fields::from(fields), arrays, validity)
        .map(|array| Arc::new(array) as ArrayRef)
        .map_err(|err| format!("cannot build the result column: {err}"))
}

/// The result of a row that was read, `None` for a null or failed row.
fn done<T>(outcome: &Outcome<T>) -> Option<&T> {
    outcome.as_ref().and_then(|result| result.as_ref().ok())
}

fn booleans<T>(name: &str, outcomes: &[Outcome<T>], value: impl Fn(&T) -> bool) -> (Field, ArrayRef) {
    let array: BooleanArray = outcomes.iter().map(|outcome| done(outcome).map(&value)).collect();
    (Field::new(name, DataType::Boolean, true), Arc::new(array))
}

fn integers<T>(name: &str, outcomes: &[Outcome<T>], value: impl Fn(&T) -> usize) -> (Field, ArrayRef) {
    let array: Int64Array = outcomes
        .iter()
        .map(|outcome| done(outcome).map(|result| i64::try_from(value(result)).unwrap_or(i64::MAX)))
        .collect();
    (Field::new(name, DataType::Int64, true), Arc::new(array))
}

/// A text field: `large_string`, as the histories of one batch can pass `string`'s 2 GiB.
fn texts<T>(name: &str, outcomes: &[Outcome<T>], value: impl Fn(&T) -> &[u8]) -> (Field, ArrayRef) {
    let array: LargeStringArray = outcomes
        .iter()
        .map(|outcome| done(outcome).map(|result| String::from_utf8_lossy(value(result))))
        .collect();
    (Field::new(name, DataType::LargeUtf8, true), Arc::new(array))
}

/// A text field that may be null for a row that was read (`large_string`, as [`texts`]).
fn optional_texts<T>(name: &str, outcomes: &[Outcome<T>], value: impl Fn(&T) -> Option<&str>) -> (Field, ArrayRef) {
    let array: LargeStringArray = outcomes.iter().map(|outcome| done(outcome).and_then(&value)).collect();
    (Field::new(name, DataType::LargeUtf8, true), Arc::new(array))
}

/// `list<string>`: each row's codes (a few short names, far from `string`'s 2 GiB per batch).
fn code_lists<T>(name: &str, outcomes: &[Outcome<T>], value: impl Fn(&T) -> &[String]) -> (Field, ArrayRef) {
    let mut builder = ListBuilder::new(StringBuilder::new());
    for outcome in outcomes {
        match done(outcome) {
            Some(result) => {
                for code in value(result) {
                    builder.values().append_value(code);
                }
                builder.append(true);
            }
            None => builder.append(false),
        }
    }
    let array = builder.finish();
    (Field::new(name, array.data_type().clone(), true), Arc::new(array))
}

/// The provider a `provider=` argument names, checked before any row is read.
fn provider_argument(py: Python<'_>, name: Option<&str>) -> PyResult<Option<msgflow_providers::Provider>> {
    name.map(ops::provider)
        .transpose()
        .map_err(|err| to_py_err(py, err, None))
}

/// `msgflow.arrow.check`: `loadable`, `valid`, `problems` (codes), `report` (`check --json`), `error`.
#[pyfunction]
#[pyo3(signature = (column, provider=None, raise_errors=false))]
pub fn arrow_check(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    provider: Option<&str>,
    raise_errors: bool,
) -> PyResult<ArrowColumn> {
    let provider = provider_argument(py, provider)?;
    map_rows(
        py,
        column,
        raise_errors,
        |data| ops::check_history(data, provider, &Default::default()),
        |outcomes| {
            vec![
                booleans("loadable", outcomes, |checked| checked.loadable),
                booleans("valid", outcomes, |checked| checked.valid),
                code_lists("problems", outcomes, |checked| &checked.codes),
                texts("report", outcomes, |checked| checked.document.as_bytes()),
            ]
        },
    )
}

/// `msgflow.arrow.repair`: `history` (repaired), `changes`, `report` (`repair --report`), `error`.
#[pyfunction]
#[pyo3(signature = (column, provider=None, message=None, keep_last_response=false, raise_errors=false))]
pub fn arrow_repair(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    provider: Option<&str>,
    message: Option<&str>,
    keep_last_response: bool,
    raise_errors: bool,
) -> PyResult<ArrowColumn> {
    let provider = provider_argument(py, provider)?;
    let options = ops::repair_options(message, keep_last_response);
    map_rows(
        py,
        column,
        raise_errors,
        |data| ops::repair_history(data, provider, &options),
        |outcomes| {
            vec![
                texts("history", outcomes, |repaired| &repaired.history),
                integers("changes", outcomes, |repaired| repaired.changes),
                texts("report", outcomes, |repaired| repaired.report.as_bytes()),
            ]
        },
    )
}

/// `msgflow.arrow.trim`: `history` (trimmed), `tokens_before`, `tokens_after`, `report`, `error`.
#[pyfunction]
#[pyo3(signature = (column, max_tokens=None, keep_turns=None, max_bytes=None, tokenizer="o200k_base",
    clear_tool_results_older_than=None, clamp_parts=None, raise_errors=false))]
#[allow(clippy::too_many_arguments)]
pub fn arrow_trim(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    max_tokens: Option<usize>,
    keep_turns: Option<usize>,
    max_bytes: Option<usize>,
    tokenizer: &str,
    clear_tool_results_older_than: Option<usize>,
    clamp_parts: Option<usize>,
    raise_errors: bool,
) -> PyResult<ArrowColumn> {
    let options = ops::TrimOptions {
        max_tokens,
        keep_turns,
        max_bytes,
        tokenizer,
        clear_tool_results_older_than,
        clamp_parts,
        harness_clear: None,
        harness_clamp: None,
    };
    options.validate().map_err(|err| to_py_err(py, err, None))?;
    map_rows(
        py,
        column,
        raise_errors,
        |data| ops::trim(data, &options),
        |outcomes| {
            vec![
                texts("history", outcomes, |trimmed| &trimmed.history),
                integers("tokens_before", outcomes, |trimmed| trimmed.tokens_before),
                integers("tokens_after", outcomes, |trimmed| trimmed.tokens_after),
                texts("report", outcomes, |trimmed| trimmed.report.as_bytes()),
            ]
        },
    )
}

/// `msgflow.arrow.count_tokens`: `tokens` (the total), `report` (`stats --tokens --json`), `error`.
#[pyfunction]
#[pyo3(signature = (column, tokenizer="o200k_base", raise_errors=false))]
pub fn arrow_count_tokens(
    py: Python<'_>,
    column: &Bound<'_, PyAny>,
    tokenizer: &str,
    raise_errors: bool,
) -> PyResult<ArrowColumn> {
    ops::validate_tokenizer(tokenizer).map_err(|err| to_py_err(py, err, None))?;
    map_rows(
        py,
        column,
        raise_errors,
        |data| ops::count_history_tokens(data, tokenizer),
        |outcomes| {
            vec![
                integers("tokens", outcomes, |(total, _)| *total),
                texts("report", outcomes, |(_, document)| document.as_bytes()),
            ]
        },
    )
}

/// `msgflow.arrow.export`: `request` (the provider request as JSON), `invented_ids` (the note on
/// tool parts it names by ids msgflow made up, null when there are none), `error`.
#[pyfunction]
#[pyo3(signature = (column, to, raise_errors=false))]
pub fn arrow_export(py: Python<'_>, column: &Bound<'_, PyAny>, to: &str, raise_errors: bool) -> PyResult<ArrowColumn> {
    let provider = ops::provider(to).map_err(|err| to_py_err(py, err, None))?;
    map_rows(
        py,
        column,
        raise_errors,
        |data| ops::export_history(data, provider, &Default::default()),
        |outcomes| {
            vec![
                texts("request", outcomes, |exported| exported.request.as_bytes()),
                optional_texts("invented_ids", outcomes, |exported| exported.invented_ids.as_deref()),
            ]
        },
    )
}
