//! The `decode` command: column data decode, parq vs `parquet` 60.1.0 vs pyarrow.
//!
//! Each case (see [`crate::decode_cases`]) is generated and written once, in memory, by
//! `parquet` 60.1.0. On those bytes, interleaved in this process with the [`measure`]
//! harness:
//!
//! - parq: `ParquetReader::from_bytes(bytes).with_batch_size(rows).read_all()` (one batch per
//!   row group: parq batches never span row groups);
//! - `parquet` 60.1.0: `ParquetRecordBatchReaderBuilder::try_new(bytes)` with a batch size of
//!   all rows, every batch collected;
//! - pyarrow (`--peers pyarrow`), in a Python process right after:
//!   `pq.read_table(pa.BufferReader(buf), use_threads=False)`. That call is one thread only
//!   for a file of one row group: with more, pyarrow's dataset scanner decodes the next row
//!   groups on its IO pool while the first is read, so the table gives pyarrow's CPU time per
//!   call over its wall time (`pyarrow cores`), and `--pin-pyarrow` holds the process to one
//!   CPU for a one-core comparison.
//!
//! With a codec, the case's codec floor (one thread decompressing all its pages with parq's
//! page reader, [`codec_floor`]) is given beside it: the time only a faster codec removes.
//!
//! Every call starts from the file bytes, so the footer decode is part of every time. Before
//! the clock, parq's arrays are compared with 60.1's and with the arrays that were written
//! (an error if they differ), and each Rust implementation's peak heap growth during one
//! decode is taken with the counting allocator; pyarrow reports its memory pool's peak.
//! Row counts are checked on every timed call (pyarrow: row and null counts per sample run).

use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context, Result};
use arrow_60::{Array, RecordBatch};
use bytes::Bytes;
use parquet_60::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::json;

use crate::alloc::alloc_stats_during;
use crate::decode_cases::{
    all_cases, alp_cases, nested_cases, CaseSpec, Codec, Written, NULL_SHARE,
};
use crate::footer::check_writable;
use crate::measure::{measure, timed_simple, Case, MeasureArgs, MeasureConfig, Samples, Stats};
use crate::peers::{json_samples, json_u64, pyarrow_peer, run_harness_script, Python};
use crate::report::{
    first_seen, fmt_ms, fmt_speedup, machine_line, render_table, target_summary, write_json_values,
    Tally,
};
use crate::scan_floor::codec_floor;
use crate::workload::{selected_impls, Facts, Mode, PARQ, PARQUET_60, PYARROW};

/// Targets of the issue: parq at least this much faster than `parquet` 60.1.0 ...
pub const TARGET_VS_60: f64 = 1.5;
/// ... and than pyarrow, single-threaded.
pub const TARGET_VS_PYARROW: f64 = 1.5;
/// PLAIN fixed-width required uncompressed cases: parq within this factor of the memcpy
/// baseline.
pub const TARGET_VS_MEMCPY: f64 = 1.5;
/// Target: the bytes parq allocates to decode seed-001 at most this multiple of the output's.
pub const TARGET_SEED_ALLOC: f64 = 1.1;
/// Target: parq's seed-001 decode within this factor of the case's codec floor.
pub const TARGET_SEED_FLOOR: f64 = 1.2;
/// The memcpy baseline's row in the cells: copying as many bytes as the decoded output
/// holds, from one warm buffer to another (the physical limit of any decoder).
pub const MEMCPY: &str = "memcpy";

