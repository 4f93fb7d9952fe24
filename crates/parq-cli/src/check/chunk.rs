//! One row group of `parq check`: each column chunk's Bloom filter read, its pages walked
//! (headers, CRCs, decompression, levels and values decoded by [`super::values`], v2 header
//! counts, page statistics), then the chunk's statistics, row count, Bloom filter and page
//! index checked against what the pages hold.

use parq::format::footer::PageIndex;
use parq::format::metadata::Repetition;
use parq::page::Page;
use parq::schema::stats::StatsContext;

use super::page_index::{self, PageRecord};
use super::values::{self, Column, Summary, Values};
use super::{stats, Findings, Site, Totals};
use crate::inspect::pages::{check_crc, Crc};
use crate::inspect::{bloom, value, Input};

/// What walking a chunk's pages found.
#[derive(Default)]
struct Walk {
    /// The data pages in order.
    pages: Vec<PageRecord>,
    /// All data pages together.
    summary: Summary,
    /// Every page was decoded.
    complete: bool,
}

/// Checks row group `rg`; `progress` is told the bytes of each chunk done.
pub fn row_group(
    input: &mut Input,
    rg: usize,
    findings: &mut Findings,
    totals: &mut Totals,
    progress: &mut dyn FnMut(u64),
) {
    let group_site = Site {
        row_group: Some(rg),
        ..Site::default()
    };
    let pi = match input.page_index(Some(&[rg])) {
        Ok(pi) => pi,
        Err(e) => {
            findings.failure(&group_site, "page_index", &e.error);
            None
        }
    };
    let leaves = input.md.schema().num_columns();
    let columns = input
        .md
        .row_groups()
        .get(rg)
        .map_or(0, |g| g.columns().len());
    if columns != leaves {
        findings.error(
            &group_site,
            "file",
            format!("the row group has {columns} column chunks, the schema {leaves} columns"),
        );
        return;
    }
    for leaf in 0..leaves {
        let path = input.md.schema().leaf_path_string(leaf);
        let site = Site::chunk(rg, &path);
        check_chunk(input, rg, leaf, pi.as_ref(), &site, findings, totals);
        let bytes = input
            .chunk(rg, leaf)
            .map_or(0, |c| u64::try_from(c.total_compressed_size()).unwrap_or(0));
        progress(bytes);
    }
}

fn check_chunk(
    input: &mut Input,
    rg: usize,
    leaf: usize,
    pi: Option<&PageIndex>,
    site: &Site,
    findings: &mut Findings,
    totals: &mut Totals,
) {
    if let Ok(Some(p)) = input.chunk(rg, leaf).map(|c| c.file_path()) {
        let path = String::from_utf8_lossy(p.slice(input.md.buf())).into_owned();
        findings.warning(
            site,
            "file",
            format!("not checked: the chunk is in another file ({path})"),
        );
        return;
    }
    let filter = match bloom::read_filter(input, rg, leaf) {
        Ok(f) => f,
        Err(e) => {
            findings.failure(site, "bloom_filter", &e.error);
            None
        }
    };
    let pages = input.pages(rg, leaf, false);
    let md = &input.md;
    let Some(levels) = md.schema().leaves().get(leaf) else {
        return;
    };
    let t = match StatsContext::for_leaf(md, leaf) {
        Ok(t) => t,
        Err(e) => {
            findings.failure(site, "file", &e);
            return;
        }
    };
    let optional = md
        .schema()
        .leaf_element(leaf)
        .is_some_and(|e| e.repetition == Some(Repetition::Optional));
    let mut col = match Column::new(&t, levels.max_def_level, levels.max_rep_level, optional) {
        Ok(c) => c,
        Err(e) => {
            findings.failure(site, "file", &e);
            return;
        }
    };
    col.filter = filter.as_ref();
    let walk = match pages {
        Ok((reader, bytes, start)) => walk(reader, &bytes, start, &col, &t, site, findings),
        Err(e) => {
            findings.failure(site, "page", &e.error);
            return;
        }
    };
    totals.pages += walk.pages.len() as u64;
    totals.values += walk.summary.values;
    let s = &walk.summary;
    if s.bad_utf8 > 0 {
        findings.warning(
            site,
            "values",
            format!(
                "{} values of the string column are not UTF-8, the first {}",
                s.bad_utf8,
                value::text(s.first_bad_utf8.as_deref().unwrap_or_default(), &t)
            ),
        );
    }
    if s.bloom_misses > 0 {
        findings.error(
            site,
            "bloom_filter",
            format!(
                "the Bloom filter says {} values are absent that the chunk holds, the first {}",
                s.bloom_misses,
                value::text(s.first_miss.as_deref().unwrap_or_default(), &t)
            ),
        );
    }
    let Some(chunk) = md.row_groups().get(rg).and_then(|g| g.columns().get(leaf)) else {
        return;
    };
    if walk.complete {
        let rows = md.row_groups().get(rg).map_or(0, |g| g.num_rows);
        if u64::try_from(rows).ok() != Some(s.rows) {
            findings.error(
                site,
                "rows",
                format!(
                    "the row group has {rows} rows, the chunk's pages {}",
                    s.rows
                ),
            );
        }
        if let Some(st) = chunk.statistics() {
            stats::check(&st, md.buf(), &t, &col, s, site, "statistics", findings);
        }
    }
    if let Some(pi) = pi {
        let j = pi.columns.iter().position(|&c| c == leaf);
        let ci = j.and_then(|j| pi.column_index(0, j));
        let oi = j.and_then(|j| pi.offset_index(0, j));
        page_index::check(ci, oi, &walk.pages, &t, &col, site, findings);
    }
}

