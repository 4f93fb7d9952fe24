//! [`ParquetDecoder`]: the IO-free core of every read (byte ranges needed out, bytes in, batches out).

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, SchemaRef};
use bytes::Bytes;

use crate::error::{arrow_error, internal};
use crate::format::footer::PageIndex;
use crate::format::metadata::PhysicalType;
use crate::read::decode::chunk::chunk_of;
use crate::read::decode::leaf::{ChunkTask, Fill, LeafBatch, LeafReader};
use crate::read::decode::nested::assemble;
use crate::read::error::inconsistent;
use crate::read::exec::late::{keep, steps, LateLeaf};
use crate::read::exec::prune::{Setup, Stage};
use crate::read::exec::stats::{data_pages, row_group_rows, ReadStats};
use crate::read::filter::bind::BoundFilter;
use crate::read::io::source::{short_read, RangeRead};
use crate::read::plan::fields::{all_dictionary_encoded, ColumnSpec, Node, Plan, Shape};
use crate::read::plan::selection::{RowSelection, Run, Runs};
use crate::workers::par_each;
use crate::{Error, Result};

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

fn make_batch(schema: SchemaRef, arrays: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, arrays, &options).map_err(arrow_error)
}

/// Decodes the chosen columns and row groups of a file from the bytes pushed to it.
///
/// [`ParquetDecoder`]: the IO-free core of every read. Built from a file's metadata and the
/// choice of columns, row groups and options ([`ParquetDecoderBuilder`](crate::read::ParquetDecoderBuilder)), it says which byte
/// ranges of the file it needs ([`DecodeStep::NeedData`]: per leaf column the next `fetch`
/// bytes of its chunk, or the whole next page when larger; ranges closer than the coalesce
/// gap merged), takes the bytes pushed to it ([`ParquetDecoder::push`]) and hands out
/// record batches ([`DecodeStep::Batch`]). It does no IO itself: the sync reader
/// ([`ParquetReader`](crate::read::ParquetReader)) answers from positional reads or bytes in memory, the async one
/// ([`AsyncParquetReader`](crate::read::AsyncParquetReader)) from any range store.
///
/// ```no_run
/// use std::sync::Arc;
/// use parq::format::footer::{decode_file_metadata, DecodeOptions};
/// use parq::read::{DecodeStep, ParquetDecoderBuilder};
///
/// let file = bytes::Bytes::from(std::fs::read("data.parquet")?);
/// let meta = Arc::new(decode_file_metadata(&file, &DecodeOptions::default())?);
/// let mut decoder = ParquetDecoderBuilder::new(meta, file.len() as u64)
///     .with_columns(["id"])
///     .build()?;
/// loop {
///     match decoder.poll()? {
///         DecodeStep::NeedData(ranges) => {
///             for r in ranges {
///                 let bytes = file.slice(r.start as usize..r.end as usize);
///                 decoder.push(r.start, bytes);
///             }
///         }
///         DecodeStep::Batch(batch) => println!("{} rows", batch.num_rows()),
///         DecodeStep::Finished => break,
///     }
/// }
/// # Ok::<(), parq::Error>(())
/// ```
#[derive(Debug)]
pub struct ParquetDecoder {
    batch_size: usize,
    /// Rows of the first batch when it is not `batch_size` (no rows skipped).
    head: Option<usize>,
    /// The schema of the batches handed out.
    output: SchemaRef,
    /// The filter, and how many of the decoded columns are handed out (the first ones).
    filter: Option<(Arc<BoundFilter>, usize)>,
    stats: ReadStats,
    plan: Arc<Plan>,
    leaves: Vec<LeafReader>,
    /// Where the read stands between calls (see [`State`]).
    state: State,
    /// Decode each leaf's chunks into one array.
    single: bool,
    /// Rows to decode and to skip, when not every row is read.
    runs: Option<Runs>,
    /// Rows still to hand out when no column is chosen.
    rows_left: u64,
    /// Chunks whose row counts all leaves agree on.
    checked: usize,
    /// Leaves waiting for bytes, and the file range each needs.
    waiting: Vec<(usize, Range<u64>)>,
    coalesce: u64,
    bytes_pushed: u64,
    /// Threads decoding leaves side by side.
    threads: usize,
    /// With a filter and columns it does not read: per leaf, `None` for the filter's leaves
    /// (decoded first), the late state of the others ([`crate::read::exec::late`]). Empty otherwise.
    late: Vec<Option<LateLeaf>>,
}

