//! `parq merge`, `parq append` and `parq rewrite` end to end: `edit/check.py` writes inputs
//! with pyarrow, DuckDB and polars, runs the commands and compares every output with what
//! each peer reads from the inputs; its append crash test kills `parq append` (strace) at
//! every write, copy, sync and rename.

mod common;

use std::path::Path;
use std::process::Command;

use common::{parq, python, testdata};

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

/// Runs `parq args` on a pseudo-terminal (util-linux `script`): what the terminal showed.
fn on_terminal(args: &[&str]) -> String {
    let command = std::iter::once(env!("CARGO_BIN_EXE_parq"))
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("util-linux `script` runs commands on a pseudo-terminal");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn long_commands_show_progress_on_a_terminal_only() {
    let input = testdata().join("parquet-testing/data/alltypes_tiny_pages.parquet");
    let input = input.to_str().unwrap();
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("edit-progress");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let out = work.join("out.parquet");
    let out = out.to_str().unwrap();
    let target = work.join("t.parquet");
    std::fs::copy(input, &target).unwrap();
    let target = target.to_str().unwrap();
    for (verb, args) in [
        ("appending", vec!["append", target, input]),
        ("converting", vec!["convert", input, out]),
        ("merging", vec!["merge", input, input, out]),
        ("rewriting", vec!["rewrite", input, out, "--sort-by", "id"]),
    ] {
        let shown = on_terminal(&args);
        assert!(shown.contains(verb), "{args:?}: {shown:?}");
        assert!(
            shown.contains("7,300/7,300 rows") || shown.contains("14,600/14,600 rows"),
            "{shown:?}"
        );
        let mut quiet = args.clone();
        quiet.push("--quiet");
        assert!(!on_terminal(&quiet).contains(verb), "{quiet:?}");
        // Not a terminal: nothing on stderr.
        let (code, _, err) = parq(&args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    }
}
