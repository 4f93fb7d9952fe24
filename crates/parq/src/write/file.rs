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
//! never buffered. With [`WriterProperties::threads`] above one, the columns are encoded
//! side by side (each whole column on one thread) into their buffers, then written in order:
//! the same bytes. After an error the writer refuses further calls (its output is not a
//! valid file).

use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Fields, SchemaRef};

use super::arrow_schema::{encode_arrow_schema, to_parquet_schema, ARROW_SCHEMA_KEY};
use super::column::{ColumnSpec, ColumnWriter, Shared};
use super::held::{encoded_bound, may_hold, HeldRows};
use super::levels::slot_level;
use super::page_index::PageIndexWriter;
use super::properties::WriterProperties;
use super::statistics::StatsOrder;
use crate::format::footer::{build_index, DecodeOptions};
use crate::format::metadata::{Arena, FileMetaData, KeyValue, RowGroup, Schema};
use crate::format::thrift::{wire, Limits, Writer};
use crate::{Error, ErrorKind, Result};

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

/// A Bloom filter serialized until the footer: row group, column, range in the buffer.
struct BloomEntry {
    row_group: usize,
    column: usize,
    start: usize,
    len: usize,
}

/// Writes Arrow record batches to a Parquet file.
pub struct ParquetWriter<W: Write> {
    out: Counting<W>,
    arrow_schema: SchemaRef,
    schema: Arc<Schema>,
    props: WriterProperties,
    /// A writer per leaf column, and where its values are in a batch.
    columns: Vec<ColumnWriter>,
    places: Vec<LeafPlace>,
    shared: Shared,
    /// The space of the threads beside the caller's that encode columns (see
    /// [`WriterProperties::threads`]).
    helpers: Vec<Shared>,
    arena: Arena,
    row_groups: Vec<RowGroup>,
    /// Rows of the open row group, those held included.
    open_rows: usize,
    /// The open row group's last rows, not given to the columns yet.
    held: Option<HeldRows>,
    num_rows: i64,
    page_index: PageIndexWriter,
    blooms: Vec<u8>,
    bloom_entries: Vec<BloomEntry>,
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
            .field("row_groups", &self.row_groups.len())
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
        let (schema, leaves) =
            to_parquet_schema(&arrow_schema, properties.compliant_nested_types())?;
        let settings = properties.resolve(&schema)?;
        let mut shared = Shared::default();
        let mut columns = Vec::with_capacity(leaves.len());
        for (j, (leaf, s)) in leaves.iter().zip(settings).enumerate() {
            let (Some(element), Some(levels)) = (schema.leaf_element(j), schema.leaves().get(j))
            else {
                return Err(writer_error("schema without the leaf"));
            };
            let name = schema.leaf_path_string(j);
            let spec = ColumnSpec {
                name: &name,
                data_type: &leaf.data_type,
                leaf: &leaf.ty,
                element,
                max_def: levels.max_def_level,
                max_rep: levels.max_rep_level,
                slot_level: slot_level(&schema, schema.leaf_path_elements(j)),
            };
            columns.push(ColumnWriter::new(spec, s, &properties, &mut shared)?);
        }
        shared.set_idle_table_bytes(Some(IDLE_TABLES_BYTES / columns.len().max(1)));
        let threads = properties.threads().min(columns.len()).max(1);
        let helpers = (1..threads)
            .map(|_| shared.for_thread())
            .collect::<Result<Vec<_>>>()?;
        let mut out = Counting {
            inner: writer,
            pos: 0,
        };
        out.write_all(b"PAR1")?;
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
            row_groups: Vec::new(),
            open_rows: 0,
            held: None,
            num_rows: 0,
            page_index: PageIndexWriter::new(),
            blooms: Vec::new(),
            bloom_entries: Vec::new(),
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
        self.columns
            .iter()
            .map(ColumnWriter::buffered_bytes)
            .sum::<usize>()
            + self.held.as_ref().map_or(0, |h| h.bytes)
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
        if batch.num_columns() != self.arrow_schema.fields().len() {
            return Err(writer_error(format_args!(
                "a batch of {} columns for a schema of {}",
                batch.num_columns(),
                self.arrow_schema.fields().len()
            )));
        }
        for (field, col) in self.arrow_schema.fields().iter().zip(batch.columns()) {
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
        let r = self.write_rows(batch);
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
        let fields = self.arrow_schema.fields();
        let places = &self.places;
        crate::workers::each_item(
            &mut self.columns,
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
        let rg = self.row_groups.len();
        let ordinal = i16::try_from(rg)
            .map_err(|_| writer_error("more than 32767 row groups (the ordinal is an i16)"))?;
        let held = self.held.take();
        let file_offset = self.out.pos;
        let mut chunks = Vec::with_capacity(self.columns.len());
        let (mut uncompressed, mut compressed) = (0i64, 0i64);
        let fields = self.arrow_schema.fields();
        for (j, (col, place)) in self.columns.iter_mut().zip(&self.places).enumerate() {
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
            uncompressed += done.chunk.total_uncompressed_size();
            compressed += done.chunk.total_compressed_size();
            self.page_index
                .add_chunk(rg, j, done.column_index.as_ref(), Some(&done.offset_index));
            if let Some(b) = done.bloom {
                let start = self.blooms.len();
                let len = b.write(&mut self.blooms);
                self.bloom_entries.push(BloomEntry {
                    row_group: rg,
                    column: j,
                    start,
                    len,
                });
            }
            chunks.push(done.chunk);
        }
        let sorting = self.props.sorting_columns();
        self.row_groups.push(RowGroup {
            columns: chunks,
            total_byte_size: uncompressed,
            num_rows: self.open_rows as i64,
            sorting_columns: (!sorting.is_empty()).then(|| sorting.to_vec()),
            file_offset: Some(file_offset as i64),
            total_compressed_size: Some(compressed),
            ordinal: Some(ordinal),
            unknown: Default::default(),
        });
        self.num_rows += self.open_rows as i64;
        self.open_rows = 0;
        Ok(())
    }

    /// Writes the open row group, the Bloom filters, the page indexes and the footer; returns
    /// the file's metadata (as a reader decodes it from the footer written).
    pub fn close(mut self) -> Result<FileMetaData> {
        self.check()?;
        let r = self.finish();
        self.guard(r)
    }

    /// [`ParquetWriter::close`], giving back the writer the file went to (the bytes of an
    /// in-memory file, say) with its metadata.
    pub fn close_into_inner(mut self) -> Result<(FileMetaData, W)> {
        self.check()?;
        let r = self.finish();
        let meta = self.guard(r)?;
        Ok((meta, self.out.inner))
    }

    fn finish(&mut self) -> Result<FileMetaData> {
        self.flush_row_group()?;
        // From here on only the metadata is needed: release the columns' state.
        self.columns = Vec::new();
        self.shared = Shared::default();
        // Bloom filters.
        let base = self.out.pos;
        self.out.write_all(&self.blooms)?;
        for e in &self.bloom_entries {
            let off = i64::try_from(base + e.start as u64)
                .map_err(|_| writer_error("file offset past i64"))?;
            let len = i32::try_from(e.len).map_err(|_| writer_error("Bloom filter over 2 GiB"))?;
            self.row_groups[e.row_group].columns[e.column].set_bloom_filter_location(off, len);
        }
        self.blooms = Vec::new();
        // Page indexes.
        let at = self.out.pos;
        let locations = self.page_index.write(&mut self.out, at)?;
        self.page_index = PageIndexWriter::new();
        for l in locations {
            let c = &mut self.row_groups[l.row_group].columns[l.column];
            if let Some((o, n)) = l.column_index {
                c.set_column_index_location(o, n);
            }
            if let Some((o, n)) = l.offset_index {
                c.set_offset_index_location(o, n);
            }
        }
        // Footer. Once encoded, the row groups' metadata is released: the metadata returned
        // is decoded from the footer's bytes.
        let footer = self.encode_footer()?;
        self.row_groups = Vec::new();
        self.arena = Arena::default();
        if self.props.footer_index() {
            if let Some(index) = build_index(&footer, Limits::default())? {
                self.out.write_all(&index)?;
            }
        }
        self.out.write_all(&footer)?;
        let len = u32::try_from(footer.len()).map_err(|_| writer_error("a footer over 4 GiB"))?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(b"PAR1")?;
        self.out.flush()?;
        crate::format::footer::decode_metadata(&footer, &DecodeOptions::default())
    }

    /// The Thrift `FileMetaData` of the file.
    fn encode_footer(&mut self) -> Result<Vec<u8>> {
        // Key-value metadata: the properties', the Arrow schema's, then ARROW:schema.
        let mut kv: Vec<(String, Option<String>)> = self.props.key_value_metadata().to_vec();
        for (k, v) in self.arrow_schema.metadata() {
            if !kv.iter().any(|(key, _)| key == k) {
                kv.push((k.clone(), Some(v.clone())));
            }
        }
        kv.retain(|(k, _)| k != ARROW_SCHEMA_KEY);
        kv.push((
            ARROW_SCHEMA_KEY.to_string(),
            Some(encode_arrow_schema(&self.arrow_schema)),
        ));
        let kvs: Vec<KeyValue> = kv
            .iter()
            .map(|(k, v)| KeyValue {
                key: self.arena.push(k.as_bytes()),
                value: v.as_ref().map(|v| self.arena.push(v.as_bytes())),
            })
            .collect();
        let created_by = self.arena.push(self.props.created_by().as_bytes());
        let orders: Vec<_> = (0..self.schema.num_columns())
            .map(|j| {
                self.schema
                    .leaf_element(j)
                    .map_or(Ok(StatsOrder::Undefined), StatsOrder::for_element)
                    .map(StatsOrder::column_order)
            })
            .collect::<Result<_>>()?;
        let buf = self.arena.as_slice();
        let mut out = Vec::new();
        let w = &mut Writer::new(&mut out);
        let mut last = 0i16;
        w.write_field_header(wire::I32, 1, &mut last);
        w.write_i32(FORMAT_VERSION);
        w.write_field_header(wire::LIST, 2, &mut last);
        self.schema.encode_list(w);
        w.write_field_header(wire::I64, 3, &mut last);
        w.write_i64(self.num_rows);
        w.write_field_header(wire::LIST, 4, &mut last);
        w.write_list_header(wire::STRUCT, self.row_groups.len());
        for g in &self.row_groups {
            g.encode(w, buf, &self.schema);
        }
        w.write_field_header(wire::LIST, 5, &mut last);
        KeyValue::encode_list(&kvs, w, buf);
        w.write_field_header(wire::BINARY, 6, &mut last);
        w.write_binary(created_by.slice(buf));
        w.write_field_header(wire::LIST, 7, &mut last);
        w.write_list_header(wire::STRUCT, orders.len());
        for o in orders {
            // ColumnOrder is a union: TYPE_ORDER (field 1), an empty struct.
            let mut l = 0i16;
            let id = match o {
                crate::format::metadata::ColumnOrder::Ieee754TotalOrder => 2,
                _ => 1,
            };
            w.write_field_header(wire::STRUCT, id, &mut l);
            w.write_stop();
            w.write_stop();
        }
        w.write_stop();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        Array, ArrayRef, FixedSizeBinaryArray, Float32Array, Float64Array, Int32Array, Int64Array,
        RecordBatch, StringArray,
    };
    use arrow_schema::{Field, Schema};

    use super::super::column::DICTIONARY_TRIAL_VALUES;
    use super::super::properties::{Codec, DataPageVersion, WriterProperties};
    use super::ParquetWriter;
    use crate::format::metadata::{ColumnChunk, Encoding, FileMetaData};
    use crate::read::ParquetReader;

    /// Writes `batch` with `props`, reads it back (checking it is the same) and returns the
    /// file's metadata.
    fn roundtrip(batch: &RecordBatch, props: WriterProperties) -> FileMetaData {
        let mut buf = Vec::new();
        let mut w = ParquetWriter::try_new(&mut buf, batch.schema(), props).unwrap();
        w.write(batch).unwrap();
        let meta = w.close().unwrap();
        let r = ParquetReader::from_bytes(bytes::Bytes::from(buf)).unwrap();
        let got = r.read_batch().unwrap();
        assert_eq!(got.num_rows(), batch.num_rows());
        for (i, col) in batch.columns().iter().enumerate() {
            assert_eq!(
                &got.column(i).to_data(),
                &col.to_data(),
                "column {}",
                batch.schema().field(i).name()
            );
        }
        meta
    }

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        let fields: Vec<Field> = columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect();
        RecordBatch::try_new(
            Arc::new(Schema::new(fields)),
            columns.into_iter().map(|(_, a)| a).collect(),
        )
        .unwrap()
    }

