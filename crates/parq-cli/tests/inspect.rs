//! The inspection verbs against peers' views of the same files:
//!
//! - `parq pages --json`: every page's type, encoding, num_values, uncompressed size (and
//!   num_nulls / num_rows of v2 pages) equal parquet 60.1's page reader over corpus files
//!   (v1, v2, dictionaries, nesting, CRCs, codecs); header plus body sizes equal its offset
//!   index's `compressed_page_size`; CRCs of the checksum files verify, the corrupt one not;
//! - `parq index --json`: page locations and null counts equal parquet 60.1's page index;
//! - `parq footer --json`: the FileMetaData size equals pyarrow's `serialized_size`,
//!   created_by and each key-value entry the Thrift size of pyarrow's values, column data
//!   the sum of pyarrow's `total_compressed_size`, Bloom filters DuckDB's
//!   `parquet_metadata()` lengths, the page index parquet 60.1's index lengths;
//! - `parq bloom --json`: "definitely not" exactly where DuckDB's `parquet_bloom_probe()`
//!   excludes, on a file DuckDB writes and on parquet-testing's Bloom filter file;
//! - `parq dictionary --json`: the entries equal pyarrow's `read_dictionary`;
//! - encrypted files with keys, and errors (no keys, unknown columns, row groups, values,
//!   files that are not Parquet) exit 1 with a message; hostile files never crash a verb.
//!
//! Python with pyarrow and DuckDB comes from `.venv` (or `$PARQ_PYTHON`); without it these
//! tests fail.

mod common;

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{parq, python_required};
use parquet::column::page::Page;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaDataReader};
use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::Value;

fn data(name: &str) -> String {
    let p = common::testdata().join("parquet-testing/data").join(name);
    assert!(p.exists(), "missing test file {}", p.display());
    p.to_str().unwrap().to_string()
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = parq(args);
    assert_eq!(code, 0, "parq {args:?}: {err}");
    out
}

fn fails(args: &[&str], message: &str) {
    let (code, _, err) = parq(args);
    assert_eq!(code, 1, "parq {args:?} should fail");
    assert!(err.starts_with("parq: "), "parq {args:?}: {err}");
    assert!(err.contains(message), "parq {args:?}: {err}");
    assert!(!err.contains("panicked"), "parq {args:?}: {err}");
}

fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn peers(args: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inspect/peers.py");
    let out = Command::new(python_required())
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "peers.py {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn tmp(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("inspect")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const PAGE_FILES: &[&str] = &[
    "alltypes_plain.parquet",
    "alltypes_dictionary.parquet",
    "alltypes_tiny_pages.parquet",
    "datapage_v1-snappy-compressed-checksum.parquet",
    "datapage_v1-uncompressed-checksum.parquet",
    "datapage_v2.snappy.parquet",
    "delta_byte_array.parquet",
    "delta_encoding_optional_column.parquet",
    "byte_stream_split.zstd.parquet",
    "nested_lists.snappy.parquet",
    "nested_maps.snappy.parquet",
    "nulls.snappy.parquet",
    "plain-dict-uncompressed-checksum.parquet",
    "rle-dict-snappy-checksum.parquet",
    "int32_with_null_pages.parquet",
    "large_string_map.brotli.parquet",
    "lz4_raw_compressed.parquet",
    "rle_boolean_encoding.parquet",
    "fixed_length_decimal.parquet",
];

/// A page as compared: row group, column, type, encoding, num_values, uncompressed bytes,
/// and for v2 pages num_nulls and num_rows (as `num_nulls * 10^6 + num_rows`).
type PageRow = (usize, usize, String, String, i64, usize, Option<i64>);

/// parquet 60.1's pages of a file.
fn peer_pages(path: &str) -> Vec<PageRow> {
    let reader = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for i in 0..reader.num_row_groups() {
        let rg = reader.get_row_group(i).unwrap();
        for j in 0..rg.num_columns() {
            for page in rg.get_column_page_reader(j).unwrap() {
                let page = page.unwrap();
                let v2 = match &page {
                    Page::DataPageV2 {
                        num_nulls,
                        num_rows,
                        ..
                    } => Some(i64::from(*num_nulls) * 1_000_000 + i64::from(*num_rows)),
                    _ => None,
                };
                out.push((
                    i,
                    j,
                    format!("{:?}", page.page_type()),
                    format!("{:?}", page.encoding()),
                    i64::from(page.num_values()),
                    page.buffer().len(),
                    v2,
                ));
            }
        }
    }
    out
}

