"""msgflow for Python: pydantic-ai message histories checked, repaired, trimmed and exported in Rust.

Every function takes a history as pydantic-ai JSON (``bytes`` or ``str``, as
``ModelMessagesTypeAdapter.dump_json`` writes it or as a database stores it), as JSON values (the
dicts ``json.loads`` or a JSON column gives; or ``dump_python``'s), or as a sequence of ``ModelMessage``
(bridged through pydantic-ai's own ``ModelMessagesTypeAdapter``), and gives a history back in the form
it was given. The work is the same Rust code the ``msgflow`` command runs, with the
GIL released. ``msgflow.pydantic_ai`` holds the agent capabilities (``FitContext``, ``ProviderGuard``).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from . import _msgflow
from ._msgflow import ConversionError, DoesNotFit, ExportRefused, InvalidHistory

__all__ = [
    "Assembled",
    "ConversionError",
    "Converted",
    "DoesNotFit",
    "ExportRefused",
    "InvalidHistory",
    "InventedIdsWarning",
    "Problem",
    "Repaired",
    "Report",
    "TokenCount",
    "Trimmed",
    "assemble",
    "Loss",
    "check",
    "convert",
    "count_tokens",
    "default_repair_message",
    "export",
    "fmt",
    "repair",
    "trim",
]

_BYTES = "bytes"
_STR = "str"
_MESSAGES = "messages"
# JSON values, as `json.loads` or a database's JSON column gives a history: dicts, lists, strings...
_OBJECTS = "objects"
# Dicts as `ModelMessagesTypeAdapter.dump_python` gives them (datetimes, bytes): not JSON values.
_PYTHON = "python"
_JSON_TYPES = (dict, list, str, int, float, bool, type(None))


def _adapter() -> Any:
    try:
        from pydantic_ai.messages import ModelMessagesTypeAdapter
    except ImportError as err:  # pragma: no cover - only without the extra
        raise TypeError(
            "a history given as ModelMessage objects needs pydantic-ai (pip install 'msgflow[pydantic-ai]'); "
            "pass its JSON as bytes or str instead"
        ) from err
    return ModelMessagesTypeAdapter


def _to_json(history: Any) -> tuple[bytes, str]:
    """The history's JSON bytes and the form it came in."""
    if isinstance(history, bytes):
        return history, _BYTES
    if isinstance(history, (bytearray, memoryview)):
        return bytes(history), _BYTES
    if isinstance(history, str):
        # Lone surrogates cannot be JSON text; kept as bytes they make the parser name the place.
        return history.encode("utf-8", "surrogatepass"), _STR
    if isinstance(history, Sequence):
        messages = list(history)
        if not all(isinstance(message, _JSON_TYPES) for message in messages):
            return _adapter().dump_json(messages), _MESSAGES
        try:
            return _json_values(messages), _OBJECTS
        except (TypeError, ValueError):
            return _python_values(messages), _PYTHON
    raise TypeError(
        "expected a history as bytes, str, a sequence of pydantic-ai ModelMessage or JSON values (dicts), "
        f"not {type(history).__name__}"
    )


def _python_values(messages: list[Any]) -> bytes:
    """The JSON text of what ``dump_python`` gives (dicts holding datetimes or bytes).

    Read as pydantic-ai reads them, so that a datetime or bytes is written as its JSON dump writes
    it. What pydantic-ai refuses is written as pydantic's serializer writes the same values (bytes
    as base64, as the adapter's JSON holds them), so that msgflow names what is refused and where,
    as it does for JSON, instead of raising pydantic's error.
    """
    adapter = _adapter()  # first: without pydantic-ai, its error says what to install
    import pydantic
    import pydantic_core

    try:
        return adapter.dump_json(adapter.validate_python(messages))
    except pydantic.ValidationError:
        return pydantic_core.to_json(messages, bytes_mode="base64")


def _json_values(data: Any) -> bytes:
    """The JSON text of ``data``, JSON values as ``json.loads`` gives them; a ``TypeError`` for others.

    A float that JSON cannot write (NaN, an infinity) is written as Python writes it, which is no
    JSON: the parser then names its place as it names any other.
    """
    return json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _from_json(data: bytes, form: str) -> Any:
    """``data`` in the form the history was given in."""
    if form == _BYTES:
        return data
    if form == _STR:
        return data.decode("utf-8")
    if form == _OBJECTS:
        return json.loads(data)
    if form == _PYTHON:
        import pydantic

        try:
            return _adapter().dump_python(_adapter().validate_json(data))
        except pydantic.ValidationError:
            # What pydantic-ai refuses has no `dump_python` form (a history repair could not make
            # loadable): given back as the JSON values it is.
            return json.loads(data)
    return _adapter().validate_json(data)


