//! Record shredding: the definition and repetition levels of one leaf column from the Arrow
//! array of its top-level field, and the slots of the leaf array that the levels reach.
//!
//! The walk follows the leaf's path through the array: a struct passes its valid runs on to
//! the child (a null struct is one level entry), a list (List, LargeList, ListView,
//! LargeListView, FixedSizeList, Map) each element's child range (a null or empty list is one
//! entry), and the leaf writes one entry per slot. Definition levels count the optional and
//! repeated fields present above and at the entry, as the schema of
//! [`to_parquet_schema`](super::arrow_schema::to_parquet_schema) declares them; an entry's
//! repetition level is 0 at the start of a record, else the depth of the innermost list that
//! repeats. Slices with non-zero offsets (of any array on the path) are walked from their
//! offsets.
//!
//! An entry *has a slot* when it comes from a slot of the leaf array: every entry, except
//! those of null or empty lists (and null structs above the innermost list). Those entries
//! are exactly the ones whose definition level reaches the innermost list's repeated group
//! (see [`slot_level`]); the column writer takes the slots' values in entry order.

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::{make_array, Array, ArrayRef, UInt32Array, UInt64Array};
use arrow_buffer::bit_iterator::BitIterator;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field};

use super::arrow_schema::is_group;
use super::values::column_error;
use crate::format::metadata::{Repetition, Schema};
use crate::Result;

/// The levels of one leaf for the rows of a top-level array.
#[derive(Debug, Default)]
pub struct Shredded {
    /// A definition level per entry.
    pub def: Vec<u16>,
    /// A repetition level per entry (empty when the leaf is below no list).
    pub rep: Vec<u16>,
    /// The leaf array's slots reached by the entries, in entry order (as many as the entries
    /// whose definition level is at least the column's [`slot_level`]); `None` when no entry
    /// reaches a slot.
    pub values: Option<ArrayRef>,
}

/// The walk's output for one leaf.
struct Out<'n> {
    def: Vec<u16>,
    rep: Vec<u16>,
    repeated: bool,
    /// Slot ranges of `leaf`, adjacent ranges merged.
    slots: Vec<Range<usize>>,
    leaf: Option<ArrayRef>,
    /// The column's dotted name, for errors.
    name: &'n str,
}

impl Out<'_> {
    #[inline]
    fn entry(&mut self, def: u16, rep: u16) {
        self.def.push(def);
        if self.repeated {
            self.rep.push(rep);
        }
    }

    /// Slots `range` of the leaf array `leaf` have entries.
    fn slots(&mut self, leaf: &dyn Array, range: Range<usize>) {
        // A path reaches one leaf array, however often it is visited.
        if self.leaf.is_none() {
            self.leaf = Some(make_array(leaf.to_data()));
        }
        match self.slots.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => self.slots.push(range),
        }
    }
}

/// The error for nulls in an array whose field is not nullable, where they count.
#[cold]
fn required_has_nulls(name: &str) -> crate::Error {
    column_error(
        name,
        "a field on the column's path is not nullable but the array has nulls there",
    )
}

/// A step of a leaf's path below a group: which child of a struct (or of a map's entries:
/// 0 the key, 1 the value) the path takes.
pub type Path = [usize];

/// The levels of the leaf reached from `array` (the column of top-level field `field`) by
/// `path` (one child index per struct and map on the way; lists have one child), for all
/// its rows. `repeated`: the leaf has a list above it (its column has repetition levels).
pub fn shred(
    name: &str,
    field: &Field,
    array: &ArrayRef,
    path: &Path,
    repeated: bool,
) -> Result<Shredded> {
    let mut out = Out {
        def: Vec::with_capacity(array.len()),
        rep: Vec::with_capacity(if repeated { array.len() } else { 0 }),
        repeated,
        slots: Vec::new(),
        leaf: None,
        name,
    };
    visit(
        &Node::new(array.as_ref(), field.is_nullable()),
        path,
        0..array.len(),
        0,
        Reps {
            first: 0,
            next: 0,
            breaks: &[],
        },
        &mut out,
    )?;
    let values = match (out.leaf, out.slots.as_slice()) {
        (None, _) => None,
        (Some(leaf), [r]) => Some(leaf.slice(r.start, r.len())),
        (Some(leaf), []) => Some(leaf.slice(0, 0)),
        (Some(leaf), ranges) => Some(gather(name, &leaf, ranges)?),
    };
    Ok(Shredded {
        def: out.def,
        rep: out.rep,
        values,
    })
}

