//! Physical values -> Arrow arrays of the leaf's Arrow type.
//!
//! Buffers are handed over without a copy where the layout matches (INT32 -> Int32, Date32,
//! Time32, UInt32 as a reinterpretation; INT64 -> Int64, UInt64, Timestamp, Time64,
//! Duration, Date64; FLOAT, DOUBLE; BYTE_ARRAY -> Binary, Utf8 after UTF-8 validation (SIMD, once over the value bytes);
//! FIXED_LEN_BYTE_ARRAY -> FixedSizeBinary); the other conversions make one pass:
//!
//! - INT32 -> Int8/Int16/UInt8/UInt16: truncation, as Arrow C++ casts the annotated values;
//! - INT96 -> Timestamp(unit): `(julian day - 2440588) * units per day + nanoseconds of the
//!   day / nanoseconds per unit`, with wrapping 64-bit arithmetic and unsigned nanoseconds as
//!   Arrow C++ does, and Julian day 0 read as the epoch (0), as Arrow C++ reads it;
//! - FIXED_LEN_BYTE_ARRAY(2) -> Float16: little-endian IEEE half floats;
//! - INTERVAL (FIXED_LEN_BYTE_ARRAY(12)) -> Interval(YearMonth) (the months) or
//!   Interval(DayTime) (the days and milliseconds), each little-endian 32 bits read as signed
//!   (as arrow-rs reads them back; only with `ARROW:schema` asking for it);
//! - DECIMAL: INT32/INT64 sign-extended; FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY as big-endian
//!   two's complement (an empty value is 0; a value wider than the Arrow type is an error
//!   unless its extra leading bytes are sign extension);
//! - BYTE_ARRAY -> LargeUtf8/LargeBinary (64-bit offsets, decoded so from the start),
//!   Utf8View/BinaryView (views into the one decoded value buffer), Dictionary of
//!   Utf8View/BinaryView (dictionary-encoded again by hashing: see [`dictionary`]; other
//!   dictionaries keep the Parquet one, in `crate::read::decode::dict`).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::types::*;
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BinaryViewArray, BooleanArray, DictionaryArray,
    FixedSizeBinaryArray, GenericStringArray, LargeBinaryArray, OffsetSizeTrait, PrimitiveArray,
    StringViewArray,
};
use arrow_buffer::{i256, BooleanBuffer, Buffer, IntervalDayTime, NullBuffer, OffsetBuffer};
use arrow_buffer::{ArrowNativeType, ScalarBuffer};
use arrow_schema::{DataType, IntervalUnit, TimeUnit};

use crate::encoding::plain::Int96;
use crate::encoding::OffsetSize;
use crate::read::error::ConvertError;
use crate::read::io::pool::{self, Recycled};

type Res = std::result::Result<ArrayRef, ConvertError>;

/// The null buffer of `len` slots from LSB-first validity bits.
pub(crate) fn null_buffer(validity: Vec<u8>, len: usize) -> NullBuffer {
    let mut validity = validity;
    let need = len.div_ceil(8);
    if validity.len() < need {
        validity.resize(need, 0);
    }
    NullBuffer::new(BooleanBuffer::new(pool::buffer(validity), 0, len))
}

pub(crate) fn boolean(bits: Vec<u8>, len: usize, nulls: Option<NullBuffer>) -> ArrayRef {
    let mut bits = bits;
    let need = len.div_ceil(8);
    if bits.len() < need {
        bits.resize(need, 0);
    }
    let values = BooleanBuffer::new(Buffer::from_vec(bits), 0, len);
    Arc::new(BooleanArray::new(values, nulls))
}

fn prim<T: ArrowPrimitiveType>(
    values: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    t: &DataType,
) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(values), nulls).with_data_type(t.clone()))
}

/// `values` in a buffer recycled once the arrays holding it are dropped.
fn recycled<T: Recycled + ArrowNativeType>(values: Vec<T>) -> ScalarBuffer<T> {
    let len = values.len();
    ScalarBuffer::new(pool::buffer(values), 0, len)
}

