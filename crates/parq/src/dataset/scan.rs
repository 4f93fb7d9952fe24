//! [`DatasetScan`]: what a read of a dataset takes (columns, a filter, threads) and the
//! [`DatasetBatches`] it yields.
//!
//! The filter is first applied to each file's fixed columns (`filter.rs`: its partition
//! values and the columns it lacks): files it rules out are not opened (with an explicit
//! schema their footers are not read either). What is left is pushed into the file's read,
//! which skips row groups and pages by statistics, Bloom filters, dictionaries and the page
//! index and filters rows exactly; where a filter column's type in the file differs from the
//! dataset's, or rows' indices are asked for, the file is read whole and the filter applied to
//! its rows as the dataset types them.
//!
//! A job per row group of each file runs on the process's worker pool, up to `threads` at
//! once, started in order as the batches are taken; each job sends its batches to a queue
//! of its own, and the batches are handed out in file and row-group order.

use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, RecordBatchReader, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use super::filter::{residual, Residual};
use super::parts::{parts, Part};
use super::schema::{conform, with_columns};
use super::{read_footers, Dataset, DatasetFile};
use crate::error::{arrow_error, internal};
use crate::read::filter::bind::BoundFilter;
use crate::read::filter::path::{in_schema, top_field_of};
use crate::read::io::source::RangeRead;
use crate::read::Predicate;
use crate::read::{ParquetReader, ReadOptions};
use crate::{workers, Error, ErrorKind, Result};

/// How many row groups of object stores may be fetched ahead at once.
const REMOTE_PARTS: usize = 32;
/// The most bytes fetched ahead for row groups not yet taken (one row group at least).
const MAX_BYTES_AHEAD: u64 = 256 << 20;

/// A read of a [`Dataset`]: see the [module documentation](crate::dataset).
#[derive(Debug, Clone)]
pub struct DatasetScan<'a> {
    dataset: &'a Dataset,
    columns: Option<Vec<String>>,
    filter: Option<Predicate>,
    threads: usize,
    /// The files read (by index in [`Dataset::files`]) and the row groups of each.
    selection: Option<Vec<(usize, Vec<usize>)>>,
}

/// Where a column of a scan's batches comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Origin {
    File,
    Partition(usize),
    RowIndex,
    FilePath,
}

/// What a scan reads of one file.
#[derive(Debug)]
struct FilePlan {
    /// The file's index in [`Dataset::files`].
    index: usize,
    file: Arc<DatasetFile>,
    /// The file columns read (by name).
    read: Vec<String>,
    /// The filter pushed into the file's read.
    pushdown: Option<Predicate>,
    /// The filter applied to the rows as the dataset types them, then the columns kept.
    post: Option<(BoundFilter, Vec<usize>)>,
    /// The row groups read.
    parts: Vec<Part>,
}

/// What every job of a scan shares.
#[derive(Debug)]
struct Shared {
    files: Vec<FilePlan>,
    /// The columns built of each file's batches (the output's, then the post filter's).
    work: SchemaRef,
    origins: Vec<Origin>,
    /// The batches' schema.
    out: SchemaRef,
    /// How each row group is read (on one thread: row groups are the jobs).
    read: ReadOptions,
}

/// One row group of one file: its file's plan and its part there.
#[derive(Debug, Clone, Copy)]
struct Unit {
    plan: usize,
    part: usize,
}

impl<'a> DatasetScan<'a> {
    pub(crate) fn new(dataset: &'a Dataset) -> Self {
        DatasetScan {
            dataset,
            columns: None,
            filter: None,
            threads: dataset.options.read.threads,
            selection: None,
        }
    }

