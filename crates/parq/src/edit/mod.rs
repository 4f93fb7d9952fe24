//! Parquet files changed as files: [`merge`] files into one, append rows to a file
//! ([`AppendWriter`], from [`ParquetWriter::append_to`](crate::ParquetWriter::append_to),
//! and [`append_files`]), [`rewrite`] a file with other writer properties. Row groups are
//! copied byte for byte wherever the Parquet schemas allow
//! ([`ParquetWriter::copy_row_groups`](crate::ParquetWriter::copy_row_groups)), and every
//! output appears whole or not at all ([`TempFile`]).

mod append;
mod merge;
mod rewrite;
mod temp;

pub use append::{append_files, AppendReport, AppendWriter};
pub use merge::{merge, merge_with_progress, MergeReport};
pub use rewrite::{rewrite, RewriteOptions, SortKey};
pub use temp::{same_file, TempFile};

/// How far a long operation is: rows and input bytes done, of the totals (a total of 0 is
/// unknown).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Rows written so far.
    pub rows: u64,
    /// Rows to write in all.
    pub rows_total: u64,
    /// Input bytes done so far.
    pub bytes: u64,
    /// Input bytes in all.
    pub bytes_total: u64,
}
