//! Dictionary building for RLE_DICTIONARY (the inverse of [`crate::encoding::dictionary`]).
//!
//! An encoder interns each value into its dictionary (entries in first-occurrence order, as
//! parquet-cpp orders them) and appends the value's `u32` index to a caller's buffer; at the
//! end of a page the indices become RLE_DICTIONARY data ([`super::rle::encode_dictionary_indices`],
//! also [`DictEncoder::write_indices`]), and at the end of the column chunk the entries
//! become the PLAIN dictionary page ([`DictEncoder::write_dictionary_page`]).
//!
//! - [`DictEncoder`] for INT32, INT64, INT96, FLOAT, DOUBLE: an open-addressing table of entry
//!   indices keyed by the value's bits (floats are bit-exact: NaN payloads and -0.0 are their
//!   own entries, so values round-trip exactly).
//! - [`ByteArrayDictEncoder`] for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: entries' bytes in one
//!   arena, each entry's hash cached (a probe compares hashes before bytes, and growing the
//!   table rehashes nothing). No allocation per value.
//!
//! Tables use linear probing at a load of at most 1/2 (slots hold a 32-bit hash tag beside
//! the entry index, so a probe touches an entry only when the tags match), indexed by the
//! top bits of a folded multiply of the key with a per-encoder random seed (so crafted input cannot force
//! collisions); the seed never changes the output, which depends only on first occurrences.
//!
//! [`DictEncoder::dict_size_bytes`] is the size of the dictionary page the entries make, for
//! the caller's fallback check against a limit ([`DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT`],
//! pyarrow's default, 1 MiB).

use super::plain::{put_byte_array, put_fixed, PlainValue};
use super::rle::encode_dictionary_indices;
use super::{bad_offsets, offset_range, Bitmap};
use crate::encoding::plain::Int96;
use crate::encoding::{error, OffsetSize};
use crate::Result;

const NAME: &str = "RLE_DICTIONARY";

/// pyarrow's (parquet-cpp's) default dictionary page size limit: 1 MiB. A writer falls back
/// to the column's fallback encoding once [`DictEncoder::dict_size_bytes`] passes it.
pub const DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT: usize = 1 << 20;

/// The entry index of an empty table slot (a slot is a 32-bit hash tag above a 32-bit entry
/// index, so a probe rejects most other entries without touching them).
const EMPTY: u32 = u32::MAX;

/// A slot for entry `idx` of hash `h`.
#[inline(always)]
fn slot(h: u64, idx: usize) -> u64 {
    (h as u32 as u64) << 32 | idx as u64
}

/// True if slot `s` may hold an entry of hash `h` (its tag matches).
#[inline(always)]
fn tag_matches(s: u64, h: u64) -> bool {
    (s >> 32) as u32 == h as u32
}

/// The most entries: indices are `u32` and `u32::MAX` marks empty slots.
const MAX_ENTRIES: usize = (u32::MAX - 1) as usize;

/// A folded multiply: the high and low halves of the 128-bit product, XOR-ed.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

const K0: u64 = 0x9e37_79b9_7f4a_7c15;
const K1: u64 = 0xbf58_476d_1ce4_e5b9;

/// A random seed per encoder (from the standard library's per-process random keys).
fn random_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64)
}

/// Hashes a byte string: 8 bytes at a time through a folded multiply.
#[inline]
fn hash_bytes(b: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (b.len() as u64).wrapping_mul(K1);
    let (words, tail) = b.as_chunks::<8>();
    for w in words {
        h = fold_mul(h ^ u64::from_le_bytes(*w), K0);
    }
    if !tail.is_empty() {
        let mut last = [0u8; 8];
        last[..tail.len()].copy_from_slice(tail);
        h = fold_mul(h ^ u64::from_le_bytes(last), K0);
    }
    fold_mul(h ^ (h >> 32), K1)
}

/// A fixed-width value the dictionary encoder keys by its bits.
pub trait DictValue: PlainValue {
    /// A hash of the value's bits, mixed with `seed`.
    fn hash(self, seed: u64) -> u64;
    /// Bitwise equality.
    fn same(self, other: Self) -> bool;
}

