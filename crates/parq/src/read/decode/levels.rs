//! Level kernels: definition and repetition levels, 64 at a time, turned into bit masks
//! (which levels start a slot, add a list element, are valid), and from the masks a node's
//! slots: their count, validity bits and list offsets. Masks are built with vector compares;
//! what follows costs per slot, not per level.
//!
//! A level starts a slot of a node whose slots are `slot` when its definition level is at
//! least `slot.def` and its repetition level at most `slot.rep` (see [`crate::read::plan::fields`]).
//! Levels are at most the column's maximum, an `i16` (the leaf reader checks them).

use arrow_array::OffsetSizeTrait;

use crate::page::Levels;
use crate::read::decode::spread::{low_bits, write_bits};
use crate::read::error::inconsistent;
use crate::read::plan::fields::Slot;
use crate::Result;

/// Masks of up to 64 levels.
mod mask {
    /// Bit `j` set where `levels[j] > t` (at most 64 levels, each at most `i16::MAX`).
    #[inline]
    pub fn greater(levels: &[u16], t: i16) -> u64 {
        compare(levels, t, false)
    }

    /// Bit `j` set where `levels[j] == v` (at most 64 levels).
    #[inline]
    pub fn equal(levels: &[u16], v: u16) -> u64 {
        compare(levels, v as i16, true)
    }

    /// Bit `j` set where `levels[j]` equals `t` (`equal`) or is greater than `t`. Levels are
    /// at most `i16::MAX`: the signed compare is the unsigned one.
    #[inline]
    fn compare(levels: &[u16], t: i16, equal: bool) -> u64 {
        match levels.first_chunk::<64>() {
            #[cfg(target_arch = "x86_64")]
            Some(a) if levels.len() == 64 => by_16(a, t, equal),
            _ => levels.iter().enumerate().fold(0, |m, (j, &l)| {
                let hit = if equal { l as i16 == t } else { l as i16 > t };
                m | u64::from(hit) << j
            }),
        }
    }

    /// [`compare`] of 64 levels, 16 lanes at a time.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn by_16(a: &[u16; 64], t: i16, equal: bool) -> u64 {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi16, _mm_cmpgt_epi16, _mm_loadu_si128, _mm_movemask_epi8,
            _mm_packs_epi16, _mm_set1_epi16,
        };
        let mut m = 0u64;
        for (k, lanes) in a.chunks_exact(16).enumerate() {
            let (lo, hi) = lanes.split_at(8);
            // SAFETY: SSE2 is part of every x86_64 target; `lo` and `hi` hold 8 u16 each,
            // the 16 bytes each unaligned load reads (such loads need no alignment).
            let bits = unsafe {
                let t = _mm_set1_epi16(t);
                let lo = _mm_loadu_si128(lo.as_ptr().cast::<__m128i>());
                let hi = _mm_loadu_si128(hi.as_ptr().cast::<__m128i>());
                let (lo, hi) = if equal {
                    (_mm_cmpeq_epi16(lo, t), _mm_cmpeq_epi16(hi, t))
                } else {
                    (_mm_cmpgt_epi16(lo, t), _mm_cmpgt_epi16(hi, t))
                };
                // Lanes of 0 or -1 pack to bytes of 0 or -1, whose sign bits are the bits.
                _mm_movemask_epi8(_mm_packs_epi16(lo, hi))
            };
            m |= u64::from(bits as u16) << (16 * k);
        }
        m
    }
}

/// Bit `j` set where `levels[j] >= min`.
#[inline]
fn at_least(levels: &[u16], min: i16) -> u64 {
    if min <= 0 {
        low_bits(levels.len())
    } else {
        mask::greater(levels, min - 1)
    }
}

/// Bit `j` set where `levels[j] <= max`.
#[inline]
fn at_most(levels: &[u16], max: i16) -> u64 {
    !mask::greater(levels, max) & low_bits(levels.len())
}

