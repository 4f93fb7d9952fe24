//! Tests of `parq::read` on flat files written by other implementations: DuckDB 2.0,
//! polars 2.1 and fastparquet 2026.9, over every flat type each supports (without nulls,
//! with ~10% nulls, all null), every codec each supports, page versions, dictionary on/off,
//! several row groups and small pages (see `read_peers.py`, which writes the corpus).
//!
//! Expected values come from pyarrow 26: the script reads each file with `pq.read_table`
//! and writes the table to an Arrow IPC file; the test compares parq's `read_batch` with it
//! column by column (names, types, nullability, extension names, `ArrayData` equality).
//! Columns pyarrow cannot read are left out of that comparison (with a note); for DuckDB's
//! files DuckDB itself reads them as a second opinion, compared the same way.
//! The venv (`bash scripts/venv.sh`, or `$PARQ_PYTHON`) is required.

mod common;
use common::{differences, read_ipc, run_python_file, tmp_dir};

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::Path;

use parq::read::ParquetReader;
use serde_json::Value;

/// Runs `read_peers.py <writer> <dir>`: writes the writer's corpus and pyarrow's reading of
/// it into `dir`; returns the script's JSON description of each file.
fn generate(writer: &str, dir: &Path) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/read_peers.py");
    let out = run_python_file(&script, &[OsStr::new(writer), dir.as_os_str()]);
    let v: Value = serde_json::from_str(&out).expect("json");
    v.as_array().expect("a list of files").clone()
}

fn strings(v: &Value, key: &str) -> BTreeSet<String> {
    v[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn indices(v: &Value, key: &str) -> Option<Vec<usize>> {
    v[key].as_array().map(|a| {
        a.iter()
            .map(|i| i.as_u64().expect("index") as usize)
            .collect()
    })
}

/// What a writer's corpus must cover (checked on the writer's own files, as pyarrow's
/// metadata and the page headers describe them).
struct Coverage {
    files: usize,
    /// How many of them are compared with parq (pyarrow reads them, status "ok").
    compared: usize,
    codecs: &'static [&'static str],
    encodings: &'static [&'static str],
    physical_types: &'static [&'static str],
    page_types: &'static [&'static str],
}

