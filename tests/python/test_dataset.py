"""parq datasets (directories, globs, lists, hive partitions, schema evolution, object
stores) against pyarrow's reading of the same files.

pyarrow reads hive partition columns as dictionaries; they are compared by value. The S3
cases run against moto's S3-compatible server, started here on 127.0.0.1 and stopped at the
end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

import parq
from conftest import upload


def plain(t: pa.Table) -> pa.Table:
    """``t`` with dictionary columns decoded (pyarrow's partition columns)."""
    cols = {}
    for name in t.column_names:
        c = t.column(name)
        if pa.types.is_dictionary(c.type):
            c = c.cast(c.type.value_type)
        cols[name] = c.combine_chunks()
    return pa.table(cols)


def assert_same(got: pa.Table, want: pa.Table) -> None:
    got, want = plain(got), plain(want)
    assert got.schema.names == want.schema.names, (got.schema, want.schema)
    assert got.schema.equals(want.schema), (got.schema, want.schema)
    assert got.num_rows == want.num_rows
    assert got.equals(want), (got.slice(0, 5), want.slice(0, 5))


def table(n: int = 120) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "year": pa.array([2020 + i % 3 for i in range(n)], pa.int32()),
            "tag": [["a", "b/c d", None, "x=y"][i % 4] for i in range(n)],
            "name": [f"n{i % 7}" if i % 5 else None for i in range(n)],
            "v": [float(i) / 3 for i in range(n)],
        }
    )


@pytest.fixture(scope="module")
def hive(tmp_path_factory) -> Path:
    """A pyarrow-written hive dataset with Spark-style extra files beside it."""
    root = tmp_path_factory.mktemp("hive") / "t"
    pq.write_to_dataset(table(), root, partition_cols=["year", "tag"], row_group_size=11)
    (root / "_SUCCESS").write_bytes(b"")
    (root / "_common_metadata").write_bytes(b"junk")
    first = sorted(root.rglob("*.parquet"))[0]
    (first.parent / f".{first.name}.crc").write_bytes(b"crc")
    temp = root / "_temporary" / "0"
    temp.mkdir(parents=True)
    shutil.copy(first, temp / "part-9.parquet")
    return root


def test_hive_directory_equals_pyarrow(hive):
    want = pq.read_table(hive, partitioning="hive")
    assert_same(parq.read_table(hive), want)
    assert_same(parq.read_table(str(hive), use_threads=False), want)
    d = parq.dataset(hive)
    assert d.files == sorted(d.files, key=lambda s: s.encode())
    assert all(os.path.isabs(f) and "_temporary" not in f for f in d.files)
    assert d.schema.names == ["id", "name", "v", "year", "tag"]
    assert d.count_rows() == want.num_rows
    reader = d.to_batches()
    assert isinstance(reader, pa.RecordBatchReader)
    assert_same(reader.read_all(), want)


@pytest.mark.parametrize(
    "filters",
    [
        [("year", "=", 2021)],
        [("year", ">=", 2021), ("id", "<", 60)],
        [("tag", "=", "b/c d")],
        [("tag", "!=", "a")],
        [("tag", "not in", ["a", "x=y"])],
        [("tag", "in", ["a", "zzz"]), ("v", ">", 10.0)],
        [[("year", "=", 2020)], [("name", "=", "n3"), ("tag", "=", "x=y")]],
        [("name", "!=", "n1")],
    ],
)
def test_filters_on_partition_and_file_columns(hive, filters):
    want = pq.read_table(hive, partitioning="hive", filters=filters)
    assert_same(parq.read_table(hive, filters=filters), want)
    assert parq.dataset(hive).count_rows(filters=filters) == want.num_rows
    cols = ["tag", "id"]
    assert_same(parq.read_table(hive, columns=cols, filters=filters), want.select(cols))


def test_columns_and_partitioning_off(hive):
    assert_same(
        parq.read_table(hive, columns=["year", "v"]),
        pq.read_table(hive, partitioning="hive", columns=["year", "v"]),
    )
    got = parq.read_table(hive, partitioning=None)
    want = ds.dataset(hive, format="parquet", partitioning=None, exclude_invalid_files=False).to_table()
    assert_same(got, want)
    schema = pa.schema([("year", pa.int64()), ("tag", pa.string())])
    got = parq.dataset(hive, partitioning=schema).to_table()
    assert got.schema.field("year").type == pa.int64()
    assert got.column("year").to_pylist() == plain(pq.read_table(hive, partitioning="hive")).column("year").to_pylist()


