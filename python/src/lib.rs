//! `parq._parq`: the Python module behind the `parq` package. Reading ([`read_table`],
//! [`ParquetFile`]), footers ([`read_metadata`], [`metadata`]) and writing ([`write_table`],
//! [`ParquetWriter`]); Arrow data crosses through the Arrow C stream interface (PyCapsules),
//! without a copy, and the GIL is released while parq decodes or encodes.

mod column_options;
mod crypto;
mod dataset;
mod metadata;
mod source;
mod variant;
mod write;

use std::sync::{Arc, OnceLock};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_pyarrow::{IntoPyArrow, ToPyArrow};
use arrow_schema::ArrowError;
use parq::format::footer::{DecodeOptions, StatisticsPolicy};
use parq::read::{ParquetReader, RecordBatches, StringType};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyKeyError, PyValueError};
use pyo3::prelude::*;

use source::{open, open_columns, open_lazy, Opened};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _parq,
    ParquetError,
    PyException,
    "An error reading or writing Parquet: what went wrong and where (file offset, row group, column, page)."
);
create_exception!(
    _parq,
    ParquetInvalidFileError,
    ParquetError,
    "The file's bytes are not valid Parquet (truncated, corrupt, inconsistent)."
);
create_exception!(
    _parq,
    ParquetUnsupportedError,
    ParquetError,
    "Valid Parquet that parq does not read (a codec, an encrypted footer, a type)."
);
create_exception!(
    _parq,
    ParquetIOError,
    ParquetError,
    "Reading or writing the file failed."
);

/// A parq error as a Python exception of the class its kind belongs to.
pub(crate) fn error(e: parq::Error) -> PyErr {
    use parq::ErrorKind as K;
    use std::error::Error as _;
    let message = e.to_string();
    let missing = e
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound);
    match e.kind() {
        K::NotFound(_) => PyFileNotFoundError::new_err(message),
        K::Io(_) if missing => PyFileNotFoundError::new_err(message),
        K::Io(_) => ParquetIOError::new_err(message),
        K::UnsupportedCodec(_) | K::Unsupported(_) | K::EncryptedFooter => {
            ParquetUnsupportedError::new_err(message)
        }
        K::Inconsistent(_)
        | K::MissingKey(_)
        | K::Decryption { .. }
        | K::SchemaConversion(_)
        | K::OutOfBounds { .. }
        | K::Arrow(_)
        | K::InvalidArgument(_)
        | K::Internal(_) => ParquetError::new_err(message),
        _ => ParquetInvalidFileError::new_err(message),
    }
}

/// The reader of `source` with the read options applied.
fn configure(
    reader: ParquetReader,
    columns: Option<Vec<String>>,
    row_groups: Option<Vec<usize>>,
    filter: Option<&str>,
    use_threads: bool,
    batch_size: Option<usize>,
) -> PyResult<ParquetReader> {
    // By default a batch per row group (the largest row group's rows), as pyarrow reads.
    let rows = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| usize::try_from(g.num_rows()).unwrap_or(0))
        .max()
        .unwrap_or(0);
    let mut reader = reader.with_batch_size(batch_size.unwrap_or(rows).max(1));
    if let Some(c) = columns {
        reader = reader.with_columns(c);
    }
    if let Some(r) = row_groups {
        reader = reader.with_row_groups(r);
    }
    if let Some(f) = filter {
        reader = reader.with_filter(parq::read::parse_filter(f).map_err(error)?);
    }
    if use_threads {
        reader = reader.with_threads(parq::workers::threads());
    }
    // The choice (columns, row groups, filter) is checked before any data is read.
    reader.builder().build().map_err(error)?;
    Ok(reader)
}

/// `reader` reading strings as `string_view` (views into the dictionary pages) if asked.
fn with_strings(reader: ParquetReader, string_view: bool) -> ParquetReader {
    if string_view {
        reader.with_strings(StringType::Utf8View)
    } else {
        reader
    }
}

