"""The functions, their result objects, and history forms in and out."""

from __future__ import annotations

import dataclasses
import json
import warnings

import pyarrow
import pytest
from conftest import EXAMPLES, FIXTURES
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ToolReturnPart

import msgflow
import msgflow.arrow

SESSION = (EXAMPLES / "interrupted-session.json").read_bytes()


def test_check_finds_the_dangling_calls_and_repair_answers_them() -> None:
    report = msgflow.check(SESSION)
    assert not report.ok and report.loadable
    assert [problem.code for problem in report.problems] == ["dangling-call", "dangling-call"]
    first = report.problems[0]
    assert (first.message_index, first.part_index, first.path) == (5, 1, "$[5].parts[1]")
    assert first.tool_name == "edit_file" and first.text.startswith("dangling tool call at message 5, part 1")

    repaired = msgflow.repair(SESSION)
    assert isinstance(repaired.history, bytes)
    assert [change["change"] for change in repaired.changes] == ["inserted-synthetic-return"] * 2
    assert msgflow.check(repaired.history).ok


def test_repair_default_text_comes_from_the_library() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(msgflow.repair(SESSION).history)
    returns = [part for message in messages for part in message.parts if isinstance(part, ToolReturnPart)]
    assert returns[-1].content == msgflow.default_repair_message()
    custom = msgflow.repair(SESSION, message="stopped by the user").history
    assert b"stopped by the user" in custom


def test_keep_last_response_leaves_the_live_calls() -> None:
    assert msgflow.repair(SESSION, keep_last_response=True).changes == ()


def test_history_comes_back_in_the_form_it_was_given() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(SESSION)
    as_objects = msgflow.repair(messages).history
    assert isinstance(as_objects, list) and isinstance(as_objects[-1], ModelRequest)
    as_text = msgflow.repair(SESSION.decode()).history
    assert isinstance(as_text, str)
    assert ModelMessagesTypeAdapter.dump_json(as_objects) == as_text.encode() == msgflow.repair(SESSION).history


def test_a_history_as_json_values_comes_back_as_json_values_without_warnings() -> None:
    # What `json.loads` or a database's JSON column gives: no pydantic-ai objects in or out.
    values = json.loads(SESSION)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = msgflow.check(values)
        repaired = msgflow.repair(values).history
        trimmed = msgflow.trim(tuple(values), keep_turns=1).history
        converted = msgflow.convert(values, to="pydantic-ai").output
    assert [problem.code for problem in report.problems] == ["dangling-call", "dangling-call"]
    assert isinstance(repaired, list) and isinstance(repaired[-1], dict)
    assert repaired == json.loads(msgflow.repair(SESSION).history)
    assert trimmed == json.loads(msgflow.trim(SESSION, keep_turns=1).history)
    assert converted == values
    assert msgflow.fmt(values) == msgflow.fmt(SESSION)
    # Not a history: located as in its text.
    with pytest.raises(msgflow.InvalidHistory) as raised:
        msgflow.check([{"kind": "request", "parts": [{"part_kind": "user-prompt"}]}, 3])
    assert raised.value.path.startswith("$[")


def test_a_history_as_dump_python_gives_comes_back_so() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(SESSION)
    python_values = ModelMessagesTypeAdapter.dump_python(messages)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        repaired = msgflow.repair(python_values).history
        assert msgflow.fmt(python_values) == ModelMessagesTypeAdapter.dump_json(messages)
        converted = msgflow.convert(python_values, to="pydantic-ai").output
    expected = ModelMessagesTypeAdapter.validate_json(msgflow.repair(SESSION).history)
    assert repaired == ModelMessagesTypeAdapter.dump_python(expected)
    assert converted == python_values


def test_a_dump_python_history_pydantic_ai_refuses_is_checked_not_raised() -> None:
    # What pydantic-ai refuses is found and located as in the same history as JSON values, not
    # raised as pydantic's error.
    python_values = ModelMessagesTypeAdapter.dump_python(ModelMessagesTypeAdapter.validate_json(SESSION))
    json_values = json.loads(SESSION)
    for values in (python_values, json_values):
        values[1]["parts"][2]["args"] = [1, 2]
    found = [(problem.code, problem.path) for problem in msgflow.check(python_values).problems]
    assert ("not-loadable", "$[1].parts[2]") in found
    assert found == [(problem.code, problem.path) for problem in msgflow.check(json_values).problems]
    # What repair leaves unloadable has no `dump_python` form: it comes back as JSON values.
    assert msgflow.repair(python_values).history == msgflow.repair(json_values).history
    python_values[0]["parts"][0]["timestamp"] = "yesterday"
    with pytest.raises(msgflow.InvalidHistory) as raised:
        msgflow.check(python_values)
    assert raised.value.path == "$[0].parts[0].timestamp"


def test_fmt_is_dump_json() -> None:
    messages = ModelMessagesTypeAdapter.validate_json(SESSION)
    assert msgflow.fmt(SESSION) == ModelMessagesTypeAdapter.dump_json(messages)
    assert msgflow.fmt(messages) == ModelMessagesTypeAdapter.dump_json(messages)


