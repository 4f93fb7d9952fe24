//! `SchemaElement` and [`Schema`]: the flattened schema list of the footer plus what is
//! derived from it once per file (leaf columns, their paths and max definition/repetition
//! levels). A `Schema` owns its bytes, so it can be shared (`Arc`) across files that have the
//! same schema and reused without decoding it again.

use std::borrow::Cow;

use super::{
    keep_binary, Arena, ByteRange, ConvertedType, LogicalType, PhysicalType, Repetition,
    StructWriter, UnknownFields,
};
use crate::error::{Error, ErrorKind, Result};
use crate::thrift::{wire, Reader, Writer};

/// `SchemaElement`: one node of the flattened (depth-first) schema.
///
/// ```thrift
/// struct SchemaElement {
///   1: optional Type type;
///   2: optional i32 type_length;
///   3: optional FieldRepetitionType repetition_type;
///   4: required string name;
///   5: optional i32 num_children;
///   6: optional ConvertedType converted_type;
///   7: optional i32 scale;
///   8: optional i32 precision;
///   9: optional i32 field_id;
///   10: optional LogicalType logicalType;
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaElement {
    /// Field 1, `type`: set for leaves.
    pub physical_type: Option<PhysicalType>,
    /// Field 2, `type_length`: for FIXED_LEN_BYTE_ARRAY.
    pub type_length: Option<i32>,
    /// Field 3, `repetition_type`: absent only for the root.
    pub repetition: Option<Repetition>,
    /// Field 4, `name` (a range of the schema's buffer).
    pub name: ByteRange,
    /// Field 5, `num_children`: set for groups.
    pub num_children: Option<i32>,
    /// Field 6, `converted_type`.
    pub converted_type: Option<ConvertedType>,
    /// Field 7, `scale`.
    pub scale: Option<i32>,
    /// Field 8, `precision`.
    pub precision: Option<i32>,
    /// Field 9, `field_id`.
    pub field_id: Option<i32>,
    /// Field 10, `logicalType`.
    pub logical_type: Option<LogicalType>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

impl SchemaElement {
    const NAME: &'static str = "SchemaElement";

    /// True if this element is a leaf (a primitive column): it has a physical type and no
    /// children, as parquet-cpp decides.
    pub fn is_leaf(&self) -> bool {
        self.num_children.unwrap_or(0) == 0 && self.physical_type.is_some()
    }

    /// Decodes an element laid out the common way: short field headers in id order, its
    /// integer fields, its name and its logical type, no unknown field. `None` (with the
    /// reader and `arena` as they were) leaves it to the general decoder.
    #[inline(always)]
    fn decode_fast(r: &mut Reader<'_>, arena: &mut Arena) -> Option<SchemaElement> {
        let (start, mark) = (r.pos(), arena.len());
        let mut e = SchemaElement::default();
        let mut has_name = false;
        let mut id = 0u8;
        let ok = loop {
            let Ok(b) = r.read_byte() else {
                break false;
            };
            let (delta, ty) = (b >> 4, b & 0x0f);
            if b == wire::STOP {
                break has_name;
            }
            if delta == 0 {
                break false;
            }
            id += delta;
            let done = match (id, ty) {
                (4, wire::BINARY) => r.read_binary().map(|v| {
                    e.name = arena.push(v);
                    has_name = true;
                }),
                (1..=3 | 5..=9, wire::I32) => r.read_i32().map(|v| match id {
                    1 => e.physical_type = Some(PhysicalType::from_thrift(v)),
                    2 => e.type_length = Some(v),
                    3 => e.repetition = Some(Repetition::from_thrift(v)),
                    5 => e.num_children = Some(v),
                    6 => e.converted_type = Some(ConvertedType::from_thrift(v)),
                    7 => e.scale = Some(v),
                    8 => e.precision = Some(v),
                    _ => e.field_id = Some(v),
                }),
                (10, wire::STRUCT) => {
                    LogicalType::decode(r, arena).map(|v| e.logical_type = Some(v))
                }
                _ => break false,
            };
            if done.is_err() {
                break false;
            }
        };
        if ok {
            return Some(e);
        }
        r.set_pos(start);
        arena.truncate(mark);
        None
    }

    /// Decodes one element; byte values go to `arena`.
    pub fn decode(r: &mut Reader<'_>, arena: &mut Arena) -> Result<Self> {
        if let Some(e) = Self::decode_fast(r, arena) {
            return Ok(e);
        }
        let mut e = SchemaElement::default();
        let mut has_name = false;
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| match (id, ty) {
            (1, wire::I32) => r
                .read_i32()
                .map(|v| e.physical_type = Some(PhysicalType::from_thrift(v))),
            (2, wire::I32) => r.read_i32().map(|v| e.type_length = Some(v)),
            (3, wire::I32) => r
                .read_i32()
                .map(|v| e.repetition = Some(Repetition::from_thrift(v))),
            (4, wire::BINARY) => keep_binary(r, &mut Some(&mut *arena), None).map(|v| {
                e.name = v;
                has_name = true;
            }),
            (5, wire::I32) => r.read_i32().map(|v| e.num_children = Some(v)),
            (6, wire::I32) => r
                .read_i32()
                .map(|v| e.converted_type = Some(ConvertedType::from_thrift(v))),
            (7, wire::I32) => r.read_i32().map(|v| e.scale = Some(v)),
            (8, wire::I32) => r.read_i32().map(|v| e.precision = Some(v)),
            (9, wire::I32) => r.read_i32().map(|v| e.field_id = Some(v)),
            (10, wire::STRUCT) => LogicalType::decode(r, arena).map(|v| e.logical_type = Some(v)),
            _ => e.unknown.keep(r, Some(&mut *arena), id, ty),
        })?;
        r.leave();
        if !has_name {
            return Err(super::missing(r, Self::NAME, "name"));
        }
        Ok(e)
    }

    /// Encodes the element; byte ranges refer to `buf`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut s = StructWriter::new(&self.unknown, buf);
        if let Some(v) = self.physical_type {
            s.i32(w, 1, v.to_thrift());
        }
        if let Some(v) = self.type_length {
            s.i32(w, 2, v);
        }
        if let Some(v) = self.repetition {
            s.i32(w, 3, v.to_thrift());
        }
        s.binary(w, 4, self.name.slice(buf));
        if let Some(v) = self.num_children {
            s.i32(w, 5, v);
        }
        if let Some(v) = self.converted_type {
            s.i32(w, 6, v.to_thrift());
        }
        if let Some(v) = self.scale {
            s.i32(w, 7, v);
        }
        if let Some(v) = self.precision {
            s.i32(w, 8, v);
        }
        if let Some(v) = self.field_id {
            s.i32(w, 9, v);
        }
        if let Some(v) = &self.logical_type {
            s.field(w, wire::STRUCT, 10);
            v.encode(w, buf);
        }
        s.end(w);
    }
}

