//! [`PageReader`]: the pages of one column chunk, read from the chunk's bytes.
//!
//! Without an offset index the reader walks the page headers from the chunk start (the
//! dictionary page, else the first data page) to the end of `total_compressed_size`. When
//! the chunk's `num_values` is known ([`PageReader::with_num_values`], set by
//! [`PageReader::for_column_chunk`]) the walk stops once the data pages hold that many
//! values, as parquet-cpp and parquet-rs do, so bytes after the last page are ignored; the
//! values of the data pages must add up to exactly `num_values`.
//!
//! With an offset index ([`PageReader::with_offset_index`]) the data pages are read at their
//! locations (each location's size covers header and body exactly); the pages before the
//! first location (the dictionary page) are walked.
//!
//! The chunk's bytes are held whole ([`PageReader::new`], [`PageReader::for_column_chunk`]:
//! pages are slices of them, shared, not copied), or come as the pages are read
//! ([`PageReader::streaming`]): [`PageReader::poll_compressed`] then says which file range
//! it needs next (`fetch` bytes from the next page header, or the whole page when it is
//! larger) and [`PageReader::push`] gives them, replacing the bytes held before, so a chunk
//! of any size is read holding about `fetch` bytes of it.
//!
//! Index pages and pages of unknown types are skipped (they keep their ordinal); a data
//! page whose type-specific header is missing is an error. A dictionary page after a data
//! page, or a second one, is an error. Every size is checked against the chunk (and the
//! offset index) before the body is sliced, and the uncompressed size against
//! [`Limits::max_page_bytes`] and against what the codec can expand the body to
//! ([`max_decompressed_len`]) before anything is allocated.
//!
//! Allocation: headers decode without allocating (unless they carry unknown fields), bodies
//! are slices of the chunk bytes, and decompression goes into one buffer owned by the reader
//! and reused for every page with one [`Decompressor`], so a chunk of any number of pages
//! is read without per-page allocation once the buffer has grown to the largest page.
//!
//! After an error from [`PageReader::next_compressed`] (or [`PageReader::next_page`]) the
//! reader is finished: it returns `Ok(None)` from then on.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use super::compressed::{CompressedPage, PageMeta};
use super::decoded::{DataPageV1, DataPageV2, DictionaryPage, Page};
use super::{crc, in_page, invalid};
use crate::compression::{max_decompressed_len, Decompressor, Limits};
use crate::format::metadata::{ColumnChunk, Compression, PageHeader, PageLocation, PageType};
use crate::{Error, ErrorKind, Result};

mod decompress;
mod decrypt;
mod fetch;

use decrypt::{module_end, PageCrypto, PageSlot};

/// Options of a [`PageReader`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageReaderOptions {
    /// Verify the CRC of every page whose header has one, when it is decompressed
    /// ([`PageReader::decompress`]). Default false, as pyarrow, parquet-java and DuckDB:
    /// real writers leave wrong CRCs on intact data.
    pub verify_crc: bool,
    /// Decompression limits (the largest page accepted).
    pub limits: Limits,
    /// The row group of the chunk, named in errors (`row group[i]`) when set.
    pub row_group: Option<usize>,
    /// The column of the chunk, named in errors (`column[j]`) when set.
    pub column: Option<usize>,
    /// Extend the chunk by up to [`LEGACY_DICTIONARY_PADDING`] bytes (as far as the bytes
    /// given to [`PageReader::for_column_chunk`] go) for old parquet-mr files: set it to
    /// [`needs_legacy_dictionary_padding`] of the footer's `created_by`. The walk still stops
    /// at the chunk's `num_values`. Default false.
    pub legacy_dictionary_padding: bool,
}

