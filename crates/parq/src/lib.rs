//! parq: a fast, complete Apache Parquet implementation.
//!
//! Read flow: bytes -> footer ([`format::footer`]) -> read plan -> byte ranges ->
//! CompressedPage -> Page -> level and value decoders -> Arrow arrays -> RecordBatch.
//! Today the crate reads and decodes footers (fully, selectively or lazily) and page indexes;
//! the data path lands next.

pub use parq_format as format;
pub use parq_format::{Error, ErrorKind, Result};

pub mod compression;
pub mod encoding;
pub mod file;
pub mod page;
pub mod read;
pub mod schema;
