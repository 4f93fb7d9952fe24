//! Packed forms of a column chunk's `encoding_stats` and `size_statistics`: their usual
//! shapes held in a `u64` each instead of raw bytes in the arena. Only structures in the
//! standard encoding (short field headers in order, minimal varints) are packed, so writing
//! them back gives the bytes they came from; anything else stays raw. When not packed, the
//! same `u64` holds a [`ByteRange`] (start in the low half, length in the high half).
//!
//! `encoding_stats` (one or two entries: dictionary page PLAIN x1, data pages RLE_DICTIONARY
//! xN; or data pages PLAIN xN): entry `i` in bits `31 * i ..` as page type (2 bits), encoding
//! (4 bits), count (25 bits); the entry count in bits 62-63.
//!
//! `size_statistics` of a flat column (`definition_level_histogram` of two values, an empty
//! or absent `repetition_level_histogram`, optionally `unencoded_byte_array_data_bytes`):
//! the two histogram values in bits 0-20 and 21-41, the unencoded bytes in bits 42-61, "has
//! unencoded bytes" in bit 62, "has an empty repetition histogram" in bit 63.

use crate::metadata::{Arena, ByteRange, Encoding, PageEncodingStats, PageType, SizeStatistics};
use crate::thrift::{wire, Writer};

const ENTRY_BITS: u32 = 31;
const COUNT_BITS: u32 = 25;

/// Keeps the encoded sub-structure `buf[start..end]` in a `u64` slot: packed by `pack` when
/// it has the usual shape, else as a raw range (copied into `arena` when there is one).
/// Returns the slot and whether it is packed.
#[inline(always)]
pub(super) fn keep(
    buf: &[u8],
    start: usize,
    end: usize,
    arena: &mut Option<&mut Arena>,
    pack: impl Fn(&[u8]) -> Option<u64>,
) -> (u64, bool) {
    let raw = buf.get(start..end).unwrap_or(&[]);
    match pack(raw) {
        Some(bits) => (bits, true),
        None => {
            let range = match arena {
                Some(a) => a.push(raw),
                None => ByteRange::new(start, raw.len()),
            };
            (range_bits(range), false)
        }
    }
}

/// A raw range in the `u64` slot.
pub(super) fn range_bits(r: ByteRange) -> u64 {
    r.start as u64 | (r.len as u64) << 32
}

/// The raw range held in the `u64` slot.
pub(super) fn range_from_bits(bits: u64) -> ByteRange {
    ByteRange {
        start: bits as u32,
        len: (bits >> 32) as u32,
    }
}

/// A non-negative zigzag varint in minimal form at the start of `b`, below `2^bits`: its value
/// and length.
fn small_varint(b: &[u8], bits: u32) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (j, &x) in b.iter().enumerate().take(5) {
        v |= ((x & 0x7f) as u64) << (7 * j);
        if x < 0x80 {
            // Minimal form: no trailing zero group.
            if j > 0 && x == 0 {
                return None;
            }
            let value = (v >> 1) as i64 ^ -((v & 1) as i64);
            return (0..1i64 << bits)
                .contains(&value)
                .then_some((value as u64, j + 1));
        }
    }
    None
}

/// Packs an encoded `SizeStatistics` (the bytes after the field header) of the flat shape,
/// or returns `None`.
#[inline(always)]
pub(super) fn pack_size(raw: &[u8]) -> Option<u64> {
    pack_size_prefix(raw).and_then(|(bits, n)| (n == raw.len()).then_some(bits))
}

/// Like [`pack_size`] for a `SizeStatistics` at the start of `bytes` (which may go on):
/// the packed value and the encoded length.
#[inline(always)]
pub(super) fn pack_size_prefix(raw: &[u8]) -> Option<(u64, usize)> {
    let mut bits = 0u64;
    let mut rest = raw;
    let mut last = 0u8;
    if let [0x16, tail @ ..] = rest {
        let (v, n) = small_varint(tail, 20)?;
        bits |= v << 42 | 1 << 62;
        rest = &tail[n..];
        last = 1;
    }
    // An empty repetition histogram: field 2, list<i64> of 0.
    if let [h, 0x06, tail @ ..] = rest {
        if *h == ((2 - last) << 4) | wire::LIST {
            bits |= 1 << 63;
            rest = tail;
            last = 2;
        }
    }
    let [h, 0x26, tail @ ..] = rest else {
        return None;
    };
    if *h != ((3 - last) << 4) | wire::LIST {
        return None;
    }
    let (a, n) = small_varint(tail, 21)?;
    let (b, m) = small_varint(&tail[n..], 21)?;
    if tail.get(n + m) != Some(&0) {
        return None;
    }
    let used = raw.len() - tail.len() + n + m + 1;
    Some((bits | a | b << 21, used))
}

