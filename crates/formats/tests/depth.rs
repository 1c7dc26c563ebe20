//! Output nested deeper than msgflow reads JSON is reported, never passed off as lossless. A
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
