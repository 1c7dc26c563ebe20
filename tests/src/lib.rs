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

/// The verdict disagreements known and not fixed yet, from `tests/fixtures/verdict/OPEN.txt`:
/// fixture name (or `*` class) -> what the disagreement is. Shared by the fixture test and the
/// live verdict check in `cargo xtask conformance`, so both read the list the same way.
pub fn open_verdict_disagreements(text: &str) -> std::collections::BTreeMap<String, String> {
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (name, what) = line.split_once('\t').unwrap_or((line, ""));
            (name.to_owned(), what.to_owned())
        })
        .collect()
}

/// Whether fixture `name` is `pattern` from OPEN.txt: the name itself, or a class where `*`
/// matches any text.
///
/// ```
/// use msgflow_integration_tests::matches_open;
/// assert!(matches_open("refuses--*nan-literal", "refuses--ToolCallPart.args-opaque-nested-number-nan-literal"));
/// assert!(!matches_open("a--b", "a--bc"));
/// ```
pub fn matches_open(pattern: &str, name: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    for (index, piece) in pieces.iter().enumerate() {
        if index + 1 == pieces.len() {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}
