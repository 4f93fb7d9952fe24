//! Writing from Python: [`write_table`] and the incremental [`ParquetWriter`], with
//! pyarrow's option names (`compression`, `compression_level`, `use_dictionary`,
//! `write_statistics`, `column_encoding`, `use_byte_stream_split`, `bloom_filter_options`:
//! for every column or by column, and `dictionary_pagesize_limit`, `write_page_checksum`,
//! `use_compliant_nested_type`, `max_rows_per_page`, `sorting_columns`: see
//! [`crate::column_options`]; `data_page_version`, `row_group_size`, `data_page_size`,
//! `write_page_index`, `encryption_properties`; and parq's `write_footer_index`, on by
//! default). Any object that exports an Arrow stream (`__arrow_c_stream__`: pyarrow tables
//! and batches, polars and DuckDB results) is written without a copy; the GIL is released
//! while parq encodes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::RecordBatch;
use arrow_array::RecordBatchReader;
use arrow_pyarrow::FromPyArrow;
use arrow_schema::SchemaRef;
use parq::write::{DataPageVersion, WriterProperties, WriterPropertiesBuilder};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::column_options::{
    leaf_paths, Blooms, Codecs, ColumnOptions, Encodings, FileOptions, Levels, OnColumns,
};
use crate::crypto::PyFileEncryptionProperties;
use crate::error;

/// Where the bytes go: a file, or memory that a Python binary file-like object is given when
/// the writer closes.
enum Sink {
    File(BufWriter<File>),
    Memory(Arc<Mutex<Vec<u8>>>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Memory(v) => {
                let mut v = v
                    .lock()
                    .map_err(|_| std::io::Error::other("the output buffer failed before"))?;
                v.extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Memory(_) => Ok(()),
        }
    }
}

/// The sink of `where_`, and for a file-like object the memory it is given at the end.
type Target = Option<(Arc<Mutex<Vec<u8>>>, Py<PyAny>)>;

fn sink(where_: &Bound<'_, PyAny>) -> PyResult<(Sink, Target)> {
    if where_.is_instance_of::<PyString>() || where_.hasattr("__fspath__")? {
        let path: PathBuf = where_.extract()?;
        let file = File::create(&path).map_err(|e| {
            error(parq::Error::new(parq::ErrorKind::Io(format!(
                "{}: {e}",
                path.display()
            ))))
        })?;
        return Ok((Sink::File(BufWriter::with_capacity(1 << 20, file)), None));
    }
    if where_.hasattr("write")? {
        let memory = Arc::new(Mutex::new(Vec::new()));
        return Ok((
            Sink::Memory(Arc::clone(&memory)),
            Some((memory, where_.clone().unbind())),
        ));
    }
    Err(PyTypeError::new_err(format!(
        "cannot write Parquet to a {}: give a path or a binary file-like object",
        where_.get_type().name()?
    )))
}

/// Writer properties from pyarrow's option names.
#[allow(clippy::too_many_arguments)]
fn properties(
    columns: &ColumnOptions,
    file: &FileOptions,
    leaves: Option<&[String]>,
    data_page_version: &str,
    row_group_size: Option<usize>,
    data_page_size: Option<usize>,
    write_page_index: bool,
    write_footer_index: bool,
    encryption: Option<&PyFileEncryptionProperties>,
) -> PyResult<WriterProperties> {
    builder(
        columns,
        file,
        leaves,
        data_page_version,
        row_group_size,
        data_page_size,
        write_page_index,
        write_footer_index,
        encryption,
    )?
    .build()
    .map_err(error)
}

/// The builder of [`properties`].
#[allow(clippy::too_many_arguments)]
fn builder(
    columns: &ColumnOptions,
    file: &FileOptions,
    leaves: Option<&[String]>,
    data_page_version: &str,
    row_group_size: Option<usize>,
    data_page_size: Option<usize>,
    write_page_index: bool,
    write_footer_index: bool,
    encryption: Option<&PyFileEncryptionProperties>,
) -> PyResult<WriterPropertiesBuilder> {
    let version = match data_page_version {
        "1.0" => DataPageVersion::V1,
        "2.0" => DataPageVersion::V2,
        other => {
            return Err(PyValueError::new_err(format!(
                "data_page_version must be \"1.0\" or \"2.0\", not {other:?}"
            )))
        }
    };
    let b = WriterProperties::builder()
        .data_page_version(version)
        .footer_index(write_footer_index);
    let b = file.apply(b);
    let mut b = columns.apply(b, leaves, write_page_index)?;
    if let Some(rows) = row_group_size {
        b = b.max_row_group_rows(Some(rows.max(1)));
    }
    if let Some(bytes) = data_page_size {
        b = b.data_page_bytes(Some(bytes.max(1)));
    }
    if let Some(e) = encryption {
        b = b.encryption(e.inner.clone());
    }
    Ok(b)
}

