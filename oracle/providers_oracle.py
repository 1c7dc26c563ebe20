"""The provider-request oracle for msgflow-providers: what pydantic-ai 2.68.0 would send for a history.

For each history and provider this runs the model's own ``prepare_messages`` and then its private message mapping,
called the way pydantic-ai's own tests call it, on a model built with a dummy API key (nothing is ever sent):

* ``anthropic``: ``AnthropicModel('claude-sonnet-4-5')._map_message`` -> ``{"system": ..., "messages": [...]}`` (no
  ``system`` where it is empty, as ``_messages_create_params`` leaves it out), with
  the cache points settled as ``_prepare_messages_create`` then does (``_limit_cache_points``,
  ``raise_earlier_breakpoint_ttls``)
* ``openai-chat``: ``OpenAIChatModel('gpt-4o')._map_messages`` -> ``{"messages": [...]}``
* ``openai-responses``: ``OpenAIResponsesModel('gpt-5')._map_messages`` -> ``{"instructions": ..., "input": [...]}``

with default model settings and ``ModelRequestParameters()`` resolved by the model's ``prepare_request`` (no tools).
A refusal (any exception the mapping raises: ``UserError``, ``NotImplementedError``, ...) is reported as
``{"refused": "<ExceptionType>: <message>"}``.

Usage (one process for a whole batch):

    python providers_oracle.py --cases FILE.jsonl --out FILE.jsonl

Each input line is ``{"name": ..., "history": <pydantic-ai history JSON value>}``, with ``"history_text"`` where the
history is spelled otherwise than pydantic-ai writes it (loaded from that text); each output line is
``{"name": ..., "<provider>": {"request": ...} | {"refused": ...}, ...}`` for the three providers, and for OpenAI
Chat with each profile setting msgflow offers as an option (``openai-chat+thinking=<mode>``), and for Anthropic with
the reasoning it cannot take back as its own written in the reply (``anthropic+thinking=assistant-turn``), and for
OpenAI with the reasoning it writes out as text carried in a user turn (``...+openai-thinking=user-turn``), in input
order.

A case may declare function tools (``"tools": {"visible": [names], "deferred": [names]}``, the deferred ones with
``defer_loading=True``), for ``anthropic+tool-references``: ``AnthropicModel('claude-opus-4-8')``, which reveals
deferred tools by reference, run only when named in ``--models``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

import oracle_common  # noqa: F401 - pins the mime table before pydantic_ai is imported

from pydantic_ai.models import ModelRequestParameters  # noqa: E402
from pydantic_ai.models.anthropic import OMIT, AnthropicModel  # noqa: E402
from pydantic_ai.models.anthropic._cache_control import raise_earlier_breakpoint_ttls  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel  # noqa: E402
from pydantic_ai.providers.anthropic import AnthropicProvider  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402
from pydantic_ai.tools import ToolDefinition  # noqa: E402

# The SDK clients are built but never used for a request: the mapping only builds the request's parameters.
DUMMY_KEY = "msgflow-oracle-never-sent"


# The profile settings msgflow offers as options (`msgflow export --openai-chat-thinking MODE`), each
# a model of its own here, named `<provider>+<option>=<value>` as xtask's conformance check names them.
CHAT_THINKING_PROFILES = {
    "tags": {"openai_chat_send_back_thinking_parts": "tags"},
    "field:reasoning_content": {
        "openai_chat_send_back_thinking_parts": "field",
        "openai_chat_thinking_field": "reasoning_content",
    },
    "field:thoughts": {"openai_chat_send_back_thinking_parts": "field", "openai_chat_thinking_field": "thoughts"},
    "off": {"openai_chat_send_back_thinking_parts": False},
}
class DownloadRefused(Exception):
    """Raised where pydantic-ai would download a file (`download_item`): msgflow never downloads, so such a history
    is one it refuses, and the oracle must not touch the network either."""


async def _refuse_download(item, *args, **kwargs):
    raise DownloadRefused(f"pydantic-ai would download {type(item).__name__} {getattr(item, 'url', '')!r}")


def _patch_downloads() -> None:
    """Make every model module's `download_item` refuse (each imported it by name)."""
    import pydantic_ai.models as models_module
    import pydantic_ai.models.anthropic as anthropic_module
    import pydantic_ai.models.openai._chat_model as chat_module
    import pydantic_ai.models.openai._responses_model as responses_module

    for module in (models_module, anthropic_module, chat_module, responses_module):
        if hasattr(module, "download_item"):
            module.download_item = _refuse_download


def build_models() -> dict:
    models = {
        "anthropic": AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key=DUMMY_KEY)),
        "openai-chat": OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key=DUMMY_KEY)),
        "openai-responses": OpenAIResponsesModel("gpt-5", provider=OpenAIProvider(api_key=DUMMY_KEY)),
    }
    for mode, profile in CHAT_THINKING_PROFILES.items():
        # A partial profile is merged over gpt-4o's (`Model.profile`, step 4).
        models[f"openai-chat+thinking={mode}"] = OpenAIChatModel(
            "gpt-4o", provider=OpenAIProvider(api_key=DUMMY_KEY), profile=profile
        )
    # Reasoning Anthropic cannot take back as its own, written in the reply (`--anthropic-thinking
    # assistant-turn`) rather than carried in a user turn.
    models["anthropic+thinking=assistant-turn"] = AnthropicModel(
        "claude-sonnet-4-5",
        provider=AnthropicProvider(api_key=DUMMY_KEY),
        profile={"mimics_assistant_message_formatting": False},
    )
    # Reasoning OpenAI writes out as text, carried in a user turn (`--openai-thinking user-turn`), with Chat's default
    # send-back and with `'tags'`, which writes all of it out.
    carried = {"mimics_assistant_message_formatting": True}
    models["openai-chat+openai-thinking=user-turn"] = OpenAIChatModel(
        "gpt-4o", provider=OpenAIProvider(api_key=DUMMY_KEY), profile=carried
    )
    models["openai-chat+thinking=tags+openai-thinking=user-turn"] = OpenAIChatModel(
        "gpt-4o", provider=OpenAIProvider(api_key=DUMMY_KEY), profile={**CHAT_THINKING_PROFILES["tags"], **carried}
    )
    models["openai-responses+openai-thinking=user-turn"] = OpenAIResponsesModel(
        "gpt-5", provider=OpenAIProvider(api_key=DUMMY_KEY), profile=carried
    )
    return models


