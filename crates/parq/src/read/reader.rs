//! [`ParquetReader`]: a file (a path, or its bytes) -> Arrow `RecordBatch`es.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use bytes::Bytes;

use crate::format::crypto::FileDecryptionProperties;
use crate::format::footer::{decode_file_metadata, DecodeOptions};
use crate::format::metadata::FileMetaData;
use crate::read::exec::builder::{reader_settings, ParquetDecoderBuilder};
use crate::read::exec::decoder::ParquetDecoder;
use crate::read::exec::parallel::RowGroupBatches;
use crate::read::exec::stats::ReadStats;
use crate::read::io::projected::OpenedFooter;
use crate::read::io::source::{read_footer, FileSource, RangeRead};
use crate::Result;

/// Reads a Parquet file into Arrow record batches.
///
/// [`ParquetReader`]: a file (a path, or its bytes) -> Arrow `RecordBatch`es.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// # use parq::{ParquetWriter, WriterProperties};
/// # let path = std::env::temp_dir().join("parq-doc-reader.parquet");
/// # let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100));
/// # let names = (0..100).map(|i| format!("n{i}"));
/// # let names: ArrayRef = Arc::new(StringArray::from_iter_values(names));
/// # let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap();
/// # let props = WriterProperties::builder().max_row_group_rows(Some(40)).build().unwrap();
/// # let file = std::fs::File::create(&path).unwrap();
/// # let mut w = ParquetWriter::try_new(file, batch.schema(), props).unwrap();
/// # w.write(&batch).unwrap();
/// # w.close().unwrap();
/// use parq::read::ParquetReader;
///
/// // `path`: a file of 100 rows (`id`, `name`) in row groups of 40, 40 and 20.
/// let reader = ParquetReader::open(&path)?
///     .with_columns(["id", "name"])
///     .with_row_groups([0, 2])
///     .with_batch_size(25);
/// let mut rows = 0;
/// for batch in reader.batches()? {
///     let batch = batch?;
///     assert!(batch.num_rows() <= 25);
///     rows += batch.num_rows();
/// }
/// assert_eq!(rows, 60);
/// # Ok::<(), parq::Error>(())
/// ```
///
/// Batches hold `batch_size` rows (the last one fewer) and span pages and row groups: each
/// leaf column is read page by page (`decode/leaf.rs`) only as far as the batch needs, and the
/// nodes above the leaves (structs, lists, maps) are built from their levels
/// (`decode/nested.rs`). A row group holds what its chunks hold, at most its `num_rows` (and
/// a chunk of a leaf without repetition at most its `num_values`), as pyarrow reads row
/// groups whose counts disagree; every chosen leaf must then hold as many rows in each row
/// group. [`ParquetReader::read_batch`] reads everything chosen into one batch.
///
/// A file is read by positional reads of the byte ranges the batches need
/// ([`ParquetReader::open`]: per chosen column about [`ReadOptions::fetch_bytes`](crate::read::ReadOptions::fetch_bytes) of its
/// chunk at a time, so memory follows the batch, not the file), from bytes in memory
/// ([`ParquetReader::from_bytes`]: slices, nothing copied) or from any [`RangeRead`], such as
/// a file's memory mapping ([`MappedFile`](crate::read::MappedFile): no copy of the file's
/// bytes, the fastest source for uncompressed files). The reader drives a [`ParquetDecoder`], which does no IO itself.
#[derive(Debug, Clone)]
pub struct ParquetReader {
    source: Arc<dyn RangeRead>,
    builder: ParquetDecoderBuilder,
}

