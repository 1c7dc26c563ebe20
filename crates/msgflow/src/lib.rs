//! msgflow: pydantic-ai message histories in Rust.
//!
//! This crate is a facade over msgflow's focused crates, re-exported as modules:
//!
//! * [`wire`]: the wire types generated from the JSON Schema; parse and write histories byte for
//!   byte (`msgflow_wire`).
//! * [`canonical`]: the small, immutable `CanonicalMessage { role, parts }` model
//!   (`msgflow_canonical`).
//! * [`adapter`]: conversions between the two, and history helpers (`msgflow_adapter`).
//! * [`sanitize`]: find invariant breaks and repair a history so that every tool call has its
//!   return (`msgflow_sanitize`).
//! * [`registry`]: the lifecycle of each tool call and hints for the next model turn
//!   (`msgflow_registry`).
//! * [`media`]: file items built in Rust exactly as pydantic-ai builds them (`msgflow_media`).
//! * [`providers`]: the request pydantic-ai would send to Anthropic or OpenAI for a history, and
//!   each provider's rules (`msgflow_providers`).
//! * [`formats`]: conversions between histories and the formats around pydantic-ai (OpenAI Chat
//!   messages, Anthropic requests, Vercel AI and AG-UI messages, OpenTelemetry span messages),
//!   reporting what each drops or invents
//!   (`msgflow_formats`).
//! * [`stream`]: pydantic-ai's streaming parts manager, event logs back to messages, interrupted
//!   streams (`msgflow_stream`).
//! * [`context`]: fit a history into a context window: pair-safe trimming by turns, clearing,
//!   clamping, token counts (`msgflow_context`).
//! * [`transcript`]: a history as one self-contained, inert HTML page (`msgflow_transcript`).
//! * [`corpus`]: many histories in one JSON Lines or Parquet file, read and written in streamed
//!   batches, rows processed in parallel (`msgflow_corpus`).
//!
//! ```
//! use msgflow::{sanitize, wire};
//!
//! // A session aborted while a tool was running: the last response's call has no return.
//! let json = std::fs::read("../../examples/interrupted-session.json")?;
//! let history = wire::from_slice(&json)?;
//! assert!(!sanitize::check(&history).is_empty());
//!
//! let repaired = sanitize::repair(history, &sanitize::RepairOptions::default());
//! assert!(sanitize::check(&repaired.history).iter().all(|v| v.kind != sanitize::ViolationKind::DanglingCall));
//! let bytes = wire::to_vec(&repaired.history)?;
//! # let _ = bytes;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use msgflow_adapter as adapter;
pub use msgflow_canonical as canonical;
pub use msgflow_context as context;
pub use msgflow_corpus as corpus;
pub use msgflow_formats as formats;
pub use msgflow_media as media;
pub use msgflow_providers as providers;
pub use msgflow_registry as registry;
pub use msgflow_sanitize as sanitize;
pub use msgflow_stream as stream;
pub use msgflow_transcript as transcript;
pub use msgflow_wire as wire;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
