"""Prints, as JSON, the Vercel AI UI part models of pydantic-ai 2.68.0 (`pydantic_ai.ui.vercel_ai.request_types`),
in the order of the `UIMessagePart` union: each model's `type` (a literal with its default, or the pattern a
tool or data part's type matches), its `state` default, and its keys (camelCase aliases), required or not.

The union is not discriminated and every model forbids unknown keys, so a part validates as the first model in
this order whose keys hold all of the part's and whose required keys it has (when its values validate): a part
without a `type` or a tool part without a `state` takes that model's. `msgflow-formats` reads parts that way
(`crates/formats/src/vercel_ui/parts.rs`, rendered from this JSON by xtask-codegen).
"""
import sys
import typing

import oracle_common
from pydantic_ai.ui.vercel_ai import request_types
from table_json import write_json


def literal_default(field):
    if typing.get_origin(field.annotation) is typing.Literal:
        return field.default
    return None


def main():
    assert sys.version_info[:2] == (3, 11), sys.version
    models = []
    for model in typing.get_args(request_types.UIMessagePart):
        fields = model.model_fields
        type_field = fields['type']
        pattern = next((m.pattern for m in type_field.metadata if getattr(m, 'pattern', None)), None)
        state = fields.get('state')
        models.append({
            'name': model.__name__,
            'type': literal_default(type_field),
            'type_pattern': pattern,
            'state': literal_default(state) if state is not None else None,
            'keys': [field.alias or name for name, field in fields.items()],
            'required': [field.alias or name for name, field in fields.items() if field.is_required()],
        })
    write_json({'python': '3.11', 'pydantic_ai': oracle_common.EXPECTED_PYDANTIC_AI_VERSION, 'models': models})


if __name__ == '__main__':
    main()
