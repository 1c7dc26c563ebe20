//! Python 3.11's `difflib.unified_diff(a, b, 'before', 'after', lineterm='', n=2)`, the diff
//! pydantic-ai's `_context_diff_element` sends a changed instruction block as (messages.py).
//!
//! Mirrors `SequenceMatcher(None, a, b)` exactly (`__chain_b` with `autojunk=True` and no junk
//! function, `find_longest_match`, `get_matching_blocks`, `get_opcodes`, `get_grouped_opcodes`),
//! since which lines are paired decides the hunks and so the diff's length, which pydantic-ai
//! compares with the full replacement's.

use std::collections::{HashMap, HashSet};

/// An opcode of `get_opcodes`: its tag and the ranges `a[i1..i2]`, `b[j1..j2]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Opcode {
    tag: Tag,
    i1: usize,
    i2: usize,
    j1: usize,
    j2: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Replace,
    Delete,
    Insert,
    Equal,
}

/// `SequenceMatcher(None, a, b)`: `b2j` without the popular elements (`autojunk`: in a `b` of 200
/// or more lines, a line occurring more than `len(b) // 100 + 1` times).
struct SequenceMatcher<'a> {
    a: &'a [&'a str],
    b: &'a [&'a str],
    b2j: HashMap<&'a str, Vec<usize>>,
}

