//! The `encode` command: writing Arrow batches to Parquet, parq vs `parquet` 60.1.0's
//! `ArrowWriter` vs pyarrow, on the cases of `decode` ([`crate::decode_cases`]: every
//! encoding x type, required and 10% nulls, uncompressed / snappy / zstd, seed-001 and the
//! int64 + string table) and with its options (`--values`, `--quick`, `--full`, `--codecs`,
//! `--nulls`, `--cases`, `--impls`, `--peers pyarrow`, `--json`, the measurement options).
//!
//! Input: the case's values as one Arrow batch of all its rows ([`case_batch`]), the same
//! arrays for every writer. pyarrow gets the very same buffers: the bench writes them raw
//! (validity, offsets, values; a JSON header) to a file in `--data-dir`, and the Python
//! process wraps them with `pa.Array.from_buffers` (zero copy, outside pyarrow's memory pool).
//!
//! What is timed, per call, into a fresh in-memory sink:
//!
//! - parq: `ParquetWriter::try_new(&mut Vec::new(), schema, props)`, `write(&batch)`,
//!   `close()`;
//! - `parquet` 60.1.0: `ArrowWriter::try_new(&mut Vec::new(), schema, Some(props))`,
//!   `write(&batch)`, `close()`;
//! - pyarrow (`--peers pyarrow`, in a Python process after the Rust implementations, with
//!   `pa.set_cpu_count(1)` and `pa.set_io_thread_count(1)`): `pq.write_table(table,
//!   pa.BufferOutputStream(), **settings)` (`getvalue()` after the clock).
//!
//! The Rust implementations are interleaved by the [`measure`] harness (medians; its cases
//! carry `Mode::Decode`, the harness's mode for column data, but the JSON says "encode").
//!
//! Settings, the same on every side (each writer's defaults where they already agree):
//!
//! - encoding: DICT cases dictionary on (PLAIN fallback past a 1 MiB dictionary page); the
//!   cases with an explicit encoding have the dictionary off and that encoding set on the
//!   column; the table case keeps the defaults (dictionary on, PLAIN fallback);
//! - codec: the case's; ZSTD at level [`crate::decode_cases::ZSTD_LEVEL`] (1, the default
//!   of all three, set explicitly);
//! - statistics: chunk statistics (min/max, null count) and the page index (column index and
//!   offset index): parq's default `page` level, `parquet` 60.1.0's default
//!   `EnabledStatistics::Page`, pyarrow's default `write_statistics=True` plus
//!   `write_page_index=True`. Statistics in the data page headers as well: parq writes them
//!   at the `page` level (it has no setting without them), so 60.1.0 gets
//!   `set_write_page_header_statistics(true)`; pyarrow 26 cannot (it drops them whenever it
//!   writes the page index), so its pages are a few dozen bytes smaller. Binary min/max: parq
//!   and 60.1.0 truncate them to 64 bytes, pyarrow drops those over 4 KiB (only the seed-001
//!   blobs are that long);
//! - data pages: v1, at most 1 MiB and 20,000 rows; dictionary pages at most 1 MiB;
//! - row groups: all rows of the case in one row group (1 Mi rows at most, seed-001's 484
//!   rows), parq's byte budget off so the layout is the peers'.
//!
//! Before the clock, every output is checked: its encodings ([`check_encodings`]) and row
//! groups, and its values read back equal to the input (parq's output with parq's reader and
//! with 60.1.0's, 60.1.0's and pyarrow's with parq's). Each output's size is reported, with
//! parq's size over each peer's (a case where parq's file is more than 1% larger is listed),
//! and the peak heap growth during one write: the counting allocator for the Rust
//! implementations, the memory pool's peak for pyarrow (its arrays live outside the pool,
//! so the pool holds only what the write allocates).
//!
//! The 100,000-column write is `parq-bench encode-wide` ([`crate::encode_wide`]).

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use arrow_60::{Array, RecordBatch};
use arrow_schema_60::DataType;
use bytes::Bytes;
use parq::write::properties::{
    parse_encoding, Codec as ParqCodec, DataPageVersion, StatisticsLevel, WriterProperties,
};
use parquet_60::arrow::ArrowWriter;
use parquet_60::file::properties::{EnabledStatistics, WriterProperties as Props60};
use serde_json::json;

