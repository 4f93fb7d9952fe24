//! Nested Arrow data for the nested write tests (`tests/write_nested.rs`): the schemas and
//! their random generator, the canonical form in which arrays read back are compared with the
//! input, and the levels of a file's pages as the `parquet` crate 60.1 gives them.
#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::transform::MutableArrayData;
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema};
use bytes::Bytes;
use parquet::column::page::Page;
use parquet::file::reader::{FileReader, SerializedFileReader};

use crate::common::Rng;

// ---------------------------------------------------------------------------------------
// Data

pub const EXTENSION: &str = "ARROW:extension:name";

/// Draws nested arrays: nulls at nullable levels (when `nulls`), empty and long lists.
pub struct Gen {
    pub rng: Rng,
    pub nulls: bool,
}

impl Gen {
    fn validity(&mut self, n: usize, nullable: bool) -> Option<NullBuffer> {
        if !(self.nulls && nullable) {
            return None;
        }
        Some((0..n).map(|_| !self.rng.chance(0.15)).collect())
    }

    /// List lengths for `n` slots: null slots hold 0 or a few values, valid ones are empty
    /// (15%), long (3%, 20..60) or short.
    fn lengths(&mut self, valid: &Option<NullBuffer>, n: usize) -> Vec<usize> {
        (0..n)
            .map(|i| {
                let r = self.rng.unit();
                if valid.as_ref().is_some_and(|v| v.is_null(i)) {
                    if r < 0.5 {
                        0
                    } else {
                        1 + self.rng.below(3) as usize
                    }
                } else if r < 0.15 {
                    0
                } else if r < 0.18 {
                    20 + self.rng.below(41) as usize
                } else {
                    1 + self.rng.below(4) as usize
                }
            })
            .collect()
    }

    /// An array of `n` slots: a slice of a longer one.
    pub fn array(&mut self, dt: &DataType, nullable: bool, n: usize) -> ArrayRef {
        let front = self.rng.below(4) as usize;
        let back = self.rng.below(3) as usize;
        self.fresh(dt, nullable, front + n + back).slice(front, n)
    }

    fn word(&mut self) -> String {
        const WORDS: [&str; 6] = [
            "",
            "a",
            "parquet",
            "\u{e9}t\u{e9}",
            "\u{6f22}\u{5b57}",
            "nested ",
        ];
        let w = WORDS[self.rng.below(6) as usize];
        match self.rng.below(4) {
            0 => w.to_string(),
            1 => format!("{w}{}", "xyz".repeat(self.rng.below(10) as usize)),
            _ => format!("{w}{}", self.rng.below(50)),
        }
    }

