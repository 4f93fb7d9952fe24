//! [`ParquetDecoder`]: the IO-free core of every read. Built from a file's metadata and the
//! choice of columns, row groups and options ([`ParquetDecoderBuilder`]), it says which byte
//! ranges of the file it needs ([`DecodeStep::NeedData`]: per leaf column the next `fetch`
//! bytes of its chunk, or the whole next page when larger; ranges closer than the coalesce
//! gap merged), takes the bytes pushed to it ([`ParquetDecoder::push`]) and hands out
//! record batches ([`DecodeStep::Batch`]). It does no IO itself: the sync reader
//! ([`super::ParquetReader`]) answers from positional reads or bytes in memory, the async one
//! ([`super::AsyncParquetReader`]) from any range store.
//!
//! ```no_run
//! use std::sync::Arc;
//! use parq::format::footer::{decode_file_metadata, DecodeOptions};
//! use parq::read::{DecodeStep, ParquetDecoderBuilder};
//!
//! let file = bytes::Bytes::from(std::fs::read("data.parquet")?);
//! let meta = Arc::new(decode_file_metadata(&file, &DecodeOptions::default())?);
//! let mut decoder = ParquetDecoderBuilder::new(meta, file.len() as u64)
//!     .with_columns(["id"])
//!     .build()?;
//! loop {
//!     match decoder.poll()? {
//!         DecodeStep::NeedData(ranges) => {
//!             for r in ranges {
//!                 let bytes = file.slice(r.start as usize..r.end as usize);
//!                 decoder.push(r.start, bytes);
//!             }
//!         }
//!         DecodeStep::Batch(batch) => println!("{} rows", batch.num_rows()),
//!         DecodeStep::Finished => break,
//!     }
//! }
//! # Ok::<(), parq::Error>(())
//! ```

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use bytes::Bytes;

use super::error::{inconsistent, index};
use super::filter::BoundFilter;
use super::leaf::{chunk_of, ChunkSource, ChunkTask, ColumnOptions, Fill, LeafBatch, LeafReader};
use super::nested::assemble;
use super::options::ReadOptions;
use super::plan::{plan, ColumnSelection, Plan, Shape};
use super::predicate::Predicate;
use crate::format::metadata::{FileMetaData, PageType};
use crate::page::needs_legacy_dictionary_padding;
use crate::{Error, ErrorKind, Result};

/// The methods that choose what a read decodes (options, columns, row groups), for
/// [`ParquetDecoderBuilder`] and the readers that hold one (`$inner`: the path to it).
macro_rules! read_settings {
    ($($inner:ident).*) => {
        /// Sets all options.
        pub fn with_options(mut self, options: $crate::read::ReadOptions) -> Self {
            self$(.$inner)*.options = options;
            self
        }

        /// Sets the batch size in rows (at least 1).
        pub fn with_batch_size(mut self, rows: usize) -> Self {
            self$(.$inner)*.options.batch_size = rows.max(1);
            self
        }

        /// Sets how string columns are read.
        pub fn with_strings(mut self, strings: $crate::read::StringType) -> Self {
            self$(.$inner)*.options.strings = strings;
            self
        }

        /// Sets which string / binary columns are read as Arrow dictionaries.
        pub fn with_dictionary(mut self, dictionary: $crate::read::DictionaryColumns) -> Self {
            self$(.$inner)*.options.dictionary = dictionary;
            self
        }

        /// Sets whether page CRCs are verified.
        pub fn with_verify_crc(mut self, verify: bool) -> Self {
            self$(.$inner)*.options.verify_crc = verify;
            self
        }

        /// Sets what to do with strings that are not valid UTF-8.
        pub fn with_invalid_utf8(mut self, invalid_utf8: $crate::read::InvalidUtf8) -> Self {
            self$(.$inner)*.options.invalid_utf8 = invalid_utf8;
            self
        }

        /// Reads only these columns, in this order (default: all): top-level fields by index
        /// or name, or dotted paths inside them.
        pub fn with_columns<C: Into<$crate::read::ColumnSelection>>(
            mut self,
            columns: impl IntoIterator<Item = C>,
        ) -> Self {
            self$(.$inner)*.columns = Some(columns.into_iter().map(Into::into).collect());
            self
        }

        /// Reads only these row groups, in this order (default: all).
        pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
            self$(.$inner)*.row_groups = Some(row_groups.into_iter().collect());
            self
        }

        /// Keeps only the rows `predicate` holds for (SQL semantics: not where it is false
        /// or null). Row groups whose statistics show no row can hold are not read; its
        /// columns are decoded even when not chosen, and left out of the batches.
        pub fn with_filter(mut self, predicate: $crate::read::predicate::Predicate) -> Self {
            self$(.$inner)*.filter = Some(predicate);
            self
        }
    };
}
pub(crate) use read_settings;

