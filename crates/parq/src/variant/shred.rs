//! Shredded Variant columns as Arrow structs: the check of a Variant group's fields (the
//! `typed_value` types `VariantShredding.md` allows) and [`unshred`], which rebuilds the
//! binary value of every row from `value` and `typed_value`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time64MicrosecondType, TimestampMicrosecondType, TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef, BinaryArray, GenericListArray, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, TimeUnit};

use super::value::{Metadata, Variant};
use super::{encode, invalid, EXTENSION_NAME, MAX_DEPTH};
use crate::schema::tree::{EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY};
use crate::{Error, ErrorKind, Result};

fn unsupported(what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::SchemaConversion(format!(
        "Unsupported shredded value type: {what}"
    )))
}

/// Checks the fields of Variant group `field` (read as a struct): a binary `metadata`, an
/// optional binary `value` and a `typed_value` of a type shredding allows.
pub fn check_variant_field(field: &Field) -> Result<()> {
    let DataType::Struct(fields) = field.data_type() else {
        return Err(unsupported(format!(
            "Variant `{}` is not a group",
            field.name()
        )));
    };
    match fields.find("metadata") {
        Some((_, m)) if is_binary(m.data_type()) => {}
        _ => {
            return Err(Error::new(ErrorKind::SchemaConversion(format!(
                "Variant `{}` without a binary `metadata`",
                field.name()
            ))))
        }
    }
    check_group(fields, 0)
}

fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

/// A group of `value` and / or `typed_value`.
fn check_group(fields: &Fields, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(unsupported("nested too deeply"));
    }
    for f in fields {
        match f.name().as_str() {
            "metadata" if depth == 0 => {}
            "value" if is_binary(f.data_type()) => {}
            "typed_value" => check_typed(f, depth)?,
            other => {
                return Err(Error::new(ErrorKind::SchemaConversion(format!(
                    "unexpected field `{other}` in a shredded Variant group"
                ))))
            }
        }
    }
    Ok(())
}

fn check_typed(f: &Field, depth: usize) -> Result<()> {
    let t = f.data_type();
    let ok = match t {
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
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => true,
        DataType::Decimal128(p, _) => *p <= 38,
        DataType::FixedSizeBinary(16) => f
            .metadata()
            .get(EXTENSION_NAME_KEY)
            .is_some_and(|n| n == "arrow.uuid"),
        DataType::Struct(fields) => {
            for c in fields {
                match c.data_type() {
                    DataType::Struct(g) => check_group(g, depth + 1)?,
                    other => return Err(unsupported(format!("field `{}` {other}", c.name()))),
                }
            }
            true
        }
        DataType::List(item) | DataType::LargeList(item) => match item.data_type() {
            DataType::Struct(g) => {
                check_group(g, depth + 1)?;
                true
            }
            _ => false,
        },
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(unsupported(match t {
        DataType::UInt8 => "INTEGER(8,false)".to_string(),
        DataType::UInt16 => "INTEGER(16,false)".to_string(),
        DataType::UInt32 => "INTEGER(32,false)".to_string(),
        DataType::UInt64 => "INTEGER(64,false)".to_string(),
        DataType::FixedSizeBinary(n) => format!("fixed_len_byte_array({n}) typed_value"),
        other => format!("{other} typed_value"),
    }))
}

/// The field of the unshredded Variant `field`: `Struct<metadata: Binary, value: Binary>`
/// with the extension type, named and nullable as `field`.
pub fn unshredded_field(field: &Field) -> Field {
    let fields = Fields::from(vec![
        Field::new("metadata", DataType::Binary, false),
        Field::new("value", DataType::Binary, false),
    ]);
    let mut metadata = field.metadata().clone();
    metadata.insert(EXTENSION_NAME_KEY.to_string(), EXTENSION_NAME.to_string());
    metadata.insert(EXTENSION_METADATA_KEY.to_string(), String::new());
    Field::new(field.name(), DataType::Struct(fields), field.is_nullable()).with_metadata(metadata)
}

/// The extension type's metadata on `field`: whether `field` is a Variant column.
pub fn is_variant(field: &Field) -> bool {
    field
        .metadata()
        .get(EXTENSION_NAME_KEY)
        .is_some_and(|n| n == EXTENSION_NAME)
}

/// `value` and `typed_value` of a shredded group.
struct Group<'a> {
    value: Option<&'a ArrayRef>,
    typed: Option<&'a ArrayRef>,
}

impl<'a> Group<'a> {
    fn of(s: &'a StructArray) -> Self {
        Group {
            value: s.column_by_name("value"),
            typed: s.column_by_name("typed_value"),
        }
    }
}