    /// Reads only these columns (file, partition or virtual), in this order.
    pub fn with_columns<S: Into<String>>(mut self, columns: impl IntoIterator<Item = S>) -> Self {
        self.columns = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// Keeps only the rows `predicate` keeps (on file and partition columns).
    pub fn with_filter(mut self, predicate: Predicate) -> Self {
        self.filter = Some(predicate);
        self
    }

    /// Reads only these files (by index in [`Dataset::files`]) and of each only these row
    /// groups, in the dataset's order (a file named twice: its row groups united). An index
    /// past the files, or past a file's row groups, is an error of the scan.
    pub fn with_row_groups(
        mut self,
        selection: impl IntoIterator<Item = (usize, Vec<usize>)>,
    ) -> Self {
        self.selection = Some(selection.into_iter().collect());
        self
    }

    /// The files the scan reads (by index in [`Dataset::files`]) and the row groups of each
    /// it reads: those the filter leaves by partition values and statistics (and the
    /// selection of [`DatasetScan::with_row_groups`]), in read order; a file none of whose
    /// row groups is read is left out. Footers are read, no data page.
    pub fn row_groups(&self) -> Result<Vec<(usize, Vec<usize>)>> {
        let shared = self.plan()?;
        Ok(shared
            .files
            .iter()
            .filter(|fp| !fp.parts.is_empty())
            .map(|fp| {
                let groups = fp.parts.iter().flat_map(|p| p.row_groups.iter().copied());
                (fp.index, groups.collect())
            })
            .collect())
    }

    /// The row groups the selection names of file `index` (`None`: all; an empty list: the
    /// file is not read).
    fn selected(&self, index: usize) -> Option<Vec<usize>> {
        let selection = self.selection.as_ref()?;
        let mut groups: Vec<usize> = selection
            .iter()
            .filter(|(i, _)| *i == index)
            .flat_map(|(_, g)| g.iter().copied())
            .collect();
        groups.sort_unstable();
        groups.dedup();
        Some(groups)
    }

    /// How many row groups are read at once (at least 1).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The dataset's columns and the virtual ones, with where each comes from.
    fn all_columns(&self) -> Vec<(Arc<Field>, Origin)> {
        let ds = self.dataset;
        let mut out: Vec<(Arc<Field>, Origin)> = Vec::new();
        for (i, f) in ds.schema.fields().iter().enumerate() {
            let origin = match i.checked_sub(ds.file_fields) {
                None => Origin::File,
                Some(p) => Origin::Partition(p),
            };
            out.push((Arc::clone(f), origin));
        }
        if let Some(name) = &ds.options.row_index_column {
            out.push((
                Arc::new(Field::new(name, DataType::Int64, false)),
                Origin::RowIndex,
            ));
        }
        if let Some(name) = &ds.options.file_path_column {
            out.push((
                Arc::new(Field::new(name, DataType::Utf8, false)),
                Origin::FilePath,
            ));
        }
        out
    }

    /// The columns of the batches, with where each comes from.
    fn output(&self) -> Result<Vec<(Arc<Field>, Origin)>> {
        let all = self.all_columns();
        let Some(names) = &self.columns else {
            return Ok(all);
        };
        names
            .iter()
            .map(|n| {
                all.iter()
                    .find(|(f, _)| f.name() == n)
                    .cloned()
                    .ok_or_else(|| Error::new(ErrorKind::ColumnNotFound { path: n.clone() }))
            })
            .collect()
    }

    /// The schema of the batches.
    pub fn schema(&self) -> Result<SchemaRef> {
        let fields: Vec<Arc<Field>> = self.output()?.into_iter().map(|(f, _)| f).collect();
        Ok(Arc::new(Schema::new(fields)))
    }

    /// The columns of `file` whose value the file fixes: its partition values, and nulls
    /// for the dataset's file columns it lacks (one row).
    fn fixed(&self, file: &DatasetFile, with_missing: bool) -> Result<RecordBatch> {
        let ds = self.dataset;
        let mut fields = Vec::new();
        let mut columns: Vec<ArrayRef> = Vec::new();
        if with_missing {
            let schema = file.schema(&ds.options.read)?;
            for f in ds.schema.fields().iter().take(ds.file_fields) {
                if schema.field_with_name(f.name()).is_err() {
                    fields.push(Arc::new(f.as_ref().clone().with_nullable(true)));
                    columns.push(arrow_array::new_null_array(f.data_type(), 1));
                }
            }
        }
        for (f, v) in ds
            .schema
            .fields()
            .iter()
            .skip(ds.file_fields)
            .zip(&file.partition)
        {
            fields.push(Arc::new(f.as_ref().clone().with_nullable(true)));
            columns.push(Arc::clone(v));
        }
        with_columns(&Arc::new(Schema::new(fields)), columns, 1)
    }

    /// The plan of the scan: the files the filter leaves and how each is read.
    fn plan(&self) -> Result<Shared> {
        let ds = self.dataset;
        let output = self.output()?;
        let out = Arc::new(Schema::new(
            output
                .iter()
                .map(|(f, _)| Arc::clone(f))
                .collect::<Vec<_>>(),
        ));
        // The filter's columns: checked against the dataset's, its literals against their
        // types, before any file is read.
        let mut work_cols = output.clone();
        if let Some(p) = &self.filter {
            BoundFilter::bind_with(p, &mut |c| in_schema(&ds.schema, c))?;
            let all = self.all_columns();
            for name in p.columns() {
                // A dotted path (`s.a.b`, `v.a`) needs its top-level field.
                let name = top_field_of(&ds.schema, name).unwrap_or(name);
                if !work_cols.iter().any(|(f, _)| f.name() == name) {
                    if let Some(c) = all.iter().find(|(f, _)| f.name() == name) {
                        work_cols.push(c.clone());
                    }
                }
            }
        }
        let work = Arc::new(Schema::new(
            work_cols
                .iter()
                .map(|(f, _)| Arc::clone(f))
                .collect::<Vec<_>>(),
        ));
        let origins: Vec<Origin> = work_cols.iter().map(|(_, o)| *o).collect();

        if let Some(selection) = &self.selection {
            if let Some((i, _)) = selection.iter().find(|(i, _)| *i >= ds.files.len()) {
                return Err(Error::new(ErrorKind::InvalidArgument(format!(
                    "file {i} selected, the dataset has {} files",
                    ds.files.len()
                ))));
            }
        }
        // Files the partition values rule out are dropped before their footers are needed.
        let mut kept: Vec<usize> = Vec::new();
        for (i, file) in ds.files.iter().enumerate() {
            if self.selected(i).is_some_and(|g| g.is_empty()) {
                continue;
            }
            let keep = match &self.filter {
                None => true,
                Some(p) => residual(p, &self.fixed(file, false)?)? != Residual::Nothing,
            };
            if keep {
                kept.push(i);
            }
        }
        // Only an explicit schema leaves footers unread.
        let reached: Vec<&DatasetFile> = kept
            .iter()
            .filter_map(|&i| ds.files.get(i))
            .map(Arc::as_ref)
            .collect();
        read_footers(&reached, ds.options.concurrency)?;

        let row_index = origins.contains(&Origin::RowIndex);
        // Each row group is read on one thread: row groups are the jobs.
        let read_options = ReadOptions {
            threads: 1,
            ..ds.options.read.clone()
        };
        let mut files = Vec::new();
        for i in kept {
            let Some(file) = ds.files.get(i) else {
                continue;
            };
            let left = match &self.filter {
                None => Residual::All,
                Some(p) => residual(p, &self.fixed(file, true)?)?,
            };
            let file_schema = file.schema(&ds.options.read)?;
            let in_file = |name: &str| file_schema.field_with_name(name).is_ok();
            let mut read: Vec<String> = output
                .iter()
                .filter(|(f, o)| *o == Origin::File && in_file(f.name()))
                .map(|(f, _)| f.name().clone())
                .collect();
            let (pushdown, post) = match left {
                Residual::Nothing => continue,
                Residual::All => (None, None),
                Residual::Rows(p) => {
                    // The top-level fields the filter reads (a dotted path's own).
                    let mut tops: Vec<String> = Vec::new();
                    for c in p.columns() {
                        let top = top_field_of(&ds.schema, c).unwrap_or(c).to_string();
                        if !tops.contains(&top) {
                            tops.push(top);
                        }
                    }
                    let same_types = tops.iter().all(|c| {
                        match (file_schema.field_with_name(c), ds.schema.field_with_name(c)) {
                            (Ok(a), Ok(b)) => a.data_type() == b.data_type(),
                            _ => false,
                        }
                    });
                    if same_types && !row_index {
                        if read.is_empty() {
                            // A read of no column gives no rows: the filter's are read.
                            read = tops;
                        }
                        (Some(p), None)
                    } else {
                        for c in tops {
                            if in_file(&c) && !read.contains(&c) {
                                read.push(c);
                            }
                        }
                        let bound = BoundFilter::bind_with(&p, &mut |c| in_schema(&work, c))?;
                        (None, Some((bound, (0..out.fields().len()).collect())))
                    }
                }
            };
            let only = self.selected(i);
            if let Some(groups) = &only {
                let n = file.meta()?.row_groups().len();
                if let Some(rg) = groups.iter().find(|&&rg| rg >= n) {
                    return Err(Error::new(ErrorKind::InvalidArgument(format!(
                        "row group {rg} selected, {} has {n}",
                        file.name()
                    ))));
                }
            }
            let parts = parts(
                file,
                &read_options,
                &read,
                pushdown.as_ref(),
                only.as_deref(),
            )?;
            files.push(FilePlan {
                index: i,
                file: Arc::clone(file),
                read,
                pushdown,
                post,
                parts,
            });
        }
        Ok(Shared {
            files,
            work,
            origins,
            out,
            read: read_options,
        })
    }

    /// The batches of the scan.
    pub fn batches(&self) -> Result<DatasetBatches> {
        let shared = Arc::new(self.plan()?);
        let mut waiting = VecDeque::new();
        let mut remote = false;
        for (plan, fp) in shared.files.iter().enumerate() {
            remote |= fp.file.is_remote();
            for part in 0..fp.parts.len() {
                waiting.push_back(Unit { plan, part });
            }
        }
        // Row groups of object stores are fetched ahead, up to a number of requests and of
        // bytes under way; local ones only as many as the threads decode.
        let window = match remote {
            true => self.threads.max(REMOTE_PARTS),
            false => self.threads,
        };
        Ok(DatasetBatches {
            schema: Arc::clone(&shared.out),
            shared,
            waiting,
            running: VecDeque::new(),
            window: window.max(1),
            bytes_ahead: 0,
            failed: false,
        })
    }

    /// Every batch, in a vector.
    pub fn read_all(&self) -> Result<Vec<RecordBatch>> {
        self.batches()?.collect()
    }

    /// How many rows the scan gives: from the footers where the filter leaves every row of a
    /// file, else by reading the filter's columns.
    pub fn count_rows(&self) -> Result<u64> {
        let counting = DatasetScan {
            columns: Some(Vec::new()),
            ..self.clone()
        };
        let mut total = 0u64;
        for b in counting.batches()? {
            total += b?.num_rows() as u64;
        }
        Ok(total)
    }
}

/// What a job sends: a batch, the end of its row group, or the error that ended it.
enum Message {
    Batch(RecordBatch),
    End,
    Failed(Error),
}

/// The batches of a [`DatasetScan`], in file and row-group order.
#[derive(Debug)]
pub struct DatasetBatches {
    shared: Arc<Shared>,
    schema: SchemaRef,
    /// Row groups not started yet, in order.
    waiting: VecDeque<Unit>,
    /// The row groups under way, in order: what their jobs send, and the bytes fetched
    /// ahead for them.
    running: VecDeque<(Receiver<Message>, u64)>,
    /// How many row groups may be under way at once.
    window: usize,
    /// The bytes fetched ahead for the row groups under way.
    bytes_ahead: u64,
    failed: bool,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Message::Batch(b) => write!(f, "Batch({} rows)", b.num_rows()),
            Message::End => write!(f, "End"),
            Message::Failed(e) => write!(f, "Failed({e})"),
        }
    }
}

