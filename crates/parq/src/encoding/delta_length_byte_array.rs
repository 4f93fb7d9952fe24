//! DELTA_LENGTH_BYTE_ARRAY (= 6) for BYTE_ARRAY: every length, DELTA_BINARY_PACKED, then all
//! the bytes back to back.
//!
//! The decoder decodes the page's lengths into a buffer that can be reused across pages (see
//! [`DeltaLengthByteArrayDecoder::with_buffer`]) and checks them against the bytes that
//! follow; each batch is then reserved from its lengths, its bytes (contiguous in the page)
//! copied at once and its offsets made by a running sum of the lengths.
//!
//! The lengths' count is read from the data and costs no bytes per value when the lengths
//! are all equal (width-0 miniblocks: a page of empty strings), so it sizes nothing ahead:
//! up to [`LENGTHS_AHEAD`] or as many lengths as the data has bytes (a whole page, as a rule)
//! are decoded and checked by the constructor, the others as their values are asked for.

use super::delta_binary_packed::DeltaBinaryPackedDecoder;
use super::{error, reserve_byte_array, OffsetSize};
use crate::Result;

const NAME: &str = "DELTA_LENGTH_BYTE_ARRAY";

/// The lengths (DELTA_LENGTH_BYTE_ARRAY lengths, DELTA_BYTE_ARRAY prefix and suffix lengths)
/// decoded ahead of the values asked for: as many as the data has bytes, and at least this
/// many. A page whose values are not all empty has fewer values than bytes, so its lengths are
/// all decoded (and checked) when its decoder is made; the lengths of a page that claims more
/// are decoded as their values are asked for, so the count it claims allocates nothing.
pub const LENGTHS_AHEAD: usize = 1024;

/// A DELTA_BINARY_PACKED list of non-negative lengths, decoded as it is consumed (at most
/// [`LENGTHS_AHEAD`] or the data's byte count ahead of the values asked for).
#[derive(Debug, Clone)]
pub(crate) struct Lengths<'a> {
    /// The encoding named in errors, and what the lengths are ("length", "prefix length").
    encoding: &'static str,
    what: &'static str,
    /// Decoded lengths: `buf[head..]` are the next ones.
    buf: Vec<i32>,
    head: usize,
    /// The index (in the whole list) of `buf[0]`.
    base: usize,
    /// The lengths not decoded yet.
    pending: DeltaBinaryPackedDecoder<'a>,
    /// Lengths not consumed yet (buffered or pending); 0 after an error.
    remaining: usize,
    /// The sum of `buf[head..]`.
    buffered: u64,
    /// The sum of every length decoded so far, at most `max_total`.
    decoded: u64,
    max_total: u64,
    /// The bytes the encoded lengths take.
    encoded_len: usize,
}

impl<'a> Lengths<'a> {
    /// The lengths at the start of `data`, decoded into `buf` (cleared first). With
    /// `bounded_by_rest`, their sum may not exceed the bytes after them (the values' bytes of
    /// DELTA_LENGTH_BYTE_ARRAY).
    pub(crate) fn new(
        encoding: &'static str,
        what: &'static str,
        data: &'a [u8],
        mut buf: Vec<i32>,
        bounded_by_rest: bool,
    ) -> Result<Self> {
        buf.clear();
        let mut pending = DeltaBinaryPackedDecoder::new(data)?;
        let count = pending.len();
        let ahead = data.len().max(LENGTHS_AHEAD);
        let all = count <= ahead;
        let encoded_len = if all {
            // The whole list: decoding it finds its end.
            pending.decode(count, &mut buf)?;
            pending.consumed()
        } else {
            pending.encoded_len()?
        };
        let max_total = match data.len().checked_sub(encoded_len) {
            Some(rest) if bounded_by_rest => rest as u64,
            _ => u64::MAX,
        };
        let mut lengths = Lengths {
            encoding,
            what,
            buf,
            head: 0,
            base: 0,
            pending,
            remaining: count,
            buffered: 0,
            decoded: 0,
            max_total,
            encoded_len,
        };
        if all {
            lengths.absorb(0)?;
        } else {
            lengths.fill(ahead)?;
        }
        Ok(lengths)
    }

    /// The bytes the encoded lengths take.
    pub(crate) fn encoded_len(&self) -> usize {
        self.encoded_len
    }

