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
//! the literals' hashes is in the column's filter (`filter/blooms.rs`): the literal hashed
//! as the PLAIN encoding of the column's physical type (integers, dates and INT32 / INT64
//! decimals by value, floats except zeros and NaN, byte arrays by their bytes); times and
//! timestamps, whose stored unit may differ from the Arrow type's, and other types use none.
//!
//! A column is a top-level field, a primitive field inside structs by its dotted path
//! (`s.a.b`; a top-level name with dots in it is that field), or an object field of a
//! Variant column (`v.a`): see `filter/path.rs`. A field inside structs is null where a
//! struct above it is, and prunes by its own leaf's statistics, page index and Bloom filter.
//! A Variant field is compared on each row's Variant value (`filter/variant.rs`) and prunes
//! by its shredded `typed_value` leaf where its residual `value` leaf is all null.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{
    downcast_primitive_array, make_array, Array, ArrayRef, ArrowNativeTypeOp, ArrowPrimitiveType,
    BinaryArray, BooleanArray, Datum, PrimitiveArray, Scalar,
};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType, Schema};

use crate::error::arrow_error;
use crate::format::footer::{ColumnIndexView, OffsetIndexView};
use crate::format::metadata::FileMetaData;
use crate::read::filter::path::{top_level, Resolved};
use crate::read::filter::predicate::{CmpOp, Literal, Predicate};
use crate::read::filter::stats::{
    is_decimal, is_nan, positive_zero, stat_array, usable_bounds, value_type, ChunkStats,
};
use crate::read::filter::variant::{typed_literal, TypedLiteral};
use crate::read::plan::selection::RowSelection;
use crate::{Error, ErrorKind, Result};

/// A bound column: where it is in the decoded batch and its Parquet leaf.
#[derive(Debug, Clone)]
pub(super) struct BoundColumn {
    pub(super) name: String,
    pub(super) at: Resolved,
}

#[derive(Debug, Clone)]
pub(super) enum Node {
    /// `column op value`; `value` is `None` for a NULL literal (null on every row).
    Cmp {
        col: usize,
        op: CmpOp,
        value: Option<ArrayRef>,
    },
    /// `field op value` on a Variant object field; `typed` is the literal as the field's
    /// `typed_value` type.
    VariantCmp {
        col: usize,
        op: CmpOp,
        value: Literal,
        typed: TypedLiteral,
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
    pub(super) columns: Vec<BoundColumn>,
    pub(super) node: Node,
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
        Self::bind_with(predicate, &mut |name| top_level(schema, leaves, name))
    }

    /// Binds `predicate` to the columns `resolve` finds by name.
    pub(crate) fn bind_with(
        predicate: &Predicate,
        resolve: &mut dyn FnMut(&str) -> Result<Resolved>,
    ) -> Result<Self> {
        let mut columns: Vec<BoundColumn> = Vec::new();
        let node = bind_node(predicate, resolve, &mut columns)?;
        Ok(BoundFilter { columns, node })
    }

