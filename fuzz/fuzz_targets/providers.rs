//! Provider export, rules and repair never panic; every request msgflow exports serialises; and
//! what `repair --provider P` writes passes `check --provider P` but for what it reports as
//! unfixed, and still exports (the property test of crates/providers/tests/properties.rs, on
//! whatever the fuzzer finds).
#![no_main]

use libfuzzer_sys::fuzz_target;
use msgflow_providers::{check, export, repair, Provider};
use msgflow_sanitize::RepairOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(history) = msgflow_wire::from_slice(data) else {
        return;
    };
    for provider in Provider::ALL {
        if provider != Provider::Gemini {
            if let Ok(request) = export(&history, provider) {
                serde_json::to_vec(&request).expect("an exported request serialises");
            }
        }
        if let Ok(violations) = check(&history, provider) {
            for violation in &violations {
                let _ = format!("{violation:?}");
            }
        }
        let Ok(repaired) = repair(history.clone(), provider, &RepairOptions::default()) else {
            continue;
        };
        if provider != Provider::Gemini {
            assert!(
                export(&repaired.history, provider).is_ok(),
                "repair --provider {provider:?} wrote a history it cannot export"
            );
        }
        let left = check(&repaired.history, provider).expect("a repaired history can be checked");
        assert_eq!(
            left.len(),
            repaired.unfixed.len(),
            "repair --provider {provider:?}: check finds other violations than repair reports as unfixed"
        );
        msgflow_wire::to_vec(&repaired.history).expect("the repaired history serialises");
    }
});