/// The slots `ranges` of `leaf`, one after the other, as one array.
fn gather(name: &str, leaf: &ArrayRef, ranges: &[Range<usize>]) -> Result<ArrayRef> {
    let n: usize = ranges.iter().map(Range::len).sum();
    let taken = if leaf.len() <= u32::MAX as usize {
        let mut idx = Vec::with_capacity(n);
        for r in ranges {
            idx.extend(r.start as u32..r.end as u32);
        }
        arrow_select::take::take(leaf.as_ref(), &UInt32Array::from(idx), None)
    } else {
        let mut idx = Vec::with_capacity(n);
        for r in ranges {
            idx.extend(r.start as u64..r.end as u64);
        }
        arrow_select::take::take(leaf.as_ref(), &UInt64Array::from(idx), None)
    };
    taken.map_err(|e| column_error(name, format_args!("gathering the leaf's values: {e}")))
}

/// An array on a leaf's path, with its nulls (taken once, however often it is visited).
struct Node<'a> {
    array: &'a dyn Array,
    /// The field may be null (a column of nulls always may, as the schema makes it).
    nullable: bool,
    /// The array's logical nulls, when it has any.
    nulls: Option<NullBuffer>,
}

impl<'a> Node<'a> {
    fn new(array: &'a dyn Array, nullable: bool) -> Node<'a> {
        Node {
            array,
            nullable: nullable || *array.data_type() == DataType::Null,
            nulls: array.logical_nulls().filter(|n| n.null_count() > 0),
        }
    }

    /// The nulls of slots `range` that count: none for a field that is not nullable (an
    /// error when the array has some there).
    fn nulls_in(&self, name: &str, range: &Range<usize>) -> Result<Option<&NullBuffer>> {
        match &self.nulls {
            Some(_) if self.nullable => Ok(self.nulls.as_ref()),
            Some(n) if n.slice(range.start, range.len()).null_count() > 0 => {
                Err(required_has_nulls(name))
            }
            _ => Ok(None),
        }
    }
}

/// Calls `f(run, valid)` for the maximal runs of equal validity of `range`, in order.
fn validity_runs(
    nulls: &NullBuffer,
    range: Range<usize>,
    mut f: impl FnMut(Range<usize>, bool) -> Result<()>,
) -> Result<()> {
    let mut at = range.start;
    let valid = nulls.inner().slice(range.start, range.len());
    for (s, e) in valid.set_slices() {
        let (s, e) = (range.start + s, range.start + e);
        if at < s {
            f(at..s, false)?;
        }
        f(s..e, true)?;
        at = e;
    }
    if at < range.end {
        f(at..range.end, false)?;
    }
    Ok(())
}

/// The repetition levels of the entries of a range of slots: the first entry of the
/// range's first slot is at `first`, the first entry of each slot in `breaks` (sorted
/// slot indices, inside the range) at the level given with it, every other entry at `next`.
#[derive(Clone, Copy)]
struct Reps<'b> {
    first: u16,
    next: u16,
    breaks: &'b [(usize, u16)],
}

impl<'b> Reps<'b> {
    /// The repetition level of the first entry of each slot of `range` (the range these
    /// levels are of), slot by slot.
    fn of_slots(self, range: Range<usize>) -> impl Iterator<Item = (usize, u16)> + 'b {
        let start = range.start;
        let mut breaks = self.breaks.iter().peekable();
        range.map(move |i| {
            let r = if i == start {
                self.first
            } else {
                match breaks.peek() {
                    Some(&&(slot, r)) if slot == i => r,
                    _ => self.next,
                }
            };
            while breaks.next_if(|b| b.0 <= i).is_some() {}
            (i, r)
        })
    }

    /// The levels of the sub-range `run` (of a range starting at `start`).
    fn of(self, start: usize, run: &Range<usize>) -> Reps<'b> {
        let from = self.breaks.partition_point(|b| b.0 < run.start);
        let to = self.breaks.partition_point(|b| b.0 < run.end);
        let breaks = self.breaks.get(from..to).unwrap_or_default();
        let first = if run.start == start {
            self.first
        } else {
            match breaks.first() {
                Some(&(slot, r)) if slot == run.start => r,
                _ => self.next,
            }
        };
        Reps {
            first,
            next: self.next,
            breaks,
        }
    }

    /// Writes the levels of `n` entries, one per slot from `start`.
    fn put(self, start: usize, n: usize, out: &mut Out) {
        if !out.repeated || n == 0 {
            return;
        }
        let base = out.rep.len();
        out.rep.push(self.first);
        out.rep.resize(base + n, self.next);
        for &(slot, r) in self.breaks {
            if let Some(x) = out.rep.get_mut(base + (slot - start)) {
                *x = r;
            }
        }
    }
}

