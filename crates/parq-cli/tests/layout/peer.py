"""The pyarrow side of tests/layout.rs.

    peer.py wide OUT.parquet NCOLS   writes a file of NCOLS columns in 3 row groups: a mix of
                                     large string columns, numbers, low-cardinality strings
                                     and near-constant integers, with several codecs and
                                     encodings, and a column named like markup;
    peer.py sizes FILE               prints, as JSON, total_compressed_size of every column
                                     chunk: [[rg0col0, rg0col1, ...], [rg1col0, ...], ...].
"""

import json
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROWS_PER_GROUP = 100
GROUPS = 3
MARKUP_NAME = "<script>alert('x')</script> & \"q\""


def wide(out, ncols):
    rng = np.random.default_rng(33)
    rows = ROWS_PER_GROUP * GROUPS
    words = np.array([f"word{i:03d}" for i in range(20)], dtype=object)
    arrays, names, codecs, dict_cols = [], [], {}, []
    for j in range(ncols):
        kind = j % 50
        name = MARKUP_NAME if j == 50 else f"col_{j:05d}"
        if kind == 0:
            # Large, incompressible strings: the columns that make the file big.
            lengths = rng.integers(10, 120, rows)
            data = [rng.bytes(int(n)).hex() for n in lengths]
            arr = pa.array(data, pa.string())
            codecs[name] = "zstd"
        elif kind < 5:
            arr = pa.array(rng.integers(0, 1 << 40, rows), pa.int64())
            codecs[name] = "snappy"
        elif kind < 8:
            arr = pa.array(words[rng.integers(0, 20, rows)].tolist(), pa.string())
            codecs[name] = "gzip"
            dict_cols.append(name)
        elif kind < 10:
            arr = pa.array(rng.random(rows), pa.float64())
            codecs[name] = "none"
        else:
            arr = pa.array(rng.integers(0, 3, rows), pa.int32())
            codecs[name] = "snappy"
            dict_cols.append(name)
        arrays.append(arr)
        names.append(name)
    table = pa.Table.from_arrays(arrays, names=names)
    pq.write_table(
        table,
        out,
        row_group_size=ROWS_PER_GROUP,
        compression=codecs,
        use_dictionary=dict_cols,
        write_statistics=True,
        write_page_index=True,
    )


def sizes(path):
    md = pq.ParquetFile(path).metadata
    out = [
        [md.row_group(i).column(j).total_compressed_size for j in range(md.num_columns)]
        for i in range(md.num_row_groups)
    ]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "wide":
        wide(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "sizes":
        sizes(sys.argv[2])
    else:
        sys.exit(f"unknown command {sys.argv[1]}")
