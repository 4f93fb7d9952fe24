//! `FileMetaData` (the footer), `KeyValue` and `ColumnOrder`. Decoding honours the
//! [`DecodeOptions`](crate::footer::DecodeOptions): selected row groups and columns,
//! statistics policy, skipped sub-structures, and a reusable schema.

use std::sync::Arc;

use super::column_chunk::ChunkKeep;
use super::row_group::ColumnSelection;
use super::{
    keep_binary, keep_raw, missing, Arena, ByteRange, ColumnChunk, EncryptionAlgorithm, RowGroup,
    Schema, SortingColumn, StructWriter, UnknownFields,
};
use crate::crypto::FileDecryptor;
use crate::error::{Error, ErrorKind, Result};
use crate::footer::DecodeOptions;
use crate::thrift::{wire, Limits, Reader, Writer};

/// `KeyValue`: application metadata.
///
/// ```thrift
/// struct KeyValue { 1: required string key; 2: optional string value; }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyValue {
    /// Field 1, `key`.
    pub key: ByteRange,
    /// Field 2, `value`.
    pub value: Option<ByteRange>,
}

impl KeyValue {
    /// Decodes a `list<KeyValue>` (after its field header). Fields of an entry other than a
    /// binary `key` and `value` are skipped.
    pub fn decode_list(r: &mut Reader<'_>, arena: Option<&mut Arena>) -> Result<Vec<KeyValue>> {
        Self::decode_list_keeping(r, arena, None)
    }

    /// Decodes a `list<KeyValue>`; with `unknown`, the other fields of an entry (a `value` of
    /// another wire type, as fastparquet 0.8 wrote for non-string values, or fields this
    /// version does not know) are kept there with the entry's index and the entry.
    fn decode_list_keeping(
        r: &mut Reader<'_>,
        mut arena: Option<&mut Arena>,
        mut unknown: Option<&mut Vec<KeyValueUnknown>>,
    ) -> Result<Vec<KeyValue>> {
        let n = r.read_list_len()?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let (mut key, mut value) = (None, None);
            let mut extra = UnknownFields::default();
            let keep_extra = unknown.is_some();
            super::read_fields(r, "KeyValue", |r, fid, fty| match (fid, fty) {
                (1, wire::BINARY) => keep_binary(r, &mut arena, None)
                    .map(|v| key = Some(v))
                    .map(|_| true),
                (2, wire::BINARY) => keep_binary(r, &mut arena, None)
                    .map(|v| value = Some(v))
                    .map(|_| true),
                _ if keep_extra => extra.keep(r, arena.as_deref_mut(), fid, fty).map(|_| true),
                _ => Ok(false),
            })
            .map_err(|e| e.in_element("KeyValue", i as u32))?;
            let key = key.ok_or_else(|| missing(r, "KeyValue", "key"))?;
            let kv = KeyValue { key, value };
            if let Some(u) = unknown.as_deref_mut() {
                if !extra.is_empty() {
                    u.push(KeyValueUnknown {
                        index: i,
                        entry: kv,
                        fields: extra,
                    });
                }
            }
            out.push(kv);
        }
        Ok(out)
    }

    /// Encodes a `list<KeyValue>` (without field header).
    pub fn encode_list(list: &[KeyValue], w: &mut Writer<'_>, buf: &[u8]) {
        Self::encode_list_with(list, &[], w, buf);
    }

    /// Encodes a `list<KeyValue>` with the kept fields of its entries (an entry gets the fields
    /// kept for its index only if it is still the entry they were decoded with).
    fn encode_list_with(
        list: &[KeyValue],
        unknown: &[KeyValueUnknown],
        w: &mut Writer<'_>,
        buf: &[u8],
    ) {
        let none = UnknownFields::default();
        w.write_list_header(wire::STRUCT, list.len());
        for (i, kv) in list.iter().enumerate() {
            let extra = unknown
                .iter()
                .find(|u| u.index == i && u.entry == *kv)
                .map_or(&none, |u| &u.fields);
            let mut s = StructWriter::new(extra, buf);
            s.binary(w, 1, kv.key.slice(buf));
            if let Some(v) = kv.value {
                s.binary(w, 2, v.slice(buf));
            }
            s.end(w);
        }
    }
}

/// The fields of one `key_value_metadata` entry that [`KeyValue`] has no place for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct KeyValueUnknown {
    /// The entry's index in the list.
    index: usize,
    /// The entry as decoded.
    entry: KeyValue,
    /// Its other fields.
    fields: UnknownFields,
}

