"""`msgflow check` on a corpus draws its progress bar on stderr when stderr is a terminal, and only then.

The CLI runs with its stderr on a pseudo-terminal (Python's `pty`, so the test never skips on Linux) of
80 columns; its stdout is a pipe and keeps every row's JSON line. Without a terminal, stderr holds no bar.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import termios
from pathlib import Path

from conftest import EXAMPLES, msgflow_bin

ROWS = 2_000
# The JSON Lines template of `crates/cli/src/corpus.rs` (`progress_bar`): "{bytes}/{total_bytes}".
BAR = re.compile(rb"\d+(\.\d+)? ?[KMG]?i?B/\d+(\.\d+)? ?[KMG]?i?B")


def _corpus(directory: Path) -> Path:
    history = json.dumps(json.loads((EXAMPLES / "interrupted-session.json").read_text("utf-8")))
    path = directory / "corpus.jsonl"
    path.write_text("\n".join([history] * ROWS) + "\n", "utf-8")
    return path


def _command(corpus: Path) -> list[str]:
    # Small batches: the bar advances many times.
    return [msgflow_bin(), "check", "--json", str(corpus), "--batch-rows", "50", "--threads", "1"]


def _rows(stdout: bytes) -> int:
    return sum(1 for line in stdout.splitlines() if line.startswith(b'{"row"'))


def test_the_bar_is_drawn_on_a_terminal(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    # A file, not a pipe: the terminal is read to its end before stdout is.
    stdout_file = (tmp_path / "stdout.jsonl").open("wb")
    try:
        process = subprocess.Popen(_command(corpus), stdin=subprocess.DEVNULL, stdout=stdout_file, stderr=follower)
        os.close(follower)
        follower = -1
        drawn = bytearray()
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: every writer of the terminal is gone
                break
            if not chunk:
                break
            drawn += chunk
        assert process.wait(timeout=120) in (0, 1), bytes(drawn).decode(errors="replace")
        stdout_file.close()
        stdout = (tmp_path / "stdout.jsonl").read_bytes()
    finally:
        stdout_file.close()
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert _rows(stdout) == ROWS
    assert BAR.search(drawn), f"no progress bar on the terminal: {bytes(drawn)[:400]!r}"
    # The bar is cleared when the corpus is done (indicatif's `finish_and_clear`): an erase of the line.
    assert b"\x1b[" in drawn


def test_no_bar_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    result = subprocess.run(_command(corpus), stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    assert result.returncode in (0, 1), result.stderr.decode(errors="replace")
    assert _rows(result.stdout) == ROWS
    assert not BAR.search(result.stderr), result.stderr[:400]
    assert b"\x1b[" not in result.stderr
