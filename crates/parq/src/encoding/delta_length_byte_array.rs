//! DELTA_LENGTH_BYTE_ARRAY (= 6) for BYTE_ARRAY: every length, DELTA_BINARY_PACKED, then all
//! the bytes back to back.
//!
//! The decoder decodes the page's lengths once (into a buffer that can be reused across pages,
//! see [`DeltaLengthByteArrayDecoder::with_buffer`]) and checks them against the bytes that
//! follow; each batch is then reserved from its lengths, its bytes (contiguous in the page)
//! copied at once and its offsets made by a running sum of the lengths.

use super::delta_binary_packed::DeltaBinaryPackedDecoder;
use super::{error, reserve_byte_array, OffsetSize};
use crate::Result;

const NAME: &str = "DELTA_LENGTH_BYTE_ARRAY";

/// Decodes a DELTA_BINARY_PACKED list of lengths at the start of `data` into `lengths`
/// (cleared first), checks that none is negative, and returns the bytes it took.
pub(crate) fn decode_lengths(
    encoding: &'static str,
    what: &str,
    data: &[u8],
    lengths: &mut Vec<i32>,
) -> Result<usize> {
    lengths.clear();
    let consumed = DeltaBinaryPackedDecoder::new(data)?.decode_all(lengths)?;
    // A branch-free OR over all the lengths (it vectorizes); the position only on error.
    if lengths.iter().fold(0, |acc, &l| acc | l) < 0 {
        let i = lengths.iter().position(|&l| l < 0).unwrap_or(0);
        return Err(error(
            encoding,
            format!("{what} {i} is negative ({:?})", lengths.get(i)),
        ));
    }
    Ok(consumed)
}

/// The sum of `lengths` (none negative, at most `u32::MAX` of them as a page holds them).
#[inline]
pub(crate) fn total_length(lengths: &[i32]) -> u64 {
    lengths.iter().map(|&l| u64::from(l as u32)).sum()
}

/// A streaming decoder of DELTA_LENGTH_BYTE_ARRAY data.
#[derive(Debug, Clone)]
pub struct DeltaLengthByteArrayDecoder<'a> {
    lengths: Vec<i32>,
    /// The bytes of all values.
    bytes: &'a [u8],
    /// The next value.
    index: usize,
    /// Where the next value's bytes start in `bytes`.
    byte_pos: usize,
    /// The encoded length: lengths plus bytes.
    encoded_len: usize,
    /// The sum of all the lengths.
    total: usize,
}

impl<'a> DeltaLengthByteArrayDecoder<'a> {
    /// A decoder of `data`, which starts with the encoded lengths.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::with_buffer(data, Vec::new())
    }

    /// Like [`new`](Self::new), decoding the lengths into `buffer` (e.g. the one a previous
    /// decoder returned from [`into_buffer`](Self::into_buffer)).
    pub fn with_buffer(data: &'a [u8], mut buffer: Vec<i32>) -> Result<Self> {
        let start = decode_lengths(NAME, "length", data, &mut buffer)?;
        let total = total_length(&buffer);
        let available = data.len() - start;
        if total > available as u64 {
            return Err(error(
                NAME,
                format!("lengths total {total} bytes, {available} remain"),
            ));
        }
        Ok(DeltaLengthByteArrayDecoder {
            lengths: buffer,
            bytes: &data[start..],
            index: 0,
            byte_pos: 0,
            encoded_len: start + total as usize,
            total: total as usize,
        })
    }

    /// Gives back the lengths buffer for reuse.
    pub fn into_buffer(self) -> Vec<i32> {
        self.lengths
    }

    /// Values not decoded yet.
    pub fn remaining(&self) -> usize {
        self.lengths.len() - self.index
    }

    /// The length of the encoded data (lengths plus bytes); what follows starts there.
    pub fn encoded_len(&self) -> usize {
        self.encoded_len
    }

    /// Appends the next `n` values to Arrow-style `offsets` and `values`; an error if fewer
    /// remain.
    pub fn decode<O: OffsetSize>(
        &mut self,
        n: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        let (lengths, bytes) = self.peek(n)?;
        reserve_byte_array(NAME, offsets, values, n, bytes.len())?;
        // The values' bytes are contiguous: one copy, then the offsets as a running sum of
        // the lengths (none negative; their total was checked against the page's bytes in
        // `with_buffer` and against the offset type by `reserve_byte_array`).
        let mut offset = values.len();
        values.extend_from_slice(bytes);
        offsets.extend(lengths.iter().map(|&l| {
            offset += l as usize;
            O::from_usize(offset)
        }));
        self.advance(n, bytes.len());
        Ok(())
    }

    /// Skips the next `n` values; an error if fewer remain.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        let (_, bytes) = self.peek(n)?;
        self.advance(n, bytes.len());
        Ok(())
    }

    /// The lengths and the bytes of the next `n` values, without consuming them; an error if
    /// fewer remain.
    pub(crate) fn peek(&self, n: usize) -> Result<(&[i32], &'a [u8])> {
        if n > self.remaining() {
            return Err(error(
                NAME,
                format!("{n} values requested, {} remain", self.remaining()),
            ));
        }
        let lengths = &self.lengths[self.index..self.index + n];
        // A whole page (the common case) needs no second sum: its total is known.
        let total = if n == self.lengths.len() {
            self.total
        } else {
            total_length(lengths) as usize
        };
        // The lengths total at most `bytes.len()` (checked in `with_buffer`), so this is in
        // bounds; the error is unreachable.
        let bytes: &'a [u8] = self.bytes;
        let bytes = self
            .byte_pos
            .checked_add(total)
            .and_then(|end| bytes.get(self.byte_pos..end))
            .ok_or_else(|| error(NAME, format!("{n} values run past the page's bytes")))?;
        Ok((lengths, bytes))
    }

    fn advance(&mut self, n: usize, bytes: usize) {
        self.index += n;
        self.byte_pos += bytes;
    }
}
