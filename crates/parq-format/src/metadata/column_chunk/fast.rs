//! The fast path of column chunk decoding.
//!
//! Footers are dominated by column chunks that every writer lays out the same way: fields in
//! ascending id order with short-form headers, small lists, no unknown or rare fields. This
//! decoder handles exactly that layout with the position kept in a register, a straight
//! sequence of "is the next field the expected one?" tests instead of a dispatch per field, and
//! dedicated skip loops for `path_in_schema`, `encoding_stats` and `size_statistics`.
//!
//! Anything else (a rare or unknown field, fields out of order, a long-form header, a varint
//! longer than 9 bytes, an error of any kind) makes it give up by returning `None`; the caller
//! then rewinds and decodes the chunk with the general decoder, which also produces the exact
//! error. So the fast path only has to agree with the general decoder on the inputs it accepts.

use super::{flag, ChunkKeep, ColumnChunk};
use crate::metadata::{Arena, ByteRange};
use crate::thrift::{wire, Reader};

#[cfg(test)]
thread_local! {
    /// Tests turn the fast path off to compare it with the general decoder.
    static ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// True unless a test turned the fast path off.
#[inline(always)]
fn enabled() -> bool {
    #[cfg(test)]
    return ENABLED.with(std::cell::Cell::get);
    #[cfg(not(test))]
    true
}

/// Field keys: `id << 4 | wire type`, as produced by [`Cur::header`].
const fn key(id: u32, ty: u8) -> u32 {
    id << 4 | ty as u32
}

/// The key of a STOP header (any header with type nibble 0 ends a structure).
const STOP: u32 = 0;

/// A cursor with the buffer and position in locals, so the hot loop keeps them in registers.
struct Cur<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cur<'a> {
    #[inline(always)]
    fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// An unsigned varint of at most 9 bytes (63 bits, so no overflow check is needed);
    /// longer ones are left to the general decoder.
    #[inline(always)]
    fn uvarint(&mut self) -> Option<u64> {
        let b = self.byte()?;
        if b < 0x80 {
            return Some(b as u64);
        }
        self.uvarint_more(b)
    }

    #[inline(always)]
    fn uvarint_more(&mut self, first: u8) -> Option<u64> {
        let mut v = (first & 0x7f) as u64;
        let mut shift = 7;
        loop {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Some(v);
            }
            shift += 7;
            if shift > 56 {
                return None;
            }
        }
    }

    /// Skips a varint of at most 9 bytes.
    #[inline(always)]
    fn skip_varint(&mut self) -> Option<()> {
        self.uvarint().map(drop)
    }

    #[inline(always)]
    fn i64(&mut self) -> Option<i64> {
        let v = self.uvarint()?;
        Some(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A zigzag i32; out-of-range values (an error) are left to the general decoder.
    #[inline(always)]
    fn i32(&mut self) -> Option<i32> {
        let v = self.uvarint()?;
        let v = u32::try_from(v).ok()?;
        Some(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// A field header, as the key `id << 4 | type` ([`STOP`] at the end of the structure).
    /// `id` is the previous field id and is updated. Long-form headers return `None`.
    #[inline(always)]
    fn header(&mut self, id: &mut u32) -> Option<u32> {
        let b = self.byte()?;
        let ty = b & 0x0f;
        if ty == wire::STOP {
            return Some(STOP);
        }
        let delta = (b >> 4) as u32;
        if delta == 0 {
            return None;
        }
        *id += delta;
        Some(key(*id, ty))
    }

    /// Consumes the header byte `b` of an expected field (a short-form header whose delta
    /// and type are known); anything else returns `None`.
    #[inline(always)]
    fn expect(&mut self, b: u8) -> Option<()> {
        if self.byte()? != b {
            return None;
        }
        Some(())
    }

    /// A short list header (at most 14 elements) with elements of type `ety`.
    #[inline(always)]
    fn short_list(&mut self, ety: u8) -> Option<usize> {
        let b = self.byte()?;
        if b & 0x0f != ety || b >> 4 == 15 {
            return None;
        }
        Some((b >> 4) as usize)
    }

    /// A binary's length, checked against the remaining bytes; returns its start.
    #[inline(always)]
    fn binary(&mut self) -> Option<(usize, usize)> {
        let len = self.uvarint()?;
        let start = self.pos;
        if len > (self.buf.len() - start) as u64 {
            return None;
        }
        self.pos = start + len as usize;
        Some((start, len as usize))
    }

    /// Skips a structure whose fields are all integers (short-form headers only).
    #[inline(always)]
    fn skip_int_struct(&mut self) -> Option<()> {
        loop {
            let b = self.byte()?;
            let ty = b & 0x0f;
            if ty == wire::STOP {
                return Some(());
            }
            if b >> 4 == 0 || !matches!(ty, wire::I16 | wire::I32 | wire::I64) {
                return None;
            }
            self.skip_varint()?;
        }
    }

    /// Skips `Statistics` laid out as `decode_statistics_fast` takes them: the same straight
    /// sequence of expected fields (no loop whose exit the branch predictor misses), values
    /// skipped instead of kept.
    #[inline(always)]
    fn skip_statistics(&mut self) -> Option<()> {
        let mut id = 0u32;
        let mut k = self.header(&mut id)?;
        for field in [1, 2] {
            if k == key(field, wire::BINARY) {
                self.binary()?;
                k = self.header(&mut id)?;
            }
        }
        for field in [3, 4] {
            if k == key(field, wire::I64) {
                self.skip_varint()?;
                k = self.header(&mut id)?;
            }
        }
        for field in [5, 6] {
            if k == key(field, wire::BINARY) {
                self.binary()?;
                k = self.header(&mut id)?;
            }
        }
        for field in [7, 8] {
            if k == key(field, wire::BOOL_TRUE) || k == key(field, wire::BOOL_FALSE) {
                k = self.header(&mut id)?;
            }
        }
        if k == key(9, wire::I64) {
            self.skip_varint()?;
            k = self.header(&mut id)?;
        }
        (k == STOP).then_some(())
    }

    /// Skips `encoding_stats`: a list of `PageEncodingStats`, structures of three i32s.
    #[inline(always)]
    fn skip_encoding_stats(&mut self) -> Option<()> {
        let n = self.short_list(wire::STRUCT)?;
        for _ in 0..n {
            self.skip_int_struct()?;
        }
        Some(())
    }

    /// Skips `size_statistics`: an i64 and two lists of i64 (the level histograms).
    #[inline(always)]
    fn skip_size_statistics(&mut self) -> Option<()> {
        loop {
            let b = self.byte()?;
            let ty = b & 0x0f;
            if ty == wire::STOP {
                return Some(());
            }
            if b >> 4 == 0 {
                return None;
            }
            match ty {
                wire::I16 | wire::I32 | wire::I64 => self.skip_varint()?,
                wire::LIST => {
                    let h = self.byte()?;
                    if !matches!(h & 0x0f, wire::I16 | wire::I32 | wire::I64) {
                        return None;
                    }
                    let mut n = (h >> 4) as u64;
                    if n == 15 {
                        n = self.uvarint()?;
                    }
                    // Every element takes at least one byte, so the loop ends (with a `None`)
                    // within the remaining bytes.
                    for _ in 0..n {
                        self.skip_varint()?;
                    }
                }
                _ => return None,
            }
        }
    }
}

/// Where kept byte values go: copied into an arena, or left in the reader's buffer.
#[inline(always)]
fn keep(arena: &mut Option<&mut Arena>, buf: &[u8], start: usize, len: usize) -> ByteRange {
    match arena {
        Some(a) => a.push_from(buf, start, len),
        None => ByteRange::new(start, len),
    }
}

/// True if the value kept as `kept` (in the arena, or in `buf` without one) has the bytes
/// `buf[start..start + len]`.
#[inline(always)]
fn same_value(
    arena: &Option<&mut Arena>,
    buf: &[u8],
    kept: ByteRange,
    start: usize,
    len: usize,
) -> bool {
    let owner = match arena {
        Some(a) => a.as_slice(),
        None => buf,
    };
    kept.len as usize == len && bytes_eq(kept.slice(owner), &buf[start..start + len])
}

/// `a == b`, without a `memcmp` call for the 4- and 8-byte values that dominate statistics.
#[inline(always)]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if let (Ok(x), Ok(y)) = (<[u8; 4]>::try_from(a), <[u8; 4]>::try_from(b)) {
        return u32::from_ne_bytes(x) == u32::from_ne_bytes(y);
    }
    match (<[u8; 8]>::try_from(a), <[u8; 8]>::try_from(b)) {
        (Ok(x), Ok(y)) => u64::from_ne_bytes(x) == u64::from_ne_bytes(y),
        _ => a == b,
    }
}

impl ColumnChunk {
    /// Skips a `ColumnChunk` laid out the common way, or returns `None` (reader position
    /// unspecified) to leave it to the general skip.
    #[inline]
    pub(crate) fn skip_fast(r: &mut Reader<'_>) -> Option<()> {
        const NOTHING: ChunkKeep = ChunkKeep {
            statistics: false,
            encoding_stats: false,
            size_statistics: false,
            geospatial_statistics: false,
        };
        let mut scratch = ColumnChunk::default();
        Self::decode_fast(&mut scratch, r, &mut None, NOTHING)
    }

    /// Decodes a `ColumnChunk` laid out the common way (see the module documentation) into
    /// `c`, which must be `ColumnChunk::default()`. Returns `None`, leaving `c` partly written
    /// and the reader position unspecified, when the chunk is left to the general decoder. On
    /// success the reader is positioned after the chunk.
    #[inline(always)]
    pub(super) fn decode_fast(
        c: &mut ColumnChunk,
        r: &mut Reader<'_>,
        arena: &mut Option<&mut Arena>,
        keep: ChunkKeep,
    ) -> Option<()> {
        // The general decoder enters two levels when skipping `encoding_stats` (a list of
        // structures) or `size_statistics` (a structure holding lists): only take the fast
        // path when that cannot hit the nesting limit.
        if r.depth_room() < 2 || !enabled() {
            return None;
        }
        let mut cur = Cur {
            buf: r.buf(),
            pos: r.pos(),
        };
        let mut id = 0u32;
        let mut k = cur.header(&mut id)?;
        if k != key(2, wire::I64) {
            // `file_path` (field 1) is rare, `file_offset` required.
            return None;
        }
        c.file_offset = cur.i64()?;
        k = cur.header(&mut id)?;
        if k == key(3, wire::STRUCT) {
            c.decode_meta_fast(&mut cur, arena, keep)?;
            k = cur.header(&mut id)?;
        }
        if k == key(4, wire::I64) {
            c.offset_index_offset = cur.i64()?;
            c.flags |= flag::OI_OFFSET;
            k = cur.header(&mut id)?;
        }
        if k == key(5, wire::I32) {
            c.offset_index_length = cur.i32()?;
            c.flags |= flag::OI_LEN;
            k = cur.header(&mut id)?;
        }
        if k == key(6, wire::I64) {
            c.column_index_offset = cur.i64()?;
            c.flags |= flag::CI_OFFSET;
            k = cur.header(&mut id)?;
        }
        if k == key(7, wire::I32) {
            c.column_index_length = cur.i32()?;
            c.flags |= flag::CI_LEN;
            k = cur.header(&mut id)?;
        }
        if k != STOP {
            return None;
        }
        r.set_pos(cur.pos);
        Some(())
    }

    #[inline(always)]
    fn decode_meta_fast(
        &mut self,
        cur: &mut Cur<'_>,
        arena: &mut Option<&mut Arena>,
        keep: ChunkKeep,
    ) -> Option<()> {
        // The required fields are 1 to 7 and 9, in sequence: their header bytes are known.
        cur.expect(0x15)?; // field 1, i32
        let physical_type = cur.i32()?;
        cur.expect(0x19)?; // field 2, list
        let n = cur.short_list(wire::I32)?;
        let mut nibbles = 0u64;
        for i in 0..n {
            // Values that do not fit a nibble are left to the general decoder.
            let v = cur.i32()?;
            if !(0..16).contains(&v) {
                return None;
            }
            nibbles |= (v as u64) << (4 * i);
        }
        // The inline form of `EncodingList`: the count in the top nibble.
        self.encodings = ((n as u64) << 60) | nibbles;
        cur.expect(0x19)?; // field 3, list
        let n = cur.short_list(wire::BINARY)?;
        for _ in 0..n {
            cur.binary()?;
        }
        cur.expect(0x15)?; // field 4, i32
        let codec = cur.i32()?;
        // Types and codecs beyond today's enums (3 bits) are left to the general decoder.
        if !(0..8).contains(&physical_type) || !(0..8).contains(&codec) {
            return None;
        }
        cur.expect(0x16)?; // field 5, i64
        self.num_values = cur.i64()?;
        cur.expect(0x16)?; // field 6, i64
        self.total_uncompressed_size = cur.i64()?;
        cur.expect(0x16)?; // field 7, i64
        self.total_compressed_size = cur.i64()?;
        // Field 8, key_value_metadata, is rare: field 9 follows field 7.
        cur.expect(0x26)?; // field 9, i64
        let mut id = 9u32;
        self.data_page_offset = cur.i64()?;
        let mut f = self.flags | flag::META | flag::type_codec(physical_type as u32, codec as u32);
        // Field 10, index_page_offset, is rare.
        let mut k = cur.header(&mut id)?;
        if k == key(11, wire::I64) {
            self.dictionary_page_offset = cur.i64()?;
            f |= flag::DICT_OFFSET;
            k = cur.header(&mut id)?;
        }
        if k == key(12, wire::STRUCT) {
            if keep.statistics {
                f = self.decode_statistics_fast(cur, arena, f)?;
            } else {
                cur.skip_statistics()?;
            }
            k = cur.header(&mut id)?;
        }
        if k == key(13, wire::LIST) {
            let start = cur.pos;
            // The usual list packs in the same pass that reads it; others are kept raw.
            match super::packed::pack_encoding_stats_prefix(cur.buf.get(start..).unwrap_or(&[])) {
                Some((bits, len)) => {
                    cur.pos += len;
                    if keep.encoding_stats {
                        self.encoding_stats = bits;
                        f |= flag::ENC_STATS | flag::ENC_STATS_PACKED;
                    }
                }
                None => {
                    cur.skip_encoding_stats()?;
                    if keep.encoding_stats {
                        f |= self.keep_encoding_stats(cur.buf, start, cur.pos, arena);
                    }
                }
            }
            k = cur.header(&mut id)?;
        }
        // Fields 14 and 15 (the bloom filter) are rare.
        if k == key(16, wire::STRUCT) {
            let start = cur.pos;
            match super::packed::pack_size_prefix(cur.buf.get(start..).unwrap_or(&[])) {
                Some((bits, len)) => {
                    cur.pos += len;
                    if keep.size_statistics {
                        self.size_statistics = bits;
                        f |= flag::SIZE_STATS | flag::SIZE_STATS_PACKED;
                    }
                }
                None => {
                    cur.skip_size_statistics()?;
                    if keep.size_statistics {
                        f |= self.keep_size_statistics(cur.buf, start, cur.pos, arena);
                    }
                }
            }
            k = cur.header(&mut id)?;
        }
        if k != STOP {
            return None;
        }
        self.flags = f;
        Some(())
    }

    /// Decodes `Statistics` into the chunk; `f` is the chunk's flags, returned updated.
    #[inline(always)]
    fn decode_statistics_fast(
        &mut self,
        cur: &mut Cur<'_>,
        arena: &mut Option<&mut Arena>,
        mut f: u32,
    ) -> Option<u32> {
        f |= flag::STATS;
        let buf = cur.buf;
        let mut id = 0u32;
        let mut k = cur.header(&mut id)?;
        // The deprecated max/min share the slot of max_value/min_value when equal (the usual
        // case); when they differ, the general decoder keeps them in the extras.
        if k == key(1, wire::BINARY) {
            let (s, n) = cur.binary()?;
            self.max_slot = keep(arena, buf, s, n);
            f |= flag::MAX;
            k = cur.header(&mut id)?;
        }
        if k == key(2, wire::BINARY) {
            let (s, n) = cur.binary()?;
            self.min_slot = keep(arena, buf, s, n);
            f |= flag::MIN;
            k = cur.header(&mut id)?;
        }
        if k == key(3, wire::I64) {
            // Counts that do not fit a u32 are left to the general decoder.
            self.null_count = u32::try_from(cur.i64()?).ok()?;
            f |= flag::NULL_COUNT;
            k = cur.header(&mut id)?;
        }
        // Field 4, distinct_count, is rare.
        if k == key(5, wire::BINARY) {
            let (s, n) = cur.binary()?;
            if f & flag::MAX != 0 {
                if !same_value(arena, buf, self.max_slot, s, n) {
                    return None;
                }
            } else {
                self.max_slot = keep(arena, buf, s, n);
            }
            f |= flag::MAX_VALUE;
            k = cur.header(&mut id)?;
        }
        if k == key(6, wire::BINARY) {
            let (s, n) = cur.binary()?;
            if f & flag::MIN != 0 {
                if !same_value(arena, buf, self.min_slot, s, n) {
                    return None;
                }
            } else {
                self.min_slot = keep(arena, buf, s, n);
            }
            f |= flag::MIN_VALUE;
            k = cur.header(&mut id)?;
        }
        if k == key(7, wire::BOOL_TRUE) {
            f |= flag::MAX_EXACT_SET | flag::MAX_EXACT;
            k = cur.header(&mut id)?;
        } else if k == key(7, wire::BOOL_FALSE) {
            f |= flag::MAX_EXACT_SET;
            k = cur.header(&mut id)?;
        }
        if k == key(8, wire::BOOL_TRUE) {
            f |= flag::MIN_EXACT_SET | flag::MIN_EXACT;
            k = cur.header(&mut id)?;
        } else if k == key(8, wire::BOOL_FALSE) {
            f |= flag::MIN_EXACT_SET;
            k = cur.header(&mut id)?;
        }
        if k == key(9, wire::I64) {
            // nan_count: written for every float column by current writers.
            f = self.set_nan_count(f, Some(cur.i64()?));
            k = cur.header(&mut id)?;
        }
        if k != STOP {
            return None;
        }
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    //! The fast path against the general decoder: same chunks, same arena bytes, same errors,
    //! over the corpus footers and byte-mutated copies of them.

    use super::ENABLED;
    use crate::footer::{decode_metadata, metadata_slice, DecodeOptions, LazyFooter};
    use std::path::{Path, PathBuf};

    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.to_string_lossy().contains(".parquet") {
                out.push(p);
            }
        }
    }

    /// Corpus footers (`$PARQ_TESTDATA`, else the shared test data beside the repository),
    /// plus the files listed in `$PARQ_FAST_PATH_FILES` (colon-separated).
    fn footers() -> Vec<(String, Vec<u8>)> {
        let dir = std::env::var("PARQ_TESTDATA")
            .map(PathBuf::from)
            .unwrap_or_else(|_| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata")
            });
        let mut files = Vec::new();
        walk(&dir, &mut files);
        if let Ok(extra) = std::env::var("PARQ_FAST_PATH_FILES") {
            files.extend(
                extra
                    .split(':')
                    .filter(|s| !s.is_empty())
                    .map(PathBuf::from),
            );
        }
        files.sort();
        files
            .into_iter()
            .filter_map(|f| {
                let bytes = std::fs::read(&f).ok()?;
                let footer = metadata_slice(&bytes).ok()?.to_vec();
                Some((f.display().to_string(), footer))
            })
            .collect()
    }

    /// Decodes `footer` (full, minimal, lazy) into a comparable description.
    fn describe(footer: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        for opts in [DecodeOptions::default(), DecodeOptions::minimal()] {
            out.push(match decode_metadata(footer, &opts) {
                Ok(md) => format!("{:?} {:?}", md.row_groups(), md.buf()),
                Err(e) => format!("error {e}"),
            });
            out.push(
                match LazyFooter::open(bytes::Bytes::copy_from_slice(footer), &opts) {
                    Ok(l) => {
                        let chunks: Vec<String> = (0..l.num_row_groups())
                            .flat_map(|g| (0..l.num_columns_in(g)).map(move |c| (g, c)))
                            .map(|(g, c)| match l.column_chunk(g, c) {
                                Ok(c) => format!("{c:?}"),
                                Err(e) => format!("error {e}"),
                            })
                            .collect();
                        format!("{} {chunks:?}", l.num_row_groups())
                    }
                    Err(e) => format!("error {e}"),
                },
            );
        }
        out
    }

    fn both_ways(footer: &[u8]) -> (Vec<String>, Vec<String>) {
        let fast = describe(footer);
        ENABLED.with(|e| e.set(false));
        let general = describe(footer);
        ENABLED.with(|e| e.set(true));
        (fast, general)
    }

    #[test]
    fn fast_path_matches_general_decoder() {
        let footers = footers();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for (name, footer) in &footers {
            let (fast, general) = both_ways(footer);
            assert_eq!(fast, general, "{name}");
            checked += 1;
            // Mutations: bytes, bits or nibbles changed, bytes inserted or removed (small
            // footers only, to bound the time).
            if footer.len() > 64 * 1024 || footer.is_empty() {
                continue;
            }
            for _ in 0..64 {
                let mut m = footer.clone();
                for _ in 0..1 + rand() % 3 {
                    let i = (rand() % m.len() as u64) as usize;
                    let v = rand();
                    match (v >> 8) % 6 {
                        0 => m[i] = v as u8,
                        1 => m[i] ^= 1 << (v % 8),
                        2 => m[i] = (m[i] & 0x0f) | (v as u8 & 0xf0),
                        3 => m[i] = (m[i] & 0xf0) | (v as u8 & 0x0f),
                        4 => m.insert(i, v as u8),
                        _ => {
                            m.remove(i);
                            if m.is_empty() {
                                break;
                            }
                        }
                    }
                }
                let (fast, general) = both_ways(&m);
                assert_eq!(fast, general, "{name} mutated");
            }
        }
        assert!(checked > 0, "no footers found");
        eprintln!("{checked} footers checked");
    }
}
