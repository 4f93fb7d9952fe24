//! Leniency where the peers are lenient: files bent the way real writers bend the spec
//! (`read_lenient.py` makes them from pyarrow-written files and reads each with pyarrow),
//! read by parq equal to pyarrow:
//!
//! - definition levels in the deprecated BIT_PACKED encoding (Impala);
//! - v2 data pages whose `num_nulls` disagrees with their definition levels (.NET, Go);
//! - page CRCs that do not match intact data: read by default, an error naming the page
//!   with `verify_crc`;
//! - row groups whose `num_rows` disagrees with their chunks (more and fewer rows, 0);
//! - INT96 values of every shape (Julian day 0, unsigned nanoseconds, wrapping) in each unit;
//! - a column whose only Null annotation is the `ARROW:schema`.
//!
//! The venv (`bash scripts/venv.sh`, or `$PARQ_PYTHON`) is required.

mod common;
use common::{differences, read_ipc, run_python_file, testdata, tmp_dir, TmpDir};

use std::path::Path;
use std::sync::OnceLock;

use arrow_schema::TimeUnit;
use parq::read::{ParquetReader, ReadOptions};
use parq::ErrorKind;
use serde_json::Value;

/// The files and pyarrow's verdicts, made once per test binary.
fn cases() -> &'static (TmpDir, Value) {
    static CASES: OnceLock<(TmpDir, Value)> = OnceLock::new();
    CASES.get_or_init(|| {
        let dir = tmp_dir("lenient");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/read_lenient.py");
        let out = run_python_file(
            &script,
            &[dir.as_os_str(), testdata().join("real-world").as_os_str()],
        );
        let v: Value = serde_json::from_str(&out).expect("json");
        (dir, v)
    })
}

/// Reads case `name` (file `file`, default `name`) with `reader` applied and compares it
/// with pyarrow's reading.
fn check_with(name: &str, file: &str, reader: impl Fn(ParquetReader) -> ParquetReader) {
    let (dir, v) = cases();
    assert_eq!(v[name]["pyarrow"], "ok", "{name}: pyarrow: {}", v[name]);
    let expected = read_ipc(&dir.join(format!("{name}.arrow")));
    let path = dir.join(format!("{file}.parquet"));
    let reader = reader(ParquetReader::open(&path).expect("open"));
    let batch = reader
        .read_batch()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let diffs = differences(&batch, &expected);
    assert!(diffs.is_empty(), "{name}: {}", diffs.join("; "));
    // The batches of the iterator hold the same rows.
    let rows: usize = reader
        .batches()
        .expect("batches")
        .map(|b| b.expect("batch").num_rows())
        .sum();
    assert_eq!(rows, batch.num_rows(), "{name}: rows of batches()");
}

fn check(name: &str) {
    check_with(name, name, |r| r);
}

#[test]
fn bit_packed_definition_levels() {
    let (_, v) = cases();
    // pyarrow reads the nulls where they were written: the levels are least significant
    // bit first.
    assert_eq!(v["bit_packed_levels"]["nulls_as_written"], true);
    check("bit_packed_levels");
}

#[test]
fn v2_num_nulls_that_disagree_with_the_levels() {
    check("v2_wrong_num_nulls");
}

#[test]
fn wrong_crcs_read_by_default_and_refused_when_verified() {
    check("wrong_crc");
    let (dir, _) = cases();
    let path = dir.join("wrong_crc.parquet");
    assert!(!ReadOptions::default().verify_crc);
    let err = ParquetReader::open(&path)
        .expect("open")
        .with_verify_crc(true)
        .read_batch()
        .expect_err("verified CRCs must fail");
    assert!(
        matches!(err.kind(), ErrorKind::PageChecksumMismatch { .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("page 0") && text.contains("column[0]"),
        "{text}"
    );
}

#[test]
fn row_groups_whose_num_rows_disagree_with_their_chunks() {
    for name in [
        "num_rows_300_500",
        "num_rows_700_500",
        "num_rows_0_500",
        "num_rows_700_300",
    ] {
        check(name);
    }
}

#[test]
fn int96_values_in_every_unit() {
    let (_, v) = cases();
    let mut compared = 0;
    for k in 0.. {
        if v[format!("int96_{k}_s")].is_null() {
            break;
        }
        for (unit, tu) in [
            ("s", TimeUnit::Second),
            ("ms", TimeUnit::Millisecond),
            ("us", TimeUnit::Microsecond),
            ("ns", TimeUnit::Nanosecond),
        ] {
            check_with(&format!("int96_{k}_{unit}"), &format!("int96_{k}"), |r| {
                let mut o = r.options().clone();
                o.schema.int96_unit = tu;
                r.with_options(o).with_columns(["int96_field"])
            });
            compared += 1;
        }
    }
    assert_eq!(compared, 44);
}

#[test]
fn arrow_schema_null_column() {
    check("arrow_schema_null");
}
