//! The Parquet metadata model (parquet.thrift, format 2.12 and later), decoded straight from
//! Thrift into compact final structures and encoded back.
//!
//! Conventions shared by every structure here:
//! - Byte strings (names, statistics values, raw sub-structures) are [`ByteRange`]s into one
//!   buffer that the owner holds (the footer's [`Arena`], a page header's buffer, ...), so
//!   decoding allocates nothing per value.
//! - Fields this version does not know, and known fields that arrive with an unexpected wire
//!   type, are kept as [`UnknownFields`] and written back on encode where they were (after
//!   the field they followed), so decode -> encode -> decode is the identity and re-encoding
//!   a standard footer gives the same bytes.
//! - Enums keep values they do not know (`Unknown(i32)`) instead of failing.

mod bloom;
mod chunk_stats;
pub(crate) mod column_chunk;
mod crypto;
mod enums;
mod file;
pub(crate) mod logical_type;
mod page_header;
mod page_index;
pub(crate) mod row_group;
mod schema;
mod statistics;

pub use bloom::*;
pub use chunk_stats::*;
pub use column_chunk::*;
pub use crypto::*;
pub use enums::*;
pub use file::*;
pub use logical_type::*;
pub use page_header::*;
pub use page_index::*;
pub use row_group::*;
pub use schema::*;
pub use statistics::*;

use crate::error::{Error, ErrorKind, Result};
use crate::thrift::{wire, Reader, Writer};

/// A range of bytes inside the buffer that owns a decoded structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ByteRange {
    /// Offset of the first byte.
    pub start: u32,
    /// Number of bytes.
    pub len: u32,
}

impl ByteRange {
    /// The range `start..start + len`.
    #[inline]
    pub fn new(start: usize, len: usize) -> ByteRange {
        ByteRange {
            start: start as u32,
            len: len as u32,
        }
    }

    /// The bytes of this range inside `buf`; empty if the range does not fit (it always does
    /// for ranges produced by decoding `buf`).
    #[inline]
    pub fn slice(self, buf: &[u8]) -> &[u8] {
        let start = self.start as usize;
        buf.get(start..start + self.len as usize).unwrap_or(&[])
    }
}

/// A growable byte buffer that decoded structures point into with [`ByteRange`]s; frozen into
/// a shared [`bytes::Bytes`] when decoding ends.
#[derive(Debug, Default, Clone)]
pub struct Arena {
    bytes: Vec<u8>,
}

impl Arena {
    /// An empty arena with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Arena {
        Arena {
            bytes: Vec::with_capacity(capacity),
        }
    }

    /// An arena holding `bytes` already (ranges into them stay valid as more is pushed).
    pub(crate) fn from_vec(bytes: Vec<u8>) -> Arena {
        Arena { bytes }
    }

    /// Copies `b` into the arena and returns its range.
    #[inline]
    pub fn push(&mut self, b: &[u8]) -> ByteRange {
        let start = self.bytes.len();
        // Statistics of 4- and 8-byte types dominate: copy them without a memcpy call.
        if let Ok(a) = <[u8; 4]>::try_from(b) {
            self.bytes.extend_from_slice(&a);
        } else if let Ok(a) = <[u8; 8]>::try_from(b) {
            self.bytes.extend_from_slice(&a);
        } else {
            self.bytes.extend_from_slice(b);
        }
        ByteRange::new(start, b.len())
    }

    /// Copies `buf[start..start + len]` into the arena and returns its range. Values of up to
    /// 16 bytes (statistics, small raw sub-structures) are copied as one fixed 16-byte move
    /// when `buf` has 16 bytes from `start`, avoiding a `memcpy` call.
    #[inline(always)]
    pub(crate) fn push_from(&mut self, buf: &[u8], start: usize, len: usize) -> ByteRange {
        let at = self.bytes.len();
        match buf.get(start..start + 16).map(<[u8; 16]>::try_from) {
            Some(Ok(w)) if len <= 16 => {
                self.bytes.extend_from_slice(&w);
                self.bytes.truncate(at + len);
            }
            _ => self.bytes.extend_from_slice(&buf[start..start + len]),
        }
        ByteRange::new(at, len)
    }

    /// Makes room for at least `additional` more bytes.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.bytes.reserve(additional);
    }

    /// Drops the bytes stored after the first `len` (undoes pushes made since the arena held
    /// `len` bytes).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.bytes.truncate(len);
    }

    /// Drops every byte stored, keeping the room (ranges into the arena are void after).
    pub fn clear(&mut self) {
        self.bytes.clear();
    }

    /// The bytes stored so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes
    }

    /// Freezes the arena into a shared buffer.
    pub fn freeze(self) -> bytes::Bytes {
        bytes::Bytes::from(self.bytes)
    }

    /// Arena bytes in use.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True if nothing was stored.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A field that was not decoded into the model: its id, wire type, and raw value bytes (the