def build_opt_in_models() -> dict:
    """Models run only when named in ``--models``, for cases that declare tools (``"tools"``)."""
    return {
        # A model that reveals deferred tools by reference (`supported_tool_addition_modes`): a
        # local tool search's result goes as `tool_reference` blocks, a `ToolAvailabilityDeltaPart`
        # as `tool_addition` blocks of a `system` entry.
        "anthropic+tool-references": AnthropicModel("claude-opus-4-8", provider=AnthropicProvider(api_key=DUMMY_KEY)),
    }


def request_parameters(tools: dict | None) -> ModelRequestParameters:
    """The request's parameters before `prepare_request`: no tools, or the case's function tools
    (``{"visible": [names], "deferred": [names]}``, the deferred ones with `defer_loading=True`)."""
    if not tools:
        return ModelRequestParameters()
    schema = {"type": "object", "properties": {}}
    definitions = [
        ToolDefinition(name=name, parameters_json_schema=schema, defer_loading=deferred)
        for key, deferred in (("visible", False), ("deferred", True))
        for name in tools.get(key, [])
    ]
    return ModelRequestParameters(function_tools=definitions)


def to_json_value(value):
    """The request as a plain JSON value (the SDK's TypedDicts are dicts already; `Omit`/`NotGiven` are dropped)."""
    if isinstance(value, dict):
        return {key: to_json_value(item) for key, item in value.items() if not _is_omitted(item)}
    if isinstance(value, (list, tuple)):
        return [to_json_value(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": bytes(value).hex()}
    return value


def _is_omitted(value) -> bool:
    return type(value).__name__ in ("Omit", "NotGiven")


async def export(name: str, model, history: list, tools: dict | None = None) -> dict:
    provider = name.split("+", 1)[0]
    settings, params = model.prepare_request(None, request_parameters(tools))
    settings = settings or {}
    prepared = model.prepare_messages(history, params)
    if provider == "anthropic":
        system, messages = await model._map_message(prepared, params, settings)  # noqa: SLF001 - the oracle
        # What `_prepare_messages_create` does to the mapped messages with default settings (no automatic caching,
        # no cached instructions or tool definitions): at most 4 cache points, the oldest stripped, and each kept one's
        # ttl raised to the longest after it.
        model._limit_cache_points(system, messages, [], automatic_caching=False)  # noqa: SLF001
        raise_earlier_breakpoint_ttls(system, messages, [], None)
        # `_messages_create_params` sends `system=prepared.system_prompt or OMIT`: no system prompt, no `system`.
        return {"system": system or OMIT, "messages": messages}
    if provider == "openai-chat":
        messages = await model._map_messages(prepared, params, model_settings=settings)  # noqa: SLF001
        return {"messages": messages}
    instructions, items = await model._map_messages(  # noqa: SLF001
        prepared, settings, params, previous_response_id=None
    )
    return {"instructions": instructions, "input": items}


async def run_case(models: dict, history_value, history_text: str | None = None, tools: dict | None = None) -> dict:
    """Every model's request for a history: the JSON value, or, where the case spells it otherwise than pydantic-ai
    writes it (`history_text`), that text as pydantic-ai loads a file (`validate_json`); with the case's `tools`
    declared where it has some."""
    out = {}
    for provider, model in models.items():
        try:
            if history_text is not None:
                history = oracle_common.ADAPTER.validate_json(history_text)
            else:
                history = oracle_common.ADAPTER.validate_python(history_value)
        except Exception as exc:  # noqa: BLE001 - an invalid history is data for the report
            out[provider] = {"invalid": f"{type(exc).__name__}: {exc}"}
            continue
        try:
            request = await export(provider, model, history, tools)
            out[provider] = {"request": to_json_value(request)}
        except Exception as exc:  # noqa: BLE001 - a refusal is data for the report
            out[provider] = {"refused": f"{type(exc).__name__}: {exc}"}
    return out


async def main_async(cases_path: str, out_path: str, only: list[str] | None = None) -> int:
    _patch_downloads()
    models = build_models()
    if only:
        models = {name: model for name, model in {**models, **build_opt_in_models()}.items() if name in only}
    with open(cases_path, encoding="utf-8") as cases, open(out_path, "w", encoding="utf-8") as out:
        for line in cases:
            if not line.strip():
                continue
            case = json.loads(line)
            result = await run_case(models, case["history"], case.get("history_text"), case.get("tools"))
            result["name"] = case["name"]
            out.write(json.dumps(result, ensure_ascii=False, default=str))
            out.write("\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", required=True, help="JSONL: {name, history} per line")
    parser.add_argument("--out", required=True, help="JSONL: {name, <provider>: {request|refused}} per line")
    parser.add_argument("--models", nargs="*", help="only these models (names as in the output), e.g. openai-chat")
    args = parser.parse_args(argv)
    oracle_common.assert_oracle_version()
    os.environ.setdefault("OPENAI_API_KEY", DUMMY_KEY)
    return asyncio.run(main_async(args.cases, args.out, args.models))


if __name__ == "__main__":
    sys.exit(main())
