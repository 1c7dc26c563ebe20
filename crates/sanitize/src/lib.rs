//! Check and repair pydantic-ai message histories.
//!
//! * [`check`] lists what a provider would reject or what pydantic-ai would change: dangling tool
//!   calls, orphan results, duplicate call ids, builtin calls without their return, misplaced
//!   results, empty messages, parts and content items of unknown kinds; [`normalisations`] the
//!   merges pydantic-ai's repair makes in a history nothing is wrong with (notes, not problems).
//! * [`repair`] does exactly what pydantic-ai 2.68.0's `repair_messages` does (drop orphan
//!   results, synthesize results for dangling calls, merge consecutive messages), on the wire
//!   types so that nothing else changes, and reports every change ([`RepairReport`]), including
//!   everything it removes or that a merge discards.
//!
//! ```
//! use msgflow_sanitize::{check, repair, RepairOptions, ViolationKind};
//! let json = r#"[{"parts":[{"tool_name":"t","args":null,"tool_call_id":"a","id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}],"usage":{},"model_name":null,"timestamp":"2025-01-02T00:00:00Z","kind":"response"}]"#;
//! let history = msgflow_wire::from_str(json)?;
//! assert_eq!(check(&history)[0].kind, ViolationKind::DanglingCall);
//! let repaired = repair(history, &RepairOptions::default());
//! assert!(check(&repaired.history).is_empty());
//! assert_eq!(repaired.report.changes.len(), 2); // a new request and the synthesized result
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod check;
mod legacy;
mod normalisations;
mod pairing;
mod remaining;
mod repair;
mod report;
mod turns;
mod typed;

pub use check::{check, check_located, check_with_error_types, Violation, ViolationKind};
pub use legacy::{upgrade_legacy_retry_prompts, LegacyUpgrade};
pub use normalisations::{normalisations, Note, NoteKind};
pub use remaining::{remaining, Remaining};
pub use repair::{
    repair, Repair, RepairOptions, DEFAULT_SYNTHESIZED_CONTENT, PYDANTIC_AI_SYNTHESIZED_CONTENT,
    SYNTHESIZED_METADATA_KEY,
};
pub use report::{Change, MoveReason, RepairReport};
pub use turns::{opens_turn, Turns};
