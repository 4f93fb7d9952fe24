//! Tests of `parq::read` on nested columns against pyarrow 26: every nested shape written by
//! pyarrow, DuckDB 2.0, polars 2.1 and fastparquet 2026.9, the files of parquet-java 1.18
//! and arrow-go 18.8 in tests/data/writers, and every nested file of the parquet-testing and
//! arrow-testing corpora.
//!
//! - `read_nested.py generate` writes one table of 500 rows holding list<int64>,
//!   list<string>, list<list<int32>>, struct<int32, string, double>, a struct in a struct,
//!   map<string, int64>, list<struct<int32, string>>, struct<list<int32>>,
//!   map<string, list<int32>>, large_list<int64>, fixed_size_list<int32, 3>,
//!   list<dictionary<int32, string>> and required lists / structs / children, with null
//!   lists, empty lists, null elements, null structs and structs whose children are all null
//!   at every level (the counts of each case are asserted). pyarrow writes it with 37-row row
//!   groups and tiny pages over v1 / v2 pages x dictionary on / off x compliant / legacy
//!   list naming, once without the ARROW:schema, and twice with its v1 pages re-cut at
//!   arbitrary levels so that records run over several pages (no writer of the venv splits
//!   a record: arrow, parquet-rs, DuckDB and polars all cut pages at record boundaries; the
//!   script checks pyarrow reads the re-cut file as the original). DuckDB (v1 / v2
//!   encodings, dictionary on / off; not fixed_size_list, which its Arrow import refuses) and
//!   polars write it too; fastparquet writes no nested column (each of its attempts gives
//!   JSON strings or fails: 0 files, asserted).
//! - Every file is read with `read_batch` and with `batches` of 1, 7, 100 and 501 rows (each
//!   batch of `batch_size` rows but the last; concatenated) and compared with
//!   `pq.read_table` of it (Arrow IPC): names, types, nullability, values. Where pyarrow
//!   refuses a column of DuckDB's files, DuckDB's reading of it (cast to pyarrow's type) is
//!   the expectation.
//! - Column selections by nested path (`s.a`, `s`, `li.list.element`, two leaves of one
//!   struct, a leaf of a struct in a list, ...): `with_columns` against pyarrow's
//!   `ParquetFile.read(columns=...)`, whose paths keep the selected leaves inside their
//!   parents, as parq's do (`pq.read_table(columns=...)` goes through the dataset API, which
//!   returns `s.a` as a top-level column `a` and refuses paths through lists), whole and in
//!   batches of 7, with pyarrow's names for pruned lists and maps (a list whose struct
//!   elements lost fields names its element `item`; a map keeping only its keys or values is
//!   a list of structs).
//! - Every `*.parquet` of parquet-testing/data and arrow-testing that pyarrow reads and that
//!   has a nested column: parq reads it equal to pyarrow, whole and in batches; a file
//!   pyarrow refuses is an error in parq too (not a panic).
//! - The files of tests/data/writers (their README says how they were written): parquet-java
//!   (example Group API; three-level, two-level and bare repeated lists, MAP, MAP_KEY_VALUE)
//!   and arrow-go (pqarrow, records split over v1 pages; its low-level column writers), read
//!   equal to pyarrow, whole and in batches; the count of files of each writer is asserted.
//!
//! The counts of files, batches and selections compared are asserted, so the test cannot
//! pass vacuously. The venv (`bash scripts/venv.sh`, or `$PARQ_PYTHON`) is required.

mod common;
use common::{differences, guarded, read_ipc, run_python_file, testdata, tmp_dir, TmpDir};

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_select::concat::concat_batches;
use parq::read::ParquetReader;
use serde_json::Value;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/read_nested.py")
}