impl ParquetReader {
    /// Opens the file at `path` and decodes its footer (reading only the footer).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_source(Arc::new(FileSource::open(path)?))
    }

    /// A reader of the file held in `data`.
    pub fn from_bytes(data: Bytes) -> Result<Self> {
        let meta = decode_file_metadata(&data, &DecodeOptions::default())?;
        let len = data.len() as u64;
        Ok(ParquetReader {
            source: Arc::new(data),
            builder: ParquetDecoderBuilder::new(Arc::new(meta), len),
        })
    }

    /// A reader of the file `source` reads, its footer read from it.
    pub fn from_source(source: Arc<dyn RangeRead>) -> Result<Self> {
        Self::from_source_with(source, DecodeOptions::default())
    }

    /// Opens the encrypted file at `path` with its keys (see [`FileDecryptionProperties`]):
    /// its footer decrypted or verified, and its pages, page index and Bloom filters
    /// decrypted as they are read. A column whose key is not at hand is an error when read;
    /// the others read.
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// use arrow_array::{ArrayRef, Int32Array, RecordBatch};
    /// use parq::format::crypto::{FileDecryptionProperties, FileEncryptionProperties};
    /// use parq::{ParquetReader, ParquetWriter, WriterProperties};
    ///
    /// let key = b"0123456789012345".to_vec(); // AES-128: 16 bytes
    /// let path = std::env::temp_dir().join("parq-doc-encrypted.parquet");
    /// let x: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
    /// let batch = RecordBatch::try_from_iter([("x", x)]).unwrap();
    ///
    /// // The footer and every column encrypted with the footer key.
    /// let props = WriterProperties::builder()
    ///     .encryption(FileEncryptionProperties::new(key.clone())?)
    ///     .build()?;
    /// let file = std::fs::File::create(&path)?;
    /// let mut writer = ParquetWriter::try_new(file, batch.schema(), props)?;
    /// writer.write(&batch)?;
    /// writer.close()?;
    ///
    /// assert!(ParquetReader::open(&path).is_err()); // no keys, no footer
    /// let keys = FileDecryptionProperties::with_footer_key(key)?;
    /// let read = ParquetReader::open_encrypted(&path, Arc::new(keys))?.read_batch()?;
    /// assert_eq!(read, batch);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn open_encrypted(
        path: impl AsRef<Path>,
        keys: Arc<FileDecryptionProperties>,
    ) -> Result<Self> {
        let path = path.as_ref();
        Self::from_source_with(
            Arc::new(FileSource::open(path)?),
            DecodeOptions {
                decryption: Some(Arc::new(keys.for_file(path))),
                ..Default::default()
            },
        )
    }

    /// A reader of the file `source` reads, its footer decoded with `opts` (the keys of an
    /// encrypted file, limits, ...).
    pub fn from_source_with(source: Arc<dyn RangeRead>, opts: DecodeOptions) -> Result<Self> {
        let meta = read_footer(source.as_ref(), opts)?;
        Ok(Self::from_metadata(source, Arc::new(meta)))
    }

    /// Opens the file at `path` to read the top-level columns `columns` (as
    /// [`with_columns`](Self::with_columns) chooses them): only their part of the footer is
    /// decoded, through the footer index parq writes when the file has one, so opening a
    /// few columns of a wide file costs what those columns cost. The reader sees a file of
    /// those columns ([`FileMetaData::projection`]); a filter may name only them. A name
    /// that is not a top-level column reads the whole footer (and is reported as usual).
    pub fn open_columns<S: AsRef<str>>(path: impl AsRef<Path>, columns: &[S]) -> Result<Self> {
        Self::from_source_columns(Arc::new(FileSource::open(path)?), columns)
    }

    /// [`ParquetReader::open_columns`] for the file `source` reads.
    pub fn from_source_columns<S: AsRef<str>>(
        source: Arc<dyn RangeRead>,
        columns: &[S],
    ) -> Result<Self> {
        Self::from_source_columns_with(source, columns, DecodeOptions::default())
    }

    /// [`ParquetReader::from_source_columns`] with the footer decoded with `opts`; an
    /// encrypted file's keys are asked for those columns only.
    pub fn from_source_columns_with<S: AsRef<str>>(
        source: Arc<dyn RangeRead>,
        columns: &[S],
        opts: DecodeOptions,
    ) -> Result<Self> {
        let names: Vec<&str> = columns.iter().map(AsRef::as_ref).collect();
        let Some(keys) = &opts.decryption else {
            let footer = OpenedFooter::open(source.as_ref())?;
            return Self::footer_columns_with(source, &footer, &names, &opts);
        };
        let only = names.iter().map(|s| s.to_string()).collect();
        let opts = DecodeOptions {
            decryption: Some(Arc::new(keys.as_ref().clone().only_columns(only))),
            ..opts
        };
        let meta = read_footer(source.as_ref(), opts)?;
        Ok(Self::from_metadata(source, Arc::new(meta)).with_columns(names))
    }

    /// [`ParquetReader::from_source_columns`] with the footer of `source` opened before
    /// (kept to open readers of other columns of the same file).
    pub fn from_footer_columns<S: AsRef<str>>(
        source: Arc<dyn RangeRead>,
        footer: &OpenedFooter,
        columns: &[S],
    ) -> Result<Self> {
        let names: Vec<&str> = columns.iter().map(AsRef::as_ref).collect();
        Self::footer_columns_with(source, footer, &names, &DecodeOptions::default())
    }

    /// A reader of `names` through `footer`; a name that is not a top-level column has the
    /// whole footer decoded with `opts` (and is reported as usual).
    fn footer_columns_with(
        source: Arc<dyn RangeRead>,
        footer: &OpenedFooter,
        names: &[&str],
        opts: &DecodeOptions,
    ) -> Result<Self> {
        let meta = match footer.project(names)? {
            Some(meta) => meta,
            None => footer.whole(opts)?,
        };
        Ok(Self::from_metadata(source, Arc::new(meta)).with_columns(names.iter().copied()))
    }

    /// A reader of the file `source` reads, whose footer `meta` was read before (from a
    /// cache, say).
    pub fn from_metadata(source: Arc<dyn RangeRead>, meta: Arc<FileMetaData>) -> Self {
        let len = source.file_len();
        ParquetReader {
            source,
            builder: ParquetDecoderBuilder::new(meta, len),
        }
    }

    reader_settings!();

    /// The choice of columns, row groups and options, to make a [`ParquetDecoder`] of.
    pub fn builder(&self) -> &ParquetDecoderBuilder {
        &self.builder
    }

    /// An iterator of record batches over the chosen row groups and columns. With
    /// [`ReadOptions::threads`](crate::read::ReadOptions::threads) above 1 and no row
    /// selection, the threads split the work by row groups (whole row groups decoded side by
    /// side, `exec/parallel.rs`) when there are at least as many row groups as threads or as
    /// leaf columns, else by columns (the leaves of each batch side by side).
    pub fn batches(&self) -> Result<RecordBatches> {
        let decoder = self.builder.build()?;
        let threads = self.builder.options().threads;
        let groups = self.builder.chosen_row_groups()?;
        let by_row_groups =
            groups.len() > 1 && (groups.len() >= threads || groups.len() >= decoder.leaf_count());
        let row_groups =
            (threads > 1 && by_row_groups && self.builder.selection.is_none()).then(|| {
                RowGroupBatches::start(
                    &self.builder,
                    &self.source,
                    groups,
                    threads,
                    decoder.schema(),
                )
            });
        Ok(RecordBatches {
            decoder,
            source: Arc::clone(&self.source),
            row_groups,
            failed: false,
        })
    }

    /// Every batch, in a vector.
    pub fn read_all(&self) -> Result<Vec<RecordBatch>> {
        self.batches()?.collect()
    }

    /// The batches of everything chosen as one batch (each leaf's chunks decoded into one
    /// array, sized once from the metadata); with a filter, the rows it keeps.
    pub fn single_batch(&self) -> Result<RecordBatches> {
        Ok(RecordBatches {
            decoder: self.builder.build()?.into_single_batch(),
            source: Arc::clone(&self.source),
            row_groups: None,
            failed: false,
        })
    }

    /// Everything chosen, as one batch ([`ParquetReader::single_batch`]).
    pub fn read_batch(&self) -> Result<RecordBatch> {
        let mut batches = self.single_batch()?;
        match batches.next() {
            Some(batch) => batch,
            None => Ok(RecordBatch::new_empty(batches.schema())),
        }
    }
}

