//! [`ParquetReader`]: a file (a path, or its bytes) -> Arrow `RecordBatch`es.
//!
//! ```no_run
//! use parq::read::ParquetReader;
//!
//! let reader = ParquetReader::open("data.parquet")?
//!     .with_columns(["id", "name"])
//!     .with_row_groups([0, 2])
//!     .with_batch_size(8192);
//! for batch in reader.batches()? {
//!     let batch = batch?;
//!     println!("{} rows", batch.num_rows());
//! }
//! # Ok::<(), parq::Error>(())
//! ```
//!
//! Batches hold `batch_size` rows (the last one fewer) and span pages and row groups: each
//! leaf column is read page by page ([`super::leaf`]) only as far as the batch needs, and the
//! nodes above the leaves (structs, lists, maps) are built from their levels
//! ([`super::nested`]). A row group holds what its chunks hold, at most its `num_rows` (and
//! a chunk of a leaf without repetition at most its `num_values`), as pyarrow reads row
//! groups whose counts disagree; every chosen leaf must then hold as many rows in each row
//! group. [`ParquetReader::read_batch`] reads everything chosen into one batch. Files are
//! read into memory whole ([`ParquetReader::open`]).

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use bytes::Bytes;

use super::error::{inconsistent, index};
use super::leaf::{ChunkTask, ColumnOptions, LeafBatch, LeafReader};
use super::nested::assemble;
use super::options::{DictionaryColumns, InvalidUtf8, ReadOptions, StringType};
use super::plan::{plan, ColumnSelection, Plan};
use crate::format::footer::{decode_file_metadata, DecodeOptions};
use crate::format::metadata::FileMetaData;
use crate::page::needs_legacy_dictionary_padding;
use crate::{Error, ErrorKind, Result};

/// Reads a Parquet file into Arrow record batches: see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct ParquetReader {
    data: Bytes,
    meta: Arc<FileMetaData>,
    options: ReadOptions,
    columns: Option<Vec<ColumnSelection>>,
    row_groups: Option<Vec<usize>>,
}