    fn fresh(&mut self, dt: &DataType, nullable: bool, n: usize) -> ArrayRef {
        use DataType as D;
        let nulls = self.validity(n, nullable);
        match dt {
            D::Boolean => {
                let v: Vec<bool> = (0..n).map(|_| self.rng.chance(0.4)).collect();
                Arc::new(BooleanArray::new(v.into(), nulls))
            }
            D::Int32 => {
                let v: Vec<i32> = (0..n)
                    .map(|_| match self.rng.below(20) {
                        0 => i32::MIN,
                        1 => i32::MAX,
                        _ => self.rng.signed(1000) as i32,
                    })
                    .collect();
                Arc::new(Int32Array::new(v.into(), nulls))
            }
            D::Int64 => {
                let v: Vec<i64> = (0..n)
                    .map(|_| match self.rng.below(20) {
                        0 => i64::MIN,
                        1 => self.rng.next() as i64,
                        _ => self.rng.signed(100_000),
                    })
                    .collect();
                Arc::new(Int64Array::new(v.into(), nulls))
            }
            D::Float64 => {
                let v: Vec<f64> = (0..n)
                    .map(|_| match self.rng.below(20) {
                        0 => -0.0,
                        1 => f64::INFINITY,
                        _ => self.rng.signed(1 << 20) as f64 / 8.0,
                    })
                    .collect();
                Arc::new(Float64Array::new(v.into(), nulls))
            }
            D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::BinaryView => {
                let v: Vec<Option<String>> = (0..n)
                    .map(|i| {
                        let w = self.word();
                        nulls.as_ref().is_none_or(|b| b.is_valid(i)).then_some(w)
                    })
                    .collect();
                let bytes = || v.iter().map(|s| s.as_deref().map(str::as_bytes));
                match dt {
                    D::Utf8 => Arc::new(v.iter().map(|s| s.as_deref()).collect::<StringArray>()),
                    D::LargeUtf8 => {
                        Arc::new(v.iter().map(|s| s.as_deref()).collect::<LargeStringArray>())
                    }
                    D::Utf8View => {
                        Arc::new(v.iter().map(|s| s.as_deref()).collect::<StringViewArray>())
                    }
                    D::Binary => Arc::new(bytes().collect::<BinaryArray>()),
                    _ => Arc::new(bytes().collect::<BinaryViewArray>()),
                }
            }
            D::Dictionary(_, v) => {
                let m = 1 + self.rng.below(10);
                let values = self.fresh(v, false, m as usize);
                let keys: Vec<i32> = (0..n).map(|_| self.rng.below(m) as i32).collect();
                let keys = Int32Array::new(keys.into(), nulls);
                Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).unwrap())
            }
            D::List(f) => self.list::<i32>(f, n, nulls, false),
            D::LargeList(f) => self.list::<i64>(f, n, nulls, false),
            D::ListView(f) => self.list::<i32>(f, n, nulls, true),
            D::LargeListView(f) => self.list::<i64>(f, n, nulls, true),
            D::FixedSizeList(f, k) => {
                let values = self.array(f.data_type(), f.is_nullable(), n * *k as usize);
                Arc::new(FixedSizeListArray::new(f.clone(), *k, values, nulls))
            }
            D::Struct(fields) => {
                let children = fields
                    .iter()
                    .map(|f| {
                        let c = self.array(f.data_type(), f.is_nullable(), n);
                        match &nulls {
                            // A required child with nulls where its struct is null.
                            Some(parent) if !f.is_nullable() && self.rng.chance(0.5) => {
                                let d = c.to_data().into_builder().nulls(Some(parent.clone()));
                                make_array(d.build().unwrap())
                            }
                            _ => c,
                        }
                    })
                    .collect();
                Arc::new(StructArray::new(fields.clone(), children, nulls))
            }
            D::Map(entries, sorted) => {
                let D::Struct(kv) = entries.data_type() else {
                    panic!("map entries {entries}")
                };
                let lens = self.lengths(&nulls, n);
                let base = self.rng.below(3) as usize;
                let tail = self.rng.below(3) as usize;
                let total = base + lens.iter().sum::<usize>() + tail;
                // Keys distinct within each map (and the entries before, after and between).
                let mut keys = Vec::with_capacity(total);
                for len in std::iter::once(base)
                    .chain(lens.iter().copied())
                    .chain([tail])
                {
                    let mut k = self.rng.below(5);
                    for _ in 0..len {
                        k += 1 + self.rng.below(5);
                        keys.push(format!("k{k}"));
                    }
                }
                let keys: ArrayRef = Arc::new(StringArray::from(keys));
                let values = self.array(kv[1].data_type(), kv[1].is_nullable(), total);
                let kv_array = StructArray::new(kv.clone(), vec![keys, values], None);
                let offsets = offsets_from::<i32>(base, &lens);
                let a = MapArray::try_new(entries.clone(), offsets, kv_array, nulls, *sorted);
                Arc::new(a.unwrap())
            }
            other => panic!("no generator for {other}"),
        }
    }

    fn list<O: OffsetSizeTrait>(
        &mut self,
        f: &FieldRef,
        n: usize,
        nulls: Option<NullBuffer>,
        view: bool,
    ) -> ArrayRef {
        let lens = self.lengths(&nulls, n);
        let sum: usize = lens.iter().sum();
        if !view {
            let base = self.rng.below(3) as usize;
            let total = base + sum + self.rng.below(3) as usize;
            let values = self.array(f.data_type(), f.is_nullable(), total);
            let offsets = offsets_from::<O>(base, &lens);
            return Arc::new(GenericListArray::<O>::new(
                f.clone(),
                offsets,
                values,
                nulls,
            ));
        }
        // Views anywhere in values of about half the total: overlapping, out of order.
        let longest = lens.iter().copied().max().unwrap_or(0);
        let total = longest.max(sum / 2) + self.rng.below(4) as usize;
        let values = self.array(f.data_type(), f.is_nullable(), total);
        let starts: Vec<O> = lens
            .iter()
            .map(|&l| O::usize_as(self.rng.below((total - l + 1) as u64) as usize))
            .collect();
        let sizes: Vec<O> = lens.iter().map(|&l| O::usize_as(l)).collect();
        Arc::new(GenericListViewArray::<O>::new(
            f.clone(),
            ScalarBuffer::from(starts),
            ScalarBuffer::from(sizes),
            values,
            nulls,
        ))
    }
}

