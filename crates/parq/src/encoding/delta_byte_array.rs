//! DELTA_BYTE_ARRAY (= 7), incremental or front coding, for BYTE_ARRAY and
//! FIXED_LEN_BYTE_ARRAY: the prefix lengths (DELTA_BINARY_PACKED), then the suffixes
//! (DELTA_LENGTH_BYTE_ARRAY). Value i is the first `prefix[i]` bytes of value i - 1 followed
//! by suffix i.
//!
//! Both length lists are decoded once per page (into buffers that can be reused across pages,
//! see [`DeltaByteArrayDecoder::with_buffers`]), or as their values are asked for when the
//! page claims more values than it has bytes (see
//! [`LENGTHS_AHEAD`](super::delta_length_byte_array::LENGTHS_AHEAD)). Each batch is then
//! decoded in two passes: one over the lengths checks every prefix against the previous value's length and totals the
//! output, which is reserved once; one copies each value's prefix from the previous value,
//! already in the output, and its suffix from the page, in whole chunks that may spill
//! into the next value's room (overwritten next) instead of a `memcpy` call per piece. The
//! last value of a batch is kept so that the next batch can continue from it even when the
//! caller reuses (clears) its output buffers.

use super::delta_length_byte_array::{DeltaLengthByteArrayDecoder, Lengths};
use super::{copy_chunks, error, reserve_byte_array, OffsetSize, COPY_SLACK};
use crate::Result;

const NAME: &str = "DELTA_BYTE_ARRAY";

/// A streaming decoder of DELTA_BYTE_ARRAY data.
#[derive(Debug, Clone)]
pub struct DeltaByteArrayDecoder<'a> {
    prefixes: Lengths<'a>,
    suffixes: DeltaLengthByteArrayDecoder<'a>,
    index: usize,
    /// The previous value, when it is not in the caller's output.
    last: Vec<u8>,
}