/// The top-level columns a read of `columns` with `filter` (SQL) needs: those named, then
/// the filter's.
fn needed_columns(columns: &[String], filter: Option<&str>) -> PyResult<Vec<String>> {
    let mut needed = columns.to_vec();
    if let Some(f) = filter {
        let p = parq::read::parse_filter(f).map_err(error)?;
        needed.extend(p.columns().iter().map(|c| c.to_string()));
    }
    Ok(needed)
}

/// Reads everything `reader` chooses, the GIL released, as a `pyarrow.Table`.
fn read_all<'py>(py: Python<'py>, reader: &ParquetReader) -> PyResult<Bound<'py, PyAny>> {
    let schema = reader.schema().map_err(error)?;
    let batches = py.detach(|| reader.read_all()).map_err(error)?;
    table_of(py, batches, schema)
}

/// `batches` of `schema` as a `pyarrow.Table`: passed through one Arrow C stream, whose
/// schema pyarrow imports once (a batch at a time, it would import it for every batch).
pub(crate) fn table_of<'py>(
    py: Python<'py>,
    batches: Vec<RecordBatch>,
    schema: arrow_schema::SchemaRef,
) -> PyResult<Bound<'py, PyAny>> {
    let stream = arrow_array::RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let stream: Box<dyn RecordBatchReader + Send> = Box::new(stream);
    stream
        .into_pyarrow(py)?
        .call_method0(pyo3::intern!(py, "read_all"))
}

/// An Arrow error as parq's, kept as its source.
pub(crate) fn arrow(e: ArrowError) -> parq::Error {
    parq::Error::new(parq::ErrorKind::Arrow(e.to_string())).with_source(e)
}

/// Reads a Parquet file into a `pyarrow.Table`.
#[pyfunction]
#[pyo3(signature = (source, columns=None, row_groups=None, filter=None, use_threads=true, batch_size=None, string_view=false, decryption_properties=None, memory_map=false))]
#[allow(clippy::too_many_arguments)]
fn read_table<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    columns: Option<Vec<String>>,
    row_groups: Option<Vec<usize>>,
    filter: Option<String>,
    use_threads: bool,
    batch_size: Option<usize>,
    string_view: bool,
    decryption_properties: Option<PyRef<'py, crypto::PyFileDecryptionProperties>>,
    memory_map: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let keys = decryption_properties.as_ref().map(|k| &k.inner);
    // With columns named, only their part of the footer is read (and those a filter names).
    let (reader, _) = match &columns {
        Some(c) => {
            let needed = needed_columns(c, filter.as_deref())?;
            open_columns(py, source, Some(&needed), keys, memory_map)?
        }
        None => open(py, source, keys, memory_map)?,
    };
    let reader = configure(
        with_strings(reader, string_view),
        columns,
        row_groups,
        filter.as_deref(),
        use_threads,
        batch_size,
    )?;
    read_all(py, &reader)
}

/// The batches of a read, as a `RecordBatchReader` that decodes each batch when asked
/// (without the GIL).
struct Batches {
    batches: RecordBatches,
    schema: arrow_schema::SchemaRef,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches
            .next()
            .map(|b| b.map_err(|e| ArrowError::ExternalError(Box::new(e))))
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> arrow_schema::SchemaRef {
        self.schema.clone()
    }
}

/// A Parquet file opened for reading: its footer is read once and opened lazily (a read of
/// some columns decodes only their part of it; the whole footer is decoded when something
/// needs all of it), its row groups and columns read on demand. With `memory_map=True` a
/// path is read through a memory mapping (see `read_table`: the file must not change while
/// it is read).
#[pyclass(module = "parq")]
struct ParquetFile {
    /// The file's source and lazily opened footer, unless it was read whole when opened.
    lazy: Option<(Arc<dyn parq::read::RangeRead>, parq::read::OpenedFooter)>,
    /// The whole-footer reader: made when the file is opened if its footer was read whole,
    /// else on first need.
    whole: OnceLock<ParquetReader>,
    string_view: bool,
    /// Read through a Python file-like object, which only the thread holding the GIL reads.
    file_like: bool,
}

