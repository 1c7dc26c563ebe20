#!/usr/bin/env python3
"""pydantic-ai 2.68.0 as a conformance oracle for msgflow (run with the 2.68.0 venv's python).

Subcommands (all output is deterministic for a given seed; exit 2 on usage errors):

  gen-histories --seed N --count K --out DIR
      K seeded random VALID histories built from pydantic-ai objects, ``DIR/hist-<i>.json`` = dump_json bytes.
      Every history is checked to be byte-stable under 2.68.0 before it is written.
  check-accepts --dir DIR --out REPORT.json
      For every ``*.json`` in DIR: does validate_json accept it, and is dump_json(validate_json(b)) == b?
      REPORT is a JSON array of {"file", "accepted", "error", "redump_equal"}. Exit 0 even when files fail.
  roundtrip-dir --dir DIR --out REPORT.json
      The same report, meant for histories msgflow built canonically.
  gen-broken --seed N --count K --out DIR
      K seeded random BROKEN histories (dangling/orphan/shadowed/duplicate tool calls, mergeable messages, ...):
      ``case-<i>.input.json``, ``case-<i>.expected.json`` = dump_json(repair_messages(h)) and
      ``case-<i>.expected-keep-last.json`` = dump_json(repair_messages(h, repair_last_response=False)), where h is
      the input as 2.68.0 loads it back from ``case-<i>.input.json``.
  media --corpus CORPUS.json --out OUT.json
      Media-type inference and identifiers for a corpus (see oracle/media_corpus.py), with pydantic-ai's private
      mime table pinned to its 169-entry platform-independent baseline.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import warnings
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import oracle_common as oc  # noqa: I001 - must come before pydantic_ai (pins the mime table)

import pydantic
from pydantic_ai import messages as m
from pydantic_ai.usage import RequestUsage

# ---------------------------------------------------------------------------------------------------------------
# Random value helpers (valid histories)
# ---------------------------------------------------------------------------------------------------------------

WORDS = ["fn", "let", "mut", "impl", "trait", "async", "await", "match", "enum", "struct", "crate", "tokio", "serde",
         "json", "path", "file", "error", "result", "ok", "none", "vec", "string", "borrow", "lifetime"]
SPECIAL_CHARS = ["\u0000", "\u0001", "\b", "\f", "\n", "\r", "\t", "\u000b", "\u001f", "\u007f", "\u0080", "\u00a0",
                 "\u2028", "\u2029", "\ufeff", "😀", "👩‍💻", "漢", "é", "e\u0301", "\"", "\\", "/", "</script>",
                 "\U0010ffff", "ß", "Ω", "→", "✓"]
MEDIA_URLS = {
    "image": ["https://example.com/a.png", "https://example.com/b.JPG", "https://example.com/noext",
              "http://localhost/c.webp", "https://example.com/d.svg", "https://example.com/q.png?x=1"],
    "audio": ["https://example.com/a.mp3", "https://example.com/a.wav", "https://example.com/a.opus",
              "https://example.com/a.weird"],
    "video": ["https://youtu.be/abc", "https://www.youtube.com/watch?v=1", "https://music.youtube.com/watch?v=1",
              "https://example.com/v.mp4", "https://example.com/v.mkv", "https://example.com/v.3gp"],
    "document": ["https://example.com/a.pdf", "https://example.com/a.docx", "https://example.com/a.tar.gz",
                 "https://example.com/a.md", "file:///tmp/x.txt", "https://example.com/dir.pdf/file"],
}
URL_CLASSES = {"image": m.ImageUrl, "audio": m.AudioUrl, "video": m.VideoUrl, "document": m.DocumentUrl}
UPLOAD_PROVIDERS = ["anthropic", "openai", "google", "google-cloud", "google-gla", "google-vertex", "bedrock", "xai"]
BASE_TOOL_KINDS = [None, None, None, "acme.thing", "mcp_server"]


def rand_text(rng: random.Random, max_words: int = 8) -> str:
    """Words mixed with escapes, controls, non-BMP and other characters that stress string encoding."""
    pieces = []
    for _ in range(rng.randint(0, max_words)):
        roll = rng.random()
        if roll < 0.6:
            pieces.append(rng.choice(WORDS))
        elif roll < 0.85:
            pieces.append(rng.choice(SPECIAL_CHARS))
        else:
            pieces.append(chr(rng.choice([rng.randint(0x20, 0xD7FF), rng.randint(0xE000, 0x10FFFF)])))
    return rng.choice([" ", "", "\n"]).join(pieces)


def rand_float(rng: random.Random) -> float:
    roll = rng.random()
    if roll < 0.15:
        return rng.choice([0.0, -0.0, 1e16, 1e-5, 9.99e-6, 5e-324, 1.7976931348623157e308, 1e15, 2.0, -1e16])
    if roll < 0.25:
        return rng.choice([math.nan, math.inf, -math.inf])
    if roll < 0.5:
        return float(rng.randint(-10**6, 10**6))
    exponent = rng.randint(-320, 300)
    return rng.uniform(-10, 10) * 10.0**exponent


def rand_int(rng: random.Random) -> int:
    return rng.choice([rng.randint(-100, 100), rng.randint(-2**64, 2**64), 2**70, -(2**70), 2**63, 0])


def rand_json(rng: random.Random, depth: int = 3, allow_nan: bool = True):
    """A JSON-native Python value (nested dict/list), with random unicode keys and odd numbers."""
    choices = ["null", "bool", "int", "float", "str"] + (["list", "dict"] * 2 if depth > 0 else [])
    kind = rng.choice(choices)
    if kind == "null":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "int":
        return rand_int(rng)
    if kind == "float":
        value = rand_float(rng)
        return value if allow_nan or math.isfinite(value) else 0.5
    if kind == "str":
        return rand_text(rng, 4)
    if kind == "list":
        return [rand_json(rng, depth - 1, allow_nan) for _ in range(rng.randint(0, 4))]
    return {rand_text(rng, 2): rand_json(rng, depth - 1, allow_nan) for _ in range(rng.randint(0, 4))}


def rand_dict(rng: random.Random) -> dict:
    return {rand_text(rng, 2): rand_json(rng, 2) for _ in range(rng.randint(0, 3))}


def maybe(rng: random.Random, make, probability: float = 0.5):
    return make() if rng.random() < probability else None


class Clock:
    """Monotonic pinned timestamps with a random timezone style (UTC, offsets, naive) and microseconds."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.current = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc) + timedelta(days=rng.randint(0, 400))

    def next(self) -> datetime:
        self.current += timedelta(seconds=self.rng.randint(0, 120), microseconds=self.rng.choice([0, self.rng.randint(0, 999999)]))
        style = self.rng.random()
        if style < 0.7:
            return self.current
        if style < 0.85:
            return self.current.replace(tzinfo=None)
        offset = timezone(timedelta(minutes=self.rng.choice([330, -480, 60, 345, -210])))
        return self.current.astimezone(offset)


