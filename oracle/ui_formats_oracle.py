"""The UI-format oracle for msgflow-formats: pydantic-ai 2.68.0's own Vercel AI adapter on the same inputs.

For each case this runs ``VercelAIAdapter.dump_messages`` (``sdk_version`` 5 and 6) on the case's history and
``VercelAIAdapter.load_messages`` on UI messages, and compares them with what msgflow wrote and read:

* ``to<v>``: msgflow's UI messages for the history (``ui<v>`` of the case) against ``dump_messages`` as pydantic-ai
  serializes them (``mode='json', by_alias=True``). A denial's ``approval.id`` is a fresh UUID4 in every dump of
  pydantic-ai's (msgflow's is a UUID5 of the call's id), so it is left out on both sides, and so are the tool call ids made up for parts without one where the case says it
  has such parts (``made_up_ids``): pydantic-ai's are random.
* ``from<v>``: msgflow's history read from those UI messages (``back<v>``), loaded by pydantic-ai, against
  ``load_messages`` of pydantic-ai's own dump. Timestamps pydantic-ai stamps with the load time (every part's, and a
  message's that the UI messages do not carry) differ run to run, so they are left out on both sides.
* ``raises``: for a history msgflow refuses as one pydantic-ai does not load (``refused`` of the case), that
  loading it raises.
* ``foreign``: for a real UI file (``ui`` of the case), msgflow's history (``back``) against ``load_messages`` of the
  file's messages; ``{"refused": ...}`` when pydantic-ai refuses the file.
* ``mutated``: for UI messages with one edit (``mutated`` of the case, see ``xtask/src/conformance_ui_mutations.rs``),
  msgflow's history (``back``, or ``msgflow_refused``) against ``load_messages`` of them. pydantic-ai loads them when
  its models validate them and the history it builds loads back (``load_messages`` builds its parts without
  validating them, so a value of the wrong type makes a history nothing can load: pydantic-ai refuses that too);
  msgflow must then load the same history. ``{"refused": ...}`` when pydantic-ai refuses them, whatever msgflow does.

Usage (one process for a whole batch):

    python ui_formats_oracle.py --cases FILE.jsonl --out FILE.jsonl

Each output line is ``{"name": ..., "<check>": "equal" | {"differ": "<first difference>"} | {"refused": ...}}``.
"""

from __future__ import annotations

import json
import re
import sys
import warnings

import oracle_common  # noqa: F401 - pins the mime table before pydantic_ai is imported

from pydantic_ai.ui.vercel_ai import VercelAIAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai._adapter import _ui_messages_ta  # noqa: E402

ADAPTER = oracle_common.ADAPTER


def first_difference(left, right, path="$"):
    """The path of the first difference between two JSON values, with both sides, or None."""
    if type(left) is not type(right):
        return f"{path}: {json.dumps(left)[:400]} != {json.dumps(right)[:400]}"
    if isinstance(left, dict):
        for key in list(left) + [key for key in right if key not in left]:
            if left.get(key, "<absent>") != right.get(key, "<absent>"):
                return first_difference(left.get(key, "<absent>"), right.get(key, "<absent>"), f"{path}.{key}")
    elif isinstance(left, list):
        for index, (a, b) in enumerate(zip(left, right)):
            if a != b:
                return first_difference(a, b, f"{path}[{index}]")
        if len(left) != len(right):
            return f"{path}: {len(left)} items != {len(right)}"
    elif left != right:
        return f"{path}: {json.dumps(left)[:400]} != {json.dumps(right)[:400]}"
    return None


def without_denial_ids(ui):
    for message in ui:
        for part in message.get("parts", []):
            if part.get("state") == "output-denied" and isinstance(part.get("approval"), dict):
                part["approval"].pop("id", None)
    return ui


def comparable_history(history, stamped_messages):
    """The JSON of a loaded history without the timestamps pydantic-ai stamps with the load time."""
    value = json.loads(ADAPTER.dump_json(history))
    for index, message in enumerate(value):
        if index not in stamped_messages:
            message["timestamp"] = "<load time>"
        for part in message["parts"]:
            if "timestamp" in part:
                part["timestamp"] = "<load time>"
    return value


