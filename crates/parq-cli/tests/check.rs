//! `parq check` end to end. Files that must check clean are written in the test by pyarrow,
//! DuckDB and polars (`check/write.py`), or come from the corpora (parquet-testing's data,
//! and the real-world files pyarrow reads that parquet-mr / parquet-java, pyarrow, DuckDB or
//! polars wrote, listed by `check/corpus.py` from their footers as pyarrow reads them). The
//! broken ones are parquet-testing's `bad_data`, the corpus files known to be broken (each
//! with its reason below), and files corrupted here at known places. The Python is
//! `.venv/bin/python` at the workspace root (or `$PARQ_PYTHON`); without it the tests that
//! need it are skipped, except under `CI=true`, where they fail.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{python, testdata};

use serde_json::Value;

fn script(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/check")
        .join(name);
    p.to_str().unwrap().to_string()
}

/// The files of `write.py` and what it says about them, written once per run.
fn written() -> Option<&'static (PathBuf, Value)> {
    static FILES: OnceLock<Option<(PathBuf, Value)>> = OnceLock::new();
    FILES
        .get_or_init(|| {
            let py = python()?;
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check/written");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let out = Command::new(py)
                .arg(script("write.py"))
                .arg(&dir)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "write.py failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            Some((dir, serde_json::from_slice(&out.stdout).unwrap()))
        })
        .as_ref()
}

/// `parq check --json -q FILES`: exit code, findings, summaries.
fn check(files: &[String]) -> (i32, Vec<Value>, Vec<Value>) {
    let mut args = vec!["check".to_string(), "--json".into(), "-q".into()];
    args.extend(files.iter().cloned());
    let out = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(&args)
        .output()
        .unwrap();
    let mut findings = Vec::new();
    let mut summaries = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        match v.get("summary") {
            Some(_) => summaries.push(v),
            None => findings.push(v),
        }
    }
    assert_eq!(summaries.len(), files.len(), "one summary per file");
    (out.status.code().unwrap_or(-1), findings, summaries)
}

/// `severity:check` of each file's findings.
fn kinds(findings: &[Value]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in findings {
        let file = Path::new(f["file"].as_str().unwrap()).file_name().unwrap();
        out.entry(file.to_string_lossy().into_owned())
            .or_default()
            .insert(format!(
                "{}:{}",
                f["severity"].as_str().unwrap(),
                f["check"].as_str().unwrap()
            ));
    }
    out
}

fn expect(known: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
    known
        .iter()
        .map(|(f, k)| (f.to_string(), k.iter().map(|s| s.to_string()).collect()))
        .collect()
}

fn parquet_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn files_of_pyarrow_duckdb_and_polars_check_clean() {
    let Some((dir, _)) = written() else { return };
    let files = parquet_files(dir);
    assert!(files.len() >= 7);
    let (code, findings, summaries) = check(&files);
    assert!(findings.is_empty(), "{findings:#?}");
    assert_eq!(code, 0);
    for s in &summaries {
        assert_eq!(s["summary"]["errors"], 0);
        assert!(s["summary"]["pages"].as_i64().unwrap() > 0, "{s}");
    }
    // The text output says ok.
    let out = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(["check", "-q", &files[0]])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(&format!("{}: ok (", files[0])), "{text}");
}

#[test]
fn parquet_testing_data() {
    let files = parquet_files(&testdata().join("parquet-testing/data"));
    assert!(files.len() > 50);
    let (code, findings, _) = check(&files);
    assert_eq!(code, 1);
    let known = expect(&[
        // Wrong CRCs on purpose; its column index is as below.
        (
            "datapage_v1-corrupt-checksum.parquet",
            &["error:crc", "error:column_index"],
        ),
        (
            "rle-dict-uncompressed-corrupt-checksum.parquet",
            &["error:crc"],
        ),
        // parquet-mr's test writer left a column index saying every page is all null, with
        // null counts of -1: a reader pruning pages by it skips every value.
        (
            "datapage_v1-snappy-compressed-checksum.parquet",
            &["error:column_index"],
        ),
        (
            "datapage_v1-uncompressed-checksum.parquet",
            &["error:column_index"],
        ),
        // parquet-mr 1.8 ordered decimal bytes as signed bytes, not as numbers: min 2.00
        // with 1.00 among the values.
        (
            "fixed_length_decimal.parquet",
            &["error:statistics", "error:page_statistics"],
        ),
        (
            "fixed_length_decimal_legacy.parquet",
            &["error:statistics", "error:page_statistics"],
        ),
        // A page of 1 GiB and 4 bytes decompressed, over the reader's limit: not checked.
        ("large_string_map.brotli.parquet", &["warning:page"]),
        // The footer's num_rows is 0, its row group holds 6 rows.
        ("repeated_no_annotation.parquet", &["warning:rows"]),
    ]);
    assert_eq!(kinds(&findings), known);
    // The corrupt CRC is found at its page.
    let crc = findings
        .iter()
        .find(|f| {
            f["check"] == "crc"
                && f["file"]
                    .as_str()
                    .unwrap()
                    .ends_with("rle-dict-uncompressed-corrupt-checksum.parquet")
        })
        .unwrap();
    assert_eq!(crc["row_group"], 0);
    assert_eq!(crc["column"], "long_field");
    assert_eq!(crc["page"], 0);
    assert_eq!(crc["offset"], 4);
}

