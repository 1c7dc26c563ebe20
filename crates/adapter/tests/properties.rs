//! Property tests: arbitrary wire messages round trip exactly; arbitrary code-built canonical
//! messages convert to wire and keep their meaning.
//!
//! Two sources of wire messages: msgflow-wire's own strategies (`msgflow_wire::arbitrary`, both
//! flavours), and a compact local strategy that writes varied wire JSON (optional keys absent,
//! null or set; legacy parts; unknown kinds and keys) and parses it with msgflow-wire.

use msgflow_adapter::{from_canonical, from_canonical_history, to_canonical, to_canonical_history};
use msgflow_canonical::{from_json_slice, to_json_vec, CanonicalMessage, CanonicalPart, MessageRole};
use msgflow_wire::{RawJson, RetryCause, ToolReturnOutcome};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-z ]{1,12}",
        "\\PC{0,8}",
        Just("line\nbreak \"q\" \\ \u{1}".to_owned())
    ]
}

fn json_string(value: &str) -> String {
    serde_json::to_string(value).unwrap()
}

fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        prop_oneof![Just("1.5"), Just("-0.0"), Just("1e+16"), Just("3e-7"), Just("100.0")].prop_map(str::to_owned),
        text().prop_map(|s| json_string(&s)),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(("[a-z]{1,5}", inner), 0..4).prop_map(|entries| {
                let body: Vec<String> = entries.iter().map(|(k, v)| format!("{}:{v}", json_string(k))).collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    })
}

fn timestamp() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"2025-01-02T03:04:05.678901Z\"".to_owned()),
        Just("\"2025-01-02T03:04:05+05:30\"".to_owned()),
        Just("\"2025-01-02T03:04:05\"".to_owned()),
    ]
}

/// `"key":value,` with the key absent, null or set.
fn optional(key: &'static str, value: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(format!("\"{key}\":null,")),
        value.prop_map(move |v| format!("\"{key}\":{v},")),
    ]
}

fn extra_keys() -> impl Strategy<Value = String> {
    prop_oneof![3 => Just(String::new()), 1 => json_value().prop_map(|v| format!(",\"x_unknown\":{v}"))]
}

fn id() -> impl Strategy<Value = String> {
    "[a-c][0-9]".prop_map(|s| json_string(&s))
}

fn outcome() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("success"),
        Just("failed"),
        Just("denied"),
        Just("interrupted"),
        Just("retried"),
        Just("vetoed")
    ]
    .prop_map(|s| format!("\"{s}\""))
}

fn request_part() -> impl Strategy<Value = String> {
    prop_oneof![
        (text(), optional("timestamp", timestamp()), extra_keys())
            .prop_map(|(t, ts, x)| format!("{{\"content\":{},{ts}\"part_kind\":\"user-prompt\"{x}}}", json_string(&t))),
        (text(), text()).prop_map(|(a, b)| format!(
            "{{\"content\":[{},{{\"content\":{},\"kind\":\"text-content\"}},{{\"url\":\"https://x/y.png\",\"kind\":\"image-url\"}},{{\"kind\":\"hologram\",\"z\":1}}],\"part_kind\":\"user-prompt\"}}",
            json_string(&a),
            json_string(&b)
        )),
        (text(), optional("timestamp", timestamp()), optional("dynamic_ref", text().prop_map(|s| json_string(&s))))
            .prop_map(|(t, ts, d)| format!("{{\"content\":{},{ts}{d}\"part_kind\":\"system-prompt\"}}", json_string(&t))),
        (json_value(), optional("tool_call_id", id()), optional("outcome", outcome()), optional("metadata", json_value()), optional("timestamp", timestamp()), extra_keys())
            .prop_map(|(c, i, o, m, ts, x)| format!("{{\"tool_name\":\"t\",\"content\":{c},{i}{m}{ts}{o}\"part_kind\":\"tool-return\"{x}}}")),
        (json_value(), optional("tool_name", Just("\"t\"".to_owned())), optional("tool_call_id", id()))
            .prop_map(|(c, n, i)| format!("{{\"content\":{c},{n}{i}\"part_kind\":\"retry-prompt\"}}")),
        json_value().prop_map(|c| format!("{{\"content\":{c},\"retry\":{{\"cause\":\"no_output\"}},\"part_kind\":\"retry-feedback\"}}")),
        json_value().prop_map(|v| format!("{{\"part_kind\":\"from-the-future\",\"v\":{v}}}")),
        Just("{\"loaded\":[\"x\"],\"tool_call_id\":\"a1\",\"part_kind\":\"capability-load-delta\"}".to_owned()),
    ]
}

