//! Filters on an object field of a Variant column (`v.a`): the rows, exactly, from each
//! row's Variant value (reassembled from its shredded columns when it is read shredded), and
//! the literal as the field's `typed_value` type for pruning by that column's statistics.
//!
//! A Variant field compares with a literal as SQL compares values of one kind, and is null
//! (the comparison is not true, negated or not) otherwise:
//! - numbers (Variant int8..int64, float, double, decimal4/8/16) with number literals, by
//!   value, exactly (`1 = 1.0`, a decimal `1.50 > 1.4`);
//! - strings with string literals (by their UTF-8 bytes), booleans with `TRUE` / `FALSE`,
//!   binary with byte literals (`X'..'`);
//! - every other pairing (a string with a number, dates, times, timestamps, UUIDs, objects,
//!   arrays, Variant null) is null, as is a missing field, a row whose value is not an
//!   object, and a null row. `v.a IS NULL` holds on those of them without a value: a
//!   missing field, Variant null, a non-object and a null row.
//!
//! Pruning (`filter/bind.rs`) uses the field's `typed_value` statistics only where no row
//! of the row group (or page) holds the field in its residual `value` column (that leaf all
//! null), and the literal converted to the typed column's type only where the conversion is
//! exact ([`typed_literal`]); a literal of another kind than the typed column's rules every
//! typed value out.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, StructArray};
use arrow_buffer::BooleanBuffer;
use arrow_schema::DataType;

use crate::read::filter::predicate::{CmpOp, Literal};
use crate::variant::shred::binary_at;
use crate::variant::{unshred, Metadata, Variant};
use crate::Result;

/// The literal of a comparison as the field's `typed_value` column's type.
#[derive(Debug, Clone)]
pub(crate) enum TypedLiteral {
    /// Exactly this one-element array of the column's type.
    Value(ArrayRef),
    /// No typed value compares with the literal (a different kind): the comparison is null
    /// on every typed row.
    Never,
    /// The literal has no exact equivalent in the column's type: the statistics tell
    /// nothing.
    Unknown,
}

/// `value` as the typed column type `t`: see [`TypedLiteral`]. `convert` converts a literal
/// to a one-element array of a type, or fails.
pub(crate) fn typed_literal(
    value: &Literal,
    t: &DataType,
    convert: &dyn Fn(&Literal, &DataType) -> Result<Option<ArrayRef>>,
) -> TypedLiteral {
    let number = matches!(
        value,
        Literal::Int(_) | Literal::UInt(_) | Literal::Float(_)
    );
    let decimal = matches!(
        t,
        DataType::Decimal32(..)
            | DataType::Decimal64(..)
            | DataType::Decimal128(..)
            | DataType::Decimal256(..)
    );
    let kind_matches = match t {
        t if t.is_integer() || t.is_floating() || decimal => number,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            matches!(value, Literal::Str(_))
        }
        DataType::Boolean => matches!(value, Literal::Bool(_)),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            matches!(value, Literal::Bytes(_))
        }
        // Dates, times, timestamps, UUIDs compare with no literal.
        _ => false,
    };
    if !kind_matches {
        return TypedLiteral::Never;
    }
    // Conversions that could round are not used.
    let exact = match (value, t) {
        (Literal::Float(_), t) if decimal || t.is_integer() => {
            // Integers take whole floats only (else the conversion fails); decimals none.
            !decimal
        }
        (Literal::Int(v), DataType::Float32) => v.unsigned_abs() <= 1 << 24,
        (Literal::Int(v), DataType::Float64) => v.unsigned_abs() <= 1 << 53,
        (Literal::UInt(_), t) if t.is_floating() => false,
        (Literal::Float(f), DataType::Float32) => f64::from(*f as f32) == *f || f.is_nan(),
        (_, DataType::Float16) => false,
        _ => true,
    };
    if !exact {
        return TypedLiteral::Unknown;
    }
    match convert(value, t) {
        Ok(Some(a)) => TypedLiteral::Value(a),
        _ => TypedLiteral::Unknown,
    }
}

