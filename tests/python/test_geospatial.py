"""GEOMETRY / GEOGRAPHY through parq's Python package: every ``data/geospatial`` file reads
to pyarrow's binary values, as ``geoarrow.wkb`` fields; a ``geoarrow.wkb`` table parq
writes is GEOMETRY / GEOGRAPHY to pyarrow and DuckDB, with the bounding boxes they read in
its ``GeospatialStatistics``; ``ST_Intersects(col, ST_MakeEnvelope(...))`` keeps the rows
whose WKB envelope (computed here with ``struct``) meets the rectangle."""

import json
import math
import struct

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parq
from conftest import corpus_root

GEO = corpus_root() / "parquet-testing" / "data" / "geospatial"
FILES = sorted(GEO.glob("*.parquet"))


def geo_column(schema):
    return next(n for n in schema.names if n in ("geometry", "geography"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_files_read_as_pyarrow_reads_them(path):
    ours = parq.read_table(path)
    theirs = pq.read_table(path)
    name = geo_column(theirs.schema)
    assert ours.column(name).to_pylist() == theirs.column(name).to_pylist()
    md = ours.schema.field(name).metadata
    assert md[b"ARROW:extension:name"] == b"geoarrow.wkb"
    meta = json.loads(md[b"ARROW:extension:metadata"])
    column = pq.read_metadata(path).schema.column(ours.schema.get_field_index(name))
    logical = str(column.logical_type)
    assert ("edges" in meta) == logical.startswith("Geography"), (meta, logical)


def point(x, y):
    return struct.pack("<BIdd", 1, 1, x, y)


def line(pts):
    return struct.pack(">BII", 0, 2, len(pts)) + b"".join(struct.pack(">dd", *p) for p in pts)


def square(x, y, d):
    ring = [(x, y), (x + d, y), (x + d, y + d), (x, y + d), (x, y)]
    return struct.pack("<BIII", 1, 3, 1, len(ring)) + b"".join(struct.pack("<dd", *p) for p in ring)


GEOMS = [
    point(1, 2), line([(0, 0), (3, -1)]), None, square(2, 2, 1), point(10, 10), b"\x01\x02",
    point(100, 50), square(120, 40, 5), None, line([(110, 45), (111, 46)]), point(105, 41),
    point(float("nan"), float("nan")),
]


def geo_table():
    field = pa.field("geometry", pa.binary(), metadata={
        "ARROW:extension:name": "geoarrow.wkb",
        "ARROW:extension:metadata": '{"crs":"srid:5070"}',
    })
    return pa.table([pa.array(range(len(GEOMS)), pa.int64()), pa.array(GEOMS, pa.binary())],
                    schema=pa.schema([pa.field("id", pa.int64()), field]))


def envelope(b):
    """x/y envelope of WKB ``b`` (points, lines, polygons), NaN skipped; None if invalid."""
    try:
        le = {0: ">", 1: "<"}[b[0]]
        (t,) = struct.unpack_from(le + "I", b, 1)
        if t == 1:
            pts, pos = [struct.unpack_from(le + "dd", b, 5)], 21
        elif t == 2:
            (n,) = struct.unpack_from(le + "I", b, 5)
            pts = [struct.unpack_from(le + "dd", b, 9 + 16 * i) for i in range(n)]
            pos = 9 + 16 * n
        elif t == 3:
            (_, n) = struct.unpack_from(le + "II", b, 5)
            pts = [struct.unpack_from(le + "dd", b, 13 + 16 * i) for i in range(n)]
            pos = 13 + 16 * n
        else:
            return None
    except (KeyError, struct.error, IndexError):
        return None
    if pos != len(b):
        return None
    xs = [x for x, _ in pts if not math.isnan(x)]
    ys = [y for _, y in pts if not math.isnan(y)]
    return (min(xs), max(xs), min(ys), max(ys)) if xs and ys else None


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    path = tmp_path_factory.mktemp("geo") / "geo.parquet"
    parq.write_table(geo_table(), str(path), row_group_size=6)
    return path


def test_written_file_has_the_statistics_pyarrow_and_duckdb_read(written):
    md = pq.read_metadata(written)
    assert str(md.schema.column(1).logical_type).startswith("Geometry(crs=srid:5070")
    for g in range(md.num_row_groups):
        rows = GEOMS[g * 6:(g + 1) * 6]
        envs = [e for e in (envelope(v) for v in rows if v is not None) if e]
        want = [min(e[0] for e in envs), max(e[1] for e in envs),
                min(e[2] for e in envs), max(e[3] for e in envs)]
        c = md.row_group(g).column(1)
        s = c.geo_statistics
        assert [s.xmin, s.xmax, s.ymin, s.ymax] == want
        assert s.zmin is None and s.mmin is None
        assert not (c.statistics is not None and c.statistics.has_min_max)
        [(bbox,)] = duckdb.execute(
            "select geo_bbox from parquet_metadata(?) where row_group_id = ? "
            "and path_in_schema = 'geometry'", [str(written), g]).fetchall()
        assert [bbox[k] for k in ("xmin", "xmax", "ymin", "ymax")] == want
    assert pq.read_table(written).column("geometry").to_pylist() == GEOMS
    [(t,)] = duckdb.execute("select typeof(geometry) from read_parquet(?) limit 1",
                            [str(written)]).fetchall()
    assert t == "GEOMETRY"


@pytest.mark.parametrize("rect", [(0, 0, 5, 5), (99, 39, 130, 60), (3, 3, 3, 3),
                                  (-1e9, -1e9, 1e9, 1e9), (200, 200, 300, 300)])
def test_bbox_filter_keeps_rows_whose_envelope_meets_the_rectangle(written, rect):
    x0, y0, x1, y1 = rect
    want = [i for i, v in enumerate(GEOMS) if v is not None and (e := envelope(v))
            and e[0] <= x1 and e[1] >= x0 and e[2] <= y1 and e[3] >= y0]
    sql = f"ST_Intersects(geometry, ST_MakeEnvelope({x0}, {y0}, {x1}, {y1}))"
    got = parq.read_table(written, filters=sql).column("id").to_pylist()
    assert got == want
