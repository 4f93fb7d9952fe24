//! The nested shapes of `parq-bench decode` (cases named `nested <shape> ...`): their Arrow
//! types and generated values. Lists hold 0-6 elements (3 on average); with nulls, 10% of
//! the slots are null at every level (lists, structs, elements, map values).

use std::sync::Arc;

use arrow_60::array::{
    ArrayRef, Float64Array, Int32Array, Int64Array, ListArray, MapArray, StringArray, StructArray,
};
use arrow_buffer_60::{NullBuffer, OffsetBuffer};
use arrow_schema_60::{DataType, Field, Fields};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::decode_cases::NULL_SHARE;

/// A nested shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    ListInt64,
    ListString,
    ListListInt32,
    Struct3,
    MapStringInt64,
    ListStruct,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::ListInt64,
        Shape::ListString,
        Shape::ListListInt32,
        Shape::Struct3,
        Shape::MapStringInt64,
        Shape::ListStruct,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::ListInt64 => "list<int64>",
            Shape::ListString => "list<string>",
            Shape::ListListInt32 => "list<list<int32>>",
            Shape::Struct3 => "struct<int32,string,double>",
            Shape::MapStringInt64 => "map<string,int64>",
            Shape::ListStruct => "list<struct<a:int32,b:string>>",
        }
    }

    /// The Arrow type, its fields nullable when `nullable`.
    pub fn data_type(self, nullable: bool) -> DataType {
        let item = |t: DataType| Arc::new(Field::new("item", t, nullable));
        match self {
            Shape::ListInt64 => DataType::List(item(DataType::Int64)),
            Shape::ListString => DataType::List(item(DataType::Utf8)),
            Shape::ListListInt32 => DataType::List(item(DataType::List(item(DataType::Int32)))),
            Shape::Struct3 => DataType::Struct(struct3_fields(nullable)),
            Shape::MapStringInt64 => DataType::Map(Arc::new(entries_field(nullable)), false),
            Shape::ListStruct => DataType::List(item(DataType::Struct(ab_fields(nullable)))),
        }
    }
}

fn struct3_fields(nullable: bool) -> Fields {
    Fields::from(vec![
        Field::new("a", DataType::Int32, nullable),
        Field::new("b", DataType::Utf8, nullable),
        Field::new("c", DataType::Float64, nullable),
    ])
}

fn ab_fields(nullable: bool) -> Fields {
    Fields::from(vec![
        Field::new("a", DataType::Int32, nullable),
        Field::new("b", DataType::Utf8, nullable),
    ])
}

fn entries_fields(nullable: bool) -> Fields {
    Fields::from(vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("value", DataType::Int64, nullable),
    ])
}

fn entries_field(nullable: bool) -> Field {
    Field::new("entries", DataType::Struct(entries_fields(nullable)), false)
}

struct Gen {
    rng: SmallRng,
    nulls: SmallRng,
    nullable: bool,
}

impl Gen {
    fn valid(&mut self) -> bool {
        !self.nullable || !self.nulls.random_bool(NULL_SHARE)
    }

    fn validity(&mut self, n: usize) -> Option<NullBuffer> {
        if !self.nullable {
            return None;
        }
        let bits: Vec<bool> = (0..n).map(|_| self.valid()).collect();
        Some(NullBuffer::from(bits))
    }

    fn int64(&mut self, n: usize) -> ArrayRef {
        let v: Vec<Option<i64>> = (0..n)
            .map(|_| {
                let x = self.rng.random::<i64>();
                self.valid().then_some(x)
            })
            .collect();
        Arc::new(Int64Array::from(v))
    }

    fn int32(&mut self, n: usize) -> ArrayRef {
        let v: Vec<Option<i32>> = (0..n)
            .map(|_| {
                let x = self.rng.random::<i32>();
                self.valid().then_some(x)
            })
            .collect();
        Arc::new(Int32Array::from(v))
    }

    fn float64(&mut self, n: usize) -> ArrayRef {
        let v: Vec<Option<f64>> = (0..n)
            .map(|_| {
                let x = self.rng.random_range(-1e9..1e9);
                self.valid().then_some(x)
            })
            .collect();
        Arc::new(Float64Array::from(v))
    }

    fn word(&mut self) -> String {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
        let len = self.rng.random_range(0..=16);
        (0..len)
            .map(|_| ALPHABET[self.rng.random_range(0..ALPHABET.len())] as char)
            .collect()
    }

    fn strings(&mut self, n: usize, may_be_null: bool) -> ArrayRef {
        let v: Vec<Option<String>> = (0..n)
            .map(|_| {
                let w = self.word();
                (!may_be_null || self.valid()).then_some(w)
            })
            .collect();
        Arc::new(StringArray::from(v))
    }

    /// Offsets and validity of `n` lists of 0-6 elements (a null list holds none).
    fn lists(&mut self, n: usize) -> (OffsetBuffer<i32>, Option<NullBuffer>, usize) {
        let nulls = self.validity(n);
        let mut lengths = Vec::with_capacity(n);
        for i in 0..n {
            let null = nulls.as_ref().is_some_and(|b| b.is_null(i));
            lengths.push(if null {
                0
            } else {
                self.rng.random_range(0..=6)
            });
        }
        let total = lengths.iter().sum();
        (OffsetBuffer::from_lengths(lengths), nulls, total)
    }

    fn list_of(
        &mut self,
        n: usize,
        item: DataType,
        child: impl FnOnce(&mut Gen, usize) -> ArrayRef,
    ) -> ArrayRef {
        let (offsets, nulls, total) = self.lists(n);
        let values = child(self, total);
        let field = Arc::new(Field::new("item", item, self.nullable));
        Arc::new(ListArray::new(field, offsets, values, nulls))
    }

    fn structs(&mut self, n: usize, fields: Fields, children: Vec<ArrayRef>) -> ArrayRef {
        let nulls = self.validity(n);
        Arc::new(StructArray::new(fields, children, nulls))
    }
}

/// `rows` values of `shape` (nulls at every level when `nullable`), from `seed`.
pub fn generate(shape: Shape, nullable: bool, rows: usize, seed: u64) -> ArrayRef {
    let mut g = Gen {
        rng: SmallRng::seed_from_u64(seed),
        nulls: SmallRng::seed_from_u64(seed ^ 0x5eed),
        nullable,
    };
    match shape {
        Shape::ListInt64 => g.list_of(rows, DataType::Int64, |g, n| g.int64(n)),
        Shape::ListString => g.list_of(rows, DataType::Utf8, |g, n| g.strings(n, true)),
        Shape::ListListInt32 => {
            let inner = DataType::List(Arc::new(Field::new("item", DataType::Int32, nullable)));
            g.list_of(rows, inner, |g, n| {
                g.list_of(n, DataType::Int32, |g, m| g.int32(m))
            })
        }
        Shape::Struct3 => {
            let children = vec![g.int32(rows), g.strings(rows, true), g.float64(rows)];
            g.structs(rows, struct3_fields(nullable), children)
        }
        Shape::MapStringInt64 => {
            let (offsets, nulls, total) = g.lists(rows);
            let keys = g.strings(total, false);
            let values = g.int64(total);
            let entries = StructArray::new(entries_fields(nullable), vec![keys, values], None);
            Arc::new(MapArray::new(
                Arc::new(entries_field(nullable)),
                offsets,
                entries,
                nulls,
                false,
            ))
        }
        Shape::ListStruct => g.list_of(rows, DataType::Struct(ab_fields(nullable)), |g, n| {
            let children = vec![g.int32(n), g.strings(n, true)];
            g.structs(n, ab_fields(nullable), children)
        }),
    }
}