/// `offsets` as Arrow offsets in a buffer recycled once the array is dropped, checked to
/// start at 0 or more and never decrease (the decoders build them so). The check runs over
/// every pair without stopping early, so it vectorizes, where `OffsetBuffer::new`'s stops at
/// each pair (and panics on a bad one, where this is an error).
fn offset_buffer<O>(offsets: Vec<O>) -> Result<OffsetBuffer<O>, ConvertError>
where
    O: Recycled + ArrowNativeType + arrow_array::OffsetSizeTrait,
{
    let ordered = offsets
        .iter()
        .zip(offsets.iter().skip(1))
        .fold(true, |ok, (a, b)| ok & (a <= b));
    if !ordered || offsets.first().is_none_or(|&first| first < O::usize_as(0)) {
        return Err(ConvertError::new(
            "byte-array offsets out of order".to_string(),
        ));
    }
    // SAFETY: `offsets` is not empty, its first offset is not negative and no offset is
    // smaller than the one before it (checked above): what `OffsetBuffer::new` asserts.
    Ok(unsafe { OffsetBuffer::new_unchecked(recycled(offsets)) })
}

/// The values decoded, as they are, in a buffer recycled once the array is dropped.
fn kept<T: ArrowPrimitiveType>(
    values: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    t: &DataType,
) -> ArrayRef
where
    T::Native: Recycled,
{
    Arc::new(PrimitiveArray::<T>::new(recycled(values), nulls).with_data_type(t.clone()))
}

/// Reinterprets the native buffer `buffer` of `len` values.
fn reinterpret<T: ArrowPrimitiveType>(
    buffer: Buffer,
    len: usize,
    nulls: Option<NullBuffer>,
    t: &DataType,
) -> ArrayRef {
    let values = ScalarBuffer::<T::Native>::new(buffer, 0, len);
    Arc::new(PrimitiveArray::<T>::new(values, nulls).with_data_type(t.clone()))
}

#[cold]
fn cannot(physical: &str, t: &DataType) -> ConvertError {
    ConvertError::new(format!("a {physical} column cannot be read as Arrow {t}"))
}

pub(crate) fn from_i32(values: Vec<i32>, nulls: Option<NullBuffer>, t: &DataType) -> Res {
    let len = values.len();
    Ok(match t {
        DataType::Int32 => kept::<Int32Type>(values, nulls, t),
        DataType::Date32 => kept::<Date32Type>(values, nulls, t),
        DataType::Time32(TimeUnit::Second) => kept::<Time32SecondType>(values, nulls, t),
        DataType::Time32(TimeUnit::Millisecond) => kept::<Time32MillisecondType>(values, nulls, t),
        DataType::UInt32 => reinterpret::<UInt32Type>(pool::buffer(values), len, nulls, t),
        DataType::Int8 => prim::<Int8Type>(values.iter().map(|&v| v as i8).collect(), nulls, t),
        DataType::Int16 => prim::<Int16Type>(values.iter().map(|&v| v as i16).collect(), nulls, t),
        DataType::UInt8 => prim::<UInt8Type>(values.iter().map(|&v| v as u8).collect(), nulls, t),
        DataType::UInt16 => {
            prim::<UInt16Type>(values.iter().map(|&v| v as u16).collect(), nulls, t)
        }
        DataType::Decimal32(..) => kept::<Decimal32Type>(values, nulls, t),
        DataType::Decimal64(..) => {
            prim::<Decimal64Type>(values.iter().map(|&v| i64::from(v)).collect(), nulls, t)
        }
        DataType::Decimal128(..) => {
            prim::<Decimal128Type>(values.iter().map(|&v| i128::from(v)).collect(), nulls, t)
        }
        DataType::Decimal256(..) => prim::<Decimal256Type>(
            values
                .iter()
                .map(|&v| i256::from_i128(i128::from(v)))
                .collect(),
            nulls,
            t,
        ),
        _ => return Err(cannot("INT32", t)),
    })
}