/// Where a [`ParquetDecoder`] stands between calls. The leaves waiting for bytes
/// (`ParquetDecoder::waiting`) are apart: a read waits for them in any state but the setup.
#[derive(Debug)]
enum State {
    /// Pruning before the leaves exist: waiting for Bloom filters, dictionary pages or the
    /// page index ([`Setup`]).
    Setup(Box<Setup>),
    /// Nothing half done: between batches, or filling the next one.
    Ready,
    /// A batch whose filter leaves are decoded, its late leaves still to come.
    Filtered(Box<Filtered>),
    /// An error `push` found, for the next `poll`.
    Errored(Error),
    /// Ended by an error: nothing more is read.
    Failed,
}

/// A batch of `rows` rows whose filter leaves are decoded: the rows kept, the leaves'
/// batches (placeholders for the late leaves), the fields the filter read, and what the
/// late leaves take.
#[derive(Debug)]
struct Filtered {
    rows: usize,
    mask: BooleanArray,
    batches: Vec<LeafBatch>,
    columns: Vec<ArrayRef>,
    steps: Vec<Run>,
    taken: Option<BooleanArray>,
}

/// A stand-in for the batch of a leaf not decoded (yet).
fn placeholder() -> LeafBatch {
    LeafBatch {
        array: arrow_array::new_empty_array(&arrow_schema::DataType::Null),
        def: Vec::new(),
        rep: Vec::new(),
    }
}

impl ParquetDecoder {
    /// The decoder of `setup`: ready, or first asking for what its pruning reads.
    pub(crate) fn new(setup: Setup) -> Result<Self> {
        let mut d = ParquetDecoder {
            batch_size: setup.batch_size,
            head: None,
            output: setup.output.clone(),
            filter: None,
            stats: setup.stats,
            plan: Arc::clone(&setup.plan),
            leaves: Vec::new(),
            state: State::Ready,
            single: false,
            runs: None,
            rows_left: 0,
            checked: 0,
            waiting: Vec::new(),
            coalesce: setup.coalesce,
            bytes_pushed: 0,
            threads: setup.threads.max(1),
            late: Vec::new(),
        };
        d.state = State::Setup(Box::new(setup));
        d.advance_setup()?;
        Ok(d)
    }

    /// Goes on with the pending setup as far as its bytes allow: builds the leaves once it
    /// is pruned.
    fn advance_setup(&mut self) -> Result<()> {
        let ready = match &mut self.state {
            State::Setup(setup) => setup.advance(),
            _ => false,
        };
        if ready {
            let State::Setup(setup) = std::mem::replace(&mut self.state, State::Ready) else {
                return Err(internal("a setup lost"));
            };
            let mut setup = *setup;
            let index = match std::mem::replace(&mut setup.stage, Stage::Ready(None)) {
                Stage::Ready(index) => index,
                _ => return Err(internal("a setup ready before its stages")),
            };
            self.finish_setup(setup, index.map(|i| *i))?;
        }
        Ok(())
    }