def rand_id(rng: random.Random, prefix: str = "call") -> str:
    return f"{prefix}_{rng.getrandbits(40):010x}"


# ---------------------------------------------------------------------------------------------------------------
# Random parts
# ---------------------------------------------------------------------------------------------------------------


def rand_url_item(rng: random.Random):
    family = rng.choice(list(URL_CLASSES))
    return URL_CLASSES[family](
        rng.choice(MEDIA_URLS[family]),
        media_type=maybe(rng, lambda: rng.choice(["image/png", "application/pdf", "video/mp4", "x/custom"]), 0.2),
        identifier=maybe(rng, lambda: rand_id(rng, "file"), 0.2),
        force_download=rng.choice([False, False, True, "allow-local"]),
        vendor_metadata=maybe(rng, lambda: rand_dict(rng), 0.2),
    )


def rand_binary(rng: random.Random) -> m.BinaryContent:
    return m.BinaryContent(
        bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 24))),
        media_type=rng.choice(["image/png", "image/jpeg", "audio/wav", "application/pdf", "text/plain", "x/y"]),
        identifier=maybe(rng, lambda: rand_id(rng, "bin"), 0.2),
        vendor_metadata=maybe(rng, lambda: rand_dict(rng), 0.2),
    )


def rand_uploaded(rng: random.Random) -> m.UploadedFile:
    return m.UploadedFile(
        rng.choice(["file-abc", "files/x/report.pdf", "gs://b/v.mp4", "s3://b/k.csv?versionId=1", rand_id(rng, "f")]),
        rng.choice(UPLOAD_PROVIDERS),
        media_type=maybe(rng, lambda: "application/pdf", 0.2),
        identifier=maybe(rng, lambda: rand_id(rng, "up"), 0.2),
        vendor_metadata=maybe(rng, lambda: rand_dict(rng), 0.2),
    )


def rand_file_item(rng: random.Random):
    roll = rng.random()
    if roll < 0.6:
        return rand_url_item(rng)
    if roll < 0.8:
        return rand_binary(rng)
    return rand_uploaded(rng)


def rand_user_content_item(rng: random.Random):
    roll = rng.random()
    if roll < 0.25:
        return rand_text(rng)
    if roll < 0.4:
        return m.TextContent(rand_text(rng), metadata=maybe(rng, lambda: rand_json(rng, 2), 0.4))
    if roll < 0.55:
        return m.StructuredContent(
            value=rand_json(rng, 2, allow_nan=False),
            tag=maybe(rng, lambda: rng.choice(["state", "ui", "data"]), 0.5),
            description=maybe(rng, lambda: rand_text(rng, 3) or "d", 0.3),
            metadata=maybe(rng, lambda: rand_dict(rng), 0.2),
        )
    if roll < 0.9:
        return rand_file_item(rng)
    return m.CachePoint(ttl=rng.choice(["5m", "1h"]))


def rand_tool_content(rng: random.Random):
    """Tool-return content: JSON-native values, sometimes holding file items (recorded in content_file_digests)."""
    roll = rng.random()
    if roll < 0.3:
        return rand_text(rng, 12)
    if roll < 0.55:
        return rand_json(rng, 3)
    if roll < 0.75:
        return {"result": rand_json(rng, 2), "files": [rand_file_item(rng) for _ in range(rng.randint(0, 2))]}
    if roll < 0.85:
        return rand_file_item(rng)
    return [rand_json(rng, 1) for _ in range(rng.randint(0, 3))]


