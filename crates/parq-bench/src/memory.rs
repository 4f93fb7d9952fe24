//! `parq-bench memory`: the heap a streaming read allocates beyond the file's own bytes,
//! counted by the benchmark's allocator (see [`crate::alloc`]).
//!
//! The file is pyarrow's `pq.write_table(pa.table({"a": <rows> random int64, "b": <rows>
//! random float64}), f, row_group_size=<rows>, compression="none", use_dictionary=False)`:
//! one row group, about 610 MB at the default 40 million rows. It is read from memory in
//! batches of `--batch-size` rows, each batch dropped before the next, by parq
//! (`ParquetReader::batches`) and by parquet 60.1 (`ParquetRecordBatchReader`); for scale,
//! parq's whole-file `read_batch` too. Reported: the peak heap growth over the loaded file,
//! in MB and as a share of the file.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use parquet_60::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::alloc::peak_bytes_during;
use crate::peers::find_python;

#[derive(clap::Args, Debug)]
pub struct MemoryArgs {
    /// Rows of the file (each column).
    #[arg(long, default_value_t = 40_000_000)]
    pub rows: usize,
    /// Rows per batch of the streaming reads.
    #[arg(long, default_value_t = 8192)]
    pub batch_size: usize,
    /// Python interpreter with pyarrow, which writes the file (default: $PARQ_PYTHON,
    /// `<workspace>/.venv/bin/python`, python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Directory for the file (default: `<workspace>/target/parq-bench-data`).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

const WRITE: &str = r#"
import sys
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
rows, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(42)
t = pa.table({
    "a": rng.integers(-2**63, 2**63 - 1, size=rows, dtype=np.int64),
    "b": rng.random(rows),
})
pq.write_table(t, path, row_group_size=rows, compression="none", use_dictionary=False)
"#;

/// Writes the file with pyarrow unless it is there already.
fn file(args: &MemoryArgs, root: &Path) -> Result<PathBuf> {
    let dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| root.join("target/parq-bench-data"));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(format!("memory-{}-rows.parquet", args.rows));
    if path.is_file() {
        return Ok(path);
    }
    let Some(python) = find_python(args.python.as_deref(), root) else {
        bail!("the memory benchmark needs Python with pyarrow to write its file");
    };
    eprintln!(
        "writing {} with pyarrow {}",
        path.display(),
        python.pyarrow_version
    );
    let tmp = path.with_extension("tmp");
    let status = Command::new(&python.path)
        .args(["-c", WRITE, &args.rows.to_string()])
        .arg(&tmp)
        .status()
        .context("cannot run Python")?;
    if !status.success() {
        bail!("pyarrow could not write {}", tmp.display());
    }
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// One reading: its name, the rows it gave and its peak heap growth.
struct Reading {
    name: &'static str,
    rows: usize,
    peak: usize,
}

fn parq_batches(bytes: &Bytes, batch_size: usize) -> Result<usize> {
    let reader = parq::read::ParquetReader::from_bytes(bytes.clone())?.with_batch_size(batch_size);
    let mut rows = 0;
    for batch in reader.batches()? {
        rows += batch?.num_rows();
    }
    Ok(rows)
}

fn parq_whole(bytes: &Bytes) -> Result<usize> {
    let batch = parq::read::ParquetReader::from_bytes(bytes.clone())?.read_batch()?;
    Ok(batch.num_rows())
}

fn parquet_60_batches(bytes: &Bytes, batch_size: usize) -> Result<usize> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())?
        .with_batch_size(batch_size)
        .build()?;
    let mut rows = 0;
    for batch in reader {
        rows += batch?.num_rows();
    }
    Ok(rows)
}

pub fn run(args: &MemoryArgs, root: &Path) -> Result<()> {
    let path = file(args, root)?;
    let bytes = Bytes::from(
        std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?,
    );
    let file_mb = bytes.len() as f64 / 1e6;
    let b = args.batch_size;
    let mut readings = Vec::new();
    let mut measure = |name: &'static str, f: &dyn Fn() -> Result<usize>| -> Result<()> {
        let (rows, peak) = peak_bytes_during(f);
        readings.push(Reading {
            name,
            rows: rows?,
            peak,
        });
        Ok(())
    };
    measure("parq batches()", &|| parq_batches(&bytes, b))?;
    measure("parquet 60.1 batches", &|| parquet_60_batches(&bytes, b))?;
    measure("parq read_batch() (whole file)", &|| parq_whole(&bytes))?;
    println!(
        "Peak heap growth beyond the file bytes ({file_mb:.1} MB, {} rows, one row group, \
         read from memory), batches of {b} rows",
        args.rows
    );
    println!("| reading                         | rows      | peak MB | share of the file |");
    println!("|---------------------------------|-----------|---------|-------------------|");
    for r in &readings {
        if r.rows != args.rows {
            bail!("{} gave {} rows, not {}", r.name, r.rows, args.rows);
        }
        println!(
            "| {:<31} | {:>9} | {:>7.1} | {:>16.2}% |",
            r.name,
            r.rows,
            r.peak as f64 / 1e6,
            100.0 * r.peak as f64 / bytes.len() as f64
        );
    }
    Ok(())
}
