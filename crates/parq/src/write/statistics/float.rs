//! Float statistics: FLOAT and DOUBLE values added to a [`StatsAccumulator`] (NaNs counted,
//! NaN bounds kept under totalOrder, min/max by the column's order), order-preserving integer
//! keys of half floats (the type order, which ignores NaN and the sign of zero, and IEEE 754
//! totalOrder), the lane-wise min/max kernel that ignores NaN, and the signed zeros of
//! totalOrder bounds.

use super::{MinMax, StatsAccumulator, StatsOrder, LANES};

impl StatsAccumulator {
    /// Counts NaNs whose bits `nans` yields (each value's bits widened to u64), keeping
    /// their smallest and largest by totalOrder under `IEEE_754_TOTAL_ORDER`.
    pub(super) fn add_nans(&mut self, nans: impl Iterator<Item = u64>, width: usize) {
        let total = self.order.is_total();
        for bits in nans {
            self.nan_count += 1;
            if total {
                self.merge_nan_bounds(bits, bits, width);
            }
        }
    }

    pub(super) fn merge_nan_bounds(&mut self, lo: u64, hi: u64, width: usize) {
        let key = |b: u64| total_key(b, width);
        self.nan_bounds = Some(match self.nan_bounds {
            Some((a, b)) => (
                if key(lo) < key(a) { lo } else { a },
                if key(hi) > key(b) { hi } else { b },
            ),
            None => (lo, hi),
        });
    }

    /// Adds FLOAT values (NaNs are counted but never become min or max).
    pub fn update_f32(&mut self, values: &[f32]) {
        if let Some((lo, hi)) = self.update_float(values, StatsOrder::Float) {
            self.merge_f32(lo, hi);
        }
    }

    /// Counts `values` and their NaNs (keeping the NaN bounds under totalOrder), and gives
    /// their non-NaN min and max in the accumulator's order, `plain` or its total order;
    /// `None` without any (or on a mismatched order).
    pub(super) fn update_float<T: Float>(
        &mut self,
        values: &[T],
        plain: StatsOrder,
    ) -> Option<(T, T)> {
        self.value_count += values.len() as u64;
        if values.is_empty() {
            return None;
        }
        if self.order != plain && self.order != plain.total_order() {
            self.mismatch();
            return None;
        }
        // A counting pass the compiler vectorizes; the NaNs are visited only when present.
        if values.iter().filter(|v| v.is_nan()).count() > 0 {
            self.add_nans(
                values.iter().filter(|v| v.is_nan()).map(|v| v.bits()),
                T::WIDTH,
            );
        }
        // `min`/`max` of floats ignore NaN; only NaNs leave lo > hi.
        let (lo, hi) = float_min_max(values, T::INFINITY, T::NEG_INFINITY);
        match (lo <= hi, self.order.is_total()) {
            (false, _) => None,
            (true, true) => Some(signed_zeros(values, lo, hi)),
            (true, false) => Some((lo, hi)),
        }
    }

    pub(super) fn merge_f32(&mut self, lo: f32, hi: f32) {
        let total = self.order.is_total();
        self.min_max = match self.min_max {
            MinMax::F32(a, b) if total => MinMax::F32(
                if lo.total_cmp(&a).is_lt() { lo } else { a },
                if hi.total_cmp(&b).is_gt() { hi } else { b },
            ),
            MinMax::F32(a, b) => MinMax::F32(a.min(lo), b.max(hi)),
            _ => MinMax::F32(lo, hi),
        };
    }

    /// Adds DOUBLE values (NaNs are counted but never become min or max).
    pub fn update_f64(&mut self, values: &[f64]) {
        if let Some((lo, hi)) = self.update_float(values, StatsOrder::Double) {
            self.merge_f64(lo, hi);
        }
    }

    pub(super) fn merge_f64(&mut self, lo: f64, hi: f64) {
        let total = self.order.is_total();
        self.min_max = match self.min_max {
            MinMax::F64(a, b) if total => MinMax::F64(
                if lo.total_cmp(&a).is_lt() { lo } else { a },
                if hi.total_cmp(&b).is_gt() { hi } else { b },
            ),
            MinMax::F64(a, b) => MinMax::F64(a.min(lo), b.max(hi)),
            _ => MinMax::F64(lo, hi),
        };
    }
}

