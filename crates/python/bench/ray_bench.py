#!/usr/bin/env python3
"""The Ray path's throughput per core beside the CLI's (the Ray rows of the corpus section of BENCHMARKS.md,
run by `cargo xtask bench --corpus-only`, xtask/src/bench/corpus.rs).

One seeded corpus (`crates/python/tests/ray/corpus.py`, the Ray test's generator: histories as found,
broken ones, not-histories, nulls) is written once as Parquet (or given with --parquet, as the bench does),
then checked four ways, each on one core:

* `cli`: `msgflow check --json corpus.parquet --column messages --threads 1` (one JSON line per row);
* `arrow`: `msgflow.arrow.check` on the column in this process (rayon held to one thread);
* `ray`: `ray.data.read_parquet -> map_batches(msgflow.ray.check(...)) -> materialize` on a local Ray
  with one CPU (workers' rayon held to one thread), the cluster already up;
* `pydantic-ai`: a plain Python loop of `ModelMessagesTypeAdapter.validate_json` over the same rows.

Each figure is the median of --runs runs after a warm-up. Prints one JSON object per row, with the load
average before and after (the machine may be shared). Run with a Python that has the release wheel,
pydantic-ai-slim 2.68.0 and Ray Data (crates/python/tests/ray/requirements.txt) installed:

    RAYON_NUM_THREADS=1 target/py-test/bin/python crates/python/bench/ray_bench.py \\
        --msgflow target/release/msgflow --dir target/bench-ray --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "crates" / "python" / "tests" / "ray"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from python_bench import median_seconds  # noqa: E402  (the Python section's timing)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--msgflow", required=True, help="the msgflow binary (release)")
    parser.add_argument("--dir", type=Path, default=ROOT / "target" / "bench-ray")
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parquet", type=Path,
                        help="check this corpus (a string column `messages`, --rows rows) instead of generating one")
    args = parser.parse_args()
    if os.environ.get("RAYON_NUM_THREADS") != "1":
        parser.error("set RAYON_NUM_THREADS=1 (the rows are per core)")

    import pyarrow as pa
    import pyarrow.parquet as pq

    import corpus

    if args.parquet is not None:
        path = args.parquet
        texts = pq.read_table(path, columns=["messages"]).column("messages").to_pylist()
        if len(texts) != args.rows:
            parser.error(f"{path} has {len(texts)} rows, not --rows {args.rows}")
    else:
        args.dir.mkdir(parents=True, exist_ok=True)
        path = args.dir / f"corpus-{args.rows}-seed{args.seed}.parquet"
        texts = corpus.rows(args.rows, args.seed)
        if not path.exists():
            table = pa.table({"id": pa.array(range(args.rows), pa.int64()), "messages": pa.array(texts, pa.string())})
            pq.write_table(table, path, row_group_size=5_000)
    megabytes = sum(len(text.encode("utf-8", "surrogatepass")) for text in texts if text is not None) / 2**20
    load_before = os.getloadavg()

    def row(name: str, seconds: float, **extra) -> None:
        print(json.dumps({"row": name, "rows": args.rows, "MiB": round(megabytes, 1), "seconds": round(seconds, 3),
                          "rows_per_second": round(args.rows / seconds), **extra}), flush=True)

    command = [args.msgflow, "check", "--json", str(path), "--column", "messages", "--threads", "1"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": False}
    cli = median_seconds(lambda: subprocess.run(command, **quiet), args.runs)
    row("cli", cli)

    import msgflow.arrow
    import msgflow.ray

    column = pq.read_table(path, columns=["messages"]).column("messages")
    row("arrow", median_seconds(lambda: msgflow.arrow.check(column), args.runs))

    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"RAYON_NUM_THREADS": "1"}})
    ray.data.DataContext.get_current().enable_progress_bars = False
    check = msgflow.ray.check("messages", fields=["loadable", "problems"])

    def on_ray() -> None:
        dataset = ray.data.read_parquet(str(path)).map_batches(check, batch_format="pyarrow", batch_size=5_000)
        assert dataset.materialize().count() == args.rows

    ray_seconds = median_seconds(on_ray, args.runs)
    ray.shutdown()
    row("ray", ray_seconds, over_cli=round(ray_seconds / cli, 2))

    from pydantic_ai.messages import ModelMessagesTypeAdapter
    from pydantic_core import ValidationError

    data = [text.encode("utf-8", "surrogatepass") for text in texts if text is not None]

    def python_loop() -> None:
        for item in data:
            try:
                ModelMessagesTypeAdapter.validate_json(item)
            except ValidationError:
                pass

    row("pydantic-ai", median_seconds(python_loop, args.runs))
    print(json.dumps({"load_average_before": load_before, "load_average_after": os.getloadavg()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
