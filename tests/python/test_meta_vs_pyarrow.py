"""`parq meta FILE --json` against pyarrow on every file of the shared corpus (and against
duckdb and fastparquet on a few).

For each corpus file:
  * parq must exit 0 with one valid JSON document, or exit non-zero with a one-line error:
    never a panic, a signal or a timeout (see conftest.assert_clean_exit);
  * when pyarrow can open the footer, parq must succeed too and report the same file metadata,
    schema, row groups, column chunks and statistics;
  * when pyarrow cannot, parq may fail cleanly or succeed: the outcome is printed in the session
    summary, not asserted.

pyarrow does not hand back the raw Thrift: it normalises a few things on the way in. Each place
where the comparison has to account for that carries a comment saying why.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import re
import struct
import warnings
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import assert_clean_exit, corpus_id, corpus_root

# ---------------------------------------------------------------------------------------------
# Helpers


class Unavailable:
    """A value pyarrow could not report (it raised while we asked for it)."""

    def __init__(self, what: str, err: Exception):
        self.what = what
        self.err = f"{type(err).__name__}: {err}".replace("\n", " ")

    def __repr__(self):
        return f"<pyarrow could not report {self.what}: {self.err}>"


def _get(what, fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - any pyarrow failure makes the value unavailable
        return Unavailable(what, e)


class Diffs:
    def __init__(self, cid: str, other: str = "pyarrow"):
        self.cid = cid
        self.other = other
        self.items: list[str] = []
        self.unavailable: list[str] = []

    def add(self, where: str, msg: str):
        self.items.append(f"{where}: {msg}")

    def eq(self, where: str, field: str, parq_value, pa_value):
        if isinstance(pa_value, Unavailable):
            self.unavailable.append(f"{where} {field}: {pa_value.err}")
            return
        if parq_value != pa_value:
            self.add(where, f"{field}: parq={parq_value!r} {self.other}={pa_value!r}")

    def fail_if_any(self):
        if self.items:
            shown = self.items[:60]
            more = f"\n... and {len(self.items) - 60} more" if len(self.items) > 60 else ""
            pytest.fail(
                f"{self.cid}: {len(self.items)} metadata mismatches between parq and "
                f"{self.other}:\n"
                + "\n".join(shown)
                + more,
                pytrace=False,
            )


def parq_meta_json(parq, path: Path):
    """Runs `parq meta FILE --json`; returns (result, parsed JSON or None)."""
    res = parq.run("meta", path, "--json")
    assert_clean_exit(res)
    if not res.ok:
        return res, None
    try:
        doc = json.loads(res.stdout)
    except json.JSONDecodeError as e:
        pytest.fail(f"{corpus_id(path)}: parq exited 0 but printed invalid JSON ({e}): "
                    f"{res.stdout[:500]!r}")
    assert isinstance(doc, dict), f"{corpus_id(path)}: parq JSON is not an object: {doc!r:.200}"
    return res, doc


# ---------------------------------------------------------------------------------------------
# Enum names: parq prints parquet.thrift names; pyarrow prints Arrow C++ names.


def _norm_enum(v):
    """parq prints unknown enum values as "UNKNOWN" (maybe with the number); pyarrow maps every
    value it does not know to "UNKNOWN"."""
    if isinstance(v, str) and v.upper().startswith("UNKNOWN"):
        return "UNKNOWN"
    if isinstance(v, int):
        return "UNKNOWN"
    return v


def pa_codec_name(parq_codec: str | None):
    """pyarrow's name for a parquet.thrift CompressionCodec."""
    if parq_codec is None:
        return None
    return {
        # Arrow calls the raw LZ4 block codec (thrift LZ4_RAW) "LZ4" ...
        "LZ4_RAW": "LZ4",
        # ... and reads the deprecated thrift LZ4 (Hadoop framing) as LZ4_HADOOP, which has no
        # Python name: pyarrow reports it as "UNKNOWN".
        "LZ4": "UNKNOWN",
    }.get(parq_codec, _norm_enum(parq_codec))


# pyarrow's logical type JSON name -> parquet.thrift LogicalType member.
PA_LOGICAL = {
    "String": "STRING",
    "Map": "MAP",
    "List": "LIST",
    "Enum": "ENUM",
    "Decimal": "DECIMAL",
    "Date": "DATE",
    "Time": "TIME",
    "Timestamp": "TIMESTAMP",
    "Int": "INTEGER",
    "Null": "UNKNOWN",  # thrift's NullType member is called UNKNOWN
    "JSON": "JSON",
    "BSON": "BSON",
    "UUID": "UUID",
    "Float16": "FLOAT16",
    "Variant": "VARIANT",
    "Geometry": "GEOMETRY",
    "Geography": "GEOGRAPHY",
    "None": None,
}
KNOWN_LOGICAL = {v for v in PA_LOGICAL.values() if v}

PA_TYPE_TOKEN = {
    "boolean": "BOOLEAN",
    "int32": "INT32",
    "int64": "INT64",
    "int96": "INT96",
    "float": "FLOAT",
    "double": "DOUBLE",
    "binary": "BYTE_ARRAY",
}


def _unit(v):
    """Normalise a time unit: parq "MILLIS" (or {"MILLIS": {}}), pyarrow "milliseconds"."""
    s = json.dumps(v).upper()
    for key, name in (("MILLI", "MILLIS"), ("MICRO", "MICROS"), ("NANO", "NANOS")):
        if key in s:
            return name
    return s


# ---------------------------------------------------------------------------------------------
# pyarrow snapshot


