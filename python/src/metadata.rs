//! A file's footer for Python, with the attribute names of `pyarrow.parquet.FileMetaData`,
//! `RowGroupMetaData` and `ColumnChunkMetaData` (`num_rows`, `row_group(i).column(j)`,
//! `statistics` (`Statistics`), `to_dict()`, ...). Statistics bounds are given by physical type (integers,
//! floats, booleans; byte arrays as `str` when the column is a string, else `bytes`).

use std::sync::Arc;

use parq::format::footer::LazyFooter;
use parq::format::metadata::{
    ByteRange, ColumnChunk, ConvertedType, FileMetaData as Footer, LogicalType, PhysicalType,
    RowGroup,
};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use pyo3::IntoPyObjectExt;

use crate::error;

fn index_error(what: &str, i: usize, len: usize) -> PyErr {
    PyIndexError::new_err(format!("{what} {i} out of range (the file has {len})"))
}

/// A file's metadata (footer): decoded whole (or the selected parts), or lazily, each row
/// group decoded when asked for.
#[pyclass(module = "parq", frozen)]
pub(crate) struct FileMetaData {
    /// The footer; without its row groups when `lazy`.
    meta: Arc<Footer>,
    lazy: Option<Arc<LazyFooter>>,
}

impl FileMetaData {
    pub(crate) fn new(meta: Arc<Footer>) -> Self {
        FileMetaData { meta, lazy: None }
    }

    pub(crate) fn lazy(lazy: LazyFooter) -> Self {
        FileMetaData {
            meta: Arc::new(lazy.file().clone()),
            lazy: Some(Arc::new(lazy)),
        }
    }
}

#[pymethods]
impl FileMetaData {
    /// Rows in the file.
    #[getter]
    fn num_rows(&self) -> i64 {
        self.meta.num_rows()
    }

    /// Row groups in the file.
    #[getter]
    fn num_row_groups(&self) -> usize {
        match &self.lazy {
            Some(lazy) => lazy.num_row_groups(),
            None => self.meta.row_groups().len(),
        }
    }

    /// Leaf columns in the file.
    #[getter]
    fn num_columns(&self) -> usize {
        self.meta.schema().leaves().len()
    }

    /// The writer that wrote the file.
    #[getter]
    fn created_by(&self) -> Option<String> {
        self.meta.created_by().map(|s| s.into_owned())
    }

    /// The footer's `version`, as pyarrow names it (`"1.0"` or `"2.6"`).
    #[getter]
    fn format_version(&self) -> &'static str {
        match self.meta.version {
            1 => "1.0",
            _ => "2.6",
        }
    }

    /// The key-value metadata, as a dict of bytes (`None` when the file has none).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(kv) = &self.meta.key_value_metadata else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for e in kv {
            let key = PyBytes::new(py, self.meta.bytes(e.key));
            let value = e.value.map(|v| PyBytes::new(py, self.meta.bytes(v)));
            d.set_item(key, value)?;
        }
        Ok(Some(d))
    }

    /// Row group `i`.
    fn row_group(&self, i: usize) -> PyResult<RowGroupMetaData> {
        let n = self.num_row_groups();
        if i >= n {
            return Err(index_error("row group", i, n));
        }
        let lazy = match &self.lazy {
            Some(lazy) => Some((
                Arc::clone(lazy),
                Arc::new(lazy.row_group(i).map_err(error)?),
            )),
            None => None,
        };
        Ok(RowGroupMetaData(Group {
            meta: Arc::clone(&self.meta),
            lazy,
            rg: i,
        }))
    }

    /// The footer as a dict (as `pyarrow.parquet.FileMetaData.to_dict`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("created_by", self.created_by())?;
        d.set_item("num_columns", self.num_columns())?;
        d.set_item("num_rows", self.num_rows())?;
        d.set_item("num_row_groups", self.num_row_groups())?;
        d.set_item("format_version", self.format_version())?;
        let groups = PyList::empty(py);
        for i in 0..self.num_row_groups() {
            groups.append(self.row_group(i)?.to_dict(py)?)?;
        }
        d.set_item("row_groups", groups)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "<parq.FileMetaData: {} rows, {} row groups, {} columns, created by {:?}>",
            self.num_rows(),
            self.num_row_groups(),
            self.num_columns(),
            self.created_by().unwrap_or_default()
        )
    }
}

/// One row group's metadata.
#[pyclass(module = "parq", frozen)]
pub(crate) struct RowGroupMetaData(Group);

/// A row group of a footer: decoded with it, or lazily (with the footer bytes its byte
/// ranges refer to).
#[derive(Clone)]
struct Group {
    meta: Arc<Footer>,
    lazy: Option<(Arc<LazyFooter>, Arc<RowGroup>)>,
    rg: usize,
}

