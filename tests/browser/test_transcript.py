"""msgflow's HTML transcript (`msgflow show --html`) opened in headless Chromium.

Each test writes pages with the real msgflow binary and reads them back from the browser: the
page must render without a console error, show as many messages, tool calls and call/result links
as the history has, put each of `check`'s findings at the message and part `check --json` names,
and never run or load anything a history holds. Run by .ci/browser-tests.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter, defaultdict, deque
from pathlib import Path

import pytest

import harness

ROOT = harness.ROOT
EXAMPLE = ROOT / "examples" / "interrupted-session.json"

if harness.chromium_path() is None:
    pytest.skip("no chromium on PATH (.ci/browser-tests installs Debian's package)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with harness.Session() as session:
        yield session


def show_html(history: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(harness.msgflow_binary()), "show", "--html", *extra, str(history), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result


def expected_links(history: list[dict]) -> tuple[int, int]:
    """(tool calls, calls answered by a later result), pairing each result with the oldest open
    call of its id, as `msgflow check` does."""
    calls = 0
    answered = 0
    open_calls: dict[str, deque] = defaultdict(deque)
    open_builtin: dict[str, deque] = defaultdict(deque)
    for message in history:
        for part in message["parts"]:
            kind = part.get("part_kind")
            if kind in ("tool-call", "builtin-tool-call"):
                calls += 1
                target = open_calls if kind == "tool-call" else open_builtin
                if part.get("tool_call_id") is not None:
                    target[part["tool_call_id"]].append(1)
            elif kind in ("tool-return", "retry-prompt", "builtin-tool-return"):
                if kind == "retry-prompt" and part.get("tool_name") is None:
                    continue
                target = open_builtin if kind == "builtin-tool-return" else open_calls
                if target.get(part.get("tool_call_id")):
                    target[part["tool_call_id"]].popleft()
                    answered += 1
    return calls, answered


def assert_clean(opened: harness.Opened) -> None:
    assert opened.errors() == [], opened.errors()
    assert opened.foreign_requests() == [], opened.foreign_requests()


def assert_counts_match(opened: harness.Opened, history: list[dict]) -> None:
    page = opened.page
    calls, answered = expected_links(history)
    assert page.locator("article.msg").count() == len(history)
    assert page.locator("section.tool-call").count() == calls
    assert page.locator("a.to-result").count() == answered
    assert page.locator("a.to-call").count() == answered
    # Every link lands on its counterpart.
    broken = page.evaluate(
        """() => {
            const bad = [];
            for (const link of document.querySelectorAll('a.to-result, a.to-call')) {
                const target = document.getElementById(link.getAttribute('href').slice(1));
                const want = link.classList.contains('to-result') ? 'tool-result' : 'tool-call';
                if (!target || !target.classList.contains(want)) bad.push(link.getAttribute('href'));
            }
            return bad;
        }"""
    )
    assert broken == []


def page_markers(opened: harness.Opened) -> Counter:
    """(message, part) of each marker by where it sits on the page (part None: on the message)."""
    placed = opened.page.evaluate(
        """() => Array.from(document.querySelectorAll('#messages .marker')).map(marker => {
            const message = marker.closest('article.msg');
            const part = marker.closest('section.part[data-part]');
            return [message ? Number(message.dataset.index) : -1, part ? Number(part.dataset.part) : null];
        })"""
    )
    return Counter((message, part) for message, part in placed)


def check_markers(history: Path, *extra: str) -> Counter:
    result = subprocess.run(
        [str(harness.msgflow_binary()), "check", "--json", *extra, str(history)], capture_output=True, text=True
    )
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    if extra:  # --provider: message / part
        return Counter((violation["message"], violation.get("part")) for violation in report["violations"])
    return Counter((violation["message_index"], violation.get("part_index")) for violation in report["violations"])


def open_history(browser, tmp_path: Path, history: list[dict], name: str, *extra: str) -> harness.Opened:
    """Writes `history` as NAME.json, its page with `show --html EXTRA`, and opens the page with no
    console error and no request."""
    source = tmp_path / f"{name}.json"
    source.write_text(json.dumps(history))
    out = tmp_path / f"{name}.html"
    show_html(source, out, *extra)
    opened = browser.open(out)
    assert_clean(opened)
    return opened


def test_the_example_renders_with_every_message_call_and_link(browser, tmp_path):
    out = tmp_path / "example.html"
    show_html(EXAMPLE, out)
    opened = browser.open(out)
    assert_clean(opened)
    assert_counts_match(opened, json.loads(EXAMPLE.read_text()))
    assert opened.page.locator("svg.bars rect").count() >= 1


def test_check_markers_are_where_check_puts_them(browser, tmp_path):
    history = json.loads(EXAMPLE.read_text())
    # An orphan result and an empty message besides the example's dangling calls.
    history.insert(1, {"kind": "request", "parts": [
        {"part_kind": "tool-return", "tool_name": "ghost", "content": "no call made me", "tool_call_id": "ghost-1"}]})
    history.append({"kind": "response", "parts": []})
    history.append({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go on"}]})
    opened = open_history(browser, tmp_path, history, "problems")
    expected = check_markers(tmp_path / "problems.json")
    assert sum(expected.values()) >= 4
    assert page_markers(opened) == expected
    assert_counts_match(opened, history)


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat"])
def test_provider_markers_are_where_check_provider_puts_them(browser, tmp_path, provider):
    history = json.loads(EXAMPLE.read_text())
    # Whitespace-only assistant text and an empty user prompt: what providers refuse.
    history[1]["parts"].insert(1, {"part_kind": "text", "content": "  \n "})
    opened = open_history(browser, tmp_path, history, "provider", "--provider", provider)
    source = tmp_path / "provider.json"
    expected = check_markers(source) + check_markers(source, "--provider", provider)
    assert page_markers(opened) == expected


PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    "<img src=x onerror=\"window.__pwned = 2\">",
    "<svg onload=\"window.__pwned = 3\"><script>window.__pwned = 4</script></svg>",
    "[click me](javascript:window.__pwned=5) <a href=\"javascript:window.__pwned=6\">x</a>",
    "<style>body{background:url(http://127.0.0.1:9/css)}</style><div style=\"background:url(http://127.0.0.1:9/d)\">x</div>",
    "\"><script>window.__pwned = 7</script>'><img src=x onerror=window.__pwned=8>",
    "![remote](http://127.0.0.1:9/image.png) ![js](javascript:window.__pwned=9)",
    "</pre></details></div></section></article><script>window.__pwned = 10</script>",
    "<iframe src=\"javascript:window.__pwned=11\"></iframe><object data=\"http://127.0.0.1:9/o\"></object>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:window.__pwned=12\"><base href=\"http://127.0.0.1:9/\">",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=13>",
    "<details open ontoggle=\"window.__pwned=14\">x</details><input autofocus onfocus=\"window.__pwned=15\">",
    "<link rel=stylesheet href=\"http://127.0.0.1:9/s.css\"><form action=\"javascript:window.__pwned=16\"><button>go</button></form>",
]
PAYLOAD = "\n\n".join(PAYLOADS)


def hostile_history() -> list[dict]:
    """A history with the payloads in every field msgflow shows."""
    p = PAYLOAD
    return [
        {
            "kind": "request",
            "instructions": p,
            "parts": [
                {"part_kind": "system-prompt", "content": p},
                {"part_kind": "user-prompt", "content": p},
                {"part_kind": "user-prompt", "content": [
                    p,
                    {"kind": "image-url", "url": "javascript:window.__pwned=20"},
                    {"kind": "image-url", "url": "http://127.0.0.1:9/" + p},
                    {"kind": "document-url", "url": p, "media_type": p},
                    {"kind": "audio-url", "url": "data:text/html,<script>window.__pwned=21</script>"},
                    {"kind": "binary", "data": "PHN2ZyBvbmxvYWQ9IndpbmRvdy5fX3B3bmVkPTIyIi8+", "media_type": "image/svg+xml",
                     "identifier": p},
                    {"kind": "binary", "data": "aGVsbG8=", "media_type": "image/png\" onerror=\"window.__pwned=23",
                     "identifier": "x"},
                ]},
            ],
        },
        {
            "kind": "response",
            "model_name": p,
            "provider_name": p,
            "parts": [
                {"part_kind": "thinking", "content": p},
                {"part_kind": "text", "content": p},
                {"part_kind": "tool-call", "tool_name": p, "args": {p: p, "list": [p]}, "tool_call_id": p},
                {"part_kind": "tool-call", "tool_name": "raw", "args": p, "tool_call_id": "raw-1"},
                {"part_kind": "tool-call", "tool_name": "lost", "args": {}, "tool_call_id": "lost-" + p},
            ],
        },
        {
            "kind": "request",
            "parts": [
                {"part_kind": "tool-return", "tool_name": p, "content": p, "tool_call_id": p},
                {"part_kind": "retry-prompt", "tool_name": "raw", "content": p, "tool_call_id": "raw-1"},
                {"part_kind": "retry-prompt", "content": [{"type": p, "loc": [p], "msg": p, "input": p}]},
                {"part_kind": "tool-return", "tool_name": "orphan", "content": {p: [p]}, "tool_call_id": "orphan-" + p},
                {"part_kind": p, "content": p},
            ],
        },
    ]


INERT_DOM = """() => {
    const found = [];
    for (const element of document.querySelectorAll('*')) {
        for (const attribute of element.attributes) {
            const name = attribute.name.toLowerCase();
            const value = attribute.value.trim().toLowerCase();
            if (name.startsWith('on')) found.push(element.tagName + ' ' + name);
            if (name === 'style') found.push(element.tagName + ' style');
            if ((name === 'href' || name === 'src' || name === 'action' || name === 'data')
                && !(value.startsWith('#') || value.startsWith('https://') || value.startsWith('http://')
                     || value.startsWith('mailto:') || (value.startsWith('data:') && element.tagName !== 'A')
                     || (value.startsWith('data:') && element.hasAttribute('download'))))
                found.push(element.tagName + ' ' + name + '=' + value.slice(0, 40));
        }
        if (['IFRAME', 'OBJECT', 'EMBED', 'FORM', 'BASE', 'LINK', 'INPUT', 'BUTTON', 'MATH'].includes(element.tagName)
            && element.id !== 'search')
            found.push(element.tagName);
        if (element.tagName === 'IMG' && !element.getAttribute('src').startsWith('data:image/'))
            found.push('IMG ' + element.getAttribute('src').slice(0, 40));
    }
    const scripts = document.querySelectorAll('script').length;
    const styles = document.querySelectorAll('style').length;
    const metas = Array.from(document.querySelectorAll('meta[http-equiv]')).map(m => m.getAttribute('http-equiv'));
    if (scripts !== 1) found.push(scripts + ' scripts');
    if (styles !== 1) found.push(styles + ' styles');
    if (metas.length !== 1) found.push('meta ' + metas.join(','));
    return found;
}"""


def test_no_payload_runs_or_loads_anything(browser, tmp_path):
    history = hostile_history()
    # The file name is shown too (the title, the heading, the index).
    source = tmp_path / "<img src=x onerror=window.__pwned=30>.json"
    source.write_text(json.dumps(history))
    out = tmp_path / "hostile.html"
    show_html(source, out, "--provider", "anthropic")
    opened = browser.open(out)
    page = opened.page
    # Open everything collapsed and follow every in-page link, then look again.
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    for href in page.evaluate("() => Array.from(document.querySelectorAll('a[href^=\"#\"]')).map(a => a.getAttribute('href'))"):
        page.evaluate("href => { location.hash = href; }", href)
    opened.filter("pwned")
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__pwned") is None
    assert_clean(opened)
    assert page.evaluate(INERT_DOM) == []
    # The payloads are there, as text.
    text = page.evaluate("() => document.body.innerText")
    assert "<script>window.__pwned = 1</script>" in text
    assert "onerror=\"window.__pwned = 2\"" in text
    assert page.title().startswith("<img src=x onerror=window.__pwned=30>")
    assert_counts_match(opened, history)


def test_the_index_of_a_batch_lists_every_page(browser, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "one.json").write_text(EXAMPLE.read_text())
    (inputs / "<b onmouseover=alert(1)>two.json").write_text(EXAMPLE.read_text())
    (inputs / "broken.json").write_text("[{")
    out = tmp_path / "pages"
    result = subprocess.run(
        [str(harness.msgflow_binary()), "show", "--html", str(inputs), "-o", str(out)], capture_output=True, text=True
    )
    assert result.returncode == 2, result.stderr  # one input is not a history
    assert sorted(path.name for path in out.iterdir()) == sorted(
        ["index.html", "one.html", "<b onmouseover=alert(1)>two.html"]
    )
    opened = browser.open(out / "index.html")
    assert_clean(opened)
    links = opened.page.locator("table.index a")
    assert links.count() == 2
    for index in range(2):
        target = out / opened.page.evaluate(
            "i => decodeURIComponent(document.querySelectorAll('table.index a')[i].getAttribute('href'))", index
        )
        assert target.exists(), target
    assert "broken.json" in opened.page.evaluate("() => document.body.innerText")


def big_history(messages: int) -> list[dict]:
    """`messages` messages of a coding agent's loop: a prompt, then calls and their results."""
    history = [{"kind": "request", "parts": [
        {"part_kind": "system-prompt", "content": "You are a coding agent."},
        {"part_kind": "user-prompt", "content": "Fix the failing tests."}]}]
    step = 0
    while len(history) < messages:
        step += 1
        call_id = f"call-{step}"
        history.append({"kind": "response", "model_name": "claude-sonnet-4-5", "parts": [
            {"part_kind": "text", "content": f"Step {step}: reading `src/module_{step}.py` (marker-{step})."},
            {"part_kind": "tool-call", "tool_name": "read_file", "args": {"path": f"src/module_{step}.py"},
             "tool_call_id": call_id}],
            "usage": {"input_tokens": 1000 + step, "output_tokens": 40}})
        if len(history) < messages:
            output = "\n".join(f"line {line} of module {step}" for line in range(1 + step % 60))
            history.append({"kind": "request", "parts": [
                {"part_kind": "tool-return", "tool_name": "read_file", "content": output, "tool_call_id": call_id}]})
    return history


