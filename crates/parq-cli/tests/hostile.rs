//! Every file of the hostile and real-world corpora through `parq meta`, `parq cat` and
//! `parq convert`, each run under an address-space cap of 2 GiB (`ulimit -v`) and a time
//! limit: each must exit cleanly (0, or 1 with a message), never by a signal (an abort from
//! an allocation sized by a lie, a panic, a stack overflow) or a time-out.
//!
//! Corpora: `parquet-testing/bad_data`, `arrow-testing/parquet` (with its `fuzzing/`
//! regressions), `real-world/`, `parquet-testing/data`, and the hand-made files of
//! `tests/hostile/` (see its README).

use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata() -> PathBuf {
    std::env::var("PARQ_TESTDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata"))
}

/// The address-space cap, in KiB.
const ADDRESS_SPACE_KIB: u64 = 2 * 1024 * 1024;
/// Seconds one command may take (a debug build on a slow shared machine).
const SECONDS: u32 = 120;

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let rd = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if !matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("md" | "tsv" | "txt" | "json" | "py" | "sh")
        ) {
            out.push(p);
        }
    }
}

/// Runs `parq args...` under the caps; returns the exit code (None for a signal) and stderr.
fn capped(args: &[&str]) -> (Option<i32>, String) {
    let script = format!("ulimit -v {ADDRESS_SPACE_KIB}; exec timeout {SECONDS} \"$0\" \"$@\"");
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .output()
        .expect("run sh");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn hostile_and_real_world_files_exit_cleanly_under_a_memory_cap() {
    let root = testdata();
    let mut files = Vec::new();
    for dir in [
        "parquet-testing/bad_data",
        "arrow-testing/parquet",
        "real-world",
        "parquet-testing/data",
    ] {
        files_under(&root.join(dir), &mut files);
    }
    files_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile"),
        &mut files,
    );
    files.sort();
    let fuzzing = files
        .iter()
        .filter(|p| p.to_string_lossy().contains("/fuzzing/"))
        .count();
    // The corpora as they are: 903 files, 137 of them fuzz regressions.
    assert!(files.len() >= 903, "{} files", files.len());
    assert!(fuzzing >= 137, "{fuzzing} fuzz regressions");
    let out_dir = std::env::temp_dir().join(format!("parq-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    // The runs are independent processes: one worker per core, each with its own output file.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (files, out_dir) = (&files, &out_dir);
                s.spawn(move || {
                    let out = out_dir.join(format!("out-{w}.arrow"));
                    let out = out.to_str().expect("path");
                    let mut failures = Vec::new();
                    let (mut runs, mut errors) = (0, 0);
                    for f in files.iter().skip(w).step_by(workers) {
                        let f = f.to_str().expect("path");
                        for args in [
                            vec!["meta", "--json", f],
                            vec!["cat", "--format", "csv", f],
                            vec!["convert", f, out],
                        ] {
                            runs += 1;
                            let (code, stderr) = capped(&args);
                            match code {
                                Some(0) => {}
                                Some(1)
                                    if !stderr.contains("panicked")
                                        && !stderr.trim().is_empty() =>
                                {
                                    errors += 1
                                }
                                _ => failures.push(format!(
                                    "parq {}: exit {code:?}: {}",
                                    args.join(" "),
                                    stderr.chars().take(300).collect::<String>()
                                )),
                            }
                        }
                    }
                    (runs, errors, failures)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let runs: usize = results.iter().map(|r| r.0).sum();
    let errors: usize = results.iter().map(|r| r.1).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.2).collect();
    let _ = std::fs::remove_dir_all(&out_dir);
    eprintln!(
        "{runs} runs over {} files, {errors} clean errors",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} unclean exits:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
