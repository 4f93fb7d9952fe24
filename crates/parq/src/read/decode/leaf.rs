//! [`LeafReader`]: one leaf column's chunks, across row groups, into Arrow arrays of whole
//! records, batch by batch, with the definition and repetition levels the nodes above the
//! leaf need.
//!
//! Pages are decoded whole, one at a time, only when the records buffered do not make up
//! the batch asked for: memory grows with the batch and the page, not the row group. Per
//! data page the repetition levels (if any) are decoded first: they say where records
//! start, so a row group's `num_rows` caps the records read from its chunk. The definition
//! levels then give the leaf's slots (levels at least [`ColumnSpec::slot_def_level`]) and
//! their validity (levels at the maximum); the non-null values are decoded densely at the
//! end of the value buffer and spread in place to their slots ([`crate::read::decode::spread`]), so null
//! slots cost no allocation. A top-level leaf keeps no levels: its definition levels go
//! straight into validity bits (1-bit RLE levels through the bitmap path).
//!
//! [`LeafReader::take`] hands out the first records buffered: the array of their slots
//! (every slot in one batch moves the buffers to Arrow without a copy; a part is copied out
//! and the rest dropped from the buffers before the next page is decoded) and their levels.
//! Records are complete only once the next one has started or the chunk has ended, so a
//! record spread over several pages is handed out whole. A reader skips records
//! ([`LeafReader::skip_records`]) by adding them up; they are passed over when it next reads
//! ([`LeafReader::read_records`]), so skips in a row make one.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::ArrayRef;
use bytes::Bytes;

use crate::compression::Decompressor;
use crate::encoding::rle::RleDecoder;
use crate::format::metadata::{Compression, Encoding};
use crate::format::metadata::{FileMetaData, PageLocation};
use crate::page::{DataSections, Levels, Page, PageBytes, PageReader, PageReaderOptions, PageStep};
use crate::read::decode::chunk::{check_chunk, chunk_hint, chunk_of, decrypting, Counts, Current};
use crate::read::decode::convert;
use crate::read::decode::levels::{
    check_max, count_at_least, count_zeros, levels_to_bits, nth_zero, slot_bits,
};
use crate::read::decode::spread::{bits_range, cut_bits, drop_bits};
use crate::read::decode::values::{Hint, Storage};
use crate::read::error::{
    in_page, inconsistent, locate, page_meta, too_many_slots, unsupported_encoding, ConvertError,
    SLOTS,
};
use crate::read::io::pool;
use crate::read::plan::fields::ColumnSpec;
use crate::read::plan::selection::Run;
use crate::{Error, ErrorKind, Result};

/// Options of the reader of one leaf column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColumnOptions {
    /// Verify page CRCs (default false).
    pub verify_crc: bool,
    /// Extend chunks for old parquet-mr files (`page::needs_legacy_dictionary_padding` says
    /// which files).
    pub legacy_dictionary_padding: bool,
    /// The most bytes of decompression buffer kept between pages (0: no limit); a read of
    /// many columns keeps less per column, so that the buffers do not add up to a second
    /// copy of the row group.
    pub buffer_budget: usize,
}

/// One chunk to read: its row group (whose chunk of the leaf exists) and the most records
/// it may give (the row group's `num_rows`; for a leaf without repetition also the chunk's
/// `num_values`).
#[derive(Debug, Clone)]
pub(crate) struct ChunkTask {
    pub row_group: usize,
    pub max_records: usize,
    /// The row group's rows.
    pub rows: u64,
    /// The chunk's offset index, when pages may be skipped by rows.
    pub locations: Option<Arc<[PageLocation]>>,
}

/// Where a leaf's chunk bytes come from: the file's metadata, its length, and how many bytes
/// of a chunk to ask for at a time.
#[derive(Debug, Clone)]
pub(crate) struct ChunkSource {
    pub meta: Arc<FileMetaData>,
    pub file_len: u64,
    pub fetch: u64,
}

/// What [`LeafReader::fill`] ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fill {
    /// The records asked for are buffered, or the chunks have ended.
    Done,
    /// The bytes of this file range are needed first ([`LeafReader::push`]).
    Need(Range<u64>),
}

/// The records handed out by [`LeafReader::take`].
#[derive(Debug)]
pub(crate) struct LeafBatch {
    /// One slot per level at least the slot level.
    pub array: ArrayRef,
    /// Definition levels (empty for a leaf that keeps none).
    pub def: Vec<u16>,
    /// Repetition levels (empty when the maximum is 0).
    pub rep: Vec<u16>,
}