/// The options of `decode` and `encode` (the same cases, implementations and peers).
#[derive(clap::Args, Debug)]
pub struct DecodeArgs {
    /// Values per column in the per-encoding cases (and rows of the table case without
    /// `--full`).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub values: usize,
    /// Uncompressed, required columns only (plus seed-001 and the table).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// The table case with 10 x `--values` rows (10 million by default).
    #[arg(long)]
    pub full: bool,
    /// Page codecs to run (comma separated) [default: all; uncompressed with --quick].
    #[arg(long, value_name = "CODEC", value_delimiter = ',', value_parser = ["uncompressed", "snappy", "zstd"])]
    pub codecs: Vec<String>,
    /// Nullability variants to run (comma separated) [default: both; required with --quick].
    #[arg(long, value_name = "NULLS", value_delimiter = ',', value_parser = ["required", "nullable"])]
    pub nulls: Vec<String>,
    /// Only cases whose name contains one of these strings (comma separated).
    #[arg(long, value_name = "TEXT", value_delimiter = ',')]
    pub cases: Vec<String>,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Only these Rust implementations (comma separated; default: both).
    #[arg(long, value_name = "IMPL", value_delimiter = ',', value_parser = [PARQ, PARQUET_60])]
    pub impls: Vec<String>,
    /// Extra peers measured out of process (comma separated): pyarrow.
    #[arg(long, value_name = "PEER", value_delimiter = ',', value_parser = ["pyarrow"])]
    pub peers: Vec<String>,
    /// Python interpreter for pyarrow (default: $PARQ_PYTHON, `<workspace>/.venv/bin/python`, python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// `decode` only: run pyarrow's process on one CPU (`os.sched_setaffinity` before pyarrow
    /// is imported), so `use_threads=False` cannot decode row groups ahead on a second core.
    #[arg(long)]
    pub pin_pyarrow: bool,
    /// Directory for the files handed to pyarrow (default: `<workspace>/target/parq-bench-data`).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Write every cell as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// `encode` only: threads parq encodes a row group's columns on (its `threads` writer
    /// setting; the peers keep one thread).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: u16,
}

impl DecodeArgs {
    /// The selected cases; with `nested`, the nested cases too (with and without nulls
    /// unless `--nulls` says otherwise, a quarter as many rows as the flat cases have values).
    pub fn case_specs(&self, nested: bool) -> Result<Vec<CaseSpec>> {
        ensure!(self.values > 0, "--values must be at least 1");
        let codecs: Vec<Codec> = if !self.codecs.is_empty() {
            Codec::ALL
                .into_iter()
                .filter(|c| self.codecs.iter().any(|s| s == c.name()))
                .collect()
        } else if self.quick {
            vec![Codec::Uncompressed]
        } else {
            Codec::ALL.to_vec()
        };
        let nullability: Vec<bool> = if !self.nulls.is_empty() {
            [false, true]
                .into_iter()
                .filter(|&n| {
                    let name = if n { "nullable" } else { "required" };
                    self.nulls.iter().any(|s| s == name)
                })
                .collect()
        } else if self.quick {
            vec![false]
        } else {
            vec![false, true]
        };
        let table_rows = if self.full {
            self.values.saturating_mul(10)
        } else {
            self.values
        };
        let mut cases = all_cases(self.values, table_rows, &codecs, &nullability, self.quick);
        cases.extend(alp_cases(self.values, &codecs, &nullability));
        if nested {
            let both = if self.nulls.is_empty() {
                vec![false, true]
            } else {
                nullability.clone()
            };
            cases.extend(nested_cases((self.values / 4).max(1), &codecs, &both));
        }
        if !self.cases.is_empty() {
            cases.retain(|c| self.cases.iter().any(|pat| c.name.contains(pat.as_str())));
        }
        ensure!(!cases.is_empty(), "no case matches the selection");
        Ok(cases)
    }

    /// The selected Rust implementations, `parquet` 60.1.0 first.
    pub fn rust_impls(&self) -> Vec<&'static str> {
        selected_impls(&[PARQUET_60, PARQ], &self.impls)
    }

    /// Python with pyarrow when `--peers pyarrow` asks for it (announced on stderr), and the
    /// directory for the files handed to it (created when needed).
    pub fn pyarrow_setup(&self, workspace_root: &Path) -> Result<(Option<Python>, PathBuf)> {
        let python = pyarrow_peer(&self.peers, self.python.as_deref(), workspace_root);
        let data_dir = self
            .data_dir
            .clone()
            .unwrap_or_else(|| workspace_root.join("target/parq-bench-data"));
        if python.is_some() {
            std::fs::create_dir_all(&data_dir)
                .with_context(|| format!("cannot create {}", data_dir.display()))?;
        }
        Ok((python, data_dir))
    }
}