fn response_part() -> impl Strategy<Value = String> {
    prop_oneof![
        (text(), optional("id", id()), extra_keys())
            .prop_map(|(t, i, x)| format!("{{\"content\":{},{i}\"part_kind\":\"text\"{x}}}", json_string(&t))),
        (text(), optional("signature", text().prop_map(|s| json_string(&s))))
            .prop_map(|(t, s)| format!("{{\"content\":{},{s}\"part_kind\":\"thinking\"}}", json_string(&t))),
        (
            optional("args", prop_oneof![json_value(), text().prop_map(|s| json_string(&s))]),
            optional("tool_call_id", id()),
            extra_keys()
        )
            .prop_map(|(a, i, x)| format!("{{\"tool_name\":\"t\",{a}{i}\"part_kind\":\"tool-call\"{x}}}")),
        (json_value(), id()).prop_map(|(a, i)| format!(
            "{{\"tool_name\":\"web\",\"args\":{a},\"tool_call_id\":{i},\"part_kind\":\"builtin-tool-call\"}}"
        )),
        (json_value(), id(), optional("outcome", outcome())).prop_map(|(c, i, o)| format!(
            "{{\"tool_name\":\"web\",\"content\":{c},\"tool_call_id\":{i},{o}\"part_kind\":\"builtin-tool-return\"}}"
        )),
        Just(
            "{\"content\":{\"data\":\"-w==\",\"media_type\":\"image/png\",\"kind\":\"binary\"},\"part_kind\":\"file\"}"
                .to_owned()
        ),
        text().prop_map(|t| format!("{{\"content\":{},\"part_kind\":\"compaction\"}}", json_string(&t))),
        json_value().prop_map(|v| format!("{{\"part_kind\":\"hologram\",\"v\":{v}}}")),
    ]
}

fn message() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            prop::collection::vec(request_part(), 0..5),
            optional("timestamp", timestamp()),
            optional("run_id", id()),
            extra_keys()
        )
            .prop_map(|(parts, ts, r, x)| format!(
                "{{\"parts\":[{}],{ts}\"kind\":\"request\",{r}\"state\":\"complete\"{x}}}",
                parts.join(",")
            )),
        (
            prop::collection::vec(response_part(), 0..5),
            optional("timestamp", timestamp()),
            optional("provider_details", json_value()),
            extra_keys()
        )
            .prop_map(|(parts, ts, d, x)| format!(
                "{{\"parts\":[{}],\"usage\":{{\"input_tokens\":3}},{ts}{d}\"kind\":\"response\"{x}}}",
                parts.join(",")
            )),
    ]
}

