"""Reads and writes the same files with parq, pyarrow.parquet, polars and DuckDB from
Python, on one thread and on the default threads; prints median times and parq's speedups.

    python python/bench.py [--rounds N] [--rows N] [--cases a,b] [--dir DIR]

Reads: ``parq.read_table`` and ``pq.read_table`` (``use_threads=False`` / ``True``),
interleaved round by round; ``pl.read_parquet`` in a child process (``POLARS_MAX_THREADS=1``,
then its default pool), interleaved there with parq's reads on as many threads (strings as
``string`` and, set against polars, which holds strings as views, ``string_view=True``): the
comparisons with polars use those; then DuckDB ``SELECT *`` to Arrow (``SET threads=1`` / default),
interleaved, after the others so that its idle workers do not run beside their reads. Writes: ``parq.write_table``, ``pq.write_table`` and DuckDB ``COPY``,
interleaved, each with SNAPPY and statistics. Every read's row count is checked.

``pq.read_table(use_threads=False)`` runs on one core only for a file of one row group: with
more (these files have one per million rows), pyarrow's dataset scanner decodes the next row
groups on its IO pool while the first is read. The table gives each one-thread read's process
CPU time over its wall time (``cores``), so a ratio between two ``1t`` columns says how many
cores each spent.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# numpy's OpenBLAS threads spin after the data is generated and take cores from the
# measured reads; no case here does linear algebra.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# The installed parq (built by scripts/venv.sh), not the sources beside this script.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import duckdb  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import parq  # noqa: E402


def cases(rows: int) -> dict[str, pa.Table]:
    rng = np.random.default_rng(42)
    words = np.array([f"word-{i:05d}" for i in range(2000)])
    ints = rng.integers(-(2**40), 2**40, rows)
    nulls = rng.random(rows) < 0.1
    offsets = np.concatenate([[0], np.cumsum(rng.integers(0, 5, rows // 4))]).astype(np.int32)
    return {
        "int64": pa.table({"a": pa.array(ints)}),
        "int64 10% null": pa.table({"a": pa.array(ints, mask=nulls)}),
        "double": pa.table({"a": pa.array(rng.random(rows))}),
        "string dict": pa.table({"a": pa.array(words[rng.integers(0, 2000, rows)])}),
        "string plain": pa.table({"a": pa.array([f"v{x}" for x in rng.integers(0, 10**9, rows // 2)])}),
        "string plain long": pa.table(
            {"a": pa.array([f"comment {x:012d} of a longer value, {x % 977}" for x in rng.integers(0, 10**12, rows // 2)])}
        ),
        "list<int64>": pa.table(
            {"a": pa.ListArray.from_arrays(pa.array(offsets), pa.array(rng.integers(0, 1000, offsets[-1])))}
        ),
        "table": pa.table(
            {
                "id": pa.array(np.arange(rows)),
                "x": pa.array(rng.random(rows)),
                "n": pa.array(rng.integers(0, 100, rows).astype(np.int32), mask=nulls),
                "s": pa.array(words[rng.integers(0, 2000, rows)]),
            }
        ),
    }


def timed(f) -> float:
    return timed_cpu(f)[0]


def timed_cpu(f) -> tuple[float, float]:
    """Wall and process CPU milliseconds of one call (CPU time of every thread)."""
    c, t = time.process_time(), time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


# polars is timed in a child process (one with one thread, one with its default pool),
# which prints its samples and row counts as JSON. parq's reads with strings as `Utf8` and
# as views, on as many threads, are timed in the same child, interleaved with polars' round
# by round, so that parq and polars are compared on the same machine state (the reads in
# the parent run at other times).
POLARS_CHILD = r"""
import json, os, sys, time
sys.path = [p for p in sys.path if p not in ("", os.getcwd())]
import polars as pl
import parq
paths, rounds = json.loads(sys.argv[1]), int(sys.argv[2])
threads = os.environ.get("POLARS_MAX_THREADS") != "1"
reads = {
    "polars": lambda p: pl.read_parquet(p).height,
    "parq": lambda p: parq.read_table(p, use_threads=threads).num_rows,
    "parq sv": lambda p: parq.read_table(p, use_threads=threads, string_view=True).num_rows,
}
out = {}
for p in paths:
    out[p] = {k: {"ms": [], "rows": f(p)} for k, f in reads.items()}
    for r in range(rounds):
        # The order turns each round: a read right after another pays for that one's worker
        # threads still spinning (both pools are rayon's), so no reader always comes first.
        order = list(reads.items())
        for k, f in order[r % len(order):] + order[:r % len(order)]:
            t = time.perf_counter(); f(p); out[p][k]["ms"].append((time.perf_counter() - t) * 1000)
