//! Variant columns written by parq, judged by other readers:
//!
//! - every readable `shredded_variant` case, read by parq and written again unshredded and
//!   shredded by the case's own `typed_value` schema: DuckDB 2.0 reads the same values from
//!   both as from the case's file, and the `parquet` crate 60.1 reads the shredded file's
//!   columns, which reassemble to the case's `.variant.bin` values (as parq reads them);
//! - the VARIANT annotation and the statistics of shredded leaves, as 60.1 reads them;
//! - rows of mixed shapes (residual fields, other types, non-objects, nulls) as DuckDB reads
//!   them, against JSON written here;
//! - decimals (decimal4, decimal8, decimal16) and uuids shredded into INT32 / INT64 DECIMAL,
//!   FIXED_LEN_BYTE_ARRAY DECIMAL and UUID columns: DuckDB reads the same values as from the
//!   unshredded file, 60.1 the physical and logical types and the statistics;
//! - a Variant column within a struct, shredded by its dotted path: DuckDB reads the same
//!   values as from the unshredded file;
//! - hyparquet's sparse shredded file (its metadata flagged sorted but not sorted) as DuckDB
//!   reads it;
//! - bad values and shredding types the spec refuses are errors.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use parq::variant::unshred;
use parq::{ErrorKind, ParquetReader, ParquetWriter, ReadOptions, WriterProperties};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::statistics::Statistics;

mod common;

use common::variant::{
    canon_of, case_files, int64, object, primitive, split, string, variant_batch,
};

fn cases_dir() -> PathBuf {
    common::testdata()
        .join("parquet-testing")
        .join("shredded_variant")
}

fn read(path: &Path, options: ReadOptions) -> parq::Result<RecordBatch> {
    let batches = ParquetReader::open(path)?
        .with_options(options)
        .read_all()?;
    let schema = batches
        .first()
        .map(|b| b.schema())
        .unwrap_or_else(|| Arc::new(Schema::empty()));
    Ok(arrow_select::concat::concat_batches(&schema, &batches).unwrap())
}

fn write(path: &Path, batch: &RecordBatch, props: WriterProperties) -> parq::Result<()> {
    let file = std::fs::File::create(path).unwrap();
    let mut w = ParquetWriter::try_new(file, batch.schema(), props)?;
    w.write(batch)?;
    w.close()?;
    Ok(())
}

fn shredding(column: &str, t: DataType) -> WriterProperties {
    WriterProperties::builder()
        .variant_shredding(column, t)
        .build()
        .unwrap()
}

/// [`shredding`] in row groups of 100 rows.
fn shredding_by_100(column: &str, t: DataType) -> WriterProperties {
    WriterProperties::builder()
        .variant_shredding(column, t)
        .max_row_group_rows(Some(100))
        .build()
        .unwrap()
}

/// The short shredding schema of shredded `typed_value` type `t`; `None` when a group has
/// no `typed_value` or a type parq does not shred.
fn short(t: &DataType) -> Option<DataType> {
    let typed = |f: &Field| match f.data_type() {
        DataType::Struct(g) => g
            .find("typed_value")
            .and_then(|(_, t)| short(t.data_type())),
        _ => None,
    };
    Some(match t {
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| Some(Field::new(f.name(), typed(f)?, true)))
                .collect::<Option<Vec<_>>>()?
                .into(),
        ),
        DataType::List(item) => DataType::List(Arc::new(Field::new("element", typed(item)?, true))),
        DataType::FixedSizeBinary(n) if *n != 16 => return None,
        DataType::LargeUtf8 | DataType::Utf8View => return None,
        DataType::LargeBinary | DataType::BinaryView => return None,
        other => other.clone(),
    })
}

/// For each pair of files, whether DuckDB reads the same `var` values (ordered by `id`)
/// from both: `same`, `skip` (DuckDB cannot read the first) or the difference.
const COMPARE: &str = r#"
import sys, duckdb
paths = sys.argv[1:]
for a, b in zip(paths[::2], paths[1::2]):
    def rows(p):
        return duckdb.sql(f"select var from '{p}' order by id").fetchall()
    try:
        want = rows(a)
    except Exception:
        print("skip")
        continue
    try:
        got = rows(b)
    except Exception as e:
        print("error", str(e).replace("\n", " ")[:200])
        continue
    print("same" if got == want else f"differ {got!r} != {want!r}"[:400])
"#;

