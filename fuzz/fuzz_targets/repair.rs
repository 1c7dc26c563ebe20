//! check never panics; repair leaves no dangling call and no orphan result, is idempotent, and
//! its output serialises and reads back, for calls and results with and without a `tool_call_id`
//! (this target found that id-less calls broke idempotence; see RELIABILITY.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use msgflow_sanitize::{check, repair, RepairOptions, ViolationKind};

fuzz_target!(|data: &[u8]| {
    let Ok(history) = msgflow_wire::from_slice(data) else {
        return;
    };
    for violation in check(&history) {
        let _ = violation.to_string();
    }
    for repair_last_response in [true, false] {
        let options = RepairOptions {
            repair_last_response,
            ..RepairOptions::default()
        };
        let once = repair(history.clone(), &options);
        let _ = once.report.to_string();
        if repair_last_response {
            let left: Vec<_> = check(&once.history)
                .into_iter()
                .filter(|violation| {
                    matches!(
                        violation.kind,
                        ViolationKind::DanglingCall | ViolationKind::OrphanReturn
                    )
                })
                .collect();
            assert!(left.is_empty(), "repair left {left:?}");
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
});
