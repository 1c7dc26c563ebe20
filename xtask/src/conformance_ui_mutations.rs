//! Mutated UI messages for the UI-format checks (`--only vercel-ui`, `--only ag-ui`): what a
//! front end or a hand-edited file may send, beyond the messages pydantic-ai's own dump writes.
//!
//! Each mutation takes one of the UI documents a check wrote (seeded choice) and makes one edit at
//! one place in it: a key removed, a value replaced by a value of another JSON kind, a string
//! replaced by another one the documents hold under the same key (other part types, states, roles,
//! tool names), a key added with such a value, an array item doubled. msgflow's `from` of the
//! mutated document is then compared with pydantic-ai's `load_messages` of it (the oracles'
//! `mutated` check): where pydantic-ai loads it (and can load back what it loaded), msgflow must
//! load the same history; where pydantic-ai refuses it, msgflow may read it (it reads some messages
//! pydantic-ai's request models refuse, such as messages without an `id`) or refuse it.
//!
//! Left out, as known differences (the formats crate's README lists them): the `type` and `state`
//! of a UI part and the parts themselves (pydantic's UI part models default a missing `type` or
//! `state`, so that `{}` is a `step-start` part, where msgflow refuses a part without them), a
//! retry claim's payload (pydantic-ai validates its integers in lax mode: `false`, `"1_000"` and
//! `4.0` are integers), and the `timestamp` of a Vercel message's `pydantic_ai` metadata (read as
//! pydantic reads a datetime: Unix times too).

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use msgflow_wire::ModelMessage;
use serde_json::{json, Value};

use crate::mutate::Rng;

/// Mutated documents per check and run.
pub(crate) const MUTATIONS: usize = 1500;

/// The oracle's cases for [`MUTATIONS`] mutations of `documents` (seeded by `seed`): each mutated
/// document (`mutated`) with the history msgflow's `read` made of it (`back`) or its refusal
/// (`msgflow_refused`).
pub(crate) fn cases(
    documents: &[Value],
    seed: u64,
    read: impl Fn(&Value) -> Result<Vec<ModelMessage>, String>,
) -> Result<Vec<Value>> {
    let mut cases = Vec::with_capacity(MUTATIONS);
    for (index, (description, document)) in mutate(documents, MUTATIONS, seed).into_iter().enumerate() {
        let name = format!("mutation {index}: {description}");
        cases.push(match read(&document) {
            Ok(history) => json!({
                "name": name,
                "mutated": document,
                "back": serde_json::from_str::<Value>(&msgflow_wire::to_string(&history)?)?,
            }),
            Err(refusal) => json!({"name": name, "mutated": document, "msgflow_refused": refusal}),
        });
    }
    Ok(cases)
}

/// A step into a JSON value.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// The values a mutation puts in place of another: one of each JSON kind, and some of their
/// corners.
fn replacements() -> [Value; 12] {
    [
        Value::Null,
        json!(0),
        json!(1.5),
        json!(-1),
        json!(""),
        json!("x"),
        json!(true),
        json!(false),
        json!([]),
        json!({}),
        json!([1]),
        json!({"a": 1}),
    ]
}

/// `count` mutated copies of `documents` (seeded by `seed`), each with a description of its edit.
pub(crate) fn mutate(documents: &[Value], count: usize, seed: u64) -> Vec<(String, Value)> {
    let strings = strings_by_key(documents);
    let keys: Vec<&String> = strings.keys().collect();
    let mut rng = Rng::new(seed);
    let mut mutated = Vec::with_capacity(count);
    if documents.is_empty() {
        return mutated;
    }
    while mutated.len() < count {
        let mut document = documents[rng.below(documents.len())].clone();
        let mut places = Vec::new();
        editable_places(&document, &mut Vec::new(), &mut places);
        if places.is_empty() {
            continue;
        }
        let place = places.swap_remove(rng.below(places.len()));
        let (parent_path, last) = place.split_at(place.len() - 1);
        let Some(parent) = value_at(&mut document, parent_path) else {
            continue;
        };
        let at = describe(&place);
        let roll = rng.below(100);
        let description = match (&last[0], parent) {
            (Step::Key(key), Value::Object(object)) if roll < 20 => {
                object.shift_remove(key);
                format!("removed {at}")
            }
            (Step::Key(key), Value::Object(object)) if roll < 45 && strings.contains_key(key) => {
                let choices = &strings[key];
                let text = choices[rng.below(choices.len())].clone();
                object.insert(key.clone(), Value::String(text.clone()));
                format!("{at} = {text:?}")
            }
            (Step::Index(index), Value::Array(items)) if roll < 55 => {
                let item = items[*index].clone();
                items.insert(*index, item);
                format!("doubled {at}")
            }
            (Step::Key(_), Value::Object(object)) if roll < 65 && !keys.is_empty() => {
                let key = keys[rng.below(keys.len())];
                if excluded_key(key) {
                    continue;
                }
                let choices = &strings[key];
                let text = choices[rng.below(choices.len())].clone();
                object.insert(key.clone(), Value::String(text.clone()));
                format!("added {key:?} = {text:?} beside {at}")
            }
            (step, parent) => {
                let replacements = replacements();
                let value = replacements[rng.below(replacements.len())].clone();
                let description = format!("{at} = {value}");
                match (step, parent) {
                    (Step::Key(key), Value::Object(object)) => {
                        object.insert(key.clone(), value);
                    }
                    (Step::Index(index), Value::Array(items)) => items[*index] = value,
                    _ => continue,
                }
                description
            }
        };
        mutated.push((description, document));
    }
    mutated
}

