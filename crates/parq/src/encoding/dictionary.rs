//! Dictionary encoding (PLAIN_DICTIONARY = 2, RLE_DICTIONARY = 8): data pages hold a
//! bit-width byte, then RLE / bit-packed hybrid indices into the dictionary page's values.
//!
//! Decoding fuses index decoding with the gather: an RLE run checks its index once and fills
//! the output with the entry; bit-packed runs are unpacked in small stack chunks and gathered,
//! so no index array is materialized. Every index is checked against the dictionary length.

use super::bitpack::unpack_unchecked;
use super::rle::{RleDecoder, Sink};
use super::{copy_chunks, error, reserve_byte_array, try_reserve, OffsetSize, COPY_SLACK};
use crate::Result;

const NAME: &str = "RLE_DICTIONARY";

/// Indices unpacked per chunk of a bit-packed run.
const CHUNK: usize = 256;

/// A streaming decoder of a dictionary-encoded data page.
#[derive(Debug, Clone)]
pub struct DictionaryDecoder<'a> {
    indices: RleDecoder<'a>,
}

impl<'a> DictionaryDecoder<'a> {
    /// A decoder of `data`: the bit-width byte, then the hybrid-encoded indices.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Ok(DictionaryDecoder {
            indices: RleDecoder::for_dictionary_indices(data)?,
        })
    }

    /// A decoder of indices without the bit-width byte.
    pub fn with_bit_width(data: &'a [u8], bit_width: u32) -> Result<Self> {
        Ok(DictionaryDecoder {
            indices: RleDecoder::new(data, bit_width)?,
        })
    }

    /// The index decoder, e.g. to decode raw indices for a dictionary-preserving reader.
    pub fn indices(&mut self) -> &mut RleDecoder<'a> {
        &mut self.indices
    }

    /// Appends the dictionary entries of the next `n` indices to `out`. Room is made ahead
    /// for as many values as the data's bytes can hold bit-packed; the values of RLE runs
    /// (whose lengths are read from the data) as they are decoded.
    pub fn gather<T: Copy>(&mut self, n: usize, dict: &[T], out: &mut Vec<T>) -> Result<()> {
        out.reserve(self.indices.size_hint(n));
        let got = self.indices.run(n, &mut GatherSink { dict, out })?;
        self.indices.check_count(got, n)
    }

    /// Appends the entries of the next `n` indices to Arrow-style byte-array output, from a
    /// dictionary of byte ranges (`dict_offsets[i]..dict_offsets[i + 1]` of `dict_values`,
    /// as [`super::plain::decode_byte_array`] produces). Checks and copies the dictionary
    /// first: a reader of many pages of one dictionary makes a [`ByteArrayDictionary`] once
    /// and calls [`DictionaryDecoder::gather_bytes`].
    pub fn gather_byte_array<O: OffsetSize>(
        &mut self,
        n: usize,
        dict_offsets: &[O],
        dict_values: &[u8],
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        let dict = ByteArrayDictionary::new(dict_offsets, dict_values)?;
        self.gather_bytes(n, &dict, offsets, values)
    }

    /// Appends the entries of `dict` of the next `n` indices to Arrow-style byte-array output.
    pub fn gather_bytes<O: OffsetSize>(
        &mut self,
        n: usize,
        dict: &ByteArrayDictionary,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        // Offsets for what the data's bytes can hold bit-packed; RLE runs grow them as they
        // are decoded.
        reserve_byte_array(NAME, offsets, values, self.indices.size_hint(n), 0)?;
        let mut sink = ByteArraySink {
            dict,
            offsets,
            values,
        };
        let got = self.indices.run(n, &mut sink)?;
        self.indices.check_count(got, n)
    }

    /// Skips the next `n` values; returns how many were skipped (fewer at the end of data).
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.indices.skip(n)
    }
}

/// Decodes `n` values of hybrid-encoded indices (`data` starts after the bit-width byte) and
/// appends their entries of `dict` to `out`.
pub fn gather<T: Copy>(
    data: &[u8],
    bit_width: u32,
    n: usize,
    dict: &[T],
    out: &mut Vec<T>,
) -> Result<()> {
    DictionaryDecoder::with_bit_width(data, bit_width)?.gather(n, dict, out)
}

/// The error of dictionary index `index` out of a dictionary of `len` entries.
#[cold]
#[inline(never)]
pub(crate) fn bad_index(index: u64, len: usize) -> crate::Error {
    error(
        NAME,
        format!("index {index} out of the dictionary of {len} entries"),
    )
}

struct GatherSink<'d, 'o, T> {
    dict: &'d [T],
    out: &'o mut Vec<T>,
}

