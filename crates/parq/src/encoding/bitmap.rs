//! LSB-first bitmaps (the Arrow validity and boolean layout): [`BitAppender`], which appends
//! bits to a byte vector a 64-bit word at a time, and the range helpers [`set_bits`] and
//! [`copy_bits`].
//!
//! The decoders of 1-bit data (definition levels of a column with max level 1, PLAIN and RLE
//! booleans) write through a [`BitAppender`]: an RLE run is a word fill, a bit-packed run a
//! byte copy (a plain `memcpy` when the output is byte-aligned), so no bit is handled alone.

/// Appends bits to an LSB-first bitmap held in a `Vec<u8>`, from a given bit position on.
///
/// Bits are gathered in a 64-bit accumulator and written out 8 bytes at a time into the
/// vector, which is sized up front for the bits announced (and grown if more come); the
/// last, partial word is written and the vector cut to the last bit appended (rounded up to
/// a byte) when the appender is dropped: bits after the starting position are replaced.
pub(crate) struct BitAppender<'o> {
    out: &'o mut Vec<u8>,
    /// Bytes of `out` holding appended (or kept) bits; the accumulator goes after them.
    pos: usize,
    /// Pending bits (the low `nbits` are valid, the rest zero).
    acc: u64,
    /// `< 64` between calls.
    nbits: u32,
}

impl<'o> BitAppender<'o> {
    /// An appender writing from bit `bit` of `out` on (bits before it are kept; `out` is
    /// grown with zeros if it is shorter), with room for `n` more bits.
    pub(crate) fn at(out: &'o mut Vec<u8>, bit: usize, n: usize) -> Self {
        let byte = bit / 8;
        let nbits = (bit % 8) as u32;
        let acc = match out.get(byte) {
            Some(&b) if nbits > 0 => u64::from(b) & ((1u64 << nbits) - 1),
            _ => 0,
        };
        out.truncate(byte);
        out.resize(byte + n.div_ceil(8) + 16, 0);
        BitAppender {
            out,
            pos: byte,
            acc,
            nbits,
        }
    }

    /// Room for `bytes` more bytes at `pos`.
    #[inline(always)]
    fn room(&mut self, bytes: usize) {
        if self.pos + bytes > self.out.len() {
            self.grow(bytes);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, bytes: usize) {
        let len = (self.pos + bytes).max(self.out.len() * 2);
        self.out.resize(len, 0);
    }

    /// Writes the full accumulator word.
    #[inline(always)]
    fn flush(&mut self) {
        self.room(8);
        self.out[self.pos..self.pos + 8].copy_from_slice(&self.acc.to_le_bytes());
        self.pos += 8;
    }

    /// Appends the low `k` bits of `bits` (`1 <= k <= 64`; `bits` has no bit at or above `k`).
    #[inline(always)]
    pub(crate) fn push(&mut self, bits: u64, k: u32) {
        debug_assert!((1..=64).contains(&k));
        debug_assert!(k == 64 || bits >> k == 0);
        self.acc |= bits << self.nbits;
        let total = self.nbits + k;
        if total >= 64 {
            self.flush();
            self.acc = if self.nbits == 0 {
                0
            } else {
                bits >> (64 - self.nbits)
            };
            self.nbits = total - 64;
        } else {
            self.nbits = total;
        }
    }

    /// Appends every bit of `src` (whole bytes, LSB first).
    #[inline]
    pub(crate) fn push_bytes(&mut self, src: &[u8]) {
        if src.len() <= 8 {
            if !src.is_empty() {
                self.push(le_word(src), src.len() as u32 * 8);
            }
            return;
        }
        if self.nbits == 0 {
            self.room(src.len());
            self.out[self.pos..self.pos + src.len()].copy_from_slice(src);
            self.pos += src.len();
            return;
        }
        let mut words = src.chunks_exact(8);
        for w in &mut words {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            self.push(u64::from_le_bytes(b), 64);
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            self.push(le_word(rest), rest.len() as u32 * 8);
        }
    }

    /// Appends `n` copies of `value`.
    #[inline]
    pub(crate) fn push_run(&mut self, value: bool, mut n: usize) {
        let word = if value { u64::MAX } else { 0 };
        if n <= 64 {
            if n > 0 {
                self.push(word & low_bits(n), n as u32);
            }
            return;
        }
        if self.nbits > 0 {
            let k = 64 - self.nbits as usize;
            self.push(word & low_bits(k), k as u32);
            n -= k;
        }
        let bytes = n / 64 * 8;
        self.room(bytes);
        self.out[self.pos..self.pos + bytes].fill(word as u8);
        self.pos += bytes;
        n %= 64;
        if n > 0 {
            self.push(word & low_bits(n), n as u32);
        }
    }
}

impl Drop for BitAppender<'_> {
    fn drop(&mut self) {
        let bytes = (self.nbits as usize).div_ceil(8);
        self.room(8);
        self.out[self.pos..self.pos + 8].copy_from_slice(&self.acc.to_le_bytes());
        self.out.truncate(self.pos + bytes);
    }
}