/// Walks the pages of a chunk read by `reader` from `bytes` (the chunk from file offset
/// `start` on).
fn walk(
    mut reader: parq::page::PageReader,
    bytes: &[u8],
    start: u64,
    col: &Column<'_>,
    t: &StatsContext<'_>,
    site: &Site,
    findings: &mut Findings,
) -> Walk {
    let mut out = Walk {
        complete: true,
        ..Walk::default()
    };
    let mut dict: Option<Values> = None;
    loop {
        let page = match reader.next_compressed() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(e) => {
                findings.failure(site, "page", &e);
                out.complete = false;
                break;
            }
        };
        let m = page.meta;
        let at = site.page(m.ordinal, m.header_offset);
        if let Crc::Checked {
            stored,
            matches: false,
        } = check_crc(&page, bytes, start)
        {
            findings.error(
                &at,
                "crc",
                format!("the page's CRC {stored:08x} does not match its bytes"),
            );
        }
        let mut record = PageRecord {
            ordinal: m.ordinal,
            offset: m.header_offset,
            size: m.header_len as u64 + m.compressed_size as u64,
            summary: None,
        };
        let is_data = page.is_data_page();
        let decoded = match reader.decompress(page) {
            Ok(Page::Dictionary(d)) => {
                match Values::dictionary(d.buffer, d.num_values(), col) {
                    Ok(v) => dict = Some(v),
                    Err(e) => {
                        dict = None;
                        findings.failure(&at, "page", &e);
                        out.complete = false;
                    }
                }
                continue;
            }
            Ok(Page::DataV1(p)) => p
                .sections(col.max_rep, col.max_def)
                .and_then(|s| {
                    values::summarize(col, &s, p.num_values(), p.encoding(), dict.as_ref())
                })
                .map(|s| (s, p.header.statistics, p.header_bytes, None)),
            Ok(Page::DataV2(p)) => p
                .sections(col.max_rep, col.max_def)
                .and_then(|s| {
                    values::summarize(col, &s, p.num_values(), p.encoding(), dict.as_ref())
                })
                .map(|s| {
                    let counts = (p.num_nulls() as u64, p.num_rows() as u64);
                    (s, p.header.statistics, p.header_bytes, Some(counts))
                }),
            Err(e) => Err(e),
        };
        match decoded {
            Ok((s, page_stats, header, v2)) => {
                if let Some((nulls, rows)) = v2 {
                    if nulls != s.nulls || rows != s.rows {
                        findings.error(
                            &at,
                            "page",
                            format!(
                                "the v2 header says {nulls} nulls in {rows} rows, the page \
                                 holds {} nulls in {} rows",
                                s.nulls, s.rows
                            ),
                        );
                    }
                }
                let first = out.pages.iter().all(|p| p.summary.is_none());
                if let (true, Some(r @ 1..)) = (first || v2.is_some(), s.first_rep) {
                    findings.error(
                        &at,
                        "page",
                        format!("the page starts with repetition level {r}: it must start a row"),
                    );
                }
                if let Some(st) = page_stats {
                    stats::check(&st, header, t, col, &s, &at, "page_statistics", findings);
                }
                out.summary.merge(&s, col.order);
                record.summary = Some(s);
            }
            Err(e) => {
                findings.failure(&at, "page", &e);
                out.complete = false;
            }
        }
        if is_data {
            out.pages.push(record);
        }
    }
    out
}
