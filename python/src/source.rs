//! Where a read's bytes come from: a path (`str` or `os.PathLike`: read by positional
//! reads, never whole), bytes-like objects (`bytes`, `bytearray`, `memoryview`), or a binary
//! file-like object (read by ranges with `seek` and `read` when it is seekable, else its
//! `read()` whole).

use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use parq::format::crypto::FileDecryptionProperties;
use parq::format::footer::{
    decode_file_metadata, metadata_slice, parse_tail, DecodeOptions, LazyFooter,
};
use parq::format::metadata::FileMetaData;
use parq::read::{read_footer as read_source_footer, RangeRead};
use parq::read::{FileSource, MappedFile, OpenedFooter, ParquetReader};
use parq::{Error, ErrorKind};
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

/// The error of a file-like object whose `read()` gives something else than bytes.
fn not_bytes() -> PyErr {
    PyTypeError::new_err(
        "the file-like object's read() did not return bytes (open it in binary mode)",
    )
}

/// A seekable binary file-like object read by ranges: a `seek` and `read`s under the GIL,
/// one range at a time.
struct PyFileSource {
    file: Py<PyAny>,
    len: u64,
    /// Held for a seek and its reads.
    cursor: Mutex<()>,
}

impl std::fmt::Debug for PyFileSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyFileSource({} bytes)", self.len)
    }
}

impl PyFileSource {
    /// `file` when it is seekable (its length found by seeking to its end), else `None`.
    fn new(file: &Bound<'_, PyAny>) -> PyResult<Option<Self>> {
        let seekable = file.hasattr("seek")?
            && (!file.hasattr("seekable")? || file.call_method0("seekable")?.is_truthy()?);
        if !seekable {
            return Ok(None);
        }
        let len: u64 = file.call_method1("seek", (0, 2))?.extract()?;
        Ok(Some(PyFileSource {
            file: file.clone().unbind(),
            len,
            cursor: Mutex::new(()),
        }))
    }

    /// The `n` bytes from `start` (fewer only at the end of the file).
    fn read(&self, py: Python<'_>, start: u64, n: usize) -> PyResult<Vec<u8>> {
        let file = self.file.bind(py);
        file.call_method1("seek", (start,))?;
        let mut out = Vec::new();
        while out.len() < n {
            let chunk = file.call_method1("read", (n - out.len(),))?;
            let before = out.len();
            // `bytes` (what binary files return) copied once, straight into `out`.
            match chunk.cast::<PyBytes>() {
                Ok(b) => out.extend_from_slice(b.as_bytes()),
                Err(_) => out.extend_from_slice(&bytes_of(&chunk)?.ok_or_else(not_bytes)?),
            }
            if out.len() == before {
                break;
            }
        }
        Ok(out)
    }
}

impl RangeRead for PyFileSource {
    fn file_len(&self) -> u64 {
        self.len
    }

    fn read_range(&self, range: Range<u64>) -> parq::Result<Bytes> {
        let io = |message: String| Error::at(ErrorKind::Io(message), range.start);
        if range.start > range.end || range.end > self.len {
            return Err(io(format!(
                "bytes {range:?} asked of a file-like object of {} bytes",
                self.len
            )));
        }
        let n = usize::try_from(range.end - range.start)
            .map_err(|_| io(format!("cannot read {range:?} at once")))?;
        let _one = self.cursor.lock().unwrap_or_else(|p| p.into_inner());
        let data = Python::attach(|py| self.read(py, range.start, n))
            .map_err(|e| io(format!("file-like object: {e}")))?;
        if data.len() != n {
            return Err(io(format!(
                "the file-like object gave {} of the {n} bytes asked for",
                data.len()
            )));
        }
        Ok(Bytes::from(data))
    }
}

/// A source's bytes: read by ranges (a file, or a seekable file-like object, whose reads
/// take the GIL: `python`), or in memory.
enum Source {
    Ranges {
        read: Arc<dyn RangeRead>,
        python: bool,
        /// The file's path, for a path source.
        path: Option<PathBuf>,
    },
    Memory(Bytes),
}

/// The bytes of `source`; a path is read through a memory mapping when `memory_map`.
fn source_of(source: &Bound<'_, PyAny>, memory_map: bool) -> PyResult<Source> {
    if source.is_instance_of::<PyString>() || source.hasattr("__fspath__")? {
        let path: PathBuf = source.extract()?;
        let read: Arc<dyn RangeRead> = if memory_map {
            // SAFETY: `memory_map=True` is the caller's promise, as with pyarrow's, that
            // the file is not changed or truncated while it or the arrays read from it are
            // in use (the docs of `read_table` and `ParquetFile` say so).
            Arc::new(
                source
                    .py()
                    .detach(|| unsafe { MappedFile::open(&path) })
                    .map_err(error)?,
            )
        } else {
            Arc::new(
                source
                    .py()
                    .detach(|| FileSource::open(&path))
                    .map_err(error)?,
            )
        };
        return Ok(Source::Ranges {
            read,
            python: false,
            path: Some(path),
        });
    }
    if let Some(data) = bytes_of(source)? {
        return Ok(Source::Memory(data));
    }
    if source.hasattr("read")? {
        if let Some(file) = PyFileSource::new(source)? {
            return Ok(Source::Ranges {
                read: Arc::new(file),
                python: true,
                path: None,
            });
        }
        let data = source.call_method0("read")?;
        return Ok(Source::Memory(bytes_of(&data)?.ok_or_else(not_bytes)?));
    }
    Err(PyTypeError::new_err(format!(
        "cannot read Parquet from a {}: give a path, bytes or a binary file-like object",
        source.get_type().name()?
    )))
}

