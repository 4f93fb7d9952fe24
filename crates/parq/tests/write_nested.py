"""Peer checks of the nested files parq writes (write_nested.rs): pyarrow 26, DuckDB and polars
read each file equal to its input, and pyarrow's own writing of that input has the same
Parquet schema and per leaf the same statistics.

Usage:
  write_nested.py check MANIFEST
      MANIFEST: a JSON list of {"name", "parquet": parq's file, "ipc": the input as an Arrow
      IPC file, "compliant": list naming, "statistics": whether parq wrote statistics,
      "reference": where to write pyarrow's file}. For each file:
      - pyarrow (`pq.read_table`), DuckDB (`read_parquet`, as Arrow) and polars
        (`pl.read_parquet`) read it equal to the input: the same columns and per column the
        same Python values (`to_pylist` / `to_list`; maps as lists of (key, value) pairs,
        polars' dicts of maps turned into such lists); pyarrow also with the input's types
        and nullability at every level, the names of list elements and map entries left
        aside. polars 2.1 panics on an ARROW:schema holding a list view: its check of such a
        file is skipped, with the reason.
      - pyarrow writes the input (string and binary views as plain strings and binaries, see
        `Input.plain`) with the row groups of parq's file, list naming as parq's and the page
        index to "reference"; the two files have the same Parquet schema below the root
        (`str(ParquetFile.schema)`: names, repetition, physical and logical types, LIST and
        MAP annotations) and per row group and leaf the same path, num_values and, when parq
        wrote statistics, the same null count, number of values and min / max (or both none);
        without statistics, parq's chunks have none.
      Prints one JSON object: {"files": [{"name", "failures": [...], "polars": "ok" |
      "skipped: reason", "reference", "chunks": leaf chunks compared}]}.
"""
import difflib
import json
import sys

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

LISTS = (pa.types.is_list, pa.types.is_large_list, pa.types.is_fixed_size_list,
         pa.types.is_list_view, pa.types.is_large_list_view)


def is_list(t):
    return any(f(t) for f in LISTS)


def canon_type(t):
    """The type with the names of list elements and map entries left aside, no metadata."""
    if pa.types.is_map(t):
        return ("map", canon_field(t.key_field), canon_field(t.item_field), t.keys_sorted)
    if is_list(t):
        kind = str(t).split("<")[0]
        size = t.list_size if pa.types.is_fixed_size_list(t) else None
        return (kind, size, canon_field(t.value_field))
    if pa.types.is_struct(t):
        return ("struct", tuple((f.name, canon_field(f)) for f in t))
    if pa.types.is_dictionary(t):
        return ("dictionary", str(t.index_type), canon_type(t.value_type))
    return str(t)


def canon_field(f):
    return (f.nullable, canon_type(f.type))


def has_view(t):
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return True
    if pa.types.is_map(t):
        return has_view(t.key_type) or has_view(t.item_type)
    if is_list(t):
        return has_view(t.value_type)
    if pa.types.is_struct(t):
        return any(has_view(f.type) for f in t)
    return False


def plain_type(t):
    """`t` with string and binary views as plain strings and binaries."""
    if pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_binary_view(t):
        return pa.binary()
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(plain_type(t.key_type)),
                       t.item_field.with_type(plain_type(t.item_type)), t.keys_sorted)
    if is_list(t):
        f = t.value_field.with_type(plain_type(t.value_type))
        if pa.types.is_fixed_size_list(t):
            return pa.list_(f, t.list_size)
        make = {pa.types.is_list: pa.list_, pa.types.is_large_list: pa.large_list,
                pa.types.is_list_view: pa.list_view,
                pa.types.is_large_list_view: pa.large_list_view}
        return next(m for test, m in make.items() if test(t))(f)
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(plain_type(f.type)) for f in t])
    if pa.types.is_dictionary(t):
        return pa.dictionary(t.index_type, plain_type(t.value_type))
    return t


