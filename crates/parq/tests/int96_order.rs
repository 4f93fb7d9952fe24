//! INT96 timestamp statistics: parquet 60.1 writes INT96 columns with min/max under
//! `INT96_TIMESTAMP_ORDER` (chronological: Julian day, then nanoseconds of the day), and
//! parq prunes row groups by them; pyarrow 26 writes INT96 under `TYPE_ORDER`, whose INT96
//! statistics readers must ignore. The rows kept are the ones pyarrow's kernels keep over
//! the same file; the row groups skipped are the ones whose chronological bounds rule the
//! predicate out (computed here from the timestamps written).

mod common;
use common::{filtered_rows, int_lines, run_python, tmp_dir};

use std::path::Path;
use std::sync::Arc;

use parquet::basic::ColumnOrder as PColumnOrder;
use parquet::column::writer::ColumnWriter;
use parquet::data_type::Int96;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

const DAY_NANOS: i64 = 86_400_000_000_000;
const JULIAN_EPOCH: i64 = 2_440_588;

/// Timestamps (nanoseconds since the epoch) by row group; values before the epoch and
/// within a day of each other test the day-then-nanos order.
fn groups() -> Vec<Vec<i64>> {
    vec![
        vec![-DAY_NANOS - 5, -3, 0, 7],
        vec![DAY_NANOS, DAY_NANOS + 1, 2 * DAY_NANOS - 1, DAY_NANOS + 500],
        vec![
            10 * DAY_NANOS + 12_345,
            11 * DAY_NANOS,
            10 * DAY_NANOS,
            12 * DAY_NANOS - 1,
        ],
        vec![
            -400 * DAY_NANOS,
            -399 * DAY_NANOS - 1,
            -401 * DAY_NANOS + 3,
            -400 * DAY_NANOS,
        ],
    ]
}

fn int96(ts: i64) -> Int96 {
    let days = ts.div_euclid(DAY_NANOS) + JULIAN_EPOCH;
    let nanos = ts.rem_euclid(DAY_NANOS) as u64;
    let mut v = Int96::new();
    v.set_data(nanos as u32, (nanos >> 32) as u32, days as u32);
    v
}

/// The file parquet 60.1 writes: `t` INT96 and `i` the row number, a row group per group.
fn peer_file() -> Vec<u8> {
    let schema =
        Arc::new(parse_message_type("message m { required int96 t; required int64 i; }").unwrap());
    // No dictionary: row groups are skipped by their statistics alone.
    let props = Arc::new(
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .build(),
    );
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    let mut row = 0i64;
    for g in groups() {
        let mut rg = w.next_row_group().unwrap();
        let t: Vec<Int96> = g.iter().map(|&v| int96(v)).collect();
        let i: Vec<i64> = (row..row + g.len() as i64).collect();
        row += g.len() as i64;
        while let Some(mut c) = rg.next_column().unwrap() {
            match c.untyped() {
                ColumnWriter::Int96ColumnWriter(w) => w.write_batch(&t, None, None).unwrap(),
                ColumnWriter::Int64ColumnWriter(w) => w.write_batch(&i, None, None).unwrap(),
                _ => panic!("unexpected column"),
            };
            c.close().unwrap();
        }
        rg.close().unwrap();
    }
    w.close().unwrap();
    out
}

fn pyarrow_rows(file: &Path, ts: &[i64], ops: &[&str]) -> Vec<Vec<i64>> {
    let mut args = vec![file.to_str().unwrap().to_string()];
    for (t, op) in ts.iter().zip(ops) {
        args.push(format!("{op}:{t}"));
    }
    let out = run_python(
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq, pyarrow.compute as pc
t = pq.read_table(sys.argv[1])
for a in sys.argv[2:]:
    op, v = a.split(':')
    lit = pa.scalar(int(v), type=pa.timestamp('ns'))
    mask = getattr(pc, op)(t.column('t'), lit)
    print(','.join(str(v) for v in t.filter(mask).column('i').to_pylist()))
"#,
        &args,
    );
    int_lines(&out)
}

/// `ts` as the SQL literal parq takes for a timestamp (UTC, nanoseconds).
fn sql_time(ts: i64) -> String {
    let secs = ts.div_euclid(1_000_000_000);
    let nanos = ts.rem_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "'{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{nanos:09}'",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[test]
fn int96_timestamp_order_statistics_prune_like_their_values() {
    let dir = tmp_dir("int96_order");
    let path = dir.join("peer.parquet");
    std::fs::write(&path, peer_file()).unwrap();
    let r = SerializedFileReader::new(bytes::Bytes::from(std::fs::read(&path).unwrap())).unwrap();
    assert_eq!(
        r.metadata().file_metadata().column_order(0),
        PColumnOrder::INT96_TIMESTAMP_ORDER
    );
    assert!(r.metadata().row_group(0).column(0).statistics().is_some());
    let cases: Vec<(i64, &str, &str)> = vec![
        (DAY_NANOS, "greater_equal", ">="),
        (0, "less", "<"),
        (10 * DAY_NANOS, "greater", ">"),
        (-3, "equal", "="),
        (-400 * DAY_NANOS, "less_equal", "<="),
    ];
    let ts: Vec<i64> = cases.iter().map(|c| c.0).collect();
    let ops: Vec<&str> = cases.iter().map(|c| c.1).collect();
    let want = pyarrow_rows(&path, &ts, &ops);
    let mut skipped_total = 0;
    for ((t, _, op), rows) in cases.iter().zip(&want) {
        let sql = format!("t {op} {}", sql_time(*t));
        let (got, skipped) = filtered_rows(&path, &sql);
        assert_eq!(&got, rows, "{sql}");
        // A row group is skipped exactly when none of its timestamps can match.
        let cmp = |v: i64| match *op {
            ">=" => v >= *t,
            "<" => v < *t,
            ">" => v > *t,
            "=" => v == *t,
            _ => v <= *t,
        };
        let bound_rules_out = groups()
            .iter()
            .filter(|g| {
                let (lo, hi) = (*g.iter().min().unwrap(), *g.iter().max().unwrap());
                !(cmp(lo) || cmp(hi) || (*op == "=" && lo <= *t && *t <= hi))
            })
            .count();
        assert_eq!(skipped, bound_rules_out, "{sql}: row groups skipped");
        skipped_total += skipped;
    }
    assert!(skipped_total >= 8, "{skipped_total} row groups skipped");
}

/// pyarrow writes INT96 under TYPE_ORDER: parq skips nothing by statistics there (the spec
/// says to ignore them), and keeps pyarrow's rows.
#[test]
fn int96_under_type_order_is_not_pruned() {
    let dir = tmp_dir("int96_type_order");
    let path = dir.join("pa.parquet");
    let flat: Vec<String> = groups().concat().iter().map(i64::to_string).collect();
    run_python(
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
ts = [int(v) for v in sys.argv[2].split(',')]
t = pa.table({'t': pa.array(ts, type=pa.timestamp('ns')), 'i': pa.array(range(len(ts)), type=pa.int64())})
pq.write_table(t, sys.argv[1], row_group_size=4, use_deprecated_int96_timestamps=True,
               use_dictionary=False)
"#,
        &[path.to_str().unwrap(), &flat.join(",")],
    );
    let want = pyarrow_rows(&path, &[DAY_NANOS], &["greater_equal"]);
    let sql = format!("t >= {}", sql_time(DAY_NANOS));
    let (got, skipped) = filtered_rows(&path, &sql);
    assert_eq!(got, want[0]);
    assert_eq!(skipped, 0);
}
