//! `parq cat` and `parq convert` end to end. Expected values come from pyarrow, never from
//! parq: `cat_convert/check.py` reads the same files with pyarrow and compares (see its
//! docstring for the value formats), and `cat_convert/gen_types.py` writes a file with every
//! Arrow type pyarrow stores (dictionary, time zones, decimals 32..256, views, ...) in row
//! groups of 3 rows. The Python is `.venv/bin/python` at the workspace root (or
//! `$PARQ_PYTHON`); without it these tests fail.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{python_required, testdata};

fn data(name: &str) -> String {
    let p = testdata().join("parquet-testing/data").join(name);
    assert!(p.exists(), "missing test file {}", p.display());
    p.to_str().unwrap().to_string()
}

fn script(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cat_convert")
        .join(name);
    p.to_str().unwrap().to_string()
}

/// A fresh directory for one test.
fn tmp(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cat_convert")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The file of `gen_types.py`, written once per test run.
fn generated() -> String {
    static FILE: OnceLock<String> = OnceLock::new();
    FILE.get_or_init(|| {
        let out = tmp("generated").join("types.parquet");
        let st = Command::new(python_required())
            .arg(script("gen_types.py"))
            .arg(&out)
            .status()
            .unwrap();
        assert!(st.success(), "gen_types.py failed");
        out.to_str().unwrap().to_string()
    })
    .clone()
}

fn parq(args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One output to check against pyarrow.
#[derive(Clone, Default)]
struct Job {
    file: String,
    columns: Option<Vec<&'static str>>,
    row_groups: Option<Vec<usize>>,
    limit: Option<usize>,
}

impl Job {
    fn new(file: String) -> Self {
        Job {
            file,
            ..Default::default()
        }
    }
    fn columns(mut self, c: &[&'static str]) -> Self {
        self.columns = Some(c.to_vec());
        self
    }
    fn row_groups(mut self, r: &[usize]) -> Self {
        self.row_groups = Some(r.to_vec());
        self
    }
    fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Runs `parq cat` (format csv/jsonl/table) or `parq convert` (format arrow) into a file
    /// of `dir`, and returns the job for check.py as JSON.
    fn run(&self, format: &str, dir: &Path, n: usize) -> String {
        let out = dir.join(format!("out{n}.{format}"));
        let out_s = out.to_str().unwrap().to_string();
        let mut args: Vec<String> = if format == "arrow" {
            vec!["convert".into(), self.file.clone(), out_s.clone()]
        } else {
            vec![
                "cat".into(),
                self.file.clone(),
                "--format".into(),
                format.into(),
            ]
        };
        if let Some(c) = &self.columns {
            args.push(format!("--columns={}", c.join(",")));
        }
        if let Some(r) = &self.row_groups {
            let r: Vec<String> = r.iter().map(|r| r.to_string()).collect();
            args.push(format!("--row-groups={}", r.join(",")));
        }
        if let Some(l) = self.limit {
            args.push(format!("--limit={l}"));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, err) = parq(&args);
        assert_eq!(code, 0, "parq {args:?}: {err}");
        if format != "arrow" {
            std::fs::write(&out, stdout).unwrap();
        }
        let mut j = format!(
            r#"{{"file": "{}", "format": "{format}", "out": "{out_s}""#,
            self.file
        );
        if let Some(c) = &self.columns {
            let c: Vec<String> = c.iter().map(|c| format!("\"{c}\"")).collect();
            j += &format!(r#", "columns": [{}]"#, c.join(", "));
        }
        if let Some(r) = &self.row_groups {
            j += &format!(r#", "row_groups": {r:?}"#);
        }
        if let Some(l) = self.limit {
            j += &format!(r#", "limit": {l}"#);
        }
        j + "}"
    }
}

/// Runs every job in every format and has check.py compare with pyarrow.
fn check(test: &str, jobs: &[Job], formats: &[&str]) {
    let dir = tmp(test);
    let mut specs = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        for (k, f) in formats.iter().enumerate() {
            specs.push(job.run(f, &dir, i * formats.len() + k));
        }
    }
    let out = Command::new(python_required())
        .arg(script("check.py"))
        .arg(format!("[{}]", specs.join(",\n")))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn convert_matches_pyarrow() {
    let flat = [
        "alltypes_plain.parquet",
        "alltypes_plain.snappy.parquet",
        "alltypes_dictionary.parquet",
        "alltypes_tiny_pages.parquet",
        "delta_binary_packed.parquet",
        "delta_byte_array.parquet",
        "delta_length_byte_array.parquet",
        "delta_encoding_optional_column.parquet",
        "delta_encoding_required_column.parquet",
        "byte_stream_split.zstd.parquet",
        "byte_stream_split_extended.gzip.parquet",
        "int32_decimal.parquet",
        "int64_decimal.parquet",
        "byte_array_decimal.parquet",
        "fixed_length_decimal.parquet",
        "fixed_length_decimal_legacy.parquet",
        "fixed_length_byte_array.parquet",
        "float16_nonzeros_and_nans.parquet",
        "floating_orders_nan_count.parquet",
        "int96_from_spark.parquet",
        "binary.parquet",
        "rle_boolean_encoding.parquet",
        "sort_columns.parquet",
        "column_chunk_key_value_metadata.parquet",
        "concatenated_gzip_members.parquet",
        "hadoop_lz4_compressed.parquet",
        "lz4_raw_compressed.parquet",
        "page_v2_empty_compressed.parquet",
        "datapage_v2_empty_datapage.snappy.parquet",
        "dict-page-offset-zero.parquet",
        "rle-dict-snappy-checksum.parquet",
        "single_nan.parquet",
        "unknown-logical-type.parquet",
    ];
    let mut jobs: Vec<Job> = flat.iter().map(|f| Job::new(data(f))).collect();
    jobs.push(Job::new(data("datapage_v2.snappy.parquet")).columns(&["a", "b", "c", "d"]));
    for nested in [
        "nested_lists.snappy.parquet",
        "nested_maps.snappy.parquet",
        "nested_structs.rust.parquet",
        "nonnullable.impala.parquet",
        "nullable.impala.parquet",
        "repeated_no_annotation.parquet",
        "old_list_structure.parquet",
        "map_no_value.parquet",
    ] {
        jobs.push(Job::new(data(nested)));
    }
    jobs.push(Job::new(data("nested_lists.snappy.parquet")).columns(&["b"]));
    jobs.push(Job::new(data("nonnullable.impala.parquet")).columns(&["ID"]));
    jobs.push(Job::new(generated()));
    jobs.push(
        Job::new(generated())
            .columns(&["dict", "ts_ns_paris", "i8"])
            .row_groups(&[2, 0]),
    );
    jobs.push(
        Job::new(data("floating_orders_nan_count.parquet"))
            .columns(&["double_ieee754", "float16_typedef"])
            .row_groups(&[4, 1]),
    );
    check("convert", &jobs, &["arrow"]);
}

#[test]
fn cat_csv_and_jsonl_match_pyarrow() {
    let jobs = [
        Job::new(generated()),
        Job::new(data("alltypes_plain.parquet")),
        Job::new(data("alltypes_tiny_pages.parquet")),
        Job::new(data("int32_decimal.parquet")),
        Job::new(data("fixed_length_decimal.parquet")),
        Job::new(data("float16_nonzeros_and_nans.parquet")),
        Job::new(data("floating_orders_nan_count.parquet")),
        Job::new(data("byte_stream_split_extended.gzip.parquet")),
        Job::new(data("int96_from_spark.parquet")),
        Job::new(data("delta_byte_array.parquet")),
        Job::new(data("datapage_v2.snappy.parquet")).columns(&["a", "b", "c", "d"]),
    ];
    check("csv_jsonl", &jobs, &["csv", "jsonl"]);
    // Lists, structs and maps as JSON values.
    let nested = [
        Job::new(data("nested_lists.snappy.parquet")),
        Job::new(data("nested_maps.snappy.parquet")),
        Job::new(data("repeated_no_annotation.parquet")),
        Job::new(data("nonnullable.impala.parquet")),
    ];
    check("jsonl_nested", &nested, &["jsonl"]);
}

#[test]
fn cat_table_matches_pyarrow() {
    let jobs = [
        Job::new(generated()),
        Job::new(data("alltypes_plain.parquet")),
        Job::new(data("int32_decimal.parquet")),
        Job::new(data("float16_nonzeros_and_nans.parquet")),
        Job::new(data("column_chunk_key_value_metadata.parquet")),
    ];
    check("table", &jobs, &["table"]);
}

#[test]
fn limit_columns_and_row_groups() {
    let f = data("floating_orders_nan_count.parquet"); // 5 row groups of 10 rows
    let jobs = [
        Job::new(f.clone()).limit(3),
        Job::new(f.clone()).limit(0),
        Job::new(f.clone()).limit(15),
        Job::new(f.clone()).limit(1000),
        Job::new(f.clone()).columns(&["float16_typedef", "double_ieee754"]),
        Job::new(f.clone()).row_groups(&[4, 0]),
        Job::new(f.clone())
            .row_groups(&[3, 1])
            .columns(&["float_typedef"])
            .limit(12),
        Job::new(generated())
            .columns(&["s", "dict"])
            .row_groups(&[1]),
        Job::new(generated()).limit(4),
    ];
    check("limit", &jobs, &["csv", "jsonl", "table"]);
}

#[test]
fn csv_quoting_and_nulls() {
    // pyarrow: the `s` column holds "plain", "", None, 'a,"quoted"\nline', ...
    let g = generated();
    let (code, out, err) = parq(&[
        "cat",
        &g,
        "--format",
        "csv",
        "--columns",
        "s,i8",
        "--limit",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "s,i8\nplain,1\n\"\",-2\n,\n\"a,\"\"quoted\"\"\nline\",127\n"
    );
}

#[test]
fn cat_to_a_closed_pipe_is_not_an_error() {
    let f = data("alltypes_tiny_pages.parquet");
    let cmd = format!(
        "'{}' cat '{f}' --format csv | head -n 1 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        env!("CARGO_BIN_EXE_parq")
    );
    let out = Command::new("bash").arg("-c").arg(cmd).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs parq, expecting exit code 1, no output, a `parq: <file>: ` message containing `msg`.
fn fails(args: &[&str], file: &str, msg: &str) {
    let (code, out, err) = parq(args);
    assert_eq!(code, 1, "parq {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.is_empty(), "parq {args:?} printed output");
    assert!(err.starts_with(&format!("parq: {file}: ")), "{err}");
    assert!(err.contains(msg), "parq {args:?}: {err:?} lacks {msg:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn errors_are_clean() {
    let dir = tmp("errors");
    let plain = data("alltypes_plain.parquet");
    let out = dir.join("out.arrow");
    let out = out.to_str().unwrap();
    for cmd in [vec!["cat", &plain], vec!["convert", &plain, out]] {
        fails(
            &[cmd.clone(), vec!["--columns", "id,nope"]].concat(),
            &plain,
            "no column `nope`",
        );
        let a = [cmd.clone(), vec!["--row-groups", "0,1"]].concat();
        fails(&a, &plain, "row group 1 out of range");
        let mut a = cmd.clone();
        let missing = dir.join("missing.parquet");
        let missing = missing.to_str().unwrap();
        a[1] = missing;
        fails(&a, missing, "cannot read");
        let garbage = dir.join("garbage.parquet");
        std::fs::write(&garbage, b"this is not a parquet file at all").unwrap();
        let garbage = garbage.to_str().unwrap();
        a[1] = garbage;
        fails(&a, garbage, "not a Parquet file");
        let truncated = dir.join("truncated.parquet");
        let bytes = std::fs::read(&plain).unwrap();
        std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
        let truncated = truncated.to_str().unwrap();
        a[1] = truncated;
        fails(&a, truncated, "");
        let corrupt = data("datapage_v1-corrupt-checksum.parquet");
        a[1] = &corrupt;
        let (code, _, err) = parq(&[a.clone(), vec!["--verify-crc"]].concat());
        assert_eq!(code, 1, "{err}");
        assert!(
            err.starts_with(&format!("parq: {corrupt}: ")) && err.contains("CRC"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // No output file, and no temporary file, after any failed convert.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("arrow"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn failed_convert_keeps_the_previous_output() {
    let dir = tmp("keep");
    let out = dir.join("out.arrow");
    std::fs::write(&out, b"previous").unwrap();
    let corrupt = data("datapage_v1-corrupt-checksum.parquet");
    let (code, _, err) = parq(&["convert", "--verify-crc", &corrupt, out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "a temporary file was left"
    );
}

#[test]
fn convert_refuses_bad_outputs() {
    let dir = tmp("outputs");
    let input = dir.join("in.parquet");
    std::fs::copy(data("alltypes_plain.parquet"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let input_s = input.to_str().unwrap();
    // The input itself, by another spelling, or through a hard link.
    let other = format!("{}/./in.parquet", dir.display());
    fails(
        &["convert", input_s, input_s],
        input_s,
        "refusing to overwrite the input",
    );
    fails(
        &["convert", input_s, &other],
        &other,
        "refusing to overwrite the input",
    );
    let link = dir.join("link.parquet");
    std::fs::hard_link(&input, &link).unwrap();
    let link = link.to_str().unwrap();
    fails(
        &["convert", input_s, link],
        link,
        "refusing to overwrite the input",
    );
    assert_eq!(std::fs::read(&input).unwrap(), before);
    // A directory, a missing directory, an unwritable directory.
    let d = dir.to_str().unwrap();
    fails(&["convert", input_s, d], d, "is a directory");
    let nodir = dir.join("no/such/dir/out.arrow");
    let nodir = nodir.to_str().unwrap();
    fails(
        &["convert", input_s, nodir],
        nodir,
        "cannot create a temporary file",
    );
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        // Root ignores directory permissions: only check when the directory is read-only.
        if std::fs::write(ro.join("probe"), b"").is_err() {
            let out = ro.join("out.arrow");
            let out = out.to_str().unwrap();
            fails(
                &["convert", input_s, out],
                out,
                "cannot create a temporary file",
            );
        }
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // Success replaces an existing output and leaves no temporary file.
    let out = dir.join("out.arrow");
    std::fs::write(&out, b"old").unwrap();
    let (code, _, err) = parq(&["convert", input_s, out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(&out).unwrap().starts_with(b"ARROW1"));
    let tmps: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(tmps.is_empty(), "{tmps:?}");
}

/// `parq convert` to Parquet, from Parquet and from Arrow IPC, with writer options: pyarrow
/// reads what parq wrote, equal to what it reads from the input, and sees the options.
#[test]
fn convert_to_parquet_matches_pyarrow() {
    let dir = tmp("to_parquet");
    let input = generated();
    let d = |n: &str| dir.join(n).to_str().unwrap().to_string();
    // Parquet -> Parquet with options; Parquet -> Arrow -> Parquet with defaults.
    let (code, _, err) = parq(&[
        "convert",
        &input,
        &d("opts.parquet"),
        "--compression",
        "zstd:3",
        "--dictionary",
        "false",
        "--statistics",
        "chunk",
        "--row-group-rows",
        "1000",
        "--page-rows",
        "300",
        "--data-page-version",
        "2",
        "--crc",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = parq(&["convert", &input, &d("mid.arrow")]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = parq(&["convert", &d("mid.arrow"), &d("from_ipc.parquet")]);
    assert_eq!(code, 0, "{err}");
    let check = r#"
import sys, pyarrow.parquet as pq
src, opts, from_ipc = sys.argv[1:4]
want = pq.read_table(src)
def same(a, b):
    # NaN equals NaN here (Arrow's `equals` says it does not).
    la, lb = a.to_pylist(), b.to_pylist()
    return a.type == b.type and len(la) == len(lb) and all(
        x == y or (x != x and y != y) for x, y in zip(la, lb))
for path in (opts, from_ipc):
    got = pq.read_table(path)
    assert got.schema.names == want.schema.names, (path, got.schema, want.schema)
    for name in want.schema.names:
        assert same(got.column(name), want.column(name)), (path, name)
md = pq.ParquetFile(opts).metadata
assert md.num_row_groups == -(-want.num_rows // 1000), md.num_row_groups
for rg in range(md.num_row_groups):
    for c in range(md.num_columns):
        col = md.row_group(rg).column(c)
        assert col.compression == "ZSTD", col.compression
        assert "RLE_DICTIONARY" not in col.encodings and "PLAIN_DICTIONARY" not in col.encodings, col.encodings
print("ok")
"#;
    let out = Command::new(python_required())
        .args([
            "-c",
            check,
            &input,
            &d("opts.parquet"),
            &d("from_ipc.parquet"),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Impossible requests: clear errors, and nothing written under the target name.
    let target = d("bad.parquet");
    fails(
        &["convert", &input, &target, "--encoding", "nope=PLAIN"],
        &target,
        "nope",
    );
    fails(
        &["convert", &input, &target, "--compression", "lzo"],
        &target,
        "LZO",
    );
    fails(
        &["convert", &input, &target, "--encoding", "FANCY"],
        &target,
        "FANCY",
    );
    fails(
        &["convert", &input, &d("x.arrow"), "--compression", "zstd"],
        &d("x.arrow"),
        "writer options apply to a Parquet output",
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("bad") || n.contains("x.arrow"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// `parq convert` of nested files to Parquet (every writer option that bears on nesting, and
/// through Arrow IPC): pyarrow reads what parq wrote equal to what it reads from the input,
/// DuckDB and polars equal to pyarrow's reading of the input.
#[test]
fn convert_nested_to_parquet_matches_readers() {
    let dir = tmp("nested_to_parquet");
    let d = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let inputs = [
        "nested_lists.snappy.parquet",
        "nested_maps.snappy.parquet",
        "nested_structs.rust.parquet",
        "nonnullable.impala.parquet",
        "nullable.impala.parquet",
        "repeated_no_annotation.parquet",
        "old_list_structure.parquet",
        "map_no_value.parquet",
    ];
    let options: [&[&str]; 3] = [
        &[],
        &[
            "--compression",
            "zstd:3",
            "--dictionary",
            "false",
            "--page-rows",
            "2",
            "--data-page-version",
            "2",
            "--crc",
            "--compliant-nested-types",
            "false",
        ],
        &[
            "--compression",
            "snappy",
            "--statistics",
            "chunk",
            "--row-group-rows",
            "2",
            "--page-bytes",
            "64",
            "--encoding",
            "DELTA_BINARY_PACKED",
            "--write-threads",
            "2",
            "--footer-index",
            "false",
        ],
    ];
    let mut pairs = Vec::new();
    for (i, name) in inputs.iter().enumerate() {
        let input = data(name);
        for (k, opts) in options.iter().enumerate() {
            let out = d(&format!("{i}_{k}.parquet"));
            let mut args = vec!["convert", input.as_str(), out.as_str()];
            args.extend_from_slice(opts);
            let (code, _, err) = parq(&args);
            // DELTA_BINARY_PACKED fits integer leaves only: a file with other leaves is a
            // clear error naming the column, and nothing is written.
            if k == 2 && code != 0 {
                assert!(err.contains("DELTA_BINARY_PACKED"), "{name}: {err}");
                assert!(!Path::new(&out).exists(), "{name}: {out} left behind");
                continue;
            }
            assert_eq!(code, 0, "{name} {opts:?}: {err}");
            // parq's footer index sits right before the footer unless turned off.
            let bytes = std::fs::read(&out).unwrap();
            let n = bytes.len();
            let footer = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
            let start = n - 8 - footer;
            assert_eq!(
                &bytes[start - 4..start] == b"PQX1",
                k != 2,
                "{name} {opts:?}"
            );
            pairs.push((input.clone(), out));
        }
        let mid = d(&format!("{i}.arrow"));
        let (code, _, err) = parq(&["convert", &input, &mid]);
        assert_eq!(code, 0, "{name}: {err}");
        let out = d(&format!("{i}_ipc.parquet"));
        let (code, _, err) = parq(&["convert", &mid, &out]);
        assert_eq!(code, 0, "{name}: {err}");
        pairs.push((input, out));
    }
    let check = r#"
import sys, pyarrow.parquet as pq, duckdb, polars as pl
args = sys.argv[1:]
checked = {"pyarrow": 0, "duckdb": 0, "polars": 0}
for src, out in zip(args[::2], args[1::2]):
    want, got = pq.read_table(src), pq.read_table(out)
    assert got.num_rows == want.num_rows, (out, got.num_rows, want.num_rows)
    assert got.schema.names == want.schema.names, (out, got.schema, want.schema)
    for name in want.schema.names:
        a, b = got.column(name), want.column(name)
        try:
            same = a.to_pylist() == b.to_pylist()
        except OverflowError:  # timestamps beyond Python's datetime: compare as Arrow
            same = a.cast(b.type).equals(b)
        assert same, (src, out, name)
    checked["pyarrow"] += 1
    # DuckDB and polars read parq's file as they read pyarrow's reading of the input (their
    # own readings of some legacy inputs differ: polars drops the rows of a bare repeated
    # group, both read legacy TIMESTAMP_MICROS columns without their zone).
    want_d = duckdb.sql("select * from want").to_arrow_table()
    got_d = duckdb.sql(f"select * from '{out}'").to_arrow_table()
    assert got_d.equals(want_d), (src, out, got_d.schema, want_d.schema)
    checked["duckdb"] += 1
    assert pl.read_parquet(out).equals(pl.from_arrow(want)), (src, out)
    checked["polars"] += 1
assert all(n > 0 for n in checked.values()), checked
print(checked)
"#;
    let mut args = vec!["-c".to_string(), check.to_string()];
    for (src, out) in &pairs {
        args.push(src.clone());
        args.push(out.clone());
    }
    let out = Command::new(python_required())
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn where_filters_rows_and_explain_says_what_was_read() {
    // sort_columns.parquet: a = [null, 2, 1 | null, 2, 1], b = [a, b, c | a, b, c], two row
    // groups whose statistics of `a` are 1..2.
    let f = data("sort_columns.parquet");
    let (code, out, err) = parq(&[
        "cat",
        "--format",
        "csv",
        "--where",
        "a = 2 OR b = 'c'",
        "--explain",
        "--threads",
        "2",
        &f,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), "a,b\n2,b\n1,c\n2,b\n1,c\n");
    let lines: Vec<&str> = err.lines().collect();
    // Both columns are dictionary-encoded: their dictionaries (2 x 2) rule nothing out.
    assert_eq!(
        lines[0], "row groups: 2 read, 0 skipped (0 by dictionaries, 4 read)",
        "{err}"
    );
    assert!(
        lines[1].starts_with("pages: ") && lines[2].starts_with("bytes: "),
        "{err}"
    );
    // No row group can hold a >= 3: both skipped by their statistics, nothing read.
    let (code, out, err) = parq(&[
        "cat",
        "--format",
        "csv",
        "--where",
        "NOT (a < 3)",
        "--explain",
        &f,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), "a,b\n");
    assert!(err.starts_with("row groups: 0 read, 2 skipped\n"), "{err}");
    assert!(err.contains("bytes: 0 read, "), "{err}");
    // IS NULL, a filter column left out of the output, and convert.
    let dir = tmp("where");
    let out_file = dir.join("nulls.parquet");
    let o = out_file.to_str().unwrap();
    let (code, _, err) = parq(&["convert", "--columns", "b", "--where", "a IS NULL", &f, o]);
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = parq(&["cat", "--format", "csv", o]);
    assert_eq!(String::from_utf8(out).unwrap(), "b\na\na\n");
    // Errors name the problem before any output.
    fails(&["cat", "--where", "nope = 1", &f], &f, "no column `nope`");
    fails(
        &["cat", "--where", "a = 'x'", &f],
        &f,
        "cannot be compared with column `a`",
    );
    fails(&["cat", "--where", "a = ", &f], &f, "expected a literal");
}