def rand_retry_info(rng: random.Random, causes: list[str]):
    return m.RetryInfo(rng.choice(causes), attempt=maybe(rng, lambda: rng.randint(0, 5)),
                       max_retries=maybe(rng, lambda: rng.randint(0, 5)))


def rand_error_details(rng: random.Random) -> list[dict]:
    errors = []
    for _ in range(rng.randint(1, 3)):
        error = {"type": rng.choice(["missing", "int_parsing", "value_error"]),
                 "loc": tuple(rng.choice(["a", "b", 0, 1]) for _ in range(rng.randint(0, 3))),
                 "msg": rand_text(rng, 4), "input": rand_json(rng, 1, allow_nan=False)}
        if rng.random() < 0.3:
            error["ctx"] = {"error": rand_text(rng, 2)}
        if rng.random() < 0.3:
            error["url"] = "https://errors.pydantic.dev/2.14/v/missing"
        errors.append(error)
    return errors


def rand_instruction_id(rng: random.Random):
    return rng.choice([
        None,
        m.InstructionId(m.AgentInstructionSource()),
        m.InstructionId(m.AgentInstructionSource(), name=rng.choice(["a", "style"])),
        m.InstructionId(m.RunInstructionSource(), name="extra"),
        m.InstructionId(m.ToolsetInstructionSource("fs")),
        m.InstructionId(m.ToolsetInstructionSource("fs"), name="usage"),
        m.InstructionId(m.CapabilityInstructionSource("budget"), name="remaining"),
    ])


def rand_speech(rng: random.Random, speaker: str, clock: Clock) -> m.SpeechPart:
    return m.SpeechPart(
        speaker=speaker,
        transcript=maybe(rng, lambda: rand_text(rng)),
        audio=maybe(rng, lambda: m.BinaryContent(bytes(rng.getrandbits(8) for _ in range(8)), media_type="audio/pcm")),
        interrupted_at_ms=maybe(rng, lambda: rng.randint(0, 10**6), 0.3),
        timestamps=maybe(rng, lambda: [m.SpeechTimestamp(text=rand_text(rng, 1), start_ms=rng.randint(0, 999),
                                                          duration_ms=rng.randint(0, 999),
                                                          granularity=rng.choice(["word", "segment"]))
                                        for _ in range(rng.randint(0, 3))], 0.4),
        id=maybe(rng, lambda: rand_id(rng, "sp"), 0.3) if speaker == "assistant" else None,
        provider_name=maybe(rng, lambda: "openai", 0.3) if speaker == "assistant" else None,
        provider_details=maybe(rng, lambda: rand_dict(rng), 0.3) if speaker == "assistant" else None,
    )


def rand_request_part(rng: random.Random, clock: Clock, open_calls: list):
    """One random request part; answers an open call when there is one and the dice say so."""
    if open_calls and rng.random() < 0.6:
        tool_call = open_calls.pop(0)
        return rand_return_for(rng, clock, tool_call)
    kind = rng.choice(["system", "user", "user", "retry-feedback", "tool-availability", "capability-load-delta",
                       "model-settings", "instruction-delta", "instruction-baseline", "compaction", "speech",
                       "orphan-return"])
    if kind == "system":
        return m.SystemPromptPart(rand_text(rng), timestamp=clock.next(),
                                  dynamic_ref=maybe(rng, lambda: "ref", 0.3), context_id=maybe(rng, lambda: "ctx", 0.3),
                                  scope=rng.choice(["conversation", "request"]),
                                  metadata=maybe(rng, lambda: rand_dict(rng), 0.3))
    if kind == "user":
        content = rand_text(rng) if rng.random() < 0.4 else [rand_user_content_item(rng) for _ in range(rng.randint(0, 5))]
        return m.UserPromptPart(content, timestamp=clock.next())
    if kind == "retry-feedback":
        if rng.random() < 0.5:
            return m.RetryFeedbackPart(rand_error_details(rng), retry=rand_retry_info(rng, ["validation_error"]),
                                       timestamp=clock.next())
        return m.RetryFeedbackPart(rand_text(rng), retry=rand_retry_info(rng, ["no_output", "model_retry"]),
                                   timestamp=clock.next())
    if kind == "tool-availability":
        return m.ToolAvailabilityDeltaPart(tools_added=[rand_text(rng, 1) for _ in range(rng.randint(0, 3))],
                                           tool_call_id=maybe(rng, lambda: rand_id(rng)))
    if kind == "capability-load-delta":
        return m.CapabilityLoadDeltaPart(loaded=[rng.choice(["budget", "web"]) for _ in range(rng.randint(0, 2))],
                                         tool_call_id=maybe(rng, lambda: rand_id(rng)))
    if kind == "model-settings":
        settings = {} if rng.random() < 0.2 else {"thinking": rng.choice(["minimal", "low", "medium", "high", "xhigh",
                                                                          "max", None])}
        return m.ModelSettingsDeltaPart(settings=settings, top_level=rng.random() < 0.5)
    if kind == "instruction-delta":
        return m.InstructionDeltaPart(id=rand_instruction_id(rng), content=maybe(rng, lambda: rand_text(rng), 0.8),
                                      base_hash=maybe(rng, lambda: f"{rng.getrandbits(256):064x}", 0.3))
    if kind == "instruction-baseline":
        blocks = []
        for _ in range(rng.randint(0, 3)):
            if rng.random() < 0.6:
                blocks.append(m.InstructionPart(rand_text(rng), dynamic=rng.random() < 0.5,
                                                on_change=rng.choice(["rewrite", "append"]),
                                                name=maybe(rng, lambda: "n", 0.3), id=rand_instruction_id(rng)))
            else:
                blocks.append(m.InstructionDigest(id=rand_instruction_id(rng), dynamic=rng.random() < 0.5,
                                                  content_hash=f"{rng.getrandbits(256):064x}"))
        return m.InstructionBaselinePart(instructions=blocks)
    if kind == "compaction":
        return m.CompactionPart(maybe(rng, lambda: rand_text(rng), 0.8), metadata=maybe(rng, lambda: rand_dict(rng), 0.3))
    if kind == "speech":
        return rand_speech(rng, "user", clock)
    # A valid-to-load return whose call never appeared (histories need not be well paired to be valid JSON).
    return m.ToolReturnPart(rand_text(rng, 1) or "t", rand_tool_content(rng), rand_id(rng, "orphan"),
                            timestamp=clock.next(), tool_kind=rng.choice(BASE_TOOL_KINDS))


