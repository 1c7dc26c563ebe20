//! Errors and exit codes end to end: located messages, usage errors, --help, input limits, and
//! integers beyond 64 bits through every command.

mod common;

use std::fs;

use predicates::prelude::*;

use common::{fixture, msgflow, TestResult, BIG_INTEGERS, NOT_A_HISTORY, NOT_JSON};

// ---------------------------------------------------------------------------------------------
// Errors and exit codes

#[test]
fn invalid_json_is_exit_2_with_file_line_column_and_help() -> TestResult {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("bad.json");
    fs::write(&file, NOT_JSON)?;
    msgflow()?.arg("stats").arg(&file).assert().code(2).stdout("").stderr(
        predicate::str::contains("bad.json")
            .and(predicate::str::contains("line 2, column"))
            .and(predicate::str::contains("help: the input is not valid JSON")),
    );
    Ok(())
}

#[test]
fn a_valid_json_non_history_is_exit_2_with_the_json_path() -> TestResult {
    msgflow()?
        .arg("show")
        .write_stdin(NOT_A_HISTORY)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("<stdin>: not a pydantic-ai message history: at $[0].parts[0] (line 1, column ")
                .and(predicate::str::contains("missing required key `content`"))
                .and(predicate::str::contains("msgflow schema wire")),
        );
    Ok(())
}

#[test]
fn a_missing_file_is_exit_2() -> TestResult {
    msgflow()?
        .args(["stats", "no/such/file.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read no/such/file.json"));
    Ok(())
}

#[test]
fn usage_errors_are_exit_2() -> TestResult {
    msgflow()?.args(["fmt", "--no-such-flag"]).assert().code(2);
    msgflow()?.args(["fmt", "--backup", "x.json"]).assert().code(2);
    msgflow()?.args(["nonsense"]).assert().code(2);
    msgflow()?
        .args(["fmt", "--in-place"])
        .write_stdin("[]")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--in-place needs a FILE"));
    msgflow()?.args(["show", "--width", "5", "x.json"]).assert().code(2);
    Ok(())
}

#[test]
fn version_and_help_document_examples_and_exit_codes() -> TestResult {
    msgflow()?
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("msgflow "));
    msgflow()?
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Exit codes:"));
    for subcommand in [
        "fmt",
        "show",
        "stats",
        "schema",
        "completions",
        "canonical",
        "wire",
        "check",
        "repair",
        "tools",
    ] {
        msgflow()?
            .args([subcommand, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples:").and(predicate::str::contains("Exit codes:")));
    }
    Ok(())
}

#[test]
fn inputs_over_max_input_bytes_are_refused_before_reading() -> TestResult {
    let path = fixture("minimal.json");
    let size = fs::metadata(&path)?.len();
    msgflow()?
        .args(["fmt", "--max-input-bytes"])
        .arg((size - 1).to_string())
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("larger than --max-input-bytes"));
    msgflow()?
        .args(["fmt", "--max-input-bytes"])
        .arg(size.to_string())
        .arg(&path)
        .assert()
        .success();
    msgflow()?
        .args(["check", "--max-input-bytes", "10", "-"])
        .write_stdin(fs::read(&path)?)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("larger than --max-input-bytes (10 bytes)"));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// integers of any size (pydantic-ai writes Python ints exactly)

#[test]
fn integers_beyond_64_bits_are_read_and_written_exactly_by_every_command() -> TestResult {
    msgflow()?
        .arg("fmt")
        .write_stdin(BIG_INTEGERS)
        .assert()
        .success()
        .stdout(BIG_INTEGERS);
    msgflow()?
        .arg("show")
        .write_stdin(BIG_INTEGERS)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "tokens: -18446744073709551617 in, 18446744073709551616 out",
        ))
        .stdout(predicate::str::contains("340282366920938463463374607431768211456"));
    let stats = msgflow()?
        .args(["stats", "--json"])
        .write_stdin(BIG_INTEGERS)
        .output()?;
    assert!(stats.status.success());
    let report: serde_json::Value = serde_json::from_slice(&stats.stdout)?;
    // 2**64 fits the 128-bit sums; a count beyond them would be listed in `out_of_range`.
    assert_eq!(report["tokens"]["output"], serde_json::json!(18446744073709551616_i128));
    assert_eq!(report["tokens"]["input"], serde_json::json!(-18446744073709551617_i128));
    let tools = msgflow()?.arg("tools").write_stdin(BIG_INTEGERS).output()?;
    assert!(tools.status.success());
    assert!(String::from_utf8(tools.stdout)?.contains("\"offset\": 340282366920938463463374607431768211456"));
    let repaired = msgflow()?.arg("repair").write_stdin(BIG_INTEGERS).output()?;
    assert!(String::from_utf8(repaired.stdout)?.starts_with(&BIG_INTEGERS[..BIG_INTEGERS.len() - 1]));
    Ok(())
}