/// A leaf (primitive) column of the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    /// Index of the leaf's element in [`Schema::elements`].
    pub element: u32,
    /// Maximum definition level.
    pub max_def_level: i16,
    /// Maximum repetition level.
    pub max_rep_level: i16,
    path_start: u32,
    path_len: u32,
}

/// The decoded schema of a file: its elements (the flattened tree, root first) and the leaf
/// columns with their paths and max levels. Owns the bytes its ranges point into.
#[derive(Debug, Clone)]
pub struct Schema {
    buf: bytes::Bytes,
    elements: Vec<SchemaElement>,
    leaves: Vec<Leaf>,
    /// Element indices of every leaf's path (root excluded), concatenated.
    paths: Vec<u32>,
    /// The encoded `list<SchemaElement>` this schema was decoded from (for reuse checks).
    raw: ByteRange,
}

impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        self.raw_bytes() == other.raw_bytes()
    }
}

impl Schema {
    /// Decodes the `list<SchemaElement>` at the reader's position (after the field header)
    /// and derives the tree. The encoded list is kept so a later file can reuse this schema
    /// when its bytes are equal.
    pub fn decode_list(r: &mut Reader<'_>) -> Result<Schema> {
        let start = r.pos();
        let n = r.read_list_len()?;
        let mut arena = Arena::with_capacity(r.remaining().min(n * 16));
        let mut elements = Vec::with_capacity(n);
        for i in 0..n {
            let e = SchemaElement::decode(r, &mut arena)
                .map_err(|e| e.in_element("SchemaElement", i as u32))?;
            elements.push(e);
        }
        let raw = arena.push(&r.buf()[start..r.pos()]);
        Schema::from_elements(elements, arena.freeze(), raw).map_err(|e| e.with_offset(r.offset()))
    }

