//! msgflow-transcript: a pydantic-ai history as one self-contained HTML page.
//!
//! [`render`] writes the page: the conversation as a chat (Markdown text, collapsed thinking,
//! tool calls linked both ways to their results), the findings of `check` (or a provider's rules)
//! marked at their message and part, media inline, and a chart of where the tokens go.
//! [`render_index`] writes the page that lists several transcripts.
//!
//! Every string of a history is treated as hostile. Everything is escaped; links keep only
//! `http`, `https` and `mailto` URLs; nothing is loaded from anywhere (images are inline `data:`
//! URLs, bounded in size); and the page's Content-Security-Policy allows only its own script and
//! style (by their SHA-256) and `data:` images and media, so that even a mistake in escaping could
//! not run or fetch anything.

mod chart;
pub mod display;
pub mod escape;
mod markdown;
mod media;
mod messages;
mod page;

pub use page::{render, render_index};

/// A finding to show at its place in the history: one line of `check`, or of
/// `check --provider P`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    /// The message it is about, zero-based.
    pub message: usize,
    /// The part it is about, zero-based, when it is about one.
    pub part: Option<usize>,
    /// Who says so: `check`, or the provider's name.
    pub source: String,
    /// The text the command prints for it.
    pub text: String,
}

/// Tokens per message, as a counter counts them (msgflow-context's `stats --tokens` counter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenCounts {
    /// The counter's name (`o200k_base`, ...).
    pub counter: String,
    /// The tokens of each message, in history order.
    pub per_message: Vec<usize>,
}

/// What to show besides the history itself.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The page title (usually the file name).
    pub title: String,
    /// Findings to mark on the page.
    pub markers: Vec<Marker>,
    /// Whether pydantic-ai 2.68.0 would load the history (shown at the top), when known.
    pub loadable: Option<bool>,
    /// Tokens per message, for the chart and the message headers.
    pub tokens: Option<TokenCounts>,
    /// A context window to draw the cumulative count against.
    pub context_window: Option<u64>,
    /// Findings about the whole history, shown at the top (a provider's rules that could not be
    /// applied, ...).
    pub notes: Vec<String>,
    /// The largest binary item embedded in the page, in decoded bytes (`None`: the default,
    /// [`DEFAULT_MAX_EMBEDDED_BYTES`]); larger ones are described but not embedded.
    pub max_embedded_bytes: Option<usize>,
}

/// The largest image, document, audio or video file embedded by default: 4 MiB.
pub const DEFAULT_MAX_EMBEDDED_BYTES: usize = 4 << 20;

/// What a rendered page holds, for an index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Messages in the history.
    pub messages: usize,
    /// Tool calls (function and builtin).
    pub tool_calls: usize,
    /// Markers shown.
    pub markers: usize,
    /// Whether pydantic-ai 2.68.0 would load the history, when known.
    pub loadable: Option<bool>,
}

/// One transcript listed by [`render_index`].
#[derive(Clone, Debug)]
pub struct IndexEntry {
    /// The input's name.
    pub name: String,
    /// The page's path relative to the index, `/`-separated; `None` when no page was written.
    pub href: Option<String>,
    /// What the page holds, or why there is none.
    pub outcome: Result<Summary, String>,
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
