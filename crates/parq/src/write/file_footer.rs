//! The end of a file written by a [`ParquetWriter`]: the Bloom filters, the page indexes
//! (their file offsets then given to the kept row groups), the footer index and the footer,
//! and the metadata [`ParquetWriter::close`] returns.
//!
//! The footer is encoded straight to the output, a piece at a time (the fields before the
//! row groups, then each kept row group with its places set, then the fields after them), so
//! that no copy of a wide file's footer is held. With the footer index, which goes before
//! the footer and gives the footer's offsets and checksum, the pieces are encoded twice:
//! once for the index, once to the output (the same bytes). The metadata `close` returns is
//! decoded from the row groups' pieces as they are written; `close_summary` makes none. An
//! encrypted file's footer is sealed whole: its row groups are decoded, it is encoded into a
//! buffer, and its metadata is decoded from the plaintext (as the file's keys show it).

use std::io::Write;

use super::groups::FinishedGroups;
use super::{writer_error, ParquetWriter, FORMAT_VERSION};
use crate::format::crypto::FileEncryptor;
use crate::format::footer::{build_index, DecodeOptions, IndexBuilder};
use crate::format::metadata::{
    Arena, ByteRange, ColumnOrder, FileMetaData, KeyValue, RowGroup, Schema,
};
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
    /// returns the file's metadata when `metadata` asks for it.
    pub(super) fn finish(&mut self, metadata: bool) -> Result<Option<FileMetaData>> {
        self.flush_row_group()?;
        // From here on only the metadata is needed: release the columns' state.
        self.columns = super::columns::Columns::default();
        self.shared = Shared::default();
        self.write_blooms()?;
        self.write_page_indexes()?;
        let header = self.header()?;
        if let Some(e) = self.encryptor.take() {
            let meta = self.finish_encrypted(header, e)?;
            return Ok(metadata.then_some(meta));
        }
        let mut scratch = Vec::new();
        if self.props.footer_index() {
            let mut index = IndexBuilder::new(Limits::default());
            self.footer(Groups::Finished(&self.groups)).encode_pieces(
                &header,
                None,
                &mut scratch,
                &mut |piece, bytes| {
                    match piece {
                        Piece::Head => index.head(bytes),
                        Piece::ListHeader => index.list_header(bytes),
                        Piece::RowGroup => index.row_group(bytes)?,
                        Piece::Tail => index.tail(bytes),
                    }
                    Ok(())
                },
            )?;
            if let Some(block) = index.finish() {
                self.out.write_all(&block)?;
            }
        }
        let start = self.out.pos;
        // The row groups decoded as they are written, when the metadata is returned.
        let mut decoded = metadata.then(|| (Vec::new(), Arena::default()));
        let footer = Footer {
            schema: &self.schema,
            num_rows: self.num_rows,
            groups: Groups::Finished(&self.groups),
            buf: self.arena.as_slice(),
        };
        let out = &mut self.out;
        footer.encode_pieces(&header, None, &mut scratch, &mut |piece, bytes| {
            if let (Piece::RowGroup, Some((groups, arena))) = (piece, &mut decoded) {
                groups.push(RowGroup::decode_from(bytes, Some(arena))?);
            }
            Ok(out.write_all(bytes)?)
        })?;
        let len =
            u32::try_from(self.out.pos - start).map_err(|_| writer_error("a footer over 4 GiB"))?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(b"PAR1")?;
        self.out.flush()?;
        let Some((groups, mut arena)) = decoded else {
            return Ok(None);
        };
        let header = header.moved(self.arena.as_slice(), &mut arena);
        let mut meta = FileMetaData::new(
            FORMAT_VERSION,
            self.schema.clone(),
            self.num_rows,
            groups,
            arena.freeze(),
        );
        meta.key_value_metadata = Some(header.kvs);
        meta.created_by = header.created_by;
        meta.column_orders = header.orders;
        Ok(Some(meta))
    }

    /// The footer of an encrypted file, sealed whole; the metadata decoded from its
    /// plaintext.
    fn finish_encrypted(&mut self, header: Header, e: FileEncryptor) -> Result<FileMetaData> {
        // Every chunk's metadata is sealed in place: decoded, with the footer's fields, into
        // one arena.
        let mut arena = Arena::default();
        let mut row_groups = Vec::with_capacity(self.groups.len());
        self.groups.visit(&self.schema, &mut Vec::new(), |bytes| {
            row_groups.push(RowGroup::decode_from(bytes, Some(&mut arena))?);
            Ok(())
        })?;
        let header = header.moved(self.arena.as_slice(), &mut arena);
        self.arena = arena;
        let mut plain = Vec::new();
        self.footer(Groups::Decoded(&row_groups)).encode_pieces(
            &header,
            None,
            &mut Vec::new(),
            &mut |_, bytes| {
                plain.extend_from_slice(bytes);
                Ok(())
            },
        )?;
        let meta = crate::format::footer::decode_metadata(&plain, &DecodeOptions::default())?;
        drop(plain);
        for (rg, g) in row_groups.iter_mut().enumerate() {
            for (j, c) in g.columns.iter_mut().enumerate() {
                e.seal_chunk(rg, j, c, &mut self.arena, &self.schema)?;
            }
        }
        let mut sealed = Vec::new();
        self.footer(Groups::Decoded(&row_groups)).encode_pieces(
            &header,
            Some(&e),
            &mut Vec::new(),
            &mut |_, bytes| {
                sealed.extend_from_slice(bytes);
                Ok(())
            },
        )?;
        let footer = e.seal_footer(&sealed)?;
        drop(sealed);
        drop(row_groups);
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

    /// Writes the Bloom filters; the row groups keep where.
    fn write_blooms(&mut self) -> Result<()> {
        self.groups.set_bloom_base(self.out.pos);
        self.out.write_all(&self.blooms)?;
        self.blooms = Vec::new();
        Ok(())
    }

    /// Writes the page indexes (all column indexes, then all offset indexes) and keeps
    /// their places for the row groups: the written row groups' chunks hold theirs among
    /// the kept indexes, the copied ones are given theirs.
    fn write_page_indexes(&mut self) -> Result<()> {
        let at = self.out.pos;
        let oi_base = at + self.page_index.column_indexes_len() as u64;
        let copied = self.page_index.write(&mut self.out, at)?;
        self.page_index = PageIndexWriter::new();
        self.groups.set_index_places(at, oi_base, copied);
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

    /// The parts the footer is encoded from, with `groups` as its row groups.
    fn footer<'a>(&'a self, groups: Groups<'a>) -> Footer<'a> {
        Footer {
            schema: &self.schema,
            num_rows: self.num_rows,
            groups,
            buf: self.arena.as_slice(),
        }
    }
}

impl Header {
    /// The header with its bytes copied from `buf` into `arena`.
    fn moved(self, buf: &[u8], arena: &mut Arena) -> Header {
        let mut push = |r: ByteRange| arena.push(r.slice(buf));
        Header {
            kvs: self
                .kvs
                .into_iter()
                .map(|kv| KeyValue {
                    key: push(kv.key),
                    value: kv.value.map(&mut push),
                })
                .collect(),
            created_by: self.created_by.map(&mut push),
            orders: self.orders,
        }
    }
}

/// The row groups a footer is encoded from.
#[derive(Clone, Copy)]
enum Groups<'a> {
    /// As the writer keeps them (the page-index and Bloom filter places set as they are
    /// encoded).
    Finished(&'a FinishedGroups),
    /// Decoded, their byte ranges in the footer's arena.
    Decoded(&'a [RowGroup]),
}

/// What the footer is encoded from (the writer's fields, borrowed apart from its output).
struct Footer<'a> {
    schema: &'a Schema,
    num_rows: i64,
    groups: Groups<'a>,
    /// The arena the header's byte ranges (and decoded row groups') refer to.
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
        let count = match self.groups {
            Groups::Finished(g) => g.len(),
            Groups::Decoded(g) => g.len(),
        };
        Writer::new(scratch).write_list_header(wire::STRUCT, count);
        emit(Piece::ListHeader, scratch)?;
        match self.groups {
            Groups::Finished(groups) => {
                groups.visit(self.schema, scratch, |bytes| emit(Piece::RowGroup, bytes))?
            }
            Groups::Decoded(groups) => {
                for g in groups {
                    scratch.clear();
                    g.encode(&mut Writer::new(scratch), buf, self.schema);
                    emit(Piece::RowGroup, scratch)?;
                }
            }
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