/// The byte range of a column chunk in its file, `total_compressed_size` bytes from its first
/// page: the smaller of `dictionary_page_offset` and `data_page_offset` among those that are
/// positive (writers have been seen to write 0 for either: `dict-page-offset-zero.parquet`,
/// `column_chunk_key_value_metadata.parquet`).
pub fn chunk_range(column: &ColumnChunk) -> Result<Range<u64>> {
    if !column.has_metadata() {
        return Err(
            Error::new(ErrorKind::MissingRequiredField { field: "meta_data" })
                .in_struct("ColumnChunk"),
        );
    }
    let data = column.data_page_offset();
    let start = match column.dictionary_page_offset() {
        Some(d) if d > 0 && (d < data || data <= 0) => d,
        _ => data,
    };
    let len = column.total_compressed_size();
    if start < 0 {
        return Err(Error::new(ErrorKind::InvalidValue {
            what: "data_page_offset",
            value: start,
        }));
    }
    if len < 0 {
        return Err(Error::new(ErrorKind::InvalidValue {
            what: "total_compressed_size",
            value: len,
        }));
    }
    match (start as u64).checked_add(len as u64) {
        Some(end) => Ok(start as u64..end),
        None => Err(Error::new(ErrorKind::InvalidValue {
            what: "total_compressed_size",
            value: len,
        })),
    }
}

/// The chunk's `num_values`, checked.
fn chunk_num_values(column: &ColumnChunk) -> Result<u64> {
    u64::try_from(column.num_values()).map_err(|_| {
        Error::new(ErrorKind::InvalidValue {
            what: "num_values",
            value: column.num_values(),
        })
    })
}

/// The bytes [`PageReaderOptions::legacy_dictionary_padding`] adds to a chunk's end (as
/// parquet-cpp does): the largest dictionary page header old parquet-mr left out.
pub const LEGACY_DICTIONARY_PADDING: u64 = 100;

/// True for files written by parquet-mr before 1.2.9 (or with no version), whose
/// `total_compressed_size` leaves out the dictionary page header (PARQUET-816, IMPALA-694;
/// `nation.dict-malformed.parquet`). Pass the footer's `created_by`.
pub fn needs_legacy_dictionary_padding(created_by: Option<&str>) -> bool {
    let Some(rest) = created_by.and_then(|c| c.trim_start().strip_prefix("parquet-mr")) else {
        return false;
    };
    let Some(version) = rest.trim_start().strip_prefix("version") else {
        return true;
    };
    let mut parts = version
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let v = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    v < (1, 2, 9)
}

/// What [`PageReader::poll_compressed`] and [`PageReader::poll_page`] found.
#[derive(Debug)]
pub enum PageStep<T> {
    /// The next page.
    Page(T),
    /// The bytes of this file range are needed first: give them (or a range that starts at
    /// or before it and covers it) with [`PageReader::push`].
    Need(Range<u64>),
    /// The chunk has no more pages.
    End,
}

/// Where the bytes of a decompressed page live ([`PageReader::take_page_bytes`]).
#[derive(Debug)]
pub enum PageBytes {
    /// The page was stored uncompressed: its body, shared with the chunk's bytes.
    Stored(Bytes),
    /// The page was decompressed into this buffer.
    Decompressed(Vec<u8>),
}

/// Reads the pages of one column chunk: see the [module documentation](self).
#[derive(Debug)]
pub struct PageReader {
    /// The chunk bytes held: chunk offsets `held_start..held_start + held.len()`.
    held: Bytes,
    held_start: u64,
    /// A page whose start was held when its end (or its header's) was not: its start (chunk
    /// offset), the bytes held of it, and the end needed; only the rest is asked for, and
    /// joined to them.
    partial: Option<(u64, Bytes, u64)>,
    /// That page joined whole (chunk offsets `carry_start..`), until it is read.
    carry: Bytes,
    carry_start: u64,
    /// Bytes of the chunk.
    chunk_len: u64,
    chunk_offset: u64,
    /// The most bytes asked for at a time when the next page is not held (at least the
    /// page).
    fetch: u64,
    /// With an offset index: no bytes past this chunk offset are asked for (but the page
    /// being read).
    fetch_end: Option<u64>,
    codec: Compression,
    options: PageReaderOptions,
    decompressor: Decompressor,
    buffer: Vec<u8>,
    /// The page last decompressed lives in `buffer` (not borrowed from `body`).
    decompressed: bool,
    /// The stored header and body of the page last decompressed (a `Page` borrows them).
    header_bytes: Bytes,
    body: Bytes,
    /// The next byte to walk (chunk offset).
    pos: u64,
    /// Walking stops here: the chunk end, or the first offset index location.
    walk_end: u64,
    /// The offset index, when given.
    locations: Option<Arc<[PageLocation]>>,
    next_location: usize,
    /// The ordinal of the next page header.
    ordinal: u64,
    dictionary_seen: bool,
    data_pages: u64,
    values_read: u64,
    expected_values: Option<u64>,
    done: bool,
    /// How the pages of an encrypted chunk are decrypted.
    crypto: Option<PageCrypto>,
}

