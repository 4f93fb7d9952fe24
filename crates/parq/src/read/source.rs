//! Where the sync reader's bytes come from: [`RangeRead`], positional reads of byte ranges,
//! for a [`File`] ([`FileSource`]: nothing read that the read does not need) and
//! for bytes in memory (`Bytes`: ranges are slices, nothing copied), and the footer read
//! through it.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use bytes::Bytes;

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

/// A file on disk, read range by range by positional reads (into buffers that earlier reads
/// let go, see [`super::pool`]), so that one handle serves any number of readers and threads
/// at once.
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
        let io = |e: std::io::Error| Error::new(ErrorKind::Io(format!("{}: {e}", path.display())));
        let file = File::open(&path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
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
        // At most the file's length (checked above); from the buffers earlier reads let go.
        let mut buf = super::pool::buffer(n)
            .ok_or_else(|| Error::new(ErrorKind::Io(format!("cannot allocate {n} bytes"))))?;
        let io = |e: std::io::Error| {
            Error::at(
                ErrorKind::Io(format!("{}: {e}", self.path.display())),
                range.start,
            )
        };
        let part = buf.get_mut(..n).unwrap_or_default();
        read_exact_at(&self.file, part, range.start).map_err(io)?;
        Ok(super::pool::lease(buf, n))
    }
}

/// Reads and decodes the footer of `source`.
/// Fills `buf` from file offset `at` on, by positional reads (threads reading one file do
/// not wait for each other).
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
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

pub fn read_footer(source: &dyn RangeRead, opts: DecodeOptions) -> Result<FileMetaData> {
    let mut dec = FooterDecoder::new(source.file_len(), opts).with_prefetch(FOOTER_PREFETCH);
    while let Some(range) = dec.next_range() {
        let bytes = source.read_range(range.clone())?;
        dec.push(range.start, &bytes)?;
    }
    dec.take().ok_or_else(|| {
        Error::new(ErrorKind::Inconsistent(
            "footer decoder ended without metadata".into(),
        ))
    })
}
