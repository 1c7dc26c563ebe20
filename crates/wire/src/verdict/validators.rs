//! What pydantic-ai 2.68.0 checks in code, or in types the schema keeps opaque: the
//! `__post_init__` methods of its message dataclasses (a `ValueError` there becomes a
//! `value_error` at the object's `loc`), the legacy `retry-prompt` part's routing, and the
//! content of opaque values typed `dict[str, int]` or `list[ErrorDetails] | str`. The schema names
//! each (`x-msgflow-verdict`); the generated rules call a model validator after the fields, only
//! when they were valid, as `__post_init__` runs only then, and a value check with the value.

use std::cmp::Ordering;

use super::{Segment, Walker};
use crate::{
    Citation, CompactionPart, ContentCitationAnchor, DocumentCitationSource, Int, MarkerCitationAnchor, ModelRequest,
    ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, RequestUsage, RetryInfo, RetryPromptPart, SpeechPart,
    StructuredContent,
};

/// A model validator of pydantic-ai, run on a value whose fields pydantic accepted.
pub(crate) trait Validate {
    fn validate<'a>(&'a self, w: &mut Walker<'a>);
}

/// The `loc` tag pydantic-ai's discriminator gives a variant whose tag is not its `part_kind`.
pub(crate) trait LocTag {
    fn loc_tag(&self) -> &'static str;
}

const VALUE_ERROR: &str = "value_error";

/// `ModelRequest.__post_init__` -> `_check_parts(parts, 'user')` (messages.py): a speech part
/// must be the user's, and a compaction part must not carry provider fields. The first part that
/// fails raises, so there is at most one reason per message.
impl Validate for ModelRequest {
    fn validate<'a>(&'a self, w: &mut Walker<'a>) {
        for part in &self.parts {
            let problem = match part {
                ModelRequestPart::Speech(speech) => speaker_problem(speech, "user"),
                ModelRequestPart::Compaction(compaction) => request_compaction_problem(compaction),
                _ => None,
            };
            if let Some(message) = problem {
                w.report(VALUE_ERROR, message);
                return;
            }
        }
    }
}

/// `ModelResponse.__post_init__` -> `_check_parts(parts, 'assistant')`: a speech part must be
/// the assistant's (`_check_compaction_part` allows anything on the response side).
impl Validate for ModelResponse {
    fn validate<'a>(&'a self, w: &mut Walker<'a>) {
        for part in &self.parts {
            if let ModelResponsePart::Speech(speech) = part {
                if let Some(message) = speaker_problem(speech, "assistant") {
                    w.report(VALUE_ERROR, message);
                    return;
                }
            }
        }
    }
}

/// `StructuredContent.__post_init__` (messages.py): a stored non-empty `content` is trusted; an
/// empty one (or none: it defaults to `''`) is rendered again on load, and with a `tag` that
/// rendering first checks it with `model_visible_name_error` (`_framing.py`: the legacy rule
/// `[a-z_][a-z0-9_]*` still passes, with a deprecation warning, and it covers the `pyai:`
/// prefix) and refuses the built-in framing tags. Rendering a JSON value never gives empty text.
impl Validate for StructuredContent {
    fn validate<'a>(&'a self, w: &mut Walker<'a>) {
        if self.content.get().is_some_and(|content| !content.is_empty()) {
            return;
        }
        let Some(tag) = self.tag.get() else {
            return;
        };
        let legacy_name = tag.bytes().next().is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
            && tag
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !legacy_name {
            w.report(
                VALUE_ERROR,
                format!("Value error, `StructuredContent.tag` must be lowercase snake_case, like `judge_feedback`; got {tag:?}."),
            );
        } else if FRAMING_TAGS.contains(&tag.as_str()) {
            w.report(
                VALUE_ERROR,
                format!("Value error, `StructuredContent.tag` cannot be {tag:?}, a built-in framing tag."),
            );
        }
    }
}

/// `_FRAMING_TAG_NAMES` (messages.py): `FramingTag`'s literals in `_framing.py`.
const FRAMING_TAGS: &[&str] = &[
    "system",
    "tool_result",
    "assistant_thinking",
    "context",
    "context_diff",
    "validation_errors",
    "retry_feedback",
    "conversation_summary",
];

/// `_check_speech_part`.
fn speaker_problem(part: &SpeechPart, speaker: &str) -> Option<String> {
    let owner = if speaker == "user" {
        "ModelRequest"
    } else {
        "ModelResponse"
    };
    let actual = part.speaker.as_str();
    (actual != speaker).then(|| {
        format!("Value error, `SpeechPart` in `{owner}.parts` must have `speaker='{speaker}'`, got '{actual}'")
    })
}

/// `_check_compaction_part` for the user side: `provider_name`, `id` and `provider_details` must
/// be `None`.
fn request_compaction_problem(part: &CompactionPart) -> Option<String> {
    let set = part.provider_name.is_present() || part.id.is_present() || part.provider_details.is_present();
    set.then(|| {
        "Value error, A `CompactionPart` in `ModelRequest.parts` is a summary no provider produced, so it must not \
         set `provider_name`, `id` or `provider_details`; a provider's own compaction part belongs in \
         `ModelResponse.parts`."
            .to_owned()
    })
}