impl PageReader {
    /// A reader of the column chunk `chunk`, which starts at file offset `chunk_offset` and
    /// is compressed with `codec`.
    pub fn new(
        chunk: Bytes,
        chunk_offset: u64,
        codec: Compression,
        options: PageReaderOptions,
    ) -> Self {
        let chunk_len = chunk.len() as u64;
        PageReader {
            held: chunk,
            held_start: 0,
            partial: None,
            carry: Bytes::new(),
            carry_start: 0,
            chunk_len,
            chunk_offset,
            fetch: u64::MAX,
            fetch_end: None,
            codec,
            decompressor: Decompressor::new(options.limits),
            options,
            buffer: Vec::new(),
            decompressed: false,
            header_bytes: Bytes::new(),
            body: Bytes::new(),
            pos: 0,
            walk_end: chunk_len,
            locations: None,
            next_location: 0,
            ordinal: 0,
            dictionary_seen: false,
            data_pages: 0,
            values_read: 0,
            expected_values: None,
            done: false,
            crypto: None,
        }
    }

    /// A reader of the chunk `column` describes, sliced from `bytes` (which hold the file
    /// from offset `bytes_offset` on: the whole file with 0, or a fetched range covering
    /// [`chunk_range`]). The codec and `num_values` come from the chunk's metadata.
    pub fn for_column_chunk(
        bytes: &Bytes,
        bytes_offset: u64,
        column: &ColumnChunk,
        options: PageReaderOptions,
    ) -> Result<Self> {
        let mut range = chunk_range(column)?;
        if options.legacy_dictionary_padding {
            let available = bytes_offset
                .saturating_add(bytes.len() as u64)
                .saturating_sub(range.end);
            range.end += available.min(LEGACY_DICTIONARY_PADDING);
        }
        let wrong = || {
            Error::new(ErrorKind::WrongRange {
                expected_start: range.start,
                expected_len: range.end - range.start,
                got_start: bytes_offset,
                got_len: bytes.len() as u64,
            })
        };
        let start = range.start.checked_sub(bytes_offset).ok_or_else(wrong)?;
        let end = range.end.checked_sub(bytes_offset).ok_or_else(wrong)?;
        let (Ok(s), Ok(e)) = (usize::try_from(start), usize::try_from(end)) else {
            return Err(wrong());
        };
        if e > bytes.len() {
            return Err(wrong());
        }
        let num_values = chunk_num_values(column)?;
        Ok(
            PageReader::new(bytes.slice(s..e), range.start, column.codec(), options)
                .with_num_values(num_values),
        )
    }

    /// A reader of the chunk `column` describes in a file of `file_len` bytes, holding none
    /// of its bytes yet: [`PageReader::poll_compressed`] says which it needs, at most
    /// `fetch` bytes at a time unless a page is larger, and [`PageReader::push`] gives them.
    pub fn streaming(
        column: &ColumnChunk,
        options: PageReaderOptions,
        file_len: u64,
        fetch: u64,
    ) -> Result<Self> {
        let mut range = chunk_range(column)?;
        if options.legacy_dictionary_padding {
            range.end += file_len
                .saturating_sub(range.end)
                .min(LEGACY_DICTIONARY_PADDING);
        }
        if range.end > file_len {
            return Err(Error::at(
                ErrorKind::Inconsistent(format!(
                    "the column chunk {}..{} lies outside the file of {file_len} bytes",
                    range.start, range.end
                )),
                range.start,
            ));
        }
        let num_values = chunk_num_values(column)?;
        let mut reader = PageReader::new(Bytes::new(), range.start, column.codec(), options)
            .with_num_values(num_values);
        reader.chunk_len = range.end - range.start;
        reader.walk_end = reader.chunk_len;
        reader.fetch = fetch.max(1);
        Ok(reader)
    }

