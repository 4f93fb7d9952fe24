//! A column chunk's page index against its data pages. The offset index must list every
//! data page where its header is (`offset`), with its size as stored (header and body,
//! `compressed_page_size`) and the index of its first row (`first_row_index`, counted from
//! the repetition levels). The column index must have an entry per data page whose
//! `null_pages`, `null_counts`, `min_values` and `max_values` hold for that page's values
//! (min and max as bounds: writers truncate them and no flag says they are exact), and whose
//! `boundary_order` holds across the pages that are not all null.

use std::cmp::Ordering;

use parq::format::footer::{ColumnIndexView, OffsetIndexView};
use parq::format::metadata::BoundaryOrder;
use parq::schema::stats::StatsContext;
use parq::write::StatsOrder;

use super::values::{Column, Summary};
use super::{Findings, Site};
use crate::inspect::value;

/// A data page as found by walking the chunk.
pub struct PageRecord {
    /// Its ordinal in the chunk (the dictionary page counts).
    pub ordinal: u64,
    /// File offset of its header.
    pub offset: u64,
    /// Bytes of header and body.
    pub size: u64,
    /// What it holds, when it could be decoded.
    pub summary: Option<Summary>,
}

/// Checks the column index `ci` and offset index `oi` of a chunk whose data pages are
/// `pages`.
pub fn check(
    ci: Option<ColumnIndexView<'_>>,
    oi: Option<OffsetIndexView<'_>>,
    pages: &[PageRecord],
    t: &StatsContext<'_>,
    col: &Column<'_>,
    site: &Site,
    findings: &mut Findings,
) {
    if let Some(oi) = oi {
        offset_index(&oi, pages, site, findings);
    }
    if let Some(ci) = ci {
        column_index(&ci, pages, t, col, site, findings);
    }
}

fn offset_index(
    oi: &OffsetIndexView<'_>,
    pages: &[PageRecord],
    site: &Site,
    findings: &mut Findings,
) {
    let locations = oi.page_locations();
    if locations.len() != pages.len() {
        findings.error(
            site,
            "offset_index",
            format!(
                "the offset index lists {} pages, the chunk has {} data pages",
                locations.len(),
                pages.len()
            ),
        );
        return;
    }
    let mut first_row = Some(0u64);
    for (i, (loc, page)) in locations.iter().zip(pages).enumerate() {
        let at = site.page(page.ordinal, page.offset);
        let mut wrong = Vec::new();
        if u64::try_from(loc.offset).ok() != Some(page.offset) {
            wrong.push(format!(
                "offset {} (the page is at {})",
                loc.offset, page.offset
            ));
        }
        if u64::try_from(loc.compressed_page_size).ok() != Some(page.size) {
            wrong.push(format!(
                "compressed_page_size {} (the page takes {} bytes)",
                loc.compressed_page_size, page.size
            ));
        }
        if let Some(r) = first_row {
            if u64::try_from(loc.first_row_index).ok() != Some(r) {
                wrong.push(format!(
                    "first_row_index {} (the page starts row {r})",
                    loc.first_row_index
                ));
            }
        }
        if !wrong.is_empty() {
            findings.error(
                &at,
                "offset_index",
                format!("data page {i} of the offset index: {}", wrong.join(", ")),
            );
        }
        first_row = match (first_row, &page.summary) {
            (Some(r), Some(s)) => Some(r + s.rows),
            _ => None,
        };
    }
}

fn column_index(
    ci: &ColumnIndexView<'_>,
    pages: &[PageRecord],
    t: &StatsContext<'_>,
    col: &Column<'_>,
    site: &Site,
    findings: &mut Findings,
) {
    if ci.len() != pages.len() {
        findings.error(
            site,
            "column_index",
            format!(
                "the column index has {} pages, the chunk has {} data pages",
                ci.len(),
                pages.len()
            ),
        );
        return;
    }
    let order = col.order;
    let bounds = order != StatsOrder::Undefined;
    let nan_counts = ci.nan_counts();
    let text = |v: &[u8]| value::text(v, t);
    let null_pages = ci.null_pages();
    let null_counts = ci.null_counts();
    for (i, page) in pages.iter().enumerate() {
        let Some(s) = &page.summary else {
            continue;
        };
        let at = site.page(page.ordinal, page.offset);
        let mut bad =
            |m: String| findings.error(&at, "column_index", format!("data page {i}: {m}"));
        let null_page = null_pages.get(i).copied().unwrap_or(false);
        if null_page && s.values > 0 {
            bad(format!(
                "null_pages says all null, the page holds {} values",
                s.values
            ));
        }
        if let Some(&n) = null_counts.and_then(|n| n.get(i)) {
            if !s.nulls_match(n, col) {
                bad(format!(
                    "null_counts says {n}, the page holds {}",
                    s.nulls_text()
                ));
            }
        }
        if let Some(&n) = nan_counts.and_then(|n| n.get(i)) {
            if u64::try_from(n) != Ok(s.nans) {
                bad(format!(
                    "nan_counts says {n}, the page holds {} NaNs",
                    s.nans
                ));
            }
        }
        if null_page || !bounds {
            continue;
        }
        let (min, max) = (ci.min_bytes(i), ci.max_bytes(i));
        if let Some(lo) = s.min.as_deref() {
            if order.compare(lo, min) == Some(Ordering::Less) {
                bad(format!(
                    "the value {} is below the minimum {}",
                    text(lo),
                    text(min)
                ));
            }
        }
        if let Some(hi) = s.max.as_deref() {
            if order.compare(hi, max) == Some(Ordering::Greater) {
                bad(format!(
                    "the value {} is above the maximum {}",
                    text(hi),
                    text(max)
                ));
            }
        }
    }
    if bounds {
        boundary_order(ci, pages, order, site, findings);
    }
}

/// Whether the bounds of the pages that are not all null follow `boundary_order`.
fn boundary_order(
    ci: &ColumnIndexView<'_>,
    pages: &[PageRecord],
    order: StatsOrder,
    site: &Site,
    findings: &mut Findings,
) {
    let want = match ci.boundary_order() {
        BoundaryOrder::Ascending => Ordering::Less,
        BoundaryOrder::Descending => Ordering::Greater,
        _ => return,
    };
    let null_pages = ci.null_pages();
    let mut prev: Option<usize> = None;
    for i in 0..ci.len() {
        if null_pages.get(i).copied().unwrap_or(false) {
            continue;
        }
        if let Some(p) = prev {
            let against = |a: &[u8], b: &[u8]| order.compare(a, b) == Some(want.reverse());
            if against(ci.min_bytes(p), ci.min_bytes(i))
                || against(ci.max_bytes(p), ci.max_bytes(i))
            {
                let at = match pages.get(i) {
                    Some(page) => site.page(page.ordinal, page.offset),
                    None => site.clone(),
                };
                findings.error(
                    &at,
                    "column_index",
                    format!(
                        "boundary_order is {} but the bounds of data page {i} come before those of \
                         data page {p}",
                        ci.boundary_order()
                    ),
                );
                return;
            }
        }
        prev = Some(i);
    }
}
