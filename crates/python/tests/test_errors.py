"""Bad and hostile input raises the documented exceptions, never crashes the interpreter."""

from __future__ import annotations

import pytest

import msgflow

REQUEST = b'{"parts":[{"content":"hi","part_kind":"user-prompt"}],"kind":"request"}'

HOSTILE = {
    "empty": b"",
    "whitespace": b"  \n\t",
    "object": b"{}",
    "number": b"1",
    "array of numbers": b"[1,2,3]",
    "truncated": b'[{"parts":[{"content":"hi","part_kind":"user-pro',
    "byte order mark": b"\xef\xbb\xbf[" + REQUEST + b"]",
    "trailing nul": b"[]\x00",
    "invalid utf-8": b'[{"parts":[{"content":"\xff","part_kind":"user-prompt"}],"kind":"request"}]',
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "deep args": b'[{"parts":[{"tool_name":"t","args":' + b'{"a":' * 50_000 + b"1" + b"}" * 50_000
    + b',"part_kind":"tool-call"}],"kind":"response"}]',
    "unknown kind": b'[{"parts":[],"kind":"banana"}]',
    "trailing garbage": b"[" + REQUEST + b"] x",
    "duplicate kind": b'[{"parts":[],"kind":"request","kind":"response"}]',
    "huge number": b'[{"parts":[],"kind":"response","usage":{"input_tokens":1e999999}}]',
}

FUNCTIONS = {
    "check": lambda data: msgflow.check(data),
    "check anthropic": lambda data: msgflow.check(data, provider="anthropic"),
    "repair": lambda data: msgflow.repair(data),
    "trim": lambda data: msgflow.trim(data, max_tokens=100),
    "count_tokens": lambda data: msgflow.count_tokens(data),
    "export": lambda data: msgflow.export(data, to="openai-chat"),
    "fmt": lambda data: msgflow.fmt(data),
}


# A hostile history that still exports (deep arguments of a call without an id) warns that msgflow
# made up its id; the warning is not what these cases test.
@pytest.mark.filterwarnings("ignore::msgflow.InventedIdsWarning")
@pytest.mark.parametrize("function", FUNCTIONS, ids=str)
@pytest.mark.parametrize("name", HOSTILE, ids=str)
def test_hostile_input_raises_a_catchable_error(name: str, function: str) -> None:
    data = HOSTILE[name]
    try:
        FUNCTIONS[function](data)
    except msgflow.InvalidHistory as err:
        assert isinstance(err, ValueError)
        assert str(err).startswith("not a pydantic-ai message history: ")
        assert err.path.startswith("$") and err.line >= 1 and err.column >= 0
    except (msgflow.ExportRefused, msgflow.DoesNotFit):
        pass


def test_invalid_history_names_where() -> None:
    with pytest.raises(msgflow.InvalidHistory) as raised:
        msgflow.check(b'[{"parts":[{"content":"hi","part_kind":"user-prompt"}],"kind":"request"},\n {"parts":5}]')
    err = raised.value
    assert (err.path, err.line) == ("$[1].parts", 2)
    assert "$[1].parts (line 2, column" in str(err)


def test_a_str_with_a_lone_surrogate_is_invalid_not_a_crash() -> None:
    with pytest.raises(msgflow.InvalidHistory):
        msgflow.check('[{"parts":[{"content":"\udc00","part_kind":"user-prompt"}],"kind":"request"}]')


@pytest.mark.parametrize("value", [None, 5, object(), {"a": 1}])
def test_what_is_no_history_form_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError):
        msgflow.check(value)


def test_unknown_provider_and_tokenizer_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown provider"):
        msgflow.check(b"[]", provider="nope")
    with pytest.raises(ValueError):
        msgflow.count_tokens(b"[]", tokenizer="nope")
    with pytest.raises(ValueError, match="calibrate"):
        msgflow.count_tokens(b"[]", tokenizer="calibrated")


def test_a_bad_event_log_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="event log"):
        msgflow.assemble("not json\n")
