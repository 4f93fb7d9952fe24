//! Float statistics under `IEEE_754_TOTAL_ORDER` and `TYPE_ORDER`, with `nan_count`, against
//! peers: parq's statistics and column index of a table of NaNs (of both signs and with
//! payloads), signed zeros, infinities, nulls and all-NaN row groups are the bytes
//! parquet 60.1 writes for the same table (it writes `IEEE_754_TOTAL_ORDER` by default), as
//! 60.1 reads them; under `TYPE_ORDER` the NaN counts and bounds are the ones computed here
//! from the input values by the spec's rules. pyarrow and DuckDB read the values back bit for
//! bit. Filters over these files, and over parquet-mr's `floating_orders_nan_count.parquet`,
//! keep the rows pyarrow's compute kernels keep (IEEE comparisons), and skip the row groups
//! the statistics rule out: a row group with NaNs is kept for the terms a NaN satisfies.

mod common;
use common::{filtered_rows, int_lines, run_python, testdata, tmp_dir};

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, Float32Array, Float64Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parq::write::file::ParquetWriter;
use parq::write::properties::WriterProperties as ParqProps;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::basic::ColumnOrder as PColumnOrder;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::properties::WriterProperties as PeerProps;

const ROWS_PER_GROUP: usize = 6;

/// The `x` values, by row group of [`ROWS_PER_GROUP`] rows.
fn groups() -> Vec<Vec<Option<f64>>> {
    let nan = f64::NAN;
    let neg_nan = -f64::NAN;
    let payload = f64::from_bits(0x7ff8_0000_0000_0001);
    let neg_payload = f64::from_bits(0xfff0_0000_0000_0002);
    vec![
        vec![Some(1.0), Some(2.5), Some(nan), Some(-3.0), None, Some(4.0)],
        vec![
            Some(nan),
            Some(neg_nan),
            Some(payload),
            None,
            Some(neg_payload),
            Some(nan),
        ],
        vec![
            Some(0.0),
            Some(-0.0),
            Some(0.0),
            Some(1.0),
            Some(-1.0),
            None,
        ],
        vec![
            Some(0.0),
            Some(0.0),
            Some(2.0),
            Some(3.0),
            Some(0.0),
            Some(1.0),
        ],
        vec![
            Some(-0.0),
            Some(-5.0),
            Some(-0.0),
            Some(-1.0),
            Some(-2.0),
            Some(-0.0),
        ],
        vec![
            Some(f64::INFINITY),
            Some(f64::NEG_INFINITY),
            Some(7.0),
            Some(8.0),
            Some(9.0),
            Some(10.0),
        ],
        vec![None; ROWS_PER_GROUP],
        vec![
            Some(6.0),
            Some(7.0),
            Some(8.0),
            Some(9.0),
            Some(10.0),
            Some(11.0),
        ],
    ]
}

/// Columns `i` (row number), `x` (DOUBLE) and `y` (FLOAT, `x` narrowed).
fn table() -> RecordBatch {
    let x: Vec<Option<f64>> = groups().into_iter().flatten().collect();
    let y: Vec<Option<f32>> = x.iter().map(|v| v.map(|v| v as f32)).collect();
    let i: Vec<i64> = (0..x.len() as i64).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int64, false),
        Field::new("x", DataType::Float64, true),
        Field::new("y", DataType::Float32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(i)) as ArrayRef,
            Arc::new(Float64Array::from(x)),
            Arc::new(Float32Array::from(y)),
        ],
    )
    .unwrap()
}

fn parq_write(batch: &RecordBatch, total: bool) -> Vec<u8> {
    let props = ParqProps::builder()
        .max_row_group_rows(Some(ROWS_PER_GROUP))
        .dictionary(false)
        .float_total_order(total)
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut w = ParquetWriter::try_new(&mut out, batch.schema(), props).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    out
}

fn peer_write(batch: &RecordBatch) -> Vec<u8> {
    let props = PeerProps::builder()
        .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
        .set_dictionary_enabled(false)
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    out
}

fn peer_meta(bytes: &[u8]) -> Arc<ParquetMetaData> {
    let options = ArrowReaderOptions::new().with_column_index_policy(PageIndexPolicy::Required);
    let b = ParquetRecordBatchReaderBuilder::try_new_with_options(
        Bytes::copy_from_slice(bytes),
        options,
    )
    .expect("parquet 60.1 reads the file");
    b.metadata().clone()
}

