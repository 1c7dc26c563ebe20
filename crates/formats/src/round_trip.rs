//! The read-back every "to" direction reports its losses by (see [`crate::loss`]): the history's
//! JSON, the history the format's "from" makes of the output, and their difference.
//!
//! The difference is taken message by message: a message that comes back equal (as a typed
//! `ModelMessage`) serialises to equal JSON, so it has no difference to report and is never turned
//! into JSON again. Only the messages that changed are, which keeps the report exactly what a
//! whole-history diff gives at a fraction of the work on long histories.
//!
//! Messages are independent in every step (their JSON, their read-back, their diff), so each step
//! runs message by message on rayon's thread pool, and the values are freed there too. The
//! reports are put together in message order, so they are what the one-thread diff gives.

use msgflow_wire::ModelMessage;
use rayon::prelude::*;
use serde_json::Value;

use crate::loaded::{history_of, LoadedMessage};
use crate::loss::{self, LossKind, Report};
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
    // A history's JSON is the array of its messages' (`Vec`'s `Serialize`), one level deeper.
    let messages: Option<Vec<Value>> = history
        .par_iter()
        .map(|message| {
            serde_json::to_value(message)
                .ok()
                .filter(|value| within_parse_depth(value, 1))
        })
        .collect();
    match messages {
        Some(messages) => Ok(Value::Array(messages)),
        None => history_value_through_text(history, document),
    }
}

