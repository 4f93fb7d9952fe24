//! TPC-H at scale factor 0.1, written by parq: the 22 queries through DataFusion with parq's
//! table provider give the answers of DataFusion's own Parquet reader and of DuckDB 2.0
//! running the same SQL on the same files.

#[path = "../../parq/tests/common/env.rs"]
mod env;

use std::path::Path;

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::{SessionConfig, SessionContext};
use parq::WriterProperties;
use parq_datafusion::tpch::{self, Reader};
use serde_json::Value;

/// One result cell: numbers compare within a relative tolerance (DuckDB averages decimals
/// as doubles, DataFusion as decimals), the rest as text.
#[derive(Debug, Clone)]
enum Cell {
    Null,
    Number(f64),
    Text(String),
}

impl PartialEq for Cell {
    fn eq(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::Null, Cell::Null) => true,
            (Cell::Number(a), Cell::Number(b)) => {
                (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
            }
            (Cell::Text(a), Cell::Text(b)) => a == b,
            _ => false,
        }
    }
}

fn cells(batches: &[RecordBatch]) -> Vec<Vec<Cell>> {
    let mut rows = Vec::new();
    for b in batches {
        let formatters: Vec<(ArrayFormatter<'_>, &ArrayRef)> = b
            .columns()
            .iter()
            .map(|c| {
                (
                    ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).unwrap(),
                    c,
                )
            })
            .collect();
        for r in 0..b.num_rows() {
            rows.push(
                formatters
                    .iter()
                    .map(|(f, c)| {
                        if c.is_null(r) {
                            return Cell::Null;
                        }
                        let text = f.value(r).to_string();
                        let numeric = c.data_type().is_numeric()
                            || matches!(c.data_type(), DataType::Decimal128(..));
                        match numeric {
                            true => Cell::Number(text.parse().unwrap()),
                            false => Cell::Text(text),
                        }
                    })
                    .collect(),
            );
        }
    }
    rows
}

fn json_cells(rows: &Value) -> Vec<Vec<Cell>> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|v| match v {
                    Value::Null => Cell::Null,
                    Value::Number(n) => Cell::Number(n.as_f64().unwrap()),
                    Value::String(s) => Cell::Text(s.clone()),
                    other => Cell::Text(other.to_string()),
                })
                .collect()
        })
        .collect()
}

/// DuckDB's answers to the 22 queries on the tables of `dir`, as JSON rows.
fn duckdb_answers(dir: &Path, queries: &Path) -> Vec<Value> {
    let script = r#"
import datetime, decimal, json, sys
import duckdb
data, queries = sys.argv[1], sys.argv[2]
con = duckdb.connect()
for t in ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]:
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{data}/{t}.parquet')")
def plain(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v
out = []
for n in range(1, 23):
    sql = open(f"{queries}/q{n}.sql").read()
    rows = con.execute(sql).fetchall()
    out.append([[plain(v) for v in row] for row in rows])
print(json.dumps(out))
"#;
    let text = env::run_python(script, &[dir.as_os_str(), queries.as_os_str()]);
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

#[test]
fn tpch_sf01_answers_equal_datafusion_and_duckdb() {
    let dir = env::tmp_dir("tpch");
    tpch::generate(&dir, 0.1, &WriterProperties::default()).unwrap();
    let queries = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tpch/queries");
    let duckdb = duckdb_answers(&dir, &queries);

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let config = SessionConfig::new().with_target_partitions(2);
        let parq = SessionContext::new_with_config(config.clone());
        tpch::register(&parq, &dir, Reader::Parq).await.unwrap();
        let own = SessionContext::new_with_config(config);
        tpch::register(&own, &dir, Reader::DataFusion)
            .await
            .unwrap();
        let mut failures = Vec::new();
        for n in 1..=22 {
            let got = cells(&tpch::run(&parq, n).await.unwrap());
            let datafusion = cells(&tpch::run(&own, n).await.unwrap());
            let expected = json_cells(&duckdb[n - 1]);
            assert!(!expected.is_empty(), "q{n}: DuckDB found no rows");
            if got != datafusion {
                failures.push(format!("q{n}: parq {got:?}\n  datafusion {datafusion:?}"));
            }
            if got != expected {
                failures.push(format!("q{n}: parq {got:?}\n  duckdb {expected:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}
