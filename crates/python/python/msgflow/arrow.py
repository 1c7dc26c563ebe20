"""msgflow over Arrow columns: one history per row, worked on in Rust in parallel with the GIL released.

Each function takes a column of history JSON (``string``, ``large_string``, ``string_view``, ``binary``,
``large_binary`` or ``binary_view``) as a pyarrow ``Array`` or ``ChunkedArray``, a Polars ``Series``, or any
object with the Arrow PyCapsule interface (``__arrow_c_array__`` or ``__arrow_c_stream__``); a table or
query result of that one column (DuckDB, DataFusion) is read as the column. The strings are read where
they are, through the Arrow C Data Interface, never copied into Python objects.

Each returns a struct column with one row per input row: the operation's fields, then ``error``
(``large_string``). A null input row gives a null row. A row that is not a history (or that the
operation refuses: a provider that cannot take it, a budget its newest turn exceeds) gives a row whose
result fields are null and whose ``error`` says why, ``row N: ...`` being what ``errors="raise"``
raises instead (``InvalidHistory``, ``ExportRefused``, ``DoesNotFit`` or ``ValueError``, with a ``row``
attribute). A bad argument raises at once, before any row.

The result is a ``pyarrow.StructArray`` when pyarrow is installed (``result.field("loadable")``),
otherwise the native column, which any Arrow library imports (``polars.Series(result)``).
JSON fields are ``large_string`` (a batch of histories can pass ``string``'s 2 GiB); counts are ``int64``.
"""

from __future__ import annotations

from typing import Any, Literal

from . import _msgflow

__all__ = ["check", "count_tokens", "export", "repair", "trim"]

Errors = Literal["null", "raise"]


def _raise_errors(errors: str) -> bool:
    if errors not in ("null", "raise"):
        raise ValueError(f"errors must be 'null' or 'raise', not {errors!r}")
    return errors == "raise"


def _result(column: Any) -> Any:
    try:
        import pyarrow
    except ImportError:
        return column
    return pyarrow.array(column)


def check(column: Any, *, provider: str | None = None, errors: Errors = "null") -> Any:
    """``msgflow.check`` for each row.

    Fields: ``loadable`` (bool: pydantic-ai 2.68's ``ModelMessagesTypeAdapter.validate_json`` accepts the
    row), ``valid`` (bool: no problem), ``problems`` (``list<string>``: each problem's code once, in order
    of first occurrence; with ``provider``, the rule ids), ``report`` (``msgflow check --json``'s document
    for the row), ``error``.
    """
    return _result(_msgflow.arrow_check(column, provider, _raise_errors(errors)))


def repair(
    column: Any,
    *,
    provider: str | None = None,
    message: str | None = None,
    keep_last_response: bool = False,
    errors: Errors = "null",
) -> Any:
    """``msgflow.repair`` for each row.

    Fields: ``history`` (the repaired history's JSON), ``changes`` (int64: pydantic-ai's changes plus the
    provider's), ``report`` (``msgflow repair --report``'s document), ``error``.
    """
    return _result(
        _msgflow.arrow_repair(column, provider, message, keep_last_response, _raise_errors(errors))
    )


def trim(
    column: Any,
    *,
    max_tokens: int | None = None,
    keep_turns: int | None = None,
    max_bytes: int | None = None,
    tokenizer: str = "o200k_base",
    clear_tool_results_older_than: int | None = None,
    clamp_parts: int | None = None,
    errors: Errors = "null",
) -> Any:
    """``msgflow.trim`` for each row.

    Fields: ``history`` (the trimmed history's JSON), ``tokens_before``, ``tokens_after`` (int64),
    ``report`` (the token counts and ``msgflow trim --report``'s document under ``report``), ``error``
    (also for a row whose newest turn alone exceeds the budget).
    """
    return _result(
        _msgflow.arrow_trim(
            column,
            max_tokens,
            keep_turns,
            max_bytes,
            tokenizer,
            clear_tool_results_older_than,
            clamp_parts,
            _raise_errors(errors),
        )
    )


def count_tokens(column: Any, *, tokenizer: str = "o200k_base", errors: Errors = "null") -> Any:
    """``msgflow.count_tokens`` for each row.

    Fields: ``tokens`` (int64: the total), ``report`` (``msgflow stats --tokens --json``'s document:
    each message's tokens and tokens by part kind), ``error``.
    """
    return _result(_msgflow.arrow_count_tokens(column, tokenizer, _raise_errors(errors)))


def export(column: Any, *, to: str, errors: Errors = "null") -> Any:
    """``msgflow.export`` for each row.

    Fields: ``request`` (the request pydantic-ai would send, as JSON), ``invented_ids`` (null, or the
    note on tool parts the request names by ids msgflow made up: see ``msgflow.InventedIdsWarning``),
    ``error`` (also for a row the provider's request cannot be built for).
    """
    return _result(_msgflow.arrow_export(column, to, _raise_errors(errors)))
