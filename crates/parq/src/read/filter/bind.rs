//! A [`Predicate`] bound to a read ([`BoundFilter`]): its literals converted to their
//! columns' Arrow types (an error before any data is read when one cannot be), evaluated on
//! decoded batches (exactly, SQL three-valued logic: a row is kept where the predicate is
//! true), and against a row group's chunk statistics, to skip row groups no row of which it
//! can keep.
//!
//! Floats compare as IEEE 754 does (and as pyarrow): NaN is neither smaller, larger nor equal
//! to anything, and -0.0 equals 0.0. Statistics are used only where their order is the
//! column's: the deprecated `min` / `max` only for signed integers, floats and booleans
//! (writers ordered byte arrays and unsigned integers as signed there), `min_value` /
//! `max_value` for every type but fixed-length decimals and float16, and for INT96 (read as
//! nanosecond timestamps) only under `INT96_TIMESTAMP_ORDER`; byte-array bounds compare as
//! bytes (a truncated bound still bounds); float bounds that are NaN, or zero under
//! `TYPE_ORDER`, and NaN literals, prune nothing. Float bounds exclude NaN, so `nan_count`
//! decides the terms a NaN satisfies (`!=`, and any comparison under NOT): a chunk without
//! `nan_count`, or with NaNs, keeps them; a chunk whose non-null values are all NaN holds no
//! row for the other comparisons. With the column index, the same holds page by page: the rows
//! of the pages no row of which the predicate can keep are left out of the read.
//!
//! Bloom filters rule a row group out for `=` and `IN` (not under a negation) when none of
//! the literals' hashes is in the column's filter: the literal hashed as the PLAIN encoding
//! of the column's physical type (integers, dates and INT32 / INT64 decimals by value,
//! floats except zeros and NaN, byte arrays by their bytes); times and timestamps, whose
//! stored unit may differ from the Arrow type's, and other types use none.

use std::cell::OnceCell;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{
    downcast_primitive_array, make_array, Array, ArrayRef, ArrowNativeTypeOp, ArrowPrimitiveType,
    BinaryArray, BooleanArray, Datum, PrimitiveArray, Scalar,
};
use arrow_buffer::BooleanBuffer;
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType, Schema};

use crate::bloom::Sbbf;
use crate::error::arrow_error;
use crate::format::footer::{ColumnIndexView, OffsetIndexView};
use crate::format::metadata::{FileMetaData, PhysicalType};
use crate::read::filter::predicate::{CmpOp, Literal, Predicate};
use crate::read::filter::stats::{
    is_decimal, is_nan, positive_zero, stat_array, usable_bounds, value_type, ChunkStats,
};
use crate::read::plan::selection::RowSelection;
use crate::{Error, ErrorKind, Result};

/// A bound column: its index in the decoded batch and its Parquet leaf.
#[derive(Debug, Clone)]
struct BoundColumn {
    name: String,
    index: usize,
    leaf: usize,
    data_type: DataType,
}

#[derive(Debug, Clone)]
enum Node {
    /// `column op value`; `value` is `None` for a NULL literal (null on every row).
    Cmp {
        col: usize,
        op: CmpOp,
        value: Option<ArrayRef>,
    },
    IsNull {
        col: usize,
        negated: bool,
    },
    /// The WKB value's envelope meets `[xmin, ymin, xmax, ymax]`.
    Bbox {
        col: usize,
        rect: [f64; 4],
    },
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
}

/// A predicate bound to the columns of a read: see the [module documentation](self).
#[derive(Debug, Clone)]
pub(crate) struct BoundFilter {
    columns: Vec<BoundColumn>,
    node: Node,
}

/// Field `index` of a decoded batch's `columns`.
fn column(columns: &[ArrayRef], index: usize) -> Result<&ArrayRef> {
    columns
        .get(index)
        .ok_or_else(|| filter_error(format!("no decoded field {index}")))
}

fn filter_error(message: String) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!("filter: {message}")))
}

impl BoundFilter {
    /// Binds `predicate` to the fields of `schema` (the decoded batch's), whose leaf columns
    /// are `leaves` (the Parquet leaf of each top-level field, `None` for nested fields).
    pub(crate) fn bind(
        predicate: &Predicate,
        schema: &Schema,
        leaves: &[Option<usize>],
    ) -> Result<Self> {
        let mut columns: Vec<BoundColumn> = Vec::new();
        let node = bind_node(predicate, schema, leaves, &mut columns)?;
        Ok(BoundFilter { columns, node })
    }

