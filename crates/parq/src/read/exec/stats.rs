//! What a read has done ([`ReadStats`]) and the counts it takes from the metadata: the data
//! pages of a row group's chosen chunks, a row group's rows.

use crate::format::metadata::{FileMetaData, PageType};
use crate::read::decode::chunk::{chunk_of, row_group};
use crate::read::error::index;
use crate::read::plan::fields::Plan;
use crate::{Error, ErrorKind, Result};

/// What a read has done: row groups read and skipped by the filter, rows decoded and kept,
/// bytes read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Row groups read (chosen and not skipped).
    pub row_groups_read: usize,
    /// Chosen row groups the filter skipped (by their statistics, Bloom filters,
    /// dictionaries or page index).
    pub row_groups_skipped: usize,
    /// Of those, the row groups the Bloom filters skipped.
    pub row_groups_skipped_by_bloom: usize,
    /// Of those, the row groups the dictionaries skipped (no entry satisfies a comparison
    /// the filter needs).
    pub row_groups_skipped_by_dictionary: usize,
    /// Bloom filters read.
    pub bloom_filters_read: usize,
    /// Dictionary pages read to skip row groups.
    pub dictionaries_read: usize,
    /// Rows decoded so far.
    pub rows_decoded: u64,
    /// Rows handed out so far (those the filter kept).
    pub rows_kept: u64,
    /// Data pages decoded so far.
    pub pages_read: u64,
    /// Data pages of the chosen columns in the skipped row groups (as their chunks'
    /// `encoding_stats` count them; chunks without them count none).
    pub pages_skipped: u64,
    /// Values of the data pages decoded that were passed over undecoded: of a column with
    /// one value per row, the rows of a page before the selection (or the filter's kept
    /// rows) starts and after it ends, where the page's encoding lets values be skipped.
    pub values_passed_over: u64,
    /// Bytes read (pushed) so far: what the decoder asked for, coalesced gaps included.
    pub bytes_read: u64,
    /// The bytes of the column chunks the read decodes (the chosen columns, and those the
    /// filter reads, in the row groups read): the rest of the file's chunks are skipped.
    pub chunk_bytes: u64,
}

impl ReadStats {
    /// Adds what another read did.
    pub fn add(&mut self, other: &ReadStats) {
        self.row_groups_read += other.row_groups_read;
        self.row_groups_skipped += other.row_groups_skipped;
        self.row_groups_skipped_by_bloom += other.row_groups_skipped_by_bloom;
        self.row_groups_skipped_by_dictionary += other.row_groups_skipped_by_dictionary;
        self.bloom_filters_read += other.bloom_filters_read;
        self.dictionaries_read += other.dictionaries_read;
        self.rows_decoded += other.rows_decoded;
        self.rows_kept += other.rows_kept;
        self.pages_read += other.pages_read;
        self.pages_skipped += other.pages_skipped;
        self.values_passed_over += other.values_passed_over;
        self.bytes_read += other.bytes_read;
        self.chunk_bytes += other.chunk_bytes;
    }
}

/// The data pages of `plan`'s leaves in row group `rg`, by their chunks' `encoding_stats`.
pub(crate) fn data_pages(meta: &FileMetaData, rg: usize, plan: &Plan) -> u64 {
    let mut n = 0u64;
    for spec in &plan.leaves {
        let Ok(chunk) = chunk_of(meta, rg, spec.leaf) else {
            continue;
        };
        if let Some(Ok(stats)) = chunk.encoding_stats(meta.buf()) {
            for s in stats {
                if matches!(s.page_type, PageType::DataPage | PageType::DataPageV2) {
                    n += u64::try_from(s.count).unwrap_or(0);
                }
            }
        }
    }
    n
}

/// The rows of row group `rg`.
pub(crate) fn row_group_rows(meta: &FileMetaData, rg: usize) -> Result<usize> {
    let group = row_group(meta, rg)?;
    let n = group.num_rows();
    usize::try_from(n).map_err(|_| {
        Error::new(ErrorKind::InvalidValue {
            what: "num_rows",
            value: n,
        })
        .in_row_group(index(rg))
    })
}
