#!/usr/bin/env python3
"""Generate msgflow's pydantic-ai 2.68.0 fixture histories.

Usage (with the 2.68.0 venv's python):
    python oracle/gen_fixtures.py --out tests/fixtures

Writes:
* ``OUT/v2_68/<name>.json``: the exact bytes of ``ModelMessagesTypeAdapter.dump_json(history)``, one fixture per
  builder below. Every fixture is byte-stable: ``dump_json(validate_json(bytes)) == bytes`` is checked, and for the
  few documented unstable cases (see ``TRANSLATIONS``) the stable re-dumped form is stored instead.
* ``OUT/v2_68/MANIFEST.md``: one line per fixture with what it covers.
* ``OUT/translations/<name>.input.json`` / ``<name>.expected.json``: inputs that 2.68.0 loads but does not
  re-dump byte-identically (legacy shapes, lossy ids, datetime tool content, ...), with the 2.68.0 re-dump.
* ``OUT/legacy/expected-2.68/<name>.json`` and ``OUT/other/expected-2.68/<name>.json``: the 2.68.0 re-dump of
  each committed legacy / other-tool history that 2.68.0 accepts and loads deterministically.

Everything is deterministic: timestamps and tool-call ids are pinned, and the whole set is built twice (with a
pause in between) to prove that no wall-clock time or random id leaked in.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import oracle_common as oc  # noqa: I001 - must come before pydantic_ai (pins the mime table)

from pydantic_ai.messages import (
    AgentInstructionSource,
    AudioUrl,
    BinaryContent,
    CachePoint,
    CapabilityInstructionSource,
    CapabilityLoadDeltaPart,
    Citation,
    CompactionPart,
    ContentCitationAnchor,
    DocumentCitationSource,
    DocumentUrl,
    FilePart,
    ImageUrl,
    InstructionBaselinePart,
    InstructionDeltaPart,
    InstructionDigest,
    InstructionId,
    InstructionPart,
    LoadCapabilityCallPart,
    LoadCapabilityReturnPart,
    MarkerCitationAnchor,
    ModelRequest,
    ModelRequestAttempt,
    ModelResponse,
    ModelSettingsDeltaPart,
    NativeToolCallPart,
    NativeToolReturnPart,
    NativeToolSearchCallPart,
    NativeToolSearchReturnPart,
    RetryFeedbackPart,
    RetryInfo,
    RunInstructionSource,
    SpeechPart,
    SpeechTimestamp,
    StructuredContent,
    SystemPromptPart,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolAvailabilityDeltaPart,
    ToolCallPart,
    ToolReturnPart,
    ToolSearchCallPart,
    ToolSearchReturnPart,
    ToolsetInstructionSource,
    UploadedFile,
    UserPromptPart,
    VideoUrl,
    WebCitationSource,
    WorkspaceRef,
    repair_messages,
)
from pydantic_ai.usage import RequestUsage

# ---------------------------------------------------------------------------------------------------------------
# Pinned building blocks
# ---------------------------------------------------------------------------------------------------------------

T0 = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)


def ts(seconds: float = 0) -> datetime:
    """A pinned UTC timestamp ``seconds`` after T0 (keeps microseconds)."""
    return T0 + timedelta(seconds=seconds)


def user(content, at: float = 0) -> UserPromptPart:
    return UserPromptPart(content=content, timestamp=ts(at))


def system(content: str, at: float = 0, **kwargs) -> SystemPromptPart:
    return SystemPromptPart(content=content, timestamp=ts(at), **kwargs)


def call(name: str, args, call_id: str, **kwargs) -> ToolCallPart:
    return ToolCallPart(tool_name=name, args=args, tool_call_id=call_id, **kwargs)


def ret(name: str, content, call_id: str, at: float = 0, **kwargs) -> ToolReturnPart:
    return ToolReturnPart(tool_name=name, content=content, tool_call_id=call_id, timestamp=ts(at), **kwargs)


def request(parts, **kwargs) -> ModelRequest:
    return ModelRequest(parts=parts, **kwargs)


def response(parts, at: float = 0, **kwargs) -> ModelResponse:
    kwargs.setdefault("timestamp", ts(at))
    return ModelResponse(parts=parts, **kwargs)


def usage(input_tokens: int, output_tokens: int, **kwargs) -> RequestUsage:
    return RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens, **kwargs)


# ---------------------------------------------------------------------------------------------------------------
# Fixture registry
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixture:
    """A named history builder and a one-line description of what it covers."""

    name: str
    covers: str
    build: Callable[[], list]


FIXTURES: list[Fixture] = []


def fixture(name: str, covers: str):
    """Register a builder under ``name`` (the file is ``v2_68/<name>.json``)."""

    def register(build: Callable[[], list]) -> Callable[[], list]:
        FIXTURES.append(Fixture(name, covers, build))
        return build

    return register


# ---------------------------------------------------------------------------------------------------------------
# Basics
# ---------------------------------------------------------------------------------------------------------------


@fixture("empty-history", "an empty history `[]`")
def empty_history():
    return []


@fixture("minimal", "one user-prompt request and one text response, every optional field at its default")
def minimal():
    return [request([user("hi")]), response([TextPart("hello")])]


@fixture(
    "request-all-fields",
    "ModelRequest with timestamp, instructions, run_id, conversation_id, metadata (incl. __pydantic_ai__), "
    "state interrupted; and one with timestamp null",
)
def request_all_fields():
    return [
        request(
            [user("first")],
            timestamp=ts(0),
            instructions="Be concise.\nUse tools when needed.",
            run_id="run-0001",
            conversation_id="conv-42",
            metadata={"app": {"tenant": "acme", "tags": ["a", "b"]}, "__pydantic_ai__": {"turn": 1}},
            state="interrupted",
        ),
        response([TextPart("ok")], at=1),
        request([user("second", at=2)], timestamp=None, instructions=""),
    ]


@fixture(
    "response-all-fields",
    "ModelResponse with every field set: model_id, provider_url, canonical_system, provider_details, "
    "provider_response_id, run_id, conversation_id, metadata, workspace_ref, history_digest, failed_attempts, "
    "each finish_reason and each state",
)
def response_all_fields():
    messages = [request([user("go")], timestamp=ts(0))]
    finish_reasons = ["stop", "length", "content_filter", "tool_call", "error", None]
    states = ["complete", "incomplete", "suspended", "interrupted", "complete", "complete"]
    for index, (reason, state) in enumerate(zip(finish_reasons, states)):
        messages.append(
            response(
                [TextPart(f"answer {index}")],
                at=index + 1,
                usage=usage(10 + index, 5),
                model_name="claude-sonnet-4-5",
                model_id="claude-sonnet-4-5-20250929",
                provider_name="anthropic",
                provider_url="https://api.anthropic.com",
                canonical_system="anthropic",
                provider_details={"stop_sequence": None, "service_tier": "standard", "index": index},
                provider_response_id=f"msg_{index:016x}",
                finish_reason=reason,
                run_id="run-0001",
                conversation_id="conv-42",
                metadata={"__pydantic_ai__": {"attempt": index}, "trace": f"t{index}"},
                workspace_ref=WorkspaceRef(provider="git", id=f"sha-{index}"),
                history_digest="3f" * 32,
                state=state,
            )
        )
        messages.append(request([user(f"next {index}", at=index + 1.5)], timestamp=ts(index + 1.5)))
    messages.pop()
    return messages


@fixture(
    "failed-attempts",
    "failed_attempts with error/rejected outcomes, provider null, usage null/set, durations PT1.5S, PT0S, "
    "P1DT1H1M1.000005S and -PT1S, a naive attempt timestamp, failed_attempts=[]",
)
def failed_attempts():
    attempts = [
        ModelRequestAttempt(
            model_name="gpt-5",
            provider_name="openai",
            outcome="error",
            error="HTTP 529: overloaded",
            timestamp=ts(0),
            duration=timedelta(seconds=1.5),
        ),
        ModelRequestAttempt(
            model_name="gpt-5-mini",
            outcome="rejected",
            timestamp=ts(2),
            duration=timedelta(0),
            usage=usage(12, 0, details={"rejected": 1}),
        ),
        ModelRequestAttempt(
            model_name="local",
            provider_name=None,
            outcome="error",
            error=None,
            timestamp=datetime(2025, 1, 2, 3, 4, 5),
            duration=timedelta(days=1, hours=1, minutes=1, seconds=1, microseconds=5),
        ),
        ModelRequestAttempt(
            model_name="clock-skew",
            outcome="error",
            error="negative duration",
            timestamp=ts(3),
            duration=timedelta(seconds=-1),
        ),
    ]
    return [
        request([user("try hard")], timestamp=ts(0)),
        response([TextPart("finally")], at=4, model_name="claude-haiku", failed_attempts=attempts),
        request([user("again")], timestamp=ts(5)),
        response([TextPart("first try")], at=6, failed_attempts=[]),
    ]


@fixture(
    "usage-all-fields",
    "RequestUsage with every counter, audio_seconds, details, cost Decimal (\"0.001234\", \"0\", \"0.50\"), "
    "unmeasured_requests != 0, extra keys appended after cost; and an all-default usage",
)
def usage_all_fields():
    full = RequestUsage(
        input_tokens=40000,
        cache_write_tokens=1200,
        cache_write_1h_tokens=200,
        cache_read_tokens=20000,
        output_tokens=2000,
        output_reasoning_tokens=700,
        input_audio_tokens=30,
        cache_audio_read_tokens=10,
        output_audio_tokens=20,
        audio_seconds=12.25,
        details={"reasoning_tokens": 700, "accepted_prediction_tokens": 0},
        cost=Decimal("0.001234"),
    )
    unmeasured = RequestUsage(unmeasured_requests=1, cost=Decimal("0"))
    extras = RequestUsage(input_tokens=1, output_tokens=2, cost=Decimal("0.50"))
    extras.server_tool_use = {"web_search_requests": 2}
    extras.vendor_counter = 7
    return [
        request([user("count")], timestamp=ts(0)),
        response([TextPart("full")], at=1, usage=full),
        request([user("again")], timestamp=ts(2)),
        response([TextPart("unmeasured")], at=3, usage=unmeasured, state="incomplete"),
        request([user("extras")], timestamp=ts(4)),
        response([TextPart("extras")], at=5, usage=extras),
        request([user("default")], timestamp=ts(6)),
        response([TextPart("zero usage")], at=7),
    ]


# ---------------------------------------------------------------------------------------------------------------
# Request parts
# ---------------------------------------------------------------------------------------------------------------


@fixture(
    "system-prompt",
    "SystemPromptPart defaults and with dynamic_ref, context_id, scope request, metadata",
)
def system_prompt():
    return [
        request(
            [
                system("You are a coding agent."),
                system(
                    "Today is 2025-01-02.",
                    at=0.5,
                    dynamic_ref="today_prompt",
                    context_id="ctx-date",
                    scope="request",
                    metadata={"source": "clock", "ttl_s": 86400},
                ),
                user("hello"),
            ],
            timestamp=ts(0),
        ),
        response([TextPart("hi")], at=1),
    ]


@fixture("user-prompt-string", "UserPromptPart with string content, empty string and multi-line content")
def user_prompt_string():
    return [
        request([user("plain"), user(""), user("line 1\nline 2\r\n\ttabbed")], timestamp=ts(0)),
        response([TextPart("")], at=1),
    ]


@fixture(
    "user-content-text",
    "list content: plain strings, TextContent with and without metadata (scalar and nested)",
)
def user_content_text():
    return [
        request(
            [
                user(
                    [
                        "a plain string item",
                        TextContent("text content"),
                        TextContent("with metadata", metadata={"source": "clipboard", "n": [1, 2]}),
                        TextContent("scalar metadata", metadata=3),
                        "",
                    ]
                ),
                user([]),
            ],
            timestamp=ts(0),
        ),
        response([TextPart("read")], at=1),
    ]


@fixture(
    "user-content-structured",
    "StructuredContent: dict value with <>& escapes, tag, description, tag+description, xml format, list and "
    "scalar values, explicit content",
)
def user_content_structured():
    return [
        request(
            [
                user(
                    [
                        StructuredContent(value={"a": 1, "b": "<x>&"}),
                        StructuredContent(value={"state": "open"}, tag="ui_state"),
                        StructuredContent(value={"state": "open"}, tag="ui_state", description="The UI state"),
                        StructuredContent(value={"k": "v"}, description="Only a description"),
                        StructuredContent(value=[1, 2, 3], tag="numbers", format="xml"),
                        StructuredContent(value=[1.5, None, True, "é"]),
                        StructuredContent(value=42),
                        StructuredContent(value={"x": 1}, content="custom rendering", metadata={"m": 1}),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("noted")], at=1),
    ]


def _url_items(cls, urls: list[str]) -> list:
    items = []
    for url in urls:
        items.append(cls(url))
    return items


@fixture(
    "user-content-image-url",
    "ImageUrl: force_download false/true/allow-local, vendor_metadata, explicit media_type and identifier, "
    "no extension (media_type null), upper-case extension, .pdf in an ImageUrl, query string (null on 3.11)",
)
def user_content_image_url():
    return [
        request(
            [
                user(
                    [
                        ImageUrl("https://example.com/cat.png"),
                        ImageUrl("https://example.com/cat.jpg", force_download=True),
                        ImageUrl("http://10.0.0.5/local.webp", force_download="allow-local"),
                        ImageUrl("https://example.com/hi-res.jpeg", vendor_metadata={"detail": "high"}),
                        ImageUrl("https://example.com/render", media_type="image/png", identifier="render-1"),
                        ImageUrl("https://example.com/noext"),
                        ImageUrl("https://example.com/PHOTO.JPG"),
                        ImageUrl("https://example.com/scan.pdf"),
                        ImageUrl("https://example.com/a.png?x=1"),
                        ImageUrl("https://example.com/b.gif", identifier=""),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("I see images")], at=1),
    ]


@fixture(
    "user-content-audio-url",
    "AudioUrl: mp3, wav, flac, oga, .3gp (audio/3gpp), unknown extension (null), explicit media_type, "
    "force_download true, vendor_metadata",
)
def user_content_audio_url():
    return [
        request(
            [
                user(
                    _url_items(
                        AudioUrl,
                        [
                            "https://example.com/a.mp3",
                            "https://example.com/a.wav",
                            "https://example.com/a.flac",
                            "https://example.com/a.oga",
                            "https://example.com/a.3gp",
                            "https://example.com/a.unknownext",
                        ],
                    )
                    + [
                        AudioUrl("https://example.com/stream", media_type="audio/ogg", force_download=True),
                        AudioUrl("https://example.com/b.aac", vendor_metadata={"lang": "en"}),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("heard")], at=1),
    ]


@fixture(
    "user-content-video-url",
    "VideoUrl: YouTube hosts (youtu.be, youtube.com, www., m.) -> video/mp4, music.youtube.com near-miss (null), "
    "mp4/mkv/mov/webm, .three_gp, vendor_metadata (video_metadata)",
)
def user_content_video_url():
    return [
        request(
            [
                user(
                    _url_items(
                        VideoUrl,
                        [
                            "https://youtu.be/dQw4w9WgXcQ",
                            "https://youtube.com/watch?v=dQw4w9WgXcQ",
                            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
                            "https://m.youtube.com/watch?v=dQw4w9WgXcQ",
                            "https://music.youtube.com/watch?v=dQw4w9WgXcQ",
                            "https://example.com/clip.mp4",
                            "https://example.com/clip.mkv",
                            "https://example.com/clip.mov",
                            "https://example.com/clip.webm",
                            "https://example.com/clip.three_gp",
                        ],
                    )
                    + [
                        VideoUrl(
                            "https://example.com/lecture.mp4",
                            vendor_metadata={"video_metadata": {"start_offset": "10s", "fps": 1.0}},
                        )
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("watched")], at=1),
    ]


@fixture(
    "user-content-document-url",
    "DocumentUrl: pdf, docx, xlsx, md, csv, txt, html, .tar.gz (application/x-tar), no extension (null), "
    "explicit media_type, force_download allow-local",
)
def user_content_document_url():
    return [
        request(
            [
                user(
                    _url_items(
                        DocumentUrl,
                        [
                            "https://example.com/paper.pdf",
                            "https://example.com/report.docx",
                            "https://example.com/sheet.xlsx",
                            "https://example.com/README.md",
                            "https://example.com/data.csv",
                            "https://example.com/notes.txt",
                            "https://example.com/index.html",
                            "https://example.com/bundle.tar.gz",
                            "https://example.com/download",
                        ],
                    )
                    + [
                        DocumentUrl("https://example.com/api/doc?id=7", media_type="application/pdf"),
                        DocumentUrl("file:///tmp/local.pdf", force_download="allow-local"),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("read the documents")], at=1),
    ]


@fixture(
    "user-content-binary",
    "BinaryContent: url-safe base64 (-_ and padding), empty bytes, image/* (BinaryImage), audio/wav, "
    "application/pdf, arbitrary media type, explicit identifier, vendor_metadata",
)
def user_content_binary():
    return [
        request(
            [
                user(
                    [
                        BinaryContent(b"\xfb\xff\xbf", media_type="image/png"),
                        BinaryContent(b"\xfb", media_type="image/jpeg", vendor_metadata={"detail": "low"}),
                        BinaryContent(b"", media_type="application/octet-stream"),
                        BinaryContent(b"RIFF\x00\x00\x00\x00WAVE", media_type="audio/wav"),
                        BinaryContent(b"%PDF-1.7\n", media_type="application/pdf", identifier="doc-1"),
                        BinaryContent(bytes(range(256)), media_type="x-custom/anything; charset=binary"),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("got bytes")], at=1),
    ]


@fixture(
    "user-content-uploaded-file",
    "UploadedFile: every provider_name literal (incl. legacy google-gla/google-vertex), file ids with paths "
    "(inferred media type), octet-stream fallback, explicit media_type/identifier, vendor_metadata",
)
def user_content_uploaded_file():
    return [
        request(
            [
                user(
                    [
                        UploadedFile("file-abc123", "openai"),
                        UploadedFile("file_011CNha8iCJcU1wXNR6q4V8w", "anthropic", media_type="application/pdf"),
                        UploadedFile("files/report.pdf", "google"),
                        UploadedFile("gs://bucket/video.mp4", "google-cloud"),
                        UploadedFile("https://generativelanguage.googleapis.com/v1beta/files/x.png", "google-gla"),
                        UploadedFile("projects/p/files/notes.md", "google-vertex"),
                        UploadedFile("s3://bucket/key.csv", "bedrock", vendor_metadata={"format": "csv"}),
                        UploadedFile("file-xai-1", "xai", identifier="xai-file"),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("files seen")], at=1),
    ]


@fixture("user-content-cache-point", "CachePoint with ttl 5m (default) and 1h between content items")
def user_content_cache_point():
    return [
        request(
            [user(["long context", CachePoint(), "more context", CachePoint(ttl="1h"), "question"])],
            timestamp=ts(0),
        ),
        response([TextPart("answer")], at=1),
    ]


@fixture("user-content-mixed", "one prompt mixing every user-content kind")
def user_content_mixed():
    return [
        request(
            [
                user(
                    [
                        "Compare these:",
                        TextContent("context", metadata={"origin": "ui"}),
                        StructuredContent(value={"selection": [1, 2]}, tag="sel"),
                        ImageUrl("https://example.com/a.png"),
                        AudioUrl("https://example.com/a.mp3"),
                        VideoUrl("https://youtu.be/x"),
                        DocumentUrl("https://example.com/a.pdf"),
                        BinaryContent(b"\x89PNG\r\n\x1a\n", media_type="image/png"),
                        UploadedFile("file-1", "openai"),
                        CachePoint(ttl="1h"),
                    ]
                )
            ],
            timestamp=ts(0),
        ),
        response([TextPart("compared")], at=1),
    ]


@fixture(
    "retry-feedback",
    "RetryFeedbackPart: str content, ErrorDetails lists (with ctx and url), each cause, attempt/max_retries",
)
def retry_feedback():
    errors = [
        {"type": "missing", "loc": ("answer",), "msg": "Field required", "input": {"x": 1}},
        {
            "type": "greater_than",
            "loc": ("items", 0, "qty"),
            "msg": "Input should be greater than 0",
            "input": -1,
            "ctx": {"gt": 0},
            "url": "https://errors.pydantic.dev/2.14/v/greater_than",
        },
    ]
    return [
        request([user("give me json")], timestamp=ts(0)),
        response([TextPart("not json")], at=1),
        request(
            [
                RetryFeedbackPart(content=errors, retry=RetryInfo("validation_error", attempt=1, max_retries=3),
                                  timestamp=ts(2)),
            ],
            timestamp=ts(2),
        ),
        response([TextPart("")], at=3),
        request(
            [RetryFeedbackPart(content="Please return text", retry=RetryInfo("no_output"), timestamp=ts(4))],
            timestamp=ts(4),
        ),
        response([TextPart("{}")], at=5),
        request(
            [
                RetryFeedbackPart(
                    content="The output was rejected: too short", retry=RetryInfo("model_retry", attempt=2),
                    timestamp=ts(6),
                )
            ],
            timestamp=ts(6),
        ),
        response([TextPart("{\"answer\": 42}")], at=7),
    ]


@fixture(
    "request-deltas",
    "tool-availability-delta (empty, with ids, with tool_call_id), capability-load-delta, model-settings-delta "
    "(every thinking level, null, empty settings, top_level true)",
)
def request_deltas():
    settings_parts = [
        ModelSettingsDeltaPart(settings={"thinking": level}, top_level=(level == "high"))
        for level in ["minimal", "low", "medium", "high", "xhigh", "max", None]
    ]
    return [
        request(
            [
                ToolAvailabilityDeltaPart(),
                ToolAvailabilityDeltaPart(tools_added=["read_file", "write_file"]),
                ToolAvailabilityDeltaPart(tools_added=["grep"], tool_call_id="call_search_1"),
                CapabilityLoadDeltaPart(),
                CapabilityLoadDeltaPart(loaded=["budget", "web"], tool_call_id="call_load_1"),
                ModelSettingsDeltaPart(settings={}),
                *settings_parts,
                user("go"),
            ],
            timestamp=ts(0),
        ),
        response([TextPart("ok")], at=1),
    ]


@fixture(
    "instructions",
    "instruction-delta with every id namespace (agent, agent:name, run:name, toolset:id, toolset:id:name, "
    "capability:id:name, null), content null, base_hash; instruction-baseline with InstructionPart and "
    "InstructionDigest blocks (dynamic, on_change append, name)",
)
def instructions():
    agent = InstructionId(AgentInstructionSource())
    agent_named = InstructionId(AgentInstructionSource(), name="style")
    run_named = InstructionId(RunInstructionSource(), name="extra")
    toolset = InstructionId(ToolsetInstructionSource("fs"))
    toolset_named = InstructionId(ToolsetInstructionSource("fs"), name="usage")
    capability = InstructionId(CapabilityInstructionSource("budget"), name="remaining")
    return [
        request(
            [
                InstructionBaselinePart(
                    instructions=[
                        InstructionPart("You are helpful.", id=agent),
                        InstructionPart("Budget: 10 USD", dynamic=True, on_change="append", name="budget",
                                        id=capability),
                        InstructionPart("No id at all."),
                        InstructionDigest(id=toolset_named, dynamic=False, content_hash="ab" * 32),
                        InstructionDigest(content_hash="cd" * 32, dynamic=True),
                    ]
                ),
                InstructionDeltaPart(id=agent, content="Be brief."),
                InstructionDeltaPart(id=agent_named, content="Use British spelling.", base_hash="12" * 32),
                InstructionDeltaPart(id=run_named, content=None),
                InstructionDeltaPart(id=toolset, content="Files live in /work."),
                InstructionDeltaPart(id=capability, content="Budget: 9 USD", base_hash="34" * 32),
                InstructionDeltaPart(id=None, content="unaddressable"),
                user("start"),
            ],
            timestamp=ts(0),
            instructions="You are helpful.\n\nBudget: 10 USD",
        ),
        response([TextPart("started")], at=1),
    ]


@fixture(
    "compaction",
    "CompactionPart in a request (content, metadata; provider fields null) and in a response (id, "
    "provider_name, provider_details incl. standing-prompt key), content null",
)
def compaction():
    return [
        request(
            [CompactionPart("Summary of earlier turns: the user asked for X.", metadata={"turns": 12}), user("go on")],
            timestamp=ts(0),
        ),
        response(
            [
                CompactionPart(
                    "opaque-compaction-blob",
                    id="cmp_01",
                    provider_name="anthropic",
                    provider_details={"pydantic_ai_standing_prompt_planted": True, "tokens_saved": 12000},
                    metadata={"reason": "context_window"},
                ),
                CompactionPart(),
                TextPart("continuing"),
            ],
            at=1,
            provider_name="anthropic",
        ),
    ]


@fixture(
    "speech",
    "SpeechPart on both sides: user speech with audio BinaryContent and word timestamps; assistant speech with "
    "segment timestamps, interrupted_at_ms, id, provider fields; transcript-only and audio-only parts",
)
def speech():
    return [
        request(
            [
                SpeechPart(
                    speaker="user",
                    transcript="hello there",
                    audio=BinaryContent(b"\x00\x01\x02\xfe\xff", media_type="audio/pcm"),
                    timestamps=[
                        SpeechTimestamp(text="hello", start_ms=0, duration_ms=320),
                        SpeechTimestamp(text="there", start_ms=340, duration_ms=300),
                    ],
                ),
                SpeechPart(speaker="user", transcript="only a transcript"),
            ],
            timestamp=ts(0),
        ),
        response(
            [
                SpeechPart(
                    speaker="assistant",
                    transcript="Hi! How can I",
                    audio=BinaryContent(b"OggS\x00", media_type="audio/ogg"),
                    interrupted_at_ms=1250,
                    timestamps=[SpeechTimestamp(text="Hi! How can I", start_ms=0, duration_ms=1250,
                                                granularity="segment")],
                    id="item_01",
                    provider_name="openai",
                    provider_details={"voice": "alloy"},
                ),
                SpeechPart(speaker="assistant", audio=BinaryContent(b"", media_type="audio/wav")),
            ],
            at=1,
            provider_name="openai",
            model_name="gpt-realtime",
            state="interrupted",
        ),
    ]


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


def _translation_inputs() -> dict[str, bytes]:
    """name -> input bytes for histories that load in 2.68.0 but do not re-dump byte-identically."""
    minimal_request = (
        b'"timestamp":"2025-01-02T03:04:05.678901Z","instructions":null,"kind":"request","run_id":null,'
        b'"conversation_id":null,"metadata":null,"state":"complete"'
    )
    return {
        "retry-prompt-legacy": RETRY_PROMPT_LEGACY_INPUT,
        "tool-return-datetime-content": oc.dump(_datetime_content_history()),
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


# ---------------------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------------------


def build_all() -> dict[str, bytes]:
    """name -> dump bytes for every registered fixture."""
    return {item.name: oc.dump(item.build()) for item in FIXTURES}


def check_deterministic(first: dict[str, bytes], second: dict[str, bytes]) -> None:
    """Fail if two builds differ (a wall-clock timestamp or random id leaked in)."""
    differing = sorted(name for name in first if first[name] != second.get(name))
    if differing:
        raise SystemExit(f"non-deterministic fixtures (wall clock or random id leaked): {differing}")


def write_manifest(out_dir: Path, outputs: dict[str, bytes]) -> None:
    lines = [
        "# pydantic-ai 2.68.0 fixture histories",
        "",
        "Generated by `oracle/gen_fixtures.py --out tests/fixtures` with the pinned 2.68.0 venv; do not edit by hand.",
        "Each file is the exact `ModelMessagesTypeAdapter.dump_json(history)` output and is byte-stable:",
        "`dump_json(validate_json(bytes)) == bytes`. Timestamps and ids are pinned. Media types come from",
        "pydantic-ai's baseline mime table (platform files disabled).",
        "",
        "| file | bytes | covers |",
        "|---|---|---|",
    ]
    for item in FIXTURES:
        lines.append(f"| `{item.name}.json` | {len(outputs[item.name])} | {item.covers} |")
    lines += [
        "",
        "## translations/",
        "",
        "`../translations/<name>.input.json` loads in 2.68.0 but does not re-dump to the same bytes;",
        "`<name>.expected.json` is the 2.68.0 re-dump (itself byte-stable).",
        "",
    ]
    for name in _translation_inputs():
        lines.append(f"* `{name}`")
    (out_dir / "MANIFEST.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_expected_redumps(fixtures_root: Path, subdir: str) -> list[str]:
    """For ``OUT/<subdir>/*.json`` (legacy or other-tool files), write what 2.68.0 re-dumps them as.

    Output goes to ``OUT/<subdir>/expected-2.68/<name>``. Files 2.68.0 rejects are skipped, and so are files whose
    load fills wall-clock timestamps or random ids (detected by loading twice with a pause and comparing).
    Returns one note per skipped file.
    """
    source_dir = fixtures_root / subdir
    if not source_dir.is_dir():
        return []
    target_dir = source_dir / "expected-2.68"
    target_dir.mkdir(exist_ok=True)
    notes = []
    for path in sorted(source_dir.glob("*.json")):
        data = path.read_bytes()
        try:
            first = oc.dump(oc.load(data))
            time.sleep(0.002)
            second = oc.dump(oc.load(data))
        except Exception as exc:  # noqa: BLE001 - a rejected file is simply not given an expectation
            notes.append(f"{subdir}/{path.name}: rejected by 2.68.0 ({type(exc).__name__})")
            continue
        if first != second:
            notes.append(f"{subdir}/{path.name}: load fills wall-clock timestamps or random ids; no expectation")
            continue
        (target_dir / path.name).write_bytes(first)
    return notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path, help="fixtures root (e.g. tests/fixtures)")
    args = parser.parse_args(argv)
    oc.assert_oracle_version()

    first = build_all()
    time.sleep(0.05)
    check_deterministic(first, build_all())

    out_dir = args.out / "v2_68"
    out_dir.mkdir(parents=True, exist_ok=True)
    unstable = []
    for name, data in first.items():
        entry = oc.roundtrip_entry(name, data)
        if not entry["redump_equal"]:
            unstable.append(f"{name}: {entry['error'] or 're-dump differs'}")
        if len(data) > 50_000:
            print(f"warning: {name}.json is {len(data)} bytes (> 50 KB)", file=sys.stderr)
        (out_dir / f"{name}.json").write_bytes(data)
    write_manifest(out_dir, first)

    translations_dir = args.out / "translations"
    translations_dir.mkdir(parents=True, exist_ok=True)
    for name, data in _translation_inputs().items():
        expected = oc.dump(oc.load(data))
        if data == expected:
            unstable.append(f"translations/{name}: input is already stable (not a translation case)")
        if not oc.roundtrip_entry(name, expected)["redump_equal"]:
            unstable.append(f"translations/{name}: expected form is not stable")
        (translations_dir / f"{name}.input.json").write_bytes(data)
        (translations_dir / f"{name}.expected.json").write_bytes(expected)

    print(f"wrote {len(first)} fixtures to {out_dir} and {len(_translation_inputs())} translations to {translations_dir}")
    for subdir in ("legacy", "other"):
        for note in write_expected_redumps(args.out, subdir):
            print(f"note: {note}")
    for line in unstable:
        print(f"UNSTABLE {line}", file=sys.stderr)
    return 1 if unstable else 0


if __name__ == "__main__":
    sys.exit(main())