/// Calls `f` with the value of object field `fields` of each row of Variant array `array`
/// (`struct<metadata, value>`, or shredded), `None` where it has none (a null row, a missing
/// field, a non-object on the way, Variant null).
fn each_field(
    array: &dyn Array,
    fields: &[String],
    f: &mut dyn FnMut(Option<Variant<'_>>),
) -> Result<()> {
    let s = array
        .as_struct_opt()
        .ok_or_else(|| invalid(format!("a Variant column of type {}", array.data_type())))?;
    let whole;
    let s: &StructArray = match s.column_by_name("typed_value") {
        Some(_) => {
            whole = unshred(s)?;
            &whole
        }
        None => s,
    };
    let metadata = s
        .column_by_name("metadata")
        .ok_or_else(|| invalid("a Variant column without metadata"))?;
    let value = s
        .column_by_name("value")
        .ok_or_else(|| invalid("a Variant column without value"))?;
    for row in 0..s.len() {
        if s.is_null(row) {
            f(None);
            continue;
        }
        let (Some(m), Some(v)) = (binary_at(metadata, row)?, binary_at(value, row)?) else {
            f(None);
            continue;
        };
        let meta = Metadata::new(m)?;
        let mut cur = Some(Variant::new(v)?);
        for name in fields {
            cur = match cur {
                Some(Variant::Object(o)) => match meta.find(name)? {
                    Some(id) => {
                        let mut hit = None;
                        for i in 0..o.len() {
                            let (fid, bytes) = o.field_bytes(i)?;
                            if fid == id {
                                hit = Some(Variant::new(bytes)?);
                                break;
                            }
                        }
                        hit
                    }
                    None => None,
                },
                _ => None,
            };
        }
        f(cur.filter(|v| !matches!(v, Variant::Null)));
    }
    Ok(())
}

fn invalid(what: impl std::fmt::Display) -> crate::Error {
    crate::variant::invalid(format!("filter on {what}"))
}

/// `field op value` on each row of Variant array `array` (null where they do not compare).
pub(crate) fn compare(
    array: &dyn Array,
    fields: &[String],
    op: CmpOp,
    value: &Literal,
) -> Result<BooleanArray> {
    let mut out: Vec<Option<bool>> = Vec::with_capacity(array.len());
    each_field(array, fields, &mut |v| {
        out.push(v.and_then(|v| holds(&v, op, value)));
    })?;
    Ok(BooleanArray::from(out))
}

/// Whether each row of Variant array `array` has a value in object field `fields`.
pub(crate) fn has_value(array: &dyn Array, fields: &[String]) -> Result<BooleanBuffer> {
    let mut out: Vec<bool> = Vec::with_capacity(array.len());
    each_field(array, fields, &mut |v| out.push(v.is_some()))?;
    Ok(BooleanBuffer::from(out))
}

/// A number as compared: an integer, a decimal (unscaled, scale) or a float.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Dec(i128, u8),
    Float(f64),
}

fn variant_number(v: &Variant<'_>) -> Option<Num> {
    Some(match *v {
        Variant::Int8(x) => Num::Int(x.into()),
        Variant::Int16(x) => Num::Int(x.into()),
        Variant::Int32(x) => Num::Int(x.into()),
        Variant::Int64(x) => Num::Int(x.into()),
        Variant::Decimal4(x, s) => Num::Dec(x.into(), s),
        Variant::Decimal8(x, s) => Num::Dec(x.into(), s),
        Variant::Decimal16(x, s) => Num::Dec(x, s),
        Variant::Float(x) => Num::Float(x.into()),
        Variant::Double(x) => Num::Float(x),
        _ => return None,
    })
}

/// `a` against `b`; `None` when a float is NaN.
fn cmp_num(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Float(_), _) => cmp_num(b, a).map(Ordering::reverse),
        (Num::Int(x), Num::Float(f)) => cmp_int_float(x, f),
        (Num::Dec(x, s), Num::Float(f)) => (x as f64 / 10f64.powi(i32::from(s))).partial_cmp(&f),
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Int(x), Num::Dec(..)) => cmp_num(Num::Dec(x, 0), b),
        (Num::Dec(..), Num::Int(y)) => cmp_num(a, Num::Dec(y, 0)),
        (Num::Dec(x, s), Num::Dec(y, t)) => Some(cmp_decimal(x, s, y, t)),
    }
}

