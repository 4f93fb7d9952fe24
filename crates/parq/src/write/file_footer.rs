//! The end of a file written by a [`ParquetWriter`]: the Bloom filters, the page indexes
//! (their file offsets then set on the chunks), the footer index and the footer, and the
//! metadata [`ParquetWriter::close`] returns.
//!
//! The footer is encoded straight to the output, a piece at a time (the fields before the
//! row groups, then each row group, then the fields after them), so that no copy of a wide
//! file's footer is held. With the footer index, which goes before the footer and gives the
//! footer's offsets and checksum, the pieces are encoded twice: once for the index, once to
//! the output (the same bytes). The metadata returned is made of the footer's parts as the
//! writer holds them, not decoded again from the bytes. An encrypted file's footer is
//! sealed whole: it is encoded into a buffer, and its metadata is decoded from the
//! plaintext (as the file's keys show it).

use std::io::Write;

use super::{writer_error, ParquetWriter, FORMAT_VERSION};
use crate::format::crypto::FileEncryptor;
use crate::format::footer::{build_index, DecodeOptions, IndexBuilder};
use crate::format::metadata::{ByteRange, ColumnOrder, FileMetaData, KeyValue, RowGroup, Schema};
use crate::format::thrift::{wire, Limits, Writer};
use crate::write::arrow_schema::{encode_arrow_schema, ARROW_SCHEMA_KEY};
use crate::write::column::Shared;
use crate::write::page_index::PageIndexWriter;
use crate::write::statistics::StatsOrder;
use crate::Result;

/// The footer's fields beside the schema and the row groups, their bytes in the writer's
/// arena.
struct Header {
    kvs: Vec<KeyValue>,
    created_by: Option<ByteRange>,
    orders: Option<Vec<ColumnOrder>>,
}

/// A piece of the footer as [`Footer::encode_pieces`] hands it on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// The fields before the row groups, and the `row_groups` field header.
    Head,
    /// The header of the `row_groups` list.
    ListHeader,
    /// One `RowGroup` struct.
    RowGroup,
    /// The fields after the row groups, and the struct's end.
    Tail,
}

impl<W: Write> ParquetWriter<W> {
    /// Writes the open row group, the Bloom filters, the page indexes and the footer;
    /// returns the file's metadata.
    pub(super) fn finish(&mut self) -> Result<FileMetaData> {
        self.flush_row_group()?;
        // From here on only the metadata is needed: release the columns' state.
        self.columns = super::columns::Columns::default();
        self.shared = Shared::default();
        self.write_blooms()?;
        self.write_page_indexes()?;
        let header = self.header()?;
        if let Some(e) = self.encryptor.take() {
            return self.finish_encrypted(&header, e);
        }
        let mut scratch = Vec::new();
        if self.props.footer_index() {
            let mut index = IndexBuilder::new(Limits::default());
            self.footer()
                .encode_pieces(&header, None, &mut scratch, &mut |piece, bytes| {
                    match piece {
                        Piece::Head => index.head(bytes),
                        Piece::ListHeader => index.list_header(bytes),
                        Piece::RowGroup => index.row_group(bytes)?,
                        Piece::Tail => index.tail(bytes),
                    }
                    Ok(())
                })?;
            if let Some(block) = index.finish() {
                self.out.write_all(&block)?;
            }
        }
        let start = self.out.pos;
        let footer = Footer {
            schema: &self.schema,
            num_rows: self.num_rows,
            row_groups: &self.row_groups,
            buf: self.arena.as_slice(),
        };
        let out = &mut self.out;
        footer.encode_pieces(&header, None, &mut scratch, &mut |_, bytes| {
            Ok(out.write_all(bytes)?)
        })?;
        let len =
            u32::try_from(self.out.pos - start).map_err(|_| writer_error("a footer over 4 GiB"))?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(b"PAR1")?;
        self.out.flush()?;
        let mut meta = FileMetaData::new(
            FORMAT_VERSION,
            self.schema.clone(),
            self.num_rows,
            std::mem::take(&mut self.row_groups),
            std::mem::take(&mut self.arena).freeze(),
        );
        meta.key_value_metadata = Some(header.kvs);
        meta.created_by = header.created_by;
        meta.column_orders = header.orders;
        Ok(meta)
    }

