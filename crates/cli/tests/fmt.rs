//! `msgflow fmt` end to end: stdin/stdout, -o, --in-place and --backup, --check, and the input
//! left untouched when anything fails.

mod common;

use std::fs;

use predicates::prelude::*;

use common::{directory_listing, fixture, msgflow, pretty, TestResult, NOT_A_HISTORY, NOT_JSON};

// ---------------------------------------------------------------------------------------------
// fmt, stdin/stdout, -o, --in-place, --backup

#[test]
fn fmt_reads_stdin_and_writes_the_compact_form_to_stdout() -> TestResult {
    let compact = fs::read(fixture("coding-agent-session.json"))?;
    msgflow()?
        .arg("fmt")
        .write_stdin(pretty(&compact)?)
        .assert()
        .success()
        .stdout(compact.clone());
    msgflow()?
        .args(["fmt", "-"])
        .write_stdin(pretty(&compact)?)
        .assert()
        .success()
        .stdout(compact);
    Ok(())
}

#[test]
fn fmt_keeps_a_pydantic_dump_byte_for_byte() -> TestResult {
    for name in [
        "coding-agent-session.json",
        "interrupted-end.json",
        "usage-all-fields.json",
    ] {
        let bytes = fs::read(fixture(name))?;
        msgflow()?
            .arg("fmt")
            .arg(fixture(name))
            .assert()
            .success()
            .stdout(bytes);
    }
    Ok(())
}

#[test]
fn fmt_writes_to_an_output_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let compact = fs::read(fixture("interrupted-end.json"))?;
    let input = dir.path().join("in.json");
    fs::write(&input, pretty(&compact)?)?;
    let output = dir.path().join("out.json");
    msgflow()?
        .arg("fmt")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .assert()
        .success()
        .stdout("");
    assert_eq!(fs::read(&output)?, compact);
    assert_eq!(fs::read(&input)?, pretty(&compact)?, "the input is left alone");
    Ok(())
}

#[test]
fn fmt_in_place_rewrites_and_backup_keeps_the_original() -> TestResult {
    let dir = tempfile::tempdir()?;
    let compact = fs::read(fixture("coding-agent-session.json"))?;
    let original = pretty(&compact)?;
    let file = dir.path().join("h.json");
    fs::write(&file, &original)?;
    msgflow()?
        .args(["fmt", "--in-place", "--backup"])
        .arg(&file)
        .assert()
        .success()
        .stdout("");
    assert_eq!(fs::read(&file)?, compact);
    assert_eq!(fs::read(dir.path().join("h.json.bak"))?, original);
    assert_eq!(
        directory_listing(dir.path())?,
        ["h.json", "h.json.bak"],
        "no temporary file is left"
    );

    // Without --backup, no .bak is created.
    let other = dir.path().join("g.json");
    fs::write(&other, &original)?;
    msgflow()?.args(["fmt", "-i"]).arg(&other).assert().success();
    assert_eq!(fs::read(&other)?, compact);
    assert!(!dir.path().join("g.json.bak").exists());
    Ok(())
}

#[test]
fn fmt_in_place_on_invalid_input_leaves_the_file_untouched() -> TestResult {
    let dir = tempfile::tempdir()?;
    for (name, content) in [("broken.json", NOT_A_HISTORY), ("invalid.json", NOT_JSON)] {
        let file = dir.path().join(name);
        fs::write(&file, content)?;
        msgflow()?
            .args(["fmt", "--in-place", "--backup"])
            .arg(&file)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(name));
        assert_eq!(fs::read_to_string(&file)?, content, "{name} survives byte for byte");
    }
    assert_eq!(
        directory_listing(dir.path())?,
        ["broken.json", "invalid.json"],
        "no backup, no temporary file"
    );
    Ok(())
}

#[test]
fn a_failure_while_writing_leaves_the_input_untouched() -> TestResult {
    let dir = tempfile::tempdir()?;
    let original = pretty(&fs::read(fixture("interrupted-end.json"))?)?;
    let file = dir.path().join("h.json");
    fs::write(&file, &original)?;
    // The backup cannot be written (a directory is in the way): the run must stop before the rename.
    fs::create_dir(dir.path().join("h.json.bak"))?;
    msgflow()?
        .args(["fmt", "--in-place", "--backup"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot write").and(predicate::str::contains("h.json.bak")));
    assert_eq!(fs::read(&file)?, original);
    assert_eq!(directory_listing(dir.path())?, ["h.json", "h.json.bak"]);

    // An output path whose parent is a file cannot be written either.
    let blocked = file.join("out.json");
    msgflow()?
        .arg("fmt")
        .arg(&file)
        .arg("-o")
        .arg(&blocked)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot write"));
    assert_eq!(fs::read(&file)?, original);
    Ok(())
}

#[cfg(unix)]
#[test]
fn in_place_in_a_read_only_directory_fails_cleanly() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let original = pretty(&fs::read(fixture("interrupted-end.json"))?)?;
    let file = dir.path().join("h.json");
    fs::write(&file, &original)?;
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o555))?;
    // Privileged users (root in containers) can write anyway; then there is nothing to test.
    let writable = fs::write(dir.path().join("probe"), b"").is_ok();
    if !writable {
        msgflow()?.args(["fmt", "--in-place"]).arg(&file).assert().code(2);
        assert_eq!(fs::read(&file)?, original);
        assert_eq!(directory_listing(dir.path())?, ["h.json"]);
    }
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755))?;
    Ok(())
}

#[test]
fn fmt_check_reports_files_not_in_compact_form() -> TestResult {
    let dir = tempfile::tempdir()?;
    let compact = fs::read(fixture("minimal.json"))?;
    let file = dir.path().join("pretty.json");
    fs::write(&file, pretty(&compact)?)?;
    msgflow()?
        .args(["fmt", "--check"])
        .arg(&file)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "pretty.json: not in pydantic-ai's compact form",
        ));
    assert_eq!(fs::read(&file)?, pretty(&compact)?);
    msgflow()?
        .args(["fmt", "--check"])
        .arg(fixture("minimal.json"))
        .assert()
        .success()
        .stdout("");
    Ok(())
}
