//! # msgflow-registry
//!
//! A tool-call lifecycle registry for pydantic-ai message histories, its JSON export, and
//! ReAct-style guidance for the next model turn.
//!
//! This is the corrected counterpart of tunacode's era-B/C `ToolCallRegistry`
//!
//! * **Checked lifecycle.** [`ToolCallStatus`] moves only forward (`pending → running →
//!   completed | failed | cancelled`, or straight from pending to a terminal status). Illegal
//!   transitions, unknown ids and conflicting re-registrations are [`RegistryError`]s that leave
//!   the registry unchanged; nothing is silently overwritten.
//! * **Full export.** [`ToolCallRegistry`] serializes as `{"calls": [...]}` including status,
//!   result, error and both timestamps (tunacode's `to_legacy_records` dropped all four), and
//!   reads the same shape back. [`registry_schema`] gives its JSON Schema.
//! * **History replay.** [`ToolCallRegistry::from_events`] rebuilds lifecycles from a neutral
//!   stream of [`HistoryEvent`]s (the adapter layer produces them from `tool-call` /
//!   `tool-return` parts), reporting anything odd as [`RegistryWarning`]s instead of failing.
//! * **Guidance.** [`guidance`] turns the registry into a few concrete [`Hint`]s (repeated
//!   calls, failure streaks, unanswered and interrupted calls) instead of tunacode's scheduled
//!   "Act on bash findings" snapshots.
//!
//! The crate deliberately depends on no other msgflow crate.
//!
//! ```
//! use msgflow_registry::{guidance, GuidanceConfig, HistoryEvent, ReturnOutcome, ToolCallRegistry};
//! use serde_json::json;
//!
//! let events = vec![
//!     HistoryEvent::Call { id: "c1".into(), name: "bash".into(), args: json!({"cmd": "cargo test"}), at: None },
//!     HistoryEvent::Call { id: "c2".into(), name: "read_file".into(), args: json!({"path": "a.rs"}), at: None },
//!     HistoryEvent::Return {
//!         id: "c1".into(), name: "bash".into(), outcome: ReturnOutcome::Success,
//!         content: json!("ok"), at: None, synthesized: false,
//!     },
//! ];
//! let (registry, warnings) = ToolCallRegistry::from_events(events);
//! assert!(warnings.is_empty());
//! assert_eq!(registry.to_json()["calls"][1]["status"], "pending");
//!
//! let hints = guidance(&registry, &GuidanceConfig::default());
//! assert_eq!(
//!     hints[0].to_string(),
//!     "1 tool call still has no result: read_file (c2); it must be answered before the next model request"
//! );
//! ```

#![warn(missing_docs)]

mod args;
mod call;
mod error;
mod events;
mod guidance;
mod registry;
mod status;

pub use call::CanonicalToolCall;
pub use error::RegistryError;
pub use events::{HistoryEvent, RegistryWarning, ReturnOutcome};
pub use guidance::{guidance, GuidanceConfig, Hint, HintKind};
pub use registry::{registry_schema, ToolCallRegistry};
pub use status::ToolCallStatus;