/// A writer of a new file, or of rows appended to an existing one.
enum Inner {
    New(parq::write::ParquetWriter<Sink>),
    Append(parq::edit::AppendWriter),
}

impl Inner {
    fn write(&mut self, batch: &RecordBatch) -> parq::Result<()> {
        match self {
            Inner::New(w) => w.write(batch),
            Inner::Append(w) => w.write(batch),
        }
    }

    fn close(self) -> parq::Result<()> {
        match self {
            Inner::New(w) => w.close_summary().map(drop),
            Inner::Append(w) => w.close().map(drop),
        }
    }
}

/// An open Parquet writer; the file's footer is written by `close()` (or at the end of a
/// `with` block). With `append=True` the rows are appended to the existing file at the
/// path as new row groups (`parq::edit::AppendWriter`: the file is replaced whole by
/// `close()`, a crash leaving the old file).
#[pyclass(module = "parq")]
pub(crate) struct ParquetWriter {
    inner: Mutex<Option<Inner>>,
    schema: SchemaRef,
    target: Target,
}

impl ParquetWriter {
    /// A writer of `schema` to `where_`.
    fn open(
        where_: &Bound<'_, PyAny>,
        schema: SchemaRef,
        props: WriterProperties,
    ) -> PyResult<ParquetWriter> {
        let (sink, target) = sink(where_)?;
        let writer =
            parq::write::ParquetWriter::try_new(sink, schema.clone(), props).map_err(error)?;
        Ok(ParquetWriter {
            inner: Mutex::new(Some(Inner::New(writer))),
            schema,
            target,
        })
    }

    /// A writer of rows of `schema` appended to the file at `where_` (a path).
    fn open_append(
        where_: &Bound<'_, PyAny>,
        schema: SchemaRef,
        props: WriterProperties,
    ) -> PyResult<ParquetWriter> {
        if !(where_.is_instance_of::<PyString>() || where_.hasattr("__fspath__")?) {
            return Err(PyTypeError::new_err(
                "append=True needs the path of an existing Parquet file",
            ));
        }
        let path: PathBuf = where_.extract()?;
        let writer =
            parq::write::ParquetWriter::append_to_with_schema(&path, schema.clone(), props)
                .map_err(error)?;
        Ok(ParquetWriter {
            inner: Mutex::new(Some(Inner::Append(writer))),
            schema,
            target: None,
        })
    }

    fn write_batches(
        &self,
        py: Python<'_>,
        batches: impl Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>> + Send,
    ) -> PyResult<()> {
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| PyValueError::new_err("the writer failed before"))?;
        let Some(w) = guard.as_mut() else {
            return Err(PyValueError::new_err("the writer is closed"));
        };
        py.detach(|| {
            for b in batches {
                let b = b.map_err(crate::arrow)?;
                w.write(&b)?;
            }
            Ok::<(), parq::Error>(())
        })
        .map_err(error)
    }
}

