//! Bytes a file writer keeps in memory until the end of the file (encoded page indexes,
//! finished row groups' footer bytes): appended in order, and all but the last
//! [`SEAL_BYTES`]-odd of them compressed (ZSTD level 1) in segments. A wide file keeps a few
//! dozen to a hundred such bytes for each of millions of column chunks; their repeated field
//! headers and close values compress several times over.

use std::io::Write;

use crate::compression::compress::compress;
use crate::compression::{decompress, Limits};
use crate::format::metadata::Compression;
use crate::Result;

/// The open bytes [`Packed`] compresses into a segment once they reach this many.
const SEAL_BYTES: usize = 1 << 20;

/// Bytes kept in order: sealed segments, compressed, then the open bytes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Packed {
    /// Compressed segments, in order, each with its length once decompressed.
    sealed: Vec<(usize, Vec<u8>)>,
    /// Bytes in the sealed segments, decompressed.
    sealed_len: usize,
    /// The last bytes, not compressed yet; appended to through [`Packed::open`].
    open: Vec<u8>,
}

impl Packed {
    /// Bytes kept, decompressed.
    pub(crate) fn len(&self) -> usize {
        self.sealed_len + self.open.len()
    }

    /// The open bytes, to append to. A segment is sealed only by
    /// [`seal_if_full`](Self::seal_if_full), so what is appended between two calls stays in
    /// one segment.
    pub(crate) fn open(&mut self) -> &mut Vec<u8> {
        &mut self.open
    }

    /// Compresses the open bytes into a segment once there are enough of them.
    pub(crate) fn seal_if_full(&mut self) -> Result<()> {
        if self.open.len() < SEAL_BYTES {
            return Ok(());
        }
        let mut packed = Vec::new();
        compress(Compression::Zstd, Some(1), &self.open, &mut packed)?;
        packed.shrink_to_fit();
        self.sealed_len += self.open.len();
        self.sealed.push((self.open.len(), packed));
        self.open.clear();
        Ok(())
    }

    /// Hands every segment, decompressed, to `each` in order (the open bytes last).
    pub(crate) fn for_each_segment(&self, mut each: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let mut plain = Vec::new();
        for (len, packed) in &self.sealed {
            plain.clear();
            // The length is the writer's own: no limit below it.
            let limits = Limits {
                max_page_bytes: (*len).max(Limits::default().max_page_bytes),
            };
            decompress(Compression::Zstd, packed, *len, &mut plain, &limits)?;
            each(&plain)?;
        }
        each(&self.open)
    }

    /// Writes every byte kept to `out`, in order.
    pub(crate) fn write<W: Write>(&self, out: &mut W) -> Result<()> {
        self.for_each_segment(|bytes| Ok(out.write_all(bytes)?))
    }

    /// The sealed segments: each one's decompressed length and its compressed bytes.
    #[cfg(test)]
    pub(crate) fn sealed(&self) -> &[(usize, Vec<u8>)] {
        &self.sealed
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.open.capacity()
            + self.sealed.capacity() * std::mem::size_of::<(usize, Vec<u8>)>()
            + self.sealed.iter().map(|(_, p)| p.capacity()).sum::<usize>()
    }
}
