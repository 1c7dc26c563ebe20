//! Tool output and arguments already in the form pydantic-ai dumps them in are sent as written,
//! unread; written any other way (escapes, numbers Python reads as others, a key written twice),
//! they are read and written again. Either way the request is what pydantic-ai sends: the same
//! value written both ways exports the same.

use msgflow_providers::{export, Provider};

/// A history whose one call and its result hold `args` and `content`, as JSON text.
fn history(args: &str, content: &str) -> Vec<msgflow_wire::ModelMessage> {
    let text = format!(
        r#"[{{"kind":"request","parts":[{{"part_kind":"user-prompt","content":"go","timestamp":"2025-01-01T00:00:00Z"}}]}},
{{"kind":"response","timestamp":"2025-01-01T00:00:00Z","parts":[{{"part_kind":"tool-call","tool_name":"grep","args":{args},"tool_call_id":"c1"}}]}},
{{"kind":"request","parts":[{{"part_kind":"tool-return","tool_name":"grep","tool_call_id":"c1","content":{content},"timestamp":"2025-01-01T00:00:00Z"}}]}}]"#
    );
    msgflow_wire::from_str(&text).unwrap()
}

const PROVIDERS: [Provider; 3] = [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses];

/// Pairs of texts for one value: as pydantic-ai dumps it, and written otherwise.
const SAME_VALUES: &[(&str, &str)] = &[
    (
        r#"[{"path":"a.py","line":3,"text":"é <b> & ✓"},"plain",{"n":null}]"#,
        r#"[ {"path": "a.py", "line": 3, "text": "\u00e9 \u003cb> & \u2713"}, "pl\u0061in", {"n": null} ]"#,
    ),
    (r#"{"a":{"b":[1,2]},"s":"x/y"}"#, r#"{"a": {"b": [1, 2]}, "s": "x\/y"}"#),
    (r#"{"k":"tab\there"}"#, r#"{"k":"tab\u0009here"}"#),
    (r#"{"a":2,"b":0}"#, r#"{"a":1,"b":0,"a":2}"#),
];

#[test]
fn a_value_exports_the_same_however_it_is_written() {
    for (dumped, other) in SAME_VALUES {
        for provider in PROVIDERS {
            let as_dumped = export(&history(dumped, dumped), provider).unwrap();
            let as_other = export(&history(other, other), provider).unwrap();
            assert_eq!(as_dumped, as_other, "{provider:?}: {dumped} / {other}");
        }
    }
}

#[test]
fn numbers_python_reads_as_others_are_written_as_python_writes_them() {
    let request = export(
        &history(r#"{"x":1.50,"z":-0}"#, r#"{"x":1.50,"z":-0}"#),
        Provider::OpenAiChat,
    )
    .unwrap();
    let messages = &request["messages"];
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["arguments"],
        r#"{"x":1.5,"z":0}"#
    );
    assert_eq!(messages[2]["content"], r#"{"x":1.5,"z":0}"#);
}

#[test]
fn a_dumped_lists_items_are_each_their_own_text() {
    let content = r#"["first",{"second":2}]"#;
    let request = export(&history("{}", content), Provider::Anthropic).unwrap();
    let blocks = &request["messages"][2]["content"][0]["content"];
    assert_eq!(blocks[0]["text"], "first");
    assert_eq!(blocks[1]["text"], r#"{"second":2}"#);
}
