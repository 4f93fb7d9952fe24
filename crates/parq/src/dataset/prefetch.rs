//! A row group's bytes fetched ahead: the ranges of its column chunks, read from an object
//! store at once before its decoding job starts, so that the worker pool decodes from memory
//! while the requests of the next row groups are under way. Ranges outside them (a page
//! index, a Bloom filter) are read from the object when asked.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use crate::read::io::source::RangeRead;
use crate::{Error, ErrorKind, Result};

/// Bytes read before, and the file to read the others from.
#[derive(Debug)]
pub(crate) struct Prefetched {
    /// `(start, bytes)`, by start.
    pieces: Vec<(u64, Bytes)>,
    rest: Arc<dyn RangeRead>,
}

impl Prefetched {
    /// The bytes `got` of `ranges`, and `rest` for any other range.
    pub(crate) fn new(
        ranges: &[Range<u64>],
        got: Vec<Bytes>,
        rest: Arc<dyn RangeRead>,
    ) -> Result<Self> {
        if got.len() != ranges.len() {
            return Err(Error::new(ErrorKind::Internal(
                "a prefetch gave another number of ranges".into(),
            )));
        }
        let mut pieces: Vec<(u64, Bytes)> = ranges.iter().map(|r| r.start).zip(got).collect();
        pieces.sort_by_key(|(start, _)| *start);
        Ok(Prefetched { pieces, rest })
    }

    /// `range` from the bytes read before, if one piece holds it.
    fn held(&self, range: &Range<u64>) -> Option<Bytes> {
        let i = self
            .pieces
            .partition_point(|(start, _)| *start <= range.start);
        let (start, bytes) = self.pieces.get(i.checked_sub(1)?)?;
        let from = usize::try_from(range.start - start).ok()?;
        let to = usize::try_from(range.end - start).ok()?;
        (to <= bytes.len() && from <= to).then(|| bytes.slice(from..to))
    }
}

impl RangeRead for Prefetched {
    fn file_len(&self) -> u64 {
        self.rest.file_len()
    }

    fn read_range(&self, range: Range<u64>) -> Result<Bytes> {
        match self.held(&range) {
            Some(b) => Ok(b),
            None => self.rest.read_range(range),
        }
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        let held: Vec<Option<Bytes>> = ranges.iter().map(|r| self.held(r)).collect();
        let missing: Vec<Range<u64>> = ranges
            .iter()
            .zip(&held)
            .filter(|(_, h)| h.is_none())
            .map(|(r, _)| r.clone())
            .collect();
        let mut fetched = match missing.is_empty() {
            true => Vec::new(),
            false => self.rest.read_ranges(&missing)?,
        }
        .into_iter();
        held.into_iter()
            .map(|h| match h {
                Some(b) => Ok(b),
                None => fetched.next().ok_or_else(|| {
                    Error::new(ErrorKind::Internal("a source gave too few ranges".into()))
                }),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_before_are_sliced_and_others_read() {
        let file = Bytes::from((0u8..100).collect::<Vec<u8>>());
        let rest: Arc<dyn RangeRead> = Arc::new(file.clone());
        let p = Prefetched::new(
            &[40..60, 10..20],
            vec![file.slice(40..60), file.slice(10..20)],
            rest,
        )
        .unwrap();
        assert_eq!(p.read_range(12..18).unwrap(), file.slice(12..18));
        assert_eq!(p.read_range(55..70).unwrap(), file.slice(55..70));
        let got = p.read_ranges(&[0..5, 41..42, 90..100]).unwrap();
        assert_eq!(
            got,
            vec![file.slice(0..5), file.slice(41..42), file.slice(90..100)]
        );
    }
}