#[pymethods]
impl ParquetWriter {
    #[new]
    #[pyo3(signature = (where_, schema, compression=Codecs::default(), compression_level=Levels::default(), use_dictionary=OnColumns::default(), write_statistics=OnColumns::default(), column_encoding=Encodings::default(), use_byte_stream_split=OnColumns::off(), bloom_filter_options=Blooms::default(), dictionary_pagesize_limit=None, write_page_checksum=false, use_compliant_nested_type=true, max_rows_per_page=None, sorting_columns=None, data_page_version="1.0", row_group_size=None, data_page_size=None, write_page_index=true, write_footer_index=true, encryption_properties=None, append=false), text_signature = "(where_, schema, compression='snappy', compression_level=None, use_dictionary=True, write_statistics=True, column_encoding=None, use_byte_stream_split=False, bloom_filter_options=None, dictionary_pagesize_limit=None, write_page_checksum=False, use_compliant_nested_type=True, max_rows_per_page=None, sorting_columns=None, data_page_version='1.0', row_group_size=None, data_page_size=None, write_page_index=True, write_footer_index=True, encryption_properties=None, append=False)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        where_: &Bound<'_, PyAny>,
        schema: &Bound<'_, PyAny>,
        compression: Codecs,
        compression_level: Levels,
        use_dictionary: OnColumns,
        write_statistics: OnColumns,
        column_encoding: Encodings,
        use_byte_stream_split: OnColumns,
        bloom_filter_options: Blooms,
        dictionary_pagesize_limit: Option<usize>,
        write_page_checksum: bool,
        use_compliant_nested_type: bool,
        max_rows_per_page: Option<usize>,
        sorting_columns: Option<&Bound<'_, PyAny>>,
        data_page_version: &str,
        row_group_size: Option<usize>,
        data_page_size: Option<usize>,
        write_page_index: bool,
        write_footer_index: bool,
        encryption_properties: Option<PyRef<'_, PyFileEncryptionProperties>>,
        append: bool,
    ) -> PyResult<Self> {
        if append && encryption_properties.is_some() {
            return Err(PyValueError::new_err(
                "rows cannot be appended to an encrypted file",
            ));
        }
        let schema = SchemaRef::new(arrow_schema::Schema::from_pyarrow_bound(schema)?);
        let columns = ColumnOptions::new(
            compression,
            compression_level,
            use_dictionary,
            write_statistics,
            column_encoding,
            use_byte_stream_split,
            bloom_filter_options,
        )?;
        let file = FileOptions::new(
            dictionary_pagesize_limit,
            write_page_checksum,
            use_compliant_nested_type,
            max_rows_per_page,
            sorting_columns,
        )?;
        let props = properties(
            &columns,
            &file,
            Some(&leaf_paths(&schema, file.compliant)?),
            data_page_version,
            row_group_size,
            data_page_size,
            write_page_index,
            write_footer_index,
            encryption_properties.as_deref(),
        )?;
        match append {
            true => ParquetWriter::open_append(where_, schema, props),
            false => ParquetWriter::open(where_, schema, props),
        }
    }

    /// Writes the rows of `table` (any object exporting an Arrow stream).
    fn write_table(&self, py: Python<'_>, table: &Bound<'_, PyAny>) -> PyResult<()> {
        let stream = RecordBatchStreamReader::from_pyarrow_bound(table)?;
        if stream.schema().fields() != self.schema.fields() {
            return Err(PyValueError::new_err(format!(
                "the table's schema differs from the writer's:\n{}\nvs\n{}",
                stream.schema(),
                self.schema
            )));
        }
        self.write_batches(py, stream)
    }

    /// Writes one record batch (or any object exporting an Arrow stream).
    fn write_batch(&self, py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<()> {
        self.write_table(py, batch)
    }

    /// Writes what is held and the footer; the writer is then closed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = self
            .inner
            .lock()
            .map_err(|_| PyValueError::new_err("the writer failed before"))?
            .take();
        let Some(w) = taken else {
            return Ok(());
        };
        py.detach(|| w.close()).map_err(error)?;
        if let Some((memory, target)) = &self.target {
            let bytes = std::mem::take(
                &mut *memory
                    .lock()
                    .map_err(|_| PyValueError::new_err("the output buffer failed before"))?,
            );
            target
                .bind(py)
                .call_method1("write", (PyBytes::new(py, &bytes),))?;
        }
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

/// Writes `table` (any object exporting an Arrow stream) to `where_` (a path or a binary
/// file-like object). `variant_shredding`: a `typed_value` schema (a pyarrow type) by
/// Variant column path (`outer.v` within structs), that column shredded by it.
/// `store_decimal_as_integer`: decimals of up to 9 digits as INT32 and up to 18 as INT64 (as
/// pyarrow's option of that name), else FIXED_LEN_BYTE_ARRAY. `float_total_order`: float
/// statistics under IEEE_754_TOTAL_ORDER (as parquet-rs writes them; readers that do not know
/// the order, pyarrow 26 among them, ignore their min/max), else TYPE_ORDER.
#[pyfunction]
#[pyo3(signature = (table, where_, compression=Codecs::default(), compression_level=Levels::default(), use_dictionary=OnColumns::default(), write_statistics=OnColumns::default(), column_encoding=Encodings::default(), use_byte_stream_split=OnColumns::off(), bloom_filter_options=Blooms::default(), dictionary_pagesize_limit=None, write_page_checksum=false, use_compliant_nested_type=true, max_rows_per_page=None, sorting_columns=None, data_page_version="1.0", row_group_size=None, data_page_size=None, write_page_index=true, write_footer_index=true, encryption_properties=None, variant_shredding=None, store_decimal_as_integer=false, float_total_order=false), text_signature = "(table, where_, compression='snappy', compression_level=None, use_dictionary=True, write_statistics=True, column_encoding=None, use_byte_stream_split=False, bloom_filter_options=None, dictionary_pagesize_limit=None, write_page_checksum=False, use_compliant_nested_type=True, max_rows_per_page=None, sorting_columns=None, data_page_version='1.0', row_group_size=None, data_page_size=None, write_page_index=True, write_footer_index=True, encryption_properties=None, variant_shredding=None, store_decimal_as_integer=False, float_total_order=False)")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_table(
    py: Python<'_>,
    table: &Bound<'_, PyAny>,
    where_: &Bound<'_, PyAny>,
    compression: Codecs,
    compression_level: Levels,
    use_dictionary: OnColumns,
    write_statistics: OnColumns,
    column_encoding: Encodings,
    use_byte_stream_split: OnColumns,
    bloom_filter_options: Blooms,
    dictionary_pagesize_limit: Option<usize>,
    write_page_checksum: bool,
    use_compliant_nested_type: bool,
    max_rows_per_page: Option<usize>,
    sorting_columns: Option<&Bound<'_, PyAny>>,
    data_page_version: &str,
    row_group_size: Option<usize>,
    data_page_size: Option<usize>,
    write_page_index: bool,
    write_footer_index: bool,
    encryption_properties: Option<PyRef<'_, PyFileEncryptionProperties>>,
    variant_shredding: Option<std::collections::HashMap<String, Bound<'_, PyAny>>>,
    store_decimal_as_integer: bool,
    float_total_order: bool,
) -> PyResult<()> {
    let stream = RecordBatchStreamReader::from_pyarrow_bound(table)?;
    let schema = stream.schema();
    let columns = ColumnOptions::new(
        compression,
        compression_level,
        use_dictionary,
        write_statistics,
        column_encoding,
        use_byte_stream_split,
        bloom_filter_options,
    )?;
    let file = FileOptions::new(
        dictionary_pagesize_limit,
        write_page_checksum,
        use_compliant_nested_type,
        max_rows_per_page,
        sorting_columns,
    )?;
    let mut props = builder(
        &columns,
        &file,
        Some(&leaf_paths(&schema, file.compliant)?),
        data_page_version,
        row_group_size,
        data_page_size,
        write_page_index,
        write_footer_index,
        encryption_properties.as_deref(),
    )?;
    props = props
        .decimal_as_integer(store_decimal_as_integer)
        .float_total_order(float_total_order);
    for (column, t) in variant_shredding.unwrap_or_default() {
        props = props.variant_shredding(&column, arrow_schema::DataType::from_pyarrow_bound(&t)?);
    }
    let props = props.build().map_err(error)?;
    let writer = ParquetWriter::open(where_, schema, props)?;
    writer.write_batches(py, stream)?;
    writer.close(py)
}

