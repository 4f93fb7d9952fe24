//! ALP for FLOAT and DOUBLE: vectors of 1024 values, each turned into integers by an
//! `(exponent, factor)` pair, stored as a frame of reference and bit-packed deltas, with the
//! values that do not come back exactly kept as exceptions (the layout is in
//! [`crate::encoding::alp`]).
//!
//! Choosing the pairs takes two levels of sampling, as the spec describes. The chunk's first
//! page picks up to 5 candidates: from up to 8 of its vectors, 256 values each (evenly
//! spaced), each vector's best pair over every `factor <= exponent` (the smallest estimated
//! size; ties go to the larger exponent, then factor), the candidates being the pairs best
//! for the most vectors. Every vector then takes, among the candidates, the one its own 256
//! samples estimate smallest, stopping after 4 candidates in a row that do no better.

use super::error;
use crate::encoding::alp::{AlpFloat, HEADER_SIZE, NAME};
use crate::encoding::bitpack::pack;
use crate::Result;

/// `log2` of the values per vector.
const LOG_VECTOR_SIZE: u8 = 10;
const VECTOR_SIZE: usize = 1 << LOG_VECTOR_SIZE;
/// Values sampled per vector.
const SAMPLES: usize = 256;
/// Vectors of the first page sampled for the candidates.
const SAMPLE_VECTORS: usize = 8;
/// Candidates kept for the chunk.
const MAX_CANDIDATES: usize = 5;
/// Candidates in a row that do no better before a vector stops trying.
const EARLY_EXIT: usize = 4;

/// An `(exponent, factor)` pair.
type Pair = (u8, u8);

/// A streaming ALP encoder: [`put`](Self::put) a page's values, then [`flush`](Self::flush)
/// the page. The first page flushed chooses the candidate pairs of every later one, so use a
/// new encoder per column chunk.
#[derive(Debug, Clone, Default)]
pub struct AlpEncoder<T> {
    values: Vec<T>,
    candidates: Vec<Pair>,
    /// A vector's integers, then their deltas from the frame.
    ints: Vec<u64>,
    /// 1 where a vector's value is an exception.
    misses: Vec<u8>,
    exceptions: Vec<u16>,
    sample: Vec<T>,
}

impl<T: AlpFloat> AlpEncoder<T> {
    /// A new encoder.
    pub fn new() -> Self {
        AlpEncoder {
            values: Vec::new(),
            candidates: Vec::new(),
            ints: Vec::new(),
            misses: Vec::new(),
            exceptions: Vec::new(),
            sample: Vec::new(),
        }
    }

    /// Values put since the last flush.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True if no value was put since the last flush.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Appends values to the page.
    pub fn put(&mut self, values: &[T]) {
        self.values.extend_from_slice(values);
    }

    /// An upper bound of the page's encoded size so far: PLAIN's.
    pub fn estimated_len(&self) -> usize {
        HEADER_SIZE + self.values.len() * T::WIDTH
    }

    /// Appends the page to `out` and starts over; an error if the page holds more values
    /// than its header can count.
    pub fn flush(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let n = self.values.len();
        let count = i32::try_from(n)
            .map_err(|_| error(NAME, format!("{n} values exceed a page's i32 count")))?;
        if self.candidates.is_empty() {
            self.candidates = candidates(&self.values, &mut self.sample);
        }
        let start = out.len();
        out.extend_from_slice(&[0, 0, LOG_VECTOR_SIZE]);
        out.extend_from_slice(&count.to_le_bytes());
        let num_vectors = n.div_ceil(VECTOR_SIZE);
        let offsets = out.len();
        out.resize(offsets + num_vectors * 4, 0);
        let values = std::mem::take(&mut self.values);
        for (i, v) in values.chunks(VECTOR_SIZE).enumerate() {
            let at = out.len() - start - HEADER_SIZE;
            let at = u32::try_from(at)
                .map_err(|_| error(NAME, format!("page of {at} bytes past u32 offsets")))?;
            out[offsets + i * 4..offsets + i * 4 + 4].copy_from_slice(&at.to_le_bytes());
            let pair = self.choose(v);
            self.encode_vector(v, pair, out);
        }
        self.values = values;
        self.values.clear();
        Ok(())
    }