def pa_snapshot(md) -> dict:
    """Everything pyarrow reports about a footer, as plain Python values. Values pyarrow raises
    on become Unavailable (e.g. encrypted column metadata, undecodable UTF-8)."""
    snap = {
        "num_rows": _get("num_rows", lambda: md.num_rows),
        "num_row_groups": _get("num_row_groups", lambda: md.num_row_groups),
        "num_columns": _get("num_columns", lambda: md.num_columns),
        "created_by": _get("created_by", lambda: md.created_by),
        "kv": _get("key_value_metadata", lambda: md.metadata),
        "schema_str": _get("schema", lambda: str(md.schema)),
        "leaves": [],
        "row_groups": [],
    }
    ncols = snap["num_columns"] if isinstance(snap["num_columns"], int) else 0
    for i in range(ncols):
        c = _get(f"schema.column({i})", lambda i=i: md.schema.column(i))
        if isinstance(c, Unavailable):
            snap["leaves"].append(c)
            continue
        snap["leaves"].append(
            {
                "name": _get("name", lambda: c.name),
                "path": _get("path", lambda: c.path),
                "physical_type": _get("physical_type", lambda: c.physical_type),
                "max_definition_level": _get("max_def", lambda: c.max_definition_level),
                "max_repetition_level": _get("max_rep", lambda: c.max_repetition_level),
                "logical": _get("logical_type", lambda: json.loads(c.logical_type.to_json())),
                "converted_type": _get("converted_type", lambda: c.converted_type),
                "length": _get("length", lambda: c.length),
                "precision": _get("precision", lambda: c.precision),
                "scale": _get("scale", lambda: c.scale),
            }
        )
    nrg = snap["num_row_groups"] if isinstance(snap["num_row_groups"], int) else 0
    for r in range(nrg):
        rg = _get(f"row_group({r})", lambda r=r: md.row_group(r))
        if isinstance(rg, Unavailable):
            snap["row_groups"].append(rg)
            continue
        rgs = {
            "num_rows": _get("num_rows", lambda: rg.num_rows),
            "total_byte_size": _get("total_byte_size", lambda: rg.total_byte_size),
            "num_columns": _get("num_columns", lambda: rg.num_columns),
            "sorting_columns": _get(
                "sorting_columns",
                lambda: [(s.column_index, s.descending, s.nulls_first) for s in rg.sorting_columns],
            ),
            "columns": [],
        }
        n = rgs["num_columns"] if isinstance(rgs["num_columns"], int) else 0
        for j in range(n):
            rgs["columns"].append(_get(f"column({j})", lambda j=j: pa_column(rg.column(j))))
        snap["row_groups"].append(rgs)
    return snap


def pa_column(cc) -> dict:
    # index_page_offset is not asked for: pyarrow raises NotImplementedError for it (and for
    # has_index_page) whatever the file holds. The duckdb test compares it instead.
    fields = (
        "file_path", "file_offset", "physical_type", "path_in_schema", "num_values",
        "compression", "encodings", "total_compressed_size", "total_uncompressed_size",
        "data_page_offset", "dictionary_page_offset", "bloom_filter_offset",
        "bloom_filter_length", "has_column_index", "has_offset_index", "is_stats_set",
    )
    d = {f: _get(f, lambda f=f: getattr(cc, f)) for f in fields}
    d["key_value_metadata"] = _get("column key_value_metadata", lambda: cc.metadata)
    d["stats"] = None
    if d["is_stats_set"] is True:
        s = cc.statistics
        d["stats"] = {
            "null_count": _get("null_count", lambda: s.null_count if s.has_null_count else None),
            "distinct_count": _get(
                "distinct_count", lambda: s.distinct_count if s.has_distinct_count else None
            ),
            "has_min_max": _get("has_min_max", lambda: s.has_min_max),
            "min_raw": _get("statistics.min_raw", lambda: s.min_raw),
            "max_raw": _get("statistics.max_raw", lambda: s.max_raw),
        }
    return d


# pyarrow itself is not robust against every fuzzed footer: on some it aborts the process
# (a C++ assertion) while reporting a column chunk. So it runs in a forked child per file; a
# child that dies or hangs means "pyarrow crashed".
_FORK = multiprocessing.get_context("fork")
PYARROW_TIMEOUT_S = 60


def _pa_child(path, conn):
    import resource

    # An abort in pyarrow is expected on some fuzzed files: leave no core dump behind.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        md = pq.read_metadata(path)
    except Exception as e:  # noqa: BLE001 - whatever pyarrow raises, it cannot open the file
        conn.send(("unreadable", f"{type(e).__name__}: {e}".replace("\n", " ")))
        return
    conn.send(("opened", None))
    conn.send(("ok", pa_snapshot(md)))


def pa_read_isolated(path: Path):
    """("unreadable", error) if pq.read_metadata fails; ("ok", snapshot) if it succeeds;
    ("crashed", description) if pyarrow opened the file but then crashed or hung."""
    recv, send = _FORK.Pipe(duplex=False)
    child = _FORK.Process(target=_pa_child, args=(path, send), daemon=True)
    child.start()
    send.close()
    msgs = []
    try:
        while len(msgs) < 2 and recv.poll(PYARROW_TIMEOUT_S):
            msgs.append(recv.recv())
            if msgs[-1][0] == "unreadable":
                break
    except EOFError:
        pass
    child.join(5)
    if child.is_alive():
        child.kill()
        child.join()
    recv.close()
    if msgs and msgs[-1][0] in ("unreadable", "ok"):
        return msgs[-1]
    what = "opened the file, then" if msgs else "while opening the file"
    if child.exitcode is not None and child.exitcode < 0:
        how = f"died of signal {-child.exitcode}"
    else:
        how = f"exited {child.exitcode} / hung for {PYARROW_TIMEOUT_S} s"
    return ("crashed" if msgs else "unreadable", f"pyarrow {what} {how}")


# ---------------------------------------------------------------------------------------------
# Schema: pyarrow exposes the leaves through ColumnSchema and the whole tree (groups included)
# only through its printer (`str(schema)`, Arrow's parquet::schema::PrintSchema):
#
#   <pyarrow._parquet.ParquetSchema object at 0x...>
#   required group field_id=-1 schema {
#     optional group field_id=-1 a (List) {
#       repeated int32 field_id=-1 element;
#     }
#   }
#
# Names may contain spaces and parentheses, so the printed tree is parsed *guided by parq's
# SchemaElement list*: each node must start with parq's name for that element.