/// The part of a data page a fill wants: `want` more records, after which the caller
/// skips `skip` (their values are passed over undecoded).
#[derive(Debug, Clone, Copy)]
struct Tail {
    want: usize,
    skip: u64,
}

/// Reads one leaf column: see the [module documentation](self).
pub(crate) struct LeafReader {
    spec: ColumnSpec,
    options: ColumnOptions,
    source: ChunkSource,
    tasks: VecDeque<ChunkTask>,
    current: Option<Current>,
    /// Kept from chunk to chunk.
    reuse: Option<(Decompressor, Vec<u8>)>,
    storage: Storage,
    /// Validity bits of the slots buffered (only when a slot may be null).
    validity: Vec<u8>,
    /// Slots buffered, and how many of them were taken already.
    slots: usize,
    taken_slots: usize,
    /// Levels buffered (when kept) and how many were taken.
    def: Vec<u16>,
    rep: Vec<u16>,
    taken_levels: usize,
    /// Records started in the untaken part of the buffers.
    records: usize,
    /// The last record started may go on in the next page.
    open: bool,
    /// Records after the buffered ones already passed over (the tail of a page the caller
    /// said it would skip): the next [`LeafReader::skip`] counts them first.
    ahead: u64,
    /// Records skipped ([`LeafReader::skip_records`]) and not passed over yet: passed over
    /// before the next records are read, so that skips in a row make one.
    pending_skip: u64,
    /// Records and slots handed out so far (absolute positions of the buffers' starts).
    records_out: u64,
    slots_out: u64,
    /// Every chunk finished: (row group, records it gave).
    finished: Vec<(usize, usize)>,
    /// Data pages decoded, and skipped.
    pages: u64,
    pages_skipped: u64,
    /// Values of decoded pages passed over undecoded.
    values_passed_over: u64,
    /// Scratch: decoded levels of one page.
    scratch: Vec<u16>,
    /// (first absolute slot, row group) of recent chunks and (first absolute slot, page
    /// header offset) of recent data pages, to place errors found at the conversion.
    chunk_marks: Vec<(u64, usize)>,
    page_marks: Vec<(u64, u64)>,
}

impl std::fmt::Debug for LeafReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeafReader")
            .field("spec", &self.spec)
            .field("slots", &self.slots)
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

impl Drop for LeafReader {
    /// Gives the decompression buffer back to the [`pool`] for the next read.
    fn drop(&mut self) {
        let current = self.current.take().map(|c| c.pages.into_parts());
        for (_, buffer) in self.reuse.take().into_iter().chain(current) {
            pool::give(buffer);
        }
    }
}

impl LeafReader {
    /// A reader of `spec` over the chunks `tasks` of the file `source` describes.
    pub(crate) fn new(
        spec: ColumnSpec,
        options: ColumnOptions,
        source: ChunkSource,
        tasks: Vec<ChunkTask>,
    ) -> Result<Self> {
        let storage = Storage::for_spec(&spec)?;
        Ok(LeafReader {
            spec,
            options,
            source,
            tasks: tasks.into(),
            current: None,
            reuse: None,
            storage,
            validity: Vec::new(),
            slots: 0,
            taken_slots: 0,
            def: Vec::new(),
            rep: Vec::new(),
            taken_levels: 0,
            records: 0,
            open: false,
            ahead: 0,
            pending_skip: 0,
            records_out: 0,
            slots_out: 0,
            finished: Vec::new(),
            pages: 0,
            pages_skipped: 0,
            values_passed_over: 0,
            scratch: Vec::new(),
            chunk_marks: Vec::new(),
            page_marks: Vec::new(),
        })
    }

    /// The column read.
    pub(crate) fn spec(&self) -> &ColumnSpec {
        &self.spec
    }

    /// Whether a slot may be null: the leaf's maximum definition level is above its slots'.
    fn nullable(&self) -> bool {
        self.spec.max_def_level > self.spec.slot_def_level
    }

    /// Complete records buffered, ready for [`LeafReader::take`].
    pub(crate) fn complete(&self) -> usize {
        self.records - usize::from(self.open && self.records > 0)
    }

    /// Records started so far (taken or buffered), counting one still open.
    pub(crate) fn records_seen(&self) -> u64 {
        self.records_out + self.records as u64 + self.ahead
    }

    /// Every chunk finished so far: (row group, records it gave).
    pub(crate) fn finished(&self) -> &[(usize, usize)] {
        &self.finished
    }

