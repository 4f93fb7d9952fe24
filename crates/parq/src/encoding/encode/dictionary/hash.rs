//! The hashing of the dictionary encoders: a folded multiply, the per-encoder random seed,
//! byte strings hashed a word at a time, and strings of at most [`SHORT`] bytes keyed by
//! their bytes as two words and their length.

/// A folded multiply: the high and low halves of the 128-bit product, XOR-ed.
#[inline(always)]
pub(super) fn fold_mul(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

pub(super) const K0: u64 = 0x9e37_79b9_7f4a_7c15;
pub(super) const K1: u64 = 0xbf58_476d_1ce4_e5b9;

/// A random seed per encoder (from the standard library's per-process random keys).
pub(super) fn random_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64)
}

/// Hashes a byte string: 8 bytes at a time through a folded multiply; the last, partial
/// word of a string of 8 bytes or more is its last 8 bytes (overlapping the word before:
/// the length, hashed first, tells the strings apart).
#[inline]
pub(super) fn hash_bytes(b: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (b.len() as u64).wrapping_mul(K1);
    let (words, tail) = b.as_chunks::<8>();
    for w in words {
        h = fold_mul(h ^ u64::from_le_bytes(*w), K0);
    }
    if !tail.is_empty() {
        let last = match b.last_chunk::<8>() {
            Some(w) => *w,
            None => {
                let mut last = [0u8; 8];
                last[..tail.len()].copy_from_slice(tail);
                last
            }
        };
        h = fold_mul(h ^ u64::from_le_bytes(last), K0);
    }
    fold_mul(h ^ (h >> 32), K1)
}

/// Byte string equality, inline for strings of 8 to 32 bytes (two overlapping halves).
#[inline(always)]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if (16..=32).contains(&n) {
        return a.first_chunk::<16>() == b.first_chunk::<16>()
            && a.last_chunk::<16>() == b.last_chunk::<16>();
    }
    if (8..16).contains(&n) {
        return a.first_chunk::<8>() == b.first_chunk::<8>()
            && a.last_chunk::<8>() == b.last_chunk::<8>();
    }
    a == b
}

/// The longest byte string keyed by its bytes inline ([`Short`]) rather than compared in
/// the arena.
pub(super) const SHORT: usize = 16;

/// A byte string of at most [`SHORT`] bytes as two zero-padded little-endian words and its
/// length (which tell it apart from every other string); longer strings keep only `len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Short {
    pub(super) lo: u64,
    pub(super) hi: u64,
    pub(super) len: u64,
}

impl Short {
    /// Equality without a branch per field.
    #[inline(always)]
    pub(super) fn same(self, o: Short) -> bool {
        ((self.lo ^ o.lo) | (self.hi ^ o.hi) | (self.len ^ o.len)) == 0
    }
}

/// `LOW_BYTES[n]` keeps the low `n` bytes of a 16-byte little-endian load (as two words).
const LOW_BYTES: [[u64; 2]; SHORT + 1] = {
    let mut m = [[0u64; 2]; SHORT + 1];
    let mut n = 1;
    while n <= SHORT {
        let lo = if n >= 8 { 8 } else { n };
        m[n][0] = u64::MAX >> (64 - 8 * lo);
        if n > 8 {
            m[n][1] = u64::MAX >> (64 - 8 * (n - 8));
        }
        n += 1;
    }
    m
};

/// The [`Short`] key of `v` (at most [`SHORT`] bytes) from its own bytes.
#[inline(always)]
pub(super) fn short_of(v: &[u8]) -> Short {
    let mut buf = [0u8; SHORT];
    let n = v.len().min(SHORT);
    if let (Some(dst), Some(src)) = (buf.get_mut(..n), v.get(..n)) {
        dst.copy_from_slice(src);
    }
    let (lo, hi) = buf.split_at(8);
    Short {
        lo: u64::from_le_bytes(lo.try_into().unwrap_or_default()),
        hi: u64::from_le_bytes(hi.try_into().unwrap_or_default()),
        len: v.len() as u64,
    }
}

/// The [`Short`] key of `values[s..s + len]` (`len` at most [`SHORT`], the range in
/// `values`): one unaligned 16-byte load masked to `len` when `values` holds 16 bytes from
/// `s`, else a copy.
#[inline(always)]
pub(super) fn short_at(values: &[u8], s: usize, len: usize) -> Short {
    match values.get(s..s.wrapping_add(SHORT)) {
        Some(w) => {
            let (lo, hi) = w.split_at(8);
            let lo = u64::from_le_bytes(lo.try_into().unwrap_or_default());
            let hi = u64::from_le_bytes(hi.try_into().unwrap_or_default());
            let [ml, mh] = LOW_BYTES[len.min(SHORT)];
            Short {
                lo: lo & ml,
                hi: hi & mh,
                len: len as u64,
            }
        }
        None => short_of(values.get(s..s.saturating_add(len)).unwrap_or_default()),
    }
}

/// The hash of a short string's key: one folded multiply of its two words, each mixed with
/// the seed (a string's length decides whether it gets this hash or [`hash_bytes`]).
#[inline(always)]
pub(super) fn hash_short(k: Short, seed: u64) -> u64 {
    fold_mul(
        k.lo ^ seed,
        k.hi ^ k.len.wrapping_mul(K0) ^ seed.rotate_left(32) ^ K1,
    )
}
