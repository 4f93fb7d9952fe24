//! Pages written out of a [`ColumnWriter`] (to a sink during the chunk, the rest at its end)
//! and the end of its column chunk: its `ColumnChunk` metadata, page indexes and Bloom
//! filter.

use super::*;

impl ColumnWriter {
    /// Closes the chunk of the row group: writes its pages still kept to `out`, and returns
    /// its metadata (byte values into `arena`), page indexes and Bloom filter. `start` is the
    /// file offset of the chunk's first byte: `out`'s next byte follows whatever the chunk
    /// wrote to a sink (see [`write`](Self::write)). The chunk's buffers are released.
    pub fn finish_chunk<W: Write>(
        &mut self,
        out: &mut W,
        start: u64,
        arena: &mut Arena,
        shared: &mut Shared,
    ) -> Result<FinishedChunk> {
        self.flush_page(shared)?;
        self.write_out(out, shared)?;
        let codec = self.settings.codec.compression();
        let mut chunk = ColumnChunk::new(self.physical, codec);
        let dict_offset = self.chunk.dict_bytes.map(|_| start);
        let data_start = start + self.chunk.dict_bytes.unwrap_or(0);
        let as_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        chunk.set_num_values(as_i64(self.chunk.values));
        chunk.set_sizes(
            as_i64(self.chunk.uncompressed),
            as_i64(self.chunk.compressed),
        );
        chunk.set_data_page_offset(as_i64(data_start));
        chunk.set_dictionary_page_offset(dict_offset.map(as_i64));
        // Encodings as parquet-cpp lists them.
        let mut encodings = EncodingList::new();
        let mut add = |e: Encoding| {
            if !encodings.contains(e) {
                encodings.push(e);
            }
        };
        if dict_offset.is_some() {
            add(Encoding::Plain);
        }
        add(Encoding::Rle);
        for (e, _) in &self.chunk.data_pages {
            add(*e);
        }
        chunk.set_encodings(encodings);
        let mut stats = Vec::with_capacity(1 + self.chunk.data_pages.len());
        if dict_offset.is_some() {
            stats.push(PageEncodingStats {
                page_type: PageType::DictionaryPage,
                encoding: Encoding::Plain,
                count: 1,
            });
        }
        let data_type = match self.version {
            DataPageVersion::V1 => PageType::DataPage,
            DataPageVersion::V2 => PageType::DataPageV2,
        };
        for (e, c) in &self.chunk.data_pages {
            stats.push(PageEncodingStats {
                page_type: data_type,
                encoding: *e,
                count: *c,
            });
        }
        chunk.set_encoding_stats(&stats, arena);
        if self.settings.statistics != StatisticsLevel::None {
            chunk.set_statistics(
                self.chunk
                    .stats
                    .to_statistics(arena, self.settings.max_statistics_len),
            );
            if let Some(s) = self.chunk.sizes.to_size_statistics() {
                chunk.set_size_statistics(&s, arena);
            }
            if let Some(s) = self.chunk.geo.as_mut().and_then(|g| g.finish()) {
                chunk.set_geospatial_statistics(&s, arena);
            }
        }
        let offset_index = std::mem::take(&mut self.chunk.offset_index).finish(data_start)?;
        let column_index = self
            .chunk
            .column_index
            .take()
            .and_then(ColumnIndexBuilder::finish);
        // A chunk dictionary-encoded throughout holds as many distinct values as its
        // dictionary has entries; the filter is sized for those (as pyarrow sizes it for the
        // distinct values it saw), else for the chunk's values.
        let distinct = match (&self.dict, self.enc.is_dict()) {
            (Some(d), true) => d.len() as u64,
            _ => self.chunk.values,
        };
        let bloom = self.chunk.bloom.take().map(|mut b| {
            if let Some(p) = &self.settings.bloom_filter {
                b.fold_to(p.num_bytes(distinct));
            }
            b
        });
        // Release the chunk's buffers: between chunks a column holds no page data. The
        // bodies' buffer goes on the shelf, for the next chunk that needs one.
        self.chunk.headers = Vec::new();
        // A codec asks for room for its bound (a little over the page's plain bytes) behind
        // the bodies before each page: the plain bytes and a quarter cover that.
        let plain = usize::try_from(self.chunk.uncompressed).unwrap_or(0);
        self.chunk.bodies_hint = plain.saturating_add(plain / 4);
        shared
            .kept_bodies
            .put(std::mem::take(&mut self.chunk.bodies));
        self.values = Vec::new();
        self.indices = Vec::new();
        self.page.seen = Vec::new();
        self.levels.def = Vec::new();
        self.chunk.pages = Vec::new();
        if self.dict.is_some() {
            self.dict_hint = 0;
        }
        self.dict = None;
        self.start_chunk()?;
        Ok(FinishedChunk {
            chunk,
            column_index,
            offset_index,
            bloom,
        })
    }

    /// Takes a page body buffer off `shared`'s shelf when the column compresses or
    /// encrypts its pages and has none (a chunk's start). `whole_chunk`: the chunk's pages
    /// are kept until the row group closes, so room for what the column's last chunk took;
    /// else pages go out as they close, and room for a page does.
    pub(crate) fn take_kept_bodies(&mut self, shared: &mut Shared, whole_chunk: bool) {
        if self.chunk.bodies.capacity() == 0 && !self.bodies_in_values() {
            let want = match (whole_chunk, self.page_bytes) {
                (true, _) | (false, None) => self.chunk.bodies_hint,
                (false, Some(page)) => self.chunk.bodies_hint.min(page),
            };
            self.chunk.bodies = shared.kept_bodies.take(want);
        }
    }

