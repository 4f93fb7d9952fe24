//! Benchmark datasets: seeded Float32 / Utf8 tables written once with `parquet` 56.2.0's
//! ArrowWriter (its default properties: statistics and page index on) into a cache directory,
//! and [`LoadedFile`], the in-memory tail of a file that every implementation decodes.
//!
//! Files are streamed column chunk by column chunk (a row group's column writers are closed
//! and appended one at a time), so memory stays bounded even at 100,000 columns. A file is
//! written under a temporary name and renamed when complete, so an interrupted run never
//! leaves a truncated file in the cache.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, ensure, Context, Result};
use arrow_56::builder::StringBuilder;
use arrow_56::{ArrayRef, Float32Array};
use arrow_schema_56::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use indicatif::{ProgressBar, ProgressStyle};
use parquet_56::arrow::arrow_writer::{compute_leaves, get_column_writers};
use parquet_56::arrow::{ArrowSchemaConverter, ArrowWriter};
use parquet_56::file::properties::WriterProperties;
use rand::distr::Alphanumeric;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::workload::Shape;

pub const ROW_GROUPS: usize = 20;
pub const ROWS_PER_ROW_GROUP: usize = 1000;
/// Probability that a value is null.
pub const NULL_DENSITY: f32 = 0.0001;
/// String lengths are uniform in `0..MAX_STRING_LEN` (0-19, ~9.5 on average).
const MAX_STRING_LEN: usize = 20;
/// Column writers alive at once while generating.
const WRITER_SLICE_COLUMNS: usize = 1024;
/// Bumped whenever the generator changes, so stale cached files are not reused.
const GENERATOR_VERSION: u32 = 1;

/// The type of every column of a dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ColumnType {
    Float,
    String,
}

impl ColumnType {
    pub const ALL: [ColumnType; 2] = [ColumnType::Float, ColumnType::String];

    pub fn name(self) -> &'static str {
        match self {
            ColumnType::Float => "Float",
            ColumnType::String => "String",
        }
    }

    fn arrow_type(self) -> DataType {
        match self {
            ColumnType::Float => DataType::Float32,
            ColumnType::String => DataType::Utf8,
        }
    }
}

/// One dataset of the footer benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DatasetSpec {
    pub ty: ColumnType,
    pub columns: usize,
    pub row_groups: usize,
    pub rows_per_row_group: usize,
}

impl DatasetSpec {
    pub fn new(ty: ColumnType, columns: usize) -> Self {
        DatasetSpec {
            ty,
            columns,
            row_groups: ROW_GROUPS,
            rows_per_row_group: ROWS_PER_ROW_GROUP,
        }
    }

    /// The seed's description, e.g. "Float 1000 cols 20 row groups".
    pub fn name(&self) -> String {
        format!(
            "{} {} cols {} row groups",
            self.ty.name(),
            self.columns,
            self.row_groups
        )
    }

    pub fn file_name(&self) -> String {
        format!(
            "{}_{}cols_{}rg_{}rows_v{GENERATOR_VERSION}.parquet",
            self.ty.name(),
            self.columns,
            self.row_groups,
            self.rows_per_row_group
        )
    }

    pub fn shape(&self) -> Shape {
        Shape {
            num_rows: (self.row_groups * self.rows_per_row_group) as i64,
            row_groups: self.row_groups,
            columns: self.columns,
        }
    }

    fn schema(&self) -> SchemaRef {
        let fields: Vec<Field> = (0..self.columns)
            .map(|i| Field::new(format!("col_{i}"), self.ty.arrow_type(), true))
            .collect();
        Arc::new(Schema::new(fields))
    }
}

/// Returns the path of the dataset in `data_dir`, generating the file first if it is missing.
pub fn ensure_dataset(spec: &DatasetSpec, data_dir: &Path) -> Result<PathBuf> {
    fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create data directory {}", data_dir.display()))?;
    let path = data_dir.join(spec.file_name());
    if path.is_file() {
        return Ok(path);
    }
    eprintln!("generating {} -> {}", spec.name(), path.display());
    write_atomically(&path, |out| write_dataset(spec, out))?;
    Ok(path)
}