/// The batches of a [`ParquetReader`] ([`ParquetReader::batches`]).
///
/// An iterator of `Result<RecordBatch>` (parq's typed [`Error`](crate::Error)) that tells
/// what the read has cost so far. Where arrow's [`RecordBatchReader`] is wanted (its items'
/// errors are `ArrowError`s), `Box<dyn RecordBatchReader + Send>::from(batches)` or
/// [`RecordBatches::into_reader`] makes one.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// # use parq::{ParquetWriter, WriterProperties};
/// # let path = std::env::temp_dir().join("parq-doc-batches.parquet");
/// # let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100));
/// # let names = (0..100).map(|i| format!("n{i}"));
/// # let names: ArrayRef = Arc::new(StringArray::from_iter_values(names));
/// # let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap();
/// # let props = WriterProperties::builder().max_row_group_rows(Some(40)).build().unwrap();
/// # let file = std::fs::File::create(&path).unwrap();
/// # let mut w = ParquetWriter::try_new(file, batch.schema(), props).unwrap();
/// # w.write(&batch).unwrap();
/// # w.close().unwrap();
/// use parq::{parse_filter, ParquetReader};
///
/// // `path`: a file of 100 rows (`id` 0..100, `name`) in row groups of 40, 40 and 20.
/// let reader = ParquetReader::open(&path)?.with_filter(parse_filter("id >= 90")?);
/// let mut batches = reader.batches()?;
/// assert_eq!(batches.schema().fields().len(), 2);
/// let kept: usize = batches.by_ref().map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
/// assert_eq!(kept, 10);
/// // Only the last row group can hold `id >= 90`: the statistics ruled the others out.
/// assert_eq!(batches.stats().row_groups_skipped, 2);
/// assert!(batches.bytes_read() > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct RecordBatches {
    decoder: ParquetDecoder,
    source: Arc<dyn RangeRead>,
    /// Row groups decoded side by side (the decoder then only tells the schema).
    row_groups: Option<RowGroupBatches>,
    failed: bool,
}

