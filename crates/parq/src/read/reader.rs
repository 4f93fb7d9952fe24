//! [`ParquetReader`]: a file (a path, or its bytes) -> Arrow `RecordBatch`es.
//!
//! ```no_run
//! use parq::read::ParquetReader;
//!
//! let reader = ParquetReader::open("data.parquet")?
//!     .with_columns(["id", "name"])
//!     .with_row_groups([0, 2])
//!     .with_batch_size(8192);
//! for batch in reader.batches()? {
//!     let batch = batch?;
//!     println!("{} rows", batch.num_rows());
//! }
//! # Ok::<(), parq::Error>(())
//! ```
//!
//! Each row group's column chunks are decoded whole, and the row group is then sliced
//! (zero-copy) into batches of `batch_size` rows; a batch never spans two row groups (the
//! last batch of a row group may be shorter). A row group holds what its chunks hold, at most
//! its `num_rows` (and each chunk at most its `num_values`), as pyarrow reads row groups whose
//! counts disagree; every chosen column must then hold as many rows. [`ParquetReader::read_batch`]
//! decodes every chosen row group of a column into one array instead. Files are read into
//! memory whole ([`ParquetReader::open`]).

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;

use super::column::{ColumnDecoder, ColumnOptions, ColumnSpec};
use crate::format::footer::{decode_file_metadata, DecodeOptions};
use crate::format::metadata::{Encoding, FileMetaData, PhysicalType};
use crate::page::needs_legacy_dictionary_padding;
use crate::schema::{arrow_schema, ArrowSchemaOptions, FieldNode};
use crate::{Error, ErrorKind, Result};

/// A column to read: a top-level field by index (in the file's Arrow schema, which for a
/// flat file is also the leaf index) or by dotted path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ColumnSelection {
    /// The top-level field at this index.
    Index(usize),
    /// The field with this (dotted) path.
    Path(String),
}

impl From<usize> for ColumnSelection {
    fn from(i: usize) -> Self {
        ColumnSelection::Index(i)
    }
}

impl From<&str> for ColumnSelection {
    fn from(p: &str) -> Self {
        ColumnSelection::Path(p.to_string())
    }
}

impl From<String> for ColumnSelection {
    fn from(p: String) -> Self {
        ColumnSelection::Path(p)
    }
}

/// How string (Parquet STRING / UTF8) columns are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StringType {
    /// `Utf8` (32-bit offsets), or what the file's `ARROW:schema` asks for. Default.
    #[default]
    Utf8,
    /// `Utf8View`: views into the decoded value buffer.
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

/// Options of a [`ParquetReader`].
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
        }
    }
}

/// Reads a Parquet file into Arrow record batches: see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct ParquetReader {
    data: Bytes,
    meta: Arc<FileMetaData>,
    options: ReadOptions,
    columns: Option<Vec<ColumnSelection>>,
    row_groups: Option<Vec<usize>>,
}

/// One chosen column: its output field and what to decode.
#[derive(Debug, Clone)]
struct Planned {
    field: Field,
    spec: ColumnSpec,
}