impl DatasetBatches {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// How many files the scan reads (those its filter leaves by their fixed columns).
    pub fn files_read(&self) -> usize {
        self.shared.files.len()
    }

    /// Whether another row group may start: one under the window, and its bytes under
    /// the bytes fetched ahead at most (or nothing under way).
    fn may_start(&self, unit: &Unit) -> bool {
        if self.running.len() >= self.window {
            return false;
        }
        self.running.is_empty() || self.bytes_ahead + self.ahead(unit) <= MAX_BYTES_AHEAD
    }

    /// The bytes fetched ahead for `unit`.
    fn ahead(&self, unit: &Unit) -> u64 {
        let Some(fp) = self.shared.files.get(unit.plan) else {
            return 0;
        };
        match fp.file.is_remote() {
            true => fp.parts.get(unit.part).map_or(0, Part::bytes),
            false => 0,
        }
    }

    fn start(&mut self, unit: Unit) {
        let (tx, rx) = channel();
        let bytes = self.ahead(&unit);
        let shared = Arc::clone(&self.shared);
        let job = move |source: Result<Option<Arc<dyn RangeRead>>>| {
            let done = source.and_then(|s| run(&shared, unit, &tx, s));
            let _ = tx.send(match done {
                Ok(()) => Message::End,
                Err(e) => Message::Failed(e),
            });
        };
        self.bytes_ahead += bytes;
        self.running.push_back((rx, bytes));
        #[cfg(feature = "object_store")]
        if bytes > 0 {
            if let Some(fp) = self.shared.files.get(unit.plan) {
                let ranges = fp.parts.get(unit.part).map(|p| p.ranges.clone());
                if let (Some(ranges), Some((store, path))) = (ranges, fp.file.object()) {
                    let rest = fp.file.source();
                    super::store::fetch_then(store, path, ranges.clone(), move |got| {
                        let source = got.and_then(|got| {
                            let rest = rest?;
                            let p = super::prefetch::Prefetched::new(&ranges, got, rest)?;
                            Ok(Some(Arc::new(p) as Arc<dyn RangeRead>))
                        });
                        workers::spawn(move || job(source));
                    });
                    return;
                }
            }
        }
        workers::spawn(move || job(Ok(None)));
    }
}

