//! What a filter's column name stands for in a file: a top-level field (a name that is a
//! top-level field's, dots included, is that field), a primitive field inside structs by
//! its dotted path (`s.a.b`), or an object field inside a Variant column (`v.a`, `v.a.b`:
//! field `b` of the object in field `a` of Variant `v`). [`resolve`] finds it in the file's
//! fields, [`find`] in the nodes of a read plan: the top-level field and the struct children
//! to walk down to the compared array.
//!
//! A Variant field's statistics are those of its shredded columns: the `typed_value` leaf
//! of the field's group (`v.typed_value.a.typed_value`) and the field's residual `value`
//! leaf (`v.typed_value.a.value`), which holds the rows whose value has another type.

use arrow_schema::DataType;

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

/// The field of the file (top-level fields `fields`) that filter column `name` names. A
/// name's dots may also be part of a field's name: each way of cutting the path into names
/// is tried, longer names first, and the first that leads to a field is taken.
pub(crate) fn resolve(fields: &[FieldNode], name: &str) -> Result<Target> {
    if fields.iter().any(|f| f.field.name() == name) {
        return Ok(Target::TopLevel);
    }
    let segments: Vec<&str> = name.split('.').collect();
    walk(name, fields, &segments, &mut Vec::new())?.ok_or_else(|| not_found(name))
}

/// The target `segments` names among `children` (reached through the fields `names`);
/// `None` when no child leads to a field.
fn walk(
    name: &str,
    children: &[FieldNode],
    segments: &[&str],
    names: &mut Vec<String>,
) -> Result<Option<Target>> {
    for k in (1..=segments.len()).rev() {
        let first = segments[..k].join(".");
        let Some(node) = children.iter().find(|c| *c.field.name() == first) else {
            continue;
        };
        names.push(first);
        if let Some(t) = at(name, node, &segments[k..], names)? {
            return Ok(Some(t));
        }
        names.pop();
    }
    Ok(None)
}

/// The target of `rest` below field `node` (reached through `names`, `node`'s own last).
fn at(
    name: &str,
    node: &FieldNode,
    rest: &[&str],
    names: &mut Vec<String>,
) -> Result<Option<Target>> {
    if is_variant(&node.field) {
        if rest.is_empty() {
            return Err(path_error(
                name,
                "is a Variant column; filters take its object fields (`v.field`)",
            ));
        }
        let fields: Vec<String> = rest.iter().map(|s| s.to_string()).collect();
        let shredded = shredded_leaves(node, &fields);
        return Ok(Some(Target::Variant {
            names: names.clone(),
            fields,
            shredded,
        }));
    }
    match node.field.data_type() {
        DataType::Struct(_) if rest.is_empty() => Err(path_error(
            name,
            "is a struct; filters take primitive fields inside it",
        )),
        DataType::Struct(_) => walk(name, &node.children, rest, names),
        t if t.is_nested() => Err(path_error(
            name,
            format_args!(
                "goes into `{}` of type {t}; filters take fields of structs, not of lists or \
                 maps",
                names.join(".")
            ),
        )),
        _ => Ok(node
            .leaf
            .filter(|_| rest.is_empty())
            .map(|leaf| Target::Field {
                names: names.clone(),
                leaf,
            })),
    }
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
