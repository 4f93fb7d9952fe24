//! Where the sync reader's bytes come from: [`RangeRead`], positional reads of byte ranges,
//! for a [`File`] ([`FileSource`]: nothing read that the read does not need) and
//! for bytes in memory (`Bytes`: ranges are slices, nothing copied), and the footer read
//! through it; [`AsyncRangeRead`], the same asynchronously (object stores, HTTP).

use std::fs::File;
use std::future::Future;
use std::ops::Range;
use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::read::io::pool;

use crate::format::footer::{DecodeOptions, FooterDecoder};
use crate::format::metadata::FileMetaData;
use crate::{Error, ErrorKind, Result};

/// How many bytes of the file's end to read at first: most footers fit, saving a second read.
pub(crate) const FOOTER_PREFETCH: u64 = 64 * 1024;

/// A file read by byte ranges.
pub trait RangeRead: Send + Sync + std::fmt::Debug {
    /// The file's length in bytes.
    fn file_len(&self) -> u64;

    /// The bytes of `range` (within the file's length).
    fn read_range(&self, range: Range<u64>) -> Result<Bytes>;

    /// The bytes of each of `ranges` (within the file's length), in order: the ranges a read
    /// needs at one time. One [`RangeRead::read_range`] after another unless the source
    /// reads them at once (an object store, whose requests wait on the network).
    fn read_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        ranges.iter().map(|r| self.read_range(r.clone())).collect()
    }
}

/// A file read by byte ranges, asynchronously.
pub trait AsyncRangeRead: Send + Sync {
    /// The file's length in bytes.
    fn file_len(&self) -> impl Future<Output = Result<u64>> + Send;

    /// The bytes of each of `ranges` (within the file's length), in order.
    fn read_ranges(
        &self,
        ranges: Vec<Range<u64>>,
    ) -> impl Future<Output = Result<Vec<Bytes>>> + Send;
}

/// The error of a source that gave `got` bytes for `range`.
#[cold]
pub(crate) fn short_read(range: &Range<u64>, got: usize) -> Error {
    Error::at(
        ErrorKind::Io(format!(
            "the source gave {got} bytes for the range {}..{}",
            range.start, range.end
        )),
        range.start,
    )
}

/// Checks that `range` lies within a file of `len` bytes.
pub(crate) fn check_range(range: &Range<u64>, len: u64) -> Result<()> {
    if range.start > range.end || range.end > len {
        return Err(Error::at(
            ErrorKind::Truncated {
                needed: range.end.saturating_sub(range.start),
                remaining: len.saturating_sub(range.start),
            },
            range.start,
        ));
    }
    Ok(())
}

impl RangeRead for Bytes {
    fn file_len(&self) -> u64 {
        self.len() as u64
    }

    fn read_range(&self, range: Range<u64>) -> Result<Bytes> {
        check_range(&range, self.len() as u64)?;
        // Within `self` (checked above).
        Ok(self.slice(range.start as usize..range.end as usize))
    }
}

/// The file at `path`, opened for reading (a missing file is [`ErrorKind::NotFound`]).
pub(crate) fn open_file(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| io_error(path, e))
}

/// The error of `e` on the file at `path`.
pub(crate) fn io_error(path: &Path, e: std::io::Error) -> Error {
    let kind = if e.kind() == std::io::ErrorKind::NotFound {
        ErrorKind::NotFound(path.display().to_string())
    } else {
        ErrorKind::Io(format!("{}: {e}", path.display()))
    };
    Error::new(kind).with_source(e)
}

/// A file on disk, read range by range by positional reads, so that one handle serves any
/// number of readers and threads at once, into buffers earlier reads let go
/// or new ones, not zeroed first.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    len: u64,
    path: PathBuf,
}

impl FileSource {
    /// Opens the file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = open_file(&path)?;
        let len = file.metadata().map_err(|e| io_error(&path, e))?.len();
        Ok(FileSource { file, len, path })
    }

    /// A source reading `file`.
    pub fn new(file: File) -> Result<Self> {
        let len = file.metadata()?.len();
        Ok(FileSource {
            file,
            len,
            path: PathBuf::new(),
        })
    }
}

impl RangeRead for FileSource {
    fn file_len(&self) -> u64 {
        self.len
    }

    fn read_range(&self, range: Range<u64>) -> Result<Bytes> {
        check_range(&range, self.len)?;
        let n = usize::try_from(range.end - range.start)
            .map_err(|_| Error::new(ErrorKind::Io(format!("cannot read {range:?} at once"))))?;
        let io = |e: std::io::Error| {
            Error::at(
                ErrorKind::Io(format!("{}: {e}", self.path.display())),
                range.start,
            )
        };
        // A buffer an earlier read let go, else a new one; filled by positional reads, into
        // the spare capacity (not zeroed first) where it holds fewer initialized bytes.
        let mut buf = match pool::take(n) {
            Some(b) => b,
            None => {
                let mut b = Vec::new();
                // At most the file's length (checked above).
                b.try_reserve_exact(n)
                    .map_err(|_| Error::new(ErrorKind::Io(format!("cannot allocate {n} bytes"))))?;
                b
            }
        };
        match buf.get_mut(..n) {
            Some(part) => read_exact_at(&self.file, part, range.start).map_err(io)?,
            None => {
                buf.clear();
                read_into_spare(&self.file, &mut buf, n, range.start).map_err(io)?;
            }
        }
        Ok(pool::lease(buf, n))
    }
}

/// Fills `buf` from file offset `at` on, by positional reads (threads reading one file do
/// not wait for each other).
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

/// Appends the `n` bytes at file offset `at` to the empty `buf` (whose capacity holds them),
/// by positional reads into its spare capacity, which is not zeroed first.
#[cfg(unix)]
fn read_into_spare(file: &File, buf: &mut Vec<u8>, n: usize, at: u64) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    let fd = file.as_raw_fd();
    while buf.len() < n {
        let done = buf.len();
        let want = n - done;
        let offset = at
            .checked_add(done as u64)
            .and_then(|o| libc::off_t::try_from(o).ok())
            .ok_or_else(|| std::io::Error::other("file offset out of range"))?;
        let spare = buf.spare_capacity_mut();
        if spare.len() < want {
            return Err(std::io::Error::other("read buffer too small"));
        }
        // SAFETY: `spare` is valid for writes of `want` bytes (checked above), and `pread`
        // writes at most that many into it.
        let read = unsafe { libc::pread(fd, spare.as_mut_ptr().cast(), want, offset) };
        match read {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            r if r < 0 => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            r => {
                let got = (r as usize).min(want);
                // SAFETY: `pread` initialized the `got` bytes after the length (it returns
                // how many it wrote, at most `want`).
                unsafe { buf.set_len(done + got) };
            }
        }
    }
    Ok(())
}

/// Fills `buf` from file offset `at` on, by positional reads.
#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, at) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut std::mem::take(&mut buf)[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Appends the `n` bytes at file offset `at` to the empty `buf`, zeroed first.
#[cfg(windows)]
fn read_into_spare(file: &File, buf: &mut Vec<u8>, n: usize, at: u64) -> std::io::Result<()> {
    buf.resize(n, 0);
    read_exact_at(file, buf, at)
}

/// Reads and decodes the footer of `source`.
pub fn read_footer(source: &dyn RangeRead, opts: DecodeOptions) -> Result<FileMetaData> {
    FooterDecoder::new(source.file_len(), opts)
        .with_prefetch(FOOTER_PREFETCH)
        .read_with(|range| source.read_range(range))
}