    /// Builds the leaves of `setup`, skipping the pages the page index `index` (of the
    /// setup's row groups and leaves) shows hold no row to read.
    fn finish_setup(&mut self, setup: Setup, index: Option<PageIndex>) -> Result<()> {
        let Setup {
            meta,
            columns,
            source,
            selected,
            plan,
            filter,
            row_groups,
            leaves: leaf_list,
            stats,
            ..
        } = setup;
        self.stats = stats;
        let pos = |leaf: usize| leaf_list.binary_search(&leaf).ok();
        let mut runs = Runs::default();
        let mut any_selection = selected;
        // Per row group read: (row group, its rows, offset index per leaf when pages skip).
        let mut groups: Vec<(usize, u64, bool)> = Vec::with_capacity(row_groups.len());
        let mut kept_index: Vec<usize> = Vec::with_capacity(row_groups.len());
        for (i, (rg, selection)) in row_groups.into_iter().enumerate() {
            let rows = row_group_rows(&meta, rg)? as u64;
            let mut sel = selection;
            if let (Some((f, _)), Some(idx)) = (&filter, &index) {
                let view = |leaf: usize| {
                    let j = pos(leaf)?;
                    Some((idx.column_index(i, j)?, idx.offset_index(i, j)?))
                };
                if let Some(pages) = f.page_selection(&view, rows) {
                    any_selection = true;
                    sel = Some(match sel {
                        Some(s) => s.intersect(&pages),
                        None => pages,
                    });
                }
            }
            if sel.as_ref().is_some_and(|s| s.row_count() == 0) {
                self.stats.row_groups_skipped += 1;
                self.stats.pages_skipped += data_pages(&meta, rg, &plan);
                continue;
            }
            let all = RowSelection::all(rows);
            let sel = sel.unwrap_or_else(|| all.clone());
            runs.push_row_group(&sel, rows);
            groups.push((rg, rows, sel != all));
            kept_index.push(i);
        }
        self.stats.row_groups_read = groups.len();
        // The leaves of the filter's fields are decoded first, the others late.
        let mut first = vec![false; plan.leaves.len()];
        if let Some((f, _)) = &filter {
            for field in f.fields() {
                if let Some(node) = plan.nodes.get(field) {
                    mark_leaves(node, &mut first);
                }
            }
            if first.contains(&false) {
                self.late = first
                    .iter()
                    .map(|&f| (!f).then(LateLeaf::default))
                    .collect();
            }
        }
        // The filter's top-level string and binary leaves whose chunks have dictionaries:
        // decoded as their dictionaries and keys.
        let mut as_keys = vec![false; plan.leaves.len()];
        if let Some((f, _)) = &filter {
            for field in f.fields() {
                if let Some(Shape::Leaf(j)) = plan.nodes.get(field).map(|n| &n.shape) {
                    if let (Some(k), Some(spec)) = (as_keys.get_mut(*j), plan.leaves.get(*j)) {
                        *k = all_dictionary_encoded(&meta, groups.iter().map(|g| g.0), spec.leaf);
                    }
                }
            }
        }
        let mut leaves = Vec::with_capacity(plan.leaves.len());
        for (j, spec) in plan.leaves.iter().enumerate() {
            // A late leaf skips whole pages of rows the filter drops, by the offset index.
            let late = self.late.get(j).is_some_and(Option::is_some);
            let mut spec = spec.clone();
            if as_keys.get(j) == Some(&true) {
                if let Some(t) = keys_type(&spec) {
                    spec.data_type = t;
                }
            }
            let mut tasks = Vec::with_capacity(groups.len());
            for (&(rg, rows, skips), &i) in groups.iter().zip(&kept_index) {
                let chunk = chunk_of(&meta, rg, spec.leaf)?;
                self.stats.chunk_bytes += u64::try_from(chunk.total_compressed_size()).unwrap_or(0);
                let mut max_records = usize::try_from(rows).unwrap_or(usize::MAX);
                if spec.max_rep_level == 0 {
                    // One value per row: no more rows than the chunk's `num_values` either
                    // (as pyarrow reads a chunk whose count is short).
                    max_records = max_records.min(usize::try_from(chunk.num_values()).unwrap_or(0));
                }
                let locations = match (&index, skips || late) {
                    (Some(idx), true) => pos(spec.leaf)
                        .and_then(|j| idx.offset_index(i, j))
                        .map(|o| Arc::from(o.page_locations())),
                    _ => None,
                };
                tasks.push(ChunkTask {
                    row_group: rg,
                    max_records,
                    rows,
                    locations,
                });
            }
            let mut leaf = LeafReader::new(spec, columns, source.clone(), tasks)?;
            if self.single {
                leaf.reserve_all();
            }
            leaves.push(leaf);
        }
        self.rows_left = groups.iter().map(|g| g.1).sum();
        self.runs = any_selection.then_some(runs);
        self.leaves = leaves;
        self.filter = filter;
        Ok(())
    }