use crate::alloc::alloc_stats_during;
use crate::decode::{
    compare, output_bytes, read_60, read_parq, DecodeArgs, TARGET_VS_60, TARGET_VS_PYARROW,
};
use crate::decode_cases::{
    case_batch, check_encodings, props_60, CaseSpec, Codec, Enc, NULL_SHARE,
};
use crate::footer::check_writable;
use crate::measure::{measure, timed_simple, Case, MeasureConfig, Stats};
use crate::peers::{json_samples, json_u64, run_harness_script, Python};
use crate::report::{
    first_seen, fmt_ms, fmt_speedup, machine_line, render_table, target_summary, write_json_values,
    Tally,
};
use crate::workload::{Facts, Mode, PARQ, PARQUET_60, PYARROW};

/// Data page size limit of every writer (bytes, before compression).
pub const PAGE_BYTES: usize = 1024 * 1024;
/// Data page row limit of every writer.
pub const PAGE_ROWS: usize = 20_000;
/// Dictionary page size limit of every writer.
pub const DICTIONARY_PAGE_BYTES: usize = 1024 * 1024;
/// parq's output may be this much larger than a peer's before the case is listed.
pub const SIZE_TOLERANCE: f64 = 1.01;

/// parq's codec for one of the cases' codecs, at the same level as the peers'.
pub fn parq_codec(codec: Codec) -> Result<ParqCodec> {
    Ok(match codec.level() {
        Some(level) => ParqCodec::parse(&format!("{}:{level}", codec.name()))?,
        None => ParqCodec::parse(codec.name())?,
    })
}

/// parq's settings for a case (see the module documentation).
pub fn parq_props(spec: &CaseSpec) -> Result<WriterProperties> {
    let mut b = WriterProperties::builder()
        .compression(parq_codec(spec.codec)?)
        .statistics(StatisticsLevel::Page)
        .data_page_bytes(Some(PAGE_BYTES))
        .data_page_rows(Some(PAGE_ROWS))
        .dictionary_page_size_limit(DICTIONARY_PAGE_BYTES)
        .data_page_version(DataPageVersion::V1)
        .max_row_group_rows(Some(spec.rows_per_row_group()))
        .max_row_group_bytes(None);
    for col in &spec.columns {
        b = match (col.enc, col.enc.explicit_name()) {
            (Enc::Default, _) => b,
            (Enc::Dictionary, _) => b.column_dictionary(col.name, true),
            (_, Some(name)) => b
                .column_dictionary(col.name, false)
                .column_encoding(col.name, parse_encoding(name)?),
            (other, None) => bail!("no encoding to set for {}", other.name()),
        };
    }
    Ok(b.build()?)
}

/// `parquet` 60.1.0's settings for a case: `decode`'s ([`props_60`]) with the common limits
/// and statistics set explicitly.
pub fn encode_props_60(spec: &CaseSpec) -> Result<Props60> {
    Ok(props_60(spec)?
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_write_page_header_statistics(true)
        .set_data_page_size_limit(PAGE_BYTES)
        .set_data_page_row_count_limit(PAGE_ROWS)
        .set_dictionary_page_size_limit(DICTIONARY_PAGE_BYTES)
        .set_max_row_group_row_count(Some(spec.rows_per_row_group()))
        .build())
}

/// pyarrow's settings for a case: the keyword arguments of `pq.write_table`.
pub fn pyarrow_kwargs(spec: &CaseSpec) -> serde_json::Value {
    let dictionary: Vec<&str> = spec
        .columns
        .iter()
        .filter(|c| matches!(c.enc, Enc::Dictionary | Enc::Default))
        .map(|c| c.name)
        .collect();
    let encodings: serde_json::Map<String, serde_json::Value> = spec
        .columns
        .iter()
        .filter_map(|c| Some((c.name.to_string(), c.enc.explicit_name()?.into())))
        .collect();
    let compression = match spec.codec {
        Codec::Uncompressed => "none",
        other => other.name(),
    };
    json!({
        "use_dictionary": dictionary,
        "column_encoding": (!encodings.is_empty()).then_some(encodings),
        "compression": compression,
        "compression_level": spec.codec.level(),
        "write_statistics": true,
        "write_page_index": true,
        "data_page_size": PAGE_BYTES,
        "max_rows_per_page": PAGE_ROWS,
        "dictionary_pagesize_limit": DICTIONARY_PAGE_BYTES,
        "data_page_version": "1.0",
        "row_group_size": spec.rows_per_row_group(),
    })
}