pub fn offsets_from<O: OffsetSizeTrait>(base: usize, lens: &[usize]) -> OffsetBuffer<O> {
    let mut v = Vec::with_capacity(lens.len() + 1);
    let mut at = base;
    v.push(O::usize_as(at));
    for l in lens {
        at += l;
        v.push(O::usize_as(at));
    }
    OffsetBuffer::new(ScalarBuffer::from(v))
}

/// Field constructors of one nullability (`nullable`; `req` always required).
pub struct Shapes {
    pub nullable: bool,
}

impl Shapes {
    pub fn f(&self, name: &str, dt: DataType) -> Field {
        Field::new(name, dt, self.nullable)
    }
    pub fn req(&self, name: &str, dt: DataType) -> Field {
        Field::new(name, dt, false)
    }
    pub fn item(&self, dt: DataType) -> FieldRef {
        Arc::new(Field::new("item", dt, self.nullable))
    }
    pub fn list(&self, dt: DataType) -> DataType {
        DataType::List(self.item(dt))
    }
    pub fn large_list(&self, dt: DataType) -> DataType {
        DataType::LargeList(self.item(dt))
    }
    pub fn list_view(&self, dt: DataType) -> DataType {
        DataType::ListView(self.item(dt))
    }
    pub fn strukt(&self, fields: Vec<Field>) -> DataType {
        DataType::Struct(Fields::from(fields))
    }
    /// A map with entries, key and value named `names`.
    pub fn map(&self, value: DataType, names: [&str; 3]) -> DataType {
        let kv = Fields::from(vec![
            Field::new(names[1], DataType::Utf8, false),
            Field::new(names[2], value, self.nullable),
        ]);
        let entries = Field::new(names[0], DataType::Struct(kv), false);
        DataType::Map(Arc::new(entries), false)
    }
}

pub const MAP_NAMES: [&str; 3] = ["entries", "key", "value"];

