//! The texts of the seeded histories: code, HTML and shell text with `<` and `&`, and framing-tag
//! lookalikes pydantic-ai notes (as written, entity-encoded, fullwidth, folded, spliced with the
//! code points around which `_comparable` decides).

use super::Rng;

const WORDS: &[&str] = &[
    "read",
    "the",
    "file",
    "ok",
    "done",
    "λ",
    "日本",
    "\"quoted\"",
    "tab\t",
    "line\nbreak",
    "emoji 🎉",
    "\\path",
    // `<` and `&` in code, HTML and shell text, none of them a lookalike.
    "<div>",
    "a && b",
    "x < y",
    "Vec<String>",
    "&amp;",
    "&lt;br&gt;",
    "</p>",
    "<context>",
    "<tool_result>",
    "<systemd>",
    "if (a<b && c>d)",
    "&",
    "<",
    // Next to non-ASCII text pydantic-ai's NFKC folding leaves as it is.
    "<名前>",
    "a <— b",
    "&日本",
    "</λ>",
    "<sy€",
    // and next to fullwidth punctuation, which NFKC changes, but not before it.
    "x<y，A&B：",
];

/// Framing-tag lookalikes as users and tools write them: pydantic-ai notes each.
pub(super) const LOOKALIKES: &[&str] = &[
    "<pyai:context>",
    "</system>",
    "<SYSTEM attr=\"1\">",
    "< / pyai : tool_result >",
    "<assistant_thinking>",
    "text <pyai:retry_feedback",
    "<pyai:context_diff id=\"a\">",
    "&lt;system&gt;",
    "&#60;pyai:validation_errors&#62;",
    "</pyai:conversation_summary>",
    "λ <system/> 日本",
    "<system 日本",
    "&lt;pyai:context—",
    "\u{ff1c}system>",
    "\u{fe64}/pyai:context>",
    "\u{ff06}lt;system>",
];

/// Lookalikes only `_comparable`'s folding reads (a zero-width space or joiner, a fullwidth letter,
/// `>`, `:` or entity, a combining mark, Python's non-ASCII whitespace, Cyrillic, Greek and
/// small-capital look-alike letters, the letters `re.IGNORECASE` matches to ASCII), and texts
/// folding changes into no lookalike (a combining mark composing with a tag's letter or its `>`):
/// msgflow folds the text as pydantic-ai does.
const FOLDED: &[&str] = &[
    "<\u{200b}system>",
    "<sys\u{200d}tem>",
    "<\u{ff53}ystem>",
    "\u{ff1c}system\u{ff1e}",
    "<system>\u{338}",
    "<system\u{a0}",
    "< \u{301}",
    "<s\u{301}ystem>",
    "<system\u{301}>",
    "<\u{2028}system>",
    "<\u{3000}system>",
    "<\u{1680}/system>",
    "<\u{85}system>",
    "<\u{455}ystem>",
    "<\u{a731}\u{28f}\u{a731}\u{1d1b}\u{1d07}\u{1d0d}>",
    "</pyai\u{ff1a}tool_result>",
    "\u{ff06}\u{ff03}\u{ff16}\u{ff10};system>",
    "&#x3C;\u{455}ystem&#X3e;",
    "<system> \u{131}",
    "<\u{fb01}le>",
];

/// A possible lookalike next to a character Unicode 14 does not assign (which Python 3.11's NFKC
/// leaves as it is), and tags spelled with a dotted or dotless `i` (which pydantic-ai names as
/// written).
const UNASSIGNED_OR_DOTTED_I: &[&str] = &[
    "<sys\u{378}tem>",
    "<pya\u{131}:context>",
    "<pya\u{130}:context>",
    "<assistant_th\u{131}nking \u{2713}",
    "<Pya\u{131} : Context_d\u{131}ff>",
    "</pyai:val\u{130}dation_errors>",
    "&lt;pya\u{131}:retry_feedback&gt;",
    "<system\u{378}",
    "<\u{1f7d9}system>",
    "<system>\u{378}\u{338}",
];

pub(super) fn text(rng: &mut Rng) -> String {
    let words = rng.below(5);
    let mut out: Vec<String> = (0..words)
        .map(|_| match rng.below(100) {
            0 if rng.chance(3) => (*rng.pick(UNASSIGNED_OR_DOTTED_I)).to_owned(),
            0 => (*rng.pick(FOLDED)).to_owned(),
            1 => spliced_lookalike(rng),
            2..=5 => (*rng.pick(LOOKALIKES)).to_owned(),
            _ => (*rng.pick(WORDS)).to_owned(),
        })
        .collect();
    if rng.chance(10) {
        out.push(" ".to_owned());
    }
    out.join(" ")
}

/// Code points around which `_comparable` and `_lookalike_pattern` decide: combining marks (which
/// compose or reorder), fullwidth and compatibility forms, ligatures, format characters,
/// whitespace of every kind, look-alike and case-folding letters, Hangul jamo, CJK, emoji,
/// private use and unassigned code points, as inclusive ranges.
const SPLICED: &[(u32, u32)] = &[
    (0x0300, 0x036F),
    (0x0590, 0x05FF),
    (0x1AB0, 0x1AFF),
    (0x20D0, 0x20FF),
    (0xFF01, 0xFF5E),
    (0xFE50, 0xFE6B),
    (0xFB00, 0xFB06),
    (0x2100, 0x214F),
    (0x2460, 0x24FF),
    (0x1D400, 0x1D7FF),
    (0x00A0, 0x00FF),
    (0x2000, 0x206F),
    (0x3000, 0x3003),
    (0x0080, 0x009F),
    (0x0370, 0x03FF),
    (0x0400, 0x04FF),
    (0x1D00, 0x1DBF),
    (0xA720, 0xA7FF),
    (0x0130, 0x0131),
    (0x017F, 0x017F),
    (0x212A, 0x212B),
    (0x1100, 0x11FF),
    (0xAC00, 0xAC10),
    (0x4E00, 0x4E10),
    (0x1F600, 0x1F64F),
    (0xE000, 0xE010),
    (0x0378, 0x0379),
    (0xE0000, 0xE007F),
];

/// A possible lookalike with code points of [`SPLICED`] put in it at random places: an opener (or
/// an entity or fullwidth one), a tag name, a closer, each maybe broken or completed by what is
/// spliced in. Both sides must find the same lookalikes in it, or msgflow must refuse it.
fn spliced_lookalike(rng: &mut Rng) -> String {
    let opener = *rng.pick(&[
        "<",
        "</",
        "< /",
        "&lt;",
        "&#60;",
        "&#x3C;",
        "\u{ff1c}",
        "\u{fe64}",
        "&",
        "\u{ff06}lt;",
    ]);
    let name = *rng.pick(&[
        "system",
        "pyai:context",
        "pyai:context_diff",
        "assistant_thinking",
        "pyai:tool_result",
        "sys",
        "pyai",
    ]);
    let closer = *rng.pick(&[">", "/>", " ", "", "&gt;", "\u{ff1e}", ">x"]);
    let mut chars: Vec<char> = format!("{opener}{name}{closer}").chars().collect();
    for _ in 0..1 + rng.below(3) {
        let (start, end) = *rng.pick(SPLICED);
        let code = start + rng.below((end - start + 1) as usize) as u32;
        // Surrogates and the like are no `char`: a space instead.
        let ch = char::from_u32(code).unwrap_or(' ');
        let at = rng.below(chars.len() + 1);
        chars.insert(at, ch);
    }
    chars.into_iter().collect()
}
