//! Reading Parquet into Arrow: columns of any nesting into arrays, files into
//! `RecordBatch`es of a chosen number of rows. The flow is in `README.md` beside this file.
//!
//! - [`reader`]: [`ParquetReader`], the file-level API (columns by index or path, row
//!   groups, batch size, string representation), yielding [`RecordBatches`].
//! - [`options`]: the options of a read ([`ReadOptions`]); [`predicate`]: [`Predicate`], a
//!   filter on rows, and `filter`: a predicate bound to a read, evaluated on batches and on
//!   row-group statistics (`stats`: statistics as bounds); [`sql`]: SQL filter expressions to predicates.
//! - [`decoder`]: [`ParquetDecoder`], the IO-free core: byte ranges needed in, bytes pushed,
//!   batches out; [`source`]: [`RangeRead`], positional reads of files or bytes in memory;
//!   `pool`: buffers kept from one read to the next (file ranges, decompressed pages, and
//!   the buffers of arrays handed out, once dropped);
//!   [`async_reader`]: [`AsyncParquetReader`] over any [`AsyncRangeRead`]; `object_store`
//!   (feature `object_store`): `ObjectStoreSource`, an object store as an [`AsyncRangeRead`];
//!   `late`: a filter's columns decoded first, the others only for the rows it keeps;
//!   `threads`: leaves decoded side by side; `parallel`: row groups decoded side by side.
//! - `plan`: the chosen fields as a tree of nodes over leaf columns, with their levels.
//! - `leaf`: one leaf column, page by page, into arrays of whole records and their levels;
//!   `chunk`: a chunk's metadata as a leaf reads it (which chunk, refusals, pre-sizing).
//! - `values` / `bytes` / `dict` / `views`: the decoded values of a leaf by physical type
//!   (byte arrays as offsets, as dictionary keys, as views); `spread`:
//!   the bit kernels placing values and validity; `levels`: masks of levels and the slots,
//!   validity and offsets they give; [`convert`]: physical values into the
//!   leaf's Arrow type; `nested`: struct, list and map arrays from levels; `error`: what the
//!   stages share.
//!
//! Every leaf of every physical type and encoding (PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY,
//! RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
//! BYTE_STREAM_SPLIT), v1 and v2 data pages, every codec of [`crate::compression`], inside
//! structs, lists and maps at any depth (the legacy list and map layouts included), into the
//! Arrow type pyarrow 26 gives it (including what an embedded `ARROW:schema` restores: time
//! zones, Duration, LargeUtf8/LargeBinary, Utf8View/BinaryView, Decimal32/64, LargeList,
//! FixedSizeList, Dictionary of strings or binary), and strings as Utf8View on request.
//!
//! Only the byte ranges the chosen columns and row groups need are read ([`decoder`]: an
//! IO-free decoder that asks for byte ranges; [`source`]: positional reads of files).

pub mod async_reader;
mod builder;
mod bytes;
mod chunk;
pub mod convert;
pub mod decoder;
mod dict;
mod error;
mod filter;
mod late;
mod leaf;
mod levels;
mod nested;
#[cfg(feature = "object_store")]
pub mod object_store;
pub mod options;
mod parallel;
mod plan;
mod pool;
pub mod predicate;
pub mod reader;
mod selection;
pub mod source;
mod spread;
pub mod sql;
mod stats;
mod threads;
mod values;
mod views;

pub use async_reader::{AsyncParquetReader, AsyncRangeRead, AsyncRecordBatches};
pub use builder::ParquetDecoderBuilder;
pub use decoder::{DecodeStep, ParquetDecoder, ReadStats};
pub use leaf::ColumnOptions;
#[cfg(feature = "object_store")]
pub use object_store::ObjectStoreSource;
pub use options::{DictionaryColumns, InvalidUtf8, ReadOptions, StringType};
pub use plan::{ColumnSelection, ColumnSpec};
pub use pool::release_buffers;
pub use predicate::{col, CmpOp, Literal, Predicate};
pub use reader::{ParquetReader, RecordBatches};
pub use selection::RowSelection;
pub use source::{FileSource, RangeRead};