def rand_return_for(rng: random.Random, clock: Clock, tool_call):
    """A return answering ``tool_call``: typed for typed calls (success), else a base return with any outcome."""
    if isinstance(tool_call, m.ToolSearchCallPart) and rng.random() < 0.8:
        content = {"discovered_tools": [{"name": rng.choice(WORDS)} for _ in range(rng.randint(0, 3))]}
        if rng.random() < 0.4:
            content["message"] = rand_text(rng)
        return m.ToolSearchReturnPart(content=content, tool_call_id=tool_call.tool_call_id, timestamp=clock.next(),
                                      metadata=maybe(rng, lambda: rand_json(rng, 1), 0.2))
    if isinstance(tool_call, m.LoadCapabilityCallPart) and rng.random() < 0.8:
        content = {}
        if rng.random() < 0.7:
            content["message"] = rand_text(rng)
        if rng.random() < 0.3:
            content["instructions"] = rand_text(rng)
        return m.LoadCapabilityReturnPart(tool_call.tool_call_id, content=content, timestamp=clock.next())
    outcome = rng.choice(["success", "success", "success", "failed", "denied", "interrupted", "retried"])
    tool_kind = tool_call.tool_kind if outcome != "success" else rng.choice(BASE_TOOL_KINDS)
    if tool_kind in ("tool-search", "capability-load") and outcome == "success":
        tool_kind = None
    retry = rand_retry_info(rng, ["validation_error", "model_retry", "unknown_tool", "unavailable_tool"]) \
        if outcome == "retried" and rng.random() < 0.7 else None
    return m.ToolReturnPart(tool_call.tool_name, rand_tool_content(rng), tool_call.tool_call_id,
                            tool_kind=tool_kind, metadata=maybe(rng, lambda: rand_json(rng, 2), 0.3),
                            timestamp=clock.next(), outcome=outcome, retry=retry)


def rand_args(rng: random.Random):
    roll = rng.random()
    if roll < 0.5:
        return {rand_text(rng, 1): rand_json(rng, 2) for _ in range(rng.randint(0, 4))}
    if roll < 0.7:
        return json.dumps(rand_json(rng, 2, allow_nan=False), ensure_ascii=rng.random() < 0.5)
    if roll < 0.85:
        return rng.choice(["not json {", "", "[1,2]", "  {\"a\" : 1 }  ", '{"path": "src/ma'])
    return None


def rand_citation(rng: random.Random) -> m.Citation:
    sources = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            sources.append(m.WebCitationSource(rng.choice(["https://a.example/", "https://b.example/x?y=1"]),
                                               title=maybe(rng, lambda: rand_text(rng, 3)),
                                               excerpts=[rand_text(rng, 3) for _ in range(rng.randint(0, 2))]))
        else:
            sources.append(m.DocumentCitationSource(document_id=rand_id(rng, "doc"),
                                                    title=maybe(rng, lambda: rand_text(rng, 3)),
                                                    excerpts=[rand_text(rng, 3) for _ in range(rng.randint(0, 2))]))
    anchor = None
    if rng.random() < 0.7:
        start = rng.randint(0, 50)
        anchor_cls = rng.choice([m.ContentCitationAnchor, m.MarkerCitationAnchor])
        anchor = anchor_cls(start=start, end=start + rng.randint(1, 50))
    return m.Citation(sources, anchor=anchor)


