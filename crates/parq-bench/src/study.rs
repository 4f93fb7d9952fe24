//! The `footer-study` command, after "How Good is Parquet for Wide Tables": Float64 files with
//! 10 to 10,000 columns (100,000 with `--full`) and 10 row groups, written by `parquet`
//! 56.2.0's ArrowWriter under each statistics level (none / chunk / page). Reports footer
//! bytes per column, decode time per column for parq and `parquet` 60.1.0, and the writer's
//! peak heap measured by the counting allocator. Row groups are flushed one at a time and
//! every column shares one array, so memory stays bounded by the writer's own buffers.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use arrow_56::{ArrayRef, Float64Array, RecordBatch};
use arrow_schema_56::{DataType, Field, Schema};
use parquet_56::arrow::ArrowWriter;
use parquet_56::file::properties::{EnabledStatistics, WriterProperties};
use rand::Rng;
use serde_json::json;

use crate::alloc::peak_bytes_during;
use crate::datasets::{chunk_rng, progress_bar, write_atomically, LoadedFile};
use crate::footer::check_writable;
use crate::measure::{MeasureArgs, Stats};
use crate::report::{fmt_speedup, machine_line, render_table};
use crate::worker::measure_isolated;
use crate::workload::{Mode, PARQ, PARQUET_60};

const ROW_GROUPS: usize = 10;
const LEVELS: [(&str, EnabledStatistics); 3] = [
    ("none", EnabledStatistics::None),
    ("chunk", EnabledStatistics::Chunk),
    ("page", EnabledStatistics::Page),
];

#[derive(clap::Args, Debug)]
pub struct StudyArgs {
    /// Directory for the study files (rewritten each run, under `footer-study/`)
    /// (default: `<workspace>/target/parq-bench-data`).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Also 100,000 columns.
    #[arg(long)]
    pub full: bool,
    /// Column counts to run instead of the preset (comma separated or repeated).
    #[arg(long, value_name = "N", value_delimiter = ',', conflicts_with = "full")]
    pub columns: Vec<usize>,
    /// Rows per row group.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub rows: usize,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Write the results as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// One file of the study and its measurements.
struct Row {
    columns: usize,
    level: &'static str,
    footer_bytes: usize,
    writer_peak_bytes: usize,
    write_time: Duration,
    /// (impl, stats, heap bytes)
    decodes: Vec<(&'static str, Stats, Option<usize>)>,
}

impl Row {
    fn per_column_us(&self, imp: &str) -> Option<f64> {
        let (_, s, _) = self.decodes.iter().find(|(i, _, _)| *i == imp)?;
        Some(s.median_ns as f64 / 1e3 / self.columns as f64)
    }
}

pub fn run(args: &StudyArgs, workspace_root: &Path) -> Result<()> {
    let columns = if !args.columns.is_empty() {
        args.columns.clone()
    } else if args.full {
        vec![10, 100, 1_000, 10_000, 100_000]
    } else {
        vec![10, 100, 1_000, 10_000]
    };
    if columns.contains(&0) || args.rows == 0 {
        bail!("--columns and --rows must be at least 1");
    }
    check_writable(&args.json)?;
    let dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| workspace_root.join("target/parq-bench-data"))
        .join("footer-study");
    fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create data directory {}", dir.display()))?;
    let cfg = args.measure.config();
    let mut rows = Vec::new();
    for &cols in &columns {
        for (level, stats_level) in LEVELS {
            let path = dir.join(format!(
                "Float64_{cols}cols_{ROW_GROUPS}rg_{}rows_{level}.parquet",
                args.rows
            ));
            let start = Instant::now();
            let (written, writer_peak_bytes) = peak_bytes_during(|| {
                write_atomically(&path, |out| write_file(cols, args.rows, stats_level, out))
            });
            written?;
            let write_time = start.elapsed();
            let file = LoadedFile::load(&path)?;
            eprintln!("measuring {cols} columns, statistics {level}");
            let measured =
                measure_isolated(&file, &[PARQ, PARQUET_60], &[Mode::Metadata], None, &cfg)?;
            rows.push(Row {
                columns: cols,
                level,
                footer_bytes: file.footer_bytes(),
                writer_peak_bytes,
                write_time,
                decodes: measured
                    .into_iter()
                    .map(|m| (m.imp, m.samples.stats(), m.heap_bytes))
                    .collect(),
            });
        }
    }
    println!("{}", machine_line());
    print_table(&rows);
    if let Some(p) = &args.json {
        write_json(&rows, p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

fn write_file(
    columns: usize,
    rows: usize,
    level: EnabledStatistics,
    out: BufWriter<File>,
) -> Result<()> {
    let fields: Vec<Field> = (0..columns)
        .map(|i| Field::new(format!("col_{i}"), DataType::Float64, true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let props = WriterProperties::builder()
        .set_statistics_enabled(level)
        .build();
    let mut writer = ArrowWriter::try_new(out, Arc::clone(&schema), Some(props))?;
    let bar = progress_bar(ROW_GROUPS as u64, format!("writing {columns} columns"));
    for rg in 0..ROW_GROUPS {
        let mut rng = chunk_rng(3, rg, 0);
        let array: ArrayRef = Arc::new(Float64Array::from_iter_values(
            (0..rows).map(|_| rng.random::<f64>()),
        ));
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![array; columns])?;
        writer.write(&batch)?;
        writer.flush()?;
        bar.inc(1);
    }
    writer.into_inner()?.flush()?;
    bar.finish_and_clear();
    Ok(())
}

fn print_table(rows: &[Row]) {
    let headers: Vec<String> = [
        "columns",
        "statistics",
        "footer\nbytes",
        "footer bytes\nper column",
        "parq decode\nus per column",
        "60.1 decode\nus per column",
        "parq vs\n60.1",
        "writer peak\nMB",
        "write\ns",
    ]
    .map(String::from)
    .to_vec();
    let us = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let (parq, p60) = (r.per_column_us(PARQ), r.per_column_us(PARQUET_60));
            vec![
                r.columns.to_string(),
                r.level.to_string(),
                r.footer_bytes.to_string(),
                format!("{:.0}", r.footer_bytes as f64 / r.columns as f64),
                us(parq),
                us(p60),
                parq.zip(p60)
                    .map_or("-".into(), |(a, b)| fmt_speedup(b / a)),
                format!("{:.1}", r.writer_peak_bytes as f64 / 1e6),
                format!("{:.1}", r.write_time.as_secs_f64()),
            ]
        })
        .collect();
    println!("\nWide-table study: Float64, {ROW_GROUPS} row groups, written by parquet 56.2.0 (decode medians)");
    print!("{}", render_table(&headers, &table));
}

fn write_json(rows: &[Row], path: &Path) -> Result<()> {
    let values: Vec<serde_json::Value> = rows
        .iter()
        .flat_map(|r| {
            r.decodes.iter().map(move |(imp, s, heap)| {
                json!({
                    "columns": r.columns,
                    "row_groups": ROW_GROUPS,
                    "statistics": r.level,
                    "footer_bytes": r.footer_bytes,
                    "writer_peak_bytes": r.writer_peak_bytes,
                    "write_ms": r.write_time.as_millis() as u64,
                    "impl": imp,
                    "mode": Mode::Metadata.as_str(),
                    "median_ns": s.median_ns,
                    "min_ns": s.min_ns,
                    "iterations": s.iterations,
                    "heap_bytes": heap,
                })
            })
        })
        .collect();
    let mut f = File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(f, "{}", serde_json::to_string_pretty(&values)?)
        .with_context(|| format!("cannot write {}", path.display()))
}