/// Every shape but the list views.
pub fn main_schema(nullable: bool) -> Schema {
    use DataType as D;
    let s = Shapes { nullable };
    let ext = Field::new("item", D::Int32, nullable).with_metadata(
        std::collections::HashMap::from([(EXTENSION.to_string(), "parq.test.ext".to_string())]),
    );
    let deep_leaf = s.strukt(vec![s.f("v", s.list(D::Int64))]);
    let deep_map = s.map(s.list(deep_leaf), MAP_NAMES);
    let deep = s.list(s.strukt(vec![s.f("k", D::Int32), s.f("m", deep_map)]));
    let fixed = |dt: D, k| D::FixedSizeList(s.item(dt), k);
    Schema::new(vec![
        s.req("id", D::Int64),
        s.f("li", s.list(D::Int32)),
        s.f("lb", s.list(D::Boolean)),
        s.f("ls", s.list(D::Utf8)),
        s.f("lli64", s.large_list(D::Int64)),
        s.f("lls", s.large_list(D::LargeUtf8)),
        s.f("lbin", s.large_list(D::Binary)),
        s.f("fl", fixed(D::Int32, 3)),
        s.f("fls", fixed(D::Utf8, 2)),
        s.f("lli", s.list(s.list(D::Int32))),
        s.f(
            "lst",
            s.list(s.strukt(vec![s.f("a", D::Int32), s.f("b", D::Utf8)])),
        ),
        s.f(
            "sl",
            s.strukt(vec![s.f("l", s.list(D::Int32)), s.f("x", D::Int64)]),
        ),
        s.f(
            "s",
            s.strukt(vec![
                s.f("a", D::Int32),
                s.req("b", D::Utf8),
                s.f("c", D::Float64),
            ]),
        ),
        s.req(
            "rs",
            s.strukt(vec![
                s.req("a", D::Int32),
                s.f("b", D::Utf8),
                s.f("c", D::Float64),
            ]),
        ),
        s.f(
            "ss",
            s.strukt(vec![
                s.f(
                    "inner",
                    s.strukt(vec![s.f("x", D::Int64), s.f("y", D::Utf8)]),
                ),
                s.f("z", D::Int32),
            ]),
        ),
        s.f("m", s.map(D::Int64, MAP_NAMES)),
        s.f(
            "ms",
            s.map(
                s.strukt(vec![s.f("x", D::Int32), s.f("y", D::Utf8)]),
                ["entries", "keys", "values"],
            ),
        ),
        s.f("deep", deep),
        s.f(
            "ld",
            s.list(D::Dictionary(Box::new(D::Int32), Box::new(D::Utf8))),
        ),
        s.f("lsv", s.list(D::Utf8View)),
        s.f(
            "sv",
            s.strukt(vec![s.f("s", D::Utf8View), s.f("b", D::BinaryView)]),
        ),
        s.f("lext", D::List(Arc::new(ext))),
    ])
}

/// The list views.
pub fn views_schema(nullable: bool) -> Schema {
    use DataType as D;
    let s = Shapes { nullable };
    Schema::new(vec![
        s.req("id", D::Int64),
        s.f("lv", s.list_view(D::Int32)),
        s.f("llv", D::LargeListView(s.item(D::Utf8))),
        s.f(
            "lvs",
            s.list_view(s.strukt(vec![s.f("a", D::Int32), s.f("b", D::Utf8View)])),
        ),
        s.f(
            "slv",
            s.strukt(vec![s.f("v", D::LargeListView(s.item(D::Int64)))]),
        ),
        s.f("lvlv", s.list_view(s.list_view(D::Int32))),
    ])
}

/// A dataset: a batch of `schema` of 400 rows, sliced to `slice(3, 393)`.
pub fn dataset(schema: Schema, nulls: bool, seed: u64) -> RecordBatch {
    let n = 400;
    let mut g = Gen {
        rng: Rng(seed),
        nulls,
    };
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .map(|f| {
            if f.name() == "id" {
                Arc::new(Int64Array::from_iter_values(0..n as i64))
            } else {
                g.array(f.data_type(), f.is_nullable(), n)
            }
        })
        .collect();
    let batch = RecordBatch::try_new(Arc::new(schema), columns).expect("batch");
    batch.slice(3, n - 7)
}

/// The datasets by name: (name, batch, holds list views).
pub fn datasets() -> Vec<(&'static str, RecordBatch, bool)> {
    vec![
        ("nulls", dataset(main_schema(true), true, 1), false),
        ("nullable", dataset(main_schema(true), false, 2), false),
        ("required", dataset(main_schema(false), false, 3), false),
        ("views_nulls", dataset(views_schema(true), true, 4), true),
        (
            "views_required",
            dataset(views_schema(false), false, 5),
            true,
        ),
    ]
}

// ---------------------------------------------------------------------------------------
// Canonical form of the arrays compared

pub fn canon_field(name: &str, dt: DataType, nullable: bool) -> FieldRef {
    Arc::new(Field::new(name, dt, nullable))
}

