//! parq: a fast, complete Apache Parquet implementation.
//!
//! Read flow ([`read`]): byte ranges -> footer ([`format::footer`]) -> chosen columns x row
//! groups, pruned by a filter's statistics, Bloom filters ([`bloom`]) and page index -> pages
//! (`page`, `compression`) -> level and value decoders (`encoding`) -> Arrow arrays ->
//! RecordBatch, for flat and nested schemas.
//! Write flow ([`write`](mod@write)): properties -> per-leaf column writer (levels, values, encoders,
//! pages, statistics, Bloom filters) -> chunk -> row group -> footer with the page index.
//!
//! ```
//! use std::sync::Arc;
//!
//! use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
//! use parq::{col, ParquetReader, ParquetWriter, WriterProperties};
//!
//! // Write a file of 1,000 rows.
//! let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1000));
//! let names: ArrayRef = Arc::new(StringArray::from_iter_values((0..1000).map(|i| format!("n{i}"))));
//! let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)])?;
//! let path = std::env::temp_dir().join("parq-crate-doc.parquet");
//! let mut writer =
//!     ParquetWriter::try_new(std::fs::File::create(&path)?, batch.schema(), WriterProperties::default())?;
//! writer.write(&batch)?;
//! writer.close()?;
//!
//! // Read two columns of the rows whose `id` is below 100.
//! let reader = ParquetReader::open(&path)?
//!     .with_columns(["id", "name"])
//!     .with_filter(col("id").lt(100i64));
//! let batches = reader.read_all()?;
//! assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 100);
//!
//! // Write them to another file.
//! let out = std::env::temp_dir().join("parq-crate-doc-out.parquet");
//! let mut writer =
//!     ParquetWriter::try_new(std::fs::File::create(&out)?, reader.schema()?, WriterProperties::default())?;
//! for batch in &batches {
//!     writer.write(batch)?;
//! }
//! writer.close()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where to start: [`ParquetReader`] and [`AsyncParquetReader`] read files, [`ParquetWriter`]
//! with [`WriterProperties`] writes them, [`dataset`] reads and writes many files as one
//! table, [`keytools`] and [`format::crypto`] hold the keys of encrypted files, and
//! [`format::footer`] decodes footers alone. [`RecordBatches`] turns into arrow's
//! `RecordBatchReader` (`Box<dyn RecordBatchReader + Send>` by `From`, or
//! [`RecordBatches::into_reader`]); [`AsyncRecordBatches`] is a `futures::Stream`.
//!
//! # Features
//!
//! - `object_store`: the async reader and datasets over any `object_store` store.
//! - `cloud`: `object_store` with S3, GCS, Azure and HTTP datasets by URL.
//! - `experimental`: makes public the internals that are not a stable API: `encoding` (the
//!   page value and level codecs), `page` (the page reader and chunk walking) and
//!   `compression` (the codecs). Tools that look inside files (the `parq` CLI's `pages` and
//!   `check`), the benchmarks, the fuzz targets and the tests turn it on; they may change in
//!   any release.

pub use parq_format as format;
pub use parq_format::{Error, ErrorKind, Frame, Result};

pub use read::{
    col, parse_filter, AsyncParquetReader, AsyncRecordBatches, ParquetReader, Predicate,
    ReadOptions, RecordBatches,
};
pub use write::{ParquetWriter, WriterProperties};

/// Declares internal modules: public with the feature `experimental`, crate-private without
/// it (their items that only outside users call are then unused, hence `allow(dead_code)`).
macro_rules! internal_mods {
    ($($(#[$attr:meta])* $name:ident;)*) => {$(
        $(#[$attr])*
        #[cfg(feature = "experimental")]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "experimental"))]
        #[allow(dead_code, unused_imports)]
        pub(crate) mod $name;
    )*};
}

internal_mods! {
    compression;
    encoding;
    page;
}

pub mod bloom;
pub mod dataset;
pub mod edit;
mod error;
pub mod file;
pub mod keytools;
pub mod read;
pub mod schema;
pub mod variant;
pub mod wkb;
pub mod workers;
pub mod write;

/// The README's `rust` examples, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