    fn uses_dictionary(c: &ColumnChunk) -> bool {
        c.encodings().contains(Encoding::RleDictionary)
    }

    /// Distinct floats: the dictionary is given up after the first values, the chunk has
    /// no dictionary page and its pages are PLAIN; a low-cardinality column beside it keeps
    /// its dictionary.
    #[test]
    fn distinct_values_give_the_dictionary_up() {
        let n = 50_000;
        let b = batch(vec![
            (
                "f",
                Arc::new(Float64Array::from_iter_values(
                    (0..n).map(|i| f64::from(i) * 0.37 + 1e6),
                )),
            ),
            (
                "k",
                Arc::new(Int64Array::from_iter(
                    (0..n).map(|i| (i % 7 != 0).then_some(i64::from(i % 25) * 1_000_003)),
                )),
            ),
            (
                "s",
                Arc::new(StringArray::from_iter((0..n).map(|i| {
                    (i % 5 != 0).then(|| format!("distinct string number {i}"))
                }))),
            ),
        ]);
        for codec in [Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::ZSTD] {
            for version in [DataPageVersion::V1, DataPageVersion::V2] {
                let props = WriterProperties::builder()
                    .compression(codec)
                    .data_page_version(version)
                    .page_crc(true)
                    .build()
                    .unwrap();
                let meta = roundtrip(&b, props);
                let cols = meta.row_groups()[0].columns();
                for c in [&cols[0], &cols[2]] {
                    assert!(!uses_dictionary(c), "{:?}", c.encodings());
                    assert!(c.encodings().contains(Encoding::Plain));
                    assert_eq!(c.dictionary_page_offset(), None);
                }
                assert!(uses_dictionary(&cols[1]));
                assert!(cols[1].dictionary_page_offset().is_some());
            }
        }
    }

