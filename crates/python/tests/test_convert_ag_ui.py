"""`msgflow.convert` with ``ag-ui``: histories to and from AG-UI protocol messages.

Equality with pydantic-ai's own ``AGUIAdapter`` on thousands of histories is checked by
`cargo xtask conformance --only ag-ui`; these tests check the Python surface: forms in and out, the loss list,
``strict``, ``lossless`` and the errors. They need ag-ui-protocol (``oracle/requirements-ui-formats.txt``).
"""

from __future__ import annotations

import json

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.ui.ag_ui import AGUIAdapter
from pydantic_ai.ui.ag_ui._adapter import _messages_ta

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
                    "content": {"sky": "sunny"},
                    "tool_call_id": "c1",
                    "timestamp": "2025-01-02T03:04:07Z",
                }
            ],
        },
        {"kind": "response", "parts": [{"part_kind": "text", "content": "Sunny."}], "timestamp": "2025-01-02T03:04:08Z"},
    ]
)


def without_ids(messages: list[dict]) -> list[dict]:
    """pydantic-ai gives each AG-UI message a random UUID4, msgflow a UUID5 of its place."""
    return [{key: value for key, value in message.items() if key != "id"} for message in messages]


def test_to_ag_ui_equals_pydantic_ai_dump_messages() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(HISTORY)
    converted = msgflow.convert(messages, to="ag-ui")
    expected = _messages_ta.dump_python(AGUIAdapter.dump_messages(messages), mode="json", by_alias=True)
    assert without_ids(converted.output) == without_ids(expected)
    assert [message["role"] for message in converted.output] == ["user", "assistant", "tool", "assistant"]
    # The parts' timestamps do not survive: listed, with their paths in the history.
    assert any(loss.path == "$[2].parts[0].timestamp" and loss.kind == "dropped" for loss in converted.losses)
    assert not converted.lossless


def test_from_ag_ui_in_every_form_equals_pydantic_ai_load_messages() -> None:
    ag_ui = msgflow.convert(HISTORY, to="ag-ui").output
    assert isinstance(ag_ui, str)
    as_bytes = msgflow.convert(ag_ui.encode(), from_="ag-ui")
    assert isinstance(as_bytes.output, bytes)
    as_str = msgflow.convert(ag_ui, from_="ag-ui")
    assert as_str.output == as_bytes.output.decode()
    run_input = {"threadId": "t", "runId": "r", "messages": json.loads(ag_ui)}
    as_values = msgflow.convert(run_input, from_="ag-ui")
    assert as_values.output == json.loads(as_bytes.output)
    assert any(loss.path == "$.threadId" and loss.kind == "dropped" for loss in as_values.losses)
    loaded = ModelMessagesTypeAdapter.validate_json(as_bytes.output)
    assert [type(message) for message in loaded] == [ModelRequest, ModelResponse, ModelRequest, ModelResponse]
    assert isinstance(loaded[1].parts[0], ToolCallPart)
    assert isinstance(loaded[3].parts[0], TextPart)
    theirs = AGUIAdapter.load_messages(_messages_ta.validate_json(ag_ui))
    assert [message.metadata for message in loaded] == [message.metadata for message in theirs]
    assert [[part.part_kind for part in message.parts] for message in loaded] == [
        [part.part_kind for part in message.parts] for message in theirs
    ]


def test_lossless_round_trip_is_the_identity() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(HISTORY)
    ag_ui = msgflow.convert(messages, to="ag-ui", lossless=True)
    assert ag_ui.lossless
    back = msgflow.convert(ag_ui.output, from_="ag-ui", lossless=True)
    assert back.output == ModelMessagesTypeAdapter.dump_python(messages, mode="json")
    # pydantic-ai loads the lossless form as it loads its own.
    assert len(AGUIAdapter.load_messages(_messages_ta.validate_python(ag_ui.output))) == 4


def test_strict_refuses_a_loss() -> None:
    with pytest.raises(msgflow.ConversionError) as raised:
        msgflow.convert(HISTORY, to="ag-ui", strict=True)
    assert "refusing a lossy conversion" in str(raised.value)
    assert msgflow.convert(HISTORY, to="ag-ui", strict=True, lossless=True).lossless


def test_input_that_is_not_ag_ui_is_an_error_with_its_place() -> None:
    with pytest.raises(msgflow.ConversionError) as raised:
        msgflow.convert('[\n {"id": "a", "role": "tool",\n  "toolCallId": "c9", "content": "x"}]', from_="ag-ui")
    assert raised.value.path == "$[0].toolCallId"
    assert (raised.value.line, raised.value.column) == (3, 17)
    assert "not in the history" in str(raised.value)
