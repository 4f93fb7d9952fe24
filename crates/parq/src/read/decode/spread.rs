//! Word-at-a-time kernels that spread the dense (non-null) values of a page over its slots
//! following the validity bitmap, in place and back to front.
//!
//! The validity bits of the page (slots `start..start + total`) are read 64 at a time; per
//! word, its popcount says how many dense values it takes. An all-ones word is one block
//! copy, an all-zeros word one fill; a mixed word writes its slots without branches, back to
//! front, in place. Words are taken
//! from the last to the first, so that a word's dense values (which sit at or before its
//! slots) are read before anything below them is overwritten; once every slot before a word
//! is valid, the rest is already in place and the walk stops. Also the bit ranges a leaf cuts
//! out of its validity.

use arrow_buffer::bit_chunk_iterator::UnalignedBitChunk;

use crate::encoding::bitmap::copy_bits;

/// Bits `pos..pos + n` (`n <= 64`) of the LSB-first bitmap `bits` as the low bits of a word.
#[inline]
pub(in crate::read) fn read_bits(bits: &[u8], pos: usize, n: usize) -> u64 {
    debug_assert!(n <= 64);
    if n == 0 {
        return 0;
    }
    let byte = pos / 8;
    let shift = pos % 8;
    let word = match bits.get(byte..).and_then(|b| b.first_chunk::<16>()) {
        Some(b) => u128::from_le_bytes(*b),
        None => {
            let need = (shift + n).div_ceil(8);
            let mut buf = [0u8; 16];
            buf[..need].copy_from_slice(&bits[byte..byte + need]);
            u128::from_le_bytes(buf)
        }
    };
    ((word >> shift) as u64) & low_bits(n)
}

/// Writes the low `n` bits (`n <= 64`) of `value` to bits `pos..pos + n` of `bits`, keeping
/// the other bits.
#[inline]
pub(in crate::read) fn write_bits(bits: &mut [u8], pos: usize, n: usize, value: u64) {
    debug_assert!(n <= 64);
    if n == 0 {
        return;
    }
    let byte = pos / 8;
    let shift = pos % 8;
    let m = u128::from(low_bits(n)) << shift;
    let v = u128::from(value & low_bits(n)) << shift;
    match bits.get_mut(byte..).and_then(|b| b.first_chunk_mut::<16>()) {
        Some(b) => {
            let old = u128::from_le_bytes(*b);
            *b = ((old & !m) | v).to_le_bytes();
        }
        None => {
            let need = (shift + n).div_ceil(8);
            let mut buf = [0u8; 16];
            buf[..need].copy_from_slice(&bits[byte..byte + need]);
            let old = u128::from_le_bytes(buf);
            let new = ((old & !m) | v).to_le_bytes();
            bits[byte..byte + need].copy_from_slice(&new[..need]);
        }
    }
}

/// The low `n` bits set (`n <= 64`).
#[inline]
pub(in crate::read) fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Deposits the low bits of `src` into the set bits of `mask`, lowest first (a software
/// `pdep`), a run of ones of the mask at a time.
#[inline]
pub(in crate::read) fn deposit(mut src: u64, mut mask: u64) -> u64 {
    let mut out = 0u64;
    let mut pos = 0u32;
    while mask != 0 {
        let zeros = mask.trailing_zeros();
        mask >>= zeros;
        pos += zeros;
        let ones = (!mask).trailing_zeros(); // >= 1, and 64 only if mask was all ones
        let run = if ones >= 64 {
            u64::MAX
        } else {
            (1u64 << ones) - 1
        };
        out |= (src & run) << pos;
        if ones >= 64 {
            break;
        }
        src >>= ones;
        mask >>= ones;
        pos += ones;
    }
    out
}

/// The 64-slot words of a page of `total` slots, last first: `(base, len)` relative to the
/// page's first slot.
#[inline]
fn words_rev(total: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..total.div_ceil(64)).rev().map(move |k| {
        let base = k * 64;
        (base, (total - base).min(64))
    })
}

