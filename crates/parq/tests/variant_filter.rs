//! Filters on object fields of a shredded Variant column (`v.a`): a file parq writes with
//! `v` shredded as `{a: int64, b: string}` in row groups of 100 rows, one row group holding
//! a double `a` and one a string `a` (both in the residual `value` column), others a null
//! row, a bare string and an object without `a`. The rows kept are those the input values
//! give (and DuckDB 2.0 keeps, where its `try_cast(v.a AS DOUBLE)` means the same), read as
//! the Variant extension type and shredded, with and without `v` chosen; the row groups
//! skipped are exactly those whose `typed_value` statistics rule the comparison out and whose
//! residual `value` leaf is all null: a row group holding `a` of another type is read. A
//! shredded file DuckDB writes is filtered as DuckDB filters it, with the same pruning.

use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use parq::read::{parse_filter, ReadStats};
use parq::variant::Variant;
use parq::{ParquetReader, ParquetWriter, ReadOptions, WriterProperties};

mod common;

use common::variant::{int64, object, primitive, string, variant_batch};

/// Field `a` of row `i`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum A {
    Int(i64),
    Double(f64),
    Str,
    /// A null row, a non-object or an object without `a`.
    None,
}

fn a_of(i: i64) -> A {
    match i {
        150 => A::Double(1000.5),
        250 => A::Str,
        320 | 330 | 340 => A::None,
        i => A::Int(i),
    }
}

