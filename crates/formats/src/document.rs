//! Reading the input of a conversion: one JSON document, or JSON Lines (one document per line),
//! with errors located by line and column in the whole input.

use serde_json::Value;

use crate::ConvertError;

/// One JSON document of the input.
pub(crate) struct Document<'a> {
    /// The document's own text.
    pub text: &'a str,
    /// How many lines of the input come before it (0 for a single document).
    pub lines_before: usize,
}

impl Document<'_> {
    /// An error about the value at `path` in this document, located in the whole input.
    pub(crate) fn error_at(&self, index: usize, path: &str, message: impl Into<String>) -> ConvertError {
        let position = msgflow_wire::verdict::line_column_of(self.text, path)
            .map(|(line, column)| (line + self.lines_before, column));
        ConvertError {
            document: index,
            path: path.to_owned(),
            position,
            message: message.into(),
        }
    }
}

/// Splits the input into its documents: the whole text when it is one JSON value, else one
/// document per non-blank line (JSON Lines, as fine-tuning and batch files are written).
pub(crate) fn split(text: &str) -> Result<Vec<Document<'_>>, ConvertError> {
    // serde_json's "expected value" would not say what to do about it.
    if text.starts_with('\u{FEFF}') {
        return Err(ConvertError {
            document: 0,
            path: "$".to_owned(),
            position: Some((1, 1)),
            message: format!("not JSON: {}", msgflow_wire::BYTE_ORDER_MARK_ERROR),
        });
    }
    let whole = serde_json::from_str::<serde::de::IgnoredAny>(text);
    match whole {
        Ok(_) => Ok(vec![Document { text, lines_before: 0 }]),
        // Trailing characters after a first complete value: JSON Lines.
        Err(err) if err.is_syntax() && err.to_string().starts_with("trailing characters") => {
            let mut documents = Vec::new();
            for (line_index, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(line) {
                    return Err(ConvertError {
                        document: documents.len(),
                        path: "$".to_owned(),
                        position: Some((line_index + 1, err.column())),
                        message: format!("line {} is not JSON: {}", line_index + 1, strip_position(&err)),
                    });
                }
                documents.push(Document {
                    text: line,
                    lines_before: line_index,
                });
            }
            Ok(documents)
        }
        Err(err) => Err(ConvertError {
            document: 0,
            path: "$".to_owned(),
            position: Some((err.line(), err.column())),
            message: format!("not JSON: {}", strip_position(&err)),
        }),
    }
}

/// Parses a document already known to be JSON.
pub(crate) fn value(document: &Document<'_>, index: usize) -> Result<Value, ConvertError> {
    serde_json::from_str(document.text).map_err(|err| document.error_at(index, "$", strip_position(&err)))
}

/// serde_json's message without its own " at line L column C" (the error carries the position).
fn strip_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}
