"""The parq Python package (python/, built into the venv by scripts/venv.sh) against
pyarrow, polars and DuckDB: what parq writes they read equal, what they write parq reads
equal to pyarrow, the pyarrow.parquet-like API (ParquetFile, metadata, filters, sources,
writers), errors as parq.ParquetError, the GIL released while decoding, and no crash on
any file of the test corpus."""

from __future__ import annotations

import datetime
import decimal
import io
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parq

from conftest import corpus_root


def sample_table(n: int = 3000) -> pa.Table:
    def maybe(i, v):
        return None if i % 7 == 3 else v

    return pa.table(
        {
            "i64": pa.array([maybe(i, i * 3 - 100) for i in range(n)], pa.int64()),
            "i32": pa.array([maybe(i, i % 1000) for i in range(n)], pa.int32()),
            "u8": pa.array([i % 256 for i in range(n)], pa.uint8()),
            "f64": pa.array([maybe(i, i / 3) for i in range(n)], pa.float64()),
            "f32": pa.array([float(i % 50) for i in range(n)], pa.float32()),
            "b": pa.array([maybe(i, i % 3 == 0) for i in range(n)], pa.bool_()),
            "s": pa.array([maybe(i, f"s{i % 97}") for i in range(n)], pa.string()),
            "bin": pa.array([bytes([i % 256]) * (i % 5) for i in range(n)], pa.binary()),
            "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 400) for i in range(n)], pa.date32()),
            "ts": pa.array(
                [datetime.datetime(2021, 5, 1) + datetime.timedelta(seconds=i) for i in range(n)],
                pa.timestamp("us", tz="UTC"),
            ),
            "dec": pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(12, 2)),
            "list": pa.array([maybe(i, list(range(i % 4))) for i in range(n)], pa.list_(pa.int64())),
            "struct": pa.array(
                [maybe(i, {"x": i, "y": f"y{i % 3}"}) for i in range(n)],
                pa.struct([("x", pa.int32()), ("y", pa.string())]),
            ),
            "map": pa.array(
                [maybe(i, [(f"k{j}", j) for j in range(i % 3)]) for i in range(n)],
                pa.map_(pa.string(), pa.int64()),
            ),
        }
    )


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return sample_table()


OPTIONS = [
    {},
    {"compression": "zstd", "compression_level": 7},
    {"compression": "gzip", "use_dictionary": False},
    {"compression": "none", "data_page_version": "2.0", "row_group_size": 700},
    {"compression": "lz4_raw", "write_statistics": False, "data_page_size": 1024},
    {"compression": "brotli", "write_page_index": False},
    {"write_footer_index": False},
]


