//! The context window never panics and keeps its guarantees on whatever the fuzzer finds: token
//! counts are computed for every message; trim keeps a suffix of whole turns, the kept messages
//! byte for byte (the first one with the moved system prompt ahead), keeps a history `check`
//! accepts accepted, and is idempotent; media extract then inline gives back the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use msgflow_context::tokens::{TokenCounter, Tokenizer};
use msgflow_context::trim::{trim, Budget};
use msgflow_context::Turns;

/// BPE on one long unbroken run is quadratic; real tokenizer runs stay on inputs this small so
/// that an input is judged on its behaviour, not the fuzzer's time limit.
const REAL_TOKENIZER_MAX_BYTES: usize = 8 * 1024;

fuzz_target!(|data: &[u8]| {
    let Ok(history) = msgflow_wire::from_slice(data) else {
        return;
    };
    let tokenizer = if data.len() <= REAL_TOKENIZER_MAX_BYTES {
        Tokenizer::O200kBase
    } else {
        Tokenizer::Chars4
    };
    let counter = TokenCounter::new(tokenizer);
    let total: usize = history.iter().map(|message| counter.count_message(message)).sum();

    let turns = Turns::of(&history);
    let input_passes = msgflow_sanitize::check(&history).is_empty();
    let bytes = msgflow_wire::to_vec(&history).expect("a read history serialises").len();
    for budget in [Budget::Turns(1), Budget::Turns(3), Budget::Bytes(bytes / 2), Budget::Tokens(total / 2)] {
        let Ok(trimmed) = trim(history.clone(), budget, &counter) else {
            continue;
        };
        let start = trimmed.report.removed.len();
        assert!(turns.is_cut_point(start), "{budget:?}: cut at {start}, not a turn start");
        assert_eq!(trimmed.history.len(), history.len() - start);
        for (kept, original) in trimmed.history.iter().zip(&history[start..]).skip(1) {
            assert_eq!(
                msgflow_wire::to_vec(std::slice::from_ref(kept)).unwrap(),
                msgflow_wire::to_vec(std::slice::from_ref(original)).unwrap(),
                "{budget:?}: a kept message changed"
            );
        }
        if input_passes {
            assert_eq!(msgflow_sanitize::check(&trimmed.history), vec![], "{budget:?}: trim broke the history");
        }
        let again = trim(trimmed.history.clone(), budget, &counter).expect("what fit still fits");
        assert!(again.report.removed.is_empty(), "{budget:?}: trim is not idempotent");
        assert_eq!(
            msgflow_wire::to_vec(&again.history).unwrap(),
            msgflow_wire::to_vec(&trimmed.history).unwrap(),
            "{budget:?}: trim is not idempotent"
        );
    }

    if data.windows(8).any(|window| window == b"\"binary\"") {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let original = msgflow_wire::to_vec(&history).unwrap();
        let mut moved = history.clone();
        if msgflow_context::media::extract(&mut moved, dir.path()).is_ok() {
            msgflow_context::media::inline(&mut moved, dir.path()).expect("what extract wrote inlines back");
            assert_eq!(
                msgflow_wire::to_vec(&moved).unwrap(),
                original,
                "media extract then inline changed the history"
            );
        }
    }
});
