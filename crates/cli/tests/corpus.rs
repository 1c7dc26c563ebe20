//! End-to-end tests of corpora in the CLI: JSON Lines and Parquet read by `check`, `repair`,
//! `trim` and `stats`, rows located, bad rows reported without stopping the others, rewritten
//! corpora keeping every other field and column and the row order.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, LargeStringArray, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use assert_cmd::Command;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use serde_json::{json, Value};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A history pydantic-ai loads with nothing wrong.
const VALID: &str = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The example session (two dangling calls), compact, on one line.
fn dangling() -> Result<String, Box<dyn std::error::Error>> {
    let value: Value = serde_json::from_slice(&std::fs::read(root().join("examples/interrupted-session.json"))?)?;
    Ok(value.to_string())
}

fn msgflow(dir: &Path) -> Result<Command, Box<dyn std::error::Error>> {
    let mut command = Command::cargo_bin("msgflow")?;
    command.current_dir(dir);
    Ok(command)
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json_lines(output: &std::process::Output) -> Result<Vec<Value>, serde_json::Error> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(serde_json::from_str)
        .collect()
}

#[test]
fn check_json_writes_one_object_per_row_in_order_then_a_summary() -> TestResult {
    let dir = tempfile::tempdir()?;
    let dangling = dangling()?;
    let corpus = format!("{VALID}\n{dangling}\nnot json\n\n{{\"messages\": []}}\n[{{\"kind\":\"request\"}}]\n");
    std::fs::write(dir.path().join("runs.jsonl"), &corpus)?;
    let output = msgflow(dir.path())?.args(["check", "--json", "runs.jsonl"]).output()?;
    assert_eq!(
        output.status.code(),
        Some(2),
        "a row that is not a history is exit 2: {}",
        stderr(&output)
    );
    let lines = json_lines(&output)?;
    assert_eq!(lines.len(), 6);
    let located: Vec<(Value, Value)> = lines[..5]
        .iter()
        .map(|l| (l["row"].clone(), l["line"].clone()))
        .collect();
    assert_eq!(
        located,
        [
            (json!(0), json!(1)),
            (json!(1), json!(2)),
            (json!(2), json!(3)),
            (json!(3), json!(5)),
            (json!(4), json!(6))
        ]
    );
    assert_eq!(lines[0]["valid"], json!(true));
    assert_eq!(lines[1]["pydantic_ai_loadable"], json!(true));
    assert_eq!(lines[1]["violations"][0]["kind"], json!("dangling-call"));
    for bad in &lines[2..5] {
        let error = bad["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("not a pydantic-ai message history: at $"), "{bad}");
        assert!(bad.get("valid").is_none());
    }
    assert_eq!(
        lines[5],
        json!({"summary": {"rows": 5, "ok": 1, "problems": 1, "invalid": 3,
            "problem_codes": {"dangling-call": 1},
            "pydantic_ai_error_types": {"json_invalid": 1, "list_type": 1, "missing": 1}}})
    );
    // Errors on stderr name the row.
    assert!(stderr(&output).contains("msgflow: error: runs.jsonl line 3 (row 2): not a pydantic-ai message history"));

    // A history row's fields are those `check --json` gives for the same history as a file.
    std::fs::write(dir.path().join("one.json"), &dangling)?;
    let single = msgflow(dir.path())?.args(["check", "--json", "one.json"]).output()?;
    let mut single: Value = serde_json::from_slice(&single.stdout)?;
    if let Some(object) = single.as_object_mut() {
        object.insert("row".to_owned(), json!(1));
        object.insert("line".to_owned(), json!(2));
    }
    assert_eq!(lines[1], single);
    Ok(())
}

#[test]
fn the_summary_counts_pydantic_ais_error_type_of_rows_that_are_json_but_not_histories() -> TestResult {
    let dir = tempfile::tempdir()?;
    // Each row, then what `ModelMessagesTypeAdapter.validate_json` (pydantic-ai 2.68.0) raises on it.
    let rows = [
        (r#"{"kind": "request"}"#, "list_type"),
        ("null", "list_type"),
        ("[1, 2]", "dict_type"),
        ("[{}]", "union_tag_not_found"),
        (r#"[{"kind": "banana", "parts": []}]"#, "union_tag_invalid"),
        (r#"[{"kind": "request"}]"#, "missing"),
        (r#"[{"kind": "request", "parts": "none"}]"#, "list_type"),
        (r#"[{"kind": "request", "parts": [{}]}]"#, "union_tag_not_found"),
        (r#"[{"kind": "response", "parts": [{"part_kind": "text"}]}]"#, "missing"),
        ("[{\"kind\": \"request\", \"parts\": [", "json_invalid"),
    ];
    let corpus: String = rows.iter().map(|(row, _)| format!("{row}\n")).collect();
    std::fs::write(dir.path().join("rows.jsonl"), corpus)?;
    let output = msgflow(dir.path())?.args(["check", "--json", "rows.jsonl"]).output()?;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let lines = json_lines(&output)?;
    let mut expected = serde_json::Map::new();
    for (_, error_type) in rows {
        let count = expected.get(error_type).and_then(Value::as_u64).unwrap_or(0);
        expected.insert(error_type.to_owned(), json!(count + 1));
    }
    let summary = &lines.last().ok_or("no summary")?["summary"];
    assert_eq!(summary["invalid"], json!(rows.len()));
    assert_eq!(summary["pydantic_ai_error_types"], Value::Object(expected));
    // The same rows as a Parquet column are counted alike.
    let column: ArrayRef = Arc::new(StringArray::from(
        rows.iter().map(|(row, _)| Some(*row)).collect::<Vec<_>>(),
    ));
    write_parquet(&dir.path().join("rows.parquet"), vec![("messages", column)])?;
    let output = msgflow(dir.path())?
        .args(["check", "--json", "rows.parquet", "--column", "messages"])
        .output()?;
    let parquet_lines = json_lines(&output)?;
    assert_eq!(parquet_lines.last(), lines.last(), "{}", stderr(&output));
    Ok(())
}

#[test]
fn the_row_api_gives_the_fields_the_cli_writes() -> TestResult {
    let dir = tempfile::tempdir()?;
    let rows = [VALID.to_owned(), dangling()?, "[1".to_owned(), "{}".to_owned()];
    std::fs::write(dir.path().join("c.ndjson"), rows.join("\n"))?;
    let output = msgflow(dir.path())?.args(["check", "--json", "c.ndjson"]).output()?;
    let lines = json_lines(&output)?;
    for (index, row) in rows.iter().enumerate() {
        let mut expected = json!({"row": index, "line": index + 1});
        let fields = serde_json::to_value(msgflow_corpus::row::check_row(row.as_bytes()))?;
        if let (Some(object), Value::Object(fields)) = (expected.as_object_mut(), fields) {
            object.extend(fields);
        }
        assert_eq!(lines[index], expected);
    }
    Ok(())
}

#[test]
fn an_empty_corpus_has_no_rows_and_succeeds() -> TestResult {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("empty.jsonl"), "")?;
    let output = msgflow(dir.path())?.args(["check", "--json", "empty.jsonl"]).output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        json_lines(&output)?,
        [
            json!({"summary": {"rows": 0, "ok": 0, "problems": 0, "invalid": 0, "problem_codes": {}, "pydantic_ai_error_types": {}}})
        ]
    );
    assert!(stderr(&output).contains("empty.jsonl: 0 rows"));
    Ok(())
}

#[test]
fn a_huge_row_is_read_whole() -> TestResult {
    let dir = tempfile::tempdir()?;
    let big = "x".repeat(20 << 20);
    let huge = VALID.replace("\"hi\"", &format!("\"{big}\""));
    std::fs::write(dir.path().join("big.jsonl"), format!("{VALID}\n{huge}\n{VALID}\n"))?;
    let output = msgflow(dir.path())?
        .args(["check", "--json", "--batch-rows", "2", "big.jsonl"])
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines = json_lines(&output)?;
    assert_eq!(lines.iter().filter(|line| line["valid"] == json!(true)).count(), 3);
    // A row over --max-input-bytes is an error for that row only.
    let output = msgflow(dir.path())?
        .args(["check", "--json", "--max-input-bytes", "1000000", "big.jsonl"])
        .output()?;
    let lines = json_lines(&output)?;
    assert_eq!(lines[0]["valid"], json!(true));
    assert!(lines[1]["error"]
        .as_str()
        .is_some_and(|error| error.contains("--max-input-bytes")));
    assert_eq!(lines[2]["valid"], json!(true));
    Ok(())
}

#[test]
fn repair_rewrites_the_field_and_keeps_everything_else() -> TestResult {
    let dir = tempfile::tempdir()?;
    let dangling = dangling()?;
    let as_string = Value::from(dangling.as_str()).to_string();
    let corpus = format!(
        "{{\"id\": \"a\", \"history\": {dangling}, \"score\": 1.50}}\n{{\"id\": \"b\", \"history\": 3}}\n{{\"history\":{as_string},\"id\":\"c\"}}\n"
    );
    std::fs::write(dir.path().join("in.jsonl"), &corpus)?;
    for (on_error, ids) in [("pass", vec!["a", "b", "c"]), ("drop", vec!["a", "c"])] {
        let output = msgflow(dir.path())?
            .args([
                "repair",
                "in.jsonl",
                "--field",
                "history",
                "--id-column",
                "id",
                "--on-error",
                on_error,
                "-o",
                "out.jsonl",
            ])
            .output()?;
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let text = stderr(&output);
        assert!(
            text.contains("in.jsonl line 2 (row 1) id \"b\": field \"history\" is a number"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "in.jsonl: 3 rows: 2 ok, 0 with problems, 1 invalid; 1 {}",
                if on_error == "pass" {
                    "written unchanged"
                } else {
                    "left out"
                }
            )),
            "{text}"
        );
        let written = std::fs::read_to_string(dir.path().join("out.jsonl"))?;
        let rows: Vec<Value> = written.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
        assert_eq!(
            rows.iter()
                .map(|row| row["id"].as_str().unwrap_or_default())
                .collect::<Vec<_>>(),
            ids
        );
        let first = written.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("{\"id\": \"a\", \"history\": [") && first.ends_with("], \"score\": 1.50}"),
            "{first}"
        );
        if on_error == "pass" {
            assert_eq!(written.lines().nth(1), Some("{\"id\": \"b\", \"history\": 3}"));
        }
        let last = &rows[rows.len() - 1];
        let repaired: Value = serde_json::from_str(last["history"].as_str().unwrap_or_default())?;
        assert_eq!(
            repaired.as_array().map(Vec::len),
            Some(7),
            "the string field holds the repaired history"
        );
    }
    // The new corpus checks clean, except the row passed through.
    let output = msgflow(dir.path())?
        .args(["check", "--json", "--field", "history", "out.jsonl"])
        .output()?;
    assert_eq!(
        json_lines(&output)?.last().map(|line| line["summary"]["ok"].clone()),
        Some(json!(2))
    );
    Ok(())
}

#[test]
fn rows_keep_their_order_across_batches_and_threads() -> TestResult {
    let dir = tempfile::tempdir()?;
    let dangling = dangling()?;
    let rows: Vec<String> = (0..300)
        .map(|n| json!({"n": n, "h": serde_json::from_str::<Value>(if n % 3 == 0 { &dangling } else { VALID }).unwrap_or_default()}).to_string())
        .collect();
    std::fs::write(dir.path().join("many.jsonl"), rows.join("\n") + "\n")?;
    let output = msgflow(dir.path())?
        .args([
            "repair",
            "--field",
            "h",
            "--batch-rows",
            "7",
            "--threads",
            "2",
            "many.jsonl",
            "-o",
            "fixed.jsonl",
        ])
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = std::fs::read_to_string(dir.path().join("fixed.jsonl"))?;
    let numbers: Vec<u64> = written
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).map(|row| row["n"].as_u64().unwrap_or(u64::MAX)))
        .collect::<Result<_, _>>()?;
    assert_eq!(numbers, (0..300).collect::<Vec<_>>());
    let check = msgflow(dir.path())?
        .args([
            "check",
            "--json",
            "--field",
            "h",
            "--id-column",
            "n",
            "--threads",
            "1",
            "fixed.jsonl",
        ])
        .output()?;
    let lines = json_lines(&check)?;
    assert!(lines[..300]
        .iter()
        .enumerate()
        .all(|(n, line)| line["id"] == json!(n) && line["valid"] == json!(true)));
    Ok(())
}

#[test]
fn standard_input_is_read_as_json_lines_with_jsonl() -> TestResult {
    let dir = tempfile::tempdir()?;
    let output = msgflow(dir.path())?
        .args(["stats", "--json", "--jsonl", "-"])
        .write_stdin(format!("{VALID}\n{VALID}\n"))
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines = json_lines(&output)?;
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["row"], json!(1));
    assert_eq!(lines[1]["messages"]["total"], json!(1));
    Ok(())
}

