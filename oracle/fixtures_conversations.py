"""Fixture histories of encoding edge cases and realistic conversations (interruptions, repair),
and the inputs 2.68.0 loads but re-dumps differently (``translation_inputs``)."""

from __future__ import annotations

import math
import sys
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import oracle_common as oc  # noqa: I001 - must come before pydantic_ai (pins the mime table)

from pydantic_ai.messages import (
    BinaryContent,
    FilePart,
    RetryFeedbackPart,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)
from pydantic_ai.usage import RequestUsage

from fixture_blocks import (
    call,
    fixture,
    request,
    response,
    ret,
    system,
    ts,
    usage,
    user,
)

# ---------------------------------------------------------------------------------------------------------------
# Encoding edge cases
# ---------------------------------------------------------------------------------------------------------------

CONTROL_AND_UNICODE = (
    "nul:\u0000 soh:\u0001 bs:\b ff:\f nl:\n cr:\r tab:\t vt:\u000b us:\u001f del:\u007f "
    "c1:\u0080 nbsp:\u00a0 ls:\u2028 ps:\u2029 bom:\ufeff emoji:😀 flag:🇫🇷 zwj:👩‍💻 cjk:漢字 "
    "quote:\" backslash:\\ slash:/ script:</script> é e\u0301 max:\U0010ffff"
)


@fixture(
    "strings-unicode-control",
    "string escaping: every C0 control (\\u0000..\\u001f, lowercase hex), DEL raw, U+0080, NBSP, U+2028/2029, "
    "BOM, emoji, ZWJ sequence, combining marks, U+10FFFF, quotes, backslash, unescaped slash; in content, "
    "tool names, ids, args, metadata keys and values",
)
def strings_unicode_control():
    all_c0 = "".join(chr(c) for c in range(0x20))
    return [
        request(
            [
                system(CONTROL_AND_UNICODE),
                user([CONTROL_AND_UNICODE, TextContent(all_c0, metadata={CONTROL_AND_UNICODE: all_c0})]),
            ],
            timestamp=ts(0),
            instructions=CONTROL_AND_UNICODE,
            metadata={"k\u2028": "v\u0000"},
        ),
        response(
            [
                TextPart(CONTROL_AND_UNICODE),
                ThinkingPart(all_c0 + "\u007f"),
                call("tool_ü\u2028", {"arg😀": CONTROL_AND_UNICODE}, "id\u0000\u001f😀"),
                call("raw", CONTROL_AND_UNICODE, "id_raw_str"),
            ],
            at=1,
            model_name="modèle-😀",
        ),
        request(
            [
                ret("tool_ü\u2028", CONTROL_AND_UNICODE, "id\u0000\u001f😀", at=2),
                ret("raw", {CONTROL_AND_UNICODE: [CONTROL_AND_UNICODE]}, "id_raw_str", at=2),
            ],
            timestamp=ts(2),
        ),
        response([TextPart("\u2028\u2029")], at=3),
    ]


FLOATS = [
    0.0,
    -0.0,
    1.0,
    2.0,
    100.0,
    0.1,
    1.5,
    -2.5,
    1e15,
    1e16,
    -1e16,
    9999999999999998.0,
    1.2345678901234568e17,
    1.5e300,
    1.7976931348623157e308,
    1e-5,
    -1e-5,
    1.5e-5,
    9.99e-6,
    3e-7,
    1e-7,
    5e-324,
    2.2250738585072014e-308,
    123456.789,
    0.30000000000000004,
]


