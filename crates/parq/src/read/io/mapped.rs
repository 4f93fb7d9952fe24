//! A file read through a memory mapping ([`MappedFile`]): each range is a slice of the
//! mapping, so the kernel's copy of a positional read is gone and uncompressed pages are
//! decoded where the page cache holds them.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::read::io::source::{check_range, io_error, open_file};
use crate::{Error, ErrorKind, Result};

/// A file on disk read through a read-only memory mapping of the whole file: a range is a
/// slice of the mapping (nothing copied; the slice keeps the mapping alive, so arrays that
/// point into pages, such as `Utf8View` values, outlive the reader), its memory pages mapped
/// in one call when the range is asked for rather than one fault at a time.
///
/// Faster than [`FileSource`](super::source::FileSource) for files whose pages are not
/// compressed, which are then decoded straight from the page cache; the same for the rest.
/// See [`MappedFile::open`] for what it asks of the file.
#[derive(Debug)]
pub struct MappedFile {
    /// The mapping (`None` for an empty file, which cannot be mapped).
    map: Option<Arc<memmap2::Mmap>>,
    /// The whole mapping, whose slices the ranges are.
    bytes: Bytes,
    path: PathBuf,
}

impl MappedFile {
    /// Maps the file at `path` for reading.
    ///
    /// # Safety
    ///
    /// The file must not be changed or truncated by anyone (this process or another) while
    /// the source, or any array read from it, is alive: the mapping shows the change, so
    /// values could change under the reader's checks (undefined behaviour). A range asked for
    /// after the file was cut short is an error (on Linux), but bytes cut off while they are
    /// being decoded, or held by arrays, end the process with `SIGBUS` when touched. This is
    /// the contract of every memory-mapped reader (pyarrow's `memory_map=True`, polars).
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = open_file(&path)?;
        // SAFETY: the caller promises that the file is not changed while it is mapped.
        unsafe { Self::map(file, path) }
    }

    /// Maps `file` for reading.
    ///
    /// # Safety
    ///
    /// As for [`MappedFile::open`].
    pub unsafe fn new(file: File) -> Result<Self> {
        // SAFETY: passed on to the caller.
        unsafe { Self::map(file, PathBuf::new()) }
    }

    /// # Safety
    ///
    /// As for [`MappedFile::open`].
    unsafe fn map(file: File, path: PathBuf) -> Result<Self> {
        let io = |e: std::io::Error| io_error(&path, e);
        let len = file.metadata().map_err(io)?.len();
        if len == 0 {
            // An empty file cannot be mapped; its footer read reports it as too short.
            return Ok(MappedFile {
                map: None,
                bytes: Bytes::new(),
                path,
            });
        }
        // SAFETY: the caller promises that the file is not changed while it is mapped; the
        // mapping is read-only and private to this source.
        let map = Arc::new(unsafe { memmap2::Mmap::map(&file) }.map_err(io)?);
        Ok(MappedFile {
            bytes: Bytes::from_owner(Shared(Arc::clone(&map))),
            map: Some(map),
            path,
        })
    }

    /// The path the file was opened at (empty for [`MappedFile::new`]).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl super::source::RangeRead for MappedFile {
    fn file_len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_range(&self, range: Range<u64>) -> Result<Bytes> {
        check_range(&range, self.bytes.len() as u64)?;
        // Within the mapping (checked above).
        let (start, end) = (range.start as usize, range.end as usize);
        let part = self.bytes.slice(start..end);
        let populated = match &self.map {
            Some(map) => populate(map, start, end - start),
            None => Ok(()),
        };
        populated.map_err(|e| {
            Error::at(
                ErrorKind::Io(format!(
                    "{}: bytes {}..{} of the mapped file cannot be read (was the file truncated \
                     while mapped?): {e}",
                    self.path.display(),
                    range.start,
                    range.end
                )),
                range.start,
            )
            .with_source(e)
        })?;
        Ok(part)
    }
}

/// A file mapping as the owner of [`Bytes`] slices, itself kept to advise the kernel.
struct Shared(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Maps the memory pages of `len` bytes from `offset` of `map` in one call, so that reading
/// them does not fault once per page. Pages the file no longer has (it was truncated while
/// mapped) are an error here, where reading them would end the process with `SIGBUS`. A
/// kernel without the call (before 5.14) refuses it, and the pages then fault in as they are
/// read.
#[cfg(target_os = "linux")]
fn populate(map: &memmap2::Mmap, offset: usize, len: usize) -> std::io::Result<()> {
    if len == 0 {
        return Ok(());
    }
    match map.advise_range(memmap2::Advice::PopulateRead, offset, len) {
        Ok(()) => Ok(()),
        // Past the file's end (EFAULT) or unreadable (EIO): reading would fault.
        Err(e) if matches!(e.raw_os_error(), Some(libc::EFAULT) | Some(libc::EIO)) => Err(e),
        // Unknown advice (an older kernel), or anything else: only a hint.
        Err(_) => Ok(()),
    }
}

#[cfg(not(target_os = "linux"))]
fn populate(_map: &memmap2::Mmap, _offset: usize, _len: usize) -> std::io::Result<()> {
    Ok(())
}
