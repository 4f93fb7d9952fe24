//! Page assembly of a [`ColumnWriter`]: a data page closed (levels put before its values,
//! v1 or v2 layout, compressed, CRC) and kept in the chunk's buffers with its statistics
//! and index entries, and the room kept for the next page's levels.

use super::*;

impl ColumnWriter {
    /// Closes the open page: assembles, compresses and keeps it in the chunk's buffers, and
    /// records its statistics and index entries.
    pub(super) fn flush_page(&mut self, shared: &mut Shared) -> Result<()> {
        if self.page.values == 0 {
            return Ok(());
        }
        if self.page_base > self.page_start || self.page_start > self.values.len() {
            return Err(self.internal("page buffer"));
        }
        let too_big = |name: &str, what: &str, v: usize| {
            i32::try_from(v).map_err(|_| {
                column_error(
                    name,
                    format_args!("a page {what} of {v} does not fit an i32"),
                )
            })
        };
        let num_values = too_big(&self.name, "value count", self.page.values)?;
        let num_nulls = too_big(&self.name, "null count", self.page.nulls)?;
        let num_rows = too_big(&self.name, "row count", self.page.records)?;
        // Values: everything ends in `self.values`, from `page_start`.
        if let ValueEnc::Dict = self.enc {
            let d = self
                .dict
                .as_ref()
                .ok_or_else(|| column_error(&self.name, "internal error: no dictionary"))?;
            d.write_indices(&self.indices, &mut self.values)?;
            // The chunk's first page decides whether the dictionary pays.
            let encoded = self.values.len() - self.page_start;
            if self.first_page_open()
                && self.indices.len() >= DICTIONARY_TRIAL_VALUES
                && d.size_bytes() + encoded >= d.plain_size(&self.indices)
            {
                self.values.truncate(self.page_start);
                self.give_up_dictionary()?;
            }
            self.indices.clear();
        }
        let encoding = self.enc.encoding();
        match &mut self.enc {
            ValueEnc::Plain(b) => b.reset(),
            ValueEnc::Dict => {}
            ValueEnc::DeltaI32(e) => e.flush(&mut self.values),
            ValueEnc::DeltaI64(e) => e.flush(&mut self.values),
            ValueEnc::DeltaLength(e) => e.flush(&mut self.values),
            ValueEnc::DeltaBytes(e) => e.flush(&mut self.values),
            ValueEnc::Bss(e) => e.flush(&mut self.values),
            ValueEnc::AlpF32(e) => e.flush(&mut self.values)?,
            ValueEnc::AlpF64(e) => e.flush(&mut self.values)?,
            ValueEnc::RleBool(r) => {
                r.flush(&mut self.values);
                rle::end_length_prefix(&mut self.values, self.page_start)?;
            }
        }
        if self.max_def > 0 {
            self.levels.def_enc.flush(&mut self.levels.def);
        }
        // With repetition levels, the page's levels as they go in the body (v1: each kind
        // behind its length) take the place of the definition levels.
        let rep_len = match &mut self.levels.rep {
            Some(r) => {
                r.enc.flush(&mut r.levels);
                let block = &mut r.block;
                block.clear();
                if self.version == DataPageVersion::V1 {
                    push_prefixed(block, &r.levels)?;
                    push_prefixed(block, &self.levels.def)?;
                } else {
                    block.extend_from_slice(&r.levels);
                    block.extend_from_slice(&self.levels.def);
                }
                std::mem::swap(&mut r.block, &mut self.levels.def);
                r.levels.len()
            }
            None => 0,
        };
        // v1 levels still to be put behind their length.
        let prefix = self.max_def > 0 && self.max_rep == 0;
        let name = &self.name;
        let compressor = compressor(&mut shared.compressors, self.compressor, name)?;
        let codec = compressor.codec();
        let plain_body = self.bodies_in_values();
        let levels_len = self.levels.def.len();
        let values_len = self.values.len() - self.page_start;
        // The body: levels right before the values when they fit the room kept there (else
        // a copy: into a scratch buffer before compression, or moving the values on).
        // Uncompressed, the body stays where it is; compressed, it is compressed into
        // `bodies`.
        let (page_type, uncompressed_len, v2_levels_len, body_start, body_end) = match self.version
        {
            DataPageVersion::V1 => {
                let levels = if prefix { 4 + levels_len } else { levels_len };
                let total = levels + values_len;
                let fits = self.page_start - self.page_base >= levels;
                if fits || plain_body {
                    let start = self.put_levels(prefix)?;
                    if plain_body {
                        (PageType::DataPage, total, 0, start, self.values.len())
                    } else {
                        let b = self.chunk.bodies.len();
                        compressor.compress(&self.values[start..], &mut self.chunk.bodies)?;
                        (PageType::DataPage, total, 0, b, self.chunk.bodies.len())
                    }
                } else {
                    // The levels outgrew the room kept for them: assembled in a scratch
                    // buffer (the next pages keep more room).
                    let body = &mut shared.body;
                    body.clear();
                    if prefix {
                        push_prefixed(body, &self.levels.def)?;
                    } else {
                        body.extend_from_slice(&self.levels.def);
                    }
                    body.extend_from_slice(&self.values[self.page_start..]);
                    let b = self.chunk.bodies.len();
                    compressor.compress(body, &mut self.chunk.bodies)?;
                    (PageType::DataPage, total, 0, b, self.chunk.bodies.len())
                }
            }
            DataPageVersion::V2 => {
                let total = levels_len + values_len;
                if plain_body {
                    let start = self.put_levels(false)?;
                    (
                        PageType::DataPageV2,
                        total,
                        levels_len,
                        start,
                        self.values.len(),
                    )
                } else {
                    let b = self.chunk.bodies.len();
                    self.chunk.bodies.extend_from_slice(&self.levels.def);
                    compressor.compress(&self.values[self.page_start..], &mut self.chunk.bodies)?;
                    (
                        PageType::DataPageV2,
                        total,
                        levels_len,
                        b,
                        self.chunk.bodies.len(),
                    )
                }
            }
        };
        // Encrypted: the body becomes its module (the CRC covers the module as stored).
        let ordinal = self.data_page_ordinal()?;
        let body_end = self.seal_body(ModuleType::DataPage, ordinal, body_start, body_end)?;
        let body = self
            .chunk_bodies()
            .get(body_start..body_end)
            .ok_or_else(|| column_error(&self.name, "internal error: page body range"))?;
        let compressed_len = body.len();
        let crc = self.crc.then(|| crc32fast::hash(body) as i32);
        // Page statistics in the header at the `page` level.
        let mut arena = Arena::default();
        let statistics = (self.settings.statistics == StatisticsLevel::Page).then(|| {
            self.page
                .stats
                .to_statistics(&mut arena, self.settings.max_statistics_len)
        });
        let header = PageHeader {
            page_type,
            uncompressed_page_size: too_big(&self.name, "size", uncompressed_len)?,
            compressed_page_size: too_big(&self.name, "size", compressed_len)?,
            crc,
            data_page_header: (page_type == PageType::DataPage).then(|| DataPageHeader {
                num_values,
                encoding,
                definition_level_encoding: Encoding::Rle,
                repetition_level_encoding: Encoding::Rle,
                statistics: statistics.clone(),
                unknown: UnknownFields::default(),
            }),
            index_page_header: None,
            dictionary_page_header: None,
            data_page_header_v2: (page_type == PageType::DataPageV2).then(|| DataPageHeaderV2 {
                num_values,
                num_nulls,
                num_rows,
                encoding,
                definition_levels_byte_length: (v2_levels_len - rep_len) as i32,
                repetition_levels_byte_length: rep_len as i32,
                is_compressed: Some(codec != Compression::Uncompressed),
                statistics: statistics.clone(),
                unknown: UnknownFields::default(),
            }),
            unknown: UnknownFields::default(),
        };
        let header_start = self.chunk.headers.len();
        header.encode(&mut Writer::new(&mut self.chunk.headers), arena.as_slice());
        self.seal_header(ModuleType::DataPageHeader, ordinal, header_start)?;
        let header_len = self.chunk.headers.len() - header_start;
        self.chunk.pages.push(PageSpan {
            header_end: self.chunk.headers.len(),
            body_start,
            body_end,
        });
        // Where the page lands relative to the first data page.
        self.chunk.offset_index.add_page(
            self.chunk.data_bytes,
            header_len + compressed_len,
            self.chunk.records,
            Some(self.page.unencoded),
        )?;
        self.chunk.data_bytes += (header_len + compressed_len) as u64;
        if let Some(ci) = &mut self.chunk.column_index {
            ci.add_page(&self.page.stats, Some(&self.page.sizes));
        }
        self.chunk.stats.merge(&self.page.stats);
        self.chunk.sizes.merge(&self.page.sizes);
        self.page.stats.clear();
        self.page.sizes.clear();
        self.chunk.uncompressed += (header_len + uncompressed_len) as u64;
        self.chunk.compressed += (header_len + compressed_len) as u64;
        self.chunk.values += self.page.values as u64;
        self.chunk.records += self.page.records as u64;
        match self
            .chunk
            .data_pages
            .iter_mut()
            .find(|(e, _)| *e == encoding)
        {
            Some((_, c)) => *c += 1,
            None => self.chunk.data_pages.push((encoding, 1)),
        }
        self.page.values = 0;
        self.page.records = 0;
        self.page.nulls = 0;
        self.page.unencoded = 0;
        self.page.number = self.page.number.wrapping_add(1);
        if self.page.number == 0 {
            // Marks of 2^32 pages ago could be taken for this page's.
            self.page.seen.fill(0);
            self.page.number = 1;
        }
        // Room for the levels of the next page: those of this one, and some slack.
        self.levels_room = levels_len + levels_len / 4 + LEVELS_ROOM;
        self.last_page_values = values_len;
        self.levels.def.clear();
        if let Some(r) = &mut self.levels.rep {
            r.levels.clear();
        }
        if !plain_body {
            self.values.clear();
        }
        self.begin_page();
        Ok(())
    }

