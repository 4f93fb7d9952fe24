//! Late materialization: with a filter, the leaves of its columns are decoded first, a batch
//! of rows at a time; the other leaves then decode only the rows the filter kept.
//!
//! The kept rows of a batch become runs of rows to read and rows to skip ([`steps`]): a gap
//! between kept rows shorter than [`MIN_SKIP_ROWS`] is taken and filtered out afterwards
//! (decoding it costs about what skipping it inside a page does), a longer one is skipped.
//! Skips are not done at once: a leaf adds them up ([`LeafReader::skip_records`]) and passes
//! over them just before it next reads rows, so the gaps of many batches without a kept row
//! make one skip, and whole pages inside it (by the offset index) are never fetched or
//! decompressed.

use arrow_array::{Array, ArrayRef, BooleanArray};
use arrow_buffer::BooleanBufferBuilder;

use crate::error::arrow_error;
use crate::read::decode::leaf::{Fill, LeafBatch, LeafReader};
use crate::read::error::inconsistent;
use crate::read::plan::selection::Run;
use crate::{Error, Result};

/// Gaps between kept rows at least this long are skipped, shorter ones decoded and
/// filtered out.
pub(crate) const MIN_SKIP_ROWS: usize = 1024;

/// The runs through a batch whose kept rows are `mask`, and the mask of the rows read
/// (`None` when every row read is kept).
pub(crate) fn steps(mask: &BooleanArray) -> (Vec<Run>, Option<BooleanArray>) {
    let bits = mask.values();
    let len = bits.len();
    let mut out: Vec<Run> = Vec::new();
    // Taken runs as (start, end), gaps shorter than the minimum merged.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (start, end) in bits.set_slices() {
        match runs.last_mut() {
            Some(last) if start - last.1 < MIN_SKIP_ROWS => last.1 = end,
            _ => runs.push((start, end)),
        }
    }
    let mut at = 0;
    let mut taken_rows = 0;
    for &(start, end) in &runs {
        if start > at {
            out.push(Run::Skip((start - at) as u64));
        }
        out.push(Run::Read((end - start) as u64));
        taken_rows += end - start;
        at = end;
    }
    if len > at {
        out.push(Run::Skip((len - at) as u64));
    }
    let kept = bits.count_set_bits();
    if kept == taken_rows {
        return (out, None);
    }
    let mut taken = BooleanBufferBuilder::new(taken_rows);
    for &(start, end) in &runs {
        taken.append_buffer(&bits.slice(start, end - start));
    }
    (out, Some(BooleanArray::new(taken.finish(), None)))
}

/// One leaf decoded late: its progress through the steps of the current batch.
#[derive(Debug, Default)]
pub(crate) struct LateLeaf {
    /// The next step of the current batch, and the parts taken so far.
    step: usize,
    parts: Vec<LeafBatch>,
}

impl LateLeaf {
    /// Goes through `steps` with `leaf` as far as it can: `Some(range)` when it needs these
    /// file bytes first, `None` once every step is done.
    pub(crate) fn advance(
        &mut self,
        leaf: &mut LeafReader,
        steps: &[Run],
    ) -> Result<Option<std::ops::Range<u64>>> {
        while let Some(&step) = steps.get(self.step) {
            let rows = match step {
                Run::Skip(n) => {
                    leaf.skip_records(n);
                    self.step += 1;
                    continue;
                }
                // A batch's rows are counted in `usize`.
                Run::Read(n) => usize::try_from(n).unwrap_or(usize::MAX),
            };
            let next = steps.get(self.step + 1).copied();
            if let Fill::Need(range) = leaf.read_records(rows, rows as u64, next)? {
                return Ok(Some(range));
            }
            if leaf.complete() < rows {
                return Err(ends_early(leaf, (rows - leaf.complete()) as u64));
            }
            self.parts.push(leaf.take(rows)?);
            self.step += 1;
        }
        Ok(None)
    }

    /// The rows taken in the current batch, as one batch (`None` when it took none); ready
    /// for the next batch.
    pub(crate) fn finish(&mut self) -> Result<Option<LeafBatch>> {
        self.step = 0;
        let mut parts = std::mem::take(&mut self.parts);
        if parts.len() <= 1 {
            return Ok(parts.pop());
        }
        let arrays: Vec<&dyn Array> = parts.iter().map(|p| p.array.as_ref()).collect();
        let array = arrow_select::concat::concat(&arrays).map_err(arrow_error)?;
        let def = parts.iter().flat_map(|p| p.def.iter().copied()).collect();
        let rep = parts.iter().flat_map(|p| p.rep.iter().copied()).collect();
        Ok(Some(LeafBatch { array, def, rep }))
    }
}

#[cold]
fn ends_early(leaf: &LeafReader, rows: u64) -> Error {
    inconsistent(format!(
        "column `{}` ends {rows} rows before the filter's columns",
        leaf.spec().path
    ))
}

/// `array` filtered by `mask` (`None`: kept whole).
pub(crate) fn keep(array: &ArrayRef, mask: Option<&BooleanArray>) -> Result<ArrayRef> {
    match mask {
        None => Ok(array.clone()),
        Some(m) => arrow_select::filter::filter(array.as_ref(), m).map_err(arrow_error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(bits: &[bool]) -> BooleanArray {
        BooleanArray::from(bits.to_vec())
    }

    #[test]
    fn short_gaps_are_taken_long_ones_skipped() {
        let mut bits = vec![false; 5000];
        bits[10] = true;
        bits[20] = true;
        bits[3000] = true;
        let (steps, taken) = steps(&mask(&bits));
        assert_eq!(
            steps,
            vec![
                Run::Skip(10),
                Run::Read(11),
                Run::Skip(2979),
                Run::Read(1),
                Run::Skip(1999)
            ]
        );
        let taken = taken.unwrap();
        assert_eq!(taken.len(), 12);
        assert_eq!(taken.true_count(), 3);
        assert!(taken.value(0) && taken.value(10) && taken.value(11));
    }

    #[test]
    fn no_kept_row_is_one_skip_and_all_kept_one_take() {
        assert_eq!(steps(&mask(&[false; 7])), (vec![Run::Skip(7)], None));
        assert_eq!(steps(&mask(&[true; 7])), (vec![Run::Read(7)], None));
        assert_eq!(steps(&mask(&[])), (vec![], None));
    }
}
