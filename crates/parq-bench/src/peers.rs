//! The peers parq is measured against: the `parquet` crate 56.2.0 (Thrift-compiler generated
//! decoder) and 60.1.0 (hand-written decoder, statistics skip options, page index masks) as
//! [`Case`]s for a worker process, and pyarrow's `read_metadata` in a Python process; and
//! what every pyarrow peer shares: finding Python, running a script that prints JSON, the
//! measurement rules as script arguments.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use parquet_56::file::metadata as md56;
use parquet_60::file::metadata as md60;
use parquet_60::file::metadata::page_index::PageIndexProvider;

use crate::datasets::LoadedFile;
use crate::measure::{timed, timed_simple, Case, MeasureConfig, Samples};
use crate::measure::{WARMUP_ITERS, WARMUP_MAX, WARMUP_MIN};
use crate::workload::{Facts, Mode, PARQUET_56, PARQUET_60, PYARROW};

fn facts_60(md: &md60::ParquetMetaData) -> Facts {
    Facts {
        num_rows: Some(md.file_metadata().num_rows()),
        row_groups: md.num_row_groups(),
        column_chunks: md.row_groups().iter().map(|rg| rg.num_columns()).sum(),
    }
}

fn facts_56(md: &md56::ParquetMetaData) -> Facts {
    Facts {
        num_rows: Some(md.file_metadata().num_rows()),
        row_groups: md.num_row_groups(),
        column_chunks: md.row_groups().iter().map(|rg| rg.num_columns()).sum(),
    }
}

fn page_index_facts_60(
    index: &Option<md60::page_index::PageIndex>,
    shape: (usize, usize),
) -> Facts {
    let Some(index) = index else {
        return Facts::from_offset_index_counts(std::iter::empty());
    };
    let (row_groups, columns) = shape;
    Facts::from_offset_index_counts((0..row_groups).map(|rg| {
        (0..columns)
            .filter(|&c| index.offset_index(rg, c).is_some())
            .count()
    }))
}

/// Options that skip everything 60.1 can skip: column, size and encoding statistics.
fn no_stats_options() -> md60::ParquetMetaDataOptions {
    use md60::ParquetStatisticsPolicy::SkipAll;
    md60::ParquetMetaDataOptions::new()
        .with_column_stats_policy(SkipAll)
        .with_size_stats_policy(SkipAll)
        .with_encoding_stats_policy(SkipAll)
}

/// `parquet` 60.1.0 cases for the modes it supports.
pub fn parquet_60_cases<'a>(file: &'a LoadedFile, modes: &[Mode]) -> Result<Vec<Case<'a>>> {
    use md60::ParquetMetaDataReader as Reader;
    let shape = file.shape;
    let meta = file.metadata();
    let decoded = Reader::decode_metadata(meta).context("parquet 60.1.0 decode")?;
    let mut cases = Vec::new();
    for &mode in modes {
        let case = match mode {
            Mode::Metadata => Case::new(
                PARQUET_60,
                mode,
                shape.full(),
                Some(decoded.memory_size()),
                move |n| timed_simple(n, || Ok(Reader::decode_metadata(meta)?), facts_60),
            ),
            Mode::MetadataNoStats => {
                let options = no_stats_options();
                let heap =
                    Reader::decode_metadata_with_options(meta, Some(&options))?.memory_size();
                Case::new(PARQUET_60, mode, shape.full(), Some(heap), move |n| {
                    let decode = || Ok(Reader::decode_metadata_with_options(meta, Some(&options))?);
                    timed_simple(n, decode, facts_60)
                })
            }
            Mode::PageIndex | Mode::PageIndex10 => {
                let (mask, columns) = if mode == Mode::PageIndex {
                    (md60::ColumnChunkMask::all(), shape.columns)
                } else {
                    let cols = shape.spread_columns();
                    (
                        md60::ColumnChunkMask::columns(cols.iter().copied()),
                        cols.len(),
                    )
                };
                let reader = {
                    let mask = mask.clone();
                    move |md| {
                        Reader::new_with_metadata(md)
                            .with_page_index_policy(md60::PageIndexPolicy::Required)
                            .with_page_index_mask(mask.clone())
                    }
                };
                let mut with_index = reader(decoded.clone());
                with_index.read_page_indexes_sized(&file.tail, file.file_len)?;
                let heap = with_index.finish()?.memory_size() - decoded.memory_size();
                let decoded = decoded.clone();
                let expected = shape.page_index(shape.row_groups, columns);
                let dims = (shape.row_groups, shape.columns);
                Case::new(PARQUET_60, mode, expected, Some(heap), move |n| {
                    timed(
                        n,
                        || Ok(decoded.clone()),
                        |md| {
                            Ok(reader(md)
                                .read_page_index_sized_and_finish(&file.tail, file.file_len)?)
                        },
                        |(_, index)| page_index_facts_60(index, dims),
                    )
                })
            }
            _ => continue,
        };
        cases.push(case);
    }
    Ok(cases)
}

