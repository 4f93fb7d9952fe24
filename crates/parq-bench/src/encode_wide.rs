//! The `encode-wide` command: one wide write, by default 100,000 nullable Float32 columns x
//! 20 row groups x 1,000 rows, parq vs `parquet` 60.1.0's `ArrowWriter` vs pyarrow, each in
//! a child process of its own (this binary's hidden `encode-wide-worker` command; pyarrow in
//! a Python process), so that what is measured is the whole process's memory.
//!
//! Every child builds the same row group once, outside the clock: column `c`, row `r` holds
//! `(r * 31 + c) as f32 * 0.5` (no nulls), one Arrow array per column (pyarrow: a NumPy
//! matrix, one zero-copy array per column), `--rows` x `--columns` x 4 bytes (400 MB by
//! default, reported as the input). Then, timed: the writer is created over a sink that
//! counts the bytes and drops them (Rust: an `io::Write` counter; pyarrow:
//! `pa.MockOutputStream`), the batch is written `--row-groups` times (each write one row
//! group: the row group limit is `--rows` everywhere), and the writer is closed. The child
//! checks the returned metadata (rows, row groups, columns) and reports the write time, its
//! RSS before the write and its peak RSS (`VmRSS` and `VmHWM` from `/proc/self/status`, so
//! the peak includes the input and the runtime: both are reported), and the file size.
//!
//! Settings: each writer's defaults except the codec, the same on all sides (`--codec`,
//! snappy by default: parq's and pyarrow's default; 60.1.0 defaults to uncompressed; zstd at
//! level 1), and the row group limit. Statistics (`--statistics`): `default` keeps each
//! writer's (parq: chunk statistics, page header statistics and the page index; 60.1.0:
//! chunk statistics and the page index; pyarrow: chunk and page header statistics, no page
//! index); `page` writes chunk statistics and the page index everywhere, as `parq-bench
//! encode` does (page header statistics: parq always, 60.1.0 turned on, pyarrow 26 never
//! with a page index). Dictionary encoding is on everywhere (`--no-dictionary`: off
//! everywhere); each column's 1,000 values per row group are distinct, so the peers write a
//! dictionary as large as the values plus the indices, while parq gives the dictionary up
//! when a chunk's first 1,000 values are all distinct and writes PLAIN.
//!
//! Each implementation runs `--runs` times, the runs interleaved; the time is the median,
//! the memory the largest peak. A child that fails, runs past `--timeout-s` or grows past
//! `--max-rss-mb` (3/4 of the machine's memory by default, so a writer that needs more
//! cannot take the machine down) is killed; its cell reads "failed: ..." and the others go
//! on. `--heap` adds the Rust writers' peak heap growth (counting allocator); pyarrow
//! always reports its memory pool's peak.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use arrow_60::{ArrayRef, Float32Array, RecordBatch};
use arrow_schema_60::{DataType, Field, Schema};
use parq::write::properties::WriterProperties;
use parquet_60::arrow::ArrowWriter;
use parquet_60::file::properties::WriterProperties as Props60;
use serde_json::json;

use crate::alloc::alloc_stats_during;
use crate::decode_cases::{Codec, ZSTD_LEVEL};
use crate::encode::parq_codec;
use crate::footer::check_writable;
use crate::measure::Samples;
use crate::peers::{json_u64, pyarrow_peer};
use crate::report::{fmt_speedup, machine_line, render_table, write_json_values};
use crate::workload::{selected_impls, PARQ, PARQUET_60, PYARROW};

/// The memory target for the default shape (100,000 columns x 20 row groups): peak RSS
/// under 600 MB, the input batch included.
pub const TARGET_PEAK_RSS: usize = 600_000_000;
/// The speed target against parquet 60.1 for the default shape.
pub const TARGET_WIDE_SPEEDUP_60: f64 = 5.0;

/// The speed target against peer `imp`: [`TARGET_WIDE_SPEEDUP_60`] against parquet 60.1,
/// the `encode` cases' target against the others.
fn speed_target(imp: &str) -> f64 {
    if imp == PARQUET_60 {
        TARGET_WIDE_SPEEDUP_60
    } else {
        crate::decode::TARGET_VS_60
    }
}