/// Writes the entries of slots `range` of `node`, whose ancestors define `def` levels, at
/// repetition levels `reps`; `path` leads to the leaf.
fn visit(
    node: &Node<'_>,
    path: &Path,
    range: Range<usize>,
    def: u16,
    reps: Reps<'_>,
    out: &mut Out,
) -> Result<()> {
    if range.is_empty() {
        return Ok(());
    }
    let array = node.array;
    if !list_below(array.data_type(), path) {
        return structs_to_leaf(node, path, range, def, reps, out);
    }
    let nulls = node.nulls_in(out.name, &range)?;
    let present = def + u16::from(node.nullable);
    let levels = Levels { def, present };
    // A list of any kind: its child, the child's field, the child range of a slot.
    macro_rules! walk {
        ($child:expr, $field:expr, $bounds:expr) => {
            List {
                child: $child,
                field: $field,
                nulls,
                levels,
            }
            .walk(path, range, $bounds, reps, out)
        };
    }
    match array.data_type() {
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let (Some(&i), Some(f)) = (path.first(), path.first().and_then(|&i| fields.get(i)))
            else {
                return Err(column_error(out.name, "internal error: struct path"));
            };
            let child = s.column(i);
            let child_node = Node::new(child.as_ref(), f.is_nullable());
            let rest = path.get(1..).unwrap_or_default();
            match nulls {
                None => visit(&child_node, rest, range, present, reps, out),
                Some(n) => {
                    let start = range.start;
                    validity_runs(n, range, |run, valid| {
                        let reps = reps.of(start, &run);
                        if valid {
                            return visit(&child_node, rest, run, present, reps, out);
                        }
                        // A list is below: a null struct's entries have no slot.
                        out.def.resize(out.def.len() + run.len(), def);
                        reps.put(run.start, run.len(), out);
                        Ok(())
                    })
                }
            }
        }
        DataType::List(f) => {
            let l = array.as_list::<i32>();
            let o = l.value_offsets();
            let bounds = |i: usize| (o[i] as usize, o[i + 1] as usize);
            walk!(l.values().as_ref(), f, bounds)
        }
        DataType::LargeList(f) => {
            let l = array.as_list::<i64>();
            let o = l.value_offsets();
            let bounds = |i: usize| (o[i] as usize, o[i + 1] as usize);
            walk!(l.values().as_ref(), f, bounds)
        }
        DataType::ListView(f) => {
            let l = array.as_list_view::<i32>();
            let (o, n) = (l.value_offsets(), l.value_sizes());
            let bounds = |i: usize| (o[i] as usize, (o[i] as usize).saturating_add(n[i] as usize));
            walk!(l.values().as_ref(), f, bounds)
        }
        DataType::LargeListView(f) => {
            let l = array.as_list_view::<i64>();
            let (o, n) = (l.value_offsets(), l.value_sizes());
            let bounds = |i: usize| (o[i] as usize, (o[i] as usize).saturating_add(n[i] as usize));
            walk!(l.values().as_ref(), f, bounds)
        }
        DataType::FixedSizeList(f, size) => {
            let l = array.as_fixed_size_list();
            let size = usize::try_from(*size).unwrap_or(0);
            let bounds = |i: usize| {
                let s = l.value_offset_at(i);
                (s, s + size)
            };
            walk!(l.values().as_ref(), f, bounds)
        }
        DataType::Map(f, _) => {
            let m = array.as_map();
            let o = m.value_offsets();
            let bounds = |i: usize| (o[i] as usize, o[i + 1] as usize);
            walk!(m.entries(), f, bounds)
        }
        // A leaf (or a struct with no list below) went to `structs_to_leaf` above.
        _ => Err(column_error(
            out.name,
            "internal error: a leaf below a list",
        )),
    }
}

/// [`visit`] of a node with no list below it (structs down to the leaf, or the leaf): one
/// entry per slot, every entry with its leaf slot, each entry's definition level the count
/// of the nullable nodes present on its way down.
fn structs_to_leaf(
    node: &Node<'_>,
    path: &Path,
    range: Range<usize>,
    def: u16,
    reps: Reps<'_>,
    out: &mut Out,
) -> Result<()> {
    let chain = chain_to_leaf(node, path, out.name)?;
    chain_entries(&chain, range, def, reps, out)
}

