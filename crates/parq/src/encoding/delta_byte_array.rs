//! DELTA_BYTE_ARRAY (= 7), incremental or front coding, for BYTE_ARRAY and
//! FIXED_LEN_BYTE_ARRAY: the prefix lengths (DELTA_BINARY_PACKED), then the suffixes
//! (DELTA_LENGTH_BYTE_ARRAY). Value i is the first `prefix[i]` bytes of value i - 1 followed
//! by suffix i.
//!
//! Both length lists are decoded once per page; each batch is reserved exactly from them
//! (sum of prefix and suffix lengths) and prefixes are copied within the output. The last
//! value of a batch is kept so that the next batch can continue from it even when the caller
//! reuses (clears) its output buffers.

use super::delta_length_byte_array::{decode_lengths, DeltaLengthByteArrayDecoder};
use super::{error, reserve_byte_array, OffsetSize};
use crate::Result;

const NAME: &str = "DELTA_BYTE_ARRAY";

/// A streaming decoder of DELTA_BYTE_ARRAY data.
#[derive(Debug, Clone)]
pub struct DeltaByteArrayDecoder<'a> {
    prefixes: Vec<i32>,
    suffixes: DeltaLengthByteArrayDecoder<'a>,
    index: usize,
    /// The previous value, when it is not in the caller's output.
    last: Vec<u8>,
}

impl<'a> DeltaByteArrayDecoder<'a> {
    /// A decoder of `data`, all of the page's value bytes.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let mut prefixes = Vec::new();
        let start = decode_lengths(NAME, "prefix length", data, &mut prefixes)?;
        let suffixes = DeltaLengthByteArrayDecoder::new(&data[start..])?;
        if suffixes.remaining() != prefixes.len() {
            return Err(error(
                NAME,
                format!(
                    "{} prefix lengths but {} suffixes",
                    prefixes.len(),
                    suffixes.remaining()
                ),
            ));
        }
        Ok(DeltaByteArrayDecoder {
            prefixes,
            suffixes,
            index: 0,
            last: Vec::new(),
        })
    }

    /// Values not decoded yet.
    pub fn remaining(&self) -> usize {
        self.prefixes.len() - self.index
    }

    /// Appends the next `n` values to Arrow-style `offsets` and `values`; an error if fewer
    /// remain or a prefix is longer than the previous value.
    pub fn decode<O: OffsetSize>(
        &mut self,
        n: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        if n > self.remaining() {
            return Err(error(
                NAME,
                format!("{n} values requested, {} remain", self.remaining()),
            ));
        }
        if n == 0 {
            return Ok(());
        }
        let prefixes = &self.prefixes[self.index..self.index + n];
        let bytes = prefixes
            .iter()
            .zip(self.suffixes.peek_lengths(n))
            .map(|(&p, &s)| p as u64 + s as u64)
            .sum::<u64>();
        let bytes = usize::try_from(bytes)
            .map_err(|_| error(NAME, format!("values total {bytes} bytes")))?;
        reserve_byte_array(NAME, offsets, values, n, bytes)?;
        // Value 0 of the batch continues from `last`.
        let prefix = prefixes[0] as usize;
        if prefix > self.last.len() {
            return Err(self.too_long(0, prefix, self.last.len()));
        }
        let mut prev_start = values.len();
        values.extend_from_slice(&self.last[..prefix]);
        values.extend_from_slice(self.suffixes.next_value());
        offsets.push(O::from_usize(values.len()));
        for (i, &prefix) in prefixes.iter().enumerate().skip(1) {
            let prefix = prefix as usize;
            let start = values.len();
            if prefix > start - prev_start {
                return Err(self.too_long(i, prefix, start - prev_start));
            }
            values.extend_from_within(prev_start..prev_start + prefix);
            values.extend_from_slice(self.suffixes.next_value());
            offsets.push(O::from_usize(values.len()));
            prev_start = start;
        }
        self.last.clear();
        self.last.extend_from_slice(&values[prev_start..]);
        self.index += n;
        Ok(())
    }

    /// Decodes the next `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes, appending them back
    /// to back to `values`; an error if a value has another width.
    pub fn decode_fixed(&mut self, n: usize, width: usize, values: &mut Vec<u8>) -> Result<()> {
        let mut offsets: Vec<i64> = Vec::with_capacity(n + 1);
        let start = values.len();
        self.decode(n, &mut offsets, values)?;
        if values.len() - start != n * width
            || offsets.windows(2).any(|w| (w[1] - w[0]) as usize != width)
        {
            return Err(error(
                NAME,
                format!("a FIXED_LEN_BYTE_ARRAY value is not {width} bytes long"),
            ));
        }
        Ok(())
    }

    #[cold]
    fn too_long(&self, i: usize, prefix: usize, prev: usize) -> crate::Error {
        error(
            NAME,
            format!(
                "value {}: prefix length {prefix} > previous value's {prev} bytes",
                self.index + i
            ),
        )
    }
}
