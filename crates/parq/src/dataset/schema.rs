//! One schema across a dataset's files: fields united by name in the order first seen, a
//! field a file lacks read as nulls, int32/int64 as int64 and float32/float64 as float64
//! (a null-typed field takes the other's type); any other disagreement is an error naming
//! both files. [`conform`] makes a file's column the dataset's.

use std::sync::Arc;

use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::error::arrow_error;
use crate::{Error, ErrorKind, Result};

/// The type both `a` and `b` are read as, if any.
pub(crate) fn promote(a: &DataType, b: &DataType) -> Option<DataType> {
    use DataType::*;
    Some(match (a, b) {
        _ if a == b => a.clone(),
        (Null, t) | (t, Null) => t.clone(),
        (Int32, Int64) | (Int64, Int32) => Int64,
        (Float32, Float64) | (Float64, Float32) => Float64,
        _ => return None,
    })
}

/// The dataset schema of files `(name, schema)`: see the [module documentation](self).
pub(crate) fn unify(files: &[(&str, &Schema)]) -> Result<Schema> {
    // Per field: the field so far and the file that first gave it.
    let mut out: Vec<(Field, &str)> = Vec::new();
    for (name, schema) in files {
        for field in schema.fields() {
            match out.iter_mut().find(|(f, _)| f.name() == field.name()) {
                None => out.push((field.as_ref().clone(), name)),
                Some((seen, first)) => {
                    let Some(ty) = promote(seen.data_type(), field.data_type()) else {
                        return Err(Error::new(ErrorKind::Inconsistent(format!(
                            "column `{}` is {} in {first} and {} in {name}",
                            field.name(),
                            seen.data_type(),
                            field.data_type()
                        ))));
                    };
                    let nullable = seen.is_nullable() || field.is_nullable();
                    *seen = seen.clone().with_data_type(ty).with_nullable(nullable);
                }
            }
        }
    }
    // A field some file lacks is null there.
    let fields: Vec<Field> = out
        .into_iter()
        .map(|(f, _)| {
            let everywhere = files
                .iter()
                .all(|(_, s)| s.field_with_name(f.name()).is_ok());
            if everywhere {
                f
            } else {
                f.with_nullable(true)
            }
        })
        .collect();
    Ok(Schema::new(fields))
}

/// The column of `field` made of `batch`'s column of its name: cast to the field's type,
/// or nulls where `batch` has none.
pub(crate) fn conform(batch: &RecordBatch, field: &Field) -> Result<ArrayRef> {
    Ok(match batch.column_by_name(field.name()) {
        None => new_null_array(field.data_type(), batch.num_rows()),
        Some(c) if c.data_type() == field.data_type() => Arc::clone(c),
        Some(c) => arrow_cast::cast(c, field.data_type()).map_err(arrow_error)?,
    })
}

/// A batch of `schema` from `columns` of `rows` rows each.
pub(crate) fn with_columns(
    schema: &SchemaRef,
    columns: Vec<ArrayRef>,
    rows: usize,
) -> Result<RecordBatch> {
    // Fields a file lacks are nullable in the dataset; a required field's nulls would be
    // refused, so the batch's fields follow its columns.
    let fields: Vec<Arc<Field>> = schema
        .fields()
        .iter()
        .zip(&columns)
        .map(|(f, c)| {
            if !f.is_nullable() && c.null_count() > 0 {
                Arc::new(f.as_ref().clone().with_nullable(true))
            } else {
                Arc::clone(f)
            }
        })
        .collect();
    let schema = if fields
        .iter()
        .zip(schema.fields())
        .all(|(a, b)| Arc::ptr_eq(a, b))
    {
        Arc::clone(schema)
    } else {
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    };
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, columns, &options).map_err(arrow_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray};

    #[test]
    fn schemas_unite_by_name_with_promotions() {
        let a = Schema::new(vec![
            Field::new("x", DataType::Int32, false),
            Field::new("s", DataType::Utf8, true),
        ]);
        let b = Schema::new(vec![
            Field::new("y", DataType::Float32, true),
            Field::new("x", DataType::Int64, false),
        ]);
        let c = Schema::new(vec![Field::new("y", DataType::Float64, true)]);
        let u = unify(&[("a", &a), ("b", &b), ("c", &c)]).unwrap();
        let got: Vec<_> = u
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable()))
            .collect();
        assert_eq!(
            got,
            [
                ("x".to_string(), DataType::Int64, true),
                ("s".to_string(), DataType::Utf8, true),
                ("y".to_string(), DataType::Float64, true),
            ]
        );
        let d = Schema::new(vec![Field::new("s", DataType::Int32, true)]);
        let e = unify(&[("a", &a), ("d", &d)]).unwrap_err().to_string();
        assert!(e.contains("`s` is Utf8 in a and Int32 in d"), "{e}");

        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("x", DataType::Int32, false)])),
            vec![Arc::new(Int32Array::from(vec![1, 2]))],
        )
        .unwrap();
        let x = conform(&batch, u.field(0)).unwrap();
        assert_eq!(x.data_type(), &DataType::Int64);
        let s = conform(&batch, u.field(1)).unwrap();
        assert_eq!(s.null_count(), 2);
        assert!(s.as_any().downcast_ref::<StringArray>().is_some());
    }
}
