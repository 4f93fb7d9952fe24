//! The file writer: [`ParquetWriter`] over any [`std::io::Write`].
//!
//! It owns the file layout: `PAR1`, then the row groups (each column's chunk written whole,
//! one column after the other, when the row group closes), then the Bloom filters, then the
//! page indexes (all column indexes, then all offset indexes), then the footer
//! (`FileMetaData`: schema, row groups, key-value metadata with `ARROW:schema`, `created_by`,
//! `column_orders`), its length and `PAR1`.
//!
//! Everything that can be refused is refused by [`ParquetWriter::try_new`] before the first
//! byte is written: types without a Parquet mapping, settings a column cannot take (see
//! [`WriterProperties::resolve`]), unknown column names. A row group is closed when it
//! reaches the row limit, or when the pages buffered for it reach the byte budget; only the
//! open row group's pages are held, and each column's buffers are released as soon as its
//! chunk is written. The rows of the last batch are held unencoded (see `held`) while they
//! fit the budget: when the row group closes with them, each column is encoded in turn with
//! its pages going straight to the output, so that a row group written from one batch is
//! never buffered. A closed row group is kept as its footer bytes, compressed (`groups`),
//! until the footer is written. With [`WriterProperties::threads`] above one, the columns
//! are encoded side by side (each whole column on one thread) into their buffers, then
//! written in order: the same bytes. After an error the writer refuses further calls (its
//! output is not a valid file).

use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Fields, SchemaRef};

use super::arrow_schema::to_parquet_schema;
use super::column::{ColumnWriter, Shared};
use super::held::{encoded_bound, may_hold, HeldRows};
use super::page_index::PageIndexWriter;
use super::properties::WriterProperties;
use super::statistics::StatsOrder;
use crate::format::crypto::FileEncryptor;
use crate::format::metadata::{Arena, ColumnOrder, FileMetaData, RowGroup, Schema};
use crate::{Error, ErrorKind, Result};
use columns::{Columns, Maker};
use groups::FinishedGroups;

/// The `version` written in the footer (format 2.x, as pyarrow 26 writes it).
const FORMAT_VERSION: i32 = 2;
/// Rows given to the columns at a time when a byte budget is set, so that the budget is
/// checked within large batches.
const BUDGET_SLICE_ROWS: usize = 64 * 1024;
/// The most bytes of dictionary hash tables the columns keep between their writes, all
/// together: each column keeps its share (see [`Shared::set_idle_table_bytes`]), so that a
/// wide schema's columns, each waiting while the others are written, hold small tables.
const IDLE_TABLES_BYTES: usize = 64 << 20;

#[cold]
fn writer_error(message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidArgument(format!(
        "parquet writer: {message}"
    )))
}

/// A page index's length as its `ColumnChunk` field holds it.
fn index_len(len: usize) -> Result<i32> {
    i32::try_from(len).map_err(|_| writer_error("a page index larger than 2 GiB"))
}

/// A `Write` that counts the bytes written.
struct Counting<W> {
    inner: W,
    pos: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(buf)?;
        self.pos += buf.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Where a leaf's values are in a batch (see [`LeafColumn`](super::arrow_schema::LeafColumn)).
struct LeafPlace {
    field: usize,
    path: Box<[usize]>,
    nested: bool,
}

/// The fields of a file's footer that decide how readers take its statistics.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Inherited {
    pub(crate) created_by: Option<Vec<u8>>,
    pub(crate) column_orders: Option<Vec<ColumnOrder>>,
}

impl Inherited {
    pub(crate) fn of(meta: &FileMetaData) -> Inherited {
        Inherited {
            created_by: meta.created_by.map(|r| meta.bytes(r).to_vec()),
            column_orders: meta.column_orders.clone(),
        }
    }
}

