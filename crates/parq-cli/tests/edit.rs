//! `parq merge`, `parq append` and `parq rewrite` end to end: `edit/check.py` writes inputs
//! with pyarrow, DuckDB and polars, runs the commands and compares every output with what
//! each peer reads from the inputs; its append crash test kills `parq append` (strace) at
//! every write, copy, sync and rename.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{parq, testdata};

fn python() -> Option<PathBuf> {
    let p = std::env::var("PARQ_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"));
    if p.exists() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing: these tests need pyarrow, DuckDB and polars (set PARQ_PYTHON)",
        p.display()
    );
    eprintln!("skipped: {} is missing", p.display());
    None
}

#[test]
fn merge_append_and_rewrite_match_the_peers() {
    let Some(python) = python() else { return };
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("edit");
    let _ = std::fs::remove_dir_all(&work);
    let out = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/edit/check.py"))
        .arg(env!("CARGO_BIN_EXE_parq"))
        .arg(&work)
        .arg(testdata())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("append survived"), "{stdout}");
    assert!(stdout.trim_end().ends_with("ok"), "{stdout}");
}

#[test]
fn merge_needs_an_input_and_an_output() {
    let (code, out, err) = parq(&["merge", "only.parquet"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("IN... OUT"), "{err}");
}