/// `parquet` 56.2.0 cases for the modes it supports (full decode and the full page index).
pub fn parquet_56_cases<'a>(file: &'a LoadedFile, modes: &[Mode]) -> Result<Vec<Case<'a>>> {
    use md56::ParquetMetaDataReader as Reader;
    let shape = file.shape;
    let meta = file.metadata();
    let decoded = Reader::decode_metadata(meta).context("parquet 56.2.0 decode")?;
    let read_index = move |md| -> Result<md56::ParquetMetaData> {
        let mut reader =
            Reader::new_with_metadata(md).with_page_index_policy(md56::PageIndexPolicy::Required);
        reader.read_page_indexes_sized(&file.tail, file.file_len)?;
        Ok(reader.finish()?)
    };
    let mut cases = Vec::new();
    for &mode in modes {
        let case = match mode {
            Mode::Metadata => Case::new(
                PARQUET_56,
                mode,
                shape.full(),
                Some(decoded.memory_size()),
                move |n| timed_simple(n, || Ok(Reader::decode_metadata(meta)?), facts_56),
            ),
            Mode::PageIndex => {
                let heap = read_index(decoded.clone())?.memory_size() - decoded.memory_size();
                let decoded = decoded.clone();
                let expected = shape.page_index(shape.row_groups, shape.columns);
                Case::new(PARQUET_56, mode, expected, Some(heap), move |n| {
                    timed(
                        n,
                        || Ok(decoded.clone()),
                        read_index,
                        |md| {
                            Facts::from_offset_index_counts(
                                md.offset_index().into_iter().flatten().map(|rg| rg.len()),
                            )
                        },
                    )
                })
            }
            _ => continue,
        };
        cases.push(case);
    }
    Ok(cases)
}

/// A Python interpreter that can import pyarrow.
pub struct Python {
    pub path: PathBuf,
    pub pyarrow_version: String,
}

/// Finds Python: `explicit`, else `$PARQ_PYTHON`, else `<workspace>/.venv/bin/python`, else
/// `python3`; `None` (with a note on stderr) when it is missing or cannot import pyarrow.
pub fn find_python(explicit: Option<&Path>, workspace_root: &Path) -> Option<Python> {
    let venv = workspace_root.join(".venv/bin/python");
    let path = explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("PARQ_PYTHON").map(PathBuf::from))
        .or_else(|| venv.is_file().then_some(venv))
        .unwrap_or_else(|| PathBuf::from("python3"));
    let out = Command::new(&path)
        .args(["-c", "import pyarrow; print(pyarrow.__version__)"])
        .output();
    match out {
        Ok(out) if out.status.success() => Some(Python {
            path,
            pyarrow_version: String::from_utf8_lossy(&out.stdout).trim().to_string(),
        }),
        Ok(_) => {
            eprintln!(
                "note: {} cannot import pyarrow; skipping the pyarrow peer",
                path.display()
            );
            None
        }
        Err(e) => {
            eprintln!(
                "note: cannot run {} ({e}); skipping the pyarrow peer",
                path.display()
            );
            None
        }
    }
}

/// Python with pyarrow when `peers` names pyarrow (announced on stderr); see [`find_python`].
pub fn pyarrow_peer(
    peers: &[String],
    explicit: Option<&Path>,
    workspace_root: &Path,
) -> Option<Python> {
    let python = if peers.iter().any(|p| p == PYARROW) {
        find_python(explicit, workspace_root)
    } else {
        None
    };
    if let Some(py) = &python {
        eprintln!("pyarrow {} via {}", py.pyarrow_version, py.path.display());
    }
    python
}

/// Times `pyarrow.parquet.read_metadata` over the same file tail, with the harness's rules
/// (warm-up, exact iterations or at least `min_iters` calls and `min_time`); prints the
/// per-call samples and the decoded shape.
const PYARROW_SCRIPT: &str = r#"
import json, sys, time
import pyarrow as pa, pyarrow.parquet as pq
path, offset, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns = sys.argv[1:9]
offset, exact, min_iters = int(offset), int(exact), int(min_iters)
min_time_ns, warm_iters, warm_min_ns, warm_max_ns = int(min_time_ns), int(warm_iters), int(warm_min_ns), int(warm_max_ns)
with open(path, "rb") as f:
    f.seek(offset)
    buf = pa.py_buffer(f.read())