/// The file: rows 0..500, row groups of 100, `v` shredded as `{a: int64, b: string}` (`b`
/// is `s<i>` where the row is an object).
fn write(path: &Path, page_rows: Option<usize>, group_rows: usize) {
    let values = (0..500i64)
        .map(|i| {
            let b = (1, string(&format!("s{i}")));
            match i {
                150 => Some(object(&[(0, primitive(Variant::Double(1000.5))), b])),
                250 => Some(object(&[(0, string("zzz")), b])),
                320 => None,
                330 => Some(string("bare")),
                340 => Some(object(&[b])),
                i => Some(object(&[(0, int64(i)), b])),
            }
        })
        .collect();
    let batch = variant_batch(values);
    let t = arrow_schema::DataType::Struct(arrow_schema::Fields::from(vec![
        arrow_schema::Field::new("a", arrow_schema::DataType::Int64, true),
        arrow_schema::Field::new("b", arrow_schema::DataType::Utf8, true),
    ]));
    let props = WriterProperties::builder()
        .variant_shredding("v", t)
        .max_row_group_rows(Some(group_rows))
        .data_page_rows(page_rows)
        .build()
        .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ParquetWriter::try_new(file, batch.schema(), props).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// The `id` parq keeps of `file` with filter `sql` and its read's statistics.
fn parq_rows(
    file: &Path,
    sql: &str,
    shredded: bool,
    columns: Option<&[&str]>,
) -> (Vec<i64>, ReadStats) {
    let options = ReadOptions {
        variant_shredded: shredded,
        ..ReadOptions::default()
    };
    let mut reader = ParquetReader::open(file)
        .unwrap()
        .with_options(options)
        .with_filter(parse_filter(sql).unwrap());
    if let Some(c) = columns {
        reader = reader.with_columns(c.iter().copied());
    }
    let mut batches = reader.batches().unwrap();
    let mut rows = Vec::new();
    for b in &mut batches {
        let b = b.unwrap_or_else(|e| panic!("{sql}: {e}"));
        let id = b.column_by_name("id").unwrap();
        rows.extend(id.as_primitive::<Int64Type>().values().iter().copied());
    }
    (rows, batches.stats())
}

/// Each filter, the rows it keeps by the input values, and the row groups (of 100 rows)
/// that may be skipped: those of the row groups 0, 3 and 4 (no `a` outside `typed_value`)
/// whose `a` bounds rule it out.
#[allow(clippy::type_complexity)]
fn cases() -> Vec<(&'static str, Box<dyn Fn(A, i64) -> bool>, usize)> {
    let num = |a: A| match a {
        A::Int(x) => Some(x as f64),
        A::Double(x) => Some(x),
        _ => None,
    };
    vec![
        (
            "v.a > 900",
            Box::new(move |a, _| num(a).is_some_and(|x| x > 900.0)),
            3,
        ),
        ("v.a = 'zzz'", Box::new(|a, _| a == A::Str), 3),
        ("v.a IS NULL", Box::new(|a, _| a == A::None), 2),
        ("v.a IS NOT NULL", Box::new(|a, _| a != A::None), 0),
        (
            "v.a < 5.5",
            Box::new(move |a, _| num(a).is_some_and(|x| x < 5.5)),
            0,
        ),
        (
            "v.a IN (10, 480)",
            Box::new(|a, _| matches!(a, A::Int(10 | 480))),
            1,
        ),
        (
            "v.b = 's460' AND v.a >= 450",
            Box::new(|a, i| i == 460 && matches!(a, A::Int(x) if x >= 450)),
            4,
        ),
        (
            "NOT (v.a <= 100)",
            Box::new(move |a, _| num(a).is_some_and(|x| x > 100.0)),
            1,
        ),
    ]
}

#[test]
fn variant_field_filters_keep_the_input_rows_and_skip_only_sound_row_groups() {
    let tmp = common::tmp_dir("variant-filter");
    let file = tmp.join("v.parquet");
    write(&file, None, 100);
    for (sql, keeps, skipped) in cases() {
        let want: Vec<i64> = (0..500).filter(|&i| keeps(a_of(i), i)).collect();
        for shredded in [false, true] {
            for columns in [None, Some(&["id"][..]), Some(&["id", "v"][..])] {
                let (rows, stats) = parq_rows(&file, sql, shredded, columns);
                let how = format!("{sql} (shredded: {shredded}, columns {columns:?})");
                assert_eq!(rows, want, "{how}");
                assert_eq!(
                    stats.row_groups_skipped, skipped,
                    "{how}: row groups skipped"
                );
            }
        }
    }
    // DuckDB keeps the same rows where its cast means the same comparison.
    let script = r#"
import sys, duckdb
p = sys.argv[1]
for q in ["try_cast(v.a as DOUBLE) > 900", "NOT (try_cast(v.a as DOUBLE) <= 100)",
          "try_cast(v.a as DOUBLE) < 5.5"]:
    rows = duckdb.sql(f"select id from '{p}' where {q} order by id").fetchall()
    print(",".join(str(r[0]) for r in rows))
"#;
    let duckdb = common::int_lines(&common::run_python(script, &[&file]));
    for (sql, want) in ["v.a > 900", "NOT (v.a <= 100)", "v.a < 5.5"]
        .iter()
        .zip(&duckdb)
    {
        assert_eq!(
            &parq_rows(&file, sql, false, None).0,
            want,
            "{sql} as DuckDB"
        );
    }
}

#[test]
fn variant_field_pages_skipped_by_the_page_index_only_without_residual_values() {
    let tmp = common::tmp_dir("variant-filter-pages");
    let file = tmp.join("pages.parquet");
    write(&file, Some(10), 500);
    // Pages of 10 rows: `v.a > 900` keeps row 150 (a double, in `value`) and reads only
    // the pages of rows 150..160 and 250..260 (a string `a`); `v.a >= 495` those and the
    // last page, keeping row 150 too (1000.5).
    for (sql, want) in [
        ("v.a > 900", vec![150]),
        ("v.a >= 495", vec![150, 495, 496, 497, 498, 499]),
    ] {
        for shredded in [false, true] {
            let (rows, stats) = parq_rows(&file, sql, shredded, Some(&["id"]));
            assert_eq!(rows, want, "{sql}");
            assert!(stats.rows_decoded <= 30, "{sql}: {stats:?}");
        }
    }
}

#[test]
fn duckdb_shredded_file_filtered_as_duckdb_filters_it() {
    // DuckDB shreds `a` as int64; row 150 holds a double, so its row group (the first of
    // 2,048 rows) is read whatever its typed bounds say.
    let tmp = common::tmp_dir("variant-filter-duckdb");
    let file = tmp.join("duckdb.parquet");
    let script = r#"
import sys, duckdb
p = sys.argv[1]
duckdb.sql(f"""copy (select i as id, (case when i = 150 then {{'a': 100000.5}}::VARIANT
    else {{'a': i}}::VARIANT end) as v from range(10000) t(i) order by i)
    to '{p}' (format parquet, row_group_size 2048)""")
for q in ["try_cast(v.a as DOUBLE) > 9000", "try_cast(v.a as DOUBLE) < 3"]:
    rows = duckdb.sql(f"select id from '{p}' where {q} order by id").fetchall()
    print(",".join(str(r[0]) for r in rows))
"#;
    let duckdb = common::int_lines(&common::run_python(script, &[&file]));
    let groups = ParquetReader::open(&file)
        .unwrap()
        .metadata()
        .row_groups()
        .len();
    assert_eq!(groups, 5);
    // `> 9000`: the groups of rows 2048..8192 are skipped, the first is read (row 150);
    // `< 3`: every group after the first.
    for ((sql, skipped), want) in [("v.a > 9000", 3), ("v.a < 3", 4)].iter().zip(&duckdb) {
        for shredded in [false, true] {
            let (rows, stats) = parq_rows(&file, sql, shredded, Some(&["id"]));
            assert_eq!(&rows, want, "{sql}");
            assert_eq!(stats.row_groups_skipped, *skipped, "{sql}: {stats:?}");
        }
    }
}

#[test]
fn variant_paths_that_name_no_field_are_errors() {
    let tmp = common::tmp_dir("variant-filter-errors");
    let file = tmp.join("v.parquet");
    write(&file, None, 100);
    let e = ParquetReader::open(&file)
        .unwrap()
        .with_filter(parse_filter("v = 1").unwrap())
        .read_all()
        .unwrap_err()
        .to_string();
    assert!(e.contains("`v`"), "{e}");
    // A field the shredding does not name is compared on the values (no pruning).
    let (rows, stats) = parq_rows(&file, "v.c = 1", false, None);
    assert!(rows.is_empty());
    assert_eq!(stats.row_groups_skipped, 0);
}
