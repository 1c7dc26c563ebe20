//! [proptest] strategies for pydantic-ai histories (feature `arbitrary`).
//!
//! Every strategy takes a [`Flavour`]:
//!
//! * [`Flavour::Pydantic`] builds what pydantic-ai 2.68.0 itself writes: every key present, in
//!   its order, with values pydantic-ai accepts and writes back unchanged (`dump_json(validate_json(b)) == b`).
//!   File items carry their computed `media_type` and `identifier`, timestamps and tool call ids
//!   are set, floats are finite, enum values are known, dictionaries have unique keys.
//! * [`Flavour::Any`] builds everything msgflow must carry losslessly: absent keys, explicit
//!   nulls where pydantic-ai would reject them, unknown extra keys, unknown parts and content
//!   items, unknown enum values, and numbers, timestamps and strings in spellings pydantic-ai
//!   would normalise (`5.0` for an integer, `1E5`, `"\u00e9"`, `2025-01-02 03:04:05`).
//!
//! Histories stay small (at most 6 messages of at most 5 parts) so that a property test runs
//! hundreds of cases quickly.
//!
//! Both flavours meet pydantic-ai itself in the verdict differential of `cargo xtask
//! conformance` (`xtask/src/conformance_verdict.rs`): any-flavour histories are judged as they
//! are and mutated, so a spelling added here is compared with `validate_json` on the next run.
//!
//! The part that restates the schema is generated from it by `cargo xtask codegen`
//! ([`generated`]: one strategy per struct, union and string enum of a stored history, every
//! property in schema order with absent/null/value chosen from the schema's `required`,
//! nullability, `default`, `x-msgflow-conditional` and `x-msgflow-alias-of`). This module is the
//! runtime it calls: leaf values by type (strings, integers of any size, floats, timestamps,
//! opaque JSON, the `x-msgflow-rust-type` scalars) and the rules pydantic-ai enforces that the
//! schema cannot state, which the schema names with `x-msgflow-arbitrary` annotations
//! (`schema/CONVENTIONS.md`).
//!
//! ```
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//! use msgflow_wire::arbitrary::{history, Flavour};
//!
//! let mut runner = TestRunner::deterministic();
//! let messages = history(Flavour::Pydantic).new_tree(&mut runner).unwrap().current();
//! let bytes = msgflow_wire::to_vec(&messages).unwrap();
//! assert_eq!(msgflow_wire::from_slice(&bytes).unwrap(), messages);
//! ```

use std::collections::HashSet;
use std::fmt::Debug;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::BoxedStrategy;
use serde::de::DeserializeOwned;

use crate::*;

mod flavour;
pub mod generated;
mod rules;
mod scalars;

pub use self::flavour::Flavour;
use self::rules::{
    document_source_rules, file_digests, native_tool_return_rules, request_rules, response_rules, tool_return_rules,
};
pub use self::scalars::timestamp;
use self::scalars::{base64_data, decimal, duration, float, force_download, int, lax_bool, parse_json};

/// Maximum number of messages in a generated history.
pub const MAX_MESSAGES: usize = 6;
/// Maximum number of parts in a generated message.
pub const MAX_PARTS: usize = 5;

const WORDS: &[&str] = &[
    "fn", "let", "mut", "impl", "trait", "async", "await", "match", "enum", "struct", "crate", "tokio", "serde",
    "json", "path", "file", "error", "result", "ok", "none", "vec", "string", "borrow", "lifetime",
];

/// Characters that stress string escaping: C0 controls, DEL, line separators, BOM, non-BMP, quotes.
const SPECIAL: &[&str] = &[
    "\u{0}",
    "\u{1}",
    "\u{8}",
    "\u{c}",
    "\n",
    "\r",
    "\t",
    "\u{b}",
    "\u{1f}",
    "\u{7f}",
    "\u{80}",
    "\u{a0}",
    "\u{2028}",
    "\u{2029}",
    "\u{feff}",
    "😀",
    "👩\u{200d}💻",
    "漢",
    "é",
    "e\u{301}",
    "\"",
    "\\",
    "/",
    "</script>",
    "\u{10ffff}",
    "ß",
];

