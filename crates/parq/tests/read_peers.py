"""Corpus for read_peers.rs: flat tables written by DuckDB, polars and fastparquet.

Usage: read_peers.py WRITER OUT_DIR   (WRITER: duckdb | polars | fastparquet)

Writes one Parquet file per writer option set into OUT_DIR, then reads each with pyarrow
(`pq.read_table`) and writes the table (nested columns dropped, `combine_chunks()`, one
batch) to `<name>.arrow`; columns pyarrow cannot read are left out (and, for DuckDB's
files, read by DuckDB itself into `<name>.duckdb.arrow`). Prints one JSON list, one entry per file:
  {"name", "status": "ok" | "nested" | "error: ...", "columns": [top-level indices in the
   .arrow file], "skipped": ["column: reason"], "duckdb_columns": [indices in the
   .duckdb.arrow file], "row_groups", "codecs", "encodings", "physical_types", "page_types"}
`page_types` are the page header types seen in the first row group (walked with
fastparquet's thrift reader): the Rust side checks the corpus covers what it says.

Each table holds every type the writer supports three times: `<t>` without nulls (REQUIRED
where the writer allows it), `<t>_n` with ~10% nulls and `<t>_z` all null.
"""
import datetime
import decimal
import json
import random
import sys
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.types as t

N = 5000
WORDS = ["", "a", "parquet", "arrow", "\u00e9t\u00e9", "\u6f22\u5b57", "\U0001f600 emoji",
         "long string value " * 3]


def base_values(seed):
    """name -> (arrow type, values without nulls)."""
    rng = random.Random(seed)
    r = range(N)

    def dec(p, s):
        return [decimal.Decimal(rng.randint(-10**p + 1, 10**p - 1)).scaleb(-s) for _ in r]

    specials = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]
    return {
        "bool": (pa.bool_(), [rng.random() < 0.3 for _ in r]),
        "i8": (pa.int8(), [rng.randint(-2**7, 2**7 - 1) for _ in r]),
        "i16": (pa.int16(), [rng.randint(-2**15, 2**15 - 1) for _ in r]),
        "i32": (pa.int32(), [rng.randint(-2**31, 2**31 - 1) for _ in r]),
        "i64": (pa.int64(), [rng.randint(-2**63, 2**63 - 1) for _ in r]),
        "i32_small": (pa.int32(), [rng.randint(0, 20) for _ in r]),
        "u8": (pa.uint8(), [rng.randint(0, 2**8 - 1) for _ in r]),
        "u16": (pa.uint16(), [rng.randint(0, 2**16 - 1) for _ in r]),
        "u32": (pa.uint32(), [rng.randint(0, 2**32 - 1) for _ in r]),
        "u64": (pa.uint64(), [rng.randint(0, 2**64 - 1) for _ in r]),
        "f32": (pa.float32(), [rng.choice(specials) if rng.random() < 0.05 else rng.uniform(-1e6, 1e6) for _ in r]),
        "f64": (pa.float64(), [rng.choice(specials) if rng.random() < 0.05 else rng.uniform(-1e12, 1e12) for _ in r]),
        "str": (pa.string(), [rng.choice(WORDS) + str(rng.randint(0, 10**6)) for _ in r]),
        "str_lc": (pa.string(), [rng.choice(WORDS) for _ in r]),
        "bin": (pa.binary(), [bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 20))) for _ in r]),
        "date": (pa.date32(), [datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-200000, 200000)) for _ in r]),
        "time_us": (pa.time64("us"), [rng.randint(0, 86400 * 10**6 - 1) for _ in r]),
        "ts_ms": (pa.timestamp("ms"), [rng.randint(-2**44, 2**44) for _ in r]),
        "ts_us": (pa.timestamp("us"), [rng.randint(-2**54, 2**54) for _ in r]),
        "ts_ns": (pa.timestamp("ns"), [rng.randint(-2**62, 2**62) for _ in r]),
        "ts_us_utc": (pa.timestamp("us", tz="UTC"), [rng.randint(-2**54, 2**54) for _ in r]),
        "dec4": (pa.decimal128(4, 1), dec(4, 1)),
        "dec9": (pa.decimal128(9, 2), dec(9, 2)),
        "dec18": (pa.decimal128(18, 3), dec(18, 3)),
        "dec25": (pa.decimal128(25, 4), dec(25, 4)),
        "dec38": (pa.decimal128(38, 10), dec(38, 10)),
    }


