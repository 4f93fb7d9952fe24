//! Chunk and page statistics as bounds a filter can prune with ([`ChunkStats`]): the PLAIN
//! bytes of a statistics value as a one-element array of the column's value type (Binary for
//! byte arrays), used only where the statistics' order is the column's (see `filter`).

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

use crate::format::metadata::{BoundingBox, ColumnChunk, FileMetaData, PhysicalType};

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
                geo: Some(g),
            });
        };
        let physical = meta.schema().leaf_element(leaf)?.physical_type?;
        let target = value_type(data_type);
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
                usable_bounds(&lo, &hi).then_some((lo, hi))
            }
            _ => None,
        };
        Some(ChunkStats {
            rows,
            nulls: s.null_count,
            bounds,
            geo,
        })
    }
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