@fixture(
    "numbers",
    "number formatting: floats around the 1e-5 / 1e16 notation switches, -0.0, 5e-324, max float, shortest "
    "round-trip digits, big ints (2**63, 2**64, 2**70, negative), NaN/inf written as null, in tool content, "
    "args, metadata, provider_details and usage.audio_seconds",
)
def numbers():
    ints = [0, -1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 2**70, -(2**70), 10**30]
    specials = [math.nan, math.inf, -math.inf]
    return [
        request([user("numbers")], timestamp=ts(0), metadata={"floats": FLOATS, "ints": ints}),
        response(
            [
                call("calc", {"floats": FLOATS, "ints": ints, "specials": specials}, "num_1"),
            ],
            at=1,
            usage=RequestUsage(input_tokens=2**40, output_tokens=1, audio_seconds=1e-5, details={"big": 2**62}),
            provider_details={"temperature": 0.7, "top_p": 1.0, "neg_zero": -0.0},
        ),
        request(
            [ret("calc", {"floats": FLOATS, "ints": ints, "specials": specials, "scalar": 1e16}, "num_1", at=2)],
            timestamp=ts(2),
        ),
        response([TextPart("computed")], at=3, usage=RequestUsage(audio_seconds=9.99e-6)),
        request([ret("calc", 5e-324, "num_extra", at=4), ret("calc", math.nan, "num_nan", at=4)],
                timestamp=ts(4)),
        response([TextPart("scalars")], at=5, usage=RequestUsage(audio_seconds=-0.0)),
    ]


@fixture(
    "timestamps",
    "datetime forms: UTC (Z), +05:30, -08:00, +00:00 written as Z, naive, microsecond 0 (omitted), "
    "microsecond 1 and 120000 (6 digits), year 1 and 9999",
)
def timestamps():
    ist = timezone(timedelta(hours=5, minutes=30))
    pst = timezone(timedelta(hours=-8))
    forms = [
        datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
        datetime(2025, 1, 2, 3, 4, 5, 1, tzinfo=timezone.utc),
        datetime(2025, 1, 2, 3, 4, 5, 120000, tzinfo=timezone.utc),
        datetime(2025, 1, 2, 8, 34, 5, 678901, tzinfo=ist),
        datetime(2025, 1, 1, 19, 4, 5, tzinfo=pst),
        datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(0))),
        datetime(2025, 1, 2, 3, 4, 5),
        datetime(2025, 1, 2, 3, 4, 5, 999999),
        datetime(1, 1, 1, 0, 0, 0, tzinfo=timezone.utc),
        datetime(9999, 12, 31, 23, 59, 59, 999999),
    ]
    messages = []
    for index, moment in enumerate(forms):
        messages.append(
            request(
                [UserPromptPart(content=f"at {index}", timestamp=moment), system("s", at=0)],
                timestamp=moment,
            )
        )
        messages.append(response([TextPart(f"reply {index}")], timestamp=moment))
    return messages


# ---------------------------------------------------------------------------------------------------------------
# Realistic conversations, interruptions and repair
# ---------------------------------------------------------------------------------------------------------------

SOURCE_SNIPPET = '''use std::fs;

/// Reads a config file.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = fs::read_to_string("config.toml")?;
    println!("{}", text.len()); // naïve café — ✓
    Ok(())
}
'''


