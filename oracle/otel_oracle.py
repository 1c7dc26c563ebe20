"""The OTel oracle for msgflow-formats: the span attributes pydantic-ai 2.68.0's instrumentation writes for a history.

For each case this builds ``InstrumentationSettings(version=v)`` for every version of the case and computes the
message attributes of the model request span whose response is the history's last message, exactly as
``InstrumentationSettings.handle_messages(input_messages, response, span)`` sets them (``gen_ai.input.messages``,
``gen_ai.output.messages``, ``gen_ai.system_instructions``; the input is every message before that response). A
history that does not end in a response has no output: its input is ``_input_messages_json(history, None)`` and its
instructions ``get_instructions(history)``, what the span of the request it ends with records. The attribute values
(JSON text on the span) are parsed and compared with msgflow's document (``otel<v>`` of the case), the tool call ids
made up for parts without one left out on both sides where the case has such parts (``made_up_ids``): pydantic-ai's
are random.

Usage (one process for a whole batch):

    python otel_oracle.py --cases FILE.jsonl --out FILE.jsonl

Each output line is ``{"name": ..., "to<v>": "equal" | {"differ": "<first difference>"}}``. A case msgflow refused as a
history pydantic-ai does not load (``"refused": <reason>``) is answered ``{"raises": "equal"}`` when loading it raises.
"""

from __future__ import annotations

import json
import sys
import warnings

import oracle_common  # noqa: F401 - pins the mime table before pydantic_ai is imported

from pydantic_ai._instrumentation import get_instructions  # noqa: E402
from pydantic_ai.messages import ModelResponse  # noqa: E402
from pydantic_ai.models.instrumented import InstrumentationSettings  # noqa: E402
from ui_formats_oracle import compare  # noqa: E402

ADAPTER = oracle_common.ADAPTER
KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")


class RecordingSpan:
    """The one method `handle_messages` calls on its span."""

    def __init__(self) -> None:
        self.attributes: dict = {}

    def set_attributes(self, attributes: dict) -> None:
        self.attributes.update(attributes)


def settings_for(version: int) -> InstrumentationSettings:
    with warnings.catch_warnings():
        # Versions 2 to 4 are deprecated: still written, with a warning.
        warnings.simplefilter("ignore")
        return InstrumentationSettings(version=version)


SETTINGS = {version: settings_for(version) for version in (2, 3, 4, 5, 6)}


def span_attributes(history: list, version: int) -> dict:
    attributes = attribute_texts(history, SETTINGS[version])
    return {key: json.loads(attributes[key]) for key in KEYS if key in attributes}


def attribute_texts(history: list, settings: InstrumentationSettings) -> dict:
    """The span's message attributes as the span holds them: JSON texts, keyed by attribute name."""
    if history and isinstance(history[-1], ModelResponse):
        span = RecordingSpan()
        settings.handle_messages(history[:-1], history[-1], span)
        attributes = span.attributes
    else:
        attributes = {
            "gen_ai.input.messages": settings._input_messages_json(history, None).decode(),  # noqa: SLF001
            **settings.system_instructions_attributes(get_instructions(history)),
        }
    return attributes


def run_case(case: dict) -> dict:
    if "refused" in case:
        # msgflow refuses it as a history pydantic-ai does not load: it must raise.
        try:
            ADAPTER.validate_python(case["history"])
        except ValueError:
            return {"raises": "equal"}
        return {"raises": {"differ": f"pydantic-ai loads what msgflow refuses: {case['refused']}"}}
    history = ADAPTER.validate_python(case["history"])
    out: dict = {}
    for key, mine in case.items():
        if not key.startswith("otel"):
            continue
        version = int(key.removeprefix("otel"))
        out[f"to{version}"] = compare(mine, span_attributes(history, version), case.get("made_up_ids", False))
    return out


def main(argv: list[str] | None = None) -> int:
    return oracle_common.run_batch(__doc__, run_case, argv)


if __name__ == "__main__":
    sys.exit(main())
