//! What a read decodes before its leaves exist ([`Setup`]), and the pruning it does first,
//! as stages that each ask for file bytes and take them ([`Stage`]):
//!
//! 1. the Bloom filters of the filter's `=` / `IN` columns in the row groups the statistics
//!    left (`ReadOptions::bloom_filters`): a row group none of whose filters can hold a
//!    literal is skipped;
//! 2. the dictionary pages of the filter's compared columns, in the row groups left, where
//!    a chunk's data pages are all dictionary-encoded (`ReadOptions::dictionary_filters`):
//!    a row group in which no entry satisfies a comparison the predicate needs is skipped
//!    (as parquet-java's dictionary filter);
//! 3. the page index of the row groups left (with a filter or a row selection), whose
//!    column index then leaves out the pages without a row to read.
//!
//! Each stage goes to the next once all its bytes are in; bytes that do not decode rule
//! nothing out (as pyarrow reads a broken page index or Bloom filter).

use std::ops::Range;
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_schema::SchemaRef;
use bytes::Bytes;

use crate::bloom::Sbbf;
use crate::format::crypto::ColumnDecryptor;
use crate::format::footer::{decode_page_index, page_index_range, PageIndex};
use crate::format::metadata::FileMetaData;
use crate::page::PageReaderOptions;
use crate::read::decode::chunk::{
    chunk_of, dictionary_page_range, dictionary_values, only_dictionary_pages,
};
use crate::read::decode::leaf::{ChunkSource, ColumnOptions};
use crate::read::exec::stats::{data_pages, ReadStats};
use crate::read::filter::bind::BoundFilter;
use crate::read::plan::fields::{ColumnSpec, Plan};
use crate::read::plan::selection::RowSelection;

/// What a read decodes, and where its pruning stands.
#[derive(Debug)]
pub(crate) struct Setup {
    pub meta: Arc<FileMetaData>,
    pub columns: ColumnOptions,
    pub source: ChunkSource,
    pub batch_size: usize,
    pub coalesce: u64,
    pub threads: usize,
    /// Whether the user chose rows.
    pub selected: bool,
    /// The chosen columns, then those only the filter reads.
    pub plan: Arc<Plan>,
    /// The schema of the batches handed out.
    pub output: SchemaRef,
    /// The filter, and how many of the plan's columns are handed out (the first ones).
    pub filter: Option<(Arc<BoundFilter>, usize)>,
    /// The row groups to read, with the rows of each the user chose.
    pub row_groups: Vec<(usize, Option<RowSelection>)>,
    /// The leaf columns decoded, sorted.
    pub leaves: Vec<usize>,
    /// Whether dictionaries are read to skip row groups.
    pub dictionary_filters: bool,
    /// Whether the page index of the row groups left is read.
    pub read_index: bool,
    /// Where the pruning stands.
    pub stage: Stage,
    /// Row groups and pages skipped so far.
    pub stats: ReadStats,
}

/// The pruning stage a [`Setup`] is at.
#[derive(Debug)]
pub(crate) enum Stage {
    /// Waiting for these Bloom filters.
    Blooms(Vec<BloomWant>),
    /// Waiting for these dictionary pages.
    Dictionaries(Vec<DictionaryWant>),
    /// Waiting for the page index, in this file range.
    PageIndex(Range<u64>),
    /// Pruned: the leaves can be built, with the page index when one was read and decoded.
    Ready(Option<Box<PageIndex>>),
}

/// A Bloom filter a read wants: of `row_groups[group]`, for the bound filter column `col`.
#[derive(Debug)]
pub(crate) struct BloomWant {
    pub group: usize,
    pub col: usize,
    pub range: Range<u64>,
    /// The decryptor of an encrypted column's chunk.
    pub decryptor: Option<ColumnDecryptor>,
    /// Once its bytes came: the filter, `None` when they do not hold one (it then rules
    /// nothing out).
    pub loaded: Option<Option<Sbbf>>,
}

/// A dictionary page a read wants: of `row_groups[group]` (row group `rg`), for the bound
/// filter column `col`, its entries decoded by `spec` (the leaf's, as its value type).
#[derive(Debug)]
pub(crate) struct DictionaryWant {
    group: usize,
    rg: usize,
    col: usize,
    spec: ColumnSpec,
    range: Range<u64>,
    /// Once its bytes came: the entries, `None` when they do not decode.
    loaded: Option<Option<ArrayRef>>,
}