#[test]
fn trim_and_fmt_write_json_lines_to_stdout() -> TestResult {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("c.jsonl"), format!("{}\n{VALID}\n", dangling()?))?;
    let output = msgflow(dir.path())?
        .args(["trim", "--keep-turns", "1", "c.jsonl"])
        .output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(lines.len(), 2);
    assert!(lines[0].as_array().is_some_and(|messages| messages.len() < 7));
    assert!(
        stderr(&output).contains("c.jsonl line 1 (row 0): removed messages"),
        "{}",
        stderr(&output)
    );
    // Rows already as pydantic-ai's dump_json writes them pass `fmt --check`; a row with spaces
    // after its commas does not, and `fmt` writes it compact.
    let output = msgflow(dir.path())?.args(["fmt", "--check", "c.jsonl"]).output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::write(
        dir.path().join("spaced.jsonl"),
        format!("{VALID}\n{}\n", VALID.replace("\",\"", "\", \"")),
    )?;
    let output = msgflow(dir.path())?.args(["fmt", "--check", "spaced.jsonl"]).output()?;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let output = msgflow(dir.path())?.args(["fmt", "spaced.jsonl"]).output()?;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("{VALID}\n{VALID}\n"));
    Ok(())
}

#[test]
fn a_corpus_is_never_rewritten_in_place() -> TestResult {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("c.jsonl"), format!("{VALID}\n"))?;
    let output = msgflow(dir.path())?
        .args(["repair", "--in-place", "c.jsonl"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("never rewritten in place"));
    let output = msgflow(dir.path())?
        .args(["repair", "c.jsonl", "-o", "c.jsonl"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("c.jsonl"))?,
        format!("{VALID}\n")
    );
    Ok(())
}

fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>) -> TestResult {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, array)| Field::new(*name, array.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(schema.clone(), columns.into_iter().map(|(_, array)| array).collect())?;
    let mut writer = ArrowWriter::try_new(File::create(path)?, schema, None)?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}

fn read_parquet(path: &Path) -> Result<Vec<RecordBatch>, Box<dyn std::error::Error>> {
    Ok(ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?
        .build()?
        .collect::<Result<_, _>>()?)
}

#[test]
fn parquet_is_checked_and_repaired_keeping_schema_other_columns_and_order() -> TestResult {
    let dir = tempfile::tempdir()?;
    let dangling = dangling()?;
    let histories: Vec<Option<&str>> = vec![Some(&dangling), Some(VALID), None, Some("{\"a\": 1}"), Some(&dangling)];
    write_parquet(
        &dir.path().join("runs.parquet"),
        vec![
            ("key", Arc::new(StringArray::from(vec!["k0", "k1", "k2", "k3", "k4"]))),
            ("messages", Arc::new(LargeStringArray::from(histories))),
            ("score", Arc::new(Int64Array::from(vec![5, 6, 7, 8, 9]))),
        ],
    )?;
    let output = msgflow(dir.path())?
        .args([
            "check",
            "--json",
            "runs.parquet",
            "--column",
            "messages",
            "--id-column",
            "key",
            "--batch-rows",
            "2",
        ])
        .output()?;
    let lines = json_lines(&output)?;
    assert_eq!(lines.len(), 6, "{}", stderr(&output));
    assert_eq!(
        lines[..5]
            .iter()
            .map(|line| (line["row"].clone(), line["id"].clone()))
            .collect::<Vec<_>>(),
        (0..5).map(|n| (json!(n), json!(format!("k{n}")))).collect::<Vec<_>>()
    );
    assert!(lines[0].get("line").is_none());
    assert_eq!(lines[2]["error"], json!("the cell is null: the row holds no history"));
    assert_eq!(lines[5]["summary"]["problem_codes"], json!({"dangling-call": 2}));

    let output = msgflow(dir.path())?
        .args(["repair", "runs.parquet", "--column", "messages", "-o", "fixed.parquet"])
        .output()?;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("runs.parquet row 3: not a pydantic-ai message history"),
        "{}",
        stderr(&output)
    );
    let input = read_parquet(&dir.path().join("runs.parquet"))?;
    let fixed = read_parquet(&dir.path().join("fixed.parquet"))?;
    assert_eq!(fixed[0].schema(), input[0].schema());
    let rows: usize = fixed.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 5, "--on-error pass keeps every row");
    let batch = &fixed[0];
    assert_eq!(batch.column(0).as_ref(), input[0].column(0).as_ref());
    assert_eq!(batch.column(2).as_ref(), input[0].column(2).as_ref());
    let messages = batch
        .column(1)
        .as_any()
        .downcast_ref::<LargeStringArray>()
        .ok_or("large string")?;
    assert_eq!(messages.value(1), VALID);
    assert!(messages.is_null(2));
    assert_eq!(messages.value(3), "{\"a\": 1}");
    let check = msgflow_corpus::row::check_row(messages.value(0).as_bytes());
    assert!(
        matches!(check, msgflow_corpus::row::RowCheck::Checked(ref report) if report.valid),
        "{check:?}"
    );

    let output = msgflow(dir.path())?
        .args([
            "repair",
            "runs.parquet",
            "--column",
            "messages",
            "--on-error",
            "drop",
            "-o",
            "kept.parquet",
        ])
        .output()?;
    assert!(
        stderr(&output).contains("2 left out (--on-error drop)"),
        "{}",
        stderr(&output)
    );
    let kept = read_parquet(&dir.path().join("kept.parquet"))?;
    let keys: Vec<String> = kept
        .iter()
        .flat_map(|batch| {
            let keys = batch.column(0).as_any().downcast_ref::<StringArray>().cloned();
            keys.into_iter().flat_map(|keys| {
                keys.iter()
                    .map(|key| key.unwrap_or_default().to_owned())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    assert_eq!(keys, ["k0", "k1", "k4"]);
    Ok(())
}

#[test]
fn parquet_options_are_checked_before_anything_is_written() -> TestResult {
    let dir = tempfile::tempdir()?;
    write_parquet(
        &dir.path().join("n.parquet"),
        vec![("history", Arc::new(Int64Array::from(vec![1])))],
    )?;
    let output = msgflow(dir.path())?
        .args(["check", "n.parquet", "--column", "history"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "n.parquet: cannot read the corpus: column \"history\" is Int64; expected a string or binary column"
        ),
        "{}",
        stderr(&output)
    );
    let output = msgflow(dir.path())?.args(["check", "n.parquet"]).output()?;
    assert!(stderr(&output).contains("needs --column NAME"), "{}", stderr(&output));
    let output = msgflow(dir.path())?
        .args(["repair", "n.parquet", "--column", "history"])
        .output()?;
    assert!(
        stderr(&output).contains("a rewritten Parquet corpus needs -o FILE"),
        "{}",
        stderr(&output)
    );
    let output = msgflow(dir.path())?
        .args(["repair", "n.parquet", "--column", "x", "-o", "out.parquet"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(!dir.path().join("out.parquet").exists(), "a failed run writes nothing");
    std::fs::write(dir.path().join("junk.parquet"), "not parquet")?;
    let output = msgflow(dir.path())?
        .args(["check", "junk.parquet", "--column", "h"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("junk.parquet: cannot read the corpus"),
        "{}",
        stderr(&output)
    );
    Ok(())
}
