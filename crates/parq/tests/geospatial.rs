//! GEOMETRY / GEOGRAPHY: every file of `data/geospatial` reads as `geoarrow.wkb` binary with
//! the same extension metadata as arrow-rs (`parquet` 60.1) and the same values as pyarrow.

mod common;

use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use common::{in_ci, python_if_present, run_python_at};
use parq::read::ParquetReader;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn geo_dir() -> Option<PathBuf> {
    let d = common::testdata().join("parquet-testing/data/geospatial");
    if d.is_dir() {
        return Some(d);
    }
    assert!(!in_ci(), "no test data at {}", d.display());
    eprintln!("skipped: no test data at {}", d.display());
    None
}

fn geo_files() -> Vec<PathBuf> {
    let Some(d) = geo_dir() else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "{v:?}");
    v
}

fn read_parq(bytes: &Bytes) -> (SchemaRef, Vec<RecordBatch>) {
    let r = ParquetReader::from_bytes(bytes.clone()).unwrap();
    (r.schema().unwrap(), r.read_all().unwrap())
}

fn read_peer(bytes: &Bytes) -> (SchemaRef, Vec<RecordBatch>) {
    let b = ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).unwrap();
    let schema = b.schema().clone();
    let batches = b.build().unwrap().collect::<Result<Vec<_>, _>>().unwrap();
    (schema, batches)
}

/// The values of binary column `name`, `None` for nulls.
fn binary_values(batches: &[RecordBatch], name: &str) -> Vec<Option<Vec<u8>>> {
    let mut out = Vec::new();
    for b in batches {
        let a = b.column_by_name(name).unwrap().as_binary::<i32>();
        out.extend(a.iter().map(|v| v.map(<[u8]>::to_vec)));
    }
    out
}

fn geo_columns(schema: &SchemaRef) -> Vec<String> {
    schema
        .fields()
        .iter()
        .filter(|f| f.name() == "geometry" || f.name() == "geography")
        .map(|f| f.name().clone())
        .collect()
}

#[test]
fn geospatial_files_read_as_arrow_rs_reads_them() {
    for path in geo_files() {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let (schema, batches) = read_parq(&bytes);
        let (peer_schema, peer_batches) = read_peer(&bytes);
        let cols = geo_columns(&schema);
        assert_eq!(cols.len(), 1, "{}", path.display());
        for c in &cols {
            let f = schema.field_with_name(c).unwrap();
            let p = peer_schema.field_with_name(c).unwrap();
            assert_eq!(f.data_type(), p.data_type(), "{}", path.display());
            for key in ["ARROW:extension:name", "ARROW:extension:metadata"] {
                assert_eq!(
                    f.metadata().get(key),
                    p.metadata().get(key),
                    "{} {key}",
                    path.display()
                );
            }
            assert_eq!(
                f.metadata().get("ARROW:extension:name").map(String::as_str),
                Some("geoarrow.wkb")
            );
            assert_eq!(
                binary_values(&batches, c),
                binary_values(&peer_batches, c),
                "{}",
                path.display()
            );
        }
    }
}

const PYARROW_VALUES: &str = r#"
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
col = [n for n in t.column_names if n in ("geometry", "geography")][0]
for v in t.column(col).to_pylist():
    print("null" if v is None else v.hex())
"#;

