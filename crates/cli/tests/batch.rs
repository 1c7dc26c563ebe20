//! Batch mode end to end: several inputs or directories, -o DIR, --in-place, per-file sections
//! and JSON Lines, the worst status.

mod common;

use std::fs;
use std::path::Path;

use predicates::prelude::*;

use common::{fixture, msgflow, pretty, BatchDir, TestResult, NOT_A_HISTORY, NOT_JSON};

// ---------------------------------------------------------------------------------------------
// Batch mode

#[test]
fn batch_fmt_in_place_processes_every_file_and_reports_the_worst() -> TestResult {
    let batch = BatchDir::new()?;
    msgflow()?
        .args(["fmt", "--in-place"])
        .arg(batch.dir.path())
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("broken.json: not a pydantic-ai message history")
                .and(predicate::str::contains(
                    "invalid.json: not a pydantic-ai message history",
                ))
                .and(predicate::str::contains(
                    "msgflow: 3 files: 1 ok, 0 with problems, 2 invalid",
                )),
        );
    assert_eq!(fs::read(batch.path("valid.json"))?, batch.compact);
    assert_eq!(fs::read_to_string(batch.path("broken.json"))?, NOT_A_HISTORY);
    assert_eq!(fs::read_to_string(batch.path("invalid.json"))?, NOT_JSON);
    assert_eq!(
        fs::read(batch.path("sub/nested.json"))?,
        pretty(&batch.compact)?,
        "not recursive without -r"
    );

    msgflow()?
        .args(["fmt", "--in-place", "-r"])
        .arg(batch.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("4 files: 2 ok, 0 with problems, 2 invalid"));
    assert_eq!(fs::read(batch.path("sub/nested.json"))?, batch.compact);
    Ok(())
}

#[test]
fn batch_fmt_into_an_output_directory_mirrors_the_layout() -> TestResult {
    let batch = BatchDir::new()?;
    let out = tempfile::tempdir()?;
    msgflow()?
        .args(["fmt", "-r", "-o"])
        .arg(out.path())
        .arg(batch.dir.path())
        .assert()
        .code(2);
    assert_eq!(fs::read(out.path().join("valid.json"))?, batch.compact);
    assert_eq!(fs::read(out.path().join("sub/nested.json"))?, batch.compact);
    assert!(!out.path().join("broken.json").exists());
    assert_eq!(
        fs::read(batch.path("valid.json"))?,
        pretty(&batch.compact)?,
        "inputs untouched"
    );
    Ok(())
}

#[test]
fn batch_of_valid_files_exits_0_and_check_exits_1() -> TestResult {
    let dir = tempfile::tempdir()?;
    let compact = fs::read(fixture("minimal.json"))?;
    fs::write(dir.path().join("a.json"), &compact)?;
    fs::write(dir.path().join("b.json"), pretty(&compact)?)?;
    msgflow()?
        .args(["fmt", "--check"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("2 files: 1 ok, 1 with problems, 0 invalid"));
    msgflow()?
        .args(["fmt", "-i"])
        .arg(dir.path().join("a.json"))
        .arg(dir.path().join("b.json"))
        .assert()
        .success();
    msgflow()?.args(["fmt", "--check"]).arg(dir.path()).assert().success();
    Ok(())
}

#[test]
fn batch_transform_without_a_destination_is_a_usage_error() -> TestResult {
    let batch = BatchDir::new()?;
    msgflow()?
        .arg("fmt")
        .arg(batch.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--in-place").and(predicate::str::contains("-o DIR")));
    assert_eq!(fs::read(batch.path("valid.json"))?, pretty(&batch.compact)?);
    Ok(())
}

#[test]
fn batch_reports_print_one_section_per_file() -> TestResult {
    let batch = BatchDir::new()?;
    let assert = msgflow()?.arg("stats").arg(batch.dir.path()).assert().code(2);
    let stdout = String::from_utf8(assert.get_output().stdout.clone())?;
    assert_eq!(
        stdout.matches("==> ").count(),
        1,
        "only the valid file has a report:\n{stdout}"
    );
    assert!(
        stdout.contains("valid.json <==\nmessages            10 (5 requests, 5 responses)"),
        "{stdout}"
    );
    Ok(())
}

#[test]
fn batch_stats_json_writes_json_lines() -> TestResult {
    let batch = BatchDir::new()?;
    let assert = msgflow()?
        .args(["stats", "--json", "-r"])
        .arg(batch.dir.path())
        .assert()
        .code(2);
    let stdout = String::from_utf8(assert.get_output().stdout.clone())?;
    let lines: Vec<serde_json::Value> = stdout.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    let statuses: Vec<(String, String)> = lines
        .iter()
        .map(|line| {
            let file = line["file"].as_str().unwrap_or_default();
            let name = Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, line["status"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("broken.json".to_owned(), "invalid".to_owned()),
            ("invalid.json".to_owned(), "invalid".to_owned()),
            ("nested.json".to_owned(), "ok".to_owned()),
            ("valid.json".to_owned(), "ok".to_owned()),
        ]
    );
    assert_eq!(lines[3]["report"]["messages"]["total"], 10);
    assert!(lines[0]["error"]
        .as_str()
        .is_some_and(|error| error.contains("$[0].parts[0]")));
    Ok(())
}

#[test]
fn batch_of_named_files_and_an_empty_directory() -> TestResult {
    let empty = tempfile::tempdir()?;
    msgflow()?
        .arg("stats")
        .arg(empty.path())
        .assert()
        .success()
        .stderr(predicate::str::contains("no *.json files found"));
    msgflow()?
        .arg("stats")
        .arg(fixture("minimal.json"))
        .arg(fixture("interrupted-end.json"))
        .assert()
        .success()
        .stdout(predicate::str::contains("minimal.json <==").and(predicate::str::contains("interrupted-end.json <==")));
    Ok(())
}