/// `a` in the canonical form both sides of a comparison are brought to: list children named
/// `item`, map entries `entries` / `key` / `value`, no field metadata, dictionaries
/// materialized, views as plain strings and binaries, list views as lists of their width.
pub fn canon(a: &dyn Array) -> ArrayRef {
    use DataType as D;
    let nulls = a.nulls().cloned();
    match a.data_type() {
        D::Dictionary(_, v) if a.as_any_dictionary().values().is_empty() => {
            canon(new_null_array(v, a.len()).as_ref())
        }
        D::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let keys: Vec<u32> = d.normalized_keys().iter().map(|&k| k as u32).collect();
            let keys = UInt32Array::new(keys.into(), a.logical_nulls());
            canon(
                arrow_select::take::take(d.values(), &keys, None)
                    .unwrap()
                    .as_ref(),
            )
        }
        D::Utf8View => Arc::new(a.as_string_view().iter().collect::<StringArray>()),
        D::BinaryView => Arc::new(a.as_binary_view().iter().collect::<BinaryArray>()),
        D::List(f) => {
            let l = a.as_list::<i32>();
            let v = canon(l.values().as_ref());
            let f = canon_field("item", v.data_type().clone(), f.is_nullable());
            Arc::new(ListArray::new(f, l.offsets().clone(), v, nulls))
        }
        D::LargeList(f) => {
            let l = a.as_list::<i64>();
            let v = canon(l.values().as_ref());
            let f = canon_field("item", v.data_type().clone(), f.is_nullable());
            Arc::new(LargeListArray::new(f, l.offsets().clone(), v, nulls))
        }
        D::ListView(f) => view_to_list::<i32>(a, f),
        D::LargeListView(f) => view_to_list::<i64>(a, f),
        D::FixedSizeList(f, k) => {
            let l = a.as_fixed_size_list();
            let v = canon(l.values().as_ref());
            let f = canon_field("item", v.data_type().clone(), f.is_nullable());
            Arc::new(FixedSizeListArray::new(f, *k, v, nulls))
        }
        D::Struct(fields) => {
            let s = a.as_struct();
            let children: Vec<ArrayRef> = s.columns().iter().map(|c| canon(c.as_ref())).collect();
            let fields: Fields = fields
                .iter()
                .zip(&children)
                .map(|(f, c)| canon_field(f.name(), c.data_type().clone(), f.is_nullable()))
                .collect();
            Arc::new(StructArray::new(fields, children, nulls))
        }
        D::Map(_, sorted) => {
            let m = a.as_map();
            let e = m.entries();
            let (k, v) = (canon(e.column(0).as_ref()), canon(e.column(1).as_ref()));
            let value_nullable = e.fields()[1].is_nullable();
            let kv = Fields::from(vec![
                Field::new("key", k.data_type().clone(), false),
                Field::new("value", v.data_type().clone(), value_nullable),
            ]);
            let entries = StructArray::new(kv.clone(), vec![k, v], None);
            let f = canon_field("entries", DataType::Struct(kv), false);
            Arc::new(MapArray::new(
                f,
                m.offsets().clone(),
                entries,
                nulls,
                *sorted,
            ))
        }
        _ => make_array(a.to_data()),
    }
}

/// A list view as a list of the same offset width: each view's values in turn.
pub fn view_to_list<O: OffsetSizeTrait>(a: &dyn Array, f: &FieldRef) -> ArrayRef {
    let l = a
        .as_any()
        .downcast_ref::<GenericListViewArray<O>>()
        .expect("list view");
    let values = canon(l.values().as_ref());
    let data = values.to_data();
    let mut m = MutableArrayData::new(vec![&data], false, 0);
    let mut offsets = vec![O::usize_as(0)];
    let mut at = 0;
    for i in 0..l.len() {
        if l.is_valid(i) {
            let start = l.value_offsets()[i].as_usize();
            let size = l.value_sizes()[i].as_usize();
            m.try_extend(0, start, start + size).unwrap();
            at += size;
        }
        offsets.push(O::usize_as(at));
    }
    let values = make_array(m.freeze());
    let f = canon_field("item", values.data_type().clone(), f.is_nullable());
    Arc::new(GenericListArray::<O>::new(
        f,
        OffsetBuffer::new(offsets.into()),
        values,
        a.nulls().cloned(),
    ))
}