impl ParquetFile {
    /// The reader of the whole footer (decoded once, the GIL released).
    fn whole(&self, py: Python<'_>) -> PyResult<&ParquetReader> {
        if let Some(r) = self.whole.get() {
            return Ok(r);
        }
        let Some((source, footer)) = &self.lazy else {
            return Err(PyValueError::new_err("the file's footer was not read"));
        };
        let meta = py
            .detach(|| footer.whole(&DecodeOptions::default()))
            .map_err(error)?;
        let reader = ParquetReader::from_metadata(source.clone(), Arc::new(meta));
        Ok(self
            .whole
            .get_or_init(|| with_strings(reader, self.string_view)))
    }

    /// A reader for `columns` (and the columns `filter` names): of their part of the footer
    /// only while the whole footer has not been decoded.
    fn reader_for(
        &self,
        py: Python<'_>,
        columns: Option<&[String]>,
        filter: Option<&str>,
    ) -> PyResult<ParquetReader> {
        match (&self.lazy, columns, self.whole.get()) {
            (Some((source, footer)), Some(c), None) => {
                let needed = needed_columns(c, filter)?;
                let reader = py
                    .detach(|| ParquetReader::from_footer_columns(source.clone(), footer, &needed))
                    .map_err(error)?;
                Ok(with_strings(reader, self.string_view))
            }
            _ => Ok(self.whole(py)?.clone()),
        }
    }

    /// The chosen columns and row groups read whole, as a `pyarrow.Table`.
    fn read_chosen<'py>(
        &self,
        py: Python<'py>,
        columns: Option<Vec<String>>,
        row_groups: Option<Vec<usize>>,
        filter: Option<&str>,
        use_threads: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reader = self.reader_for(py, columns.as_deref(), filter)?;
        let r = configure(reader, columns, row_groups, filter, use_threads, None)?;
        read_all(py, &r)
    }
}

#[pymethods]
impl ParquetFile {
    #[new]
    #[pyo3(signature = (source, string_view=false, decryption_properties=None, memory_map=false))]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        string_view: bool,
        decryption_properties: Option<PyRef<'_, crypto::PyFileDecryptionProperties>>,
        memory_map: bool,
    ) -> PyResult<Self> {
        let keys = decryption_properties.as_ref().map(|k| &k.inner);
        let (opened, file_like) = open_lazy(py, source, keys, memory_map)?;
        let whole = OnceLock::new();
        let lazy = match opened {
            Opened::Lazy { source, footer } => Some((source, *footer)),
            Opened::Whole(reader) => {
                let _ = whole.set(with_strings(*reader, string_view));
                None
            }
        };
        Ok(ParquetFile {
            lazy,
            whole,
            string_view,
            file_like,
        })
    }

    /// The file's metadata (footer).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> PyResult<metadata::FileMetaData> {
        let meta = self.whole(py)?.metadata().clone();
        Ok(metadata::FileMetaData::new(Arc::new(meta)))
    }

    /// The Arrow schema of the file's columns.
    #[getter]
    fn schema_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let schema = match (&self.lazy, self.whole.get()) {
            // The schema and key-value metadata alone make it.
            (Some((source, footer)), None) => {
                let top =
                    ParquetReader::from_metadata(source.clone(), Arc::new(footer.file().clone()));
                with_strings(top, self.string_view).schema()
            }
            _ => self.whole(py)?.schema(),
        }
        .map_err(error)?;
        schema.as_ref().to_pyarrow(py)
    }

    /// The number of row groups.
    #[getter]
    fn num_row_groups(&self, py: Python<'_>) -> PyResult<usize> {
        match &self.lazy {
            Some((_, footer)) => Ok(footer.num_row_groups()),
            None => Ok(self.whole(py)?.metadata().row_groups().len()),
        }
    }

    /// Reads the chosen columns (default all) of the whole file.
    #[pyo3(signature = (columns=None, use_threads=true, filter=None))]
    fn read<'py>(
        &self,
        py: Python<'py>,
        columns: Option<Vec<String>>,
        use_threads: bool,
        filter: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.read_chosen(py, columns, None, filter.as_deref(), use_threads)
    }

    /// Reads row group `i`.
    #[pyo3(signature = (i, columns=None, use_threads=true))]
    fn read_row_group<'py>(
        &self,
        py: Python<'py>,
        i: usize,
        columns: Option<Vec<String>>,
        use_threads: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.read_chosen(py, columns, Some(vec![i]), None, use_threads)
    }

    /// Reads the row groups `row_groups`, in this order.
    #[pyo3(signature = (row_groups, columns=None, use_threads=true))]
    fn read_row_groups<'py>(
        &self,
        py: Python<'py>,
        row_groups: Vec<usize>,
        columns: Option<Vec<String>>,
        use_threads: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.read_chosen(py, columns, Some(row_groups), None, use_threads)
    }

    /// The batches of the chosen columns and row groups, as a `pyarrow.RecordBatchReader`
    /// that decodes each batch when it is asked for.
    #[pyo3(signature = (batch_size=65536, row_groups=None, columns=None, use_threads=false, filter=None))]
    fn iter_batches<'py>(
        &self,
        py: Python<'py>,
        batch_size: usize,
        row_groups: Option<Vec<usize>>,
        columns: Option<Vec<String>>,
        use_threads: bool,
        filter: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // A file-like object's reads take the GIL, which the consumer of the batches may
        // hold while it waits: no reader threads then.
        let reader = self.reader_for(py, columns.as_deref(), filter.as_deref())?;
        let r = configure(
            reader,
            columns,
            row_groups,
            filter.as_deref(),
            use_threads && !self.file_like,
            Some(batch_size),
        )?;
        let batches = r.batches().map_err(error)?;
        let schema = batches.schema();
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(Batches { batches, schema });
        reader.into_pyarrow(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (m, row_groups) = match &self.lazy {
            Some((_, footer)) => (footer.file(), footer.num_row_groups()),
            None => {
                let m = self.whole(py)?.metadata();
                (m, m.row_groups().len())
            }
        };
        Ok(format!(
            "<parq.ParquetFile: {} rows, {} row groups, {} columns>",
            m.num_rows(),
            row_groups,
            m.schema().leaves().len()
        ))
    }
}

