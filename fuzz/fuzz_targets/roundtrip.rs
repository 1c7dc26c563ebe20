//! Whatever parses is written back stably: serialise -> parse gives the same value, and
//! serialising that again gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(history) = msgflow_wire::from_slice(data) else {
        return;
    };
    let first = msgflow_wire::to_vec(&history).expect("a parsed history serialises");
    let reparsed = match msgflow_wire::from_slice(&first) {
        Ok(reparsed) => reparsed,
        Err(err) => panic!(
            "msgflow cannot read its own output: {err}\noutput: {}",
            String::from_utf8_lossy(&first)
        ),
    };
    assert!(
        reparsed == history,
        "the value changed on the way through serialise -> parse"
    );
    let second = msgflow_wire::to_vec(&reparsed).expect("serialises");
    assert!(
        second == first,
        "serialisation is not stable:\nfirst:  {}\nsecond: {}",
        String::from_utf8_lossy(&first),
        String::from_utf8_lossy(&second)
    );
});