def coding_agent_turns() -> list:
    """A realistic multi-turn coding-agent conversation (system prompt, thinking, tools, final answer)."""
    anthropic = dict(
        model_name="claude-sonnet-4-5",
        model_id="claude-sonnet-4-5-20250929",
        provider_name="anthropic",
        provider_url="https://api.anthropic.com",
        run_id="run-7f3a",
        conversation_id="conv-coding-1",
    )
    return [
        request(
            [
                system("You are an expert Rust engineer working in /work/repo. Prefer small, tested changes."),
                user("The build fails in src/main.rs. Please fix it and run the tests."),
            ],
            timestamp=ts(0),
            instructions="Use the tools. Never invent file contents.",
            run_id="run-7f3a",
            conversation_id="conv-coding-1",
        ),
        response(
            [
                ThinkingPart("I should read the file first.", signature="EqQBCkYIBxgCKkA" + "x" * 40,
                             provider_name="anthropic"),
                TextPart("Let me look at the file."),
                call("read_file", {"path": "src/main.rs", "start_line": 1, "end_line": 200}, "toolu_00000001"),
            ],
            at=1.25,
            usage=usage(2100, 80, cache_read_tokens=1050, details={"reasoning_tokens": 20}),
            provider_response_id="msg_0000000000000001",
            finish_reason="tool_call",
            **anthropic,
        ),
        request(
            [ret("read_file", SOURCE_SNIPPET, "toolu_00000001", at=1.5)],
            timestamp=ts(1.5),
            run_id="run-7f3a",
            conversation_id="conv-coding-1",
        ),
        response(
            [
                TextPart("The file looks fine; let me run the build and grep for the error."),
                call("run_shell", {"command": "cargo build 2>&1 | tail -5", "timeout_s": 120}, "toolu_00000002"),
                call("grep", {"pattern": "config\\.toml", "path": ".", "case_sensitive": True}, "toolu_00000003"),
            ],
            at=3.5,
            usage=usage(2600, 120, cache_read_tokens=1300),
            provider_response_id="msg_0000000000000002",
            finish_reason="tool_call",
            **anthropic,
        ),
        request(
            [
                ret("run_shell", {"exit_code": 101, "stdout": "", "stderr": "error[E0433]: failed to resolve\n"},
                    "toolu_00000002", at=9.0, metadata={"duration_ms": 5400}),
                ret("grep", [{"path": "src/main.rs", "line": 5, "text": '    let text = fs::read_to_string("config.toml")?;'}],
                    "toolu_00000003", at=9.1),
            ],
            timestamp=ts(9.1),
            run_id="run-7f3a",
            conversation_id="conv-coding-1",
        ),
        response(
            [
                call("edit_file", {"path": "src/main.rs", "old": "use std::fs;", "new": "use std::fs;\nuse std::io;"},
                     "toolu_00000004"),
            ],
            at=11,
            usage=usage(3100, 60),
            provider_response_id="msg_0000000000000003",
            finish_reason="tool_call",
            **anthropic,
        ),
        request(
            [ret("edit_file", "ok", "toolu_00000004", at=11.2)],
            timestamp=ts(11.2),
            run_id="run-7f3a",
            conversation_id="conv-coding-1",
        ),
        response(
            [call("run_shell", {"command": "cargo test", "timeout_s": 300}, "toolu_00000005")],
            at=12,
            usage=usage(3200, 30),
            provider_response_id="msg_0000000000000004",
            finish_reason="tool_call",
            **anthropic,
        ),
        request(
            [ret("run_shell", {"exit_code": 0, "stdout": "test result: ok. 3 passed; 0 failed\n", "stderr": ""},
                 "toolu_00000005", at=30)],
            timestamp=ts(30),
            run_id="run-7f3a",
            conversation_id="conv-coding-1",
        ),
        response(
            [TextPart("Fixed: added the missing `use std::io;`. `cargo test` passes (3 tests).")],
            at=31,
            usage=usage(3400, 40, cost=Decimal("0.0123")),
            provider_response_id="msg_0000000000000005",
            finish_reason="stop",
            **anthropic,
        ),
    ]


@fixture(
    "coding-agent-session",
    "realistic multi-turn coding agent run: system prompt, instructions, thinking with signature, parallel "
    "tool calls, string/dict/list tool results, usage and provider fields on every response",
)
def coding_agent_session():
    return coding_agent_turns()


@fixture(
    "interrupted-end",
    "history ending on a response (state interrupted) with two dangling tool calls, one with truncated "
    "invalid-JSON args",
)
def interrupted_end():
    return [
        request([user("refactor the module")], timestamp=ts(0)),
        response(
            [
                TextPart("Reading both files."),
                call("read_file", {"path": "a.rs"}, "call_a"),
                call("read_file", '{"path": "b.r', "call_b"),
            ],
            at=1,
            state="interrupted",
            finish_reason=None,
            usage=RequestUsage(unmeasured_requests=1),
        ),
    ]


@fixture(
    "interrupted-mid",
    "dangling tool call in the middle of a history (answered only partially, then a new user prompt), and a "
    "trailing request with state interrupted",
)
def interrupted_mid():
    return [
        request([user("list and read")], timestamp=ts(0)),
        response([call("list_dir", {"path": "."}, "call_1"), call("read_file", {"path": "x"}, "call_2")], at=1),
        request([ret("list_dir", ["x", "y"], "call_1", at=2), user("never mind, stop", at=2)], timestamp=ts(2)),
        response([TextPart("Stopped.")], at=3),
        request([user("now read y", at=4)], timestamp=ts(4)),
        response([call("read_file", {"path": "y"}, "call_3")], at=5),
        request([], timestamp=ts(6), state="interrupted"),
    ]


