//! Datasets: many Parquet files read as one table, from a directory, a glob, a list of paths
//! or an object store's URL.
//!
//! ```
//! use std::sync::Arc;
//!
//! use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch};
//! use parq::col;
//! use parq::dataset::{write_dataset, Dataset, DatasetOptions, WriteOptions};
//!
//! // Write a dataset: a `year=...` directory per year, the files below them.
//! let root = std::env::temp_dir().join(format!("parq-doc-dataset-{}", std::process::id()));
//! let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..300));
//! let years: ArrayRef = Arc::new(Int32Array::from_iter_values((0..300).map(|i| 2024 + i / 100)));
//! let batch = RecordBatch::try_from_iter([("id", ids), ("year", years)]).unwrap();
//! let options = WriteOptions { partition_cols: vec!["year".into()], ..Default::default() };
//! let files = write_dataset(root.to_str().unwrap(), batch.schema(), [Ok(batch)], &options)?;
//! assert_eq!(files.len(), 3);
//!
//! // Read it back as one table: `year` comes from the directories, and the files of the
//! // years the filter rules out are not opened.
//! let ds = Dataset::open(root.as_path(), DatasetOptions::default())?;
//! let batches = ds
//!     .scan()
//!     .with_columns(["id", "year"])
//!     .with_filter(col("year").eq(2026).and(col("id").lt(250)))
//!     .read_all()?;
//! assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 50);
//! # std::fs::remove_dir_all(&root).unwrap();
//! # Ok::<(), parq::Error>(())
//! ```
//!
//! - `discover.rs`: which files a source names, in which order; `store.rs` (feature
//!   `object_store`; S3, GCS, Azure and HTTP with `cloud`): the same for URLs, and the reads
//!   of objects.
//! - `partition.rs`: hive partition columns; `schema.rs`: one schema across the files.
//! - `cache.rs`: footers kept between queries; `filter.rs`: what a filter leaves of a file.
//! - `scan.rs`: files pruned by their partitions and row groups read as jobs of the worker
//!   pool, batches in file order.
//! - `write.rs`: [`write_dataset`], rows into hive directories and files of bounded rows.
//!
//! Footers are read when the dataset opens (all of them, to unite their schemas), `concurrency`
//! at once, and kept in a cache for the process; with an explicit schema, or the first file's
//! (`union_by_name` off), only when a scan reaches their file (after the files its filter
//! rules out by partition values are dropped).

mod cache;
mod discover;
mod filter;
mod partition;
mod parts;
#[cfg(feature = "object_store")]
mod prefetch;
mod scan;
pub(crate) mod schema;
#[cfg(feature = "object_store")]
mod store;
mod write;

use std::sync::{Arc, OnceLock};

use arrow_schema::{Field, Schema, SchemaRef};

pub use cache::clear_metadata_cache;
pub use discover::DatasetSource;
pub use partition::Partitioning;
pub use scan::{DatasetBatches, DatasetScan};
pub use write::{write_dataset, WriteOptions};

use crate::format::metadata::FileMetaData;
use crate::read::io::source::{read_footer, FileSource, RangeRead};
use crate::read::ParquetDecoderBuilder;
use crate::read::ReadOptions;
use crate::{Error, ErrorKind, Result};
use discover::{Listed, Location, SourceKind};

/// How a dataset is found and read.
#[derive(Debug, Clone)]
pub struct DatasetOptions {
    /// Partition columns from `key=value` directories (default: hive, keys typed as pyarrow
    /// infers them).
    pub partitioning: Partitioning,
    /// The dataset's schema, instead of the files' schemas united: file columns (each file's
    /// cast to its type, missing ones null) and the types of partition keys it names.
    pub schema: Option<SchemaRef>,
    /// Options of object stores (object_store's keys, such as `aws_endpoint_url`,
    /// `aws_access_key_id`, `aws_secret_access_key`, `aws_region`, `aws_allow_http`), on top
    /// of those of the environment.
    pub storage_options: Vec<(String, String)>,
    /// How each file is read (strings, dictionaries, batch size, threads: how many row
    /// groups are read at once across the files).
    pub read: ReadOptions,
    /// A column of each row's file (its path or URL), after the others.
    pub file_path_column: Option<String>,
    /// A column of each row's index within its file (int64), after the others.
    pub row_index_column: Option<String>,
    /// How many footers are read at once (object stores; local files on the worker pool).
    /// Default 64.
    pub concurrency: usize,
    /// Without an explicit [`schema`](Self::schema): `true` (the default) reads every file's
    /// footer when the dataset is opened and unites their schemas by name; `false` takes the
    /// first file's schema as the dataset's (as `pyarrow.dataset` and DuckDB without
    /// `union_by_name` do) and reads only that footer at open, the others when their files
    /// are scanned (so a query that prunes files by partition reads only the kept files'
    /// footers). The other files are then read as with an explicit schema: columns they lack
    /// are null, columns the first file lacks are left out, other types are cast.
    pub union_by_name: bool,
}

