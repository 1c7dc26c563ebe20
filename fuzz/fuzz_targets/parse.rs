//! The wire parser on arbitrary bytes: it returns a history or a located error, never panics,
//! never overflows the stack, and every error names a position inside the input. Parsing with
//! a shared input (`from_vec`) gives the same history or the same error as copying
//! (`from_slice`). `RawJson::normalized` of the same text writes exactly what reading it into a
//! `serde_json::Value` and writing that gives, or nothing where that does not read.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let copied = msgflow_wire::from_slice(data);
    let shared = msgflow_wire::from_vec(data.to_vec());
    match (&copied, &shared) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "copying and sharing parses differ"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "copying and sharing errors differ"),
        _ => panic!("copying and sharing parses disagree: {copied:?} / {shared:?}"),
    }
    match copied {
        Ok(history) => {
            // Anything that parses can be written back.
            if let Err(err) = msgflow_wire::to_vec(&history) {
                panic!("a parsed history cannot be serialised: {err}");
            }
        }
        Err(err) => {
            // Errors are located: a JSON path, and a line no further than the input's last line.
            let _ = err.to_string();
            assert!(
                err.path().starts_with('$'),
                "error path {:?} is not a JSON path",
                err.path()
            );
            let lines = data.iter().filter(|&&byte| byte == b'\n').count() + 1;
            assert!(
                err.line() <= lines,
                "error line {} beyond the input's {lines} lines: {err}",
                err.line()
            );
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = msgflow_wire::message_from_str(text);
        let value = serde_json::from_str::<serde_json::Value>(text).ok();
        match (msgflow_wire::RawJson::normalized(text), value) {
            (Some(normalized), Some(value)) => {
                let written = serde_json::to_string(&value).expect("a Value always writes");
                assert_eq!(normalized.raw.get(), written, "normalized differs from the Value written");
            }
            (Some(normalized), None) => panic!("normalized {normalized:?} of a text the Value does not read"),
            // Refused: a repeated key (the property test of `raw/normalize.rs` checks it is that).
            (None, _) => {}
        }
    }
});
