//! DELTA_LENGTH_BYTE_ARRAY (= 6) for BYTE_ARRAY: every length, DELTA_BINARY_PACKED, then all
//! the bytes back to back.
//!
//! The decoder decodes the page's lengths once (into a buffer that can be reused across pages,
//! see [`DeltaLengthByteArrayDecoder::with_buffer`]) and checks them against the bytes that
//! follow; each batch is then reserved exactly from its lengths and its bytes copied at once.

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
    if let Some(i) = lengths.iter().position(|&l| l < 0) {
        return Err(error(
            encoding,
            format!("{what} {i} is negative ({})", lengths[i]),
        ));
    }
    Ok(consumed)
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
        let total: u64 = buffer.iter().map(|&l| l as u64).sum();
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
        let lengths = self.take(n)?;
        let bytes: usize = lengths.iter().map(|&l| l as usize).sum();
        reserve_byte_array(NAME, offsets, values, n, bytes)?;
        // The values' bytes are contiguous: one copy, then the offsets as a running sum of
        // the lengths (none negative; their total was checked against the page's bytes in
        // `with_buffer` and against the offset type by `reserve_byte_array`).
        let end = self.byte_pos + bytes;
        let mut offset = values.len();
        values.extend_from_slice(&self.bytes[self.byte_pos..end]);
        offsets.extend(lengths.iter().map(|&l| {
            offset += l as usize;
            O::from_usize(offset)
        }));
        self.byte_pos = end;
        self.index += n;
        Ok(())
    }

    /// Skips the next `n` values; an error if fewer remain.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        let bytes: usize = self.take(n)?.iter().map(|&l| l as usize).sum();
        self.byte_pos += bytes;
        self.index += n;
        Ok(())
    }

    fn take(&self, n: usize) -> Result<&[i32]> {
        if n > self.remaining() {
            return Err(error(
                NAME,
                format!("{n} values requested, {} remain", self.remaining()),
            ));
        }
        Ok(&self.lengths[self.index..self.index + n])
    }

    /// The next value's bytes (the caller checked that one remains).
    #[inline]
    pub(crate) fn next_value(&mut self) -> &'a [u8] {
        let l = self.lengths[self.index] as usize;
        let v = &self.bytes[self.byte_pos..self.byte_pos + l];
        self.byte_pos += l;
        self.index += 1;
        v
    }

    /// The lengths of the next `n` values (the caller checked that they remain).
    pub(crate) fn peek_lengths(&self, n: usize) -> &[i32] {
        &self.lengths[self.index..self.index + n]
    }
}
