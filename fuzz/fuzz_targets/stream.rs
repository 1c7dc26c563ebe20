//! The streaming reader and manager on arbitrary input (msgflow-stream):
//!
//! * the input as an event log: `read_log` and `assemble` never panic, and what they build
//!   serialises and reads back as a history, byte for byte;
//! * the input as manager calls (one `msgflow_stream::ops::Op` JSON object per line): no handler
//!   panics, every event emitted and every part serialises and reads back unchanged, and replaying
//!   the emitted events (`apply_event`) never panics either. (It need not give the same parts:
//!   pydantic-ai's own replay does not for calls that had no name yet, pydantic-ai issue #6731.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use msgflow_stream::ops::Op;
use msgflow_stream::{assemble, read_log, AssembleOptions, PartsManager, ResponseStreamEvent};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };

    if let Ok(log) = read_log(text) {
        if let Ok(assembly) = assemble(&log, &AssembleOptions::default()) {
            let bytes = msgflow_wire::to_vec(&assembly.messages).expect("assembled messages serialise");
            let back = msgflow_wire::from_slice(&bytes).expect("assembled messages read back");
            assert_eq!(msgflow_wire::to_vec(&back).expect("serialise again"), bytes);
        }
    }

    let mut manager = PartsManager::with_tool_call_ids(|| "fuzz_id".to_owned());
    let mut emitted = Vec::new();
    for line in text.lines() {
        let Ok(op) = serde_json::from_str::<Op>(line) else { continue };
        if let Ok(Some(event)) = op.apply(&mut manager) {
            let json = serde_json::to_string(&event).expect("events serialise");
            let back: ResponseStreamEvent = serde_json::from_str(&json).expect("events read back");
            assert_eq!(serde_json::to_string(&back).expect("serialise again"), json);
            emitted.push(back);
        }
    }
    let parts = serde_json::to_string(&manager.get_parts()).expect("parts serialise");
    let back: Vec<msgflow_wire::ModelResponsePart> = serde_json::from_str(&parts).expect("parts read back");
    assert_eq!(serde_json::to_string(&back).expect("serialise again"), parts);

    let mut replayer = PartsManager::with_tool_call_ids(|| "fuzz_id".to_owned());
    for event in &emitted {
        let _ = replayer.apply_event(event);
    }
    serde_json::to_string(&replayer.get_parts()).expect("replayed parts serialise");
});
