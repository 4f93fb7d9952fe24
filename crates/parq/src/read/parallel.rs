//! Row groups read side by side ([`RowGroupBatches`]): with `threads` above 1 and several
//! row groups to read (and no row selection), worker threads decode whole row groups, each
//! its own [`super::ParquetDecoder`] over the shared source, worker `w` taking the `w`-th,
//! `w + threads`-th, ... row group and running up to one row group (and [`AHEAD`] batches)
//! ahead of the reader, so that every worker keeps decoding while the reader takes the
//! batches of another's row group. The batches are handed out in row-group order; without a filter they are cut
//! again to the batch size across row groups, so that they are the batches of one thread
//! (with a batch size of a row group's rows, row groups of that size pass whole).

use std::collections::VecDeque;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::builder::ParquetDecoderBuilder;
use super::decoder::ReadStats;
use super::reader::RecordBatches;
use super::source::RangeRead;
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
        let row_groups = builder.metadata().row_groups.as_slice();
        let mut workers = Vec::with_capacity(n);
        for w in 0..n {
            let mine: Vec<usize> = groups.iter().copied().skip(w).step_by(n).collect();
            let batches = mine
                .iter()
                .filter_map(|&rg| row_groups.get(rg))
                .map(|rg| {
                    usize::try_from(rg.num_rows)
                        .unwrap_or(0)
                        .div_ceil(batch_size)
                })
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
            cut: builder
                .filter
                .is_none()
                .then_some(builder.options().batch_size.max(1)),
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

/// A worker: reads the row groups `groups` one after the other, sending their batches.
fn work(
    builder: ParquetDecoderBuilder,
    source: Arc<dyn RangeRead>,
    groups: Vec<usize>,
    send: SyncSender<Message>,
) {
    for rg in groups {
        let one = builder.clone().with_row_groups([rg]).with_threads(1);
        let mut batches = match one.build() {
            Ok(decoder) => RecordBatches::serial(decoder, Arc::clone(&source)),
            Err(e) => {
                let _ = send.send(Message::Failed(e));
                return;
            }
        };
        for batch in &mut batches {
            let message = match batch {
                Ok(b) => Message::Batch(b),
                Err(e) => Message::Failed(e),
            };
            let failed = matches!(message, Message::Failed(_));
            // The reader is gone (dropped): nothing more to do.
            if send.send(message).is_err() || failed {
                return;
            }
        }
        if send.send(Message::End(batches.stats())).is_err() {
            return;
        }
    }
}
