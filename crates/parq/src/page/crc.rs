//! Page checksums: the optional `crc` of a `PageHeader` is the CRC-32 (ISO-HDLC, as zlib and
//! gzip compute it) of the page bytes after the header, as stored: compressed, and for v2 data
//! pages the level bytes and the values section together. Only pages whose header carries a
//! `crc` are checked; writers set it per page, often not at all.

use super::compressed::CompressedPage;
use crate::{Error, ErrorKind, Result};

/// The CRC-32 of `bytes` as Parquet page checksums compute it.
pub fn checksum(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// Verifies `page`'s body against its header's `crc`; a page without one passes.
///
/// A mismatch is an [`ErrorKind::PageChecksumMismatch`] naming the page's ordinal in its
/// chunk, at the page header's file offset.
pub fn verify(page: &CompressedPage) -> Result<()> {
    let Some(expected) = page.crc() else {
        return Ok(());
    };
    let actual = checksum(&page.body);
    if actual == expected {
        return Ok(());
    }
    Err(Error::at(
        ErrorKind::PageChecksumMismatch {
            page: page.meta.ordinal,
            expected,
            actual,
        },
        page.meta.header_offset,
    ))
}
