"""msgflow on a real Ray cluster: a head and two worker nodes, each its own raylet process on this machine.

A seeded corpus of 50,000 rows (histories as found, broken ones, not-histories, nulls; `corpus.py`) is
written as Parquet, read by Ray Data, checked and repaired with `msgflow.ray`'s callables in
`map_batches` on the worker nodes, and written back as Parquet. Every row's answers equal the CLI's
(`msgflow check --json` on the same Parquet files, one line per row), and a worker process killed with SIGKILL in the
middle of a batch (Ray runs the task again) loses and duplicates no row.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import msgflow_bin, run_cli  # noqa: E402  (the package tests' helpers)

import corpus  # noqa: E402
import msgflow
import msgflow.ray

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

# A Ray API spelling Ray has deprecated (such as remote arguments passed to `map_batches`) fails
# the test, rather than breaking it when that Ray release removes the spelling.
pytestmark = pytest.mark.filterwarnings("error::ray.util.annotations.RayDeprecationWarning")

ROWS = 50_000
SEED = 33
BATCH = 2_000


class KilledOnce(msgflow.ray.BatchFunction):
    """`msgflow.ray.check`, except that the first batch to claim `victim` waits to be killed there."""

    def __init__(self, signals: str) -> None:
        super().__init__(msgflow.arrow.check, "messages", {"provider": None}, fields=["loadable", "valid", "problems", "report"])
        self.signals = signals

    def __call__(self, batch):
        signals = Path(self.signals)
        first = batch.column("id")[0].as_py()
        (signals / f"batch-{first}-{os.getpid()}").touch()
        try:
            descriptor = os.open(signals / "victim", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return super().__call__(batch)
        os.write(descriptor, str(os.getpid()).encode())
        os.close(descriptor)
        time.sleep(120)  # killed long before this ends
        raise RuntimeError("the worker was not killed")


@pytest.fixture(scope="module")
def cluster():
    # The machine's disk is shared with build trees: Ray's default refuses to store objects once it
    # is 95% full, though the test needs a few hundred MB.
    os.environ.setdefault("RAY_local_fs_capacity_threshold", "0.995")
    # Two worker nodes with one CPU each do the work; the head (no CPU) only schedules.
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "object_store_memory": 150 * 2**20, "include_dashboard": False},
    )
    for _ in range(2):
        nodes.add_node(num_cpus=1, object_store_memory=150 * 2**20)
    ray.init(address=nodes.address, log_to_driver=False)
    ray.cloudpickle.register_pickle_by_value(__import__(__name__))
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    # Ray Data polls a Prometheus server no test cluster runs and logs each failure at debug level.
    logging.getLogger("ray.data").setLevel(logging.INFO)
    yield nodes
    ray.shutdown()
    nodes.shutdown()


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corpus")
    texts = corpus.rows(ROWS, SEED)
    table = pa.table({"id": pa.array(range(ROWS), pa.int64()), "messages": pa.array(texts, pa.string())})
    for part in range(5):
        pq.write_table(table.slice(part * ROWS // 5, ROWS // 5), directory / f"part-{part}.parquet", row_group_size=2_500)
    return directory, texts


def _cli_reports(source: Path) -> dict[int, dict]:
    """`msgflow check --json` on each Parquet file of the corpus: row id -> the CLI's line for it."""
    reports = {}
    for part in sorted(source.glob("*.parquet")):
        result = run_cli("check", "--json", part, "--column", "messages", "--id-column", "id")
        # Split on newlines only: a JSON line may hold U+2028 and other characters `splitlines` breaks at.
        lines = [json.loads(line) for line in result.stdout.decode().split("\n")[:-1]]
        assert "summary" in lines[-1], lines[-1]
        for entry in lines[:-1]:
            reports[entry["id"]] = entry
    return reports


