//! Roles, role consistency, legacy shapes, parts built in code, history helpers, registry bridge.

use msgflow_adapter::{
    find_dangling_tool_calls, from_canonical, from_canonical_history, get_content, get_tool_call_ids,
    get_tool_return_ids, registry_events, to_canonical, to_canonical_value, tool_registry, AdapterError,
};
use msgflow_canonical::{CanonicalMessage, CanonicalPart, MessageRole, DEFAULT_TIMESTAMP};
use msgflow_registry::{HistoryEvent, ReturnOutcome, ToolCallStatus};
use msgflow_wire::{ModelMessage, RawJson, RetryCause, Timestamp, ToolReturnOutcome};
use serde_json::json;

const TS: &str = "2025-01-02T03:04:05.678901Z";

fn request(parts: &str) -> String {
    format!(
        r#"{{"parts":[{parts}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}}"#
    )
}

fn response(parts: &str) -> String {
    format!(r#"{{"parts":[{parts}],"usage":{{}},"model_name":"m","timestamp":"{TS}","kind":"response"}}"#)
}

fn user_prompt(text: &str) -> String {
    format!(r#"{{"content":"{text}","timestamp":"{TS}","part_kind":"user-prompt"}}"#)
}

fn system_prompt(text: &str) -> String {
    format!(r#"{{"content":"{text}","timestamp":"{TS}","dynamic_ref":null,"part_kind":"system-prompt"}}"#)
}

fn call(id: &str) -> String {
    format!(r#"{{"tool_name":"bash","args":{{"cmd":"ls"}},"tool_call_id":"{id}","part_kind":"tool-call"}}"#)
}

fn ret(id: &str, outcome: &str) -> String {
    format!(
        r#"{{"tool_name":"bash","content":"ok","tool_call_id":"{id}","metadata":null,"timestamp":"{TS}","outcome":"{outcome}","part_kind":"tool-return"}}"#
    )
}

fn retry_prompt(id: &str, tool_name: Option<&str>) -> String {
    let name = tool_name.map_or("null".to_owned(), |name| format!("\"{name}\""));
    format!(
        r#"{{"content":"bad args","tool_name":{name},"tool_call_id":"{id}","timestamp":"{TS}","part_kind":"retry-prompt"}}"#
    )
}

fn history(messages: &[String]) -> Vec<ModelMessage> {
    msgflow_wire::from_str(&format!("[{}]", messages.join(","))).unwrap()
}

fn roles(messages: &[ModelMessage]) -> Vec<MessageRole> {
    messages.iter().map(|message| to_canonical(message).role()).collect()
}

#[test]
fn request_roles_follow_their_parts() {
    let messages = history(&[
        request(&user_prompt("hi")),
        request(&system_prompt("be brief")),
        request(&[ret("a", "success"), retry_prompt("b", Some("bash"))].join(",")),
        request(&[system_prompt("s"), user_prompt("u")].join(",")),
        request(""),
        request(&retry_prompt("c", None)),
        response(&call("a")),
    ]);
    use MessageRole::*;
    assert_eq!(roles(&messages), [User, System, Tool, User, User, User, Assistant]);
}

#[test]
fn every_return_form_answers_a_call() {
    let builtin_call = r#"{"tool_name":"web_search","args":{},"tool_call_id":"n1","part_kind":"builtin-tool-call"}"#;
    let builtin_ret = format!(
        r#"{{"tool_name":"web_search","content":[],"tool_call_id":"n1","timestamp":"{TS}","part_kind":"builtin-tool-return"}}"#
    );
    let messages = history(&[
        request(&user_prompt("go")),
        response(
            &[
                call("a"),
                call("b"),
                call("c"),
                call("d"),
                builtin_call.to_owned(),
                builtin_ret,
            ]
            .join(","),
        ),
        request(
            &[
                ret("a", "success"),
                ret("b", "retried"),
                retry_prompt("c", Some("bash")),
                retry_prompt("d", None),
            ]
            .join(","),
        ),
    ]);
    assert_eq!(get_tool_call_ids(&messages[1]), ["a", "b", "c", "d", "n1"]);
    assert_eq!(get_tool_return_ids(&messages[1]), ["n1"]);
    assert_eq!(get_tool_return_ids(&messages[2]), ["a", "b", "c"]);
    // A retry prompt without a tool name is feedback, not an answer.
    assert_eq!(find_dangling_tool_calls(&messages), ["d"]);
}

#[test]
fn dangling_detection_is_positional_insensitive_and_set_based() {
    let messages = history(&[
        request(&ret("early", "success")),
        response(&[call("early"), call("dup"), call("x")].join(",")),
        response(&call("dup")),
        request(&ret("dup", "failed")),
        response(&call("x")),
    ]);
    assert_eq!(find_dangling_tool_calls(&messages), ["x"]);
}

#[test]
fn text_content_joins_text_and_thoughts_only() {
    let thinking = r#"{"content":"hmm","id":null,"signature":"sig","provider_name":null,"part_kind":"thinking"}"#;
    let text = |t: &str| format!(r#"{{"content":"{t}","part_kind":"text"}}"#);
    let messages = history(&[
        response(&[thinking.to_owned(), text("Before"), call("a"), text("After")].join(",")),
        request(&[user_prompt("prompt"), ret("a", "success")].join(",")),
    ]);
    assert_eq!(get_content(&messages[0]), "hmm Before After");
    assert_eq!(get_content(&messages[1]), "");
}

#[test]
fn parts_in_the_wrong_role_are_errors_naming_the_part() {
    let text_in_user = CanonicalMessage::new(
        MessageRole::User,
        vec![CanonicalPart::user_prompt("a"), CanonicalPart::text("b")],
    );
    let err = from_canonical(&text_in_user).unwrap_err();
    assert!(
        matches!(&err, AdapterError::PartRoleMismatch { role: MessageRole::User, index: 1, part } if part == "text"),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("part 1 (text) cannot be in a user message"),
        "{err}"
    );

    let prompt_in_assistant = CanonicalMessage::new(MessageRole::Assistant, vec![CanonicalPart::system_prompt("s")]);
    let err = from_canonical(&prompt_in_assistant).unwrap_err();
    assert!(
        matches!(
            &err,
            AdapterError::PartRoleMismatch {
                role: MessageRole::Assistant,
                index: 0,
                ..
            }
        ),
        "{err}"
    );

    let ret_in_assistant = CanonicalMessage::new(
        MessageRole::Assistant,
        vec![CanonicalPart::tool_return(
            "a",
            "bash",
            RawJson::string("ok"),
            ToolReturnOutcome::Success,
        )],
    );
    assert!(matches!(
        from_canonical(&ret_in_assistant),
        Err(AdapterError::PartRoleMismatch { .. })
    ));

    let call_in_tool = CanonicalMessage::new(
        MessageRole::Tool,
        vec![CanonicalPart::tool_call("a", "bash", RawJson::empty_object())],
    );
    assert!(matches!(
        from_canonical(&call_in_tool),
        Err(AdapterError::PartRoleMismatch { .. })
    ));

    // An "other" part keeps its side: a response-side compaction cannot go into a request.
    let compaction = history(&[response(r#"{"content":"summary","part_kind":"compaction"}"#)]);
    let other = to_canonical(&compaction[0]).parts().to_vec();
    let err = from_canonical(&CanonicalMessage::new(MessageRole::User, other)).unwrap_err();
    assert!(
        err.to_string().contains("other (response part \"compaction\")"),
        "{err}"
    );

    // Relabelling a wire request as an assistant message keeps the mismatching origin: an error.
    let wire = history(&[request("")]);
    let relabelled =
        CanonicalMessage::new(MessageRole::Assistant, Vec::new()).with_origin(to_canonical(&wire[0]).shared_origin());
    assert!(matches!(
        from_canonical(&relabelled),
        Err(AdapterError::OriginRoleMismatch { .. })
    ));

    // History errors say which message.
    let err = from_canonical_history(&[CanonicalMessage::new(MessageRole::User, vec![]), text_in_user]).unwrap_err();
    assert!(err.to_string().starts_with("message 1: part 1 (text)"), "{err}");
}

#[test]
fn code_built_tool_parts_need_ids() {
    let message = CanonicalMessage::new(
        MessageRole::Assistant,
        vec![CanonicalPart::tool_call("", "bash", RawJson::empty_object())],
    );
    assert!(matches!(
        from_canonical(&message),
        Err(AdapterError::MissingToolCallId { index: 0 })
    ));
}

#[test]
fn code_built_messages_become_pydantic_ai_messages() {
    let ts = Timestamp::parse(TS).unwrap();
    let assistant = CanonicalMessage::new(
        MessageRole::Assistant,
        vec![
            CanonicalPart::thought("plan"),
            CanonicalPart::text("running"),
            CanonicalPart::tool_call("c1", "bash", RawJson::from_value(&json!({"cmd": "ls"})).unwrap()),
            CanonicalPart::tool_call("c2", "echo", RawJson::string("{\"x\": 1}")),
        ],
    )
    .with_timestamp(Some(ts.clone()));
    let tool = CanonicalMessage::new(
        MessageRole::Tool,
        vec![
            CanonicalPart::tool_return(
                "c1",
                "bash",
                RawJson::from_value(&json!({"files": ["a"]})).unwrap(),
                ToolReturnOutcome::Success,
            ),
            CanonicalPart::tool_return("c2", "echo", RawJson::string("no"), ToolReturnOutcome::Denied)
                .with_timestamp(ts.clone()),
            CanonicalPart::retry_feedback(RawJson::string("try again"), RetryCause::NoOutput),
        ],
    );
    let wire = from_canonical_history(&[assistant, tool]).unwrap();
    let text = msgflow_wire::to_string(&wire).unwrap();
    let expected = concat!(
        r#"[{"parts":[{"content":"plan","id":null,"signature":null,"provider_name":null,"provider_details":null,"part_kind":"thinking"},"#,
        r#"{"content":"running","id":null,"provider_name":null,"provider_details":null,"citations":null,"part_kind":"text"},"#,
        r#"{"tool_name":"bash","args":{"cmd":"ls"},"tool_call_id":"c1","tool_kind":null,"id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"},"#,
        r#"{"tool_name":"echo","args":"{\"x\": 1}","tool_call_id":"c2","tool_kind":null,"id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}],"#,
        r#""usage":{"input_tokens":0,"cache_write_tokens":0,"cache_write_1h_tokens":0,"cache_read_tokens":0,"output_tokens":0,"output_reasoning_tokens":0,"input_audio_tokens":0,"cache_audio_read_tokens":0,"output_audio_tokens":0,"audio_seconds":0.0,"details":{},"cost":null},"#,
        r#""model_name":null,"model_id":null,"timestamp":"2025-01-02T03:04:05.678901Z","kind":"response","provider_name":null,"provider_url":null,"canonical_system":null,"provider_details":null,"provider_response_id":null,"finish_reason":null,"run_id":null,"conversation_id":null,"metadata":null,"workspace_ref":null,"history_digest":null,"failed_attempts":null,"state":"complete"},"#,
        r#"{"parts":[{"tool_name":"bash","content":{"files":["a"]},"tool_call_id":"c1","tool_kind":null,"metadata":null,"timestamp":"1970-01-01T00:00:00Z","outcome":"success","retry":null,"part_kind":"tool-return","content_file_digests":[]},"#,
        r#"{"tool_name":"echo","content":"no","tool_call_id":"c2","tool_kind":null,"metadata":null,"timestamp":"2025-01-02T03:04:05.678901Z","outcome":"denied","retry":null,"part_kind":"tool-return"},"#,
        r#"{"content":"try again","retry":{"cause":"no_output","attempt":null,"max_retries":null},"timestamp":"1970-01-01T00:00:00Z","part_kind":"retry-feedback"}],"#,
        r#""timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#,
    );
    assert_eq!(text, expected);
    assert!(text.contains(DEFAULT_TIMESTAMP));
    // Converting the wire form back gives the same canonical meaning.
    let again = msgflow_adapter::to_canonical_history(&wire);
    // Built as `tool`, but it also holds retry feedback, so it reads back as `user`.
    assert_eq!(again[1].role(), MessageRole::User);
    assert_eq!(again[0].tool_call_ids(), ["c1", "c2"]);
}

#[test]
fn edits_win_over_the_origin_and_keep_the_rest() {
    let messages = history(&[response(
        &[
            r#"{"content":"old","id":"t1","provider_name":"openai","part_kind":"text"}"#.to_owned(),
            call("a"),
        ]
        .join(","),
    )]);
    let canonical = to_canonical(&messages[0]);
    let parts: Vec<CanonicalPart> = canonical
        .parts()
        .iter()
        .cloned()
        .map(|part| match part {
            CanonicalPart::Text(mut text) => {
                text.content = "new".into();
                CanonicalPart::Text(text)
            }
            CanonicalPart::ToolCall(mut call) => {
                call.id = "b".into();
                CanonicalPart::ToolCall(call)
            }
            other => other,
        })
        .collect();
    let edited = from_canonical(&canonical.with_parts(parts)).unwrap();
    let text = msgflow_wire::to_string(&[edited]).unwrap();
    assert!(text.starts_with(r#"[{"parts":[{"content":"new","id":"t1","provider_name":"openai","part_kind":"text"},{"tool_name":"bash","args":{"cmd":"ls"},"tool_call_id":"b","part_kind":"tool-call"}],"usage":{},"model_name":"m""#), "{text}");
}

#[test]
fn legacy_loose_json_shapes() {
    let thought = to_canonical_value(&json!({"thought": "hmm", "content": "ignored"})).unwrap();
    assert_eq!(thought.role(), MessageRole::Assistant);
    assert!(matches!(thought.parts(), [CanonicalPart::Thought(t)] if t.content == "hmm"));

    let content = to_canonical_value(&json!({"content": "hello", "role": "tool"})).unwrap();
    assert_eq!(content.role(), MessageRole::User);
    assert!(matches!(content.parts(), [CanonicalPart::UserPrompt(_)]));
    // A legacy user message converts to a valid request, not to a `text` part.
    let wire = from_canonical(&content).unwrap();
    assert!(msgflow_wire::to_string(&[wire])
        .unwrap()
        .contains(r#""content":"hello","timestamp":"1970-01-01T00:00:00Z","part_kind":"user-prompt""#));

    let wire_message = to_canonical_value(&serde_json::from_str(&request(&user_prompt("x"))).unwrap()).unwrap();
    assert_eq!(wire_message.role(), MessageRole::User);

    for bad in [
        json!("text"),
        json!([1]),
        json!({"content": 5}),
        json!({"role": "user"}),
        json!({"parts": [], "content": "x"}),
    ] {
        let err = to_canonical_value(&bad).unwrap_err();
        assert!(matches!(err, AdapterError::NotAMessage(_)), "{bad}: {err}");
    }
    let err = to_canonical_value(&json!({"kind": "request"})).unwrap_err();
    assert!(matches!(err, AdapterError::Wire(_)), "{err}");
    assert!(err.to_string().contains("parts"), "{err}");
}

#[test]
fn registry_bridge_maps_calls_returns_and_outcomes() {
    let synthesized = format!(
        r#"{{"tool_name":"bash","content":"interrupted","tool_call_id":"s","metadata":{{"pydantic_ai_synthesized_tool_return":true}},"timestamp":"{TS}","outcome":"interrupted","part_kind":"tool-return"}}"#
    );
    let messages = history(&[
        response(&[call("a"), call("r"), call("s"), call("p")].join(",")),
        request(&[ret("a", "failed"), retry_prompt("r", Some("bash")), synthesized].join(",")),
    ]);
    let events = registry_events(&messages);
    assert_eq!(events.len(), 7);
    assert!(
        matches!(&events[0], HistoryEvent::Call { id, name, args, at } if id == "a" && name == "bash" && args == &json!({"cmd": "ls"}) && at.as_deref() == Some(TS))
    );
    assert!(
        matches!(&events[4], HistoryEvent::Return { id, outcome: ReturnOutcome::Failed, synthesized: false, .. } if id == "a")
    );
    assert!(matches!(&events[5], HistoryEvent::Return { id, outcome: ReturnOutcome::Retried, .. } if id == "r"));
    assert!(
        matches!(&events[6], HistoryEvent::Return { id, outcome: ReturnOutcome::Interrupted, synthesized: true, .. } if id == "s")
    );

    let (registry, _warnings) = tool_registry(&messages);
    assert_eq!(registry.len(), 4);
    assert_eq!(
        registry.get("a").map(|call| call.status()),
        Some(ToolCallStatus::Failed)
    );
    assert_eq!(
        registry.get("p").map(|call| call.status()),
        Some(ToolCallStatus::Pending)
    );
}