    /// Sets the chunk's `num_values`: walking stops once the data pages hold that many, and
    /// a chunk whose pages hold another count is an error.
    pub fn with_num_values(mut self, num_values: u64) -> Self {
        self.expected_values = Some(num_values);
        self
    }

    /// Reads the data pages at the locations of the chunk's offset index
    /// (`OffsetIndexView::page_locations`) instead of walking them. Call it before reading
    /// any page. The locations must lie inside the chunk, in increasing order, without
    /// overlapping; the pages before the first one (the dictionary page) are walked.
    pub fn with_offset_index(mut self, locations: &[PageLocation]) -> Result<Self> {
        if self.ordinal > 0 {
            return Err(Error::new(ErrorKind::InvalidArgument(
                "the offset index must be given before reading pages".to_string(),
            )));
        }
        let chunk_end = self.chunk_offset.saturating_add(self.chunk_len);
        let mut prev_end = self.chunk_offset;
        for (i, loc) in locations.iter().enumerate() {
            let start = u64::try_from(loc.offset).ok();
            let len = u64::try_from(loc.compressed_page_size).ok();
            let ok = match (start, len) {
                (Some(s), Some(l)) => {
                    s >= prev_end && s.checked_add(l).is_some_and(|e| e <= chunk_end)
                }
                _ => false,
            };
            if !ok {
                return Err(Error::at(
                    ErrorKind::Inconsistent(format!(
                        "offset index page {i} at {} ({} bytes) is not inside the column chunk \
                         {}..{chunk_end} after the previous page",
                        loc.offset, loc.compressed_page_size, self.chunk_offset
                    )),
                    start.unwrap_or(self.chunk_offset),
                ));
            }
            // Checked above: both are non-negative and end inside the chunk.
            prev_end = loc.offset as u64 + loc.compressed_page_size as u64;
        }
        self.walk_end = locations
            .first()
            .map_or(self.chunk_len, |l| l.offset as u64 - self.chunk_offset);
        self.locations = Some(Arc::from(locations));
        Ok(self)
    }

    /// Decrypts the pages with `decryptor` (the chunk's, from the footer's
    /// [`FileDecryptor`](crate::format::crypto::FileDecryptor)); `has_dictionary`: the chunk
    /// starts with a dictionary page (its `dictionary_page_offset` is set).
    pub fn with_decryptor(
        mut self,
        decryptor: crate::format::crypto::ColumnDecryptor,
        has_dictionary: bool,
    ) -> Self {
        self.crypto = Some(PageCrypto {
            decryptor,
            has_dictionary,
            headers: bytes::BytesMut::new(),
            bodies: bytes::BytesMut::new(),
        });
        self
    }

    /// Reuses `decompressor` (e.g. from the previous chunk's reader, see
    /// [`PageReader::into_parts`]).
    pub fn with_decompressor(mut self, decompressor: Decompressor) -> Self {
        self.decompressor = decompressor;
        self
    }

    /// Reuses `buffer`'s allocation for decompressed pages, and its bytes: the codecs that
    /// need an initialized destination overwrite them instead of zeroing that much first.
    pub fn with_buffer(mut self, buffer: Vec<u8>) -> Self {
        self.buffer = buffer;
        self
    }

    /// Puts `buffer` in place of the decompression buffer (see [`PageReader::with_buffer`])
    /// and returns the one it replaces.
    pub fn replace_buffer(&mut self, buffer: Vec<u8>) -> Vec<u8> {
        std::mem::replace(&mut self.buffer, buffer)
    }

    /// The bytes the page last decompressed borrows ([`Page::buffer`]), to keep past the
    /// next call: the stored body, shared, when the page was not compressed; otherwise the
    /// decompression buffer itself, moved out (the next page decompresses into a new one).
    /// Call it before [`PageReader::end_page`].
    pub fn take_page_bytes(&mut self) -> PageBytes {
        if self.decompressed {
            self.decompressed = false;
            PageBytes::Decompressed(std::mem::take(&mut self.buffer))
        } else {
            PageBytes::Stored(self.body.clone())
        }
    }

