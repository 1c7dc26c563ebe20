"""Write examples/interrupted-stream.jsonl (+ -history.json): the event log of a streamed run the user stopped.

A pydantic-ai agent (streamed ``FunctionModel``) is asked to fix a timeout; it thinks, says what it
will do, reads a file (the tool runs), then starts streaming an ``edit_file`` call and the user
presses stop while the call's arguments are still arriving. The application logged every event
``Agent.run_stream_events`` gave it, one ``TypeAdapter(AgentStreamEvent)`` JSON object per line:
that log is ``examples/interrupted-stream.jsonl``. ``examples/interrupted-stream-history.json`` is the
history the run started from (the user's prompt), as ``dump_json`` writes it.

``msgflow assemble examples/interrupted-stream.jsonl --history examples/interrupted-stream-history.json``
rebuilds what the run recorded (the interrupted response keeps its partial ``edit_file`` call), and
``msgflow repair`` then answers that call.

Run with the pydantic-ai 2.68.0 venv:
``target/venv/bin/python oracle/gen_stream_example.py --out examples/interrupted-stream``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import warnings

import oracle_common  # noqa: F401  (pins the environment before pydantic-ai is imported)

import pydantic
from pydantic_ai import Agent, messages as m
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel

EVENT_TA = pydantic.TypeAdapter(m.AgentStreamEvent)

EDIT_ARGS = json.dumps({
    "path": "src/client.py",
    "old": "def load_timeout(config):\n    return config.get(\"timeout\", 5)\n",
    "new": "def load_timeout(config, default=30):\n    return float(config.get(\"timeout\", default))\n",
})


def pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


async def stream(messages: list, info: AgentInfo):
    if not any(isinstance(message, m.ModelResponse) for message in messages):
        for piece in ["The timeout ", "comes from `load_timeout`; ", "read it first."]:
            yield {0: DeltaThinkingPart(content=piece)}
        yield {0: DeltaThinkingPart(signature="EqQBCkYIBxgCKkA1")}
        for piece in ["Let me look at ", "`src/client.py`."]:
            yield piece
        args = pieces(json.dumps({"path": "src/client.py"}), 9)
        yield {2: DeltaToolCall(name="read_file", json_args=args[0], tool_call_id="toolu_01A")}
        for piece in args[1:]:
            yield {2: DeltaToolCall(json_args=piece)}
        return
    for piece in ["`load_timeout` ", "ignores the config's type ", "and defaults to 5 s. ", "I'll fix both."]:
        yield piece
    args = pieces(EDIT_ARGS, 12)
    yield {1: DeltaToolCall(name="edit_file", json_args=args[0], tool_call_id="toolu_01B")}
    for piece in args[1:]:
        yield {1: DeltaToolCall(json_args=piece)}


async def run(out: str) -> None:
    agent = Agent(FunctionModel(stream_function=stream, model_name="claude-sonnet-4-5"))

    @agent.tool_plain
    def read_file(path: str) -> str:
        return 'def load_timeout(config):\n    return config.get("timeout", 5)\n'

    @agent.tool_plain
    def edit_file(path: str, old: str, new: str) -> str:  # pragma: no cover - never reached
        return "edited"

    lines: list[str] = []
    edit_deltas = 0
    async with agent.run_stream_events("The client times out on slow networks. Fix it.") as events:
        try:
            async for event in events:
                if not hasattr(event, "event_kind"):
                    continue
                lines.append(EVENT_TA.dump_json(event).decode())
                if isinstance(event, m.PartDeltaEvent) and isinstance(event.delta, m.ToolCallPartDelta):
                    edit_deltas += 1
                    # The user presses stop while the edit's arguments are streaming.
                    if edit_deltas == 6 and any('"edit_file"' in line for line in lines):
                        events.cancel()
        except Exception:  # noqa: BLE001 - RunCancelled ends the cancelled run
            pass
        history = events.all_messages()[:1]
    with open(f"{out}.jsonl", "w", encoding="utf-8") as log:
        log.writelines(line + "\n" for line in lines)
    with open(f"{out}-history.json", "wb") as file:
        file.write(m.ModelMessagesTypeAdapter.dump_json(history))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="path without extension (examples/interrupted-stream)")
    warnings.simplefilter("ignore")
    asyncio.run(run(parser.parse_args().out))


if __name__ == "__main__":
    main()
