"""`parq merge`, `parq append` and `parq rewrite` checked against pyarrow, DuckDB and polars.

Usage: check.py PARQ_BINARY WORKDIR TESTDATA

Inputs are written by pyarrow (page index, Bloom filters), DuckDB and polars, and taken from
parquet-testing. Every output must read, with each peer, equal to what that peer reads from
the inputs concatenated (columns united by name, int32 widened to int64); copied row groups
keep their statistics, page index and Bloom filters (DuckDB's `parquet_bloom_probe` gives the
same answers on the output as on the inputs). The append crash test kills `parq append`
(SIGKILL, injected by strace) at every write, copy, sync and rename it makes, and checks the
file is then the old one or the new one. Exits 1 with a message on the first difference.
"""

import os
import shutil
import subprocess
import sys

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

PARQ, WORK, TESTDATA = sys.argv[1], sys.argv[2], sys.argv[3]
DATA = os.path.join(TESTDATA, "parquet-testing", "data")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def path(name):
    return os.path.join(WORK, name)


def parq(*args, ok=True):
    r = subprocess.run([PARQ, *args], capture_output=True, text=True)
    if ok and r.returncode != 0:
        fail(f"parq {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r


def concat_pyarrow(inputs, schema):
    tables = []
    for f in inputs:
        t = pq.read_table(f)
        cols = []
        for field in schema:
            if field.name in t.column_names:
                cols.append(t.column(field.name).cast(field.type))
            else:
                cols.append(pa.nulls(t.num_rows, field.type))
        tables.append(pa.table(cols, schema=pa.schema(list(schema))))
    return pa.concat_tables(tables)


def same_rows_duckdb(out, inputs):
    """DuckDB reads `out` as the inputs unioned by name (as multisets of rows)."""
    files = ", ".join(f"'{f}'" for f in inputs)
    con = duckdb.connect()
    a = f"SELECT * FROM read_parquet('{out}')"
    b = f"SELECT * FROM read_parquet([{files}], union_by_name = true)"
    na = con.sql(f"SELECT count(*) FROM ({a})").fetchall()[0][0]
    nb = con.sql(f"SELECT count(*) FROM ({b})").fetchall()[0][0]
    if na != nb:
        fail(f"DuckDB: {out} has {na} rows, the inputs {nb}")
    cols = ", ".join(f'"{c}"' for c in con.sql(a).columns)
    for x, y in ((a, b), (b, a)):
        d = con.sql(f"SELECT count(*) FROM (SELECT {cols} FROM ({x}) EXCEPT ALL SELECT {cols} FROM ({y}))").fetchall()[0][0]
        if d:
            fail(f"DuckDB: {out} and its inputs differ in {d} rows")


def same_polars(out, inputs):
    got = pl.read_parquet(out)
    want = pl.concat([pl.read_parquet(f) for f in inputs], how="diagonal_relaxed")
    want = want.select(got.columns).cast(dict(got.schema))
    if not got.equals(want):
        fail(f"polars: {out} differs from its inputs concatenated")


def check_merged(out, inputs, copied):
    got = pq.read_table(out)
    want = concat_pyarrow(inputs, got.schema)
    if not got.equals(want):
        fail(f"pyarrow: {out} differs from its inputs concatenated")
    same_rows_duckdb(out, inputs)
    same_polars(out, inputs)
    md = pq.ParquetFile(out).metadata
    # Key-value metadata of every input is carried.
    kv = md.metadata or {}
    for f in inputs:
        for k in (pq.ParquetFile(f).metadata.metadata or {}):
            if k not in kv:
                fail(f"{out} lost key-value metadata {k!r} of {f}")
    if not copied:
        return
    # Copied row groups keep statistics, the page index and their sizes.
    k = 0
    for f in inputs:
        src = pq.ParquetFile(f).metadata
        for i in range(src.num_row_groups):
            a, b = src.row_group(i), md.row_group(k)
            k += 1
            if a.num_rows != b.num_rows:
                fail(f"{out} row group {k - 1}: {b.num_rows} rows, {f} row group {i} {a.num_rows}")
            for j in range(a.num_columns):
                ca, cb = a.column(j), b.column(j)
                if ca.total_compressed_size != cb.total_compressed_size:
                    fail(f"{out} rg {k - 1} col {j}: not copied byte for byte")
                sa, sb = ca.statistics, cb.statistics
                if (sa is None) != (sb is None) or (sa is not None and sa.to_dict() != sb.to_dict()):
                    fail(f"{out} rg {k - 1} col {j}: statistics {sb} != {sa}")
                if (ca.has_offset_index, ca.has_column_index) != (cb.has_offset_index, cb.has_column_index):
                    fail(f"{out} rg {k - 1} col {j}: page index not carried")


def bloom_answers(f, column, values):
    con = duckdb.connect()
    out = []
    for v in values:
        lit = f"'{v}'" if isinstance(v, str) else str(v)
        rows = con.sql(
            f"SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('{f}', '{column}', {lit}) ORDER BY row_group_id"
        ).fetchall()
        out.append([r[1] for r in rows])
    return out


def check_bloom(out, inputs, column, values):
    got = bloom_answers(out, column, values)
    want = [sum(parts, []) for parts in zip(*[bloom_answers(f, column, values) for f in inputs])]
    if got != want:
        fail(f"DuckDB parquet_bloom_probe on {out}: {got}, on the inputs {want}")
    if not any(any(x) for x in got):
        fail(f"{out}: no Bloom filter excluded anything: the filters were not carried")


def inputs():
    n = 3000
    base = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "name": pa.array([f"name-{i % 97}" if i % 11 else None for i in range(n)]),
            "tags": pa.array([[i, i * 2] if i % 5 else None for i in range(n)], pa.list_(pa.int64())),
            "point": pa.array([{"x": float(i), "y": -float(i)} for i in range(n)]),
            "ts": pa.array(range(n), pa.timestamp("us", tz="UTC")),
            "amount": pa.array([i * 100 for i in range(n)], pa.decimal128(12, 2)),
        }
    )
    base = base.replace_schema_metadata({"origin": "check.py"})
    opts = dict(row_group_size=700, write_page_index=True, bloom_filter_options={"name": {"ndv": 100}})
    pq.write_table(base.slice(0, 2000), path("p1.parquet"), **opts)
    pq.write_table(base.slice(2000), path("p2.parquet"), **opts)
    narrow = pa.table({"id": pa.array(range(5), pa.int32()), "name": ["a", "b", None, "d", "e"]})
    pq.write_table(narrow, path("narrow.parquet"))
    con = duckdb.connect()
    for k in range(2):
        con.sql(
            f"COPY (SELECT i AS k, 'v' || (i % 50) AS s, i * 0.5 AS d FROM range({k * 1000}, {(k + 1) * 1000}) t(i)) "
            f"TO '{path(f'd{k}.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 400)"
        )
    for k in range(2):
        pl.DataFrame({"a": list(range(k * 100, k * 100 + 100)), "b": [f"x{i}" for i in range(100)]}).write_parquet(
            path(f"pl{k}.parquet"), row_group_size=30
        )


