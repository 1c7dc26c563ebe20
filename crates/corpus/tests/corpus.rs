//! Reading and writing corpora through the library: JSON Lines and Parquet, bad rows, order,
//! other fields and columns kept.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use msgflow_corpus::row::{check_row, RowCheck};
use msgflow_corpus::{run, CorpusError, Edit, Format, Options, Reader, RowLocation};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A history pydantic-ai loads with nothing wrong.
const VALID: &str = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#;

/// A history whose last response has a call no result answers.
fn dangling() -> String {
    format!(
        r#"[{},{{"parts":[{{"tool_name":"ls","args":{{}},"tool_call_id":"c1","id":null,"provider_name":null,"provider_details":null,"part_kind":"tool-call"}}],"usage":{{"input_tokens":0,"cache_write_tokens":0,"cache_read_tokens":0,"output_tokens":0,"input_audio_tokens":0,"cache_audio_read_tokens":0,"output_audio_tokens":0,"details":{{}}}},"model_name":null,"timestamp":"2025-01-02T03:04:06Z","kind":"response","provider_name":null,"provider_url":null,"provider_details":null,"provider_response_id":null,"finish_reason":null,"run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}}]"#,
        &VALID[1..VALID.len() - 1]
    )
}

/// A row as read: its location, and its content or the error's text.
type ReadRow = (RowLocation, Result<String, String>);

/// Reads every row.
fn rows(reader: &mut Reader) -> Result<Vec<ReadRow>, CorpusError> {
    let mut found = Vec::new();
    run(
        reader,
        None,
        |row| {
            let content = match &row.content {
                Ok(bytes) => Ok(String::from_utf8_lossy(bytes).into_owned()),
                Err(err) => Err(err.message.clone()),
            };
            (content, Edit::Keep)
        },
        |location, content| {
            found.push((location.clone(), content));
            Ok(())
        },
        |_, _| {},
    )?;
    Ok(found)
}

/// pydantic-ai's repair of a row, as JSON.
fn repair(bytes: &[u8]) -> Result<Vec<u8>, msgflow_corpus::row::RowFailure> {
    msgflow_corpus::row::repair_row(bytes, &msgflow_sanitize::RepairOptions::default()).map(|row| row.json)
}

fn json_lines(dir: &Path, text: &str) -> Result<std::path::PathBuf, std::io::Error> {
    let path = dir.join("corpus.jsonl");
    std::fs::write(&path, text)?;
    Ok(path)
}

#[test]
fn json_lines_rows_are_located_and_blank_lines_are_not_rows() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = json_lines(dir.path(), &format!("{VALID}\n\n  \r\nnot json\r\n{}", dangling()))?;
    let options = Options {
        batch_rows: 2,
        ..Options::default()
    };
    let mut reader = Reader::open(&path, Format::JsonLines, &options)?;
    let found = rows(&mut reader)?;
    let located: Vec<(u64, Option<u64>)> = found.iter().map(|(at, _)| (at.row, at.line)).collect();
    assert_eq!(located, [(0, Some(1)), (1, Some(4)), (2, Some(5))]);
    assert_eq!(found[1].1, Ok("not json".to_owned()));
    assert_eq!(found[2].1, Ok(dangling()));
    Ok(())
}

#[test]
fn an_empty_file_has_no_rows() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = json_lines(dir.path(), "")?;
    let mut reader = Reader::open(&path, Format::JsonLines, &Options::default())?;
    assert!(rows(&mut reader)?.is_empty());
    Ok(())
}

#[test]
fn a_field_holds_the_history_as_an_array_or_a_string_and_ids_name_rows() -> TestResult {
    let dir = tempfile::tempdir()?;
    let as_string = serde_json::Value::from(VALID).to_string();
    let text = format!(
        "{{\"id\":\"a\",\"history\":{VALID}}}\n{{\"history\":{as_string},\"id\":7}}\n{{\"id\":\"c\"}}\n{{\"id\":\"d\",\"history\":null}}\n[1,2]\n"
    );
    let path = json_lines(dir.path(), &text)?;
    let options = Options {
        field: Some("history".to_owned()),
        id_column: Some("id".to_owned()),
        ..Options::default()
    };
    let found = rows(&mut Reader::open(&path, Format::JsonLines, &options)?)?;
    let ids: Vec<serde_json::Value> = found.iter().map(|(at, _)| at.id.clone().unwrap_or_default()).collect();
    assert_eq!(
        ids,
        [
            serde_json::json!("a"),
            7.into(),
            "c".into(),
            "d".into(),
            serde_json::Value::Null
        ]
    );
    assert_eq!(found[0].1, Ok(VALID.to_owned()));
    assert_eq!(found[1].1, Ok(VALID.to_owned()));
    assert_eq!(found[2].1, Err("the line's object has no field \"history\"".to_owned()));
    assert!(
        found[3].1.as_ref().is_err_and(|err| err.contains("is null")),
        "{:?}",
        found[3].1
    );
    assert!(
        found[4].1.as_ref().is_err_and(|err| err.contains("not a JSON object")),
        "{:?}",
        found[4].1
    );
    Ok(())
}

