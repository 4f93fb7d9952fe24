//! `Statistics` of a column chunk or page: min/max as [`ByteRange`]s into the owner's buffer
//! (plain-encoded physical values), counts as integers.

use super::{Arena, ByteRange, StructWriter, UnknownFields};
use crate::error::Result;
use crate::thrift::{wire, Reader, Writer};

/// `Statistics`. Min/max values are plain-encoded physical values (for BYTE_ARRAY the bytes
/// without length prefix) inside the owner's buffer.
///
/// ```thrift
/// struct Statistics {
///    1: optional binary max;            // deprecated, signed order
///    2: optional binary min;            // deprecated, signed order
///    3: optional i64 null_count;
///    4: optional i64 distinct_count;
///    5: optional binary max_value;
///    6: optional binary min_value;
///    7: optional bool is_max_value_exact;
///    8: optional bool is_min_value_exact;
///    9: optional i64 nan_count;         // FLOAT, DOUBLE, FLOAT16 only
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Field 1, `max` (deprecated).
    pub max: Option<ByteRange>,
    /// Field 2, `min` (deprecated).
    pub min: Option<ByteRange>,
    /// Field 3, `null_count`.
    pub null_count: Option<i64>,
    /// Field 4, `distinct_count`.
    pub distinct_count: Option<i64>,
    /// Field 5, `max_value`.
    pub max_value: Option<ByteRange>,
    /// Field 6, `min_value`.
    pub min_value: Option<ByteRange>,
    /// Field 7, `is_max_value_exact`.
    pub is_max_value_exact: Option<bool>,
    /// Field 8, `is_min_value_exact`.
    pub is_min_value_exact: Option<bool>,
    /// Field 9, `nan_count` (format 2.12): NaN values among the non-null values of a FLOAT,
    /// DOUBLE or FLOAT16 column. Absent means NaNs may be present.
    pub nan_count: Option<i64>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

/// Keeps the binary at the reader's position: copied into `arena` when given (reusing the
/// previous value's bytes when they are equal, as for `min` and `min_value`), else as a range
/// of the reader's buffer.
#[inline]
pub(crate) fn keep_binary(
    r: &mut Reader<'_>,
    arena: &mut Option<&mut Arena>,
    dedupe_with: Option<ByteRange>,
) -> Result<ByteRange> {
    let (start, len) = r.read_binary_range()?;
    match arena {
        None => Ok(ByteRange::new(start, len)),
        Some(a) => {
            let bytes = &r.buf()[start..start + len];
            if let Some(prev) = dedupe_with {
                if prev.len as usize == len && prev.slice(a.as_slice()) == bytes {
                    return Ok(prev);
                }
            }
            Ok(a.push(bytes))
        }
    }
}

impl Statistics {
    const NAME: &'static str = "Statistics";

    /// Decodes a `Statistics` struct. Byte values are copied into `arena` when given, else
    /// kept as ranges of `r`'s buffer.
    pub fn decode(r: &mut Reader<'_>, mut arena: Option<&mut Arena>) -> Result<Self> {
        let mut s = Statistics::default();
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::BINARY) => keep_binary(r, &mut arena, s.max_value).map(|v| s.max = Some(v)),
            (2, wire::BINARY) => keep_binary(r, &mut arena, s.min_value).map(|v| s.min = Some(v)),
            (3, wire::I64) => r.read_i64().map(|v| s.null_count = Some(v)),
            (4, wire::I64) => r.read_i64().map(|v| s.distinct_count = Some(v)),
            (5, wire::BINARY) => keep_binary(r, &mut arena, s.max).map(|v| s.max_value = Some(v)),
            (6, wire::BINARY) => keep_binary(r, &mut arena, s.min).map(|v| s.min_value = Some(v)),
            (7, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                s.is_max_value_exact = Some(ty == wire::BOOL_TRUE);
                Ok(())
            }
            (8, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                s.is_min_value_exact = Some(ty == wire::BOOL_TRUE);
                Ok(())
            }
            (9, wire::I64) => r.read_i64().map(|v| s.nan_count = Some(v)),
            _ => s.unknown.keep(r, arena.as_deref_mut(), id, ty),
        })?;
        r.leave();
        Ok(s)
    }

    /// Encodes this struct; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        if let Some(v) = self.max {
            s.binary(w, 1, v.slice(buf));
        }
        if let Some(v) = self.min {
            s.binary(w, 2, v.slice(buf));
        }
        if let Some(v) = self.null_count {
            s.i64(w, 3, v);
        }
        if let Some(v) = self.distinct_count {
            s.i64(w, 4, v);
        }
        if let Some(v) = self.max_value {
            s.binary(w, 5, v.slice(buf));
        }
        if let Some(v) = self.min_value {
            s.binary(w, 6, v.slice(buf));
        }
        if let Some(v) = self.is_max_value_exact {
            s.bool(w, 7, v);
        }
        if let Some(v) = self.is_min_value_exact {
            s.bool(w, 8, v);
        }
        if let Some(v) = self.nan_count {
            s.i64(w, 9, v);
        }
        s.end(w);
    }
}
