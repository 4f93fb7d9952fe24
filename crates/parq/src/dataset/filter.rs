//! A dataset filter as it applies to one file: comparisons on columns whose value the file
//! fixes (its partition values, and nulls for the columns it lacks) are decided once, and
//! what is left is the filter of the file's own columns.
//!
//! Negations are pushed down to the comparisons first (De Morgan), so that AND and OR only
//! combine comparisons or their negations; there a comparison that is null keeps no row, as
//! one that is false, so a decided comparison is simply true or false.

use arrow_array::RecordBatch;

use crate::read::filter::bind::BoundFilter;
use crate::read::Predicate;
use crate::Result;

/// What a filter leaves of one file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Residual {
    /// Every row is kept.
    All,
    /// No row is kept: the file is skipped.
    Nothing,
    /// The rows this filter of the file's columns keeps.
    Rows(Predicate),
}

fn and(a: Residual, b: Residual) -> Residual {
    match (a, b) {
        (Residual::Nothing, _) | (_, Residual::Nothing) => Residual::Nothing,
        (Residual::All, x) | (x, Residual::All) => x,
        (Residual::Rows(a), Residual::Rows(b)) => Residual::Rows(a.and(b)),
    }
}

fn or(a: Residual, b: Residual) -> Residual {
    match (a, b) {
        (Residual::All, _) | (_, Residual::All) => Residual::All,
        (Residual::Nothing, x) | (x, Residual::Nothing) => x,
        (Residual::Rows(a), Residual::Rows(b)) => Residual::Rows(a.or(b)),
    }
}

/// What `predicate` leaves of a file whose fixed columns are `known` (a batch of one row).
pub(crate) fn residual(predicate: &Predicate, known: &RecordBatch) -> Result<Residual> {
    walk(predicate, false, known)
}

fn walk(p: &Predicate, negate: bool, known: &RecordBatch) -> Result<Residual> {
    Ok(match p {
        Predicate::Not(a) => walk(a, !negate, known)?,
        Predicate::And(a, b) | Predicate::Or(a, b) => {
            let x = walk(a, negate, known)?;
            let y = walk(b, negate, known)?;
            // NOT (a AND b) = NOT a OR NOT b, and the other way round.
            if matches!(p, Predicate::And(..)) != negate {
                and(x, y)
            } else {
                or(x, y)
            }
        }
        leaf => {
            let leaf = if negate {
                Predicate::Not(Box::new(leaf.clone()))
            } else {
                leaf.clone()
            };
            let fixed = leaf
                .columns()
                .iter()
                .all(|c| known.column_by_name(c).is_some());
            if !fixed {
                return Ok(Residual::Rows(leaf));
            }
            let leaves = vec![Some(0); known.num_columns()];
            let bound = BoundFilter::bind(&leaf, &known.schema(), &leaves)?;
            let mask = bound.evaluate(known.columns())?;
            if mask.len() == 1 && mask.value(0) {
                Residual::All
            } else {
                Residual::Nothing
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::filter::predicate::col;
    use arrow_array::{new_null_array, ArrayRef, Int32Array};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;

    #[test]
    fn fixed_columns_are_decided_once() {
        let known = RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("year", DataType::Int32, true),
                Field::new("gone", DataType::Int64, true),
            ])),
            vec![
                Arc::new(Int32Array::from(vec![2026])) as ArrayRef,
                new_null_array(&DataType::Int64, 1),
            ],
        )
        .unwrap();
        let r = |p: Predicate| residual(&p, &known).unwrap();
        assert_eq!(r(col("year").eq(2026)), Residual::All);
        assert_eq!(r(col("year").eq(2025)), Residual::Nothing);
        assert_eq!(
            r(col("year").eq(2026).and(col("x").gt(1))),
            Residual::Rows(col("x").gt(1))
        );
        assert_eq!(
            r(col("year").eq(2025).or(col("x").gt(1))),
            Residual::Rows(col("x").gt(1))
        );
        assert_eq!(
            r(col("year").eq(2025).and(col("x").gt(1))),
            Residual::Nothing
        );
        // A comparison with a missing column is null: neither it nor its negation keeps a row.
        assert_eq!(r(col("gone").eq(1)), Residual::Nothing);
        assert_eq!(r(col("gone").eq(1).not()), Residual::Nothing);
        assert_eq!(r(col("gone").is_null()), Residual::All);
        // NOT (year = 2026 AND x > 1) = year != 2026 OR NOT x > 1.
        assert_eq!(
            r(col("year").eq(2026).and(col("x").gt(1)).not()),
            Residual::Rows(col("x").gt(1).not())
        );
    }
}
