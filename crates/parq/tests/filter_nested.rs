//! Filters on fields inside structs, named by dotted path (`s.a.b`), judged by pyarrow 26
//! (`pq.read_table(filters=<Expression on pc.field("s", "a", "b")>)`) and DuckDB 2.0
//! (`WHERE s.a.b ...`) on a file pyarrow wrote: the rows kept (nulls at every level: a null
//! struct makes its fields null), the row groups the leaf's statistics skip, the pages its
//! page index skips, the Bloom filters DuckDB writes; a top-level column whose name has a
//! dot binds before a path; a path into a list is an error naming it; a dataset of two such
//! files filters as pyarrow's dataset does.

use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use parq::read::{parse_filter, ReadStats};
use parq::ParquetReader;

mod common;

/// Rows 0..1000 in row groups of 100: `i`; `s: struct<a: struct<b: int64, c: string>,
/// x: double>` with `b = i` (null every 9th), `a` null every 13th, `s` null every 17th;
/// a top-level `s.a` (1000 - i); `l: list<struct<x: int64>>`. Small pages, page index.
const WRITE: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
p, rg = sys.argv[1], int(sys.argv[2])
n = 1000
i = list(range(n))
b = pa.array([None if k % 9 == 0 else k for k in i], pa.int64())
c = pa.array([f"c{k:04d}" for k in i])
a = pa.StructArray.from_arrays([b, c], names=["b", "c"], mask=pa.array([k % 13 == 0 for k in i]))
x = pa.array([k / 2 for k in i], pa.float64())
s = pa.StructArray.from_arrays([a, x], names=["a", "x"], mask=pa.array([k % 17 == 0 for k in i]))
l = pa.array([[{"x": k}] for k in i], pa.list_(pa.struct([("x", pa.int64())])))
t = pa.table({"i": pa.array(i, pa.int64()), "s": s, "s.a": pa.array([n - k for k in i], pa.int64()), "l": l})
pq.write_table(t, p, row_group_size=rg, data_page_size=256, write_batch_size=50,
               use_dictionary=False, write_page_index=True)
"#;

/// pyarrow's and DuckDB's kept `i` of each filter (one line each: pyarrow, then DuckDB).
const PEERS: &str = r#"
import sys, duckdb, pyarrow.compute as pc, pyarrow.parquet as pq
p = sys.argv[1]
f = pc.field
exprs = [
    f("s", "a", "b") > 250,
    f("s", "a", "c") == "c0123",
    f("s", "a", "b").is_null(),
    ~(f("s", "a", "b") < 400),
    (f("s", "x") >= 140.5) & (f("s", "a", "b") < 300),
    f("s.a") > 950,
    f("s", "a", "b").isin([5, 305]),
]
sqls = [
    "s.a.b > 250",
    "s.a.c = 'c0123'",
    "s.a.b IS NULL",
    "NOT (s.a.b < 400)",
    "s.x >= 140.5 AND s.a.b < 300",
    '"s.a" > 950',
    "s.a.b IN (5, 305)",
]
for e, q in zip(exprs, sqls):
    t = pq.read_table(p, columns=["i"], filters=e)
    print(",".join(str(v) for v in sorted(t.column("i").to_pylist())))
    rows = duckdb.sql(f"select i from read_parquet('{p}') where {q} order by i").fetchall()
    print(",".join(str(r[0]) for r in rows))
"#;

/// The SQL filters, as parq reads them, in the order of `PEERS`, with the row groups (of
/// 100 rows) their statistics skip.
const FILTERS: &[(&str, usize)] = &[
    ("s.a.b > 250", 2),
    ("s.a.c = 'c0123'", 9),
    ("s.a.b IS NULL", 0),
    ("NOT (s.a.b < 400)", 4),
    ("s.x >= 140.5 AND s.a.b < 300", 9),
    ("\"s.a\" > 950", 9),
    ("s.a.b IN (5, 305)", 8),
];

/// The `i` parq keeps of `file` with filter `sql` reading `columns` (all when `None`; `i`
/// added), and the read's statistics.
fn parq_rows(file: &Path, sql: &str, columns: Option<&[&str]>) -> (Vec<i64>, ReadStats) {
    let mut reader = ParquetReader::open(file)
        .unwrap()
        .with_filter(parse_filter(sql).unwrap());
    if let Some(c) = columns {
        let mut c = c.to_vec();
        c.push("i");
        reader = reader.with_columns(c);
    }
    let schema = reader.schema().unwrap();
    let mut batches = reader.batches().unwrap();
    let mut rows = Vec::new();
    for b in &mut batches {
        let b = b.unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(b.schema(), schema, "{sql}: the batch's schema");
        let i = b.column_by_name("i").unwrap();
        rows.extend(i.as_primitive::<Int64Type>().values().iter().copied());
    }
    rows.sort_unstable();
    (rows, batches.stats())
}

