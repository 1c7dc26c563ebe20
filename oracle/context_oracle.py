"""The pydantic-ai-harness side of `cargo xtask conformance`'s context check.

Reads JSON Lines on stdin, one case per line:
    {"id": 0, "history": "<pydantic-ai JSON>", "strategy": "clear" | "clamp", "params": {...}}
loads the history with pydantic-ai 2.68.0's ModelMessagesTypeAdapter, runs pydantic-ai-harness
0.62.0's ClearToolResults.compact or ClampOversizedMessages.compact with those parameters, and
writes {"id": 0, "output": "<dump_json of the result>"} (or {"id": 0, "error": "..."}) per line.
One process for all cases.
"""

from __future__ import annotations

import asyncio
import json
import sys

from pydantic_ai.messages import ModelMessagesTypeAdapter
from pydantic_ai_harness.compaction import ClampOversizedMessages, ClearToolResults


def strategy(case: dict):
    params = case["params"]
    if case["strategy"] == "clear":
        # The trigger does not matter to `compact`; one must be set.
        return ClearToolResults(
            max_messages=1,
            keep_pairs=params["keep_pairs"],
            placeholder=params["placeholder"],
            exclude_tools=frozenset(params["exclude_tools"]),
            clear_tool_inputs=params["clear_tool_inputs"],
        )
    return ClampOversizedMessages(
        max_part_chars=params["max_part_chars"],
        max_part_tokens=params["max_part_tokens"],
        keep_head_chars=params["keep_head_chars"],
        keep_tail_chars=params["keep_tail_chars"],
        clamp_tool_call_args=params["clamp_tool_call_args"],
    )


def main() -> int:
    loop = asyncio.new_event_loop()
    out = sys.stdout
    for line in sys.stdin:
        case = json.loads(line)
        try:
            messages = ModelMessagesTypeAdapter.validate_json(case["history"])
            # `compact` reads no run context from these two strategies.
            result = loop.run_until_complete(strategy(case).compact(messages, None))
            answer = {"id": case["id"], "output": ModelMessagesTypeAdapter.dump_json(result).decode()}
        except Exception as err:  # noqa: BLE001 - reported per case, judged by the Rust side
            answer = {"id": case["id"], "error": f"{type(err).__name__}: {err}"}
        out.write(json.dumps(answer) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