/// One parq write into a fresh buffer: the file and its row group count.
pub fn write_parq(batch: &RecordBatch, props: &WriterProperties) -> Result<(Vec<u8>, usize)> {
    let mut buf = Vec::new();
    let mut writer = parq::write::ParquetWriter::try_new(&mut buf, batch.schema(), props.clone())?;
    writer.write(batch)?;
    let meta = writer.close()?;
    Ok((buf, meta.row_groups.len()))
}

/// One `parquet` 60.1.0 write into a fresh buffer: the file and its row group count.
pub fn write_60(batch: &RecordBatch, props: &Props60) -> Result<(Vec<u8>, usize)> {
    let mut buf = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut buf, batch.schema(), Some(props.clone()))?;
    writer.write(batch)?;
    let meta = writer.close()?;
    Ok((buf, meta.num_row_groups()))
}

/// Checks one writer's output of a case: encodings, row groups, and the values read back
/// by parq (and by `parquet` 60.1.0 with `with_60`) equal to the input. Returns its size.
fn verify(
    spec: &CaseSpec,
    batch: &RecordBatch,
    file: Bytes,
    who: &str,
    with_60: bool,
) -> Result<usize> {
    let row_groups = check_encodings(spec, &file).with_context(|| format!("{who}'s output"))?;
    ensure!(
        row_groups == spec.row_groups(),
        "{who} wrote {row_groups} row groups, expected {}",
        spec.row_groups()
    );
    let input = std::slice::from_ref(batch);
    let by_parq =
        read_parq(&file, spec.rows).with_context(|| format!("parq reading {who}'s output"))?;
    compare(
        &by_parq,
        input,
        &format!("{who}'s output read by parq vs the input"),
    )?;
    if with_60 {
        let by_60 = read_60(&file, spec.rows)
            .with_context(|| format!("parquet 60.1.0 reading {who}'s output"))?;
        compare(
            &by_60,
            input,
            &format!("{who}'s output read by parquet 60.1.0 vs the input"),
        )?;
    }
    Ok(file.len())
}

/// The raw-buffer type names the pyarrow script knows.
fn raw_type(dt: &DataType) -> Result<&'static str> {
    Ok(match dt {
        DataType::Int32 => "int32",
        DataType::Int64 => "int64",
        DataType::Float32 => "float32",
        DataType::Float64 => "float64",
        DataType::Boolean => "bool",
        DataType::FixedSizeBinary(16) => "binary16",
        DataType::Utf8 => "string",
        DataType::Binary => "binary",
        other => bail!("no raw-buffer form for {other}"),
    })
}

