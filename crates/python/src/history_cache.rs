//! `msgflow._msgflow.HistoryCache`: a history's messages parsed and counted once, across the
//! model requests of a run.
//!
//! pydantic-ai hands each `before_model_request` the run's history again: the same message
//! objects, a few new ones at the end. The cache keeps, for every message it has seen, the object
//! itself, a fingerprint of it, its parsed form and its tokens; a request then bridges
//! (`dump_json`), parses and counts only the messages from the first one that is not the cached
//! one any more. The fingerprint is what a cheap walk can see of an edit made in place: the
//! identity of every attribute value of the message and of each of its parts, and the length of
//! each list, tuple and dict among them (a part appended, a content reassigned, the instructions
//! pydantic-ai sets on the newest request). The cache holds a reference to each of those values,
//! so no address is reused while it compares. What it cannot see is an edit deeper inside a
//! value (a key of a tool call's `args` dict changed in place); replacing the part or the
//! message, as pydantic-ai's own processors do, is always seen.

use msgflow_context::tokens::{TokenCounter, Tokenizer};
use msgflow_wire::ModelMessage;
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use rayon::prelude::*;

use crate::fit::{self, FitOptions};
use crate::ops::{self, Error};

/// From this many new messages on, they are counted in parallel.
const PARALLEL_FROM: usize = 1024;

/// One value the fingerprint holds: the object, and its length when it is a container.
struct Seen {
    value: Py<PyAny>,
    len: Option<usize>,
}

impl Seen {
    fn of(value: &Bound<'_, PyAny>) -> Seen {
        Seen {
            value: value.clone().unbind(),
            len: container_len(value),
        }
    }

    fn is(&self, value: &Bound<'_, PyAny>) -> bool {
        // The same object has the same type: only a container's length can have changed.
        self.value.as_ptr() == value.as_ptr() && (self.len.is_none() || self.len == container_len(value))
    }
}

fn container_len(value: &Bound<'_, PyAny>) -> Option<usize> {
    if let Ok(list) = value.cast::<PyList>() {
        Some(list.len())
    } else if let Ok(dict) = value.cast::<PyDict>() {
        Some(dict.len())
    } else if let Ok(tuple) = value.cast::<PyTuple>() {
        Some(tuple.len())
    } else {
        None
    }
}