/// Spreads `dense` values at `values[start..]` over slots `start..start + total`, following
/// the validity bits `start..start + total`; null slots get `T::default()`.
pub(in crate::read) fn spread_fixed<T: Copy + Default>(
    values: &mut Vec<T>,
    start: usize,
    dense: usize,
    total: usize,
    validity: &[u8],
) {
    values.resize(start + total, T::default());
    spread_slice(&mut values[start..], start, dense, total, validity);
}

/// [`spread_fixed`] on `v`, the slots from `start` on (`total` of them, already there).
fn spread_slice<T: Copy + Default>(
    v: &mut [T],
    start: usize,
    dense: usize,
    total: usize,
    validity: &[u8],
) {
    let mut src = dense;
    for (base, m) in words_rev(total) {
        if src == base + m {
            // Every slot up to here is valid: already in place.
            break;
        }
        let w = read_bits(validity, start + base, m);
        let p = w.count_ones() as usize;
        let q = src - p;
        if p == m {
            v.copy_within(q..src, base);
        } else if p == 0 {
            v[base..base + m].fill(T::default());
        } else {
            // Back to front, in place: a value never moves down, and nothing is written
            // below a value still to be read. Then the null slots are cleared.
            let out = &mut v[..base + m];
            move_slots(out, base, m, w, src);
            let mut nulls = !w & low_bits(m);
            while nulls != 0 {
                out[base + nulls.trailing_zeros() as usize] = T::default();
                nulls &= nulls - 1;
            }
        }
        src = q;
    }
}

/// The mixed word `w` (`m` slots from `base`, its dense values ending at `src`) a slot at a
/// time, without branches: every slot is written (a null one with a copy of some value).
#[inline]
fn move_slots<T: Copy>(out: &mut [T], base: usize, m: usize, w: u64, src: usize) {
    debug_assert!(out.len() >= base + m && (1..=64).contains(&m));
    let ptr = out.as_mut_ptr();
    let mut s = src;
    // The word's top slot bit at bit 63, taken off one slot at a time.
    let mut word = w << (64 - m);
    for b in (0..m).rev() {
        s -= (word >> 63) as usize;
        word <<= 1;
        // SAFETY: `out` has at least `base + m` elements and `b < m`, so `base + b` is in
        // bounds; `s` = `q` + the set bits of `w` below `b` <= `q + b` <= `base + b` (`q`,
        // the valid slots before the word, is at most `base`), so `s` is too.
        unsafe { *ptr.add(base + b) = *ptr.add(s) };
    }
}

/// Spreads the end offsets of `dense` values (`offsets[start + 1..]`) over slots
/// `start..start + total`: a null slot gets an empty range (its end is the previous end).
pub(in crate::read) fn spread_offsets<O: Copy + Default>(
    offsets: &mut Vec<O>,
    start: usize,
    dense: usize,
    total: usize,
    validity: &[u8],
) {
    offsets.resize(start + 1 + total, O::default());
    // o[0] is the end before the page; o[1 + k] the end of dense value k, and slot i's end
    // goes to o[1 + i].
    let o = &mut offsets[start..];
    let mut src = dense;
    let mut buf = [O::default(); 128];
    for (base, m) in words_rev(total) {
        if src == base + m {
            break;
        }
        let w = read_bits(validity, start + base, m);
        let p = w.count_ones() as usize;
        let q = src - p;
        if p == m {
            o.copy_within(q + 1..src + 1, base + 1);
        } else if p == 0 {
            let prev = o[q];
            o[base + 1..base + 1 + m].fill(prev);
        } else {
            // buf[0] is the end before the word's first valid slot.
            buf[..p + 1].copy_from_slice(&o[q..src + 1]);
            let out = &mut o[base + 1..base + 1 + m];
            let mut k = 0;
            for (b, x) in out.iter_mut().enumerate() {
                k += ((w >> b) & 1) as usize;
                // k <= b + 1 <= 64: the mask only spares the bounds check.
                *x = buf[k & 127];
            }
        }
        src = q;
    }
}

