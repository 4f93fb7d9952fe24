//! parq-format: the Thrift compact protocol and the Parquet metadata model, with fast,
//! selective and lazy footer decoding. No I/O, no Arrow, no codecs.
//!
//! Read flow: file tail -> [`footer::FooterDecoder`] (push-style: it asks for byte ranges) ->
//! [`metadata::FileMetaData`] (or a [`footer::LazyFooter`] that decodes chunks on demand).

pub mod crypto;
pub mod error;
pub mod footer;
pub mod metadata;
pub mod thrift;

pub use error::{Error, ErrorKind, Frame, Result};