/// What a reader holding a [`ParquetDecoderBuilder`] (the field `builder`) tells of the
/// read: its footer, options and batch schema, besides [`read_settings`].
macro_rules! reader_settings {
    () => {
        $crate::read::decoder::read_settings!(builder);

        /// The decoded footer.
        pub fn metadata(&self) -> &$crate::format::metadata::FileMetaData {
            self.builder.metadata()
        }

        /// The options in force.
        pub fn options(&self) -> &$crate::read::ReadOptions {
            self.builder.options()
        }

        /// The Arrow schema of the batches (the chosen columns).
        pub fn schema(&self) -> $crate::Result<arrow_schema::SchemaRef> {
            self.builder.schema()
        }
    };
}
pub(crate) use reader_settings;

/// What a read has done: row groups read and skipped by the filter, rows decoded and kept,
/// bytes read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Row groups read (chosen and not skipped).
    pub row_groups_read: usize,
    /// Chosen row groups the filter skipped by their statistics.
    pub row_groups_skipped: usize,
    /// Rows decoded so far.
    pub rows_decoded: u64,
    /// Rows handed out so far (those the filter kept).
    pub rows_kept: u64,
    /// Data pages decoded so far.
    pub pages_read: u64,
    /// Data pages of the chosen columns in the skipped row groups (as their chunks'
    /// `encoding_stats` count them; chunks without them count none).
    pub pages_skipped: u64,
    /// Bytes read (pushed) so far: what the decoder asked for, coalesced gaps included.
    pub bytes_read: u64,
    /// The bytes of the column chunks the read decodes (the chosen columns, and those the
    /// filter reads, in the row groups read): the rest of the file's chunks are skipped.
    pub chunk_bytes: u64,
}

/// What [`ParquetDecoder::poll`] gives.
#[derive(Debug)]
pub enum DecodeStep {
    /// The next batch.
    Batch(RecordBatch),
    /// The bytes of these file ranges (sorted, not overlapping) are needed first: push each
    /// with [`ParquetDecoder::push`] (a range that starts at or before one and covers it will
    /// do), then poll again.
    NeedData(Vec<Range<u64>>),
    /// Every batch has been handed out.
    Finished,
}

/// The choice of what a read decodes: a file's metadata, columns, row groups and options.
/// [`ParquetDecoderBuilder::build`] makes the [`ParquetDecoder`].
#[derive(Debug, Clone)]
pub struct ParquetDecoderBuilder {
    meta: Arc<FileMetaData>,
    file_len: u64,
    pub(crate) options: ReadOptions,
    pub(crate) columns: Option<Vec<ColumnSelection>>,
    pub(crate) row_groups: Option<Vec<usize>>,
    pub(crate) filter: Option<Predicate>,
}

impl ParquetDecoderBuilder {
    /// A read of the file of `file_len` bytes whose footer is `meta`: every column and row
    /// group, default options.
    pub fn new(meta: Arc<FileMetaData>, file_len: u64) -> Self {
        ParquetDecoderBuilder {
            meta,
            file_len,
            options: ReadOptions::default(),
            columns: None,
            row_groups: None,
            filter: None,
        }
    }

    read_settings!();

    /// The decoded footer.
    pub fn metadata(&self) -> &FileMetaData {
        &self.meta
    }

    /// The decoded footer, shared.
    pub fn metadata_arc(&self) -> &Arc<FileMetaData> {
        &self.meta
    }