/// A column of `read_metadata`'s `columns`: a leaf's index or its dotted path.
#[derive(FromPyObject)]
enum LeafRef {
    Index(usize),
    Path(String),
}

/// Reads a file's metadata (footer). parq's selective decode: only the row groups
/// `row_groups` and the leaf columns `columns` (by index or dotted path) are decoded, and
/// with `statistics=False` no column chunk statistics; with `lazy=True` the row groups are
/// skipped over and each is decoded when `row_group(i)` asks for it.
#[pyfunction]
#[pyo3(signature = (source, row_groups=None, columns=None, statistics=true, lazy=false, decryption_properties=None))]
fn read_metadata(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    row_groups: Option<Vec<usize>>,
    columns: Option<Vec<LeafRef>>,
    statistics: bool,
    lazy: bool,
    decryption_properties: Option<PyRef<'_, crypto::PyFileDecryptionProperties>>,
) -> PyResult<metadata::FileMetaData> {
    let mut options = DecodeOptions {
        statistics: match statistics {
            true => StatisticsPolicy::KeepAll,
            false => StatisticsPolicy::SkipAll,
        },
        ..DecodeOptions::default()
    };
    // An encrypted footer has no lazy view: it is decrypted whole first when its schema or
    // lazy row groups are asked for.
    options.decryption = decryption_properties.map(|k| Arc::clone(&k.inner));
    let encrypted = options.decryption.is_some();
    if let Some(columns) = columns {
        let by_path = columns.iter().any(|c| matches!(c, LeafRef::Path(_)));
        let paths: Vec<String> = match by_path {
            // The schema, from a footer whose row groups are skipped over.
            true if encrypted => {
                let meta = source::read_footer(py, source, options.clone())?;
                let schema = meta.schema();
                (0..schema.leaves().len())
                    .map(|i| schema.leaf_path_string(i))
                    .collect()
            }
            true => {
                let footer = source::lazy_footer(py, source, &options)?;
                let schema = footer.file().schema();
                (0..schema.leaves().len())
                    .map(|i| schema.leaf_path_string(i))
                    .collect()
            }
            false => Vec::new(),
        };
        let indices = columns
            .into_iter()
            .map(|c| match c {
                LeafRef::Index(i) => Ok(i),
                LeafRef::Path(p) => paths.iter().position(|q| *q == p).ok_or_else(|| {
                    PyKeyError::new_err(format!("no column `{p}` in the file's schema"))
                }),
            })
            .collect::<PyResult<Vec<usize>>>()?;
        options.columns = Some(indices);
    }
    if lazy && !encrypted {
        if row_groups.is_some() {
            return Err(PyValueError::new_err(
                "row_groups selects what a footer decodes whole; with lazy=True every row \
                 group is decoded when asked for",
            ));
        }
        let footer = source::lazy_footer(py, source, &options)?;
        return Ok(metadata::FileMetaData::lazy(footer));
    }
    options.row_groups = row_groups;
    let meta = source::read_footer(py, source, options)?;
    Ok(metadata::FileMetaData::new(Arc::new(meta)))
}

