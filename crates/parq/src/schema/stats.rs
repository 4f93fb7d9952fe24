//! Typed column chunk statistics for pruning: the plain-encoded min/max bytes of a
//! `Statistics` turned into [`StatValue`]s of the column's physical and logical type, with the
//! trust rules of parquet-cpp (`MakeColumnStats` and `ApplicationVersion::
//! HasCorrectStatistics`):
//!
//! - a column whose `column_orders` entry is `TYPE_ORDER` uses `min_value`/`max_value`;
//!   otherwise the deprecated `min`/`max`, which older writers computed with signed
//!   comparison, and only for signed sort orders;
//! - a FLOAT, DOUBLE or FLOAT16 column under `IEEE_754_TOTAL_ORDER` uses `min_value`/
//!   `max_value`, ordered by IEEE 754 totalOrder (NaN bounds only when every non-null value
//!   is NaN); the order on another type says nothing (pyarrow 26 reads no min/max there);
//! - an INT96 column has min/max only under `INT96_TIMESTAMP_ORDER` (as the spec says:
//!   under `TYPE_ORDER` readers ignore them); other columns without a defined sort order
//!   (INTERVAL, geospatial) have none;
//! - `nan_count` is taken as written; absent, NaNs may be present;
//! - parquet-mr before 1.10.0 and parquet-cpp before 1.3.0 wrote wrong statistics for
//!   non-signed orders (unless min == max) and for all binary columns; parquet-mr before 1.8.0
//!   (PARQUET-251) for every column. Files without `created_by` are trusted, as in
//!   parquet-cpp.

use parq_format::metadata::{
    ColumnChunk, ColumnOrder, FileMetaData, PhysicalType, SchemaElement, Statistics,
};

use super::annotation::{self, Annotation, SortOrder};
use crate::Result;

/// A typed min or max statistic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StatValue<'a> {
    /// BOOLEAN.
    Boolean(bool),
    /// INT32 (signed annotations, DATE, TIME(MILLIS), DECIMAL, none).
    Int32(i32),
    /// INT64 (signed annotations, TIMESTAMP, TIME, DECIMAL, none).
    Int64(i64),
    /// INT32 annotated unsigned (UINT_8/16/32, INTEGER(n, false)).
    UInt32(u32),
    /// INT64 annotated unsigned.
    UInt64(u64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// FIXED_LEN_BYTE_ARRAY(2) annotated FLOAT16, widened to f32.
    Float16(f32),
    /// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (strings, binary, UUID, big-endian decimals).
    Bytes(&'a [u8]),
}

/// The typed statistics of a column chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedStatistics<'a> {
    /// The minimum, when present and trustworthy.
    pub min: Option<StatValue<'a>>,
    /// The maximum, when present and trustworthy.
    pub max: Option<StatValue<'a>>,
    /// `null_count`.
    pub null_count: Option<i64>,
    /// `distinct_count`.
    pub distinct_count: Option<i64>,
    /// `is_min_value_exact` (only meaningful for `min_value`).
    pub is_min_exact: Option<bool>,
    /// `is_max_value_exact`.
    pub is_max_exact: Option<bool>,
    /// `nan_count` (FLOAT, DOUBLE, FLOAT16); `None`: NaNs may be present.
    pub nan_count: Option<i64>,
    /// True when the min and max follow IEEE 754 totalOrder (`IEEE_754_TOTAL_ORDER`).
    pub total_order: bool,
    /// The sort order the min and max follow.
    pub sort_order: SortOrder,
}

/// What decides how a column's statistics are read.
#[derive(Debug, Clone, Copy)]
pub struct StatsContext<'a> {
    /// Physical type of the column.
    pub physical: PhysicalType,
    /// Resolved annotation ([`annotation::resolve`]).
    pub annotation: Annotation,
    /// FIXED_LEN_BYTE_ARRAY length.
    pub type_length: i32,
    /// The column's entry of `FileMetaData.column_orders`, when the footer has them.
    pub column_order: Option<ColumnOrder>,
    /// `FileMetaData.created_by`.
    pub created_by: Option<&'a str>,
}

impl<'a> StatsContext<'a> {
    /// True for FLOAT, DOUBLE and FLOAT16 columns (those `nan_count` and
    /// `IEEE_754_TOTAL_ORDER` apply to).
    pub fn is_float(&self) -> bool {
        matches!(self.physical, PhysicalType::Float | PhysicalType::Double)
            || (self.physical == PhysicalType::FixedLenByteArray
                && self.annotation == Annotation::Float16)
    }

