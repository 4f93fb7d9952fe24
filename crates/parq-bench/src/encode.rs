//! The `encode` command: writing Arrow batches to Parquet, parq vs `parquet` 60.1.0's
//! `ArrowWriter` vs pyarrow, on the cases of `decode` ([`crate::decode_cases`]: every
//! encoding x type, required and 10% nulls, uncompressed / snappy / zstd, seed-001, the
//! int64 + string table, and the nested shapes of [`crate::nested_cases`], named `nested
//! <shape> required|10%null <codec>`, a quarter as many rows as `--values`, with and without
//! nulls unless `--nulls` says otherwise, in the default set as in `decode`; `--cases nested`
//! runs them alone) and with its options (`--values`, `--quick`, `--full`, `--codecs`,
//! `--nulls`, `--cases`, `--impls`, `--peers pyarrow`, `--json`, the measurement options;
//! `--threads N` has parq encode a row group's columns on N threads, the peers keeping one).
//!
//! Input: the case's values as one Arrow batch of all its rows ([`case_batch`]), the same
//! arrays for every writer. pyarrow gets the very same buffers: the bench writes them raw
//! (validity, offsets, values, a nested array's children; a JSON header) to a file in
//! `--data-dir`, and the Python process wraps them with `pa.Array.from_buffers` (zero copy,
//! outside pyarrow's memory pool; see [`crate::encode_pyarrow`]).
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
//!   column; the table and nested cases keep the defaults (dictionary on for every leaf,
//!   PLAIN fallback; pyarrow gets `use_dictionary=True`, its per-column names would miss the
//!   nested leaves);
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
//! - data pages: v1, at most 1 MiB and 20,000 rows (records, for nested columns);
//!   dictionary pages at most 1 MiB;
//! - row groups: all rows of the case in one row group (1 Mi rows at most, seed-001's 484
//!   rows), parq's byte budget off so the layout is the peers'.
//!
//! Before the clock, every output is checked: its encodings ([`check_encodings`]) and row
//! groups, and its values read back equal to the input, nested values included (parq's
//! output with parq's reader and with 60.1.0's, 60.1.0's and pyarrow's with parq's). A Rust
//! writer that refuses a case (an error from the write, e.g. a schema it does not take) is
//! not measured on it: its time column says "error", the error is listed under the table
//! and in the JSON (`"error"`), and the other implementations run as usual; an output that
//! reads back different stops the run. Each output's size is reported, with
//! parq's size over each peer's (a case where parq's file is more than 1% larger is listed),
//! and the peak heap growth during one write: the counting allocator for the Rust
//! implementations, the memory pool's peak for pyarrow (its arrays live outside the pool,
//! so the pool holds only what the write allocates).
//!
//! The 100,000-column write is `parq-bench encode-wide` ([`crate::encode_wide`]).

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, ensure, Context, Result};
use arrow_60::array::make_array;
use arrow_60::{Array, RecordBatch};
use arrow_data_60::ArrayData;
use arrow_schema_60::{DataType, Field, Schema};
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
use crate::encode_pyarrow::pyarrow_case;
use crate::footer::check_writable;
use crate::measure::{measure, timed_simple, Case, MeasureConfig, Stats};
use crate::peers::Python;
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

