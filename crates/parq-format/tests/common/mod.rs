//! Shared helpers of the integration tests: where the corpus is.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use parq_format::footer::{decode_metadata, metadata_slice, DecodeOptions};
use parq_format::metadata::ColumnChunk;

/// The shared test data directory: `$PARQ_TESTDATA`, else `../shared/testdata` beside the
/// repository.
pub fn testdata() -> PathBuf {
    if let Ok(p) = std::env::var("PARQ_TESTDATA") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every file of the corpus that may hold Parquet bytes: `.parquet`, `.parquet.encrypted`,
/// fuzzer cases without extension, ... (documentation and side files excluded), sorted.
pub fn corpus_files() -> Vec<PathBuf> {
    let dir = testdata();
    assert!(
        dir.is_dir(),
        "{} is missing (set PARQ_TESTDATA to the shared test data directory)",
        dir.display()
    );
    let mut out = Vec::new();
    walk(&dir, &mut out);
    out.retain(|p| {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        !matches!(
            ext,
            "md" | "json" | "csv" | "py" | "txt" | "value" | "metadata"
        ) && p
            .file_name()
            .is_some_and(|n| n != "COMMIT" && n != "LICENSE.txt")
    });
    out.sort();
    out
}

/// A corpus file by its path relative to the test data directory.
#[allow(dead_code)]
pub fn corpus_file(rel: &str) -> PathBuf {
    testdata().join(rel)
}

/// Everything a chunk holds, with byte ranges resolved against `buf`.
pub fn fingerprint(c: &ColumnChunk, buf: &[u8], with_stats: bool) -> String {
    let stats = if with_stats {
        c.statistics().map(|s| {
            format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                s.min.map(|r| r.slice(buf).to_vec()),
                s.max.map(|r| r.slice(buf).to_vec()),
                s.min_value.map(|r| r.slice(buf).to_vec()),
                s.max_value.map(|r| r.slice(buf).to_vec()),
                s.null_count,
                s.distinct_count,
                s.is_min_value_exact,
                s.is_max_value_exact
            )
        })
    } else {
        None
    };
    format!(
        "{} {} {:?} {:?} {} {} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        c.file_offset(),
        c.has_metadata(),
        c.physical_type(),
        c.encodings().iter().collect::<Vec<_>>(),
        c.num_values(),
        c.total_compressed_size(),
        c.total_uncompressed_size(),
        c.data_page_offset(),
        c.dictionary_page_offset(),
        c.index_page_offset(),
        c.offset_index_offset(),
        c.column_index_length(),
        c.bloom_filter_offset(),
        c.file_path().map(|r| r.slice(buf).to_vec()),
        stats,
        c.encoding_stats(buf).map(|r| r.ok()),
        c.size_statistics(buf).map(|r| r.ok()),
        c.key_value_metadata(buf).map(|r| r.map(|v| v.len()).ok()),
    )
}

/// The corpus footers that decode, except fuzzer output: a skipped chunk is skipped by its
/// declared wire types while a decoded one is read by the schema (as parquet-cpp does), so a
/// fuzzed footer whose declared types lie may decode fully yet fail, cleanly, when skipped.
/// (That nothing panics on those is checked in `hostile.rs` and by the fuzz targets.)
pub fn footers() -> Vec<(String, Vec<u8>)> {
    corpus_files()
        .into_iter()
        .filter(|f| !f.to_string_lossy().contains("/fuzzing/"))
        .filter_map(|f| {
            let bytes = std::fs::read(&f).ok()?;
            let footer = metadata_slice(&bytes).ok()?.to_vec();
            decode_metadata(&footer, &DecodeOptions::default()).ok()?;
            Some((f.display().to_string(), footer))
        })
        .collect()
}