impl<'a> DeltaByteArrayDecoder<'a> {
    /// A decoder of `data`, all of the page's value bytes.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::with_buffers(data, Vec::new(), Vec::new())
    }

    /// Like [`new`](Self::new), decoding the prefix and suffix lengths into `prefixes` and
    /// `suffixes` (e.g. the ones a previous decoder returned from
    /// [`into_buffers`](Self::into_buffers)). Lengths are decoded ahead of the values asked
    /// for as [`super::delta_length_byte_array::LENGTHS_AHEAD`] says: a page's lengths are
    /// checked here as a rule, those of a page claiming more values than it has bytes as
    /// their values are asked for.
    pub fn with_buffers(data: &'a [u8], prefixes: Vec<i32>, suffixes: Vec<i32>) -> Result<Self> {
        let prefixes = Lengths::new(NAME, "prefix length", data, prefixes, false)?;
        let rest = data.get(prefixes.encoded_len()..).unwrap_or_default();
        let suffixes = DeltaLengthByteArrayDecoder::with_buffer(rest, suffixes)?;
        if suffixes.remaining() != prefixes.remaining() {
            return Err(error(
                NAME,
                format!(
                    "{} prefix lengths but {} suffixes",
                    prefixes.remaining(),
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

    /// Gives back the prefix and suffix length buffers for reuse.
    pub fn into_buffers(self) -> (Vec<i32>, Vec<i32>) {
        (self.prefixes.into_buffer(), self.suffixes.into_buffer())
    }

    /// Values not decoded yet.
    pub fn remaining(&self) -> usize {
        self.prefixes.remaining()
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
        self.prefixes.ensure(n)?;
        self.suffixes.prepare(n)?;
        let (prefixes, prefix_total) = self.prefixes.peek(n);
        let (suffix_lengths, suffixes) = self.suffixes.peek(n)?;
        if prefixes.len() != n {
            return Err(error(NAME, format!("{n} prefix lengths are not decoded")));
        }
        // Pass 1: every prefix fits the previous value (p[i] <= p[i - 1] + s[i - 1], in u32:
        // none is negative, checked when decoded, so the sums fit), and the batch's output
        // size. Branch-free over whole slices, so that it vectorizes.
        let first_bad = u64::from(prefixes[0] as u32) > self.last.len() as u64;
        let bad = prefixes[1..]
            .iter()
            .zip(prefixes.iter().zip(suffix_lengths))
            .fold(first_bad, |bad, (&next, (&p, &s))| {
                bad | (next as u32 > p as u32 + s as u32)
            });
        if bad {
            return Err(self.too_long(n));
        }
        let total = prefix_total + suffixes.len() as u64;
        let total = usize::try_from(total)
            .map_err(|_| error(NAME, format!("values total {total} bytes")))?;
        reserve_byte_array(NAME, offsets, values, n, total)?;
        // Pass 2: the copies, written into the spare capacity reserved above. `room`: the
        // capacity; values that end at least COPY_SLACK bytes before it, and whose suffix
        // ends as far before the end of the page's suffixes (all but the last few of a
        // batch, as a rule), are copied in chunks, the others exactly.
        let start = values.len();
        let room = values.capacity();
        let out_offsets = &mut offsets.spare_capacity_mut()[..n];
        let base = values.as_mut_ptr();
        // Value 0 continues from `self.last`.
        let (p, s) = (prefixes[0] as usize, suffix_lengths[0] as usize);
        // SAFETY: `p <= self.last.len()` (pass 1) and `s <= suffixes.len()` (the batch's
        // suffix lengths total `suffixes.len()`), both other allocations than `values`, whose
        // capacity holds `start + total` bytes (reserved above), of which these `p + s` bytes
        // are the first.
        unsafe {
            std::ptr::copy_nonoverlapping(self.last.as_ptr(), base.add(start), p);
            std::ptr::copy_nonoverlapping(suffixes.as_ptr(), base.add(start + p), s);
        }
        out_offsets[0].write(O::from_usize(start + p + s));
        // `prev_start`: where the previous value starts (from `base`), `pos`: where the next
        // one does, `src`: where its suffix starts in `suffixes`.
        let mut prev_start = start;
        let mut pos = start + p + s;
        let mut src = s;
        for ((&p, &s), o) in prefixes[1..]
            .iter()
            .zip(&suffix_lengths[1..])
            .zip(&mut out_offsets[1..])
        {
            let (p, s) = (p as usize, s as usize);
            let dst = pos + p;
            if dst + s + COPY_SLACK <= room && src + s + COPY_SLACK <= suffixes.len() {
                // SAFETY: pass 1 checked `p <= pos - prev_start` (the previous value's length),
                // so the prefix's source `base + prev_start .. + p` ends at or before its
                // destination `base + pos`, as `copy_chunks` needs; its reads end by
                // `prev_start + p + COPY_SLACK <= pos + COPY_SLACK` and its writes by
                // `pos + p + COPY_SLACK <= room`: inside the allocation. Bytes read past `pos`
                // may be uninitialized; they are only copied past `dst`, overwritten next.
                // The suffix: `src + s + COPY_SLACK <= suffixes.len()`: readable; its writes
                // end by `dst + s + COPY_SLACK <= room`; `suffixes` is borrowed from the page,
                // not from `values`, so the two do not overlap.
                unsafe {
                    copy_chunks(base.add(prev_start), base.add(pos), p);
                    copy_chunks(suffixes.as_ptr().add(src), base.add(dst), s);
                }
            } else {
                let piece = &suffixes[src..src + s];
                // SAFETY: `prev_start + p <= pos` (pass 1): the prefix's ranges do not
                // overlap; the value ends at `dst + s <= start + total`, inside the reserved
                // capacity; `piece` does not overlap `values`.
                unsafe {
                    std::ptr::copy_nonoverlapping(base.add(prev_start), base.add(pos), p);
                    std::ptr::copy_nonoverlapping(piece.as_ptr(), base.add(dst), s);
                }
            }
            src += s;
            prev_start = pos;
            pos = dst + s;
            o.write(O::from_usize(pos));
        }
        // SAFETY: the loop wrote bytes `start..pos` of `values` (each value's prefix and
        // suffix, `pos == start + total`) and the `n` offsets after `offsets.len()`, all
        // within the capacities reserved by `reserve_byte_array`.
        unsafe {
            values.set_len(pos);
            offsets.set_len(offsets.len() + n);
        }
        let suffix_bytes = suffixes.len();
        self.suffixes.advance(n, suffix_bytes);
        self.prefixes.advance(n, prefix_total);
        self.last.clear();
        self.last.extend_from_slice(&values[prev_start..]);
        self.index += n;
        Ok(())
    }

    /// Decodes the next `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes, appending them back
    /// to back to `values`; an error if a value has another width.
    pub fn decode_fixed(&mut self, n: usize, width: usize, values: &mut Vec<u8>) -> Result<()> {
        if n > self.remaining() {
            return Err(error(
                NAME,
                format!("{n} values requested, {} remain", self.remaining()),
            ));
        }
        let mut offsets: Vec<i64> = Vec::new();
        let start = values.len();
        self.decode(n, &mut offsets, values)?;
        if Some(values.len() - start) != n.checked_mul(width)
            || offsets.windows(2).any(|w| (w[1] - w[0]) as usize != width)
        {
            return Err(error(
                NAME,
                format!("a FIXED_LEN_BYTE_ARRAY value is not {width} bytes long"),
            ));
        }
        Ok(())
    }

    /// The error of the first of the next `n` values whose prefix is longer than the
    /// previous value.
    #[cold]
    #[inline(never)]
    fn too_long(&self, n: usize) -> crate::Error {
        let (prefixes, _) = self.prefixes.peek(n);
        let suffixes = self.suffixes.peek(n).map(|(l, _)| l).unwrap_or_default();
        let mut prev = self.last.len() as u64;
        for (i, (&p, &s)) in prefixes.iter().zip(suffixes).enumerate() {
            let (p, s) = (u64::from(p as u32), u64::from(s as u32));
            if p > prev {
                return error(
                    NAME,
                    format!(
                        "value {}: prefix length {p} > previous value's {prev} bytes",
                        self.index + i
                    ),
                );
            }
            prev = p + s;
        }
        error(NAME, "a prefix length > the previous value's".to_string())
    }
}