/// bytes after the field header; empty for boolean fields, whose value is the wire type), and
/// where it stood among the structure's other fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownField {
    /// The Thrift field id.
    pub id: i16,
    /// The compact protocol wire type.
    pub wire_type: u8,
    /// The raw value bytes.
    pub value: ByteRange,
    /// The id of the last field decoded into the model that preceded this one in the
    /// structure (0 if none did). Encoding writes the field right after that one, so a field
    /// that a writer placed out of id order (Databricks writes its field -16384 of
    /// `FileMetaData` last, for example) is written back where it was.
    pub after: i16,
}

/// Unknown fields of one structure, kept for re-encoding. No allocation when there are none.
// The box keeps the common (empty) case one word wide, where a bare Vec takes three.
#[allow(clippy::box_collection)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnknownFields(Option<Box<Vec<UnknownField>>>);

impl UnknownFields {
    /// True if no field was kept.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The kept fields, in the order they appeared.
    pub fn fields(&self) -> &[UnknownField] {
        self.0.as_deref().map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |v| {
            std::mem::size_of::<Vec<UnknownField>>()
                + v.capacity() * std::mem::size_of::<UnknownField>()
        })
    }

    /// Skips the value of field `id` of wire type `ty` in `r` and keeps its raw bytes (copied
    /// into `arena` when given, else as a range of `r`'s buffer). Must be called right after
    /// the field's header was read, as every structure decoder does: the field's place among
    /// the structure's fields is taken from the reader.
    #[cold]
    pub fn keep(
        &mut self,
        r: &mut Reader<'_>,
        arena: Option<&mut Arena>,
        id: i16,
        ty: u8,
    ) -> Result<()> {
        // After the model field that precedes it: the previous field, or, if that one was kept
        // here too, the model field that one follows.
        let after = match self.fields().last() {
            Some(prev) if r.follows_kept() => prev.after,
            _ => r.prev_field_id(),
        };
        let start = r.pos();
        r.skip_field(ty)?;
        r.mark_kept();
        let raw = &r.buf()[start..r.pos()];
        let value = match arena {
            Some(a) => a.push(raw),
            None => ByteRange::new(start, raw.len()),
        };
        self.0
            .get_or_insert_with(Default::default)
            .push(UnknownField {
                id,
                wire_type: ty,
                value,
                after,
            });
        Ok(())
    }
}

/// Writes the fields of one structure in id order, interleaving the structure's unknown
/// fields where they were: each right after the model field it followed when decoded (see
/// [`UnknownField::after`]), in the order they were decoded.
pub(crate) struct StructWriter<'u> {
    last: i16,
    unknown: &'u [UnknownField],
    buf: &'u [u8],
}

impl<'u> StructWriter<'u> {
    /// Starts a structure whose unknown fields are `unknown`, with raw values inside `buf`.
    #[inline]
    pub fn new(unknown: &'u UnknownFields, buf: &'u [u8]) -> Self {
        StructWriter {
            last: 0,
            unknown: unknown.fields(),
            buf,
        }
    }

