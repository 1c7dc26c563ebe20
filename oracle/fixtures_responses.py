"""Fixture histories of every response part, tool call and tool return kind pydantic-ai 2.68.0 writes
(registered with ``@fixture``; ``gen_fixtures.py`` writes them)."""

from __future__ import annotations

import math

import oracle_common  # noqa: F401, I001 - must come before pydantic_ai (pins the mime table)

from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    CapabilityInstructionSource,
    CapabilityLoadDeltaPart,
    Citation,
    ContentCitationAnchor,
    DocumentCitationSource,
    DocumentUrl,
    FilePart,
    ImageUrl,
    InstructionDeltaPart,
    InstructionId,
    LoadCapabilityCallPart,
    LoadCapabilityReturnPart,
    MarkerCitationAnchor,
    NativeToolCallPart,
    NativeToolReturnPart,
    NativeToolSearchCallPart,
    NativeToolSearchReturnPart,
    RetryInfo,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    ToolSearchCallPart,
    ToolSearchReturnPart,
    UploadedFile,
    VideoUrl,
    WebCitationSource,
)

from fixture_blocks import (
    call,
    fixture,
    request,
    response,
    ret,
    ts,
    user,
)

# ---------------------------------------------------------------------------------------------------------------
# Response parts
# ---------------------------------------------------------------------------------------------------------------


@fixture(
    "thinking",
    "ThinkingPart with signature, id, provider_name, provider_details; empty content; redacted-style part",
)
def thinking():
    return [
        request([user("think")], timestamp=ts(0)),
        response(
            [
                ThinkingPart("Let me think step by step.", signature="c2lnbmF0dXJl" * 4, provider_name="anthropic"),
                ThinkingPart("", id="rs_01", signature="enc", provider_name="openai",
                             provider_details={"redacted": True, "summary": []}),
                ThinkingPart("plain thinking"),
                TextPart("done thinking", id="msg_part_1", provider_name="anthropic",
                         provider_details={"cache": "hit"}),
            ],
            at=1,
            provider_name="anthropic",
        ),
    ]


@fixture(
    "citations",
    "TextPart citations: web sources (title, excerpts), document sources (id only, title only, excerpts only), "
    "content and marker anchors, no anchor, several sources per citation, citations=[]",
)
def citations():
    return [
        request([user("what's new?")], timestamp=ts(0)),
        response(
            [
                TextPart(
                    "Rust 1.95 was released. See the notes.",
                    citations=[
                        Citation(
                            [WebCitationSource("https://blog.rust-lang.org/", title="Rust Blog",
                                               excerpts=["Rust 1.95 is out"])],
                            anchor=ContentCitationAnchor(start=0, end=21),
                        ),
                        Citation(
                            [
                                WebCitationSource("https://example.com/notes"),
                                DocumentCitationSource(document_id="doc-7"),
                                DocumentCitationSource(title="Release notes"),
                                DocumentCitationSource(excerpts=["see the notes", "second excerpt"]),
                            ],
                            anchor=MarkerCitationAnchor(start=22, end=38),
                        ),
                        Citation([DocumentCitationSource(document_id="doc-8", title="Manual", excerpts=["x"])]),
                    ],
                ),
                TextPart("no citations here", citations=[]),
            ],
            at=1,
        ),
    ]


@fixture(
    "file-part",
    "FilePart with image/png (BinaryImage on load), application/pdf, id, provider_name, provider_details",
)
def file_part():
    return [
        request([user("draw")], timestamp=ts(0)),
        response(
            [
                TextPart("Here it is:"),
                FilePart(BinaryContent(b"\x89PNG\r\n\x1a\n\x00\x00", media_type="image/png"), id="ig_1",
                         provider_name="openai", provider_details={"revised_prompt": "a cat"}),
                FilePart(BinaryContent(b"%PDF-1.4", media_type="application/pdf", identifier="out.pdf")),
            ],
            at=1,
        ),
    ]