/// The bits of `src` where `mask` is set, gathered into the low bits (a software `pext`),
/// a run of ones of the mask at a time.
#[inline]
fn extract(src: u64, mask: u64) -> u64 {
    if mask == u64::MAX {
        return src;
    }
    let (mut out, mut k) = (0u64, 0u32);
    let (mut src, mut m) = (src, mask);
    while m != 0 {
        // `m` is not all ones (shifted right it has zeros on top), so both shifts are
        // below 64, and so is `k` while bits are left.
        let zeros = m.trailing_zeros();
        m >>= zeros;
        src >>= zeros;
        let ones = (!m).trailing_zeros();
        out |= (src & ((1u64 << ones) - 1)) << k;
        k += ones;
        m >>= ones;
        src >>= ones;
    }
    out
}

/// The levels (64 at a time, `rep` empty when there are none) that start a slot of `slot`.
#[inline]
fn starts(def: &[u16], rep: Option<&[u16]>, slot: Slot) -> u64 {
    let d = at_least(def, slot.def);
    match rep {
        Some(rep) => d & at_most(rep, slot.rep),
        None => d,
    }
}

/// The 64-level chunks of `def` and of `rep` (`None` when `rep` is empty).
fn chunks<'l>(
    def: &'l [u16],
    rep: &'l [u16],
) -> impl Iterator<Item = (&'l [u16], Option<&'l [u16]>)> {
    let has_rep = rep.len() == def.len() && !rep.is_empty();
    def.chunks(64)
        .enumerate()
        .map(move |(c, d)| (d, rep.get(c * 64..c * 64 + d.len()).filter(|_| has_rep)))
}

/// How many of `levels` are at least `min`.
pub(in crate::read) fn count_at_least(levels: &[u16], min: i16) -> usize {
    levels
        .chunks(64)
        .map(|c| at_least(c, min).count_ones() as usize)
        .sum()
}

/// How many of `levels` are 0 (with repetition levels: how many records start).
pub(in crate::read) fn count_zeros(levels: &[u16]) -> usize {
    levels
        .chunks(64)
        .map(|c| mask::equal(c, 0).count_ones() as usize)
        .sum()
}

/// The index of the zero level after `n` zeros (where record `n` starts), if there is one.
pub(in crate::read) fn nth_zero(levels: &[u16], n: usize) -> Option<usize> {
    let mut left = n;
    for (c, chunk) in levels.chunks(64).enumerate() {
        let mut z = mask::equal(chunk, 0);
        let k = z.count_ones() as usize;
        if left < k {
            for _ in 0..left {
                z &= z - 1;
            }
            return Some(c * 64 + z.trailing_zeros() as usize);
        }
        left -= k;
    }
    None
}

/// Validity bits of a leaf's slots from its definition levels: the levels at least
/// `slot_def` are slots (the others are a null or empty list above the leaf), valid where
/// the level is `max`; written from bit `pos` of `bits` (grown as needed). Returns (slots,
/// valid slots).
pub(in crate::read) fn slot_bits(
    levels: &[u16],
    slot_def: u16,
    max: u16,
    bits: &mut Vec<u8>,
    pos: usize,
) -> (usize, usize) {
    let need = (pos + levels.len()).div_ceil(8);
    if bits.len() < need {
        bits.resize(need, 0);
    }
    let (mut slots, mut valid) = (0, 0);
    for chunk in levels.chunks(64) {
        let s = at_least(chunk, slot_def as i16);
        let v = extract(mask::equal(chunk, max), s);
        let n = s.count_ones() as usize;
        valid += v.count_ones() as usize;
        write_bits(bits, pos + slots, n, v);
        slots += n;
    }
    bits.truncate((pos + slots).div_ceil(8));
    (slots, valid)
}

