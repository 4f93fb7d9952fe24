//! A file read through a memory mapping ([`MappedFile`]): each range is a slice of the
//! mapping, so the kernel's copy of a positional read is gone and uncompressed pages are
//! decoded where the page cache holds them.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

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
                bytes: Bytes::new(),
                path,
            });
        }
        // SAFETY: the caller promises that the file is not changed while it is mapped; the
        // mapping is read-only and private to this source.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Ok(MappedFile {
            bytes: Bytes::from_owner(map),
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
        let part = self.bytes.slice(range.start as usize..range.end as usize);
        populate(&part).map_err(|e| {
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

/// Maps the memory pages of `part` (a slice of a file mapping) in one call, so that reading
/// it does not fault once per page. Pages the file no longer has (it was truncated while
/// mapped) are an error here, where reading them would end the process with `SIGBUS`. A
/// kernel without the call (before 5.14) refuses it, and the pages then fault in as they are
/// read.
#[cfg(target_os = "linux")]
fn populate(part: &[u8]) -> std::io::Result<()> {
    if part.is_empty() {
        return Ok(());
    }
    // The advice works on whole memory pages: from the page `part` starts in.
    let page = page_size();
    let start = part.as_ptr() as usize;
    let aligned = start & !(page - 1);
    let len = part.len() + (start - aligned);
    // SAFETY: `[aligned, start + part.len())` lies within the live mapping `part` is a slice
    // of (mappings start on a page boundary, so the page `start` lies in is mapped), and
    // MADV_POPULATE_READ only reads the pages in; it changes no memory.
    let done =
        unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_POPULATE_READ) };
    if done == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        // Past the file's end (EFAULT) or unreadable (EIO): reading would fault.
        Some(libc::EFAULT) | Some(libc::EIO) => Err(e),
        // Unknown advice (an older kernel), or anything else: only a hint.
        _ => Ok(()),
    }
}

#[cfg(not(target_os = "linux"))]
fn populate(_part: &[u8]) -> std::io::Result<()> {
    Ok(())
}

/// The size of a memory page.
#[cfg(target_os = "linux")]
fn page_size() -> usize {
    use std::sync::OnceLock;
    static PAGE: OnceLock<usize> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(n)
            .ok()
            .filter(|n| n.is_power_of_two())
            .unwrap_or(4096)
    })
}
