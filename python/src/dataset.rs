//! `parq._parq._Dataset`: many Parquet files (a directory, a glob, a list, an object store's
//! URL) read as one table, behind `parq.dataset` and `parq.read_table` of such sources.

use std::sync::Arc;

use arrow_array::RecordBatchReader;
use arrow_pyarrow::{FromPyArrow, IntoPyArrow, ToPyArrow};
use arrow_schema::Schema;
use parq::dataset::{Dataset, DatasetOptions, DatasetScan, DatasetSource, Partitioning};
use parq::read::StringType;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::error;
use crate::metadata::FileMetaData;

/// A dataset opened for reading: its files listed and their footers read once.
#[pyclass(module = "parq", name = "_Dataset")]
pub(crate) struct PyDataset {
    dataset: Arc<Dataset>,
}

/// The partitioning a Python argument names: `"hive"`, `None` or a `pyarrow.Schema` of keys.
fn partitioning(p: &Bound<'_, PyAny>) -> PyResult<Partitioning> {
    if p.is_none() {
        return Ok(Partitioning::None);
    }
    if let Ok(s) = p.extract::<String>() {
        return match s.as_str() {
            "hive" => Ok(Partitioning::Hive),
            other => Err(PyValueError::new_err(format!(
                "parq: partitioning is \"hive\", None or a pyarrow.Schema, not {other:?}"
            ))),
        };
    }
    let schema = Schema::from_pyarrow_bound(p)?;
    Ok(Partitioning::HiveSchema(Arc::new(schema)))
}

impl PyDataset {
    fn scan(
        &self,
        columns: Option<Vec<String>>,
        filter: Option<&str>,
        use_threads: bool,
        row_groups: Option<Vec<(usize, Vec<usize>)>>,
    ) -> PyResult<DatasetScan<'_>> {
        let mut scan = self.dataset.scan();
        if let Some(selection) = row_groups {
            scan = scan.with_row_groups(selection);
        }
        if let Some(c) = columns {
            scan = scan.with_columns(c);
        }
        if let Some(f) = filter {
            scan = scan.with_filter(parq::read::parse_filter(f).map_err(error)?);
        }
        if use_threads {
            scan = scan.with_threads(parq::workers::threads());
        }
        Ok(scan)
    }
}

#[pymethods]
impl PyDataset {
    #[new]
    #[pyo3(signature = (source, partitioning, schema=None, storage_options=None, string_view=false, batch_size=None, file_path_column=None, row_index_column=None, union_by_name=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        partitioning: &Bound<'_, PyAny>,
        schema: Option<&Bound<'_, PyAny>>,
        storage_options: Option<Vec<(String, String)>>,
        string_view: bool,
        batch_size: Option<usize>,
        file_path_column: Option<String>,
        row_index_column: Option<String>,
        union_by_name: bool,
    ) -> PyResult<Self> {
        let source = if let Ok(list) = source.extract::<Vec<String>>() {
            DatasetSource::List(list)
        } else {
            DatasetSource::Path(source.extract::<String>()?)
        };
        let mut options = DatasetOptions {
            partitioning: self::partitioning(partitioning)?,
            storage_options: storage_options.unwrap_or_default(),
            file_path_column,
            row_index_column,
            union_by_name,
            ..Default::default()
        };
        if let Some(s) = schema {
            options.schema = Some(Arc::new(Schema::from_pyarrow_bound(s)?));
        }
        if string_view {
            options.read.strings = StringType::Utf8View;
        }
        if let Some(rows) = batch_size {
            options.read.batch_size = rows.max(1);
        }
        let dataset = py
            .detach(|| Dataset::open(source, options))
            .map_err(error)?;
        Ok(PyDataset {
            dataset: Arc::new(dataset),
        })
    }

    /// The dataset's schema: the file columns, then the partition columns.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dataset.schema().as_ref().to_pyarrow(py)
    }

    /// The files, as absolute local paths or URLs, in the order they are read.
    #[getter]
    fn files(&self) -> Vec<String> {
        self.dataset
            .files()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The chosen columns of the rows `filter` (SQL) keeps, as a `pyarrow.Table`.
    #[pyo3(signature = (columns=None, filter=None, use_threads=true, row_groups=None))]
    fn to_table<'py>(
        &self,
        py: Python<'py>,
        columns: Option<Vec<String>>,
        filter: Option<String>,
        use_threads: bool,
        row_groups: Option<Vec<(usize, Vec<usize>)>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let scan = self.scan(columns, filter.as_deref(), use_threads, row_groups)?;
        let schema = scan.schema().map_err(error)?;
        let batches = py.detach(|| scan.read_all()).map_err(error)?;
        crate::table_of(py, batches, schema)
    }

    /// The same, as a `pyarrow.RecordBatchReader` that reads as it is consumed.
    #[pyo3(signature = (columns=None, filter=None, use_threads=true, row_groups=None))]
    fn to_reader<'py>(
        &self,
        py: Python<'py>,
        columns: Option<Vec<String>>,
        filter: Option<String>,
        use_threads: bool,
        row_groups: Option<Vec<(usize, Vec<usize>)>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let scan = self.scan(columns, filter.as_deref(), use_threads, row_groups)?;
        let batches = py.detach(|| scan.batches()).map_err(error)?;
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(batches.into_reader());
        reader.into_pyarrow(py)
    }

    /// How many rows `filter` (SQL) keeps.
    #[pyo3(signature = (filter=None, use_threads=true))]
    fn count_rows(
        &self,
        py: Python<'_>,
        filter: Option<String>,
        use_threads: bool,
    ) -> PyResult<u64> {
        let scan = self.scan(None, filter.as_deref(), use_threads, None)?;
        py.detach(|| scan.count_rows()).map_err(error)
    }

    /// The files a read of `columns` with `filter` (SQL) reads, by index in `files`, each
    /// with the row groups it reads (the others ruled out by partition values and
    /// statistics). Reads footers only.
    #[pyo3(signature = (columns=None, filter=None))]
    fn row_groups(
        &self,
        py: Python<'_>,
        columns: Option<Vec<String>>,
        filter: Option<String>,
    ) -> PyResult<Vec<(usize, Vec<usize>)>> {
        let scan = self.scan(columns, filter.as_deref(), false, None)?;
        py.detach(|| scan.row_groups()).map_err(error)
    }

    /// The footers of the files, in `files`' order.
    fn metadata(&self, py: Python<'_>) -> PyResult<Vec<FileMetaData>> {
        let metas = py.detach(|| self.dataset.metadata()).map_err(error)?;
        Ok(metas.into_iter().map(FileMetaData::new).collect())
    }

    /// The size in bytes of each file, in `files`' order.
    #[getter]
    fn file_sizes(&self) -> Vec<u64> {
        self.dataset.file_sizes()
    }

    /// The partition columns' schema (the last fields of `schema`).
    #[getter]
    fn partition_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dataset.partition_schema().as_ref().to_pyarrow(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<parq.Dataset: {} files, {} columns>",
            self.dataset.files().len(),
            self.dataset.schema().fields().len()
        )
    }
}
