//! End-to-end tests of `msgflow trim` and `msgflow stats --tokens` (msgflow-context).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/interrupted-session.json")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/v2_68")
        .join(name)
}

fn msgflow() -> Result<Command, Box<dyn std::error::Error>> {
    let mut command = Command::cargo_bin("msgflow")?;
    command.env_remove("NO_COLOR").env_remove("COLUMNS");
    // Messages name the input as given: run where the example's relative path is stable.
    command.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    Ok(command)
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn trim_keeps_the_newest_turn_with_the_system_prompt_and_reports_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let report = dir.path().join("report.json");
    let output = msgflow()?
        .args(["trim", "--keep-turns", "1", "--report"])
        .arg(&report)
        .arg("examples/interrupted-session.json")
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    insta::assert_snapshot!("context-trim-notes", stderr(&output));
    let trimmed = msgflow_wire::from_slice(&output.stdout)?;
    assert!(msgflow_sanitize::check(&trimmed).is_empty());
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&report)?)?;
    // As text: insta's JSON snapshots cannot write serde_json's arbitrary-precision numbers.
    insta::assert_snapshot!("context-trim-report", serde_json::to_string_pretty(&report)?);

    // Trimming the output again changes nothing.
    let again = msgflow()?
        .args(["trim", "--keep-turns", "1", "-"])
        .write_stdin(output.stdout.clone())
        .output()?;
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(again.stdout, output.stdout);
    Ok(())
}

#[test]
fn trim_refuses_with_exit_1_when_the_newest_turn_does_not_fit() -> TestResult {
    let output = msgflow()?
        .args(["trim", "--max-tokens", "10", "examples/interrupted-session.json"])
        .output()?;
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    insta::assert_snapshot!("context-trim-too-small", stderr(&output));
    Ok(())
}

#[test]
fn a_history_that_fits_is_written_byte_for_byte() -> TestResult {
    let input = std::fs::read(example())?;
    let output = msgflow()?
        .args(["trim", "--max-tokens", "100000"])
        .arg(example())
        .output()?;
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, input);
    Ok(())
}

#[test]
fn dry_run_reports_what_each_step_reclaims() -> TestResult {
    let output = msgflow()?
        .args([
            "trim",
            "--clear-tool-results-older-than",
            "1",
            "--clamp-parts",
            "128",
            "--max-bytes",
            "3000",
            "--dry-run",
            "examples/interrupted-session.json",
        ])
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    insta::assert_snapshot!("context-trim-dry-run", String::from_utf8(output.stdout)?);

    // When even the newest turn does not fit, the dry run says so, after what the steps reclaim.
    let output = msgflow()?
        .args(["trim", "--clamp-parts", "128", "--max-bytes", "1000", "--dry-run"])
        .arg(fixture("coding-agent-session.json"))
        .output()?;
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout)?;
    assert!(text.starts_with("clamp-parts"), "{text}");
    assert!(text.contains("trim: the newest turn (messages 0..=9) needs"), "{text}");
    Ok(())
}

#[test]
fn clearing_and_clamping_keep_every_pair() -> TestResult {
    let input = msgflow_wire::from_slice(&std::fs::read(fixture("coding-agent-session.json"))?)?;
    // The harness keeps 2000 characters of head and of tail: no part of this session is longer.
    for (args, changes) in [
        (&["--clear-tool-results-older-than", "0"][..], true),
        (&["--harness-clear", "0"], true),
        (&["--clamp-parts", "128"], true),
        (&["--harness-clamp", "10"], false),
    ] {
        let output = msgflow()?
            .arg("trim")
            .args(args)
            .arg(fixture("coding-agent-session.json"))
            .output()?;
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", stderr(&output));
        let changed = msgflow_wire::from_slice(&output.stdout)?;
        assert_eq!(changed.len(), input.len(), "{args:?}");
        assert_eq!(
            msgflow_sanitize::check(&changed),
            msgflow_sanitize::check(&input),
            "{args:?}"
        );
        assert_eq!(changed != input, changes, "{args:?}");
    }
    Ok(())
}

#[test]
fn trim_without_a_budget_or_a_step_is_a_usage_error() -> TestResult {
    let output = msgflow()?
        .args(["trim", "examples/interrupted-session.json"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("trim needs a budget"), "{}", stderr(&output));
    let output = msgflow()?
        .args(["trim", "--keep-turns", "0", "examples/interrupted-session.json"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    Ok(())
}

#[test]
fn stats_tokens_counts_per_message_and_part_kind() -> TestResult {
    let output = msgflow()?
        .args(["stats", "--tokens", "examples/interrupted-session.json"])
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    insta::assert_snapshot!("context-stats-tokens", String::from_utf8(output.stdout)?);

    let output = msgflow()?
        .args([
            "stats",
            "--tokens",
            "--tokenizer",
            "calibrated",
            "--json",
            "examples/interrupted-session.json",
        ])
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(report["calibration"]["response_index"], 5);
    assert_eq!(report["calibration"]["recorded_input_tokens"], 3650);
    assert_eq!(report["media_rule"], "anthropic");
    Ok(())
}

#[test]
fn calibrating_without_recorded_usage_is_explained() -> TestResult {
    let output = msgflow()?
        .args(["stats", "--tokens", "--tokenizer", "calibrated"])
        .arg(fixture("minimal.json"))
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no response in the history records usage.input_tokens"));
    Ok(())
}

#[test]
fn media_extract_then_inline_restores_the_file_byte_for_byte() -> TestResult {
    let dir = tempfile::tempdir()?;
    let media = dir.path().join("media");
    let light = dir.path().join("light.json");
    let back = dir.path().join("back.json");
    let output = msgflow()?
        .args(["media", "extract", "--dir"])
        .arg(&media)
        .arg(fixture("user-content-binary.json"))
        .arg("-o")
        .arg(&light)
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("moved 5 media items"), "{}", stderr(&output));
    assert!(std::fs::read_to_string(&light)?.contains("msgflow.media-ref"));
    let output = msgflow()?
        .args(["media", "inline", "--dir"])
        .arg(&media)
        .arg(&light)
        .arg("-o")
        .arg(&back)
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read(&back)?,
        std::fs::read(fixture("user-content-binary.json"))?
    );

    // A missing file: exit 2, naming it, and nothing written.
    let first = std::fs::read_dir(&media)?.next().ok_or("no media file")??.path();
    std::fs::remove_file(&first)?;
    let output = msgflow()?
        .args(["media", "inline", "--dir"])
        .arg(&media)
        .arg(&light)
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let name = first.file_name().ok_or("no name")?.to_string_lossy().into_owned();
    assert!(stderr(&output).contains(&name), "{}", stderr(&output));
    Ok(())
}
