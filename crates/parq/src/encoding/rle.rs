//! RLE / bit-packing hybrid (RLE = 3): definition and repetition levels, dictionary indices and
//! RLE-encoded booleans.
//!
//! ```text
//! rle-bit-packed-hybrid: [<length: u32 LE>] <run>*
//! run := varint(count << 1) <value: ceil(bit_width / 8) bytes LE>   (RLE run)
//!      | varint(groups << 1 | 1) <groups * bit_width bytes>         (bit-packed run, LSB first)
//! ```
//!
//! [`RleDecoder`] is a streaming decoder: each call decodes the next values and it resumes
//! where the previous call stopped (page readers decode in batches). RLE runs become slice
//! fills, bit-packed runs are unpacked a group of 8 at a time by [`super::bitpack`]'s
//! per-width kernels, straight into the output. [`RleDecoder::decode_bitmap`] turns 1-bit
//! data (levels of a column with max definition level 1, booleans) into an Arrow LSB-first
//! bitmap without materializing levels.
//!
//! A last bit-packed run whose bytes stop early (some writers omit the padding) is accepted:
//! only the values it actually holds can be decoded.

use super::bitmap::BitAppender;
use super::bitpack::{unpack_unchecked, Unpacked};
use super::{error, read_uleb128};
use crate::Result;

const NAME: &str = "RLE";

/// Where decoded runs go: a slice, a bitmap, a dictionary gather, or nowhere (skip).
pub(crate) trait Sink {
    /// `n` copies of `value` (an RLE run).
    fn fill(&mut self, value: u32, n: usize) -> Result<()>;
    /// `n` (a multiple of 8) values packed LSB first with `bit_width` bits in `src`.
    fn unpack(&mut self, src: &[u8], bit_width: u32, n: usize) -> Result<()>;
    /// Loose values (from a partially consumed group).
    fn values(&mut self, values: &[u32]) -> Result<()>;
}

/// A streaming decoder of RLE / bit-packing hybrid data.
#[derive(Debug, Clone)]
pub struct RleDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    bit_width: u32,
    /// Values left in the current RLE run.
    rle_left: usize,
    rle_value: u32,
    /// Values left in the whole groups of the current bit-packed run (a multiple of 8).
    packed_left: usize,
    /// The current bit-packed run ends with a partial group of this many bytes.
    partial_bytes: usize,
    /// A partially consumed group: `group[group_pos..group_len]` remain.
    group: [u32; 8],
    group_pos: usize,
    group_len: usize,
}

impl<'a> RleDecoder<'a> {
    /// A decoder of `data` (no length prefix: v2 page levels, dictionary indices after their
    /// bit-width byte) with values of `bit_width` bits (at most 32).
    pub fn new(data: &'a [u8], bit_width: u32) -> Result<Self> {
        if bit_width > 32 {
            return Err(error(NAME, format!("bit width {bit_width} > 32")));
        }
        Ok(RleDecoder {
            data,
            pos: 0,
            bit_width,
            rle_left: 0,
            rle_value: 0,
            packed_left: 0,
            partial_bytes: 0,
            group: [0; 8],
            group_pos: 0,
            group_len: 0,
        })
    }

    /// A decoder of data that starts with its 4-byte little-endian length (v1 page levels,
    /// RLE booleans). Returns the decoder and the bytes the prefixed data occupies (4 +
    /// length): the page's next section starts there.
    pub fn with_length_prefix(data: &'a [u8], bit_width: u32) -> Result<(Self, usize)> {
        let Some(prefix) = data.first_chunk::<4>() else {
            return Err(error(
                NAME,
                format!("{} bytes cannot hold the 4-byte length prefix", data.len()),
            ));
        };
        let len = u32::from_le_bytes(*prefix) as usize;
        let rest = &data[4..];
        if len > rest.len() {
            return Err(error(
                NAME,
                format!("length prefix {len} > {} bytes remaining", rest.len()),
            ));
        }
        Ok((Self::new(&rest[..len], bit_width)?, 4 + len))
    }

