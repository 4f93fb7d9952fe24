"""pyarrow's side of read_filter.rs.

  read_filter.py gen OUT.parquet [plain] [noindex]
      writes the generated table (every primitive type the filters take, nulls, NaN, -0.0,
      several row groups with statistics, small pages, Bloom filters); plain: without
      dictionaries, pages of 512 bytes (several pages per chunk); noindex: no page index
  read_filter.py dictgen OUT.parquet
      writes a table of 8 row groups of dictionary-encoded columns whose statistics span
      every value (each group holds the smallest and largest) while each group's dictionary
      holds a few values of its own; prints JSON {column: [[values of row group 0], ...]}
  read_filter.py samples FILE...
      prints JSON {file: {column: [[sql_literal, value], ...]}}: literals drawn from each
      primitive top-level column (its values, bounds and beyond)
  read_filter.py take FILE RANGES.json OUT.arrow
      writes the rows of RANGES.json ([[start, end], ...]) of FILE, by pyarrow's take
  read_filter.py filter CASES.json OUTDIR
      CASES.json: [[file, tree], ...]; writes OUTDIR/<i>.arrow, pq.read_table(file,
      filters=<tree as a pyarrow expression>), IN built as an OR of equalities (SQL null
      semantics); prints the JSON list of cases where that read disagrees with pyarrow's
      in-memory filter (whose rows are then written)
"""

import datetime
import decimal
import json
import random
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def gen(out, plain=False, index=True):
    rng = random.Random(7)
    n = 12000

    def maybe(v, p=0.1):
        return None if rng.random() < p else v

    words = ["apple", "banana", "cherry", "it's", "kiwi", "lemon", "mango", "zebra", ""]
    base = datetime.datetime(2020, 1, 31, 8, 0, 0)
    floats = [maybe(rng.choice([rng.uniform(-100, 100), float("nan"), -0.0, 0.0, 1.5])) for _ in range(n)]
    table = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "i32": pa.array([maybe(rng.randint(-1000, 1000)) for _ in range(n)], pa.int32()),
            "u32": pa.array([maybe(rng.randint(0, 4_000_000_000)) for _ in range(n)], pa.uint32()),
            "f64": pa.array(floats, pa.float64()),
            "f32": pa.array([maybe(rng.uniform(-5, 5)) for _ in range(n)], pa.float32()),
            "s": pa.array(sorted(maybe(rng.choice(words)) or "" for _ in range(n)), pa.string()),
            "sn": pa.array([maybe(rng.choice(words), 0.3) for _ in range(n)], pa.string()),
            "b": pa.array([maybe(rng.random() < 0.5) for _ in range(n)], pa.bool_()),
            "d": pa.array([maybe(datetime.date(2020, 1, 1) + datetime.timedelta(days=i // 40)) for i in range(n)], pa.date32()),
            "ts": pa.array(
                [(maybe if i >= 10 else (lambda v: v))(base + datetime.timedelta(seconds=i * 7, microseconds=250000 * (i % 4))) for i in range(n)],
                pa.timestamp("us", tz="UTC"),
            ),
            "tsn": pa.array([(maybe if i >= 10 else (lambda v: v))(base + datetime.timedelta(minutes=i)) for i in range(n)], pa.timestamp("ms")),
            "dec": pa.array([maybe(decimal.Decimal(rng.randint(-99999, 99999)) / 100) for _ in range(n)], pa.decimal128(10, 2)),
            "dict": pa.array([maybe(rng.choice(words)) for _ in range(n)], pa.string()).dictionary_encode(),
            "all_null": pa.array([None] * n, pa.int64()),
        }
    )
    pq.write_table(
        table,
        out,
        row_group_size=1500,
        data_page_size=512 if plain else 2048,
        use_dictionary=not plain,
        write_batch_size=64 if plain else None,
        write_statistics=True,
        write_page_index=index,
        bloom_filter_options={c: {"ndv": 1500, "fpp": 0.01} for c in ["i32", "u32", "f64", "sn", "d", "dec", "dict"]},
    )


def gen_dictionary(out):
    rng = random.Random(5)
    words = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "kiwi", "zebra"]
    groups, rows = 8, 1000
    w, n, ids = [], [], []
    for g in range(groups):
        own = [words[1 + g % 7], words[1 + (g + 3) % 7]]
        for i in range(rows):
            pick = ["apple", "zebra"][i % 2] if i < 2 else rng.choice(own + ["apple", "zebra"])
            w.append(None if i > 2 and rng.random() < 0.1 else pick)
            n.append([0, 1000][i % 2] if i < 2 else rng.choice([0, 1000, 10 * g + 1, 10 * g + 2]))
            ids.append(g * rows + i)
    table = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "w": pa.array(w, pa.string()),
            "n": pa.array(n, pa.int64()),
            "wd": pa.array(w, pa.string()).dictionary_encode(),
        }
    )
    pq.write_table(
        table,
        out,
        row_group_size=rows,
        use_dictionary=["w", "n", "wd"],
        write_statistics=True,
        data_page_size=1024,
    )
    meta = pq.ParquetFile(out)
    values = {}
    for c in ["w", "n"]:
        values[c] = [
            sorted({v for v in meta.read_row_group(g, columns=[c]).column(c).to_pylist() if v is not None})
            for g in range(groups)
        ]
    print(json.dumps(values))