pub(crate) fn from_i64(values: Vec<i64>, nulls: Option<NullBuffer>, t: &DataType) -> Res {
    let len = values.len();
    Ok(match t {
        DataType::Int64 => kept::<Int64Type>(values, nulls, t),
        DataType::UInt64 => reinterpret::<UInt64Type>(pool::buffer(values), len, nulls, t),
        DataType::Date64 => kept::<Date64Type>(values, nulls, t),
        DataType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => kept::<TimestampSecondType>(values, nulls, t),
            TimeUnit::Millisecond => kept::<TimestampMillisecondType>(values, nulls, t),
            TimeUnit::Microsecond => kept::<TimestampMicrosecondType>(values, nulls, t),
            TimeUnit::Nanosecond => kept::<TimestampNanosecondType>(values, nulls, t),
        },
        DataType::Time64(TimeUnit::Microsecond) => kept::<Time64MicrosecondType>(values, nulls, t),
        DataType::Time64(TimeUnit::Nanosecond) => kept::<Time64NanosecondType>(values, nulls, t),
        DataType::Duration(unit) => match unit {
            TimeUnit::Second => kept::<DurationSecondType>(values, nulls, t),
            TimeUnit::Millisecond => kept::<DurationMillisecondType>(values, nulls, t),
            TimeUnit::Microsecond => kept::<DurationMicrosecondType>(values, nulls, t),
            TimeUnit::Nanosecond => kept::<DurationNanosecondType>(values, nulls, t),
        },
        DataType::Decimal64(..) => kept::<Decimal64Type>(values, nulls, t),
        DataType::Decimal128(..) => {
            prim::<Decimal128Type>(values.iter().map(|&v| i128::from(v)).collect(), nulls, t)
        }
        DataType::Decimal256(..) => prim::<Decimal256Type>(
            values
                .iter()
                .map(|&v| i256::from_i128(i128::from(v)))
                .collect(),
            nulls,
            t,
        ),
        _ => return Err(cannot("INT64", t)),
    })
}

/// Julian day of the Unix epoch.
const JULIAN_EPOCH_DAY: i64 = 2_440_588;

pub(crate) fn from_int96(values: &[Int96], nulls: Option<NullBuffer>, t: &DataType) -> Res {
    let DataType::Timestamp(unit, _) = t else {
        return Err(cannot("INT96", t));
    };
    let (per_day, nanos_per_unit): (i64, u64) = match unit {
        TimeUnit::Second => (86_400, 1_000_000_000),
        TimeUnit::Millisecond => (86_400_000, 1_000_000),
        TimeUnit::Microsecond => (86_400_000_000, 1_000),
        TimeUnit::Nanosecond => (86_400_000_000_000, 1),
    };
    let converted: Vec<i64> = values
        .iter()
        .map(|v| {
            let mut nanos = [0u8; 8];
            nanos.copy_from_slice(&v[..8]);
            let mut day = [0u8; 4];
            day.copy_from_slice(&v[8..]);
            let day = u32::from_le_bytes(day);
            if day == 0 {
                // Julian day 0 (an all-zero value, written by some writers for "no time")
                // reads as the epoch, as Arrow C++ reads it.
                return 0;
            }
            let days = i64::from(day) - JULIAN_EPOCH_DAY;
            // The nanoseconds of the day are unsigned, as Arrow C++ divides them.
            let units = (u64::from_le_bytes(nanos) / nanos_per_unit) as i64;
            days.wrapping_mul(per_day).wrapping_add(units)
        })
        .collect();
    from_i64(converted, nulls, t)
}

pub(crate) fn from_f32(values: Vec<f32>, nulls: Option<NullBuffer>, t: &DataType) -> Res {
    match t {
        DataType::Float32 => Ok(kept::<Float32Type>(values, nulls, t)),
        _ => Err(cannot("FLOAT", t)),
    }
}

pub(crate) fn from_f64(values: Vec<f64>, nulls: Option<NullBuffer>, t: &DataType) -> Res {
    match t {
        DataType::Float64 => Ok(kept::<Float64Type>(values, nulls, t)),
        _ => Err(cannot("DOUBLE", t)),
    }
}

