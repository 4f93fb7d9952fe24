//! The walk of the Parquet schema tree into Arrow fields, following pyarrow 26
//! (`parquet/arrow/schema.cc`): structs, LIST groups (3-level, and the legacy 2-level and
//! 1-level forms of LogicalTypes.md's backward-compatibility rules), MAP and MAP_KEY_VALUE
//! groups, repeated groups and repeated primitives without annotation.
//!
//! Each Arrow field is a [`FieldNode`] that keeps its children (the list item, the map's
//! entries struct and its key and value, struct fields) and, for primitives, the leaf column.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, TimeUnit as ArrowTimeUnit};
use parq_format::metadata::{
    ConvertedType, LogicalType, PhysicalType, Repetition, Schema as ParquetSchema, SchemaElement,
};

use super::annotation::{self, schema_error};
use crate::Result;

/// Arrow field metadata key of the Parquet `field_id`.
pub const FIELD_ID_KEY: &str = "PARQUET:field_id";
/// Arrow field metadata key naming an extension type.
pub const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";
/// Arrow field metadata key of an extension type's serialized metadata.
pub const EXTENSION_METADATA_KEY: &str = "ARROW:extension:metadata";

/// Groups nested deeper than this are refused (the walk recurses; pyarrow has no limit but
/// such schemas do not occur in practice).
pub const MAX_NESTING: usize = 200;

/// One Arrow field of the converted schema, with the fields nested in it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldNode {
    /// The Arrow field (its type is consistent with `children`).
    pub field: Field,
    /// Nested fields: struct fields, the list item, the map's entries struct (whose children
    /// are the key and the value).
    pub children: Vec<FieldNode>,
    /// For a primitive: the index of its leaf column.
    pub leaf: Option<usize>,
    /// Index in [`ParquetSchema::elements`] of the element this field comes from.
    pub element: usize,
    /// Max definition level of that element.
    pub def_level: i16,
    /// Max repetition level of that element.
    pub rep_level: i16,
}

#[derive(Clone, Copy)]
struct Levels {
    def: i16,
    rep: i16,
}

struct Walker<'a> {
    schema: &'a ParquetSchema,
    /// Children element indices of every element.
    children: Vec<Vec<usize>>,
    leaf_of: HashMap<usize, usize>,
    int96_unit: ArrowTimeUnit,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum GroupKind {
    Plain,
    List,
    Map,
}

/// Converts the Parquet schema to Arrow fields (one per child of the root).
pub fn convert(schema: &ParquetSchema, int96_unit: ArrowTimeUnit) -> Result<Vec<FieldNode>> {
    let elements = schema.elements();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); elements.len()];
    // Depth-first: a stack of (group, children still expected).
    let mut stack: Vec<(usize, i32)> = Vec::new();
    for (i, e) in elements.iter().enumerate() {
        while let Some(&(_, 0)) = stack.last() {
            stack.pop();
        }
        if let Some(top) = stack.last_mut() {
            top.1 -= 1;
            children[top.0].push(i);
        } else if i != 0 {
            return Err(schema_error("schema elements outside the root"));
        }
        if i == 0 || !e.is_leaf() {
            stack.push((i, e.num_children.unwrap_or(0).max(0)));
        }
    }
    let leaf_of = schema
        .leaves()
        .iter()
        .enumerate()
        .map(|(i, l)| (l.element as usize, i))
        .collect();
    let w = Walker {
        schema,
        children,
        leaf_of,
        int96_unit,
    };
    let root = Levels { def: 0, rep: 0 };
    let top = w.children.first().cloned().unwrap_or_default();
    top.into_iter().map(|c| w.node(c, root, 0)).collect()
}

fn field_id_metadata(e: &SchemaElement) -> HashMap<String, String> {
    match e.field_id {
        Some(id) if id >= 0 => HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]),
        _ => HashMap::new(),
    }
}

fn repetition(e: &SchemaElement) -> Repetition {
    e.repetition.unwrap_or(Repetition::Required)
}

