//! The table of `parq-bench scan`: sorted by an int64 key, written once by parq's own writer
//! into the data directory and reused while its name (rows, generator version) matches.
//!
//! Columns: `id` int64 (the row number, 0..rows), `ts` `timestamp[us]` (rising
//! [`TS_STEP_US`] per row plus jitter, from [`TS_BASE_US`]), `value` float64 (uniform),
//! `qty` int32 (uniform, [`QTY_NULL_SHARE`] null) and `tag` utf8 (one of [`TAGS`] seeded
//! strings of 10-30 bytes). Row groups of [`ROW_GROUP_ROWS`] rows, data pages of at most
//! 1 MiB and 20,000 rows (the default of parq, pyarrow and the `parquet` crate), statistics
//! with the page index (parq's default), SNAPPY (parq's default; `--codec` chooses another),
//! dictionary encoding for `tag` only.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use arrow_60::builder::StringBuilder;
use arrow_60::{
    ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, TimestampMicrosecondArray,
};
use arrow_schema_60::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parq::write::{Codec, ParquetWriter, WriterProperties};
use rand::distr::Alphanumeric;
use rand::Rng;

use crate::datasets::{chunk_rng, write_atomically};

/// Rows of the default table (about 1 GB on disk).
pub const DEFAULT_ROWS: usize = 45_000_000;
/// Rows of the `--quick` table (about 100 MB).
pub const QUICK_ROWS: usize = 4_500_000;
/// Rows per row group.
pub const ROW_GROUP_ROWS: usize = 1_000_000;
/// 2020-01-01T00:00:00Z in microseconds.
pub const TS_BASE_US: i64 = 1_577_836_800_000_000;
/// `ts` of row `i` is `TS_BASE_US + i * TS_STEP_US` plus a jitter below the step.
pub const TS_STEP_US: i64 = 100;
pub const QTY_NULL_SHARE: f64 = 0.01;
/// Distinct `tag` strings.
pub const TAGS: usize = 10_000;
/// Rows generated (and written) per batch.
const GEN_ROWS: usize = 100_000;
/// Bumped whenever the generator changes, so stale cached files are not reused.
const GENERATOR_VERSION: u32 = 2;
/// Tag of the seeds ([`chunk_rng`]) of this table.
const SEED_TAG: u64 = 5;

/// [`schema`] with `tag` as `Utf8View`.
pub fn schema_with_views() -> SchemaRef {
    let fields = schema()
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Utf8 => Arc::new(f.as_ref().clone().with_data_type(DataType::Utf8View)),
            _ => Arc::clone(f),
        })
        .collect::<Vec<_>>();
    Arc::new(Schema::new(fields))
}

pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            false,
        ),
        Field::new("value", DataType::Float64, false),
        Field::new("qty", DataType::Int32, true),
        Field::new("tag", DataType::Utf8, false),
    ]))
}

/// The page codecs the table can be written with, by their `--codec` names.
pub const CODECS: [&str; 3] = ["snappy", "none", "zstd"];

/// The writer's codec of `--codec NAME`.
pub fn codec(name: &str) -> Result<Codec> {
    match name {
        "snappy" => Ok(Codec::SNAPPY),
        "none" => Ok(Codec::UNCOMPRESSED),
        "zstd" => Ok(Codec::ZSTD),
        other => anyhow::bail!("unknown codec {other:?} (one of {CODECS:?})"),
    }
}

/// The path of the table of `rows` rows with pages compressed by `codec` (a name of
/// [`CODECS`]) in `data_dir`, written first if it is missing.
pub fn ensure_table(rows: usize, codec_name: &str, data_dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create data directory {}", data_dir.display()))?;
    // The SNAPPY table keeps its older name, so cached copies stay valid.
    let suffix = match codec_name {
        "snappy" => String::new(),
        other => format!("_{other}"),
    };
    let path = data_dir.join(format!(
        "scan_{rows}rows_v{GENERATOR_VERSION}{suffix}.parquet"
    ));
    if path.is_file() {
        return Ok(path);
    }
    eprintln!(
        "generating the scan table ({rows} rows) -> {}",
        path.display()
    );
    write_table(&path, rows, ROW_GROUP_ROWS, codec(codec_name)?)?;
    Ok(path)
}

/// Writes the table of `rows` rows, in row groups of `row_group_rows` and pages compressed
/// by `codec`, to `path`.
pub fn write_table(path: &Path, rows: usize, row_group_rows: usize, codec: Codec) -> Result<()> {
    let bar = crate::datasets::progress_bar(rows.div_ceil(GEN_ROWS) as u64, "writing".into());
    let props = WriterProperties::builder()
        .max_row_group_rows(Some(row_group_rows))
        .compression(codec)
        .dictionary(false)
        .column_dictionary("tag", true)
        .build()?;
    write_atomically(path, |mut out| {
        let mut writer = ParquetWriter::try_new(&mut out, schema(), props)?;
        let tags = tag_pool();
        for (i, start) in (0..rows).step_by(GEN_ROWS).enumerate() {
            writer.write(&generate(i, start, GEN_ROWS.min(rows - start), &tags)?)?;
            bar.inc(1);
        }
        writer.close()?;
        out.flush()?;
        Ok(())
    })?;
    bar.finish_and_clear();
    Ok(())
}

/// The distinct `tag` strings: 10-30 alphanumeric bytes each, from a fixed seed.
fn tag_pool() -> Vec<String> {
    let mut rng = chunk_rng(SEED_TAG, 0, 1);
    (0..TAGS)
        .map(|_| {
            let len = rng.random_range(10..=30);
            (0..len)
                .map(|_| char::from(rng.sample(Alphanumeric)))
                .collect()
        })
        .collect()
}

/// Rows `start..start + len`, from the seed of generation batch `batch`.
fn generate(batch: usize, start: usize, len: usize, tags: &[String]) -> Result<RecordBatch> {
    let mut rng = chunk_rng(SEED_TAG, batch, 0);
    let ids = start as i64..(start + len) as i64;
    let id: Int64Array = ids.clone().collect();
    let ts = TimestampMicrosecondArray::from(
        ids.map(|i| TS_BASE_US + i * TS_STEP_US + rng.random_range(0..TS_STEP_US))
            .collect::<Vec<i64>>(),
    );
    let value: Float64Array = (0..len).map(|_| rng.random::<f64>() * 1000.0).collect();
    let qty: Int32Array = (0..len)
        .map(|_| (rng.random::<f64>() >= QTY_NULL_SHARE).then(|| rng.random_range(0..1_000_000)))
        .collect();
    let mut tag = StringBuilder::with_capacity(len, len * 20);
    for _ in 0..len {
        tag.append_value(&tags[rng.random_range(0..tags.len())]);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id),
        Arc::new(ts),
        Arc::new(value),
        Arc::new(qty),
        Arc::new(tag.finish()),
    ];
    Ok(RecordBatch::try_new(schema(), columns)?)
}
