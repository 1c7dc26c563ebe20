//! Property tests: generated histories and mutated fixtures survive parse -> serialise -> parse.

use std::path::{Path, PathBuf};

use msgflow_wire::arbitrary::{history, Flavour};
use msgflow_wire::{from_slice, from_vec, to_vec, ModelMessage};
use proptest::prelude::*;
use serde_json::Value;

/// Serialises, parses back and serialises again: the value and the bytes must not change.
fn assert_round_trip(messages: &[ModelMessage]) -> Result<(), TestCaseError> {
    let bytes = to_vec(messages).map_err(|err| TestCaseError::fail(format!("serialising failed: {err}")))?;
    let parsed = from_slice(&bytes).map_err(|err| {
        TestCaseError::fail(format!(
            "parsing our own output failed: {err}\n{}",
            String::from_utf8_lossy(&bytes)
        ))
    })?;
    prop_assert_eq!(&parsed, messages);
    let shared = from_vec(bytes.clone()).map_err(|err| TestCaseError::fail(format!("sharing parse failed: {err}")))?;
    prop_assert_eq!(&shared, messages);
    let again = to_vec(&parsed).map_err(|err| TestCaseError::fail(format!("serialising failed: {err}")))?;
    prop_assert!(
        again == bytes,
        "re-serialised bytes differ:\n{}\n{}",
        String::from_utf8_lossy(&bytes),
        String::from_utf8_lossy(&again)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pydantic_flavour_round_trips(messages in history(Flavour::Pydantic)) {
        assert_round_trip(&messages)?;
    }

    #[test]
    fn any_flavour_round_trips(messages in history(Flavour::Any)) {
        assert_round_trip(&messages)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Mutated fixtures
// ---------------------------------------------------------------------------------------------

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/v2_68")
}

/// The committed pydantic-ai 2.68.0 fixtures, parsed as JSON values (key order kept).
fn fixtures() -> Vec<(String, Value)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("tests/fixtures/v2_68 exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read(&path).expect("readable fixture");
            let name = path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, serde_json::from_slice(&text).expect("fixture is JSON"))
        })
        .collect()
}

/// Keys whose removal makes a history invalid (tags and required fields), and whose string
/// values must keep their format (timestamps, base64): mutations leave them alone.
const REQUIRED_KEYS: &[&str] = &[
    "kind",
    "part_kind",
    "parts",
    "content",
    "tool_name",
    "data",
    "media_type",
    "url",
    "file_id",
    "provider_name",
    "retry",
    "settings",
    "id",
    "instructions",
    "speaker",
    "sources",
    "start",
    "end",
    "text",
    "start_ms",
    "duration_ms",
    "model_name",
    "outcome",
    "timestamp",
    "duration",
    "provider",
    "content_hash",
    "value",
    "cause",
];
const FORMATTED_KEYS: &[&str] = &["kind", "part_kind", "timestamp", "data"];

#[derive(Clone, Debug)]
enum Mutation {
    /// Delete an optional key of the n-th object.
    DeleteKey { object: usize, key: usize },
    /// Append an unknown key to the n-th object.
    AddKey { object: usize, name: String, value: i64 },
    /// Replace the n-th string value (not a tag, timestamp or base64 data).
    ChangeString { string: usize, text: String },
    /// Reverse the key order of the n-th object.
    ReorderKeys { object: usize },
}

impl Mutation {
    fn reorders(&self) -> bool {
        matches!(self, Mutation::ReorderKeys { .. })
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(object, key)| Mutation::DeleteKey { object, key }),
        (any::<usize>(), "[a-z]{1,8}", any::<i64>()).prop_map(|(object, name, value)| Mutation::AddKey {
            object,
            name: format!("x_mut_{name}"),
            value
        }),
        (any::<usize>(), msgflow_wire::arbitrary::text())
            .prop_map(|(string, text)| Mutation::ChangeString { string, text }),
        any::<usize>().prop_map(|object| Mutation::ReorderKeys { object }),
    ]
}

/// Visits every object (pre-order) with a callback that may change it.
fn for_each_object(value: &mut Value, visit: &mut dyn FnMut(&mut serde_json::Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            visit(map);
            for child in map.values_mut() {
                for_each_object(child, visit);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| for_each_object(item, visit)),
        _ => {}
    }
}

fn count_objects(value: &mut Value) -> usize {
    let mut count = 0;
    for_each_object(value, &mut |_| count += 1);
    count
}