/// Whether `range` lies inside the `len` bytes pushed from `offset`.
fn covered(range: &Range<u64>, offset: u64, len: usize) -> bool {
    range.start >= offset && range.end <= offset.saturating_add(len as u64)
}

/// The part of `bytes` (pushed from `offset`) that `range` covers.
fn part(bytes: &Bytes, offset: u64, range: &Range<u64>) -> Option<Bytes> {
    let start = usize::try_from(range.start.checked_sub(offset)?).ok()?;
    let end = usize::try_from(range.end.checked_sub(offset)?).ok()?;
    (end <= bytes.len()).then(|| bytes.slice(start..end))
}

impl Setup {
    /// The file ranges the current stage waits for (empty once ready).
    pub(crate) fn wanted(&self) -> Vec<Range<u64>> {
        match &self.stage {
            Stage::Blooms(b) => b
                .iter()
                .filter(|b| b.loaded.is_none())
                .map(|b| b.range.clone())
                .collect(),
            Stage::Dictionaries(d) => d
                .iter()
                .filter(|d| d.loaded.is_none())
                .map(|d| d.range.clone())
                .collect(),
            Stage::PageIndex(r) => vec![r.clone()],
            Stage::Ready(_) => Vec::new(),
        }
    }

    /// Takes the file bytes `bytes` (from file offset `offset`) for what the current stage
    /// waits for.
    pub(crate) fn push(&mut self, offset: u64, bytes: &Bytes) {
        match &mut self.stage {
            Stage::Blooms(blooms) => {
                for b in blooms.iter_mut().filter(|b| b.loaded.is_none()) {
                    if let Some(buf) = part(bytes, offset, &b.range) {
                        let read = match &b.decryptor {
                            Some(d) => Sbbf::read_encrypted(&buf, d),
                            None => Sbbf::read(&buf),
                        };
                        b.loaded = Some(read.ok().map(|(f, _)| f));
                    }
                }
            }
            Stage::Dictionaries(wants) => {
                for d in wants.iter_mut().filter(|d| d.loaded.is_none()) {
                    if let Some(buf) = part(bytes, offset, &d.range) {
                        d.loaded = Some(load_dictionary(&self.meta, &self.columns, d, buf));
                    }
                }
            }
            Stage::PageIndex(range) => {
                if covered(range, offset, bytes.len()) {
                    let rgs: Vec<usize> = self.row_groups.iter().map(|g| g.0).collect();
                    let index = decode_page_index(
                        bytes,
                        offset,
                        &self.meta,
                        Some(&rgs),
                        Some(&self.leaves),
                    );
                    self.stage = Stage::Ready(index.ok().map(Box::new));
                }
            }
            Stage::Ready(_) => {}
        }
    }

    /// Goes through the stages whose bytes are all in: true once ready.
    pub(crate) fn advance(&mut self) -> bool {
        loop {
            let next = match &mut self.stage {
                Stage::Blooms(b) if b.iter().all(|b| b.loaded.is_some()) => {
                    let blooms = std::mem::take(b);
                    self.apply_blooms(&blooms);
                    Stage::Dictionaries(self.dictionary_wants())
                }
                Stage::Dictionaries(d) if d.iter().all(|d| d.loaded.is_some()) => {
                    let wants = std::mem::take(d);
                    self.apply_dictionaries(&wants);
                    match self.index_range() {
                        Some(r) => Stage::PageIndex(r),
                        None => Stage::Ready(None),
                    }
                }
                Stage::Ready(_) => return true,
                _ => return false,
            };
            self.stage = next;
        }
    }

    /// Skips `row_groups[i]`, counting its pages.
    fn skipped(&mut self, rg: usize) {
        self.stats.row_groups_skipped += 1;
        self.stats.pages_skipped += data_pages(&self.meta, rg, &self.plan);
    }

