"""pydantic-ai 2.68.0's own stream machinery, driven for msgflow's streaming differential checks.

``manager --seed S --cases N`` drives ``ModelResponsePartsManager`` with N seeded random delta
sequences (every handler; vendor ids reused and interleaved; parallel tool calls; embedded
``<think>`` tags; dict and string arguments; whole parts mixed in; cut off at random points) and
writes one JSON line per case:

    {"ops": [...], "results": [{"events": [...], "error": kind | null}, ...],
     "parts": [...], "replay": {"parts": [...], "error": kind | null}}

``events`` are the events each call yielded, each dumped with ``TypeAdapter(ModelResponseStreamEvent)``
right when it was yielded (as an application logs or forwards it); ``parts`` is ``get_parts()`` after
the last op, dumped with ``TypeAdapter(list[ModelResponsePart])``; ``replay`` is what ``apply_event``
makes of all the emitted events in a fresh manager. ``error`` names what pydantic-ai raised
(``wrong_part_kind``, ``empty_thinking_part``, ``args_mismatch``, ``unknown_index``,
``replay_kind_mismatch``); the manager is then driven on, as its state is unchanged.

``runs --seed S --count N`` runs N seeded ``Agent.run_stream_events`` runs on ``FunctionModel``
(streamed thinking, text and tool calls in pieces, tools that run, some runs cancelled at a random
event) and writes one JSON line per run: ``{"history": [...], "log": "<JSON lines>", "messages": [...]}``
with the history the run started from, its event log (``TypeAdapter(AgentStreamEvent)``, one event
per line, up to the cancel) and the messages the run added (``all_messages()`` after it).

Tool-call ids that pydantic-ai would generate at random are ``gen_<n>`` (counting from 0 per case and
per manager) so that both sides are reproducible; msgflow's manager takes the same counter.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

import oracle_common  # noqa: F401  (pins the environment before pydantic-ai is imported)

import pydantic
import pydantic_core
from pydantic_ai import _parts_manager, messages as m
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.models import ModelRequestParameters

EVENT_TA = pydantic.TypeAdapter(m.ModelResponseStreamEvent)
PARTS_TA = pydantic.TypeAdapter(list[m.ModelResponsePart])
PART_TA = pydantic.TypeAdapter(m.ModelResponsePart)

_counter = [0]


def _next_id() -> str:
    value = f"gen_{_counter[0]}"
    _counter[0] += 1
    return value


# `as_part`, `_apply_to_delta` (messages.py) and `handle_tool_call_part` (_parts_manager.py) call these.
m._generate_tool_call_id = _next_id  # noqa: SLF001
_parts_manager._generate_tool_call_id = _next_id  # noqa: SLF001

TAGS = ("<think>", "</think>")
WORDS = ["Hello", " world", "", " ", "\n", "  \n\t", "\x1c", "\u3000", "é", "日本", "\"q\"", "\\", "<think>",
         "</think>", "a\u0000b", "\U0001f600", "tab\t", "line\r\n"]
ARG_FRAGMENTS = ['{"', 'path', '":', ' "a.rs"', '}', '', '{"n": 1', ', "m": [1, 2.5e10, null]}', '"', '\\u00e9',
                 '{}', ' ', 'not json']
TOOL_NAMES = ["read_file", "run_shell", "get_", "weather", "", "final_result"]


def rand_dict(rng: random.Random) -> dict:
    keys = ["a", "b", "path", "n", "é", "nested"]
    out = {}
    for _ in range(rng.randint(0, 3)):
        key = rng.choice(keys)
        out[key] = rng.choice([1, -2, 3.5, 1e100, 12345678901234567890, "x", None, True, [1, "y"], {"k": "v"}])
    return out


# Vendor ids by op family, with a few shared between families (which makes pydantic-ai raise).
VENDORS = {"text": [0, 1, "a", "msg_1"], "thinking": [4, "a", "th"], "tool": [2, 3, 7, "b", "msg_1"]}


def rand_vendor(rng: random.Random, used: dict, family: str):
    roll = rng.random()
    if roll < 0.2:
        return None
    mine = used.setdefault(family, [])
    if mine and roll < 0.75:
        return rng.choice(mine)
    vendor = rng.choice(VENDORS[family])
    if vendor not in mine:
        mine.append(vendor)
    return vendor


def maybe(rng: random.Random, make, probability: float = 0.3):
    return make() if rng.random() < probability else None


def rand_provider_details(rng: random.Random):
    return maybe(rng, lambda: rng.choice([{}, {"k": 1}, {"k": 2, "z": "y"}, {"citations": []}]), 0.2)


def rand_provider_name(rng: random.Random):
    return maybe(rng, lambda: rng.choice(["openai", "anthropic", ""]), 0.25)


def rand_part(rng: random.Random) -> dict:
    kind = rng.choice(["text", "thinking", "tool-call", "builtin-tool-call", "file"])
    if kind == "text":
        part = m.TextPart(content=rng.choice(WORDS), id=maybe(rng, lambda: "t1"),
                          provider_name=rand_provider_name(rng), provider_details=rand_provider_details(rng))
    elif kind == "thinking":
        part = m.ThinkingPart(content=rng.choice(WORDS), signature=maybe(rng, lambda: "sig"),
                              provider_name=rand_provider_name(rng), provider_details=rand_provider_details(rng))
    elif kind == "tool-call":
        args = rng.choice([None, "", '{"a": 1}', rand_dict(rng)])
        part = m.ToolCallPart(tool_name=rng.choice(TOOL_NAMES), args=args, tool_call_id=f"call_{rng.randint(0, 9)}",
                              provider_name=rand_provider_name(rng))
    elif kind == "builtin-tool-call":
        args = rng.choice([None, '{"q": "x"}', rand_dict(rng)])
        part = m.NativeToolCallPart(tool_name="web_search", args=args, tool_call_id=f"ws_{rng.randint(0, 9)}",
                                    provider_name="anthropic")
    else:
        part = m.FilePart(content=m.BinaryContent(data=b"\x89PNG", media_type="image/png"))
    return json.loads(PART_TA.dump_json(part))


def rand_op(rng: random.Random, used: list) -> dict:
    kind = rng.choices(["text", "thinking", "tool_call_delta", "tool_call_part", "part"], [5, 3, 6, 1, 1])[0]
    family = {"text": "text", "thinking": "thinking"}.get(kind, "tool")
    vendor = rand_vendor(rng, used, family)
    if kind == "text":
        return {"op": "text", "vendor_part_id": vendor, "content": rng.choice(WORDS),
                "id": maybe(rng, lambda: "txt_1", 0.1), "provider_name": rand_provider_name(rng),
                "provider_details": rand_provider_details(rng),
                "thinking_tags": list(TAGS) if rng.random() < 0.4 else None,
                "ignore_leading_whitespace": rng.random() < 0.3}
    if kind == "thinking":
        return {"op": "thinking", "vendor_part_id": vendor,
                "content": maybe(rng, lambda: rng.choice(WORDS), 0.8), "id": maybe(rng, lambda: "th_1", 0.1),
                "signature": maybe(rng, lambda: rng.choice(["sig", "", "sig2"]), 0.2),
                "provider_name": rand_provider_name(rng), "provider_details": rand_provider_details(rng)}
    if kind == "tool_call_delta":
        roll = rng.random()
        args = rng.choice(ARG_FRAGMENTS) if roll < 0.65 else (rand_dict(rng) if roll < 0.85 else None)
        return {"op": "tool_call_delta", "vendor_part_id": vendor,
                "tool_name": maybe(rng, lambda: rng.choice(TOOL_NAMES), 0.35), "args": args,
                "tool_call_id": maybe(rng, lambda: rng.choice(["call_1", "call_2", ""]), 0.25),
                "provider_name": rand_provider_name(rng), "provider_details": rand_provider_details(rng)}
    if kind == "tool_call_part":
        return {"op": "tool_call_part", "vendor_part_id": vendor, "tool_name": rng.choice(TOOL_NAMES),
                "args": rng.choice([None, "", '{"x": 1}', rand_dict(rng)]),
                "tool_call_id": maybe(rng, lambda: rng.choice(["call_9", ""]), 0.5), "id": maybe(rng, lambda: "p1"),
                "provider_name": rand_provider_name(rng), "provider_details": rand_provider_details(rng)}
    return {"op": "part", "vendor_part_id": vendor, "part": rand_part(rng)}


def error_kind(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, UnexpectedModelBehavior):
        if text.startswith("Cannot create a ThinkingPart"):
            return "empty_thinking_part"
        if "JSON deltas" in text or "dict deltas" in text:
            return "args_mismatch"
        if text.startswith("Cannot apply a "):
            return "wrong_part_kind"
    if isinstance(exc, AssertionError):
        return "unknown_index"
    if isinstance(exc, ValueError):
        return "replay_kind_mismatch"
    raise exc


def run_op(manager: _parts_manager.ModelResponsePartsManager, op: dict) -> list:
    kind = op["op"]
    vendor = op["vendor_part_id"]
    if kind == "text":
        tags = op["thinking_tags"]
        return list(manager.handle_text_delta(
            vendor_part_id=vendor, content=op["content"], id=op["id"], provider_name=op["provider_name"],
            provider_details=op["provider_details"], thinking_tags=tuple(tags) if tags else None,
            ignore_leading_whitespace=op["ignore_leading_whitespace"]))
    if kind == "thinking":
        return list(manager.handle_thinking_delta(
            vendor_part_id=vendor, content=op["content"], id=op["id"], signature=op["signature"],
            provider_name=op["provider_name"], provider_details=op["provider_details"]))
    if kind == "tool_call_delta":
        event = manager.handle_tool_call_delta(
            vendor_part_id=vendor, tool_name=op["tool_name"], args=op["args"], tool_call_id=op["tool_call_id"],
            provider_name=op["provider_name"], provider_details=op["provider_details"])
        return [] if event is None else [event]
    if kind == "tool_call_part":
        return [manager.handle_tool_call_part(
            vendor_part_id=vendor, tool_name=op["tool_name"], args=op["args"], tool_call_id=op["tool_call_id"],
            id=op["id"], provider_name=op["provider_name"], provider_details=op["provider_details"])]
    return [manager.handle_part(vendor_part_id=vendor, part=PART_TA.validate_python(op["part"]))]


def new_manager() -> _parts_manager.ModelResponsePartsManager:
    _counter[0] = 0
    return _parts_manager.ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())


def dump_parts(manager) -> list:
    return json.loads(PARTS_TA.dump_json(manager.get_parts()))


def manager_case(rng: random.Random) -> dict:
    used: dict = {}
    ops = [rand_op(rng, used) for _ in range(rng.randint(1, 40))]
    manager = new_manager()
    results = []
    emitted = []
    for op in ops:
        events: list = []
        error = None
        try:
            for event in run_op(manager, op):
                # Dumped when yielded, as a consumer forwards it.
                dumped = EVENT_TA.dump_json(event).decode()
                events.append(dumped)
                emitted.append(dumped)
        except (UnexpectedModelBehavior, AssertionError, ValueError) as exc:
            error = error_kind(exc)
        results.append({"events": events, "error": error})
    parts = dump_parts(manager)

    replayer = new_manager()
    replay_error = None
    for dumped in emitted:
        try:
            replayer.apply_event(EVENT_TA.validate_json(dumped))
        except (UnexpectedModelBehavior, AssertionError, ValueError) as exc:
            replay_error = error_kind(exc)
            break
    return {"ops": ops, "results": results, "parts": parts,
            "replay": {"parts": dump_parts(replayer), "error": replay_error}}


AGENT_EVENT_TA = pydantic.TypeAdapter(m.AgentStreamEvent)
MESSAGES_TA = pydantic.TypeAdapter(list[m.ModelMessage])


def rand_turn(rng: random.Random, final: bool) -> list:
    """The chunks one streamed model turn yields: thinking, text and (unless final) tool calls."""
    from pydantic_ai.models.function import DeltaThinkingPart, DeltaToolCall

    chunks: list = []
    if rng.random() < 0.5:
        for piece in rng.sample(["Let me ", "look at ", "the file", ".", " Then test."], rng.randint(1, 4)):
            chunks.append({0: DeltaThinkingPart(content=piece)})
        if rng.random() < 0.3:
            chunks.append({0: DeltaThinkingPart(signature="sig_" + str(rng.randint(0, 99)))})
    for piece in rng.sample(["I'll ", "read ", "it ", "now", ".", " 日本", "\n"], rng.randint(0, 5)):
        chunks.append(piece)
    if not final:
        for call in range(rng.randint(1, 3)):
            tool, args = rng.choice([("read_file", '{"path": "src/app.py"}'), ("run_shell", '{"command": "pytest -q"}')])
            cuts = sorted(rng.sample(range(1, len(args)), rng.randint(1, 4)))
            pieces = [args[a:b] for a, b in zip([0, *cuts], [*cuts, len(args)])]
            index = 1 + call
            chunks.append({index: DeltaToolCall(name=tool, json_args=pieces[0], tool_call_id=f"call_{call}")})
            chunks.extend({index: DeltaToolCall(json_args=piece)} for piece in pieces[1:])
    if not chunks:
        chunks.append("Done.")
    return chunks


async def one_run(rng: random.Random) -> dict:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    turns = [rand_turn(rng, final=False), rand_turn(rng, final=True)]
    if rng.random() < 0.3:
        turns = [rand_turn(rng, final=True)]

    async def stream(messages: list, info: AgentInfo):
        answered = sum(isinstance(p, m.ModelResponse) for p in messages)
        for chunk in turns[min(answered, len(turns) - 1)]:
            yield chunk

    agent = Agent(FunctionModel(stream_function=stream))

    @agent.tool_plain
    def read_file(path: str) -> str:
        return f"contents of {path}"

    @agent.tool_plain
    def run_shell(command: str) -> str:
        return "3 passed"

    cancel_at = rng.randint(1, 40) if rng.random() < 0.5 else None
    lines = []
    async with agent.run_stream_events("fix the tests") as run:
        history_len = 1
        try:
            async for event in run:
                if not hasattr(event, "event_kind"):
                    continue  # the trailing AgentRunResultEvent
                lines.append(AGENT_EVENT_TA.dump_json(event).decode())
                if cancel_at is not None and len(lines) == cancel_at:
                    run.cancel()
        except Exception:  # noqa: BLE001 - RunCancelled ends a cancelled run
            pass
        messages = run.all_messages()
    return {
        "history": json.loads(MESSAGES_TA.dump_json(messages[:history_len])),
        "log": "".join(line + "\n" for line in lines),
        "messages": json.loads(MESSAGES_TA.dump_json(messages[history_len:])),
        "cancelled_at": cancel_at,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    manager = sub.add_parser("manager")
    manager.add_argument("--seed", type=int, required=True)
    manager.add_argument("--cases", type=int, required=True)
    runs = sub.add_parser("runs")
    runs.add_argument("--seed", type=int, required=True)
    runs.add_argument("--count", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    if args.command == "runs":
        import asyncio
        import warnings

        warnings.simplefilter("ignore")
        for _ in range(args.count):
            out.write(pydantic_core.to_json(asyncio.run(one_run(rng))).decode())
            out.write("\n")
        return
    for _ in range(args.cases):
        # pydantic-core's JSON, so that numbers are spelled as pydantic-ai spells them.
        out.write(pydantic_core.to_json(manager_case(rng)).decode())
        out.write("\n")


if __name__ == "__main__":
    main()
