//! Chunk and page statistics as bounds a filter can prune with ([`ChunkStats`]): the PLAIN
//! bytes of a statistics value as a one-element array of the column's value type (Binary for
//! byte arrays), used only where the statistics' order is the column's (see `filter`), and
//! the NaN count of float columns.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{
    make_array, Array, ArrayRef, BinaryArray, BooleanArray, Float32Array, Float64Array, Int32Array,
    Int64Array,
};
use arrow_buffer::Buffer;
use arrow_data::ArrayData;
use arrow_schema::DataType;

use crate::format::metadata::{BoundingBox, ColumnChunk, ColumnOrder, FileMetaData, PhysicalType};

/// The value type of `t` (a dictionary's values).
pub(in crate::read) fn value_type(t: &DataType) -> &DataType {
    match t {
        DataType::Dictionary(_, v) => v,
        other => other,
    }
}

/// Whether `t` is a decimal type.
pub(in crate::read) fn is_decimal(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Decimal32(..)
            | DataType::Decimal64(..)
            | DataType::Decimal128(..)
            | DataType::Decimal256(..)
    )
}

/// What a chunk's (or a page's) statistics say: its rows, nulls, and bounds (one-element
/// arrays, of the column's value type, or Binary for byte arrays).
#[derive(Clone)]
pub(in crate::read) struct ChunkStats {
    pub(in crate::read) rows: i64,
    pub(in crate::read) nulls: Option<i64>,
    pub(in crate::read) bounds: Option<(ArrayRef, ArrayRef)>,
    /// NaN values: `Some(0)` for columns that cannot hold NaN, `None` when unknown (a float
    /// column without `nan_count`).
    pub(in crate::read) nans: Option<i64>,
    /// True when float bounds follow IEEE 754 totalOrder, so that zero bounds and zero
    /// literals compare as they are.
    pub(in crate::read) total_order: bool,
    /// The bounding box of a GEOMETRY / GEOGRAPHY chunk's `GeospatialStatistics`.
    pub(in crate::read) geo: Option<BoundingBox>,
}

impl ChunkStats {
    pub(in crate::read) fn of(
        meta: &FileMetaData,
        chunk: &ColumnChunk,
        leaf: usize,
        data_type: &DataType,
        rows: i64,
    ) -> Option<ChunkStats> {
        let buf = meta.buf();
        let geo = chunk
            .geospatial_statistics(buf)
            .and_then(|g| g.ok())
            .and_then(|g| g.bbox);
        let Some(s) = chunk.statistics() else {
            return geo.map(|g| ChunkStats {
                rows,
                nulls: None,
                bounds: None,
                nans: Some(0),
                total_order: false,
                geo: Some(g),
            });
        };
        let order = meta
            .column_orders
            .as_ref()
            .and_then(|o| o.get(leaf).copied());
        let physical = meta.schema().leaf_element(leaf)?.physical_type?;
        let target = value_type(data_type);
        let nans = if target.is_floating() {
            s.nan_count
        } else {
            Some(0)
        };
        if physical == PhysicalType::Int96 {
            // Chronological bounds only under INT96_TIMESTAMP_ORDER (the spec: readers ignore
            // INT96 statistics under TYPE_ORDER).
            let bounds = match (order, s.min_value, s.max_value) {
                (Some(ColumnOrder::Int96TimestampOrder), Some(a), Some(b)) => {
                    int96_bound(a.slice(buf), target).zip(int96_bound(b.slice(buf), target))
                }
                _ => None,
            };
            return Some(ChunkStats {
                rows,
                nulls: s.null_count,
                bounds,
                nans,
                total_order: false,
                geo,
            });
        }
        // Under IEEE_754_TOTAL_ORDER the bounds are the non-NaN extremes by totalOrder (zeros
        // with their sign), NaN only when every non-null value is NaN.
        let total = order == Some(ColumnOrder::Ieee754TotalOrder)
            && matches!(physical, PhysicalType::Float | PhysicalType::Double);
        let signed_order = matches!(
            (physical, target),
            (PhysicalType::Int32 | PhysicalType::Int64, t)
                if t.is_signed_integer() || matches!(t, DataType::Date32 | DataType::Date64
                    | DataType::Time32(_) | DataType::Time64(_) | DataType::Timestamp(..)
                    | DataType::Duration(_)) || is_decimal(t)
        ) || matches!(
            physical,
            PhysicalType::Float | PhysicalType::Double | PhysicalType::Boolean
        );
        let (min, max) = match (s.min_value, s.max_value) {
            (Some(a), Some(b)) => (Some(a), Some(b)),
            _ if signed_order => (s.min, s.max),
            _ => (None, None),
        };
        let bounds = match (min, max) {
            (Some(a), Some(b)) => {
                let lo = stat_array(physical, a.slice(buf), target)?;
                let hi = stat_array(physical, b.slice(buf), target)?;
                match total {
                    // Rows compare as IEEE 754 (-0.0 == 0.0), bounds by totalOrder: with
                    // zeros (of bounds and literal, see `prune`) as +0.0, the two agree.
                    true => (!is_nan(&lo) && !is_nan(&hi))
                        .then(|| (positive_zero(lo), positive_zero(hi))),
                    false => usable_bounds(&lo, &hi).then_some((lo, hi)),
                }
            }
            _ => None,
        };
        Some(ChunkStats {
            rows,
            nulls: s.null_count,
            bounds,
            nans,
            total_order: total,
            geo,
        })
    }
}

