"""pydantic-ai capabilities built on msgflow: ``Agent(capabilities=[FitContext(...), ProviderGuard()])``.

pydantic-ai 2.68 runs each capability's ``before_model_request`` before every model request. Both
capabilities change only what that request sends (``request_context.messages``, a new list each
time): the run's stored history (``result.all_messages()``) stays whole, so a later run, or another
budget, starts from everything that was said. The same logic is here as plain functions
(``fit_messages``, ``guard_messages``) for a ``ProcessHistory`` of one's own.

``FitContext`` keeps a ``HistoryCache``: pydantic-ai passes the same message objects to every request
of a run, a few new ones at the end, so each message is bridged (``dump_json``), parsed and counted
once, and a request pays for its new messages and the cut.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter

import msgflow
from msgflow import _msgflow

if TYPE_CHECKING:
    from pydantic_ai.models import Model, ModelRequestContext
    from pydantic_ai.tools import RunContext

__all__ = ["FitContext", "HistoryCache", "ProviderGuard", "fit_messages", "guard_messages", "provider_of"]

logger = logging.getLogger("msgflow")

# The model classes whose requests msgflow knows, by class name so that importing this module
# needs no provider SDK (pydantic_ai.models.anthropic imports `anthropic`).
_PROVIDERS = {
    "AnthropicModel": "anthropic",
    "OpenAIChatModel": "openai-chat",
    "OpenAIModel": "openai-chat",
    "OpenAIResponsesModel": "openai-responses",
    "GoogleModel": "gemini",
    "GeminiModel": "gemini",
}


def provider_of(model: Model) -> str | None:
    """The msgflow provider a pydantic-ai model talks to (``None`` when msgflow does not know its rules)."""
    seen = 0
    while hasattr(model, "wrapped") and seen < 16:  # WrapperModel, InstrumentedModel, ...
        model = model.wrapped
        seen += 1
    return _PROVIDERS.get(type(model).__name__)


def _messages_after_trim(messages: list[ModelMessage], trimmed: msgflow.Trimmed, data: Any) -> list[ModelMessage]:
    """The trimmed history as message objects.

    When the trim only cut whole turns from the front (nothing moved onto the new first request,
    nothing cleared or clamped), the kept messages are the input's own objects; else the bytes are
    read back with pydantic-ai's adapter.
    """
    report = trimmed.report
    untouched = not report.get("cleared") and not report.get("clamped") and not report.get("trim", {}).get("moved")
    if untouched:
        return messages[len(trimmed.removed) :]
    return ModelMessagesTypeAdapter.validate_json(data)


class HistoryCache:
    """Each message of a growing history parsed and counted once, across calls of ``fit_messages``.

    It remembers every message object it was given, with a fingerprint of it: the identity of each
    attribute value of the message and of its parts, and the length of each list, tuple and dict
    among them. A call bridges, parses and counts only the messages from the first one that is not
    the remembered object or whose fingerprint changed (a message replaced, a part appended, a field
    reassigned, as pydantic-ai does to the newest request's ``instructions``); the answer is the one
    ``msgflow.trim`` gives on the whole history. An edit deeper inside a value (a key of a tool call's
    ``args`` dict changed in place) is not seen: replace the part or the message instead, as
    pydantic-ai's own history processors do. One cache serves one history at a time (calls are
    serialised by a lock); another history in between costs a full bridge, never a wrong answer.
    ``tokenizer='calibrated'`` is refused: its scale changes with the whole history.
    """

    def __init__(self, tokenizer: str = "o200k_base") -> None:
        self._native = _msgflow.HistoryCache(tokenizer)
        # The native cache is used by one thread at a time (it releases the GIL while it counts).
        self._lock = threading.Lock()
        self.tokenizer = tokenizer
        """The tokenizer it counts with."""
        self.bridged = 0
        """How many messages were bridged (dumped, parsed and counted) so far."""

    def __len__(self) -> int:
        with self._lock:
            return len(self._native)

    def __repr__(self) -> str:
        return f"HistoryCache(tokenizer={self.tokenizer!r}, messages={len(self)}, bridged={self.bridged})"

    def _fit(
        self, messages: list[ModelMessage], max_tokens: int, clear: int | None, clamp: int | None
    ) -> tuple[list[ModelMessage], dict[str, Any]]:
        with self._lock:
            start = self._native.stale_from(messages)
            self._native.update(messages, start, ModelMessagesTypeAdapter.dump_json(messages[start:]))
            self.bridged += len(messages) - start
            kept_from, changed_at, changed, summary = self._native.fit(max_tokens, clear, clamp)
        fitted = messages[kept_from:]
        if changed_at:
            for index, message in zip(changed_at, ModelMessagesTypeAdapter.validate_json(changed)):
                fitted[index] = message
        return fitted, json.loads(summary)


def fit_messages(
    messages: list[ModelMessage],
    *,
    max_tokens: int,
    tokenizer: str = "o200k_base",
    clear_tool_results_older_than: int | None = None,
    clamp_parts: int | None = None,
    cache: HistoryCache | None = None,
) -> list[ModelMessage]:
    """``msgflow.trim`` of ``messages`` to ``max_tokens``, as a new list; logs what it removed.

    With a ``cache`` (counting with ``tokenizer``), only the messages it has not seen are bridged and
    counted; the answer is the same. Raises ``msgflow.DoesNotFit`` when the newest turn alone exceeds
    the budget.
    """
    if cache is not None:
        if cache.tokenizer != tokenizer:
            raise ValueError(f"the cache counts with {cache.tokenizer!r}, not tokenizer={tokenizer!r}")
        fitted, summary = cache._fit(list(messages), max_tokens, clear_tool_results_older_than, clamp_parts)
        removed, tokens_before, tokens_after = summary["removed"], summary["tokens_before"], summary["tokens_after"]
    else:
        data = ModelMessagesTypeAdapter.dump_json(messages)
        trimmed = msgflow.trim(
            data,
            max_tokens=max_tokens,
            tokenizer=tokenizer,
            clear_tool_results_older_than=clear_tool_results_older_than,
            clamp_parts=clamp_parts,
        )
        if not trimmed.removed and trimmed.history == data:
            return list(messages)
        fitted = _messages_after_trim(messages, trimmed, trimmed.history)
        removed, tokens_before, tokens_after = len(trimmed.removed), trimmed.tokens_before, trimmed.tokens_after
    if removed:
        logger.info(
            "msgflow FitContext: removed %d of %d messages (%d -> %d tokens, budget %d)",
            removed,
            len(messages),
            tokens_before,
            tokens_after,
            max_tokens,
        )
    return fitted


def guard_messages(messages: list[ModelMessage], *, provider: str) -> list[ModelMessage]:
    """``messages`` as ``provider`` accepts them: unchanged when it would accept them, else repaired
    by ``msgflow.repair(provider=...)``, as a new list.

    Raises ``msgflow.ExportRefused`` naming the message, the part and the provider's error for what
    the repair cannot fix, and for what pydantic-ai itself would refuse to send.
    """
    data = ModelMessagesTypeAdapter.dump_json(messages)
    report = msgflow.check(data, provider=provider)
    if report.ok:
        return list(messages)
    repaired = msgflow.repair(data, provider=provider)
    if repaired.unfixed:
        first = repaired.unfixed[0]
        violation = first["violation"]
        part = violation.get("part")
        where = f"message {violation['message']}" + (f", part {part}" if part is not None else "")
        error = msgflow.ExportRefused(
            f"{where}: {violation['rule']['id']}: {provider} would answer: {violation['provider_error']} "
            f"(not fixed: {first['reason']})"
        )
        error.message_index = violation["message"]
        error.part_index = part
        error.path = f"$[{violation['message']}]" + (f".parts[{part}]" if part is not None else "")
        error.reason = violation["provider_error"]
        raise error
    for change in repaired.changes + repaired.provider_changes:
        logger.info("msgflow ProviderGuard (%s): %s", provider, change)
    return ModelMessagesTypeAdapter.validate_json(repaired.history)


@dataclass
class FitContext(AbstractCapability[Any]):
    """Before every model request, fits the history into a token budget exactly as ``msgflow.trim`` does.

    Whole turns only, never an orphaned call or result, the system prompt and instructions kept, the
    new user prompt always sent. Give ``max_tokens``, or ``max_fraction`` of the context window the
    model's profile names (``ModelProfile.context_window``).
    """

    max_tokens: int | None = None
    max_fraction: float | None = None
    tokenizer: str = "o200k_base"
    clear_tool_results_older_than: int | None = None
    clamp_parts: int | None = None
    cache: HistoryCache | None = field(default=None, init=False, repr=False, compare=False)
    """The run's messages, bridged and counted once (none for ``tokenizer='calibrated'``)."""

    def __post_init__(self) -> None:
        if (self.max_tokens is None) == (self.max_fraction is None):
            raise ValueError("FitContext needs exactly one of max_tokens and max_fraction")
        if self.max_fraction is not None and not 0 < self.max_fraction <= 1:
            raise ValueError(f"max_fraction must be in (0, 1], not {self.max_fraction}")
        if self.tokenizer != "calibrated":
            self.cache = HistoryCache(self.tokenizer)

    def budget(self, model: Model) -> int:
        """The token budget for a request to ``model``."""
        if self.max_tokens is not None:
            return self.max_tokens
        profile = model.profile
        # ModelProfile is a TypedDict in pydantic-ai 2.68; older profiles were objects.
        window = profile.get("context_window") if isinstance(profile, dict) else getattr(profile, "context_window", None)
        if window is None:
            raise ValueError(
                f"FitContext(max_fraction=...): the profile of model {model.model_name!r} names no context_window; "
                "set one (profile={'context_window': ...}) or give max_tokens"
            )
        assert self.max_fraction is not None
        return int(window * self.max_fraction)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        request_context.messages = fit_messages(
            list(request_context.messages),
            max_tokens=self.budget(request_context.model),
            tokenizer=self.tokenizer,
            clear_tool_results_older_than=self.clear_tool_results_older_than,
            clamp_parts=self.clamp_parts,
            cache=self.cache,
        )
        return request_context

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return "MsgflowFitContext"


@dataclass
class ProviderGuard(AbstractCapability[Any]):
    """Before every model request, checks the history against the rules of the provider the model talks
    to and applies msgflow's provider-aware repair; what cannot be repaired raises
    ``msgflow.ExportRefused`` before anything is sent.

    ``provider`` overrides the provider read from the model (``anthropic``, ``openai-chat``,
    ``openai-responses``, ``gemini``); for a model msgflow has no rules for, requests pass unchanged.
    """

    provider: str | None = None

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        provider = self.provider or provider_of(request_context.model)
        if provider is None:
            return request_context
        request_context.messages = guard_messages(list(request_context.messages), provider=provider)
        return request_context

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return "MsgflowProviderGuard"