#[test]
fn geospatial_values_equal_pyarrow() {
    let Some(py) = python_if_present() else {
        return;
    };
    for path in geo_files() {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let (schema, batches) = read_parq(&bytes);
        let col = geo_columns(&schema).remove(0);
        let ours: Vec<String> = binary_values(&batches, &col)
            .into_iter()
            .map(|v| v.map_or("null".to_string(), |b| hex(&b)))
            .collect();
        let out = run_python_at(&py, PYARROW_VALUES, &[&path]);
        let theirs: Vec<&str> = out.lines().collect();
        assert_eq!(ours, theirs, "{}", path.display());
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// ---------------------------------------------------------------------------------------------
// Writing: `geoarrow.wkb` fields become GEOMETRY / GEOGRAPHY with `GeospatialStatistics`.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, Int64Array};
use arrow_schema::{DataType, Field, Schema};
use parq::{ParquetWriter, WriterProperties};
use parquet::arrow::ArrowWriter;
use parquet::file::reader::{FileReader, SerializedFileReader};

fn wkb_point(x: f64, y: f64) -> Vec<u8> {
    let mut v = vec![1u8, 1, 0, 0, 0];
    v.extend_from_slice(&x.to_le_bytes());
    v.extend_from_slice(&y.to_le_bytes());
    v
}

fn wkb_point_z(x: f64, y: f64, z: f64) -> Vec<u8> {
    let mut v = vec![1u8];
    v.extend_from_slice(&1001u32.to_le_bytes());
    for c in [x, y, z] {
        v.extend_from_slice(&c.to_le_bytes());
    }
    v
}

/// A big-endian LINESTRING.
fn wkb_line(pts: &[(f64, f64)]) -> Vec<u8> {
    let mut v = vec![0u8, 0, 0, 0, 2];
    v.extend_from_slice(&(pts.len() as u32).to_be_bytes());
    for (x, y) in pts {
        v.extend_from_slice(&x.to_be_bytes());
        v.extend_from_slice(&y.to_be_bytes());
    }
    v
}

fn wkb_polygon(ring: &[(f64, f64)]) -> Vec<u8> {
    let mut v = vec![1u8, 3, 0, 0, 0, 1, 0, 0, 0];
    v.extend_from_slice(&(ring.len() as u32).to_le_bytes());
    for (x, y) in ring {
        v.extend_from_slice(&x.to_le_bytes());
        v.extend_from_slice(&y.to_le_bytes());
    }
    v
}

fn geo_field(name: &str, md: &str) -> Field {
    Field::new(name, DataType::Binary, true).with_metadata(HashMap::from([
        (
            "ARROW:extension:name".to_string(),
            "geoarrow.wkb".to_string(),
        ),
        ("ARROW:extension:metadata".to_string(), md.to_string()),
    ]))
}

/// 12 rows: points, lines, polygons, a point Z, nulls, `valid_only` leaves out a bad WKB.
fn geo_batch(valid_only: bool) -> RecordBatch {
    let sq = |x0: f64, y0: f64, d: f64| {
        wkb_polygon(&[
            (x0, y0),
            (x0 + d, y0),
            (x0 + d, y0 + d),
            (x0, y0 + d),
            (x0, y0),
        ])
    };
    let bad: Option<Vec<u8>> = if valid_only {
        Some(wkb_point(0.5, 0.5))
    } else {
        Some(vec![1, 2, 0, 0, 0, 9])
    };
    let geoms: Vec<Option<Vec<u8>>> = vec![
        Some(wkb_point(1.0, 2.0)),
        Some(wkb_line(&[(0.0, 0.0), (3.0, -1.0)])),
        None,
        Some(sq(2.0, 2.0, 1.0)),
        Some(wkb_point(10.0, 10.0)),
        bad,
        // Row group 2: far away.
        Some(wkb_point(100.0, 50.0)),
        Some(wkb_point_z(101.0, 51.0, 7.0)),
        Some(sq(120.0, 40.0, 5.0)),
        None,
        Some(wkb_line(&[(110.0, 45.0), (111.0, 46.0)])),
        Some(wkb_point(f64::NAN, f64::NAN)),
    ];
    let geog = geoms.clone();
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        geo_field("geometry", r#"{"crs":"srid:5070"}"#),
        geo_field("geography", r#"{"crs":"OGC:CRS84","edges":"karney"}"#),
    ]);
    let col = |v: &[Option<Vec<u8>>]| -> ArrayRef {
        Arc::new(BinaryArray::from_iter(v.iter().map(|x| x.as_deref())))
    };
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from_iter_values(0..12)),
            col(&geoms),
            col(&geog),
        ],
    )
    .unwrap()
}