def with_nulls(vals, seed):
    rng = random.Random(seed)
    return [None if rng.random() < 0.1 else v for v in vals]


def arrow_table(cols, seed, skip=()):
    """Arrow table with `<t>`, `<t>_n`, `<t>_z` for every base column not in `skip`."""
    arrays, fields = [], []
    for i, (name, (ty, vals)) in enumerate(cols.items()):
        if name in skip:
            continue
        arrays += [pa.array(vals, ty), pa.array(with_nulls(vals, seed + i), ty), pa.nulls(N, ty)]
        fields += [pa.field(name, ty, nullable=False), pa.field(name + "_n", ty), pa.field(name + "_z", ty)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


# --- DuckDB -------------------------------------------------------------------------------

def write_duckdb(out):
    import duckdb
    cols = base_values(1)
    rng = random.Random(11)
    extra = {
        "uuid_s": (pa.string(), [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(N)]),
        "ttz_s": (pa.string(), ["%02d:%02d:%02d.%06d%+03d:%02d" % (rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59),
                                                               rng.randint(0, 999999), rng.randint(-12, 14), rng.choice([0, 30]))
                                for _ in range(N)]),
        "months": (pa.int32(), [rng.randint(0, 1000) for _ in range(N)]),
        "days": (pa.int32(), [rng.randint(0, 10**5) for _ in range(N)]),
        "millis": (pa.int64(), [rng.randint(0, 86400 * 1000 - 1) for _ in range(N)]),
    }
    src = arrow_table({**cols, **extra}, 100)
    con = duckdb.connect()
    con.register("src", src)
    words = ", ".join("'" + w + "'" for w in WORDS)
    con.sql(f"CREATE TYPE word AS ENUM ({words})")
    sel = []
    for sfx in ("", "_n", "_z"):
        sel += [f"{name}{sfx}" for name in cols]
        sel += [
            f"ts_us{sfx}::TIMESTAMP_S AS ts_s{sfx}",
            f"ts_us_utc{sfx}::TIMESTAMPTZ AS tstz{sfx}",
            f"ttz_s{sfx}::TIMETZ AS timetz{sfx}",
            f"uuid_s{sfx}::UUID AS uuid{sfx}",
            f"(to_months(months{sfx}) + to_days(days{sfx}) + to_milliseconds(millis{sfx})) AS interval{sfx}",
            f"str_lc{sfx}::word AS enum{sfx}",
            f"('{{\"k\": ' || i32{sfx} || ', \"s\": ' || to_json(str_lc{sfx}) || '}}')::JSON AS json{sfx}",
            f"i64{sfx}::HUGEINT * 1000 AS hugeint{sfx}",
        ]
    con.sql("CREATE TABLE t AS SELECT " + ", ".join(sel) + " FROM src")
    for (name,) in con.sql("SELECT column_name FROM (DESCRIBE t)").fetchall():
        if not name.endswith(("_n", "_z")):
            con.sql(f'ALTER TABLE t ALTER "{name}" SET NOT NULL')
    names = []
    codecs = ["uncompressed", "snappy", "zstd", "gzip", "lz4_raw", "brotli"]
    for version in ("V1", "V2"):
        for ci, codec in enumerate(codecs):
            for dictionary in (True, False):
                small_pages = (ci + dictionary) % 2 == 0
                if codec == "brotli" and dictionary != (version == "V1"):
                    continue  # DuckDB's brotli is slow: one file per version
                name = f"duckdb_{version}_{codec}_{'dict' if dictionary else 'nodict'}{'_smallpages' if small_pages else ''}.parquet"
                opts = [f"PARQUET_VERSION {version}", f"COMPRESSION {codec}", "ROW_GROUP_SIZE 2048"]
                if not dictionary:
                    opts += ["DICTIONARY_SIZE_LIMIT 1", "STRING_DICTIONARY_PAGE_SIZE_LIMIT 1"]
                if small_pages:
                    opts.append("DATA_PAGE_SIZE_LIMIT 1024")
                con.sql(f"COPY t TO '{out}/{name}' (FORMAT parquet, {', '.join(opts)})")
                names.append(name)
    return names


