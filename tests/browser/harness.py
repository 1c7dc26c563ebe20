"""Opening msgflow's transcript pages in Debian's headless Chromium through Playwright.

Shared by the browser tests (test_transcript.py) and the benchmark's usability measure
(measure.py). The browser is the system's (``MSGFLOW_CHROMIUM`` or ``/usr/bin/chromium``):
Playwright never downloads one here, and the machine's network is closed, so every flag that
would make Chromium reach out is set.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM_FLAGS = [
    "--no-sandbox",  # root in CI has no user namespace for the sandbox
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str | None:
    """The system Chromium, or None when there is none."""
    explicit = os.environ.get("MSGFLOW_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def msgflow_binary() -> Path:
    """The msgflow binary the tests run (``MSGFLOW_BIN``, else target/release, else target/debug)."""
    explicit = os.environ.get("MSGFLOW_BIN")
    if explicit:
        return Path(explicit)
    for profile in ("release", "debug"):
        candidate = ROOT / "target" / profile / "msgflow"
        if candidate.exists():
            return candidate
    raise FileNotFoundError("no msgflow binary: build it (cargo build -p msgflow-cli) or set MSGFLOW_BIN")


class Session:
    """One Chromium with a fresh profile directory, closed with the context manager."""

    def __init__(self) -> None:
        executable = chromium_path()
        if executable is None:
            raise FileNotFoundError("no chromium on PATH")
        self._playwright = sync_playwright().start()
        # Playwright starts Chromium with a fresh temporary profile of its own (it refuses a
        # --user-data-dir argument to launch) and removes it on close.
        self.browser: Browser = self._playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.browser.close()
        self._playwright.stop()

    def open(self, html: Path, *, timeout_ms: float = 60_000) -> Opened:
        """Opens `html` in a new page, recording console errors, page errors and every request."""
        page = self.browser.new_page(viewport={"width": 1100, "height": 900})
        opened = Opened(page=page)
        page.on("console", lambda message: opened.console.append((message.type, message.text)))
        page.on("pageerror", lambda error: opened.page_errors.append(str(error)))
        page.on("request", lambda request: opened.requests.append(request.url))
        started = time.perf_counter()
        page.goto(html.resolve().as_uri(), wait_until="load", timeout=timeout_ms)
        # One frame after load: layout and first paint are done.
        page.evaluate("() => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)))")
        opened.load_seconds = time.perf_counter() - started
        return opened


@dataclass
class Opened:
    """A page and what it did while it was open."""

    page: Page
    console: list[tuple[str, str]] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    load_seconds: float = 0.0

    def errors(self) -> list[str]:
        """Console errors and uncaught exceptions (a CSP violation is a console error too)."""
        return [text for kind, text in self.console if kind == "error"] + self.page_errors

    def foreign_requests(self) -> list[str]:
        """Requests for anything but the page itself and inline data: URLs."""
        own = self.page.url.split("#", 1)[0]
        return [url for url in self.requests if url.split("#", 1)[0] != own and not url.startswith("data:")]

    def filter(self, query: str, *, timeout_ms: float = 30_000) -> float:
        """Types `query` into the search box; returns the seconds until the page has applied it."""
        search = self.page.locator("#search")
        started = time.perf_counter()
        search.fill(query)
        self.page.wait_for_function(
            "query => document.body.getAttribute('data-filter') === query",
            arg=query.strip().lower(),
            timeout=timeout_ms,
        )
        return time.perf_counter() - started

    def visible_messages(self) -> int:
        return self.page.evaluate("() => document.querySelectorAll('article.msg:not([hidden])').length")