/// parq's settings for a case (see the module documentation), encoding on `threads`.
pub fn parq_props(spec: &CaseSpec, threads: usize) -> Result<WriterProperties> {
    let mut b = WriterProperties::builder()
        .threads(threads)
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
/// by parq (and by `parquet` 60.1.0 with `with_60`) equal to the input (nested values
/// included; the names of list items and map entries aside, see [`named_as_input`]).
/// Returns its size.
pub fn verify(
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
    let by_parq = named_as_input(by_parq, batch)?;
    compare(
        &by_parq,
        input,
        &format!("{who}'s output read by parq vs the input"),
    )?;
    if with_60 {
        let by_60 = read_60(&file, spec.rows)
            .with_context(|| format!("parquet 60.1.0 reading {who}'s output"))?;
        let by_60 = named_as_input(by_60, batch)?;
        compare(
            &by_60,
            input,
            &format!("{who}'s output read by parquet 60.1.0 vs the input"),
        )?;
    }
    Ok(file.len())
}

/// Whether two types are the same but for the names of list items, map entries and map
/// keys and values (struct fields keep theirs).
fn same_but_container_names(a: &DataType, b: &DataType) -> bool {
    let field = |x: &Field, y: &Field| {
        x.is_nullable() == y.is_nullable() && same_but_container_names(x.data_type(), y.data_type())
    };
    match (a, b) {
        (DataType::List(x), DataType::List(y)) => field(x, y),
        (DataType::Map(x, x_sorted), DataType::Map(y, y_sorted)) => {
            x_sorted == y_sorted
                && x.is_nullable() == y.is_nullable()
                && match (x.data_type(), y.data_type()) {
                    (DataType::Struct(xs), DataType::Struct(ys)) => {
                        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| field(x, y))
                    }
                    _ => false,
                }
        }
        (DataType::Struct(xs), DataType::Struct(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys)
                    .all(|(x, y)| x.name() == y.name() && field(x, y))
        }
        _ => a == b,
    }
}

/// The array data with the type `dt` (the same layout), its children's too.
fn retyped(data: &ArrayData, dt: &DataType) -> Result<ArrayData> {
    let child_types: Vec<&DataType> = match dt {
        DataType::List(f) | DataType::Map(f, _) => vec![f.data_type()],
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type()).collect(),
        _ => Vec::new(),
    };
    ensure!(
        child_types.len() == data.child_data().len(),
        "{} has {} children where {dt} has {}",
        data.data_type(),
        data.child_data().len(),
        child_types.len()
    );
    let children = data
        .child_data()
        .iter()
        .zip(child_types)
        .map(|(c, t)| retyped(c, t))
        .collect::<Result<Vec<_>>>()?;
    Ok(data
        .clone()
        .into_builder()
        .data_type(dt.clone())
        .child_data(children)
        .build()?)
}

