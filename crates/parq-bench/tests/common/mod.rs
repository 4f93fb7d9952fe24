//! Helpers shared by the benchmark's tests.

use std::path::PathBuf;

/// A fresh, empty directory under cargo's test temp dir, named after `name` and this process.
pub fn tmp_dir(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
