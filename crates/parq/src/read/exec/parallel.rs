//! Row groups read side by side ([`RowGroupBatches`]): with `threads` above 1 and several
//! row groups to read (and no row selection), whole row groups are decoded as jobs of the
//! process's worker pool ([`crate::workers`]), each its own [`ParquetDecoder`] over the
//! shared source, all of them with the one plan of the read (made for all its row groups).
//! Up to `threads` row groups are under way at once, started in order as the reader takes
//! the batches of the earlier ones, so that the pool keeps decoding while the
//! reader takes another row group's batches; a job never waits for the reader (it sends its
//! batches to a queue of its own), so reads consumed in turn cannot block each other. The
//! batches are handed out in row-group order. Without a filter they are the batches of one
//! thread: a job cuts its row group's batches where one reader of all the row groups would
//! (its first batch ends where that reader's batch does), and the reader joins the two parts
//! of each batch that spans row groups.

use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::{arrow_error, internal};
use crate::read::exec::builder::ParquetDecoderBuilder;
use crate::read::exec::decoder::ParquetDecoder;
use crate::read::exec::stats::ReadStats;
use crate::read::io::source::RangeRead;
use crate::workers;
use crate::{Error, Result};

/// What a job sends: a batch of its row group, the end of it (with what its read did), or
/// the error that ended it.
enum Message {
    Batch(RecordBatch),
    End(ReadStats),
    Failed(Error),
}

/// The batches of row groups decoded by jobs of the worker pool, in order: see the
/// [module documentation](self).
#[derive(Debug)]
pub(crate) struct RowGroupBatches {
    builder: ParquetDecoderBuilder,
    source: Arc<dyn RangeRead>,
    /// Row groups not started yet, in order.
    waiting: VecDeque<Job>,
    /// The row groups under way, in order: what their jobs send.
    running: VecDeque<Receiver<Message>>,
    /// How many row groups may be under way at once.
    threads: usize,
    /// Row groups to read, and how many have ended.
    groups: usize,
    ended: usize,
    /// Batches received and not yet handed out, and their rows.
    pending: VecDeque<RecordBatch>,
    pending_rows: usize,
    /// The batch size, when batches are cut again to it (no filter).
    cut: Option<usize>,
    schema: SchemaRef,
    stats: ReadStats,
    failed: bool,
}

impl RowGroupBatches {
    /// Reads the row groups `groups` of `builder`'s read, up to `threads` at once.
    pub(crate) fn start(
        builder: &ParquetDecoderBuilder,
        source: &Arc<dyn RangeRead>,
        groups: Vec<usize>,
        threads: usize,
        schema: SchemaRef,
    ) -> Self {
        let batch_size = builder.options().batch_size.max(1);
        let cut = builder.filter.is_none().then_some(batch_size);
        let row_groups = builder.metadata().row_groups.as_slice();
        let rows = |rg: usize| {
            row_groups
                .get(rg)
                .map_or(0, |g| usize::try_from(g.num_rows).unwrap_or(0))
        };
        // Each row group with the rows of its first batch, when the batches of the row
        // groups before it do not end at its start.
        let mut start = 0usize;
        let waiting: VecDeque<Job> = groups
            .iter()
            .map(|&rg| {
                let head = cut
                    .map(|size| (size - start % size) % size)
                    .filter(|&h| h > 0);
                start = start.wrapping_add(rows(rg));
                Job { rg, head }
            })
            .collect();
        // Planned once for all the row groups (a failure is each job's to report).
        let builder = match builder.planned() {
            Ok(planned) => builder.clone().with_planned(planned),
            Err(_) => builder.clone(),
        };
        let mut batches = RowGroupBatches {
            builder,
            source: Arc::clone(source),
            waiting,
            running: VecDeque::new(),
            threads: threads.max(1),
            groups: groups.len(),
            ended: 0,
            pending: VecDeque::new(),
            pending_rows: 0,
            cut,
            schema,
            stats: ReadStats::default(),
            failed: false,
        };
        batches.start_jobs();
        batches
    }

