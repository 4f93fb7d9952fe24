"""Writes Parquet files with the peers installed in the test venv (pyarrow, DuckDB, polars,
fastparquet), covering flat and nested schemas, logical types, statistics, page indexes, bloom
filters and several codecs, into the directory given as the first argument."""

import datetime
import decimal
import sys
from pathlib import Path

import duckdb
import fastparquet
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

out = Path(sys.argv[1])
n = 2000
table = pa.table(
    {
        "i8": pa.array([i % 100 - 50 for i in range(n)], pa.int8()),
        "u32": pa.array(range(n), pa.uint32()),
        "i64": pa.array([i * 1_000_003 for i in range(n)], pa.int64()),
        "f32": pa.array([i / 7 for i in range(n)], pa.float32()),
        "f64": pa.array([None if i % 11 == 0 else i / 3 for i in range(n)], pa.float64()),
        "s": pa.array([f"value-{i % 97}" for i in range(n)]),
        "b": pa.array([bytes([i % 256]) * (i % 5) for i in range(n)], pa.binary()),
        "flag": pa.array([i % 3 == 0 for i in range(n)]),
        "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i) for i in range(n)]),
        "ts": pa.array([i * 1_000_000 for i in range(n)], pa.timestamp("us", tz="UTC")),
        "dec": pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(12, 2)),
        "fixed": pa.array([i.to_bytes(4, "little") for i in range(n)], pa.binary(4)),
        "lst": pa.array([[i, i + 1] if i % 4 else None for i in range(n)], pa.list_(pa.int32())),
        "st": pa.array([{"x": i, "y": str(i)} for i in range(n)]),
        "m": pa.array([[("k", i)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
    }
)

pq.write_table(table, out / "pyarrow-default.parquet", row_group_size=700)
pq.write_table(
    table,
    out / "pyarrow-v1-gzip-pageindex.parquet",
    compression="gzip",
    data_page_version="1.0",
    write_page_index=True,
    row_group_size=500,
)
pq.write_table(
    table,
    out / "pyarrow-zstd-nostats-sorting.parquet",
    compression="zstd",
    write_statistics=False,
    sorting_columns=[pq.SortingColumn(1)],
)
pq.write_table(
    table.select(["i64", "s"]),
    out / "pyarrow-bloom.parquet",
    bloom_filter_options={"i64": {"ndv": 1000}},
    store_schema=False,
)

con = duckdb.connect()
con.register("t", table.select(["i8", "u32", "i64", "f64", "s", "flag", "d", "dec", "lst", "st"]))
con.execute(f"COPY t TO '{out / 'duckdb.parquet'}' (FORMAT parquet, ROW_GROUP_SIZE 1000)")
con.execute(f"COPY t TO '{out / 'duckdb-zstd.parquet'}' (FORMAT parquet, COMPRESSION zstd)")

df = pl.from_arrow(table.select(["i8", "u32", "i64", "f32", "s", "flag", "d", "ts", "lst", "st"]))
df.write_parquet(out / "polars.parquet", row_group_size=800, statistics=True)
df.write_parquet(out / "polars-lz4.parquet", compression="lz4")

pdf = pd.DataFrame({"a": range(n), "b": [f"s{i}" for i in range(n)], "c": [i / 2 for i in range(n)]})
fastparquet.write(str(out / "fastparquet.parquet"), pdf, row_group_offsets=600)
fastparquet.write(str(out / "fastparquet-snappy.parquet"), pdf, compression="SNAPPY", stats=True)
