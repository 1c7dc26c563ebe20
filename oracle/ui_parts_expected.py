"""Records what pydantic-ai 2.68.0's UI adapters write for the part cases of msgflow-formats' `tests/ui_parts.rs`.

For each case of ``crates/formats/tests/data/ui_parts.json`` (a name and a history holding one part kind msgflow
converts to the UI formats), this writes ``vercel``: ``VercelAIAdapter.dump_messages(history, sdk_version=5)`` and
``agui``: ``AGUIAdapter.dump_messages(history)`` (ag-ui-protocol 1.0), both as pydantic serializes them
(``mode='json', by_alias=True``), and ``vercel_parts`` / ``agui_parts``: the part kinds, in order, of the history
their ``load_messages`` reads back from those messages. Run it in the UI-formats venv after changing a case:

    target/venv-ui-formats/bin/python oracle/ui_parts_expected.py crates/formats/tests/data/ui_parts.json
"""

from __future__ import annotations

import sys
import warnings

import oracle_common  # noqa: F401 - pins the mime table before pydantic_ai is imported

from ag_ui.core import Message  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402
from pydantic_ai.ui.ag_ui import AGUIAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai import VercelAIAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai._adapter import _ui_messages_ta  # noqa: E402

AG_UI_MESSAGES = TypeAdapter(list[Message])


def part_kinds(history) -> list[str]:
    return [part.part_kind for message in history for part in message.parts]


def record(case: dict) -> None:
    history = oracle_common.ADAPTER.validate_python(case["history"])
    vercel = VercelAIAdapter.dump_messages(history, sdk_version=5)
    case["vercel"] = _ui_messages_ta.dump_python(vercel, mode="json", by_alias=True)
    case["vercel_parts"] = part_kinds(VercelAIAdapter.load_messages(vercel))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agui = AGUIAdapter.dump_messages(history)
    case["agui"] = AG_UI_MESSAGES.dump_python(agui, mode="json", by_alias=True)
    case["agui_parts"] = part_kinds(AGUIAdapter.load_messages(agui))


def main(path: str) -> int:
    return oracle_common.record_cases(path, record)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
