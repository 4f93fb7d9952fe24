//! VARIANT columns from Arrow fields of the `arrow.parquet.variant` extension type
//! (`Struct<metadata: Binary, value: Binary>`, or already shredded with a `typed_value`),
//! top-level or within structs: the group's logical type, and the batch as written, each
//! row's value checked and, for columns given a schema in
//! [`WriterProperties::variant_shredding`] (by dotted path), shredded by it (see
//! [`crate::variant::split`]). The `typed_value` leaves are ordinary columns with
//! statistics.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};

use super::properties::WriterProperties;
use crate::format::metadata::LogicalType;
use crate::variant::{check_values, check_variant_field, is_variant, shred, shredded_field};
use crate::{Error, ErrorKind, Result};

/// The VARIANT logical type (specification version 1) of field `f` when it is a Variant
/// column of a valid layout; `None` for other fields.
pub(super) fn logical_type(f: &Field) -> Result<Option<LogicalType>> {
    if !is_variant(f) {
        return Ok(None);
    }
    check_variant_field(f)?;
    Ok(Some(LogicalType::Variant {
        specification_version: Some(1),
    }))
}

/// The Variant columns of a writer: the schema batches come in, the shredding schema of
/// each Variant column given one (by dotted path through structs), and which top-level
/// fields hold a Variant column (themselves or within their structs).
#[derive(Debug)]
pub(super) struct VariantColumns {
    input: SchemaRef,
    shredding: BTreeMap<String, DataType>,
    holders: Vec<usize>,
}

/// The field written for input field `f` (dotted path `path`): Variant columns given a
/// shredding schema in `shredding` shredded by it, structs rebuilt around them; whether it
/// holds a Variant column.
fn file_field(
    f: &FieldRef,
    path: &str,
    shredding: &BTreeMap<String, DataType>,
) -> Result<(FieldRef, bool)> {
    if is_variant(f) {
        return Ok(match shredding.get(path) {
            Some(t) => (Arc::new(shredded_field(f, t)?), true),
            None => (f.clone(), true),
        });
    }
    let DataType::Struct(children) = f.data_type() else {
        return Ok((f.clone(), false));
    };
    let mut holds = false;
    let mut fields = Vec::with_capacity(children.len());
    for c in children {
        let (c, h) = file_field(c, &format!("{path}.{}", c.name()), shredding)?;
        holds |= h;
        fields.push(c);
    }
    if !holds {
        return Ok((f.clone(), false));
    }
    let s = Field::new(f.name(), DataType::Struct(fields.into()), f.is_nullable())
        .with_metadata(f.metadata().clone());
    Ok((Arc::new(s), true))
}

/// The field at dotted path `path` of `schema`, through structs only.
fn field_at<'a>(schema: &'a Schema, path: &str) -> Option<&'a Field> {
    let mut parts = path.split('.');
    let mut f = schema.field_with_name(parts.next()?).ok()?;
    for name in parts {
        let DataType::Struct(children) = f.data_type() else {
            return None;
        };
        if is_variant(f) {
            return None;
        }
        f = children.find(name)?.1;
    }
    Some(f)
}

/// The schema of the file written from batches of `schema` under `props` (Variant columns
/// given a shredding schema shredded by it) and its Variant columns; `None` when it has
/// none. A shredding schema for a path that is not an unshredded Variant column, top-level
/// or within structs (`outer.inner.v`), is an error.
pub(super) fn plan(
    schema: &SchemaRef,
    props: &WriterProperties,
) -> Result<(SchemaRef, Option<VariantColumns>)> {
    let shredding = props.variant_shredding();
    for name in shredding.keys() {
        let ok = field_at(schema, name).is_some_and(|f| {
            is_variant(f)
                && matches!(f.data_type(), DataType::Struct(c) if c.find("typed_value").is_none())
        });
        if !ok {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "cannot shred column `{name}`: not an unshredded Variant column (top-level or \
                 within structs)"
            ))));
        }
    }
    let mut holders = Vec::new();
    let mut fields = Vec::with_capacity(schema.fields().len());
    for (i, f) in schema.fields().iter().enumerate() {
        let (f, holds) = file_field(f, f.name(), shredding)?;
        if holds {
            holders.push(i);
        }
        fields.push(f);
    }
    if holders.is_empty() {
        return Ok((schema.clone(), None));
    }
    let file = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    Ok((
        file,
        Some(VariantColumns {
            input: schema.clone(),
            shredding: shredding.clone(),
            holders,
        }),
    ))
}

impl VariantColumns {
    /// The schema batches come in.
    pub(super) fn input(&self) -> &SchemaRef {
        &self.input
    }

    /// `batch` (of the input schema) as written to a file of schema `file`: Variant values
    /// checked, shredded where asked; `first_row`: the file's row of its first row.
    pub(super) fn apply(
        &self,
        batch: &RecordBatch,
        file: &SchemaRef,
        first_row: u64,
    ) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for &i in &self.holders {
            let (Some(column), Some(field), Some(out)) = (
                columns.get_mut(i),
                self.input.fields().get(i),
                file.fields().get(i),
            ) else {
                continue;
            };
            *column = self.array(column, field, out, field.name(), first_row)?;
        }
        RecordBatch::try_new(file.clone(), columns).map_err(crate::error::arrow_error)
    }

    /// `array` of input field `field` (dotted path `path`) as written for file field `out`.
    fn array(
        &self,
        array: &ArrayRef,
        field: &Field,
        out: &Field,
        path: &str,
        first_row: u64,
    ) -> Result<ArrayRef> {
        let Some(s) = array.as_struct_opt() else {
            return Ok(array.clone());
        };
        if is_variant(field) {
            return Ok(match self.shredding.get(path) {
                Some(t) => Arc::new(shred(s, t, path, first_row)?),
                None => {
                    if s.column_by_name("typed_value").is_none() {
                        check_values(s, path, first_row)?;
                    }
                    array.clone()
                }
            });
        }
        let (DataType::Struct(inputs), DataType::Struct(outs)) =
            (field.data_type(), out.data_type())
        else {
            return Ok(array.clone());
        };
        if inputs == outs {
            return Ok(array.clone());
        }
        let children = s
            .columns()
            .iter()
            .zip(inputs.iter().zip(outs.iter()))
            .map(|(c, (f, o))| self.array(c, f, o, &format!("{path}.{}", f.name()), first_row))
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(
            StructArray::try_new(outs.clone(), children, s.nulls().cloned())
                .map_err(crate::error::arrow_error)?,
        ))
    }
}