def has_footer_index(path) -> bool:
    """Whether parq's footer index magic sits right before the footer."""
    data = Path(path).read_bytes()
    footer_len = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - footer_len
    return data[start - 4 : start] == b"PQX1"


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: json.dumps(o))
def test_parq_writes_what_pyarrow_polars_and_duckdb_read_equal(tmp_path, table, options):
    path = tmp_path / "t.parquet"
    parq.write_table(table, str(path), **options)
    # The footer index (on by default) is where no other reader looks.
    assert has_footer_index(path) == options.get("write_footer_index", True)
    assert pq.read_table(path).equals(table)
    assert parq.read_table(path).equals(table)
    flat = table.drop_columns(["map", "u8"])
    assert pl.read_parquet(path).drop(["map", "u8"]).equals(pl.from_arrow(flat))
    con = duckdb.connect()
    got = con.execute(f"SELECT count(*), sum(i64), sum(i32), count(s), sum(f64) FROM '{path}'").fetchone()
    want = con.execute("SELECT count(*), sum(i64), sum(i32), count(s), sum(f64) FROM flat").fetchone()
    assert got == want
    meta = pq.ParquetFile(path).metadata
    if "row_group_size" in options:
        assert meta.num_row_groups == -(-table.num_rows // options["row_group_size"])
    if options.get("compression") not in (None, "none"):
        # pyarrow names LZ4_RAW "LZ4".
        want = {"lz4_raw": "lz4"}.get(options["compression"], options["compression"])
        assert meta.row_group(0).column(0).compression.lower() == want


PER_COLUMN = [
    {"use_dictionary": ["s", "f32"], "compression": {"s": "zstd"}, "write_statistics": ["i32"]},
    # A top-level name of a nested column and names of no column are ignored, as pyarrow does;
    # a leaf's dotted path is taken.
    {"use_dictionary": ["nope", "struct", "struct.y"], "compression": {"zz": "zstd", "f64": "gzip"}},
    # (Dictionaries off: parq's dictionary trial gives up on columns of unique values.)
    {"compression": "zstd", "compression_level": {"s": 9, "i64": 3}, "use_dictionary": False},
    {"compression": {"s": "zstd", "i64": "gzip"}, "compression_level": {"i64": 9, "s": 3}, "use_dictionary": False},
    {"use_dictionary": (c for c in ["u8"]), "write_statistics": []},
    # None: no codec (pandas and pyarrow users pass it so); statistics on.
    {"compression": None, "write_statistics": None, "compression_level": None, "use_dictionary": False},
]


@pytest.mark.parametrize("options", PER_COLUMN, ids=lambda o: repr(o))
def test_per_column_options_choose_as_pyarrow_does(tmp_path, table, options):
    """Per-column codecs, dictionaries and statistics: each column chunk as pyarrow writes it
    with the same arguments (codec, whether dictionary-encoded, whether with statistics)."""

    def chunks(path):
        meta = pq.ParquetFile(path).metadata
        return [
            (c.path_in_schema, c.compression, "RLE_DICTIONARY" in c.encodings, c.is_stats_set)
            for c in (meta.row_group(0).column(i) for i in range(meta.num_columns))
        ]

    got, want = tmp_path / "parq.parquet", tmp_path / "pyarrow.parquet"
    parq.write_table(table, str(got), **options)
    if "use_dictionary" in options and not isinstance(options["use_dictionary"], (bool, list)):
        options = dict(options, use_dictionary=["u8"])
    pq.write_table(table, want, **options)
    assert chunks(got) == chunks(want)
    assert pq.read_table(got).equals(table)


@pytest.mark.parametrize(
    "bad",
    [{"use_dictionary": "s"}, {"compression": 3}, {"compression_level": "x"}, {"write_statistics": [1]}],
    ids=lambda o: repr(o),
)
def test_per_column_options_of_another_type_are_type_errors(tmp_path, table, bad):
    with pytest.raises(TypeError, match=next(iter(bad))):
        parq.write_table(table, str(tmp_path / "t.parquet"), **bad)


def test_per_column_options_of_a_dataset_write_leave_the_partition_columns_out(tmp_path, table):
    def chunks(root):
        path = next(p for p in sorted(Path(root).rglob("*.parquet")))
        meta = pq.ParquetFile(path).metadata.row_group(0)
        return [
            (c.path_in_schema, c.compression, "RLE_DICTIONARY" in c.encodings)
            for c in (meta.column(i) for i in range(meta.num_columns))
        ]

    small = table.select(["s", "f32", "i64", "u8"])
    options = {"use_dictionary": ["s", "u8"], "compression": {"s": "zstd", "u8": "gzip", "f32": "gzip"}}
    parq.write_to_dataset(small, str(tmp_path / "parq"), partition_cols=["u8"], **options)
    pq.write_to_dataset(small, tmp_path / "pyarrow", partition_cols=["u8"], **options)
    assert chunks(tmp_path / "parq") == chunks(tmp_path / "pyarrow")


ENCODINGS = [
    {"use_byte_stream_split": ["f32", "u8"], "use_dictionary": ["f32", "s"]},
    {"use_dictionary": False, "use_byte_stream_split": ["f64"], "column_encoding": {"i32": "DELTA_BINARY_PACKED"}},
    {"use_dictionary": False, "column_encoding": {"i64": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY", "b": "RLE"}},
    {"use_dictionary": False, "column_encoding": "PLAIN"},
    {"use_dictionary": ["s"], "column_encoding": {"bin": "DELTA_LENGTH_BYTE_ARRAY", "zz": "PLAIN"}},
    # Refused by both: (pyarrow's error, parq's)
    {"column_encoding": {"i64": "DELTA_BINARY_PACKED"}},
    {"use_dictionary": ["i64"], "column_encoding": {"i64": "DELTA_BINARY_PACKED"}},
    {"use_dictionary": False, "column_encoding": {"i64": "RLE_DICTIONARY"}},
    {"use_dictionary": False, "column_encoding": {"i64": "nope"}},
    {"use_dictionary": False, "use_byte_stream_split": ["f64"], "column_encoding": {"f64": "PLAIN"}},
    {"use_dictionary": False, "use_byte_stream_split": True, "column_encoding": {"i64": "PLAIN"}},
    {"use_dictionary": False, "column_encoding": {"s": "BYTE_STREAM_SPLIT"}},
]


@pytest.mark.parametrize("options", ENCODINGS, ids=lambda o: repr(o))
def test_value_encodings_by_column_as_pyarrow_takes_them(tmp_path, table, options):
    """`column_encoding` and `use_byte_stream_split`: the same encodings in every column chunk
    as pyarrow's file, or refused by both (a `ValueError` for the arguments, a
    `ParquetError` where pyarrow's C++ writer raises `OSError`)."""
    small = table.drop_columns(["map", "list", "struct"])

    def outcome(write, path):
        try:
            write(small, path, **{k: dict(v) if isinstance(v, dict) else v for k, v in options.items()})
        except ValueError:
            return "ValueError"
        except (OSError, parq.ParquetError):
            return "refused by the writer"
        meta = pq.ParquetFile(path).metadata.row_group(0)
        got = [(c.path_in_schema, sorted(c.encodings)) for c in (meta.column(i) for i in range(meta.num_columns))]
        assert pq.read_table(path).equals(small)
        return got

    assert outcome(parq.write_table, str(tmp_path / "parq.parquet")) == outcome(pq.write_table, tmp_path / "pyarrow.parquet")


def test_file_wide_writer_options_as_pyarrow_takes_them(tmp_path, table):
    """`sorting_columns`, `use_compliant_nested_type`, `write_page_checksum`,
    `max_rows_per_page` and `dictionary_pagesize_limit`: the same row groups, leaves,
    encodings and page counts as pyarrow's file; the checksums verified by pyarrow."""
    small = table.select(["i32", "s", "list", "f32"])
    options = {
        "sorting_columns": [pq.SortingColumn(0), pq.SortingColumn(1, descending=True, nulls_first=True)],
        "use_compliant_nested_type": False,
        "use_dictionary": ["list.list.item", "s"],
        "write_page_checksum": True,
        "max_rows_per_page": 500,
        "dictionary_pagesize_limit": 100,
    }

    def layout(path):
        meta = pq.ParquetFile(path).metadata
        rg = meta.row_group(0)
        pages = duckdb.sql(f"SELECT path_in_schema, count(*) FROM parquet_metadata('{path}') GROUP BY ALL ORDER BY 1").fetchall()
        chunks = [(c.path_in_schema, sorted(c.encodings)) for c in (rg.column(i) for i in range(meta.num_columns))]
        return rg.sorting_columns, chunks, pages

    got, want = tmp_path / "parq.parquet", tmp_path / "pyarrow.parquet"
    parq.write_table(small, str(got), **options)
    pq.write_table(small, want, **options)
    assert layout(got) == layout(want)
    assert pq.read_table(got, page_checksum_verification=True).equals(pq.read_table(want))


def test_bloom_filter_options_as_pyarrow_takes_them(tmp_path, table):
    path = tmp_path / "t.parquet"
    options = {"i32": True, "s": {"ndv": 1000, "fpp": 0.01}, "f64": False, "nope": True}
    parq.write_table(table, str(path), bloom_filter_options=options)
    blooms = dict(
        duckdb.sql(
            f"SELECT path_in_schema, bloom_filter_length FROM parquet_metadata('{path}') WHERE row_group_id = 0"
        ).fetchall()
    )
    assert blooms["i32"] > 0 and blooms["s"] > 0
    assert blooms["f64"] is None and blooms["i64"] is None
    # Each value written is found by DuckDB's reads through them.
    assert duckdb.sql(f"SELECT count(*) FROM '{path}' WHERE s = 's5'").fetchall() == [
        (sum(1 for v in table.column("s").to_pylist() if v == "s5"),)
    ]
    # Dictionary-encoded chunks: the filters pyarrow writes, byte for byte (sized for the
    # distinct values, the dictionary's entries).
    pq.write_table(table, tmp_path / "pyarrow.parquet", bloom_filter_options=options)

    def filters(path):
        data = Path(path).read_bytes()
        rows = duckdb.sql(
            f"SELECT path_in_schema, bloom_filter_offset, bloom_filter_length FROM parquet_metadata('{path}') "
            "WHERE bloom_filter_offset IS NOT NULL ORDER BY row_group_id, column_id"
        ).fetchall()
        return [(name, data[offset : offset + length]) for name, offset, length in rows]

    ours, theirs = filters(path), filters(tmp_path / "pyarrow.parquet")
    assert [n for n, _ in ours] == [n for n, _ in theirs] == ["i32", "s"]
    assert ours == theirs
    for bad, error in [
        ({"s": {"ndv": 0}}, ValueError),
        ({"s": {"fpp": 1.5}}, ValueError),
        ({"s": {"ndv": "x"}}, TypeError),
        ({"s": 3}, TypeError),
        (["s"], TypeError),
    ]:
        with pytest.raises(error, match="bloom_filter_options"):
            parq.write_table(table, str(path), bloom_filter_options=bad)
        with pytest.raises(error, match="bloom_filter_options"):
            pq.write_table(table, path, bloom_filter_options=bad)


def test_use_dictionary_none_is_the_default(tmp_path, table):
    path = tmp_path / "t.parquet"
    parq.write_table(table, str(path), use_dictionary=None)
    meta = pq.ParquetFile(path).metadata.row_group(0)
    s = next(meta.column(i) for i in range(meta.num_columns) if meta.column(i).path_in_schema == "s")
    assert "RLE_DICTIONARY" in s.encodings


def test_a_level_for_a_column_whose_codec_has_none_is_an_error_as_in_pyarrow(tmp_path, table):
    # Under a dict of codecs the columns left out are uncompressed, which takes no level.
    options = {"compression": {"s": "zstd"}, "compression_level": {"f64": 3}}
    with pytest.raises(pa.ArrowInvalid, match="uncompressed"):
        pq.write_table(table, tmp_path / "pyarrow.parquet", **options)
    with pytest.raises(parq.ParquetError, match="UNCOMPRESSED has no compression levels"):
        parq.write_table(table, str(tmp_path / "parq.parquet"), **options)


@pytest.mark.parametrize("options", [{}, {"compression": "zstd", "use_dictionary": False, "data_page_version": "2.0"}])
def test_parq_reads_what_pyarrow_writes(tmp_path, table, options):
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=1000, **options)
    expected = pq.read_table(path)
    assert parq.read_table(path).equals(expected)
    assert parq.read_table(path, use_threads=False).equals(expected)
    assert parq.read_table(path, columns=["s", "i64"]).equals(expected.select(["s", "i64"]))
    assert parq.read_table(path, row_groups=[2, 0]).equals(
        pa.concat_tables([pq.ParquetFile(path).read_row_group(2), pq.ParquetFile(path).read_row_group(0)])
    )


def test_string_view_reads_pyarrows_strings(tmp_path):
    # Dictionary pages that fall back to PLAIN, several row groups, nulls, short and long values.
    values = [
        None if i % 13 == 5 else f"v{i % 400}" + "-long tail past twelve bytes" * (i % 3 == 0)
        for i in range(20_000)
    ]
    table = pa.table({"s": values, "b": pa.array([v and v.encode() for v in values], pa.binary())})
    path = tmp_path / "s.parquet"
    pq.write_table(table, path, row_group_size=7_000, dictionary_pagesize_limit=2_000, data_page_size=4_000)
    expected = pq.read_table(path)
    for got in [
        parq.read_table(path, string_view=True),
        parq.read_table(path, string_view=True, filters=[("s", ">=", "v2")]),
        parq.ParquetFile(str(path), string_view=True).read(),
        pa.Table.from_batches(list(parq.ParquetFile(str(path), string_view=True).iter_batches(batch_size=999))),
    ]:
        assert got.schema.field("s").type == pa.string_view()
        assert got.schema.field("b").type == pa.binary()
        filtered = got.num_rows != expected.num_rows
        want = pq.read_table(path, filters=[("s", ">=", "v2")]) if filtered else expected
        assert got.cast(want.schema).equals(want)
    assert pl.from_arrow(parq.read_table(path, string_view=True)).equals(pl.from_arrow(expected))


def test_memory_map_reads_equal_to_pyarrow_and_its_views_outlive_the_file_object(tmp_path):
    # Uncompressed pages (decoded where the mapping holds them), PLAIN long strings (views
    # into the mapped pages), a dictionary column, nulls, several row groups.
    n = 30_000
    table = pa.table(
        {
            "i": pa.array([None if i % 11 == 4 else i * 7 for i in range(n)], pa.int64()),
            "f": pa.array([i / 4 for i in range(n)], pa.float64()),
            "s": [f"value {i} with a tail longer than twelve bytes" for i in range(n)],
            "d": [f"tag{i % 50}" for i in range(n)],
        }
    )
    path = tmp_path / "m.parquet"
    pq.write_table(table, path, compression="none", row_group_size=7_000, use_dictionary=["d"])
    expected = pq.read_table(path, memory_map=True)
    assert parq.read_table(path, memory_map=True).equals(expected)
    assert parq.read_table(str(path), memory_map=True, use_threads=False, columns=["s", "i"]).equals(
        expected.select(["s", "i"])
    )
    filtered = parq.read_table(path, memory_map=True, filters=[("i", ">=", 100_000)])
    assert filtered.equals(pq.read_table(path, filters=[("i", ">=", 100_000)]))
    views = parq.ParquetFile(path, string_view=True, memory_map=True).read()
    assert views.schema.field("s").type == pa.string_view()
    # The views point into the mapping, which the table keeps alive after the reader is gone.
    import gc

    gc.collect()
    assert views.cast(expected.schema).equals(expected)
    with pytest.raises(FileNotFoundError):
        parq.read_table(tmp_path / "missing.parquet", memory_map=True)
    empty = tmp_path / "empty.parquet"
    empty.write_bytes(b"")
    with pytest.raises(parq.ParquetError):
        parq.read_table(empty, memory_map=True)


def test_writes_what_polars_and_duckdb_export(tmp_path):
    df = pl.DataFrame({"a": [1, 2, None], "b": ["x", None, "z"]})
    parq.write_table(df, str(tmp_path / "pl.parquet"))
    expected = df.to_arrow()
    assert pq.read_table(tmp_path / "pl.parquet").cast(expected.schema).equals(expected)
    rel = duckdb.sql("SELECT range AS r, range * 2 AS r2 FROM range(1000)")
    parq.write_table(rel, str(tmp_path / "dd.parquet"))
    got = pq.read_table(tmp_path / "dd.parquet")
    assert got.num_rows == 1000 and got.column("r2").to_pylist()[999] == 1998
    # parq's tables go to polars and DuckDB.
    back = parq.read_table(tmp_path / "pl.parquet")
    assert pl.from_arrow(back).equals(df)
    assert duckdb.sql("SELECT count(*) FROM back").fetchall() == [(3,)]


def test_parquet_file_and_metadata_match_pyarrow(tmp_path, table):
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=1000)
    f = parq.ParquetFile(str(path))
    p = pq.ParquetFile(path)
    assert f.num_row_groups == p.num_row_groups == 3
    assert f.schema_arrow.equals(p.schema_arrow)
    assert f.read().equals(p.read())
    assert f.read(columns=["i32"]).equals(p.read(columns=["i32"]))
    assert f.read_row_group(1).equals(p.read_row_group(1))
    assert f.read_row_groups([2, 1]).equals(p.read_row_groups([2, 1]))
    sizes = [b.num_rows for b in f.iter_batches(batch_size=700)]
    assert sizes == [700, 700, 700, 700, 200]
    assert pa.Table.from_batches(list(f.iter_batches(batch_size=700))).equals(p.read())
    m, pm = f.metadata, p.metadata
    assert (m.num_rows, m.num_row_groups, m.num_columns) == (pm.num_rows, pm.num_row_groups, pm.num_columns)
    assert m.created_by == pm.created_by
    for i in range(m.num_row_groups):
        rg, prg = m.row_group(i), pm.row_group(i)
        assert (rg.num_rows, rg.num_columns, rg.total_byte_size) == (prg.num_rows, prg.num_columns, prg.total_byte_size)
        for j in range(rg.num_columns):
            c, pc_ = rg.column(j), prg.column(j)
            assert c.path_in_schema == pc_.path_in_schema
            assert c.physical_type == pc_.physical_type
            assert c.compression == pc_.compression
            assert (c.num_values, c.total_compressed_size, c.total_uncompressed_size) == (
                pc_.num_values,
                pc_.total_compressed_size,
                pc_.total_uncompressed_size,
            )
            assert (c.data_page_offset, c.dictionary_page_offset) == (pc_.data_page_offset, pc_.dictionary_page_offset)
            if pc_.physical_type in ("INT32", "INT64", "DOUBLE") and pc_.path_in_schema in ("i64", "i32", "f64"):
                s, ps = c.statistics, pc_.statistics
                assert (s.has_min_max, s.min, s.max, s.null_count) == (ps.has_min_max, ps.min, ps.max, ps.null_count)
            if pc_.path_in_schema == "s":
                assert (c.statistics.min, c.statistics.max) == (pc_.statistics.min, pc_.statistics.max)
    d = m.to_dict()
    assert d["num_rows"] == pm.num_rows and len(d["row_groups"]) == 3
    assert b"ARROW:schema" in m.metadata
    assert parq.read_metadata(str(path)).num_rows == pm.num_rows
    # Selective decode: some row groups and columns, no statistics.
    sel = parq.read_metadata(str(path), row_groups=[2], columns=[6, 1], statistics=False)
    assert sel.num_row_groups == 1 and sel.row_group(0).num_rows == pm.row_group(2).num_rows
    assert [sel.row_group(0).column(j).path_in_schema for j in range(2)] == ["i32", "s"]
    assert sel.row_group(0).column(1).statistics is None
    assert m.row_group(0).column(0).to_dict()["statistics"]["null_count"] == pm.row_group(0).column(0).statistics.null_count
    assert parq.read_schema(str(path)).equals(p.schema_arrow)


def test_read_metadata_lazy_and_by_name(tmp_path, table):
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=1000)
    pm = pq.read_metadata(path)
    full = parq.read_metadata(str(path))
    for source in (str(path), path.read_bytes()):
        # Lazily: the row groups decoded when asked for, equal to the whole decode.
        lazy = parq.read_metadata(source, lazy=True)
        assert (lazy.num_rows, lazy.num_row_groups, lazy.num_columns) == (pm.num_rows, 3, pm.num_columns)
        assert lazy.to_dict() == full.to_dict()
        assert lazy.row_group(2).num_rows == pm.row_group(2).num_rows
        with pytest.raises(IndexError):
            lazy.row_group(3)
        # Columns by dotted path select what indices select.
        by_name = parq.read_metadata(source, columns=["s", "i32"], statistics=False)
        by_index = parq.read_metadata(source, columns=[6, 1], statistics=False)
        assert by_name.to_dict() == by_index.to_dict()
        lazy_sel = parq.read_metadata(source, columns=["s"], lazy=True)
        assert lazy_sel.row_group(1).num_columns == 1
        assert lazy_sel.row_group(1).column(0).path_in_schema == "s"
        assert lazy_sel.row_group(1).column(0).statistics.max == pm.row_group(1).column(6).statistics.max
    with pytest.raises(KeyError, match="nope"):
        parq.read_metadata(str(path), columns=["nope"])
    with pytest.raises(ValueError):
        parq.read_metadata(str(path), row_groups=[0], lazy=True)