fn write_parq(batch: &RecordBatch) -> Bytes {
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(6))
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn write_peer(batch: &RecordBatch) -> Bytes {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(6))
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

type GeoStats = Option<(Option<[Option<f64>; 8]>, Option<Vec<i32>>)>;

/// Per row group and geospatial column (1, 2): the geospatial statistics as arrow-rs reads
/// them; also checks that these columns have no min/max.
fn peer_geo_stats(bytes: &Bytes) -> Vec<Vec<GeoStats>> {
    let r = SerializedFileReader::new(bytes.clone()).unwrap();
    r.metadata()
        .row_groups()
        .iter()
        .map(|rg| {
            [1, 2]
                .iter()
                .map(|&c| {
                    let cc = rg.column(c);
                    if let Some(s) = cc.statistics() {
                        assert!(s.min_bytes_opt().is_none() && s.max_bytes_opt().is_none());
                    }
                    cc.geo_statistics().map(|g| {
                        let b = g.bounding_box().map(|b| {
                            [
                                Some(b.get_xmin()),
                                Some(b.get_xmax()),
                                Some(b.get_ymin()),
                                Some(b.get_ymax()),
                                b.get_zmin(),
                                b.get_zmax(),
                                b.get_mmin(),
                                b.get_mmax(),
                            ]
                        });
                        (b, g.geospatial_types().cloned())
                    })
                })
                .collect()
        })
        .collect()
}

#[test]
fn written_geospatial_read_back_by_arrow_rs_with_its_statistics() {
    let batch = geo_batch(true);
    let ours = write_parq(&batch);
    let theirs = write_peer(&batch);
    // Same logical types, CRS and extension metadata as arrow-rs writes.
    let (ps, pb) = read_peer(&ours);
    let (ts, _) = read_peer(&theirs);
    let (qs, qb) = read_parq(&ours);
    for c in ["geometry", "geography"] {
        for key in ["ARROW:extension:name", "ARROW:extension:metadata"] {
            let want = ts.field_with_name(c).unwrap().metadata().get(key);
            assert_eq!(ps.field_with_name(c).unwrap().metadata().get(key), want);
            assert_eq!(qs.field_with_name(c).unwrap().metadata().get(key), want);
        }
        let want = binary_values(std::slice::from_ref(&batch), c);
        assert_eq!(binary_values(&pb, c), want);
        assert_eq!(binary_values(&qb, c), want);
    }
    let sd = SerializedFileReader::new(ours.clone()).unwrap();
    let descr = sd.metadata().file_metadata().schema_descr_ptr();
    let lt = |i: usize| format!("{:?}", descr.column(i).logical_type_ref());
    assert!(lt(1).starts_with("Some(Geometry"), "{}", lt(1));
    assert!(lt(1).contains("srid:5070"), "{}", lt(1));
    assert!(lt(2).contains("KARNEY"), "{}", lt(2));
    // The statistics equal those arrow-rs computes, and the expected envelopes.
    let stats = peer_geo_stats(&ours);
    assert_eq!(stats, peer_geo_stats(&theirs));
    let rg0 = Some((
        Some([
            Some(0.0),
            Some(10.0),
            Some(-1.0),
            Some(10.0),
            None,
            None,
            None,
            None,
        ]),
        Some(vec![1, 2, 3]),
    ));
    let rg1 = Some((
        Some([
            Some(100.0),
            Some(125.0),
            Some(40.0),
            Some(51.0),
            Some(7.0),
            Some(7.0),
            None,
            None,
        ]),
        Some(vec![1, 2, 3, 1001]),
    ));
    // GEOGRAPHY gets none: arrow-rs bounds no spherical edges.
    assert_eq!(stats, vec![vec![rg0, None], vec![rg1, None]]);
}

