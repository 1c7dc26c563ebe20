#!/usr/bin/env python3
"""Python ``tiktoken`` on the vocabulary files the Rust crate ``tiktoken-rs`` ships, offline.

``tiktoken`` downloads its encoding files on first use and caches them under ``TIKTOKEN_CACHE_DIR``, named by the
SHA-1 of their URL.  This script seeds that cache with ``tiktoken-rs``'s own ``assets/*.tiktoken`` files (``--assets``)
and forbids any download, so both tools count the same vocabulary without the internet; ``tiktoken`` then checks each
file against the SHA-256 OpenAI publishes for it (``tiktoken_ext/openai_public.py``), which proves that the crate
ships OpenAI's vocabulary unchanged.

``tokens_oracle.py --assets DIR --cache DIR``
    stdin: one JSON object per line, ``{"id": ..., "encoding": "o200k_base", "text": ...}``; stdout: one line per
    input, ``{"id": ..., "tokens": [...]}`` (``encode_ordinary``, what msgflow's counter runs). Used by
    ``cargo xtask conformance`` (token for token agreement); ``oracle/bench/peer_bench.py`` times the same
    encoding for ``cargo xtask bench``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys

BLOB_ROOT = "https://openaipublic.blob.core.windows.net/encodings/"
ENCODINGS = ("o200k_base", "cl100k_base")


def seed_cache(assets: str, cache: str) -> None:
    """Put the crate's vocabulary files where tiktoken looks for its downloads."""
    os.makedirs(cache, exist_ok=True)
    for name in ENCODINGS:
        url = f"{BLOB_ROOT}{name}.tiktoken"
        target = os.path.join(cache, hashlib.sha1(url.encode()).hexdigest())
        source = os.path.join(assets, f"{name}.tiktoken")
        if not os.path.exists(target) or os.path.getsize(target) != os.path.getsize(source):
            shutil.copyfile(source, target)
    os.environ["TIKTOKEN_CACHE_DIR"] = cache


def no_download(blobpath: str) -> bytes:
    raise RuntimeError(
        f"tiktoken wanted to download {blobpath}: the seeded cache did not match OpenAI's published hash "
        "(tiktoken-rs's vocabulary file differs from OpenAI's)"
    )


def load(name: str):
    import tiktoken
    import tiktoken.load

    tiktoken.load.read_file = no_download
    return tiktoken.get_encoding(name)


def encode(encodings: dict) -> None:
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        name = case["encoding"]
        if name not in encodings:
            encodings[name] = load(name)
        # `surrogatepass` texts cannot be encoded by tiktoken; the driver sends valid Unicode only.
        tokens = encodings[name].encode_ordinary(case["text"])
        out.write(json.dumps({"id": case["id"], "tokens": tokens}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", required=True, help="tiktoken-rs's assets directory")
    parser.add_argument("--cache", required=True, help="the TIKTOKEN_CACHE_DIR to seed")
    args = parser.parse_args()
    seed_cache(args.assets, args.cache)
    encode({})


if __name__ == "__main__":
    main()
