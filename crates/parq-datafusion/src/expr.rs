//! DataFusion filter expressions as parq [`Predicate`]s.
//!
//! A filter is pushed into parq only when parq answers it exactly as DataFusion would, so
//! every pushed filter is `Exact` (DataFusion does not filter its rows again) and parq prunes
//! files, row groups and pages by it and filters rows inside the read. What parq takes:
//! comparisons (`=`, `!=`, `<`, `<=`, `>`, `>=`) of a column with a literal (either side),
//! `BETWEEN`, `IN (literals)`, `IS [NOT] NULL`, `AND`, `OR`, `NOT`. A literal must have the
//! column's kind and fit its type: integers in the column's range, decimals of at most the
//! column's scale and precision, dates, strings, binaries, booleans. Everything else stays
//! with DataFusion (`Unsupported`): casts of columns, functions, `LIKE`, and floating-point
//! columns, whose NaN DataFusion orders above every number while parq compares it as IEEE
//! 754 does.

use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::{Between, BinaryExpr, InList};
use datafusion::logical_expr::{Expr, Operator};
use parq::read::{CmpOp, Literal};
use parq::Predicate;

/// `expr` as a parq predicate over the columns of `schema`; `None` when parq cannot answer
/// it exactly.
pub fn to_predicate(expr: &Expr, schema: &Schema) -> Option<Predicate> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::And => Some(to_predicate(left, schema)?.and(to_predicate(right, schema)?)),
            Operator::Or => Some(to_predicate(left, schema)?.or(to_predicate(right, schema)?)),
            _ => compare(left, *op, right, schema),
        },
        Expr::Not(inner) => Some(to_predicate(inner, schema)?.not()),
        Expr::IsNull(inner) => Some(Predicate::IsNull {
            column: column(inner, schema)?.0,
            negated: false,
        }),
        Expr::IsNotNull(inner) => Some(Predicate::IsNull {
            column: column(inner, schema)?.0,
            negated: true,
        }),
        Expr::Between(Between {
            expr,
            negated,
            low,
            high,
        }) => {
            let (name, ty) = column(expr, schema)?;
            let low = literal(low, ty)?;
            let high = literal(high, ty)?;
            let range = Predicate::Compare {
                column: name.clone(),
                op: CmpOp::GtEq,
                value: low,
            }
            .and(Predicate::Compare {
                column: name,
                op: CmpOp::LtEq,
                value: high,
            });
            Some(if *negated { range.not() } else { range })
        }
        Expr::InList(InList {
            expr,
            list,
            negated,
        }) => {
            let (name, ty) = column(expr, schema)?;
            let values = list
                .iter()
                .map(|e| literal(e, ty))
                .collect::<Option<Vec<_>>>()?;
            Some(Predicate::In {
                column: name,
                values,
                negated: *negated,
            })
        }
        _ => None,
    }
}

/// `left op right` with a column on one side and a literal on the other.
fn compare(left: &Expr, op: Operator, right: &Expr, schema: &Schema) -> Option<Predicate> {
    let op = cmp_op(op)?;
    let (name, ty, lit, op) = match (column(left, schema), column(right, schema)) {
        (Some((name, ty)), None) => (name, ty, right, op),
        (None, Some((name, ty))) => (name, ty, left, flip(op)),
        _ => return None,
    };
    Some(Predicate::Compare {
        column: name,
        op,
        value: literal(lit, ty)?,
    })
}

fn cmp_op(op: Operator) -> Option<CmpOp> {
    Some(match op {
        Operator::Eq => CmpOp::Eq,
        Operator::NotEq => CmpOp::NotEq,
        Operator::Lt => CmpOp::Lt,
        Operator::LtEq => CmpOp::LtEq,
        Operator::Gt => CmpOp::Gt,
        Operator::GtEq => CmpOp::GtEq,
        _ => return None,
    })
}

/// `a op b` as `b op' a`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::LtEq => CmpOp::GtEq,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::GtEq => CmpOp::LtEq,
        other => other,
    }
}

/// A column of `schema` whose type parq filters exactly as DataFusion does: its name and
/// type.
fn column<'a>(expr: &Expr, schema: &'a Schema) -> Option<(String, &'a DataType)> {
    let Expr::Column(c) = expr else {
        return None;
    };
    let field = schema.field_with_name(&c.name).ok()?;
    let ty = field.data_type();
    let supported = ty.is_integer()
        || matches!(
            ty,
            DataType::Boolean
                | DataType::Date32
                | DataType::Decimal128(..)
                | DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
        );
    supported.then(|| (c.name.clone(), ty))
}

