//! Line-oriented driver for differential testing against Python: reads JSON lines `[operation, input]` on stdin
//! and writes one JSON result per line on stdout (`null` for "no value", `{"error": message}` for an error).
//!
//! Operations: `guess`, `youtube`, `infer-image`, `infer-audio`, `infer-video`, `infer-document`, `uploaded`,
//! `from-path`, `document-format`, `binary-format`, `uploaded-format`, `is-document`, `data-uri` (result:
//! `[media_type, lowercase hex data]`), `dumps` (input: any JSON value), `digests` (input: any JSON value).

use msgflow_media::{
    binary_format, content_file_digests, document_format, guess_media_type, infer_url_media_type, is_document,
    is_youtube_url, media_type_from_path, parse_data_uri, python_json_dumps_sorted_ascii, uploaded_file_format,
    uploaded_file_media_type, UrlKind,
};
use serde_json::{json, Value};
use std::io::{BufRead, Write};

fn text_result<E: std::fmt::Display>(result: Result<impl Into<String>, E>) -> Value {
    match result {
        Ok(text) => Value::String(text.into()),
        Err(error) => json!({ "error": error.to_string() }),
    }
}

fn run(operation: &str, input: &Value) -> Value {
    let text = input.as_str().unwrap_or_default();
    let infer = |kind| json!(infer_url_media_type(kind, text));
    match operation {
        "guess" => json!(guess_media_type(text)),
        "youtube" => json!(is_youtube_url(text)),
        "infer-image" => infer(UrlKind::Image),
        "infer-audio" => infer(UrlKind::Audio),
        "infer-video" => infer(UrlKind::Video),
        "infer-document" => infer(UrlKind::Document),
        "uploaded" => text_result(uploaded_file_media_type(text)),
        "from-path" => json!(media_type_from_path(text)),
        "document-format" => text_result(document_format(text)),
        "binary-format" => text_result(binary_format(text)),
        "uploaded-format" => text_result(uploaded_file_format(text)),
        "is-document" => json!(is_document(text)),
        "data-uri" => match parse_data_uri(text) {
            Ok((media_type, data)) => {
                let hex: String = data.iter().map(|byte| format!("{byte:02x}")).collect();
                json!([media_type, hex])
            }
            Err(error) => json!({ "error": error.to_string() }),
        },
        "dumps" => json!(python_json_dumps_sorted_ascii(input)),
        "digests" => json!(content_file_digests(input)),
        _ => json!({ "error": format!("unknown operation {operation}") }),
    }
}

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        let result = match serde_json::from_str::<Value>(&line) {
            Ok(Value::Array(pair)) if pair.len() == 2 => run(
                pair.first().and_then(Value::as_str).unwrap_or_default(),
                pair.get(1).unwrap_or(&Value::Null),
            ),
            _ => json!({ "error": "expected [operation, input]" }),
        };
        writeln!(stdout, "{result}")?;
    }
    stdout.flush()
}
