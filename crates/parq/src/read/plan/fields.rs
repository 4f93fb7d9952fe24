//! What a read produces and from which leaves: the chosen fields of the file's Arrow schema
//! as a tree of [`Node`]s (structs, lists, maps, leaves), each knowing the definition and
//! repetition levels at which it has a slot and at which that slot is valid, and the leaf
//! columns to decode ([`ColumnSpec`]).
//!
//! Levels as the tree sees them (Dremel): a node's slot exists at the levels whose
//! definition level is at least its [`Slot::def`] and whose repetition level is at most its
//! [`Slot::rep`]; a struct passes its own slot to its children (a null struct still has child
//! slots, as Arrow wants), a list or map passes the slot of its elements (one per level
//! reaching the repeated group). Columns are chosen by top-level field or by dotted path
//! (`a.b` keeps only the leaves under `a.b`, inside `a`), as pyarrow's `columns=`.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

use crate::format::metadata::{Encoding, FileMetaData, PhysicalType, Repetition};
use crate::read::options::{DictionaryColumns, InvalidUtf8, ReadOptions, StringType};
use crate::schema::{arrow_schema_with, FieldNode, FileKeyValues};
use crate::{Error, ErrorKind, Result};

/// What a leaf reader decodes: one leaf column and the Arrow type to produce.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    /// The leaf's index in the file schema.
    pub leaf: usize,
    /// The leaf's dotted path (for errors).
    pub path: String,
    /// The physical type.
    pub physical: PhysicalType,
    /// `type_length` of FIXED_LEN_BYTE_ARRAY (0 otherwise).
    pub type_length: usize,
    /// Max definition level.
    pub max_def_level: i16,
    /// Max repetition level.
    pub max_rep_level: i16,
    /// The definition level from which a level is a slot of the leaf array (levels below it
    /// are a null or empty list above the leaf); 0 for a leaf outside any list.
    pub slot_def_level: i16,
    /// Whether the levels are kept for the nodes above the leaf (false for a top-level leaf,
    /// and for a leaf whose levels are all 0: then each level is a slot of every node above).
    pub keep_levels: bool,
    /// The Arrow type of the result.
    pub data_type: DataType,
}

/// Where a node has slots: see the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub def: i16,
    pub rep: i16,
}

/// One Arrow field of the result and how it is built.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub field: Field,
    pub shape: Shape,
    pub slot: Slot,
    /// The definition level from which a slot is valid; `None`: never null.
    pub valid_def: Option<i16>,
    /// The leaf (index in [`Plan::leaves`]) whose levels give this node's slots; `None` for
    /// a struct without leaves (a group without fields), whose slots are its parent's.
    pub first_leaf: Option<usize>,
    /// A Variant struct read unshredded: `field` is `struct<metadata, value>`, the children
    /// the physical shredded fields.
    pub variant: bool,
}

#[derive(Debug, Clone)]
pub(crate) enum Shape {
    /// A leaf: index in [`Plan::leaves`].
    Leaf(usize),
    Struct(Vec<Node>),
    /// List, LargeList, FixedSizeList or Map (whose child is the entries struct).
    List {
        child: Box<Node>,
        element: Slot,
    },
}

/// The chosen fields and the leaves to decode.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub schema: SchemaRef,
    pub nodes: Vec<Node>,
    pub leaves: Vec<ColumnSpec>,
    /// The file's top-level fields (every one, whole), as the schema conversion gives them.
    pub file_fields: Vec<FieldNode>,
}

/// A column to read: a top-level field by index (in the file's Arrow schema) or a field by
/// dotted path (a top-level field's name, or the path of a field or leaf inside one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ColumnSelection {
    /// The top-level field at this index.
    Index(usize),
    /// The field with this (dotted) path.
    Path(String),
}

impl From<usize> for ColumnSelection {
    fn from(i: usize) -> Self {
        ColumnSelection::Index(i)
    }
}

impl From<&str> for ColumnSelection {
    fn from(p: &str) -> Self {
        ColumnSelection::Path(p.to_string())
    }
}

impl From<String> for ColumnSelection {
    fn from(p: String) -> Self {
        ColumnSelection::Path(p)
    }
}

/// Which leaves of a top-level field are chosen.
enum Chosen {
    All,
    Leaves(Vec<usize>),
}

