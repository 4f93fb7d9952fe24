//! `ParqTable` in DataFusion on a hive-partitioned dataset written by parq: answers equal
//! DuckDB's on the same files; filters reach parq (pruned row groups, exact filters, no
//! `FilterExec` left above the scan), limits stop the read, and footers give the planner
//! its statistics.

#[path = "../../parq/tests/common/env.rs"]
mod env;

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use datafusion::physical_plan::{collect, displayable, ExecutionPlan};
use datafusion::prelude::{SessionConfig, SessionContext};
use parq::dataset::{write_dataset, DatasetOptions, WriteOptions};
use parq::WriterProperties;
use parq_datafusion::{tpch, ParqExec, ParqTable};

/// 3,000 rows: `id` 0..3000 (sorted, so row groups of 250 rows have disjoint ranges),
/// `name`, `score` with nulls, partitioned by `year` (2024..2026).
fn write(dir: &Path) {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..3000));
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..3000).map(|i| format!("n{}", i % 97)),
    ));
    let scores: ArrayRef = Arc::new(Int32Array::from_iter(
        (0..3000).map(|i| (i % 7 != 0).then_some(i % 1000)),
    ));
    let years: ArrayRef = Arc::new(Int32Array::from_iter_values(
        (0..3000).map(|i| 2024 + i / 1000),
    ));
    let batch = RecordBatch::try_from_iter([
        ("id", ids),
        ("name", names),
        ("score", scores),
        ("year", years),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(250))
        .build()
        .unwrap();
    let options = WriteOptions {
        partition_cols: vec!["year".into()],
        properties: props,
        ..Default::default()
    };
    write_dataset(dir.to_str().unwrap(), batch.schema(), [Ok(batch)], &options).unwrap();
}

fn duckdb(dir: &Path, sql: &str) -> Vec<String> {
    let script = r#"
import sys, duckdb
con = duckdb.connect()
con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{sys.argv[1]}/**/*.parquet', hive_partitioning = true)")
for row in con.execute(sys.argv[2]).fetchall():
    print("|".join("NULL" if v is None else str(v) for v in row))
"#;
    env::run_python(script, &[dir.as_os_str(), sql.as_ref()])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The `ParqExec` of a plan (the first found).
fn parq_exec(plan: &Arc<dyn ExecutionPlan>) -> Option<&ParqExec> {
    if let Some(p) = (plan.as_ref() as &dyn std::any::Any).downcast_ref::<ParqExec>() {
        return Some(p);
    }
    plan.children().into_iter().find_map(parq_exec)
}

#[test]
fn queries_answer_as_duckdb_and_filters_prune() {
    let dir = env::tmp_dir("provider");
    write(&dir);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
        let table = ParqTable::open(dir.as_ref(), DatasetOptions::default()).unwrap();
        ctx.register_table("t", Arc::new(table)).unwrap();

        // (query, row groups the scan may read at most, whether a FilterExec stays)
        let cases = [
            // Answered from the footers' exact row count: no scan at all.
            ("SELECT count(*) FROM t", 0, false),
            (
                "SELECT id, name FROM t WHERE id BETWEEN 1200 AND 1260 ORDER BY id",
                2,
                false,
            ),
            (
                "SELECT year, count(*), sum(score) FROM t WHERE year = 2025 GROUP BY year",
                4,
                false,
            ),
            (
                "SELECT id FROM t WHERE score IS NULL AND id < 300 ORDER BY id",
                2,
                false,
            ),
            (
                "SELECT id FROM t WHERE name IN ('n3', 'n5') AND id >= 2900 ORDER BY id",
                1,
                false,
            ),
            (
                "SELECT id FROM t WHERE id = 17 OR id = 2999 ORDER BY id",
                2,
                false,
            ),
            (
                "SELECT id FROM t WHERE NOT (id < 2990) ORDER BY id",
                1,
                false,
            ),
            // LIKE stays with DataFusion; the range still prunes.
            (
                "SELECT id FROM t WHERE name LIKE 'n1%' AND id < 250 ORDER BY id",
                1,
                true,
            ),
            (
                "SELECT name, max(score) FROM t GROUP BY name ORDER BY name",
                12,
                false,
            ),
        ];
        for (sql, most_groups, filter_exec) in cases {
            let df = ctx.sql(sql).await.unwrap();
            let plan = df.create_physical_plan().await.unwrap();
            let shown = displayable(plan.as_ref()).indent(true).to_string();
            let groups: usize = parq_exec(&plan)
                .map(|e| e.partitions().iter().map(Vec::len).sum())
                .unwrap_or(0);
            assert_eq!(
                most_groups == 0,
                parq_exec(&plan).is_none(),
                "{sql}\n{shown}"
            );
            assert!(
                groups <= most_groups,
                "{sql}: {groups} row groups read\n{shown}"
            );
            assert_eq!(shown.contains("FilterExec"), filter_exec, "{sql}\n{shown}");
            let got = tpch::answer_lines(&collect(plan, ctx.task_ctx()).await.unwrap()).unwrap();
            assert_eq!(got, duckdb(&dir, sql), "{sql}");
        }

        // A limit without a filter reads the first row groups only, and stops there.
        let plan = ctx
            .sql("SELECT id FROM t LIMIT 10")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let groups: usize = parq_exec(&plan)
            .unwrap()
            .partitions()
            .iter()
            .map(Vec::len)
            .sum();
        assert_eq!(groups, 1);
        assert_eq!(
            tpch::answer_lines(&collect(plan, ctx.task_ctx()).await.unwrap())
                .unwrap()
                .len(),
            10
        );

        // Statistics from the footers: the exact row count, and null counts.
        let plan = ctx
            .sql("SELECT score FROM t")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let exec = parq_exec(&plan).unwrap();
        let stats = datafusion::physical_plan::ExecutionPlan::statistics_from_inputs(
            exec,
            &[],
            &datafusion::physical_plan::StatisticsArgs::new(),
        )
        .unwrap();
        assert_eq!(
            stats.num_rows,
            datafusion::common::stats::Precision::Exact(3000)
        );
        // With a filter, DataFusion's own estimate of what it leaves (from `id`'s bounds:
        // about a tenth of the rows), as its FilterExec would make it.
        let plan = ctx.sql("SELECT score FROM t WHERE id < 300").await.unwrap();
        let plan = plan.create_physical_plan().await.unwrap();
        let filtered = datafusion::physical_plan::ExecutionPlan::statistics_from_inputs(
            parq_exec(&plan).unwrap(),
            &[],
            &datafusion::physical_plan::StatisticsArgs::new(),
        )
        .unwrap();
        let estimate = *filtered.num_rows.get_value().unwrap();
        assert!(!filtered.num_rows.is_exact().unwrap_or(true));
        assert!((200..=400).contains(&estimate), "{estimate} rows estimated");
        let nulls = (0..3000).filter(|i| i % 7 == 0).count();
        assert_eq!(
            stats.column_statistics[0].null_count,
            datafusion::common::stats::Precision::Exact(nulls)
        );
    });
}