def filter_table() -> pa.Table:
    n = 5000
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "x": pa.array([None if i % 5 == 0 else i % 13 for i in range(n)], pa.int32()),
            "s": pa.array([None if i % 9 == 0 else f"v{i % 6}" for i in range(n)], pa.string()),
            "f": pa.array([i / 7 for i in range(n)], pa.float64()),
        }
    )


FILTERS = [
    [("x", "=", 3)],
    [("x", "!=", 3)],
    [("x", "in", [1, 2, 3])],
    [("x", "not in", [1, 2, 3])],
    [("s", "not in", ["v1"])],
    [("s", "in", ["v2", "v5"]), ("id", "<", 2500)],
    [[("id", "<", 100)], [("id", ">=", 4900), ("x", ">", 5)]],
    [("f", "<=", 10.5), ("s", "==", "v0")],
    [("id", ">", 2000), ("id", "<=", 2010)],
]


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: json.dumps(f))
def test_filters_match_pyarrow(tmp_path, filters):
    path = tmp_path / "f.parquet"
    pq.write_table(filter_table(), path, row_group_size=1000, data_page_size=1024)
    expected = pq.read_table(path, filters=filters)
    got = parq.read_table(str(path), filters=filters)
    assert got.equals(expected), (got.num_rows, expected.num_rows)
    # SQL text too.
    assert parq.read_table(str(path), filters="id >= 10 AND id < 20").num_rows == 10