/// Validity bits from definition levels: bits `pos..pos + levels.len()` of `bits` are set
/// where the level is `max` (the caller checked that no level exceeds it). Returns how many
/// are set.
pub(in crate::read) fn levels_to_bits(
    levels: &[u16],
    max: u16,
    bits: &mut [u8],
    pos: usize,
) -> usize {
    let mut valid = 0;
    for (c, chunk) in levels.chunks(64).enumerate() {
        let w = mask::equal(chunk, max);
        valid += w.count_ones() as usize;
        write_bits(bits, pos + c * 64, chunk.len(), w);
    }
    valid
}

/// The slots of a node among the levels `def` / `rep` (`rep` empty without repetition):
/// their count and, with `valid_def`, their validity bits (a slot is null when its
/// definition level is below `valid_def`).
pub(in crate::read) fn node_slots(
    def: &[u16],
    rep: &[u16],
    slot: Slot,
    valid_def: Option<i16>,
) -> (usize, Option<Vec<u8>>) {
    let mut bits = valid_def.map(|_| vec![0u8; def.len().div_ceil(8)]);
    let mut len = 0;
    for (d, r) in chunks(def, rep) {
        let s = starts(d, r, slot);
        let n = s.count_ones() as usize;
        if let (Some(b), Some(v)) = (bits.as_mut(), valid_def) {
            write_bits(b, len, n, extract(at_least(d, v), s));
        }
        len += n;
    }
    (len, bits)
}

/// A list node's slots among the levels: the list offsets (one per list, and the end) as
/// counted in `usize` and cast to `O` (the caller checks that the element count, the last
/// offset, fits `O`), the element count, and with `valid_def` the lists' validity bits. A
/// level adds an element where it starts a slot of `element`.
pub(in crate::read) fn list_slots<O: OffsetSizeTrait>(
    def: &[u16],
    rep: &[u16],
    slot: Slot,
    element: Slot,
    valid_def: Option<i16>,
) -> (Vec<O>, usize, Option<Vec<u8>>) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, the one feature the function is compiled with.
        return unsafe { list_slots_popcnt(def, rep, slot, element, valid_def) };
    }
    list_slots_with(def, rep, slot, element, valid_def)
}

/// [`list_slots`] with a popcount per list in one instruction (not part of the x86_64
/// baseline, whose software popcount costs a dozen).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn list_slots_popcnt<O: OffsetSizeTrait>(
    def: &[u16],
    rep: &[u16],
    slot: Slot,
    element: Slot,
    valid_def: Option<i16>,
) -> (Vec<O>, usize, Option<Vec<u8>>) {
    list_slots_with(def, rep, slot, element, valid_def)
}

#[inline(always)]
fn list_slots_with<O: OffsetSizeTrait>(
    def: &[u16],
    rep: &[u16],
    slot: Slot,
    element: Slot,
    valid_def: Option<i16>,
) -> (Vec<O>, usize, Option<Vec<u8>>) {
    let mut bits = valid_def.map(|_| vec![0u8; def.len().div_ceil(8)]);
    // At most one list per level, and the end (reserved, not written: only the lists'
    // part of the memory is touched).
    let mut offsets: Vec<O> = Vec::with_capacity(def.len() + 1);
    let (mut len, mut count) = (0usize, 0usize);
    for (d, r) in chunks(def, rep) {
        let s = starts(d, r, slot);
        let e = starts(d, r, element);
        let n = s.count_ones() as usize;
        if let Some(out) = offsets.spare_capacity_mut().get_mut(..n) {
            let mut m = s;
            for o in out.iter_mut() {
                // The elements before the list starting at the lowest start left.
                let before = (e & ((1u64 << m.trailing_zeros()) - 1)).count_ones() as usize;
                o.write(O::usize_as(count + before));
                m &= m - 1;
            }
            let written = len + n;
            debug_assert_eq!(written, offsets.len() + n);
            // SAFETY: the `n` elements after the length were just written, within the
            // capacity (`spare_capacity_mut` held them).
            unsafe { offsets.set_len(written) };
        }
        if let (Some(b), Some(v)) = (bits.as_mut(), valid_def) {
            write_bits(b, len, n, extract(at_least(d, v), s));
        }
        len += n;
        count += e.count_ones() as usize;
    }
    offsets.push(O::usize_as(count));
    (offsets, count, bits)
}