/// Differences between `got` and the input `want`, column by column in canonical form
/// (names, nullability, values); the first differing row of each column.
pub fn compare(what: &str, got: &RecordBatch, want: &RecordBatch) -> Vec<String> {
    if got.num_rows() != want.num_rows() || got.num_columns() != want.num_columns() {
        return vec![format!(
            "{what}: {} rows x {} columns, expected {} x {}",
            got.num_rows(),
            got.num_columns(),
            want.num_rows(),
            want.num_columns()
        )];
    }
    let mut out = Vec::new();
    for (i, wf) in want.schema().fields().iter().enumerate() {
        let gs = got.schema();
        let gf = gs.field(i);
        if gf.name() != wf.name() || gf.is_nullable() != wf.is_nullable() {
            out.push(format!("{what}: field {gf:?}, expected {wf:?}"));
            continue;
        }
        let (g, w) = (
            canon(got.column(i).as_ref()),
            canon(want.column(i).as_ref()),
        );
        if g.data_type() != w.data_type() {
            out.push(format!(
                "{what}: `{}` reads as {}, expected {}",
                wf.name(),
                g.data_type(),
                w.data_type()
            ));
        } else if g.to_data() != w.to_data() {
            let r = (0..g.len())
                .find(|&r| g.slice(r, 1).to_data() != w.slice(r, 1).to_data())
                .unwrap_or(0);
            out.push(format!(
                "{what}: `{}` differs first at row {r}: {}, expected {}",
                wf.name(),
                short(&g.slice(r, 1)),
                short(&w.slice(r, 1))
            ));
        }
    }
    out
}

