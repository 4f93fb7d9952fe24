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
/// the arena: its bytes and its length fit the key's 32 bytes.
pub(super) const SHORT: usize = 31;

/// The 64-bit words of a [`Short`] key.
const WORDS: usize = 4;

/// The bytes of a [`Short`] key.
const KEY_BYTES: usize = 8 * WORDS;

/// The length byte of the key of a string longer than [`SHORT`] bytes (no short key has it).
const LONG_LEN: u64 = 0xff;

/// A byte string of at most [`SHORT`] bytes as four little-endian words: its bytes,
/// zero-padded, with its length in the top byte (so that a string and its extension by
/// zero bytes differ). A longer string's key holds its first [`SHORT`] bytes and
/// [`LONG_LEN`]. Aligned so that a key never straddles two cache lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(32))]
pub(super) struct Short {
    pub(super) w: [u64; WORDS],
}

impl Short {
    /// Equality without a branch per word.
    #[inline(always)]
    pub(super) fn same(self, o: Short) -> bool {
        let [a0, a1, a2, a3] = self.w;
        let [b0, b1, b2, b3] = o.w;
        ((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) | (a3 ^ b3)) == 0
    }

    /// The string's first 8 bytes, zero-padded, as a big-endian word: it orders keys as
    /// their strings are ordered (unsigned bytes, a prefix first) wherever it differs.
    #[inline(always)]
    pub(super) fn prefix(self) -> u64 {
        self.w[0].swap_bytes()
    }
}

/// `LOW_BYTES[n]` keeps the low `n` bytes of a [`KEY_BYTES`]-byte little-endian load (as
/// words).
const LOW_BYTES: [[u64; WORDS]; SHORT + 1] = {
    let mut m = [[0u64; WORDS]; SHORT + 1];
    let mut n = 1;
    while n <= SHORT {
        let mut w = 0;
        while w < WORDS {
            let from = w * 8;
            if n > from {
                let k = if n - from >= 8 { 8 } else { n - from };
                m[n][w] = u64::MAX >> (64 - 8 * k);
            }
            w += 1;
        }
        n += 1;
    }
    m
};

/// The key of the masked words `w` of a string of `len` bytes (its bytes past [`SHORT`]
/// cleared).
#[inline(always)]
fn key(mut w: [u64; WORDS], len: usize) -> Short {
    let tag = if len <= SHORT { len as u64 } else { LONG_LEN };
    w[WORDS - 1] |= tag << 56;
    Short { w }
}

/// The words of `b`.
#[inline(always)]
fn words_of(b: &[u8; KEY_BYTES]) -> [u64; WORDS] {
    let (words, _) = b.as_chunks::<8>();
    let mut w = [0u64; WORDS];
    for (dst, src) in w.iter_mut().zip(words) {
        *dst = u64::from_le_bytes(*src);
    }
    w
}

/// The [`Short`] key of `v` from its own bytes (of any length).
#[inline(always)]
pub(super) fn short_of(v: &[u8]) -> Short {
    let mut buf = [0u8; KEY_BYTES];
    let n = v.len().min(SHORT);
    if let (Some(dst), Some(src)) = (buf.get_mut(..n), v.get(..n)) {
        dst.copy_from_slice(src);
    }
    key(words_of(&buf), v.len())
}

/// The [`Short`] key of `values[s..s + len]` (`len` at most [`SHORT`], the range in
/// `values`): one unaligned [`KEY_BYTES`]-byte load masked to `len` when `values` holds
/// that many bytes from `s`, else a copy.
#[inline(always)]
pub(super) fn short_at(values: &[u8], s: usize, len: usize) -> Short {
    match values
        .get(s..s.wrapping_add(KEY_BYTES))
        .and_then(|b| <&[u8; KEY_BYTES]>::try_from(b).ok())
    {
        Some(b) => {
            let mut w = words_of(b);
            let mask = LOW_BYTES[len.min(SHORT)];
            for (x, m) in w.iter_mut().zip(mask) {
                *x &= m;
            }
            key(w, len)
        }
        None => short_of(values.get(s..s.saturating_add(len)).unwrap_or_default()),
    }
}

/// The hash of a short string's key: two independent folded multiplies, of its first and
/// last two words, each mixed with the seed, XOR-ed (a string's length decides whether it
/// gets this hash or [`hash_bytes`]).
#[inline(always)]
pub(super) fn hash_short(k: Short, seed: u64) -> u64 {
    let [w0, w1, w2, w3] = k.w;
    let a = fold_mul(w0 ^ seed, w1 ^ seed.rotate_left(32) ^ K1);
    let b = fold_mul(
        w2 ^ seed.rotate_left(16) ^ K0,
        w3 ^ seed.rotate_left(48) ^ K1,
    );
    a ^ b
}
