//! Runs the built `parq-bench` binary once in tiny mode (10 columns, 1 iteration, a temporary
//! data dir) and checks the JSON it writes has cells for parq and both `parquet` versions.
//! Nothing here looks at timings.

mod common;

use common::{run_json, tmp_dir};
use std::process::Command;

#[test]
fn tiny_footer_run_writes_json_for_every_rust_impl() {
    let dir = tmp_dir("parq-bench-tiny");
    let json = dir.join("cells.json");
    let data = dir.join("data");
    let (stdout, cells) = run_json(
        &[
            "footer",
            "--columns",
            "10",
            "--iters",
            "1",
            "--min-time-ms",
            "0",
            "--data-dir",
            data.to_str().unwrap(),
        ],
        &json,
    );
    assert!(stdout.contains("Float 10 cols 20 row groups"), "{stdout}");
    for imp in ["parq", "parquet-60.1.0", "parquet-56.2.0"] {
        assert!(
            cells
                .iter()
                .any(|c| c["impl"] == imp && c["mode"] == "metadata"),
            "no {imp} metadata cell in {cells:?}"
        );
    }
    for c in cells {
        assert_eq!(c["columns"], 10);
        assert_eq!(c["row_groups"], 20);
        assert_eq!(c["iterations"], 1);
        assert!(c["footer_bytes"].as_u64().unwrap() > 0);
        assert!(c["median_ns"].is_u64() && c["min_ns"].is_u64());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unwritable_output_is_a_clear_error() {
    let dir = tmp_dir("parq-bench-bad-out");
    let out = Command::new(env!("CARGO_BIN_EXE_parq-bench"))
        .args(["footer", "--columns", "10", "--iters", "1", "--data-dir"])
        .arg(dir.join("data"))
        .arg("--json")
        .arg(dir.join("no/such/dir/cells.json"))
        .output()
        .expect("run parq-bench");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot write output file"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
