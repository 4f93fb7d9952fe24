//! Shredding Variant values for writing (`VariantShredding.md`): [`shredded_field`], the
//! Arrow field of a Variant column shredded by a `typed_value` schema, [`shred`], which
//! splits each row's binary value into `value` (what the schema does not hold, binary) and
//! `typed_value` (typed columns), and [`check_values`], the check of unshredded rows.
//!
//! The schema is given in its short form: a primitive type, `Struct` for an object (a field
//! per shredded object field), `List` for an array (its element's schema). A value goes to
//! `typed_value` when its Variant type is exactly the one the spec pairs with the schema's
//! type; otherwise it stays whole in `value`. An object's fields outside the schema stay in
//! a residual object in `value`; a field of the schema the object lacks is null in both.

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, FixedSizeBinaryBuilder,
    Float32Builder, Float64Builder, Int16Builder, Int32Builder, Int64Builder, Int8Builder,
    StringBuilder, Time64MicrosecondBuilder, TimestampMicrosecondBuilder,
    TimestampNanosecondBuilder,
};
use arrow_array::{Array, ArrayRef, ListArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, TimeUnit};

use super::shred::binary_at;
use super::value::{Metadata, Variant};
use super::{encode, MAX_DEPTH};
use crate::schema::annotation::UUID_EXTENSION;
use crate::schema::tree::EXTENSION_NAME_KEY;
use crate::{Error, ErrorKind, Result};

fn refused(column: &str, what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Unsupported(format!(
        "cannot shred Variant column `{column}`: {what}"
    )))
}

/// The Arrow type of a shredded `typed_value` of short-form schema `t`.
fn typed_type(column: &str, t: &DataType, depth: usize) -> Result<DataType> {
    if depth > MAX_DEPTH {
        return Err(refused(column, "schema nested too deeply"));
    }
    Ok(match t {
        DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::Float32
        | DataType::Float64
        | DataType::Date32
        | DataType::Time64(TimeUnit::Microsecond)
        | DataType::Timestamp(TimeUnit::Microsecond | TimeUnit::Nanosecond, _)
        | DataType::Utf8
        | DataType::Binary => t.clone(),
        // Decimals by precision: decimal4 (INT32) up to 9 digits, decimal8 (INT64) up to
        // 18, decimal16 (FIXED_LEN_BYTE_ARRAY) up to 38; Decimal128 whatever the Arrow
        // width, the type readers give such columns.
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s)
            if (1..=38).contains(p) && *s >= 0 && i16::from(*s) <= i16::from(*p) =>
        {
            DataType::Decimal128(*p, *s)
        }
        // uuid: FIXED_LEN_BYTE_ARRAY(16) UUID, the `typed_value` field an `arrow.uuid`.
        DataType::FixedSizeBinary(16) => t.clone(),
        DataType::Struct(fields) if !fields.is_empty() => {
            let shredded = fields
                .iter()
                .map(|f| {
                    let g = group_fields(column, f.data_type(), depth + 1)?;
                    Ok(Field::new(f.name(), DataType::Struct(g), false))
                })
                .collect::<Result<Fields>>()?;
            DataType::Struct(shredded)
        }
        DataType::List(item) => {
            let g = group_fields(column, item.data_type(), depth + 1)?;
            DataType::List(Arc::new(Field::new("element", DataType::Struct(g), false)))
        }
        other => {
            return Err(refused(
                column,
                format_args!("{other} is not a typed_value type parq writes"),
            ))
        }
    })
}

/// `value` and `typed_value` of a shredded group of schema `t`.
fn group_fields(column: &str, t: &DataType, depth: usize) -> Result<Fields> {
    Ok(pair_fields(typed_type(column, t, depth)?))
}

/// The fields `value` and `typed_value` (of Arrow type `typed`; a FixedSizeBinary(16) is an
/// `arrow.uuid`) of a shredded group.
fn pair_fields(typed: DataType) -> Fields {
    let mut typed_value = Field::new("typed_value", typed, true);
    if *typed_value.data_type() == DataType::FixedSizeBinary(16) {
        let uuid = [(EXTENSION_NAME_KEY.to_string(), UUID_EXTENSION.to_string())];
        typed_value = typed_value.with_metadata(std::collections::HashMap::from(uuid));
    }
    Fields::from(vec![
        Field::new("value", DataType::Binary, true),
        typed_value,
    ])
}