def sql_string(s):
    return "'" + s.replace("'", "''") + "'"


def literal(v, t):
    """[sql_text, json_value] of the Python value v of a column of type t."""
    if isinstance(v, bool):
        return ["TRUE" if v else "FALSE", v]
    if isinstance(v, int):
        return [str(v), v]
    if isinstance(v, float):
        if v != v:
            return None
        return [repr(v), v]
    if isinstance(v, decimal.Decimal):
        return [str(v), str(v)]
    if isinstance(v, str):
        return [sql_string(v), v]
    if isinstance(v, bytes):
        return None
    if isinstance(v, datetime.datetime):
        s = v.replace(tzinfo=None).isoformat(sep=" ")
        return [sql_string(s), s]
    if isinstance(v, datetime.date):
        return [sql_string(v.isoformat()), v.isoformat()]
    return None


def primitive(t):
    if pa.types.is_dictionary(t):
        t = t.value_type
    return (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_boolean(t)
        or pa.types.is_date32(t)
        or (pa.types.is_timestamp(t) and t.unit in ("ms", "us"))
        or pa.types.is_decimal(t)
    ) and not pa.types.is_float16(t)


def samples(files):
    rng = random.Random(11)
    out = {}
    for f in files:
        table = pq.read_table(f)
        cols = {}
        for field in table.schema:
            if not primitive(field.type):
                continue
            values = [v for v in table.column(field.name).to_pylist() if v is not None]
            picks = []
            if values:
                ordered = sorted(values, key=lambda v: (v != v, v)) if not pa.types.is_boolean(field.type) else values
                picks = [ordered[0], ordered[-1]] + rng.sample(values, min(8, len(values)))
            t = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
            if pa.types.is_integer(t):
                picks += [-(2**31), 2**31 - 1, 0, 3]
                if pa.types.is_unsigned_integer(t):
                    picks = [p for p in picks if p >= 0]
                if t.bit_width < 64:
                    lo, hi = (0, 2**t.bit_width - 1) if pa.types.is_unsigned_integer(t) else (-(2 ** (t.bit_width - 1)), 2 ** (t.bit_width - 1) - 1)
                    picks = [p for p in picks if lo <= p <= hi]
            elif pa.types.is_floating(t):
                picks += [0.0, -1e30, 1e30, 2.5]
            elif pa.types.is_string(t) or pa.types.is_large_string(t):
                picks += ["", "zzz", "a"]
            lits = [literal(p, t) for p in picks]
            cols[field.name] = [l for l in lits if l is not None]
        out[f] = cols
    print(json.dumps(out))


