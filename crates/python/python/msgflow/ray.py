"""msgflow on Ray Data: callables for ``Dataset.map_batches(fn, batch_format="pyarrow")``.

Each function here returns a callable that takes a batch (a ``pyarrow.Table``), runs the matching
``msgflow.arrow`` function over its column of history JSON, and returns the batch with the result
fields appended as columns named ``prefix + field`` (``msgflow_loadable``, ``msgflow_problems``,
``msgflow_error``, ...), every other column and the row order kept::

    import ray
    import msgflow.ray

    ds = ray.data.read_parquet("histories/")
    ds = ds.map_batches(msgflow.ray.check("messages"), batch_format="pyarrow")
    ds = ds.map_batches(msgflow.ray.repair("messages", replace=True), batch_format="pyarrow")
    ds.write_parquet("repaired/")

A row that is not a history is not an exception: its result fields are null and ``msgflow_error``
says why (see ``msgflow.arrow``). ``fields`` picks the result fields to append (``error`` is always
appended). ``repair`` and ``trim`` with ``replace=True`` write the new history into the column itself
(in its type) and pass a row that failed through unchanged. Ray itself is not imported here: the
callables are plain picklable objects, usable with any engine that hands over Arrow tables.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import arrow

__all__ = ["BatchFunction", "check", "count_tokens", "export", "repair", "trim"]

DEFAULT_PREFIX = "msgflow_"


class BatchFunction:
    """A ``map_batches`` callable: one ``msgflow.arrow`` operation over one column of each batch."""

    def __init__(
        self,
        operation: Callable[..., Any],
        column: str,
        options: dict[str, Any],
        *,
        prefix: str = DEFAULT_PREFIX,
        fields: Sequence[str] | None = None,
        replace: bool = False,
    ) -> None:
        self.operation = operation
        self.column = column
        self.options = options
        self.prefix = prefix
        self.fields = None if fields is None else tuple(fields)
        self.replace = replace

    def __repr__(self) -> str:
        return f"msgflow.ray.{self.operation.__name__}({self.column!r}, prefix={self.prefix!r})"

    def __call__(self, batch: Any) -> Any:
        import pyarrow
        import pyarrow.compute

        table = batch if isinstance(batch, pyarrow.Table) else pyarrow.Table.from_batches([batch])
        if self.column not in table.column_names:
            raise KeyError(f"the batch has no column {self.column!r} (its columns: {', '.join(table.column_names)})")
        source = table.column(self.column)
        result = self.operation(source, **self.options)
        names = [field.name for field in result.type]
        if self.fields is not None:
            unknown = sorted(set(self.fields) - set(names))
            if unknown:
                raise ValueError(f"{self.operation.__name__} has no field {unknown[0]!r} (its fields: {', '.join(names)})")
            names = [name for name in names if name in self.fields or name == "error"]
        if self.replace:
            history = result.field("history").cast(source.type)
            # A null or failed row has a null history: it keeps its input.
            merged = pyarrow.compute.if_else(pyarrow.compute.is_valid(history), history, source)
            table = table.set_column(table.column_names.index(self.column), self.column, merged)
            names = [name for name in names if name != "history"]
        for name in names:
            column_name = self.prefix + name
            if column_name in table.column_names:
                raise ValueError(f"the batch already has a column {column_name!r}; choose another prefix")
            table = table.append_column(column_name, result.field(name))
        return table


def check(
    column: str, *, provider: str | None = None, prefix: str = DEFAULT_PREFIX, fields: Sequence[str] | None = None
) -> BatchFunction:
    """Appends ``loadable``, ``valid``, ``problems``, ``report`` and ``error`` (``msgflow.arrow.check``)."""
    return BatchFunction(arrow.check, column, {"provider": provider}, prefix=prefix, fields=fields)


def repair(
    column: str,
    *,
    provider: str | None = None,
    message: str | None = None,
    keep_last_response: bool = False,
    replace: bool = False,
    prefix: str = DEFAULT_PREFIX,
    fields: Sequence[str] | None = None,
) -> BatchFunction:
    """Appends ``history`` (unless ``replace``), ``changes``, ``report`` and ``error`` (``msgflow.arrow.repair``)."""
    options = {"provider": provider, "message": message, "keep_last_response": keep_last_response}
    return BatchFunction(arrow.repair, column, options, prefix=prefix, fields=fields, replace=replace)


def trim(
    column: str,
    *,
    max_tokens: int | None = None,
    keep_turns: int | None = None,
    max_bytes: int | None = None,
    tokenizer: str = "o200k_base",
    clear_tool_results_older_than: int | None = None,
    clamp_parts: int | None = None,
    replace: bool = False,
    prefix: str = DEFAULT_PREFIX,
    fields: Sequence[str] | None = None,
) -> BatchFunction:
    """Appends ``history`` (unless ``replace``), ``tokens_before``, ``tokens_after``, ``report``, ``error``."""
    options = {
        "max_tokens": max_tokens,
        "keep_turns": keep_turns,
        "max_bytes": max_bytes,
        "tokenizer": tokenizer,
        "clear_tool_results_older_than": clear_tool_results_older_than,
        "clamp_parts": clamp_parts,
    }
    return BatchFunction(arrow.trim, column, options, prefix=prefix, fields=fields, replace=replace)


def count_tokens(
    column: str, *, tokenizer: str = "o200k_base", prefix: str = DEFAULT_PREFIX, fields: Sequence[str] | None = None
) -> BatchFunction:
    """Appends ``tokens``, ``report`` and ``error`` (``msgflow.arrow.count_tokens``)."""
    return BatchFunction(arrow.count_tokens, column, {"tokenizer": tokenizer}, prefix=prefix, fields=fields)


def export(
    column: str, *, to: str, prefix: str = DEFAULT_PREFIX, fields: Sequence[str] | None = None
) -> BatchFunction:
    """Appends ``request``, ``invented_ids`` and ``error`` (``msgflow.arrow.export``)."""
    return BatchFunction(arrow.export, column, {"to": to}, prefix=prefix, fields=fields)
