"""Files for read_lenient.rs: pyarrow-written files bent the way real writers bend the spec,
and pyarrow's reading of each (the expected values).

Usage: read_lenient.py OUT_DIR REAL_WORLD_DIR

Each case NAME gets OUT_DIR/NAME.parquet and, where pyarrow reads it, OUT_DIR/NAME.arrow
(one batch). Prints a JSON object NAME -> {"pyarrow": "ok" | "error: ...", ...}.

Pages and footers are rewritten with fastparquet's Thrift structs (`ThriftObject`): the file
is written uncompressed without statistics, dictionary or page index, its column chunks are
walked page by page, and `rewrite` may change each page header and body; offsets and sizes in
the footer are recomputed.
"""
import json
import struct
import sys
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from fastparquet.cencoding import NumpyIO, ThriftObject

OUT = sys.argv[1]
REAL = sys.argv[2]
N = 1000


def footer(data):
    n = struct.unpack("<I", data[-8:-4])[0]
    buf = np.frombuffer(data[-8 - n:-8], dtype=np.uint8)
    return ThriftObject.from_buffer(NumpyIO(buf), "FileMetaData")


def with_footer(body, fm):
    b = bytes(fm.to_bytes())
    return body + b + struct.pack("<I", len(b)) + b"PAR1"


def rewrite(data, fn):
    """Rewrites every page of every chunk: fn(rg, col, header, body) -> (header, body)."""
    fm = footer(data)
    out = bytearray(b"PAR1")
    for r, rg in enumerate(fm.row_groups):
        total = 0
        for c, cc in enumerate(rg.columns):
            md = cc.meta_data
            start = md.dictionary_page_offset or md.data_page_offset
            end = start + md.total_compressed_size
            pos = start
            new_start = len(out)
            data_offset = None
            while pos < end:
                f = NumpyIO(np.frombuffer(data, dtype=np.uint8))
                f.seek(pos)
                ph = ThriftObject.from_buffer(f, "PageHeader")
                hdr_end = f.tell()
                body = data[hdr_end:hdr_end + ph.compressed_page_size]
                pos = hdr_end + ph.compressed_page_size
                ph, body = fn(r, c, ph, body)
                ph.compressed_page_size = len(body)
                ph.uncompressed_page_size = len(body)
                if ph.type != 2 and data_offset is None:
                    data_offset = len(out)
                out += bytes(ph.to_bytes()) + body
            size = len(out) - new_start
            md.data_page_offset = data_offset
            if md.dictionary_page_offset:
                md.dictionary_page_offset = new_start
            md.total_compressed_size = size
            md.total_uncompressed_size = size
            cc.file_offset = new_start
            total += size
        rg.total_byte_size = total
    return with_footer(bytes(out), fm)


def write(name, data):
    path = f"{OUT}/{name}.parquet"
    with open(path, "wb") as f:
        f.write(data)
    return path


def expected(name, path, **kw):
    try:
        tab = pq.read_table(path, **kw).combine_chunks()
    except Exception as e:  # noqa: BLE001
        return {"pyarrow": "error: " + str(e)[:200]}
    with pa.ipc.new_file(f"{OUT}/{name}.arrow", tab.schema) as w:
        for b in tab.to_batches():
            w.write_batch(b)
    return {"pyarrow": "ok", "rows": tab.num_rows}


def base(table, **kw):
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="none", use_dictionary=False,
                   write_statistics=False, **kw)
    return sink.getvalue().to_pybytes()


rng = np.random.default_rng(7)
values = pa.array([None if rng.random() < 0.3 else int(v) for v in rng.integers(-1000, 1000, N)],
                  pa.int32())
strings = pa.array([None if rng.random() < 0.2 else f"s{i}" for i in range(N)])
table = pa.table({"i": values, "s": strings})
res = {}

# BIT_PACKED definition levels (Impala): the RLE levels of each v1 page replaced by the same
# levels bit-packed without a length prefix, least significant bit first (as pyarrow reads).
def bit_packed(r, c, ph, body):
    if ph.type != 0:
        return ph, body
    n = ph.data_page_header.num_values
    length = struct.unpack("<I", body[:4])[0]
    levels = np.zeros(n, dtype=np.uint8)
    # Decode the RLE hybrid levels of width 1 (runs and bit-packed groups).
    buf, p, k = body[4:4 + length], 0, 0
    while k < n and p < len(buf):
        h, shift = 0, 0
        while True:
            b = buf[p]
            p += 1
            h |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        if h & 1:
            groups = h >> 1
            bits = np.unpackbits(np.frombuffer(buf[p:p + groups], dtype=np.uint8), bitorder="little")
            take = min(n - k, groups * 8)
            levels[k:k + take] = bits[:take]
            k += take
            p += groups
        else:
            count = h >> 1
            levels[k:k + count] = buf[p]
            k += count
            p += 1
    packed = np.packbits(levels, bitorder="little").tobytes()
    ph.data_page_header.definition_level_encoding = 4
    return ph, packed + body[4 + length:]