    /// The candidate whose sample of `v` estimates smallest.
    fn choose(&mut self, v: &[T]) -> Pair {
        let (first, rest) = match self.candidates.split_first() {
            Some((&first, rest)) if !rest.is_empty() => (first, rest),
            Some((&first, _)) => return first,
            None => return (0, 0),
        };
        sample(v, &mut self.sample);
        let mut best = first;
        let mut best_size = estimate(&self.sample, first, false, u64::MAX).unwrap_or(u64::MAX);
        let mut worse = 0;
        for &pair in rest {
            // Given up on: as large as the best at least.
            let size = estimate(&self.sample, pair, false, best_size).unwrap_or(u64::MAX);
            if size >= best_size {
                worse += 1;
                if worse == EARLY_EXIT {
                    break;
                }
                continue;
            }
            best = pair;
            best_size = size;
            worse = 0;
        }
        best
    }

    fn encode_vector(&mut self, v: &[T], (exponent, factor): Pair, out: &mut Vec<u8>) {
        let enc = T::encode_scale(exponent, factor);
        let dec = T::decode_scale(exponent, factor);
        let n = v.len();
        // Whole groups of 8 for the packer, the padding zero.
        let padded = n.div_ceil(8) * 8;
        // Sized once: the pass overwrites the first `n`.
        if self.ints.len() < padded {
            self.ints.resize(padded, 0);
        }
        if self.misses.len() < n {
            self.misses.resize(n, 0);
        }
        let misses = &mut self.misses[..n];
        let ints = &mut self.ints[..padded];
        if let Some(pad) = ints.get_mut(n..) {
            pad.fill(0);
        }
        // One branch-free pass: each value's integer, whether it is an exception, and the
        // range of the others.
        let found = pass(v, enc, dec, ints, misses);
        let exceptions = found.exceptions as usize;
        let (min, max) = found
            .range()
            .map_or((0, 0), |(lo, hi)| (lo as u64, hi as u64));
        self.exceptions.clear();
        if exceptions > 0 {
            self.exceptions.resize(n, 0);
            // Branch-free: every position is written where the next exception would go, and
            // kept only when it is one (`found <= i`, and a vector holds at most 1024 values).
            let mut found = 0;
            for (i, &miss) in misses.iter().enumerate() {
                self.exceptions[found] = i as u16;
                found += usize::from(miss);
            }
            self.exceptions.truncate(found);
            // Exceptions take the first encoded value that is not one, keeping the range
            // tight (zero when all are).
            let first = self
                .exceptions
                .iter()
                .zip(0..)
                .take_while(|&(&p, i)| p == i)
                .count();
            let fill = if first < n { ints[first] } else { 0 };
            for &p in &self.exceptions {
                if let Some(k) = ints.get_mut(usize::from(p)) {
                    *k = fill;
                }
            }
        }
        let range = max.wrapping_sub(min);
        let bit_width = u64::BITS - range.leading_zeros();
        out.extend_from_slice(&[exponent, factor]);
        out.extend_from_slice(&(exceptions as u16).to_le_bytes());
        out.extend_from_slice(&min.to_le_bytes()[..T::WIDTH]);
        out.push(bit_width as u8);
        if bit_width > 0 {
            for k in &mut ints[..n] {
                *k = k.wrapping_sub(min);
            }
            let at = out.len();
            pack(ints, bit_width, out);
            out.truncate(at + (n * bit_width as usize).div_ceil(8));
        }
        out.reserve(exceptions * (2 + T::WIDTH));
        out.extend(self.exceptions.iter().flat_map(|p| p.to_le_bytes()));
        for &p in &self.exceptions {
            if let Some(x) = v.get(usize::from(p)) {
                out.extend_from_slice(&x.bits_u64().to_le_bytes()[..T::WIDTH]);
            }
        }
    }
}

/// Up to [`SAMPLES`] evenly spaced values of `v` into `out`.
fn sample<T: AlpFloat>(v: &[T], out: &mut Vec<T>) {
    out.clear();
    let step = v.len().div_ceil(SAMPLES).max(1);
    out.extend(v.iter().step_by(step).copied());
}

/// Bits an exception costs: its value and its position.
fn exception_bits<T: AlpFloat>() -> u64 {
    T::WIDTH as u64 * 8 + 16
}