#[derive(clap::Args, Debug)]
pub struct WideArgs {
    /// Float32 columns.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub columns: usize,
    /// Row groups (each a write of the same batch).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub row_groups: usize,
    /// Rows per row group.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub rows: usize,
    /// Page codec of every writer.
    #[arg(long, default_value = "snappy", value_parser = ["uncompressed", "snappy", "zstd"])]
    pub codec: String,
    /// Statistics: each writer's default, or chunk + page header statistics + page index on all.
    #[arg(long, default_value = "default", value_parser = ["default", "page"])]
    pub statistics: String,
    /// Dictionary encoding off on every writer (by default it is on everywhere; parq gives
    /// it up when a chunk's first 1,000 values are all distinct, as here).
    #[arg(long)]
    pub no_dictionary: bool,
    /// Also report the Rust writers' peak heap growth during the write (counting allocator:
    /// an atomic update per allocation, so their times include that overhead).
    #[arg(long)]
    pub heap: bool,
    /// Runs per implementation (interleaved): the median time and the largest peak.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub runs: usize,
    /// Kill a child (and report its cell as failed) after this many seconds.
    #[arg(long, value_name = "S", default_value_t = 1200)]
    pub timeout_s: u64,
    /// Kill a child (and report its cell as failed) when its RSS passes this many MB
    /// (checked every 50 ms; 0: no limit) [default: 3/4 of the machine's memory].
    #[arg(long, value_name = "MB")]
    pub max_rss_mb: Option<u64>,
    /// Only these Rust implementations (comma separated; default: both).
    #[arg(long, value_name = "IMPL", value_delimiter = ',', value_parser = [PARQ, PARQUET_60])]
    pub impls: Vec<String>,
    /// Extra peers (comma separated): pyarrow.
    #[arg(long, value_name = "PEER", value_delimiter = ',', value_parser = ["pyarrow"])]
    pub peers: Vec<String>,
    /// Python interpreter for pyarrow (default: $PARQ_PYTHON, `<workspace>/.venv/bin/python`, python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Write the results as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// The shape and settings a child writes with.
#[derive(clap::Args, Debug, Clone)]
pub struct WideWorkerArgs {
    /// The implementation.
    #[arg(long = "impl", value_name = "IMPL", value_parser = [PARQ, PARQUET_60])]
    imp: String,
    #[arg(long)]
    columns: usize,
    #[arg(long)]
    row_groups: usize,
    #[arg(long)]
    rows: usize,
    #[arg(long)]
    codec: String,
    #[arg(long)]
    statistics: String,
    /// Count the heap during the write (its peak growth).
    #[arg(long)]
    heap: bool,
    /// Dictionary encoding off.
    #[arg(long)]
    no_dictionary: bool,
}

/// A `Write` that counts the bytes and drops them.
#[derive(Default)]
struct CountingSink {
    bytes: u64,
}

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A `/proc/self/status` value in bytes (`None` where there is no procfs).
fn proc_status_bytes(key: &str) -> Option<u64> {
    status_bytes("/proc/self/status", key)
}

/// A value in kB of a `/proc` status file (`status`, `meminfo`) in bytes.
fn status_bytes(path: &str, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    let line = status
        .lines()
        .find(|l| l.starts_with(key) && l[key.len()..].starts_with(':'))?;
    let kb: u64 = line[key.len() + 1..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// One row group of the wide table: `columns` nullable Float32 columns of `rows` values.
fn wide_batch(columns: usize, rows: usize) -> Result<RecordBatch> {
    let fields: Vec<Field> = (0..columns)
        .map(|c| Field::new(format!("c{c}"), DataType::Float32, true))
        .collect();
    let arrays: Vec<ArrayRef> = (0..columns)
        .map(|c| {
            let values = (0..rows).map(|r| (r * 31 + c) as f32 * 0.5);
            Arc::new(Float32Array::from_iter_values(values)) as ArrayRef
        })
        .collect();
    Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?)
}

fn codec_of(name: &str) -> Result<Codec> {
    Codec::ALL
        .into_iter()
        .find(|c| c.name() == name)
        .with_context(|| format!("unknown codec {name}"))
}

/// The child side: builds the batch, writes it `row_groups` times, prints the facts as JSON.
pub fn worker_main(args: &WideWorkerArgs) -> Result<()> {
    let codec = codec_of(&args.codec)?;
    let dictionary = !args.no_dictionary;
    // parq's default statistics are the `page` level; 60.1.0's lacks page header statistics.
    let parq_props = WriterProperties::builder()
        .compression(parq_codec(codec)?)
        .max_row_group_rows(Some(args.rows))
        .dictionary(dictionary)
        .build()?;
    let props_60 = Props60::builder()
        .set_compression(codec.compression()?)
        .set_max_row_group_row_count(Some(args.rows))
        .set_write_page_header_statistics(args.statistics == "page")
        .set_dictionary_enabled(dictionary)
        .build();
    let start = Instant::now();
    let batch = wide_batch(args.columns, args.rows)?;
    let generate_ns = start.elapsed().as_nanos() as u64;
    let rss_before = proc_status_bytes("VmRSS");
    let mut sink = CountingSink::default();
    let start = Instant::now();
    // (rows, row groups, columns) as the writer's metadata reports them.
    let write = || -> Result<(i64, usize, usize)> {
        Ok(match args.imp.as_str() {
            PARQ => {
                let schema = batch.schema();
                let mut w = parq::write::ParquetWriter::try_new(&mut sink, schema, parq_props)?;
                for _ in 0..args.row_groups {
                    w.write(&batch)?;
                }
                // As pyarrow's writer, the file's metadata is not made again at the end.
                let w = w.close_summary()?;
                (w.num_rows, w.num_row_groups, w.num_columns)
            }
            PARQUET_60 => {
                let mut w = ArrowWriter::try_new(&mut sink, batch.schema(), Some(props_60))?;
                for _ in 0..args.row_groups {
                    w.write(&batch)?;
                }
                let md = w.close()?;
                let file = md.file_metadata();
                let columns = file.schema_descr().num_columns();
                (file.num_rows(), md.num_row_groups(), columns)
            }
            other => bail!("unknown implementation {other}"),
        })
    };
    let (facts, heap_peak) = if args.heap {
        let (facts, a) = alloc_stats_during(write);
        (facts?, Some(a.peak_bytes))
    } else {
        (write()?, None)
    };
    let write_ns = start.elapsed().as_nanos() as u64;
    let peak_rss = proc_status_bytes("VmHWM");
    let expected = (
        (args.rows * args.row_groups) as i64,
        args.row_groups,
        args.columns,
    );
    ensure!(
        facts == expected,
        "wrote (rows, row groups, columns) {facts:?}, expected {expected:?}"
    );
    let out = json!({
        "write_ns": write_ns,
        "generate_ns": generate_ns,
        "rss_before_bytes": rss_before,
        "peak_rss_bytes": peak_rss,
        "input_bytes": args.columns * args.rows * 4,
        "output_bytes": sink.bytes,
        "heap_peak_bytes": heap_peak,
    });
    println!("{out}");
    Ok(())
}

/// The pyarrow child: `argv[1:8]` = columns, row groups, rows, codec, statistics, ZSTD level,
/// dictionary (on / off).
const PYARROW_SCRIPT: &str = r#"
import json, sys, time
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
pa.set_cpu_count(1)
pa.set_io_thread_count(1)
columns, row_groups, rows = map(int, sys.argv[1:4])
codec, statistics, zstd_level = sys.argv[4], sys.argv[5], int(sys.argv[6])
dictionary = sys.argv[7] == "on"
def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
start = time.perf_counter_ns()
values = np.empty((columns, rows), dtype=np.float32)
r31 = np.arange(rows, dtype=np.int64) * 31
for c0 in range(0, columns, 1024):
    c1 = min(c0 + 1024, columns)
    block = np.arange(c0, c1, dtype=np.int64)[:, None] + r31[None, :]
    values[c0:c1] = block.astype(np.float32) * np.float32(0.5)
del block
arrays = [pa.Array.from_buffers(pa.float32(), rows, [None, pa.py_buffer(values[c])])
          for c in range(columns)]
table = pa.Table.from_arrays(arrays, names=[f"c{c}" for c in range(columns)])
generate_ns = time.perf_counter_ns() - start
kwargs = {"compression": "none" if codec == "uncompressed" else codec,
    "use_dictionary": dictionary}
if codec == "zstd":
    kwargs["compression_level"] = zstd_level
if statistics == "page":
    kwargs["write_page_index"] = True
rss_before = status("VmRSS")
sink = pa.MockOutputStream()
start = time.perf_counter_ns()
writer = pq.ParquetWriter(sink, table.schema, **kwargs)
for _ in range(row_groups):
    writer.write_table(table, row_group_size=rows)
writer.close()
write_ns = time.perf_counter_ns() - start
md = writer.writer.metadata
got = [md.num_rows, md.num_row_groups, md.num_columns]
if got != [rows * row_groups, row_groups, columns]:
    sys.exit(f"wrote (rows, row groups, columns) {got}")
print(json.dumps({"write_ns": write_ns, "generate_ns": generate_ns,
    "rss_before_bytes": rss_before, "peak_rss_bytes": status("VmHWM"),
    "input_bytes": values.nbytes, "output_bytes": sink.size(),
    "pool_peak_bytes": pa.default_memory_pool().max_memory()}))
"#;

/// What one child reported.
#[derive(Clone, Debug)]
struct WideRun {
    write_ns: u64,
    wall: Duration,
    rss_before: Option<u64>,
    peak_rss: Option<u64>,
    input_bytes: u64,
    output_bytes: u64,
    /// Rust writers with `--heap`: the peak heap growth during the write.
    heap_peak: Option<u64>,
    /// pyarrow: its memory pool's peak.
    pool_peak: Option<u64>,
}

/// Reads a child's pipe to the end on a thread of its own (so a chatty child never blocks).
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_string(&mut text);
        }
        text
    })
}

