"""Records what pydantic-ai 2.68.0's UI adapters' `load_messages` make of the client inputs of msgflow-formats'
`tests/ui_inputs.rs`.

Each case of ``crates/formats/tests/data/ag_ui_inputs.json`` / ``vercel_ui_inputs.json`` is a name and the messages a
client sends beside what ``dump_messages`` writes (AG-UI tool results holding media, provider file references,
messages enqueued during a run and sent back in pydantic-ai's activity or data part). This writes ``loaded``: for each
message of the history ``load_messages`` builds, its ``kind``, its parts' ``part_kind`` in order and the UI message id
it keeps (``metadata.__pydantic_ai__.ui_message_id``), or ``refused``: the error when pydantic-ai refuses the
messages. The whole histories are compared with pydantic-ai's by ``cargo xtask conformance --only ag-ui`` and
``--only vercel-ui``. Run it in the UI-formats venv after changing a case:

    target/venv-ui-formats/bin/python oracle/ui_inputs_expected.py ag-ui crates/formats/tests/data/ag_ui_inputs.json
    target/venv-ui-formats/bin/python oracle/ui_inputs_expected.py vercel-ui crates/formats/tests/data/vercel_ui_inputs.json
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

LOADERS = {
    "ag-ui": lambda messages: AGUIAdapter.load_messages(TypeAdapter(list[Message]).validate_python(messages)),
    "vercel-ui": lambda messages: VercelAIAdapter.load_messages(_ui_messages_ta.validate_python(messages)),
}


def summary(history) -> list[dict]:
    return [
        {
            "kind": message.kind,
            "parts": [part.part_kind for part in message.parts],
            "id": ((message.metadata or {}).get("__pydantic_ai__") or {}).get("ui_message_id"),
        }
        for message in history
    ]


def main(format_name: str, path: str) -> int:
    load = LOADERS[format_name]

    def record(case: dict) -> None:
        case.pop("loaded", None)
        case.pop("refused", None)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the warning for a dropped file reference
                case["loaded"] = summary(load(case["messages"]))
        except Exception as exc:  # noqa: BLE001 - a refusal is what the case records
            case["refused"] = f"{type(exc).__name__}: {exc}"

    return oracle_common.record_cases(path, record)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
