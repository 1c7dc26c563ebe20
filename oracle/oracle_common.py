"""Shared set-up for msgflow's pydantic-ai oracle scripts.

Importing this module pins the environment *before* pydantic-ai is imported:

* ``mimetypes.knownfiles`` is emptied, so pydantic-ai's private media-type table (``messages.py:93-137``) is built
  from Python's built-in defaults plus pydantic-ai's overrides only, never from the platform's ``mime.types``.
  The resulting strict table must have the 169-entry baseline (Python 3.11 defaults plus pydantic-ai's overrides); this is
  asserted here so that a different Python version or a patched table fails loudly instead of silently changing
  inferred ``media_type`` values in fixtures.

It also offers small helpers used by every script: the type adapter, ``dump``/``load`` and the round-trip report.
"""

from __future__ import annotations

import json
import mimetypes
import sys

if "pydantic_ai" in sys.modules:  # pragma: no cover - guard against import-order mistakes
    raise RuntimeError("oracle_common must be imported before pydantic_ai (mime table pinning)")

# Must happen before pydantic_ai.messages builds its private MimeTypes() instance.
mimetypes.knownfiles = []

import pydantic_ai  # noqa: E402
from pydantic_ai import messages as pai_messages  # noqa: E402

EXPECTED_PYDANTIC_AI_VERSION = "2.68.0"
BASELINE_STRICT_MIME_ENTRIES = 169


def strict_mime_table() -> dict[str, str]:
    """pydantic-ai's private strict extension -> media type table."""
    return dict(pai_messages._mime_types.types_map[True])  # noqa: SLF001 - the oracle needs the private table


def assert_baseline_mime_table() -> None:
    """Fail unless the private table is exactly the platform-independent 169-entry baseline."""
    size = len(strict_mime_table())
    if size != BASELINE_STRICT_MIME_ENTRIES:
        raise SystemExit(
            f"pydantic-ai mime table has {size} strict entries, expected {BASELINE_STRICT_MIME_ENTRIES}: "
            "platform mime files leaked in, or the Python version differs from 3.11"
        )


def assert_oracle_version() -> None:
    """Fail unless the installed pydantic-ai is the pinned oracle version."""
    version = getattr(pydantic_ai, "__version__", None)
    if version != EXPECTED_PYDANTIC_AI_VERSION:
        raise SystemExit(f"pydantic-ai {version} installed, the oracle needs {EXPECTED_PYDANTIC_AI_VERSION}")


assert_baseline_mime_table()

ADAPTER = pai_messages.ModelMessagesTypeAdapter


def dump(history: list) -> bytes:
    """The exact bytes pydantic-ai writes for a history."""
    return ADAPTER.dump_json(history)


def load(data: bytes) -> list:
    """Validate JSON bytes into a list of ModelMessage objects (raises pydantic.ValidationError)."""
    return ADAPTER.validate_json(data)


def roundtrip_entry(name: str, data: bytes) -> dict:
    """Report entry for one file: does 2.68.0 accept it, and does a re-dump reproduce it byte for byte."""
    try:
        history = load(data)
    except Exception as exc:  # noqa: BLE001 - every failure is data for the report
        return {"file": name, "accepted": False, "error": f"{type(exc).__name__}: {exc}", "redump_equal": False}
    try:
        redumped = dump(history)
    except Exception as exc:  # noqa: BLE001
        return {
            "file": name,
            "accepted": True,
            "error": f"re-dump failed: {type(exc).__name__}: {exc}",
            "redump_equal": False,
        }
    return {"file": name, "accepted": True, "error": None, "redump_equal": redumped == data}


def run_batch(description: str, run_case, argv: list[str] | None = None) -> int:
    """``--cases FILE.jsonl --out FILE.jsonl``: ``run_case`` on each case, one JSON answer per line (with the case's
    ``name``); an exception is that case's ``{"error": ...}``, never a crash of the batch."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", required=True, help="JSONL: one case per line")
    parser.add_argument("--out", required=True, help="JSONL: one result per line")
    args = parser.parse_args(argv)
    assert_oracle_version()
    with open(args.cases, encoding="utf-8") as cases, open(args.out, "w", encoding="utf-8") as out:
        for line in cases:
            if not line.strip():
                continue
            case = json.loads(line)
            try:
                result = run_case(case)
            except Exception as exc:  # noqa: BLE001 - reported per case, never a crash of the batch
                result = {"error": f"{type(exc).__name__}: {exc}"[:400]}
            result["name"] = case["name"]
            out.write(json.dumps(result, ensure_ascii=False))
            out.write("\n")
    return 0


def record_cases(path: str, record) -> int:
    """Rewrites the JSON array of cases at ``path`` with what ``record(case)`` adds to each case (the committed
    expectations of a Rust test, as pydantic-ai gives them)."""
    with open(path, encoding="utf-8") as file:
        cases = json.load(file)
    for case in cases:
        record(case)
    with open(path, "w", encoding="utf-8") as file:
        json.dump(cases, file, indent=1)
        file.write("\n")
    return 0
