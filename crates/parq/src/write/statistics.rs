//! Statistics of written pages and column chunks: min/max in the order the spec defines for
//! the column's logical type, null counts, truncation of long binary bounds. Size statistics
//! (unencoded byte array bytes, level histograms) are in `size_stats`.
//!
//! Ordering ([`StatsOrder`], from the resolved annotation and the read side's
//! [`sort_order`]):
//! - INT32/INT64 compare signed, unsigned when annotated `UINT_*` / `INTEGER(n, false)`;
//! - FLOAT/DOUBLE and FLOAT16 (FIXED_LEN_BYTE_ARRAY(2)) under `TYPE_ORDER` compare as floats:
//!   NaN never becomes min or max (only NaNs: no min/max), a zero min is written as -0.0 and a
//!   zero max as +0.0 (the spec's rules for `TYPE_ORDER` floats, parquet.thrift `ColumnOrder`);
//! - the same under `IEEE_754_TOTAL_ORDER` ([`StatsOrder::total_order`]) compare by IEEE 754
//!   totalOrder: min/max are the smallest and largest non-NaN values, -0.0 below +0.0 and
//!   written as found, or the smallest and largest NaN when every non-null value is NaN;
//! - every float column counts its NaNs: `nan_count` is written under either order, as the
//!   spec requires;
//! - DECIMAL on BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY compares as signed big-endian two's
//!   complement (values of different lengths are sign-extended);
//! - other BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY compare as unsigned bytes, lexicographically;
//! - BOOLEAN: false < true;
//! - INT96, INTERVAL and geospatial columns have no order: no min/max, only the null count.
//!
//! Output follows pyarrow 26 and arrow-rs 60, which agree: `min_value`/`max_value` with
//! `is_min_value_exact`/`is_max_value_exact`, `null_count`; the deprecated `min`/`max` (whose
//! old readers assume signed comparison) only for columns whose order is signed (BOOLEAN,
//! signed integers, floats, FLOAT16, decimals), never for unsigned integers or byte strings;
//! `distinct_count` never. Every column gets the `TYPE_ORDER` column order (readers derive "no
//! order" for INT96 and INTERVAL themselves), except float columns written with
//! `float_total_order`, which get `IEEE_754_TOTAL_ORDER` (as arrow-rs 60 writes by default;
//! pyarrow 26 ignores their min/max). parq writes no INT96 columns, so never
//! `INT96_TIMESTAMP_ORDER`.
//!
//! Truncation (BYTE_ARRAY columns other than decimals; FIXED_LEN_BYTE_ARRAY and decimal values
//! must keep their width and value): a min longer than the limit is cut (a prefix is never
//! greater); a max is cut and its last byte that can be incremented is incremented, dropping
//! the 0xFF bytes after it (so the result is greater than every value with that prefix), or
//! kept whole when every byte of the prefix is 0xFF. STRING and JSON values are cut at UTF-8
//! character boundaries and incremented by character, so bounds stay valid UTF-8, as the spec
//! requires bounds to be valid values of the logical type. A truncated bound is flagged
//! inexact.

use std::cmp::Ordering;

use crate::encoding::OffsetSize;
use crate::format::metadata::{Arena, ColumnOrder, PhysicalType, SchemaElement, Statistics};
use crate::schema::annotation::{self, sort_order, Annotation, SortOrder};
use crate::Result;

mod float;
use float::{half_is_nan, half_key, half_total_key};

/// How the min/max of a column are computed and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatsOrder {
    /// No order (INT96, INTERVAL, geospatial): no min/max.
    Undefined,
    /// BOOLEAN.
    Boolean,
    /// INT32, signed.
    Int32,
    /// INT32 annotated unsigned.
    UInt32,
    /// INT64, signed.
    Int64,
    /// INT64 annotated unsigned.
    UInt64,
    /// FLOAT.
    Float,
    /// DOUBLE.
    Double,
    /// FIXED_LEN_BYTE_ARRAY(2) annotated FLOAT16 (little-endian half floats).
    Float16,
    /// FLOAT under `IEEE_754_TOTAL_ORDER`.
    FloatTotal,
    /// DOUBLE under `IEEE_754_TOTAL_ORDER`.
    DoubleTotal,
    /// FLOAT16 under `IEEE_754_TOTAL_ORDER`.
    Float16Total,
    /// BYTE_ARRAY, unsigned lexicographic; truncated byte-wise.
    Bytes,
    /// BYTE_ARRAY STRING or JSON, unsigned lexicographic; truncated at character boundaries.
    Utf8,
    /// FIXED_LEN_BYTE_ARRAY, unsigned lexicographic; never truncated.
    FixedBytes,
    /// DECIMAL on BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY: signed big-endian two's complement;
    /// never truncated.
    SignedBytes,
}