/// parq's own copy of a dataset (the same values, written by parq with its footer index and
/// `rows_per_row_group`-row row groups), next to `source` in `data_dir`; written once from
/// `source`, a batch of rows at a time.
pub fn ensure_parq_copy(spec: &DatasetSpec, source: &Path, data_dir: &Path) -> Result<PathBuf> {
    let path = data_dir.join(format!("parq_{}", spec.file_name()));
    if path.is_file() {
        return Ok(path);
    }
    eprintln!(
        "writing parq's copy of {} -> {}",
        spec.name(),
        path.display()
    );
    write_atomically(&path, |out| {
        // Batches of a quarter row group bound the memory at 100,000 columns.
        let reader = parq::ParquetReader::open(source)?
            .with_batch_size(spec.rows_per_row_group.div_ceil(4).max(1));
        // No byte budget: at 100,000 columns a row group's pages pass the default 128 MiB,
        // and the copy keeps the dataset's row groups.
        let props = parq::WriterProperties::builder()
            .max_row_group_rows(Some(spec.rows_per_row_group))
            .max_row_group_bytes(None)
            .build()?;
        let mut writer = parq::ParquetWriter::try_new(out, reader.schema()?, props)?;
        for batch in reader.batches()? {
            writer.write(&batch?)?;
        }
        let written = writer.close_summary()?;
        ensure!(
            written.num_row_groups == spec.row_groups,
            "parq's copy of {} has {} row groups, not {}",
            spec.name(),
            written.num_row_groups,
            spec.row_groups
        );
        Ok(())
    })?;
    Ok(path)
}

