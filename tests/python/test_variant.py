"""Variant columns through parq's Python package: every shredded_variant case DuckDB reads
gives the same Python values from ``to_pylist()`` of the ``arrow.parquet.variant`` column as
DuckDB's, whether parq reads it (unshredded) or pyarrow does (shredded storage, which
``parq.VariantType`` reassembles); the error cases raise ``parq.ParquetError``; the values of
``variant/`` decode; files parq writes shredded (decimals and uuids too, top-level and within
a struct) read as DuckDB reads the originals, through parq and through pyarrow."""

import base64
import decimal
import json
import re

import duckdb
import pyarrow as pa
import pytest

import parq
from conftest import corpus_root

CASES = corpus_root() / "parquet-testing" / "shredded_variant"


def cases():
    with open(CASES / "cases.json") as f:
        return [c for c in json.load(f) if c.get("parquet_file")]


def case_id(c):
    return f"case-{c['case_number']:03d}"


@pytest.mark.parametrize("case", [c for c in cases() if "error_message" not in c], ids=case_id)
def test_values_match_duckdb(case):
    name = case["parquet_file"]
    table = parq.read_table(CASES / name)
    column = table.column("var")
    assert isinstance(column.type, parq.VariantType)
    ours = column.to_pylist()
    assert len(ours) == len(case.get("variant_files") or [case.get("variant_file")])
    if "INVALID" in name:
        return  # DuckDB reads the conflicting field from `value`, parq the shredded one.
    try:
        rows = duckdb.sql(
            f"select var, variant_typeof(var) from '{CASES / name}' order by id"
        ).fetchall()
    except Exception as e:  # UTC timestamps need pytz; some shredded files DuckDB refuses
        pytest.skip(f"DuckDB cannot read it: {str(e)[:80]}")
    if any(t is not None and "NANOS" in t for _, t in rows):
        # DuckDB keeps microseconds; parq gives the nanoseconds.
        assert all(hasattr(v, "nanosecond") for v in ours)
        return
    assert ours == [v for v, _ in rows]


def _duckdb_rows(path):
    """DuckDB's values of `var` (ordered by `id`), or `None` when DuckDB cannot read them
    or keeps only microseconds of nanosecond timestamps."""
    try:
        rows = duckdb.sql(f"select var, variant_typeof(var) from '{path}' order by id").fetchall()
    except Exception:
        return None
    if any(t is not None and "NANOS" in t for _, t in rows):
        return None
    return [v for v, _ in rows]


def test_pyarrow_reads_shredded_cases_as_duckdb():
    # pyarrow gives the shredded storage (struct<metadata, value, typed_value>); with parq
    # imported its rows decode through parq.VariantType.
    import pyarrow.parquet as pq

    compared, shredded, failures = 0, 0, []
    for case in cases():
        name = case["parquet_file"]
        if "error_message" in case or "INVALID" in name:
            continue
        want = _duckdb_rows(CASES / name)
        if want is None:
            continue
        column = pq.read_table(CASES / name).column("var")
        assert isinstance(column.type, parq.VariantType), name
        shredded += column.type.storage_type.get_field_index("typed_value") >= 0
        got = column.to_pylist()
        if got != want:
            failures.append(f"{name}: {got!r:.200} != {want!r:.200}")
        elif [column[i].as_py() for i in range(len(column))] != want:
            failures.append(f"{name}: as_py differs")
        compared += 1
    assert not failures, "\n".join(failures)
    assert compared >= 100 and shredded >= 70, (compared, shredded)


def test_null_row_and_variant_null():
    # case 83: row 0 is a null row; DuckDB reads it as a Variant null, parq as a null entry.
    column = parq.read_table(CASES / "case-083.parquet").column("var")
    assert column.null_count == 1 and column.to_pylist()[0] is None
    column = parq.read_table(CASES / "case-047.parquet").column("var")
    assert column.null_count == 0 and column.to_pylist() == [None]


@pytest.mark.parametrize("case", [c for c in cases() if "error_message" in c], ids=case_id)
def test_error_cases_raise(case):
    with pytest.raises(parq.ParquetError):
        parq.read_table(CASES / case["parquet_file"])


def test_every_variant_value_decodes():
    directory = corpus_root() / "parquet-testing" / "variant"
    values = sorted(directory.glob("*.value"))
    assert len(values) >= 29
    for path in values:
        metadata = path.with_suffix(".metadata").read_bytes()
        storage = pa.array(
            [{"metadata": metadata, "value": path.read_bytes()}],
            type=parq.VariantType().storage_type,
        )
        array = pa.ExtensionArray.from_storage(parq.VariantType(), storage)
        assert array.to_pylist() == [array[0].as_py()]
    # The file ends its object with a trailing comma, which strict JSON refuses.
    text = (directory / "data_dictionary.json").read_text()
    expected = json.loads(re.sub(r",\s*}\s*$", "}", text))
    compared = 0
    for name, want in expected.items():
        path = directory / f"{name}.value"
        if not path.exists():
            continue
        metadata = path.with_suffix(".metadata").read_bytes()
        got = _plain(parq._variant.decode(metadata, path.read_bytes()))
        if got is _SKIP:
            continue
        assert got == _plain(want), name
        compared += 1
    assert compared >= 20


_SKIP = object()


