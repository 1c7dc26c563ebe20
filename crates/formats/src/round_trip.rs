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
pub(crate) fn history_value(history: &[ModelMessage], document: usize) -> Result<Value, ConvertError> {
    let text = msgflow_wire::to_string(history).expect("a parsed or built history always serialises");
    serde_json::from_str(&text).map_err(|err| ConvertError {
        document,
        path: "$".to_owned(),
        position: Some((err.line(), err.column())),
        message: format!("msgflow cannot convert this history: {err}"),
    })
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

/// The JSON of one message, as pydantic-ai writes it.
fn message_value(message: &ModelMessage, document: usize) -> Result<Value, ConvertError> {
    match history_value(std::slice::from_ref(message), document)? {
        Value::Array(mut messages) if messages.len() == 1 => Ok(messages.pop().expect("one message")),
        other => Ok(other),
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
