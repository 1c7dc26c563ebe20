//! End-to-end tests: run the built `msgflow` binary.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/v2_68")
        .join(name)
}

/// A file of the repository, by its path from the root.
fn repo_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn msgflow() -> Result<Command, Box<dyn std::error::Error>> {
    let mut command = Command::cargo_bin("msgflow")?;
    // Deterministic output whatever the environment running the tests says.
    command.env_remove("NO_COLOR").env_remove("COLUMNS");
    Ok(command)
}

/// The same history, pretty-printed (valid, but not in pydantic-ai's compact form).
fn pretty(bytes: &[u8]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let value: serde_json::Value = serde_json::from_slice(bytes)?;
    Ok(serde_json::to_vec_pretty(&value)?)
}

/// Valid JSON that is not a history: a user-prompt part without `content`.
const NOT_A_HISTORY: &str = r#"[{"kind":"request","parts":[{"part_kind":"user-prompt"}]}]"#;
/// Not JSON at all.
const NOT_JSON: &str = "[{\"kind\": \"request\",\n  \"parts\": [}";

fn directory_listing(dir: &Path) -> Result<Vec<String>, std::io::Error> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

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

// ---------------------------------------------------------------------------------------------
// Batch mode

/// A directory with a valid (pretty-printed) file, a broken one (valid JSON, not a history), an
/// invalid one (not JSON), a non-JSON file, and a valid file in a subdirectory.
struct BatchDir {
    dir: tempfile::TempDir,
    compact: Vec<u8>,
}

impl BatchDir {
    fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let compact = fs::read(fixture("coding-agent-session.json"))?;
        fs::write(dir.path().join("valid.json"), pretty(&compact)?)?;
        fs::write(dir.path().join("broken.json"), NOT_A_HISTORY)?;
        fs::write(dir.path().join("invalid.json"), NOT_JSON)?;
        fs::write(dir.path().join("notes.txt"), "not a history")?;
        fs::create_dir(dir.path().join("sub"))?;
        fs::write(dir.path().join("sub/nested.json"), pretty(&compact)?)?;
        Ok(BatchDir { dir, compact })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

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

// ---------------------------------------------------------------------------------------------
// show and stats output, pinned

#[test]
fn show_transcripts() -> TestResult {
    for name in [
        "coding-agent-session",
        "interrupted-end",
        "user-content-mixed",
        "tool-return-outcomes",
    ] {
        let assert = msgflow()?
            .args(["show", "--color", "never", "--width", "100"])
            .arg(fixture(&format!("{name}.json")))
            .assert()
            .success();
        let stdout = String::from_utf8(assert.get_output().stdout.clone())?;
        insta::assert_snapshot!(format!("show-{name}"), stdout);
    }
    Ok(())
}

#[test]
fn show_truncates_long_tool_output_unless_full() -> TestResult {
    let output: Vec<String> = (1..=30).map(|n| format!("line {n}")).collect();
    let history = serde_json::json!([
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "ls", "args": {}, "tool_call_id": "c1"}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "ls",
            "content": output.join("\n"), "tool_call_id": "c1", "outcome": "success"}]}
    ])
    .to_string();
    msgflow()?
        .args(["show", "--max-lines", "5"])
        .write_stdin(history.clone())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("line 5\n")
                .and(predicate::str::contains("line 6\n").not())
                .and(predicate::str::contains("... 25 more lines (--full shows everything)")),
        );
    msgflow()?
        .args(["show", "--full", "--max-lines", "5"])
        .write_stdin(history)
        .assert()
        .success()
        .stdout(predicate::str::contains("line 30\n").and(predicate::str::contains("more lines").not()));
    Ok(())
}

#[test]
fn show_colours_only_when_asked_or_on_a_terminal() -> TestResult {
    let file = fixture("coding-agent-session.json");
    msgflow()?
        .args(["show", "--color", "always"])
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("\u{1b}["));
    // Not a terminal: `auto` means no colours.
    msgflow()?
        .arg("show")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("\u{1b}[").not());
    Ok(())
}

#[test]
fn show_escapes_terminal_control_sequences_in_content() -> TestResult {
    let history = serde_json::json!([
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi \u{1b}]0;pwned\u{7}"}]}
    ])
    .to_string();
    msgflow()?.arg("show").write_stdin(history).assert().success().stdout(
        predicate::str::contains("hi \\u{001b}]0;pwned\\u{0007}").and(predicate::str::contains("\u{1b}").not()),
    );
    Ok(())
}

