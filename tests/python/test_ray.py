"""parq.ray on a local Ray cluster (``ray.init(num_cpus=2)`` on 127.0.0.1, read tasks in
worker processes): read_parquet equal to ``ray.data.read_parquet`` (pyarrow) on the same
files (flat, hive-partitioned, an S3 URL on moto's server), read tasks planned from the
footers (rows and files of each, partitions and row groups a filter rules out left
without a task, as pyarrow's metadata says), projection and filter pushdown through Ray's
optimizer, and write_parquet's output read by pyarrow.dataset."""

from __future__ import annotations

import os

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

ray = pytest.importorskip("ray")
import ray.data  # noqa: E402
from ray.data.expressions import col, lit  # noqa: E402

import parq.ray  # noqa: E402
from conftest import upload, write_hive  # noqa: E402


@pytest.fixture(scope="session")
def cluster():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
        configure_logging=False,
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


N = 6000


@pytest.fixture(scope="module")
def flat(tmp_path_factory):
    """Three files of sorted ids, row groups of 1000 rows."""
    d = tmp_path_factory.mktemp("ray_flat")
    for f in range(3):
        ids = range(f * N // 3, (f + 1) * N // 3)
        t = pa.table(
            {
                "id": pa.array(ids, pa.int64()),
                "x": pa.array([None if i % 11 == 0 else i % 17 for i in ids], pa.int32()),
                "s": pa.array([f"s{i % 5}" for i in ids], pa.string()),
            }
        )
        pq.write_table(t, d / f"f{f}.parquet", row_group_size=1000)
    return d


@pytest.fixture(scope="module")
def hive(tmp_path_factory):
    return write_hive(tmp_path_factory.mktemp("ray_hive") / "t")


def frame(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values("id").reset_index(drop=True)


def same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Equal frames; partition columns (pyarrow's are dictionaries, Ray's strings) compared
    by value as strings."""
    got, want = frame(got), frame(want)
    assert list(got.columns) == list(want.columns)
    for c in got.columns:
        g, w = got[c], want[c]
        if g.dtype != w.dtype:
            g, w = g.astype(str), w.astype(str)
        pd.testing.assert_series_equal(g, w, check_names=True)


def test_read_equals_ray_flat(cluster, flat):
    want = ray.data.read_parquet(str(flat)).to_pandas()
    got = parq.ray.read_parquet(str(flat)).to_pandas()
    same(got, want)
    assert len(got) == N


def test_read_equals_ray_hive_with_filters(cluster, hive):
    want = ray.data.read_parquet(str(hive)).to_pandas()
    same(parq.ray.read_parquet(str(hive)).to_pandas(), want)
    filters = [("year", "=", 2021), ("id", ">", 3000)]
    want = want[(want["year"].astype(str) == "2021") & (want["id"] > 3000)]
    got = parq.ray.read_parquet(str(hive), filters=filters, columns=["id", "v", "year"]).to_pandas()
    same(got, want[["id", "v", "year"]])


def test_read_tasks_from_footers(cluster, flat, hive):
    files = sorted(str(p) for p in flat.glob("*.parquet"))
    source = parq.ray.ParqDatasource(str(flat))
    tasks = source.get_read_tasks(4)
    assert len(tasks) == 4
    metas = [pq.read_metadata(f) for f in files]
    assert sum(t.metadata.num_rows for t in tasks) == sum(m.num_rows for m in metas)
    # Balanced: 6 row groups of about equal bytes in 4 tasks of 1 or 2.
    assert sorted(t.metadata.num_rows for t in tasks) == [1000, 1000, 2000, 2000]
    assert sorted({f for t in tasks for f in t.metadata.input_files}) == files
    assert source.estimate_inmemory_data_size() == sum(
        m.row_group(i).total_byte_size for m in metas for i in range(m.num_row_groups)
    )
    assert tasks[0].schema == pq.read_schema(files[0])

    # Row groups the statistics rule out get no task: which ones, from pyarrow's metadata.
    keep = [
        (f, i)
        for f, m in zip(files, metas)
        for i in range(m.num_row_groups)
        if m.row_group(i).column(0).statistics.max >= 4500
    ]
    filtered = parq.ray.ParqDatasource(str(flat), filters=[("id", ">=", 4500)])
    tasks = filtered.get_read_tasks(100)
    assert len(tasks) == len(keep) == 2
    assert sorted(f for t in tasks for f in t.metadata.input_files) == sorted(f for f, _ in keep)

    # Partitions a filter rules out get no task.
    by_year = parq.ray.ParqDatasource(str(hive), filters=[("year", "in", [2020, 2022])])
    tasks = by_year.get_read_tasks(100)
    kept_files = {f for t in tasks for f in t.metadata.input_files}
    assert kept_files and all("year=2021" not in f for f in kept_files)
    want_groups = sum(
        pq.read_metadata(p).num_row_groups
        for p in hive.rglob("*.parquet")
        if "year=2021" not in str(p)
    )
    assert len(tasks) == want_groups


def test_projection_and_filter_pushed_into_the_read(cluster, flat, monkeypatch):
    cls = parq.ray.ParqDatasource
    planned = []
    plan = cls.get_read_tasks
    monkeypatch.setattr(
        cls, "get_read_tasks", lambda self, *a, **k: planned.append((self._columns(), self._filter_sql)) or plan(self, *a, **k)
    )
    base = parq.ray.read_parquet(str(flat))
    got = base.select_columns(["id", "x"]).filter(expr=(col("x") > 10) & (col("s") != "s1")).to_pandas()
    # Ray's optimizer handed the columns and the filter to the read tasks.
    assert planned[-1] == (["id", "x"], '(("x" > 10) AND ("s" != \'s1\'))'), planned
    monkeypatch.undo()
    want = (
        ray.data.read_parquet(str(flat))
        .select_columns(["id", "x", "s"])
        .filter(expr=(col("x") > 10) & (col("s") != "s1"))
        .to_pandas()[["id", "x"]]
    )
    same(got, want)
    # An expression parq takes as SQL; one it does not (arithmetic) left to Ray's filter.
    source = parq.ray.ParqDatasource(str(flat))
    pushed = source.apply_predicate((col("id") < lit(1500)) | col("x").is_null())
    assert pushed is not source and pushed._filter_sql == '(("id" < 1500) OR ("x" IS NULL))'
    assert len(pushed.get_read_tasks(100)) == 6
    assert source.apply_predicate(col("id") + 1 > 5) is source
    got = parq.ray.read_parquet(str(flat)).filter(expr=col("id") + 1 > 5990).to_pandas()
    assert sorted(got["id"]) == list(range(5990, N))


def test_s3_url_equals_ray(cluster, moto_s3, hive):
    fs, options = moto_s3
    upload(fs, hive, "bucket/ray")
    want = ray.data.read_parquet("bucket/ray", filesystem=fs).to_pandas()
    got = parq.ray.read_parquet("s3://bucket/ray/", storage_options=options).to_pandas()
    same(got, want)
    got = parq.ray.read_parquet("s3://bucket/ray/", storage_options=options, filters=[("year", "=", 2022)])
    assert sorted(got.to_pandas()["id"]) == [i for i in range(N) if i % 3 == 2]


def test_write_parquet_read_by_pyarrow(cluster, flat, tmp_path):
    ds = parq.ray.read_parquet(str(flat))
    out = tmp_path / "out"
    parq.ray.write_parquet(ds, out, partition_cols=["s"], compression="zstd")
    back = pads.dataset(out, format="parquet", partitioning="hive").to_table().to_pandas()
    back["s"] = back["s"].astype(str)
    want = pq.read_table(flat).to_pandas()
    same(back[["id", "x", "s"]], want)
    plain = tmp_path / "plain"
    parq.ray.write_parquet(ds, plain)
    same(pq.read_table(plain).to_pandas(), want)