/// The plan of reading `columns` (all when `None`) of row groups `row_groups` of `meta`
/// (whose key-value metadata `key_values` holds, decoded), then the fields `extra` (a
/// filter's) as top-level nodes of their own after them: an extra field inside a chosen one
/// does not change what the chosen one holds.
pub(crate) fn plan(
    meta: &FileMetaData,
    key_values: &FileKeyValues,
    options: &ReadOptions,
    columns: Option<&[ColumnSelection]>,
    extra: &[ColumnSelection],
    row_groups: &[usize],
) -> Result<Plan> {
    let conversion = arrow_schema_with(meta, key_values, &options.schema)?;
    let fields = &conversion.fields;
    let mut chosen: Vec<(usize, Chosen)> = Vec::new();
    match columns {
        None => chosen.extend((0..fields.len()).map(|i| (i, Chosen::All))),
        Some(list) => {
            for c in list {
                let (top, leaves) = resolve(meta, fields, c)?;
                add_chosen(&mut chosen, top, leaves);
            }
        }
    }
    let mut extras: Vec<(usize, Chosen)> = Vec::new();
    for c in extra {
        let (top, leaves) = resolve(meta, fields, c)?;
        add_chosen(&mut extras, top, leaves);
    }
    chosen.extend(extras);
    let mut builder = Builder {
        meta,
        options,
        row_groups,
        leaves: Vec::new(),
    };
    let mut nodes = Vec::with_capacity(chosen.len());
    for (top, leaves) in &chosen {
        let keep = |leaf: usize| match leaves {
            Chosen::All => true,
            Chosen::Leaves(l) => l.contains(&leaf),
        };
        let root = Slot { def: 0, rep: 0 };
        let all = matches!(leaves, Chosen::All);
        if let Some(node) = builder.node(&fields[*top], root, 0, &keep, all)? {
            nodes.push(node);
        }
    }
    let schema = Schema::new_with_metadata(
        nodes.iter().map(|n| n.field.clone()).collect::<Vec<_>>(),
        conversion.schema.metadata().clone(),
    );
    Ok(Plan {
        schema: Arc::new(schema),
        nodes,
        leaves: builder.leaves,
        file_fields: conversion.fields,
    })
}

/// Adds the leaves `leaves` of top-level field `top` to `chosen` (merged with what it holds
/// of that field).
fn add_chosen(chosen: &mut Vec<(usize, Chosen)>, top: usize, leaves: Chosen) {
    match chosen.iter_mut().find(|(t, _)| *t == top) {
        None => chosen.push((top, leaves)),
        Some((_, Chosen::All)) => {}
        Some((_, have @ Chosen::Leaves(_))) => match (have, leaves) {
            (have, Chosen::All) => *have = Chosen::All,
            (Chosen::Leaves(a), Chosen::Leaves(b)) => a.extend(b),
            (Chosen::All, _) => {}
        },
    }
}

/// The top-level field `c` names, and which of its leaves.
fn resolve(
    meta: &FileMetaData,
    fields: &[FieldNode],
    c: &ColumnSelection,
) -> Result<(usize, Chosen)> {
    match c {
        ColumnSelection::Index(i) if *i < fields.len() => Ok((*i, Chosen::All)),
        ColumnSelection::Index(i) => Err(Error::new(ErrorKind::OutOfBounds {
            what: "column",
            index: *i as u64,
            len: fields.len() as u64,
        })),
        ColumnSelection::Path(p) => {
            if let Some(i) = fields.iter().position(|f| f.field.name() == p) {
                return Ok((i, Chosen::All));
            }
            // A path inside a field: the leaves whose dotted path is `p` or starts with `p.`.
            let schema = meta.schema();
            let leaves: Vec<usize> = (0..schema.leaves().len())
                .filter(|&l| {
                    let path = schema.leaf_path_string(l);
                    path == *p
                        || path
                            .strip_prefix(p.as_str())
                            .is_some_and(|rest| rest.starts_with('.'))
                })
                .collect();
            let top = leaves
                .first()
                .and_then(|&l| fields.iter().position(|f| contains_leaf(f, l)));
            match top {
                Some(top) => Ok((top, Chosen::Leaves(leaves))),
                None => Err(Error::new(ErrorKind::ColumnNotFound { path: p.clone() })),
            }
        }
    }
}

fn contains_leaf(node: &FieldNode, leaf: usize) -> bool {
    node.leaf == Some(leaf) || node.children.iter().any(|c| contains_leaf(c, leaf))
}

struct Builder<'a> {
    meta: &'a FileMetaData,
    options: &'a ReadOptions,
    row_groups: &'a [usize],
    leaves: Vec<ColumnSpec>,
}