/// One measured cell: a case and an implementation.
#[derive(Clone, Debug)]
pub struct DecodeCell {
    pub case: String,
    pub ty: String,
    pub encoding: String,
    pub codec: &'static str,
    pub nullable: bool,
    pub rows: usize,
    pub values: usize,
    pub row_groups: usize,
    pub file_bytes: usize,
    pub imp: &'static str,
    pub stats: Stats,
    /// Peak heap growth during one decode (pyarrow: its memory pool's peak).
    pub heap_bytes: Option<usize>,
    /// Total bytes allocated during one decode (every allocation's size, a realloc counting
    /// its growth); Rust implementations only.
    pub alloc_bytes: Option<usize>,
    /// Bytes of the decoded Arrow arrays (their buffers), as parq produces them.
    pub output_bytes: usize,
    /// Median CPU time of the process per call, all its threads (pyarrow only).
    pub cpu_ns: Option<u64>,
    /// The case's codec floor: one thread decompressing every page (cases with a codec).
    pub floor_ns: Option<u64>,
}

impl DecodeCell {
    fn values_per_s(&self) -> f64 {
        self.values as f64 / (self.stats.median_ns.max(1) as f64 / 1e9)
    }

    fn output_gb_per_s(&self) -> f64 {
        self.output_bytes as f64 / self.stats.median_ns.max(1) as f64
    }
}

/// parq: every row of every column, one batch per row group.
pub fn read_parq(bytes: &Bytes, rows: usize) -> Result<Vec<RecordBatch>> {
    Ok(parq::read::ParquetReader::from_bytes(bytes.clone())?
        .with_batch_size(rows)
        .read_all()?)
}

