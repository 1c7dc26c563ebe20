"""The Python answers equal the CLI's on every fixture and on the real-world corpus.

Each history goes through `msgflow` (MSGFLOW_BIN) and through the package: the same report, the same
bytes, or, for input that is not a history, the same error message (InvalidHistory).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest
from conftest import FIXTURES, REALWORLD, ROOT, run_cli

import msgflow

FIXTURE_FILES = sorted(path for path in FIXTURES.rglob("*.json") if not path.name.endswith(".expected.json"))
REALWORLD_FILES = sorted(REALWORLD.glob("*.json")) if REALWORLD.is_dir() else []
EVERY_FILE = FIXTURE_FILES + REALWORLD_FILES


def _id(path: Path) -> str:
    return str(path.relative_to(FIXTURES)) if path.is_relative_to(FIXTURES) else f"realworld/{path.name}"


def test_the_corpora_are_there() -> None:
    assert len(FIXTURE_FILES) > 900
    assert len(REALWORLD_FILES) >= 50, f"../shared/realworld missing beside the checkout ({REALWORLD})"


def _text(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _cli_error(result) -> str:
    """The CLI's error line without the `msgflow: error: FILE: ` prefix."""
    line = result.stderr.decode().splitlines()[0]
    return line.split(": ", 3)[3]


def _invalid_alike(path: Path, call) -> bool:
    """Checks a CLI refusal against the package's; true when the input was not a history."""
    result = run_cli("fmt", path)
    if result.returncode != 2:
        return False
    with pytest.raises(msgflow.InvalidHistory) as raised:
        call()
    assert str(raised.value) == _cli_error(result)
    return True


