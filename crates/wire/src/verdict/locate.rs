//! The line and column of a JSON path in the input text, for reasons only (never on the
//! happy path): a path such as `$[0].parts["odd key"][2]` is followed through the text by
//! skipping over the values before each step, without recursion.

use std::borrow::Cow;

use crate::raw::skip_whitespace;

/// One step of a msgflow JSON path.
#[derive(Debug, PartialEq, Eq)]
enum Step<'p> {
    Index(usize),
    Key(Cow<'p, str>),
}

/// The 1-based (line, column) where the value at `path` starts in `input`, or `None` when the
/// path is not in the text (or the text is not the history the path was taken from).
pub(super) fn line_column_of(input: &str, path: &str) -> Option<(usize, usize)> {
    let steps = parse_path(path)?;
    let bytes = input.as_bytes();
    let mut at = skip_whitespace(bytes, 0);
    for step in &steps {
        at = match step {
            Step::Index(index) => element(bytes, at, *index)?,
            Step::Key(key) => member(bytes, at, key)?,
        };
    }
    Some(crate::rt::line_column(bytes, at))
}

fn parse_path(path: &str) -> Option<Vec<Step<'_>>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            steps.push(Step::Key(Cow::Borrowed(&after[..end])));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix("[\"") {
            // A JSON string literal: find its closing quote, skipping escapes.
            let bytes = after.as_bytes();
            let mut end = 0;
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            let literal = after.get(..end + 1)?;
            let key: String = serde_json::from_str(&format!("\"{literal}")).ok()?;
            steps.push(Step::Key(Cow::Owned(key)));
            rest = after.get(end + 1..)?.strip_prefix(']')?;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            steps.push(Step::Index(after[..end].parse().ok()?));
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

/// The end of the string starting at `at` (just past its closing quote).
fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// The end of the value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = at;
            while i < bytes.len() && !matches!(bytes[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
            Some(i)
        }
    }
}

/// The start of element `index` of the array at `at`.
fn element(bytes: &[u8], at: usize, index: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let mut i = skip_whitespace(bytes, at + 1);
    for _ in 0..index {
        i = skip_value(bytes, i)?;
        i = skip_whitespace(bytes, i);
        if bytes.get(i) != Some(&b',') {
            return None;
        }
        i = skip_whitespace(bytes, i + 1);
    }
    (bytes.get(i) != Some(&b']')).then_some(i)
}

/// The start of the value of `key` in the object at `at` (the last one, as pydantic reads
/// duplicate keys).
fn member(bytes: &[u8], at: usize, key: &str) -> Option<usize> {
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut found = None;
    let mut i = skip_whitespace(bytes, at + 1);
    while bytes.get(i) == Some(&b'"') {
        let end = skip_string(bytes, i)?;
        let literal = std::str::from_utf8(&bytes[i..end]).ok()?;
        let matches = if literal.contains('\\') {
            serde_json::from_str::<String>(literal).is_ok_and(|text| text == key)
        } else {
            &literal[1..literal.len() - 1] == key
        };
        i = skip_whitespace(bytes, end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        i = skip_whitespace(bytes, i + 1);
        if matches {
            found = Some(i);
        }
        i = skip_whitespace(bytes, skip_value(bytes, i)?);
        if bytes.get(i) != Some(&b',') {
            break;
        }
        i = skip_whitespace(bytes, i + 1);
    }
    found
}

/// The entries of the compact JSON object `text`, as (unescaped key, raw value text), read without
/// recursion whatever the values' depth; `None` when `text` is not an object.
pub(super) fn object_entries(text: &str) -> Option<Vec<(String, &str)>> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut entries = Vec::new();
    let mut i = skip_whitespace(bytes, 1);
    while bytes.get(i) == Some(&b'"') {
        let end = skip_string(bytes, i)?;
        let key: String = serde_json::from_str(text.get(i..end)?).ok()?;
        i = skip_whitespace(bytes, end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_whitespace(bytes, i + 1);
        let value_end = skip_value(bytes, start)?;
        entries.push((key, text.get(start..value_end)?));
        i = skip_whitespace(bytes, value_end);
        if bytes.get(i) != Some(&b',') {
            break;
        }
        i = skip_whitespace(bytes, i + 1);
    }
    Some(entries)
}

/// The items of the compact JSON array `text`, each as its raw text, read without recursion
/// whatever their depth; `None` when `text` is not an array.
pub(super) fn array_items(text: &str) -> Option<Vec<&str>> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'[') {
        return None;
    }
    let mut items = Vec::new();
    let mut i = skip_whitespace(bytes, 1);
    while !matches!(bytes.get(i), None | Some(b']')) {
        let end = skip_value(bytes, i)?;
        items.push(text.get(i..end)?);
        i = skip_whitespace(bytes, end);
        if bytes.get(i) != Some(&b',') {
            break;
        }
        i = skip_whitespace(bytes, i + 1);
    }
    Some(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_entries_are_read_at_any_depth() {
        let deep = format!("{{\"a\":{}1{},\"b\\u0021\":\"x\"}}", "[".repeat(300), "]".repeat(300));
        let entries = object_entries(&deep).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!((entries[1].0.as_str(), entries[1].1), ("b!", "\"x\""));
        assert_eq!(object_entries("[1]"), None);
    }

    #[test]
    fn array_items_are_read_at_any_depth() {
        let deep = format!("[{}1{},\"a,]\",{{}}]", "[".repeat(300), "]".repeat(300));
        let items = array_items(&deep).unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!((items[1], items[2]), ("\"a,]\"", "{}"));
        assert_eq!(array_items("[]"), Some(vec![]));
        assert_eq!(array_items("{}"), None);
    }

    #[test]
    fn paths_are_read_back() {
        assert_eq!(
            parse_path(r#"$[0].parts["a b"][2]"#).unwrap(),
            [
                Step::Index(0),
                Step::Key("parts".into()),
                Step::Key("a b".into()),
                Step::Index(2)
            ]
        );
    }

    #[test]
    fn values_are_found_across_lines_and_duplicate_keys() {
        let input = "[\n {\"a\": [1, {\"b\": \"x\"}], \"a\": [3,\n  4]}\n]";
        assert_eq!(line_column_of(input, "$[0].a[1]"), Some((3, 3)));
        assert_eq!(line_column_of(input, "$[0]"), Some((2, 2)));
        assert_eq!(line_column_of(input, "$[0].z"), None);
        assert_eq!(line_column_of(input, "$[1]"), None);
    }
}
