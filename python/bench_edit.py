"""Merging and appending Parquet files: parq against pyarrow, DuckDB and polars, from Python;
prints median times and parq's speedups.

    python python/bench_edit.py [--files N] [--rows N] [--rounds N] [--dir DIR]

The inputs: N files written by pyarrow (SNAPPY, dictionary, page index) of an int64 id, a
float64, a dictionary-friendly string and a distinct string, ROWS rows each. Merge cases,
interleaved round by round:

- ``parq.merge(files, out)``: row groups copied byte for byte;
- pyarrow: each file read and written by one ``pq.ParquetWriter`` (decode and encode);
- DuckDB: ``COPY (SELECT * FROM read_parquet([...])) TO out (FORMAT parquet)``;
- polars: ``pl.scan_parquet(files).sink_parquet(out)``;
- the floor: the input files' bytes copied into one file (``shutil.copyfileobj``) and
  synced, as parq syncs its output: what a byte-for-byte merge cannot beat.

Each peer encodes with its own default codec (SNAPPY for pyarrow and DuckDB, ZSTD for
polars).

Append cases add one file's rows to a copy of the merged file: ``parq.ParquetWriter(path,
schema, append=True)`` (the old bytes copied to a temporary file, the new row group and
footer written after them, renamed over the file) against the peers' only way, reading the
old file and writing it again with the new rows (pyarrow), and the floor (the copies the
case makes: the old file's bytes twice, one synced). Every output's row count is checked.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

# The installed parq (built by scripts/venv.sh), not the sources beside this script.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import duckdb  # noqa: E402
import polars as pl  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import parq  # noqa: E402


def write_inputs(work: str, files: int, rows: int) -> list[str]:
    paths = []
    for k in range(files):
        start = k * rows
        t = pa.table(
            {
                "id": pa.array(range(start, start + rows), pa.int64()),
                "x": pa.array([i * 0.25 for i in range(start, start + rows)], pa.float64()),
                "tag": pa.array([f"tag-{i % 100}" for i in range(start, start + rows)]),
                "text": pa.array([f"row {i} of the bench" for i in range(start, start + rows)]),
            }
        )
        p = os.path.join(work, f"in-{k}.parquet")
        pq.write_table(t, p, row_group_size=1 << 20, write_page_index=True)
        paths.append(p)
    return paths


def rows_of(path: str) -> int:
    return pq.ParquetFile(path).metadata.num_rows


def merge_cases(files: list[str], out: str) -> dict:
    def parq_merge():
        parq.merge(files, out)

    def pyarrow_merge():
        schema = pq.read_schema(files[0])
        with pq.ParquetWriter(out, schema, write_page_index=True) as w:
            for f in files:
                w.write_table(pq.read_table(f))

    def duckdb_merge():
        names = ", ".join(f"'{f}'" for f in files)
        duckdb.sql(f"COPY (SELECT * FROM read_parquet([{names}])) TO '{out}' (FORMAT parquet)")

    def polars_merge():
        pl.scan_parquet(files).sink_parquet(out)

    def floor():
        with open(out, "wb") as o:
            for f in files:
                with open(f, "rb") as i:
                    shutil.copyfileobj(i, o, 1 << 20)
            o.flush()
            os.fsync(o.fileno())

    return {
        "parq": parq_merge,
        "pyarrow": pyarrow_merge,
        "duckdb": duckdb_merge,
        "polars": polars_merge,
        "floor (byte copy, synced)": floor,
    }


def append_cases(base: str, target: str, extra: pa.Table) -> dict:
    def parq_append():
        shutil.copyfile(base, target)
        with parq.ParquetWriter(target, extra.schema, append=True) as w:
            w.write_table(extra)

    def pyarrow_rewrite():
        shutil.copyfile(base, target)
        old = pq.read_table(target)
        pq.write_table(pa.concat_tables([old, extra]), target, write_page_index=True)

    def floor():
        shutil.copyfile(base, target)
        shutil.copyfile(base, target + ".copy")
        with open(target + ".copy", "rb+") as f:
            os.fsync(f.fileno())

    return {"parq": parq_append, "pyarrow (read and write again)": pyarrow_rewrite, "floor (two copies, one synced)": floor}


def run(cases: dict, rounds: int, check) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
            check(name)
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(title: str, medians: dict[str, float]) -> None:
    parq_t = medians["parq"]
    print(f"\n{title}")
    print(f"{'case':34} {'median ms':>10} {'parq speedup':>13}")
    for name, t in medians.items():
        speedup = "" if name == "parq" else f"{t / parq_t:12.2f}x"
        print(f"{name:34} {t * 1000:10.1f} {speedup:>13}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    work = args.dir or tempfile.mkdtemp(prefix="parq-bench-edit-")
    os.makedirs(work, exist_ok=True)
    files = write_inputs(work, args.files, args.rows)
    size = sum(os.path.getsize(f) for f in files)
    total = args.files * args.rows
    print(f"{args.files} files, {total:,} rows, {size / 2**20:.1f} MiB (SNAPPY, pyarrow {pa.__version__}, "
          f"duckdb {duckdb.__version__}, polars {pl.__version__})")
    out = os.path.join(work, "merged.parquet")

    def merged(name):
        if name.startswith("floor"):
            return
        n = rows_of(out)
        if n != total:
            raise SystemExit(f"{name}: {n} rows, expected {total}")

    report(f"merge {args.files} files into one", run(merge_cases(files, out), args.rounds, merged))
    parq.merge(files, out)
    extra = pq.read_table(files[0])
    target = os.path.join(work, "target.parquet")

    def appended(name):
        if name.startswith("floor"):
            return
        n = rows_of(target)
        if n != total + args.rows:
            raise SystemExit(f"{name}: {n} rows, expected {total + args.rows}")

    report(f"append {args.rows:,} rows to a file of {total:,}", run(append_cases(out, target, extra), args.rounds, appended))
    if not args.dir:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