def rand_response_part(rng: random.Random, clock: Clock, open_calls: list):
    kind = rng.choice(["text", "text", "thinking", "call", "call", "call", "builtin", "file", "compaction", "speech",
                       "tool-search", "capability-load", "native-tool-search"])
    provider = maybe(rng, lambda: rng.choice(["anthropic", "openai", "google"]), 0.4)
    details = maybe(rng, lambda: rand_dict(rng), 0.2)
    part_id = maybe(rng, lambda: rand_id(rng, "item"), 0.3)
    if kind == "text":
        return m.TextPart(rand_text(rng, 12), id=part_id, provider_name=provider, provider_details=details,
                          citations=maybe(rng, lambda: [rand_citation(rng) for _ in range(rng.randint(0, 2))], 0.3))
    if kind == "thinking":
        return m.ThinkingPart(rand_text(rng, 12), id=part_id, signature=maybe(rng, lambda: "c2ln" * rng.randint(1, 9)),
                              provider_name=provider, provider_details=details)
    if kind == "call":
        part = m.ToolCallPart(rand_text(rng, 1) or "tool", rand_args(rng), rand_id(rng),
                              tool_kind=rng.choice(BASE_TOOL_KINDS), id=part_id, provider_name=provider,
                              provider_details=details)
        open_calls.append(part)
        return part
    if kind == "tool-search":
        args = rng.choice([{"queries": [rand_text(rng, 2)]}, '{"queries": ["x"]}', None,
                           {"queries": [], "extra": rand_json(rng, 1)}])
        part = m.ToolSearchCallPart(args=args, tool_call_id=rand_id(rng, "ts"), id=part_id, provider_name=provider)
        open_calls.append(part)
        return part
    if kind == "capability-load":
        part = m.LoadCapabilityCallPart(rand_id(rng, "cl"), args=rng.choice([{"id": "budget"}, '{"id": "web"}', None]),
                                        provider_name=provider)
        open_calls.append(part)
        return part
    if kind == "native-tool-search":
        return m.NativeToolSearchCallPart(args={"queries": [rand_text(rng, 2)]}, tool_call_id=rand_id(rng, "srv"),
                                          provider_name=provider)
    if kind == "builtin":
        if rng.random() < 0.5:
            return m.NativeToolCallPart(rng.choice(["web_search", "code_execution"]), rand_args(rng),
                                        rand_id(rng, "srv"), tool_kind=rng.choice([None, "mcp_server", "capability-load"]),
                                        id=part_id, provider_name=provider, provider_details=details)
        if rng.random() < 0.2:
            return m.NativeToolSearchReturnPart(content={"discovered_tools": [{"name": "x"}]},
                                                tool_call_id=rand_id(rng, "srv"), timestamp=clock.next())
        return m.NativeToolReturnPart(rng.choice(["web_search", "code_execution"]), rand_tool_content(rng),
                                      rand_id(rng, "srv"), tool_kind=rng.choice(BASE_TOOL_KINDS),
                                      metadata=maybe(rng, lambda: rand_json(rng, 1), 0.2), timestamp=clock.next(),
                                      outcome=rng.choice(["success", "failed"]), provider_name=provider,
                                      provider_details=details)
    if kind == "file":
        return m.FilePart(rand_binary(rng), id=part_id, provider_name=provider, provider_details=details)
    if kind == "compaction":
        return m.CompactionPart(maybe(rng, lambda: rand_text(rng)), id=part_id, provider_name=provider,
                                provider_details=details, metadata=maybe(rng, lambda: rand_dict(rng), 0.3))
    return rand_speech(rng, "assistant", clock)


def rand_usage(rng: random.Random) -> RequestUsage:
    if rng.random() < 0.3:
        return RequestUsage()
    usage = RequestUsage(
        input_tokens=rng.randint(0, 10**6), cache_write_tokens=rng.randint(0, 100), cache_write_1h_tokens=rng.randint(0, 9),
        cache_read_tokens=rng.randint(0, 10**5), output_tokens=rng.randint(0, 10**4),
        unmeasured_requests=rng.choice([0, 0, 1]), output_reasoning_tokens=rng.randint(0, 99),
        input_audio_tokens=rng.randint(0, 9), cache_audio_read_tokens=rng.randint(0, 9),
        output_audio_tokens=rng.randint(0, 9), audio_seconds=rng.choice([0.0, 1.5, 1e-6, 12.25]),
        details={rand_text(rng, 1): rng.randint(0, 10**6) for _ in range(rng.randint(0, 3))},
        cost=maybe(rng, lambda: Decimal(rng.choice(["0", "0.50", "0.001234", "12.000"])), 0.5),
    )
    if rng.random() < 0.2:
        usage.vendor_extra = rand_json(rng, 1, allow_nan=False)
    return usage