/// Merges the Parquet files `inputs` into `output` (`parq::edit::merge`): row groups copied
/// byte for byte where a file has the output's Parquet schema, the rest encoded with the
/// options; returns what was done.
#[pyfunction]
#[pyo3(signature = (inputs, output, compression=Codecs::default(), compression_level=Levels::default(), use_dictionary=OnColumns::default(), write_statistics=OnColumns::default(), column_encoding=Encodings::default(), use_byte_stream_split=OnColumns::off(), bloom_filter_options=Blooms::default(), data_page_version="1.0", row_group_size=None, data_page_size=None, write_page_index=true, write_footer_index=true), text_signature = "(inputs, output, compression='snappy', compression_level=None, use_dictionary=True, write_statistics=True, column_encoding=None, use_byte_stream_split=False, bloom_filter_options=None, data_page_version='1.0', row_group_size=None, data_page_size=None, write_page_index=True, write_footer_index=True)")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn merge(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    compression: Codecs,
    compression_level: Levels,
    use_dictionary: OnColumns,
    write_statistics: OnColumns,
    column_encoding: Encodings,
    use_byte_stream_split: OnColumns,
    bloom_filter_options: Blooms,
    data_page_version: &str,
    row_group_size: Option<usize>,
    data_page_size: Option<usize>,
    write_page_index: bool,
    write_footer_index: bool,
) -> PyResult<std::collections::HashMap<&'static str, u64>> {
    let columns = ColumnOptions::new(
        compression,
        compression_level,
        use_dictionary,
        write_statistics,
        column_encoding,
        use_byte_stream_split,
        bloom_filter_options,
    )?;
    let properties = properties(
        &columns,
        &FileOptions::default(),
        None,
        data_page_version,
        row_group_size,
        data_page_size,
        write_page_index,
        write_footer_index,
        None,
    )?;
    let report = py
        .detach(|| parq::edit::merge(&inputs, &output, properties))
        .map_err(error)?;
    Ok(std::collections::HashMap::from([
        ("row_groups_copied", report.row_groups_copied as u64),
        ("files_reencoded", report.files_reencoded as u64),
        ("rows", report.rows),
    ]))
}