#[test]
fn pages_match_parquet_page_reader() {
    for name in PAGE_FILES {
        let path = data(name);
        let peer = peer_pages(&path);
        let md = SerializedFileReader::new(File::open(&path).unwrap())
            .unwrap()
            .metadata()
            .clone();
        let leaf_of: HashMap<String, usize> = (0..md.file_metadata().schema_descr().num_columns())
            .map(|j| {
                let c = md.file_metadata().schema_descr().column(j);
                (c.path().string(), j)
            })
            .collect();
        let ours: Vec<_> = lines(&ok(&["pages", "--json", &path]))
            .into_iter()
            .map(|p| {
                let v2 = p
                    .get("num_rows")
                    .map(|r| p["num_nulls"].as_i64().unwrap() * 1_000_000 + r.as_i64().unwrap());
                (
                    p["row_group"].as_u64().unwrap() as usize,
                    leaf_of[p["column"].as_str().unwrap()],
                    p["type"].as_str().unwrap().to_string(),
                    p["encoding"].as_str().unwrap().to_string(),
                    p["num_values"].as_i64().unwrap(),
                    p["uncompressed_page_size"].as_u64().unwrap() as usize,
                    v2,
                )
            })
            .collect();
        assert_eq!(ours, peer, "{name}");
    }
}

#[test]
fn page_sizes_match_the_offset_index_of_parquet() {
    for name in [
        "alltypes_tiny_pages.parquet",
        "int32_with_null_pages.parquet",
    ] {
        let path = data(name);
        let md = ParquetMetaDataReader::new()
            .with_page_index_policy(PageIndexPolicy::Optional)
            .parse_and_finish(&File::open(&path).unwrap())
            .unwrap();
        let names: Vec<String> = (0..md.file_metadata().schema_descr().num_columns())
            .map(|j| md.file_metadata().schema_descr().column(j).path().string())
            .collect();
        let mut checked = 0;
        for p in lines(&ok(&["pages", "--json", &path])) {
            if p["type"] == "DICTIONARY_PAGE" {
                continue;
            }
            let rg = p["row_group"].as_u64().unwrap() as usize;
            let j = names.iter().position(|n| n == &p["column"]).unwrap();
            let pi = md.page_index_for_row_group(rg);
            let oi = pi.offset_index(j).unwrap();
            let loc = oi
                .page_locations()
                .iter()
                .find(|l| l.offset == p["offset"].as_i64().unwrap())
                .unwrap_or_else(|| panic!("{name}: no location for {p}"));
            let size =
                p["header_size"].as_i64().unwrap() + p["compressed_page_size"].as_i64().unwrap();
            assert_eq!(size, i64::from(loc.compressed_page_size), "{name}: {p}");
            checked += 1;
        }
        assert!(checked >= 10, "{name}: {checked} pages");
    }
}

#[test]
fn page_crcs_verify() {
    for (name, all_match) in [
        ("datapage_v1-snappy-compressed-checksum.parquet", true),
        ("plain-dict-uncompressed-checksum.parquet", true),
        ("datapage_v1-corrupt-checksum.parquet", false),
    ] {
        let pages = lines(&ok(&["pages", "--json", &data(name)]));
        assert!(pages.iter().all(|p| p.get("crc").is_some()), "{name}");
        let matching = pages.iter().all(|p| p["crc_matches"] == true);
        assert_eq!(matching, all_match, "{name}");
    }
    let text = ok(&["pages", &data("datapage_v1-corrupt-checksum.parquet")]);
    assert!(text.contains("MISMATCH"), "{text}");
}

#[test]
fn pages_columns_restrict_and_text_shows_statistics() {
    let path = data("alltypes_tiny_pages.parquet");
    let pages = lines(&ok(&["pages", "--json", "--columns", "id,bool_col", &path]));
    assert!(pages
        .iter()
        .all(|p| p["column"] == "id" || p["column"] == "bool_col"));
    assert!(pages.iter().any(|p| p["column"] == "bool_col"));
    let text = ok(&[
        "pages",
        "--columns",
        "a",
        &data("datapage_v2.snappy.parquet"),
    ]);
    assert!(text.contains("min=abc max=abc nulls=1"), "{text}");
    fails(&["pages", "--columns", "nope", &path], "no column `nope`");
}