/// Writes Arrow record batches to a Parquet file.
///
/// Batches of any size are written with [`ParquetWriter::write`]; row groups are cut at
/// the row and byte limits of the [`WriterProperties`] ([`ParquetWriter::flush`] cuts one
/// now); [`ParquetWriter::close`] writes the footer and returns it.
///
/// ```
/// use std::sync::Arc;
///
/// use arrow_array::{ArrayRef, Int32Array, ListArray, RecordBatch};
/// use arrow_array::types::Int32Type;
/// use parq::{ParquetReader, ParquetWriter, WriterProperties};
///
/// let x: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
/// let lists: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
///     Some(vec![Some(1), Some(2)]),
///     None,
///     Some(vec![]),
/// ]));
/// let batch = RecordBatch::try_from_iter([("x", x), ("l", lists)]).unwrap();
///
/// // Any `Write`: a file, or a vector in memory.
/// let props = WriterProperties::default();
/// let mut writer = ParquetWriter::try_new(Vec::new(), batch.schema(), props)?;
/// writer.write(&batch)?;
/// writer.flush()?; // a row group of these 3 rows
/// writer.write(&batch)?;
/// let (meta, bytes) = writer.close_into_inner()?;
/// assert_eq!((meta.num_rows, meta.row_groups.len()), (6, 2));
///
/// let read = ParquetReader::from_bytes(bytes.into())?.read_batch()?;
/// assert_eq!(read.num_rows(), 6);
/// assert_eq!(read.column(0).slice(3, 3).as_ref(), batch.column(0).as_ref());
/// # Ok::<(), parq::Error>(())
/// ```
pub struct ParquetWriter<W: Write> {
    out: Counting<W>,
    arrow_schema: SchemaRef,
    schema: Arc<Schema>,
    props: WriterProperties,
    /// A writer per leaf column, and where its values are in a batch.
    columns: Columns,
    places: Vec<LeafPlace>,
    shared: Shared,
    /// The space of the threads beside the caller's that encode columns (see
    /// [`WriterProperties::threads`]).
    helpers: Vec<Shared>,
    /// The open row group's byte ranges (its chunks' statistics), and at the end the
    /// footer's own fields.
    arena: Arena,
    groups: FinishedGroups,
    /// Rows of the open row group, those held included.
    open_rows: usize,
    /// The open row group's last rows, not given to the columns yet.
    held: Option<HeldRows>,
    num_rows: i64,
    page_index: PageIndexWriter,
    /// The Bloom filters of the chunks written, serialized until the footer (their places
    /// are kept by `groups`).
    blooms: Vec<u8>,
    /// The keys and AAD of an encrypted file.
    encryptor: Option<FileEncryptor>,
    /// A writer of copied row groups only ([`ParquetWriter::copier`]).
    copy_only: bool,
    /// The header fields of the file whose row groups are continued or copied, written
    /// instead of parq's own so that their statistics are read as before.
    inherited: Option<Inherited>,
    /// The Variant columns, checked or shredded before they are written.
    variant: Option<super::variant::VariantColumns>,
    failed: bool,
}

/// Writes the leaf at `place` of the rows of `batch` to `col` (pages to `sink`, when given:
/// see [`ColumnWriter::write`]), rows `rows` of them when given.
fn write_leaf(
    col: &mut ColumnWriter,
    place: &LeafPlace,
    batch: &RecordBatch,
    fields: &Fields,
    shared: &mut Shared,
    rows: Option<(usize, usize)>,
    sink: Option<&mut dyn Write>,
) -> Result<()> {
    let (Some(array), Some(field)) = (batch.columns().get(place.field), fields.get(place.field))
    else {
        return Err(writer_error("a leaf without its column"));
    };
    let sliced;
    let array = match rows {
        Some((off, len)) => {
            sliced = array.slice(off, len);
            &sliced
        }
        None => array,
    };
    if place.nested {
        col.write_nested(field, array, &place.path, shared, sink)
    } else {
        col.write(array, shared, sink)
    }
}

impl<W: Write> std::fmt::Debug for ParquetWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetWriter")
            .field("columns", &self.columns.len())
            .field("row_groups", &self.groups.len())
            .field("num_rows", &self.num_rows)
            .finish()
    }
}

impl<W: Write> ParquetWriter<W> {
    /// A writer of files of `arrow_schema` with `properties`. Every impossible request is an
    /// error here, before anything is written; then the leading `PAR1` is written.
    pub fn try_new(
        writer: W,
        arrow_schema: SchemaRef,
        properties: WriterProperties,
    ) -> Result<ParquetWriter<W>> {
        Self::build(writer, arrow_schema, properties, None)
    }

    /// A writer that continues the file of `meta` whose bytes end at `end`: `writer` takes
    /// the bytes that follow them (no leading `PAR1`), and the footer it closes with lists
    /// the file's row groups (their pages, indexes and Bloom filters left where they are),
    /// then the new ones. The writer's Parquet schema must have the file's layout
    /// ([`Schema::same_layout`]); encrypted files are refused.
    pub(crate) fn continue_file(
        writer: W,
        arrow_schema: SchemaRef,
        properties: WriterProperties,
        meta: &FileMetaData,
        end: u64,
    ) -> Result<ParquetWriter<W>> {
        Self::build(writer, arrow_schema, properties, Some((meta, end)))
    }