    /// Starts the next row groups while fewer than `threads` are under way.
    fn start_jobs(&mut self) {
        while self.running.len() < self.threads {
            let Some(job) = self.waiting.pop_front() else {
                return;
            };
            let (send, receive) = channel();
            let builder = self.builder.clone();
            let source = Arc::clone(&self.source);
            workers::spawn(move || read_row_group(builder, source.as_ref(), job, &send));
            self.running.push_back(receive);
        }
    }

    /// What the reads of the row groups ended so far did.
    pub(crate) fn stats(&self) -> ReadStats {
        self.stats
    }

    /// The next batch.
    pub(crate) fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.failed {
            return Ok(None);
        }
        loop {
            let all_in = self.ended == self.groups;
            match self.cut {
                Some(size) if self.pending_rows >= size || (all_in && self.pending_rows > 0) => {
                    return self.cut_batch(size).map(Some);
                }
                None if !self.pending.is_empty() => {
                    let b = self.pending.pop_front();
                    self.pending_rows -= b.as_ref().map_or(0, RecordBatch::num_rows);
                    return Ok(b);
                }
                _ if all_in => return Ok(None),
                _ => {}
            }
            match self.running.front().map(Receiver::recv) {
                Some(Ok(Message::Batch(b))) => {
                    self.pending_rows += b.num_rows();
                    self.pending.push_back(b);
                }
                Some(Ok(Message::End(stats))) => {
                    self.stats.add(&stats);
                    self.ended += 1;
                    self.running.pop_front();
                    self.start_jobs();
                }
                Some(Ok(Message::Failed(e))) => {
                    self.failed = true;
                    return Err(e);
                }
                Some(Err(_)) | None => {
                    self.failed = true;
                    return Err(internal(
                        "a row group's job stopped before the row group ended",
                    ));
                }
            }
        }
    }

    /// The first `size` rows pending (fewer at the end), as one batch.
    fn cut_batch(&mut self, size: usize) -> Result<RecordBatch> {
        let mut parts = Vec::new();
        let mut rows = 0;
        while rows < size {
            let Some(b) = self.pending.pop_front() else {
                break;
            };
            let want = size - rows;
            if b.num_rows() > want {
                parts.push(b.slice(0, want));
                self.pending.push_front(b.slice(want, b.num_rows() - want));
                rows += want;
            } else {
                rows += b.num_rows();
                parts.push(b);
            }
        }
        self.pending_rows -= rows;
        match parts.len() {
            1 => Ok(parts.remove(0)),
            _ => arrow_select::concat::concat_batches(&self.schema, &parts).map_err(arrow_error),
        }
    }
}

/// A row group to read, and the rows of its first batch when not the batch size.
#[derive(Debug, Clone, Copy)]
struct Job {
    rg: usize,
    head: Option<usize>,
}

/// A job: reads the row group of `job`, sending its batches, then its end (or the error).
fn read_row_group(
    builder: ParquetDecoderBuilder,
    source: &dyn RangeRead,
    Job { rg, head }: Job,
    send: &Sender<Message>,
) {
    let one = builder.with_row_groups([rg]).with_threads(1);
    let mut decoder: ParquetDecoder = match one.build() {
        Ok(d) => match head {
            Some(rows) => d.with_head(rows),
            None => d,
        },
        Err(e) => {
            let _ = send.send(Message::Failed(e));
            return;
        }
    };
    loop {
        let message = match decoder.next_batch_from(source) {
            Ok(Some(b)) => Message::Batch(b),
            Ok(None) => break,
            Err(e) => Message::Failed(e),
        };
        let failed = matches!(message, Message::Failed(_));
        // The reader is gone (dropped): nothing more to do.
        if send.send(message).is_err() || failed {
            return;
        }
    }
    let _ = send.send(Message::End(decoder.stats()));
}
