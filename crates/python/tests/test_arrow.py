"""`msgflow.arrow` and `msgflow.ray`'s batch callables: per row, the answers of the one-history functions.

Every fixture and real-world history goes through the scalar functions (which `test_cli_parity` holds
equal to the CLI) and, as one Arrow column, through `msgflow.arrow`: the same verdict, codes, report and
bytes row by row, whatever the column's type or chunking, with null rows null and bad rows an `error`.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from conftest import EXAMPLES, FIXTURES, REALWORLD

import msgflow
import msgflow.arrow
import msgflow.ray
from msgflow import _msgflow

SESSION = (EXAMPLES / "interrupted-session.json").read_bytes()
NOT_A_HISTORY = [b"not json", b'{"a": 1}', b"[1, 2]", b"", b'[{"kind": "request"}]']


def _histories() -> list[bytes]:
    files = sorted(path for path in FIXTURES.rglob("*.json") if not path.name.endswith(".expected.json"))
    files += sorted(REALWORLD.glob("*.json")) if REALWORLD.is_dir() else []
    return [path.read_bytes() for path in files]


HISTORIES = _histories()
# Not-histories and nulls among the histories, so that row order and alignment are checked too.
ROWS: list[bytes | None] = []
for index, data in enumerate(HISTORIES):
    ROWS.append(data)
    if index % 97 == 0:
        ROWS.append(None)
    if index % 89 == 0:
        ROWS.append(NOT_A_HISTORY[index % len(NOT_A_HISTORY)])


def _scalar(call, data: bytes):
    """`call(data)`, or the exception's message for what is not a history (or is refused)."""
    try:
        return call(data), None
    except ValueError as err:
        return None, str(err)


def _assert_same_report(row, checked) -> None:
    """The Arrow row holds the whole `check --json` document; the native scalar check hands it back
    only when it holds a problem (`(loadable, document or None)`)."""
    loadable, document = checked
    assert row["loadable"] == loadable
    if document is not None:
        assert row["report"] == document
    else:
        assert json.loads(row["report"])["violations"] == []


def _column(rows, kind=pa.large_binary()):
    return pa.array(rows, type=kind)


def test_the_rows_hold_histories_nulls_and_not_histories() -> None:
    assert len(HISTORIES) > 900
    assert ROWS.count(None) >= 10


def test_check_equals_the_scalar_check_row_by_row() -> None:
    result = msgflow.arrow.check(_column(ROWS)).to_pylist()
    assert len(result) == len(ROWS)
    for data, row in zip(ROWS, result):
        if data is None:
            assert row is None
            continue
        checked, error = _scalar(lambda data: _msgflow.check(data), data)
        assert row["error"] == error
        if error is not None:
            assert row["loadable"] is None and row["problems"] is None and row["report"] is None
            continue
        _assert_same_report(row, checked)
        report = msgflow.check(data)
        assert row["loadable"] == report.loadable
        assert row["valid"] == report.ok
        assert row["problems"] == list(dict.fromkeys(problem.code for problem in report.problems))


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat"])
def test_check_with_a_provider_names_its_rules(provider: str) -> None:
    rows = ROWS[:300]
    result = msgflow.arrow.check(_column(rows), provider=provider).to_pylist()
    for data, row in zip(rows, result):
        if data is None:
            continue
        checked, error = _scalar(lambda data: _msgflow.check(data, provider), data)
        assert row["error"] == error
        if checked is not None:
            _assert_same_report(row, checked)
            codes = [violation["rule"]["id"] for violation in json.loads(row["report"])["violations"]]
            assert row["problems"] == list(dict.fromkeys(codes))


