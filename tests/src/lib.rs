//! Cross-crate tests live in `tests/*.rs`. This library holds the checks they share with the
//! fuzz targets (`fuzz/`), so that both hold msgflow to the same guarantees.

use msgflow_sanitize::{check, repair, RepairOptions, Violation, ViolationKind};
use msgflow_wire::ModelMessage;

/// What `repair` guarantees for any history, checked in every mode (`repair_last_response` and
/// `resolve_remaining` on and off): with the first on, no dangling call and no orphan result is
/// left; with the second on, no empty message and no builtin call without its return; either way
/// a second repair changes nothing, the report prints, and the repaired history survives a trip
/// through JSON unchanged. Panics, naming the broken guarantee, otherwise.
pub fn assert_repair_guarantees(history: &[ModelMessage]) {
    for (repair_last_response, resolve_remaining) in [(true, false), (false, false), (true, true), (false, true)] {
        let options = RepairOptions {
            repair_last_response,
            resolve_remaining,
            ..RepairOptions::default()
        };
        let once = repair(history.to_vec(), &options);
        let _ = once.report.to_string();
        if repair_last_response {
            let left = unpaired(&once.history);
            assert!(left.is_empty(), "repair left {left:?}");
        }
        if resolve_remaining {
            let left: Vec<Violation> = check(&once.history)
                .into_iter()
                .filter(|v| {
                    matches!(
                        v.kind,
                        ViolationKind::EmptyMessage | ViolationKind::BuiltinCallWithoutReturn
                    )
                })
                .collect();
            assert!(left.is_empty(), "repair with resolve_remaining left {left:?}");
        }
        let twice = repair(once.history.clone(), &options);
        assert!(twice.history == once.history, "repair is not idempotent");
        assert!(
            twice.report.is_empty(),
            "a second repair changed something: {}",
            twice.report
        );
        let bytes = msgflow_wire::to_vec(&once.history).expect("the repaired history serialises");
        let reread = msgflow_wire::from_slice(&bytes).expect("the repaired history reads back");
        assert!(
            reread == once.history,
            "the repaired history changed on the way through JSON"
        );
    }
}

/// The dangling calls and orphan results of `history`: what a repair must leave none of.
pub fn unpaired(history: &[ModelMessage]) -> Vec<Violation> {
    check(history)
        .into_iter()
        .filter(|violation| {
            matches!(
                violation.kind,
                ViolationKind::DanglingCall | ViolationKind::OrphanReturn
            )
        })
        .collect()
}