impl Default for DatasetOptions {
    fn default() -> Self {
        DatasetOptions {
            partitioning: Partitioning::Hive,
            schema: None,
            storage_options: Vec::new(),
            read: ReadOptions::default(),
            file_path_column: None,
            row_index_column: None,
            concurrency: 64,
            union_by_name: true,
        }
    }
}

/// One file of a dataset.
#[derive(Debug)]
pub(crate) struct DatasetFile {
    pub(crate) listed: Listed,
    /// Its partition values, a one-value array per partition column.
    pub(crate) partition: Vec<arrow_array::ArrayRef>,
    meta: OnceLock<Arc<FileMetaData>>,
    schema: OnceLock<SchemaRef>,
}

impl DatasetFile {
    /// The file's path or URL.
    pub fn name(&self) -> &str {
        &self.listed.name
    }

    /// Its footer, once read.
    pub(crate) fn meta(&self) -> Result<&Arc<FileMetaData>> {
        self.meta.get().ok_or_else(|| {
            crate::error::internal(format!("the footer of {} was not read", self.listed.name))
        })
    }

    /// Its Arrow schema under `options`.
    pub(crate) fn schema(&self, options: &ReadOptions) -> Result<&SchemaRef> {
        if let Some(s) = self.schema.get() {
            return Ok(s);
        }
        let builder = self.builder(options)?;
        let schema = builder.schema().map_err(|e| e.in_file(self.name()))?;
        Ok(self.schema.get_or_init(|| schema))
    }

    /// A read of the file with `options`.
    pub(crate) fn builder(&self, options: &ReadOptions) -> Result<ParquetDecoderBuilder> {
        let meta = Arc::clone(self.meta()?);
        Ok(ParquetDecoderBuilder::new(meta, self.listed.size).with_options(options.clone()))
    }

    /// Whether the file is an object of a store.
    pub(crate) fn is_remote(&self) -> bool {
        !matches!(self.listed.location, Location::Local(_))
    }

    /// Its store and path, when it is an object of a store.
    #[cfg(feature = "object_store")]
    pub(crate) fn object(&self) -> Option<(Arc<store::Store>, object_store::path::Path)> {
        match &self.listed.location {
            Location::Store(store, path) => Some((Arc::clone(store), path.clone())),
            Location::Local(_) => None,
        }
    }

    /// The file's bytes.
    pub(crate) fn source(&self) -> Result<Arc<dyn RangeRead>> {
        Ok(match &self.listed.location {
            Location::Local(path) => {
                Arc::new(FileSource::open(path).map_err(|e| e.in_file(self.name()))?)
            }
            #[cfg(feature = "object_store")]
            Location::Store(store, path) => Arc::new(store::StoreSource {
                store: Arc::clone(store),
                path: path.clone(),
                len: self.listed.size,
            }),
        })
    }
}

/// Parquet files read as one table: see the [module documentation](self).
#[derive(Debug)]
pub struct Dataset {
    files: Vec<Arc<DatasetFile>>,
    /// The file columns, then the partition columns.
    schema: SchemaRef,
    /// How many of the schema's fields are file columns.
    file_fields: usize,
    options: DatasetOptions,
}