/// Runs `cmd` with a time and an RSS limit (`max_rss` bytes, 0: none); its stdout parsed as
/// the child's JSON report.
fn run_child(mut cmd: Command, timeout: Duration, max_rss: u64) -> Result<WideRun> {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting the child")?;
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let proc_status = format!("/proc/{}/status", child.id());
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        let rss = status_bytes(&proc_status, "VmRSS").unwrap_or(0);
        let why = if start.elapsed() > timeout {
            Some(format!("timed out after {} s", timeout.as_secs()))
        } else if max_rss > 0 && rss > max_rss {
            Some(format!(
                "RSS passed the limit of {} MB",
                max_rss / 1_000_000
            ))
        } else {
            None
        };
        if let Some(why) = why {
            // The child is ours: kill it by its handle and reap it.
            let _ = child.kill();
            let _ = child.wait();
            bail!(why);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let wall = start.elapsed();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        let last = stderr.trim().lines().last().unwrap_or("no message");
        bail!("{status}: {last}");
    }
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).context("child output")?;
    Ok(WideRun {
        write_ns: json_u64(&v, "write_ns")?,
        wall,
        rss_before: v["rss_before_bytes"].as_u64(),
        peak_rss: v["peak_rss_bytes"].as_u64(),
        input_bytes: json_u64(&v, "input_bytes")?,
        output_bytes: json_u64(&v, "output_bytes")?,
        heap_peak: v["heap_peak_bytes"].as_u64(),
        pool_peak: v["pool_peak_bytes"].as_u64(),
    })
}

