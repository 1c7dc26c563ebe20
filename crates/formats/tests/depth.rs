//! Output nested deeper than msgflow reads JSON is reported, never passed off as lossless; a long
//! input read in pieces reads as the whole text reads, its depth limit included. A
//! history may hold a value nested just within the reader's limit (128 levels from the root); in
//! the output it can sit deeper (a lossless record nests the history's messages inside the foreign
//! ones), and then the output's text does not load back, though the value it was made of did.

use msgflow_formats::{convert_with, ConvertOptions, Format, LossKind, Output};

/// What the `convert` fuzz target found: a part id nested 120 levels, within a history that
/// reads, written to `vercel-ui --lossless` with nothing reported lost, then refused on the way
/// back (recursion limit).
const FOUND_BY_FUZZING: &str = include_str!("data/fuzz-deep-id-in-lossless-record.json");

/// A history whose tool call's arguments nest `depth` levels below the part.
fn history_with_arguments_nested(depth: usize) -> String {
    format!(
        r#"[{{"parts":[{{"part_kind":"user-prompt","content":"go"}}],"kind":"request"}},
{{"parts":[{{"part_kind":"tool-call","tool_name":"f","tool_call_id":"c","args":{{"a":{}1{}}}}}],"kind":"response"}},
{{"parts":[{{"part_kind":"tool-return","tool_name":"f","tool_call_id":"c","content":"done"}}],"kind":"request"}}]"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

#[test]
fn output_too_deep_to_read_back_is_reported() {
    let mut histories = vec![FOUND_BY_FUZZING.to_owned()];
    histories.extend((100..=124).map(history_with_arguments_nested));
    let mut too_deep = 0;
    for history in &histories {
        assert!(msgflow_wire::from_str(history).is_ok(), "the history itself reads");
        for lossless in [false, true] {
            let options = ConvertOptions {
                lossless,
                ..ConvertOptions::default()
            };
            for to in Format::ALL.into_iter().filter(|format| *format != Format::PydanticAi) {
                let Ok(there) = convert_with(history, Format::PydanticAi, to, &options) else {
                    continue;
                };
                let Output::Documents(documents) = &there.output else {
                    unreachable!()
                };
                let output = documents[0].to_string();
                let back = convert_with(&output, to, Format::PydanticAi, &options);
                let reported = there.report.losses.iter().any(|loss| {
                    loss.kind == LossKind::Dropped && loss.path == "$" && loss.what.contains("nests deeper")
                });
                match back {
                    Ok(_) => assert!(
                        !reported,
                        "{to} (lossless: {lossless}): reported too deep, but reads back"
                    ),
                    Err(err) => {
                        assert!(
                            reported,
                            "{to} (lossless: {lossless}): does not read back ({err}) and the report says {:?}",
                            there.report.groups()
                        );
                        too_deep += 1;
                    }
                }
            }
        }
    }
    // The found history and the deepest arguments go past the limit in several formats.
    assert!(too_deep >= 5, "only {too_deep} outputs too deep to read back");
}

/// A long array of AG-UI user messages (past the size from which it is read in pieces), one of
/// them (at `deep_at`) holding a key of its own (which pydantic-ai drops) nested `levels` arrays
/// deep.
fn long_ag_ui_input(deep_at: usize, levels: usize) -> String {
    let mut messages: Vec<String> = (0..4000)
        .map(|index| {
            format!(
                r#"{{"id":"u{index}","role":"user","content":"message {index} {}"}}"#,
                "x".repeat(120)
            )
        })
        .collect();
    messages[deep_at] = format!(
        r#"{{"id":"deep","role":"user","content":"deep","extra":{}"t"{}}}"#,
        "[".repeat(levels),
        "]".repeat(levels)
    );
    format!("[{}]", messages.join(","))
}

/// A long array of UI messages is read in pieces, each message as the root of its own text,
/// where serde_json allows one more level of nesting than inside the array: a message nested just
/// past what the whole text's parse reads is refused as the whole text refuses it, not read.
#[test]
fn a_long_input_read_in_pieces_keeps_the_whole_texts_depth_limit() {
    let mut refused_whole = 0;
    for levels in 120..=127 {
        let input = long_ag_ui_input(2500, levels);
        assert!(input.len() > 512 * 1024);
        let item = input.split(",{\"id\":\"deep\"").nth(1).expect("the deep message");
        let item = format!("{{\"id\":\"deep\"{}", &item[..item.find("]}").unwrap() + 2]);
        let whole_reads = serde_json::from_str::<serde_json::Value>(&input).is_ok();
        let item_reads = serde_json::from_str::<serde_json::Value>(&item).is_ok();
        // Where the deep message reads as a text of its own, so do the pieces.
        assert_eq!(
            msgflow_wire::values_in_pieces(&input).is_some(),
            item_reads,
            "{levels} levels"
        );
        let converted = msgflow_formats::convert(&input, Format::AgUi, Format::PydanticAi);
        if whole_reads {
            assert!(converted.is_ok(), "{levels} levels: {:?}", converted.err());
        } else {
            assert!(
                item_reads || levels > 125,
                "{levels} levels: the message alone does not read either"
            );
            let err = converted.expect_err("the whole text does not read");
            assert!(err.message.contains("recursion limit"), "{levels} levels: {err}");
            refused_whole += usize::from(item_reads);
        }
    }
    assert!(refused_whole > 0, "no depth at which only the pieces read");
}

/// A long array of UI messages read in pieces converts as the same messages read whole (here in
/// a body `{"messages": [...]}`, which is not read in pieces): the same histories, and the same
/// losses at the same places, in both UI formats, lossless or not.
#[test]
fn a_long_input_read_in_pieces_converts_as_read_whole() {
    use msgflow_wire::arbitrary::{history, Flavour};
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[9; 32]));
    let strategy = history(Flavour::Pydantic);
    let (mut compared, mut converted) = (0, 0);
    for to in [Format::AgUi, Format::VercelUi] {
        for lossless in [false, true] {
            let options = ConvertOptions {
                lossless,
                ..ConvertOptions::default()
            };
            // Histories that convert, one after the other, until the messages pass 600 KiB.
            let mut messages: Vec<serde_json::Value> = Vec::new();
            while serde_json::to_string(&messages).unwrap().len() < 600 * 1024 {
                let generated = strategy.new_tree(&mut runner).expect("a history").current();
                let text = msgflow_wire::to_string(&generated).unwrap();
                let Ok(converted) = convert_with(&text, Format::PydanticAi, to, &options) else {
                    continue;
                };
                let Output::Documents(mut documents) = converted.output else {
                    unreachable!()
                };
                // Only messages that load back on their own, so that the whole input converts and the
                // comparison covers every piece, not an error at the first one.
                let document = documents.remove(0);
                if convert_with(&document.to_string(), to, Format::PydanticAi, &options).is_err() {
                    continue;
                }
                if let serde_json::Value::Array(converted) = document {
                    messages.extend(converted);
                }
            }
            let array = serde_json::to_string(&messages).unwrap();
            assert!(
                msgflow_wire::values_in_pieces(&array).is_some(),
                "{to}: not read in pieces"
            );
            let body = serde_json::to_string(&serde_json::json!({ "messages": messages })).unwrap();
            let in_pieces = convert_with(&array, to, Format::PydanticAi, &options);
            let whole = convert_with(&body, to, Format::PydanticAi, &options);
            match (in_pieces, whole) {
                (Ok(in_pieces), Ok(whole)) => {
                    converted += 1;
                    assert_eq!(in_pieces.output, whole.output, "{to}, lossless {lossless}");
                    let paths = |report: &msgflow_formats::Report| -> Vec<(LossKind, String, String)> {
                        report
                            .losses
                            .iter()
                            .map(|loss| (loss.kind, loss.path.replacen("$.messages", "$", 1), loss.what.clone()))
                            .collect()
                    };
                    assert_eq!(
                        paths(&in_pieces.report),
                        paths(&whole.report),
                        "{to}, lossless {lossless}"
                    );
                }
                (Err(in_pieces), Err(whole)) => {
                    assert_eq!(in_pieces.message, whole.message, "{to}, lossless {lossless}");
                    assert_eq!(
                        in_pieces.path.replacen("$.messages", "$", 1),
                        whole.path.replacen("$.messages", "$", 1)
                    );
                }
                (in_pieces, whole) => panic!(
                    "{to}, lossless {lossless}: in pieces {:?}, whole {:?}",
                    in_pieces.map(|_| "converted"),
                    whole.map(|_| "converted")
                ),
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 4);
    // AG-UI's lossless form restores records from the leading messages only, so messages of many
    // histories one after the other make no history there: that case compares the errors.
    assert!(converted >= 3, "only {converted} of the long inputs converted");
}

/// A tool result nested about as deep as the parser reads: an AG-UI tool message's text (a JSON
/// document of its own, read with its own limit) and a Vercel tool part's output. The loaders take
/// a shallow result into the typed history as it is and send one nested past the depth the text
/// parser reads at its place in the history (inside the history's array, the message, its parts
/// and the part) through the history's JSON: either way it loads as the history of the same
/// depth reads, whole.
#[test]
fn a_tool_result_loads_as_deep_as_its_history_reads() {
    let (mut loaded, mut refused) = (0, 0);
    for levels in 118..=127 {
        let nested = format!("{}\"x\"{}", "[".repeat(levels), "]".repeat(levels));
        let history = format!(
            r#"[{{"parts":[{{"tool_name":"f","args":"{{}}","tool_call_id":"c1","part_kind":"tool-call"}}],"kind":"response"}},
                {{"parts":[{{"tool_name":"f","content":{nested},"tool_call_id":"c1","part_kind":"tool-return"}}],"kind":"request"}}]"#
        );
        let history_reads = msgflow_wire::from_str(&history).is_ok();
        let ag_ui = serde_json::json!([
            {"id": "a", "role": "assistant",
             "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"id": "t", "role": "tool", "toolCallId": "c1", "content": nested},
        ])
        .to_string();
        let vercel = format!(
            r#"[{{"id":"a","role":"assistant","parts":[{{"type":"tool-f","toolCallId":"c1","state":"output-available","input":{{}},"output":{nested}}}]}}]"#
        );
        let vercel_reads = serde_json::from_str::<serde_json::Value>(&vercel).is_ok();
        for (format, input) in [(Format::AgUi, ag_ui), (Format::VercelUi, vercel)] {
            if format == Format::VercelUi && !vercel_reads {
                continue;
            }
            let converted = msgflow_formats::convert(&input, format, Format::PydanticAi);
            if history_reads {
                let converted = converted.unwrap_or_else(|err| panic!("{format} {levels} levels: {err}"));
                let msgflow_formats::Output::Histories(histories) = converted.output else {
                    unreachable!()
                };
                let text = msgflow_wire::to_string(&histories[0]).unwrap();
                assert!(text.contains(&nested), "{format} {levels} levels: {text}");
                loaded += 1;
            } else {
                let err = converted.expect_err("the history does not read");
                assert!(
                    err.message.contains("recursion limit"),
                    "{format} {levels} levels: {err}"
                );
                refused += 1;
            }
        }
    }
    assert_eq!((loaded, refused), (16, 0), "loaded, refused");
}
