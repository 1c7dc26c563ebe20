//! `msgflow stats` end to end: tables and JSON pinned as snapshots, -o, sums that do not fit.

mod common;

use std::fs;

use predicates::prelude::*;

use common::{fixture, msgflow, TestResult, BIG_INTEGERS};

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