impl Dataset {
    /// The dataset of `source`: its files listed, their footers read and their schemas
    /// united (unless [`DatasetOptions::schema`] is given, or
    /// [`DatasetOptions::union_by_name`] is off: then only the first file's footer is read).
    pub fn open(source: impl Into<DatasetSource>, options: DatasetOptions) -> Result<Dataset> {
        let (kind, listed) = discover_source(&source.into(), &options)?;
        let dirs: Vec<&[String]> = listed.iter().map(|l| l.partition_dirs.as_slice()).collect();
        let partitioning = match (&options.partitioning, &options.schema) {
            (Partitioning::Hive, Some(explicit)) => hive_typed_by(explicit, &dirs)?,
            (p, _) => p.clone(),
        };
        let parts = match kind {
            SourceKind::SingleFile => partition::Partitions::default(),
            SourceKind::Many => partition::partitions(&partitioning, &dirs)?,
        };
        let mut values = parts.values.into_iter();
        let files: Vec<Arc<DatasetFile>> = listed
            .into_iter()
            .map(|listed| {
                Arc::new(DatasetFile {
                    listed,
                    partition: values.next().unwrap_or_default(),
                    meta: OnceLock::new(),
                    schema: OnceLock::new(),
                })
            })
            .collect();
        let all: Vec<&DatasetFile> = files.iter().map(Arc::as_ref).collect();
        let file_schema = match &options.schema {
            Some(explicit) => {
                let keys: Vec<&str> = parts.fields.iter().map(|f| f.name().as_str()).collect();
                let fields: Vec<Arc<Field>> = explicit
                    .fields()
                    .iter()
                    .filter(|f| !keys.contains(&f.name().as_str()))
                    .cloned()
                    .collect();
                Schema::new(fields)
            }
            None if !options.union_by_name => {
                let first = all.first().ok_or_else(|| {
                    Error::new(ErrorKind::NotFound("a dataset without files".into()))
                })?;
                read_footers(&[*first], options.concurrency)?;
                first.schema(&options.read)?.as_ref().clone()
            }
            None => {
                read_footers(&all, options.concurrency)?;
                let mut schemas = Vec::with_capacity(files.len());
                for f in &files {
                    schemas.push((f.name(), f.schema(&options.read)?.as_ref()));
                }
                schema::unify(&schemas)?
            }
        };
        for key in &parts.fields {
            if file_schema.field_with_name(key.name()).is_ok() {
                return Err(Error::new(ErrorKind::InvalidArgument(format!(
                    "partition key `{}` is also a column of the files (read with partitioning \
                     turned off, or rename the directories)",
                    key.name()
                ))));
            }
        }
        let file_fields = file_schema.fields().len();
        let mut fields: Vec<Arc<Field>> = file_schema.fields().iter().cloned().collect();
        fields.extend(parts.fields.iter().cloned());
        Ok(Dataset {
            files,
            schema: Arc::new(Schema::new(fields)),
            file_fields,
            options,
        })
    }

    /// The dataset's schema: the file columns, then the partition columns.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// The partition columns (the last of [`Dataset::schema`]'s fields).
    pub fn partition_schema(&self) -> SchemaRef {
        let fields: Vec<Arc<Field>> = self
            .schema
            .fields()
            .iter()
            .skip(self.file_fields)
            .cloned()
            .collect();
        Arc::new(Schema::new(fields))
    }

    /// The files, as absolute local paths or URLs, in the order they are read.
    pub fn files(&self) -> Vec<&str> {
        self.files.iter().map(|f| f.name()).collect()
    }

    /// Each file's size in bytes, in [`Dataset::files`]' order.
    pub fn file_sizes(&self) -> Vec<u64> {
        self.files.iter().map(|f| f.listed.size).collect()
    }

    /// The footers of every file (read now where not read yet), in [`Dataset::files`]' order.
    pub fn metadata(&self) -> Result<Vec<Arc<FileMetaData>>> {
        let all: Vec<&DatasetFile> = self.files.iter().map(Arc::as_ref).collect();
        read_footers(&all, self.options.concurrency)?;
        self.files.iter().map(|f| f.meta().cloned()).collect()
    }

    /// The options the dataset was opened with.
    pub fn options(&self) -> &DatasetOptions {
        &self.options
    }

    /// A scan of the dataset: every column and row unless narrowed.
    pub fn scan(&self) -> DatasetScan<'_> {
        DatasetScan::new(self)
    }
}