class _Result:
    """Shared by the result classes: ``to_dict()`` and a ``repr`` that leaves the history out."""

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (JSON-ready except for a history given as objects)."""
        return asdict(self)  # type: ignore[call-overload]


@dataclass(frozen=True)
class Problem(_Result):
    """One problem ``check`` found."""

    code: str
    """The CLI's code: ``dangling-call``, ``not-loadable``, ... or the provider rule's id (``anthropic/...``)."""
    text: str
    """The line ``msgflow check`` prints for it (for a provider, the rule's id and requirement)."""
    message_index: int
    """The message, zero-based."""
    part_index: int | None
    """The part, zero-based, when the problem is about one."""
    path: str
    """The JSON path of the message or part (``$[5].parts[1]``)."""
    detail: str
    """Specifics (for a provider, the error its API would answer)."""
    provider_error: str | None = None
    """For a provider check, the error the API would answer."""
    tool_call_id: str | None = None
    tool_name: str | None = None
    turn: int | None = None
    """The turn it is in (the cut points ``trim`` uses); not given for a provider check."""


@dataclass(frozen=True)
class Report(_Result):
    """What ``check`` found."""

    loadable: bool
    """pydantic-ai 2.68's verdict: ``ModelMessagesTypeAdapter.validate_json`` accepts the history."""
    problems: tuple[Problem, ...]
    provider: str | None = None

    @property
    def ok(self) -> bool:
        """Nothing found (the CLI's exit 0)."""
        return not self.problems

    def __repr__(self) -> str:
        codes = ", ".join(problem.code for problem in self.problems[:5])
        more = ", ..." if len(self.problems) > 5 else ""
        target = f", provider={self.provider!r}" if self.provider else ""
        return f"Report(ok={self.ok}, loadable={self.loadable}{target}, problems=[{codes}{more}])"


@dataclass(frozen=True, repr=False)
class Repaired(_Result):
    """What ``repair`` did: the repaired history and every change, as ``msgflow repair --report`` writes them."""

    history: Any
    changes: tuple[dict[str, Any], ...]
    """pydantic-ai's repair (``repair_messages``): each change."""
    remaining: tuple[dict[str, Any], ...] = ()
    """Problems left and why (without a provider)."""
    provider_changes: tuple[dict[str, Any], ...] = ()
    """The provider's fixes (with a provider)."""
    unfixed: tuple[dict[str, Any], ...] = ()
    """What the provider would still reject and why it is not fixed (with a provider)."""

    def __repr__(self) -> str:
        return (
            f"Repaired(changes={len(self.changes)}, provider_changes={len(self.provider_changes)}, "
            f"remaining={len(self.remaining)}, unfixed={len(self.unfixed)})"
        )


@dataclass(frozen=True, repr=False)
class Trimmed(_Result):
    """What ``trim`` did."""

    history: Any
    tokens_before: int
    tokens_after: int
    removed: tuple[dict[str, Any], ...]
    """Every removed message, oldest first (index, kind, turn, parts, size)."""
    report: dict[str, Any] = field(default_factory=dict)
    """``msgflow trim --report``'s document (cleared, clamped, trim, steps)."""

    def __repr__(self) -> str:
        return (
            f"Trimmed(tokens_before={self.tokens_before}, tokens_after={self.tokens_after}, "
            f"removed={len(self.removed)} messages)"
        )


@dataclass(frozen=True, repr=False)
class TokenCount(_Result):
    """``msgflow stats --tokens``: the total, each message's tokens and tokens by part kind."""

    tokenizer: str
    total: int
    messages: tuple[int, ...]
    by_part_kind: dict[str, int]

    def __repr__(self) -> str:
        return f"TokenCount(tokenizer={self.tokenizer!r}, total={self.total}, messages={len(self.messages)})"


@dataclass(frozen=True, repr=False)
class Assembled(_Result):
    """A streamed run's events back to messages (``msgflow assemble``)."""

    history: Any
    report: dict[str, Any]
    """``msgflow assemble --json``'s report (events, responses, parts, completed, unfinished parts, ...)."""

    def __repr__(self) -> str:
        completed = self.report.get("completed")
        return f"Assembled(responses={self.report.get('responses')}, completed={completed})"


def default_repair_message() -> str:
    """The text a synthesized tool result holds unless ``repair(message=...)`` says otherwise."""
    return _msgflow.default_repair_message()


def check(
    history: Any,
    *,
    provider: str | None = None,
    openai_chat_thinking: str | None = None,
    anthropic_thinking: str | None = None,
    openai_thinking: str | None = None,
) -> Report:
    """What pydantic-ai 2.68 would refuse or change in the history, or what ``provider`` would reject.

    ``provider`` is one of ``anthropic``, ``openai-chat``, ``openai-responses``, ``gemini``. The model
    profile settings are those of ``msgflow check --provider`` (see ``export``).
    Raises ``InvalidHistory`` when the input is not a history and ``ExportRefused`` when the provider's
    request cannot be built.
    """
    data, _ = _to_json(history)
    loadable, document_json = _msgflow.check(data, provider, openai_chat_thinking, anthropic_thinking, openai_thinking)
    if document_json is None:
        return Report(loadable=loadable, problems=(), provider=provider)
    problems = []
    for violation in json.loads(document_json)["violations"]:
        if provider is None:
            problems.append(
                Problem(
                    code=violation["kind"],
                    text=violation["text"],
                    message_index=violation["message_index"],
                    part_index=violation.get("part_index"),
                    path=violation["path"],
                    detail=violation["detail"],
                    tool_call_id=violation.get("tool_call_id"),
                    tool_name=violation.get("tool_name"),
                    turn=violation.get("turn"),
                )
            )
        else:
            problems.append(
                Problem(
                    code=violation["rule"]["id"],
                    text=violation["text"],
                    message_index=violation["message"],
                    part_index=violation.get("part"),
                    path=violation["path"],
                    detail=violation["provider_error"],
                    provider_error=violation["provider_error"],
                )
            )
    return Report(loadable=loadable, problems=tuple(problems), provider=provider)


def repair(
    history: Any,
    *,
    provider: str | None = None,
    message: str | None = None,
    keep_last_response: bool = False,
    resolve_remaining: bool = False,
) -> Repaired:
    """pydantic-ai's ``repair_messages`` (then, with ``provider``, the provider's fixes), reporting every change.

    ``message`` is the text of each synthesized tool result (default: ``default_repair_message()``);
    ``keep_last_response`` leaves the calls of the last response unanswered, for a run that resumes.
    ``resolve_remaining`` also resolves what pydantic-ai's repair leaves where nothing is lost silently
    (builtin tool calls without their return, messages without parts; each kept whole in ``.changes``),
    as ``msgflow repair --resolve-remaining``; without it the output is exactly pydantic-ai's.
    """
    data, form = _to_json(history)
    repaired, report_json = _msgflow.repair(data, provider, message, keep_last_response, resolve_remaining)
    report = json.loads(report_json)
    return Repaired(
        history=_from_json(repaired, form),
        changes=tuple(report["changes"]),
        remaining=tuple(report.get("remaining", ())),
        provider_changes=tuple(report.get("provider_changes", ())),
        unfixed=tuple(report.get("unfixed", ())),
    )


def trim(
    history: Any,
    *,
    max_tokens: int | None = None,
    keep_turns: int | None = None,
    max_bytes: int | None = None,
    tokenizer: str = "o200k_base",
    clear_tool_results_older_than: int | None = None,
    clamp_parts: int | None = None,
    harness_clear: int | None = None,
    harness_clamp: int | None = None,
) -> Trimmed:
    """Fit the history into a budget as ``msgflow trim`` does: clear, clamp, then keep the newest whole turns.

    Never separates a tool call from its result; keeps the system prompt and instructions. Give at most
    one budget. ``tokenizer`` is ``o200k_base``, ``cl100k_base``, ``chars4`` or ``calibrated``.
    ``harness_clear`` (``keep_pairs``) and ``harness_clamp`` (``max_part_chars``) are pydantic-ai-harness's
    ``ClearToolResults`` and ``ClampOversizedMessages`` (``--harness-clear``, ``--harness-clamp``). Raises
    ``DoesNotFit`` when even the newest turn exceeds the budget.
    """
    data, form = _to_json(history)
    trimmed, report_json = _msgflow.trim(
        data,
        max_tokens,
        keep_turns,
        max_bytes,
        tokenizer,
        clear_tool_results_older_than,
        clamp_parts,
        harness_clear,
        harness_clamp,
    )
    document = json.loads(report_json)
    report = document["report"]
    return Trimmed(
        history=_from_json(trimmed, form),
        tokens_before=document["tokens_before"],
        tokens_after=document["tokens_after"],
        removed=tuple(report.get("trim", {}).get("removed", ())),
        report=report,
    )


def count_tokens(history: Any, *, tokenizer: str = "o200k_base") -> TokenCount:
    """The tokens the history holds, as ``msgflow stats --tokens`` counts them."""
    data, _ = _to_json(history)
    document = json.loads(_msgflow.count_tokens(data, tokenizer))
    return TokenCount(
        tokenizer=document["tokenizer"],
        total=document["total"],
        messages=tuple(message["tokens"] for message in document["messages"]),
        by_part_kind=document["by_part_kind"],
    )


class InventedIdsWarning(UserWarning):
    """``export`` named tool parts without a ``tool_call_id`` by ids msgflow made up.

    pydantic-ai makes up a random ``pyd_ai_...`` id for such a part when it loads the history
    (``_generate_tool_call_id`` in ``pydantic_ai.messages``), so its request differs from msgflow's
    there; ``msgflow export`` prints the same text as a note on stderr.
    """


def export(
    history: Any,
    *,
    to: str,
    openai_chat_thinking: str | None = None,
    anthropic_thinking: str | None = None,
    openai_thinking: str | None = None,
) -> dict[str, Any]:
    """The request pydantic-ai would send for the history (``to``: ``anthropic``, ``openai-chat``, ``openai-responses``).

    The model profile settings, as ``msgflow export``'s flags, each refused for a provider it does not
    apply to: ``openai_chat_thinking`` (``auto``, ``tags``, ``off`` or ``field:NAME``),
    ``anthropic_thinking`` and ``openai_thinking`` (``user-turn`` or ``assistant-turn``). Raises
    ``ExportRefused`` for what pydantic-ai refuses too or msgflow does not reproduce exactly. Warns with
    ``InventedIdsWarning`` when the request names tool parts by ids msgflow made up.
    """
    data, _ = _to_json(history)
    request, invented_ids = _msgflow.export(data, to, openai_chat_thinking, anthropic_thinking, openai_thinking)
    if invented_ids is not None:
        warnings.warn(invented_ids, InventedIdsWarning, stacklevel=2)
    return json.loads(request)


def fmt(history: Any) -> bytes:
    """Exactly the bytes ``ModelMessagesTypeAdapter.dump_json`` writes for the history."""
    data, _ = _to_json(history)
    return _msgflow.fmt(data)


def _event_lines(events: Any) -> str:
    if isinstance(events, (bytes, bytearray, memoryview)):
        return bytes(events).decode("utf-8", "surrogatepass")
    if isinstance(events, str):
        return events
    if isinstance(events, Iterable):
        lines = []
        adapter = None
        for event in events:
            if isinstance(event, (bytes, bytearray)):
                lines.append(bytes(event).decode("utf-8", "surrogatepass"))
            elif isinstance(event, str):
                lines.append(event)
            elif isinstance(event, dict):
                lines.append(json.dumps(event))
            else:
                if adapter is None:
                    from pydantic import TypeAdapter
                    from pydantic_ai.messages import AgentStreamEvent

                    adapter = TypeAdapter(AgentStreamEvent)
                lines.append(adapter.dump_json(event).decode("utf-8"))
        return "\n".join(lines) + "\n"
    raise TypeError(f"expected events as JSON Lines (str or bytes) or an iterable of events, not {type(events).__name__}")


def assemble(
    events: Any,
    *,
    history: Any = None,
    model_name: str | None = None,
    provider_name: str | None = None,
    timestamp: datetime | None = None,
) -> Assembled:
    """A streamed run's events (pydantic-ai's ``AgentStreamEvent``) back to the messages it recorded.

    ``events`` is JSON Lines (one event a line, as ``TypeAdapter(AgentStreamEvent)`` dumps it) or an
    iterable of events, dicts or lines. The messages are appended to ``history`` and returned in its
    form (JSON bytes without one). ``timestamp`` stamps each response (default: now).
    """
    data, form = (None, _BYTES) if history is None else _to_json(history)
    when = (timestamp or datetime.now(timezone.utc)).astimezone(timezone.utc)
    # As pydantic writes a UTC datetime: the microseconds only when there are some.
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if when.microsecond else "%Y-%m-%dT%H:%M:%SZ")
    assembled, report_json = _msgflow.assemble(_event_lines(events), data, stamp, model_name, provider_name)
    return Assembled(history=_from_json(assembled, form), report=json.loads(report_json))