impl Group {
    fn row_group(&self) -> &RowGroup {
        match &self.lazy {
            Some((_, rg)) => rg,
            None => &self.meta.row_groups()[self.rg],
        }
    }

    /// The bytes of a byte range of the row group's metadata.
    fn bytes(&self, range: ByteRange) -> &[u8] {
        match &self.lazy {
            Some((footer, _)) => range.slice(footer.buf()),
            None => self.meta.bytes(range),
        }
    }
}

#[pymethods]
impl RowGroupMetaData {
    /// Rows in the row group.
    #[getter]
    fn num_rows(&self) -> i64 {
        self.0.row_group().num_rows()
    }

    /// Column chunks in the row group.
    #[getter]
    fn num_columns(&self) -> usize {
        self.0.row_group().columns().len()
    }

    /// Uncompressed bytes of the row group's columns.
    #[getter]
    fn total_byte_size(&self) -> i64 {
        self.0.row_group().total_byte_size
    }

    /// Column chunk `j`.
    fn column(&self, j: usize) -> PyResult<ColumnChunkMetaData> {
        let n = self.num_columns();
        if j >= n {
            return Err(index_error("column", j, n));
        }
        Ok(ColumnChunkMetaData {
            group: self.0.clone(),
            col: j,
        })
    }

    /// The row group as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("num_columns", self.num_columns())?;
        d.set_item("num_rows", self.num_rows())?;
        d.set_item("total_byte_size", self.total_byte_size())?;
        let columns = PyList::empty(py);
        for j in 0..self.num_columns() {
            columns.append(self.column(j)?.to_dict(py)?)?;
        }
        d.set_item("columns", columns)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "<parq.RowGroupMetaData: {} rows, {} columns>",
            self.num_rows(),
            self.num_columns()
        )
    }
}

/// One column chunk's metadata.
#[pyclass(module = "parq", frozen)]
pub(crate) struct ColumnChunkMetaData {
    group: Group,
    col: usize,
}

impl ColumnChunkMetaData {
    fn chunk(&self) -> &ColumnChunk {
        &self.group.row_group().columns()[self.col]
    }

    /// The chunk's leaf column (its index among the columns kept by a selective decode).
    fn leaf(&self) -> usize {
        let kept = self
            .group
            .meta
            .selection
            .as_ref()
            .and_then(|s| s.columns.as_ref());
        kept.and_then(|c| c.get(self.col).copied())
            .unwrap_or(self.col)
    }

    /// A statistics bound as a Python value of the column's physical type.
    fn value<'py>(&self, py: Python<'py>, raw: &[u8]) -> PyResult<Bound<'py, PyAny>> {
        // The first `n` bytes, zero-extended to eight.
        let fixed = |n: usize| -> Option<[u8; 8]> {
            let mut out = [0u8; 8];
            out.get_mut(..n)?.copy_from_slice(raw.get(..n)?);
            Some(out)
        };
        match self.chunk().physical_type() {
            PhysicalType::Boolean => raw.first().map(|b| *b != 0).into_bound_py_any(py),
            PhysicalType::Int32 => fixed(4)
                .map(|b| i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .into_bound_py_any(py),
            PhysicalType::Int64 => fixed(8).map(i64::from_le_bytes).into_bound_py_any(py),
            PhysicalType::Float => fixed(4)
                .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .into_bound_py_any(py),
            PhysicalType::Double => fixed(8).map(f64::from_le_bytes).into_bound_py_any(py),
            _ => {
                let string = self
                    .group
                    .meta
                    .schema()
                    .leaf_element(self.leaf())
                    .is_some_and(|e| {
                        matches!(e.logical_type, Some(LogicalType::String))
                            || e.converted_type == Some(ConvertedType::Utf8)
                    });
                match (string, std::str::from_utf8(raw)) {
                    (true, Ok(s)) => s.into_bound_py_any(py),
                    _ => PyBytes::new(py, raw).into_bound_py_any(py),
                }
            }
        }
    }
}

#[pymethods]
impl ColumnChunkMetaData {
    /// The column's dotted path.
    #[getter]
    fn path_in_schema(&self) -> String {
        self.group.meta.schema().leaf_path_string(self.leaf())
    }

