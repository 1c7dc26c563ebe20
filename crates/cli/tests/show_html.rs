//! `msgflow show --html`: one page per input, the markers `check` finds, a batch's index, and
//! the input left untouched. The pages themselves are opened in Chromium by tests/browser/.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

fn msgflow() -> Result<Command, Box<dyn std::error::Error>> {
    Ok(Command::cargo_bin("msgflow")?)
}

#[test]
fn a_page_has_the_messages_and_check_markers() -> TestResult {
    let output = msgflow()?
        .args(["show", "--html", "--context-window", "2000"])
        .arg(example("interrupted-session.json"))
        .assert()
        .success()
        .get_output()
        .clone();
    let page = String::from_utf8(output.stdout)?;
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_eq!(page.matches("<article class=\"msg ").count(), 7);
    // `check` finds the two dangling calls of message 5, parts 1 and 2.
    assert!(page.contains(
        "<div class=\"marker\" data-message=\"5\" data-part=\"1\"><span class=\"marker-source\">check</span>"
    ));
    assert!(page.contains("<div class=\"marker\" data-message=\"5\" data-part=\"2\">"));
    assert!(page.contains("pydantic-ai 2.68.0 loads it"));
    assert!(page.contains("of a 2000-token context window"));
    Ok(())
}

#[test]
fn a_batch_writes_a_page_per_input_and_an_index() -> TestResult {
    let dir = tempfile::tempdir()?;
    let inputs = dir.path().join("in");
    fs::create_dir_all(inputs.join("sub"))?;
    fs::copy(example("interrupted-session.json"), inputs.join("a.json"))?;
    fs::copy(example("interrupted-session.json"), inputs.join("sub/b.json"))?;
    fs::write(inputs.join("bad.json"), "[{")?;
    let out = dir.path().join("pages");
    msgflow()?
        .args(["show", "--html", "-r"])
        .arg(&inputs)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.json"));
    assert!(out.join("a.html").exists());
    assert!(out.join("sub/b.html").exists());
    assert!(!out.join("bad.html").exists());
    let index = fs::read_to_string(out.join("index.html"))?;
    assert!(index.contains("href=\"a.html\""));
    assert!(index.contains("href=\"sub/b.html\""));
    assert!(index.contains("bad.json"));
    // The inputs are left as they were.
    assert_eq!(fs::read_to_string(inputs.join("bad.json"))?, "[{");
    Ok(())
}

#[test]
fn an_input_named_index_is_refused_in_a_batch() -> TestResult {
    let dir = tempfile::tempdir()?;
    fs::copy(example("interrupted-session.json"), dir.path().join("index.json"))?;
    fs::copy(example("interrupted-session.json"), dir.path().join("other.json"))?;
    msgflow()?
        .args(["show", "--html"])
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("pages"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("index.html"));
    Ok(())
}

#[test]
fn terminal_options_do_not_mix_with_html() -> TestResult {
    msgflow()?
        .args(["show", "--html", "--full"])
        .arg(example("interrupted-session.json"))
        .assert()
        .code(2);
    msgflow()?
        .args(["show", "--context-window", "10"])
        .arg(example("interrupted-session.json"))
        .assert()
        .code(2);
    Ok(())
}
