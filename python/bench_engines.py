"""Dask and Ray Data reading Parquet with parq (``parq.dask``, ``parq.ray``) against each
engine's own Parquet reader (pyarrow), on the same files in the same run.

    python python/bench_engines.py [--rows-per-file 2000000] [--wide-rows 2000] [--rounds 3]
        [--workers 2] [--only dask|ray]

Data, written once by pyarrow (SNAPPY) under ``target/bench-engines``: a dataset of 16
files of ``--rows-per-file`` rows (1 GB with the default; row groups of 500,000 rows; ``id``
int64 sorted, ``x`` double, ``k`` int32, ``s`` a string of 2,000 words, ``t`` a 24-character
string), and a wide table of 10,000 double columns and ``--wide-rows`` rows (one row group).

Queries: the whole dataset; 100 columns (every 100th) of the wide table. Dask runs on a
``distributed.LocalCluster`` of ``--workers`` worker processes of one thread; each query
materializes every partition on the workers (``map_partitions`` of a function touching
every column, so no column is dropped) and brings back only a row count. Ray runs on
``ray.init(num_cpus=--workers)``; each query is ``materialize()`` (every block in the
object store), then the row count. The readers of one query are interleaved round by round
after a warm-up round; the median of each is reported, with parq's speedup (their median
over parq's). Row counts are checked equal.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

WIDE_COLUMNS = 10_000
FILES = 16


def generate(root: Path, rows: int) -> tuple[Path, int]:
    """The dataset of ``rows`` rows per file (about 32 bytes a row on disk): its directory
    and row count."""
    d = root / f"d{rows}"
    stamp = d / ".done"
    if not stamp.exists():
        d.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(7)
        words = np.array([f"word-{i:05d}" for i in range(2000)])
        for i in range(FILES):
            t = pa.table(
                {
                    "id": pa.array(np.arange(i * rows, (i + 1) * rows, dtype=np.int64)),
                    "x": pa.array(rng.random(rows)),
                    "k": pa.array(rng.integers(0, 1000, rows).astype(np.int32)),
                    "s": pa.array(words[rng.integers(0, 2000, rows)]),
                    "t": pa.array(np.char.mod("%024x", rng.integers(0, 2**62, rows))),
                }
            )
            pq.write_table(t, d / f"f{i:03d}.parquet", row_group_size=500_000, compression="snappy")
        stamp.write_text("")
    return d, rows * FILES


def generate_wide(root: Path, rows: int) -> Path:
    d = root / f"wide{rows}"
    stamp = d / ".done"
    if not stamp.exists():
        d.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(11)
        data = rng.random((WIDE_COLUMNS, rows))
        t = pa.table({f"c{j:05d}": pa.array(data[j]) for j in range(WIDE_COLUMNS)})
        pq.write_table(t, d / "wide.parquet", row_group_size=rows, compression="snappy")
        stamp.write_text("")
    return d


def touch(frame) -> int:
    """Every column's buffers reached; the frame's row count."""
    frame.memory_usage(deep=False).sum()
    return len(frame)


def run(name: str, readers: dict, rounds: int, rows: int) -> dict:
    times: dict[str, list[float]] = {k: [] for k in readers}
    for r in range(rounds + 1):
        for k, fn in readers.items():
            t0 = time.perf_counter()
            n = fn()
            dt = time.perf_counter() - t0
            if n != rows:
                raise SystemExit(f"{name}: {k} gave {n} rows, expected {rows}")
            if r:
                times[k].append(dt)
    med = {k: statistics.median(v) for k, v in times.items()}
    return med


def queries(read_parq, read_theirs, theirs: str, args, data, rows, wide, wide_rows, cols) -> list[tuple]:
    """The two queries, each reader a function of (path, columns) giving a row count."""
    out = []
    for query, path, columns, n in [
        ("full read", data, None, rows),
        ("wide, 100 of 10,000 columns", wide, cols, wide_rows),
    ]:
        med = run(
            query,
            {"parq": lambda: read_parq(str(path), columns), theirs: lambda: read_theirs(str(path), columns)},
            args.rounds,
            n,
        )
        out.append((query, med))
    return out


def dask_bench(args, *data) -> list[tuple]:
    import dask.dataframe as dd
    import distributed

    import parq.dask

    def count(df) -> int:
        return int(df.map_partitions(touch, meta=(None, "int64")).compute().sum())

    cluster = distributed.LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
    )
    try:
        with distributed.Client(cluster):
            results = queries(
                lambda p, c: count(parq.dask.read_parquet(p, columns=c)),
                lambda p, c: count(dd.read_parquet(p, columns=c)),
                "dask (pyarrow)",
                args,
                *data,
            )
    finally:
        cluster.close()
    return [("Dask", q, med) for q, med in results]


def ray_bench(args, *data) -> list[tuple]:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray
    import ray.data

    import parq.ray

    def count(ds) -> int:
        return ds.materialize().count()

    ray.init(num_cpus=args.workers, include_dashboard=False, _node_ip_address="127.0.0.1",
             log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    def read(ds, columns):
        # The columns through Ray's optimizer, which pushes them into either reader.
        return ds if columns is None else ds.select_columns(columns)

    try:
        results = queries(
            lambda p, c: count(read(parq.ray.read_parquet(p), c)),
            lambda p, c: count(read(ray.data.read_parquet(p), c)),
            "ray (pyarrow)",
            args,
            *data,
        )
    finally:
        ray.shutdown()
    return [("Ray Data", q, med) for q, med in results]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows-per-file", type=int, default=2_000_000)
    ap.add_argument("--wide-rows", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", default=str(ROOT / "target" / "bench-engines"))
    ap.add_argument("--only", choices=["dask", "ray"], default=None)
    args = ap.parse_args()

    root = Path(args.dir)
    data, rows = generate(root, args.rows_per_file)
    wide = generate_wide(root, args.wide_rows)
    size = sum(p.stat().st_size for p in data.glob("*.parquet"))
    wsize = sum(p.stat().st_size for p in wide.glob("*.parquet"))
    print(f"dataset: {FILES} files, {rows:,} rows, {size / 1e6:.0f} MB; wide: {WIDE_COLUMNS:,} columns x "
          f"{args.wide_rows:,} rows, {wsize / 1e6:.0f} MB; {args.workers} workers, {args.rounds} rounds", flush=True)
    cols = [f"c{j:05d}" for j in range(0, WIDE_COLUMNS, 100)]
    results = []
    if args.only in (None, "dask"):
        results += dask_bench(args, data, rows, wide, args.wide_rows, cols)
    if args.only in (None, "ray"):
        results += ray_bench(args, data, rows, wide, args.wide_rows, cols)
    print()
    print("| engine | query | parq (s) | engine's reader (s) | parq speedup |")
    print("|---|---|---:|---:|---:|")
    for engine, query, med in results:
        (pk, pt), (ok, ot) = list(med.items())
        print(f"| {engine} | {query} | {pt:.3f} | {ot:.3f} | {ot / pt:.2f}x |")


if __name__ == "__main__":
    main()