/// Spreads `dense` values of `width` bytes at `values[start * width..]` over slots
/// `start..start + total`; null slots get zero bytes.
pub(in crate::read) fn spread_fixed_bytes(
    values: &mut Vec<u8>,
    width: usize,
    start: usize,
    dense: usize,
    total: usize,
    validity: &[u8],
) {
    let w = width;
    values.resize((start + total) * w, 0);
    let v = &mut values[start * w..];
    // Common widths as fixed-size values: the branchless kernel of `spread_fixed`.
    macro_rules! as_values {
        ($($n:literal)*) => {
            match w {
                $($n => return spread_slice(v.as_chunks_mut::<$n>().0, start, dense, total, validity),)*
                _ => {}
            }
        };
    }
    as_values!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 32);
    let mut src = dense;
    for (base, m) in words_rev(total) {
        if src == base + m {
            break;
        }
        let word = read_bits(validity, start + base, m);
        let p = word.count_ones() as usize;
        let q = src - p;
        if p == m {
            v.copy_within(q * w..src * w, base * w);
        } else if p == 0 {
            v[base * w..(base + m) * w].fill(0);
        } else {
            let mut s = src;
            for b in (0..m).rev() {
                let i = base + b;
                if (word >> b) & 1 != 0 {
                    s -= 1;
                    v.copy_within(s * w..s * w + w, i * w);
                } else {
                    v[i * w..i * w + w].fill(0);
                }
            }
        }
        src = q;
    }
}

/// Writes bits `start..start + total` of `bits` (grown with zeros as needed; bits before
/// `start` are kept) from the first `dense` bits of `dense_bits` spread by the validity bits
/// `start..start + total`: a null slot gets a zero bit.
pub(in crate::read) fn spread_bits(
    bits: &mut Vec<u8>,
    dense_bits: &[u8],
    start: usize,
    total: usize,
    validity: &[u8],
) {
    let end = (start + total).div_ceil(8);
    if bits.len() < end {
        bits.resize(end, 0);
    }
    let mut k = 0;
    let mut base = 0;
    while base < total {
        let m = (total - base).min(64);
        let w = read_bits(validity, start + base, m);
        let p = w.count_ones() as usize;
        let out = if p == 0 {
            0
        } else {
            let d = read_bits(dense_bits, k, p);
            if p == m {
                d
            } else {
                deposit(d, w)
            }
        };
        write_bits(bits, start + base, m, out);
        k += p;
        base += m;
    }
}

/// Bits `from..from + n` of the LSB-first bitmap `bits` as a bitmap of their own.
pub(in crate::read) fn bits_range(bits: &[u8], from: usize, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n.div_ceil(8)];
    let mut done = 0;
    while done < n {
        let m = (n - done).min(64);
        write_bits(&mut out, done, m, read_bits(bits, from + done, m));
        done += m;
    }
    out
}

/// Drops bits `start..start + k` of the bitmap `bits`, which ends at bit `start + n`, moving
/// the `n - k` after them down; returns how many of the dropped bits were set.
pub(in crate::read) fn drop_bits(bits: &mut Vec<u8>, start: usize, k: usize, n: usize) -> usize {
    let kept = bits_range(bits, start + k, n - k);
    let set = cut_bits(bits, start, k);
    let end = (start + n - k).div_ceil(8);
    bits.resize(end, 0);
    copy_bits(&kept, n - k, bits, start);
    set
}

/// Cuts the bitmap `bits` at bit `at`, ahead of the `k` bits there; returns how many of those
/// `k` were set.
pub(in crate::read) fn cut_bits(bits: &mut Vec<u8>, at: usize, k: usize) -> usize {
    let set = UnalignedBitChunk::new(bits, at, k).count_ones();
    bits.truncate(at.div_ceil(8));
    if !at.is_multiple_of(8) {
        // Clear the bits of the last byte from `at` on.
        if let Some(last) = bits.last_mut() {
            *last &= (1u8 << (at % 8)) - 1;
        }
    }
    set
}

#[cfg(test)]
pub(in crate::read) mod tests {
    use super::*;

    /// Bit `i` of the LSB-first bitmap `bits`.
    pub(in crate::read) fn get(bits: &[u8], i: usize) -> bool {
        bits[i / 8] >> (i % 8) & 1 != 0
    }

