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
//!   table rehashes nothing). Strings of at most 31 bytes (most dictionary strings) are keyed
//!   by their bytes and length as four words: one masked 32-byte load hashes them with two
//!   independent multiplies, and a probe compares the keys (one cache line), not the
//!   arena's bytes, without a branch on the length.
//!   No allocation per value.
//!
//! A lookup checks a value's home slot and the next one without a branch between them (at
//! the table's load, nearly every value present is in one of the two), and probes further
//! out of line. For values of at most 32 bits the slot's tag is the value itself, so a lookup
//! reads no entry.
//!
//! Tables use linear probing at a load of at most 1/2 (slots hold a 32-bit hash tag beside
//! the entry index, so a probe touches an entry only when the tags match; small tables, which
//! stay in the cache, at most 1/4, so that new entries rarely probe past a slot), indexed by the
//! top bits of a folded multiply of the key with a per-encoder random seed (so crafted input cannot force
//! collisions); the seed never changes the output, which depends only on first occurrences.
//! A table starts at [`INITIAL_SLOTS`] slots and doubles as entries arrive, so a dictionary
//! of few entries costs a few hundred bytes (a writer holds one per column, and a wide schema
//! has many columns). A writer that keeps many idle dictionaries can free their tables with
//! `release_table` (the entries stay; the next `put` rebuilds the table from them).
//!
//! For a writer that gives up the dictionary after some values (the dictionary does not pay,
//! see [`DictEncoder::plain_size`]), `gather` turns indices back into the values they stand
//! for, to encode them another way.
//!
//! [`DictEncoder::dict_size_bytes`] is the size of the dictionary page the entries make, for
//! the caller's fallback check against a limit ([`DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT`],
//! pyarrow's default, 1 MiB).

mod hash;

use super::plain::{put_byte_array, put_fixed, PlainValue};
use super::rle::encode_dictionary_indices;
use super::{bad_offsets, check_validity, offset_range, ranges_of, Bitmap};
use crate::encoding::plain::Int96;
use crate::encoding::{error, OffsetSize};
use crate::Result;
use hash::{
    fold_mul, hash_bytes, hash_short, random_seed, same_bytes, short_at, short_of, Short, K0, K1,
    SHORT,
};

const NAME: &str = "RLE_DICTIONARY";

/// pyarrow's (parquet-cpp's) default dictionary page size limit: 1 MiB. A writer falls back
/// to the column's fallback encoding once [`DictEncoder::dict_size_bytes`] passes it.
pub const DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT: usize = 1 << 20;

/// The slots of a new table (a power of two); it doubles whenever the entries pass its load
/// limit.
pub const INITIAL_SLOTS: usize = 16;

/// Tables of fewer slots than this are kept at a load of at most 1/4 (they stay in the
/// cache, and inserting many distinct values probes less); larger ones at most 1/2.
const SMALL_TABLE_SLOTS: usize = 1 << 14;

/// True if `slots` slots hold `entries` entries within the load limit.
#[inline(always)]
fn fits(entries: usize, slots: usize) -> bool {
    let per_entry = if slots < SMALL_TABLE_SLOTS { 4 } else { 2 };
    entries.saturating_mul(per_entry) <= slots
}

/// The slots of the smallest table that holds `entries` entries within the load limit.
fn slots_for(entries: usize) -> usize {
    let mut cap = INITIAL_SLOTS;
    while !fits(entries, cap) && cap < 1 << (usize::BITS - 2) {
        cap *= 2;
    }
    cap
}

/// The entry index of an empty table slot (a slot is a 32-bit hash tag above a 32-bit entry
/// index, so a probe rejects most other entries without touching them).
const EMPTY: u32 = u32::MAX;

/// A slot for entry `idx` of hash `h`.
#[inline(always)]
fn slot(h: u64, idx: usize) -> u64 {
    (h as u32 as u64) << 32 | idx as u64
}

/// True if slot `s` holds an entry (is not empty) whose tag matches hash `h`'s: the slot
/// XOR-ed with the tag is below [`EMPTY`] only if its tag half clears and its index is not
/// [`EMPTY`].
#[inline(always)]
fn hit(s: u64, h: u64) -> bool {
    (s ^ (h << 32)) < u64::from(EMPTY)
}

/// True if slot `s` may hold an entry of hash `h` (its tag matches).
#[inline(always)]
fn tag_matches(s: u64, h: u64) -> bool {
    (s >> 32) as u32 == h as u32
}

