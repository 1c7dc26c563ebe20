"""Where pydantic-ai 2.68.0 holds a history otherwise after a trip through a format.

A "to" conversion of msgflow reports every value of the history its output cannot hold, found by reading the output
back. The report is right when it names a value exactly where pydantic-ai, loading the history and what came back,
holds that value otherwise. This script gives pydantic-ai's side: for each case it loads both histories
(``ModelMessagesTypeAdapter.validate_json``), dumps each message (``dump_python(mode='json')``), masks what loading
itself invented (``verdict_oracle.mask_invented``: timestamps filled with the load time, generated tool call ids), and
lists the JSON paths at which the two dumps differ (a key or an item only one side has, or values that differ), and
the paths of the original's keys that pydantic-ai does not read (unknown keys msgflow carries, which a format may
drop: a loss of the file's data that pydantic-ai would not see).

Paths are written as msgflow writes them in its reports (``$[3].parts[0].timestamp``, ``$[0]["a key"]``).

Usage (one process for a whole batch):

    python loss_report_oracle.py --cases FILE.jsonl --out FILE.jsonl

Each input line is ``{"name": ..., "original": "<history JSON>", "back": "<history JSON>"}``; each output line is
``{"name": ..., "differing": [paths], "unread_keys": [paths], "read_as": [[path, path]]}``, or ``{"name": ..., "invalid": "original" |
"back", "error": ...}`` where pydantic-ai does not load one of them, in input order.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import typing
from datetime import datetime, timezone

import oracle_common as oc  # noqa: I001 - must come before pydantic_ai (mime table pinning)

import pydantic  # noqa: E402
import pydantic_ai.messages  # noqa: E402
import pydantic_ai.usage  # noqa: E402
from verdict_oracle import mask_invented  # noqa: E402

PLAIN_KEY = re.compile(r"[A-Za-z0-9_]+")


def legacy_aliases() -> dict[str, str]:
    """The legacy names pydantic-ai reads a field under (``validation_alias=AliasChoices(field, legacy)``:
    ``vendor_details``, ``request_tokens``, ...), each with the field's name."""
    aliases: dict[str, str] = {}
    for module in (pydantic_ai.messages, pydantic_ai.usage):
        for cls in vars(module).values():
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                continue
            for name, hint in typing.get_type_hints(cls, include_extras=True, localns=vars(module)).items():
                for meta in getattr(hint, "__metadata__", ()):
                    choices = getattr(meta, "validation_alias", None)
                    if isinstance(choices, pydantic.AliasChoices):
                        aliases.update({alias: name for alias in choices.choices if isinstance(alias, str) and alias != name})
    return aliases


ALIASES = legacy_aliases()


def with_key(path: str, key: str) -> str:
    """``path`` and an object's ``key``, as msgflow's reports write it (``loss::push_key``)."""
    if PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def masked_messages(text: str) -> tuple[list, list[str], list[list[str]]]:
    """Each message of the history ``text`` as pydantic-ai loads and dumps it, what loading invented masked; the paths
    of the keys it holds that pydantic-ai ignores (or reads under another name); and for those it reads under another
    name, the pair of paths (the key's, the field's)."""
    source = text.encode()
    start = datetime.now(tz=timezone.utc)
    history = oc.load(source)
    end = datetime.now(tz=timezone.utc)
    dumped = oc.ADAPTER.dump_python(history, mode="json")
    masked = [
        json.loads(
            mask_invented(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode(), source, (start, end))
        )
        for message in dumped
    ]
    unread: list[str] = []
    read_as: list[list[str]] = []
    for index, (message, out) in enumerate(zip(json.loads(text), dumped)):
        unread_keys(message, out, f"$[{index}]", unread, read_as)
    return masked, unread, read_as


def unread_keys(given, dumped, path: str, found: list[str], read_as: list[list[str]]) -> None:
    """Adds to ``found`` the paths of the object keys of ``given`` that its dump ``dumped`` does not have at the same
    place, and to ``read_as`` those a field of the dump is read from (a legacy name), with the field's path."""
    if isinstance(given, dict) and isinstance(dumped, dict):
        for key, value in given.items():
            if key in dumped:
                unread_keys(value, dumped[key], with_key(path, key), found, read_as)
            else:
                found.append(with_key(path, key))
                if ALIASES.get(key) in dumped and ALIASES[key] not in given:
                    read_as.append([with_key(path, key), with_key(path, ALIASES[key])])
    elif isinstance(given, list) and isinstance(dumped, list) and len(given) == len(dumped):
        for index, (value, out) in enumerate(zip(given, dumped)):
            unread_keys(value, out, f"{path}[{index}]", found, read_as)


def differences(left, right, path: str, found: list[str]) -> None:
    """Adds to ``found`` the paths at which ``left`` and ``right`` differ, as deep as both hold objects or arrays.
    Values differ where their JSON does (``1`` and ``1.0`` do, as in the bytes pydantic-ai writes)."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in left.keys() | right.keys():
            if key not in left or key not in right:
                found.append(with_key(path, key))
            else:
                differences(left[key], right[key], with_key(path, key), found)
    elif isinstance(left, list) and isinstance(right, list):
        for index in range(max(len(left), len(right))):
            if index >= len(left) or index >= len(right):
                found.append(f"{path}[{index}]")
            else:
                differences(left[index], right[index], f"{path}[{index}]", found)
    elif json.dumps(left) != json.dumps(right):
        found.append(path)


def judge(case: dict) -> dict:
    sides = {}
    for side in ("original", "back"):
        try:
            sides[side] = masked_messages(case[side])
        except Exception as exc:  # noqa: BLE001 - a history pydantic-ai refuses is data for the report
            return {"invalid": side, "error": f"{type(exc).__name__}: {exc}"[:500]}
    (original, unread, read_as), (back, _, _) = sides["original"], sides["back"]
    differing: list[str] = []
    for index in range(max(len(original), len(back))):
        if index >= len(original) or index >= len(back):
            differing.append(f"$[{index}]")
        else:
            differences(original[index], back[index], f"$[{index}]", differing)
    return {"differing": sorted(differing), "unread_keys": unread, "read_as": read_as}


if __name__ == "__main__":
    sys.exit(oc.run_batch(__doc__, judge))