    /// Data pages decoded so far.
    pub(crate) fn pages_read(&self) -> u64 {
        self.pages
    }

    /// Data pages skipped so far (never read).
    pub(crate) fn pages_skipped(&self) -> u64 {
        self.pages_skipped
    }

    /// Values of the pages decoded that were passed over undecoded so far.
    pub(crate) fn values_passed_over(&self) -> u64 {
        self.values_passed_over
    }

    /// Skips `records` records, when the next records are read
    /// ([`LeafReader::read_records`]).
    pub(crate) fn skip_records(&mut self, records: u64) {
        self.pending_skip = self.pending_skip.saturating_add(records);
    }

    /// Passes over the pending skip, then decodes pages until `records` complete records are
    /// buffered or the chunks end, or until the next page's bytes are needed: then
    /// [`LeafReader::push`] them and call it again. A skip past the column's end is an error.
    ///
    /// `run` says what the caller does with the records after the pending skip: it reads
    /// its `Read` rows (these `records` first, and those buffered count) and then runs
    /// `next`. When `next` skips, a flat leaf leaves the values of the page the run ends in
    /// that lie past the run undecoded, and that skip counts them.
    pub(crate) fn read_records(
        &mut self,
        records: usize,
        run: u64,
        next: Option<Run>,
    ) -> Result<Fill> {
        let run = usize::try_from(run).unwrap_or(usize::MAX).max(records);
        let then_skip = Run::skipped(next);
        if self.pending_skip > 0 {
            let tail = Tail {
                want: run,
                skip: then_skip,
            };
            let (done, fill) = self.skip(self.pending_skip, tail)?;
            self.pending_skip -= done;
            match fill {
                Fill::Need(range) => return Ok(Fill::Need(range)),
                Fill::Done if self.pending_skip > 0 => {
                    return Err(inconsistent(format!(
                        "column `{}` ends {} rows before the others",
                        self.spec.path, self.pending_skip
                    )))
                }
                Fill::Done => {}
            }
        }
        self.fill(records, run, then_skip)
    }

    /// Skips up to `records` records: whole pages the offset index shows lie within them are
    /// never read, whole pages of a leaf with one value per row whose header shows they lie
    /// within them are not decompressed, the records of other pages are decoded and dropped. Returns the records
    /// skipped, and whether the next page's bytes are needed to skip more. A page the skip
    /// ends in decodes no more of the records after it than `tail` wants.
    fn skip(&mut self, records: u64, tail: Tail) -> Result<(u64, Fill)> {
        let mut left = records;
        while left > 0 {
            let complete = self.complete() as u64;
            if complete > 0 {
                let n = complete.min(left);
                // n <= complete, a usize.
                self.discard(n as usize);
                left -= n;
                continue;
            }
            if self.ahead > 0 {
                // Passed over after the records just taken (one slot each: a flat leaf).
                let n = self.ahead.min(left);
                self.ahead -= n;
                self.records_out += n;
                self.slots_out += n;
                left -= n;
                continue;
            }
            if self.current.is_none() {
                let Some(task) = self.tasks.pop_front() else {
                    break;
                };
                self.start_chunk(task, 0, &mut true)?;
            }
            if self.records == 0 {
                if let Some(cur) = &mut self.current {
                    let rows = cur.pages.next_page_rows(cur.rows);
                    if let Some(rows) = rows.filter(|&r| r > 0 && r <= left) {
                        cur.pages.skip_page();
                        cur.counts.skipped(rows);
                        self.records_out += rows;
                        self.pages_skipped += 1;
                        left -= rows;
                        continue;
                    }
                }
            }
            let mut skippable = if self.records == 0 { left } else { 0 };
            let before = skippable;
            if let Some(range) = self.next_page(left.saturating_add(1), &mut skippable, tail)? {
                return Ok((records - left, Fill::Need(range)));
            }
            left -= before - skippable;
        }
        Ok((records - left, Fill::Done))
    }

    /// Reserves room for every chunk still to read, from the metadata (to decode them all
    /// into one array).
    pub(crate) fn reserve_all(&mut self) {
        let mut total = Hint::default();
        for t in &self.tasks {
            let Ok(chunk) = chunk_of(&self.source.meta, t.row_group, self.spec.leaf) else {
                continue;
            };
            let h = chunk_hint(chunk, self.source.meta.buf(), self.source.file_len);
            total.values = total.values.saturating_add(h.values);
            total.bytes = total.bytes.saturating_add(h.bytes);
            total.budget = total.budget.saturating_add(h.budget);
        }
        self.reserve(total);
    }