pub(crate) fn from_fixed(
    values: Vec<u8>,
    width: usize,
    len: usize,
    nulls: Option<NullBuffer>,
    t: &DataType,
) -> Res {
    match t {
        DataType::FixedSizeBinary(n) => {
            let a = FixedSizeBinaryArray::try_new(*n, Buffer::from_vec(values), nulls)
                .map_err(|e| ConvertError::new(e.to_string()))?;
            Ok(Arc::new(a))
        }
        DataType::Float16 if width == 2 => {
            let halves: Vec<u16> = values
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            Ok(reinterpret::<Float16Type>(
                Buffer::from_vec(halves),
                len,
                nulls,
                t,
            ))
        }
        DataType::Decimal32(..)
        | DataType::Decimal64(..)
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => decimal(values.chunks_exact(width), len, nulls, t),
        DataType::Interval(unit) if width == 12 => {
            // INTERVAL: little-endian (months, days, milliseconds), read as signed.
            let field = |c: &[u8], i: usize| {
                let b = [c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]];
                i32::from_le_bytes(b)
            };
            if values.len() != len * 12 {
                return Err(ConvertError::new(format!(
                    "{} INTERVAL bytes for {len} values",
                    values.len()
                )));
            }
            let chunks = values.chunks_exact(12);
            match unit {
                IntervalUnit::YearMonth => {
                    let v: Vec<i32> = chunks.map(|c| field(c, 0)).collect();
                    Ok(prim::<IntervalYearMonthType>(v, nulls, t))
                }
                IntervalUnit::DayTime => {
                    let v: Vec<IntervalDayTime> = chunks
                        .map(|c| IntervalDayTime::new(field(c, 1), field(c, 2)))
                        .collect();
                    Ok(prim::<IntervalDayTimeType>(v, nulls, t))
                }
                IntervalUnit::MonthDayNano => Err(cannot("FIXED_LEN_BYTE_ARRAY", t)),
            }
        }
        _ => Err(cannot("FIXED_LEN_BYTE_ARRAY", t)),
    }
}

/// Big-endian two's complement `b` as `N` bytes, sign-extended; `None` if it does not fit.
fn be_extend<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
    let sign = match b.first() {
        Some(&f) if f & 0x80 != 0 => 0xff,
        _ => 0,
    };
    let mut out = [sign; N];
    if b.len() > N {
        let (extra, rest) = b.split_at(b.len() - N);
        if extra.iter().any(|&x| x != sign) || (rest[0] & 0x80 != 0) != (sign == 0xff) {
            return None;
        }
        out.copy_from_slice(rest);
    } else {
        out[N - b.len()..].copy_from_slice(b);
    }
    Some(out)
}

fn decimal<'a>(
    items: impl Iterator<Item = &'a [u8]>,
    len: usize,
    nulls: Option<NullBuffer>,
    t: &DataType,
) -> Res {
    let too_wide = |slot: usize| ConvertError {
        message: format!("a decimal value is wider than Arrow {t}"),
        slot: Some(slot),
    };
    /// Sign-extends every big-endian value to `N` bytes and reads it with `from_be`.
    fn widen<'a, T: ArrowPrimitiveType, const N: usize>(
        items: impl Iterator<Item = &'a [u8]>,
        len: usize,
        from_be: fn([u8; N]) -> T::Native,
        too_wide: impl Fn(usize) -> ConvertError,
    ) -> Result<Vec<T::Native>, ConvertError> {
        let mut out = Vec::with_capacity(len);
        for (i, b) in items.enumerate() {
            out.push(from_be(be_extend::<N>(b).ok_or_else(|| too_wide(i))?));
        }
        Ok(out)
    }
    match t {
        DataType::Decimal256(..) => {
            let out = widen::<Decimal256Type, 32>(items, len, i256::from_be_bytes, too_wide)?;
            Ok(prim::<Decimal256Type>(out, nulls, t))
        }
        DataType::Decimal128(..) => {
            let out = widen::<Decimal128Type, 16>(items, len, i128::from_be_bytes, too_wide)?;
            Ok(prim::<Decimal128Type>(out, nulls, t))
        }
        DataType::Decimal64(..) => {
            let out = widen::<Decimal64Type, 8>(items, len, i64::from_be_bytes, too_wide)?;
            Ok(prim::<Decimal64Type>(out, nulls, t))
        }
        DataType::Decimal32(..) => {
            let out = widen::<Decimal32Type, 4>(items, len, i32::from_be_bytes, too_wide)?;
            Ok(prim::<Decimal32Type>(out, nulls, t))
        }
        _ => Err(cannot("decimal", t)),
    }
}

/// The first slot whose bytes are not UTF-8 (for the error message).
#[cold]
fn first_invalid_utf8<O: Copy + TryInto<usize>>(offsets: &[O], values: &[u8]) -> Option<usize> {
    offsets.windows(2).position(|w| {
        let (Ok(s), Ok(e)) = (w[0].try_into(), w[1].try_into()) else {
            return true;
        };
        values
            .get(s..e)
            .is_none_or(|b| std::str::from_utf8(b).is_err())
    })
}