def _plain(v):
    """`v` as data_dictionary.json holds it (floats to 9 digits); `_SKIP` for temporal and
    UUID values, which it writes in other forms."""
    if isinstance(v, dict):
        items = {k: _plain(x) for k, x in v.items()}
        return _SKIP if any(x is _SKIP for x in items.values()) else items
    if isinstance(v, list):
        items = [_plain(x) for x in v]
        return _SKIP if any(x is _SKIP for x in items) else items
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, (int, float, decimal.Decimal)):
        return float(f"{float(v):.9g}")
    return _SKIP


def test_duckdb_shredded_file(tmp_path):
    # DuckDB shreds objects (fields in non-sorted order), lists of decimals and doubles.
    path = tmp_path / "shredded.parquet"
    duckdb.sql(
        "COPY (SELECT i AS id, CASE WHEN i = 3 THEN NULL ELSE {'a': i, 'b': 'x' || i, "
        "'c': [i, 2.5::DECIMAL(4, 2)]}::VARIANT END AS v, (i * 1.5)::DOUBLE::VARIANT AS d "
        f"FROM range(5) t(i)) TO '{path}'"
    )
    want = duckdb.sql(f"SELECT v, d FROM '{path}' ORDER BY id").fetchall()
    table = parq.read_table(path)
    got = list(zip(table.column("v").to_pylist(), table.column("d").to_pylist()))
    assert got == want


def test_sparse_shredded_file_matches_duckdb():
    # hyparquet's file flags its metadata sorted though `event_type` comes before `count`.
    path = (
        corpus_root()
        / "real-world"
        / "hyparam__hyparquet"
        / "test__files__shredded-sparse-timestamp.parquet"
    )
    want = [v for (v,) in duckdb.sql(f"SELECT v FROM '{path}'").fetchall()]
    assert parq.read_table(path).column("v").to_pylist() == want


SHREDDING = {
    "case-004.parquet": pa.bool_(),
    "case-024.parquet": pa.decimal128(9, 4),
    "case-026.parquet": pa.decimal128(18, 9),
    "case-028.parquet": pa.decimal128(38, 9),
    "case-037.parquet": pa.binary(16),
    "case-046.parquet": pa.struct([("a", pa.int32()), ("b", pa.string())]),
    "case-136.parquet": pa.list_(pa.list_(pa.string())),
}


@pytest.mark.parametrize("name", sorted(SHREDDING))
def test_written_variant_read_by_duckdb(tmp_path, name):
    # parq reads a case, writes its Variant column unshredded and shredded; DuckDB reads the
    # same values from both as from the case's file.
    table = parq.read_table(CASES / name)
    assert isinstance(table.column("var").type, parq.VariantType)
    want = duckdb.sql(f"SELECT var FROM '{CASES / name}' ORDER BY id").fetchall()
    for shredding in (None, {"var": SHREDDING[name]}):
        out = tmp_path / "out.parquet"
        parq.write_table(table, out, variant_shredding=shredding)
        paths = leaf_paths(out)
        assert ("var.typed_value" in " ".join(paths)) == (shredding is not None), paths
        assert duckdb.sql(f"SELECT var FROM '{out}' ORDER BY id").fetchall() == want
        assert parq.read_table(out).column("var").to_pylist() == table.column("var").to_pylist()
        # pyarrow reads the shredded storage; parq.VariantType reassembles it.
        import pyarrow.parquet as pq

        assert pq.read_table(out).column("var").to_pylist() == [v for (v,) in want]


def leaf_paths(path):
    import pyarrow.parquet as pq

    schema = pq.ParquetFile(path).metadata.schema
    return [schema.column(i).path for i in range(len(schema))]


def test_shredding_a_type_the_spec_refuses_raises(tmp_path):
    table = parq.read_table(CASES / "case-004.parquet")
    with pytest.raises(parq.ParquetError, match="cannot shred"):
        parq.write_table(table, tmp_path / "x.parquet", variant_shredding={"var": pa.uint32()})


@pytest.mark.parametrize("name", sorted(SHREDDING))
def test_variant_within_a_struct_shredded_read_by_duckdb(tmp_path, name):
    # The case's Variant column as a field of struct `rec`, shredded by its dotted path:
    # DuckDB reads the case's values from `rec.var`, and pyarrow's struct rows hold them too.
    import pyarrow.parquet as pq

    table = parq.read_table(CASES / name)
    var = table.column("var").combine_chunks()
    ids = table.column("id").combine_chunks()
    rec = pa.StructArray.from_arrays(
        [var, ids], fields=[table.schema.field("var"), pa.field("n", ids.type)]
    )
    out = tmp_path / "nested.parquet"
    parq.write_table(
        pa.table({"id": ids, "rec": rec}), out, variant_shredding={"rec.var": SHREDDING[name]}
    )
    assert any(p.startswith("rec.var.typed_value") for p in leaf_paths(out)), leaf_paths(out)
    want = [v for (v,) in duckdb.sql(f"SELECT var FROM '{CASES / name}' ORDER BY id").fetchall()]
    got = [v for (v,) in duckdb.sql(f"SELECT rec.var FROM '{out}' ORDER BY id").fetchall()]
    assert got == want
    assert [r["var"] for r in pq.read_table(out).column("rec").to_pylist()] == want
