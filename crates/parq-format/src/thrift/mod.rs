//! The Thrift compact protocol, written for Parquet: a zero-copy [`Reader`] over a byte slice
//! with limits on everything, a generic skip, and a [`Writer`] that appends to a `Vec<u8>`.
//!
//! Wire format reference: Thrift's `doc/specs/thrift-compact-protocol.md`.

mod reader;
mod writer;

pub use reader::{Limits, Reader};
pub use writer::Writer;

/// Compact protocol wire types (the low nibble of a field header or list header).
pub mod wire {
    /// End of a structure.
    pub const STOP: u8 = 0;
    /// A boolean field whose value is `true` (in lists: a boolean element).
    pub const BOOL_TRUE: u8 = 1;
    /// A boolean field whose value is `false`.
    pub const BOOL_FALSE: u8 = 2;
    /// i8.
    pub const BYTE: u8 = 3;
    /// i16, zigzag varint.
    pub const I16: u8 = 4;
    /// i32, zigzag varint.
    pub const I32: u8 = 5;
    /// i64, zigzag varint.
    pub const I64: u8 = 6;
    /// f64, 8 bytes little-endian.
    pub const DOUBLE: u8 = 7;
    /// binary or string: varint length then bytes.
    pub const BINARY: u8 = 8;
    /// list.
    pub const LIST: u8 = 9;
    /// set.
    pub const SET: u8 = 10;
    /// map.
    pub const MAP: u8 = 11;
    /// struct.
    pub const STRUCT: u8 = 12;
    /// uuid: 16 bytes.
    pub const UUID: u8 = 13;
}

#[cfg(test)]
mod tests;
