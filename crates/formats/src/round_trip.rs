//! The read-back every "to" direction reports its losses by (see [`crate::loss`]): the history's
//! JSON, the history the format's "from" makes of the output, and their difference.
//!
//! The difference is taken message by message: a message that comes back equal (as a typed
//! `ModelMessage`) serialises to equal JSON, so it has no difference to report and is never turned
//! into JSON again. Only the messages that changed are, which keeps the report exactly what a
//! whole-history diff gives at a fraction of the work on long histories.

use msgflow_wire::ModelMessage;
use serde_json::Value;

use crate::loss::{self, Report};
use crate::ConvertError;

/// The JSON of a history, as pydantic-ai writes it (for the loss diff); an error for a history
/// nested deeper than a `serde_json::Value` can be read (128 levels).
///
/// The value is built straight from the typed history (`serde_json::to_value`), which gives the
/// same value as writing the history's text and parsing it back: strings and keys are carried as
/// they are, the raw JSON slices msgflow_wire keeps are parsed by the same parser either way, and
/// numbers are formatted alike (`itoa`, and `zmij` for floats, kept as text under
/// `arbitrary_precision`). Only two things differ, and both send the history down the text path,
/// which then gives the exact error it always gave: a raw slice serde_json refuses (`NaN`), and
/// nesting the text parser would refuse (its limit counts from the history's root, the raw
/// slices' own parse from theirs).
pub(crate) fn history_value(history: &[ModelMessage], document: usize) -> Result<Value, ConvertError> {
    match serde_json::to_value(history) {
        Ok(value) if within_parse_depth(&value, 0) => Ok(value),
        _ => history_value_through_text(history, document),
    }
}

/// The JSON of a history by writing its text and parsing it back: what [`history_value`]
/// equals, and the source of its errors.
fn history_value_through_text(history: &[ModelMessage], document: usize) -> Result<Value, ConvertError> {
    let text = msgflow_wire::to_string(history).expect("a parsed or built history always serialises");
    serde_json::from_str(&text).map_err(|err| ConvertError {
        document,
        path: "$".to_owned(),
        position: Some((err.line(), err.column())),
        message: format!("msgflow cannot convert this history: {err}"),
    })
}

/// Whether serde_json's parser would read `value`'s text, given `enclosing` arrays and objects
/// around it: it refuses a value inside [`msgflow_wire::MAX_DEPTH`] or more of them.
fn within_parse_depth(value: &Value, enclosing: usize) -> bool {
    let depth = enclosing + 1;
    match value {
        Value::Array(items) => {
            depth < msgflow_wire::MAX_DEPTH && items.iter().all(|item| within_parse_depth(item, depth))
        }
        Value::Object(object) => {
            depth < msgflow_wire::MAX_DEPTH && object.values().all(|item| within_parse_depth(item, depth))
        }
        _ => true,
    }
}

/// The typed history of a history's JSON messages (what a loader built), or pydantic-ai's
/// reason to refuse it.
pub(crate) fn history_of(messages: Vec<Value>) -> Result<Vec<ModelMessage>, String> {
    // `to_vec`, not `Value`'s `Display` (the same bytes through `fmt::Write`, markedly slower).
    let text = serde_json::to_vec(&messages).expect("a JSON value always serialises");
    drop(messages);
    msgflow_wire::from_vec(text).map_err(|err| err.message().to_owned())
}

/// Reports every value of `history` (whose JSON is `original`) that did not come back in `back`,
/// at its path in the history: [`loss::diff`] of the two histories' JSON, skipping the messages
/// that came back equal.
pub(crate) fn diff_back(
    history: &[ModelMessage],
    original: &Value,
    back: &[ModelMessage],
    document: usize,
    report: &mut Report,
) -> Result<(), ConvertError> {
    let Some(original_messages) = original.as_array().filter(|messages| messages.len() == history.len()) else {
        loss::diff(original, &history_value(back, document)?, document, report);
        return Ok(());
    };
    let mut back_messages = Vec::with_capacity(back.len());
    for (index, message) in back.iter().enumerate() {
        // Equal messages serialise alike: their JSON would compare equal and be skipped.
        let same = history.get(index) == Some(message);
        back_messages.push(if same {
            None
        } else {
            Some(message_value(message, document)?)
        });
    }
    loss::diff_messages(original_messages, &back_messages, document, report);
    Ok(())
}

/// The JSON of one message, as pydantic-ai writes it: the item of [`history_value`] of the
/// message alone (built the same way, with the same fallback).
fn message_value(message: &ModelMessage, document: usize) -> Result<Value, ConvertError> {
    match serde_json::to_value(message) {
        // One enclosing level: the array the message is in.
        Ok(value) if within_parse_depth(&value, 1) => Ok(value),
        _ => match history_value_through_text(std::slice::from_ref(message), document)? {
            Value::Array(mut messages) if messages.len() == 1 => Ok(messages.pop().expect("one message")),
            other => Ok(other),
        },
    }
}

