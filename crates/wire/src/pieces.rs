//! A long history parsed in pieces on rayon's thread pool.
//!
//! The messages of a history are independent values, so a long history can be read message by
//! message on several threads. Where one message ends is only known by reading it, so the text
//! is cut where a message *looks* like it starts, and the cuts are then proven by the parse:
//!
//! * a cut is a `{` right after `}` and `,` (whitespace allowed) that opens an object starting
//!   like the first message: pydantic-ai's `dump_json` writes `parts` first in both message
//!   kinds, so each message of a history it wrote starts like the first;
//! * each piece is parsed message by message from its cut, and must end exactly at the next cut,
//!   after a `,`. The first piece starts after the array's `[`, where a message does start; a
//!   piece that starts where a message starts reads whole messages, so if it ends exactly at the
//!   next cut, that cut is where a message starts too. By induction every piece is read as the
//!   whole text is: the pieces' messages are the history's.
//!
//! Anything else (a cut inside a message or a string, an error, a text that is not a plain
//! array) gives up, and the caller parses the whole text on one thread, which gives exactly the
//! errors it always gave. A message is parsed as the root of its own text rather than inside the
//! array, one level shallower for serde_json's recursion limit; that limit is never reached
//! inside a message's typed structure (which nests a few levels), and opaque values are read
//! without recursion, so nothing parses differently.

use memchr::memmem;
use rayon::prelude::*;
use serde::Deserialize;

use crate::raw::{skip_string, skip_whitespace};
use crate::rt::InputContext;
use crate::ModelMessage;

/// Shorter texts are parsed on one thread: cutting them would save less than it costs.
pub(crate) const MIN_BYTES: usize = 512 * 1024;

/// The least text a piece is cut for.
const MIN_PIECE_BYTES: usize = 128 * 1024;

/// Pieces per thread, so that a thread that finished early takes another piece.
const PIECES_PER_THREAD: usize = 4;

/// The history `text` holds, parsed in pieces on the thread pool with the calling thread's
/// parse context (see the module); `None` when it is not cut or a cut does not hold.
#[inline(never)]
pub(crate) fn parse_in_pieces(text: &str) -> Option<Vec<ModelMessage>> {
    // The literals a substituted text's placeholders stand for are known to this thread only.
    if crate::non_finite::restoring() {
        return None;
    }
    parse_array_in_pieces(text)
}

/// The JSON values of `text`, a long array of objects each starting like the first (the messages
/// of a front end's JSON, say), parsed in pieces on the thread pool; `None` when the text is
/// short, is not such an array, or a cut does not hold. Each item is read as the root of its own
/// text: one nested [`crate::MAX_DEPTH`] levels deep inside the array, which the whole text's
/// parse refuses, is read here.
pub(crate) fn values_in_pieces(text: &str) -> Option<Vec<serde_json::Value>> {
    parse_array_in_pieces(text)
}

/// The items of `text`, a long JSON array of objects, parsed in pieces on the thread pool (see
/// the module); `None` when the text is short, is not such an array, or a cut does not hold.
///
/// The text is cut where an object starts like the first item ([`ItemStart`]) right after the
/// previous item. Each item is read as the root of its own text, where serde_json allows one
/// more level of nesting than inside the array; a history's typed structure never comes near.
fn parse_array_in_pieces<T>(text: &str) -> Option<Vec<T>>
where
    T: for<'de> Deserialize<'de> + Send,
{
    let threads = rayon::current_num_threads();
    if text.len() < MIN_BYTES || threads < 2 {
        return None;
    }
    let bytes = text.as_bytes();
    let open = skip_whitespace(bytes, 0);
    if bytes.get(open) != Some(&b'[') {
        return None;
    }
    let first = skip_whitespace(bytes, open + 1);
    let start = ItemStart::of(bytes, first)?;
    let pieces = (threads * PIECES_PER_THREAD).min(text.len() / MIN_PIECE_BYTES);
    let mut starts = vec![first];
    for piece in 1..pieces {
        let from = (text.len() / pieces * piece).max(starts[starts.len() - 1] + 1);
        match start.next(bytes, from) {
            Some(cut) => starts.push(cut),
            None => break,
        }
    }
    if starts.len() < 2 {
        return None;
    }
    let input = InputContext::current();
    let parsed: Option<Vec<Vec<T>>> = (0..starts.len())
        .into_par_iter()
        .map(|piece| {
            let _context = input.install();
            parse_piece(text, starts[piece], starts.get(piece + 1).copied())
        })
        .collect();
    let parsed = parsed?;
    let mut items = Vec::with_capacity(parsed.iter().map(Vec::len).sum());
    items.extend(parsed.into_iter().flatten());
    Some(items)
}