/// Whether a one-element float array holds NaN.
pub(in crate::read) fn is_nan(a: &ArrayRef) -> bool {
    match a.data_type() {
        DataType::Float32 => a.as_primitive::<Float32Type>().value(0).is_nan(),
        DataType::Float64 => a.as_primitive::<Float64Type>().value(0).is_nan(),
        _ => false,
    }
}

/// A one-element float array with a zero as +0.0; other values as they are.
pub(in crate::read) fn positive_zero(a: ArrayRef) -> ArrayRef {
    match a.data_type() {
        DataType::Float32 if a.as_primitive::<Float32Type>().value(0) == 0.0 => {
            Arc::new(Float32Array::from_value(0.0, 1))
        }
        DataType::Float64 if a.as_primitive::<Float64Type>().value(0) == 0.0 => {
            Arc::new(Float64Array::from_value(0.0, 1))
        }
        _ => a,
    }
}

/// Julian day of 1970-01-01.
const JULIAN_EPOCH_DAY: i64 = 2_440_588;

/// An INT96 timestamp statistic (nanoseconds of the day in the first 8 bytes, Julian day in
/// the last 4, little-endian) as a one-element nanosecond timestamp array of `target`;
/// `None` for other targets (whose unit conversion would round the bound) or on overflow.
fn int96_bound(bytes: &[u8], target: &DataType) -> Option<ArrayRef> {
    let DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, tz) = target else {
        return None;
    };
    let nanos = i64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
    let days = i32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?);
    let v = (i64::from(days) - JULIAN_EPOCH_DAY)
        .checked_mul(86_400_000_000_000)?
        .checked_add(nanos)?;
    let a = arrow_array::TimestampNanosecondArray::from_value(v, 1).with_timezone_opt(tz.clone());
    Some(Arc::new(a))
}

/// Float bounds that are NaN or zero say nothing reliable.
pub(in crate::read) fn usable_bounds(lo: &ArrayRef, hi: &ArrayRef) -> bool {
    let bad = |a: &ArrayRef| match a.data_type() {
        DataType::Float32 => {
            let v = a.as_primitive::<Float32Type>().value(0);
            v.is_nan() || v == 0.0
        }
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>().value(0);
            v.is_nan() || v == 0.0
        }
        _ => false,
    };
    !bad(lo) && !bad(hi)
}

