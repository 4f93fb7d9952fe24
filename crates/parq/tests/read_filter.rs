//! Filters against pyarrow: random predicates (comparisons, IN, IS [NOT] NULL, AND, OR, NOT;
//! literals drawn from the columns' values, their bounds and beyond) over a generated file of
//! every primitive type the filters take (nulls, NaN, -0.0, several row groups with
//! statistics) and over corpus files. parq reads each with the predicate as SQL text
//! ([`parse_filter`]); pyarrow reads it with `read_table(filters=...)`, the expression built
//! to SQL null semantics (`read_filter.py`). The rows must be equal, and some row groups must
//! have been skipped by their statistics, some by their Bloom filters. Literals that cannot
//! be converted to their column's type, and unknown columns, are errors before any data is
//! read. The columns a filter does not read skip the pages of the rows it drops. A third of
//! the cases are read again by the async reader over HTTP range requests. Row groups whose
//! dictionaries hold no value a comparison needs are skipped, though their statistics span
//! every value, and the rows are pyarrow's with that pruning on or off, strings as `Utf8` or
//! views, on one thread or several.

mod common;
use common::http::{runtime, serve, Http};
use common::{differences, read_ipc, testdata, tmp_dir, Rng};

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, RecordBatch, UInt32Array};
use arrow_schema::DataType;
use parq::read::parse_filter;
use parq::read::{
    col, AsyncParquetReader, ParquetReader, ReadOptions, ReadStats, RowSelection, StringType,
};
use serde_json::{json, Value};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/read_filter.py")
}

fn run(args: &[&str]) -> String {
    common::run_python_file(&script(), args)
}

/// A random predicate over `columns` (name -> [sql, value] literals): its SQL text and its
/// JSON tree for read_filter.py.
fn predicate(rng: &mut Rng, columns: &[(String, Vec<Value>)], depth: u32) -> (String, Value) {
    let quoted = |c: &str| format!("\"{}\"", c.replace('"', "\"\""));
    if depth > 0 && rng.chance(0.45) {
        let (a, ta) = predicate(rng, columns, depth - 1);
        match rng.below(3) {
            0 => {
                let (b, tb) = predicate(rng, columns, depth - 1);
                return (format!("({a}) AND ({b})"), json!(["and", ta, tb]));
            }
            1 => {
                let (b, tb) = predicate(rng, columns, depth - 1);
                return (format!("({a}) OR ({b})"), json!(["or", ta, tb]));
            }
            _ => return (format!("NOT ({a})"), json!(["not", ta])),
        }
    }
    let (name, lits) = rng.pick(columns);
    let lit = |rng: &mut Rng| -> (String, Value) {
        if lits.is_empty() || rng.chance(0.03) {
            return ("NULL".into(), Value::Null);
        }
        let l = rng.pick(&lits);
        (l[0].as_str().unwrap().to_string(), l[1].clone())
    };
    match rng.below(10) {
        0 => {
            let negated = rng.chance(0.5);
            let not = if negated { "NOT " } else { "" };
            (
                format!("{} IS {not}NULL", quoted(&name)),
                json!(["isnull", name, negated]),
            )
        }
        1 | 2 => {
            let negated = rng.chance(0.4);
            let k = 1 + rng.below(4) as usize;
            let items: Vec<(String, Value)> = (0..k).map(|_| lit(rng)).collect();
            let sql: Vec<&str> = items.iter().map(|(s, _)| s.as_str()).collect();
            let vals: Vec<Value> = items.iter().map(|(_, v)| v.clone()).collect();
            let not = if negated { "NOT " } else { "" };
            (
                format!("{} {not}IN ({})", quoted(&name), sql.join(", ")),
                json!(["in", name, vals, negated]),
            )
        }
        _ => {
            let op = rng.pick(&["=", "!=", "<", "<=", ">", ">="]);
            let (s, v) = lit(rng);
            let sql_op = if op == "!=" && rng.chance(0.5) {
                "<>"
            } else {
                op
            };
            (
                format!("{} {sql_op} {s}", quoted(&name)),
                json!(["cmp", name, op, v]),
            )
        }
    }
}

