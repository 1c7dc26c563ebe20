//! Reading the `NaN`, `Infinity` and `-Infinity` literals that pydantic-ai reads.
//!
//! They are not JSON, and serde_json refuses them, but pydantic-core's parser (jiter, with
//! `allow_inf_nan`) reads them as Python floats: pydantic-ai 2.68.0 loads a history holding one
//! in a float field (`usage.audio_seconds`) or in any opaque value (tool arguments and output,
//! metadata, provider details). Such a file comes from Python's `json.dumps`, which writes them.
//!
//! serde_json's lexer cannot be taught them, so an input holding them is read a second time
//! (the first read failed on the literal): every literal outside strings is replaced by a
//! placeholder string that serde_json reads ([`Substituted`]), and the readers that accept them
//! put the literal back (`RawJson` for opaque values, `Float` through it). msgflow then writes
//! the literal as it was read: lossless, as for every other spelling. A placeholder that lands
//! anywhere else (a string, an integer, a timestamp) is where pydantic-ai refuses the literal
//! too; the history written back still holds it, which [`Substituted::unrestored`] finds, and the
//! read fails there with the literal's line and column.

use std::fmt::Write as _;

/// What starts every placeholder: a NUL escape no JSON writer puts before these words, so that
/// an input already holding it is never read this way.
const MARKER: &str = "\\u0000msgflow-non-finite:";

/// The literals jiter reads (Python's `json` writes the same three).
pub(crate) const LITERALS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];

/// An input with its non-finite literals replaced by placeholders.
pub(crate) struct Substituted {
    /// The text serde_json reads.
    pub(crate) text: String,
    /// Each literal: its offset in the original input, its offset in `text`, and the literal.
    literals: Vec<(usize, usize, &'static str)>,
}

impl Substituted {
    /// Replaces the literals outside strings, or `None` when there are none (or the input holds
    /// the marker itself, and could not be read back unambiguously).
    pub(crate) fn of(input: &str) -> Option<Substituted> {
        if input.contains(MARKER) {
            return None;
        }
        let mut text = String::new();
        let mut literals = Vec::new();
        let mut copied = 0;
        for (at, literal) in literals_in(input.as_bytes()) {
            if literals.is_empty() {
                text.reserve(input.len() + 64);
            }
            text.push_str(&input[copied..at]);
            literals.push((at, text.len(), literal));
            let _ = write!(text, "\"{MARKER}{}\"", literals.len() - 1);
            copied = at + literal.len();
        }
        if literals.is_empty() {
            return None;
        }
        text.push_str(&input[copied..]);
        Some(Substituted { text, literals })
    }

    /// The offset in the original input of an offset in the substituted text.
    pub(crate) fn original_offset(&self, offset: usize) -> usize {
        let before = self.literals.partition_point(|&(_, at, _)| at < offset);
        match before.checked_sub(1).map(|i| self.literals[i]) {
            None => offset,
            // Inside a placeholder: where its literal starts.
            Some((original, at, _)) if offset < at + placeholder_len(before - 1) => original,
            Some((original, at, literal)) => original + literal.len() + (offset - at - placeholder_len(before - 1)),
        }
    }

    /// Whether `output` (what msgflow writes for the value read from [`Substituted::text`])
    /// holds every literal back: `Err(Some((offset, literal)))` names the first left as a
    /// placeholder (read by a field that takes no float) and its original offset, `Err(None)`
    /// says one was lost.
    pub(crate) fn restored_in(&self, output: &str) -> Result<(), Option<(usize, &'static str)>> {
        if let Some(at) = self.unrestored(output.as_bytes()) {
            return Err(Some(at));
        }
        if count_literals(output) != self.literals.len() {
            return Err(None);
        }
        Ok(())
    }