def test_repair_trim_count_and_export_equal_the_scalar_functions() -> None:
    rows = ROWS[:400]
    column = _column(rows)
    repaired = msgflow.arrow.repair(column).to_pylist()
    trimmed = msgflow.arrow.trim(column, max_tokens=2000, clamp_parts=4000).to_pylist()
    counted = msgflow.arrow.count_tokens(column, tokenizer="chars4").to_pylist()
    exported = msgflow.arrow.export(column, to="openai-chat").to_pylist()
    for index, data in enumerate(rows):
        if data is None:
            assert repaired[index] is trimmed[index] is counted[index] is exported[index] is None
            continue
        expected, error = _scalar(lambda data: _msgflow.repair(data), data)
        assert repaired[index]["error"] == error
        if expected is not None:
            assert repaired[index]["history"].encode() == expected[0]
            assert repaired[index]["report"] == expected[1]
            report = json.loads(expected[1])
            assert repaired[index]["changes"] == len(report["changes"])
        expected, error = _scalar(lambda data: _msgflow.trim(data, 2000, None, None, "o200k_base", None, 4000), data)
        assert trimmed[index]["error"] == error
        if expected is not None:
            assert trimmed[index]["history"].encode() == expected[0]
            assert trimmed[index]["report"] == expected[1]
            assert trimmed[index]["tokens_after"] == json.loads(expected[1])["tokens_after"]
        expected, error = _scalar(lambda data: _msgflow.count_tokens(data, "chars4"), data)
        assert (counted[index]["report"], counted[index]["error"]) == (expected, error)
        if expected is not None:
            assert counted[index]["tokens"] == json.loads(expected)["total"]
        expected, error = _scalar(lambda data: _msgflow.export(data, "openai-chat"), data)
        request, invented_ids = expected if expected is not None else (None, None)
        assert (exported[index]["request"], exported[index]["invented_ids"], exported[index]["error"]) == (
            request,
            invented_ids,
            error,
        )


def test_a_budget_the_newest_turn_exceeds_is_a_row_error() -> None:
    (row,) = msgflow.arrow.trim(_column([SESSION]), max_tokens=1).to_pylist()
    assert row["history"] is None and "newest turn" in row["error"]
    with pytest.raises(msgflow.DoesNotFit) as raised:
        msgflow.arrow.trim(_column([SESSION]), max_tokens=1, errors="raise")
    assert raised.value.row == 0 and raised.value.limit == 1


@pytest.mark.parametrize(
    "kind", [pa.string(), pa.large_string(), pa.string_view(), pa.binary(), pa.large_binary(), pa.binary_view()]
)
def test_every_string_and_binary_type_gives_the_same_answers(kind: pa.DataType) -> None:
    rows = [SESSION, None, b"not json", SESSION]
    column = pa.array([None if row is None else row.decode() if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind) else row for row in rows], type=kind)
    assert msgflow.arrow.check(column).to_pylist() == msgflow.arrow.check(_column(rows)).to_pylist()


def test_chunked_arrays_and_slices_keep_row_order() -> None:
    rows = ROWS[:120]
    whole = msgflow.arrow.check(_column(rows)).to_pylist()
    chunked = pa.chunked_array([_column(rows[:7]), _column(rows[7:7]), _column(rows[7:])])
    assert msgflow.arrow.check(chunked).to_pylist() == whole
    # A slice exports its offset through the C Data Interface.
    assert msgflow.arrow.check(_column(rows).slice(5, 50)).to_pylist() == whole[5:55]
    assert msgflow.arrow.check(pa.chunked_array([], type=pa.string())).to_pylist() == []


def test_a_table_of_one_column_is_that_column() -> None:
    table = pa.table({"history": _column([SESSION, None, b"nope"])})
    assert msgflow.arrow.check(table).to_pylist() == msgflow.arrow.check(table.column(0)).to_pylist()


def test_an_all_null_column_gives_null_rows() -> None:
    assert msgflow.arrow.check(pa.nulls(3)).to_pylist() == [None, None, None]


