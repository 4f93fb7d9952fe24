//! The `parq` binary end to end: output on corpus files, and clean errors (message on stderr,
//! exit code 1, no panic) on bad input.

mod common;

use common::{parq, testdata};

#[test]
fn schema_prints_the_message_format() {
    let f = testdata().join("parquet-testing/data/nested_lists.snappy.parquet");
    let (code, out, _) = parq(&["schema", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.starts_with("message spark_schema {\n"), "{out}");
    assert!(
        out.contains("  optional group a (LIST) {\n    repeated group list {\n"),
        "{out}"
    );
    assert!(
        out.contains("              optional binary element (UTF8);\n"),
        "{out}"
    );
    assert!(out.ends_with("  required int32 b;\n}\n"), "{out}");
}

#[test]
fn meta_json_has_thrift_field_names_and_hex_statistics() {
    let f = testdata().join("parquet-testing/data/alltypes_tiny_pages.parquet");
    let (code, out, err) = parq(&["meta", f.to_str().unwrap(), "--json", "--page-index"]);
    assert_eq!(code, 0, "{err}");
    for key in [
        "\"version\": 1",
        "\"num_rows\": 7300",
        "\"path\": [\n",
        "\"physical_type\": \"INT32\"",
        "\"codec\": \"UNCOMPRESSED\"",
        "\"total_compressed_size\": 37325",
        "\"page_locations\": [",
        "\"boundary_order\": \"UNORDERED\"",
    ] {
        assert!(out.contains(key), "missing {key}");
    }
    // The id column's min statistic is 0 as a little-endian INT32.
    assert!(out.contains("\"min_value\": \"00000000\""));
}

#[test]
fn bad_input_is_a_clean_error() {
    let dir = std::env::temp_dir().join(format!("parq-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let short = dir.join("short.parquet");
    std::fs::write(&short, b"PAR1").unwrap();
    let truncated = dir.join("truncated.parquet");
    let good =
        std::fs::read(testdata().join("parquet-testing/data/alltypes_plain.parquet")).unwrap();
    let mut cut = good.clone();
    cut.truncate(good.len() - 10);
    cut.extend_from_slice(&good[good.len() - 8..]);
    std::fs::write(&truncated, &cut).unwrap();
    let encrypted = testdata().join("parquet-testing/data/uniform_encryption.parquet.encrypted");
    for (f, want) in [
        (dir.join("missing.parquet"), "No such file"),
        (short, "too short"),
        (truncated, "at byte offset"),
        (encrypted, "decryption keys"),
    ] {
        for cmd in [&["meta"][..], &["meta", "--json"], &["schema"]] {
            let mut args = cmd.to_vec();
            args.insert(1, f.to_str().unwrap());
            let (code, out, err) = parq(&args);
            assert_eq!(code, 1, "{args:?}: {err}");
            assert!(out.is_empty(), "{args:?}");
            assert!(
                err.starts_with("parq: ") && err.contains(want),
                "{args:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_crc_is_off_by_default_and_names_the_page_when_on() {
    let f = testdata().join("parquet-testing/data/datapage_v1-corrupt-checksum.parquet");
    let f = f.to_str().unwrap();
    let (code, out, err) = parq(&["cat", "--format", "csv", "--limit", "3", f]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
    for cmd in [
        vec!["cat", "--verify-crc", f],
        vec!["convert", "--verify-crc", f, "/dev/null"],
    ] {
        let (code, _, err) = parq(&cmd);
        assert_eq!(code, 1, "{cmd:?}");
        assert!(
            err.contains("CRC") && err.contains("page"),
            "{cmd:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn invalid_utf8_is_an_error_or_binary_on_request() {
    let f = testdata()
        .join("real-world/Eventual-Inc__Daft/tests__assets__parquet-data__invalid_utf8.parquet");
    let f = f.to_str().unwrap();
    let (code, _, err) = parq(&["cat", f]);
    assert_eq!(code, 1);
    assert!(
        err.contains("invalid_string") && err.contains("not valid UTF-8") && err.contains("row 0"),
        "{err}"
    );
    let (code, out, err) = parq(&["cat", "--invalid-utf8", "binary", "--format", "csv", f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() >= 2, "{out}");
    let (code, _, err) = parq(&["cat", "--invalid-utf8", "lenient", f]);
    assert_eq!(code, 2, "{err}");
}