@fixture(
    "builtin-tools",
    "builtin-tool-call / builtin-tool-return (web search, code execution) with dict/str/list content, outcome "
    "failed, provider fields, tool_kind mcp_server and a namespaced kind, return in a later response",
)
def builtin_tools():
    return [
        request([user("search the web")], timestamp=ts(0)),
        response(
            [
                NativeToolCallPart("web_search", {"query": "rust 1.95"}, "srvtoolu_01", provider_name="anthropic"),
                NativeToolReturnPart(
                    "web_search",
                    [{"url": "https://blog.rust-lang.org/", "title": "Rust Blog", "page_age": None}],
                    "srvtoolu_01",
                    timestamp=ts(1),
                    provider_name="anthropic",
                    provider_details={"type": "web_search_tool_result"},
                ),
                NativeToolCallPart("code_execution", '{"code": "print(1)"}', "srvtoolu_02", id="ci_1",
                                   provider_name="openai", provider_details={"container": "c1"}),
                NativeToolReturnPart("code_execution", "1\n", "srvtoolu_02", timestamp=ts(1), outcome="failed"),
                NativeToolCallPart("mcp_call", {"server": "fs"}, "mcp_01", tool_kind="mcp_server"),
                NativeToolCallPart("load_capability", None, "srvtoolu_03", tool_kind="capability-load"),
                NativeToolCallPart("acme_tool", {}, "srvtoolu_04", tool_kind="acme.thing"),
                TextPart("Rust 1.95 is out."),
            ],
            at=1,
            provider_name="anthropic",
        ),
        request([user("and the mcp result?")], timestamp=ts(2)),
        response(
            [
                NativeToolReturnPart("mcp_call", {"files": ["a", "b"]}, "mcp_01", tool_kind="mcp_server",
                                     timestamp=ts(3), metadata={"late": True}),
                NativeToolReturnPart("acme_tool", "done", "srvtoolu_04", tool_kind="acme.thing", timestamp=ts(3),
                                     outcome="denied"),
            ],
            at=3,
        ),
    ]


@fixture(
    "tool-search-typed",
    "typed tool-search parts: ToolSearchCallPart (dict args with extra key, str args, None), "
    "ToolSearchReturnPart (with/without message, extra key), NativeToolSearchCallPart/ReturnPart; a failed "
    "tool-search return that stays a base part; a user tool named search_tools without tool_kind",
)
def tool_search_typed():
    return [
        request([user("find a tool for pdfs")], timestamp=ts(0)),
        response(
            [
                ToolSearchCallPart(args={"queries": ["pdf"], "limit": 3}, tool_call_id="ts_1"),
                ToolSearchCallPart(args='{"queries": ["csv"]}', tool_call_id="ts_2"),
                ToolSearchCallPart(args=None, tool_call_id="ts_3"),
                call("search_tools", {"q": "user tool"}, "ts_user"),
            ],
            at=1,
        ),
        request(
            [
                ToolSearchReturnPart(content={"discovered_tools": [{"name": "read_pdf"}, {"name": "pdf_to_text"}]},
                                     tool_call_id="ts_1", timestamp=ts(2)),
                ToolSearchReturnPart(content={"discovered_tools": [], "message": "No tools matched.",
                                              "extra": {"k": 1}}, tool_call_id="ts_2", timestamp=ts(2)),
                ToolReturnPart("search_tools", "search backend down", "ts_3", tool_kind="tool-search",
                               outcome="failed", timestamp=ts(2)),
                ret("search_tools", ["not", "typed"], "ts_user", at=2),
            ],
            timestamp=ts(2),
        ),
        response(
            [
                NativeToolSearchCallPart(args={"queries": ["tools.pdf.read"]}, tool_call_id="srv_ts_1",
                                         provider_name="openai"),
                NativeToolSearchReturnPart(content={"discovered_tools": [{"name": "read_pdf"}]},
                                           tool_call_id="srv_ts_1", timestamp=ts(3), provider_name="openai"),
                TextPart("Found read_pdf."),
            ],
            at=3,
        ),
    ]


@fixture(
    "capability-load-typed",
    "typed capability-load parts: LoadCapabilityCallPart (dict args, extra key, str args), "
    "LoadCapabilityReturnPart (message, instructions, empty content), capability-load-delta after the load, "
    "a denied load that stays a base part",
)
def capability_load_typed():
    return [
        request([user("load the budget capability")], timestamp=ts(0)),
        response(
            [
                LoadCapabilityCallPart("cl_1", args={"id": "budget"}),
                LoadCapabilityCallPart("cl_2", args={"id": "web", "reason": "search"}),
                LoadCapabilityCallPart("cl_3", args='{"id": "voice"}'),
                LoadCapabilityCallPart("cl_4", args={"id": "forbidden"}),
            ],
            at=1,
        ),
        request(
            [
                LoadCapabilityReturnPart("cl_1", content={"message": "Loaded budget."}, timestamp=ts(2)),
                LoadCapabilityReturnPart("cl_2", content={"message": "Loaded web.", "instructions": "Cite sources."},
                                         timestamp=ts(2)),
                LoadCapabilityReturnPart("cl_3", content={}, timestamp=ts(2)),
                ToolReturnPart("load_capability", "not allowed", "cl_4", tool_kind="capability-load",
                               outcome="denied", timestamp=ts(2)),
                CapabilityLoadDeltaPart(loaded=["budget", "web", "voice"], tool_call_id="cl_1"),
                InstructionDeltaPart(id=InstructionId(CapabilityInstructionSource("budget")),
                                     content="Budget: 10 USD"),
            ],
            timestamp=ts(2),
        ),
        response([TextPart("Capabilities loaded.")], at=3),
    ]