    /// Builds a schema from elements whose byte ranges point into `buf`; `raw` is the range of
    /// the encoded list inside `buf` (may be empty).
    pub fn from_elements(
        elements: Vec<SchemaElement>,
        buf: bytes::Bytes,
        raw: ByteRange,
    ) -> Result<Schema> {
        let (leaves, paths) = derive_leaves(&elements)?;
        Ok(Schema {
            buf,
            elements,
            leaves,
            paths,
            raw,
        })
    }

    /// The schema of the root's children `fields` (indices among them, ascending, each at
    /// most once) with their subtrees, and the leaves of this schema it keeps, in order.
    pub fn project(&self, fields: &[usize]) -> Result<(Schema, Vec<usize>)> {
        let bad = |msg: String| Error::new(ErrorKind::InvalidArgument(msg));
        if fields.windows(2).any(|w| w[0] >= w[1]) {
            return Err(bad("projected fields must be ascending and distinct".into()));
        }
        let Some(root) = self.elements.first() else {
            return Err(bad("the schema has no elements".into()));
        };
        let spans = self.top_level()?;
        let children = spans.len();
        let chosen = fields
            .iter()
            .map(|&f| {
                spans.get(f).cloned().ok_or_else(|| {
                    bad(format!(
                        "field {f} of a schema of {children} top-level fields"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut out = Vec::new();
        let w = &mut Writer::new(&mut out);
        let count = 1 + chosen.iter().map(|r| r.len()).sum::<usize>();
        w.write_list_header(wire::STRUCT, count);
        let mut top = root.clone();
        top.num_children = Some(fields.len() as i32);
        top.encode(w, &self.buf);
        for span in &chosen {
            for e in &self.elements[span.clone()] {
                e.encode(w, &self.buf);
            }
        }
        let schema = Schema::decode_list(&mut Reader::new(&out))?;
        let kept = chosen
            .iter()
            .flat_map(|span| self.leaves_in(span))
            .collect();
        Ok((schema, kept))
    }

    /// The element range of each top-level field's subtree (the root's children, in order).
    pub fn top_level(&self) -> Result<Vec<std::ops::Range<usize>>> {
        let children = self
            .elements
            .first()
            .and_then(|root| usize::try_from(root.num_children.unwrap_or(0)).ok())
            .unwrap_or(0);
        let mut spans = Vec::with_capacity(children.min(self.elements.len()));
        let mut at = 1;
        for _ in 0..children {
            let end = self.subtree_end(at)?;
            spans.push(at..end);
            at = end;
        }
        Ok(spans)
    }

    /// The leaves whose elements lie in `elements` (a range of element indices), in order.
    pub fn leaves_in(&self, elements: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        // Leaves are in element order.
        let first = self
            .leaves
            .partition_point(|l| (l.element as usize) < elements.start);
        let end = self
            .leaves
            .partition_point(|l| (l.element as usize) < elements.end);
        first..end.max(first)
    }

    /// The index after the subtree whose root element is `start`.
    fn subtree_end(&self, start: usize) -> Result<usize> {
        let mut open = 1usize;
        let mut i = start;
        while open > 0 {
            let Some(e) = self.elements.get(i) else {
                return Err(Error::new(ErrorKind::Inconsistent(
                    "the schema declares more children than it has elements".into(),
                )));
            };
            open = open - 1 + usize::try_from(e.num_children.unwrap_or(0)).unwrap_or(0);
            i += 1;
        }
        Ok(i)
    }

    /// The buffer that the elements' byte ranges point into.
    pub fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// The encoded `list<SchemaElement>` this schema was decoded from.
    pub fn raw_bytes(&self) -> &[u8] {
        self.raw.slice(&self.buf)
    }

    /// All elements, root first, depth-first.
    pub fn elements(&self) -> &[SchemaElement] {
        &self.elements
    }

    /// The leaf columns in file order.
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// The number of leaf columns.
    pub fn num_columns(&self) -> usize {
        self.leaves.len()
    }

    /// The name of element `i`, as raw bytes.
    pub fn name_bytes(&self, i: usize) -> &[u8] {
        self.elements
            .get(i)
            .map_or(&[][..], |e| e.name.slice(&self.buf))
    }

    /// The name of element `i` (lossy if it is not UTF-8).
    pub fn name(&self, i: usize) -> Cow<'_, str> {
        String::from_utf8_lossy(self.name_bytes(i))
    }

    /// The element indices on the path of leaf `leaf` (root excluded, leaf included).
    pub fn leaf_path_elements(&self, leaf: usize) -> &[u32] {
        self.leaves.get(leaf).map_or(&[][..], |l| {
            let s = l.path_start as usize;
            &self.paths[s..s + l.path_len as usize]
        })
    }

    /// The path of leaf `leaf` as names (`path_in_schema`).
    pub fn leaf_path(&self, leaf: usize) -> impl Iterator<Item = &[u8]> + '_ {
        self.leaf_path_elements(leaf)
            .iter()
            .map(move |&e| self.name_bytes(e as usize))
    }

    /// The dotted path of leaf `leaf`, e.g. `"a.b.c"`.
    pub fn leaf_path_string(&self, leaf: usize) -> String {
        let parts: Vec<Cow<'_, str>> = self.leaf_path(leaf).map(String::from_utf8_lossy).collect();
        parts.join(".")
    }

    /// The index of the leaf whose dotted path is `path`.
    pub fn leaf_index(&self, path: &str) -> Option<usize> {
        (0..self.leaves.len()).find(|&i| {
            let mut want = path.split('.');
            self.leaf_path(i)
                .all(|p| want.next().map(str::as_bytes) == Some(p))
                && want.next().is_none()
        })
    }

    /// True if column chunks written for `other` are column chunks of this schema: the same
    /// tree below the root (names, repetitions, children) and the same physical type, type
    /// length, logical type (or, where neither has one, converted type), scale and precision
    /// at every element. Field ids and the root's name may differ.
    pub fn same_layout(&self, other: &Schema) -> bool {
        if self.elements.len() != other.elements.len() {
            return false;
        }
        let mut pairs = self.elements.iter().zip(&other.elements).enumerate();
        pairs.all(|(i, (a, b))| {
            let names = i == 0 || self.name_bytes(i) == other.name_bytes(i);
            let annotation = plain_annotation(a) == plain_annotation(b);
            names
                && annotation
                && a.physical_type == b.physical_type
                && a.type_length == b.type_length
                && (i == 0 || a.repetition == b.repetition)
                && a.num_children == b.num_children
                && a.scale == b.scale
                && a.precision == b.precision
        })
    }

    /// The element of leaf `leaf`.
    pub fn leaf_element(&self, leaf: usize) -> Option<&SchemaElement> {
        self.leaves
            .get(leaf)
            .and_then(|l| self.elements.get(l.element as usize))
    }

    /// Heap bytes held (elements, leaves, paths and the byte buffer).
    pub fn heap_bytes(&self) -> usize {
        self.buf.len()
            + self.elements.capacity() * std::mem::size_of::<SchemaElement>()
            + self
                .elements
                .iter()
                .map(|e| e.unknown.heap_bytes())
                .sum::<usize>()
            + self.leaves.capacity() * std::mem::size_of::<Leaf>()
            + self.paths.capacity() * 4
    }

    /// Encodes the elements as a `list<SchemaElement>` (without a field header).
    pub fn encode_list(&self, w: &mut Writer<'_>) {
        w.write_list_header(wire::STRUCT, self.elements.len());
        for e in &self.elements {
            e.encode(w, &self.buf);
        }
    }
}

/// Walks the depth-first flattened tree and derives the leaves, without recursion.
fn derive_leaves(elements: &[SchemaElement]) -> Result<(Vec<Leaf>, Vec<u32>)> {
    let bad = |msg: String| Error::new(ErrorKind::Inconsistent(msg)).in_struct("schema");
    let Some(root) = elements.first() else {
        return Err(bad("the schema has no elements".into()));
    };
    let root_children = root.num_children.unwrap_or(0);
    if root_children < 0 {
        return Err(bad(format!(
            "root has a negative num_children ({root_children})"
        )));
    }
    // Stack of open groups: (children still to visit, def level, rep level) and the path.
    let mut stack: Vec<(i32, i16, i16)> = vec![(root_children, 0, 0)];
    let mut path: Vec<u32> = Vec::new();
    // A flat schema has a leaf, and a path of one, per element; nested ones fewer leaves.
    let mut leaves = Vec::with_capacity(elements.len() - 1);
    let mut paths = Vec::with_capacity(elements.len() - 1);
    let mut i = 1usize;
    while let Some(top) = stack.last_mut() {
        if top.0 == 0 {
            stack.pop();
            path.pop();
            continue;
        }
        top.0 -= 1;
        let (def, rep) = (top.1, top.2);
        let Some(e) = elements.get(i) else {
            return Err(bad(format!(
                "the schema declares more children than its {} elements",
                elements.len()
            )));
        };
        let (mut def, mut rep) = (def, rep);
        match e.repetition {
            Some(Repetition::Optional) => def += 1,
            Some(Repetition::Repeated) => {
                def += 1;
                rep += 1;
            }
            _ => {}
        }
        if def < 0 || rep < 0 {
            return Err(bad("nesting too deep for i16 levels".into()));
        }
        let children = e.num_children.unwrap_or(0);
        if children < 0 {
            return Err(bad(format!(
                "element {i} has a negative num_children ({children})"
            )));
        }
        if e.is_leaf() {
            let path_start = paths.len() as u32;
            paths.extend_from_slice(&path);
            paths.push(i as u32);
            leaves.push(Leaf {
                element: i as u32,
                max_def_level: def,
                max_rep_level: rep,
                path_start,
                path_len: (path.len() + 1) as u32,
            });
        } else {
            if stack.len() > 1000 {
                return Err(bad("schema nested deeper than 1000 groups".into()));
            }
            stack.push((children, def, rep));
            path.push(i as u32);
        }
        i += 1;
    }
    if i != elements.len() {
        return Err(bad(format!(
            "the schema tree covers {i} of its {} elements",
            elements.len()
        )));
    }
    Ok((leaves, paths))
}

/// An element's annotation (logical type, converted type) with a signed integer of the
/// physical type's width taken as no annotation: it means what none means.
fn plain_annotation(e: &SchemaElement) -> (Option<LogicalType>, Option<ConvertedType>) {
    let width = match e.physical_type {
        Some(PhysicalType::Int32) => 32,
        Some(PhysicalType::Int64) => 64,
        _ => return (e.logical_type, e.converted_type),
    };
    let logical_plain = match e.logical_type {
        None => true,
        Some(LogicalType::Integer {
            bit_width,
            is_signed,
        }) => is_signed && i32::from(bit_width) == width,
        Some(_) => false,
    };
    let converted_plain = match e.converted_type {
        None => true,
        Some(ConvertedType::Int32) => width == 32,
        Some(ConvertedType::Int64) => width == 64,
        Some(_) => false,
    };
    match logical_plain && converted_plain {
        true => (None, None),
        false => (e.logical_type, e.converted_type),
    }
}
