//! Conversions never panic on whatever the fuzzer finds, in any direction and either form: input
//! that is not the format named is an error located at a JSON path; every history a conversion
//! makes is written and read back unchanged; and where a history (the input, or one a conversion
//! made) goes to a foreign format with nothing reported lost, its output converts back to the same
//! messages and parts, which convert to the same output again. (The report is the difference of
//! the history and its output read back, `crates/formats/src/round_trip.rs`; its tests check it on
//! generated histories, this on what the fuzzer finds.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use msgflow_formats::{convert_with, ConvertError, ConvertOptions, Format, Output};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let history = msgflow_wire::from_str(text).ok();
    for lossless in [false, true] {
        let options = ConvertOptions {
            lossless,
            ..ConvertOptions::default()
        };
        for from in Format::ALL.into_iter().filter(|format| *format != Format::PydanticAi) {
            match convert_with(text, from, Format::PydanticAi, &options) {
                Ok(converted) => {
                    let Output::Histories(histories) = &converted.output else {
                        panic!("{from} to pydantic-ai gave documents");
                    };
                    for history in histories {
                        let written = read_back_as_written(history, from);
                        // The histories a loader builds, which the fuzzer reaches through the
                        // foreign formats, go back the way they came.
                        to_and_back(history, &written, from, &options);
                    }
                }
                Err(err) => located(&err, from),
            }
        }
        let Some(history) = &history else { continue };
        for to in Format::ALL.into_iter().filter(|format| *format != Format::PydanticAi) {
            to_and_back(history, text, to, &options);
        }
    }
});

/// `history` (whose text is `text`) converted to `to`: an error is located; output with nothing
/// reported lost converts back to the same messages and parts, which convert to the same output
/// again.
fn to_and_back(history: &[msgflow_wire::ModelMessage], text: &str, to: Format, options: &ConvertOptions) {
    let lossless = options.lossless;
    let there = match convert_with(text, Format::PydanticAi, to, options) {
        Ok(there) => there,
        Err(err) => return located(&err, to),
    };
    let Output::Documents(documents) = &there.output else {
        panic!("pydantic-ai to {to} gave histories");
    };
    assert_eq!(documents.len(), 1, "pydantic-ai to {to}: one history, one document");
    if !there.report.is_lossless() {
        return;
    }
    let output = documents[0].to_string();
    let back = convert_with(&output, to, Format::PydanticAi, options).unwrap_or_else(|err| {
        panic!("{to} (lossless: {lossless}) reported nothing lost, but its output does not convert back: {err}\noutput: {output}")
    });
    let Output::Histories(back) = back.output else {
        panic!("{to} to pydantic-ai gave documents");
    };
    assert_eq!(back.len(), 1, "{to} to pydantic-ai: one document, one history");
    assert_eq!(
        shape(&back[0]),
        shape(history),
        "{to} (lossless: {lossless}) reported nothing lost, but other messages or parts came back\noutput: {output}"
    );
    // The values themselves: what came back goes to the format as the history did.
    let back_text = msgflow_wire::to_string(&back[0]).expect("a history serialises");
    let again = convert_with(&back_text, Format::PydanticAi, to, options).unwrap_or_else(|err| {
        panic!("{to} (lossless: {lossless}): the history that came back does not convert: {err}")
    });
    let (Output::Documents(again), Output::Documents(first)) = (again.output, there.output) else {
        panic!("pydantic-ai to {to} gave histories");
    };
    assert_eq!(
        again.into_iter().map(without_random_ids).collect::<Vec<_>>(),
        first.into_iter().map(without_random_ids).collect::<Vec<_>>(),
        "{to} (lossless: {lossless}) reported nothing lost, but the history that came back converts otherwise"
    );
}

/// `value` without the ids pydantic-ai makes up anew on every dump (`uuid4()`): the Vercel
/// `approval.id` of a denied tool call.
fn without_random_ids(mut value: serde_json::Value) -> serde_json::Value {
    fn walk(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(object) => {
                if let Some(serde_json::Value::Object(approval)) = object.get_mut("approval") {
                    approval.insert("id".into(), serde_json::Value::Null);
                }
                object.values_mut().for_each(walk);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// The kinds of a history's messages and of their parts, in order.
fn shape(history: &[msgflow_wire::ModelMessage]) -> Vec<(serde_json::Value, Vec<serde_json::Value>)> {
    let value = serde_json::to_value(history).expect("a history serialises");
    let messages = value.as_array().map_or(&[][..], Vec::as_slice);
    messages
        .iter()
        .map(|message| {
            let parts = message["parts"].as_array().map_or(&[][..], Vec::as_slice);
            (
                message["kind"].clone(),
                parts.iter().map(|part| part["part_kind"].clone()).collect(),
            )
        })
        .collect()
}

/// `history`, which a conversion from `from` made, written and read back as it is; its text.
fn read_back_as_written(history: &[msgflow_wire::ModelMessage], from: Format) -> String {
    let written = msgflow_wire::to_string(history).expect("a converted history serialises");
    let read = msgflow_wire::from_str(&written)
        .unwrap_or_else(|err| panic!("{from} to pydantic-ai wrote a history msgflow cannot read: {err}\n{written}"));
    assert!(
        read == history,
        "{from} to pydantic-ai: the history changed when written and read again"
    );
    written
}

/// An error names its place: a JSON path, and something to say.
fn located(err: &ConvertError, format: Format) {
    assert!(
        err.path.starts_with('$'),
        "{format}: an error without a JSON path: {err:?}"
    );
    assert!(!err.message.is_empty(), "{format}: an error without a message: {err:?}");
    let _ = err.to_string();
}
