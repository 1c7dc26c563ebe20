"""Which messages of a history pydantic-ai 2.68.0 loads otherwise after a trip through a format.

A "to" conversion of msgflow reports every value of the history its output cannot hold, found by reading the output
back. The report is right when it names a message exactly where pydantic-ai, loading the history and what came back,
holds that message otherwise. This script gives pydantic-ai's side: for each case it loads both histories
(``ModelMessagesTypeAdapter.validate_json``), dumps each message (``dump_python(mode='json')``, compact JSON), masks
what loading itself invented (``verdict_oracle.mask_invented``: timestamps filled with the load time, generated tool
call ids), and lists the indices of the messages whose dumps differ (a message only one side has included), and
of the original's messages that hold keys pydantic-ai does not read (unknown keys msgflow carries, which a format may
drop: a loss of the file's data that pydantic-ai would not see).

Usage (one process for a whole batch):

    python loss_report_oracle.py --cases FILE.jsonl --out FILE.jsonl

Each input line is ``{"name": ..., "original": "<history JSON>", "back": "<history JSON>"}``; each output line is
``{"name": ..., "differing": [indices], "unread_keys": [indices]}``, or ``{"name": ..., "invalid": "original" |
"back", "error": ...}`` where pydantic-ai does not load one of them, in input order.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone

import oracle_common as oc  # noqa: I001 - must come before pydantic_ai (mime table pinning)

from verdict_oracle import mask_invented  # noqa: E402


def masked_messages(text: str) -> tuple[list[bytes], list[int]]:
    """Each message of the history ``text`` as pydantic-ai loads and dumps it, what loading invented masked; and the
    indices of the messages that hold keys pydantic-ai ignores (or reads under another name)."""
    source = text.encode()
    start = datetime.now(tz=timezone.utc)
    history = oc.load(source)
    end = datetime.now(tz=timezone.utc)
    dumped = oc.ADAPTER.dump_python(history, mode="json")
    masked = [
        mask_invented(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode(), source, (start, end))
        for message in dumped
    ]
    given = json.loads(text)
    ignored = [index for index, (message, out) in enumerate(zip(given, dumped)) if holds_unread_keys(message, out)]
    return masked, ignored


def holds_unread_keys(given, dumped) -> bool:
    """Whether ``given`` holds an object key its dump ``dumped`` does not have at the same place."""
    if isinstance(given, dict) and isinstance(dumped, dict):
        return any(key not in dumped or holds_unread_keys(value, dumped[key]) for key, value in given.items())
    if isinstance(given, list) and isinstance(dumped, list) and len(given) == len(dumped):
        return any(holds_unread_keys(value, out) for value, out in zip(given, dumped))
    return False


def judge(case: dict) -> dict:
    sides = {}
    for side in ("original", "back"):
        try:
            sides[side] = masked_messages(case[side])
        except Exception as exc:  # noqa: BLE001 - a history pydantic-ai refuses is data for the report
            return {"invalid": side, "error": f"{type(exc).__name__}: {exc}"[:500]}
    (original, ignored), (back, _) = sides["original"], sides["back"]
    differing = [
        index
        for index in range(max(len(original), len(back)))
        if index >= len(original) or index >= len(back) or original[index] != back[index]
    ]
    return {"differing": differing, "unread_keys": ignored}


if __name__ == "__main__":
    sys.exit(oc.run_batch(__doc__, judge))