const URLS: &[&str] = &[
    "https://example.com/a.png",
    "https://example.com/b.JPG",
    "https://example.com/noext",
    "https://youtu.be/abc",
    "https://example.com/v.mp4",
    "https://example.com/a.pdf",
    "https://example.com/a.tar.gz",
    "file:///tmp/x.txt",
    "https://example.com/q.png?x=1",
    "https://example.com/ü.mp3",
];

const MEDIA_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "audio/wav",
    "audio/mpeg",
    "video/mp4",
    "application/pdf",
    "text/plain",
    "x/custom",
];

/// Number spellings pydantic-ai would rewrite (or write back as `null`) but msgflow keeps as written.
const ODD_NUMBERS: &[&str] = &[
    "1E5",
    "1.50",
    "-0",
    "0e0",
    "1e400",
    "-1e-400",
    "12345678901234567890123",
    "0.1e+2",
    // Not JSON, but pydantic-ai reads them as floats (`crate::non_finite`).
    "NaN",
    "Infinity",
    "-Infinity",
];

/// String spellings (JSON text) pydantic-ai would rewrite but msgflow keeps as written.
const ODD_STRINGS: &[&str] = &[
    r#""\u00e9""#,
    r#""\/""#,
    r#""\ud83d\ude00""#,
    r#""\u0041\u000A""#,
    r#""tab\u0009""#,
];

/// Any string: words mixed with escapes, controls, non-BMP and arbitrary characters.
pub fn text() -> BoxedStrategy<String> {
    let piece = prop_oneof![
        6 => select(WORDS).prop_map(str::to_owned),
        3 => select(SPECIAL).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
    ];
    (vec(piece, 0..6), select(&[" ", "", "\n"][..]))
        .prop_map(|(pieces, separator)| pieces.join(separator))
        .boxed()
}

/// A non-empty string.
fn non_empty_text() -> BoxedStrategy<String> {
    text()
        .prop_map(|text| if text.is_empty() { "x".to_owned() } else { text })
        .boxed()
}

/// An id such as `call_00ab12cd34`.
fn ident(prefix: &'static str) -> BoxedStrategy<String> {
    any::<u32>().prop_map(move |n| format!("{prefix}_{n:08x}")).boxed()
}

/// Arbitrary JSON (any JSON value, nesting at most 6 levels): unicode and control characters,
/// integers beyond 64 bits, floats at the notation boundaries. The pydantic flavour keeps to
/// what pydantic-ai writes back unchanged (finite floats in its spelling, unique keys).
pub fn raw_json(flavour: Flavour) -> BoxedStrategy<RawJson> {
    json_text(flavour, 6, None)
        .prop_filter_map("valid JSON", |text| RawJson::from_json_text(&text).ok())
        .boxed()
}

/// A JSON object (`dict[str, Any]`).
fn raw_object(flavour: Flavour) -> BoxedStrategy<RawJson> {
    object_text(json_text(flavour, 2, None), flavour)
        .prop_filter_map("valid JSON", |text| RawJson::from_json_text(&text).ok())
        .boxed()
}