#[test]
fn index_matches_parquet_page_index() {
    for name in [
        "alltypes_tiny_pages.parquet",
        "int32_with_null_pages.parquet",
    ] {
        let path = data(name);
        let md = ParquetMetaDataReader::new()
            .with_page_index_policy(PageIndexPolicy::Optional)
            .parse_and_finish(&File::open(&path).unwrap())
            .unwrap();
        let doc: Value = serde_json::from_str(&ok(&["index", "--json", &path])).unwrap();
        let groups = doc.as_array().unwrap();
        assert_eq!(groups.len(), md.num_row_groups(), "{name}");
        for g in groups {
            let rg = g["row_group"].as_u64().unwrap() as usize;
            let pi = md.page_index_for_row_group(rg);
            for c in g["columns"].as_array().unwrap() {
                let j = c["column"].as_u64().unwrap() as usize;
                let ours: Vec<(i64, i64, i64)> = c["offset_index"]["page_locations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| {
                        (
                            l["offset"].as_i64().unwrap(),
                            l["compressed_page_size"].as_i64().unwrap(),
                            l["first_row_index"].as_i64().unwrap(),
                        )
                    })
                    .collect();
                let theirs: Vec<(i64, i64, i64)> = pi
                    .offset_index(j)
                    .unwrap()
                    .page_locations()
                    .iter()
                    .map(|l| {
                        (
                            l.offset,
                            i64::from(l.compressed_page_size),
                            l.first_row_index,
                        )
                    })
                    .collect();
                assert_eq!(ours, theirs, "{name} rg {rg} col {j}");
                let nulls: Option<Vec<i64>> = c
                    .get("column_index")
                    .and_then(|ci| ci["null_counts"].as_array())
                    .map(|a| a.iter().map(|v| v.as_i64().unwrap()).collect());
                let theirs = pi.column_index(j).and_then(|ci| ci.null_counts());
                assert_eq!(nulls.as_ref(), theirs, "{name} rg {rg} col {j}");
            }
        }
        let text = ok(&["index", &path]);
        assert!(text.contains("offset index:") && text.contains("column index:"));
    }
    let none = ok(&["index", &data("alltypes_plain.parquet")]);
    assert!(none.starts_with("no page index"), "{none}");
}

/// The Thrift compact size of an unsigned varint.
fn varint(v: usize) -> u64 {
    let mut n = 1;
    let mut v = v >> 7;
    while v > 0 {
        n += 1;
        v >>= 7;
    }
    n
}

