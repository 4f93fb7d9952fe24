"""parq.dask on a real dask.distributed LocalCluster with worker processes: read_parquet
(a partition per row group or per file, columns, filters, hive directories, an S3 URL on
moto's server) equal to dask's own read_parquet (pyarrow); partitions and row groups a
filter rules out, and divisions from a sorted column's statistics, as pyarrow's metadata
gives them; to_parquet writing a file per partition (or hive directories of partition_on)
that pyarrow reads."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import parq.dask  # noqa: E402
from conftest import upload, write_hive  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask")
    for f in range(3):
        n = 5000
        t = pa.table(
            {
                "id": pa.array(range(f * n, (f + 1) * n), pa.int64()),
                "x": pa.array([None if i % 11 == 0 else i % 17 for i in range(n)], pa.int32()),
                "s": pa.array([f"s{i % 5}" for i in range(n)], pa.string()),
            }
        )
        pq.write_table(t, d / f"f{f}.parquet", row_group_size=2000)
    return d


def frame(df) -> pd.DataFrame:
    return df.sort_values("id").reset_index(drop=True)


def test_read_parquet_partitions_match_dask(client, files):
    expected = frame(dd.read_parquet(str(files)).compute())
    by_row_group = parq.dask.read_parquet(str(files))
    assert by_row_group.npartitions == 9
    pd.testing.assert_frame_equal(frame(by_row_group.compute()), expected)
    by_file = parq.dask.read_parquet(str(files / "*.parquet"), split_row_groups=False)
    assert by_file.npartitions == 3
    pd.testing.assert_frame_equal(frame(by_file.compute()), expected)


def test_read_parquet_columns_and_filters_match_dask(client, files):
    filters = [("x", ">", 10), ("s", "in", ["s1", "s3"])]
    expected = frame(dd.read_parquet(str(files), columns=["id", "x"], filters=filters).compute())
    got = parq.dask.read_parquet(str(files), columns=["id", "x"], filters=filters)
    pd.testing.assert_frame_equal(frame(got.compute()), expected)


def test_to_parquet_writes_a_file_per_partition(client, files, tmp_path):
    df = parq.dask.read_parquet(str(files))
    written = parq.dask.to_parquet(df, tmp_path / "out", compression="zstd")
    assert len(written) == df.npartitions
    back = pa.concat_tables([pq.read_table(p) for p in sorted(written)]).to_pandas()
    pd.testing.assert_frame_equal(frame(back), frame(dd.read_parquet(str(files)).compute()))


@pytest.fixture(scope="module")
def hive(tmp_path_factory):
    return write_hive(tmp_path_factory.mktemp("dask_hive") / "t")


def by_value(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` sorted by id, with categorical (dask's partition columns) and integer partition
    columns as strings."""
    df = frame(df)
    for c in df.columns:
        if isinstance(df[c].dtype, pd.CategoricalDtype) or c == "year":
            df[c] = df[c].astype(str)
    return df


def test_hive_directory_matches_dask(client, hive):
    want = by_value(dd.read_parquet(str(hive)).compute())
    got = parq.dask.read_parquet(str(hive))
    pd.testing.assert_frame_equal(by_value(got.compute()), want)
    filters = [("year", "!=", 2021), ("id", "<", 2000)]
    want = by_value(dd.read_parquet(str(hive), filters=filters).compute())
    pd.testing.assert_frame_equal(by_value(parq.dask.read_parquet(str(hive), filters=filters).compute()), want)


def test_partitions_pruned_at_graph_build(client, files, hive):
    paths = sorted(files.glob("*.parquet"))
    metas = [pq.read_metadata(p) for p in paths]
    # Row groups whose id statistics (pyarrow's) can hold id >= 7500.
    kept = [
        (p, i)
        for p, m in zip(paths, metas)
        for i in range(m.num_row_groups)
        if m.row_group(i).column(0).statistics.max >= 7500
    ]
    got = parq.dask.read_parquet(str(files), filters=[("id", ">=", 7500)])
    assert got.npartitions == len(kept) == 5
    assert sorted(got.compute()["id"]) == list(range(7500, 15000))
    by_file = parq.dask.read_parquet(str(files), filters=[("id", ">=", 7500)], split_row_groups=False)
    assert by_file.npartitions == len({p for p, _ in kept}) == 2
    # Whole directories ruled out by their partition values.
    years = parq.dask.read_parquet(str(hive), filters=[("year", "=", 2021)])
    want = sum(pq.read_metadata(p).num_row_groups for p in hive.rglob("*.parquet") if "year=2021" in str(p))
    assert years.npartitions == want
    assert set(years.compute()["year"]) == {2021}
    none = parq.dask.read_parquet(str(hive), filters=[("year", "=", 1999)])
    assert len(none.compute()) == 0


def test_divisions_from_statistics(client, files, hive):
    paths = sorted(files.glob("*.parquet"))
    stats = [
        m.row_group(i).column(0).statistics
        for m in (pq.read_metadata(p) for p in paths)
        for i in range(m.num_row_groups)
    ]
    want = tuple(s.min for s in stats) + (stats[-1].max,)
    got = parq.dask.read_parquet(str(files), index="id", calculate_divisions=True)
    assert got.divisions == want
    theirs = dd.read_parquet(str(files), index="id", calculate_divisions=True, split_row_groups=True)
    assert got.divisions == theirs.divisions
    expected = frame(dd.read_parquet(str(files)).compute()).set_index("id")
    pd.testing.assert_frame_equal(got.compute(), expected)
    # The divisions route a lookup by index to its partition.
    assert got.loc[7777].compute()["s"].tolist() == ["s2"]
    by_file = parq.dask.read_parquet(str(files), index="id", calculate_divisions=True, split_row_groups=False)
    assert by_file.divisions == (0, 5000, 10000, 14999)
    assert by_file.divisions == dd.read_parquet(str(files), index="id", calculate_divisions=True).divisions
    # Ids interleaved across the year directories: ranges overlap, divisions unknown.
    assert not parq.dask.read_parquet(str(hive), index="id", calculate_divisions=True).known_divisions


def test_s3_url_matches_pyarrow(client, moto_s3, hive):
    fs, options = moto_s3
    upload(fs, hive, "bucket/dask")
    want = pq.read_table("bucket/dask", filesystem=fs, partitioning="hive").to_pandas()
    got = parq.dask.read_parquet("s3://bucket/dask/", storage_options=options, filters=[("id", "<", 6000)])
    pd.testing.assert_frame_equal(by_value(got.compute()), by_value(want))


def test_to_parquet_partition_on_read_by_pyarrow(client, files, tmp_path):
    df = parq.dask.read_parquet(str(files))
    written = parq.dask.to_parquet(df, tmp_path / "out", partition_on=["s"])
    assert all(f"s=s{i}" in "".join(written) for i in range(5))
    back = pads.dataset(tmp_path / "out", format="parquet", partitioning="hive").to_table().to_pandas()
    want = frame(dd.read_parquet(str(files)).compute())
    pd.testing.assert_frame_equal(by_value(back[["id", "x", "s"]]), by_value(want))
