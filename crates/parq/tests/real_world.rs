//! parq on the real-world corpus (`real-world/` of the shared test data: 653 files from the
//! test suites of 21 projects, written by dozens of writers; see its README and MANIFEST.tsv).
//!
//! - Every file pyarrow 26 reads: parq reads it, flat and nested columns, with Arrow types
//!   and values equal to pyarrow's (`real_world.py pyarrow` writes pyarrow's reading to Arrow
//!   IPC). Strings that are not valid UTF-8
//!   (pyarrow does not check) are an error naming the column by default, and read equal to
//!   pyarrow's bytes with [`InvalidUtf8::Binary`].
//! - Every file pyarrow refuses: parq either fails with an error, or reads values that DuckDB
//!   reads equal (`real_world.py duckdb`), or, where DuckDB refuses it too, values equal to
//!   the `parquet` crate's (60.1).
//!
//! - Every file read equal to pyarrow with string columns: read with strings as `Utf8View`
//!   (views into the dictionary pages, or into the decoded values), its values, cast back to
//!   pyarrow's types, are pyarrow's too.
//!
//! No file may panic. The counts of each outcome are asserted, so a file that stops being
//! compared fails the test. The venv (`bash scripts/venv.sh`, or `$PARQ_PYTHON`) is required.

mod common;
use common::{differences, read_ipc, run_python_file, testdata, tmp_dir, write_ipc};

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use parq::read::{InvalidUtf8, ParquetReader, ReadOptions, StringType};

/// Files read equal to pyarrow but for a known, explained difference (path, column).
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// One row of MANIFEST.tsv: the path under `real-world/` and pyarrow's verdict.
struct Entry {
    path: String,
    pyarrow_reads: bool,
}

fn manifest(root: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(root.join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("{}: {e}", root.join("MANIFEST.tsv").display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (path, verdict) = (col("path"), col("pyarrow_read"));
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Entry {
                path: f[path].to_string(),
                pyarrow_reads: f[verdict] == "ok",
            }
        })
        .collect()
}

/// parq's reading of `path`, a panic turned into an error. Variant columns are read as
/// stored (shredded), the struct pyarrow reads; their reassembly is checked against the
/// spec's cases in `tests/variant.rs`.
fn read(path: &Path, utf8: InvalidUtf8) -> Result<RecordBatch, String> {
    let run = || {
        let options = ReadOptions {
            variant_shredded: true,
            ..ReadOptions::default()
        };
        ParquetReader::open(path)?
            .with_options(options)
            .with_invalid_utf8(utf8)
            .read_batch()
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(r) => r.map_err(|e| format!("{e}")),
        Err(_) => Err("PANIC".to_string()),
    }
}

/// Runs `real_world.py args...`; returns the JSON list of strings it prints.
fn run_script(script: &Path, args: &[String]) -> Vec<String> {
    serde_json::from_str(&run_python_file(script, args)).expect("json")
}

#[derive(Default, Debug)]
struct Tally {
    equal_flat: usize,
    equal_nested: usize,
    equal_binary: usize,
    known: usize,
    refused_error: usize,
    refused_equal_duckdb: usize,
    refused_equal_parquet_60: usize,
    /// Files read equal to pyarrow with their strings as `Utf8View` too.
    equal_views: usize,
}

/// What `path` read with strings as `Utf8View` differs from pyarrow's `expected` in (the
/// view columns cast to pyarrow's types); `None` if no column is read as views.
fn view_differences(path: &Path, expected: &[RecordBatch]) -> Option<Vec<String>> {
    let run = || {
        let options = ReadOptions {
            variant_shredded: true,
            ..ReadOptions::default()
        };
        ParquetReader::open(path)?
            .with_options(options)
            .with_strings(StringType::Utf8View)
            .read_batch()
    };
    let batch = match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return Some(vec![format!("parq fails with views: {e}")]),
        Err(_) => return Some(vec!["parq panics with views".to_string()]),
    };
    let schema = batch.schema();
    let views = schema
        .fields()
        .iter()
        .any(|f| f.data_type().to_string().contains("Utf8View"));
    if !views {
        return None;
    }
    let want = expected.first()?.schema();
    let mut columns = Vec::new();
    for (i, column) in batch.columns().iter().enumerate() {
        let t = want.field(i).data_type();
        match arrow_cast::cast(column, t) {
            Ok(c) => columns.push(c),
            Err(e) => {
                return Some(vec![format!(
                    "column {i}: {} to {t}: {e}",
                    column.data_type()
                )])
            }
        }
    }
    let cast = RecordBatch::try_new_with_options(
        want.clone(),
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    );
    match cast {
        Ok(b) => Some(differences(&b, expected)),
        Err(e) => Some(vec![format!("views cast back: {e}")]),
    }
}

/// The `parquet` crate's reading of `path`.
fn read_60(path: &Path) -> Result<Vec<RecordBatch>, String> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| e.to_string())?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

