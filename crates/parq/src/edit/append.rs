//! Appending rows to an existing Parquet file: [`AppendWriter`] (from
//! [`ParquetWriter::append_to`]) and [`append_files`].
//!
//! The new row groups follow the file's last bytes, and a new footer lists the old row
//! groups (their pages, page index and Bloom filters left where they are) then the new
//! ones; the old footer's bytes stay in the file, unreferenced. The file is never changed in
//! place: its bytes are copied to a temporary file beside it (`copy_file_range`, a reflink
//! where the file system can), the new bytes written after them, the whole synced, then
//! renamed over the file and the directory synced. A crash or kill at any point leaves the
//! old file or the new one under the name, never a mix; the cost is one copy of the old
//! bytes. The file must not be written by anyone else meanwhile: a change of its length or
//! last bytes before the rename is an error and nothing is replaced.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};

use super::temp::{same_file, TempFile};
use super::Progress;
use crate::dataset::schema::{conform, promote};
use crate::error::arrow_error;
use crate::format::metadata::FileMetaData;
use crate::read::ParquetReader;
use crate::write::{ParquetWriter, WriterProperties};
use crate::{Error, ErrorKind, Result};

/// Bytes of the file's end compared before the rename (a change there is another writer).
const TAIL_CHECK: u64 = 8;

/// A writer of rows appended to an existing file; see the [module documentation](crate::edit).
/// Nothing changes under the file's name until [`close`](Self::close) succeeds; dropping
/// the writer without closing leaves the file as it was.
#[derive(Debug)]
pub struct AppendWriter {
    writer: ParquetWriter<BufWriter<File>>,
    staging: TempFile,
    path: PathBuf,
    /// The file's length and last bytes when it was opened.
    end: u64,
    tail: Vec<u8>,
}

impl ParquetWriter<BufWriter<File>> {
    /// A writer that appends row groups to the Parquet file at `path`, with the file's own
    /// Arrow schema (as [`ParquetReader::schema`] gives it); see [`AppendWriter`].
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use arrow_array::{Int64Array, RecordBatch};
    /// use arrow_schema::{DataType, Field, Schema};
    /// use parq::{ParquetReader, ParquetWriter, WriterProperties};
    ///
    /// let path = std::env::temp_dir().join(format!("parq-append-doc-{}.parquet", std::process::id()));
    /// let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
    /// let batch = |v: Vec<i64>| RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(v))]);
    /// let mut w = ParquetWriter::try_new(std::fs::File::create(&path)?, schema.clone(), WriterProperties::default())?;
    /// w.write(&batch(vec![1, 2])?)?;
    /// w.close()?;
    ///
    /// let mut w = ParquetWriter::append_to(&path, WriterProperties::default())?;
    /// w.write(&batch(vec![3])?)?;
    /// w.close()?;
    /// let reader = ParquetReader::open(&path)?;
    /// assert_eq!((reader.metadata().num_rows(), reader.metadata().row_groups().len()), (3, 2));
    /// # std::fs::remove_file(&path)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn append_to(path: impl AsRef<Path>, properties: WriterProperties) -> Result<AppendWriter> {
        AppendWriter::open(path.as_ref(), None, properties)
    }

    /// [`append_to`](Self::append_to) with the rows' Arrow schema `schema`, which must
    /// have the file's Parquet schema (the same columns, types and nullability); the
    /// file's key-value metadata is kept beside the schema's.
    pub fn append_to_with_schema(
        path: impl AsRef<Path>,
        schema: SchemaRef,
        properties: WriterProperties,
    ) -> Result<AppendWriter> {
        AppendWriter::open(path.as_ref(), Some(schema), properties)
    }
}

