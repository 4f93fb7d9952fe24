"""Datasets from an object store with latency, and from local disk: parq against
``pyarrow.dataset`` and polars ``scan_parquet``, on the same files.

    python python/bench_dataset.py [--files 200] [--rows-per-file 250000] [--delay-ms 20] [--rounds 3]
        [--only s3|local]

The dataset: ``--files`` files in 10 hive partitions (``part=0`` .. ``part=9``), each of
``--rows-per-file`` rows in row groups of 50,000 (``id`` int64 sorted across the dataset,
``x`` double, ``k`` int32, ``s`` a string of 2,000 words, ``t`` a 24-character string),
written once by pyarrow (SNAPPY) under ``target/bench-dataset``. moto's S3 server runs on
127.0.0.1 with ``scripts/latency_proxy.py`` in front of it, which holds every request
``--delay-ms`` before forwarding it and counts requests and bytes; both are stopped at the
end.

Queries: the full table; a partition (``part = 3``); a selective range of the sorted
``id`` (1,000 rows). Each query's reads are interleaved round by round and the median is
reported with the requests and bytes of one run. parq is measured cold (its footer cache
cleared before each run, as the peers keep none) and warm (footers cached), and cold with
``union_by_name=False``: the first file's schema, as ``pyarrow.dataset`` takes it, so that
only the footers of the files a query reads are read. Every result's row count is checked
against pyarrow's.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
import json
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
import pyarrow.dataset as ds  # noqa: E402
import pyarrow.fs as pafs  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import parq  # noqa: E402

KEY = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "aws_region": "us-east-1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.time() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                raise RuntimeError(f"nothing listens on {port}")
            time.sleep(0.2)


def generate(root: Path, files: int, rows: int) -> None:
    stamp = root / f".done-{files}-{rows}"
    if stamp.exists():
        return
    rng = np.random.default_rng(7)
    words = np.array([f"word-{i:05d}" for i in range(2000)])
    per_part = max(1, files // 10)
    for i in range(files):
        part = min(i // per_part, 9)
        start = i * rows
        t = pa.table(
            {
                "id": pa.array(np.arange(start, start + rows, dtype=np.int64)),
                "x": pa.array(rng.random(rows)),
                "k": pa.array(rng.integers(0, 1000, rows).astype(np.int32)),
                "s": pa.array(words[rng.integers(0, 2000, rows)]),
                "t": pa.array([f"{v:024x}" for v in rng.integers(0, 2**62, rows)]),
            }
        )
        d = root / f"part={part}"
        d.mkdir(parents=True, exist_ok=True)
        pq.write_table(t, d / f"f{i:04d}.parquet", row_group_size=50_000, compression="snappy")
    stamp.write_text("")


def stats(proxy: str) -> dict:
    with urllib.request.urlopen(f"{proxy}/__proxy/stats") as r:
        return json.loads(r.read())


def reset(proxy: str) -> None:
    urllib.request.urlopen(urllib.request.Request(f"{proxy}/__proxy/reset", method="POST")).read()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--rows-per-file", type=int, default=250_000)
    ap.add_argument("--delay-ms", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default=str(ROOT / "target" / "bench-dataset"))
    ap.add_argument("--only", choices=["s3", "local"], default=None, help="one of the two places")
    args = ap.parse_args()

    local = Path(args.dir) / f"d{args.files}x{args.rows_per_file}"
    generate(local, args.files, args.rows_per_file)
    size = sum(p.stat().st_size for p in local.rglob("*.parquet"))
    print(f"dataset: {args.files} files, {args.files * args.rows_per_file:,} rows, {size / 1e6:.0f} MB; "
          f"latency {args.delay_ms:g} ms per request", flush=True)

    procs = []
    try:
        moto_port = free_port()
        moto = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(moto_port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(moto)
        wait_port(moto_port, moto)
        moto_url = f"http://127.0.0.1:{moto_port}"
        proxy_port = free_port()
        proxy = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "latency_proxy.py"), "--upstream", moto_url,
                                  "--delay-ms", str(args.delay_ms), "--port", str(proxy_port)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proxy)
        wait_port(proxy_port, proxy)
        proxy_url = f"http://127.0.0.1:{proxy_port}"

        direct = pafs.S3FileSystem(access_key="testing", secret_key="testing", endpoint_override=moto_url,
                                   scheme="http", region="us-east-1", allow_bucket_creation=True)
        direct.create_dir("bench")
        t0 = time.time()
        pafs.copy_files(str(local), "bench/d", destination_filesystem=direct)
        print(f"uploaded to moto in {time.time() - t0:.0f} s", flush=True)
        s3 = pafs.S3FileSystem(access_key="testing", secret_key="testing", endpoint_override=proxy_url,
                               scheme="http", region="us-east-1")
        opts = dict(KEY, aws_endpoint_url=proxy_url, aws_allow_http="true")
        pl_opts = dict(KEY, aws_endpoint_url=proxy_url, aws_allow_http="true")

        total = args.files * args.rows_per_file
        lo = total // 2 + 12_345
        queries = {
            "full": (None, None, None),
            "partition": ([("part", "=", 3)], pc.field("part") == 3, pl.col("part") == 3),
            "selective": ([("id", ">=", lo), ("id", "<", lo + 1000)],
                          (pc.field("id") >= lo) & (pc.field("id") < lo + 1000),
                          (pl.col("id") >= lo) & (pl.col("id") < lo + 1000)),
        }

        def runners(where: str):
            src = "s3://bench/d/" if where == "s3" else str(local)
            pa_src, pa_fs = ("bench/d", s3) if where == "s3" else (str(local), None)
            pl_src = "s3://bench/d/**/*.parquet" if where == "s3" else str(local) + "/**/*.parquet"
            pl_kw = {"storage_options": pl_opts} if where == "s3" else {}
            so = opts if where == "s3" else None

            def parq_runner(cold: bool, union_by_name: bool = True):
                def run(q):
                    if cold:
                        parq.clear_metadata_cache()
                    return parq.read_table(src, filters=q[0], storage_options=so,
                                           union_by_name=union_by_name).num_rows
                return run

            def pyarrow_ds(q):
                d = ds.dataset(pa_src, filesystem=pa_fs, format="parquet", partitioning="hive")
                return d.to_table(filter=q[1]).num_rows

            def polars_scan(q):
                lf = pl.scan_parquet(pl_src, hive_partitioning=True, **pl_kw)
                if q[2] is not None:
                    lf = lf.filter(q[2])
                return lf.collect().height

            return {"parq (cold)": parq_runner(cold=True), "parq (warm)": parq_runner(cold=False),
                    "parq (cold, first file's schema)": parq_runner(cold=True, union_by_name=False),
                    "pyarrow.dataset": pyarrow_ds, "polars": polars_scan}

        for where in [w for w in ["s3", "local"] if args.only in (None, w)]:
            print(f"\n## {'S3 (moto) at %g ms per request' % args.delay_ms if where == 's3' else 'local disk'}")
            print("| query | reader | median ms | requests | MB read | vs parq (cold) |")
            print("|---|---|---:|---:|---:|---:|")
            impls = runners(where)
            for qname, q in queries.items():
                want = None
                times = {name: [] for name in impls}
                counts = {}
                for r in range(args.rounds):
                    for name, fn in impls.items():
                        if where == "s3":
                            reset(proxy_url)
                        t = time.perf_counter()
                        n = fn(q)
                        times[name].append(time.perf_counter() - t)
                        if where == "s3" and r == 0:
                            counts[name] = stats(proxy_url)
                        if want is None:
                            want = n
                        if n != want:
                            raise SystemExit(f"{name} read {n} rows for {qname}, others {want}")
                base = statistics.median(times["parq (cold)"])
                for name in impls:
                    med = statistics.median(times[name])
                    c = counts.get(name)
                    req = str(c["requests"]) if c else "-"
                    mb = f"{c['bytes'] / 1e6:.1f}" if c else "-"
                    print(f"| {qname} ({want:,} rows) | {name} | {med * 1000:.0f} | {req} | {mb} | {med / base:.2f}x |",
                          flush=True)
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    main()