#[test]
fn parquet_testing_bad_data() {
    let files = parquet_files(&testdata().join("parquet-testing/bad_data"));
    let (code, findings, _) = check(&files);
    assert_eq!(code, 1);
    let found = kinds(&findings);
    for f in &files {
        let name = Path::new(f).file_name().unwrap().to_str().unwrap();
        let got = found.get(name);
        if name == "ARROW-GH-43605.parquet" {
            // A bit width of 0 for the indices of a one-entry dictionary is valid: the
            // issue was a reader that crashed on it.
            assert!(got.is_none(), "{name}: {got:?}");
            continue;
        }
        let got = got.unwrap_or_else(|| panic!("{name}: nothing found"));
        assert!(
            got.iter().any(|k| k.starts_with("error:")),
            "{name}: {got:?}"
        );
    }
    // Repetition levels that start with 1.
    assert_eq!(
        found["ARROW-GH-45185.parquet"],
        ["error:page".to_string()].into()
    );
    // A required column with nulls: its values run out.
    assert_eq!(
        found["ARROW-GH-47662.parquet"],
        ["error:page".to_string()].into()
    );
}

#[test]
fn real_world_files_of_parquet_java_pyarrow_duckdb_and_polars() {
    let Some(py) = python() else { return };
    let out = Command::new(py)
        .arg(script("corpus.py"))
        .arg(testdata().join("real-world"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    let files: Vec<String> = listed
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    let writers = |w: &str| {
        listed
            .lines()
            .filter(|l| l.split('\t').nth(1).unwrap_or("").starts_with(w))
            .count()
    };
    assert!(
        writers("parquet-mr") > 100 && writers("parquet-cpp-arrow") > 100 && writers("DuckDB") > 20,
        "{listed}"
    );
    let mut findings = Vec::new();
    for batch in files.chunks(100) {
        findings.extend(check(batch).1);
    }
    let bloom: &[&str] = &["error:bloom_filter"];
    let utf8: &[&str] = &["warning:values"];
    let v2_rows: &[&str] = &["error:page"];
    let known = expect(&[
        // DuckDB's tests of broken Bloom filters.
        (
            "data__parquet-testing__bloom_filter_bad_length_range.parquet",
            bloom,
        ),
        (
            "data__parquet-testing__bloom_filter_bad_numbytes.parquet",
            bloom,
        ),
        (
            "data__parquet-testing__bloom_filter_short_numbytes.parquet",
            bloom,
        ),
        // Strings that are not UTF-8, on purpose.
        ("data__parquet-testing__invalid.parquet", utf8),
        ("data__parquet-testing__invalid_utf8_dba.parquet", utf8),
        (
            "data__parquet-testing__invalid_utf8_dictionary.parquet",
            utf8,
        ),
        ("data__parquet-testing__invalid_utf8_dlba.parquet", utf8),
        // And their statistics in parquet-cpp 17 leave the invalid value out.
        (
            "tests__assets__parquet-data__invalid_utf8.parquet",
            &[
                "error:page_statistics",
                "error:statistics",
                "warning:values",
            ],
        ),
        // pyarrow 8's v2 pages of repeated columns give num_rows as the number of values.
        (
            "data__parquet-testing__compression__generated__data_page=2_BROTLI.parquet",
            v2_rows,
        ),
        (
            "data__parquet-testing__compression__generated__data_page=2_GZIP.parquet",
            v2_rows,
        ),
        (
            "data__parquet-testing__compression__generated__data_page=2_LZ4.parquet",
            v2_rows,
        ),
        (
            "data__parquet-testing__compression__generated__data_page=2_NONE.parquet",
            v2_rows,
        ),
        (
            "data__parquet-testing__compression__generated__data_page=2_SNAPPY.parquet",
            v2_rows,
        ),
        (
            "data__parquet-testing__compression__generated__data_page=2_ZSTD.parquet",
            v2_rows,
        ),
        // pyarrow 4.0.1: null_count 0 for columns holding nulls.
        (
            "data__parquet-testing__h2oai__h2oai_group_small.parquet",
            &["error:page_statistics", "error:statistics"],
        ),
        // cudf's malformed test file (values run out).
        (
            "python__cudf__cudf__tests__data__parquet__nested-unsigned-malformed.parquet",
            &["error:page"],
        ),
        // parquet-mr's decimals ordered as signed bytes, as in fixed_length_decimal.parquet.
        (
            "spark__src__test__resources__test-data__dec-in-fixed-len.parquet",
            &["error:page_statistics", "error:statistics"],
        ),
    ]);
    assert_eq!(kinds(&findings), known);
}

/// CRC-32 (IEEE), as page CRCs and parq's footer index use.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xedb8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// A copy of `write.py`'s `target.parquet` changed by `f`, named `name`.
fn corrupt(name: &str, f: impl FnOnce(&mut Vec<u8>, &Value)) -> Option<String> {
    let (dir, info) = written()?;
    let mut bytes = std::fs::read(dir.join("target.parquet")).unwrap();
    f(&mut bytes, &info["target.parquet"]);
    let out = dir.join("corrupt");
    std::fs::create_dir_all(&out).unwrap();
    let p = out.join(name);
    std::fs::write(&p, bytes).unwrap();
    Some(p.to_str().unwrap().to_string())
}

fn num(v: &Value, k: &str) -> usize {
    v[k].as_u64().unwrap() as usize
}

fn hex(v: &Value, k: &str) -> Vec<u8> {
    let s = v[k].as_str().unwrap();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Replaces every `from` in `bytes[range]` by `to`; how many.
fn replace(bytes: &mut [u8], range: std::ops::Range<usize>, from: &[u8], to: &[u8]) -> usize {
    let mut n = 0;
    let mut i = range.start;
    while i + from.len() <= range.end {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + to.len()].copy_from_slice(to);
            n += 1;
        }
        i += 1;
    }
    n
}

fn footer_start(bytes: &[u8]) -> usize {
    let len = bytes.len();
    let footer = u32::from_le_bytes(bytes[len - 8..len - 4].try_into().unwrap()) as usize;
    len - 8 - footer
}

fn only(findings: &[Value], check: &str) -> Value {
    let f: Vec<&Value> = findings.iter().filter(|f| f["check"] == check).collect();
    assert!(!f.is_empty(), "no {check} finding in {findings:#?}");
    f[0].clone()
}

#[test]
fn a_flipped_byte_in_a_page_body_is_a_crc_error_at_that_page() {
    let Some(file) = corrupt("flipped.parquet", |b, i| {
        let last = num(i, "data_page_offset") + num(i, "total_compressed_size") - 1;
        b[last] ^= 0x01;
    }) else {
        return;
    };
    let (code, findings, _) = check(&[file]);
    assert_eq!(code, 1);
    let crc = only(&findings, "crc");
    assert_eq!(crc["severity"], "error");
    assert_eq!(
        (
            crc["row_group"].clone(),
            crc["column"].clone(),
            crc["page"].clone()
        ),
        (0.into(), "v".into(), 0.into())
    );
    assert_eq!(crc["offset"], 4);
}

#[test]
fn a_maximum_below_a_value_is_a_statistics_error() {
    let Some(file) = corrupt("stats.parquet", |b, i| {
        let (max, mut lower) = (hex(i, "max"), hex(i, "max"));
        lower[0] -= 1;
        let range = footer_start(b)..b.len() - 8;
        assert!(replace(b, range, &max, &lower) > 0);
    }) else {
        return;
    };
    let (code, findings, _) = check(&[file]);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "statistics");
    assert_eq!(
        (f["row_group"].clone(), f["column"].clone()),
        (0.into(), "v".into())
    );
    assert!(f.get("page").is_none());
    assert!(
        f["message"].as_str().unwrap().contains("above the maximum"),
        "{f}"
    );
}