    fn unrestored(&self, output: &[u8]) -> Option<(usize, &'static str)> {
        let finder = memchr::memmem::Finder::new(MARKER.as_bytes());
        finder.find_iter(output).find_map(|found| {
            let digits = &output[found + MARKER.len()..];
            let end = digits.iter().position(|b| !b.is_ascii_digit()).unwrap_or(digits.len());
            let index: usize = std::str::from_utf8(&digits[..end]).ok()?.parse().ok()?;
            self.literals
                .get(index)
                .map(|&(original, _, literal)| (original, literal))
        })
    }
}

/// The length of placeholder `index`: two quotes, the marker and the index's digits.
fn placeholder_len(index: usize) -> usize {
    2 + MARKER.len() + index.checked_ilog10().map_or(1, |digits| digits as usize + 1)
}

fn count_literals(text: &str) -> usize {
    literals_in(text.as_bytes()).count()
}

/// Each non-finite literal outside the strings of JSON text: its offset and spelling.
fn literals_in(bytes: &[u8]) -> impl Iterator<Item = (usize, &'static str)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            match bytes[at] {
                b'"' => at = crate::raw::skip_string(bytes, at + 1),
                b'-' | b'I' | b'N' => {
                    let start = at;
                    match LITERALS.into_iter().find(|l| bytes[start..].starts_with(l.as_bytes())) {
                        Some(literal) => {
                            at += literal.len();
                            return Some((start, literal));
                        }
                        None => at += 1,
                    }
                }
                _ => at += 1,
            }
        }
        None
    })
}

/// Whether JSON text (as msgflow reads it: compact or not) holds a `NaN`, `Infinity` or
/// `-Infinity` literal outside its strings, which pydantic-core reads as a float.
///
/// ```
/// assert!(msgflow_wire::has_non_finite_literal(r#"{"x":[1,NaN]}"#));
/// assert!(!msgflow_wire::has_non_finite_literal(r#"{"x":"NaN"}"#));
/// ```
pub fn has_non_finite_literal(text: &str) -> bool {
    literals_in(text.as_bytes()).next().is_some()
}