    /// Keeps the row groups for which `keep(i)` (by position) holds, counting the others.
    fn retain_groups(&mut self, keep: impl Fn(usize) -> bool) -> usize {
        let groups = std::mem::take(&mut self.row_groups);
        let mut dropped = 0;
        for (i, g) in groups.into_iter().enumerate() {
            if keep(i) {
                self.row_groups.push(g);
            } else {
                self.skipped(g.0);
                dropped += 1;
            }
        }
        dropped
    }

    /// Skips the row groups whose Bloom filters (all loaded) rule out every row the filter
    /// keeps.
    fn apply_blooms(&mut self, blooms: &[BloomWant]) {
        self.stats.bloom_filters_read += blooms.len();
        let Some((f, n)) = self.filter.take() else {
            return;
        };
        let meta = Arc::clone(&self.meta);
        let dropped = self.retain_groups(|i| {
            let filters = |col: usize| {
                blooms
                    .iter()
                    .find(|b| b.group == i && b.col == col)
                    .and_then(|b| b.loaded.as_ref()?.as_ref())
            };
            f.bloom_may_match(&meta, &filters)
        });
        self.stats.row_groups_skipped_by_bloom += dropped;
        self.filter = Some((f, n));
    }

    /// The dictionary pages to read: of the filter's compared columns, in the row groups
    /// left, where every data page of the chunk is dictionary-encoded.
    fn dictionary_wants(&self) -> Vec<DictionaryWant> {
        let Some((f, _)) = &self.filter else {
            return Vec::new();
        };
        if !self.dictionary_filters {
            return Vec::new();
        }
        let mut wants = Vec::new();
        let columns = f.compared_columns();
        for (group, (rg, _)) in self.row_groups.iter().enumerate() {
            for (col, leaf, value_type) in &columns {
                let Some(spec) = self.plan.leaves.iter().find(|s| s.leaf == *leaf) else {
                    continue;
                };
                let Ok(chunk) = chunk_of(&self.meta, *rg, *leaf) else {
                    continue;
                };
                if !only_dictionary_pages(chunk, self.meta.buf()) {
                    continue;
                }
                let Some(range) = dictionary_page_range(chunk) else {
                    continue;
                };
                if range.end > self.source.file_len {
                    continue;
                }
                wants.push(DictionaryWant {
                    group,
                    rg: *rg,
                    col: *col,
                    spec: ColumnSpec {
                        data_type: value_type.clone(),
                        ..spec.clone()
                    },
                    range,
                    loaded: None,
                });
            }
        }
        wants
    }

    /// Skips the row groups whose dictionaries (all loaded) hold no entry a comparison the
    /// predicate needs can hold for.
    fn apply_dictionaries(&mut self, wants: &[DictionaryWant]) {
        self.stats.dictionaries_read += wants.len();
        if wants.is_empty() {
            return;
        }
        let Some((f, n)) = self.filter.take() else {
            return;
        };
        let dropped = self.retain_groups(|i| {
            let entries = |col: usize| {
                wants
                    .iter()
                    .find(|d| d.group == i && d.col == col)
                    .and_then(|d| d.loaded.clone()?)
            };
            f.dictionary_may_match(&entries)
        });
        self.stats.row_groups_skipped_by_dictionary += dropped;
        self.filter = Some((f, n));
    }

    /// The page index range of the row groups left, when it is read.
    fn index_range(&self) -> Option<Range<u64>> {
        if !self.read_index || self.row_groups.is_empty() {
            return None;
        }
        let kept: Vec<usize> = self.row_groups.iter().map(|(rg, _)| *rg).collect();
        page_index_range(&self.meta, Some(&kept), Some(&self.leaves))
    }
}

/// The entries of the dictionary page `d` wants, from its bytes `buf`.
fn load_dictionary(
    meta: &FileMetaData,
    columns: &ColumnOptions,
    d: &DictionaryWant,
    buf: Bytes,
) -> Option<ArrayRef> {
    let chunk = chunk_of(meta, d.rg, d.spec.leaf).ok()?;
    let options = PageReaderOptions {
        verify_crc: columns.verify_crc,
        row_group: Some(d.rg),
        column: Some(d.spec.leaf),
        ..PageReaderOptions::default()
    };
    let decryptor = meta.chunk_decryptor(d.rg, d.spec.leaf, chunk).ok()?;
    dictionary_values(buf, d.range.start, chunk, &d.spec, options, decryptor)
}
