"""Records pydantic-ai 2.68.0's answer for each verdict case into cases.json.

Run from the repository root with the oracle's venv (`cargo xtask fixtures` creates it):

    target/venv/bin/python crates/wire/tests/verdict/record.py

Each case is one history; the answer is `validate_json`'s errors as (type, loc), or [] when it
loads. `crates/wire/tests/verdict.rs` holds msgflow's verdict to these answers.
"""
import json
import pathlib

from pydantic import ValidationError
from pydantic_ai.messages import ModelMessagesTypeAdapter

REQ = '{"parts":[%s],"kind":"request"%s}'
RES = '{"parts":[%s],"kind":"response"%s}'
USER = '{"content":"hi","part_kind":"user-prompt"%s}'
TEXT = '{"content":"hi","part_kind":"text"%s}'
CALL = '{"tool_name":"t","tool_call_id":"c1","part_kind":"tool-call"%s}'
RET = '{"tool_name":"t","tool_call_id":"c1","content":"ok","part_kind":"tool-return"%s}'


def req(parts="", extra=""):
    return "[" + REQ % (parts, extra) + "]"


def res(parts="", extra=""):
    return "[" + RES % (parts, extra) + "]"


def usage(body):
    return res(TEXT % "", ',"usage":{%s}' % body)


def ts(value):
    return req(USER % "", ',"timestamp":%s' % json.dumps(value))


def typed(part_kind, tool_name, tool_kind, extra):
    """A part with a `tool_kind`, which pydantic-ai may route to a typed class."""
    return '{"tool_name":"%s","tool_call_id":"c1","tool_kind":"%s"%s,"part_kind":"%s"}' % (tool_name, tool_kind, extra, part_kind)


def nested(levels):
    return "[" * levels + "1" + "]" * levels