/// The metadata and value of each row of unshredded Variant struct `var`.
fn rows_of(var: &StructArray) -> Vec<Option<(Vec<u8>, Vec<u8>)>> {
    let metadata = var.column_by_name("metadata").unwrap().as_binary::<i32>();
    let value = var.column_by_name("value").unwrap().as_binary::<i32>();
    (0..var.len())
        .map(|r| {
            var.is_valid(r)
                .then(|| (metadata.value(r).to_vec(), value.value(r).to_vec()))
        })
        .collect()
}

#[test]
fn shredded_variant_cases_written_again_read_equal() {
    let dir = cases_dir();
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    let tmp = common::tmp_dir("variant-cases");
    let (mut pairs, mut shredded, mut checked_60) = (Vec::new(), 0, 0);
    let mut failures = Vec::new();
    for case in cases.as_array().unwrap() {
        let number = case["case_number"].as_u64().unwrap();
        let Some(file) = case["parquet_file"].as_str() else {
            continue;
        };
        if case.get("error_message").is_some() || file.contains("INVALID") {
            continue;
        }
        let original = dir.join(file);
        let batch = read(&original, ReadOptions::default()).unwrap();
        let plain = tmp.join(format!("{number}-plain.parquet"));
        write(&plain, &batch, WriterProperties::default()).unwrap();
        pairs.push((original.clone(), plain));
        let kept = read(
            &original,
            ReadOptions {
                variant_shredded: true,
                ..ReadOptions::default()
            },
        )
        .unwrap();
        let DataType::Struct(fields) = kept
            .schema()
            .field_with_name("var")
            .unwrap()
            .data_type()
            .clone()
        else {
            panic!("case {number}: var is not a struct");
        };
        let Some(t) = fields
            .find("typed_value")
            .and_then(|(_, f)| short(f.data_type()))
        else {
            continue;
        };
        let path = tmp.join(format!("{number}-shredded.parquet"));
        if let Err(e) = write(&path, &batch, shredding("var", t.clone())) {
            failures.push(format!("case {number}: {e} ({t})"));
            continue;
        }
        shredded += 1;
        pairs.push((original, path.clone()));
        // 60.1 reads the columns; they reassemble to the case's values.
        let f = std::fs::File::open(&path).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(f)
            .unwrap()
            .build()
            .unwrap();
        let mut got = Vec::new();
        for b in reader {
            let b = b.unwrap();
            let var = b.column_by_name("var").unwrap().as_struct();
            assert!(var.column_by_name("typed_value").is_some(), "case {number}");
            got.extend(rows_of(&unshred(var).unwrap()));
        }
        let files = case_files(case);
        // parq reads it back too.
        let back = read(&path, ReadOptions::default()).unwrap();
        let back = rows_of(back.column_by_name("var").unwrap().as_struct());
        for (who, got) in [("60.1", got), ("parq", back)] {
            assert_eq!(got.len(), files.len(), "case {number}");
            for (r, (got, file)) in got.iter().zip(&files).enumerate() {
                match (got, file) {
                    (None, None) => {}
                    (Some((m, v)), Some(f)) => {
                        let bytes = std::fs::read(dir.join(f)).unwrap();
                        let (em, ev) = split(&bytes);
                        if canon_of(em, ev) != canon_of(m, v) {
                            failures.push(format!(
                                "case {number} row {r} ({who}): {} != {}",
                                canon_of(m, v),
                                canon_of(em, ev)
                            ));
                        }
                    }
                    _ => failures.push(format!("case {number} row {r} ({who}): null mismatch")),
                }
            }
        }
        checked_60 += 1;
    }
    let args: Vec<&Path> = pairs
        .iter()
        .flat_map(|(a, b)| [a.as_path(), b.as_path()])
        .collect();
    let out = common::run_python(COMPARE, &args);
    let (mut same, mut skipped) = (0, 0);
    for ((a, b), line) in pairs.iter().zip(out.lines()) {
        match line {
            "same" => same += 1,
            "skip" => skipped += 1,
            other => failures.push(format!("{} vs {}: {other}", a.display(), b.display())),
        }
    }
    eprintln!(
        "{} files written ({shredded} shredded); DuckDB: {same} same, {skipped} unreadable originals; 60.1: {checked_60} files",
        pairs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(out.lines().count(), pairs.len());
    assert!(shredded >= 90, "{shredded}");
    assert!(same >= 150, "{same}");
}

#[test]
fn shredded_rows_of_every_shape_read_by_duckdb_and_60() {
    // Row i: {"a": i, "b": "s<i>"}, but every 7th has a string `a`, every 11th an extra
    // field `c`, every 13th is a bare string, every 17th is a null row.
    let mut values = Vec::new();
    let mut want = Vec::new();
    for i in 0..300i64 {
        if i % 17 == 0 {
            values.push(None);
            want.push("null".to_string());
        } else if i % 13 == 0 {
            values.push(Some(string("bare")));
            want.push("\"bare\"".to_string());
        } else if i % 7 == 0 {
            values.push(Some(object(&[
                (0, string("x")),
                (1, string(&format!("s{i}"))),
            ])));
            want.push(format!("{{\"a\": \"x\", \"b\": \"s{i}\"}}"));
        } else if i % 11 == 0 {
            values.push(Some(object(&[(0, int64(i)), (2, int64(-i))])));
            want.push(format!("{{\"a\": {i}, \"c\": {}}}", -i));
        } else {
            values.push(Some(object(&[
                (0, int64(i)),
                (1, string(&format!("s{i}"))),
            ])));
            want.push(format!("{{\"a\": {i}, \"b\": \"s{i}\"}}"));
        }
    }
    let batch = variant_batch(values);
    let tmp = common::tmp_dir("variant-shapes");
    let path = tmp.join("shapes.parquet");
    let t = DataType::Struct(Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ]));
    write(&path, &batch, shredding_by_100("v", t)).unwrap();

    // DuckDB: every row's JSON, and the rows a filter on the shredded field keeps.
    let script = r#"