    /// The decompressor and the page buffer, to reuse for the next chunk.
    pub fn into_parts(self) -> (Decompressor, Vec<u8>) {
        (self.decompressor, self.buffer)
    }

    /// The file offset of the chunk.
    pub fn chunk_offset(&self) -> u64 {
        self.chunk_offset
    }

    /// The codec of the chunk.
    pub fn codec(&self) -> Compression {
        self.codec
    }

    /// The options in force.
    pub fn options(&self) -> &PageReaderOptions {
        &self.options
    }

    /// Page headers read so far (every page type).
    pub fn pages_read(&self) -> u64 {
        self.ordinal
    }

    /// Data pages read so far.
    pub fn data_pages_read(&self) -> u64 {
        self.data_pages
    }

    /// Values (nulls included) of the data pages read so far.
    pub fn values_read(&self) -> u64 {
        self.values_read
    }

    /// The rows of the next data page, from the offset index (`row_group_rows`: the rows
    /// of the chunk's row group, which end the last page), when the pages before the first
    /// location (the dictionary page) have been read; `None` otherwise.
    pub fn next_page_rows(&self, row_group_rows: u64) -> Option<u64> {
        if self.done || self.pos < self.walk_end {
            return None;
        }
        let locations = self.locations.as_ref()?;
        let first = u64::try_from(locations.get(self.next_location)?.first_row_index).ok()?;
        let end = match locations.get(self.next_location + 1) {
            Some(next) => u64::try_from(next.first_row_index).ok()?,
            None => row_group_rows,
        };
        end.checked_sub(first)
    }

    /// Skips the next data page without reading it (see [`PageReader::next_page_rows`]).
    /// The chunk's `num_values` is no longer checked.
    pub fn skip_page(&mut self) {
        if self.pos >= self.walk_end
            && self
                .locations
                .as_ref()
                .is_some_and(|l| self.next_location < l.len())
        {
            self.next_location += 1;
            self.ordinal += 1;
            self.expected_values = None;
        }
    }

    /// Sets how many bytes are asked for at a time when the next page is not held (at least
    /// the page).
    pub fn set_fetch(&mut self, fetch: u64) {
        self.fetch = fetch.max(1);
    }

    /// The capacity of the reused decompression buffer.
    pub fn buffer_capacity(&self) -> usize {
        self.buffer.capacity()
    }

    /// After the page last returned is used: lets go of its file bytes (so that a fetched
    /// range is freed once the pages in it are done), and of the decompression buffer when
    /// it holds more than `keep` bytes (0: any; the next page then allocates its own).
    pub fn end_page(&mut self, keep: usize) {
        self.decompressed = false;
        self.body = Bytes::new();
        self.header_bytes = Bytes::new();
        if keep > 0 && self.buffer.capacity() > keep {
            self.buffer = Vec::new();
        }
    }