#[test]
fn invalid_wkb_is_left_out_of_the_statistics() {
    let ours = write_parq(&geo_batch(false));
    let stats = peer_geo_stats(&ours);
    let rg0 = Some((
        Some([
            Some(0.0),
            Some(10.0),
            Some(-1.0),
            Some(10.0),
            None,
            None,
            None,
            None,
        ]),
        Some(vec![1, 2, 3]),
    ));
    assert_eq!(stats[0], vec![rg0, None]);
    let (_, batches) = read_parq(&ours);
    assert_eq!(
        binary_values(&batches, "geometry")[5],
        Some(vec![1, 2, 0, 0, 0, 9])
    );
}

/// A bounding box (xmin, xmax, ymin, ymax, zmin, zmax, mmin, mmax) and geometry types.
type PeerStats = (Vec<Option<f64>>, Vec<i32>);

const PEERS_PY: &str = r#"
import json, sys
import duckdb, pyarrow.parquet as pq
path = sys.argv[1]
out = {"pyarrow": {}, "duckdb": {}}
t = pq.read_table(path)
md = pq.read_metadata(path)
for name in ("geometry", "geography"):
    i = t.schema.get_field_index(name)
    vals = [None if v is None else v.hex() for v in t.column(name).to_pylist()]
    stats = []
    for g in range(md.num_row_groups):
        c = md.row_group(g).column(i)
        s = c.geo_statistics
        if s is None:
            stats.append(None)
        else:
            stats.append([[s.xmin, s.xmax, s.ymin, s.ymax, s.zmin, s.zmax, s.mmin, s.mmax],
                          sorted(s.geospatial_types)])
        assert not (c.statistics is not None and c.statistics.has_min_max), "min/max written"
    out["pyarrow"][name] = {"values": vals, "stats": stats,
                            "logical": str(md.schema.column(i).logical_type)}
con = duckdb.connect()
rows = con.execute(
    "select path_in_schema, row_group_id, geo_bbox from parquet_metadata(?) "
    "where path_in_schema in ('geometry', 'geography') order by row_group_id",
    [path]).fetchall()