/// Applies one mutation in place (a no-op when the selected object has nothing to mutate).
fn apply(value: &mut Value, mutation: &Mutation) {
    let objects = count_objects(value);
    if objects == 0 {
        return;
    }
    let mut index = 0;
    match mutation {
        Mutation::DeleteKey { object, key } => for_each_object(value, &mut |map| {
            if index == object % objects {
                let optional: Vec<String> = map
                    .keys()
                    .filter(|name| !REQUIRED_KEYS.contains(&name.as_str()))
                    .cloned()
                    .collect();
                if !optional.is_empty() {
                    map.shift_remove(&optional[key % optional.len()]);
                }
            }
            index += 1;
        }),
        Mutation::AddKey {
            object,
            name,
            value: number,
        } => for_each_object(value, &mut |map| {
            if index == object % objects {
                map.insert(name.clone(), Value::from(*number));
            }
            index += 1;
        }),
        Mutation::ReorderKeys { object } => for_each_object(value, &mut |map| {
            if index == object % objects {
                let entries: Vec<(String, Value)> = std::mem::take(map).into_iter().rev().collect();
                map.extend(entries);
            }
            index += 1;
        }),
        Mutation::ChangeString { string, text } => {
            let mut strings = 0;
            for_each_object(value, &mut |map| {
                strings += map
                    .iter()
                    .filter(|(key, value)| value.is_string() && !FORMATTED_KEYS.contains(&key.as_str()))
                    .count();
            });
            if strings == 0 {
                return;
            }
            let target = string % strings;
            for_each_object(value, &mut |map| {
                for (key, value) in map.iter_mut() {
                    if value.is_string() && !FORMATTED_KEYS.contains(&key.as_str()) {
                        if index == target {
                            *value = Value::String(text.clone());
                        }
                        index += 1;
                    }
                }
            });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// A mutated fixture that msgflow still reads is written back the same way every time;
    /// unless keys were reordered, it is written back byte for byte (msgflow drops nothing).
    #[test]
    fn mutated_fixtures_survive(which in any::<usize>(), mutations in proptest::collection::vec(mutation(), 1..6)) {
        let all = fixtures();
        let (name, original) = &all[which % all.len()];
        let mut value = original.clone();
        for mutation in &mutations {
            apply(&mut value, mutation);
        }
        let input = serde_json::to_vec(&value).expect("a JSON value serialises");
        // A mutation may still produce an invalid history (a changed enum that selects another
        // shape, for example): such inputs are skipped, the rest must survive.
        let Ok(first) = from_slice(&input) else { return Ok(()) };
        let written = to_vec(&first).expect("serialising a parsed history");
        let second = from_vec(written.clone())
            .map_err(|err| TestCaseError::fail(format!("{name}: re-parsing our output failed: {err}")))?;
        prop_assert_eq!(&first, &second, "{}: value changed after a round trip", name);
        prop_assert!(to_vec(&second).expect("serialising") == written, "{}: output not stable", name);
        if !mutations.iter().any(Mutation::reorders) {
            prop_assert!(
                written == input,
                "{}: not byte-identical after {:?}:\n{}\n{}",
                name,
                mutations,
                String::from_utf8_lossy(&input),
                String::from_utf8_lossy(&written)
            );
        }
    }
}

/// Most mutations keep a fixture valid, so the property above is not vacuous.
#[test]
fn most_mutations_stay_valid() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let all = fixtures();
    let mut runner = TestRunner::deterministic();
    let strategy = proptest::collection::vec(mutation(), 1..6);
    let (mut valid, total) = (0, 300);
    for case in 0..total {
        let mutations = strategy.new_tree(&mut runner).expect("a mutation list").current();
        let mut value = all[case % all.len()].1.clone();
        for mutation in &mutations {
            apply(&mut value, mutation);
        }
        if from_slice(&serde_json::to_vec(&value).expect("serialises")).is_ok() {
            valid += 1;
        }
    }
    assert!(
        valid * 10 >= total * 8,
        "only {valid} of {total} mutated fixtures were valid"
    );
}

// ---------------------------------------------------------------------------------------------
// Long histories, parsed in pieces on several threads
// ---------------------------------------------------------------------------------------------

/// `messages` repeated into a history of more than `bytes` bytes (long enough to be parsed in
/// pieces).
fn long_history(messages: &[ModelMessage], bytes: usize) -> Vec<u8> {
    let one = to_vec(messages).expect("a generated history serialises").len().max(1);
    let copies = bytes / one + 1;
    let long: Vec<ModelMessage> = (0..copies).flat_map(|_| messages.iter().cloned()).collect();
    to_vec(&long).expect("a generated history serialises")
}

fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(f)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// A long history parses on four threads as on one: the same messages, or the same error
    /// (path, line, column and message) for the text cut anywhere.
    #[test]
    fn a_long_history_parses_on_four_threads_as_on_one(
        messages in history(Flavour::Any).prop_filter("some messages", |messages| !messages.is_empty()),
        cut in 0.0f64..1.0,
        pretty in any::<bool>(),
    ) {
        let mut text = long_history(&messages, 600 * 1024);
        if pretty {
            if let Ok(value) = serde_json::from_slice::<Value>(&text) {
                text = serde_json::to_vec_pretty(&value).expect("a value serialises");
            }
        }
        let whole = on_threads(1, || from_slice(&text));
        prop_assert_eq!(&on_threads(4, || from_slice(&text)), &whole);
        prop_assert_eq!(&on_threads(4, || from_vec(text.clone())), &whole);
        let truncated = &text[..(text.len() as f64 * cut) as usize];
        prop_assert_eq!(on_threads(4, || from_slice(truncated)), on_threads(1, || from_slice(truncated)));
    }
}