macro_rules! dict_value {
    ($($t:ty => $bits:expr),*) => {$(
        impl DictValue for $t {
            #[inline(always)]
            fn hash(self, seed: u64) -> u64 {
                let f: fn($t) -> u64 = $bits;
                fold_mul(f(self) ^ seed, K0)
            }
            #[inline(always)]
            fn same(self, other: Self) -> bool {
                let f: fn($t) -> u64 = $bits;
                f(self) == f(other)
            }
        }
    )*};
}
dict_value!(
    i32 => |v| v as u32 as u64,
    i64 => |v| v as u64,
    f32 => |v| u64::from(v.to_bits()),
    f64 => |v| v.to_bits(),
    u16 => u64::from,
    u32 => u64::from,
    u64 => |v| v
);

impl DictValue for Int96 {
    #[inline(always)]
    fn hash(self, seed: u64) -> u64 {
        let lo = u64::from_le_bytes([
            self[0], self[1], self[2], self[3], self[4], self[5], self[6], self[7],
        ]);
        let hi = u64::from(u32::from_le_bytes([self[8], self[9], self[10], self[11]]));
        fold_mul(fold_mul(lo ^ seed, K0) ^ hi, K1)
    }
    #[inline(always)]
    fn same(self, other: Self) -> bool {
        self == other
    }
}

/// The linear-probing table shared by both encoders: slots hold hash tags and entry indices.
#[derive(Debug, Clone)]
struct Table {
    slots: Vec<u64>,
    /// `64 - log2(slots.len())`: a hash's top bits are its home slot.
    shift: u32,
    seed: u64,
}