/// FLOAT and DOUBLE, as the statistics take them.
pub(super) trait Float: Copy + PartialOrd {
    /// Plain-encoded width.
    const WIDTH: usize;
    const INFINITY: Self;
    const NEG_INFINITY: Self;
    const ZERO: Self;
    const NEG_ZERO: Self;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    /// The bits, widened.
    fn bits(self) -> u64;
}

impl Float for f32 {
    const WIDTH: usize = 4;
    const INFINITY: f32 = f32::INFINITY;
    const NEG_INFINITY: f32 = f32::NEG_INFINITY;
    const ZERO: f32 = 0.0;
    const NEG_ZERO: f32 = -0.0;
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn is_sign_negative(self) -> bool {
        self.is_sign_negative()
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Float for f64 {
    const WIDTH: usize = 8;
    const INFINITY: f64 = f64::INFINITY;
    const NEG_INFINITY: f64 = f64::NEG_INFINITY;
    const ZERO: f64 = 0.0;
    const NEG_ZERO: f64 = -0.0;
    fn is_nan(self) -> bool {
        self.is_nan()
    }
    fn is_sign_negative(self) -> bool {
        self.is_sign_negative()
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// The non-NaN min and max `lo`, `hi` of `values` (found ignoring the sign of zero) with
/// the signs totalOrder gives them: a zero min is -0.0 when `values` hold one, a zero max
/// +0.0 when they hold one.
pub(super) fn signed_zeros<T: Float>(values: &[T], lo: T, hi: T) -> (T, T) {
    let has = |negative: bool| {
        values
            .iter()
            .any(|v| *v == T::ZERO && v.is_sign_negative() == negative)
    };
    let lo = match lo == T::ZERO {
        true if has(true) => T::NEG_ZERO,
        true => T::ZERO,
        false => lo,
    };
    let hi = match hi == T::ZERO {
        true if has(false) => T::ZERO,
        true => T::NEG_ZERO,
        false => hi,
    };
    (lo, hi)
}

/// An order-preserving integer for a half float's bits; `None` for NaN. Both zeros map to 0.
#[inline]
pub(super) fn half_key(bits: u16) -> Option<i32> {
    let mag = (bits & 0x7fff) as i32;
    if mag > 0x7c00 {
        return None;
    }
    Some(if bits & 0x8000 != 0 { -mag } else { mag })
}

/// An integer ordered as IEEE 754 totalOrder orders half floats of these bits.
#[inline]
pub(super) fn half_total_key(bits: u16) -> i16 {
    let b = bits as i16;
    b ^ ((((b >> 15) as u16) >> 1) as i16)
}

/// True for the bits of a half float NaN.
#[inline]
pub(super) fn half_is_nan(bits: u16) -> bool {
    bits & 0x7fff > 0x7c00
}

/// An integer ordered as IEEE 754 totalOrder orders floats of `bits` (`width` bytes: 2, 4
/// or 8), for NaN bounds of any width.
#[inline]
pub(super) fn total_key(bits: u64, width: usize) -> i64 {
    match width {
        2 => i64::from(half_total_key(bits as u16)),
        4 => {
            let b = bits as u32 as i32;
            i64::from(b ^ ((((b >> 31) as u32) >> 1) as i32))
        }
        _ => {
            let b = bits as i64;
            b ^ ((((b >> 63) as u64) >> 1) as i64)
        }
    }
}

/// The min and max of `values` ignoring NaN, from `(inf, -inf)` (left as they are when
/// every value is NaN). `v < lo` and `v > hi` are false for NaN, so NaNs never move the
/// bounds; each lane's select is a vector min/max instruction.
#[inline]
pub(super) fn float_min_max<T: PartialOrd + Copy>(values: &[T], inf: T, neg_inf: T) -> (T, T) {
    let (chunks, tail) = values.as_chunks::<LANES>();
    let mut lo = [inf; LANES];
    let mut hi = [neg_inf; LANES];
    for c in chunks {
        for i in 0..LANES {
            lo[i] = if c[i] < lo[i] { c[i] } else { lo[i] };
            hi[i] = if c[i] > hi[i] { c[i] } else { hi[i] };
        }
    }
    let (mut l, mut h) = (inf, neg_inf);
    for &v in lo.iter().chain(tail) {
        if v < l {
            l = v;
        }
    }
    for &v in hi.iter().chain(tail) {
        if v > h {
            h = v;
        }
    }
    (l, h)
}
