//! Every disagreement the verdict differential (`cargo xtask conformance`, the verdict check)
//! ever found between msgflow and pydantic-ai 2.68.0, kept as a fixture: the input
//! `tests/fixtures/verdict/<name>.json` and pydantic-ai's verdict on it,
//! `<name>.expected.json` (loadable, errors [{type, loc}], written by
//! `oracle/verdict_oracle.py expect`). msgflow's verdict must equal it: loadable or not, and the
//! same set of (type, loc) when refused. An input msgflow cannot read at all counts as refused
//! (with no reasons to compare). For an input pydantic-ai loads, `fmt` must keep its JSON value.
//!
//! The name says what the mutation was: `<disagreement>--<schema location>-<class>`, e.g.
//! `accepts--ModelResponse.usage-null` (msgflow accepted what pydantic-ai refuses).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use msgflow_integration_tests::{matches_open, open_verdict_disagreements};
use serde_json::Value;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/verdict")
}

/// The (type, loc) pairs of a verdict, as JSON text for the loc.
type ErrorSet = BTreeSet<(String, String)>;

/// pydantic-ai's recorded verdict.
fn expected(name: &str) -> (bool, ErrorSet) {
    let path = fixture_dir().join(format!("{name}.expected.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let loadable = value["loadable"].as_bool().expect("`loadable` is a boolean");
    let errors = value["errors"]
        .as_array()
        .expect("`errors` is an array")
        .iter()
        .map(|error| {
            (
                error["type"].as_str().expect("`type` is a string").to_owned(),
                error["loc"].to_string(),
            )
        })
        .collect();
    (loadable, errors)
}

/// The fixtures of known, open disagreements (`OPEN.txt`), with what each disagreement is.
fn open_disagreements() -> std::collections::BTreeMap<String, String> {
    let path = fixture_dir().join("OPEN.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    open_verdict_disagreements(&text)
}

/// What an `OPEN.txt` reason starts with when only the `loc`s are open: msgflow and pydantic-ai
/// agree on loadability, and the fixture must keep agreeing on it.
const LOCS_ONLY: &str = "[locs]";

/// Checks msgflow's verdict on one fixture against pydantic-ai's: equal, or, for a fixture
/// listed in `OPEN.txt`, still different (so a fix cannot go unnoticed: its line must go); a
/// fixture listed as [`LOCS_ONLY`] must differ in its (type, loc) only.
fn check_fixture(name: &str) {
    let disagreement = disagreement(name);
    let open = open_disagreements();
    let in_open_class = open
        .keys()
        .any(|pattern| pattern.contains('*') && matches_open(pattern, name));
    match (open.get(name), disagreement) {
        (Some(what), Some((Disagreement::Loadability, disagreement))) if what.starts_with(LOCS_ONLY) => {
            panic!("OPEN.txt lists {name} as differing in its locs only ({what}), but: {disagreement}")
        }
        (None, None) | (Some(_), Some(_)) => {}
        (None, Some(_)) if in_open_class => {}
        (None, Some((_, disagreement))) => panic!("{disagreement}"),
        (Some(what), None) => {
            panic!("{name} agrees with pydantic-ai now, but OPEN.txt lists it as open ({what}): remove its line")
        }
    }
}

/// What differs between msgflow's verdict and pydantic-ai's.
#[derive(Debug, PartialEq, Eq)]
enum Disagreement {
    /// One loads the input, the other does not.
    Loadability,
    /// Both refuse it, with other (type, loc) pairs.
    Locs,
    /// Both load it, and `fmt` changes its JSON value.
    Fmt,
}

/// How msgflow's verdict on one fixture differs from pydantic-ai's, if it does.
fn disagreement(name: &str) -> Option<(Disagreement, String)> {
    let path = fixture_dir().join(format!("{name}.json"));
    let input = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let (loadable, errors) = expected(name);
    let history = match msgflow_wire::from_str(&input) {
        Ok(history) => history,
        Err(err) if loadable => {
            return Some((
                Disagreement::Loadability,
                format!("{name}: pydantic-ai loads it, msgflow cannot read it: {err}"),
            ))
        }
        Err(_) => return None,
    };
    let verdict = msgflow_wire::verdict::verdict_located(&history, &input);
    let ours: ErrorSet = verdict
        .reasons()
        .iter()
        .map(|reason| {
            (
                reason.error_type.clone(),
                serde_json::to_value(&reason.loc).unwrap().to_string(),
            )
        })
        .collect();
    let reasons: Vec<String> = verdict.reasons().iter().map(ToString::to_string).collect();
    if verdict.is_loadable() != loadable {
        return Some((
            Disagreement::Loadability,
            format!("{name}: pydantic-ai says loadable {loadable} with {errors:?}; msgflow's reasons: {reasons:#?}"),
        ));
    }
    if ours != errors {
        return Some((
            Disagreement::Locs,
            format!("{name}: (type, loc) differ: pydantic-ai {errors:?}; msgflow's reasons: {reasons:#?}"),
        ));
    }
    if loadable {
        // fmt keeps the JSON value (serde_json reads numbers exactly here: `arbitrary_precision`).
        let output = msgflow_wire::to_string(&history).unwrap();
        if let (Ok(before), Ok(after)) = (
            serde_json::from_str::<Value>(&input),
            serde_json::from_str::<Value>(&output),
        ) {
            if before != after {
                return Some((
                    Disagreement::Fmt,
                    format!("{name}: fmt changes the JSON value:\n{output}"),
                ));
            }
        }
    }
    None
}

/// One test per fixture (a disagreement not fixed yet is listed in `OPEN.txt`).
macro_rules! fixtures {
    ($($(#[$attr:meta])* $test:ident => $name:literal,)*) => {
        $(
            $(#[$attr])*
            #[test]
            fn $test() {
                check_fixture($name);
            }
        )*

        /// Every fixture named above.
        const LISTED: &[&str] = &[$($name),*];
    };
}

fixtures! {
    accepts_audiourl_force_download_scalar_string => "accepts--AudioUrl.force_download-scalar-string",
    accepts_audiourl_force_download_scalar_string_padded => "accepts--AudioUrl.force_download-scalar-string-padded",
    accepts_documenturl_force_download_scalar_fraction => "accepts--DocumentUrl.force_download-scalar-fraction",
    accepts_documenturl_force_download_scalar_integer => "accepts--DocumentUrl.force_download-scalar-integer",
    accepts_documenturl_force_download_scalar_string => "accepts--DocumentUrl.force_download-scalar-string",
    accepts_documenturl_force_download_scalar_string_empty => "accepts--DocumentUrl.force_download-scalar-string-empty",
    accepts_imageurl_force_download_scalar_integer => "accepts--ImageUrl.force_download-scalar-integer",
    accepts_instructionblock_part_kind_tag_title_case => "accepts--InstructionBlock.part_kind-tag-title-case",
    accepts_instructionblock_part_kind_tag_unknown => "accepts--InstructionBlock.part_kind-tag-unknown",
    accepts_instructionblock_part_kind_tag_upper_case => "accepts--InstructionBlock.part_kind-tag-upper-case",
    accepts_instructiondeltapart_id_opaque_deep_arrays_127 => "accepts--InstructionDeltaPart.id-opaque-deep-arrays-127",
    accepts_instructiondeltapart_id_opaque_deep_arrays_128 => "accepts--InstructionDeltaPart.id-opaque-deep-arrays-128",
    accepts_instructiondeltapart_id_opaque_deep_arrays_129 => "accepts--InstructionDeltaPart.id-opaque-deep-arrays-129",
    accepts_instructiondeltapart_id_opaque_deep_arrays_199 => "accepts--InstructionDeltaPart.id-opaque-deep-arrays-199",
    accepts_instructiondeltapart_id_opaque_deep_arrays_200 => "accepts--InstructionDeltaPart.id-opaque-deep-arrays-200",
    accepts_instructiondeltapart_id_opaque_deep_objects_127 => "accepts--InstructionDeltaPart.id-opaque-deep-objects-127",
    accepts_instructiondeltapart_id_opaque_deep_objects_128 => "accepts--InstructionDeltaPart.id-opaque-deep-objects-128",
    accepts_instructiondeltapart_id_opaque_deep_objects_200 => "accepts--InstructionDeltaPart.id-opaque-deep-objects-200",
    accepts_instructiondeltapart_id_opaque_key_duplicate => "accepts--InstructionDeltaPart.id-opaque-key-duplicate",
    accepts_instructiondeltapart_id_opaque_nested_number_digits_4300 => "accepts--InstructionDeltaPart.id-opaque-nested-number-digits-4300",
    accepts_instructiondeltapart_id_opaque_nested_number_float_overflow => "accepts--InstructionDeltaPart.id-opaque-nested-number-float-overflow",
    accepts_instructiondeltapart_id_opaque_nested_number_minus_zero => "accepts--InstructionDeltaPart.id-opaque-nested-number-minus-zero",
    accepts_instructiondeltapart_id_opaque_number_digits_4300 => "accepts--InstructionDeltaPart.id-opaque-number-digits-4300",
    accepts_instructiondeltapart_id_opaque_number_float_overflow => "accepts--InstructionDeltaPart.id-opaque-number-float-overflow",
    accepts_instructiondeltapart_id_opaque_number_minus_zero => "accepts--InstructionDeltaPart.id-opaque-number-minus-zero",
    accepts_instructiondeltapart_id_opaque_number_u64_max_1 => "accepts--InstructionDeltaPart.id-opaque-number-u64-max-1",
    accepts_instructiondigest_id_opaque_deep_arrays_127 => "accepts--InstructionDigest.id-opaque-deep-arrays-127",
    accepts_instructiondigest_id_opaque_deep_arrays_128 => "accepts--InstructionDigest.id-opaque-deep-arrays-128",
    accepts_instructiondigest_id_opaque_deep_arrays_129 => "accepts--InstructionDigest.id-opaque-deep-arrays-129",
    accepts_instructiondigest_id_opaque_deep_arrays_199 => "accepts--InstructionDigest.id-opaque-deep-arrays-199",
    accepts_instructiondigest_id_opaque_deep_arrays_200 => "accepts--InstructionDigest.id-opaque-deep-arrays-200",
    accepts_instructiondigest_id_opaque_deep_objects_127 => "accepts--InstructionDigest.id-opaque-deep-objects-127",
    accepts_instructiondigest_id_opaque_deep_objects_128 => "accepts--InstructionDigest.id-opaque-deep-objects-128",
    accepts_instructiondigest_id_opaque_deep_objects_199 => "accepts--InstructionDigest.id-opaque-deep-objects-199",
    accepts_instructiondigest_id_opaque_deep_objects_200 => "accepts--InstructionDigest.id-opaque-deep-objects-200",
    accepts_instructiondigest_id_opaque_key_duplicate => "accepts--InstructionDigest.id-opaque-key-duplicate",
    accepts_instructiondigest_id_opaque_nested_number_float_overflow => "accepts--InstructionDigest.id-opaque-nested-number-float-overflow",
    accepts_instructiondigest_id_opaque_number_digits_4300 => "accepts--InstructionDigest.id-opaque-number-digits-4300",
    accepts_instructionpart_id_opaque_deep_arrays_127 => "accepts--InstructionPart.id-opaque-deep-arrays-127",
    accepts_instructionpart_id_opaque_deep_arrays_199 => "accepts--InstructionPart.id-opaque-deep-arrays-199",
    accepts_instructionpart_id_opaque_deep_arrays_200 => "accepts--InstructionPart.id-opaque-deep-arrays-200",
    accepts_instructionpart_id_opaque_deep_objects_127 => "accepts--InstructionPart.id-opaque-deep-objects-127",
    accepts_instructionpart_id_opaque_deep_objects_199 => "accepts--InstructionPart.id-opaque-deep-objects-199",
    accepts_instructionpart_id_opaque_deep_objects_200 => "accepts--InstructionPart.id-opaque-deep-objects-200",
    accepts_instructionpart_id_opaque_key_duplicate => "accepts--InstructionPart.id-opaque-key-duplicate",
    accepts_instructionpart_id_opaque_nested_number_digits_4300 => "accepts--InstructionPart.id-opaque-nested-number-digits-4300",
    accepts_instructionpart_id_opaque_nested_number_minus_zero => "accepts--InstructionPart.id-opaque-nested-number-minus-zero",
    accepts_instructionpart_id_opaque_nested_number_u64_max_1 => "accepts--InstructionPart.id-opaque-nested-number-u64-max-1",
    accepts_instructionpart_id_opaque_number_digits_4300 => "accepts--InstructionPart.id-opaque-number-digits-4300",
    accepts_instructionpart_id_opaque_number_float_overflow => "accepts--InstructionPart.id-opaque-number-float-overflow",
    accepts_instructionpart_id_opaque_number_minus_zero => "accepts--InstructionPart.id-opaque-number-minus-zero",
    accepts_instructionpart_id_opaque_number_u64_max_1 => "accepts--InstructionPart.id-opaque-number-u64-max-1",
    accepts_instructionpart_part_kind_string_empty => "accepts--InstructionPart.part_kind-string-empty",
    accepts_modelrequest_metadata_opaque_deep_objects_199 => "accepts--ModelRequest.metadata-opaque-deep-objects-199",
    accepts_modelrequestattempt_duration_duration_clock_minute_60 => "accepts--ModelRequestAttempt.duration-duration-clock-minute-60",
    accepts_modelrequestattempt_duration_duration_iso_lower_case => "accepts--ModelRequestAttempt.duration-duration-iso-lower-case",
    accepts_modelrequestattempt_duration_null => "accepts--ModelRequestAttempt.duration-null",
    accepts_modelrequestattempt_duration_scalar_max_finite => "accepts--ModelRequestAttempt.duration-scalar-max-finite",
    accepts_modelrequestattempt_duration_scalar_overflow => "accepts--ModelRequestAttempt.duration-scalar-overflow",
    accepts_modelrequestattempt_duration_scalar_string => "accepts--ModelRequestAttempt.duration-scalar-string",
    accepts_modelrequestattempt_duration_scalar_string_1 => "accepts--ModelRequestAttempt.duration-scalar-string-1",
    accepts_modelrequestattempt_duration_scalar_string_empty => "accepts--ModelRequestAttempt.duration-scalar-string-empty",
    accepts_modelrequestattempt_duration_scalar_string_nan => "accepts--ModelRequestAttempt.duration-scalar-string-nan",
    accepts_modelrequestattempt_duration_scalar_string_off => "accepts--ModelRequestAttempt.duration-scalar-string-off",
    accepts_modelrequestattempt_duration_scalar_string_title_case => "accepts--ModelRequestAttempt.duration-scalar-string-title-case",
    accepts_modelrequestattempt_duration_scalar_string_underscore => "accepts--ModelRequestAttempt.duration-scalar-string-underscore",
    accepts_modelrequestattempt_duration_scalar_string_yes => "accepts--ModelRequestAttempt.duration-scalar-string-yes",
    accepts_modelrequestattempt_duration_scalar_true => "accepts--ModelRequestAttempt.duration-scalar-true",
    accepts_modelrequestattempt_duration_scalar_u64_max_1 => "accepts--ModelRequestAttempt.duration-scalar-u64-max-1",
    accepts_modelrequestattempt_duration_type_array => "accepts--ModelRequestAttempt.duration-type-array",
    accepts_modelrequestattempt_duration_type_object => "accepts--ModelRequestAttempt.duration-type-object",
    accepts_modelresponse_vendor_details_opaque_deep_objects_201 => "accepts--ModelResponse.vendor_details-opaque-deep-objects-201",
    accepts_modelresponsepart_part_kind_tag_swap_builtin_tool_call => "accepts--ModelResponsePart.part_kind-tag-swap-builtin-tool-call",
    accepts_nativetoolcallpart_args_opaque_key_duplicate => "accepts--NativeToolCallPart.args-opaque-key-duplicate",
    accepts_nativetoolcallpart_args_opaque_nested_number_digits_4300 => "accepts--NativeToolCallPart.args-opaque-nested-number-digits-4300",
    accepts_nativetoolcallpart_tool_name_string_surrogate_pair => "accepts--NativeToolCallPart.tool_name-string-surrogate-pair",
    accepts_nativetoolreturnpart_content_opaque_deep_arrays_128 => "accepts--NativeToolReturnPart.content-opaque-deep-arrays-128",
    accepts_nativetoolreturnpart_content_opaque_number_float_overflow => "accepts--NativeToolReturnPart.content-opaque-number-float-overflow",
    accepts_nativetoolreturnpart_content_opaque_number_u64_max_1 => "accepts--NativeToolReturnPart.content-opaque-number-u64-max-1",
    accepts_requestusage_cost_scalar_overflow => "accepts--RequestUsage.cost-scalar-overflow",
    accepts_requestusage_cost_scalar_string_empty => "accepts--RequestUsage.cost-scalar-string-empty",
    accepts_requestusage_cost_scalar_string_nan => "accepts--RequestUsage.cost-scalar-string-nan",
    accepts_requestusage_cost_scalar_string_off => "accepts--RequestUsage.cost-scalar-string-off",
    accepts_requestusage_cost_scalar_string_t => "accepts--RequestUsage.cost-scalar-string-t",
    accepts_requestusage_cost_scalar_string_title_case => "accepts--RequestUsage.cost-scalar-string-title-case",
    accepts_requestusage_cost_scalar_string_true => "accepts--RequestUsage.cost-scalar-string-true",
    accepts_requestusage_cost_scalar_string_yes => "accepts--RequestUsage.cost-scalar-string-yes",
    accepts_requestusage_cost_scalar_true => "accepts--RequestUsage.cost-scalar-true",
    accepts_requestusage_cost_type_array => "accepts--RequestUsage.cost-type-array",
    accepts_requestusage_cost_type_boolean => "accepts--RequestUsage.cost-type-boolean",
    accepts_requestusage_cost_type_object => "accepts--RequestUsage.cost-type-object",
    accepts_requestusage_cost_type_string => "accepts--RequestUsage.cost-type-string",
    accepts_requestusage_details_opaque_deep_objects_199 => "accepts--RequestUsage.details-opaque-deep-objects-199",
    accepts_requestusage_details_opaque_deep_objects_200 => "accepts--RequestUsage.details-opaque-deep-objects-200",
    accepts_requestusage_request_tokens_int_digits_4301 => "accepts--RequestUsage.request_tokens-int-digits-4301",
    accepts_retryfeedbackpart_content_opaque_deep_arrays_128 => "accepts--RetryFeedbackPart.content-opaque-deep-arrays-128",
    accepts_retryfeedbackpart_content_opaque_deep_arrays_200 => "accepts--RetryFeedbackPart.content-opaque-deep-arrays-200",
    accepts_retryinfo_cause_literal_no_output => "accepts--RetryInfo.cause-literal-no_output",
    accepts_retryinfo_cause_literal_unavailable_tool => "accepts--RetryInfo.cause-literal-unavailable_tool",
    accepts_retryinfo_cause_literal_unknown_tool => "accepts--RetryInfo.cause-literal-unknown_tool",
    accepts_structuredcontent_tag_framing_tag => "accepts--StructuredContent.tag-framing-tag",
    accepts_toolcallpart_args_opaque_deep_objects_127 => "accepts--ToolCallPart.args-opaque-deep-objects-127",
    accepts_toolcallpart_args_opaque_deep_objects_129 => "accepts--ToolCallPart.args-opaque-deep-objects-129",
    accepts_toolcallpart_args_opaque_deep_objects_199 => "accepts--ToolCallPart.args-opaque-deep-objects-199",
    accepts_toolcallpart_args_opaque_deep_objects_200 => "accepts--ToolCallPart.args-opaque-deep-objects-200",
    accepts_toolcallpart_args_opaque_key_duplicate => "accepts--ToolCallPart.args-opaque-key-duplicate",
    accepts_toolcallpart_args_opaque_nested_number_digits_4300 => "accepts--ToolCallPart.args-opaque-nested-number-digits-4300",
    accepts_toolcallpart_args_opaque_nested_number_float_overflow => "accepts--ToolCallPart.args-opaque-nested-number-float-overflow",
    accepts_toolcallpart_args_opaque_nested_number_u64_max_1 => "accepts--ToolCallPart.args-opaque-nested-number-u64-max-1",
    accepts_toolreturnpart_content_opaque_deep_arrays_129 => "accepts--ToolReturnPart.content-opaque-deep-arrays-129",
    accepts_toolreturnpart_content_opaque_key_duplicate => "accepts--ToolReturnPart.content-opaque-key-duplicate",
    accepts_toolreturnpart_content_opaque_nested_number_u64_max_1 => "accepts--ToolReturnPart.content-opaque-nested-number-u64-max-1",
    accepts_toolreturnpart_content_opaque_number_float_overflow => "accepts--ToolReturnPart.content-opaque-number-float-overflow",
    accepts_toolreturnpart_content_opaque_number_minus_zero => "accepts--ToolReturnPart.content-opaque-number-minus-zero",
    accepts_toolreturnpart_content_opaque_number_u64_max_1 => "accepts--ToolReturnPart.content-opaque-number-u64-max-1",
    accepts_toolreturnpart_tool_name_string_surrogate_pair => "accepts--ToolReturnPart.tool_name-string-surrogate-pair",
    accepts_videourl_force_download_scalar_integer => "accepts--VideoUrl.force_download-scalar-integer",
    accepts_videourl_force_download_scalar_string_nan => "accepts--VideoUrl.force_download-scalar-string-nan",
    accepts_videourl_force_download_scalar_string_underscore => "accepts--VideoUrl.force_download-scalar-string-underscore",
    accepts_videourl_force_download_scalar_u64_max_1 => "accepts--VideoUrl.force_download-scalar-u64-max-1",
    accepts_any_int_type_response_failed_attempts_usage_request_tokens => "accepts--any-int_type-response.failed_attempts.-.usage.request_tokens",
    accepts_any_int_type_response_failed_attempts_usage_response_tokens => "accepts--any-int_type-response.failed_attempts.-.usage.response_tokens",
    errors_cachepoint_ttl_literal_padded => "errors--CachePoint.ttl-literal-padded",
    errors_compactionpart_metadata_opaque_deep_arrays_200 => "errors--CompactionPart.metadata-opaque-deep-arrays-200",
    errors_documenturl_force_download_scalar_integer => "errors--DocumentUrl.force_download-scalar-integer",
    errors_documenturl_force_download_scalar_string => "errors--DocumentUrl.force_download-scalar-string",
    errors_documenturl_force_download_scalar_string_empty => "errors--DocumentUrl.force_download-scalar-string-empty",
    errors_documenturl_force_download_scalar_tiny => "errors--DocumentUrl.force_download-scalar-tiny",
    errors_documenturl_vendor_metadata_opaque_deep_arrays_128 => "errors--DocumentUrl.vendor_metadata-opaque-deep-arrays-128",
    errors_documenturl_vendor_metadata_opaque_deep_arrays_129 => "errors--DocumentUrl.vendor_metadata-opaque-deep-arrays-129",
    errors_documenturl_vendor_metadata_opaque_deep_arrays_199 => "errors--DocumentUrl.vendor_metadata-opaque-deep-arrays-199",
    errors_documenturl_vendor_metadata_opaque_number_digits_4300 => "errors--DocumentUrl.vendor_metadata-opaque-number-digits-4300",
    errors_documenturl_vendor_metadata_opaque_number_nan_literal => "errors--DocumentUrl.vendor_metadata-opaque-number-nan-literal",
    errors_filepart_provider_details_opaque_deep_arrays_200 => "errors--FilePart.provider_details-opaque-deep-arrays-200",
    errors_imageurl_vendor_metadata_opaque_number_float_overflow => "errors--ImageUrl.vendor_metadata-opaque-number-float-overflow",
    errors_imageurl_vendor_metadata_opaque_number_u64_max_1 => "errors--ImageUrl.vendor_metadata-opaque-number-u64-max-1",
    errors_instructionpart_part_kind_null => "errors--InstructionPart.part_kind-null",
    errors_modelrequest_metadata_opaque_deep_arrays_199 => "errors--ModelRequest.metadata-opaque-deep-arrays-199",
    errors_modelrequest_metadata_opaque_deep_arrays_200 => "errors--ModelRequest.metadata-opaque-deep-arrays-200",
    errors_modelrequestattempt_duration_scalar_infinity_literal => "errors--ModelRequestAttempt.duration-scalar-infinity-literal",
    errors_modelsettingsdeltapart_top_level_scalar_exponent_upper_case => "errors--ModelSettingsDeltaPart.top_level-scalar-exponent-upper-case",
    errors_nativetoolcallpart_args_opaque_number_float_overflow => "errors--NativeToolCallPart.args-opaque-number-float-overflow",
    errors_nativetoolcallpart_args_opaque_number_minus_zero => "errors--NativeToolCallPart.args-opaque-number-minus-zero",
    errors_nativetoolcallpart_args_opaque_number_u64_max_1 => "errors--NativeToolCallPart.args-opaque-number-u64-max-1",
    errors_nativetoolcallpart_provider_details_opaque_deep_arrays_127 => "errors--NativeToolCallPart.provider_details-opaque-deep-arrays-127",
    errors_nativetoolcallpart_provider_details_opaque_number_digits_4300 => "errors--NativeToolCallPart.provider_details-opaque-number-digits-4300",
    errors_requestusage_cost_scalar_nan_literal => "errors--RequestUsage.cost-scalar-nan-literal",
    errors_requestusage_details_int_values_digits_4301 => "errors--RequestUsage.details-int-values-digits-4301",
    errors_requestusage_details_int_values_infinity_literal => "errors--RequestUsage.details-int-values-infinity-literal",
    errors_requestusage_details_int_values_nan_literal => "errors--RequestUsage.details-int-values-nan-literal",
    errors_requestusage_details_opaque_deep_arrays_200 => "errors--RequestUsage.details-opaque-deep-arrays-200",
    errors_thinkingpart_provider_details_opaque_deep_arrays_200 => "errors--ThinkingPart.provider_details-opaque-deep-arrays-200",
    errors_toolcallpart_args_opaque_deep_arrays_127 => "errors--ToolCallPart.args-opaque-deep-arrays-127",
    errors_toolcallpart_args_opaque_deep_arrays_128 => "errors--ToolCallPart.args-opaque-deep-arrays-128",
    errors_toolcallpart_args_opaque_deep_arrays_129 => "errors--ToolCallPart.args-opaque-deep-arrays-129",
    errors_toolcallpart_args_opaque_deep_arrays_199 => "errors--ToolCallPart.args-opaque-deep-arrays-199",
    errors_toolcallpart_args_opaque_deep_arrays_200 => "errors--ToolCallPart.args-opaque-deep-arrays-200",
    errors_toolcallpart_args_opaque_number_digits_4300 => "errors--ToolCallPart.args-opaque-number-digits-4300",
    errors_toolcallpart_args_opaque_number_float_overflow => "errors--ToolCallPart.args-opaque-number-float-overflow",
    errors_toolcallpart_args_opaque_number_minus_zero => "errors--ToolCallPart.args-opaque-number-minus-zero",
    errors_toolcallpart_provider_details_opaque_deep_arrays_127 => "errors--ToolCallPart.provider_details-opaque-deep-arrays-127",
    errors_toolcallpart_provider_details_opaque_deep_arrays_128 => "errors--ToolCallPart.provider_details-opaque-deep-arrays-128",
    errors_toolcallpart_provider_details_opaque_number_digits_4300 => "errors--ToolCallPart.provider_details-opaque-number-digits-4300",
    errors_toolcallpart_provider_details_opaque_number_float_overflow => "errors--ToolCallPart.provider_details-opaque-number-float-overflow",
    errors_toolcallpart_provider_details_opaque_number_minus_zero => "errors--ToolCallPart.provider_details-opaque-number-minus-zero",
    errors_toolcallpart_provider_details_opaque_number_u64_max_1 => "errors--ToolCallPart.provider_details-opaque-number-u64-max-1",
    errors_toolcallpart_provider_details_opaque_string_surrogate_pair => "errors--ToolCallPart.provider_details-opaque-string-surrogate-pair",
    errors_toolcallpart_tool_call_id_null => "errors--ToolCallPart.tool_call_id-null",
    errors_toolreturnpart_timestamp_null => "errors--ToolReturnPart.timestamp-null",
    errors_toolreturnpart_tool_call_id_null => "errors--ToolReturnPart.tool_call_id-null",
    errors_uploadedfile_provider_name_literal_padded => "errors--UploadedFile.provider_name-literal-padded",
    errors_uploadedfile_provider_name_literal_upper_case => "errors--UploadedFile.provider_name-literal-upper-case",
    errors_uploadedfile_vendor_metadata_opaque_number_float_overflow => "errors--UploadedFile.vendor_metadata-opaque-number-float-overflow",
    errors_uploadedfile_vendor_metadata_opaque_number_minus_zero => "errors--UploadedFile.vendor_metadata-opaque-number-minus-zero",
    errors_uploadedfile_vendor_metadata_opaque_string_surrogate_pair => "errors--UploadedFile.vendor_metadata-opaque-string-surrogate-pair",
    errors_usercontent_kind_tag_title_case => "errors--UserContent.kind-tag-title-case",
    errors_usercontent_kind_tag_unknown => "errors--UserContent.kind-tag-unknown",
    errors_videourl_force_download_scalar_exponent_upper_case => "errors--VideoUrl.force_download-scalar-exponent-upper-case",
    errors_videourl_force_download_scalar_string_nan => "errors--VideoUrl.force_download-scalar-string-nan",
    errors_videourl_vendor_metadata_opaque_number_minus_zero => "errors--VideoUrl.vendor_metadata-opaque-number-minus-zero",
    errors_any_string_type_request_parts_user_prompt_content_str => "errors--any-string_type-request.parts.-.user-prompt.content.str",
    fmt_binarycontent_kind_key_upper_case => "fmt--BinaryContent.kind-key-upper-case",
    refuses_binarycontent_vendor_metadata_opaque_nested_number_nan_literal => "refuses--BinaryContent.vendor_metadata-opaque-nested-number-nan-literal",
    refuses_compactionpart_metadata_opaque_nested_number_nan_literal => "refuses--CompactionPart.metadata-opaque-nested-number-nan-literal",
    refuses_imageurl_vendor_metadata_opaque_nested_number_nan_literal => "refuses--ImageUrl.vendor_metadata-opaque-nested-number-nan-literal",
    refuses_instructiondigest_dynamic_bool_float_one => "refuses--InstructionDigest.dynamic-bool-float-one",
    refuses_instructiondigest_dynamic_bool_one => "refuses--InstructionDigest.dynamic-bool-one",
    refuses_instructiondigest_dynamic_bool_string_1 => "refuses--InstructionDigest.dynamic-bool-string-1",
    refuses_instructiondigest_dynamic_bool_string_off => "refuses--InstructionDigest.dynamic-bool-string-off",
    refuses_instructiondigest_dynamic_bool_string_t => "refuses--InstructionDigest.dynamic-bool-string-t",
    refuses_instructiondigest_dynamic_bool_string_title_case => "refuses--InstructionDigest.dynamic-bool-string-title-case",
    refuses_instructiondigest_dynamic_bool_string_true => "refuses--InstructionDigest.dynamic-bool-string-true",
    refuses_instructiondigest_dynamic_bool_string_yes => "refuses--InstructionDigest.dynamic-bool-string-yes",
    refuses_instructiondigest_dynamic_bool_zero => "refuses--InstructionDigest.dynamic-bool-zero",
    refuses_instructionpart_dynamic_bool_float_one => "refuses--InstructionPart.dynamic-bool-float-one",
    refuses_instructionpart_dynamic_bool_one => "refuses--InstructionPart.dynamic-bool-one",
    refuses_instructionpart_dynamic_bool_string_1 => "refuses--InstructionPart.dynamic-bool-string-1",
    refuses_instructionpart_dynamic_bool_string_off => "refuses--InstructionPart.dynamic-bool-string-off",
    refuses_instructionpart_dynamic_bool_string_t => "refuses--InstructionPart.dynamic-bool-string-t",
    refuses_instructionpart_dynamic_bool_string_title_case => "refuses--InstructionPart.dynamic-bool-string-title-case",
    refuses_instructionpart_dynamic_bool_string_true => "refuses--InstructionPart.dynamic-bool-string-true",
    refuses_instructionpart_dynamic_bool_string_yes => "refuses--InstructionPart.dynamic-bool-string-yes",
    refuses_instructionpart_dynamic_bool_zero => "refuses--InstructionPart.dynamic-bool-zero",
    refuses_instructionpart_dynamic_type_number => "refuses--InstructionPart.dynamic-type-number",
    refuses_modelrequest_metadata_opaque_deep_objects_198_empty => "refuses--ModelRequest.metadata-opaque-deep-objects-198-empty",
    refuses_modelrequest_metadata_opaque_nested_number_nan_literal => "refuses--ModelRequest.metadata-opaque-nested-number-nan-literal",
    refuses_modelrequestpart_part_kind_tag_swap_user_prompt => "refuses--ModelRequestPart.part_kind-tag-swap-user-prompt",
    refuses_modelresponse_metadata_opaque_nested_number_nan_literal => "refuses--ModelResponse.metadata-opaque-nested-number-nan-literal",
    refuses_modelresponse_provider_details_opaque_nested_number_nan_literal => "refuses--ModelResponse.provider_details-opaque-nested-number-nan-literal",
    refuses_modelresponse_vendor_id_string_number => "refuses--ModelResponse.vendor_id-string-number",
    refuses_modelsettingsdeltapart_top_level_bool_float_one => "refuses--ModelSettingsDeltaPart.top_level-bool-float-one",
    refuses_modelsettingsdeltapart_top_level_bool_one => "refuses--ModelSettingsDeltaPart.top_level-bool-one",
    refuses_modelsettingsdeltapart_top_level_bool_string_1 => "refuses--ModelSettingsDeltaPart.top_level-bool-string-1",
    refuses_modelsettingsdeltapart_top_level_bool_string_off => "refuses--ModelSettingsDeltaPart.top_level-bool-string-off",
    refuses_modelsettingsdeltapart_top_level_bool_string_t => "refuses--ModelSettingsDeltaPart.top_level-bool-string-t",
    refuses_modelsettingsdeltapart_top_level_bool_string_title_case => "refuses--ModelSettingsDeltaPart.top_level-bool-string-title-case",
    refuses_modelsettingsdeltapart_top_level_bool_string_true => "refuses--ModelSettingsDeltaPart.top_level-bool-string-true",
    refuses_modelsettingsdeltapart_top_level_bool_string_yes => "refuses--ModelSettingsDeltaPart.top_level-bool-string-yes",
    refuses_modelsettingsdeltapart_top_level_bool_zero => "refuses--ModelSettingsDeltaPart.top_level-bool-zero",
    refuses_modelsettingsdeltapart_top_level_type_number => "refuses--ModelSettingsDeltaPart.top_level-type-number",
    refuses_nativetoolcallpart_args_opaque_nested_number_nan_literal => "refuses--NativeToolCallPart.args-opaque-nested-number-nan-literal",
    refuses_nativetoolcallpart_provider_details_opaque_nested_number_nan_literal => "refuses--NativeToolCallPart.provider_details-opaque-nested-number-nan-literal",
    refuses_nativetoolreturnpart_content_opaque_nested_number_nan_literal => "refuses--NativeToolReturnPart.content-opaque-nested-number-nan-literal",
    refuses_nativetoolreturnpart_content_opaque_number_nan_literal => "refuses--NativeToolReturnPart.content-opaque-number-nan-literal",
    refuses_nativetoolreturnpart_content_file_digests_null => "refuses--NativeToolReturnPart.content_file_digests-null",
    refuses_nativetoolreturnpart_content_file_digests_type_float => "refuses--NativeToolReturnPart.content_file_digests-type-float",
    refuses_nativetoolreturnpart_metadata_opaque_nested_number_nan_literal => "refuses--NativeToolReturnPart.metadata-opaque-nested-number-nan-literal",
    refuses_requestusage_audio_seconds_float_infinity_literal => "refuses--RequestUsage.audio_seconds-float-infinity-literal",
    refuses_requestusage_audio_seconds_float_nan_literal => "refuses--RequestUsage.audio_seconds-float-nan-literal",
    refuses_requestusage_audio_seconds_float_string_nan => "refuses--RequestUsage.audio_seconds-float-string-nan",
    refuses_requestusage_audio_seconds_float_string_underscore => "refuses--RequestUsage.audio_seconds-float-string-underscore",
    refuses_requestusage_audio_seconds_float_true => "refuses--RequestUsage.audio_seconds-float-true",
    refuses_requestusage_audio_seconds_type_boolean => "refuses--RequestUsage.audio_seconds-type-boolean",
    refuses_speechpart_provider_details_opaque_nested_number_nan_literal => "refuses--SpeechPart.provider_details-opaque-nested-number-nan-literal",
    refuses_structuredcontent_metadata_opaque_nested_number_nan_literal => "refuses--StructuredContent.metadata-opaque-nested-number-nan-literal",
    refuses_structuredcontent_value_opaque_nested_number_nan_literal => "refuses--StructuredContent.value-opaque-nested-number-nan-literal",
    refuses_systempromptpart_metadata_opaque_nested_number_nan_literal => "refuses--SystemPromptPart.metadata-opaque-nested-number-nan-literal",
    refuses_textpart_provider_details_opaque_nested_number_nan_literal => "refuses--TextPart.provider_details-opaque-nested-number-nan-literal",
    refuses_thinkingpart_provider_details_opaque_nested_number_nan_literal => "refuses--ThinkingPart.provider_details-opaque-nested-number-nan-literal",
    refuses_toolavailabilitydeltapart_added_absent_null => "refuses--ToolAvailabilityDeltaPart.added-absent-null",
    refuses_toolcallpart_args_opaque_nested_number_nan_literal => "refuses--ToolCallPart.args-opaque-nested-number-nan-literal",
    refuses_toolcallpart_provider_details_opaque_nested_number_nan_literal => "refuses--ToolCallPart.provider_details-opaque-nested-number-nan-literal",
    refuses_toolcallpart_tool_name_key_removed => "refuses--ToolCallPart.tool_name-key-removed",
    refuses_toolreturnpart_content_opaque_nested_number_nan_literal => "refuses--ToolReturnPart.content-opaque-nested-number-nan-literal",
    refuses_toolreturnpart_content_opaque_number_nan_literal => "refuses--ToolReturnPart.content-opaque-number-nan-literal",
    refuses_toolreturnpart_content_file_digests_absent_null => "refuses--ToolReturnPart.content_file_digests-absent-null",
    refuses_toolreturnpart_content_file_digests_null => "refuses--ToolReturnPart.content_file_digests-null",
    refuses_toolreturnpart_content_file_digests_type_boolean => "refuses--ToolReturnPart.content_file_digests-type-boolean",
    refuses_toolreturnpart_content_file_digests_type_number => "refuses--ToolReturnPart.content_file_digests-type-number",
    refuses_toolreturnpart_metadata_opaque_deep_arrays_199 => "refuses--ToolReturnPart.metadata-opaque-deep-arrays-199",
    refuses_toolreturnpart_metadata_opaque_nested_number_nan_literal => "refuses--ToolReturnPart.metadata-opaque-nested-number-nan-literal",
    refuses_toolreturnpart_metadata_opaque_number_nan_literal => "refuses--ToolReturnPart.metadata-opaque-number-nan-literal",
    refuses_toolreturnpart_tool_name_key_removed => "refuses--ToolReturnPart.tool_name-key-removed",
    refuses_userpromptpart_content_deep_127 => "refuses--UserPromptPart.content---deep-127",
    refuses_userpromptpart_content_deep_128 => "refuses--UserPromptPart.content---deep-128",
    refuses_userpromptpart_content_deep_129 => "refuses--UserPromptPart.content---deep-129",
    refuses_userpromptpart_content_deep_199 => "refuses--UserPromptPart.content---deep-199",
    refuses_userpromptpart_content_deep_200 => "refuses--UserPromptPart.content---deep-200",
    refuses_userpromptpart_content_type_object => "refuses--UserPromptPart.content---type-object",
    refuses_videourl_vendor_metadata_opaque_nested_number_nan_literal => "refuses--VideoUrl.vendor_metadata-opaque-nested-number-nan-literal",
}

#[test]
fn every_fixture_has_its_test_and_expectation() {
    let dir = fixture_dir();
    let inputs: BTreeSet<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().into_string().unwrap())
                .filter(|name| name.ends_with(".json") && !name.ends_with(".expected.json"))
                .map(|name| name.trim_end_matches(".json").to_owned())
                .collect()
        })
        .unwrap_or_default();
    let listed: BTreeSet<String> = LISTED.iter().map(|name| (*name).to_owned()).collect();
    assert_eq!(inputs, listed, "tests/fixtures/verdict/ and the fixtures! list differ");
    for name in open_disagreements().keys().filter(|name| !name.contains('*')) {
        assert!(inputs.contains(name), "OPEN.txt lists {name}, which is no fixture");
    }
    for name in &inputs {
        assert!(
            dir.join(format!("{name}.expected.json")).is_file(),
            "{name}: no expected verdict (run oracle/verdict_oracle.py expect --dir tests/fixtures/verdict)"
        );
    }
}