/// What 60.1 reads of a float column's statistics and column index, per row group:
/// (min bytes, max bytes, null_count, nan_count, per page (null page, min bits, max bits,
/// nan_count)).
type ChunkView = (
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<u64>,
    Option<u64>,
    Vec<(bool, Option<u64>, Option<u64>, Option<i64>)>,
);

fn view(md: &ParquetMetaData, col: usize) -> Vec<ChunkView> {
    md.row_groups()
        .iter()
        .enumerate()
        .map(|(rg, g)| {
            let s = g.column(col).statistics().expect("statistics");
            let pi = md.page_index_for_row_group(rg);
            let index = pi.column_index(col).expect("a column index");
            let pages = (0..index.num_pages() as usize)
                .map(|p| {
                    let (lo, hi) = match index {
                        ColumnIndexMetaData::DOUBLE(x) => (
                            x.min_value(p).map(|v| v.to_bits()),
                            x.max_value(p).map(|v| v.to_bits()),
                        ),
                        ColumnIndexMetaData::FLOAT(x) => (
                            x.min_value(p).map(|v| u64::from(v.to_bits())),
                            x.max_value(p).map(|v| u64::from(v.to_bits())),
                        ),
                        other => panic!("not a float column index: {other:?}"),
                    };
                    (index.is_null_page(p), lo, hi, index.nan_count(p))
                })
                .collect();
            (
                s.min_bytes_opt().map(<[u8]>::to_vec),
                s.max_bytes_opt().map(<[u8]>::to_vec),
                s.null_count_opt(),
                s.nan_count_opt(),
                pages,
            )
        })
        .collect()
}

#[test]
fn total_order_statistics_match_parquet_60() {
    let batch = table();
    let ours = peer_meta(&parq_write(&batch, true));
    let peer = peer_meta(&peer_write(&batch));
    assert_eq!(ours.num_row_groups(), groups().len());
    for col in [1, 2] {
        assert_eq!(
            ours.file_metadata().column_order(col),
            PColumnOrder::IEEE_754_TOTAL_ORDER
        );
        assert_eq!(
            ours.file_metadata().column_order(col),
            peer.file_metadata().column_order(col)
        );
        let (a, mut b) = (view(&ours, col), view(&peer, col));
        for (rg, (x, y)) in a.iter().zip(&mut b).enumerate() {
            // 60.1 leaves nan_count out of a chunk of nulls only; the spec asks for it on
            // every float chunk (0 here).
            if y.2 == Some(ROWS_PER_GROUP as u64) && y.3.is_none() {
                assert_eq!(x.3, Some(0), "column {col}, row group {rg}");
                y.3 = Some(0);
            }
            assert_eq!(x, y, "column {col}, row group {rg}: parq vs parquet 60.1");
        }
    }
    // The all-NaN row group: NaN bounds (the smallest and largest NaN by totalOrder).
    let (lo, hi, _, nans, _) = &view(&ours, 1)[1];
    let bits = |b: &Option<Vec<u8>>| u64::from_le_bytes(b.as_deref().unwrap().try_into().unwrap());
    assert_eq!(bits(lo), 0xfff8_0000_0000_0000);
    assert_eq!(bits(hi), 0x7ff8_0000_0000_0001);
    assert_eq!(*nans, Some(5));
}

