//! Where the parser is: the thread-local parse context with the JSON path being read, where the
//! first error happened (path and absolute byte offset), and line/column arithmetic.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::value::RawValue;

/// One step of a JSON path.
#[derive(Clone, Debug)]
pub(crate) enum Segment {
    Index(usize),
    Key(Cow<'static, str>),
}

/// Parse state for error reporting.
#[derive(Default)]
pub(crate) struct Context {
    /// Address and length of the input being parsed, to turn raw slices into offsets.
    base: usize,
    len: usize,
    /// The input itself when it is shared: opaque values then become slices of it.
    shared: Option<Arc<String>>,
    path: Vec<Segment>,
    /// The path where the first (innermost) error was seen.
    error_path: Option<Vec<Segment>>,
    /// The absolute byte offset of the first error raised while re-reading a raw slice.
    error_offset: Option<usize>,
}

thread_local! {
    static CONTEXT: RefCell<Context> = RefCell::new(Context::default());
}

/// Installs a fresh context for parsing `input` and restores the previous one afterwards.
pub(crate) struct ContextGuard {
    previous: Option<Context>,
}

impl ContextGuard {
    pub(crate) fn new(input: &[u8]) -> Self {
        Self::install(Context {
            base: input.as_ptr() as usize,
            len: input.len(),
            ..Context::default()
        })
    }

    /// A context whose opaque values are slices of `input` rather than copies.
    pub(crate) fn shared(input: &Arc<String>) -> Self {
        Self::install(Context {
            base: input.as_ptr() as usize,
            len: input.len(),
            shared: Some(Arc::clone(input)),
            ..Context::default()
        })
    }

    fn install(fresh: Context) -> Self {
        let previous = CONTEXT.with(|ctx| std::mem::replace(&mut *ctx.borrow_mut(), fresh));
        ContextGuard {
            previous: Some(previous),
        }
    }

    /// The JSON path and absolute byte offset recorded for the error being reported.
    pub(crate) fn error_location(&self) -> (String, Option<usize>) {
        CONTEXT.with(|ctx| {
            let ctx = ctx.borrow();
            let path = ctx.error_path.as_deref().unwrap_or(&ctx.path);
            (format_path(path), ctx.error_offset)
        })
    }
}

impl Drop for ContextGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            CONTEXT.with(|ctx| *ctx.borrow_mut() = previous);
        }
    }
}

/// The input a thread's context reads (its address, its length and the shared text, if any), so
/// that other threads can parse pieces of it with the same slices and the same offsets.
#[derive(Clone)]
pub(crate) struct InputContext {
    base: usize,
    len: usize,
    shared: Option<Arc<String>>,
}

impl InputContext {
    /// The input of the calling thread's context.
    pub(crate) fn current() -> Self {
        CONTEXT.with(|ctx| {
            let ctx = ctx.borrow();
            InputContext {
                base: ctx.base,
                len: ctx.len,
                shared: ctx.shared.clone(),
            }
        })
    }

    /// Installs a fresh context for this input on the calling thread.
    pub(crate) fn install(&self) -> ContextGuard {
        ContextGuard::install(Context {
            base: self.base,
            len: self.len,
            shared: self.shared.clone(),
            ..Context::default()
        })
    }
}

/// When `text` lies inside the shared input being parsed: that input and `text`'s offset in it.
pub(crate) fn shared_input_range(text: &str) -> Option<(Arc<String>, usize)> {
    CONTEXT.with(|ctx| {
        let ctx = ctx.borrow();
        let input = ctx.shared.as_ref()?;
        let start = (text.as_ptr() as usize).checked_sub(ctx.base)?;
        (start + text.len() <= ctx.len).then(|| (Arc::clone(input), start))
    })
}

pub(crate) fn format_path(path: &[Segment]) -> String {
    let mut out = String::from("$");
    for segment in path {
        match segment {
            Segment::Index(index) => {
                let _ = write!(out, "[{index}]");
            }
            Segment::Key(key) if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !key.is_empty() => {
                let _ = write!(out, ".{key}");
            }
            Segment::Key(key) => {
                let _ = write!(out, "[{}]", serde_json::to_string(key.as_ref()).unwrap_or_default());
            }
        }
    }
    out
}

pub(super) fn push(segment: Segment) {
    CONTEXT.with(|ctx| ctx.borrow_mut().path.push(segment));
}

pub(super) fn pop() {
    CONTEXT.with(|ctx| {
        ctx.borrow_mut().path.pop();
    });
}

/// Records the current path as the error's location, unless an inner frame already did.
pub(super) fn note_error_path() {
    CONTEXT.with(|ctx| {
        let mut ctx = ctx.borrow_mut();
        if ctx.error_path.is_none() {
            ctx.error_path = Some(ctx.path.clone());
        }
    });
}

/// Records where in the whole input an error raised inside `raw` happened.
pub(super) fn note_error_offset(raw: &str, line: usize, column: usize) {
    CONTEXT.with(|ctx| {
        let mut ctx = ctx.borrow_mut();
        if ctx.error_offset.is_some() {
            return;
        }
        let start = raw.as_ptr() as usize;
        if start < ctx.base || start > ctx.base + ctx.len {
            return;
        }
        let relative = offset_of(raw, line, column);
        ctx.error_offset = Some(start - ctx.base + relative);
    });
}

/// Records the start of `raw` as the error's offset (for errors about a whole value).
pub(crate) fn note_error_at(raw: &RawValue) {
    note_error_path();
    note_error_offset(raw.get(), 1, 1);
}

/// The byte offset of a 1-based (line, column) position inside `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (index, piece) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            return offset + column.saturating_sub(1).min(piece.len());
        }
        offset += piece.len();
    }
    text.len()
}

/// The byte offset of a 1-based (line, column) position in the whole input.
pub(crate) fn offset_of_line_column(input: &[u8], line: usize, column: usize) -> usize {
    let text = std::str::from_utf8(input).unwrap_or_default();
    offset_of(text, line, column)
}

/// The 1-based (line, column) of a byte offset in `input`.
pub(crate) fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = input.get(..offset).unwrap_or(input);
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |at| at + 1);
    (line, offset - line_start + 1)
}

/// The message of a serde_json error without its " at line L column C" suffix (msgflow reports
/// the absolute position itself).
pub(crate) fn message_of(err: &serde_json::Error) -> String {
    let text = err.to_string();
    if err.line() == 0 {
        return text;
    }
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    text.strip_suffix(&suffix).map(str::to_owned).unwrap_or(text)
}