impl RecordBatches {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.decoder.schema()
    }

    /// The bytes read from the source so far.
    pub fn bytes_read(&self) -> u64 {
        self.stats().bytes_read
    }

    /// What the read has done so far (with row groups read side by side: in the row groups
    /// ended).
    pub fn stats(&self) -> ReadStats {
        match &self.row_groups {
            Some(r) => r.stats(),
            None => self.decoder.stats(),
        }
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(r) = &mut self.row_groups {
            return r.next_batch();
        }
        self.decoder.next_batch_from(self.source.as_ref())
    }
}

impl Iterator for RecordBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// [`RecordBatches`] as arrow's [`RecordBatchReader`] ([`RecordBatches::into_reader`]), for
/// APIs that take one (the C stream interface, engines): the same batches, an error as
/// [`ArrowError::ExternalError`] holding the [`crate::Error`] (its `source()`).
#[derive(Debug)]
pub struct BatchReader(RecordBatches);

impl RecordBatches {
    /// These batches as arrow's [`RecordBatchReader`].
    pub fn into_reader(self) -> BatchReader {
        BatchReader(self)
    }
}

impl From<RecordBatches> for Box<dyn RecordBatchReader + Send> {
    fn from(batches: RecordBatches) -> Self {
        Box::new(batches.into_reader())
    }
}

impl Iterator for BatchReader {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .next()
            .map(|r| r.map_err(|e| ArrowError::ExternalError(Box::new(e))))
    }
}

impl RecordBatchReader for BatchReader {
    fn schema(&self) -> SchemaRef {
        self.0.schema()
    }
}