/// pyarrow's rows of each (file, predicate tree) case, written to `dir`/<i>.arrow; the cases
/// where its `read_table(filters=)` disagrees with its in-memory filter (whose rows are
/// then written).
fn pyarrow_filters<'a>(
    dir: &Path,
    cases: impl Iterator<Item = (&'a Path, &'a Value)>,
) -> Vec<usize> {
    let json_cases: Vec<Value> = cases
        .map(|(f, t)| json!([f.to_str().unwrap(), t]))
        .collect();
    let cases_path = dir.join("cases.json");
    std::fs::write(&cases_path, serde_json::to_string(&json_cases).unwrap()).unwrap();
    serde_json::from_str(&run(&[
        "filter",
        cases_path.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]))
    .unwrap()
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    let schema = batches[0].schema();
    arrow_select::concat::concat_batches(&schema, batches).unwrap()
}

#[test]
fn random_predicates_match_pyarrow_filters() {
    let dir = tmp_dir("read_filter");
    let generated = dir.join("generated.parquet");
    run(&["gen", generated.to_str().unwrap()]);
    let data = testdata().join("parquet-testing/data");
    let mut files = vec![generated.clone()];
    for f in [
        "alltypes_plain.parquet",
        "alltypes_tiny_pages.parquet",
        "alltypes_tiny_pages_plain.parquet",
        "data_index_bloom_encoding_stats.parquet",
        "int32_decimal.parquet",
        "int64_decimal.parquet",
        "byte_array_decimal.parquet",
        "nulls.snappy.parquet",
        "single_nan.parquet",
        "nan_in_stats.parquet",
    ] {
        if data.join(f).exists() {
            files.push(data.join(f));
        }
    }
    let names: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let mut args = vec!["samples"];
    args.extend(&names);
    let samples: Value = serde_json::from_str(&run(&args)).unwrap();
    let mut rng = Rng(2026);
    let mut cases: Vec<(PathBuf, String, Value)> = Vec::new();
    for file in &files {
        let cols = samples[file.to_str().unwrap()].as_object().unwrap();
        let columns: Vec<(String, Vec<Value>)> = cols
            .iter()
            .map(|(k, v)| (k.clone(), v.as_array().unwrap().clone()))
            .collect();
        if columns.is_empty() {
            continue;
        }
        let n = if *file == generated { 300 } else { 25 };
        for _ in 0..n {
            let (sql, tree) = predicate(&mut rng, &columns, 2);
            cases.push((file.clone(), sql, tree));
        }
    }
    let disagree = pyarrow_filters(&dir, cases.iter().map(|(f, _, t)| (f.as_path(), t)));
    // pyarrow's read_table(filters=) trusts a NaN max in the statistics of nan_in_stats.parquet
    // and skips its row group; there the expectation is pyarrow's in-memory filter.
    for &i in &disagree {
        let (file, sql, _) = &cases[i];
        assert!(
            file.ends_with("nan_in_stats.parquet"),
            "{}: {sql}",
            file.display()
        );
    }
    // Every third case also through the async reader over HTTP range requests.
    let served = dir.join("served");
    std::fs::create_dir_all(&served).unwrap();
    for (k, f) in files.iter().enumerate() {
        std::fs::copy(f, served.join(format!("{k}.parquet"))).unwrap();
    }
    let server = serve(&served);
    let rt = runtime();
    let mut skipped = 0;
    let mut bloom_skipped = 0;
    let mut pages_skipped = 0;
    let mut kept_some = 0;
    let mut failures = Vec::new();
    for (i, (file, sql, _)) in cases.iter().enumerate() {
        let expected = read_ipc(&dir.join(format!("{i}.arrow")));
        let predicate = parse_filter(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        let reader = ParquetReader::open(file)
            .unwrap()
            .with_batch_size(1000)
            .with_filter(predicate);
        let mut batches = reader.batches().unwrap_or_else(|e| panic!("{sql}: {e}"));
        let got: Vec<RecordBatch> = (&mut batches)
            .collect::<parq::Result<_>>()
            .unwrap_or_else(|e| panic!("{}: {sql}: {e}", file.display()));
        let stats = batches.stats();
        skipped += stats.row_groups_skipped;
        bloom_skipped += stats.row_groups_skipped_by_bloom;
        if stats.row_groups_skipped == 0 {
            pages_skipped += stats.pages_skipped;
        }
        let got = match got.is_empty() {
            true => RecordBatch::new_empty(reader.schema().unwrap()),
            false => concat(&got),
        };
        kept_some += usize::from(got.num_rows() > 0);
        let diff = differences(&got, &expected);
        if !diff.is_empty() {
            failures.push(format!("{}: {sql}: {diff:?}", file.display()));
        }
        if i % 3 == 0 {
            let k = files.iter().position(|f| f == file).unwrap();
            let http = Http {
                port: server.1,
                path: format!("{k}.parquet"),
            };
            let fetch = if i % 2 == 0 { 4 << 20 } else { 300 };
            let read = async {
                let reader = AsyncParquetReader::open(http)
                    .await?
                    .with_batch_size(1000)
                    .with_options(ReadOptions {
                        fetch_bytes: fetch,
                        batch_size: 1000,
                        ..ReadOptions::default()
                    })
                    .with_filter(parse_filter(sql)?);
                reader.read_all().await
            };
            let over_http = rt
                .block_on(read)
                .unwrap_or_else(|e| panic!("{}: {sql}: over HTTP: {e}", file.display()));
            let over_http = match over_http.is_empty() {
                true => RecordBatch::new_empty(got.schema()),
                false => concat(&over_http),
            };
            if over_http != got {
                failures.push(format!("{}: {sql}: over HTTP differs", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(skipped > 50, "{skipped} row groups skipped");
    // Row groups the statistics kept and the Bloom filters of `=` / `IN` skipped.
    assert!(
        bloom_skipped > 20,
        "{bloom_skipped} row groups skipped by Bloom filters"
    );
    // Pages skipped by the column index where no row group was.
    assert!(pages_skipped > 100, "{pages_skipped} pages skipped");
    assert!(
        kept_some > cases.len() / 4,
        "{kept_some} of {} kept rows",
        cases.len()
    );
}

#[test]
fn bad_filters_are_errors_before_reading() {
    let dir = tmp_dir("read_filter_errors");
    let generated = dir.join("generated.parquet");
    run(&["gen", generated.to_str().unwrap()]);
    for (sql, want) in [
        ("nope = 1", "no column `nope`"),
        ("i32 = 'abc'", "cannot be compared with column `i32`"),
        ("i32 = 1.5", "not a whole number"),
        ("i32 > 99999999999", "cannot be compared with column `i32`"),
        ("u32 = -1", "cannot be compared with column `u32`"),
        ("d >= 'not a date'", "cannot be compared with column `d`"),
        ("s = 5", "cannot be compared with column `s`"),
        ("b = 1", "cannot be compared with column `b`"),
        ("dec = 1.234", "more digits after the point"),
    ] {
        let p = parse_filter(sql).unwrap();
        let reader = ParquetReader::open(&generated).unwrap().with_filter(p);
        let e = reader.batches().unwrap_err().to_string();
        assert!(e.contains(want), "{sql}: {e}");
    }
    // Timestamps: a literal without a zone is UTC for a UTC column, wall time otherwise.
    let rows = |p| -> usize {
        let r = ParquetReader::open(&generated).unwrap().with_filter(p);
        r.read_all().unwrap().iter().map(|b| b.num_rows()).sum()
    };
    assert!(rows(col("ts").eq("2020-01-31 08:00:00")) == 1);
    assert!(rows(col("tsn").eq("2020-01-31 08:01:00")) == 1);
    assert!(rows(col("ts").eq("2020-01-31 08:00:00.25")) == 0);
    assert!(rows(col("ts").eq("2020-01-31 08:00:07.25")) == 1);
}

#[test]
fn row_selections_match_pyarrow_take() {
    let dir = tmp_dir("read_selection");
    let generated = dir.join("generated.parquet");
    run(&["gen", generated.to_str().unwrap()]);
    let data = testdata().join("parquet-testing/data");
    let mut rng = Rng(99);
    let mut skipped_pages = 0;
    for file in [
        generated,
        data.join("alltypes_tiny_pages.parquet"),
        data.join("alltypes_plain.parquet"),
    ] {
        let reader = ParquetReader::open(&file).unwrap();
        let rows = reader.metadata().num_rows() as u64;
        for case in 0..12 {
            // A few ranges, sometimes none, sometimes past the end.
            let mut ranges = Vec::new();
            for _ in 0..rng.below(5) {
                let s = rng.below(rows + 10);
                let len = match case % 3 {
                    0 => 1 + rng.below(3),
                    1 => rng.below(200),
                    _ => rng.below(rows / 2 + 1),
                };
                ranges.push(s..s + len);
            }
            let selection = RowSelection::from_ranges(ranges);
            let clipped: Vec<Value> = selection
                .ranges()
                .iter()
                .filter(|r| r.start < rows)
                .map(|r| json!([r.start, r.end.min(rows)]))
                .collect();
            let ranges_path = dir.join("ranges.json");
            std::fs::write(&ranges_path, serde_json::to_string(&clipped).unwrap()).unwrap();
            let out = dir.join("take.arrow");
            run(&[
                "take",
                file.to_str().unwrap(),
                ranges_path.to_str().unwrap(),
                out.to_str().unwrap(),
            ]);
            let expected = read_ipc(&out);
            let r = ParquetReader::open(&file)
                .unwrap()
                .with_batch_size(97)
                .with_row_selection(selection.clone());
            let mut batches = r.batches().unwrap();
            let got: Vec<RecordBatch> = (&mut batches).collect::<parq::Result<_>>().unwrap();
            skipped_pages += batches.stats().pages_skipped;
            let got = match got.is_empty() {
                true => RecordBatch::new_empty(r.schema().unwrap()),
                false => concat(&got),
            };
            let diff = differences(&got, &expected);
            assert!(
                diff.is_empty(),
                "{}: {:?}: {diff:?}",
                file.display(),
                selection.ranges()
            );
        }
    }
    assert!(skipped_pages > 50, "{skipped_pages} pages skipped");
}

/// A selection's runs end inside pages: the values of a page after a run that a skip follows
/// are passed over, as those before a run that starts inside a page are, and the rows are
/// those `parquet` 60.1 reads with the same selection (PLAIN and dictionary, required and
/// nullable, runs ending in the middle of a batch and at its end).
#[test]
fn runs_that_end_inside_pages_pass_over_the_rest() {
    use parquet::arrow::arrow_reader::{
        ParquetRecordBatchReaderBuilder, RowSelection as Selection60, RowSelector,
    };
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties as Props60;

    let n = 20_000u64;
    let ids = arrow_array::Int64Array::from_iter_values((0..n as i64).map(|i| i * 7));
    let maybe =
        arrow_array::Int32Array::from_iter((0..n as i32).map(|i| (i % 5 != 0).then_some(i)));
    let words = arrow_array::StringArray::from_iter_values((0..n).map(|i| format!("w{}", i % 37)));
    let batch = RecordBatch::try_from_iter([
        ("id", std::sync::Arc::new(ids) as arrow_array::ArrayRef),
        ("maybe", std::sync::Arc::new(maybe) as _),
        ("word", std::sync::Arc::new(words) as _),
    ])
    .unwrap();
    let props = Props60::builder()
        .set_data_page_row_count_limit(1000)
        .set_write_batch_size(1000)
        .set_column_dictionary_enabled("id".into(), false)
        .set_column_dictionary_enabled("maybe".into(), false)
        .set_max_row_group_row_count(Some(7000))
        .build();
    let mut file = Vec::new();
    let mut w = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let file = bytes::Bytes::from(file);

    // Runs ending mid-page, one across a row group's end, one to the file's end.
    let ranges = [
        100..150u64,
        2_300..2_301,
        4_050..8_500,
        12_999..13_000,
        19_990..n,
    ];
    let mut selectors = Vec::new();
    let mut at = 0;
    for r in &ranges {
        selectors.push(RowSelector::skip((r.start - at) as usize));
        selectors.push(RowSelector::select((r.end - r.start) as usize));
        at = r.end;
    }
    let expected: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_row_selection(Selection60::from(selectors))
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected = [concat(&expected)];
    let selected: u64 = ranges.iter().map(|r| r.end - r.start).sum();
    for batch_size in [97, 8192] {
        let r = ParquetReader::from_bytes(file.clone())
            .unwrap()
            .with_batch_size(batch_size)
            .with_row_selection(RowSelection::from_ranges(ranges.clone()));
        let mut batches = r.batches().unwrap();
        let got = concat(&(&mut batches).collect::<parq::Result<Vec<_>>>().unwrap());
        let diff = differences(&got, &expected);
        assert!(diff.is_empty(), "batch size {batch_size}: {diff:?}");
        assert_eq!(got.num_rows() as u64, selected);
        // Of `id` and `maybe` (PLAIN) and `word` (dictionary indices): each page a run
        // starts or ends in passes over its rows outside the run. Without passing over
        // the page's rest after a run, only the rows before the runs' starts would be.
        // Per run: its page's rows before it, and after it (the last two runs end with
        // their pages).
        let before: u64 = 100 + 300 + 50 + 999 + 990;
        let after: u64 = 850 + 699 + 500;
        let stats = batches.stats();
        assert_eq!(
            stats.values_passed_over,
            3 * (before + after),
            "batch size {batch_size}: {stats:?}"
        );
    }
}

/// With a filter on one column, the other columns decode only the rows it keeps: their pages
/// that hold none are never read (skipped by the offset index) or, without a page index,
/// never decompressed (skipped by their headers); on one thread or three.
#[test]
fn late_columns_skip_the_pages_of_rows_the_filter_drops() {
    let dir = tmp_dir("read_late");
    for index in [true, false] {
        let generated = dir.join(format!("generated-{index}.parquet"));
        let mut args = vec!["gen", generated.to_str().unwrap(), "plain"];
        if !index {
            args.push("noindex");
        }
        run(&args);
        let all = ParquetReader::open(&generated).unwrap();
        assert_eq!(
            all.metadata().row_groups()[0].columns()[0]
                .offset_index_offset()
                .is_some(),
            index
        );
        let mut batches = all.batches().unwrap();
        let whole = concat(&(&mut batches).collect::<parq::Result<Vec<_>>>().unwrap());
        let pages_all = batches.stats().pages_read;
        let groups = all.metadata().row_groups().len() as u64;
        let u32s = whole.column_by_name("u32").unwrap();
        for row in [0usize, 1777, 6000, 11999] {
            if u32s.is_null(row) {
                continue;
            }
            let v = u32s.as_primitive::<UInt32Type>().value(row);
            let mask = arrow_ord::cmp::eq(u32s, &UInt32Array::new_scalar(v)).unwrap();
            let expected = arrow_select::filter::filter_record_batch(&whole, &mask).unwrap();
            // Batches of 100 rows end inside pages; in batches of 5,000 a late column's page
            // holds the row and rows skipped right after it, left undecoded.
            for (threads, batch) in [(1, 100), (3, 100), (1, 5000), (3, 5000)] {
                let reader = ParquetReader::open(&generated)
                    .unwrap()
                    .with_batch_size(batch)
                    .with_threads(threads)
                    .with_filter(col("u32").eq(v as i64));
                let mut batches = reader.batches().unwrap();
                let got = concat(&(&mut batches).collect::<parq::Result<Vec<_>>>().unwrap());
                assert_eq!(
                    got, expected,
                    "u32 = {v}, {threads} threads, batch {batch}, index {index}"
                );
                let stats = batches.stats();
                // One row group's pages of u32, and about one page of each other column.
                assert!(
                    stats.pages_read * groups * 2 < pages_all,
                    "u32 = {v}, index {index}: {} of {pages_all} pages read",
                    stats.pages_read
                );
            }
        }
    }
}

#[test]
fn bloom_filters_without_their_length_are_used() {
    // parquet-mr before 1.13 gives a Bloom filter's offset but not its length.
    let file = testdata().join("parquet-testing/data/data_index_bloom_encoding_stats.parquet");
    let reader = ParquetReader::open(&file).unwrap();
    let chunk = &reader.metadata().row_groups()[0].columns()[0];
    assert!(chunk.bloom_filter_offset().is_some() && chunk.bloom_filter_length().is_none());
    let dir = tmp_dir("read_bloom_unsized");
    let (ranges, out) = (dir.join("ranges.json"), dir.join("all.arrow"));
    let rows = reader.metadata().num_rows();
    std::fs::write(&ranges, json!([[0, rows]]).to_string()).unwrap();
    run(&[
        "take",
        file.to_str().unwrap(),
        ranges.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    let all = concat(&read_ipc(&out));
    let strings = all.column(0).as_string::<i32>();
    let filtered = |sql: &str| {
        let r = ParquetReader::open(&file)
            .unwrap()
            .with_filter(parse_filter(sql).unwrap());
        let mut batches = r.batches().unwrap();
        let got: Vec<RecordBatch> = (&mut batches).collect::<parq::Result<_>>().unwrap();
        let values: Vec<String> = got
            .iter()
            .flat_map(|b| {
                let s = b.column(0).as_string::<i32>();
                (0..s.len())
                    .map(|i| s.value(i).to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        (values, batches.stats())
    };
    // Every value present is found (the filter never rules out a row it holds).
    for i in 0..strings.len() {
        let v = strings.value(i);
        let sql = format!("\"String\" = '{}'", v.replace('\'', "''"));
        let (values, stats) = filtered(&sql);
        let expected = (0..strings.len())
            .filter(|&j| strings.value(j) == v)
            .count();
        assert_eq!(values.len(), expected, "{sql}");
        assert!(values.iter().all(|x| x == v), "{sql}");
        assert_eq!(stats.bloom_filters_read, 1, "{sql}");
    }
    // Values absent but within the statistics' bounds: the Bloom filter rules them out.
    let absent = ["Hellp", "brown", "quick", "jumped", "Today"];
    let mut skipped = 0;
    for v in absent {
        let (values, stats) = filtered(&format!("\"String\" = '{v}'"));
        assert!(values.is_empty(), "{v}");
        skipped += stats.row_groups_skipped_by_bloom;
    }
    assert!(skipped >= 4, "{skipped} of {} skipped", absent.len());
}

/// Reads `file` with the filter `sql` and `options`: the rows (one batch) and the stats.
fn read_filtered(file: &Path, sql: &str, options: ReadOptions) -> (RecordBatch, ReadStats) {
    let reader = ParquetReader::open(file)
        .unwrap()
        .with_options(options)
        .with_filter(parse_filter(sql).unwrap());
    let mut batches = reader.batches().unwrap();
    let got: Vec<RecordBatch> = (&mut batches)
        .collect::<parq::Result<_>>()
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let got = match got.is_empty() {
        true => RecordBatch::new_empty(reader.schema().unwrap()),
        false => concat(&got),
    };
    (got, batches.stats())
}

#[test]
fn dictionaries_skip_row_groups_and_filter_by_entry() {
    let dir = tmp_dir("read_filter_dictionary");
    let file = dir.join("groups.parquet");
    let values: Value = serde_json::from_str(&run(&["dictgen", file.to_str().unwrap()])).unwrap();
    let words = [
        "apple", "banana", "cherry", "damson", "elder", "fig", "grape", "kiwi", "zebra",
    ];
    let s = |w: &str| json!(w);
    // (SQL, pyarrow tree, the row groups the dictionaries alone rule out when known).
    let mut cases: Vec<(String, Value, Option<usize>)> = Vec::new();
    let absent_in = |col: &str, v: &Value| {
        let groups = values[col].as_array().unwrap();
        groups
            .iter()
            .filter(|g| !g.as_array().unwrap().contains(v))
            .count()
    };
    for w in words {
        cases.push((
            format!("w = '{w}'"),
            json!(["cmp", "w", "=", w]),
            Some(absent_in("w", &s(w))),
        ));
        cases.push((format!("wd = '{w}'"), json!(["cmp", "wd", "=", w]), None));
        cases.push((
            format!("NOT (w <> '{w}')"),
            json!(["not", ["cmp", "w", "!=", w]]),
            Some(absent_in("w", &s(w))),
        ));
    }
    for g in 0..8 {
        let v = 10 * g + 2;
        cases.push((
            format!("n = {v}"),
            json!(["cmp", "n", "=", v]),
            Some(absent_in("n", &json!(v))),
        ));
    }
    for (sql, tree) in [
        (
            "w > 'c' AND w < 'd'",
            json!(["and", ["cmp", "w", ">", "c"], ["cmp", "w", "<", "d"]]),
        ),
        (
            "w IN ('banana', 'fig')",
            json!(["in", "w", ["banana", "fig"], false]),
        ),
        (
            "w = 'cherry' OR n = 41",
            json!(["or", ["cmp", "w", "=", "cherry"], ["cmp", "n", "=", 41]]),
        ),
        (
            "w = 'cherry' AND n > 30",
            json!(["and", ["cmp", "w", "=", "cherry"], ["cmp", "n", ">", 30]]),
        ),
        ("w <> 'apple'", json!(["cmp", "w", "!=", "apple"])),
        ("w IS NULL", json!(["isnull", "w", false])),
        (
            "w IS NULL OR w = 'kiwi'",
            json!(["or", ["isnull", "w", false], ["cmp", "w", "=", "kiwi"]]),
        ),
        ("wd >= 'fig'", json!(["cmp", "wd", ">=", "fig"])),
        ("w = 'nothing'", json!(["cmp", "w", "=", "nothing"])),
    ] {
        cases.push((sql.to_string(), tree, None));
    }
    let disagree = pyarrow_filters(&dir, cases.iter().map(|(_, t, _)| (file.as_path(), t)));
    assert!(disagree.is_empty(), "{disagree:?}");
    let mut skipped = 0;
    for (i, (sql, _, absent)) in cases.iter().enumerate() {
        let expected = read_ipc(&dir.join(format!("{i}.arrow")));
        let (got, stats) = read_filtered(&file, sql, ReadOptions::default());
        let diff = differences(&got, &expected);
        assert!(diff.is_empty(), "{sql}: {diff:?}");
        assert_eq!(stats.row_groups_skipped_by_bloom, 0, "{sql}");
        if let Some(absent) = absent {
            // The statistics span every value: only the dictionaries skip.
            assert_eq!(stats.row_groups_skipped_by_dictionary, *absent, "{sql}");
            assert_eq!(stats.row_groups_skipped, *absent, "{sql}");
        }
        skipped += stats.row_groups_skipped_by_dictionary;
        // Without dictionary filters: the same rows, no dictionary read on its own.
        let off = ReadOptions {
            dictionary_filters: false,
            ..ReadOptions::default()
        };
        let (plain, stats) = read_filtered(&file, sql, off);
        assert_eq!(plain, got, "{sql}");
        assert_eq!(stats.dictionaries_read, 0, "{sql}");
        assert_eq!(stats.row_groups_skipped_by_dictionary, 0, "{sql}");
        // Strings as views: the filter columns decoded as dictionaries still hand out views.
        let views = ReadOptions {
            strings: StringType::Utf8View,
            ..ReadOptions::default()
        };
        let (viewed, _) = read_filtered(&file, sql, views);
        let w = viewed.schema().index_of("w").unwrap();
        assert_eq!(viewed.column(w).data_type(), &DataType::Utf8View, "{sql}");
        let back = arrow_cast::cast(viewed.column(w), &DataType::Utf8).unwrap();
        assert_eq!(&back, got.column(w), "{sql}");
        // One thread per row group: the same rows.
        let threads = ReadOptions {
            threads: 3,
            batch_size: 300,
            ..ReadOptions::default()
        };
        let (threaded, _) = read_filtered(&file, sql, threads);
        assert_eq!(threaded, got, "{sql}");
    }
    assert!(skipped > 60, "{skipped} row groups skipped by dictionaries");
}
