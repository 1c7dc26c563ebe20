//! [`remaining`]: what `check` still finds after a repair, and why the repair left it.

use msgflow_wire::ModelMessage;
use serde::Serialize;

use crate::check::{check, Violation, ViolationKind};
use crate::repair::RepairOptions;

/// A violation a repair left in its output, with the reason it was left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Remaining {
    /// What `check` reports on the repaired history.
    #[serde(flatten)]
    pub violation: Violation,
    /// Why the repair did not change it (pydantic-ai's repair leaves it, or an option asked so).
    pub why_left: &'static str,
}

/// The violations `check` finds in `repaired`, the output of [`crate::repair`] with `options`,
/// each with the reason the repair left it. Empty when the repaired history passes `check`.
///
/// ```
/// use msgflow_sanitize::{remaining, repair, RepairOptions};
///
/// let json = r#"[{"kind":"response","parts":[]},{"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi"}]}]"#;
/// let history = msgflow_wire::from_str(json)?;
/// let options = RepairOptions::default();
/// let repaired = repair(history, &options);
/// // pydantic-ai's repair keeps the empty response; `resolve_remaining` would remove it.
/// assert_eq!(remaining(&repaired.history, &options).len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn remaining(repaired: &[ModelMessage], options: &RepairOptions) -> Vec<Remaining> {
    check(repaired)
        .into_iter()
        .map(|violation| Remaining {
            why_left: why_left(violation.kind, options),
            violation,
        })
        .collect()
}

fn why_left(kind: ViolationKind, options: &RepairOptions) -> &'static str {
    match kind {
        ViolationKind::DanglingCall if !options.repair_last_response => {
            "left on purpose: --keep-last-response leaves the last response's calls for the run to answer"
        }
        ViolationKind::DanglingCall | ViolationKind::OrphanReturn | ViolationKind::MisplacedReturn => {
            "pydantic-ai's repair does not change it (its pairing differs from msgflow's check here)"
        }
        ViolationKind::DuplicateCallId => {
            "pydantic-ai's repair does not rename tool call ids: a new id would change which result answers \
             which call; give each call its own id"
        }
        ViolationKind::BuiltinCallWithoutReturn if options.resolve_remaining => "the call could not be removed",
        ViolationKind::BuiltinCallWithoutReturn => {
            "pydantic-ai's repair does not pair builtin tool calls; --resolve-remaining removes the call \
             (kept whole in the report)"
        }
        ViolationKind::EmptyMessage => {
            "pydantic-ai's repair keeps messages without parts; --resolve-remaining removes them (their \
             fields kept in the report)"
        }
        ViolationKind::UnknownPartKind | ViolationKind::UnknownContentKind => {
            "msgflow carries what this version does not know unchanged, and no repair can know what it means; \
             pydantic-ai 2.68.0 refuses it"
        }
        ViolationKind::NotLoadable => {
            "pydantic-ai's repair only runs on histories it has loaded, and it would not load this one; fix the \
             value (msgflow carries it as read)"
        }
        ViolationKind::TypedPartMismatch => {
            "pydantic-ai's repair does not change tool parts; fix the part or remove its tool_kind"
        }
    }
}