/// `text` (a compact JSON value read from a substituted input) with its placeholders replaced by
/// the literals they stand for, or `None` when it holds none.
pub(crate) fn restore(text: &str) -> Option<String> {
    let first = memchr::memmem::find(text.as_bytes(), MARKER.as_bytes())?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut next = Some(first);
    while let Some(found) = next {
        // The placeholder opened with the quote just before the marker.
        let quote = found.saturating_sub(1);
        out.push_str(&rest[..quote]);
        let after = &rest[found + MARKER.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(literal_of(&after[..digits]));
        // The digits and the closing quote.
        rest = &after[(digits + 1).min(after.len())..];
        next = memchr::memmem::find(rest.as_bytes(), MARKER.as_bytes());
    }
    out.push_str(rest);
    Some(out)
}

/// An error message about the substituted text with each placeholder shown as its literal (serde
/// quotes the string it read as Rust's `Debug` does: the NUL as `\0`).
pub(crate) fn restore_message(message: &str) -> String {
    let unescaped = MARKER.replace("\\u0000", "\\0");
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(found) = rest.find(&unescaped) {
        let after = &rest[found + unescaped.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        // Drop the quote serde put before the placeholder, and the one after it.
        let quoted = rest[..found].ends_with('"') && after[digits..].starts_with('"');
        let before = &rest[..found - usize::from(quoted)];
        // serde names what it read: the literal is a float to pydantic-ai, not a string.
        out.push_str(before.strip_suffix("string ").filter(|_| quoted).unwrap_or(before));
        out.push_str(literal_of(&after[..digits]));
        rest = &after[digits + usize::from(quoted)..];
    }
    out.push_str(rest);
    out
}

/// The JSON path of the value at `offset` in `text` (valid JSON, compact or not), walked without
/// recursion: only for an error's location.
pub(crate) fn path_at(text: &str, offset: usize) -> String {
    use crate::rt::Segment;
    use std::borrow::Cow;
    let bytes = text.as_bytes();
    // For each open container: its segment once a member or element is being read.
    let mut path: Vec<Option<Segment>> = Vec::new();
    let mut at = 0;
    while at < offset.min(bytes.len()) {
        match bytes[at] {
            b'[' => {
                path.push(Some(Segment::Index(0)));
                at += 1;
            }
            b'{' => {
                path.push(None);
                at += 1;
            }
            b']' | b'}' => {
                path.pop();
                at += 1;
            }
            b',' => {
                if let Some(Some(Segment::Index(index))) = path.last_mut() {
                    *index += 1;
                } else if let Some(last) = path.last_mut() {
                    *last = None;
                }
                at += 1;
            }
            b'"' => {
                let end = crate::raw::skip_string(bytes, at + 1);
                // A string in an object where no key is read yet is the next key.
                if let Some(last @ None) = path.last_mut() {
                    let key = serde_json::from_str::<String>(&text[at..end]).unwrap_or_default();
                    *last = Some(Segment::Key(Cow::Owned(key)));
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    let segments: Vec<Segment> = path.into_iter().flatten().collect();
    crate::rt::format_path(&segments)
}

thread_local! {
    /// The literals of the input being read this way, by placeholder index.
    static READING: std::cell::RefCell<Vec<&'static str>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn literal_of(index: &str) -> &'static str {
    let index: Option<usize> = index.parse().ok();
    READING.with(|reading| index.and_then(|i| reading.borrow().get(i).copied()).unwrap_or("null"))
}

/// Makes [`restore`] know the literals of `substituted` while the guard lives.
pub(crate) struct RestoreGuard(Vec<&'static str>);

impl RestoreGuard {
    pub(crate) fn new(substituted: &Substituted) -> Self {
        let literals = substituted.literals.iter().map(|&(_, _, literal)| literal).collect();
        RestoreGuard(READING.with(|reading| std::mem::replace(&mut *reading.borrow_mut(), literals)))
    }
}

impl Drop for RestoreGuard {
    fn drop(&mut self) {
        let previous = std::mem::take(&mut self.0);
        READING.with(|reading| *reading.borrow_mut() = previous);
    }
}

/// Runs `read` on `text`, or, when `text` holds non-finite literals, on its substituted text
/// with the literals restored into the values read (for the verdict's own re-reads of values
/// msgflow holds, which may hold literals it read).
pub(crate) fn reading<R>(text: &str, read: impl FnOnce(&str) -> R) -> R {
    match Substituted::of(text) {
        None => read(text),
        Some(substituted) => {
            let _restoring = RestoreGuard::new(&substituted);
            read(&substituted.text)
        }
    }
}

/// Whether an input is being read with placeholders (so values must be restored).
pub(crate) fn restoring() -> bool {
    READING.with(|reading| !reading.borrow().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_outside_strings_are_replaced_and_offsets_map_back() {
        let input = r#"[NaN,"NaN -Infinity",-Infinity,{"a":Infinity},-1]"#;
        let substituted = Substituted::of(input).unwrap();
        assert_eq!(substituted.literals.len(), 3);
        let _guard = RestoreGuard::new(&substituted);
        assert_eq!(restore(&substituted.text).unwrap(), input);
        // Each literal's offset, and the text after it, map back.
        for (original, at, literal) in substituted.literals.clone() {
            assert_eq!(substituted.original_offset(at), original);
            let after = at + placeholder_len(substituted.literals.iter().position(|l| l.1 == at).unwrap());
            assert_eq!(substituted.original_offset(after), original + literal.len());
        }
        assert_eq!(substituted.restored_in(input), Ok(()));
        assert_eq!(substituted.restored_in("[NaN]"), Err(None));
    }

    #[test]
    fn an_input_without_literals_or_holding_the_marker_is_not_substituted() {
        assert!(Substituted::of(r#"["NaN",-1,{"Infinity":null}]"#).is_none());
        assert!(Substituted::of(&format!("[NaN,\"{MARKER}0\"]")).is_none());
    }

    #[test]
    fn messages_and_paths_name_the_literal() {
        let input = r#"{"a":[1,{"b c":NaN}],"d":Infinity}"#;
        let substituted = Substituted::of(input).unwrap();
        let _guard = RestoreGuard::new(&substituted);
        assert_eq!(
            restore_message(r#"invalid type: string "\0msgflow-non-finite:1", expected a string"#),
            "invalid type: Infinity, expected a string"
        );
        assert_eq!(path_at(input, input.find("NaN").unwrap()), r#"$.a[1]["b c"]"#);
        assert_eq!(path_at(input, input.find("Infinity").unwrap()), "$.d");
    }

    #[test]
    fn a_placeholder_left_in_the_output_names_its_literal() {
        let input = "[1,\n NaN,\n Infinity]";
        let substituted = Substituted::of(input).unwrap();
        let output = format!("[1,\"{MARKER}1\"]");
        assert_eq!(
            substituted.restored_in(&output),
            Err(Some((input.find("Infinity").unwrap(), "Infinity")))
        );
        assert_eq!(substituted.restored_in("[1,NaN,Infinity]"), Ok(()));
    }
}