/// The command that runs one implementation's child.
fn child_command(args: &WideArgs, imp: &str, python: Option<&Path>) -> Result<Command> {
    let shape = [args.columns, args.row_groups, args.rows].map(|n| n.to_string());
    let cmd = match (imp, python) {
        (PYARROW, Some(py)) => {
            let mut cmd = Command::new(py);
            cmd.arg("-c").arg(PYARROW_SCRIPT).args(&shape);
            cmd.args([&args.codec, &args.statistics, &ZSTD_LEVEL.to_string()]);
            cmd.arg(if args.no_dictionary { "off" } else { "on" });
            cmd
        }
        (PYARROW, None) => bail!("pyarrow without Python"),
        _ => {
            let exe = std::env::current_exe().context("locating the parq-bench binary")?;
            let mut cmd = Command::new(exe);
            cmd.args(["encode-wide-worker", "--impl", imp]);
            for (flag, value) in ["--columns", "--row-groups", "--rows"].iter().zip(&shape) {
                cmd.args([*flag, value.as_str()]);
            }
            cmd.args(["--codec", &args.codec, "--statistics", &args.statistics]);
            if args.heap {
                cmd.arg("--heap");
            }
            if args.no_dictionary {
                cmd.arg("--no-dictionary");
            }
            cmd
        }
    };
    Ok(cmd)
}