def rand_request(rng: random.Random, clock: Clock, open_calls: list) -> m.ModelRequest:
    parts = [rand_request_part(rng, clock, open_calls) for _ in range(rng.randint(0, 4))]
    while open_calls and rng.random() < 0.8:  # usually answer everything still open
        parts.append(rand_return_for(rng, clock, open_calls.pop(0)))
    return m.ModelRequest(
        parts,
        timestamp=maybe(rng, clock.next, 0.7),
        instructions=maybe(rng, lambda: rand_text(rng), 0.3),
        run_id=maybe(rng, lambda: rand_id(rng, "run"), 0.3),
        conversation_id=maybe(rng, lambda: rand_id(rng, "conv"), 0.3),
        metadata=maybe(rng, lambda: rand_dict(rng), 0.2),
        state=rng.choice(["complete", "complete", "interrupted"]),
    )


def rand_response(rng: random.Random, clock: Clock, open_calls: list) -> m.ModelResponse:
    parts = [rand_response_part(rng, clock, open_calls) for _ in range(rng.randint(0, 4))]
    failed = None
    if rng.random() < 0.2:
        failed = [m.ModelRequestAttempt(model_name=rng.choice(["gpt-5", "claude"]),
                                        provider_name=maybe(rng, lambda: "openai"),
                                        outcome=rng.choice(["error", "rejected"]),
                                        error=maybe(rng, lambda: rand_text(rng, 3)), timestamp=clock.next(),
                                        duration=timedelta(microseconds=rng.randint(-10**6, 10**11)),
                                        usage=maybe(rng, lambda: rand_usage(rng), 0.3))
                  for _ in range(rng.randint(0, 2))]
    return m.ModelResponse(
        parts,
        usage=rand_usage(rng),
        model_name=maybe(rng, lambda: rng.choice(["claude-sonnet-4-5", "gpt-5", "modèle"])),
        model_id=maybe(rng, lambda: "model-id-1", 0.3),
        timestamp=clock.next(),
        provider_name=maybe(rng, lambda: rng.choice(["anthropic", "openai"])),
        provider_url=maybe(rng, lambda: "https://api.example.com/v1", 0.3),
        canonical_system=maybe(rng, lambda: "anthropic", 0.2),
        provider_details=maybe(rng, lambda: rand_dict(rng), 0.3),
        provider_response_id=maybe(rng, lambda: rand_id(rng, "msg"), 0.5),
        finish_reason=rng.choice([None, "stop", "length", "content_filter", "tool_call", "error"]),
        run_id=maybe(rng, lambda: rand_id(rng, "run"), 0.3),
        conversation_id=maybe(rng, lambda: rand_id(rng, "conv"), 0.3),
        metadata=maybe(rng, lambda: rand_dict(rng), 0.2),
        workspace_ref=maybe(rng, lambda: m.WorkspaceRef(provider="git", id=rand_id(rng, "sha")), 0.2),
        history_digest=maybe(rng, lambda: f"{rng.getrandbits(256):064x}", 0.2),
        failed_attempts=failed,
        state=rng.choice(["complete", "complete", "incomplete", "suspended", "interrupted"]),
    )


def rand_history(rng: random.Random) -> list:
    clock = Clock(rng)
    open_calls: list = []
    history = []
    for index in range(rng.randint(0, 8)):
        if index % 2 == 0:
            history.append(rand_request(rng, clock, open_calls))
        else:
            history.append(rand_response(rng, clock, open_calls))
    if rng.random() < 0.1:  # occasionally two messages of the same kind in a row
        history.append(rand_response(rng, clock, open_calls))
    return history


def history_rng(seed: int, index: int, salt: str) -> random.Random:
    """An independent, reproducible generator per (seed, index, purpose)."""
    return random.Random(f"msgflow:{salt}:{seed}:{index}")


# ---------------------------------------------------------------------------------------------------------------
# Subcommands
# ---------------------------------------------------------------------------------------------------------------


def cmd_gen_histories(args: argparse.Namespace) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    for index in range(args.count):
        data = oc.dump(rand_history(history_rng(args.seed, index, "valid")))
        entry = oc.roundtrip_entry(f"hist-{index}.json", data)
        if not entry["redump_equal"]:
            raise SystemExit(f"generator bug: hist-{index} (seed {args.seed}) is not byte-stable: {entry['error']}")
        (args.out / f"hist-{index}.json").write_bytes(data)
    print(f"wrote {args.count} histories to {args.out}")
    return 0


def report_dir(directory: Path, out: Path) -> int:
    if not directory.is_dir():
        print(f"error: not a directory: {directory}", file=sys.stderr)
        return 2
    entries = [oc.roundtrip_entry(path.name, path.read_bytes()) for path in sorted(directory.glob("*.json"))]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    accepted = sum(entry["accepted"] for entry in entries)
    stable = sum(entry["redump_equal"] for entry in entries)
    print(f"{len(entries)} files: {accepted} accepted, {stable} byte-stable")
    return 0


def cmd_check_accepts(args: argparse.Namespace) -> int:
    return report_dir(args.dir, args.out)


# --- broken histories ------------------------------------------------------------------------------------------