    /// The leaf columns the read decodes.
    pub(crate) fn leaf_count(&self) -> usize {
        self.plan.leaves.len()
    }

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
        let skipped: u64 = self.leaves.iter().map(LeafReader::pages_skipped).sum();
        ReadStats {
            bytes_read: self.bytes_pushed,
            pages_read: self.leaves.iter().map(LeafReader::pages_read).sum(),
            pages_skipped: self.stats.pages_skipped + skipped,
            values_passed_over: self.leaves.iter().map(LeafReader::values_passed_over).sum(),
            ..self.stats
        }
    }

    /// Decodes everything into one batch: each leaf's chunks into one array, sized once
    /// from the metadata.
    pub(crate) fn into_single_batch(mut self) -> Self {
        for leaf in &mut self.leaves {
            leaf.reserve_all();
        }
        self.single = true;
        self.batch_size = usize::MAX;
        self
    }

    /// Makes the first batch (when every row is read) `rows` rows long, the others
    /// `batch_size`: a row group read apart from the rows before it then cuts its batches
    /// where one reader of them all would.
    pub(crate) fn with_head(mut self, rows: usize) -> Self {
        self.head = Some(rows.max(1));
        self
    }

    /// The next batch, the ranges it needs read from `source` and pushed first; `None` at
    /// the end.
    pub fn next_batch_from(&mut self, source: &dyn RangeRead) -> Result<Option<RecordBatch>> {
        loop {
            match self.poll()? {
                DecodeStep::Batch(b) => return Ok(Some(b)),
                DecodeStep::Finished => return Ok(None),
                DecodeStep::NeedData(ranges) => {
                    let got = source.read_ranges(&ranges)?;
                    if got.len() != ranges.len() {
                        return Err(internal("a source gave another number of ranges"));
                    }
                    for (r, bytes) in ranges.into_iter().zip(got) {
                        if bytes.len() as u64 != r.end - r.start {
                            return Err(short_read(&r, bytes.len()));
                        }
                        self.push(r.start, bytes);
                    }
                }
            }
        }
    }

    /// The next batch, the file ranges needed first, or the end. After an error the decoder
    /// is finished.
    pub fn poll(&mut self) -> Result<DecodeStep> {
        match std::mem::replace(&mut self.state, State::Failed) {
            State::Errored(e) => Err(e),
            State::Failed => Ok(DecodeStep::Finished),
            State::Setup(setup) => {
                let ranges = setup.wanted();
                if ranges.is_empty() {
                    return Err(internal("a setup waiting for no bytes"));
                }
                self.state = State::Setup(setup);
                Ok(DecodeStep::NeedData(coalesce(ranges, self.coalesce)))
            }
            state => {
                self.state = state;
                let step = self.step();
                if step.is_err() {
                    self.state = State::Failed;
                    self.waiting.clear();
                }
                step
            }
        }
    }

    /// Gives the decoder the file bytes `bytes`, starting at file offset `offset`: every leaf
    /// waiting for a range they cover takes its part (shared, not copied).
    pub fn push(&mut self, offset: u64, bytes: Bytes) {
        let end = offset.saturating_add(bytes.len() as u64);
        self.bytes_pushed = self.bytes_pushed.saturating_add(bytes.len() as u64);
        if let State::Setup(setup) = &mut self.state {
            setup.push(offset, &bytes);
            if let Err(e) = self.advance_setup() {
                self.state = State::Errored(e);
            }
            return;
        }
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
        coalesce(
            self.waiting.iter().map(|(_, r)| r.clone()).collect(),
            self.coalesce,
        )
    }

    /// The next batch, filtered (not empty).
    fn step(&mut self) -> Result<DecodeStep> {
        loop {
            let batch = match self.decode()? {
                DecodeStep::Batch(b) => b,
                other => return Ok(other),
            };
            if batch.num_rows() > 0 {
                self.stats.rows_kept += batch.num_rows() as u64;
                return Ok(DecodeStep::Batch(batch));
            }
        }
    }

    /// The next batch of rows read, filtered (perhaps empty).
    fn decode(&mut self) -> Result<DecodeStep> {
        loop {
            if !self.waiting.is_empty() {
                return Ok(DecodeStep::NeedData(self.needed()));
            }
            // The rows to read, the rows of the run they start (at least as many) and the
            // run after it.
            let (want, run, next) = match self.runs.as_ref().map(|r| (r.front(), r.next())) {
                None => {
                    let want = self.head.unwrap_or(self.batch_size);
                    (want, want as u64, None)
                }
                Some((None, _)) => return Ok(DecodeStep::Finished),
                Some((Some(Run::Skip(n)), _)) => {
                    self.skip(n);
                    continue;
                }
                Some((Some(Run::Read(n)), next)) => {
                    let want = usize::try_from(n)
                        .unwrap_or(usize::MAX)
                        .min(self.batch_size);
                    (want, n, next)
                }
            };
            let (step, rows) = match self.late.is_empty() {
                true => self.decode_rows(want, (run, next))?,
                false => self.decode_late(want, (run, next))?,
            };
            self.stats.rows_decoded += rows as u64;
            if rows > 0 {
                self.head = None;
            }
            if let Some(runs) = &mut self.runs {
                runs.advance(rows as u64);
            }
            return Ok(step);
        }
    }

    /// Skips the `n` rows of the current skip run: every leaf passes over them before it
    /// next reads ([`LeafReader::skip_records`]).
    fn skip(&mut self, n: u64) {
        if self.leaves.is_empty() {
            self.rows_left = self.rows_left.saturating_sub(n);
        }
        for leaf in &mut self.leaves {
            leaf.skip_records(n);
        }
        if let Some(runs) = &mut self.runs {
            runs.advance(n);
        }
    }

    /// Fills the leaves `pick` chooses with `want` records, side by side (`run`: the rows
    /// of the run they start and the run after it); false when some wait for bytes (then in
    /// `waiting`).
    fn fill(
        &mut self,
        want: usize,
        (run, next): (u64, Option<Run>),
        pick: impl Fn(usize) -> bool + Sync,
    ) -> Result<bool> {
        let need = par_each(&mut self.leaves, self.threads, |i, leaf| {
            if !pick(i) {
                return Ok(None);
            }
            Ok(match leaf.read_records(want, run, next)? {
                Fill::Need(range) => Some(range),
                Fill::Done => None,
            })
        })?;
        self.waiting.extend(need);
        Ok(self.waiting.is_empty())
    }

    /// The complete records all leaves `pick` chooses hold, at most `want`; `None` at the
    /// end of the read (after checking that no leaf holds more).
    fn ready(&mut self, want: usize, pick: impl Fn(usize) -> bool) -> Result<Option<usize>> {
        self.check_rows()?;
        let ready = (0..self.leaves.len())
            .filter(|&i| pick(i))
            .map(|i| self.leaves[i].complete())
            .min()
            .unwrap_or(0);
        let n = ready.min(want);
        if n > 0 {
            return Ok(Some(n));
        }
        // Late leaves may hold rows the filter dropped, to be skipped.
        let picked = self.leaves.iter().enumerate().filter(|(i, _)| pick(*i));
        if let Some((_, l)) = picked.into_iter().find(|(_, l)| l.complete() > 0) {
            return Err(inconsistent(format!(
                "column `{}` holds more rows than the other columns",
                l.spec().path
            )));
        }
        if self.runs.as_ref().and_then(Runs::front).is_some() {
            return Err(inconsistent(format!(
                "the columns end before the {} rows selected",
                self.runs.as_ref().map_or(0, Runs::selected)
            )));
        }
        Ok(None)
    }

    /// Takes `n` records of the leaves `pick` chooses, side by side (placeholders for the
    /// others).
    fn take(&mut self, n: usize, pick: impl Fn(usize) -> bool + Sync) -> Result<Vec<LeafBatch>> {
        let taken = par_each(&mut self.leaves, self.threads, |i, leaf| {
            pick(i).then(|| leaf.take(n)).transpose()
        })?;
        let mut batches: Vec<LeafBatch> = (0..self.leaves.len()).map(|_| placeholder()).collect();
        for (i, b) in taken {
            batches[i] = b;
        }
        Ok(batches)
    }

    /// The next batch of at most `want` rows read (filtered) and the rows read.
    fn decode_rows(&mut self, want: usize, run: (u64, Option<Run>)) -> Result<(DecodeStep, usize)> {
        if self.leaves.is_empty() {
            let n = want.min(usize::try_from(self.rows_left).unwrap_or(usize::MAX));
            self.rows_left -= n as u64;
            return match n {
                0 => Ok((DecodeStep::Finished, 0)),
                n => Ok((DecodeStep::Batch(self.kept(Vec::new(), n)?), n)),
            };
        }
        if !self.fill(want, run, |_| true)? {
            return Ok((DecodeStep::NeedData(self.needed()), 0));
        }
        let Some(n) = self.ready(want, |_| true)? else {
            return Ok((DecodeStep::Finished, 0));
        };
        let batches = self.take(n, |_| true)?;
        let arrays = self
            .plan
            .nodes
            .iter()
            .map(|node| assemble(node, &batches, n))
            .collect::<Result<Vec<_>>>()?;
        Ok((DecodeStep::Batch(self.kept(arrays, n)?), n))
    }

    /// The batch of the fields handed out, of the rows of `n` the filter keeps (whose
    /// fields are `arrays`).
    fn kept(&self, arrays: Vec<ArrayRef>, n: usize) -> Result<RecordBatch> {
        let Some((filter, outputs)) = &self.filter else {
            return make_batch(self.plan.schema.clone(), arrays, n);
        };
        let mask = filter.evaluate(&arrays)?;
        let kept = mask.true_count();
        let mask = (kept < n).then_some(&mask);
        let fields = self.output.fields();
        let arrays = arrays
            .iter()
            .take(*outputs)
            .zip(fields.iter())
            .map(|(a, f)| as_output(keep(a, mask)?, f.data_type()))
            .collect::<Result<Vec<_>>>()?;
        make_batch(self.output.clone(), arrays, kept)
    }

    /// The next batch of at most `want` rows read and the rows read, the filter's leaves
    /// decoded first and the others only for the rows it keeps ([`crate::read::exec::late`]).
    fn decode_late(&mut self, want: usize, run: (u64, Option<Run>)) -> Result<(DecodeStep, usize)> {
        // Shared, not copied, for the batch.
        let Some((filter, outputs)) = self.filter.clone() else {
            return Err(internal("a late read without a filter"));
        };
        let is_first = |i: usize| matches!(self.late.get(i), Some(None));
        let first: Vec<bool> = (0..self.leaves.len()).map(is_first).collect();
        let first = |i: usize| first.get(i).copied().unwrap_or(false);
        let f = match std::mem::replace(&mut self.state, State::Ready) {
            State::Filtered(f) => f,
            other => {
                self.state = other;
                if !self.fill(want, run, first)? {
                    return Ok((DecodeStep::NeedData(self.needed()), 0));
                }
                let Some(n) = self.ready(want, first)? else {
                    return Ok((DecodeStep::Finished, 0));
                };
                let batches = self.take(n, first)?;
                let mut columns: Vec<ArrayRef> =
                    vec![
                        arrow_array::new_empty_array(&arrow_schema::DataType::Null,);
                        self.plan.nodes.len()
                    ];
                for field in filter.fields() {
                    if let (Some(node), Some(slot)) =
                        (self.plan.nodes.get(field), columns.get_mut(field))
                    {
                        *slot = assemble(node, &batches, n)?;
                    }
                }
                let mask = filter.evaluate(&columns)?;
                let (steps, taken) = steps(&mask);
                Box::new(Filtered {
                    rows: n,
                    mask,
                    batches,
                    columns,
                    steps,
                    taken,
                })
            }
        };
        let steps = &f.steps;
        let mut items: Vec<(&mut LeafReader, &mut LateLeaf)> = self
            .leaves
            .iter_mut()
            .zip(self.late.iter_mut())
            .filter_map(|(l, s)| Some((l, s.as_mut()?)))
            .collect();
        let need = par_each(&mut items, self.threads, |_, (leaf, state)| {
            state.advance(leaf, steps)
        })?;
        if !need.is_empty() {
            // The late leaves by their index among all leaves.
            let late: Vec<usize> = (0..self.late.len()).filter(|&i| !first(i)).collect();
            for (k, range) in need {
                if let Some(&i) = late.get(k) {
                    self.waiting.push((i, range));
                }
            }
            self.state = State::Filtered(f);
            return Ok((DecodeStep::NeedData(self.needed()), 0));
        }
        let mut f = *f;
        let kept = f.mask.true_count();
        for (i, state) in self.late.iter_mut().enumerate() {
            if let (Some(state), Some(slot)) = (state, f.batches.get_mut(i)) {
                if let Some(b) = state.finish()? {
                    *slot = b;
                }
            }
        }
        if kept == 0 {
            return Ok((
                DecodeStep::Batch(RecordBatch::new_empty(self.output.clone())),
                f.rows,
            ));
        }
        let mask = (kept < f.rows).then_some(&f.mask);
        let taken_rows = f
            .steps
            .iter()
            .map(|s| match s {
                Run::Read(n) => *n,
                Run::Skip(_) => 0,
            })
            .sum::<u64>();
        let taken_rows = usize::try_from(taken_rows).unwrap_or(usize::MAX);
        let mut arrays = Vec::with_capacity(outputs);
        for (field, node) in self.plan.nodes.iter().enumerate().take(outputs) {
            let array = match filter.fields().any(|c| c == field) {
                true => as_output(keep(&f.columns[field], mask)?, node.field.data_type())?,
                false => keep(&assemble(node, &f.batches, taken_rows)?, f.taken.as_ref())?,
            };
            arrays.push(array);
        }
        Ok((
            DecodeStep::Batch(make_batch(self.output.clone(), arrays, kept)?),
            f.rows,
        ))
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

/// The Arrow dictionary type a filter leaf of `spec` is decoded as (its entries compared
/// once each, the rows looking their key up), for string and binary leaves.
fn keys_type(spec: &ColumnSpec) -> Option<DataType> {
    let values = match &spec.data_type {
        DataType::Utf8 | DataType::Utf8View => DataType::Utf8,
        DataType::Binary | DataType::BinaryView => DataType::Binary,
        DataType::LargeUtf8 => DataType::LargeUtf8,
        DataType::LargeBinary => DataType::LargeBinary,
        _ => return None,
    };
    let byte_array = spec.physical == PhysicalType::ByteArray;
    byte_array.then(|| DataType::Dictionary(Box::new(DataType::Int32), Box::new(values)))
}

/// `array` as `t`: a filter column decoded as its dictionary gathers its values (of the
/// rows kept) here.
fn as_output(array: ArrayRef, t: &DataType) -> Result<ArrayRef> {
    if array.data_type() == t {
        return Ok(array);
    }
    arrow_cast::cast(&array, t).map_err(arrow_error)
}

/// Marks the leaves under `node`.
fn mark_leaves(node: &Node, marks: &mut [bool]) {
    match &node.shape {
        Shape::Leaf(j) => {
            if let Some(m) = marks.get_mut(*j) {
                *m = true;
            }
        }
        Shape::Struct(children) => children.iter().for_each(|c| mark_leaves(c, marks)),
        Shape::List { child, .. } => mark_leaves(child, marks),
    }
}

/// The most bytes ranges are merged into: a read shared by many leaves is freed only when
/// the last of them has decompressed its pages, so a wide row group read at once would hold
/// all its compressed bytes beside what the leaves decoded.
const MAX_COALESCED: u64 = 8 << 20;

/// `ranges` sorted, those closer than `gap` merged (up to [`MAX_COALESCED`] bytes).
fn coalesce(mut ranges: Vec<Range<u64>>, gap: u64) -> Vec<Range<u64>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last)
                if r.start <= last.end.saturating_add(gap)
                    && (r.start < last.end
                        || r.end.max(last.end) - last.start <= MAX_COALESCED) =>
            {
                last.end = last.end.max(r.end);
            }
            _ => out.push(r),
        }
    }
    out
}

#[cold]
fn rows_differ(column: &str, rg: usize, got: u64, first: &str, rows: u64) -> Error {
    inconsistent(format!(
        "column `{column}` holds {got} rows up to the end of row group {rg}, column `{first}` {rows}"
    ))
}