    /// A decoder of dictionary indices: a bit-width byte (at most 32), then the hybrid data
    /// to the end of `data`.
    pub fn for_dictionary_indices(data: &'a [u8]) -> Result<Self> {
        let Some((&bit_width, rest)) = data.split_first() else {
            return Err(error("RLE_DICTIONARY", "empty data page".to_string()));
        };
        if bit_width > 32 {
            return Err(error(
                "RLE_DICTIONARY",
                format!("index bit width {bit_width} > 32"),
            ));
        }
        Self::new(rest, u32::from(bit_width))
    }

    /// The bit width of the values.
    pub fn bit_width(&self) -> u32 {
        self.bit_width
    }

    /// Bytes of the data read so far (run headers and values in whole groups).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Decodes the next `out.len()` values into `out` and returns how many were decoded:
    /// fewer only if the data ends first. `T` must hold the bit width (`u16` for levels, `u32`
    /// for indices).
    pub fn decode<T: Unpacked>(&mut self, out: &mut [T]) -> Result<usize> {
        if self.bit_width > T::BITS {
            return Err(error(
                NAME,
                format!(
                    "bit width {} > {} bits of the output",
                    self.bit_width,
                    T::BITS
                ),
            ));
        }
        let n = out.len();
        self.run(n, &mut SliceSink { out, pos: 0 })
    }

    /// Like [`decode`](Self::decode), but it is an error if the data holds fewer values.
    pub fn decode_exact<T: Unpacked>(&mut self, out: &mut [T]) -> Result<()> {
        let n = self.decode(out)?;
        self.check_count(n, out.len())
    }