import sys, json, duckdb
p = sys.argv[1]
for (v,) in duckdb.sql(f"select v::JSON from '{p}' order by id").fetchall():
    print(json.dumps(json.loads(v)) if v is not None else "null")
print(duckdb.sql(f"select count(*) from '{p}' where try_cast(v.a as BIGINT) > 250").fetchall()[0][0])
"#;
    let out = common::run_python(script, &[&path]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 301);
    for (i, (got, want)) in lines.iter().zip(&want).enumerate() {
        let got: serde_json::Value = serde_json::from_str(got).unwrap();
        let want: serde_json::Value = serde_json::from_str(want).unwrap();
        assert_eq!(got, want, "row {i}");
    }
    let expected_kept = (251..300)
        .filter(|i| i % 17 != 0 && i % 13 != 0 && i % 7 != 0)
        .count();
    assert_eq!(lines[300], expected_kept.to_string());

    // 60.1: the VARIANT annotation, the layout, and the statistics of `a`'s typed leaf.
    let f = std::fs::File::open(&path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let meta = builder.metadata().clone();
    let schema = meta.file_metadata().schema_descr();
    let root = schema.root_schema();
    let v = &root.get_fields()[1];
    assert_eq!(
        format!("{:?}", v.get_basic_info().logical_type_ref()),
        "Some(Variant(VariantType { specification_version: Some(1) }))"
    );
    let leaf = (0..schema.num_columns())
        .find(|&j| schema.column(j).path().string() == "v.typed_value.a.typed_value")
        .unwrap();
    assert_eq!(meta.num_row_groups(), 3);
    for (g, rg) in meta.row_groups().iter().enumerate() {
        let ints: Vec<i64> = (g as i64 * 100..g as i64 * 100 + 100)
            .filter(|i| i % 17 != 0 && i % 13 != 0 && i % 7 != 0)
            .collect();
        match rg.column(leaf).statistics() {
            Some(Statistics::Int64(s)) => {
                assert_eq!(s.min_opt(), ints.iter().min(), "row group {g}");
                assert_eq!(s.max_opt(), ints.iter().max(), "row group {g}");
            }
            other => panic!("row group {g}: {other:?}"),
        }
    }
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(total, 300);
}