impl ParquetReader {
    /// Reads the file at `path` into memory and decodes its footer.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let data = std::fs::read(path.as_ref())
            .map_err(|e| Error::new(ErrorKind::Io(format!("{}: {e}", path.as_ref().display()))))?;
        Self::from_bytes(Bytes::from(data))
    }

    /// A reader of the file held in `data`.
    pub fn from_bytes(data: Bytes) -> Result<Self> {
        let meta = decode_file_metadata(&data, &DecodeOptions::default())?;
        Ok(ParquetReader {
            data,
            meta: Arc::new(meta),
            options: ReadOptions::default(),
            columns: None,
            row_groups: None,
        })
    }

    /// Sets all options.
    pub fn with_options(mut self, options: ReadOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the batch size in rows (at least 1).
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.options.batch_size = rows.max(1);
        self
    }

    /// Sets how string columns are read.
    pub fn with_strings(mut self, strings: StringType) -> Self {
        self.options.strings = strings;
        self
    }

    /// Sets which string / binary columns are read as Arrow dictionaries.
    pub fn with_dictionary(mut self, dictionary: DictionaryColumns) -> Self {
        self.options.dictionary = dictionary;
        self
    }

    /// Sets whether page CRCs are verified.
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.options.verify_crc = verify;
        self
    }

    /// Sets what to do with strings that are not valid UTF-8.
    pub fn with_invalid_utf8(mut self, invalid_utf8: InvalidUtf8) -> Self {
        self.options.invalid_utf8 = invalid_utf8;
        self
    }

    /// Reads only these columns, in this order (default: all).
    pub fn with_columns<C: Into<ColumnSelection>>(
        mut self,
        columns: impl IntoIterator<Item = C>,
    ) -> Self {
        self.columns = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// Reads only these row groups, in this order (default: all).
    pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
        self.row_groups = Some(row_groups.into_iter().collect());
        self
    }

    /// The decoded footer.
    pub fn metadata(&self) -> &FileMetaData {
        &self.meta
    }

    /// The options in force.
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The Arrow schema of the batches (the chosen columns).
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(self.plan()?.0)
    }

    /// The chosen row groups, checked.
    fn chosen_row_groups(&self) -> Result<Vec<usize>> {
        let n = self.meta.row_groups().len();
        match &self.row_groups {
            None => Ok((0..n).collect()),
            Some(list) => {
                for &rg in list {
                    if rg >= n {
                        return Err(Error::new(ErrorKind::OutOfBounds {
                            what: "row group",
                            index: rg as u64,
                            len: n as u64,
                        }));
                    }
                }
                Ok(list.clone())
            }
        }
    }

    /// The output schema and the columns to decode.
    fn plan(&self) -> Result<(SchemaRef, Vec<Planned>)> {
        let conversion = arrow_schema(&self.meta, &self.options.schema)?;
        let fields = &conversion.fields;
        let chosen: Vec<&FieldNode> = match &self.columns {
            None => fields.iter().collect(),
            Some(list) => list
                .iter()
                .map(|c| self.resolve(fields, c))
                .collect::<Result<_>>()?,
        };
        let mut planned = Vec::with_capacity(chosen.len());
        for node in chosen {
            planned.push(self.plan_field(node)?);
        }
        let schema = Schema::new_with_metadata(
            planned.iter().map(|p| p.field.clone()).collect::<Vec<_>>(),
            conversion.schema.metadata().clone(),
        );
        Ok((Arc::new(schema), planned))
    }

    fn resolve<'f>(&self, fields: &'f [FieldNode], c: &ColumnSelection) -> Result<&'f FieldNode> {
        match c {
            ColumnSelection::Index(i) => fields.get(*i).ok_or_else(|| {
                Error::new(ErrorKind::OutOfBounds {
                    what: "column",
                    index: *i as u64,
                    len: fields.len() as u64,
                })
            }),
            ColumnSelection::Path(p) => {
                if let Some(f) = fields.iter().find(|f| f.field.name() == p) {
                    return Ok(f);
                }
                let schema = self.meta.schema();
                let nested_leaf = schema.leaf_index(p).is_some();
                let nested_field = p.contains('.')
                    && fields.iter().any(|f| {
                        p.strip_prefix(f.field.name().as_str())
                            .is_some_and(|rest| rest.starts_with('.'))
                    });
                if nested_leaf || nested_field {
                    return Err(Error::new(ErrorKind::Unsupported(format!(
                        "nested columns are not supported yet: {p}"
                    ))));
                }
                Err(Error::new(ErrorKind::Inconsistent(format!(
                    "no column `{p}` in the file"
                ))))
            }
        }
    }

    fn plan_field(&self, node: &FieldNode) -> Result<Planned> {
        let name = node.field.name();
        let schema = self.meta.schema();
        let leaf = match node.leaf {
            Some(leaf) if node.children.is_empty() && node.rep_level == 0 => leaf,
            _ => {
                return Err(Error::new(ErrorKind::Unsupported(format!(
                    "nested columns are not supported yet: {name}"
                ))))
            }
        };
        let info = schema.leaves().get(leaf).copied().ok_or_else(|| {
            Error::new(ErrorKind::OutOfBounds {
                what: "leaf column",
                index: leaf as u64,
                len: schema.leaves().len() as u64,
            })
        })?;
        let element = schema.leaf_element(leaf).ok_or_else(|| {
            Error::new(ErrorKind::Inconsistent(format!(
                "no schema element for leaf {leaf}"
            )))
        })?;
        let physical = element.physical_type.unwrap_or(PhysicalType::Unknown(-1));
        let type_length = element
            .type_length
            .and_then(|l| usize::try_from(l).ok())
            .unwrap_or(0);
        let mut field = node.field.clone();
        let byte_array = matches!(
            field.data_type(),
            DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary
        ) && physical == PhysicalType::ByteArray;
        if byte_array && self.wants_dictionary(name, leaf)? {
            let t = DataType::Dictionary(
                Box::new(DataType::Int32),
                Box::new(field.data_type().clone()),
            );
            field = field.with_data_type(t);
        }
        if self.options.strings == StringType::Utf8View && *field.data_type() == DataType::Utf8 {
            field = field.with_data_type(DataType::Utf8View);
        }
        if self.options.invalid_utf8 == InvalidUtf8::Binary {
            let t = strings_as_binary(field.data_type());
            field = field.with_data_type(t);
        }
        let spec = ColumnSpec {
            leaf,
            path: schema.leaf_path_string(leaf),
            physical,
            type_length,
            max_def_level: info.max_def_level,
            max_rep_level: info.max_rep_level,
            data_type: field.data_type().clone(),
        };
        Ok(Planned { field, spec })
    }

    /// Whether the byte-array column `name` (leaf `leaf`) is read as a dictionary by option.
    fn wants_dictionary(&self, name: &str, leaf: usize) -> Result<bool> {
        Ok(match &self.options.dictionary {
            DictionaryColumns::FromSchema => false,
            DictionaryColumns::Named(names) => names.iter().any(|n| n == name),
            DictionaryColumns::Encoded => {
                let groups = self.meta.row_groups();
                self.chosen_row_groups()?.iter().all(|&rg| {
                    groups[rg].columns().get(leaf).is_some_and(|c| {
                        c.dictionary_page_offset().is_some()
                            || c.encodings().contains(Encoding::PlainDictionary)
                            || c.encodings().contains(Encoding::RleDictionary)
                    })
                })
            }
        })
    }

    fn column_options(&self) -> ColumnOptions {
        ColumnOptions {
            verify_crc: self.options.verify_crc,
            legacy_dictionary_padding: needs_legacy_dictionary_padding(
                self.meta.created_by().as_deref(),
            ),
        }
    }

    /// An iterator of record batches over the chosen row groups and columns.
    pub fn batches(&self) -> Result<RecordBatches<'_>> {
        let (schema, planned) = self.plan()?;
        let row_groups = self.chosen_row_groups()?;
        let options = self.column_options();
        let decoders = planned
            .into_iter()
            .map(|p| ColumnDecoder::new(p.spec, options))
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatches {
            reader: self,
            schema,
            decoders,
            row_groups,
            next_row_group: 0,
            current: None,
            failed: false,
        })
    }

    /// Every batch, in a vector.
    pub fn read_all(&self) -> Result<Vec<RecordBatch>> {
        self.batches()?.collect()
    }

    /// Everything chosen, as one batch (each column's chunks decoded into one array).
    pub fn read_batch(&self) -> Result<RecordBatch> {
        let (schema, planned) = self.plan()?;
        let row_groups = self.chosen_row_groups()?;
        let options = self.column_options();
        // Rows per chosen row group: what the first column's chunks hold (the metadata's
        // `num_rows` when no column is chosen); every other column must hold as many.
        let mut rows_per_group: Option<Vec<usize>> = None;
        let mut first = String::new();
        let mut arrays = Vec::with_capacity(planned.len());
        for p in planned {
            let mut decoder = ColumnDecoder::new(p.spec, options)?;
            let leaf = decoder.spec().leaf;
            let groups = self.meta.row_groups();
            decoder.reserve_chunks(
                row_groups
                    .iter()
                    .filter_map(|&rg| groups.get(rg).and_then(|g| g.columns().get(leaf))),
                self.meta.buf(),
                self.data.len(),
            );
            let mut counts = Vec::with_capacity(row_groups.len());
            for &rg in &row_groups {
                let before = decoder.len();
                self.decode_chunk(&mut decoder, rg)?;
                counts.push(decoder.len() - before);
            }
            match &rows_per_group {
                None => {
                    rows_per_group = Some(counts);
                    first = decoder.spec().path.clone();
                }
                Some(want) => {
                    for ((&rg, &want), &got) in row_groups.iter().zip(want).zip(&counts) {
                        check_rows(&decoder, rg, got, want, &first)?;
                    }
                }
            }
            arrays.push(decoder.finish()?);
        }
        let rows = match rows_per_group {
            Some(counts) => counts.iter().sum(),
            None => {
                let mut rows = 0usize;
                for &rg in &row_groups {
                    rows = rows.saturating_add(row_group_rows(&self.meta, rg)?);
                }
                rows
            }
        };
        make_batch(schema, arrays, rows)
    }

    /// Decodes the chunk of `decoder`'s column in row group `rg`: at most the row group's
    /// `num_rows` rows (see [`ColumnDecoder::decode_chunk`]).
    fn decode_chunk(&self, decoder: &mut ColumnDecoder, rg: usize) -> Result<()> {
        let leaf = decoder.spec().leaf;
        let group = &self.meta.row_groups()[rg];
        let chunk = group.columns().get(leaf).ok_or_else(|| {
            Error::new(ErrorKind::OutOfBounds {
                what: "column chunk",
                index: leaf as u64,
                len: group.columns().len() as u64,
            })
            .in_element("row group", u32::try_from(rg).unwrap_or(u32::MAX))
        })?;
        if chunk.extras().is_some_and(|e| e.crypto_metadata.is_some()) {
            // Pages of an encrypted column cannot be read without its keys (as pyarrow and
            // DuckDB refuse such a column), even when the footer is plaintext.
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "column `{}` is encrypted (column crypto metadata); decryption is not supported",
                decoder.spec().path
            )))
            .in_element("row group", u32::try_from(rg).unwrap_or(u32::MAX)));
        }
        if chunk.file_path().is_some() {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "column chunks in other files (file_path) are not supported yet: {}",
                decoder.spec().path
            ))));
        }
        // A flat column holds one value per row: no more rows than the chunk's `num_values`
        // either (as pyarrow reads a chunk whose count is short).
        let max_rows =
            row_group_rows(&self.meta, rg)?.min(usize::try_from(chunk.num_values()).unwrap_or(0));
        decoder.decode_chunk(&self.data, 0, chunk, self.meta.buf(), rg, max_rows)
    }
}

