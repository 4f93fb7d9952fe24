//! The parts of a scan: the row groups of each file that its read keeps (after the
//! statistics of the filter pushed into it), each with the rows before it in the file and,
//! when the row group is read whole (no filter left to skip pages by), the byte ranges of
//! its column chunks, which an object store's read fetches ahead.

use std::ops::Range;

use super::DatasetFile;
use crate::page::chunk_range;
use crate::read::{Predicate, ReadOptions};
use crate::Result;

/// Chunk ranges closer than this are fetched as one (the gap read too): as object_store
/// coalesces, and at least the decoder's coalescing, so that every range the decoder asks
/// for lies within one fetched range.
const MERGE_GAP: u64 = 1 << 20;

/// `ranges` sorted, with those closer than `gap` merged.
fn merged(mut ranges: Vec<Range<u64>>, gap: u64) -> Vec<Range<u64>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Consecutive row groups of an object read whole are fetched together (one request)
/// up to this many bytes of chunks.
const GROUP_BYTES: u64 = 64 << 20;

/// Row groups of one file to read, one after the other, by one job.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    /// The row groups, in order (consecutive when there are several).
    pub(crate) row_groups: Vec<usize>,
    /// The rows of the file before the first.
    pub(crate) first_row: u64,
    /// Their chunks' ranges when they are read whole; else empty (read as the decoder asks).
    pub(crate) ranges: Vec<Range<u64>>,
}

impl Part {
    /// The bytes of its ranges.
    pub(crate) fn bytes(&self) -> u64 {
        self.ranges
            .iter()
            .map(|r| r.end.saturating_sub(r.start))
            .sum()
    }
}

/// The parts of `file` read for the columns `read` with the filter `pushdown`, of the row
/// groups `only` (all by default): a row group each, or for an object read whole (`remote`,
/// no filter), consecutive row groups up to [`GROUP_BYTES`] of chunks.
pub(crate) fn parts(
    file: &DatasetFile,
    options: &ReadOptions,
    read: &[String],
    pushdown: Option<&Predicate>,
    only: Option<&[usize]>,
) -> Result<Vec<Part>> {
    let single = one_per_row_group(file, options, read, pushdown, only)?;
    if !file.is_remote() || pushdown.is_some() {
        return Ok(single);
    }
    let mut out: Vec<Part> = Vec::with_capacity(single.len());
    for part in single {
        match out.last_mut() {
            Some(last)
                if last.bytes() + part.bytes() <= GROUP_BYTES
                    && last.row_groups.last().map(|rg| rg + 1)
                        == part.row_groups.first().copied() =>
            {
                last.row_groups.extend(part.row_groups);
                last.ranges.extend(part.ranges);
                let gap = options.coalesce_bytes.max(MERGE_GAP);
                last.ranges = merged(std::mem::take(&mut last.ranges), gap);
            }
            _ => out.push(part),
        }
    }
    Ok(out)
}

/// The parts of `file`, a row group each.
fn one_per_row_group(
    file: &DatasetFile,
    options: &ReadOptions,
    read: &[String],
    pushdown: Option<&Predicate>,
    only: Option<&[usize]>,
) -> Result<Vec<Part>> {
    let meta = file.meta()?;
    let mut before = Vec::with_capacity(meta.row_groups().len());
    let mut rows = 0u64;
    for group in meta.row_groups() {
        before.push(rows);
        rows = rows.saturating_add(u64::try_from(group.num_rows()).unwrap_or(0));
    }
    let first_row = |rg: usize| before.get(rg).copied().unwrap_or(0);
    if read.is_empty() && pushdown.is_none() {
        // No column is read: the rows come from the footer.
        return Ok((0..meta.row_groups().len())
            .filter(|rg| only.is_none_or(|o| o.contains(rg)))
            .map(|rg| Part {
                row_groups: vec![rg],
                first_row: first_row(rg),
                ranges: Vec::new(),
            })
            .collect());
    }
    let mut builder = file
        .builder(options)?
        .with_columns(read.iter().map(String::as_str));
    if let Some(p) = pushdown {
        builder = builder.with_filter(p.clone());
    }
    if let Some(o) = only {
        builder = builder.with_row_groups(o.iter().copied());
    }
    let setup = builder.setup().map_err(|e| e.in_file(file.name()))?;
    let mut out = Vec::with_capacity(setup.row_groups.len());
    for (rg, _) in &setup.row_groups {
        let mut ranges = Vec::new();
        if pushdown.is_none() {
            if let Some(group) = meta.row_groups().get(*rg) {
                for &leaf in &setup.leaves {
                    if let Some(chunk) = group.columns().get(leaf) {
                        ranges.push(chunk_range(chunk).map_err(|e| e.in_file(file.name()))?);
                    }
                }
            }
        }
        out.push(Part {
            row_groups: vec![*rg],
            first_row: first_row(*rg),
            ranges: merged(ranges, options.coalesce_bytes.max(MERGE_GAP)),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_ranges_merge() {
        assert_eq!(merged(vec![30..40, 0..10, 12..20], 2), vec![0..20, 30..40]);
        assert_eq!(
            merged(vec![0..10, 5..8, 100..110], 0),
            vec![0..10, 100..110]
        );
    }
}