impl ParquetReader {
    /// Reads the file at `path` into memory and decodes its footer.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let data = std::fs::read(path.as_ref())
            .map_err(|e| Error::new(ErrorKind::Io(format!("{}: {e}", path.as_ref().display()))))?;
        Self::from_bytes(Bytes::from(data))
    }

    /// A reader of the file held in `data`.
    pub fn from_bytes(data: Bytes) -> Result<Self> {
        let meta = decode_file_metadata(&data, &DecodeOptions::default())?;
        Ok(ParquetReader {
            data,
            meta: Arc::new(meta),
            options: ReadOptions::default(),
            columns: None,
            row_groups: None,
        })
    }

    /// Sets all options.
    pub fn with_options(mut self, options: ReadOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the batch size in rows (at least 1).
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.options.batch_size = rows.max(1);
        self
    }

    /// Sets how string columns are read.
    pub fn with_strings(mut self, strings: StringType) -> Self {
        self.options.strings = strings;
        self
    }

    /// Sets which string / binary columns are read as Arrow dictionaries.
    pub fn with_dictionary(mut self, dictionary: DictionaryColumns) -> Self {
        self.options.dictionary = dictionary;
        self
    }

    /// Sets whether page CRCs are verified.
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.options.verify_crc = verify;
        self
    }

    /// Sets what to do with strings that are not valid UTF-8.
    pub fn with_invalid_utf8(mut self, invalid_utf8: InvalidUtf8) -> Self {
        self.options.invalid_utf8 = invalid_utf8;
        self
    }

    /// Reads only these columns, in this order (default: all).
    pub fn with_columns<C: Into<ColumnSelection>>(
        mut self,
        columns: impl IntoIterator<Item = C>,
    ) -> Self {
        self.columns = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// Reads only these row groups, in this order (default: all).
    pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
        self.row_groups = Some(row_groups.into_iter().collect());
        self
    }

    /// The decoded footer.
    pub fn metadata(&self) -> &FileMetaData {
        &self.meta
    }

    /// The options in force.
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The Arrow schema of the batches (the chosen columns).
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(self.plan()?.schema)
    }

    /// The chosen row groups, checked.
    fn chosen_row_groups(&self) -> Result<Vec<usize>> {
        let n = self.meta.row_groups().len();
        match &self.row_groups {
            None => Ok((0..n).collect()),
            Some(list) => {
                for &rg in list {
                    if rg >= n {
                        return Err(Error::new(ErrorKind::OutOfBounds {
                            what: "row group",
                            index: rg as u64,
                            len: n as u64,
                        }));
                    }
                }
                Ok(list.clone())
            }
        }
    }

    /// The read plan of the chosen columns.
    fn plan(&self) -> Result<Plan> {
        let row_groups = self.chosen_row_groups()?;
        plan(
            &self.meta,
            &self.options,
            self.columns.as_deref(),
            &row_groups,
        )
    }

    fn column_options(&self) -> ColumnOptions {
        ColumnOptions {
            verify_crc: self.options.verify_crc,
            legacy_dictionary_padding: needs_legacy_dictionary_padding(
                self.meta.created_by().as_deref(),
            ),
        }
    }

    /// The leaf readers of `plan` over `row_groups`.
    fn leaf_readers(&self, plan: &Plan, row_groups: &[usize]) -> Result<Vec<LeafReader<'_>>> {
        let options = self.column_options();
        let groups = self.meta.row_groups();
        let mut readers = Vec::with_capacity(plan.leaves.len());
        for spec in &plan.leaves {
            let mut tasks = Vec::with_capacity(row_groups.len());
            for &rg in row_groups {
                let group = &groups[rg];
                let chunk = group.columns().get(spec.leaf).ok_or_else(|| {
                    Error::new(ErrorKind::OutOfBounds {
                        what: "column chunk",
                        index: spec.leaf as u64,
                        len: group.columns().len() as u64,
                    })
                    .in_element("row group", index(rg))
                })?;
                let mut max_records = row_group_rows(&self.meta, rg)?;
                if spec.max_rep_level == 0 {
                    // One value per row: no more rows than the chunk's `num_values` either
                    // (as pyarrow reads a chunk whose count is short).
                    max_records = max_records.min(usize::try_from(chunk.num_values()).unwrap_or(0));
                }
                tasks.push(ChunkTask {
                    row_group: rg,
                    chunk,
                    max_records,
                });
            }
            readers.push(LeafReader::new(
                spec.clone(),
                options,
                &self.data,
                self.meta.buf(),
                tasks,
            )?);
        }
        Ok(readers)
    }

    /// An iterator of record batches over the chosen row groups and columns.
    pub fn batches(&self) -> Result<RecordBatches<'_>> {
        let plan = self.plan()?;
        let row_groups = self.chosen_row_groups()?;
        let leaves = self.leaf_readers(&plan, &row_groups)?;
        // Without columns, batches count the rows the metadata gives.
        let mut rows_left = 0usize;
        for &rg in &row_groups {
            rows_left = rows_left.saturating_add(row_group_rows(&self.meta, rg)?);
        }
        Ok(RecordBatches {
            batch_size: self.options.batch_size.max(1),
            plan,
            leaves,
            rows_left,
            checked: 0,
            failed: false,
        })
    }

    /// Every batch, in a vector.
    pub fn read_all(&self) -> Result<Vec<RecordBatch>> {
        self.batches()?.collect()
    }

    /// Everything chosen, as one batch (each leaf's chunks decoded into one array, sized
    /// once from the metadata).
    pub fn read_batch(&self) -> Result<RecordBatch> {
        let mut batches = self.batches()?;
        for leaf in &mut batches.leaves {
            leaf.reserve_all();
        }
        batches.batch_size = usize::MAX;
        match batches.next() {
            Some(batch) => batch,
            None => Ok(RecordBatch::new_empty(batches.schema())),
        }
    }
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

/// The batches of a [`ParquetReader`] ([`ParquetReader::batches`]).
#[derive(Debug)]
pub struct RecordBatches<'r> {
    batch_size: usize,
    plan: Plan,
    leaves: Vec<LeafReader<'r>>,
    /// Rows still to hand out when no column is chosen.
    rows_left: usize,
    /// Chunks whose row counts all leaves agree on.
    checked: usize,
    failed: bool,
}

impl RecordBatches<'_> {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.plan.schema.clone()
    }

    /// The next batch of at most `batch_size` rows; `None` after the last.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let want = self.batch_size;
        if self.leaves.is_empty() {
            let n = want.min(self.rows_left);
            self.rows_left -= n;
            return match n {
                0 => Ok(None),
                n => make_batch(self.schema(), Vec::new(), n).map(Some),
            };
        }
        for leaf in &mut self.leaves {
            leaf.fill(want)?;
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
            return Ok(None);
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
        make_batch(self.schema(), arrays, n).map(Some)
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

impl Iterator for RecordBatches<'_> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}
