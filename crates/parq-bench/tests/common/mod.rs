//! Helpers shared by the benchmark's tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh, empty directory under cargo's test temp dir, named after `name` and this process.
pub fn tmp_dir(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the built `parq-bench` with `args` and `--json <json>`; panics with its stderr unless
/// it succeeds. Returns its stdout and the cells of the JSON array it wrote.
pub fn run_json(args: &[&str], json: &Path) -> (String, Vec<serde_json::Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_parq-bench"))
        .args(args)
        .arg("--json")
        .arg(json)
        .output()
        .expect("run parq-bench");
    assert!(
        out.status.success(),
        "parq-bench {} failed:\n{}",
        args.first().unwrap_or(&""),
        String::from_utf8_lossy(&out.stderr)
    );
    let cells: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    let cells = cells.as_array().expect("a JSON array").clone();
    (String::from_utf8_lossy(&out.stdout).into_owned(), cells)
}
