//! The `wide-read` command: 100 named columns (spread over the schema) of every row group of
//! a wide file read into Arrow, parq (`ParquetReader::open_columns`: only those columns'
//! part of the footer decoded, through the footer index when the file has one) against
//! parquet 60.1 (`ParquetRecordBatchReaderBuilder` with a `ProjectionMask` of the names: the
//! whole footer decoded first), one thread each, on the footer grid's Float datasets
//! (written by parquet 56.2, no index) and on parq's copies of them (with the index). Both
//! read the file through positional reads (page cache warm); the answers are compared
//! before anything is timed. pyarrow and polars are in `python/bench_wide.py`.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use arrow_60::RecordBatch;
use parquet_60::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet_60::arrow::ProjectionMask;

use crate::datasets::{ensure_dataset, ensure_parq_copy, ColumnType, DatasetSpec};
use crate::measure::{measure, timed_simple, Case, MeasureArgs};
use crate::report::machine_line;
use crate::workload::{Facts, Mode, PARQ, PARQUET_60};

#[derive(clap::Args, Debug)]
pub struct WideReadArgs {
    /// Directory of the cached datasets (default: `<workspace>/target/parq-bench-data`).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Column counts of the Float datasets (comma separated).
    #[arg(
        long,
        value_name = "N",
        value_delimiter = ',',
        default_value = "1000,10000"
    )]
    pub columns: Vec<usize>,
    /// How many named columns each read asks for.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub selected: usize,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// `selected` column names spread evenly over `columns` columns.
fn names(columns: usize, selected: usize) -> Vec<String> {
    let selected = selected.clamp(1, columns);
    (0..selected)
        .map(|k| format!("col_{}", k * columns / selected))
        .collect()
}

fn read_parq(path: &Path, names: &[String], batch: usize) -> Result<Vec<RecordBatch>> {
    let reader = parq::ParquetReader::open_columns(path, names)?
        .with_batch_size(batch)
        .with_threads(1);
    Ok(reader.read_all()?)
}

fn read_60(path: &Path, names: &[String], batch: usize) -> Result<Vec<RecordBatch>> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?;
    let mask = ProjectionMask::columns(builder.parquet_schema(), names.iter().map(|s| s.as_str()));
    let reader = builder
        .with_projection(mask)
        .with_batch_size(batch)
        .build()?;
    Ok(reader.collect::<std::result::Result<Vec<_>, _>>()?)
}

fn facts(batches: &[RecordBatch], row_groups: usize) -> Facts {
    Facts {
        num_rows: Some(batches.iter().map(|b| b.num_rows() as i64).sum()),
        row_groups,
        column_chunks: batches.first().map_or(0, |b| b.num_columns()) * row_groups,
    }
}

pub fn run(args: &WideReadArgs, workspace_root: &Path) -> Result<()> {
    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| workspace_root.join("target/parq-bench-data"));
    let cfg = args.measure.config();
    let mut rows = Vec::new();
    for &columns in &args.columns {
        ensure!(columns > 0, "--columns must be at least 1");
        let spec = DatasetSpec::new(ColumnType::Float, columns);
        let peer_file = ensure_dataset(&spec, &data_dir)?;
        let parq_file = ensure_parq_copy(&spec, &peer_file, &data_dir)?;
        let names = names(columns, args.selected);
        let batch = spec.rows_per_row_group;
        for (written_by, path) in [("parquet 56.2", &peer_file), ("parq", &parq_file)] {
            let what = format!("{columns} columns written by {written_by}");
            let ours = read_parq(path, &names, batch).with_context(|| format!("parq, {what}"))?;
            let theirs = read_60(path, &names, batch).with_context(|| format!("60.1, {what}"))?;
            ensure!(
                ours.len() == theirs.len()
                    && ours
                        .iter()
                        .zip(&theirs)
                        .all(|(a, b)| a.columns() == b.columns()),
                "{what}: parq and parquet 60.1 read different values"
            );
            let expected = facts(&ours, spec.row_groups);
            let mut cases = vec![
                Case::new(PARQ, Mode::Decode, expected, None, |n| {
                    timed_simple(
                        n,
                        || read_parq(path, &names, batch),
                        |b| facts(b, spec.row_groups),
                    )
                }),
                Case::new(PARQUET_60, Mode::Decode, expected, None, |n| {
                    timed_simple(
                        n,
                        || read_60(path, &names, batch),
                        |b| facts(b, spec.row_groups),
                    )
                }),
            ];
            eprintln!("measuring {what}");
            let samples = measure(&mut cases, &cfg).with_context(|| what.clone())?;
            let ms = |i: usize| samples[i].stats().median_ns as f64 / 1e6;
            rows.push((columns, written_by, ms(0), ms(1)));
        }
    }
    eprintln!("{} after measuring", machine_line());
    println!(
        "\n{} named Float columns of every row group (20 x 1,000 rows), one thread, median ms",
        args.selected
    );
    println!("| columns | file by | parq | parquet 60.1 | parq vs 60.1 |");
    println!("|---|---|---|---|---|");
    for (columns, by, parq, p60) in rows {
        println!(
            "| {columns} | {by} | {parq:.2} | {p60:.2} | {:.1}x |",
            p60 / parq
        );
    }
    Ok(())
}
