//! Footers written today by pyarrow, DuckDB, polars and fastparquet (from the pinned test venv,
//! `scripts/venv.sh`): each decodes, and re-encodes to the very same bytes.
//!
//! The files are written by `tests/peer_writers.py` into a temporary directory. The test
//! fails (it does not skip) when the venv is missing: run `bash scripts/venv.sh` first, as
//! `scripts/test.sh` does.

mod common;

use parq_format::footer::{decode_metadata, metadata_slice, DecodeOptions};
use std::path::Path;
use std::process::Command;

#[test]
fn footers_of_current_writers_round_trip_byte_for_byte() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = std::env::var_os("PARQ_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join(".venv/bin/python"));
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/venv.sh` (scripts/test.sh does)",
        python.display()
    );
    let dir = std::env::temp_dir().join(format!("parq-peer-writers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer_writers.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "peer_writers.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 8,
        "expected files from every writer, got {files:?}"
    );
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let footer = metadata_slice(&bytes).unwrap();
        let md = decode_metadata(footer, &DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut again = Vec::new();
        md.encode(&mut again).unwrap();
        assert!(
            again == footer,
            "{}: re-encoded footer differs ({} vs {} bytes)",
            f.display(),
            again.len(),
            footer.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