/// The nodes from `node` down to the leaf at `path`, through structs only.
fn chain_to_leaf<'a>(node: &Node<'a>, path: &Path, name: &str) -> Result<Vec<Node<'a>>> {
    let mut chain: Vec<Node<'a>> = Vec::new();
    let mut here = Node {
        array: node.array,
        nullable: node.nullable,
        nulls: node.nulls.clone(),
    };
    let mut rest = path;
    loop {
        let next = match here.array.data_type() {
            DataType::Struct(fields) => {
                let (Some((&i, tail)), Some(s)) = (rest.split_first(), here.array.as_struct_opt())
                else {
                    return Err(column_error(name, "internal error: struct path"));
                };
                let (Some(f), Some(c)) = (fields.get(i), s.columns().get(i)) else {
                    return Err(column_error(name, "internal error: struct path"));
                };
                rest = tail;
                Some(Node::new(c.as_ref(), f.is_nullable()))
            }
            _ => None,
        };
        // Nulls of a node that is not nullable are an error where they count: where every
        // node above is valid (checked below, slot by slot).
        chain.push(here);
        match next {
            Some(n) => here = n,
            None => break,
        }
    }
    Ok(chain)
}

/// The entries of slots `range` of the first node of `chain` (see [`chain_to_leaf`] and
/// [`structs_to_leaf`]).
fn chain_entries(
    chain: &[Node<'_>],
    range: Range<usize>,
    def: u16,
    reps: Reps<'_>,
    out: &mut Out,
) -> Result<()> {
    let leaf = chain.last().map(|n| n.array);
    let n = range.len();
    let d0 = out.def.len();
    // With no nulls on the way, every entry is at the same level.
    let top = def + chain.iter().map(|c| u16::from(c.nullable)).sum::<u16>();
    out.def.resize(d0 + n, top);
    if chain.iter().any(|c| c.nulls.is_some()) {
        let defs = out.def.get_mut(d0..).unwrap_or_default();
        for (k, d) in defs.iter_mut().enumerate() {
            let i = range.start + k;
            let mut level = def;
            for c in chain {
                let valid = c.nulls.as_ref().is_none_or(|b| b.is_valid(i));
                if !valid {
                    if !c.nullable {
                        return Err(required_has_nulls(out.name));
                    }
                    break;
                }
                level += u16::from(c.nullable);
            }
            *d = level;
        }
    }
    reps.put(range.start, n, out);
    if let Some(leaf) = leaf {
        out.slots(leaf, range);
    }
    Ok(())
}

/// The definition levels of a node: `def` when it is null, `present` when it is not.
#[derive(Clone, Copy)]
struct Levels {
    def: u16,
    present: u16,
}

/// A list node being walked: its child (values or map entries) and the child's field, its
/// nulls in the walked range, its levels.
struct List<'a> {
    child: &'a dyn Array,
    field: &'a Field,
    nulls: Option<&'a NullBuffer>,
    levels: Levels,
}

