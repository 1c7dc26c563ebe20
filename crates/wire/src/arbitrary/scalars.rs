//! Scalar values in both flavours: timestamps, integers and floats (boundary and odd spellings
//! included), lax bools, durations, decimals, base64 data and `force_download`.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::BoxedStrategy;
use serde::de::DeserializeOwned;

use super::flavour::Flavour;
use crate::*;

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
                    "2025-01-02T03:04:05.123Z",
                    "2025-01-02T03:04:05.000000Z",
                    "2025-01-02T03:04:05-00:00",
                    "2025-01-02T03:04:05+14:00",
                    "2025-12-31T23:59:60Z",
                    "0001-01-01T00:00:00Z",
                    "9999-12-31T23:59:59.999999Z",
                    "2025-01-02T03:04:05.1234567+01:00",
                    "2025-01-02T03:04",
                ][..],
            )
            .prop_filter_map("a datetime msgflow accepts", |text| Timestamp::parse(text).ok());
            let number = select(&["1700000000", "1700000000.5", "0", "-1", "1.7e9", "253402300799"][..])
                .prop_filter_map("a Unix time msgflow accepts", |text| {
                    serde_json::from_str::<Timestamp>(text).ok()
                });
            prop_oneof![6 => canonical, 2 => odd_text, 1 => number].boxed()
        }
    }
}

/// Integer texts at the machine-integer boundaries and far beyond them: pydantic-ai writes
/// Python integers exactly, of any size and sign.
const BOUNDARY_INTEGERS: &[&str] = &[
    "0",
    "-1",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "340282366920938463463374607431768211456",
];

/// The text of an integer of 20 to 60 digits, of either sign.
fn huge_integer_text() -> BoxedStrategy<String> {
    (any::<bool>(), 1u8..=9, vec(0u8..=9, 19..60))
        .prop_map(|(negative, first, rest)| {
            let digits: String = rest.iter().map(|digit| char::from(b'0' + digit)).collect();
            format!("{}{first}{digits}", if negative { "-" } else { "" })
        })
        .boxed()
}

/// An integer (`int` in pydantic-ai): small counts mostly, any `i64`, the 64-bit boundaries and
/// integers of any size and sign; the any flavour adds spellings pydantic-ai would normalise
/// (`5.0`, `"7"`).
pub(super) fn int(flavour: Flavour) -> BoxedStrategy<Int> {
    let from_text = |text: String| serde_json::from_str::<Int>(&text).ok();
    let exact = prop_oneof![
        6 => (0i64..100_000).prop_map(Int::from),
        2 => any::<i64>().prop_map(Int::from),
        1 => select(BOUNDARY_INTEGERS).prop_filter_map("an integer msgflow reads", move |text| from_text(text.to_owned())),
        1 => huge_integer_text().prop_filter_map("an integer msgflow reads", from_text),
    ];
    match flavour {
        Flavour::Pydantic => exact.boxed(),
        Flavour::Any => prop_oneof![
            6 => exact,
            1 => select(&["5.0", "\"7\"", "-3.0", "1e3", "-0"][..])
                .prop_filter_map("an integer msgflow reads", |text| serde_json::from_str::<Int>(text).ok()),
        ]
        .boxed(),
    }
}

/// A float (`float` in pydantic-ai): finite in the pydantic flavour.
pub(super) fn float(flavour: Flavour) -> BoxedStrategy<Float> {
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

/// `force_download`: `false`, `true` or `"allow-local"`; the any flavour adds values pydantic-ai coerces.
pub(super) fn force_download(flavour: Flavour) -> BoxedStrategy<ForceDownload> {
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

/// A plain bool field: `true` or `false`; the any flavour adds the lax spellings pydantic reads.
pub(super) fn lax_bool(flavour: Flavour) -> BoxedStrategy<LaxBool> {
    let known = prop_oneof![Just(LaxBool::False), Just(LaxBool::True)];
    match flavour {
        Flavour::Pydantic => known.boxed(),
        Flavour::Any => prop_oneof![
            4 => known,
            1 => select(&["\"yes\"", "1", "\"off\"", "0.0", "\" T \""][..])
                .prop_filter_map("a lax bool", |text| RawJson::from_json_text(text).ok().map(LaxBool::Other)),
        ]
        .boxed(),
    }
}

/// ISO 8601 durations in the form pydantic-ai writes them.
const DURATIONS: &[&str] = &["PT1.5S", "PT0S", "P1DT1H1M1.000005S", "-PT1S", "PT2S", "P1D"];

/// A `timedelta`, as pydantic-ai writes it; the any flavour adds the other spellings it reads.
pub(super) fn duration(flavour: Flavour) -> BoxedStrategy<Duration> {
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

/// A `Decimal` cost: 0 to 6 fractional digits, as pydantic-ai writes it (a JSON string).
pub(super) fn decimal(_flavour: Flavour) -> BoxedStrategy<Decimal> {
    (0u32..1000, 0u32..1_000_000, 0usize..7)
        .prop_map(|(whole, fraction, width)| {
            if width == 0 {
                Decimal::new(&whole.to_string())
            } else {
                let digits = format!("{fraction:06}");
                Decimal::new(&format!("{whole}.{}", digits.get(..width).unwrap_or(&digits)))
            }
        })
        .boxed()
}

/// Base64 bytes: canonical padding; the any flavour adds unpadded and other accepted spellings.
pub(super) fn base64_data(flavour: Flavour) -> BoxedStrategy<Base64Data> {
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

// ---------------------------------------------------------------------------------------------
// Values the schema cannot describe (`x-msgflow-arbitrary: {"value": ...}` / `{"field": ...}`)
// ---------------------------------------------------------------------------------------------

/// Parses a value with the crate's own deserialiser (used to build values, such as unknown
/// parts, whose fields are only reachable through parsing).
pub(super) fn parse_json<T: DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_str(text).ok()
}