/// Writes `table` as a dataset below `root_path` (a directory or a URL), split into hive
/// directories by `partition_cols`; returns the files written.
#[pyfunction]
#[pyo3(signature = (table, root_path, partition_cols=None, max_rows_per_file=None, basename_template=None, storage_options=None, compression=Codecs::default(), compression_level=Levels::default(), use_dictionary=OnColumns::default(), write_statistics=OnColumns::default(), column_encoding=Encodings::default(), use_byte_stream_split=OnColumns::off(), bloom_filter_options=Blooms::default(), dictionary_pagesize_limit=None, write_page_checksum=false, use_compliant_nested_type=true, max_rows_per_page=None, sorting_columns=None, data_page_version="1.0", row_group_size=None, data_page_size=None, write_page_index=true, write_footer_index=true), text_signature = "(table, root_path, partition_cols=None, max_rows_per_file=None, basename_template=None, storage_options=None, compression='snappy', compression_level=None, use_dictionary=True, write_statistics=True, column_encoding=None, use_byte_stream_split=False, bloom_filter_options=None, dictionary_pagesize_limit=None, write_page_checksum=False, use_compliant_nested_type=True, max_rows_per_page=None, sorting_columns=None, data_page_version='1.0', row_group_size=None, data_page_size=None, write_page_index=True, write_footer_index=True)")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_to_dataset(
    py: Python<'_>,
    table: &Bound<'_, PyAny>,
    root_path: String,
    partition_cols: Option<Vec<String>>,
    max_rows_per_file: Option<usize>,
    basename_template: Option<String>,
    storage_options: Option<Vec<(String, String)>>,
    compression: Codecs,
    compression_level: Levels,
    use_dictionary: OnColumns,
    write_statistics: OnColumns,
    column_encoding: Encodings,
    use_byte_stream_split: OnColumns,
    bloom_filter_options: Blooms,
    dictionary_pagesize_limit: Option<usize>,
    write_page_checksum: bool,
    use_compliant_nested_type: bool,
    max_rows_per_page: Option<usize>,
    sorting_columns: Option<&Bound<'_, PyAny>>,
    data_page_version: &str,
    row_group_size: Option<usize>,
    data_page_size: Option<usize>,
    write_page_index: bool,
    write_footer_index: bool,
) -> PyResult<Vec<String>> {
    let stream = RecordBatchStreamReader::from_pyarrow_bound(table)?;
    let schema = stream.schema();
    let partition_cols = partition_cols.unwrap_or_default();
    let in_files = arrow_schema::Schema::new(
        schema
            .fields()
            .iter()
            .filter(|f| !partition_cols.contains(f.name()))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let columns = ColumnOptions::new(
        compression,
        compression_level,
        use_dictionary,
        write_statistics,
        column_encoding,
        use_byte_stream_split,
        bloom_filter_options,
    )?;
    let file = FileOptions::new(
        dictionary_pagesize_limit,
        write_page_checksum,
        use_compliant_nested_type,
        max_rows_per_page,
        sorting_columns,
    )?;
    let properties = properties(
        &columns,
        &file,
        Some(&leaf_paths(&in_files, file.compliant)?),
        data_page_version,
        row_group_size,
        data_page_size,
        write_page_index,
        write_footer_index,
        None,
    )?;
    let options = parq::dataset::WriteOptions {
        partition_cols,
        max_rows_per_file,
        basename_template,
        properties,
        storage_options: storage_options.unwrap_or_default(),
    };
    py.detach(|| {
        let batches = stream.map(|b| b.map_err(crate::arrow));
        parq::dataset::write_dataset(&root_path, schema, batches, &options)
    })
    .map_err(error)
}