#[test]
fn struct_fields_filter_as_pyarrow_and_duckdb_and_prune() {
    let tmp = common::tmp_dir("filter-nested");
    let file = tmp.join("nested.parquet");
    common::run_python(WRITE, &[file.as_os_str(), "100".as_ref()]);
    let peers = common::int_lines(&common::run_python(PEERS, &[&file]));
    assert_eq!(peers.len(), 2 * FILTERS.len());
    for (k, (sql, skipped)) in FILTERS.iter().enumerate() {
        let (pyarrow, duckdb) = (&peers[2 * k], &peers[2 * k + 1]);
        assert_eq!(pyarrow, duckdb, "{sql}: the peers agree");
        for columns in [None, Some(&["s"][..]), Some(&["s.x"][..]), Some(&[][..])] {
            let (rows, stats) = parq_rows(&file, sql, columns);
            assert_eq!(&rows, pyarrow, "{sql} reading {columns:?}");
            assert_eq!(
                stats.row_groups_skipped, *skipped,
                "{sql} reading {columns:?}: row groups skipped"
            );
        }
    }
    // Reading `s.x` with a filter on `s.a.b`: the batches hold `s` with `x` only.
    let reader = ParquetReader::open(&file)
        .unwrap()
        .with_columns(["s.x"])
        .with_filter(parse_filter("s.a.b > 990").unwrap());
    let batches = reader.read_all().unwrap();
    let s = batches[0].column(0).as_struct();
    assert_eq!(s.num_columns(), 1);
    assert_eq!(batches[0].schema().field(0).name(), "s");
}

#[test]
fn struct_field_pages_skipped_by_the_page_index() {
    let tmp = common::tmp_dir("filter-nested-pages");
    let file = tmp.join("one_group.parquet");
    common::run_python(WRITE, &[file.as_os_str(), "1000".as_ref()]);
    let (all, _) = parq_rows(&file, "s.a.b >= 0 OR s.a.b IS NULL", None);
    assert_eq!(all.len(), 1000);
    let (rows, stats) = parq_rows(&file, "s.a.b >= 500 AND s.a.b <= 510", Some(&[]));
    let want: Vec<i64> = (500..=510)
        .filter(|i| i % 9 != 0 && i % 13 != 0 && i % 17 != 0)
        .collect();
    assert_eq!(rows, want);
    assert!(
        stats.pages_skipped > 0 && stats.rows_decoded < 1000,
        "the page index skipped no page: {stats:?}"
    );
}

#[test]
fn struct_field_bloom_filters_written_by_duckdb_skip_row_groups() {
    let tmp = common::tmp_dir("filter-nested-bloom");
    let file = tmp.join("bloom.parquet");
    // Even `b` only: an odd value lies within a row group's bounds but in no filter.
    let script = r#"
import sys, duckdb
p = sys.argv[1]
duckdb.sql(f"""copy (select i, {{'a': {{'b': (i % 300) * 2}}}} as s from range(10000) t(i) order by i)
  to '{p}' (format parquet, row_group_size 2048)""")
print(",".join(str(r[0]) for r in duckdb.sql(f"select i from '{p}' where s.a.b = 402 order by i").fetchall()))
print(",".join(str(r[0]) for r in duckdb.sql(f"select i from '{p}' where s.a.b = 403 order by i").fetchall()))
"#;
    let out = common::int_lines(&common::run_python(script, &[&file]));
    let (rows, _) = parq_rows(&file, "s.a.b = 402", None);
    assert_eq!(rows, out[0]);
    let (rows, stats) = parq_rows(&file, "s.a.b = 403", None);
    assert_eq!(rows, out[1]);
    assert!(
        stats.row_groups_skipped_by_bloom > 0,
        "no row group skipped by the Bloom filters: {stats:?}"
    );
}

#[test]
fn paths_into_lists_and_unknown_paths_are_errors() {
    let tmp = common::tmp_dir("filter-nested-errors");
    let file = tmp.join("nested.parquet");
    common::run_python(WRITE, &[file.as_os_str(), "100".as_ref()]);
    let err = |sql: &str| {
        ParquetReader::open(&file)
            .unwrap()
            .with_filter(parse_filter(sql).unwrap())
            .read_all()
            .unwrap_err()
            .to_string()
    };
    let e = err("l.x = 1");
    assert!(e.contains("`l.x`") && e.contains("list"), "{e}");
    let e = err("s = 1");
    assert!(e.contains("`s`"), "{e}");
    let e = err("s.a.z = 1");
    assert!(e.contains("s.a.z"), "{e}");
    let e = err("s.a.b.q = 1");
    assert!(e.contains("s.a.b.q"), "{e}");
}

#[test]
fn dataset_filters_on_struct_fields_match_pyarrow() {
    use parq::dataset::{Dataset, DatasetOptions};
    let tmp = common::tmp_dir("filter-nested-dataset");
    let dir = tmp.join("ds");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["a.parquet", "b.parquet"] {
        common::run_python(WRITE, &[dir.join(name).as_os_str(), "100".as_ref()]);
    }
    let script = r#"
import sys, pyarrow.compute as pc, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1], columns=["i"], filters=pc.field("s", "a", "b") > 950)
print(",".join(str(v) for v in sorted(t.column("i").to_pylist())))
"#;
    let want = common::int_lines(&common::run_python(script, &[&dir]));
    let ds = Dataset::open(dir.as_path(), DatasetOptions::default()).unwrap();
    for columns in [vec!["i"], vec!["i", "s"]] {
        let batches = ds
            .scan()
            .with_columns(columns.clone())
            .with_filter(parse_filter("s.a.b > 950").unwrap())
            .read_all()
            .unwrap();
        let mut rows: Vec<i64> = batches
            .iter()
            .flat_map(|b| {
                let i = b.column_by_name("i").unwrap().as_primitive::<Int64Type>();
                i.values().to_vec()
            })
            .collect();
        rows.sort_unstable();
        assert_eq!(rows, want[0], "reading {columns:?}");
        assert_eq!(batches[0].num_columns(), columns.len());
    }
}
