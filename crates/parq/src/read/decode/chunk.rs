//! A column chunk's metadata as a leaf reads it: the chunk of a leaf in a row group
//! ([`chunk_of`]), the chunks that cannot be read ([`check_chunk`]), and what the metadata
//! lets pre-sizing reserve for a chunk's values ([`chunk_hint`]).

use crate::format::metadata::{ColumnChunk, Encoding, FileMetaData};
use crate::read::decode::values::Hint;
use crate::{Error, ErrorKind, Result};

/// The chunk of leaf `leaf` in row group `rg`.
pub(crate) fn chunk_of(meta: &FileMetaData, rg: usize, leaf: usize) -> Result<&ColumnChunk> {
    let group = meta.row_groups().get(rg).ok_or_else(|| {
        Error::new(ErrorKind::OutOfBounds {
            what: "row group",
            index: rg as u64,
            len: meta.row_groups().len() as u64,
        })
    })?;
    group.columns().get(leaf).ok_or_else(|| {
        Error::new(ErrorKind::OutOfBounds {
            what: "column chunk",
            index: leaf as u64,
            len: group.columns().len() as u64,
        })
        .in_element("row group", crate::read::error::index(rg))
    })
}

/// Refuses chunks that cannot be read: encrypted, or in another file.
pub(in crate::read) fn check_chunk(chunk: &ColumnChunk, path: &str) -> Result<()> {
    if chunk.extras().is_some_and(|e| e.crypto_metadata.is_some()) {
        // Pages of an encrypted column cannot be read without its keys (as pyarrow and
        // DuckDB refuse such a column), even when the footer is plaintext.
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "column `{path}` is encrypted (column crypto metadata); decryption is not supported"
        ))));
    }
    if chunk.file_path().is_some() {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "column chunks in other files (file_path) are not supported yet: {path}"
        ))));
    }
    Ok(())
}

/// Output bytes that pre-sizing may reserve per byte a chunk occupies in the file, and at
/// least (see [`chunk_hint`]).
const RESERVE_PER_CHUNK_BYTE: usize = 64;
const RESERVE_MIN_BYTES: usize = 1 << 16;

/// What the metadata says a chunk holds: slots, value bytes of byte arrays, for pre-sizing.
/// `num_values` is checked against the pages as they are read; the byte count is the chunk's
/// `size_statistics.unencoded_byte_array_data_bytes`, or for a chunk without dictionary
/// encoding (whose values are all in its pages) its uncompressed size. As these numbers come
/// from the file, what they make the reader reserve is bounded by the `budget`:
/// [`RESERVE_PER_CHUNK_BYTE`] times the bytes the chunk really occupies in the file (its
/// `total_compressed_size`, clamped to the `file_bytes` there are), at least
/// [`RESERVE_MIN_BYTES`]. Buffers grow past it only as values are really decoded.
pub(in crate::read) fn chunk_hint(chunk: &ColumnChunk, footer_buf: &[u8], file_bytes: u64) -> Hint {
    let encoded = u64::try_from(chunk.total_compressed_size())
        .unwrap_or(0)
        .min(file_bytes);
    let encoded = usize::try_from(encoded).unwrap_or(usize::MAX);
    let budget = encoded
        .saturating_mul(RESERVE_PER_CHUNK_BYTE)
        .max(RESERVE_MIN_BYTES);
    let size = usize::try_from(chunk.total_uncompressed_size()).unwrap_or(0);
    let bound = size.saturating_mul(8).max(1 << 16);
    let values = usize::try_from(chunk.num_values()).unwrap_or(0);
    let encodings = chunk.encodings();
    let dictionary = chunk.dictionary_page_offset().is_some()
        || encodings.contains(Encoding::PlainDictionary)
        || encodings.contains(Encoding::RleDictionary);
    // Encodings expand byte arrays up to ~16x (DELTA_BYTE_ARRAY prefixes) or far more
    // (dictionary indices): the byte count is trusted up to 64x the chunk.
    let byte_bound = size.saturating_mul(64).max(1 << 16);
    let bytes = chunk
        .size_statistics(footer_buf)
        .and_then(|s| s.ok())
        .and_then(|s| s.unencoded_byte_array_data_bytes)
        .and_then(|b| usize::try_from(b).ok())
        .or((!dictionary).then_some(size))
        .unwrap_or(0);
    Hint {
        values: values.min(bound),
        bytes: bytes.min(byte_bound).min(budget),
        budget,
    }
}