#[test]
fn a_column_index_minimum_above_a_value_is_found_at_its_page() {
    let Some(file) = corrupt("column_index.parquet", |b, i| {
        let (min, mut higher) = (hex(i, "min"), hex(i, "min"));
        higher[0] += 1;
        let data_end = num(i, "data_page_offset") + num(i, "total_compressed_size");
        let bloom_end = num(i, "bloom_filter_offset") + num(i, "bloom_filter_length");
        let range = data_end.max(bloom_end)..footer_start(b);
        assert!(replace(b, range, &min, &higher) > 0);
    }) else {
        return;
    };
    let (code, findings, _) = check(&[file]);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "column_index");
    assert_eq!(
        (
            f["row_group"].clone(),
            f["column"].clone(),
            f["page"].clone()
        ),
        (0.into(), "v".into(), 0.into())
    );
    assert!(
        f["message"].as_str().unwrap().contains("below the minimum"),
        "{f}"
    );
}

#[test]
fn a_zeroed_bloom_filter_gives_false_negatives() {
    let Some(file) = corrupt("bloom.parquet", |b, i| {
        let (at, len) = (num(i, "bloom_filter_offset"), num(i, "bloom_filter_length"));
        // Past the filter's header (a few bytes of Thrift), the bitset.
        b[at + 32..at + len].fill(0);
    }) else {
        return;
    };
    let (code, findings, _) = check(&[file]);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "bloom_filter");
    assert_eq!(
        (f["row_group"].clone(), f["column"].clone()),
        (0.into(), "v".into())
    );
}