impl Builder<'_> {
    fn repetition(&self, node: &FieldNode) -> Repetition {
        self.meta
            .schema()
            .elements()
            .get(node.element)
            .and_then(|e| e.repetition)
            .unwrap_or(Repetition::Required)
    }

    /// The plan of `node` whose slots are `slot`, keeping the leaves `keep` accepts; `None`
    /// when no leaf under it is kept.
    fn node(
        &mut self,
        node: &FieldNode,
        slot: Slot,
        depth: usize,
        keep: &dyn Fn(usize) -> bool,
        keep_all: bool,
    ) -> Result<Option<Node>> {
        let valid_def = (self.repetition(node) == Repetition::Optional).then_some(node.def_level);
        if node.children.is_empty() {
            let Some(leaf) = node.leaf else {
                // A group without fields: an empty struct, null wherever it may be (as
                // pyarrow reads it), kept when the whole field above it is chosen.
                return Ok(keep_all.then(|| Node {
                    field: node.field.clone(),
                    shape: Shape::Struct(Vec::new()),
                    slot,
                    valid_def,
                    first_leaf: None,
                    variant: false,
                }));
            };
            if !keep(leaf) {
                return Ok(None);
            }
            let (spec, field) = self.leaf(node, leaf, slot, depth > 0)?;
            self.leaves.push(spec);
            let index = self.leaves.len() - 1;
            return Ok(Some(Node {
                field,
                shape: Shape::Leaf(index),
                slot,
                valid_def,
                first_leaf: Some(index),
                variant: false,
            }));
        }
        let list_like = matches!(
            node.field.data_type(),
            DataType::List(_)
                | DataType::LargeList(_)
                | DataType::ListView(_)
                | DataType::LargeListView(_)
                | DataType::FixedSizeList(..)
                | DataType::Map(..)
        );
        if list_like {
            let [item] = node.children.as_slice() else {
                return Err(Error::new(ErrorKind::SchemaConversion(format!(
                    "list `{}` with {} children",
                    node.field.name(),
                    node.children.len()
                ))));
            };
            let optional = self.repetition(item) == Repetition::Optional;
            let element = Slot {
                def: item.def_level - i16::from(optional),
                rep: item.rep_level,
            };
            let Some(child) = self.node(item, element, depth + 1, keep, keep_all)? else {
                return Ok(None);
            };
            let field = with_children(&node.field, std::slice::from_ref(&child.field))?;
            return Ok(Some(Node {
                field,
                first_leaf: child.first_leaf,
                shape: Shape::List {
                    child: Box::new(child),
                    element,
                },
                slot,
                valid_def,
                variant: false,
            }));
        }
        let mut children = Vec::with_capacity(node.children.len());
        for c in &node.children {
            if let Some(c) = self.node(c, slot, depth + 1, keep, keep_all)? {
                children.push(c);
            }
        }
        if children.is_empty() {
            return Ok(None);
        }
        let first_leaf = children.iter().find_map(|c| c.first_leaf);
        let fields: Vec<Field> = children.iter().map(|c| c.field.clone()).collect();
        let variant = keep_all
            && !self.options.variant_shredded
            && crate::variant::shred::is_variant(&node.field);
        let field = match variant {
            true => crate::variant::unshredded_field(&node.field),
            false => with_children(&node.field, &fields)?,
        };
        Ok(Some(Node {
            field,
            shape: Shape::Struct(children),
            slot,
            valid_def,
            first_leaf,
            variant,
        }))
    }

    /// The spec of leaf `leaf` (field `node`) and its output field, with the options'
    /// string and dictionary choices applied.
    fn leaf(
        &self,
        node: &FieldNode,
        leaf: usize,
        slot: Slot,
        keep_levels: bool,
    ) -> Result<(ColumnSpec, Field)> {
        let schema = self.meta.schema();
        let info = schema.leaves().get(leaf).copied().ok_or_else(|| {
            Error::new(ErrorKind::OutOfBounds {
                what: "leaf column",
                index: leaf as u64,
                len: schema.leaves().len() as u64,
            })
        })?;
        let element = schema
            .leaf_element(leaf)
            .ok_or_else(|| crate::error::internal(format!("no schema element for leaf {leaf}")))?;
        let physical = element.physical_type.unwrap_or(PhysicalType::Unknown(-1));
        let type_length = element
            .type_length
            .and_then(|l| usize::try_from(l).ok())
            .unwrap_or(0);
        let path = schema.leaf_path_string(leaf);
        let mut field = node.field.clone();
        let byte_array = matches!(
            field.data_type(),
            DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary
        ) && physical == PhysicalType::ByteArray;
        let name = if keep_levels {
            path.as_str()
        } else {
            field.name().as_str()
        };
        if byte_array && self.wants_dictionary(name, leaf) {
            let t = DataType::Dictionary(
                Box::new(DataType::Int32),
                Box::new(field.data_type().clone()),
            );
            field = field.with_data_type(t);
        }
        if self.options.strings == StringType::Utf8View && *field.data_type() == DataType::Utf8 {
            field = field.with_data_type(DataType::Utf8View);
        }
        if self.options.invalid_utf8 == InvalidUtf8::Binary {
            let t = strings_as_binary(field.data_type());
            field = field.with_data_type(t);
        }
        let spec = ColumnSpec {
            leaf,
            path,
            physical,
            type_length,
            max_def_level: info.max_def_level,
            max_rep_level: info.max_rep_level,
            slot_def_level: slot.def,
            // Levels all 0 (every node above required, no list) say nothing.
            keep_levels: keep_levels && (info.max_def_level > 0 || info.max_rep_level > 0),
            data_type: field.data_type().clone(),
        };
        Ok((spec, field))
    }

    /// Whether the byte-array column `name` (leaf `leaf`) is read as a dictionary by option.
    fn wants_dictionary(&self, name: &str, leaf: usize) -> bool {
        match &self.options.dictionary {
            DictionaryColumns::FromSchema => false,
            DictionaryColumns::Named(names) => names.iter().any(|n| n == name),
            DictionaryColumns::Encoded => {
                all_dictionary_encoded(self.meta, self.row_groups.iter().copied(), leaf)
            }
        }
    }
}