    /// The fields of the decoded batch the predicate reads (by index).
    pub(crate) fn fields(&self) -> impl Iterator<Item = usize> + '_ {
        self.columns.iter().map(|c| c.index)
    }

    /// The rows the predicate keeps of the decoded batch whose fields are `columns` (only
    /// those of [`BoundFilter::fields`] are looked at).
    pub(crate) fn evaluate(&self, columns: &[ArrayRef]) -> Result<BooleanArray> {
        let mask = self.eval(&self.node, columns)?;
        // Null (unknown) keeps no row.
        Ok(match mask.nulls() {
            Some(n) => BooleanArray::new(mask.values() & n.inner(), None),
            None => mask,
        })
    }

    fn eval(&self, node: &Node, batch: &[ArrayRef]) -> Result<BooleanArray> {
        let arrow = arrow_error;
        Ok(match node {
            Node::Cmp { col, op, value } => {
                let array = column(batch, self.columns[*col].index)?;
                match value {
                    None => BooleanArray::new_null(array.len()),
                    Some(v) => compare(array.as_ref(), *op, v)?,
                }
            }
            Node::IsNull { col, negated } => {
                let array = column(batch, self.columns[*col].index)?;
                let valid = match array.logical_nulls() {
                    Some(n) => n.inner().clone(),
                    None => BooleanBuffer::new_set(array.len()),
                };
                let bits = if *negated { valid } else { !&valid };
                BooleanArray::new(bits, None)
            }
            Node::Bbox { col, rect } => {
                let array = column(batch, self.columns[*col].index)?;
                super::geo::bbox_mask(array.as_ref(), *rect)?
            }
            Node::And(a, b) => {
                arrow_arith::boolean::and_kleene(&self.eval(a, batch)?, &self.eval(b, batch)?)
                    .map_err(arrow)?
            }
            Node::Or(a, b) => {
                arrow_arith::boolean::or_kleene(&self.eval(a, batch)?, &self.eval(b, batch)?)
                    .map_err(arrow)?
            }
            Node::Not(a) => arrow_arith::boolean::not(&self.eval(a, batch)?).map_err(arrow)?,
        })
    }

    /// Whether row group `rg` of `meta` may hold a row the predicate keeps, by its chunk
    /// statistics (true when they cannot tell).
    pub(crate) fn may_match(&self, meta: &FileMetaData, rg: usize) -> bool {
        let Some(group) = meta.row_groups().get(rg) else {
            return true;
        };
        let stats = |col: usize| -> Option<ChunkStats> {
            let c = &self.columns[col];
            let chunk = group.columns().get(c.leaf)?;
            ChunkStats::of(meta, chunk, c.leaf, &c.data_type, group.num_rows())
        };
        prune(&self.node, false, &stats) != Some(false)
    }
}

/// The column and offset index of a leaf's chunk, by leaf.
pub(crate) type PageIndexOf<'a> =
    dyn Fn(usize) -> Option<(ColumnIndexView<'a>, OffsetIndexView<'a>)> + 'a;

impl BoundFilter {
    /// The rows of a row group of `rows` rows the predicate may keep, by the column index of
    /// its columns (`index`); `None` when no column index tells.
    pub(crate) fn page_selection(
        &self,
        index: &PageIndexOf<'_>,
        rows: u64,
    ) -> Option<RowSelection> {
        self.page_rows(&self.node, false, index, rows)
    }