    fn reserve(&mut self, hint: Hint) {
        let values = self.storage.reserve(hint);
        if self.nullable() {
            let want = (self.slots + values).div_ceil(8);
            self.validity
                .reserve(want.saturating_sub(self.validity.len()));
        }
        if self.spec.keep_levels {
            // A chunk's values are its levels.
            self.def.reserve(values);
            if self.spec.max_rep_level > 0 {
                self.rep.reserve(values);
            }
        }
    }

    /// Decodes pages until `records` complete records are buffered or the chunks end, or
    /// until the next page's bytes are needed; `then_skip` records are skipped after the
    /// first `run` (at least `records`).
    fn fill(&mut self, records: usize, run: usize, then_skip: u64) -> Result<Fill> {
        // The open chunk's part of the batch (its buffers may have gone with the last one).
        let want = records.saturating_sub(self.complete());
        let hint = self.current.as_ref().and_then(|c| c.hint_for(want));
        let mut reserved = hint.is_some();
        hint.into_iter().for_each(|h| self.reserve(h));
        while self.complete() < records {
            if self.ahead > 0 {
                return Err(crate::error::internal(format!(
                    "column `{}`: {} records passed over were not skipped",
                    self.spec.path, self.ahead
                )));
            }
            if self.current.is_none() {
                let Some(task) = self.tasks.pop_front() else {
                    break;
                };
                self.start_chunk(task, records.saturating_sub(self.complete()), &mut reserved)?;
            }
            // Up to the page of the record after them, which completes the last.
            let want = records.saturating_sub(self.complete());
            let tail = Tail {
                want: run.saturating_sub(self.complete()),
                skip: then_skip,
            };
            if let Some(range) = self.next_page(want.saturating_add(1) as u64, &mut 0, tail)? {
                return Ok(Fill::Need(range));
            }
        }
        Ok(Fill::Done)
    }

    /// Gives the chunk being read the file bytes `bytes` from file offset `offset` on.
    pub(crate) fn push(&mut self, offset: u64, bytes: Bytes) {
        if let Some(cur) = &mut self.current {
            cur.pages.push(offset, bytes);
        }
    }

    fn start_chunk(&mut self, task: ChunkTask, want: usize, reserved: &mut bool) -> Result<()> {
        let ChunkTask {
            row_group,
            max_records,
            rows,
            locations,
        } = task;
        let leaf = self.spec.leaf;
        let meta = Arc::clone(&self.source.meta);
        let chunk = chunk_of(&meta, row_group, leaf)?;
        let decryptor = check_chunk(&meta, row_group, leaf, chunk, &self.spec.path)
            .map_err(|e| locate(e, row_group, leaf))?;
        let options = PageReaderOptions {
            verify_crc: self.options.verify_crc,
            row_group: Some(row_group),
            column: Some(leaf),
            legacy_dictionary_padding: self.options.legacy_dictionary_padding,
            ..PageReaderOptions::default()
        };
        let (file_len, fetch) = (self.source.file_len, self.source.fetch);
        let pages = PageReader::streaming(chunk, options, file_len, fetch)
            .map_err(|e| locate(e, row_group, leaf))?;
        let mut pages = decrypting(pages, chunk, decryptor);
        if let Some(locations) = &locations {
            // Pages are skipped: ask for one page at a time, not the pages after it.
            pages = pages
                .with_offset_index(locations)
                .map_err(|e| locate(e, row_group, leaf))?;
            pages.set_fetch(1);
        }
        let hint = chunk_hint(chunk, meta.buf(), file_len);
        if let Some((d, b)) = self.reuse.take() {
            pages = pages.with_decompressor(d).with_buffer(b);
        }
        self.compact();
        if !*reserved {
            // Only what the batch's records need, in proportion to the chunk's records.
            self.reserve(hint.part(want, max_records));
            *reserved = true;
        }
        self.chunk_marks.push((
            self.slots_out + (self.slots - self.taken_slots) as u64,
            row_group,
        ));
        self.storage.clear_dictionary();
        self.current = Some(Current {
            pages,
            row_group,
            rows,
            counts: Counts {
                records_left: max_records,
                records: 0,
            },
            hint,
            max_records,
        });
        Ok(())
    }