/// The `SizeStatistics` of a packed value.
pub(super) fn unpack_size(bits: u64) -> SizeStatistics {
    let mask = |b: u32| (1u64 << b) - 1;
    SizeStatistics {
        unencoded_byte_array_data_bytes: (bits >> 62 & 1 == 1)
            .then_some((bits >> 42 & mask(20)) as i64),
        repetition_level_histogram: (bits >> 63 == 1).then(Vec::new),
        definition_level_histogram: Some(vec![
            (bits & mask(21)) as i64,
            (bits >> 21 & mask(21)) as i64,
        ]),
    }
}

/// Writes a packed `SizeStatistics` in the standard encoding.
pub(super) fn write_size(bits: u64, w: &mut Writer<'_>) {
    unpack_size(bits).encode(w);
}

/// Packs an encoded `list<PageEncodingStats>` (the bytes after the field header) of at most
/// two entries written the standard way (short headers for fields 1, 2, 3 in order, one-byte
/// page type and encoding, a count below 2^25 in minimal varint form), or returns `None`.
#[inline(always)]
pub(super) fn pack_encoding_stats(raw: &[u8]) -> Option<u64> {
    pack_encoding_stats_prefix(raw).and_then(|(bits, n)| (n == raw.len()).then_some(bits))
}

/// Like [`pack_encoding_stats`] for a list at the start of `bytes` (which may go on): the
/// packed value and the encoded length.
#[inline(always)]
pub(super) fn pack_encoding_stats_prefix(raw: &[u8]) -> Option<(u64, usize)> {
    let (&header, mut rest) = raw.split_first()?;
    let n = (header >> 4) as u64;
    if header & 0x0f != wire::STRUCT || n > 2 {
        return None;
    }
    let mut bits = n << 62;
    for i in 0..n {
        // 0x15 <page type> 0x15 <encoding> 0x15 <count varint> 0x00
        let [0x15, pt, 0x15, enc, 0x15, tail @ ..] = rest else {
            return None;
        };
        let (pt, enc) = (*pt as u64, *enc as u64);
        // Zigzag values: page types 0-3 are 0,2,4,6; encodings 0-15 are even values below 32.
        if pt & 1 != 0 || pt > 6 || enc & 1 != 0 || enc > 30 {
            return None;
        }
        let mut count = 0u64;
        let mut used = 0;
        for (j, &b) in tail.iter().enumerate().take(4) {
            count |= ((b & 0x7f) as u64) << (7 * j);
            used = j + 1;
            if b < 0x80 {
                break;
            }
        }
        // Minimal varint form only, so the bytes written back are the same.
        let last = *tail.get(used.checked_sub(1)?)?;
        if last >= 0x80 || (used > 1 && last == 0) || tail.get(used) != Some(&0) {
            return None;
        }
        let count = (count >> 1) as i64 ^ -((count & 1) as i64);
        if !(0..1 << COUNT_BITS).contains(&count) {
            return None;
        }
        let entry = (pt >> 1) | (enc >> 1) << 2 | (count as u64) << 6;
        bits |= entry << (ENTRY_BITS * i as u32);
        rest = &tail[used + 1..];
    }
    Some((bits, raw.len() - rest.len()))
}

/// The entries of a packed list.
pub(super) fn unpack_encoding_stats(bits: u64) -> Vec<PageEncodingStats> {
    let n = (bits >> 62) as u32;
    (0..n)
        .map(|i| {
            let e = bits >> (ENTRY_BITS * i);
            PageEncodingStats {
                page_type: PageType::from_thrift((e & 0x3) as i32),
                encoding: Encoding::from_thrift(((e >> 2) & 0xf) as i32),
                count: ((e >> 6) & ((1 << COUNT_BITS) - 1)) as i32,
            }
        })
        .collect()
}

