//! parq: a fast, complete Apache Parquet implementation.
//!
//! Read flow ([`read`]): byte ranges -> footer ([`format::footer`]) -> chosen columns x row
//! groups, pruned by a filter's statistics, Bloom filters ([`bloom`]) and page index -> pages
//! ([`page`], [`compression`]) -> level and value decoders ([`encoding`]) -> Arrow arrays ->
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
//! [`format::footer`] decodes footers alone.

pub use parq_format as format;
pub use parq_format::{Error, ErrorKind, Result};

pub use read::{
    col, parse_filter, AsyncParquetReader, ParquetReader, Predicate, ReadOptions, RecordBatches,
};
pub use write::{ParquetWriter, WriterProperties};

pub mod bloom;
pub mod compression;
pub mod dataset;
pub mod edit;
pub mod encoding;
mod error;
pub mod file;
pub mod keytools;
pub mod page;
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