/// Shallow JSON for tool arguments, tool output and metadata (keeps histories small).
fn small_json(flavour: Flavour) -> BoxedStrategy<RawJson> {
    json_text(flavour, 3, None)
        .prop_filter_map("valid JSON", |text| RawJson::from_json_text(&text).ok())
        .boxed()
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn json_leaf(flavour: Flavour) -> BoxedStrategy<String> {
    let float = any::<f64>()
        .prop_filter("finite", |value| value.is_finite())
        .prop_map(|value| serde_json::to_string(&value).unwrap_or_else(|_| "0.0".to_owned()));
    let boundary_float = select(
        &[
            0.0,
            -0.0,
            1e16,
            1e-5,
            9.99e-6,
            5e-324,
            1.7976931348623157e308,
            1e15,
            2.0,
            -1e16,
            0.1,
            1.5e300,
        ][..],
    )
    .prop_map(|value: f64| serde_json::to_string(&value).unwrap_or_else(|_| "0.0".to_owned()));
    let big_int = (any::<bool>(), 1u8..=9, vec(0u8..=9, 18..30)).prop_map(|(negative, first, rest)| {
        let digits: String = rest.iter().map(|digit| char::from(b'0' + digit)).collect();
        format!("{}{first}{digits}", if negative { "-" } else { "" })
    });
    let base = prop_oneof![
        1 => Just("null".to_owned()),
        1 => any::<bool>().prop_map(|value| value.to_string()),
        2 => any::<i64>().prop_map(|value| value.to_string()),
        1 => (-100i64..100).prop_map(|value| value.to_string()),
        1 => big_int,
        1 => float,
        1 => boundary_float,
        4 => text().prop_map(|text| json_string(&text)),
    ];
    match flavour {
        Flavour::Pydantic => base.boxed(),
        Flavour::Any => prop_oneof![
            8 => base,
            1 => select(ODD_NUMBERS).prop_map(str::to_owned),
            1 => select(ODD_STRINGS).prop_map(str::to_owned),
        ]
        .boxed(),
    }
}

/// Object keys; the pydantic flavour avoids `kind`, which could make pydantic-ai rebuild a
/// tool-output dictionary as a file item.
fn json_key(flavour: Flavour) -> BoxedStrategy<String> {
    text()
        .prop_filter("not a file-item tag", move |key| {
            flavour == Flavour::Any || key != "kind"
        })
        .boxed()
}

fn object_text(value: BoxedStrategy<String>, flavour: Flavour) -> BoxedStrategy<String> {
    vec((json_key(flavour), value), 0..4)
        .prop_map(|entries| {
            let mut seen = HashSet::new();
            let fields: Vec<String> = entries
                .into_iter()
                .filter(|(key, _)| seen.insert(key.clone()))
                .map(|(key, value)| format!("{}:{value}", json_string(&key)))
                .collect();
            format!("{{{}}}", fields.join(","))
        })
        .boxed()
}

/// JSON text nesting at most `depth` levels; `leaf` overrides the scalar strategy.
fn json_text(flavour: Flavour, depth: u32, leaf: Option<BoxedStrategy<String>>) -> BoxedStrategy<String> {
    let leaf = leaf.unwrap_or_else(|| json_leaf(flavour));
    leaf.prop_recursive(depth, 24, 4, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            object_text(inner, flavour),
        ]
    })
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Presence: what the generated code asks for each optional key
// ---------------------------------------------------------------------------------------------

/// How pydantic-ai writes an optional key, from the schema's facts (the generator picks one per
/// property; the any flavour ignores it and also leaves keys out or sets them to null).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Presence {
    /// Always written with a value (a non-nullable type, or a default computed on load).
    Always,
    /// Always written, as null or a value (a nullable type or `"default": null`).
    Nullable,
    /// Written only under a condition (`x-msgflow-conditional`): absent or a value.
    Conditional,
    /// Written only under a condition, and then possibly as null.
    ConditionalNullable,
    /// A legacy input alias (`x-msgflow-alias-of`): pydantic-ai never writes it.
    Alias,
}

/// An optional key with the given presence.
fn field<T: Clone + Debug + 'static>(
    flavour: Flavour,
    presence: Presence,
    value: BoxedStrategy<T>,
) -> BoxedStrategy<Field<T>> {
    match (flavour, presence) {
        (Flavour::Pydantic, Presence::Always) => value.prop_map(Field::Present).boxed(),
        (Flavour::Pydantic, Presence::Nullable) => {
            prop_oneof![1 => Just(Field::Null), 2 => value.prop_map(Field::Present)].boxed()
        }
        (Flavour::Pydantic, Presence::Conditional) => {
            prop_oneof![1 => Just(Field::Absent), 2 => value.prop_map(Field::Present)].boxed()
        }
        (Flavour::Pydantic, Presence::ConditionalNullable) => prop_oneof![
            1 => Just(Field::Absent),
            1 => Just(Field::Null),
            2 => value.prop_map(Field::Present),
        ]
        .boxed(),
        (Flavour::Pydantic, Presence::Alias) => Just(Field::Absent).boxed(),
        (Flavour::Any, _) => prop_oneof![
            1 => Just(Field::Absent),
            1 => Just(Field::Null),
            3 => value.prop_map(Field::Present),
        ]
        .boxed(),
    }
}

/// An optional JSON-valued key. `Present(null)` is written as `null` and read back as
/// `Field::Null`, so a JSON null is always generated as `Field::Null`.
fn json_field(flavour: Flavour, presence: Presence, value: BoxedStrategy<RawJson>) -> BoxedStrategy<Field<RawJson>> {
    field(flavour, presence, value)
        .prop_map(|field| match field {
            Field::Present(value) if value.is_null() => Field::Null,
            other => other,
        })
        .boxed()
}

