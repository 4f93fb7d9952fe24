//! Locating and decoding a footer: the file tail (`<footer> <u32 length> PAR1`), the
//! decode options (statistics policy, skipped sub-structures, row group and column
//! selection, schema reuse, limits), the push-style [`FooterDecoder`], the [`LazyFooter`]
//! view, the footer index ([`build_index`], [`FooterIndex`]) and the page index.
//!
//! ```
//! use parq_format::footer::{decode_file_metadata, decode_metadata, metadata_slice, DecodeOptions};
//!
//! // The smallest file: `PAR1`, no row groups, the footer (Thrift compact `FileMetaData`:
//! // version 2, a schema of one required INT64 column `id`, 0 rows), its length, `PAR1`.
//! let footer: &[u8] = &[
//!     0x15, 0x04, // 1: version = 2
//!     0x19, 0x2c, // 2: schema, a list of 2 structs
//!     0x48, 6, b's', b'c', b'h', b'e', b'm', b'a', 0x15, 0x02, 0x00, // root, 1 child
//!     0x15, 0x04, 0x25, 0x00, 0x18, 2, b'i', b'd', 0x00, // INT64, REQUIRED, "id"
//!     0x16, 0x00, // 3: num_rows = 0
//!     0x19, 0x0c, // 4: row_groups, an empty list
//!     0x00,
//! ];
//! let mut file = b"PAR1".to_vec();
//! file.extend_from_slice(footer);
//! file.extend_from_slice(&(footer.len() as u32).to_le_bytes());
//! file.extend_from_slice(b"PAR1");
//!
//! let meta = decode_file_metadata(&file, &DecodeOptions::default())?;
//! assert_eq!((meta.version, meta.num_rows), (2, 0));
//! assert_eq!(meta.schema.leaf_path_string(0), "id");
//!
//! // The same from the footer's bytes alone, as a reader that fetched the file's tail has.
//! let again = decode_metadata(metadata_slice(&file)?, &DecodeOptions::default())?;
//! assert_eq!(again.num_rows, meta.num_rows);
//! # Ok::<(), parq_format::Error>(())
//! ```

mod index;
mod layout;
mod lazy;
mod page_index;

use std::ops::Range;
use std::sync::Arc;

pub use index::{
    build_index, index_payload_len, FooterIndex, IndexBuilder, INDEX_MAGIC, INDEX_TRAILER_BYTES,
};
pub use lazy::LazyFooter;
pub use page_index::{
    decode_page_index, page_index_range, ColumnIndexView, OffsetIndexView, PageIndex,
};

use crate::crypto::{decode_encrypted_footer, decrypt_plaintext_footer, FileDecryptionProperties};
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::column_chunk::ChunkKeep;
use crate::metadata::row_group::ColumnSelection;
use crate::metadata::{FileMetaData, Schema, Selection};
use crate::thrift::Limits;

/// The magic at the start and end of a plaintext-footer Parquet file.
pub const MAGIC: &[u8; 4] = b"PAR1";
/// The magic at the end of a file whose footer is encrypted.
pub const MAGIC_ENCRYPTED: &[u8; 4] = b"PARE";
/// Bytes of the tail: the footer length (u32 little-endian) and the magic.
pub const TAIL_BYTES: u64 = 8;
/// Default limit on the footer size (the format allows up to 4 GiB).
pub const DEFAULT_MAX_FOOTER_BYTES: u64 = 1 << 30;

/// Which statistics to keep while decoding column chunks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum StatisticsPolicy {
    /// Keep the statistics of every column chunk.
    #[default]
    KeepAll,
    /// Skip all column chunk statistics.
    SkipAll,
    /// Keep the statistics of these leaf columns only.
    KeepColumns(Vec<usize>),
}

