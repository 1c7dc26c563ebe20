//! The canonical model on its own: sharing, JSON form errors, schema, helpers.

use std::sync::Arc;

use msgflow_canonical::{
    canonical_schema, default_timestamp, from_json_slice, to_json_vec, CanonicalError, CanonicalMessage, CanonicalPart,
    MessageRole, PartSide, DEFAULT_TIMESTAMP,
};
use msgflow_wire::{RawJson, ToolReturnOutcome};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn messages_are_shareable_and_cheap_to_clone() {
    assert_send_sync::<CanonicalMessage>();
    let message = CanonicalMessage::new(MessageRole::User, vec![CanonicalPart::user_prompt("hi")]);
    let copy = message.clone();
    assert!(Arc::ptr_eq(&message.shared_parts(), &copy.shared_parts()));
    let handle = std::thread::spawn(move || copy.parts().len());
    assert_eq!(handle.join().unwrap(), 1);
}

#[test]
fn helpers_follow_the_seed() {
    let message = CanonicalMessage::new(
        MessageRole::Assistant,
        vec![
            CanonicalPart::thought("think"),
            CanonicalPart::text("Before"),
            CanonicalPart::tool_call("a", "bash", RawJson::empty_object()),
            CanonicalPart::text(""),
            CanonicalPart::text("After"),
            CanonicalPart::tool_call("a", "bash", RawJson::empty_object()),
        ],
    );
    assert_eq!(message.text_content(), "think Before  After");
    assert_eq!(message.tool_call_ids(), ["a", "a"]);
    assert!(message.tool_return_ids().is_empty());
    let tool = CanonicalMessage::new(
        MessageRole::Tool,
        vec![CanonicalPart::tool_return(
            "a",
            "bash",
            RawJson::null(),
            ToolReturnOutcome::Denied,
        )],
    );
    assert_eq!(tool.tool_return_ids(), ["a"]);
    assert_eq!(tool.parts()[0].side(), PartSide::Request);
    assert_eq!(default_timestamp().as_str(), Some(DEFAULT_TIMESTAMP));
}

#[test]
fn json_errors_are_reported() {
    for (input, needle) in [
        (
            r#"[{"role":"user","parts":[{"type":"hologram"}]}]"#,
            "unknown canonical part type \"hologram\"",
        ),
        (
            r#"[{"role":"user","parts":[{"content":"x"}]}]"#,
            "needs a string `type`",
        ),
        (r#"[{"role":"robot","parts":[]}]"#, "robot"),
        (
            r#"[{"role":"assistant","parts":[{"type":"tool_call","id":"a","name":"t","wire":{"part_kind":"text","content":"x"}}]}]"#,
            "tool-call",
        ),
        (r#"[{"role":"user","parts":[{"type":"text"}]}]"#, "content"),
        ("[", "EOF"),
    ] {
        let err = from_json_slice(input.as_bytes()).unwrap_err();
        let CanonicalError::Json { line, .. } = &err;
        assert_eq!(*line, 1);
        assert!(err.to_string().contains(needle), "{input}: {err}");
    }
}

#[test]
fn json_form_of_code_built_parts_round_trips() {
    let message = CanonicalMessage::new(
        MessageRole::User,
        vec![
            CanonicalPart::system_prompt("s"),
            CanonicalPart::tool_return(
                "a",
                "t",
                RawJson::from_json_text(r#"{"k":[1,2.50]}"#).unwrap(),
                ToolReturnOutcome::Retried,
            ),
            CanonicalPart::retry_feedback(RawJson::string("again"), msgflow_wire::RetryCause::NoOutput),
        ],
    )
    .with_timestamp(Some(default_timestamp()));
    let json = to_json_vec(std::slice::from_ref(&message)).unwrap();
    let text = String::from_utf8(json.clone()).unwrap();
    // Raw values keep their spelling (2.50 is not normalised).
    assert!(
        text.contains(r#""content":{"k":[1,2.50]},"outcome":"retried""#),
        "{text}"
    );
    assert_eq!(from_json_slice(&json).unwrap(), vec![message]);
}

#[test]
fn schema_describes_messages_and_every_part_type() {
    let schema = canonical_schema();
    assert_eq!(schema["type"], "array");
    let text = schema.to_string();
    for name in [
        "text",
        "thought",
        "system_prompt",
        "user_prompt",
        "tool_call",
        "tool_return",
        "retry_feedback",
        "file",
        "other",
    ] {
        assert!(
            text.contains(&format!("\"const\":\"{name}\"")),
            "schema lacks part type {name}"
        );
    }
    for key in ["\"role\"", "\"wire\"", "\"builtin\"", "\"outcome\"", "CanonicalMessage"] {
        assert!(text.contains(key), "schema lacks {key}");
    }
}

#[test]
fn numbers_beyond_f64_do_not_break_reading() {
    let input = r#"[{"role":"assistant","timestamp":null,"parts":[{"type":"tool_call","id":"a","name":"t","args":{"x":1e400},"builtin":false}]}]"#;
    let messages = from_json_slice(input.as_bytes()).unwrap();
    assert_eq!(String::from_utf8(to_json_vec(&messages).unwrap()).unwrap(), input);
}