# --- polars -------------------------------------------------------------------------------

def write_polars(out):
    import polars as pl
    cols = base_values(2)
    rng = random.Random(22)
    extra = {
        "f16": (pa.float16(), [np.float16(rng.uniform(-100, 100)) for _ in range(N)]),
        "time_ns": (pa.time64("ns"), [rng.randint(0, 86400 * 10**9 - 1) for _ in range(N)]),
        "ts_ms_tz": (pa.timestamp("ms", tz="Asia/Kolkata"), [rng.randint(-2**44, 2**44) for _ in range(N)]),
        "ts_ns_tz": (pa.timestamp("ns", tz="America/New_York"), [rng.randint(-2**62, 2**62) for _ in range(N)]),
        "dur_ms": (pa.duration("ms"), [rng.randint(-2**44, 2**44) for _ in range(N)]),
        "dur_us": (pa.duration("us"), [rng.randint(-2**54, 2**54) for _ in range(N)]),
        "dur_ns": (pa.duration("ns"), [rng.randint(-2**62, 2**62) for _ in range(N)]),
        "cat": (pa.string(), [rng.choice(WORDS) for _ in range(N)]),
        "enum": (pa.string(), [rng.choice(WORDS) for _ in range(N)]),
    }
    # time_us: polars has one Time type (ns); dec25: written like dec38 (FLBA).
    df = pl.from_arrow(arrow_table({**cols, **extra}, 200, skip=("time_us",)))
    casts = []
    for sfx in ("", "_n", "_z"):
        casts += [pl.col("cat" + sfx).cast(pl.Categorical), pl.col("enum" + sfx).cast(pl.Enum(WORDS))]
    df = df.with_columns(casts).with_columns(pl.lit(None, dtype=pl.Null).alias("null"))
    names = []
    codecs = ["uncompressed", "snappy", "zstd", "gzip", "lz4", "brotli"]
    for ci, codec in enumerate(codecs):
        for small in (False, True):
            name = f"polars_{codec}_{'smallpages' if small else 'defaultpages'}.parquet"
            kw = dict(compression=codec, statistics=(ci % 2 == 0), use_pyarrow=False)
            if small:
                kw.update(row_group_size=1000, data_page_size=1024)
            else:
                kw.update(row_group_size=2000)
            df.write_parquet(f"{out}/{name}", **kw)
            names.append(name)
    return names


# --- fastparquet --------------------------------------------------------------------------

