//! Page checksums: the optional `crc` of a `PageHeader` is the CRC-32 (ISO-HDLC, as zlib and
//! gzip compute it) of the page bytes after the header, as stored: compressed, and for v2 data
//! pages the level bytes and the values section together; for an encrypted page, the body
//! module as stored (encrypted), as parquet-java and pyarrow write and check it. Only pages
//! whose header carries a `crc` are checked; writers set it per page, often not at all.

use super::compressed::{CompressedPage, PageMeta};
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
    verify_stored(page.crc(), &page.body, &page.meta)
}

/// Verifies the stored body `body` of the page `meta` locates against the header's `crc`.
pub(crate) fn verify_stored(crc: Option<u32>, body: &[u8], meta: &PageMeta) -> Result<()> {
    let Some(expected) = crc else {
        return Ok(());
    };
    let actual = checksum(body);
    if actual == expected {
        return Ok(());
    }
    Err(Error::at(
        ErrorKind::PageChecksumMismatch {
            page: meta.ordinal,
            expected,
            actual,
        },
        meta.header_offset,
    ))
}
