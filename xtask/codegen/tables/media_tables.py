"""Prints, as JSON, the media-type tables `msgflow-media` mirrors: pydantic-ai 2.68.0's private
`mimetypes.MimeTypes` instance (`pydantic_ai.messages._mime_types`) built with no platform file, and the
`urllib.parse` hazards of Python 3.11's Unicode data.

`cargo xtask codegen` runs it with the oracle venv (Python 3.11, pydantic-ai 2.68.0, with `oracle_common` on
`PYTHONPATH`, which empties `mimetypes.knownfiles` before pydantic-ai builds its table) and writes its output to
xtask/codegen/tables/media_tables.json; xtask-codegen renders crates/media/src/tables.rs from that file.
"""
import json
import mimetypes
import sys
import unicodedata

import oracle_common  # noqa: F401 - pins the environment before pydantic_ai is imported
from pydantic_ai import messages
from table_json import write_json


def main():
    assert sys.version_info[:2] == (3, 11), sys.version
    assert unicodedata.unidata_version == '14.0.0', unicodedata.unidata_version
    table = messages._mime_types  # noqa: SLF001 - the table pydantic-ai guesses with
    strict = sorted(table.types_map[True].items())
    by_type = sorted((media_type, list(extensions)) for media_type, extensions in table.types_map_inv[True].items())
    # `urlsplit`'s `_checknetloc` rejects a non-ASCII netloc whose NFKC form holds one of these.
    hazards = [cp for cp in range(0x80, 0x110000) if any(c in unicodedata.normalize('NFKC', chr(cp)) for c in '/?#@:')]
    data = {
        'python': '3.11',
        'unicode': unicodedata.unidata_version,
        'pydantic_ai': oracle_common.EXPECTED_PYDANTIC_AI_VERSION,
        'strict_types': strict,
        'extensions_by_type': by_type,
        'suffix_map': list(mimetypes.suffix_map.items()),
        'encoding_suffixes': list(mimetypes.encodings_map),
        'nfkc_netloc_hazards': hazards,
    }
    write_json(data)


if __name__ == '__main__':
    main()
