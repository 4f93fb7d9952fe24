//! ALP (= 10), adaptive lossless floating point, for FLOAT and DOUBLE (format 2.14, preview).
//!
//! A page is a 7-byte header, one little-endian `u32` offset per vector, then the vectors:
//!
//! - header: `compression_mode` (0), `integer_encoding` (0: frame of reference and
//!   bit-packing), `log_vector_size` (3..=15), `num_elements` (`i32`, the non-null values);
//! - offsets: where each vector starts, counted from the end of the header;
//! - vector: `exponent` (`u8`), `factor` (`u8`), `num_exceptions` (`u16`), the frame of
//!   reference (4 or 8 bytes), `bit_width` (`u8`), the `n` deltas bit-packed LSB first
//!   (`ceil(n * bit_width / 8)` bytes), the exception positions (`u16` each) and the
//!   exceptions' raw bits (4 or 8 bytes each).
//!
//! A value is `((frame + delta) as signed as float * 10^factor) * 10^-exponent`, two
//! multiplications in that order, except at the exception positions, which hold their value's
//! bits. Every vector holds `2^log_vector_size` values but the last, which holds the rest.
//!
//! [`AlpFloat`] carries the arithmetic both directions share; the encoder is
//! [`crate::encoding::encode::alp`].

use super::bitpack::{unpack, Unpacked};
use super::error;
use super::plain::FixedWidth;
use super::try_reserve;
use crate::Result;

pub(crate) const NAME: &str = "ALP";

/// Bytes of the page header.
pub(crate) const HEADER_SIZE: usize = 7;
/// Bytes of a vector's `exponent`, `factor` and `num_exceptions`.
pub(crate) const INFO_SIZE: usize = 4;
/// The smallest and largest `log_vector_size`.
pub(crate) const MIN_LOG_VECTOR_SIZE: u8 = 3;
pub(crate) const MAX_LOG_VECTOR_SIZE: u8 = 15;

const POW10_F64: [f64; 19] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];
const NEG_POW10_F64: [f64; 19] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15, 1e-16, 1e-17, 1e-18,
];
const POW10_F32: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
const NEG_POW10_F32: [f32; 11] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10,
];

