//! parq: a fast, complete Apache Parquet implementation.
//!
//! Read flow ([`read`]): byte ranges -> footer ([`format::footer`]) -> chosen columns x row
//! groups, pruned by a filter's statistics, Bloom filters ([`bloom`]) and page index -> pages
//! ([`page`], [`compression`]) -> level and value decoders ([`encoding`]) -> Arrow arrays ->
//! RecordBatch, for flat and nested schemas.
//! Write flow ([`write`]): properties -> per-leaf column writer (levels, values, encoders,
//! pages, statistics, Bloom filters) -> chunk -> row group -> footer with the page index.
//!
//! ```no_run
//! use parq::{col, ParquetReader, ParquetWriter, WriterProperties};
//!
//! // Read two columns of the rows whose `id` is below 100.
//! let reader = ParquetReader::open("in.parquet")?
//!     .with_columns(["id", "name"])
//!     .with_filter(col("id").lt(100i64));
//! let batches = reader.read_all()?;
//!
//! // Write them to another file.
//! let file = std::fs::File::create("out.parquet")?;
//! let mut writer = ParquetWriter::try_new(file, reader.schema()?, WriterProperties::default())?;
//! for batch in &batches {
//!     writer.write(batch)?;
//! }
//! writer.close()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use parq_format as format;
pub use parq_format::{Error, ErrorKind, Result};

pub use read::{
    col, parse_filter, AsyncParquetReader, ParquetReader, Predicate, ReadOptions, RecordBatches,
};
pub use write::{ParquetWriter, WriterProperties};

pub mod bloom;
pub mod compression;
pub mod dataset;
pub mod encoding;
mod error;
pub mod file;
pub mod keytools;
pub mod page;
pub mod read;
pub mod schema;
pub mod workers;
pub mod write;