/// Bytes of binary array `a` at `row`, `None` when null.
pub(crate) fn binary_at(a: &ArrayRef, row: usize) -> Result<Option<&[u8]>> {
    if a.is_null(row) {
        return Ok(None);
    }
    Ok(Some(match a.data_type() {
        DataType::Binary => a.as_binary::<i32>().value(row),
        DataType::LargeBinary => a.as_binary::<i64>().value(row),
        DataType::BinaryView => a.as_binary_view().value(row),
        other => return Err(invalid(format!("value column of type {other}"))),
    }))
}

/// The unshredded Variant array of the shredded (or unshredded) Variant struct `array`, as
/// [`unshredded_field`] describes: each row's metadata, and its value rebuilt from `value`
/// and `typed_value`. A null row stays null; a row whose value is missing is Variant null.
pub fn unshred(array: &StructArray) -> Result<StructArray> {
    let metadata = array
        .column_by_name("metadata")
        .ok_or_else(|| invalid("no metadata column"))?;
    let group = Group::of(array);
    let n = array.len();
    let mut meta_out: Vec<u8> = Vec::new();
    let mut meta_offsets: Vec<i32> = Vec::with_capacity(n + 1);
    let mut value_out: Vec<u8> = Vec::new();
    let mut value_offsets: Vec<i32> = Vec::with_capacity(n + 1);
    meta_offsets.push(0);
    value_offsets.push(0);
    for row in 0..n {
        if array.is_valid(row) {
            let m = binary_at(metadata, row)?.ok_or_else(|| invalid("null metadata"))?;
            let meta = Metadata::new(m)?;
            meta_out.extend_from_slice(m);
            if !rebuild(&group, row, &meta, &mut value_out, 0)? {
                value_out.push(0);
            }
        }
        meta_offsets.push(offset(meta_out.len())?);
        value_offsets.push(offset(value_out.len())?);
    }
    let binary = |offsets: Vec<i32>, bytes: Vec<u8>| -> ArrayRef {
        Arc::new(BinaryArray::new(
            OffsetBuffer::new(offsets.into()),
            bytes.into(),
            None,
        ))
    };
    let field = unshredded_field(&Field::new("", DataType::Null, true));
    let DataType::Struct(fields) = field.data_type() else {
        return Err(invalid("unshredded field is not a struct"));
    };
    StructArray::try_new(
        fields.clone(),
        vec![
            binary(meta_offsets, meta_out),
            binary(value_offsets, value_out),
        ],
        array.nulls().cloned(),
    )
    .map_err(crate::error::arrow_error)
}

fn offset(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| invalid("more than 2 GiB of Variant values in a batch"))
}

/// Appends the value of `g` at `row` to `out`; false when it is missing (both null).
fn rebuild(
    g: &Group<'_>,
    row: usize,
    meta: &Metadata<'_>,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<bool> {
    if depth > MAX_DEPTH {
        return Err(invalid("nested too deeply"));
    }
    let value = match g.value {
        Some(v) => binary_at(v, row)?,
        None => None,
    };
    let typed = g.typed.filter(|t| t.is_valid(row));
    let Some(typed) = typed else {
        return Ok(match value {
            Some(v) => {
                let n = Variant::size(v)?;
                out.extend_from_slice(v.get(..n).ok_or_else(|| invalid("truncated value"))?);
                true
            }
            None => false,
        });
    };
    match typed.data_type() {
        DataType::Struct(_) => object(typed.as_struct(), value, row, meta, out, depth)?,
        DataType::List(_) => list(typed.as_list::<i32>(), value, row, meta, out, depth)?,
        DataType::LargeList(_) => list(typed.as_list::<i64>(), value, row, meta, out, depth)?,
        _ => {
            if value.is_some() {
                return Err(invalid("conflicting value and typed_value"));
            }
            encode::write(out, &primitive(typed, row)?)?;
        }
    }
    Ok(true)
}

fn object(
    typed: &StructArray,
    value: Option<&[u8]>,
    row: usize,
    meta: &Metadata<'_>,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<()> {
    // The shredded fields' values, one after the other in one buffer.
    let mut shredded_bytes = Vec::new();
    let mut fields: Vec<(&str, std::ops::Range<usize>)> = Vec::new();
    for (f, column) in typed.fields().iter().zip(typed.columns()) {
        let Some(s) = column.as_struct_opt() else {
            return Err(invalid(format!(
                "shredded field `{}` is not a group",
                f.name()
            )));
        };
        let start = shredded_bytes.len();
        if rebuild(&Group::of(s), row, meta, &mut shredded_bytes, depth + 1)? {
            fields.push((f.name().as_str(), start..shredded_bytes.len()));
        } else {
            shredded_bytes.truncate(start);
        }
    }
    let mut rest: Vec<(&str, &[u8])> = Vec::new();
    if let Some(v) = value {
        let Variant::Object(o) = Variant::new(v)? else {
            return Err(invalid("non-object value with shredded fields"));
        };
        for i in 0..o.len() {
            let (id, b) = o.field_bytes(i)?;
            let name = meta.get(id)?;
            // A field both shredded and in `value` is invalid; the shredded one is read.
            if typed.column_by_name(name).is_none() {
                rest.push((name, b));
            }
        }
    }
    let mut all: Vec<(&str, &[u8])> = Vec::with_capacity(fields.len() + rest.len());
    for (name, range) in fields {
        let b = shredded_bytes
            .get(range)
            .ok_or_else(|| invalid("a shredded field's bytes"))?;
        all.push((name, b));
    }
    all.extend(rest);
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut with_ids = Vec::with_capacity(all.len());
    for (name, b) in all {
        let id = meta
            .find(name)?
            .ok_or_else(|| invalid(format!("field `{name}` not in the metadata")))?;
        with_ids.push((id, b));
    }
    encode::object(out, &with_ids)
}