#[cold]
fn utf8_error<O: Copy + TryInto<usize>>(offsets: &[O], values: &[u8], e: String) -> ConvertError {
    match first_invalid_utf8(offsets, values) {
        Some(slot) => invalid_utf8(slot),
        None => ConvertError::new(e),
    }
}

/// The error of string slot `slot`, whose bytes are not UTF-8.
#[cold]
pub(crate) fn invalid_utf8(slot: usize) -> ConvertError {
    ConvertError {
        message: "a string value is not valid UTF-8 (read string columns as binary instead \
                  with `InvalidUtf8::Binary`, `--invalid-utf8 binary`)"
            .to_string(),
        slot: Some(slot),
    }
}

/// Whether `StringArray::try_new` (or its `LargeStringArray` form) would accept `offsets`,
/// `values` and `nulls`: the last offset within `values`, the bytes between the first and last
/// offset UTF-8 (checked with SIMD by `simdutf8`, once over the whole span), every offset on a
/// char boundary of that span, and `nulls` as long as the array. `OffsetBuffer::new` already
/// checked that the offsets are non-negative and increasing. The same conditions make views
/// built by `make_view` from consecutive offsets valid `StringViewArray` views.
fn utf8_ok<O: OffsetSizeTrait + OffsetSize>(
    offsets: &OffsetBuffer<O>,
    values: &[u8],
    nulls: Option<&NullBuffer>,
) -> bool {
    if nulls.is_some_and(|n| n.len() != offsets.len() - 1) {
        return false;
    }
    values_utf8(offsets, values)
}

/// Whether the bytes `offsets` delimit in `values` (from the first offset to the last) are
/// UTF-8 (checked with SIMD by `simdutf8`, once over the whole span) with every offset on a
/// char boundary of that span, so that each value is UTF-8 on its own. Offsets must be
/// increasing (as the decoders build them).
pub(crate) fn values_utf8<O: OffsetSize>(offsets: &[O], values: &[u8]) -> bool {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return true;
    };
    let (Some(first), Some(last)) = (first.to_usize(), last.to_usize()) else {
        return false;
    };
    let Some(Ok(span)) = values.get(first..last).map(simdutf8::basic::from_utf8) else {
        return false;
    };
    // `fold` rather than `all`: no early exit, so the loop stays branch-free.
    offsets.iter().fold(true, |ok, o| {
        ok & span.is_char_boundary(o.to_usize().unwrap_or(0).wrapping_sub(first))
    })
}

/// A `Utf8`/`LargeUtf8` array, or the error naming the first invalid slot.
fn string_array<O: OffsetSizeTrait + OffsetSize + TryInto<usize>>(
    offsets: OffsetBuffer<O>,
    values: Buffer,
    nulls: Option<NullBuffer>,
    checked: Utf8Checked,
) -> Res {
    if checked.or_check(&offsets, values.as_slice(), nulls.as_ref()) {
        // SAFETY: `utf8_ok` (now, or page by page as the values were decoded: see
        // `Utf8Checked`) checked everything `GenericStringArray::try_new` checks (offsets
        // increasing and non-negative by `OffsetBuffer::new`, the last within `values`, the
        // spanned bytes UTF-8 with every offset on a char boundary, the null buffer's
        // length), so `try_new` would not error, which is `new_unchecked`'s contract.
        let a = unsafe { GenericStringArray::<O>::new_unchecked(offsets, values, nulls) };
        return Ok(Arc::new(a));
    }
    match GenericStringArray::<O>::try_new(offsets.clone(), values.clone(), nulls) {
        Ok(a) => Ok(Arc::new(a)),
        Err(e) => Err(utf8_error(
            offsets.as_ref(),
            values.as_slice(),
            e.to_string(),
        )),
    }
}

/// Whether the decoder already checked the values as `utf8_ok` would: page by page (each
/// page's span and offsets, which together cover the whole span, as offsets continue from
/// page to page and null slots only repeat an offset) or from a checked dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Utf8Checked(pub bool);

impl Utf8Checked {
    /// True if checked already, else the result of `utf8_ok` now. The null buffer's length
    /// is checked in both cases.
    fn or_check<O: OffsetSizeTrait + OffsetSize>(
        self,
        offsets: &OffsetBuffer<O>,
        values: &[u8],
        nulls: Option<&NullBuffer>,
    ) -> bool {
        if self.0 {
            let last_in_bounds = offsets.last().as_usize() <= values.len();
            let nulls_fit = nulls.is_none_or(|n| n.len() == offsets.len() - 1);
            return last_in_bounds && nulls_fit;
        }
        utf8_ok(offsets, values, nulls)
    }
}