    /// A writer that only copies row groups ([`copy_row_groups`](Self::copy_row_groups))
    /// of files like `like`: its Parquet schema (kept as it is, annotations and all),
    /// `created_by` and `column_orders` (so that readers take the copied statistics as they
    /// took them there), and the Arrow schema `arrow_schema` (written as `ARROW:schema`);
    /// rows written to it are refused. The way to join files whose schema is not the one parq derives from their
    /// Arrow schema (another writer's annotations or decimal widths) without re-encoding.
    pub fn copier(
        writer: W,
        arrow_schema: SchemaRef,
        properties: WriterProperties,
        like: &FileMetaData,
    ) -> Result<ParquetWriter<W>> {
        if properties.encryption().is_some() {
            return Err(writer_error(
                "a writer that copies row groups cannot encrypt",
            ));
        }
        let mut out = Counting {
            inner: writer,
            pos: 0,
        };
        out.write_all(b"PAR1")?;
        Ok(ParquetWriter {
            out,
            arrow_schema,
            schema: like.schema().clone(),
            props: properties,
            columns: Columns::default(),
            places: Vec::new(),
            shared: Shared::default(),
            helpers: Vec::new(),
            arena: Arena::default(),
            groups: FinishedGroups::default(),
            open_rows: 0,
            held: None,
            num_rows: 0,
            page_index: PageIndexWriter::new(),
            blooms: Vec::new(),
            encryptor: None,
            copy_only: true,
            inherited: Some(Inherited::of(like)),
            variant: None,
            failed: false,
        })
    }

    /// The statistics order of each leaf column as this writer writes it (float columns
    /// under `IEEE_754_TOTAL_ORDER` when the properties ask for it).
    pub(crate) fn stats_orders(&self) -> Result<Vec<StatsOrder>> {
        (0..self.schema.num_columns())
            .map(|j| {
                let o = self
                    .schema
                    .leaf_element(j)
                    .map_or(Ok(StatsOrder::Undefined), StatsOrder::for_element)?;
                Ok(match self.props.float_total_order() {
                    true => o.total_order(),
                    false => o,
                })
            })
            .collect()
    }

    fn build(
        writer: W,
        arrow_schema: SchemaRef,
        properties: WriterProperties,
        continued: Option<(&FileMetaData, u64)>,
    ) -> Result<ParquetWriter<W>> {
        let (arrow_schema, variant) = super::variant::plan(&arrow_schema, &properties)?;
        let (schema, leaves) = to_parquet_schema(
            &arrow_schema,
            properties.compliant_nested_types(),
            properties.decimal_as_integer(),
        )?;
        let settings = properties.resolve(&schema)?;
        let mut shared = Shared::default();
        let encryptor = match properties.encryption() {
            Some(e) => Some(FileEncryptor::new(e, &schema)?),
            None => None,
        };
        let maker = Maker {
            schema: &schema,
            props: &properties,
            encryptor: encryptor.as_ref(),
            row_group: 0,
        };
        let columns = Columns::new(&maker, &leaves, settings, &mut shared)?;
        shared.set_idle_table_bytes(Some(IDLE_TABLES_BYTES / columns.len().max(1)));
        let threads = properties.threads().min(columns.len()).max(1);
        let helpers = (1..threads)
            .map(|_| shared.for_thread())
            .collect::<Result<Vec<_>>>()?;
        let mut groups = FinishedGroups::default();
        let mut num_rows = 0;
        let mut out = Counting {
            inner: writer,
            pos: 0,
        };
        match continued {
            Some((meta, end)) => {
                let inherited = Inherited::of(meta);
                if let Some(why) =
                    copy::copy_refusal(encryptor.is_some(), &schema, Some(&inherited), meta)
                {
                    return Err(Error::new(ErrorKind::Unsupported(format!(
                        "rows cannot be appended in place: {why}"
                    ))));
                }
                for g in meta.row_groups() {
                    groups.push(g, meta.buf(), meta.schema(), false)?;
                }
                num_rows = meta.num_rows();
                out.pos = end;
            }
            None => out.write_all(encryptor.as_ref().map_or(b"PAR1", |e| e.magic()))?,
        }
        Ok(ParquetWriter {
            out,
            arrow_schema,
            schema: Arc::new(schema),
            props: properties,
            columns,
            // Built by reference: collecting in place would keep the leaves' larger
            // allocation.
            places: leaves
                .iter()
                .map(|l| LeafPlace {
                    field: l.field,
                    path: l.path.as_slice().into(),
                    nested: l.nested,
                })
                .collect(),
            shared,
            helpers,
            arena: Arena::default(),
            groups,
            open_rows: 0,
            held: None,
            num_rows,
            page_index: PageIndexWriter::new(),
            blooms: Vec::new(),
            encryptor,
            copy_only: false,
            inherited: continued.map(|(meta, _)| Inherited::of(meta)),
            variant,
            failed: false,
        })
    }