    /// Decodes the current chunk's next page; ends the chunk after its last. The range of
    /// file bytes the page needs when they are not held (with an offset index, no more than
    /// the pages of the next `rows` rows). A data page of a leaf with one value per row
    /// whose header shows it holds no more than `skippable` rows is skipped without being
    /// decompressed, and its rows taken off `skippable`; of the others, a flat leaf decodes
    /// no more than `tail` wants.
    fn next_page(
        &mut self,
        rows: u64,
        skippable: &mut u64,
        tail: Tail,
    ) -> Result<Option<Range<u64>>> {
        let Some(mut cur) = self.current.take() else {
            return Ok(None);
        };
        cur.pages.limit_fetch_rows(rows);
        let (rg, leaf) = (cur.row_group, self.spec.leaf);
        if cur.counts.records_left == 0 && !self.open {
            self.end_chunk(cur);
            return Ok(None);
        }
        let compressed = match cur.pages.poll_compressed() {
            Ok(PageStep::Page(page)) => page,
            Ok(PageStep::End) => {
                self.end_chunk(cur);
                return Ok(None);
            }
            Ok(PageStep::Need(range)) => {
                self.current = Some(cur);
                return Ok(Some(range));
            }
            Err(e) => return Err(locate(e, rg, leaf)),
        };
        if self.spec.max_rep_level == 0 && compressed.is_data_page() {
            let rows = compressed
                .num_values()
                .filter(|&n| n > 0 && n <= *skippable);
            if let Some(rows) = rows {
                *skippable -= rows;
                cur.counts.skipped(rows);
                self.records_out += rows;
                self.slots_out += rows;
                self.pages_skipped += 1;
                self.current = Some(cur);
                return Ok(None);
            }
        }
        let size = compressed.meta.uncompressed_size;
        if cur.pages.codec() != Compression::Uncompressed && cur.pages.buffer_capacity() < size {
            // A buffer an earlier read let go, rather than fresh memory.
            if let Some(b) = pool::take_page(size) {
                pool::give(cur.pages.replace_buffer(b));
            }
        }
        let page = cur
            .pages
            .decompress(compressed)
            .map_err(|e| locate(e, rg, leaf))?;
        let meta = page_meta(&page);
        let decoded = match page {
            Page::Dictionary(d) => {
                let n = d.num_values();
                match d.encoding() {
                    Encoding::Plain | Encoding::PlainDictionary => {
                        self.storage.load_dictionary(d.buffer, n)
                    }
                    other => Err(unsupported_encoding(other, "a dictionary page")),
                }
            }
            Page::DataV1(p) => {
                self.begin_data_page(meta.header_offset);
                self.storage.view_page(p.encoding(), p.buffer.as_ptr());
                let n = p.num_values();
                p.sections(self.spec.max_rep_level, self.spec.max_def_level)
                    .and_then(|s| {
                        self.decode_data(&mut cur.counts, n, p.encoding(), s, skippable, tail)
                    })
            }
            Page::DataV2(p) => {
                self.begin_data_page(meta.header_offset);
                // The header's `num_nulls` is not checked: some writers get it wrong, and
                // the definition levels are what count (as pyarrow reads such pages).
                self.storage.view_page(p.encoding(), p.values.as_ptr());
                let n = p.num_values();
                p.sections(self.spec.max_rep_level, self.spec.max_def_level)
                    .and_then(|s| {
                        self.decode_data(&mut cur.counts, n, p.encoding(), s, skippable, tail)
                    })
            }
        };
        let kept = decoded.and_then(|()| {
            self.storage
                .adopt_page(|| match cur.pages.take_page_bytes() {
                    PageBytes::Stored(bytes) => bytes.into(),
                    PageBytes::Decompressed(buffer) => pool::buffer(buffer),
                })
        });
        self.storage.end_page();
        if let Err(e) = kept {
            return Err(locate(in_page(e, &meta), rg, leaf));
        }
        cur.pages.end_page(self.options.buffer_budget);
        self.current = Some(cur);
        Ok(None)
    }

    /// Before a data page whose header is at `header_offset`: drops what was taken and
    /// marks where the page's slots start.
    fn begin_data_page(&mut self, header_offset: u64) {
        self.pages += 1;
        self.compact();
        self.page_marks.push((self.next_slot(), header_offset));
    }

    /// The absolute position of the next slot decoded.
    fn next_slot(&self) -> u64 {
        self.slots_out + (self.slots - self.taken_slots) as u64
    }

    fn end_chunk(&mut self, cur: Current) {
        self.open = false;
        self.finished.push((cur.row_group, cur.counts.records));
        self.reuse = Some(cur.pages.into_parts());
    }