impl List<'_> {
    /// The child range of list slot `i` (`bounds(i)`; empty for a null list), and whether
    /// the list is null; an error when the range is not in the child (`child_len` values).
    #[inline(always)]
    fn span(
        &self,
        i: usize,
        bounds: &impl Fn(usize) -> (usize, usize),
        child_len: usize,
        name: &str,
    ) -> Result<(usize, usize, bool)> {
        let null = self.nulls.is_some_and(|n| n.is_null(i));
        let (s, e) = if null { (0, 0) } else { bounds(i) };
        if s > e || e > child_len {
            return Err(outside_child(name, i, s..e, child_len));
        }
        Ok((s, e, null))
    }

    /// The entries of list slots `range` (see [`visit`]): `bounds(i)` is the child range of
    /// slot `i`. A null list is one entry at the list's `def`, an empty one at `present`;
    /// the elements of lists lying back to back in the child are walked as one child range
    /// (at definition level `present + 1`), the first element of each list at the list's
    /// repetition level and the others at the list's depth.
    fn walk(
        &self,
        path: &Path,
        range: Range<usize>,
        bounds: impl Fn(usize) -> (usize, usize),
        reps: Reps<'_>,
        out: &mut Out,
    ) -> Result<()> {
        let Levels { def, present } = self.levels;
        // The elements repeat at the list's depth: one more than the list above it.
        let depth = reps.next + 1;
        let child_len = self.child.len();
        let child = Node::new(self.child, self.field.is_nullable());
        if !is_group(self.child.data_type()) {
            return self.walk_leaf(&child, range, bounds, reps, out);
        }
        // Below no other list, the child's way down to the leaf, taken once.
        let chain = if list_below(self.child.data_type(), path) {
            None
        } else {
            Some(chain_to_leaf(&child, path, out.name)?)
        };
        // The open run of lists: its child range, its first entry's level, and the child
        // slots where its other lists start, with their levels.
        let mut run = 0..0;
        let mut run_first = reps.first;
        let mut starts: Vec<(usize, u16)> = Vec::new();
        let end_run = |run: &mut Range<usize>, first, starts: &mut Vec<_>, out: &mut Out| {
            let reps = Reps {
                first,
                next: depth,
                breaks: starts,
            };
            let r = match &chain {
                Some(c) => chain_entries(c, run.clone(), present + 1, reps, out),
                None => visit(&child, path, run.clone(), present + 1, reps, out),
            };
            *run = 0..0;
            starts.clear();
            r
        };
        for (i, r) in reps.of_slots(range) {
            let (s, e, null) = self.span(i, &bounds, child_len, out.name)?;
            if s < e && !run.is_empty() && s == run.end {
                starts.push((s, r));
                run.end = e;
                continue;
            }
            if !run.is_empty() {
                end_run(&mut run, run_first, &mut starts, out)?;
            }
            if s == e {
                out.entry(if null { def } else { present }, r);
            } else {
                run = s..e;
                run_first = r;
            }
        }
        if !run.is_empty() {
            end_run(&mut run, run_first, &mut starts, out)?;
        }
        Ok(())
    }

    /// [`List::walk`] for a list of leaf values: each list's entries written in place.
    fn walk_leaf(
        &self,
        child: &Node<'_>,
        range: Range<usize>,
        bounds: impl Fn(usize) -> (usize, usize),
        reps: Reps<'_>,
        out: &mut Out,
    ) -> Result<()> {
        let Levels { def, present } = self.levels;
        let depth = reps.next + 1;
        // Definition levels of a null and of a valid element.
        let null_element = present + 1;
        let element = null_element + u16::from(child.nullable);
        let child_len = self.child.len();
        // The entries first (a list's elements, or one entry for a null or empty list), so
        // that the levels are written into place: most are the elements' levels.
        let mut total = 0;
        for i in range.clone() {
            let (s, e, _) = self.span(i, &bounds, child_len, out.name)?;
            total += (e - s).max(1);
        }
        let d0 = out.def.len();
        out.def.resize(d0 + total, element);
        let r0 = out.rep.len();
        out.rep.resize(r0 + total, depth);
        let mut at = 0;
        for (i, r) in reps.of_slots(range) {
            let (s, e, null) = self.span(i, &bounds, child_len, out.name)?;
            if let Some(x) = out.rep.get_mut(r0 + at) {
                *x = r;
            }
            if s == e {
                if let Some(x) = out.def.get_mut(d0 + at) {
                    *x = if null { def } else { present };
                }
                at += 1;
                continue;
            }
            let n = e - s;
            if let Some(nb) = child.nulls_in(out.name, &(s..e))? {
                let bits = nb.inner();
                let bits = BitIterator::new(bits.values(), bits.offset() + s, n);
                let defs = out.def.get_mut(d0 + at..d0 + at + n).unwrap_or_default();
                for (x, valid) in defs.iter_mut().zip(bits) {
                    if !valid {
                        *x = null_element;
                    }
                }
            }
            at += n;
            out.slots(child.array, s..e);
        }
        Ok(())
    }
}

/// The error for list slot `i` whose child range `span` is not in its child of `len` values.
#[cold]
fn outside_child(name: &str, i: usize, span: Range<usize>, len: usize) -> crate::Error {
    column_error(
        name,
        format_args!(
            "list slot {i} spans {}..{} of a child of {len} values",
            span.start, span.end
        ),
    )
}

/// True when a list or map is on the way from a value of type `dt` to the leaf at `path`.
fn list_below(dt: &DataType, path: &Path) -> bool {
    match dt {
        DataType::Struct(fields) => match path.split_first() {
            Some((&i, rest)) => fields
                .get(i)
                .is_some_and(|f| list_below(f.data_type(), rest)),
            None => false,
        },
        dt => is_group(dt),
    }
}

/// The definition level from which an entry of the leaf at `path` (element indices, root
/// excluded, as [`Schema::leaf_path_elements`] gives them) has a slot: that of the innermost
/// repeated group (0 below none).
pub fn slot_level(schema: &Schema, path: &[u32]) -> u16 {
    let mut def = 0u16;
    let mut slot = 0;
    for &e in path {
        match schema.elements().get(e as usize).and_then(|e| e.repetition) {
            Some(Repetition::Optional) => def += 1,
            Some(Repetition::Repeated) => {
                def += 1;
                slot = def;
            }
            _ => {}
        }
    }
    slot
}