/// Every place a mutation may edit in `value` (at `path`), the known differences left out.
fn editable_places(value: &Value, path: &mut Vec<Step>, places: &mut Vec<Vec<Step>>) {
    match value {
        Value::Object(object) => {
            for (key, item) in object {
                if excluded_key(key) || (key == "timestamp" && under_pydantic_ai_metadata(path)) {
                    continue;
                }
                path.push(Step::Key(key.clone()));
                places.push(path.clone());
                editable_places(item, path, places);
                path.pop();
            }
        }
        Value::Array(items) => {
            let parts = matches!(path.last(), Some(Step::Key(key)) if key == "parts");
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Index(index));
                // The parts themselves are left alone (see the module documentation), not what
                // is in them.
                if !parts {
                    places.push(path.clone());
                }
                editable_places(item, path, places);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The keys left out of every mutation (see the module documentation).
fn excluded_key(key: &str) -> bool {
    matches!(key, "type" | "state" | "retry" | "retry_feedback")
}

/// Whether `path` is a message's `metadata.pydantic_ai`.
fn under_pydantic_ai_metadata(path: &[Step]) -> bool {
    matches!(path, [.., Step::Key(metadata), Step::Key(namespace)] if metadata == "metadata" && namespace == "pydantic_ai")
}

fn value_at<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get_mut(key.as_str()),
        Step::Index(index) => value.get_mut(*index),
    })
}

fn describe(path: &[Step]) -> String {
    let mut text = String::from("$");
    for step in path {
        match step {
            Step::Key(key) => text.push_str(&format!(".{key}")),
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

/// The short strings the documents hold under each key (at most 30 a key, sorted, so that the
/// choice depends on the seed alone).
fn strings_by_key(documents: &[Value]) -> BTreeMap<String, Vec<String>> {
    fn walk(value: &Value, key: Option<&str>, out: &mut BTreeMap<String, BTreeSet<String>>) {
        match value {
            Value::Object(object) => object.iter().for_each(|(key, item)| walk(item, Some(key), out)),
            Value::Array(items) => items.iter().for_each(|item| walk(item, key, out)),
            Value::String(text) if text.len() < 40 => {
                if let Some(key) = key {
                    out.entry(key.to_owned()).or_default().insert(text.clone());
                }
            }
            _ => {}
        }
    }
    let mut found = BTreeMap::new();
    for document in documents.iter().take(300) {
        walk(document, None, &mut found);
    }
    found
        .into_iter()
        .map(|(key, texts)| (key, texts.into_iter().take(30).collect()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_seeded_and_leave_the_known_differences_alone() {
        let documents = vec![json!([
            {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi", "state": "done"}]},
            {"id": "m2", "role": "assistant", "metadata": {"pydantic_ai": {"timestamp": "2025-01-02T03:04:05Z"}},
             "parts": [{"type": "tool-f", "state": "output-available", "toolCallId": "c", "input": {}, "output": 1}]}
        ])];
        let first = mutate(&documents, 200, 9);
        assert_eq!(first.len(), 200);
        let again = mutate(&documents, 200, 9);
        assert!(first.iter().zip(&again).all(|(a, b)| a == b));
        let changed = first.iter().filter(|(_, document)| document != &documents[0]).count();
        // A string swapped for one of the few the document holds under its key may be the same one.
        assert!(changed >= 150, "only {changed} of 200 mutations changed the document");
        for (description, document) in &first {
            // The namespace may be replaced whole, but its timestamp is never edited on its own.
            assert!(!description.contains("pydantic_ai.timestamp"), "{description}");
            for message in document.as_array().into_iter().flatten() {
                for part in message.get("parts").and_then(Value::as_array).into_iter().flatten() {
                    assert!(part.get("type").is_some_and(Value::is_string), "{description}");
                    assert!(part.get("state").is_some_and(Value::is_string), "{description}");
                }
                let timestamp = message.pointer("/metadata/pydantic_ai/timestamp");
                assert!(
                    timestamp.is_none_or(|timestamp| timestamp == "2025-01-02T03:04:05Z"),
                    "{description}"
                );
            }
        }
    }
}
