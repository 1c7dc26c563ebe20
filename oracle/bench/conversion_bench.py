#!/usr/bin/env python3
"""Time one conversion of pydantic-ai 2.68.0's UI adapters and print one JSON line (``pydantic_bench.py``'s format
and method), for the conversions section of ``cargo xtask bench`` (run in ``target/venv-ui-formats``, which has
ag-ui-protocol).

Each run is the whole conversion of a file's bytes, as ``msgflow convert`` does it (whose whole process is timed on
the other side): parse the input, convert, serialize the output.

* ``dump-vercel-ui`` / ``dump-ag-ui``: ``--file`` is a history; ``ModelMessagesTypeAdapter.validate_json``, then
  ``VercelAIAdapter.dump_messages`` (AI SDK 5) or ``AGUIAdapter.dump_messages``, then the UI messages' JSON.
* ``load-vercel-ui`` / ``load-ag-ui``: ``--file`` holds UI messages; validated by the adapter's message type,
  ``load_messages``, then the history's JSON (``ModelMessagesTypeAdapter.dump_json``).
* ``dump-otel``: ``--file`` is a history; ``ModelMessagesTypeAdapter.validate_json``, then the message attributes
  ``InstrumentationSettings(version=5).handle_messages`` writes on the model request span answered by the
  history's last response (the JSON texts ``messages_to_otel_messages`` makes), joined into one JSON object keyed by
  attribute name, as ``msgflow convert --to otel`` writes them.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # oracle/: oracle_common

import oracle_common  # noqa: E402,F401 - pins the mime table before pydantic_ai is imported
import pydantic_bench  # noqa: E402
from otel_oracle import KEYS, attribute_texts  # noqa: E402
from pydantic_ai.messages import ModelMessagesTypeAdapter  # noqa: E402
from pydantic_ai.models.instrumented import InstrumentationSettings  # noqa: E402
from pydantic_ai.ui.ag_ui import AGUIAdapter  # noqa: E402
from pydantic_ai.ui.ag_ui._adapter import _messages_ta  # noqa: E402
from pydantic_ai.ui.vercel_ai import VercelAIAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai._adapter import _ui_messages_ta  # noqa: E402

# op: (adapter, the UI messages' TypeAdapter, dump or load)
OPERATIONS = {
    "dump-vercel-ui": (VercelAIAdapter, _ui_messages_ta, "dump"),
    "load-vercel-ui": (VercelAIAdapter, _ui_messages_ta, "load"),
    "dump-ag-ui": (AGUIAdapter, _messages_ta, "dump"),
    "load-ag-ui": (AGUIAdapter, _messages_ta, "load"),
    "dump-otel": (None, None, "otel"),
}


def otel_attributes(history: list) -> bytes:
    """The span's message attributes (JSON texts), as one JSON object (``otel_oracle.py``'s ``span_attributes``
    without parsing the texts again)."""
    attributes = attribute_texts(history, InstrumentationSettings(version=5))
    return ("{" + ",".join(f"{json.dumps(key)}:{attributes[key]}" for key in KEYS if key in attributes) + "}").encode()


def operation_for(op: str, data: bytes):
    adapter, ui_type, direction = OPERATIONS[op]
    if direction == "otel":

        def dump_otel() -> bytes:
            return otel_attributes(ModelMessagesTypeAdapter.validate_json(data))

        return dump_otel

    if direction == "dump":

        def dump() -> bytes:
            history = ModelMessagesTypeAdapter.validate_json(data)
            return ui_type.dump_json(adapter.dump_messages(history), by_alias=True)

        return dump

    def load() -> bytes:
        messages = ui_type.validate_json(data)
        return ModelMessagesTypeAdapter.dump_json(adapter.load_messages(messages))

    return load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", required=True)
    parser.add_argument("--op", choices=sorted(OPERATIONS), required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with open(args.file, "rb") as handle:
        data = handle.read()
    operation = operation_for(args.op, data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        output_bytes = len(operation())  # warm-up, and the sanity fact
        timing = pydantic_bench.measure(operation, args.runs)
    report = {
        "tool": "pydantic-ai",
        "op": args.op,
        "file": args.file,
        "bytes": len(data),
        **timing,
        "detail": {"output_bytes": output_bytes},
        "pydantic_ai_version": importlib.metadata.version("pydantic-ai-slim"),
    }
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
