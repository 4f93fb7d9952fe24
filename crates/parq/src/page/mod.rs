//! Pages of a column chunk: the step of the read path between a chunk's bytes and the level
//! and value decoders.
//!
//! ```text
//! chunk bytes --PageReader::next_compressed--> CompressedPage (header + body slice)
//!             --PageReader::decompress-------> Page (dictionary | data v1 | data v2)
//!             --DataPageV1/V2::sections------> DataSections (levels + values) -> decoders
//! ```
//!
//! - [`CompressedPage`] ([`compressed`]): a decoded `PageHeader`, the page body sliced from
//!   the chunk bytes, and where it sits in the file ([`PageMeta`]).
//! - [`Page`] ([`decoded`]): a decompressed page. A v1 data page keeps its levels inside its
//!   body; a v2 data page has its level bytes split off (they are never compressed) and only
//!   its values section decompressed, and only when `is_compressed` (default true) says so.
//!   An empty v2 values section (an all-null page) is never passed to the decompressor.
//! - [`PageReader`] ([`reader`]): walks the page headers of one chunk, or follows its offset
//!   index, checks the page sequence and sizes, verifies CRCs ([`crc`]) and decompresses into
//!   one buffer it owns and reuses, so that reading page after page allocates nothing. The
//!   pages of an encrypted chunk ([`PageReader::with_decryptor`]) are decrypted as they are
//!   read: each header and body a module authenticated with its page's AAD.
//! - [`levels`]: splits data pages into repetition levels, definition levels and values, and
//!   decodes levels (RLE hybrid or the deprecated BIT_PACKED).
//!
//! Errors carry the file offset of the page header and the page's ordinal in its chunk
//! (`ErrorKind::InvalidPage`, `ErrorKind::PageChecksumMismatch`, or a `page[n]` frame on other
//! kinds), plus `row group[i] > column[j]` frames when the reader was told where it is
//! ([`PageReaderOptions::row_group`], [`PageReaderOptions::column`]).
//!
//! ```no_run
//! use parq::format::footer::{decode_file_metadata, DecodeOptions};
//! use parq::page::{Page, PageReader, PageReaderOptions};
//!
//! let file = bytes::Bytes::from(std::fs::read("data.parquet")?);
//! let meta = decode_file_metadata(&file, &DecodeOptions::default())?;
//! let chunk = &meta.row_groups()[0].columns()[0];
//! let mut pages = PageReader::for_column_chunk(&file, 0, chunk, PageReaderOptions::default())?;
//! while let Some(page) = pages.next_page()? {
//!     match page {
//!         Page::Dictionary(d) => println!("dictionary of {} values", d.num_values()),
//!         Page::DataV1(p) => println!("v1 page of {} values", p.num_values()),
//!         Page::DataV2(p) => println!("v2 page of {} values", p.num_values()),
//!     }
//! }
//! # Ok::<(), parq::Error>(())
//! ```

pub mod compressed;
pub mod crc;
pub mod decoded;
pub mod levels;
pub mod reader;

pub use compressed::{CompressedPage, PageMeta};
pub use decoded::{DataPageV1, DataPageV2, DictionaryPage, Page};
pub use levels::{level_bit_width, split_v1, DataSections, LevelDecoder, Levels};
pub use reader::{
    chunk_range, needs_legacy_dictionary_padding, PageBytes, PageReader, PageReaderOptions,
    PageStep, LEGACY_DICTIONARY_PADDING,
};

use crate::{Error, ErrorKind};

/// An [`ErrorKind::InvalidPage`] for page `ordinal` at file offset `offset`.
#[cold]
#[inline(never)]
pub(crate) fn invalid(ordinal: u64, offset: u64, message: String) -> Error {
    Error::at(
        ErrorKind::InvalidPage {
            page: ordinal,
            message,
        },
        offset,
    )
}

/// Adds the `page[ordinal]` frame to errors that do not name their page themselves.
#[cold]
pub(crate) fn in_page(e: Error, ordinal: u64) -> Error {
    match e.kind() {
        ErrorKind::InvalidPage { .. } | ErrorKind::PageChecksumMismatch { .. } => e,
        _ => e.in_page(u32::try_from(ordinal).unwrap_or(u32::MAX)),
    }
}
