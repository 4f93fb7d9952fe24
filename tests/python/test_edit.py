"""parq.merge and parq.ParquetWriter(append=True), checked against pyarrow, DuckDB and polars
reading the same files."""

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parq


def _table(start, n):
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "s": [f"s{i % 13}" if i % 4 else None for i in range(start, start + n)],
            "l": [[i, -i] for i in range(start, start + n)],
        }
    )


def test_merge_copies_row_groups_and_reads_as_the_inputs_concatenated(tmp_path):
    files = []
    for k in range(3):
        f = tmp_path / f"in{k}.parquet"
        pq.write_table(_table(k * 1000, 1000), f, row_group_size=400)
        files.append(f)
    out = tmp_path / "out.parquet"
    report = parq.merge(files, out)
    assert report == {"row_groups_copied": 9, "files_reencoded": 0, "rows": 3000}
    want = pa.concat_tables([pq.read_table(f) for f in files])
    assert pq.read_table(out).equals(want)
    assert parq.read_table(out).equals(want)
    got = duckdb.sql(f"SELECT count(*), sum(id), count(s) FROM '{out}'").fetchall()
    assert got == [(3000, sum(range(3000)), want.column("s").length() - want.column("s").null_count)]
    assert pl.read_parquet(out).equals(pl.from_arrow(want))
    # The copied chunks keep pyarrow's statistics.
    src, dst = pq.ParquetFile(files[1]).metadata, pq.ParquetFile(out).metadata
    assert dst.row_group(4).column(0).statistics.to_dict() == src.row_group(1).column(0).statistics.to_dict()


def test_merge_widens_and_refuses_what_cannot_be_united(tmp_path):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(_table(0, 10), a)
    pq.write_table(pa.table({"id": pa.array([7, 8], pa.int32())}), b)
    out = tmp_path / "out.parquet"
    report = parq.merge([a, b], out)
    assert report["files_reencoded"] == 1
    got = pq.read_table(out)
    assert got.schema.field("id").type == pa.int64()
    assert got.column("id").to_pylist() == list(range(10)) + [7, 8]
    assert got.column("s").to_pylist()[-2:] == [None, None]
    pq.write_table(pa.table({"id": ["x"]}), b)
    with pytest.raises(parq.ParquetError):
        parq.merge([a, b], tmp_path / "bad.parquet")
    assert not (tmp_path / "bad.parquet").exists()


def test_parquet_writer_appends_row_groups(tmp_path):
    f = tmp_path / "t.parquet"
    first = _table(0, 500)
    pq.write_table(first, f)
    more = _table(500, 300)
    with parq.ParquetWriter(f, more.schema, append=True, row_group_size=100) as w:
        w.write_table(more)
        w.write_table(_table(800, 50))
    want = pa.concat_tables([first, more, _table(800, 50)])
    assert pq.read_table(f).equals(want)
    assert pq.ParquetFile(f).metadata.num_row_groups == 1 + 3 + 1
    assert duckdb.sql(f"SELECT count(*), max(id) FROM '{f}'").fetchall() == [(850, 849)]
    assert pl.read_parquet(f).equals(pl.from_arrow(want))
    # Another schema is refused, and the file is left as it was.
    before = f.read_bytes()
    other = pa.schema([("id", pa.string())])
    with pytest.raises(parq.ParquetError):
        parq.ParquetWriter(f, other, append=True)
    with pytest.raises(TypeError):
        parq.ParquetWriter(pa.BufferOutputStream(), more.schema, append=True)
    assert f.read_bytes() == before