/// `parquet` 60.1.0: every row of every column, in batches of all rows.
pub fn read_60(bytes: &Bytes, rows: usize) -> Result<Vec<RecordBatch>> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())?
        .with_batch_size(rows.max(1))
        .build()?;
    Ok(reader.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// What a decode reports back: rows decoded and columns (row groups are not compared, the
/// implementations batch differently).
pub fn facts(batches: &[RecordBatch]) -> Facts {
    Facts {
        num_rows: Some(batches.iter().map(|b| b.num_rows() as i64).sum()),
        row_groups: 0,
        column_chunks: batches.first().map_or(0, RecordBatch::num_columns),
    }
}

/// Compares two decodes of the same file (or a decode and the batches written) row by row,
/// whatever their batching.
pub fn compare(a: &[RecordBatch], b: &[RecordBatch], what: &str) -> Result<()> {
    let rows = |x: &[RecordBatch]| x.iter().map(RecordBatch::num_rows).sum::<usize>();
    let (total, total_b) = (rows(a), rows(b));
    ensure!(total == total_b, "{what}: {total} rows against {total_b}");
    let columns = a.first().map_or(0, RecordBatch::num_columns);
    ensure!(
        a.iter().chain(b).all(|x| x.num_columns() == columns),
        "{what}: different column counts"
    );
    let (mut ai, mut ao, mut bi, mut bo, mut row) = (0, 0, 0, 0, 0);
    while row < total {
        while a[ai].num_rows() == ao {
            ai += 1;
            ao = 0;
        }
        while b[bi].num_rows() == bo {
            bi += 1;
            bo = 0;
        }
        let len = (a[ai].num_rows() - ao).min(b[bi].num_rows() - bo);
        for c in 0..columns {
            let x = a[ai].column(c).slice(ao, len);
            let y = b[bi].column(c).slice(bo, len);
            if x.as_ref() != y.as_ref() {
                let first = (0..len)
                    .find(|&i| x.slice(i, 1).as_ref() != y.slice(i, 1).as_ref())
                    .map_or("?".to_string(), |i| (row + i).to_string());
                bail!(
                    "{what}: column {c} differs ({} vs {}), first at row {first}",
                    x.data_type(),
                    y.data_type()
                );
            }
        }
        ao += len;
        bo += len;
        row += len;
    }
    Ok(())
}

/// Times `pq.read_table(pa.BufferReader(buf), use_threads=False)` on the file at `argv[1]`
/// (on one CPU when `argv[2]` is `pin`), with the harness's rules; prints the samples, the
/// process's CPU time of each, the row and null counts and the memory pool's peak during the
/// first read.
const PYARROW_SCRIPT: &str = r#"
import json, os, sys, time
path, pin, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns = sys.argv[1:9]
if pin == "pin":
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import pyarrow as pa, pyarrow.parquet as pq
exact, min_iters, min_time_ns = int(exact), int(min_iters), int(min_time_ns)
warm_iters, warm_min_ns, warm_max_ns = int(warm_iters), int(warm_min_ns), int(warm_max_ns)
with open(path, "rb") as f:
    buf = pa.py_buffer(f.read())
pool = pa.default_memory_pool()
cpu = []
def once():
    c, t = time.process_time_ns(), time.perf_counter_ns()
    table = pq.read_table(pa.BufferReader(buf), use_threads=False)
    t = time.perf_counter_ns() - t
    cpu.append(time.process_time_ns() - c)
    return t, table
base = pool.bytes_allocated()
_, table = once()
peak = pool.max_memory() - base
del table
samples, table = measure(once, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns)
print(json.dumps({"samples_ns": samples, "iterations": len(samples),
    "cpu_ns": cpu[-len(samples):],
    "num_rows": table.num_rows, "num_columns": table.num_columns,
    "null_count": sum(c.null_count for c in table.columns), "peak_bytes": peak,
    "pool": pool.backend_name}))
"#;

/// What the pyarrow cell of a case reports: its samples, its memory pool's peak and the
/// median CPU time of its process per call.
struct PyarrowRun {
    samples: Samples,
    peak: Option<usize>,
    cpu_ns: Option<u64>,
}

/// Runs the pyarrow cell of one case (on one CPU with `pin`).
fn pyarrow_case(
    py: &Python,
    path: &Path,
    spec: &CaseSpec,
    written: &Written,
    cfg: &MeasureConfig,
    pin: bool,
) -> Result<PyarrowRun> {
    std::fs::write(path, &written.bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let pin = if pin { "pin" } else { "any" };
    let v = run_harness_script(py, PYARROW_SCRIPT, vec![path.into(), pin.into()], cfg);
    let _ = std::fs::remove_file(path);
    let v = v?;
    let (rows, columns) = (json_u64(&v, "num_rows")?, json_u64(&v, "num_columns")?);
    let nulls = json_u64(&v, "null_count")?;
    ensure!(
        rows as usize == spec.rows
            && columns as usize == spec.columns.len()
            && nulls as usize == written.null_count,
        "pyarrow decoded {rows} rows x {columns} columns with {nulls} nulls, expected {} x {} \
         with {}",
        spec.rows,
        spec.columns.len(),
        written.null_count
    );
    let samples = json_samples(&v)?;
    // The CPU times as samples of their own, for their median.
    let cpu = v["cpu_ns"].as_array().map(|a| Samples {
        samples_ns: a.iter().filter_map(|x| x.as_u64()).collect(),
        iterations: samples.iterations,
    });
    Ok(PyarrowRun {
        samples,
        peak: v["peak_bytes"].as_u64().map(|b| b as usize),
        cpu_ns: cpu.map(|c| c.stats().median_ns),
    })
}

/// Measures one case: checks the decodes, then the Rust implementations interleaved, then
/// pyarrow.
fn measure_case(
    spec: &CaseSpec,
    impls: &[&'static str],
    python: Option<&Python>,
    pyarrow_path: &Path,
    cfg: &MeasureConfig,
    pin_pyarrow: bool,
) -> Result<Vec<DecodeCell>> {
    let written = decode_cases_write(spec)?;
    let bytes = &written.bytes;
    let rows = spec.rows;

    // Correctness, once, outside the clock.
    let parq_out = read_parq(bytes, rows).context("parq decode")?;
    compare(
        &parq_out,
        std::slice::from_ref(&written.batch),
        "parq vs the written data",
    )?;
    let out_60 = read_60(bytes, rows).context("parquet 60.1.0 decode")?;
    compare(&parq_out, &out_60, "parq vs parquet 60.1.0")?;
    let output_bytes = output_bytes(&parq_out);
    drop((parq_out, out_60));
    // The memcpy baseline: warm source and destination buffers of the output's size.
    let src = vec![0x5au8; output_bytes];
    let mut dst = vec![0u8; output_bytes];
    let floor_ns = match spec.codec {
        Codec::Uncompressed => None,
        _ => Some(u64::try_from(codec_floor(bytes, None)?.as_nanos()).unwrap_or(u64::MAX)),
    };

    let expected = Facts {
        num_rows: Some(rows as i64),
        row_groups: 0,
        column_chunks: spec.columns.len(),
    };
    let mut cases = Vec::new();
    // Total bytes allocated by one decode, per implementation.
    let mut allocated: Vec<(&'static str, usize)> = Vec::new();
    for &imp in impls {
        let case = match imp {
            PARQ => {
                let (r, a) = alloc_stats_during(|| read_parq(bytes, rows));
                r?;
                allocated.push((PARQ, a.total_bytes));
                Case::new(PARQ, Mode::Decode, expected, Some(a.peak_bytes), move |n| {
                    timed_simple(n, || read_parq(bytes, rows), |b| facts(b))
                })
            }
            PARQUET_60 => {
                let (r, a) = alloc_stats_during(|| read_60(bytes, rows));
                r?;
                allocated.push((PARQUET_60, a.total_bytes));
                Case::new(
                    PARQUET_60,
                    Mode::Decode,
                    expected,
                    Some(a.peak_bytes),
                    move |n| timed_simple(n, || read_60(bytes, rows), |b| facts(b)),
                )
            }
            other => bail!("unknown implementation {other}"),
        };
        cases.push(case);
    }
    cases.push(Case::new(MEMCPY, Mode::Decode, expected, None, |n| {
        timed_simple(
            n,
            || {
                dst.copy_from_slice(std::hint::black_box(&src));
                Ok(std::hint::black_box(dst.len()))
            },
            |_| expected,
        )
    }));
    let samples = measure(&mut cases, cfg)?;
    let cell = |imp: &'static str, stats: Stats, heap_bytes: Option<usize>| DecodeCell {
        case: spec.name.clone(),
        ty: spec.ty.clone(),
        encoding: spec.encodings(),
        codec: spec.codec.name(),
        nullable: spec.nullable,
        rows,
        values: spec.values(),
        row_groups: written.row_groups,
        file_bytes: bytes.len(),
        imp,
        stats,
        heap_bytes,
        alloc_bytes: allocated.iter().find(|(i, _)| *i == imp).map(|&(_, b)| b),
        output_bytes,
        cpu_ns: None,
        floor_ns,
    };
    let mut cells: Vec<DecodeCell> = cases
        .iter()
        .zip(samples)
        .map(|(case, s)| cell(case.imp, s.stats(), case.heap_bytes))
        .collect();
    drop(cases);
    // pyarrow 26 does not read ALP.
    if let Some(py) = python.filter(|_| !spec.has_alp()) {
        let run = pyarrow_case(py, pyarrow_path, spec, &written, cfg, pin_pyarrow)?;
        cells.push(DecodeCell {
            cpu_ns: run.cpu_ns,
            ..cell(PYARROW, run.samples.stats(), run.peak)
        });
    }
    Ok(cells)
}

/// Bytes held by the buffers of the arrays (values, offsets, validity).
pub fn output_bytes(batches: &[RecordBatch]) -> usize {
    fn data_bytes(d: &arrow_data_60::ArrayData) -> usize {
        d.buffers().iter().map(|b| b.len()).sum::<usize>()
            + d.nulls().map_or(0, |n| n.buffer().len())
            + d.child_data().iter().map(data_bytes).sum::<usize>()
    }
    batches
        .iter()
        .flat_map(|b| b.columns())
        .map(|c| data_bytes(&c.to_data()))
        .sum()
}

fn decode_cases_write(spec: &CaseSpec) -> Result<Written> {
    crate::decode_cases::write_case(spec).with_context(|| format!("writing {}", spec.name))
}

pub fn run(args: &DecodeArgs, workspace_root: &Path) -> Result<()> {
    let specs = args.case_specs(true)?;
    check_writable(&args.json)?;
    let (python, data_dir) = args.pyarrow_setup(workspace_root)?;
    let pyarrow_path = data_dir.join(format!("decode-{}.parquet", std::process::id()));
    let impls = args.rust_impls();
    let cfg = args.measure.config();

    eprintln!("{} before measuring", machine_line());
    let mut cells = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        eprintln!("[{}/{}] {}", i + 1, specs.len(), spec.name);
        let measured = measure_case(
            spec,
            &impls,
            python.as_ref(),
            &pyarrow_path,
            &cfg,
            args.pin_pyarrow,
        )
        .with_context(|| spec.name.clone())?;
        for c in &measured {
            eprintln!("    {:<16} {:>9} ms", c.imp, fmt_ms(c.stats.median_ns));
        }
        cells.extend(measured);
    }
    println!("{} after measuring", machine_line());
    print!("{}", render_decode_tables(&cells));
    if let Some(p) = &args.json {
        write_json(&cells, p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

fn find<'c>(cells: &'c [DecodeCell], case: &str, imp: &str) -> Option<&'c DecodeCell> {
    cells.iter().find(|c| c.case == case && c.imp == imp)
}

/// The results table and the target summary.
pub fn render_decode_tables(cells: &[DecodeCell]) -> String {
    let cases = first_seen(cells.iter().map(|c| c.case.as_str()));
    let mb = |b: usize| format!("{:.1}", b as f64 / 1e6);
    let heap = |c: Option<&DecodeCell>| c.and_then(|c| c.heap_bytes).map_or("-".to_string(), &mb);
    let headers: Vec<String> = [
        "Case",
        "values",
        "file\nMB",
        "60.1\nms",
        "pyarrow\nms",
        "parq\nms",
        "parq\nMvalues/s",
        "parq out\nGB/s",
        "memcpy\nms",
        "parq /\nmemcpy",
        "parq speedup\nvs 60.1",
        "parq speedup\nvs pyarrow",
        "parq peak\nheap MB",
        "parq alloc\n/ output",
        "60.1 peak\nheap MB",
        "pyarrow pool\npeak MB",
        "pyarrow\ncores",
        "codec floor\nms",
        "parq /\nfloor",
    ]
    .map(String::from)
    .to_vec();
    let ms = |c: Option<&DecodeCell>| c.map_or("-".to_string(), |c| fmt_ms(c.stats.median_ns));
    let speedup = |peer: Option<&DecodeCell>, parq: Option<&DecodeCell>| match (peer, parq) {
        (Some(p), Some(q)) => Some(p.stats.median_ns as f64 / q.stats.median_ns.max(1) as f64),
        _ => None,
    };
    let mut rows = Vec::new();
    // Total bytes allocated per decode over the output's bytes.
    let alloc_ratio = |c: &DecodeCell| {
        c.alloc_bytes
            .map(|a| a as f64 / c.output_bytes.max(1) as f64)
    };
    let (mut alloc_seed, mut floor_seed) = (None, None);
    let (mut speed_60, mut speed_py, mut near_mem) =
        (Tally::default(), Tally::default(), Tally::default());
    for &case in &cases {
        let parq = find(cells, case, PARQ);
        let p60 = find(cells, case, PARQUET_60);
        let py = find(cells, case, PYARROW);
        let mem = find(cells, case, MEMCPY);
        let any = parq.or(p60).or(py).or(mem).expect("a cell of this case");
        // parq time / memcpy time (>= 1; the target applies to PLAIN fixed-width required).
        let vs_mem = speedup(parq, mem);
        // Uncompressed: with a codec the decompressor's speed is the limit.
        let plain_fixed = case.contains(" PLAIN required uncompressed")
            && ["int32", "int64", "float", "double", "flba16"]
                .iter()
                .any(|t| case.starts_with(t));
        if plain_fixed {
            near_mem.add(case, vs_mem, |r| r > TARGET_VS_MEMCPY);
        }
        let s60 = speedup(p60, parq);
        let spy = speedup(py, parq);
        // parq time / the codec floor.
        let vs_floor =
            parq.and_then(|c| Some(c.stats.median_ns as f64 / c.floor_ns?.max(1) as f64));
        speed_60.add(case, s60, |s| s < TARGET_VS_60);
        speed_py.add(case, spy, |s| s < TARGET_VS_PYARROW);
        rows.push(vec![
            case.to_string(),
            any.values.to_string(),
            mb(any.file_bytes),
            ms(p60),
            ms(py),
            ms(parq),
            parq.map_or("-".into(), |c| format!("{:.0}", c.values_per_s() / 1e6)),
            parq.map_or("-".into(), |c| format!("{:.1}", c.output_gb_per_s())),
            ms(mem),
            vs_mem.map_or("-".into(), |r| format!("{r:.2}")),
            s60.map_or("-".into(), fmt_speedup),
            spy.map_or("-".into(), fmt_speedup),
            heap(parq),
            parq.and_then(alloc_ratio)
                .map_or("-".into(), |r| format!("{r:.2}")),
            heap(p60),
            heap(py),
            py.and_then(|c| Some(c.cpu_ns? as f64 / c.stats.median_ns.max(1) as f64))
                .map_or("-".into(), |r| format!("{r:.2}")),
            any.floor_ns.map_or("-".into(), fmt_ms),
            vs_floor.map_or("-".into(), |r| format!("{r:.2}")),
        ]);
        if case.starts_with("seed-001") {
            floor_seed = vs_floor;
            alloc_seed = parq.and_then(alloc_ratio);
        }
    }
    let mut out = String::from(
        "Decode time, median ms per call (file bytes in memory -> Arrow arrays, footer included)\n",
    );
    out.push_str(&render_table(&headers, &rows));
    // Cases below the target: how many, and by name those where parq is slower outright.
    target_summary(&mut out, "parquet 60.1.0", TARGET_VS_60, &speed_60);
    target_summary(&mut out, "pyarrow (1 thread)", TARGET_VS_PYARROW, &speed_py);
    // A seed-001 ratio against its target (at most `limit`), when the case ran.
    let mut seed_target = |what: String, limit: f64, ratio: Option<f64>| {
        if let Some(r) = ratio {
            let verdict = if r <= limit { "met" } else { "missed" };
            out.push_str(&format!("target seed-001 {what}: {verdict} ({r:.2}x)\n"));
        }
    };
    seed_target(
        format!("bytes allocated by parq <= {TARGET_SEED_ALLOC}x the output"),
        TARGET_SEED_ALLOC,
        alloc_seed,
    );
    seed_target(
        format!("parq within {TARGET_SEED_FLOOR}x its codec floor"),
        TARGET_SEED_FLOOR,
        floor_seed,
    );
    if near_mem.n > 0 {
        out.push_str(&format!(
            "target PLAIN fixed-width required uncompressed within {TARGET_VS_MEMCPY}x of the memcpy baseline: \
             met in {} of {} cases\n",
            near_mem.n - near_mem.misses.len(),
            near_mem.n
        ));
        for (case, r) in &near_mem.misses {
            out.push_str(&format!("  above: {case} ({r:.2}x memcpy)\n"));
        }
    }
    out
}

/// Writes the cells in the `footer --json` shape, plus the decode case's details.
pub fn write_json(cells: &[DecodeCell], path: &Path) -> Result<()> {
    let values: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| {
            json!({
                "dataset": c.case,
                "type": c.ty,
                "impl": c.imp,
                "mode": "decode",
                "median_ns": c.stats.median_ns,
                "min_ns": c.stats.min_ns,
                "iterations": c.stats.iterations,
                "heap_bytes": c.heap_bytes,
                "alloc_bytes": c.alloc_bytes,
                "encoding": c.encoding,
                "codec": c.codec,
                "null_share": if c.nullable { NULL_SHARE } else { 0.0 },
                "rows": c.rows,
                "values": c.values,
                "row_groups": c.row_groups,
                "file_bytes": c.file_bytes,
                "values_per_s": c.values_per_s(),
                "output_bytes": c.output_bytes,
                "cpu_ns": c.cpu_ns,
                "codec_floor_ns": c.floor_ns,
            })
        })
        .collect();
    write_json_values(&values, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode_cases::{write_case, Kind};

    #[test]
    fn parq_matches_parquet_60_and_compare_catches_differences() {
        let specs = all_cases(500, 500, &[Codec::Snappy], &[true], false);
        let spec = specs
            .iter()
            .find(|s| s.columns[0].kind == Kind::String)
            .unwrap();
        let w = write_case(spec).unwrap();
        let parq = read_parq(&w.bytes, spec.rows).unwrap();
        let p60 = read_60(&w.bytes, spec.rows).unwrap();
        compare(&parq, &p60, "x").unwrap();
        compare(&parq, std::slice::from_ref(&w.batch), "x").unwrap();
        // Same rows, split differently: still equal.
        let split = [w.batch.slice(0, 123), w.batch.slice(123, spec.rows - 123)];
        compare(&split, &p60, "x").unwrap();
        // Different data: an error naming the first row.
        let other = all_cases(500, 500, &[Codec::Snappy], &[false], false);
        let other = write_case(
            other
                .iter()
                .find(|s| s.columns[0].kind == Kind::String)
                .unwrap(),
        )
        .unwrap();
        let err = compare(&parq, std::slice::from_ref(&other.batch), "x").unwrap_err();
        assert!(err.to_string().contains("first at row"), "{err}");
    }
}
