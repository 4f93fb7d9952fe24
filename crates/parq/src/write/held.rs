//! Rows of the open row group held as Arrow arrays, not yet encoded.
//!
//! The file writer keeps the last rows it was given this way (see
//! [`ParquetWriter::write`](super::file::ParquetWriter::write)): when the row group closes
//! with them, each column is encoded and written in turn straight to the output, its pages
//! never buffered; when more rows come first, the held rows are encoded into the columns'
//! buffers as any others. The row group byte budget counts held rows by a bound on their
//! encoded size, computed here. Rows whose encoding could fail on a value are not held: the
//! error comes from the call that was given the value.

use arrow_array::{Array, RecordBatch};
use arrow_data::ArrayData;
use arrow_schema::DataType;

use super::values::is_checked_time;

/// Rows held unencoded, and the bound on their encoded size ([`encoded_bound`]).
#[derive(Debug)]
pub(super) struct HeldRows {
    pub batch: RecordBatch,
    pub bytes: usize,
}

/// Bytes allowed per leaf column on top of the Arrow bytes: page headers and statistics,
/// levels of columns of nulls.
const PER_LEAF_BYTES: usize = 1 << 10;

/// A generous bound on the bytes the rows of `batch` take encoded, before compression: the
/// bytes of the Arrow arrays' slices plus half (values are never wider in PLAIN than in
/// Arrow; levels take at most a few bits per entry) and [`PER_LEAF_BYTES`] per leaf. `None`
/// when a column's values may take many times their Arrow bytes (dictionary, run-end
/// encoded and view arrays repeat values by reference) or their size is not known.
pub(super) fn encoded_bound(batch: &RecordBatch) -> Option<usize> {
    let mut total = 0usize;
    for column in batch.columns() {
        let leaves = leaves_if_bounded(column.data_type())?;
        let bytes = column.to_data().get_slice_memory_size().ok()?;
        total = total
            .checked_add(bytes.checked_add(bytes / 2)?)?
            .checked_add(leaves.checked_mul(PER_LEAF_BYTES)?)?;
    }
    Some(total)
}

/// The number of leaf columns of `data_type`, or `None` when it holds a type whose values
/// are referenced rather than stored in order (see [`encoded_bound`]).
fn leaves_if_bounded(data_type: &DataType) -> Option<usize> {
    match data_type {
        DataType::Dictionary(..)
        | DataType::RunEndEncoded(..)
        | DataType::Utf8View
        | DataType::BinaryView
        | DataType::ListView(_)
        | DataType::LargeListView(_) => None,
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => leaves_if_bounded(f.data_type()),
        DataType::Struct(fields) => fields
            .iter()
            .try_fold(0usize, |n, f| Some(n + leaves_if_bounded(f.data_type())?)),
        DataType::Union(..) => None,
        _ => Some(1),
    }
}

/// True if encoding the rows of `batch` cannot fail on a value of a valid array: no type in
/// a column (dictionary values included) has values that may not fit their Parquet type,
/// and no field below the top level that is not nullable has an array with nulls (the
/// shredding decides whether they are under a valid parent, an error when they are).
pub(super) fn may_hold(batch: &RecordBatch) -> bool {
    batch
        .columns()
        .iter()
        .all(|c| no_checked_time(c.data_type()) && no_required_nulls(&c.to_data()))
}

fn no_checked_time(data_type: &DataType) -> bool {
    match data_type {
        t if is_checked_time(t) => false,
        DataType::Dictionary(_, v) => no_checked_time(v),
        DataType::RunEndEncoded(_, v) => no_checked_time(v.data_type()),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => no_checked_time(f.data_type()),
        DataType::Struct(fields) => fields.iter().all(|f| no_checked_time(f.data_type())),
        _ => true,
    }
}

fn no_required_nulls(data: &ArrayData) -> bool {
    let fields = match data.data_type() {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => std::slice::from_ref(f),
        DataType::Struct(fields) => &fields[..],
        _ => return true,
    };
    fields
        .iter()
        .zip(data.child_data())
        .all(|(f, c)| (f.is_nullable() || c.null_count() == 0) && no_required_nulls(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::types::Int32Type;
    use arrow_array::{ArrayRef, DictionaryArray, Int64Array, StringArray, StructArray};
    use arrow_schema::Field;
    use std::sync::Arc;

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        RecordBatch::try_from_iter(columns).unwrap()
    }

    #[test]
    fn bound_counts_the_slice() {
        let ints: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1000));
        let whole = encoded_bound(&batch(vec![("a", ints.clone())])).unwrap();
        assert_eq!(whole, 8000 + 4000 + PER_LEAF_BYTES);
        let half = encoded_bound(&batch(vec![("a", ints.slice(0, 500))])).unwrap();
        assert_eq!(half, 4000 + 2000 + PER_LEAF_BYTES);
        // PLAIN strings: a 4-byte length and the bytes, as Arrow's offsets and bytes.
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["abc"; 100]));
        let b = encoded_bound(&batch(vec![("s", strings)])).unwrap();
        assert!(b >= 100 * (4 + 3));
    }

    #[test]
    fn rows_that_may_fail_are_not_held() {
        use arrow_array::{Date64Array, Int32Array};
        use arrow_buffer::NullBuffer;
        let dates: ArrayRef = Arc::new(Date64Array::from(vec![0]));
        assert!(!may_hold(&batch(vec![("d", dates)])));
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
        assert!(may_hold(&batch(vec![("i", ints.clone())])));
        // A struct's child that is not nullable may have nulls under the struct's nulls.
        let structs = |nullable| -> ArrayRef {
            let f = Field::new("a", DataType::Int32, nullable);
            let valid = NullBuffer::from(vec![true, false]);
            Arc::new(StructArray::new(
                vec![f].into(),
                vec![ints.clone()],
                Some(valid),
            ))
        };
        assert!(may_hold(&batch(vec![("s", structs(true))])));
        assert!(!may_hold(&batch(vec![("s", structs(false))])));
    }

    #[test]
    fn referenced_values_have_no_bound() {
        let dict: DictionaryArray<Int32Type> = vec!["x", "y", "x"].into_iter().collect();
        assert_eq!(
            encoded_bound(&batch(vec![("d", Arc::new(dict) as ArrayRef)])),
            None
        );
        let inner: ArrayRef = Arc::new(arrow_array::StringViewArray::from(vec!["a", "b"]));
        let s = StructArray::from(vec![(
            Arc::new(Field::new("v", DataType::Utf8View, false)),
            inner,
        )]);
        assert_eq!(
            encoded_bound(&batch(vec![("s", Arc::new(s) as ArrayRef)])),
            None
        );
    }
}