/// The items from `start` up to the cut `stop` (the array's end for the last piece), or `None`
/// when they do not end exactly there.
fn parse_piece<T: for<'de> Deserialize<'de>>(text: &str, start: usize, stop: Option<usize>) -> Option<Vec<T>> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    let mut at = start;
    loop {
        let mut stream = serde_json::Deserializer::from_str(text.get(at..)?).into_iter::<T>();
        items.push(stream.next()?.ok()?);
        at = skip_whitespace(bytes, at + stream.byte_offset());
        match (bytes.get(at), stop) {
            (Some(b','), Some(stop)) => {
                at = skip_whitespace(bytes, at + 1);
                if at >= stop {
                    return (at == stop).then_some(items);
                }
            }
            (Some(b','), None) => at = skip_whitespace(bytes, at + 1),
            (Some(b']'), None) => return (skip_whitespace(bytes, at + 1) == bytes.len()).then_some(items),
            _ => return None,
        }
    }
}

/// How the first item of an array starts: its first key as written (quotes included), and its
/// second key when the first key's value is a string, so that objects nested in an item that
/// start with the same key are not taken for items (in an array of AG-UI messages, say, each
/// message starts with `"id"` then `"role"`, its tool calls with `"id"` then `"type"`).
/// pydantic-ai writes `parts` first in both message kinds, an array, so a history's items are
/// told by `"parts"` alone.
struct ItemStart<'t> {
    first_key: memmem::Finder<'t>,
    second_key: Option<&'t [u8]>,
}

impl<'t> ItemStart<'t> {
    /// How the object at `at` starts, if it starts with a key.
    fn of(bytes: &'t [u8], at: usize) -> Option<Self> {
        let (first_key, second_key) = leading_keys(bytes, at)?;
        Some(ItemStart {
            first_key: memmem::Finder::new(first_key),
            second_key,
        })
    }

    /// The first `{` at or after `from` that opens an object starting like the first item, right
    /// after the end of an object and a `,`: where an item starts, unless the bytes lie inside
    /// an item.
    fn next(&self, bytes: &[u8], from: usize) -> Option<usize> {
        let mut search = from;
        loop {
            let key = search + self.first_key.find(bytes.get(search..)?)?;
            search = key + 1;
            let Some(brace) = last_non_whitespace(bytes, key).filter(|&at| at >= from && bytes[at] == b'{') else {
                continue;
            };
            let comma = last_non_whitespace(bytes, brace).filter(|&at| bytes[at] == b',');
            let close = comma.and_then(|comma| last_non_whitespace(bytes, comma));
            if close.map(|at| bytes[at]) == Some(b'}')
                && leading_keys(bytes, brace).is_some_and(|(_, second)| second == self.second_key)
            {
                return Some(brace);
            }
        }
    }
}