def test_expression_filters_match_pyarrow(tmp_path):
    import pyarrow.compute as pc

    path = tmp_path / "f.parquet"
    pq.write_table(filter_table(), path, row_group_size=1000)
    for expr in [
        (pc.field("x") > 5) & ~pc.field("s").isin(["v1", "v2"]),
        pc.field("s").is_null() | (pc.field("id") < 10),
    ]:
        expected = pq.read_table(path, filters=expr, columns=["id", "s"])
        assert parq.read_table(str(path), filters=expr, columns=["id", "s"]).equals(expected)


def test_sources_and_sinks(tmp_path, table):
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    expected = pq.read_table(path)
    data = path.read_bytes()
    for source in [str(path), path, data, bytearray(data), memoryview(data), io.BytesIO(data), open(path, "rb")]:
        assert parq.read_table(source).equals(expected), type(source)
    sink = io.BytesIO()
    parq.write_table(table, sink, compression="zstd")
    assert pq.read_table(io.BytesIO(sink.getvalue())).equals(table)


class CountingFile(io.RawIOBase):
    """A seekable binary file counting the bytes read through it (short reads allowed)."""

    def __init__(self, data: bytes, seekable: bool = True):
        self.inner = io.BytesIO(data)
        self.read_bytes = 0
        self._seekable = seekable

    def readable(self):
        return True

    def seekable(self):
        return self._seekable

    def seek(self, pos, whence=0):
        if not self._seekable:
            raise io.UnsupportedOperation("seek")
        return self.inner.seek(pos, whence)

    def readinto(self, b):
        # At most 1000 bytes a call: the reader must loop.
        n = self.inner.readinto(memoryview(b)[:1000])
        self.read_bytes += n
        return n