    /// The Arrow schema of the file.
    pub fn arrow_schema(&self) -> &SchemaRef {
        &self.arrow_schema
    }

    /// The Parquet schema of the file.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.out.pos
    }

    /// Bytes of pages buffered for the open row group, and a bound on the encoded bytes of
    /// the rows held unencoded (see [`write`](Self::write)).
    pub fn buffered_bytes(&self) -> usize {
        self.columns.buffered_bytes() + self.held.as_ref().map_or(0, |h| h.bytes)
    }

    fn check(&self) -> Result<()> {
        if self.failed {
            return Err(writer_error("an earlier error left the file incomplete"));
        }
        Ok(())
    }

    fn guard<T>(&mut self, r: Result<T>) -> Result<T> {
        if r.is_err() {
            self.failed = true;
        }
        r
    }

    /// Writes the rows of `batch`, whose columns must have the types of the writer's schema.
    ///
    /// The rows that do not close a row group are held as they are (the batch's arrays are
    /// kept, not copied) until the next call, or until the row group closes, when they are
    /// encoded column after column straight to the output. They are held only where the
    /// byte budget cannot close the row group within them (a bound on their encoded size
    /// keeps it under the budget, or they are at most 65,536 rows, after which the budget
    /// is checked), and only when encoding them cannot fail on a value.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.check()?;
        if self.copy_only {
            return Err(writer_error("this writer only copies row groups"));
        }
        let input = self
            .variant
            .as_ref()
            .map_or(&self.arrow_schema, |v| v.input());
        if batch.num_columns() != input.fields().len() {
            return Err(writer_error(format_args!(
                "a batch of {} columns for a schema of {}",
                batch.num_columns(),
                input.fields().len()
            )));
        }
        for (field, col) in input.fields().iter().zip(batch.columns()) {
            if col.data_type() != field.data_type() {
                return Err(writer_error(format_args!(
                    "column `{}`: an array of type {} for a column of type {}",
                    field.name(),
                    col.data_type(),
                    field.data_type()
                )));
            }
            if !field.is_nullable() && col.null_count() > 0 {
                return Err(writer_error(format_args!(
                    "column `{}` is not nullable but the batch has nulls in it",
                    field.name()
                )));
            }
        }
        let r = match &self.variant {
            Some(v) => {
                let first_row = u64::try_from(self.num_rows).unwrap_or(0) + self.open_rows as u64;
                v.apply(batch, &self.arrow_schema, first_row)
                    .and_then(|b| self.write_rows(&b))
            }
            None => self.write_rows(batch),
        };
        self.guard(r)
    }

    fn write_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        self.release_held()?;
        let n = batch.num_rows();
        let mut off = 0;
        while off < n {
            let room = self
                .props
                .max_row_group_rows()
                .map_or(usize::MAX, |l| l - self.open_rows);
            let k = (n - off).min(room);
            let rows = if off == 0 && k == n {
                batch.clone()
            } else {
                batch.slice(off, k)
            };
            off += k;
            // Held when the byte budget cannot close the row group within them: their
            // bound keeps it under the budget, or they are no more rows than `encode_rows`
            // gives at a time (it checks the budget after them, as done below).
            let bound = encoded_bound(&rows);
            let budget = self.props.max_row_group_bytes();
            let fits = may_hold(&rows)
                && match (budget, bound) {
                    (None, _) => true,
                    (Some(limit), Some(b)) => {
                        k <= BUDGET_SLICE_ROWS || self.buffered_bytes().saturating_add(b) < limit
                    }
                    (Some(_), None) => false,
                };
            if !fits {
                self.encode_rows(&rows)?;
                continue;
            }
            self.open_rows += k;
            self.held = Some(HeldRows {
                batch: rows,
                bytes: bound.unwrap_or(0),
            });
            let bytes_full = budget.is_some_and(|l| self.buffered_bytes() >= l);
            if self.rows_full() || bytes_full {
                self.flush_row_group()?;
            }
        }
        Ok(())
    }

    /// True if the open row group reached the row limit.
    fn rows_full(&self) -> bool {
        self.props
            .max_row_group_rows()
            .is_some_and(|l| self.open_rows >= l)
    }

    /// Gives the held rows to the columns.
    fn release_held(&mut self) -> Result<()> {
        if let Some(h) = self.held.take() {
            self.open_rows -= h.batch.num_rows();
            self.encode_rows(&h.batch)?;
        }
        Ok(())
    }

    /// Gives the rows of `batch` to the columns (their pages kept until the row group
    /// closes), closing row groups at the limits.
    fn encode_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        let n = batch.num_rows();
        let mut off = 0;
        while off < n {
            let mut k = n - off;
            if let Some(limit) = self.props.max_row_group_rows() {
                k = k.min(limit - self.open_rows);
            }
            if self.props.max_row_group_bytes().is_some() {
                k = k.min(BUDGET_SLICE_ROWS);
            }
            let part = if off == 0 && k == n {
                batch.clone()
            } else {
                batch.slice(off, k)
            };
            self.give_rows(&part)?;
            off += k;
            self.open_rows += k;
            let bytes_full = self
                .props
                .max_row_group_bytes()
                .is_some_and(|l| self.buffered_bytes() >= l);
            if self.rows_full() || bytes_full {
                self.flush_row_group()?;
            }
        }
        Ok(())
    }

    /// Closes the open row group now (nothing happens when it has no rows).
    pub fn flush(&mut self) -> Result<()> {
        self.check()?;
        let r = self.flush_row_group();
        self.guard(r)
    }

    /// Gives the rows of `batch` to every column, to be kept in its buffers: on the
    /// writer's threads, when it has more than one.
    fn give_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        let maker = Maker {
            schema: &self.schema,
            props: &self.props,
            encryptor: self.encryptor.as_ref(),
            row_group: self.groups.len(),
        };
        let mut columns = self.columns.all(&maker, &mut self.shared)?;
        if !self.helpers.is_empty() {
            // Chunks finish on this thread, so their body buffers are on its shelf: lent
            // here to the columns starting a chunk, whichever thread encodes them.
            for col in &mut columns {
                col.take_kept_bodies(&mut self.shared, true);
            }
        }
        let fields = self.arrow_schema.fields();
        let places = &self.places;
        crate::workers::each_item(
            &mut columns,
            &mut self.shared,
            &mut self.helpers,
            |shared, i, col| {
                let place = places
                    .get(i)
                    .ok_or_else(|| writer_error("a leaf column without its place"))?;
                write_leaf(col, place, batch, fields, shared, None, None)?;
                Ok(None::<()>)
            },
        )?;
        Ok(())
    }

    fn flush_row_group(&mut self) -> Result<()> {
        if self.open_rows == 0 {
            return Ok(());
        }
        if !self.helpers.is_empty() {
            // Held rows are encoded side by side into the buffers, then written in order.
            // (`encode_rows` closes the row group itself when they fill it.)
            if let Some(h) = self.held.take() {
                self.open_rows -= h.batch.num_rows();
                self.encode_rows(&h.batch)?;
                if self.open_rows == 0 {
                    return Ok(());
                }
            }
        }
        let rg = self.groups.len();
        let ordinal = i16::try_from(rg)
            .map_err(|_| writer_error("more than 32767 row groups (the ordinal is an i16)"))?;
        let held = self.held.take();
        let file_offset = self.out.pos;
        let mut chunks = Vec::with_capacity(self.columns.len());
        let (mut uncompressed, mut compressed) = (0i64, 0i64);
        let fields = self.arrow_schema.fields();
        let maker = Maker {
            schema: &self.schema,
            props: &self.props,
            encryptor: self.encryptor.as_ref(),
            row_group: rg,
        };
        for (j, place) in self.places.iter().enumerate() {
            let col = self.columns.writer(j, &maker, &mut self.shared)?;
            let start = self.out.pos;
            if let Some(h) = &held {
                // In the slices `encode_rows` gives, so that the pages are the same.
                let n = h.batch.num_rows();
                let step = match self.props.max_row_group_bytes() {
                    Some(_) => BUDGET_SLICE_ROWS,
                    None => n,
                };
                let mut off = 0;
                while off < n {
                    let k = step.min(n - off);
                    let rows = (k < n).then_some((off, k));
                    let (batch, shared) = (&h.batch, &mut self.shared);
                    let sink: &mut dyn Write = &mut self.out;
                    write_leaf(col, place, batch, fields, shared, rows, Some(sink))?;
                    off += k;
                }
            }
            let done = col.finish_chunk(&mut self.out, start, &mut self.arena, &mut self.shared)?;
            self.columns.park(j);
            uncompressed += done.chunk.total_uncompressed_size();
            compressed += done.chunk.total_compressed_size();
            let encryptor = match &self.encryptor {
                Some(e) => e.column(rg, j)?,
                None => None,
            };
            let (ci, oi) = (done.column_index.as_ref(), Some(&done.offset_index));
            let (ci, oi) = self.page_index.encode_chunk(ci, oi, encryptor.as_ref())?;
            // Offsets among the kept indexes until they are written (see `finish`).
            let mut chunk = done.chunk;
            if let Some((start, len)) = ci {
                chunk.set_column_index_location(start as i64, index_len(len)?);
            }
            if let Some((start, len)) = oi {
                chunk.set_offset_index_location(start as i64, index_len(len)?);
            }
            if let Some(b) = done.bloom {
                let start = self.blooms.len();
                let len = match &encryptor {
                    Some(e) => b.write_encrypted(&mut self.blooms, e)?,
                    None => b.write(&mut self.blooms),
                };
                self.groups.add_bloom(j, start, len);
            }
            chunks.push(chunk);
        }
        let sorting = self.props.sorting_columns();
        let group = RowGroup {
            columns: chunks,
            total_byte_size: uncompressed,
            num_rows: self.open_rows as i64,
            sorting_columns: (!sorting.is_empty()).then(|| sorting.to_vec()),
            file_offset: Some(file_offset as i64),
            total_compressed_size: Some(compressed),
            ordinal: Some(ordinal),
            unknown: Default::default(),
        };
        // The chunks' page-index offsets are places among the kept indexes, to be made
        // file offsets at the end.
        let relative = group
            .columns
            .iter()
            .any(|c| c.column_index_offset().is_some() || c.offset_index_offset().is_some());
        self.groups
            .push(&group, self.arena.as_slice(), &self.schema, relative)?;
        self.arena.clear();
        self.num_rows += self.open_rows as i64;
        self.open_rows = 0;
        if let Some(e) = &self.encryptor {
            for (j, col) in self.columns.live() {
                col.set_encryptor(e.column(rg + 1, j)?);
            }
        }
        Ok(())
    }

    /// Writes the open row group, the Bloom filters, the page indexes and the footer; returns
    /// the file's metadata (as a reader decodes it from the footer written).
    pub fn close(mut self) -> Result<FileMetaData> {
        self.check()?;
        let r = self.finish_with_metadata();
        self.guard(r)
    }

    /// [`ParquetWriter::close`], giving back the writer the file went to (the bytes of an
    /// in-memory file, say) with its metadata.
    pub fn close_into_inner(mut self) -> Result<(FileMetaData, W)> {
        self.check()?;
        let r = self.finish_with_metadata();
        let meta = self.guard(r)?;
        Ok((meta, self.out.inner))
    }

    /// Writes the open row group, the Bloom filters, the page indexes and the footer, as
    /// [`close`](Self::close) does, without making the file's metadata again: a file of
    /// millions of column chunks, whose row groups the writer keeps encoded, ends without
    /// holding them all decoded (but an encrypted file, whose footer is sealed whole).
    /// Returns what was written.
    pub fn close_summary(mut self) -> Result<WrittenFile> {
        self.check()?;
        let r = self.finish(false).map(|_| WrittenFile {
            num_rows: self.num_rows,
            num_row_groups: self.groups.len(),
            num_columns: self.schema.num_columns(),
            file_bytes: self.out.pos,
        });
        self.guard(r)
    }

    fn finish_with_metadata(&mut self) -> Result<FileMetaData> {
        self.finish(true)?
            .ok_or_else(|| writer_error("the metadata of a closed file missing"))
    }
}

/// What [`ParquetWriter::close_summary`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WrittenFile {
    /// Rows in the file.
    pub num_rows: i64,
    /// Row groups in the file.
    pub num_row_groups: usize,
    /// Leaf columns of its schema.
    pub num_columns: usize,
    /// The file's length in bytes.
    pub file_bytes: u64,
}

#[path = "file_columns.rs"]
mod columns;
#[path = "file_copy.rs"]
mod copy;
#[path = "file_footer.rs"]
mod footer;
#[path = "file_groups.rs"]
mod groups;
pub(crate) use copy::copy_refusal;

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
