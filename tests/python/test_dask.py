"""parq.dask on a real dask.distributed LocalCluster with worker processes: read_parquet
(a partition per row group or per file, columns, filters) equal to dask's own
read_parquet (pyarrow), and to_parquet writing a file per partition that pyarrow reads."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import parq.dask  # noqa: E402


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