/// Writes a packed list in the standard encoding (the bytes it was packed from).
pub(super) fn write_encoding_stats(bits: u64, w: &mut Writer<'_>) {
    PageEncodingStats::encode_list(&unpack_encoding_stats(bits), w);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(entries: &[(i32, i32, i32)]) -> Vec<u8> {
        let list: Vec<PageEncodingStats> = entries
            .iter()
            .map(|&(p, e, c)| PageEncodingStats {
                page_type: PageType::from_thrift(p),
                encoding: Encoding::from_thrift(e),
                count: c,
            })
            .collect();
        let mut out = Vec::new();
        PageEncodingStats::encode_list(&list, &mut Writer::new(&mut out));
        out
    }

    #[test]
    fn standard_lists_pack_and_write_back_the_same_bytes() {
        for entries in [
            &[][..],
            &[(0, 0, 1)],
            &[(2, 0, 1), (0, 8, 12)],
            &[(3, 9, (1 << 25) - 1), (1, 15, 63)],
        ] {
            let raw = encoded(entries);
            let bits =
                pack_encoding_stats(&raw).unwrap_or_else(|| panic!("{entries:?} not packed"));
            let mut out = Vec::new();
            write_encoding_stats(bits, &mut Writer::new(&mut out));
            assert_eq!(out, raw, "{entries:?}");
        }
    }

    #[test]
    fn other_lists_stay_raw() {
        // Three entries, a count too large, an encoding beyond a nibble, a page type beyond 3.
        for entries in [
            &[(0, 0, 1), (0, 0, 1), (0, 0, 1)][..],
            &[(0, 0, 1 << 25)],
            &[(0, 16, 1)],
            &[(4, 0, 1)],
            &[(0, 0, -1)],
        ] {
            assert_eq!(pack_encoding_stats(&encoded(entries)), None, "{entries:?}");
        }
        // A non-minimal varint count (2 written as 0x84 0x00) must not be packed.
        let raw = [0x1c, 0x15, 0x00, 0x15, 0x00, 0x15, 0x84, 0x00, 0x00];
        assert_eq!(pack_encoding_stats(&raw), None);
        // Trailing bytes, a truncated entry, an unexpected field.
        assert_eq!(
            pack_encoding_stats(&[0x1c, 0x15, 0x00, 0x15, 0x00, 0x15, 0x02, 0x00, 0x00]),
            None
        );
        assert_eq!(pack_encoding_stats(&[0x1c, 0x15, 0x00, 0x15, 0x00]), None);
        assert_eq!(
            pack_encoding_stats(&[0x1c, 0x15, 0x00, 0x25, 0x00, 0x15, 0x02, 0x00]),
            None
        );
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    fn encoded(s: &SizeStatistics) -> Vec<u8> {
        let mut out = Vec::new();
        s.encode(&mut Writer::new(&mut out));
        out
    }

    #[test]
    fn flat_size_statistics_pack_and_write_back_the_same_bytes() {
        for (unencoded, rep) in [
            (None, false),
            (Some(9526), false),
            (None, true),
            (Some(0), true),
        ] {
            let s = SizeStatistics {
                unencoded_byte_array_data_bytes: unencoded,
                repetition_level_histogram: rep.then(Vec::new),
                definition_level_histogram: Some(vec![3, (1 << 21) - 1]),
            };
            let raw = encoded(&s);
            let bits = pack_size(&raw).unwrap_or_else(|| panic!("{s:?} not packed"));
            assert_eq!(unpack_size(bits), s);
            let mut out = Vec::new();
            write_size(bits, &mut Writer::new(&mut out));
            assert_eq!(out, raw);
        }
    }

    #[test]
    fn other_size_statistics_stay_raw() {
        for s in [
            SizeStatistics {
                definition_level_histogram: Some(vec![1, 2, 3]),
                ..Default::default()
            },
            SizeStatistics {
                definition_level_histogram: Some(vec![1 << 21, 2]),
                ..Default::default()
            },
            SizeStatistics {
                unencoded_byte_array_data_bytes: Some(1 << 20),
                definition_level_histogram: Some(vec![1, 2]),
                ..Default::default()
            },
            SizeStatistics {
                repetition_level_histogram: Some(vec![5]),
                definition_level_histogram: Some(vec![1, 2]),
                ..Default::default()
            },
            SizeStatistics::default(),
        ] {
            assert_eq!(pack_size(&encoded(&s)), None, "{s:?}");
        }
    }
}