#[test]
fn a_rewritten_json_lines_corpus_keeps_other_fields_order_and_failed_rows() -> TestResult {
    let dir = tempfile::tempdir()?;
    let as_string = serde_json::Value::from(dangling()).to_string();
    let text = format!(
        "{{\"n\": 1, \"history\": {}, \"tail\": [1, 2]}}\n{{\"n\": 2, \"history\": \"broken\"}}\r\n\n{{\"history\":{as_string},\"n\":3}}",
        dangling()
    );
    let path = json_lines(dir.path(), &text)?;
    let options = Options {
        field: Some("history".to_owned()),
        batch_rows: 1,
        ..Options::default()
    };
    for (on_error, expected_rows) in [(Edit::Keep, 3), (Edit::Drop, 2)] {
        let mut reader = Reader::open(&path, Format::JsonLines, &options)?;
        let out = dir.path().join("out.jsonl");
        let mut writer = reader.writer(File::create(&out)?)?;
        run(
            &mut reader,
            Some(&mut writer),
            |row| match row.content.as_deref().map(repair) {
                Ok(Ok(repaired)) => ((), Edit::Replace(repaired)),
                _ => ((), on_error.clone()),
            },
            |_, ()| Ok(()),
            |_, _| {},
        )?;
        writer.finish()?;
        let written = std::fs::read_to_string(&out)?;
        let lines: Vec<&str> = written.split_inclusive('\n').collect();
        assert_eq!(
            lines.iter().filter(|line| !line.trim().is_empty()).count(),
            expected_rows
        );
        assert!(lines[0].starts_with("{\"n\": 1, \"history\": [") && lines[0].ends_with("], \"tail\": [1, 2]}\n"));
        let first: serde_json::Value = serde_json::from_str(lines[0])?;
        assert_eq!(
            first["history"].as_array().map(Vec::len),
            Some(3),
            "the repair answered the call"
        );
        if on_error == Edit::Keep {
            assert_eq!(lines[1], "{\"n\": 2, \"history\": \"broken\"}\r\n");
        }
        let last: serde_json::Value = serde_json::from_str(lines[lines.len() - 1])?;
        let repaired: serde_json::Value = serde_json::from_str(last["history"].as_str().unwrap_or_default())?;
        assert_eq!(
            repaired.as_array().map(Vec::len),
            Some(3),
            "a string field stays a string"
        );
        assert!(!written.ends_with('\n'), "the last line had no terminator");
    }
    Ok(())
}

fn parquet_file(path: &Path, histories: ArrayRef, ids: Option<ArrayRef>) -> TestResult {
    let mut fields = vec![Field::new("history", histories.data_type().clone(), true)];
    let mut columns = vec![histories];
    if let Some(ids) = ids {
        fields.insert(0, Field::new("id", ids.data_type().clone(), true));
        columns.insert(0, ids);
    }
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns)?;
    let mut writer = ArrowWriter::try_new(File::create(path)?, schema, None)?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}