/// Whether leaf `leaf` has a dictionary in each of the row groups `row_groups` of `meta`
/// (a dictionary page, or dictionary-encoded pages by its `encodings`).
pub(crate) fn all_dictionary_encoded(
    meta: &FileMetaData,
    mut row_groups: impl Iterator<Item = usize>,
    leaf: usize,
) -> bool {
    let groups = meta.row_groups();
    row_groups.all(|rg| {
        groups
            .get(rg)
            .and_then(|g| g.columns().get(leaf))
            .is_some_and(|c| {
                c.dictionary_page_offset().is_some()
                    || c.encodings().contains(Encoding::PlainDictionary)
                    || c.encodings().contains(Encoding::RleDictionary)
            })
    })
}

/// `field` with its nested fields replaced by `children` (the struct's fields, or the one
/// item / entries field of a list or map), named as pyarrow names a pruned selection: a list
/// whose elements lost fields calls its element `item`, and a map whose entries kept only
/// the key or only the value becomes a list of those entries, its element named after the
/// map and required.
fn with_children(field: &Field, children: &[Field]) -> Result<Field> {
    let one = || -> Result<&Field> {
        match children {
            [c] => Ok(c),
            _ => Err(Error::new(ErrorKind::SchemaConversion(format!(
                "`{}` needs one child field, not {}",
                field.name(),
                children.len()
            )))),
        }
    };
    let item = |old: &Field| -> Result<Arc<Field>> {
        let new = one()?;
        Ok(Arc::new(if lost_fields(new.data_type(), old.data_type()) {
            new.clone().with_name("item")
        } else {
            new.clone()
        }))
    };
    let t = match field.data_type() {
        DataType::Struct(_) => DataType::Struct(Fields::from(children.to_vec())),
        DataType::List(old) => DataType::List(item(old)?),
        DataType::LargeList(old) => DataType::LargeList(item(old)?),
        DataType::ListView(old) => DataType::ListView(item(old)?),
        DataType::LargeListView(old) => DataType::LargeListView(item(old)?),
        DataType::FixedSizeList(old, n) => DataType::FixedSizeList(item(old)?, *n),
        DataType::Map(_, sorted) => {
            let entries = one()?;
            match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => {
                    DataType::Map(Arc::new(entries.clone()), *sorted)
                }
                t => DataType::List(Arc::new(Field::new(field.name(), t.clone(), false))),
            }
        }
        other => other.clone(),
    };
    Ok(field.clone().with_data_type(t))
}

/// Whether `new`, a selection of `old`, lacks a field of one of `old`'s structs.
fn lost_fields(new: &DataType, old: &DataType) -> bool {
    match (new, old) {
        (DataType::Struct(n), DataType::Struct(o)) => {
            n.len() < o.len()
                || n.iter().any(|f| {
                    o.iter()
                        .find(|g| g.name() == f.name())
                        .is_some_and(|g| lost_fields(f.data_type(), g.data_type()))
                })
        }
        (
            DataType::List(n)
            | DataType::LargeList(n)
            | DataType::ListView(n)
            | DataType::LargeListView(n)
            | DataType::FixedSizeList(n, _),
            DataType::List(o)
            | DataType::LargeList(o)
            | DataType::ListView(o)
            | DataType::LargeListView(o)
            | DataType::FixedSizeList(o, _)
            | DataType::Map(o, _),
        )
        | (DataType::Map(n, _), DataType::Map(o, _)) => lost_fields(n.data_type(), o.data_type()),
        _ => false,
    }
}

/// `t` with its strings as binary: see [`InvalidUtf8::Binary`].
fn strings_as_binary(t: &DataType) -> DataType {
    match t {
        DataType::Utf8 => DataType::Binary,
        DataType::LargeUtf8 => DataType::LargeBinary,
        DataType::Utf8View => DataType::BinaryView,
        DataType::Dictionary(k, v) => {
            DataType::Dictionary(k.clone(), Box::new(strings_as_binary(v)))
        }
        other => other.clone(),
    }
}
