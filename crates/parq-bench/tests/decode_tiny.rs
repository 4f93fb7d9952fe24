//! Runs the built `parq-bench decode` once in tiny mode (1,000 values, uncompressed, required
//! columns, 1 iteration) and checks the JSON it writes: a cell per case for parq and
//! `parquet` 60.1.0 in the `footer --json` shape. Nothing here looks at timings.

mod common;

use common::{run_json, tmp_dir};
use std::process::Command;

#[test]
fn tiny_decode_run_writes_json_for_parq_and_parquet_60() {
    let dir = tmp_dir("parq-bench-decode-tiny");
    let json = dir.join("cells.json");
    let (stdout, cells) = run_json(
        &[
            "decode",
            "--values",
            "1000",
            "--iters",
            "1",
            "--min-time-ms",
            "0",
            "--quick",
        ],
        &json,
    );
    assert!(
        stdout.contains("int32 PLAIN required uncompressed"),
        "{stdout}"
    );
    assert!(stdout.contains("target parq >= 1.5x"), "{stdout}");
    assert!(stdout.contains("of the memcpy baseline"), "{stdout}");

    let mut datasets: Vec<&str> = cells
        .iter()
        .map(|c| c["dataset"].as_str().unwrap())
        .collect();
    datasets.dedup();
    // 16 (type, encoding) cases, seed-001, the table, 3 float64 ALP cases and 6 nested
    // shapes x 2 nullabilities.
    assert_eq!(datasets.len(), 33, "{datasets:?}");
    assert_eq!(
        datasets.iter().filter(|d| d.contains(" ALP ")).count(),
        3,
        "{datasets:?}"
    );
    assert_eq!(
        datasets.iter().filter(|d| d.starts_with("nested ")).count(),
        12,
        "{datasets:?}"
    );
    assert!(datasets.iter().any(|d| d.starts_with("seed-001")));
    assert!(datasets.iter().any(|d| d.starts_with("table int64+string")));
    for d in &datasets {
        for imp in ["parq", "parquet-60.1.0", "memcpy"] {
            assert!(
                cells.iter().any(|c| c["dataset"] == *d && c["impl"] == imp),
                "no {imp} cell for {d}"
            );
        }
    }
    for c in cells {
        assert_eq!(c["mode"], "decode");
        assert_eq!(c["iterations"], 1);
        assert_eq!(
            c["codec"],
            if c["dataset"].as_str().unwrap().starts_with("seed") {
                "zstd"
            } else {
                "uncompressed"
            }
        );
        // --quick: required flat cases; the nested cases with and without nulls.
        let nullable = c["dataset"].as_str().unwrap().contains("10%null");
        assert_eq!(c["null_share"], if nullable { 0.1 } else { 0.0 });
        assert!(c["type"].is_string());
        assert!(c["median_ns"].is_u64() && c["min_ns"].is_u64());
        assert!(c["output_bytes"].as_u64().unwrap() > 0, "{c}");
        if c["impl"] == "memcpy" {
            assert!(c["heap_bytes"].is_null(), "{c}");
        } else {
            assert!(c["heap_bytes"].as_u64().unwrap() > 0, "{c}");
        }
        assert!(c["file_bytes"].as_u64().unwrap() > 0);
        let rows = c["rows"].as_u64().unwrap();
        let name = c["dataset"].as_str().unwrap();
        if name.starts_with("seed-001") {
            assert_eq!((rows, c["row_groups"].as_u64().unwrap()), (968, 2));
        } else if name.starts_with("nested ") {
            // A quarter of --values rows: lists hold 3 elements on average.
            assert_eq!(rows, 250, "{name}");
        } else {
            assert_eq!(rows, 1000, "{name}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_selection_without_cases_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_parq-bench"))
        .args([
            "decode",
            "--values",
            "10",
            "--iters",
            "1",
            "--cases",
            "no such case",
        ])
        .output()
        .expect("run parq-bench");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no case matches"), "{stderr}");
}
