#!/usr/bin/env python3
"""Seeded, deterministic generator of synthetic coding-agent message histories.

The histories are built as real pydantic-ai objects and written with
``ModelMessagesTypeAdapter.dump_json``, so the output is exactly what pydantic-ai 2.68.0 itself would store.  The
shapes are those of the benchmark histories (``REFERENCE_MIX`` below holds their counts):

* ``big-strings``   : 5,000 messages, ~36 MB; ``read_file`` returns a pseudo source **string** (3-26 KB).
* ``big-structured``: the same history (same random draws), except that every ``read_file`` result is a list
  of ``{"line": n, "text": "..."}`` objects, one per source line (~46 MB).
* ``small``: the same conversation structure with short tool outputs, short prose and few thinking parts, meant for
  very long histories (``--shape small --messages 100000``).

``--scale F`` multiplies the default message count (5,000); ``--messages N`` asks for an exact (even) count.
``--stats`` re-reads the written file and prints counts plus structural checks as JSON on stdout (exit status 1 if
a check fails).  A one-line summary (size, generation time) always goes to stderr.

Usage::

    python gen_history.py --shape big-strings --seed 1 --out /tmp/hist_a.json --stats
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import sys
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

SHAPES = ("big-strings", "big-structured", "small")
DEFAULT_MESSAGE_COUNT = 5_000
UNANSWERED_CALLS_AT_END = 3

# The fixed vocabulary of 63 programming words used for prompts, text and thinking.
# fmt: off
VOCABULARY = (
    "function", "variable", "module", "class", "method", "return", "import", "export", "async", "await",
    "promise", "callback", "closure", "iterator", "generator", "buffer", "stream", "socket", "thread", "mutex",
    "channel", "vector", "hashmap", "string", "integer", "float", "boolean", "struct", "enum", "trait",
    "interface", "generic", "lifetime", "borrow", "reference", "pointer", "allocator", "compiler", "linker",
    "parser", "lexer", "token", "syntax", "schema", "serializer", "deserialize", "validate", "config", "request",
    "response", "handler", "router", "middleware", "database", "query", "index", "cache", "logger", "test",
    "fixture", "benchmark", "refactor", "deploy",
)
# fmt: on
assert len(VOCABULARY) == 63

# Snippets that give pseudo source code its occasional non-ASCII characters.
NON_ASCII_SNIPPETS = ("naïve", "café", "—", "✓", "naïve café — ✓")

SIGNATURE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
SIGNATURE_LENGTH = 346
HISTORY_START = datetime(2025, 6, 2, 9, 0, 0, tzinfo=UTC)

MODEL_NAME = "claude-sonnet-4-5"
MODEL_ID = "claude-sonnet-4-5-20250929"
PROVIDER_NAME = "anthropic"
PROVIDER_URL = "https://api.anthropic.com"

TOOL_NAMES = ("read_file", "run_shell", "write_file", "edit_file", "grep")


@dataclass(frozen=True)
class ConversationMix:
    """How often each kind of response content occurs.

    The generator turns these fractions into exact quotas for the requested length and shuffles them with the
    seeded RNG, so a 1x history reproduces the reference counts exactly instead of only on average.
    """

    # Share of responses (excluding the last) that make no tool call; each is followed by a user prompt.
    zero_call_fraction: float
    # Mean number of calls in a response that makes calls (each makes 1-3).
    mean_calls_per_calling_response: float
    # Among responses with 2 or 3 calls, the ratio (3-call responses) / (2-call responses).
    three_to_two_call_ratio: float
    thinking_fraction: float
    text_fraction: float
    # Relative frequency of each name in TOOL_NAMES.
    tool_weights: tuple[int, ...]


# The benchmark mix, per 2,500 responses: 192 of the first 2,499 make no call (193 user prompts = 192 + the first), the other
# 2,307 make 3,740 calls (plus the 3 unanswered ones at the end: 3,743), 1,024 thinking parts, 1,231 text parts,
# tool mix read_file 1,252 / run_shell 634 / write_file 622 / edit_file 618 / grep 617.  The 2-call / 3-call split
# (weights 55/28/17 for 1/2/3 calls) is free; it only needs to reproduce the total.
REFERENCE_MIX = ConversationMix(
    zero_call_fraction=192 / 2_499,
    mean_calls_per_calling_response=3_740 / 2_307,
    three_to_two_call_ratio=17 / 28,
    thinking_fraction=1_024 / 2_500,
    text_fraction=1_231 / 2_500,
    tool_weights=(1_252, 634, 622, 618, 617),
)


@dataclass(frozen=True)
class ShapeParams:
    """Size knobs of one history shape. Ranges are inclusive (min, max)."""

    read_file_bytes: tuple[int, int]
    write_file_bytes: tuple[int, int]
    edit_old_bytes: tuple[int, int]
    edit_new_bytes: tuple[int, int]
    shell_stdout_bytes: tuple[int, int]
    grep_matches: tuple[int, int]
    thinking_words: tuple[int, int]
    text_words: tuple[int, int]
    user_prompt_words: tuple[int, int]
    system_prompt_words: int
    first_user_prompt_words: int
    instructions_words: int
    structured_read_file: bool
    mix: ConversationMix = REFERENCE_MIX


BIG_PARAMS = ShapeParams(
    read_file_bytes=(3_000, 26_000),
    write_file_bytes=(1_500, 9_000),
    edit_old_bytes=(200, 400),
    edit_new_bytes=(280, 520),
    shell_stdout_bytes=(800, 12_000),
    grep_matches=(3, 40),
    thinking_words=(80, 400),
    text_words=(10, 150),
    user_prompt_words=(5, 80),
    system_prompt_words=400,
    first_user_prompt_words=60,
    instructions_words=200,
    structured_read_file=False,
)

SHAPE_PARAMS = {
    "big-strings": BIG_PARAMS,
    "big-structured": ShapeParams(**{**BIG_PARAMS.__dict__, "structured_read_file": True}),
    "small": ShapeParams(
        read_file_bytes=(40, 160),
        write_file_bytes=(40, 160),
        edit_old_bytes=(20, 60),
        edit_new_bytes=(20, 80),
        shell_stdout_bytes=(20, 120),
        grep_matches=(1, 2),
        thinking_words=(10, 40),
        text_words=(3, 25),
        user_prompt_words=(3, 20),
        system_prompt_words=120,
        first_user_prompt_words=20,
        instructions_words=60,
        structured_read_file=False,
        # Lean envelopes matter most at 100,000 messages: one call per tool-using response, no thinking.
        mix=ConversationMix(
            zero_call_fraction=0.3,
            mean_calls_per_calling_response=1.0,
            three_to_two_call_ratio=0.0,
            thinking_fraction=0.0,
            text_fraction=0.37,
            tool_weights=(2, 1, 1, 1, 1),
        ),
    ),
}


@dataclass(frozen=True)
class ResponsePlan:
    """What one response contains: thinking, text, and the names of its tool calls in order."""

    has_thinking: bool
    has_text: bool
    tool_names: tuple[str, ...]


def apportion(total: int, weights: Sequence[float]) -> list[int]:
    """Split ``total`` into integer shares proportional to ``weights`` (largest remainder, ties to the first)."""
    weight_sum = sum(weights)
    if total <= 0 or weight_sum <= 0:
        return [0] * len(weights)
    exact = [total * weight / weight_sum for weight in weights]
    shares = [int(value) for value in exact]
    by_remainder = sorted(range(len(weights)), key=lambda index: (-(exact[index] - shares[index]), index))
    for index in by_remainder[: total - sum(shares)]:
        shares[index] += 1
    return shares


def plan_responses(mix: ConversationMix, response_count: int, rng: random.Random) -> list[ResponsePlan]:
    """Exact per-history quotas from ``mix``, shuffled with ``rng``.

    The last response always makes ``UNANSWERED_CALLS_AT_END`` calls. Every response without calls carries text,
    because it is the agent's answer to the user.
    """
    open_count = response_count - 1  # responses before the last one
    zero_call = min(open_count, round(mix.zero_call_fraction * open_count))
    calling = open_count - zero_call
    calls = min(3 * calling, max(calling, round(mix.mean_calls_per_calling_response * calling)))
    extra = calls - calling  # calls beyond one per calling response: a 2-call adds 1, a 3-call adds 2
    three_call = min(
        calling, extra // 2, round(extra * mix.three_to_two_call_ratio / (1 + 2 * mix.three_to_two_call_ratio))
    )
    two_call = extra - 2 * three_call
    if two_call + three_call > calling:  # only reachable for tiny histories: use more 3-call responses
        three_call = extra - calling
        two_call = extra - 2 * three_call
    call_counts = [0] * zero_call + [1] * (calling - two_call - three_call) + [2] * two_call + [3] * three_call
    rng.shuffle(call_counts)
    call_counts.append(UNANSWERED_CALLS_AT_END)

    names = [
        name for name, share in zip(TOOL_NAMES, apportion(sum(call_counts), mix.tool_weights)) for _ in range(share)
    ]
    rng.shuffle(names)

    thinking = [True] * round(mix.thinking_fraction * response_count)
    thinking += [False] * (response_count - len(thinking))
    rng.shuffle(thinking)

    with_calls = [index for index, count in enumerate(call_counts) if count]
    text_with_calls = min(len(with_calls), max(0, round(mix.text_fraction * response_count) - zero_call))
    has_text = [count == 0 for count in call_counts]
    for index in rng.sample(with_calls, text_with_calls):
        has_text[index] = True

    plans = []
    next_name = 0
    for index, count in enumerate(call_counts):
        plans.append(ResponsePlan(thinking[index], has_text[index], tuple(names[next_name : next_name + count])))
        next_name += count
    return plans


class PseudoSource:
    """Draws pseudo source code lines from a seeded pool.

    A pool of a few thousand varied lines is built once; files are then sampled from it with one ``choices`` call,
    which keeps generation of tens of megabytes well under a second per megabyte in pure Python.
    """

    POOL_SIZE = 6_000
    MEAN_LINE_BYTES_ESTIMATE = 38

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.lines = [self._make_line() for _ in range(self.POOL_SIZE)]
        self.mean_line_bytes = sum(len(line.encode()) + 1 for line in self.lines) / len(self.lines)

    def _word(self) -> str:
        return self._rng.choice(VOCABULARY)

    def _make_line(self) -> str:
        rng = self._rng
        w = self._word
        if rng.random() < 0.14:  # blank lines; sets the mean line length (~36 B) of the structured shape
            return ""
        indent = " " * (4 * rng.choice((0, 1, 1, 1, 2, 2, 2, 3, 3, 4)))
        templates = (
            lambda: f"def {w()}_{w()}(self, {w()}: str, {w()}: int = 0) -> dict:",
            lambda: f'return {{"{w()}": {w()}, "{w()}": self.{w()}}}',
            lambda: f'{w()} = "{w()} \\"{w()}\\" {w()}"',
            lambda: f"if {w()} is None:",
            lambda: f'raise ValueError(f"bad {w()}: {{{w()}!r}}")',
            lambda: f"fn {w()}(&mut self, {w()}: &str) -> Result<(), Error> {{",
            lambda: "}",
            lambda: "})",
            lambda: f"let {w()} = {w()}.{w()}()?;",
            lambda: f"// TODO: {w()} the {w()} before {w()}",
            lambda: f'print("{w()}\\t{w()}\\n")',
            lambda: f"const {w()} = {w()}.map((x) => x.{w()});",
            lambda: f"\t{w()}: {w()},",
            lambda: f"for {w()} in self.{w()}s:",
            lambda: f"self.{w()}[{w()}] = {rng.randint(0, 9999)}",
            lambda: f'log.info("{w()} {{}} {w()}", {w()});',
            lambda: f"impl {w().capitalize()} for {w().capitalize()} {{",
            lambda: f'path = "C:\\\\{w()}\\\\{w()}.txt"',
            lambda: f"assert {w()} == {w()}, '{w()}'",
            lambda: f"# {w()}: {w()} {w()} {w()}",
        )
        line = indent + rng.choice(templates)()
        if rng.random() < 0.03:
            line += f"  # {rng.choice(NON_ASCII_SNIPPETS)}"
        return line

    def draw_lines(self, target_bytes: int) -> list[str]:
        """About ``target_bytes`` worth of lines (counting one newline per line)."""
        count = max(1, round(target_bytes / self.mean_line_bytes))
        return self._rng.choices(self.lines, k=count)

    def draw_text(self, target_bytes: int) -> str:
        """About ``target_bytes`` of pseudo source as one newline-terminated string."""
        return "\n".join(self.draw_lines(target_bytes)) + "\n"


class HistoryGenerator:
    """Builds one history as a list of pydantic-ai messages."""

    def __init__(self, shape: str, seed: int) -> None:
        self.shape = shape
        self.params = SHAPE_PARAMS[shape]
        # Shapes that share a structure ("big-strings" / "big-structured") draw identical random numbers; only the
        # representation of read_file results differs.
        self.rng = random.Random(seed)
        self.source = PseudoSource(self.rng)
        self._clock = HISTORY_START
        self._used_call_ids: set[str] = set()
        self.conversation_id = self._uuid()

    # ---- small helpers ---------------------------------------------------------------------------------------

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _tick(self, min_s: int, max_s: int) -> datetime:
        """Next timestamp: strictly later than the previous one, with random microseconds."""
        self._clock += timedelta(seconds=self.rng.randint(min_s, max_s), microseconds=self.rng.randint(1, 999_999))
        return self._clock

    def _words(self, count: int) -> str:
        text = " ".join(self.rng.choices(VOCABULARY, k=count))
        return text[0].upper() + text[1:] + "."

    def _words_in(self, bounds: tuple[int, int]) -> str:
        return self._words(self.rng.randint(*bounds))

    def _sentences(self, count: int) -> str:
        """Prose of ``count`` words split into sentences of 6-18 words."""
        chunks = []
        remaining = count
        while remaining > 0:
            size = min(remaining, self.rng.randint(6, 18))
            chunks.append(self._words(size))
            remaining -= size
        return " ".join(chunks)

    def _tool_call_id(self) -> str:
        while True:
            candidate = f"toolu_{self.rng.randrange(10**8):08d}"
            if candidate not in self._used_call_ids:
                self._used_call_ids.add(candidate)
                return candidate

    def _path(self) -> str:
        ext = self.rng.choice((".py", ".rs", ".ts", ".py", ".rs"))
        return f"src/{self.rng.choice(VOCABULARY)}/{self.rng.choice(VOCABULARY)}{ext}"

    def _signature(self) -> str:
        return "".join(self.rng.choices(SIGNATURE_ALPHABET, k=SIGNATURE_LENGTH))

    # ---- tool calls and their results -------------------------------------------------------------------------

    def _tool_args(self, tool_name: str) -> dict[str, Any]:
        rng = self.rng
        p = self.params
        if tool_name == "read_file":
            start = rng.randint(1, 400)
            return {"path": self._path(), "start_line": start, "end_line": start + rng.randint(50, 800)}
        if tool_name == "run_shell":
            command = rng.choice(
                (
                    f"cargo test -p {rng.choice(VOCABULARY)} -- --nocapture",
                    f"pytest tests/test_{rng.choice(VOCABULARY)}.py -x -q",
                    "git diff --stat",
                    f"rg -n '{rng.choice(VOCABULARY)}' src/",
                    f"ls -la src/{rng.choice(VOCABULARY)}",
                    "cargo clippy --all-targets -- -D warnings",
                )
            )
            return {"command": command, "timeout_s": rng.choice((30, 60, 120, 300))}
        if tool_name == "write_file":
            return {"path": self._path(), "content": self.source.draw_text(rng.randint(*p.write_file_bytes))}
        if tool_name == "edit_file":
            return {
                "path": self._path(),
                "old": self.source.draw_text(rng.randint(*p.edit_old_bytes)),
                "new": self.source.draw_text(rng.randint(*p.edit_new_bytes)),
            }
        if tool_name == "grep":
            return {
                "pattern": rng.choice(VOCABULARY) + rng.choice((r"\(", r"\s+=", "", r"_\w+")),
                "path": rng.choice(("src/", "tests/", ".")),
                "case_sensitive": rng.random() < 0.7,
            }
        raise ValueError(f"unknown tool {tool_name!r}")

    def _tool_result(self, tool_name: str, args: dict[str, Any]) -> Any:
        rng = self.rng
        p = self.params
        if tool_name == "read_file":
            lines = self.source.draw_lines(rng.randint(*p.read_file_bytes))
            if p.structured_read_file:
                first = args["start_line"]
                return [{"line": first + offset, "text": text} for offset, text in enumerate(lines)]
            return "\n".join(lines) + "\n"
        if tool_name == "grep":
            pool = self.source.lines
            return [
                {"path": self._path(), "line": rng.randint(1, 2_000), "text": rng.choice(pool).strip()}
                for _ in range(rng.randint(*p.grep_matches))
            ]
        if tool_name == "run_shell":
            exit_code = 0 if rng.random() < 0.85 else rng.choice((1, 2, 101))
            return {
                "exit_code": exit_code,
                "stdout": self.source.draw_text(rng.randint(*p.shell_stdout_bytes)),
                "stderr": "",
            }
        return "ok"  # write_file / edit_file

    # ---- messages ---------------------------------------------------------------------------------------------

    def _first_request(self, run_id: str) -> ModelRequest:
        p = self.params
        system = SystemPromptPart(content=self._sentences(p.system_prompt_words), timestamp=self._tick(0, 0))
        user = UserPromptPart(content=self._sentences(p.first_user_prompt_words), timestamp=self._tick(0, 1))
        return ModelRequest(
            parts=[system, user],
            timestamp=self._tick(0, 0),
            instructions=self._sentences(p.instructions_words),
            run_id=run_id,
            conversation_id=self.conversation_id,
        )

    def _request(self, pending: list[ToolCallPart], run_id: str) -> ModelRequest:
        parts: list[ModelRequestPart] = []
        if pending:
            for call in pending:
                assert isinstance(call.args, dict)
                content = self._tool_result(call.tool_name, call.args)
                parts.append(
                    ToolReturnPart(
                        tool_name=call.tool_name,
                        content=content,
                        tool_call_id=call.tool_call_id,
                        timestamp=self._tick(0, 4),
                    )
                )
        else:
            parts.append(
                UserPromptPart(content=self._words_in(self.params.user_prompt_words), timestamp=self._tick(5, 240))
            )
        return ModelRequest(
            parts=parts, timestamp=self._tick(0, 0), run_id=run_id, conversation_id=self.conversation_id
        )

    def _response(self, plan: ResponsePlan, run_id: str) -> ModelResponse:
        rng = self.rng
        p = self.params
        parts: list[ModelResponsePart] = []
        has_thinking = plan.has_thinking
        if has_thinking:
            parts.append(
                ThinkingPart(
                    content=self._sentences(rng.randint(*p.thinking_words)),
                    signature=self._signature(),
                    provider_name=PROVIDER_NAME,
                )
            )
        if plan.has_text:
            parts.append(TextPart(content=self._sentences(rng.randint(*p.text_words))))
        for tool_name in plan.tool_names:
            parts.append(
                ToolCallPart(tool_name=tool_name, args=self._tool_args(tool_name), tool_call_id=self._tool_call_id())
            )
        input_tokens = rng.randint(2_000, 40_000)
        output_tokens = rng.randint(20, 2_000)
        reasoning_tokens = rng.randint(10, output_tokens) if has_thinking else 0
        usage = RequestUsage(
            input_tokens=input_tokens,
            cache_read_tokens=input_tokens // 2,
            output_tokens=output_tokens,
            details={"reasoning_tokens": reasoning_tokens},
        )
        return ModelResponse(
            parts=parts,
            usage=usage,
            model_name=MODEL_NAME,
            model_id=MODEL_ID,
            timestamp=self._tick(2, 40),
            provider_name=PROVIDER_NAME,
            provider_url=PROVIDER_URL,
            provider_response_id=f"msg_{rng.getrandbits(64):016x}",
            finish_reason="tool_call" if plan.tool_names else "stop",
            run_id=run_id,
            conversation_id=self.conversation_id,
        )

    def generate(self, message_count: int) -> list[ModelMessage]:
        """A history of exactly ``message_count`` messages (even, >= 2): request/response pairs, ending on a
        response whose last ``UNANSWERED_CALLS_AT_END`` tool calls are never answered."""
        if message_count < 2 or message_count % 2:
            raise ValueError(f"message count must be even and >= 2, got {message_count}")
        plans = plan_responses(self.params.mix, message_count // 2, self.rng)
        messages: list[ModelMessage] = []
        pending: list[ToolCallPart] = []
        run_id = self._uuid()
        for pair, plan in enumerate(plans):
            if pair == 0:
                messages.append(self._first_request(run_id))
            else:
                if not pending:
                    run_id = self._uuid()  # a new user prompt starts a new agent run
                messages.append(self._request(pending, run_id))
            response = self._response(plan, run_id)
            messages.append(response)
            pending = [part for part in response.parts if isinstance(part, ToolCallPart)]
        return messages


def generate_bytes(shape: str, seed: int, message_count: int) -> bytes:
    """The JSON bytes of one history, exactly as ``ModelMessagesTypeAdapter.dump_json`` writes them."""
    history = HistoryGenerator(shape, seed).generate(message_count)
    return ModelMessagesTypeAdapter.dump_json(history)


def resolve_message_count(scale: float | None, messages: int | None) -> int:
    """Message count from ``--messages`` (exact) or ``--scale`` (times 5,000, rounded to an even number)."""
    if messages is not None:
        return messages
    factor = 1.0 if scale is None else scale
    if factor <= 0:
        raise ValueError(f"--scale must be positive, got {factor}")
    return max(2, 2 * round(DEFAULT_MESSAGE_COUNT * factor / 2))


_TIMESTAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$")
_TOOL_CALL_ID_RE = re.compile(r"^toolu_\d{8}$")


def _compact_len(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def history_stats(data: bytes) -> dict[str, Any]:
    """Counts and structural checks of a written history (parsed independently with the stdlib ``json``)."""
    messages = json.loads(data)
    kinds = Counter(message["kind"] for message in messages)
    part_kinds: Counter[str] = Counter()
    calls_by_tool: Counter[str] = Counter()
    returns_by_tool: Counter[str] = Counter()
    tool_return_bytes = 0
    read_file_line_objects = 0
    timestamps: list[str] = []
    call_ids: list[str] = []
    answered: set[str] = set()
    signature_lengths: set[int] = set()
    alternating = all(
        message["kind"] == ("request" if index % 2 == 0 else "response") for index, message in enumerate(messages)
    )
    for message in messages:
        for part in message["parts"]:
            kind = part["part_kind"]
            part_kinds[kind] += 1
            if "timestamp" in part:
                timestamps.append(part["timestamp"])
            if kind == "tool-call":
                calls_by_tool[part["tool_name"]] += 1
                call_ids.append(part["tool_call_id"])
            elif kind == "tool-return":
                returns_by_tool[part["tool_name"]] += 1
                answered.add(part["tool_call_id"])
                tool_return_bytes += _compact_len(part)
                if part["tool_name"] == "read_file" and isinstance(part["content"], list):
                    read_file_line_objects += len(part["content"])
            elif kind == "thinking":
                signature_lengths.add(len(part["signature"] or ""))
        if message["timestamp"] is not None:
            timestamps.append(message["timestamp"])
    parsed_times = [datetime.fromisoformat(ts) for ts in timestamps]
    last = messages[-1] if messages else {}
    unanswered = [call_id for call_id in call_ids if call_id not in answered]
    last_call_ids = [part["tool_call_id"] for part in last.get("parts", []) if part["part_kind"] == "tool-call"]
    checks = {
        "alternating_starting_with_request": alternating and bool(messages),
        "ends_on_response_with_3_unanswered_calls": last.get("kind") == "response"
        and len(last_call_ids) == UNANSWERED_CALLS_AT_END
        and unanswered == last_call_ids,
        "timestamps_utc_z_format": all(_TIMESTAMP_RE.match(ts) for ts in timestamps),
        "timestamps_strictly_increasing": all(a < b for a, b in itertools.pairwise(parsed_times)),
        "tool_call_ids_toolu_8_digits_unique": all(_TOOL_CALL_ID_RE.match(c) for c in call_ids)
        and len(set(call_ids)) == len(call_ids),
        "thinking_signatures_346_chars": signature_lengths <= {SIGNATURE_LENGTH},
        "contains_non_ascii": not data.isascii(),
    }
    return {
        "bytes": len(data),
        "messages": len(messages),
        "requests": kinds["request"],
        "responses": kinds["response"],
        "parts": sum(part_kinds.values()),
        "part_kinds": dict(part_kinds.most_common()),
        "tool_calls_by_tool": dict(calls_by_tool.most_common()),
        "tool_returns_by_tool": dict(returns_by_tool.most_common()),
        "unanswered_tool_calls": len(unanswered),
        "tool_return_part_bytes": tool_return_bytes,
        "read_file_line_objects": read_file_line_objects,
        "checks": checks,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=SHAPES, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--out", required=True, help="output file (JSON array of messages)")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--scale", type=float, help="multiply the default 5,000 messages (1x/4x/16x scaling runs)")
    size.add_argument("--messages", type=int, help="exact message count (even)")
    parser.add_argument("--stats", action="store_true", help="print counts and structural checks (JSON, stdout)")
    args = parser.parse_args(argv)

    try:
        message_count = resolve_message_count(args.scale, args.messages)
        started = time.perf_counter()
        data = generate_bytes(args.shape, args.seed, message_count)
    except ValueError as error:
        parser.error(str(error))
    with open(args.out, "wb") as handle:
        handle.write(data)
    elapsed = time.perf_counter() - started
    print(
        f"wrote {args.out}: shape={args.shape} seed={args.seed} messages={message_count} "
        f"bytes={len(data)} in {elapsed:.2f}s",
        file=sys.stderr,
    )
    if args.stats:
        stats = history_stats(data)
        stats.update(shape=args.shape, seed=args.seed, generation_s=round(elapsed, 3))
        print(json.dumps(stats, indent=2))
        if not all(stats["checks"].values()):
            print("gen_history: a structural check failed", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
