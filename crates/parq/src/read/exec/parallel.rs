//! Row groups read side by side ([`RowGroupBatches`]): with `threads` above 1 and several
//! row groups to read (and no row selection), worker threads decode whole row groups, each
//! its own [`super::ParquetDecoder`] over the shared source, worker `w` taking the `w`-th,
//! `w + threads`-th, ... row group and running up to one row group (and [`AHEAD`] batches)
//! ahead of the reader, so that every worker keeps decoding while the reader takes the
//! batches of another's row group. The batches are handed out in row-group order. Without a
//! filter they are the batches of one thread: a worker cuts its row group's batches where
//! one reader of all the row groups would (its first batch ends where that reader's batch
//! does), and the reader joins the two parts of each batch that spans row groups.

use std::collections::VecDeque;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::read::exec::builder::ParquetDecoderBuilder;
use crate::read::exec::decoder::ReadStats;
use crate::read::io::source::RangeRead;
use crate::{Error, ErrorKind, Result};

/// Batches a worker may decode before the reader takes them, beyond those of a row group.
const AHEAD: usize = 2;
/// At most this many batches wait in a worker's channel (its slots are allocated up front).
const MAX_WAITING: usize = 1024;

/// What a worker sends: a batch of its current row group, the end of it (with what its
/// read did), or the error that ended it.
enum Message {
    Batch(RecordBatch),
    End(ReadStats),
    Failed(Error),
}

/// The batches of row groups decoded by worker threads, in order: see the
/// [module documentation](self).
#[derive(Debug)]
pub(crate) struct RowGroupBatches {
    workers: Vec<Receiver<Message>>,
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
    /// Starts `threads` workers over the row groups `groups` of `builder`'s read.
    pub(crate) fn start(
        builder: &ParquetDecoderBuilder,
        source: &Arc<dyn RangeRead>,
        groups: Vec<usize>,
        threads: usize,
        schema: SchemaRef,
    ) -> Self {
        let n = threads.clamp(1, groups.len().max(1));
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
        let jobs: Vec<Job> = groups
            .iter()
            .map(|&rg| {
                let head = cut
                    .map(|size| (size - start % size) % size)
                    .filter(|&h| h > 0);
                start = start.wrapping_add(rows(rg));
                Job { rg, head }
            })
            .collect();
        let mut workers = Vec::with_capacity(n);
        for w in 0..n {
            let mine: Vec<Job> = jobs.iter().copied().skip(w).step_by(n).collect();
            let batches = mine
                .iter()
                .map(|j| rows(j.rg).div_ceil(batch_size) + usize::from(j.head.is_some()))
                .max()
                .unwrap_or(0);
            let (send, receive) = sync_channel((batches + AHEAD).min(MAX_WAITING));
            let builder = builder.clone();
            let source = Arc::clone(source);
            std::thread::spawn(move || work(builder, source, mine, send));
            workers.push(receive);
        }
        RowGroupBatches {
            workers,
            groups: groups.len(),
            ended: 0,
            pending: VecDeque::new(),
            pending_rows: 0,
            cut,
            schema,
            stats: ReadStats::default(),
            failed: false,
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
            let worker = self.ended % self.workers.len();
            match self.workers.get(worker).map(Receiver::recv) {
                Some(Ok(Message::Batch(b))) => {
                    self.pending_rows += b.num_rows();
                    self.pending.push_back(b);
                }
                Some(Ok(Message::End(stats))) => {
                    self.stats.add(&stats);
                    self.ended += 1;
                }
                Some(Ok(Message::Failed(e))) => {
                    self.failed = true;
                    return Err(e);
                }
                Some(Err(_)) | None => {
                    self.failed = true;
                    return Err(Error::new(ErrorKind::Inconsistent(
                        "a reader thread stopped before its row groups ended".to_string(),
                    )));
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
            _ => arrow_select::concat::concat_batches(&self.schema, &parts)
                .map_err(|e| Error::new(ErrorKind::Inconsistent(e.to_string()))),
        }
    }
}

/// A row group for a worker to read, and the rows of its first batch when not the batch
/// size.
#[derive(Debug, Clone, Copy)]
struct Job {
    rg: usize,
    head: Option<usize>,
}

/// A worker: reads the row groups `jobs` one after the other, sending their batches.
fn work(
    builder: ParquetDecoderBuilder,
    source: Arc<dyn RangeRead>,
    jobs: Vec<Job>,
    send: SyncSender<Message>,
) {
    for Job { rg, head } in jobs {
        let one = builder.clone().with_row_groups([rg]).with_threads(1);
        let built = one.build().map(|d| match head {
            Some(rows) => d.with_head(rows),
            None => d,
        });
        let mut decoder = match built {
            Ok(decoder) => decoder,
            Err(e) => {
                let _ = send.send(Message::Failed(e));
                return;
            }
        };
        loop {
            let message = match decoder.next_batch_from(source.as_ref()) {
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
        if send.send(Message::End(decoder.stats())).is_err() {
            return;
        }
    }
}