    /// Drops what was taken from the buffers' front, before more is decoded behind it.
    fn compact(&mut self) {
        if self.taken_slots > 0 {
            self.storage.discard(self.taken_slots, self.slots);
            if self.nullable() {
                self.validity = bits_range(
                    &self.validity,
                    self.taken_slots,
                    self.slots - self.taken_slots,
                );
            }
            self.slots -= self.taken_slots;
            self.slots_out += self.taken_slots as u64;
            self.taken_slots = 0;
            // Marks before the oldest still needed (the last at or before the buffers'
            // start) are of no more use.
            prune(&mut self.chunk_marks, self.slots_out);
            prune(&mut self.page_marks, self.slots_out);
        }
        if self.taken_levels > 0 {
            self.def.drain(..self.taken_levels.min(self.def.len()));
            self.rep.drain(..self.taken_levels.min(self.rep.len()));
            self.taken_levels = 0;
        }
    }

    /// Decodes a data page of `n` levels: of a flat leaf, not the first `skip` records (taken
    /// off it) nor those past what `tail` wants.
    fn decode_data(
        &mut self,
        cur: &mut Counts,
        n: usize,
        encoding: Encoding,
        sections: DataSections<'_>,
        skip: &mut u64,
        tail: Tail,
    ) -> Result<()> {
        // The levels of the page to read: up to the start of the first record the chunk may
        // no longer give.
        let n = if self.spec.max_rep_level > 0 {
            self.repetition(cur, n, &sections.repetition)?
        } else {
            let n = n.min(cur.records_left);
            cur.records_left -= n;
            cur.records += n;
            self.records += n;
            n
        };
        let start = self.slots;
        let (slots, valid) = if self.spec.keep_levels {
            self.definition_kept(n, &sections.definition)?
        } else {
            let slots = start.checked_add(n).ok_or_else(|| too_many_slots(n))?;
            self.storage.try_room(slots)?;
            let valid = if !self.nullable() {
                n
            } else {
                self.definition_flat(n, &sections.definition)?
            };
            (n, valid)
        };
        // The first records of the page a skip drops, where values can be skipped undecoded.
        let flat = !self.spec.keep_levels && self.spec.max_rep_level == 0;
        let drop = match flat && self.storage.can_skip(encoding) {
            true => usize::try_from(*skip).unwrap_or(usize::MAX).min(n),
            false => 0,
        };
        let (slots, valid, skip_values) = match drop {
            0 => (slots, valid, 0),
            k => {
                // Nothing is buffered (a skip starts with the page): the buffers' start
                // moves past the dropped slots, one per record.
                *skip -= k as u64;
                self.records -= k;
                self.records_out += k as u64;
                self.slots_out += k as u64;
                let valid_k = match self.nullable() {
                    true => drop_bits(&mut self.validity, start, k, n),
                    false => k,
                };
                self.values_passed_over += k as u64;
                (slots - k, valid - valid_k, valid_k)
            }
        };
        // The rest of the page after the records wanted, when the caller skips it next:
        // passed over, and counted by that skip.
        let rest = slots.saturating_sub(tail.want);
        let passes = flat && self.storage.can_skip(encoding) && rest as u64 <= tail.skip;
        let (slots, valid) = if passes && rest > 0 {
            let kept = slots - rest;
            let valid_rest = if self.nullable() {
                cut_bits(&mut self.validity, start + kept, rest)
            } else {
                rest
            };
            self.records -= rest;
            self.ahead += rest as u64;
            self.values_passed_over += rest as u64;
            (kept, valid - valid_rest)
        } else {
            (slots, valid)
        };
        if valid > 0 {
            self.storage
                .decode(encoding, sections.values, skip_values, valid, &self.spec)?;
        }
        if valid < slots {
            self.storage.spread(start, valid, slots, &self.validity);
        }
        self.slots += slots;
        Ok(())
    }