    /// The file's length in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The options in force.
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The Arrow schema of the batches (the chosen columns).
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(self.plan(&[])?.schema)
    }

    /// The chosen row groups, checked.
    fn chosen_row_groups(&self) -> Result<Vec<usize>> {
        let n = self.meta.row_groups().len();
        match &self.row_groups {
            None => Ok((0..n).collect()),
            Some(list) => {
                if let Some(&rg) = list.iter().find(|&&rg| rg >= n) {
                    return Err(Error::new(ErrorKind::OutOfBounds {
                        what: "row group",
                        index: rg as u64,
                        len: n as u64,
                    }));
                }
                Ok(list.clone())
            }
        }
    }

    /// The read plan of the chosen columns, and of the top-level fields `extra` after them.
    fn plan(&self, extra: &[&str]) -> Result<Plan> {
        let row_groups = self.chosen_row_groups()?;
        let columns = match (&self.columns, extra) {
            (None, _) => None,
            (Some(c), []) => Some(c.clone()),
            (Some(c), extra) => Some(
                c.iter()
                    .cloned()
                    .chain(extra.iter().map(|e| ColumnSelection::Path(e.to_string())))
                    .collect(),
            ),
        };
        plan(&self.meta, &self.options, columns.as_deref(), &row_groups)
    }

    /// The plan of the chosen columns plus those the filter reads, the bound filter, and
    /// the row groups it leaves to read.
    fn filtered_plan(&self) -> Result<Filtered> {
        let mut row_groups = self.chosen_row_groups()?;
        let Some(predicate) = &self.filter else {
            return Ok(Filtered {
                plan: self.plan(&[])?,
                filter: None,
                row_groups,
                pages_skipped: 0,
            });
        };
        let chosen = self.plan(&[])?;
        let missing: Vec<&str> = predicate
            .columns()
            .into_iter()
            .filter(|c| chosen.schema.column_with_name(c).is_none())
            .collect();
        let plan = match missing.is_empty() {
            true => chosen,
            false => self.plan(&missing)?,
        };
        let outputs = plan.schema.fields().len() - missing.len();
        let leaves: Vec<Option<usize>> = plan
            .nodes
            .iter()
            .map(|n| match n.shape {
                Shape::Leaf(j) => plan.leaves.get(j).map(|l| l.leaf),
                _ => None,
            })
            .collect();
        let bound = BoundFilter::bind(predicate, &plan.schema, &leaves)?;
        let mut pages_skipped = 0u64;
        row_groups.retain(|&rg| {
            let keep = bound.may_match(&self.meta, rg);
            if !keep {
                pages_skipped += data_pages(&self.meta, rg, &plan);
            }
            keep
        });
        Ok(Filtered {
            plan,
            filter: Some((bound, outputs)),
            row_groups,
            pages_skipped,
        })
    }

    /// The decoder of the chosen columns and row groups.
    pub fn build(&self) -> Result<ParquetDecoder> {
        let Filtered {
            plan,
            filter,
            row_groups,
            pages_skipped,
        } = self.filtered_plan()?;
        let skipped = self.chosen_row_groups()?.len() - row_groups.len();
        let options = ColumnOptions {
            verify_crc: self.options.verify_crc,
            legacy_dictionary_padding: needs_legacy_dictionary_padding(
                self.meta.created_by().as_deref(),
            ),
        };
        let source = ChunkSource {
            meta: Arc::clone(&self.meta),
            file_len: self.file_len,
            fetch: self.options.fetch_bytes.max(1),
        };
        let mut leaves = Vec::with_capacity(plan.leaves.len());
        let mut chunk_bytes = 0u64;
        for spec in &plan.leaves {
            let mut tasks = Vec::with_capacity(row_groups.len());
            for &rg in &row_groups {
                let chunk = chunk_of(&self.meta, rg, spec.leaf)?;
                chunk_bytes += u64::try_from(chunk.total_compressed_size()).unwrap_or(0);
                let mut max_records = row_group_rows(&self.meta, rg)?;
                if spec.max_rep_level == 0 {
                    // One value per row: no more rows than the chunk's `num_values` either
                    // (as pyarrow reads a chunk whose count is short).
                    max_records = max_records.min(usize::try_from(chunk.num_values()).unwrap_or(0));
                }
                tasks.push(ChunkTask {
                    row_group: rg,
                    max_records,
                });
            }
            leaves.push(LeafReader::new(
                spec.clone(),
                options,
                source.clone(),
                tasks,
            )?);
        }
        // Without columns, batches count the rows the metadata gives.
        let mut rows_left = 0usize;
        for &rg in &row_groups {
            rows_left = rows_left.saturating_add(row_group_rows(&self.meta, rg)?);
        }
        let output = match &filter {
            Some((_, n)) => Arc::new(
                plan.schema
                    .project(&(0..*n).collect::<Vec<_>>())
                    .map_err(|e| Error::new(ErrorKind::Inconsistent(e.to_string())))?,
            ),
            None => plan.schema.clone(),
        };
        Ok(ParquetDecoder {
            batch_size: self.options.batch_size.max(1),
            output,
            filter,
            stats: ReadStats {
                row_groups_read: row_groups.len(),
                row_groups_skipped: skipped,
                pages_skipped,
                chunk_bytes,
                ..ReadStats::default()
            },
            plan,
            leaves,
            rows_left,
            checked: 0,
            failed: false,
            waiting: Vec::new(),
            coalesce: self.options.coalesce_bytes,
            bytes_pushed: 0,
        })
    }
}