impl Iterator for DatasetBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        if self.failed {
            return None;
        }
        loop {
            while let Some(unit) = self.waiting.front().copied() {
                if !self.may_start(&unit) {
                    break;
                }
                self.waiting.pop_front();
                self.start(unit);
            }
            let (rx, _) = self.running.front()?;
            match rx.recv() {
                Ok(Message::Batch(b)) => return Some(Ok(b)),
                Ok(Message::End) => {
                    if let Some((_, bytes)) = self.running.pop_front() {
                        self.bytes_ahead = self.bytes_ahead.saturating_sub(bytes);
                    }
                }
                Ok(Message::Failed(e)) => {
                    self.failed = true;
                    return Some(Err(e));
                }
                Err(_) => {
                    self.failed = true;
                    return Some(Err(internal("a dataset job ended without a word")));
                }
            }
        }
    }
}

impl DatasetBatches {
    /// The batches as an Arrow [`RecordBatchReader`].
    pub fn into_reader(self) -> impl RecordBatchReader + Send {
        DatasetReader(self)
    }
}

struct DatasetReader(DatasetBatches);

impl Iterator for DatasetReader {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .next()
            .map(|r| r.map_err(|e| ArrowError::ExternalError(Box::new(e))))
    }
}

impl RecordBatchReader for DatasetReader {
    fn schema(&self) -> SchemaRef {
        self.0.schema()
    }
}