/// Calls `visit` on every value of a message's fingerprint, in order, until it answers `false`;
/// `Ok(false)` then. An object without a `__dict__` fails: it cannot be fingerprinted.
fn walk(message: &Bound<'_, PyAny>, visit: &mut impl FnMut(&Bound<'_, PyAny>) -> bool) -> PyResult<bool> {
    let py = message.py();
    if !visit(message) || !walk_fields(message, visit)? {
        return Ok(false);
    }
    for part in message.getattr(intern!(py, "parts"))?.try_iter()? {
        let part = part?;
        if !visit(&part) || !walk_fields(&part, visit)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn walk_fields(object: &Bound<'_, PyAny>, visit: &mut impl FnMut(&Bound<'_, PyAny>) -> bool) -> PyResult<bool> {
    let fields = object.getattr(intern!(object.py(), "__dict__"))?;
    for (_, value) in fields.cast::<PyDict>()?.iter() {
        if !visit(&value) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A cached message's fingerprint, the message object first (`None` when it has none: never a
/// hit). Its parsed form and tokens are at the same index in [`HistoryCache`].
struct Entry {
    fingerprint: Option<Vec<Seen>>,
}

impl Entry {
    fn of(message: &Bound<'_, PyAny>) -> Entry {
        let mut seen = Vec::new();
        let fingerprint = walk(message, &mut |value| {
            seen.push(Seen::of(value));
            true
        });
        Entry {
            fingerprint: matches!(fingerprint, Ok(true)).then_some(seen),
        }
    }

    /// Whether `message` is the cached object with the same fingerprint. The walk of
    /// [`walk`], on borrowed references: a cache hit touches no reference count (on a history of
    /// thousands of messages, every one is a trip to memory).
    fn matches(&self, message: &Bound<'_, PyAny>) -> bool {
        let Some(fingerprint) = &self.fingerprint else {
            return false;
        };
        let py = message.py();
        let Ok(parts) = message.getattr(intern!(py, "parts")) else {
            return false;
        };
        let mut expected = fingerprint.iter();
        let Ok(parts) = parts.cast::<PyList>() else {
            // Not a list (pydantic-ai makes lists): the general walk.
            let walked = walk(message, &mut |value| expected.next().is_some_and(|seen| seen.is(value)));
            return matches!(walked, Ok(true)) && expected.next().is_none();
        };
        let mut same = |value: *mut ffi::PyObject| {
            expected.next().is_some_and(|seen| {
                // SAFETY: `value` is a live object borrowed from its container while the GIL is
                // held; `PyObject_Size` only reads it.
                seen.value.as_ptr() == value
                    && seen
                        .len
                        .is_none_or(|len| usize::try_from(unsafe { ffi::PyObject_Size(value) }).ok() == Some(len))
            })
        };
        if !same(message.as_ptr()) || !same_fields(message, &mut same) {
            return false;
        }
        for index in 0..parts.len() {
            // SAFETY: `index` is within the list, which the GIL keeps as it is; the item is
            // borrowed from it.
            let part = unsafe { ffi::PyList_GetItem(parts.as_ptr(), index as ffi::Py_ssize_t) };
            if part.is_null() {
                return false;
            }
            // SAFETY: a borrowed item of a list we hold a reference to.
            let part = unsafe { Bound::from_borrowed_ptr(py, part) };
            if !same(part.as_ptr()) || !same_fields(&part, &mut same) {
                return false;
            }
        }
        expected.next().is_none()
    }
}

/// Calls `same` on each attribute value of `object` (borrowed, in `__dict__` order) until it
/// answers `false`.
fn same_fields(object: &Bound<'_, PyAny>, same: &mut impl FnMut(*mut ffi::PyObject) -> bool) -> bool {
    let Ok(fields) = object.getattr(intern!(object.py(), "__dict__")) else {
        return false;
    };
    let Ok(fields) = fields.cast::<PyDict>() else {
        return false;
    };
    let mut position: ffi::Py_ssize_t = 0;
    let mut key: *mut ffi::PyObject = std::ptr::null_mut();
    let mut value: *mut ffi::PyObject = std::ptr::null_mut();
    // SAFETY: `PyDict_Next` walks a dict we hold a reference to, with the GIL held and nothing
    // changing it meanwhile; it hands out borrowed references.
    while unsafe { ffi::PyDict_Next(fields.as_ptr(), &mut position, &mut key, &mut value) } != 0 {
        if !same(value) {
            return false;
        }
    }
    true
}

/// A history's messages parsed and counted once (see the module's documentation). Used by
/// `msgflow.pydantic_ai.HistoryCache`, which serialises access to it.
#[pyclass(module = "msgflow._msgflow")]
pub struct HistoryCache {
    tokenizer: Tokenizer,
    counter: TokenCounter,
    entries: Vec<Entry>,
    messages: Vec<ModelMessage>,
    tokens: Vec<usize>,
}

#[pymethods]
impl HistoryCache {
    /// An empty cache counting with `tokenizer` (`o200k_base`, `cl100k_base` or `chars4`).
    #[new]
    #[pyo3(signature = (tokenizer="o200k_base"))]
    fn new(tokenizer: &str) -> PyResult<HistoryCache> {
        if tokenizer == "calibrated" {
            return Err(PyValueError::new_err(
                "a HistoryCache counts each message once; tokenizer='calibrated' scales every count by the \
                 whole history's recorded usage, which changes as it grows",
            ));
        }
        let tokenizer: Tokenizer = tokenizer.parse().map_err(PyValueError::new_err)?;
        Ok(HistoryCache {
            tokenizer,
            counter: TokenCounter::new(tokenizer),
            entries: Vec::new(),
            messages: Vec::new(),
            tokens: Vec::new(),
        })
    }

    /// The tokenizer's name.
    #[getter]
    fn tokenizer(&self) -> &'static str {
        self.tokenizer.name()
    }

    fn __len__(&self) -> usize {
        self.entries.len()
    }

    /// The index of the first message of `messages` that is not the cached one (its length when
    /// every message is cached): what `update` must be given from.
    fn stale_from(&self, messages: &Bound<'_, PyList>) -> usize {
        self.entries
            .iter()
            .zip(messages.iter())
            .position(|(entry, message)| !entry.matches(&message))
            .unwrap_or_else(|| self.entries.len().min(messages.len()))
    }

    /// Caches `messages`, whose messages before `start` are cached already (`stale_from`):
    /// `data` is `ModelMessagesTypeAdapter.dump_json(messages[start:])`.
    fn update(&mut self, py: Python<'_>, messages: &Bound<'_, PyList>, start: usize, data: &[u8]) -> PyResult<()> {
        if start > self.entries.len() || start > messages.len() {
            return Err(PyValueError::new_err(format!(
                "start {start} is past the {} cached messages or the {} given",
                self.entries.len(),
                messages.len()
            )));
        }
        let counter = &self.counter;
        let (parsed, tokens) = crate::run(py, data.len(), || {
            let parsed = msgflow_wire::from_slice(data).map_err(Error::Parse)?;
            let tokens: Vec<usize> = if parsed.len() >= PARALLEL_FROM {
                parsed
                    .par_iter()
                    .map(|message| counter.count_message(message))
                    .collect()
            } else {
                parsed.iter().map(|message| counter.count_message(message)).collect()
            };
            Ok((parsed, tokens))
        })?;
        let new = messages.len() - start;
        if parsed.len() != new {
            return Err(PyValueError::new_err(format!(
                "data holds {} messages, not the {new} messages from {start} on",
                parsed.len()
            )));
        }
        let entries: Vec<Entry> = messages.iter().skip(start).map(|message| Entry::of(&message)).collect();
        self.entries.truncate(start);
        self.messages.truncate(start);
        self.tokens.truncate(start);
        self.entries.extend(entries);
        self.messages.extend(parsed);
        self.tokens.extend(tokens);
        Ok(())
    }

    /// `msgflow.trim(max_tokens=..., ...)` of the cached history: the first message kept, the
    /// output indices of the messages that are not the input's, those messages as JSON, and the
    /// figures (`tokens_before`, `tokens_after`, `removed`, `messages_before`) as JSON.
    #[pyo3(signature = (max_tokens, clear_tool_results_older_than=None, clamp_parts=None))]
    fn fit<'py>(
        &self,
        py: Python<'py>,
        max_tokens: usize,
        clear_tool_results_older_than: Option<usize>,
        clamp_parts: Option<usize>,
    ) -> PyResult<(usize, Vec<usize>, Bound<'py, PyBytes>, String)> {
        let options = FitOptions {
            max_tokens,
            clear_tool_results_older_than,
            clamp_parts,
        };
        let (start, indices, changed, summary) = crate::run(py, usize::MAX, || {
            let fitted = fit::fit(&self.messages, &self.tokens, &self.counter, &options)?;
            let (indices, changed): (Vec<usize>, Vec<ModelMessage>) = fitted.changed.into_iter().unzip();
            Ok((
                fitted.start,
                indices,
                ops::write(&changed)?,
                ops::to_json(&fitted.summary)?,
            ))
        })?;
        Ok((start, indices, PyBytes::new(py, &changed), summary))
    }
}