/// Options for decoding a footer.
#[derive(Debug, Clone)]
pub struct DecodeOptions {
    /// Which column chunk statistics to keep.
    pub statistics: StatisticsPolicy,
    /// Skip `ColumnMetaData.encoding_stats`.
    pub skip_page_encoding_stats: bool,
    /// Skip `ColumnMetaData.size_statistics`.
    pub skip_size_statistics: bool,
    /// Skip `ColumnMetaData.geospatial_statistics`.
    pub skip_geospatial_statistics: bool,
    /// Decode only these leaf columns (by index) in every row group; `None`: all.
    pub columns: Option<Vec<usize>>,
    /// Decode only these row groups (by index); `None`: all.
    pub row_groups: Option<Vec<usize>>,
    /// A schema decoded before (from a file with the same schema): reused without decoding
    /// when the footer's encoded schema is byte-identical.
    pub schema: Option<Arc<Schema>>,
    /// Use a footer index written before the footer (when there is a valid one) to decode a
    /// row group or column selection without walking the rest.
    pub use_footer_index: bool,
    /// The keys of an encrypted file: its footer decrypted (or its signature verified) and
    /// the metadata of the columns the keys open decrypted. Without them an encrypted footer
    /// is an error and a plaintext one decodes with its encrypted columns' metadata hidden.
    pub decryption: Option<Arc<FileDecryptionProperties>>,
    /// The largest footer accepted.
    pub max_footer_bytes: u64,
    /// Thrift decoding limits.
    pub limits: Limits,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            statistics: StatisticsPolicy::KeepAll,
            skip_page_encoding_stats: false,
            skip_size_statistics: false,
            skip_geospatial_statistics: false,
            columns: None,
            row_groups: None,
            schema: None,
            use_footer_index: true,
            decryption: None,
            max_footer_bytes: DEFAULT_MAX_FOOTER_BYTES,
            limits: Limits::default(),
        }
    }
}

fn mask(indices: &[usize]) -> Vec<bool> {
    let len = indices.iter().copied().max().map_or(0, |m| m + 1);
    let mut m = vec![false; len];
    for &i in indices {
        m[i] = true;
    }
    m
}

