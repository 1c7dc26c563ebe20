//! Hostile input, end to end: every broken, hand-edited or foreign history goes through the
//! library (msgflow-wire, then msgflow-sanitize and the canonical adapter when it parses) AND
//! the `msgflow` binary (`check`, `fmt --in-place`, `repair --in-place`, `canonical`).
//!
//! What must hold for every input:
//! * the library returns a value or a located [`ParseError`] (a JSON path, a line and column
//!   inside the input), never panics or overflows the stack;
//! * the CLI exits 2 on invalid input naming the file, the path, line and column, and leaves the
//!   input byte for byte as it was (no temporary file left behind either);
//! * whatever parses also survives check, repair (no dangling call, no orphan left, idempotent),
//!   wire -> canonical -> wire and the canonical JSON round trip, and the CLI handles it.
//!
//! Error messages are pinned with insta (`tests/tests/snapshots/hostile__*.snap`). The
//! single-crate error snapshots live in `crates/wire/tests/snapshots.rs`; this suite is the
//! cross-crate one. See RELIABILITY.md.
//!
//! The harness (the CLI runner, `exercise` and the library invariants) is in `hostile/harness.rs`;
//! the pinned inputs, truncation and limits are here; `hostile/in_place.rs` holds the nothing-lost
//! tests of `--in-place` and `hostile/regressions.rs` the regressions found by fuzzing.
//!
//! The CLI is built on first use (`cargo build -p msgflow-cli`), or taken from `$MSGFLOW_BIN`.

use std::fmt::Write as _;
use std::fs;
use std::process::Command;

use msgflow_wire::{ParseErrorCategory, ParseOptions};

#[path = "hostile/harness.rs"]
mod harness;
#[path = "hostile/in_place.rs"]
mod in_place;
#[path = "hostile/regressions.rs"]
mod regressions;

use self::harness::{exercise, fixture, library_outcome, listing, msgflow};

const REQUEST_TAIL: &str = r#""timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete""#;
const USER_PART: &str = r#"{"content":"hi","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}"#;
const TEXT_PART: &str = r#"{"content":"x","part_kind":"text"}"#;

/// A one-message history: a request holding `part`.
fn request_with(part: &str) -> String {
    format!("[{{\"parts\":[{part}],{REQUEST_TAIL}}}]")
}

/// A one-message history: a response holding `part`, with `usage` and `extra` own fields.
fn response_with(part: &str, usage: &str, extra: &str) -> String {
    format!(
        r#"[{{"parts":[{part}],"usage":{usage},"model_name":null,"timestamp":"2025-01-02T03:04:05Z","kind":"response"{extra}}}]"#
    )
}