def write_fastparquet(out):
    import pandas as pd
    import fastparquet
    import fastparquet.writer as fw
    cols = base_values(3)
    frame = {}
    has_nulls = []
    masked = {"i8": "Int8", "i16": "Int16", "i32": "Int32", "i64": "Int64", "i32_small": "Int32",
              "u8": "UInt8", "u16": "UInt16", "u32": "UInt32", "u64": "UInt64", "bool": "boolean"}
    numpy = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "i32_small": np.int32,
             "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "bool": np.bool_,
             "f32": np.float32, "f64": np.float64}
    encoding = {}

    def add(name, full, nulls, allnull, enc=None):
        frame[name], frame[name + "_n"], frame[name + "_z"] = full, nulls, allnull
        has_nulls.extend([name + "_n", name + "_z"])
        if enc:
            encoding.update({name: enc, name + "_n": enc, name + "_z": enc})

    for i, (name, (ty, vals)) in enumerate(cols.items()):
        nv = with_nulls(vals, 300 + i)
        if name in numpy:
            full = pd.Series(np.array(vals, dtype=numpy[name]))
            if name in masked:
                add(name, full, pd.Series(pd.array(nv, dtype=masked[name])),
                    pd.Series(pd.array([None] * N, dtype=masked[name])))
            else:  # floats: NaN is written as null in the `_n` columns
                add(name, full, pd.Series(np.array([np.nan if v is None else v for v in nv], dtype=numpy[name])),
                    pd.Series(np.full(N, np.nan, dtype=numpy[name])))
        elif name in ("str", "bin"):
            enc = "utf8" if name == "str" else "bytes"
            add(name, pd.Series(vals, dtype=object), pd.Series(nv, dtype=object), pd.Series([None] * N, dtype=object), enc)
        elif name == "str_lc":
            # Categoricals are written with a dictionary page (fastparquet's only dictionary).
            add("str_cat", pd.Series(vals, dtype="category"), pd.Series(nv, dtype="category"),
                pd.Series([None] * N, dtype=pd.CategoricalDtype(WORDS)))
            add("str_pd", pd.Series(vals, dtype="string"), pd.Series(nv, dtype="string"),
                pd.Series([None] * N, dtype="string"))
        elif name.startswith("ts_"):
            unit = ty.unit
            a = pd.Series(np.array(vals, dtype=f"datetime64[{unit}]"))
            b = pd.Series(np.array([np.datetime64("NaT") if v is None else v for v in nv], dtype=f"datetime64[{unit}]"))
            z = pd.Series(np.full(N, np.datetime64("NaT"), dtype=f"datetime64[{unit}]"))
            if ty.tz:
                a, b, z = (s.dt.tz_localize("UTC").dt.tz_convert("Asia/Tokyo") for s in (a, b, z))
            add(name, a, b, z)
        elif name == "time_us":
            # timedelta64 is written as INT64 TIME_MICROS.
            conv = lambda xs: pd.Series(np.array([np.timedelta64("NaT") if v is None else v for v in xs], dtype="timedelta64[us]"))
            add("timedelta", conv(vals), conv(nv), conv([None] * N))
        elif name == "dec18":
            # object_encoding='decimal' writes doubles.
            add("dec_as_double", pd.Series(vals, dtype=object), pd.Series(nv, dtype=object),
                pd.Series([None] * N, dtype=object), "decimal")
    rng = random.Random(33)
    cat_ints = [rng.randint(-5, 5) for _ in range(N)]
    add("int_cat", pd.Series(cat_ints, dtype="category"), pd.Series(with_nulls(cat_ints, 34), dtype="category"),
        pd.Series([None] * N, dtype=pd.CategoricalDtype([1, 2])))
    # fixed_text with bytes: FIXED_LEN_BYTE_ARRAY(6) (with utf8 fastparquet annotates it UTF8,
    # which pyarrow refuses to open).
    fixed = [bytes(rng.randint(0, 255) for _ in range(6)) for _ in range(N)]
    add("fixed", pd.Series(fixed, dtype=object), pd.Series(with_nulls(fixed, 35), dtype=object),
        pd.Series([None] * N, dtype=object), "bytes")
    js = [{"k": rng.randint(0, 9), "s": rng.choice(WORDS)} for _ in range(N)]
    add("json", pd.Series(js, dtype=object), pd.Series(with_nulls(js, 36), dtype=object),
        pd.Series([None] * N, dtype=object), "json")
    df = pd.DataFrame(frame)
    # Brotli at its default level (11) is slow: level 1 (fastparquet's per-column compression
    # arguments fail on categorical columns).
    import cramjam
    import fastparquet.compression as fc
    fc.compressions["BROTLI"] = lambda data: cramjam.brotli.compress(data, level=1)
    names = []
    codecs = ["UNCOMPRESSED", "SNAPPY", "ZSTD", "GZIP", "LZ4", "LZ4_RAW", "BROTLI"]
    for ci, codec in enumerate(codecs):
        for version in (1, 2):
            times = "int96" if (ci + version) % 2 == 0 else "int64"
            small = ci % 2 == 1
            name = f"fastparquet_{codec.lower()}_v{version}_{times}{'_smallpages' if small else ''}.parquet"
            fw.DATAPAGE_VERSION = version
            fw.MAX_PAGE_SIZE = 2048 if small else 500 * 2**20
            fastparquet.write(f"{out}/{name}", df, row_group_offsets=1500, compression=codec,
                              has_nulls=has_nulls, object_encoding=encoding or "infer",
                              fixed_text={"fixed": 6, "fixed_n": 6, "fixed_z": 6},
                              times=times, write_index=False, stats=(ci % 2 == 0))
            names.append(name)
    return names


