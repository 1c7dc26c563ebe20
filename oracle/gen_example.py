"""Write examples/interrupted-session.json: a realistic coding-agent session that was interrupted.

A user asks a pydantic-ai agent for a change; the agent reads files, searches and edits, and runs
the tests; the user aborts while the last two tool calls are running and types a new prompt. The
history is what pydantic-ai persists at that point (its own `dump_json`), with the aborted
response's calls left unanswered: the case `msgflow repair` exists for.

Run with the pydantic-ai 2.68.0 venv: `target/venv/bin/python oracle/gen_example.py --out examples/interrupted-session.json`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from datetime import datetime, timedelta, timezone

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

FILES = {
    "src/config.py": 'import os\n\nTIMEOUT = 30\n\n\ndef load_timeout() -> int:\n    """Seconds before a request is abandoned."""\n    return int(os.environ.get("APP_TIMEOUT", TIMEOUT))\n',
    "src/client.py": 'from .config import load_timeout\n\n\nclass Client:\n    def __init__(self, base_url: str):\n        self.base_url = base_url\n        self.timeout = load_timeout()\n\n    def get(self, path: str) -> bytes:\n        return fetch(self.base_url + path, timeout=self.timeout)\n',
}

PLAN = [
    # (thinking, text, [(tool, args)])
    (
        "The user wants the timeout to be configurable per client. I should read the config and the client first.",
        "I'll start by reading the configuration and the client.",
        [("read_file", {"path": "src/config.py"}), ("read_file", {"path": "src/client.py"})],
    ),
    (
        "load_timeout is used by Client.__init__. Let me check other call sites before changing the signature.",
        None,
        [("grep", {"pattern": "load_timeout", "path": "src"})],
    ),
    (
        None,
        "Only the client uses it. I'll add a `timeout` parameter to `Client` and run the tests.",
        [
            (
                "edit_file",
                {
                    "path": "src/client.py",
                    "old": "    def __init__(self, base_url: str):\n        self.base_url = base_url\n        self.timeout = load_timeout()",
                    "new": "    def __init__(self, base_url: str, timeout: int | None = None):\n        self.base_url = base_url\n        self.timeout = timeout if timeout is not None else load_timeout()",
                },
            ),
            ("run_shell", {"command": "pytest -q tests/test_client.py", "timeout_s": 120}),
        ],
    ),
]

START = datetime(2026, 3, 14, 9, 26, 53, 589793, tzinfo=timezone.utc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    clock = iter(START + timedelta(seconds=7 * i, microseconds=137 * i) for i in range(1000))
    step = iter(range(len(PLAN)))
    call_ids = iter(f"toolu_01{n:06d}" for n in range(100, 200))

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        index = next(step)
        thinking, text, calls = PLAN[index]
        parts = []
        if thinking:
            parts.append(ThinkingPart(content=thinking, signature="EqQBCkYIBxgCKkB" + "x" * 64, provider_name="anthropic"))
        if text:
            parts.append(TextPart(content=text))
        for tool, tool_args in calls:
            parts.append(ToolCallPart(tool_name=tool, args=tool_args, tool_call_id=next(call_ids)))
        return ModelResponse(
            parts=parts,
            usage=RequestUsage(input_tokens=1850 + 900 * index, output_tokens=120 + 40 * index, cache_read_tokens=1024),
            model_name="claude-sonnet-4-5",
            timestamp=next(clock),
            provider_name="anthropic",
            provider_response_id=f"msg_01{index:04d}abcdef",
            finish_reason="tool_call",
        )

    agent = Agent(FunctionModel(model), system_prompt="You are a careful coding agent. Make minimal, tested changes.")

    @agent.tool_plain
    def read_file(path: str) -> str:
        return FILES[path]

    @agent.tool_plain
    def grep(pattern: str, path: str) -> list[dict]:
        return [{"path": "src/client.py", "line": 1, "text": "from .config import load_timeout"},
                {"path": "src/client.py", "line": 7, "text": "        self.timeout = load_timeout()"}]

    @agent.tool_plain
    def edit_file(path: str, old: str, new: str) -> str:
        raise KeyboardInterrupt  # never reached: the session is cut before

    @agent.tool_plain
    def run_shell(command: str, timeout_s: int) -> dict:
        raise KeyboardInterrupt

    # Run until the third response (whose tools are "running" when the user aborts).
    # FunctionModel names itself "function:model:"; record the model the session pretends to use.
    messages = [
        dataclasses.replace(m, model_name="claude-sonnet-4-5") if isinstance(m, ModelResponse) else m
        for m in _run_until_abort(agent)
    ]

    # The user pressed Ctrl+C while edit_file and run_shell were running, then typed a new prompt.
    messages.append(
        ModelRequest(
            parts=[UserPromptPart(content="Stop. Don't touch client.py; add the parameter to load_timeout instead.", timestamp=next(clock))],
            timestamp=None,
        )
    )
    data = ModelMessagesTypeAdapter.dump_json(messages)
    assert ModelMessagesTypeAdapter.dump_json(ModelMessagesTypeAdapter.validate_json(data)) == data
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {len(messages)} messages, {len(data)} bytes")


def _run_until_abort(agent: Agent) -> list[ModelMessage]:
    import asyncio

    async def go() -> list[ModelMessage]:
        async with agent.iter(
            "Make the request timeout configurable per Client instance, keeping the env var as the default."
        ) as run:
            node = run.next_node
            while True:
                node = await run.next(node)
                messages = run.ctx.state.message_history
                last = messages[-1] if messages else None
                # Stop once the third response is in: its tools are what the user interrupted.
                if isinstance(last, ModelResponse) and sum(isinstance(m, ModelResponse) for m in messages) == len(PLAN):
                    return list(messages)

    return asyncio.run(go())


if __name__ == "__main__":
    main()