/// The spec's `TYPE_ORDER` rules, from the input: NaN left out of min/max (none when every
/// value is NaN), a zero min written -0.0 and a zero max +0.0, `nan_count` always.
#[test]
fn type_order_statistics_count_nans_and_normalize_zeros() {
    let batch = table();
    let md = peer_meta(&parq_write(&batch, false));
    assert!(matches!(
        md.file_metadata().column_order(1),
        PColumnOrder::TYPE_DEFINED_ORDER(_)
    ));
    for (rg, values) in groups().iter().enumerate() {
        let s = md.row_group(rg).column(1).statistics().unwrap();
        let nans = values.iter().flatten().filter(|v| v.is_nan()).count() as u64;
        assert_eq!(s.nan_count_opt(), Some(nans), "row group {rg}");
        let real: Vec<f64> = values
            .iter()
            .flatten()
            .copied()
            .filter(|v| !v.is_nan())
            .collect();
        let want = (!real.is_empty()).then(|| {
            let lo = real.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = real.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = if lo == 0.0 { -0.0 } else { lo };
            let hi = if hi == 0.0 { 0.0 } else { hi };
            (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
        });
        let got = s
            .min_bytes_opt()
            .zip(s.max_bytes_opt())
            .map(|(a, b)| (a.to_vec(), b.to_vec()));
        assert_eq!(got, want, "row group {rg}");
    }
    // A page of NaNs only has no TYPE_ORDER bounds: no column index for the chunk.
    let opts = ArrowReaderOptions::new().with_column_index_policy(PageIndexPolicy::Optional);
    let bytes = Bytes::from(parq_write(&batch, false));
    let b = ParquetRecordBatchReaderBuilder::try_new_with_options(bytes, opts).unwrap();
    let md = b.metadata();
    assert!(md.page_index_for_row_group(1).column_index(1).is_none());
    let first = md.page_index_for_row_group(0);
    assert_eq!(first.column_index(1).unwrap().nan_count(0), Some(1));
}

/// pyarrow and DuckDB read the values of both files bit for bit, and DuckDB reads the NaN
/// counts the input holds.
#[test]
fn peers_read_the_values_and_nan_counts() {
    let dir = tmp_dir("float_order_peers");
    let batch = table();
    let mut want = String::new();
    for values in groups() {
        let n = values.iter().flatten().filter(|v| v.is_nan()).count();
        want.push_str(&format!("{n},"));
    }
    let x: Vec<String> = batch
        .column(1)
        .as_primitive::<arrow_array::types::Float64Type>()
        .iter()
        .map(|v| v.map_or("None".into(), |v| v.to_bits().to_string()))
        .collect();
    for total in [true, false] {
        let path = dir.join(format!("t{total}.parquet"));
        std::fs::write(&path, parq_write(&batch, total)).unwrap();
        let out = run_python(
            r#"
import sys, struct, pyarrow.parquet as pq, duckdb
f = sys.argv[1]
bits = lambda v: None if v is None else struct.unpack('<Q', struct.pack('<d', v))[0]
pa_x = [bits(v) for v in pq.read_table(f).column('x').to_pylist()]
dd_x = [bits(r[0]) for r in duckdb.sql(f"select x from read_parquet('{f}') order by i").fetchall()]
nans = duckdb.sql(f"select stats_nan_count from parquet_metadata('{f}') where path_in_schema = 'x' order by row_group_id").fetchall()
print(repr(pa_x)); print(repr(dd_x)); print(','.join(str(r[0]) for r in nans) + ',')
"#,
            &[path.to_str().unwrap()],
        );
        let lines: Vec<&str> = out.lines().collect();
        let want_x = format!("[{}]", x.join(", "));
        assert_eq!(lines[0], want_x, "pyarrow, total order {total}");
        // DuckDB makes every NaN its canonical one; the rest bit for bit.
        let canon: Vec<String> = x
            .iter()
            .map(|b| match b.parse::<u64>() {
                Ok(v) if f64::from_bits(v).is_nan() => "NaN".into(),
                _ => b.clone(),
            })
            .collect();
        let dd: Vec<String> = lines[1]
            .trim_matches(['[', ']'])
            .split(", ")
            .map(|b| match b.parse::<u64>() {
                Ok(v) if f64::from_bits(v).is_nan() => "NaN".into(),
                _ => b.to_string(),
            })
            .collect();
        assert_eq!(dd, canon, "DuckDB, total order {total}");
        assert_eq!(lines[2], want, "DuckDB's nan counts, total order {total}");
    }
}

/// The rows pyarrow's kernels keep for each filter (`i` values), one line per filter.
fn pyarrow_rows(file: &Path, column: &str, filters: &[(&str, &str)]) -> Vec<Vec<i64>> {
    let exprs: Vec<&str> = filters.iter().map(|(_, py)| *py).collect();
    let out = run_python(
        r#"
import sys, pyarrow.parquet as pq, pyarrow.compute as pc
t = pq.read_table(sys.argv[1])
x = t.column(sys.argv[2])
for e in sys.argv[3:]:
    mask = eval(e, {'pc': pc, 'x': x})
    kept = t.filter(mask, null_selection_behavior='drop')
    col = kept.column('i').to_pylist() if 'i' in t.column_names else list(range(kept.num_rows))
    print(','.join(str(v) for v in col))
"#,
        &[&[file.to_str().unwrap(), column][..], &exprs[..]].concat(),
    );
    int_lines(&out)
}

/// Filters as parq SQL and as pyarrow compute expressions, and the row groups of
/// [`groups`] the total-order statistics rule out (nulls-only, NaN-only, bounds; a group
/// with NaNs kept for `!=` and NOT).
const FILTERS: &[(&str, &str, usize)] = &[
    ("x > 5", "pc.greater(x, 5)", 6),
    ("x < 0", "pc.less(x, 0)", 4),
    ("x = 2.5", "pc.equal(x, 2.5)", 5),
    ("x >= 7", "pc.greater_equal(x, 7)", 6),
    ("x != 1", "pc.not_equal(x, 1)", 1),
    ("NOT (x < 5)", "pc.invert(pc.less(x, 5))", 4),
    ("NOT (x = 1)", "pc.invert(pc.equal(x, 1))", 1),
    ("NOT (x != 6)", "pc.invert(pc.not_equal(x, 6))", 6),
    ("x = 0", "pc.equal(x, 0)", 3),
    ("x >= 0", "pc.greater_equal(x, 0)", 2),
    ("x > 0", "pc.greater(x, 0)", 3),
    ("x <= -0.0", "pc.less_equal(x, -0.0)", 3),
];

#[test]
fn filters_keep_pyarrows_rows_and_skip_what_total_order_statistics_allow() {
    let dir = tmp_dir("float_order_filters");
    let batch = table();
    for (name, bytes, check_skips) in [
        ("total.parquet", parq_write(&batch, true), true),
        ("type.parquet", parq_write(&batch, false), false),
        ("peer.parquet", peer_write(&batch), true),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        for column in ["x", "y"] {
            let pairs: Vec<(String, String)> = FILTERS
                .iter()
                .map(|(sql, py, _)| (sql.replace('x', column), py.to_string()))
                .collect();
            let refs: Vec<(&str, &str)> = pairs
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let want = pyarrow_rows(&path, column, &refs);
            for (((sql, _), rows), (_, _, skips)) in pairs.iter().zip(&want).zip(FILTERS) {
                let (got, skipped) = filtered_rows(&path, sql);
                assert_eq!(&got, rows, "{name}: {sql}");
                if check_skips {
                    assert_eq!(skipped, *skips, "{name}: {sql}: row groups skipped");
                }
            }
        }
    }
}

/// parquet-mr's file of FLOAT, DOUBLE and FLOAT16 columns under both orders: the rows
/// pyarrow keeps, and NaN-only row groups skipped for comparisons NaN fails.
#[test]
fn parquet_mr_nan_count_file_filters_like_pyarrow() {
    let file = testdata().join("parquet-testing/data/floating_orders_nan_count.parquet");
    let filters = [
        ("c > 0", "pc.greater(x, 0)"),
        ("c < 0", "pc.less(x, 0)"),
        ("c >= 1", "pc.greater_equal(x, 1)"),
        ("c != 1", "pc.not_equal(x, 1)"),
        ("NOT (c < 1)", "pc.invert(pc.less(x, 1))"),
        ("c = 0", "pc.equal(x, 0)"),
    ];
    for column in [
        "float_ieee754",
        "float_typedef",
        "double_ieee754",
        "double_typedef",
    ] {
        let pairs: Vec<(String, &str)> = filters
            .iter()
            .map(|(sql, py)| (sql.replace('c', &format!("\"{column}\"")), *py))
            .collect();
        let refs: Vec<(&str, &str)> = pairs.iter().map(|(a, b)| (a.as_str(), *b)).collect();
        let want = pyarrow_rows(&file, column, &refs);
        let mut skipped_total = 0;
        for ((sql, _), rows) in pairs.iter().zip(&want) {
            // The file has no row-number column: compare the kept row counts per batch
            // sum, and the values through pyarrow's row count.
            let (got, skipped) = filtered_rows(&file, sql);
            assert_eq!(
                got.iter().sum::<i64>(),
                rows.len() as i64,
                "{column}: {sql}"
            );
            skipped_total += skipped;
        }
        // The all-NaN row group is skipped for `>`, `<`, `>=` and `=`.
        assert!(
            skipped_total >= 4,
            "{column}: {skipped_total} row groups skipped"
        );
    }
}

/// parq's typed statistics of parquet-mr's file (both orders) are what parquet 60.1 reads:
/// min/max (none where 60.1 has none; zeros with their sign, NaN as NaN), `nan_count`, and
/// whether they follow totalOrder.
#[test]
fn parquet_mr_statistics_read_like_parquet_60() {
    use parq::schema::StatValue;
    let file = testdata().join("parquet-testing/data/floating_orders_nan_count.parquet");
    let peer = peer_meta(&std::fs::read(&file).unwrap());
    let meta = parq::file::read_metadata(&file, Default::default()).unwrap();
    let value = |v: StatValue<'_>| match v {
        StatValue::Float(f) | StatValue::Float16(f) => f64::from(f),
        StatValue::Double(f) => f,
        other => panic!("not a float: {other:?}"),
    };
    let mut with_bounds = 0;
    for rg in 0..peer.num_row_groups() {
        for col in 0..peer.row_group(rg).num_columns() {
            let at = format!("row group {rg} column {col}");
            let p = peer.row_group(rg).column(col).statistics().unwrap();
            let ours = parq::schema::column_statistics(&meta, rg, col)
                .unwrap()
                .unwrap();
            assert_eq!(ours.nan_count.map(|n| n as u64), p.nan_count_opt(), "{at}");
            let ieee = peer.file_metadata().column_order(col) == PColumnOrder::IEEE_754_TOTAL_ORDER;
            assert_eq!(ours.total_order, ieee, "{at}");
            let got = ours.min.zip(ours.max).map(|(a, b)| (value(a), value(b)));
            let want = p
                .min_bytes_opt()
                .zip(p.max_bytes_opt())
                .map(|(a, b)| (plain_float(a), plain_float(b)));
            let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
            match (got, want) {
                (Some((a, b)), Some((c, d))) => {
                    assert!(
                        same(a, c) && same(b, d),
                        "{at}: parq {a}..{b}, 60.1 {c}..{d}"
                    );
                    with_bounds += 1;
                }
                (got, want) => assert_eq!(got.is_some(), want.is_some(), "{at}"),
            }
        }
    }
    assert!(with_bounds >= 20, "{with_bounds} chunks with bounds");
}