/// Reads `path` (only `columns` if given) with `read_batch`, then with `batches` of each of
/// `batch_sizes`; compares each reading with `expected`. Returns the differences, and adds
/// the batches read to `batches`.
fn check_file(
    path: &Path,
    columns: Option<&[String]>,
    expected: &[RecordBatch],
    batch_sizes: &[usize],
    batches: &mut usize,
) -> Vec<String> {
    let open = || -> parq::Result<ParquetReader> {
        let r = ParquetReader::open(path)?;
        Ok(match columns {
            Some(c) => r.with_columns(c.iter().cloned()),
            None => r,
        })
    };
    let rows: usize = expected.iter().map(|b| b.num_rows()).sum();
    let mut out = Vec::new();
    match guarded(|| open()?.read_batch()) {
        Ok(batch) => out.extend(
            differences(&batch, expected)
                .into_iter()
                .map(|d| format!("read_batch: {d}")),
        ),
        Err(e) => out.push(format!("read_batch fails: {e}")),
    }
    for &size in batch_sizes {
        let read = guarded(|| {
            let reader = open()?.with_batch_size(size);
            let schema = reader.schema()?;
            let got = reader.batches()?.collect::<parq::Result<Vec<_>>>()?;
            Ok::<_, parq::Error>((schema, got))
        });
        let (schema, got) = match read {
            Ok(r) => r,
            Err(e) => {
                out.push(format!("batches of {size} fail: {e}"));
                continue;
            }
        };
        *batches += got.len();
        let sizes: Vec<usize> = got.iter().map(|b| b.num_rows()).collect();
        let want: Vec<usize> = (0..rows.div_ceil(size))
            .map(|k| size.min(rows - k * size))
            .collect();
        if sizes != want {
            out.push(format!(
                "batches of {size}: {} batches of sizes {:?}..., expected {} ({:?}...)",
                sizes.len(),
                &sizes[..sizes.len().min(5)],
                want.len(),
                &want[..want.len().min(5)]
            ));
        }
        match concat_batches(&schema, &got) {
            Ok(all) => out.extend(
                differences(&all, expected)
                    .into_iter()
                    .map(|d| format!("batches of {size}: {d}")),
            ),
            Err(e) => out.push(format!("batches of {size} do not concatenate: {e}")),
        }
    }
    out
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

#[test]
fn generated_nested_files_match_pyarrow() {
    let started = std::time::Instant::now();
    let dir = tmp_dir("generated");
    let out = run_python_file(&script(), &[Path::new("generate"), &*dir]);
    let v: Value = serde_json::from_str(&out).expect("json");
    eprintln!(
        "wrote the files and pyarrow's readings in {:.1?}",
        started.elapsed()
    );
    let rows = v["rows"].as_u64().expect("rows") as usize;
    let shapes = strings(&v["shapes"]);
    assert_eq!(rows, 500);
    assert_eq!(shapes.len(), 16, "{shapes:?}");

    // Files per writer, and what each writer could not write.
    for (writer, count) in [
        ("pyarrow", 11),
        ("duckdb", 4),
        ("polars", 2),
        ("fastparquet", 0),
    ] {
        assert_eq!(v["written"][writer], count, "{writer}: files written");
    }
    let skipped = |w: &str| match &v["skipped"][w] {
        Value::Null => Vec::new(),
        list => strings(list),
    };
    // DuckDB's Arrow import refuses fixed_size_list with null lists; fastparquet writes
    // structs and maps as JSON strings and refuses lists.
    assert_eq!(skipped("duckdb").len(), 1, "{:?}", skipped("duckdb"));
    assert!(skipped("duckdb")[0].starts_with("fl: "));
    assert!(skipped("polars").is_empty(), "{:?}", skipped("polars"));
    assert_eq!(skipped("fastparquet").len(), shapes.len() - 1);

    // Every null and empty case at every level, as pyarrow counts them in the table; the
    // required levels hold none.
    const NULL_LISTS: &str = "null lists";
    const EMPTY: &str = "empty lists";
    const NULL_ELEMENTS: &str = "null elements";
    const NULL_STRUCTS: &str = "null structs";
    const ALL_NULL: &str = "structs with all children null";
    const NULL_LEAVES: &str = "null leaves";
    let lists = &[NULL_LISTS, EMPTY, NULL_ELEMENTS][..];
    let structs = &[NULL_STRUCTS, ALL_NULL, NULL_LEAVES][..];
    let every = &[NULL_LISTS, EMPTY, NULL_ELEMENTS, NULL_STRUCTS, ALL_NULL][..];
    let want_cases: &[(&str, &[&str])] = &[
        ("id", &[]),
        ("li", lists),
        ("ls", lists),
        ("lli", lists),
        ("s", structs),
        ("ss", structs),
        ("m", lists),
        ("lst", every),
        ("sl", every),
        ("ml", lists),
        ("ll", lists),
        ("fl", &[NULL_LISTS, NULL_ELEMENTS]),
        ("ld", lists),
        ("rl", &[EMPTY]),
        ("rs", &[NULL_LEAVES]),
        ("rsl", &[NULL_STRUCTS, NULL_LISTS, EMPTY]),
    ];
    assert_eq!(
        want_cases.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        shapes
    );
    for (column, kinds) in want_cases {
        let counts = v["cases"][column].as_object().expect("cases");
        // A null leaf element is a null leaf too, a null struct element a null element.
        let implied = |kind: &str| match kind {
            NULL_LEAVES => kinds.contains(&NULL_ELEMENTS),
            NULL_ELEMENTS => kinds.contains(&NULL_STRUCTS),
            _ => false,
        };
        assert_eq!(counts.len(), 6, "{column}: {counts:?}");
        for (kind, n) in counts {
            let n = n.as_u64().expect("count");
            if kinds.contains(&kind.as_str()) {
                assert!(n > 20, "{column}: {n} {kind}");
            } else if !implied(kind) {
                assert_eq!(n, 0, "{column}: {kind}");
            }
        }
    }

    let files = v["files"].as_array().expect("files");
    let mut failures = Vec::new();
    let (mut compared, mut batches, mut selections, mut refused) = (0, 0, 0, Vec::new());
    let (mut by_duckdb, mut absent) = (0, Vec::new());
    let mut by_row_group = 0;
    for f in files {
        let name = f["name"].as_str().expect("name");
        let writer = f["writer"].as_str().expect("writer");
        let path = dir.join(name);
        let expected = read_ipc(&dir.join(format!("{name}.arrow")));
        // The table the writer was given, all of it but what it could not write.
        assert_eq!(f["num_rows"], rows, "{name}");
        let columns = strings(&f["columns"]);
        let want_columns = shapes.len() - skipped(writer).len();
        assert_eq!(columns.len(), want_columns, "{name}: {columns:?}");
        assert_eq!(expected[0].num_columns(), want_columns, "{name}");
        // 37-row row groups; pyarrow's and polars' pages several per column chunk (DuckDB
        // writes one per chunk); records split over pages in the `split_` files only.
        assert_eq!(f["row_groups"], 14, "{name}");
        let pages = f["pages"].as_u64().expect("pages") as usize;
        let chunks = 14 * f["leaves"].as_u64().expect("leaves") as usize;
        let tiny = if writer == "duckdb" { 1 } else { 5 };
        assert!(pages >= tiny * chunks, "{name}: {pages} pages");
        let split = f["split_pages"].as_u64().expect("split pages");
        if name.starts_with("split_") {
            assert!(
                split > 10_000,
                "{name}: {split} pages begin inside a record"
            );
        } else {
            assert_eq!(split, 0, "{name}");
        }
        // Page versions and encodings as the names say.
        let page_types = strings(&f["page_types"]);
        let encodings = strings(&f["encodings"]);
        let v2_pages = page_types.iter().any(|t| t == "DATA_PAGE_V2");
        assert_eq!(
            v2_pages,
            name.starts_with("pyarrow_v2"),
            "{name}: {page_types:?}"
        );
        let dictionary = encodings.iter().any(|e| e.ends_with("_DICTIONARY"));
        assert_eq!(dictionary, !name.contains("plain"), "{name}: {encodings:?}");
        if name.starts_with("duckdb_v2_plain") {
            assert!(encodings.iter().any(|e| e == "DELTA_BINARY_PACKED"));
        }
        by_duckdb += f["duckdb_columns"].as_array().map_or(0, Vec::len);

        let diffs = check_file(&path, None, &expected, &[1, 7, 100, rows + 1], &mut batches);
        failures.extend(diffs.iter().map(|d| format!("{name}: {d}")));
        compared += 1;

        for sel in f["selections"].as_array().expect("selections") {
            let cols = strings(&sel["columns"]);
            if sel["by_row_group"] == true {
                by_row_group += 1;
            }
            if sel["absent"] == true {
                absent.push(format!("{name} {cols:?}"));
                continue;
            }
            let Some(ipc) = sel["ipc"].as_str() else {
                refused.push(format!("{name} {cols:?}: {}", sel["error"]));
                continue;
            };
            let expected = read_ipc(&dir.join(ipc));
            let what = format!("{name} columns {cols:?}");
            let diffs = check_file(&path, Some(&cols), &expected, &[7], &mut batches);
            failures.extend(diffs.iter().map(|d| format!("{what}: {d}")));
            selections += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "compared {compared} files ({batches} batches) and {selections} selections in {:.1?}",
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(compared, 17);
    // pyarrow refuses DuckDB's v2 `lli` (see below), whole or selected by its leaf path.
    assert_eq!(refused.len(), 1, "pyarrow refuses selections: {refused:#?}");
    assert!(
        refused.iter().all(|r| r.starts_with("duckdb_v2_plain")
            && r.contains("[\"lli.list.element.list.element\"]")
            && r.contains("InitBlock EOF")),
        "{refused:#?}"
    );
    // pyarrow's `ParquetFile.read` refuses a list of dictionaries whose dictionary changes
    // between row groups; the script reads those selections one row group at a time.
    assert_eq!(by_row_group, 7);
    // DuckDB's files lack `fl` (fixed_size_list): 4 files x 1 selection.
    assert_eq!(absent.len(), 4, "{absent:?}");
    // 17 files x 15 selections, among them maps with only their keys or only their values
    // (pyarrow reads those as lists of structs) and list<struct> with some fields (the
    // element renamed `item`).
    assert_eq!(selections, 17 * 15 - 4 - 1);
    // Batches: every file at 1, 7, 100 and 501 rows (500 + 72 + 5 + 1), every selection
    // parq reads at 7.
    assert_eq!(batches, 17 * (500 + 72 + 5 + 1) + selections * 72);
    // pyarrow refuses `lli` (list<list<int32>>) of DuckDB's v2 file without dictionary:
    // "Unexpected end of stream: InitBlock EOF" (DuckDB's DELTA_BINARY_PACKED int32
    // miniblocks are 33 bits wide, its deltas taken in 64 bits; parq reads them, wrapping
    // to 32 bits); DuckDB's reading stands in.
    assert_eq!(by_duckdb, 1);
}

/// The `*.parquet` files under `dir`, recursively.
fn parquet_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            parquet_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "parquet") {
            out.push(p);
        }
    }
}

