//! Size statistics of written pages and column chunks: the unencoded bytes of BYTE_ARRAY
//! values and the histograms of definition and repetition levels (parquet.thrift's
//! `SizeStatistics`, in the chunk metadata and the column index).

use crate::format::metadata::SizeStatistics;

/// Accumulates `SizeStatistics` of a page or column chunk: the unencoded bytes of
/// BYTE_ARRAY values and histograms of definition and repetition levels. A histogram is kept
/// only when its maximum level is above 0 (the spec allows omitting it otherwise, as
/// arrow-rs does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeStatsAccumulator {
    unencoded_byte_array_data_bytes: Option<i64>,
    def: Vec<i64>,
    rep: Vec<i64>,
}

impl SizeStatsAccumulator {
    /// An empty accumulator for a column with `max_def_level` and `max_rep_level`;
    /// `byte_array` for BYTE_ARRAY columns (which count unencoded bytes).
    pub fn new(max_def_level: i16, max_rep_level: i16, byte_array: bool) -> Self {
        let hist = |max: i16| vec![0i64; if max > 0 { max as usize + 1 } else { 0 }];
        SizeStatsAccumulator {
            unencoded_byte_array_data_bytes: byte_array.then_some(0),
            def: hist(max_def_level),
            rep: hist(max_rep_level),
        }
    }

    /// Zeroes the counts.
    pub fn clear(&mut self) {
        self.def.iter_mut().for_each(|v| *v = 0);
        self.rep.iter_mut().for_each(|v| *v = 0);
        if let Some(b) = &mut self.unencoded_byte_array_data_bytes {
            *b = 0;
        }
    }

    /// Adds the bytes of BYTE_ARRAY values (without length prefixes).
    pub fn add_unencoded_bytes(&mut self, bytes: u64) {
        if let Some(b) = &mut self.unencoded_byte_array_data_bytes {
            *b = b.saturating_add(i64::try_from(bytes).unwrap_or(i64::MAX));
        }
    }

    /// Counts definition levels (levels outside 0..=max are ignored).
    pub fn add_def_levels<L: Copy + Into<i32>>(&mut self, levels: &[L]) {
        count_levels(&mut self.def, levels);
    }

    /// Counts repetition levels (levels outside 0..=max are ignored).
    pub fn add_rep_levels<L: Copy + Into<i32>>(&mut self, levels: &[L]) {
        count_levels(&mut self.rep, levels);
    }

    /// Counts `n` definition levels equal to `level`.
    pub fn add_def_level_run(&mut self, level: i16, n: u64) {
        add_run(&mut self.def, level, n);
    }

    /// Counts `n` repetition levels equal to `level`.
    pub fn add_rep_level_run(&mut self, level: i16, n: u64) {
        add_run(&mut self.rep, level, n);
    }

    /// Adds another accumulator of the same column.
    pub fn merge(&mut self, other: &SizeStatsAccumulator) {
        if let (Some(a), Some(b)) = (
            &mut self.unencoded_byte_array_data_bytes,
            other.unencoded_byte_array_data_bytes,
        ) {
            *a = a.saturating_add(b);
        }
        for (a, b) in self.def.iter_mut().zip(&other.def) {
            *a += b;
        }
        for (a, b) in self.rep.iter_mut().zip(&other.rep) {
            *a += b;
        }
    }

    /// Unencoded BYTE_ARRAY bytes (`None` for other columns).
    pub fn unencoded_byte_array_data_bytes(&self) -> Option<i64> {
        self.unencoded_byte_array_data_bytes
    }

    /// The definition level histogram (empty when the maximum level is 0).
    pub fn def_histogram(&self) -> &[i64] {
        &self.def
    }

    /// The repetition level histogram (empty when the maximum level is 0).
    pub fn rep_histogram(&self) -> &[i64] {
        &self.rep
    }

    /// parq-format's `SizeStatistics`; `None` when there is nothing to write.
    pub fn to_size_statistics(&self) -> Option<SizeStatistics> {
        let hist = |h: &Vec<i64>| (!h.is_empty()).then(|| h.clone());
        let s = SizeStatistics {
            unencoded_byte_array_data_bytes: self.unencoded_byte_array_data_bytes,
            repetition_level_histogram: hist(&self.rep),
            definition_level_histogram: hist(&self.def),
        };
        (s != SizeStatistics::default()).then_some(s)
    }
}

fn count_levels<L: Copy + Into<i32>>(hist: &mut [i64], levels: &[L]) {
    if hist.is_empty() {
        return;
    }
    if hist.len() <= 16 {
        // Small histograms count in a local array, without a branch per level (levels
        // outside the histogram land in the last slot, which is dropped).
        let mut counts = [0i64; 17];
        for &l in levels {
            counts[(l.into() as u32).min(16) as usize] += 1;
        }
        for (h, c) in hist.iter_mut().zip(counts) {
            *h += c;
        }
        return;
    }
    for &l in levels {
        if let Some(h) = usize::try_from(l.into()).ok().and_then(|i| hist.get_mut(i)) {
            *h += 1;
        }
    }
}

fn add_run(hist: &mut [i64], level: i16, n: u64) {
    if let Some(h) = usize::try_from(level).ok().and_then(|i| hist.get_mut(i)) {
        *h = h.saturating_add(i64::try_from(n).unwrap_or(i64::MAX));
    }
}