/// Reads one row group of one file (from `source` when its bytes were fetched ahead) and
/// sends its batches.
fn run(
    shared: &Shared,
    unit: Unit,
    tx: &Sender<Message>,
    source: Option<Arc<dyn RangeRead>>,
) -> Result<()> {
    let fp = shared
        .files
        .get(unit.plan)
        .ok_or_else(|| internal("a dataset job of no file"))?;
    let part = fp
        .parts
        .get(unit.part)
        .ok_or_else(|| internal("a dataset job of no row group"))?;
    let file = &fp.file;
    let mut first_row = part.first_row;
    let mut send = |batch: RecordBatch| -> Result<bool> {
        let rows = batch.num_rows();
        let out = build(shared, fp, &batch, first_row)?;
        first_row += rows as u64;
        // A reader that went away takes no more batches.
        Ok(tx.send(Message::Batch(out)).is_ok())
    };
    if fp.read.is_empty() && fp.pushdown.is_none() {
        // No file column: the rows come from the footer.
        let meta = file.meta()?;
        let rows: usize = part
            .row_groups
            .iter()
            .filter_map(|&rg| meta.row_groups().get(rg))
            .map(|g| usize::try_from(g.num_rows()).unwrap_or(0))
            .sum();
        let empty = Arc::new(Schema::empty());
        let mut left = rows;
        while left > 0 {
            let n = left.min(shared.read.batch_size.max(1));
            let batch = with_columns(&empty, Vec::new(), n)?;
            if !send(batch)? {
                return Ok(());
            }
            left -= n;
        }
        return Ok(());
    }
    let source = match source {
        Some(s) => s,
        None => file.source()?,
    };
    let meta = Arc::clone(file.meta()?);
    let mut reader = ParquetReader::from_metadata(source, meta)
        .with_options(shared.read.clone())
        .with_columns(fp.read.iter().map(String::as_str))
        .with_row_groups(part.row_groups.iter().copied());
    if let Some(p) = &fp.pushdown {
        reader = reader.with_filter(p.clone());
    }
    let batches = reader.batches().map_err(|e| e.in_file(file.name()))?;
    for batch in batches {
        let batch = batch.map_err(|e| e.in_file(file.name()))?;
        if !send(batch)? {
            return Ok(());
        }
    }
    Ok(())
}

