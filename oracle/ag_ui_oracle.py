"""The AG-UI oracle for msgflow-formats: pydantic-ai 2.68.0's own ``AGUIAdapter`` on the same inputs.

Needs ag-ui-protocol (``requirements-ui-formats.txt``). For each case:

* ``to``: msgflow's AG-UI messages for the history (``agui`` of the case) against ``dump_messages(history)`` as
  the SDK serializes them (``mode='json', by_alias=True``). pydantic-ai gives each message a fresh UUID4 id, msgflow
  a UUID5 of its place, so ids are compared only where the history decides them (the ``ui_message_id`` its
  messages keep); every other id is replaced by ``<fresh>`` on both sides. Tool call ids made up for parts without
  one are left out too where the case has such parts (``made_up_ids``): pydantic-ai's are random.
* ``from``: msgflow's history read from its AG-UI messages (``back``) against ``load_messages`` of the same
  messages, timestamps pydantic-ai stamps with the load time left out on both sides.
* ``raises``: for a history msgflow refuses as one pydantic-ai does not load, that loading it raises.
* ``mutated``: for AG-UI messages with one edit, as ``ui_formats_oracle.py`` compares them.
* ``foreign``: for a real AG-UI file (``foreign`` of the case), msgflow's history against ``load_messages`` of the
  file's messages; ``{"refused": ...}`` when the SDK's models or pydantic-ai refuse the file. A file msgflow refuses
  (``msgflow_refused``) must be one pydantic-ai refuses too.

Usage (one process for a whole batch):

    python ag_ui_oracle.py --cases FILE.jsonl --out FILE.jsonl

Each output line is ``{"name": ..., "<check>": "equal" | {"differ": "<first difference>"} | {"refused": ...}}``.
"""

from __future__ import annotations

import copy
import sys
import warnings

import oracle_common  # noqa: F401 - pins the mime table before pydantic_ai is imported

from pydantic_ai.ui.ag_ui import AGUIAdapter  # noqa: E402
from pydantic_ai.ui.ag_ui._adapter import _messages_ta  # noqa: E402
from ui_formats_oracle import comparable_history, compare, mutated, raises, stamped  # noqa: E402

ADAPTER = oracle_common.ADAPTER


def kept_ids(history: list) -> set:
    """The AG-UI ids the history decides: the `ui_message_id` its messages keep."""
    ids = set()
    for message in history:
        namespace = (message.get("metadata") or {}).get("__pydantic_ai__")
        if isinstance(namespace, dict) and isinstance(namespace.get("ui_message_id"), str):
            ids.add(namespace["ui_message_id"])
    return ids


def without_fresh_ids(messages: list, kept: set) -> list:
    for message in messages:
        if message.get("id") not in kept:
            message["id"] = "<fresh>"
    return messages


def load(messages: list):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown activity types are skipped with a warning
        return AGUIAdapter.load_messages(_messages_ta.validate_python(messages))


def run_case(case: dict) -> dict:
    out: dict = {}
    if "refused" in case:
        return raises(case)
    if "mutated" in case:
        return mutated(case, load)
    if "foreign" in case:
        try:
            theirs = load(case["foreign"])
        except Exception as exc:  # noqa: BLE001 - a refusal is data for the report
            out["foreign"] = {"refused": f"{type(exc).__name__}: {exc}"[:400]}
            return out
        if "back" not in case:
            out["foreign"] = {"differ": f"msgflow refuses what pydantic-ai loads: {case['msgflow_refused']}"[:400]}
            return out
        mine = ADAPTER.validate_python(case["back"])
        keep = stamped(case["back"])
        out["foreign"] = compare(comparable_history(mine, keep), comparable_history(theirs, keep))
        return out
    history = ADAPTER.validate_python(case["history"])
    kept = kept_ids(case["history"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dumped = AGUIAdapter.dump_messages(history)
    theirs = _messages_ta.dump_python(dumped, mode="json", by_alias=True)
    made_up = case.get("made_up_ids", False)
    out["to"] = compare(
        without_fresh_ids(copy.deepcopy(case["agui"]), kept), without_fresh_ids(theirs, kept), made_up
    )
    loaded = load(case["agui"])
    mine = ADAPTER.validate_python(case["back"])
    keep = stamped(case["back"])
    out["from"] = compare(comparable_history(mine, keep), comparable_history(loaded, keep), made_up)
    return out


def main(argv: list[str] | None = None) -> int:
    return oracle_common.run_batch(__doc__, run_case, argv)


if __name__ == "__main__":
    sys.exit(main())