def test_polars_series_come_in_through_the_stream_interface() -> None:
    polars = pytest.importorskip("polars")
    rows = [SESSION.decode(), None, "[]", "nope"]
    series = polars.Series("history", rows)
    assert msgflow.arrow.check(series).to_pylist() == msgflow.arrow.check(pa.array(rows)).to_pylist()
    # The native result goes back to Polars through the same interface.
    back = polars.Series(_msgflow.arrow_count_tokens(series, "chars4", False))
    assert back.struct.field("tokens").to_list()[1] is None


def _texts() -> list[str | None]:
    """ROWS as text (DuckDB and DataFusion take the column from a pyarrow table of strings)."""
    return [None if row is None else row.decode("utf-8", "replace") for row in ROWS]


def test_duckdb_results_come_in_through_the_stream_interface() -> None:
    duckdb = pytest.importorskip("duckdb")
    texts = _texts()
    source = pa.table({"n": pa.array(range(len(texts)), pa.int64()), "history": pa.array(texts, pa.string())})
    connection = duckdb.connect()
    connection.register("source", source)
    # A query DuckDB answers itself (a filter and an order), not the table handed back.
    relation = connection.sql("SELECT history FROM source WHERE n % 3 <> 1 ORDER BY n DESC")
    expected = [text for n, text in enumerate(texts) if n % 3 != 1][::-1]
    assert msgflow.arrow.check(relation).to_pylist() == msgflow.arrow.check(pa.array(expected)).to_pylist()
    # The result goes back to DuckDB as an Arrow table.
    checked = pa.table({"result": msgflow.arrow.check(connection.sql("SELECT history FROM source ORDER BY n"))})
    connection.register("checked", checked)
    loadable = connection.sql("SELECT count(*) FROM checked WHERE result.loadable").fetchall()[0][0]
    assert loadable == sum(1 for row in msgflow.arrow.check(pa.array(texts)).to_pylist() if row and row["loadable"])
    assert loadable > 0


def test_datafusion_results_come_in_through_the_stream_interface() -> None:
    datafusion = pytest.importorskip("datafusion")
    texts = _texts()
    # Small batches: the result is a stream of many record batches.
    context = datafusion.SessionContext(datafusion.SessionConfig().with_batch_size(64))
    context.register_record_batches(
        "source",
        [pa.table({"n": pa.array(range(len(texts)), pa.int64()), "history": pa.array(texts, pa.string())}).to_batches()],
    )
    frame = context.sql("SELECT history FROM source WHERE n % 2 = 0 ORDER BY n")
    expected = texts[::2]
    assert msgflow.arrow.check(frame).to_pylist() == msgflow.arrow.check(pa.array(expected)).to_pylist()
    tokens = msgflow.arrow.count_tokens(context.sql("SELECT history FROM source ORDER BY n"))
    assert tokens.to_pylist() == msgflow.arrow.count_tokens(pa.array(texts)).to_pylist()
    # The result goes back to DataFusion through the same interface.
    back = context.from_arrow(pa.table({"result": msgflow.arrow.check(frame)}))
    assert back.count() == len(expected)


def test_the_native_result_is_an_arrow_capsule_object() -> None:
    native = _msgflow.arrow_check(_column([SESSION, None]), None, False)
    assert len(native) == 2 and "2 rows" in repr(native)
    schema, array = native.__arrow_c_array__()
    assert pa.Array._import_from_c_capsule(schema, array).to_pylist()[1] is None
    # A second export is independent of the first.
    assert pa.array(native).field("loadable").to_pylist() == [True, None]


