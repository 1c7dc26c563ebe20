"""pydantic-ai 2.68.0's loadability verdict, the oracle of msgflow's `msgflow_wire::verdict`.

Three subcommands, all batched (one process for thousands of files):

* ``judge --manifest M --out R``: for every case of the manifest written by ``cargo xtask conformance`` (the
  mutation differential, ``xtask/src/conformance_verdict.rs``), ``ModelMessagesTypeAdapter.validate_json`` of the
  input: loadable or not, and every error's ``type`` and ``loc``. For an input it loads and for which msgflow wrote
  its ``fmt`` output, both are loaded and re-dumped and the two re-dumps compared (timestamps and tool-call ids
  pydantic-ai invents on load masked, see ``mask_invented``).
* ``expect --dir D``: writes ``<name>.expected.json`` (loadable, errors [{type, loc}]) beside every
  ``<name>.json`` of ``D`` (the committed disagreement fixtures in ``tests/fixtures/verdict/``).
* ``realworld --dir D [--copy-from S]``: pydantic-ai's answer for every real-world history of ``D``
  (``tests/fixtures/realworld/``) in ``D/expected-2.68/<name>``: loadable, errors, and the masked re-dump. A file
  holding one message object (``SINGLE`` in ``PROVENANCE.md``) is loaded wrapped in a list, as the provenance says.
  ``--copy-from`` first copies the corpus (``*.json`` and ``PROVENANCE.md``) from ``S``.

Errors are ``ValidationError.errors(include_url=False, include_context=False, include_input=False)``: ``loc`` is
pydantic-core's location tuple (message index, union tag, field names, list indexes) as a JSON list. An exception
other than ``ValidationError`` (none is expected) is reported as loadable false with one error of type
``python:<ExceptionName>`` and an empty loc, so that it shows up as a disagreement instead of aborting the batch.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path

import oracle_common as oc  # noqa: I001 - must come before pydantic_ai (mime table pinning)

import pydantic

# A timestamp value in pydantic-ai's dump (`"timestamp":"..."`); the key is written by dump_json without spaces.
TIMESTAMP_RE = re.compile(rb'"timestamp":"([^"\\]*)"')
# `_utils.generate_tool_call_id`: `pyd_ai_` + uuid4().hex, given to a tool call or legacy retry prompt without an id.
GENERATED_ID_RE = re.compile(rb'"tool_call_id":"(pyd_ai_[0-9a-f]{32})"')
INVENTED_TIMESTAMP = b'"timestamp":"<now>"'
INVENTED_ID = b'"tool_call_id":"<generated>"'


def verdict(data: bytes) -> tuple[list | None, dict]:
    """Loads ``data``; returns the history (or None) and the report fields ``loadable`` and ``errors``."""
    try:
        history = oc.load(data)
    except pydantic.ValidationError as exc:
        errors = [
            {"type": error["type"], "loc": list(error["loc"]), "msg": error["msg"]}
            for error in exc.errors(include_url=False, include_context=False, include_input=False)
        ]
        return None, {"loadable": False, "errors": errors}
    except Exception as exc:  # noqa: BLE001 - any other failure is a finding, not a crash of the batch
        return None, {"loadable": False, "errors": [{"type": f"python:{type(exc).__name__}", "loc": [], "msg": str(exc)}]}
    return history, {"loadable": True, "errors": []}


def mask_invented(dumped: bytes, source: bytes, window: tuple[datetime, datetime]) -> bytes:
    """Masks what pydantic-ai invented while loading ``source``: timestamps it filled with ``_now_utc()``
    (``messages.py``: ``field(default_factory=_now_utc)``, and ``fields.get('timestamp') or _now_utc()`` for legacy
    retry prompts), recognised by lying inside the load's time ``window``, and tool-call ids from
    ``generate_tool_call_id()`` that do not occur in the source."""
    start, end = window

    def timestamp(match: re.Match) -> bytes:
        try:
            value = datetime.fromisoformat(match.group(1).decode().replace("Z", "+00:00"))
        except ValueError:
            return match.group(0)
        if value.tzinfo is not None and start <= value <= end:
            return INVENTED_TIMESTAMP
        return match.group(0)

    def generated_id(match: re.Match) -> bytes:
        return match.group(0) if match.group(1) in source else INVENTED_ID

    return GENERATED_ID_RE.sub(generated_id, TIMESTAMP_RE.sub(timestamp, dumped))


def masked_redump(data: bytes) -> tuple[dict, bytes | None]:
    """The verdict of ``data`` and, when it loads, its re-dump with invented values masked (None when the dump
    itself fails; the failure is in the report's ``redump_error``)."""
    start = datetime.now(tz=timezone.utc)
    history, report = verdict(data)
    end = datetime.now(tz=timezone.utc)
    if history is None:
        return report, None
    try:
        dumped = oc.dump(history)
    except Exception as exc:  # noqa: BLE001
        report["redump_error"] = f"{type(exc).__name__}: {exc}"
        return report, None
    return report, mask_invented(dumped, data, (start, end))


def first_difference(left: bytes, right: bytes) -> str:
    """Where two re-dumps first differ, with 80 bytes of context on each side."""
    at = next((i for i, (a, b) in enumerate(zip(left, right)) if a != b), min(len(left), len(right)))
    start = max(0, at - 80)
    return (
        f"first difference at byte {at} (lengths {len(left)} and {len(right)}): "
        f"input's re-dump ...{left[start:at + 80].decode(errors='replace')!r} vs "
        f"msgflow output's re-dump ...{right[start:at + 80].decode(errors='replace')!r}"
    )


def judge_case(case: dict, base: Path) -> dict:
    """One manifest case: the input's verdict, and the re-dump comparison for msgflow's fmt output."""
    data = (base / case["input"]).read_bytes()
    report, redump = masked_redump(data)
    row = {"id": case["id"], **report}
    fmt_name = case.get("fmt")
    if report["loadable"] and fmt_name is not None:
        fmt_report, fmt_redump = masked_redump((base / fmt_name).read_bytes())
        if not fmt_report["loadable"]:
            row["fmt_redump_equal"] = False
            row["fmt_detail"] = f"pydantic-ai refuses msgflow's fmt output: {fmt_report['errors'][:3]}"
        elif redump is None or fmt_redump is None:
            row["fmt_redump_equal"] = redump == fmt_redump
            row["fmt_detail"] = (
                f"re-dump failed: input {report.get('redump_error')}, fmt output {fmt_report.get('redump_error')}"
            )
        else:
            row["fmt_redump_equal"] = redump == fmt_redump
            if redump != fmt_redump:
                row["fmt_detail"] = first_difference(redump, fmt_redump)
    return row


def cmd_judge(args: argparse.Namespace) -> int:
    manifest = json.loads(args.manifest.read_text(encoding="utf-8"))
    base = args.manifest.parent
    rows = [judge_case(case, base) for case in manifest]
    args.out.write_text(json.dumps(rows, ensure_ascii=False) + "\n", encoding="utf-8")
    loadable = sum(row["loadable"] for row in rows)
    print(f"verdict_oracle: {len(rows)} cases judged, {loadable} loadable")
    return 0


def expected_file(report: dict) -> str:
    """The committed form of a verdict: loadable and the (type, loc) of each error (one a line), without messages."""
    errors = [
        json.dumps({"type": error["type"], "loc": error["loc"]}, ensure_ascii=False) for error in report["errors"]
    ]
    body = ",".join(f"\n  {error}" for error in errors) + ("\n" if errors else "")
    loadable = "true" if report["loadable"] else "false"
    return f'{{"loadable": {loadable}, "errors": [{body}]}}\n'


def fixture_inputs(directory: Path) -> list[Path]:
    return sorted(path for path in directory.glob("*.json") if not path.name.endswith(".expected.json"))


def cmd_expect(args: argparse.Namespace) -> int:
    inputs = fixture_inputs(args.dir)
    for path in inputs:
        _, report = verdict(path.read_bytes())
        path.with_name(path.name[: -len(".json")] + ".expected.json").write_text(expected_file(report), encoding="utf-8")
    print(f"verdict_oracle: {len(inputs)} expected verdicts written to {args.dir}")
    return 0


def as_history(data: bytes) -> tuple[bytes, bool]:
    """A file holding one message object (SINGLE in PROVENANCE.md) is loaded as a list of that one message."""
    try:
        single = isinstance(json.loads(data), dict)
    except ValueError:
        return data, False
    return (b"[" + data + b"]", True) if single else (data, False)


def cmd_realworld(args: argparse.Namespace) -> int:
    if args.copy_from is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
        for path in sorted(args.copy_from.glob("*.json")) + [args.copy_from / "PROVENANCE.md"]:
            shutil.copyfile(path, args.dir / path.name)
    out = args.dir / "expected-2.68"
    out.mkdir(exist_ok=True)
    inputs = sorted(args.dir.glob("*.json"))
    loadable = 0
    for path in inputs:
        data, wrapped = as_history(path.read_bytes())
        report, redump = masked_redump(data)
        loadable += report["loadable"]
        answer = {
            "wrapped_in_list": wrapped,
            "loadable": report["loadable"],
            "errors": [{"type": error["type"], "loc": error["loc"], "msg": error["msg"]} for error in report["errors"]],
            # Masked re-dump text (timestamps pydantic-ai filled with the current time are "<now>").
            "redump": None if redump is None else redump.decode("utf-8", errors="surrogateescape"),
        }
        (out / path.name).write_text(json.dumps(answer, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"verdict_oracle: {len(inputs)} real-world histories, {loadable} loadable; answers in {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    judge = sub.add_parser("judge", help="verdicts and re-dump comparisons for a conformance manifest")
    judge.add_argument("--manifest", type=Path, required=True)
    judge.add_argument("--out", type=Path, required=True)
    judge.set_defaults(handler=cmd_judge)

    expect = sub.add_parser("expect", help="write <name>.expected.json beside every fixture <name>.json")
    expect.add_argument("--dir", type=Path, required=True)
    expect.set_defaults(handler=cmd_expect)

    realworld = sub.add_parser("realworld", help="pydantic-ai's answer for every real-world history")
    realworld.add_argument("--dir", type=Path, required=True)
    realworld.add_argument("--copy-from", type=Path, default=None)
    realworld.set_defaults(handler=cmd_realworld)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # argparse exits with status 2 on usage errors
    oc.assert_oracle_version()
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
