"""FitContext and ProviderGuard in real Agent runs, offline, on FunctionModel.

A long tool-calling conversation (hundreds of model requests, parallel calls, retries, an aborted
run resumed): every request the model receives is checked to be under budget, to hold no orphaned
call or result, and to equal `msgflow.trim` of the full history the run had at that point.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import FIXTURES
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.messages import _clean_message_history as clean_message_history
from pydantic_ai.models.function import AgentInfo, FunctionModel

import msgflow
from msgflow.pydantic_ai import FitContext, ProviderGuard, fit_messages, guard_messages

BUDGET = 2_500
PAIR_BREAKS = {"dangling-call", "orphan-return", "misplaced-return", "duplicate-call-id"}


@dataclass
class RecordFullHistory(AbstractCapability[Any]):
    """Placed before FitContext: keeps the history each request would have carried untrimmed."""

    seen: list[bytes] = field(default_factory=list)

    async def before_model_request(self, ctx, request_context):
        self.seen.append(ModelMessagesTypeAdapter.dump_json(list(request_context.messages)))
        return request_context


class Conversation:
    """The model: per user turn, parallel tool calls, sometimes a retried call, then an answer."""

    def __init__(self, recorder: RecordFullHistory, budget: int) -> None:
        self.recorder = recorder
        self.budget = budget
        self.requests = 0
        self.trimmed_requests = 0
        self.abort_on: int | None = None

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests += 1
        sent = ModelMessagesTypeAdapter.dump_json(messages)
        breaks = [p for p in msgflow.check(sent).problems if p.code in PAIR_BREAKS]
        assert not breaks, breaks
        full = self.recorder.seen[-1]
        fitted = msgflow.trim(full, max_tokens=self.budget)
        assert fitted.tokens_after <= self.budget
        # After the capabilities, pydantic-ai merges consecutive requests (a resumed run's tool
        # results and the new prompt) before the model sees them: the same on both sides.
        expected = clean_message_history(ModelMessagesTypeAdapter.validate_json(fitted.history), repair_last_response=True)
        assert sent == ModelMessagesTypeAdapter.dump_json(expected)
        if fitted.removed:
            self.trimmed_requests += 1
        if self.abort_on == self.requests:
            raise KeyboardInterrupt("the user pressed stop")
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        turn = sum(1 for m in messages for p in m.parts if p.part_kind == "user-prompt")
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        retries = [p for p in last.parts if p.part_kind == "retry-prompt"]
        if retries:
            return ModelResponse(parts=[ToolCallPart("lookup", {"key": f"fixed-{self.requests}"})])
        if not returns:
            calls = [ToolCallPart("lookup", {"key": f"k{self.requests}-{i}"}) for i in range(3)]
            if self.requests % 7 == 0:
                calls.append(ToolCallPart("lookup", {"key": "bad"}))
            return ModelResponse(parts=calls)
        return ModelResponse(parts=[TextPart(f"turn {turn}: done after {len(returns)} results " + "ok " * 20)])


def make_agent(model: FunctionModel, recorder: RecordFullHistory, **fit: Any) -> Agent:
    agent = Agent(
        model,
        instructions="You are a careful agent.",
        capabilities=[recorder, FitContext(**fit)],
    )

    @agent.tool_plain
    def lookup(key: str) -> str:
        if key == "bad":
            raise ModelRetry("no such key; use another")
        return f"value of {key}: " + "data " * 40

    return agent


def test_a_long_tool_calling_conversation_fits_every_request() -> None:
    recorder = RecordFullHistory()
    conversation = Conversation(recorder, BUDGET)
    agent = make_agent(FunctionModel(conversation), recorder, max_tokens=BUDGET)
    history: list[ModelMessage] = []
    for turn in range(152):
        if turn == 75:
            conversation.abort_on = conversation.requests + 2
            with pytest.raises(KeyboardInterrupt):
                agent.run_sync(f"question {turn}", message_history=history)
            conversation.abort_on = None
            # The aborted run's own record: the request with the tool results it had sent.
            assert len(recorder.seen[-1]) > 0
            aborted = ModelMessagesTypeAdapter.validate_json(recorder.seen[-1])
            history = msgflow.repair(aborted).history
            continue
        result = agent.run_sync(f"question {turn}", message_history=history)
        history = result.all_messages()
    assert conversation.requests >= 300
    assert conversation.trimmed_requests >= 200
    # The stored history stays whole: only the requests were trimmed.
    assert msgflow.count_tokens(history).total > 10 * BUDGET


def test_max_fraction_reads_the_context_window_from_the_profile() -> None:
    recorder = RecordFullHistory()
    conversation = Conversation(recorder, 2_000)
    model = FunctionModel(conversation, profile={"context_window": 4_000})
    agent = make_agent(model, recorder, max_fraction=0.5)
    history: list[ModelMessage] = []
    for turn in range(20):
        history = agent.run_sync(f"question {turn}", message_history=history).all_messages()
    assert conversation.trimmed_requests > 0


def test_no_context_window_and_no_budget_are_refused() -> None:
    with pytest.raises(ValueError):
        FitContext()
    recorder = RecordFullHistory()
    agent = make_agent(FunctionModel(Conversation(recorder, 10**9)), recorder, max_fraction=0.5)
    with pytest.raises(ValueError, match="context_window"):
        agent.run_sync("hello")


def test_a_newest_turn_over_budget_raises_before_the_request(caplog) -> None:
    called = []
    agent = Agent(FunctionModel(lambda m, i: called.append(1) or ModelResponse(parts=[TextPart("x")])),
                  capabilities=[FitContext(max_tokens=10)])
    with pytest.raises(msgflow.DoesNotFit):
        agent.run_sync("a question much longer than ten tokens, " * 5)
    assert not called


def test_fit_context_logs_what_it_removed(caplog) -> None:
    recorder = RecordFullHistory()
    agent = make_agent(FunctionModel(Conversation(recorder, 1_200)), recorder, max_tokens=1_200)
    history: list[ModelMessage] = []
    with caplog.at_level(logging.INFO, logger="msgflow"):
        for turn in range(10):
            history = agent.run_sync(f"q {turn}", message_history=history).all_messages()
    assert any("FitContext: removed" in record.message for record in caplog.records)


def _history(name: str) -> list[ModelMessage]:
    return ModelMessagesTypeAdapter.validate_json((FIXTURES / "providers" / name / "rejected.json").read_bytes())


def test_provider_guard_repairs_what_the_provider_would_reject() -> None:
    received: list[bytes] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append(ModelMessagesTypeAdapter.dump_json(messages))
        return ModelResponse(parts=[TextPart("fine")])

    history = _history("anthropic-tool-use-id-pattern")
    assert not msgflow.check(history, provider="anthropic").ok
    agent = Agent(FunctionModel(model), capabilities=[ProviderGuard(provider="anthropic")])
    result = agent.run_sync("go on", message_history=history)
    assert msgflow.check(received[-1], provider="anthropic").ok
    # Only the request changed; the stored history is what was given.
    assert ModelMessagesTypeAdapter.dump_json(result.all_messages()[: len(history)]) == (
        ModelMessagesTypeAdapter.dump_json(history)
    )


def test_provider_guard_raises_before_sending_what_it_cannot_repair() -> None:
    called = []
    agent = Agent(
        FunctionModel(lambda m, i: called.append(1) or ModelResponse(parts=[TextPart("x")])),
        capabilities=[ProviderGuard(provider="anthropic")],
    )
    with pytest.raises(msgflow.ExportRefused) as raised:
        agent.run_sync("go on", message_history=_history("anthropic-duplicate-tool-use-id"))
    assert not called
    err = raised.value
    assert isinstance(err.message_index, int) and "anthropic would answer" in str(err)
    assert err.reason


def test_provider_guard_leaves_unknown_models_alone() -> None:
    history = _history("anthropic-duplicate-tool-use-id")
    agent = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("x")])), capabilities=[ProviderGuard()])
    assert agent.run_sync("go on", message_history=history).output == "x"


def test_the_plain_functions_return_new_lists() -> None:
    history = _history("anthropic-tool-use-id-pattern")
    assert guard_messages(history, provider="openai-chat") is not history
    fitted = fit_messages(history, max_tokens=10**6)
    assert fitted == history and fitted is not history
    assert asyncio.iscoroutinefunction(FitContext.before_model_request)