/// Samples [`estimate`] reads between checks of its bound.
const ESTIMATE_BLOCK: usize = 32;

/// The estimated bits of `sample` under `pair`: every value at the bit width of the encodable
/// values' range, plus [`exception_bits`] per exception. `None` when `strict` and fewer than 2
/// values are encodable, or when the estimate is sure to reach `give_up` (what is known after
/// each block of samples, the exceptions so far and the bit width of the range so far, only
/// grows).
fn estimate<T: AlpFloat>(
    sample: &[T],
    (exponent, factor): Pair,
    strict: bool,
    give_up: u64,
) -> Option<u64> {
    let enc = T::encode_scale(exponent, factor);
    let dec = T::decode_scale(exponent, factor);
    let n = sample.len() as u64;
    let mut found = Pass::NONE;
    for block in sample.chunks(ESTIMATE_BLOCK) {
        found = found.and(pass(block, enc, dec, &mut [], &mut []));
        if found.exceptions * exception_bits::<T>() + n * found.width() >= give_up {
            return None;
        }
    }
    if strict && n - found.exceptions < 2 {
        return None;
    }
    // All exceptions: no range, so nothing packed.
    Some(n * found.width() + found.exceptions * exception_bits::<T>())
}

/// What a trial pass over values found.
#[derive(Debug, Clone, Copy)]
struct Pass {
    /// The values that are exceptions.
    exceptions: u64,
    /// The smallest and largest integer of the others (`i64::MAX` and `i64::MIN` if none).
    lo: i64,
    hi: i64,
}

impl Pass {
    const NONE: Pass = Pass {
        exceptions: 0,
        lo: i64::MAX,
        hi: i64::MIN,
    };

    /// Both passes' findings.
    fn and(self, other: Pass) -> Pass {
        Pass {
            exceptions: self.exceptions + other.exceptions,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The smallest and largest integer, if any value was no exception.
    fn range(self) -> Option<(i64, i64)> {
        (self.lo <= self.hi).then_some((self.lo, self.hi))
    }

    /// The bits of the range's deltas (0 without one).
    fn width(self) -> u64 {
        self.range().map_or(0, |(lo, hi)| {
            let span = (hi as u64).wrapping_sub(lo as u64);
            u64::from(u64::BITS - span.leading_zeros())
        })
    }
}

/// Trial-encodes `values` under the scales. When `ints` and `misses` are as long as `values`,
/// each value's integer goes into `ints`, and into `misses` 1 where it is an exception.
fn pass<T: AlpFloat>(
    values: &[T],
    enc: (T, T),
    dec: (T, T),
    ints: &mut [u64],
    misses: &mut [u8],
) -> Pass {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, just checked.
        let found = unsafe { pass_avx2(values, enc, dec, ints, misses) };
        return found.unwrap_or_else(|| pass_exact(values, enc, dec, ints, misses));
    }
    pass_vectorized(values, enc, dec, ints, misses)
        .unwrap_or_else(|| pass_exact(values, enc, dec, ints, misses))
}

/// [`pass_vectorized`] with AVX2's 4-lane 64-bit compares.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pass_avx2<T: AlpFloat>(
    values: &[T],
    enc: (T, T),
    dec: (T, T),
    ints: &mut [u64],
    misses: &mut [u8],
) -> Option<Pass> {
    pass_vectorized(values, enc, dec, ints, misses)
}

/// [`pass`] by branch-free loops the compiler vectorizes, the integers by
/// [`AlpFloat::int_fast`]; `None` when a rounded value is past its reach.
#[inline(always)]
fn pass_vectorized<T: AlpFloat>(
    values: &[T],
    enc: (T, T),
    dec: (T, T),
    ints: &mut [u64],
    misses: &mut [u8],
) -> Option<Pass> {
    let mut found = Pass::NONE;
    let mut big = false;
    // Exceptions leave the range as it is.
    let mut take = |x: T| {
        let (r, exact) = x.trial(enc, dec);
        let k = r.int_fast();
        found.exceptions += u64::from(!exact);
        found.lo = found.lo.min(if exact { k } else { i64::MAX });
        found.hi = found.hi.max(if exact { k } else { i64::MIN });
        big |= (r.abs() >= T::FAST_INT) & (r.abs() < T::INFINITY);
        (k, exact)
    };
    if ints.len() >= values.len() && misses.len() >= values.len() {
        for ((&x, k), miss) in values.iter().zip(ints).zip(misses) {
            let (int, exact) = take(x);
            *k = int as u64;
            *miss = u8::from(!exact);
        }
    } else {
        for &x in values {
            take(x);
        }
    }
    (!big).then_some(found)
}