/// Writes the batch's Arrow buffers for pyarrow: an 8-byte little-endian header length, a
/// JSON header (per column: name, type, nullability, length, null count, and the
/// `[offset, length]` of its validity and data buffers, offsets counted from the first
/// 64-byte boundary after the header), then the buffers, each at a 64-byte aligned offset.
fn write_raw_batch(batch: &RecordBatch, path: &Path) -> Result<()> {
    const ALIGN: usize = 64;
    let schema = batch.schema();
    let datas: Vec<_> = batch.columns().iter().map(|c| c.to_data()).collect();
    let mut blobs: Vec<&[u8]> = Vec::new();
    let mut header = Vec::new();
    let mut end = 0usize;
    for (field, data) in schema.fields().iter().zip(&datas) {
        let sliced = data.offset() != 0 || data.nulls().is_some_and(|n| n.offset() != 0);
        ensure!(!sliced, "column {} is a slice", field.name());
        let mut place = |b: &[u8]| {
            let at = end.next_multiple_of(ALIGN);
            end = at + b.len();
            [at, b.len()]
        };
        let validity = data.nulls().map(|n| place(n.buffer().as_slice()));
        let buffers: Vec<[usize; 2]> = data.buffers().iter().map(|b| place(b.as_slice())).collect();
        blobs.extend(data.nulls().map(|n| n.buffer().as_slice()));
        blobs.extend(data.buffers().iter().map(|b| b.as_slice()));
        header.push(json!({
            "name": field.name(),
            "type": raw_type(field.data_type())?,
            "nullable": field.is_nullable(),
            "length": data.len(),
            "null_count": data.null_count(),
            "validity": validity,
            "buffers": buffers,
        }));
    }
    let header = serde_json::to_vec(&header)?;
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    out.write_all(&(header.len() as u64).to_le_bytes())?;
    out.write_all(&header)?;
    let head = 8 + header.len();
    out.write_all(&vec![0u8; head.next_multiple_of(ALIGN) - head])?;
    let mut pos = 0usize;
    for blob in blobs {
        let at = pos.next_multiple_of(ALIGN);
        out.write_all(&vec![0u8; at - pos])?;
        out.write_all(blob)?;
        pos = at + blob.len();
    }
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Wraps the raw buffers at argv[1] as a table (zero copy), writes it once to argv[2] (the
/// output the bench checks) while taking the memory pool's peak, then times
/// `pq.write_table(table, pa.BufferOutputStream(), **settings)` (settings: argv[3], JSON)
/// with the harness's rules (argv[4:10]); prints the samples, the output size and the peak.
const PYARROW_SCRIPT: &str = r#"
import json, sys, time
import pyarrow as pa, pyarrow.parquet as pq
pa.set_cpu_count(1)
pa.set_io_thread_count(1)
raw_path, out_path, kwargs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
exact, min_iters, min_time_ns, warm_iters, warm_min_ns, warm_max_ns = map(int, sys.argv[4:10])
TYPES = {"int32": pa.int32(), "int64": pa.int64(), "float32": pa.float32(),
    "float64": pa.float64(), "bool": pa.bool_(), "binary16": pa.binary(16),
    "string": pa.string(), "binary": pa.binary()}
with open(raw_path, "rb") as f:
    raw = f.read()
n = int.from_bytes(raw[:8], "little")
columns = json.loads(raw[8:8 + n])
data = pa.py_buffer(raw).slice(-(-(8 + n) // 64) * 64)
def buf(r):
    return None if r is None else data.slice(r[0], r[1])
arrays, fields = [], []
for c in columns:
    t = TYPES[c["type"]]
    arrays.append(pa.Array.from_buffers(t, c["length"],
        [buf(c["validity"])] + [buf(b) for b in c["buffers"]], null_count=c["null_count"]))
    fields.append(pa.field(c["name"], t, nullable=c["nullable"]))
table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
table.validate(full=True)
pool = pa.default_memory_pool()
def once():
    sink = pa.BufferOutputStream()
    t = time.perf_counter_ns()
    pq.write_table(table, sink, **kwargs)
    ns = time.perf_counter_ns() - t
    return ns, sink.getvalue()
base = pool.bytes_allocated()
_, out = once()
peak = pool.max_memory() - base
with open(out_path, "wb") as f:
    f.write(out)
size = out.size
del out
if exact > 0:
    warm_iters, warm_min_ns = 1, 0
start, calls = time.perf_counter_ns(), 0
while True:
    once(); calls += 1
    spent = time.perf_counter_ns() - start
    if calls >= warm_iters and (spent >= warm_min_ns or spent >= warm_max_ns):
        break
samples, total = [], 0
while (len(samples) < exact) if exact > 0 else (len(samples) < min_iters or total < min_time_ns):
    ns, _ = once()
    samples.append(ns); total += ns
print(json.dumps({"samples_ns": samples, "iterations": len(samples), "peak_bytes": peak,
    "output_bytes": size, "pool": pool.backend_name}))
"#;

/// What pyarrow's cell brings back.
struct PyarrowRun {
    stats: Stats,
    peak_bytes: Option<usize>,
    output_bytes: usize,
}

/// Runs the pyarrow cell of one case and checks its output.
fn pyarrow_case(
    py: &Python,
    dir: &Path,
    spec: &CaseSpec,
    batch: &RecordBatch,
    cfg: &MeasureConfig,
) -> Result<PyarrowRun> {
    let pid = std::process::id();
    let (raw, out) = (
        dir.join(format!("encode-{pid}.arrow-buffers")),
        dir.join(format!("encode-{pid}-pyarrow.parquet")),
    );
    let run = || -> Result<(serde_json::Value, Bytes)> {
        write_raw_batch(batch, &raw)?;
        let args: Vec<OsString> = vec![
            raw.clone().into(),
            out.clone().into(),
            pyarrow_kwargs(spec).to_string().into(),
        ];
        let v = run_harness_script(py, PYARROW_SCRIPT, args, cfg)?;
        let file = std::fs::read(&out).with_context(|| format!("reading {}", out.display()))?;
        Ok((v, Bytes::from(file)))
    };
    let result = run();
    let _ = std::fs::remove_file(&raw);
    let _ = std::fs::remove_file(&out);
    let (v, file) = result?;
    let output_bytes = verify(spec, batch, file, PYARROW, false)?;
    ensure!(
        json_u64(&v, "output_bytes")? as usize == output_bytes,
        "pyarrow reported another output size"
    );
    Ok(PyarrowRun {
        stats: json_samples(&v)?.stats(),
        peak_bytes: v["peak_bytes"].as_u64().map(|b| b as usize),
        output_bytes,
    })
}

/// One measured cell: a case and an implementation.
#[derive(Clone, Debug)]
pub struct EncodeCell {
    pub case: String,
    pub ty: String,
    pub encoding: String,
    pub codec: &'static str,
    pub nullable: bool,
    pub rows: usize,
    pub values: usize,
    pub row_groups: usize,
    /// Bytes of the input's Arrow buffers.
    pub input_bytes: usize,
    pub imp: &'static str,
    pub stats: Stats,
    /// Peak heap growth during one write (pyarrow: its memory pool's peak).
    pub heap_bytes: Option<usize>,
    /// Total bytes allocated during one write; Rust implementations only.
    pub alloc_bytes: Option<usize>,
    /// Size of the Parquet file this implementation wrote.
    pub output_bytes: usize,
}

impl EncodeCell {
    fn values_per_s(&self) -> f64 {
        self.values as f64 / (self.stats.median_ns.max(1) as f64 / 1e9)
    }
}

/// Measures one case: checks every output, then the Rust implementations interleaved, then
/// pyarrow.
fn measure_case(
    spec: &CaseSpec,
    impls: &[&'static str],
    python: Option<&Python>,
    dir: &Path,
    cfg: &MeasureConfig,
) -> Result<Vec<EncodeCell>> {
    let batch = case_batch(spec)?;
    let props = parq_props(spec)?;
    let props60 = encode_props_60(spec)?;
    let expected = Facts {
        num_rows: Some(spec.rows as i64),
        row_groups: spec.row_groups(),
        column_chunks: spec.columns.len(),
    };
    let facts = |(_, row_groups): &(Vec<u8>, usize)| Facts {
        row_groups: *row_groups,
        ..expected
    };
    let (batch, props, props60) = (&batch, &props, &props60);

    // Correctness, sizes and memory, once, outside the clock.
    let mut cases = Vec::new();
    // (implementation, output bytes, total bytes allocated by one write)
    let mut written: Vec<(&'static str, usize, usize)> = Vec::new();
    for &imp in impls {
        let case = match imp {
            PARQ => {
                let (out, a) = alloc_stats_during(|| write_parq(batch, props));
                let (file, _) = out.context("parq write")?;
                let size = verify(spec, batch, Bytes::from(file), PARQ, true)?;
                written.push((PARQ, size, a.total_bytes));
                Case::new(PARQ, Mode::Decode, expected, Some(a.peak_bytes), move |n| {
                    timed_simple(n, || write_parq(batch, props), facts)
                })
            }
            PARQUET_60 => {
                let (out, a) = alloc_stats_during(|| write_60(batch, props60));
                let (file, _) = out.context("parquet 60.1.0 write")?;
                let size = verify(spec, batch, Bytes::from(file), PARQUET_60, false)?;
                written.push((PARQUET_60, size, a.total_bytes));
                Case::new(
                    PARQUET_60,
                    Mode::Decode,
                    expected,
                    Some(a.peak_bytes),
                    move |n| timed_simple(n, || write_60(batch, props60), facts),
                )
            }
            other => bail!("unknown implementation {other}"),
        };
        cases.push(case);
    }
    let samples = measure(&mut cases, cfg)?;
    let input_bytes = output_bytes(std::slice::from_ref(batch));
    let cell = |imp: &'static str, stats: Stats, heap_bytes: Option<usize>| {
        let (output_bytes, alloc_bytes) = written
            .iter()
            .find(|(i, _, _)| *i == imp)
            .map_or((0, None), |&(_, size, alloc)| (size, Some(alloc)));
        EncodeCell {
            case: spec.name.clone(),
            ty: spec.ty.clone(),
            encoding: spec.encodings(),
            codec: spec.codec.name(),
            nullable: spec.nullable,
            rows: spec.rows,
            values: spec.values(),
            row_groups: spec.row_groups(),
            input_bytes,
            imp,
            stats,
            heap_bytes,
            alloc_bytes,
            output_bytes,
        }
    };
    let mut cells: Vec<EncodeCell> = cases
        .iter()
        .zip(samples)
        .map(|(case, s)| cell(case.imp, s.stats(), case.heap_bytes))
        .collect();
    drop(cases);
    if let Some(py) = python {
        let run = pyarrow_case(py, dir, spec, batch, cfg)?;
        cells.push(EncodeCell {
            output_bytes: run.output_bytes,
            ..cell(PYARROW, run.stats, run.peak_bytes)
        });
    }
    Ok(cells)
}

pub fn run(args: &DecodeArgs, workspace_root: &Path) -> Result<()> {
    let specs = args.case_specs(false)?;
    check_writable(&args.json)?;
    let (python, data_dir) = args.pyarrow_setup(workspace_root)?;
    let impls = args.rust_impls();
    let cfg = args.measure.config();

    eprintln!("{} before measuring", machine_line());
    let mut cells = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        eprintln!("[{}/{}] {}", i + 1, specs.len(), spec.name);
        let measured = measure_case(spec, &impls, python.as_ref(), &data_dir, &cfg)
            .with_context(|| spec.name.clone())?;
        for c in &measured {
            eprintln!(
                "    {:<16} {:>9} ms {:>12} bytes",
                c.imp,
                fmt_ms(c.stats.median_ns),
                c.output_bytes
            );
        }
        cells.extend(measured);
    }
    println!("{} after measuring", machine_line());
    print!("{}", render_encode_tables(&cells));
    if let Some(p) = &args.json {
        write_json(&cells, p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// Millions of values per second, with about three significant digits.
fn fmt_mvalues(per_s: f64) -> String {
    match per_s / 1e6 {
        m if m >= 100.0 => format!("{m:.0}"),
        m if m >= 10.0 => format!("{m:.1}"),
        m => format!("{m:.2}"),
    }
}

fn find<'c>(cells: &'c [EncodeCell], case: &str, imp: &str) -> Option<&'c EncodeCell> {
    cells.iter().find(|c| c.case == case && c.imp == imp)
}

/// The results table and the target summaries.
pub fn render_encode_tables(cells: &[EncodeCell]) -> String {
    let cases = first_seen(cells.iter().map(|c| c.case.as_str()));
    let mb = |b: usize| format!("{:.2}", b as f64 / 1e6);
    let heap = |c: Option<&EncodeCell>| c.and_then(|c| c.heap_bytes).map_or("-".into(), mb);
    let out_mb = |c: Option<&EncodeCell>| c.map_or("-".into(), |c| mb(c.output_bytes));
    let ms = |c: Option<&EncodeCell>| c.map_or("-".into(), |c| fmt_ms(c.stats.median_ns));
    let ratio = |a: Option<f64>| a.map_or("-".into(), |r| format!("{r:.3}"));
    let headers: Vec<String> = [
        "Case",
        "values",
        "input\nMB",
        "60.1\nms",
        "pyarrow\nms",
        "parq\nms",
        "parq\nMvalues/s",
        "parq speedup\nvs 60.1",
        "parq speedup\nvs pyarrow",
        "parq out\nMB",
        "60.1 out\nMB",
        "pyarrow\nout MB",
        "size parq\n/ 60.1",
        "size parq\n/ pyarrow",
        "parq peak\nheap MB",
        "60.1 peak\nheap MB",
        "pyarrow pool\npeak MB",
    ]
    .map(String::from)
    .to_vec();
    let speedup = |peer: Option<&EncodeCell>, parq: Option<&EncodeCell>| {
        Some(peer?.stats.median_ns as f64 / parq?.stats.median_ns.max(1) as f64)
    };
    let size_ratio = |parq: Option<&EncodeCell>, peer: Option<&EncodeCell>| {
        Some(parq?.output_bytes as f64 / peer?.output_bytes.max(1) as f64)
    };
    let (mut speed_60, mut speed_py) = (Tally::default(), Tally::default());
    let (mut size_60, mut size_py) = (Tally::default(), Tally::default());
    let mut rows = Vec::new();
    for &case in &cases {
        let parq = find(cells, case, PARQ);
        let p60 = find(cells, case, PARQUET_60);
        let py = find(cells, case, PYARROW);
        let Some(any) = parq.or(p60).or(py) else {
            continue;
        };
        let (s60, spy) = (speedup(p60, parq), speedup(py, parq));
        let (r60, rpy) = (size_ratio(parq, p60), size_ratio(parq, py));
        speed_60.add(case, s60, |s| s < TARGET_VS_60);
        speed_py.add(case, spy, |s| s < TARGET_VS_PYARROW);
        size_60.add(case, r60, |r| r > SIZE_TOLERANCE);
        size_py.add(case, rpy, |r| r > SIZE_TOLERANCE);
        rows.push(vec![
            case.to_string(),
            any.values.to_string(),
            mb(any.input_bytes),
            ms(p60),
            ms(py),
            ms(parq),
            parq.map_or("-".into(), |c| fmt_mvalues(c.values_per_s())),
            s60.map_or("-".into(), fmt_speedup),
            spy.map_or("-".into(), fmt_speedup),
            out_mb(parq),
            out_mb(p60),
            out_mb(py),
            ratio(r60),
            ratio(rpy),
            heap(parq),
            heap(p60),
            heap(py),
        ]);
    }
    let mut out = String::from(
        "Encode time, median ms per call (Arrow batch -> Parquet file in memory, footer included)\n",
    );
    out.push_str(&render_table(&headers, &rows));
    target_summary(&mut out, "parquet 60.1.0", TARGET_VS_60, &speed_60);
    target_summary(&mut out, "pyarrow (1 thread)", TARGET_VS_PYARROW, &speed_py);
    for (peer, tally) in [("parquet 60.1.0", &size_60), ("pyarrow", &size_py)] {
        if tally.n == 0 {
            continue;
        }
        out.push_str(&format!(
            "target output no larger than {peer}'s (within {:.0}%): met in {} of {} cases\n",
            (SIZE_TOLERANCE - 1.0) * 100.0,
            tally.n - tally.misses.len(),
            tally.n
        ));
        for (case, r) in &tally.misses {
            out.push_str(&format!("  larger: {case} ({r:.3}x {peer}'s size)\n"));
        }
    }
    out
}

/// Writes the cells in `decode --json`'s shape (mode "encode"; `output_bytes`: the file
/// written, `input_bytes`: the Arrow buffers written).
pub fn write_json(cells: &[EncodeCell], path: &Path) -> Result<()> {
    let values: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| {
            json!({
                "dataset": c.case,
                "type": c.ty,
                "impl": c.imp,
                "mode": "encode",
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
                "values_per_s": c.values_per_s(),
                "input_bytes": c.input_bytes,
                "output_bytes": c.output_bytes,
            })
        })
        .collect();
    write_json_values(&values, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode_cases::all_cases;

    #[test]
    fn every_case_is_written_as_asked_by_parq_and_parquet_60() {
        for spec in all_cases(300, 300, &Codec::ALL, &[false, true], true) {
            let batch = case_batch(&spec).unwrap();
            let (file, row_groups) = write_parq(&batch, &parq_props(&spec).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e:#}", spec.name));
            assert_eq!(row_groups, spec.row_groups(), "{}", spec.name);
            verify(&spec, &batch, Bytes::from(file), PARQ, true)
                .unwrap_or_else(|e| panic!("{}: {e:#}", spec.name));
            let (file, _) = write_60(&batch, &encode_props_60(&spec).unwrap()).unwrap();
            verify(&spec, &batch, Bytes::from(file), PARQUET_60, false)
                .unwrap_or_else(|e| panic!("{}: {e:#}", spec.name));
        }
    }

    #[test]
    fn pyarrow_settings_name_the_encodings() {
        let spec = &all_cases(10, 10, &[Codec::Zstd], &[false], false)[0];
        let kw = pyarrow_kwargs(spec);
        assert_eq!(kw["column_encoding"]["v"], "PLAIN");
        assert_eq!(kw["use_dictionary"], json!([]));
        assert_eq!(kw["compression"], "zstd");
        assert_eq!(kw["compression_level"], 1);
        assert_eq!(kw["write_page_index"], true);
    }
}