for col, g, bbox in rows:
    b = None if bbox is None or bbox["xmin"] is None else [
        bbox[k] for k in ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")]
    out["duckdb"].setdefault(col, {"stats": []})["stats"].append(b)
for name in ("geometry", "geography"):
    out["duckdb"][name]["type"] = con.execute(
        f"select typeof({name}) from read_parquet(?) limit 1", [path]).fetchone()[0]
    out["duckdb"][name]["values"] = [
        None if v is None else bytes(v).hex() for (v,) in con.execute(
            f"select {name}::BLOB from read_parquet(?) order by id", [path]).fetchall()]
print(json.dumps(out))
"#;

#[test]
fn written_geospatial_read_by_pyarrow_and_duckdb_with_the_same_statistics() {
    let Some(py) = python_if_present() else {
        return;
    };
    let batch = geo_batch(true);
    let ours = write_parq(&batch);
    let dir = common::tmp_dir("geospatial_peers");
    let path = dir.join("geo.parquet");
    std::fs::write(&path, &ours).unwrap();
    let out: serde_json::Value =
        serde_json::from_str(run_python_at(&py, PEERS_PY, &[&path]).trim()).unwrap();
    let expected = peer_geo_stats(&ours);
    for (c, name) in ["geometry", "geography"].iter().enumerate() {
        let want: Vec<Option<String>> = binary_values(std::slice::from_ref(&batch), name)
            .into_iter()
            .map(|v| v.map(|b| hex(&b)))
            .collect();
        let pa = &out["pyarrow"][name];
        let got: Vec<Option<String>> = serde_json::from_value(pa["values"].clone()).unwrap();
        assert_eq!(got, want, "pyarrow {name}");
        let logical = pa["logical"].as_str().unwrap();
        assert!(
            logical.starts_with(if c == 0 { "Geometry" } else { "Geography" }),
            "{logical}"
        );
        // pyarrow's and DuckDB's statistics: those arrow-rs reads.
        let want_stats: Vec<Option<Vec<Option<f64>>>> = expected
            .iter()
            .map(|rg| rg[c].as_ref().and_then(|s| s.0.map(|b| b.to_vec())))
            .collect();
        let pa_stats: Vec<Option<PeerStats>> = serde_json::from_value(pa["stats"].clone()).unwrap();
        let pa_bbox: Vec<Option<Vec<Option<f64>>>> = pa_stats
            .iter()
            .map(|s| s.as_ref().map(|s| s.0.clone()))
            .collect();
        assert_eq!(pa_bbox, want_stats, "pyarrow {name} bbox");
        let pa_types: Vec<Option<Vec<i32>>> = pa_stats
            .iter()
            .map(|s| s.as_ref().map(|s| s.1.clone()))
            .collect();
        let want_types: Vec<Option<Vec<i32>>> = expected
            .iter()
            .map(|rg| rg[c].as_ref().and_then(|s| s.1.clone()))
            .collect();
        assert_eq!(pa_types, want_types, "pyarrow {name} types");
        let dd = &out["duckdb"][name];
        let dd_stats: Vec<Option<Vec<Option<f64>>>> =
            serde_json::from_value(dd["stats"].clone()).unwrap();
        assert_eq!(dd_stats, want_stats, "duckdb {name} bbox");
        assert_eq!(dd["type"].as_str(), Some("GEOMETRY"), "duckdb {name}");
        let dd_values: Vec<Option<String>> = serde_json::from_value(dd["values"].clone()).unwrap();
        // DuckDB rewrites big-endian WKB little-endian: the same geometries.
        let unhex = |h: &str| -> Vec<u8> {
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                .collect()
        };
        let shape = |v: &Option<String>| {
            v.as_deref()
                .map(|h| format!("{:?}", parq::wkb::envelope(&unhex(h))))
        };
        assert_eq!(
            dd_values.iter().map(shape).collect::<Vec<_>>(),
            want.iter().map(shape).collect::<Vec<_>>(),
            "duckdb {name}"
        );
    }
}

/// The union of the geospatial statistics of column `col` over the row groups.
fn union_geo_stats(bytes: &Bytes, col: usize) -> Option<([f64; 4], Vec<i32>)> {
    let r = SerializedFileReader::new(bytes.clone()).unwrap();
    let mut out: Option<([f64; 4], Vec<i32>)> = None;
    for rg in r.metadata().row_groups() {
        let Some(g) = rg.column(col).geo_statistics() else {
            continue;
        };
        let (b, t) = out.get_or_insert(([f64::MAX, f64::MIN, f64::MAX, f64::MIN], Vec::new()));
        if let Some(bb) = g.bounding_box() {
            b[0] = b[0].min(bb.get_xmin());
            b[1] = b[1].max(bb.get_xmax());
            b[2] = b[2].min(bb.get_ymin());
            b[3] = b[3].max(bb.get_ymax());
        }
        t.extend(g.geospatial_types().into_iter().flatten());
        t.sort_unstable();
        t.dedup();
    }
    out
}

#[test]
fn geometry_files_rewritten_by_parq_keep_their_statistics() {
    let mut checked = 0;
    for path in geo_files() {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let (schema, batches) = read_parq(&bytes);
        let Some(col) = schema.fields().iter().position(|f| f.name() == "geometry") else {
            continue;
        };
        if !schema.field(col).metadata()["ARROW:extension:metadata"].contains("crs")
            || schema.field(col).metadata()["ARROW:extension:metadata"].contains("edges")
        {
            continue;
        }
        let batch = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
        let ours = write_parq(&batch);
        assert_eq!(
            union_geo_stats(&ours, col),
            union_geo_stats(&bytes, col),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(geo_dir().is_none() || checked >= 6, "{checked}");
}

// ---------------------------------------------------------------------------------------------
// The bounding-box filter: rows by each value's envelope, row groups by their statistics.

use parq::read::{col, parse_filter};

/// The row numbers (0-based, file order) of `sys.argv[1]` whose WKB column `sys.argv[2]`
/// has an envelope meeting the rectangle `sys.argv[3:7]`, computed with `struct`.
const REFERENCE_PY: &str = r#"
import math, struct, sys
import pyarrow.parquet as pq

def env(b):
    out = [math.inf, -math.inf, math.inf, -math.inf]
    def geom(pos, depth):
        if depth > 64: raise ValueError("deep")
        le = {0: ">", 1: "<"}[b[pos]]
        (t,) = struct.unpack_from(le + "I", b, pos + 1)
        pos += 5
        if t & 0x20000000:
            pos += 4
        z, m = bool(t & 0x80000000), bool(t & 0x40000000)
        t &= 0x0FFFFFFF
        z = z or (t // 1000) in (1, 3)
        m = m or (t // 1000) in (2, 3)
        base, dims = t % 1000, 2 + z + m
        def coords(pos, n):
            for _ in range(n):
                x, y = struct.unpack_from(le + "dd", b, pos)
                pos += 8 * dims
                if pos > len(b): raise ValueError("short")
                if not math.isnan(x): out[0], out[1] = min(out[0], x), max(out[1], x)
                if not math.isnan(y): out[2], out[3] = min(out[2], y), max(out[3], y)
            return pos
        if base == 1: return coords(pos, 1)
        (n,) = struct.unpack_from(le + "I", b, pos)
        pos += 4
        if base == 2: return coords(pos, n)
        for _ in range(n):
            if base == 3:
                (k,) = struct.unpack_from(le + "I", b, pos)
                pos = coords(pos + 4, k)
            elif base in (4, 5, 6, 7):
                pos = geom(pos, depth + 1)
            else: raise ValueError("type")
        return pos
    if geom(0, 0) != len(b): raise ValueError("trailing")
    return out

x0, y0, x1, y1 = map(float, sys.argv[3:7])
rows = []
for i, v in enumerate(pq.read_table(sys.argv[1]).column(sys.argv[2]).to_pylist()):
    if v is None: continue
    try: e = env(v)
    except Exception: continue
    if e[0] <= x1 and e[1] >= x0 and e[2] <= y1 and e[3] >= y0: rows.append(i)
print(" ".join(map(str, rows)))
"#;

/// The `id`s parq keeps with `sql` (row numbers when the file has no `id`) and the row
/// groups it skipped.
fn filtered(path: &std::path::Path, sql: &str) -> (Vec<i64>, usize) {
    let reader = ParquetReader::open(path)
        .unwrap()
        .with_filter(parse_filter(sql).unwrap());
    let mut batches = reader.batches().unwrap();
    let got: Vec<RecordBatch> = (&mut batches).collect::<parq::Result<_>>().unwrap();
    let ids = got
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name("id").unwrap();
            let a = arrow_cast::cast(a, &DataType::Int64).unwrap();
            a.as_primitive::<arrow_array::types::Int64Type>()
                .values()
                .to_vec()
        })
        .collect();
    (ids, batches.stats().row_groups_skipped)
}

#[test]
fn bbox_filter_keeps_the_rows_whose_envelope_meets_the_rectangle() {
    let Some(py) = python_if_present() else {
        return;
    };
    let dir = common::tmp_dir("geospatial_filter");
    // parq's file (with an invalid WKB value), and geospatial.parquet given an `id`.
    let ours = dir.join("ours.parquet");
    std::fs::write(&ours, write_parq(&geo_batch(false))).unwrap();
    let mut files = vec![(ours, "geometry")];
    if let Some(d) = geo_dir() {
        let bytes = Bytes::from(std::fs::read(d.join("geospatial.parquet")).unwrap());
        let (schema, batches) = read_parq(&bytes);
        let mut fields: Vec<Field> = schema.fields().iter().map(|f| (**f).clone()).collect();
        fields.push(Field::new("id", DataType::Int64, false));
        let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
        let props = WriterProperties::builder()
            .max_row_group_rows(Some(4))
            .build()
            .unwrap();
        let path = dir.join("geospatial_ids.parquet");
        let mut out = Vec::new();
        let mut w = ParquetWriter::try_new(&mut out, schema.clone(), props).unwrap();
        let mut next = 0i64;
        for b in batches {
            let n = b.num_rows() as i64;
            let mut cols = b.columns().to_vec();
            cols.push(Arc::new(Int64Array::from_iter_values(next..next + n)));
            next += n;
            w.write(&RecordBatch::try_new(schema.clone(), cols).unwrap())
                .unwrap();
        }
        w.close().unwrap();
        std::fs::write(&path, out).unwrap();
        files.push((path, "geometry"));
    }
    let rects = [
        [0.0, 0.0, 5.0, 5.0],
        [99.0, 39.0, 130.0, 60.0],
        [-1e9, -1e9, 1e9, 1e9],
        [200.0, 200.0, 300.0, 300.0],
        [3.0, 3.0, 3.0, 3.0],
        [10.0, 10.0, 20.0, 20.0],
        [-5.0, -5.0, 0.5, 0.5],
        [15.0, 15.0, 35.0, 35.0],
    ];
    let mut skipped = 0;
    for (path, column) in &files {
        for r in rects {
            let args: Vec<String> = [path.display().to_string(), column.to_string()]
                .into_iter()
                .chain(r.iter().map(|v| v.to_string()))
                .collect();
            let want: Vec<i64> = run_python_at(&py, REFERENCE_PY, &args)
                .split_whitespace()
                .map(|s| s.parse().unwrap())
                .collect();
            let sql = format!(
                "ST_Intersects({column}, ST_MakeEnvelope({}, {}, {}, {}))",
                r[0], r[1], r[2], r[3]
            );
            let (got, s) = filtered(path, &sql);
            assert_eq!(got, want, "{} {sql}", path.display());
            skipped += s;
            // The same through the Predicate builder, and combined with other terms.
            let p = col(*column).intersects_bbox(r[0], r[1], r[2], r[3]);
            assert_eq!(p, parse_filter(&sql).unwrap());
            assert_eq!(parse_filter(&p.to_string()).unwrap(), p);
            let (not, _) = filtered(path, &format!("NOT {sql}"));
            let (all, _) = filtered(path, "id >= 0");
            let nulls: Vec<i64> = filtered(path, &format!("{column} IS NULL")).0;
            let mut both: Vec<i64> = got.iter().chain(&not).chain(&nulls).copied().collect();
            both.sort_unstable();
            assert_eq!(both, all, "{} NOT {sql}", path.display());
        }
    }
    assert!(skipped >= 6, "only {skipped} row groups skipped");
}

#[test]
fn bbox_filter_refuses_non_binary_columns_and_bad_sql() {
    let dir = common::tmp_dir("geospatial_filter_errors");
    let path = dir.join("f.parquet");
    std::fs::write(&path, write_parq(&geo_batch(true))).unwrap();
    let r = ParquetReader::open(&path)
        .unwrap()
        .with_filter(col("id").intersects_bbox(0.0, 0.0, 1.0, 1.0));
    assert!(r.read_all().is_err());
    for bad in [
        "ST_Intersects(geometry, ST_MakeEnvelope(0, 0, 1))",
        "ST_Intersects(geometry, 5)",
        "ST_Intersects(geometry, ST_MakeEnvelope(0, 0, 1, 'a'))",
        "ST_Intersects(ST_MakeEnvelope(0, 0, 1, 1), geometry)",
    ] {
        assert!(parse_filter(bad).is_err(), "{bad}");
    }
}