    /// The physical type's name (`INT64`, `BYTE_ARRAY`, ...).
    #[getter]
    fn physical_type(&self) -> &'static str {
        self.chunk().physical_type().spec_name()
    }

    /// The codec's name (`SNAPPY`, `ZSTD`, ...).
    #[getter]
    fn compression(&self) -> &'static str {
        self.chunk().codec().spec_name()
    }

    /// The encodings' names.
    #[getter]
    fn encodings(&self) -> Vec<&'static str> {
        self.chunk()
            .encodings()
            .iter()
            .map(|e| e.spec_name())
            .collect()
    }

    /// Values (levels) in the chunk.
    #[getter]
    fn num_values(&self) -> i64 {
        self.chunk().num_values()
    }

    /// Compressed bytes of the chunk's pages.
    #[getter]
    fn total_compressed_size(&self) -> i64 {
        self.chunk().total_compressed_size()
    }

    /// Uncompressed bytes of the chunk's pages.
    #[getter]
    fn total_uncompressed_size(&self) -> i64 {
        self.chunk().total_uncompressed_size()
    }

    /// File offset of the first data page.
    #[getter]
    fn data_page_offset(&self) -> i64 {
        self.chunk().data_page_offset()
    }

    /// File offset of the dictionary page, if any.
    #[getter]
    fn dictionary_page_offset(&self) -> Option<i64> {
        self.chunk().dictionary_page_offset()
    }

    /// Whether the chunk has a dictionary page.
    #[getter]
    fn has_dictionary_page(&self) -> bool {
        self.chunk().dictionary_page_offset().is_some()
    }

    /// Whether the chunk has a column index and offset index.
    #[getter]
    fn has_column_index(&self) -> bool {
        self.chunk().column_index_offset().is_some()
    }

    /// Whether the chunk has an offset index.
    #[getter]
    fn has_offset_index(&self) -> bool {
        self.chunk().offset_index_offset().is_some()
    }

    /// The chunk's statistics, or `None`.
    #[getter]
    fn statistics(&self, py: Python<'_>) -> PyResult<Option<Statistics>> {
        let Some(s) = self.chunk().statistics() else {
            return Ok(None);
        };
        let bound = |r: Option<parq::format::metadata::ByteRange>| -> PyResult<Option<Py<PyAny>>> {
            r.map(|r| self.value(py, self.group.bytes(r)).map(Bound::unbind))
                .transpose()
        };
        Ok(Some(Statistics {
            min: bound(s.min_value)?,
            max: bound(s.max_value)?,
            null_count: s.null_count,
            distinct_count: s.distinct_count,
            physical_type: self.physical_type(),
        }))
    }

    /// The chunk as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("path_in_schema", self.path_in_schema())?;
        d.set_item("physical_type", self.physical_type())?;
        d.set_item("compression", self.compression())?;
        d.set_item("encodings", self.encodings())?;
        d.set_item("num_values", self.num_values())?;
        d.set_item("total_compressed_size", self.total_compressed_size())?;
        d.set_item("total_uncompressed_size", self.total_uncompressed_size())?;
        d.set_item("data_page_offset", self.data_page_offset())?;
        d.set_item("dictionary_page_offset", self.dictionary_page_offset())?;
        let stats = match self.statistics(py)? {
            Some(s) => Some(s.to_dict(py)?),
            None => None,
        };
        d.set_item("statistics", stats)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "<parq.ColumnChunkMetaData: {} {} {}>",
            self.path_in_schema(),
            self.physical_type(),
            self.compression()
        )
    }
}

/// A column chunk's statistics (bounds as Python values of the physical type).
#[pyclass(module = "parq", frozen)]
pub(crate) struct Statistics {
    min: Option<Py<PyAny>>,
    max: Option<Py<PyAny>>,
    null_count: Option<i64>,
    distinct_count: Option<i64>,
    physical_type: &'static str,
}

#[pymethods]
impl Statistics {
    /// Whether both bounds are present.
    #[getter]
    fn has_min_max(&self) -> bool {
        self.min.is_some() && self.max.is_some()
    }

    /// The lower bound (`min_value`).
    #[getter]
    fn min(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.min.as_ref().map(|v| v.clone_ref(py))
    }

    /// The upper bound (`max_value`).
    #[getter]
    fn max(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.max.as_ref().map(|v| v.clone_ref(py))
    }

    /// Nulls in the chunk, when written.
    #[getter]
    fn null_count(&self) -> Option<i64> {
        self.null_count
    }

    /// Whether the null count was written.
    #[getter]
    fn has_null_count(&self) -> bool {
        self.null_count.is_some()
    }

    /// Distinct values, when written.
    #[getter]
    fn distinct_count(&self) -> Option<i64> {
        self.distinct_count
    }

    /// The physical type's name.
    #[getter]
    fn physical_type(&self) -> &'static str {
        self.physical_type
    }

    /// The statistics as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("has_min_max", self.has_min_max())?;
        d.set_item("min", self.min(py))?;
        d.set_item("max", self.max(py))?;
        d.set_item("null_count", self.null_count)?;
        d.set_item("distinct_count", self.distinct_count)?;
        d.set_item("physical_type", self.physical_type)?;
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let show = |v: &Option<Py<PyAny>>| match v {
            Some(v) => v.bind(py).repr().map_or("?".to_string(), |r| r.to_string()),
            None => "None".to_string(),
        };
        format!(
            "<parq.Statistics: min={}, max={}, null_count={:?}>",
            show(&self.min),
            show(&self.max),
            self.null_count
        )
    }
}