# --- pyarrow's reading --------------------------------------------------------------------

def page_types(path, md):
    """Page header types of every column chunk of the first row group."""
    from fastparquet.cencoding import NumpyIO, ThriftObject
    data = open(path, "rb").read()
    seen = set()
    rg = md.row_group(0)
    for c in range(rg.num_columns):
        col = rg.column(c)
        start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
        f = NumpyIO(data)
        f.seek(start)
        end = start + col.total_compressed_size
        count = 0
        while f.tell() < end:
            ph = ThriftObject.from_buffer(f, "PageHeader")
            seen.add({0: "DATA_PAGE", 2: "DICTIONARY_PAGE", 3: "DATA_PAGE_V2"}.get(ph.type, str(ph.type)))
            count += ph.type != 2
            f.seek(ph.compressed_page_size, 1)
        if count > 1:
            seen.add("MULTIPLE_DATA_PAGES")
    return sorted(seen)


def nested(ty):
    return t.is_nested(ty) or (t.is_dictionary(ty) and nested(ty.value_type))


def dump(out, name):
    path = f"{out}/{name}"
    entry = {"name": name}
    try:
        md = pq.ParquetFile(path).metadata
    except Exception as e:  # noqa: BLE001
        entry["status"] = "error: " + str(e)[:200]
        return entry
    entry["row_groups"] = md.num_row_groups
    entry["codecs"] = sorted({md.row_group(r).column(c).compression
                              for r in range(md.num_row_groups) for c in range(md.num_columns)})
    entry["encodings"] = sorted({e for r in range(md.num_row_groups) for c in range(md.num_columns)
                                 for e in md.row_group(r).column(c).encodings})
    entry["physical_types"] = sorted({md.row_group(0).column(c).physical_type for c in range(md.num_columns)})
    entry["page_types"] = page_types(path, md)
    try:
        tab = pq.read_table(path)
    except Exception as e:  # noqa: BLE001
        # Column by column: keep the ones pyarrow reads; DuckDB reads the others (its own
        # files only) into `<name>.duckdb.arrow` as a second opinion.
        pf = pq.ParquetFile(path)
        names = pf.schema_arrow.names
        good, bad = [], []
        for j, col in enumerate(names):
            try:
                pf.read(columns=[col])
                good.append(j)
            except Exception as e2:  # noqa: BLE001
                bad.append(j)
                entry.setdefault("skipped", []).append(f"{col}: pyarrow: {str(e2)[:120]}")
        if not good:
            entry["status"] = "error: " + str(e)[:200]
            return entry
        tab = pq.read_table(path, columns=[names[j] for j in good])
        if name.startswith("duckdb") and bad:
            import duckdb
            cols = ", ".join('"' + names[j] + '"' for j in bad)
            dt = duckdb.sql(f"SELECT {cols} FROM read_parquet('{path}')").to_arrow_table().combine_chunks()
            entry["duckdb_columns"] = bad
            with pa.ipc.new_file(path[: -len(".parquet")] + ".duckdb.arrow", dt.schema) as w:
                for b in dt.to_batches():
                    w.write_batch(b)
        index = good
    else:
        index = list(range(len(tab.schema)))
    keep = [k for k, f in enumerate(tab.schema) if not nested(f.type)]
    if not keep:
        entry["status"] = "nested"
        return entry
    tab = tab.select(keep)
    entry["columns"] = [index[k] for k in keep]
    entry["status"] = "ok"
    tab = tab.combine_chunks()
    with pa.ipc.new_file(path[: -len(".parquet")] + ".arrow", tab.schema) as w:
        for b in tab.to_batches():
            w.write_batch(b)
    return entry


def main():
    writer, out = sys.argv[1], sys.argv[2]
    names = {"duckdb": write_duckdb, "polars": write_polars, "fastparquet": write_fastparquet}[writer](out)
    print(json.dumps([dump(out, n) for n in names]))


if __name__ == "__main__":
    main()
