//! Synchronous file access: drives the push-style [`FooterDecoder`] over a
//! `Read + Seek` source, and reads page indexes.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use parq_format::footer::{
    decode_page_index, page_index_range, DecodeOptions, FooterDecoder, PageIndex,
};
use parq_format::metadata::FileMetaData;

use crate::read::io::source::FOOTER_PREFETCH;
use crate::{Error, ErrorKind, Result};

fn read_range<R: Read + Seek>(src: &mut R, start: u64, len: u64) -> Result<Vec<u8>> {
    src.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::new();
    // `len` is bounded by the file size and the footer size limit.
    buf.try_reserve_exact(len as usize)
        .map_err(|_| Error::new(ErrorKind::Io(format!("cannot allocate {len} bytes"))))?;
    src.take(len).read_to_end(&mut buf)?;
    if (buf.len() as u64) < len {
        return Err(Error::at(
            ErrorKind::Truncated {
                needed: len,
                remaining: buf.len() as u64,
            },
            start,
        ));
    }
    Ok(buf)
}

/// Reads and decodes the footer of `src` (a file of `file_bytes` bytes).
pub fn read_metadata_from<R: Read + Seek>(
    src: &mut R,
    file_bytes: u64,
    opts: DecodeOptions,
) -> Result<FileMetaData> {
    FooterDecoder::new(file_bytes, opts)
        .with_prefetch(FOOTER_PREFETCH)
        .read_with(|range| read_range(src, range.start, range.end - range.start))
}

/// Reads and decodes the footer of the file at `path`.
pub fn read_metadata(path: impl AsRef<Path>, opts: DecodeOptions) -> Result<FileMetaData> {
    let mut f = File::open(path.as_ref())?;
    let len = f.metadata()?.len();
    read_metadata_from(&mut f, len, opts)
}

/// Reads the page index of the chosen row groups x columns (`None`: all) of `src`.
pub fn read_page_index_from<R: Read + Seek>(
    src: &mut R,
    meta: &FileMetaData,
    row_groups: Option<&[usize]>,
    columns: Option<&[usize]>,
    file_bytes: u64,
) -> Result<Option<PageIndex>> {
    let Some(range) = page_index_range(meta, row_groups, columns) else {
        return Ok(None);
    };
    if range.end > file_bytes {
        return Err(Error::at(
            ErrorKind::Inconsistent(format!(
                "page index range {}..{} lies outside the file of {file_bytes} bytes",
                range.start, range.end
            )),
            range.start,
        ));
    }
    let bytes = read_range(src, range.start, range.end - range.start)?;
    decode_page_index(&bytes, range.start, meta, row_groups, columns).map(Some)
}
