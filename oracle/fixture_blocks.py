"""The pinned building blocks of the fixture histories (fixed timestamps, short constructors) and
the registry ``gen_fixtures.py`` writes them from (``@fixture``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import oracle_common  # noqa: F401, I001 - must come before pydantic_ai (pins the mime table)

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

# ---------------------------------------------------------------------------------------------------------------
# Pinned building blocks
# ---------------------------------------------------------------------------------------------------------------

T0 = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)


def ts(seconds: float = 0) -> datetime:
    """A pinned UTC timestamp ``seconds`` after T0 (keeps microseconds)."""
    return T0 + timedelta(seconds=seconds)


def user(content, at: float = 0) -> UserPromptPart:
    return UserPromptPart(content=content, timestamp=ts(at))


def system(content: str, at: float = 0, **kwargs) -> SystemPromptPart:
    return SystemPromptPart(content=content, timestamp=ts(at), **kwargs)


def call(name: str, args, call_id: str, **kwargs) -> ToolCallPart:
    return ToolCallPart(tool_name=name, args=args, tool_call_id=call_id, **kwargs)


def ret(name: str, content, call_id: str, at: float = 0, **kwargs) -> ToolReturnPart:
    return ToolReturnPart(tool_name=name, content=content, tool_call_id=call_id, timestamp=ts(at), **kwargs)


def request(parts, **kwargs) -> ModelRequest:
    return ModelRequest(parts=parts, **kwargs)


def response(parts, at: float = 0, **kwargs) -> ModelResponse:
    kwargs.setdefault("timestamp", ts(at))
    return ModelResponse(parts=parts, **kwargs)


def usage(input_tokens: int, output_tokens: int, **kwargs) -> RequestUsage:
    return RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens, **kwargs)


# ---------------------------------------------------------------------------------------------------------------
# Fixture registry
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixture:
    """A named history builder and a one-line description of what it covers."""

    name: str
    covers: str
    build: Callable[[], list]


FIXTURES: list[Fixture] = []


def fixture(name: str, covers: str):
    """Register a builder under ``name`` (the file is ``v2_68/<name>.json``)."""

    def register(build: Callable[[], list]) -> Callable[[], list]:
        FIXTURES.append(Fixture(name, covers, build))
        return build

    return register