#[test]
fn a_footer_index_with_a_wrong_offset_is_reported() {
    let Some((dir, _)) = written() else { return };
    // parq writes a footer index (PQX1) by default.
    let good = dir.join("corrupt/parq.parquet");
    std::fs::create_dir_all(good.parent().unwrap()).unwrap();
    let st = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args([
            "convert",
            dir.join("pyarrow_v1.parquet").to_str().unwrap(),
            good.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(st.success());
    let (code, findings, _) = check(&[good.to_str().unwrap().to_string()]);
    assert_eq!((code, findings.len()), (0, 0), "{findings:#?}");
    let mut b = std::fs::read(&good).unwrap();
    let fs = footer_start(&b);
    assert_eq!(&b[fs - 4..fs], b"PQX1");
    let payload_len = u32::from_le_bytes(b[fs - 12..fs - 8].try_into().unwrap()) as usize;
    let payload = fs - 12 - payload_len;
    let rgs = u32::from_le_bytes(b[payload + 4..payload + 8].try_into().unwrap()) as usize;
    // The second chunk's start, one byte on; the payload's checksum made to match.
    let word = payload + 4 * (6 + 2 * rgs + 1);
    let v = u32::from_le_bytes(b[word..word + 4].try_into().unwrap()) + 1;
    b[word..word + 4].copy_from_slice(&v.to_le_bytes());
    let crc = crc32(&b[payload..payload + payload_len]);
    b[fs - 8..fs - 4].copy_from_slice(&crc.to_le_bytes());
    let bad = dir.join("corrupt/parq_bad_index.parquet");
    std::fs::write(&bad, b).unwrap();
    let (code, findings, _) = check(&[bad.to_str().unwrap().to_string()]);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "footer_index");
    assert_eq!(f["severity"], "error");
}

#[test]
fn unreadable_files_are_findings_and_the_others_are_still_checked() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check/unreadable");
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.parquet");
    std::fs::write(&junk, b"not a parquet file at all").unwrap();
    let good = testdata().join("parquet-testing/data/alltypes_plain.parquet");
    let files = [
        junk.to_str().unwrap().to_string(),
        good.to_str().unwrap().to_string(),
    ];
    let (code, findings, summaries) = check(&files);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["check"], "file");
    assert_eq!(summaries[1]["summary"]["errors"], 0);
    assert!(summaries[1]["summary"]["pages"].as_i64().unwrap() > 0);
}

/// A DOUBLE column of 100 values, 37 of them NaN, written by pyarrow and converted by
/// `parq convert --float-total-order`: it checks clean (nan_count, nan_counts and the
/// totalOrder bounds agree with the values); with its chunk `nan_count` changed to 36 it is
/// a statistics error.
#[test]
fn a_wrong_nan_count_is_a_statistics_error() {
    let Some(py) = python() else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("check/nan_count");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("src.parquet");
    let status = Command::new(py)
        .arg("-c")
        .arg(
            "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
             v = [float('nan') if i % 8 < 3 and i < 97 else i - 50.0 for i in range(100)]\n\
             assert sum(x != x for x in v) == 37\n\
             pq.write_table(pa.table({'v': v}), sys.argv[1])",
        )
        .arg(&src)
        .status()
        .unwrap();
    assert!(status.success());
    let out = dir.join("total.parquet");
    let status = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(["convert", "--float-total-order"])
        .arg(&src)
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let good = out.to_str().unwrap().to_string();
    let (code, findings, _) = check(std::slice::from_ref(&good));
    assert_eq!((code, findings.len()), (0, 0), "{findings:#?}");
    // nan_count (field 9, i64, right after the bool field 8): zigzag 37 = 0x4a.
    let mut bytes = std::fs::read(&out).unwrap();
    let start = footer_start(&bytes);
    let end = bytes.len() - 8;
    let n = replace(&mut bytes, start..end, &[0x16, 0x4a], &[0x16, 0x48]);
    assert_eq!(n, 1, "one chunk nan_count in the footer");
    let bad = dir.join("bad.parquet");
    std::fs::write(&bad, bytes).unwrap();
    let (code, findings, _) = check(&[bad.to_str().unwrap().to_string()]);
    assert_eq!(code, 1);
    let f = only(&findings, "statistics");
    assert!(
        f["message"].as_str().unwrap().contains("nan_count is 36"),
        "{f}"
    );
}
