//! Every Parquet file of the shared corpus: the footer decodes or fails with a clear error
//! (never a panic), decode -> encode -> decode is the identity, and re-encoding gives the same
//! bytes for the footers that standard writers produced.

mod common;

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

#[test]
fn reencoding_gives_identical_bytes() {
    let mut identical = 0;
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
        if out == footer || (signed && footer.starts_with(&out)) {
            identical += 1;
        } else {
            differing.push(f.display().to_string());
        }
    }
    eprintln!(
        "{identical} identical; differing:\n{}",
        differing.join("\n")
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
    // 909 identical at the time of writing.
    assert!(identical >= 909, "only {identical} identical");
}