/// The batches read back, each column whose type differs from the input's only by the names
/// of list items and map entries ([`same_but_container_names`]) given the input's type:
/// readers name them after the file's schema (pyarrow writes the spec's `element` and
/// `key_value`, Arrow's writers `item` and `entries`), which is not a difference of values.
/// Other differences are left for [`compare`] to report.
fn named_as_input(batches: Vec<RecordBatch>, input: &RecordBatch) -> Result<Vec<RecordBatch>> {
    let schema = input.schema();
    batches
        .into_iter()
        .map(|b| {
            if b.num_columns() != schema.fields().len() {
                return Ok(b);
            }
            let read_schema = b.schema();
            let mut columns = Vec::with_capacity(b.num_columns());
            let mut fields = Vec::with_capacity(b.num_columns());
            let pairs = b.columns().iter().zip(read_schema.fields());
            for ((col, have), want) in pairs.zip(schema.fields()) {
                let (dt, want_dt) = (col.data_type(), want.data_type());
                if dt != want_dt && same_but_container_names(dt, want_dt) {
                    columns.push(make_array(retyped(&col.to_data(), want_dt)?));
                    fields.push(want.clone());
                } else {
                    columns.push(col.clone());
                    fields.push(have.clone());
                }
            }
            Ok(RecordBatch::try_new(
                Arc::new(Schema::new(fields)),
                columns,
            )?)
        })
        .collect()
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

/// A write an implementation refused (a writer error, before any check of its output): the
/// error, reported in place of its cell while the other implementations are measured.
#[derive(Clone, Debug)]
pub struct EncodeFailure {
    pub case: String,
    pub imp: &'static str,
    pub error: String,
}

impl EncodeCell {
    fn values_per_s(&self) -> f64 {
        self.values as f64 / (self.stats.median_ns.max(1) as f64 / 1e9)
    }
}

/// Measures one case: checks every output, then the Rust implementations interleaved, then
/// pyarrow. A Rust implementation whose write fails is left out of the measurement and
/// returned as a failure; an output that does not read back equal is an error.
fn measure_case(
    spec: &CaseSpec,
    impls: &[&'static str],
    python: Option<&Python>,
    dir: &Path,
    cfg: &MeasureConfig,
    threads: usize,
) -> Result<(Vec<EncodeCell>, Vec<EncodeFailure>)> {
    let batch = case_batch(spec)?;
    let props = parq_props(spec, threads)?;
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
    let mut failures = Vec::new();
    let mut refused = |imp: &'static str, e: anyhow::Error| {
        failures.push(EncodeFailure {
            case: spec.name.clone(),
            imp,
            error: format!("{e:#}"),
        });
    };
    for &imp in impls {
        let case = match imp {
            PARQ => {
                let (out, a) = alloc_stats_during(|| write_parq(batch, props));
                let file = match out {
                    Ok((file, _)) => file,
                    Err(e) => {
                        refused(PARQ, e);
                        continue;
                    }
                };
                let size = verify(spec, batch, Bytes::from(file), PARQ, true)?;
                written.push((PARQ, size, a.total_bytes));
                Case::new(PARQ, Mode::Decode, expected, Some(a.peak_bytes), move |n| {
                    timed_simple(n, || write_parq(batch, props), facts)
                })
            }
            PARQUET_60 => {
                let (out, a) = alloc_stats_during(|| write_60(batch, props60));
                let file = match out {
                    Ok((file, _)) => file,
                    Err(e) => {
                        refused(PARQUET_60, e);
                        continue;
                    }
                };
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
    // pyarrow 26 does not write ALP.
    if let Some(py) = python.filter(|_| !spec.has_alp()) {
        let run = pyarrow_case(py, dir, spec, batch, cfg)?;
        cells.push(EncodeCell {
            output_bytes: run.output_bytes,
            ..cell(PYARROW, run.stats, run.peak_bytes)
        });
    }
    Ok((cells, failures))
}

pub fn run(args: &DecodeArgs, workspace_root: &Path) -> Result<()> {
    let specs = args.case_specs(true)?;
    check_writable(&args.json)?;
    let (python, data_dir) = args.pyarrow_setup(workspace_root)?;
    let impls = args.rust_impls();
    let cfg = args.measure.config();

    let threads = usize::from(args.threads);
    eprintln!("{} before measuring", machine_line());
    let (mut cells, mut failures) = (Vec::new(), Vec::new());
    for (i, spec) in specs.iter().enumerate() {
        eprintln!("[{}/{}] {}", i + 1, specs.len(), spec.name);
        let (measured, refused) =
            measure_case(spec, &impls, python.as_ref(), &data_dir, &cfg, threads)
                .with_context(|| spec.name.clone())?;
        for f in &refused {
            eprintln!("    {:<16} error: {}", f.imp, f.error);
        }
        for c in &measured {
            eprintln!(
                "    {:<16} {:>9} ms {:>12} bytes",
                c.imp,
                fmt_ms(c.stats.median_ns),
                c.output_bytes
            );
        }
        cells.extend(measured);
        failures.extend(refused);
    }
    println!("{} after measuring", machine_line());
    if threads > 1 {
        println!("parq encodes each row group's columns on {threads} threads; the peers on one");
    }
    print!("{}", render_encode_tables(&cells, &failures));
    if let Some(p) = &args.json {
        write_json(&cells, &failures, p)?;
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

/// The results table (a write that failed shows "error" in its time column), the target
/// summaries and the failures with their errors.
pub fn render_encode_tables(cells: &[EncodeCell], failures: &[EncodeFailure]) -> String {
    let cases = first_seen(
        cells
            .iter()
            .map(|c| c.case.as_str())
            .chain(failures.iter().map(|f| f.case.as_str())),
    );
    let failed = |case: &str, imp: &str| failures.iter().any(|f| f.case == case && f.imp == imp);
    let mb = |b: usize| format!("{:.2}", b as f64 / 1e6);
    let heap = |c: Option<&EncodeCell>| c.and_then(|c| c.heap_bytes).map_or("-".into(), mb);
    let out_mb = |c: Option<&EncodeCell>| c.map_or("-".into(), |c| mb(c.output_bytes));
    let ms = |c: Option<&EncodeCell>, case: &str, imp: &str| match c {
        Some(c) => fmt_ms(c.stats.median_ns),
        None if failed(case, imp) => "error".into(),
        None => "-".into(),
    };
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
            ms(p60, case, PARQUET_60),
            ms(py, case, PYARROW),
            ms(parq, case, PARQ),
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
    if !failures.is_empty() {
        out.push_str(&format!(
            "not written (\"error\" in the table): {} cells\n",
            failures.len()
        ));
        for f in failures {
            out.push_str(&format!("  {}: {}: {}\n", f.imp, f.case, f.error));
        }
    }
    out
}

/// Writes the cells in `decode --json`'s shape (mode "encode"; `output_bytes`: the file
/// written, `input_bytes`: the Arrow buffers written), then each failure as `dataset`,
/// `impl`, `mode` and its `error`.
pub fn write_json(cells: &[EncodeCell], failures: &[EncodeFailure], path: &Path) -> Result<()> {
    let mut values: Vec<serde_json::Value> = cells
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
    values.extend(failures.iter().map(|f| {
        json!({
            "dataset": f.case,
            "impl": f.imp,
            "mode": "encode",
            "error": f.error,
        })
    }));
    write_json_values(&values, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode_cases::{all_cases, nested_cases};

    #[test]
    fn every_case_is_written_as_asked_by_parq_and_parquet_60() {
        let flat = all_cases(300, 300, &Codec::ALL, &[false, true], true);
        let nested = nested_cases(200, &Codec::ALL, &[false, true]);
        for spec in flat.into_iter().chain(nested) {
            let batch = case_batch(&spec).unwrap();
            let (file, row_groups) = write_parq(&batch, &parq_props(&spec, 1).unwrap())
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
    fn list_item_names_are_not_a_difference_but_struct_field_names_are() {
        use arrow_60::array::{Int32Array, ListArray, StructArray};
        use arrow_buffer_60::OffsetBuffer;
        let list = |item: &str| -> RecordBatch {
            let field = Arc::new(Field::new(item, DataType::Int32, true));
            let values = Arc::new(Int32Array::from(vec![1, 2, 3]));
            let array = ListArray::new(field, OffsetBuffer::from_lengths([2, 1]), values, None);
            RecordBatch::try_from_iter([("v", Arc::new(array) as _)]).unwrap()
        };
        let (input, read) = (list("item"), list("element"));
        let what = "read vs input";
        assert!(compare(
            std::slice::from_ref(&read),
            std::slice::from_ref(&input),
            what
        )
        .is_err());
        let renamed = named_as_input(vec![read], &input).unwrap();
        compare(&renamed, std::slice::from_ref(&input), what).unwrap();

        let structs = |name: &str| -> RecordBatch {
            let field = Arc::new(Field::new(name, DataType::Int32, true));
            let values = Arc::new(Int32Array::from(vec![1, 2])) as _;
            let array = StructArray::new(vec![field].into(), vec![values], None);
            RecordBatch::try_from_iter([("v", Arc::new(array) as _)]).unwrap()
        };
        let (input, read) = (structs("a"), structs("b"));
        let renamed = named_as_input(vec![read], &input).unwrap();
        assert!(compare(&renamed, std::slice::from_ref(&input), what).is_err());
    }

    #[test]
    fn a_refused_write_shows_as_an_error_beside_the_peers() {
        let spec = &nested_cases(10, &[Codec::Uncompressed], &[false])[0];
        let stats = Stats {
            median_ns: 1_000_000,
            min_ns: 1_000_000,
            iterations: 1,
        };
        let cell = EncodeCell {
            case: spec.name.clone(),
            ty: spec.ty.clone(),
            encoding: spec.encodings(),
            codec: spec.codec.name(),
            nullable: spec.nullable,
            rows: spec.rows,
            values: spec.values(),
            row_groups: 1,
            input_bytes: 100,
            imp: PARQUET_60,
            stats,
            heap_bytes: None,
            alloc_bytes: None,
            output_bytes: 50,
        };
        let failure = EncodeFailure {
            case: spec.name.clone(),
            imp: PARQ,
            error: "parq write: no nested columns".into(),
        };
        let out = render_encode_tables(&[cell], &[failure]);
        let row = out
            .lines()
            .find(|l| l.contains(&spec.name) && !l.contains("no nested"))
            .unwrap();
        assert!(row.contains("error"), "{out}");
        assert!(
            out.contains(&format!(
                "  parq: {}: parq write: no nested columns",
                spec.name
            )),
            "{out}"
        );
    }
}
