//! The Bloom filters a bound predicate ([`BoundFilter`]) uses: the filters of its `=` and
//! `IN` columns (not under a negation) to read, and whether a row group may hold a row by
//! them: a literal none of whose hashes is in its column's filter rules the row group out
//! for that comparison. The literal is hashed as the PLAIN encoding of the column's
//! physical type (see the `bind` module documentation for the types that use none).

use std::cell::OnceCell;
use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::ArrayRef;
use arrow_schema::DataType;

use crate::bloom::Sbbf;
use crate::format::metadata::{FileMetaData, PhysicalType};
use crate::read::filter::bind::{rules_out, BoundFilter, Node};
use crate::read::filter::predicate::CmpOp;

impl BoundFilter {
    /// The Bloom filters of row group `rg` the predicate can use (for `=` and `IN`): the
    /// bound column and the filter's file range. A chunk without `bloom_filter_length`
    /// (parquet-mr before 1.13 writes none) gives the bytes up to the next structure the
    /// footer locates ([`structure_starts`] of a file of `file_len` bytes, found once in
    /// `starts` when first needed), at most [`MAX_UNSIZED_BLOOM`].
    pub(crate) fn bloom_ranges(
        &self,
        meta: &FileMetaData,
        rg: usize,
        file_len: u64,
        starts: &OnceCell<Vec<u64>>,
    ) -> Vec<(usize, usize, Range<u64>)> {
        let mut cols = Vec::new();
        equality_columns(&self.node, false, &mut cols);
        let Some(group) = meta.row_groups().get(rg) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for col in cols {
            let Some(leaf) = self.columns[col].at.leaf else {
                continue;
            };
            let Some(chunk) = group.columns().get(leaf) else {
                continue;
            };
            let Some(Ok(o)) = chunk.bloom_filter_offset().map(u64::try_from) else {
                continue;
            };
            let len = match chunk.bloom_filter_length().map(u64::try_from) {
                Some(Ok(l)) => l,
                Some(Err(_)) => continue,
                None => {
                    let starts = starts.get_or_init(|| structure_starts(meta, file_len));
                    let next = starts.get(starts.partition_point(|&s| s <= o));
                    next.map_or(0, |n| (n - o).min(MAX_UNSIZED_BLOOM))
                }
            };
            if len > 0 && !out.iter().any(|(c, _, _)| *c == col) {
                out.push((col, leaf, o..o.saturating_add(len)));
            }
        }
        out
    }

    /// Whether a row group may hold a row the predicate keeps, by the Bloom filters
    /// `filters` gives of its columns (by bound column).
    pub(crate) fn bloom_may_match<'a>(
        &self,
        meta: &FileMetaData,
        filters: &dyn Fn(usize) -> Option<&'a Sbbf>,
    ) -> bool {
        bloom_prune(&self.node, false, &|col: usize, value: &ArrayRef| {
            let c = &self.columns[col];
            let physical = meta.schema().leaf_element(c.at.leaf?)?.physical_type?;
            let hash = literal_hash(value, physical)?;
            Some(filters(col)?.check_hash(hash))
        }) != Some(false)
    }
}

/// The most bytes read for a Bloom filter whose length the chunk does not give (16 MiB:
/// parquet-mr writes at most 1 MiB by default); a longer filter goes unused.
pub(crate) const MAX_UNSIZED_BLOOM: u64 = 16 << 20;