def test_file_like_sources_are_read_by_ranges(tmp_path, table):
    path = tmp_path / "t.parquet"
    # Large enough that the footer's first read (64 KiB) is a small part of it.
    pq.write_table(pa.concat_tables([table] * 20), path, row_group_size=1000)
    data = path.read_bytes()
    expected = pq.read_table(path, columns=["i32"])
    f = CountingFile(data)
    got = parq.read_table(f, columns=["i32"])
    assert got.equals(expected)
    # One narrow column of a 16-column file: a fraction of the file read.
    assert 0 < f.read_bytes < len(data) / 3, (f.read_bytes, len(data))
    f = CountingFile(data)
    pf = parq.ParquetFile(f)
    assert pf.read_row_group(1).equals(pq.ParquetFile(path).read_row_group(1))
    batches = list(pf.iter_batches(batch_size=700, columns=["s"], use_threads=True))
    assert pa.Table.from_batches(batches).equals(pq.read_table(path, columns=["s"]))
    assert parq.read_metadata(CountingFile(data), lazy=True).to_dict() == parq.read_metadata(data).to_dict()
    # Not seekable: read whole.
    f = CountingFile(data, seekable=False)
    assert parq.read_table(f).equals(pq.read_table(path))
    assert f.read_bytes == len(data)
    # A file closed before its batches are read: a ParquetError, not a crash.
    f = CountingFile(data)
    pf = parq.ParquetFile(f)
    f.inner.close()
    with pytest.raises(parq.ParquetError, match="file-like"):
        pf.read()
    # Incremental writes, closed by the with block.
    out = tmp_path / "w.parquet"
    with parq.ParquetWriter(str(out), table.schema, row_group_size=1000) as w:
        for batch in table.to_batches(max_chunksize=900):
            w.write_batch(batch)
        w.write_table(table.slice(0, 10))
    got = pq.read_table(out)
    assert got.equals(pa.concat_tables([table, table.slice(0, 10)]))
    with pytest.raises(ValueError, match="closed"):
        w.write_table(table)
    with pytest.raises(ValueError, match="schema"):
        with parq.ParquetWriter(str(tmp_path / "x.parquet"), table.schema) as w2:
            w2.write_table(pa.table({"z": [1]}))