    /// Writes the unknown fields that precede model field `id` (`None`: all that remain).
    #[inline]
    fn flush_before(&mut self, w: &mut Writer<'_>, id: Option<i16>) {
        while let Some((f, rest)) = self.unknown.split_first() {
            if id.is_some_and(|id| f.after >= id) {
                break;
            }
            w.write_field_header(f.wire_type, f.id, &mut self.last);
            w.write_raw(f.value.slice(self.buf));
            self.unknown = rest;
        }
    }

    /// Writes the header of field `id` with wire type `ty`.
    #[inline]
    pub fn field(&mut self, w: &mut Writer<'_>, ty: u8, id: i16) {
        if !self.unknown.is_empty() {
            self.flush_before(w, Some(id));
        }
        w.write_field_header(ty, id, &mut self.last);
    }

    /// Writes a whole i32 field.
    #[inline]
    pub fn i32(&mut self, w: &mut Writer<'_>, id: i16, v: i32) {
        self.field(w, wire::I32, id);
        w.write_i32(v);
    }

    /// Writes a whole i64 field.
    #[inline]
    pub fn i64(&mut self, w: &mut Writer<'_>, id: i16, v: i64) {
        self.field(w, wire::I64, id);
        w.write_i64(v);
    }

    /// Writes a whole binary field.
    #[inline]
    pub fn binary(&mut self, w: &mut Writer<'_>, id: i16, v: &[u8]) {
        self.field(w, wire::BINARY, id);
        w.write_binary(v);
    }

    /// Writes a whole boolean field.
    #[inline]
    pub fn bool(&mut self, w: &mut Writer<'_>, id: i16, v: bool) {
        self.field(w, if v { wire::BOOL_TRUE } else { wire::BOOL_FALSE }, id);
    }

    /// Writes the remaining unknown fields and the STOP byte.
    #[inline]
    pub fn end(mut self, w: &mut Writer<'_>) {
        if !self.unknown.is_empty() {
            self.flush_before(w, None);
        }
        w.write_stop();
    }
}

/// Skips the value of wire type `ty` at the reader's position and keeps its raw bytes: copied
/// into `arena` when given, else as a range of the reader's buffer.
#[inline]
pub(crate) fn keep_raw(
    r: &mut Reader<'_>,
    arena: &mut Option<&mut Arena>,
    ty: u8,
) -> Result<ByteRange> {
    let start = r.pos();
    r.skip_field(ty)?;
    Ok(match arena {
        Some(a) => a.push(&r.buf()[start..r.pos()]),
        None => ByteRange::new(start, r.pos() - start),
    })
}

/// An error for a missing required field of `structure`, at the reader's position.
#[cold]
pub(crate) fn missing(r: &Reader<'_>, structure: &'static str, field: &'static str) -> Error {
    Error::missing(structure, field).with_offset(r.offset())
}

/// An error for an invalid value at the reader's position.
#[cold]
pub(crate) fn invalid(r: &Reader<'_>, what: &'static str, value: i64) -> Error {
    r.error(ErrorKind::InvalidValue { what, value })
}

/// Reads the fields of a small struct: `f` returns `Ok(true)` for a field it consumed and
/// `Ok(false)` for one to skip. Errors name `name` and the field id.
pub(crate) fn read_fields(
    r: &mut Reader<'_>,
    name: &'static str,
    mut f: impl FnMut(&mut Reader<'_>, i16, u8) -> Result<bool>,
) -> Result<()> {
    r.enter()?;
    r.read_struct(name, |r, id, ty| match f(r, id, ty) {
        Ok(true) => Ok(()),
        Ok(false) => r.skip_field(ty),
        Err(e) => Err(e),
    })?;
    r.leave();
    Ok(())
}