    /// Decodes `n` repetition levels, keeps those of the records the chunk may still give
    /// and returns how many.
    fn repetition(&mut self, cur: &mut Counts, n: usize, levels: &Levels<'_>) -> Result<usize> {
        let from = self.rep.len();
        crate::encoding::try_reserve(SLOTS, &mut self.rep, n)?;
        self.rep.resize(from + n, 0);
        let page = &mut self.rep[from..];
        levels.decoder()?.decode_exact(page)?;
        check_max(page, levels, self.spec.max_rep_level, "repetition")?;
        if cur.records == 0 && page.first().is_some_and(|&r| r != 0) {
            return Err(inconsistent(
                "the first repetition level of a column chunk is not 0".to_string(),
            ));
        }
        let all = count_zeros(page);
        let (keep, starts) = if all <= cur.records_left {
            (n, all)
        } else {
            // Up to the start of the first record the chunk may no longer give.
            let cut = nth_zero(page, cur.records_left).unwrap_or(n);
            (cut, cur.records_left)
        };
        self.rep.truncate(from + keep);
        cur.records_left -= starts;
        cur.records += starts;
        self.records += starts;
        // Unless the page was cut at a record's start, its last record may go on in the
        // next page.
        self.open = keep == n;
        if keep < n {
            cur.records_left = 0;
        }
        Ok(keep)
    }

    /// Decodes `n` definition levels into the kept levels and the slots' validity bits;
    /// returns (slots, valid slots).
    fn definition_kept(&mut self, n: usize, levels: &Levels<'_>) -> Result<(usize, usize)> {
        let nullable = self.nullable();
        let (slot_def, max) = (self.spec.slot_def_level, self.spec.max_def_level);
        let from = self.def.len();
        crate::encoding::try_reserve(SLOTS, &mut self.def, n)?;
        self.def.resize(from + n, 0);
        let page = &mut self.def[from..];
        levels.decoder()?.decode_exact(page)?;
        check_max(page, levels, max, "definition")?;
        let (slots, valid) = if nullable {
            slot_bits(
                page,
                slot_def as u16,
                max as u16,
                &mut self.validity,
                self.slots,
            )
        } else {
            let slots = count_at_least(page, slot_def);
            (slots, slots)
        };
        let total = self
            .slots
            .checked_add(slots)
            .ok_or_else(|| too_many_slots(slots))?;
        self.storage.try_room(total)?;
        Ok((slots, valid))
    }

    /// Decodes `n` definition levels of a top-level leaf into validity bits; returns how
    /// many are set.
    fn definition_flat(&mut self, n: usize, levels: &Levels<'_>) -> Result<usize> {
        let max = self.spec.max_def_level;
        if max == 1 && levels.bit_width == 1 && levels.encoding == Encoding::Rle {
            return RleDecoder::new(levels.data, 1)?.decode_bitmap(
                n,
                &mut self.validity,
                self.slots,
            );
        }
        self.scratch.clear();
        crate::encoding::try_reserve(SLOTS, &mut self.scratch, n)?;
        self.scratch.resize(n, 0);
        levels.decoder()?.decode_exact(&mut self.scratch)?;
        let end = (self.slots + n).div_ceil(8);
        if self.validity.len() < end {
            self.validity.resize(end, 0);
        }
        check_max(&self.scratch, levels, max, "definition")?;
        Ok(levels_to_bits(
            &self.scratch,
            max as u16,
            &mut self.validity,
            self.slots,
        ))
    }

    /// Drops the first `records` complete records (at most [`LeafReader::complete`]) without
    /// making arrays of them.
    fn discard(&mut self, records: usize) {
        let records = records.min(self.complete());
        let (levels, slots) = self.measure(records);
        self.taken_slots += slots;
        if self.spec.keep_levels {
            self.taken_levels += levels;
        }
        self.records -= records;
        self.records_out += records as u64;
        if self.taken_slots == self.slots {
            self.compact();
        }
    }

    /// Hands out the first `records` complete records (at most [`LeafReader::complete`]).
    pub(crate) fn take(&mut self, records: usize) -> Result<LeafBatch> {
        let records = records.min(self.complete());
        let (levels, slots) = self.measure(records);
        let from = self.taken_slots;
        let all = from == 0 && slots == self.slots;
        if !all && from == 0 && !self.spec.keep_levels && slots >= self.slots - slots {
            if let Some(batch) = self.split_head(records, slots)? {
                return Ok(batch);
            }
        }
        let storage = self.storage.take(from, slots, self.slots);
        let validity = if !self.nullable() {
            Vec::new()
        } else if all {
            std::mem::take(&mut self.validity)
        } else {
            bits_range(&self.validity, from, slots)
        };
        let (def, rep) = if self.spec.keep_levels {
            let lv = self.taken_levels;
            let all_levels = lv == 0 && levels == self.def.len();
            let part = |v: &mut Vec<u16>| {
                if all_levels {
                    std::mem::take(v)
                } else {
                    v.get(lv..lv + levels)
                        .map(<[u16]>::to_vec)
                        .unwrap_or_default()
                }
            };
            let def = part(&mut self.def);
            let rep = part(&mut self.rep);
            if all_levels {
                self.taken_levels = 0;
            } else {
                self.taken_levels += levels;
            }
            (def, rep)
        } else {
            (Vec::new(), Vec::new())
        };
        let first_slot = self.slots_out + from as u64;
        if all {
            self.slots = 0;
            self.taken_slots = 0;
            self.slots_out += slots as u64;
        } else {
            self.taken_slots += slots;
        }
        self.records -= records;
        self.records_out += records as u64;
        let array = self.finish(storage, validity, slots, first_slot)?;
        Ok(LeafBatch { array, def, rep })
    }

