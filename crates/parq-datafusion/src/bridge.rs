//! Schemas and batches between parq's arrow (60) and DataFusion's (59), through the Arrow C
//! Data Interface: each side exports and imports the same C structs, so a batch crosses
//! without a copy (the imported arrays own the exported buffers through their release
//! callbacks).
//!
//! Both versions define `FFI_ArrowSchema` and `FFI_ArrowArray` as `#[repr(C)]` structs laid
//! out as the C Data Interface specifies (`ArrowSchema`, `ArrowArray`); they differ only as
//! Rust types. A value of one is moved into the other by a bitwise copy of the C struct,
//! after which only the receiving side owns (and releases) it.

use std::mem::{size_of, ManuallyDrop};
use std::sync::Arc;

use arrow_array::ffi as ffi60;
use arrow_array::{Array as _, RecordBatch as Batch60, StructArray as Struct60};
use arrow_array_59::ffi as ffi59;
use arrow_array_59::{
    Array as _, RecordBatch as Batch59, RecordBatchOptions as Options59, StructArray as Struct59,
};
use arrow_schema::{Schema as Schema60, SchemaRef as SchemaRef60};
use arrow_schema_59::{ArrowError as ArrowError59, Schema as Schema59, SchemaRef as SchemaRef59};

/// Moves a C Data Interface struct of one arrow version into the same struct of the other.
///
/// # Safety
///
/// `A` and `B` must be the two versions' `#[repr(C)]` definitions of the same C struct
/// (`ArrowSchema` or `ArrowArray`). The source is never dropped, so its release callback
/// runs once, from the returned value.
unsafe fn moved<A, B>(value: A) -> B {
    const { assert!(size_of::<A>() == size_of::<B>()) };
    let value = ManuallyDrop::new(value);
    // SAFETY: the caller guarantees `B` has `A`'s layout (sizes checked above); `value`
    // is not used or dropped after this read.
    unsafe { std::ptr::read(&*value as *const A as *const B) }
}

fn error_59(e: impl std::fmt::Display) -> ArrowError59 {
    ArrowError59::CDataInterface(e.to_string())
}

/// An arrow 60 schema as arrow 59's (fields, types, metadata).
pub fn schema_to_df(schema: &Schema60) -> Result<SchemaRef59, ArrowError59> {
    let c = ffi60::FFI_ArrowSchema::try_from(schema).map_err(error_59)?;
    // SAFETY: both are the C Data Interface's `ArrowSchema`.
    let c: ffi59::FFI_ArrowSchema = unsafe { moved(c) };
    Ok(Arc::new(Schema59::try_from(&c)?))
}

/// An arrow 59 schema as arrow 60's.
pub fn schema_from_df(schema: &Schema59) -> Result<SchemaRef60, arrow_schema::ArrowError> {
    let c = ffi59::FFI_ArrowSchema::try_from(schema)
        .map_err(|e| arrow_schema::ArrowError::CDataInterface(e.to_string()))?;
    // SAFETY: both are the C Data Interface's `ArrowSchema`.
    let c: ffi60::FFI_ArrowSchema = unsafe { moved(c) };
    Ok(Arc::new(Schema60::try_from(&c)?))
}

/// An arrow 60 batch as an arrow 59 batch of `schema` (the batch's schema as
/// [`schema_to_df`] gives it), sharing every buffer.
pub fn batch_to_df(batch: Batch60, schema: &SchemaRef59) -> Result<Batch59, ArrowError59> {
    let rows = batch.num_rows();
    if batch.num_columns() == 0 {
        let options = Options59::new().with_row_count(Some(rows));
        return Batch59::try_new_with_options(Arc::clone(schema), Vec::new(), &options);
    }
    let data = Struct60::from(batch).into_data();
    let (array, c_schema) = ffi60::to_ffi(&data).map_err(error_59)?;
    // SAFETY: both pairs are the C Data Interface's `ArrowArray` and `ArrowSchema`.
    let (array, c_schema): (ffi59::FFI_ArrowArray, ffi59::FFI_ArrowSchema) =
        unsafe { (moved(array), moved(c_schema)) };
    // SAFETY: `array` and `c_schema` were exported together by arrow 60's `to_ffi` from valid
    // array data, so they describe the same, valid array.
    let data = unsafe { ffi59::from_ffi(array, &c_schema)? };
    let columns = Struct59::from(data).into_parts().1;
    Batch59::try_new(Arc::clone(schema), columns)
}