/// `Citation.__post_init__`: at least one source.
impl Validate for Citation {
    fn validate<'a>(&'a self, w: &mut Walker<'a>) {
        if self.sources.is_empty() {
            w.report(VALUE_ERROR, "Value error, A citation must have at least one source");
        }
    }
}

/// `DocumentCitationSource.__post_init__`: `any((document_id, title, excerpts))`, where an empty
/// string or list is falsy.
impl Validate for DocumentCitationSource {
    fn validate<'a>(&'a self, w: &mut Walker<'a>) {
        let truthy = self.document_id.get().is_some_and(|id| !id.is_empty())
            || self.title.get().is_some_and(|title| !title.is_empty())
            || self.excerpts.get().is_some_and(|excerpts| !excerpts.is_empty());
        if !truthy {
            w.report(
                VALUE_ERROR,
                "Value error, A document citation source must have at least one source field",
            );
        }
    }
}

/// `_validate_citation_anchor`: `0 <= start < end`.
fn anchor_problem(w: &mut Walker<'_>, start: &Int, end: &Int) {
    if start.is_negative() || compare(start, end) != Ordering::Less {
        w.report(
            VALUE_ERROR,
            "Value error, Citation anchor must satisfy 0 <= start < end",
        );
    }
}

impl Validate for ContentCitationAnchor {
    fn validate<'a>(&'a self, w: &mut Walker<'a>) {
        anchor_problem(w, &self.start, &self.end);
    }
}

impl Validate for MarkerCitationAnchor {
    fn validate<'a>(&'a self, w: &mut Walker<'a>) {
        anchor_problem(w, &self.start, &self.end);
    }
}

/// Two integers of any size in order.
fn compare(a: &Int, b: &Int) -> Ordering {
    if let (Some(a), Some(b)) = (a.to_i128(), b.to_i128()) {
        return a.cmp(&b);
    }
    let (a_digits, b_digits) = (a.digits(), b.digits());
    match (a.is_negative(), b.is_negative()) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (negative, _) => {
            let magnitude = a_digits
                .trim_start_matches('-')
                .len()
                .cmp(&b_digits.trim_start_matches('-').len())
                .then_with(|| a_digits.trim_start_matches('-').cmp(b_digits.trim_start_matches('-')));
            if negative {
                magnitude.reverse()
            } else {
                magnitude
            }
        }
    }
}

/// `_model_request_part_discriminator`: a stored `retry-prompt` is read as a tool return when it
/// names a tool, as retry feedback otherwise (`_legacy_retry_part_tag`).
impl LocTag for RetryPromptPart {
    fn loc_tag(&self) -> &'static str {
        if self.tool_name.is_present() {
            "legacy-retry-tool-return"
        } else {
            "legacy-retry-feedback"
        }
    }
}

/// `content: list[pydantic_core.ErrorDetails] | str`, the content of both retry parts (a legacy
/// `retry-prompt` is validated as the part it is translated into): a string is fine; otherwise
/// pydantic reports what the list member found, then that it is not a string.
pub(crate) fn error_details_or_string(w: &mut Walker<'_>, content: &RawJson) {
    if content.is_string() {
        return;
    }
    let before = w.found();
    w.at(Segment::Tag("list[ErrorDetails]"), |w| {
        // Read one level at a time: an item nested deeper than serde_json's `Value` can be
        // (128 levels) is still checked, as pydantic checks it up to jiter's 200.
        let Some(items) = super::locate::array_items(content.get()) else {
            w.report("list_type", "Input should be a valid list");
            return;
        };
        for (index, item) in items.into_iter().enumerate() {
            w.at(Segment::Index(index), |w| error_details(w, item));
        }
    });
    if w.found() > before {
        w.report_at(Segment::Tag("str"), "string_type", "Input should be a valid string");
    }
}

/// pydantic-core's `ErrorDetails` TypedDict: `type: str`, `loc: tuple[int | str, ...]`,
/// `msg: str`, `input: Any`, and optionally `ctx: dict[str, Any]` and `url: str`.
fn error_details(w: &mut Walker<'_>, item: &str) {
    let Some(fields) = super::locate::object_entries(item) else {
        w.report("dict_type", "Input should be an object");
        return;
    };
    // The last value of a key written twice is the one Python's dict holds.
    let get = |key: &str| {
        fields
            .iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, value)| *value)
    };
    for (key, kind) in [
        ("type", Some(b'"')),
        ("loc", Some(b'[')),
        ("msg", Some(b'"')),
        ("input", None),
    ] {
        match (get(key).and_then(|value| value.bytes().next()), kind) {
            (None, _) => w.report_at(Segment::Key(key), "missing", "Field required"),
            (Some(_), None) => {}
            (Some(first), Some(expected)) if first == expected => {}
            (Some(_), Some(b'"')) => w.report_at(Segment::Key(key), "string_type", "Input should be a valid string"),
            (Some(_), _) => w.report_at(Segment::Key(key), "tuple_type", "Input should be a valid tuple"),
        }
    }
    if get("ctx").is_some_and(|ctx| !ctx.starts_with('{')) {
        w.report_at(Segment::Key("ctx"), "dict_type", "Input should be an object");
    }
    if get("url").is_some_and(|url| !url.starts_with('"')) {
        w.report_at(Segment::Key("url"), "string_type", "Input should be a valid string");
    }
}

