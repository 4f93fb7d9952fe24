"""Expected readings for real_world.rs: the real-world corpus (`real-world/` of the shared test
data) as pyarrow 26 and DuckDB read it.

Usage:
  real_world.py pyarrow OUT_DIR FILE...   pq.read_table of each FILE (that pyarrow reads) to
      OUT_DIR/<index>.arrow (one batch); prints a JSON list of statuses: "flat" | "nested"
      (some column is a struct, list or map) | "error: ...". A "binary " prefix means the
      table holds strings that are not valid UTF-8 (pyarrow does not check): its string
      columns were written as binary.
  real_world.py duckdb FILE PARQ_ARROW ...  pairs of a Parquet file and parq's reading of it
      (an Arrow IPC file); prints a JSON list: "equal" | "differs: ..." | "duckdb refuses: ...".
      Columns are compared by position, DuckDB's values cast to parq's types.
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.types as t


def nested(ty):
    return t.is_nested(ty) or (t.is_dictionary(ty) and nested(ty.value_type))


def as_binary(ty):
    if t.is_string(ty):
        return pa.binary()
    if t.is_large_string(ty):
        return pa.large_binary()
    if t.is_dictionary(ty):
        return pa.dictionary(ty.index_type, as_binary(ty.value_type), ty.ordered)
    if t.is_map(ty):
        return pa.map_(ty.key_field.with_type(as_binary(ty.key_type)),
                       ty.item_field.with_type(as_binary(ty.item_type)), ty.keys_sorted)
    if t.is_list(ty):
        return pa.list_(ty.value_field.with_type(as_binary(ty.value_type)))
    if t.is_large_list(ty):
        return pa.large_list(ty.value_field.with_type(as_binary(ty.value_type)))
    if t.is_fixed_size_list(ty):
        return pa.list_(ty.value_field.with_type(as_binary(ty.value_type)), ty.list_size)
    if t.is_struct(ty):
        return pa.struct([f.with_type(as_binary(f.type)) for f in ty])
    return ty


def utf8_valid(tab):
    """Whether every string column holds valid UTF-8."""
    for c in tab.columns:
        if as_binary(c.type) != c.type:
            try:
                c.validate(full=True)
            except pa.ArrowInvalid:
                return False
    return True


def dump_pyarrow(out, paths):
    res = []
    for i, path in enumerate(paths):
        try:
            tab = pq.read_table(path)
        except Exception as e:  # noqa: BLE001 - any refusal is a status
            res.append("error: " + str(e)[:200])
            continue
        status = "nested" if any(nested(f.type) for f in tab.schema) else "flat"
        tab = tab.combine_chunks()
        if not utf8_valid(tab):
            fields = [f.with_type(as_binary(f.type)) for f in tab.schema]
            cols = [pa.chunked_array([k.view(as_binary(c.type)) for k in c.chunks], as_binary(c.type))
                    if as_binary(c.type) != c.type else c
                    for c in tab.columns]
            tab = pa.Table.from_arrays(cols, schema=pa.schema(fields, tab.schema.metadata))
            status = "binary " + status
        with pa.ipc.new_file(f"{out}/{i}.arrow", tab.schema) as w:
            for b in tab.to_batches():
                w.write_batch(b)
        res.append(status)
    print(json.dumps(res))


def compare_duckdb(pairs):
    import duckdb

    res = []
    for path, parq_file in pairs:
        got = pa.ipc.open_file(parq_file).read_all()
        try:
            rel = duckdb.sql("SELECT * FROM read_parquet(?)", params=[path])
            want = rel.fetch_arrow_table() if hasattr(rel, "fetch_arrow_table") else rel.arrow()
            if hasattr(want, "read_all"):
                want = want.read_all()
        except Exception as e:  # noqa: BLE001
            res.append("duckdb refuses: " + str(e)[:200])
            continue
        if want.num_columns != got.num_columns or want.num_rows != got.num_rows:
            res.append(f"differs: shape {got.shape} vs DuckDB {want.shape}")
            continue
        diff = None
        for k in range(got.num_columns):
            g = got.column(k).combine_chunks()
            try:
                w = want.column(k).combine_chunks().cast(g.type)
            except Exception as e:  # noqa: BLE001
                diff = f"column {k}: DuckDB's {want.column(k).type} does not cast to {g.type}: {e}"
                break
            if not g.equals(w):
                diff = f"column {k}: {g.to_pylist()[:5]} vs DuckDB {w.to_pylist()[:5]}"
                break
        res.append("equal" if diff is None else "differs: " + diff)
    print(json.dumps(res))


if __name__ == "__main__":
    if sys.argv[1] == "pyarrow":
        dump_pyarrow(sys.argv[2], sys.argv[3:])
    else:
        rest = sys.argv[2:]
        compare_duckdb(list(zip(rest[0::2], rest[1::2])))
