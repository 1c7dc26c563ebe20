//! The AG-UI differential check (part of `cargo xtask conformance`, `--only ag-ui`):
//! msgflow-formats' `ag-ui` against pydantic-ai 2.68.0's own `AGUIAdapter`
//! (`oracle/ag_ui_oracle.py`, in the `target/venv-ui-formats` venv, which holds ag-ui-protocol).
//!
//! For every committed fixture, every history of the real-world corpora (`../shared/realworld*`)
//! and seeded arbitrary histories (`Flavour::Pydantic`):
//!
//! * `to` must equal `dump_messages(history)` (message ids aside where pydantic-ai makes random ones);
//! * `from` of those AG-UI messages must equal `load_messages` of them (timestamps pydantic-ai
//!   stamps with the load time aside);
//! * the lossless form must give the history back unchanged (`from(to(h)) == h`, byte for byte as
//!   msgflow writes it), which needs no oracle.
//!
//! A history holding parts msgflow does not convert to ag-ui yet is refused by msgflow with the
//! part's path; refusals are counted by reason, and one that says pydantic-ai does not load the
//! history must be one pydantic-ai raises on (`raises`). The real files of `../shared/formats/ag-ui` are
//! read too: where pydantic-ai loads a file, msgflow's history must equal its `load_messages`.

use std::path::Path;

use anyhow::{Context, Result};
use msgflow_formats::{ag_ui, ConvertOptions, Report};
use serde_json::{json, Value};

/// Seeded arbitrary histories per run.
const ARBITRARY_COUNT: usize = 3000;

/// Runs the check with the given seed.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    println!("seed {seed} (from the HEAD commit unless --seed is given)");
    let dir = work.join("ag-ui");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let root = crate::project_root();
    let (sources, fixture_count, realworld_count) =
        crate::conformance_formats::history_sources(&root, seed, ARBITRARY_COUNT)?;

    let mut cases: Vec<Value> = Vec::new();
    let mut refused = crate::conformance_ui_formats::Refusals::default();
    let mut failures: Vec<String> = Vec::new();
    let mut lossless_identity = 0usize;
    let default = ConvertOptions::default();
    let lossless = ConvertOptions {
        lossless: true,
        ..ConvertOptions::default()
    };
    for (name, mut value) in sources {
        crate::conformance_ui_formats::stamp_load_times(&mut value);
        let original = msgflow_wire::from_str(&value.to_string())?;
        let written = match ag_ui::to_value(&original, 0, &default, &mut Report::default()) {
            Ok(written) => written,
            Err(err) => {
                refused.add(err.message, &name, &err.path, &value);
                continue;
            }
        };
        // pydantic-ai cannot load these either (a tool return whose call is not in the history).
        let back = match ag_ui::from_value(&written, 0, &default, &mut Report::default()) {
            Ok(back) => back,
            Err(err) => {
                refused.add(
                    "written, but pydantic-ai cannot load it back (a tool return whose call is not in the history)"
                        .into(),
                    &name,
                    &err.path,
                    &value,
                );
                continue;
            }
        };
        let kept = ag_ui::to_value(&original, 0, &lossless, &mut Report::default())
            .map_err(|err| anyhow::anyhow!("{name}: lossless: {err}"))?;
        let lossless_back = ag_ui::from_value(&kept, 0, &lossless, &mut Report::default())
            .map_err(|err| anyhow::anyhow!("{name}: lossless: msgflow cannot read its own AG-UI messages: {err:?}"))?;
        if msgflow_wire::to_string(&lossless_back)? == msgflow_wire::to_string(&original)? {
            lossless_identity += 1;
        } else {
            failures.push(format!("{name}: the lossless round trip changed the history"));
        }
        cases.push(json!({
            "name": name,
            "history": value,
            "agui": written,
            "back": serde_json::from_str::<Value>(&msgflow_wire::to_string(&back)?)?,
            "made_up_ids": crate::conformance_ui_formats::has_made_up_ids(&original),
        }));
    }
    let compared = cases.len();
    refused.write_examples(&dir)?;
    let mut written: Vec<Value> = cases.iter().filter_map(|case| case.get("agui").cloned()).collect();
    // What clients send beside pydantic-ai's dumps is mutated too (enqueued messages above all: their
    // messages are validated apart from the others).
    let client_inputs = crate::conformance_ui_formats::client_inputs(&root, "ag_ui_inputs.json")?;
    written.extend(client_inputs.iter().map(|(_, messages)| messages.clone()));
    let mutated = crate::conformance_ui_mutations::cases(&written, seed, |document| {
        ag_ui::from_value(document, 0, &default, &mut Report::default()).map_err(|err| format!("{err:?}"))
    })?;
    cases.extend(mutated);
    cases.extend(refused.not_loaded_cases());
    let mut foreign_inputs = crate::conformance_ui_formats::foreign_inputs(&root, "ag-ui")?;
    foreign_inputs.extend(client_inputs);
    let foreign = foreign_cases(foreign_inputs, &mut cases);

    let answers = crate::conformance::ask_oracle(python, "ag_ui_oracle.py", &dir, &cases)?;
    let counts = crate::conformance_ui_formats::Counts {
        fixtures: fixture_count,
        realworld: realworld_count,
        arbitrary: ARBITRARY_COUNT,
        compared,
        foreign,
        lossless_identity,
    };
    crate::conformance_ui_formats::judge("ag-ui", &answers, &counts, &refused, failures)
}

/// AG-UI inputs msgflow did not write (the real files of `../shared/formats/ag-ui` and the
/// committed client inputs), read by msgflow, as cases for the oracle.
fn foreign_cases(inputs: Vec<(String, Value)>, cases: &mut Vec<Value>) -> usize {
    let count = inputs.len();
    for (name, value) in inputs {
        let read = ag_ui::from_value(&value, 0, &ConvertOptions::default(), &mut Report::default());
        let messages = value.get("messages").cloned().unwrap_or(value);
        // A file msgflow refuses must be one pydantic-ai refuses too (the oracle checks).
        cases.push(match read.map(|history| msgflow_wire::to_string(&history)) {
            Ok(Ok(history)) => json!({
                "name": name,
                "foreign": messages,
                "back": serde_json::from_str::<Value>(&history).expect("msgflow writes JSON"),
            }),
            Ok(Err(err)) => json!({"name": name, "foreign": messages, "msgflow_refused": err.to_string()}),
            Err(err) => json!({"name": name, "foreign": messages, "msgflow_refused": format!("{err:?}")}),
        });
    }
    count
}
