//! Statistics for DataFusion's planner, from the footers of the row groups a scan reads:
//! rows (exact without a filter), bytes, and per column the null count and the min / max of
//! the chunk statistics (inexact: writers may truncate or widen them).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue, Statistics};
use parq::format::metadata::FileMetaData;
use parq::schema::{column_statistics, StatValue};

/// What the statistics of a scan are taken from: each file's footer and the row groups read
/// of it.
pub type Selection<'a> = &'a [(Arc<FileMetaData>, Vec<usize>)];

/// The statistics of reading `groups` into batches of `schema` (the scan's output columns;
/// those that are not top-level primitive columns of the files get unknown statistics).
/// With `filtered`, the row count is an upper bound.
pub fn statistics(groups: Selection<'_>, schema: &Schema, filtered: bool) -> Statistics {
    let mut rows = 0usize;
    let mut bytes = 0usize;
    let mut columns: Vec<Column> = schema.fields().iter().map(|_| Column::default()).collect();
    for (meta, row_groups) in groups {
        let top_level = top_level_leaves(meta);
        let leaves: Vec<Option<usize>> = schema
            .fields()
            .iter()
            .map(|f| top_level.get(f.name().as_bytes()).copied())
            .collect();
        for &g in row_groups {
            let Some(rg) = meta.row_groups().get(g) else {
                continue;
            };
            rows += usize::try_from(rg.num_rows()).unwrap_or(0);
            for ((field, leaf), column) in schema.fields().iter().zip(&leaves).zip(&mut columns) {
                let Some(leaf) = *leaf else {
                    column.known = false;
                    continue;
                };
                if let Some(chunk) = rg.columns().get(leaf) {
                    let size = usize::try_from(chunk.total_uncompressed_size()).unwrap_or(0);
                    bytes += size;
                    column.bytes += size;
                }
                match column_statistics(meta, g, leaf) {
                    Ok(Some(stats)) => {
                        column.add_nulls(stats.null_count);
                        let lo = stats.min.and_then(|v| scalar(v, field.data_type()));
                        let hi = stats.max.and_then(|v| scalar(v, field.data_type()));
                        column.add_bounds(lo, hi);
                    }
                    _ => column.known = false,
                }
            }
        }
    }
    let exact = |v: usize| match filtered {
        true => Precision::Inexact(v),
        false => Precision::Exact(v),
    };
    Statistics {
        num_rows: exact(rows),
        total_byte_size: Precision::Inexact(bytes),
        column_statistics: columns.into_iter().map(|c| c.finish(filtered)).collect(),
    }
}

/// The leaf of each top-level primitive column of a file, by name (one pass over the leaves,
/// however wide the file).
fn top_level_leaves(meta: &FileMetaData) -> HashMap<&[u8], usize> {
    let schema = meta.schema();
    (0..schema.leaves().len())
        .filter_map(|leaf| {
            let mut path = schema.leaf_path(leaf);
            let name = path.next()?;
            path.next().is_none().then_some((name, leaf))
        })
        .collect()
}

/// One column's statistics, summed over chunks.
#[derive(Debug)]
struct Column {
    /// Every chunk so far had its null count and bounds.
    known: bool,
    nulls: usize,
    nulls_known: bool,
    min: Option<ScalarValue>,
    max: Option<ScalarValue>,
    bytes: usize,
}

impl Default for Column {
    fn default() -> Self {
        Column {
            known: true,
            nulls: 0,
            nulls_known: true,
            min: None,
            max: None,
            bytes: 0,
        }
    }
}

impl Column {
    fn add_nulls(&mut self, nulls: Option<i64>) {
        match nulls.and_then(|n| usize::try_from(n).ok()) {
            Some(n) => self.nulls += n,
            None => self.nulls_known = false,
        }
    }

    fn add_bounds(&mut self, lo: Option<ScalarValue>, hi: Option<ScalarValue>) {
        let (Some(lo), Some(hi)) = (lo, hi) else {
            self.known = false;
            return;
        };
        let lower = |a: &ScalarValue, b: &ScalarValue| a.partial_cmp(b).map(|o| o.is_lt());
        self.min = match self.min.take() {
            Some(m) if lower(&m, &lo) == Some(true) => Some(m),
            Some(m) if lower(&m, &lo).is_none() => {
                self.known = false;
                Some(m)
            }
            _ => Some(lo),
        };
        self.max = match self.max.take() {
            Some(m) if lower(&hi, &m) == Some(true) => Some(m),
            Some(m) if lower(&hi, &m).is_none() => {
                self.known = false;
                Some(m)
            }
            _ => Some(hi),
        };
    }

