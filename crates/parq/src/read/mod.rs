//! Reading Parquet into Arrow: flat columns into arrays, files into `RecordBatch`es.
//!
//! ```text
//! file bytes -> footer -> Arrow schema (parq::schema) -> chosen columns x row groups
//!   -> per column chunk: PageReader -> levels + values -> ColumnDecoder -> ArrayRef
//!   -> RecordBatch (sliced into batches of batch_size rows)
//! ```
//!
//! - [`reader`]: [`ParquetReader`], the file-level API (columns by index or path, row
//!   groups, batch size, string representation), yielding [`RecordBatches`].
//! - [`column`]: [`ColumnDecoder`], the column chunks of one flat leaf into one array.
//! - `values` / `bytes`: the decoded values of a column by physical type (dictionary,
//!   dense decoding per encoding, spreading over null slots by `spread`); `dict`: byte
//!   arrays kept dictionary-encoded as Arrow `Dictionary` arrays.
//! - [`convert`]: physical values into the leaf's Arrow type.
//!
//! Supported today: every flat leaf (required or optional, max repetition level 0) of every
//! physical type and encoding (PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY, RLE booleans,
//! DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT), v1
//! and v2 data pages, every codec of [`crate::compression`], into the Arrow type pyarrow 26
//! gives it (including what an embedded `ARROW:schema` restores: time zones, Duration,
//! LargeUtf8/LargeBinary, Utf8View/BinaryView, Decimal32/64, Dictionary of strings or
//! binary), and strings as Utf8View on request.
//!
//! Not yet: nested columns (structs, lists, maps: an [`crate::ErrorKind::Unsupported`]
//! error naming the column), batches that span row groups, reading only the byte ranges
//! needed (the whole file is in memory), and page-index based row selection.

mod bytes;
pub mod column;
pub mod convert;
mod dict;
pub mod reader;
mod spread;
mod values;

pub use column::{ColumnDecoder, ColumnOptions, ColumnSpec};
pub use reader::{
    ColumnSelection, DictionaryColumns, InvalidUtf8, ParquetReader, ReadOptions, RecordBatches,
    StringType,
};
