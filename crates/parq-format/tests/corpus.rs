//! Every Parquet file of the shared corpus: the footer decodes or fails with a clear error
//! (never a panic), decode -> encode -> decode is the identity, and re-encoding gives the same
//! bytes for the footers that standard writers produced (or, for the few listed footers whose
//! Thrift no writer reproduces, the same model).

mod common;

use std::path::Path;

use parq_format::footer::{decode_file_metadata, metadata_slice, DecodeOptions};

#[test]
fn every_corpus_footer_decodes_or_fails_cleanly() {
    let files = common::corpus_files();
    // 1173 candidate files at the time of writing (parquet-testing, arrow-testing and
    // real-world).
    assert!(
        files.len() >= 1173,
        "corpus incomplete: {} files",
        files.len()
    );
    let mut ok = 0;
    let mut failed = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        match decode_file_metadata(&bytes, &DecodeOptions::default()) {
            Ok(_) => ok += 1,
            Err(e) => {
                let msg = e.to_string();
                assert!(!msg.is_empty());
                failed.push(format!("{}: {msg}", f.display()));
            }
        }
    }
    eprintln!(
        "{ok} decoded, {} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    // 987 footers decoded at the time of writing.
    assert!(ok >= 987, "only {ok} footers decoded");
}

/// Footers whose Thrift is non-canonical in a way that carries no information, so that no
/// writer re-encodes them byte for byte: each is checked to decode, from parq's (canonical)
/// re-encoding, to the same model, byte arena included. Paths are relative to the test data
/// directory; each entry must still differ (an entry that re-encodes identically is stale).
const NON_CANONICAL: &[(&str, &str)] = &[
    (
        "real-world/dask__fastparquet/test-data__no_columns_new.parquet",
        // fastparquet writes the empty `columns` list of its row group with the header byte
        // 0x00: element type 0, which is no wire type (it has no element to take a type
        // from). parq writes the list's declared type, struct: 0x0c.
        "empty list declared with element type 0",
    ),
    (
        "real-world/duckdb__duckdb/data__parquet-testing__broken__internal_6165.parquet",
        // A deliberately broken file (DuckDB's broken/ test data): its row group's empty
        // `columns` list is declared as a list of booleans (header 0x01, written back as
        // 0x0c), and the footer length covers 57 bytes after the end of FileMetaData (the
        // remains of another footer), which are no part of the model.
        "empty list declared as list<bool>; 57 bytes after FileMetaData",
    ),
];

#[test]
fn reencoding_gives_identical_bytes() {
    let testdata = common::testdata();
    let mut identical = 0;
    let mut non_canonical = Vec::new();
    let mut differing = Vec::new();
    for f in common::corpus_files() {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(footer) = metadata_slice(&bytes) else {
            continue;
        };
        let Ok(md) = parq_format::footer::decode_metadata(footer, &DecodeOptions::default()) else {
            continue;
        };
        let mut out = Vec::new();
        md.encode(&mut out).unwrap();
        // decode -> encode -> decode must give the same model.
        let md2 = parq_format::footer::decode_metadata(&out, &DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{}: re-encoded footer does not decode: {e}", f.display()));
        let mut out2 = Vec::new();
        md2.encode(&mut out2).unwrap();
        assert_eq!(out, out2, "{}: encode is not stable", f.display());
        // A plaintext footer of an encrypted file is followed by its 28-byte signature
        // (nonce and tag), which is not part of FileMetaData.
        let signed = md.encryption_algorithm.is_some() && footer.len() == out.len() + 28;
        let same = out == footer || (signed && footer.starts_with(&out));
        let rel = f.strip_prefix(&testdata).unwrap_or(&f);
        if let Some((path, why)) = NON_CANONICAL.iter().find(|(p, _)| rel == Path::new(p)) {
            assert!(
                !same,
                "{path} re-encodes identically now: remove it from NON_CANONICAL"
            );
            // Nothing is lost: the canonical re-encoding decodes to the same model.
            assert_eq!(
                format!("{md2:?}"),
                format!("{md:?}"),
                "{path} ({why}): the re-encoded footer decodes to another model"
            );
            non_canonical.push(*path);
        } else if same {
            identical += 1;
        } else {
            differing.push(f.display().to_string());
        }
    }
    eprintln!(
        "{identical} identical, {} non-canonical; differing:\n{}",
        non_canonical.len(),
        differing.join("\n")
    );
    assert_eq!(
        non_canonical.len(),
        NON_CANONICAL.len(),
        "non-canonical footers missing from the corpus or not decoded: only {non_canonical:?}"
    );
    // Footers from standard writers (everything but fuzzer output and deliberately broken
    // files) must re-encode to the same bytes.
    let unexpected: Vec<_> = differing
        .iter()
        .filter(|p| !p.contains("/fuzzing/") && !p.contains("/bad_data/"))
        .collect();
    assert!(
        unexpected.is_empty(),
        "re-encoded bytes differ: {unexpected:?}"
    );
    // 913 identical at the time of writing.
    assert!(identical >= 913, "only {identical} identical");
}