/// A statistics value (PLAIN bytes of `physical`) as a one-element array of `target` (Binary
/// for byte arrays); `None` where the value's order is not `target`'s or it is malformed.
pub(in crate::read) fn stat_array(
    physical: PhysicalType,
    bytes: &[u8],
    target: &DataType,
) -> Option<ArrayRef> {
    let raw = |width: usize, t: DataType| -> Option<ArrayRef> {
        // The common types made directly, without an `ArrayData` validated per bound.
        let exact = bytes.get(..width)?;
        match t {
            DataType::Int32 => {
                let v = i32::from_le_bytes(exact.try_into().ok()?);
                return Some(Arc::new(Int32Array::from_value(v, 1)));
            }
            DataType::Int64 => {
                let v = i64::from_le_bytes(exact.try_into().ok()?);
                return Some(Arc::new(Int64Array::from_value(v, 1)));
            }
            DataType::Float32 => {
                let v = f32::from_le_bytes(exact.try_into().ok()?);
                return Some(Arc::new(Float32Array::from_value(v, 1)));
            }
            DataType::Float64 => {
                let v = f64::from_le_bytes(exact.try_into().ok()?);
                return Some(Arc::new(Float64Array::from_value(v, 1)));
            }
            _ => {}
        }
        let b: [u8; 8] = {
            let mut out = [0u8; 8];
            out.get_mut(..width)?.copy_from_slice(bytes.get(..width)?);
            out
        };
        let data = ArrayData::builder(t)
            .len(1)
            .add_buffer(Buffer::from_slice_ref(&b[..width]))
            .build()
            .ok()?;
        Some(make_array(data))
    };
    match physical {
        PhysicalType::Boolean => {
            let b = *bytes.first()?;
            (target == &DataType::Boolean)
                .then(|| Arc::new(BooleanArray::from(vec![b != 0])) as ArrayRef)
        }
        PhysicalType::Int32 => match target {
            DataType::Int32 | DataType::UInt32 | DataType::Date32 | DataType::Time32(_) => {
                raw(4, target.clone())
            }
            DataType::Int8 | DataType::Int16 => {
                let a = raw(4, DataType::Int32)?;
                arrow_cast::cast(&a, target).ok()
            }
            DataType::UInt8 | DataType::UInt16 => {
                let a = raw(4, DataType::UInt32)?;
                arrow_cast::cast(&a, target).ok()
            }
            DataType::Decimal32(..) => raw(4, target.clone()),
            DataType::Decimal64(..) => {
                let v = i32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
                decimal(i128::from(v), target)
            }
            DataType::Decimal128(..) => {
                let v = i32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
                decimal(i128::from(v), target)
            }
            _ => None,
        },
        PhysicalType::Int64 => match target {
            DataType::Int64
            | DataType::UInt64
            | DataType::Date64
            | DataType::Time64(_)
            | DataType::Timestamp(..)
            | DataType::Duration(_)
            | DataType::Decimal64(..) => raw(8, target.clone()),
            DataType::Decimal128(..) => {
                let v = i64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
                decimal(i128::from(v), target)
            }
            _ => None,
        },
        PhysicalType::Float if target == &DataType::Float32 => raw(4, DataType::Float32),
        PhysicalType::Double if target == &DataType::Float64 => raw(8, DataType::Float64),
        PhysicalType::ByteArray => match target {
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView => Some(Arc::new(BinaryArray::from(vec![bytes])) as ArrayRef),
            _ => None,
        },
        _ => None,
    }
}

/// The unscaled `v` as a one-element decimal array of `target`.
fn decimal(v: i128, target: &DataType) -> Option<ArrayRef> {
    match target {
        DataType::Decimal128(p, s) => arrow_array::Decimal128Array::from(vec![v])
            .with_precision_and_scale(*p, *s)
            .ok()
            .map(|d| Arc::new(d) as ArrayRef),
        DataType::Decimal64(p, s) => {
            arrow_array::Decimal64Array::from(vec![i64::try_from(v).ok()?])
                .with_precision_and_scale(*p, *s)
                .ok()
                .map(|d| Arc::new(d) as ArrayRef)
        }
        _ => None,
    }
}