/// Up to 8 bytes as a little-endian word (without a call to `memcpy`).
#[inline(always)]
fn le_word(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |w, (i, &b)| w | u64::from(b) << (8 * i))
}

/// The low `n` bits set (`n <= 64`).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Sets (or clears) bits `start..start + n` of the LSB-first bitmap `bytes`.
pub(crate) fn set_bits(bytes: &mut [u8], start: usize, n: usize, value: bool) {
    if n == 0 {
        return;
    }
    let end = start + n;
    let (first, last) = (start / 8, (end - 1) / 8);
    let head = 0xffu8 << (start % 8);
    let tail = 0xffu8 >> (7 - (end - 1) % 8);
    let apply = |b: &mut u8, mask: u8| {
        if value {
            *b |= mask
        } else {
            *b &= !mask
        }
    };
    if first == last {
        apply(&mut bytes[first], head & tail);
        return;
    }
    apply(&mut bytes[first], head);
    bytes[first + 1..last].fill(if value { 0xff } else { 0 });
    apply(&mut bytes[last], tail);
}

/// Copies the first `n` bits of the LSB-first bitmap `src` to bits `dst_start..dst_start + n`
/// of `dst`, keeping `dst`'s other bits.
pub(crate) fn copy_bits(src: &[u8], n: usize, dst: &mut [u8], dst_start: usize) {
    if n == 0 {
        return;
    }
    let full = n / 8;
    let shift = dst_start % 8;
    let d0 = dst_start / 8;
    if shift == 0 {
        dst[d0..d0 + full].copy_from_slice(&src[..full]);
    } else {
        set_bits(dst, dst_start, full * 8, false);
        for (i, &b) in src[..full].iter().enumerate() {
            dst[d0 + i] |= b << shift;
            dst[d0 + i + 1] |= b >> (8 - shift);
        }
    }
    for i in full * 8..n {
        let bit = src[i / 8] >> (i % 8) & 1 != 0;
        set_bits(dst, dst_start + i, 1, bit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(bits: &[u8], i: usize) -> bool {
        bits[i / 8] >> (i % 8) & 1 != 0
    }

    /// Appending runs, words and bytes from every start position gives the scalar result.
    #[test]
    fn appender_matches_scalar() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for start in 0..70 {
            for round in 0..20 {
                let mut out: Vec<u8> = (0..(start + 9) / 8 + (round % 3)).map(|_| 0xA5).collect();
                let before = out.clone();
                let mut want: Vec<bool> = Vec::new();
                {
                    let mut a = BitAppender::at(&mut out, start, 0);
                    for _ in 0..(next() % 12) {
                        match next() % 3 {
                            0 => {
                                let k = 1 + (next() % 64) as u32;
                                let bits = next() & low_bits(k as usize);
                                a.push(bits, k);
                                want.extend((0..k).map(|i| bits >> i & 1 != 0));
                            }
                            1 => {
                                let v = next() % 2 == 0;
                                let n = (next() % 200) as usize;
                                a.push_run(v, n);
                                want.extend(std::iter::repeat_n(v, n));
                            }
                            _ => {
                                let bytes: Vec<u8> =
                                    (0..next() % 20).map(|_| next() as u8).collect();
                                a.push_bytes(&bytes);
                                want.extend(
                                    (0..bytes.len() * 8).map(|i| bytes[i / 8] >> (i % 8) & 1 != 0),
                                );
                            }
                        }
                    }
                }
                assert_eq!(
                    out.len(),
                    (start + want.len())
                        .div_ceil(8)
                        .max(start / 8 + usize::from(start % 8 > 0))
                );
                for i in 0..start {
                    assert_eq!(get(&out, i), get(&before, i), "kept bit {i}");
                }
                for (i, &w) in want.iter().enumerate() {
                    assert_eq!(get(&out, start + i), w, "start {start} bit {i}");
                }
                // Bits after the last one appended (in the last byte) are zero.
                for i in start + want.len()..out.len() * 8 {
                    assert!(!get(&out, i), "start {start} trailing bit {i}");
                }
            }
        }
    }
}