/// `t` with its strings as binary: see [`InvalidUtf8::Binary`].
fn strings_as_binary(t: &DataType) -> DataType {
    match t {
        DataType::Utf8 => DataType::Binary,
        DataType::LargeUtf8 => DataType::LargeBinary,
        DataType::Utf8View => DataType::BinaryView,
        DataType::Dictionary(k, v) => {
            DataType::Dictionary(k.clone(), Box::new(strings_as_binary(v)))
        }
        other => other.clone(),
    }
}

fn row_group_rows(meta: &FileMetaData, rg: usize) -> Result<usize> {
    let n = meta.row_groups()[rg].num_rows();
    usize::try_from(n).map_err(|_| {
        Error::new(ErrorKind::InvalidValue {
            what: "num_rows",
            value: n,
        })
        .in_element("row group", u32::try_from(rg).unwrap_or(u32::MAX))
    })
}

/// Checks that `decoder`'s column holds as many rows (`got`) in row group `rg` as the first
/// column decoded (`rows`), whose name `first` gives (for the message).
fn check_rows(
    decoder: &ColumnDecoder,
    rg: usize,
    got: usize,
    rows: usize,
    first: &str,
) -> Result<()> {
    if got != rows {
        return Err(Error::new(ErrorKind::Inconsistent(format!(
            "column `{}` holds {got} rows in row group {rg}, column `{first}` {rows}",
            decoder.spec().path
        ))));
    }
    Ok(())
}

