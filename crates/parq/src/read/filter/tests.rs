//! Unit tests of `filter`'s comparisons of statistics.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{ArrayRef, PrimitiveArray};

use super::{holds_kernel, holds_primitive};
use crate::read::filter::predicate::CmpOp;

const OPS: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::NotEq,
    CmpOp::Lt,
    CmpOp::LtEq,
    CmpOp::Gt,
    CmpOp::GtEq,
];

/// Every pair of `values` (as one-element arrays made by `one`) compares alike both ways.
fn alike(values: &[ArrayRef]) {
    for a in values {
        for b in values {
            for op in OPS {
                let native = holds_primitive(a.as_ref(), op, b.as_ref());
                assert_eq!(native, Some(holds_kernel(a, op, b)), "{a:?} {op:?} {b:?}");
            }
        }
    }
}

fn arrays<T: ArrowPrimitiveType>(values: &[T::Native]) -> Vec<ArrayRef> {
    values
        .iter()
        .map(|&v| Arc::new(PrimitiveArray::<T>::from_iter_values([v])) as ArrayRef)
        .collect()
}

#[test]
fn primitive_statistics_compare_as_the_kernels_do() {
    alike(&arrays::<Int32Type>(&[i32::MIN, -1, 0, 7, i32::MAX]));
    alike(&arrays::<Int64Type>(&[i64::MIN, -1, 0, 7, i64::MAX]));
    alike(&arrays::<UInt32Type>(&[0, 7, u32::MAX]));
    alike(&arrays::<UInt64Type>(&[0, 7, u64::MAX]));
    alike(&arrays::<Float32Type>(&[
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        1.5,
        f32::NAN,
    ]));
    alike(&arrays::<Float64Type>(&[
        f64::MIN,
        -0.0,
        0.0,
        2.5,
        f64::INFINITY,
        f64::NAN,
    ]));
    alike(&arrays::<TimestampMicrosecondType>(&[
        -5,
        0,
        1_600_000_000_000_000,
    ]));
    let decimals: Vec<ArrayRef> = [-1_000i128, 0, 12_345]
        .iter()
        .map(|&v| {
            let a = PrimitiveArray::<Decimal128Type>::from_iter_values([v])
                .with_precision_and_scale(20, 2)
                .expect("decimal");
            Arc::new(a) as ArrayRef
        })
        .collect();
    alike(&decimals);
}

#[test]
fn other_arrays_are_left_to_the_kernels() {
    let s: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["a"]));
    let i: ArrayRef = Arc::new(PrimitiveArray::<Int32Type>::from_iter_values([1]));
    let l: ArrayRef = Arc::new(PrimitiveArray::<Int64Type>::from_iter_values([1]));
    assert_eq!(holds_primitive(s.as_ref(), CmpOp::Eq, s.as_ref()), None);
    assert_eq!(holds_primitive(i.as_ref(), CmpOp::Eq, l.as_ref()), None);
}
