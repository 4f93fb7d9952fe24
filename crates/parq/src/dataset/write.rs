//! Writing a dataset: rows split by the values of partition columns into hive directories
//! (`key=value`, values percent-encoded as URIs, null as `__HIVE_DEFAULT_PARTITION__`), each
//! directory's rows written to files of at most `max_rows_per_file` rows, named by a basename
//! template whose `{i}` counts the files of the directory. The partition columns are not
//! written into the files (they are the directories). Local roots are written in place (a
//! file that exists is never replaced); object-store roots (`s3://...`, feature `cloud`) are
//! written object by object, each put when its file is complete.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{Array, RecordBatch, UInt32Array};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::SchemaRef;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::error::arrow_error;
use crate::write::{ParquetWriter, WriterProperties};
use crate::{Error, ErrorKind, Result};

/// Characters kept as they are in a partition value: URI's unreserved ones.
const KEEP: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The value of a partition key that is null.
const NULL_VALUE: &str = "__HIVE_DEFAULT_PARTITION__";

/// How a dataset is written.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// The columns whose values make the directories, outermost first.
    pub partition_cols: Vec<String>,
    /// The most rows a file holds (default: no limit).
    pub max_rows_per_file: Option<usize>,
    /// File names; `{i}` becomes the file's number within its directory (from 0). Default:
    /// `part-{token}-{i}.parquet`, with a token new to each write.
    pub basename_template: Option<String>,
    /// How each file is written.
    pub properties: WriterProperties,
    /// Options of object stores (see [`super::DatasetOptions::storage_options`]).
    pub storage_options: Vec<(String, String)>,
}

/// Where a dataset is written.
enum Root {
    Local(PathBuf),
    #[cfg(feature = "object_store")]
    Store(Arc<super::store::Store>, String),
}

/// The bytes of one file being written.
enum Sink {
    Local(BufWriter<File>),
    #[cfg(feature = "object_store")]
    Memory(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Local(f) => f.write(buf),
            #[cfg(feature = "object_store")]
            Sink::Memory(v) => {
                v.extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Local(f) => f.flush(),
            #[cfg(feature = "object_store")]
            Sink::Memory(_) => Ok(()),
        }
    }
}

/// A file being written, and where.
struct Open {
    writer: ParquetWriter<Sink>,
    name: String,
    rows: usize,
}

/// One directory's files.
struct Directory {
    /// `key=value/...` below the root.
    rel: String,
    open: Option<Open>,
    /// Files started in it so far.
    files: usize,
}

/// Writes `batches` (of `schema`) as a dataset below `root` (a local directory or a URL);
/// returns the files written, in the order they were started.
pub fn write_dataset(
    root: &str,
    schema: SchemaRef,
    batches: impl IntoIterator<Item = Result<RecordBatch>>,
    options: &WriteOptions,
) -> Result<Vec<String>> {
    let mut partition_idx = Vec::with_capacity(options.partition_cols.len());
    for name in &options.partition_cols {
        let (i, _) = schema
            .column_with_name(name)
            .ok_or_else(|| Error::new(ErrorKind::ColumnNotFound { path: name.clone() }))?;
        partition_idx.push(i);
    }
    let data_idx: Vec<usize> = (0..schema.fields().len())
        .filter(|i| !partition_idx.contains(i))
        .collect();
    if data_idx.is_empty() {
        return Err(Error::new(ErrorKind::InvalidArgument(
            "every column is a partition column: the files would have none".into(),
        )));
    }
    let data_schema = Arc::new(schema.project(&data_idx).map_err(arrow_error)?);
    let root = open_root(root, &options.storage_options)?;
    let template = match &options.basename_template {
        Some(t) if t.contains("{i}") => t.clone(),
        Some(t) => {
            return Err(Error::new(ErrorKind::InvalidArgument(format!(
                "basename_template `{t}` has no `{{i}}`"
            ))))
        }
        None => format!("part-{}-{{i}}.parquet", token()),
    };
    let mut writer = DatasetWriter {
        root,
        template,
        data_schema,
        options,
        directories: Vec::new(),
        by_key: HashMap::new(),
        written: Vec::new(),
    };
    for batch in batches {
        let batch = batch?;
        if batch.schema().fields() != schema.fields() {
            return Err(Error::new(ErrorKind::InvalidArgument(format!(
                "a batch's schema differs from the dataset's:\n{}\nvs\n{schema}",
                batch.schema()
            ))));
        }
        writer.write(&batch, &partition_idx, &data_idx)?;
    }
    writer.finish()
}

/// A token new to each write (time and process), so that files of two writes differ.
fn token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{:x}{:x}", nanos & 0xffff_ffff_ffff, std::process::id())
}

fn open_root(root: &str, storage_options: &[(String, String)]) -> Result<Root> {
    #[cfg(feature = "object_store")]
    if super::store::is_url(root) && !root.starts_with("file://") {
        let (store, prefix) = super::store::open_prefix(root, storage_options)?;
        return Ok(Root::Store(store, prefix));
    }
    let _ = storage_options;
    let path = root.strip_prefix("file://").unwrap_or(root);
    let path = std::path::absolute(path).map_err(Error::from)?;
    Ok(Root::Local(path))
}

struct DatasetWriter<'a> {
    root: Root,
    template: String,
    data_schema: SchemaRef,
    options: &'a WriteOptions,
    directories: Vec<Directory>,
    by_key: HashMap<String, usize>,
    written: Vec<String>,
}