# ---------------------------------------------------------------------------------------------------------------
# Tool calls and returns
# ---------------------------------------------------------------------------------------------------------------


@fixture("tool-call-return-basic", "one tool call answered by one tool return, then a final text")
def tool_call_return_basic():
    return [
        request([user("What's the weather in Paris?")], timestamp=ts(0)),
        response([call("get_weather", {"city": "Paris"}, "call_1")], at=1, finish_reason="tool_call"),
        request([ret("get_weather", "sunny, 21°C", "call_1", at=2)], timestamp=ts(2)),
        response([TextPart("It's sunny and 21°C in Paris.")], at=3, finish_reason="stop"),
    ]


@fixture(
    "tool-call-args-variants",
    "ToolCallPart.args as dict (nested, unicode, NaN -> null), JSON string with whitespace, invalid JSON "
    "string, empty string, \"[1,2]\", None; id/provider fields; tool_kind namespaced",
)
def tool_call_args_variants():
    calls = [
        call("a", {"path": "src/main.rs", "lines": [1, 2], "opts": {"recursive": True, "depth": None}}, "c_dict"),
        call("b", '{"path": "src/main.rs"}', "c_json_str"),
        call("c", '  { "spaced" : 1 }\n', "c_ws_str"),
        call("d", "not json {", "c_invalid"),
        call("e", "", "c_empty_str"),
        call("f", "[1,2]", "c_array_str"),
        call("g", None, "c_none"),
        call("h", {}, "c_empty_dict"),
        call("i", {"x": math.nan, "y": math.inf, "z": -math.inf, "ok": 1.5}, "c_nan"),
        call("j", {"ünïcode": "→ ✓ 😀"}, "c_unicode", id="fc_1", provider_name="openai",
             provider_details={"status": "completed"}),
        call("k", {"n": 1}, "c_kind", tool_kind="acme.thing"),
    ]
    returns = [ret(part.tool_name, "ok", part.tool_call_id, at=2) for part in calls]
    return [
        request([user("call everything")], timestamp=ts(0)),
        response(calls, at=1),
        request(returns, timestamp=ts(2)),
        response([TextPart("done")], at=3),
    ]


@fixture(
    "tool-return-outcomes",
    "ToolReturnPart outcomes success/failed/denied/interrupted/retried, RetryInfo with each ToolRetryCause and "
    "attempt/max_retries, metadata of several types, content null",
)
def tool_return_outcomes():
    ids = [f"call_{n}" for n in range(9)]
    return [
        request([user("do things")], timestamp=ts(0)),
        response([call("t", {"n": n}, call_id) for n, call_id in enumerate(ids)], at=1),
        request(
            [
                ret("t", "fine", ids[0], at=2, metadata={"elapsed_ms": 12}),
                ret("t", "disk full", ids[1], at=2, outcome="failed", metadata="raw string metadata"),
                ret("t", "The user denied this call.", ids[2], at=2, outcome="denied"),
                ret("t", "Interrupted by user", ids[3], at=2, outcome="interrupted", metadata=[1, 2]),
                ret("t", [{"type": "missing", "loc": ["n"], "msg": "Field required", "input": {}}], ids[4], at=2,
                    outcome="retried", retry=RetryInfo("validation_error", attempt=1, max_retries=2)),
                ret("t", "try a smaller n", ids[5], at=2, outcome="retried", retry=RetryInfo("model_retry")),
                ret("t", "Unknown tool name: 'tt'", ids[6], at=2, outcome="retried",
                    retry=RetryInfo("unknown_tool", attempt=3, max_retries=3)),
                ret("t", "Tool 't' is not available now", ids[7], at=2, outcome="retried",
                    retry=RetryInfo("unavailable_tool")),
                ret("t", None, ids[8], at=2),
            ],
            timestamp=ts(2),
        ),
        response([TextPart("handled")], at=3),
    ]