def test_recycled_buffers_never_change_a_table_still_held(tmp_path):
    # Large enough that the arrays' buffers are recycled once dropped (64 KiB and up).
    n = 200_000
    a = pa.table({"i": pa.array(range(n), pa.int64()), "s": pa.array([f"a{i % 1000}" for i in range(n)])})
    b = pa.table({"i": pa.array(range(n, 2 * n), pa.int64()), "s": pa.array([f"b{i % 999}" for i in range(n)])})
    pa_path, pb_path = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(a, pa_path, use_dictionary=False)
    pq.write_table(b, pb_path)
    held = parq.read_table(pa_path)
    for _ in range(3):
        # Each read's dropped tables give their buffers to the next; `held` keeps its own.
        assert parq.read_table(pb_path).equals(pq.read_table(pb_path))
        assert parq.read_table(pa_path).equals(pq.read_table(pa_path))
    assert held.equals(pq.read_table(pa_path))
    del held
    parq.release_buffers()
    assert parq.read_table(pb_path).equals(pq.read_table(pb_path))


def test_errors_are_parquet_errors(tmp_path):
    with pytest.raises(parq.ParquetInvalidFileError, match="too short"):
        parq.read_table(b"PAR1")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 100 + b"PAR1")
    with pytest.raises(parq.ParquetInvalidFileError):
        parq.read_table(str(bad))
    # As pyarrow: a path that does not exist is a FileNotFoundError.
    with pytest.raises(FileNotFoundError, match="missing.parquet"):
        parq.read_table(str(tmp_path / "missing.parquet"))
    with pytest.raises(FileNotFoundError, match="missing.parquet"):
        parq.ParquetFile(str(tmp_path / "missing.parquet"))
    for sub in (parq.ParquetInvalidFileError, parq.ParquetUnsupportedError, parq.ParquetIOError):
        assert issubclass(sub, parq.ParquetError)
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"a": [1]}), good)
    with pytest.raises(parq.ParquetError, match="nope"):
        parq.read_table(str(good), columns=["nope"])
    with pytest.raises(parq.ParquetError, match="nope"):
        parq.read_table(str(good), filters=[("nope", "=", 1)])
    with pytest.raises(TypeError):
        parq.read_table(12)
    with pytest.raises(parq.ParquetError, match="codec"):
        parq.write_table(pa.table({"a": [1]}), str(tmp_path / "o.parquet"), compression="nope")
    assert issubclass(parq.ParquetError, Exception)


