//! [`RowSelection`]: which rows of a read to decode.

use std::collections::VecDeque;
use std::ops::Range;

/// Rows to read.
///
/// [`RowSelection`]: which rows of a read to decode, as sorted ranges of row numbers counted
/// over the chosen row groups in the order they are read (as arrow-rs's `RowSelection`).
/// The decoder turns it, with the rows a filter's page index leaves, into runs of rows to
/// skip and to decode ; pages that lie in a skipped run are never read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSelection {
    ranges: Vec<Range<u64>>,
}

impl RowSelection {
    /// The rows of `ranges` (in any order, overlapping or not).
    pub fn from_ranges(ranges: impl IntoIterator<Item = Range<u64>>) -> Self {
        let mut v: Vec<Range<u64>> = ranges.into_iter().filter(|r| r.start < r.end).collect();
        v.sort_by_key(|r| r.start);
        let mut out: Vec<Range<u64>> = Vec::with_capacity(v.len());
        for r in v {
            match out.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => out.push(r),
            }
        }
        RowSelection { ranges: out }
    }

    /// Every row in `0..rows`.
    pub fn all(rows: u64) -> Self {
        Self::from_ranges(std::iter::once(0..rows))
    }

    /// The selected ranges, sorted and apart.
    pub fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }

    /// The rows selected.
    pub fn row_count(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// The rows in both.
    pub fn intersect(&self, other: &RowSelection) -> RowSelection {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while let (Some(a), Some(b)) = (self.ranges.get(i), other.ranges.get(j)) {
            let (s, e) = (a.start.max(b.start), a.end.min(b.end));
            if s < e {
                out.push(s..e);
            }
            if a.end < b.end {
                i += 1;
            } else {
                j += 1;
            }
        }
        RowSelection { ranges: out }
    }

    /// The rows in either.
    pub fn union(&self, other: &RowSelection) -> RowSelection {
        Self::from_ranges(self.ranges.iter().chain(&other.ranges).cloned())
    }

    /// The rows of `start..end`, moved to start at 0.
    pub(crate) fn window(&self, start: u64, end: u64) -> RowSelection {
        let ranges = self
            .intersect(&RowSelection::from_ranges(std::iter::once(start..end)))
            .ranges
            .into_iter()
            .map(|r| r.start - start..r.end - start)
            .collect();
        RowSelection { ranges }
    }
}

/// Rows to read or to skip, in order: the one vocabulary of a read's row selection
/// ([`Runs`]), of late materialization's steps through a batch and of what a leaf is told
/// comes after the records it reads ([`crate::read::decode::leaf::LeafReader::read_records`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Run {
    Read(u64),
    Skip(u64),
}

impl Run {
    /// The rows of the run.
    pub(crate) fn rows(self) -> u64 {
        match self {
            Run::Read(n) | Run::Skip(n) => n,
        }
    }

    /// The same kind of run over `rows` rows.
    fn with_rows(self, rows: u64) -> Run {
        match self {
            Run::Read(_) => Run::Read(rows),
            Run::Skip(_) => Run::Skip(rows),
        }
    }

    /// The rows skipped when `next` follows a read (0 when it is a read or nothing).
    pub(crate) fn skipped(next: Option<Run>) -> u64 {
        match next {
            Some(Run::Skip(n)) => n,
            _ => 0,
        }
    }
}

/// The runs of a read's selection, in read order; runs of one kind next to each other are
/// merged.
#[derive(Debug, Clone, Default)]
pub(crate) struct Runs {
    runs: VecDeque<Run>,
}

impl Runs {
    /// Appends the runs of a row group of `rows` rows whose selected rows are `selection`.
    pub(crate) fn push_row_group(&mut self, selection: &RowSelection, rows: u64) {
        let mut at = 0;
        for r in selection.ranges() {
            let (s, e) = (r.start.min(rows), r.end.min(rows));
            self.push(Run::Skip(s.saturating_sub(at)));
            self.push(Run::Read(e.saturating_sub(s)));
            at = e;
        }
        self.push(Run::Skip(rows.saturating_sub(at)));
    }

    fn push(&mut self, run: Run) {
        if run.rows() == 0 {
            return;
        }
        match self.runs.back_mut() {
            Some(last) if std::mem::discriminant(last) == std::mem::discriminant(&run) => {
                *last = last.with_rows(last.rows() + run.rows());
            }
            _ => self.runs.push_back(run),
        }
    }

    /// The current run.
    pub(crate) fn front(&self) -> Option<Run> {
        self.runs.front().copied()
    }

    /// The run after the current one.
    pub(crate) fn next(&self) -> Option<Run> {
        self.runs.get(1).copied()
    }

    /// Marks `rows` of the current run done.
    pub(crate) fn advance(&mut self, rows: u64) {
        if let Some(run) = self.runs.front_mut() {
            *run = run.with_rows(run.rows().saturating_sub(rows));
            if run.rows() == 0 {
                self.runs.pop_front();
            }
        }
    }

    /// The rows selected.
    pub(crate) fn selected(&self) -> u64 {
        self.runs
            .iter()
            .map(|r| match r {
                Run::Read(n) => *n,
                Run::Skip(_) => 0,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_intersect_and_window() {
        let a = RowSelection::from_ranges([5..9, 0..2, 1..3, 9..10, 4..4]);
        assert_eq!(a.ranges(), [0..3, 5..10]);
        let b = RowSelection::from_ranges([2..6, 8..20]);
        assert_eq!(a.intersect(&b).ranges(), [2..3, 5..6, 8..10]);
        assert_eq!(a.union(&b).ranges(), std::slice::from_ref(&(0..20)));
        assert_eq!(a.window(2, 8).ranges(), [0..1, 3..6]);
        let mut runs = Runs::default();
        runs.push_row_group(&a.window(0, 6), 6);
        runs.push_row_group(&RowSelection::all(4), 4);
        assert_eq!(
            runs.runs,
            [Run::Read(3), Run::Skip(2), Run::Read(1 + 4)]
                .into_iter()
                .collect::<VecDeque<_>>()
        );
        assert_eq!(runs.selected(), 8);
        assert_eq!(
            (runs.front(), runs.next()),
            (Some(Run::Read(3)), Some(Run::Skip(2)))
        );
        runs.advance(3);
        assert_eq!(
            (runs.front(), runs.next()),
            (Some(Run::Skip(2)), Some(Run::Read(5)))
        );
    }
}