    /// The buffer holding the chunk's page bodies: the values buffer when they are not
    /// compressed (each page's body is left where its values were encoded).
    pub(super) fn chunk_bodies(&self) -> &[u8] {
        if self.bodies_in_values() {
            &self.values
        } else {
            &self.chunk.bodies
        }
    }

    /// Starts the values of a page at the end of `values`, after room for its levels (v1:
    /// with their length prefix) when they go before the values in place: uncompressed
    /// pages, and compressed v1 pages (compressed from one contiguous slice).
    pub(super) fn begin_page(&mut self) {
        let room = match (self.version, self.max_def > 0) {
            (_, false) => 0,
            // One length per kind of level.
            (DataPageVersion::V1, true) => {
                4 * (1 + usize::from(self.max_rep > 0)) + self.levels_room
            }
            (DataPageVersion::V2, true) => {
                if self.settings.codec.compression() == Compression::Uncompressed {
                    self.levels_room
                } else {
                    0
                }
            }
        };
        self.page_base = self.values.len();
        if self.values.capacity() == 0 {
            // A new chunk: the room is made at its first write.
            self.room_due = room;
        } else {
            self.values.resize(self.page_base + room, 0);
        }
        self.page_start = self.values.len();
    }

    /// Makes the room a new chunk's first page keeps for its levels, in a buffer sized as the
    /// column's last page (nothing when the buffer already holds bytes).
    pub(super) fn make_due_room(&mut self) {
        if !self.values.is_empty() {
            return;
        }
        // Dictionary indices are kept apart until the page closes.
        let hint = match self.enc {
            ValueEnc::Dict => 0,
            _ => self.last_page_values,
        };
        if self.room_due > 0 || (self.values.capacity() == 0 && hint > 0) {
            let room = std::mem::take(&mut self.room_due);
            self.values.reserve(room + hint);
            self.values.resize(room, 0);
            self.page_base = 0;
            self.page_start = room;
        }
    }