def test_the_gil_is_released_while_decoding(tmp_path):
    n = 3_000_000
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"a": pa.array(range(n), pa.int64()), "b": pa.array([str(i) for i in range(n)])}), path)
    done = threading.Event()
    reads = []

    def read():
        for _ in range(3):
            reads.append(parq.read_table(str(path), use_threads=False).num_rows)
        done.set()

    t = threading.Thread(target=read)
    start = time.perf_counter()
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    elapsed = time.perf_counter() - start
    assert reads == [n, n, n]
    # With the GIL held for the whole read this loop could not run while parq decodes.
    assert ticks > elapsed * 1000 / 4, (ticks, elapsed)


CORPUS_SCRIPT = r"""
import sys, parq
for line in sys.stdin:
    path = line.rstrip("\n")
    print(path, flush=True)
    try:
        parq.read_table(path)
        parq.read_metadata(path).to_dict()
    except parq.ParquetError:
        pass
print("END", flush=True)
"""


def limit_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


def test_no_crash_on_any_corpus_file():
    """Every file under the test data directory (Parquet or not) reads, or raises
    ParquetError: no crash, no other exception, under an 8 GiB address-space cap."""
    files = sorted(str(p) for p in corpus_root().rglob("*") if p.is_file())
    assert len(files) > 1000
    proc = subprocess.run(
        [sys.executable, "-c", CORPUS_SCRIPT],
        preexec_fn=limit_memory,
        input="\n".join(files) + "\n",
        capture_output=True,
        text=True,
        timeout=900,
    )
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[-1:] == ["END"], (
        f"exit {proc.returncode} at {lines[-1] if lines else None}: {proc.stderr[-2000:]}"
    )


