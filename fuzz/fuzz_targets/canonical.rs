//! wire -> canonical -> wire gives back the input value (and bytes); canonical JSON reads back
//! to the same canonical messages and writes the same bytes again.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(history) = msgflow_wire::from_slice(data) else {
        return;
    };
    let canonical = msgflow_adapter::to_canonical_history(&history);
    let back = match msgflow_adapter::from_canonical_history(&canonical) {
        Ok(back) => back,
        Err(err) => panic!("a canonical history made from the wire does not convert back: {err}"),
    };
    assert!(back == history, "wire -> canonical -> wire changed the value");
    assert_eq!(
        msgflow_wire::to_vec(&back).expect("serialises"),
        msgflow_wire::to_vec(&history).expect("serialises"),
        "wire -> canonical -> wire changed the bytes"
    );
    let json = msgflow_canonical::to_json_vec(&canonical).expect("canonical JSON serialises");
    let reread = match msgflow_canonical::from_json_slice(&json) {
        Ok(reread) => reread,
        Err(err) => panic!(
            "canonical JSON does not read back: {err}\n{}",
            String::from_utf8_lossy(&json)
        ),
    };
    assert!(reread == canonical, "canonical JSON round trip changed the value");
    assert_eq!(msgflow_canonical::to_json_vec(&reread).expect("serialises"), json);
    let rebuilt = msgflow_adapter::from_canonical_history(&reread).expect("re-read canonical converts back");
    assert!(rebuilt == history, "wire -> canonical JSON -> wire changed the value");
});
