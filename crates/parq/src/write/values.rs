//! Arrow values as physical values, slice by slice: views of the Arrow buffers where the
//! layouts agree (Int32, Int64, floats, strings and binaries with their offsets, fixed-size
//! binaries, Float16), conversions into scratch buffers shared by all the columns otherwise
//! (narrow and unsigned integers, Date64, Time32(s), Timestamp(s), decimals to big-endian
//! bytes or, for a column without a FIXED_LEN_BYTE_ARRAY width, to INT32 / INT64 by their
//! precision (see [`integer_decimal`]), intervals to their 12 INTERVAL bytes, views to offsets), and dictionary arrays
//! gathered to their values (the dictionary's values viewed or converted once per array).

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef};
use arrow_buffer::i256;
use arrow_schema::{DataType, IntervalUnit, TimeUnit as ArrowTimeUnit};

use super::arrow_schema::integer_decimal;
use crate::encoding::encode::Bitmap;
use crate::format::metadata::PhysicalType;
use crate::{Error, ErrorKind, Result};

#[cold]
pub(super) fn column_error(column: &str, message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "column `{column}`: {message}"
    )))
}

/// Conversion buffers, reused slice after slice.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// The keys of a dictionary slice.
    keys: Vec<usize>,
    /// The validity of a dictionary slice.
    validity: Vec<u8>,
    /// The values of the slice, converted or gathered.
    out: Buffers,
    /// The converted values of the dictionary of the array being written (dictionaries
    /// whose values need a conversion), kept from its first slice to its last.
    dict: Buffers,
    /// Where the values are in `dict`.
    dict_kind: Kind,
    /// The dictionary `dict` holds: address and length of its values array.
    dict_of: Option<(usize, usize)>,
}

/// Physical values converted from Arrow values.
#[derive(Debug, Default)]
struct Buffers {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    /// Fixed-width values back to back, or the bytes of byte strings.
    bytes: Vec<u8>,
    /// Offsets of byte strings into `bytes`.
    offsets: Vec<i64>,
    /// Booleans, LSB first.
    bits: Vec<u8>,
}

/// A slice of an Arrow array as physical values (one per slot, nulls included).
#[derive(Clone, Copy)]
pub(super) enum Batch<'a> {
    Null,
    Bool(Bitmap<'a>),
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bytes32(&'a [i32], &'a [u8]),
    Bytes64(&'a [i64], &'a [u8]),
    Fixed(&'a [u8]),
}

/// The validity of slots `off..off + len` of `array` (`None` when all are valid).
fn validity_of(array: &dyn Array, off: usize, len: usize) -> Result<Option<Bitmap<'_>>> {
    match array.nulls() {
        Some(n) if n.null_count() > 0 => {
            let b = n.inner();
            Ok(Some(Bitmap::new(b.values(), b.offset() + off, len)?))
        }
        _ => Ok(None),
    }
}

/// Fixed-width values of a primitive array of native type `T` viewed as `U` of the same
/// width (e.g. `u32` as `i32`), slots `off..off + len`.
fn prim<T: ArrowPrimitiveType, U: arrow_buffer::ArrowNativeType>(
    array: &dyn Array,
    off: usize,
    len: usize,
) -> &[U] {
    let v = array.as_primitive::<T>().values().inner().typed_data::<U>();
    &v[off..off + len]
}

/// Converts the values of slots `off..off + len` with `f` into `out`.
fn convert<T: ArrowPrimitiveType, U>(
    array: &dyn Array,
    off: usize,
    len: usize,
    out: &mut Vec<U>,
    f: impl Fn(T::Native) -> U,
) {
    out.clear();
    out.extend(
        array.as_primitive::<T>().values()[off..off + len]
            .iter()
            .map(|&v| f(v)),
    );
}

/// A value of a valid slot that its conversion refuses (it does not fit the physical type):
/// the slot (from the first converted one) and the Arrow value.
#[derive(Debug, Clone, Copy)]
struct Unfit {
    slot: usize,
    value: i64,
}

