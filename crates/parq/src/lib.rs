//! parq: a fast, complete Apache Parquet implementation.
//!
//! Read flow ([`read`]): bytes -> footer ([`format::footer`]) -> chosen columns x row groups
//! -> pages ([`page`], [`compression`]) -> level and value decoders ([`encoding`]) -> Arrow
//! arrays -> RecordBatch. Flat schemas are read completely; nested columns are next.
//! Write flow ([`write`]): properties -> per-leaf column writer -> chunk -> row group -> footer.
//! Being built: properties, statistics, page index and bloom filters exist; the encoders
//! ([`encoding`]) and the column / file writers come next.

pub use parq_format as format;
pub use parq_format::{Error, ErrorKind, Result};

pub mod compression;
pub mod encoding;
pub mod file;
pub mod page;
pub mod read;
pub mod schema;
pub mod write;
