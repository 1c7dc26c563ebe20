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
//! The CLI is built on first use (`cargo build -p msgflow-cli`), or taken from `$MSGFLOW_BIN`.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use msgflow_sanitize::{check, remaining, repair, RepairOptions};
use msgflow_wire::{ModelMessage, ParseError, ParseErrorCategory, ParseOptions};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn fixture(relative: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(relative);
    fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The `msgflow` binary of this build (same target directory and profile as this test).
fn msgflow_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(path) = std::env::var_os("MSGFLOW_BIN") {
            return PathBuf::from(path);
        }
        // target/<profile>/deps/hostile-<hash> -> target/<profile>/msgflow
        let exe = std::env::current_exe().expect("the test binary's path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test binary lives in target/<profile>/deps")
            .to_path_buf();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "-p", "msgflow-cli", "--bin", "msgflow"]);
        if profile_dir.file_name().is_some_and(|name| name == "release") {
            build.arg("--release");
        }
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root");
        let status = build.current_dir(workspace).status().expect("cargo runs");
        assert!(status.success(), "cannot build the msgflow binary");
        profile_dir.join("msgflow")
    })
}

/// One run of the CLI.
struct CliRun {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `msgflow args...` in `dir` (inputs are named relative to it, so messages hold no
/// temporary paths).
fn msgflow(dir: &Path, args: &[&str]) -> CliRun {
    let output = Command::new(msgflow_bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("msgflow runs");
    CliRun {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("readable directory")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Line and column are inside the input (1-based; the column may point one past the line's end).
fn assert_located(input: &[u8], err: &ParseError) {
    assert!(
        err.path().starts_with('$'),
        "path {:?} is not a JSON path: {err}",
        err.path()
    );
    if err.category() == ParseErrorCategory::Limit {
        return;
    }
    // Column 0 happens for errors at the very first value (bug reported, see
    // `errors_at_the_first_value_have_a_one_based_column`); every other column is 1-based.
    assert!(err.line() >= 1, "no line: {err}");
    let lines: Vec<&[u8]> = input.split(|&byte| byte == b'\n').collect();
    assert!(
        err.line() <= lines.len(),
        "line {} beyond the input's {} lines: {err}",
        err.line(),
        lines.len()
    );
    let line_length = lines[err.line() - 1].len();
    assert!(
        err.column() <= line_length + 1,
        "column {} beyond the line's {line_length} bytes: {err}",
        err.column()
    );
}

/// What the library makes of `input`: the error (checked for a location) or the history.
fn library_outcome(input: &[u8]) -> Result<Vec<ModelMessage>, ParseError> {
    let outcome = msgflow_wire::from_slice(input);
    if let Err(err) = &outcome {
        assert_located(input, err);
    }
    outcome
}

fn describe_error(err: &ParseError) -> String {
    format!(
        "{:?} error\npath: {}\nline: {}, column: {}\ndisplay: {err}",
        err.category(),
        err.path(),
        err.line(),
        err.column()
    )
}

fn shortened(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len())
}

/// Everything a valid history must survive in the library: write -> read, check, repair (its
/// guarantees, shared with the fuzz targets), the canonical round trips.
fn assert_library_invariants(history: &[ModelMessage]) {
    let written = msgflow_wire::to_vec(history).expect("a parsed history serialises");
    let reread = msgflow_wire::from_slice(&written).expect("msgflow reads its own output");
    assert!(reread == history, "serialise -> parse changed the history");
    assert_eq!(msgflow_wire::to_vec(&reread).expect("serialises"), written);

    for violation in check(history) {
        assert!(!violation.to_string().is_empty());
    }
    msgflow_integration_tests::assert_repair_guarantees(history);

    let canonical = msgflow_adapter::to_canonical_history(history);
    let back = msgflow_adapter::from_canonical_history(&canonical).expect("canonical converts back");
    assert!(back == history, "wire -> canonical -> wire changed the history");
    let json = msgflow_canonical::to_json_vec(&canonical).expect("canonical JSON serialises");
    let reread = msgflow_canonical::from_json_slice(&json).expect("canonical JSON reads back");
    assert!(reread == canonical, "canonical JSON round trip changed the messages");
    let _ = msgflow_adapter::tool_registry(history);
}

/// Runs one hostile input through the library and the CLI; returns the text pinned by the
/// snapshot (library outcome, then `msgflow check`'s exit status and output).
fn exercise(input: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("temporary directory");
    let file = dir.path().join("input.json");
    fs::write(&file, input).expect("write the input");
    let mut report = String::new();

    let outcome = library_outcome(input);
    let cli_check = msgflow(dir.path(), &["check", "input.json"]);
    match &outcome {
        Err(err) => {
            report.push_str(&describe_error(err));
            assert_eq!(
                cli_check.code,
                Some(2),
                "check must exit 2 on invalid input: {}",
                cli_check.stderr
            );
            assert!(
                cli_check.stderr.contains("input.json"),
                "stderr names no file: {}",
                cli_check.stderr
            );
            assert!(
                cli_check.stderr.contains(&err.to_string()),
                "stderr lacks the location: {}",
                cli_check.stderr
            );
            for command in [
                &["repair", "--in-place", "input.json"][..],
                &["fmt", "--in-place", "--backup", "input.json"],
                &["canonical", "--in-place", "input.json"],
            ] {
                let run = msgflow(dir.path(), command);
                assert_eq!(run.code, Some(2), "{command:?}: {}", run.stderr);
                assert_eq!(
                    fs::read(&file).expect("input still there"),
                    input,
                    "{command:?} changed its input"
                );
                assert_eq!(listing(dir.path()), ["input.json"], "{command:?} left files behind");
            }
        }
        Ok(history) => {
            let written = msgflow_wire::to_string(history).expect("serialises");
            let _ = write!(report, "accepted; written back as:\n{}", shortened(&written, 600));
            assert_library_invariants(history);
            assert!(
                matches!(cli_check.code, Some(0 | 1)),
                "check on a valid history: {}",
                cli_check.stderr
            );
            let run = msgflow(dir.path(), &["repair", "--in-place", "input.json"]);
            let expected = repair(history.clone(), &RepairOptions::default()).history;
            // Exit 0 exactly when the repaired history passes `check` (1: written, problems left).
            let left = remaining(&expected, &RepairOptions::default());
            assert_eq!(run.code, Some(i32::from(!left.is_empty())), "repair: {}", run.stderr);
            let repaired = fs::read(&file).expect("repaired file");
            if repaired != input {
                assert_eq!(repaired, msgflow_wire::to_vec(&expected).expect("serialises"));
            }
            let run = msgflow(dir.path(), &["canonical", "-o", "canonical.json", "input.json"]);
            assert_eq!(run.code, Some(0), "canonical: {}", run.stderr);
            let run = msgflow(dir.path(), &["wire", "-o", "back.json", "canonical.json"]);
            assert_eq!(run.code, Some(0), "wire: {}", run.stderr);
            assert_eq!(fs::read(dir.path().join("back.json")).expect("back.json"), repaired);
            for report in [
                &["show", "--full", "input.json"][..],
                &["stats", "--json", "input.json"],
                &["tools", "input.json"],
            ] {
                let run = msgflow(dir.path(), report);
                assert_eq!(run.code, Some(0), "{report:?}: {}", run.stderr);
            }
        }
    }
    let _ = write!(
        report,
        "\n\nmsgflow check input.json -> exit {:?}\n{}{}",
        cli_check.code,
        shortened(&cli_check.stdout, 1500),
        shortened(&cli_check.stderr, 1500)
    );
    report
}

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

// ---------------------------------------------------------------------------------------------
// Nothing lost: SIGKILL during --in-place
// ---------------------------------------------------------------------------------------------

/// A large history (`target_bytes` or a bit more) in a non-compact layout, so `fmt` rewrites it.
fn large_history(target_bytes: usize) -> Vec<u8> {
    let history = msgflow_wire::from_slice(&fixture("v2_68/coding-agent-session.json")).expect("fixture parses");
    let messages: Vec<Vec<u8>> = history
        .iter()
        .map(|message| msgflow_wire::to_vec(std::slice::from_ref(message)).expect("serialises"))
        .collect();
    let mut out = Vec::with_capacity(target_bytes + 64 * 1024);
    out.extend_from_slice(b"[\n");
    let mut first = true;
    'fill: loop {
        for message in &messages {
            if !first {
                out.extend_from_slice(b",\n  ");
            }
            first = false;
            // Drop the `[` and `]` around the one-message array.
            out.extend_from_slice(&message[1..message.len() - 1]);
            if out.len() >= target_bytes {
                break 'fill;
            }
        }
    }
    out.extend_from_slice(b"\n]\n");
    out
}

/// A small deterministic pseudo-random sequence (no dependency): xorshift64.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}

#[test]
fn sigkill_during_in_place_rewrite_leaves_old_or_new_never_partial() {
    let size_mb: usize = std::env::var("MSGFLOW_KILL_TEST_MB")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().expect("temporary directory");
    let original = large_history(size_mb * 1024 * 1024);
    let file = dir.path().join("big.json");

    // The expected new content, and how long a full run takes.
    fs::write(&file, &original).expect("write");
    let started = Instant::now();
    let run = msgflow(dir.path(), &["fmt", "--in-place", "big.json"]);
    let full_run = started.elapsed();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let formatted = fs::read(&file).expect("formatted");
    assert_ne!(formatted, original, "the layout must change, or fmt would not rewrite");
    assert_eq!(listing(dir.path()), ["big.json"]);

    let seed = std::env::var("MSGFLOW_KILL_TEST_SEED")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15_u64);
    let mut random = Xorshift(seed);
    let mut outcomes = Vec::new();
    for attempt in 0..6 {
        fs::write(&file, &original).expect("restore");
        let mut child = Command::new(msgflow_bin())
            .args(["fmt", "--in-place", "big.json"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let started = Instant::now();
        if attempt % 2 == 0 {
            // Anywhere in the run (reading, parsing, formatting, writing, renaming).
            let delay = random.below(full_run.as_millis() as u64 + 1);
            std::thread::sleep(Duration::from_millis(delay));
        } else {
            // During the write: once the temporary file exists, at a random moment of what is
            // left of a full run's duration (writing, fsync, rename).
            while child.try_wait().expect("wait").is_none()
                && !listing(dir.path()).iter().any(|name| name.ends_with(".msgflow-tmp"))
            {
                std::thread::sleep(Duration::from_micros(200));
            }
            let left = full_run.saturating_sub(started.elapsed());
            std::thread::sleep(Duration::from_millis(random.below(left.as_millis() as u64 + 1)));
        }
        let killed_after = started.elapsed();
        let _ = child.kill(); // SIGKILL on Unix
        let status = child.wait().expect("wait");
        let after = fs::read(&file).expect("the file is still there");
        let state = if after == original {
            "original"
        } else if after == formatted {
            "new"
        } else {
            panic!(
                "attempt {attempt}: killed after {killed_after:?}: the file is neither the original nor the new output ({} bytes)",
                after.len()
            )
        };
        let strays: Vec<String> = listing(dir.path())
            .into_iter()
            .filter(|name| name != "big.json")
            .collect();
        for stray in &strays {
            // A killed process cannot clean up; what it leaves is hidden, never a .json file, and
            // never replaces the input. Remove it for the next attempt.
            assert!(
                stray.starts_with(".big.json.") && stray.ends_with(".msgflow-tmp"),
                "unexpected file {stray}"
            );
            fs::remove_file(dir.path().join(stray)).expect("remove stray");
        }
        outcomes.push(format!(
            "attempt {attempt}: killed after {killed_after:?} (exit {status:?}): {state}, stray temporary files: {}",
            strays.len()
        ));
    }
    eprintln!(
        "full run {full_run:?} on {} bytes\n{}",
        original.len(),
        outcomes.join("\n")
    );
}

#[test]
fn errors_at_the_first_value_have_a_one_based_column() {
    for input in ["", "   ", "{}", "null", "\"x\"", "5"] {
        let err = msgflow_wire::from_str(input).expect_err("not a history");
        assert!(err.line() >= 1 && err.column() >= 1, "{input:?}: {err}");
    }
}

const ID_LESS_CALL: &str = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi"}]},{"kind":"response","parts":[{"part_kind":"text","content":"hello"},{"part_kind":"tool-call","tool_name":"t"}]},{"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"t","content":null,"tool_call_id":"x"}]},{"kind":"response","parts":[]}]"#;

/// Regression, found by the `repair` fuzz target: a tool call without `tool_call_id` was closed
/// by a synthesized result without id, which `check` then reported as an orphan (and the call as
/// still dangling), so `msgflow repair` followed by `msgflow check` exited 1.
#[test]
fn repair_output_of_an_id_less_call_passes_check() {
    let history = msgflow_wire::from_str(ID_LESS_CALL).expect("parses");
    let repaired = repair(history, &RepairOptions::default());
    let left = msgflow_integration_tests::unpaired(&repaired.history);
    assert!(left.is_empty(), "{left:#?}");
}

/// Regression, found by the `repair` fuzz target (same input): the second repair of a repaired
/// history removed the synthesized id-less result as an orphan and synthesized it again, so the
/// report was never empty. Repair now gives id-less calls a deterministic id.
#[test]
fn second_repair_of_an_id_less_call_reports_nothing() {
    let history = msgflow_wire::from_str(ID_LESS_CALL).expect("parses");
    let once = repair(history, &RepairOptions::default());
    let twice = repair(once.history.clone(), &RepairOptions::default());
    assert!(twice.history == once.history);
    assert!(twice.report.is_empty(), "{}", twice.report);
}

/// Regression, found by the `repair` fuzz target: with an id-less call next to calls with ids,
/// the second repair removed the id-less synthesized result and appended it again after the
/// others, so even the history changed (result order `grep, write` became `write, grep`).
#[test]
fn second_repair_keeps_the_order_of_synthesized_results() {
    let input = r#"[{"parts":[{"content":"start","part_kind":"user-prompt"}],"kind":"request"},{"parts":[{"tool_name":"grep","args":null,"part_kind":"tool-call"},{"tool_name":"write","args":{"p":1},"tool_call_id":"id_e","part_kind":"tool-call"}],"timestamp":"2025-01-05T07:01:07Z","kind":"response"},{"parts":[{"content":"go on","part_kind":"user-prompt"}],"kind":"request"}]"#;
    let history = msgflow_wire::from_str(input).expect("parses");
    let once = repair(history, &RepairOptions::default());
    let twice = repair(once.history.clone(), &RepairOptions::default());
    assert!(
        twice.history == once.history,
        "{}\n{}",
        msgflow_wire::to_string(&once.history).unwrap_or_default(),
        msgflow_wire::to_string(&twice.history).unwrap_or_default()
    );
}

/// `msgflow show` on one long line of text: `wrap` (crates/cli/src/commands/show.rs) counts
/// the remaining characters on every wrapped line, so time grows with the square of the line's
/// length (1.6 MB: 2.5 s, 3.2 MB: 13 s in a debug build; a 50 MB text part effectively hangs).
#[test]
fn show_wraps_a_long_line_in_linear_time() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let text = "word ".repeat(8 * 1024 * 1024 / 5);
    let history = format!(
        r#"[{{"parts":[{{"content":"{text}","part_kind":"text"}}],"usage":{{}},"model_name":null,"timestamp":"2025-01-02T03:04:05Z","kind":"response"}}]"#
    );
    fs::write(dir.path().join("long.json"), history).expect("write");
    let mut child = Command::new(msgflow_bin())
        .args(["show", "--color", "never", "long.json"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("msgflow show took more than 20 s on an 8 MB line");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn failed_commands_never_modify_their_input() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let valid = fixture("v2_68/tool-call-return-basic.json");
    let broken = &valid[..valid.len() / 2];
    fs::write(dir.path().join("broken.json"), broken).expect("write");
    fs::write(dir.path().join("valid.json"), &valid).expect("write");
    // Batch with a broken file: the broken one is untouched, the valid one is processed.
    let run = msgflow(
        dir.path(),
        &["repair", "--in-place", "--backup", "broken.json", "valid.json"],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(fs::read(dir.path().join("broken.json")).expect("read"), broken);
    assert!(!dir.path().join("broken.json.bak").exists());
    // `wire` on a history that is not canonical JSON, `canonical` on canonical JSON.
    for (command, name) in [("wire", "valid.json"), ("fmt", "broken.json")] {
        let before = fs::read(dir.path().join(name)).expect("read");
        let run = msgflow(dir.path(), &[command, "--in-place", name]);
        assert_eq!(run.code, Some(2), "{command}: {}", run.stderr);
        assert_eq!(
            fs::read(dir.path().join(name)).expect("read"),
            before,
            "{command} changed {name}"
        );
    }
    assert!(listing(dir.path()).iter().all(|name| !name.ends_with(".msgflow-tmp")));
}
