//! What is measured: the implementations and decode modes, the shape a decode must report
//! back, and the seeded selections (projected columns, row group, random chunks) shared by
//! every implementation that supports a mode.

use rand::seq::index::sample;
use rand::SeedableRng;

/// Implementation names as they appear in JSON/CSV output.
pub const PARQ: &str = "parq";
pub const PARQUET_60: &str = "parquet-60.1.0";
pub const PARQUET_56: &str = "parquet-56.2.0";
pub const PYARROW: &str = "pyarrow";
pub const POLARS: &str = "polars";

/// The implementations of `all` that `--impls` selects (all of them when it is empty), in
/// `all`'s order.
pub fn selected_impls(all: &[&'static str], selected: &[String]) -> Vec<&'static str> {
    all.iter()
        .copied()
        .filter(|i| selected.is_empty() || selected.iter().any(|a| a == i))
        .collect()
}

/// Number of columns (or column chunks) the selective modes decode.
pub const SELECTED: usize = 10;

/// One way of decoding a footer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// The whole FileMetaData, statistics included.
    Metadata,
    /// The whole FileMetaData with column statistics skipped.
    MetadataNoStats,
    /// 10 leaf columns spread over the schema, all row groups.
    Projection10,
    /// The same 10 columns of one row group.
    Projection10Rg1,
    /// A structural open that decodes nothing on demand.
    LazyOpen,
    /// A lazy open plus 10 random column chunks decoded.
    Lazy10Chunks,
    /// ColumnIndex + OffsetIndex of every column chunk (metadata already decoded).
    PageIndex,
    /// ColumnIndex + OffsetIndex of 10 columns in every row group.
    PageIndex10,
    /// A whole column read into Arrow (`parq-bench decode`; not a footer mode).
    Decode,
    /// parq's full decode of its own copy of the dataset (the file the indexed modes read).
    CopyMetadata,
    /// A lazy open through the footer index of parq's copy.
    IndexedLazyOpen,
    /// 10 leaf columns of every row group through the footer index of parq's copy.
    IndexedProjection10,
    /// A lazy open through the footer index of parq's copy plus one column chunk decoded.
    IndexedOneChunk,
}

impl Mode {
    pub const ALL: [Mode; 8] = [
        Mode::Metadata,
        Mode::MetadataNoStats,
        Mode::Projection10,
        Mode::Projection10Rg1,
        Mode::LazyOpen,
        Mode::Lazy10Chunks,
        Mode::PageIndex,
        Mode::PageIndex10,
    ];

    /// parq's modes on its own copy of a dataset, written with the footer index.
    pub const INDEXED: [Mode; 4] = [
        Mode::CopyMetadata,
        Mode::IndexedLazyOpen,
        Mode::IndexedProjection10,
        Mode::IndexedOneChunk,
    ];

    /// The mode named `s` (as in [`Mode::as_str`]).
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL
            .into_iter()
            .chain(Mode::INDEXED)
            .find(|m| m.as_str() == s)
    }

    /// A short label for table headers.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Metadata => "metadata",
            Mode::MetadataNoStats => "no-stats",
            Mode::Projection10 => "proj-10",
            Mode::Projection10Rg1 => "proj-10-rg1",
            Mode::LazyOpen => "lazy-open",
            Mode::Lazy10Chunks => "lazy-10",
            Mode::PageIndex => "index",
            Mode::PageIndex10 => "index-10",
            Mode::Decode => "decode",
            Mode::CopyMetadata => "copy-metadata",
            Mode::IndexedLazyOpen => "ix-lazy-open",
            Mode::IndexedProjection10 => "ix-proj-10",
            Mode::IndexedOneChunk => "ix-1-chunk",
        }
    }

    /// The name used in JSON/CSV output.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Metadata => "metadata",
            Mode::MetadataNoStats => "metadata-no-stats",
            Mode::Projection10 => "projection-10",
            Mode::Projection10Rg1 => "projection-10-rg-1",
            Mode::LazyOpen => "lazy-open",
            Mode::Lazy10Chunks => "lazy-10-chunks",
            Mode::PageIndex => "page-index",
            Mode::PageIndex10 => "page-index-10",
            Mode::Decode => "decode",
            Mode::CopyMetadata => "copy-metadata",
            Mode::IndexedLazyOpen => "indexed-lazy-open",
            Mode::IndexedProjection10 => "indexed-projection-10",
            Mode::IndexedOneChunk => "indexed-one-chunk",
        }
    }
}

