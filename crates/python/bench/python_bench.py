#!/usr/bin/env python3
"""msgflow's Python package beside pydantic-ai 2.68.0 (the Python section of BENCHMARKS.md).

`cargo xtask bench --python-only` runs it (xtask/src/bench/python.rs): it installs the release wheel into
`target/venv-python-bench` beside pydantic-ai-slim 2.68.0 and pydantic-ai-harness 0.62.0 and writes the rows
as the generated Python section. By hand, with such a Python:

    target/venv-python-bench/bin/python crates/python/bench/python_bench.py --dir target/bench/python --runs 5

The histories are the benchmark's own (`oracle/bench/gen_history.py`, seed 1), generated into --dir when
missing. Each figure is the median of --runs runs after a warm-up, in this one process. Prints one JSON
object per row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from pydantic_ai.messages import ModelMessagesTypeAdapter

import msgflow
from msgflow import _msgflow
from msgflow.pydantic_ai import HistoryCache, fit_messages

ROOT = Path(__file__).resolve().parents[3]


def median_seconds(operation, runs: int) -> float:
    operation()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        operation()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def history(directory: Path, shape: str, extra: list[str]) -> Path:
    path = directory / f"{shape}{'-' + '-'.join(extra) if extra else ''}-seed1.json"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, str(ROOT / "oracle/bench/gen_history.py"), "--shape", shape, "--seed", "1",
             "--out", str(path), *extra],
            check=True,
        )
    return path


def row(**fields) -> None:
    print(json.dumps(fields), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=ROOT / "target/bench-python")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=int, default=100_000, help="FitContext's max_tokens")
    parser.add_argument("--rows", nargs="+", choices=["check", "two", "fit"], default=["check", "two", "fit"],
                        help="which rows to run (default: all)")
    args = parser.parse_args()

    for shape, target in (("big-structured", 10.0), ("big-strings", 4.0)) if "check" in args.rows else ():
        data = history(args.dir, shape, []).read_bytes()
        pydantic = median_seconds(lambda: ModelMessagesTypeAdapter.validate_json(data), args.runs)
        facade = median_seconds(lambda: msgflow.check(data), args.runs)
        native = median_seconds(lambda: _msgflow.check(data, None), args.runs)
        rust = statistics.median(_msgflow._check_seconds_per_call(data, 1) for _ in range(args.runs))
        row(row="check vs validate_json", history=shape, mib=round(len(data) / 2**20, 1),
            pydantic_s=pydantic, msgflow_s=facade, ratio=pydantic / facade, target=target,
            met=pydantic / facade >= target)
        row(row="binding over the Rust call", history=shape, rust_s=rust, native_s=native, facade_s=facade,
            ratio=facade / rust, target=1.2, met=facade / rust <= 1.2)

    if "two" in args.rows:
        two_message_row(args.runs)
    if "fit" in args.rows:
        fit_row(args)
    return 0


def two_message_row(runs: int) -> None:
    two = (ROOT / "tests/fixtures/v2_68/minimal.json").read_bytes()
    calls = 20_000
    per_call = median_seconds(lambda: [msgflow.check(two) for _ in range(calls)], runs) / calls
    native_call = median_seconds(lambda: [_msgflow.check(two, None) for _ in range(calls)], runs) / calls
    rust = statistics.median(_msgflow._check_seconds_per_call(two, calls) for _ in range(runs))
    row(row="check on a two-message history", history="v2_68/minimal.json", msgflow_us=per_call * 1e6,
        native_us=native_call * 1e6, rust_us=rust * 1e6, target_us=20, met=per_call * 1e6 < 20)


def fit_row(args: argparse.Namespace) -> None:
    messages = ModelMessagesTypeAdapter.validate_json(history(args.dir, "small", ["--messages", "10000"]).read_bytes())
    # FitContext's request: its HistoryCache holds the history as the previous request left it, and
    # the request brings a few new messages (a tool call and its result, or a prompt and an answer).
    growth = 4
    cache = HistoryCache()
    fit_messages(messages[: len(messages) - growth * (args.runs + 2)], max_tokens=args.budget, cache=cache)
    per_request = []
    for step in range(args.runs + 1, -1, -1):
        upto = len(messages) - growth * step
        start = time.perf_counter()
        fit_messages(messages[:upto], max_tokens=args.budget, cache=cache)
        per_request.append(time.perf_counter() - start)
    fit = statistics.median(per_request[1:])
    cold = median_seconds(lambda: fit_messages(messages, max_tokens=args.budget), args.runs)
    try:
        from pydantic_ai_harness.compaction import SlidingWindowCompaction
    except ImportError:
        row(row="FitContext per request", history="small 10,000 messages", msgflow_s=fit, cold_s=cold,
            harness="not importable")
        return
    strategy = SlidingWindowCompaction(max_messages=1, keep_tokens=args.budget)
    loop = asyncio.new_event_loop()
    harness = median_seconds(lambda: loop.run_until_complete(strategy.compact(messages, None)), args.runs)
    row(row="FitContext per request vs SlidingWindowCompaction", history="small 10,000 messages",
        budget=args.budget, growth=growth, msgflow_s=fit, cold_s=cold, harness_s=harness, ratio=harness / fit,
        target=5.0, met=harness / fit >= 5.0)


if __name__ == "__main__":
    sys.exit(main())
