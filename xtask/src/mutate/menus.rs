//! The value menus of the mutations: boundary, malformed and odd spellings of each kind of node.

use super::json::Json;

/// Datetime forms: pydantic accepts RFC 3339 with or without offset, dates, Unix numbers and
/// numeric strings; the others probe where its parser (speedate) stops.
pub(super) const TIMESTAMPS: &[(&str, &str)] = &[
    ("leap-second", "\"2024-12-31T23:59:60Z\""),
    ("no-offset", "\"2025-01-02T03:04:05.678901\""),
    ("date-only", "\"2025-01-02\""),
    ("unix-int", "1735787045"),
    ("unix-float", "1735787045.5"),
    ("unix-ms", "1735787045678"),
    ("unix-negative", "-1"),
    ("unix-huge", "1e20"),
    ("unix-string", "\"1735787045\""),
    ("garbage", "\"yesterday\""),
    ("empty", "\"\""),
    ("month-13", "\"2025-13-01T00:00:00Z\""),
    ("feb-30", "\"2025-02-30T00:00:00Z\""),
    ("hour-24", "\"2025-01-02T24:00:00Z\""),
    ("minute-60", "\"2025-01-02T03:60:00Z\""),
    ("offset-25h", "\"2025-01-02T03:04:05+25:00\""),
    ("offset-no-colon", "\"2025-01-02T03:04:05+0100\""),
    ("seven-fraction-digits", "\"2025-01-02T03:04:05.1234567Z\""),
    ("space-separator", "\"2025-01-02 03:04:05Z\""),
    ("lowercase", "\"2025-01-02t03:04:05z\""),
    ("no-seconds", "\"2025-01-02T03:04Z\""),
    ("basic-format", "\"20250102T030405Z\""),
    ("year-1", "\"0001-01-01T00:00:00Z\""),
    ("year-9999", "\"9999-12-31T23:59:59.999999Z\""),
    ("explicit-utc-offset", "\"2025-01-02T03:04:05+00:00\""),
    ("negative-zero-offset", "\"2025-01-02T03:04:05-00:00\""),
    ("trailing-space", "\"2025-01-02T03:04:05Z \""),
    // The spellings `msgflow_wire::arbitrary::timestamp(Flavour::Any)` writes, which msgflow
    // reads and keeps as written and pydantic-ai normalises on load.
    ("nine-fraction-digits", "\"2025-01-02T03:04:05.123456789Z\""),
    ("three-fraction-digits", "\"2025-01-02T03:04:05.123Z\""),
    ("zero-fraction", "\"2025-01-02T03:04:05.000000Z\""),
    ("one-fraction-digit-negative-offset", "\"2025-01-02T03:04:05.5-08:00\""),
    ("seven-fraction-digits-offset", "\"2025-01-02T03:04:05.1234567+01:00\""),
    ("offset-14h", "\"2025-01-02T03:04:05+14:00\""),
    ("offset-23h59", "\"2025-01-02T03:04:05-23:59\""),
    ("space-separator-no-offset", "\"2025-01-02 03:04:05\""),
    ("no-seconds-no-offset", "\"2025-01-02T03:04\""),
    ("unix-zero", "0"),
    ("unix-exponent", "1.7e9"),
    ("unix-year-9999", "253402300799"),
    ("unix-year-10000", "253402300800"),
    ("unix-string-float", "\"1700000000.5\""),
];

/// Boundary and odd integers (pydantic's lax mode takes `true`, `5.0` and `"5"`).
pub(super) fn integers() -> Vec<(&'static str, String)> {
    let mut values: Vec<(&'static str, String)> = [
        ("zero", "0"),
        ("negative", "-1"),
        ("minus-zero", "-0"),
        ("i64-max", "9223372036854775807"),
        ("i64-max+1", "9223372036854775808"),
        ("i64-min", "-9223372036854775808"),
        ("i64-min-1", "-9223372036854775809"),
        ("u64-max", "18446744073709551615"),
        ("u64-max+1", "18446744073709551616"),
        ("float-integral", "5.0"),
        ("negative-float-integral", "-3.0"),
        ("exponent-upper-case", "1E3"),
        ("float-fraction", "5.5"),
        ("exponent", "1e3"),
        ("float-huge", "1e400"),
        ("true", "true"),
        ("false", "false"),
        ("string", "\"5\""),
        ("string-underscore", "\"1_000\""),
        ("string-whitespace", "\" 5 \""),
        ("string-float", "\"5.0\""),
        ("string-hex", "\"0x10\""),
        ("nan-literal", "NaN"),
        ("infinity-literal", "Infinity"),
    ]
    .iter()
    .map(|(name, text)| (*name, (*text).to_owned()))
    .collect();
    values.push(("digits-4300", "7".repeat(4300)));
    values.push(("digits-4301", "7".repeat(4301)));
    values.push(("negative-digits-4301", format!("-{}", "7".repeat(4301))));
    values
}

pub(super) const NUMBERS: &[(&str, &str)] = &[
    ("zero", "0"),
    ("minus-zero", "-0.0"),
    ("integer", "5"),
    ("fraction", "0.1"),
    ("max-finite", "1.7976931348623157e308"),
    ("overflow", "1e400"),
    ("tiny", "5e-324"),
    ("underflow", "-1e-400"),
    ("exponent-upper-case", "1E16"),
    ("trailing-zero", "1.50"),
    ("string-padded", "\" 2.5 \""),
    ("u64-max+1", "18446744073709551616"),
    ("true", "true"),
    ("string", "\"1.5\""),
    ("string-underscore", "\"1_0.5\""),
    ("string-nan", "\"NaN\""),
    ("nan-literal", "NaN"),
    ("infinity-literal", "-Infinity"),
    ("positive-infinity-literal", "Infinity"),
];