/// Every run of one implementation, or why it stopped.
struct Outcome {
    imp: &'static str,
    runs: Vec<WideRun>,
    error: Option<String>,
}

impl Outcome {
    fn median_ns(&self) -> Option<u64> {
        let samples = Samples {
            samples_ns: self.runs.iter().map(|r| r.write_ns).collect(),
            iterations: self.runs.len(),
        };
        (!self.runs.is_empty()).then(|| samples.stats().median_ns)
    }

    fn max_of(&self, f: impl Fn(&WideRun) -> Option<u64>) -> Option<u64> {
        self.runs.iter().filter_map(f).max()
    }
}

pub fn run(args: &WideArgs, workspace_root: &Path) -> Result<()> {
    ensure!(
        args.columns > 0 && args.row_groups > 0 && args.rows > 0 && args.runs > 0,
        "--columns, --row-groups, --rows and --runs must be at least 1"
    );
    check_writable(&args.json)?;
    let mut impls = selected_impls(&[PARQUET_60, PARQ], &args.impls);
    let python = pyarrow_peer(&args.peers, args.python.as_deref(), workspace_root);
    if python.is_some() {
        impls.push(PYARROW);
    }
    let timeout = Duration::from_secs(args.timeout_s);
    let max_rss = match args.max_rss_mb {
        Some(mb) => mb * 1_000_000,
        None => status_bytes("/proc/meminfo", "MemTotal").map_or(0, |total| total / 4 * 3),
    };
    let mut outcomes: Vec<Outcome> = impls
        .iter()
        .map(|&imp| Outcome {
            imp,
            runs: Vec::new(),
            error: None,
        })
        .collect();
    eprintln!("{} before measuring", machine_line());
    for run in 0..args.runs {
        for o in outcomes.iter_mut().filter(|o| o.error.is_none()) {
            eprintln!("[run {}/{}] {}", run + 1, args.runs, o.imp);
            let py = python.as_ref().map(|p| p.path.as_path());
            match child_command(args, o.imp, py).and_then(|cmd| run_child(cmd, timeout, max_rss)) {
                Ok(r) => {
                    eprintln!(
                        "    write {:.2} s, peak RSS {} MB",
                        r.write_ns as f64 / 1e9,
                        r.peak_rss.map_or("?".into(), |b| mb(b as usize))
                    );
                    o.runs.push(r);
                }
                Err(e) => {
                    eprintln!("    failed: {e:#}");
                    o.error = Some(format!("{e:#}"));
                }
            }
        }
    }
    println!("{} after measuring", machine_line());
    print!("{}", render(args, &outcomes));
    if let Some(p) = &args.json {
        write_json(args, &outcomes, p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

fn mb(b: usize) -> String {
    format!("{:.0}", b as f64 / 1e6)
}

fn dataset(args: &WideArgs) -> String {
    format!(
        "Float32 {} cols {} row groups x {} rows",
        args.columns, args.row_groups, args.rows
    )
}

/// The results table and the memory and speed lines.
fn render(args: &WideArgs, outcomes: &[Outcome]) -> String {
    let parq = outcomes.iter().find(|o| o.imp == PARQ);
    let parq_ns = parq.and_then(Outcome::median_ns);
    let headers: Vec<String> = [
        "Writer",
        "write s\n(median)",
        "parq\nspeedup",
        "output\nMB",
        "input\nMB",
        "RSS before\nwrite MB",
        "peak RSS\nMB",
        "peak - before\nMB",
        "peak heap\n/ pool MB",
        "child wall\ns",
        "status",
    ]
    .map(String::from)
    .to_vec();
    let opt_mb = |b: Option<u64>| b.map_or("-".into(), |b| mb(b as usize));
    let rows: Vec<Vec<String>> = outcomes
        .iter()
        .map(|o| {
            let ns = o.median_ns();
            let speedup = match (ns, parq_ns) {
                (Some(p), Some(q)) if o.imp != PARQ => fmt_speedup(p as f64 / q.max(1) as f64),
                _ => "-".into(),
            };
            let growth = o.max_of(|r| Some(r.peak_rss?.saturating_sub(r.rss_before?)));
            let wall = o.runs.iter().map(|r| r.wall).max();
            vec![
                o.imp.to_string(),
                ns.map_or("-".into(), |n| format!("{:.2}", n as f64 / 1e9)),
                speedup,
                opt_mb(o.max_of(|r| Some(r.output_bytes))),
                opt_mb(o.max_of(|r| Some(r.input_bytes))),
                opt_mb(o.max_of(|r| r.rss_before)),
                opt_mb(o.max_of(|r| r.peak_rss)),
                opt_mb(growth),
                opt_mb(o.max_of(|r| r.heap_peak.or(r.pool_peak))),
                wall.map_or("-".into(), |w| format!("{:.1}", w.as_secs_f64())),
                match &o.error {
                    Some(e) => format!("failed: {e}"),
                    None => format!("ok ({} runs)", o.runs.len()),
                },
            ]
        })
        .collect();
    let mut out = format!(
        "Wide write: {}, codec {}, statistics {}{} (write time and memory of one file per child \
         process; sink counts and drops the bytes)\n",
        dataset(args),
        args.codec,
        args.statistics,
        if args.no_dictionary {
            ", dictionary off"
        } else {
            ""
        }
    );
    out.push_str(&render_table(&headers, &rows));
    if let Some(o) = parq.filter(|o| !o.runs.is_empty()) {
        let peak = o.max_of(|r| r.peak_rss).unwrap_or(0) as usize;
        let input = o.max_of(|r| Some(r.input_bytes)).unwrap_or(0) as usize;
        let verdict = if peak > 0 && peak < TARGET_PEAK_RSS {
            "met"
        } else {
            "missed"
        };
        out.push_str(&format!(
            "target parq peak RSS under 600 MB: {verdict} ({} MB = {:.0}% of 600 MB, of which \
             {} MB the input batch)\n",
            mb(peak),
            peak as f64 / TARGET_PEAK_RSS as f64 * 100.0,
            mb(input)
        ));
    }
    for o in outcomes.iter().filter(|o| o.imp != PARQ) {
        if let (Some(p), Some(q)) = (o.median_ns(), parq_ns) {
            let s = p as f64 / q.max(1) as f64;
            let target = speed_target(o.imp);
            let verdict = if s >= target { "met" } else { "missed" };
            out.push_str(&format!(
                "target parq >= {target}x faster than {}: {verdict} ({})\n",
                o.imp,
                fmt_speedup(s)
            ));
        }
    }
    out
}

/// Writes one JSON object per implementation (mode "encode-wide").
fn write_json(args: &WideArgs, outcomes: &[Outcome], path: &Path) -> Result<()> {
    let values: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| {
            json!({
                "dataset": dataset(args),
                "type": "float32",
                "impl": o.imp,
                "mode": "encode-wide",
                "median_ns": o.median_ns(),
                "min_ns": o.runs.iter().map(|r| r.write_ns).min(),
                "iterations": o.runs.len(),
                "columns": args.columns,
                "row_groups": args.row_groups,
                "rows": args.rows,
                "codec": args.codec,
                "statistics": args.statistics,
                "dictionary": !args.no_dictionary,
                "input_bytes": o.max_of(|r| Some(r.input_bytes)),
                "output_bytes": o.max_of(|r| Some(r.output_bytes)),
                "rss_before_bytes": o.max_of(|r| r.rss_before),
                "peak_rss_bytes": o.max_of(|r| r.peak_rss),
                "heap_bytes": o.max_of(|r| r.heap_peak.or(r.pool_peak)),
                "wall_ns": o.runs.iter().map(|r| r.wall.as_nanos() as u64).max(),
                "error": o.error,
            })
        })
        .collect();
    write_json_values(&values, path)
}