    /// The first page closes with mostly distinct values (not all): the dictionary page and
    /// indices would not be smaller than PLAIN, so the page is written PLAIN and so is the
    /// rest of the chunk, with the column's fallback encoding.
    #[test]
    fn first_page_decides() {
        let n = 30_000i64;
        // Nine distinct values in ten.
        let mostly = |i: i64| if i % 10 == 9 { i - 1 } else { i };
        let b = batch(vec![
            (
                "plain",
                Arc::new(Int64Array::from_iter_values((0..n).map(mostly))),
            ),
            (
                "delta",
                Arc::new(Int64Array::from_iter(
                    (0..n).map(|i| (i % 3 != 0).then_some(mostly(i) * 3)),
                )),
            ),
            (
                "half",
                Arc::new(Int64Array::from_iter_values((0..n).map(|i| i / 2))),
            ),
        ]);
        let props = WriterProperties::builder()
            .data_page_rows(Some(2_000))
            .column_dictionary("delta", true)
            .column_encoding("delta", Encoding::DeltaBinaryPacked)
            .build()
            .unwrap();
        let meta = roundtrip(&b, props);
        let cols = meta.row_groups()[0].columns();
        assert!(!uses_dictionary(&cols[0]));
        assert!(cols[0].encodings().contains(Encoding::Plain));
        assert!(!uses_dictionary(&cols[1]));
        assert!(cols[1].encodings().contains(Encoding::DeltaBinaryPacked));
        assert_eq!(cols[1].dictionary_page_offset(), None);
        // Two rows per value: the dictionary pays on the first page (then passes no limit).
        assert!(uses_dictionary(&cols[2]));
    }

