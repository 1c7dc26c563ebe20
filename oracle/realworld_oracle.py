"""pydantic-ai 2.68.0's answers for the real-world corpora (``../shared/realworld2/``, ``../shared/realworld/``), the
oracle of the "real-world histories" check of ``cargo xtask conformance`` (``xtask/src/conformance_realworld.rs``).

    python realworld_oracle.py --manifest M --out R

The manifest (written by the check) lists one case per corpus file with what msgflow made of it, as files beside the
manifest: ``input`` (the history, a single message object already wrapped in a list), and, where msgflow produced
them, ``fmt``, ``repaired`` (``repair`` with default options) and ``trimmed`` (one file per budget). For each case this
writes one JSON line:

* ``loadable`` and ``errors`` (``type``, ``loc``): ``ModelMessagesTypeAdapter.validate_json`` of the input;
* ``repair_equal`` / ``repair_detail``: whether msgflow's repaired history, loaded and re-dumped by pydantic-ai, equals
  ``dump_json(repair_messages(validate_json(input)))``, with the timestamps pydantic-ai fills with the current time
  and the tool-call ids either side generates (pydantic-ai's ``pyd_ai_...``, msgflow's ``msgflow_call_<m>_<p>`` for a
  call without one) masked;
* ``exports``: the request pydantic-ai's own mapping builds per provider (``providers_oracle.run_case``), or its
  refusal;
* ``trimmed``: per trimmed file, whether pydantic-ai loads it (and the first errors when not).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import oracle_common as oc  # noqa: I001 - must come before pydantic_ai (mime table pinning)

import asyncio

import providers_oracle
import verdict_oracle
from pydantic_ai import messages as m

# Ids generated for a call without one: pydantic-ai's on load, msgflow's on repair (`msgflow_call_<m>_<p>`).
GENERATED_ID_RE = re.compile(rb'"tool_call_id":"(pyd_ai_[0-9a-f]{32}|msgflow_call_[0-9]+_[0-9]+)"')
PROVIDERS = ("anthropic", "openai-chat", "openai-responses")


def masked(dumped: bytes, source: bytes, window: tuple[datetime, datetime]) -> bytes:
    """``verdict_oracle.mask_invented`` (timestamps filled during the load in ``window``), and every generated id not
    in ``source``."""
    dumped = verdict_oracle.mask_invented(dumped, source, window)

    def generated_id(match: re.Match) -> bytes:
        return match.group(0) if match.group(1) in source else verdict_oracle.INVENTED_ID

    return GENERATED_ID_RE.sub(generated_id, dumped)


def timed_load(data: bytes) -> tuple[list, tuple[datetime, datetime]]:
    start = datetime.now(tz=timezone.utc)
    history = oc.load(data)
    return history, (start, datetime.now(tz=timezone.utc))


def compare_repair(data: bytes, repaired: bytes) -> dict:
    """pydantic-ai's repair of the input against msgflow's repaired history, both as pydantic-ai dumps them."""
    history, window = timed_load(data)
    expected = masked(oc.dump(m.repair_messages(history)), data, window)
    try:
        ours, ours_window = timed_load(repaired)
    except Exception as exc:  # noqa: BLE001 - a refusal is the finding
        return {"repair_equal": False, "repair_detail": f"pydantic-ai refuses msgflow's repaired history: {exc}"}
    # An id is generated when the input does not hold it, on either side.
    actual = masked(oc.dump(ours), data, ours_window)
    if actual == expected:
        return {"repair_equal": True}
    return {"repair_equal": False, "repair_detail": verdict_oracle.first_difference(expected, actual)}


def judge(case: dict, base: Path, models: dict) -> dict:
    data = (base / case["input"]).read_bytes()
    _, report = verdict_oracle.verdict(data)
    row = {"name": case["name"], "loadable": report["loadable"], "errors": report["errors"][:3]}
    if not report["loadable"]:
        return row
    if case.get("repaired") is not None:
        row.update(compare_repair(data, (base / case["repaired"]).read_bytes()))
    exports = asyncio.run(providers_oracle.run_case(models, None, history_text=data))
    row["exports"] = {provider: exports[provider] for provider in PROVIDERS}
    trimmed = {}
    for budget, name in case.get("trimmed", {}).items():
        _, trimmed_report = verdict_oracle.verdict((base / name).read_bytes())
        trimmed[budget] = {"loadable": trimmed_report["loadable"], "errors": trimmed_report["errors"][:3]}
    row["trimmed"] = trimmed
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    oc.assert_oracle_version()
    providers_oracle._patch_downloads()  # noqa: SLF001 - msgflow never downloads, so the oracle refuses to
    models = providers_oracle.build_models()
    manifest = json.loads(args.manifest.read_text(encoding="utf-8"))
    base = args.manifest.parent
    with args.out.open("w", encoding="utf-8") as out:
        for case in manifest:
            out.write(json.dumps(judge(case, base, models), ensure_ascii=False, default=str) + "\n")
    print(f"realworld_oracle: {len(manifest)} histories judged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