#[test]
fn decimals_and_uuids_shredded_read_by_duckdb_and_60() {
    use parq::variant::Variant as V;
    use parquet::basic::{LogicalType, Type as Physical};
    // Rows: objects {"a": decimal4, "b": decimal8, "c": decimal16}, a bare uuid every tenth
    // row and a null row every tenth; some `a` and `b` of another width, scale or type, which
    // stay in `value`.
    let uuid = |i: i64| {
        let mut u = [0u8; 16];
        u[..8].copy_from_slice(&(i * 7919).to_be_bytes());
        u[8..].copy_from_slice(&(-i).to_le_bytes());
        u
    };
    let mut values = Vec::new();
    for i in 0..200i64 {
        values.push(match i % 10 {
            5 => Some(primitive(V::Uuid(uuid(i)))),
            9 => None,
            _ => {
                let a = if i % 7 == 3 {
                    primitive(V::Decimal8(i, 2))
                } else if i % 11 == 4 {
                    primitive(V::Decimal4(i as i32, 3))
                } else {
                    primitive(V::Decimal4((i * 37 - 3000) as i32, 2))
                };
                let b = if i % 13 == 2 {
                    primitive(V::Int64(i))
                } else {
                    primitive(V::Decimal8(i * 1_000_000_007 - 99, 4))
                };
                let c = primitive(V::Decimal16(i128::from(i) * 10i128.pow(30) + 1, 6));
                Some(object(&[(0, a), (1, b), (2, c)]))
            }
        });
    }
    let batch = variant_batch(values);
    let tmp = common::tmp_dir("variant-decimals");
    let plain = tmp.join("plain.parquet");
    write(&plain, &batch, WriterProperties::default()).unwrap();
    let mut paths = vec![plain.clone()];
    let object_t = DataType::Struct(Fields::from(vec![
        Field::new("a", DataType::Decimal32(9, 2), true),
        Field::new("b", DataType::Decimal64(18, 4), true),
        Field::new("c", DataType::Decimal128(38, 6), true),
    ]));
    for (name, t) in [
        ("object", object_t),
        ("uuid", DataType::FixedSizeBinary(16)),
        // Decimal128 of a small precision is a decimal4 all the same.
        ("d4", DataType::Decimal128(9, 2)),
    ] {
        let path = tmp.join(format!("{name}.parquet"));
        write(&path, &batch, shredding_by_100("v", t)).unwrap();
        paths.push(plain.clone());
        paths.push(path);
    }
    paths.remove(0);
    let out = common::run_python(COMPARE.replace("var", "v").as_str(), &paths);
    assert_eq!(out.lines().collect::<Vec<_>>(), ["same"; 3], "{out}");

    // 60.1: the typed leaves' types and statistics.
    let f = std::fs::File::open(tmp.join("object.parquet")).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let meta = builder.metadata().clone();
    let schema = meta.file_metadata().schema_descr();
    let leaf = |path: &str| {
        (0..schema.num_columns())
            .find(|&j| schema.column(j).path().string() == path)
            .unwrap()
    };
    let expect = [
        ("v.typed_value.a.typed_value", Physical::INT32, 9, 2),
        ("v.typed_value.b.typed_value", Physical::INT64, 18, 4),
        (
            "v.typed_value.c.typed_value",
            Physical::FIXED_LEN_BYTE_ARRAY,
            38,
            6,
        ),
    ];
    for (path, physical, precision, scale) in expect {
        let c = schema.column(leaf(path));
        assert_eq!(c.physical_type(), physical, "{path}");
        assert!(
            matches!(c.logical_type_ref(), Some(LogicalType::Decimal(_))),
            "{path}"
        );
        assert_eq!(
            (c.type_precision(), c.type_scale()),
            (precision, scale),
            "{path}"
        );
    }
    for (g, rg) in meta.row_groups().iter().enumerate() {
        let rows = g as i64 * 100..g as i64 * 100 + 100;
        let in_rg = |i: i64| rows.contains(&i);
        let want4: Vec<i32> = (0..200i64)
            .filter(|&i| in_rg(i) && i % 10 != 5 && i % 10 != 9 && i % 7 != 3 && i % 11 != 4)
            .map(|i| (i * 37 - 3000) as i32)
            .collect();
        let want8: Vec<i64> = (0..200i64)
            .filter(|&i| in_rg(i) && i % 10 != 5 && i % 10 != 9 && i % 13 != 2)
            .map(|i| i * 1_000_000_007 - 99)
            .collect();
        match rg.column(leaf(expect[0].0)).statistics() {
            Some(Statistics::Int32(s)) => {
                assert_eq!(s.min_opt(), want4.iter().min(), "row group {g}");
                assert_eq!(s.max_opt(), want4.iter().max(), "row group {g}");
            }
            other => panic!("row group {g}: {other:?}"),
        }
        match rg.column(leaf(expect[1].0)).statistics() {
            Some(Statistics::Int64(s)) => {
                assert_eq!(s.min_opt(), want8.iter().min(), "row group {g}");
                assert_eq!(s.max_opt(), want8.iter().max(), "row group {g}");
            }
            other => panic!("row group {g}: {other:?}"),
        }
    }

    // The uuid column: FIXED_LEN_BYTE_ARRAY(16) UUID.
    let f = std::fs::File::open(tmp.join("uuid.parquet")).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let schema = builder.metadata().file_metadata().schema_descr_ptr();
    let c = (0..schema.num_columns())
        .map(|j| schema.column(j))
        .find(|c| c.path().string() == "v.typed_value")
        .unwrap();
    assert_eq!(c.physical_type(), Physical::FIXED_LEN_BYTE_ARRAY);
    assert_eq!(c.type_length(), 16);
    assert_eq!(c.logical_type_ref(), Some(&LogicalType::Uuid));
}