    /// Lengths not consumed yet.
    pub(crate) fn remaining(&self) -> usize {
        self.remaining
    }

    /// The sum of every length decoded so far.
    pub(crate) fn decoded_total(&self) -> u64 {
        self.decoded
    }

    /// True when every length is decoded.
    pub(crate) fn all_decoded(&self) -> bool {
        self.pending.remaining() == 0
    }

    /// The lengths not decoded yet (a copy of their decoder).
    pub(crate) fn pending(&self) -> DeltaBinaryPackedDecoder<'a> {
        self.pending.clone()
    }

    /// Gives back the buffer for reuse.
    pub(crate) fn into_buffer(self) -> Vec<i32> {
        self.buf
    }

    /// Makes sure the next `n` lengths are decoded; an error if fewer remain or a length
    /// decoded now is invalid (then no more lengths are given).
    pub(crate) fn ensure(&mut self, n: usize) -> Result<()> {
        if n > self.remaining {
            return Err(error(
                self.encoding,
                format!("{n} values requested, {} remain", self.remaining),
            ));
        }
        let have = self.buf.len() - self.head;
        if have < n {
            // `n - have <= pending.remaining()`: the rest of the `n` are pending.
            let k = (n - have).max(LENGTHS_AHEAD).min(self.pending.remaining());
            if let Err(e) = self.fill(k) {
                self.remaining = 0;
                return Err(e);
            }
        }
        Ok(())
    }

    /// The next `n` lengths (made sure of by [`ensure`](Self::ensure)) and their sum.
    pub(crate) fn peek(&self, n: usize) -> (&[i32], u64) {
        let lengths = self.buf.get(self.head..).unwrap_or_default();
        let lengths = lengths.get(..n).unwrap_or(lengths);
        let total = if lengths.len() == self.buf.len() - self.head {
            self.buffered
        } else {
            total_length(lengths)
        };
        (lengths, total)
    }

    /// Consumes the next `n` lengths (made sure of), which sum to `total`.
    pub(crate) fn advance(&mut self, n: usize, total: u64) {
        self.head += n;
        self.remaining -= n;
        self.buffered -= total;
    }

    /// Decodes the next `k` (at most the pending) lengths after the buffered ones, dropping
    /// the consumed ones first.
    fn fill(&mut self, k: usize) -> Result<()> {
        if self.head > 0 {
            self.buf.drain(..self.head);
            self.base += self.head;
            self.head = 0;
        }
        let from = self.buf.len();
        self.pending.decode(k, &mut self.buf)?;
        self.absorb(from)
    }

    /// Checks the lengths decoded from `buf[from..]` on (none negative, the sum within
    /// `max_total`) and adds them to the sums.
    fn absorb(&mut self, from: usize) -> Result<()> {
        let new = self.buf.get(from..).unwrap_or_default();
        // A branch-free OR over all the lengths (it vectorizes); the position only on error.
        if new.iter().fold(0, |acc, &l| acc | l) < 0 {
            let i = new.iter().position(|&l| l < 0).unwrap_or(0);
            return Err(error(
                self.encoding,
                format!(
                    "{} {} is negative ({:?})",
                    self.what,
                    self.base + from + i,
                    new.get(i)
                ),
            ));
        }
        let sum = total_length(new);
        self.buffered += sum;
        self.decoded = self.decoded.saturating_add(sum);
        if self.decoded > self.max_total {
            let at_least = if self.all_decoded() { "" } else { "at least " };
            return Err(error(
                NAME,
                format!(
                    "lengths total {at_least}{} bytes, {} remain",
                    self.decoded, self.max_total
                ),
            ));
        }
        Ok(())
    }
}

/// The sum of `lengths` (none negative).
#[inline]
pub(crate) fn total_length(lengths: &[i32]) -> u64 {
    lengths.iter().map(|&l| u64::from(l as u32)).sum()
}

/// A streaming decoder of DELTA_LENGTH_BYTE_ARRAY data.
#[derive(Debug, Clone)]
pub struct DeltaLengthByteArrayDecoder<'a> {
    lengths: Lengths<'a>,
    /// The bytes of all values.
    bytes: &'a [u8],
    /// Where the next value's bytes start in `bytes`.
    byte_pos: usize,
}