/// The partitioning that types the keys the explicit schema names as it does.
fn hive_typed_by(explicit: &Schema, dirs: &[&[String]]) -> Result<Partitioning> {
    let inferred = partition::partitions(&Partitioning::Hive, dirs)?;
    let fields: Vec<Arc<Field>> = inferred
        .fields
        .iter()
        .map(|f| match explicit.field_with_name(f.name()) {
            Ok(given) => Arc::new(given.clone()),
            Err(_) => Arc::clone(f),
        })
        .collect();
    Ok(Partitioning::HiveSchema(Arc::new(Schema::new(fields))))
}

/// The files of `source`.
fn discover_source(
    source: &DatasetSource,
    options: &DatasetOptions,
) -> Result<(SourceKind, Vec<Listed>)> {
    match source {
        DatasetSource::Path(p) => one_source(p, options),
        DatasetSource::List(paths) => {
            if paths.is_empty() {
                return Err(Error::new(ErrorKind::NotFound(
                    "an empty list of files".to_string(),
                )));
            }
            let mut files = Vec::with_capacity(paths.len());
            for p in paths {
                files.push(one_file(p, options)?);
            }
            Ok((SourceKind::Many, files))
        }
    }
}

fn local_path(s: &str) -> Option<&str> {
    s.strip_prefix("file://")
}

fn one_source(s: &str, options: &DatasetOptions) -> Result<(SourceKind, Vec<Listed>)> {
    if let Some(path) = local_path(s) {
        return discover::local(path);
    }
    #[cfg(feature = "object_store")]
    if store::is_url(s) {
        let (single, files) = store::discover(s, &options.storage_options)?;
        let kind = if single {
            SourceKind::SingleFile
        } else {
            SourceKind::Many
        };
        return Ok((kind, files));
    }
    let _ = options;
    if s.contains("://") {
        return Err(no_stores(s));
    }
    discover::local(s)
}

fn one_file(s: &str, options: &DatasetOptions) -> Result<Listed> {
    if let Some(path) = local_path(s) {
        return discover::local_file(path);
    }
    #[cfg(feature = "object_store")]
    if store::is_url(s) {
        return store::discover_one(s, &options.storage_options);
    }
    let _ = options;
    if s.contains("://") {
        return Err(no_stores(s));
    }
    discover::local_file(s)
}

fn no_stores(s: &str) -> Error {
    Error::new(ErrorKind::Unsupported(format!(
        "{s}: object-store URLs need parq's `object_store` feature"
    )))
}

/// Reads the footers of `files` not read yet (from the cache where it has them).
pub(crate) fn read_footers(files: &[&DatasetFile], concurrency: usize) -> Result<()> {
    let mut local: Vec<&DatasetFile> = Vec::new();
    #[cfg(feature = "object_store")]
    let mut remote: Vec<&DatasetFile> = Vec::new();
    for &f in files {
        if f.meta.get().is_some() {
            continue;
        }
        let l = &f.listed;
        if let Some(meta) = cache::get(&l.name, l.size, l.version.as_deref()) {
            let _ = f.meta.set(meta);
            continue;
        }
        match &l.location {
            Location::Local(_) => local.push(f),
            #[cfg(feature = "object_store")]
            Location::Store(..) => remote.push(f),
        }
    }
    let keep = |f: &DatasetFile, meta: Arc<FileMetaData>| {
        let l = &f.listed;
        cache::put(&l.name, l.size, l.version.as_deref(), &meta);
        let _ = f.meta.set(meta);
    };
    let threads = crate::workers::threads().min(concurrency.max(1));
    let read = crate::workers::par_each(&mut local, threads, |_, f| {
        let source = f.source()?;
        let meta =
            read_footer(source.as_ref(), Default::default()).map_err(|e| e.in_file(f.name()))?;
        Ok(Some(Arc::new(meta)))
    })?;
    for (i, meta) in read {
        if let Some(f) = local.get(i) {
            keep(f, meta);
        }
    }
    #[cfg(feature = "object_store")]
    if !remote.is_empty() {
        let mut wanted = Vec::with_capacity(remote.len());
        for f in &remote {
            if let Location::Store(store, path) = &f.listed.location {
                wanted.push((Arc::clone(store), path.clone(), f.listed.size));
            }
        }
        let metas = store::read_footers(wanted, concurrency)?;
        for (f, meta) in remote.iter().zip(metas) {
            keep(f, meta);
        }
    }
    Ok(())
}
