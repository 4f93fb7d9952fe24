//! The chunk's dictionary as a [`ColumnWriter`] uses it: its trial on the chunk's first
//! page, its fallback past the size limit, and page statistics from its entries.

use super::*;

/// The most entries a chunk's dictionary is sized for from the chunk before (see
/// `ColumnWriter::dict_hint`).
const MAX_DICT_HINT: usize = 4 * DICTIONARY_TRIAL_VALUES;

impl ColumnWriter {
    /// Adds the dictionary entries of `indices[from..]` to the page statistics and counts
    /// all of them. Under the unsigned byte orders the dictionary finds their least and
    /// greatest entries (`ByteArrayDictEncoder::min_max_entries`); under another order each
    /// distinct entry is added once per page (the minimum and maximum of a page's values are
    /// those of its distinct values).
    pub(super) fn dict_entry_stats(&mut self, from: usize) {
        let (Some(Dict::Bytes(d)), Some(new)) = (&self.dict, self.indices.get(from..)) else {
            return;
        };
        let stats = &mut self.page.stats;
        if matches!(
            stats.order(),
            StatsOrder::Bytes | StatsOrder::Utf8 | StatsOrder::FixedBytes
        ) {
            if let Some((lo, hi)) = d.min_max_entries(new) {
                let bounds = [d.entry(lo as usize), d.entry(hi as usize)];
                stats.update_byte_array_distinct(bounds, new.len() as u64);
            }
            return;
        }
        let PageTally {
            stats,
            number,
            seen,
            ..
        } = &mut self.page;
        seen.resize(d.len(), 0);
        let distinct = new.iter().filter_map(|&i| {
            let mark = seen.get_mut(i as usize)?;
            (*mark != *number).then(|| {
                *mark = *number;
                d.entry(i as usize)
            })
        });
        stats.update_byte_array_distinct(distinct, new.len() as u64);
    }

    /// True if the dictionary passed its size limit (the column falls back).
    pub(super) fn dict_over_limit(&self) -> bool {
        matches!(self.enc, ValueEnc::Dict)
            && self
                .dict
                .as_ref()
                .is_some_and(|d| d.size_bytes() > self.dict_limit)
    }

    /// Switches to the fallback encoding for the rest of the chunk (the dictionary keeps its
    /// entries: it is still written, for the pages that use it; its hash table is freed).
    pub(super) fn fall_back(&mut self) -> Result<()> {
        self.enc = self.value_encoder(self.settings.encoding)?;
        if let Some(d) = &mut self.dict {
            d.release_table();
        }
        Ok(())
    }

    /// True if the chunk's first page has [`DICTIONARY_TRIAL_VALUES`] values or more and
    /// every one is a new dictionary entry (the dictionary would only add its indices).
    pub(super) fn dict_all_distinct(&self) -> bool {
        matches!(self.enc, ValueEnc::Dict)
            && self.first_page_open()
            && self.indices.len() >= DICTIONARY_TRIAL_VALUES
            && self
                .dict
                .as_ref()
                .is_some_and(|d| d.len() == self.indices.len())
    }

    /// Gives up the dictionary of a chunk whose first page is open: the page's values (its
    /// indices) are encoded again with the fallback encoding, which the rest of the chunk
    /// uses, and the dictionary is dropped (no page uses it, none is written).
    pub(super) fn give_up_dictionary(&mut self) -> Result<()> {
        if !self.first_page_open() {
            return Err(self.internal("dictionary to give up"));
        }
        let Some(dict) = self.dict.take() else {
            return Err(self.internal("dictionary to give up"));
        };
        let mut enc = self.value_encoder(self.settings.encoding)?;
        let fixed = (self.physical == PhysicalType::FixedLenByteArray).then_some(self.width);
        dict.reencode(&self.name, &self.indices, &mut enc, &mut self.values, fixed)?;
        self.dict_hint = match dict.len() == self.indices.len() {
            true => dict.len().min(MAX_DICT_HINT),
            false => 0,
        };
        self.enc = enc;
        self.indices = Vec::new();
        Ok(())
    }
}
