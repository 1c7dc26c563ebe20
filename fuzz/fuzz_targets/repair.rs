//! check never panics; repair leaves no dangling call and no orphan result, is idempotent, and
//! its output serialises and reads back, for calls and results with and without a `tool_call_id`
//! (this target found that id-less calls broke idempotence; see RELIABILITY.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use msgflow_sanitize::check;

fuzz_target!(|data: &[u8]| {
    let Ok(history) = msgflow_wire::from_slice(data) else {
        return;
    };
    for violation in check(&history) {
        let _ = violation.to_string();
    }
    msgflow_integration_tests::assert_repair_guarantees(&history);
});