#[test]
fn variant_within_a_struct_shredded_read_by_duckdb() {
    // `rec: struct<n: Int64, v: Variant>`, the struct null every 19th row.
    let values: Vec<Option<Vec<u8>>> = (0..120i64)
        .map(|i| match i % 9 {
            4 => None,
            5 => Some(string("bare")),
            _ => Some(object(&[(0, int64(i)), (1, string(&format!("s{i}")))])),
        })
        .collect();
    let inner = variant_batch(values);
    let v_field = inner.schema().field(1).clone();
    let n = Int64Array::from_iter_values((0..120).map(|i| i * 3));
    let outer_fields = Fields::from(vec![Field::new("n", DataType::Int64, false), v_field]);
    let nulls: arrow_buffer::NullBuffer = (0..120).map(|i| i % 19 != 7).collect();
    let outer = StructArray::new(
        outer_fields.clone(),
        vec![Arc::new(n) as ArrayRef, inner.column(1).clone()],
        Some(nulls),
    );
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("rec", DataType::Struct(outer_fields), true),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![inner.column(0).clone(), Arc::new(outer)],
    )
    .unwrap();
    let tmp = common::tmp_dir("variant-nested");
    let plain = tmp.join("plain.parquet");
    write(&plain, &batch, WriterProperties::default()).unwrap();
    let shredded = tmp.join("shredded.parquet");
    let t = DataType::Struct(Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ]));
    write(&shredded, &batch, shredding("rec.v", t)).unwrap();
    let script = r#"
import sys, duckdb
a, b = sys.argv[1:]
q = "select rec, rec.v::JSON from '{}' order by id"
want, got = duckdb.sql(q.format(a)).fetchall(), duckdb.sql(q.format(b)).fetchall()
print(len(want), got == want)
"#;
    let out = common::run_python(script, &[&plain, &shredded]);
    assert_eq!(out.trim(), "120 True", "{out}");
    // 60.1 sees the shredded leaves under the struct.
    let f = std::fs::File::open(&shredded).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let schema = builder.metadata().file_metadata().schema_descr_ptr();
    let paths: Vec<String> = (0..schema.num_columns())
        .map(|j| schema.column(j).path().string())
        .collect();
    assert!(
        paths.contains(&"rec.v.typed_value.a.typed_value".to_string()),
        "{paths:?}"
    );
    // A path that is not a Variant column is refused.
    let e = write(&shredded, &batch, shredding("rec.n", DataType::Int64)).unwrap_err();
    assert!(e.to_string().contains("rec.n"), "{e}");
}

#[test]
fn unshredded_bytes_as_60_reads_them() {
    let values: Vec<Option<Vec<u8>>> = (0..50i64)
        .map(|i| (i % 9 != 4).then(|| object(&[(0, int64(i)), (2, string("c"))])))
        .collect();
    let batch = variant_batch(values);
    let tmp = common::tmp_dir("variant-plain");
    let path = tmp.join("plain.parquet");
    write(&path, &batch, WriterProperties::default()).unwrap();
    let f = std::fs::File::open(&path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let schema = builder.metadata().file_metadata().schema_descr_ptr();
    let v = &schema.root_schema().get_fields()[1];
    assert!(format!("{:?}", v.get_basic_info().logical_type_ref()).contains("Variant"));
    let got: Vec<_> = builder
        .build()
        .unwrap()
        .flat_map(|b| rows_of(b.unwrap().column(1).as_struct()))
        .collect();
    assert_eq!(got, rows_of(batch.column(1).as_struct()));
}

#[test]
fn hyparquet_sparse_file_reads_as_duckdb_does() {
    let original = common::testdata()
        .join("real-world")
        .join("hyparam__hyparquet")
        .join("test__files__shredded-sparse-timestamp.parquet");
    let batch = read(&original, ReadOptions::default()).unwrap();
    assert_eq!(batch.num_rows(), 4);
    let tmp = common::tmp_dir("variant-sparse");
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..4));
    let var = batch.column_by_name("v").unwrap().clone();
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        batch
            .schema()
            .field_with_name("v")
            .unwrap()
            .clone()
            .with_name("var"),
    ]);
    let batch = RecordBatch::try_new(Arc::new(schema), vec![ids, var]).unwrap();
    let path = tmp.join("sparse.parquet");
    write(&path, &batch, WriterProperties::default()).unwrap();
    let script = r#"