impl AppendWriter {
    fn open(
        path: &Path,
        schema: Option<SchemaRef>,
        properties: WriterProperties,
    ) -> Result<AppendWriter> {
        let at = |e: Error| e.in_file(path.display().to_string());
        let reader = ParquetReader::open(path).map_err(at)?;
        let meta = reader.metadata().clone();
        let file_schema = reader.schema().map_err(at)?;
        let schema = match schema {
            None => file_schema,
            Some(s) => {
                let mut metadata = s.metadata().clone();
                for (k, v) in file_schema.metadata() {
                    if !metadata.contains_key(k) {
                        metadata.insert(k.clone(), v.clone());
                    }
                }
                Arc::new(Schema::new_with_metadata(s.fields().clone(), metadata))
            }
        };
        let mut old = File::open(path).map_err(|e| at(e.into()))?;
        let end = old.seek(SeekFrom::End(0)).map_err(|e| at(e.into()))?;
        let tail = read_tail(&mut old, end).map_err(at)?;
        let (staging, mut file) = TempFile::create(path)?;
        if let Ok(m) = std::fs::metadata(path) {
            // The new file keeps the old one's permissions.
            let _ = file.set_permissions(m.permissions());
        }
        old.seek(SeekFrom::Start(0)).map_err(|e| at(e.into()))?;
        let copied = std::io::copy(&mut old, &mut file).map_err(|e| at(e.into()))?;
        if copied != end {
            return Err(at(Error::new(ErrorKind::Io(format!(
                "the file changed while it was copied ({end} bytes, then {copied})"
            )))));
        }
        let out = BufWriter::with_capacity(1 << 20, file);
        let writer =
            ParquetWriter::continue_file(out, schema, properties, &meta, end).map_err(at)?;
        Ok(AppendWriter {
            writer,
            staging,
            path: path.to_path_buf(),
            end,
            tail,
        })
    }

    /// The Arrow schema of the rows written.
    pub fn arrow_schema(&self) -> &SchemaRef {
        self.writer.arrow_schema()
    }

    /// Appends the rows of `batch` (see [`ParquetWriter::write`]).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.writer.write(batch)
    }

    /// Closes the open row group (see [`ParquetWriter::flush`]).
    pub fn flush(&mut self) -> Result<()> {
        self.writer.flush()
    }

    /// Why row groups of the file of `meta` cannot be copied with
    /// [`copy_row_groups`](Self::copy_row_groups), or `None`.
    pub fn copy_refusal(&self, meta: &FileMetaData) -> Option<&'static str> {
        self.writer.copy_refusal(meta)
    }

    /// Appends row groups of another file byte for byte (see
    /// [`ParquetWriter::copy_row_groups`]).
    pub fn copy_row_groups<R: Read + Seek>(
        &mut self,
        source: &mut R,
        meta: &FileMetaData,
        row_groups: &[usize],
    ) -> Result<()> {
        self.writer.copy_row_groups(source, meta, row_groups)
    }

    /// Writes the new row groups and footer, then puts the new file in the old one's place
    /// (see the [module documentation](crate::edit)); returns the new file's metadata.
    pub fn close(mut self) -> Result<FileMetaData> {
        let at = |e: Error| e.in_file(self.path.display().to_string());
        let (meta, out) = self.writer.close_into_inner().map_err(at)?;
        let file = out
            .into_inner()
            .map_err(|e| at(Error::from(e.into_error())))?;
        file.sync_all().map_err(|e| at(e.into()))?;
        drop(file);
        // Another writer of the file since it was copied: keep its bytes, not ours.
        let mut now = File::open(&self.path).map_err(|e| at(e.into()))?;
        let len = now.seek(SeekFrom::End(0)).map_err(|e| at(e.into()))?;
        if len != self.end || read_tail(&mut now, len).map_err(at)? != self.tail {
            return Err(at(Error::new(ErrorKind::Io(
                "the file changed while rows were appended to it: nothing was replaced".into(),
            ))));
        }
        self.staging.persist()?;
        sync_dir(&self.path);
        Ok(meta)
    }
}

/// The last [`TAIL_CHECK`] bytes of a file of `len` bytes.
fn read_tail(f: &mut File, len: u64) -> Result<Vec<u8>> {
    let n = len.min(TAIL_CHECK);
    f.seek(SeekFrom::Start(len - n))?;
    let mut tail = vec![0u8; n as usize];
    f.read_exact(&mut tail)?;
    Ok(tail)
}

/// Syncs the directory of `path`, so that a rename in it survives a power loss (best
/// effort: not every platform can open a directory).
fn sync_dir(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = OpenOptions::new().read(true).open(dir) {
        let _ = d.sync_all();
    }
}

/// What [`append_files`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppendReport {
    /// Row groups copied byte for byte.
    pub row_groups_copied: usize,
    /// Input files whose rows were decoded and encoded again.
    pub files_reencoded: usize,
    /// Rows appended.
    pub rows: u64,
    /// The file was rebuilt rather than continued: its Parquet schema is not the one parq
    /// writes for its Arrow schema (another writer's annotations or decimal widths), so
    /// its row groups were copied (or, where the inputs' schemas differ, encoded) into a
    /// new file with the new rows, renamed over it.
    pub rebuilt: bool,
}

