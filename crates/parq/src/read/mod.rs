//! Reading Parquet into Arrow: columns of any nesting into arrays, files into
//! `RecordBatch`es of a chosen number of rows. The flow, file by file, is in `README.md`
//! beside this file; this module only declares the folders and re-exports what users call.
//!
//! - [`ParquetReader`] (positional sources: files, bytes in memory, any [`RangeRead`]) and
//!   [`AsyncParquetReader`] (any [`AsyncRangeRead`]; [`ObjectStoreSource`] with the
//!   `object_store` feature) yield [`RecordBatches`] / [`AsyncRecordBatches`];
//!   [`ParquetDecoder`] is the IO-free core both drive, built by [`ParquetDecoderBuilder`].
//! - What is read: [`ReadOptions`], columns ([`ColumnSelection`]), rows ([`RowSelection`]),
//!   filters ([`Predicate`], or SQL text through [`parse_filter`]).
//! - `io/`: sources and buffers kept between reads; `plan/`: the fields and rows chosen;
//!   `filter/`: predicates and pruning; `decode/`: one leaf column's pages into arrays;
//!   `exec/`: the decoder, late materialization and threads.
//!
//! Every leaf of every physical type and encoding (PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY,
//! RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
//! BYTE_STREAM_SPLIT), v1 and v2 data pages, every codec but LZO, inside
//! structs, lists and maps at any depth (the legacy list and map layouts included), into the
//! Arrow type pyarrow 26 gives it (including what an embedded `ARROW:schema` restores: time
//! zones, Duration, LargeUtf8/LargeBinary, Utf8View/BinaryView, Decimal32/64, LargeList,
//! FixedSizeList, Dictionary of strings or binary), and strings as Utf8View on request.
//!
//! Only the byte ranges the chosen columns and row groups need are read.

mod async_reader;
mod decode;
mod error;
pub(crate) mod exec;
pub(crate) mod filter;
pub(crate) mod io;
mod options;
mod plan;
mod reader;

pub use async_reader::{AsyncParquetReader, AsyncRecordBatches};
pub use decode::leaf::ColumnOptions;
pub use exec::builder::ParquetDecoderBuilder;
pub use exec::decoder::{DecodeStep, ParquetDecoder};
pub use exec::stats::ReadStats;
pub use filter::predicate::{col, CmpOp, Column, Literal, Predicate};
pub use filter::sql::parse_filter;
pub use io::mapped::MappedFile;
#[cfg(feature = "object_store")]
pub use io::object_store::ObjectStoreSource;
pub use io::pool::release_buffers;
pub use io::projected::OpenedFooter;
pub use io::source::{read_footer, AsyncRangeRead, FileSource, RangeRead};
pub use options::{DictionaryColumns, InvalidUtf8, ReadOptions, StringType};
pub use plan::fields::{ColumnSelection, ColumnSpec};
pub use plan::selection::RowSelection;
pub use reader::{BatchReader, ParquetReader, RecordBatches};
