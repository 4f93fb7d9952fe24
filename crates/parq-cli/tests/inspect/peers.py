"""What pyarrow and DuckDB say about a Parquet file, as JSON on stdout, for tests/inspect.rs.

    peers.py footer FILE             pyarrow's footer: serialized_size, created_by,
                                     key-value metadata, total_compressed_size per chunk;
                                     DuckDB's parquet_metadata() Bloom filter lengths
    peers.py dictionary FILE COLUMN  pyarrow's dictionary of COLUMN per row group
                                     (read_dictionary), as lists of values
    peers.py bloom FILE COLUMN V...  DuckDB's parquet_bloom_probe() per value: the row groups
                                     whose filter excludes it
    peers.py write_bloom OUT         writes, with DuckDB, a file of 3 row groups whose
                                     dictionary-encoded columns carry Bloom filters
"""

import json
import sys

import duckdb
import pyarrow.parquet as pq


def footer(path):
    md = pq.ParquetFile(path).metadata
    kv = md.metadata or {}
    chunks = [
        md.row_group(i).column(j).total_compressed_size
        for i in range(md.num_row_groups)
        for j in range(md.num_columns)
    ]
    con = duckdb.connect()
    rows = con.execute(
        "SELECT bloom_filter_length FROM parquet_metadata(?) WHERE bloom_filter_offset IS NOT NULL",
        [path],
    ).fetchall()
    return {
        "serialized_size": md.serialized_size,
        "created_by": md.created_by,
        "key_value_metadata": [[k.decode("latin-1"), len(k), len(v)] for k, v in kv.items()],
        "total_compressed_size": chunks,
        "num_row_groups": md.num_row_groups,
        "bloom_filter_lengths": [r[0] for r in rows],
    }


def dictionary(path, column):
    f = pq.ParquetFile(path, read_dictionary=[column])
    out = []
    for i in range(f.metadata.num_row_groups):
        t = f.read_row_group(i, columns=[column])
        chunks = t.column(0).chunks
        values = chunks[0].dictionary.to_pylist() if chunks else []
        out.append(values)
    return out


def bloom(path, column, values):
    con = duckdb.connect()
    out = {}
    for v in values:
        rows = con.execute(
            "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)",
            [path, column, v],
        ).fetchall()
        out[v] = sorted(rg for rg, excludes in rows if excludes)
    return out


def write_bloom(out):
    con = duckdb.connect()
    con.execute(
        f"""COPY (SELECT i AS id, 'name_' || (i % 50)::VARCHAR AS name, (i % 40) * 3 AS code,
                  DATE '2024-01-01' + (i % 30)::INTEGER AS day
             FROM range(3000) t(i) ORDER BY i)
           TO '{out}' (FORMAT parquet, ROW_GROUP_SIZE 1000)"""
    )
    return {"written": out}


def main():
    cmd = sys.argv[1]
    if cmd == "footer":
        res = footer(sys.argv[2])
    elif cmd == "dictionary":
        res = dictionary(sys.argv[2], sys.argv[3])
    elif cmd == "bloom":
        res = bloom(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "write_bloom":
        res = write_bloom(sys.argv[2])
    else:
        raise SystemExit(f"unknown command {cmd}")
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