pub(crate) fn from_bytes(
    offsets: Vec<i32>,
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
    t: &DataType,
    checked: Utf8Checked,
) -> Res {
    let len = offsets.len() - 1;
    match t {
        DataType::Utf8 => {
            // Offsets are built increasing from 0 by the decoders.
            let o = offset_buffer(offsets)?;
            string_array(o, pool::buffer(values), nulls, checked)
        }
        DataType::Binary => {
            let o = offset_buffer(offsets)?;
            let a = BinaryArray::try_new(o, pool::buffer(values), nulls)
                .map_err(|e| ConvertError::new(e.to_string()))?;
            Ok(Arc::new(a))
        }
        DataType::Utf8View | DataType::BinaryView => {
            // Views into the one decoded value buffer (offsets fit u32: they are i32).
            let views: Vec<u128> = offsets
                .windows(2)
                .map(|w| make_view(&values[w[0] as usize..w[1] as usize], 0, w[0] as u32))
                .collect();
            let views = ScalarBuffer::from(views);
            let buf = Buffer::from_vec(values);
            if *t == DataType::Utf8View {
                let o = OffsetBuffer::new(ScalarBuffer::from(offsets));
                if checked.or_check(&o, buf.as_slice(), nulls.as_ref()) {
                    // SAFETY: the views were made by `make_view` from the slices between
                    // consecutive offsets (in bounds: slicing `values` above would have
                    // panicked otherwise), pointing into buffer 0 at their start offset;
                    // `utf8_ok` checked that those slices are UTF-8 (the span is, and every
                    // offset is on a char boundary of it) and the null buffer's length, so
                    // `StringViewArray::try_new` would not error.
                    let a =
                        unsafe { StringViewArray::new_unchecked(views, vec![buf].into(), nulls) };
                    return Ok(Arc::new(a));
                }
                match StringViewArray::try_new(views, vec![buf.clone()], nulls) {
                    Ok(a) => Ok(Arc::new(a)),
                    Err(e) => Err(utf8_error(o.as_ref(), buf.as_slice(), e.to_string())),
                }
            } else {
                let a = BinaryViewArray::try_new(views, vec![buf], nulls)
                    .map_err(|e| ConvertError::new(e.to_string()))?;
                Ok(Arc::new(a))
            }
        }
        DataType::LargeUtf8 | DataType::LargeBinary => {
            let wide: Vec<i64> = offsets.iter().map(|&o| i64::from(o)).collect();
            from_large_bytes(wide, values, nulls, t, checked)
        }
        DataType::Decimal32(..)
        | DataType::Decimal64(..)
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => {
            let items = offsets
                .windows(2)
                .map(|w| &values[w[0] as usize..w[1] as usize]);
            decimal(items, len, nulls, t)
        }
        DataType::Dictionary(key, value) => dictionary(&offsets, &values, nulls, key, value),
        _ => Err(cannot("BYTE_ARRAY", t)),
    }
}

pub(crate) fn from_large_bytes(
    offsets: Vec<i64>,
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
    t: &DataType,
    checked: Utf8Checked,
) -> Res {
    match t {
        DataType::LargeUtf8 => {
            let o = offset_buffer(offsets)?;
            string_array(o, pool::buffer(values), nulls, checked)
        }
        DataType::LargeBinary => {
            let o = offset_buffer(offsets)?;
            let a = LargeBinaryArray::try_new(o, pool::buffer(values), nulls)
                .map_err(|e| ConvertError::new(e.to_string()))?;
            Ok(Arc::new(a))
        }
        _ => Err(cannot("BYTE_ARRAY", t)),
    }
}