data = rewrite(base(table, data_page_size=700, data_page_version="1.0"), bit_packed)
path = write("bit_packed_levels", data)
res["bit_packed_levels"] = expected("bit_packed_levels", path)
res["bit_packed_levels"]["nulls_as_written"] = bool(
    pq.read_table(path).column("i").is_null().equals(table.column("i").is_null()))

# v2 data pages whose num_nulls disagrees with their definition levels (.NET and Go writers).
def wrong_nulls(r, c, ph, body):
    if ph.type == 3:
        h = ph.data_page_header_v2
        h.num_nulls = 0 if c == 0 else max(h.num_values - 1, 0)
    return ph, body


path = write("v2_wrong_num_nulls",
             rewrite(base(table, data_page_size=700, data_page_version="2.0"), wrong_nulls))
res["v2_wrong_num_nulls"] = expected("v2_wrong_num_nulls", path)

# Page CRCs that do not match intact data (Parquet.jl, Pinot).
def wrong_crc(r, c, ph, body):
    if ph.type in (0, 3):
        ph.crc = (zlib.crc32(body) ^ 0x5A5A) - (1 << 31)
    return ph, body


path = write("wrong_crc", rewrite(base(table, data_page_size=700, write_page_checksum=True), wrong_crc))
res["wrong_crc"] = expected("wrong_crc", path)

# Row groups whose num_rows disagrees with what their chunks hold (2 row groups of 500).
plain = base(table, row_group_size=500)
for rows0, rows1 in [(300, 500), (700, 500), (0, 500), (700, 300)]:
    fm = footer(plain)
    fm.row_groups[0].num_rows = rows0
    fm.row_groups[1].num_rows = rows1
    fm.num_rows = rows0 + rows1
    n = struct.unpack("<I", plain[-8:-4])[0]
    name = f"num_rows_{rows0}_{rows1}"
    path = write(name, with_footer(plain[:-8 - n], fm))
    res[name] = expected(name, path)

# INT96 values (a Velox / parquet-rs file whose INT96 column holds zeros): each case patches
# its one dictionary value; pyarrow reads it in each unit.
src = f"{REAL}/sunchao__parquet-rs/data__10k-v2.parquet"
raw = bytearray(open(src, "rb").read())
md = pq.read_metadata(src)
leaf = [i for i in range(md.num_columns) if md.schema.column(i).name == "int96_field"][0]
cc = md.row_group(0).column(leaf)
f = NumpyIO(np.frombuffer(bytes(raw), dtype=np.uint8))
f.seek(cc.data_page_offset)
ThriftObject.from_buffer(f, "PageHeader")
at = f.tell()
cases = [(0, 0), (1, 0), (0, 1), (0, 2440588), (5, 2440588), (86399999999999, 0),
         (0, 4294967295), (2**63, 2440588), (2**64 - 1, 2440588), (2**64 - 1000, 2440589),
         (1, 2440587)]
for k, (nanos, day) in enumerate(cases):
    raw[at:at + 12] = struct.pack("<QI", nanos, day)
    path = write(f"int96_{k}", bytes(raw))
    for unit in ["s", "ms", "us", "ns"]:
        name = f"int96_{k}_{unit}"
        res[name] = expected(name, path, columns=["int96_field"], coerce_int96_timestamp_unit=unit)

# A Null column whose Parquet type carries no annotation: only ARROW:schema says Null.
null_table = pa.table({"n": pa.nulls(N), "i": values})
def strip_null_annotation(data):
    fm = footer(data)
    for el in fm.schema:
        if el.name == "n":
            el.logicalType = None
            el.converted_type = None
    n = struct.unpack("<I", data[-8:-4])[0]
    return with_footer(data[:-8 - n], fm)


path = write("arrow_schema_null", strip_null_annotation(base(null_table)))
res["arrow_schema_null"] = expected("arrow_schema_null", path)

print(json.dumps(res))
