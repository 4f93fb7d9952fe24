//! Decoding a `ColumnChunk` from Thrift: the general decoder (any field order, rare and
//! unknown fields), `ColumnMetaData` and `Statistics` straight into the compact struct, and
//! the fast path ([`super::fast`]) tried first.

use super::*;

impl ColumnChunk {
    /// Decodes a `ColumnChunk` struct. Byte values are copied into `arena` when given, else
    /// kept as ranges of the reader's buffer.
    pub(crate) fn decode(
        r: &mut Reader<'_>,
        arena: Option<&mut Arena>,
        keep: ChunkKeep,
    ) -> Result<ColumnChunk> {
        let mut c = ColumnChunk::default();
        Self::decode_in(&mut c, r, arena, keep)?;
        Ok(c)
    }

    /// Replaces this chunk's `ColumnMetaData` by the standalone struct encoded in `plain` (an
    /// encrypted column's `encrypted_column_metadata` once decrypted), its byte values copied
    /// into `arena`; the chunk's own fields (file path, index locations, crypto metadata)
    /// stay.
    pub(crate) fn replace_meta(
        &mut self,
        plain: &[u8],
        arena: &mut Arena,
        keep: ChunkKeep,
        limits: crate::thrift::Limits,
    ) -> Result<()> {
        const CHUNK_FLAGS: u32 = flag::OI_OFFSET | flag::OI_LEN | flag::CI_OFFSET | flag::CI_LEN;
        let mut c = ColumnChunk {
            file_offset: self.file_offset,
            offset_index_offset: self.offset_index_offset,
            offset_index_length: self.offset_index_length,
            column_index_offset: self.column_index_offset,
            column_index_length: self.column_index_length,
            flags: self.flags & CHUNK_FLAGS,
            ..Default::default()
        };
        if let Some(e) = self.extras.as_deref() {
            c.extras = Some(Box::new(ChunkExtras {
                file_path: e.file_path,
                crypto_metadata: e.crypto_metadata,
                encrypted_column_metadata: e.encrypted_column_metadata,
                unknown_chunk: e.unknown_chunk.clone(),
                ..Default::default()
            }));
        }
        let mut r = Reader::with_limits(plain, limits);
        r.enter()?;
        c.decode_meta(&mut r, &mut Some(arena), keep)?;
        r.leave();
        *self = c;
        Ok(())
    }

    /// Skips a `ColumnChunk` struct: with the fast path when it has the common layout, else
    /// with the generic skip.
    #[inline]
    pub(crate) fn skip(r: &mut Reader<'_>) -> Result<()> {
        let start = r.pos();
        if Self::skip_fast(r).is_some() {
            return Ok(());
        }
        r.set_pos(start);
        r.skip_struct()
    }

    /// Like [`ColumnChunk::decode`], but appends the chunk to `out`, decoding it in place
    /// rather than moving it there. On error `out` is left as it was.
    #[inline]
    pub(crate) fn decode_push(
        r: &mut Reader<'_>,
        arena: Option<&mut Arena>,
        keep: ChunkKeep,
        out: &mut Vec<ColumnChunk>,
    ) -> Result<()> {
        let i = out.len();
        out.push(ColumnChunk::default());
        let res = Self::decode_in(&mut out[i], r, arena, keep);
        if res.is_err() {
            out.truncate(i);
        }
        res
    }

    /// Decodes into `c`, which must be `ColumnChunk::default()`: with the fast path when the
    /// chunk has the common layout, else with the general decoder.
    #[inline(always)]
    pub(super) fn decode_in(
        c: &mut ColumnChunk,
        r: &mut Reader<'_>,
        mut arena: Option<&mut Arena>,
        keep: ChunkKeep,
    ) -> Result<()> {
        let start = r.pos();
        let mark = arena.as_deref().map_or(0, Arena::len);
        if Self::decode_fast(c, r, &mut arena, keep).is_some() {
            return Ok(());
        }
        // Not the common layout (or an error): rewind and decode with the general decoder.
        r.set_pos(start);
        if let Some(a) = arena.as_deref_mut() {
            a.truncate(mark);
        }
        *c = Self::decode_general(r, arena, keep)?;
        Ok(())
    }