    /// The capacity of the column's page body buffer.
    #[cfg(test)]
    pub(crate) fn bodies_capacity(&self) -> usize {
        self.chunk.bodies.capacity()
    }

    /// Writes the chunk's closed pages to `out`, the dictionary page first when pages use it
    /// and it is not out yet, and empties the buffers that kept them. The open page must be
    /// empty.
    pub(super) fn write_out<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        shared: &mut Shared,
    ) -> Result<()> {
        let dict_used = self
            .chunk
            .data_pages
            .iter()
            .any(|(e, _)| *e == Encoding::RleDictionary);
        if dict_used && self.chunk.dict_bytes.is_none() {
            self.write_dict_page(out, shared)?;
        }
        let bodies = self.chunk_bodies();
        let mut h0 = 0;
        for p in &self.chunk.pages {
            let (Some(header), Some(body)) = (
                self.chunk.headers.get(h0..p.header_end),
                bodies.get(p.body_start..p.body_end),
            ) else {
                return Err(column_error(&self.name, "internal error: page spans"));
            };
            out.write_all(header)?;
            out.write_all(body)?;
            h0 = p.header_end;
        }
        self.chunk.pages.clear();
        self.chunk.headers.clear();
        self.chunk.bodies.clear();
        if self.bodies_in_values() {
            // The bodies were the values buffer: the empty open page starts it again.
            self.values.clear();
            self.begin_page();
        }
        Ok(())
    }

    /// Writes the dictionary page to `out`.
    fn write_dict_page<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        shared: &mut Shared,
    ) -> Result<()> {
        let Some(d) = &self.dict else {
            return Err(self.internal("dictionary page without a dictionary"));
        };
        let name = &self.name;
        let compressor = compressor(&mut shared.compressors, self.compressor, name)?;
        let plain = &mut shared.body;
        plain.clear();
        d.write_page(plain)?;
        let body: &[u8] = if compressor.codec() == Compression::Uncompressed {
            plain
        } else {
            shared.packed.clear();
            compressor.compress(plain, &mut shared.packed)?;
            &shared.packed
        };
        let fit = |v: usize| {
            i32::try_from(v).map_err(|_| {
                column_error(
                    name,
                    format_args!("a dictionary page of {v} bytes or entries does not fit an i32"),
                )
            })
        };
        // Encrypted: the body as its module, the header sealed after it is encoded.
        let mut module = Vec::new();
        let body: &[u8] = match &self.encryptor {
            Some(e) => {
                e.encrypt(ModuleType::DictionaryPage, 0, body, &mut module)?;
                &module
            }
            None => body,
        };
        let header = PageHeader {
            page_type: PageType::DictionaryPage,
            uncompressed_page_size: fit(plain.len())?,
            compressed_page_size: fit(body.len())?,
            crc: self.crc.then(|| crc32fast::hash(body) as i32),
            data_page_header: None,
            index_page_header: None,
            dictionary_page_header: Some(DictionaryPageHeader {
                num_values: fit(d.len())?,
                encoding: Encoding::Plain,
                is_sorted: None,
                unknown: UnknownFields::default(),
            }),
            data_page_header_v2: None,
            unknown: UnknownFields::default(),
        };
        let mut h = Vec::new();
        header.encode(&mut Writer::new(&mut h), &[]);
        if let Some(e) = &self.encryptor {
            let mut sealed = Vec::with_capacity(h.len() + 32);
            e.encrypt(ModuleType::DictionaryPageHeader, 0, &h, &mut sealed)?;
            h = sealed;
        }
        out.write_all(&h)?;
        out.write_all(body)?;
        self.chunk.dict_bytes = Some((h.len() + body.len()) as u64);
        self.chunk.uncompressed += (h.len() + plain.len()) as u64;
        self.chunk.compressed += (h.len() + body.len()) as u64;
        Ok(())
    }
}

/// What a column writer learnt of its last chunk to size the next one's buffers: kept by a
/// file writer that drops a column's writer between chunks (see its parked columns) and
/// given to the writer made for the next chunk. Sizes only: the bytes written are the same
/// without them.
#[derive(Debug, Clone, Copy)]
pub struct ColumnHints {
    dict: usize,
    bodies: usize,
    levels_room: usize,
    last_page_values: usize,
}

impl ColumnWriter {
    /// The sizes learnt so far, for [`ColumnWriter::restore_hints`].
    pub fn hints(&self) -> ColumnHints {
        ColumnHints {
            dict: self.dict_hint,
            bodies: self.chunk.bodies_hint,
            levels_room: self.levels_room,
            last_page_values: self.last_page_values,
        }
    }

    /// Takes the sizes another writer of the same column learnt, before the chunk's first
    /// write.
    pub fn restore_hints(&mut self, hints: ColumnHints) {
        self.dict_hint = hints.dict;
        self.chunk.bodies_hint = hints.bodies;
        self.levels_room = hints.levels_room;
        self.last_page_values = hints.last_page_values;
        if self.values.is_empty() {
            // The open page's room for levels, made again with the column's own size.
            self.begin_page();
        }
    }
}
