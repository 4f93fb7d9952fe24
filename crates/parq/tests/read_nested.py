"""Corpus and expected readings for read_nested.rs: nested columns written by pyarrow, DuckDB,
polars and fastparquet, and the nested files of the parquet-testing / arrow-testing corpora,
each as pyarrow 26 reads it.

Usage:
  read_nested.py generate OUT_DIR
      Writes one table of N rows holding every nested shape (see `table()`) into OUT_DIR:
      with pyarrow (page versions 1.0 / 2.0 x dictionary on / off x compliant / legacy list
      naming, tiny pages, 37-row row groups; once without the ARROW:schema; twice with the
      v1 pages re-cut at arbitrary levels by `split_records`, records spread over pages),
      DuckDB, polars and fastparquet. Reads each file back with `pq.read_table`
      (combine_chunks, one batch) into `<name>.arrow`, and, for each of SELECTIONS,
      `pq.ParquetFile(f).read(columns=...)` into `<name>.sel<k>.arrow`. Prints one JSON
      object:
        {"rows": N, "shapes": [top-level column names],
         "cases": {column: {"null lists" | "empty lists" | "null elements" | "null structs" |
                            "structs with all children null" | "null leaves": count}},
         "files": [{"name", "writer", "row_groups", "num_rows", "leaves",
                    "columns": [names], "pages", "split_pages", "page_types", "encodings",
                    "selections": [{"columns": [...], "ipc": file name | null,
                                    "error": pyarrow's refusal | null, "absent": bool,
                                    "by_row_group": bool}],
                    "duckdb_columns": [columns DuckDB read], "pyarrow_errors": [...]}],
         "skipped": {writer: ["column: reason"]}, "written": {writer: count}}
      `pages` counts the data pages of the file, `split_pages` those that begin inside a
      record (first repetition level > 0); `page_types` are the page header types seen.
  read_nested.py corpus OUT_DIR FILE...
      pq.read_table of each FILE to OUT_DIR/<index>.arrow when the table has a nested column;
      prints a JSON list of statuses: "nested" | "flat" | "error: ...".
"""
import json
import os
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.types as t

N = 500
ROW_GROUP = 37
WORDS = ["", "a", "parquet", "arrow", "\u00e9t\u00e9", "\u6f22\u5b57", "\U0001f600 emoji",
         "long string value " * 3]