def test_a_big_history_opens_scrolls_and_filters(browser, tmp_path):
    history = big_history(10_000)
    source = tmp_path / "big.json"
    source.write_text(json.dumps(history))
    out = tmp_path / "big.html"
    started = time.perf_counter()
    show_html(source, out, "--context-window", "200000")
    written = time.perf_counter() - started
    opened = browser.open(out)
    assert_clean(opened)
    page = opened.page
    assert page.locator("article.msg").count() == 10_000
    # Scrolling to the end is one frame away, not a freeze.
    page.evaluate("""() => new Promise(resolve => { window.scrollTo(0, document.body.scrollHeight);
                                                 requestAnimationFrame(() => resolve()); })""")
    filtered = opened.filter("marker-4242)")
    assert opened.visible_messages() == 1
    assert opened.page.locator("#shown").inner_text() == "1 of 10000 messages"
    opened.filter("")
    assert opened.visible_messages() == 10_000
    print(f"\nbig history: written in {written:.2f} s (debug or release binary), "
          f"loaded in {opened.load_seconds:.2f} s, filtered in {filtered:.2f} s")
    assert_counts_match(opened, history)


# A 1x1 PNG, and the start of a PDF: one image shown inline, one file offered as a download.
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
PDF = "JVBERi0xLjQKJcTl8uXrp/Og0MTGCg=="