pub(super) const BOOLEANS: &[(&str, &str)] = &[
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("float-one", "1.0"),
    ("float-zero", "0.0"),
    ("minus-zero", "-0"),
    ("string-true", "\"true\""),
    ("string-title-case", "\"True\""),
    ("string-yes", "\"yes\""),
    ("string-off", "\"off\""),
    ("string-1", "\"1\""),
    ("string-t", "\"t\""),
    ("string-empty", "\"\""),
    // pydantic-core's `str_as_bool` compares case-insensitively and does not trim.
    ("string-padded", "\" T \""),
    ("string-upper-case", "\"YES\""),
    ("string-n", "\"N\""),
];

pub(super) const STRINGS: &[(&str, &str)] = &[
    ("lone-high-surrogate", "\"\\ud800\""),
    ("lone-low-surrogate", "\"x\\udfff\""),
    ("reversed-surrogates", "\"\\udc00\\ud800\""),
    ("surrogate-pair", "\"\\ud83d\\ude00\""),
    ("nul", "\"\\u0000\""),
    ("empty", "\"\""),
    ("number", "5"),
    ("boolean", "true"),
];

pub(super) const BASE64: &[(&str, &str)] = &[
    ("not-base64", "\"!!!\""),
    ("unpadded", "\"aGk\""),
    ("url-alphabet", "\"-_-_\""),
    ("whitespace", "\"aGk= \""),
    ("empty", "\"\""),
    // The standard alphabet's `+` and `/`, with and without padding (`arbitrary::base64_data`).
    ("standard-alphabet-unpadded", "\"+/8\""),
    ("standard-alphabet", "\"+/8=\""),
    ("one-byte-unpadded", "\"YQ\""),
    ("over-padded", "\"YQ===\""),
];

/// String escapes pydantic-ai decodes and writes back in its own form (`arbitrary`'s
/// `ODD_STRINGS`): msgflow keeps them as written.
pub(super) const ESCAPED_STRINGS: &[(&str, &str)] = &[
    ("escaped-bmp", "\"\\u00e9\""),
    ("escaped-solidus", "\"\\/\""),
    ("escaped-ascii-and-newline", "\"\\u0041\\u000A\""),
    ("escaped-tab", "\"tab\\u0009\""),
];

/// `timedelta` spellings (`ModelRequestAttempt.duration`): ISO 8601 as pydantic-ai writes it, the
/// `[-][D day[s], ]HH:MM:SS[.f]` clock form and numbers of seconds it reads, and near misses.
pub(super) const DURATIONS: &[(&str, &str)] = &[
    ("iso-fraction", "\"PT1.5S\""),
    ("iso-zero", "\"PT0S\""),
    ("iso-days", "\"P1D\""),
    ("iso-weeks", "\"P2W\""),
    ("iso-mixed", "\"P1DT1H1M1.000005S\""),
    ("iso-negative", "\"-PT1S\""),
    ("iso-lower-case", "\"pt1s\""),
    ("iso-empty", "\"P\""),
    ("iso-no-time", "\"PT\""),
    ("clock", "\"00:00:01.5\""),
    ("clock-plain", "\"01:02:03\""),
    ("clock-days", "\"1 day, 00:00:01\""),
    ("clock-minute-60", "\"00:60:00\""),
    ("clock-negative", "\"-00:00:01\""),
    ("seconds-float", "1.5"),
    ("seconds-negative", "-1"),
    ("seconds-string", "\"1.5\""),
];

/// `Decimal` spellings (`RequestUsage.cost`) besides [`NUMBERS`]: Python's `decimal.Decimal`
/// grammar after pydantic-core strips whitespace.
pub(super) const DECIMALS: &[(&str, &str)] = &[
    ("string-trailing-zeros", "\"0.50\""),
    ("string-exponent", "\"1e3\""),
    ("string-padded", "\" 1.5 \""),
    ("string-plus", "\"+1\""),
    ("string-infinity", "\"Infinity\""),
    ("string-leading-dot", "\".5\""),
    ("string-trailing-dot", "\"5.\""),
    ("string-hex", "\"0x10\""),
];

/// The nesting of the deep value given to an unknown key: past pydantic-core's limit (200) from
/// any depth the key sits at.
pub(super) const DEEP_EXTRA: usize = 256;

/// Total depths of the deep-nesting mutations: msgflow's typed limit (128), and around
/// pydantic-core's and serde_json's.
pub(super) const DEPTHS: &[usize] = &[127, 128, 129, 199, 200, 201, 255, 256, 257, 1000, 10_000];

/// One value of each JSON type, for "value of another type".
pub(super) fn other_types() -> [(&'static str, Json); 6] {
    [
        ("boolean", Json::Bool(true)),
        ("number", Json::Number("1".to_owned())),
        ("float", Json::Number("1.5".to_owned())),
        ("string", Json::String("x".to_owned())),
        ("array", Json::Array(Vec::new())),
        ("object", Json::Object(Vec::new())),
    ]
}

/// `depth` arrays around `inner`, written as text (no recursion on either side).
pub(super) fn nested(depth: usize, inner: &str) -> Json {
    Json::Raw(format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth)))
}

/// `depth` objects `{"a": ...}` around `inner`.
pub(super) fn nested_objects(depth: usize, inner: &str) -> Json {
    Json::Raw(format!("{}{inner}{}", "{\"a\":".repeat(depth), "}".repeat(depth)))
}

pub(super) fn raw(text: &str) -> Json {
    Json::parse(text).unwrap_or_else(|_| Json::Raw(text.to_owned()))
}