def scalar(v, t):
    if pa.types.is_dictionary(t):
        t = t.value_type
    if v is None:
        return pa.scalar(None, type=t)
    if pa.types.is_timestamp(t):
        dt = datetime.datetime.fromisoformat(v)
        if t.tz is not None:
            dt = dt.replace(tzinfo=datetime.timezone.utc)
        return pa.scalar(dt, type=t)
    if pa.types.is_date32(t):
        return pa.scalar(datetime.date.fromisoformat(v), type=t)
    if pa.types.is_decimal(t):
        return pa.scalar(decimal.Decimal(v), type=t)
    return pa.scalar(v, type=t)


def expr(tree, schema):
    kind = tree[0]
    if kind == "and":
        return expr(tree[1], schema) & expr(tree[2], schema)
    if kind == "or":
        return expr(tree[1], schema) | expr(tree[2], schema)
    if kind == "not":
        return ~expr(tree[1], schema)
    column = tree[1]
    field = pc.field(column)
    t = schema.field(column).type
    if kind == "isnull":
        e = field.is_null()
        return ~e if tree[2] else e
    if kind == "in":
        e = None
        for v in tree[2]:
            eq = field == scalar(v, t)
            e = eq if e is None else (e | eq)
        return ~e if tree[3] else e
    op, v = tree[2], scalar(tree[3], t)
    return {
        "=": field == v,
        "!=": field != v,
        "<": field < v,
        "<=": field <= v,
        ">": field > v,
        ">=": field >= v,
    }[op]


def decoded(table):
    """`table` with dictionary columns decoded (their dictionaries may differ) and NaN
    replaced by infinity (NaN never equals NaN)."""
    cols = []
    for c in table.columns:
        if pa.types.is_dictionary(c.type):
            c = c.cast(c.type.value_type)
        if pa.types.is_floating(c.type):
            c = pc.if_else(pc.is_nan(c), pa.scalar(float("inf"), c.type), c)
        cols.append(c)
    return pa.table(cols, names=table.column_names)


def same(a, b):
    return a.num_rows == b.num_rows and decoded(a).equals(decoded(b))


def run_filters(cases_path, outdir):
    with open(cases_path) as f:
        cases = json.load(f)
    schemas = {}
    disagree = []
    for i, (path, tree) in enumerate(cases):
        if path not in schemas:
            schemas[path] = pq.read_schema(path)
        e = expr(tree, schemas[path])
        table = pq.read_table(path, filters=e)
        # pyarrow prunes row groups by statistics whose bound is NaN (nan_in_stats.parquet):
        # where that loses rows its in-memory filter keeps, the latter is the expectation.
        in_memory = pq.read_table(path).filter(e)
        if not same(in_memory, table):
            disagree.append(i)
            table = in_memory
        batches = table.combine_chunks().to_batches()
        with pa.ipc.new_file(f"{outdir}/{i}.arrow", table.schema) as w:
            for b in batches[:1]:
                w.write_batch(b)
    print(json.dumps(disagree))


def take(path, ranges_path, out):
    """The rows of the ranges in ranges_path (JSON [[start, end], ...]) of the file."""
    with open(ranges_path) as f:
        ranges = json.load(f)
    table = pq.read_table(path)
    indices = [i for s, e in ranges for i in range(s, e)]
    table = table.take(pa.array(indices, pa.int64())).combine_chunks()
    with pa.ipc.new_file(out, table.schema) as w:
        for b in table.to_batches()[:1]:
            w.write_batch(b)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2], "plain" in sys.argv[3:], "noindex" not in sys.argv[3:])
    elif cmd == "dictgen":
        gen_dictionary(sys.argv[2])
    elif cmd == "samples":
        samples(sys.argv[2:])
    elif cmd == "filter":
        run_filters(sys.argv[2], sys.argv[3])
    elif cmd == "take":
        take(sys.argv[2], sys.argv[3], sys.argv[4])
