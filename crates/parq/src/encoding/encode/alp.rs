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
    if let Some(doubles) = T::as_f64s(values) {
        if has_avx512() {
            let enc = (
                f64::from_bits(enc.0.bits_u64()),
                f64::from_bits(enc.1.bits_u64()),
            );
            let dec = (
                f64::from_bits(dec.0.bits_u64()),
                f64::from_bits(dec.1.bits_u64()),
            );
            // SAFETY: the CPU has these AVX-512 features, just checked.
            return unsafe { pass_avx512(doubles, enc, dec, ints, misses) };
        }
    }
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

/// Whether the CPU has the AVX-512 features [`pass_avx512`] takes.
#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// [`pass`] of `f64` values 8 lanes at a time, right at every magnitude: the rounded values
/// go to `i64` and back by AVX-512 DQ's conversions (the reader's `k as f64`), as
/// [`AlpFloat::trial_int`] does one value at a time; the last `len % 8` values go to
/// [`pass_exact`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl")]
fn pass_avx512(
    values: &[f64],
    enc: (f64, f64),
    dec: (f64, f64),
    ints: &mut [u64],
    misses: &mut [u8],
) -> Pass {
    use std::arch::x86_64::*;
    // As `trial_int`: the largest scaled magnitude encoded, and 2^52 + 2^51.
    const LIMIT: f64 = 9223372036854775000.0;
    const MAGIC: f64 = 6755399441055744.0;
    const TWO_63: f64 = 9223372036854775808.0;
    let store = ints.len() >= values.len() && misses.len() >= values.len();
    let (e0, e1) = (_mm512_set1_pd(enc.0), _mm512_set1_pd(enc.1));
    let (d0, d1) = (_mm512_set1_pd(dec.0), _mm512_set1_pd(dec.1));
    let (limit, magic, two_63) = (
        _mm512_set1_pd(LIMIT),
        _mm512_set1_pd(MAGIC),
        _mm512_set1_pd(TWO_63),
    );
    let (i64_max, ones) = (_mm512_set1_epi64(i64::MAX), _mm_set1_epi8(1));
    let mut lo = _mm512_set1_epi64(i64::MAX);
    let mut hi = _mm512_set1_epi64(i64::MIN);
    let mut exceptions = 0u64;
    let whole = values.len() / 8 * 8;
    for (i, chunk) in values[..whole].chunks_exact(8).enumerate() {
        // SAFETY: `chunk` holds 8 `f64`, the 64 bytes read.
        let x = unsafe { _mm512_loadu_pd(chunk.as_ptr()) };
        let s = _mm512_mul_pd(_mm512_mul_pd(x, e0), e1);
        // False for NaN.
        let inside = _mm512_cmp_pd_mask::<_CMP_LE_OQ>(_mm512_abs_pd(s), limit);
        let r = _mm512_sub_pd(_mm512_add_pd(s, magic), magic);
        // `as i64` saturates where the conversion gives i64::MIN: at 2^63 (inside's largest).
        let k = _mm512_cvttpd_epi64(r);
        let k = _mm512_mask_mov_epi64(k, _mm512_cmp_pd_mask::<_CMP_GE_OQ>(r, two_63), i64_max);
        let k = _mm512_maskz_mov_epi64(inside, k);
        let back = _mm512_mul_pd(_mm512_mul_pd(_mm512_cvtepi64_pd(k), d0), d1);
        let same = _mm512_cmpeq_epi64_mask(_mm512_castpd_si512(back), _mm512_castpd_si512(x));
        let exact = inside & same;
        exceptions += u64::from((!exact).count_ones());
        lo = _mm512_mask_min_epi64(lo, exact, lo, k);
        hi = _mm512_mask_max_epi64(hi, exact, hi, k);
        if store {
            let at = i * 8;
            if let (Some(k_out), Some(m_out)) =
                (ints.get_mut(at..at + 8), misses.get_mut(at..at + 8))
            {
                // SAFETY: `k_out` holds 8 `u64`, the 64 bytes written.
                unsafe { _mm512_storeu_si512(k_out.as_mut_ptr().cast(), k) };
                let m = _mm_maskz_mov_epi8(u16::from(!exact), ones);
                // SAFETY: `m_out` holds 8 bytes, the low 8 of `m` written.
                unsafe { _mm_storel_epi64(m_out.as_mut_ptr().cast(), m) };
            }
        }
    }
    let found = Pass {
        exceptions,
        lo: _mm512_reduce_min_epi64(lo),
        hi: _mm512_reduce_max_epi64(hi),
    };
    let (ints_tail, misses_tail) = if store {
        (&mut ints[whole..], &mut misses[whole..])
    } else {
        (&mut [][..], &mut [][..])
    };
    found.and(pass_exact(
        &values[whole..],
        enc,
        dec,
        ints_tail,
        misses_tail,
    ))
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

    /// Runs [`pass_avx512`] and [`pass_exact`] on `values` under every pair, with and without
    /// the outputs, and fails where any finding, integer or exception flag differs.
    #[cfg(target_arch = "x86_64")]
    fn same_as_exact(values: &[f64]) {
        for exponent in 0..=f64::MAX_EXPONENT {
            for factor in 0..=exponent {
                let enc = f64::encode_scale(exponent, factor);
                let dec = f64::decode_scale(exponent, factor);
                let n = values.len();
                let (mut ints, mut misses) = (vec![7; n], vec![7; n]);
                let (mut ints_ref, mut misses_ref) = (vec![9; n], vec![9; n]);
                // SAFETY: the caller checked the CPU has the features.
                let got = unsafe { pass_avx512(values, enc, dec, &mut ints, &mut misses) };
                let want = pass_exact(values, enc, dec, &mut ints_ref, &mut misses_ref);
                // SAFETY: as above.
                let bare = unsafe { pass_avx512(values, enc, dec, &mut [], &mut []) };
                let pair = (exponent, factor);
                for found in [got, bare] {
                    assert_eq!(found.exceptions, want.exceptions, "{pair:?}");
                    assert_eq!((found.lo, found.hi), (want.lo, want.hi), "{pair:?}");
                }
                for i in 0..n {
                    let x = values[i];
                    assert_eq!(
                        misses[i],
                        misses_ref[i],
                        "{pair:?} {x:e} ({:#x})",
                        x.to_bits()
                    );
                    assert_eq!(ints[i], ints_ref[i], "{pair:?} {x:e} ({:#x})", x.to_bits());
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx512_pass_matches_exact_pass() {
        if !has_avx512() {
            return;
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Any bits, then random values like the bench's scan-value, then decimals.
        let bits: Vec<f64> = (0..2001).map(|_| f64::from_bits(next())).collect();
        same_as_exact(&bits);
        let scaled: Vec<f64> = (0..1027)
            .map(|_| {
                let x = (next() >> 11) as f64 / (1u64 << 53) as f64 * 1000.0;
                if next() % 2 == 0 {
                    x
                } else {
                    -x
                }
            })
            .collect();
        same_as_exact(&scaled);
        let decimals: Vec<f64> = (0..1029)
            .map(|_| (next() % 2_000_001) as f64 / 100.0 - 10_000.0)
            .collect();
        same_as_exact(&decimals);
        let mut special = vec![
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1.5,
            -2.5,
        ];
        // Around 2^51 to 2^63 once scaled (each pair scales by at most 10^18 and at least
        // 10^-18), and a few floats either side of each.
        for power in 49..=64 {
            let t = (power as f64).exp2();
            for scale in (-18..=2).map(|p| 10f64.powi(p)) {
                for m in [t, t * 0.75, t * 1.5, t - 1024.0, 9223372036854775000.0] {
                    let x = m * scale;
                    for d in 0..4 {
                        for y in [x, -x] {
                            special.push(f64::from_bits(y.to_bits().wrapping_add(d)));
                            special.push(f64::from_bits(y.to_bits().wrapping_sub(d)));
                        }
                    }
                }
            }
        }
        same_as_exact(&special);
        // Short slices, all tail or a lane and a tail.
        for len in 0..20 {
            same_as_exact(&special[..len]);
        }
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
