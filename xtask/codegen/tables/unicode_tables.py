"""Prints, as JSON, the tables of crates/providers/src/framing/inert.rs: the non-ASCII characters pydantic-ai's lookalike check reads as
themselves (`INERT`), and those NFKC changes nothing before (`BOUNDARY`), for msgflow's `framing::lookalike_tags`;
and, for the text those cannot decide (`framing::comparable`), the characters Unicode 14 assigns, the format
characters `_comparable` drops, Python's non-ASCII whitespace, the characters `re.IGNORECASE` matches to an ASCII
letter, and `_CONFUSABLES`.

pydantic-ai 2.68.0's `_comparable` folds non-ASCII text holding a `<` or `&` with NFKC, drops `_FORMAT_CHARACTERS`
and maps `_CONFUSABLES` to Latin before matching `_lookalike_pattern` (ignoring case). A character is listed when,
after any text, it stays itself or becomes a character that is again listed, so it can only ever stop a tag there:

* it is assigned (not `Cn`, surrogate, control, format, private use or a separator), a starter (combining class 0)
  that is no second character of a canonical composition (so nothing before it changes), and NFKC keeps it;
* it is not whitespace, not ASCII, has no ASCII in its lower, upper or case-folded forms (so `re.IGNORECASE` matches
  it to no ASCII letter: `K`, `ſ`, `ı`, `İ` are left out), is no `_FORMAT_CHARACTERS` or `_CONFUSABLES` character and
  no `_COULD_FOLD_TO_A_TAG` character;
* every canonical composition it starts (with the combining marks after it) is listed too.

`BOUNDARY` holds the characters NFKC starts afresh at: assigned, a starter that is no second character of a
composition, and so is the first character of its compatibility decomposition. Whatever they become, the text before
them stays as it is.

Unassigned code points are left out of both although Python reads them as themselves: a later Unicode version may assign
them a decomposition. `cargo xtask codegen` runs this with the oracle venv (Python 3.11, Unicode 14.0.0, pydantic-ai
2.68.0, `oracle_common` on `PYTHONPATH`) into xtask/codegen/tables/unicode_tables.json, from which xtask-codegen renders
inert.rs.
"""
import re
import sys
import unicodedata

import oracle_common  # noqa: F401 - pins the environment before pydantic_ai is imported
from pydantic_ai import _framing
from table_json import write_json

LAST = 0x10FFFF


def primary_composites():
    """The canonical compositions NFC makes: (first, second) -> composite, Hangul's algorithmic ones as a flag."""
    seconds, starts = set(), {}
    for cp in range(LAST + 1):
        char = chr(cp)
        decomposition = unicodedata.decomposition(char)
        if not decomposition or decomposition.startswith('<'):
            continue
        parts = [chr(int(code, 16)) for code in decomposition.split()]
        if len(parts) == 2 and unicodedata.normalize('NFC', ''.join(parts)) == char:
            seconds.add(parts[1])
            starts.setdefault(parts[0], []).append(char)
    # Hangul: a leading jamo and a vowel make an LV syllable, which a trailing jamo makes an LVT syllable.
    seconds.update(map(chr, range(0x1161, 0x1176)))
    seconds.update(map(chr, range(0x11A8, 0x11C3)))
    return seconds, starts


def main():
    assert sys.version_info[:2] == (3, 11), sys.version
    assert unicodedata.unidata_version == '14.0.0', unicodedata.unidata_version
    seconds, starts = primary_composites()
    assert not any(char.isascii() for char in seconds), 'an ASCII character ends a composition'
    confusables = {chr(cp) for cp in _framing._CONFUSABLES}

    def stops_a_tag(char):
        return not (
            char.isascii()
            or _framing._FORMAT_CHARACTERS.match(char)
            or char in confusables
            or char in _framing._COULD_FOLD_TO_A_TAG
            or char.isspace()
            or re.match(r'\s', char)
            or any(c.isascii() for c in char.lower() + char.upper() + char.casefold())
            or unicodedata.normalize('NFKC', char) != char
        )

    known = {}

    def stays_inert(char):
        if char not in known:
            known[char] = False  # no composition cycle exists; guards the recursion anyway
            known[char] = stops_a_tag(char) and all(stays_inert(c) for c in starts.get(char, []))
        return known[char]

    def is_inert(char):
        if unicodedata.category(char) in ('Cn', 'Cs', 'Cc', 'Cf', 'Co', 'Zs', 'Zl', 'Zp'):
            return False
        return not (unicodedata.combining(char) or char in seconds) and stays_inert(char)

    def is_boundary(char):
        if unicodedata.category(char) in ('Cn', 'Cs'):
            return False
        first = unicodedata.normalize('NFKD', char)[0]
        return not (unicodedata.combining(char) or unicodedata.combining(first) or char in seconds or first in seconds)

    inert = ranges_of(is_inert)
    boundary = ranges_of(is_boundary)
    # For `framing::comparable`, which reads text the two tables cannot decide as `_comparable` does.
    assigned = ranges_of(lambda char: unicodedata.category(char) not in ('Cn', 'Cs'))
    formats = ranges_of(lambda char: _framing._FORMAT_CHARACTERS.match(char) is not None)
    spaces = ranges_of(lambda char: re.match(r'\s', char) is not None)
    # The non-ASCII characters `re.IGNORECASE` matches to an ASCII letter, with that letter.
    letters = [
        (cp, letter)
        for cp in range(0x80, LAST + 1)
        for letter in 'abcdefghijklmnopqrstuvwxyz'
        if re.fullmatch(letter, chr(cp), re.IGNORECASE)
    ]
    assert all(any(a <= start and end <= b for a, b in boundary) for start, end in inert), 'an inert non-boundary'
    data = {
        'python': '3.11',
        'unicode': unicodedata.unidata_version,
        'pydantic_ai': oracle_common.EXPECTED_PYDANTIC_AI_VERSION,
        'INERT': inert,
        'BOUNDARY': boundary,
        'ASSIGNED': assigned,
        'FORMAT': formats,
        'SPACE': spaces,
        'ASCII_LETTER': letters,
        'CONFUSABLES': sorted(_framing._CONFUSABLES.items()),
    }
    write_json(data)


def ranges_of(member):
    """The non-ASCII code points `member` holds, as inclusive ranges."""
    ranges = []
    for cp in range(0x80, LAST + 1):
        if not member(chr(cp)):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return ranges


if __name__ == '__main__':
    main()
