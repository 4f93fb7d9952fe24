//! What the CLI's end-to-end tests share: the test corpus, running the `parq` binary, and
//! the tools some tests need (the venv's Python with pyarrow, DuckDB and polars; Chromium).
// Each test crate uses a part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared test corpus (`$PARQ_TESTDATA`, else `../shared/testdata` beside the
/// repository).
pub fn testdata() -> PathBuf {
    std::env::var("PARQ_TESTDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata"))
}

/// Runs `parq` with `args`: its exit code, stdout and stderr.
pub fn parq(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// True under CI (`CI=true`), where a missing tool fails a test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `path` when it exists; else `None` (the test skips), or a failure under CI. `what` says
/// what the tool is needed for.
pub fn tool(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    assert!(!in_ci(), "{} is missing: {what}", path.display());
    eprintln!("skipped: {} is missing ({what})", path.display());
    None
}

/// The Python with the peers (pyarrow, DuckDB, polars): `$PARQ_PYTHON`, else the
/// repository's `.venv`; see [`tool`].
pub fn python() -> Option<PathBuf> {
    let p = std::env::var("PARQ_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"));
    tool(
        p,
        "the tests compare with pyarrow, DuckDB and polars (set PARQ_PYTHON)",
    )
}

/// [`python`] for tests that cannot skip: a missing Python fails them.
pub fn python_required() -> PathBuf {
    let p = python();
    p.unwrap_or_else(|| panic!("these tests need the venv's Python (bash scripts/venv.sh)"))
}