    /// Pages smaller than the trial keep the dictionary (as small files always did).
    #[test]
    fn small_pages_keep_the_dictionary() {
        let b = batch(vec![(
            "x",
            Arc::new(Int32Array::from_iter_values(
                0..(DICTIONARY_TRIAL_VALUES as i32 - 1),
            )),
        )]);
        let meta = roundtrip(&b, WriterProperties::default());
        let c = &meta.row_groups()[0].columns()[0];
        assert!(uses_dictionary(c));
        assert!(c.dictionary_page_offset().is_some());
    }

    /// Fallback encodings of every kind re-encode the values given up, nulls included.
    #[test]
    fn given_up_values_in_fallback_encodings() {
        let n = 6_000;
        let fixed: Vec<Option<[u8; 4]>> = (0..n)
            .map(|i: u32| (i % 4 != 1).then_some(i.wrapping_mul(2_654_435_761).to_be_bytes()))
            .collect();
        let b = batch(vec![
            (
                "f32",
                Arc::new(Float32Array::from_iter(
                    (0..n).map(|i| (i % 6 != 2).then_some(i as f32 * 1.5)),
                )),
            ),
            (
                "i32",
                Arc::new(Int32Array::from_iter_values((0..n as i32).map(|i| i * 7))),
            ),
            (
                "s",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("s{i:08}")),
                )),
            ),
            (
                "fixed",
                Arc::new(
                    FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                        fixed.iter().map(|v| v.as_ref().map(|b| b.as_slice())),
                        4,
                    )
                    .unwrap(),
                ),
            ),
        ]);
        for (enc_f, enc_i, enc_s, enc_fixed) in [
            (
                Encoding::ByteStreamSplit,
                Encoding::DeltaBinaryPacked,
                Encoding::DeltaLengthByteArray,
                Encoding::ByteStreamSplit,
            ),
            (
                Encoding::Plain,
                Encoding::ByteStreamSplit,
                Encoding::DeltaByteArray,
                Encoding::DeltaByteArray,
            ),
        ] {
            for codec in [Codec::UNCOMPRESSED, Codec::SNAPPY] {
                let props = WriterProperties::builder()
                    .compression(codec)
                    .dictionary(true)
                    .column_encoding("f32", enc_f)
                    .column_encoding("i32", enc_i)
                    .column_encoding("s", enc_s)
                    .column_encoding("fixed", enc_fixed)
                    .build()
                    .unwrap();
                let meta = roundtrip(&b, props);
                let cols = meta.row_groups()[0].columns();
                for (c, e) in cols.iter().zip([enc_f, enc_i, enc_s, enc_fixed]) {
                    assert!(!uses_dictionary(c), "{:?}", c.encodings());
                    assert!(c.encodings().contains(e), "{:?} {e:?}", c.encodings());
                }
            }
        }
    }

    /// Page bodies are assembled in place (levels put before the values): pages whose levels
    /// outgrow the room kept for them, null columns, several writes and row groups, every
    /// page version and codec, with CRCs.
    #[test]
    fn page_bodies_in_place() {
        let n = 9_000usize;
        // All valid for the first pages, then nulls scattered more and more.
        let valid = |i: usize| i < 2_500 || (i * 2_654_435_761) % 97 > (i / 1_000) * 9;
        let b = batch(vec![
            (
                "i",
                Arc::new(Int64Array::from_iter(
                    (0..n).map(|i| valid(i).then_some((i as i64 * 7919) % 1_000_003)),
                )),
            ),
            (
                "s",
                Arc::new(StringArray::from_iter(
                    (0..n).map(|i| valid(i + 1).then(|| format!("{}", i % 300))),
                )),
            ),
            ("nothing", Arc::new(arrow_array::NullArray::new(n))),
            (
                "required",
                Arc::new(Float32Array::from_iter_values((0..n).map(|i| i as f32))),
            ),
        ]);
        let schema = Arc::new(Schema::new(
            b.schema()
                .fields()
                .iter()
                .map(|f| {
                    let nullable = f.name() != "required";
                    f.as_ref().clone().with_nullable(nullable)
                })
                .collect::<Vec<_>>(),
        ));
        let b = RecordBatch::try_new(schema.clone(), b.columns().to_vec()).unwrap();
        for codec in [Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::GZIP] {
            for version in [DataPageVersion::V1, DataPageVersion::V2] {
                for dictionary in [true, false] {
                    let props = WriterProperties::builder()
                        .compression(codec)
                        .data_page_version(version)
                        .dictionary(dictionary)
                        .data_page_rows(Some(700))
                        .max_row_group_rows(Some(4_000))
                        .page_crc(true)
                        .build()
                        .unwrap();
                    let mut out = Vec::new();
                    let mut w = ParquetWriter::try_new(&mut out, schema.clone(), props).unwrap();
                    for off in (0..n).step_by(1_500) {
                        w.write(&b.slice(off, 1_500.min(n - off))).unwrap();
                    }
                    let meta = w.close().unwrap();
                    assert_eq!(meta.row_groups().len(), 3);
                    let r = ParquetReader::from_bytes(bytes::Bytes::from(out)).unwrap();
                    let got = r.read_batch().unwrap();
                    assert_eq!(got, b, "{codec:?} {version:?} dictionary {dictionary}");
                }
            }
        }
    }

    /// Columns written in small batches whose idle dictionaries free their tables (as in a
    /// wide schema) rebuild them on the next write: the file is the same as without.
    #[test]
    fn idle_tables_are_rebuilt() {
        let cols = 20;
        let rows = 400;
        let arrays: Vec<(String, ArrayRef)> = (0..cols)
            .map(|c| {
                let a: ArrayRef =
                    Arc::new(Int64Array::from_iter((0..rows).map(|r| {
                        ((r + c) % 11 != 0).then_some(((r * 7 + c) % 150) as i64)
                    })));
                (format!("c{c}"), a)
            })
            .collect();
        let b = batch(
            arrays
                .iter()
                .map(|(n, a)| (n.as_str(), a.clone()))
                .collect(),
        );
        let props = WriterProperties::builder()
            .max_row_group_rows(Some(2 * rows))
            .build()
            .unwrap();
        let write = |idle: Option<usize>| {
            let mut out = Vec::new();
            let mut w = ParquetWriter::try_new(&mut out, b.schema(), props.clone()).unwrap();
            w.shared.set_idle_table_bytes(idle);
            for _ in 0..4 {
                // 150 entries, batches of 50 rows and 200 rows.
                for off in (0..rows / 2).step_by(50) {
                    w.write(&b.slice(off, 50)).unwrap();
                }
                w.write(&b.slice(rows / 2, rows / 2)).unwrap();
            }
            let meta = w.close().unwrap();
            assert_eq!(meta.row_groups().len(), 2);
            assert!(meta.row_groups()[1].columns().iter().all(uses_dictionary));
            out
        };
        let kept = write(None);
        let freed = write(Some(0));
        assert_eq!(kept, freed);
        let r = ParquetReader::from_bytes(bytes::Bytes::from(freed)).unwrap();
        let got = r.read_batch().unwrap();
        assert_eq!(got.num_rows(), 4 * rows);
        for i in 0..4 {
            assert_eq!(got.slice(i * rows, rows), b);
        }
    }
}