    fn page_rows(
        &self,
        node: &Node,
        negate: bool,
        index: &PageIndexOf<'_>,
        rows: u64,
    ) -> Option<RowSelection> {
        match node {
            Node::Not(a) => self.page_rows(a, !negate, index, rows),
            Node::And(a, b) | Node::Or(a, b) => {
                let both = matches!(node, Node::And(..)) != negate;
                let x = self.page_rows(a, negate, index, rows);
                let y = self.page_rows(b, negate, index, rows);
                match (both, x, y) {
                    (true, Some(x), Some(y)) => Some(x.intersect(&y)),
                    (true, x, y) => x.or(y),
                    (false, Some(x), Some(y)) => Some(x.union(&y)),
                    (false, _, _) => None,
                }
            }
            Node::Bbox { .. } => None,
            Node::Cmp { col, .. } | Node::IsNull { col, .. } => {
                let c = &self.columns[*col];
                let (ci, oi) = index(c.leaf)?;
                let locations = oi.page_locations();
                if locations.len() != ci.len() || ci.is_empty() {
                    return None;
                }
                let target = value_type(&c.data_type);
                let mut keep = Vec::new();
                for (p, loc) in locations.iter().enumerate() {
                    let start = u64::try_from(loc.first_row_index).ok()?;
                    let end = match locations.get(p + 1) {
                        Some(next) => u64::try_from(next.first_row_index).ok()?,
                        None => rows,
                    };
                    let page_rows = i64::try_from(end.checked_sub(start)?).ok()?;
                    let null_page = ci.null_pages().get(p) == Some(&true);
                    let nulls = ci
                        .null_counts()
                        .and_then(|n| n.get(p).copied())
                        .or(null_page.then_some(page_rows));
                    let bounds = match null_page {
                        true => None,
                        false => {
                            let physical = ci.physical_type();
                            let lo = stat_array(physical, ci.min_bytes(p), target);
                            let hi = stat_array(physical, ci.max_bytes(p), target);
                            lo.zip(hi).filter(|(l, h)| usable_bounds(l, h))
                        }
                    };
                    let nans = match target.is_floating() {
                        true => ci.nan_counts().and_then(|n| n.get(p).copied()),
                        false => Some(0),
                    };
                    let stats = ChunkStats {
                        rows: page_rows,
                        nulls,
                        bounds,
                        nans,
                        total_order: false,
                        geo: None,
                    };
                    if prune(node, negate, &|_| Some(stats.clone())) != Some(false) {
                        keep.push(start..end);
                    }
                }
                Some(RowSelection::from_ranges(keep))
            }
        }
    }
}

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
            let Some(chunk) = group.columns().get(self.columns[col].leaf) else {
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
                out.push((col, self.columns[col].leaf, o..o.saturating_add(len)));
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
            let physical = meta.schema().leaf_element(c.leaf)?.physical_type?;
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

impl BoundFilter {
    /// The bound columns the predicate compares with a value, each with its Parquet leaf
    /// and its value type (a dictionary's values): those whose dictionary entries can rule
    /// a row group out ([`BoundFilter::dictionary_may_match`]).
    pub(crate) fn compared_columns(&self) -> Vec<(usize, usize, DataType)> {
        let mut cols = Vec::new();
        compared(&self.node, &mut cols);
        cols.sort_unstable();
        cols.dedup();
        cols.into_iter()
            .map(|col| {
                let c = &self.columns[col];
                (col, c.leaf, value_type(&c.data_type).clone())
            })
            .collect()
    }

    /// Whether a row group may hold a row the predicate keeps, by the dictionaries
    /// `entries` gives of its columns (by bound column; each a chunk's every value, its
    /// data pages all dictionary-encoded): a comparison no entry satisfies is true on no
    /// row.
    pub(crate) fn dictionary_may_match(&self, entries: &dyn Fn(usize) -> Option<ArrayRef>) -> bool {
        dictionary_prune(&self.node, false, entries) != Some(false)
    }
}

/// Whether the conjunction (`both`) or disjunction of two terms can be true on no row, by
/// what pruning found of each (`Some(false)`: true on no row).
fn rules_out(both: bool, x: Option<bool>, y: Option<bool>) -> Option<bool> {
    let none = |r: Option<bool>| r == Some(false);
    let out = match both {
        true => none(x) || none(y),
        false => none(x) && none(y),
    };
    out.then_some(false)
}

/// The bound columns `node` compares with a (non-null) value.
fn compared(node: &Node, out: &mut Vec<usize>) {
    match node {
        Node::Not(a) => compared(a, out),
        Node::And(a, b) | Node::Or(a, b) => {
            compared(a, out);
            compared(b, out);
        }
        Node::Cmp {
            col,
            value: Some(_),
            ..
        } => out.push(*col),
        _ => {}
    }
}

/// Like [`prune`], by dictionaries: `entries(col)` gives every value the column holds in the
/// chunk (`None`: unknown). `Some(false)` when no row can satisfy `node`. A comparison (or
/// its negation: NOT of a null comparison is null too) is true only on a non-null value, so
/// it is false on every row when it holds for no entry.
fn dictionary_prune(
    node: &Node,
    negate: bool,
    entries: &dyn Fn(usize) -> Option<ArrayRef>,
) -> Option<bool> {
    match node {
        Node::Not(a) => dictionary_prune(a, !negate, entries),
        Node::And(a, b) | Node::Or(a, b) => {
            let both = matches!(node, Node::And(..)) != negate;
            let (x, y) = (
                dictionary_prune(a, negate, entries),
                dictionary_prune(b, negate, entries),
            );
            rules_out(both, x, y)
        }
        Node::Cmp {
            col,
            op,
            value: Some(v),
        } => {
            let values = entries(*col)?;
            let mask = compare(values.as_ref(), *op, v).ok()?;
            if mask.null_count() > 0 {
                return None;
            }
            let hits = match negate {
                false => mask.true_count(),
                true => mask.len() - mask.true_count(),
            };
            (hits == 0).then_some(false)
        }
        Node::Cmp { value: None, .. } | Node::IsNull { .. } | Node::Bbox { .. } => None,
    }
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
        Node::IsNull { .. } | Node::Bbox { .. } => None,
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

/// Binds `p` (negations kept as they are).
fn bind_node(
    p: &Predicate,
    schema: &Schema,
    leaves: &[Option<usize>],
    columns: &mut Vec<BoundColumn>,
) -> Result<Node> {
    let mut column = |name: &str| -> Result<usize> {
        if let Some(i) = columns.iter().position(|c| c.name == name) {
            return Ok(i);
        }
        let (index, field) = schema.column_with_name(name).ok_or_else(|| {
            Error::new(ErrorKind::ColumnNotFound {
                path: name.to_string(),
            })
        })?;
        let leaf = leaves.get(index).copied().flatten().ok_or_else(|| {
            filter_error(format!(
                "column `{name}` is nested ({}); filters take primitive top-level columns",
                field.data_type()
            ))
        })?;
        columns.push(BoundColumn {
            name: name.to_string(),
            index,
            leaf,
            data_type: field.data_type().clone(),
        });
        Ok(columns.len() - 1)
    };
    Ok(match p {
        Predicate::Compare {
            column: c,
            op,
            value,
        } => {
            let col = column(c)?;
            let value = literal_array(value, &columns[col])?;
            Node::Cmp {
                col,
                op: *op,
                value,
            }
        }
        Predicate::In {
            column: c,
            values,
            negated,
        } => {
            let col = column(c)?;
            let mut node: Option<Node> = None;
            for v in values {
                let value = literal_array(v, &columns[col])?;
                let eq = Node::Cmp {
                    col,
                    op: CmpOp::Eq,
                    value,
                };
                node = Some(match node {
                    None => eq,
                    Some(n) => Node::Or(Box::new(n), Box::new(eq)),
                });
            }
            // An empty list keeps no row (and `NOT IN ()` every row but nulls' status).
            let node = node.unwrap_or(Node::Cmp {
                col,
                op: CmpOp::Eq,
                value: None,
            });
            if *negated {
                Node::Not(Box::new(node))
            } else {
                node
            }
        }
        Predicate::IsNull { column: c, negated } => Node::IsNull {
            col: column(c)?,
            negated: *negated,
        },
        Predicate::IntersectsBbox { column: c, rect } => {
            let col = column(c)?;
            let t = &columns[col].data_type;
            if !matches!(
                t,
                DataType::Binary | DataType::LargeBinary | DataType::BinaryView
            ) {
                return Err(filter_error(format!(
                    "ST_Intersects takes a WKB binary column; `{c}` is {t}"
                )));
            }
            Node::Bbox { col, rect: *rect }
        }
        Predicate::And(a, b) => Node::And(
            Box::new(bind_node(a, schema, leaves, columns)?),
            Box::new(bind_node(b, schema, leaves, columns)?),
        ),
        Predicate::Or(a, b) => Node::Or(
            Box::new(bind_node(a, schema, leaves, columns)?),
            Box::new(bind_node(b, schema, leaves, columns)?),
        ),
        Predicate::Not(a) => Node::Not(Box::new(bind_node(a, schema, leaves, columns)?)),
    })
}

/// `value` as a one-element array of `col`'s (value) type; `None` for NULL.
fn literal_array(value: &Literal, col: &BoundColumn) -> Result<Option<ArrayRef>> {
    let target = value_type(&col.data_type);
    let source: ArrayRef = match value {
        Literal::Null => return Ok(None),
        Literal::Bool(b) => Arc::new(BooleanArray::from(vec![*b])),
        Literal::Int(v) => Arc::new(arrow_array::Int64Array::from(vec![*v])),
        Literal::UInt(v) => Arc::new(arrow_array::UInt64Array::from(vec![*v])),
        Literal::Float(v) => Arc::new(arrow_array::Float64Array::from(vec![*v])),
        Literal::Str(s) => Arc::new(arrow_array::StringArray::from(vec![s.as_str()])),
        Literal::Bytes(b) => Arc::new(BinaryArray::from(vec![b.as_slice()])),
    };
    let fits = match (value, target) {
        (Literal::Bool(_), DataType::Boolean) => true,
        (Literal::Int(_) | Literal::UInt(_), t) => {
            t.is_integer() || t.is_floating() || is_decimal(t)
        }
        (Literal::Float(_), t) => t.is_floating() || is_decimal(t) || t.is_integer(),
        (Literal::Str(_), DataType::Boolean) => false,
        (Literal::Str(_), t) => !t.is_numeric() || is_decimal(t),
        (Literal::Bytes(_), t) => matches!(
            t,
            DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
                | DataType::FixedSizeBinary(_)
        ),
        _ => false,
    };
    let refuse = |why: &str| {
        filter_error(format!(
            "the literal {value} cannot be compared with column `{}` of type {target}{why}",
            col.name
        ))
    };
    if !fits {
        return Err(refuse(""));
    }
    if let (Literal::Float(f), t) = (value, target) {
        if t.is_integer() && (f.fract() != 0.0 || !f.is_finite()) {
            return Err(refuse(": it is not a whole number"));
        }
    }
    let source = match (value, target) {
        // Decimals from the number's text, exactly: more fractional digits than the scale
        // would be rounded away.
        (Literal::Float(_) | Literal::Int(_) | Literal::UInt(_) | Literal::Str(_), t)
            if is_decimal(t) =>
        {
            let text = match value {
                Literal::Float(f) => format!("{f}"),
                Literal::Str(s) => s.trim().to_string(),
                other => other.to_string(),
            };
            let digits = text
                .split_once('.')
                .map_or(0, |(_, frac)| frac.trim_end_matches('0').len());
            let scale = match t {
                DataType::Decimal32(_, s)
                | DataType::Decimal64(_, s)
                | DataType::Decimal128(_, s)
                | DataType::Decimal256(_, s) => i64::from(*s),
                _ => 0,
            };
            if digits as i64 > scale {
                return Err(refuse(&format!(
                    ": it has more digits after the point than the column's scale {scale}"
                )));
            }
            Arc::new(arrow_array::StringArray::from(vec![text])) as ArrayRef
        }
        _ => source,
    };
    let options = CastOptions {
        safe: false,
        ..CastOptions::default()
    };
    // A timestamp with a time zone is a UTC instant: a literal without a zone is read as
    // UTC (one with an offset is moved to UTC), then given the column's zone.
    let array = match target {
        DataType::Timestamp(unit, Some(_)) => {
            let naive = DataType::Timestamp(*unit, None);
            let utc = cast_with_options(&source, &naive, &options)
                .map_err(|e| refuse(&format!(": {e}")))?;
            let data = utc
                .to_data()
                .into_builder()
                .data_type(target.clone())
                .build()
                .map_err(|e| refuse(&format!(": {e}")))?;
            make_array(data)
        }
        _ => cast_with_options(&source, target, &options).map_err(|e| refuse(&format!(": {e}")))?,
    };
    if array.null_count() > 0 {
        return Err(refuse(""));
    }
    Ok(Some(array))
}

/// `array op value` (a one-element array of the array's value type), null where the array
/// is null.
fn compare(array: &dyn Array, op: CmpOp, value: &ArrayRef) -> Result<BooleanArray> {
    let arrow = arrow_error;
    match value_type(array.data_type()) {
        DataType::Float32 | DataType::Float64 => {
            // IEEE comparisons (NaN compares false, -0.0 == 0.0), on the dictionary's values
            // gathered when it is one.
            let plain;
            let array = match array.data_type() {
                DataType::Dictionary(..) => {
                    plain =
                        arrow_cast::cast(array, value_type(array.data_type())).map_err(arrow)?;
                    plain.as_ref()
                }
                _ => array,
            };
            Ok(float_compare(array, op, value))
        }
        _ => {
            // A column decoded as its dictionary (of `Utf8` for a `Utf8View` column):
            // the literal as the dictionary's values, compared once per entry.
            let value = match array.data_type() {
                DataType::Dictionary(_, v) if value.data_type() != v.as_ref() => {
                    arrow_cast::cast(value, v).map_err(arrow)?
                }
                _ => Arc::clone(value),
            };
            let scalar = Scalar::new(value);
            let lhs: &dyn Datum = &array;
            use arrow_ord::cmp;
            match op {
                CmpOp::Eq => cmp::eq(lhs, &scalar),
                CmpOp::NotEq => cmp::neq(lhs, &scalar),
                CmpOp::Lt => cmp::lt(lhs, &scalar),
                CmpOp::LtEq => cmp::lt_eq(lhs, &scalar),
                CmpOp::Gt => cmp::gt(lhs, &scalar),
                CmpOp::GtEq => cmp::gt_eq(lhs, &scalar),
            }
            .map_err(arrow)
        }
    }
}

fn float_compare(array: &dyn Array, op: CmpOp, value: &ArrayRef) -> BooleanArray {
    fn run<T: Copy + PartialOrd>(values: &[T], v: T, op: CmpOp) -> BooleanBuffer {
        match op {
            CmpOp::Eq => BooleanBuffer::collect_bool(values.len(), |i| values[i] == v),
            CmpOp::NotEq => BooleanBuffer::collect_bool(values.len(), |i| values[i] != v),
            CmpOp::Lt => BooleanBuffer::collect_bool(values.len(), |i| values[i] < v),
            CmpOp::LtEq => BooleanBuffer::collect_bool(values.len(), |i| values[i] <= v),
            CmpOp::Gt => BooleanBuffer::collect_bool(values.len(), |i| values[i] > v),
            CmpOp::GtEq => BooleanBuffer::collect_bool(values.len(), |i| values[i] >= v),
        }
    }
    let bits = match array.data_type() {
        DataType::Float32 => {
            let v = value.as_primitive::<Float32Type>().value(0);
            run(array.as_primitive::<Float32Type>().values(), v, op)
        }
        DataType::Float64 => {
            let v = value.as_primitive::<Float64Type>().value(0);
            run(array.as_primitive::<Float64Type>().values(), v, op)
        }
        _ => BooleanBuffer::new_unset(array.len()),
    };
    BooleanArray::new(bits, array.logical_nulls())
}

/// `value` for comparing with byte-array bounds: as Binary.
fn as_bound_type(value: &ArrayRef, bound: &ArrayRef) -> Option<ArrayRef> {
    if value.data_type() == bound.data_type() {
        return Some(Arc::clone(value));
    }
    if bound.data_type() == &DataType::Binary {
        return arrow_cast::cast(value, &DataType::Binary).ok();
    }
    None
}

/// `a op b` on one-element arrays; `None` when they do not compare.
fn holds(a: &ArrayRef, op: CmpOp, b: &ArrayRef) -> Option<bool> {
    match holds_primitive(a.as_ref(), op, b.as_ref()) {
        Some(r) => r,
        None => holds_kernel(a, op, b),
    }
}

/// [`holds`] by the comparison kernels.
fn holds_kernel(a: &ArrayRef, op: CmpOp, b: &ArrayRef) -> Option<bool> {
    use arrow_ord::cmp;
    let (a, b): (&dyn Datum, &dyn Datum) = (a, b);
    let r = match op {
        CmpOp::Eq => cmp::eq(a, b),
        CmpOp::NotEq => cmp::neq(a, b),
        CmpOp::Lt => cmp::lt(a, b),
        CmpOp::LtEq => cmp::lt_eq(a, b),
        CmpOp::Gt => cmp::gt(a, b),
        CmpOp::GtEq => cmp::gt_eq(a, b),
    }
    .ok()?;
    (r.null_count() == 0).then(|| r.value(0))
}

/// [`holds`] on primitive arrays of one type (most statistics), compared as the comparison
/// kernels do (floats in IEEE total order) without a kernel call and its allocations (the
/// pruning of a row group or page is a handful of these); `None` for other arrays.
fn holds_primitive(a: &dyn Array, op: CmpOp, b: &dyn Array) -> Option<Option<bool>> {
    fn on<T: ArrowPrimitiveType>(a: &PrimitiveArray<T>, op: CmpOp, b: &dyn Array) -> Option<bool> {
        let b = b.as_primitive_opt::<T>()?;
        if a.len() != 1 || b.len() != 1 || a.is_null(0) || b.is_null(0) {
            return None;
        }
        let (x, y) = (a.value(0), b.value(0));
        Some(match op {
            CmpOp::Eq => x.is_eq(y),
            CmpOp::NotEq => x.is_ne(y),
            CmpOp::Lt => x.is_lt(y),
            CmpOp::LtEq => x.is_le(y),
            CmpOp::Gt => x.is_gt(y),
            CmpOp::GtEq => x.is_ge(y),
        })
    }
    if a.data_type() != b.data_type() {
        return None;
    }
    downcast_primitive_array!(a => Some(on(a, op, b)), _ => None)
}

/// Whether `node` (negated when `negate`) can be true on a row of the chunk whose statistics
/// `stats` gives per column: `Some(false)` when no row can satisfy it, else `None` (unknown)
/// or `Some(true)`.
fn prune(node: &Node, negate: bool, stats: &dyn Fn(usize) -> Option<ChunkStats>) -> Option<bool> {
    match node {
        Node::Not(a) => prune(a, !negate, stats),
        Node::And(a, b) | Node::Or(a, b) => {
            // NOT (a AND b) = NOT a OR NOT b, NOT (a OR b) = NOT a AND NOT b.
            let both = matches!(node, Node::And(..)) != negate;
            let (x, y) = (prune(a, negate, stats), prune(b, negate, stats));
            rules_out(both, x, y)
        }
        Node::IsNull { col, negated } => {
            let s = stats(*col)?;
            let nulls = s.nulls?;
            let wants_null = *negated == negate;
            if wants_null {
                (nulls == 0).then_some(false)
            } else {
                (nulls >= s.rows).then_some(false)
            }
        }
        Node::Bbox { col, rect } => {
            // NOT of an envelope test: the statistics cannot tell.
            if negate {
                return None;
            }
            let s = stats(*col)?;
            if s.nulls.is_some_and(|n| n >= s.rows) {
                return Some(false);
            }
            super::geo::bbox_disjoint(&s.geo?, *rect).then_some(false)
        }
        Node::Cmp { col, op, value } => {
            // A NULL literal keeps no row, negated or not.
            let Some(value) = value else {
                return Some(false);
            };
            let s = stats(*col)?;
            // Every value null: no comparison is true.
            if s.nulls.is_some_and(|n| n >= s.rows) {
                return Some(false);
            }
            // A NaN makes `!=` true and every other comparison false, so true under NOT: a
            // chunk that may hold NaN keeps such a term; one of NaNs (and nulls) only holds
            // no row for the others.
            if (*op == CmpOp::NotEq) != negate {
                if s.nans != Some(0) {
                    return None;
                }
            } else if let (Some(n), Some(nulls)) = (s.nans, s.nulls) {
                if n > 0 && n.saturating_add(nulls) >= s.rows {
                    return Some(false);
                }
            }
            let (lo, hi) = s.bounds?;
            let usable = match s.total_order {
                true => !is_nan(value),
                false => usable_bounds(value, value),
            };
            if !usable && value.data_type().is_floating() {
                return None;
            }
            let v = as_bound_type(value, &lo)?;
            let v = if s.total_order { positive_zero(v) } else { v };
            let op = if negate { op.negate() } else { *op };
            let none = match op {
                // v < lo or v > hi.
                CmpOp::Eq => holds(&v, CmpOp::Lt, &lo)? || holds(&v, CmpOp::Gt, &hi)?,
                // Every value equals v.
                CmpOp::NotEq => {
                    holds(&lo, CmpOp::Eq, &v)? && holds(&hi, CmpOp::Eq, &v)? && s.nulls == Some(0)
                }
                CmpOp::Lt => holds(&lo, CmpOp::GtEq, &v)?,
                CmpOp::LtEq => holds(&lo, CmpOp::Gt, &v)?,
                CmpOp::Gt => holds(&hi, CmpOp::LtEq, &v)?,
                CmpOp::GtEq => holds(&hi, CmpOp::Lt, &v)?,
            };
            none.then_some(false)
        }
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
