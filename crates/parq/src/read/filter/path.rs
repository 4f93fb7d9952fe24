//! What a filter's column name stands for in a file: a top-level field (a name that is a
//! top-level field's, dots included, is that field), a primitive field inside structs by
//! its dotted path (`s.a.b`), or an object field inside a Variant column (`v.a`, `v.a.b`:
//! field `b` of the object in field `a` of Variant `v`). [`resolve`] finds it in the file's
//! fields, [`find`] in the nodes of a read plan: the top-level field and the struct children
//! to walk down to the compared array; [`top_level`] and [`in_schema`] find it in the fields
//! of batches.
//!
//! A Variant field's statistics are those of its shredded columns: the `typed_value` leaf
//! of the field's group (`v.typed_value.a.typed_value`) and the field's residual `value`
//! leaf (`v.typed_value.a.value`), which holds the rows whose value has another type.

use arrow_schema::{DataType, Field, Schema};

use crate::read::plan::fields::{Node, Shape};
use crate::schema::FieldNode;
use crate::variant::is_variant;
use crate::{Error, ErrorKind, Result};

/// What a filter column names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target {
    /// A top-level field by its name.
    TopLevel,
    /// A primitive field inside structs: the field names from the top-level one down to it
    /// and its leaf column.
    Field { names: Vec<String>, leaf: usize },
    /// An object field of a Variant column: the names down to the Variant column (from the
    /// top-level field, through structs), the object field path inside the Variant, and the
    /// field's shredded leaves.
    Variant {
        names: Vec<String>,
        fields: Vec<String>,
        shredded: Shredded,
    },
}

/// The shredded leaves of a Variant object field.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Shredded {
    /// The primitive `typed_value` leaf and its Arrow type.
    pub typed: Option<(usize, DataType)>,
    /// The residual `value` leaf.
    pub value: Option<usize>,
}

/// What a filter column is in a read: see `BoundFilter::bind_with` (`filter/bind.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The top-level field of the decoded batch holding it.
    pub index: usize,
    /// The struct children (by position) from that field down to the compared array.
    pub path: Vec<usize>,
    /// The Parquet leaf whose statistics bound it (a Variant field's `typed_value` leaf);
    /// `None`: none.
    pub leaf: Option<usize>,
    /// The compared array's type (a Variant field's `typed_value` type).
    pub data_type: DataType,
    /// For a Variant object field: the field path inside the Variant and the field's
    /// residual `value` leaf (`None`: the group has none).
    pub variant: Option<(Vec<String>, Option<usize>)>,
}

fn path_error(name: &str, why: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "filter: column `{name}` {why}"
    )))
}

fn not_found(name: &str) -> Error {
    Error::new(ErrorKind::ColumnNotFound {
        path: name.to_string(),
    })
}

/// The field of the file (top-level fields `fields`) that filter column `name` names: see
/// [`walk`].
pub(crate) fn resolve(fields: &[FieldNode], name: &str) -> Result<Target> {
    if fields.iter().any(|f| f.field.name() == name) {
        return Ok(Target::TopLevel);
    }
    let tops: Vec<&Field> = fields.iter().map(|f| &f.field).collect();
    let walked = walk(&tops, name)?;
    let mut children = fields;
    let mut names = Vec::with_capacity(walked.positions.len());
    let mut node = None;
    for &p in &walked.positions {
        let n = children.get(p).ok_or_else(|| not_found(name))?;
        names.push(n.field.name().clone());
        children = &n.children;
        node = Some(n);
    }
    let node = node.ok_or_else(|| not_found(name))?;
    Ok(match walked.variant {
        Some(fields) => {
            let shredded = shredded_leaves(node, &fields);
            Target::Variant {
                names,
                fields,
                shredded,
            }
        }
        None => Target::Field {
            names,
            leaf: node.leaf.ok_or_else(|| not_found(name))?,
        },
    })
}

/// Where a dotted path leads among Arrow fields: the position of each field on the way (the
/// first among the top-level fields, each next among its struct's fields) and, when it ends
/// in a Variant column, the object field path inside it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Walked {
    pub positions: Vec<usize>,
    pub variant: Option<Vec<String>>,
}

