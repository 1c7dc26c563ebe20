"""Screenshot of a transcript page in headless Chromium: ``screenshot.py PAGE.html OUT.png``.

Makes docs/transcript.png from the shipped example (see README.md):
``msgflow show --html --context-window 2000 examples/interrupted-session.json -o /tmp/example.html``,
then ``screenshot.py /tmp/example.html docs/transcript.png``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import harness


def main() -> None:
    page_path, out = Path(sys.argv[1]), Path(sys.argv[2])
    with harness.Session() as session:
        opened = session.open(page_path)
        # Show one thinking part opened, as a reader would.
        opened.page.evaluate("() => { const d = document.querySelector('details.thinking'); if (d) d.open = true; }")
        # The page lays out only the messages on screen (`content-visibility: auto`), so a
        # full-page capture of a short viewport would show the rest as empty cards: make the
        # viewport as tall as the page, then capture it.
        height = opened.page.evaluate("() => document.documentElement.scrollHeight")
        opened.page.set_viewport_size({"width": opened.page.viewport_size["width"], "height": height})
        opened.page.wait_for_timeout(200)
        opened.page.screenshot(path=str(out), full_page=True)
        if opened.errors():
            sys.exit(f"console errors: {opened.errors()}")


if __name__ == "__main__":
    main()