#[test]
fn footer_sizes_match_pyarrow_duckdb_and_parquet() {
    let dir = tmp("footer");
    let bloom = dir.join("bloom.parquet");
    let bloom = bloom.to_str().unwrap();
    peers(&["write_bloom", bloom]);
    for path in [
        data("alltypes_tiny_pages.parquet"),
        data("data_index_bloom_encoding_stats.parquet"),
        data("nested_maps.snappy.parquet"),
        bloom.to_string(),
    ] {
        let peer = peers(&["footer", &path]);
        let ours: Value = serde_json::from_str(&ok(&["footer", "--json", &path])).unwrap();
        assert_eq!(ours["file_metadata"], peer["serialized_size"], "{path}");
        assert_eq!(ours["footer_length"], peer["serialized_size"], "{path}");
        let created_by = peer["created_by"].as_str().unwrap().len();
        assert_eq!(
            ours["created_by"].as_u64().unwrap(),
            1 + varint(created_by) + created_by as u64,
            "{path}"
        );
        let kv = peer["key_value_metadata"].as_array().unwrap();
        let entries = ours["key_value_metadata"]["entries"].as_array().unwrap();
        assert_eq!(entries.len(), kv.len(), "{path}");
        for k in kv {
            let (kl, vl) = (
                k[1].as_u64().unwrap() as usize,
                k[2].as_u64().unwrap() as usize,
            );
            // Two field headers, two lengths, the bytes, the STOP.
            let want = 3 + varint(kl) + varint(vl) + (kl + vl) as u64;
            let e = entries.iter().find(|e| e["key"] == k[0]).unwrap();
            assert_eq!(e["bytes"].as_u64().unwrap(), want, "{path}");
        }
        let data_bytes: u64 = peer["total_compressed_size"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(
            ours["column_chunk_data"].as_u64().unwrap(),
            data_bytes,
            "{path}"
        );
        let blooms: Vec<u64> = peer["bloom_filter_lengths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap_or(0))
            .collect();
        assert_eq!(
            ours["bloom_filters"]["count"].as_u64().unwrap(),
            blooms.len() as u64,
            "{path}"
        );
        if ours["bloom_filters"]["without_length"] == 0 {
            assert_eq!(
                ours["bloom_filters"]["bytes"].as_u64().unwrap(),
                blooms.iter().sum::<u64>(),
                "{path}"
            );
        }
        let md = ParquetMetaDataReader::new()
            .parse_and_finish(&File::open(&path).unwrap())
            .unwrap();
        let (mut ci, mut oi) = (0u64, 0u64);
        for g in md.row_groups() {
            for c in g.columns() {
                ci += c.column_index_length().unwrap_or(0) as u64;
                oi += c.offset_index_length().unwrap_or(0) as u64;
            }
        }
        assert_eq!(
            ours["page_index"]["column_index"].as_u64().unwrap(),
            ci,
            "{path}"
        );
        assert_eq!(
            ours["page_index"]["offset_index"].as_u64().unwrap(),
            oi,
            "{path}"
        );
        assert_eq!(
            ours["row_groups"]["count"].as_u64().unwrap(),
            peer["num_row_groups"].as_u64().unwrap()
        );
        let text = ok(&["footer", &path]);
        assert!(
            text.contains("FileMetaData:") && text.contains("schema"),
            "{text}"
        );
    }
}

#[test]
fn bloom_matches_duckdb_probe() {
    let dir = tmp("bloom");
    let file = dir.join("bloom.parquet");
    let file = file.to_str().unwrap();
    peers(&["write_bloom", file]);
    let cases: Vec<(String, String, Vec<&str>)> = vec![
        (
            file.to_string(),
            "name".into(),
            vec!["name_0", "name_49", "name_50", "nope", ""],
        ),
        (
            file.to_string(),
            "code".into(),
            vec!["0", "3", "117", "4", "1000"],
        ),
        (
            file.to_string(),
            "day".into(),
            vec!["2024-01-01", "2024-01-30", "2024-01-31", "2023-12-31"],
        ),
        (
            data("data_index_bloom_encoding_stats.parquet"),
            "String".into(),
            vec!["Hello", "are", "you", "nothing", "Hello!"],
        ),
    ];
    let mut excluded = 0;
    for (path, column, values) in &cases {
        let mut args = vec!["bloom", path.as_str(), column.as_str()];
        args.extend(values);
        let peer = peers(&args);
        let mut ours_args = vec![
            "bloom",
            "--json",
            "--column",
            column.as_str(),
            path.as_str(),
        ];
        ours_args.extend(values);
        let ours = lines(&ok(&ours_args));
        for v in values {
            let mut not: Vec<u64> = ours
                .iter()
                .filter(|o| o["value"] == *v && o["result"] == "definitely_not")
                .map(|o| o["row_group"].as_u64().unwrap())
                .collect();
            not.sort_unstable();
            let want: Vec<u64> = peer[v]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(not, want, "{path} {column} {v:?}");
            excluded += not.len();
        }
    }
    assert!(excluded > 3, "{excluded} exclusions");
    let text = ok(&["bloom", file, "--column", "name", "name_1", "zzz"]);
    assert!(text.contains("might contain") && text.contains("definitely not"));
    let none = ok(&[
        "bloom",
        &data("alltypes_plain.parquet"),
        "--column",
        "id",
        "1",
    ]);
    assert!(none.contains("no Bloom filter"), "{none}");
    fails(
        &["bloom", file, "--column", "day", "2024-13-01"],
        "is not a DATE",
    );
    fails(&["bloom", file, "--column", "code", "x1"], "is not an");
}

#[test]
fn dictionary_matches_pyarrow() {
    let dir = tmp("dictionary");
    let file = dir.join("dict.parquet");
    let file = file.to_str().unwrap();
    peers(&["write_bloom", file]);
    for (path, column) in [(file.to_string(), "name")] {
        let peer = peers(&["dictionary", &path, column]);
        let ours = lines(&ok(&["dictionary", "--json", "--column", column, &path]));
        let groups = peer.as_array().unwrap();
        assert_eq!(ours.len(), groups.len(), "{path}");
        for (o, p) in ours.iter().zip(groups) {
            assert_eq!(&o["values"], p, "{path}");
            assert_eq!(
                o["num_values"].as_u64().unwrap(),
                p.as_array().unwrap().len() as u64
            );
        }
        let one = lines(&ok(&[
            "dictionary",
            "--json",
            "--column",
            column,
            "--row-group",
            "0",
            &path,
        ]));
        assert_eq!(one.len(), 1);
        assert_eq!(one[0]["values"], groups[0]);
    }
    let text = ok(&["dictionary", "--column", "name", file]);
    assert!(text.contains("  0: name_"), "{text}");
    fails(
        &["dictionary", "--column", "name", "--row-group", "9", file],
        "row group 9 does not exist",
    );
    fails(
        &[
            "dictionary",
            "--column",
            "id",
            &data("alltypes_tiny_pages_plain.parquet"),
        ],
        "no column chunk has a dictionary page",
    );
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn encrypted_files_need_their_keys() {
    let path = data("uniform_encryption.parquet.encrypted");
    let key = hex("0123456789012345");
    let pages = lines(&ok(&["pages", "--json", "--footer-key", &key, &path]));
    assert!(!pages.is_empty());
    let index = ok(&["index", "--footer-key", &key, &path]);
    assert!(!index.is_empty());
    let footer: Value =
        serde_json::from_str(&ok(&["footer", "--json", "--footer-key", &key, &path])).unwrap();
    assert_eq!(footer["magic"], "PARE");
    assert!(footer["file_crypto_metadata"].as_u64().unwrap() > 0);
    fails(&["pages", &path], "");
    fails(&["index", &path], "");
    fails(
        &["pages", "--footer-key", &hex("0000000000000000"), &path],
        "",
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tmp("bad");
    let text = dir.join("text.parquet");
    std::fs::write(&text, b"not parquet at all, just some text").unwrap();
    let text = text.to_str().unwrap();
    let whole = std::fs::read(data("alltypes_plain.parquet")).unwrap();
    let cut = dir.join("cut.parquet");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let cut = cut.to_str().unwrap();
    for f in [text, cut] {
        for args in [
            vec!["pages", f],
            vec!["index", f],
            vec!["footer", f],
            vec!["dictionary", "--column", "id", f],
            vec!["bloom", "--column", "id", f, "1"],
        ] {
            fails(&args, f);
        }
    }
    let plain = data("alltypes_plain.parquet");
    fails(
        &["dictionary", "--column", "nope", &plain],
        "no column `nope`",
    );
    fails(
        &["bloom", "--column", "nope", &plain, "1"],
        "no column `nope`",
    );
    // A page header overwritten: the pages verb names the page.
    let mut broken = whole.clone();
    for b in &mut broken[4..20] {
        *b = 0xff;
    }
    let bad = dir.join("header.parquet");
    std::fs::write(&bad, &broken).unwrap();
    fails(&["pages", bad.to_str().unwrap()], "header.parquet");
}

#[test]
fn hostile_files_never_crash_a_verb() {
    let root = common::testdata();
    let mut files = Vec::new();
    for dir in ["parquet-testing/bad_data", "arrow-testing/parquet/fuzzing"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/claimed_slots.parquet"));
    files.sort();
    assert!(files.len() > 20, "{} files", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let f = f.to_str().unwrap();
        for args in [
            vec!["pages", "--json", f],
            vec!["index", "--json", f],
            vec!["footer", "--json", f],
        ] {
            let script = "ulimit -v 2097152; exec timeout 120 \"$0\" \"$@\"";
            let out = Command::new("sh")
                .arg("-c")
                .arg(script)
                .arg(env!("CARGO_BIN_EXE_parq"))
                .args(&args)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(0) => {}
                Some(1) if err.starts_with("parq: ") && !err.contains("panicked") => {}
                code => failures.push(format!("parq {}: {code:?} {err}", args.join(" "))),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