/// `ColumnOrder` union: how min/max statistics of a column are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnOrder {
    /// `TYPE_ORDER` (field 1): the order defined by the logical/physical type.
    TypeDefined,
    /// `IEEE_754_TOTAL_ORDER` (field 2): IEEE 754 total order for floating point columns.
    Ieee754TotalOrder,
    /// `INT96_TIMESTAMP_ORDER` (field 3): chronological order of INT96 timestamps (days in
    /// the last 4 bytes, then nanoseconds in the first 8, both signed little-endian).
    Int96TimestampOrder,
    /// An empty union: no order is defined (parquet-cpp reads it as "undefined").
    Undefined,
    /// A union variant this version does not know.
    Unrecognized {
        /// Field id of the variant.
        field_id: i16,
        /// Wire type of the variant.
        wire_type: u8,
        /// Raw value bytes.
        raw: ByteRange,
    },
}

impl ColumnOrder {
    fn decode(r: &mut Reader<'_>, arena: &mut Option<&mut Arena>) -> Result<ColumnOrder> {
        let mut id = 0i16;
        let mut out = None;
        r.enter()?;
        while let Some(ty) = r.read_field_header(&mut id)? {
            if out.is_some() {
                r.skip_field(ty)?;
                continue;
            }
            out = Some(match (id, ty) {
                (1, wire::STRUCT) => r.skip_struct().map(|_| ColumnOrder::TypeDefined)?,
                (2, wire::STRUCT) => r.skip_struct().map(|_| ColumnOrder::Ieee754TotalOrder)?,
                (3, wire::STRUCT) => r.skip_struct().map(|_| ColumnOrder::Int96TimestampOrder)?,
                _ => {
                    let raw = keep_raw(r, arena, ty)?;
                    ColumnOrder::Unrecognized {
                        field_id: id,
                        wire_type: ty,
                        raw,
                    }
                }
            });
        }
        r.leave();
        Ok(out.unwrap_or(ColumnOrder::Undefined))
    }

    fn encode(&self, w: &mut Writer<'_>, buf: &[u8]) {
        let mut last = 0i16;
        match *self {
            ColumnOrder::TypeDefined
            | ColumnOrder::Ieee754TotalOrder
            | ColumnOrder::Int96TimestampOrder => {
                let id = match *self {
                    ColumnOrder::TypeDefined => 1,
                    ColumnOrder::Ieee754TotalOrder => 2,
                    _ => 3,
                };
                w.write_field_header(wire::STRUCT, id, &mut last);
                w.write_stop();
            }
            ColumnOrder::Unrecognized {
                field_id,
                wire_type,
                raw,
            } => {
                w.write_field_header(wire_type, field_id, &mut last);
                w.write_raw(raw.slice(buf));
            }
            ColumnOrder::Undefined => {}
        }
        w.write_stop();
    }
}

/// Which row groups and columns a decoded footer holds, when it was decoded with a selection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Indices of the row groups kept (ascending), or `None` for all.
    pub row_groups: Option<Vec<usize>>,
    /// Indices of the leaf columns kept in every row group (ascending), or `None` for all.
    pub columns: Option<Vec<usize>>,
}

/// `FileMetaData`: the footer of a Parquet file.
///
/// ```thrift
/// struct FileMetaData {
///   1: required i32 version; 2: required list<SchemaElement> schema; 3: required i64 num_rows;
///   4: required list<RowGroup> row_groups; 5: optional list<KeyValue> key_value_metadata;
///   6: optional string created_by; 7: optional list<ColumnOrder> column_orders;
///   8: optional EncryptionAlgorithm encryption_algorithm;
///   9: optional binary footer_signing_key_metadata;
/// }
/// ```
///
/// Byte ranges (statistics, key-value metadata, ...) refer to [`FileMetaData::buf`].
#[derive(Debug, Clone)]
pub struct FileMetaData {
    /// Field 1, `version`.
    pub version: i32,
    /// Field 2, `schema`, with the derived leaves.
    pub schema: Arc<Schema>,
    /// Field 3, `num_rows`.
    pub num_rows: i64,
    /// Field 4, `row_groups` (only the selected ones, see [`FileMetaData::selection`]).
    pub row_groups: Vec<RowGroup>,
    /// Field 5, `key_value_metadata`.
    pub key_value_metadata: Option<Vec<KeyValue>>,
    /// Field 6, `created_by`.
    pub created_by: Option<ByteRange>,
    /// Field 7, `column_orders`.
    pub column_orders: Option<Vec<ColumnOrder>>,
    /// Field 8, `encryption_algorithm` (plaintext footers of encrypted files).
    pub encryption_algorithm: Option<EncryptionAlgorithm>,
    /// Field 9, `footer_signing_key_metadata`.
    pub footer_signing_key_metadata: Option<ByteRange>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
    /// Fields of `key_value_metadata` entries that [`KeyValue`] has no place for, kept for
    /// re-encoding.
    key_value_unknown: Vec<KeyValueUnknown>,
    /// What was selected when decoding; `None` if everything was decoded.
    pub selection: Option<Selection>,
    /// For a footer narrowed by [`FileMetaData::project`]: the file's top-level fields it
    /// keeps (their indices among the root's children).
    pub projection: Option<Vec<usize>>,
    /// The keys and AAD of an encrypted file read with its keys.
    decryptor: Option<Arc<FileDecryptor>>,
    buf: bytes::Bytes,
}