@pytest.mark.parametrize("path", EVERY_FILE, ids=_id)
def test_check_fmt_and_repair_equal_the_cli(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    if _invalid_alike(path, lambda: msgflow.check(data)):
        return
    cli = json.loads(run_cli("check", "--json", path).stdout)
    report = msgflow.check(data)
    assert report.ok == cli["valid"]
    assert report.loadable == cli["pydantic_ai_loadable"]
    assert [(p.code, p.message_index, p.part_index, p.detail, p.turn) for p in report.problems] == [
        (v["kind"], v["message_index"], v.get("part_index"), v["detail"], v["turn"]) for v in cli["violations"]
    ]

    assert msgflow.fmt(data) == run_cli("fmt", path).stdout

    report_path = tmp_path / "report.json"
    cli_repair = run_cli("repair", path, "--report", report_path)
    repaired = msgflow.repair(data)
    assert repaired.history == cli_repair.stdout
    cli_report = json.loads(report_path.read_text())
    # Compared as JSON text: a change may quote a tool result holding NaN, which is unequal to itself.
    assert _text(list(repaired.changes)) == _text(cli_report["changes"])
    assert _text(list(repaired.remaining)) == _text(cli_report["remaining"])
    if repaired.remaining:
        cli_resolved = run_cli("repair", path, "--resolve-remaining", "--report", report_path)
        resolved = msgflow.repair(data, resolve_remaining=True)
        assert resolved.history == cli_resolved.stdout
        assert _text(list(resolved.changes)) == _text(json.loads(report_path.read_text())["changes"])


HISTORY_FILES = sorted((FIXTURES / "v2_68").glob("*.json")) + REALWORLD_FILES


@pytest.mark.parametrize("path", HISTORY_FILES, ids=_id)
def test_tokens_trim_and_export_equal_the_cli(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    if _invalid_alike(path, lambda: msgflow.count_tokens(data)):
        return
    cli_tokens = json.loads(run_cli("stats", "--tokens", "--json", path).stdout)
    count = msgflow.count_tokens(data)
    assert count.total == cli_tokens["total"]
    assert list(count.messages) == [message["tokens"] for message in cli_tokens["messages"]]
    assert count.by_part_kind == cli_tokens["by_part_kind"]

    budget = max(count.total // 2, 1)
    report_path = tmp_path / "trim.json"
    cli_trim = run_cli("trim", path, "--max-tokens", str(budget), "--clamp-parts", "4000", "--report", report_path)
    if cli_trim.returncode != 0:
        with pytest.raises(msgflow.DoesNotFit) as raised:
            msgflow.trim(data, max_tokens=budget, clamp_parts=4000)
        assert str(raised.value) in cli_trim.stderr.decode()
    else:
        trimmed = msgflow.trim(data, max_tokens=budget, clamp_parts=4000)
        assert trimmed.history == cli_trim.stdout
        assert _text(trimmed.report) == _text(json.loads(report_path.read_text()))
        assert trimmed.tokens_after <= budget

    for provider in ("anthropic", "openai-chat", "openai-responses"):
        cli_export = run_cli("export", "--to", provider, path)
        if cli_export.returncode == 0:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert msgflow.export(data, to=provider) == json.loads(cli_export.stdout)
            # The CLI's note on made-up tool call ids is the package's warning, word for word.
            cli_notes = [line[len("note: ") :] for line in cli_export.stderr.decode().splitlines() if line.startswith("note: ")]
            assert [str(warning.message) for warning in caught if warning.category is msgflow.InventedIdsWarning] == cli_notes
        else:
            with pytest.raises(msgflow.ExportRefused) as raised:
                msgflow.export(data, to=provider)
            assert str(raised.value) == _cli_error(cli_export)
        cli_check = run_cli("check", "--provider", provider, "--json", path)
        if cli_check.returncode == 2:
            with pytest.raises(msgflow.ExportRefused):
                msgflow.check(data, provider=provider)
            continue
        expected = json.loads(cli_check.stdout)
        report = msgflow.check(data, provider=provider)
        assert report.ok == expected["valid"]
        assert [(p.code, p.message_index, p.part_index, p.provider_error) for p in report.problems] == [
            (v["rule"]["id"], v["message"], v.get("part"), v["provider_error"]) for v in expected["violations"]
        ]


# The histories with tool results, where the harness's steps have something to do.
HARNESS_FILES = [path for path in HISTORY_FILES if b'"tool-return"' in path.read_bytes()]


@pytest.mark.parametrize("path", HARNESS_FILES, ids=_id)
def test_the_harness_steps_equal_the_cli(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    if _invalid_alike(path, lambda: msgflow.count_tokens(data)):
        return
    report_path = tmp_path / "trim.json"
    cli_trim = run_cli("trim", path, "--harness-clear", "1", "--harness-clamp", "200", "--report", report_path)
    assert cli_trim.returncode == 0, cli_trim.stderr
    trimmed = msgflow.trim(data, harness_clear=1, harness_clamp=200)
    assert trimmed.history == cli_trim.stdout
    assert _text(trimmed.report) == _text(json.loads(report_path.read_text()))


def test_the_trim_arguments_have_the_cli_flags_ranges() -> None:
    data = (FIXTURES / "v2_68" / "minimal.json").read_bytes()
    with pytest.raises(ValueError, match="clamp_parts must be 128 or more"):
        msgflow.trim(data, clamp_parts=127)
    with pytest.raises(ValueError, match="harness_clamp must be 1 or more"):
        msgflow.trim(data, harness_clamp=0)
    with pytest.raises(ValueError, match="harness_clear"):
        msgflow.trim(data)


PROFILES = [
    ("openai-chat", "--openai-chat-thinking", "openai_chat_thinking", "tags"),
    ("openai-chat", "--openai-chat-thinking", "openai_chat_thinking", "field:reasoning_content"),
    ("openai-chat", "--openai-thinking", "openai_thinking", "user-turn"),
    ("openai-responses", "--openai-thinking", "openai_thinking", "user-turn"),
    ("anthropic", "--anthropic-thinking", "anthropic_thinking", "assistant-turn"),
]


@pytest.mark.parametrize("fixture", ["thinking.json", "coding-agent-session.json"])
@pytest.mark.parametrize(("provider", "flag", "name", "value"), PROFILES)
def test_the_profile_settings_equal_the_cli(fixture: str, provider: str, flag: str, name: str, value: str) -> None:
    path = FIXTURES / "v2_68" / fixture
    data = path.read_bytes()
    cli_export = run_cli("export", "--to", provider, flag, value, path)
    if cli_export.returncode == 0:
        assert msgflow.export(data, to=provider, **{name: value}) == json.loads(cli_export.stdout)
    else:
        with pytest.raises(msgflow.ExportRefused) as raised:
            msgflow.export(data, to=provider, **{name: value})
        assert str(raised.value) == _cli_error(cli_export)
    cli_check = run_cli("check", "--provider", provider, flag, value, "--json", path)
    if cli_check.returncode == 2:
        with pytest.raises(msgflow.ExportRefused):
            msgflow.check(data, provider=provider, **{name: value})
    else:
        expected = json.loads(cli_check.stdout)
        report = msgflow.check(data, provider=provider, **{name: value})
        assert [(p.code, p.message_index, p.part_index) for p in report.problems] == [
            (v["rule"]["id"], v["message"], v.get("part")) for v in expected["violations"]
        ]


def test_a_profile_setting_for_another_provider_is_refused_as_the_cli_refuses_it() -> None:
    data = (FIXTURES / "v2_68" / "thinking.json").read_bytes()
    with pytest.raises(ValueError, match="applies to the openai-chat provider only"):
        msgflow.export(data, to="anthropic", openai_chat_thinking="tags")
    with pytest.raises(ValueError, match="applies to the anthropic provider only"):
        msgflow.check(data, anthropic_thinking="user-turn")
    with pytest.raises(ValueError, match="unknown thinking mode"):
        msgflow.export(data, to="openai-chat", openai_chat_thinking="loud")
    tags = msgflow.export(data, to="openai-chat", openai_chat_thinking="tags")
    assert tags != msgflow.export(data, to="openai-chat", openai_chat_thinking="off")


def test_assemble_equals_the_cli(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    events = ROOT / "examples" / "interrupted-stream.jsonl"
    history = ROOT / "examples" / "interrupted-stream-history.json"
    out = tmp_path / "assembled.json"
    cli = run_cli(
        "assemble", events, "--history", history, "--timestamp", "2026-12-01T10:00:00Z",
        "--model-name", "claude-sonnet-4-5", "--provider-name", "anthropic", "-o", out, "--json",
    )
    assert cli.returncode == 0, cli.stderr
    assembled = msgflow.assemble(
        events.read_bytes(),
        history=history.read_bytes(),
        timestamp=datetime(2026, 12, 1, 10, tzinfo=timezone.utc),
        model_name="claude-sonnet-4-5",
        provider_name="anthropic",
    )
    assert assembled.history == out.read_bytes()
    # `--json` writes the report on stderr when the history goes to a file.
    assert _text(assembled.report) == _text(json.loads(cli.stderr.decode().strip().splitlines()[-1]))
def _without_fresh_values(ui: object) -> object:
    """UI messages without what every conversion makes anew: a denial's `approval.id` (a fresh
    UUID4), and the stamp of retry feedback that had no timestamp (the time of the conversion)."""
    for message in ui if isinstance(ui, list) else []:
        for part in message.get("parts", []):
            if part.get("state") == "output-denied" and isinstance(part.get("approval"), dict):
                part["approval"].pop("id", None)
            feedback = (part.get("providerMetadata") or {}).get("pydantic_ai", {}).get("retry_feedback")
            if isinstance(feedback, dict):
                feedback.pop("timestamp", None)
    return ui


@pytest.mark.parametrize("path", EVERY_FILE, ids=_id)
def test_convert_equals_the_cli(path: Path) -> None:
    # Python ints of any size, as pydantic-ai writes them (`int_max_str_digits` is 4300 by default).
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        _convert_equals_the_cli(path)
    finally:
        sys.set_int_max_str_digits(previous)


def _convert_equals_the_cli(path: Path) -> None:
    data = path.read_bytes()
    for args, kwargs in (
        (["--to", "vercel-ui"], {"to": "vercel-ui"}),
        (["--to", "vercel-ui", "--lossless", "--vercel-sdk", "6"], {"to": "vercel-ui", "lossless": True, "vercel_sdk": 6}),
        (["--to", "openai-chat"], {"to": "openai-chat"}),
        (["--to", "otel", "--otel-version", "6"], {"to": "otel", "otel_version": 6}),
    ):
        result = run_cli("convert", *args, path)
        if result.returncode == 2:
            with pytest.raises((msgflow.ConversionError, ValueError)) as raised:
                msgflow.convert(data, **kwargs)
            assert _cli_error(result).endswith(str(raised.value)), (_cli_error(result), str(raised.value))
            continue
        converted = msgflow.convert(data, **kwargs)
        assert _without_fresh_values(json.loads(converted.output)) == _without_fresh_values(json.loads(result.stdout))
        notes = [line for line in result.stderr.decode().splitlines() if line.startswith("msgflow: note:")]
        assert bool(notes) == (not converted.lossless)