    /// Skips the next `n` values and returns how many were skipped: fewer only if the data
    /// ends first.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.run(n, &mut SkipSink)
    }

    /// Decodes the next `n` values of a 1-bit stream into bits `bit_offset..bit_offset + n`
    /// of the LSB-first bitmap `bitmap` (bits before `bit_offset` are kept; the bitmap ends
    /// at the last bit decoded, rounded up to a byte).
    /// Returns the number of set bits (non-null values, or `true` booleans). It is an error
    /// if the bit width is not 1 or the data holds fewer than `n` values.
    pub fn decode_bitmap(
        &mut self,
        n: usize,
        bitmap: &mut Vec<u8>,
        bit_offset: usize,
    ) -> Result<usize> {
        if self.bit_width != 1 {
            return Err(error(
                NAME,
                format!("bitmap decoding needs bit width 1, not {}", self.bit_width),
            ));
        }
        // Room for what the bytes left can hold bit-packed (RLE runs, whose length is
        // read from the data, grow the bitmap as they are decoded).
        let mut bits = BitAppender::at(bitmap, bit_offset, self.size_hint(n));
        let mut sink = BitmapSink {
            bits: &mut bits,
            ones: 0,
        };
        // What a previous call left (a partial group, the rest of a run) goes the general way;
        // then runs are read here, each one a word fill or a byte copy, and a run that goes
        // past `n` is left in the decoder's state for the general way (and the next call).
        let pending = (self.group_len - self.group_pos)
            .saturating_add(self.rle_left)
            .saturating_add(self.packed_left)
            .saturating_add(self.partial_bytes * 8);
        let mut done = self.run(n.min(pending), &mut sink)?;
        while done < n {
            let Some(&first) = self.data.get(self.pos) else {
                break;
            };
            let header = if first < 0x80 {
                self.pos += 1;
                u64::from(first)
            } else {
                read_uleb128(self.data, &mut self.pos, NAME)?
            };
            let want = n - done;
            if header & 1 == 1 {
                // Width 1: a group of 8 values is one byte, already in bitmap order.
                let remaining = self.data.len() - self.pos;
                let groups = usize::try_from(header >> 1).unwrap_or(usize::MAX);
                let bytes = groups.min(remaining);
                let take = bytes.min(want / 8);
                let src = &self.data[self.pos..self.pos + take];
                sink.ones += popcount(src);
                sink.bits.push_bytes(src);
                self.pos += take;
                done += take * 8;
                if take < bytes {
                    self.packed_left = (bytes - take) * 8;
                    break;
                }
            } else {
                let Some(&value) = self.data.get(self.pos) else {
                    return Err(error(NAME, "run value of 1 byte truncated".to_string()));
                };
                self.pos += 1;
                let count = usize::try_from(header >> 1).unwrap_or(usize::MAX);
                let take = count.min(want);
                sink.fill(u32::from(value), take)?;
                done += take;
                if take < count {
                    self.rle_value = u32::from(value);
                    self.rle_left = count - take;
                    break;
                }
            }
        }
        if done < n {
            done += self.run(n - done, &mut sink)?;
        }
        let ones = sink.ones;
        self.check_count(done, n)?;
        Ok(ones)
    }

    /// How many of the next `n` values to make room for ahead of decoding them: at most what
    /// the bytes left can hold bit-packed (8 per byte at bit width 1), plus a partly decoded
    /// group. An RLE run holds more values in a few bytes, but its length is read from the data,
    /// so its values are made room for as it is decoded, never ahead of it.
    pub(crate) fn size_hint(&self, n: usize) -> usize {
        let bytes = self.data.len().saturating_sub(self.pos);
        let packed = bytes.saturating_mul(8) / (self.bit_width.max(1) as usize);
        n.min(packed.saturating_add(8))
    }

    pub(crate) fn check_count(&self, got: usize, n: usize) -> Result<()> {
        if got < n {
            return Err(error(
                NAME,
                format!("data ends after {got} of {n} requested values"),
            ));
        }
        Ok(())
    }

    /// Feeds the next `n` values (fewer if the data ends) to `sink`; returns the count fed.
    pub(crate) fn run<S: Sink>(&mut self, n: usize, sink: &mut S) -> Result<usize> {
        let mut done = 0;
        while done < n {
            let want = n - done;
            if self.group_pos < self.group_len {
                let k = want.min(self.group_len - self.group_pos);
                sink.values(&self.group[self.group_pos..self.group_pos + k])?;
                self.group_pos += k;
                done += k;
            } else if self.rle_left > 0 {
                let k = want.min(self.rle_left);
                sink.fill(self.rle_value, k)?;
                self.rle_left -= k;
                done += k;
            } else if self.packed_left > 0 {
                let w = self.bit_width as usize;
                let k = (want / 8 * 8).min(self.packed_left);
                if k > 0 {
                    let bytes = k / 8 * w;
                    sink.unpack(&self.data[self.pos..self.pos + bytes], self.bit_width, k)?;
                    self.pos += bytes;
                    self.packed_left -= k;
                    done += k;
                } else {
                    unpack_unchecked(
                        &self.data[self.pos..self.pos + w],
                        self.bit_width,
                        &mut self.group,
                    );
                    self.pos += w;
                    self.packed_left -= 8;
                    self.group_pos = 0;
                    self.group_len = 8;
                }
            } else if self.partial_bytes > 0 {
                // The run's bytes stopped inside a group: decode the values they hold.
                let mut pad = [0u8; 32];
                let bytes = self.partial_bytes;
                pad[..bytes].copy_from_slice(&self.data[self.pos..self.pos + bytes]);
                unpack_unchecked(&pad, self.bit_width, &mut self.group);
                self.pos += bytes;
                self.partial_bytes = 0;
                self.group_pos = 0;
                self.group_len = bytes * 8 / self.bit_width as usize;
            } else if !self.next_run()? {
                break;
            }
        }
        Ok(done)
    }

    /// Reads the next run header; false at the end of the data.
    fn next_run(&mut self) -> Result<bool> {
        if self.pos >= self.data.len() {
            return Ok(false);
        }
        let header = read_uleb128(self.data, &mut self.pos, NAME)?;
        let w = self.bit_width as usize;
        let remaining = self.data.len() - self.pos;
        if header & 1 == 1 {
            let groups = header >> 1;
            let (whole, partial) = if w == 0 || groups.saturating_mul(w as u64) <= remaining as u64
            {
                (groups, 0)
            } else {
                ((remaining / w) as u64, remaining % w)
            };
            self.packed_left = whole.min((usize::MAX / 8) as u64) as usize * 8;
            self.partial_bytes = partial;
        } else {
            let count = header >> 1;
            let bytes = w.div_ceil(8);
            if bytes > remaining {
                return Err(error(
                    NAME,
                    format!("run value of {bytes} bytes truncated ({remaining} remain)"),
                ));
            }
            let mut v = [0u8; 4];
            v[..bytes].copy_from_slice(&self.data[self.pos..self.pos + bytes]);
            self.pos += bytes;
            self.rle_value = u32::from_le_bytes(v);
            self.rle_left = usize::try_from(count).unwrap_or(usize::MAX);
        }
        Ok(true)
    }
}

