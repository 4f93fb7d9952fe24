"""Filters on fields inside structs (``("s.a.b", ">", 250)``) and on object fields of Variant
columns (``("v.a", ">", 900)``) through ``parq.read_table(filters=...)``: DNF tuples and SQL
text reach parq's own filter (row groups pruned in Rust, ``crates/parq/tests``); the rows
kept are pyarrow's (``pc.field("s", "a", "b")``) for structs and DuckDB's for Variant
fields, on a shredded file DuckDB writes and on that table written shredded by parq."""

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import parq


@pytest.fixture(scope="module")
def nested(tmp_path_factory):
    path = tmp_path_factory.mktemp("paths") / "nested.parquet"
    n = 1000
    i = list(range(n))
    b = pa.array([None if k % 9 == 0 else k for k in i], pa.int64())
    a = pa.StructArray.from_arrays(
        [b, pa.array([f"c{k:04d}" for k in i])],
        names=["b", "c"],
        mask=pa.array([k % 13 == 0 for k in i]),
    )
    s = pa.StructArray.from_arrays([a], names=["a"], mask=pa.array([k % 17 == 0 for k in i]))
    table = pa.table({"i": pa.array(i, pa.int64()), "s": s})
    pq.write_table(table, path, row_group_size=100)
    return path


@pytest.mark.parametrize(
    "filters, expression",
    [
        ([("s.a.b", ">", 250)], pc.field("s", "a", "b") > 250),
        ([("s.a.c", "=", "c0123")], pc.field("s", "a", "c") == "c0123"),
        ([("s.a.b", "in", [5, 305])], pc.field("s", "a", "b").isin([5, 305])),
        (
            [[("s.a.b", "<", 10)], [("s.a.b", ">=", 990)]],
            (pc.field("s", "a", "b") < 10) | (pc.field("s", "a", "b") >= 990),
        ),
    ],
)
def test_struct_field_filters_match_pyarrow(nested, filters, expression):
    want = pq.read_table(nested, filters=expression).column("i").to_pylist()
    got = parq.read_table(nested, filters=filters).column("i").to_pylist()
    assert sorted(got) == sorted(want)
    got = parq.read_table(nested, columns=["i"], filters=filters).column("i").to_pylist()
    assert sorted(got) == sorted(want)
    # The Expression form, applied by pyarrow to the rows parq reads.
    got = parq.read_table(nested, filters=expression).column("i").to_pylist()
    assert sorted(got) == sorted(want)


def test_path_into_a_list_raises(tmp_path):
    path = tmp_path / "list.parquet"
    pq.write_table(pa.table({"l": pa.array([[{"x": 1}]])}), path)
    with pytest.raises(parq.ParquetError, match="list"):
        parq.read_table(path, filters=[("l.x", "=", 1)])


@pytest.fixture(scope="module")
def variant_files(tmp_path_factory):
    # Row i: {"a": i}, but row 150 holds a double and row 250 a string (outside the int64
    # typed_value DuckDB shreds `a` as), row 320 is no object.
    d = tmp_path_factory.mktemp("variant")
    duck = d / "duckdb.parquet"
    duckdb.sql(
        f"""copy (select i as id, (case when i = 150 then {{'a': 1000.5}}::VARIANT
              when i = 250 then {{'a': 'zzz'}}::VARIANT
              when i = 320 then 'bare'::VARIANT
              else {{'a': i}}::VARIANT end) as v
            from range(500) t(i) order by i) to '{duck}' (format parquet)"""
    )
    ours = d / "parq.parquet"
    table = parq.read_table(duck)
    parq.write_table(
        table, ours, variant_shredding={"v": pa.struct([("a", pa.int64())])}, row_group_size=100
    )
    return [duck, ours]


@pytest.mark.parametrize(
    "filters, sql",
    [
        ([("v.a", ">", 900)], "try_cast(v.a as DOUBLE) > 900"),
        ([("v.a", "<", 5.5)], "try_cast(v.a as DOUBLE) < 5.5"),
        ([("v.a", "in", [10, 480])], "try_cast(v.a as BIGINT) in (10, 480)"),
        ("\"v.a\" = 'zzz'", "variant_typeof(v.a) = 'VARCHAR' and v.a::VARCHAR = 'zzz'"),
    ],
)
def test_variant_field_filters_match_duckdb(variant_files, filters, sql):
    for path in variant_files:
        rows = duckdb.sql(f"select id from '{path}' where {sql} order by id").fetchall()
        want = [r[0] for r in rows]
        got = parq.read_table(path, columns=["id"], filters=filters).column("id").to_pylist()
        assert sorted(got) == want, (path.name, filters)


def test_struct_field_filter_on_a_dataset_matches_pyarrow(nested, tmp_path):
    for name in ("a.parquet", "b.parquet"):
        (tmp_path / name).write_bytes(nested.read_bytes())
    expression = pc.field("s", "a", "b") > 950
    want = pq.read_table(tmp_path, columns=["i"], filters=expression).column("i").to_pylist()
    got = parq.read_table(tmp_path, columns=["i"], filters=[("s.a.b", ">", 950)])
    assert sorted(got.column("i").to_pylist()) == sorted(want)