impl<'a> SequenceMatcher<'a> {
    /// `__chain_b`.
    fn new(a: &'a [&'a str], b: &'a [&'a str]) -> Self {
        let mut b2j: HashMap<&str, Vec<usize>> = HashMap::new();
        for (index, line) in b.iter().enumerate() {
            b2j.entry(line).or_default().push(index);
        }
        if b.len() >= 200 {
            let ntest = b.len() / 100 + 1;
            let popular: HashSet<&str> = b2j
                .iter()
                .filter(|(_, indices)| indices.len() > ntest)
                .map(|(line, _)| *line)
                .collect();
            for line in popular {
                b2j.remove(line);
            }
        }
        SequenceMatcher { a, b, b2j }
    }

    /// `find_longest_match(alo, ahi, blo, bhi)`: the longest block of `b2j` matches, earliest in
    /// `a`, then in `b`, extended on each side by equal lines (the popular ones `b2j` lacks; no
    /// line is junk, so the junk extension adds nothing).
    fn find_longest_match(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for i in alo..ahi {
            let mut newj2len = HashMap::new();
            if let Some(indices) = self.b2j.get(self.a[i]) {
                for &j in indices {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j
                        .checked_sub(1)
                        .and_then(|previous| j2len.get(&previous))
                        .copied()
                        .unwrap_or(0)
                        + 1;
                    newj2len.insert(j, k);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            j2len = newj2len;
        }
        while besti > alo && bestj > blo && self.a[besti - 1] == self.b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi && bestj + bestsize < bhi && self.a[besti + bestsize] == self.b[bestj + bestsize] {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }

    /// `get_matching_blocks`: the matches found by splitting around the longest one (a LIFO
    /// queue), sorted, adjacent ones joined, ending with `(len(a), len(b), 0)`.
    fn matching_blocks(&self) -> Vec<(usize, usize, usize)> {
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        let mut blocks = Vec::new();
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.find_longest_match(alo, ahi, blo, bhi);
            if k > 0 {
                blocks.push((i, j, k));
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        blocks.sort_unstable();
        let (mut i1, mut j1, mut k1) = (0, 0, 0);
        let mut joined = Vec::new();
        for (i2, j2, k2) in blocks {
            if i1 + k1 == i2 && j1 + k1 == j2 {
                k1 += k2;
            } else {
                if k1 > 0 {
                    joined.push((i1, j1, k1));
                }
                (i1, j1, k1) = (i2, j2, k2);
            }
        }
        if k1 > 0 {
            joined.push((i1, j1, k1));
        }
        joined.push((self.a.len(), self.b.len(), 0));
        joined
    }

    /// `get_opcodes`.
    fn opcodes(&self) -> Vec<Opcode> {
        let (mut i, mut j) = (0, 0);
        let mut codes = Vec::new();
        for (ai, bj, size) in self.matching_blocks() {
            let tag = match (i < ai, j < bj) {
                (true, true) => Some(Tag::Replace),
                (true, false) => Some(Tag::Delete),
                (false, true) => Some(Tag::Insert),
                (false, false) => None,
            };
            if let Some(tag) = tag {
                codes.push(Opcode {
                    tag,
                    i1: i,
                    i2: ai,
                    j1: j,
                    j2: bj,
                });
            }
            (i, j) = (ai + size, bj + size);
            if size > 0 {
                codes.push(Opcode {
                    tag: Tag::Equal,
                    i1: ai,
                    i2: i,
                    j1: bj,
                    j2: j,
                });
            }
        }
        codes
    }

    /// `get_grouped_opcodes(n)`: the changes with up to `n` lines of context, in hunks.
    fn grouped_opcodes(&self, n: usize) -> Vec<Vec<Opcode>> {
        let mut codes = self.opcodes();
        if codes.is_empty() {
            codes.push(Opcode {
                tag: Tag::Equal,
                i1: 0,
                i2: 1,
                j1: 0,
                j2: 1,
            });
        }
        if let Some(first) = codes.first_mut().filter(|code| code.tag == Tag::Equal) {
            first.i1 = first.i1.max(first.i2.saturating_sub(n));
            first.j1 = first.j1.max(first.j2.saturating_sub(n));
        }
        if let Some(last) = codes.last_mut().filter(|code| code.tag == Tag::Equal) {
            last.i2 = last.i2.min(last.i1 + n);
            last.j2 = last.j2.min(last.j1 + n);
        }
        let mut groups = Vec::new();
        let mut group = Vec::new();
        for mut code in codes {
            if code.tag == Tag::Equal && code.i2 - code.i1 > 2 * n {
                group.push(Opcode {
                    i2: code.i2.min(code.i1 + n),
                    j2: code.j2.min(code.j1 + n),
                    ..code
                });
                groups.push(std::mem::take(&mut group));
                code.i1 = code.i1.max(code.i2.saturating_sub(n));
                code.j1 = code.j1.max(code.j2.saturating_sub(n));
            }
            group.push(code);
        }
        // `if group and not (len(group) == 1 and group[0][0] == 'equal')`: a hunk with a change.
        if group.iter().any(|code| code.tag != Tag::Equal) {
            groups.push(group);
        }
        groups
    }
}

/// `_format_range_unified(start, stop)`.
fn unified_range(start: usize, stop: usize) -> String {
    let length = stop - start;
    match length {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        _ => format!("{},{length}", start + 1),
    }
}

/// `'\n'.join(difflib.unified_diff(a, b, 'before', 'after', lineterm='', n=context))`.
pub(crate) fn unified_diff(a: &[&str], b: &[&str], context: usize) -> String {
    let matcher = SequenceMatcher::new(a, b);
    let mut lines: Vec<String> = Vec::new();
    for (index, group) in matcher.grouped_opcodes(context).iter().enumerate() {
        if index == 0 {
            lines.push("--- before".to_owned());
            lines.push("+++ after".to_owned());
        }
        let (first, last) = (group[0], group[group.len() - 1]);
        lines.push(format!(
            "@@ -{} +{} @@",
            unified_range(first.i1, last.i2),
            unified_range(first.j1, last.j2)
        ));
        for code in group {
            if code.tag == Tag::Equal {
                lines.extend(a[code.i1..code.i2].iter().map(|line| format!(" {line}")));
                continue;
            }
            if matches!(code.tag, Tag::Replace | Tag::Delete) {
                lines.extend(a[code.i1..code.i2].iter().map(|line| format!("-{line}")));
            }
            if matches!(code.tag, Tag::Replace | Tag::Insert) {
                lines.extend(b[code.j1..code.j2].iter().map(|line| format!("+{line}")));
            }
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::unified_diff;

    /// Outputs of Python 3.11's `'\n'.join(difflib.unified_diff(a, b, 'before', 'after',
    /// lineterm='', n=2))`, run on these inputs.
    #[test]
    fn unified_diff_is_pythons() {
        assert_eq!(unified_diff(&["a"], &["a"], 2), "");
        assert_eq!(
            unified_diff(&["a", "b", "c"], &["a", "x", "c"], 2),
            "--- before\n+++ after\n@@ -1,3 +1,3 @@\n a\n-b\n+x\n c"
        );
        assert_eq!(
            unified_diff(&[""], &["new"], 2),
            "--- before\n+++ after\n@@ -1 +1 @@\n-\n+new"
        );
        let a = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
        let b = ["1", "two", "3", "4", "5", "6", "7", "8", "9", "ten", "11"];
        assert_eq!(
            unified_diff(&a, &b, 2),
            "--- before\n+++ after\n@@ -1,4 +1,4 @@\n 1\n-2\n+two\n 3\n 4\n@@ -8,3 +8,4 @@\n 8\n 9\n-10\n+ten\n+11"
        );
        assert_eq!(
            unified_diff(&["a", "b"], &["b"], 2),
            "--- before\n+++ after\n@@ -1,2 +1 @@\n-a\n b"
        );
        assert_eq!(unified_diff(&["a"], &[], 2), "--- before\n+++ after\n@@ -1 +0,0 @@\n-a");
    }

    /// Python's diffs of random line lists (`tests/fixtures/providers/difflib-unified.json`,
    /// written by `generate_difflib.py`), blocks of 200 lines or more among them, whose repeated
    /// lines `autojunk` leaves out of `b2j`.
    #[test]
    fn unified_diff_equals_pythons_on_random_blocks() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/providers/difflib-unified.json"
        );
        let fixture: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let lines = |value: &serde_json::Value| -> Vec<String> {
            value
                .as_array()
                .unwrap()
                .iter()
                .map(|line| line.as_str().unwrap().to_owned())
                .collect()
        };
        let cases = fixture["cases"].as_array().unwrap();
        assert!(cases.iter().any(|case| case["b"].as_array().unwrap().len() >= 200));
        for case in cases {
            let (a, b) = (lines(&case["a"]), lines(&case["b"]));
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let b: Vec<&str> = b.iter().map(String::as_str).collect();
            assert_eq!(
                unified_diff(&a, &b, 2),
                case["diff"].as_str().unwrap(),
                "{a:?} -> {b:?}"
            );
        }
    }
}