#[cfg(test)]
mod tests {
    use msgflow_wire::arbitrary::{history, Flavour};
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    use super::*;
    use crate::{ConvertOptions, Format};

    /// The whole-history diff the message-by-message one must equal.
    fn whole_diff(history: &[ModelMessage], back: &[ModelMessage]) -> Report {
        let mut report = Report::default();
        loss::diff(
            &history_value(history, 0).unwrap(),
            &history_value(back, 0).unwrap(),
            0,
            &mut report,
        );
        report
    }

    fn message_diff(history: &[ModelMessage], back: &[ModelMessage]) -> Report {
        let mut report = Report::default();
        diff_back(history, &history_value(history, 0).unwrap(), back, 0, &mut report).unwrap();
        report
    }

    /// Both ways of building a history's JSON (and each message's) give the same value, or the
    /// same error.
    fn assert_built_as_through_text(history: &[ModelMessage], label: &str) {
        assert_eq!(
            history_value(history, 0),
            history_value_through_text(history, 0),
            "{label}"
        );
        if let Ok(Value::Array(messages)) = history_value_through_text(history, 0) {
            for (index, (message, value)) in history.iter().zip(messages).enumerate() {
                assert_eq!(message_value(message, 0).as_ref(), Ok(&value), "{label} [{index}]");
            }
        }
    }

    #[test]
    fn a_history_value_is_built_as_its_text_parses_on_generated_histories() {
        let mut runner =
            TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]));
        for flavour in [Flavour::Pydantic, Flavour::Any] {
            let strategy = history(flavour);
            for case in 0..300 {
                let history = strategy.new_tree(&mut runner).expect("a history").current();
                assert_built_as_through_text(&history, &format!("{flavour:?} case {case}"));
            }
        }
    }

    /// Every fixture history of the repository (hostile numbers, non-finite literals, opaque
    /// values nested to and past the parser's limit, unknown parts) included.
    #[test]
    fn a_history_value_is_built_as_its_text_parses_on_the_fixtures() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let mut pending = vec![root];
        let mut histories = 0;
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("the fixtures directory") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|extension| extension == "json") {
                    let Ok(history) = msgflow_wire::from_slice(&std::fs::read(&path).expect("a fixture")) else {
                        continue;
                    };
                    assert_built_as_through_text(&history, &path.display().to_string());
                    histories += 1;
                }
            }
        }
        assert!(histories > 500, "only {histories} fixture histories");
    }

    /// Tool-call arguments nested around serde_json's limit: the text path refuses from 128
    /// levels counted from the history's root, and the direct path must refuse (with the same
    /// error) exactly there.
    #[test]
    fn a_history_value_refuses_nesting_where_the_text_parser_does() {
        for depth in 118..=130 {
            let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let text = format!(
                r#"[{{"parts":[{{"tool_name":"f","args":{args},"tool_call_id":"c","id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}}],"usage":{{}},"model_name":null,"timestamp":"2025-01-01T00:00:00Z","kind":"response"}}]"#
            );
            let history = msgflow_wire::from_str(&text).expect("a history");
            let parsed = history_value_through_text(&history, 0);
            // The arguments sit inside 4 levels: the history, the message, its parts, the part.
            assert_eq!(parsed.is_ok(), depth + 4 < msgflow_wire::MAX_DEPTH, "depth {depth}");
            assert_built_as_through_text(&history, &format!("depth {depth}"));
        }
    }

    /// On generated histories, read back through every format (lossy and lossless) and against an
    /// unrelated history (other lengths, other kinds), the two diffs report the same losses.
    #[test]
    fn the_message_by_message_diff_is_the_whole_history_diff() {
        let mut runner =
            TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
        let strategy = history(Flavour::Pydantic);
        let mut compared = 0;
        for case in 0..300 {
            let history = strategy.new_tree(&mut runner).expect("a history").current();
            let other = strategy.new_tree(&mut runner).expect("a history").current();
            assert_eq!(
                message_diff(&history, &other),
                whole_diff(&history, &other),
                "case {case}"
            );
            assert!(message_diff(&history, &history).is_lossless());
            for format in [Format::OpenAiChat, Format::VercelUi, Format::AgUi, Format::Otel] {
                for lossless in [false, true] {
                    let options = ConvertOptions {
                        lossless,
                        ..ConvertOptions::default()
                    };
                    let text = msgflow_wire::to_string(&history).unwrap();
                    let Ok(there) = crate::convert_with(&text, Format::PydanticAi, format, &options) else {
                        continue;
                    };
                    let crate::Output::Documents(documents) = there.output else {
                        unreachable!()
                    };
                    let Ok(back) = crate::convert_with(&documents[0].to_string(), format, Format::PydanticAi, &options)
                    else {
                        continue;
                    };
                    let crate::Output::Histories(back) = back.output else {
                        unreachable!()
                    };
                    let Some(back) = back.into_iter().next() else { continue };
                    assert_eq!(
                        message_diff(&history, &back),
                        whole_diff(&history, &back),
                        "case {case} {format}"
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "only {compared} read-backs compared");
    }
}
