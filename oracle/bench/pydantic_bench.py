#!/usr/bin/env python3
"""Time one pydantic-ai operation on a history file and print one JSON line.

Runs ``ModelMessagesTypeAdapter.validate_json`` or ``dump_json`` ``--runs`` times in this process after a warm-up that
forces the adapter's deferred schema and serializer build (so the first measured run does not pay for it).  For
``dump_json`` the history is loaded once with ``validate_json`` outside the timing.

Peak memory is measured by resetting the kernel's peak-RSS counter: right before the
first measured run the kernel's peak-RSS counter is reset by writing ``5`` to ``/proc/self/clear_refs``, and right
after it ``VmHWM - VmRSS(before)`` is read from ``/proc/self/status``.  When the counter cannot be reset (file not
writable, not Linux, or the reset did not take effect) ``peak_rss_delta_bytes`` is ``null``.  Run each operation in
a fresh process for clean numbers.

Output (stdout, one line)::

    {"tool":"pydantic-ai","op":"validate_json","file":...,"bytes":...,"runs":N,"median_s":...,"min_s":...,
     "times_s":[...],"peak_rss_delta_bytes":...,"process_peak_rss_bytes":...,
     "pydantic_ai_version":...,"pydantic_core_version":...}
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from pydantic_ai.messages import ModelMessagesTypeAdapter

OPERATIONS = ("validate_json", "dump_json")

# A tiny history touching every part kind the benchmark histories use, so the warm-up builds the validators and
# serializers on the same paths the measured runs take.
WARM_UP_HISTORY = (
    b'[{"parts":[{"content":"sys","timestamp":"2025-01-02T03:04:05.000001Z","part_kind":"system-prompt"},'
    b'{"content":"hi","timestamp":"2025-01-02T03:04:05.000002Z","part_kind":"user-prompt"}],'
    b'"timestamp":"2025-01-02T03:04:05.000003Z","instructions":"be brief","kind":"request"},'
    b'{"parts":[{"content":"hmm","signature":"c2ln","provider_name":"anthropic","part_kind":"thinking"},'
    b'{"content":"ok","part_kind":"text"},'
    b'{"tool_name":"read_file","args":{"path":"a.py"},"tool_call_id":"toolu_00000001","part_kind":"tool-call"}],'
    b'"usage":{"input_tokens":1,"output_tokens":1,"details":{"reasoning_tokens":0}},'
    b'"timestamp":"2025-01-02T03:04:06.000001Z","kind":"response","finish_reason":"tool_call"},'
    b'{"parts":[{"tool_name":"read_file","content":[{"line":1,"text":"x"}],"tool_call_id":"toolu_00000001",'
    b'"timestamp":"2025-01-02T03:04:07.000001Z","part_kind":"tool-return"},'
    b'{"tool_name":"grep","content":{"exit_code":0,"stdout":"","stderr":""},"tool_call_id":"toolu_00000002",'
    b'"timestamp":"2025-01-02T03:04:07.000002Z","part_kind":"tool-return"},'
    b'{"tool_name":"write_file","content":"ok","tool_call_id":"toolu_00000003",'
    b'"timestamp":"2025-01-02T03:04:07.000003Z","part_kind":"tool-return"}],"kind":"request"}]'
)

STATUS_PATH = "/proc/self/status"
CLEAR_REFS_PATH = "/proc/self/clear_refs"
# After a successful reset VmHWM equals VmRSS; allow a little slack for pages touched between the two reads.
RESET_SLACK_BYTES = 4 * 1024 * 1024


def read_status_bytes(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (e.g. ``VmRSS``) in bytes, or None when unavailable."""
    try:
        with open(STATUS_PATH) as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM); True only if the reset visibly took effect."""
    try:
        with open(CLEAR_REFS_PATH, "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    hwm = read_status_bytes("VmHWM")
    rss = read_status_bytes("VmRSS")
    return hwm is not None and rss is not None and hwm <= rss + RESET_SLACK_BYTES


def ru_maxrss_bytes() -> int:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def build_operation(op: str, data: bytes) -> Callable[[], Any]:
    """The zero-argument callable to time; its result is kept alive until the next run's setup."""
    adapter = ModelMessagesTypeAdapter
    if op == "validate_json":
        return lambda: adapter.validate_json(data)
    if op == "dump_json":
        history = adapter.validate_json(data)
        return lambda: adapter.dump_json(history)
    raise ValueError(f"unknown op {op!r}")


def warm_up() -> None:
    """Force the deferred schema build for both directions."""
    history = ModelMessagesTypeAdapter.validate_json(WARM_UP_HISTORY)
    ModelMessagesTypeAdapter.dump_json(history)


def measure(operation: Callable[[], Any], runs: int) -> dict[str, Any]:
    """Time ``operation`` ``runs`` times; measure the peak RSS delta of the first run (the shared method of every
    Python side of ``cargo xtask bench``: ``peer_bench.py`` uses it too)."""
    gc.collect()
    process_peak = max(ru_maxrss_bytes(), read_status_bytes("VmHWM") or 0)
    times: list[float] = []
    peak_rss_delta: int | None = None
    for run in range(runs):
        measure_memory = run == 0
        if measure_memory:
            # The reset discards the peak so far; remember it for process_peak_rss_bytes.
            process_peak = max(process_peak, read_status_bytes("VmHWM") or 0)
            rss_before = read_status_bytes("VmRSS")
            reset_ok = reset_peak_rss()
        started = time.perf_counter()
        result = operation()
        elapsed = time.perf_counter() - started
        if measure_memory:
            hwm_after = read_status_bytes("VmHWM")
            if reset_ok and rss_before is not None and hwm_after is not None:
                peak_rss_delta = hwm_after - rss_before
        times.append(elapsed)
        # Free the previous result outside the timing, so runs do not stack their memory.
        del result
        gc.collect()
    process_peak = max(process_peak, ru_maxrss_bytes(), read_status_bytes("VmHWM") or 0)
    return {
        "runs": runs,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "times_s": times,
        "peak_rss_delta_bytes": peak_rss_delta,
        "process_peak_rss_bytes": process_peak,
    }


def run_benchmark(path: str, op: str, runs: int) -> dict[str, Any]:
    """Time ``op`` ``runs`` times on the file at ``path``; measure the peak RSS delta of the first run."""
    with open(path, "rb") as handle:
        data = handle.read()
    warm_up()
    operation = build_operation(op, data)
    return {
        "tool": "pydantic-ai",
        "op": op,
        "file": path,
        "bytes": len(data),
        **measure(operation, runs),
        "pydantic_ai_version": importlib.metadata.version("pydantic-ai-slim"),
        "pydantic_core_version": importlib.metadata.version("pydantic-core"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", required=True, help="history JSON written by ModelMessagesTypeAdapter.dump_json")
    parser.add_argument("--op", choices=OPERATIONS, required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    if not os.path.isfile(args.file):
        parser.error(f"no such file: {args.file}")
    print(json.dumps(run_benchmark(args.file, args.op, args.runs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
