//! [`merge`]: Parquet files joined into one. Row groups whose file has the output's Parquet
//! schema are copied byte for byte ([`ParquetWriter::copy_row_groups`]: pages, statistics,
//! page index and Bloom filters carried); the rows of the other files are decoded, made the
//! output's types and encoded. The output's Arrow schema is the inputs' united by name (the
//! rules of [`crate::dataset`]: int32 and int64 as int64, float32 and float64 as float64, a
//! column a file lacks as nulls), with the key-value metadata of every input (the first
//! file's value for a key wins), so pyarrow reads the output as the inputs concatenated.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};

use super::temp::{same_file, TempFile};
use super::Progress;
use crate::dataset::schema::{conform, unify};
use crate::error::arrow_error;
use crate::read::ParquetReader;
use crate::write::{ParquetWriter, WriterProperties};
use crate::{Error, ErrorKind, Result};

/// What [`merge`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Row groups copied byte for byte.
    pub row_groups_copied: usize,
    /// Input files whose rows were decoded and encoded again (their Parquet schema is not
    /// the output's).
    pub files_reencoded: usize,
    /// Rows written.
    pub rows: u64,
}

/// An input of a merge: its path, reader and size.
struct Input<'a> {
    path: &'a Path,
    reader: ParquetReader,
    bytes: u64,
}

