//! `parq cat --format jsonl` of Variant columns: every shredded_variant case DuckDB reads
//! compared with DuckDB's values (tests/variant/duckdb_json.py writes them the way parq
//! prints Variant values), and the error cases: exit 1, one line on stderr, nothing on stdout.

mod common;

use std::process::Command;

use common::{parq, python_required, testdata};
use serde_json::Value;

fn cases_dir() -> String {
    testdata()
        .join("parquet-testing/shredded_variant")
        .to_string_lossy()
        .into_owned()
}

/// `a` and `b` equal, floats within the precision of a float32 (DuckDB widens FLOAT values
/// to double; parq prints a float's shortest digits).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                x == y || (x - y).abs() <= 1e-6 * x.abs().max(y.abs())
            }
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn jsonl_matches_duckdb() {
    let dir = cases_dir();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/variant/duckdb_json.py");
    let out = Command::new(python_required())
        .arg(&script)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut compared = 0;
    let mut failures = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let want: Value = serde_json::from_str(line).unwrap();
        let file = format!("{dir}/{}", want["file"].as_str().unwrap());
        let (code, stdout, stderr) = parq(&["cat", &file, "--format", "jsonl"]);
        assert_eq!(code, 0, "{file}: {stderr}");
        let got: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["var"].clone())
            .collect();
        let rows = want["rows"].as_array().unwrap();
        if got.len() != rows.len() || !got.iter().zip(rows).all(|(g, w)| same(g, w)) {
            failures.push(format!("{file}:\n  parq:   {got:?}\n  duckdb: {rows:?}"));
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 90, "{compared} cases compared");
}

#[test]
fn error_cases_exit_1_with_one_line() {
    let dir = cases_dir();
    let cases: Value =
        serde_json::from_slice(&std::fs::read(format!("{dir}/cases.json")).unwrap()).unwrap();
    let mut seen = 0;
    for case in cases.as_array().unwrap() {
        if case.get("error_message").is_none() {
            continue;
        }
        let file = format!("{dir}/{}", case["parquet_file"].as_str().unwrap());
        let (code, stdout, stderr) = parq(&["cat", &file, "--format", "jsonl"]);
        assert_eq!(code, 1, "{file}");
        assert_eq!(stdout, "", "{file}");
        assert_eq!(stderr.lines().count(), 1, "{file}: {stderr}");
        seen += 1;
    }
    assert_eq!(seen, 6);
}
