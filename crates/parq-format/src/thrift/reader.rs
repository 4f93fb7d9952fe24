//! The compact protocol reader: a cursor over a borrowed byte slice. Every length is checked
//! against the bytes that remain before it is used, varints are limited to their type's width,
//! and nesting is limited, so no input can make it allocate, recurse or loop without bound.

use super::wire;
use crate::error::{Error, ErrorKind, Result};

/// Limits applied while decoding Thrift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum nesting depth of structures, lists and maps.
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: 64 }
    }
}

/// A compact protocol reader over `buf`. Offsets in errors are relative to the slice start
/// plus `base` (the slice's offset inside the file, when known).
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
    depth: u32,
    max_depth: u32,
    /// The id of the field that precedes, in its structure, the field whose header was read
    /// last (0 if that field came first).
    prev_field_id: i16,
    /// Where the value of the last field kept with [`Reader::mark_kept`] ends (`usize::MAX`
    /// if none was).
    kept_end: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `buf`, positioned at its start.
    pub fn new(buf: &'a [u8]) -> Self {
        Self::with_limits(buf, Limits::default())
    }

    /// A reader over `buf` with explicit limits.
    pub fn with_limits(buf: &'a [u8], limits: Limits) -> Self {
        Reader {
            buf,
            pos: 0,
            base: 0,
            depth: 0,
            max_depth: limits.max_depth,
            prev_field_id: 0,
            kept_end: usize::MAX,
        }
    }

    /// Sets the absolute file offset of `buf[0]`, used in error messages.
    pub fn with_base(mut self, base: u64) -> Self {
        self.base = base;
        self
    }

    /// How many more levels of nesting [`Reader::enter`] allows from here.
    #[inline]
    pub fn depth_room(&self) -> u32 {
        self.max_depth.saturating_sub(self.depth)
    }

    /// The whole underlying buffer.
    #[inline]
    pub fn buf(&self) -> &'a [u8] {
        self.buf
    }

    /// The current position inside the buffer.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to `pos` (which must be inside the buffer; otherwise the next read fails).
    #[inline]
    pub fn set_pos(&mut self, pos: usize) {
        self.pos = pos.min(self.buf.len());
    }

    /// The number of unread bytes.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The absolute file offset of the current position.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    #[cold]
    #[inline(never)]
    fn truncated(&self, needed: usize) -> Error {
        Error::at(
            ErrorKind::Truncated {
                needed: needed as u64,
                remaining: self.remaining() as u64,
            },
            self.offset(),
        )
    }

    /// An error of `kind` at the current position.
    #[cold]
    #[inline(never)]
    pub fn error(&self, kind: ErrorKind) -> Error {
        Error::at(kind, self.offset())
    }

    /// Reads one byte.
    #[inline]
    pub fn read_byte(&mut self) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated(1)),
        }
    }

    /// Reads `n` raw bytes.
    #[inline]
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        match self
            .pos
            .checked_add(n)
            .and_then(|end| self.buf.get(self.pos..end))
        {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.truncated(n)),
        }
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes.
    #[inline(always)]
    pub fn read_uvarint(&mut self) -> Result<u64> {
        match self.buf.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Ok(b as u64)
            }
            _ => self.read_uvarint_multi(),
        }
    }

    /// A varint of two or more bytes. When eight bytes are available, varints of up to eight
    /// bytes (56 bits: every offset and size in practice) decode without a branch per byte:
    /// the terminating byte is found with a mask and the 7-bit groups are packed with shifts.
    #[inline(always)]
    fn read_uvarint_multi(&mut self) -> Result<u64> {
        if let Some(chunk) = self
            .pos
            .checked_add(8)
            .and_then(|end| self.buf.get(self.pos..end))
            .and_then(|s| <[u8; 8]>::try_from(s).ok())
        {
            let x = u64::from_le_bytes(chunk);
            let stops = !x & 0x8080_8080_8080_8080;
            if stops != 0 {
                let bits = stops.trailing_zeros() + 1; // 8, 16, ..., 64
                let len = (bits / 8) as usize;
                let v = if bits == 64 {
                    x
                } else {
                    x & ((1u64 << bits) - 1)
                };
                let v = v & 0x7f7f_7f7f_7f7f_7f7f;
                let v = (v & 0x007f_007f_007f_007f) | ((v & 0x7f00_7f00_7f00_7f00) >> 1);
                let v = (v & 0x0000_3fff_0000_3fff) | ((v & 0x3fff_0000_3fff_0000) >> 2);
                let v = (v & 0x0000_0000_0fff_ffff) | ((v & 0x0fff_ffff_0000_0000) >> 4);
                self.pos += len;
                return Ok(v);
            }
        }
        self.read_uvarint_slow()
    }

    #[inline(never)]
    fn read_uvarint_slow(&mut self) -> Result<u64> {
        let mut value: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.read_byte()?;
            value |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(value);
            }
            shift += 7;
            if shift > 63 {
                return Err(self.error(ErrorKind::VarintTooLong));
            }
        }
    }

    /// Reads a zigzag i64.
    #[inline]
    pub fn read_i64(&mut self) -> Result<i64> {
        let v = self.read_uvarint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Reads a zigzag i32. Wider varints are truncated to 32 bits, as Thrift's C++ and Java
    /// readers do (files they read must read the same here).
    #[inline]
    pub fn read_i32(&mut self) -> Result<i32> {
        let v = self.read_uvarint()? as u32;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// Reads a zigzag i16 as Thrift's C++ reader does: the varint is truncated to 32 bits,
    /// zigzag-decoded, then truncated to 16 bits.
    #[inline]
    pub fn read_i16(&mut self) -> Result<i16> {
        self.read_i32().map(|v| v as i16)
    }

    /// Reads an i8 (one byte, two's complement).
    #[inline]
    pub fn read_i8(&mut self) -> Result<i8> {
        Ok(self.read_byte()? as i8)
    }

    /// Reads a double: 8 bytes little-endian.
    #[inline]
    pub fn read_double(&mut self) -> Result<f64> {
        let b = self.read_bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// Reads a binary/string length and returns the position range of its bytes, advancing
    /// past them. The length is checked against the remaining bytes.
    #[inline]
    pub fn read_binary_range(&mut self) -> Result<(usize, usize)> {
        let len = self.read_uvarint()?;
        if len > self.remaining() as u64 {
            return Err(self.error(ErrorKind::LengthTooLarge {
                length: len,
                remaining: self.remaining() as u64,
            }));
        }
        let start = self.pos;
        self.pos += len as usize;
        Ok((start, len as usize))
    }

    /// Reads a binary/string, borrowed from the buffer.
    #[inline]
    pub fn read_binary(&mut self) -> Result<&'a [u8]> {
        let (start, len) = self.read_binary_range()?;
        Ok(&self.buf[start..start + len])
    }

    /// Reads a field header. Returns `None` at the end of the structure (a STOP byte, or any
    /// header whose type nibble is 0, as parquet-cpp does). `last_id` is the previous field id
    /// of this structure and is updated. Boolean fields return `wire::BOOL_TRUE` or
    /// `wire::BOOL_FALSE`, which carry the value.
    #[inline(always)]
    pub fn read_field_header(&mut self, last_id: &mut i16) -> Result<Option<u8>> {
        let b = self.read_byte()?;
        let ty = b & 0x0f;
        if ty == wire::STOP {
            return Ok(None);
        }
        self.prev_field_id = *last_id;
        let delta = (b >> 4) as i16;
        if delta != 0 {
            *last_id = last_id.wrapping_add(delta);
        } else {
            *last_id = self.read_i16()?;
        }
        Ok(Some(ty))
    }

    /// The id of the field that precedes, in its structure, the field whose header
    /// [`Reader::read_field_header`] read last: 0 if that field is the first of its structure.
    #[inline]
    pub fn prev_field_id(&self) -> i16 {
        self.prev_field_id
    }

    /// Records that the value of a field ends at the current position and was kept aside (as
    /// an unknown field), for [`Reader::follows_kept`].
    #[inline]
    pub(crate) fn mark_kept(&mut self) {
        self.kept_end = self.pos;
    }

    /// True if the field header read last starts where the value recorded by
    /// [`Reader::mark_kept`] ends: the field directly follows a kept field of the same
    /// structure. (Exact: a field header read from any earlier boundary ends before the
    /// current position, since at least the bytes of that field's value and of the current
    /// header follow it; a STOP there reads as no header.)
    pub(crate) fn follows_kept(&self) -> bool {
        if self.kept_end >= self.pos {
            return false;
        }
        let mut probe = self.clone();
        probe.pos = self.kept_end;
        let mut id = 0;
        matches!(probe.read_field_header(&mut id), Ok(Some(_))) && probe.pos == self.pos
    }

    /// Reads a list (or set) header: element wire type and element count. The count is checked
    /// against the remaining bytes (every element takes at least one byte), so callers may
    /// reserve `count` elements.
    #[inline(always)]
    pub fn read_list_header(&mut self) -> Result<(u8, usize)> {
        let b = self.read_byte()?;
        let ty = b & 0x0f;
        let short = (b >> 4) as u64;
        let len = if short == 15 {
            self.read_uvarint()?
        } else {
            short
        };
        if len > self.remaining() as u64 {
            return Err(self.error(ErrorKind::LengthTooLarge {
                length: len,
                remaining: self.remaining() as u64,
            }));
        }
        Ok((ty, len as usize))
    }

    /// Reads the fields of a structure up to its STOP, calling `field(reader, id, wire_type)`
    /// for each. Errors are wrapped with the structure's `name` and the field id. (Generic and
    /// inlined: the loop every structure decoder shares, at no cost.)
    #[inline(always)]
    pub fn read_struct(
        &mut self,
        name: &'static str,
        mut field: impl FnMut(&mut Self, i16, u8) -> Result<()>,
    ) -> Result<()> {
        let mut id = 0i16;
        loop {
            let ty = match self.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => return Ok(()),
                Err(e) => return Err(e.in_struct(name)),
            };
            if let Err(e) = field(self, id, ty) {
                return Err(e.in_field(name, id));
            }
        }
    }

    /// Reads a list (or set) header whose element type the caller knows, and returns the
    /// element count (checked against the remaining bytes). The declared element type is
    /// ignored, as parquet-cpp's generated code does, so a list with a wrong declared type still
    /// decodes as the schema says.
    #[inline]
    pub fn read_list_len(&mut self) -> Result<usize> {
        self.read_list_header().map(|(_, n)| n)
    }

    /// Reads a `list<i64>` and appends its values to `out`; returns how many there were.
    /// (The count is checked against the remaining bytes before `out` grows.)
    #[inline]
    pub fn read_i64_list_into(&mut self, out: &mut Vec<i64>) -> Result<usize> {
        let n = self.read_list_len()?;
        out.reserve(n);
        for _ in 0..n {
            out.push(self.read_i64()?);
        }
        Ok(n)
    }

    /// Reads a boolean list element (one byte: 1 is true, anything else false as in Thrift's
    /// reference implementation).
    #[inline]
    pub fn read_bool_element(&mut self) -> Result<bool> {
        Ok(self.read_byte()? == wire::BOOL_TRUE)
    }

    /// Enters a nested structure, list or map; fails past the nesting limit.
    #[inline]
    pub fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.error(ErrorKind::NestingTooDeep {
                limit: self.max_depth,
            }));
        }
        Ok(())
    }

    /// Leaves a nested structure entered with [`Reader::enter`].
    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips the value of a field of wire type `ty` (bool fields carry their value in the
    /// header, so there is nothing to skip for them).
    #[inline]
    pub fn skip_field(&mut self, ty: u8) -> Result<()> {
        match ty {
            wire::BOOL_TRUE | wire::BOOL_FALSE => Ok(()),
            _ => self.skip_element(ty),
        }
    }

    /// Skips one value of wire type `ty` as it appears inside a list, set or map (where a
    /// boolean takes one byte).
    #[inline]
    pub fn skip_element(&mut self, ty: u8) -> Result<()> {
        match ty {
            wire::I16 | wire::I32 | wire::I64 => self.skip_varint(),
            wire::BINARY => self.read_binary_range().map(drop),
            wire::STRUCT => self.skip_struct(),
            _ => self.skip_other(ty),
        }
    }

    /// Skips the rarer wire types: fixed-size values, lists, sets and maps.
    #[inline(never)]
    fn skip_other(&mut self, ty: u8) -> Result<()> {
        match ty {
            wire::BOOL_TRUE | wire::BOOL_FALSE | wire::BYTE => self.read_bytes(1).map(drop),
            wire::DOUBLE => self.read_bytes(8).map(drop),
            wire::UUID => self.read_bytes(16).map(drop),
            wire::LIST | wire::SET => {
                self.enter()?;
                let b = self.read_byte()?;
                if b & 0x0f == wire::STOP {
                    // Elements of type 0 take no bytes: Thrift's C++ skip accepts them.
                    if b >> 4 == 15 {
                        self.read_uvarint()?;
                    }
                    self.leave();
                    return Ok(());
                }
                self.pos -= 1;
                let (ety, n) = self.read_list_header()?;
                match ety {
                    wire::I16 | wire::I32 | wire::I64 => {
                        for _ in 0..n {
                            self.skip_varint()?;
                        }
                    }
                    wire::BOOL_TRUE | wire::BOOL_FALSE | wire::BYTE => {
                        self.read_bytes(n)?;
                    }
                    _ => {
                        for _ in 0..n {
                            self.skip_element(ety)?;
                        }
                    }
                }
                self.leave();
                Ok(())
            }
            wire::MAP => {
                self.enter()?;
                let n = self.read_uvarint()?;
                if n > 0 {
                    let kv = self.read_byte()?;
                    let (kt, vt) = (kv >> 4, kv & 0x0f);
                    // Entries whose key and value are of type 0 take no bytes (Thrift's C++
                    // skip accepts them); any other entry takes at least one byte.
                    if kt != wire::STOP || vt != wire::STOP {
                        if n > self.remaining() as u64 {
                            return Err(self.error(ErrorKind::LengthTooLarge {
                                length: n,
                                remaining: self.remaining() as u64,
                            }));
                        }
                        for _ in 0..n {
                            if kt != wire::STOP {
                                self.skip_element(kt)?;
                            }
                            if vt != wire::STOP {
                                self.skip_element(vt)?;
                            }
                        }
                    }
                }
                self.leave();
                Ok(())
            }
            other => Err(self.error(ErrorKind::InvalidWireType(other))),
        }
    }

    /// Skips a whole structure (its fields up to and including the STOP).
    pub fn skip_struct(&mut self) -> Result<()> {
        self.enter()?;
        loop {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(self.truncated(1));
            };
            self.pos += 1;
            let ty = b & 0x0f;
            if b >> 4 == 0 {
                if ty == wire::STOP {
                    break;
                }
                // Long form: the field id follows as a zigzag varint.
                self.skip_varint()?;
            }
            match ty {
                wire::STOP => break,
                wire::BOOL_TRUE | wire::BOOL_FALSE => {}
                wire::I16 | wire::I32 | wire::I64 => self.skip_varint()?,
                wire::BINARY => {
                    self.read_binary_range()?;
                }
                wire::STRUCT => self.skip_struct()?,
                other => self.skip_other(other)?,
            }
        }
        self.leave();
        Ok(())
    }

    /// Skips a varint without decoding it.
    #[inline]
    pub fn skip_varint(&mut self) -> Result<()> {
        match self.buf.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Ok(())
            }
            _ => self.read_uvarint().map(drop),
        }
    }
}
