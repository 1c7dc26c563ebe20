"""A seeded corpus of history rows for the Ray test and the Ray benchmark row.

Each row starts from a history of the repository's fixtures or the real-world corpora (files under
4 KB) and is kept as it is or broken one way: a dangling call, an orphan result, an unknown part
kind, a timestamp pydantic-ai refuses, an empty message; or replaced by what is not a history (cut
JSON, another JSON value) or by null. The same seed gives the same rows.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
SOURCES = [ROOT / "tests" / "fixtures", ROOT.parent / "shared" / "realworld", ROOT.parent / "shared" / "realworld2"]
NOT_HISTORIES = ["not json", '{"kind": "request"}', "[1, 2]", "", "null", '[{"parts": "none", "kind": "request"}]']


def base_histories() -> list[str]:
    """The histories rows start from: every small `*.json` of the sources, sorted by path."""
    paths = []
    for source in SOURCES:
        if source.is_dir():
            paths += [path for path in source.rglob("*.json") if not path.name.endswith(".expected.json")]
    return [path.read_text("utf-8", "surrogatepass") for path in sorted(paths) if path.stat().st_size < 4096]


def _parts(history: list, kind: str, part_kind: str) -> list[tuple[dict, int]]:
    return [
        (message, index)
        for message in history
        if isinstance(message, dict) and message.get("kind") == kind and isinstance(message.get("parts"), list)
        for index, part in enumerate(message["parts"])
        if isinstance(part, dict) and part.get("part_kind") == part_kind
    ]


def _broken(text: str, how: str, rng: random.Random) -> str:
    try:
        history = json.loads(text)
    except ValueError:
        return text
    if not isinstance(history, list) or not history:
        return text
    if how in ("dangling-call", "orphan-return"):
        kind, part_kind = ("request", "tool-return") if how == "dangling-call" else ("response", "tool-call")
        found = _parts(history, kind, part_kind)
        if found:
            message, index = rng.choice(found)
            del message["parts"][index]
    elif how == "unknown-part":
        messages = [message for message in history if isinstance(message, dict) and message.get("parts")]
        if messages and isinstance(messages[0]["parts"], list) and isinstance(messages[0]["parts"][0], dict):
            rng.choice(messages)["parts"][0]["part_kind"] = "mystery-part"
    elif how == "bad-timestamp":
        for message in history:
            if isinstance(message, dict) and "timestamp" in message:
                message["timestamp"] = "yesterday"
                break
    elif how == "empty-message":
        history.insert(rng.randrange(len(history) + 1), {"parts": [], "kind": "request"})
    return json.dumps(history, ensure_ascii=False)


def rows(count: int, seed: int) -> list[str | None]:
    """`count` rows: about 60% histories as found, 25% broken, 10% not histories, 5% null."""
    rng = random.Random(seed)
    bases = base_histories()
    out: list[str | None] = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.05:
            out.append(None)
        elif roll < 0.10:
            out.append(rng.choice(NOT_HISTORIES))
        elif roll < 0.15:
            text = rng.choice(bases)
            out.append(text[: rng.randrange(max(1, len(text)))])
        elif roll < 0.40:
            how = rng.choice(["dangling-call", "orphan-return", "unknown-part", "bad-timestamp", "empty-message"])
            out.append(_broken(rng.choice(bases), how, rng))
        else:
            out.append(rng.choice(bases))
    return out