    /// The context of leaf column `leaf` of `meta`.
    pub fn for_leaf(meta: &'a FileMetaData, leaf: usize) -> Result<StatsContext<'a>> {
        let schema = meta.schema();
        let e: &SchemaElement = schema.leaf_element(leaf).ok_or_else(|| {
            crate::Error::new(crate::ErrorKind::OutOfBounds {
                what: "leaf column",
                index: leaf as u64,
                len: schema.num_columns() as u64,
            })
        })?;
        let physical = e
            .physical_type
            .ok_or_else(|| annotation::schema_error("a leaf without a physical type"))?;
        Ok(StatsContext {
            physical,
            annotation: annotation::resolve(e)?,
            type_length: e.type_length.unwrap_or(0),
            column_order: meta
                .column_orders
                .as_ref()
                .and_then(|o| o.get(leaf).copied()),
            created_by: meta
                .created_by
                .map(|r| meta.bytes(r))
                .and_then(|b| std::str::from_utf8(b).ok()),
        })
    }
}

/// A writer's application and version, parsed from `created_by` as parquet-cpp does.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AppVersion {
    application: String,
    version: (u32, u32, u32),
}

impl AppVersion {
    fn parse(created_by: Option<&str>) -> AppVersion {
        let Some(s) = created_by else {
            return AppVersion {
                application: "unknown".into(),
                version: (0, 0, 0),
            };
        };
        let (app, rest) = match s.find("version") {
            Some(i) => (&s[..i], &s[i + "version".len()..]),
            None => (s, ""),
        };
        let mut nums = rest
            .trim_start()
            .split(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("")
            .split(['.', '-'])
            .map(|p| p.parse::<u32>().unwrap_or(0));
        AppVersion {
            application: app.trim().to_string(),
            version: (
                nums.next().unwrap_or(0),
                nums.next().unwrap_or(0),
                nums.next().unwrap_or(0),
            ),
        }
    }

    fn lt(&self, app: &str, v: (u32, u32, u32)) -> bool {
        self.application == app && self.version < v
    }

    /// `ApplicationVersion::HasCorrectStatistics`.
    fn has_correct_statistics(
        &self,
        physical: PhysicalType,
        min_equals_max: bool,
        order: SortOrder,
    ) -> bool {
        if self.lt("parquet-cpp", (1, 3, 0)) || self.lt("parquet-mr", (1, 10, 0)) {
            if order != SortOrder::Signed && !min_equals_max {
                return false;
            }
            if !matches!(
                physical,
                PhysicalType::FixedLenByteArray | PhysicalType::ByteArray
            ) {
                return true;
            }
        }
        if self.application == "unknown" {
            return true;
        }
        if order == SortOrder::Unknown {
            return false;
        }
        !self.lt("parquet-mr", (1, 8, 0))
    }
}

/// False for the writers whose `min_value` / `max_value` statistics readers do not take
/// as they are (parquet-mr before 1.10.0, parquet-cpp before 1.3.0: see the
/// [module documentation](self)).
pub(crate) fn trusted_writer(created_by: Option<&str>) -> bool {
    let v = AppVersion::parse(created_by);
    !(v.lt("parquet-cpp", (1, 3, 0)) || v.lt("parquet-mr", (1, 10, 0)))
}

fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f32::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 if frac == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Decodes one plain-encoded statistic of a column described by `ctx`; `None` when its
/// length does not fit the type.
pub fn decode_value<'a>(bytes: &'a [u8], ctx: &StatsContext<'_>) -> Option<StatValue<'a>> {
    use PhysicalType as P;
    let unsigned = matches!(ctx.annotation, Annotation::Integer { signed: false, .. });
    Some(match ctx.physical {
        P::Boolean => StatValue::Boolean(bytes.first()? & 1 == 1),
        P::Int32 => {
            let v = i32::from_le_bytes(bytes.try_into().ok()?);
            if unsigned {
                StatValue::UInt32(v as u32)
            } else {
                StatValue::Int32(v)
            }
        }
        P::Int64 => {
            let v = i64::from_le_bytes(bytes.try_into().ok()?);
            if unsigned {
                StatValue::UInt64(v as u64)
            } else {
                StatValue::Int64(v)
            }
        }
        P::Float => StatValue::Float(f32::from_le_bytes(bytes.try_into().ok()?)),
        P::Double => StatValue::Double(f64::from_le_bytes(bytes.try_into().ok()?)),
        P::FixedLenByteArray if ctx.annotation == Annotation::Float16 => {
            StatValue::Float16(f16_to_f32(u16::from_le_bytes(bytes.try_into().ok()?)))
        }
        P::FixedLenByteArray => {
            if usize::try_from(ctx.type_length).ok()? != bytes.len() {
                return None;
            }
            StatValue::Bytes(bytes)
        }
        P::ByteArray => StatValue::Bytes(bytes),
        P::Int96 | P::Unknown(_) => return None,
    })
}

/// The plain-encoded min and max of `stats` (byte ranges into `buf`) that the trust rules of
/// the [module documentation](self) let readers use for a column described by `ctx`:
/// `min_value`/`max_value` or the legacy `min`/`max`, or `None` when neither may be used.
pub fn trusted_bounds<'a>(
    stats: &Statistics,
    buf: &'a [u8],
    ctx: &StatsContext<'_>,
) -> Option<(&'a [u8], &'a [u8])> {
    let order = annotation::sort_order(ctx.physical, ctx.annotation);
    let (min, max) = if ctx.column_order == Some(ColumnOrder::Ieee754TotalOrder) {
        if !ctx.is_float() {
            return None;
        }
        (stats.min_value, stats.max_value)
    } else if ctx.physical == PhysicalType::Int96 {
        if ctx.column_order != Some(ColumnOrder::Int96TimestampOrder) {
            return None;
        }
        return Some((stats.min_value?.slice(buf), stats.max_value?.slice(buf)));
    } else if ctx.column_order == Some(ColumnOrder::TypeDefined) {
        (stats.min_value, stats.max_value)
    } else if order == SortOrder::Signed {
        (stats.min, stats.max)
    } else {
        // The legacy fields were computed with signed comparison.
        (None, None)
    };
    let (min, max) = (min?.slice(buf), max?.slice(buf));
    let app = AppVersion::parse(ctx.created_by);
    if order == SortOrder::Unknown || !app.has_correct_statistics(ctx.physical, min == max, order) {
        return None;
    }
    Some((min, max))
}