/// `dict[str, int]` (`RequestUsage.details`): pydantic reads a falsy value (`null`, `[]`, `0`,
/// `""`) as `{}` (`_zero_details` in usage.py), and each value of an object with lax `int`.
pub(crate) fn int_values(w: &mut Walker<'_>, details: &RawJson) {
    if !details.is_object() {
        let falsy = matches!(details.get(), "null" | "[]" | "false" | "\"\"" | "0" | "-0")
            || details.get().parse::<f64>().is_ok_and(|value| value == 0.0);
        if !falsy {
            w.report("dict_type", "Input should be an object");
        }
        return;
    }
    // Told by the scan on reading, or else looked at here.
    if details.shape().plain_int_values || crate::raw::holds_only_plain_integers(details.get().as_bytes()) {
        return;
    }
    for (key, value) in super::locate::object_entries(details.get()).unwrap_or_default() {
        match super::lax::int_error(value) {
            // An integer too long for the parser is the whole document's `json_invalid`, which the
            // value's own JSON-level check reports (with pydantic's empty `loc`).
            Some((super::JSON_INVALID, _)) | None => {}
            Some((error_type, message)) => w.report_under(&key, error_type, message),
        }
    }
}

/// `ModelRequestAttempt.usage` (`RequestUsage | None`): pydantic-ai 2.68.0 validates it without
/// the wrap validator a response's own `usage` goes through (`_validate_usage` in usage.py, whose
/// `_with_legacy_defaults` turns a null legacy count into 0), so a null `request_tokens` or
/// `response_tokens` whose canonical key is absent is refused as the `int` it is (probed with
/// the venv: `{"response_tokens": null}` loads as a response's usage, not as an attempt's).
pub(crate) fn attempt_usage(w: &mut Walker<'_>, usage: &RequestUsage) {
    let legacy = [
        ("request_tokens", usage.input_tokens.is_absent(), &usage.request_tokens),
        (
            "response_tokens",
            usage.output_tokens.is_absent(),
            &usage.response_tokens,
        ),
    ];
    for (key, canonical_absent, value) in legacy {
        if canonical_absent && value.is_null() {
            w.report_under(key, "int_type", "Input should be a valid integer");
        }
    }
}

/// `RetryInfo[ToolRetryCause]` (`BaseToolReturnPart.retry`, messages.py): the causes a tool's
/// result may give. A cause outside every set is the cause's own literal error.
pub(crate) fn tool_retry_cause(w: &mut Walker<'_>, retry: &RetryInfo) {
    if retry.cause.is_known() && !crate::TOOL_RETRY_CAUSE_LITERALS.contains(&retry.cause.as_str()) {
        let message = literal_error(crate::TOOL_RETRY_CAUSE_LITERALS);
        w.report_at(Segment::Key("cause"), "literal_error", message);
    }
}

/// `RetryInfo[RetryFeedbackCause]` (`RetryFeedbackPart.retry`): the causes of a retry prompt.
pub(crate) fn retry_feedback_cause(w: &mut Walker<'_>, retry: &RetryInfo) {
    if retry.cause.is_known() && !crate::RETRY_FEEDBACK_CAUSE_LITERALS.contains(&retry.cause.as_str()) {
        let message = literal_error(crate::RETRY_FEEDBACK_CAUSE_LITERALS);
        w.report_at(Segment::Key("cause"), "literal_error", message);
    }
}

/// pydantic's `literal_error` message: `Input should be 'a', 'b' or 'c'`.
fn literal_error(literals: &[&str]) -> String {
    let quoted: Vec<String> = literals.iter().map(|literal| format!("'{literal}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("Input should be {} or {last}", rest.join(", ")),
        _ => format!("Input should be {}", quoted.concat()),
    }
}

/// `InstructionId | None` (`InstructionDeltaPart.id`, `InstructionPart.id`, ...): the wire form is
/// a string (one with an unknown namespace loads as `None`); the validation schema also takes
/// the dataclass as an object, which needs its `source`. Anything else is `dataclass_type`.
pub(crate) fn instruction_id(w: &mut Walker<'_>, id: &RawJson) {
    if id.is_null() || id.is_string() {
        return;
    }
    if !id.is_object() {
        w.report("dataclass_type", "Input should be an object");
        return;
    }
    let entries = super::locate::object_entries(id.get()).unwrap_or_default();
    if !entries.iter().any(|(key, _)| key == "source") {
        w.report_at(Segment::Key("source"), "missing", "Field required");
    }
}

/// `part_kind: Literal['instruction']` of an instruction block, which the baseline's
/// discriminator (`_baseline_block_kind`) selects for any tag but `instruction-digest`.
pub(crate) fn instruction_tag(w: &mut Walker<'_>, part_kind: &str) {
    if part_kind != "instruction" {
        w.report("literal_error", "Input should be 'instruction'");
    }
}