#[test]
fn stats_tables_and_json() -> TestResult {
    for name in [
        "coding-agent-session",
        "interrupted-end",
        "usage-all-fields",
        "tool-return-outcomes",
    ] {
        let file = fixture(&format!("{name}.json"));
        let assert = msgflow()?.arg("stats").arg(&file).assert().success();
        insta::assert_snapshot!(
            format!("stats-{name}"),
            String::from_utf8(assert.get_output().stdout.clone())?
        );
        let assert = msgflow()?.args(["stats", "--json"]).arg(&file).assert().success();
        // The JSON as printed (a `serde_json::Value` does not go through insta's serialiser with
        // serde_json's `arbitrary_precision`, which keeps integers of any size exact).
        let report: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
        insta::assert_snapshot!(format!("stats-json-{name}"), serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

#[test]
fn report_output_goes_to_a_file_with_dash_o() -> TestResult {
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("stats.json");
    msgflow()?
        .args(["stats", "--json", "-o"])
        .arg(&out)
        .arg(fixture("minimal.json"))
        .assert()
        .success()
        .stdout("");
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&out)?)?;
    assert_eq!(report["messages"]["total"], 2);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// schema and completions

#[test]
fn schema_prints_the_committed_wire_schema() -> TestResult {
    let committed = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/pydantic-ai-messages.schema.json"),
    )?;
    let assert = msgflow()?.arg("schema").assert().success();
    let printed = String::from_utf8(assert.get_output().stdout.clone())?;
    assert_eq!(printed.trim_end(), committed.trim_end());
    msgflow()?.args(["schema", "wire"]).assert().success().stdout(printed);
    Ok(())
}

#[test]
fn completions_are_generated_for_each_shell() -> TestResult {
    // Each shell's own registration, and the subcommands it completes.
    for (shell, registration) in [
        ("bash", "complete -F _msgflow"),
        ("zsh", "#compdef msgflow"),
        ("fish", "complete -c msgflow"),
        ("elvish", "edit:completion:arg-completer[msgflow]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let assert = msgflow()?.args(["completions", shell]).assert().success();
        let script = String::from_utf8(assert.get_output().stdout.clone())?;
        assert!(script.contains(registration), "{shell}: no `{registration}`");
        for command in ["check", "repair", "export", "trim", "schema", "completions"] {
            assert!(script.contains(command), "{shell}: `{command}` is not completed");
        }
    }
    msgflow()?.args(["completions", "tcsh"]).assert().code(2);
    Ok(())
}

#[test]
fn schema_prints_the_registry_and_canonical_schemas() -> TestResult {
    for (kind, expected) in [
        ("registry", msgflow_registry::registry_schema()),
        ("canonical", msgflow_canonical::canonical_schema()),
    ] {
        let assert = msgflow()?.args(["schema", kind]).assert().success();
        let printed: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
        assert_eq!(printed, expected, "{kind}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// canonical, wire, check, repair, tools

#[test]
fn canonical_and_wire_round_trip_byte_for_byte() -> TestResult {
    for name in [
        "coding-agent-session.json",
        "interrupted-end.json",
        "user-content-mixed.json",
    ] {
        let original = fs::read(fixture(name))?;
        let assert = msgflow()?.arg("canonical").arg(fixture(name)).assert().success();
        let canonical = assert.get_output().stdout.clone();
        let parsed: serde_json::Value = serde_json::from_slice(&canonical)?;
        assert!(parsed.is_array(), "{name}");
        msgflow()?
            .arg("wire")
            .write_stdin(canonical)
            .assert()
            .success()
            .stdout(original.clone());
        // --pretty is the same JSON value.
        let assert = msgflow()?
            .args(["canonical", "--pretty"])
            .arg(fixture(name))
            .assert()
            .success();
        let pretty: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
        assert_eq!(pretty, parsed);
    }
    Ok(())
}

#[test]
fn wire_rejects_what_is_not_canonical_json() -> TestResult {
    msgflow()?
        .arg("wire")
        .write_stdin(r#"[{"role": "nobody"}]"#)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("<stdin>: not msgflow canonical JSON").and(predicate::str::contains("help:")));
    Ok(())
}

#[test]
fn check_exits_1_on_violations_and_0_on_a_clean_history() -> TestResult {
    let assert = msgflow()?
        .arg("check")
        .arg(fixture("interrupted-end.json"))
        .assert()
        .code(1);
    let stdout = String::from_utf8(assert.get_output().stdout.clone())?;
    insta::assert_snapshot!("check-interrupted-end", stdout);
    msgflow()?
        .arg("check")
        .arg(fixture("coding-agent-session.json"))
        .assert()
        .success()
        .stdout("no problems found\n");

    let assert = msgflow()?
        .args(["check", "--json"])
        .arg(fixture("interrupted-end.json"))
        .assert()
        .code(1);
    let report: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
    assert_eq!(report["valid"], false);
    assert_eq!(report["violations"][0]["kind"], "dangling-call");
    assert_eq!(report["violations"][0]["tool_call_id"], "call_a");
    msgflow()?.arg("check").write_stdin(NOT_JSON).assert().code(2);
    Ok(())
}

#[test]
fn check_in_batch_mode_exits_with_the_worst_status() -> TestResult {
    let dir = tempfile::tempdir()?;
    fs::copy(fixture("coding-agent-session.json"), dir.path().join("clean.json"))?;
    fs::copy(fixture("interrupted-end.json"), dir.path().join("dangling.json"))?;
    msgflow()?
        .arg("check")
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("2 files: 1 ok, 1 with problems, 0 invalid"));
    fs::write(dir.path().join("invalid.json"), NOT_JSON)?;
    msgflow()?.arg("check").arg(dir.path()).assert().code(2);
    Ok(())
}

#[test]
fn repair_fixes_dangling_calls_and_reports_every_change() -> TestResult {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("h.json");
    let original = fs::read(fixture("interrupted-end.json"))?;
    fs::write(&file, &original)?;
    let report = dir.path().join("changes.json");
    msgflow()?
        .args([
            "repair",
            "--in-place",
            "--backup",
            "--message",
            "cancelled by the user",
            "--report",
        ])
        .arg(&report)
        .arg(&file)
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains(
            "synthesized an interrupted result for dangling call `call_a`",
        ));
    assert_eq!(fs::read(dir.path().join("h.json.bak"))?, original);
    msgflow()?.arg("check").arg(&file).assert().success();
    let repaired = fs::read_to_string(&file)?;
    assert!(repaired.contains("cancelled by the user"));
    let changes: serde_json::Value = serde_json::from_slice(&fs::read(&report)?)?;
    let kinds: Vec<&str> = changes["changes"].as_array().map_or(Vec::new(), |changes| {
        changes.iter().filter_map(|change| change["change"].as_str()).collect()
    });
    assert_eq!(
        kinds,
        [
            "inserted-request",
            "inserted-synthetic-return",
            "inserted-synthetic-return"
        ]
    );
    Ok(())
}

#[test]
fn repair_can_leave_the_last_response_alone() -> TestResult {
    let original = fs::read(fixture("interrupted-end.json"))?;
    // The calls stay dangling on purpose: the output is written, and exit 1 says what is left.
    msgflow()?
        .args(["repair", "--keep-last-response"])
        .arg(fixture("interrupted-end.json"))
        .assert()
        .code(1)
        .stdout(original)
        .stderr(
            predicate::str::contains("left: dangling tool call at message").and(predicate::str::contains(
                "why: left on purpose: --keep-last-response leaves the last response's calls for the run to answer",
            )),
        );
    Ok(())
}

#[test]
fn repair_exits_1_naming_what_pydantic_ai_repair_leaves_and_resolves_it_on_request() -> TestResult {
    // An empty response pydantic-ai's repair keeps, and a builtin call no builtin return answers.
    let history = r#"[{"parts":[{"content":"search","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}],"kind":"request"},{"parts":[],"model_name":"m","timestamp":"2025-01-02T03:04:06Z","kind":"response"},{"parts":[{"tool_name":"web_search","args":{"q":"x"},"tool_call_id":"b1","part_kind":"builtin-tool-call"},{"content":"Searching.","part_kind":"text"}],"model_name":"m","timestamp":"2025-01-02T03:04:07Z","kind":"response"}]"#;
    let dir = tempfile::tempdir()?;
    let report = dir.path().join("report.json");
    let plain = msgflow()?.arg("repair").write_stdin(history).output()?;
    assert_eq!(plain.status.code(), Some(1));
    let stderr = String::from_utf8(plain.stderr)?;
    assert!(stderr.contains("left: empty message at message 1"), "{stderr}");
    assert!(
        stderr.contains("left: builtin tool call without its return at message 2, part 0"),
        "{stderr}"
    );
    assert!(stderr.contains("--resolve-remaining removes"), "{stderr}");

    let resolved = msgflow()?
        .args(["repair", "--resolve-remaining", "--report"])
        .arg(&report)
        .write_stdin(history)
        .output()?;
    assert_eq!(
        resolved.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resolved.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&report)?)?;
    let changes: Vec<&str> = report["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|change| change["change"].as_str())
        .collect();
    // In input order: the empty response (message 1), then the builtin call (message 2, part 0).
    assert_eq!(changes, ["removed-empty-message", "removed-builtin-call"]);
    assert_eq!(report["changes"][1]["part"]["tool_name"], "web_search");
    assert_eq!(report["remaining"], serde_json::json!([]));
    msgflow()?.arg("check").write_stdin(resolved.stdout).assert().success();
    Ok(())
}

#[test]
fn strict_refuses_to_write_what_pydantic_ai_would_not_load_and_leaves_the_input_untouched() -> TestResult {
    // `usage: null` on a response: msgflow reads it (lossless), pydantic-ai 2.68.0 refuses it.
    let compact = fs::read_to_string(fixture("coding-agent-session.json"))?;
    let mut history: serde_json::Value = serde_json::from_str(&compact)?;
    let response = history
        .as_array_mut()
        .and_then(|messages| messages.iter_mut().find(|message| message["kind"] == "response"))
        .ok_or("no response in the fixture")?;
    response["usage"] = serde_json::Value::Null;
    let unloadable = serde_json::to_string(&history)?;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("history.json");
    fs::write(&file, &unloadable)?;
    let media_dir = dir.path().join("media");
    let log = repo_file("examples/interrupted-stream.jsonl");
    let log = log.to_str().ok_or("a non-UTF-8 path")?;
    let media = media_dir.to_str().ok_or("a non-UTF-8 path")?;
    let commands: [&[&str]; 5] = [
        &["fmt"],
        &["repair"],
        &["trim", "--keep-turns", "1000"],
        &["media", "extract", "--dir", media],
        &["assemble", log, "--history"],
    ];
    for command in commands {
        msgflow()?
            .args(command)
            .arg(&file)
            .args(["--strict", "--in-place"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "refusing to write a history pydantic-ai 2.68.0 would not load: ",
            ))
            .stderr(predicate::str::contains(".usage"));
        assert_eq!(
            fs::read_to_string(&file)?,
            unloadable,
            "{command:?} --strict changed its input"
        );
        if command[0] == "media" {
            assert!(!media_dir.exists(), "media extract --strict wrote its directory");
        }
        if command[0] == "assemble" {
            continue; // It appends to the history, so its output is not the input.
        }
        // Without --strict: written, with one warning line.
        let written = msgflow()?.args(command).arg(&file).output()?;
        assert!(
            written.stdout == unloadable.as_bytes(),
            "{command:?} changed the history"
        );
        let stderr = String::from_utf8(written.stderr)?;
        assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
        assert!(
            stderr.contains("the output would not load in pydantic-ai 2.68.0"),
            "{stderr}"
        );
    }
    msgflow()?
        .args(["fmt", "--strict"])
        .arg(fixture("coding-agent-session.json"))
        .assert()
        .success()
        .stderr("");
    Ok(())
}

#[test]
fn repair_report_needs_a_single_input_and_invalid_input_changes_nothing() -> TestResult {
    let batch = BatchDir::new()?;
    msgflow()?
        .args(["repair", "--in-place", "--report", "r.json"])
        .arg(batch.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--report takes a single input"));
    msgflow()?
        .args(["repair", "--in-place"])
        .arg(batch.path("broken.json"))
        .assert()
        .code(2);
    assert_eq!(fs::read_to_string(batch.path("broken.json"))?, NOT_A_HISTORY);
    Ok(())
}

#[test]
fn tools_exports_the_registry_and_guidance() -> TestResult {
    let assert = msgflow()?
        .arg("tools")
        .arg(fixture("interrupted-end.json"))
        .assert()
        .success();
    let export: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)?;
    let statuses: Vec<&str> = export["calls"].as_array().map_or(Vec::new(), |calls| {
        calls.iter().filter_map(|call| call["status"].as_str()).collect()
    });
    assert_eq!(statuses, ["pending", "pending"]);
    msgflow()?
        .args(["tools", "--guidance"])
        .arg(fixture("interrupted-end.json"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "2 tool calls still have no result: read_file (call_a), read_file (call_b)",
        ));
    msgflow()?
        .args(["tools", "--guidance"])
        .arg(fixture("minimal.json"))
        .assert()
        .success()
        .stdout("");
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

/// A response whose usage and tool arguments hold integers beyond 64 bits, as pydantic-ai 2.68.0
/// dumps them (`ModelMessagesTypeAdapter.dump_json` of a `RequestUsage(output_tokens=2**64)`).
const BIG_INTEGERS: &str = r#"[{"parts":[{"tool_name":"seek","args":{"offset":340282366920938463463374607431768211456},"tool_call_id":"c1","tool_kind":null,"id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}],"usage":{"input_tokens":-18446744073709551617,"cache_write_tokens":0,"cache_write_1h_tokens":0,"cache_read_tokens":0,"output_tokens":18446744073709551616,"output_reasoning_tokens":0,"input_audio_tokens":0,"cache_audio_read_tokens":0,"output_audio_tokens":0,"audio_seconds":0.0,"details":{},"cost":null},"model_name":"m","model_id":null,"timestamp":"2025-01-02T03:04:05Z","kind":"response","provider_name":null,"provider_url":null,"canonical_system":null,"provider_details":null,"provider_response_id":null,"finish_reason":null,"run_id":null,"conversation_id":null,"metadata":null,"workspace_ref":null,"history_digest":null,"failed_attempts":null,"state":"complete"}]"#;

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

#[test]
fn stats_says_which_token_counts_do_not_fit_its_sums() -> TestResult {
    let beyond_128_bits = "1".repeat(45);
    let history = BIG_INTEGERS.replace("18446744073709551616,", &format!("{beyond_128_bits},"));
    let stats = msgflow()?
        .args(["stats", "--json"])
        .write_stdin(history.clone())
        .output()?;
    assert!(stats.status.success());
    let report: serde_json::Value = serde_json::from_slice(&stats.stdout)?;
    assert_eq!(report["tokens"]["output"], serde_json::json!(0));
    assert_eq!(
        report["tokens"]["out_of_range"],
        serde_json::json!([format!("usage.output_tokens = {beyond_128_bits}")])
    );
    msgflow()?
        .arg("stats")
        .write_stdin(history)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "left out of the sums: usage.output_tokens = 1111",
        ));
    Ok(())
}

#[test]
fn check_json_names_the_turn_of_each_violation() -> TestResult {
    // The shipped session: the user's first request and the three tool rounds are turn 0; the
    // user's last prompt (message 6) opens turn 1. The dangling calls are in turn 0.
    let output = msgflow()?
        .args(["check", "--json"])
        .arg(repo_file("examples/interrupted-session.json"))
        .output()?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(report["turns"], 2);
    let violations = report["violations"].as_array().ok_or("no violations")?;
    assert_eq!(violations.len(), 2);
    for violation in violations {
        assert_eq!(
            (&violation["message_index"], &violation["turn"]),
            (&5.into(), &0.into())
        );
    }
    Ok(())
}

#[test]
fn check_says_whether_pydantic_ai_would_load_the_history() -> TestResult {
    let loadable = fs::read(fixture("coding-agent-session.json"))?;
    let output = msgflow()?.args(["check", "--json"]).write_stdin(loadable).output()?;
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(report["pydantic_ai_loadable"], true);

    // A leap second: msgflow reads it, pydantic-ai 2.68.0 refuses it.
    let leap = r#"[{"parts":[{"content":"hi","timestamp":"2016-12-31T23:59:60Z","part_kind":"user-prompt"}],"kind":"request"}]"#;
    let output = msgflow()?.args(["check", "--json"]).write_stdin(leap).output()?;
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(report["pydantic_ai_loadable"], false);
    let violation = &report["violations"][0];
    assert_eq!(
        (
            &violation["kind"],
            &violation["message_index"],
            &violation["part_index"]
        ),
        (&"not-loadable".into(), &0.into(), &0.into())
    );
    let detail = violation["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("$[0].parts[0].timestamp (line 1, column "), "{detail}");
    msgflow()?
        .arg("check")
        .write_stdin(leap)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "pydantic-ai 2.68.0 would not load the history at message 0, part 0",
        ));
    Ok(())
}