/// The Arrow schema of the merged file: the inputs' united, with their key-value metadata.
fn output_schema(inputs: &[Input<'_>]) -> Result<SchemaRef> {
    let schemas = inputs
        .iter()
        .map(|i| {
            i.reader
                .schema()
                .map_err(|e| e.in_file(i.path.display().to_string()))
        })
        .collect::<Result<Vec<SchemaRef>>>()?;
    let Some(first) = schemas.first() else {
        return Err(Error::new(ErrorKind::InvalidArgument(
            "nothing to merge: no input file".into(),
        )));
    };
    let fields = if schemas.iter().all(|s| s.fields() == first.fields()) {
        first.fields().clone()
    } else {
        let names: Vec<String> = inputs
            .iter()
            .map(|i| i.path.display().to_string())
            .collect();
        let files: Vec<(&str, &Schema)> = names
            .iter()
            .map(String::as_str)
            .zip(schemas.iter().map(|s| s.as_ref()))
            .collect();
        unify(&files)?.fields().clone()
    };
    let mut metadata = first.metadata().clone();
    for s in &schemas {
        for (k, v) in s.metadata() {
            if !metadata.contains_key(k) {
                metadata.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(Arc::new(Schema::new_with_metadata(fields, metadata)))
}

/// Merges the Parquet files `inputs`, in their order, into `output` (see the
/// [module documentation](crate::edit)), encoding what is not copied with `properties`. The output
/// is written under a temporary name and renamed into place when complete; it may not be
/// one of the inputs.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use arrow_schema::{DataType, Field, Schema};
/// use parq::{ParquetReader, ParquetWriter, WriterProperties};
///
/// let dir = std::env::temp_dir().join(format!("parq-merge-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
/// let mut inputs = Vec::new();
/// for (i, values) in [[1i64, 2], [3, 4]].into_iter().enumerate() {
///     let path = dir.join(format!("part-{i}.parquet"));
///     let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(values.to_vec()))])?;
///     let mut w = ParquetWriter::try_new(std::fs::File::create(&path)?, schema.clone(), WriterProperties::default())?;
///     w.write(&batch)?;
///     w.close()?;
///     inputs.push(path);
/// }
/// let out = dir.join("all.parquet");
/// let report = parq::edit::merge(&inputs, &out, WriterProperties::default())?;
/// assert_eq!((report.row_groups_copied, report.rows), (2, 4));
/// assert_eq!(ParquetReader::open(&out)?.read_batch()?.num_rows(), 4);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub fn merge<P: AsRef<Path>>(
    inputs: &[P],
    output: impl AsRef<Path>,
    properties: WriterProperties,
) -> Result<MergeReport> {
    merge_with_progress(inputs, output, properties, &mut |_| {})
}

/// [`merge`], calling `progress` as row groups are written.
pub fn merge_with_progress<P: AsRef<Path>>(
    inputs: &[P],
    output: impl AsRef<Path>,
    properties: WriterProperties,
    progress: &mut dyn FnMut(Progress),
) -> Result<MergeReport> {
    merge_into(inputs, output.as_ref(), properties, progress, false)
}

/// [`merge_with_progress`]; with `replace`, `output` may be one of the inputs (it is
/// replaced whole when the merge is complete).
pub(super) fn merge_into<P: AsRef<Path>>(
    inputs: &[P],
    output: &Path,
    properties: WriterProperties,
    progress: &mut dyn FnMut(Progress),
    replace: bool,
) -> Result<MergeReport> {
    let name = |p: &Path| p.display().to_string();
    let mut opened = Vec::with_capacity(inputs.len());
    for p in inputs {
        let path = p.as_ref();
        if !replace && same_file(path, output) {
            return Err(Error::new(ErrorKind::InvalidArgument(
                "the output is one of the inputs".into(),
            ))
            .in_file(name(output)));
        }
        let reader = ParquetReader::open(path).map_err(|e| e.in_file(name(path)))?;
        let bytes = std::fs::metadata(path)
            .map_err(|e| Error::from(e).in_file(name(path)))?
            .len();
        opened.push(Input {
            path,
            reader,
            bytes,
        });
    }
    let schema = output_schema(&opened)?;
    let mut total = Progress::default();
    for i in &opened {
        total.rows += u64::try_from(i.reader.metadata().num_rows()).unwrap_or(0);
        total.bytes += i.bytes;
    }
    let (mut tmp, file) = TempFile::create(output)?;
    let out_err = |e: Error| e.in_file(name(output));
    let mut buf = BufWriter::with_capacity(1 << 20, file);
    // Files of one Parquet schema are joined in it, whatever parq would derive.
    let first = opened.first().map(|i| i.reader.metadata());
    let one_layout = first.is_some_and(|f| {
        let like = crate::write::Inherited::of(f);
        opened.iter().all(|i| {
            let meta = i.reader.metadata();
            crate::write::copy_refusal(false, f.schema(), Some(&like), meta).is_none()
        })
    });
    let mut writer = match first {
        Some(f) if one_layout && properties.encryption().is_none() => {
            ParquetWriter::copier(&mut buf, schema.clone(), properties, f)
        }
        _ => ParquetWriter::try_new(&mut buf, schema.clone(), properties),
    }
    .map_err(out_err)?;
    let mut report = MergeReport::default();
    let mut done = Progress {
        rows_total: total.rows,
        bytes_total: total.bytes,
        ..Progress::default()
    };
    for input in &opened {
        let meta = input.reader.metadata();
        let in_err = |e: Error| e.in_file(name(input.path));
        let groups: Vec<usize> = (0..meta.row_groups().len()).collect();
        let base = done.bytes;
        let file_rows = u64::try_from(meta.num_rows()).unwrap_or(0);
        if writer.copy_refusal(meta).is_none() {
            let mut f = File::open(input.path).map_err(|e| in_err(e.into()))?;
            for &g in &groups {
                writer.copy_row_groups(&mut f, meta, &[g]).map_err(in_err)?;
                let rows = meta.row_groups().get(g).map_or(0, |g| g.num_rows());
                done.rows += u64::try_from(rows).unwrap_or(0);
                done.bytes += group_bytes(meta, g);
                progress(done);
            }
            report.row_groups_copied += groups.len();
        } else {
            let mut file_done = 0u64;
            for batch in input.reader.batches().map_err(in_err)? {
                let batch = batch.map_err(in_err)?;
                writer
                    .write(&conform_batch(&batch, &schema).map_err(in_err)?)
                    .map_err(out_err)?;
                file_done += batch.num_rows() as u64;
                done.rows += batch.num_rows() as u64;
                let share =
                    input.bytes as u128 * u128::from(file_done) / u128::from(file_rows.max(1));
                done.bytes = base + share.min(u128::from(input.bytes)) as u64;
                progress(done);
            }
            writer.flush().map_err(out_err)?;
            report.files_reencoded += 1;
        }
        done.bytes = base + input.bytes;
        progress(done);
        report.rows += u64::try_from(meta.num_rows()).unwrap_or(0);
    }
    writer.close().map_err(out_err)?;
    tmp.commit(buf)?;
    Ok(report)
}

/// The bytes of row group `g`'s column chunks.
fn group_bytes(meta: &crate::format::metadata::FileMetaData, g: usize) -> u64 {
    meta.row_groups().get(g).map_or(0, |g| {
        g.columns()
            .iter()
            .map(|c| u64::try_from(c.total_compressed_size()).unwrap_or(0))
            .sum()
    })
}

/// `batch` with the columns of `schema`: each cast to the output's type, or nulls where the
/// file has no such column.
fn conform_batch(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch.schema().fields() == schema.fields() {
        return RecordBatch::try_new(schema.clone(), batch.columns().to_vec()).map_err(arrow_error);
    }
    let columns = schema
        .fields()
        .iter()
        .map(|f| conform(batch, f))
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(schema.clone(), columns).map_err(arrow_error)
}
