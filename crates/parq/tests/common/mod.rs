//! Helpers shared by the integration tests of `parq` (each test binary includes this module
//! and uses a part of it): the pinned Python test venv, temporary directories, and the Arrow
//! IPC files through which Python hands tables back.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;

/// The Python of the test venv (`$PARQ_PYTHON`, else `<repo>/.venv/bin/python`); the tests
/// that compare with pyarrow, DuckDB, polars or fastparquet need it.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("PARQ_PYTHON") {
        return PathBuf::from(p);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    assert!(
        p.exists(),
        "no Python test venv at {}: run `bash scripts/venv.sh` or set PARQ_PYTHON",
        p.display()
    );
    p
}

/// Runs `python -c script args...`; panics with its stderr if it fails; returns its stdout.
pub fn run_python<S: AsRef<OsStr>>(script: &str, args: &[S]) -> String {
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// A directory for `tag` of this test binary and process, created if needed.
pub fn tmp_dir(tag: &str) -> PathBuf {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let d = std::env::temp_dir().join(format!("parq-{exe}-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The batches of an Arrow IPC file.
pub fn read_ipc(path: &Path) -> Vec<RecordBatch> {
    let f = File::open(path).expect("open ipc");
    let reader = FileReader::try_new(f, None).expect("ipc reader");
    reader.map(|b| b.expect("ipc batch")).collect()
}
