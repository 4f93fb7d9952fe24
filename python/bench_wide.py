"""Reads 100 named columns of a wide file with parq, pyarrow and polars from Python; prints
median times and parq's speedups; also ``ParquetFile(path).read(columns=names)`` of parq and
pyarrow.

    python python/bench_wide.py [--columns N[,N]] [--rounds N] [--dir DIR]

The files: N float32 columns of 20 row groups x 1,000 rows (the footer benchmark's shape),
written once by parq (with its footer index) and by pyarrow (none) into DIR. Each read is
``parq.read_table(path, columns=names)``, ``pq.read_table(path, columns=names)`` and
``pl.read_parquet(path, columns=names)`` (and ``ParquetFile(path).read(columns=names)`` of
parq and pyarrow), 100 names spread over the schema, interleaved
round by round, every result's shape checked. pyarrow and polars decode the whole footer
(Thrift has no lengths: every reader walks every column's metadata); parq decodes the
footer of the columns named, through the footer index where the file has one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# The installed parq (built by scripts/venv.sh), not the sources beside this script.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import parq  # noqa: E402

ROW_GROUPS = 20
ROWS = 1000
SELECTED = 100


def write_files(columns: int, work: str) -> dict[str, str]:
    """The two files of `columns` columns (written once, reused)."""
    paths = {w: os.path.join(work, f"wide_{columns}_{w}.parquet") for w in ("parq", "pyarrow")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    rng = np.random.default_rng(columns)
    names = [f"col_{i}" for i in range(columns)]
    schema = pa.schema([(n, pa.float32()) for n in names])
    tmp = {w: p + ".tmp" for w, p in paths.items()}
    with parq.ParquetWriter(tmp["parq"], schema) as pw, pq.ParquetWriter(tmp["pyarrow"], schema) as aw:
        for _ in range(ROW_GROUPS):
            data = rng.random((columns, ROWS), dtype=np.float32)
            batch = pa.record_batch([pa.array(c) for c in data], schema=schema)
            table = pa.Table.from_batches([batch])
            pw.write_table(table)
            aw.write_table(table, row_group_size=ROWS)
    for w in paths:
        os.replace(tmp[w], paths[w])
    return paths


def timed(f) -> float:
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--columns", default="10000")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    work = args.dir or os.path.join(tempfile.gettempdir(), "parq-bench-wide")
    os.makedirs(work, exist_ok=True)
    reads = {
        "parq": lambda p, c: parq.read_table(p, columns=c),
        "pyarrow": lambda p, c: pq.read_table(p, columns=c),
        "polars": lambda p, c: pl.read_parquet(p, columns=c),
        "parq file": lambda p, c: parq.ParquetFile(p).read(columns=c),
        "pyarrow file": lambda p, c: pq.ParquetFile(p).read(columns=c),
    }
    print(f"Reading {SELECTED} named float32 columns ({ROW_GROUPS} row groups x {ROWS} rows), median ms of {args.rounds} interleaved rounds")
    print(
        "| columns | file by | parq | pyarrow | polars | parq vs pyarrow | parq vs polars | parq vs fastest peer "
        "| parq ParquetFile | pyarrow ParquetFile | ParquetFile speedup |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in args.columns.split(",")]:
        paths = write_files(n, work)
        names = [f"col_{i}" for i in range(0, n, max(1, n // SELECTED))][:SELECTED]
        times: dict[tuple[str, str], list[float]] = {}
        for by, p in paths.items():
            for impl, f in reads.items():
                got = f(p, names)
                shape = (got.height, got.width) if impl == "polars" else (got.num_rows, got.num_columns)
                assert shape == (ROW_GROUPS * ROWS, len(names)), (impl, by, shape)
        for _ in range(args.rounds):
            for by, p in paths.items():
                for impl, f in reads.items():
                    times.setdefault((by, impl), []).append(timed(lambda: f(p, names)))
        for by in paths:
            m = {impl: statistics.median(times[(by, impl)]) for impl in reads}
            peer = min(m["pyarrow"], m["polars"])
            print(
                f"| {n:,} | {by} | {m['parq']:.1f} | {m['pyarrow']:.1f} | {m['polars']:.1f} "
                f"| {m['pyarrow'] / m['parq']:.1f}x | {m['polars'] / m['parq']:.1f}x | {peer / m['parq']:.1f}x "
                f"| {m['parq file']:.1f} | {m['pyarrow file']:.1f} | {m['pyarrow file'] / m['parq file']:.1f}x |"
            )


if __name__ == "__main__":
    main()