/// An array's debug form on one line, at most 300 characters.
fn short(a: &ArrayRef) -> String {
    let s = format!("{a:?}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// `b` with every column in canonical form ([`canon`]).
pub fn canon_batch(b: &RecordBatch) -> RecordBatch {
    let columns: Vec<ArrayRef> = b.columns().iter().map(|c| canon(c.as_ref())).collect();
    let fields: Vec<Field> = b
        .schema()
        .fields()
        .iter()
        .zip(&columns)
        .map(|(f, c)| Field::new(f.name(), c.data_type().clone(), f.is_nullable()))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("canonical batch")
}

// ---------------------------------------------------------------------------------------
// Levels of the pages

/// `count` levels of bit width `width` from RLE / bit-packed hybrid `data`.
pub fn hybrid(data: &[u8], width: u32, count: usize) -> Result<Vec<u16>, String> {
    let mut out = Vec::with_capacity(count);
    if width == 0 {
        out.resize(count, 0);
        return Ok(out);
    }
    let byte = |i: usize| data.get(i).copied().ok_or("levels run past their bytes");
    let mut pos = 0;
    while out.len() < count {
        let (mut header, mut shift) = (0u64, 0);
        loop {
            let b = byte(pos)?;
            pos += 1;
            header |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b < 0x80 {
                break;
            }
        }
        if header & 1 == 0 {
            let mut v = 0u16;
            for k in 0..width.div_ceil(8) as usize {
                v |= u16::from(byte(pos + k)?) << (8 * k);
            }
            pos += width.div_ceil(8) as usize;
            out.extend(std::iter::repeat_n(v, (header >> 1) as usize));
        } else {
            let values = (header >> 1) as usize * 8;
            for i in 0..values {
                let mut v = 0u16;
                for b in 0..width as usize {
                    let bit = i * width as usize + b;
                    v |= u16::from((byte(pos + bit / 8)? >> (bit % 8)) & 1) << b;
                }
                out.push(v);
            }
            pos += values * width as usize / 8;
        }
    }
    out.truncate(count);
    Ok(out)
}

pub fn width(max: i16) -> u32 {
    16 - (max as u16).leading_zeros()
}

/// One data page: its levels and the counts of its header.
pub struct PageLevels {
    pub rep: Vec<u16>,
    pub def: Vec<u16>,
    pub num_values: usize,
    /// A v2 page's `num_rows` and `num_nulls`.
    pub v2: Option<(usize, usize)>,
}

impl PageLevels {
    pub fn records(&self) -> usize {
        self.rep.iter().filter(|&&r| r == 0).count()
    }
}

/// The data pages of every chunk (by row group, then leaf), levels decoded.
pub fn file_pages(bytes: &Bytes) -> Result<Vec<Vec<Vec<PageLevels>>>, String> {
    let reader = SerializedFileReader::new(bytes.clone()).map_err(|e| e.to_string())?;
    let md = reader.metadata();
    let descr = md.file_metadata().schema_descr();
    let mut out = Vec::new();
    for g in 0..md.num_row_groups() {
        let rg = reader.get_row_group(g).map_err(|e| e.to_string())?;
        let mut chunks = Vec::new();
        for j in 0..descr.num_columns() {
            let (max_rep, max_def) = (
                descr.column(j).max_rep_level(),
                descr.column(j).max_def_level(),
            );
            let (rw, dw) = (width(max_rep), width(max_def));
            let mut pages = Vec::new();
            let mut pr = rg.get_column_page_reader(j).map_err(|e| e.to_string())?;
            while let Some(page) = pr.get_next_page().map_err(|e| e.to_string())? {
                let p = match page {
                    Page::DictionaryPage { .. } => continue,
                    Page::DataPage {
                        buf, num_values, ..
                    } => {
                        let n = num_values as usize;
                        let mut at = 0;
                        let mut section = |present: bool, w| -> Result<Vec<u16>, String> {
                            if !present {
                                return hybrid(&[], 0, n);
                            }
                            let len = buf
                                .get(at..at + 4)
                                .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
                                .ok_or("no level length")?;
                            let data = buf.get(at + 4..at + 4 + len).ok_or("short levels")?;
                            at += 4 + len;
                            hybrid(data, w, n)
                        };
                        let rep = section(max_rep > 0, rw)?;
                        let def = section(max_def > 0, dw)?;
                        PageLevels {
                            rep,
                            def,
                            num_values: n,
                            v2: None,
                        }
                    }
                    Page::DataPageV2 {
                        buf,
                        num_values,
                        num_rows,
                        num_nulls,
                        rep_levels_byte_len,
                        def_levels_byte_len,
                        ..
                    } => {
                        let n = num_values as usize;
                        let (r, d) = (rep_levels_byte_len as usize, def_levels_byte_len as usize);
                        let rep = hybrid(buf.get(..r).ok_or("short")?, rw, n)?;
                        let def = hybrid(buf.get(r..r + d).ok_or("short")?, dw, n)?;
                        let v2 = Some((num_rows as usize, num_nulls as usize));
                        PageLevels {
                            rep,
                            def,
                            num_values: n,
                            v2,
                        }
                    }
                };
                pages.push(p);
            }
            chunks.push(pages);
        }
        out.push(chunks);
    }
    Ok(out)
}

/// How many of `levels` are each level up to `max`.
pub fn histogram(levels: impl Iterator<Item = u16>, max: i16) -> Vec<i64> {
    let mut h = vec![0; max as usize + 1];
    for l in levels {
        h[l as usize] += 1;
    }
    h
}

/// The levels of a chunk's pages end to end: (repetition, definition).
pub fn chunk_levels(pages: &[PageLevels]) -> (Vec<u16>, Vec<u16>) {
    let rep = pages.iter().flat_map(|p| p.rep.iter().copied()).collect();
    let def = pages.iter().flat_map(|p| p.def.iter().copied()).collect();
    (rep, def)
}