/// A literal compared with a column of type `ty`, when it has the column's kind and fits
/// its type (parq refuses, as an error of the read, a literal that does not).
fn literal(expr: &Expr, ty: &DataType) -> Option<Literal> {
    let Expr::Literal(value, _) = expr else {
        return None;
    };
    if value.is_null() {
        return Some(Literal::Null);
    }
    match ty {
        t if t.is_integer() => integer(value, t),
        DataType::Boolean => match value {
            ScalarValue::Boolean(Some(b)) => Some(Literal::Bool(*b)),
            _ => None,
        },
        DataType::Date32 => match value {
            ScalarValue::Date32(Some(days)) => date(*days).map(Literal::Str),
            _ => None,
        },
        DataType::Decimal128(precision, scale) => decimal(value, *precision, *scale),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => match value {
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)) => Some(Literal::Str(s.clone())),
            _ => None,
        },
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => match value {
            ScalarValue::Binary(Some(b))
            | ScalarValue::LargeBinary(Some(b))
            | ScalarValue::BinaryView(Some(b)) => Some(Literal::Bytes(b.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// An integer literal within the range of integer type `ty`.
fn integer(value: &ScalarValue, ty: &DataType) -> Option<Literal> {
    let v: i128 = match value {
        ScalarValue::Int8(Some(v)) => i128::from(*v),
        ScalarValue::Int16(Some(v)) => i128::from(*v),
        ScalarValue::Int32(Some(v)) => i128::from(*v),
        ScalarValue::Int64(Some(v)) => i128::from(*v),
        ScalarValue::UInt8(Some(v)) => i128::from(*v),
        ScalarValue::UInt16(Some(v)) => i128::from(*v),
        ScalarValue::UInt32(Some(v)) => i128::from(*v),
        ScalarValue::UInt64(Some(v)) => i128::from(*v),
        _ => return None,
    };
    let (lo, hi): (i128, i128) = match ty {
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    };
    if v < lo || v > hi {
        return None;
    }
    match i64::try_from(v) {
        Ok(v) => Some(Literal::Int(v)),
        Err(_) => u64::try_from(v).ok().map(Literal::UInt),
    }
}

/// Days since the epoch as `YYYY-MM-DD` (years 0-9999; others as parq cannot read them).
fn date(days: i32) -> Option<String> {
    let text = datafusion::arrow::temporal_conversions::date32_to_datetime(days)?
        .date()
        .to_string();
    let plain = text.len() == 10 && text.as_bytes().get(4) == Some(&b'-');
    plain.then_some(text)
}

/// A decimal (or integer) literal as text, when it fits `Decimal128(precision, scale)`
/// exactly.
fn decimal(value: &ScalarValue, precision: u8, scale: i8) -> Option<Literal> {
    let (unscaled, lit_scale): (i128, i8) = match value {
        ScalarValue::Decimal128(Some(v), _, s) => (*v, *s),
        ScalarValue::Int8(_)
        | ScalarValue::Int16(_)
        | ScalarValue::Int32(_)
        | ScalarValue::Int64(_)
        | ScalarValue::UInt8(_)
        | ScalarValue::UInt16(_)
        | ScalarValue::UInt32(_)
        | ScalarValue::UInt64(_) => match integer(value, &DataType::Int64)? {
            Literal::Int(v) => (i128::from(v), 0),
            _ => return None,
        },
        _ => return None,
    };
    if lit_scale < 0 || lit_scale > scale || scale < 0 {
        return None;
    }
    // The value in the column's scale must have at most `precision` digits.
    let widened =
        unscaled.checked_mul(10i128.checked_pow(u32::try_from(scale - lit_scale).ok()?)?)?;
    let limit = 10i128.checked_pow(u32::from(precision))?;
    if widened.unsigned_abs() >= limit.unsigned_abs() {
        return None;
    }
    Some(Literal::Str(decimal_text(unscaled, lit_scale)))
}

/// `unscaled` x 10^-scale as decimal text (`-12.05`).
fn decimal_text(unscaled: i128, scale: i8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::try_from(scale).unwrap_or(0);
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

#[cfg(test)]
mod tests {
    use super::*;

    use datafusion::arrow::datatypes::Field;
    use datafusion::prelude::{col, lit};

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("i", DataType::Int32, true),
            Field::new("d", DataType::Decimal128(15, 2), true),
            Field::new("s", DataType::Utf8View, true),
            Field::new("day", DataType::Date32, true),
            Field::new("f", DataType::Float64, true),
        ])
    }

    fn pushed(e: Expr) -> Option<String> {
        to_predicate(&e, &schema()).map(|p| p.to_string())
    }

    #[test]
    fn comparisons_and_their_literals() {
        assert_eq!(pushed(col("i").gt(lit(5i64))).as_deref(), Some("\"i\" > 5"));
        assert_eq!(pushed(lit(5i64).gt(col("i"))).as_deref(), Some("\"i\" < 5"));
        // Out of the column's range: left to DataFusion.
        assert_eq!(pushed(col("i").gt(lit(5_000_000_000i64))), None);
        assert_eq!(
            pushed(col("d").lt_eq(lit(ScalarValue::Decimal128(Some(-1205), 15, 2)))).as_deref(),
            Some("\"d\" <= '-12.05'")
        );
        assert_eq!(
            pushed(col("d").eq(lit(ScalarValue::Decimal128(Some(5), 15, 3)))),
            None
        );
        assert_eq!(
            pushed(col("day").lt(lit(ScalarValue::Date32(Some(10_561))))).as_deref(),
            Some("\"day\" < '1998-12-01'")
        );
        assert_eq!(pushed(col("f").gt(lit(1.0f64))), None);
        assert_eq!(pushed(col("s").like(lit("a%"))), None);
        assert_eq!(
            pushed(col("s").in_list(vec![lit("a"), lit("b")], false)).as_deref(),
            Some("\"s\" IN ('a', 'b')")
        );
        assert_eq!(
            pushed(col("i").between(lit(1i64), lit(3i64))).as_deref(),
            Some("(\"i\" >= 1 AND \"i\" <= 3)")
        );
    }

    #[test]
    fn decimal_text_places_the_point() {
        assert_eq!(decimal_text(5, 2), "0.05");
        assert_eq!(decimal_text(-1205, 2), "-12.05");
        assert_eq!(decimal_text(7, 0), "7");
    }
}
