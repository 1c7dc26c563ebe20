//! `msgflow schema` and `msgflow completions` end to end.

mod common;

use std::fs;
use std::path::Path;

use common::{msgflow, TestResult};

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
