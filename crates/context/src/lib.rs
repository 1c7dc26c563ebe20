//! Fit a pydantic-ai history into a context window, safely, saying exactly what was done.
//!
//! * [`Turns`] (from `msgflow-sanitize`, built on the pairing `check` and `repair` use): where a
//!   history can be cut without separating a tool call from its result.
//! * [`trim::trim`]: the newest whole turns that fit a token, turn or byte budget, with the
//!   system prompt and instructions of the first request kept; every kept message is the input's.
//! * [`clear`]: old tool results replaced by a placeholder (msgflow's by turn, or
//!   pydantic-ai-harness's `ClearToolResults`).
//! * [`clamp`]: oversized parts cut to head and tail (msgflow's, request side too, or
//!   pydantic-ai-harness's `ClampOversizedMessages`).
//! * [`media`]: inline binary items moved out to content-addressed files, and back byte for byte.
//! * [`tokens`]: token counts with OpenAI's real encodings, media by each provider's rule, and a
//!   calibrated estimate for the others.
//!
//! ```
//! use msgflow_context::tokens::{TokenCounter, Tokenizer};
//! use msgflow_context::trim::{trim, Budget};
//! let history = msgflow_wire::from_slice(&std::fs::read("../../examples/interrupted-session.json")?)?;
//! let counter = TokenCounter::new(Tokenizer::O200kBase);
//! let trimmed = trim(history, Budget::Turns(1), &counter)?;
//! assert_eq!(trimmed.report.turns_kept, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod clamp;
pub mod clear;
pub mod media;
pub mod tokens;
pub mod trim;

pub use msgflow_sanitize::{opens_turn, Turns};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