def table(seed=7):
    """Every nested shape, with nulls and empties at every level, as a pyarrow table.

    Lists are mostly short (0..4 elements) with some long ones (20..60) that cannot fit one
    tiny page. Each nullable level holds ~10% nulls; lists ~10% empty; structs ~10% with
    every child null.
    """
    rng = random.Random(seed)

    def chance(p):
        return rng.random() < p

    def length():
        return rng.randint(20, 60) if chance(0.08) else rng.randint(1, 4)

    def lst(elem, null_elem=True, nullable=True, empty=True):
        r = rng.random()
        if nullable and r < 0.1:
            return None
        if empty and r < 0.2:
            return []
        return [None if null_elem and chance(0.12) else elem() for _ in range(length())]

    def i32():
        return rng.randint(-2**31, 2**31 - 1)

    def i64():
        return rng.randint(-2**63, 2**63 - 1)

    def small():
        return rng.randint(-1000, 1000)

    def word():
        return rng.choice(WORDS) + str(rng.randint(0, 9))

    def struct(fields, nullable=True):
        """fields: name -> value maker; None (10%), all children null (10%) or values."""
        r = rng.random()
        if nullable and r < 0.1:
            return None
        if r < 0.2:
            return {k: None for k in fields}
        return {k: (None if chance(0.1) else make()) for k, make in fields.items()}

    def mapping(value, null_value=True):
        r = rng.random()
        if r < 0.1:
            return None
        if r < 0.2:
            return []
        keys = rng.sample(range(10**6), length())
        return [(f"k{k}", None if null_value and chance(0.12) else value()) for k in keys]

    cols = {}

    def column(name, ty, make, nullable=True):
        cols[name] = (pa.field(name, ty, nullable=nullable), [make() for _ in range(N)])

    def required(name, ty):
        return pa.field(name, ty, nullable=False)

    ids = iter(range(N))
    column("id", pa.int64(), lambda: next(ids), nullable=False)
    column("li", pa.list_(pa.int64()), lambda: lst(i64))
    column("ls", pa.list_(pa.string()), lambda: lst(word))
    column("lli", pa.list_(pa.list_(pa.int32())), lambda: lst(lambda: lst(i32)))
    column("s", pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.float64())]),
           lambda: struct({"a": small, "b": word, "c": lambda: rng.uniform(-1e6, 1e6)}))
    column("ss", pa.struct([("inner", pa.struct([("x", pa.int64()), ("y", pa.string())])),
                            ("z", pa.int32())]),
           lambda: struct({"inner": lambda: struct({"x": i64, "y": word}), "z": small}))
    column("m", pa.map_(pa.string(), pa.int64()), lambda: mapping(i64))
    column("lst", pa.list_(pa.struct([("a", pa.int32()), ("b", pa.string())])),
           lambda: lst(lambda: struct({"a": small, "b": word})))
    column("sl", pa.struct([("l", pa.list_(pa.int32()))]),
           lambda: struct({"l": lambda: lst(small)}))
    column("ml", pa.map_(pa.string(), pa.list_(pa.int32())),
           lambda: mapping(lambda: lst(small)))
    column("ll", pa.large_list(pa.int64()), lambda: lst(i64))
    column("fl", pa.list_(pa.int32(), 3),
           lambda: None if chance(0.1) else [None if chance(0.12) else small() for _ in range(3)])
    column("ld", pa.list_(pa.dictionary(pa.int32(), pa.string())),
           lambda: lst(lambda: rng.choice(WORDS)))
    # Required levels: a required list of required elements, a required struct with a
    # required child, and a required child and required list elements in an optional struct.
    column("rl", pa.list_(required("element", pa.int32())),
           lambda: lst(small, null_elem=False, nullable=False), nullable=False)
    column("rs", pa.struct([required("a", pa.int32()), ("b", pa.string())]),
           lambda: {"a": small(), "b": None if chance(0.1) else word()}, nullable=False)
    column("rsl", pa.struct([required("a", pa.int32()),
                             ("l", pa.list_(required("element", pa.string())))]),
           lambda: None if chance(0.1) else {"a": small(), "l": lst(word, null_elem=False)})

    arrays = []
    for name, (field, values) in cols.items():
        if t.is_list(field.type) and t.is_dictionary(field.type.value_type):
            plain = pa.array(values, pa.list_(pa.string()))
            arrays.append(pa.ListArray.from_arrays(
                plain.offsets, plain.values.dictionary_encode(), type=field.type,
                mask=plain.is_null()))
        else:
            arrays.append(pa.array(values, field.type))
    schema = pa.schema([f for f, _ in cols.values()])
    tab = pa.Table.from_arrays(arrays, schema=schema)
    tab.validate(full=True)
    return tab


def cases(arr, acc):
    """Adds to `acc` the null / empty cases at every level of `arr`."""
    import pyarrow.compute as pc
    ty = arr.type
    if t.is_struct(ty):
        acc["null structs"] += arr.null_count
        children = [arr.field(i) for i in range(ty.num_fields)]
        all_null = arr.is_valid()
        for c in children:
            all_null = pc.and_(all_null, c.is_null())
        acc["structs with all children null"] += pc.sum(all_null).as_py() or 0
        for c in children:
            cases(c, acc)
    elif t.is_list(ty) or t.is_large_list(ty) or t.is_map(ty) or t.is_fixed_size_list(ty):
        acc["null lists"] += arr.null_count
        if not t.is_fixed_size_list(ty):
            offsets = arr.offsets
            lengths = pc.subtract(offsets[1:], offsets[:-1])
            empty = pc.and_(arr.is_valid(), pc.equal(lengths, 0))
            acc["empty lists"] += pc.sum(empty).as_py() or 0
        if t.is_map(ty):
            acc["null elements"] += arr.items.null_count
            cases(arr.keys, acc)
            cases(arr.items, acc)
        else:
            values = arr.flatten()
            acc["null elements"] += values.null_count
            cases(values, acc)
    else:
        acc["null leaves"] += arr.null_count


