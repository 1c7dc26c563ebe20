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

/// Which values a strategy generates (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// Exactly what pydantic-ai 2.68.0 writes: every key present, only values it writes back unchanged.
    Pydantic,
    /// Anything msgflow must keep losslessly: absent keys, nulls, unknown keys, parts, content items and values.
    Any,
}

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

/// ISO 8601 durations in the form pydantic-ai writes them.
const DURATIONS: &[&str] = &["PT1.5S", "PT0S", "P1DT1H1M1.000005S", "-PT1S", "PT2S", "P1D"];

/// Tool kinds that do not route a part to a typed subclass in pydantic-ai.
const PLAIN_TOOL_KINDS: &[&str] = &["acme.thing", "mcp_server", "ns.tool"];

/// Number spellings pydantic-ai would rewrite but msgflow keeps as written.
const ODD_NUMBERS: &[&str] = &[
    "1E5",
    "1.50",
    "-0",
    "0e0",
    "1e400",
    "-1e-400",
    "12345678901234567890123",
    "0.1e+2",
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

/// A datetime: in the pydantic flavour as pydantic-ai writes it (`Z`, `+05:30` or naive; 0 or 6
/// fractional digits); the any flavour adds spellings pydantic-ai normalises.
pub fn timestamp(flavour: Flavour) -> BoxedStrategy<Timestamp> {
    let offset = prop_oneof![
        3 => Just(Some(0)),
        1 => Just(None),
        2 => (-1439i32..=1439).prop_map(Some),
    ];
    let micro = prop_oneof![Just(0u32), 0u32..1_000_000];
    let canonical = (
        1i32..=9999,
        1u8..=12,
        1u8..=28,
        0u8..24,
        0u8..60,
        0u8..60,
        micro,
        offset,
    )
        .prop_map(
            |(year, month, day, hour, minute, second, microsecond, offset_minutes)| {
                Timestamp::from_parts(TimestampParts {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    microsecond,
                    offset_minutes,
                })
            },
        )
        .boxed();
    match flavour {
        Flavour::Pydantic => canonical,
        Flavour::Any => {
            let odd_text = select(
                &[
                    "2025-01-02 03:04:05",
                    "2025-01-02T03:04:05.123456789Z",
                    "2025-01-02",
                    "2025-01-02T03:04:05+00:00",
                    "2025-01-02t03:04:05z",
                    "2025-01-02T03:04:05.5-08:00",
                    "1700000000",
                ][..],
            )
            .prop_filter_map("a datetime msgflow accepts", |text| Timestamp::parse(text).ok());
            let number = select(&["1700000000", "1700000000.5"][..])
                .prop_filter_map("a Unix time msgflow accepts", |text| {
                    serde_json::from_str::<Timestamp>(text).ok()
                });
            prop_oneof![6 => canonical, 2 => odd_text, 1 => number].boxed()
        }
    }
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

/// An optional key: pydantic writes it always (present, or null when `nullable`); the any
/// flavour also leaves it out.
fn field<T: Clone + Debug + 'static>(
    flavour: Flavour,
    nullable: bool,
    value: BoxedStrategy<T>,
) -> BoxedStrategy<Field<T>> {
    match (flavour, nullable) {
        (Flavour::Pydantic, false) => value.prop_map(Field::Present).boxed(),
        (Flavour::Pydantic, true) => prop_oneof![1 => Just(Field::Null), 2 => value.prop_map(Field::Present)].boxed(),
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
fn json_field(flavour: Flavour, nullable: bool, value: BoxedStrategy<RawJson>) -> BoxedStrategy<Field<RawJson>> {
    field(flavour, nullable, value)
        .prop_map(|field| match field {
            Field::Present(value) if value.is_null() => Field::Null,
            other => other,
        })
        .boxed()
}

fn nullable_text(flavour: Flavour) -> BoxedStrategy<Field<String>> {
    field(flavour, true, text())
}

fn nullable_object(flavour: Flavour) -> BoxedStrategy<Field<RawJson>> {
    json_field(flavour, true, raw_object(flavour))
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

/// A string enum: a known value, or (any flavour) a value from a newer release.
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

fn small_int(flavour: Flavour) -> BoxedStrategy<Int> {
    let plain = (0i64..100_000).prop_map(Int::from);
    match flavour {
        Flavour::Pydantic => plain.boxed(),
        Flavour::Any => prop_oneof![
            4 => plain,
            1 => any::<i64>().prop_map(Int::from),
            1 => select(&["5.0", "\"7\"", "-3.0"][..])
                .prop_filter_map("an integer msgflow reads", |text| serde_json::from_str::<Int>(text).ok()),
        ]
        .boxed(),
    }
}

fn float(flavour: Flavour) -> BoxedStrategy<Float> {
    let plain = prop_oneof![
        Just(0.0),
        0.0f64..1e6,
        any::<f64>().prop_filter("finite", |value| value.is_finite())
    ]
    .prop_map(Float::from);
    match flavour {
        Flavour::Pydantic => plain.boxed(),
        Flavour::Any => prop_oneof![
            4 => plain,
            1 => select(&["0", "1E16", "\"2.5\"", "1.50"][..])
                .prop_filter_map("a float msgflow reads", |text| serde_json::from_str::<Float>(text).ok()),
        ]
        .boxed(),
    }
}

/// Parses a value with the crate's own deserialiser (used to build values, such as unknown
/// parts, whose fields are only reachable through parsing).
fn parse_json<T: DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_str(text).ok()
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
// Nested types
// ---------------------------------------------------------------------------------------------

fn retry_info(flavour: Flavour, causes: &'static [&'static str]) -> BoxedStrategy<RetryInfo> {
    (
        enum_value(flavour, causes, RetryCause::from_wire),
        field(flavour, true, small_int(flavour)),
        field(flavour, true, small_int(flavour)),
        extra(flavour),
    )
        .prop_map(|(cause, attempt, max_retries, extra)| {
            let mut info = RetryInfo::new(cause);
            info.attempt = attempt;
            info.max_retries = max_retries;
            info.extra = extra;
            info
        })
        .boxed()
}

const TOOL_RETRY_CAUSES: &[&str] = &["validation_error", "model_retry", "unknown_tool", "unavailable_tool"];
const FEEDBACK_RETRY_CAUSES: &[&str] = &["validation_error", "no_output", "model_retry"];

fn usage(flavour: Flavour) -> BoxedStrategy<RequestUsage> {
    let counter = || field(flavour, false, small_int(flavour));
    let counters = (
        counter(),
        counter(),
        counter(),
        counter(),
        counter(),
        counter(),
        counter(),
        counter(),
        counter(),
    );
    let unmeasured = match flavour {
        // pydantic-ai writes unmeasured_requests only when it is not 0.
        Flavour::Pydantic => prop_oneof![
            3 => Just(Field::Absent),
            1 => (1i64..5).prop_map(|n| Field::Present(Int::from(n))),
        ]
        .boxed(),
        Flavour::Any => field(flavour, true, small_int(flavour)),
    };
    let legacy = match flavour {
        Flavour::Pydantic => Just((Field::Absent, Field::Absent)).boxed(),
        Flavour::Any => (
            field(flavour, true, small_int(flavour)),
            field(flavour, true, small_int(flavour)),
        )
            .boxed(),
    };
    let details = object_text((0i64..1000).prop_map(|n| n.to_string()).boxed(), Flavour::Pydantic)
        .prop_filter_map("valid JSON", |text| RawJson::from_json_text(&text).ok())
        .boxed();
    let cost = (0u32..1000, 0u32..1_000_000, 0usize..7).prop_map(|(whole, fraction, width)| {
        if width == 0 {
            Decimal::new(&whole.to_string())
        } else {
            let digits = format!("{fraction:06}");
            Decimal::new(&format!("{whole}.{}", digits.get(..width).unwrap_or(&digits)))
        }
    });
    (
        counters,
        unmeasured,
        legacy,
        field(flavour, false, float(flavour)),
        field(flavour, false, details),
        field(flavour, true, cost.boxed()),
        extra(flavour),
    )
        .prop_map(
            |(
                counters,
                unmeasured_requests,
                (request_tokens, response_tokens),
                audio_seconds,
                details,
                cost,
                extra,
            )| {
                let (
                    input,
                    cache_write,
                    cache_write_1h,
                    cache_read,
                    output,
                    reasoning,
                    input_audio,
                    cache_audio,
                    output_audio,
                ) = counters;
                let mut usage = RequestUsage::new();
                usage.input_tokens = input;
                usage.request_tokens = request_tokens;
                usage.cache_write_tokens = cache_write;
                usage.cache_write_1h_tokens = cache_write_1h;
                usage.cache_read_tokens = cache_read;
                usage.output_tokens = output;
                usage.response_tokens = response_tokens;
                usage.unmeasured_requests = unmeasured_requests;
                usage.output_reasoning_tokens = reasoning;
                usage.input_audio_tokens = input_audio;
                usage.cache_audio_read_tokens = cache_audio;
                usage.output_audio_tokens = output_audio;
                usage.audio_seconds = audio_seconds;
                usage.details = details;
                usage.cost = cost;
                usage.extra = extra;
                usage
            },
        )
        .boxed()
}

fn duration(flavour: Flavour) -> BoxedStrategy<Duration> {
    let iso = select(DURATIONS).prop_map(Duration::iso8601);
    match flavour {
        Flavour::Pydantic => iso.boxed(),
        Flavour::Any => prop_oneof![
            3 => iso,
            1 => select(&["1.5", "\"00:00:01.5\"", "0"][..])
                .prop_filter_map("a duration msgflow reads", parse_json::<Duration>),
        ]
        .boxed(),
    }
}

fn failed_attempt(flavour: Flavour) -> BoxedStrategy<ModelRequestAttempt> {
    (
        text(),
        nullable_text(flavour),
        enum_value(
            flavour,
            ModelRequestAttemptOutcome::KNOWN,
            ModelRequestAttemptOutcome::from_wire,
        ),
        nullable_text(flavour),
        timestamp(flavour),
        duration(flavour),
        field(flavour, true, usage(flavour)),
        extra(flavour),
    )
        .prop_map(
            |(model_name, provider_name, outcome, error, timestamp, duration, usage, extra)| {
                let mut attempt = ModelRequestAttempt::new(model_name, outcome, timestamp, duration);
                attempt.provider_name = provider_name;
                attempt.error = error;
                attempt.usage = usage;
                attempt.extra = extra;
                attempt
            },
        )
        .boxed()
}

fn citation(flavour: Flavour) -> BoxedStrategy<Citation> {
    let excerpts = || field(flavour, false, vec(text(), 0..3).boxed());
    let web =
        (select(URLS), nullable_text(flavour), excerpts(), extra(flavour)).prop_map(|(url, title, excerpts, extra)| {
            let mut source = WebCitationSource::new(url.to_owned());
            source.title = title;
            source.excerpts = excerpts;
            source.extra = extra;
            CitationSource::Web(source)
        });
    // pydantic-ai requires one of document_id, title, excerpts: the pydantic flavour always sets the id.
    let document = (
        field(flavour, false, ident("doc")),
        nullable_text(flavour),
        excerpts(),
        extra(flavour),
    )
        .prop_map(|(document_id, title, excerpts, extra)| {
            let mut source = DocumentCitationSource::new();
            source.document_id = document_id;
            source.title = title;
            source.excerpts = excerpts;
            source.extra = extra;
            CitationSource::Document(source)
        });
    let source = match flavour {
        Flavour::Pydantic => prop_oneof![web, document].boxed(),
        Flavour::Any => prop_oneof![
            2 => web,
            2 => document,
            1 => unknown_object_text("kind", flavour).prop_filter_map("an unknown source", |text| parse_json(&text)),
        ]
        .boxed(),
    };
    // pydantic-ai requires 0 <= start < end.
    let anchor = (any::<bool>(), 0i64..1000, 1i64..100, extra(flavour)).prop_map(|(content, start, length, extra)| {
        if content {
            let mut anchor = ContentCitationAnchor::new(Int::from(start), Int::from(start + length));
            anchor.extra = extra;
            CitationAnchor::Content(anchor)
        } else {
            let mut anchor = MarkerCitationAnchor::new(Int::from(start), Int::from(start + length));
            anchor.extra = extra;
            CitationAnchor::Marker(anchor)
        }
    });
    (vec(source, 1..3), field(flavour, true, anchor.boxed()), extra(flavour))
        .prop_map(|(sources, anchor, extra)| {
            let mut citation = Citation::new(sources);
            citation.anchor = anchor;
            citation.extra = extra;
            citation
        })
        .boxed()
}

fn speech_timestamp(flavour: Flavour) -> BoxedStrategy<SpeechTimestamp> {
    (
        text(),
        small_int(flavour),
        small_int(flavour),
        field(
            flavour,
            false,
            enum_value(
                flavour,
                SpeechTimestampGranularity::KNOWN,
                SpeechTimestampGranularity::from_wire,
            ),
        ),
        extra(flavour),
    )
        .prop_map(|(text, start_ms, duration_ms, granularity, extra)| {
            let mut stamp = SpeechTimestamp::new(text, start_ms, duration_ms);
            stamp.granularity = granularity;
            stamp.extra = extra;
            stamp
        })
        .boxed()
}

fn instruction_id(flavour: Flavour) -> BoxedStrategy<RawJson> {
    let known = select(INSTRUCTION_IDS).prop_map(RawJson::string);
    match flavour {
        Flavour::Pydantic => prop_oneof![3 => known, 1 => Just(RawJson::null())].boxed(),
        Flavour::Any => prop_oneof![3 => known, 1 => Just(RawJson::null()), 1 => small_json(flavour)].boxed(),
    }
}

fn instruction_block(flavour: Flavour) -> BoxedStrategy<InstructionBlock> {
    let on_change = enum_value(
        flavour,
        InstructionChangePolicy::KNOWN,
        InstructionChangePolicy::from_wire,
    );
    let tag = match flavour {
        Flavour::Pydantic => Just(Field::Present("instruction".to_owned())).boxed(),
        // A block without `part_kind` is read as an instruction.
        Flavour::Any => prop_oneof![Just(Field::Present("instruction".to_owned())), Just(Field::Absent)].boxed(),
    };
    let instruction = (
        text(),
        field(flavour, false, any::<bool>().boxed()),
        field(flavour, false, on_change),
        nullable_text(flavour),
        json_field(flavour, true, instruction_id(flavour)),
        tag,
        extra(flavour),
    )
        .prop_map(|(content, dynamic, on_change, name, id, part_kind, extra)| {
            let mut block = InstructionPart::new(content);
            block.dynamic = dynamic;
            block.on_change = on_change;
            block.name = name;
            block.id = id;
            block.part_kind = part_kind;
            block.extra = extra;
            InstructionBlock::Instruction(block)
        });
    let digest = (
        json_field(flavour, true, instruction_id(flavour)),
        field(flavour, false, any::<bool>().boxed()),
        any::<[u8; 32]>(),
        extra(flavour),
    )
        .prop_map(|(id, dynamic, hash, extra)| {
            let mut block = InstructionDigest::new(hash.iter().map(|byte| format!("{byte:02x}")).collect());
            block.id = id;
            block.dynamic = dynamic;
            block.extra = extra;
            InstructionBlock::InstructionDigest(block)
        });
    prop_oneof![2 => instruction, 1 => digest].boxed()
}

// ---------------------------------------------------------------------------------------------
// User content
// ---------------------------------------------------------------------------------------------

fn force_download(flavour: Flavour) -> BoxedStrategy<ForceDownload> {
    let known = prop_oneof![
        Just(ForceDownload::No),
        Just(ForceDownload::Yes),
        Just(ForceDownload::AllowLocal)
    ];
    match flavour {
        Flavour::Pydantic => known.boxed(),
        Flavour::Any => prop_oneof![
            4 => known,
            1 => select(&["\"yes\"", "1", "\"off\""][..])
                .prop_filter_map("a coercible value", |text| RawJson::from_json_text(text).ok().map(ForceDownload::Other)),
        ]
        .boxed(),
    }
}

/// `media_type` and `identifier` of a file item: pydantic-ai computes them when absent, so the
/// pydantic flavour always gives them (as overrides pydantic-ai writes back unchanged).
fn computed_text(flavour: Flavour, value: BoxedStrategy<String>) -> BoxedStrategy<Field<String>> {
    match flavour {
        Flavour::Pydantic => value.prop_map(Field::Present).boxed(),
        Flavour::Any => field(flavour, true, value),
    }
}

fn base64_data(flavour: Flavour) -> BoxedStrategy<Base64Data> {
    let canonical = vec(any::<u8>(), 0..24).prop_map(|bytes| Base64Data::from_bytes(&bytes));
    match flavour {
        Flavour::Pydantic => canonical.boxed(),
        Flavour::Any => prop_oneof![
            4 => canonical,
            1 => select(&["+/8", "+/8=", "AAEC", "YQ", ""][..]).prop_filter_map("valid base64", |text| Base64Data::parse(text).ok()),
        ]
        .boxed(),
    }
}

fn binary_content(flavour: Flavour, media_types: &'static [&'static str]) -> BoxedStrategy<BinaryContent> {
    (
        base64_data(flavour),
        select(media_types),
        nullable_object(flavour),
        computed_text(flavour, ident("bin")),
        extra(flavour),
    )
        .prop_map(|(data, media_type, vendor_metadata, identifier, extra)| {
            let mut content = BinaryContent::new(data, media_type.to_owned());
            content.vendor_metadata = vendor_metadata;
            content.identifier = identifier;
            content.extra = extra;
            content
        })
        .boxed()
}

/// The fields shared by the four URL items.
type UrlFields = (
    String,
    Field<ForceDownload>,
    Field<RawJson>,
    Field<String>,
    Field<String>,
    Extra,
);

fn url_fields(flavour: Flavour) -> BoxedStrategy<UrlFields> {
    (
        select(URLS).prop_map(str::to_owned),
        field(flavour, false, force_download(flavour)),
        nullable_object(flavour),
        computed_text(flavour, select(MEDIA_TYPES).prop_map(str::to_owned).boxed()),
        computed_text(flavour, ident("file")),
        extra(flavour),
    )
        .boxed()
}

macro_rules! url_item {
    ($fields:expr, $ty:ident, $variant:ident) => {{
        let (url, force_download, vendor_metadata, media_type, identifier, extra) = $fields;
        let mut item = $ty::new(url);
        item.force_download = force_download;
        item.vendor_metadata = vendor_metadata;
        item.media_type = media_type;
        item.identifier = identifier;
        item.extra = extra;
        UserContent::$variant(item)
    }};
}

/// One user content item (a string, text, structured content, a file item or a cache point;
/// the any flavour adds items of unknown kinds).
pub fn user_content(flavour: Flavour) -> BoxedStrategy<UserContent> {
    let text_item = text().prop_map(UserContent::Text);
    let text_content = (text(), json_field(flavour, true, small_json(flavour)), extra(flavour)).prop_map(
        |(content, metadata, extra)| {
            let mut item = TextContent::new(content);
            item.metadata = metadata;
            item.extra = extra;
            UserContent::TextContent(item)
        },
    );
    // pydantic-ai trusts a non-empty stored rendering; an empty one is re-rendered on load.
    let rendered = match flavour {
        Flavour::Pydantic => non_empty_text().prop_map(Field::Present).boxed(),
        Flavour::Any => field(flavour, false, text()),
    };
    let structured = (
        rendered,
        json_field(flavour, true, small_json(flavour)),
        small_json(flavour),
        nullable_text(flavour),
        nullable_text(flavour),
        extra(flavour),
    )
        .prop_map(|(content, metadata, value, tag, description, extra)| {
            let mut item = StructuredContent::new(value);
            item.content = content;
            item.metadata = metadata;
            item.tag = tag;
            item.description = description;
            item.extra = extra;
            UserContent::StructuredContent(item)
        });
    let url = (0u8..4, url_fields(flavour)).prop_map(|(which, fields)| match which {
        0 => url_item!(fields, ImageUrl, ImageUrl),
        1 => url_item!(fields, AudioUrl, AudioUrl),
        2 => url_item!(fields, VideoUrl, VideoUrl),
        _ => url_item!(fields, DocumentUrl, DocumentUrl),
    });
    let binary = binary_content(flavour, MEDIA_TYPES).prop_map(UserContent::Binary);
    let uploaded = (
        select(
            &[
                "file-abc",
                "files/x/report.pdf",
                "gs://b/v.mp4",
                "s3://b/k.csv?versionId=1",
            ][..],
        ),
        enum_value(
            flavour,
            UploadedFileProviderName::KNOWN,
            UploadedFileProviderName::from_wire,
        ),
        nullable_object(flavour),
        computed_text(flavour, select(MEDIA_TYPES).prop_map(str::to_owned).boxed()),
        computed_text(flavour, ident("up")),
        extra(flavour),
    )
        .prop_map(
            |(file_id, provider_name, vendor_metadata, media_type, identifier, extra)| {
                let mut item = UploadedFile::new(file_id.to_owned(), provider_name);
                item.vendor_metadata = vendor_metadata;
                item.media_type = media_type;
                item.identifier = identifier;
                item.extra = extra;
                UserContent::UploadedFile(item)
            },
        );
    let cache_point = (
        field(
            flavour,
            false,
            enum_value(flavour, CachePointTtl::KNOWN, CachePointTtl::from_wire),
        ),
        extra(flavour),
    )
        .prop_map(|(ttl, extra)| {
            let mut item = CachePoint::new();
            item.ttl = ttl;
            item.extra = extra;
            UserContent::CachePoint(item)
        });
    let known = prop_oneof![
        3 => text_item,
        2 => text_content,
        2 => structured,
        3 => url,
        1 => binary,
        1 => uploaded,
        1 => cache_point,
    ];
    match flavour {
        Flavour::Pydantic => known.boxed(),
        Flavour::Any => prop_oneof![
            8 => known,
            1 => unknown_object_text("kind", flavour).prop_filter_map("an unknown item", |text| parse_json(&text)),
        ]
        .boxed(),
    }
}

// ---------------------------------------------------------------------------------------------
// Request parts
// ---------------------------------------------------------------------------------------------

/// Tool-return content: any JSON; the pydantic flavour also records `content_file_digests`
/// exactly when pydantic-ai writes it (`[]` for objects and arrays, absent for scalars).
fn tool_output(flavour: Flavour) -> BoxedStrategy<(RawJson, Field<Vec<String>>)> {
    let content = prop_oneof![2 => text().prop_map(|text| RawJson::string(&text)), 3 => small_json(flavour)];
    match flavour {
        Flavour::Pydantic => content
            .prop_map(|content| {
                let digests = if content.is_object() || content.is_array() {
                    Field::Present(Vec::new())
                } else {
                    Field::Absent
                };
                (content, digests)
            })
            .boxed(),
        Flavour::Any => (content, field(flavour, false, vec(ident("sha"), 0..2).boxed())).boxed(),
    }
}

fn tool_kind(flavour: Flavour) -> BoxedStrategy<Field<String>> {
    let plain = select(PLAIN_TOOL_KINDS).prop_map(str::to_owned).boxed();
    match flavour {
        Flavour::Pydantic => field(flavour, true, plain),
        // The registered kinds route parts to typed subclasses in pydantic-ai; msgflow keeps them in the base struct.
        Flavour::Any => field(
            flavour,
            true,
            prop_oneof![3 => plain, 1 => select(&["tool-search", "capability-load"][..]).prop_map(str::to_owned)]
                .boxed(),
        ),
    }
}

fn tool_return(flavour: Flavour) -> BoxedStrategy<ToolReturnPart> {
    (
        (
            text(),
            tool_output(flavour),
            field(flavour, false, ident("call")),
            tool_kind(flavour),
        ),
        (
            json_field(flavour, true, small_json(flavour)),
            field(flavour, false, timestamp(flavour)),
            field(
                flavour,
                false,
                enum_value(flavour, ToolReturnOutcome::KNOWN, ToolReturnOutcome::from_wire),
            ),
            field(flavour, true, retry_info(flavour, TOOL_RETRY_CAUSES)),
            extra(flavour),
        ),
    )
        .prop_map(
            |(
                (tool_name, (content, digests), tool_call_id, tool_kind),
                (metadata, timestamp, outcome, retry, extra),
            )| {
                let mut part = ToolReturnPart::new(tool_name, content);
                part.tool_call_id = tool_call_id;
                part.tool_kind = tool_kind;
                part.metadata = metadata;
                part.timestamp = timestamp;
                part.outcome = outcome;
                part.retry = retry;
                part.content_file_digests = digests;
                part.extra = extra;
                part
            },
        )
        .boxed()
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

fn speech(flavour: Flavour, speaker: &'static str) -> BoxedStrategy<SpeechPart> {
    // pydantic-ai sets the provider fields only on the assistant's speech.
    let provider = |value: BoxedStrategy<Field<String>>| -> BoxedStrategy<Field<String>> {
        if speaker == "assistant" || flavour == Flavour::Any {
            value
        } else {
            Just(Field::Null).boxed()
        }
    };
    let details = if speaker == "assistant" || flavour == Flavour::Any {
        nullable_object(flavour)
    } else {
        Just(Field::Null).boxed()
    };
    let speaker_value = match flavour {
        Flavour::Pydantic => Just(Speaker::from_wire(speaker)).boxed(),
        Flavour::Any => enum_value(flavour, Speaker::KNOWN, Speaker::from_wire),
    };
    (
        (
            speaker_value,
            nullable_text(flavour),
            field(flavour, true, binary_content(flavour, &["audio/pcm", "audio/wav"])),
        ),
        (
            field(flavour, true, small_int(flavour)),
            field(flavour, true, vec(speech_timestamp(flavour), 0..3).boxed()),
            provider(field(flavour, true, ident("sp"))),
            provider(field(
                flavour,
                true,
                select(&["openai", "google"][..]).prop_map(str::to_owned).boxed(),
            )),
            details,
            extra(flavour),
        ),
    )
        .prop_map(
            |(
                (speaker, transcript, audio),
                (interrupted_at_ms, timestamps, id, provider_name, provider_details, extra),
            )| {
                let mut part = SpeechPart::new(speaker);
                part.transcript = transcript;
                part.audio = audio;
                part.interrupted_at_ms = interrupted_at_ms;
                part.timestamps = timestamps;
                part.id = id;
                part.provider_name = provider_name;
                part.provider_details = provider_details;
                part.extra = extra;
                part
            },
        )
        .boxed()
}

fn compaction(flavour: Flavour, in_request: bool) -> BoxedStrategy<CompactionPart> {
    // pydantic-ai requires the provider fields to be null in a request.
    let request_pydantic = in_request && flavour == Flavour::Pydantic;
    let id = if request_pydantic {
        Just(Field::Null).boxed()
    } else {
        nullable_text(flavour)
    };
    let provider_name = if request_pydantic {
        Just(Field::Null).boxed()
    } else {
        nullable_text(flavour)
    };
    let provider_details = if request_pydantic {
        Just(Field::Null).boxed()
    } else {
        nullable_object(flavour)
    };
    (
        nullable_text(flavour),
        id,
        provider_name,
        provider_details,
        nullable_object(flavour),
        extra(flavour),
    )
        .prop_map(|(content, id, provider_name, provider_details, metadata, extra)| {
            let mut part = CompactionPart::new();
            part.content = content;
            part.id = id;
            part.provider_name = provider_name;
            part.provider_details = provider_details;
            part.metadata = metadata;
            part.extra = extra;
            part
        })
        .boxed()
}

/// One request part. The pydantic flavour covers every part pydantic-ai 2.68.0 writes (not the
/// legacy `retry-prompt`, which it translates on load); the any flavour adds `retry-prompt`
/// and parts of unknown kinds.
pub fn request_part(flavour: Flavour) -> BoxedStrategy<ModelRequestPart> {
    let system = (
        text(),
        field(flavour, false, timestamp(flavour)),
        nullable_text(flavour),
        nullable_text(flavour),
        field(
            flavour,
            false,
            enum_value(flavour, SystemPromptScope::KNOWN, SystemPromptScope::from_wire),
        ),
        nullable_object(flavour),
        extra(flavour),
    )
        .prop_map(
            |(content, timestamp, dynamic_ref, context_id, scope, metadata, extra)| {
                let mut part = SystemPromptPart::new(content);
                part.timestamp = timestamp;
                part.dynamic_ref = dynamic_ref;
                part.context_id = context_id;
                part.scope = scope;
                part.metadata = metadata;
                part.extra = extra;
                ModelRequestPart::SystemPrompt(part)
            },
        );
    let content = prop_oneof![
        text().prop_map(UserPromptContent::Text),
        vec(user_content(flavour), 0..5).prop_map(UserPromptContent::Items),
    ];
    let user =
        (content, field(flavour, false, timestamp(flavour)), extra(flavour)).prop_map(|(content, timestamp, extra)| {
            let mut part = UserPromptPart::new(content);
            part.timestamp = timestamp;
            part.extra = extra;
            ModelRequestPart::UserPrompt(part)
        });
    let retry_feedback = (
        error_details(flavour),
        retry_info(flavour, FEEDBACK_RETRY_CAUSES),
        field(flavour, false, timestamp(flavour)),
        extra(flavour),
    )
        .prop_map(|(content, retry, timestamp, extra)| {
            let mut part = RetryFeedbackPart::new(content, retry);
            part.timestamp = timestamp;
            part.extra = extra;
            ModelRequestPart::RetryFeedback(part)
        });
    let legacy_added = match flavour {
        Flavour::Pydantic => Just(Field::Absent).boxed(),
        Flavour::Any => prop_oneof![3 => Just(Field::Absent), 1 => vec(text(), 0..2).prop_map(Field::Present)].boxed(),
    };
    let availability = (
        field(flavour, false, vec(text(), 0..3).boxed()),
        legacy_added,
        field(flavour, true, ident("call")),
        extra(flavour),
    )
        .prop_map(|(tools_added, added, tool_call_id, extra)| {
            let mut part = ToolAvailabilityDeltaPart::new();
            part.tools_added = tools_added;
            part.added = added;
            part.tool_call_id = tool_call_id;
            part.extra = extra;
            ModelRequestPart::ToolAvailabilityDelta(part)
        });
    let capability = (
        field(flavour, false, vec(text(), 0..3).boxed()),
        field(flavour, true, ident("call")),
        extra(flavour),
    )
        .prop_map(|(loaded, tool_call_id, extra)| {
            let mut part = CapabilityLoadDeltaPart::new();
            part.loaded = loaded;
            part.tool_call_id = tool_call_id;
            part.extra = extra;
            ModelRequestPart::CapabilityLoadDelta(part)
        });
    // `settings` is a TypedDict: leaving `thinking` out is valid in pydantic-ai too.
    let thinking = prop_oneof![
        1 => Just(Field::Absent),
        1 => Just(Field::Null),
        3 => enum_value(flavour, ThinkingEffort::KNOWN, ThinkingEffort::from_wire).prop_map(Field::Present),
    ];
    let settings = (
        thinking,
        extra(flavour),
        field(flavour, false, any::<bool>().boxed()),
        extra(flavour),
    )
        .prop_map(|(thinking, settings_extra, top_level, extra)| {
            let mut settings = RecordedModelSettings::new();
            settings.thinking = thinking;
            settings.extra = settings_extra;
            let mut part = ModelSettingsDeltaPart::new(settings);
            part.top_level = top_level;
            part.extra = extra;
            ModelRequestPart::ModelSettingsDelta(part)
        });
    let instruction_delta = (
        instruction_id(flavour),
        proptest::option::of(text()),
        nullable_text(flavour),
        extra(flavour),
    )
        .prop_map(|(id, content, base_hash, extra)| {
            let mut part = InstructionDeltaPart::new(id, content);
            part.base_hash = base_hash;
            part.extra = extra;
            ModelRequestPart::InstructionDelta(part)
        });
    let baseline = (vec(instruction_block(flavour), 0..3), extra(flavour)).prop_map(|(instructions, extra)| {
        let mut part = InstructionBaselinePart::new(instructions);
        part.extra = extra;
        ModelRequestPart::InstructionBaseline(part)
    });
    let known = prop_oneof![
        2 => system,
        4 => user,
        1 => speech(flavour, "user").prop_map(ModelRequestPart::Speech),
        4 => tool_return(flavour).prop_map(ModelRequestPart::ToolReturn),
        1 => retry_feedback,
        1 => availability,
        1 => capability,
        1 => settings,
        1 => instruction_delta,
        1 => baseline,
        1 => compaction(flavour, true).prop_map(ModelRequestPart::Compaction),
    ];
    match flavour {
        Flavour::Pydantic => known.boxed(),
        Flavour::Any => {
            let retry_prompt = (
                error_details(flavour),
                nullable_text(flavour),
                field(flavour, false, ident("call")),
                field(flavour, false, timestamp(flavour)),
                extra(flavour),
            )
                .prop_map(|(content, tool_name, tool_call_id, timestamp, extra)| {
                    let mut part = RetryPromptPart::new(content);
                    part.tool_name = tool_name;
                    part.tool_call_id = tool_call_id;
                    part.timestamp = timestamp;
                    part.extra = extra;
                    ModelRequestPart::RetryPrompt(part)
                });
            prop_oneof![
                16 => known,
                1 => retry_prompt,
                1 => unknown_object_text("part_kind", flavour).prop_filter_map("an unknown part", |text| parse_json(&text)),
            ]
            .boxed()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Response parts
// ---------------------------------------------------------------------------------------------

/// Tool-call arguments: a JSON object, a string kept verbatim (even invalid JSON) or null.
fn tool_args(flavour: Flavour) -> BoxedStrategy<Field<RawJson>> {
    let args = prop_oneof![
        3 => raw_object(flavour),
        1 => select(&["{\"a\": 1}", "not json {", "[1,2]", ""][..]).prop_map(RawJson::string),
        1 => text().prop_map(|text| RawJson::string(&text)),
    ];
    match flavour {
        Flavour::Pydantic => json_field(flavour, true, args.boxed()),
        Flavour::Any => json_field(flavour, true, prop_oneof![4 => args, 1 => small_json(flavour)].boxed()),
    }
}

type CallFields = (
    String,
    Field<RawJson>,
    Field<String>,
    Field<String>,
    Field<String>,
    Field<String>,
    Field<RawJson>,
    Extra,
);

fn call_fields(flavour: Flavour) -> BoxedStrategy<CallFields> {
    (
        text(),
        tool_args(flavour),
        field(flavour, false, ident("call")),
        tool_kind(flavour),
        nullable_text(flavour),
        nullable_text(flavour),
        nullable_object(flavour),
        extra(flavour),
    )
        .boxed()
}

macro_rules! call_part {
    ($fields:expr, $ty:ident) => {{
        let (tool_name, args, tool_call_id, tool_kind, id, provider_name, provider_details, extra) = $fields;
        let mut part = $ty::new(tool_name);
        part.args = args;
        part.tool_call_id = tool_call_id;
        part.tool_kind = tool_kind;
        part.id = id;
        part.provider_name = provider_name;
        part.provider_details = provider_details;
        part.extra = extra;
        part
    }};
}

/// One response part. The pydantic flavour covers every part pydantic-ai 2.68.0 writes; the
/// any flavour adds parts of unknown kinds.
pub fn response_part(flavour: Flavour) -> BoxedStrategy<ModelResponsePart> {
    let text_part = (
        text(),
        nullable_text(flavour),
        nullable_text(flavour),
        nullable_object(flavour),
        field(flavour, true, vec(citation(flavour), 0..3).boxed()),
        extra(flavour),
    )
        .prop_map(|(content, id, provider_name, provider_details, citations, extra)| {
            let mut part = TextPart::new(content);
            part.id = id;
            part.provider_name = provider_name;
            part.provider_details = provider_details;
            part.citations = citations;
            part.extra = extra;
            ModelResponsePart::Text(part)
        });
    let thinking = (
        text(),
        nullable_text(flavour),
        nullable_text(flavour),
        nullable_text(flavour),
        nullable_object(flavour),
        extra(flavour),
    )
        .prop_map(|(content, id, signature, provider_name, provider_details, extra)| {
            let mut part = ThinkingPart::new(content);
            part.id = id;
            part.signature = signature;
            part.provider_name = provider_name;
            part.provider_details = provider_details;
            part.extra = extra;
            ModelResponsePart::Thinking(part)
        });
    let call = call_fields(flavour).prop_map(|fields| ModelResponsePart::ToolCall(call_part!(fields, ToolCallPart)));
    let native_call = call_fields(flavour)
        .prop_map(|fields| ModelResponsePart::BuiltinToolCall(call_part!(fields, NativeToolCallPart)));
    let native_return = (
        (
            text(),
            tool_output(flavour),
            field(flavour, false, ident("call")),
            tool_kind(flavour),
        ),
        (
            json_field(flavour, true, small_json(flavour)),
            field(flavour, false, timestamp(flavour)),
            field(
                flavour,
                false,
                enum_value(flavour, ToolReturnOutcome::KNOWN, ToolReturnOutcome::from_wire),
            ),
            nullable_text(flavour),
            nullable_object(flavour),
            extra(flavour),
        ),
    )
        .prop_map(
            |(
                (tool_name, (content, digests), tool_call_id, tool_kind),
                (metadata, timestamp, outcome, provider_name, provider_details, extra),
            )| {
                let mut part = NativeToolReturnPart::new(tool_name, content);
                part.tool_call_id = tool_call_id;
                part.tool_kind = tool_kind;
                part.metadata = metadata;
                part.timestamp = timestamp;
                part.outcome = outcome;
                part.provider_name = provider_name;
                part.provider_details = provider_details;
                part.content_file_digests = digests;
                part.extra = extra;
                ModelResponsePart::BuiltinToolReturn(part)
            },
        );
    let file = (
        binary_content(flavour, &["image/png", "application/pdf", "audio/wav"]),
        nullable_text(flavour),
        nullable_text(flavour),
        nullable_object(flavour),
        extra(flavour),
    )
        .prop_map(|(content, id, provider_name, provider_details, extra)| {
            let mut part = FilePart::new(content);
            part.id = id;
            part.provider_name = provider_name;
            part.provider_details = provider_details;
            part.extra = extra;
            ModelResponsePart::File(part)
        });
    let known = prop_oneof![
        4 => text_part,
        4 => call,
        1 => native_call,
        1 => native_return,
        2 => thinking,
        1 => compaction(flavour, false).prop_map(ModelResponsePart::Compaction),
        1 => file,
        1 => speech(flavour, "assistant").prop_map(ModelResponsePart::Speech),
    ];
    match flavour {
        Flavour::Pydantic => known.boxed(),
        Flavour::Any => prop_oneof![
            12 => known,
            1 => unknown_object_text("part_kind", flavour).prop_filter_map("an unknown part", |text| parse_json(&text)),
        ]
        .boxed(),
    }
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

fn parts_range(flavour: Flavour) -> std::ops::Range<usize> {
    match flavour {
        Flavour::Pydantic => 1..MAX_PARTS + 1,
        Flavour::Any => 0..MAX_PARTS + 1,
    }
}

/// A request message.
pub fn request(flavour: Flavour) -> BoxedStrategy<ModelRequest> {
    (
        vec(request_part(flavour), parts_range(flavour)),
        field(flavour, true, timestamp(flavour)),
        nullable_text(flavour),
        nullable_text(flavour),
        nullable_text(flavour),
        nullable_object(flavour),
        field(
            flavour,
            false,
            enum_value(flavour, ModelRequestState::KNOWN, ModelRequestState::from_wire),
        ),
        extra(flavour),
    )
        .prop_map(
            |(parts, timestamp, instructions, run_id, conversation_id, metadata, state, extra)| {
                let mut request = ModelRequest::new(parts);
                request.timestamp = timestamp;
                request.instructions = instructions;
                request.run_id = run_id;
                request.conversation_id = conversation_id;
                request.metadata = metadata;
                request.state = state;
                request.extra = extra;
                request
            },
        )
        .boxed()
}

/// A response message.
pub fn response(flavour: Flavour) -> BoxedStrategy<ModelResponse> {
    let workspace = (text(), ident("ws"), extra(flavour)).prop_map(|(provider, id, extra)| {
        let mut workspace = WorkspaceRef::new(provider, id);
        workspace.extra = extra;
        workspace
    });
    let legacy = match flavour {
        Flavour::Pydantic => Just((Field::Absent, Field::Absent)).boxed(),
        Flavour::Any => prop_oneof![
            3 => Just((Field::Absent, Field::Absent)),
            1 => (nullable_object(flavour), nullable_text(flavour)),
        ]
        .boxed(),
    };
    (
        (
            vec(response_part(flavour), parts_range(flavour)),
            field(flavour, false, usage(flavour)),
            nullable_text(flavour),
            nullable_text(flavour),
            field(flavour, false, timestamp(flavour)),
            nullable_text(flavour),
            nullable_text(flavour),
            nullable_text(flavour),
        ),
        (
            nullable_object(flavour),
            legacy,
            nullable_text(flavour),
            field(
                flavour,
                true,
                enum_value(flavour, FinishReason::KNOWN, FinishReason::from_wire),
            ),
            nullable_text(flavour),
            nullable_text(flavour),
            nullable_object(flavour),
        ),
        (
            field(flavour, true, workspace.boxed()),
            nullable_text(flavour),
            field(flavour, true, vec(failed_attempt(flavour), 0..3).boxed()),
            field(
                flavour,
                false,
                enum_value(flavour, ModelResponseState::KNOWN, ModelResponseState::from_wire),
            ),
            extra(flavour),
        ),
    )
        .prop_map(|(first, second, third)| {
            let (parts, usage, model_name, model_id, timestamp, provider_name, provider_url, canonical_system) = first;
            let (
                provider_details,
                (vendor_details, vendor_id),
                provider_response_id,
                finish_reason,
                run_id,
                conversation_id,
                metadata,
            ) = second;
            let (workspace_ref, history_digest, failed_attempts, state, extra) = third;
            let mut response = ModelResponse::new(parts);
            response.usage = usage;
            response.model_name = model_name;
            response.model_id = model_id;
            response.timestamp = timestamp;
            response.provider_name = provider_name;
            response.provider_url = provider_url;
            response.canonical_system = canonical_system;
            response.provider_details = provider_details;
            response.vendor_details = vendor_details;
            response.provider_response_id = provider_response_id;
            response.vendor_id = vendor_id;
            response.finish_reason = finish_reason;
            response.run_id = run_id;
            response.conversation_id = conversation_id;
            response.metadata = metadata;
            response.workspace_ref = workspace_ref;
            response.history_digest = history_digest;
            response.failed_attempts = failed_attempts;
            response.state = state;
            response.extra = extra;
            response
        })
        .boxed()
}

/// A request or a response.
pub fn message(flavour: Flavour) -> BoxedStrategy<ModelMessage> {
    prop_oneof![
        request(flavour).prop_map(ModelMessage::from),
        response(flavour).prop_map(ModelMessage::from),
    ]
    .boxed()
}

/// A history of at most [`MAX_MESSAGES`] messages (any order of requests and responses:
/// pydantic-ai's loader does not require alternation).
pub fn history(flavour: Flavour) -> BoxedStrategy<Vec<ModelMessage>> {
    vec(message(flavour), 0..MAX_MESSAGES + 1).boxed()
}