def main():
    os.makedirs(WORK, exist_ok=True)
    inputs()
    p1, p2, narrow = path("p1.parquet"), path("p2.parquet"), path("narrow.parquet")

    # Same schema: every row group copied.
    parq("merge", p1, p2, path("m.parquet"))
    check_merged(path("m.parquet"), [p1, p2], copied=True)
    check_bloom(path("m.parquet"), [p1, p2], "name", ["name-3", "zzz", "name-96", "nope"])
    for d in (["d0.parquet", "d1.parquet"], ["pl0.parquet", "pl1.parquet"]):
        ins = [path(x) for x in d]
        parq("merge", *ins, path("m2.parquet"))
        check_merged(path("m2.parquet"), ins, copied=True)
    ducks = [path("d0.parquet"), path("d1.parquet")]
    parq("merge", *ducks, path("md.parquet"))
    check_bloom(path("md.parquet"), ducks, "s", ["v1", "v49", "w", "v99"])
    for name in ["alltypes_plain.parquet", "nested_lists.snappy.parquet", "datapage_v2.snappy.parquet",
                 "data_index_bloom_encoding_stats.parquet", "alltypes_tiny_pages.parquet", "nested_structs.rust.parquet"]:
        f = os.path.join(DATA, name)
        parq("merge", f, f, path("corpus.parquet"))
        check_merged(path("corpus.parquet"), [f, f], copied=True)

    # A widened column: the narrow file encoded again, the others copied.
    r = parq("merge", p1, narrow, p2, path("w.parquet"))
    if "1 files encoded again" not in r.stdout:
        fail(f"merge with a widened column: {r.stdout}")
    check_merged(path("w.parquet"), [p1, narrow, p2], copied=False)
    if pq.read_schema(path("w.parquet")).field("id").type != pa.int64():
        fail("the merged id column is not int64")

    # Refusals: the output is an input; a type that cannot be united.
    r = parq("merge", p1, p1, ok=False)
    if r.returncode != 1 or "output is one of the inputs" not in r.stderr:
        fail(f"merge onto an input: {r.returncode} {r.stderr}")
    pq.write_table(pa.table({"id": ["text"]}), path("bad.parquet"))
    r = parq("merge", p1, path("bad.parquet"), path("x.parquet"), ok=False)
    if r.returncode != 1 or os.path.exists(path("x.parquet")):
        fail(f"merge of int64 and string ids: {r.returncode} {r.stderr}")

    # Append: copied and encoded again, then read by every peer.
    shutil.copy(p1, path("t.parquet"))
    parq("append", path("t.parquet"), p2, narrow)
    check_merged(path("t.parquet"), [p1, p2, narrow], copied=False)
    r = parq("append", path("t.parquet"), path("bad.parquet"), ok=False)
    if r.returncode != 1:
        fail("append of a file with a column of another type succeeded")
    extra = pa.table({"id": pa.array([1], pa.int64()), "other": [1]})
    pq.write_table(extra, path("extra.parquet"))
    r = parq("append", path("t.parquet"), path("extra.parquet"), ok=False)
    if r.returncode != 1 or "other" not in r.stderr:
        fail(f"append of a column the file lacks: {r.returncode} {r.stderr}")
    check_merged(path("t.parquet"), [p1, p2, narrow], copied=False)

    # A file of another writer's Parquet schema (DuckDB's annotations) is rebuilt whole.
    shutil.copy(ducks[0], path("td.parquet"))
    r = parq("append", path("td.parquet"), ducks[1])
    if "rebuilt whole" not in r.stdout:
        fail(f"append to a DuckDB file: {r.stdout}")
    check_merged(path("td.parquet"), ducks, copied=True)

    crash_test(p1, p2)

    # Rewrite: sorted, a column dropped and one renamed, recompressed.
    parq("rewrite", p1, path("r.parquet"), "--sort-by", "name:desc,id", "--drop", "tags", "--rename",
         "point=pt", "--compression", "zstd", "--row-group-rows", "500")
    got = pq.read_table(path("r.parquet"))
    want = pq.read_table(p1).drop(["tags"]).rename_columns(["id", "name", "pt", "ts", "amount"])
    want = want.sort_by([("name", "descending"), ("id", "ascending")])
    if not got.equals(want):
        fail("rewrite: rows differ from pyarrow's sort of the input")
    md = pq.ParquetFile(path("r.parquet")).metadata
    if md.row_group(0).column(0).compression != "ZSTD" or md.row_group(0).num_rows != 500:
        fail("rewrite: the writer options were not applied")
    sc = md.row_group(0).sorting_columns
    if [(c.column_index, c.descending) for c in sc] != [(1, True), (0, False)]:
        fail(f"rewrite: sorting_columns {sc}")
    print("ok")