/// Dictionary-encodes decoded byte-array values by hashing: the dictionary holds the
/// distinct non-null values in order of first appearance. Used for the dictionary value
/// types `crate::read::decode::dict` does not build from the Parquet dictionary (views).
fn dictionary(
    offsets: &[i32],
    values: &[u8],
    nulls: Option<NullBuffer>,
    key: &DataType,
    value: &DataType,
) -> Res {
    let len = offsets.len() - 1;
    let mut map: HashMap<&[u8], i32> = HashMap::new();
    let mut dict_offsets = vec![0i32];
    let mut dict_values = Vec::new();
    let mut keys = Vec::with_capacity(len);
    for (i, w) in offsets.windows(2).enumerate() {
        if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
            keys.push(0);
            continue;
        }
        let v = &values[w[0] as usize..w[1] as usize];
        let next = i32::try_from(map.len()).map_err(|_| {
            ConvertError::new("more than 2^31 - 1 distinct dictionary values".to_string())
        })?;
        let k = *map.entry(v).or_insert_with(|| {
            dict_values.extend_from_slice(v);
            dict_offsets.push(dict_values.len() as i32);
            next
        });
        keys.push(k);
    }
    let dict = from_bytes(dict_offsets, dict_values, None, value, Utf8Checked(false))?;
    dictionary_array(keys, nulls, key, dict)
}

/// A `DictionaryArray` with `key` keys from i32 `keys` (checked to fit) and `values`.
pub(crate) fn dictionary_array(
    keys: Vec<i32>,
    nulls: Option<NullBuffer>,
    key: &DataType,
    values: ArrayRef,
) -> std::result::Result<ArrayRef, ConvertError> {
    fn build<K: ArrowDictionaryKeyType>(
        keys: Vec<i32>,
        nulls: Option<NullBuffer>,
        values: ArrayRef,
    ) -> std::result::Result<ArrayRef, ConvertError> {
        let native: ScalarBuffer<K::Native> = if K::DATA_TYPE == DataType::Int32 {
            // i32 keys are the key type's native values already: the buffer is handed over.
            let len = keys.len();
            ScalarBuffer::new(Buffer::from_vec(keys), 0, len)
        } else {
            // Checked as a whole (min and max), then narrowed without a branch per key.
            let fits = |k: i32| usize::try_from(k).ok().and_then(K::Native::from_usize);
            let (min, max) = keys
                .iter()
                .fold((0, 0), |(lo, hi): (i32, i32), &k| (lo.min(k), hi.max(k)));
            if min < 0 || fits(max).is_none() {
                let slot = keys.iter().position(|&k| fits(k).is_none());
                let k = slot.and_then(|s| keys.get(s)).copied().unwrap_or(max);
                return Err(ConvertError {
                    message: format!(
                        "dictionary key {k} does not fit the key type {}: more distinct \
                         values than it can index",
                        K::DATA_TYPE
                    ),
                    slot,
                });
            }
            let out: Vec<K::Native> = keys
                .iter()
                .map(|&k| K::Native::usize_as(k as usize))
                .collect();
            ScalarBuffer::from(out)
        };
        let keys = PrimitiveArray::<K>::new(native, nulls);
        let a = DictionaryArray::<K>::try_new(keys, values)
            .map_err(|e| ConvertError::new(e.to_string()))?;
        Ok(Arc::new(a))
    }
    match key {
        DataType::Int8 => build::<Int8Type>(keys, nulls, values),
        DataType::Int16 => build::<Int16Type>(keys, nulls, values),
        DataType::Int32 => build::<Int32Type>(keys, nulls, values),
        DataType::Int64 => build::<Int64Type>(keys, nulls, values),
        DataType::UInt8 => build::<UInt8Type>(keys, nulls, values),
        DataType::UInt16 => build::<UInt16Type>(keys, nulls, values),
        DataType::UInt32 => build::<UInt32Type>(keys, nulls, values),
        DataType::UInt64 => build::<UInt64Type>(keys, nulls, values),
        _ => Err(ConvertError::new(format!(
            "invalid dictionary key type {key}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_out_of_order_are_an_error_not_a_panic() {
        let o = offset_buffer(vec![0i32, 0, 3, 3, 7]).unwrap();
        assert_eq!(o.as_ref(), &[0, 0, 3, 3, 7]);
        assert_eq!(offset_buffer(vec![5i64]).unwrap().as_ref(), &[5]);
        // A decrease anywhere (past the vector width too), a negative start, no offsets.
        for bad in [
            vec![0i32, 2, 1],
            (0..40).chain([39, 38]).collect(),
            vec![-1, 0, 1],
            vec![],
        ] {
            assert!(offset_buffer(bad.clone()).is_err(), "{bad:?}");
        }
        assert!(offset_buffer(vec![0i64, 4, 2, 8]).is_err());
    }
}