impl StatsOrder {
    /// The order of a column of `physical` type annotated `annotation` (`type_length` is
    /// the FIXED_LEN_BYTE_ARRAY width).
    pub fn new(physical: PhysicalType, annotation: Annotation, type_length: Option<i32>) -> Self {
        use PhysicalType as P;
        if sort_order(physical, annotation) == SortOrder::Unknown {
            return StatsOrder::Undefined;
        }
        let unsigned = matches!(annotation, Annotation::Integer { signed: false, .. });
        match physical {
            P::Boolean => StatsOrder::Boolean,
            P::Int32 if unsigned => StatsOrder::UInt32,
            P::Int32 => StatsOrder::Int32,
            P::Int64 if unsigned => StatsOrder::UInt64,
            P::Int64 => StatsOrder::Int64,
            P::Float => StatsOrder::Float,
            P::Double => StatsOrder::Double,
            P::ByteArray | P::FixedLenByteArray => match annotation {
                Annotation::Decimal { .. } => StatsOrder::SignedBytes,
                Annotation::Float16 if physical == P::FixedLenByteArray => {
                    if type_length == Some(2) {
                        StatsOrder::Float16
                    } else {
                        StatsOrder::Undefined
                    }
                }
                _ if physical == P::FixedLenByteArray => StatsOrder::FixedBytes,
                Annotation::String | Annotation::Json => StatsOrder::Utf8,
                _ => StatsOrder::Bytes,
            },
            P::Int96 | P::Unknown(_) => StatsOrder::Undefined,
        }
    }

    /// The order of leaf schema element `e` (its annotation resolved as the read side
    /// resolves it).
    pub fn for_element(e: &SchemaElement) -> Result<StatsOrder> {
        let a = annotation::resolve(e)?;
        let physical = e.physical_type.unwrap_or(PhysicalType::Unknown(-1));
        Ok(StatsOrder::new(physical, a, e.type_length))
    }

    /// This order under `IEEE_754_TOTAL_ORDER` when it is a float order, else itself.
    pub fn total_order(self) -> StatsOrder {
        match self {
            StatsOrder::Float => StatsOrder::FloatTotal,
            StatsOrder::Double => StatsOrder::DoubleTotal,
            StatsOrder::Float16 => StatsOrder::Float16Total,
            other => other,
        }
    }