def _repair_input():
    return [
        request([user("do three things")], timestamp=ts(0)),
        response([call("a", {}, "ra"), call("b", {}, "rb"), call("c", {}, "rc")], at=1),
        request([ret("a", "done", "ra", at=2), user("hurry up", at=2)], timestamp=ts(2)),
        response([call("d", {}, "rd")], at=3),
        response([TextPart("second synthetic response")], at=4),
        response([call("e", {}, "re")], at=5, state="interrupted"),
    ]


@fixture(
    "repaired-synthesized",
    "output of repair_messages(): synthesized interrupted returns (metadata flag, response timestamp) inserted "
    "after existing results, as a new request between two responses, and appended at the end",
)
def repaired_synthesized():
    return repair_messages(_repair_input())


@fixture(
    "repaired-keep-last",
    "output of repair_messages(repair_last_response=False) on the same input: the last response's call stays open",
)
def repaired_keep_last():
    return repair_messages(_repair_input(), repair_last_response=False)


@fixture(
    "retry-legacy-translated",
    "the 2.68.0 form of legacy retry-prompt parts: ToolReturnPart(outcome=retried) and RetryFeedbackPart "
    "(see translations/retry-prompt-legacy for the stored legacy input)",
)
def retry_legacy_translated():
    return oc.load(RETRY_PROMPT_LEGACY_INPUT)


@fixture(
    "tool-return-datetime-content",
    "tool content that is a datetime/Decimal/UUID-like scalar in Python: stored in its stable re-dumped form "
    "(plain string, no content_file_digests; see translations/tool-return-datetime-content)",
)
def tool_return_datetime_content():
    return oc.load(oc.dump(_datetime_content_history()))


@fixture(
    "long-conversation",
    "a longer deterministic conversation (60 messages) alternating prompts, tool calls and answers",
)
def long_conversation():
    messages = [request([system("sys"), user("start")], timestamp=ts(0))]
    for turn in range(1, 30):
        call_id = f"call_{turn:04d}"
        messages.append(response([TextPart(f"step {turn}"), call("step", {"turn": turn}, call_id)], at=turn,
                                 usage=usage(100 * turn, turn)))
        messages.append(request([ret("step", f"result {turn}", call_id, at=turn + 0.5)], timestamp=ts(turn + 0.5)))
    messages.append(response([TextPart("finished")], at=31))
    return messages


# ---------------------------------------------------------------------------------------------------------------
# Unstable inputs: loaded by 2.68.0 but re-dumped differently ("translations")
# ---------------------------------------------------------------------------------------------------------------

RETRY_PROMPT_LEGACY_INPUT = (
    b'[{"parts":[{"content":"retry with tool","tool_name":"t","tool_call_id":"c1","timestamp":'
    b'"2025-01-02T03:04:05.678901Z","part_kind":"retry-prompt"},{"content":[{"type":"missing","loc":["x"],'
    b'"msg":"Field required","input":{}}],"tool_name":null,"tool_call_id":"c2","timestamp":'
    b'"2025-01-02T03:04:05.678901Z","part_kind":"retry-prompt"},{"content":[{"type":"greater_than","loc":'
    b'["a",0],"msg":"Input should be greater than 0","input":-1,"ctx":{"gt":0},"url":'
    b'"https://errors.pydantic.dev/2.14/v/greater_than"}],"tool_name":"t2","tool_call_id":"c3","timestamp":'
    b'"2025-01-02T03:04:05.678901Z","part_kind":"retry-prompt"},{"content":"plain feedback","timestamp":'
    b'"2025-01-02T03:04:05.678901Z","part_kind":"retry-prompt"}],"timestamp":"2025-01-02T03:04:05.678901Z",'
    b'"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,'
    b'"state":"complete"}]'
)


def _datetime_content_history() -> list:
    return [
        request([user("when?")], timestamp=ts(0)),
        response([call("now", None, "dt_1"), call("today", None, "dt_2"), call("price", None, "dt_3")], at=1),
        request(
            [
                ret("now", datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc), "dt_1", at=2),
                ret("today", date(2025, 1, 2), "dt_2", at=2),
                ret("price", Decimal("19.90"), "dt_3", at=2),
            ],
            timestamp=ts(2),
        ),
        response([TextPart("now")], at=3),
    ]


