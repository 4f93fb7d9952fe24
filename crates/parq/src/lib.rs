//! parq: a fast, complete Apache Parquet implementation.
//!
//! Read flow ([`read`]): byte ranges -> footer ([`format::footer`]) -> chosen columns x row
//! groups, pruned by a filter's statistics, Bloom filters ([`bloom`]) and page index -> pages
//! ([`page`], [`compression`]) -> level and value decoders ([`encoding`]) -> Arrow arrays ->
//! RecordBatch, for flat and nested schemas.
//! Write flow ([`write`]): properties -> per-leaf column writer (levels, values, encoders,
//! pages, statistics, Bloom filters) -> chunk -> row group -> footer with the page index.

pub use parq_format as format;
pub use parq_format::{Error, ErrorKind, Result};

pub mod bloom;
pub mod compression;
pub mod encoding;
pub mod file;
pub mod page;
pub mod read;
pub mod schema;
pub mod write;