/// Integer `x` against float `f`, exactly.
fn cmp_int_float(x: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // 2^127: beyond every i128.
    const LIMIT: f64 = 1.7014118346046923e38;
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f < -LIMIT {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    Some(match x.cmp(&(t as i128)) {
        Ordering::Equal if f > t => Ordering::Less,
        Ordering::Equal if f < t => Ordering::Greater,
        o => o,
    })
}

/// Decimal `x` at scale `s` against `y` at scale `t`, exactly: the one of smaller scale is
/// scaled up; when that overflows it is beyond every decimal of 38 digits, so its sign
/// decides.
fn cmp_decimal(x: i128, s: u8, y: i128, t: u8) -> Ordering {
    let up = |v: i128, by: u8| -> Option<i128> {
        10i128
            .checked_pow(u32::from(by))
            .and_then(|p| v.checked_mul(p))
    };
    match s.cmp(&t) {
        Ordering::Equal => x.cmp(&y),
        Ordering::Less => match up(x, t - s) {
            Some(x) => x.cmp(&y),
            None => x.cmp(&0),
        },
        Ordering::Greater => match up(y, s - t) {
            Some(y) => x.cmp(&y),
            None => 0.cmp(&y),
        },
    }
}

/// `v op value`: `None` (null) where they do not compare.
fn holds(v: &Variant<'_>, op: CmpOp, value: &Literal) -> Option<bool> {
    let order = match (v, value) {
        (Variant::String(s), Literal::Str(l)) => Some(s.as_bytes().cmp(l.as_bytes())),
        (Variant::Bool(b), Literal::Bool(l)) => Some(b.cmp(l)),
        (Variant::Binary(b), Literal::Bytes(l)) => Some((*b).cmp(l.as_slice())),
        (v, l) => {
            let a = variant_number(v)?;
            let b = match *l {
                Literal::Int(i) => Num::Int(i.into()),
                Literal::UInt(u) => Num::Int(u.into()),
                Literal::Float(f) => Num::Float(f),
                _ => return None,
            };
            // NaN: only `!=` holds, as IEEE 754 compares.
            match cmp_num(a, b) {
                Some(o) => Some(o),
                None => return Some(op == CmpOp::NotEq),
            }
        }
    }?;
    Some(match op {
        CmpOp::Eq => order == Ordering::Equal,
        CmpOp::NotEq => order != Ordering::Equal,
        CmpOp::Lt => order == Ordering::Less,
        CmpOp::LtEq => order != Ordering::Greater,
        CmpOp::Gt => order == Ordering::Greater,
        CmpOp::GtEq => order != Ordering::Less,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_exactly_across_kinds() {
        let big = (1i64 << 53) + 1;
        assert_eq!(
            holds(
                &Variant::Int64(big),
                CmpOp::Gt,
                &Literal::Float((1i64 << 53) as f64)
            ),
            Some(true)
        );
        assert_eq!(
            holds(&Variant::Decimal8(150, 2), CmpOp::Gt, &Literal::Int(1)),
            Some(true)
        );
        assert_eq!(
            holds(&Variant::Int8(2), CmpOp::Lt, &Literal::Float(2.5)),
            Some(true)
        );
        assert_eq!(
            holds(&Variant::Double(f64::NAN), CmpOp::NotEq, &Literal::Int(1)),
            Some(true)
        );
        assert_eq!(
            holds(&Variant::String("7"), CmpOp::Gt, &Literal::Int(1)),
            None
        );
        assert_eq!(
            holds(
                &Variant::Decimal16(i128::MAX / 10, 0),
                CmpOp::Gt,
                &Literal::Int(5)
            ),
            Some(true)
        );
        assert_eq!(cmp_decimal(1, 0, i128::MAX, 38), Ordering::Less);
    }
}
