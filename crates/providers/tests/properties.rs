//! proptest: the output of `repair --provider P` exports without error and passes `check
//! --provider P` but for the violations the rule tables say repair cannot fix, on histories of the
//! parts msgflow exports (dangling calls, orphan and late results, whitespace texts, duplicate and
//! odd ids, images of types and sizes a provider rejects, which repair cannot fix and reports as
//! `unfixed`), and on arbitrary pydantic-ai histories whenever their repair exports.

use msgflow_providers::{check, export, repair, Provider};
use msgflow_sanitize::RepairOptions;
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
enum Step {
    /// A request: a user prompt (maybe), and returns for the open calls whose bit is set.
    Request {
        text: Option<String>,
        answer_mask: u8,
        orphan: bool,
        /// An image in the user prompt: its media type, and the width and height its header declares.
        image: Option<(&'static str, u32, u32)>,
    },
    /// A response: texts and calls.
    Response { parts: Vec<ResponseStep> },
}

#[derive(Debug, Clone)]
enum ResponseStep {
    Text(String),
    Call(String),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" ".to_owned()),
        Just("\n".to_owned()),
        "[a-z ]{0,8}",
        "[a-z]{1,4}[ \n]"
    ]
}

fn call_id() -> impl Strategy<Value = String> {
    prop_oneof![4 => "call_[0-9]", 1 => Just("call.1".to_owned())]
}

/// Media types every provider takes and some one rejects; sides under and over Anthropic's limits.
fn image() -> impl Strategy<Value = (&'static str, u32, u32)> {
    let media_type = prop_oneof![
        4 => Just("image/png"),
        1 => Just("image/bmp"),
        1 => Just("image/tiff"),
        1 => Just("image/heic")
    ];
    let side = prop_oneof![4 => 1..2000u32, 1 => 2001..9000u32];
    (media_type, side.clone(), side)
}

/// A PNG header declaring `width` x `height` (all the media rules read).
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    bytes.extend(width.to_be_bytes());
    bytes.extend(height.to_be_bytes());
    bytes.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    bytes
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (
            proptest::option::of(text()),
            any::<u8>(),
            proptest::bool::weighted(0.1),
            proptest::option::weighted(0.3, image())
        )
            .prop_map(|(text, answer_mask, orphan, image)| Step::Request {
                text,
                answer_mask,
                orphan,
                image,
            }),
        proptest::collection::vec(
            prop_oneof![
                text().prop_map(ResponseStep::Text),
                call_id().prop_map(ResponseStep::Call)
            ],
            0..4
        )
        .prop_map(|parts| Step::Response { parts }),
    ]
}

const STAMP: &str = "2025-01-02T03:04:05Z";

fn build(steps: &[Step]) -> Vec<msgflow_wire::ModelMessage> {
    let mut messages = Vec::new();
    let mut open: Vec<String> = Vec::new();
    for step in steps {
        match step {
            Step::Request {
                text,
                answer_mask,
                orphan,
                image,
            } => {
                let mut parts = Vec::new();
                for (index, id) in std::mem::take(&mut open).into_iter().enumerate() {
                    if answer_mask & (1 << (index % 8)) != 0 {
                        parts.push(json!({"part_kind": "tool-return", "tool_name": "t", "tool_call_id": id,
                            "content": "ok", "timestamp": STAMP}));
                    }
                }
                if *orphan {
                    parts.push(
                        json!({"part_kind": "tool-return", "tool_name": "t", "tool_call_id": "ghost",
                        "content": "late", "timestamp": STAMP}),
                    );
                }
                match (text, image) {
                    (text, Some((media_type, width, height))) => {
                        let data = msgflow_wire::Base64Data::from_bytes(&png_header(*width, *height));
                        let image = json!({"kind": "binary", "data": data.as_str(), "media_type": media_type});
                        let content = json!([text.clone().unwrap_or_default(), image]);
                        parts.push(json!({"part_kind": "user-prompt", "content": content, "timestamp": STAMP}));
                    }
                    (Some(text), None) => {
                        parts.push(json!({"part_kind": "user-prompt", "content": text, "timestamp": STAMP}));
                    }
                    (None, None) => {}
                }
                messages.push(json!({"kind": "request", "parts": parts}));
            }
            Step::Response { parts } => {
                let parts: Vec<Value> = parts
                    .iter()
                    .map(|part| match part {
                        ResponseStep::Text(text) => json!({"part_kind": "text", "content": text}),
                        ResponseStep::Call(id) => {
                            open.push(id.clone());
                            json!({"part_kind": "tool-call", "tool_name": "t", "tool_call_id": id, "args": {}})
                        }
                    })
                    .collect();
                messages.push(json!({"kind": "response", "parts": parts, "timestamp": STAMP}));
            }
        }
    }
    msgflow_wire::from_str(&Value::Array(messages).to_string()).expect("the generated history is valid")
}

fn assert_repair_passes(history: Vec<msgflow_wire::ModelMessage>, provider: Provider) -> Result<(), TestCaseError> {
    let Ok(repaired) = repair(history, provider, &RepairOptions::default()) else {
        return Ok(());
    };
    if provider != Provider::Gemini {
        prop_assert!(export(&repaired.history, provider).is_ok());
    }
    let left = check(&repaired.history, provider).unwrap();
    prop_assert_eq!(left.len(), repaired.unfixed.len());
    for violation in &left {
        // A whitespace-only user prompt is the user's: repair leaves it and says so.
        let users_text = violation.rule.id == "anthropic/whitespace-only-text"
            && matches!(
                repaired.history[violation.message],
                msgflow_wire::ModelMessage::Request(_)
            );
        prop_assert!(
            !violation.rule.fixable || users_text,
            "left a fixable violation: {violation:?}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn repair_output_passes_check_on_exported_parts(steps in proptest::collection::vec(step(), 0..8)) {
        for provider in Provider::ALL {
            assert_repair_passes(build(&steps), provider)?;
        }
    }

    #[test]
    fn repair_output_passes_check_on_arbitrary_histories(history in history(Flavour::Pydantic)) {
        for provider in Provider::ALL {
            assert_repair_passes(history.clone(), provider)?;
        }
    }
}