_NODE_RE = re.compile(
    r"(?P<rep>required|optional|repeated|) ?"
    r"(?P<kind>group|boolean|int32|int64|int96|float|double|binary"
    r"|fixed_len_byte_array\((?P<len>-?\d+)\)) field_id=(?P<fid>-?\d+) "
)


class _SchemaAbort(Exception):
    pass


def _is_pa_leaf(el: dict) -> bool:
    # Arrow's rule (schema.cc Unflatten): a leaf has a physical type and no children.
    return not el.get("num_children") and el.get("type") is not None


def _group_annotation(el: dict):
    """What pyarrow's printer shows after a group's name, from parq's element: the logical type
    when there is one, else the converted type (Arrow derives one from the other)."""
    lt = el.get("logical_type")
    if isinstance(lt, dict) and lt.get("type"):
        return str(lt["type"]).upper()
    ct = el.get("converted_type")
    return str(ct).upper() if ct else None


def _norm_annotation(a: str | None):
    if a is None:
        return None
    name = a.split("(", 1)[0].strip().upper()
    # Arrow turns the legacy MAP_KEY_VALUE converted type into its Map logical type and prints
    # that (LogicalType::FromConvertedType), so both read as MAP here.
    return "MAP" if name == "MAP_KEY_VALUE" else name


def compare_schema(d: Diffs, schema: list, pa: dict) -> list[dict]:
    """Compares parq's SchemaElement list with pyarrow's printed tree; returns parq's leaves
    (with computed path and levels) in order, or [] if the trees could not be matched."""
    text = pa["schema_str"]
    if isinstance(text, Unavailable):
        d.unavailable.append(f"schema: {text.err}")
        return []
    nl = text.find("\n")
    pos = nl + 1 if text.startswith("<") else 0
    leaves: list[dict] = []
    k = 0

    def line_at(p):
        e = text.find("\n", p)
        return text[p : e if e >= 0 else len(text)]

    def node(indent: int, names: list[str], def_level: int, rep_level: int, is_root: bool):
        nonlocal pos, k
        if k >= len(schema):
            raise _SchemaAbort(
                f"parq has {len(schema)} SchemaElements but pyarrow's tree has more; "
                f"next pyarrow line: {line_at(pos)!r}"
            )
        el = schema[k]
        where = f"schema[{k}] {el.get('name')!r}"
        if text[pos : pos + indent] != " " * indent:
            raise _SchemaAbort(f"{where}: pyarrow's tree has no node here: {line_at(pos)!r}")
        m = _NODE_RE.match(text, pos + indent)
        if not m:
            raise _SchemaAbort(f"{where}: cannot parse pyarrow's line {line_at(pos)!r}")
        name = el.get("name", "")
        if not text.startswith(name, m.end()):
            raise _SchemaAbort(f"{where}: name: parq={name!r} pyarrow line={line_at(pos)!r}")
        p = m.end() + len(name)
        pa_group = m["kind"] == "group"
        # The root is always a group (schema.cc Unflatten), whatever its fields say.
        parq_group = k == 0 or not _is_pa_leaf(el)
        if pa_group != parq_group:
            raise _SchemaAbort(
                f"{where}: parq element is a {'group' if parq_group else 'leaf'}, pyarrow shows "
                f"a {'group' if pa_group else 'leaf'}: {line_at(pos)!r}"
            )
        end = " {\n" if pa_group else ";\n"
        annotation = None
        if text.startswith(" (", p):
            e = text.find(")" + end, p)
            if e < 0:
                raise _SchemaAbort(f"{where}: cannot parse pyarrow's line {line_at(pos)!r}")
            annotation = text[p + 2 : e]
            p = e + 1
        if not text.startswith(end, p):
            raise _SchemaAbort(f"{where}: name: parq={name!r} pyarrow line={line_at(pos)!r}")
        pos = p + len(end)
        k += 1

        # Repetition. Arrow reads an unset repetition_type as 0 = REQUIRED (the Thrift default),
        # so an absent value prints as "required". The root's repetition is not compared: it is
        # usually unset, and Arrow ignores it.
        rep = el.get("repetition_type")
        if not is_root and (rep is None or rep in ("REQUIRED", "OPTIONAL", "REPEATED")):
            d.eq(where, "repetition_type", rep or "REQUIRED", m["rep"].upper())
        # Arrow prints an unset field_id as -1.
        d.eq(where, "field_id", el.get("field_id", -1), int(m["fid"]))

        if not is_root:
            if rep == "OPTIONAL":
                def_level += 1
            elif rep == "REPEATED":
                def_level += 1
                rep_level += 1
            names = names + [name]

        if pa_group:
            want = _norm_annotation(_group_annotation(el))
            got = _norm_annotation(annotation)
            if want in KNOWN_LOGICAL or want is None:
                d.eq(where, "group annotation (logical/converted type)", want, got)
            n = el.get("num_children") or 0
            for _ in range(n):
                if text.startswith(" " * indent + "}\n", pos):
                    raise _SchemaAbort(
                        f"{where}: num_children: parq={n}, pyarrow's group has fewer children"
                    )
                node(indent + 2, names, def_level, rep_level, False)
            if not text.startswith(" " * indent + "}\n", pos):
                raise _SchemaAbort(
                    f"{where}: num_children: parq={n}, pyarrow's group has more children; "
                    f"next pyarrow line: {line_at(pos)!r}"
                )
            pos += indent + 2
        else:
            d.eq(where, "type", el.get("type"), PA_TYPE_TOKEN.get(m["kind"], "FIXED_LEN_BYTE_ARRAY"))
            if m["len"] is not None:
                d.eq(where, "type_length", el.get("type_length"), int(m["len"]))
            leaves.append(
                {
                    "k": k - 1,
                    "el": el,
                    "path": ".".join(names),
                    "max_definition_level": def_level,
                    "max_repetition_level": rep_level,
                }
            )

    try:
        node(0, [], 0, 0, True)
        if k != len(schema):
            raise _SchemaAbort(
                f"number of SchemaElements: parq={len(schema)} pyarrow={k} (parq has extra "
                f"elements after the root's subtree, starting with {schema[k].get('name')!r})"
            )
    except _SchemaAbort as e:
        d.add("schema", str(e))
        return []
    return leaves