@pytest.mark.parametrize("writer", ["parq", "pyarrow"])
def test_reading_named_columns_of_a_wide_file_matches_pyarrow(tmp_path, writer):
    # Only the named columns' part of the footer is read (through parq's footer index when
    # parq wrote the file); the result is pyarrow's.
    n = 2000
    cols = {}
    for i in range(n):
        if i % 3 == 0:
            cols[f"c{i}"] = pa.array([None if r % 11 == 0 else f"s{(r * i) % 17}" for r in range(300)])
        else:
            cols[f"c{i}"] = pa.array([r * i for r in range(300)], pa.int64())
    cols["ts"] = pa.array([datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=r) for r in range(300)], pa.timestamp("us", tz="UTC"))
    cols["st"] = pa.array([{"x": r, "y": f"y{r % 3}"} for r in range(300)])
    table = pa.table(cols)
    path = tmp_path / "wide.parquet"
    if writer == "parq":
        parq.write_table(table, str(path), row_group_size=100)
        assert has_footer_index(path)
    else:
        pq.write_table(table, path, row_group_size=100)
    names = [f"c{i}" for i in range(0, n, 20)] + ["ts", "st"]
    assert parq.read_table(str(path), columns=names).equals(pq.read_table(path, columns=names))
    got = parq.read_table(str(path), columns=["c1", "c3", "ts"], filters="c1 > 100")
    want = pq.read_table(path, columns=["c1", "c3", "ts"], filters=[("c1", ">", 100)])
    assert got.equals(want)
    # A ParquetFile opens its footer lazily: reads of named columns, row groups, batches and
    # filters first, then what needs the whole footer, all as pyarrow gives them.
    f, p = parq.ParquetFile(str(path)), pq.ParquetFile(path)
    assert f.num_row_groups == p.num_row_groups == 3
    assert f.schema_arrow.equals(p.schema_arrow, check_metadata=True)
    assert repr(f) == f"<parq.ParquetFile: 300 rows, 3 row groups, {n + 3} columns>"
    assert f.read(columns=names).equals(p.read(columns=names))
    assert f.read_row_group(1, columns=["st", "c7"]).equals(p.read_row_group(1, columns=["st", "c7"]))
    assert f.read_row_groups([2, 0], columns=["c5"]).equals(p.read_row_groups([2, 0], columns=["c5"]))
    got = pa.Table.from_batches(list(f.iter_batches(batch_size=70, columns=["c4", "ts"], filter="c4 >= 400")))
    assert got.equals(pq.read_table(path, columns=["c4", "ts"], filters=[("c4", ">=", 400)]))
    assert f.read(columns=["c2"], filter="c1 < 50").equals(
        pq.read_table(path, columns=["c2"], filters=[("c1", "<", 50)])
    )
    with pytest.raises(parq.ParquetError):
        f.read(columns=["nope"])
    assert f.metadata.num_columns == p.metadata.num_columns == n + 3
    assert f.read(columns=names).equals(p.read(columns=names))
    assert f.read().equals(p.read())


def test_store_decimal_as_integer_as_pyarrow_writes_it(tmp_path):
    # Decimals of up to 9 / 18 digits as INT32 / INT64, wider ones FIXED_LEN_BYTE_ARRAY:
    # the physical types, values and statistics of pyarrow's own file with the same option.
    import decimal

    rows = [decimal.Decimal(i * 37 - 1000).scaleb(-2) if i % 7 else None for i in range(300)]
    table = pa.table(
        {
            "d9": pa.array(rows, pa.decimal128(9, 2)),
            "d18": pa.array(rows, pa.decimal128(18, 2)),
            "d30": pa.array(rows, pa.decimal128(30, 2)),
        }
    )
    ours, theirs = tmp_path / "parq.parquet", tmp_path / "pyarrow.parquet"
    parq.write_table(table, ours, store_decimal_as_integer=True)
    pq.write_table(table, theirs, store_decimal_as_integer=True)
    assert pq.read_table(ours).equals(table)
    a, b = pq.ParquetFile(ours).metadata, pq.ParquetFile(theirs).metadata
    types = [a.schema.column(i).physical_type for i in range(3)]
    assert types == ["INT32", "INT64", "FIXED_LEN_BYTE_ARRAY"]
    assert types == [b.schema.column(i).physical_type for i in range(3)]
    for i in range(3):
        sa, sb = a.row_group(0).column(i).statistics, b.row_group(0).column(i).statistics
        assert (sa.min, sa.max, sa.null_count) == (sb.min, sb.max, sb.null_count)
    parq.write_table(table, ours)
    meta = pq.ParquetFile(ours).metadata
    assert {meta.schema.column(i).physical_type for i in range(3)} == {"FIXED_LEN_BYTE_ARRAY"}


def test_float_total_order_statistics_as_peers_read_them(tmp_path):
    # NaN counts as DuckDB reads them, whatever the order; min/max under IEEE_754_TOTAL_ORDER
    # are ignored by pyarrow 26 (it knows TYPE_ORDER only) and kept under TYPE_ORDER.
    values = [float("nan") if i % 5 == 0 else (i - 150) / 4 for i in range(300)]
    values[7] = None
    table = pa.table({"x": pa.array(values, pa.float64())})
    nans = sum(1 for v in values if v is not None and v != v)
    finite = [v for v in values if v is not None and v == v]
    for total_order in (False, True):
        path = tmp_path / f"total-{total_order}.parquet"
        parq.write_table(table, path, float_total_order=total_order)
        back = pq.read_table(path).column("x").to_pylist()
        assert [repr(v) for v in back] == [repr(v) for v in values]
        con = duckdb.connect()
        rows = con.execute(
            "SELECT stats_nan_count FROM parquet_metadata(?)", [str(path)]
        ).fetchall()
        con.close()
        assert rows == [(nans,)]
        stats = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
        assert stats.has_min_max is (not total_order)
        if not total_order:
            assert (stats.min, stats.max) == (min(finite), max(finite))