def once():
    t = time.perf_counter_ns()
    md = pq.read_metadata(pa.BufferReader(buf))
    return time.perf_counter_ns() - t, md
samples, md = measure(once, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns)
print(json.dumps({"samples_ns": samples, "iterations": len(samples),
    "num_rows": md.num_rows, "row_groups": md.num_row_groups,
    "column_chunks": md.num_row_groups * md.num_columns}))
"#;

/// The measurement rules as the arguments the Python scripts take after their own: exact
/// iterations (0: by time), minimum samples, minimum time, warm-up calls, minimum and
/// maximum warm-up time (nanoseconds).
pub fn harness_args(cfg: &MeasureConfig) -> Vec<String> {
    [
        cfg.exact_iters.unwrap_or(0) as u128,
        cfg.min_iters as u128,
        cfg.min_time.as_nanos(),
        WARMUP_ITERS as u128,
        WARMUP_MIN.as_nanos(),
        WARMUP_MAX.as_nanos(),
    ]
    .map(|v| v.to_string())
    .to_vec()
}

/// Runs a harness script: `script` with `args` and then the measurement rules
/// ([`harness_args`]), parsing the JSON object it prints.
pub fn run_harness_script(
    py: &Python,
    script: &str,
    mut args: Vec<OsString>,
    cfg: &MeasureConfig,
) -> Result<serde_json::Value> {
    args.extend(harness_args(cfg).into_iter().map(OsString::from));
    run_python_json(py, &format!("{PY_MEASURE}{script}"), args)
}

/// The harness's rules in Python, put before every script [`run_harness_script`] runs:
/// `measure(once, ...)` warms up (one call when the iterations are exact, else calls until
/// the warm-up count and time), then times `once()` (which returns its nanoseconds and a
/// result) exactly `exact` times or at least `min_iters` times and `min_time_ns`; returns
/// the samples and the last call's result (each result dropped before the next call).
const PY_MEASURE: &str = r#"
import time
def measure(once, exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns):
    if exact > 0:
        warm_iters, warm_min_ns = 1, 0
    start, calls = time.perf_counter_ns(), 0
    while True:
        once(); calls += 1
        spent = time.perf_counter_ns() - start
        if calls >= warm_iters and (spent >= warm_min_ns or spent >= warm_max_ns):
            break
    samples, total, last = [], 0, None
    while (len(samples) < exact) if exact > 0 else (len(samples) < min_iters or total < min_time_ns):
        last = None
        ns, last = once()
        samples.append(ns); total += ns
    return samples, last
"#;

/// Runs `script` with `args` in Python and parses the JSON object it prints.
pub fn run_python_json(
    py: &Python,
    script: &str,
    args: impl IntoIterator<Item = OsString>,
) -> Result<serde_json::Value> {
    let out = Command::new(&py.path)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .with_context(|| format!("running {}", py.path.display()))?;
    if !out.status.success() {
        bail!(
            "pyarrow failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    serde_json::from_slice(&out.stdout).context("pyarrow output")
}

/// The unsigned integer `key` of a JSON object printed by a script or worker.
pub fn json_u64(v: &serde_json::Value, key: &str) -> Result<u64> {
    v[key]
        .as_u64()
        .with_context(|| format!("the output lacks {key}"))
}

/// The `samples_ns` and `iterations` of a JSON object printed by a script or worker.
pub fn json_samples(v: &serde_json::Value) -> Result<Samples> {
    let samples_ns = v["samples_ns"]
        .as_array()
        .and_then(|a| a.iter().map(|x| x.as_u64()).collect::<Option<Vec<u64>>>())
        .context("the output lacks samples_ns")?;
    Ok(Samples {
        samples_ns,
        iterations: json_u64(v, "iterations")? as usize,
    })
}

/// Runs the pyarrow cell for one file in a Python process.
pub fn pyarrow_samples(py: &Python, file: &LoadedFile, cfg: &MeasureConfig) -> Result<Samples> {
    let args: Vec<OsString> = vec![
        file.path.clone().into(),
        file.tail_offset.to_string().into(),
    ];
    let v = run_harness_script(py, PYARROW_SCRIPT, args, cfg)?;
    let shape = file.shape;
    let decoded = Facts {
        num_rows: Some(json_u64(&v, "num_rows")? as i64),
        row_groups: json_u64(&v, "row_groups")? as usize,
        column_chunks: json_u64(&v, "column_chunks")? as usize,
    };
    ensure!(
        decoded == shape.full(),
        "pyarrow decoded {decoded:?}, expected {:?}",
        shape.full()
    );
    json_samples(&v)
}
