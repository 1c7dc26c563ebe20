//! Regressions found by the fuzz targets and by profiling, each pinned by a test.

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use msgflow_sanitize::{repair, RepairOptions};

use super::harness::msgflow_bin;

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