def syscall_counts(args, calls):
    """How many times `parq args` makes each of `calls`."""
    log = path("strace.log")
    subprocess.run(["strace", "-f", "-qq", "-o", log, "-e", "trace=" + ",".join(calls), PARQ, *args],
                   check=True, capture_output=True)
    counts = dict.fromkeys(calls, 0)
    with open(log) as fh:
        for line in fh:
            for c in calls:
                if f" {c}(" in line or line.startswith(f"{c}("):
                    counts[c] += 1
    return counts


def crash_test(p1, p2):
    """Kill `parq append` at every write-like system call; the file is old or new after each."""
    if shutil.which("strace") is None:
        fail("strace is missing: the append crash test needs it (apt-get install strace)")
    target = path("crash.parquet")
    old = pq.read_table(p1)
    shutil.copy(p1, target)
    parq("append", target, p2)
    new = pq.read_table(target)
    calls = ["write", "pwrite64", "writev", "copy_file_range", "sendfile", "fsync", "fdatasync",
             "rename", "renameat", "renameat2", "ftruncate"]
    shutil.copy(p1, target)
    counts = syscall_counts(["append", target, p2, "--quiet"], calls)
    if counts["rename"] + counts["renameat"] + counts["renameat2"] == 0 or counts["write"] == 0:
        fail(f"strace saw no writes or rename: {counts}")
    kills = 0
    for call, n in counts.items():
        for k in range(1, n + 1):
            shutil.copy(p1, target)
            for f in os.listdir(WORK):
                if f.startswith(".crash.parquet."):
                    os.remove(os.path.join(WORK, f))
            r = subprocess.run(["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={call}",
                                "-e", f"inject={call}:signal=SIGKILL:when={k}", PARQ, "append", target, p2, "--quiet"],
                               capture_output=True)
            kills += 1
            try:
                t = pq.read_table(target)
            except Exception as e:  # noqa: BLE001
                fail(f"killed at {call} #{k}: the file is unreadable: {e}")
            if not (t.equals(old) or t.equals(new)):
                fail(f"killed at {call} #{k}: the file is neither the old one nor the new one")
    if kills < 5:
        fail(f"only {kills} kill points: {counts}")
    print(f"append survived {kills} kills: {counts}")


main()