/// Decodes all `out.len()` values of hybrid data without a length prefix; it is an error if
/// `data` holds fewer.
pub fn decode<T: Unpacked>(data: &[u8], bit_width: u32, out: &mut [T]) -> Result<()> {
    RleDecoder::new(data, bit_width)?.decode_exact(out)
}

struct SliceSink<'o, T> {
    out: &'o mut [T],
    pos: usize,
}

impl<T: Unpacked> Sink for SliceSink<'_, T> {
    #[inline]
    fn fill(&mut self, value: u32, n: usize) -> Result<()> {
        self.out[self.pos..self.pos + n].fill(T::from_u64(u64::from(value)));
        self.pos += n;
        Ok(())
    }
    #[inline]
    fn unpack(&mut self, src: &[u8], bit_width: u32, n: usize) -> Result<()> {
        unpack_unchecked(src, bit_width, &mut self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(())
    }
    #[inline]
    fn values(&mut self, values: &[u32]) -> Result<()> {
        let out = &mut self.out[self.pos..self.pos + values.len()];
        for (o, &v) in out.iter_mut().zip(values) {
            *o = T::from_u64(u64::from(v));
        }
        self.pos += values.len();
        Ok(())
    }
}

struct SkipSink;

impl Sink for SkipSink {
    fn fill(&mut self, _: u32, _: usize) -> Result<()> {
        Ok(())
    }
    fn unpack(&mut self, _: &[u8], _: u32, _: usize) -> Result<()> {
        Ok(())
    }
    fn values(&mut self, _: &[u32]) -> Result<()> {
        Ok(())
    }
}

struct BitmapSink<'a, 'o> {
    bits: &'a mut BitAppender<'o>,
    ones: usize,
}

impl Sink for BitmapSink<'_, '_> {
    #[inline]
    fn fill(&mut self, value: u32, n: usize) -> Result<()> {
        self.bits.push_run(value != 0, n);
        if value != 0 {
            self.ones += n;
        }
        Ok(())
    }
    #[inline]
    fn unpack(&mut self, src: &[u8], _bit_width: u32, n: usize) -> Result<()> {
        // Width 1, LSB first: the packed bytes already are bitmap bytes.
        let src = &src[..n / 8];
        self.ones += popcount(src);
        self.bits.push_bytes(src);
        Ok(())
    }
    #[inline]
    fn values(&mut self, values: &[u32]) -> Result<()> {
        for &v in values {
            self.bits.push(u64::from(v != 0), 1);
            self.ones += (v != 0) as usize;
        }
        Ok(())
    }
}

/// The number of set bits in `bytes`.
#[inline]
pub(crate) fn popcount(bytes: &[u8]) -> usize {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0;
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        n += u64::from_le_bytes(b).count_ones() as usize;
    }
    n + words
        .remainder()
        .iter()
        .map(|b| b.count_ones() as usize)
        .sum::<usize>()
}
