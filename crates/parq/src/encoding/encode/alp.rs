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
    ints: Vec<i64>,
    deltas: Vec<u64>,
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
            deltas: Vec::new(),
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
        let mut best_size = estimate(&self.sample, first, false).unwrap_or(u64::MAX);
        let mut worse = 0;
        for &pair in rest {
            let size = estimate(&self.sample, pair, false).unwrap_or(u64::MAX);
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
        self.ints.clear();
        self.ints.resize(v.len(), 0);
        self.exceptions.clear();
        self.exceptions.resize(v.len(), 0);
        // Branch-free: every position is written where the next exception would go, and
        // kept only when it is one (`found <= i`, and a vector holds at most 1024 values).
        let mut found = 0;
        for (i, (&x, k)) in v.iter().zip(self.ints.iter_mut()).enumerate() {
            *k = x.to_int(enc);
            self.exceptions[found] = i as u16;
            found += usize::from(T::from_int(*k, dec).bits_u64() != x.bits_u64());
        }
        self.exceptions.truncate(found);
        // Exceptions take the first encoded value that is not one, keeping the range tight.
        let mut first = 0;
        for &p in &self.exceptions {
            if usize::from(p) != first {
                break;
            }
            first += 1;
        }
        let fill = self.ints.get(first).copied().unwrap_or(0);
        for &p in &self.exceptions {
            if let Some(k) = self.ints.get_mut(usize::from(p)) {
                *k = fill;
            }
        }
        let min = self.ints.iter().copied().min().unwrap_or(0);
        let max = self.ints.iter().copied().max().unwrap_or(0);
        let range = (max as u64).wrapping_sub(min as u64);
        let bit_width = u64::BITS - range.leading_zeros();
        out.extend_from_slice(&[exponent, factor]);
        out.extend_from_slice(&(self.exceptions.len() as u16).to_le_bytes());
        out.extend_from_slice(&(min as u64).to_le_bytes()[..T::WIDTH]);
        out.push(bit_width as u8);
        if bit_width > 0 {
            self.deltas.clear();
            self.deltas.extend(
                self.ints
                    .iter()
                    .map(|&k| (k as u64).wrapping_sub(min as u64)),
            );
            self.deltas.resize(v.len().div_ceil(8) * 8, 0);
            let at = out.len();
            pack(&self.deltas, bit_width, out);
            out.truncate(at + (v.len() * bit_width as usize).div_ceil(8));
        }
        out.reserve(self.exceptions.len() * (2 + T::WIDTH));
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

/// The estimated bits of `sample` under `pair`; `None` when `strict` and fewer than 2 values
/// are encodable.
fn estimate<T: AlpFloat>(sample: &[T], (exponent, factor): Pair, strict: bool) -> Option<u64> {
    let enc = T::encode_scale(exponent, factor);
    let dec = T::decode_scale(exponent, factor);
    let mut exceptions = 0u64;
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    for &x in sample {
        let k = x.to_int(enc);
        // Branch-free: exceptions leave the range as it is.
        let exact = T::from_int(k, dec) == x;
        exceptions += u64::from(!exact);
        min = min.min(if exact { k } else { i64::MAX });
        max = max.max(if exact { k } else { i64::MIN });
    }
    let n = sample.len() as u64;
    if strict && n - exceptions < 2 {
        return None;
    }
    if exceptions == n {
        return Some(n * exception_bits::<T>());
    }
    let range = (max as u64).wrapping_sub(min as u64);
    let bit_width = u64::from(u64::BITS - range.leading_zeros());
    Some(n * bit_width + exceptions * exception_bits::<T>())
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
                let Some(size) = estimate(sample_buf, (exponent, factor), true) else {
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