/// Writes `path` through `write` under a temporary name, renamed into place on success and
/// removed on failure.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let file = File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let result = write(BufWriter::new(file))
        .with_context(|| format!("writing {}", tmp.display()))
        .and_then(|()| {
            fs::rename(&tmp, path)
                .with_context(|| format!("cannot rename {} into place", tmp.display()))
        });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress_bar(len: u64, message: String) -> ProgressBar {
    let bar = ProgressBar::new(len).with_message(message);
    if let Ok(style) = ProgressStyle::with_template(
        "{msg:40} [{bar:30}] {pos}/{len} column chunks, {elapsed} (eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn write_dataset(spec: &DatasetSpec, out: BufWriter<File>) -> Result<()> {
    let schema = spec.schema();
    let writer = ArrowWriter::try_new(out, Arc::clone(&schema), None)?;
    let (mut file_writer, _) = writer.into_serialized_writer()?;
    // Column writers are created a slice of columns at a time (each holds ~100 KB of buffers),
    // from per-slice schemas whose leaf descriptors equal the file's.
    let props = Arc::new(WriterProperties::default());
    let slices = (0..spec.columns)
        .step_by(WRITER_SLICE_COLUMNS)
        .map(|start| {
            let fields =
                schema.fields()[start..(start + WRITER_SLICE_COLUMNS).min(spec.columns)].to_vec();
            let arrow = Arc::new(Schema::new(fields));
            Ok((start, ArrowSchemaConverter::new().convert(&arrow)?, arrow))
        })
        .collect::<Result<Vec<_>>>()?;
    let bar = progress_bar(
        (spec.row_groups * spec.columns) as u64,
        format!("writing {}", spec.name()),
    );
    for rg in 0..spec.row_groups {
        let mut rg_writer = file_writer.next_row_group()?;
        for (start, parquet_schema, arrow_schema) in &slices {
            let writers = get_column_writers(parquet_schema, &props, arrow_schema)?;
            for (i, mut column_writer) in writers.into_iter().enumerate() {
                let array = column_array(spec, rg, start + i);
                for leaf in compute_leaves(arrow_schema.field(i), &array)? {
                    column_writer.write(&leaf)?;
                }
                column_writer.close()?.append_to_row_group(&mut rg_writer)?;
                bar.inc(1);
            }
        }
        rg_writer.close()?;
    }
    let mut out = file_writer.into_inner()?;
    out.flush()?;
    bar.finish_and_clear();
    Ok(())
}

/// A generator seeded from the parts that identify one column chunk.
pub fn chunk_rng(tag: u64, row_group: usize, column: usize) -> SmallRng {
    SmallRng::seed_from_u64((tag << 60) ^ ((row_group as u64) << 40) ^ column as u64)
}

/// The values of one column chunk: uniform floats in [0, 1) or alphanumeric strings.
fn column_array(spec: &DatasetSpec, row_group: usize, column: usize) -> ArrayRef {
    let rows = spec.rows_per_row_group;
    let mut rng = chunk_rng(spec.ty as u64 + 1, row_group, column);
    match spec.ty {
        ColumnType::Float => {
            let values: Float32Array = (0..rows)
                .map(|_| (rng.random::<f32>() >= NULL_DENSITY).then(|| rng.random::<f32>()))
                .collect();
            Arc::new(values)
        }
        ColumnType::String => {
            let mut builder = StringBuilder::with_capacity(rows, rows * MAX_STRING_LEN / 2);
            let mut buf = [0u8; MAX_STRING_LEN];
            for _ in 0..rows {
                if rng.random::<f32>() < NULL_DENSITY {
                    builder.append_null();
                    continue;
                }
                let len = rng.random_range(0..MAX_STRING_LEN);
                for b in &mut buf[..len] {
                    *b = rng.sample(Alphanumeric);
                }
                // Alphanumeric yields ASCII only.
                builder.append_value(std::str::from_utf8(&buf[..len]).unwrap_or_default());
            }
            Arc::new(builder.finish())
        }
    }
}

/// The tail of a Parquet file in memory: the page index (ColumnIndex / OffsetIndex) and the
/// footer, exactly the bytes a reader fetches to decode both. Every implementation decodes
/// these same bytes; nothing is read from disk while timing.
pub struct LoadedFile {
    pub path: PathBuf,
    /// File bytes `tail_offset..file_len`.
    pub tail: Bytes,
    pub tail_offset: u64,
    pub file_len: u64,
    /// The Thrift FileMetaData inside `tail`.
    metadata: Range<usize>,
    pub shape: Shape,
}

impl LoadedFile {
    /// Reads the footer, finds where the page index starts and loads everything from there on.
    pub fn load(path: &Path) -> Result<Self> {
        let ctx = || format!("reading {}", path.display());
        let mut file = File::open(path).with_context(ctx)?;
        let file_len = file.metadata().with_context(ctx)?.len();
        ensure!(
            file_len >= 12,
            "{} is too small to be Parquet",
            path.display()
        );
        let mut tail8 = [0u8; 8];
        read_at(&mut file, file_len - 8, &mut tail8).with_context(ctx)?;
        if &tail8[4..] != b"PAR1" {
            bail!("{} does not end with the Parquet magic", path.display());
        }
        let metadata_len = u64::from(u32::from_le_bytes([tail8[0], tail8[1], tail8[2], tail8[3]]));
        let Some(metadata_start) = (file_len - 8).checked_sub(metadata_len) else {
            bail!(
                "{}: footer length {metadata_len} exceeds the file",
                path.display()
            );
        };
        let mut metadata = vec![0u8; metadata_len as usize];
        read_at(&mut file, metadata_start, &mut metadata).with_context(ctx)?;

        // The reference decode locates the page index and tells the shape to check against.
        let md = parquet_60::file::metadata::ParquetMetaDataReader::decode_metadata(&metadata)
            .with_context(|| format!("decoding the footer of {}", path.display()))?;
        let tail_offset = md
            .row_groups()
            .iter()
            .flat_map(|rg| rg.columns())
            .flat_map(|c| [c.column_index_offset(), c.offset_index_offset()])
            .flatten()
            .map(|o| o as u64)
            .fold(metadata_start, u64::min);
        let shape = Shape {
            num_rows: md.file_metadata().num_rows(),
            row_groups: md.num_row_groups(),
            columns: md.file_metadata().schema_descr().num_columns(),
        };
        drop(md);

        let mut tail = vec![0u8; (file_len - tail_offset) as usize];
        read_at(&mut file, tail_offset, &mut tail).with_context(ctx)?;
        let start = (metadata_start - tail_offset) as usize;
        Ok(LoadedFile {
            path: path.to_path_buf(),
            tail: Bytes::from(tail),
            tail_offset,
            file_len,
            metadata: start..start + metadata_len as usize,
            shape,
        })
    }

    /// The Thrift-encoded FileMetaData.
    pub fn metadata(&self) -> &[u8] {
        &self.tail[self.metadata.clone()]
    }

    /// The loaded bytes before the FileMetaData (where a footer index lies, if any).
    pub fn before_metadata(&self) -> &[u8] {
        &self.tail[..self.metadata.start]
    }

    /// The FileMetaData as a zero-copy slice of the shared buffer.
    pub fn metadata_bytes(&self) -> Bytes {
        self.tail.slice(self.metadata.clone())
    }

    /// Size of the Thrift FileMetaData in bytes (without the 8-byte length + magic).
    pub fn footer_bytes(&self) -> usize {
        self.metadata.len()
    }
}

fn read_at(file: &mut File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}
