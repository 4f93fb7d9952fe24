//! Where the tests find their world: the shared test data, the Python test venv and how to
//! run it, scratch directories under cargo's target dir, and whether the run is CI. Std
//! only, so that the integration tests of other crates of the workspace include it too
//! (`#[path = "../../parq/tests/common/env.rs"]`).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared test data directory: `$PARQ_TESTDATA`, else `../shared/testdata` beside the
/// repository.
pub fn testdata() -> PathBuf {
    if let Some(p) = std::env::var_os("PARQ_TESTDATA") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata")
}

/// Whether missing test data or peers must fail the test rather than skip it: under CI
/// (`CI` set to anything but `false` / `0`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

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

/// The test venv's Python (`$PARQ_PYTHON`, else `<repo>/.venv/bin/python`) if it is there,
/// else `None` (after saying the test is skipped): for the tests that run without pyarrow
/// too. A missing Python fails the test instead when `PARQ_PYTHON` names it or under CI
/// ([`in_ci`]): these are the only byte-level peer checks of the encoders and codecs.
pub fn python_if_present() -> Option<PathBuf> {
    let explicit = std::env::var_os("PARQ_PYTHON");
    let p = match &explicit {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"),
    };
    if p.exists() {
        return Some(p);
    }
    assert!(
        explicit.is_none(),
        "PARQ_PYTHON is {}, which does not exist",
        p.display()
    );
    assert!(
        !in_ci(),
        "no Python test venv at {} under CI: run `bash scripts/venv.sh` or set PARQ_PYTHON \
         (the pyarrow peer checks must not be skipped in CI)",
        p.display()
    );
    eprintln!("skipping: no pyarrow venv at {}", p.display());
    None
}

/// Runs `python -c script args...`; panics with its stderr if it fails; returns its stdout.
pub fn run_python<S: AsRef<OsStr>>(script: &str, args: &[S]) -> String {
    run_python_at(&python(), script, args)
}

/// [`run_python`] with the Python `py`.
pub fn run_python_at<S: AsRef<OsStr>>(py: &Path, script: &str, args: &[S]) -> String {
    stdout_of(Command::new(py).arg("-c").arg(script).args(args), "python")
}

/// Runs `python script args...` (a script file); panics with the script's name, its first
/// argument and its stderr if it fails; returns its stdout.
pub fn run_python_file<S: AsRef<OsStr>>(script: &Path, args: &[S]) -> String {
    let what = format!(
        "{} {}",
        script.file_name().unwrap_or_default().to_string_lossy(),
        args.first()
            .map(|a| a.as_ref().to_string_lossy())
            .unwrap_or_default()
    );
    stdout_of(Command::new(python()).arg(script).args(args), &what)
}

/// Runs `cmd`; panics with `what` and its stderr if it fails; returns its stdout.
fn stdout_of(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().expect("run python");
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// A fresh directory for `tag` under cargo's test temp dir (`target/tmp`), unique to this
/// call; removed with its contents when the guard drops, unless the test is failing (then
/// kept, to look into). A guard held in a static lives to the end of the process.
pub fn tmp_dir(tag: &str) -> TmpDir {
    static SERIAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let n = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{exe}-{tag}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    TmpDir(d)
}

/// A test's scratch directory (see [`tmp_dir`]); derefs to its path.
pub struct TmpDir(PathBuf);

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TmpDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for inspection: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