impl Walker<'_> {
    fn elem(&self, i: usize) -> Result<&SchemaElement> {
        self.schema
            .elements()
            .get(i)
            .ok_or_else(|| schema_error(format!("no schema element {i}")))
    }

    fn name(&self, i: usize) -> String {
        self.schema.name(i).into_owned()
    }

    fn kids(&self, i: usize) -> &[usize] {
        self.children.get(i).map_or(&[], Vec::as_slice)
    }

    fn is_leaf(&self, i: usize) -> Result<bool> {
        Ok(self.elem(i)?.is_leaf())
    }

    /// The kind of group `e` is, and an error for annotations a group cannot carry.
    fn group_kind(&self, i: usize) -> Result<GroupKind> {
        let e = self.elem(i)?;
        if let Some(lt) = e.logical_type {
            return match lt {
                LogicalType::List => Ok(GroupKind::List),
                LogicalType::Map => Ok(GroupKind::Map),
                LogicalType::Variant { .. } | LogicalType::Unrecognized { .. } => {
                    Ok(GroupKind::Plain)
                }
                other => Err(schema_error(format!(
                    "logical type {other:?} cannot annotate group `{}`",
                    self.name(i)
                ))),
            };
        }
        match e.converted_type {
            None | Some(ConvertedType::Unknown(_)) => Ok(GroupKind::Plain),
            Some(ConvertedType::List) => Ok(GroupKind::List),
            Some(ConvertedType::Map | ConvertedType::MapKeyValue) => Ok(GroupKind::Map),
            Some(other) => Err(schema_error(format!(
                "converted type {other} cannot annotate group `{}`",
                self.name(i)
            ))),
        }
    }

    fn levels(&self, i: usize, parent: Levels) -> Result<Levels> {
        let mut l = parent;
        match repetition(self.elem(i)?) {
            Repetition::Optional => l.def += 1,
            Repetition::Repeated => {
                l.def += 1;
                l.rep += 1;
            }
            _ => {}
        }
        Ok(l)
    }

    fn make(
        &self,
        i: usize,
        field: Field,
        children: Vec<FieldNode>,
        leaf: Option<usize>,
        l: Levels,
    ) -> FieldNode {
        FieldNode {
            field,
            children,
            leaf,
            element: i,
            def_level: l.def,
            rep_level: l.rep,
        }
    }

    /// The Arrow type of primitive element `i`, with the extension metadata pyarrow attaches.
    fn primitive_type(&self, i: usize) -> Result<(DataType, HashMap<String, String>)> {
        let e = self.elem(i)?;
        let a = annotation::resolve(e)?;
        let phys = e
            .physical_type
            .ok_or_else(|| schema_error("a leaf without a physical type"))?;
        let (t, ext) =
            annotation::arrow_type(phys, e.type_length.unwrap_or(0), a, self.int96_unit)?;
        let mut md = HashMap::new();
        if let Some(name) = ext {
            md.insert(EXTENSION_NAME_KEY.to_string(), name.to_string());
            md.insert(EXTENSION_METADATA_KEY.to_string(), String::new());
        }
        if a == annotation::Annotation::Geospatial && phys == PhysicalType::ByteArray {
            if let Some(lt) = &e.logical_type {
                if let Some(geo) = super::geo::extension_metadata(lt, self.schema.buf())? {
                    md.insert(
                        EXTENSION_NAME_KEY.to_string(),
                        super::geo::WKB_EXTENSION.to_string(),
                    );
                    md.insert(EXTENSION_METADATA_KEY.to_string(), geo);
                }
            }
        }
        Ok((t, md))
    }

    /// `NodeToSchemaField`.
    fn node(&self, i: usize, parent: Levels, depth: usize) -> Result<FieldNode> {
        if depth > MAX_NESTING {
            return Err(schema_error(format!(
                "schema nested deeper than {MAX_NESTING} levels"
            )));
        }
        let e = self.elem(i)?;
        let l = self.levels(i, parent)?;
        if !e.is_leaf() {
            return self.group(i, parent, depth);
        }
        let (t, mut md) = self.primitive_type(i)?;
        let leaf = self.leaf_of.get(&i).copied();
        let name = self.name(i);
        if repetition(e) == Repetition::Repeated {
            // 1-level list: `repeated TYPE name` is a non-null list of non-null items.
            let item = Field::new(name.clone(), t, false).with_metadata(md);
            let item_node = self.make(i, item.clone(), Vec::new(), leaf, l);
            let list = Field::new(name, DataType::List(Arc::new(item)), false)
                .with_metadata(field_id_metadata(e));
            return Ok(self.make(i, list, vec![item_node], None, l));
        }
        md.extend(field_id_metadata(e));
        let f = Field::new(name, t, repetition(e) == Repetition::Optional).with_metadata(md);
        Ok(self.make(i, f, Vec::new(), leaf, l))
    }

    /// `GroupToSchemaField`.
    fn group(&self, i: usize, parent: Levels, depth: usize) -> Result<FieldNode> {
        match self.group_kind(i)? {
            GroupKind::List => self.list(i, parent, depth, false),
            GroupKind::Map => self.map(i, parent, depth, false),
            GroupKind::Plain => {
                let e = self.elem(i)?;
                let l = self.levels(i, parent)?;
                if repetition(e) == Repetition::Repeated {
                    // A repeated group: a non-null list of non-null structs.
                    let item = self.strukt(i, l, depth)?;
                    let list = Field::new(
                        self.name(i),
                        DataType::List(Arc::new(item.field.clone())),
                        false,
                    )
                    .with_metadata(field_id_metadata(e));
                    Ok(self.make(i, list, vec![item], None, l))
                } else {
                    self.strukt(i, l, depth)
                }
            }
        }
    }

    /// `GroupToStruct`: group `i` as a struct (its levels `l` already include its own
    /// repetition); nullable when the group is optional.
    fn strukt(&self, i: usize, l: Levels, depth: usize) -> Result<FieldNode> {
        let e = self.elem(i)?;
        let children = self
            .kids(i)
            .iter()
            .map(|&c| self.node(c, l, depth + 1))
            .collect::<Result<Vec<_>>>()?;
        let fields: Fields = children.iter().map(|c| c.field.clone()).collect();
        let mut metadata = field_id_metadata(e);
        let variant = matches!(e.logical_type, Some(LogicalType::Variant { .. }));
        if variant {
            metadata.insert(
                EXTENSION_NAME_KEY.to_string(),
                crate::variant::EXTENSION_NAME.to_string(),
            );
            metadata.insert(EXTENSION_METADATA_KEY.to_string(), String::new());
        }
        let f = Field::new(
            self.name(i),
            DataType::Struct(fields),
            repetition(e) == Repetition::Optional,
        )
        .with_metadata(metadata);
        if variant {
            crate::variant::check_variant_field(&f)?;
        }
        Ok(self.make(i, f, children, None, l))
    }

    /// `ListToSchemaField`. `as_element`: group `i` is itself the repeated element of an
    /// outer list (a LIST-annotated repeated group, the legacy nested 2-level form); it is
    /// then a non-null element and may be repeated.
    fn list(&self, i: usize, parent: Levels, depth: usize, as_element: bool) -> Result<FieldNode> {
        let e = self.elem(i)?;
        let name = self.name(i);
        let kids = self.kids(i);
        let [ln] = kids else {
            return Err(schema_error(format!(
                "LIST-annotated group `{name}` must have a single child"
            )));
        };
        let ln = *ln;
        if !as_element && repetition(e) == Repetition::Repeated {
            return Err(schema_error(format!(
                "LIST-annotated group `{name}` must not be repeated"
            )));
        }
        let l = self.levels(i, parent)?;
        let lnode = self.elem(ln)?;
        if repetition(lnode) != Repetition::Repeated {
            return Err(schema_error(format!(
                "the child of LIST-annotated group `{name}` must be repeated"
            )));
        }
        let ll = self.levels(ln, l)?;
        let item = if self.is_leaf(ln)? {
            // 2-level list: `repeated TYPE item` holds non-null items.
            let (t, mut md) = self.primitive_type(ln)?;
            md.extend(field_id_metadata(lnode));
            let f = Field::new(self.name(ln), t, false).with_metadata(md);
            self.make(ln, f, Vec::new(), self.leaf_of.get(&ln).copied(), ll)
        } else {
            let inner = self.kids(ln);
            match inner {
                [] => {
                    return Err(schema_error(format!(
                        "the repeated group of LIST `{name}` has no child"
                    )))
                }
                [rf] => {
                    let rf = *rf;
                    if repetition(self.elem(rf)?) == Repetition::Repeated {
                        // The repeated group is the element (LogicalTypes.md rule 3).
                        match self.group_kind(ln)? {
                            GroupKind::List => {
                                // pyarrow refuses the repeated LIST group when its own
                                // repeated child would be a 3-level wrapper (one field, not
                                // repeated, not named as a struct element).
                                let kids = self.kids(rf);
                                let rf_name = self.name(rf);
                                let struct_name = rf_name == "array"
                                    || rf_name == format!("{}_tuple", self.name(ln));
                                if let [only] = kids {
                                    if !struct_name
                                        && repetition(self.elem(*only)?) != Repetition::Repeated
                                    {
                                        return Err(schema_error(format!(
                                            "LIST-annotated group `{}` must not be repeated",
                                            self.name(ln)
                                        )));
                                    }
                                }
                                self.list(ln, l, depth + 1, true)?
                            }
                            GroupKind::Map => self.map(ln, l, depth + 1, true)?,
                            GroupKind::Plain => self.strukt(ln, ll, depth + 1)?,
                        }
                    } else if self.name(ln) == "array" || self.name(ln) == format!("{name}_tuple") {
                        // LogicalTypes.md rule 4: a one-field struct element.
                        self.strukt(ln, ll, depth + 1)?
                    } else {
                        // The standard 3-level list.
                        self.node(rf, ll, depth + 1)?
                    }
                }
                _ => self.strukt(ln, ll, depth + 1)?,
            }
        };
        let nullable = !as_element && repetition(e) == Repetition::Optional;
        let f = Field::new(name, DataType::List(Arc::new(item.field.clone())), nullable)
            .with_metadata(field_id_metadata(e));
        Ok(self.make(i, f, vec![item], None, l))
    }

    /// `MapToSchemaField`; `as_element` as for [`Walker::list`].
    fn map(&self, i: usize, parent: Levels, depth: usize, as_element: bool) -> Result<FieldNode> {
        let e = self.elem(i)?;
        let name = self.name(i);
        let [kv] = self.kids(i) else {
            return Err(schema_error(format!(
                "MAP-annotated group `{name}` must have a single child"
            )));
        };
        let kv = *kv;
        if !as_element && repetition(e) == Repetition::Repeated {
            return Err(schema_error(format!(
                "MAP-annotated group `{name}` must not be repeated"
            )));
        }
        let kve = self.elem(kv)?;
        if repetition(kve) != Repetition::Repeated {
            return Err(schema_error(format!(
                "the key-value child of MAP-annotated group `{name}` must be repeated"
            )));
        }
        if kve.is_leaf() {
            return Err(schema_error(format!(
                "the key-value child of MAP-annotated group `{name}` must be a group"
            )));
        }
        let kvkids = self.kids(kv);
        let Some(&key) = kvkids.first() else {
            return Err(schema_error(format!(
                "the key-value group of map `{name}` must have 1 or 2 children, not 0"
            )));
        };
        if kvkids.len() > 2 {
            return Err(schema_error(format!(
                "the key-value group of map `{name}` must have 1 or 2 children, not {}",
                kvkids.len()
            )));
        }
        if repetition(self.elem(key)?) != Repetition::Required {
            return Err(schema_error(format!(
                "the keys of map `{name}` must be required"
            )));
        }
        if kvkids.len() == 1 {
            // A map without values (a set) reads as a list of its keys.
            return self.list(i, parent, depth, as_element);
        }
        let l = self.levels(i, parent)?;
        let ll = self.levels(kv, l)?;
        let k = self.node(kvkids[0], ll, depth + 1)?;
        let v = self.node(kvkids[1], ll, depth + 1)?;
        let entries = Field::new(
            name.clone(),
            DataType::Struct(Fields::from(vec![k.field.clone(), v.field.clone()])),
            false,
        )
        .with_metadata(field_id_metadata(kve));
        let entries_node = self.make(kv, entries.clone(), vec![k, v], None, ll);
        let nullable = !as_element && repetition(e) == Repetition::Optional;
        let f = Field::new(name, DataType::Map(Arc::new(entries), false), nullable)
            .with_metadata(field_id_metadata(e));
        Ok(self.make(i, f, vec![entries_node], None, l))
    }
}