/// A required key whose value may be null (`Option<T>`).
fn required_nullable<T: Clone + Debug + 'static>(
    _flavour: Flavour,
    value: BoxedStrategy<T>,
) -> BoxedStrategy<Option<T>> {
    prop_oneof![1 => Just(None), 2 => value.prop_map(Some)].boxed()
}

/// Maximum length of a list inside a part (citations, excerpts, content items, ...).
const MAX_ITEMS: usize = 3;

/// A list of at most [`MAX_ITEMS`] items.
fn list<T: Clone + Debug + 'static>(item: BoxedStrategy<T>) -> BoxedStrategy<Vec<T>> {
    vec(item, 0..=MAX_ITEMS).boxed()
}

/// Unknown keys (any flavour only): names no schema object uses, so they stay in `extra`.
fn extra(flavour: Flavour) -> BoxedStrategy<Extra> {
    match flavour {
        Flavour::Pydantic => Just(Extra::new()).boxed(),
        Flavour::Any => prop_oneof![
            2 => Just(Extra::new()),
            1 => vec((ident("x_future"), small_json(flavour)), 1..3).prop_map(|entries| {
                let mut extra = Extra::new();
                for (key, value) in entries {
                    extra.insert(key, value);
                }
                extra
            }),
        ]
        .boxed(),
    }
}

/// A string enum: any of its literals, or (any flavour) a value from a newer release.
fn enum_value<T: Clone + Debug + 'static>(
    flavour: Flavour,
    known: &'static [&'static str],
    from_wire: fn(&str) -> T,
) -> BoxedStrategy<T> {
    let known = select(known).prop_map(from_wire);
    match flavour {
        Flavour::Pydantic => known.boxed(),
        Flavour::Any => prop_oneof![4 => known, 1 => ident("future").prop_map(move |value| from_wire(&value))].boxed(),
    }
}

/// A member of a union with `"unknown": "keep"` whose tag `tag_key` is a value no schema
/// version knows, read through the union's own reader (so it is its `Unknown` variant).
fn unknown_tagged<T: DeserializeOwned + Debug + 'static>(tag_key: &'static str, flavour: Flavour) -> BoxedStrategy<T> {
    unknown_object_text(tag_key, flavour)
        .prop_filter_map("an unknown member", |text| parse_json(&text))
        .boxed()
}