/// The most entries: indices are `u32` and `u32::MAX` marks empty slots.
const MAX_ENTRIES: usize = (u32::MAX - 1) as usize;

/// A fixed-width value the dictionary encoder keys by its bits.
pub trait DictValue: PlainValue {
    /// True if the low 32 bits of [`hash`](Self::hash) are the value's bits (for values
    /// of at most 32 bits): a slot's tag then is the value, and a probe whose tag matches
    /// has found it without reading the entry.
    const TAG_IS_VALUE: bool = false;
    /// A hash of the value's bits, mixed with `seed`.
    fn hash(self, seed: u64) -> u64;
    /// Bitwise equality.
    fn same(self, other: Self) -> bool;
}

/// The hash of a value of at most 32 bits: a folded multiply's high half (which indexes the
/// table) above the value's bits (the slot's tag).
#[inline(always)]
fn hash32(bits: u32, seed: u64) -> u64 {
    (fold_mul(u64::from(bits) ^ seed, K0) & !u64::from(u32::MAX)) | u64::from(bits)
}

macro_rules! dict_value32 {
    ($($t:ty => $bits:expr),*) => {$(
        impl DictValue for $t {
            const TAG_IS_VALUE: bool = true;
            #[inline(always)]
            fn hash(self, seed: u64) -> u64 {
                let f: fn($t) -> u32 = $bits;
                hash32(f(self), seed)
            }
            #[inline(always)]
            fn same(self, other: Self) -> bool {
                let f: fn($t) -> u32 = $bits;
                f(self) == f(other)
            }
        }
    )*};
}
dict_value32!(
    i32 => |v| v as u32,
    f32 => |v| v.to_bits(),
    u16 => u32::from,
    u32 => |v| v
);

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
    i64 => |v| v as u64,
    f64 => |v| v.to_bits(),
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
            slots: vec![u64::from(EMPTY); INITIAL_SLOTS],
            shift: 64 - INITIAL_SLOTS.trailing_zeros(),
            seed: random_seed(),
        }
    }

    /// A table that takes `entries` entries without growing.
    fn for_entries(entries: usize) -> Self {
        let cap = slots_for(entries);
        Table {
            slots: vec![u64::from(EMPTY); cap],
            shift: 64 - cap.trailing_zeros(),
            seed: random_seed(),
        }
    }

    /// True when the slots were released (see [`Table::release`]); `rebuild` first.
    #[inline(always)]
    fn is_released(&self) -> bool {
        self.slots.is_empty()
    }

    /// Frees the slots; [`Table::rebuild`] makes them again from the entries.
    fn release(&mut self) {
        self.slots = Vec::new();
    }

    /// Makes the slots of a released table for `entries` entries (the smallest table that
    /// holds them within the load limit), inserting every entry by `hash_of(entry)`.
    #[cold]
    fn rebuild(&mut self, entries: usize, hash_of: impl Fn(usize) -> u64) {
        self.fill(slots_for(entries), entries, hash_of);
    }

    /// Replaces the slots by `cap` (a power of two) slots holding entries `0..entries`.
    fn fill(&mut self, cap: usize, entries: usize, hash_of: impl Fn(usize) -> u64) {
        self.slots = vec![u64::from(EMPTY); cap];
        self.shift = 64 - cap.trailing_zeros();
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

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    #[inline(always)]
    fn home(&self, h: u64) -> usize {
        (h >> self.shift) as usize
    }

    /// Doubles the table when `entries` (after an insertion) pass its load limit,
    /// reinserting every entry by `hash_of(entry)`.
    #[inline]
    fn maybe_grow(&mut self, entries: usize, hash_of: impl Fn(usize) -> u64) {
        if fits(entries, self.slots.len()) {
            return;
        }
        self.grow(entries, hash_of);
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, entries: usize, hash_of: impl Fn(usize) -> u64) {
        let cap = self.slots.len() * 2;
        self.fill(cap, entries, hash_of);
    }

    /// Back to a new table's size (the larger slots are freed).
    fn clear(&mut self) {
        self.slots = vec![u64::from(EMPTY); INITIAL_SLOTS];
        self.shift = 64 - INITIAL_SLOTS.trailing_zeros();
    }

    /// Heap bytes of the slots.
    fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<u64>()
    }
}

