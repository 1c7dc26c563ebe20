#!/usr/bin/env python3
"""The corpus rows of `cargo xtask bench` (xtask/src/bench/corpus.rs): one seeded corpus written twice.

The rows are the Ray test's (`crates/python/tests/ray/corpus.py`: histories as found, broken ones,
not-histories, nulls), each made one line: JSON is written compactly, text that is not JSON has its line
breaks turned into spaces, an empty row becomes `""` (a blank line is no row in JSON Lines) and a null row
`null`. The same lines go to `corpus-<rows>-seed<seed>.jsonl` and, as the string column `messages`
(null rows as nulls) beside an `id` column, to `corpus-<rows>-seed<seed>.parquet` (row groups of 5,000).
Existing files are kept. Prints the two paths as one JSON object. Needs pyarrow.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "ray"))


def one_line(text: str | None) -> str | None:
    """The row as one JSON Lines line (`None` stays a null row)."""
    if text is None:
        return None
    if text == "":
        return '""'
    try:
        value = json.loads(text)
    except ValueError:
        return text.replace("\r", " ").replace("\n", " ")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args()

    import pyarrow as pa
    import pyarrow.parquet as pq

    import corpus

    args.dir.mkdir(parents=True, exist_ok=True)
    stem = args.dir / f"corpus-{args.rows}-seed{args.seed}"
    jsonl, parquet = stem.with_suffix(".jsonl"), stem.with_suffix(".parquet")
    if not (jsonl.exists() and parquet.exists()):
        lines = [one_line(text) for text in corpus.rows(args.rows, args.seed)]
        partial = jsonl.with_suffix(".jsonl.partial")
        with partial.open("w", encoding="utf-8", errors="surrogatepass", newline="\n") as out:
            for line in lines:
                out.write(("null" if line is None else line) + "\n")
        partial.replace(jsonl)
        table = pa.table({"id": pa.array(range(args.rows), pa.int64()), "messages": pa.array(lines, pa.string())})
        partial = parquet.with_suffix(".parquet.partial")
        pq.write_table(table, partial, row_group_size=5_000)
        partial.replace(parquet)
    print(json.dumps({"jsonl": str(jsonl), "parquet": str(parquet)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
