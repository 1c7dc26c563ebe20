"""HistoryCache: FitContext bridges and counts each message once, and answers as a cold trim does.

Every cached fit is compared with `msgflow.trim` of the whole history (what `fit_messages` does
without a cache), through a history that grows, is edited in place, has messages replaced, shrinks
and is swapped for another, with each budget and step.
"""

from __future__ import annotations

import random
import threading
from dataclasses import replace
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import msgflow
from msgflow.pydantic_ai import FitContext, HistoryCache, fit_messages

Adapter = ModelMessagesTypeAdapter


def turn(index: int, *, first: bool = False, result_words: int = 30) -> list[ModelMessage]:
    """One turn: a user prompt (the system prompt and instructions ahead of the first), two
    parallel tool calls, their results and an answer."""
    prompt: list[Any] = [SystemPromptPart("You are a careful coding agent.")] if first else []
    prompt.append(UserPromptPart(f"question {index}"))
    calls = [ToolCallPart("read_file", {"path": f"f{index}-{k}.py"}, tool_call_id=f"c{index}-{k}") for k in range(2)]
    returns = [
        ToolReturnPart("read_file", f"line {index} " * (result_words + 13 * k), tool_call_id=f"c{index}-{k}")
        for k in range(2)
    ]
    return [
        ModelRequest(parts=prompt, instructions="Be brief." if first else None),
        ModelResponse(parts=calls),
        ModelRequest(parts=returns),
        ModelResponse(parts=[TextPart(f"answer {index} " + "ok " * (index % 5) * 10)]),
    ]


def session(turns: int, start: int = 0) -> list[ModelMessage]:
    return [message for index in range(start, start + turns) for message in turn(index, first=index == 0)]


def cold(messages: list[ModelMessage], **options: Any) -> tuple[bytes, int, int, int] | str:
    """What `fit_messages` gives without a cache: the bytes, the tokens before and after and the
    messages removed, or the error."""
    try:
        trimmed = msgflow.trim(Adapter.dump_json(messages), **options)
    except msgflow.DoesNotFit as err:
        return f"DoesNotFit {err.needed}"
    return trimmed.history, trimmed.tokens_before, trimmed.tokens_after, len(trimmed.removed)


def cached(messages: list[ModelMessage], cache: HistoryCache, **options: Any) -> tuple[bytes, int, int, int] | str:
    """The same with the cache: `fit_messages` (for the messages) and the cache's own figures."""
    try:
        fitted = fit_messages(messages, cache=cache, **options)
    except msgflow.DoesNotFit as err:
        return f"DoesNotFit {err.needed}"
    options.pop("tokenizer", None)
    again, summary = cache._fit(list(messages), options.pop("max_tokens"), options.pop(
        "clear_tool_results_older_than", None), options.pop("clamp_parts", None))
    assert Adapter.dump_json(again) == Adapter.dump_json(fitted)
    return Adapter.dump_json(fitted), summary["tokens_before"], summary["tokens_after"], summary["removed"]


OPTIONS = [
    {"max_tokens": 400},
    {"max_tokens": 1_500},
    {"max_tokens": 100_000},
    {"max_tokens": 30},
    {"max_tokens": 900, "clear_tool_results_older_than": 2},
    {"max_tokens": 900, "clamp_parts": 128},
    {"max_tokens": 600, "clear_tool_results_older_than": 1, "clamp_parts": 200},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_a_cached_fit_equals_a_cold_one_as_the_history_changes(options: dict[str, Any]) -> None:
    rng = random.Random(30)
    cache = HistoryCache()
    messages = session(3)
    next_turn = 3
    for step in range(60):
        action = rng.choice(["grow", "grow", "grow", "edit", "replace", "append-part", "instructions", "shrink", "swap"])
        if action == "grow":
            messages = messages + turn(next_turn)
            next_turn += 1
        elif action == "edit":
            # In place, as a processor might: a result's content reassigned.
            returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
            rng.choice(returns).content = f"edited at step {step} " * rng.randint(1, 40)
        elif action == "replace":
            index = rng.randrange(len(messages))
            message = messages[index]
            if isinstance(message, ModelResponse):
                parts = [TextPart(f"replaced at {step}")] if not any(
                    isinstance(p, ToolCallPart) for p in message.parts
                ) else list(message.parts)
                messages[index] = replace(message, parts=parts)
            else:
                messages[index] = replace(message, parts=list(message.parts))
        elif action == "append-part":
            last_response = next(m for m in reversed(messages) if isinstance(m, ModelResponse))
            last_response.parts.append(TextPart(f"and one more thing ({step})"))
        elif action == "instructions":
            # What pydantic-ai does to the newest request after the hooks ran.
            request = next(m for m in reversed(messages) if isinstance(m, ModelRequest))
            request.instructions = f"Instructions of step {step}."
        elif action == "shrink":
            messages = messages[: max(4, len(messages) - 4 * rng.randint(1, 3))]
        elif action == "swap":
            messages = session(rng.randint(1, 6), start=100 + step)
            next_turn = 200 + step
        assert cached(messages, cache, **options) == cold(messages, **options), (step, action)
    assert cache.bridged < 60 * len(messages)


def test_a_growing_history_is_bridged_once() -> None:
    cache = HistoryCache()
    messages: list[ModelMessage] = []
    for index in range(40):
        messages = messages + turn(index, first=index == 0)
        fit_messages(messages, max_tokens=800, cache=cache)
    assert cache.bridged == len(messages) == len(cache)
    assert "messages=160" in repr(cache)


def test_fit_context_bridges_each_message_of_a_run_about_once() -> None:
    requests: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(len(messages))
        last = messages[-1]
        if any(isinstance(p, ToolReturnPart) for p in last.parts):
            return ModelResponse(parts=[TextPart("done " * 30)])
        return ModelResponse(parts=[ToolCallPart("lookup", {"key": f"k{len(requests)}-{k}"}) for k in range(2)])

    fit = FitContext(max_tokens=1_500)
    agent = Agent(FunctionModel(model), instructions="Be careful.", capabilities=[fit])

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f"value of {key}: " + "data " * 40

    history: list[ModelMessage] = []
    for index in range(30):
        history = agent.run_sync(f"question {index}", message_history=history).all_messages()
    assert fit.cache is not None
    # Each request re-bridges only what is new, and the newest request again when pydantic-ai has
    # set its instructions since: far below the whole history every time.
    assert fit.cache.bridged <= len(history) + 2 * len(requests)
    assert sum(requests) > 5 * fit.cache.bridged


def test_a_cache_serves_one_history_at_a_time_from_many_threads() -> None:
    cache = HistoryCache()
    histories = [session(12), session(9, start=50), session(15, start=80)]
    expected = [cold(h, max_tokens=700) for h in histories]
    errors: list[BaseException] = []

    def work(which: int) -> None:
        try:
            for _ in range(10):
                assert cached(histories[which], cache, max_tokens=700) == expected[which]
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k % 3,)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_the_cache_counts_with_one_fixed_tokenizer() -> None:
    with pytest.raises(ValueError, match="calibrated"):
        HistoryCache("calibrated")
    with pytest.raises(ValueError):
        HistoryCache("gpt-17")
    assert FitContext(max_tokens=10, tokenizer="calibrated").cache is None
    cache = HistoryCache("chars4")
    with pytest.raises(ValueError, match="chars4"):
        fit_messages(session(2), max_tokens=100, cache=cache)
    messages = session(20)
    assert cached(messages, cache, max_tokens=300, tokenizer="chars4") == cold(messages, max_tokens=300, tokenizer="chars4")