#[test]
fn real_world_files_match_pyarrow_or_fail_cleanly() {
    let root = testdata().join("real-world");
    let entries = manifest(&root);
    assert!(
        entries.len() >= 653,
        "{} files in MANIFEST.tsv",
        entries.len()
    );
    let dir = tmp_dir("real-world");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_world.py");

    let readable: Vec<&Entry> = entries.iter().filter(|e| e.pyarrow_reads).collect();
    let paths: Vec<PathBuf> = readable.iter().map(|e| root.join(&e.path)).collect();
    let mut args = vec![
        "pyarrow".to_string(),
        dir.to_str().expect("dir").to_string(),
    ];
    args.extend(paths.iter().map(|p| p.to_str().expect("path").to_string()));
    let status = run_script(&script, &args);
    assert_eq!(status.len(), paths.len());

    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for (i, (entry, path)) in readable.iter().zip(&paths).enumerate() {
        let name = &entry.path;
        let st = status[i].as_str();
        if let Some(e) = st.strip_prefix("error: ") {
            failures.push(format!(
                "{name}: MANIFEST says pyarrow reads it, pyarrow now says {e}"
            ));
            continue;
        }
        let (binary, st) = match st.strip_prefix("binary ") {
            Some(rest) => (true, rest),
            None => (false, st),
        };
        let nested = st == "nested";
        let expected = read_ipc(&dir.join(format!("{i}.arrow")));
        if binary {
            match read(path, InvalidUtf8::Error) {
                Err(e) if e.contains("not valid UTF-8") => {}
                other => failures.push(format!(
                    "{name}: strings that are not UTF-8 should be an error by default, got {:?}",
                    other.map(|b| b.num_rows())
                )),
            }
            match view_differences(path, &expected) {
                Some(d) if d.iter().any(|e| e.contains("not valid UTF-8")) => {}
                other => failures.push(format!(
                    "{name}: strings that are not UTF-8 should be an error as views too, got \
                     {other:?}"
                )),
            }
        }
        let utf8 = if binary {
            InvalidUtf8::Binary
        } else {
            InvalidUtf8::Error
        };
        let diffs = match read(path, utf8) {
            Ok(batch) => differences(&batch, &expected),
            Err(e) => vec![format!("parq fails: {e}")],
        };
        let known = KNOWN_DIFFERENCES.iter().find(|(p, _)| p == name);
        match (diffs.is_empty(), known) {
            (true, None) if binary => tally.equal_binary += 1,
            (true, None) if nested => tally.equal_nested += 1,
            (true, None) => tally.equal_flat += 1,
            (false, Some((_, column))) if diffs.iter().all(|d| d.contains(column)) => {
                tally.known += 1
            }
            (true, Some(_)) => failures.push(format!(
                "{name}: the known difference is gone: update KNOWN_DIFFERENCES"
            )),
            (false, _) => failures.push(format!("{name}: {}", diffs.join("; "))),
        }
        if diffs.is_empty() && !binary {
            match view_differences(path, &expected) {
                Some(d) if d.is_empty() => tally.equal_views += 1,
                Some(d) => failures.push(format!("{name} (strings as views): {}", d.join("; "))),
                None => {}
            }
        }
    }

    // Files pyarrow refuses: an error, or DuckDB's values.
    let mut pairs = Vec::new();
    for (k, entry) in entries.iter().filter(|e| !e.pyarrow_reads).enumerate() {
        let path = root.join(&entry.path);
        match read(&path, InvalidUtf8::Error) {
            Err(e) if e == "PANIC" => failures.push(format!("{}: parq panics", entry.path)),
            Err(_) => tally.refused_error += 1,
            Ok(batch) => {
                let ipc = dir.join(format!("refused-{k}.arrow"));
                write_ipc(&ipc, &batch);
                pairs.push((entry.path.clone(), path, ipc));
            }
        }
    }
    if !pairs.is_empty() {
        let mut args = vec!["duckdb".to_string()];
        for (_, p, ipc) in &pairs {
            args.push(p.to_str().expect("path").into());
            args.push(ipc.to_str().expect("path").into());
        }
        let verdicts = run_script(&script, &args);
        for ((name, path, _), v) in pairs.iter().zip(&verdicts) {
            if v == "equal" {
                tally.refused_equal_duckdb += 1;
            } else if v.starts_with("duckdb refuses") {
                let parq = read(path, InvalidUtf8::Error).expect("read before");
                match read_60(path) {
                    Ok(want) if differences(&parq, &want).is_empty() => {
                        tally.refused_equal_parquet_60 += 1
                    }
                    other => failures.push(format!(
                        "{name}: pyarrow and DuckDB refuse it ({v}), parq reads it, the \
                         parquet crate: {:?}",
                        other.map(|b| differences(&parq, &b))
                    )),
                }
            } else {
                failures.push(format!(
                    "{name}: pyarrow refuses it, parq reads it, DuckDB: {v}"
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{tally:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The corpus as it is (653 files; pyarrow 26.0.1 reads 600, DuckDB 2.0.0): every
    // outcome counted.
    assert_eq!(tally.equal_flat, 429, "{tally:?}");
    assert_eq!(tally.equal_nested, 166, "{tally:?}");
    assert_eq!(tally.equal_binary, 5, "{tally:?}");
    assert_eq!(tally.known, KNOWN_DIFFERENCES.len(), "{tally:?}");
    assert_eq!(tally.refused_error, 50, "{tally:?}");
    assert_eq!(tally.refused_equal_duckdb, 2, "{tally:?}");
    assert_eq!(tally.refused_equal_parquet_60, 1, "{tally:?}");
    assert_eq!(tally.equal_views, 252, "{tally:?}");
}