@dataclass(frozen=True)
class Loss:
    """One value a conversion dropped, invented or changed."""

    kind: str
    """``dropped``, ``invented`` or ``changed``."""
    document: int
    """The input document (0 unless the input is JSON Lines)."""
    path: str
    """The JSON path of the value in that document of the input."""
    what: str
    """What it is, e.g. ``request timestamps (pydantic-ai fills in the load time)``."""


@dataclass(frozen=True, repr=False)
class Converted(_Result):
    """A conversion between formats (``msgflow convert``)."""

    output: Any
    """The converted data: a history in the form it was given in (bytes, str, ``ModelMessage`` objects, or
    plain JSON values for input given as such), or the foreign format's JSON (bytes or str for bytes or str
    input, else plain JSON values). For JSON Lines input (one conversation a line), a list with one per line."""
    losses: tuple[Loss, ...] = field(default_factory=tuple)
    """Everything dropped, invented or changed, in input order (the CLI's notes on stderr)."""

    @property
    def lossless(self) -> bool:
        """Whether the conversion carried everything over."""
        return not self.losses

    def __repr__(self) -> str:
        return f"Converted(losses={len(self.losses)})"


def _convert_input(data: Any, from_: str) -> tuple[bytes, str]:
    if isinstance(data, (bytes, bytearray, memoryview, str)) or (from_ == "pydantic-ai" and isinstance(data, Sequence)):
        return _to_json(data)
    if isinstance(data, (list, dict)):
        return _json_values(data), _OBJECTS
    raise TypeError(f"expected the input as bytes, str, a list of ModelMessage or JSON values, not {type(data).__name__}")