/// Reads every file of `writer`'s corpus with parq and compares with pyarrow (and, for
/// columns pyarrow cannot read in DuckDB's files, with DuckDB); collects every difference,
/// then fails listing them.
fn check_writer(writer: &str, coverage: &Coverage) {
    let started = std::time::Instant::now();
    let dir = tmp_dir(writer);
    let files = generate(writer, &dir);
    eprintln!(
        "{writer}: wrote {} files and pyarrow's reading in {:.1?}",
        files.len(),
        started.elapsed()
    );
    assert_eq!(files.len(), coverage.files, "{writer}: file count");
    let mut failures = Vec::new();
    let (mut codecs, mut encodings, mut physical, mut pages) = Default::default();
    let mut compared = 0;
    for f in &files {
        let name = f["name"].as_str().expect("name");
        let status = f["status"].as_str().unwrap_or("missing");
        for (set, key) in [
            (&mut codecs, "codecs"),
            (&mut encodings, "encodings"),
            (&mut physical, "physical_types"),
            (&mut pages, "page_types"),
        ] {
            let set: &mut BTreeSet<String> = set;
            set.extend(strings(f, key));
        }
        assert!(
            f["row_groups"].as_u64().unwrap_or(0) >= 2,
            "{name}: several row groups"
        );
        let skipped = strings(f, "skipped");
        if !skipped.is_empty() {
            eprintln!("note: {name}: pyarrow cannot read: {skipped:?}");
        }
        if status != "ok" {
            eprintln!("note: {name}: not compared: {status}");
            continue;
        }
        let path = dir.join(name);
        let columns = indices(f, "columns").expect("columns");
        let expected = read_ipc(&path.with_extension("arrow"));
        let all = expected
            .first()
            .is_some_and(|b| b.num_columns() == columns.len())
            && columns.iter().enumerate().all(|(i, &c)| i == c)
            && f["skipped"].is_null();
        let result = ParquetReader::open(&path).and_then(|r| {
            if all {
                r.read_batch()
            } else {
                r.with_columns(columns.clone()).read_batch()
            }
        });
        match result {
            Ok(batch) => failures.extend(
                differences(&batch, &expected)
                    .into_iter()
                    .map(|d| format!("{name}: {d}")),
            ),
            Err(e) => failures.push(format!("{name}: parq: {e}")),
        }
        compared += 1;
        // Columns only DuckDB reads, one by one: DuckDB's reading is the reference.
        if let Some(cols) = indices(f, "duckdb_columns") {
            let expected = read_ipc(&path.with_extension("duckdb.arrow"));
            for (k, &c) in cols.iter().enumerate() {
                let want = expected
                    .iter()
                    .map(|b| b.project(&[k]).expect("project"))
                    .collect::<Vec<_>>();
                // DuckDB 2.0 (PARQUET_VERSION V2) computes the DELTA_BINARY_PACKED deltas of
                // INT32 columns in 64 bits: full-range values give 33-bit miniblocks, which
                // pyarrow refuses ("InitBlock EOF") and DuckDB and parq read (low 32 bits).
                // DuckDB's Arrow export marks every field nullable: nullability is not compared.
                match ParquetReader::open(&path).and_then(|r| r.with_columns([c]).read_batch()) {
                    Ok(batch) => failures.extend(
                        differences(&batch, &want)
                            .into_iter()
                            .filter(|d| !d.contains(": nullable "))
                            .map(|d| format!("{name}: (vs DuckDB) {d}")),
                    ),
                    Err(e) => failures.push(format!("{name}: (vs DuckDB) column {c}: parq: {e}")),
                }
            }
        }
    }
    for (what, seen, want) in [
        ("codecs", &codecs, coverage.codecs),
        ("encodings", &encodings, coverage.encodings),
        ("physical types", &physical, coverage.physical_types),
        ("page types", &pages, coverage.page_types),
    ] {
        for w in want {
            assert!(
                seen.contains(*w),
                "{writer}: no file has {what} {w} (seen: {seen:?})"
            );
        }
    }
    eprintln!(
        "{writer}: compared {compared} of {} files in {:.1?}",
        files.len(),
        started.elapsed()
    );
    assert_eq!(compared, coverage.compared, "{writer}: files compared");
    assert!(
        failures.is_empty(),
        "{writer}: {} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

const PHYSICAL: &[&str] = &[
    "BOOLEAN",
    "INT32",
    "INT64",
    "FLOAT",
    "DOUBLE",
    "BYTE_ARRAY",
    "FIXED_LEN_BYTE_ARRAY",
];

/// DuckDB: `COPY ... TO` with PARQUET_VERSION V1/V2 (V2 changes the encodings: DuckDB
/// writes v1 data pages either way), six codecs, dictionary on (default) / off
/// (DICTIONARY_SIZE_LIMIT 1), DATA_PAGE_SIZE_LIMIT 1024 on half, ROW_GROUP_SIZE 2048.
#[test]
fn duckdb_files_match_pyarrow() {
    check_writer(
        "duckdb",
        &Coverage {
            files: 22,
            compared: 22, // every file, at the time of writing
            codecs: &["UNCOMPRESSED", "SNAPPY", "ZSTD", "GZIP", "LZ4", "BROTLI"],
            encodings: &[
                "PLAIN",
                "PLAIN_DICTIONARY",
                "RLE_DICTIONARY",
                "DELTA_BINARY_PACKED",
                "DELTA_LENGTH_BYTE_ARRAY",
                "BYTE_STREAM_SPLIT",
            ],
            physical_types: PHYSICAL,
            page_types: &["DATA_PAGE", "DICTIONARY_PAGE", "MULTIPLE_DATA_PAGES"],
        },
    );
}

/// polars (native writer): six codecs, default and small pages / row groups, statistics on
/// and off; dictionaries where polars picks them (low cardinality, Categorical, Enum).
#[test]
fn polars_files_match_pyarrow() {
    check_writer(
        "polars",
        &Coverage {
            files: 12,
            compared: 12, // every file, at the time of writing
            codecs: &["UNCOMPRESSED", "SNAPPY", "ZSTD", "GZIP", "LZ4", "BROTLI"],
            encodings: &["PLAIN", "RLE", "RLE_DICTIONARY"],
            physical_types: PHYSICAL,
            page_types: &["DATA_PAGE", "DICTIONARY_PAGE", "MULTIPLE_DATA_PAGES"],
        },
    );
}

/// fastparquet: seven codecs (incl. the deprecated LZ4 and LZ4_RAW) x data page v1/v2,
/// int64 and int96 times, small pages on half, categoricals as dictionaries.
#[test]
fn fastparquet_files_match_pyarrow() {
    let mut physical = PHYSICAL.to_vec();
    physical.push("INT96");
    let physical: &'static [&'static str] = physical.leak();
    check_writer(
        "fastparquet",
        &Coverage {
            files: 14,
            compared: 14, // every file, at the time of writing
            codecs: &["UNCOMPRESSED", "SNAPPY", "ZSTD", "GZIP", "LZ4", "BROTLI"],
            encodings: &["PLAIN", "RLE_DICTIONARY"],
            physical_types: physical,
            page_types: &[
                "DATA_PAGE",
                "DATA_PAGE_V2",
                "DICTIONARY_PAGE",
                "MULTIPLE_DATA_PAGES",
            ],
        },
    );
}