/// The data pages of `plan`'s leaves in row group `rg`, by their chunks' `encoding_stats`.
fn data_pages(meta: &FileMetaData, rg: usize, plan: &Plan) -> u64 {
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

/// What a read decodes once its filter is bound: the plan (the chosen columns, then those
/// only the filter reads), the filter and how many columns are handed out, the row groups
/// left to read, and the data pages of the skipped ones.
struct Filtered {
    plan: Plan,
    filter: Option<(BoundFilter, usize)>,
    row_groups: Vec<usize>,
    pages_skipped: u64,
}

fn row_group_rows(meta: &FileMetaData, rg: usize) -> Result<usize> {
    let n = meta.row_groups()[rg].num_rows();
    usize::try_from(n).map_err(|_| {
        Error::new(ErrorKind::InvalidValue {
            what: "num_rows",
            value: n,
        })
        .in_element("row group", index(rg))
    })
}

fn make_batch(schema: SchemaRef, arrays: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, arrays, &options)
        .map_err(|e| Error::new(ErrorKind::Inconsistent(e.to_string())))
}

/// Decodes the chosen columns and row groups of a file from the bytes pushed to it: see the
/// [module documentation](self).
#[derive(Debug)]
pub struct ParquetDecoder {
    batch_size: usize,
    /// The schema of the batches handed out.
    output: SchemaRef,
    /// The filter, and how many of the decoded columns are handed out (the first ones).
    filter: Option<(BoundFilter, usize)>,
    stats: ReadStats,
    plan: Plan,
    leaves: Vec<LeafReader>,
    /// Rows still to hand out when no column is chosen.
    rows_left: usize,
    /// Chunks whose row counts all leaves agree on.
    checked: usize,
    failed: bool,
    /// Leaves waiting for bytes, and the file range each needs.
    waiting: Vec<(usize, Range<u64>)>,
    coalesce: u64,
    bytes_pushed: u64,
}