def _convert_output(document: bytes, form: str, history: bool) -> Any:
    if form in (_BYTES, _STR) or (history and form in (_MESSAGES, _PYTHON)):
        return _from_json(document, form)
    return json.loads(document)


def convert(
    data: Any,
    *,
    from_: str = "pydantic-ai",
    to: str = "pydantic-ai",
    lossless: bool = False,
    strict: bool = False,
    vercel_sdk: int = 5,
    otel_version: int = 5,
) -> Converted:
    """Converts between pydantic-ai histories and the formats around them (``msgflow convert``).

    ``from_`` and ``to`` are ``pydantic-ai``, ``openai-chat``, ``anthropic``, ``vercel-ui``, ``ag-ui`` or ``otel``.
    ``lossless`` keeps what pydantic-ai's UI adapters drop, so that a history converted to ``vercel-ui`` or ``ag-ui``
    and back is unchanged;
    ``vercel_sdk`` (5 or 6) is the AI SDK version ``vercel-ui`` output is for; ``otel_version`` (2 to 6, pydantic-ai's
    default 5) the instrumentation version ``otel`` output is for. ``otel`` input may be an OTLP JSON trace export,
    which gives one history per agent run (a list). Every loss is listed in
    ``Converted.losses``; ``strict`` raises ``ConversionError`` instead of losing anything. Input that is
    not the named format raises ``ConversionError`` with its ``path``, ``line`` and ``column``.
    """
    payload, form = _convert_input(data, from_)
    documents, losses_json = _msgflow.convert(payload, from_, to, lossless, strict, vercel_sdk, otel_version)
    outputs = [_convert_output(document, form, to == "pydantic-ai") for document in documents]
    losses = tuple(Loss(**loss) for loss in json.loads(losses_json))
    return Converted(output=outputs[0] if len(outputs) == 1 else outputs, losses=losses)
