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

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use msgflow_wire::ModelMessage;
use serde_json::{json, Value};

use crate::mutate::Rng;

/// Mutated documents per check and run.
pub(crate) const MUTATIONS: usize = 3000;

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

/// Every place a mutation may edit in `value` (at `path`).
fn editable_places(value: &Value, path: &mut Vec<Step>, places: &mut Vec<Vec<Step>>) {
    let items: Box<dyn Iterator<Item = (Step, &Value)>> = match value {
        Value::Object(object) => Box::new(object.iter().map(|(key, item)| (Step::Key(key.clone()), item))),
        Value::Array(items) => Box::new(items.iter().enumerate().map(|(index, item)| (Step::Index(index), item))),
        _ => return,
    };
    for (step, item) in items {
        path.push(step);
        places.push(path.clone());
        editable_places(item, path, places);
        path.pop();
    }
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
    fn mutations_are_seeded_and_edit_one_place() {
        let documents = vec![json!([
            {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi", "state": "done"}]},
            {"id": "m2", "role": "assistant", "metadata": {"pydantic_ai": {"timestamp": "2025-01-02T03:04:05Z"}},
             "parts": [{"type": "tool-f", "state": "output-available", "toolCallId": "c", "input": {}, "output": 1}]}
        ])];
        let first = mutate(&documents, 300, 9);
        assert_eq!(first.len(), 300);
        let again = mutate(&documents, 300, 9);
        assert!(first.iter().zip(&again).all(|(a, b)| a == b));
        let changed = first.iter().filter(|(_, document)| document != &documents[0]).count();
        // A string swapped for one of the few the document holds under its key may be the same one.
        assert!(changed >= 225, "only {changed} of 300 mutations changed the document");
        // Every kind of edit, at every depth: parts, their types and states, metadata timestamps.
        for wanted in [
            "removed $[1].parts[0].state",
            "removed $[0].parts[0].type",
            "doubled $[1].parts[0]",
        ] {
            assert!(first.iter().any(|(description, _)| description == wanted), "{wanted}");
        }
        assert!(first
            .iter()
            .any(|(description, _)| description.starts_with("$[1].metadata.pydantic_ai.timestamp = ")));
    }
}
