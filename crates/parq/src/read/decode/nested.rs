//! Arrow arrays of the nodes above the leaves: struct validity, list and map offsets and
//! validity, from the definition and repetition levels of one leaf under each node, in one
//! pass over those levels per node (see [`crate::read::plan::fields`] for what the levels mean).

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, GenericListArray, GenericListViewArray, MapArray,
    OffsetSizeTrait, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef};

use crate::read::decode::convert::null_buffer;
use crate::read::decode::leaf::LeafBatch;
use crate::read::decode::levels::{list_slots, node_slots};
use crate::read::plan::fields::{Node, Shape, Slot};
use crate::{Error, ErrorKind, Result};

/// The array of `node` from the leaves' batches (`leaves[i]` for leaf `i` of the plan);
/// `len` is the number of slots of its parent (the rows, for a top-level node), which a
/// struct without leaves takes as its own.
pub(crate) fn assemble(node: &Node, leaves: &[LeafBatch], len: usize) -> Result<ArrayRef> {
    match &node.shape {
        Shape::Leaf(i) => leaves
            .get(*i)
            .map(|b| b.array.clone())
            .ok_or_else(|| internal("a leaf without its batch")),
        Shape::Struct(children) => {
            let (len, nulls) = match node.first_leaf {
                Some(leaf) => struct_slots(levels_of(leaf, leaves)?, node.slot, node.valid_def),
                None => (len, node.valid_def.map(|_| NullBuffer::new_null(len))),
            };
            let arrays = children
                .iter()
                .map(|c| assemble(c, leaves, len))
                .collect::<Result<Vec<_>>>()?;
            let fields = match node.field.data_type() {
                _ if node.variant => children.iter().map(|c| c.field.clone()).collect(),
                DataType::Struct(f) => f.clone(),
                other => return Err(internal_type(other)),
            };
            if fields.is_empty() {
                return Ok(Arc::new(StructArray::new_empty_fields(len, nulls)));
            }
            let array = StructArray::try_new(fields, arrays, nulls)
                .map_err(|e| mismatch(&node.field, e))?;
            if node.variant {
                return Ok(Arc::new(crate::variant::unshred(&array)?));
            }
            Ok(Arc::new(array))
        }
        Shape::List { child, element } => {
            let leaf = node
                .first_leaf
                .ok_or_else(|| internal("a list without leaves"))?;
            list(node, *element, levels_of(leaf, leaves)?, |count| {
                assemble(child, leaves, count)
            })
        }
    }
}

/// The batch of leaf `leaf`, whose levels give a node's slots.
fn levels_of(leaf: usize, leaves: &[LeafBatch]) -> Result<&LeafBatch> {
    leaves
        .get(leaf)
        .ok_or_else(|| internal("a node without its leaf"))
}

/// Slots and validity of a struct.
fn struct_slots(
    levels: &LeafBatch,
    slot: Slot,
    valid_def: Option<i16>,
) -> (usize, Option<NullBuffer>) {
    if levels.def.is_empty() && levels.rep.is_empty() {
        // A leaf without levels: required all the way up, one slot per leaf slot.
        return (levels.array.len(), None);
    }
    let (len, bits) = node_slots(&levels.def, &levels.rep, slot, valid_def);
    (len, nulls_of(bits, len))
}

/// The validity `bits` of `len` slots, `None` without nulls.
fn nulls_of(bits: Option<Vec<u8>>, len: usize) -> Option<NullBuffer> {
    bits.map(|b| null_buffer(b, len))
        .filter(|n| n.null_count() > 0)
}

/// The list (or large list, fixed-size list, map) `node`; `child` builds its values from
/// their count (the last offset).
fn list(
    node: &Node,
    element: Slot,
    levels: &LeafBatch,
    child: impl FnOnce(usize) -> Result<ArrayRef>,
) -> Result<ArrayRef> {
    let field = &node.field;
    match field.data_type() {
        DataType::List(item) => {
            let (offsets, nulls) = offsets::<i32>(levels, node, element)?;
            let values = child(last(&offsets))?;
            generic_list::<i32>(field, item.clone(), offsets, values, nulls)
        }
        DataType::LargeList(item) => {
            let (offsets, nulls) = offsets::<i64>(levels, node, element)?;
            let values = child(last(&offsets))?;
            generic_list::<i64>(field, item.clone(), offsets, values, nulls)
        }
        DataType::ListView(item) => {
            let (offsets, nulls) = offsets::<i32>(levels, node, element)?;
            let values = child(last(&offsets))?;
            list_view::<i32>(field, item.clone(), &offsets, values, nulls)
        }
        DataType::LargeListView(item) => {
            let (offsets, nulls) = offsets::<i64>(levels, node, element)?;
            let values = child(last(&offsets))?;
            list_view::<i64>(field, item.clone(), &offsets, values, nulls)
        }
        DataType::FixedSizeList(item, size) => {
            let (offsets, nulls) = offsets::<i32>(levels, node, element)?;
            let values = child(last(&offsets))?;
            fixed_size_list(field, item.clone(), *size, &offsets, values, nulls)
        }
        DataType::Map(entries, sorted) => {
            let (offsets, nulls) = offsets::<i32>(levels, node, element)?;
            let values = child(last(&offsets))?;
            let entries_array = values
                .as_any()
                .downcast_ref::<StructArray>()
                .cloned()
                .ok_or_else(|| internal("map entries that are not a struct"))?;
            let array = MapArray::try_new(entries.clone(), offsets, entries_array, nulls, *sorted)
                .map_err(|e| mismatch(field, e))?;
            Ok(Arc::new(array))
        }
        other => Err(internal_type(other)),
    }
}