/// An error if a level of `page` exceeds `max` (checked only where the section's bit width
/// can hold a larger level).
pub(in crate::read) fn check_max(
    page: &[u16],
    levels: &Levels<'_>,
    max: i16,
    what: &str,
) -> Result<()> {
    let max = max as u16;
    if levels.bit_width < 16 && (1u32 << levels.bit_width) - 1 <= u32::from(max) {
        return Ok(());
    }
    let top = page.iter().fold(0, |m, &l| m.max(l));
    if top > max {
        return Err(inconsistent(format!(
            "{what} level {top} > the column's maximum {max}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::read::decode::spread::tests::{get, Rng};

    impl Rng {
        fn levels(&mut self, n: usize, max: u16) -> Vec<u16> {
            (0..n)
                .map(|_| (self.next() % (u64::from(max) + 1)) as u16)
                .collect()
        }
    }

    const LENGTHS: [usize; 9] = [0, 1, 7, 63, 64, 65, 128, 200, 1000];

    fn is_start(d: u16, r: Option<u16>, s: Slot) -> bool {
        d as i16 >= s.def && r.is_none_or(|r| r as i16 <= s.rep)
    }

    #[test]
    fn masks_match_scalar() {
        let mut rng = Rng(7);
        for n in LENGTHS.iter().copied().filter(|&n| n <= 64) {
            for max in [0u16, 1, 2, 5, 300, i16::MAX as u16] {
                let l = rng.levels(n, max);
                for t in [-1i16, 0, 1, 2, 4, 299, i16::MAX - 1, i16::MAX] {
                    let want = l
                        .iter()
                        .enumerate()
                        .fold(0u64, |m, (j, &x)| m | u64::from(x as i16 > t) << j);
                    assert_eq!(mask::greater(&l, t), want, "{l:?} > {t}");
                    let v = t.max(0) as u16;
                    let want = l
                        .iter()
                        .enumerate()
                        .fold(0u64, |m, (j, &x)| m | u64::from(x == v) << j);
                    assert_eq!(mask::equal(&l, v), want);
                }
            }
        }
    }

    #[test]
    fn counts_match_scalar() {
        let mut rng = Rng(5);
        for n in LENGTHS {
            let l = rng.levels(n, 3);
            for min in 0..=4 {
                let want = l.iter().filter(|&&x| x as i16 >= min).count();
                assert_eq!(count_at_least(&l, min), want);
            }
            let zeros: Vec<usize> = (0..n).filter(|&i| l[i] == 0).collect();
            assert_eq!(count_zeros(&l), zeros.len());
            for k in 0..=zeros.len() {
                assert_eq!(nth_zero(&l, k), zeros.get(k).copied());
            }
        }
    }

    #[test]
    fn extract_matches_scalar() {
        let mut rng = Rng(9);
        for _ in 0..2000 {
            let (src, m) = (rng.next(), rng.next() & rng.next());
            let mut want = 0u64;
            let mut k = 0;
            for j in 0..64 {
                if m >> j & 1 == 1 {
                    want |= (src >> j & 1) << k;
                    k += 1;
                }
            }
            assert_eq!(extract(src, m), want);
        }
        assert_eq!(extract(5, u64::MAX), 5);
    }

    #[test]
    fn slot_bits_match_scalar() {
        let mut rng = Rng(3);
        for pos in [0usize, 3, 64, 77] {
            for n in LENGTHS {
                for (slot_def, max) in [(0u16, 1u16), (1, 1), (1, 3), (2, 3), (3, 3)] {
                    let levels = rng.levels(n, max);
                    let mut bits: Vec<u8> =
                        (0..pos.div_ceil(8)).map(|_| rng.next() as u8).collect();
                    let before = bits.clone();
                    let (slots, valid) = slot_bits(&levels, slot_def, max, &mut bits, pos);
                    let want: Vec<bool> = levels
                        .iter()
                        .filter(|&&l| l >= slot_def)
                        .map(|&l| l == max)
                        .collect();
                    assert_eq!(slots, want.len());
                    assert_eq!(valid, want.iter().filter(|&&v| v).count());
                    assert_eq!(bits.len(), (pos + slots).div_ceil(8));
                    for i in 0..pos {
                        assert_eq!(get(&bits, i), get(&before, i));
                    }
                    for (i, &w) in want.iter().enumerate() {
                        assert_eq!(get(&bits, pos + i), w);
                    }
                }
            }
        }
    }

    #[test]
    fn levels_to_bits_matches_scalar() {
        let mut rng = Rng(3);
        for pos in [0usize, 5, 64] {
            for n in LENGTHS {
                for max in [1u16, 2, 3] {
                    let levels = rng.levels(n, max);
                    let mut bits: Vec<u8> = (0..(pos + n).div_ceil(8))
                        .map(|_| rng.next() as u8)
                        .collect();
                    let before = bits.clone();
                    let valid = levels_to_bits(&levels, max, &mut bits, pos);
                    assert_eq!(valid, levels.iter().filter(|&&l| l == max).count());
                    for i in 0..pos {
                        assert_eq!(get(&bits, i), get(&before, i));
                    }
                    for (i, &l) in levels.iter().enumerate() {
                        assert_eq!(get(&bits, pos + i), l == max);
                    }
                }
            }
        }
    }

    #[test]
    fn node_and_list_slots_match_scalar() {
        let mut rng = Rng(11);
        let rules = [
            // (slot, element, valid_def): a top-level optional list of optional elements, a
            // list inside an optional list, a required top-level list, a struct in a list.
            (Slot { def: 0, rep: 0 }, Slot { def: 2, rep: 1 }, Some(1)),
            (Slot { def: 2, rep: 1 }, Slot { def: 4, rep: 2 }, Some(3)),
            (Slot { def: 0, rep: 0 }, Slot { def: 1, rep: 1 }, None),
            (Slot { def: 2, rep: 1 }, Slot { def: 3, rep: 1 }, Some(3)),
        ];
        for n in LENGTHS {
            for &(slot, element, valid_def) in &rules {
                let def = rng.levels(n, 4);
                let mut rep = rng.levels(n, 2);
                if let Some(r) = rep.first_mut() {
                    *r = 0;
                }
                let mut want_offsets = Vec::new();
                let mut want_valid = Vec::new();
                let mut count = 0usize;
                for (&d, &r) in def.iter().zip(&rep) {
                    if is_start(d, Some(r), slot) {
                        want_offsets.push(count as i32);
                        want_valid.push(valid_def.is_none_or(|v| d as i16 >= v));
                    }
                    if is_start(d, Some(r), element) {
                        count += 1;
                    }
                }
                let check_bits = |bits: &Option<Vec<u8>>| match bits {
                    Some(b) => {
                        for (i, &w) in want_valid.iter().enumerate() {
                            assert_eq!(get(b, i), w, "slot {i}");
                        }
                    }
                    None => assert!(valid_def.is_none()),
                };
                let (len, bits) = node_slots(&def, &rep, slot, valid_def);
                assert_eq!(len, want_offsets.len());
                check_bits(&bits);
                let (offsets, elements, bits) =
                    list_slots::<i32>(&def, &rep, slot, element, valid_def);
                want_offsets.push(count as i32);
                assert_eq!(offsets, want_offsets);
                assert_eq!(elements, count);
                check_bits(&bits);
                // Without repetition levels every level with the definition level starts.
                let (len, _) = node_slots(&def, &[], slot, valid_def);
                assert_eq!(len, def.iter().filter(|&&d| d as i16 >= slot.def).count());
            }
        }
    }
}