@pytest.mark.parametrize("path", sorted((FIXTURES / "v2_68").glob("*.json")), ids=lambda path: path.name)
def test_objects_round_trip_losslessly_where_pydantic_ai_does(path) -> None:
    data = path.read_bytes()
    try:
        messages = ModelMessagesTypeAdapter.validate_json(data)
    except ValueError:
        pytest.skip("pydantic-ai does not load it")
    expected = ModelMessagesTypeAdapter.dump_json(messages)
    out = msgflow.trim(messages, keep_turns=10_000).history
    assert ModelMessagesTypeAdapter.dump_json(out) == expected
    assert msgflow.fmt(messages) == expected


def test_trim_keeps_whole_turns_within_the_budget() -> None:
    total = msgflow.count_tokens(SESSION).total
    trimmed = msgflow.trim(SESSION, max_tokens=total - 1)
    assert trimmed.tokens_before == total and trimmed.tokens_after <= total - 1
    assert trimmed.removed
    assert all(problem.code != "orphan-return" for problem in msgflow.check(trimmed.history).problems)
    with pytest.raises(msgflow.DoesNotFit) as raised:
        msgflow.trim(SESSION, max_tokens=5)
    assert raised.value.limit == 5 and raised.value.unit == "tokens" and raised.value.needed > 5
    assert isinstance(raised.value, ValueError)


def test_trim_needs_one_budget_or_a_step() -> None:
    with pytest.raises(ValueError, match="needs a budget"):
        msgflow.trim(SESSION)
    with pytest.raises(ValueError, match="one budget"):
        msgflow.trim(SESSION, max_tokens=10, keep_turns=1)
    with pytest.raises(ValueError):
        msgflow.trim(SESSION, max_tokens=10, tokenizer="nope")


def test_count_tokens_sums_its_messages() -> None:
    count = msgflow.count_tokens(SESSION)
    assert count.total == sum(count.messages) == sum(count.by_part_kind.values())
    assert count.tokenizer == "o200k_base" and len(count.messages) == 7
    assert msgflow.count_tokens(SESSION, tokenizer="chars4").total != count.total


def test_export_builds_the_request_or_refuses_with_the_location() -> None:
    repaired = msgflow.repair(SESSION).history
    request = msgflow.export(repaired, to="anthropic")
    assert isinstance(request, dict) and request["messages"]
    with pytest.raises(ValueError, match="unknown provider"):
        msgflow.export(repaired, to="nope")
    with pytest.raises(msgflow.ExportRefused) as raised:
        msgflow.export(repaired, to="gemini")
    assert raised.value.message_index is None


ANONYMOUS_CALL = (
    b'[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi"}]},'
    b'{"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"f","args":{}}]},'
    b'{"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"f","content":"x"}]}]'
)


def test_export_warns_when_it_makes_up_tool_call_ids() -> None:
    with pytest.warns(msgflow.InventedIdsWarning, match=r"2 tool part\(s\) have no tool_call_id \(the first at \$\[1\]\.parts\[0\]\)"):
        request = msgflow.export(ANONYMOUS_CALL, to="openai-chat")
    assert request["messages"][1]["tool_calls"][0]["id"] == "msgflow_call_1_0"
    (row,) = msgflow.arrow.export(pyarrow.array([ANONYMOUS_CALL], pyarrow.binary()), to="openai-chat").to_pylist()
    assert row["invented_ids"].startswith("2 tool part(s) have no tool_call_id")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        msgflow.export(msgflow.repair(SESSION).history, to="anthropic")


def test_results_are_frozen_with_readable_reprs_and_dicts() -> None:
    report = msgflow.check(SESSION)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.loadable = False  # type: ignore[misc]
    assert repr(report) == "Report(ok=False, loadable=True, problems=[dangling-call, dangling-call])"
    assert report.to_dict()["problems"][0]["code"] == "dangling-call"
    trimmed = msgflow.trim(SESSION, keep_turns=1)
    assert repr(trimmed).startswith("Trimmed(tokens_before=")
    assert set(trimmed.to_dict()) == {"history", "tokens_before", "tokens_after", "removed", "report"}


def test_assemble_rebuilds_the_interrupted_stream() -> None:
    history = (EXAMPLES / "interrupted-stream-history.json").read_bytes()
    events = (EXAMPLES / "interrupted-stream.jsonl").read_text()
    assembled = msgflow.assemble(events, history=history, model_name="claude-sonnet-4-5")
    assert assembled.report["completed"] is False
    messages = ModelMessagesTypeAdapter.validate_json(assembled.history)
    assert len(messages) > len(ModelMessagesTypeAdapter.validate_json(history))
    lines = [line for line in events.splitlines() if line.strip()]
    again = msgflow.assemble(lines, history=history, model_name="claude-sonnet-4-5", timestamp=None)
    assert again.report == assembled.report