    /// True for FLOAT, DOUBLE and FLOAT16 under either order (the columns with `nan_count`).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            StatsOrder::Float
                | StatsOrder::Double
                | StatsOrder::Float16
                | StatsOrder::FloatTotal
                | StatsOrder::DoubleTotal
                | StatsOrder::Float16Total
        )
    }

    /// True if the plain-encoded `v` is a NaN of a float order.
    pub fn is_nan(self, v: &[u8]) -> bool {
        if !self.is_float() {
            return false;
        }
        match v.len() {
            2 => half_is_nan(u16::from_le_bytes([v[0], v[1]])),
            4 => v.try_into().is_ok_and(|b| f32::from_le_bytes(b).is_nan()),
            8 => v.try_into().is_ok_and(|b| f64::from_le_bytes(b).is_nan()),
            _ => false,
        }
    }

    /// True under `IEEE_754_TOTAL_ORDER`.
    pub fn is_total(self) -> bool {
        matches!(
            self,
            StatsOrder::FloatTotal | StatsOrder::DoubleTotal | StatsOrder::Float16Total
        )
    }

    /// The `column_orders` entry to write: `IEEE_754_TOTAL_ORDER` for the total orders,
    /// `TYPE_ORDER` for every other column.
    pub fn column_order(self) -> ColumnOrder {
        if self.is_total() {
            ColumnOrder::Ieee754TotalOrder
        } else {
            ColumnOrder::TypeDefined
        }
    }

    /// True if the deprecated `min`/`max` are written too (signed orders).
    pub fn writes_legacy_min_max(self) -> bool {
        matches!(
            self,
            StatsOrder::Boolean
                | StatsOrder::Int32
                | StatsOrder::Int64
                | StatsOrder::Float
                | StatsOrder::Double
                | StatsOrder::Float16
                | StatsOrder::SignedBytes
        )
    }

    /// True if long bounds are truncated (BYTE_ARRAY other than decimals).
    pub fn truncates(self) -> bool {
        matches!(self, StatsOrder::Bytes | StatsOrder::Utf8)
    }

    /// Compares two plain-encoded values (as written in statistics and column indexes;
    /// byte arrays without length prefix). `None` if they are not comparable (wrong width,
    /// NaN, undefined order).
    pub fn compare(self, a: &[u8], b: &[u8]) -> Option<Ordering> {
        fn le<const N: usize>(a: &[u8], b: &[u8]) -> Option<([u8; N], [u8; N])> {
            Some((a.try_into().ok()?, b.try_into().ok()?))
        }
        match self {
            StatsOrder::Undefined => None,
            StatsOrder::Boolean => match (a, b) {
                ([x], [y]) => Some(x.cmp(y)),
                _ => None,
            },
            StatsOrder::Int32 => {
                le::<4>(a, b).map(|(x, y)| i32::from_le_bytes(x).cmp(&i32::from_le_bytes(y)))
            }
            StatsOrder::UInt32 => {
                le::<4>(a, b).map(|(x, y)| u32::from_le_bytes(x).cmp(&u32::from_le_bytes(y)))
            }
            StatsOrder::Int64 => {
                le::<8>(a, b).map(|(x, y)| i64::from_le_bytes(x).cmp(&i64::from_le_bytes(y)))
            }
            StatsOrder::UInt64 => {
                le::<8>(a, b).map(|(x, y)| u64::from_le_bytes(x).cmp(&u64::from_le_bytes(y)))
            }
            StatsOrder::Float => le::<4>(a, b)
                .and_then(|(x, y)| f32::from_le_bytes(x).partial_cmp(&f32::from_le_bytes(y))),
            StatsOrder::Double => le::<8>(a, b)
                .and_then(|(x, y)| f64::from_le_bytes(x).partial_cmp(&f64::from_le_bytes(y))),
            StatsOrder::FloatTotal => {
                le::<4>(a, b).map(|(x, y)| f32::from_le_bytes(x).total_cmp(&f32::from_le_bytes(y)))
            }
            StatsOrder::DoubleTotal => {
                le::<8>(a, b).map(|(x, y)| f64::from_le_bytes(x).total_cmp(&f64::from_le_bytes(y)))
            }
            StatsOrder::Float16Total => le::<2>(a, b).map(|(x, y)| {
                half_total_key(u16::from_le_bytes(x)).cmp(&half_total_key(u16::from_le_bytes(y)))
            }),
            StatsOrder::Float16 => le::<2>(a, b).and_then(|(x, y)| {
                let (x, y) = (
                    half_key(u16::from_le_bytes(x))?,
                    half_key(u16::from_le_bytes(y))?,
                );
                Some(x.cmp(&y))
            }),
            StatsOrder::Bytes | StatsOrder::Utf8 | StatsOrder::FixedBytes => Some(a.cmp(b)),
            StatsOrder::SignedBytes => Some(cmp_signed_be(a, b)),
        }
    }
}

/// The first 8 bytes of `v` as a big-endian integer, zero-padded. Keys order like the byte
/// strings whenever they differ: at the first differing position of the padded prefixes
/// either both strings have real bytes, or the smaller key's string has ended (a zero pad
/// byte below a real byte) and is a prefix of the other. Equal keys decide nothing.
#[inline(always)]
fn prefix_key(v: &[u8]) -> u64 {
    match v.first_chunk::<8>() {
        Some(w) => u64::from_be_bytes(*w),
        None => {
            let mut w = [0u8; 8];
            // `v` is shorter than 8 bytes here.
            w[..v.len()].copy_from_slice(v);
            u64::from_be_bytes(w)
        }
    }
}

/// The min, max and count of `first` and the `(value, prefix_key(value))` pairs of `rest` in
/// unsigned lexicographic order, decided by the 8-byte prefix keys whenever they differ (see
/// [`prefix_key`]); full comparisons only on equal keys.
#[inline(always)]
fn lex_min_max<'a>(
    first: &'a [u8],
    rest: impl Iterator<Item = (&'a [u8], u64)>,
) -> (&'a [u8], &'a [u8], u64) {
    let (mut lo, mut hi, mut n) = (first, first, 1u64);
    let (mut lo_key, mut hi_key) = (prefix_key(lo), prefix_key(hi));
    for (v, k) in rest {
        n += 1;
        if k < lo_key || (k == lo_key && v < lo) {
            lo = v;
            lo_key = k;
        } else if k > hi_key || (k == hi_key && v > hi) {
            hi = v;
            hi_key = k;
        }
    }
    (lo, hi, n)
}

/// [`prefix_key`] of `v`, a value shorter than 8 bytes at `data[start..]`: one 8-byte load
/// from `data` with the bytes past the value masked off where `data` has 8 bytes there.
#[inline(always)]
fn short_prefix_key(data: &[u8], start: usize, v: &[u8]) -> u64 {
    match data.get(start..).and_then(|d| d.first_chunk::<8>()) {
        Some(w) => {
            let pad = 8 * (8 - v.len().min(8)) as u32;
            u64::from_be_bytes(*w) & u64::MAX.checked_shl(pad).unwrap_or(0)
        }
        None => prefix_key(v),
    }
}

