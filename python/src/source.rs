//! Where a read's bytes come from: a path (`str` or `os.PathLike`: read by positional
//! reads, never whole), bytes-like objects (`bytes`, `bytearray`, `memoryview`), or a binary
//! file-like object (its `read()`).

use std::path::PathBuf;

use bytes::Bytes;
use parq::format::footer::{
    decode_file_metadata, metadata_slice, parse_tail, DecodeOptions, LazyFooter,
};
use parq::format::metadata::FileMetaData;
use parq::read::source::RangeRead;
use parq::read::{FileSource, ParquetReader};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

use crate::error;

/// The bytes of a bytes-like object (copied once).
fn bytes_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<Bytes>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(Bytes::copy_from_slice(b.as_bytes())));
    }
    if obj.is_instance_of::<PyByteArray>() || obj.is_instance_of::<PyMemoryView>() {
        let b = obj.py().get_type::<PyBytes>().call1((obj,))?;
        return bytes_of(&b);
    }
    Ok(None)
}

/// A source's bytes: a file read by positional reads, or bytes in memory.
enum Source {
    Path(PathBuf),
    Memory(Bytes),
}

fn source_of(source: &Bound<'_, PyAny>) -> PyResult<Source> {
    if source.is_instance_of::<PyString>() || source.hasattr("__fspath__")? {
        return Ok(Source::Path(source.extract()?));
    }
    if let Some(data) = bytes_of(source)? {
        return Ok(Source::Memory(data));
    }
    if source.hasattr("read")? {
        let data = source.call_method0("read")?;
        if let Some(data) = bytes_of(&data)? {
            return Ok(Source::Memory(data));
        }
        return Err(PyTypeError::new_err(
            "the file-like object's read() did not return bytes (open it in binary mode)",
        ));
    }
    Err(PyTypeError::new_err(format!(
        "cannot read Parquet from a {}: give a path, bytes or a binary file-like object",
        source.get_type().name()?
    )))
}

/// A reader of `source`, its footer read (the GIL released for the file's reads).
pub(crate) fn open(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<ParquetReader> {
    match source_of(source)? {
        Source::Path(path) => py.detach(|| ParquetReader::open(&path)).map_err(error),
        Source::Memory(data) => py.detach(|| ParquetReader::from_bytes(data)).map_err(error),
    }
}

/// The footer of `source`, decoded with `options`.
pub(crate) fn read_footer(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    options: DecodeOptions,
) -> PyResult<FileMetaData> {
    let result = match source_of(source)? {
        Source::Path(path) => py.detach(|| {
            let file = FileSource::open(&path)?;
            parq::read::source::read_footer(&file, options)
        }),
        Source::Memory(data) => py.detach(|| decode_file_metadata(&data, &options)),
    };
    result.map_err(error)
}

/// The footer of `source` opened lazily ([`LazyFooter`]): its row groups are skipped over
/// and decoded when asked for.
pub(crate) fn lazy_footer(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    options: &DecodeOptions,
) -> PyResult<LazyFooter> {
    let result = match source_of(source)? {
        Source::Path(path) => py.detach(|| {
            let file = FileSource::open(&path)?;
            let len = file.file_len();
            let tail = file.read_range(len.saturating_sub(8)..len)?;
            let footer_len = parse_tail(&tail, len, options.max_footer_bytes)?;
            // `parse_tail` checked that the footer and the tail fit in the file.
            let footer = file.read_range(len - 8 - footer_len..len - 8)?;
            LazyFooter::open(footer, options)
        }),
        Source::Memory(data) => py.detach(|| {
            let footer = metadata_slice(&data)?;
            LazyFooter::open(data.slice_ref(footer), options)
        }),
    };
    result.map_err(error)
}