/// Converts the values of slots `off..off + len` with the checked `f` into `out` (`None`:
/// only checks them), and returns the valid slots (per `validity`) whose value `f` refuses, in
/// order (none, without allocating, in the usual case). A refused value becomes 0 in `out`: a
/// null slot's value is never written, and a valid slot's is an error for the caller, before
/// it is put. The loop only sets a flag per value; the slots are looked at only when a value
/// was refused.
fn convert_checked<T: ArrowPrimitiveType, U: Default>(
    array: &dyn Array,
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    out: Option<&mut Vec<U>>,
    f: impl Fn(T::Native) -> Option<U>,
) -> Vec<Unfit>
where
    T::Native: Into<i64>,
{
    let values = &array.as_primitive::<T>().values()[off..off + len];
    let refused = match out {
        Some(out) => {
            out.clear();
            let mut refused = false;
            out.extend(values.iter().map(|&v| {
                let u = f(v);
                refused |= u.is_none();
                u.unwrap_or_default()
            }));
            refused
        }
        None => values.iter().fold(false, |r, &v| r | f(v).is_none()),
    };
    if !refused {
        return Vec::new();
    }
    values
        .iter()
        .enumerate()
        .filter(|&(i, &v)| f(v).is_none() && validity.is_none_or(|b| b.word(i) & 1 == 1))
        .map(|(slot, &v)| Unfit {
            slot,
            value: v.into(),
        })
        .collect()
}

/// Why `data_type` refuses `value` (the types [`convert_checked`] converts).
#[cold]
fn unfit_reason(data_type: &DataType, value: i64) -> String {
    use ArrowTimeUnit as U;
    match data_type {
        // Parquet has no seconds unit: seconds are written as milliseconds.
        DataType::Timestamp(U::Second, _) => format!(
            "the Timestamp(Second) value {value} s does not fit INT64 milliseconds (at most \
             {} s either side of 1970-01-01)",
            i64::MAX / 1000
        ),
        DataType::Time32(U::Second) => format!(
            "the Time32(Second) value {value} s does not fit INT32 milliseconds (at most {} s \
             either side of 0)",
            i32::MAX / 1000
        ),
        DataType::Date64 => format!(
            "the Date64 value {value} ms is {} days from 1970-01-01, more than the INT32 days \
             of a DATE hold",
            value / MS_PER_DAY
        ),
        other => format!("the {other} value {value} does not fit its physical type"),
    }
}

/// The error for row `row` (of the array given to [`ColumnWriter::write`]) whose value of type
/// `data_type` its conversion refuses; `what` says where the value is when not in the row
/// itself (a dictionary's values).
#[cold]
fn unfit_error(name: &str, data_type: &DataType, row: usize, value: i64, what: &str) -> Error {
    Error::new(ErrorKind::InvalidColumnData {
        column: name.to_string(),
        message: format!("row {row}{what}: {}", unfit_reason(data_type, value)),
    })
}

/// True for the types [`convert_time`] converts, whose values may not fit.
pub(super) fn is_checked_time(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Time32(ArrowTimeUnit::Second)
            | DataType::Date64
            | DataType::Timestamp(ArrowTimeUnit::Second, _)
    )
}

/// Milliseconds of a day (Date64 -> DATE days).
const MS_PER_DAY: i64 = 86_400_000;

/// Big-endian two's complement bytes (`to_be`) of the decimals of slots `off..off + len`,
/// `width` bytes each.
fn decimals<T: ArrowPrimitiveType, const N: usize>(
    array: &dyn Array,
    off: usize,
    len: usize,
    to_be: impl Fn(T::Native) -> [u8; N],
    width: usize,
    out: &mut Vec<u8>,
) {
    out.clear();
    for &v in &array.as_primitive::<T>().values()[off..off + len] {
        let be = to_be(v);
        if width <= N {
            out.extend_from_slice(&be[N - width..]);
        } else {
            let sign = if be[0] & 0x80 != 0 { 0xff } else { 0 };
            out.extend(std::iter::repeat_n(sign, width - N));
            out.extend_from_slice(&be);
        }
    }
}

/// An unscaled decimal as an `i64`, when it fits.
trait UnscaledI64: Copy + std::fmt::Display {
    fn to_i64(self) -> Option<i64>;
}

impl UnscaledI64 for i32 {
    fn to_i64(self) -> Option<i64> {
        Some(i64::from(self))
    }
}

