//! Runs the built `parq-bench encode` once in tiny mode on the nested cases (1,000 values,
//! uncompressed, 1 iteration) and checks the JSON it writes: per case a `parquet` 60.1.0
//! cell, and for parq either a cell or the error of a write it refused. Nothing here looks
//! at timings.

mod common;

use common::{run_json, tmp_dir};

#[test]
fn tiny_nested_encode_run_writes_a_cell_or_an_error_per_writer() {
    let dir = tmp_dir("parq-bench-encode-tiny");
    let json = dir.join("cells.json");
    let (stdout, cells) = run_json(
        &[
            "encode",
            "--values",
            "1000",
            "--iters",
            "1",
            "--min-time-ms",
            "0",
            "--quick",
            "--cases",
            "nested",
        ],
        &json,
    );
    assert!(
        stdout.contains("nested list<int64> required uncompressed"),
        "{stdout}"
    );

    let mut datasets: Vec<&str> = cells
        .iter()
        .map(|c| c["dataset"].as_str().unwrap())
        .collect();
    datasets.sort_unstable();
    datasets.dedup();
    // 6 nested shapes x 2 nullabilities (--quick keeps both for the nested cases).
    assert_eq!(datasets.len(), 12, "{datasets:?}");
    assert!(datasets.iter().all(|d| d.starts_with("nested ")));
    let of = |d: &str, imp: &str| {
        cells
            .iter()
            .filter(|c| c["dataset"] == d && c["impl"] == imp)
            .collect::<Vec<_>>()
    };
    for d in &datasets {
        let p60 = of(d, "parquet-60.1.0");
        assert_eq!(p60.len(), 1, "{d}");
        assert!(p60[0]["output_bytes"].as_u64().unwrap() > 0, "{d}");
        assert_eq!(p60[0]["rows"], 250, "{d}");
        let parq = of(d, "parq");
        assert_eq!(parq.len(), 1, "{d}");
        let parq = parq[0];
        if parq["error"].is_string() {
            assert!(parq["median_ns"].is_null(), "{parq}");
        } else {
            assert!(parq["output_bytes"].as_u64().unwrap() > 0, "{parq}");
            assert_eq!(parq["iterations"], 1, "{parq}");
        }
    }
    for c in cells {
        assert_eq!(c["mode"], "encode");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
