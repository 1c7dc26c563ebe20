//! The real-world corpus (`tests/fixtures/realworld/`): 59 histories from public projects that
//! use pydantic-ai (`PROVENANCE.md` says where each came from), each with pydantic-ai 2.68.0's
//! answer in `expected-2.68/<name>` (written by `oracle/verdict_oracle.py realworld`).
//!
//! * msgflow's loadability verdict equals pydantic-ai's, and for a history both refuse, so do
//!   the errors' (type, loc).
//! * For every history pydantic-ai loads, `fmt` (`to_vec` of the parse) keeps the JSON value,
//!   byte for byte where `PROVENANCE.md` says the file is an exact `dump_json` dump, and
//!   `msgflow_sanitize::check` runs on it.
//!
//! A file holding one message object (SINGLE in `PROVENANCE.md`) is read wrapped in a list, as
//! pydantic-ai's answer was computed (`wrapped_in_list`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// pydantic-ai's answer for one file.
struct Answer {
    wrapped_in_list: bool,
    loadable: bool,
    errors: Vec<Error>,
}

struct Error {
    error_type: String,
    loc: Value,
    msg: String,
}

impl Answer {
    fn from_json(value: &Value) -> Option<Answer> {
        let errors = value["errors"]
            .as_array()?
            .iter()
            .map(|error| {
                Some(Error {
                    error_type: error["type"].as_str()?.to_owned(),
                    loc: error["loc"].clone(),
                    msg: error["msg"].as_str()?.to_owned(),
                })
            })
            .collect::<Option<_>>()?;
        Some(Answer {
            wrapped_in_list: value["wrapped_in_list"].as_bool()?,
            loadable: value["loadable"].as_bool()?,
            errors,
        })
    }
}

struct Entry {
    name: String,
    /// The text as pydantic-ai loaded it (wrapped in a list for a single message).
    input: String,
    answer: Answer,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/realworld")
}

fn corpus() -> Vec<Entry> {
    let dir = corpus_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(&name)).unwrap();
            let answer_path = dir.join("expected-2.68").join(&name);
            let text_of_answer = std::fs::read_to_string(&answer_path).unwrap_or_else(|err| {
                panic!(
                    "{}: {err} (run oracle/verdict_oracle.py realworld)",
                    answer_path.display()
                )
            });
            let answer = serde_json::from_str(&text_of_answer)
                .ok()
                .as_ref()
                .and_then(Answer::from_json)
                .unwrap_or_else(|| panic!("{}: not an answer of verdict_oracle.py", answer_path.display()));
            let input = if answer.wrapped_in_list {
                format!("[{text}]")
            } else {
                text
            };
            Entry { name, input, answer }
        })
        .collect()
}

/// The files `PROVENANCE.md` describes as exact `dump_json` output ("compact, byte-identical").
fn exact_dumps() -> BTreeSet<String> {
    let provenance = std::fs::read_to_string(corpus_dir().join("PROVENANCE.md")).unwrap();
    provenance
        .lines()
        .filter_map(|line| {
            let columns: Vec<&str> = line.split('|').map(str::trim).collect();
            // | file | source | path | commit | version hint | format | ...
            let (file, format) = (columns.get(1)?, columns.get(6)?);
            (file.ends_with(".json") && format.starts_with("compact, byte-identical")).then(|| (*file).to_owned())
        })
        .collect()
}

#[test]
fn the_corpus_is_complete_with_pydantic_ais_answers() {
    let entries = corpus();
    assert_eq!(
        entries.len(),
        59,
        "tests/fixtures/realworld should hold the 59 histories"
    );
    let loadable = entries.iter().filter(|entry| entry.answer.loadable).count();
    assert_eq!(loadable, 53, "pydantic-ai 2.68.0 loads 53 of them (PROVENANCE.md)");
    let exact = exact_dumps();
    assert_eq!(exact.len(), 4, "four files are exact dumps: {exact:?}");
    assert!(exact.iter().all(|name| entries.iter().any(|entry| &entry.name == name)));
}

#[test]
fn the_verdict_equals_pydantic_ais_on_every_file() {
    let mut disagreements = Vec::new();
    for entry in corpus() {
        let history = match msgflow_wire::from_str(&entry.input) {
            Ok(history) => history,
            Err(err) => {
                if entry.answer.loadable {
                    disagreements.push(format!(
                        "{}: pydantic-ai loads it, msgflow cannot read it: {err}",
                        entry.name
                    ));
                }
                continue;
            }
        };
        let verdict = msgflow_wire::verdict::verdict_located(&history, &entry.input);
        let ours: BTreeSet<(String, String)> = verdict
            .reasons()
            .iter()
            .map(|reason| {
                (
                    reason.error_type.clone(),
                    serde_json::to_value(&reason.loc).unwrap().to_string(),
                )
            })
            .collect();
        let theirs: BTreeSet<(String, String)> = entry
            .answer
            .errors
            .iter()
            .map(|error| (error.error_type.clone(), error.loc.to_string()))
            .collect();
        if verdict.is_loadable() != entry.answer.loadable || ours != theirs {
            let pydantic: Vec<String> = entry
                .answer
                .errors
                .iter()
                .map(|e| format!("{} {} ({})", e.error_type, e.loc, e.msg))
                .collect();
            let msgflow: Vec<String> = verdict.reasons().iter().map(ToString::to_string).collect();
            disagreements.push(format!(
                "{}: pydantic-ai loadable {} [{}]; msgflow loadable {} [{}]",
                entry.name,
                entry.answer.loadable,
                pydantic.join("; "),
                verdict.is_loadable(),
                msgflow.join("; ")
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} real-world files disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn fmt_keeps_the_json_value_of_every_loadable_file_and_check_runs() {
    let exact = exact_dumps();
    let mut failures = Vec::new();
    let mut compared = 0;
    for entry in corpus().into_iter().filter(|entry| entry.answer.loadable) {
        let history = match msgflow_wire::from_str(&entry.input) {
            Ok(history) => history,
            Err(err) => {
                failures.push(format!("{}: msgflow cannot read it: {err}", entry.name));
                continue;
            }
        };
        let output = msgflow_wire::to_string(&history).unwrap();
        let (input_value, output_value): (Value, Value) = (
            serde_json::from_str(&entry.input).unwrap(),
            serde_json::from_str(&output).unwrap(),
        );
        if input_value != output_value {
            failures.push(format!("{}: fmt changes the JSON value:\n{output}", entry.name));
        } else if exact.contains(&entry.name) && output != entry.input {
            failures.push(format!(
                "{}: an exact dump, but fmt changes its bytes:\n{output}",
                entry.name
            ));
        }
        // check runs on every real history, and sees the same violations in fmt's output.
        let reparsed = msgflow_wire::from_str(&output).unwrap();
        assert_eq!(
            msgflow_sanitize::check(&history),
            msgflow_sanitize::check(&reparsed),
            "{}: check differs on fmt's output",
            entry.name
        );
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(compared, 53);
}
