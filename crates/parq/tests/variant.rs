//! Variant columns: every case of parquet-testing's `shredded_variant/cases.json` read and
//! compared with its `.variant.bin` files (error cases must fail), every value of
//! `variant/` decoded and encoded again, the opt-in shredded read.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use parq::variant::{encode, Metadata, Variant, EXTENSION_NAME};
use parq::{ErrorKind, ParquetReader, ReadOptions};

mod common;

use common::variant::{canon, canon_of, case_files, split};

fn dir(name: &str) -> PathBuf {
    common::testdata().join("parquet-testing").join(name)
}

fn read(path: &Path, options: ReadOptions) -> parq::Result<Vec<RecordBatch>> {
    ParquetReader::open(path)?.with_options(options).read_all()
}

#[test]
fn every_shredded_variant_case() {
    let dir = dir("shredded_variant");
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    let (mut exact, mut equal, mut errors, mut rows) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in cases.as_array().unwrap() {
        let number = case["case_number"].as_u64().unwrap();
        let Some(file) = case["parquet_file"].as_str() else {
            continue;
        };
        let result = read(&dir.join(file), ReadOptions::default());
        if let Some(message) = case["error_message"].as_str() {
            match result {
                Err(_) => errors += 1,
                Ok(_) => failures.push(format!("case {number}: no error ({message})")),
            }
            continue;
        }
        let batches = match result {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("case {number}: {e}"));
                continue;
            }
        };
        let files = case_files(case);
        let mut got = Vec::new();
        for b in &batches {
            let field = b.schema().field_with_name("var").unwrap().clone();
            assert_eq!(
                field
                    .metadata()
                    .get("ARROW:extension:name")
                    .map(String::as_str),
                Some(EXTENSION_NAME)
            );
            let var = b.column_by_name("var").unwrap().as_struct().clone();
            let metadata = var.column_by_name("metadata").unwrap().as_binary::<i32>();
            let value = var.column_by_name("value").unwrap().as_binary::<i32>();
            for r in 0..var.len() {
                got.push(
                    var.is_valid(r)
                        .then(|| (metadata.value(r).to_vec(), value.value(r).to_vec())),
                );
            }
        }
        if got.len() != files.len() {
            failures.push(format!(
                "case {number}: {} rows, {} expected",
                got.len(),
                files.len()
            ));
            continue;
        }
        for (r, (got, file)) in got.iter().zip(&files).enumerate() {
            rows += 1;
            match (got, file) {
                (None, None) => exact += 1,
                (Some((m, v)), Some(f)) => {
                    let bytes = std::fs::read(dir.join(f)).unwrap();
                    let (em, ev) = split(&bytes);
                    if em == m.as_slice() && ev == v.as_slice() {
                        exact += 1;
                    } else if canon_of(em, ev) == canon_of(m, v) {
                        equal += 1;
                    } else {
                        failures.push(format!(
                            "case {number} row {r}: {} != {}",
                            canon_of(m, v),
                            canon_of(em, ev)
                        ));
                    }
                }
                _ => failures.push(format!(
                    "case {number} row {r}: null mismatch {got:?} {file:?}"
                )),
            }
        }
    }
    eprintln!("rows byte-equal {exact}, equal by value {equal}, error cases {errors}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(errors, 6);
    assert!(rows >= 130);
}

#[test]
fn types_shredding_does_not_allow_are_schema_errors() {
    let dir = dir("shredded_variant");
    for (file, what) in [
        ("case-127.parquet", "INTEGER(32,false)"),
        ("case-137.parquet", "fixed_len_byte_array(4)"),
    ] {
        let e = read(&dir.join(file), ReadOptions::default()).err().unwrap();
        match e.kind() {
            ErrorKind::SchemaConversion(m) => assert!(m.contains(what), "{m}"),
            other => panic!("{file}: {other:?}"),
        }
    }
}

#[test]
fn shredded_kept_when_asked() {
    let path = dir("shredded_variant").join("case-004.parquet");
    let options = ReadOptions {
        variant_shredded: true,
        ..ReadOptions::default()
    };
    let batches = read(&path, options).unwrap();
    let schema = batches[0].schema();
    let var = schema.field_with_name("var").unwrap();
    assert_eq!(
        var.metadata()
            .get("ARROW:extension:name")
            .map(String::as_str),
        Some(EXTENSION_NAME)
    );
    let arrow_schema::DataType::Struct(fields) = var.data_type() else {
        panic!("{var:?}")
    };
    assert!(fields.find("typed_value").is_some());
}

#[test]
fn every_variant_value_decodes_and_encodes_again() {
    let dir = dir("variant");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("value") {
            continue;
        }
        let value = std::fs::read(&path).unwrap();
        let metadata = std::fs::read(path.with_extension("metadata")).unwrap();
        let meta = Metadata::new(&metadata).unwrap();
        assert_eq!(meta.size().unwrap(), metadata.len(), "{path:?}");
        let v = Variant::new(&value).unwrap();
        assert_eq!(Variant::size(&value).unwrap(), value.len(), "{path:?}");
        let mut again = Vec::new();
        encode::write(&mut again, &v).unwrap();
        assert_eq!(
            canon(&meta, &Variant::new(&again).unwrap()),
            canon(&meta, &v),
            "{path:?}"
        );
        count += 1;
    }
    assert!(count >= 29, "{count}");
}

#[test]
fn bad_bytes_are_errors() {
    let metadata = [1u8, 0, 0];
    assert!(Metadata::new(&[]).is_err());
    assert!(Metadata::new(&[2, 0, 0]).is_err());
    assert!(Metadata::new(&[1, 5, 0]).is_err());
    let meta = Metadata::new(&metadata).unwrap();
    assert!(meta.get(0).is_err());
    for bad in [
        &[][..],
        &[0x0c],
        &[0x40],
        &[0x3c, 1, 0],
        &[0x02, 1, 0, 0],
        &[0x02, 1, 0, 0, 9, 5],
        &[0x03, 2, 0, 1],
        &[0x03, 1, 0, 200],
    ] {
        let r = Variant::new(bad).and_then(|v| {
            let mut out = Vec::new();
            Variant::size(bad)?;
            encode::write(&mut out, &v)
        });
        assert!(r.is_err(), "{bad:?}");
    }
}

/// Every prefix of every `variant/` value and metadata, and every single-byte change of
/// them, decodes to a value or an error, never a panic.
#[test]
fn truncated_and_changed_bytes_never_panic() {
    fn walk(meta: &[u8], value: &[u8]) {
        if let Ok(m) = Metadata::new(meta) {
            let _ = m.size();
            let _ = m.find("id");
            for i in 0..m.len().min(64) {
                let _ = m.get(i);
            }
        }
        if let Ok(v) = Variant::new(value) {
            let _ = Variant::size(value);
            let mut out = Vec::new();
            let _ = encode::write(&mut out, &v);
        }
    }
    for entry in std::fs::read_dir(dir("variant")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("value") {
            continue;
        }
        let value = std::fs::read(&path).unwrap();
        let metadata = std::fs::read(path.with_extension("metadata")).unwrap();
        for n in 0..value.len() {
            walk(&metadata, &value[..n]);
        }
        for n in 0..metadata.len() {
            walk(&metadata[..n], &value);
        }
        for i in 0..value.len().min(64) {
            for x in [0x00, 0x01, 0x03, 0x7f, 0x80, 0xff] {
                let mut v = value.clone();
                v[i] ^= x;
                walk(&metadata, &v);
            }
        }
    }
}