impl<T: Copy> GatherSink<'_, '_, T> {
    #[inline]
    fn push_all(&mut self, idx: &[u32]) -> Result<()> {
        let max = idx.iter().copied().max().unwrap_or(0);
        if max as usize >= self.dict.len() {
            return Err(bad_index(u64::from(max), self.dict.len()));
        }
        let dict = self.dict;
        self.out.extend(idx.iter().map(|&i| dict[i as usize]));
        Ok(())
    }
}

impl<T: Copy> Sink for GatherSink<'_, '_, T> {
    #[inline]
    fn fill(&mut self, value: u32, n: usize) -> Result<()> {
        let Some(&v) = self.dict.get(value as usize) else {
            return Err(bad_index(u64::from(value), self.dict.len()));
        };
        try_reserve(NAME, self.out, n)?;
        self.out.resize(self.out.len() + n, v);
        Ok(())
    }
    #[inline]
    fn unpack(&mut self, src: &[u8], bit_width: u32, n: usize) -> Result<()> {
        let mut idx = [0u32; CHUNK];
        let w = bit_width as usize;
        let mut done = 0;
        while done < n {
            let k = (n - done).min(CHUNK);
            unpack_unchecked(&src[done / 8 * w..], bit_width, &mut idx[..k]);
            self.push_all(&idx[..k])?;
            done += k;
        }
        Ok(())
    }
    #[inline]
    fn values(&mut self, values: &[u32]) -> Result<()> {
        self.push_all(values)
    }
}

/// A byte-array dictionary made ready for gathering: each entry's start and length checked
/// once, when the dictionary is made, and its bytes followed by 32 spare bytes, so that
/// gathering a value is a lookup and a block copy with no check of its own.
#[derive(Debug, Clone, Default)]
pub struct ByteArrayDictionary {
    /// Entry `i`: its start in `bytes` (low 32 bits) and its length (high 32 bits).
    spans: Vec<u64>,
    /// The entries' bytes, then [`COPY_SLACK`] zero bytes.
    bytes: Vec<u8>,
    /// The longest entry's length.
    max_len: usize,
}

impl ByteArrayDictionary {
    /// The dictionary whose entry `i` is `values[offsets[i]..offsets[i + 1]]` (as
    /// [`super::plain::decode_byte_array`] produces them); no offsets, or one, is an empty
    /// dictionary. Offsets that decrease, are negative or lie past `values` are an error.
    pub fn new<O: OffsetSize>(offsets: &[O], values: &[u8]) -> Result<Self> {
        let entries = offsets.len().saturating_sub(1);
        let mut spans = Vec::new();
        try_reserve(NAME, &mut spans, entries)?;
        if values.len() > u32::MAX as usize {
            return Err(error(NAME, "dictionary of more than 4 GiB".into()));
        }
        let mut max_len = 0;
        for (i, pair) in offsets.windows(2).enumerate() {
            let (s, e) = match (pair[0].to_usize(), pair[1].to_usize()) {
                (Some(s), Some(e)) if s <= e && e <= values.len() => (s, e),
                _ => return Err(bad_entry(i)),
            };
            max_len = max_len.max(e - s);
            // Both below 2^32 (`values` is at most 4 GiB, checked above).
            spans.push(s as u64 | ((e - s) as u64) << 32);
        }
        let Some(padded) = values.len().checked_add(COPY_SLACK) else {
            return Err(error(NAME, "dictionary too large to address".into()));
        };
        let mut bytes = Vec::new();
        try_reserve(NAME, &mut bytes, padded)?;
        bytes.extend_from_slice(values);
        bytes.resize(padded, 0);
        Ok(ByteArrayDictionary {
            spans,
            bytes,
            max_len,
        })
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The bytes of entry `i`, if there is one.
    pub fn entry(&self, i: usize) -> Option<&[u8]> {
        let (s, len) = split(*self.spans.get(i)?);
        self.bytes.get(s..s + len)
    }
}

/// The start and length of a packed span.
#[inline(always)]
fn split(span: u64) -> (usize, usize) {
    ((span & 0xFFFF_FFFF) as usize, (span >> 32) as usize)
}

/// Gathers byte-array entries of a [`ByteArrayDictionary`] into Arrow-style offsets and bytes.
struct ByteArraySink<'d, 'o, O> {
    dict: &'d ByteArrayDictionary,
    offsets: &'o mut Vec<O>,
    values: &'o mut Vec<u8>,
}

/// Above this longest entry, a chunk's output is sized by the sum of its values' lengths
/// (one pass more) rather than by the chunk's length times the longest entry.
const BOUNDED: usize = 64;

impl<O: OffsetSize> ByteArraySink<'_, '_, O> {
    /// Checks that `bytes` more value bytes fit the offset type.
    #[inline]
    fn check_size(&self, bytes: Option<usize>) -> Result<()> {
        match bytes.and_then(|b| b.checked_add(self.values.len())) {
            Some(t) if t <= O::MAX => Ok(()),
            _ => Err(error(NAME, "value bytes overflow the offset type".into())),
        }
    }

