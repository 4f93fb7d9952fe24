//! Statistics (of a column chunk, or of a data page in its header) against the values
//! decoded. `null_count` must equal the levels below the maximum definition level; for nested
//! columns, where writers differ (some count null or empty parents, some only the leaf's own
//! nulls), anything between the two. The min and max readers may use (the trust rules of
//! [`parq::schema::stats::trusted_bounds`]; statistics they ignore are not checked) must
//! bound every value in the column's sort order (NaN left out): a value outside is an
//! error. Where they must be the values themselves — `is_min_value_exact` /
//! `is_max_value_exact` true, or absent for a type writers never truncate — a bound that is
//! not reached is a warning. Under `IEEE_754_TOTAL_ORDER` the order is IEEE 754 totalOrder
//! (-0.0 below +0.0). `nan_count` must equal the NaNs decoded. `distinct_count` is not
//! checked: no writer marks it exact.

use std::cmp::Ordering;

use parq::format::metadata::Statistics;
use parq::schema::stats::{trusted_bounds, StatsContext};

use super::values::{Column, Summary};
use super::{Findings, Site};
use crate::inspect::value;

/// Checks `stats` (byte ranges into `buf`) against the summary `s` of the values they
/// describe; `check` names the statistics in findings.
#[allow(clippy::too_many_arguments)]
pub fn check(
    stats: &Statistics,
    buf: &[u8],
    t: &StatsContext<'_>,
    col: &Column<'_>,
    s: &Summary,
    site: &Site,
    check: &'static str,
    findings: &mut Findings,
) {
    if let Some(n) = stats.null_count {
        if !s.nulls_match(n, col) {
            findings.error(
                site,
                check,
                format!("null_count is {n}, the values hold {}", s.nulls_text()),
            );
        }
    }
    if let Some(n) = stats.nan_count {
        if u64::try_from(n) != Ok(s.nans) {
            findings.error(
                site,
                check,
                format!("nan_count is {n}, the values hold {} NaNs", s.nans),
            );
        }
    }
    let Some((min, max)) = trusted_bounds(stats, buf, t) else {
        return;
    };
    let text = |v: &[u8]| value::text(v, t);
    let truncatable = col.order.truncates();
    let exact = |flag: Option<bool>| flag.unwrap_or(!truncatable);
    if let Some(lo) = s.min.as_deref() {
        match col.order.compare(lo, min) {
            Some(Ordering::Less) => findings.error(
                site,
                check,
                format!("the value {} is below the minimum {}", text(lo), text(min)),
            ),
            Some(Ordering::Greater) if exact(stats.is_min_value_exact) => findings.warning(
                site,
                check,
                format!(
                    "the minimum {} is exact but no value is that small (the smallest is {})",
                    text(min),
                    text(lo)
                ),
            ),
            _ => {}
        }
    }
    if let Some(hi) = s.max.as_deref() {
        match col.order.compare(hi, max) {
            Some(Ordering::Greater) => findings.error(
                site,
                check,
                format!("the value {} is above the maximum {}", text(hi), text(max)),
            ),
            Some(Ordering::Less) if exact(stats.is_max_value_exact) => findings.warning(
                site,
                check,
                format!(
                    "the maximum {} is exact but no value is that large (the largest is {})",
                    text(max),
                    text(hi)
                ),
            ),
            _ => {}
        }
    }
}