/// The value `data[w[0]..w[1]]` of an offsets window (empty when out of range).
#[inline(always)]
fn byte_array_value<'d, O: OffsetSize>(w: &[O], data: &'d [u8]) -> &'d [u8] {
    match (
        w.first().and_then(|o| o.to_usize()),
        w.get(1).and_then(|o| o.to_usize()),
    ) {
        (Some(s), Some(e)) => data.get(s..e).unwrap_or_default(),
        _ => &[],
    }
}

/// Compares big-endian two's complement integers of any lengths (an empty value is zero).
pub fn cmp_signed_be(a: &[u8], b: &[u8]) -> Ordering {
    let neg = |v: &[u8]| v.first().is_some_and(|x| x & 0x80 != 0);
    let (na, nb) = (neg(a), neg(b));
    if na != nb {
        return if na {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let pad = if na { 0xff } else { 0 };
    let n = a.len().max(b.len());
    let at = |v: &[u8], i: usize| {
        let lead = n - v.len();
        if i < lead {
            pad
        } else {
            v[i - lead]
        }
    };
    (0..n)
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// Truncates a min bound to at most `max_len` bytes: the value itself and `true` (exact)
/// when it fits, else a prefix and `false`. With `utf8`, the cut is moved back to a character
/// boundary.
pub fn truncate_min(value: &[u8], max_len: usize, utf8: bool) -> (Vec<u8>, bool) {
    if value.len() <= max_len {
        return (value.to_vec(), true);
    }
    let cut = if utf8 {
        char_boundary(value, max_len)
    } else {
        max_len
    };
    (value[..cut].to_vec(), false)
}

/// Truncates a max bound to at most `max_len` bytes: the value itself and `true` when it
/// fits; else a prefix whose last incrementable byte (character, with `utf8`) is
/// incremented and `false`; or the value itself and `true` when nothing in the prefix can be
/// incremented.
pub fn truncate_max(value: &[u8], max_len: usize, utf8: bool) -> (Vec<u8>, bool) {
    if value.len() <= max_len {
        return (value.to_vec(), true);
    }
    let bumped = if utf8 {
        let prefix = &value[..char_boundary(value, max_len)];
        match std::str::from_utf8(prefix) {
            Ok(s) => increment_utf8(s),
            Err(_) => increment_bytes(&value[..max_len]),
        }
    } else {
        increment_bytes(&value[..max_len])
    };
    match bumped {
        Some(v) => (v, false),
        None => (value.to_vec(), true),
    }
}

/// The largest UTF-8 character boundary of `v` at or before `at` (`at < v.len()`).
fn char_boundary(v: &[u8], mut at: usize) -> usize {
    while at > 0 && (v[at] & 0xc0) == 0x80 {
        at -= 1;
    }
    at
}

/// `prefix` with its last byte below 0xFF incremented and the bytes after it dropped.
fn increment_bytes(prefix: &[u8]) -> Option<Vec<u8>> {
    let i = prefix.iter().rposition(|&b| b != 0xff)?;
    let mut out = prefix[..=i].to_vec();
    out[i] += 1;
    Some(out)
}

/// `s` with its last character that has a successor of the same UTF-8 length replaced by
/// that successor, and the characters after it dropped.
fn increment_utf8(s: &str) -> Option<Vec<u8>> {
    for (i, c) in s.char_indices().rev() {
        let next = match c as u32 + 1 {
            0xd800 => 0xe000,
            n => n,
        };
        if let Some(n) = char::from_u32(next).filter(|n| n.len_utf8() == c.len_utf8()) {
            let mut out = s.as_bytes()[..i].to_vec();
            let mut buf = [0u8; 4];
            out.extend_from_slice(n.encode_utf8(&mut buf).as_bytes());
            return Some(out);
        }
    }
    None
}

/// Plain-encoded bounds, possibly truncated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// The min bound.
    pub min: Vec<u8>,
    /// The max bound.
    pub max: Vec<u8>,
    /// False if `min` was truncated.
    pub min_exact: bool,
    /// False if `max` was truncated.
    pub max_exact: bool,
}

/// The running min and max, by kind of value.
#[derive(Debug, Clone, PartialEq)]
enum MinMax {
    None,
    Bool(bool, bool),
    /// INT32 values; compared unsigned for [`StatsOrder::UInt32`].
    I32(i32, i32),
    /// INT64 values; compared unsigned for [`StatsOrder::UInt64`].
    I64(i64, i64),
    F32(f32, f32),
    F64(f64, f64),
    /// Half float bits.
    F16(u16, u16),
    Bytes(Vec<u8>, Vec<u8>),
}

/// Accumulates the statistics of one page or column chunk: update with batches of non-null
/// values of the column's physical type and with null counts; [`merge`](Self::merge) page
/// statistics into chunk statistics. An update of the wrong physical type (a writer bug)
/// drops min/max instead of producing wrong ones.
#[derive(Debug, Clone, PartialEq)]
pub struct StatsAccumulator {
    order: StatsOrder,
    min_max: MinMax,
    null_count: u64,
    value_count: u64,
    /// NaNs among the values (float orders).
    nan_count: u64,
    /// Under `IEEE_754_TOTAL_ORDER`: the bits of the smallest and largest NaN by totalOrder.
    nan_bounds: Option<(u64, u64)>,
    poisoned: bool,
}

impl StatsAccumulator {
    /// An empty accumulator for a column of `order`.
    pub fn new(order: StatsOrder) -> Self {
        StatsAccumulator {
            order,
            min_max: MinMax::None,
            null_count: 0,
            value_count: 0,
            nan_count: 0,
            nan_bounds: None,
            poisoned: false,
        }
    }

    /// Empties the accumulator.
    pub fn clear(&mut self) {
        self.min_max = MinMax::None;
        self.null_count = 0;
        self.value_count = 0;
        self.nan_count = 0;
        self.nan_bounds = None;
        self.poisoned = false;
    }

    /// The order.
    pub fn order(&self) -> StatsOrder {
        self.order
    }

    /// Nulls counted.
    pub fn null_count(&self) -> u64 {
        self.null_count
    }

    /// Non-null values counted (NaNs included).
    pub fn value_count(&self) -> u64 {
        self.value_count
    }

    /// NaNs counted (float orders).
    pub fn nan_count(&self) -> u64 {
        self.nan_count
    }

    /// True if min/max are known.
    pub fn has_min_max(&self) -> bool {
        !self.poisoned
            && (self.min_max != MinMax::None
                || (self.order.is_total() && self.nan_bounds.is_some()))
    }

    /// Counts `n` nulls.
    pub fn add_nulls(&mut self, n: u64) {
        self.null_count += n;
    }

    fn mismatch(&mut self) {
        if self.order != StatsOrder::Undefined {
            self.poisoned = true;
        }
    }

    /// Adds BOOLEAN values.
    pub fn update_bool(&mut self, values: &[bool]) {
        self.value_count += values.len() as u64;
        if values.is_empty() {
            return;
        }
        if self.order != StatsOrder::Boolean {
            return self.mismatch();
        }
        let any_false = values.iter().any(|v| !v);
        let any_true = values.iter().any(|v| *v);
        let (lo, hi) = (!any_false, any_true);
        self.min_max = match self.min_max {
            MinMax::Bool(a, b) => MinMax::Bool(a && lo, b || hi),
            _ => MinMax::Bool(lo, hi),
        };
    }

    /// Adds INT32 values (signed or unsigned per the order).
    pub fn update_i32(&mut self, values: &[i32]) {
        self.value_count += values.len() as u64;
        if values.is_empty() {
            return;
        }
        let bounds = match self.order {
            StatsOrder::Int32 => min_max_ord(values, |v| v),
            StatsOrder::UInt32 => {
                min_max_ord(values, |v| v as u32).map(|(lo, hi)| (lo as i32, hi as i32))
            }
            _ => return self.mismatch(),
        };
        if let Some((lo, hi)) = bounds {
            self.merge_i32(lo, hi);
        }
    }

    fn merge_i32(&mut self, lo: i32, hi: i32) {
        let (lo, hi) = match self.min_max {
            MinMax::I32(a, b) if self.order == StatsOrder::UInt32 => {
                widen((a, b), (lo, hi), |v| v as u32)
            }
            MinMax::I32(a, b) => widen((a, b), (lo, hi), |v| v),
            _ => (lo, hi),
        };
        self.min_max = MinMax::I32(lo, hi);
    }

    /// Adds INT64 values (signed or unsigned per the order).
    pub fn update_i64(&mut self, values: &[i64]) {
        self.value_count += values.len() as u64;
        if values.is_empty() {
            return;
        }
        let bounds = match self.order {
            StatsOrder::Int64 => min_max_ord(values, |v| v),
            StatsOrder::UInt64 => {
                min_max_ord(values, |v| v as u64).map(|(lo, hi)| (lo as i64, hi as i64))
            }
            _ => return self.mismatch(),
        };
        if let Some((lo, hi)) = bounds {
            self.merge_i64(lo, hi);
        }
    }

    fn merge_i64(&mut self, lo: i64, hi: i64) {
        let (lo, hi) = match self.min_max {
            MinMax::I64(a, b) if self.order == StatsOrder::UInt64 => {
                widen((a, b), (lo, hi), |v| v as u64)
            }
            MinMax::I64(a, b) => widen((a, b), (lo, hi), |v| v),
            _ => (lo, hi),
        };
        self.min_max = MinMax::I64(lo, hi);
    }

    /// Counts INT96 values (INT96 has no order: no min/max).
    pub fn update_int96(&mut self, count: usize) {
        self.value_count += count as u64;
        if count > 0 && self.order != StatsOrder::Undefined {
            self.mismatch();
        }
    }

    /// Adds `count` BYTE_ARRAY values whose distinct values are `distinct`.
    pub fn update_byte_array_distinct<'a>(
        &mut self,
        distinct: impl IntoIterator<Item = &'a [u8]>,
        count: u64,
    ) {
        let before = self.value_count;
        self.update_byte_array(distinct);
        self.value_count = before + count;
    }

    /// Adds BYTE_ARRAY values (without length prefixes).
    pub fn update_byte_array<'a>(&mut self, values: impl IntoIterator<Item = &'a [u8]>) {
        let cmp: fn(&[u8], &[u8]) -> Ordering = match self.order {
            StatsOrder::Bytes | StatsOrder::Utf8 | StatsOrder::FixedBytes => |a, b| a.cmp(b),
            StatsOrder::SignedBytes => cmp_signed_be,
            StatsOrder::Undefined => {
                self.value_count += values.into_iter().count() as u64;
                return;
            }
            _ => {
                let n = values.into_iter().count() as u64;
                self.value_count += n;
                if n > 0 {
                    self.mismatch();
                }
                return;
            }
        };
        let mut values = values.into_iter();
        let Some(first) = values.next() else {
            return;
        };
        let (lo, hi, n) = if self.order == StatsOrder::SignedBytes {
            let (mut lo, mut hi, mut n) = (first, first, 1u64);
            for v in values {
                n += 1;
                if cmp(v, lo).is_lt() {
                    lo = v;
                } else if cmp(v, hi).is_gt() {
                    hi = v;
                }
            }
            (lo, hi, n)
        } else {
            lex_min_max(first, values.map(|v| (v, prefix_key(v))))
        };
        self.value_count += n;
        self.merge_bytes(lo, hi, cmp);
    }

    /// Adds the BYTE_ARRAY values `data[offsets[i]..offsets[i + 1]]` (Arrow offsets; an
    /// offset outside `data` or below the previous one stands for an empty value: the
    /// encoders reject such offsets).
    pub fn update_byte_array_offsets<O: OffsetSize>(&mut self, offsets: &[O], data: &[u8]) {
        if !matches!(
            self.order,
            StatsOrder::Bytes | StatsOrder::Utf8 | StatsOrder::FixedBytes
        ) {
            let value = |w: &[O]| byte_array_value(w, data);
            return self.update_byte_array(offsets.windows(2).map(value));
        }
        let Some(first) = offsets.windows(2).next() else {
            return;
        };
        let mut start = first[1].to_usize().unwrap_or(0);
        let rest = offsets.iter().skip(2).map(|o| {
            let end = o.to_usize().unwrap_or(0);
            let v = data.get(start..end).unwrap_or_default();
            let k = match v.first_chunk::<8>() {
                Some(w) => u64::from_be_bytes(*w),
                None => short_prefix_key(data, start, v),
            };
            start = end;
            (v, k)
        });
        let (lo, hi, n) = lex_min_max(byte_array_value(first, data), rest);
        self.value_count += n;
        self.merge_bytes(lo, hi, |a, b| a.cmp(b));
    }

    fn merge_bytes(&mut self, lo: &[u8], hi: &[u8], cmp: fn(&[u8], &[u8]) -> Ordering) {
        match &mut self.min_max {
            MinMax::Bytes(a, b) => {
                if cmp(lo, a).is_lt() {
                    a.clear();
                    a.extend_from_slice(lo);
                }
                if cmp(hi, b).is_gt() {
                    b.clear();
                    b.extend_from_slice(hi);
                }
            }
            _ => self.min_max = MinMax::Bytes(lo.to_vec(), hi.to_vec()),
        }
    }

    /// Adds FIXED_LEN_BYTE_ARRAY values of `width` bytes each, back to back in `data` (a
    /// trailing partial value is ignored).
    pub fn update_fixed(&mut self, data: &[u8], width: usize) {
        if width == 0 {
            return self.mismatch();
        }
        if matches!(self.order, StatsOrder::Float16 | StatsOrder::Float16Total) {
            let n = data.len() / width;
            self.value_count += n as u64;
            if width != 2 {
                return self.mismatch();
            }
            let halves = data
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]));
            self.add_nans(halves.clone().filter(|b| half_is_nan(*b)).map(u64::from), 2);
            let total = self.order.is_total();
            let mut keys = halves.filter(|b| !half_is_nan(*b)).map(|b| {
                let k = if total {
                    i32::from(half_total_key(b))
                } else {
                    half_key(b).unwrap_or(0)
                };
                (k, b)
            });
            let Some(first) = keys.next() else { return };
            let (lo, hi) = keys.fold((first, first), |(lo, hi), x| {
                (
                    if x.0 < lo.0 { x } else { lo },
                    if x.0 > hi.0 { x } else { hi },
                )
            });
            return self.merge_f16(lo.1, hi.1);
        }
        self.update_byte_array(data.chunks_exact(width));
    }

    /// Merges half float bounds (bits of non-NaN values).
    fn merge_f16(&mut self, lo: u16, hi: u16) {
        let total = self.order.is_total();
        let key = |v: u16| {
            if total {
                i32::from(half_total_key(v))
            } else {
                half_key(v).unwrap_or(0)
            }
        };
        self.min_max = match self.min_max {
            MinMax::F16(a, b) => MinMax::F16(
                if key(lo) < key(a) { lo } else { a },
                if key(hi) > key(b) { hi } else { b },
            ),
            _ => MinMax::F16(lo, hi),
        };
    }

    /// Merges another accumulator of the same order (page statistics into chunk
    /// statistics).
    pub fn merge(&mut self, other: &StatsAccumulator) {
        self.null_count += other.null_count;
        self.value_count += other.value_count;
        self.nan_count += other.nan_count;
        if let (Some((lo, hi)), true) = (other.nan_bounds, other.order == self.order) {
            let width = match self.order {
                StatsOrder::Float16Total => 2,
                StatsOrder::FloatTotal => 4,
                _ => 8,
            };
            self.merge_nan_bounds(lo, hi, width);
        }
        if other.order != self.order || other.poisoned {
            if other.value_count > 0 {
                self.mismatch();
            }
            return;
        }

        match &other.min_max {
            MinMax::None => {}
            MinMax::Bool(lo, hi) => {
                let (lo, hi) = (*lo, *hi);
                self.min_max = match self.min_max {
                    MinMax::Bool(a, b) => MinMax::Bool(a && lo, b || hi),
                    _ => MinMax::Bool(lo, hi),
                };
            }
            MinMax::I32(lo, hi) => self.merge_i32(*lo, *hi),
            MinMax::I64(lo, hi) => self.merge_i64(*lo, *hi),
            MinMax::F32(lo, hi) => self.merge_f32(*lo, *hi),
            MinMax::F64(lo, hi) => self.merge_f64(*lo, *hi),
            MinMax::F16(lo, hi) => self.merge_f16(*lo, *hi),
            MinMax::Bytes(lo, hi) => {
                let cmp: fn(&[u8], &[u8]) -> Ordering = if self.order == StatsOrder::SignedBytes {
                    cmp_signed_be
                } else {
                    |a, b| a.cmp(b)
                };
                self.merge_bytes(lo, hi, cmp);
            }
        }
    }

    /// The untruncated plain-encoded min and max (under `TYPE_ORDER` a zero float min as
    /// -0.0, a zero max as +0.0; under `IEEE_754_TOTAL_ORDER` as found, or the NaN bounds
    /// when every value is NaN), when known.
    pub fn min_max_plain(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        if !self.has_min_max() {
            return None;
        }
        if self.order.is_total() {
            return Some(match (&self.min_max, self.nan_bounds) {
                (MinMax::F32(lo, hi), _) => (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()),
                (MinMax::F64(lo, hi), _) => (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()),
                (MinMax::F16(lo, hi), _) => (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()),
                (MinMax::None, Some((lo, hi))) => {
                    let width = match self.order {
                        StatsOrder::Float16Total => 2,
                        StatsOrder::FloatTotal => 4,
                        _ => 8,
                    };
                    (
                        lo.to_le_bytes()[..width].to_vec(),
                        hi.to_le_bytes()[..width].to_vec(),
                    )
                }
                _ => return None,
            });
        }
        Some(match &self.min_max {
            MinMax::None => return None,
            MinMax::Bool(lo, hi) => (vec![*lo as u8], vec![*hi as u8]),
            MinMax::I32(lo, hi) => (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()),
            MinMax::I64(lo, hi) => (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()),
            MinMax::F32(lo, hi) => {
                let lo = if *lo == 0.0 { -0.0f32 } else { *lo };
                let hi = if *hi == 0.0 { 0.0f32 } else { *hi };
                (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
            }
            MinMax::F64(lo, hi) => {
                let lo = if *lo == 0.0 { -0.0f64 } else { *lo };
                let hi = if *hi == 0.0 { 0.0f64 } else { *hi };
                (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
            }
            MinMax::F16(lo, hi) => {
                let lo = if lo & 0x7fff == 0 { 0x8000 } else { *lo };
                let hi = if hi & 0x7fff == 0 { 0 } else { *hi };
                (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
            }
            MinMax::Bytes(lo, hi) => (lo.clone(), hi.clone()),
        })
    }

    /// The plain-encoded bounds to write, truncated to `max_len` bytes where the order
    /// allows it; `None` without min/max.
    pub fn bounds(&self, max_len: Option<usize>) -> Option<Bounds> {
        let (min, max) = self.min_max_plain()?;
        match max_len {
            Some(len) if self.order.truncates() => {
                let utf8 = self.order == StatsOrder::Utf8;
                let (min, min_exact) = truncate_min(&min, len, utf8);
                let (max, max_exact) = truncate_max(&max, len, utf8);
                Some(Bounds {
                    min,
                    max,
                    min_exact,
                    max_exact,
                })
            }
            _ => Some(Bounds {
                min,
                max,
                min_exact: true,
                max_exact: true,
            }),
        }
    }

    /// parq-format's `Statistics` of the values seen: `null_count`, and when min/max are
    /// known `min_value`/`max_value` (truncated to `max_len`), the exactness flags and, for
    /// signed orders, the deprecated `min`/`max` (the same ranges). Bytes go to `arena`.
    pub fn to_statistics(&self, arena: &mut Arena, max_len: Option<usize>) -> Statistics {
        let mut s = Statistics {
            null_count: Some(i64::try_from(self.null_count).unwrap_or(i64::MAX)),
            nan_count: self
                .order
                .is_float()
                .then(|| i64::try_from(self.nan_count).unwrap_or(i64::MAX)),
            ..Statistics::default()
        };
        if let Some(b) = self.bounds(max_len) {
            let min = arena.push(&b.min);
            let max = arena.push(&b.max);
            s.min_value = Some(min);
            s.max_value = Some(max);
            s.is_min_value_exact = Some(b.min_exact);
            s.is_max_value_exact = Some(b.max_exact);
            if self.order.writes_legacy_min_max() {
                s.min = Some(min);
                s.max = Some(max);
            }
        }
        s
    }
}

/// The bounds covering both `a` and `b`, ordered by `key`.
#[inline]
fn widen<T: Copy, K: Ord>(a: (T, T), b: (T, T), key: impl Fn(T) -> K) -> (T, T) {
    (
        if key(b.0) < key(a.0) { b.0 } else { a.0 },
        if key(a.1) < key(b.1) { b.1 } else { a.1 },
    )
}

/// Lanes of the min/max kernels: independent accumulators the compiler keeps in vector
/// registers (and that break the loop-carried dependency of a single accumulator).
pub(super) const LANES: usize = 8;

/// The min and max of `values` by `key` (the values themselves, or reinterpreted as
/// unsigned), in lanes; `None` when `values` is empty. With AVX2 the lanes are compiled to
/// its 64-bit and 32-bit vector compares (x86-64's baseline, SSE2, has neither).
#[inline]
fn min_max_ord<T: Copy, K: Ord + Copy>(values: &[T], key: impl Fn(T) -> K) -> Option<(K, K)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, just checked.
        return unsafe { min_max_avx2(values, key) };
    }
    min_max_lanes(values, key)
}

/// [`min_max_lanes`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn min_max_avx2<T: Copy, K: Ord + Copy>(
    values: &[T],
    key: impl Fn(T) -> K,
) -> Option<(K, K)> {
    min_max_lanes(values, key)
}

/// The body of [`min_max_ord`].
#[inline(always)]
fn min_max_lanes<T: Copy, K: Ord + Copy>(values: &[T], key: impl Fn(T) -> K) -> Option<(K, K)> {
    let first = key(*values.first()?);
    let (chunks, tail) = values.as_chunks::<LANES>();
    let mut lo = [first; LANES];
    let mut hi = [first; LANES];
    for c in chunks {
        for i in 0..LANES {
            lo[i] = lo[i].min(key(c[i]));
            hi[i] = hi[i].max(key(c[i]));
        }
    }
    let tail = tail.iter().map(|&v| key(v));
    let lo = lo.into_iter().chain(tail.clone()).min().unwrap_or(first);
    let hi = hi.into_iter().chain(tail).max().unwrap_or(first);
    Some((lo, hi))
}