/// The scan's batch of a file's `batch`: the output columns (and the post filter's),
/// filtered by the post filter, then the output kept.
fn build(
    shared: &Shared,
    fp: &FilePlan,
    batch: &RecordBatch,
    first_row: u64,
) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let fields = match &fp.post {
        Some(_) => shared.work.fields().len(),
        None => shared.out.fields().len(),
    };
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(fields);
    for (i, origin) in shared.origins.iter().enumerate().take(fields) {
        let column: ArrayRef = match origin {
            Origin::File => {
                let field = shared.work.fields().get(i);
                conform(
                    batch,
                    field.ok_or_else(|| internal("a column of no field"))?,
                )?
            }
            Origin::Partition(p) => {
                let value = fp
                    .file
                    .partition
                    .get(*p)
                    .ok_or_else(|| internal("a partition value is missing"))?;
                repeat(value, rows)?
            }
            Origin::RowIndex => {
                let start = i64::try_from(first_row).unwrap_or(i64::MAX);
                Arc::new(Int64Array::from_iter_values(
                    (0..rows as i64).map(|r| start + r),
                ))
            }
            Origin::FilePath => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                fp.file.name(),
                rows,
            ))),
        };
        columns.push(column);
    }
    // The output's columns are the work's first ones: `fields` of them are built.
    let schema = match &fp.post {
        Some(_) => &shared.work,
        None => &shared.out,
    };
    let built = with_columns(schema, columns, rows)?;
    let Some((filter, keep)) = &fp.post else {
        return Ok(built);
    };
    let mask = filter.evaluate(built.columns())?;
    let filtered = arrow_select::filter::filter_record_batch(&built, &mask).map_err(arrow_error)?;
    let kept = filtered.project(keep).map_err(arrow_error)?;
    with_columns(&shared.out, kept.columns().to_vec(), kept.num_rows())
}

/// `value` (one value) repeated `rows` times.
fn repeat(value: &ArrayRef, rows: usize) -> Result<ArrayRef> {
    if value.is_null(0) {
        return Ok(arrow_array::new_null_array(value.data_type(), rows));
    }
    let indices = arrow_array::UInt32Array::from(vec![0u32; rows]);
    arrow_select::take::take(value.as_ref(), &indices, None).map_err(arrow_error)
}
