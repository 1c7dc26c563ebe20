#!/usr/bin/env python3
"""Time one operation of a Python peer of msgflow and print one JSON line (``pydantic_bench.py``'s format and method).

The peers, each run in the venv ``cargo xtask bench`` gives it:

* ``stream-text-deltas`` / ``stream-arg-fragments`` (``target/venv``): pydantic-ai's ``ModelResponsePartsManager``
  fed the deltas of ``--file`` (a JSON array of strings): every string a text delta into one part (vendor id
  ``0``, as msgflow's side), or every string an argument fragment of one tool call (the first with its name and id); the
  events are consumed as an application consumes them, then ``get_parts()``.
* ``map-anthropic`` / ``map-openai-chat`` / ``map-openai-responses`` (``target/venv-providers``): the request
  pydantic-ai's own model class builds for the history of ``--file`` (``prepare_messages`` and its message mapping,
  exactly as ``oracle/providers_oracle.py`` runs them for the conformance check); the history is loaded outside
  the timing.
* ``harness-sliding-window`` (``target/venv-context``): pydantic-ai-harness 0.62.0's
  ``SlidingWindowCompaction(keep_tokens=--budget).compact`` on the loaded history (its ~4 characters per token
  estimate); ``--output`` receives the first run's result (outside the timing), for ``cargo xtask bench`` to
  ``check``.
* ``tiktoken-o200k`` (``target/venv-providers``): Python ``tiktoken``'s ``o200k_base`` (its Rust core's
  ``encode_ordinary``, called text by text)
  over the texts of ``--file`` (a JSON array: exactly the texts msgflow's counter encodes for a history,
  ``TokenCounter::texts``), with its cache seeded from tiktoken-rs's vocabulary (``--assets``, ``--cache``; see
  ``oracle/tokens_oracle.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # oracle/: oracle_common, providers_oracle, tokens_oracle

import oracle_common  # noqa: E402,F401 - pins the mime table before pydantic_ai is imported

from pydantic_ai.messages import ModelMessagesTypeAdapter  # noqa: E402

import pydantic_bench  # noqa: E402

STREAM_OPS = ("stream-text-deltas", "stream-arg-fragments")
MAP_OPS = {"map-anthropic": "anthropic", "map-openai-chat": "openai-chat", "map-openai-responses": "openai-responses"}
OPERATIONS = (*STREAM_OPS, *MAP_OPS, "harness-sliding-window", "tiktoken-o200k")


def stream_operation(op: str, deltas: list[str]):
    from pydantic_ai._parts_manager import ModelResponsePartsManager
    from pydantic_ai.models import ModelRequestParameters

    def text() -> tuple:
        manager = ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())
        events = 0
        for delta in deltas:
            for _event in manager.handle_text_delta(vendor_part_id=0, content=delta):
                events += 1
        return manager.get_parts(), events

    def args() -> tuple:
        manager = ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())
        events = 0
        first = True
        for fragment in deltas:
            if first:
                event = manager.handle_tool_call_delta(
                    vendor_part_id=0, tool_name="write_file", args=fragment, tool_call_id="call_0"
                )
                first = False
            else:
                event = manager.handle_tool_call_delta(vendor_part_id=0, args=fragment)
            events += event is not None
        return manager.get_parts(), events

    return text if op == "stream-text-deltas" else args


def map_operation(provider: str, history: list):
    import providers_oracle

    model = providers_oracle.build_models()[provider]
    loop = asyncio.new_event_loop()
    return lambda: loop.run_until_complete(providers_oracle.export(provider, model, history))


def harness_operation(history: list, budget: int):
    from pydantic_ai_harness.compaction import SlidingWindowCompaction

    # The trigger does not matter to `compact`; one must be set.
    strategy = SlidingWindowCompaction(max_messages=1, keep_tokens=budget)
    loop = asyncio.new_event_loop()
    return lambda: loop.run_until_complete(strategy.compact(history, None))


def tiktoken_operation(data: bytes, assets: str, cache: str):
    import tokens_oracle

    tokens_oracle.seed_cache(assets, cache)
    encoding = tokens_oracle.load("o200k_base")
    texts = json.loads(data)
    assert isinstance(texts, list) and all(isinstance(text, str) for text in texts), "--file: a JSON array of texts"

    # tiktoken's Rust core itself, text by text: `encode_ordinary_batch` adds a thread pool's
    # bookkeeping per text, which is Python's cost, not the tokenizer's.
    core = encoding._core_bpe  # noqa: SLF001 - the Rust core is what the target compares with
    encode = core.encode_ordinary
    for text in texts[:10]:  # warm-up
        encode(text)
    return lambda: sum(len(encode(text)) for text in texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", required=True)
    parser.add_argument("--op", choices=OPERATIONS, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=int, default=100_000, help="harness-sliding-window's keep_tokens")
    parser.add_argument("--output", help="harness-sliding-window: where the first run's history goes")
    parser.add_argument("--assets", help="tiktoken-o200k: tiktoken-rs's assets directory")
    parser.add_argument("--cache", help="tiktoken-o200k: the TIKTOKEN_CACHE_DIR to seed")
    args = parser.parse_args(argv)
    with open(args.file, "rb") as handle:
        data = handle.read()

    detail: dict = {}
    if args.op in STREAM_OPS:
        operation = stream_operation(args.op, json.loads(data))
        parts, events = operation()  # warm-up, and the sanity facts
        detail = {"parts": len(parts), "events": events}
    elif args.op == "tiktoken-o200k":
        operation = tiktoken_operation(data, args.assets, args.cache)
        detail = {"tokens": operation()}
    else:
        history = ModelMessagesTypeAdapter.validate_json(data)
        if args.op in MAP_OPS:
            operation = map_operation(MAP_OPS[args.op], history)
            operation()
        else:
            operation = harness_operation(history, args.budget)
            result = operation()
            detail = {"messages_before": len(history), "messages_after": len(result)}
            if args.output:
                with open(args.output, "wb") as out:
                    out.write(ModelMessagesTypeAdapter.dump_json(result))
            del result

    report = {
        "tool": "tiktoken" if args.op == "tiktoken-o200k" else "pydantic-ai",
        "op": args.op,
        "file": args.file,
        "bytes": len(data),
        **pydantic_bench.measure(operation, args.runs),
        "detail": detail,
        "pydantic_ai_version": importlib.metadata.version("pydantic-ai-slim"),
    }
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