impl UnscaledI64 for i64 {
    fn to_i64(self) -> Option<i64> {
        Some(self)
    }
}

impl UnscaledI64 for i128 {
    fn to_i64(self) -> Option<i64> {
        i64::try_from(self).ok()
    }
}

impl UnscaledI64 for i256 {
    fn to_i64(self) -> Option<i64> {
        self.to_i128().and_then(|x| i64::try_from(x).ok())
    }
}

/// The decimals of slots `off..off + len` (`validity`: theirs) as the INT32 (`int32`) or
/// INT64 unscaled values of an integer DECIMAL column, into `b`; a valid value that does not
/// fit is an error naming its slot (from `off`).
fn integer_decimals<T: ArrowPrimitiveType>(
    name: &str,
    array: &dyn Array,
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    int32: bool,
    b: &mut Buffers,
) -> Result<Kind>
where
    T::Native: UnscaledI64,
{
    let values = &array.as_primitive::<T>().values()[off..off + len];
    let fit = |v: T::Native| v.to_i64().filter(|&x| !int32 || i32::try_from(x).is_ok());
    let unfit = values
        .iter()
        .enumerate()
        .find(|&(i, &v)| fit(v).is_none() && validity.is_none_or(|b| b.word(i) & 1 == 1));
    if let Some((i, v)) = unfit {
        return Err(Error::new(ErrorKind::InvalidColumnData {
            column: name.to_string(),
            message: format!(
                "row {}: the decimal's unscaled value {v} does not fit its {} column",
                off + i,
                if int32 { "INT32" } else { "INT64" }
            ),
        }));
    }
    if int32 {
        b.i32s.clear();
        b.i32s.extend(
            values
                .iter()
                .map(|&v| fit(v).and_then(|x| i32::try_from(x).ok()).unwrap_or(0)),
        );
        Ok(Kind::I32)
    } else {
        b.i64s.clear();
        b.i64s.extend(values.iter().map(|&v| fit(v).unwrap_or(0)));
        Ok(Kind::I64)
    }
}

/// INTERVAL values: (months, days, milliseconds) as three little-endian 32-bit integers
/// each. Negative Arrow fields keep their two's complement bits (as arrow-rs writes them).
fn intervals(values: impl Iterator<Item = [i32; 3]>, out: &mut Vec<u8>) {
    out.clear();
    for v in values {
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
}

/// Slots `off..off + len` of `array` as physical values, and their validity.
#[allow(clippy::too_many_arguments)]
pub(super) fn to_batch<'a>(
    name: &str,
    data_type: &DataType,
    width: usize,
    array: &'a dyn Array,
    off: usize,
    len: usize,
    s: &'a mut Scratch,
) -> Result<(Batch<'a>, Option<Bitmap<'a>>)> {
    if array.data_type() != data_type {
        return Err(column_error(
            name,
            format_args!(
                "an array of type {} for a column of type {data_type}",
                array.data_type()
            ),
        ));
    }
    if let DataType::Dictionary(..) = data_type {
        return dictionary_batch(name, width, array, off, len, s);
    }
    let validity = validity_of(array, off, len)?;
    let batch = match view(name, data_type, width, array, off, len)? {
        Some(b) => b,
        None => {
            let kind = convert_into(
                name, data_type, width, array, off, len, validity, &mut s.out,
            )?;
            kind.batch(&s.out, len)?
        }
    };
    Ok((batch, validity))
}