    fn finish(self, filtered: bool) -> ColumnStatistics {
        let bound = |v: Option<ScalarValue>| match (self.known, v) {
            (true, Some(v)) => Precision::Inexact(v),
            _ => Precision::Absent,
        };
        ColumnStatistics {
            null_count: match (self.nulls_known && self.known, filtered) {
                (true, false) => Precision::Exact(self.nulls),
                (true, true) => Precision::Inexact(self.nulls),
                _ => Precision::Absent,
            },
            min_value: bound(self.min),
            max_value: bound(self.max),
            sum_value: Precision::Absent,
            distinct_count: Precision::Absent,
            byte_size: match self.known {
                true => Precision::Inexact(self.bytes),
                false => Precision::Absent,
            },
        }
    }
}

/// A chunk bound as a value of the column's Arrow type, where the two agree.
fn scalar(v: StatValue<'_>, ty: &DataType) -> Option<ScalarValue> {
    Some(match (v, ty) {
        (StatValue::Boolean(b), DataType::Boolean) => ScalarValue::Boolean(Some(b)),
        (StatValue::Int32(v), DataType::Int8) => ScalarValue::Int8(Some(i8::try_from(v).ok()?)),
        (StatValue::Int32(v), DataType::Int16) => ScalarValue::Int16(Some(i16::try_from(v).ok()?)),
        (StatValue::Int32(v), DataType::Int32) => ScalarValue::Int32(Some(v)),
        (StatValue::Int32(v), DataType::Date32) => ScalarValue::Date32(Some(v)),
        (StatValue::Int64(v), DataType::Int64) => ScalarValue::Int64(Some(v)),
        (StatValue::Int32(v), DataType::Decimal128(p, s)) => {
            ScalarValue::Decimal128(Some(i128::from(v)), *p, *s)
        }
        (StatValue::Int64(v), DataType::Decimal128(p, s)) => {
            ScalarValue::Decimal128(Some(i128::from(v)), *p, *s)
        }
        (StatValue::Bytes(b), DataType::Decimal128(p, s)) => {
            ScalarValue::Decimal128(Some(be_i128(b)?), *p, *s)
        }
        (StatValue::UInt32(v), DataType::UInt32) => ScalarValue::UInt32(Some(v)),
        (StatValue::UInt64(v), DataType::UInt64) => ScalarValue::UInt64(Some(v)),
        (StatValue::Float(v), DataType::Float32) => ScalarValue::Float32(Some(v)),
        (StatValue::Double(v), DataType::Float64) => ScalarValue::Float64(Some(v)),
        (StatValue::Bytes(b), DataType::Utf8) => ScalarValue::Utf8(Some(utf8(b)?)),
        (StatValue::Bytes(b), DataType::LargeUtf8) => ScalarValue::LargeUtf8(Some(utf8(b)?)),
        (StatValue::Bytes(b), DataType::Utf8View) => ScalarValue::Utf8View(Some(utf8(b)?)),
        (StatValue::Bytes(b), DataType::Binary) => ScalarValue::Binary(Some(b.to_vec())),
        (StatValue::Bytes(b), DataType::BinaryView) => ScalarValue::BinaryView(Some(b.to_vec())),
        _ => return None,
    })
}

fn utf8(b: &[u8]) -> Option<String> {
    std::str::from_utf8(b).ok().map(str::to_owned)
}

/// A big-endian two's-complement integer of 1 to 16 bytes.
fn be_i128(b: &[u8]) -> Option<i128> {
    let first = *b.first()?;
    if b.len() > 16 {
        return None;
    }
    let fill = if first & 0x80 != 0 { 0xff } else { 0 };
    let mut bytes = [fill; 16];
    bytes.get_mut(16 - b.len()..)?.copy_from_slice(b);
    Some(i128::from_be_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_endian_decimals() {
        assert_eq!(be_i128(&[0x01, 0x00]), Some(256));
        assert_eq!(be_i128(&[0xff, 0x38]), Some(-200));
        assert_eq!(be_i128(&[]), None);
    }
}