fn canonical_part(side: bool) -> BoxedStrategy<CanonicalPart> {
    let id = "[a-z]{1,3}[0-9]";
    if side {
        prop_oneof![
            text().prop_map(CanonicalPart::text),
            text().prop_map(CanonicalPart::thought),
            (id, text()).prop_map(|(i, s)| CanonicalPart::tool_call(i, "t", RawJson::string(&s))),
            (id, json_value()).prop_map(|(i, v)| {
                let args = RawJson::from_json_text(&format!("{{\"v\":{v}}}")).unwrap();
                CanonicalPart::tool_call(i, "t", args)
            }),
        ]
        .boxed()
    } else {
        let outcomes = prop_oneof![
            Just(ToolReturnOutcome::Success),
            Just(ToolReturnOutcome::Failed),
            Just(ToolReturnOutcome::Denied),
            Just(ToolReturnOutcome::Interrupted),
            Just(ToolReturnOutcome::Retried),
        ];
        prop_oneof![
            text().prop_map(CanonicalPart::system_prompt),
            text().prop_map(CanonicalPart::user_prompt),
            (id, json_value(), outcomes).prop_map(|(i, v, o)| CanonicalPart::tool_return(
                i,
                "t",
                RawJson::from_json_text(&v).unwrap(),
                o
            )),
            text().prop_map(|s| CanonicalPart::retry_feedback(RawJson::string(&s), RetryCause::ValidationError)),
        ]
        .boxed()
    }
}

fn canonical_message() -> impl Strategy<Value = CanonicalMessage> {
    prop_oneof![
        prop::collection::vec(canonical_part(true), 0..5)
            .prop_map(|p| CanonicalMessage::new(MessageRole::Assistant, p)),
        prop::collection::vec(canonical_part(false), 0..5).prop_map(|p| CanonicalMessage::new(MessageRole::User, p)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_wire_histories_round_trip_exactly(
        history in prop_oneof![
            msgflow_wire::arbitrary::history(msgflow_wire::arbitrary::Flavour::Pydantic),
            msgflow_wire::arbitrary::history(msgflow_wire::arbitrary::Flavour::Any),
        ]
    ) {
        let expected = msgflow_wire::to_vec(&history).unwrap();
        for message in &history {
            prop_assert_eq!(&from_canonical(&to_canonical(message)).unwrap(), message);
        }
        let canonical = to_canonical_history(&history);
        let reread = from_json_slice(&to_json_vec(&canonical).unwrap()).unwrap();
        prop_assert_eq!(&reread, &canonical);
        prop_assert_eq!(msgflow_wire::to_vec(&from_canonical_history(&reread).unwrap()).unwrap(), expected);
    }

    #[test]
    fn wire_messages_round_trip_exactly(messages in prop::collection::vec(message(), 0..4)) {
        let json = format!("[{}]", messages.join(","));
        let history = msgflow_wire::from_str(&json).map_err(|err| TestCaseError::fail(format!("{err}: {json}")))?;
        let expected = msgflow_wire::to_vec(&history).unwrap();
        for message in &history {
            prop_assert_eq!(&from_canonical(&to_canonical(message)).unwrap(), message);
        }
        let canonical = to_canonical_history(&history);
        let reread = from_json_slice(&to_json_vec(&canonical).unwrap()).unwrap();
        prop_assert_eq!(&reread, &canonical);
        prop_assert_eq!(msgflow_wire::to_vec(&from_canonical_history(&reread).unwrap()).unwrap(), expected);
    }

    #[test]
    fn code_built_messages_keep_their_meaning(message in canonical_message()) {
        let wire = from_canonical(&message).unwrap();
        // The wire form parses back (it is what pydantic-ai would be given).
        let text = msgflow_wire::to_string(std::slice::from_ref(&wire)).unwrap();
        let reparsed = msgflow_wire::from_str(&text).unwrap();
        let again = to_canonical(&reparsed[0]);
        prop_assert_eq!(again.text_content(), message.text_content());
        prop_assert_eq!(again.tool_call_ids(), message.tool_call_ids());
        prop_assert_eq!(again.tool_return_ids(), message.tool_return_ids());
        prop_assert_eq!(again.parts().len(), message.parts().len());
        for (a, b) in again.parts().iter().zip(message.parts()) {
            prop_assert_eq!(a.type_name(), b.type_name());
        }
        // Converting the re-read message again is stable.
        prop_assert_eq!(msgflow_wire::to_string(&[from_canonical(&again).unwrap()]).unwrap(), text);
    }
}