    /// Appends `times` copies of entry `index` (an RLE run).
    fn push_run(&mut self, index: u32, times: usize) -> Result<()> {
        let entries = self.dict.len();
        let Some(value) = self.dict.entry(index as usize) else {
            return Err(bad_index(u64::from(index), entries));
        };
        self.check_size(value.len().checked_mul(times))?;
        // `check_size` checked that the product fits the offset type.
        try_reserve(NAME, self.values, value.len().saturating_mul(times))?;
        try_reserve(NAME, self.offsets, times)?;
        for _ in 0..times {
            self.values.extend_from_slice(value);
            self.offsets.push(O::from_usize(self.values.len()));
        }
        Ok(())
    }

    /// Appends the entries of `idx` (at most [`CHUNK`]): checks the indices (their max), makes
    /// room for the values (the chunk's length times the longest entry, or their exact total
    /// for a dictionary of long entries), then copies each value in [`COPY_SLACK`]-byte
    /// blocks.
    fn push_all(&mut self, idx: &[u32]) -> Result<()> {
        let spans = self.dict.spans.as_slice();
        let max = idx.iter().copied().max().unwrap_or(0);
        if idx.len() > CHUNK || max as usize >= spans.len() {
            return Err(bad_index(u64::from(max), spans.len()));
        }
        // The values' total length (every index is below `spans.len()`, checked above).
        let total = || {
            idx.iter()
                .fold(0usize, |t, &i| t.saturating_add(split(spans[i as usize]).1))
        };
        let room = if self.dict.max_len <= BOUNDED {
            // At most CHUNK * BOUNDED: no overflow.
            idx.len() * self.dict.max_len
        } else {
            total()
        };
        let room = match self.check_size(Some(room)) {
            Ok(()) => room,
            Err(e) => {
                let total = total();
                self.check_size(Some(total)).map_err(|_| e)?;
                total
            }
        };
        let Some(reserve) = room.checked_add(COPY_SLACK) else {
            return Err(error(NAME, "value bytes overflow the address space".into()));
        };
        try_reserve(NAME, self.values, reserve)?;
        try_reserve(NAME, self.offsets, idx.len())?;
        let base = self.values.len();
        let src = self.dict.bytes.as_ptr();
        // SAFETY: the capacity reserved above holds `base + room + COPY_SLACK` bytes.
        let dst = unsafe { self.values.as_mut_ptr().add(base) };
        let mut pos = 0;
        self.offsets.extend(idx.iter().map(|&i| {
            // SAFETY: `i <= max < spans.len()` (checked above).
            let (s, len) = split(unsafe { *spans.get_unchecked(i as usize) });
            // SAFETY: `ByteArrayDictionary::new` checked that `s + len` lies within the
            // entries' bytes, which `COPY_SLACK` bytes follow, so `src + s..src + s + len +
            // COPY_SLACK` is readable. `pos + len <= room` (the values' lengths add up to at
            // most `room`), so `dst + pos..dst + pos + len + COPY_SLACK` lies within the
            // capacity reserved above. The dictionary and the output do not overlap.
            unsafe { copy_chunks(src.add(s), dst.add(pos), len) };
            pos += len;
            O::from_usize(base + pos)
        }));
        // SAFETY: the loop wrote the `pos` bytes after `base` (the values back to back),
        // within the capacity reserved above.
        unsafe { self.values.set_len(base + pos) };
        Ok(())
    }
}

#[cold]
#[inline(never)]
fn bad_entry(i: usize) -> crate::Error {
    error(NAME, format!("dictionary entry {i} has invalid offsets"))
}

impl<O: OffsetSize> Sink for ByteArraySink<'_, '_, O> {
    fn fill(&mut self, value: u32, n: usize) -> Result<()> {
        self.push_run(value, n)
    }
    fn unpack(&mut self, src: &[u8], bit_width: u32, n: usize) -> Result<()> {
        let mut idx = [0u32; CHUNK];
        let w = bit_width as usize;
        let mut done = 0;
        while done < n {
            let k = (n - done).min(CHUNK);
            unpack_unchecked(&src[done / 8 * w..], bit_width, &mut idx[..k]);
            self.push_all(&idx[..k])?;
            done += k;
        }
        Ok(())
    }
    fn values(&mut self, values: &[u32]) -> Result<()> {
        for chunk in values.chunks(CHUNK) {
            self.push_all(chunk)?;
        }
        Ok(())
    }
}
