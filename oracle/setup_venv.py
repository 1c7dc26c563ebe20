#!/usr/bin/env python3
"""Create (or reuse) a virtualenv and install pinned requirements into it.

Usage:
    python3 oracle/setup_venv.py --venv DIR --requirements FILE [--requirements FILE ...]

The venv is created with ``python3 -m venv`` when it does not exist. Requirements are installed with pip only
when the stamp file ``DIR/.msgflow-requirements.sha256`` (a SHA-256 over the requirement files' names and bytes)
differs from the current one, so a second call with unchanged files is quick and makes no network access.
On success the venv's python interpreter path is printed on stdout (and nothing else is).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

STAMP_NAME = ".msgflow-requirements.sha256"


def venv_python(venv: Path) -> Path:
    """Path of the python interpreter inside ``venv`` (POSIX or Windows layout)."""
    posix = venv / "bin" / "python"
    if posix.exists() or os.name != "nt":
        return posix
    return venv / "Scripts" / "python.exe"


def requirements_digest(files: list[Path]) -> str:
    """Digest of the requirement files' contents, in the given order.

    The base name is hashed too so that swapping two files' roles changes the stamp.
    """
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def ensure_venv(venv: Path) -> Path:
    """Create the venv if its interpreter is missing; return the interpreter path."""
    python = venv_python(venv)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, stdout=sys.stderr)
    return python


def install(python: Path, files: list[Path]) -> None:
    """Install every requirement file with the venv's pip (output goes to stderr)."""
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-q"]
    for path in files:
        command += ["-r", str(path)]
    subprocess.run(command, check=True, stdout=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", required=True, type=Path, help="virtualenv directory (created if missing)")
    parser.add_argument(
        "--requirements", required=True, action="append", type=Path, help="requirements file (repeatable)"
    )
    args = parser.parse_args(argv)

    files = [path.resolve() for path in args.requirements]
    for path in files:
        if not path.is_file():
            parser.error(f"requirements file not found: {path}")

    venv = args.venv.resolve()
    python = ensure_venv(venv)
    stamp = venv / STAMP_NAME
    wanted = requirements_digest(files)
    current = stamp.read_text().strip() if stamp.exists() else None
    if current != wanted:
        install(python, files)
        stamp.write_text(wanted + "\n")
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