    /// The footer of an encrypted file, sealed whole; the metadata decoded from its
    /// plaintext.
    fn finish_encrypted(&mut self, header: &Header, e: FileEncryptor) -> Result<FileMetaData> {
        let mut plain = Vec::new();
        self.footer()
            .encode_pieces(header, None, &mut Vec::new(), &mut |_, bytes| {
                plain.extend_from_slice(bytes);
                Ok(())
            })?;
        let meta = crate::format::footer::decode_metadata(&plain, &DecodeOptions::default())?;
        drop(plain);
        for (rg, g) in self.row_groups.iter_mut().enumerate() {
            for (j, c) in g.columns.iter_mut().enumerate() {
                e.seal_chunk(rg, j, c, &mut self.arena, &self.schema)?;
            }
        }
        let mut sealed = Vec::new();
        self.footer()
            .encode_pieces(header, Some(&e), &mut Vec::new(), &mut |_, bytes| {
                sealed.extend_from_slice(bytes);
                Ok(())
            })?;
        let footer = e.seal_footer(&sealed)?;
        drop(sealed);
        self.row_groups = Vec::new();
        if self.props.footer_index() {
            if let Some(index) = build_index(&footer, Limits::default())? {
                self.out.write_all(&index)?;
            }
        }
        self.out.write_all(&footer)?;
        let len = u32::try_from(footer.len()).map_err(|_| writer_error("a footer over 4 GiB"))?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(e.magic())?;
        self.out.flush()?;
        Ok(meta)
    }

    /// Writes the Bloom filters and sets their places on the chunks.
    fn write_blooms(&mut self) -> Result<()> {
        let base = self.out.pos;
        self.out.write_all(&self.blooms)?;
        for e in &self.bloom_entries {
            let off = i64::try_from(base + e.start as u64)
                .map_err(|_| writer_error("file offset past i64"))?;
            let len = i32::try_from(e.len).map_err(|_| writer_error("Bloom filter over 2 GiB"))?;
            let chunk = self
                .row_groups
                .get_mut(e.row_group)
                .and_then(|g| g.columns.get_mut(e.column))
                .ok_or_else(|| writer_error("a Bloom filter without its chunk"))?;
            chunk.set_bloom_filter_location(off, len);
        }
        self.blooms = Vec::new();
        self.bloom_entries = Vec::new();
        Ok(())
    }

    /// Writes the page indexes (all column indexes, then all offset indexes) and sets their
    /// file offsets on the chunks: those of the written row groups held their places among
    /// the kept indexes, the copied ones are given theirs.
    fn write_page_indexes(&mut self) -> Result<()> {
        let at = self.out.pos;
        let oi_base = at + self.page_index.column_indexes_len() as u64;
        let locations = self.page_index.write(&mut self.out, at)?;
        self.page_index = PageIndexWriter::new();
        for l in locations {
            let c = self
                .row_groups
                .get_mut(l.row_group)
                .and_then(|g| g.columns.get_mut(l.column))
                .ok_or_else(|| writer_error("a page index without its chunk"))?;
            if let Some((o, n)) = l.column_index {
                c.set_column_index_location(o, n);
            }
            if let Some((o, n)) = l.offset_index {
                c.set_offset_index_location(o, n);
            }
        }
        let offset = |base: u64, start: i64| {
            i64::try_from(base + start as u64)
                .map_err(|_| writer_error("page index offset past the largest file offset"))
        };
        for &rg in &self.placed_indexes {
            let Some(g) = self.row_groups.get_mut(rg) else {
                return Err(writer_error("a written row group missing"));
            };
            for c in &mut g.columns {
                if let (Some(o), Some(n)) = (c.column_index_offset(), c.column_index_length()) {
                    c.set_column_index_location(offset(at, o)?, n);
                }
                if let (Some(o), Some(n)) = (c.offset_index_offset(), c.offset_index_length()) {
                    c.set_offset_index_location(offset(oi_base, o)?, n);
                }
            }
        }
        self.placed_indexes = Vec::new();
        Ok(())
    }