    /// The next page, decompressed; `None` after the last. The page borrows the reader.
    pub fn next_page(&mut self) -> Result<Option<Page<'_>>> {
        match self.next_compressed()? {
            Some(page) => self.decompress(page).map(Some),
            None => Ok(None),
        }
    }

    /// The next page as stored (header decoded and checked, body sliced from the chunk
    /// bytes); `None` after the last. Skipped page types are not returned. Pass the page to
    /// [`PageReader::decompress`], or drop it to skip it without decompressing. A reader
    /// made by [`PageReader::streaming`] that lacks the page's bytes returns an error: use
    /// [`PageReader::poll_compressed`] with it.
    pub fn next_compressed(&mut self) -> Result<Option<CompressedPage>> {
        match self.poll_compressed()? {
            PageStep::Page(p) => Ok(Some(p)),
            PageStep::End => Ok(None),
            PageStep::Need(r) => Err(self.context(Error::at(
                ErrorKind::InvalidArgument(format!(
                    "the bytes {}..{} of the column chunk were not given",
                    r.start, r.end
                )),
                r.start,
            ))),
        }
    }

    /// The next page as stored, or the file range whose bytes it needs first (give them
    /// with [`PageReader::push`] and poll again), or the end of the chunk.
    pub fn poll_compressed(&mut self) -> Result<PageStep<CompressedPage>> {
        if self.done {
            return Ok(PageStep::End);
        }
        let result = self.advance();
        if !matches!(result, Ok(PageStep::Page(_) | PageStep::Need(_))) {
            self.done = true;
        }
        result.map_err(|e| self.context(e))
    }

    /// [`PageReader::poll_compressed`], the page decompressed.
    pub fn poll_page(&mut self) -> Result<PageStep<Page<'_>>> {
        match self.poll_compressed()? {
            PageStep::Page(p) => self.decompress(p).map(PageStep::Page),
            PageStep::Need(r) => Ok(PageStep::Need(r)),
            PageStep::End => Ok(PageStep::End),
        }
    }

    /// Finds the next page to return, walking or following the offset index.
    fn advance(&mut self) -> Result<PageStep<CompressedPage>> {
        loop {
            if self.pos < self.walk_end {
                if self.locations.is_none() && self.reached_expected() {
                    return self.finish();
                }
                let start = self.pos;
                let page = match self.read_at(start, self.walk_end, None)? {
                    PageStep::Page(p) => p,
                    other => return Ok(other),
                };
                self.pos =
                    page.meta.body_offset - self.chunk_offset + page.meta.compressed_size as u64;
                if self.locations.is_some() && page.is_data_page() {
                    return Err(invalid(
                        page.meta.ordinal,
                        page.meta.header_offset,
                        "a data page before the first page of the offset index".to_string(),
                    ));
                }
                if let Some(page) = self.accept(page)? {
                    return Ok(PageStep::Page(page));
                }
            } else if let Some(loc) = self
                .locations
                .as_ref()
                .and_then(|l| l.get(self.next_location))
            {
                // with_offset_index checked that the location lies inside the chunk.
                let start = loc.offset as u64 - self.chunk_offset;
                let end = start + loc.compressed_page_size as u64;
                let page = match self.read_at(start, end, Some(end))? {
                    PageStep::Page(p) => p,
                    other => return Ok(other),
                };
                self.next_location += 1;
                if !page.is_data_page() {
                    return Err(invalid(
                        page.meta.ordinal,
                        page.meta.header_offset,
                        format!(
                            "offset index page {} is a {} page, not a data page",
                            self.next_location - 1,
                            page.page_type()
                        ),
                    ));
                }
                if let Some(page) = self.accept(page)? {
                    return Ok(PageStep::Page(page));
                }
            } else {
                return self.finish();
            }
        }
    }

    /// True when the data pages read hold the chunk's `num_values`.
    fn reached_expected(&self) -> bool {
        self.expected_values
            .is_some_and(|n| self.data_pages > 0 && self.values_read >= n)
    }

    /// The end of the chunk: checks the values counted against `num_values`.
    fn finish(&mut self) -> Result<PageStep<CompressedPage>> {
        match self.expected_values {
            Some(n) if n != self.values_read => Err(invalid(
                self.ordinal,
                self.chunk_offset.saturating_add(self.pos),
                format!(
                    "the chunk's data pages hold {} values, its metadata says {n}",
                    self.values_read
                ),
            )),
            _ => Ok(PageStep::End),
        }
    }

    /// exactly at `end` when `exact` (an offset index location) is given. When its bytes are
    /// not all held, the range to ask for.
    fn read_at(
        &mut self,
        start: u64,
        end: u64,
        exact: Option<u64>,
    ) -> Result<PageStep<CompressedPage>> {
        let ordinal = self.ordinal;
        let header_offset = self.chunk_offset.saturating_add(start);
        // The joined page when it is the one asked for, else the bytes held.
        let from_held = start != self.carry_start || self.carry.is_empty();
        let (buf, buf_start) = match from_held {
            false => (std::mem::take(&mut self.carry), self.carry_start),
            true => (self.held.clone(), self.held_start),
        };
        let held_end = buf_start + buf.len() as u64;
        if start < buf_start || start >= held_end {
            // With an offset index the page's end is known (its location, or for the pages
            // before the first location, that location): the whole page asked for at once.
            let at_least = match exact.is_some() || self.locations.is_some() {
                true => end,
                false => start.saturating_add(1).min(end),
            };
            return Ok(self.need(start, at_least));
        }
        // Both within `buf` (buf_start <= start < held_end, region_end <= held_end).
        let region_end = held_end.min(end);
        let at = (start - buf_start) as usize;
        let region = &buf[at..(region_end - buf_start) as usize];
        let slot = match &self.crypto {
            Some(c) => {
                let data_ordinal = match exact {
                    Some(_) => self.next_location as u64,
                    None => self.data_pages,
                };
                Some(PageSlot::of(c, start, data_ordinal)?)
            }
            None => None,
        };
        let decoded = match (&mut self.crypto, slot) {
            (Some(c), Some(slot)) => c.header(region, slot).map(|(h, n, b)| (h, n, Some(b))),
            _ => PageHeader::decode_prefix(region).map(|(h, n)| (h, n, None)),
        };
        let (header, header_len, plain_header) = match decoded {
            Ok(h) => h,
            Err(e) if region_end < end && !matches!(e.kind(), ErrorKind::Decryption { .. }) => {
                // The header may go on past the bytes held: twice as many (an encrypted
                // header's module, whole).
                let mut more = start
                    .saturating_add(2 * region.len() as u64)
                    .max(start + 1024);
                if self.crypto.is_some() {
                    more = more.max(module_end(region, start).unwrap_or(0));
                }
                let more = more.min(end);
                return Ok(self.need_rest(start, buf.slice(at..), more));
            }
            Err(e) => {
                self.ordinal += 1;
                return Err(in_page(
                    e.rebase(header_offset).with_offset(header_offset),
                    ordinal,
                ));
            }
        };
        let compressed_size = header.compressed_page_size.max(0) as u64;
        let uncompressed_size = header.uncompressed_page_size.max(0) as usize;
        let body_start = start + header_len as u64;
        let body_end = body_start.checked_add(compressed_size);
        let fits = match (body_end, exact) {
            (Some(e), Some(x)) => e == x,
            (Some(e), None) => e <= end,
            (None, _) => false,
        };
        let Some(body_end) = body_end.filter(|_| fits) else {
            self.ordinal += 1;
            let what = if exact.is_some() {
                "the offset index location"
            } else if end == self.chunk_len {
                "the column chunk"
            } else {
                "the space before the first offset index page"
            };
            return Err(invalid(
                ordinal,
                header_offset,
                format!(
                    "header of {header_len} bytes and body of {compressed_size} bytes do not fit \
                     {what} ({} bytes from the header)",
                    end - start
                ),
            ));
        };
        if uncompressed_size > self.options.limits.max_page_bytes {
            self.ordinal += 1;
            return Err(in_page(
                Error::at(
                    ErrorKind::PageTooLarge {
                        page_bytes: uncompressed_size as u64,
                        limit: self.options.limits.max_page_bytes as u64,
                    },
                    header_offset,
                ),
                ordinal,
            ));
        }
        if body_end > held_end {
            return Ok(self.need_rest(start, buf.slice(at..), body_end));
        }
        self.ordinal += 1;
        // Within `buf`: body_end <= held_end.
        let body_at = at + header_len;
        let body_stop = (body_end - buf_start) as usize;
        if from_held && body_end >= held_end {
            // Every byte held is in this page: the fetched range is no longer kept for it.
            self.held = Bytes::new();
        }
        let verify_crc = self.options.verify_crc;
        let (header_bytes, body) = match (&mut self.crypto, slot, plain_header) {
            (Some(c), Some(slot), Some(plain)) => {
                let stored = &buf[body_at..body_stop];
                let meta = PageMeta {
                    ordinal,
                    header_offset,
                    body_offset: header_offset + header_len as u64,
                    header_len,
                    compressed_size: stored.len(),
                    uncompressed_size,
                };
                let body = match verify_crc {
                    true => crc::verify_stored(header.crc.map(|c| c as u32), stored, &meta),
                    false => Ok(()),
                }
                .and_then(|()| c.body(stored, slot))
                .map_err(|e| e.with_offset(meta.body_offset));
                match body {
                    Ok(body) => (plain, body),
                    Err(e) => return Err(self.context(in_page(e, ordinal))),
                }
            }
            _ => (buf.slice(at..body_at), buf.slice(body_at..body_stop)),
        };
        Ok(PageStep::Page(CompressedPage {
            header,
            header_bytes,
            body,
            codec: self.codec,
            meta: PageMeta {
                ordinal,
                header_offset,
                body_offset: header_offset.saturating_add(header_len as u64),
                header_len,
                compressed_size: compressed_size as usize,
                uncompressed_size,
            },
        }))
    }

    /// Checks a page against the page sequence and counts its values; `None` for skipped
    /// page types.
    fn accept(&mut self, page: CompressedPage) -> Result<Option<CompressedPage>> {
        let meta = page.meta;
        let h = &page.header;
        match h.page_type {
            PageType::DictionaryPage => {
                if h.dictionary_page_header.is_none() {
                    return Err(missing_header(&meta, "dictionary_page_header"));
                }
                if self.dictionary_seen {
                    return Err(invalid(
                        meta.ordinal,
                        meta.header_offset,
                        "a second dictionary page".to_string(),
                    ));
                }
                if self.data_pages > 0 {
                    return Err(invalid(
                        meta.ordinal,
                        meta.header_offset,
                        "a dictionary page after a data page".to_string(),
                    ));
                }
                self.dictionary_seen = true;
            }
            PageType::DataPage => {
                let Some(d) = &h.data_page_header else {
                    return Err(missing_header(&meta, "data_page_header"));
                };
                self.count(d.num_values, &meta)?;
            }
            PageType::DataPageV2 => {
                let Some(d) = &h.data_page_header_v2 else {
                    return Err(missing_header(&meta, "data_page_header_v2"));
                };
                // `num_nulls` is not checked against `num_values`: the definition levels
                // say which values are null, and some writers get the count wrong.
                let (rep, def, _) = split_v2_body(&page.body, d, &meta)?;
                // The lengths as checked (negative ones read as 0, as the body is split).
                let levels = rep.len() + def.len();
                if levels > meta.uncompressed_size {
                    return Err(invalid(
                        meta.ordinal,
                        meta.header_offset,
                        format!(
                            "{levels} level bytes exceed the uncompressed page size {}",
                            meta.uncompressed_size
                        ),
                    ));
                }
                self.count(d.num_values, &meta)?;
            }
            // Index pages (written by no known writer) and future page types.
            PageType::IndexPage | PageType::Unknown(_) => return Ok(None),
        }
        Ok(Some(page))
    }

    fn count(&mut self, num_values: i32, meta: &PageMeta) -> Result<()> {
        let n = u64::try_from(num_values).map_err(|_| {
            invalid(
                meta.ordinal,
                meta.header_offset,
                format!("negative num_values {num_values}"),
            )
        })?;
        self.data_pages += 1;
        self.values_read = self.values_read.saturating_add(n);
        Ok(())
    }

    fn context(&self, e: Error) -> Error {
        with_location(e, self.options.row_group, self.options.column)
    }
}