MADE_UP_ID = re.compile(r"pyd_ai_[0-9a-f]{32}|msgflow_call_[0-9]+_[0-9]+")


def without_made_up_ids(value):
    """The value with every tool call id made up for a part without one replaced by ``<made up>``: pydantic-ai's
    random ``pyd_ai_...`` (``_generate_tool_call_id``) and msgflow's ``msgflow_call_<message>_<part>``."""
    if isinstance(value, str):
        return MADE_UP_ID.sub("<made up>", value)
    if isinstance(value, list):
        return [without_made_up_ids(item) for item in value]
    if isinstance(value, dict):
        return {key: without_made_up_ids(item) for key, item in value.items()}
    return value


def compare(mine, theirs, made_up_ids=False):
    if made_up_ids:
        mine, theirs = without_made_up_ids(mine), without_made_up_ids(theirs)
    difference = first_difference(mine, theirs)
    return "equal" if difference is None else {"differ": difference}


def stamped(back):
    """The messages of msgflow's history that carry their own timestamp."""
    return {index for index, message in enumerate(back) if message.get("timestamp") is not None}


def mutated(case: dict, load) -> dict:
    """The ``mutated`` check of a case (see the module documentation); ``load`` is the adapter's loader."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # serializer warnings on the values of the wrong type
            theirs = load(case["mutated"])
            ADAPTER.validate_json(ADAPTER.dump_json(theirs))
    except Exception as exc:  # noqa: BLE001 - a refusal is data for the report
        return {"mutated": {"refused": f"{type(exc).__name__}: {exc}"[:400]}}
    if "back" not in case:
        return {"mutated": {"differ": f"msgflow refuses what pydantic-ai loads: {case['msgflow_refused']}"[:400]}}
    try:
        mine = ADAPTER.validate_python(case["back"])
    except ValueError as exc:
        return {"mutated": {"differ": f"msgflow's history does not load: {exc}"[:400]}}
    keep = stamped(case["back"])
    return {"mutated": compare(comparable_history(mine, keep), comparable_history(theirs, keep))}


def load_ui(messages: list):
    return VercelAIAdapter.load_messages(_ui_messages_ta.validate_python(messages))


def raises(case: dict) -> dict:
    """msgflow refused the case's history as one pydantic-ai does not load: loading it must raise."""
    try:
        ADAPTER.validate_python(case["history"])
    except ValueError:
        return {"raises": "equal"}
    return {"raises": {"differ": f"pydantic-ai loads what msgflow refuses: {case['refused']}"[:400]}}


def run_case(case: dict) -> dict:
    out: dict = {}
    if "refused" in case:
        return raises(case)
    if "mutated" in case:
        return mutated(case, load_ui)
    if "ui" in case:
        try:
            theirs = load_ui(case["ui"])
        except Exception as exc:  # noqa: BLE001 - a refusal is data for the report
            out["foreign"] = {"refused": f"{type(exc).__name__}: {exc}"[:400]}
            return out
        mine = ADAPTER.validate_python(case["back"])
        keep = stamped(case["back"])
        out["foreign"] = compare(comparable_history(mine, keep), comparable_history(theirs, keep))
        return out
    history = ADAPTER.validate_python(case["history"])
    for version in (5, 6):
        key = f"ui{version}"
        if key not in case:
            continue
        dumped = VercelAIAdapter.dump_messages(history, sdk_version=version)
        theirs = _ui_messages_ta.dump_python(dumped, mode="json", by_alias=True)
        made_up = case.get("made_up_ids", False)
        out[f"to{version}"] = compare(without_denial_ids(case[key]), without_denial_ids(theirs), made_up)
        loaded = VercelAIAdapter.load_messages(dumped)
        mine = ADAPTER.validate_python(case[f"back{version}"])
        keep = stamped(case[f"back{version}"])
        out[f"from{version}"] = compare(comparable_history(mine, keep), comparable_history(loaded, keep), made_up)
    return out


def main(argv: list[str] | None = None) -> int:
    return oracle_common.run_batch(__doc__, run_case, argv)


if __name__ == "__main__":
    sys.exit(main())