def _binary_spellings_input() -> bytes:
    """Binary data in the base64 spellings pydantic-ai reads but does not write: the standard alphabet
    (``+/``) and no padding, in a user prompt, a tool return's content and a file part (2.68.0 re-dumps
    each URL-safe and padded)."""
    history = [
        request(
            [
                user(
                    [
                        "look",
                        BinaryContent(data=b"\xfb\xff", media_type="image/png"),
                        BinaryContent(data=b"a", media_type="application/pdf"),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([call("fetch", {"path": "a.png"}, "bin_1")], at=1),
        request([ret("fetch", BinaryContent(data=b"\xfb\xff", media_type="image/png"), "bin_1", at=2)], timestamp=ts(2)),
        response([FilePart(content=BinaryContent(data=b"a", media_type="application/pdf"))], at=3),
    ]
    data = oc.dump(history)
    assert data.count(b'"-_8="') == 2 and data.count(b'"YQ=="') == 2, data
    return data.replace(b'"-_8="', b'"+/8"').replace(b'"YQ=="', b'"YQ"')


def translation_inputs() -> dict[str, bytes]:
    """name -> input bytes for histories that load in 2.68.0 but do not re-dump byte-identically."""
    minimal_request = (
        b'"timestamp":"2025-01-02T03:04:05.678901Z","instructions":null,"kind":"request","run_id":null,'
        b'"conversation_id":null,"metadata":null,"state":"complete"'
    )
    return {
        "retry-prompt-legacy": RETRY_PROMPT_LEGACY_INPUT,
        "tool-return-datetime-content": oc.dump(_datetime_content_history()),
        "binary-base64-standard-unpadded": _binary_spellings_input(),
        "instruction-id-unknown-namespace": (
            b'[{"parts":[{"id":"future:x","content":"a","base_hash":null,"part_kind":"instruction-delta"},'
            b'{"id":"run","content":"b","base_hash":null,"part_kind":"instruction-delta"},'
            b'{"instructions":[{"content":"c","dynamic":false,"on_change":"rewrite","name":null,"id":"nope:1",'
            b'"part_kind":"instruction"},{"content":"no block kind"}],"part_kind":"instruction-baseline"}],'
            + minimal_request + b"}]"
        ),
        "structured-content-empty-rerendered": (
            b'[{"parts":[{"content":[{"content":"","metadata":null,"kind":"structured-content","value":{"a":"<&>"},'
            b'"tag":"t","description":"d"}],"timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],'
            + minimal_request + b"}]"
        ),
        "nan-infinity-literals": (
            b'[{"parts":[{"tool_name":"t","content":[NaN,Infinity,-Infinity,1.0],"tool_call_id":"c","tool_kind":null,'
            b'"metadata":null,"timestamp":"2025-01-02T03:04:05.678901Z","outcome":"success","retry":null,'
            b'"part_kind":"tool-return","content_file_digests":[]}],' + minimal_request + b"}]"
        ),
        "aliases-and-legacy-usage": (
            b'[{"parts":[{"added":["x"],"tool_call_id":null,"part_kind":"tool-availability-delta"}],'
            + minimal_request
            + b'},{"parts":[{"content":"hi","part_kind":"text"}],"usage":{"request_tokens":5,"response_tokens":7,'
            b'"requests":1,"total_tokens":12,"details":null},"timestamp":"2025-01-02T03:04:05.678901Z",'
            b'"kind":"response","vendor_details":{"v":1},"vendor_id":"resp_1"}]'
        ),
        "timestamp-forms": (
            b'[{"parts":[{"content":"a","timestamp":"2025-01-02 03:04:05","part_kind":"user-prompt"},'
            b'{"content":"b","timestamp":"2025-01-02T03:04:05.123456789Z","part_kind":"user-prompt"},'
            b'{"content":"c","timestamp":1735787045123,"part_kind":"user-prompt"},'
            b'{"content":"d","timestamp":"2025-01-02","part_kind":"user-prompt"},'
            b'{"content":"e","timestamp":"2025-01-02T03:04:05+00:00","part_kind":"user-prompt"}],'
            + minimal_request + b"}]"
        ),
    }