    /// Hands out the first `records` records, `slots` slots and more than half of those
    /// buffered (none taken before, no levels kept), by moving the buffers out and copying
    /// the rest; `None` when the storage does not split.
    fn split_head(&mut self, records: usize, slots: usize) -> Result<Option<LeafBatch>> {
        let Some(storage) = self.storage.split_head(slots, self.slots) else {
            return Ok(None);
        };
        let validity = if self.nullable() {
            let rest = bits_range(&self.validity, slots, self.slots - slots);
            let mut head = std::mem::replace(&mut self.validity, rest);
            head.truncate(slots.div_ceil(8));
            head
        } else {
            Vec::new()
        };
        let first_slot = self.slots_out;
        self.slots -= slots;
        self.slots_out += slots as u64;
        self.records -= records;
        self.records_out += records as u64;
        let array = self.finish(storage, validity, slots, first_slot)?;
        prune(&mut self.chunk_marks, self.slots_out);
        prune(&mut self.page_marks, self.slots_out);
        Ok(Some(LeafBatch {
            array,
            def: Vec::new(),
            rep: Vec::new(),
        }))
    }

    /// The levels and slots of the first `records` records buffered.
    fn measure(&self, records: usize) -> (usize, usize) {
        if !self.spec.keep_levels {
            return (records, records);
        }
        let def = self.def.get(self.taken_levels..).unwrap_or_default();
        if records == self.records {
            // Every record buffered (none is open: `records` are complete).
            return (def.len(), self.slots - self.taken_slots);
        }
        let levels = if self.spec.max_rep_level == 0 {
            records
        } else {
            let rep = self.rep.get(self.taken_levels..).unwrap_or_default();
            nth_zero(rep, records).unwrap_or(rep.len())
        };
        let slots = count_at_least(
            def.get(..levels).unwrap_or_default(),
            self.spec.slot_def_level,
        );
        (levels, slots)
    }

    /// `storage` as the leaf's Arrow array of `slots` slots, the first of which is absolute
    /// slot `first_slot`; a conversion error names its row group, row and page.
    fn finish(
        &self,
        storage: Storage,
        validity: Vec<u8>,
        slots: usize,
        first_slot: u64,
    ) -> Result<ArrayRef> {
        let nulls = if self.nullable() {
            let nulls = convert::null_buffer(validity, slots);
            (nulls.null_count() > 0).then_some(nulls)
        } else {
            None
        };
        let column = |e: ConvertError| -> Error {
            let kind = |message| ErrorKind::InvalidColumnData {
                column: self.spec.path.clone(),
                message,
            };
            let Some(slot) = e.slot else {
                return Error::new(kind(e.message));
            };
            let slot = first_slot + slot as u64;
            let Some((first, rg)) = find(&self.chunk_marks, slot) else {
                return Error::new(kind(e.message));
            };
            let message = format!("{} (row {} of row group {rg})", e.message, slot - first);
            let err = match find(&self.page_marks, slot) {
                // The header offset of the data page that holds the slot.
                Some((_, offset)) => Error::at(kind(message), offset),
                None => Error::new(kind(message)),
            };
            locate(err, rg, self.spec.leaf)
        };
        storage.finish(slots, nulls, &self.spec).map_err(column)
    }
}

/// The entry of `list` (sorted by first slot) whose range holds `slot`.
fn find<T: Copy>(list: &[(u64, T)], slot: u64) -> Option<(u64, T)> {
    let i = list.partition_point(|&(s, _)| s <= slot);
    i.checked_sub(1).and_then(|i| list.get(i).copied())
}

/// Drops the marks before the last one at or before `slot`.
fn prune<T>(marks: &mut Vec<(u64, T)>, slot: u64) {
    let i = marks.partition_point(|&(s, _)| s <= slot);
    if i > 1 {
        marks.drain(..i - 1);
    }
}