/// Where filter column `name` leads from the top-level fields `fields` through structs: to
/// a primitive field, or into a Variant column. A name's dots may also be part of a field's
/// name: each way of cutting the path into names is tried, longer names first, and the
/// first that leads to a field is taken. A path ending at a struct or a Variant column, or
/// going into a list or map, is an error naming it.
pub(crate) fn walk(fields: &[&Field], name: &str) -> Result<Walked> {
    let segments: Vec<&str> = name.split('.').collect();
    let mut positions = Vec::new();
    match walk_in(name, fields, &segments, &mut positions)? {
        Some(variant) => Ok(Walked { positions, variant }),
        None => Err(not_found(name)),
    }
}

/// [`walk`] of `segments` among `children` (the positions so far in `positions`); `None`
/// when no child leads to a field, else the Variant object path if it ends in one.
fn walk_in(
    name: &str,
    children: &[&Field],
    segments: &[&str],
    positions: &mut Vec<usize>,
) -> Result<Option<Option<Vec<String>>>> {
    for k in (1..=segments.len()).rev() {
        let first = segments[..k].join(".");
        let Some(p) = children.iter().position(|c| *c.name() == first) else {
            continue;
        };
        positions.push(p);
        let rest = &segments[k..];
        let field = children[p];
        if is_variant(field) {
            if rest.is_empty() {
                return Err(path_error(
                    name,
                    "is a Variant column; filters take its object fields (`v.field`)",
                ));
            }
            return Ok(Some(Some(rest.iter().map(|s| s.to_string()).collect())));
        }
        let found = match field.data_type() {
            DataType::Struct(_) if rest.is_empty() => {
                return Err(path_error(
                    name,
                    "is a struct; filters take primitive fields inside it",
                ))
            }
            DataType::Struct(fs) => {
                let fs: Vec<&Field> = fs.iter().map(|f| f.as_ref()).collect();
                walk_in(name, &fs, rest, positions)?
            }
            t if t.is_nested() => {
                return Err(path_error(
                    name,
                    format_args!(
                        "goes into `{}` of type {t}; filters take fields of structs, not of \
                         lists or maps",
                        segments[..k].join(".")
                    ),
                ))
            }
            _ => rest.is_empty().then_some(None),
        };
        if found.is_some() {
            return Ok(found);
        }
        positions.pop();
    }
    Ok(None)
}

/// The shredded leaves of object field `fields` of the Variant group `node`: down through
/// each `typed_value` group holding the next field, the last group's primitive
/// `typed_value` and its `value`. None where a field is not shredded (its values are in an
/// enclosing `value`).
fn shredded_leaves(node: &FieldNode, fields: &[String]) -> Shredded {
    fn by_name<'a>(n: &'a FieldNode, name: &str) -> Option<&'a FieldNode> {
        n.children.iter().find(|c| c.field.name() == name)
    }
    let mut group = node;
    for f in fields {
        let Some(typed) = by_name(group, "typed_value") else {
            return Shredded::default();
        };
        if !matches!(typed.field.data_type(), DataType::Struct(_)) {
            return Shredded::default();
        }
        let Some(g) = by_name(typed, f) else {
            return Shredded::default();
        };
        group = g;
    }
    let typed =
        by_name(group, "typed_value").and_then(|t| Some((t.leaf?, t.field.data_type().clone())));
    let value = by_name(group, "value").and_then(|v| v.leaf);
    Shredded { typed, value }
}

/// The plan node `names` walks to from the top-level nodes `nodes` through structs: its
/// top-level index, the child positions on the way and the node; the first top-level node
/// that holds the path and that `accept` takes.
pub(crate) fn find<'a>(
    nodes: &'a [Node],
    names: &[String],
    accept: &dyn Fn(&Node) -> bool,
) -> Option<(usize, Vec<usize>, &'a Node)> {
    let (first, rest) = names.split_first()?;
    nodes.iter().enumerate().find_map(|(i, top)| {
        if top.field.name() != first {
            return None;
        }
        let mut node = top;
        let mut path = Vec::with_capacity(rest.len());
        for name in rest {
            let Shape::Struct(children) = &node.shape else {
                return None;
            };
            if node.variant {
                return None;
            }
            let p = children.iter().position(|c| c.field.name() == name)?;
            path.push(p);
            node = &children[p];
        }
        accept(node).then_some((i, path, node))
    })
}