/// Appends the rows of the Parquet files `inputs` to the file `target` (see
/// [`AppendWriter`]): row groups copied byte for byte where an input has the target's
/// Parquet schema, else its rows made the target's types (int32 to int64, a column the
/// input lacks as nulls) and encoded with `properties`. A column the target does not have is
/// an error, before anything is written. A target that cannot be continued (see
/// [`AppendReport::rebuilt`]) is rebuilt whole.
pub fn append_files<P: AsRef<Path>>(
    target: impl AsRef<Path>,
    inputs: &[P],
    properties: WriterProperties,
    progress: &mut dyn FnMut(Progress),
) -> Result<AppendReport> {
    let target = target.as_ref();
    let name = |p: &Path| p.display().to_string();
    let mut readers = Vec::with_capacity(inputs.len());
    let mut total = Progress::default();
    for p in inputs {
        let path = p.as_ref();
        if same_file(path, target) {
            return Err(Error::new(ErrorKind::InvalidArgument(
                "a file cannot be appended to itself".into(),
            ))
            .in_file(name(path)));
        }
        let reader = ParquetReader::open(path).map_err(|e| e.in_file(name(path)))?;
        total.rows_total += u64::try_from(reader.metadata().num_rows()).unwrap_or(0);
        readers.push((path, reader));
    }
    let schema = ParquetReader::open(target)
        .and_then(|r| r.schema())
        .map_err(|e| e.in_file(name(target)))?;
    for (path, reader) in &readers {
        let s = reader.schema().map_err(|e| e.in_file(name(path)))?;
        for f in s.fields() {
            let why = match schema.field_with_name(f.name()) {
                Err(_) => format!("column `{}` is not a column of {}", f.name(), name(target)),
                Ok(t) if promote(f.data_type(), t.data_type()).as_ref() != Some(t.data_type()) => {
                    format!(
                        "column `{}` is {} here and {} in {}",
                        f.name(),
                        f.data_type(),
                        t.data_type(),
                        name(target)
                    )
                }
                Ok(_) => continue,
            };
            return Err(Error::new(ErrorKind::InvalidArgument(why)).in_file(name(path)));
        }
    }
    let mut writer = match ParquetWriter::append_to(target, properties.clone()) {
        Ok(w) => w,
        // A file of another writer's Parquet schema: rebuilt with the rows appended.
        Err(e) if matches!(e.kind(), ErrorKind::Unsupported(_)) => {
            let mut all: Vec<&Path> = vec![target];
            all.extend(inputs.iter().map(AsRef::as_ref));
            let r = super::merge::merge_into(&all, target, properties, progress, true)?;
            return Ok(AppendReport {
                row_groups_copied: r.row_groups_copied,
                files_reencoded: r.files_reencoded,
                rows: total.rows_total,
                rebuilt: true,
            });
        }
        Err(e) => return Err(e),
    };
    let mut report = AppendReport::default();
    let mut done = total;
    for (path, reader) in &readers {
        let meta = reader.metadata();
        let in_err = |e: Error| e.in_file(name(path));
        if writer.copy_refusal(meta).is_none() {
            let mut f = File::open(path).map_err(|e| in_err(e.into()))?;
            for g in 0..meta.row_groups().len() {
                writer.copy_row_groups(&mut f, meta, &[g]).map_err(in_err)?;
                let rows = meta.row_groups().get(g).map_or(0, |g| g.num_rows());
                done.rows += u64::try_from(rows).unwrap_or(0);
                progress(done);
            }
            report.row_groups_copied += meta.row_groups().len();
        } else {
            for batch in reader.batches().map_err(in_err)? {
                let batch = batch.map_err(in_err)?;
                let columns = schema
                    .fields()
                    .iter()
                    .map(|f| conform(&batch, f))
                    .collect::<Result<Vec<_>>>()
                    .map_err(in_err)?;
                let batch = RecordBatch::try_new(schema.clone(), columns)
                    .map_err(|e| in_err(arrow_error(e)))?;
                writer.write(&batch).map_err(|e| e.in_file(name(target)))?;
                done.rows += batch.num_rows() as u64;
                progress(done);
            }
            writer.flush()?;
            report.files_reencoded += 1;
        }
        report.rows += u64::try_from(meta.num_rows()).unwrap_or(0);
    }
    writer.close()?;
    Ok(report)
}