#[test]
fn parquet_rows_keep_other_columns_and_order_when_rewritten() -> TestResult {
    let dir = tempfile::tempdir()?;
    let input = dir.path().join("in.parquet");
    let dangling = dangling();
    let histories: Vec<Option<&str>> = vec![Some(VALID), Some(&dangling), None, Some("[1]"), Some(&dangling)];
    parquet_file(
        &input,
        Arc::new(StringArray::from(histories)),
        Some(Arc::new(Int64Array::from(vec![10, 11, 12, 13, 14]))),
    )?;
    let options = Options {
        column: Some("history".to_owned()),
        id_column: Some("id".to_owned()),
        batch_rows: 2,
        ..Options::default()
    };
    let mut reader = Reader::open(&input, Format::Parquet, &options)?;
    assert_eq!(reader.total_rows(), Some(5));
    let output = dir.path().join("out.parquet");
    let mut writer = reader.writer(File::create(&output)?)?;
    let mut seen = Vec::new();
    run(
        &mut reader,
        Some(&mut writer),
        |row| match row.content.as_deref().map(repair) {
            Ok(Ok(repaired)) => (true, Edit::Replace(repaired)),
            Ok(Err(_)) => (false, Edit::Drop),
            Err(_) => (false, Edit::Keep),
        },
        |location, repaired| {
            seen.push((location.row, location.id.clone(), repaired));
            Ok(())
        },
        |_, _| {},
    )?;
    writer.finish()?;
    assert_eq!(
        seen.iter().map(|(row, id, _)| (*row, id.clone())).collect::<Vec<_>>(),
        (0..5)
            .map(|row| (row, Some(serde_json::json!(10 + row))))
            .collect::<Vec<_>>()
    );
    let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(File::open(&output)?)?
        .build()?
        .collect::<Result<_, _>>()?;
    let ids: Vec<i64> = batches
        .iter()
        .flat_map(|batch| {
            batch
                .column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .map(|a| a.values().to_vec())
        })
        .flatten()
        .collect();
    assert_eq!(
        ids,
        [10, 11, 12, 14],
        "the row that is not a history was dropped, the null kept"
    );
    let histories: Vec<Option<String>> = batches
        .iter()
        .flat_map(|batch| {
            let array = batch.column(1).as_any().downcast_ref::<StringArray>().cloned();
            array
                .into_iter()
                .flat_map(|a| a.iter().map(|v| v.map(str::to_owned)).collect::<Vec<_>>())
        })
        .collect();
    assert_eq!(histories[0].as_deref(), Some(VALID));
    assert_eq!(histories[2], None);
    for repaired in [&histories[1], &histories[3]] {
        let check = check_row(repaired.as_deref().unwrap_or_default().as_bytes());
        assert!(
            matches!(check, RowCheck::Checked(ref report) if report.valid),
            "{check:?}"
        );
    }
    Ok(())
}

#[test]
fn a_column_of_the_wrong_type_or_name_is_refused_naming_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let input = dir.path().join("in.parquet");
    parquet_file(&input, Arc::new(Int64Array::from(vec![1, 2])), None)?;
    let options = |column: &str| Options {
        column: Some(column.to_owned()),
        ..Options::default()
    };
    let wrong_type = Reader::open(&input, Format::Parquet, &options("history"))
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        wrong_type.as_deref(),
        Some("column \"history\" is Int64; expected a string or binary column of history JSON")
    );
    let missing = Reader::open(&input, Format::Parquet, &options("messages"))
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        missing.as_deref(),
        Some("--column \"messages\": the file has no such column (its columns: \"history\")")
    );
    Ok(())
}

#[test]
fn binary_columns_are_read_too() -> TestResult {
    let dir = tempfile::tempdir()?;
    let input = dir.path().join("in.parquet");
    let values: Vec<Option<&[u8]>> = vec![Some(VALID.as_bytes()), Some(b"\xff")];
    parquet_file(&input, Arc::new(arrow_array::BinaryArray::from(values)), None)?;
    let options = Options {
        column: Some("history".to_owned()),
        ..Options::default()
    };
    let mut checks = Vec::new();
    run(
        &mut Reader::open(&input, Format::Parquet, &options)?,
        None,
        |row| (row.content.as_deref().map(check_row).ok(), Edit::Keep),
        |_, check| {
            checks.push(check);
            Ok(())
        },
        |_, _| {},
    )?;
    assert!(matches!(&checks[0], Some(RowCheck::Checked(report)) if report.valid));
    assert!(matches!(&checks[1], Some(RowCheck::Unreadable(failure)) if failure.error_types == ["json_invalid"]));
    Ok(())
}

#[test]
fn a_row_that_is_json_but_not_a_history_is_an_error_with_its_path() {
    let check = check_row(br#"{"messages": []}"#);
    let RowCheck::Unreadable(failure) = check else {
        panic!("an object is not a history");
    };
    assert!(
        failure.error.starts_with("not a pydantic-ai message history: "),
        "{}",
        failure.error
    );
    // What `ModelMessagesTypeAdapter.validate_json` raises on it.
    assert_eq!(failure.error_types, ["list_type"]);
    let json = serde_json::to_value(RowCheck::Unreadable(failure)).unwrap_or_default();
    assert!(json.get("error").is_some(), "{json}");
}