def compare_leaf(d: Diffs, i: int, leaf: dict, pa_leaf) -> None:
    el = leaf["el"]
    where = f"schema leaf column {i} ({leaf['path']})"
    if isinstance(pa_leaf, Unavailable):
        d.unavailable.append(f"{where}: {pa_leaf.err}")
        return
    d.eq(where, "path", leaf["path"], pa_leaf["path"])
    d.eq(where, "physical type", _norm_enum(el.get("type")), _norm_enum(pa_leaf["physical_type"]))
    d.eq(where, "max_definition_level", leaf["max_definition_level"], pa_leaf["max_definition_level"])
    d.eq(where, "max_repetition_level", leaf["max_repetition_level"], pa_leaf["max_repetition_level"])
    if el.get("type") == "FIXED_LEN_BYTE_ARRAY":
        d.eq(where, "type_length", el.get("type_length"), pa_leaf["length"])

    pl = pa_leaf["logical"]
    if isinstance(pl, Unavailable):
        d.unavailable.append(f"{where} logical_type: {pl.err}")
        return
    pa_lt_name = pl.get("Type")
    lt = el.get("logical_type")
    ct = el.get("converted_type")
    if isinstance(lt, dict) and lt.get("type"):
        name = str(lt["type"]).upper()
        # Arrow replaces a logical type it does not know, or one that does not fit the physical
        # type, by "Undefined" (schema.cc PrimitiveNode::FromParquet): nothing to compare then.
        if pa_lt_name == "Undefined" or name not in KNOWN_LOGICAL:
            return
        d.eq(where, "logical_type.type", name, PA_LOGICAL.get(pa_lt_name, pa_lt_name))
        if name == "DECIMAL" and pa_lt_name == "Decimal":
            d.eq(where, "logical_type.precision", lt.get("precision"), pl.get("precision"))
            d.eq(where, "logical_type.scale", lt.get("scale"), pl.get("scale"))
        elif name in ("TIME", "TIMESTAMP") and pa_lt_name in ("Time", "Timestamp"):
            d.eq(where, "logical_type.is_adjusted_to_utc", lt.get("is_adjusted_to_utc"),
                 pl.get("isAdjustedToUTC"))
            d.eq(where, "logical_type.unit", _unit(lt.get("unit")), _unit(pl.get("timeUnit")))
        elif name == "INTEGER" and pa_lt_name == "Int":
            d.eq(where, "logical_type.bit_width", lt.get("bit_width"), pl.get("bitWidth"))
            d.eq(where, "logical_type.is_signed", lt.get("is_signed"), pl.get("isSigned"))
        elif name in ("GEOMETRY", "GEOGRAPHY") and "crs" in lt:
            d.eq(where, "logical_type.crs", lt.get("crs"), pl.get("crs"))
        # The converted type is not compared when a logical type is present: Arrow then
        # derives the converted type from the logical type instead of reading it.
    elif ct:
        # No logical type: Arrow keeps the converted type as read, and derives its logical
        # type from it (so pyarrow's logical type is not compared here).
        d.eq(where, "converted_type", _norm_enum(ct), _norm_enum(pa_leaf["converted_type"]))
        if ct == "DECIMAL":
            # Arrow reads an unset scale as the Thrift default 0.
            d.eq(where, "precision", el.get("precision"), pa_leaf["precision"])
            d.eq(where, "scale", el.get("scale", 0), pa_leaf["scale"])
    elif pa_lt_name == "Undefined":
        # A LogicalType union member Arrow does not know (e.g. unknown-logical-type.parquet):
        # parq may print it as unrecognised or leave it out.
        return
    else:
        d.eq(where, "logical_type", None, PA_LOGICAL.get(pa_lt_name, pa_lt_name))
        d.eq(where, "converted_type", None,
             None if pa_leaf["converted_type"] == "NONE" else pa_leaf["converted_type"])


# ---------------------------------------------------------------------------------------------
# Key-value metadata