def test_errors_raise_names_the_first_bad_row() -> None:
    column = _column([SESSION, None, b"[1, 2]", b"nope"])
    with pytest.raises(msgflow.InvalidHistory) as raised:
        msgflow.arrow.check(column, errors="raise")
    assert raised.value.row == 2
    assert str(raised.value).startswith("row 2: not a pydantic-ai message history")
    assert raised.value.path.startswith("$[0]")


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda column: msgflow.arrow.check(column, provider="nope"), ValueError, "nope"),
        (lambda column: msgflow.arrow.check(column, errors="ignore"), ValueError, "errors must be"),
        (lambda column: msgflow.arrow.trim(column), ValueError, "trim needs a budget"),
        (lambda column: msgflow.arrow.trim(column, max_tokens=5, keep_turns=1), ValueError, "one budget"),
        (lambda column: msgflow.arrow.count_tokens(column, tokenizer="bpe"), ValueError, "bpe"),
        (lambda column: msgflow.arrow.export(column, to="gemini-ish"), ValueError, "gemini-ish"),
    ],
)
def test_bad_arguments_raise_before_any_row(call, error, text) -> None:
    with pytest.raises(error, match=text):
        call(_column([b"not a history either"]))


def test_what_is_not_a_column_of_json_is_refused() -> None:
    with pytest.raises(ValueError, match="not Int64"):
        msgflow.arrow.check(pa.array([1, 2]))
    with pytest.raises(ValueError, match="not Struct"):
        msgflow.arrow.check(pa.table({"id": [1], "history": [SESSION]}).to_struct_array())
    with pytest.raises(TypeError, match="not list"):
        msgflow.arrow.check([SESSION])


def _batch() -> pa.Table:
    rows = [SESSION, None, b"nope", SESSION]
    return pa.table({"id": [10, 11, 12, 13], "messages": pa.array(rows, type=pa.binary()), "note": list("abcd")})


def test_ray_check_appends_its_fields_and_keeps_the_other_columns() -> None:
    batch = _batch()
    out = msgflow.ray.check("messages", fields=["loadable", "problems"])(batch)
    assert out.column_names == ["id", "messages", "note", "msgflow_loadable", "msgflow_problems", "msgflow_error"]
    assert out.select(["id", "messages", "note"]) == batch
    assert out.column("msgflow_loadable").to_pylist() == [True, None, None, True]
    assert out.column("msgflow_problems").to_pylist()[0] == ["dangling-call"]
    assert out.column("msgflow_error").to_pylist()[2].startswith("not a pydantic-ai message history")


def test_ray_repair_in_place_passes_failed_rows_through() -> None:
    batch = _batch()
    out = msgflow.ray.repair("messages", replace=True, prefix="r_")(batch)
    assert out.schema.field("messages").type == pa.binary()
    assert out.column_names == ["id", "messages", "note", "r_changes", "r_report", "r_error"]
    messages = out.column("messages").to_pylist()
    assert messages[0] == _msgflow.repair(SESSION)[0]
    assert messages[1:3] == [None, b"nope"]
    assert out.column("r_changes").to_pylist() == [2, None, None, 2]


def test_ray_callables_cover_trim_count_tokens_and_export() -> None:
    batch = _batch()
    trimmed = msgflow.ray.trim("messages", keep_turns=1)(batch)
    assert trimmed.column("msgflow_tokens_after").to_pylist()[0] <= trimmed.column("msgflow_tokens_before").to_pylist()[0]
    counted = msgflow.ray.count_tokens("messages", fields=["tokens"])(batch.to_batches()[0])
    assert counted.column_names[-2:] == ["msgflow_tokens", "msgflow_error"]
    exported = msgflow.ray.export("messages", to="anthropic", fields=["request"])(batch)
    assert json.loads(exported.column("msgflow_request").to_pylist()[0])["messages"]


def test_ray_callables_name_a_missing_column_a_clash_and_an_unknown_field() -> None:
    batch = _batch()
    with pytest.raises(KeyError, match="no column 'history'"):
        msgflow.ray.check("history")(batch)
    with pytest.raises(ValueError, match="already has a column 'loadable'"):
        msgflow.ray.check("messages", prefix="", fields=["loadable"])(batch.rename_columns(["id", "messages", "loadable"]))
    with pytest.raises(ValueError, match="no field 'tokens'"):
        msgflow.ray.check("messages", fields=["tokens"])(batch)
