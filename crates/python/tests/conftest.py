"""Shared by the msgflow Python tests: where the repository, its fixtures and the CLI are."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
EXAMPLES = ROOT / "examples"
# CI sees the shared corpora beside the checkout (../shared relative to the workspace root).
REALWORLD = ROOT.parent / "shared" / "realworld"


def msgflow_bin() -> str:
    """The `msgflow` binary the parity tests compare with (`.ci/python-tests` sets MSGFLOW_BIN)."""
    path = os.environ.get("MSGFLOW_BIN") or shutil.which("msgflow")
    if not path:
        pytest.fail("set MSGFLOW_BIN to the msgflow binary (cargo build -p msgflow-cli)")
    return path


def run_cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[bytes]:
    """Runs the CLI; exit 0, 1 (problems) and 2 (invalid input) are answers, anything else a failure."""
    result = subprocess.run([msgflow_bin(), *map(str, args)], capture_output=True, timeout=120)
    assert result.returncode in (0, 1, 2), result.stderr.decode(errors="replace")
    return result