/// The field of Variant column `field` shredded by short-form schema `typed`:
/// `Struct<metadata, value, typed_value>`, named, nullable and with metadata as `field`.
pub fn shredded_field(field: &Field, typed: &DataType) -> Result<Field> {
    let mut fields = vec![Field::new("metadata", DataType::Binary, false)];
    fields.extend(
        group_fields(field.name(), typed, 0)?
            .iter()
            .map(|f| (**f).clone()),
    );
    Ok(Field::new(
        field.name(),
        DataType::Struct(Fields::from(fields)),
        field.is_nullable(),
    )
    .with_metadata(field.metadata().clone()))
}

/// Checks that `bytes` is a Variant value of `meta`: every container within bounds, every
/// field id in the dictionary, every primitive known.
fn check(meta: &Metadata<'_>, bytes: &[u8], depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(super::invalid("nested too deeply"));
    }
    Variant::size(bytes)?;
    match Variant::new(bytes)? {
        Variant::Object(o) => {
            for i in 0..o.len() {
                let (id, b) = o.field_bytes(i)?;
                meta.get(id)?;
                check(meta, b, depth + 1)?;
            }
        }
        Variant::Array(a) => {
            for i in 0..a.len() {
                check(meta, a.element_bytes(i)?, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The metadata and value of valid row `row` of Variant struct `array`, checked.
fn row_of(array: &StructArray, row: usize) -> Result<Option<(Metadata<'_>, &[u8])>> {
    let metadata = array
        .column_by_name("metadata")
        .ok_or_else(|| super::invalid("no metadata column"))?;
    let value = array
        .column_by_name("value")
        .ok_or_else(|| super::invalid("no value column"))?;
    let m = binary_at(metadata, row)?.ok_or_else(|| super::invalid("null metadata"))?;
    let meta = Metadata::new(m)?;
    let Some(v) = binary_at(value, row)? else {
        return Ok(None);
    };
    check(&meta, v, 0)?;
    Ok(Some((meta, v)))
}

fn at_row(column: &str, row: u64, e: Error) -> Error {
    Error::new(ErrorKind::Inconsistent(format!(
        "Variant column `{column}`, row {row}: {e}"
    )))
}

/// Checks every valid row of unshredded Variant struct `array` (column `column`, its first
/// row the file's row `first_row`), naming the first bad one.
pub fn check_values(array: &StructArray, column: &str, first_row: u64) -> Result<()> {
    for row in 0..array.len() {
        if array.is_valid(row) {
            row_of(array, row).map_err(|e| at_row(column, first_row + row as u64, e))?;
        }
    }
    Ok(())
}

/// Unshredded Variant struct `array` (column `column`, its first row the file's row
/// `first_row`) shredded by short-form schema `typed`, as [`shredded_field`] describes.
pub fn shred(
    array: &StructArray,
    typed: &DataType,
    column: &str,
    first_row: u64,
) -> Result<StructArray> {
    let DataType::Struct(out_fields) =
        shredded_field(&Field::new(column, DataType::Null, true), typed)?
            .data_type()
            .clone()
    else {
        return Err(refused(column, "not a struct"));
    };
    let n = array.len();
    let mut metadata = BinaryBuilder::with_capacity(n, 0);
    let mut top = Group::new(typed, n)?;
    for row in 0..n {
        if array.is_null(row) {
            metadata.append_value([]);
            top.append(None, None, 0)?;
            continue;
        }
        let r = row_of(array, row).and_then(|r| {
            let (meta, v) = r.ok_or_else(|| super::invalid("null value"))?;
            metadata.append_value(meta.bytes());
            top.append(Some(v), Some(&meta), 0)
        });
        r.map_err(|e| at_row(column, first_row + row as u64, e))?;
    }
    let (value, typed_value) = top.finish()?;
    StructArray::try_new(
        out_fields,
        vec![Arc::new(metadata.finish()), value, typed_value],
        array.nulls().cloned(),
    )
    .map_err(crate::error::arrow_error)
}

/// The builders of one `value` / `typed_value` pair.
struct Group {
    value: BinaryBuilder,
    typed: Typed,
}

enum Typed {
    Bool(BooleanBuilder),
    Int8(Int8Builder),
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    Float(Float32Builder),
    Double(Float64Builder),
    Date(Date32Builder),
    Time(Time64MicrosecondBuilder),
    Micros(TimestampMicrosecondBuilder, bool),
    Nanos(TimestampNanosecondBuilder, bool),
    Decimal(Decimal128Builder, u8, u8),
    Uuid(FixedSizeBinaryBuilder),
    String(StringBuilder),
    Binary(BinaryBuilder),
    Object {
        fields: Fields,
        children: Vec<Group>,
        nulls: NullBufferBuilder,
    },
    List {
        offsets: Vec<i32>,
        element: Box<Group>,
        nulls: NullBufferBuilder,
    },
}

/// True when decimal `v` belongs in a `typed_value` of DECIMAL(`p`, `s`): the Variant
/// decimal width of that precision (decimal4 up to 9 digits, decimal8 up to 18, else
/// decimal16), scale `s`, and at most `p` digits. Its unscaled value if so.
fn decimal_fits(v: &Variant<'_>, p: u8, s: u8) -> Option<i128> {
    let (x, scale, width) = match *v {
        Variant::Decimal4(x, scale) => (i128::from(x), scale, 9),
        Variant::Decimal8(x, scale) => (i128::from(x), scale, 18),
        Variant::Decimal16(x, scale) => (x, scale, 38),
        _ => return None,
    };
    let wanted = match p {
        0..=9 => 9,
        10..=18 => 18,
        _ => 38,
    };
    (width == wanted && scale == s && x.unsigned_abs() < 10u128.pow(u32::from(p))).then_some(x)
}

/// What `typed_value` took of a value.
enum Taken {
    All,
    Nothing,
    /// The object's fields outside the schema, encoded as an object.
    Rest(Vec<u8>),
}

impl Group {
    fn new(t: &DataType, n: usize) -> Result<Group> {
        let typed = match t {
            DataType::Boolean => Typed::Bool(BooleanBuilder::with_capacity(n)),
            DataType::Int8 => Typed::Int8(Int8Builder::with_capacity(n)),
            DataType::Int16 => Typed::Int16(Int16Builder::with_capacity(n)),
            DataType::Int32 => Typed::Int32(Int32Builder::with_capacity(n)),
            DataType::Int64 => Typed::Int64(Int64Builder::with_capacity(n)),
            DataType::Float32 => Typed::Float(Float32Builder::with_capacity(n)),
            DataType::Float64 => Typed::Double(Float64Builder::with_capacity(n)),
            DataType::Date32 => Typed::Date(Date32Builder::with_capacity(n)),
            DataType::Time64(_) => Typed::Time(Time64MicrosecondBuilder::with_capacity(n)),
            DataType::Timestamp(TimeUnit::Microsecond, tz) => Typed::Micros(
                TimestampMicrosecondBuilder::with_capacity(n).with_timezone_opt(tz.clone()),
                tz.is_some(),
            ),
            DataType::Timestamp(_, tz) => Typed::Nanos(
                TimestampNanosecondBuilder::with_capacity(n).with_timezone_opt(tz.clone()),
                tz.is_some(),
            ),
            DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s) => {
                Typed::Decimal(
                    Decimal128Builder::with_capacity(n)
                        .with_precision_and_scale(*p, *s)
                        .map_err(crate::error::arrow_error)?,
                    *p,
                    u8::try_from(*s).map_err(|_| refused("", format_args!("scale {s}")))?,
                )
            }
            DataType::FixedSizeBinary(16) => {
                Typed::Uuid(FixedSizeBinaryBuilder::with_capacity(n, 16))
            }
            DataType::Utf8 => Typed::String(StringBuilder::with_capacity(n, 0)),
            DataType::Binary => Typed::Binary(BinaryBuilder::with_capacity(n, 0)),
            DataType::Struct(fields) => Typed::Object {
                fields: fields.clone(),
                children: fields
                    .iter()
                    .map(|f| Group::new(f.data_type(), n))
                    .collect::<Result<_>>()?,
                nulls: NullBufferBuilder::new(n),
            },
            DataType::List(item) => Typed::List {
                offsets: vec![0],
                element: Box::new(Group::new(item.data_type(), n)?),
                nulls: NullBufferBuilder::new(n),
            },
            other => return Err(refused("", other)),
        };
        Ok(Group {
            value: BinaryBuilder::with_capacity(n, 0),
            typed,
        })
    }

    /// Appends value `v` (`None`: missing), of metadata `meta`.
    fn append(
        &mut self,
        v: Option<&[u8]>,
        meta: Option<&Metadata<'_>>,
        depth: usize,
    ) -> Result<()> {
        let (Some(bytes), Some(meta)) = (v, meta) else {
            self.value.append_null();
            return self.typed.append_null();
        };
        match self.typed.append(bytes, meta, depth)? {
            Taken::All => self.value.append_null(),
            Taken::Nothing => self.value.append_value(bytes),
            Taken::Rest(rest) => self.value.append_value(rest),
        }
        Ok(())
    }

    /// The `value` and `typed_value` arrays.
    fn finish(mut self) -> Result<(ArrayRef, ArrayRef)> {
        Ok((Arc::new(self.value.finish()), self.typed.finish()?))
    }
}

impl Typed {
    fn append_null(&mut self) -> Result<()> {
        match self {
            Typed::Bool(b) => b.append_null(),
            Typed::Int8(b) => b.append_null(),
            Typed::Int16(b) => b.append_null(),
            Typed::Int32(b) => b.append_null(),
            Typed::Int64(b) => b.append_null(),
            Typed::Float(b) => b.append_null(),
            Typed::Double(b) => b.append_null(),
            Typed::Date(b) => b.append_null(),
            Typed::Time(b) => b.append_null(),
            Typed::Micros(b, _) => b.append_null(),
            Typed::Nanos(b, _) => b.append_null(),
            Typed::Decimal(b, ..) => b.append_null(),
            Typed::Uuid(b) => b.append_null(),
            Typed::String(b) => b.append_null(),
            Typed::Binary(b) => b.append_null(),
            Typed::Object {
                children, nulls, ..
            } => {
                for c in children {
                    c.append(None, None, 0)?;
                }
                nulls.append_null();
            }
            Typed::List { offsets, nulls, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
                nulls.append_null();
            }
        }
        Ok(())
    }

    /// Takes what it can of `bytes` (a checked value of `meta`).
    fn append(&mut self, bytes: &[u8], meta: &Metadata<'_>, depth: usize) -> Result<Taken> {
        if depth > MAX_DEPTH {
            return Err(super::invalid("nested too deeply"));
        }
        let v = Variant::new(bytes)?;
        match (&mut *self, v) {
            (Typed::Bool(b), Variant::Bool(x)) => b.append_value(x),
            (Typed::Int8(b), Variant::Int8(x)) => b.append_value(x),
            (Typed::Int16(b), Variant::Int16(x)) => b.append_value(x),
            (Typed::Int32(b), Variant::Int32(x)) => b.append_value(x),
            (Typed::Int64(b), Variant::Int64(x)) => b.append_value(x),
            (Typed::Float(b), Variant::Float(x)) => b.append_value(x),
            (Typed::Double(b), Variant::Double(x)) => b.append_value(x),
            (Typed::Date(b), Variant::Date(x)) => b.append_value(x),
            (Typed::Time(b), Variant::TimeMicros(x)) => b.append_value(x),
            (Typed::Micros(b, true), Variant::TimestampMicros(x))
            | (Typed::Micros(b, false), Variant::TimestampNtzMicros(x)) => b.append_value(x),
            (Typed::Nanos(b, true), Variant::TimestampNanos(x))
            | (Typed::Nanos(b, false), Variant::TimestampNtzNanos(x)) => b.append_value(x),
            (Typed::Decimal(b, p, s), v) if decimal_fits(&v, *p, *s).is_some() => {
                b.append_value(decimal_fits(&v, *p, *s).unwrap_or_default())
            }
            (Typed::Uuid(b), Variant::Uuid(u)) => {
                b.append_value(u).map_err(crate::error::arrow_error)?
            }
            (Typed::String(b), Variant::String(x)) => b.append_value(x),
            (Typed::Binary(b), Variant::Binary(x)) => b.append_value(x),
            (
                Typed::Object {
                    fields,
                    children,
                    nulls,
                },
                Variant::Object(o),
            ) => {
                let mut slots: Vec<Option<&[u8]>> = vec![None; fields.len()];
                let mut rest = Vec::new();
                for i in 0..o.len() {
                    let (id, b) = o.field_bytes(i)?;
                    match fields.find(meta.get(id)?) {
                        Some((k, _)) => {
                            if let Some(slot) = slots.get_mut(k) {
                                *slot = Some(b);
                            }
                        }
                        None => rest.push((id, b)),
                    }
                }
                for (child, slot) in children.iter_mut().zip(slots) {
                    child.append(slot, Some(meta), depth + 1)?;
                }
                nulls.append_non_null();
                if rest.is_empty() {
                    return Ok(Taken::All);
                }
                let mut out = Vec::new();
                encode::object(&mut out, &rest)?;
                return Ok(Taken::Rest(out));
            }
            (
                Typed::List {
                    offsets,
                    element,
                    nulls,
                },
                Variant::Array(a),
            ) => {
                for i in 0..a.len() {
                    element.append(Some(a.element_bytes(i)?), Some(meta), depth + 1)?;
                }
                let last = offsets.last().copied().unwrap_or(0);
                let n = i32::try_from(a.len())
                    .ok()
                    .and_then(|n| last.checked_add(n))
                    .ok_or_else(|| super::invalid("more than 2^31 array elements in a batch"))?;
                offsets.push(n);
                nulls.append_non_null();
            }
            _ => {
                self.append_null()?;
                return Ok(Taken::Nothing);
            }
        };
        Ok(Taken::All)
    }

    fn finish(self) -> Result<ArrayRef> {
        Ok(match self {
            Typed::Bool(mut b) => Arc::new(b.finish()),
            Typed::Int8(mut b) => Arc::new(b.finish()),
            Typed::Int16(mut b) => Arc::new(b.finish()),
            Typed::Int32(mut b) => Arc::new(b.finish()),
            Typed::Int64(mut b) => Arc::new(b.finish()),
            Typed::Float(mut b) => Arc::new(b.finish()),
            Typed::Double(mut b) => Arc::new(b.finish()),
            Typed::Date(mut b) => Arc::new(b.finish()),
            Typed::Time(mut b) => Arc::new(b.finish()),
            Typed::Micros(mut b, _) => Arc::new(b.finish()),
            Typed::Nanos(mut b, _) => Arc::new(b.finish()),
            Typed::Decimal(mut b, ..) => Arc::new(b.finish()),
            Typed::Uuid(mut b) => Arc::new(b.finish()),
            Typed::String(mut b) => Arc::new(b.finish()),
            Typed::Binary(mut b) => Arc::new(b.finish()),
            Typed::Object {
                fields,
                children,
                mut nulls,
            } => {
                let mut shredded = Vec::with_capacity(children.len());
                let mut arrays = Vec::with_capacity(children.len());
                for (f, c) in fields.iter().zip(children) {
                    let (value, typed) = c.finish()?;
                    let g = pair_fields(typed.data_type().clone());
                    let s = StructArray::try_new(g.clone(), vec![value, typed], None)
                        .map_err(crate::error::arrow_error)?;
                    shredded.push(Field::new(f.name(), DataType::Struct(g), false));
                    arrays.push(Arc::new(s) as ArrayRef);
                }
                Arc::new(
                    StructArray::try_new(Fields::from(shredded), arrays, nulls.finish())
                        .map_err(crate::error::arrow_error)?,
                )
            }
            Typed::List {
                offsets,
                element,
                mut nulls,
            } => {
                let (value, typed) = element.finish()?;
                let g = pair_fields(typed.data_type().clone());
                let s = StructArray::try_new(g.clone(), vec![value, typed], None)
                    .map_err(crate::error::arrow_error)?;
                let item = Arc::new(Field::new("element", DataType::Struct(g), false));
                Arc::new(
                    ListArray::try_new(
                        item,
                        OffsetBuffer::new(offsets.into()),
                        Arc::new(s),
                        nulls.finish(),
                    )
                    .map_err(crate::error::arrow_error)?,
                )
            }
        })
    }
}