class BrokenBuilder:
    """Builds a random history with pairing defects, using a small id pool so ids collide on purpose."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.clock = datetime(2025, 1, 2, tzinfo=timezone.utc) + timedelta(hours=rng.randint(0, 1000))
        self.id_pool = [f"id_{letter}" for letter in "abcdefgh"[: rng.randint(2, 8)]]
        self.calls: list[m.ToolCallPart] = []  # every call emitted so far (to answer, duplicate or shadow)
        self.future_ids: list[str] = []

    def tick(self) -> datetime:
        self.clock += timedelta(seconds=self.rng.randint(1, 60))
        return self.clock

    def call(self) -> m.ToolCallPart:
        rng = self.rng
        call_id = rng.choice(self.id_pool)
        roll = rng.random()
        if roll < 0.12:
            part = m.ToolSearchCallPart(args={"queries": ["q"]}, tool_call_id=call_id)
        elif roll < 0.2:
            part = m.LoadCapabilityCallPart(call_id, args={"id": "budget"})
        else:
            part = m.ToolCallPart(rng.choice(["read", "write", "grep"]),
                                  rng.choice([{"p": 1}, '{"p": 1}', "bad {", None]), call_id,
                                  tool_kind=rng.choice([None, None, "acme.thing"]))
        self.calls.append(part)
        return part

    def result(self, call_id: str, tool_name: str = "read"):
        rng = self.rng
        roll = rng.random()
        if roll < 0.15:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return m.RetryPromptPart("fix the args", tool_name=tool_name, tool_call_id=call_id,
                                         timestamp=self.tick())
        outcome = rng.choice(["success", "success", "failed", "retried", "denied", "interrupted"])
        retry = m.RetryInfo("model_retry") if outcome == "retried" and rng.random() < 0.5 else None
        return m.ToolReturnPart(tool_name, rng.choice(["ok", {"n": 1}, None]), call_id, timestamp=self.tick(),
                                outcome=outcome, retry=retry)

    def response(self) -> m.ModelResponse:
        rng = self.rng
        parts = []
        if rng.random() < 0.4:
            parts.append(m.TextPart(rng.choice(["thinking aloud", "calling tools", ""])))
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            parts.append(self.call())
        if rng.random() < 0.15 and parts and isinstance(parts[-1], m.ToolCallPart):
            duplicate = parts[-1]  # FIFO duplicate id inside one response
            parts.append(m.ToolCallPart(duplicate.tool_name, None, duplicate.tool_call_id))
            self.calls.append(parts[-1])
        if rng.random() < 0.15:
            parts.append(m.NativeToolCallPart("web_search", {"q": "x"}, rng.choice(self.id_pool)))
            if rng.random() < 0.5:
                parts.append(m.NativeToolReturnPart("web_search", "hits", parts[-1].tool_call_id, timestamp=self.tick()))
        synthetic = rng.random() < 0.5
        return m.ModelResponse(
            parts,
            timestamp=self.tick(),
            model_name=None if synthetic else "claude",
            provider_name=None if synthetic else "anthropic",
            provider_response_id=None if synthetic else f"msg_{rng.getrandbits(32):08x}",
            state=rng.choice(["complete", "complete", "interrupted"]),
            run_id=maybe(rng, lambda: "run-1", 0.2),
        )

    def request(self) -> m.ModelRequest:
        rng = self.rng
        parts = []
        roll = rng.random()
        if self.calls and roll < 0.7:
            # answer some recent calls (maybe twice), in a random order
            for tool_call in rng.sample(self.calls[-4:], k=rng.randint(0, min(4, len(self.calls)))):
                parts.append(self.result(tool_call.tool_call_id, tool_call.tool_name))
        if rng.random() < 0.2:
            parts.append(self.result(rng.choice(self.id_pool + ["id_orphan", "id_zzz"])))  # orphan or early return
        if rng.random() < 0.15:
            parts.append(m.RetryFeedbackPart("try again", retry=m.RetryInfo("model_retry"), timestamp=self.tick()))
        if rng.random() < 0.1:
            parts.append(m.ToolAvailabilityDeltaPart(tools_added=["grep"]))
        if rng.random() < 0.45 or not parts:
            parts.append(m.UserPromptPart(rng.choice(["next", "hurry", "stop"]), timestamp=self.tick()))
        if len(parts) > 1 and rng.random() < 0.4:
            rng.shuffle(parts)
        metadata = rng.choice([None, None, {"app": 1}, {"__pydantic_ai__": {"k": rng.randint(0, 3)}},
                               {"app": 2, "__pydantic_ai__": {"j": 1}}])
        return m.ModelRequest(
            parts,
            timestamp=maybe(rng, self.tick, 0.7),
            instructions=rng.choice([None, None, "", "Be brief.", "Be verbose."]),
            run_id=maybe(rng, lambda: rng.choice(["run-1", "run-2"]), 0.4),
            conversation_id=maybe(rng, lambda: rng.choice(["conv-1", "conv-2"]), 0.4),
            metadata=metadata,
            state=rng.choice(["complete", "complete", "interrupted"]),
        )

    def history(self) -> list:
        rng = self.rng
        history: list = []
        if rng.random() < 0.8:
            history.append(m.ModelRequest([m.UserPromptPart("start", timestamp=self.tick())], timestamp=self.tick()))
        for _ in range(rng.randint(1, 7)):
            roll = rng.random()
            if roll < 0.45:
                history.append(self.response())
            elif roll < 0.9:
                history.append(self.request())
            else:  # deliberately consecutive messages of one kind
                maker = self.response if rng.random() < 0.5 else self.request
                history.append(maker())
                history.append(maker())
        if rng.random() < 0.5:
            history.append(self.response())  # end on a response, often with dangling calls
        return history


def cmd_gen_broken(args: argparse.Namespace) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    for index in range(args.count):
        history = BrokenBuilder(history_rng(args.seed, index, "broken")).history()
        input_bytes = oc.dump(history)
        # Repair what a reader of the input file sees (legacy retry-prompt parts are translated on load).
        expected = oc.dump(m.repair_messages(oc.load(input_bytes)))
        expected_keep_last = oc.dump(m.repair_messages(oc.load(input_bytes), repair_last_response=False))
        (args.out / f"case-{index}.input.json").write_bytes(input_bytes)
        (args.out / f"case-{index}.expected.json").write_bytes(expected)
        (args.out / f"case-{index}.expected-keep-last.json").write_bytes(expected_keep_last)
    print(f"wrote {args.count} broken cases to {args.out}")
    return 0


# --- media -----------------------------------------------------------------------------------------------------

MEDIA_KINDS = {"image-url": m.ImageUrl, "audio-url": m.AudioUrl, "video-url": m.VideoUrl, "document-url": m.DocumentUrl}


_BASE64_BYTES = pydantic.TypeAdapter(bytes, config=pydantic.ConfigDict(val_json_bytes="base64"))


def decode_base64(value: str) -> bytes:
    """Decode exactly as the history adapter does (val_json_bytes='base64': both alphabets, padding optional)."""
    return _BASE64_BYTES.validate_json(json.dumps(value))


def media_entry(item: dict) -> dict:
    """Add py_media_type / py_identifier (or py_error) to one corpus item."""
    result = dict(item)
    kind, value = item.get("kind"), item.get("value")
    media_type, identifier = item.get("media_type"), item.get("identifier")
    try:
        if not isinstance(value, str):
            raise TypeError("value must be a string")
        if kind == "guess":
            result["py_media_type"] = m._mime_types.guess_type(value)[0]  # noqa: SLF001
            result["py_identifier"] = None
            return result
        if kind in MEDIA_KINDS:
            built = MEDIA_KINDS[kind](value, media_type=media_type, identifier=identifier)
        elif kind == "uploaded-file":
            built = m.UploadedFile(value, "openai", media_type=media_type, identifier=identifier)
        elif kind == "binary":
            if media_type is None:
                raise ValueError("binary items need a media_type")
            built = m.BinaryContent(decode_base64(value), media_type=media_type, identifier=identifier)
        else:
            raise ValueError(f"unknown corpus kind {kind!r}")
    except (TypeError, ValueError) as exc:  # pydantic.ValidationError is a ValueError
        result["py_media_type"] = None
        result["py_identifier"] = None
        result["py_error"] = f"{type(exc).__name__}: {exc}"
        return result
    try:
        result["py_media_type"] = built.media_type
    except ValueError:
        result["py_media_type"] = None
    result["py_identifier"] = built.identifier
    return result


def cmd_media(args: argparse.Namespace) -> int:
    try:
        corpus = json.loads(args.corpus.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: cannot read corpus {args.corpus}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(corpus, list) or not all(isinstance(item, dict) for item in corpus):
        print("error: corpus must be a JSON array of objects", file=sys.stderr)
        return 2
    results = [media_entry(item) for item in corpus]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    failures = sum(1 for entry in results if entry["py_media_type"] is None)
    print(f"{len(results)} items, {failures} without a media type")
    return 0


# ---------------------------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    gen = sub.add_parser("gen-histories", help="seeded random valid histories")
    gen.add_argument("--seed", type=int, required=True)
    gen.add_argument("--count", type=int, required=True)
    gen.add_argument("--out", type=Path, required=True)
    gen.set_defaults(handler=cmd_gen_histories)

    for name in ("check-accepts", "roundtrip-dir"):
        check = sub.add_parser(name, help="accept/re-dump report for every *.json in a directory")
        check.add_argument("--dir", type=Path, required=True)
        check.add_argument("--out", type=Path, required=True)
        check.set_defaults(handler=cmd_check_accepts)

    broken = sub.add_parser("gen-broken", help="seeded random broken histories with repair_messages expectations")
    broken.add_argument("--seed", type=int, required=True)
    broken.add_argument("--count", type=int, required=True)
    broken.add_argument("--out", type=Path, required=True)
    broken.set_defaults(handler=cmd_gen_broken)

    media = sub.add_parser("media", help="media-type inference and identifiers for a corpus")
    media.add_argument("--corpus", type=Path, required=True)
    media.add_argument("--out", type=Path, required=True)
    media.set_defaults(handler=cmd_media)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # argparse exits with status 2 on usage errors
    oc.assert_oracle_version()
    if getattr(args, "count", 0) < 0:
        print("error: --count must be >= 0", file=sys.stderr)
        return 2
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
