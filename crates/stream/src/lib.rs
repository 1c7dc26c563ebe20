//! Streamed pydantic-ai responses, as pydantic-ai 2.68.0 builds them.
//!
//! * [`PartsManager`] is pydantic-ai's `ModelResponsePartsManager` (`pydantic_ai/_parts_manager.py`):
//!   provider deltas (text, thinking, tool-call names, ids and argument fragments, keyed by vendor
//!   ids) in, `part_start` / `part_delta` events and the response's parts out; the same events,
//!   parts and errors. String deltas are appended to growable strings, so a million small deltas
//!   cost linear time and memory. [`PartsManager::apply_event`] replays logged events.
//! * [`read_log`] reads an event log (one `TypeAdapter(AgentStreamEvent)` JSON object per line; a
//!   last line cut mid-JSON is an interrupted stream) and [`assemble`] rebuilds the messages:
//!   the responses, with `state: "interrupted"` for a stream that did not end, and the
//!   tool-return requests between them.
//! * [`ops`]: manager calls as JSON, the form the differential checks and fuzzing drive it with.
//!
//! The events are `msgflow-wire`'s generated stream types ([`ResponseStreamEvent`]), so they
//! serialise exactly as pydantic-ai's `TypeAdapter(ModelResponseStreamEvent)` dumps them, and the
//! parts are wire parts (`TextPart`, `ToolCallPart`, ... with `RawJson` arguments).
//!
//! ```
//! use msgflow_stream::{PartsManager, TextDelta};
//!
//! let mut manager = PartsManager::new();
//! for piece in ["<think>", "Plan", "</think>", "Done."] {
//!     let tags = Some(("<think>".to_owned(), "</think>".to_owned()));
//!     manager.handle_text_delta(TextDelta { thinking_tags: tags, ..TextDelta::new(Some(0.into()), piece) })?;
//! }
//! let kinds: Vec<_> = manager.get_parts().iter().map(|part| part.tag().unwrap().into_owned()).collect();
//! assert_eq!(kinds, ["thinking", "text"]);
//! # Ok::<(), msgflow_stream::StreamError>(())
//! ```

mod assemble;
mod deltas;
pub mod differential;
mod error;
mod json;
mod log;
mod manager;
pub mod ops;

pub use assemble::{assemble, AssembleError, AssembleOptions, Assembly, AssemblyReport, CutPart};
pub use log::{read_log, EventLog, LogError, LogEvent, TruncatedLine};

pub use deltas::{ArgsDelta, TextDelta, ThinkingDelta, ToolCallDelta, VendorId};
pub use error::StreamError;
pub use manager::{generate_tool_call_id, PartsManager};
/// pydantic-ai's `ModelResponseStreamEvent` (`part_start`, `part_delta`, `part_end`,
/// `final_result`), generated from the schema in `msgflow-wire` (where it is named
/// `AgentStreamEvent`).
pub use msgflow_wire::AgentStreamEvent as ResponseStreamEvent;