fn list<O: arrow_array::OffsetSizeTrait>(
    typed: &GenericListArray<O>,
    value: Option<&[u8]>,
    row: usize,
    meta: &Metadata<'_>,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<()> {
    if value.is_some() {
        return Err(invalid("conflicting value and typed_value"));
    }
    let values = typed.values();
    let Some(s) = values.as_struct_opt() else {
        return Err(invalid("shredded array element is not a group"));
    };
    let g = Group::of(s);
    let offsets = typed.value_offsets();
    let (start, end) = match (offsets.get(row), offsets.get(row + 1)) {
        (Some(a), Some(b)) => (a.as_usize(), b.as_usize()),
        _ => return Err(invalid("array offsets out of range")),
    };
    // The elements one after the other in one buffer; a missing one is the Variant null.
    let mut bytes = Vec::new();
    let mut ends = Vec::with_capacity(end.saturating_sub(start));
    for i in start..end {
        if !rebuild(&g, i, meta, &mut bytes, depth + 1)? {
            bytes.push(0);
        }
        ends.push(bytes.len());
    }
    let mut refs: Vec<&[u8]> = Vec::with_capacity(ends.len());
    let mut from = 0;
    for to in ends {
        refs.push(
            bytes
                .get(from..to)
                .ok_or_else(|| invalid("an element's bytes"))?,
        );
        from = to;
    }
    encode::array(out, &refs)
}

/// The Variant of primitive `typed_value` array `a` at `row` (valid).
fn primitive(a: &ArrayRef, row: usize) -> Result<Variant<'_>> {
    Ok(match a.data_type() {
        DataType::Boolean => Variant::Bool(a.as_boolean().value(row)),
        DataType::Int8 => Variant::Int8(a.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => Variant::Int16(a.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => Variant::Int32(a.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => Variant::Int64(a.as_primitive::<Int64Type>().value(row)),
        DataType::Float32 => Variant::Float(a.as_primitive::<Float32Type>().value(row)),
        DataType::Float64 => Variant::Double(a.as_primitive::<Float64Type>().value(row)),
        DataType::Date32 => Variant::Date(a.as_primitive::<Date32Type>().value(row)),
        DataType::Time64(TimeUnit::Microsecond) => {
            Variant::TimeMicros(a.as_primitive::<Time64MicrosecondType>().value(row))
        }
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            let x = a.as_primitive::<TimestampMicrosecondType>().value(row);
            match tz {
                Some(_) => Variant::TimestampMicros(x),
                None => Variant::TimestampNtzMicros(x),
            }
        }
        DataType::Timestamp(TimeUnit::Nanosecond, tz) => {
            let x = a.as_primitive::<TimestampNanosecondType>().value(row);
            match tz {
                Some(_) => Variant::TimestampNanos(x),
                None => Variant::TimestampNtzNanos(x),
            }
        }
        DataType::Decimal128(p, s) => {
            let x = a.as_primitive::<Decimal128Type>().value(row);
            let s = u8::try_from(*s).map_err(|_| invalid(format!("decimal scale {s}")))?;
            match *p {
                0..=9 => Variant::Decimal4(
                    i32::try_from(x).map_err(|_| invalid("decimal out of range"))?,
                    s,
                ),
                10..=18 => Variant::Decimal8(
                    i64::try_from(x).map_err(|_| invalid("decimal out of range"))?,
                    s,
                ),
                _ => Variant::Decimal16(x, s),
            }
        }
        DataType::Utf8 => Variant::String(a.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Variant::String(a.as_string::<i64>().value(row)),
        DataType::Utf8View => Variant::String(a.as_string_view().value(row)),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            Variant::Binary(binary_at(a, row)?.unwrap_or_default())
        }
        DataType::FixedSizeBinary(16) => {
            let b = a.as_fixed_size_binary().value(row);
            let mut u = [0u8; 16];
            u.copy_from_slice(b);
            Variant::Uuid(u)
        }
        other => return Err(unsupported(other)),
    })
}
