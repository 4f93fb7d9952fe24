//! What the CLI's end-to-end tests share: the test corpus and running the `parq` binary.

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
