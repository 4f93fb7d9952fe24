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