def norm(v, t):
    """A Python value of type `t` in one form for every reader."""
    if v is None:
        return None
    if pa.types.is_map(t):
        items = v.items() if isinstance(v, dict) else v
        return [(norm(k, t.key_type), norm(x, t.item_type)) for k, x in items]
    if is_list(t):
        return [norm(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: norm(v.get(f.name), f.type) for f in t}
    if pa.types.is_dictionary(t):
        return norm(v, t.value_type)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    return v


def compare_values(who, columns, exp, fails):
    """columns: name -> list of Python values read by `who`; exp: the Input."""
    if list(columns) != exp.table.column_names:
        fails.append(f"{who}: columns {list(columns)}, expected {exp.table.column_names}")
        return
    for f in exp.table.schema:
        want = exp.values(f.name)
        got = [norm(v, f.type) for v in columns[f.name]]
        if got != want:
            if len(got) != len(want):
                fails.append(f"{who}: `{f.name}` {len(got)} rows, expected {len(want)}")
                continue
            i = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
            fails.append(f"{who}: `{f.name}` differs first at row {i}: {got[i]!r} expected "
                         f"{want[i]!r}"[:600])


class Input:
    """The input table of an IPC file, its columns' Python values normalized once."""

    def __init__(self, path):
        self.table = pa.ipc.open_file(path).read_all().combine_chunks()
        self._values = {}

    def values(self, name):
        if name not in self._values:
            t = self.table.schema.field(name).type
            self._values[name] = [norm(v, t) for v in self.table.column(name).to_pylist()]
        return self._values[name]

    def plain(self):
        """The table with views as plain strings and binaries (cast, or rebuilt from its
        Python values where pyarrow 26 has no cast: inside list views)."""
        columns = []
        for f in self.table.schema:
            col = self.table.column(f.name)
            t = plain_type(f.type)
            if t != f.type:
                try:
                    col = col.cast(t)
                except pa.ArrowNotImplementedError:
                    col = pa.array(col.to_pylist(), type=t)
            columns.append(col)
        schema = pa.schema([f.with_type(plain_type(f.type)) for f in self.table.schema])
        return pa.Table.from_arrays(columns, schema=schema)


def schema_lines(pf):
    """The schema tree below its root (whose name is no part of the data: pyarrow's is
    `schema`, arrow-rs' `arrow_schema`)."""
    return str(pf.schema).splitlines()[2:]


def stat_values(c):
    s = c.statistics
    if s is None or not c.is_stats_set:
        return None
    mm = (s.min, s.max) if s.has_min_max else None
    return {"null_count": s.null_count, "num_values": s.num_values, "min_max": mm}


def check(entry, con, inputs):
    fails = []
    path = entry["parquet"]
    if entry["ipc"] not in inputs:
        inputs[entry["ipc"]] = Input(entry["ipc"])
    exp = inputs[entry["ipc"]]

    # pyarrow: types up to child names, then values (as Arrow arrays of the input's types,
    # else as Python values to show the first difference).
    try:
        got = pq.read_table(path)
        for g, w in zip(got.schema, exp.table.schema):
            if canon_field(g) != canon_field(w):
                fails.append(f"pyarrow: `{w.name}` reads as {g.type} (nullable {g.nullable}), "
                             f"expected {w.type} (nullable {w.nullable})")
        same = got.column_names == exp.table.column_names
        for name in got.column_names if same else []:
            g, w = got.column(name).combine_chunks(), exp.table.column(name).combine_chunks()
            try:
                same = same and g.cast(w.type).equals(w)
            except pa.ArrowException:
                same = False
        if not same:
            compare_values("pyarrow", {n: got.column(n).to_pylist() for n in got.column_names},
                           exp, fails)
    except Exception as e:  # noqa: BLE001 - reported as a failure
        fails.append(f"pyarrow reads: {e}")

    # DuckDB
    try:
        got = con.sql(f"select * from read_parquet('{path}')").arrow().read_all()
        compare_values("duckdb", {n: got.column(n).to_pylist() for n in got.column_names}, exp,
                       fails)
    except Exception as e:  # noqa: BLE001
        fails.append(f"duckdb reads: {e}")

    # polars
    polars = "ok"
    try:
        df = pl.read_parquet(path)
        compare_values("polars", {n: df.get_column(n).to_list() for n in df.columns}, exp, fails)
    except BaseException as e:  # noqa: BLE001 - polars panics are BaseExceptions
        if any(has_view(f.type) for f in exp.table.schema) and "not yet implemented" in str(e):
            polars = "skipped: polars 2.1 cannot read an ARROW:schema holding a list view " \
                     f"({type(e).__name__}: {e})"
        else:
            fails.append(f"polars reads: {type(e).__name__}: {e}")

    # pyarrow's writing of the same input, same row groups.
    pf = pq.ParquetFile(path)
    md = pf.metadata
    sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    ref = entry["reference"]
    # pyarrow 26 cannot write a nested string_view or binary_view that it has to slice (a
    # row group of a table, the values of a list view: "Slicing not implemented for
    # StringView"): it writes the input with plain strings and binaries, the same Parquet
    # types.
    plain = exp.plain()
    with pq.ParquetWriter(ref, plain.schema, use_compliant_nested_type=entry["compliant"],
                          write_page_index=True) as w:
        off = 0
        for n in sizes:
            w.write_table(plain.slice(off, n), row_group_size=n)
            off += n
    rf = pq.ParquetFile(ref)
    rmd = rf.metadata
    chunks = 0
    if schema_lines(pf) != schema_lines(rf):
        diff = difflib.unified_diff(schema_lines(rf), schema_lines(pf), "pyarrow", "parq", n=2,
                                    lineterm="")
        fails.append("schema differs from pyarrow's:\n" + "\n".join(diff))
    elif [rmd.row_group(i).num_rows for i in range(rmd.num_row_groups)] != sizes:
        fails.append(f"pyarrow wrote other row groups than {sizes}")
    else:
        for g in range(md.num_row_groups):
            for j in range(md.num_columns):
                c, r = md.row_group(g).column(j), rmd.row_group(g).column(j)
                where = f"row group {g} `{c.path_in_schema}`"
                chunks += 1
                if (c.path_in_schema, c.num_values, c.physical_type) != \
                        (r.path_in_schema, r.num_values, r.physical_type):
                    fails.append(f"{where}: {c.num_values} values ({c.physical_type}), pyarrow "
                                 f"`{r.path_in_schema}` {r.num_values} ({r.physical_type})")
                    continue
                ours, theirs = stat_values(c), stat_values(r)
                if not entry["statistics"]:
                    if ours is not None:
                        fails.append(f"{where}: statistics {ours} without statistics")
                elif ours != theirs:
                    fails.append(f"{where}: statistics {ours}, pyarrow {theirs}"[:600])
    return {"name": entry["name"], "failures": fails, "polars": polars, "reference": ref,
            "chunks": chunks}


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        sys.exit(__doc__)
    with open(sys.argv[2]) as f:
        manifest = json.load(f)
    con = duckdb.connect()
    inputs = {}
    print(json.dumps({"files": [check(e, con, inputs) for e in manifest]}))


if __name__ == "__main__":
    main()
