"""Records what pydantic-ai 2.68.0's `AGUIAdapter.load_messages` makes of the AG-UI inputs of msgflow-formats'
`tests/ag_ui_inputs.rs`.

Each case of ``crates/formats/tests/data/ag_ui_inputs.json`` is a name and AG-UI messages a client sends (tool results
holding media, provider file references, messages enqueued during a run). This writes ``loaded``: for each message of
the history ``load_messages`` builds, its ``kind``, its parts' ``part_kind`` in order and the AG-UI message id it keeps
(``metadata.__pydantic_ai__.ui_message_id``), or ``refused``: the error when pydantic-ai refuses the messages. The
whole histories are compared with pydantic-ai's in ``cargo xtask conformance --only ag-ui`` (the ``foreign`` check).
Run it in the UI-formats venv after changing a case:

    target/venv-ui-formats/bin/python oracle/ag_ui_inputs_expected.py crates/formats/tests/data/ag_ui_inputs.json
"""

from __future__ import annotations

import sys
import warnings

import oracle_common  # noqa: F401 - pins the mime table before pydantic_ai is imported

from ag_ui.core import Message  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402
from pydantic_ai.ui.ag_ui import AGUIAdapter  # noqa: E402

AG_UI_MESSAGES = TypeAdapter(list[Message])


def summary(history) -> list[dict]:
    return [
        {
            "kind": message.kind,
            "parts": [part.part_kind for part in message.parts],
            "id": ((message.metadata or {}).get("__pydantic_ai__") or {}).get("ui_message_id"),
        }
        for message in history
    ]


def record(case: dict) -> None:
    case.pop("loaded", None)
    case.pop("refused", None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the warning for a dropped file reference
            case["loaded"] = summary(AGUIAdapter.load_messages(AG_UI_MESSAGES.validate_python(case["messages"])))
    except Exception as exc:  # noqa: BLE001 - a refusal is what the case records
        case["refused"] = f"{type(exc).__name__}: {exc}"


def main(path: str) -> int:
    return oracle_common.record_cases(path, record)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