/// An arrow 59 batch as an arrow 60 batch of `schema`, sharing every buffer.
pub fn batch_from_df(
    batch: Batch59,
    schema: &SchemaRef60,
) -> Result<Batch60, arrow_schema::ArrowError> {
    let error_60 = |e: ArrowError59| arrow_schema::ArrowError::CDataInterface(e.to_string());
    let rows = batch.num_rows();
    if batch.num_columns() == 0 {
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
        return Batch60::try_new_with_options(Arc::clone(schema), Vec::new(), &options);
    }
    let data = Struct59::from(batch).into_data();
    let (array, c_schema) = ffi59::to_ffi(&data).map_err(error_60)?;
    // SAFETY: both pairs are the C Data Interface's `ArrowArray` and `ArrowSchema`.
    let (array, c_schema): (ffi60::FFI_ArrowArray, ffi60::FFI_ArrowSchema) =
        unsafe { (moved(array), moved(c_schema)) };
    // SAFETY: exported together by arrow 59's `to_ffi` from valid array data.
    let data = unsafe { ffi60::from_ffi(array, &c_schema)? };
    let columns = Struct60::from(data).into_parts().1;
    Batch60::try_new(Arc::clone(schema), columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    use arrow_array::{ArrayRef, Int64Array, StringViewArray};

    /// The start addresses of every buffer of every column (children included), in order.
    fn addresses_60(batch: &Batch60) -> Vec<usize> {
        fn walk(d: &arrow_data::ArrayData, out: &mut Vec<usize>) {
            out.extend(d.buffers().iter().map(|b| b.as_ptr() as usize));
            if let Some(n) = d.nulls() {
                out.push(n.buffer().as_ptr() as usize);
            }
            d.child_data().iter().for_each(|c| walk(c, out));
        }
        let mut out = Vec::new();
        for c in batch.columns() {
            walk(&c.to_data(), &mut out);
        }
        out
    }

    fn addresses_59(batch: &Batch59) -> Vec<usize> {
        fn walk(d: &arrow_array_59::ArrayRef, out: &mut Vec<usize>) {
            let d = d.to_data();
            out.extend(d.buffers().iter().map(|b| b.as_ptr() as usize));
            if let Some(n) = d.nulls() {
                out.push(n.buffer().as_ptr() as usize);
            }
            for c in d.child_data() {
                walk(&arrow_array_59::make_array(c.clone()), out);
            }
        }
        let mut out = Vec::new();
        for c in batch.columns() {
            walk(c, &mut out);
        }
        out
    }

    fn sample() -> Batch60 {
        let ids: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(3)]));
        let names: ArrayRef = Arc::new(StringViewArray::from(vec![
            Some("short"),
            Some("a value longer than twelve bytes"),
            None,
        ]));
        Batch60::try_from_iter([("id", ids), ("name", names)]).unwrap()
    }

    #[test]
    fn batches_cross_without_a_copy() {
        let batch = sample();
        let before = addresses_60(&batch);
        let schema = schema_to_df(&batch.schema()).unwrap();
        let df = batch_to_df(batch.clone(), &schema).unwrap();
        assert_eq!(addresses_59(&df), before);
        assert_eq!(df.num_rows(), 3);
        assert_eq!(
            format!("{:?}", df.column(1)),
            format!("{:?}", batch.column(1))
        );

        let back = batch_from_df(df, &batch.schema()).unwrap();
        assert_eq!(addresses_60(&back), before);
        assert_eq!(back, batch);
    }

    #[test]
    fn batches_without_columns_keep_their_rows() {
        let empty = Batch60::try_new_with_options(
            Arc::new(Schema60::empty()),
            Vec::new(),
            &arrow_array::RecordBatchOptions::new().with_row_count(Some(7)),
        )
        .unwrap();
        let schema = schema_to_df(&empty.schema()).unwrap();
        assert_eq!(batch_to_df(empty, &schema).unwrap().num_rows(), 7);
    }
}
