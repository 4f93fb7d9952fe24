"""Checks `parq cat` / `parq convert` outputs against pyarrow (called by ../cat_convert.rs).

argv[1] is a JSON list of jobs: {"file", "format": "csv"|"jsonl"|"table"|"arrow", "out",
"columns"?, "row_groups"?, "limit"?}. Expected values come from pyarrow only:
- the expected table is ParquetFile(file).read[_row_groups](...), columns in the order
  asked, sliced to the limit;
- cell text is pyarrow.compute.cast(column, pa.string()), except strings (as they are),
  binary (hex: lowercase in csv/jsonl, uppercase in tables), dictionaries (their values) and
  timestamps in named zones other than UTC (cast to UTC first: parq prints them in UTC + Z);
- arrow: the IPC file's types and values equal the pyarrow table (NaN equal to NaN).
Prints one line per failure and exits 1 if any.
"""
import csv
import json
import math
import re
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def expected_table(job):
    pf = pq.ParquetFile(job["file"])
    cols = job.get("columns")
    rgs = job.get("row_groups")
    t = pf.read_row_groups(rgs, columns=cols) if rgs is not None else pf.read(columns=cols)
    if cols is not None:
        t = t.select(cols)
    if job.get("limit") is not None:
        t = t.slice(0, job["limit"])
    return t


def is_numeric(typ):
    if pa.types.is_dictionary(typ):
        return is_numeric(typ.value_type)
    return (pa.types.is_integer(typ) or pa.types.is_floating(typ)
            or pa.types.is_duration(typ) or pa.types.is_decimal(typ))


def jnorm(v, typ):
    """A nested value as parq's JSON text parses (json.loads with the hooks of check_jsonl):
    objects as lists of (key, value) pairs, numbers as ("num", text)."""
    if v is None:
        return None
    if pa.types.is_struct(typ):
        return [(f.name, jnorm(v[f.name], f.type)) for f in typ]
    if pa.types.is_map(typ):
        return [(str(k), jnorm(x, typ.item_type)) for k, x in v]
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
        return [jnorm(x, typ.value_type) for x in v]
    if pa.types.is_dictionary(typ):
        return jnorm(v, typ.value_type)
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return ("num", str(v))
    return v


def cells(col, upper_hex):
    """(kind, text) per value, None for null (nested values: ("nested", value))."""
    typ = col.type
    if pa.types.is_nested(typ):
        return [None if v is None else ("nested", jnorm(v, typ)) for v in col.to_pylist()]
    if pa.types.is_dictionary(typ):
        col = col.cast(typ.value_type)
        typ = typ.value_type
    vals = col.to_pylist()
    if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
        return [None if v is None else ("text", v) for v in vals]
    if (pa.types.is_binary(typ) or pa.types.is_large_binary(typ)
            or pa.types.is_binary_view(typ) or pa.types.is_fixed_size_binary(typ)):
        return [None if v is None else ("bytes", v.hex().upper() if upper_hex else v.hex())
                for v in vals]
    if pa.types.is_boolean(typ):
        return [None if v is None else ("bool", "true" if v else "false") for v in vals]
    if pa.types.is_timestamp(typ) and typ.tz is not None and typ.tz != "UTC" \
            and not re.fullmatch(r"[+-]\d\d(:?\d\d)?", typ.tz):
        col = col.cast(pa.timestamp(typ.unit, "UTC"))
    texts = pc.cast(col, pa.string()).to_pylist()
    number = pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_duration(typ)
    out = []
    for v, s in zip(vals, texts):
        if v is None:
            out.append(None)
        elif number and isinstance(v, float) and not math.isfinite(v):
            out.append(("nonfinite", s))
        else:
            out.append(("num" if number else "text", s))
    return out


def columns_of(t, upper_hex=False):
    return [cells(c, upper_hex) for c in t.columns]