    /// A small deterministic generator (xorshift).
    pub(in crate::read) struct Rng(pub u64);
    impl Rng {
        pub(in crate::read) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// True with probability `percent` / 100.
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    /// Validity patterns of `n` slots.
    fn patterns(n: usize, rng: &mut Rng) -> Vec<Vec<bool>> {
        let mut out = vec![
            vec![false; n],
            vec![true; n],
            (0..n).map(|i| i % 2 == 0).collect(),
            (0..n).map(|i| i % 2 == 1).collect(),
            (0..n).map(|i| (i / 64) % 2 == 0).collect(),
        ];
        for percent in [10, 50, 90, 99] {
            out.push((0..n).map(|_| rng.chance(percent)).collect());
        }
        out
    }

    const LENGTHS: [usize; 12] = [0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 200, 1000];
    const STARTS: [usize; 6] = [0, 1, 5, 8, 63, 130];

    /// Every (start, validity of the earlier slots + the page) case.
    fn cases(mut f: impl FnMut(usize, &[bool], &[u8], &mut Rng)) {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for &start in &STARTS {
            for &n in &LENGTHS {
                for page in patterns(n, &mut rng) {
                    let before: Vec<bool> = (0..start).map(|_| rng.chance(70)).collect();
                    let all: Vec<bool> = before.iter().chain(&page).copied().collect();
                    // Trailing garbage bytes, like a validity buffer with room to spare.
                    let mut bitmap = vec![0u8; all.len().div_ceil(8) + (rng.next() % 3) as usize];
                    for (i, &v) in all.iter().enumerate() {
                        if v {
                            bitmap[i / 8] |= 1 << (i % 8);
                        }
                    }
                    f(start, &page, &bitmap, &mut rng);
                }
            }
        }
    }

    #[test]
    fn read_write_bits_round_trip() {
        let mut rng = Rng(7);
        for len in [1usize, 2, 9, 16, 17, 40] {
            let mut bits: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            for pos in 0..len * 8 {
                for n in 0..=(len * 8 - pos).min(64) {
                    let v = rng.next();
                    let before = bits.clone();
                    write_bits(&mut bits, pos, n, v);
                    for i in 0..len * 8 {
                        let want = if i >= pos && i < pos + n {
                            (v >> (i - pos)) & 1 != 0
                        } else {
                            get(&before, i)
                        };
                        assert_eq!(get(&bits, i), want, "len {len} pos {pos} n {n} bit {i}");
                    }
                    assert_eq!(read_bits(&bits, pos, n), v & low_bits(n));
                }
            }
        }
    }

    #[test]
    fn deposit_matches_scalar() {
        let mut rng = Rng(11);
        let mut masks = vec![0, u64::MAX, 1, 1 << 63, 0x5555_5555_5555_5555, u64::MAX - 1];
        for _ in 0..2000 {
            masks.push(rng.next() & rng.next());
            masks.push(rng.next() | rng.next());
        }
        for m in masks {
            let src = rng.next();
            let mut want = 0u64;
            let mut k = 0;
            for b in 0..64 {
                if (m >> b) & 1 != 0 {
                    want |= ((src >> k) & 1) << b;
                    k += 1;
                }
            }
            assert_eq!(deposit(src, m), want, "mask {m:#x}");
        }
    }

    #[test]
    fn spread_fixed_matches_scalar() {
        cases(|start, page, bitmap, rng| {
            let prefix: Vec<i64> = (0..start as i64).map(|i| -1 - i).collect();
            let dense = page.iter().filter(|&&v| v).count();
            let dense_values: Vec<i64> = (0..dense).map(|_| (rng.next() >> 1) as i64 | 1).collect();
            let mut values: Vec<i64> = prefix.iter().chain(&dense_values).copied().collect();
            spread_fixed(&mut values, start, dense, page.len(), bitmap);
            let mut it = dense_values.iter();
            let want: Vec<i64> = prefix
                .iter()
                .copied()
                .chain(
                    page.iter()
                        .map(|&v| if v { *it.next().unwrap() } else { 0 }),
                )
                .collect();
            assert_eq!(values, want, "start {start} page {page:?}");
        });
    }