    /// The general `ColumnChunk` decoder: any field order, rare and unknown fields, exact
    /// errors.
    #[inline(never)]
    pub(super) fn decode_general(
        r: &mut Reader<'_>,
        mut arena: Option<&mut Arena>,
        keep: ChunkKeep,
    ) -> Result<ColumnChunk> {
        let mut c = ColumnChunk::default();
        let mut id = 0i16;
        let mut has_file_offset = false;
        // No depth check: the nesting of ColumnChunk > ColumnMetaData > Statistics is fixed
        // by this code; only skipped unknown values recurse, and the skip checks depth.
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::NAME)),
            };
            let res = match (id, ty) {
                (1, wire::BINARY) => {
                    keep_binary(r, &mut arena, None).map(|v| c.extras_mut().file_path = Some(v))
                }
                (2, wire::I64) => r.read_i64().map(|v| {
                    c.file_offset = v;
                    has_file_offset = true;
                }),
                (3, wire::STRUCT) => c.decode_meta(r, &mut arena, keep),
                (4, wire::I64) => r.read_i64().map(|v| {
                    c.offset_index_offset = v;
                    c.flags |= flag::OI_OFFSET;
                }),
                (5, wire::I32) => r.read_i32().map(|v| {
                    c.offset_index_length = v;
                    c.flags |= flag::OI_LEN;
                }),
                (6, wire::I64) => r.read_i64().map(|v| {
                    c.column_index_offset = v;
                    c.flags |= flag::CI_OFFSET;
                }),
                (7, wire::I32) => r.read_i32().map(|v| {
                    c.column_index_length = v;
                    c.flags |= flag::CI_LEN;
                }),
                (8, wire::STRUCT) => {
                    keep_raw(r, &mut arena, ty).map(|v| c.extras_mut().crypto_metadata = Some(v))
                }
                (9, wire::BINARY) => keep_binary(r, &mut arena, None)
                    .map(|v| c.extras_mut().encrypted_column_metadata = Some(v)),
                _ => {
                    let a = arena.as_deref_mut();
                    c.extras_mut().unknown_chunk.keep(r, a, id, ty)
                }
            };
            if let Err(e) = res {
                return Err(e.in_field(Self::NAME, id));
            }
        }
        if !has_file_offset {
            return Err(missing(r, Self::NAME, "file_offset"));
        }
        Ok(c)
    }

    pub(super) fn decode_meta(
        &mut self,
        r: &mut Reader<'_>,
        arena: &mut Option<&mut Arena>,
        keep: ChunkKeep,
    ) -> Result<()> {
        // Required fields seen, as bits of their ids.
        const REQUIRED: u32 =
            (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 9);
        let mut seen = 0u32;
        let mut id = 0i16;
        self.flags |= flag::META;
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::META)),
            };
            let res = match (id, ty) {
                (1, wire::I32) => r.read_i32().map(|v| {
                    let (_, c) = self.type_codec_i32();
                    self.set_type_codec(v, c);
                }),
                (2, wire::LIST) => self.decode_encodings(r),
                (3, wire::LIST) => skip_path(r),
                (4, wire::I32) => r.read_i32().map(|v| {
                    let (t, _) = self.type_codec_i32();
                    self.set_type_codec(t, v);
                }),
                (5, wire::I64) => r.read_i64().map(|v| self.num_values = v),
                (6, wire::I64) => r.read_i64().map(|v| self.total_uncompressed_size = v),
                (7, wire::I64) => r.read_i64().map(|v| self.total_compressed_size = v),
                (8, wire::LIST) => {
                    keep_raw(r, arena, ty).map(|v| self.extras_mut().key_value_metadata = Some(v))
                }
                (9, wire::I64) => r.read_i64().map(|v| self.data_page_offset = v),
                (10, wire::I64) => r
                    .read_i64()
                    .map(|v| self.extras_mut().index_page_offset = Some(v)),
                (11, wire::I64) => r.read_i64().map(|v| {
                    self.dictionary_page_offset = v;
                    self.flags |= flag::DICT_OFFSET;
                }),
                (12, wire::STRUCT) if keep.statistics => self.decode_statistics(r, arena),
                (13, wire::LIST) if keep.encoding_stats => {
                    let start = r.pos();
                    r.skip_field(ty).map(|_| {
                        self.flags |= self.keep_encoding_stats(r.buf(), start, r.pos(), arena);
                    })
                }
                (14, wire::I64) => r
                    .read_i64()
                    .map(|v| self.extras_mut().bloom_filter_offset = Some(v)),
                (15, wire::I32) => r
                    .read_i32()
                    .map(|v| self.extras_mut().bloom_filter_length = Some(v)),
                (16, wire::STRUCT) if keep.size_statistics => {
                    let start = r.pos();
                    r.skip_field(ty).map(|_| {
                        self.flags |= self.keep_size_statistics(r.buf(), start, r.pos(), arena);
                    })
                }
                (17, wire::STRUCT) if keep.geospatial_statistics => keep_raw(r, arena, ty)
                    .map(|v| self.extras_mut().geospatial_statistics = Some(v)),
                (12, wire::STRUCT) | (13, wire::LIST) | (16 | 17, wire::STRUCT) => r.skip_field(ty),
                _ => {
                    let a = arena.as_deref_mut();
                    self.extras_mut().unknown_meta.keep(r, a, id, ty)
                }
            };
            if let Err(e) = res {
                return Err(e.in_field(Self::META, id));
            }
            if (1..=9).contains(&id) {
                seen |= 1 << id;
            }
        }
        if seen & REQUIRED != REQUIRED {
            let name = match (!seen & REQUIRED).trailing_zeros() {
                1 => "type",
                2 => "encodings",
                3 => "path_in_schema",
                4 => "codec",
                5 => "num_values",
                6 => "total_uncompressed_size",
                7 => "total_compressed_size",
                _ => "data_page_offset",
            };
            return Err(missing(r, Self::META, name));
        }
        Ok(())
    }

    #[inline]
    pub(super) fn decode_encodings(&mut self, r: &mut Reader<'_>) -> Result<()> {
        let n = r.read_list_len()?;
        let mut list = EncodingList::new();
        for _ in 0..n {
            list.push(crate::metadata::Encoding::from_thrift(r.read_i32()?));
        }
        self.set_encodings(list);
        Ok(())
    }

    /// Decodes `Statistics` straight into the chunk (the hot path of footer decoding).
    pub(super) fn decode_statistics(
        &mut self,
        r: &mut Reader<'_>,
        arena: &mut Option<&mut Arena>,
    ) -> Result<()> {
        const NAME: &str = "Statistics";
        let mut f = self.flags | flag::STATS;
        let mut id = 0i16;
        // The bounds as read (deprecated and current), stored in their slots at the end.
        let (mut dep_max, mut dep_min, mut new_max, mut new_min) = (None, None, None, None);
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(NAME)),
            };
            let res = match (id, ty) {
                (1, wire::BINARY) => keep_binary(r, arena, new_max).map(|v| dep_max = Some(v)),
                (2, wire::BINARY) => keep_binary(r, arena, new_min).map(|v| dep_min = Some(v)),
                (3, wire::I64) => r.read_i64().map(|v| {
                    f |= flag::NULL_COUNT;
                    f = self.set_null_count(f, v);
                }),
                (5, wire::BINARY) => keep_binary(r, arena, dep_max).map(|v| new_max = Some(v)),
                (6, wire::BINARY) => keep_binary(r, arena, dep_min).map(|v| new_min = Some(v)),
                (7, wire::BOOL_TRUE) => {
                    f |= flag::MAX_EXACT_SET | flag::MAX_EXACT;
                    Ok(())
                }
                (7, wire::BOOL_FALSE) => {
                    f = (f | flag::MAX_EXACT_SET) & !flag::MAX_EXACT;
                    Ok(())
                }
                (8, wire::BOOL_TRUE) => {
                    f |= flag::MIN_EXACT_SET | flag::MIN_EXACT;
                    Ok(())
                }
                (8, wire::BOOL_FALSE) => {
                    f = (f | flag::MIN_EXACT_SET) & !flag::MIN_EXACT;
                    Ok(())
                }
                (4, wire::I64) => r
                    .read_i64()
                    .map(|v| self.extras_mut().distinct_count = Some(v)),
                (9, wire::I64) => r.read_i64().map(|v| f = self.set_nan_count(f, Some(v))),
                _ => {
                    let a = arena.as_deref_mut();
                    self.extras_mut().unknown_stats.keep(r, a, id, ty)
                }
            };
            if let Err(e) = res {
                return Err(e.in_field(NAME, id));
            }
        }
        let buf = match arena {
            Some(a) => a.as_slice(),
            None => r.buf(),
        };
        self.flags = f;
        self.set_bounds(Bound::Max, dep_max, new_max, buf);
        self.set_bounds(Bound::Min, dep_min, new_min, buf);
        Ok(())
    }
}
