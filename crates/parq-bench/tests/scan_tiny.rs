//! Runs the built `parq-bench scan` once on a tiny table (30,000 rows, 1 iteration, no
//! Python peers) and checks the table it prints and the JSON it writes: a cell per query for
//! parq and `parquet` 60.1.0, with the rows matched and the bytes read. Nothing here looks at
//! timings.

mod common;

use common::{run_json, tmp_dir};

#[test]
fn tiny_scan_run_writes_json_for_parq_and_parquet_60() {
    let dir = tmp_dir("parq-bench-scan-tiny");
    let json = dir.join("cells.json");
    let (stdout, cells) = run_json(
        &[
            "scan",
            "--rows",
            "30000",
            "--iters",
            "1",
            "--peers",
            "none",
            "--data-dir",
            dir.to_str().unwrap(),
        ],
        &json,
    );
    assert!(stdout.contains("id >= 11100 AND id < 11400"), "{stdout}");
    assert!(
        stdout.contains("target parq >= 2x faster than parquet 60.1.0"),
        "{stdout}"
    );
    assert!(stdout.contains("target parq reads fewer bytes"), "{stdout}");

    let expected = [
        ("point", 1),
        ("range-1pct", 300),
        ("range-50pct", 15_000),
        ("full-scan", 30_000),
    ];
    assert_eq!(cells.len(), 2 * expected.len());
    for (query, rows) in expected {
        for imp in ["parq", "parquet-60.1.0"] {
            let c = cells
                .iter()
                .find(|c| c["query"] == query && c["impl"] == imp)
                .unwrap_or_else(|| panic!("no {imp} cell for {query}"));
            assert_eq!(c["mode"], "scan");
            assert_eq!(c["iterations"], 1);
            assert_eq!(c["rows"], rows, "{c}");
            assert_eq!(c["table_rows"], 30_000);
            assert!(c["median_ns"].is_u64() && c["min_ns"].is_u64());
            let (read, file) = (c["bytes_read"].as_u64().unwrap(), c["file_bytes"].as_u64());
            assert!(read > 0 && read < 2 * file.unwrap(), "{c}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
