//! Reading Parquet into Arrow: columns of any nesting into arrays, files into
//! `RecordBatch`es of a chosen number of rows. The flow is in `README.md` beside this file.
//!
//! - [`reader`]: [`ParquetReader`], the file-level API (columns by index or path, row
//!   groups, batch size, string representation), yielding [`RecordBatches`].
//! - [`options`]: the options of a read ([`ReadOptions`]).
//! - `plan`: the chosen fields as a tree of nodes over leaf columns, with their levels.
//! - `leaf`: one leaf column, page by page, into arrays of whole records and their levels.
//! - `values` / `bytes` / `dict`: the decoded values of a leaf by physical type; `spread`:
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
//! Not yet: reading only the byte ranges needed (the whole file is in memory) and
//! page-index based row selection.

mod bytes;
pub mod convert;
mod dict;
mod error;
mod leaf;
mod levels;
mod nested;
pub mod options;
mod plan;
pub mod reader;
mod spread;
mod values;

pub use leaf::ColumnOptions;
pub use options::{DictionaryColumns, InvalidUtf8, ReadOptions, StringType};
pub use plan::{ColumnSelection, ColumnSpec};
pub use reader::{ParquetReader, RecordBatches};