/// The number of leaf columns under plan node `node`.
pub(crate) fn plan_leaves(node: &Node) -> usize {
    match &node.shape {
        Shape::Leaf(_) => 1,
        Shape::Struct(children) => children.iter().map(plan_leaves).sum(),
        Shape::List { child, .. } => plan_leaves(child),
    }
}

/// The number of leaf columns under file field `node`.
pub(crate) fn file_leaves(node: &FieldNode) -> usize {
    match node.leaf {
        Some(_) => 1,
        None => node.children.iter().map(file_leaves).sum(),
    }
}

/// The file field `names` walks to from top-level fields `fields` through struct children.
pub(crate) fn file_field<'a>(fields: &'a [FieldNode], names: &[String]) -> Option<&'a FieldNode> {
    let (first, rest) = names.split_first()?;
    let mut node = fields.iter().find(|f| f.field.name() == first)?;
    for name in rest {
        node = node.children.iter().find(|c| c.field.name() == name)?;
    }
    Some(node)
}

/// The top-level field `name` of `schema` (a decoded batch's), whose leaf columns are
/// `leaves` (the Parquet leaf of each top-level field, `None` for nested fields).
pub(crate) fn top_level(schema: &Schema, leaves: &[Option<usize>], name: &str) -> Result<Resolved> {
    let (index, field) = schema
        .column_with_name(name)
        .ok_or_else(|| not_found(name))?;
    let leaf = leaves.get(index).copied().flatten().ok_or_else(|| {
        path_error(
            name,
            format_args!(
                "is nested ({}); filters take primitive columns, top-level or inside structs \
                 by dotted path",
                field.data_type()
            ),
        )
    })?;
    Ok(Resolved {
        index,
        path: Vec::new(),
        leaf: Some(leaf),
        data_type: field.data_type().clone(),
        variant: None,
    })
}

/// Filter column `name` in the Arrow schema `schema` of batches (a dataset's): a top-level
/// field of that name as [`top_level`] finds it (each with the leaf `Some(0)`: no statistics
/// are asked of it), else a field inside structs or a Variant object field by dotted path
/// ([`walk`]), without a leaf: for filtering rows, not for pruning.
pub(crate) fn in_schema(schema: &Schema, name: &str) -> Result<Resolved> {
    if schema.column_with_name(name).is_some() {
        return top_level(schema, &vec![Some(0); schema.fields().len()], name);
    }
    let tops: Vec<&Field> = schema.fields().iter().map(|f| f.as_ref()).collect();
    let walked = walk(&tops, name)?;
    let (&index, path) = walked
        .positions
        .split_first()
        .ok_or_else(|| not_found(name))?;
    let mut field = tops.get(index).copied().ok_or_else(|| not_found(name))?;
    for &p in path {
        field = match field.data_type() {
            DataType::Struct(fs) => fs.get(p).map(|f| f.as_ref()),
            _ => None,
        }
        .ok_or_else(|| not_found(name))?;
    }
    let data_type = match walked.variant {
        Some(_) => DataType::Null,
        None => field.data_type().clone(),
    };
    Ok(Resolved {
        index,
        path: path.to_vec(),
        leaf: None,
        data_type,
        variant: walked.variant.map(|f| (f, None)),
    })
}

/// The top-level field of `schema` filter column `name` is in: its own, or the one its
/// dotted path starts in.
pub(crate) fn top_field_of<'a>(schema: &'a Schema, name: &str) -> Option<&'a str> {
    let index = in_schema(schema, name).ok()?.index;
    schema.fields().get(index).map(|f| f.name().as_str())
}
