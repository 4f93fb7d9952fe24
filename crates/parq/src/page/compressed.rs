//! [`CompressedPage`]: one page of a column chunk as stored, its header decoded and its body
//! sliced from the chunk bytes (shared, not copied), with [`PageMeta`] saying where it is.

use bytes::Bytes;

use crate::format::metadata::{Compression, PageHeader, PageType};
use crate::Result;

/// Where a page sits in the file and how large it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageMeta {
    /// The page's ordinal in its column chunk: 0 for the first page header, counting the
    /// dictionary page and the skipped index and unknown pages.
    pub ordinal: u64,
    /// File offset of the page header.
    pub header_offset: u64,
    /// File offset of the page body (right after the header).
    pub body_offset: u64,
    /// Bytes of the encoded header.
    pub header_len: usize,
    /// `compressed_page_size`: bytes of the body as stored.
    pub compressed_size: usize,
    /// `uncompressed_page_size`: bytes of the body once decompressed (for v2 pages, levels
    /// included).
    pub uncompressed_size: usize,
}

/// A page as stored: its decoded header and its (possibly compressed) body.
#[derive(Debug, Clone)]
pub struct CompressedPage {
    /// The decoded header. Its byte ranges (statistics, unknown fields) refer to
    /// [`CompressedPage::header_bytes`].
    pub header: PageHeader,
    /// The encoded header.
    pub header_bytes: Bytes,
    /// The page body: `compressed_page_size` bytes after the header.
    pub body: Bytes,
    /// The codec of the column chunk.
    pub codec: Compression,
    /// Location and sizes.
    pub meta: PageMeta,
}

impl CompressedPage {
    /// The page type.
    pub fn page_type(&self) -> PageType {
        self.header.page_type
    }

    /// True for v1 and v2 data pages.
    pub fn is_data_page(&self) -> bool {
        matches!(
            self.header.page_type,
            PageType::DataPage | PageType::DataPageV2
        )
    }

    /// True for the dictionary page.
    pub fn is_dictionary_page(&self) -> bool {
        self.header.page_type == PageType::DictionaryPage
    }

    /// `num_values` of a data or dictionary page; `None` for other pages (the reader only
    /// yields pages whose type-specific header is present).
    pub fn num_values(&self) -> Option<u64> {
        let h = &self.header;
        let n = match h.page_type {
            PageType::DataPage => h.data_page_header.as_ref()?.num_values,
            PageType::DataPageV2 => h.data_page_header_v2.as_ref()?.num_values,
            PageType::DictionaryPage => h.dictionary_page_header.as_ref()?.num_values,
            _ => return None,
        };
        Some(n.max(0) as u64)
    }

    /// The header's `crc`, as the unsigned CRC-32 it stores.
    pub fn crc(&self) -> Option<u32> {
        self.header.crc.map(|c| c as u32)
    }

    /// Checks the header's CRC (when it has one) against the body: see
    /// [`super::crc::verify`].
    pub fn verify_crc(&self) -> Result<()> {
        super::crc::verify(self)
    }
}