/// Adds the `column[j]` and `row group[i]` frames when known.
fn with_location(mut e: Error, row_group: Option<usize>, column: Option<usize>) -> Error {
    let idx = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    if let Some(c) = column {
        e = e.in_column(idx(c));
    }
    if let Some(g) = row_group {
        e = e.in_row_group(idx(g));
    }
    e
}

#[cold]
fn missing_header(meta: &PageMeta, field: &'static str) -> Error {
    invalid(
        meta.ordinal,
        meta.header_offset,
        format!("the page header has no {field}"),
    )
}

/// Splits a v2 body into (repetition levels, definition levels, stored values).
fn split_v2_body<'b>(
    body: &'b [u8],
    h: &crate::format::metadata::DataPageHeaderV2,
    meta: &PageMeta,
) -> Result<(&'b [u8], &'b [u8], &'b [u8])> {
    let rep = h.repetition_levels_byte_length.max(0) as usize;
    let def = h.definition_levels_byte_length.max(0) as usize;
    if rep.saturating_add(def) > body.len() {
        return Err(invalid(
            meta.ordinal,
            meta.header_offset,
            format!(
                "level lengths {rep} + {def} exceed the page body of {} bytes",
                body.len()
            ),
        ));
    }
    let (levels, values) = body.split_at(rep + def);
    let (r, d) = levels.split_at(rep);
    Ok((r, d, values))
}