#[cold]
#[inline(never)]
fn bad_index(i: u32, len: usize) -> crate::Error {
    error(
        NAME,
        format!("index {i} is out of a dictionary of {len} entries"),
    )
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

    /// An empty dictionary whose table and entries take `entries` entries without growing
    /// (for a caller that expects that many: its table is sized once, not doubled on the
    /// way). The output is that of [`DictEncoder::new`].
    pub fn with_capacity(entries: usize) -> Self {
        DictEncoder {
            entries: Vec::with_capacity(entries),
            table: Table::for_entries(entries),
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

    /// Empties the dictionary (for the next column chunk), keeping the entries' allocation;
    /// the table goes back to its initial size.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.table.clear();
    }

    /// Frees the hash table and the spare room of the entries (for a writer holding many
    /// idle dictionaries); the next `put` rebuilds the table from the entries.
    pub fn release_table(&mut self) {
        self.table.release();
        self.entries.shrink_to_fit();
    }

    /// Heap bytes held (entries and table).
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<T>() + self.table.heap_bytes()
    }

    /// Heap bytes of the hash table (what [`release_table`](Self::release_table) frees).
    pub fn table_bytes(&self) -> usize {
        self.table.heap_bytes()
    }

    /// The PLAIN size of the values `indices` stand for (what the dictionary saves against).
    pub fn plain_size(&self, indices: &[u32]) -> usize {
        indices.len() * T::WIDTH
    }

    /// Appends the values `indices` stand for to `out`. Errors (appending nothing) for an
    /// index out of the dictionary.
    pub fn gather(&self, indices: &[u32], out: &mut Vec<T>) -> Result<()> {
        let len = self.entries.len();
        if let Some(&i) = indices.iter().find(|&&i| i as usize >= len) {
            return Err(bad_index(i, len));
        }
        out.reserve(indices.len());
        out.extend(
            indices
                .iter()
                .filter_map(|&i| self.entries.get(i as usize).copied()),
        );
        Ok(())
    }

    /// Rebuilds a released table.
    #[inline]
    fn ready(&mut self) {
        if self.table.is_released() {
            let (entries, seed) = (&self.entries, self.table.seed);
            self.table.rebuild(entries.len(), |e| entries[e].hash(seed));
        }
    }

    /// Interns `values` and appends their indices.
    #[inline(always)]
    fn intern_all(&mut self, values: &[T], indices: &mut Vec<u32>) {
        indices.extend(values.iter().map(|&v| self.intern(v)));
    }

    /// Interns `v`: its index, found or new. Most values are found at their home slot or
    /// the next (both checked without a branch between them); the rest probe on.
    #[inline(always)]
    fn intern(&mut self, v: T) -> u32 {
        let h = v.hash(self.table.seed);
        let mask = self.table.mask();
        let pos = self.table.home(h);
        let s0 = self.table.slots[pos];
        let s1 = self.table.slots[(pos + 1) & mask];
        let (m0, m1) = (hit(s0, h), hit(s1, h));
        if m0 | m1 {
            let s = if m0 { s0 } else { s1 };
            if T::TAG_IS_VALUE || self.entries[s as u32 as usize].same(v) {
                return s as u32;
            }
        }
        if s0 as u32 == EMPTY {
            // A new value (no entry sits past an empty slot of its probe) goes to its home
            // slot here when neither the entries nor the table need to grow for it.
            let idx = self.entries.len();
            if idx < self.entries.capacity() && fits(idx + 1, self.table.slots.len()) {
                self.entries.push(v);
                self.table.slots[pos] = slot(h, idx);
                return idx as u32;
            }
        }
        self.probe(v, h, pos)
    }

    /// Interns `v` of hash `h` by probing from its home slot `pos`.
    #[inline(never)]
    fn probe(&mut self, v: T, h: u64, mut pos: usize) -> u32 {
        let mask = self.table.mask();
        loop {
            let s = self.table.slots[pos];
            if s as u32 == EMPTY {
                return self.insert(v, h, pos);
            }
            if tag_matches(s, h) && (T::TAG_IS_VALUE || self.entries[s as u32 as usize].same(v)) {
                return s as u32;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Adds entry `v` (of hash `h`) at the empty slot `pos`.
    #[inline(never)]
    fn insert(&mut self, v: T, h: u64, pos: usize) -> u32 {
        let seed = self.table.seed;
        let idx = self.entries.len();
        self.entries.push(v);
        self.table.slots[pos] = slot(h, idx);
        let entries = &self.entries;
        self.table
            .maybe_grow(entries.len(), |e| entries[e].hash(seed));
        idx as u32
    }

    /// Interns `values` and appends their indices to `indices`.
    pub fn put(&mut self, values: &[T], indices: &mut Vec<u32>) -> Result<()> {
        if values.len() > MAX_ENTRIES - self.entries.len() {
            return Err(too_many(values.len()));
        }
        self.ready();
        self.intern_all(values, indices);
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
        check_validity(NAME, &validity, values.len())?;
        if values.len() > MAX_ENTRIES - self.entries.len() {
            return Err(too_many(values.len()));
        }
        self.ready();
        let mut n = 0;
        validity.for_each_set_run(|i, k| {
            self.intern_all(&values[i..i + k], indices);
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
    /// Each entry's [`Short`] key (for a longer entry, of its first [`SHORT`] bytes: such
    /// keys match no string's, since a string that long is never looked up by key).
    shorts: Vec<Short>,
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
            shorts: Vec::new(),
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
            (Some(&s), Some(&e)) => self.arena.get(s as usize..e as usize).unwrap_or_default(),
            _ => &[],
        }
    }

    /// The entries of `indices` with the least and the greatest bytes (compared as
    /// unsigned bytes, a prefix before its extensions), or `None` for no indices. Entries
    /// are compared by their first 8 bytes as a big-endian word, and by their bytes only
    /// where those tie, so that a value costs a load and two compares. Indices out of the
    /// dictionary stand for the empty string.
    pub fn min_max_entries(&self, indices: &[u32]) -> Option<(u32, u32)> {
        let prefix = |i: u32| {
            self.shorts
                .get(i as usize)
                .map_or(0, |k| k.prefix())
        };
        let (&first, rest) = indices.split_first()?;
        let (mut lo, mut hi) = (first, first);
        let (mut lo_key, mut hi_key) = (prefix(first), prefix(first));
        for &i in rest {
            let k = prefix(i);
            if k < lo_key
                || (k == lo_key && i != lo && self.entry(i as usize) < self.entry(lo as usize))
            {
                (lo, lo_key) = (i, k);
            } else if k > hi_key
                || (k == hi_key && i != hi && self.entry(i as usize) > self.entry(hi as usize))
            {
                (hi, hi_key) = (i, k);
            }
        }
        Some((lo, hi))
    }

    /// The size in bytes of the PLAIN dictionary page the entries make (4 bytes of length
    /// per entry for BYTE_ARRAY).
    pub fn dict_size_bytes(&self) -> usize {
        match self.fixed {
            Some(_) => self.arena.len(),
            None => self.arena.len() + 4 * self.len(),
        }
    }

    /// Empties the dictionary (for the next column chunk), keeping the entries' allocations;
    /// the table goes back to its initial size.
    pub fn clear(&mut self) {
        self.arena.clear();
        self.offsets.truncate(1);
        self.hashes.clear();
        self.shorts.clear();
        self.table.clear();
    }

    /// Frees the hash table and the spare room of the entries (for a writer holding many
    /// idle dictionaries); the next `put` rebuilds the table from the cached hashes.
    pub fn release_table(&mut self) {
        self.table.release();
        self.arena.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.hashes.shrink_to_fit();
        self.shorts.shrink_to_fit();
    }

    /// Heap bytes of the hash table (what [`release_table`](Self::release_table) frees).
    pub fn table_bytes(&self) -> usize {
        self.table.heap_bytes()
    }

    /// Heap bytes held (entries, their offsets and hashes, and the table).
    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity()
            + self.offsets.capacity() * std::mem::size_of::<i64>()
            + self.hashes.capacity() * std::mem::size_of::<u64>()
            + self.shorts.capacity() * std::mem::size_of::<Short>()
            + self.table.heap_bytes()
    }

    /// The PLAIN size of the values `indices` stand for (4 bytes of length each for
    /// BYTE_ARRAY); indices out of the dictionary count for nothing.
    pub fn plain_size(&self, indices: &[u32]) -> usize {
        match self.fixed {
            Some(w) => indices.len() * w,
            None => indices
                .iter()
                .map(|&i| 4 + self.entry(i as usize).len())
                .sum(),
        }
    }

    /// Replaces `offsets` and `data` with the values `indices` stand for, Arrow-style
    /// (`offsets` starts with 0). Errors for an index out of the dictionary.
    pub fn gather(
        &self,
        indices: &[u32],
        offsets: &mut Vec<i64>,
        data: &mut Vec<u8>,
    ) -> Result<()> {
        offsets.clear();
        data.clear();
        offsets.reserve(indices.len() + 1);
        offsets.push(0);
        for &i in indices {
            let (Some(&s), Some(&e)) = (
                self.offsets.get(i as usize),
                self.offsets.get(i as usize + 1),
            ) else {
                return Err(bad_index(i, self.len()));
            };
            let v = self
                .arena
                .get(s as usize..e as usize)
                .ok_or_else(|| bad_index(i, self.len()))?;
            data.extend_from_slice(v);
            offsets.push(data.len() as i64);
        }
        Ok(())
    }

    /// Rebuilds a released table.
    #[inline]
    fn ready(&mut self) {
        if self.table.is_released() {
            let hashes = &self.hashes;
            self.table.rebuild(hashes.len(), |e| hashes[e]);
        }
    }

    /// Interns `v`.
    #[inline(always)]
    fn intern(&mut self, v: &[u8]) -> u32 {
        if v.len() <= SHORT {
            self.intern_short(v, 0, v.len(), short_of(v))
        } else {
            self.intern_long(v)
        }
    }

    /// Interns `values[s..e]` (a range of `values`).
    #[inline(always)]
    fn intern_at(&mut self, values: &[u8], s: usize, e: usize) -> u32 {
        let len = e.saturating_sub(s);
        if len <= SHORT {
            self.intern_short(values, s, e, short_at(values, s, len))
        } else {
            self.intern_long(values.get(s..e).unwrap_or_default())
        }
    }

    /// Interns `values[s..e]` of at most [`SHORT`] bytes, of key `k`: a probe compares
    /// keys, never bytes.
    #[inline(always)]
    fn intern_short(&mut self, values: &[u8], s: usize, e: usize, k: Short) -> u32 {
        let h = hash_short(k, self.table.seed);
        let mask = self.table.mask();
        let home = self.table.home(h);
        // The home slot and the next, without a branch between them.
        let s0 = self.table.slots[home];
        let s1 = self.table.slots[(home + 1) & mask];
        let (m0, m1) = (hit(s0, h), hit(s1, h));
        if m0 | m1 {
            let found = if m0 { s0 } else { s1 };
            if self.shorts[found as u32 as usize].same(k) {
                return found as u32;
            }
        }
        self.probe_short(values.get(s..e).unwrap_or_default(), k, h, home)
    }

    /// Interns `v` of key `k` and hash `h` by probing from its home slot `pos`.
    #[inline(never)]
    fn probe_short(&mut self, v: &[u8], k: Short, h: u64, mut pos: usize) -> u32 {
        let mask = self.table.mask();
        loop {
            let s = self.table.slots[pos];
            if s as u32 == EMPTY {
                return self.insert(v, h, pos);
            }
            let e = s as u32 as usize;
            if tag_matches(s, h) && self.shorts[e] == k {
                return e as u32;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Interns `v` of more than [`SHORT`] bytes.
    #[inline(never)]
    fn intern_long(&mut self, v: &[u8]) -> u32 {
        let h = hash_bytes(v, self.table.seed);
        let mask = self.table.mask();
        let mut pos = self.table.home(h);
        loop {
            let s = self.table.slots[pos];
            if s as u32 == EMPTY {
                return self.insert(v, h, pos);
            }
            let e = s as u32 as usize;
            if tag_matches(s, h) && same_bytes(self.entry(e), v) {
                return e as u32;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Adds entry `v` (of hash `h`) at the empty slot `pos`; its key is made from its bytes.
    #[inline(never)]
    fn insert(&mut self, v: &[u8], h: u64, pos: usize) -> u32 {
        let idx = self.hashes.len();
        self.arena.extend_from_slice(v);
        self.offsets.push(self.arena.len() as i64);
        self.hashes.push(h);
        self.shorts.push(short_of(v));
        self.table.slots[pos] = slot(h, idx);
        let hashes = &self.hashes;
        self.table.maybe_grow(hashes.len(), |e| hashes[e]);
        idx as u32
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
        self.ready();
        indices.extend(ranges_of(offsets).map(|(s, e)| self.intern_at(values, s, e)));
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
        check_validity(NAME, &validity, offsets.len() - 1)?;
        self.ready();
        let mut n = 0;
        validity.for_each_set_run(|i, k| {
            indices.extend(
                ranges_of(&offsets[i..i + k + 1]).map(|(s, e)| self.intern_at(values, s, e)),
            );
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
        self.ready();
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

#[cfg(test)]
mod tests;
