//! [`Page`]: a decompressed page — the dictionary page, a v1 data page (levels still inside
//! its body) or a v2 data page (level bytes split off, values decompressed). Page bytes are
//! borrowed from the chunk (uncompressed pages, v2 levels) or from the reader's reused
//! buffer, so a `Page` lives until the next call on its [`super::PageReader`].

use super::compressed::PageMeta;
use super::levels::{split_v1, split_v2, DataSections};
use crate::format::metadata::{
    DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding, PageType,
};
use crate::Result;

/// A decompressed page.
#[derive(Debug, Clone)]
pub enum Page<'b> {
    /// The dictionary page.
    Dictionary(DictionaryPage<'b>),
    /// A v1 data page.
    DataV1(DataPageV1<'b>),
    /// A v2 data page.
    DataV2(DataPageV2<'b>),
}

impl Page<'_> {
    /// Location and sizes.
    pub fn meta(&self) -> &PageMeta {
        match self {
            Page::Dictionary(p) => &p.meta,
            Page::DataV1(p) => &p.meta,
            Page::DataV2(p) => &p.meta,
        }
    }

    /// The page type.
    pub fn page_type(&self) -> PageType {
        match self {
            Page::Dictionary(_) => PageType::DictionaryPage,
            Page::DataV1(_) => PageType::DataPage,
            Page::DataV2(_) => PageType::DataPageV2,
        }
    }

    /// `num_values`: entries of the dictionary, or values (nulls included) of a data page.
    pub fn num_values(&self) -> usize {
        match self {
            Page::Dictionary(p) => p.num_values(),
            Page::DataV1(p) => p.num_values(),
            Page::DataV2(p) => p.num_values(),
        }
    }

    /// The decompressed bytes: the dictionary, the whole v1 body, or the v2 values section.
    pub fn buffer(&self) -> &[u8] {
        match self {
            Page::Dictionary(p) => p.buffer,
            Page::DataV1(p) => p.buffer,
            Page::DataV2(p) => p.values,
        }
    }

    /// The decompressed size of the page: `uncompressed_page_size` when the page is intact
    /// (for v2, levels plus values).
    pub fn uncompressed_len(&self) -> usize {
        match self {
            Page::Dictionary(p) => p.buffer.len(),
            Page::DataV1(p) => p.buffer.len(),
            Page::DataV2(p) => {
                p.repetition_levels.len() + p.definition_levels.len() + p.values.len()
            }
        }
    }
}

/// The dictionary page of a column chunk.
#[derive(Debug, Clone)]
pub struct DictionaryPage<'b> {
    /// Location and sizes.
    pub meta: PageMeta,
    /// The dictionary page header.
    pub header: DictionaryPageHeader,
    /// The decompressed dictionary values.
    pub buffer: &'b [u8],
}

impl DictionaryPage<'_> {
    /// The number of dictionary entries.
    pub fn num_values(&self) -> usize {
        self.header.num_values.max(0) as usize
    }

    /// The encoding of the entries (PLAIN, or the legacy PLAIN_DICTIONARY).
    pub fn encoding(&self) -> Encoding {
        self.header.encoding
    }

    /// `is_sorted`, false when absent.
    pub fn is_sorted(&self) -> bool {
        self.header.is_sorted.unwrap_or(false)
    }
}

/// A v1 data page: levels and values compressed together, levels inside `buffer`.
#[derive(Debug, Clone)]
pub struct DataPageV1<'b> {
    /// Location and sizes.
    pub meta: PageMeta,
    /// The data page header (statistics ranges refer to `header_bytes`).
    pub header: DataPageHeader,
    /// The encoded page header.
    pub header_bytes: &'b [u8],
    /// The decompressed body: repetition levels, definition levels, values.
    pub buffer: &'b [u8],
}

impl<'b> DataPageV1<'b> {
    /// Values in the page, nulls included.
    pub fn num_values(&self) -> usize {
        self.header.num_values.max(0) as usize
    }

    /// The encoding of the values.
    pub fn encoding(&self) -> Encoding {
        self.header.encoding
    }

    /// Splits the body into levels and values for a column with these maximum levels: see
    /// [`split_v1`]. Errors carry the page header's file offset.
    pub fn sections(&self, max_rep_level: i16, max_def_level: i16) -> Result<DataSections<'b>> {
        split_v1(
            self.buffer,
            self.num_values(),
            max_rep_level,
            max_def_level,
            self.header.repetition_level_encoding,
            self.header.definition_level_encoding,
        )
        .map_err(|e| super::in_page(e.with_offset(self.meta.header_offset), self.meta.ordinal))
    }
}

/// A v2 data page: levels stored uncompressed before the values section.
#[derive(Debug, Clone)]
pub struct DataPageV2<'b> {
    /// Location and sizes.
    pub meta: PageMeta,
    /// The v2 data page header (statistics ranges refer to `header_bytes`).
    pub header: DataPageHeaderV2,
    /// The encoded page header.
    pub header_bytes: &'b [u8],
    /// The repetition levels (RLE hybrid, no length prefix).
    pub repetition_levels: &'b [u8],
    /// The definition levels (RLE hybrid, no length prefix).
    pub definition_levels: &'b [u8],
    /// The values, decompressed when the header says they are compressed.
    pub values: &'b [u8],
}

impl<'b> DataPageV2<'b> {
    /// Values in the page, nulls included.
    pub fn num_values(&self) -> usize {
        self.header.num_values.max(0) as usize
    }

    /// Nulls in the page.
    pub fn num_nulls(&self) -> usize {
        self.header.num_nulls.max(0) as usize
    }

    /// Rows in the page.
    pub fn num_rows(&self) -> usize {
        self.header.num_rows.max(0) as usize
    }

    /// The encoding of the values.
    pub fn encoding(&self) -> Encoding {
        self.header.encoding
    }

    /// The page's levels and values for a column with these maximum levels.
    pub fn sections(&self, max_rep_level: i16, max_def_level: i16) -> Result<DataSections<'b>> {
        split_v2(
            self.repetition_levels,
            self.definition_levels,
            self.values,
            max_rep_level,
            max_def_level,
        )
        .map_err(|e| super::in_page(e.with_offset(self.meta.header_offset), self.meta.ordinal))
    }
}