def test_virtual_columns(hive):
    d = parq.dataset(hive, include_file_paths="path", row_index="row")
    t = d.to_table()
    assert t.schema.names[-2:] == ["row", "path"]
    for f in d.files:
        part = t.filter(pa.compute.equal(t.column("path"), f))
        assert part.column("row").to_pylist() == list(range(pq.ParquetFile(f).metadata.num_rows))
        assert part.column("id").to_pylist() == pq.read_table(f).column("id").to_pylist()
    # Row indices stay those of the file under a filter.
    kept = d.to_table(filters=[("id", ">", 100)])
    assert kept.num_rows == 19
    for path, row, ident in zip(*(kept.column(c).to_pylist() for c in ("path", "row", "id"))):
        assert pq.read_table(path).column("id")[row].as_py() == ident


def test_partition_values_typed_and_decoded_as_pyarrow(tmp_path):
    t = pa.table({"x": [1]})
    for k, v in [("a", "007"), ("a", "-5"), ("b", "+3"), ("b", "4"), ("c", "1e3"), ("d", "3000000000"),
                 ("e", "p%20q%2Fr+s"), ("f", "__HIVE_DEFAULT_PARTITION__"), ("f", "9")]:
        d = tmp_path / f"{k}={v}"
        d.mkdir(exist_ok=True)
        pq.write_table(t, d / f"{len(os.listdir(d))}.parquet")
    # Each key in its own branch: files are below one level each.
    want = pq.read_table(tmp_path, partitioning="hive")
    assert_same(parq.read_table(tmp_path), want)
    got = parq.dataset(tmp_path).schema
    assert [got.field(k).type for k in "abcdef"] == [pa.int32(), pa.string(), pa.string(), pa.string(), pa.string(), pa.int32()]


def test_file_order_and_single_file(tmp_path):
    t = pa.table({"x": [0]})
    names = ["a0.parquet", "a/b.parquet", "a.parquet", "a-b.parquet", "B.parquet"]
    for i, n in enumerate(names):
        p = tmp_path / n
        p.parent.mkdir(exist_ok=True)
        pq.write_table(pa.table({"x": [i]}), p)
    want = pq.read_table(tmp_path, partitioning=None)
    got = parq.read_table(tmp_path)
    assert got.column("x").to_pylist() == want.column("x").to_pylist() == [4, 3, 2, 1, 0]
    # A single file has no partition columns, whatever its directories.
    d = tmp_path / "k=1"
    d.mkdir()
    pq.write_table(t, d / "f.parquet")
    assert parq.dataset(d / "f.parquet").schema.names == ["x"]
    assert parq.dataset(tmp_path / "k=1").schema.names == ["x"]


def test_globs_and_lists(hive):
    files = sorted(str(p) for p in hive.rglob("*.parquet") if "_temporary" not in str(p))
    pattern = str(hive) + "/year=202[01]/**/*.parquet"
    got = parq.read_table(pattern)
    want = ds.dataset([f for f in files if "year=2022" not in f], format="parquet", partitioning="hive").to_table()
    # A glob's files are partitioned by every key=value directory of their paths.
    assert_same(got.select(want.schema.names), want)
    listed = list(reversed(files))
    assert_same(parq.read_table(listed), ds.dataset(listed, format="parquet", partitioning="hive").to_table())
    assert parq.dataset(listed).files == listed


def test_schema_evolution_equals_pyarrow_permissive(tmp_path):
    a = pa.table({"id": pa.array([1, 2], pa.int32()), "s": ["x", "y"], "f": pa.array([1.5, 2.5], pa.float32())})
    b = pa.table({"f": pa.array([3.5], pa.float64()), "id": pa.array([3], pa.int64()), "extra": [True]})
    c = pa.table({"s": ["z"]})
    for name, t in [("a", a), ("b", b), ("c", c)]:
        pq.write_table(t, tmp_path / f"{name}.parquet")
    files = [str(tmp_path / f"{n}.parquet") for n in "abc"]
    schema = pa.unify_schemas([a.schema, b.schema, c.schema], promote_options="permissive")
    want = ds.dataset(files, schema=schema, format="parquet").to_table()
    got = parq.read_table(tmp_path)
    assert_same(got, want)
    # A filter on a column a file lacks sees nulls there.
    f = [("extra", "=", True)]
    assert_same(parq.read_table(tmp_path, filters=f), ds.dataset(files, schema=schema, format="parquet").to_table(filter=pa.compute.field("extra") == True))  # noqa: E712
    f = [("id", ">=", 2)]
    assert_same(parq.read_table(tmp_path, filters=f), ds.dataset(files, schema=schema, format="parquet").to_table(filter=pa.compute.field("id") >= 2))