impl ParquetDecoder {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.output.clone()
    }

    /// The bytes pushed so far.
    pub fn bytes_pushed(&self) -> u64 {
        self.bytes_pushed
    }

    /// What the read has done so far.
    pub fn stats(&self) -> ReadStats {
        ReadStats {
            bytes_read: self.bytes_pushed,
            pages_read: self.leaves.iter().map(LeafReader::pages_read).sum(),
            ..self.stats
        }
    }

    /// Decodes everything into one batch: each leaf's chunks into one array, sized once
    /// from the metadata.
    pub(crate) fn into_single_batch(mut self) -> Self {
        for leaf in &mut self.leaves {
            leaf.reserve_all();
        }
        self.batch_size = usize::MAX;
        self
    }

    /// The next batch, the file ranges needed first, or the end. After an error the decoder
    /// is finished.
    pub fn poll(&mut self) -> Result<DecodeStep> {
        if self.failed {
            return Ok(DecodeStep::Finished);
        }
        let step = self.step();
        if step.is_err() {
            self.failed = true;
            self.waiting.clear();
        }
        step
    }

    /// Gives the decoder the file bytes `bytes`, starting at file offset `offset`: every leaf
    /// waiting for a range they cover takes its part (shared, not copied).
    pub fn push(&mut self, offset: u64, bytes: Bytes) {
        let end = offset.saturating_add(bytes.len() as u64);
        self.bytes_pushed = self.bytes_pushed.saturating_add(bytes.len() as u64);
        let leaves = &mut self.leaves;
        self.waiting.retain(|(leaf, range)| {
            if range.start < offset || range.end > end {
                return true;
            }
            if let Some(l) = leaves.get_mut(*leaf) {
                l.push(offset, bytes.clone());
            }
            false
        });
    }

    /// The waiting leaves' ranges, sorted and merged when closer than the coalesce gap.
    fn needed(&self) -> Vec<Range<u64>> {
        let mut ranges: Vec<Range<u64>> = self.waiting.iter().map(|(_, r)| r.clone()).collect();
        ranges.sort_by_key(|r| (r.start, r.end));
        let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match out.last_mut() {
                Some(last) if r.start <= last.end.saturating_add(self.coalesce) => {
                    last.end = last.end.max(r.end);
                }
                _ => out.push(r),
            }
        }
        out
    }

    /// The next batch, filtered.
    fn step(&mut self) -> Result<DecodeStep> {
        loop {
            let batch = match self.decode()? {
                DecodeStep::Batch(b) => b,
                other => return Ok(other),
            };
            self.stats.rows_decoded += batch.num_rows() as u64;
            let Some((filter, outputs)) = &self.filter else {
                self.stats.rows_kept += batch.num_rows() as u64;
                return Ok(DecodeStep::Batch(batch));
            };
            let mask = filter.evaluate(&batch)?;
            let kept = arrow_select::filter::filter_record_batch(&batch, &mask)
                .and_then(|b| b.project(&(0..*outputs).collect::<Vec<_>>()))
                .map_err(|e| Error::new(ErrorKind::Inconsistent(e.to_string())))?;
            if kept.num_rows() > 0 {
                self.stats.rows_kept += kept.num_rows() as u64;
                return Ok(DecodeStep::Batch(kept));
            }
        }
    }

    /// The next batch of every decoded column.
    fn decode(&mut self) -> Result<DecodeStep> {
        if !self.waiting.is_empty() {
            return Ok(DecodeStep::NeedData(self.needed()));
        }
        let want = self.batch_size;
        if self.leaves.is_empty() {
            let n = want.min(self.rows_left);
            self.rows_left -= n;
            return match n {
                0 => Ok(DecodeStep::Finished),
                n => make_batch(self.plan.schema.clone(), Vec::new(), n).map(DecodeStep::Batch),
            };
        }
        for (i, leaf) in self.leaves.iter_mut().enumerate() {
            if let Fill::Need(range) = leaf.fill(want)? {
                self.waiting.push((i, range));
            }
        }
        if !self.waiting.is_empty() {
            return Ok(DecodeStep::NeedData(self.needed()));
        }
        self.check_rows()?;
        let ready = self
            .leaves
            .iter()
            .map(LeafReader::complete)
            .min()
            .unwrap_or(0);
        let n = ready.min(want);
        if n == 0 {
            if let Some(l) = self.leaves.iter().find(|l| l.complete() > 0) {
                return Err(inconsistent(format!(
                    "column `{}` holds more rows than the other columns",
                    l.spec().path
                )));
            }
            return Ok(DecodeStep::Finished);
        }
        let batches = self
            .leaves
            .iter_mut()
            .map(|l| l.take(n))
            .collect::<Result<Vec<LeafBatch>>>()?;
        let arrays = self
            .plan
            .nodes
            .iter()
            .map(|node| assemble(node, &batches, n))
            .collect::<Result<Vec<_>>>()?;
        make_batch(self.plan.schema.clone(), arrays, n).map(DecodeStep::Batch)
    }

    /// Checks that the leaves hold as many rows in each row group: a leaf that ended a
    /// chunk where another did not (or went on past where another ended) is an error, before
    /// rows of different row groups could share a batch.
    fn check_rows(&mut self) -> Result<()> {
        let most = self
            .leaves
            .iter()
            .map(|l| l.finished().len())
            .max()
            .unwrap_or(0);
        for i in self.checked..most {
            // The chunk's end (in records from the start) by the leaves that finished it.
            let mut end: Option<(u64, &str, usize)> = None;
            for l in &self.leaves {
                let Some(&(rg, _)) = l.finished().get(i) else {
                    continue;
                };
                let at: u64 = l.finished()[..=i].iter().map(|&(_, r)| r as u64).sum();
                match end {
                    None => end = Some((at, &l.spec().path, rg)),
                    Some((e, name, _)) if e != at => {
                        return Err(rows_differ(l.spec().path.as_str(), rg, at, name, e))
                    }
                    _ => {}
                }
            }
            let Some((e, name, rg)) = end else { continue };
            for l in &self.leaves {
                if l.finished().get(i).is_none() && l.records_seen() > e {
                    return Err(rows_differ(&l.spec().path, rg, l.records_seen(), name, e));
                }
            }
        }
        self.checked = self
            .leaves
            .iter()
            .map(|l| l.finished().len())
            .min()
            .unwrap_or(0);
        Ok(())
    }
}

#[cold]
fn rows_differ(column: &str, rg: usize, got: u64, first: &str, rows: u64) -> Error {
    inconsistent(format!(
        "column `{column}` holds {got} rows up to the end of row group {rg}, column `{first}` {rows}"
    ))
}