/// Slots `off..off + len` of `array` straight from its buffers, for the types whose layout is
/// the physical one (`None` for the others, which [`convert_into`] converts).
fn view<'a>(
    name: &str,
    data_type: &DataType,
    width: usize,
    array: &'a dyn Array,
    off: usize,
    len: usize,
) -> Result<Option<Batch<'a>>> {
    use ArrowTimeUnit as U;
    Ok(Some(match data_type {
        DataType::Null => Batch::Null,
        DataType::Boolean => {
            let b = array.as_boolean().values();
            Batch::Bool(Bitmap::new(b.values(), b.offset() + off, len)?)
        }
        DataType::Int32 => Batch::I32(prim::<Int32Type, i32>(array, off, len)),
        DataType::UInt32 => Batch::I32(prim::<UInt32Type, i32>(array, off, len)),
        DataType::Date32 => Batch::I32(prim::<Date32Type, i32>(array, off, len)),
        DataType::Time32(U::Millisecond) => {
            Batch::I32(prim::<Time32MillisecondType, i32>(array, off, len))
        }
        DataType::Decimal32(..) if width == 0 => {
            Batch::I32(prim::<Decimal32Type, i32>(array, off, len))
        }
        DataType::Decimal64(p, _)
            if width == 0 && integer_decimal(*p) == Some(PhysicalType::Int64) =>
        {
            Batch::I64(prim::<Decimal64Type, i64>(array, off, len))
        }
        DataType::Int64 => Batch::I64(prim::<Int64Type, i64>(array, off, len)),
        DataType::UInt64 => Batch::I64(prim::<UInt64Type, i64>(array, off, len)),
        DataType::Time64(U::Nanosecond) => {
            Batch::I64(prim::<Time64NanosecondType, i64>(array, off, len))
        }
        DataType::Time64(_) => Batch::I64(prim::<Time64MicrosecondType, i64>(array, off, len)),
        DataType::Timestamp(U::Millisecond, _) => {
            Batch::I64(prim::<TimestampMillisecondType, i64>(array, off, len))
        }
        DataType::Timestamp(U::Microsecond, _) => {
            Batch::I64(prim::<TimestampMicrosecondType, i64>(array, off, len))
        }
        DataType::Timestamp(U::Nanosecond, _) => {
            Batch::I64(prim::<TimestampNanosecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Second) => {
            Batch::I64(prim::<DurationSecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Millisecond) => {
            Batch::I64(prim::<DurationMillisecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Microsecond) => {
            Batch::I64(prim::<DurationMicrosecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Nanosecond) => {
            Batch::I64(prim::<DurationNanosecondType, i64>(array, off, len))
        }
        DataType::Float16 => {
            let v = array
                .as_primitive::<Float16Type>()
                .values()
                .inner()
                .as_slice();
            Batch::Fixed(&v[2 * off..2 * (off + len)])
        }
        DataType::Float32 => Batch::F32(prim::<Float32Type, f32>(array, off, len)),
        DataType::Float64 => Batch::F64(prim::<Float64Type, f64>(array, off, len)),
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            Batch::Bytes32(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            Batch::Bytes64(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            Batch::Bytes32(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            Batch::Bytes64(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            let v = a.value_data();
            let start = (a.offset() + off) * width;
            let data = v.get(start..start + len * width).ok_or_else(|| {
                column_error(name, "fixed-size binary values shorter than the array")
            })?;
            Batch::Fixed(data)
        }
        _ => return Ok(None),
    }))
}

/// Where [`convert_into`] left its values in [`Buffers`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    I32,
    I64,
    /// `offsets` and `bytes`.
    Bytes,
    /// `bytes`, `width` bytes a value.
    Fixed,
}

impl Kind {
    /// The `len` values of kind `self` in `b`.
    fn batch(self, b: &Buffers, len: usize) -> Result<Batch<'_>> {
        let n = match self {
            Kind::I32 => b.i32s.len(),
            Kind::I64 => b.i64s.len(),
            Kind::Bytes => b.offsets.len().saturating_sub(1),
            Kind::Fixed => len,
        };
        if n != len {
            return Err(crate::error::internal(format!(
                "{n} converted values for {len} slots"
            )));
        }
        Ok(match self {
            Kind::I32 => Batch::I32(&b.i32s),
            Kind::I64 => Batch::I64(&b.i64s),
            Kind::Bytes => Batch::Bytes64(&b.offsets, &b.bytes),
            Kind::Fixed => Batch::Fixed(&b.bytes),
        })
    }
}

/// Converts slots `off..off + len` of `array` (validity `validity`), of a type whose layout
/// is not the physical one, into `b`; returns where the values are.
#[allow(clippy::too_many_arguments)]
fn convert_into(
    name: &str,
    data_type: &DataType,
    width: usize,
    array: &dyn Array,
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    b: &mut Buffers,
) -> Result<Kind> {
    Ok(match data_type {
        DataType::Int8 => {
            convert::<Int8Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        DataType::Int16 => {
            convert::<Int16Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        DataType::UInt8 => {
            convert::<UInt8Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        DataType::UInt16 => {
            convert::<UInt16Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        t if is_checked_time(t) => {
            // The whole array is checked at its first slice: a value that does not fit is an
            // error before any slice of the array is put.
            let n = array.len();
            if off == 0 && len < n {
                let all = validity_of(array, 0, n)?;
                if let Some(u) = convert_time(t, array, 0, n, all, None)?.1.first() {
                    return Err(unfit_error(name, t, u.slot, u.value, ""));
                }
            }
            let (kind, unfit) = convert_time(t, array, off, len, validity, Some(b))?;
            if let Some(u) = unfit.first() {
                return Err(unfit_error(name, t, off + u.slot, u.value, ""));
            }
            kind
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            views(off, len, validity, |i| a.value(i).as_bytes(), b);
            Kind::Bytes
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            views(off, len, validity, |i| a.value(i), b);
            Kind::Bytes
        }
        DataType::Decimal32(p, _)
        | DataType::Decimal64(p, _)
        | DataType::Decimal128(p, _)
        | DataType::Decimal256(p, _)
            if width == 0 =>
        {
            let int32 = integer_decimal(*p) == Some(PhysicalType::Int32);
            let convert = match data_type {
                DataType::Decimal32(..) => integer_decimals::<Decimal32Type>,
                DataType::Decimal64(..) => integer_decimals::<Decimal64Type>,
                DataType::Decimal128(..) => integer_decimals::<Decimal128Type>,
                _ => integer_decimals::<Decimal256Type>,
            };
            convert(name, array, off, len, validity, int32, b)?
        }
        DataType::Decimal32(..) => {
            decimals::<Decimal32Type, 4>(array, off, len, i32::to_be_bytes, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Decimal64(..) => {
            decimals::<Decimal64Type, 8>(array, off, len, i64::to_be_bytes, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Decimal128(..) => {
            let be = i128::to_be_bytes;
            decimals::<Decimal128Type, 16>(array, off, len, be, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Decimal256(..) => {
            let be = i256::to_be_bytes;
            decimals::<Decimal256Type, 32>(array, off, len, be, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Interval(IntervalUnit::YearMonth) if width == 12 => {
            let v = &array.as_primitive::<IntervalYearMonthType>().values()[off..off + len];
            intervals(v.iter().map(|&months| [months, 0, 0]), &mut b.bytes);
            Kind::Fixed
        }
        DataType::Interval(IntervalUnit::DayTime) if width == 12 => {
            let v = &array.as_primitive::<IntervalDayTimeType>().values()[off..off + len];
            intervals(v.iter().map(|x| [0, x.days, x.milliseconds]), &mut b.bytes);
            Kind::Fixed
        }
        other => {
            return Err(column_error(
                name,
                format_args!("{other} values are not written"),
            ))
        }
    })
}

/// Converts slots `off..off + len` of `array` of type Time32(Second), Date64 or
/// Timestamp(Second) (validity `validity`) into `b`; returns where the values are and the
/// valid slots whose value does not fit (their converted value is 0). A value is refused
/// rather than wrapped:
///
/// - Timestamp(Second): Parquet has no seconds unit, the value is written in milliseconds;
///   one that overflows INT64 (past `i64::MAX / 1000` s either side) is refused, as pyarrow 26
///   refuses it ("Integer overflow when casting timestamp value").
/// - Time32(Second): likewise in INT32 milliseconds (past 2147483 s either side); pyarrow 26
///   wraps such a value silently, parq refuses it. Values in range are written as they are,
///   even outside a day (86400 s and -1 s are written as pyarrow writes them).
/// - Date64: written as DATE days, truncated toward zero like pyarrow 26 (-1 ms is day 0); a
///   day out of INT32 is refused (pyarrow 26 wraps it silently).
///
/// With `b` `None`, the values are only checked.
fn convert_time(
    data_type: &DataType,
    array: &dyn Array,
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    b: Option<&mut Buffers>,
) -> Result<(Kind, Vec<Unfit>)> {
    use ArrowTimeUnit as U;
    Ok(match data_type {
        DataType::Time32(U::Second) => {
            let out = b.map(|b| &mut b.i32s);
            let unfit =
                convert_checked::<Time32SecondType, i32>(array, off, len, validity, out, |v| {
                    v.checked_mul(1000)
                });
            (Kind::I32, unfit)
        }
        DataType::Date64 => {
            let out = b.map(|b| &mut b.i32s);
            let unfit = convert_checked::<Date64Type, i32>(array, off, len, validity, out, |v| {
                i32::try_from(v / MS_PER_DAY).ok()
            });
            (Kind::I32, unfit)
        }
        DataType::Timestamp(U::Second, _) => {
            let out = b.map(|b| &mut b.i64s);
            let unfit =
                convert_checked::<TimestampSecondType, i64>(array, off, len, validity, out, |v| {
                    v.checked_mul(1000)
                });
            (Kind::I64, unfit)
        }
        other => {
            return Err(crate::error::internal(format!(
                "{other} is not a time type converted"
            )))
        }
    })
}

/// Copies the values of view slots `off..off + len` into offsets and bytes (null slots
/// empty).
fn views<'v>(
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    value: impl Fn(usize) -> &'v [u8],
    b: &mut Buffers,
) {
    b.offsets.clear();
    b.bytes.clear();
    b.offsets.push(0);
    for i in 0..len {
        let valid = validity.is_none_or(|v| v.word(i) & 1 == 1);
        if valid {
            b.bytes.extend_from_slice(value(off + i));
        }
        b.offsets.push(b.bytes.len() as i64);
    }
}

/// The keys of slots `off..off + len` of a dictionary array with keys `K` (as `usize`; a
/// negative key becomes a huge one, out of every dictionary) into `keys`, and its values.
fn dictionary_keys<'a, K: ArrowDictionaryKeyType>(
    array: &'a dyn Array,
    off: usize,
    len: usize,
    keys: &mut Vec<usize>,
) -> &'a ArrayRef {
    use arrow_buffer::ArrowNativeType;
    let a = array.as_dictionary::<K>();
    keys.clear();
    keys.extend(
        a.keys().values()[off..off + len]
            .iter()
            .map(|k| k.as_usize()),
    );
    a.values()
}

/// An error if a valid row of the dictionary array `array` (keys of type `key_type`) uses one
/// of the dictionary values `unfit` (valid values of type `value_type`, in order, that do not
/// fit their physical type), naming the first such row.
fn check_unfit_unused(
    name: &str,
    array: &dyn Array,
    key_type: &DataType,
    value_type: &DataType,
    unfit: &[Unfit],
) -> Result<()> {
    let n = array.len();
    let mut keys = Vec::new();
    match key_type {
        DataType::Int8 => dictionary_keys::<Int8Type>(array, 0, n, &mut keys),
        DataType::Int16 => dictionary_keys::<Int16Type>(array, 0, n, &mut keys),
        DataType::Int32 => dictionary_keys::<Int32Type>(array, 0, n, &mut keys),
        DataType::Int64 => dictionary_keys::<Int64Type>(array, 0, n, &mut keys),
        DataType::UInt8 => dictionary_keys::<UInt8Type>(array, 0, n, &mut keys),
        DataType::UInt16 => dictionary_keys::<UInt16Type>(array, 0, n, &mut keys),
        DataType::UInt32 => dictionary_keys::<UInt32Type>(array, 0, n, &mut keys),
        DataType::UInt64 => dictionary_keys::<UInt64Type>(array, 0, n, &mut keys),
        other => {
            return Err(column_error(
                name,
                format_args!("dictionary keys of type {other}"),
            ))
        }
    };
    let key_valid = validity_of(array, 0, n)?;
    for (row, &k) in keys.iter().enumerate() {
        if key_valid.is_some_and(|v| v.word(row) & 1 == 0) {
            continue;
        }
        if let Ok(i) = unfit.binary_search_by_key(&k, |u| u.slot) {
            let value = unfit.get(i).map_or(0, |u| u.value);
            let what = format!(" (dictionary value {k})");
            return Err(unfit_error(name, value_type, row, value, &what));
        }
    }
    Ok(())
}

/// `out` = `values[k]` for every key `k` whose slot is `valid`, `T::default()` for the
/// others.
fn gather<T: Copy + Default>(
    values: &[T],
    keys: &[usize],
    valid: impl Fn(usize, usize) -> bool,
    out: &mut Vec<T>,
) {
    out.clear();
    out.extend(keys.iter().enumerate().map(|(i, &k)| {
        if valid(i, k) {
            values.get(k).copied().unwrap_or_default()
        } else {
            T::default()
        }
    }));
}

/// Byte strings `k` (`offsets`, `data`) for every key `k` whose slot is `valid` (empty for
/// the others) into 64-bit `out_offsets` and `out_bytes`.
fn gather_bytes<O: crate::encoding::OffsetSize>(
    offsets: &[O],
    data: &[u8],
    keys: &[usize],
    valid: impl Fn(usize, usize) -> bool,
    out_offsets: &mut Vec<i64>,
    out_bytes: &mut Vec<u8>,
) {
    out_offsets.clear();
    out_bytes.clear();
    out_offsets.push(0);
    for (i, &k) in keys.iter().enumerate() {
        if valid(i, k) {
            let at = |j: usize| offsets.get(j).and_then(|o| o.to_usize()).unwrap_or(0);
            out_bytes.extend_from_slice(data.get(at(k)..at(k + 1)).unwrap_or_default());
        }
        out_offsets.push(out_bytes.len() as i64);
    }
}

/// Slots `off..off + len` of a dictionary array as the physical values they stand for. The
/// dictionary's values are viewed straight from their buffers when their layout is the
/// physical one, else converted once per array (at its first slice, `off == 0`, kept in
/// [`Scratch::dict`] for the next slices); then each slot takes the value of its key. A null
/// key or a key to a null value is a null slot; a valid key out of the dictionary is an error.
fn dictionary_batch<'a>(
    name: &str,
    width: usize,
    array: &'a dyn Array,
    off: usize,
    len: usize,
    s: &'a mut Scratch,
) -> Result<(Batch<'a>, Option<Bitmap<'a>>)> {
    let DataType::Dictionary(key_type, _) = array.data_type() else {
        return Err(column_error(name, "internal error: not a dictionary array"));
    };
    let keys = &mut s.keys;
    let values: &'a ArrayRef = match **key_type {
        DataType::Int8 => dictionary_keys::<Int8Type>(array, off, len, keys),
        DataType::Int16 => dictionary_keys::<Int16Type>(array, off, len, keys),
        DataType::Int32 => dictionary_keys::<Int32Type>(array, off, len, keys),
        DataType::Int64 => dictionary_keys::<Int64Type>(array, off, len, keys),
        DataType::UInt8 => dictionary_keys::<UInt8Type>(array, off, len, keys),
        DataType::UInt16 => dictionary_keys::<UInt16Type>(array, off, len, keys),
        DataType::UInt32 => dictionary_keys::<UInt32Type>(array, off, len, keys),
        DataType::UInt64 => dictionary_keys::<UInt64Type>(array, off, len, keys),
        ref other => {
            return Err(column_error(
                name,
                format_args!("dictionary keys of type {other}"),
            ))
        }
    };
    let value_type = values.data_type();
    let n_values = values.len();
    // Logical validity: the key is valid and so is the value it points to.
    let key_valid = validity_of(array, off, len)?;
    let value_nulls = values.nulls().filter(|n| n.null_count() > 0);
    let has_nulls = key_valid.is_some() || value_nulls.is_some();
    let key_is_valid = |i: usize| key_valid.is_none_or(|v| v.word(i) & 1 == 1);
    if let Some(i) = s
        .keys
        .iter()
        .enumerate()
        .position(|(i, &k)| k >= n_values && key_is_valid(i))
    {
        return Err(column_error(
            name,
            format_args!(
                "the dictionary key of row {} (of this array) is out of the dictionary of \
                 {n_values} values",
                off + i
            ),
        ));
    }
    s.validity.clear();
    if has_nulls {
        s.validity.resize(len.div_ceil(8), 0);
        for (i, &k) in s.keys.iter().enumerate() {
            let ok = key_is_valid(i) && k < n_values && value_nulls.is_none_or(|n| n.is_valid(k));
            if ok {
                s.validity[i / 8] |= 1 << (i % 8);
            }
        }
    }
    // The dictionary's values as physical values.
    let dict_values = match view(name, value_type, width, values.as_ref(), 0, n_values)? {
        Some(b) => b,
        None => {
            let id = (Arc::as_ptr(values).cast::<()>() as usize, n_values);
            if off == 0 || s.dict_of != Some(id) {
                s.dict_of = None;
                let value_valid = validity_of(values.as_ref(), 0, n_values)?;
                s.dict_kind = if is_checked_time(value_type) {
                    // Values that do not fit are an error only if a row uses them (as in
                    // pyarrow 26): the rows of the whole array are checked, before any slice
                    // of it is put.
                    let (kind, unfit) = convert_time(
                        value_type,
                        values.as_ref(),
                        0,
                        n_values,
                        value_valid,
                        Some(&mut s.dict),
                    )?;
                    if !unfit.is_empty() {
                        check_unfit_unused(name, array, key_type, value_type, &unfit)?;
                    }
                    kind
                } else {
                    convert_into(
                        name,
                        value_type,
                        width,
                        values.as_ref(),
                        0,
                        n_values,
                        value_valid,
                        &mut s.dict,
                    )?
                };
                s.dict_of = Some(id);
            }
            s.dict_kind.batch(&s.dict, n_values)?
        }
    };
    let validity = &s.validity;
    let valid = |i: usize, k: usize| {
        k < n_values && (!has_nulls || validity.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1))
    };
    let keys = &s.keys;
    let out = &mut s.out;
    let kind = match dict_values {
        Batch::Null => None,
        Batch::Bool(bits) => {
            out.bits.clear();
            out.bits.resize(len.div_ceil(8), 0);
            for (i, &k) in keys.iter().enumerate() {
                if valid(i, k) && bits.word(k) & 1 == 1 {
                    out.bits[i / 8] |= 1 << (i % 8);
                }
            }
            Some(Out::Bool)
        }
        Batch::I32(v) => {
            gather(v, keys, valid, &mut out.i32s);
            Some(Out::I32)
        }
        Batch::I64(v) => {
            gather(v, keys, valid, &mut out.i64s);
            Some(Out::I64)
        }
        Batch::F32(v) => {
            gather(v, keys, valid, &mut out.f32s);
            Some(Out::F32)
        }
        Batch::F64(v) => {
            gather(v, keys, valid, &mut out.f64s);
            Some(Out::F64)
        }
        Batch::Bytes32(o, d) => {
            gather_bytes(o, d, keys, valid, &mut out.offsets, &mut out.bytes);
            Some(Out::Bytes)
        }
        Batch::Bytes64(o, d) => {
            gather_bytes(o, d, keys, valid, &mut out.offsets, &mut out.bytes);
            Some(Out::Bytes)
        }
        Batch::Fixed(d) => {
            out.bytes.clear();
            out.bytes.reserve(len * width);
            for (i, &k) in keys.iter().enumerate() {
                let value = if valid(i, k) {
                    d.get(k * width..(k + 1) * width)
                } else {
                    None
                };
                match value {
                    Some(v) => out.bytes.extend_from_slice(v),
                    None => out.bytes.resize(out.bytes.len() + width, 0),
                }
            }
            Some(Out::Fixed)
        }
    };
    let s: &'a Scratch = s;
    let out = &s.out;
    let batch = match kind {
        None => Batch::Null,
        Some(Out::Bool) => Batch::Bool(Bitmap::new(&out.bits, 0, len)?),
        Some(Out::I32) => Batch::I32(&out.i32s),
        Some(Out::I64) => Batch::I64(&out.i64s),
        Some(Out::F32) => Batch::F32(&out.f32s),
        Some(Out::F64) => Batch::F64(&out.f64s),
        Some(Out::Bytes) => Batch::Bytes64(&out.offsets, &out.bytes),
        Some(Out::Fixed) => Batch::Fixed(&out.bytes),
    };
    let validity = if has_nulls {
        Some(Bitmap::new(&s.validity, 0, len)?)
    } else {
        None
    };
    Ok((batch, validity))
}

/// Which buffer of [`Scratch::out`] holds the values gathered from a dictionary.
#[derive(Clone, Copy)]
enum Out {
    Bool,
    I32,
    I64,
    F32,
    F64,
    Bytes,
    Fixed,
}