fn sorted(indices: &[usize]) -> Vec<usize> {
    let mut v = indices.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

impl DecodeOptions {
    /// Options that skip every statistic and sub-structure not needed to locate data.
    pub fn minimal() -> Self {
        DecodeOptions {
            statistics: StatisticsPolicy::SkipAll,
            skip_page_encoding_stats: true,
            skip_size_statistics: true,
            skip_geospatial_statistics: true,
            ..Default::default()
        }
    }

    pub(crate) fn chunk_keep(&self) -> ChunkKeep {
        ChunkKeep {
            statistics: self.statistics != StatisticsPolicy::SkipAll,
            encoding_stats: !self.skip_page_encoding_stats,
            size_statistics: !self.skip_size_statistics,
            geospatial_statistics: !self.skip_geospatial_statistics,
        }
    }

    pub(crate) fn column_selection(&self) -> ColumnSelection {
        let keep = self.chunk_keep();
        ColumnSelection {
            columns: self.columns.as_deref().map(mask),
            indices: self.columns.as_deref().map(sorted),
            statistics: match &self.statistics {
                StatisticsPolicy::KeepColumns(c) => Some(mask(c)),
                _ => None,
            },
            keep: if keep == ChunkKeep::ALL {
                None
            } else {
                Some(keep)
            },
        }
    }

    /// Whether a footer index would help: a selection is asked for and the index allowed.
    fn wants_index(&self) -> bool {
        self.use_footer_index && (self.columns.is_some() || self.row_groups.is_some())
    }

    /// Which of `n` row groups are decoded (`chosen[i]`), and how many.
    pub(crate) fn row_group_choice(&self, n: usize) -> (Vec<bool>, usize) {
        match self.row_groups.as_deref().map(mask) {
            None => (vec![true; n], n),
            Some(mut m) => {
                m.resize(n, false);
                let count = m.iter().filter(|&&b| b).count();
                (m, count)
            }
        }
    }

    pub(crate) fn selection(&self) -> Option<Selection> {
        if self.columns.is_none() && self.row_groups.is_none() {
            return None;
        }
        Some(Selection {
            row_groups: self.row_groups.as_deref().map(sorted),
            columns: self.columns.as_deref().map(sorted),
        })
    }
}

/// Parses the 8-byte tail of a file of `file_bytes` bytes and returns the footer length. A
/// file whose footer is encrypted (`PARE`) is an [`ErrorKind::EncryptedFooter`] error (see
/// [`parse_tail_any`]).
pub fn parse_tail(tail: &[u8], file_bytes: u64, max_footer_bytes: u64) -> Result<u64> {
    match parse_tail_any(tail, file_bytes, max_footer_bytes)? {
        (len, false) => Ok(len),
        (_, true) => Err(Error::at(
            ErrorKind::EncryptedFooter,
            file_bytes.saturating_sub(4),
        )),
    }
}

/// Parses the 8-byte tail of a file of `file_bytes` bytes: the footer length, and whether the
/// footer is encrypted (magic `PARE`; the footer is then a `FileCryptoMetaData` and the
/// encrypted `FileMetaData`).
pub fn parse_tail_any(tail: &[u8], file_bytes: u64, max_footer_bytes: u64) -> Result<(u64, bool)> {
    let at = file_bytes.saturating_sub(TAIL_BYTES);
    let t: &[u8; 8] = tail.try_into().map_err(|_| {
        Error::at(
            ErrorKind::Truncated {
                needed: 8,
                remaining: tail.len() as u64,
            },
            at,
        )
    })?;
    let magic = [t[4], t[5], t[6], t[7]];
    let encrypted = &magic == MAGIC_ENCRYPTED;
    if !encrypted && &magic != MAGIC {
        return Err(Error::at(ErrorKind::BadMagic { found: magic }, at + 4));
    }
    let len = u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as u64;
    // The footer must fit before the tail (parquet-cpp does not insist on room for the
    // leading magic, so neither do we).
    if len + TAIL_BYTES > file_bytes {
        return Err(Error::at(
            ErrorKind::FooterLengthOutOfRange {
                footer_bytes: len,
                file_bytes,
            },
            at,
        ));
    }
    if len > max_footer_bytes {
        return Err(Error::at(
            ErrorKind::FooterTooLarge {
                footer_bytes: len,
                limit: max_footer_bytes,
            },
            at,
        ));
    }
    Ok((len, encrypted))
}

/// The footer (Thrift `FileMetaData` bytes) inside the bytes of a whole file.
pub fn metadata_slice(file: &[u8]) -> Result<&[u8]> {
    match metadata_slice_with_limit(file, DEFAULT_MAX_FOOTER_BYTES)? {
        (footer, false) => Ok(footer),
        (_, true) => Err(Error::at(
            ErrorKind::EncryptedFooter,
            (file.len() as u64).saturating_sub(4),
        )),
    }
}

fn metadata_slice_with_limit(file: &[u8], max_footer_bytes: u64) -> Result<(&[u8], bool)> {
    let n = file.len() as u64;
    if n < 12 {
        return Err(Error::at(ErrorKind::FileTooShort { file_bytes: n }, 0));
    }
    let tail = &file[file.len() - 8..];
    let (len, encrypted) = parse_tail_any(tail, n, max_footer_bytes)?;
    let end = file.len() - 8;
    Ok((&file[end - len as usize..end], encrypted))
}

/// Decodes a footer (the Thrift `FileMetaData` bytes) with `opts`.
pub fn decode_metadata(footer: &[u8], opts: &DecodeOptions) -> Result<FileMetaData> {
    if footer.len() as u64 > opts.max_footer_bytes {
        return Err(Error::new(ErrorKind::FooterTooLarge {
            footer_bytes: footer.len() as u64,
            limit: opts.max_footer_bytes,
        }));
    }
    let md = FileMetaData::decode(footer, opts)?;
    finish_plaintext(md, footer, opts)
}

/// A plaintext footer of an encrypted file, read with keys: its signature verified and its
/// columns' metadata decrypted.
fn finish_plaintext(md: FileMetaData, footer: &[u8], opts: &DecodeOptions) -> Result<FileMetaData> {
    match (&opts.decryption, &md.encryption_algorithm) {
        (Some(props), Some(_)) => decrypt_plaintext_footer(md, footer, opts, props),
        _ => Ok(md),
    }
}

/// Decodes a footer: plaintext (through `index` for a selection, see
/// [`decode_metadata_with_index`]) or, when `encrypted` (the file ends in `PARE`), with the
/// keys of [`DecodeOptions::decryption`].
pub fn decode_footer(
    footer: &[u8],
    encrypted: bool,
    index: Option<FooterIndex<'_>>,
    opts: &DecodeOptions,
) -> Result<FileMetaData> {
    if !encrypted {
        return decode_metadata_with_index(footer, index, opts);
    }
    if footer.len() as u64 > opts.max_footer_bytes {
        return Err(Error::new(ErrorKind::FooterTooLarge {
            footer_bytes: footer.len() as u64,
            limit: opts.max_footer_bytes,
        }));
    }
    match &opts.decryption {
        Some(props) => decode_encrypted_footer(footer, opts, props),
        None => Err(Error::new(ErrorKind::EncryptedFooter)),
    }
}

/// Decodes a footer with `opts`; a selection of row groups or columns is decoded through
/// `index` (the footer index found before the footer) when it is given and consistent with
/// the footer, without walking the chunks not selected. The result is the same either way.
pub fn decode_metadata_with_index(
    footer: &[u8],
    index: Option<FooterIndex<'_>>,
    opts: &DecodeOptions,
) -> Result<FileMetaData> {
    if opts.wants_index() && footer.len() as u64 <= opts.max_footer_bytes {
        if let Some(md) = index
            .and_then(|i| i.layout(footer, opts.limits))
            .and_then(|l| l.decode_file(footer, opts))
        {
            return finish_plaintext(md, footer, opts);
        }
    }
    decode_metadata(footer, opts)
}

/// Decodes the footer of a whole file held in memory (through its footer index for a
/// selection); error offsets are file offsets.
pub fn decode_file_metadata(file: &[u8], opts: &DecodeOptions) -> Result<FileMetaData> {
    let (footer, encrypted) = metadata_slice_with_limit(file, opts.max_footer_bytes)?;
    if encrypted && opts.decryption.is_none() {
        return Err(Error::at(
            ErrorKind::EncryptedFooter,
            (file.len() as u64).saturating_sub(4),
        ));
    }
    let base = file.len() - 8 - footer.len();
    let index = (!encrypted)
        .then(|| FooterIndex::find(&file[..base]))
        .flatten();
    decode_footer(footer, encrypted, index, opts).map_err(|e| e.rebase(base as u64))
}

/// A push-style footer decoder: it says which byte range of the file it needs next
/// ([`FooterDecoder::next_range`]), the caller fetches it however it likes (a file, memory,
/// an object store) and pushes it ([`FooterDecoder::push`]), until the metadata is ready.
#[derive(Debug)]
pub struct FooterDecoder {
    file_bytes: u64,
    opts: DecodeOptions,
    prefetch_bytes: u64,
    state: State,
}

#[derive(Debug)]
enum State {
    NeedTail,
    /// The footer at `start..start + len`, and the `extra` bytes before it that may hold a
    /// footer index trailer.
    NeedFooter {
        start: u64,
        len: u64,
        extra: u64,
        encrypted: bool,
    },
    /// The footer index payload at `start..start + len`; the footer (at `footer_at`) and the
    /// index checksum are kept meanwhile.
    NeedIndex {
        start: u64,
        len: u64,
        crc: u32,
        footer: Vec<u8>,
        footer_at: u64,
    },
    Done(Box<FileMetaData>),
    Taken,
}

impl FooterDecoder {
    /// A decoder for a file of `file_bytes` bytes.
    pub fn new(file_bytes: u64, opts: DecodeOptions) -> Self {
        FooterDecoder {
            file_bytes,
            opts,
            prefetch_bytes: TAIL_BYTES,
            state: State::NeedTail,
        }
    }

    /// Asks for the last `bytes` bytes first (at least the 8-byte tail), so a footer that fits
    /// in them needs a single fetch.
    pub fn with_prefetch(mut self, bytes: u64) -> Self {
        self.prefetch_bytes = bytes.max(TAIL_BYTES);
        self
    }

    /// The byte range of the file needed next, or `None` when the metadata is ready.
    pub fn next_range(&self) -> Option<Range<u64>> {
        match &self.state {
            State::NeedTail => {
                let n = self.prefetch_bytes.min(self.file_bytes);
                Some(self.file_bytes - n..self.file_bytes)
            }
            State::NeedFooter {
                start, len, extra, ..
            } => Some(start - extra..start + len),
            State::NeedIndex { start, len, .. } => Some(*start..start + len),
            State::Done(_) | State::Taken => None,
        }
    }

    /// Pushes bytes of the file starting at `offset`; they must cover [`Self::next_range`].
    pub fn push(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        let Some(want) = self.next_range() else {
            return Ok(());
        };
        let have = offset..offset + bytes.len() as u64;
        if want.start < have.start || want.end > have.end {
            return Err(Error::new(ErrorKind::WrongRange {
                expected_start: want.start,
                expected_len: want.end - want.start,
                got_start: have.start,
                got_len: have.end - have.start,
            }));
        }
        if let State::NeedTail = self.state {
            if self.file_bytes < 12 {
                return Err(Error::at(
                    ErrorKind::FileTooShort {
                        file_bytes: self.file_bytes,
                    },
                    0,
                ));
            }
            let tail_at = (self.file_bytes - TAIL_BYTES - offset) as usize;
            let (len, encrypted) = parse_tail_any(
                &bytes[tail_at..tail_at + 8],
                self.file_bytes,
                self.opts.max_footer_bytes,
            )?;
            if encrypted && self.opts.decryption.is_none() {
                return Err(Error::at(ErrorKind::EncryptedFooter, self.file_bytes - 4));
            }
            let start = self.file_bytes - TAIL_BYTES - len;
            // Room for an index trailer after the leading magic.
            let extra =
                if !encrypted && self.opts.wants_index() && start >= INDEX_TRAILER_BYTES as u64 + 4
                {
                    INDEX_TRAILER_BYTES as u64
                } else {
                    0
                };
            self.state = State::NeedFooter {
                start,
                len,
                extra,
                encrypted,
            };
            if start - extra < offset {
                return Ok(());
            }
        }
        if let State::NeedFooter {
            start,
            len,
            extra,
            encrypted,
        } = self.state
        {
            let s = (start - offset) as usize;
            let footer = &bytes[s..s + len as usize];
            if encrypted {
                let md =
                    decode_footer(footer, true, None, &self.opts).map_err(|e| e.rebase(start))?;
                self.state = State::Done(Box::new(md));
                return Ok(());
            }
            let before = &bytes[..s];
            let trailer = before.get(s.saturating_sub(INDEX_TRAILER_BYTES)..);
            let index_len = if extra > 0 {
                trailer.and_then(index_payload_len)
            } else {
                None
            };
            // The payload must fit between the leading magic and the trailer.
            let index_len = index_len.filter(|&n| n + extra + 4 <= start);
            let Some(index_len) = index_len else {
                let md = decode_metadata(footer, &self.opts).map_err(|e| e.rebase(start))?;
                self.state = State::Done(Box::new(md));
                return Ok(());
            };
            let index_start = start - extra - index_len;
            if index_start >= offset {
                // Pushed already (a prefetch that reaches back far enough).
                let index = FooterIndex::find(before);
                let md = decode_metadata_with_index(footer, index, &self.opts)
                    .map_err(|e| e.rebase(start))?;
                self.state = State::Done(Box::new(md));
                return Ok(());
            }
            let t = trailer.unwrap_or(&[]);
            let crc = t
                .get(4..8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u32::from_le_bytes);
            self.state = State::NeedIndex {
                start: index_start,
                len: index_len,
                crc,
                footer: footer.to_vec(),
                footer_at: start,
            };
            return Ok(());
        }
        match std::mem::replace(&mut self.state, State::Taken) {
            State::NeedIndex {
                start,
                len,
                crc,
                footer,
                footer_at,
            } => {
                let s = (start - offset) as usize;
                let payload = &bytes[s..s + len as usize];
                let index = FooterIndex::from_parts(payload, crc);
                let md = decode_metadata_with_index(&footer, Some(index), &self.opts)
                    .map_err(|e| e.rebase(footer_at))?;
                self.state = State::Done(Box::new(md));
            }
            other => self.state = other,
        }
        Ok(())
    }

    /// Reads the footer through `read`, which gives the bytes of a file range (at least
    /// those it spans, from its start): the ranges [`Self::next_range`] asks for, in turn.
    /// The driver of every synchronous source.
    pub fn read_with<B: AsRef<[u8]>>(
        mut self,
        mut read: impl FnMut(Range<u64>) -> Result<B>,
    ) -> Result<FileMetaData> {
        while let Some(range) = self.next_range() {
            let bytes = read(range.clone())?;
            self.push(range.start, bytes.as_ref())?;
        }
        self.finish()
    }

    /// The decoded metadata, once every range asked for was pushed.
    pub fn finish(mut self) -> Result<FileMetaData> {
        self.take().ok_or_else(|| {
            Error::new(ErrorKind::Internal(
                "the footer decoder was finished before its metadata was read".into(),
            ))
        })
    }

    /// The decoded metadata, once ready (taken out of the decoder).
    pub fn take(&mut self) -> Option<FileMetaData> {
        match std::mem::replace(&mut self.state, State::Taken) {
            State::Done(md) => Some(*md),
            other => {
                self.state = other;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