/// The shape of a dataset, as far as a decode can check it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub num_rows: i64,
    pub row_groups: usize,
    pub columns: usize,
}

/// What one decode reports back; compared against the expected value after every batch so
/// that the work cannot be optimised away and a wrong decode cannot pass as a fast one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// Rows in the file, where the decoded object knows them.
    pub num_rows: Option<i64>,
    pub row_groups: usize,
    /// Column chunks (or page index entries) actually decoded.
    pub column_chunks: usize,
}

impl Facts {
    /// Facts of a decoded page index, from the number of offset indexes found in each row
    /// group: the row groups with at least one, and their total.
    pub fn from_offset_index_counts(
        offset_indexes_per_row_group: impl Iterator<Item = usize>,
    ) -> Facts {
        let (mut row_groups, mut column_chunks) = (0, 0);
        for n in offset_indexes_per_row_group {
            row_groups += usize::from(n > 0);
            column_chunks += n;
        }
        Facts {
            num_rows: None,
            row_groups,
            column_chunks,
        }
    }
}

impl Shape {
    /// Facts of a decode of `row_groups` x `columns` chunks of this file.
    pub fn facts(&self, row_groups: usize, columns: usize) -> Facts {
        Facts {
            num_rows: Some(self.num_rows),
            row_groups,
            column_chunks: row_groups * columns,
        }
    }

    /// Facts of a full footer decode.
    pub fn full(&self) -> Facts {
        self.facts(self.row_groups, self.columns)
    }

    /// Facts of a page index decode of `row_groups` x `columns` (no row count).
    pub fn page_index(&self, row_groups: usize, columns: usize) -> Facts {
        Facts {
            num_rows: None,
            ..self.facts(row_groups, columns)
        }
    }

    /// Up to [`SELECTED`] leaf columns spread evenly over the schema.
    pub fn spread_columns(&self) -> Vec<usize> {
        let n = SELECTED.min(self.columns);
        (0..n).map(|i| i * self.columns / n).collect()
    }

    /// The row group the single-row-group modes decode: the middle one.
    pub fn middle_row_group(&self) -> usize {
        self.row_groups / 2
    }

    /// Up to [`SELECTED`] distinct (row group, column) pairs, drawn with a fixed seed.
    pub fn random_chunks(&self) -> Vec<(usize, usize)> {
        let total = self.row_groups * self.columns;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(0x5eed_c4a1);
        let mut picked: Vec<usize> = sample(&mut rng, total, SELECTED.min(total)).into_vec();
        picked.sort_unstable();
        picked
            .into_iter()
            .map(|i| (i / self.columns, i % self.columns))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(columns: usize) -> Shape {
        Shape {
            num_rows: 20_000,
            row_groups: 20,
            columns,
        }
    }

    #[test]
    fn selections_are_in_range_and_distinct() {
        for columns in [1, 10, 100, 1000] {
            let s = shape(columns);
            let cols = s.spread_columns();
            assert_eq!(cols.len(), SELECTED.min(columns));
            assert!(cols.windows(2).all(|w| w[0] < w[1]));
            assert!(cols.iter().all(|&c| c < columns));
            let chunks = s.random_chunks();
            assert_eq!(chunks.len(), SELECTED.min(20 * columns));
            assert!(chunks.windows(2).all(|w| w[0] < w[1]));
            assert!(chunks.iter().all(|&(rg, c)| rg < 20 && c < columns));
        }
    }
}