/// A reader of `source`, its footer read (the GIL released for the file's reads), and
/// whether its reads go through a Python file-like object (which only the thread holding
/// the GIL reads). `keys`: an encrypted file's decryption properties.
pub(crate) fn open(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    keys: Option<&Arc<FileDecryptionProperties>>,
    memory_map: bool,
) -> PyResult<(ParquetReader, bool)> {
    open_columns(py, source, None, keys, memory_map)
}

/// A file opened for a `ParquetFile`: its footer opened lazily (readers of some columns
/// decode only theirs, the whole footer only when something needs it), or, for an encrypted
/// file or one read with keys, read whole.
pub(crate) enum Opened {
    Lazy {
        source: Arc<dyn RangeRead>,
        footer: Box<OpenedFooter>,
    },
    Whole(Box<ParquetReader>),
}

/// [`open`] for a `ParquetFile`, its footer opened lazily where it can be; and whether its
/// reads go through a Python file-like object.
pub(crate) fn open_lazy(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    keys: Option<&Arc<FileDecryptionProperties>>,
    memory_map: bool,
) -> PyResult<(Opened, bool)> {
    if keys.is_none() {
        let (read, python) = match source_of(source, memory_map)? {
            Source::Ranges { read, python, .. } => (read, python),
            Source::Memory(data) => (Arc::new(data) as Arc<dyn RangeRead>, false),
        };
        // A footer that does not open lazily (an encrypted one, say) is read the usual way,
        // which reports what is wrong with it.
        if let Ok(footer) = py.detach(|| OpenedFooter::open(read.as_ref())) {
            return Ok((
                Opened::Lazy {
                    source: read,
                    footer: Box::new(footer),
                },
                python,
            ));
        }
        let reader = py
            .detach(|| ParquetReader::from_source_with(read, DecodeOptions::default()))
            .map_err(error)?;
        return Ok((Opened::Whole(Box::new(reader)), python));
    }
    let (reader, python) = open(py, source, keys, memory_map)?;
    Ok((Opened::Whole(Box::new(reader)), python))
}

/// Decode options with `keys` (for the file at `path`, whose key material may lie beside
/// it).
fn keyed(keys: Option<&Arc<FileDecryptionProperties>>, path: Option<&PathBuf>) -> DecodeOptions {
    DecodeOptions {
        decryption: keys.map(|k| match path {
            Some(p) => Arc::new(k.for_file(p)),
            None => Arc::clone(k),
        }),
        ..DecodeOptions::default()
    }
}

/// [`open`] for a read of the top-level columns `columns` only (`None`: all): from a file or
/// file-like object just their part of the footer is decoded
/// (`ParquetReader::from_source_columns`; of an encrypted file, only their keys asked for);
/// bytes in memory are opened whole. `memory_map`: a path is read through a memory mapping
/// ([`MappedFile`]).
pub(crate) fn open_columns(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    columns: Option<&[String]>,
    keys: Option<&Arc<FileDecryptionProperties>>,
    memory_map: bool,
) -> PyResult<(ParquetReader, bool)> {
    match source_of(source, memory_map)? {
        Source::Ranges { read, python, path } => {
            let opts = keyed(keys, path.as_ref());
            py.detach(|| match columns {
                Some(c) => ParquetReader::from_source_columns_with(read, c, opts),
                None => ParquetReader::from_source_with(read, opts),
            })
            .map(|r| (r, python))
            .map_err(error)
        }
        Source::Memory(data) => {
            let opts = keyed(keys, None);
            py.detach(|| ParquetReader::from_source_with(Arc::new(data), opts))
                .map(|r| (r, false))
                .map_err(error)
        }
    }
}

/// The footer of `source`, decoded with `options`.
pub(crate) fn read_footer(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    options: DecodeOptions,
) -> PyResult<FileMetaData> {
    let result = match source_of(source, false)? {
        Source::Ranges { read, path, .. } => {
            let options = DecodeOptions {
                decryption: keyed(options.decryption.as_ref(), path.as_ref()).decryption,
                ..options
            };
            py.detach(|| read_source_footer(read.as_ref(), options))
        }
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
    let result = match source_of(source, false)? {
        Source::Ranges { read: file, .. } => py.detach(|| {
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
