//! The compact protocol writer: appends to a `Vec<u8>`, writing fields in the order the caller
//! gives them (parquet.thrift's id order), with short field headers where the id delta allows.

use super::wire;

/// A compact protocol writer appending to `out`.
#[derive(Debug)]
pub struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Writer<'a> {
    /// A writer that appends to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Writer { out }
    }

    /// The bytes written so far (including what `out` held before).
    pub fn bytes(&self) -> &[u8] {
        self.out
    }

    /// Appends raw bytes.
    #[inline]
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// Writes an unsigned varint.
    #[inline]
    pub fn write_uvarint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    /// Writes a zigzag i64.
    #[inline]
    pub fn write_i64(&mut self, v: i64) {
        self.write_uvarint(((v << 1) ^ (v >> 63)) as u64);
    }

    /// Writes a zigzag i32.
    #[inline]
    pub fn write_i32(&mut self, v: i32) {
        self.write_uvarint(((v << 1) ^ (v >> 31)) as u32 as u64);
    }

    /// Writes a zigzag i16.
    #[inline]
    pub fn write_i16(&mut self, v: i16) {
        self.write_uvarint(((v << 1) ^ (v >> 15)) as u16 as u64);
    }

    /// Writes an i8.
    #[inline]
    pub fn write_i8(&mut self, v: i8) {
        self.out.push(v as u8);
    }

    /// Writes a double, little-endian.
    #[inline]
    pub fn write_double(&mut self, v: f64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    /// Writes a binary or string.
    #[inline]
    pub fn write_binary(&mut self, b: &[u8]) {
        self.write_uvarint(b.len() as u64);
        self.out.extend_from_slice(b);
    }

    /// Writes a field header for field `id` of wire type `ty`; `last_id` is the previous field
    /// id of the structure and is updated.
    #[inline]
    pub fn write_field_header(&mut self, ty: u8, id: i16, last_id: &mut i16) {
        let delta = id as i32 - *last_id as i32;
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | ty);
        } else {
            self.out.push(ty);
            self.write_i16(id);
        }
        *last_id = id;
    }

    /// Writes a boolean field (the value is carried by the header).
    #[inline]
    pub fn write_bool_field(&mut self, id: i16, v: bool, last_id: &mut i16) {
        let ty = if v { wire::BOOL_TRUE } else { wire::BOOL_FALSE };
        self.write_field_header(ty, id, last_id);
    }

    /// Writes a list header with element type `ty` and `len` elements.
    #[inline]
    pub fn write_list_header(&mut self, ty: u8, len: usize) {
        if len < 15 {
            self.out.push(((len as u8) << 4) | ty);
        } else {
            self.out.push(0xf0 | ty);
            self.write_uvarint(len as u64);
        }
    }

    /// Writes a boolean list element.
    #[inline]
    pub fn write_bool_element(&mut self, v: bool) {
        self.out
            .push(if v { wire::BOOL_TRUE } else { wire::BOOL_FALSE });
    }

    /// Ends a structure.
    #[inline]
    pub fn write_stop(&mut self) {
        self.out.push(wire::STOP);
    }
}
