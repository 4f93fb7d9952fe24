"""Lists the files of the real-world corpus (argv[1], with its MANIFEST.tsv) that pyarrow
reads and that were written by parquet-mr / parquet-java, pyarrow (parquet-cpp-arrow),
DuckDB or polars, as their footers' created_by says: one `path<TAB>created_by` per line."""

import csv
import os
import sys

import pyarrow.parquet as pq

root = sys.argv[1]
WRITERS = ("parquet-mr", "parquet-java", "parquet-cpp-arrow", "duckdb", "polars")
with open(os.path.join(root, "MANIFEST.tsv")) as f:
    for row in csv.DictReader(f, delimiter="\t"):
        if row["pyarrow_read"] != "ok":
            continue
        p = os.path.join(root, row["path"])
        try:
            created = pq.ParquetFile(p).metadata.created_by or ""
        except Exception:
            continue
        if created.lower().startswith(WRITERS):
            print(f"{p}\t{created}")