/// Offsets and validity of a list node from the levels.
fn offsets<O: OffsetSizeTrait>(
    levels: &LeafBatch,
    node: &Node,
    element: Slot,
) -> Result<(OffsetBuffer<O>, Option<NullBuffer>)> {
    if levels.rep.len() != levels.def.len() {
        return Err(internal("a list without repetition levels"));
    }
    let (offsets, count, bits) =
        list_slots::<O>(&levels.def, &levels.rep, node.slot, element, node.valid_def);
    // The element count, the last offset, fits the offset type, so every offset below it
    // does.
    offset::<O>(count)?;
    let len = offsets.len() - 1;
    // Offsets start at 0 and never decrease: the counts only grow.
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    Ok((offsets, nulls_of(bits, len)))
}

/// The last offset: the number of elements.
fn last<O: OffsetSizeTrait>(offsets: &OffsetBuffer<O>) -> usize {
    offsets.last().as_usize()
}

fn offset<O: OffsetSizeTrait>(n: usize) -> Result<O> {
    O::from_usize(n).ok_or_else(|| {
        Error::new(ErrorKind::Unsupported(format!(
            "{n} list elements in one batch overflow the offsets of the list type \
             (read with a smaller batch size, or as a large list)"
        )))
    })
}

fn generic_list<O: OffsetSizeTrait>(
    field: &Field,
    item: FieldRef,
    offsets: OffsetBuffer<O>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let array = GenericListArray::<O>::try_new(item, offsets, values, nulls)
        .map_err(|e| mismatch(field, e))?;
    Ok(Arc::new(array))
}

/// A list view of the lists `offsets` delimit (each list's start and size).
fn list_view<O: OffsetSizeTrait>(
    field: &Field,
    item: FieldRef,
    offsets: &OffsetBuffer<O>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let starts: ScalarBuffer<O> = offsets.iter().take(offsets.len() - 1).copied().collect();
    let sizes: ScalarBuffer<O> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let array = GenericListViewArray::<O>::try_new(item, starts, sizes, values, nulls)
        .map_err(|e| mismatch(field, e))?;
    Ok(Arc::new(array))
}

/// A fixed-size list: every valid list must hold `size` elements; a null list holds none
/// in the file and gets `size` null elements.
fn fixed_size_list(
    field: &Field,
    item: FieldRef,
    size: i32,
    offsets: &OffsetBuffer<i32>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let width = usize::try_from(size).map_err(|_| internal("a negative list size"))?;
    let mut indices: Vec<Option<u32>> = Vec::new();
    let mut padded = false;
    for (i, w) in offsets.windows(2).enumerate() {
        let (start, end) = (w[0] as usize, w[1] as usize);
        let is_null = nulls.as_ref().is_some_and(|n| n.is_null(i));
        if end - start == width {
            indices.extend((start..end).map(|j| u32::try_from(j).ok()));
        } else if is_null && start == end {
            indices.extend(std::iter::repeat_n(None, width));
            padded = true;
        } else {
            return Err(Error::new(ErrorKind::InvalidColumnData {
                column: field.name().clone(),
                message: format!(
                    "list {i} of the batch holds {} elements, not the {width} of its \
                     fixed-size list type",
                    end - start
                ),
            }));
        }
    }
    let values = if padded {
        let indices = arrow_array::UInt32Array::from(indices);
        arrow_select::take::take(values.as_ref(), &indices, None).map_err(|e| mismatch(field, e))?
    } else {
        values
    };
    let array =
        FixedSizeListArray::try_new(item, size, values, nulls).map_err(|e| mismatch(field, e))?;
    Ok(Arc::new(array))
}

#[cold]
fn mismatch(field: &Field, e: arrow_schema::ArrowError) -> Error {
    Error::new(ErrorKind::InvalidColumnData {
        column: field.name().clone(),
        message: format!("the leaf columns under it disagree: {e}"),
    })
    .with_source(e)
}

#[cold]
fn internal(what: &str) -> Error {
    crate::error::internal(format!("read plan: {what}"))
}

#[cold]
fn internal_type(t: &DataType) -> Error {
    crate::error::internal(format!("read plan: a nested node of type {t}"))
}