def test_first_file_schema_equals_pyarrow_dataset(tmp_path, parq_bin):
    # pyarrow.dataset takes the first file's schema: columns a later file lacks are null,
    # its extra columns are left out, and its other types are cast.
    a = pa.table({"id": pa.array([1, 2], pa.int64()), "s": ["x", "y"], "f": pa.array([1.5, 2.5], pa.float64())})
    b = pa.table({"f": pa.array([3.5], pa.float32()), "id": pa.array([3], pa.int32()), "extra": [True]})
    for part, t in [(0, a), (1, b), (2, b)]:
        (tmp_path / f"p={part}").mkdir()
        pq.write_table(t, tmp_path / f"p={part}" / "f.parquet")
    want = ds.dataset(tmp_path, format="parquet", partitioning="hive").to_table()
    assert "extra" not in want.schema.names
    got = parq.read_table(tmp_path, union_by_name=False)
    assert_same(got, want)
    assert parq.dataset(tmp_path, union_by_name=False).schema == want.schema
    assert "extra" in parq.read_table(tmp_path).schema.names
    # Only the first footer is read at open, the others for the files a query reads: a
    # file that is not Parquet fails the dataset when its footer is read, and not before.
    (tmp_path / "p=2" / "f.parquet").write_bytes(b"this is not parquet at all")
    with pytest.raises(parq.ParquetError, match="f.parquet"):
        parq.dataset(tmp_path)
    d = parq.dataset(tmp_path, union_by_name=False)
    kept = d.to_table(filters=[("p", "<", 2)])
    assert_same(kept, want.filter(pa.compute.field("p") < 2))
    with pytest.raises(parq.ParquetError, match="f.parquet"):
        d.to_table()
    # The CLI's --first-file-schema.
    out = subprocess.run([parq_bin, "cat", "--first-file-schema", "--where", "p < 2", "--format", "csv", str(tmp_path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("\n") == 1 + 3
    out = subprocess.run([parq_bin, "cat", "--format", "csv", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode != 0 and "f.parquet" in out.stderr


def test_datasets_of_other_writers(tmp_path):
    df = pl.DataFrame({"k": [1, 1, 2, 3], "s": ["a", "b", "c", "d"], "v": [1.0, 2.0, 3.0, 4.0]})
    df.write_parquet(tmp_path / "pl", partition_by=["k"])
    duckdb.sql("select range as id, range % 3 as g, 'x' || range as s from range(50)").write_parquet(
        str(tmp_path / "dd"), partition_by=["g"]
    )
    want = pq.read_table(tmp_path / "dd", partitioning="hive")
    assert_same(parq.read_table(tmp_path / "dd"), want)
    # polars writes the key into the files too: with hive partitioning that is a clash (as
    # pyarrow finds), without it the files read as they are.
    with pytest.raises(parq.ParquetError, match="partition key `k`"):
        parq.read_table(tmp_path / "pl")
    want = pq.read_table(tmp_path / "pl", partitioning=None)
    assert_same(parq.read_table(tmp_path / "pl", partitioning=None), want)


def test_errors(tmp_path, hive):
    with pytest.raises(FileNotFoundError):
        parq.read_table(str(tmp_path / "nothing" / "*.parquet"))
    with pytest.raises(FileNotFoundError):
        parq.read_table(tmp_path / "missing")
    with pytest.raises(FileNotFoundError):
        parq.dataset(str(tmp_path / "missing-dir") + "/")
    only = tmp_path / "only"
    only.mkdir()
    (only / "_SUCCESS").write_bytes(b"")
    (only / ".part-0.parquet.crc").write_bytes(b"x")
    with pytest.raises(FileNotFoundError, match="no Parquet file"):
        parq.read_table(only)
    bad = tmp_path / "bad"
    bad.mkdir()
    pq.write_table(pa.table({"x": [1]}), bad / "a.parquet")
    (bad / "b.parquet").write_bytes(b"this is not parquet at all")
    with pytest.raises(parq.ParquetError, match="b.parquet"):
        parq.read_table(bad)
    (bad / "b.parquet").write_bytes(b"")
    with pytest.raises(parq.ParquetError, match="b.parquet"):
        parq.dataset(bad).to_table()
    clash = tmp_path / "clash" / "x=1"
    clash.mkdir(parents=True)
    pq.write_table(pa.table({"x": [1]}), clash / "a.parquet")
    with pytest.raises(parq.ParquetError, match="partition key `x`"):
        parq.read_table(tmp_path / "clash")
    conflict = tmp_path / "conflict"
    conflict.mkdir()
    pq.write_table(pa.table({"c": [1]}), conflict / "a.parquet")
    pq.write_table(pa.table({"c": ["s"]}), conflict / "b.parquet")
    with pytest.raises(parq.ParquetError, match="a.parquet.*b.parquet"):
        parq.read_table(conflict)
    with pytest.raises(parq.ParquetError, match="no column `nope`"):
        parq.dataset(hive).to_table(columns=["nope"])


# ---- S3: moto's server on 127.0.0.1 ----

@pytest.fixture(scope="module")
def s3(moto_s3, hive):
    fs, options = moto_s3
    upload(fs, hive, "bucket/t")
    return fs, options


@pytest.mark.parametrize("filters", [None, [("year", "=", 2021)], [("tag", "!=", "a"), ("id", ">", 30)]])
def test_s3_dataset_equals_pyarrow(s3, filters):
    fs, options = s3
    want = pq.read_table("bucket/t", filesystem=fs, partitioning="hive", filters=filters)
    got = parq.read_table("s3://bucket/t/", storage_options=options, filters=filters)
    assert_same(got, want)
    d = parq.dataset("s3://bucket/t", storage_options=options)
    assert all(f.startswith("s3://bucket/t/year=") for f in d.files)
    assert d.count_rows(filters=filters) == want.num_rows


def test_s3_globs_single_objects_and_errors(s3):
    fs, options = s3
    got = parq.read_table("s3://bucket/t/year=2020/*/*.parquet", storage_options=options)
    want = pq.read_table("bucket/t", filesystem=fs, partitioning="hive", filters=[("year", "=", 2020)])
    assert_same(got.select(want.schema.names), want)
    one = parq.dataset("s3://bucket/t", storage_options=options).files[0]
    single = parq.read_table(one, storage_options=options)
    assert single.schema.names == ["id", "name", "v"]
    assert_same(single, pq.read_table(one.removeprefix("s3://"), filesystem=fs, partitioning=None))
    with pytest.raises(FileNotFoundError):
        parq.read_table("s3://bucket/none/", storage_options=options)
    with pytest.raises(FileNotFoundError):
        parq.read_table("s3://no-such-bucket/t/", storage_options=options)
    with pytest.raises(parq.ParquetError, match="storage option"):
        parq.read_table("s3://bucket/t/", storage_options={"not_a_key": "1"})


# ---- the CLI ----

def test_cli_cat_and_ls_of_datasets(parq_bin, hive, s3):
    import json

    from conftest import Parq

    cli = Parq(parq_bin)
    want = plain(pq.read_table(hive, partitioning="hive", filters=[("year", "=", 2021), ("id", "<", 60)]))
    res = cli.run_checked("cat", hive, "--where", "year = 2021 AND id < 60", "--format", "jsonl", "--columns", "id,tag")
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["id"] for r in rows] == want.column("id").to_pylist()
    assert [r["tag"] for r in rows] == want.column("tag").to_pylist()
    res = cli.run_checked("cat", str(hive) + "/year=2022/**/*.parquet", "--format", "csv", "--columns", "year")
    assert set(res.stdout.splitlines()[1:]) == {"2022"}
    res = cli.run_checked("ls", hive)
    lines = res.stdout.splitlines()
    files = parq.dataset(hive).files
    assert [line.split()[-1] for line in lines[1 : 1 + len(files)]] == files
    assert lines[1 + len(files)].split()[0] == str(pq.read_table(hive).num_rows)
    _, options = s3
    args = [a for k, v in options.items() for a in ("--storage-option", f"{k}={v}")]
    res = cli.run_checked("cat", "s3://bucket/t/", "--where", "tag = 'a'", "--format", "jsonl", *args)
    assert len(res.stdout.splitlines()) == want_rows(hive, [("tag", "=", "a")])
    res = cli.run("cat", "s3://no-such-bucket/t/", *args)
    assert res.returncode == 1 and "no-such-bucket" in res.stderr
    res = cli.run("cat", str(hive), "--row-groups", "0")
    assert res.returncode == 1 and "--row-groups" in res.stderr


def test_cli_convert_schema_meta_of_datasets(parq_bin, hive, tmp_path):
    import json

    from conftest import Parq

    cli = Parq(parq_bin)
    out = tmp_path / "merged.parquet"
    cli.run_checked("convert", hive, out, "--where", "tag != 'a'", "--compression", "zstd")
    want = plain(pq.read_table(hive, partitioning="hive", filters=[("tag", "!=", "a")]))
    assert_same(pq.read_table(out), want)
    arrow_out = tmp_path / "merged.arrow"
    cli.run_checked("convert", hive, arrow_out, "--partitioning", "none")
    with pa.ipc.open_file(arrow_out) as f:
        assert f.read_all().equals(parq.read_table(hive, partitioning=None))
    res = cli.run_checked("schema", hive)
    assert [line.split(":")[0].strip() for line in res.stdout.splitlines()[1:]] == parq.dataset(hive).schema.names
    docs = json.loads(cli.run_checked("meta", hive, "--json").stdout)
    files = parq.dataset(hive).files
    assert [d["file"] for d in docs] == files
    assert [d["metadata"]["num_rows"] for d in docs] == [pq.ParquetFile(f).metadata.num_rows for f in files]
    res = cli.run("meta", hive, "--page-index")
    assert res.returncode == 1 and "--page-index" in res.stderr


def want_rows(root, filters) -> int:
    return pq.read_table(root, partitioning="hive", filters=filters).num_rows


# ---- writing ----

def test_write_to_dataset_read_by_pyarrow_duckdb_polars(tmp_path):
    t = table(200)
    root = tmp_path / "w"
    files = parq.write_to_dataset(t, root, partition_cols=["year", "tag"], max_rows_per_file=7,
                                  basename_template="chunk-{i}.parquet", compression="zstd")
    assert files and all(os.path.isfile(f) for f in files)
    assert any(f.endswith("chunk-2.parquet") for f in files)
    for f in files:
        assert pq.ParquetFile(f).metadata.num_rows <= 7
        assert pq.read_schema(f).names == ["id", "name", "v"]
    assert {Path(f).parent.name for f in files} == {"tag=a", "tag=b%2Fc%20d", "tag=__HIVE_DEFAULT_PARTITION__", "tag=x%3Dy"}
    want = plain(t).sort_by("id")
    back = plain(pq.read_table(root, partitioning="hive")).select(t.column_names).sort_by("id")
    assert back.cast(want.schema).equals(want)
    assert_same(parq.read_table(root).select(t.column_names).sort_by("id"), back)
    n = duckdb.sql(f"select count(*), sum(id) from read_parquet('{root}/**/*.parquet', hive_partitioning=true)").fetchall()[0]
    assert n == (200, sum(range(200)))
    pl_back = pl.read_parquet(str(root) + "/**/*.parquet", hive_partitioning=True).sort("id")
    assert pl_back["id"].to_list() == list(range(200))
    assert pl_back["tag"].to_list() == want.column("tag").to_pylist()
    # A second write adds files beside the first; an explicit name that exists is an error.
    more = parq.write_to_dataset(t.slice(0, 10), root, partition_cols=["year", "tag"])
    assert not set(more) & set(files)
    assert parq.read_table(root).num_rows == 210
    with pytest.raises(parq.ParquetError, match="chunk-0.parquet"):
        parq.write_to_dataset(t, root, partition_cols=["year", "tag"], basename_template="chunk-{i}.parquet")
    with pytest.raises(parq.ParquetError, match="no column `nope`"):
        parq.write_to_dataset(t, tmp_path / "x", partition_cols=["nope"])


def test_write_to_dataset_in_s3(s3):
    fs, options = s3
    t = table(90)
    files = parq.write_to_dataset(t, "s3://bucket/written/", partition_cols=["year"], storage_options=options)
    assert all(f.startswith("s3://bucket/written/year=") for f in files)
    back = plain(pq.read_table("bucket/written", filesystem=fs, partitioning="hive")).sort_by("id")
    want = plain(t).select(back.column_names).sort_by("id")
    assert back.cast(want.schema).equals(want)
    assert_same(parq.read_table("s3://bucket/written", storage_options=options).sort_by("id"), back)


# ---- requests, through a proxy that delays each one (scripts/latency_proxy.py) ----

def test_requests_counted_through_a_latency_proxy(s3, hive):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from latency_proxy import LatencyProxy

    fs, options = s3
    # A prefix of its own: no footer of it is in parq's cache yet.
    files = sorted(p for p in hive.rglob("*.parquet") if "_temporary" not in str(p))
    for p in files:
        with fs.open_output_stream(f"bucket/counted/{p.relative_to(hive).as_posix()}") as out:
            out.write(p.read_bytes())
    proxy = LatencyProxy(options["aws_endpoint_url"], delay_ms=5)
    try:
        via = dict(options, aws_endpoint_url=proxy.url)
        filters = [("year", "=", 2021)]
        want = pq.read_table(hive, partitioning="hive", filters=filters)
        proxy.stats.reset()
        assert_same(parq.read_table("s3://bucket/counted/", storage_options=via, filters=filters), want)
        first = proxy.stats.snapshot()
        proxy.stats.reset()
        assert_same(parq.read_table("s3://bucket/counted/", storage_options=via, filters=filters), want)
        second = proxy.stats.snapshot()
        # The second query reads no footer: one request fewer per file (each footer is one
        # request: the 64 KiB tail holds it), and no HEAD (the listing gives the sizes).
        assert first["requests"] - second["requests"] == len(files), (first, second)
        assert "HEAD" not in first["by_method"]
        kept = [p for p in files if "year=2021" in str(p)]
        assert all(pq.ParquetFile(p).num_row_groups == 1 for p in kept)
        # The listing, then one request per row group of the kept files (its column chunks
        # fetched together), none of the others.
        assert second["requests"] == 1 + len(kept), second
        pa_fs = pafs.S3FileSystem(
            access_key="testing", secret_key="testing", endpoint_override=proxy.url, scheme="http", region="us-east-1"
        )
        proxy.stats.reset()
        assert_same(pq.read_table("bucket/counted", filesystem=pa_fs, partitioning="hive", filters=filters), want)
        theirs = proxy.stats.snapshot()
        print(f"requests: parq {first['requests']} then {second['requests']} (cached footers), pyarrow {theirs['requests']}")
    finally:
        proxy.close()


# ---- HTTP: the range server of the async reader's tests, on 127.0.0.1 ----

def test_http_objects_and_lists_equal_pyarrow(hive):
    script = Path(__file__).resolve().parents[2] / "crates" / "parq" / "tests" / "read_async.py"
    proc = subprocess.Popen([sys.executable, str(script), str(hive)], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline().strip())
        files = sorted(p for p in hive.rglob("*.parquet") if "_temporary" not in str(p))
        # The directory names hold `%` (pyarrow's encoding of `/` and spaces): quoted in URLs.
        urls = [f"http://127.0.0.1:{port}/{urllib.parse.quote(p.relative_to(hive).as_posix())}" for p in files]
        # One object: no partition columns.
        assert_same(parq.read_table(urls[0]), pq.read_table(files[0]))
        # A list of URLs: partitions from the key=value parts of each path, in the list's order.
        want = ds.dataset([str(p) for p in files], format="parquet", partitioning="hive").to_table()
        got = parq.read_table(urls)
        assert got.column_names[-2:] == ["year", "tag"]
        # Percent-encoded directories are decoded once, as pyarrow decodes them from disk.
        assert_same(got, want)
        f = [("year", "=", 2022), ("id", ">", 40)]
        assert_same(parq.read_table(urls, filters=f), ds.dataset([str(p) for p in files], format="parquet", partitioning="hive").to_table(filter=(pc.field("year") == 2022) & (pc.field("id") > 40)))
        with pytest.raises(FileNotFoundError):
            parq.read_table(f"http://127.0.0.1:{port}/no/such.parquet")
    finally:
        proc.kill()
        proc.wait()