/// Types the min/max of `stats` (byte ranges into `buf`) for a column described by `ctx`.
pub fn typed_statistics<'a>(
    stats: &Statistics,
    buf: &'a [u8],
    ctx: &StatsContext<'_>,
) -> TypedStatistics<'a> {
    let mut out = TypedStatistics {
        min: None,
        max: None,
        null_count: stats.null_count,
        distinct_count: stats.distinct_count,
        is_min_exact: stats.is_min_value_exact,
        is_max_exact: stats.is_max_value_exact,
        nan_count: stats.nan_count,
        total_order: ctx.column_order == Some(ColumnOrder::Ieee754TotalOrder) && ctx.is_float(),
        sort_order: annotation::sort_order(ctx.physical, ctx.annotation),
    };
    let Some((min, max)) = trusted_bounds(stats, buf, ctx) else {
        return out;
    };
    if let (Some(lo), Some(hi)) = (decode_value(min, ctx), decode_value(max, ctx)) {
        out.min = Some(lo);
        out.max = Some(hi);
    }
    out
}

/// The chunk of leaf column `leaf` in row group `row_group` of `meta` (which may have been
/// decoded with a column selection).
fn chunk_of(meta: &FileMetaData, row_group: usize, leaf: usize) -> Option<&ColumnChunk> {
    let rg = meta.row_groups().get(row_group)?;
    let pos = match meta.selection.as_ref().and_then(|s| s.columns.as_ref()) {
        Some(cols) => cols.iter().position(|&c| c == leaf)?,
        None => leaf,
    };
    rg.columns().get(pos)
}

/// The typed statistics of leaf column `leaf` in row group `row_group` of `meta`; `None`
/// when the chunk (or its statistics) is absent.
pub fn column_statistics(
    meta: &FileMetaData,
    row_group: usize,
    leaf: usize,
) -> Result<Option<TypedStatistics<'_>>> {
    let ctx = StatsContext::for_leaf(meta, leaf)?;
    let Some(stats) = chunk_of(meta, row_group, leaf).and_then(ColumnChunk::statistics) else {
        return Ok(None);
    };
    Ok(Some(typed_statistics(&stats, meta.buf(), &ctx)))
}
