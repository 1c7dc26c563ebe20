//! One test per violation kind, plus the cases that must not be reported.

mod common;

use common::history;
use msgflow_sanitize::{check, normalisations, NoteKind, Violation, ViolationKind};
use msgflow_wire::{
    Field, ModelMessage, ModelRequestPart, ModelResponsePart, NativeToolCallPart, NativeToolReturnPart, RawJson,
    UnknownObject, UserContent, UserPromptContent,
};

fn kinds(history: &[ModelMessage]) -> Vec<(ViolationKind, usize, Option<usize>)> {
    check(history)
        .into_iter()
        .map(|v| (v.kind, v.message_index, v.part_index))
        .collect()
}

#[test]
fn a_valid_history_has_no_violations() {
    assert!(check(&history(
        r#"R[user] S[call a, call b] R[ret a, ret b, user "x"] S[text]"#
    ))
    .is_empty());
    // A trailing empty request is pydantic-ai's frontier, not a problem.
    assert!(check(&history("R[user] S[text] R[]")).is_empty());
    // Legacy retry prompts naming a tool answer calls.
    assert!(check(&history("R[user] S[call a] R[retry a]")).is_empty());
}

#[test]
fn dangling_calls_follow_the_matching_walk() {
    use ViolationKind::DanglingCall;
    // FIFO within one response: the second call with id a is unanswered (and a duplicate id).
    assert_eq!(
        kinds(&history("S[call a, call a] R[ret a] S[text]")),
        vec![(DanglingCall, 0, Some(1)), (ViolationKind::DuplicateCallId, 0, Some(1))]
    );
    // Shadowing: a later response reusing id a makes the earlier call dangle.
    let found = kinds(&history("S[call a] S[call a] R[ret a]"));
    assert!(found.contains(&(DanglingCall, 0, Some(0))), "{found:?}");
    // Feedback never answers a call.
    assert_eq!(
        kinds(&history("S[call a] R[feedback] S[text]")),
        vec![(DanglingCall, 0, Some(0))]
    );
    // The live frontier is reported and says so.
    let violations = check(&history("R[user] S[call a]"));
    assert_eq!(violations.len(), 1);
    assert!(violations[0].detail.contains("live frontier"), "{}", violations[0]);
    // A user prompt after the last response: the conversation went on without the call.
    let violations = check(&history(r#"R[user] S[call a] R[user "next"]"#));
    assert_eq!(violations.len(), 1);
    assert!(!violations[0].detail.contains("live frontier"), "{}", violations[0]);
    assert!(
        violations[0].detail.contains("a user prompt follows it"),
        "{}",
        violations[0]
    );
}

#[test]
fn orphan_results_precede_or_lack_their_call() {
    use ViolationKind::{DanglingCall, OrphanReturn};
    assert_eq!(
        kinds(&history("R[user, ret z] S[text]")),
        vec![(OrphanReturn, 0, Some(1))]
    );
    let found = kinds(&history("R[ret z] S[call z] R[user]"));
    assert_eq!(found, vec![(DanglingCall, 1, Some(0)), (OrphanReturn, 0, Some(0))]);
    assert_eq!(kinds(&history("R[retry q] S[text]")), vec![(OrphanReturn, 0, Some(0))]);
}

#[test]
fn duplicate_call_ids_point_at_the_first_use() {
    let violations = check(&history("S[call a] R[ret a] S[call a] R[ret a]"));
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(
        (
            violations[0].kind,
            violations[0].message_index,
            violations[0].part_index
        ),
        (ViolationKind::DuplicateCallId, 2, Some(0))
    );
    assert!(violations[0].detail.contains("message 0, part 0"));
}

#[test]
fn builtin_calls_need_their_builtin_return() {
    let builtin_call = |id: &str| {
        let mut part = NativeToolCallPart::new("web_search".to_owned());
        part.tool_call_id = Field::Present(id.to_owned());
        ModelResponsePart::BuiltinToolCall(part)
    };
    let builtin_return = |id: &str| {
        let mut part = NativeToolReturnPart::new("web_search".to_owned(), RawJson::string("hits"));
        part.tool_call_id = Field::Present(id.to_owned());
        ModelResponsePart::BuiltinToolReturn(part)
    };
    // Co-located, or in a later response: fine.
    assert!(check(&[common::response(vec![builtin_call("w"), builtin_return("w")])]).is_empty());
    assert!(check(&[
        common::response(vec![builtin_call("w")]),
        common::response(vec![builtin_return("w")])
    ])
    .is_empty());
    // Missing, or only before the call: reported. Builtin parts never pair with tool returns.
    let history = [
        common::response(vec![builtin_return("v"), builtin_call("v")]),
        common::request(vec![common::user("x")]),
    ];
    assert_eq!(
        kinds(&history),
        vec![(ViolationKind::BuiltinCallWithoutReturn, 0, Some(1))]
    );
}

#[test]
fn misplaced_results() {
    use ViolationKind::MisplacedReturn;
    // Not in the first request after the call.
    assert_eq!(
        kinds(&history(r#"S[call a] R[user "x"] R[ret a]"#)),
        vec![(MisplacedReturn, 2, Some(0))]
    );
    // Behind other content of its request.
    assert_eq!(
        kinds(&history(r#"S[call a] R[user "x", ret a]"#)),
        vec![(MisplacedReturn, 1, Some(1))]
    );
    // A duplicate result answers nothing.
    assert_eq!(
        kinds(&history("S[call a] R[ret a, ret a]")),
        vec![(MisplacedReturn, 1, Some(1))]
    );
}

#[test]
fn empty_messages_except_a_trailing_request() {
    use ViolationKind::EmptyMessage;
    assert_eq!(
        kinds(&history("R[] S[text] S[] R[user]")),
        vec![(EmptyMessage, 0, None), (EmptyMessage, 2, None)]
    );
}

#[test]
fn a_content_item_without_kind_is_judged_by_the_verdict() {
    // pydantic's smart union over user content loads `{}` as a `CachePoint`; `{"ttl": "1d"}`
    // fits no member.
    let items = |json: &str| {
        let mut prompt = msgflow_wire::UserPromptPart::new(UserPromptContent::Items(vec![UserContent::Unknown(
            UnknownObject::from_json_text(json).expect("an object"),
        )]));
        prompt.timestamp = common::time();
        [common::request(vec![ModelRequestPart::UserPrompt(prompt)])]
    };
    assert_eq!(kinds(&items("{}")), vec![]);
    let refused = kinds(&items(r#"{"ttl":"1d"}"#));
    assert!(!refused.is_empty());
    assert!(refused.iter().all(|(kind, ..)| *kind == ViolationKind::NotLoadable));
}

#[test]
fn unknown_part_and_content_kinds() {
    let unknown = |json: &str| UnknownObject::from_json_text(json).expect("an object");
    let mut prompt = msgflow_wire::UserPromptPart::new(UserPromptContent::Items(vec![
        UserContent::Text("hi".to_owned()),
        UserContent::Unknown(unknown(r#"{"kind":"hologram"}"#)),
    ]));
    prompt.timestamp = common::time();
    let history = [
        common::request(vec![
            ModelRequestPart::UserPrompt(prompt),
            ModelRequestPart::Unknown(unknown(r#"{"part_kind":"telepathy"}"#)),
        ]),
        common::response(vec![ModelResponsePart::Unknown(unknown(r#"{"part_kind":"aura"}"#))]),
    ];
    let violations = check(&history);
    let found: Vec<_> = violations
        .iter()
        .map(|v| (v.kind, v.message_index, v.part_index))
        .collect();
    assert_eq!(
        found,
        vec![
            (ViolationKind::UnknownPartKind, 0, Some(1)),
            (ViolationKind::UnknownPartKind, 1, Some(0)),
            (ViolationKind::UnknownContentKind, 0, Some(0)),
        ]
    );
    assert!(violations[0].detail.contains("`telepathy`"));
    assert!(violations[2].detail.contains("content item 1") && violations[2].detail.contains("`hologram`"));
}

#[test]
fn display_and_json_say_what_where_and_how_to_fix() {
    let violations = check(&history("R[user] S[call a, call b] R[ret a]"));
    let violation: &Violation = &violations[0];
    let line = violation.to_string();
    assert_eq!(
        line,
        "dangling tool call at message 1, part 1 (tool_call_id `b`, tool `t`): no later result answers it (it is in \
         the last response, the live frontier a resumed run may still answer); fix: run `repair` to add an \
         interrupted result, or answer the call"
    );
    assert!(!line.contains('\n'));
    let json = serde_json::to_value(violation).expect("serialisable");
    assert_eq!(json["kind"], "dangling-call");
    assert_eq!(json["message_index"], 1);
    assert_eq!(json["part_index"], 1);
    assert_eq!(json["tool_call_id"], "b");
}

/// Parts pydantic-ai 2.68.0 routes by `tool_kind` to a typed class:
/// the refusals listed there are reported, everything pydantic-ai accepts is not.
mod typed_parts {
    use msgflow_sanitize::{check, ViolationKind};

    fn typed_violations(json: &str) -> Vec<String> {
        let history = msgflow_wire::from_str(json).expect("a history");
        check(&history)
            .into_iter()
            .filter(|v| v.kind == ViolationKind::TypedPartMismatch)
            .map(|v| v.detail)
            .collect()
    }

    fn call(tool_kind: &str, tool_name: &str, args: &str) -> String {
        format!(
            r#"[{{"kind":"response","parts":[{{"part_kind":"tool-call","tool_name":"{tool_name}","args":{args},"tool_call_id":"c1","tool_kind":"{tool_kind}"}}]}},
               {{"kind":"request","parts":[{{"part_kind":"tool-return","tool_name":"{tool_name}","content":"ok","tool_call_id":"c1","outcome":"failed"}}]}}]"#
        )
    }

    fn search_return(tool_name: &str, content: &str, outcome: &str) -> String {
        format!(
            r#"[{{"kind":"response","parts":[{{"part_kind":"tool-call","tool_name":"search_tools","args":null,"tool_call_id":"c1","tool_kind":"tool-search"}}]}},
               {{"kind":"request","parts":[{{"part_kind":"tool-return","tool_name":"{tool_name}","content":{content},"tool_call_id":"c1","tool_kind":"tool-search","outcome":"{outcome}"}}]}}]"#
        )
    }

    #[test]
    fn pydantic_ai_refusals_are_reported() {
        let renamed = typed_violations(&call("tool-search", "renamed", r#"{"queries":["x"]}"#));
        assert_eq!(renamed.len(), 1, "{renamed:?}");
        assert!(
            renamed[0].contains("ToolSearchCallPart") && renamed[0].contains("`renamed`"),
            "{renamed:?}"
        );
        let no_queries = typed_violations(&call("tool-search", "search_tools", r#"{"nope":1}"#));
        assert!(no_queries[0].contains("lacks `queries`"), "{no_queries:?}");
        let no_id = typed_violations(&call("capability-load", "load_capability", r#"{"name":"x"}"#));
        assert!(
            no_id[0].contains("LoadCapabilityCallPart") && no_id[0].contains("lacks `id`"),
            "{no_id:?}"
        );
        let content = typed_violations(&search_return("search_tools", r#""nope""#, "success"));
        assert!(
            content[0].contains("ToolSearchReturnPart") && content[0].contains("must be an object"),
            "{content:?}"
        );
        // pydantic-ai 2.68.0 refuses it too (`ToolSearchReturnContent.message` is a `str`).
        let message = typed_violations(&search_return(
            "search_tools",
            r#"{"discovered_tools":[],"message":1}"#,
            "success",
        ));
        assert!(message[0].contains("`content.message` must be a string"), "{message:?}");
        let matches = typed_violations(&search_return(
            "search_tools",
            r#"{"discovered_tools":[{"x":1}]}"#,
            "success",
        ));
        assert!(
            matches[0].contains("`content.discovered_tools` must be a list of objects with a string `name`"),
            "{matches:?}"
        );
    }

    #[test]
    fn what_pydantic_ai_accepts_is_not_reported() {
        // String arguments are accepted unchecked; a failed return is not routed; other kinds stay base parts.
        assert!(typed_violations(&call("tool-search", "search_tools", r#""{not json""#)).is_empty());
        assert!(typed_violations(&call(
            "tool-search",
            "search_tools",
            r#"{"queries":["a","b"],"extra":1}"#
        ))
        .is_empty());
        assert!(typed_violations(&call("capability-load", "load_capability", r#"{"id":"budget"}"#)).is_empty());
        assert!(typed_violations(&call("acme.thing", "search_tools", r#"{"nope":1}"#)).is_empty());
        assert!(typed_violations(&search_return("search_tools", r#""an error""#, "failed")).is_empty());
        let found = r#"{"discovered_tools":[{"name":"grep"}],"message":"1 tool"}"#;
        assert!(typed_violations(&search_return("search_tools", found, "success")).is_empty());
    }

    #[test]
    fn the_typed_fixtures_written_by_pydantic_ai_pass() {
        for name in [
            "tool-search-typed.json",
            "capability-load-typed.json",
            "builtin-tools.json",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/v2_68")
                .join(name);
            let json = std::fs::read_to_string(&path).expect("fixture");
            assert!(
                typed_violations(&json).is_empty(),
                "{name}: {:?}",
                typed_violations(&json)
            );
        }
    }
}

/// pydantic-ai's repair merges consecutive requests (a run that died before the model answered,
/// then a new prompt) and consecutive synthetic responses: nothing is wrong, so these are notes.
#[test]
fn the_merges_pydantic_ais_repair_makes_are_notes_not_violations() {
    let notes = |history: &[ModelMessage]| {
        normalisations(history)
            .into_iter()
            .map(|note| (note.kind, note.message_indices))
            .collect::<Vec<_>>()
    };
    let input = history(r#"R[user "a"] R[user "b"] S[text] R[user] R[user] R[user]"#);
    assert!(check(&input).is_empty());
    assert_eq!(
        notes(&input),
        vec![
            (NoteKind::MergedRequests, vec![0, 1]),
            (NoteKind::MergedRequests, vec![3, 4, 5])
        ]
    );
    // The test responses have no model name or provider: synthetic, so they merge too.
    assert_eq!(
        notes(&history("R[user] S[text] S[text]")),
        vec![(NoteKind::MergedResponses, vec![1, 2])]
    );
    // Alternating messages, and requests with different instructions, are left as they are.
    assert!(notes(&history("R[user] S[text] R[user] S[text]")).is_empty());
    let mut different = history("R[user] R[user]");
    for (message, text) in different.iter_mut().zip(["first", "second"]) {
        if let ModelMessage::Request(request) = message {
            request.instructions = Field::Present(text.to_owned());
        }
    }
    assert!(notes(&different).is_empty());
    let note = &normalisations(&input)[0];
    assert!(
        note.to_string()
            .starts_with("note: consecutive requests at messages 0, 1: "),
        "{note}"
    );
}