/// 2^52 + 2^51 and 2^23 + 2^22: adding and subtracting them rounds to the nearest integer.
const MAGIC_F64: f64 = 6755399441055744.0;
const MAGIC_F32: f32 = 12582912.0;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A float type ALP encodes: `f32` (exponents up to 10, `i32` integers) or `f64` (up to 18,
/// `i64` integers).
pub trait AlpFloat:
    FixedWidth + PartialOrd + std::ops::Neg<Output = Self> + std::fmt::Debug + sealed::Sealed
{
    /// The unsigned integer of the same width: the value's bits, the frame of reference and
    /// the deltas.
    type Bits: Unpacked + FixedWidth + Into<u64>;
    /// The largest exponent.
    const MAX_EXPONENT: u8;

    /// The decode scale of a vector: `(10^factor, 10^-exponent)` (`factor <= exponent <=
    /// MAX_EXPONENT`, which callers check).
    fn decode_scale(exponent: u8, factor: u8) -> (Self, Self);
    /// The encode scale: `(10^exponent, 10^-factor)`.
    fn encode_scale(exponent: u8, factor: u8) -> (Self, Self);
    /// The value of the integer `frame + delta` (wrapping, read as signed).
    fn from_delta(frame: Self::Bits, delta: Self::Bits, scale: (Self, Self)) -> Self;
    /// The value's trial encoding under an encode and a decode scale: `(self * 10^exponent) *
    /// 10^-factor` rounded to the nearest integer (held as a float; an integer only below
    /// [`FAST_INT`](Self::FAST_INT) in magnitude), and whether that integer
    /// decodes back to `self` bit for bit, which never holds for NaN, the infinities, `-0.0`
    /// or values scaled past the integer range. Float arithmetic only, so loops of it vectorize.
    fn trial(self, encode: (Self, Self), decode: (Self, Self)) -> (Self, bool);
    /// [`trial`](Self::trial) by scalar conversions, right at every magnitude (`trial`'s
    /// rounded value is an integer only below [`FAST_INT`](Self::FAST_INT)): the integer and
    /// whether it decodes back to `self` bit for bit.
    fn trial_int(self, encode: (Self, Self), decode: (Self, Self)) -> (i64, bool);
    /// The same integer by integer arithmetic on the float's bits, which vectorizes; exact
    /// only below [`FAST_INT`](Self::FAST_INT) in magnitude.
    fn int_fast(self) -> i64;
    /// The magnitude below which [`int_fast`](Self::int_fast) is exact.
    const FAST_INT: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// The absolute value.
    fn abs(self) -> Self;
    /// The float of raw bits.
    fn from_raw(bits: Self::Bits) -> Self;
    /// The raw bits as a `u64`.
    fn bits_u64(self) -> u64;
    /// The values as `f64`s, when they are.
    fn as_f64s(values: &[Self]) -> Option<&[f64]>;
}

impl AlpFloat for f64 {
    type Bits = u64;
    const MAX_EXPONENT: u8 = 18;

    #[inline]
    fn decode_scale(exponent: u8, factor: u8) -> (f64, f64) {
        (
            POW10_F64[usize::from(factor).min(18)],
            NEG_POW10_F64[usize::from(exponent).min(18)],
        )
    }
    #[inline]
    fn encode_scale(exponent: u8, factor: u8) -> (f64, f64) {
        (
            POW10_F64[usize::from(exponent).min(18)],
            NEG_POW10_F64[usize::from(factor).min(18)],
        )
    }
    #[inline(always)]
    fn from_delta(frame: u64, delta: u64, scale: (f64, f64)) -> f64 {
        (frame.wrapping_add(delta) as i64 as f64 * scale.0) * scale.1
    }
    const FAST_INT: f64 = (1u64 << 51) as f64;
    const INFINITY: f64 = f64::INFINITY;
    #[inline(always)]
    fn trial(self, encode: (f64, f64), decode: (f64, f64)) -> (f64, bool) {
        // The largest scaled magnitude encoded (as 60.1 and the ALP paper).
        const LIMIT: f64 = 9223372036854775000.0;
        let s = (self * encode.0) * encode.1;
        let r = (s + MAGIC_F64) - MAGIC_F64;
        // `r` is an integer within i64's range (or 2^63, which converts back to it), so
        // decoding it as the reader does (`r as i64 as f64`, then the two products) is this.
        let back = (r * decode.0) * decode.1;
        // NaN fails the range test; `-0.0` comes back as `+0.0`, failing the bit test.
        (r, s.abs() <= LIMIT && back.to_bits() == self.to_bits())
    }
    #[inline(always)]
    fn trial_int(self, encode: (f64, f64), decode: (f64, f64)) -> (i64, bool) {
        const LIMIT: f64 = 9223372036854775000.0;
        let s = (self * encode.0) * encode.1;
        if s.is_nan() || s.abs() > LIMIT {
            return (0, false);
        }
        let k = ((s + MAGIC_F64) - MAGIC_F64) as i64;
        let back = (k as f64 * decode.0) * decode.1;
        (k, back.to_bits() == self.to_bits())
    }
    #[inline(always)]
    fn int_fast(self) -> i64 {
        // Below 2^51, `self + MAGIC` lies in [2^52, 2^53), where the float's low bits are the
        // integer's offset from MAGIC.
        ((self + MAGIC_F64).to_bits() as i64).wrapping_sub(MAGIC_F64.to_bits() as i64)
    }
    #[inline(always)]
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    #[inline(always)]
    fn from_raw(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    #[inline(always)]
    fn bits_u64(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn as_f64s(values: &[f64]) -> Option<&[f64]> {
        Some(values)
    }
}

impl AlpFloat for f32 {
    type Bits = u32;
    const MAX_EXPONENT: u8 = 10;

    #[inline]
    fn decode_scale(exponent: u8, factor: u8) -> (f32, f32) {
        (
            POW10_F32[usize::from(factor).min(10)],
            NEG_POW10_F32[usize::from(exponent).min(10)],
        )
    }
    #[inline]
    fn encode_scale(exponent: u8, factor: u8) -> (f32, f32) {
        (
            POW10_F32[usize::from(exponent).min(10)],
            NEG_POW10_F32[usize::from(factor).min(10)],
        )
    }
    #[inline(always)]
    fn from_delta(frame: u32, delta: u32, scale: (f32, f32)) -> f32 {
        (frame.wrapping_add(delta) as i32 as f32 * scale.0) * scale.1
    }
    const FAST_INT: f32 = (1u32 << 22) as f32;
    const INFINITY: f32 = f32::INFINITY;
    #[inline(always)]
    fn trial(self, encode: (f32, f32), decode: (f32, f32)) -> (f32, bool) {
        const LIMIT: f32 = 2147483500.0;
        let s = (self * encode.0) * encode.1;
        let r = (s + MAGIC_F32) - MAGIC_F32;
        let back = (r * decode.0) * decode.1;
        (r, s.abs() <= LIMIT && back.to_bits() == self.to_bits())
    }
    #[inline(always)]
    fn trial_int(self, encode: (f32, f32), decode: (f32, f32)) -> (i64, bool) {
        const LIMIT: f32 = 2147483500.0;
        let s = (self * encode.0) * encode.1;
        if s.is_nan() || s.abs() > LIMIT {
            return (0, false);
        }
        let k = ((s + MAGIC_F32) - MAGIC_F32) as i32;
        let back = (k as f32 * decode.0) * decode.1;
        (i64::from(k), back.to_bits() == self.to_bits())
    }
    #[inline(always)]
    fn int_fast(self) -> i64 {
        i64::from(((self + MAGIC_F32).to_bits() as i32).wrapping_sub(MAGIC_F32.to_bits() as i32))
    }
    #[inline(always)]
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    #[inline(always)]
    fn from_raw(bits: u32) -> f32 {
        f32::from_bits(bits)
    }
    #[inline(always)]
    fn bits_u64(self) -> u64 {
        u64::from(self.to_bits())
    }
    #[inline(always)]
    fn as_f64s(_: &[f32]) -> Option<&[f64]> {
        None
    }
}

/// The page header's fields.
#[derive(Debug, Clone, Copy)]
struct Header {
    log_vector_size: u8,
    num_elements: usize,
}

fn header(data: &[u8]) -> Result<Header> {
    let Some(&[mode, int_enc, log, a, b, c, d]) = data.first_chunk::<HEADER_SIZE>() else {
        return Err(error(
            NAME,
            format!("{} bytes cannot hold the 7-byte header", data.len()),
        ));
    };
    if mode != 0 {
        return Err(error(NAME, format!("unknown compression mode {mode}")));
    }
    if int_enc != 0 {
        return Err(error(NAME, format!("unknown integer encoding {int_enc}")));
    }
    if !(MIN_LOG_VECTOR_SIZE..=MAX_LOG_VECTOR_SIZE).contains(&log) {
        return Err(error(NAME, format!("log_vector_size {log} outside 3..=15")));
    }
    let n = i32::from_le_bytes([a, b, c, d]);
    let num_elements =
        usize::try_from(n).map_err(|_| error(NAME, format!("negative num_elements {n}")))?;
    Ok(Header {
        log_vector_size: log,
        num_elements,
    })
}

/// Appends the first `n` values of the ALP page `data` to `out`; `n` must not exceed the
/// page's `num_elements`.
pub fn decode<T: AlpFloat>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<()> {
    let h = header(data)?;
    if n > h.num_elements {
        return Err(error(
            NAME,
            format!("{n} values wanted, the page holds {}", h.num_elements),
        ));
    }
    if n == 0 {
        return Ok(());
    }
    let body = &data[HEADER_SIZE..];
    let vector_size = 1usize << h.log_vector_size;
    let num_vectors = h.num_elements.div_ceil(vector_size);
    let offsets_len = num_vectors.saturating_mul(4);
    if body.len() < offsets_len {
        return Err(error(
            NAME,
            format!(
                "{} bytes after the header cannot hold the offsets of {num_vectors} vectors",
                body.len()
            ),
        ));
    }
    // `n` values are wanted and the page's vectors are there: reserving `n` is bounded by the
    // caller's count, which the page's levels vouch for.
    try_reserve(NAME, out, n)?;
    let mut deltas: Vec<T::Bits> = vec![T::Bits::default(); vector_size.min(n)];
    let width = T::WIDTH;
    let offset = |i: usize| -> usize {
        let b = body.get(i * 4..i * 4 + 4).unwrap_or(&[0, 0, 0, 0]);
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    };
    let mut done = 0;
    let mut vector = 0;
    while done < n {
        let count = (h.num_elements - vector * vector_size).min(vector_size);
        let take = count.min(n - done);
        let start = offset(vector);
        let end = if vector + 1 < num_vectors {
            offset(vector + 1)
        } else {
            body.len()
        };
        let Some(v) = body.get(start..end).filter(|_| start >= offsets_len) else {
            return Err(error(
                NAME,
                format!(
                    "vector {vector} at {start}..{end} outside the page's {} bytes",
                    body.len()
                ),
            ));
        };
        let meta = INFO_SIZE + width + 1;
        if v.len() < meta {
            return Err(error(
                NAME,
                format!("vector {vector} of {} bytes misses its metadata", v.len()),
            ));
        }
        let (exponent, factor) = (v[0], v[1]);
        let exceptions = usize::from(u16::from_le_bytes([v[2], v[3]]));
        let frame = T::Bits::from_le_slice(&v[INFO_SIZE..INFO_SIZE + width]);
        let bit_width = u32::from(v[INFO_SIZE + width]);
        if exponent > T::MAX_EXPONENT || factor > exponent {
            return Err(error(
                NAME,
                format!(
                    "vector {vector}: exponent {exponent} and factor {factor} \
                     (factor <= exponent <= {} required)",
                    T::MAX_EXPONENT
                ),
            ));
        }
        if exceptions > count {
            return Err(error(
                NAME,
                format!("vector {vector}: {exceptions} exceptions among {count} values"),
            ));
        }
        if bit_width > T::Bits::BITS {
            return Err(error(
                NAME,
                format!("vector {vector}: bit width {bit_width} > {}", T::Bits::BITS),
            ));
        }
        let packed_len = (count * bit_width as usize).div_ceil(8);
        let need = meta + packed_len + exceptions * (2 + width);
        if v.len() < need {
            return Err(error(
                NAME,
                format!(
                    "vector {vector}: {} bytes, its {count} values and {exceptions} exceptions \
                     need {need}",
                    v.len()
                ),
            ));
        }
        let packed = &v[meta..meta + packed_len];
        let positions = &v[meta + packed_len..meta + packed_len + exceptions * 2];
        let values = &v[meta + packed_len + exceptions * 2..need];
        for p in positions.chunks_exact(2) {
            let p = usize::from(u16::from_le_bytes([p[0], p[1]]));
            if p >= count {
                return Err(error(
                    NAME,
                    format!("vector {vector}: exception position {p} of {count} values"),
                ));
            }
        }
        let scale = T::decode_scale(exponent, factor);
        let base = out.len();
        if bit_width == 0 {
            let value = T::from_delta(frame, T::Bits::default(), scale);
            out.extend(std::iter::repeat_n(value, take));
        } else {
            let d = &mut deltas[..take];
            unpack(packed, bit_width, d)?;
            out.extend(d.iter().map(|&d| T::from_delta(frame, d, scale)));
        }
        let slots = &mut out[base..];
        for (p, bits) in positions.chunks_exact(2).zip(values.chunks_exact(width)) {
            let p = usize::from(u16::from_le_bytes([p[0], p[1]]));
            if let Some(slot) = slots.get_mut(p) {
                *slot = T::from_raw(T::Bits::from_le_slice(bits));
            }
        }
        done += take;
        vector += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One vector of 3 f64 values: 1.25, 2.5 and an exception (NaN), exponent 2, factor 0.
    fn page() -> Vec<u8> {
        let mut p = vec![0, 0, 3, 3, 0, 0, 0];
        p.extend_from_slice(&4u32.to_le_bytes());
        p.extend_from_slice(&[2, 0, 1, 0]);
        p.extend_from_slice(&125i64.to_le_bytes());
        p.push(7);
        // Deltas 0, 125, 0 in 7 bits each.
        p.extend_from_slice(&[0x80, 0x3e, 0]);
        p.extend_from_slice(&2u16.to_le_bytes());
        p.extend_from_slice(&f64::NAN.to_bits().to_le_bytes());
        p
    }

    #[test]
    fn decodes_values_and_exceptions() {
        let mut out = Vec::new();
        decode::<f64>(&page(), 3, &mut out).unwrap();
        assert_eq!(out[..2], [1.25, 2.5]);
        assert!(out[2].is_nan());
        let mut out = Vec::new();
        decode::<f64>(&page(), 2, &mut out).unwrap();
        assert_eq!(out, [1.25, 2.5]);
    }

    #[test]
    fn truncated_pages_are_errors() {
        let p = page();
        for len in 0..p.len() {
            let mut out = Vec::new();
            assert!(decode::<f64>(&p[..len], 3, &mut out).is_err(), "{len}");
        }
        let mut out = Vec::new();
        assert!(decode::<f64>(&p, 4, &mut out).is_err());
    }
}