impl FileMetaData {
    const NAME: &'static str = "FileMetaData";

    /// The decryptor of an encrypted file read with its keys: the column keys and the AAD its
    /// modules (pages, indexes, Bloom filters) are decrypted with.
    pub fn decryptor(&self) -> Option<&Arc<FileDecryptor>> {
        self.decryptor.as_ref()
    }

    pub(crate) fn set_decryptor(&mut self, decryptor: FileDecryptor) {
        self.decryptor = Some(Arc::new(decryptor));
    }

    /// A footer of `version`, `schema`, `num_rows` and `row_groups` whose byte ranges refer
    /// to `buf` (as a writer holds them before encoding them), with no key-value metadata,
    /// `created_by` or column orders (public fields, set by the caller), no unknown fields,
    /// selection or encryption: what decoding its encoding gives.
    pub fn new(
        version: i32,
        schema: Arc<Schema>,
        num_rows: i64,
        row_groups: Vec<RowGroup>,
        buf: bytes::Bytes,
    ) -> FileMetaData {
        FileMetaData {
            version,
            schema,
            num_rows,
            row_groups,
            key_value_metadata: None,
            created_by: None,
            column_orders: None,
            encryption_algorithm: None,
            footer_signing_key_metadata: None,
            unknown: UnknownFields::default(),
            key_value_unknown: Vec::new(),
            selection: None,
            projection: None,
            decryptor: None,
            buf,
        }
    }

    /// The ordinal of row group `i` (of those decoded) in the file: its `ordinal` field when
    /// written, else its position among the file's row groups.
    pub fn row_group_ordinal(&self, i: usize) -> usize {
        if let Some(o) = self.row_groups.get(i).and_then(|g| g.ordinal) {
            if let Ok(o) = usize::try_from(o) {
                return o;
            }
        }
        self.selection
            .as_ref()
            .and_then(|s| s.row_groups.as_ref())
            .and_then(|r| r.get(i).copied())
            .unwrap_or(i)
    }

    /// Puts plaintext `ColumnMetaData` in place of chunks' own: `plain(row_group, leaf,
    /// chunk, buf)` is called for every chunk decoded (`row_group` its position among those
    /// decoded, `leaf` its column's leaf index, `buf` this footer's buffer) and gives the
    /// bytes of a standalone `ColumnMetaData` struct (a decrypted
    /// `encrypted_column_metadata`) or `None` to leave the chunk as it is.
    pub(crate) fn replace_column_metadata(
        &mut self,
        keep: ChunkKeep,
        limits: Limits,
        mut plain: impl FnMut(usize, usize, &ColumnChunk, &[u8]) -> Result<Option<Vec<u8>>>,
    ) -> Result<()> {
        let columns = self.selection.as_ref().and_then(|s| s.columns.clone());
        let mut arena: Option<Arena> = None;
        for (g, rg) in self.row_groups.iter_mut().enumerate() {
            for (j, chunk) in rg.columns.iter_mut().enumerate() {
                let leaf = columns
                    .as_ref()
                    .and_then(|c| c.get(j).copied())
                    .unwrap_or(j);
                let buf: &[u8] = match &arena {
                    Some(a) => a.as_slice(),
                    None => &self.buf,
                };
                let Some(bytes) = plain(g, leaf, chunk, buf)? else {
                    continue;
                };
                let a = arena.get_or_insert_with(|| Arena::from_vec(self.buf.to_vec()));
                chunk.replace_meta(&bytes, a, keep, limits).map_err(|e| {
                    e.in_struct("ColumnMetaData")
                        .in_element("ColumnChunk", j as u32)
                        .in_element("RowGroup", g as u32)
                })?;
            }
        }
        if let Some(a) = arena {
            self.buf = a.freeze();
        }
        Ok(())
    }

