"""How usable a transcript page is in headless Chromium, for `cargo xtask bench`.

``measure.py PAGE.html --runs N`` opens the page N times (after one warm-up) and prints JSON:
the seconds until the first frame after load, until a search filter is applied and painted,
and until a scroll to the end is painted, for each run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import harness


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("page", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"load_s": [], "filter_s": [], "scroll_s": []}
    messages = 0
    with harness.Session() as session:
        for run in range(args.runs + 1):
            opened = session.open(args.page)
            if opened.errors():
                raise SystemExit(f"console errors: {opened.errors()}")
            page = opened.page
            messages = page.locator("article.msg").count()
            # A word in every message: the filter's worst case (nothing is hidden, all is searched).
            filter_s = opened.filter("read_file")
            started = time.perf_counter()
            page.evaluate(
                """() => new Promise(resolve => { window.scrollTo(0, document.body.scrollHeight);
                                                 requestAnimationFrame(() => setTimeout(resolve, 0)); })"""
            )
            scroll_s = time.perf_counter() - started
            page.close()
            if run > 0:
                times["load_s"].append(opened.load_seconds)
                times["filter_s"].append(filter_s)
                times["scroll_s"].append(scroll_s)
    version = subprocess.run([harness.chromium_path(), "--version"], capture_output=True, text=True).stdout.strip()
    print(json.dumps({"chromium": version, "messages": messages, "page_bytes": args.page.stat().st_size, **times}))


if __name__ == "__main__":
    main()
