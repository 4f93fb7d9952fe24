//! Dictionary encoding (PLAIN_DICTIONARY = 2, RLE_DICTIONARY = 8): data pages hold a
//! bit-width byte, then RLE / bit-packed hybrid indices into the dictionary page's values.
//!
//! Decoding fuses index decoding with the gather: an RLE run checks its index once and fills
//! the output with the entry; bit-packed runs are unpacked in small stack chunks and gathered,
//! so no index array is materialized. Every index is checked against the dictionary length.

use super::bitpack::unpack_unchecked;
use super::rle::{RleDecoder, Sink};
use super::{error, reserve_byte_array, OffsetSize};
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

    /// Appends the dictionary entries of the next `n` indices to `out`.
    pub fn gather<T: Copy>(&mut self, n: usize, dict: &[T], out: &mut Vec<T>) -> Result<()> {
        out.reserve(n);
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
        reserve_byte_array(NAME, offsets, values, n, 0)?;
        let mut sink = ByteArraySink {
            dict_offsets,
            dict_values,
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

#[cold]
#[inline(never)]
fn bad_index(index: u64, len: usize) -> crate::Error {
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
            let from = done / 8 * w;
            unpack_unchecked(&src[from..from + k / 8 * w], bit_width, &mut idx[..k]);
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
}

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
            _ => Err(error(
                NAME,
                format!("dictionary entry {i} has invalid offsets"),
            )),
        }
    }

    #[inline]
    fn push(&mut self, index: u32, times: usize) -> Result<()> {
        let (s, e) = self.entry(index)?;
        let total = (e - s)
            .checked_mul(times)
            .and_then(|b| b.checked_add(self.values.len()));
        match total {
            Some(t) if t <= O::MAX => {}
            _ => return Err(error(NAME, "value bytes overflow the offset type".into())),
        }
        self.values.reserve((e - s) * times);
        self.offsets.reserve(times);
        for _ in 0..times {
            self.values.extend_from_slice(&self.dict_values[s..e]);
            self.offsets.push(O::from_usize(self.values.len()));
        }
        Ok(())
    }
}

impl<O: OffsetSize> Sink for ByteArraySink<'_, '_, O> {
    fn fill(&mut self, value: u32, n: usize) -> Result<()> {
        self.push(value, n)
    }
    fn unpack(&mut self, src: &[u8], bit_width: u32, n: usize) -> Result<()> {
        let mut idx = [0u32; CHUNK];
        let w = bit_width as usize;
        let mut done = 0;
        while done < n {
            let k = (n - done).min(CHUNK);
            let from = done / 8 * w;
            unpack_unchecked(&src[from..from + k / 8 * w], bit_width, &mut idx[..k]);
            for &i in &idx[..k] {
                self.push(i, 1)?;
            }
            done += k;
        }
        Ok(())
    }
    fn values(&mut self, values: &[u32]) -> Result<()> {
        for &i in values {
            self.push(i, 1)?;
        }
        Ok(())
    }
}
