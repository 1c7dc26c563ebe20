use super::cases::{MsgflowSide, OracleError, OracleRow};
use super::judge::{any_base_group, value_change};
use super::*;

#[test]
fn fixture_names_are_plain_file_names() {
    assert_eq!(
        fixture_name("msgflow accepts what pydantic-ai refuses", "ModelResponse.usage null"),
        "accepts--ModelResponse.usage-null"
    );
    assert_eq!(
        fixture_name(
            "both refuse, with different errors (type, loc)",
            "TextPart.part_kind tag:swap:x/y"
        ),
        "errors--TextPart.part_kind-tag-swap-x-y"
    );
}

#[test]
fn an_any_flavour_disagreement_is_grouped_by_its_first_one_sided_error() {
    let loc = serde_json::json!([2, "response", "failed_attempts", 0, "usage", "response_tokens"]);
    let pydantic = OracleRow {
        id: "any-0".to_owned(),
        loadable: false,
        errors: vec![OracleError {
            error_type: "int_type".to_owned(),
            loc: loc.clone(),
            msg: String::new(),
        }],
        fmt_redump_equal: None,
        fmt_detail: None,
    };
    let ours = MsgflowSide {
        loadable: true,
        parse_error: None,
        reasons: Vec::new(),
        fmt: None,
        fmt_changes_value: None,
    };
    let (group, message) = any_base_group("msgflow accepts what pydantic-ai refuses", &pydantic, &ours);
    assert_eq!(group, "any int_type response.failed_attempts.*.usage.response_tokens");
    assert_eq!(message, Some(2));
    let (group, message) = any_base_group(
        "fmt changes the JSON value of an input pydantic-ai loads",
        &pydantic,
        &ours,
    );
    assert_eq!((group.as_str(), message), ("any fmt", None));
}

#[test]
fn a_fmt_output_with_another_value_is_found() {
    assert_eq!(value_change(r#"[{"a":1}]"#, r#"[{"a":1}]"#), None);
    assert_eq!(value_change(r#"[{"a":"\u00e9"}]"#, r#"[{"a":"é"}]"#), None);
    assert!(value_change(r#"[{"a":1}]"#, r#"[{"a":2}]"#).is_some());
}