/// Reads a file's Arrow schema.
#[pyfunction]
#[pyo3(signature = (source, decryption_properties=None))]
fn read_schema<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    decryption_properties: Option<PyRef<'py, crypto::PyFileDecryptionProperties>>,
) -> PyResult<Bound<'py, PyAny>> {
    let keys = decryption_properties.as_ref().map(|k| &k.inner);
    let (reader, _) = open(py, source, keys, false)?;
    let schema = reader.schema().map_err(error)?;
    schema.as_ref().to_pyarrow(py)
}

/// Frees the buffers parq keeps between reads: file ranges and pages read, and the buffers
/// of tables it returned that have been dropped since. Later reads keep buffers again.
#[pyfunction]
fn release_buffers() {
    parq::read::release_buffers();
}

/// Forgets the footers kept from dataset reads (parq keeps them, keyed by path, size and
/// modification time or ETag, so that a second query of a dataset reads none).
#[pyfunction]
fn clear_metadata_cache() {
    parq::dataset::clear_metadata_cache();
}

#[pymodule]
fn _parq(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ParquetError", m.py().get_type::<ParquetError>())?;
    m.add(
        "ParquetInvalidFileError",
        m.py().get_type::<ParquetInvalidFileError>(),
    )?;
    m.add(
        "ParquetUnsupportedError",
        m.py().get_type::<ParquetUnsupportedError>(),
    )?;
    m.add("ParquetIOError", m.py().get_type::<ParquetIOError>())?;
    m.add_function(wrap_pyfunction!(read_table, m)?)?;
    m.add_function(wrap_pyfunction!(read_metadata, m)?)?;
    m.add_function(wrap_pyfunction!(read_schema, m)?)?;
    m.add_function(wrap_pyfunction!(release_buffers, m)?)?;
    m.add_function(wrap_pyfunction!(clear_metadata_cache, m)?)?;
    m.add_function(wrap_pyfunction!(write::write_table, m)?)?;
    m.add_function(wrap_pyfunction!(variant::unshred_variant, m)?)?;
    m.add_function(wrap_pyfunction!(write::write_to_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(write::merge, m)?)?;
    m.add_class::<ParquetFile>()?;
    m.add_class::<dataset::PyDataset>()?;
    m.add_class::<write::ParquetWriter>()?;
    m.add_class::<metadata::FileMetaData>()?;
    m.add_class::<metadata::RowGroupMetaData>()?;
    m.add_class::<metadata::ColumnChunkMetaData>()?;
    m.add_class::<metadata::Statistics>()?;
    m.add_class::<crypto::PyFileDecryptionProperties>()?;
    m.add_class::<crypto::PyFileEncryptionProperties>()?;
    m.add_function(wrap_pyfunction!(crypto::kms_encryption_properties, m)?)?;
    m.add_function(wrap_pyfunction!(crypto::kms_decryption_properties, m)?)?;
    Ok(())
}
