//! The options of a read: [`ReadOptions`] and the choices it holds (string representation,
//! dictionary columns, invalid UTF-8, batch size, CRC checks, schema conversion, how many
//! bytes are fetched at a time, Bloom filters, dictionary filters, threads).

use crate::schema::ArrowSchemaOptions;

/// How string (Parquet STRING / UTF8) columns are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StringType {
    /// `Utf8` (32-bit offsets), or what the file's `ARROW:schema` asks for. Default.
    #[default]
    Utf8,
    /// `Utf8View`: the values of dictionary-encoded pages are views into the chunk's
    /// dictionary page, decoded once and shared by every batch (no string is copied; 3.7x
    /// faster than `Utf8` on the `tag` column of `parq-bench scan`); the values of PLAIN
    /// pages are views into the page's own bytes, which the arrays keep (no string copied
    /// either); other pages' values are decoded into a buffer the views point into. What
    /// query engines such as DataFusion read strings as.
    Utf8View,
}

/// Which string and binary columns are read as Arrow `Dictionary(Int32, _)` arrays, built
/// from the Parquet dictionary pages without gathering or hashing a value (like pyarrow's
/// `read_dictionary`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DictionaryColumns {
    /// Only those the file's `ARROW:schema` says are dictionaries. Default.
    #[default]
    FromSchema,
    /// Also every string / binary column whose chosen chunks all have a dictionary page.
    Encoded,
    /// Also these string / binary columns (by name).
    Named(Vec<String>),
}

/// What to do with string columns whose values are not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InvalidUtf8 {
    /// Read string columns as strings; a value that is not valid UTF-8 is an error naming
    /// the column, row group and row. Default.
    #[default]
    Error,
    /// Read every string column as binary (`Utf8` as `Binary`, `LargeUtf8` as
    /// `LargeBinary`, `Utf8View` as `BinaryView`, dictionaries of strings as dictionaries of
    /// binary), without validation, so that data a writer stored as strings but that is not
    /// UTF-8 can be read at all.
    Binary,
}

/// Options of a [`ParquetReader`](crate::read::ParquetReader).
///
/// Given whole with `with_options`, or one at a time with `with_batch_size`,
/// `with_strings`, `with_threads`, ... on the readers.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// # use parq::{ParquetWriter, WriterProperties};
/// # let path = std::env::temp_dir().join("parq-doc-options.parquet");
/// # let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100));
/// # let names = (0..100).map(|i| format!("n{i}"));
/// # let names: ArrayRef = Arc::new(StringArray::from_iter_values(names));
/// # let batch = RecordBatch::try_from_iter([("id", ids), ("name", names)]).unwrap();
/// # let props = WriterProperties::builder().max_row_group_rows(Some(40)).build().unwrap();
/// # let file = std::fs::File::create(&path).unwrap();
/// # let mut w = ParquetWriter::try_new(file, batch.schema(), props).unwrap();
/// # w.write(&batch).unwrap();
/// # w.close().unwrap();
/// use arrow_schema::DataType;
/// use parq::read::{ParquetReader, ReadOptions, StringType};
///
/// let options = ReadOptions {
///     batch_size: 30,
///     strings: StringType::Utf8View, // strings as views, no string copied
///     threads: 2,                    // two row groups decoded at a time
///     ..ReadOptions::default()
/// };
/// let batches = ParquetReader::open(&path)?.with_options(options).read_all()?;
/// assert_eq!(batches[0].num_rows(), 30);
/// assert_eq!(batches[0].schema().field(1).data_type(), &DataType::Utf8View);
/// # Ok::<(), parq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// Rows per batch (at least 1). Default 65536.
    pub batch_size: usize,
    /// How string columns are read.
    pub strings: StringType,
    /// Which string / binary columns are read as Arrow dictionaries.
    pub dictionary: DictionaryColumns,
    /// What to do with strings that are not valid UTF-8.
    pub invalid_utf8: InvalidUtf8,
    /// Verify page CRCs when pages have them: a page whose CRC does not match is then an
    /// error naming it. Default false, as pyarrow, parquet-java and DuckDB (files of several
    /// real writers carry wrong CRCs over intact data).
    pub verify_crc: bool,
    /// Parquet -> Arrow schema options (INT96 unit, use of the embedded `ARROW:schema`).
    pub schema: ArrowSchemaOptions,
    /// The most bytes of a column chunk asked for at a time (a page that is larger is asked
    /// for whole): about what a read holds of each chosen column. Default 4 MiB.
    pub fetch_bytes: u64,
    /// Byte ranges needed at the same time that lie closer than this are fetched as one
    /// (the gap is read too). Default 8 KiB, pyarrow's hole size: a positional read costs
    /// about what copying that many more bytes does. Object stores coalesce their own way on
    /// top.
    pub coalesce_bytes: u64,
    /// Read the Bloom filters of a filter's `=` and `IN` columns (of the row groups their
    /// statistics leave) and skip the row groups whose filters rule every value out.
    /// Default true.
    pub bloom_filters: bool,
    /// Read the dictionary pages of a filter's compared columns (of the row groups the
    /// statistics and Bloom filters leave, where every data page of the chunk is
    /// dictionary-encoded) and skip the row groups in which no entry satisfies a
    /// comparison the filter needs (as parquet-java's dictionary filter). Default true.
    pub dictionary_filters: bool,
    /// How many jobs of the read may run at once on the process's worker pool
    /// ([`crate::workers`]): row groups or the columns of a batch decoded side by side (at
    /// least 1; the rows are the same as with one, and without a filter the batches too).
    /// Default 1.
    pub threads: usize,
    /// Keep Variant columns shredded: the physical struct of `metadata`, `value` and
    /// `typed_value` (with the `arrow.parquet.variant` extension type) instead of
    /// `struct<metadata, value>` with each row's value rebuilt in the binary encoding.
    /// Default false.
    pub variant_shredded: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            batch_size: 65536,
            strings: StringType::Utf8,
            dictionary: DictionaryColumns::FromSchema,
            invalid_utf8: InvalidUtf8::Error,
            verify_crc: false,
            schema: ArrowSchemaOptions::default(),
            fetch_bytes: 4 << 20,
            coalesce_bytes: 8 << 10,
            bloom_filters: true,
            dictionary_filters: true,
            threads: 1,
            variant_shredded: false,
        }
    }
}
