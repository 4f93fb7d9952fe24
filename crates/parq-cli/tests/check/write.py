"""Writes the files `tests/check.rs` runs `parq check` over, into the directory argv[1]:
files of pyarrow, DuckDB and polars that must check clean (page index, Bloom filters, page
CRCs, v1 and v2 pages, dictionary and plain encodings, nested columns, nulls), and the files
the test corrupts. Prints one JSON object: per file name, what the test needs to know (from
pyarrow's metadata: chunk offsets and sizes, Bloom filter locations, the bytes of chosen
statistics)."""

import json
import os
import struct
import sys

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

out = sys.argv[1]
info = {}


def path(name):
    return os.path.join(out, name)


n = 5000
table = pa.table(
    {
        "id": pa.array(range(n), pa.int64()),
        "small": pa.array([i % 7 for i in range(n)], pa.int32()),
        "f": pa.array([None if i % 11 == 0 else i / 3 - 500 for i in range(n)], pa.float64()),
        "s": pa.array([None if i % 5 == 0 else f"name-{i % 300:04}" for i in range(n)]),
        "u": pa.array([i * 97 % 256 for i in range(n)], pa.uint8()),
        "d": pa.array([i * 13 - 30000 for i in range(n)], pa.decimal128(12, 2)),
        "ts": pa.array([1_600_000_000_000_000 + i for i in range(n)], pa.timestamp("us", "UTC")),
        "b": pa.array([i % 3 == 0 for i in range(n)]),
        "l": pa.array(
            [None if i % 9 == 0 else [j for j in range(i % 4)] for i in range(n)],
            pa.list_(pa.int32()),
        ),
        "st": pa.array(
            [None if i % 13 == 0 else {"x": i, "y": None if i % 2 else str(i)} for i in range(n)],
            pa.struct([("x", pa.int64()), ("y", pa.string())]),
        ),
        "m": pa.array(
            [[("k%d" % j, j) for j in range(i % 3)] for i in range(n)],
            pa.map_(pa.string(), pa.int64()),
        ),
    }
)
blooms = {c: {"ndv": 1000} for c in ["id", "small", "s", "d", "ts"]}
for name, kw in {
    "pyarrow_v1.parquet": dict(data_page_version="1.0"),
    "pyarrow_v2.parquet": dict(data_page_version="2.0"),
    "pyarrow_plain.parquet": dict(use_dictionary=False, compression="zstd"),
    "pyarrow_delta.parquet": dict(
        use_dictionary=False,
        column_encoding={"id": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY", "f": "BYTE_STREAM_SPLIT"},
        data_page_version="2.0",
    ),
}.items():
    pq.write_table(
        table,
        path(name),
        row_group_size=2000,
        data_page_size=4096,
        write_page_index=True,
        write_page_checksum=True,
        bloom_filter_options=blooms,
        **kw,
    )

# DuckDB: its own writer, Bloom filters on dictionary-encoded columns.
con = duckdb.connect()
con.execute(
    f"""COPY (SELECT i AS id, i % 100 AS small, 'v' || (i % 500) AS s,
              CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1.5 END AS f,
              [i, i + 1] AS l, {{'a': i, 'b': 'x' || i}} AS st
          FROM range(30000) t(i))
       TO '{path("duckdb.parquet")}' (FORMAT parquet, ROW_GROUP_SIZE 10000)"""
)

# polars: its own writer (statistics on, several row groups).
pl.DataFrame(
    {
        "id": list(range(n)),
        "s": [None if i % 5 == 0 else f"p{i % 50}" for i in range(n)],
        "f": [i / 7 for i in range(n)],
        "l": [[i, None] for i in range(n)],
    }
).write_parquet(path("polars.parquet"), statistics=True, row_group_size=1500)

# To corrupt: one INT64 chunk of one page, with a CRC, page index, Bloom filter and
# distinctive min and max.
lo, hi = 0x0102030405060708, 0x1122334455667788
vals = [lo + i for i in range(999)] + [hi]
pq.write_table(
    pa.table({"v": pa.array(vals, pa.int64())}),
    path("target.parquet"),
    use_dictionary=False,
    compression="none",
    write_page_index=True,
    write_page_checksum=True,
    bloom_filter_options={"v": {"ndv": 1000}},
)
md = pq.ParquetFile(path("target.parquet")).metadata.row_group(0).column(0)
info["target.parquet"] = {
    "data_page_offset": md.data_page_offset,
    "total_compressed_size": md.total_compressed_size,
    "bloom_filter_offset": md.bloom_filter_offset,
    "bloom_filter_length": md.bloom_filter_length,
    "min": struct.pack("<q", lo).hex(),
    "max": struct.pack("<q", hi).hex(),
}
print(json.dumps(info))