print(json.dumps(out))
"""


def polars_times(paths, rounds, threads1: bool) -> dict[str, dict]:
    env = dict(os.environ)
    if threads1:
        env["POLARS_MAX_THREADS"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", POLARS_CHILD, json.dumps(paths), str(rounds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--rows", type=int, default=4_000_000)
    ap.add_argument("--cases", default="")
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    tables = cases(args.rows)
    if args.cases:
        tables = {k: v for k, v in tables.items() if k in args.cases.split(",")}
    work = args.dir or tempfile.mkdtemp(prefix="parq-bench-py-")
    paths = {}
    for name, t in tables.items():
        p = os.path.join(work, name.replace(" ", "_").replace("<", "_").replace(">", "_") + ".parquet")
        pq.write_table(t, p, compression="snappy", use_dictionary=name == "string dict" or name == "table")
        paths[name] = p
    reads = {
        "parq 1t": lambda p: parq.read_table(p, use_threads=False),
        "pyarrow 1t": lambda p: pq.read_table(p, use_threads=False),
        "parq": lambda p: parq.read_table(p),
        "pyarrow": lambda p: pq.read_table(p),
    }
    times: dict[tuple[str, str], list[float]] = {}
    # CPU milliseconds over wall milliseconds of each one-thread read.
    cores: dict[tuple[str, str], list[float]] = {}
    for name, p in paths.items():
        for impl, f in reads.items():
            got = f(p)
            assert got.num_rows == tables[name].num_rows, (impl, name)
    for _ in range(args.rounds):
        for name, p in paths.items():
            for impl, f in reads.items():
                wall, cpu = timed_cpu(lambda: f(p))
                times.setdefault((name, impl), []).append(wall)
                cores.setdefault((name, impl), []).append(cpu / max(wall, 1e-9))
    # Keys `(case, "polars 1t")`, `(case, "parq 1t @polars")`, ...: the child's reads.
    for threads1, suffix in [(True, " 1t"), (False, "")]:
        got = polars_times(list(paths.values()), args.rounds, threads1)
        for p, by_impl in got.items():
            name = next(k for k, v in paths.items() if v == p)
            for impl, r in by_impl.items():
                label = impl + suffix + ("" if impl == "polars" else " @polars")
                assert r["rows"] == tables[name].num_rows, (label, name)
                times[(name, label)] = r["ms"]
    # DuckDB after the others: its idle workers take a core from the threaded reads timed
    # after its queries (parq's int64 read took 13 ms among them, 9 ms without them).
    con1, con = duckdb.connect(), duckdb.connect()
    con1.execute("SET threads=1")
    duck = {
        "duckdb 1t": lambda p: con1.sql(f"SELECT * FROM '{p}'").to_arrow_table(),
        "duckdb": lambda p: con.sql(f"SELECT * FROM '{p}'").to_arrow_table(),
    }
    for name, p in paths.items():
        for impl, f in duck.items():
            assert f(p).num_rows == tables[name].num_rows, (impl, name)
    for _ in range(args.rounds):
        for name, p in paths.items():
            for impl, f in duck.items():
                times.setdefault((name, impl), []).append(timed(lambda: f(p)))
    writes = {
        "parq": lambda t, p: parq.write_table(t, p, compression="snappy"),
        "pyarrow": lambda t, p: pq.write_table(t, p, compression="snappy"),
        "duckdb": lambda t, p: con.sql("SELECT * FROM t").write_parquet(p, compression="snappy"),
    }
    wtimes: dict[tuple[str, str], list[float]] = {}
    out = os.path.join(work, "out.parquet")
    for _ in range(args.rounds):
        for name, t in tables.items():
            for impl, f in writes.items():
                wtimes.setdefault((name, impl), []).append(timed(lambda: f(t, out)))

    med = {k: statistics.median(v) for k, v in times.items()}
    wmed = {k: statistics.median(v) for k, v in wtimes.items()}
    order = ["parq 1t", "pyarrow 1t", "polars 1t", "duckdb 1t", "parq", "pyarrow", "polars", "duckdb"]
    print(f"Python reads, median ms of {args.rounds} interleaved rounds, {args.rows:,} rows (pq.write_table, SNAPPY)")
    print(
        "| case | " + " | ".join(order) + " | parq 1t vs pyarrow 1t | parq vs pyarrow 1t | parq vs pyarrow "
        "| parq vs polars | parq vs duckdb | parq 1t cores | pyarrow 1t cores |"
    )
    print("|---" * (len(order) + 8) + "|")
    for name in paths:
        cells = [f"{med[(name, o)]:.1f}" for o in order]
        r = lambda a, b: f"{med[(name, b)] / med[(name, a)]:.1f}x"  # noqa: E731
        c = lambda impl: f"{statistics.median(cores[(name, impl)]):.2f}"  # noqa: E731
        print(
            f"| {name} | " + " | ".join(cells) + f" | {r('parq 1t', 'pyarrow 1t')} | {r('parq', 'pyarrow 1t')} "
            f"| {r('parq', 'pyarrow')} "
            f"| {r('parq @polars', 'polars')} | {r('parq', 'duckdb')} | {c('parq 1t')} | {c('pyarrow 1t')} |"
        )
    print()
    print("Strings as views: parq `string_view=True` against polars (which holds strings as views)")
    print("| case | parq sv 1t | polars 1t | parq sv | polars | parq sv 1t vs polars 1t | parq sv vs polars |")
    print("|---|---|---|---|---|---|---|")
    for name in [n for n in paths if n.startswith("string") or n == "table"]:
        a1, p1, a, p = (med[(name, i)] for i in ("parq sv 1t @polars", "polars 1t", "parq sv @polars", "polars"))
        print(f"| {name} | {a1:.1f} | {p1:.1f} | {a:.1f} | {p:.1f} | {p1 / a1:.1f}x | {p / a:.1f}x |")
    print()
    print(f"Python writes, median ms of {args.rounds} interleaved rounds (SNAPPY, statistics)")
    print("| case | parq | pyarrow | duckdb | parq vs pyarrow | parq vs duckdb |")
    print("|---|---|---|---|---|---|")
    for name in tables:
        p, a, d = (wmed[(name, i)] for i in ("parq", "pyarrow", "duckdb"))
        print(f"| {name} | {p:.1f} | {a:.1f} | {d:.1f} | {a / p:.1f}x | {d / p:.1f}x |")


if __name__ == "__main__":
    main()
