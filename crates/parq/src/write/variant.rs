//! VARIANT columns from Arrow fields of the `arrow.parquet.variant` extension type
//! (`Struct<metadata: Binary, value: Binary>`, or already shredded with a `typed_value`):
//! the group's logical type, and the batch as written, each row's value checked and, for
//! columns given a schema in [`WriterProperties::variant_shredding`], shredded by it (see
//! [`crate::variant::split`]). The `typed_value` leaves are ordinary columns with
//! statistics.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

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

/// The Variant columns of a writer: the schema batches come in, and for each Variant
/// column its index and shredding schema.
#[derive(Debug)]
pub(super) struct VariantColumns {
    input: SchemaRef,
    columns: Vec<(usize, Option<DataType>)>,
}

/// The schema of the file written from batches of `schema` under `props` (Variant columns
/// given a shredding schema shredded by it) and its Variant columns; `None` when it has
/// none. A shredding schema for a column that is not an unshredded Variant is an error.
pub(super) fn plan(
    schema: &SchemaRef,
    props: &WriterProperties,
) -> Result<(SchemaRef, Option<VariantColumns>)> {
    for name in props.variant_shredding().keys() {
        let ok = schema.field_with_name(name).is_ok_and(|f| {
            is_variant(f)
                && matches!(f.data_type(), DataType::Struct(c) if c.find("typed_value").is_none())
        });
        if !ok {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "cannot shred column `{name}`: not an unshredded top-level Variant column"
            ))));
        }
    }
    let mut columns = Vec::new();
    let mut fields = Vec::with_capacity(schema.fields().len());
    for (i, f) in schema.fields().iter().enumerate() {
        if !is_variant(f) {
            fields.push(f.clone());
            continue;
        }
        let typed = props.variant_shredding().get(f.name()).cloned();
        fields.push(match &typed {
            Some(t) => Arc::new(shredded_field(f, t)?),
            None => f.clone(),
        });
        columns.push((i, typed));
    }
    if columns.is_empty() {
        return Ok((schema.clone(), None));
    }
    let file = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    Ok((
        file,
        Some(VariantColumns {
            input: schema.clone(),
            columns,
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
        for (i, typed) in &self.columns {
            let (Some(column), Some(field)) = (columns.get_mut(*i), self.input.fields().get(*i))
            else {
                continue;
            };
            let Some(s) = column.as_struct_opt() else {
                continue;
            };
            match typed {
                Some(t) => *column = Arc::new(shred(s, t, field.name(), first_row)?),
                None if s.column_by_name("typed_value").is_none() => {
                    check_values(s, field.name(), first_row)?;
                }
                None => {}
            }
        }
        RecordBatch::try_new(file.clone(), columns).map_err(crate::error::arrow_error)
    }
}
