//! BIT_PACKED (BIT_PACKED = 4, deprecated): levels packed back to back with a fixed width, the
//! last byte padded with zeros. Only v1 data pages of old writers use it, for repetition and
//! definition levels; it has no length prefix, the levels take
//! `ceil(num_values * bit_width / 8)` bytes.
//!
//! The spec describes the bits as most significant first, but Arrow C++ (pyarrow) and
//! arrow-rs read them least significant first, as in the RLE hybrid's bit-packed runs, and
//! files that carry such levels (Impala's) are read correctly that way: parq reads them as
//! pyarrow does.

use super::bitpack::Unpacked;
use super::error;
use crate::Result;

const NAME: &str = "BIT_PACKED";

/// The bytes `n` values of `bit_width` bits occupy.
pub fn encoded_len(n: usize, bit_width: u32) -> usize {
    (n as u128 * u128::from(bit_width))
        .div_ceil(8)
        .min(usize::MAX as u128) as usize
}

/// A streaming decoder of BIT_PACKED values.
#[derive(Debug, Clone)]
pub struct BitPackedDecoder<'a> {
    data: &'a [u8],
    bit_width: u32,
    /// The next bit to read.
    bit: usize,
}

impl<'a> BitPackedDecoder<'a> {
    /// A decoder of values of `bit_width` bits (at most 32) in `data`.
    pub fn new(data: &'a [u8], bit_width: u32) -> Result<Self> {
        if bit_width > 32 {
            return Err(error(NAME, format!("bit width {bit_width} > 32")));
        }
        Ok(BitPackedDecoder {
            data,
            bit_width,
            bit: 0,
        })
    }

    /// Bytes consumed so far (a started byte counts).
    pub fn consumed(&self) -> usize {
        self.bit.div_ceil(8)
    }

    /// Decodes the next `out.len()` values; an error if the data holds fewer.
    pub fn decode<T: Unpacked>(&mut self, out: &mut [T]) -> Result<()> {
        let w = self.bit_width as usize;
        if self.bit_width > T::BITS {
            return Err(error(
                NAME,
                format!("bit width {w} > {} bits of the output", T::BITS),
            ));
        }
        let available = (self.data.len() * 8 - self.bit)
            .checked_div(w)
            .unwrap_or(usize::MAX);
        if out.len() > available {
            return Err(error(
                NAME,
                format!("{} values requested, the data holds {available}", out.len()),
            ));
        }
        if w == 0 {
            out.fill(T::default());
            return Ok(());
        }
        let mask = (1u64 << w) - 1;
        for (i, o) in out.iter_mut().enumerate() {
            let bit = self.bit + i * w;
            let byte = bit / 8;
            // A little-endian window of 8 bytes from `byte` (zero past the end) holds the
            // value: w + 7 <= 39 bits.
            let mut win = [0u8; 8];
            let src = self
                .data
                .get(byte..(byte + 8).min(self.data.len()))
                .unwrap_or(&[]);
            win[..src.len()].copy_from_slice(src);
            let v = (u64::from_le_bytes(win) >> (bit % 8)) & mask;
            *o = T::from_u64(v);
        }
        self.bit += out.len() * w;
        Ok(())
    }
}

/// Decodes `out.len()` values of `bit_width` bits from the start of `data`; returns the bytes
/// consumed.
pub fn decode<T: Unpacked>(data: &[u8], bit_width: u32, out: &mut [T]) -> Result<usize> {
    let mut d = BitPackedDecoder::new(data, bit_width)?;
    d.decode(out)?;
    Ok(d.consumed())
}
