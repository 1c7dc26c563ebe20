#!/usr/bin/env python3
"""Write histories as an OLD pydantic-ai release serialises them (legacy fixtures).

Usage (with a legacy venv, e.g. one built from oracle/requirements-legacy-1.0.0.txt):
    python oracle/gen_legacy_fixtures.py --out tests/fixtures/legacy --tag 1.0.0

Writes ``OUT/<tag>-<name>.json``:

* ``function-model``: an ``Agent`` on ``FunctionModel`` with two tools (``get_weather``, ``convert_units``); the
  first ``get_weather`` call raises ``ModelRetry`` (a tool-bound ``retry-prompt`` part in old releases); the prompt
  carries text, an ``ImageUrl`` and ``BinaryContent`` bytes. The file is ``result.all_messages_json()``.
* ``test-model``: the same agent and tools on ``TestModel(call_tools='all')``, ``all_messages_json()``.
* ``hand-built``: a request/response pair built directly from the release's message classes with the response
  part kinds it has (thinking from 0.4, builtin tool call/return from 0.7, file parts from 1.20), dumped with its
  ``ModelMessagesTypeAdapter``.

Old releases take timestamps from the wall clock and generate ``pyd_ai_<uuid>`` ids. To keep the committed files
reproducible, timestamps and generated ids/run ids are rewritten *on the message objects* (pinned, increasing)
before ``all_messages_json()`` serialises them, so the bytes are still the old release's own serialiser output.
This script uses only APIs present from 0.4.0 to 2.x and feature-detects the rest.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pydantic_ai import Agent, ModelRetry
from pydantic_ai import messages as pai_messages
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

T0 = datetime(2025, 3, 4, 5, 6, 7, 890123, tzinfo=timezone.utc)
GENERATED_ID = re.compile(r"^pyd_ai_[0-9a-f]{32}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xfb\xff"


class Pinner:
    """Rewrites wall-clock timestamps and random ids on message objects, deterministically and consistently."""

    def __init__(self) -> None:
        self.tick = 0
        self.ids: dict[str, str] = {}

    def next_time(self) -> datetime:
        self.tick += 1
        return T0 + timedelta(seconds=self.tick, microseconds=self.tick)

    def pin_id(self, field: str, value: str) -> str:
        if not GENERATED_ID.match(value):
            return value
        return self.ids.setdefault(value, f"pinned_{field}_{len(self.ids) + 1:03d}")

    def pin_object(self, obj: object) -> None:
        if not dataclasses.is_dataclass(obj):
            return
        names = {field.name for field in dataclasses.fields(obj)}
        if "timestamp" in names and getattr(obj, "timestamp", None) is not None:
            obj.timestamp = self.next_time()
        for name in ("tool_call_id", "run_id", "conversation_id", "provider_response_id"):
            value = getattr(obj, name, None) if name in names else None
            if isinstance(value, str):
                setattr(obj, name, self.pin_id(name, value))

    def pin_history(self, history: list) -> None:
        for message in history:
            self.pin_object(message)
            for part in message.parts:
                self.pin_object(part)


def make_agent(model) -> Agent:
    """An agent with two tools; ``get_weather`` raises ModelRetry the first time it is called."""
    agent = Agent(model, system_prompt="You are a weather assistant.")
    calls = {"get_weather": 0}

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        calls["get_weather"] += 1
        if calls["get_weather"] == 1:
            raise ModelRetry("Please include the country, e.g. 'Paris, FR'.")
        return f"sunny, 21 C in {city}"

    @agent.tool_plain
    def convert_units(celsius: float) -> dict:
        """Convert Celsius to Fahrenheit."""
        return {"celsius": celsius, "fahrenheit": celsius * 9 / 5 + 32}

    return agent


def scripted_model(messages: list, info: AgentInfo):
    """FunctionModel body: tool call -> (retry) -> two tool calls -> final text."""
    responses_so_far = sum(1 for message in messages if isinstance(message, pai_messages.ModelResponse))
    if responses_so_far == 0:
        return pai_messages.ModelResponse(
            parts=[
                pai_messages.TextPart("Let me check the weather."),
                pai_messages.ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="call_weather_1"),
            ]
        )
    if responses_so_far == 1:
        return pai_messages.ModelResponse(
            parts=[
                pai_messages.ToolCallPart("get_weather", {"city": "Paris, FR"}, tool_call_id="call_weather_2"),
                pai_messages.ToolCallPart("convert_units", '{"celsius": 21}', tool_call_id="call_convert_1"),
            ]
        )
    return pai_messages.ModelResponse(parts=[pai_messages.TextPart("It is sunny and 21 C (69.8 F) in Paris.")])


def user_prompt_with_media() -> list:
    """Text plus an image URL and PNG bytes (both exist in every supported release)."""
    return [
        "What is the weather where this photo was taken?",
        pai_messages.ImageUrl(url="https://example.com/paris.jpg"),
        pai_messages.BinaryContent(data=PNG_BYTES, media_type="image/png"),
    ]


def run_agent(model) -> bytes:
    result = make_agent(model).run_sync(user_prompt_with_media())
    Pinner().pin_history(result.all_messages())
    return result.all_messages_json()


def hand_built() -> bytes:
    """Request/response pair with every response part kind this release has."""
    m = pai_messages
    parts = [m.TextPart("Here is what I found.")]
    if hasattr(m, "ThinkingPart"):
        parts.insert(0, m.ThinkingPart("Think first.", signature="c2lnbmF0dXJl"))
    call_cls = getattr(m, "NativeToolCallPart", None) or getattr(m, "BuiltinToolCallPart", None)
    return_cls = getattr(m, "NativeToolReturnPart", None) or getattr(m, "BuiltinToolReturnPart", None)
    if call_cls is not None and return_cls is not None:
        parts.append(call_cls("web_search", {"query": "paris weather"}, "srv_1", provider_name="anthropic"))
        parts.append(return_cls("web_search", [{"url": "https://example.com/w", "title": "W"}], "srv_1",
                                provider_name="anthropic"))
    if hasattr(m, "FilePart"):
        parts.append(m.FilePart(m.BinaryContent(data=PNG_BYTES, media_type="image/png")))
    history = [
        m.ModelRequest(parts=[m.UserPromptPart("hand-built request")]),
        m.ModelResponse(parts=parts, model_name="hand-built"),
    ]
    Pinner().pin_history(history)
    return m.ModelMessagesTypeAdapter.dump_json(history)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path, help="output directory (e.g. tests/fixtures/legacy)")
    parser.add_argument("--tag", required=True, help="version tag used as the file-name prefix, e.g. 1.0.0")
    args = parser.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    outputs = {
        "function-model": run_agent(FunctionModel(scripted_model)),
        "test-model": run_agent(TestModel(call_tools="all")),
        "hand-built": hand_built(),
    }
    for name, data in outputs.items():
        path = args.out / f"{args.tag}-{name}.json"
        path.write_bytes(data)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