/// JSON text of an object with tag `tag_key` = an unknown value and a few other keys.
fn unknown_object_text(tag_key: &'static str, flavour: Flavour) -> BoxedStrategy<String> {
    (ident("hologram"), vec((ident("field"), small_json(flavour)), 0..3))
        .prop_map(move |(tag, entries)| {
            let mut fields = vec![format!("{}:{}", json_string(tag_key), json_string(&tag))];
            let mut seen = HashSet::new();
            for (key, value) in entries {
                if seen.insert(key.clone()) {
                    fields.push(format!("{}:{}", json_string(&key), value.get()));
                }
            }
            fields.rotate_left(1);
            format!("{{{}}}", fields.join(","))
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------------
// Numbers and the runtime scalar types (`x-msgflow-rust-type`)
// ---------------------------------------------------------------------------------------------

/// The parts of a request: at least one in the pydantic flavour, at most [`MAX_PARTS`].
fn request_parts(flavour: Flavour) -> BoxedStrategy<Vec<ModelRequestPart>> {
    vec(generated::model_request_part(flavour), parts_range(flavour)).boxed()
}

/// The parts of a response: at least one in the pydantic flavour, at most [`MAX_PARTS`].
fn response_parts(flavour: Flavour) -> BoxedStrategy<Vec<ModelResponsePart>> {
    vec(generated::model_response_part(flavour), parts_range(flavour)).boxed()
}

fn parts_range(flavour: Flavour) -> std::ops::RangeInclusive<usize> {
    match flavour {
        Flavour::Pydantic => 1..=MAX_PARTS,
        Flavour::Any => 0..=MAX_PARTS,
    }
}

/// A tool call id such as `call_00ab12cd34` (pydantic-ai generates one when it is missing, so
/// the pydantic flavour always sets it; [`history`] then pairs returns with earlier calls).
fn call_id(_flavour: Flavour) -> BoxedStrategy<String> {
    ident("call")
}

/// Tool kinds that do not route a part to a typed subclass in pydantic-ai.
const PLAIN_TOOL_KINDS: &[&str] = &["acme.thing", "mcp_server", "ns.tool"];

/// A `tool_kind`. The kinds of the schema's typed routes (`TYPED_ROUTES`) make pydantic-ai read
/// the part as a narrower class with a stricter shape, so only the any flavour uses them (msgflow
/// keeps such parts in the base struct).
fn tool_kind(flavour: Flavour) -> BoxedStrategy<String> {
    let plain = select(PLAIN_TOOL_KINDS).prop_map(str::to_owned);
    match flavour {
        Flavour::Pydantic => plain.boxed(),
        Flavour::Any => {
            let routed: Vec<&'static str> = ModelRequestPart::TYPED_ROUTES
                .iter()
                .chain(ModelResponsePart::TYPED_ROUTES)
                .map(|route| route.tool_kind)
                .collect();
            prop_oneof![3 => plain, 1 => select(routed).prop_map(str::to_owned)].boxed()
        }
    }
}

/// Tool-call arguments: a JSON object, or a string kept verbatim (even invalid JSON); the any
/// flavour adds other JSON values, which pydantic-ai rejects.
fn tool_args(flavour: Flavour) -> BoxedStrategy<RawJson> {
    let args = prop_oneof![
        3 => raw_object(flavour),
        1 => select(&["{\"a\": 1}", "not json {", "[1,2]", ""][..]).prop_map(RawJson::string),
        1 => text().prop_map(|text| RawJson::string(&text)),
    ];
    match flavour {
        Flavour::Pydantic => args.boxed(),
        Flavour::Any => prop_oneof![4 => args, 1 => small_json(flavour)].boxed(),
    }
}

/// Error details as pydantic-core writes them (`type, loc, msg, input`), or a plain string.
fn error_details(flavour: Flavour) -> BoxedStrategy<RawJson> {
    let detail = (
        select(&["missing", "int_parsing", "value_error"][..]),
        vec(
            prop_oneof![
                text().prop_map(|key| json_string(&key)),
                (0u8..5).prop_map(|n| n.to_string())
            ],
            0..3,
        ),
        text(),
        small_json(Flavour::Pydantic),
    )
        .prop_map(|(kind, loc, msg, input)| {
            format!(
                "{{\"type\":{},\"loc\":[{}],\"msg\":{},\"input\":{}}}",
                json_string(kind),
                loc.join(","),
                json_string(&msg),
                input.get()
            )
        });
    let list = vec(detail, 1..3).prop_filter_map("valid JSON", |items| {
        RawJson::from_json_text(&format!("[{}]", items.join(","))).ok()
    });
    let string = text().prop_map(|text| RawJson::string(&text));
    match flavour {
        Flavour::Pydantic => prop_oneof![list, string].boxed(),
        Flavour::Any => prop_oneof![2 => list, 2 => string, 1 => small_json(flavour)].boxed(),
    }
}

/// `RetryInfo[ToolRetryCause]` (`ToolReturnPart.retry`): pydantic-ai narrows the cause.
fn tool_retry_info(flavour: Flavour) -> BoxedStrategy<RetryInfo> {
    narrowed_retry_info(flavour, crate::TOOL_RETRY_CAUSE_LITERALS)
}

/// `RetryInfo[RetryFeedbackCause]` (`RetryFeedbackPart.retry`): pydantic-ai narrows the cause.
fn feedback_retry_info(flavour: Flavour) -> BoxedStrategy<RetryInfo> {
    narrowed_retry_info(flavour, crate::RETRY_FEEDBACK_CAUSE_LITERALS)
}

fn narrowed_retry_info(flavour: Flavour, causes: &'static [&'static str]) -> BoxedStrategy<RetryInfo> {
    (generated::retry_info(flavour), select(causes))
        .prop_map(move |(mut info, cause)| {
            if flavour == Flavour::Pydantic {
                info.cause = RetryCause::from_wire(cause);
            }
            info
        })
        .boxed()
}

/// The instruction ids pydantic-ai writes back unchanged (an unknown namespace becomes null).
const INSTRUCTION_IDS: &[&str] = &[
    "agent",
    "agent:style",
    "run:extra",
    "toolset:fs",
    "toolset:fs:usage",
    "capability:budget",
    "capability:budget:remaining",
];

/// An instruction id (`InstructionId | None`): a known namespace or null; the any flavour adds any JSON.
fn instruction_id(flavour: Flavour) -> BoxedStrategy<RawJson> {
    let known = select(INSTRUCTION_IDS).prop_map(RawJson::string);
    match flavour {
        Flavour::Pydantic => prop_oneof![3 => known, 1 => Just(RawJson::null())].boxed(),
        Flavour::Any => prop_oneof![3 => known, 1 => Just(RawJson::null()), 1 => small_json(flavour)].boxed(),
    }
}

/// `InstructionPart.part_kind`: always `instruction` (another value would select another block type).
fn instruction_tag(_flavour: Flavour) -> BoxedStrategy<String> {
    Just("instruction".to_owned()).boxed()
}

/// A SHA-256 digest in hex, as `InstructionDigest.content_hash` holds it.
fn content_hash(_flavour: Flavour) -> BoxedStrategy<String> {
    any::<[u8; 32]>()
        .prop_map(|hash| hash.iter().map(|byte| format!("{byte:02x}")).collect())
        .boxed()
}

/// A media type of a binary item (the kinds pydantic-ai's `BinaryContent` subclasses pick on).
fn media_type(_flavour: Flavour) -> BoxedStrategy<String> {
    select(MEDIA_TYPES).prop_map(str::to_owned).boxed()
}

/// A URL of a file item (extensions pydantic-ai infers media types from, and ones it cannot).
fn url(_flavour: Flavour) -> BoxedStrategy<String> {
    select(URLS).prop_map(str::to_owned).boxed()
}

/// An `UploadedFile.file_id` of each provider's shape.
fn file_id(_flavour: Flavour) -> BoxedStrategy<String> {
    select(
        &[
            "file-abc",
            "files/x/report.pdf",
            "gs://b/v.mp4",
            "s3://b/k.csv?versionId=1",
        ][..],
    )
    .prop_map(str::to_owned)
    .boxed()
}

/// `StructuredContent.content`: pydantic-ai trusts a non-empty stored rendering and re-renders
/// an empty one on load, so the pydantic flavour keeps it non-empty.
fn structured_rendering(flavour: Flavour) -> BoxedStrategy<String> {
    match flavour {
        Flavour::Pydantic => non_empty_text(),
        Flavour::Any => text(),
    }
}

/// The computed `media_type` of a file item: pydantic-ai computes it when it is absent (or null),
/// so the pydantic flavour always gives one, as an override it writes back unchanged.
fn computed_media_type(flavour: Flavour) -> BoxedStrategy<Field<String>> {
    computed(flavour, media_type(flavour))
}

/// The computed `identifier` of a file item (see [`computed_media_type`]).
fn computed_identifier(flavour: Flavour) -> BoxedStrategy<Field<String>> {
    computed(flavour, ident("file"))
}

fn computed(flavour: Flavour, value: BoxedStrategy<String>) -> BoxedStrategy<Field<String>> {
    match flavour {
        Flavour::Pydantic => value.prop_map(Field::Present).boxed(),
        Flavour::Any => field(flavour, Presence::Nullable, value),
    }
}

/// `Citation.sources`: pydantic-ai requires at least one.
fn citation_sources(flavour: Flavour) -> BoxedStrategy<Vec<CitationSource>> {
    let least = match flavour {
        Flavour::Pydantic => 1,
        Flavour::Any => 0,
    };
    vec(generated::citation_source(flavour), least..=MAX_ITEMS).boxed()
}

/// A citation anchor's `start`; with [`anchor_end`] pydantic-ai's `0 <= start < end` holds
/// (`_validate_citation_anchor`), touching its boundary at 999 / 1000.
fn anchor_start(flavour: Flavour) -> BoxedStrategy<Int> {
    match flavour {
        Flavour::Pydantic => (0i64..1000).prop_map(Int::from).boxed(),
        Flavour::Any => int(flavour),
    }
}

/// A citation anchor's `end` (see [`anchor_start`]).
fn anchor_end(flavour: Flavour) -> BoxedStrategy<Int> {
    match flavour {
        Flavour::Pydantic => (1000i64..1100).prop_map(Int::from).boxed(),
        Flavour::Any => int(flavour),
    }
}

/// `RequestUsage.unmeasured_requests`: pydantic-ai writes it only when it is not 0.
fn unmeasured_requests(flavour: Flavour) -> BoxedStrategy<Field<Int>> {
    match flavour {
        Flavour::Pydantic => prop_oneof![
            3 => Just(Field::Absent),
            1 => (1i64..5).prop_map(|n| Field::Present(Int::from(n))),
        ]
        .boxed(),
        Flavour::Any => field(flavour, Presence::Nullable, int(flavour)),
    }
}

/// `RequestUsage.details` (`dict[str, int]`).
fn usage_details(flavour: Flavour) -> BoxedStrategy<RawJson> {
    let counts = object_text((0i64..1000).prop_map(|n| n.to_string()).boxed(), Flavour::Pydantic)
        .prop_filter_map("valid JSON", |text| RawJson::from_json_text(&text).ok());
    match flavour {
        Flavour::Pydantic => counts.boxed(),
        Flavour::Any => prop_oneof![3 => counts, 1 => raw_object(flavour)].boxed(),
    }
}

// ---------------------------------------------------------------------------------------------
// The public strategies
// ---------------------------------------------------------------------------------------------

/// One user content item (a string, text, structured content, a file item or a cache point;
/// the any flavour adds items of unknown kinds).
pub fn user_content(flavour: Flavour) -> BoxedStrategy<UserContent> {
    generated::user_content(flavour)
}

/// One request part. The pydantic flavour covers every part pydantic-ai 2.68.0 writes (not the
/// legacy `retry-prompt`, which it translates on load); the any flavour adds `retry-prompt`
/// and parts of unknown kinds.
pub fn request_part(flavour: Flavour) -> BoxedStrategy<ModelRequestPart> {
    generated::model_request_part(flavour)
}

/// One response part. The pydantic flavour covers every part pydantic-ai 2.68.0 writes; the
/// any flavour adds parts of unknown kinds.
pub fn response_part(flavour: Flavour) -> BoxedStrategy<ModelResponsePart> {
    generated::model_response_part(flavour)
}

/// A request message.
pub fn request(flavour: Flavour) -> BoxedStrategy<ModelRequest> {
    generated::model_request(flavour)
}

/// A response message.
pub fn response(flavour: Flavour) -> BoxedStrategy<ModelResponse> {
    generated::model_response(flavour)
}

/// A request or a response.
pub fn message(flavour: Flavour) -> BoxedStrategy<ModelMessage> {
    generated::model_message(flavour)
}

/// A history of at most [`MAX_MESSAGES`] messages (any order of requests and responses:
/// pydantic-ai's loader does not require alternation). Tool returns answer earlier calls: each
/// `tool-return` takes the id and tool name of the oldest unanswered `tool-call` before it when
/// there is one, so histories have answered, dangling and orphaned calls alike.
pub fn history(flavour: Flavour) -> BoxedStrategy<Vec<ModelMessage>> {
    vec(message(flavour), 0..MAX_MESSAGES + 1)
        .prop_map(pair_tool_calls)
        .boxed()
}

/// Gives each tool return the id and name of the oldest unanswered tool call before it.
fn pair_tool_calls(mut messages: Vec<ModelMessage>) -> Vec<ModelMessage> {
    let mut open: std::collections::VecDeque<(Field<String>, String)> = std::collections::VecDeque::new();
    for message in &mut messages {
        match message {
            ModelMessage::Response(response) => {
                for part in &response.parts {
                    if let ModelResponsePart::ToolCall(call) = part {
                        open.push_back((call.tool_call_id.clone(), call.tool_name.clone()));
                    }
                }
            }
            ModelMessage::Request(request) => {
                for part in &mut request.parts {
                    if let ModelRequestPart::ToolReturn(tool_return) = part {
                        if let Some((id, name)) = open.pop_front() {
                            tool_return.tool_call_id = id;
                            tool_return.tool_name = name;
                        }
                    }
                }
            }
        }
    }
    messages
}