/// A call and its return: `args` and `content` are JSON text put in as written.
fn call_and_return(args: &str, content: &str) -> String {
    let call = format!(r#"{{"tool_name":"t","args":{args},"tool_call_id":"c1","part_kind":"tool-call"}}"#);
    let result = format!(
        r#"{{"tool_name":"t","content":{content},"tool_call_id":"c1","timestamp":"2025-01-02T03:04:06Z","part_kind":"tool-return"}}"#
    );
    format!(
        "{},{}",
        &response_with(&call, "{}", "")[..response_with(&call, "{}", "").len() - 1],
        &request_with(&result)[1..]
    )
}

macro_rules! hostile {
    ($name:ident, $input:expr) => {
        #[test]
        fn $name() {
            let input: Vec<u8> = $input.into();
            insta::assert_snapshot!(exercise(&input));
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Not JSON, or not an array
// ---------------------------------------------------------------------------------------------

hostile!(empty_file, "");
hostile!(whitespace_only, " \n\t\r\n  ");
hostile!(byte_order_mark, {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(fixture("v2_68/minimal.json"));
    bytes
});
hostile!(top_level_object, format!("{{\"parts\":[{USER_PART}],{REQUEST_TAIL}}}"));
hostile!(top_level_string, r#""[{\"kind\":\"request\"}]""#);
hostile!(top_level_null, "null");
hostile!(array_of_numbers, "[1, 2, 3]");
hostile!(
    trailing_garbage,
    format!("{}\n}}", String::from_utf8_lossy(&fixture("v2_68/minimal.json")))
);
hostile!(two_arrays, "[][]");
hostile!(trailing_nul, b"[]\0".to_vec());
hostile!(nan_at_top_level, "NaN");

// ---------------------------------------------------------------------------------------------
// Kinds and tags
// ---------------------------------------------------------------------------------------------

hostile!(missing_kind, format!("[{{\"parts\":[{USER_PART}]}}]"));
hostile!(unknown_kind, r#"[{"parts":[],"kind":"assistant"}]"#);
hostile!(kind_not_a_string, r#"[{"parts":[],"kind":["request"]}]"#);
hostile!(
    missing_part_kind_in_response,
    response_with(r#"{"content":"x"}"#, "{}", "")
);
hostile!(
    unknown_part_kind_kept,
    request_with(r#"{"content":"hi","shape":{"x":[1,2.50,"3"]},"part_kind":"hologram"}"#)
);
hostile!(
    unknown_user_content_kind_kept,
    request_with(r#"{"content":[{"x":1,"kind":"smell"}],"part_kind":"user-prompt"}"#)
);
hostile!(response_part_in_request, request_with(TEXT_PART));
hostile!(request_part_in_response, response_with(USER_PART, "{}", ""));
hostile!(
    duplicate_part_kind_last_wins,
    request_with(r#"{"content":"hi","part_kind":"user-prompt","part_kind":"system-prompt"}"#)
);
hostile!(
    duplicate_kind_conflicting,
    format!("[{{\"kind\":\"response\",\"parts\":[{USER_PART}],\"kind\":\"request\"}}]")
);

// ---------------------------------------------------------------------------------------------
// Wrong types, one per field class (the wire crate's snapshots cover other fields)
// ---------------------------------------------------------------------------------------------

hostile!(
    wrong_type_string_tool_name,
    response_with(r#"{"tool_name":5,"args":null,"part_kind":"tool-call"}"#, "{}", "")
);
hostile!(
    wrong_type_int_as_string,
    response_with(TEXT_PART, r#"{"output_tokens":"12"}"#, "")
);
hostile!(
    wrong_type_int_negative_overflow,
    response_with(TEXT_PART, r#"{"output_tokens":-99999999999999999999}"#, "")
);
hostile!(
    wrong_type_float_as_bool,
    response_with(TEXT_PART, r#"{"audio_seconds":true}"#, "")
);
hostile!(
    wrong_type_bool_as_int,
    request_with(r#"{"content":"s","dynamic":1,"part_kind":"system-prompt"}"#)
);
hostile!(
    wrong_type_timestamp_as_number,
    format!(r#"[{{"parts":[{TEXT_PART}],"usage":{{}},"timestamp":1735787045,"kind":"response"}}]"#)
);
hostile!(
    wrong_type_enum_unknown_value_kept,
    response_with(TEXT_PART, "{}", r#","finish_reason":"exploded""#)
);
hostile!(
    wrong_type_enum_as_object,
    response_with(TEXT_PART, "{}", r#","finish_reason":{"reason":"stop"}"#)
);
hostile!(wrong_type_nested_object_as_array, response_with(TEXT_PART, "[]", ""));
hostile!(
    wrong_type_array_parts_as_string,
    r#"[{"parts":"hello","kind":"request"}]"#
);
hostile!(
    wrong_type_array_digests_as_string,
    request_with(
        r#"{"tool_name":"t","content":"x","tool_call_id":"c","content_file_digests":"abc","part_kind":"tool-return"}"#
    )
);
hostile!(
    wrong_type_array_item,
    request_with(
        r#"{"tool_name":"t","content":"x","tool_call_id":"c","content_file_digests":["a",7],"part_kind":"tool-return"}"#
    )
);
hostile!(opaque_args_of_every_shape_kept, {
    let parts: Vec<String> = [r#""not an object""#, "[1,2]", "5", "true", r#"{"":{}}"#, "null"]
        .iter()
        .enumerate()
        .map(|(index, args)| {
            format!(r#"{{"tool_name":"t","args":{args},"tool_call_id":"c{index}","part_kind":"tool-call"}}"#)
        })
        .collect();
    response_with(&parts.join(","), "{}", "")
});

// ---------------------------------------------------------------------------------------------
// Encodings: base64, timestamps, escapes, UTF-8, NUL
// ---------------------------------------------------------------------------------------------

hostile!(
    invalid_base64_characters,
    request_with(
        r#"{"content":[{"data":"not base64!","media_type":"image/png","kind":"binary"}],"part_kind":"user-prompt"}"#
    )
);
hostile!(
    invalid_timestamp_month_13,
    response_with(TEXT_PART, "{}", "").replace("2025-01-02T03:04:05Z", "2025-13-02T03:04:05Z")
);
hostile!(
    invalid_timestamp_february_30,
    request_with(r#"{"content":"hi","timestamp":"2025-02-30T00:00:00Z","part_kind":"user-prompt"}"#)
);
hostile!(
    invalid_timestamp_empty,
    request_with(r#"{"content":"hi","timestamp":"","part_kind":"user-prompt"}"#)
);
hostile!(
    lone_low_surrogate_in_text,
    response_with(r#"{"content":"a\udc00b","part_kind":"text"}"#, "{}", "")
);
hostile!(lone_surrogate_in_args, call_and_return(r#"{"x":"\ud800"}"#, r#""ok""#));
hostile!(lone_surrogate_in_tool_output, call_and_return("{}", r#""\udbff""#));
hostile!(invalid_utf8_in_args, {
    let mut bytes = call_and_return(r#"{"x":"AB"}"#, r#""ok""#).into_bytes();
    let at = bytes.windows(2).position(|window| window == b"AB").expect("marker");
    bytes[at] = 0xC0; // overlong encoding of '\0'
    bytes[at + 1] = 0x80;
    bytes
});
hostile!(invalid_utf8_truncated_sequence_at_end, {
    let mut bytes = fixture("v2_68/minimal.json");
    bytes.push(0xE2);
    bytes
});
hostile!(raw_nul_in_string, {
    let mut bytes = request_with(USER_PART).into_bytes();
    let at = bytes.windows(2).position(|window| window == b"hi").expect("marker");
    bytes[at] = 0;
    bytes
});
hostile!(raw_nul_between_values, {
    let mut bytes = request_with(USER_PART).into_bytes();
    bytes.insert(1, 0);
    bytes
});
hostile!(escaped_nul_everywhere_kept, {
    let part =
        r#"{"content":"a\u0000b","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt","x\u0000":"\u0000"}"#;
    format!(
        "{},{}",
        &request_with(part)[..request_with(part).len() - 1],
        &call_and_return(r#"{"\u0000":"\u0000"}"#, r#""\u0000""#)[1..]
    )
});

// ---------------------------------------------------------------------------------------------
// Depth, numbers, duplicates, non-finite literals
// ---------------------------------------------------------------------------------------------

const DEEP: usize = 100_000;

hostile!(
    nesting_100k_in_args,
    call_and_return(&format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)), r#""ok""#)
);
hostile!(
    nesting_100k_objects_in_tool_output,
    call_and_return("{}", &format!("{}1{}", r#"{"a":"#.repeat(DEEP), "}".repeat(DEEP)))
);
hostile!(
    nesting_100k_unclosed_in_args,
    call_and_return(&"[".repeat(DEEP), r#""ok""#)
);
hostile!(
    nesting_100k_at_top_level,
    format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP))
);
hostile!(
    nesting_100k_in_metadata,
    response_with(
        TEXT_PART,
        "{}",
        &format!(r#","metadata":{}{}"#, "[".repeat(DEEP), "]".repeat(DEEP))
    )
);
hostile!(
    huge_numbers_in_opaque_content_kept,
    call_and_return(
        &format!(
            r#"{{"big":{},"exp":1e400,"tiny":1e-400,"neg":-0,"frac":1.50000000000000000000001}}"#,
            "9".repeat(200)
        ),
        &format!("[{},-1E+400]", "1".repeat(200))
    )
);
hostile!(
    huge_exponent_in_int_field,
    response_with(TEXT_PART, r#"{"input_tokens":1e400}"#, "")
);
hostile!(
    two_hundred_digits_in_int_field,
    response_with(TEXT_PART, &format!(r#"{{"input_tokens":{}}}"#, "1".repeat(200)), "")
);
hostile!(
    two_hundred_digits_in_float_field,
    response_with(TEXT_PART, &format!(r#"{{"audio_seconds":{}}}"#, "1".repeat(200)), "")
);
hostile!(
    duplicate_keys_in_args_kept,
    call_and_return(r#"{"a":1,"a":2,"a":{"b":1,"b":2}}"#, r#""ok""#)
);
hostile!(
    duplicate_typed_key_last_wins,
    response_with(
        r#"{"tool_name":"first","tool_name":"second","args":null,"tool_call_id":"c","part_kind":"tool-call"}"#,
        "{}",
        ""
    )
);
hostile!(
    duplicate_unknown_keys_kept,
    request_with(r#"{"content":"hi","x":1,"x":2,"part_kind":"user-prompt"}"#)
);
hostile!(infinity_in_args, call_and_return(r#"{"x":Infinity}"#, r#""ok""#));
hostile!(
    negative_infinity_in_int_field,
    response_with(TEXT_PART, r#"{"input_tokens":-Infinity}"#, "")
);
hostile!(nan_in_tool_output, call_and_return("{}", "NaN"));

// ---------------------------------------------------------------------------------------------
// Truncation
// ---------------------------------------------------------------------------------------------

/// `count` cut points spread over `0..len` (never 0, never len), deterministic.
fn cut_points(len: usize, count: usize) -> Vec<usize> {
    let mut points: Vec<usize> = (1..=count).map(|index| index * len / (count + 1)).collect();
    points.retain(|&point| point > 0 && point < len);
    points.dedup();
    points
}

#[test]
fn truncated_at_fifty_points_is_a_located_error_everywhere() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut report = String::new();
    let mut cuts = 0;
    for (name, count) in [
        ("v2_68/coding-agent-session.json", 35),
        ("other/pretty-printed-reordered.json", 15),
    ] {
        let whole = fixture(name);
        assert!(msgflow_wire::from_slice(&whole).is_ok(), "{name} must parse whole");
        for cut in cut_points(whole.len(), count) {
            let input = &whole[..cut];
            let err = match library_outcome(input) {
                Ok(_) => panic!("{name} cut at byte {cut} parsed"),
                Err(err) => err,
            };
            assert!(
                matches!(err.category(), ParseErrorCategory::Eof | ParseErrorCategory::Syntax),
                "{name} cut at {cut}: {err}"
            );
            let _ = writeln!(report, "{name} cut at {cut}: {:?}: {err}", err.category());
            let file = dir.path().join("cut.json");
            fs::write(&file, input).expect("write");
            let run = msgflow(dir.path(), &["repair", "--in-place", "cut.json"]);
            assert_eq!(run.code, Some(2), "{}", run.stderr);
            assert!(
                run.stderr.contains("cut.json") && run.stderr.contains(&err.to_string()),
                "{}",
                run.stderr
            );
            assert_eq!(
                fs::read(&file).expect("read"),
                input,
                "repair changed a truncated input"
            );
            assert_eq!(listing(dir.path()), ["cut.json"]);
            cuts += 1;
        }
    }
    assert_eq!(cuts, 50);
    insta::assert_snapshot!(report);
}

// ---------------------------------------------------------------------------------------------
// Limits and memory
// ---------------------------------------------------------------------------------------------

#[test]
fn max_input_bytes_is_a_limit_error_before_any_parsing() {
    let input = fixture("v2_68/minimal.json");
    let limited = ParseOptions {
        max_input_bytes: Some(input.len() - 1),
    };
    let err = msgflow_wire::from_slice_with(&input, &limited).expect_err("over the limit");
    assert_eq!(err.category(), ParseErrorCategory::Limit);
    insta::assert_snapshot!(err.to_string());
    let exact = ParseOptions {
        max_input_bytes: Some(input.len()),
    };
    assert!(msgflow_wire::from_slice_with(&input, &exact).is_ok());
    // Checked before UTF-8 or syntax: garbage over the limit is a limit error too.
    let garbage = vec![0xFF_u8; 100];
    let err = msgflow_wire::from_slice_with(
        &garbage,
        &ParseOptions {
            max_input_bytes: Some(10),
        },
    )
    .expect_err("over the limit");
    assert_eq!(err.category(), ParseErrorCategory::Limit);
}

/// A 50 MB string in one text part: it parses, round-trips, and the process's peak memory
/// stays proportional to the input (measured in a fresh process: the child below).
#[test]
fn fifty_megabyte_string_memory_is_proportional() {
    let exe = std::env::current_exe().expect("test binary");
    let output = Command::new(exe)
        .args([
            "--exact",
            "memory_probe_child",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("MSGFLOW_MEMORY_PROBE", "1")
        .output()
        .expect("child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|line| line.split_once("probe:").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no probe line in the child's output:\n{stdout}"));
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|word| word.split('=').nth(1)?.parse().ok())
        .collect();
    let [input_bytes, before_kib, parsed_kib, written_kib] = numbers[..] else {
        panic!("{line}")
    };
    let input_kib = input_bytes / 1024;
    // `before` already holds the input. Reading adds the parsed string (about 1x); writing adds
    // the output (1x). The whole process, input included, stays under 4x the input.
    assert!(parsed_kib - before_kib < 2 * input_kib, "parsing: {line}");
    assert!(written_kib < 4 * input_kib, "peak: {line}");
}

fn peak_rss_kib() -> u64 {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[test]
#[ignore = "run by fifty_megabyte_string_memory_is_proportional in a fresh process"]
fn memory_probe_child() {
    if std::env::var_os("MSGFLOW_MEMORY_PROBE").is_none() {
        return;
    }
    const SIZE: usize = 50 * 1024 * 1024;
    let head = r#"[{"parts":[{"content":""#;
    let tail =
        r#"","part_kind":"text"}],"usage":{},"model_name":null,"timestamp":"2025-01-02T03:04:05Z","kind":"response"}]"#;
    let mut input = Vec::with_capacity(head.len() + SIZE + tail.len());
    input.extend_from_slice(head.as_bytes());
    // Mostly ASCII with escapes and multi-byte characters mixed in, so unescaping really runs.
    let chunk = "lorem ipsum \\n \\\"quoted\\\" é 😀 \\u00e9 ".as_bytes();
    while input.len() + chunk.len() < head.len() + SIZE {
        input.extend_from_slice(chunk);
    }
    input.extend_from_slice(tail.as_bytes());
    let before = peak_rss_kib();
    let history = msgflow_wire::from_slice(&input).expect("parses");
    let parsed = peak_rss_kib();
    let written = msgflow_wire::to_vec(&history).expect("writes");
    // `\u00e9` is written back as `é`: shorter, never longer.
    assert!(written.len() <= input.len());
    let after = peak_rss_kib();
    println!(
        "probe: input={} before={before} parsed={parsed} written={after}",
        input.len()
    );
}