    /// The footer's fields beside the schema and row groups (key-value metadata: the
    /// properties', the Arrow schema's, then `ARROW:schema`), their bytes pushed to the
    /// arena.
    fn header(&mut self) -> Result<Header> {
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
        let (created_by, orders) = match &self.inherited {
            // The statistics of copied row groups are read under their file's header.
            Some(h) => (
                h.created_by.as_ref().map(|c| self.arena.push(c)),
                h.column_orders.clone(),
            ),
            None => {
                let orders = self
                    .stats_orders()?
                    .into_iter()
                    .map(StatsOrder::column_order);
                let created_by = self.arena.push(self.props.created_by().as_bytes());
                (Some(created_by), Some(orders.collect()))
            }
        };
        Ok(Header {
            kvs,
            created_by,
            orders,
        })
    }

    /// The parts the footer is encoded from.
    fn footer(&self) -> Footer<'_> {
        Footer {
            schema: &self.schema,
            num_rows: self.num_rows,
            row_groups: &self.row_groups,
            buf: self.arena.as_slice(),
        }
    }
}

/// What the footer is encoded from (the writer's fields, borrowed apart from its output).
struct Footer<'a> {
    schema: &'a Schema,
    num_rows: i64,
    row_groups: &'a [RowGroup],
    /// The arena the byte ranges refer to.
    buf: &'a [u8],
}

impl Footer<'_> {
    /// Encodes the Thrift `FileMetaData` of the file (with the encryption fields of a
    /// plaintext footer when `encryptor` says so) a piece at a time into `scratch`, handing
    /// each to `emit`.
    fn encode_pieces(
        &self,
        header: &Header,
        encryptor: Option<&FileEncryptor>,
        scratch: &mut Vec<u8>,
        emit: &mut dyn FnMut(Piece, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let buf = self.buf;
        let mut last = 0i16;
        scratch.clear();
        let w = &mut Writer::new(scratch);
        w.write_field_header(wire::I32, 1, &mut last);
        w.write_i32(FORMAT_VERSION);
        w.write_field_header(wire::LIST, 2, &mut last);
        self.schema.encode_list(w);
        w.write_field_header(wire::I64, 3, &mut last);
        w.write_i64(self.num_rows);
        w.write_field_header(wire::LIST, 4, &mut last);
        emit(Piece::Head, scratch)?;
        scratch.clear();
        Writer::new(scratch).write_list_header(wire::STRUCT, self.row_groups.len());
        emit(Piece::ListHeader, scratch)?;
        for g in self.row_groups {
            scratch.clear();
            g.encode(&mut Writer::new(scratch), buf, self.schema);
            emit(Piece::RowGroup, scratch)?;
        }
        scratch.clear();
        let w = &mut Writer::new(scratch);
        w.write_field_header(wire::LIST, 5, &mut last);
        KeyValue::encode_list(&header.kvs, w, buf);
        if let Some(c) = header.created_by {
            w.write_field_header(wire::BINARY, 6, &mut last);
            w.write_binary(c.slice(buf));
        }
        if let Some(orders) = &header.orders {
            w.write_field_header(wire::LIST, 7, &mut last);
            w.write_list_header(wire::STRUCT, orders.len());
            for o in orders {
                // ColumnOrder is a union of empty structs: TYPE_ORDER (field 1),
                // IEEE_754_TOTAL_ORDER (2), INT96_TIMESTAMP_ORDER (3); an undefined order is
                // the empty union.
                let mut l = 0i16;
                let id = match *o {
                    ColumnOrder::TypeDefined => Some(1),
                    ColumnOrder::Ieee754TotalOrder => Some(2),
                    ColumnOrder::Int96TimestampOrder => Some(3),
                    ColumnOrder::Undefined => None,
                    ColumnOrder::Unrecognized { field_id, .. } => Some(field_id),
                };
                if let Some(id) = id {
                    w.write_field_header(wire::STRUCT, id, &mut l);
                    w.write_stop();
                }
                w.write_stop();
            }
        }
        if let Some(e) = encryptor {
            e.write_footer_fields(w, &mut last);
        }
        w.write_stop();
        emit(Piece::Tail, scratch)
    }
}