    /// The buffer that byte ranges of this footer refer to.
    pub fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// The bytes of `range` in this footer's buffer.
    pub fn bytes(&self, range: ByteRange) -> &[u8] {
        range.slice(&self.buf)
    }

    /// The total number of rows.
    pub fn num_rows(&self) -> i64 {
        self.num_rows
    }

    /// The row groups.
    pub fn row_groups(&self) -> &[RowGroup] {
        &self.row_groups
    }

    /// The schema.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// `created_by` as text (lossy).
    pub fn created_by(&self) -> Option<std::borrow::Cow<'_, str>> {
        self.created_by
            .map(|r| String::from_utf8_lossy(self.bytes(r)))
    }

    /// Heap bytes held by the decoded metadata: the byte arena, row groups, column chunks,
    /// key-value metadata, column orders, and the schema (counted in full even when shared).
    pub fn heap_bytes(&self) -> usize {
        self.buf.len()
            + self.schema.heap_bytes()
            + self.row_groups.capacity() * std::mem::size_of::<RowGroup>()
            + self
                .row_groups
                .iter()
                .map(RowGroup::heap_bytes)
                .sum::<usize>()
            + self
                .key_value_metadata
                .as_ref()
                .map_or(0, |k| k.capacity() * std::mem::size_of::<KeyValue>())
            + self
                .column_orders
                .as_ref()
                .map_or(0, |c| c.capacity() * std::mem::size_of::<ColumnOrder>())
            + self.unknown.heap_bytes()
            + self
                .key_value_unknown
                .iter()
                .map(|u| std::mem::size_of::<KeyValueUnknown>() + u.fields.heap_bytes())
                .sum::<usize>()
    }

    /// Decodes a footer (the Thrift `FileMetaData` bytes) with `opts`.
    pub fn decode(bytes: &[u8], opts: &DecodeOptions) -> Result<FileMetaData> {
        Self::decode_with(bytes, opts, decode_row_groups)
    }

    /// Decodes a footer, handing the `row_groups` list to `row_groups` (which decodes it, or
    /// scans it as the lazy footer does).
    pub(crate) fn decode_with(
        bytes: &[u8],
        opts: &DecodeOptions,
        mut row_groups_fn: impl FnMut(
            &mut Reader<'_>,
            &mut Arena,
            &DecodeOptions,
            &ColumnSelection,
        ) -> Result<Vec<RowGroup>>,
    ) -> Result<FileMetaData> {
        let mut r = Reader::with_limits(bytes, opts.limits);
        let sel = opts.column_selection();
        // Room for the schema and the first row group's values, as a guess; grows if needed
        // (decoding the row groups reserves the room they need after the first).
        let mut arena = Arena::with_capacity(bytes.len() / 16);
        let mut version = None;
        let mut schema: Option<Arc<Schema>> = None;
        let mut num_rows = None;
        let mut row_groups: Option<Vec<RowGroup>> = None;
        let mut kv = None;
        let mut created_by = None;
        let mut column_orders = None;
        let mut encryption_algorithm = None;
        let mut signing_key = None;
        let mut unknown = UnknownFields::default();
        let mut kv_unknown = Vec::new();
        let mut id = 0i16;
        r.enter()?;
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::NAME)),
            };
            let a = &mut arena;
            let res = match (id, ty) {
                (1, wire::I32) => r.read_i32().map(|v| version = Some(v)),
                (2, wire::LIST) => decode_schema(&mut r, opts).map(|s| schema = Some(s)),
                (3, wire::I64) => r.read_i64().map(|v| num_rows = Some(v)),
                (4, wire::LIST) => {
                    row_groups_fn(&mut r, a, opts, &sel).map(|v| row_groups = Some(v))
                }
                (5, wire::LIST) => {
                    kv_unknown.clear();
                    KeyValue::decode_list_keeping(&mut r, Some(a), Some(&mut kv_unknown))
                        .map(|v| kv = Some(v))
                }
                (6, wire::BINARY) => {
                    keep_binary(&mut r, &mut Some(a), None).map(|v| created_by = Some(v))
                }
                (7, wire::LIST) => decode_orders(&mut r, a).map(|v| column_orders = Some(v)),
                (8, wire::STRUCT) => EncryptionAlgorithm::decode(&mut r, Some(a))
                    .map(|v| encryption_algorithm = Some(v)),
                (9, wire::BINARY) => {
                    keep_binary(&mut r, &mut Some(a), None).map(|v| signing_key = Some(v))
                }
                _ => unknown.keep(&mut r, Some(a), id, ty),
            };
            if let Err(e) = res {
                return Err(e.in_field(Self::NAME, id));
            }
        }
        r.leave();
        let version = version.ok_or_else(|| missing(&r, Self::NAME, "version"))?;
        let schema = schema.ok_or_else(|| missing(&r, Self::NAME, "schema"))?;
        let num_rows = num_rows.ok_or_else(|| missing(&r, Self::NAME, "num_rows"))?;
        let row_groups = row_groups.ok_or_else(|| missing(&r, Self::NAME, "row_groups"))?;
        let selection = opts.selection();
        Ok(FileMetaData {
            version,
            schema,
            num_rows,
            row_groups,
            key_value_metadata: kv,
            created_by,
            column_orders,
            encryption_algorithm,
            footer_signing_key_metadata: signing_key,
            unknown,
            key_value_unknown: kv_unknown,
            selection,
            projection: None,
            decryptor: None,
            buf: arena.freeze(),
        })
    }

    /// This footer narrowed to the top-level fields `fields` (indices among the root's
    /// children, ascending): the schema of those fields, their leaves' column orders and, in
    /// every row group, their chunks, as if the file held those columns only
    /// ([`FileMetaData::projection`] records which). The footer must hold those chunks
    /// (decoded whole, or with a column selection that includes their leaves); sorting
    /// columns on other leaves are dropped.
    pub fn project(&self, fields: &[usize]) -> Result<FileMetaData> {
        let (schema, leaves) = self.schema.project(fields)?;
        let selected = self.selection.as_ref().and_then(|s| s.columns.as_deref());
        let position = |leaf: usize| match selected {
            Some(s) => s.binary_search(&leaf).ok(),
            None => Some(leaf),
        };
        let new_leaf = |old: i32| {
            let old = usize::try_from(old).ok()?;
            leaves.binary_search(&old).ok().map(|i| i as i32)
        };
        let row_groups = self
            .row_groups
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let columns = leaves
                    .iter()
                    .map(|&leaf| {
                        position(leaf)
                            .and_then(|p| g.columns.get(p))
                            .cloned()
                            .ok_or_else(|| {
                                Error::new(ErrorKind::InvalidArgument(format!(
                                    "row group {i} was decoded without the chunk of column {leaf}"
                                )))
                            })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let sorting_columns = g.sorting_columns.as_ref().map(|s| {
                    s.iter()
                        .filter_map(|c| {
                            new_leaf(c.column_idx)
                                .map(|column_idx| SortingColumn { column_idx, ..*c })
                        })
                        .collect()
                });
                Ok(RowGroup {
                    columns,
                    sorting_columns,
                    total_byte_size: g.total_byte_size,
                    num_rows: g.num_rows,
                    file_offset: g.file_offset,
                    total_compressed_size: g.total_compressed_size,
                    ordinal: g.ordinal,
                    unknown: g.unknown.clone(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let column_orders = self
            .column_orders
            .as_ref()
            .map(|o| leaves.iter().filter_map(|&l| o.get(l).copied()).collect());
        let selection = self
            .selection
            .as_ref()
            .and_then(|s| s.row_groups.clone())
            .map(|rgs| Selection {
                row_groups: Some(rgs),
                columns: None,
            });
        Ok(FileMetaData {
            schema: Arc::new(schema),
            row_groups,
            column_orders,
            selection,
            projection: Some(fields.to_vec()),
            decryptor: self
                .decryptor
                .as_ref()
                .map(|d| Arc::new(d.project(&leaves))),
            version: self.version,
            num_rows: self.num_rows,
            key_value_metadata: self.key_value_metadata.clone(),
            created_by: self.created_by,
            encryption_algorithm: self.encryption_algorithm.clone(),
            footer_signing_key_metadata: self.footer_signing_key_metadata,
            unknown: self.unknown.clone(),
            key_value_unknown: self.key_value_unknown.clone(),
            buf: self.buf.clone(),
        })
    }

    /// Encodes the footer as Thrift `FileMetaData`. Fails for a footer decoded with a
    /// selection or narrowed by a projection (it would describe a different file).
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<()> {
        if self.selection.is_some() || self.projection.is_some() {
            return Err(Error::new(ErrorKind::Inconsistent(
                "cannot encode a footer decoded with a row group or column selection".into(),
            )));
        }
        let buf = &self.buf[..];
        let mut w = Writer::new(out);
        let w = &mut w;
        let mut s = StructWriter::new(&self.unknown, buf);
        s.i32(w, 1, self.version);
        s.field(w, wire::LIST, 2);
        self.schema.encode_list(w);
        s.i64(w, 3, self.num_rows);
        s.field(w, wire::LIST, 4);
        w.write_list_header(wire::STRUCT, self.row_groups.len());
        for g in &self.row_groups {
            g.encode(w, buf, &self.schema);
        }
        if let Some(kv) = &self.key_value_metadata {
            s.field(w, wire::LIST, 5);
            KeyValue::encode_list_with(kv, &self.key_value_unknown, w, buf);
        }
        if let Some(v) = self.created_by {
            s.binary(w, 6, v.slice(buf));
        }
        if let Some(orders) = &self.column_orders {
            s.field(w, wire::LIST, 7);
            w.write_list_header(wire::STRUCT, orders.len());
            for o in orders {
                o.encode(w, buf);
            }
        }
        if let Some(a) = &self.encryption_algorithm {
            s.field(w, wire::STRUCT, 8);
            a.encode(w, buf);
        }
        if let Some(v) = self.footer_signing_key_metadata {
            s.binary(w, 9, v.slice(buf));
        }
        s.end(w);
        Ok(())
    }
}

fn decode_schema(r: &mut Reader<'_>, opts: &DecodeOptions) -> Result<Arc<Schema>> {
    if let Some(cached) = &opts.schema {
        let start = r.pos();
        // Compare the encoded list with the cached schema's; anything else decodes afresh.
        if r.skip_field(wire::LIST).is_ok() && &r.buf()[start..r.pos()] == cached.raw_bytes() {
            return Ok(cached.clone());
        }
        r.set_pos(start);
    }
    Schema::decode_list(r).map(Arc::new)
}

fn decode_row_groups(
    r: &mut Reader<'_>,
    arena: &mut Arena,
    opts: &DecodeOptions,
    sel: &ColumnSelection,
) -> Result<Vec<RowGroup>> {
    let n = r.read_list_len()?;
    let (chosen, count) = opts.row_group_choice(n);
    let mut out = Vec::with_capacity(count);
    for (i, &wanted) in chosen.iter().enumerate() {
        if !wanted {
            RowGroup::skip(r, |_| (), |_| ()).map_err(|e| e.in_element("RowGroup", i as u32))?;
            continue;
        }
        let before = arena.len();
        let g = RowGroup::decode(r, Some(arena), sel)
            .map_err(|e| e.in_element("RowGroup", i as u32))?;
        out.push(g);
        if out.len() == 1 {
            // Row groups of a file are alike: reserve arena room for the others as the first
            // one used (plus a margin), so the arena is not copied while growing. Arena bytes
            // are copied from the footer, so the rest of it bounds what they need.
            let per_group = arena.len() - before;
            let guess = per_group
                .saturating_mul(n - i - 1)
                .saturating_add(per_group / 8);
            arena.reserve(guess.min(r.remaining()));
        }
    }
    Ok(out)
}

fn decode_orders(r: &mut Reader<'_>, arena: &mut Arena) -> Result<Vec<ColumnOrder>> {
    let n = r.read_list_len()?;
    let mut out = Vec::with_capacity(n);
    let mut a = Some(arena);
    for i in 0..n {
        // The common encodings: the union's TYPE_ORDER, IEEE_754_TOTAL_ORDER or
        // INT96_TIMESTAMP_ORDER field holding an empty struct, then the union's STOP.
        let fast = match r.buf().get(r.pos()..r.pos() + 3) {
            Some([0x1c, 0, 0]) => Some(ColumnOrder::TypeDefined),
            Some([0x2c, 0, 0]) => Some(ColumnOrder::Ieee754TotalOrder),
            Some([0x3c, 0, 0]) => Some(ColumnOrder::Int96TimestampOrder),
            _ => None,
        };
        if let Some(o) = fast {
            r.set_pos(r.pos() + 3);
            out.push(o);
            continue;
        }
        out.push(
            ColumnOrder::decode(r, &mut a).map_err(|e| e.in_element("ColumnOrder", i as u32))?,
        );
    }
    Ok(out)
}