/// Corpus files pyarrow refuses that parq is not asked to read: MAP(STRING, INT32) whose
/// string chunk decompresses to more than 2 GB (pyarrow: "Nested data conversions not
/// implemented for chunked array outputs").
const NOT_READ: &[&str] = &["parquet-testing/data/large_string_map.brotli.parquet"];

/// pyarrow's reading of each of `files` (`read_nested.py corpus`) into a fresh directory
/// named after `what`: the directory and one status per file.
fn pyarrow_readings(what: &str, files: &[PathBuf]) -> (TmpDir, Vec<String>) {
    let dir = tmp_dir(what);
    let mut args = vec![PathBuf::from("corpus"), dir.to_path_buf()];
    args.extend(files.iter().cloned());
    let status: Vec<String> =
        serde_json::from_str(&run_python_file(&script(), &args)).expect("json");
    assert_eq!(status.len(), files.len());
    (dir, status)
}

#[test]
fn corpus_nested_files_match_pyarrow() {
    let root = testdata();
    let mut files = Vec::new();
    for sub in ["parquet-testing/data", "arrow-testing"] {
        let d = root.join(sub);
        assert!(d.is_dir(), "{} is missing", d.display());
        parquet_files(&d, &mut files);
    }
    files.sort();
    let (dir, status) = pyarrow_readings("corpus", &files);

    let mut failures = Vec::new();
    let (mut nested, mut flat, mut refused, mut batches) = (Vec::new(), 0, Vec::new(), 0);
    for (i, path) in files.iter().enumerate() {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        match status[i].as_str() {
            "flat" => flat += 1,
            "nested" => {
                let expected = read_ipc(&dir.join(format!("{i}.arrow")));
                let rows = expected.iter().map(|b| b.num_rows()).sum::<usize>();
                let sizes = [1, 7, 100, rows + 1];
                let diffs = check_file(path, None, &expected, &sizes, &mut batches);
                failures.extend(diffs.iter().map(|d| format!("{name}: {d}")));
                nested.push(name);
            }
            e => {
                // Refused by pyarrow: an error from parq too, never a panic.
                if !NOT_READ.contains(&name.as_str()) {
                    match guarded(|| ParquetReader::open(path)?.read_batch()) {
                        Err(p) if p == "PANIC" => failures.push(format!("{name}: parq panics")),
                        Err(_) => {}
                        Ok(b) => failures.push(format!(
                            "{name}: pyarrow refuses it ({e}), parq reads {} rows",
                            b.num_rows()
                        )),
                    }
                }
                refused.push(name);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{} nested corpus files compared ({batches} batches; {flat} flat files; refused by \
         pyarrow: {refused:?})",
        nested.len(),
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // 78 files: 15 nested, 61 flat (read_flat.rs), 2 refused by pyarrow (a map with
    // optional keys, which parq refuses too, and NOT_READ).
    assert_eq!(files.len(), 78);
    assert_eq!(flat, 61);
    assert_eq!(
        refused,
        [
            "parquet-testing/data/incorrect_map_schema.parquet",
            "parquet-testing/data/large_string_map.brotli.parquet"
        ]
    );
    assert_eq!(
        nested,
        [
            "arrow-testing/parquet/alltypes-java.parquet",
            "arrow-testing/parquet/generated_simple_numerics/blogs.parquet",
            "parquet-testing/data/datapage_v2.snappy.parquet",
            "parquet-testing/data/list_columns.parquet",
            "parquet-testing/data/map_no_value.parquet",
            "parquet-testing/data/nested_lists.snappy.parquet",
            "parquet-testing/data/nested_maps.snappy.parquet",
            "parquet-testing/data/nested_structs.rust.parquet",
            "parquet-testing/data/nonnullable.impala.parquet",
            "parquet-testing/data/null_list.parquet",
            "parquet-testing/data/nullable.impala.parquet",
            "parquet-testing/data/nulls.snappy.parquet",
            "parquet-testing/data/old_list_structure.parquet",
            "parquet-testing/data/repeated_no_annotation.parquet",
            "parquet-testing/data/repeated_primitive_no_list.parquet",
        ]
    );
}

/// The files of tests/data/writers (see its README) per writer: the name's prefix and how
/// many there are.
const WRITERS: &[(&str, usize)] = &[("arrow-go_", 5), ("parquet-java_", 6)];

#[test]
fn writer_files_match_pyarrow() {
    let started = std::time::Instant::now();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/writers");
    let mut files = Vec::new();
    parquet_files(&data, &mut files);
    files.sort();
    let (dir, status) = pyarrow_readings("writers", &files);

    let mut failures = Vec::new();
    let (mut compared, mut batches) = (Vec::new(), 0);
    for (i, path) in files.iter().enumerate() {
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        if status[i] != "nested" {
            failures.push(format!("{name}: pyarrow: {}", status[i]));
            continue;
        }
        let expected = read_ipc(&dir.join(format!("{i}.arrow")));
        let rows = expected.iter().map(|b| b.num_rows()).sum::<usize>();
        assert_eq!(rows, 300, "{name}");
        let mut read = 0;
        let diffs = check_file(path, None, &expected, &[1, 7, 100, rows + 1], &mut read);
        batches += read;
        failures.extend(diffs.iter().map(|d| format!("{name}: {d}")));
        if diffs.is_empty() && read != 300 + 43 + 3 + 1 {
            failures.push(format!("{name}: {read} batches"));
        }
        compared.push(name);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{} writer files compared ({batches} batches) in {:.1?}",
        compared.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for (prefix, count) in WRITERS {
        let n = compared.iter().filter(|f| f.starts_with(prefix)).count();
        assert_eq!(n, *count, "{prefix}*: {compared:?}");
    }
    assert_eq!(compared.len(), files.len());
}