    /// The fields of the decoded batch the predicate reads (by index).
    pub(crate) fn fields(&self) -> impl Iterator<Item = usize> + '_ {
        self.columns.iter().map(|c| c.at.index)
    }

    /// The array bound column `col` compares in the decoded batch `batch`: its top-level
    /// field, down its struct path, null where a struct above it is.
    fn array(&self, batch: &[ArrayRef], col: usize) -> Result<ArrayRef> {
        let c = self
            .columns
            .get(col)
            .ok_or_else(|| filter_error(format!("no bound column {col}")))?;
        let mut array = Arc::clone(column(batch, c.at.index)?);
        for &p in &c.at.path {
            let s = array.as_struct_opt().ok_or_else(|| {
                filter_error(format!("`{}` is not a struct in the batch", c.name))
            })?;
            let child = s.columns().get(p).ok_or_else(|| {
                filter_error(format!("`{}` has no field {p} in the batch", c.name))
            })?;
            array = match s.nulls() {
                None => Arc::clone(child),
                Some(parent) => {
                    let nulls = NullBuffer::union(Some(parent), child.nulls());
                    let data = child.to_data().into_builder().nulls(nulls);
                    make_array(data.build().map_err(arrow_error)?)
                }
            };
        }
        Ok(array)
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
                let array = self.array(batch, *col)?;
                match value {
                    None => BooleanArray::new_null(array.len()),
                    Some(v) => compare(array.as_ref(), *op, v)?,
                }
            }
            Node::VariantCmp { col, op, value, .. } => {
                let array = self.array(batch, *col)?;
                let fields = self.variant_fields(*col);
                super::variant::compare(array.as_ref(), fields, *op, value)?
            }
            Node::IsNull { col, negated } => {
                let array = self.array(batch, *col)?;
                let valid = match &self.columns[*col].at.variant {
                    Some((fields, _)) => super::variant::has_value(array.as_ref(), fields)?,
                    None => match array.logical_nulls() {
                        Some(n) => n.inner().clone(),
                        None => BooleanBuffer::new_set(array.len()),
                    },
                };
                let bits = if *negated { valid } else { !&valid };
                BooleanArray::new(bits, None)
            }
            Node::Bbox { col, rect } => {
                let array = self.array(batch, *col)?;
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
            let c = &self.columns[col].at;
            let leaf = c.leaf?;
            // A Variant field's typed statistics bound it only where no row holds it in
            // its residual `value` leaf.
            if let Some((_, Some(value))) = &c.variant {
                let chunk = group.columns().get(*value)?;
                let s = ChunkStats::of(meta, chunk, *value, &DataType::Binary, group.num_rows())?;
                if s.nulls? < s.rows {
                    return None;
                }
            }
            let chunk = group.columns().get(leaf)?;
            ChunkStats::of(meta, chunk, leaf, &c.data_type, group.num_rows())
        };
        prune(&self.node, false, &stats) != Some(false)
    }

    /// The object field path of bound Variant column `col` (empty for other columns).
    fn variant_fields(&self, col: usize) -> &[String] {
        match &self.columns[col].at.variant {
            Some((fields, _)) => fields,
            None => &[],
        }
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
            Node::Cmp { col, .. } | Node::VariantCmp { col, .. } | Node::IsNull { col, .. } => {
                let c = &self.columns[*col].at;
                let typed = leaf_pages(node, negate, c.leaf?, &c.data_type, index, rows)?;
                match &c.variant {
                    None | Some((_, None)) => Some(typed),
                    // Rows of the pages holding the field in its residual `value` leaf may
                    // match whatever the typed pages say.
                    Some((_, Some(value))) => {
                        let residual = page_stats(*value, &DataType::Binary, index, rows)?
                            .into_iter()
                            .filter(|(_, s)| s.nulls.is_none_or(|n| n < s.rows))
                            .map(|(r, _)| r);
                        Some(typed.union(&RowSelection::from_ranges(residual)))
                    }
                }
            }
        }
    }
}

/// The rows of each page of leaf `leaf` (of Arrow type `data_type`) of a row group of
/// `rows` rows and the page's statistics, by its column index; `None` without one.
fn page_stats(
    leaf: usize,
    data_type: &DataType,
    index: &PageIndexOf<'_>,
    rows: u64,
) -> Option<Vec<(Range<u64>, ChunkStats)>> {
    let (ci, oi) = index(leaf)?;
    let locations = oi.page_locations();
    if locations.len() != ci.len() || ci.is_empty() {
        return None;
    }
    let target = value_type(data_type);
    let mut out = Vec::with_capacity(locations.len());
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
        out.push((start..end, stats));
    }
    Some(out)
}