/// A plain-encoded FLOAT16, FLOAT or DOUBLE as f64.
fn plain_float(b: &[u8]) -> f64 {
    match b.len() {
        2 => {
            let bits = u16::from_le_bytes([b[0], b[1]]);
            let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
            let exp = i32::from((bits >> 10) & 0x1f);
            let frac = f64::from(bits & 0x3ff);
            match exp {
                0 => sign * frac * 2f64.powi(-24),
                31 if frac == 0.0 => sign * f64::INFINITY,
                31 => f64::NAN,
                e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
            }
        }
        4 => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
        _ => f64::from_le_bytes(b.try_into().unwrap()),
    }
}

/// Row groups are copied only into a writer that declares their float columns' order: a
/// total-order file into a total-order writer, a `TYPE_ORDER` one into a default writer.
#[test]
fn row_groups_are_copied_only_under_their_float_column_order() {
    let dir = tmp_dir("float_order_copy");
    let batch = table();
    let mut metas = Vec::new();
    for total in [false, true] {
        let path = dir.join(format!("t{total}.parquet"));
        std::fs::write(&path, parq_write(&batch, total)).unwrap();
        metas.push(parq::file::read_metadata(&path, Default::default()).unwrap());
    }
    for total in [false, true] {
        let props = ParqProps::builder()
            .float_total_order(total)
            .build()
            .unwrap();
        let w = ParquetWriter::try_new(Vec::new(), batch.schema(), props).unwrap();
        for (i, meta) in metas.iter().enumerate() {
            let same = (i == 1) == total;
            assert_eq!(
                w.copy_refusal(meta).is_none(),
                same,
                "writer total order {total}, file {i}: {:?}",
                w.copy_refusal(meta)
            );
        }
    }
}