/// The first key of the object at `at` as written, and its second key when the first key's
/// value is a string.
fn leading_keys(bytes: &[u8], at: usize) -> Option<(&[u8], Option<&[u8]>)> {
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let key = skip_whitespace(bytes, at + 1);
    let first_key = json_string(bytes, key)?;
    let colon = skip_whitespace(bytes, key + first_key.len());
    if bytes.get(colon) != Some(&b':') {
        return None;
    }
    let value = skip_whitespace(bytes, colon + 1);
    let second_key = json_string(bytes, value).and_then(|string| {
        let comma = skip_whitespace(bytes, value + string.len());
        (bytes.get(comma) == Some(&b',')).then(|| json_string(bytes, skip_whitespace(bytes, comma + 1)))?
    });
    Some((first_key, second_key))
}

/// The JSON string starting at `at`, quotes included.
fn json_string(bytes: &[u8], at: usize) -> Option<&[u8]> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let end = skip_string(bytes, at + 1);
    (bytes.get(end - 1) == Some(&b'"') && end > at + 1).then(|| &bytes[at..end])
}

/// The index of the last byte before `at` that is not JSON whitespace.
fn last_non_whitespace(bytes: &[u8], at: usize) -> Option<usize> {
    bytes
        .get(..at)?
        .iter()
        .rposition(|byte| !matches!(byte, b' ' | b'\n' | b'\r' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rt::{ContextGuard, IndexedVec};

    const PROMPT: &str = r#"{"parts":[{"content":"hi},{\"parts\":[","timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}"#;
    /// A tool return whose output holds the bytes a cut looks for.
    const DECOY: &str = r#"{"parts":[{"tool_name":"f","content":[{"a":1},{"parts":[2]}],"tool_call_id":"c","timestamp":"2025-01-02T03:04:05Z","part_kind":"tool-return"}],"kind":"request"}"#;

    /// `count` messages, `decoy` every `every`th.
    fn history(count: usize, every: usize) -> String {
        let messages: Vec<&str> = (0..count)
            .map(|i| if i % every == 0 { DECOY } else { PROMPT })
            .collect();
        format!("[{}]", messages.join(","))
    }

    /// The history as the whole text parsed on one thread gives it.
    fn whole(text: &str) -> Vec<ModelMessage> {
        let _context = ContextGuard::new(text.as_bytes());
        serde_json::from_str::<IndexedVec<ModelMessage>>(text).unwrap().0
    }

    /// Runs `f` on a pool of `threads` threads, whatever the machine has.
    fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

    fn on_four_threads<T: Send>(f: impl FnOnce() -> T + Send) -> T {
        on_threads(4, f)
    }

    fn in_pieces(text: &str) -> Option<Vec<ModelMessage>> {
        let _context = ContextGuard::new(text.as_bytes());
        parse_in_pieces(text)
    }

    #[test]
    fn a_long_history_in_pieces_is_the_history_parsed_whole() {
        let text = history(4000, 1000);
        assert!(text.len() > MIN_BYTES);
        let pieces = on_four_threads(|| in_pieces(&text)).expect("cut");
        assert_eq!(pieces.len(), 4000);
        assert_eq!(pieces, whole(&text));
        assert_eq!(crate::to_string(&pieces).unwrap(), text);
        // Written pretty, as a person or another tool may keep it.
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        assert_eq!(on_four_threads(|| in_pieces(&pretty)).expect("cut"), whole(&pretty));
    }

    #[test]
    fn a_cut_inside_a_message_is_refused_and_the_text_is_parsed_whole() {
        // Every other message holds a false start: some cuts land there.
        let text = history(6000, 2);
        let decoy = text.match_indices(r#"{"parts":[2]"#).nth(1).unwrap().0;
        let start = ItemStart::of(text.as_bytes(), 1).unwrap();
        assert_eq!(start.next(text.as_bytes(), decoy - 10), Some(decoy));
        assert_eq!(parse_piece::<ModelMessage>(&text, decoy, None), None);
        if let Some(pieces) = on_four_threads(|| in_pieces(&text)) {
            assert_eq!(pieces, whole(&text));
        }
        assert_eq!(on_four_threads(|| crate::from_str(&text)).unwrap(), whole(&text));
    }

    #[test]
    fn an_error_in_a_long_history_is_the_whole_texts() {
        let mut text = history(4000, 1000);
        let at = text.match_indices(r#""instructions":null"#).nth(2500).unwrap().0;
        text.replace_range(at..at + 19, r#""instructions":[1]"#);
        let Err(err) = on_four_threads(|| crate::from_str(&text)) else {
            panic!("an error")
        };
        assert_eq!(err.path(), "$[2503].instructions");
        assert!(err.column > at, "{err}");
        assert_eq!(err, on_threads(1, || crate::from_str(&text)).unwrap_err());
    }

    #[test]
    fn a_long_history_holding_a_nan_literal_parses_as_on_one_thread() {
        let text = history(4000, 1000).replacen(r#"[{"a":1}"#, r#"[{"a":NaN}"#, 2);
        assert!(text.contains("NaN"));
        assert_eq!(on_four_threads(|| in_pieces(&text)), None);
        let parsed = on_four_threads(|| crate::from_str(&text)).unwrap();
        assert_eq!(parsed, on_threads(1, || crate::from_str(&text)).unwrap());
        assert_eq!(crate::to_string(&parsed).unwrap(), text);
    }

    #[test]
    fn values_of_a_shared_input_cut_in_pieces_are_slices_of_it() {
        let input = crate::Input::from(history(4000, 1000));
        let history = on_four_threads(|| input.parse()).unwrap();
        let crate::ModelMessage::Request(request) = &history[3000] else {
            panic!("a request")
        };
        let crate::ModelRequestPart::ToolReturn(part) = &request.parts[0] else {
            panic!("a tool return")
        };
        let text = input.as_str().as_bytes().as_ptr_range();
        assert!(text.contains(&part.content.get().as_ptr()));
    }

    #[test]
    fn an_item_starts_where_an_object_opens_like_the_first_right_after_an_object() {
        let text = br#"[{"parts":[{"a":{"parts":1}}]}, {"parts" :[]}]"#;
        let start = ItemStart::of(text, 1).unwrap();
        // The first `"parts"` follows `[`, the second `:`; the third is an item's.
        assert_eq!(start.next(text, 0), Some(32));
        assert_eq!(start.next(text, 33), None);
        assert_eq!(start.next(b"},\n  {\n  \"parts\": [", 0), Some(5));
        assert_eq!(start.next(b"{\"parts\":", 0), None);
        // AG-UI messages start with `id` then `role`, their tool calls with `id` then `type`.
        let text = br#"[{"id":"1","role":"assistant","toolCalls":[{"id":"a","type":"function"},{"id":"b","type":"function"}]},{"id":"2","role":"tool"}]"#;
        let start = ItemStart::of(text, 1).unwrap();
        let second = text.windows(8).position(|w| w == br#"{"id":"2"#).unwrap();
        assert_eq!(start.next(text, 2), Some(second));
    }

    #[test]
    fn a_long_array_of_objects_in_pieces_is_serde_jsons() {
        let items: Vec<String> = (0..20_000)
            .map(|i| format!(r#"{{"id":"m{i}","role":"assistant","toolCalls":[{{"id":"a","type":"function"}},{{"id":"b","type":"function"}}]}}"#))
            .collect();
        let text = format!("[{}]", items.join(", "));
        let pieces: Vec<serde_json::Value> = on_four_threads(|| parse_array_in_pieces(&text)).expect("cut");
        assert_eq!(
            serde_json::Value::Array(pieces),
            serde_json::from_str::<serde_json::Value>(&text).unwrap()
        );
        // Not an array of objects: not cut.
        let numbers = format!("[{}]", vec!["1"; 300_000].join(","));
        assert!(on_four_threads(|| parse_array_in_pieces::<serde_json::Value>(&numbers)).is_none());
    }
}
