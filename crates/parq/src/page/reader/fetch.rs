//! How a streaming [`PageReader`] gets its bytes: what it asks for ([`PageReader::need`],
//! bounded by [`PageReader::limit_fetch_rows`] with an offset index), and the bytes pushed to
//! it ([`PageReader::push`]), a page whose start was held joined to its rest.

use bytes::Bytes;

use super::{CompressedPage, PageReader, PageStep};

impl PageReader {
    /// Gives the reader the file bytes `bytes`, starting at file offset `offset` (what
    /// [`PageStep::Need`] asked for, or more). The bytes held before are dropped.
    pub fn push(&mut self, offset: u64, bytes: Bytes) {
        let chunk_end = self.chunk_offset.saturating_add(self.chunk_len);
        let start = offset.max(self.chunk_offset);
        let end = offset.saturating_add(bytes.len() as u64).min(chunk_end);
        if start >= end {
            self.held = Bytes::new();
            return;
        }
        // Both within `bytes` (start >= offset, end <= offset + len).
        let (s, e) = ((start - offset) as usize, (end - offset) as usize);
        self.held = bytes.slice(s..e);
        self.held_start = start - self.chunk_offset;
        // The rest of a page whose start was held before: joined to it (one page copied).
        if let Some((page_start, head, page_end)) = self.partial.take() {
            let head_end = page_start + head.len() as u64;
            let held_end = self.held_start + self.held.len() as u64;
            if self.held_start > page_start && self.held_start <= head_end && held_end >= page_end {
                // Within `held`: held_start <= head_end <= page_end <= held_end.
                let rest = &self.held
                    [(head_end - self.held_start) as usize..(page_end - self.held_start) as usize];
                let mut page = Vec::with_capacity(head.len() + rest.len());
                page.extend_from_slice(&head);
                page.extend_from_slice(rest);
                self.carry = Bytes::from(page);
                self.carry_start = page_start;
            }
        }
    }

    /// With an offset index, bounds the bytes asked for next to the pages that hold the next
    /// `rows` rows (from the next page to read on), or to the pages before the first
    /// location (the dictionary page) while they are read; so that pages a reader will skip
    /// are not fetched. Without one, does nothing.
    pub fn limit_fetch_rows(&mut self, rows: u64) {
        self.fetch_end = None;
        let Some(locations) = &self.locations else {
            return;
        };
        if self.pos < self.walk_end {
            self.fetch_end = Some(self.walk_end);
            return;
        }
        let Some(first) = locations.get(self.next_location) else {
            return;
        };
        let target = first
            .first_row_index
            .saturating_add(i64::try_from(rows).unwrap_or(i64::MAX));
        let mut last = first;
        for loc in locations.iter().skip(self.next_location + 1) {
            if loc.first_row_index >= target {
                break;
            }
            last = loc;
        }
        // with_offset_index checked that every location lies inside the chunk.
        let start = u64::try_from(last.offset).unwrap_or(0);
        let end = start.saturating_add(u64::try_from(last.compressed_page_size).unwrap_or(0));
        self.fetch_end = Some(end.saturating_sub(self.chunk_offset));
    }

    /// The file range to ask for when the bytes from chunk offset `start` to at least
    /// `at_least` are not held: `fetch` bytes from `start` or up to `at_least` if more,
    /// within the chunk and the limit of [`PageReader::limit_fetch_rows`].
    pub(super) fn need(&self, start: u64, at_least: u64) -> PageStep<CompressedPage> {
        let mut end = start
            .saturating_add(self.fetch)
            .max(at_least)
            .min(self.chunk_len);
        if let Some(limit) = self.fetch_end {
            end = end.min(limit.max(at_least));
        }
        PageStep::Need(self.chunk_offset + start..self.chunk_offset + end)
    }

    /// Like [`PageReader::need`] when the bytes `held` from `start` on are held already: only
    /// what follows them is asked for, and [`PageReader::push`] joins it to them.
    pub(super) fn need_rest(
        &mut self,
        start: u64,
        held: Bytes,
        at_least: u64,
    ) -> PageStep<CompressedPage> {
        let held_end = start + held.len() as u64;
        self.partial = Some((start, held, at_least));
        match self.need(start, at_least) {
            PageStep::Need(r) => PageStep::Need(r.start.max(self.chunk_offset + held_end)..r.end),
            other => other,
        }
    }
}
