"""Fixture histories of whole messages and of every request part and user content kind pydantic-ai
2.68.0 writes (registered with ``@fixture``; ``gen_fixtures.py`` writes them)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

import oracle_common  # noqa: F401, I001 - must come before pydantic_ai (pins the mime table)

from pydantic_ai.messages import (
    AgentInstructionSource,
    AudioUrl,
    BinaryContent,
    CachePoint,
    CapabilityInstructionSource,
    CapabilityLoadDeltaPart,
    CompactionPart,
    DocumentUrl,
    ImageUrl,
    InstructionBaselinePart,
    InstructionDeltaPart,
    InstructionDigest,
    InstructionId,
    InstructionPart,
    ModelRequest,
    ModelRequestAttempt,
    ModelResponse,
    ModelSettingsDeltaPart,
    RetryFeedbackPart,
    RetryInfo,
    RunInstructionSource,
    SpeechPart,
    SpeechTimestamp,
    StructuredContent,
    SystemPromptPart,
    TextContent,
    TextPart,
    ToolAvailabilityDeltaPart,
    ToolsetInstructionSource,
    UploadedFile,
    UserPromptPart,
    VideoUrl,
    WorkspaceRef,
)
from pydantic_ai.usage import RequestUsage

from fixture_blocks import (
    fixture,
    request,
    response,
    system,
    ts,
    usage,
    user,
)

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