CASES = {
    # Valid histories.
    "valid request": req(USER % ""),
    "valid response": res(TEXT % "" + "," + CALL % ',"args":{"a":1}'),
    # Field types and nullability.
    "usage null": res(TEXT % "", ',"usage":null'),
    "usage count null": usage('"input_tokens":null'),
    "usage legacy alias null": usage('"request_tokens":null'),
    # A legacy alias is read only when its property is absent (`AliasChoices`): beside the
    # property any value loads; alone, a value of another type is refused as the property's type.
    "usage legacy alias of another type beside its property": usage('"input_tokens":1,"request_tokens":{"a":1}'),
    "usage legacy alias of another type": usage('"request_tokens":{"a":1}'),
    "usage legacy alias with a fraction": usage('"response_tokens":"x","output_tokens":null,"request_tokens":5.5'),
    "usage legacy alias too long beside its property": usage('"input_tokens":1,"request_tokens":"%s"' % ("7" * 4301)),
    "vendor_id of another type beside provider_response_id": res(TEXT % "", ',"provider_response_id":"r","vendor_id":5'),
    "vendor_id of another type": res(TEXT % "", ',"vendor_id":[1]'),
    "vendor_id null": res(TEXT % "", ',"vendor_id":null'),
    "tools added under the legacy alias, of another type beside tools_added": req('{"tools_added":["a"],"added":[1,"b"],"part_kind":"tool-availability-delta"}'),
    "tools added under the legacy alias, of another type": req('{"added":[1,"b",{}],"part_kind":"tool-availability-delta"}'),
    "tools added under the legacy alias, not a list": req('{"added":"ab","part_kind":"tool-availability-delta"}'),
    "usage details null": usage('"details":null'),
    "usage details not ints": usage('"details":{"a":true,"b":"x"}'),
    "part timestamp null": req(USER % ',"timestamp":null'),
    "response timestamp null": res(TEXT % "", ',"timestamp":null'),
    "request timestamp null": req(USER % "", ',"timestamp":null'),
    "args array": res(CALL % ',"args":[1]'),
    "args number": res(CALL % ',"args":5'),
    "args null": res(CALL % ',"args":null'),
    "args string": res(CALL % ',"args":"{\\"a\\":1}"'),
    "provider_details array": res(TEXT % "", ',"provider_details":[]'),
    "provider_details string": res(TEXT % ',"provider_details":"x"'),
    "request metadata number": req(USER % "", ',"metadata":5'),
    "request metadata object": req(USER % "", ',"metadata":{"a":1}'),
    "tool_call_id null": res(CALL % ',"tool_call_id":null'),
    "text content null": res('{"content":null,"part_kind":"text"}'),
    "tool return content null": req(RET % ',"content":null'),
    "model_name null": res(TEXT % "", ',"model_name":null'),
    "state null": req(USER % "", ',"state":null'),
    "citations null": res(TEXT % ',"citations":null'),
    # Lax coercions.
    "int from true": usage('"input_tokens":true'),
    "int from string": usage('"input_tokens":"5","output_tokens":" 7 ","cache_read_tokens":"1_000"'),
    "int from whole float": usage('"input_tokens":5.0,"output_tokens":1e3'),
    "int from fractional float": usage('"input_tokens":5.5'),
    "int from float string": usage('"input_tokens":"5.0","output_tokens":"5.5"'),
    "int from exponent string": usage('"input_tokens":"1e3"'),
    "int from huge float": usage('"input_tokens":1e300'),
    "int beyond 64 bits": usage('"input_tokens":18446744073709551616'),
    "int of 4300 digits": usage('"input_tokens":' + "9" * 4300),
    "int of 4301 digits": usage('"input_tokens":' + "9" * 4301),
    "int string of 4301 digits": usage('"input_tokens":"' + "9" * 4301 + '"'),
    "int bad underscores": usage('"input_tokens":"5__0","output_tokens":"_5"'),
    "float from bool": usage('"audio_seconds":true'),
    # Literals.
    "finish_reason unknown": res(TEXT % "", ',"finish_reason":"STOP"'),
    "finish_reason known": res(TEXT % "", ',"finish_reason":"stop"'),
    "state unknown": req(USER % "", ',"state":"Complete"'),
    "outcome unknown": req(RET % ',"outcome":"Success"'),
    "speaker unknown": res('{"speaker":"User","part_kind":"speech"}'),
    # Tagged unions.
    "part_kind wrong case": req('{"content":"hi","part_kind":"User-prompt"}'),
    "part_kind unknown": res('{"content":"hi","part_kind":"future-part"}'),
    "kind wrong case": '[{"parts":[],"kind":"Request"}]',
    "response part in request": req(TEXT % ""),
    "content item unknown kind": req('{"content":["a",{"url":"x","kind":"image-urlx"}],"part_kind":"user-prompt"}'),
    # Datetimes.
    "leap second": ts("2025-01-01T23:59:60Z"),
    "hour 24": ts("2025-01-01T24:00:00Z"),
    "no seconds": ts("2025-01-02T03:04Z"),
    "hour only": ts("2025-01-02T03Z"),
    "offset hours only": ts("2025-01-02T03:04:05+05"),
    "offset without colon": ts("2025-01-02T03:04:05+0530"),
    "offset 24 hours": ts("2025-01-02T03:04:05+24:00"),
    "lower case t and z": ts("2025-01-02t03:04:05z"),
    "underscore separator": ts("2025-01-02_03:04:05"),
    "comma fraction": ts("2025-01-02T03:04:05,5Z"),
    "nine fraction digits": ts("2025-01-02T03:04:05.123456789Z"),
    "empty fraction": ts("2025-01-02T03:04:05.Z"),
    "date only": ts("2025-01-02"),
    "february 29 non leap": ts("2025-02-29T00:00:00Z"),
    "year 0": ts("0000-01-01T00:00:00Z"),
    "unix time string": ts("1735787045"),
    "unix time string signed": ts("+1735787045"),
    "unix time string fraction": ts("1735787045.5"),
    "unix time string exponent": ts("1e10"),
    "unix time string too large": ts("253402300800000"),
    "leading space": ts(" 2025-01-02T03:04:05Z"),
    "trailing space": ts("2025-01-02T03:04:05Z "),
    "unix time number": req(USER % "", ',"timestamp":1735787045'),
    "unix time number ms": req(USER % "", ',"timestamp":17357870450000'),
    "unix time number too large": req(USER % "", ',"timestamp":253402300800000'),
    "unix time float": req(USER % "", ',"timestamp":1735787045.5'),
    # Model validators.
    "speech assistant in request": req('{"speaker":"assistant","part_kind":"speech"}'),
    "speech user in response": res('{"speaker":"user","part_kind":"speech"}'),
    "speech user in request": req('{"speaker":"user","part_kind":"speech"}'),
    "compaction with id in request": req('{"content":"s","id":"x","part_kind":"compaction"}'),
    "compaction with provider in request": req('{"content":"s","provider_name":"p","part_kind":"compaction"}'),
    "compaction with id in response": res('{"content":"s","id":"x","part_kind":"compaction"}'),
    "citation anchor start equals end": res(TEXT % ',"citations":[{"sources":[{"url":"u","kind":"web"}],"anchor":{"start":3,"end":3,"kind":"content"}}]'),
    "citation anchor negative start": res(TEXT % ',"citations":[{"sources":[{"url":"u","kind":"web"}],"anchor":{"start":-1,"end":3,"kind":"marker"}}]'),
    "citation anchor fine": res(TEXT % ',"citations":[{"sources":[{"url":"u","kind":"web"}],"anchor":{"start":0,"end":3,"kind":"content"}}]'),
    "citation without sources": res(TEXT % ',"citations":[{"sources":[]}]'),
    "document source without fields": res(TEXT % ',"citations":[{"sources":[{"kind":"document"}]}]'),
    "document source with empty title": res(TEXT % ',"citations":[{"sources":[{"kind":"document","title":""}]}]'),
    "retry prompt details lacking keys": req('{"content":[{"type":"x","loc":[],"msg":"m","input":1},{"msg":"m"}],"tool_name":"t","part_kind":"retry-prompt"}'),
    "retry prompt feedback details lacking keys": req('{"content":[{"msg":"m"}],"part_kind":"retry-prompt"}'),
    "retry prompt content number": req('{"content":5,"tool_name":"t","part_kind":"retry-prompt"}'),
    "retry prompt timestamp null": req('{"content":"x","tool_name":"t","part_kind":"retry-prompt","timestamp":null}'),
    "retry feedback details lacking keys": req('{"content":[{"msg":"m"}],"retry":{"cause":"output-validation","attempt":1},"part_kind":"retry-feedback"}'),
    # JSON-level limits.
    "depth 200": res(CALL % (',"args":{"a":%s}' % nested(195))),
    "depth 201": res(CALL % (',"args":{"a":%s}' % nested(196))),
    "lone surrogate in args key": res(CALL % ',"args":{"\\ud800":1}'),
    "lone surrogate in args value": res(CALL % ',"args":{"a":"\\udc00"}'),
    "surrogate pair in args": res(CALL % ',"args":{"a":"\\ud83d\\ude00"}'),
    "lone surrogate in unknown key value": req(RET % ',"x":"\\ud800"'),
    "long integer in args": res(CALL % (',"args":{"a":%s}' % ("9" * 4301))),
    # Opaque values pydantic validates.
    "force_download yes": req('{"content":[{"url":"u","kind":"image-url","force_download":"yes"}],"part_kind":"user-prompt"}'),
    "force_download beyond 64 bits": req('{"content":[{"url":"u","kind":"image-url","force_download":9223372036854775808}],"part_kind":"user-prompt"}'),
    "force_download at the 64-bit limit": req('{"content":[{"url":"u","kind":"image-url","force_download":-9223372036854775808}],"part_kind":"user-prompt"}'),
    "force_download null": req('{"content":[{"url":"u","kind":"image-url","force_download":null}],"part_kind":"user-prompt"}'),
    "instruction block part_kind null": req('{"instructions":[{"content":"x","part_kind":null}],"part_kind":"instruction-baseline"}'),
    "force_download integer 2": req('{"content":[{"url":"u","kind":"image-url","force_download":2}],"part_kind":"user-prompt"}'),
    "cost decimal string": usage('"cost":"0.50"'),
    "cost not a decimal": usage('"cost":"off"'),
    "cost nan": usage('"cost":"NaN"'),
    "cost bool": usage('"cost":true'),
    "duration iso": res(TEXT % "", ',"failed_attempts":[{"model_name":"m","outcome":"error","timestamp":"2025-01-01T00:00:00Z","duration":"PT1.5S"}]'),
    "duration numeric string": res(TEXT % "", ',"failed_attempts":[{"model_name":"m","outcome":"error","timestamp":"2025-01-01T00:00:00Z","duration":"1.5"}]'),
    "duration null": res(TEXT % "", ',"failed_attempts":[{"model_name":"m","outcome":"error","timestamp":"2025-01-01T00:00:00Z","duration":null}]'),
    "instruction delta id array": req('{"id":[1],"content":"x","part_kind":"instruction-delta"}'),
    "instruction delta id object without source": req('{"id":{"name":"n"},"content":"x","part_kind":"instruction-delta"}'),
    # Typed routes (`_TYPED_PART_TAGS`): a part whose `tool_kind` names a typed class is read as it.
    "tool search call": res(typed("tool-call", "search_tools", "tool-search", ',"args":{"queries":["q"]}')),
    "tool search call with another name": res(typed("tool-call", "other", "tool-search", "")),
    "tool search call args without queries": res(typed("tool-call", "search_tools", "tool-search", ',"args":{}')),
    "tool search call args a number": res(typed("tool-call", "search_tools", "tool-search", ',"args":5')),
    "tool search call queries not strings": res(typed("tool-call", "search_tools", "tool-search", ',"args":{"queries":[1,"a",null]}')),
    "tool search call queries written twice": res(typed("tool-call", "search_tools", "tool-search", ',"args":{"queries":5,"queries":["a"]}')),
    "tool search call args string": res(typed("tool-call", "search_tools", "tool-search", ',"args":"{}"')),
    "tool search call with a failed outcome key": res(typed("tool-call", "other", "tool-search", ',"outcome":"failed"')),
    "tool search call with an escaped success outcome key": res(typed("tool-call", "other", "tool-search", ',"outcome":"\\u0073uccess"')),
    "capability load call args id a number": res(typed("tool-call", "load_capability", "capability-load", ',"args":{"id":5}')),
    "capability load call args deep": res(typed("tool-call", "load_capability", "capability-load", ',"args":{"a":%s}' % nested(150))),
    "native tool search call with the local name": res(typed("builtin-tool-call", "search_tools", "tool-search", "")),
    "native tool search return content a number": res(typed("builtin-tool-return", "tool_search", "tool-search", ',"content":5')),
    "tool search return": req(typed("tool-return", "search_tools", "tool-search", ',"content":{"discovered_tools":[{"name":"a"}]}')),
    "tool search return content a string": req(typed("tool-return", "search_tools", "tool-search", ',"content":"x"')),
    "tool search return content null": req(typed("tool-return", "search_tools", "tool-search", ',"content":null')),
    "tool search return shapes": req(typed("tool-return", "search_tools", "tool-search", ',"content":{"discovered_tools":[1,{},{"name":5}],"message":5}')),
    "tool search return failed": req(typed("tool-return", "other", "tool-search", ',"content":"x","outcome":"failed"')),
    "capability load return message a number": req(typed("tool-return", "load_capability", "capability-load", ',"content":{"message":5,"instructions":[]}')),
    "capability load return with another name": req(typed("tool-return", "\\ud83d\\ude00", "capability-load", ',"content":{}')),
    "retry feedback details nested deep": req('{"content":[%s],"part_kind":"retry-feedback"}' % nested(150)),
    # pydantic's smart union over user content: an item without `kind` is tried as each member
    # that defaults it (StructuredContent, TextContent, CachePoint).
    "content item without kind": req('{"content":[{}],"part_kind":"user-prompt"}'),
    "content item without kind, unknown keys": req('{"content":[{"a":{"a":[1]},"KIND":"binary"}],"part_kind":"user-prompt"}'),
    "content item without kind, text": req('{"content":[{"content":"x","metadata":{"m":1}}],"part_kind":"user-prompt"}'),
    "content item without kind, structured": req('{"content":[{"value":[1],"tag":"t"}],"part_kind":"user-prompt"}'),
    "content item without kind, nested deep": req('{"content":[{"a":%s}],"part_kind":"user-prompt"}' % nested(150)),
    "content item without kind, nested too deep": req('{"content":[{"a":%s}],"part_kind":"user-prompt"}' % nested(200)),
    "content item without kind, no member fits": req('{"content":[{"ttl":"1d"}],"part_kind":"user-prompt"}'),
    "content item without kind, text of another type": req('{"content":[{"content":1,"ttl":5}],"part_kind":"user-prompt"}'),
    "content item with kind null": req('{"content":[{"content":"x","kind":null}],"part_kind":"user-prompt"}'),
    # A key pydantic-ai defaults: a typed class's literal `tool_name`, a BinaryContent's `kind`.
    "tool search call without tool_name": res('{"tool_call_id":"c1","tool_kind":"tool-search","part_kind":"tool-call"}'),
    "capability load return without tool_name": req('{"tool_call_id":"c1","tool_kind":"capability-load","content":{"message":""},"part_kind":"tool-return"}'),
    "native tool search call without tool_name": res('{"tool_call_id":"c1","tool_kind":"tool-search","part_kind":"builtin-tool-call"}'),
    "call without tool_name": res('{"tool_call_id":"c1","part_kind":"tool-call"}'),
    "capability load call without tool_name, not a success": res('{"tool_call_id":"c1","tool_kind":"capability-load","outcome":"failed","part_kind":"tool-call"}'),
    "file part binary without kind": res('{"content":{"data":"AAAA","media_type":"image/png"},"part_kind":"file"}'),
    # Ignored computed fields and unknown keys.
    "content_file_digests of another type": req(RET % ',"content_file_digests":5'),
    "content_file_digests null": req(RET % ',"content_file_digests":null'),
    "a tool result retried for a retry prompt's cause": req(RET % ',"outcome":"retried","retry":{"cause":"no_output"}'),
    "a retry prompt for a tool result's cause": req('{"content":"x","part_kind":"retry-feedback","retry":{"cause":"unknown_tool"}}'),
    "content_file_digests holding a number": req(RET % ',"content_file_digests":["ab",1]'),
    "content_file_digests written with spaces": req(RET % ',"content_file_digests":[ "ab" ]'),
    "unknown key": req(USER % ',"future_key":{"a":1}'),
}


def answer(text):
    try:
        ModelMessagesTypeAdapter.validate_json(text)
        return []
    except ValidationError as error:
        return [{"type": e["type"], "loc": list(e["loc"])} for e in error.errors(include_url=False)]


def main():
    here = pathlib.Path(__file__).parent
    cases = [{"name": name, "input": text, "pydantic": answer(text)} for name, text in CASES.items()]
    (here / "cases.json").write_text(json.dumps(cases, indent=1, ensure_ascii=True) + "\n")
    print(f"recorded {len(cases)} cases")


if __name__ == "__main__":
    main()