def _kv_text(v) -> str:
    """Key-value metadata as text. Thrift declares keys and values as `string`, but files hold
    arbitrary bytes; pyarrow hands back bytes, parq's JSON text. Invalid UTF-8 is compared as
    its lossy decoding (U+FFFD for each invalid sequence), as parq's JSON must show it."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return v if isinstance(v, str) else ""


def compare_kv(d: Diffs, where: str, parq_kv, pa_kv) -> None:
    if isinstance(pa_kv, Unavailable):
        d.unavailable.append(f"{where} key_value_metadata: {pa_kv.err}")
        return
    parq_map: dict[str, list[str]] = {}
    for kv in parq_kv or []:
        # An unset KeyValue.value reads as b"" in pyarrow.
        parq_map.setdefault(_kv_text(kv.get("key")), []).append(_kv_text(kv.get("value")))
    pa_map = {_kv_text(k): _kv_text(v) for k, v in (pa_kv or {}).items()}
    d.eq(where, "key_value_metadata keys", sorted(parq_map), sorted(pa_map))
    for key, pa_value in pa_map.items():
        values = parq_map.get(key)
        # pyarrow returns the metadata as a dict, so of duplicate keys it keeps one value.
        if values is not None and pa_value not in values:
            d.add(where, f"key_value_metadata[{key!r}]: parq={values!r} pyarrow={pa_value!r}")


# ---------------------------------------------------------------------------------------------
# Statistics


_WIDTH = {"INT32": ("<i", 4), "INT64": ("<q", 8), "FLOAT": ("<f", 4), "DOUBLE": ("<d", 8)}


def decode_stat(physical_type: str, hexstr: str):
    """A statistics value (parq's lowercase hex) as the physical value pyarrow's min_raw gives."""
    raw = bytes.fromhex(hexstr)
    if physical_type in _WIDTH:
        fmt, width = _WIDTH[physical_type]
        if len(raw) != width:
            return ("undecodable", hexstr)
        return struct.unpack(fmt, raw)[0]
    if physical_type == "BOOLEAN":
        return bool(raw[0] & 1) if raw else ("undecodable", hexstr)
    return raw


def _same_stat(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(b, str) and isinstance(a, bytes):
        b = b.encode("utf-8")
    return a == b


def compare_stats(d: Diffs, where: str, col: dict, pa_col: dict, column_order) -> None:
    # pyarrow reports no statistics when they are unset, when the column's sort order is
    # unknown (e.g. INT96, INTERVAL), or when the writer is known to have written wrong ones
    # (ApplicationVersion::HasCorrectStatistics: old parquet-mr/parquet-cpp and signed-vs-unsigned
    # sort orders). parq reports the raw values, so there is nothing to compare then.
    if isinstance(pa_col["is_stats_set"], Unavailable):
        d.unavailable.append(f"{where} is_stats_set: {pa_col['is_stats_set'].err}")
        return
    if not pa_col["is_stats_set"]:
        return
    st = col.get("statistics")
    if not isinstance(st, dict):
        d.add(where, f"statistics: parq reports none, pyarrow reports {pa_col['stats']!r}")
        return
    ps = pa_col["stats"]
    d.eq(where, "statistics.null_count", st.get("null_count"), ps["null_count"])
    d.eq(where, "statistics.distinct_count", st.get("distinct_count"), ps["distinct_count"])

    # Which pair pyarrow reads (metadata.cc MakeTypedColumnStats): min_value/max_value when the
    # file declares TYPE_DEFINED_ORDER for the column, the deprecated min/max when the file has
    # no column_orders. For any other order (IEEE_754_TOTAL_ORDER, unknown members) Arrow 26
    # reports no min/max at all, so they are not compared.
    if column_order == "OTHER":
        return
    if column_order is None:
        # parq's column_orders could not be interpreted: prefer the new fields, as the spec does.
        new = "min_value" in st or "max_value" in st
        lo_key, hi_key = ("min_value", "max_value") if new else ("min", "max")
    elif column_order == "TYPE_DEFINED":
        lo_key, hi_key = "min_value", "max_value"
    else:
        lo_key, hi_key = "min", "max"
    # Arrow reports min/max only when both bounds of that pair are set.
    has_pair = lo_key in st and hi_key in st
    if isinstance(ps["has_min_max"], Unavailable):
        d.unavailable.append(f"{where} statistics.has_min_max: {ps['has_min_max'].err}")
        return
    if lo_key == "min" and not ps["has_min_max"]:
        # Arrow drops the deprecated min/max when the column's sort order is not signed
        # (they were computed with signed comparison, PARQUET-686) and for writers known to
        # have written wrong ones (ApplicationVersion::HasCorrectStatistics), keeping the
        # counts. parq reports them as written.
        return
    d.eq(where, f"statistics has both {lo_key} and {hi_key} (pyarrow has_min_max)", has_pair,
         ps["has_min_max"])
    if not (has_pair and ps["has_min_max"]):
        return
    ptype = col.get("physical_type") or pa_col["physical_type"]
    for key, pa_key in ((lo_key, "min_raw"), (hi_key, "max_raw")):
        pa_v = ps[pa_key]
        if isinstance(pa_v, Unavailable):
            d.unavailable.append(f"{where} statistics.{pa_key}: {pa_v.err}")
            continue
        try:
            got = decode_stat(ptype, st[key])
        except ValueError as e:
            d.add(where, f"statistics.{key}: parq value {st[key]!r} is not hex ({e})")
            continue
        if not _same_stat(got, pa_v):
            d.add(where, f"statistics.{key} ({ptype}): parq={st[key]!r} -> {got!r} "
                  f"pyarrow {pa_key}={pa_v!r}")


def _column_orders(doc: dict, nleaves: int) -> list[str | None]:
    """Per leaf: "ABSENT" (the file has no column_orders), "TYPE_DEFINED" (TypeDefinedOrder),
    "OTHER" (e.g. IEEE_754_TOTAL_ORDER, or a union member parq does not know) or None (parq's
    JSON could not be interpreted)."""
    orders = doc.get("column_orders")
    if orders is None:
        return ["ABSENT"] * nleaves
    if not isinstance(orders, list):
        return [None] * nleaves
    out: list[str | None] = []
    for i in range(nleaves):
        if i >= len(orders):
            out.append(None)
            continue
        s = json.dumps(orders[i]).upper()
        out.append("TYPE_DEFINED" if ("TYPE_DEFINED" in s or "TYPE_ORDER" in s) else "OTHER")
    return out


# ---------------------------------------------------------------------------------------------
# Row groups and column chunks


# Fields of ColumnMetaData (ColumnChunk.meta_data), which parq's JSON flattens into the column.
_COLUMN_META_DATA_FIELDS = (
    "physical_type", "codec", "encodings", "num_values", "total_compressed_size",
    "total_uncompressed_size", "data_page_offset", "statistics",
)


def compare_column(d: Diffs, where: str, col: dict, pa_col, column_order, leaf_path) -> None:
    if isinstance(pa_col, Unavailable):
        # e.g. column metadata encrypted with a column key: pyarrow needs the key to read it.
        d.unavailable.append(f"{where}: {pa_col.err}")
        return
    # pyarrow reports an unset file_path as "".
    d.eq(where, "file_path", col.get("file_path") or "", pa_col["file_path"] or "")
    d.eq(where, "file_offset", col.get("file_offset"), pa_col["file_offset"])
    # Arrow reports a page index only when both its offset and its length are set.
    d.eq(where, "has column index", "column_index_offset" in col and "column_index_length" in col,
         pa_col["has_column_index"])
    d.eq(where, "has offset index", "offset_index_offset" in col and "offset_index_length" in col,
         pa_col["has_offset_index"])
    if not any(k in col for k in _COLUMN_META_DATA_FIELDS):
        # ColumnChunk.meta_data is optional in the Thrift (it is left out when it is encrypted
        # with a column key, and fuzzed files drop it). Arrow then reports the Thrift defaults
        # (type BOOLEAN, sizes 0, path ""); parq reports no ColumnMetaData fields at all.
        return
    path = col.get("path")
    path = ".".join(path) if isinstance(path, list) else path
    # parq does not keep ColumnMetaData.path_in_schema: its "path" is the schema's path of the
    # leaf (parq-format column_chunk.rs). Where a (fuzzed) file's path_in_schema disagrees with
    # its schema, parq's path must then equal pyarrow's schema path for that leaf.
    if path != pa_col["path_in_schema"] and path == leaf_path:
        pass
    else:
        d.eq(where, "path_in_schema", path, pa_col["path_in_schema"])
    d.eq(where, "physical_type", _norm_enum(col.get("physical_type")),
         _norm_enum(pa_col["physical_type"]))
    d.eq(where, "num_values", col.get("num_values"), pa_col["num_values"])
    d.eq(where, "total_compressed_size", col.get("total_compressed_size"),
         pa_col["total_compressed_size"])
    d.eq(where, "total_uncompressed_size", col.get("total_uncompressed_size"),
         pa_col["total_uncompressed_size"])
    d.eq(where, "data_page_offset", col.get("data_page_offset"), pa_col["data_page_offset"])
    d.eq(where, "dictionary_page_offset", col.get("dictionary_page_offset"),
         pa_col["dictionary_page_offset"])
    d.eq(where, "codec (pyarrow name)", pa_codec_name(col.get("codec")), pa_col["compression"])
    # pyarrow lists encodings as written, duplicates included: compare as sets.
    d.eq(where, "encodings", sorted({_norm_enum(e) for e in col.get("encodings") or []}),
         sorted({_norm_enum(e) for e in pa_col["encodings"]}))
    d.eq(where, "bloom_filter_offset", col.get("bloom_filter_offset"),
         pa_col["bloom_filter_offset"])
    d.eq(where, "bloom_filter_length", col.get("bloom_filter_length"),
         pa_col["bloom_filter_length"])
    compare_kv(d, where, col.get("key_value_metadata"), pa_col["key_value_metadata"])
    compare_stats(d, where, col, pa_col, column_order)


def compare_sorting_columns(d: Diffs, where: str, rg: dict, pa_sorting) -> None:
    parq_sorting = [
        (s.get("column_idx", s.get("column_index")), s.get("descending"), s.get("nulls_first"))
        for s in rg.get("sorting_columns") or []
    ]
    d.eq(where, "sorting_columns (column_idx, descending, nulls_first)", parq_sorting, pa_sorting)


def compare_all(cid: str, doc: dict, snap: dict) -> Diffs:
    d = Diffs(cid)
    d.eq("file", "num_rows", doc.get("num_rows"), snap["num_rows"])
    # pyarrow returns "" or None for an unset created_by: both mean "absent".
    cb = snap["created_by"]
    d.eq("file", "created_by", doc.get("created_by") or None,
         cb if isinstance(cb, Unavailable) else (cb or None))
    compare_kv(d, "file", doc.get("key_value_metadata"), snap["kv"])

    schema = doc.get("schema")
    if not isinstance(schema, list) or not schema:
        d.add("file", f"schema: parq printed {schema!r:.200}")
        return d
    leaves = compare_schema(d, schema, snap)
    if leaves:
        d.eq("schema", "number of leaf columns", len(leaves), snap["num_columns"])
        for i, (leaf, pa_leaf) in enumerate(zip(leaves, snap["leaves"])):
            compare_leaf(d, i, leaf, pa_leaf)
    orders = _column_orders(doc, len(leaves) or (snap["num_columns"] or 0))

    rgs = doc.get("row_groups") or []
    d.eq("file", "number of row groups", len(rgs), snap["num_row_groups"])
    for r, (rg, pa_rg) in enumerate(zip(rgs, snap["row_groups"])):
        where = f"row_group[{r}]"
        if isinstance(pa_rg, Unavailable):
            d.unavailable.append(f"{where}: {pa_rg.err}")
            continue
        d.eq(where, "num_rows", rg.get("num_rows"), pa_rg["num_rows"])
        d.eq(where, "total_byte_size", rg.get("total_byte_size"), pa_rg["total_byte_size"])
        cols = rg.get("columns") or []
        d.eq(where, "number of column chunks", len(cols), pa_rg["num_columns"])
        compare_sorting_columns(d, where, rg, pa_rg["sorting_columns"])
        for j, (col, pa_col) in enumerate(zip(cols, pa_rg["columns"])):
            path = col.get("path")
            name = ".".join(path) if isinstance(path, list) else path
            pa_leaf = snap["leaves"][j] if j < len(snap["leaves"]) else None
            leaf_path = pa_leaf.get("path") if isinstance(pa_leaf, dict) else None
            compare_column(d, f"{where} column[{j}] {name}", col, pa_col,
                           orders[j] if j < len(orders) else None, leaf_path)
    return d


# ---------------------------------------------------------------------------------------------
# Tests


def test_corpus_present(testdata_root):
    """The corpus must be there: without it every parametrized test below would silently
    vanish."""
    from conftest import corpus_files

    files = corpus_files()
    assert (testdata_root / "parquet-testing").is_dir(), f"missing {testdata_root}/parquet-testing"
    assert (testdata_root / "arrow-testing" / "parquet").is_dir(), (
        f"missing {testdata_root}/arrow-testing/parquet"
    )
    assert len(files) >= 300, f"only {len(files)} corpus files under {testdata_root}"


def test_pinned_versions(repo_root):
    """The exceptions documented here are those of the pinned versions: run with them."""
    import importlib.metadata

    pins = dict(
        line.split("==", 1)
        for line in (repo_root / "requirements-test.txt").read_text().splitlines()
        if "==" in line and not line.lstrip().startswith("#")
    )
    for name in ("pyarrow", "duckdb", "fastparquet"):
        assert importlib.metadata.version(name) == pins[name].strip(), (
            f"{name} {importlib.metadata.version(name)} is installed, requirements-test.txt pins "
            f"{pins[name].strip()}: run `bash scripts/venv.sh`"
        )


def test_meta_matches_pyarrow(corpus_file, parq, corpus_report):
    cid = corpus_id(corpus_file)
    res, doc = parq_meta_json(parq, corpus_file)

    status, pa = pa_read_isolated(corpus_file)
    if status == "unreadable":
        outcome = "ok" if res.ok else f"error: {res.error_line()}"
        corpus_report.pyarrow_unreadable.append((cid, pa, outcome))
        return

    # pq.read_metadata succeeded, so parq must read the footer too.
    assert res.ok, f"{cid}: pyarrow opens this file but parq fails: {res.describe()}"
    if status == "crashed":
        corpus_report.pyarrow_partial.append((cid, f"nothing compared: {pa}"))
        return
    d = compare_all(cid, doc, pa)
    for what in d.unavailable:
        corpus_report.pyarrow_partial.append((cid, what))
    d.fail_if_any()


# A few files with flat, nested (lists, maps, structs), legacy-list and annotated schemas.
SCHEMA_FILES = [
    "parquet-testing/data/alltypes_plain.parquet",
    "parquet-testing/data/nested_lists.snappy.parquet",
    "parquet-testing/data/nested_maps.snappy.parquet",
    "parquet-testing/data/nested_structs.rust.parquet",
    "parquet-testing/data/old_list_structure.parquet",
    "parquet-testing/data/repeated_no_annotation.parquet",
    "parquet-testing/data/null_list.parquet",
    "parquet-testing/data/fixed_length_decimal.parquet",
    "arrow-testing/parquet/alltypes-java.parquet",
]


@pytest.mark.parametrize("rel", SCHEMA_FILES)
def test_schema_leaf_paths_match_pyarrow(rel, parq):
    """`parq schema FILE` must show every leaf column, in schema order.

    The text format is for people and not fixed, so this checks, format-agnostically, that
    each leaf's path components (pyarrow's metadata.schema column paths) appear on the
    output's lines in depth-first order: for each leaf, the components it does not share with
    the previous leaf are found, in order, on lines after the previous component's line."""
    path = corpus_root() / rel
    assert path.is_file(), f"missing corpus file {path}"
    res = parq.run_checked("schema", path)
    assert res.ok, f"{rel}: {res.describe()}"
    lines = res.stdout.splitlines()
    md = pq.read_metadata(path)
    leaf_paths = [md.schema.column(i).path.split(".") for i in range(md.num_columns)]
    assert leaf_paths, rel

    pos = 0
    prev: list[str] = []
    for leaf in leaf_paths:
        common = 0
        while common < min(len(prev), len(leaf)) and prev[common] == leaf[common]:
            common += 1
        for comp in leaf[common:]:
            word = re.compile(r"(?<![\w.])" + re.escape(comp) + r"(?![\w])")
            hit = next((i for i in range(pos, len(lines)) if word.search(lines[i])), None)
            assert hit is not None, (
                f"{rel}: leaf column {'.'.join(leaf)!r}: component {comp!r} not found on "
                f"`parq schema` output lines {pos + 1}.. (pyarrow leaf paths: "
                f"{['.'.join(p) for p in leaf_paths][:20]}); output:\n{res.stdout[:4000]}"
            )
            pos = hit + 1
        prev = leaf