import sys, duckdb
a, b = sys.argv[1:]
want = duckdb.sql(f"select v from '{a}'").fetchall()
got = duckdb.sql(f"select var from '{b}' order by id").fetchall()
print(got == want, got, want)
"#;
    let out = common::run_python(script, &[&original, &path]);
    assert!(out.starts_with("True"), "{out}");
}

#[test]
fn bad_values_and_refused_types_are_errors() {
    let tmp = common::tmp_dir("variant-errors");
    let path = tmp.join("bad.parquet");
    let mut values: Vec<Option<Vec<u8>>> = (0..5).map(|i| Some(int64(i))).collect();
    values[3] = Some(vec![0x02, 5, 0]);
    let batch = variant_batch(values);
    for props in [WriterProperties::default(), shredding("v", DataType::Int64)] {
        let e = write(&path, &batch, props).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("`v`") && m.contains("row 3"), "{m}");
    }
    let good = variant_batch((0..5).map(|i| Some(int64(i))).collect());
    for (column, t) in [
        ("v", DataType::UInt32),
        ("v", DataType::Decimal128(5, -2)),
        ("v", DataType::Decimal256(40, 2)),
        ("v", DataType::FixedSizeBinary(8)),
        ("v", DataType::Struct(Fields::empty())),
        ("v", DataType::Float16),
        ("id", DataType::Int64),
    ] {
        let e = write(&path, &good, shredding(column, t.clone())).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Unsupported(m) if m.contains(column)),
            "{t}: {e}"
        );
    }
}

#[test]
fn duckdb_written_files_read_as_duckdb_reads_them() {
    // DuckDB writes one set of rows unshredded, shredded as it chooses and shredded by a
    // given schema; parq reads each and writes it again; DuckDB reads the same values back.
    let tmp = common::tmp_dir("variant-duckdb");
    let rows = "SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL \
        WHEN i % 5 = 0 THEN ('s' || i)::VARIANT \
        WHEN i % 3 = 0 THEN [i, i * 2]::VARIANT \
        ELSE {'a': i, 'b': [i::VARIANT, 'x'::VARIANT], 'c': (i / 4)::DECIMAL(6, 2), \
        'd': DATE '2024-01-01' + i::INT, 'e': {'f': i % 2 = 0, 'g': 1.5::DOUBLE}}::VARIANT \
        END AS var FROM range(60) t(i)";
    let options = [
        "SHREDDING {var: 'VARIANT'}",
        "FORMAT parquet",
        "SHREDDING {var: 'STRUCT(a BIGINT, c DECIMAL(6, 2), e STRUCT(f BOOLEAN))'}",
    ];
    let mut paths = Vec::new();
    let script = r#"
import sys, duckdb
rows = sys.argv[1]
for p, option in zip(sys.argv[2::2], sys.argv[3::2]):
    duckdb.sql(f"COPY ({rows}) TO '{p}' ({option})")
"#;
    let mut args = vec![rows.to_string()];
    for (i, o) in options.iter().enumerate() {
        let p = tmp.join(format!("duckdb-{i}.parquet"));
        args.push(p.display().to_string());
        args.push(o.to_string());
        paths.push(p);
    }
    common::run_python(script, &args);
    let mut pairs = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        let batch = read(p, ReadOptions::default()).unwrap();
        let out = tmp.join(format!("parq-{i}.parquet"));
        write(&out, &batch, WriterProperties::default()).unwrap();
        pairs.push(p.clone());
        pairs.push(out);
    }
    let out = common::run_python(COMPARE, &pairs);
    assert_eq!(out.lines().collect::<Vec<_>>(), ["same"; 3], "{out}");
}