# Column selections read with `pq.ParquetFile(f).read(columns=...)` (Parquet column paths,
# the selected leaves kept inside their parents; `pq.read_table(f, columns=...)` goes
# through the dataset API, which returns `s.a` as a top-level `a` and refuses paths through
# lists), `{list}` replaced by the file's path of list elements ("list.element", or
# "list.item" with legacy naming). A selection naming a column the writer could not write
# is marked absent; one pyarrow refuses is recorded with its error.
SELECTIONS = [
    ["s.a"],
    ["s"],
    ["li.{list}"],
    ["s.a", "s.c"],
    ["ss.inner.y"],
    ["ss.inner.x", "ss.z"],
    ["lst.{list}.b"],
    ["sl.l"],
    ["m", "s.b", "id"],
    ["ml.key_value.value"],
    ["rsl.l", "rs.b"],
    ["m.key_value.key"],
    ["lst.{list}"],
    ["lli.{list}.{list}"],
    ["fl.{list}", "ld"],
]


def list_names(path):
    """The `list.<element>` path suffix of the file's first list column (`li`)."""
    schema = pq.ParquetFile(path).schema
    for i in range(len(schema)):
        p = schema.column(i).path
        if p.startswith("li."):
            return p[len("li."):]
    return "list.element"


def first_levels(data, codec, v2, ph, max_rep):
    """The first repetition level of a data page (0 when the column has none)."""
    if max_rep == 0:
        return 0
    body_len = ph.compressed_page_size
    bw = max_rep.bit_length()
    if v2:
        rl = data[:ph.data_page_header_v2.repetition_levels_byte_length]
    else:
        if codec != "UNCOMPRESSED":
            data = pa.decompress(data[:body_len], decompressed_size=ph.uncompressed_page_size,
                                 codec=codec.lower(), asbytes=True)
        n = int.from_bytes(data[:4], "little")
        rl = data[4:4 + n]
    if not rl:
        return 0
    header = shift = pos = 0
    while True:  # the run header, a ULEB128 varint
        b = rl[pos]
        header |= (b & 0x7F) << shift
        pos += 1
        shift += 7
        if not b & 0x80:
            break
    # The first value: the low bits of a bit-packed run, or an RLE run's value.
    return rl[pos] & ((1 << bw) - 1)


PAGE_TYPES = {0: "DATA_PAGE", 2: "DICTIONARY_PAGE", 3: "DATA_PAGE_V2"}


def page_stats(path):
    """(data pages, data pages that begin inside a record, the page types seen) over every
    column chunk."""
    from fastparquet.cencoding import NumpyIO, ThriftObject
    data = open(path, "rb").read()
    pf = pq.ParquetFile(path)
    md = pf.metadata
    pages = split = 0
    types = set()
    for r in range(md.num_row_groups):
        rg = md.row_group(r)
        for c in range(rg.num_columns):
            col = rg.column(c)
            max_rep = pf.schema.column(c).max_repetition_level
            start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
            f = NumpyIO(data)
            f.seek(start)
            end = start + col.total_compressed_size
            while f.tell() < end:
                ph = ThriftObject.from_buffer(f, "PageHeader")
                pos = f.tell()
                types.add(PAGE_TYPES.get(ph.type, str(ph.type)))
                if ph.type in (0, 3):
                    pages += 1
                    body = data[pos:pos + ph.compressed_page_size]
                    if first_levels(body, col.compression, ph.type == 3, ph, max_rep) > 0:
                        split += 1
                f.seek(ph.compressed_page_size, 1)
    return pages, split, sorted(types)


def uleb(buf, pos):
    v = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, pos


def put_uleb(v, out):
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def hybrid_decode(buf, bw, n):
    """n values of an RLE / bit-packed hybrid run sequence of width bw."""
    out, pos, mask = [], 0, (1 << bw) - 1
    while len(out) < n:
        header, pos = uleb(buf, pos)
        if header & 1:
            groups = header >> 1
            bits = int.from_bytes(buf[pos:pos + groups * bw], "little")
            pos += groups * bw
            out.extend((bits >> (i * bw)) & mask for i in range(groups * 8))
        else:
            w = (bw + 7) // 8
            out.extend([int.from_bytes(buf[pos:pos + w], "little")] * (header >> 1))
            pos += w
    return out[:n]


