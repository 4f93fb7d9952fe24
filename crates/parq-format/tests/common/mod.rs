//! Shared helpers of the integration tests: where the corpus is.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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