@fixture(
    "tool-return-content-nested",
    "tool-return content: deeply nested dicts/lists, int, float, bool, big ints (2**70), empty dict/list, tuple "
    "-> array, int dict keys -> strings, a list of ToolReturnPart-like dicts; content_file_digests [] on "
    "structured content",
)
def tool_return_content_nested():
    nested = {"level1": {"level2": {"level3": {"level4": [1, [2, [3, [4, {"deep": True}]]]]}}}}
    contents = [
        nested,
        [{"path": "a.py", "line": 3, "text": "import os"}, {"path": "b.py", "line": 10, "text": "x = 1"}],
        7,
        2.5,
        True,
        False,
        2**70,
        -(2**70),
        {},
        [],
        (1, "two", 3.0),
        {1: "one", 2: "two"},
        [{"tool_name": "inner", "content": {"k": [None]}, "part_kind": "tool-return"}],
        {"exit_code": 0, "stdout": "ok\n", "stderr": ""},
    ]
    ids = [f"n_{i}" for i in range(len(contents))]
    return [
        request([user("nested")], timestamp=ts(0)),
        response([call("t", None, call_id) for call_id in ids], at=1),
        request([ret("t", content, call_id, at=2) for content, call_id in zip(contents, ids)], timestamp=ts(2)),
        response([TextPart("nested ok")], at=3),
    ]


@fixture(
    "tool-return-content-large",
    "tool results of 4 KiB and more between small ones: a list of line objects, a long string with escapes and "
    "non-ASCII text, a nested dict, a native tool return; tool-call args of 4 KiB (the size above which "
    "converters read a result ahead of the messages around it)",
)
def tool_return_content_large():
    lines = [{"line": n, "text": f"    let value_{n} = \"línea {n}\\t→\"; // {'x' * (n % 17)}"} for n in range(1, 121)]
    listing = "\n".join(f"{n:04}: fn item_{n}() -> &'static str {{ \"✓ {n}\" }}" for n in range(1, 141))
    nested = {"files": {f"src/mod_{n}.rs": {"size": n * 1024, "lines": list(range(n % 9)), "ok": n % 2 == 0}
                        for n in range(90)}}
    contents = [
        "small before",
        lines,
        {"exit_code": 0},
        listing,
        nested,
        "small after",
    ]
    ids = [f"big_{i}" for i in range(len(contents))]
    big_args = {"path": "src/lib.rs", "edits": [{"line": n, "insert": f"// note {n}: ünïcode ✓"} for n in range(150)]}
    calls = [call("read", {"i": i}, call_id) for i, call_id in enumerate(ids)]
    calls.append(call("edit", big_args, "big_args"))
    returns = [ret("read", content, call_id, at=2) for content, call_id in zip(contents, ids)]
    returns.append(ret("edit", "applied", "big_args", at=2))
    return [
        request([user("read everything")], timestamp=ts(0)),
        response(calls, at=1),
        request(returns, timestamp=ts(2)),
        response(
            [
                NativeToolCallPart("code_execution", {"code": "print(1)"}, "srv_big"),
                NativeToolReturnPart("code_execution", {"stdout": listing, "rows": lines[:60]}, "srv_big",
                                     timestamp=ts(3)),
                TextPart("read it all"),
            ],
            at=3,
        ),
    ]


@fixture(
    "tool-return-content-files",
    "content_file_digests: single ImageUrl (incl. media_type null), dict and list holding Document/Audio/Video "
    "URLs and UploadedFile, duplicates de-duplicated, BinaryContent not recorded ([]), files in metadata not "
    "recorded, non-ASCII URL (ensure_ascii digest), nested containers, native return with a file",
)
def tool_return_content_files():
    image = ImageUrl("https://example.com/x.png")
    contents = [
        image,
        ImageUrl("https://example.com/noext"),
        {"report": DocumentUrl("https://example.com/r.pdf"), "note": "see file", "n": 1},
        [AudioUrl("https://example.com/a.mp3"), VideoUrl("https://youtu.be/v"), UploadedFile("file-9", "openai")],
        [image, image, {"again": image}],
        BinaryContent(b"\x00\xff", media_type="image/png"),
        {"outer": [{"inner": [DocumentUrl("https://example.com/naïve-café.pdf", force_download=True)]}]},
        [UploadedFile("files/deep/path/data.json", "google", vendor_metadata={"ünï": "✓"})],
    ]
    ids = [f"f_{i}" for i in range(len(contents))]
    returns = [ret("fetch", content, call_id, at=2) for content, call_id in zip(contents, ids)]
    returns.append(ret("fetch", "text content, file only in metadata", "f_meta", at=2,
                       metadata={"attachment": ImageUrl("https://example.com/meta.png")}))
    return [
        request([user("fetch files")], timestamp=ts(0)),
        response([call("fetch", {"i": i}, call_id) for i, call_id in enumerate(ids + ["f_meta"])], at=1),
        request(returns, timestamp=ts(2)),
        response(
            [
                NativeToolCallPart("file_search", {"q": "x"}, "srv_f"),
                NativeToolReturnPart("file_search", {"hits": [DocumentUrl("https://example.com/hit.pdf")]}, "srv_f",
                                     timestamp=ts(3)),
                TextPart("fetched"),
            ],
            at=3,
        ),
    ]