def hybrid_encode(values, bw):
    """values as RLE runs of width bw."""
    out, i = bytearray(), 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        put_uleb((j - i) << 1, out)
        out += values[i].to_bytes((bw + 7) // 8, "little")
        i = j
    return bytes(out)


def plain_values(body, col, n):
    """The n PLAIN values of `body`, each as its bytes."""
    physical = col.physical_type
    width = {"INT32": 4, "INT64": 8, "FLOAT": 4, "DOUBLE": 8, "INT96": 12,
             "FIXED_LEN_BYTE_ARRAY": col.length}.get(physical)
    assert physical != "BOOLEAN", "booleans are bit-packed: not split here"
    out, pos = [], 0
    for _ in range(n):
        if width is None:
            size = 4 + int.from_bytes(body[pos:pos + 4], "little")
        else:
            size = width
        out.append(body[pos:pos + size])
        pos += size
    return out


def split_records(src, dst, seed):
    """Rewrites the uncompressed file `src` (v1 data pages, PLAIN or dictionary values)
    into `dst` with every data page cut into pages of 1..6 levels at arbitrary positions:
    records spread over several pages (v1 pages may split records; no writer of the venv
    does it). Dictionary pages are kept; a cut never mixes PLAIN and dictionary values.
    """
    from fastparquet import parquet_thrift
    from fastparquet.cencoding import NumpyIO, ThriftObject
    rng = random.Random(seed)
    data = open(src, "rb").read()
    footer_len = int.from_bytes(data[-8:-4], "little")
    fmd = ThriftObject.from_buffer(NumpyIO(data[-8 - footer_len:-8]), "FileMetaData")
    schema = pq.ParquetFile(src).schema
    out = bytearray(b"PAR1")
    # The thrift objects are views of one tree of dicts: edits through them stay in `fmd`.
    for rg in fmd.row_groups:
        rg_start, rg_size = len(out), 0
        for c, chunk in enumerate(rg.columns):
            md = chunk.meta_data
            assert md.codec == 0, "uncompressed input only"
            col = schema.column(c)
            max_rep, max_def = col.max_repetition_level, col.max_definition_level
            rbw, dbw = max_rep.bit_length(), max_def.bit_length()
            start = md.dictionary_page_offset or md.data_page_offset
            end = start + md.total_compressed_size
            f = NumpyIO(data)
            f.seek(start)
            chunk_start = len(out)
            dict_offset = None
            # Segments of consecutive levels whose values share an encoding.
            segments = []
            while f.tell() < end:
                header_start = f.tell()
                ph = ThriftObject.from_buffer(f, "PageHeader")
                pos = f.tell()
                body = data[pos:pos + ph.compressed_page_size]
                f.seek(ph.compressed_page_size, 1)
                if ph.type == 2:
                    dict_offset = len(out)
                    out += data[header_start:pos + ph.compressed_page_size]
                    continue
                assert ph.type == 0, "v1 data pages only"
                dph = ph.data_page_header
                n = dph.num_values
                p = 0
                reps = [0] * n
                if max_rep:
                    k = int.from_bytes(body[p:p + 4], "little")
                    reps = hybrid_decode(body[p + 4:p + 4 + k], rbw, n)
                    p += 4 + k
                defs = [0] * n
                if max_def:
                    k = int.from_bytes(body[p:p + 4], "little")
                    defs = hybrid_decode(body[p + 4:p + 4 + k], dbw, n)
                    p += 4 + k
                count = sum(d == max_def for d in defs)
                if dph.encoding in (2, 8):  # PLAIN_DICTIONARY, RLE_DICTIONARY
                    bw = body[p]
                    values = hybrid_decode(body[p + 1:], bw, count)
                    kind = ("dict", bw)
                else:
                    assert dph.encoding == 0, f"encoding {dph.encoding}"
                    values = plain_values(body[p:], col, count)
                    kind = ("plain", None)
                if not segments or segments[-1][0] != kind:
                    segments.append((kind, dph.encoding, [], [], []))
                segments[-1][2].extend(reps)
                segments[-1][3].extend(defs)
                segments[-1][4].extend(values)
            data_offset = len(out)
            for (kind, encoding, reps, defs, values) in segments:
                i = v = 0
                while i < len(reps):
                    j = min(len(reps), i + rng.randint(1, 6))
                    nv = sum(d == max_def for d in defs[i:j])
                    body = bytearray()
                    for levels, bw, m in ((reps, rbw, max_rep), (defs, dbw, max_def)):
                        if m:
                            enc = hybrid_encode(levels[i:j], bw)
                            body += len(enc).to_bytes(4, "little") + enc
                    if kind[0] == "dict":
                        body.append(kind[1])
                        body += hybrid_encode(values[v:v + nv], kind[1])
                    else:
                        body += b"".join(values[v:v + nv])
                    dph = parquet_thrift.DataPageHeader(
                        num_values=j - i, encoding=encoding,
                        definition_level_encoding=parquet_thrift.Encoding.RLE,
                        repetition_level_encoding=parquet_thrift.Encoding.RLE, i32=1)
                    ph = parquet_thrift.PageHeader(
                        type=parquet_thrift.PageType.DATA_PAGE, uncompressed_page_size=len(body),
                        compressed_page_size=len(body), data_page_header=dph, i32=1)
                    out += bytes(ph.to_bytes()) + body
                    i, v = j, v + nv
                assert v == len(values)
            if dict_offset is not None:
                md.dictionary_page_offset = dict_offset
            md.data_page_offset = data_offset
            md.total_compressed_size = md.total_uncompressed_size = len(out) - chunk_start
            if md.encoding_stats is not None:
                del md.encoding_stats
            chunk.file_offset = chunk_start
            rg_size += len(out) - chunk_start
        rg.total_byte_size = rg_size
        rg.file_offset = rg_start
        rg.total_compressed_size = rg_size
    footer = bytes(fmd.to_bytes())
    out += footer + len(footer).to_bytes(4, "little") + b"PAR1"
    open(dst, "wb").write(out)


def write_ipc(tab, path):
    tab = tab.combine_chunks()
    with pa.ipc.new_file(path, tab.schema) as w:
        for b in tab.to_batches():
            w.write_batch(b)


def read_expected(path, writer):
    """pyarrow's reading of `path`; for a DuckDB file whose columns pyarrow refuses, those
    columns as DuckDB reads them, cast to the type pyarrow gives them (`pq.read_schema`).
    Returns (table, [columns read by DuckDB], [column: pyarrow's error])."""
    try:
        return pq.read_table(path), [], []
    except Exception:  # noqa: BLE001 - fall back to one column at a time
        if writer != "duckdb":
            raise
    import duckdb
    schema = pq.read_schema(path)
    cols, by_duckdb, errors = [], [], []
    for field in schema:
        try:
            cols.append(pq.read_table(path, columns=[field.name]).column(0))
        except Exception as e:  # noqa: BLE001
            errors.append(f"{field.name}: {str(e)[:120]}")
            rel = duckdb.sql(f'SELECT "{field.name}" FROM read_parquet(?)', params=[path])
            col = rel.to_arrow_table().column(0)
            cols.append(col.cast(field.type))
            by_duckdb.append(field.name)
    return pa.Table.from_arrays(cols, schema=schema), by_duckdb, errors


def describe(out, name, writer):
    path = os.path.join(out, name)
    md = pq.ParquetFile(path).metadata
    tab, by_duckdb, errors = read_expected(path, writer)
    write_ipc(tab, os.path.join(out, name + ".arrow"))
    pages, split, page_types = page_stats(path)
    encodings = sorted({e for r in range(md.num_row_groups) for c in range(md.num_columns)
                        for e in md.row_group(r).column(c).encodings})
    names = list_names(path)
    sels = []
    for k, sel in enumerate(SELECTIONS):
        cols = [c.replace("{list}", names) for c in sel]
        entry = {"columns": cols, "ipc": None, "error": None, "absent": False,
                 "by_row_group": False}
        if any(c.split(".")[0] not in tab.schema.names for c in cols):
            # A column the writer could not write (pyarrow would silently leave it out).
            entry["absent"] = True
            sels.append(entry)
            continue
        pf = pq.ParquetFile(path)
        try:
            try:
                st = pf.read(columns=cols)
            except pa.ArrowNotImplementedError as e:
                # A list of dictionaries whose dictionary changes between row groups: one
                # row group at a time ("Nested data conversions not implemented for chunked
                # array outputs").
                if "chunked array outputs" not in str(e):
                    raise
                st = pa.concat_tables(pf.read_row_group(r, columns=cols)
                                      for r in range(md.num_row_groups))
                entry["by_row_group"] = True
            entry["ipc"] = f"{name}.sel{k}.arrow"
            write_ipc(st, os.path.join(out, entry["ipc"]))
        except Exception as e:  # noqa: BLE001 - pyarrow's refusal is recorded
            entry["error"] = str(e)[:200]
        sels.append(entry)
    return {"name": name, "writer": writer, "row_groups": md.num_row_groups,
            "num_rows": md.num_rows, "leaves": md.num_columns, "columns": tab.schema.names,
            "pages": pages, "split_pages": split, "page_types": page_types,
            "encodings": encodings, "selections": sels, "duckdb_columns": by_duckdb,
            "pyarrow_errors": errors}


def generate(out):
    tab = table()
    files, skipped, written = [], {}, {}

    # pyarrow: page version x dictionary x list naming, tiny pages, 37-row row groups.
    codecs = ["none", "snappy", "zstd", "gzip"]
    k = 0
    for version in ("1.0", "2.0"):
        for dictionary in (True, False):
            for compliant in (True, False):
                name = (f"pyarrow_v{version[0]}_{'dict' if dictionary else 'plain'}_"
                        f"{'compliant' if compliant else 'legacy'}.parquet")
                pq.write_table(tab, os.path.join(out, name), row_group_size=ROW_GROUP,
                               data_page_size=64, write_batch_size=4, data_page_version=version,
                               use_dictionary=dictionary, use_compliant_nested_type=compliant,
                               compression=codecs[k % len(codecs)],
                               dictionary_pagesize_limit=256)
                files.append(describe(out, name, "pyarrow"))
                k += 1
    # Without the ARROW:schema: the Parquet schema alone decides the Arrow types.
    name = "pyarrow_v1_no_arrow_schema.parquet"
    pq.write_table(tab, os.path.join(out, name), row_group_size=ROW_GROUP, data_page_size=64,
                   write_batch_size=4, store_schema=False)
    files.append(describe(out, name, "pyarrow"))
    # Records split across v1 pages: pyarrow's uncompressed v1 files, their pages cut anew.
    for dictionary, compliant in ((False, True), (True, False)):
        name = (f"split_v1_{'dict' if dictionary else 'plain'}_"
                f"{'compliant' if compliant else 'legacy'}.parquet")
        src = os.path.join(out, "source.parquet")
        pq.write_table(tab, src, row_group_size=ROW_GROUP, data_page_version="1.0",
                       use_dictionary=dictionary, use_compliant_nested_type=compliant,
                       compression="none", dictionary_pagesize_limit=256)
        split_records(src, os.path.join(out, name), seed=len(files))
        assert pq.read_table(os.path.join(out, name)).equals(pq.read_table(src)), name
        assert pq.read_table(src).to_pylist() == tab.to_pylist(), name
        os.remove(src)
        files.append(describe(out, name, "pyarrow"))
    written["pyarrow"] = sum(f["writer"] == "pyarrow" for f in files)

    # DuckDB: every column it takes from Arrow, v1 and v2 pages.
    import duckdb
    con = duckdb.connect()
    keep, skip = [], []
    for c in tab.schema.names:
        try:
            con.register("one", tab.select([c]))
            con.execute(f"COPY (SELECT * FROM one) TO '{out}/probe.parquet' (FORMAT parquet)")
            pq.read_table(f"{out}/probe.parquet")
            keep.append(c)
        except Exception as e:  # noqa: BLE001
            skip.append(f"{c}: {str(e)[:120]}")
        finally:
            con.unregister("one")
    if os.path.exists(f"{out}/probe.parquet"):
        os.remove(f"{out}/probe.parquet")
    skipped["duckdb"] = skip
    # DuckDB makes a row group of each Arrow batch (ROW_GROUP_SIZE alone gives one): the
    # table as pyarrow reads it from its first file, one chunk of fresh arrays per row group
    # (DuckDB refuses slices of struct arrays).
    chunked = pq.read_table(os.path.join(out, files[0]["name"]))
    assert chunked.to_pylist() == tab.to_pylist() and chunked.column(0).num_chunks > 1
    con.register("tab", chunked.select(keep))
    for version in ("V1", "V2"):
        for dictionary in (True, False):
            name = f"duckdb_{version.lower()}_{'dict' if dictionary else 'plain'}.parquet"
            # DuckDB takes a dictionary only when it is small enough (or not at all).
            opts = (f"FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP}, PARQUET_VERSION {version}, "
                    f"DICTIONARY_SIZE_LIMIT {10**6 if dictionary else 1}, "
                    f"COMPRESSION {'snappy' if version == 'V1' else 'zstd'}")
            con.execute(f"COPY (SELECT * FROM tab) TO '{out}/{name}' ({opts})")
            files.append(describe(out, name, "duckdb"))
    written["duckdb"] = sum(f["writer"] == "duckdb" for f in files)

    # polars: its own writer (maps become lists of key/value structs in polars).
    import polars as pl
    keep, skip = [], []
    for c in tab.schema.names:
        try:
            pl.from_arrow(tab.select([c])).write_parquet(f"{out}/probe.parquet")
            pq.read_table(f"{out}/probe.parquet")
            keep.append(c)
        except Exception as e:  # noqa: BLE001
            skip.append(f"{c}: {str(e)[:120]}")
    if os.path.exists(f"{out}/probe.parquet"):
        os.remove(f"{out}/probe.parquet")
    skipped["polars"] = skip
    df = pl.from_arrow(tab.select(keep))
    for codec in ("uncompressed", "zstd"):
        name = f"polars_{codec}.parquet"
        df.write_parquet(os.path.join(out, name), compression=codec, row_group_size=ROW_GROUP,
                         data_page_size=64)
        files.append(describe(out, name, "polars"))
    written["polars"] = sum(f["writer"] == "polars" for f in files)

    # fastparquet: writes no nested column (lists, structs and maps become JSON strings);
    # a file is kept only if pyarrow reads a nested column from it.
    import fastparquet
    skip = []
    df = tab.to_pandas()
    for c in tab.schema.names[1:]:
        probe = f"{out}/probe.parquet"
        try:
            fastparquet.write(probe, df[[c]])
            ty = pq.read_schema(probe).field(c).type
            if not t.is_nested(ty):
                skip.append(f"{c}: written as {ty}")
                continue
            name = f"fastparquet_{c}.parquet"
            os.rename(probe, os.path.join(out, name))
            files.append(describe(out, name, "fastparquet"))
        except Exception as e:  # noqa: BLE001
            skip.append(f"{c}: {str(e)[:120]}")
        finally:
            if os.path.exists(probe):
                os.remove(probe)
    skipped["fastparquet"] = skip
    written["fastparquet"] = sum(f["writer"] == "fastparquet" for f in files)

    counts = {}
    for name in tab.schema.names:
        acc = {k: 0 for k in ("null lists", "empty lists", "null elements", "null structs",
                              "structs with all children null", "null leaves")}
        cases(tab.column(name).combine_chunks(), acc)
        counts[name] = acc
    print(json.dumps({"rows": N, "shapes": tab.schema.names, "cases": counts, "files": files,
                      "skipped": skipped, "written": written}))


def nested(ty):
    return t.is_nested(ty) or (t.is_dictionary(ty) and nested(ty.value_type))


def corpus(out, paths):
    res = []
    for i, path in enumerate(paths):
        try:
            tab = pq.read_table(path)
        except Exception as e:  # noqa: BLE001 - any refusal is a status
            res.append("error: " + str(e)[:200])
            continue
        if not any(nested(f.type) for f in tab.schema):
            res.append("flat")
            continue
        write_ipc(tab, f"{out}/{i}.arrow")
        res.append("nested")
    print(json.dumps(res))


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
    else:
        corpus(sys.argv[2], sys.argv[3:])