fn make_batch(schema: SchemaRef, arrays: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, arrays, &options)
        .map_err(|e| Error::new(ErrorKind::Inconsistent(e.to_string())))
}

/// The batches of a [`ParquetReader`] ([`ParquetReader::batches`]).
#[derive(Debug)]
pub struct RecordBatches<'r> {
    reader: &'r ParquetReader,
    schema: SchemaRef,
    decoders: Vec<ColumnDecoder>,
    row_groups: Vec<usize>,
    next_row_group: usize,
    /// The decoded row group being sliced, and the next row to hand out.
    current: Option<(RecordBatch, usize)>,
    failed: bool,
}

impl RecordBatches<'_> {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Decodes the next row group with rows; `None` after the last.
    fn load_next(&mut self) -> Result<Option<RecordBatch>> {
        while let Some(&rg) = self.row_groups.get(self.next_row_group) {
            self.next_row_group += 1;
            // The rows are what the chunks hold: a row group's `num_rows` that disagrees
            // with them (as some writers leave it) is not trusted, as in pyarrow.
            let mut rows = match self.decoders.is_empty() {
                true => Some(row_group_rows(&self.reader.meta, rg)?),
                false => None,
            };
            let mut arrays = Vec::with_capacity(self.decoders.len());
            let mut first = String::new();
            for decoder in &mut self.decoders {
                self.reader.decode_chunk(decoder, rg)?;
                match rows {
                    None => {
                        rows = Some(decoder.len());
                        first = decoder.spec().path.clone();
                    }
                    Some(r) => check_rows(decoder, rg, decoder.len(), r, &first)?,
                }
                arrays.push(decoder.finish()?);
            }
            let rows = rows.unwrap_or(0);
            if rows == 0 {
                continue;
            }
            return make_batch(self.schema.clone(), arrays, rows).map(Some);
        }
        Ok(None)
    }
}

impl Iterator for RecordBatches<'_> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let batch_size = self.reader.options.batch_size.max(1);
        loop {
            if let Some((batch, offset)) = &mut self.current {
                if *offset < batch.num_rows() {
                    let n = batch_size.min(batch.num_rows() - *offset);
                    let out = if *offset == 0 && n == batch.num_rows() {
                        batch.clone()
                    } else {
                        batch.slice(*offset, n)
                    };
                    *offset += n;
                    return Some(Ok(out));
                }
                self.current = None;
            }
            match self.load_next() {
                Ok(Some(batch)) => self.current = Some((batch, 0)),
                Ok(None) => return None,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