/// The rows of the pages of leaf `leaf` on which the comparison `node` (negated when
/// `negate`) may hold, by the leaf's column index; `None` without one.
fn leaf_pages(
    node: &Node,
    negate: bool,
    leaf: usize,
    data_type: &DataType,
    index: &PageIndexOf<'_>,
    rows: u64,
) -> Option<RowSelection> {
    let keep = page_stats(leaf, data_type, index, rows)?
        .into_iter()
        .filter(|(_, stats)| prune(node, negate, &|_| Some(stats.clone())) != Some(false))
        .map(|(r, _)| r);
    Some(RowSelection::from_ranges(keep))
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
            .filter_map(|col| {
                let c = &self.columns[col].at;
                Some((col, c.leaf?, value_type(&c.data_type).clone()))
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
pub(super) fn rules_out(both: bool, x: Option<bool>, y: Option<bool>) -> Option<bool> {
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
        Node::Cmp { value: None, .. }
        | Node::VariantCmp { .. }
        | Node::IsNull { .. }
        | Node::Bbox { .. } => None,
    }
}

/// `value` compared with bound column `col` by `op`: a Variant field's comparison, or the
/// literal converted to the column's type.
fn comparison(col: usize, op: CmpOp, value: &Literal, columns: &[BoundColumn]) -> Result<Node> {
    let c = &columns[col];
    if c.at.variant.is_none() || *value == Literal::Null {
        let value = literal_array(value, &c.name, &c.at.data_type)?;
        return Ok(Node::Cmp { col, op, value });
    }
    let convert = |v: &Literal, t: &DataType| literal_array(v, &c.name, t);
    let typed = match c.at.leaf {
        Some(_) => typed_literal(value, value_type(&c.at.data_type), &convert),
        None => TypedLiteral::Unknown,
    };
    Ok(Node::VariantCmp {
        col,
        op,
        value: value.clone(),
        typed,
    })
}

/// Binds `p` (negations kept as they are).
fn bind_node(
    p: &Predicate,
    resolve: &mut dyn FnMut(&str) -> Result<Resolved>,
    columns: &mut Vec<BoundColumn>,
) -> Result<Node> {
    let mut column = |name: &str, columns: &mut Vec<BoundColumn>| -> Result<usize> {
        if let Some(i) = columns.iter().position(|c| c.name == name) {
            return Ok(i);
        }
        let at = resolve(name)?;
        columns.push(BoundColumn {
            name: name.to_string(),
            at,
        });
        Ok(columns.len() - 1)
    };
    Ok(match p {
        Predicate::Compare {
            column: c,
            op,
            value,
        } => {
            let col = column(c, columns)?;
            comparison(col, *op, value, columns)?
        }
        Predicate::In {
            column: c,
            values,
            negated,
        } => {
            let col = column(c, columns)?;
            let mut node: Option<Node> = None;
            for v in values {
                let eq = comparison(col, CmpOp::Eq, v, columns)?;
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
            col: column(c, columns)?,
            negated: *negated,
        },
        Predicate::IntersectsBbox { column: c, rect } => {
            let col = column(c, columns)?;
            let t = &columns[col].at.data_type;
            if columns[col].at.variant.is_some()
                || !matches!(
                    t,
                    DataType::Binary | DataType::LargeBinary | DataType::BinaryView
                )
            {
                return Err(filter_error(format!(
                    "ST_Intersects takes a WKB binary column; `{c}` is {t}"
                )));
            }
            Node::Bbox { col, rect: *rect }
        }
        Predicate::And(a, b) => Node::And(
            Box::new(bind_node(a, resolve, columns)?),
            Box::new(bind_node(b, resolve, columns)?),
        ),
        Predicate::Or(a, b) => Node::Or(
            Box::new(bind_node(a, resolve, columns)?),
            Box::new(bind_node(b, resolve, columns)?),
        ),
        Predicate::Not(a) => Node::Not(Box::new(bind_node(a, resolve, columns)?)),
    })
}

/// `value` as a one-element array of column `name`'s (value) type `data_type`; `None` for
/// NULL.
fn literal_array(value: &Literal, name: &str, data_type: &DataType) -> Result<Option<ArrayRef>> {
    let target = value_type(data_type);
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
            "the literal {value} cannot be compared with column `{name}` of type {target}{why}"
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
        Node::VariantCmp { col, op, typed, .. } => {
            // The statistics are there only where no row holds the field outside its
            // typed column.
            stats(*col)?;
            match typed {
                // Null on every typed row, negated or not.
                TypedLiteral::Never => Some(false),
                TypedLiteral::Unknown => None,
                TypedLiteral::Value(v) => {
                    let cmp = Node::Cmp {
                        col: *col,
                        op: *op,
                        value: Some(Arc::clone(v)),
                    };
                    prune(&cmp, negate, stats)
                }
            }
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