def check_csv(job, t, fail):
    with open(job["out"], newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != t.column_names:
        return fail(f"header {rows[:1]} != {t.column_names}")
    # A single-column row holding null is an empty line, which csv.reader reads as [].
    body = [r if r or t.num_columns != 1 else [""] for r in rows[1:]]
    if len(body) != t.num_rows:
        return fail(f"{len(body)} rows, pyarrow has {t.num_rows}")
    cols = columns_of(t)
    for r, row in enumerate(body):
        want = ["" if c[r] is None else c[r][1] for c in cols]
        if row != want:
            return fail(f"row {r}: {row} != {want}")


def num(s):
    return ("num", s)


def check_jsonl(job, t, fail):
    with open(job["out"]) as f:
        lines = f.read().splitlines()
    if len(lines) != t.num_rows:
        return fail(f"{len(lines)} lines, pyarrow has {t.num_rows} rows")
    cols = columns_of(t)
    for r, line in enumerate(lines):
        obj = json.loads(line, parse_float=num, parse_int=num, object_pairs_hook=list)
        if [k for k, _ in obj] != t.column_names:
            return fail(f"row {r}: keys {[k for k, _ in obj]}")
        for (k, got), c in zip(obj, cols):
            want = c[r]
            if want is None:
                ok = got is None
            elif want[0] == "bool":
                ok = got is (want[1] == "true")
            elif want[0] == "num":
                ok = got == ("num", want[1])
            elif want[0] == "nested":
                ok = got == want[1]
            else:  # text, bytes, nonfinite: JSON strings
                ok = got == want[1]
            if not ok:
                return fail(f"row {r} column {k}: {got!r} != {want!r}")


def check_table(job, t, fail):
    with open(job["out"]) as f:
        lines = f.read().split("\n")
    if lines[-1] != "":
        return fail("no final newline")
    lines = lines[:-1]

    def esc(s):
        return "".join(c.encode("unicode_escape").decode() if c in "\n\r\t" else c for c in s)

    names = [esc(n) for n in t.column_names]
    cols = [["null" if v is None else esc(v[1]) for v in c] for c in columns_of(t, True)]
    right = [is_numeric(f.type) for f in t.schema]
    widths = [max([len(n)] + [len(v) for v in c]) for n, c in zip(names, cols)]

    def line(vals):
        return "  ".join(v.rjust(w) if r else v.ljust(w)
                         for v, w, r in zip(vals, widths, right)).rstrip()

    want = [line(names), line(["-" * w for w in widths])]
    want += [line([c[r] for c in cols]) for r in range(t.num_rows)]
    if lines != want:
        for i, (a, b) in enumerate(zip(lines, want)):
            if a != b:
                return fail(f"line {i}: {a!r} != {b!r}")
        return fail(f"{len(lines)} lines, expected {len(want)}")


def norm(v):
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    return v


def check_arrow(job, t, fail):
    got = pa.ipc.open_file(job["out"]).read_all()
    if got.column_names != t.column_names:
        return fail(f"names {got.column_names} != {t.column_names}")
    for f, g in zip(t.schema, got.schema):
        if f.type != g.type or f.nullable != g.nullable:
            return fail(f"field {g} != pyarrow's {f}")
    if got.num_rows != t.num_rows:
        return fail(f"{got.num_rows} rows, pyarrow has {t.num_rows}")
    if got.equals(t):
        return
    for name in t.column_names:
        a = [norm(v) for v in got.column(name).to_pylist()]
        b = [norm(v) for v in t.column(name).to_pylist()]
        if a != b:
            return fail(f"column {name} differs: {a[:5]}... != {b[:5]}...")


def main():
    jobs = json.loads(sys.argv[1])
    failures = []
    for job in jobs:
        def fail(msg, job=job):
            failures.append(f"FAIL {job['format']} {job['file']} {job}: {msg}")
        t = expected_table(job)
        {"csv": check_csv, "jsonl": check_jsonl, "table": check_table,
         "arrow": check_arrow}[job["format"]](job, t, fail)
    for f in failures:
        print(f)
    print(f"checked {len(jobs)} jobs, {len(failures)} failures")
    sys.exit(1 if failures else 0)


main()