def test_media_are_inline_or_downloads_and_urls_are_never_fetched(browser, tmp_path):
    history = json.loads((ROOT / "examples" / "multimodal" / "history.json").read_text())
    history.append({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [
        "Here are the files.",
        {"kind": "binary", "data": PNG_1X1, "media_type": "image/png", "identifier": "dot.png"},
        {"kind": "binary", "data": PDF, "media_type": "application/pdf", "identifier": "spec.pdf"},
    ]}]})
    page = open_history(browser, tmp_path, history, "media").page
    # The image decoded from its data: URL (the policy allows data: images and nothing else).
    assert page.evaluate(
        "() => Array.from(document.querySelectorAll('img.inline-image')).map(img => img.naturalWidth)"
    ) == [1]
    downloads = page.evaluate(
        "() => Array.from(document.querySelectorAll('a.download')).map(a => a.getAttribute('download'))"
    )
    assert sorted(downloads) == ["e00675", "spec.pdf"]  # the example's CSV is named by its identifier
    links = page.evaluate("() => Array.from(document.querySelectorAll('a.url')).map(a => a.href)")
    assert "https://example.com/chart.png" in links and "https://example.com/report.pdf" in links
    text = page.evaluate("() => document.body.innerText")
    assert "application/pdf" in text and "text/csv" in text
