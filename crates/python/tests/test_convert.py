"""`msgflow.convert`: histories to and from OpenAI Chat messages, Vercel AI UI messages and OTel span messages.

Equality with pydantic-ai's own adapter is checked by `cargo xtask conformance --only vercel-ui`; these
tests check the Python surface: forms in and out, the loss list, `strict`, `lossless` and the errors.
"""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from pydantic_ai.ui.vercel_ai._adapter import _ui_messages_ta

import msgflow

HISTORY = json.dumps(
    [
        {
            "kind": "request",
            "parts": [{"part_kind": "user-prompt", "content": "weather?", "timestamp": "2025-01-02T03:04:05Z"}],
            "timestamp": "2025-01-02T03:04:05Z",
        },
        {
            "kind": "response",
            "parts": [{"part_kind": "tool-call", "tool_name": "weather", "args": {"city": "Paris"}, "tool_call_id": "c1"}],
            "timestamp": "2025-01-02T03:04:06Z",
        },
        {
            "kind": "request",
            "parts": [
                {
                    "part_kind": "tool-return",
                    "tool_name": "weather",
                    "content": "sunny",
                    "tool_call_id": "c1",
                    "timestamp": "2025-01-02T03:04:07Z",
                }
            ],
        },
        {"kind": "response", "parts": [{"part_kind": "text", "content": "Sunny."}], "timestamp": "2025-01-02T03:04:08Z"},
    ]
)


def test_to_vercel_ui_equals_pydantic_ai_dump_messages() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(HISTORY)
    for version in (5, 6):
        converted = msgflow.convert(messages, to="vercel-ui", vercel_sdk=version)
        expected = _ui_messages_ta.dump_python(
            VercelAIAdapter.dump_messages(messages, sdk_version=version), mode="json", by_alias=True
        )
        assert converted.output == expected
        # The parts' timestamps do not survive: listed, with their paths in the history.
        assert any(loss.path == "$[2].parts[0].timestamp" and loss.kind == "dropped" for loss in converted.losses)
        assert not converted.lossless


def test_from_vercel_ui_in_every_form() -> None:
    ui = msgflow.convert(HISTORY, to="vercel-ui").output
    assert isinstance(ui, str)
    as_bytes = msgflow.convert(ui.encode(), from_="vercel-ui")
    assert isinstance(as_bytes.output, bytes)
    as_str = msgflow.convert(ui, from_="vercel-ui")
    assert as_str.output == as_bytes.output.decode()
    as_values = msgflow.convert(json.loads(ui), from_="vercel-ui")
    assert as_values.output == json.loads(as_bytes.output)
    loaded = ModelMessagesTypeAdapter.validate_json(as_bytes.output)
    assert [type(message) for message in loaded] == [ModelRequest, ModelResponse, ModelRequest, ModelResponse]
    assert isinstance(loaded[1].parts[0], ToolCallPart)
    assert isinstance(loaded[3].parts[0], TextPart)


def test_lossless_round_trip_is_the_identity() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(HISTORY)
    ui = msgflow.convert(messages, to="vercel-ui", lossless=True)
    assert ui.lossless
    assert [message["role"] for message in ui.output] == ["user", "assistant"]
    back = msgflow.convert(ui.output, from_="vercel-ui", lossless=True)
    assert back.output == ModelMessagesTypeAdapter.dump_python(messages, mode="json")
    objects = msgflow.convert(json.dumps(ui.output), from_="vercel-ui", lossless=True)
    assert ModelMessagesTypeAdapter.validate_json(objects.output) == messages


def test_strict_refuses_a_loss() -> None:
    with pytest.raises(msgflow.ConversionError) as raised:
        msgflow.convert(HISTORY, to="vercel-ui", strict=True)
    assert raised.value.path == "$[0].parts[0].timestamp"
    assert "refusing a lossy conversion" in str(raised.value)
    assert msgflow.convert(HISTORY, to="vercel-ui", strict=True, lossless=True).lossless


def test_input_that_is_not_the_format_is_an_error_with_its_place() -> None:
    with pytest.raises(msgflow.ConversionError) as raised:
        msgflow.convert('[\n  {"id": "a", "role": "robot", "parts": []}\n]', from_="vercel-ui")
    error = raised.value
    assert (error.path, error.line, error.column, error.document) == ("$[0].role", 2, 23, 0)
    assert "expected `system`, `user` or `assistant`" in error.detail
    with pytest.raises(msgflow.ConversionError) as raised:
        msgflow.convert(b'[{"role": "user", "content": "hi"}]\n{"messages": 3}\n', from_="openai-chat")
    assert (raised.value.document, raised.value.path, raised.value.line) == (1, "$.messages", 2)
    with pytest.raises(ValueError, match="unknown format"):
        msgflow.convert(HISTORY, to="yaml")
    with pytest.raises(ValueError, match="vercel_sdk"):
        msgflow.convert(HISTORY, to="vercel-ui", vercel_sdk=4)


def test_json_lines_give_one_output_per_line() -> None:
    lines = b'{"messages": [{"role": "user", "content": "a"}]}\n{"messages": [{"role": "user", "content": "b"}]}\n'
    converted = msgflow.convert(lines, from_="openai-chat")
    assert isinstance(converted.output, list) and len(converted.output) == 2
    assert {loss.document for loss in converted.losses} == {0, 1}


def test_to_otel_equals_pydantic_ai_instrumentation_at_every_version() -> None:
    import warnings

    from pydantic_ai.models.instrumented import InstrumentationSettings

    messages = ModelMessagesTypeAdapter.validate_json(HISTORY)

    class Span:
        attributes: dict = {}

        def set_attributes(self, attributes: dict) -> None:
            self.attributes = attributes

    for version in (2, 3, 4, 5, 6):
        converted = msgflow.convert(messages, to="otel", otel_version=version)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # versions 2 to 4 are deprecated
            settings = InstrumentationSettings(version=version)
        span = Span()
        settings.handle_messages(messages[:-1], messages[-1], span)
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            assert converted.output[key] == json.loads(span.attributes[key]), (version, key)
        assert any(loss.kind == "dropped" and loss.path.endswith(".timestamp") for loss in converted.losses)
    with pytest.raises(msgflow.ConversionError, match="versions 2 to 6"):
        msgflow.convert(messages, to="otel", otel_version=1)


def test_an_otlp_trace_export_gives_one_history_per_agent_run() -> None:
    runs = msgflow.convert((EXAMPLES / "agent-runs.otlp.json").read_text(), from_="otel")
    assert [len(ModelMessagesTypeAdapter.validate_json(run)) for run in runs.output] == [4, 2]
    assert any("timestamps" in loss.what for loss in runs.losses)