/// Reports the whole history dropped when the text of `output` (the `what` a "to" direction
/// wrote) nests deeper than msgflow reads JSON ([`msgflow_wire::MAX_DEPTH`], serde_json's limit
/// too): the read-back took the value, which came back, but its text does not load. A value the
/// history holds just within the limit can sit deeper in the output (a lossless record nests the
/// history's messages inside the foreign ones).
pub(crate) fn report_too_deep(output: &Value, what: &str, document: usize, report: &mut Report) {
    if !within_parse_depth(output, 0) {
        report.push(
            LossKind::Dropped,
            document,
            "$",
            format!(
                "the whole history: the output ({what}) nests deeper than the {} levels msgflow reads, and does not load back",
                msgflow_wire::MAX_DEPTH
            ),
        );
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
pub(crate) fn within_parse_depth(value: &Value, enclosing: usize) -> bool {
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

/// Why [`diff_loaded`] has no report.
pub(crate) enum ReadBackError {
    /// The loader's messages make no history ([`history_of`]'s error).
    Unloadable(String),
    /// The history has no JSON msgflow can diff.
    Convert(ConvertError),
}

/// [`diff_back`] of `history` (whose JSON is `original`) and [`history_of`] the messages a
/// format's loader made of the output (`loaded`), with the same report and the same errors:
/// the loaded messages are read on the thread pool ([`history_of`]), and each is compared and
/// diffed with its original there too ([`diff_owned_messages`]).
pub(crate) fn diff_loaded(
    history: &[ModelMessage],
    original: Value,
    loaded: Vec<LoadedMessage>,
    document: usize,
    report: &mut Report,
) -> Result<(), ReadBackError> {
    let back = history_of(loaded).map_err(ReadBackError::Unloadable)?;
    match original {
        Value::Array(messages) if messages.len() == history.len() => {
            diff_owned_messages(history, messages, back, document, report)
        }
        original => diff_back(history, &original, &back, document, report),
    }
    .map_err(ReadBackError::Convert)
}

/// [`diff_back`] of `history`, whose JSON messages are `original`, and `back`, taking both so
/// that each message's values are freed on the thread that compared them.
fn diff_owned_messages(
    history: &[ModelMessage],
    original: Vec<Value>,
    back: Vec<ModelMessage>,
    document: usize,
    report: &mut Report,
) -> Result<(), ConvertError> {
    let count = original.len().max(back.len());
    let mut original = original.into_iter().map(Some).collect::<Vec<_>>();
    original.resize_with(count, || None);
    let mut back = back.into_iter().map(Some).collect::<Vec<_>>();
    back.resize_with(count, || None);
    let reports: Vec<Result<Report, ConvertError>> = original
        .into_par_iter()
        .zip(back)
        .enumerate()
        .map(|(index, pair)| {
            let mut report = Report::default();
            match pair {
                (Some(original), Some(message)) => {
                    // Equal messages serialise alike: their JSON would compare equal and be skipped.
                    match history.get(index) {
                        Some(sent) if *sent == message => {}
                        sent => diff_changed_message(index, sent, original, message, document, &mut report)?,
                    }
                }
                (Some(original), None) => loss::dropped_message(index, &original, document, &mut report),
                (None, Some(message)) => {
                    let back = message_value(&message, document)?;
                    loss::invented_message(index, Some(&back), document, &mut report);
                }
                (None, None) => {}
            }
            Ok(report)
        })
        .collect();
    let mut losses = Vec::new();
    for message_report in reports {
        losses.push(message_report?.losses);
    }
    report.losses.extend(losses.into_iter().flatten());
    Ok(())
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

/// [`loss::diff_message`] of message `index` of a history, `sent`, whose JSON is `original`, and
/// the different message that came back, `back`. The parts that came back equal would compare
/// equal as JSON too, so they are neither turned into JSON nor compared: both sides hold `null`
/// in their place, which keeps every other part at its index and the report what the whole
/// messages' diff gives. (An equal part cannot hold what [`message_value`] refuses: the same
/// part at the same place was turned into JSON for `original`.)
fn diff_changed_message(
    index: usize,
    sent: Option<&ModelMessage>,
    mut original: Value,
    mut back: ModelMessage,
    document: usize,
    report: &mut Report,
) -> Result<(), ConvertError> {
    fn pairwise_equal<P: PartialEq>(sent: &[P], back: &[P]) -> Vec<bool> {
        sent.iter().zip(back).map(|(sent, back)| sent == back).collect()
    }
    let equal_parts = match (sent, &back) {
        (Some(ModelMessage::Request(sent)), ModelMessage::Request(back)) => pairwise_equal(&sent.parts, &back.parts),
        (Some(ModelMessage::Response(sent)), ModelMessage::Response(back)) => pairwise_equal(&sent.parts, &back.parts),
        _ => Vec::new(),
    };
    if let Some(sent) = sent {
        without_equal_payloads(sent, &mut back, &mut original, &equal_parts);
    }
    if equal_parts.contains(&true) {
        if let Some(back) = without_equal_parts(&mut back, &equal_parts) {
            if let Some(Value::Array(original_parts)) = original.get_mut("parts") {
                for (part, _) in original_parts.iter_mut().zip(&equal_parts).filter(|(_, equal)| **equal) {
                    *part = Value::Null;
                }
                loss::diff_message(index, &original, &back, document, report);
                return Ok(());
            }
        }
    }
    let back = message_value(&back, document)?;
    loss::diff_message(index, &original, &back, document, report);
    Ok(())
}

/// In each part of `back` that did not come back equal to its part of `sent`, the tool result or
/// arguments that came back with the same text are set to `null`, here and at the same place in
/// `original` (the JSON of `sent`), as [`diff_changed_message`] does with equal parts: equal text is
/// equal JSON (a tool return's under the same file record, which decides what its content loads
/// as), so the diff is the same, and writing these payloads as JSON (parsing their text) is most of
/// the cost of a changed message's JSON (a tool return that lost only its timestamp).
fn without_equal_payloads(sent: &ModelMessage, back: &mut ModelMessage, original: &mut Value, equal_parts: &[bool]) {
    use msgflow_wire::{Field, ModelRequestPart as Request, ModelResponsePart as Response, RawJson};

    fn same_text(sent: &RawJson, back: &mut RawJson) -> bool {
        let same = sent == back && !sent.is_null();
        if same {
            *back = RawJson::null();
        }
        same
    }
    fn same_present(sent: &Field<RawJson>, back: &mut Field<RawJson>) -> bool {
        match (sent, back) {
            (Field::Present(sent), Field::Present(back)) => same_text(sent, back),
            _ => false,
        }
    }
    let mut emptied = Vec::new();
    match (sent, back) {
        (ModelMessage::Request(sent), ModelMessage::Request(back)) => {
            for (index, (sent, back)) in sent.parts.iter().zip(&mut back.parts).enumerate() {
                if equal_parts.get(index) == Some(&true) {
                    continue;
                }
                if let (Request::ToolReturn(sent), Request::ToolReturn(back)) = (sent, back) {
                    // Under another file record, the same content can load otherwise.
                    if sent.content_file_digests == back.content_file_digests
                        && same_text(&sent.content, &mut back.content)
                    {
                        emptied.push((index, "content"));
                    }
                }
            }
        }
        (ModelMessage::Response(sent), ModelMessage::Response(back)) => {
            for (index, (sent, back)) in sent.parts.iter().zip(&mut back.parts).enumerate() {
                if equal_parts.get(index) == Some(&true) {
                    continue;
                }
                let emptied_key = match (sent, back) {
                    (Response::ToolCall(sent), Response::ToolCall(back)) => {
                        same_present(&sent.args, &mut back.args).then_some("args")
                    }
                    (Response::BuiltinToolCall(sent), Response::BuiltinToolCall(back)) => {
                        same_present(&sent.args, &mut back.args).then_some("args")
                    }
                    (Response::BuiltinToolReturn(sent), Response::BuiltinToolReturn(back)) => {
                        (sent.content_file_digests == back.content_file_digests
                            && same_text(&sent.content, &mut back.content))
                        .then_some("content")
                    }
                    _ => None,
                };
                if let Some(key) = emptied_key {
                    emptied.push((index, key));
                }
            }
        }
        _ => {}
    }
    let parts = original.get_mut("parts").and_then(Value::as_array_mut);
    if let Some(parts) = parts {
        for (index, key) in emptied {
            if let Some(value) = parts.get_mut(index).and_then(|part| part.get_mut(key)) {
                *value = Value::Null;
            }
        }
    }
}

/// The JSON of `message` with `null` for each part marked equal, or `None` where that would not
/// be its JSON's shape: the message's JSON without its parts, and each other part's, checked as
/// [`message_value`] checks the whole. (`ModelMessage` writes the request or response it holds.)
fn without_equal_parts(message: &mut ModelMessage, equal_parts: &[bool]) -> Option<Value> {
    match message {
        ModelMessage::Request(request) => with_parts_json(request, |request| &mut request.parts, equal_parts),
        ModelMessage::Response(response) => with_parts_json(response, |response| &mut response.parts, equal_parts),
    }
}

/// [`without_equal_parts`] of a request or a response, whose parts `parts_of` gives.
fn with_parts_json<M: serde::Serialize, P: serde::Serialize>(
    message: &mut M,
    parts_of: fn(&mut M) -> &mut Vec<P>,
    equal_parts: &[bool],
) -> Option<Value> {
    let parts: Vec<Value> = parts_of(message)
        .iter()
        .enumerate()
        .map(|(index, part)| match equal_parts.get(index) {
            Some(true) => Some(Value::Null),
            // A part nests inside the history, the message and its parts.
            _ => serde_json::to_value(part)
                .ok()
                .filter(|value| within_parse_depth(value, 3)),
        })
        .collect::<Option<_>>()?;
    // The message's JSON with no parts: the parts are taken out for the time of writing it.
    let taken = std::mem::take(parts_of(message));
    let rest = serde_json::to_value(&*message);
    *parts_of(message) = taken;
    let mut rest = rest.ok().filter(|rest| within_parse_depth(rest, 1))?;
    match rest.get_mut("parts") {
        Some(Value::Array(written)) if written.is_empty() => *written = parts,
        _ => return None,
    }
    Some(rest)
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

    use serde_json::json;

    use super::*;
    use crate::loaded::{read_in_groups, MESSAGES_PER_READ};
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

    /// Numbers at and past every limit a JSON number meets on the way (`i64`, `u64`, `f64`'s
    /// range and precision, exponents, negative zero), in the opaque values msgflow_wire keeps as
    /// text and in the typed fields it reads as numbers: both paths carry them as the same text.
    #[test]
    fn a_history_value_keeps_numbers_at_their_limits_as_the_text_path_does() {
        let numbers = [
            "0",
            "-0",
            "-0.0",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234567890",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "1e309",
            "-1e309",
            "5e-324",
            "2.4703282292062327e-324",
            "1e-400",
            "0.1",
            "0.30000000000000004",
            "1.00000000000000000000001",
            "1E+2",
            "1e-0",
            "2.5e10",
            "-1.5E-7",
        ];
        for number in numbers {
            let text = format!(
                r#"[{{"parts":[{{"tool_name":"f","args":{{"n":{number},"list":[{number}]}},"tool_call_id":"c","id":null,"provider_name":null,"provider_details":{{"n":{number}}},"part_kind":"tool-call"}}],"usage":{{"input_tokens":{tokens}}},"model_name":null,"timestamp":"2025-01-01T00:00:00Z","kind":"response"}}]"#,
                // A typed integer field takes only what pydantic-ai's `int` takes.
                tokens = if number.parse::<u64>().is_ok() && !number.starts_with('-') {
                    number
                } else {
                    "1"
                },
            );
            let history = msgflow_wire::from_str(&text).unwrap_or_else(|err| panic!("{number}: {err}"));
            assert_built_as_through_text(&history, number);
            let value = history_value(&history, 0).expect("a history's JSON");
            assert_eq!(
                value[0]["parts"][0]["args"]["n"].to_string(),
                serde_json::from_str::<Value>(number)
                    .expect("a JSON number")
                    .to_string(),
                "{number}"
            );
        }
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

    /// What [`diff_loaded`] gives, comparable.
    fn loaded_diff(history: &[ModelMessage], loaded: Vec<LoadedMessage>) -> Result<Report, String> {
        let mut report = Report::default();
        match diff_loaded(history, history_value(history, 0).unwrap(), loaded, 0, &mut report) {
            Ok(()) => Ok(report),
            Err(ReadBackError::Unloadable(message)) => Err(format!("unloadable: {message}")),
            Err(ReadBackError::Convert(err)) => Err(format!("convert: {err}")),
        }
    }

    /// What [`history_of`] stands for: the text of the whole array, read at once.
    fn history_of_whole_text(messages: Vec<LoadedMessage>) -> Result<Vec<ModelMessage>, String> {
        let messages: Vec<Value> = messages.into_iter().map(LoadedMessage::into_json).collect();
        let text = serde_json::to_vec(&messages).expect("a JSON value always serialises");
        msgflow_wire::from_vec(text).map_err(|err| err.message().to_owned())
    }

    /// What [`diff_loaded`] stands for: the loaded messages as one typed history, then
    /// [`diff_back`].
    fn loaded_diff_in_one_thread(history: &[ModelMessage], loaded: Vec<LoadedMessage>) -> Result<Report, String> {
        let back = history_of_whole_text(loaded).map_err(|message| format!("unloadable: {message}"))?;
        let mut report = Report::default();
        diff_back(history, &history_value(history, 0).unwrap(), &back, 0, &mut report)
            .map_err(|err| format!("convert: {err}"))?;
        Ok(report)
    }

    /// On generated histories read back as other histories (other lengths and kinds), as
    /// themselves, and as messages that make no history (one message that is not one, one nested
    /// past the parser's limit), the parallel read gives the history or the error the whole
    /// text's read gives, and the parallel read-back the one-thread report or error.
    #[test]
    fn the_parallel_read_back_is_the_one_thread_read_back() {
        let mut runner =
            TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[5; 32]));
        let deep = serde_json::from_str::<Value>(&format!(
            r#"{{"parts":[{{"content":{}"x"{},"part_kind":"user-prompt"}}],"kind":"request"}}"#,
            "[".repeat(124),
            "]".repeat(124)
        ))
        .unwrap();
        let mut unloadable = 0;
        for flavour in [Flavour::Pydantic, Flavour::Any] {
            let strategy = history(flavour);
            for case in 0..200 {
                let history = strategy.new_tree(&mut runner).expect("a history").current();
                let other = strategy.new_tree(&mut runner).expect("a history").current();
                // A history holding `NaN` (as `Flavour::Any` makes them) has no JSON value.
                let (Ok(Value::Array(other_messages)), Ok(Value::Array(own_messages))) =
                    (history_value(&other, 0), history_value(&history, 0))
                else {
                    continue;
                };
                let mut not_a_message = other_messages.clone();
                not_a_message.insert(case % (not_a_message.len() + 1), json!({"kind": "neither"}));
                // Every message changed, its parts not: the parts are left out of the diff.
                let mut own_changed = own_messages.clone();
                for message in &mut own_changed {
                    if let Some(object) = message.as_object_mut() {
                        object.insert("metadata".into(), json!({"changed": case}));
                    }
                }
                let mut too_deep = own_messages.clone();
                too_deep.insert(case % (too_deep.len() + 1), deep.clone());
                let json = |messages: Vec<Value>| messages.into_iter().map(LoadedMessage::Json).collect::<Vec<_>>();
                // Messages typed as a loader builds them: the typed message their JSON reads as.
                let typed_where = |messages: Vec<Value>, typed: &dyn Fn(usize) -> bool| {
                    messages
                        .into_iter()
                        .enumerate()
                        .map(|(index, value)| {
                            let read = msgflow_wire::from_str(&format!("[{value}]"))
                                .ok()
                                .and_then(|mut messages: Vec<ModelMessage>| messages.pop());
                            match read {
                                Some(message) if typed(index) => LoadedMessage::Typed(message),
                                _ => LoadedMessage::Json(value),
                            }
                        })
                        .collect::<Vec<_>>()
                };
                let every_other = |index: usize| index % 2 == case % 2;
                for (label, loaded) in [
                    ("other", json(other_messages.clone())),
                    ("other, partly typed", typed_where(other_messages, &every_other)),
                    ("own", json(own_messages.clone())),
                    ("own, typed", typed_where(own_messages, &|_| true)),
                    ("own, changed", json(own_changed)),
                    ("not a message", json(not_a_message.clone())),
                    ("not a message, partly typed", typed_where(not_a_message, &every_other)),
                    ("too deep", json(too_deep.clone())),
                    ("too deep, partly typed", typed_where(too_deep, &every_other)),
                ] {
                    let whole = history_of_whole_text(loaded.clone());
                    for per_read in [1, 2, 3, MESSAGES_PER_READ] {
                        assert_eq!(
                            read_in_groups(loaded.clone(), per_read),
                            whole,
                            "{flavour:?} case {case}: {label}, the history read {per_read} messages at a time"
                        );
                    }
                    let expected = loaded_diff_in_one_thread(&history, loaded.clone());
                    unloadable += usize::from(expected.is_err());
                    assert_eq!(
                        loaded_diff(&history, loaded),
                        expected,
                        "{flavour:?} case {case}: {label}"
                    );
                }
            }
        }
        assert!(unloadable >= 400, "only {unloadable} unloadable read-backs");
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
                    let crate::Output::Documents(documents) = &there.output else {
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
                    // The "to" direction's own report is the diff of what its output loads as.
                    assert_eq!(there.report, message_diff(&history, &back), "case {case} {format}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "only {compared} read-backs compared");
    }
}