def test_check_and_repair_on_three_nodes_equal_the_cli_and_survive_a_killed_worker(cluster, rows, tmp_path) -> None:
    assert len([node for node in ray.nodes() if node["Alive"]]) == 3
    source, texts = rows
    signals = tmp_path / "signals"
    signals.mkdir()

    def kill_the_victim() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            victim = signals / "victim"
            if victim.exists() and victim.read_text():
                os.kill(int(victim.read_text()), signal.SIGKILL)
                (signals / "killed").touch()
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_victim, daemon=True)
    killer.start()
    started = time.monotonic()
    dataset = ray.data.read_parquet(str(source))
    # No `max_retries`: Ray Data runs a map task again when its worker process dies (its tasks'
    # default), and passing Ray remote arguments to `map_batches` is deprecated (gone in Ray 2.64).
    dataset = dataset.map_batches(KilledOnce(str(signals)), batch_format="pyarrow", batch_size=BATCH)
    dataset = dataset.map_batches(
        msgflow.ray.repair("messages", prefix="repair_", fields=["history", "changes"]),
        batch_format="pyarrow",
        batch_size=BATCH,
    )
    out = tmp_path / "out"
    dataset.write_parquet(str(out))
    elapsed = time.monotonic() - started
    killer.join(timeout=5)
    print(f"ray: {ROWS} rows checked and repaired on 2 worker nodes in {elapsed:.1f}s")

    # The victim died in the middle of its batch, and Ray ran that batch again in another process.
    assert (signals / "killed").exists()
    runs: dict[str, set[str]] = {}
    for marker in signals.glob("batch-*"):
        _, first, pid = marker.name.split("-")
        runs.setdefault(first, set()).add(pid)
    assert any(len(pids) > 1 for pids in runs.values()), runs

    table = pq.read_table(out).sort_by("id")
    # No row lost, none twice, every column kept.
    assert table.column("id").to_pylist() == list(range(ROWS))
    assert table.column("messages").to_pylist() == texts

    cli = _cli_reports(source)
    assert len(cli) == ROWS
    loadable = table.column("msgflow_loadable").to_pylist()
    valid = table.column("msgflow_valid").to_pylist()
    problems = table.column("msgflow_problems").to_pylist()
    reports = table.column("msgflow_report").to_pylist()
    errors = table.column("msgflow_error").to_pylist()
    repaired = table.column("repair_history").to_pylist()
    repair_errors = table.column("repair_error").to_pylist()
    kinds = {"valid": 0, "problems": 0, "invalid": 0, "null": 0}
    for row, text in enumerate(texts):
        entry = cli[row]
        if text is None:
            kinds["null"] += 1
            assert "error" in entry, entry
            assert loadable[row] is errors[row] is repaired[row] is repair_errors[row] is None
            continue
        if "error" in entry:
            kinds["invalid"] += 1
            assert errors[row] is not None and errors[row] in entry["error"], (row, errors[row], entry["error"])
            assert repair_errors[row] == errors[row] and repaired[row] is None
            continue
        kinds["valid" if entry["valid"] else "problems"] += 1
        assert errors[row] is None, (row, errors[row])
        assert loadable[row] == entry["pydantic_ai_loadable"], row
        assert valid[row] == entry["valid"], row
        assert problems[row] == list(dict.fromkeys(violation["kind"] for violation in entry["violations"])), row
        ours = json.loads(reports[row])
        located = [(v["kind"], v["message_index"], v.get("part_index"), v["turn"]) for v in ours["violations"]]
        assert located == [(v["kind"], v["message_index"], v.get("part_index"), v["turn"]) for v in entry["violations"]]
        assert repaired[row] is not None and repair_errors[row] is None
    # The corpus holds every kind of row, so each comparison above was made many times.
    assert min(kinds.values()) > 1000, kinds
    # A sample of the repaired rows: as the package's repair makes them, and without a dangling call left.
    for row in range(0, ROWS, 997):
        if repaired[row] is not None:
            assert repaired[row].encode() == msgflow.repair(texts[row].encode()).history


def _readme_section() -> str:
    readme = (Path(__file__).resolve().parents[4] / "README.md").read_text()
    return readme.split("## Whole corpora, on one machine or on Ray", 1)[1].split("\n## ", 1)[0]


def test_the_readme_corpus_examples_run_as_written(cluster, rows, tmp_path) -> None:
    source, texts = rows
    section = _readme_section()
    shutil.copytree(source, tmp_path / "histories")
    shutil.copy(source / "part-0.parquet", tmp_path / "histories.parquet")
    # The command lines, with the binary under test (exit 2: some rows are not histories).
    outputs = []
    for command in re.search(r"```sh\n(.*?)```", section, re.S).group(1).splitlines():
        args = shlex.split(command.split("#", 1)[0])
        assert args[0] == "msgflow"
        result = subprocess.run([msgflow_bin(), *args[1:]], cwd=tmp_path, capture_output=True, timeout=300)
        assert result.returncode in (0, 1, 2), result.stderr.decode(errors="replace")
        outputs.append(result.stdout)
    assert outputs[0].count(b"\n") == ROWS // 5 + 1
    assert pq.read_table(tmp_path / "repaired.parquet").num_rows == ROWS // 5
    # The Ray example, as a driver of its own on the test's cluster.
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    # Ray's tasks run in the worker nodes' own directories: a cluster reads and writes shared paths.
    code = code.replace('"histories/"', repr(f"{tmp_path}/histories/")).replace('"repaired/"', repr(f"{tmp_path}/repaired/"))
    environment = {**os.environ, "RAY_ADDRESS": cluster.address}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environment, capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-3000:]
    table = pq.read_table(tmp_path / "repaired").sort_by("id")
    assert table.column("id").to_pylist() == list(range(ROWS))
    assert table.column_names[2:] == [
        "msgflow_loadable", "msgflow_problems", "msgflow_error", "repair_changes", "repair_error"
    ]
    # A row repaired in place is what msgflow.repair makes of it; a failed row passed through unchanged.
    messages = table.column("messages").to_pylist()
    errors = table.column("repair_error").to_pylist()
    for row in range(0, ROWS, 499):
        if texts[row] is None or errors[row] is not None:
            assert messages[row] == texts[row]
        else:
            assert messages[row].encode() == msgflow.repair(texts[row].encode()).history