    #[test]
    fn spread_fixed_wide_values() {
        // A 12-byte value type (like INT96).
        cases(|start, page, bitmap, _| {
            let dense = page.iter().filter(|&&v| v).count();
            let mut values: Vec<[u32; 3]> =
                (0..start + dense).map(|i| [i as u32 + 1, 7, 9]).collect();
            spread_fixed(&mut values, start, dense, page.len(), bitmap);
            let mut next = start as u32;
            for (i, &v) in page.iter().enumerate() {
                let want = if v {
                    next += 1;
                    [next, 7, 9]
                } else {
                    [0; 3]
                };
                assert_eq!(values[start + i], want);
            }
            for (i, v) in values[..start].iter().enumerate() {
                assert_eq!(*v, [i as u32 + 1, 7, 9]);
            }
        });
    }

    #[test]
    fn spread_offsets_matches_scalar() {
        cases(|start, page, bitmap, rng| {
            let mut offsets = vec![0i32];
            for _ in 0..start {
                let last = *offsets.last().unwrap();
                offsets.push(last + (rng.next() % 4) as i32);
            }
            let dense = page.iter().filter(|&&v| v).count();
            let mut lengths = Vec::new();
            for _ in 0..dense {
                let len = (rng.next() % 5) as i32;
                lengths.push(len);
                let last = *offsets.last().unwrap();
                offsets.push(last + len);
            }
            let prefix = offsets[..=start].to_vec();
            spread_offsets(&mut offsets, start, dense, page.len(), bitmap);
            let mut want = prefix;
            let mut it = lengths.iter();
            for &v in page {
                let last = *want.last().unwrap();
                want.push(if v { last + it.next().unwrap() } else { last });
            }
            assert_eq!(offsets, want, "start {start} page {page:?}");
        });
    }

    #[test]
    fn spread_fixed_bytes_matches_scalar() {
        for width in [1usize, 3, 16, 20] {
            cases(|start, page, bitmap, rng| {
                let dense = page.iter().filter(|&&v| v).count();
                let mut values: Vec<u8> = (0..(start + dense) * width)
                    .map(|_| rng.next() as u8 | 1)
                    .collect();
                let orig = values.clone();
                spread_fixed_bytes(&mut values, width, start, dense, page.len(), bitmap);
                let mut want = orig[..start * width].to_vec();
                let mut s = start;
                for &v in page {
                    if v {
                        want.extend_from_slice(&orig[s * width..(s + 1) * width]);
                        s += 1;
                    } else {
                        want.extend(std::iter::repeat_n(0, width));
                    }
                }
                assert_eq!(values, want, "width {width} start {start} page {page:?}");
            });
        }
    }

    #[test]
    fn spread_bits_matches_scalar() {
        cases(|start, page, bitmap, rng| {
            let dense = page.iter().filter(|&&v| v).count();
            let dense_values: Vec<bool> = (0..dense).map(|_| rng.chance(50)).collect();
            let mut dense_bits = vec![0u8; dense.div_ceil(8) + (rng.next() % 3) as usize];
            for (i, &v) in dense_values.iter().enumerate() {
                if v {
                    dense_bits[i / 8] |= 1 << (i % 8);
                }
            }
            // Earlier slots hold random bits that must be kept; the page's slots hold garbage.
            let earlier: Vec<bool> = (0..start).map(|_| rng.chance(50)).collect();
            let mut bits: Vec<u8> = (0..(start + page.len()).div_ceil(8) / 2)
                .map(|_| rng.next() as u8)
                .collect();
            bits.resize(start.div_ceil(8).max(bits.len()), 0);
            for (i, &v) in earlier.iter().enumerate() {
                bits[i / 8] = bits[i / 8] & !(1 << (i % 8)) | (u8::from(v) << (i % 8));
            }
            spread_bits(&mut bits, &dense_bits, start, page.len(), bitmap);
            assert!(bits.len() >= (start + page.len()).div_ceil(8));
            let mut it = dense_values.iter();
            for (i, &v) in earlier.iter().enumerate() {
                assert_eq!(get(&bits, i), v, "earlier bit {i}");
            }
            for (i, &v) in page.iter().enumerate() {
                let want = v && *it.next().unwrap();
                assert_eq!(get(&bits, start + i), want, "start {start} slot {i}");
            }
        });
    }
}