    /// Puts the page's levels right before its values (`prefixed`: behind their 4-byte
    /// length, as v1 pages have them), in the room kept there, else moving the values on
    /// (levels that outgrew the room); returns where the body starts in `values`.
    pub(super) fn put_levels(&mut self, prefixed: bool) -> Result<usize> {
        let len = self.levels.def.len();
        let need = len + if prefixed { 4 } else { 0 };
        let have = self.page_start - self.page_base;
        if have < need {
            self.make_room(need - have);
        }
        let start = self.page_start - need;
        let room = &mut self.values[start..self.page_start];
        room[need - len..].copy_from_slice(&self.levels.def);
        if prefixed {
            rle::end_length_prefix(room, 0)?;
        }
        Ok(start)
    }

    /// Moves the open page's values `extra` bytes on, making room before them.
    #[cold]
    pub(super) fn make_room(&mut self, extra: usize) {
        let end = self.values.len();
        self.values.resize(end + extra, 0);
        self.values
            .copy_within(self.page_start..end, self.page_start + extra);
        self.page_start += extra;
    }
}

/// Appends `data` behind its 4-byte little-endian length (v1 levels).
fn push_prefixed(out: &mut Vec<u8>, data: &[u8]) -> Result<()> {
    let pos = rle::begin_length_prefix(out);
    out.extend_from_slice(data);
    rle::end_length_prefix(out, pos)
}