impl<'a> DeltaLengthByteArrayDecoder<'a> {
    /// A decoder of `data`, which starts with the encoded lengths.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::with_buffer(data, Vec::new())
    }

    /// Like [`new`](Self::new), decoding the lengths into `buffer` (e.g. the one a previous
    /// decoder returned from [`into_buffer`](Self::into_buffer)). The lengths decoded here
    /// (see [`LENGTHS_AHEAD`]) are checked here: an error if one is negative or they total
    /// more than the bytes that follow them.
    pub fn with_buffer(data: &'a [u8], buffer: Vec<i32>) -> Result<Self> {
        let lengths = Lengths::new(NAME, "length", data, buffer, true)?;
        let bytes = data.get(lengths.encoded_len()..).unwrap_or_default();
        Ok(DeltaLengthByteArrayDecoder {
            lengths,
            bytes,
            byte_pos: 0,
        })
    }

    /// Gives back the lengths buffer for reuse.
    pub fn into_buffer(self) -> Vec<i32> {
        self.lengths.into_buffer()
    }

    /// Values not decoded yet.
    pub fn remaining(&self) -> usize {
        self.lengths.remaining()
    }

    /// The length of the encoded data (lengths plus bytes); what follows starts there. When
    /// the lengths are not all decoded yet (see [`LENGTHS_AHEAD`]), the rest are decoded in
    /// a bounded buffer to sum them; if one is invalid, the end of the data is returned.
    pub fn encoded_len(&self) -> usize {
        let mut total = self.lengths.decoded_total();
        if !self.lengths.all_decoded() {
            let mut pending = self.lengths.pending();
            let mut window: Vec<i32> = Vec::new();
            while pending.remaining() > 0 {
                window.clear();
                let k = pending.remaining().min(LENGTHS_AHEAD);
                if pending.decode(k, &mut window).is_err() || window.iter().any(|&l| l < 0) {
                    return self.lengths.encoded_len() + self.bytes.len();
                }
                total = total.saturating_add(total_length(&window));
            }
        }
        let total = usize::try_from(total).unwrap_or(usize::MAX);
        self.lengths
            .encoded_len()
            .saturating_add(total.min(self.bytes.len()))
    }

    /// Appends the next `n` values to Arrow-style `offsets` and `values`; an error if fewer
    /// remain.
    pub fn decode<O: OffsetSize>(
        &mut self,
        n: usize,
        offsets: &mut Vec<O>,
        values: &mut Vec<u8>,
    ) -> Result<()> {
        self.prepare(n)?;
        let (lengths, bytes) = self.peek(n)?;
        reserve_byte_array(NAME, offsets, values, n, bytes.len())?;
        // The values' bytes are contiguous: one copy, then the offsets as a running sum of
        // the lengths (none negative; their total was checked against the page's bytes as
        // they were decoded and against the offset type by `reserve_byte_array`).
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
        self.prepare(n)?;
        let (_, bytes) = self.peek(n)?;
        self.advance(n, bytes.len());
        Ok(())
    }

    /// Decodes the lengths of the next `n` values ahead of [`peek`](Self::peek); an error if
    /// fewer remain.
    pub(crate) fn prepare(&mut self, n: usize) -> Result<()> {
        self.lengths.ensure(n)
    }

    /// The lengths and the bytes of the next `n` values (prepared by
    /// [`prepare`](Self::prepare)), without consuming them.
    pub(crate) fn peek(&self, n: usize) -> Result<(&[i32], &'a [u8])> {
        let (lengths, total) = self.lengths.peek(n);
        // The lengths decoded total at most `bytes.len()` (checked as they were decoded), so
        // this is in bounds; the errors are unreachable.
        let bytes: &'a [u8] = self.bytes;
        let bytes = usize::try_from(total)
            .ok()
            .and_then(|t| self.byte_pos.checked_add(t))
            .and_then(|end| bytes.get(self.byte_pos..end))
            .filter(|_| lengths.len() == n)
            .ok_or_else(|| error(NAME, format!("{n} values run past the page's bytes")))?;
        Ok((lengths, bytes))
    }

    /// Consumes the next `n` values (prepared), whose bytes total `bytes`.
    pub(crate) fn advance(&mut self, n: usize, bytes: usize) {
        self.lengths.advance(n, bytes as u64);
        self.byte_pos += bytes;
    }
}