impl Table {
    fn new() -> Self {
        Table {
            slots: vec![u64::from(EMPTY); 1024],
            shift: 64 - 10,
            seed: random_seed(),
        }
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    #[inline(always)]
    fn home(&self, h: u64) -> usize {
        (h >> self.shift) as usize
    }

    /// Doubles the table when `entries` (after an insertion) pass half of it, reinserting
    /// every entry by `hash_of(entry)`.
    #[inline]
    fn maybe_grow(&mut self, entries: usize, hash_of: impl Fn(usize) -> u64) {
        if entries * 2 <= self.slots.len() {
            return;
        }
        let cap = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(cap, u64::from(EMPTY));
        self.shift -= 1;
        let mask = self.mask();
        for e in 0..entries {
            let h = hash_of(e);
            let mut pos = self.home(h);
            while self.slots[pos] as u32 != EMPTY {
                pos = (pos + 1) & mask;
            }
            self.slots[pos] = slot(h, e);
        }
    }

    fn clear(&mut self) {
        self.slots.clear();
        self.slots.resize(1024, u64::from(EMPTY));
        self.shift = 64 - 10;
    }
}

#[cold]
#[inline(never)]
fn too_many(n: usize) -> crate::Error {
    error(
        NAME,
        format!("{n} more values could overflow the dictionary's {MAX_ENTRIES} entries"),
    )
}

/// A dictionary encoder of fixed-width values (`i32`, `i64`, [`Int96`], `f32`, `f64`).
#[derive(Debug, Clone)]
pub struct DictEncoder<T: DictValue> {
    entries: Vec<T>,
    table: Table,
}

impl<T: DictValue> Default for DictEncoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: DictValue> DictEncoder<T> {
    /// An empty dictionary.
    pub fn new() -> Self {
        DictEncoder {
            entries: Vec::new(),
            table: Table::new(),
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in index order.
    pub fn entries(&self) -> &[T] {
        &self.entries
    }

    /// The size in bytes of the PLAIN dictionary page the entries make.
    pub fn dict_size_bytes(&self) -> usize {
        self.entries.len() * T::WIDTH
    }

    /// Empties the dictionary (for the next column chunk), keeping its allocations.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.table.clear();
    }

    #[inline(always)]
    fn intern(&mut self, v: T) -> u32 {
        let seed = self.table.seed;
        let h = v.hash(seed);
        let mask = self.table.mask();
        let mut pos = self.table.home(h);
        loop {
            let s = self.table.slots[pos];
            if s as u32 == EMPTY {
                let idx = self.entries.len();
                self.entries.push(v);
                self.table.slots[pos] = slot(h, idx);
                let entries = &self.entries;
                self.table
                    .maybe_grow(entries.len(), |e| entries[e].hash(seed));
                return idx as u32;
            }
            if tag_matches(s, h) && self.entries[s as u32 as usize].same(v) {
                return s as u32;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Interns `values` and appends their indices to `indices`.
    pub fn put(&mut self, values: &[T], indices: &mut Vec<u32>) -> Result<()> {
        if values.len() > MAX_ENTRIES - self.entries.len() {
            return Err(too_many(values.len()));
        }
        indices.extend(values.iter().map(|&v| self.intern(v)));
        Ok(())
    }

    /// Interns the values of the slots set in `validity` (one bit per element of `values`)
    /// and appends their indices; returns how many.
    pub fn put_valid(
        &mut self,
        values: &[T],
        validity: Bitmap<'_>,
        indices: &mut Vec<u32>,
    ) -> Result<usize> {
        if validity.len() != values.len() {
            return Err(error(
                NAME,
                format!(
                    "{} validity bits for {} values",
                    validity.len(),
                    values.len()
                ),
            ));
        }
        if values.len() > MAX_ENTRIES - self.entries.len() {
            return Err(too_many(values.len()));
        }
        let mut n = 0;
        validity.for_each_set_run(|i, k| {
            indices.extend(values[i..i + k].iter().map(|&v| self.intern(v)));
            n += k;
        });
        Ok(n)
    }

    /// Appends the PLAIN dictionary page body (the entries).
    pub fn write_dictionary_page(&self, out: &mut Vec<u8>) {
        put_fixed(&self.entries, out);
    }

    /// Appends RLE_DICTIONARY data page values for `indices` (into this dictionary): the
    /// bit-width byte, then the hybrid-encoded indices.
    pub fn write_indices(&self, indices: &[u32], out: &mut Vec<u8>) -> Result<()> {
        encode_dictionary_indices(indices, self.entries.len(), out)
    }
}

/// A dictionary encoder of byte strings: BYTE_ARRAY ([`new`](Self::new)) or
/// FIXED_LEN_BYTE_ARRAY of one width ([`new_fixed`](Self::new_fixed)), which differ only in
/// the dictionary page (lengths or not) and its size.
#[derive(Debug, Clone)]
pub struct ByteArrayDictEncoder {
    /// Every entry's bytes, back to back.
    arena: Vec<u8>,
    /// Entry `i` is `arena[offsets[i]..offsets[i + 1]]` (starts with 0).
    offsets: Vec<i64>,
    hashes: Vec<u64>,
    table: Table,
    fixed: Option<usize>,
}

impl Default for ByteArrayDictEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ByteArrayDictEncoder {
    /// An empty BYTE_ARRAY dictionary.
    pub fn new() -> Self {
        ByteArrayDictEncoder {
            arena: Vec::new(),
            offsets: vec![0],
            hashes: Vec::new(),
            table: Table::new(),
            fixed: None,
        }
    }

    /// An empty FIXED_LEN_BYTE_ARRAY dictionary of values of `width` bytes.
    pub fn new_fixed(width: usize) -> Self {
        ByteArrayDictEncoder {
            fixed: Some(width),
            ..Self::new()
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Entry `i`'s bytes (empty if out of range).
    pub fn entry(&self, i: usize) -> &[u8] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => &self.arena[s as usize..e as usize],
            _ => &[],
        }
    }

    /// The size in bytes of the PLAIN dictionary page the entries make (4 bytes of length
    /// per entry for BYTE_ARRAY).
    pub fn dict_size_bytes(&self) -> usize {
        match self.fixed {
            Some(_) => self.arena.len(),
            None => self.arena.len() + 4 * self.len(),
        }
    }

    /// Empties the dictionary (for the next column chunk), keeping its allocations.
    pub fn clear(&mut self) {
        self.arena.clear();
        self.offsets.truncate(1);
        self.hashes.clear();
        self.table.clear();
    }

    #[inline(always)]
    fn intern(&mut self, v: &[u8]) -> u32 {
        let seed = self.table.seed;
        let h = hash_bytes(v, seed);
        let mask = self.table.mask();
        let mut pos = self.table.home(h);
        loop {
            let s = self.table.slots[pos];
            if s as u32 == EMPTY {
                let idx = self.hashes.len();
                self.arena.extend_from_slice(v);
                self.offsets.push(self.arena.len() as i64);
                self.hashes.push(h);
                self.table.slots[pos] = slot(h, idx);
                let hashes = &self.hashes;
                self.table.maybe_grow(hashes.len(), |e| hashes[e]);
                return idx as u32;
            }
            let e = s as u32 as usize;
            if tag_matches(s, h)
                && self.arena[self.offsets[e] as usize..self.offsets[e + 1] as usize] == *v
            {
                return e as u32;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Checks that `offsets` are valid and that their values are of the dictionary's width
    /// (for FIXED_LEN_BYTE_ARRAY).
    fn check_offsets<O: OffsetSize>(&self, offsets: &[O], values: &[u8]) -> Result<()> {
        offset_range(NAME, offsets, values)?;
        if offsets.len() - 1 > MAX_ENTRIES - self.len() {
            return Err(too_many(offsets.len() - 1));
        }
        if let Some(i) = offsets
            .windows(2)
            .position(|w| w[0].to_usize() > w[1].to_usize())
        {
            return Err(bad_offsets(NAME, i));
        }
        if let Some(width) = self.fixed {
            if let Some(i) = offsets
                .windows(2)
                .position(|w| w[1].to_usize().unwrap_or(0) - w[0].to_usize().unwrap_or(0) != width)
            {
                return Err(error(NAME, format!("value {i} is not {width} bytes long")));
            }
        }
        Ok(())
    }

    /// Interns the byte strings `offsets[i]..offsets[i + 1]` of `values` (Arrow-style) and
    /// appends their indices to `indices`. Offsets are checked first (an error before
    /// anything is interned).
    pub fn put<O: OffsetSize>(
        &mut self,
        offsets: &[O],
        values: &[u8],
        indices: &mut Vec<u32>,
    ) -> Result<()> {
        self.check_offsets(offsets, values)?;
        indices.extend(offsets.windows(2).map(|w| {
            let (s, e) = (w[0].to_usize().unwrap_or(0), w[1].to_usize().unwrap_or(0));
            self.intern(values.get(s..e).unwrap_or_default())
        }));
        Ok(())
    }

    /// Like [`put`](Self::put), for the slots set in `validity` only; returns how many.
    pub fn put_valid<O: OffsetSize>(
        &mut self,
        offsets: &[O],
        values: &[u8],
        validity: Bitmap<'_>,
        indices: &mut Vec<u32>,
    ) -> Result<usize> {
        self.check_offsets(offsets, values)?;
        if validity.len() != offsets.len() - 1 {
            return Err(error(
                NAME,
                format!(
                    "{} validity bits for {} values",
                    validity.len(),
                    offsets.len() - 1
                ),
            ));
        }
        let mut n = 0;
        validity.for_each_set_run(|i, k| {
            indices.extend(offsets[i..i + k + 1].windows(2).map(|w| {
                let (s, e) = (w[0].to_usize().unwrap_or(0), w[1].to_usize().unwrap_or(0));
                self.intern(values.get(s..e).unwrap_or_default())
            }));
            n += k;
        });
        Ok(n)
    }

    /// Interns FIXED_LEN_BYTE_ARRAY values stored back to back in `values` (the dictionary
    /// must have been made by [`new_fixed`](Self::new_fixed) with their width).
    pub fn put_fixed(&mut self, values: &[u8], indices: &mut Vec<u32>) -> Result<()> {
        let width = match self.fixed {
            Some(w) if w > 0 && values.len().is_multiple_of(w) => w,
            Some(0) if values.is_empty() => return Ok(()),
            _ => {
                return Err(error(
                    NAME,
                    format!(
                        "{} bytes are not whole values of the dictionary's width {:?}",
                        values.len(),
                        self.fixed
                    ),
                ))
            }
        };
        if values.len() / width > MAX_ENTRIES - self.len() {
            return Err(too_many(values.len() / width));
        }
        indices.extend(values.chunks_exact(width).map(|v| self.intern(v)));
        Ok(())
    }

    /// Appends the PLAIN dictionary page body: lengths and bytes for BYTE_ARRAY, the bytes
    /// for FIXED_LEN_BYTE_ARRAY.
    pub fn write_dictionary_page(&self, out: &mut Vec<u8>) -> Result<()> {
        match self.fixed {
            Some(_) => {
                out.extend_from_slice(&self.arena);
                Ok(())
            }
            None => put_byte_array(&self.offsets, &self.arena, out),
        }
    }

    /// Appends RLE_DICTIONARY data page values for `indices` (into this dictionary).
    pub fn write_indices(&self, indices: &[u32], out: &mut Vec<u8>) -> Result<()> {
        encode_dictionary_indices(indices, self.len(), out)
    }
}