impl DatasetWriter<'_> {
    fn write(
        &mut self,
        batch: &RecordBatch,
        partition_idx: &[usize],
        data_idx: &[usize],
    ) -> Result<()> {
        let data = batch.project(data_idx).map_err(arrow_error)?;
        if partition_idx.is_empty() {
            return self.write_rows("", &data);
        }
        // Each row's directory, and the rows of each directory in order.
        let format = FormatOptions::default();
        let mut formatters = Vec::with_capacity(partition_idx.len());
        for &i in partition_idx {
            let (Some(column), Some(field)) =
                (batch.columns().get(i), batch.schema_ref().fields().get(i))
            else {
                return Err(crate::error::internal("a partition column of no field"));
            };
            // The directory level's `key=`, percent-encoded as the values are.
            let key = format!("{}=", utf8_percent_encode(field.name(), KEEP));
            formatters.push((
                key,
                column,
                ArrayFormatter::try_new(column.as_ref(), &format).map_err(arrow_error)?,
            ));
        }
        let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
        let mut group_of: HashMap<String, usize> = HashMap::new();
        let mut rel = String::new();
        let mut text = String::new();
        for row in 0..batch.num_rows() {
            rel.clear();
            for (key, column, f) in &formatters {
                rel.push_str(key);
                if column.is_null(row) {
                    rel.push_str(NULL_VALUE);
                } else {
                    text.clear();
                    f.value(row).write(&mut text).map_err(arrow_error)?;
                    rel.extend(utf8_percent_encode(&text, KEEP));
                }
                rel.push('/');
            }
            let row = u32::try_from(row).map_err(|_| {
                Error::new(ErrorKind::InvalidArgument(
                    "a batch of over 2^32 rows".into(),
                ))
            })?;
            match group_of.get(&rel) {
                Some(&g) => {
                    if let Some((_, rows)) = groups.get_mut(g) {
                        rows.push(row);
                    }
                }
                None => {
                    group_of.insert(rel.clone(), groups.len());
                    groups.push((rel.clone(), vec![row]));
                }
            }
        }
        for (rel, rows) in groups {
            let indices = UInt32Array::from(rows);
            let taken =
                arrow_select::take::take_record_batch(&data, &indices).map_err(arrow_error)?;
            self.write_rows(&rel, &taken)?;
        }
        Ok(())
    }

    /// Appends `rows` to directory `rel`'s files.
    fn write_rows(&mut self, rel: &str, rows: &RecordBatch) -> Result<()> {
        let d = match self.by_key.get(rel) {
            Some(&d) => d,
            None => {
                self.by_key.insert(rel.to_string(), self.directories.len());
                self.directories.push(Directory {
                    rel: rel.to_string(),
                    open: None,
                    files: 0,
                });
                self.directories.len() - 1
            }
        };
        let limit = self.options.max_rows_per_file.unwrap_or(usize::MAX).max(1);
        let mut at = 0;
        while at < rows.num_rows() {
            let needs_file = self
                .directories
                .get(d)
                .is_some_and(|dir| dir.open.as_ref().is_none_or(|o| o.rows >= limit));
            if needs_file {
                self.close(d)?;
                let open = self.start(d)?;
                if let Some(dir) = self.directories.get_mut(d) {
                    dir.open = Some(open);
                }
            }
            let Some(open) = self
                .directories
                .get_mut(d)
                .and_then(|dir| dir.open.as_mut())
            else {
                return Err(crate::error::internal("a dataset file is not open"));
            };
            let n = (limit - open.rows).min(rows.num_rows() - at);
            open.writer
                .write(&rows.slice(at, n))
                .map_err(|e| e.in_file(open.name.clone()))?;
            open.rows += n;
            at += n;
        }
        Ok(())
    }

    /// Starts the next file of directory `d`.
    fn start(&mut self, d: usize) -> Result<Open> {
        let Some(dir) = self.directories.get_mut(d) else {
            return Err(crate::error::internal("no such dataset directory"));
        };
        let base = self.template.replace("{i}", &dir.files.to_string());
        dir.files += 1;
        let rel = format!("{}{base}", dir.rel);
        let (sink, name) = match &self.root {
            Root::Local(root) => {
                let path = root.join(&rel);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io(&path, e))?;
                }
                // A file that exists is kept: the write fails rather than replace it.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                    .map_err(|e| io(&path, e))?;
                let name = path.to_string_lossy().into_owned();
                (Sink::Local(BufWriter::with_capacity(1 << 20, file)), name)
            }
            #[cfg(feature = "object_store")]
            Root::Store(store, prefix) => {
                let key = if prefix.is_empty() {
                    rel
                } else {
                    format!("{prefix}/{rel}")
                };
                (Sink::Memory(Vec::new()), store.url_of(&key))
            }
        };
        let writer = ParquetWriter::try_new(
            sink,
            Arc::clone(&self.data_schema),
            self.options.properties.clone(),
        )
        .map_err(|e| e.in_file(name.clone()))?;
        self.written.push(name.clone());
        Ok(Open {
            writer,
            name,
            rows: 0,
        })
    }

    /// Completes directory `d`'s open file, if any.
    fn close(&mut self, d: usize) -> Result<()> {
        let Some(open) = self.directories.get_mut(d).and_then(|dir| dir.open.take()) else {
            return Ok(());
        };
        let name = open.name.clone();
        let (_, mut sink) = open
            .writer
            .close_into_inner()
            .map_err(|e| e.in_file(name.clone()))?;
        sink.flush()
            .map_err(|e| Error::from(e).in_file(name.clone()))?;
        match (&self.root, sink) {
            #[cfg(feature = "object_store")]
            (Root::Store(store, _), Sink::Memory(bytes)) => store.put(&name, bytes),
            _ => Ok(()),
        }
    }

    fn finish(mut self) -> Result<Vec<String>> {
        for d in 0..self.directories.len() {
            self.close(d)?;
        }
        Ok(self.written)
    }
}

fn io(path: &std::path::Path, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io(format!("{}: {e}", path.display()))).with_source(e)
}
