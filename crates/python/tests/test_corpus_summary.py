"""The corpus summary's `pydantic_ai_error_types` against pydantic-ai itself, for rows that are not histories.

Each row msgflow cannot read as a history (not JSON, or JSON of another shape) is validated by
`ModelMessagesTypeAdapter.validate_json` (pydantic-ai 2.68.0); the error types it raises, each once per row,
must be what `msgflow check --json` counts in its last line.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from conftest import EXAMPLES, run_cli
from pydantic_ai.messages import ModelMessagesTypeAdapter
from pydantic_core import ValidationError

SESSION = json.dumps(json.loads((EXAMPLES / "interrupted-session.json").read_text("utf-8")))
ROWS = [
    "not json",
    SESSION[: len(SESSION) // 2],
    '{"kind": "request"}',
    "null",
    "3",
    '""',
    "[1, 2]",
    "[null]",
    "[{}]",
    '[{"kind": "banana", "parts": []}]',
    '[{"kind": null, "parts": []}]',
    '[{"kind": 5, "parts": []}]',
    '[{"kind": "request"}]',
    '[{"kind": "request", "parts": "none"}]',
    '[{"kind": "request", "parts": null}]',
    '[{"kind": "request", "parts": [1]}]',
    '[{"kind": "request", "parts": [{}]}]',
    '[{"kind": "request", "parts": [{"part_kind": "user-prompt"}]}]',
    '[{"kind": "response", "parts": [{"part_kind": "text"}]}]',
    '[{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": 5}]}]',
    '[{"kind": "request"}, {"kind": "request", "parts": [{"part_kind": "zzz"}]}]',
    f'[{{"kind": "request"}}, {SESSION[1:-1]}]',
]


def _pydantic_types(row: str) -> set[str]:
    try:
        ModelMessagesTypeAdapter.validate_json(row)
    except ValidationError as error:
        return {detail["type"] for detail in error.errors()}
    raise AssertionError(f"pydantic-ai loads {row!r}")


def test_the_summary_counts_the_error_types_pydantic_ai_raises(tmp_path: Path) -> None:
    corpus = tmp_path / "rows.jsonl"
    corpus.write_text("\n".join(ROWS) + "\n", "utf-8")
    lines = [json.loads(line) for line in run_cli("check", "--json", corpus).stdout.splitlines()]
    assert all("error" in line for line in lines[:-1]), "every row is one msgflow cannot read"
    expected = Counter(error_type for row in ROWS for error_type in _pydantic_types(row))
    assert lines[-1]["summary"]["pydantic_ai_error_types"] == dict(expected)