/// Where the structures the footer locates start (pages, indexes, Bloom filters), and the
/// file's tail (`file_len - 8`), sorted: the end of a Bloom filter of unknown length is at
/// most the first of them after it.
fn structure_starts(meta: &FileMetaData, file_len: u64) -> Vec<u64> {
    let mut starts: Vec<u64> = meta
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .flat_map(|c| {
            [
                Some(c.data_page_offset()),
                c.dictionary_page_offset(),
                c.index_page_offset(),
                c.column_index_offset(),
                c.offset_index_offset(),
                c.bloom_filter_offset(),
            ]
        })
        .flatten()
        .filter_map(|o| u64::try_from(o).ok())
        .collect();
    starts.push(file_len.saturating_sub(8));
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// The bound columns `node` compares for equality (where it is not negated).
fn equality_columns(node: &Node, negate: bool, out: &mut Vec<usize>) {
    match node {
        Node::Not(a) => equality_columns(a, !negate, out),
        Node::And(a, b) | Node::Or(a, b) => {
            equality_columns(a, negate, out);
            equality_columns(b, negate, out);
        }
        Node::Cmp {
            col,
            op,
            value: Some(_),
        } if (*op == CmpOp::Eq) != negate
            && matches!(op, CmpOp::Eq | CmpOp::NotEq)
            && !out.contains(col) =>
        {
            out.push(*col);
        }
        _ => {}
    }
}

/// Like [`prune`], by Bloom filters: `contains(col, value)` says whether the column's filter
/// may hold the value (`None`: no filter). `Some(false)` when no row can satisfy `node`.
fn bloom_prune(
    node: &Node,
    negate: bool,
    contains: &dyn Fn(usize, &ArrayRef) -> Option<bool>,
) -> Option<bool> {
    match node {
        Node::Not(a) => bloom_prune(a, !negate, contains),
        Node::And(a, b) | Node::Or(a, b) => {
            let both = matches!(node, Node::And(..)) != negate;
            let (x, y) = (
                bloom_prune(a, negate, contains),
                bloom_prune(b, negate, contains),
            );
            rules_out(both, x, y)
        }
        Node::Cmp { col, op, value } => {
            let eq = (*op == CmpOp::Eq && !negate) || (*op == CmpOp::NotEq && negate);
            match (eq, value) {
                (true, Some(v)) => contains(*col, v).filter(|c| !c),
                _ => None,
            }
        }
        Node::VariantCmp { .. } | Node::IsNull { .. } | Node::Bbox { .. } => None,
    }
}

/// The Bloom filter hash of a one-element literal of a column of `physical` type (its PLAIN
/// encoding); `None` where the filter cannot say (zero and NaN floats, types without one).
fn literal_hash(value: &ArrayRef, physical: PhysicalType) -> Option<u64> {
    use crate::bloom::{hash_bytes, hash_f32, hash_f64, hash_i32, hash_i64};
    let int = |t: DataType| arrow_cast::cast(value, &t).ok();
    match (physical, value.data_type()) {
        (PhysicalType::Int32, DataType::UInt8 | DataType::UInt16 | DataType::UInt32) => {
            let a = int(DataType::UInt32)?;
            Some(hash_i32(
                a.as_primitive::<arrow_array::types::UInt32Type>().value(0) as i32,
            ))
        }
        // Dates are days in both; times and timestamps may be stored in another unit than
        // the Arrow type's (pyarrow stores seconds as milliseconds), so they use no filter.
        (PhysicalType::Int32, t) if t.is_integer() || *t == DataType::Date32 => {
            let a = int(DataType::Int32)?;
            Some(hash_i32(
                a.as_primitive::<arrow_array::types::Int32Type>().value(0),
            ))
        }
        (PhysicalType::Int64, DataType::UInt64) => {
            let v = value
                .as_primitive::<arrow_array::types::UInt64Type>()
                .value(0);
            Some(hash_i64(v as i64))
        }
        (PhysicalType::Int64, t) if t.is_integer() => {
            let a = int(DataType::Int64)?;
            Some(hash_i64(
                a.as_primitive::<arrow_array::types::Int64Type>().value(0),
            ))
        }
        (PhysicalType::Int32 | PhysicalType::Int64, DataType::Decimal128(..)) => {
            let v = value
                .as_primitive::<arrow_array::types::Decimal128Type>()
                .value(0);
            match physical {
                PhysicalType::Int32 => Some(hash_i32(i32::try_from(v).ok()?)),
                _ => Some(hash_i64(i64::try_from(v).ok()?)),
            }
        }
        (PhysicalType::Float, DataType::Float32) => {
            let v = value.as_primitive::<Float32Type>().value(0);
            (v != 0.0 && !v.is_nan()).then(|| hash_f32(v))
        }
        (PhysicalType::Double, DataType::Float64) => {
            let v = value.as_primitive::<Float64Type>().value(0);
            (v != 0.0 && !v.is_nan()).then(|| hash_f64(v))
        }
        (PhysicalType::ByteArray, _) => {
            let b = arrow_cast::cast(value, &DataType::Binary).ok()?;
            Some(hash_bytes(b.as_binary::<i32>().value(0)))
        }
        _ => None,
    }
}