/// [`pass`] by scalar conversions, one value at a time.
fn pass_exact<T: AlpFloat>(
    values: &[T],
    enc: (T, T),
    dec: (T, T),
    ints: &mut [u64],
    misses: &mut [u8],
) -> Pass {
    let mut found = Pass::NONE;
    for (i, &x) in values.iter().enumerate() {
        let (k, exact) = x.trial_int(enc, dec);
        if let Some(slot) = ints.get_mut(i) {
            *slot = k as u64;
        }
        if let Some(slot) = misses.get_mut(i) {
            *slot = u8::from(!exact);
        }
        if exact {
            found.lo = found.lo.min(k);
            found.hi = found.hi.max(k);
        } else {
            found.exceptions += 1;
        }
    }
    found
}

/// The chunk's candidate pairs, from the first page's values.
fn candidates<T: AlpFloat>(values: &[T], sample_buf: &mut Vec<T>) -> Vec<Pair> {
    let vectors = values.len().div_ceil(VECTOR_SIZE);
    let stride = vectors.div_ceil(SAMPLE_VECTORS).max(1);
    // (pair, vectors it is best for)
    let mut tally: Vec<(Pair, u64)> = Vec::new();
    for v in values.chunks(VECTOR_SIZE).step_by(stride) {
        sample(v, sample_buf);
        let mut best = (T::MAX_EXPONENT, T::MAX_EXPONENT);
        let mut best_size = sample_buf.len() as u64 * (exception_bits::<T>() + T::WIDTH as u64 * 8);
        for exponent in 0..=T::MAX_EXPONENT {
            for factor in 0..=exponent {
                // Given up on: larger than the best, which it cannot replace.
                let Some(size) = estimate(sample_buf, (exponent, factor), true, best_size + 1)
                else {
                    continue;
                };
                // Smaller wins; on a tie, the larger exponent, then the larger factor.
                if size < best_size || (size == best_size && (exponent, factor) > best) {
                    best = (exponent, factor);
                    best_size = size;
                }
            }
        }
        match tally.iter_mut().find(|(p, _)| *p == best) {
            Some((_, count)) => *count += 1,
            None => tally.push((best, 1)),
        }
    }
    tally.sort_by_key(|&(pair, count)| std::cmp::Reverse((count, pair)));
    tally.truncate(MAX_CANDIDATES);
    if tally.is_empty() {
        return vec![(0, 0)];
    }
    tally.into_iter().map(|(p, _)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::alp::decode;

    fn round_trip<T: AlpFloat>(values: &[T]) -> Vec<T> {
        let mut e = AlpEncoder::<T>::new();
        e.put(values);
        let mut page = Vec::new();
        e.flush(&mut page).unwrap();
        let mut out = Vec::new();
        decode(&page, values.len(), &mut out).unwrap();
        out
    }

    #[test]
    fn round_trips_bit_for_bit() {
        let mut v: Vec<f64> = (0..3000).map(|i| f64::from(i) * 0.01 + 1.5).collect();
        v.extend([f64::NAN, -0.0, f64::INFINITY, 1e300, 0.1 + 0.2, 5e-324]);
        let back = round_trip(&v);
        assert!(back.iter().zip(&v).all(|(a, b)| a.to_bits() == b.to_bits()));
        let w: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        let back = round_trip(&w);
        assert!(back.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(round_trip::<f64>(&[]).is_empty());
    }

    #[test]
    fn decimals_pack_small() {
        let v: Vec<f64> = (0..1024).map(|i| f64::from(i % 100) / 100.0).collect();
        let mut e = AlpEncoder::new();
        e.put(&v);
        let mut page = Vec::new();
        e.flush(&mut page).unwrap();
        // 7 bits a value plus the headers.
        assert!(page.len() < 1024 * 7 / 8 + 40, "{}", page.len());
    }
}
