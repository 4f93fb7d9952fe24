//! Dictionary encoding (PLAIN_DICTIONARY = 2, RLE_DICTIONARY = 8): data pages hold a
//! bit-width byte, then RLE / bit-packed hybrid indices into the dictionary page's values.
//!
//! Decoding fuses index decoding with the gather: an RLE run checks its index once and fills
//! the output with the entry; bit-packed runs are unpacked in small stack chunks and gathered,
//! so no index array is materialized. Every index is checked against the dictionary length.

use std::mem::MaybeUninit;

use super::bitpack::unpack_unchecked;
use super::rle::{RleDecoder, Sink};
use super::{error, reserve_byte_array, try_reserve, OffsetSize};
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
    /// as [`super::plain::decode_byte_array`] produces).
    pub fn gather_byte_array<O: OffsetSize>(
        &mut self,
        n: usize,
        dict_offsets: &[O],
        dict_values: &[u8],
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        // Offsets for what the data's bytes can hold bit-packed; RLE runs grow them as they
        // are decoded.
        reserve_byte_array(NAME, offsets, values, self.indices.size_hint(n), 0)?;
        let mut sink = ByteArraySink {
            dict_offsets,
            dict_values,
            offsets,
            values,
            spans: Vec::with_capacity(CHUNK),
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

struct ByteArraySink<'d, 'o, O> {
    dict_offsets: &'d [O],
    dict_values: &'d [u8],
    offsets: &'o mut Vec<O>,
    values: &'o mut Vec<u8>,
    /// Scratch of [`ByteArraySink::push_all`]: each value's start and length in the
    /// dictionary's bytes.
    spans: Vec<(usize, usize)>,
}

/// Slack the byte-array gather keeps after the output's end, so that short values can be
/// copied as one fixed-size [`SHORT`]-byte block (over-copying into bytes the next value or
/// the final truncation overwrites).
const SHORT: usize = 32;

impl<O: OffsetSize> ByteArraySink<'_, '_, O> {
    /// The byte range of dictionary entry `index` in `dict_values`.
    #[inline]
    fn entry(&self, index: u32) -> Result<(usize, usize)> {
        let i = index as usize;
        let entries = self.dict_offsets.len().saturating_sub(1);
        if i >= entries {
            return Err(bad_index(u64::from(index), entries));
        }
        let start = self.dict_offsets[i].to_usize();
        let end = self.dict_offsets[i + 1].to_usize();
        match (start, end) {
            (Some(s), Some(e)) if s <= e && e <= self.dict_values.len() => Ok((s, e)),
            _ => Err(bad_entry(i)),
        }
    }

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
        let (s, e) = self.entry(index)?;
        self.check_size((e - s).checked_mul(times))?;
        let value = &self.dict_values[s..e];
        // `check_size` checked that the product fits the offset type.
        try_reserve(NAME, self.values, value.len().saturating_mul(times))?;
        try_reserve(NAME, self.offsets, times)?;
        for _ in 0..times {
            self.values.extend_from_slice(value);
            self.offsets.push(O::from_usize(self.values.len()));
        }
        Ok(())
    }

    /// Appends the entries of `idx` (at most [`CHUNK`]): validates the indices (their max)
    /// and the entries' offsets, sizes the output exactly, then copies each value as one
    /// [`SHORT`]-byte block when it is that short and the dictionary has the bytes after it.
    fn push_all(&mut self, idx: &[u32]) -> Result<()> {
        let entries = self.dict_offsets.len().saturating_sub(1);
        let max = idx.iter().copied().max().unwrap_or(0);
        if idx.len() > CHUNK || max as usize >= entries {
            return Err(bad_index(u64::from(max), entries));
        }
        let (dict_offsets, dict_values) = (self.dict_offsets, self.dict_values);
        // Pass 1: each value's start and length in `dict_values`, and their total.
        let (mut total, mut bad) = (0usize, false);
        self.spans.clear();
        self.spans.extend(idx.iter().map(|&i| {
            let i = i as usize;
            // `i + 1 <= entries < dict_offsets.len()`; negative offsets become usize::MAX.
            let s = dict_offsets[i].to_usize().unwrap_or(usize::MAX);
            let e = dict_offsets[i + 1].to_usize().unwrap_or(usize::MAX);
            bad |= s > e || e > dict_values.len();
            let len = e.wrapping_sub(s);
            total = total.saturating_add(len);
            (s, len)
        }));
        if bad {
            let i = idx.iter().find(|&&i| self.entry(i).is_err()).copied();
            return Err(bad_entry(i.unwrap_or(0) as usize));
        }
        self.check_size(Some(total))?;
        // Pass 2: copy into the output's spare capacity, reserved for the exact total plus
        // slack (not zeroed first: every byte up to the total is written once).
        let base = self.values.len();
        try_reserve(NAME, self.values, total + SHORT)?;
        let Some(dst) = self.values.spare_capacity_mut().get_mut(..total + SHORT) else {
            return Err(error(NAME, "values buffer not reserved".into()));
        };
        let mut pos = 0;
        self.offsets.extend(self.spans.iter().map(|&(s, len)| {
            // Every span is in bounds (checked above) and `pos + len <= total`, so the
            // block copy stays within `dst` (`total + SHORT` bytes).
            match dict_values.get(s..s + SHORT) {
                Some(src) if len <= SHORT => {
                    dst[pos..pos + SHORT].write_copy_of_slice(src);
                }
                _ => copy_long(&mut dst[pos..pos + len], &dict_values[s..s + len]),
            }
            pos += len;
            O::from_usize(base + pos)
        }));
        // SAFETY: the loop wrote `dst[..total]` (the values back to back, `pos == total`),
        // the `total` bytes after the length, within the capacity reserved above.
        unsafe { self.values.set_len(base + total) };
        Ok(())
    }
}

/// Copies a value too long for one [`SHORT`]-byte block (or too near the dictionary's end).
/// Kept out of line so that the compiler cannot merge it with the block copy into one call
/// to `memcpy` of a variable length per value; the block copy stays two vector moves.
#[inline(never)]
fn copy_long(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    dst.write_copy_of_slice(src);
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