# ---------------------------------------------------------------------------------------------
# duckdb: its parquet_* table functions show the raw Thrift (no pyarrow-style normalisation),
# including row group fields pyarrow does not expose (file_offset, total_compressed_size).

DUCKDB_FILES = [
    "parquet-testing/data/alltypes_plain.parquet",
    "parquet-testing/data/alltypes_tiny_pages.parquet",
    "parquet-testing/data/nested_maps.snappy.parquet",
    "parquet-testing/data/data_index_bloom_encoding_stats.parquet",
    "parquet-testing/data/byte_array_decimal.parquet",
    "parquet-testing/data/datapage_v2.snappy.parquet",
    "parquet-testing/data/sort_columns.parquet",
    "parquet-testing/data/column_chunk_key_value_metadata.parquet",
    "arrow-testing/parquet/alltypes-java.parquet",
]


def _sql_str(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


@pytest.mark.parametrize("rel", DUCKDB_FILES)
def test_meta_matches_duckdb(rel, parq):
    import duckdb

    path = corpus_root() / rel
    assert path.is_file(), f"missing corpus file {path}"
    res, doc = parq_meta_json(parq, path)
    assert res.ok, f"{rel}: {res.describe()}"
    d = Diffs(rel, "duckdb")
    con = duckdb.connect()

    def rows(fn):
        rel_ = con.sql(f"SELECT * FROM {fn}({_sql_str(path)})")
        return [dict(zip(rel_.columns, r)) for r in rel_.fetchall()]

    (fm,) = rows("parquet_file_metadata")
    d.eq("file", "num_rows", doc.get("num_rows"), fm["num_rows"])
    d.eq("file", "number of row groups", len(doc.get("row_groups") or []), fm["num_row_groups"])
    d.eq("file", "version", doc.get("version"), fm["format_version"])
    d.eq("file", "created_by", doc.get("created_by"), fm["created_by"])

    schema = doc.get("schema") or []
    ddb_schema = rows("parquet_schema")
    d.eq("schema", "number of SchemaElements", len(schema), len(ddb_schema))
    for k, (el, row) in enumerate(zip(schema, ddb_schema)):
        where = f"schema[{k}] {el.get('name')!r}"
        for field in ("name", "type", "type_length", "repetition_type", "num_children",
                      "converted_type", "scale", "precision", "field_id"):
            want = row[field]
            if field == "type_length" and want is not None:
                want = int(want)
            d.eq(where, field, el.get(field), want)

    by_key = {(r["row_group_id"], r["column_id"]): r for r in rows("parquet_metadata")}
    for r, rg in enumerate(doc.get("row_groups") or []):
        cols = rg.get("columns") or []
        for j, col in enumerate(cols):
            where = f"row_group[{r}] column[{j}] {'.'.join(col.get('path') or [])}"
            row = by_key.pop((r, j), None)
            if row is None:
                d.add(where, "duckdb has no such column chunk")
                continue
            d.eq(where, "row group num_rows", rg.get("num_rows"), row["row_group_num_rows"])
            d.eq(where, "row group number of columns", len(cols), row["row_group_num_columns"])
            d.eq(where, "row group total_byte_size", rg.get("total_byte_size"),
                 row["row_group_bytes"])
            d.eq(where, "row group total_compressed_size", rg.get("total_compressed_size"),
                 row["row_group_compressed_bytes"])
            # duckdb's file_offset is the ColumnChunk's, except that it shows NULL for some
            # files where the value is set (e.g. parquet-mr's alltypes_tiny_pages.parquet).
            if row["file_offset"] is not None:
                d.eq(where, "file_offset", col.get("file_offset"), row["file_offset"])
            d.eq(where, "path_in_schema", ", ".join(col.get("path") or []), row["path_in_schema"])
            d.eq(where, "physical_type", col.get("physical_type"), row["type"])
            d.eq(where, "codec", col.get("codec"), row["compression"])
            d.eq(where, "encodings", ", ".join(col.get("encodings") or []), row["encodings"])
            for field in ("num_values", "total_compressed_size", "total_uncompressed_size",
                          "data_page_offset", "dictionary_page_offset", "index_page_offset",
                          "bloom_filter_offset", "bloom_filter_length"):
                d.eq(where, field, col.get(field), row[field])
            st = col.get("statistics") or {}
            d.eq(where, "statistics.null_count", st.get("null_count"), row["stats_null_count"])
            d.eq(where, "statistics.distinct_count", st.get("distinct_count"),
                 row["stats_distinct_count"])
            d.eq(where, "statistics.is_min_value_exact", st.get("is_min_value_exact"),
                 row["min_is_exact"])
            d.eq(where, "statistics.is_max_value_exact", st.get("is_max_value_exact"),
                 row["max_is_exact"])
            # duckdb prints statistics as values of the column's DuckDB type. For plain INT32 /
            # INT64 columns (no logical or converted type) that is the decimal integer.
            el = _leaf_element(schema, col.get("path") or [])
            plain_int = (col.get("physical_type") in ("INT32", "INT64") and el is not None
                         and not el.get("logical_type") and not el.get("converted_type"))
            if plain_int:
                for key, dkey in (("min_value", "stats_min_value"), ("max_value", "stats_max_value"),
                                  ("min", "stats_min"), ("max", "stats_max")):
                    if key in st:
                        got = decode_stat(col["physical_type"], st[key])
                        d.eq(where, f"statistics.{key}", str(got), row[dkey])
    for (r, j) in sorted(by_key):
        d.add(f"row_group[{r}] column[{j}]", "duckdb has this column chunk, parq does not")
    d.fail_if_any()


def _leaf_element(schema: list, path: list[str]):
    """The SchemaElement of the leaf at `path` (walking parq's flattened tree)."""
    pos = 0

    def walk(prefix):
        nonlocal pos
        el = schema[pos]
        pos += 1
        full = prefix + [el.get("name")] if prefix is not None else []
        if full == path and not el.get("num_children"):
            return el
        for _ in range(el.get("num_children") or 0):
            if pos >= len(schema):
                return None
            found = walk(full)
            if found is not None:
                return found
        return None

    try:
        return walk(None)
    except (IndexError, RecursionError):
        return None


# ---------------------------------------------------------------------------------------------
# fastparquet: its Thrift decoder exposes the RowGroup fields neither pyarrow nor duckdb show.


def _fastparquet_footer(path: Path):
    with warnings.catch_warnings():
        # fastparquet's import warns about a pandas option; irrelevant to its Thrift decoder.
        warnings.simplefilter("ignore")
        from fastparquet import cencoding

    data = path.read_bytes()
    n = struct.unpack("<i", data[-8:-4])[0]
    return cencoding.from_buffer(data[-8 - n : -8], "FileMetaData")


@pytest.mark.parametrize("rel", DUCKDB_FILES)
def test_row_groups_match_fastparquet(rel, parq):
    path = corpus_root() / rel
    assert path.is_file(), f"missing corpus file {path}"
    res, doc = parq_meta_json(parq, path)
    assert res.ok, f"{rel}: {res.describe()}"
    fmd = _fastparquet_footer(path)
    d = Diffs(rel, "fastparquet")
    d.eq("file", "version", doc.get("version"), fmd.version)
    d.eq("file", "number of row groups", len(doc.get("row_groups") or []), len(fmd.row_groups))
    for r, (rg, frg) in enumerate(zip(doc.get("row_groups") or [], fmd.row_groups)):
        where = f"row_group[{r}]"
        for field in ("num_rows", "total_byte_size", "file_offset", "total_compressed_size",
                      "ordinal"):
            d.eq(where, field, rg.get(field), getattr(frg, field))
        for j, (col, fcol) in enumerate(zip(rg.get("columns") or [], frg.columns)):
            w = f"{where} column[{j}] {'.'.join(col.get('path') or [])}"
            for field in ("file_offset", "offset_index_offset", "offset_index_length",
                          "column_index_offset", "column_index_length"):
                d.eq(w, field, col.get(field), getattr(fcol, field))
    d.fail_if_any()
